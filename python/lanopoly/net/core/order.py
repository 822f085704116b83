"""Which out-of-turn action takes the next step: a fixed rule on data every peer holds.

Every peer's ack of step k may carry one signed out-of-turn action ("interjection") for step k+1.
Every peer waits for every ack of step k before step k+1, so all peers hold the same
interjections and can pick one without another round trip, provided the rule depends only on that
shared data (the interjections and the game state after step k), never on arrival order or time.

The rule:

- Interjections are considered only at a move (not at a chance node) and only while fewer than
  ``max_run`` steps in a row were decided by interjections (``interjections_open``): after that many
  the seat to act plays, so out-of-turn moves can never starve the current player.
- Candidates are taken in seat order starting with the seat after ``current_player`` and going
  round the table (``interjection_order``), as players speak in turn around a real table; the
  seat to act comes last (its controller acts in turn instead, so an interjection for it is
  rejected). Ties (several claims for one seat: all but the controller's are rejected anyway) go
  to the lower peer index.
- The first candidate that is valid (signed by the seat's controller, bound to this step and
  state, legal by the engine's ``check``) is the input of step k+1; invalid ones before it are
  rejected and logged as faults naming their senders; the others are dropped, and their policies
  are asked again after step k+1.
"""

from __future__ import annotations

from collections.abc import Mapping


def interjections_open(run: int, max_run: int) -> bool:
    """Whether step k+1 may be an interjection, after ``run`` interjected steps in a row up to step k."""
    return run < max_run


def interjection_order(claims: Mapping[int, int], current: int, seats: int) -> list[int]:
    """The peers of ``claims`` (peer -> seat it interjects for) in the order their claims are tried.

    Seat order starting after ``current`` (the seat to act), then peer index. Seats outside
    ``0..seats-1`` (rejected later as nonexistent) sort last.
    """

    def key(peer: int) -> tuple[int, int]:
        seat = claims[peer]
        distance = (seat - current - 1) % seats if 0 <= seat < seats else seats
        return distance, peer

    return sorted(claims, key=key)
