"""A game's start as the lobby would make it, built in-process: keys, chains, dealt shares, signatures."""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Any

from lanopoly.net import shares
from lanopoly.net.chain import HashChain
from lanopoly.net.genesis import Genesis, PeerEntry, StartRecord, genesis_hash, genesis_sig_data
from lanopoly.net.keys import Signer, Suite


@dataclass
class PeerSecrets:
    """What one peer keeps private: its key, its chain secret, the shares it holds of the others'."""

    key: Signer
    chain_secret: bytes
    held: dict[int, bytes] = field(default_factory=dict)


@functools.lru_cache(maxsize=64)
def _identities(
    peers: int, pool: int, suite_name: str, chain_length: int
) -> tuple[tuple[bytes, bytes, shares.Deal | None], ...]:
    """Keys, chain secrets and dealt shares of ``peers`` peers, from a fixed seed: a pool of eight
    sets per table size, shared by the games that draw it (dealing costs milliseconds)."""
    rng = random.Random(f"identities/{peers}/{pool}/{suite_name}")
    t = shares.threshold(peers)
    out = []
    for dealer in range(peers):
        seed, secret = rng.randbytes(32), shares.new_secret(rng.randbytes)
        holders = [h for h in range(peers) if h != dealer]
        deal = shares.deal(secret, holders, t, rng.randbytes) if t is not None else None
        out.append((seed, secret, deal))
    return tuple(out)


def make_table(
    rng: random.Random,
    suite: Suite,
    controllers: list[int],
    *,
    rules: dict[str, Any],
    board: str = "classic",
    chain_length: int = 400,
    replace_with: str = "bot",
) -> tuple[Genesis, list[PeerSecrets]]:
    """The genesis of a game whose seat ``s`` is played by peer ``controllers[s]``, and each peer's secrets."""
    peers = max(controllers) + 1
    identities = _identities(peers, rng.randrange(8), suite.name, chain_length)
    secrets = [PeerSecrets(suite.new_signer(seed), secret) for seed, secret, _ in identities]
    entries = tuple(
        PeerEntry(
            f"p{i}", f"127.0.0.{i + 1}", 40000 + i, s.key.public, HashChain.of(chain_length, s.chain_secret).anchor
        )
        for i, s in enumerate(secrets)
    )
    record = StartRecord(
        game_id=rng.randbytes(16),
        peers=entries,
        names=tuple(f"s{seat}" for seat in range(len(controllers))),
        controllers=tuple(controllers),
        board=board,
        rules=rules,
        chain_length=chain_length,
        replace_with=replace_with,
    )
    commitments: list[tuple[bytes, ...]] = []
    for dealer, (_, _, deal) in enumerate(identities):
        commitments.append(deal.commitments if deal is not None else ())
        if deal is not None:
            for holder, value in deal.shares.items():
                secrets[holder].held[dealer] = value
    start = record.encode()
    ghash = genesis_hash(start, commitments)
    signatures = tuple(s.key.sign(genesis_sig_data(ghash)) for s in secrets)
    genesis = Genesis(start, record, tuple(commitments), signatures)
    genesis.check(suite.verify)
    return genesis, secrets
