"""Serverless LAN play: discovery (mDNS/DNS-SD), encrypted links, a full-mesh signed lockstep.

Every peer runs the same deterministic rules core and checks the state hash of every step with every
other peer; there is no server and no trusted host (``docs/lan.md`` is the protocol). The protocol
logic is sans-I/O in ``core/``; the modules here hold the wire formats, the cryptography and the
asyncio around it. One concept each:

- ``interfaces``: which local addresses discovery and listening may use (``LANOPOLY_INTERFACES``).
- ``wire``: strict msgpack, length-prefixed frames with hard size caps, checked field readers.
- ``protocol``: the session messages after the start (signed inputs, acks, votes; link messages).
- ``keys``: signing keys and the suite that signs and verifies (Ed25519), key fingerprints.
- ``cipher``: the encryption of a link (ChaCha20-Poly1305, a counter per direction).
- ``chain``: hash-chain commit-reveal randomness and the per-step seed.
- ``shares``: verifiable sharing of each chain secret, so a withheld reveal can be rebuilt.
- ``genesis``: the start record every peer signs.
- ``discovery``, ``adverts``: advertising and browsing lobbies (python-zeroconf), checking adverts.
- ``listener``: accepting connections under limits (slots per address, deadlines, eviction).
- ``links``: TCP connections carrying frames, plain in a handshake and encrypted after it.
- ``hosting``: the host's lobby, joining it, linking every peer, agreeing on the start.
- ``driver``: the asyncio driver of a running game (sockets, timers, the journal).
- ``play``: playing a game from its start, or again after a crash (``lanopoly rejoin``/``resume``).
- ``store``: the saved game, its journal and its secrets on disk.
- ``verify``, ``verdict``: offline verification of a saved game (``lanopoly verify``).
- ``desync``: the desync report written when peers disagree.
- ``cli``: ``lanopoly host``, ``join``, ``list``, ``verify``, ``rejoin`` and ``resume``.
"""

PROTOCOL_VERSION = 9
"""Version of the wire protocol, in every message and in the lobby's TXT record (``docs/lan.md``).

9: a move or reveal nested in an ack is covered by the ack's one signature (it is no longer a
signed message inside the signed ack); the ack is its signed carrier in the record, SYNC and
evidence. 8: a sans-I/O session core; every signed message verified on arrival (acks too); chain
secrets shared so a removed peer's reveals are rebuilt; two-phase votes (vote, then a binding
commit); links after the start proven by start-record keys, not the PIN; the lobby host proves its
key; a peer's own signed messages journaled before they are sent. Earlier versions (2 to 8) do not
interoperate with it; their saved games replay (``lanopoly replay``) and verify as unsigned."""


def reason(error: BaseException) -> str:
    """An error as a person or a log reads it: its message, or its type's name when the message is
    empty (``TimeoutError()`` has none, and an exception object is always true, so ``e or ...``
    never falls back)."""
    return str(error) or type(error).__name__
