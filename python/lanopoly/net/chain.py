"""Commit-reveal randomness with hash chains.

Each peer draws a secret ``s`` and commits, in the start record, to the chain's end
``anchor = H^L(s)``. At its c-th chance event it reveals ``v_c = H^(L-c)(s)``; anyone checks
``H(v_c) == v_(c-1)`` (with ``v_0 = anchor``), so a peer cannot choose its reveal after seeing the
others'. The seed of a chance step hashes every peer's link (``core/chance.py``): unpredictable
while one peer is honest. A peer that waits for the others' links and then refuses to reveal its
own gains nothing: with three or more peers it is removed and its links are rebuilt from the shares
of its secret the others hold (``shares.py``), so the roll is the one its reveal would have given;
with two, where no protocol can stop the last revealer from aborting, its seats resign.
"""

from __future__ import annotations

import functools
import hashlib
import secrets

CHAIN_TAG = b"lanopoly/chain/v1\x00"
SEED_TAG = b"lanopoly/seed/v1\x00"
DEFAULT_CHAIN_LENGTH = 20_000
"""Chance events one chain covers; a 30-round game of 4 needs a few hundred."""


def chain_hash(value: bytes) -> bytes:
    """The chain's one-way step H (domain-separated SHA-256)."""
    return hashlib.sha256(CHAIN_TAG + value).digest()


class ChainExhausted(Exception):
    """Every link of the chain has been revealed."""


class HashChain:
    """A peer's own chain: the secret stays here, ``anchor`` goes into the start record."""

    def __init__(self, length: int = DEFAULT_CHAIN_LENGTH, secret: bytes | None = None) -> None:
        if length < 1:
            raise ValueError("a chain needs at least one link")
        value = secret if secret is not None else secrets.token_bytes(32)
        links = [value]
        for _ in range(length):
            value = chain_hash(value)
            links.append(value)
        self._links = links
        self.length = length

    @classmethod
    def of(cls, length: int, secret: bytes) -> HashChain:
        """The chain of ``secret`` (the last few built are kept: a peer, a verifier and a rebuilt
        removed peer ask for the same chains again)."""
        return _cached(length, secret)

    @property
    def secret(self) -> bytes:
        """The chain's secret start: saved privately so that a peer that restarts reveals the same links."""
        return self._links[0]

    @property
    def anchor(self) -> bytes:
        """``H^L(secret)``: the public commitment."""
        return self._links[self.length]

    def reveal(self, index: int) -> bytes:
        """The ``index``-th reveal (1-based): ``H^(L-index)(secret)``."""
        if not 1 <= index <= self.length:
            raise ChainExhausted(f"reveal {index} is beyond a chain of {self.length} links")
        return self._links[self.length - index]


class ChainVerifier:
    """Checks another peer's reveals one by one against its anchor."""

    def __init__(self, anchor: bytes, length: int) -> None:
        self.last = anchor
        self.revealed = 0
        self.length = length

    def check(self, index: int, link: bytes) -> bool:
        """Whether ``link`` is the next reveal (``index`` must follow the last one); records it if so."""
        if index != self.revealed + 1 or index > self.length or chain_hash(link) != self.last:
            return False
        self.last = link
        self.revealed = index
        return True


def step_seed(game_id: bytes, step: int, prev_hash: bytes, reveals: list[bytes]) -> bytes:
    """The 32 random bytes of a chance step, from every peer's reveal in peer order."""
    h = hashlib.sha256(SEED_TAG)
    h.update(len(game_id).to_bytes(1, "big") + game_id)
    h.update(step.to_bytes(8, "big"))
    h.update(prev_hash)
    for link in reveals:
        h.update(link)
    return h.digest()


@functools.lru_cache(maxsize=64)
def _cached(length: int, secret: bytes) -> HashChain:
    return HashChain(length, secret)
