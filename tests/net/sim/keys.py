"""A signature suite for simulations: a keyed BLAKE2b "signature" that costs a microsecond.

Verification looks the secret up by the public key in this process's registry, which only the
simulated peers' own keys enter. It has the properties the protocol relies on within a
simulation (only the key's owner can sign; a signature binds the exact bytes) and none of the
cost of Ed25519; a share of the simulated games runs with Ed25519 to keep the two honest.
"""

from __future__ import annotations

import hashlib
import hmac

from lanopoly.net.keys import Suite

_REGISTRY: dict[bytes, bytes] = {}


class SimSigner:
    def __init__(self, seed: bytes | None = None) -> None:
        if seed is None:
            raise ValueError("simulated keys are made from a seed (the simulation's RNG)")
        self._seed = seed
        self._public = hashlib.blake2b(b"sim-public" + seed, digest_size=32).digest()
        _REGISTRY[self._public] = seed

    @property
    def public(self) -> bytes:
        return self._public

    @property
    def seed(self) -> bytes:
        return self._seed

    def sign(self, data: bytes) -> bytes:
        return hashlib.blake2b(data, key=self._seed, digest_size=64).digest()


def sim_verify(public: bytes, data: bytes, signature: bytes) -> bool:
    seed = _REGISTRY.get(public)
    if seed is None or len(signature) != 64:
        return False
    return hmac.compare_digest(hashlib.blake2b(data, key=seed, digest_size=64).digest(), signature)


SIM = Suite("sim-blake2b", SimSigner, sim_verify)
