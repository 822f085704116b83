"""The LAN session's protocol logic, with no I/O: no sockets, no asyncio, no clock, no files.

Each machine here takes what happened (a message received from a peer, a link up or down, a move
submitted, the time now) and returns what to do (``effects``: send these bytes to that peer,
persist this record, tell the console this event). The asyncio driver (``net/driver.py``) owns the
sockets, timers and files and carries the effects out; the deterministic network simulation of
the test suite drives the same machines with a seeded scheduler instead.

- ``session``   the lockstep of one game: decides, applies and agrees each step, composing:
- ``steps``     what each step waits for, and the signed messages received for it;
- ``chance``    reveals of the hash chains, and the recovery of a removed peer's secret;
- ``members``   who still plays: votes, changes of membership, who controls each seat;
- ``evidence``  proofs of equivocation (two different signed messages for one slot);
- ``order``     which out-of-turn action takes a step (a fixed rule on data every peer holds);
- ``record``    what a peer keeps to prove its game (saved with the log, checked by ``verify``);
- ``effects``   the effects and the events the machines return; ``outcome``: results and freezes;
- ``runclock``  the session's time: the driver's, less the time this process did not run.

Before the game, three handshakes, each a machine of its own:

- ``pinauth``   the lobby's PIN handshake (SPAKE2), so a short PIN cannot be guessed offline;
- ``lobby``     the lobby's messages (hello, welcome, start, deal, signatures) and the agreement;
- ``linkauth``  a link between two players, proven by the keys of the start record.
"""
