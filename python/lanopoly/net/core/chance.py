"""Chance steps: each peer's hash-chain reveals, the seed they make, and recovering a removed peer's.

Every peer commits in the start record to the end of a hash chain (its anchor) and reveals one
link per chance event, checked against the link before (``chain.py``). The seed of chance step
``k`` hashes the game id, ``k``, the state before it and **every** peer's link for this event, in
peer order: a present peer's reveal; a removed peer's link computed from its secret, rebuilt from
the shares the others released (``shares.py``), so a peer that withholds a reveal and is removed
gives the roll it would have given; 32 zero bytes for a removed peer whose secret could not be
rebuilt (a game of two, or a dealer that cheated: its seats resign).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from lanopoly.net.chain import HashChain, chain_hash
from lanopoly.net.genesis import Genesis
from lanopoly.net.protocol import Reveal, Share
from lanopoly.net.shares import check_share, combine, threshold

SEED_TAG = b"lanopoly/9/seed\x00"
UNRECOVERED = bytes(32)
"""The link a removed peer whose secret could not be rebuilt contributes."""


def step_seed(game_id: bytes, step: int, prev: bytes, links: list[bytes]) -> bytes:
    """The 32 random bytes of a chance step from every peer's link, in peer order."""
    h = hashlib.sha256(SEED_TAG)
    h.update(game_id)
    h.update(step.to_bytes(8, "big"))
    h.update(prev)
    for link in links:
        h.update(link)
    return h.digest()


class Chance:
    """The chance events so far: this peer's chain, the last link of every peer, recovered chains."""

    def __init__(self, genesis: Genesis, me: int, secret: bytes | None) -> None:
        """``secret`` None: an observer (``verify``), which checks others' reveals and makes none."""
        record = genesis.record
        self.game_id = genesis.game_id
        self.me = me
        self.chain = None if secret is None else HashChain.of(record.chain_length, secret)
        if self.chain is not None and self.chain.anchor != record.peers[me].anchor:
            raise ValueError("this chain secret does not match this peer's anchor in the start record")
        self.last = [p.anchor for p in record.peers]
        self.index = 0
        """Chance events applied so far; the next reveal of every peer is link ``index + 1``."""
        self.recovered: dict[int, HashChain | None] = {}

    def my_link(self) -> bytes:
        """This peer's link for the next chance event."""
        if self.chain is None:
            raise ValueError("an observer reveals nothing")
        return self.chain.reveal(self.index + 1)

    def valid(self, reveal: Reveal) -> bool:
        """Whether ``reveal`` is its signer's next link (its index and its hash)."""
        return reveal.index == self.index + 1 and chain_hash(reveal.link) == self.last[reveal.signer]

    def links(self, reveals: Mapping[int, Reveal]) -> list[bytes]:
        """Every peer's link for the next event: revealed, recovered, or zeros."""
        out = []
        for peer in range(len(self.last)):
            if peer in reveals:
                out.append(reveals[peer].link)
            elif peer in self.recovered:
                chain = self.recovered[peer]
                out.append(chain.reveal(self.index + 1) if chain is not None else UNRECOVERED)
            else:
                raise KeyError(f"no link of peer {peer}")
        return out

    def advance(self, links: list[bytes]) -> None:
        """The event was applied: every peer's link moves on."""
        self.index += 1
        self.last = list(links)


class Recovery:
    """Rebuilding the chain secrets of removed peers from the shares the others release."""

    def __init__(self, genesis: Genesis, chance: Chance) -> None:
        self.genesis = genesis
        self.chance = chance
        self.t = threshold(len(genesis.record.peers))
        self.shares: dict[int, dict[int, Share]] = {}
        """Valid shares received, by dealer then holder."""
        self.pending: set[int] = set()

    def start(self, dealers: tuple[int, ...], holders: list[int]) -> None:
        """``dealers`` were removed: their secrets are wanted (given up at once where they cannot be rebuilt)."""
        for dealer in dealers:
            if dealer in self.chance.recovered:
                continue
            if self.t is None or len([h for h in holders if h != dealer]) < self.t:
                self.chance.recovered[dealer] = None
            else:
                self.pending.add(dealer)
                self._try(dealer)  # shares that came before this peer made the change count too

    def check(self, share: Share) -> bool:
        """Whether ``share`` is its holder's true share of its dealer's secret (by the commitments)."""
        if share.dealer == share.signer or share.dealer >= len(self.genesis.commitments):
            return False
        return check_share(self.genesis.commitments[share.dealer], share.signer, share.value)

    def take(self, share: Share) -> None:
        """File a checked share; rebuild the dealer's chain once ``t`` are in."""
        self.shares.setdefault(share.dealer, {})[share.signer] = share
        if share.dealer in self.pending:
            self._try(share.dealer)

    def _try(self, dealer: int) -> None:
        got = self.shares.get(dealer, {})
        if self.t is None or len(got) < self.t:
            return
        secret = combine({h: s.value for h, s in got.items()}, self.t)
        chain = HashChain.of(self.genesis.record.chain_length, secret)
        anchor = self.genesis.record.peers[dealer].anchor
        self.chance.recovered[dealer] = chain if chain.anchor == anchor else None
        self.pending.discard(dealer)

    def used(self, dealer: int) -> tuple[Share, ...]:
        """The shares that rebuilt (or failed to rebuild) ``dealer``'s secret, in holder order."""
        got = self.shares.get(dealer, {})
        return tuple(got[h] for h in sorted(got))[: self.t or 0]

    def failed(self, dealer: int) -> bool:
        """Whether ``dealer``'s shares rebuilt a secret that is not its chain's (it cheated)."""
        return (
            dealer in self.chance.recovered
            and self.chance.recovered[dealer] is None
            and len(self.used(dealer)) == (self.t or -1)
        )
