"""Ed25519 verification (the Rust core's, ed25519-dalek) accepts exactly what libsodium accepts.

LAN play verifies every signed message on arrival, and a bad signature or an equivocation is
proof against a peer: two verifiers that disagree on one signature would let a cheat split the
peers. So the fast verifier is checked against libsodium (the one used before, through PyNaCl) on
valid signatures, on every kind of damage, and on the edge cases where Ed25519 verifiers differ:
a non-canonical S, R or key of small order, the cofactorless equation.
"""

from __future__ import annotations

import random

import pytest
from nacl.signing import SigningKey

from lanopoly.net.keys import Ed25519Signer, ed25519_verify, sodium_verify

# The group order L, and the encodings of points of small order (order 1, 2, 4 and 8) and
# non-canonical encodings of them (y = p, p + 1), as libsodium's blocklist lists them.
L = 2**252 + 27742317777372353535851937790883648493
SMALL_ORDER = [
    bytes.fromhex(h)
    for h in (
        "0100000000000000000000000000000000000000000000000000000000000000",  # identity (y = 1)
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2 (y = -1)
        "0000000000000000000000000000000000000000000000000000000000000000",  # order 4 (y = 0)
        "0000000000000000000000000000000000000000000000000000000000000080",  # order 4, x negative
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p (0), non-canonical
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p + 1 (1), non-canonical
    )
]


def both(public: bytes, data: bytes, signature: bytes) -> bool:
    """The verdict of both verifiers, which must agree."""
    fast, sodium = ed25519_verify(public, data, signature), sodium_verify(public, data, signature)
    assert fast == sodium, (public.hex(), data.hex(), signature.hex())
    return fast


def test_valid_signatures_pass_and_damaged_ones_fail() -> None:
    rng = random.Random(8)
    for i in range(200):
        key = Ed25519Signer(rng.randbytes(32))
        data = rng.randbytes(rng.choice((0, 1, 64, 150, 1000)))
        sig = key.sign(data)
        assert both(key.public, data, sig)
        bit = rng.randrange(512)
        bad = bytearray(sig)
        bad[bit // 8] ^= 1 << (bit % 8)
        assert not both(key.public, data, bytes(bad))
        if data:
            assert not both(key.public, data[:-1], sig)
        other = Ed25519Signer(rng.randbytes(32))
        assert not both(other.public, data, sig)
        flipped = bytearray(key.public)
        flipped[i % 32] ^= 1 << (i % 8)
        assert not both(bytes(flipped), data, sig)


def test_wrong_lengths_are_a_plain_no() -> None:
    key = Ed25519Signer(bytes(32))
    sig = key.sign(b"m")
    for public, signature in (
        (key.public[:31], sig),
        (key.public + b"\0", sig),
        (key.public, sig[:63]),
        (key.public, sig + b"\0"),
    ):
        assert not ed25519_verify(public, b"m", signature)
        assert not sodium_verify(public, b"m", signature)


def test_a_non_canonical_s_fails() -> None:
    """S + L satisfies the equation as well as S: a malleable copy of a valid signature, refused."""
    key = Ed25519Signer(b"\x05" * 32)
    for data in (b"", b"ack", bytes(150)):
        sig = key.sign(data)
        s = int.from_bytes(sig[32:], "little")
        assert s + L < 2**256
        assert both(key.public, data, sig)
        assert not both(key.public, data, sig[:32] + (s + L).to_bytes(32, "little"))


@pytest.mark.parametrize("point", SMALL_ORDER, ids=range(len(SMALL_ORDER)))
def test_small_order_keys_and_rs_fail(point: bytes) -> None:
    """A key of small order with R of small order and S = 0 satisfies the cofactorless equation for
    any message ([0]B - [h]A is R when A and R are the identity, and similar cases): an
    "anything goes" signature that a lax verifier takes and libsodium refuses."""
    for data in (b"", b"move", bytes(150)):
        for r in SMALL_ORDER:
            assert not both(point, data, r + bytes(32))
        key = Ed25519Signer(b"\x09" * 32)
        sig = key.sign(data)
        assert not both(key.public, data, point + sig[32:])


def test_random_keys_and_signatures_agree() -> None:
    """Random bytes as keys (many are no point at all, some are non-canonical) and signatures."""
    rng = random.Random(25519)
    for _ in range(300):
        public = rng.randbytes(32)
        if rng.random() < 0.1:
            public = bytes([rng.randrange(0xED, 0x100)]) + b"\xff" * 30 + bytes([rng.choice((0x7F, 0xFF))])
        both(public, b"data", rng.randbytes(64))


def test_signatures_are_libsodiums() -> None:
    """The Rust core's key signs the same bytes as libsodium's (RFC 8032 signatures are
    deterministic): the public key and every signature, so journals and proofs are unchanged."""
    rng = random.Random(32)
    for _ in range(100):
        seed = rng.randbytes(32)
        data = rng.randbytes(rng.choice((0, 1, 64, 150, 1000)))
        theirs = SigningKey(seed)
        key = Ed25519Signer(seed)
        assert key.seed == seed
        assert key.public == bytes(theirs.verify_key)
        assert key.sign(data) == theirs.sign(data).signature


def test_a_seed_of_another_length_is_refused() -> None:
    for seed in (b"", bytes(31), bytes(33)):
        with pytest.raises(ValueError, match="32 bytes"):
            Ed25519Signer(seed)
