"""Refusals: illegal and malformed inputs, malformed and inconsistent snapshots and bytes.

Whatever a caller passes, the bindings answer with an error whose type says what went wrong, with
a reason, and the game is unchanged: IllegalAction for a move the rules refuse now, TypeError for
an argument of the wrong Python type, ValueError for a bad value, DecodeError for corrupt bytes
or snapshots; never an OverflowError or a Rust panic.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import lanopoly
from conftest import act, bank_flow, money_in_play, refused, rejected, roll, started
from lanopoly import DecodeError, Game, IllegalAction

# --- illegal moves --------------------------------------------------------------------------------


def test_illegal_moves_have_readable_reasons(game3):
    assert refused(game3, {"type": "roll", "player": 1}) == "it is seat 0's turn"
    assert refused(game3, {"type": "end_turn", "player": 0}) == "you must roll first"
    assert refused(game3, {"type": "buy", "player": 0}) == "there is nothing to buy now"
    assert refused(game3, {"type": "bid", "player": 0, "amount": 5}) == "there is no auction"
    assert refused(game3, {"type": "pay_debt", "player": 0}) == "you owe nothing"
    assert refused(game3, {"type": "pay_jail_fine", "player": 0}) == "you are not in jail"
    assert refused(game3, {"type": "dice", "dice": (1, 2)}) == "no chance event is pending: a player must act"
    game3.apply({"type": "roll", "player": 0})
    assert refused(game3, {"type": "end_turn", "player": 0}) == "waiting for a chance outcome (dice or a card)"
    assert refused(game3, {"type": "dice", "dice": (0, 2)}) == "dice are 1 to 6, smaller first"
    assert refused(game3, {"type": "dice", "dice": (7, 7)}) == "dice are 1 to 6, smaller first"
    assert refused(game3, {"type": "card", "card": 3}) == "the pending chance event needs dice"
    assert refused(game3, {"type": "deed", "square": 39}) == "the pending chance event needs dice"


def test_illegal_action_is_a_value_error(game3):
    with pytest.raises(ValueError, match="it is seat 0's turn"):
        game3.apply({"type": "roll", "player": 2})


def test_check_raises_without_changing_anything(game3):
    before = game3.state_hash()
    with pytest.raises(IllegalAction, match="it is seat 0's turn"):
        game3.check({"type": "roll", "player": 1})
    assert game3.check({"type": "roll", "player": 0}) is None
    assert game3.state_hash() == before
    assert game3.step == 3


MALFORMED: list[Any] = [
    None,
    5,
    "roll",
    [("type", "roll")],
    {},
    {"player": 0},
    {"type": "roll"},
    {"type": 5, "player": 0},
    {"type": None, "player": 0},
    {"type": "fly", "player": 0},
    {"type": "roll", "player": -1},
    {"type": "roll", "player": 256},
    {"type": "roll", "player": 2**64},
    {"type": "roll", "player": 2**200},
    {"type": "roll", "player": "0"},
    {"type": "roll", "player": 0.0},
    {"type": "roll", "player": None},
    {"type": "build", "player": 0},
    {"type": "build", "player": 0, "square": 40},
    {"type": "build", "player": 0, "square": 255},
    {"type": "build", "player": 0, "square": 256},
    {"type": "build", "player": 0, "square": -1},
    {"type": "build", "player": 0, "square": 10**30},
    {"type": "mortgage", "player": 0, "square": "39"},
    {"type": "unmortgage", "player": 0, "square": [39]},
    {"type": "keep_mortgaged", "player": 0, "square": 1.5},
    {"type": "claim_rent", "player": 0, "square": 200},
    {"type": "sell", "player": 0, "square": -5},
    {"type": "bid", "player": 0},
    {"type": "bid", "player": 0, "amount": -1},
    {"type": "bid", "player": 0, "amount": 2**32},
    {"type": "bid", "player": 0, "amount": 2**100},
    {"type": "bid", "player": 0, "amount": "100"},
    {"type": "sell_down", "player": 0, "group": 0},
    {"type": "sell_down", "player": 0, "group": 0, "levels": [0, 0, 0, 0]},
    {"type": "sell_down", "player": 0, "group": 0, "levels": "ab"},
    {"type": "sell_down", "player": 0, "group": 0, "levels": [-1, 0]},
    {"type": "sell_down", "player": 0, "group": 0, "levels": [300, 0]},
    {"type": "sell_down", "player": 0, "group": 99, "levels": [0, 0]},
    {"type": "sell_down", "player": 0, "group": -1, "levels": [0, 0]},
    {"type": "accept_trade", "player": 0},
    {"type": "accept_trade", "player": 0, "from": 9},
    {"type": "accept_trade", "player": 0, "from": -9},
    {"type": "reject_trade", "player": 0, "from": "1"},
    {"type": "propose_trade", "player": 0},
    {"type": "propose_trade", "player": 0, "to": 1},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": 0}},
    {"type": "propose_trade", "player": 0, "to": 0, "give": {"cash": 1}},
    {"type": "propose_trade", "player": 0, "to": 9, "give": {"cash": 1}},
    {"type": "propose_trade", "player": 0, "to": -1, "give": {"cash": 1}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": [1]},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": -1}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": 2**64}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": "10"}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": 10**6}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [0]}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [40]}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [-3]}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": ["3"]}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [39]}},
    {"type": "propose_trade", "player": 0, "to": 1, "get": {"jail_cards": ["chance"]}},
    {"type": "propose_trade", "player": 0, "to": 1, "get": {"jail_cards": ["monopoly"]}},
    {"type": "propose_trade", "player": 0, "to": 1, "get": {"jail_cards": [1]}},
    {"type": "dice"},
    {"type": "dice", "dice": 7},
    {"type": "dice", "dice": (1, 2, 3)},
    {"type": "dice", "dice": (1,)},
    {"type": "dice", "dice": (-1, 2)},
    {"type": "dice", "dice": (2**70, 2)},
    {"type": "dice", "dice": "12"},
    {"type": "card"},
    {"type": "card", "card": 300},
    {"type": "card", "card": -1},
    {"type": "deed", "square": 0},
    {"type": "deed", "square": 300},
    {"type": "deed", "square": None},
]


def _refused_somehow(game: Game, action: Any) -> None:
    """Apply an input that must raise a ValueError (IllegalAction included) or a TypeError, with
    a reason, and check nothing changed."""
    before, step = game.state_hash(), game.step
    with pytest.raises((ValueError, TypeError)) as info:
        game.apply(action)
    assert str(info.value)
    assert game.state_hash() == before
    assert game.step == step


@pytest.mark.parametrize("action", MALFORMED, ids=[repr(a)[:60] for a in MALFORMED])
def test_malformed_inputs_are_refused(game3, action):
    _refused_somehow(game3, action)


MALFORMED_MOVES = [a for a in MALFORMED if not (isinstance(a, dict) and a.get("type") in ("dice", "card", "deed"))]


@pytest.mark.parametrize("action", MALFORMED_MOVES, ids=[repr(a)[:60] for a in MALFORMED_MOVES])
def test_malformed_inputs_are_refused_by_check(game3, action):
    before = game3.state_hash()
    with pytest.raises((ValueError, TypeError)):
        game3.check(action)
    assert game3.state_hash() == before


NON_ITERABLE_BUNDLES = [
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": 3}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": None}},
    {"type": "propose_trade", "player": 0, "to": 1, "get": {"jail_cards": 1}},
]


@pytest.mark.parametrize("action", NON_ITERABLE_BUNDLES, ids=["properties=3", "properties=None", "jail_cards=1"])
def test_trade_bundle_with_a_non_list_is_refused(game3, action):
    rejected(game3, action, TypeError)


def test_malformed_inputs_at_a_chance_node_and_in_an_auction():
    game = started(3)
    game.apply({"type": "roll", "player": 0})
    for action in MALFORMED:
        _refused_somehow(game, action)
    game.apply({"type": "dice", "dice": (1, 2)})
    act(game, {"type": "decline", "player": 0})
    assert game.auction is not None
    for action in MALFORMED:
        _refused_somehow(game, action)
    refused(game, {"type": "bid", "player": 1, "amount": 0})
    refused(game, {"type": "bid", "player": 1, "amount": 1501})
    refused(game, {"type": "roll", "player": 0})


def test_out_of_range_seats_in_queries(game3):
    before = game3.state_hash()
    for bad in (3, 8, 255, -1):
        for query in (game3.legal_actions, game3.bid_range, game3.player, game3.net_worth, game3.observation):
            with pytest.raises(ValueError, match="there is no seat") as info:
                query(bad)
            assert type(info.value) is ValueError, query
    for deck, card, why in (("bingo", 0, "no deck"), ("chance", 16, "no card 16"), ("chance", -1, "no card -1")):
        with pytest.raises(ValueError, match=why) as info:
            game3.card_text(deck, card)
        assert type(info.value) is ValueError
    with pytest.raises(ValueError, match="there is no square 40") as info:
        game3.square(40)
    assert type(info.value) is ValueError
    assert game3.state_hash() == before
    assert game3.card_text("chance", 0) == "Advance to GO. Collect $200."


def test_no_chance_event_pending(game3):
    for call in (game3.sample_chance, game3.resolve_chance, lambda: game3.outcome_from_bytes(b"x" * 16)):
        with pytest.raises(IllegalAction, match="no chance event is pending"):
            call()
    assert game3.chance_outcomes() == []


# --- error kinds: a refusal, a wrong type, a bad value --------------------------------------------

# Inputs of the wrong Python type: a TypeError, never taken for a refusal of the rules.
WRONG_TYPES: list[Any] = [
    None,
    5,
    "roll",
    [("type", "roll")],
    {"type": 5, "player": 0},
    {"type": None, "player": 0},
    {"type": "roll", "player": "0"},
    {"type": "roll", "player": 0.0},
    {"type": "roll", "player": None},
    {"type": "mortgage", "player": 0, "square": "39"},
    {"type": "unmortgage", "player": 0, "square": [39]},
    {"type": "keep_mortgaged", "player": 0, "square": 1.5},
    {"type": "bid", "player": 0, "amount": "100"},
    {"type": "sell_down", "player": 0, "group": 0, "levels": "ab"},
    {"type": "reject_trade", "player": 0, "from": "1"},
    {"type": "propose_trade", "player": 0, "to": 1, "give": [1]},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": "10"}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": ["3"]}},
    {"type": "propose_trade", "player": 0, "to": 1, "get": {"jail_cards": [1]}},
    {"type": "dice", "dice": 7},
    {"type": "dice", "dice": "12"},
    {"type": "deed", "square": None},
]

# Inputs of the right types with a bad value (missing, unknown, out of range, no such seat).
BAD_VALUES: list[Any] = [
    {},
    {"player": 0},
    {"type": "roll"},
    {"type": "fly", "player": 0},
    {"type": "roll", "player": -1},
    {"type": "roll", "player": 3},
    {"type": "roll", "player": 256},
    {"type": "roll", "player": 2**200},
    {"type": "build", "player": 0},
    {"type": "build", "player": 0, "square": 40},
    {"type": "build", "player": 0, "square": -1},
    {"type": "build", "player": 0, "square": 10**30},
    {"type": "claim_rent", "player": 0, "square": 200},
    {"type": "bid", "player": 0, "amount": -1},
    {"type": "bid", "player": 0, "amount": 2**32},
    {"type": "sell_down", "player": 0, "group": 0, "levels": [0, 0, 0, 0]},
    {"type": "sell_down", "player": 0, "group": 0, "levels": [300, 0]},
    {"type": "sell_down", "player": 0, "group": 99, "levels": [0, 0]},
    {"type": "accept_trade", "player": 0, "from": 9},
    {"type": "propose_trade", "player": 0, "to": 9, "give": {"cash": 1}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": -1}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [0]}},
    {"type": "propose_trade", "player": 0, "to": 1, "get": {"jail_cards": ["monopoly"]}},
    {"type": "dice", "dice": (1, 2, 3)},
    {"type": "dice", "dice": (-1, 2)},
    {"type": "card", "card": 300},
    {"type": "deed", "square": 0},
    {"type": "deed", "square": 300},
]

# Well-formed moves and outcomes the rules refuse in this state: IllegalAction, as before.
REFUSED: list[Any] = [
    {"type": "roll", "player": 1},
    {"type": "end_turn", "player": 0},
    {"type": "propose_trade", "player": 0, "to": 0, "give": {"cash": 1}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": 10**6}},
    {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [39]}},
    {"type": "dice", "dice": (1, 2)},
    {"type": "card", "card": 3},
]


@pytest.mark.parametrize("action", WRONG_TYPES, ids=[repr(a)[:60] for a in WRONG_TYPES])
def test_an_argument_of_the_wrong_type_is_a_type_error(game3, action):
    rejected(game3, action, TypeError)
    if not (isinstance(action, dict) and action.get("type") in ("dice", "card", "deed")):
        with pytest.raises(TypeError):
            game3.check(action)


@pytest.mark.parametrize("action", BAD_VALUES, ids=[repr(a)[:60] for a in BAD_VALUES])
def test_an_argument_with_a_bad_value_is_a_value_error(game3, action):
    rejected(game3, action, ValueError)


@pytest.mark.parametrize("action", REFUSED, ids=[repr(a)[:60] for a in REFUSED])
def test_a_move_the_rules_refuse_is_an_illegal_action(game3, action):
    rejected(game3, action, IllegalAction)


def test_a_bad_value_is_caught_by_check_as_by_apply(game3):
    before = game3.state_hash()
    with pytest.raises(ValueError, match="there is no seat 3") as info:
        game3.check({"type": "roll", "player": 3})
    assert type(info.value) is ValueError
    assert game3.state_hash() == before


def test_bad_arguments_to_constructors_say_what_kind():
    for make, kind in (
        (lambda: Game(3, board="moon"), ValueError),
        (lambda: Game(1), ValueError),
        (lambda: Game(3, rules="monopoly"), ValueError),
        (lambda: Game(3, rules=5), TypeError),
        (lambda: Game(3, seed="1"), TypeError),
        (lambda: Game(3.5), TypeError),
        (lambda: lanopoly.Rules(auctions=1), TypeError),
        (lambda: lanopoly.Rules(round_limit=-3), ValueError),
        (lambda: lanopoly.Rules(start_cash=1), ValueError),
        (lambda: lanopoly.Rules(houses_per_hotel=0), ValueError),
        (lambda: lanopoly.Bot("genius"), ValueError),
        (lambda: lanopoly.square_names("moon"), ValueError),
    ):
        with pytest.raises(Exception) as info:
            make()
        assert type(info.value) is kind, f"{info.value!r} is not a {kind.__name__}"


def test_an_action_index_with_no_move_now_is_a_refusal_and_one_outside_the_space_a_value_error(game3):
    before = game3.state_hash()
    from lanopoly.rl import VecGame

    bid = next(i for i, name in enumerate(VecGame.action_names) if name.startswith("bid"))
    with pytest.raises(IllegalAction, match=f"action {bid} means nothing"):
        game3.action_from_index(0, bid)  # a bid with no auction running
    with pytest.raises(ValueError, match="there is no action 100000") as info:
        game3.action_from_index(0, 100_000)
    assert type(info.value) is ValueError
    assert game3.state_hash() == before


# --- malformed snapshots --------------------------------------------------------------------------


def _snap(game: Game) -> dict[str, Any]:
    """A snapshot with mutable lists in place of tuples, to edit."""
    snap = game.snapshot()
    state = snap["state"]
    for key, value in state.items():
        if isinstance(value, tuple):
            state[key] = list(value)
    state["players"] = [dict(p) for p in state["players"]]
    return snap


def _mid_game() -> Game:
    game = started(3)
    roll(game, 1, 2)
    act(game, {"type": "buy", "player": 0})
    return game


def _edit(path: str, value: Any):
    def edit(snap):
        target = snap["state"]
        *parents, last = path.split(".")
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        if value is KeyError:
            del target[int(last) if last.isdigit() else last]
        else:
            target[int(last) if last.isdigit() else last] = value

    return edit


def _houses_on_unowned(snap):
    snap["state"]["level"][0] = 1  # a house on Mediterranean Avenue, nobody owns the group


def _houses_without_bank_count(snap):
    owner = snap["state"]["owner"]
    owner[0] = owner[1] = 0
    snap["state"]["level"][0] = 1  # the bank still says 32 houses left: 33 in all


def _two_jail_card_holders(snap):
    snap["state"]["players"][0]["jail_cards"] = 1
    snap["state"]["players"][1]["jail_cards"] = 1


BAD_SNAPSHOTS = {
    "format missing": lambda s: s.pop("format"),
    "format 2": lambda s: s.update(format=2),
    "format str": lambda s: s.update(format="1"),
    "state missing": lambda s: s.pop("state"),
    "state int": lambda s: s.update(state=5),
    "state list": lambda s: s.update(state=[1, 2]),
    "names too short": lambda s: s.update(names=["a"]),
    "names not a list": lambda s: s.update(names=5),
    "names of ints": lambda s: s.update(names=[1, 2, 3]),
    "board missing": _edit("board", KeyError),
    "board unknown": _edit("board", "moon"),
    "players missing": _edit("players", KeyError),
    "num_players 1": _edit("num_players", 1),
    "num_players 9": _edit("num_players", 9),
    "cash negative": _edit("players.0.cash", -1),
    "cash str": _edit("players.0.cash", "1500"),
    "cash too big": _edit("players.0.cash", 2**40),
    "position 40": _edit("players.0.position", 40),
    "jail attempts 3": _edit("players.0.jail_attempts", 3),
    "unused seat with cash": _edit("players.5.cash", 10),
    "owner of a deed not seated": _edit("owner.0", 7),
    "houses on a bank street": _houses_on_unowned,
    "houses do not add up": _houses_without_bank_count,
    "houses_left off by one": _edit("houses_left", 31),
    "hotels_left off by one": _edit("hotels_left", 13),
    "mortgaged by the bank": _edit("mortgaged", 1 << 5),
    "mortgage mask out of range": _edit("mortgaged", 1 << 30),
    "two jail card holders": _two_jail_card_holders,
    "turn player out of range": _edit("turn_player", 3),
    "unknown phase": _edit("phase", "flying"),
    "buy decision on no deed": _edit("phase", {"buy_decision": {"property": 40}}),
    "rules invalid": _edit("rules.houses_per_hotel", 0),
    "rules unknown claim": _edit("rules.rent_claim", "never"),
    "decks short": _edit("decks", [{"drawn": 0, "held": 0}]),
    "debt by a seat not in the game": _edit(
        "debts", [{"debtor": 5, "creditor": "bank", "amount": 10, "reason": "tax"}]
    ),
}


@pytest.mark.parametrize("edit", list(BAD_SNAPSHOTS.values()), ids=list(BAD_SNAPSHOTS))
def test_malformed_snapshots_are_refused(edit):
    snap = _snap(_mid_game())
    edit(snap)
    with pytest.raises(DecodeError):
        Game.from_snapshot(snap)


def test_snapshot_must_be_a_dict():
    with pytest.raises(TypeError):
        Game.from_snapshot([1, 2])


def test_an_edited_but_consistent_snapshot_is_accepted():
    snap = _snap(_mid_game())
    snap["state"]["players"][1]["cash"] = 999
    game = Game.from_snapshot(snap)
    assert game.player(1)["cash"] == 999


# States that pass every field check but do not hang together: the engine would index out of its
# tables (a Rust panic) when they are played. They must be refused when decoded.
def _debt_to_a_seat_not_in_the_game(snap):
    snap["state"]["debts"] = [{"debtor": 0, "creditor": {"player": 9}, "amount": 10, "reason": "rent"}]


def _utility_dice_for_no_deed(snap):
    snap["state"]["pending"] = {"utility_dice": {"property": 99}}


def _deed_pending_during_a_turn(snap):
    snap["state"]["pending"] = "deed"


def _dealing_to_a_seat_not_in_the_game(snap):
    snap["state"]["phase"] = {"dealing": {"seat": 9, "dealt": 0}}
    snap["state"]["pending"] = "deed"


INCONSISTENT = {
    "debt to seat 9": (_debt_to_a_seat_not_in_the_game, {"type": "pay_debt", "player": 0}),
    "utility dice for deed 99": (_utility_dice_for_no_deed, {"type": "dice", "dice": (1, 2)}),
    "deed pending in a turn": (_deed_pending_during_a_turn, {"type": "deed", "square": 1}),
    "dealing to seat 9": (_dealing_to_a_seat_not_in_the_game, {"type": "deed", "square": 1}),
}


@pytest.mark.parametrize("case", list(INCONSISTENT.values()), ids=list(INCONSISTENT))
def test_inconsistent_snapshots_are_refused_not_crashed_on(case):
    edit, next_input = case
    game = started(3)
    roll(game, 1, 2)
    act(game, {"type": "buy", "player": 0})
    act(game, {"type": "end_turn", "player": 0})
    snap = _snap(game)
    edit(snap)
    try:
        forged = Game.from_snapshot(snap, seed=0)
    except DecodeError:
        return  # refused: right
    # Accepted: then playing it must not crash the engine.
    try:
        forged.apply(next_input)
    except IllegalAction:
        pass
    except BaseException as e:  # a pyo3 PanicException is a BaseException
        pytest.fail(f"accepted an inconsistent snapshot, then crashed: {type(e).__name__}: {e}")


def test_forged_cash_near_the_limit_does_not_wrap():
    """A decoded state with cash near 2**32 must be refused, or pay GO money without wrapping."""
    game = started(2)
    snap = _snap(game)
    snap["state"]["players"][0]["cash"] = 2**32 - 1
    snap["state"]["players"][0]["position"] = 39
    try:
        forged = Game.from_snapshot(snap, seed=0)
    except DecodeError:
        return
    before = money_in_play(forged)
    events = roll(forged, 1, 2)  # passes GO: +200
    assert money_in_play(forged) - before == bank_flow(events), (
        f"cash went from {2**32 - 1} to {forged.player(0)['cash']} on passing GO"
    )


# --- malformed bytes ------------------------------------------------------------------------------


def test_bytes_with_a_wrong_format_tag_are_refused():
    data = _mid_game().to_bytes()
    for bad in (b"", b"lanopoly", data[:11], b"lanopoly/s3\x00" + data[12:], b"LANOPOLY/s2\x00" + data[12:]):
        with pytest.raises(DecodeError, match="wrong format tag"):
            Game.from_bytes(bad)


def test_truncated_bytes_are_refused():
    data = _mid_game().to_bytes()
    for n in range(12, len(data)):
        with pytest.raises(DecodeError):
            Game.from_bytes(data[:n])


def test_trailing_bytes_are_refused():
    """The encoding is canonical: one state, one byte string. Junk after it is not a state."""
    data = _mid_game().to_bytes()
    with pytest.raises(DecodeError):
        Game.from_bytes(data + b"\x00")


def _bot_game(steps: int, seed: int) -> Game:
    game = Game(4, seed=seed)
    bot = lanopoly.SimpleBot()
    for _ in range(steps):
        if game.is_over:
            break
        if game.is_chance_node:
            game.resolve_chance()
        else:
            seat = game.current_player
            game.apply(bot.choose(game, seat, game.legal_actions(seat)))
    return game


@pytest.mark.parametrize("steps", [3, 400])
def test_flipped_bytes_are_refused_or_give_a_playable_state(steps):
    data = _bot_game(steps, seed=5).to_bytes()
    rng = random.Random(steps)
    for i in range(12, len(data)):
        for mask in (0x01, 0x80, 0xFF):
            flipped = bytearray(data)
            flipped[i] ^= mask
            try:
                game = Game.from_bytes(bytes(flipped), seed=1)
            except DecodeError:
                continue
            # A state that decodes is valid: it re-encodes and plays on without crashing.
            assert Game.from_bytes(game.to_bytes()).state_hash() == game.state_hash()
            for _ in range(30):
                if game.is_over:
                    break
                if game.is_chance_node:
                    outcomes = game.chance_outcomes()
                    assert outcomes, f"byte {i} ^ {mask:#x}: a chance node with no outcome"
                    game.apply(rng.choice(outcomes)[0])
                else:
                    legal = game.legal_actions()
                    assert legal, f"byte {i} ^ {mask:#x}: seat {game.current_player} has no legal action"
                    game.apply(rng.choice(legal))


def test_random_garbage_bytes_are_refused():
    rng = random.Random(1)
    for _ in range(300):
        junk = b"lanopoly/s1\x00" + bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
        with pytest.raises(DecodeError):
            Game.from_bytes(junk)


# --- corrupt bytes, snapshots and pickles: DecodeError ----------------------------------------------


def test_decode_error_is_a_value_error_exported_from_lanopoly():
    assert issubclass(DecodeError, ValueError)
    assert not issubclass(DecodeError, IllegalAction)
    assert lanopoly.DecodeError is DecodeError
    assert DecodeError.__module__ == "lanopoly"


def test_corrupt_game_bytes_and_snapshots_are_decode_errors():
    game = _mid_game()
    before = game.state_hash()
    for data in (b"", b"lanopoly/s1\x00junk", game.to_bytes()[:-1], game.to_bytes() + b"\x00"):
        with pytest.raises(DecodeError):
            Game.from_bytes(data)
    snap = _snap(game)
    snap["state"]["players"][0]["position"] = 40
    with pytest.raises(DecodeError, match="invalid state"):
        Game.from_snapshot(snap)
    snap["state"]["players"][0]["cash"] = "lots"
    with pytest.raises(DecodeError, match="malformed snapshot"):
        Game.from_snapshot(snap)
    with pytest.raises(DecodeError, match="names for"):
        Game.from_snapshot({**game.snapshot(), "names": ["a"]})
    assert game.state_hash() == before


def test_a_corrupt_pickle_is_a_decode_error():
    import pickle

    game = _mid_game()
    data = pickle.dumps(game)
    state = game.to_bytes()
    assert state in data
    broken = data.replace(state, state[:-1] + bytes([state[-1] ^ 0xFF]))
    with pytest.raises(DecodeError):
        pickle.loads(broken)


def test_corrupt_vecgame_bytes_are_decode_errors():
    from lanopoly.rl import VecGame

    games = VecGame(2, players=2, seed=3, learner=0, opponents=["random"])
    obs, _, _ = games.observe()
    data = games.to_bytes()
    for bad in (b"", b"junk", data[: len(data) // 2], data[:-1]):
        with pytest.raises(DecodeError):
            VecGame.from_bytes(bad)
    assert np.array_equal(games.observe()[0], obs)


def test_a_corrupt_bot_state_is_a_decode_error():
    bot = lanopoly.Bot("heuristic", seed=1)
    state = bot.__getstate__()
    with pytest.raises(DecodeError):
        bot.__setstate__((b"\xff" * 3, state[1]))


def test_vecgame_step_arguments_and_refusals_say_what_kind():
    from lanopoly.rl import VecGame

    games = VecGame(2, players=2, seed=3, learner=0, opponents=["random"])
    _, mask, _ = games.observe()
    data = games.to_bytes()
    masked = int(np.flatnonzero(~mask[0])[0])
    for actions, kind in (
        ([0], ValueError),  # one action for two games
        ([100_000, -1], ValueError),  # outside the action space
        ([-2, -1], ValueError),
        (np.zeros(2, dtype=np.float32), TypeError),
        ([masked, -1], IllegalAction),  # in the space, masked out in game 0
    ):
        with pytest.raises(Exception) as info:
            games.step(actions)
        assert type(info.value) is kind, f"{actions!r}: {info.value!r} is not a {kind.__name__}"
        assert games.to_bytes() == data
    with pytest.raises(ValueError, match="flags for") as flags:
        games.reset_games(np.ones(3, dtype=bool))
    assert type(flags.value) is ValueError
    assert games.to_bytes() == data
