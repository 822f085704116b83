"""A game's start as the lobby would make it, built in-process: keys, chains, dealt shares, signatures."""

from __future__ import annotations

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

    def random_bytes(n: int) -> bytes:
        return rng.randbytes(n)

    peers = max(controllers) + 1
    secrets = [PeerSecrets(suite.new_signer(random_bytes(32)), shares.new_secret(random_bytes)) for _ in range(peers)]
    entries = tuple(
        PeerEntry(f"p{i}", f"127.0.0.{i + 1}", 40000 + i, s.key.public, HashChain(chain_length, s.chain_secret).anchor)
        for i, s in enumerate(secrets)
    )
    record = StartRecord(
        game_id=random_bytes(16),
        peers=entries,
        names=tuple(f"s{seat}" for seat in range(len(controllers))),
        controllers=tuple(controllers),
        board=board,
        rules=rules,
        chain_length=chain_length,
        replace_with=replace_with,
    )
    t = shares.threshold(peers)
    commitments: list[tuple[bytes, ...]] = []
    for dealer, s in enumerate(secrets):
        if t is None:
            commitments.append(())
            continue
        holders = [h for h in range(peers) if h != dealer]
        deal = shares.deal(s.chain_secret, holders, t, random_bytes)
        commitments.append(deal.commitments)
        for holder, value in deal.shares.items():
            assert shares.check_share(deal.commitments, holder, value)
            secrets[holder].held[dealer] = value
    start = record.encode()
    ghash = genesis_hash(start, commitments)
    signatures = tuple(s.key.sign(genesis_sig_data(ghash)) for s in secrets)
    genesis = Genesis(start, record, tuple(commitments), signatures)
    genesis.check(suite.verify)
    return genesis, secrets
