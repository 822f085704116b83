"""Verifiable secret sharing of each peer's chain secret, so that a withheld reveal can be recovered.

A peer that reveals last could see every other reveal, compute the roll, and go silent when it
dislikes it (two parties cannot flip a fair coin against one that may abort: Cleve, 1986). With
three or more peers that does not pay: at the start every peer deals shares of its chain secret
to the others (Shamir, threshold ``t`` = a majority of the others, Feldman-verifiable), and a peer
removed from the game has its secret rebuilt from ``t`` released shares, so every reveal it would
have made is made anyway: the roll it withheld is the roll it would have given.

- The secret ``s`` is a scalar of the Ed25519 group (order ``ORDER``); the chain's start is its 32
  bytes, so the chain anchor in the start record commits to it.
- The dealer publishes ``C_k = a_k * G`` for its polynomial ``a_0 + a_1 x + ... + a_(t-1) x^(t-1)``
  (``a_0 = s``) and gives holder ``h`` the value at ``x = h + 1`` over its private link. The holder
  checks ``share * G == sum C_k (h+1)^k`` before it signs the start: after the start every honest
  holder's share is valid, and any ``t`` valid shares rebuild the same secret.
- ``t`` shares reveal the secret, fewer reveal nothing; ``t = (n - 1) // 2 + 1`` for ``n`` peers, so
  a minority of peers cannot predict anyone's reveals, and the honest majority can always recover.
- A dealer that shared another secret than its chain's is caught when the rebuilt secret does not
  hash to its anchor: the signed commitments and shares prove it (``recover`` returns None).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import nacl.bindings as sodium
import nacl.exceptions

ORDER = 2**252 + 27742317777372353535851937790883648493
"""The order of the Ed25519 prime-order subgroup."""
POINT_LEN = 32


def threshold(peers: int) -> int | None:
    """Shares needed to rebuild a secret in a game of ``peers`` peers; None with two (nobody to share with)."""
    if peers < 3:
        return None
    return (peers - 1) // 2 + 1


def _scalar(value: int) -> bytes:
    return (value % ORDER).to_bytes(32, "little")


RandomBytes = Callable[[int], bytes]
"""Where randomness comes from: ``secrets.token_bytes`` in play; a seeded generator in simulations."""


def _random_scalar(random_bytes: RandomBytes) -> int:
    while True:
        value = int.from_bytes(random_bytes(64), "little") % ORDER
        if value:
            return value


def new_secret(random_bytes: RandomBytes = secrets.token_bytes) -> bytes:
    """A fresh secret: a nonzero scalar, as the 32 bytes a hash chain starts from."""
    return _scalar(_random_scalar(random_bytes))


def is_secret(value: bytes) -> bool:
    """Whether ``value`` can be shared: 32 bytes of a nonzero scalar below the group order."""
    return len(value) == 32 and 0 < int.from_bytes(value, "little") < ORDER


def _base(value: int) -> bytes:
    point: bytes = sodium.crypto_scalarmult_ed25519_base_noclamp(_scalar(value))
    return point


@dataclass(frozen=True)
class Deal:
    """A dealer's public commitments (``t`` points) and each holder's share (32-byte scalars)."""

    commitments: tuple[bytes, ...]
    shares: Mapping[int, bytes]


def deal(secret: bytes, holders: Sequence[int], t: int, random_bytes: RandomBytes = secrets.token_bytes) -> Deal:
    """Share ``secret`` among ``holders`` (peer indices) so that any ``t`` of them can rebuild it."""
    if not is_secret(secret):
        raise ValueError("the secret must be a nonzero scalar (see new_secret)")
    if not 1 <= t <= len(holders):
        raise ValueError(f"threshold {t} for {len(holders)} holders")
    coefficients = [int.from_bytes(secret, "little")] + [_random_scalar(random_bytes) for _ in range(t - 1)]
    commitments = tuple(_base(a) for a in coefficients)
    shares = {h: _scalar(_evaluate(coefficients, h + 1)) for h in holders}
    return Deal(commitments, shares)


def _evaluate(coefficients: Sequence[int], x: int) -> int:
    value = 0
    for a in reversed(coefficients):
        value = (value * x + a) % ORDER
    return value


def check_share(commitments: Sequence[bytes], holder: int, share: bytes) -> bool:
    """Whether ``share`` is the value at ``holder`` of the polynomial ``commitments`` commit to."""
    if len(share) != 32 or not commitments or not all(len(c) == POINT_LEN for c in commitments):
        return False
    value = int.from_bytes(share, "little")
    if not 0 < value < ORDER:
        return False
    try:
        if not all(sodium.crypto_core_ed25519_is_valid_point(c) for c in commitments):
            return False
        expected = commitments[0]
        x = holder + 1
        for k, c in enumerate(commitments[1:], start=1):
            expected = sodium.crypto_core_ed25519_add(
                expected, sodium.crypto_scalarmult_ed25519_noclamp(_scalar(pow(x, k, ORDER)), c)
            )
        return bool(sodium.crypto_core_ed25519_is_valid_point(expected)) and _base(value) == expected
    except (RuntimeError, ValueError, TypeError, nacl.exceptions.CryptoError):
        return False


def combine(shares: Mapping[int, bytes], t: int) -> bytes:
    """The secret from ``t`` shares (holder -> share; the ``t`` lowest holders are used):
    Lagrange interpolation at 0. The caller checks the shares first."""
    if len(shares) < t:
        raise ValueError(f"{len(shares)} shares, {t} needed")
    chosen = sorted(shares)[:t]
    secret = 0
    for i in chosen:
        xi = i + 1
        numerator, denominator = 1, 1
        for j in chosen:
            if j != i:
                xj = j + 1
                numerator = numerator * xj % ORDER
                denominator = denominator * (xj - xi) % ORDER
        secret = (secret + int.from_bytes(shares[i], "little") * numerator * pow(denominator, -1, ORDER)) % ORDER
    return _scalar(secret)
