"""Serverless LAN play: discovery (mDNS/DNS-SD), framed msgpack transport, a full-mesh lockstep session.

Every peer runs the same deterministic rules core and checks the state hash of every step with every
other peer; there is no server and no trusted host. Modules, one concept each:

- ``interfaces``: which local addresses discovery and listening may use (``LANOPOLY_INTERFACES``).
- ``framing``: length-prefixed msgpack frames with hard size caps and strict decoding.
- ``messages``: the positional wire messages and their validation.
- ``secure``: the game PIN, the SPAKE2 handshake, encrypted links, signing keys.
- ``chain``: hash-chain commit-reveal randomness and the per-step seed.
- ``discovery``: advertising and browsing lobbies with python-zeroconf.
- ``adverts``: the checks of what a lobby advertises (TXT fields, names shown safely).
- ``mesh``: the lobby handshake, the start record every peer agrees on, and the full TCP mesh.
- ``lockstep``: the step loop (actions, reveals, acks) and desync detection.
- ``outcome``: how a session ends: the result, freeze and fault types, and the action hash.
- ``interjections``: the session's out-of-turn actions (queued, offered, carried on acks, taken).
- ``order``: which out-of-turn action takes a step (a fixed rule on data every peer holds).
- ``evidence``: proof of equivocation (two messages one peer signed for the same slot).
- ``evidence_round``: the session's ``EVIDENCE`` round after the inputs of a step diverged.
- ``membership``: which peers still play, and the votes that replace one by a bot.
- ``voting``: the session's votes to replace peers, and the change made when they agree.
- ``catchup``: the session's side of drops and rejoins (relays, ``REJOIN``/``SYNC``, resuming).
- ``reconnect``: a session dialing a peer that is away (the higher index of the two dials).
- ``rejoin``: taking a seat again after a drop (``lanopoly rejoin``), restarting a stopped game (``resume``).
- ``verify``: offline verification of a saved networked game (``lanopoly verify``).
- ``desync``: the desync report written when peers disagree.
- ``cli``: ``lanopoly host``, ``join``, ``list``, ``verify``, ``rejoin`` and ``resume``.
"""

PROTOCOL_VERSION = 8
"""Version of the wire protocol, in every message and in the lobby's TXT record (``docs/lan.md``).

8: a sans-I/O session core; every signed message verified on arrival (acks too); chain secrets
shared so a removed peer's reveals are rebuilt; two-phase votes (vote, then a binding commit);
links after the start proven by start-record keys, not the PIN; the lobby host proves its key;
a peer's own signed messages journaled before they are sent. Earlier versions (2 to 7) do not
interoperate with it; their saved games replay (``lanopoly replay``) and verify as unsigned."""


def reason(error: BaseException) -> str:
    """An error as a person or a log reads it: its message, or its type's name when the message is
    empty (``TimeoutError()`` has none, and an exception object is always true, so ``e or ...``
    never falls back)."""
    return str(error) or type(error).__name__
