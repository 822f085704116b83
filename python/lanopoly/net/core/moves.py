"""Which signed move may decide a step: the checks every peer applies alike, as pure functions.

A step that is not a chance node is decided by one move (docs/lan.md, "A step" 1): the first valid
out-of-turn move nested in the acks of the step before, else the leader's own move or its forward
of an offer. Every peer holds the same candidates once the acks agree, so these functions, given
the same game, members and candidates, give every peer the same answer; the session carries it
out (applies the move, names the faults).
"""

from __future__ import annotations

from collections.abc import Mapping

from lanopoly._core import Game
from lanopoly.net.core.members import Members
from lanopoly.net.core.order import interjection_order
from lanopoly.net.protocol import Action, Forward


def problem(
    game: Game, members: Members, leader: int | None, step: int, prev: bytes, move: Action | Forward, in_turn: bool
) -> str | None:
    """Why ``move`` cannot be step ``step``'s input on this state (None if it can). ``in_turn``: as
    the move of the seat to act (a forward counts so), else as an out-of-turn move."""
    current = game.current_player
    if move.prev != prev:
        return "made on another state"
    if isinstance(move, Forward):
        if move.signer != leader:
            return "forwarded by a peer that does not lead this step"
        offer = move.offer
        if offer.prev != prev or offer.step != step:
            return "forwarded a move made for another state"
        move_seat, action, signer = offer.seat, offer.action, offer.signer
        if move_seat == current:
            return "forwarded a move of the seat to act"
    else:
        move_seat, action, signer = move.seat, move.action, move.signer
        if in_turn and move_seat != current:
            return f"moved for seat {move_seat}, not the seat to act ({current})"
        if not in_turn and move_seat == current:
            return "made an out-of-turn move for the seat to act"
    if members.controllers[move_seat] != signer:
        return f"moved for seat {move_seat}, which it does not control"
    try:
        members.check(game, action)
    except (ValueError, TypeError, KeyError) as e:
        return f"sent an illegal move {action!r}: {e}"
    return None


def over_cap(members: Members, run: int, signer: int, leader: int | None, step: int) -> bool:
    """Whether an out-of-turn ``ACTION`` signed by ``signer`` comes too late to decide ``step``:
    ``run`` steps in a row went out of turn already, as many as the present peers, and it is not
    the leader's own at a step a change was made for. Only there may an honest leader's move be out
    of turn: offered or nested before the change made it the leader, it fills the leader's one move
    of the step, so the leader can sign no other (soak seed 1593413, sim seed 1164). Anywhere else a
    leader moving out of turn could put its own turn off for as long as it liked."""
    if run < len(members.present):
        return False
    return not (signer == leader and any(c.step == step for c in members.changes))


def is_early(move: Action, seat: int | None, members: Members) -> bool:
    """Whether a nested ``move`` is the early move of ``seat`` (the seat to act) by its controller."""
    return move.seat == seat and members.controllers[move.seat] == move.signer


def interjection(
    game: Game,
    members: Members,
    leader: int | None,
    step: int,
    prev: bytes,
    nested: Mapping[int, Action],
    run: int,
) -> tuple[Action | None, list[tuple[int, str]]]:
    """The out-of-turn move, among those ``nested`` (by signer) in the acks of the step before,
    that decides ``step`` (None: none does), and the faults of the invalid ones tried before it
    (peer, why). ``run``: the steps in a row decided out of turn so far (``over_cap``)."""
    candidates = {
        p: m for p, m in nested.items() if members.is_present(p) and not over_cap(members, run, p, leader, step)
    }
    current = game.current_player
    order = interjection_order(
        {p: m.seat for p, m in candidates.items()}, current if current is not None else 0, game.num_players
    )
    faults: list[tuple[int, str]] = []
    for peer in order:
        move = candidates[peer]
        if is_early(move, current, members):
            continue  # the leader's move for the seat to act, signed early: not an interjection
        why = problem(game, members, leader, step, prev, move, in_turn=False)
        if why is None:
            return move, faults
        faults.append((peer, f"out of turn at step {step}: {why}"))
    return None, faults


def best_offer(game: Game, members: Members, prev: bytes, offers: Mapping[int, Action], run: int) -> Action | None:
    """The offered out-of-turn move (by signer) a leader may forward while its own move is not
    chosen: the first valid one in the interjection order, within the same cap."""
    if run >= len(members.present):
        return None
    present = {p: m for p, m in offers.items() if members.is_present(p)}
    current = game.current_player or 0
    for peer in interjection_order({p: m.seat for p, m in present.items()}, current, game.num_players):
        move = present[peer]
        if move.prev == prev and move.seat != current and members.controllers[move.seat] == move.signer:
            try:
                members.check(game, move.action)
            except (ValueError, TypeError, KeyError):
                continue
            return move
    return None
