"""The run cap on out-of-turn moves (``moves.over_cap``, docs/lan.md "A step" 1): at most *present
peers* steps in a row go out of turn; past it, only the leader's own move at a step a change was
made for (offered or nested before the change made it the leader: it is the one move it signed).
Without the change condition a cheating leader could put its own turn off, out-of-turn move after
out-of-turn move, until the step limit."""

from __future__ import annotations

from lanopoly.net.core import moves
from lanopoly.net.core.members import Change, Members


def _members(change_at: int | None) -> Members:
    """Four peers, one seat each; peer 3 removed from step ``change_at`` (its seat to peer 0)."""
    members = Members(4, [0, 1, 2, 3])
    if change_at is not None:
        members.changes.append(Change(change_at, (3,), 0, "bot", ()))
        members.present = [0, 1, 2]
    return members


def test_below_the_cap_anyone_may_move_out_of_turn() -> None:
    members = _members(None)
    assert not any(moves.over_cap(members, 3, signer, 0, 10) for signer in range(4))


def test_at_the_cap_nobody_may_move_out_of_turn_without_a_change() -> None:
    members = _members(None)
    assert all(moves.over_cap(members, 4, signer, 0, 10) for signer in range(4))
    assert moves.over_cap(members, 9, 0, 0, 10), "the leader's own may not put its turn off"


def test_at_the_cap_only_the_leader_goes_at_the_step_of_a_change() -> None:
    members = _members(change_at=10)  # 3 present now: the cap is 3
    assert not moves.over_cap(members, 3, 0, 0, 10), "the leader's own, signed before the change"
    assert moves.over_cap(members, 3, 1, 0, 10), "another peer's"
    assert moves.over_cap(members, 3, 0, 0, 11), "the leader's own at the step after the change"
    assert not moves.over_cap(members, 2, 1, 0, 11)
