"""The Python API surface of lanopoly: construction, rules, queries, state round trips."""

from __future__ import annotations

import copy
import json

import msgpack
import pytest

import lanopoly
from conftest import REPO, act, dice, end_turn, refused, roll, started
from lanopoly import CHANCE, Game, IllegalAction, Rules

PRESETS = ["official", "paris-app", "it", "no", "paris-quick", "paris-house", "speed", "timed"]


# --- package --------------------------------------------------------------------------------------


def test_exports():
    assert CHANCE == -1
    assert lanopoly.STATE_FORMAT == "lanopoly/s2"
    assert issubclass(IllegalAction, ValueError)
    assert IllegalAction.__module__ == "lanopoly"
    assert lanopoly.boards() == ["classic", "paris"]
    names = lanopoly.square_names()
    assert len(names) == 40
    assert names[0] == "GO" and names[3] == "Baltic Avenue" and names[39] == "Boardwalk"
    assert len(lanopoly.square_names("paris")) == 40
    with pytest.raises(ValueError, match="unknown board"):
        lanopoly.square_names("moon")


# --- construction ---------------------------------------------------------------------------------


def test_game_from_a_count_uses_the_edition_tokens():
    game = Game(3, seed=1)
    assert game.names == ["dog", "top hat", "car"]
    assert game.num_players == 3
    assert game.board == "classic"
    assert game.rules == Rules()
    assert game.currency == "$"
    assert game.step == 0 and game.round == 0
    paris = Game(2, board="paris", seed=1)
    assert paris.names == ["chien", "chapeau haut-de-forme"]
    assert paris.currency == "€"


def test_game_from_names():
    game = Game(["Ada", "Brian"], rules=Rules.preset("it"), seed=1)
    assert game.names == ["Ada", "Brian"]
    assert game.num_players == 2
    assert game.rules.opening_bid == 10
    assert [game.player(s)["name"] for s in range(2)] == ["Ada", "Brian"]


@pytest.mark.parametrize("players", [0, 1, 9, 300, ["solo"], [f"p{i}" for i in range(9)], "ab", None, 2.5])
def test_bad_player_counts_are_refused(players):
    with pytest.raises((ValueError, TypeError)):
        Game(players, seed=0)


def test_unknown_board_is_refused():
    with pytest.raises(ValueError, match=r"unknown board \"moon\"; boards: classic, paris"):
        Game(2, board="moon")


def test_every_seat_count_and_board_starts_at_the_order_roll():
    for board in lanopoly.boards():
        for n in range(2, 9):
            game = Game(n, board=board, seed=n)
            assert game.is_chance_node
            assert game.current_player == CHANCE
            assert len(game.names) == n
            for seat in range(n):
                assert game.player(seat)["cash"] == 1500
                assert game.player(seat)["position"] == 0


# --- rules ----------------------------------------------------------------------------------------


def test_presets_list():
    assert Rules.presets() == PRESETS


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_builds_a_game(name):
    rules = Rules.preset(name)
    assert Rules(**rules.to_dict()) == rules
    game = Game(4, rules=rules, seed=3)
    assert game.rules == rules
    assert game.is_chance_node
    total = sum(p for _, p in game.chance_outcomes())
    assert total == pytest.approx(1.0)


def test_preset_values_match_rules_md():
    official = Rules.preset("official")
    assert official == Rules()
    assert official.to_dict() == {
        "starting_cash": 1500,
        "go_salary": 200,
        "double_go_on_landing": False,
        "auctions": True,
        "opening_bid": 1,
        "free_parking_jackpot": False,
        "jailed_owner_collects": True,
        "even_building": True,
        "limited_buildings": True,
        "houses": 32,
        "hotels": 12,
        "houses_per_hotel": 4,
        "jail_fine": 50,
        "round_limit": 0,
        "rent_claim": "before_second_next_roll",
        "starting_deeds": 0,
        "end_after_bankruptcies": 0,
        "timed": False,
        "reshuffle_decks": False,
        "max_players": 8,
        "build_in_own_turn": False,
        "shortage_opening_bid": 0,
    }
    assert Rules.preset("paris-app").auctions is False
    assert Rules.preset("it").opening_bid == 10
    assert Rules.preset("no").opening_bid == 10
    quick = Rules.preset("paris-quick")
    assert (quick.round_limit, quick.free_parking_jackpot, quick.auctions) == (25, True, False)
    house = Rules.preset("paris-house")
    assert (house.starting_cash, house.free_parking_jackpot, house.double_go_on_landing) == (2000, True, True)
    speed = Rules.preset("speed")
    assert (speed.starting_deeds, speed.houses_per_hotel, speed.end_after_bankruptcies) == (2, 3, 2)
    timed = Rules.preset("timed")
    assert (timed.timed, timed.starting_deeds, timed.opening_bid) == (True, 2, 10)


README_RULE_CELLS = {"yes": True, "no": False, "automatic": "automatic", "next roll": "before_next_roll"}
README_RULE_CELLS["second next roll"] = "before_second_next_roll"


def readme_presets_table() -> dict[str, dict[str, object]]:
    """The README's table of preset options: preset -> option -> value."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("| option | official |"))
    presets = [cell.strip() for cell in lines[top].strip("|").split("|")][1:]
    table: dict[str, dict[str, object]] = {name: {} for name in presets}
    for line in lines[top + 2 :]:
        if not line.startswith("|"):
            break
        option, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        for name, cell in zip(presets, cells, strict=True):
            table[name][option.strip("`")] = README_RULE_CELLS.get(cell, int(cell) if cell.isdigit() else cell)
    return table


def test_the_readme_table_of_presets_matches_the_code():
    table = readme_presets_table()
    assert list(table) == PRESETS
    for name in PRESETS:
        assert table[name] == Rules.preset(name).to_dict(), name


def test_recorded_rules_lacking_the_newer_options_play_as_before():
    old = dict(Rules(rent_claim="automatic").to_dict())
    for newer in ("reshuffle_decks", "max_players", "build_in_own_turn", "shortage_opening_bid"):
        del old[newer]
    rules = Rules.recorded(old)
    assert rules == Rules(rent_claim="automatic", reshuffle_decks=True)
    assert Rules.recorded(Rules.preset("no").to_dict()) == Rules.preset("no")
    with pytest.raises(ValueError, match="unknown rule option"):
        Rules.recorded({"no_such_option": 1})


def test_rules_options_and_overrides():
    rules = Rules(starting_cash=2500, round_limit=10, rent_claim="before_next_roll")
    assert rules.starting_cash == 2500
    assert rules.round_limit == 10
    assert rules.rent_claim == "before_next_roll"
    assert repr(rules) == "Rules(starting_cash=2500, round_limit=10, rent_claim='before_next_roll')"
    assert repr(Rules()) == "Rules()"
    over = Rules.preset("paris-quick", round_limit=3)
    assert over.round_limit == 3 and over.free_parking_jackpot is True
    assert Rules(starting_cash=2500) != Rules()
    game = Game(2, rules=Rules(starting_cash=2500), seed=0)
    assert game.player(0)["cash"] == 2500


def test_free_building_option():
    rules = Rules(free_building=True)
    assert rules.even_building is False
    assert rules.limited_buildings is False
    assert Rules(free_building=False) == Rules()
    speed = Rules.preset("speed", free_building=True)
    assert speed.even_building is False and speed.houses_per_hotel == 3


def test_unknown_preset_and_option_are_clear_errors():
    with pytest.raises(ValueError, match=r"unknown preset \"monopoly\"; presets: official, paris-app"):
        Rules.preset("monopoly")
    with pytest.raises(ValueError, match=r"unknown rule option \"start_cash\"; options: starting_cash"):
        Rules(start_cash=100)
    with pytest.raises(ValueError, match="unknown rule option"):
        Rules.preset("official", nope=True)
    with pytest.raises(AttributeError, match="no rule option"):
        _ = Rules().nope
    with pytest.raises(ValueError, match=r"unknown rule option \"free\"; options: .*, free_building$"):
        Rules(free=True)


def test_free_building_takes_a_bool_only():
    """A string is truthy: ``free_building="no"`` must not switch free building on."""
    with pytest.raises(TypeError, match=r"rule option \"free_building\" takes a bool, not 'no'"):
        Rules(free_building="no")
    with pytest.raises(TypeError, match="takes a bool"):
        Rules.preset("speed", free_building=1)


@pytest.mark.parametrize(
    "options",
    [
        {"starting_cash": -1},
        {"starting_cash": 2**40},
        {"starting_cash": "lots"},
        {"starting_cash": 2_000_000},
        {"houses_per_hotel": 0},
        {"houses_per_hotel": 5},
        {"opening_bid": 0},
        {"starting_deeds": 4},
        {"rent_claim": "never"},
        {"round_limit": 70_000},
    ],
)
def test_invalid_rule_values_are_refused(options):
    with pytest.raises((ValueError, TypeError)):
        Rules(**options)


def test_a_number_out_of_its_options_range_is_named_in_the_error():
    with pytest.raises(ValueError, match=r"rule option 'round_limit' cannot be -3: out of range"):
        Rules(round_limit=-3)
    with pytest.raises(ValueError, match=r"rule option 'starting_cash' cannot be 1099511627776: out of range"):
        Rules.preset("it", round_limit=30, starting_cash=2**40)


def test_boolean_options_must_be_booleans():
    """A string is not a boolean: Rules(timed="false") must not quietly mean timed=True."""
    with pytest.raises(TypeError):
        Rules(timed="false")


# --- turn flow through the bindings ---------------------------------------------------------------


def test_order_roll_and_first_turn():
    game = Game(3, seed=0)
    assert game.apply(dice(6, 6)) == [{"type": "order_roll", "player": 0, "total": 12}]
    assert game.apply(dice(1, 2)) == [{"type": "order_roll", "player": 1, "total": 3}]
    assert game.apply(dice(2, 1)) == [
        {"type": "order_roll", "player": 2, "total": 3},
        {"type": "first_player", "player": 0},
        {"type": "turn_started", "player": 0, "round": 0},
    ]
    assert game.current_player == 0
    assert game.is_chance_node is False
    assert game.phase == "await_roll"
    assert game.legal_actions() == [{"type": "roll", "player": 0}]
    assert game.legal_actions(0) == [{"type": "roll", "player": 0}]
    assert game.legal_actions(1) == []
    assert game.legal_actions(2) == []
    with pytest.raises(ValueError, match="there is no seat 7"):
        game.legal_actions(7)
    assert game.step == 3


def test_roll_buy_and_queries(game3):
    events = game3.apply({"type": "roll", "player": 0})
    assert events == []
    assert game3.current_player == CHANCE
    assert game3.is_chance_node
    assert game3.legal_actions(0) == []
    assert len(game3.legal_actions()) == 21  # at a chance node: the outcomes
    assert game3.apply(dice(2, 1)) == [
        {"type": "rolled", "player": 0, "dice": (1, 2)},
        {"type": "moved", "player": 0, "from": 0, "to": 3},
    ]
    assert game3.buy_square == 3
    assert game3.phase == {"buy_decision": {"property": 1}}
    assert game3.legal_actions() == [{"type": "buy", "player": 0}, {"type": "decline", "player": 0}]
    assert game3.square(3) == {
        "square": 3,
        "name": "Baltic Avenue",
        "price": 60,
        "owner": None,
        "mortgaged": False,
        "level": 0,
        "house_cost": 50,
        "rents": [4, 20, 60, 180, 320, 450],
        "mortgage_value": 30,
        "rent": 0,
        "group": 0,
        "kind": "street",
    }
    assert act(game3, {"type": "buy", "player": 0}) == [
        {"type": "payment", "from": {"player": 0}, "to": "bank", "amount": 60, "reason": "purchase"},
        {"type": "bought", "player": 0, "square": 3},
    ]
    assert game3.buy_square is None
    assert game3.square(3)["owner"] == 0
    assert game3.player(0)["cash"] == 1440
    assert game3.net_worth(0) == 1500
    assert game3.player(0)["net_worth"] == 1500
    assert game3.legal_actions() == [
        {"type": "end_turn", "player": 0},
        {"type": "mortgage", "player": 0, "square": 3},
    ]
    # Out of turn: seat 1 may do nothing (no deeds), but is asked without error.
    assert game3.legal_actions(1) == []
    assert game3.player(1)["position"] == 0


def test_player_dict(game3):
    roll(game3, 1, 2)
    act(game3, {"type": "buy", "player": 0})
    p = game3.player(0)
    assert p == {
        "seat": 0,
        "name": "dog",
        "cash": 1440,
        "position": 3,
        "in_jail": False,
        "jail_attempts": 0,
        "jail_cards": [],
        "bankrupt": False,
        "net_worth": 1500,
        "properties": [3],
    }
    json.dumps(p)  # a plain dict, like every other query result


def test_square_kinds(game3):
    kinds = [game3.square(s)["kind"] for s in range(40)]
    assert kinds[0] == "go"
    assert kinds[2] == "community_chest"
    assert kinds[4] == "tax" and game3.square(4)["amount"] == 200
    assert kinds[5] == "railway"
    assert kinds[7] == "chance"
    assert kinds[10] == "jail"
    assert kinds[12] == "utility"
    assert kinds[20] == "free_parking"
    assert kinds[30] == "go_to_jail"
    assert kinds.count("street") == 22
    assert kinds.count("railway") == 4
    assert kinds.count("utility") == 2
    with pytest.raises(ValueError, match="there is no square 40"):
        game3.square(40)
    with pytest.raises(ValueError, match="there is no seat 3"):
        game3.player(3)
    with pytest.raises(ValueError, match="there is no seat 3"):
        game3.net_worth(3)


def test_auction_and_bid_range(game3):
    roll(game3, 1, 2)
    assert game3.auction is None
    assert game3.bid_range(0) is None
    events = act(game3, {"type": "decline", "player": 0})
    assert events == [{"type": "declined", "player": 0, "square": 3}, {"type": "auction_started", "square": 3}]
    auction = game3.auction
    assert auction is not None
    assert {k: auction[k] for k in ("lot", "square", "high_bid", "high_bidder")} == {
        "lot": "property",
        "square": 3,
        "high_bid": 0,
        "high_bidder": None,
    }
    assert game3.bid_range(1) == (1, 1500)
    # Any seat still in may bid, in or out of turn.
    assert game3.legal_actions(1) == [{"type": "bid", "player": 1, "amount": 1}, {"type": "pass", "player": 1}]
    assert act(game3, {"type": "bid", "player": 1, "amount": 30}) == [{"type": "bid", "player": 1, "amount": 30}]
    assert game3.auction["high_bid"] == 30
    assert game3.auction["high_bidder"] == 1
    assert game3.bid_range(2) == (31, 1500)
    refused(game3, {"type": "bid", "player": 2, "amount": 30})
    refused(game3, {"type": "bid", "player": 2, "amount": 1501})
    refused(game3, {"type": "end_turn", "player": 0})
    act(game3, {"type": "pass", "player": 2})
    events = act(game3, {"type": "pass", "player": 0})
    assert events[-1] == {"type": "auction_won", "player": 1, "square": 3, "price": 30}
    assert game3.auction is None
    assert game3.square(3)["owner"] == 1
    assert game3.player(1)["cash"] == 1470


@pytest.mark.parametrize("seat", [3, 7, 8, 9, 255])
def test_bid_range_of_a_seat_not_in_the_game_is_refused(game3, seat):
    roll(game3, 1, 2)
    act(game3, {"type": "decline", "player": 0})
    with pytest.raises(ValueError, match=f"there is no seat {seat}"):
        game3.bid_range(seat)


def test_auction_bidders_is_a_list_of_seats(game3):
    roll(game3, 1, 2)
    act(game3, {"type": "decline", "player": 0})
    assert game3.auction["bidders"] == [0, 1, 2]
    json.dumps(game3.auction)


def test_trade_offers_and_check(game3):
    roll(game3, 1, 2)
    act(game3, {"type": "buy", "player": 0})
    offer = {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [3]}, "get": {"cash": 100}}
    before = game3.state_hash()
    assert game3.check(offer) is None
    assert game3.state_hash() == before
    with pytest.raises(IllegalAction, match="an offer must give or ask something"):
        game3.check({"type": "propose_trade", "player": 0, "to": 1})
    with pytest.raises(IllegalAction, match="trade with another seat"):
        game3.check({"type": "propose_trade", "player": 0, "to": 0, "give": {"cash": 5}})
    act(game3, offer)
    assert len(game3.offers) == 1
    o = game3.offers[0]
    assert (o["from"], o["to"], o["give"]["cash"], o["get"]["cash"]) == (0, 1, 0, 100)
    assert list(o["give"]["properties"]) == [3]
    assert game3.legal_actions(1) == [
        {"type": "accept_trade", "player": 1, "from": 0},
        {"type": "reject_trade", "player": 1, "from": 0},
    ]
    assert {"type": "cancel_trade", "player": 0} in game3.legal_actions(0)
    events = act(game3, {"type": "accept_trade", "player": 1, "from": 0})
    assert {"type": "property_transferred", "from": 0, "to": 1, "square": 3} in events
    assert {"type": "payment", "from": {"player": 1}, "to": {"player": 0}, "amount": 100, "reason": "trade"} in events
    assert game3.offers == []
    assert game3.square(3)["owner"] == 1
    assert game3.player(0)["cash"] == 1540
    assert game3.player(1)["cash"] == 1400


def test_offers_are_plain_lists(game3):
    roll(game3, 1, 2)
    act(game3, {"type": "buy", "player": 0})
    act(game3, {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [3]}, "get": {"cash": 100}})
    assert game3.offers == [
        {
            "from": 0,
            "to": 1,
            "give": {"properties": [3], "cash": 0, "jail_cards": []},
            "get": {"properties": [], "cash": 100, "jail_cards": []},
        }
    ]


def test_trade_events_use_the_dict_form_of_offers(game3):
    """A trade_proposed event's offer should read like game.offers (squares, card names)."""
    roll(game3, 1, 2)
    act(game3, {"type": "buy", "player": 0})
    events = act(
        game3, {"type": "propose_trade", "player": 0, "to": 1, "give": {"properties": [3]}, "get": {"cash": 100}}
    )
    assert events[0]["type"] == "trade_proposed"
    give = events[0]["offer"]["give"]
    assert give["properties"] == [3], f"property given as {give['properties']!r}, not as squares"
    assert give["jail_cards"] == []


def test_debts_and_bankruptcy():
    game = started(2)
    snap = game.snapshot()
    snap["state"]["players"] = [dict(p) for p in snap["state"]["players"]]
    snap["state"]["players"][0]["cash"] = 100
    game = Game.from_snapshot(snap, seed=0)
    events = roll(game, 1, 3)  # Income Tax, 200
    assert events[-1] == {"type": "debt_owed", "debtor": 0, "creditor": "bank", "amount": 200}
    assert game.debts == [{"debtor": 0, "creditor": "bank", "amount": 200, "reason": "tax"}]
    assert game.current_player == 0
    assert game.legal_actions() == [{"type": "declare_bankruptcy", "player": 0}]
    assert game.legal_actions(1) == []
    refused(game, {"type": "pay_debt", "player": 0})
    refused(game, {"type": "end_turn", "player": 0})
    events = act(game, {"type": "declare_bankruptcy", "player": 0})
    assert events[-1] == {"type": "game_over", "winner": 1}
    assert game.is_over
    assert game.winner == 1
    assert game.current_player is None
    assert game.legal_actions() == []
    assert game.legal_actions(1) == []
    assert game.player(0)["bankrupt"] is True
    assert game.net_worth(0) == 0
    assert game.phase == "game_over"
    assert refused(game, {"type": "roll", "player": 1}) == "the game is over"


def test_round_limit_richest_wins():
    game = started(2, Rules(round_limit=1))
    roll(game, 1, 2)
    act(game, {"type": "buy", "player": 0})
    end_turn(game)
    assert game.current_player == 1
    roll(game, 1, 3)  # seat 1 pays 200 income tax
    assert game.is_over is False
    events = act(game, {"type": "end_turn", "player": 1})
    assert events == [{"type": "turn_ended", "player": 1}, {"type": "game_over", "winner": 0}]
    assert (game.is_over, game.winner, game.current_player, game.round) == (True, 0, None, 1)


def test_timed_game_ends_with_end_game():
    game = Game(2, rules=Rules.preset("timed"), seed=5)
    while game.is_chance_node:
        game.resolve_chance()
    assert {"type": "end_game", "player": 0} in game.legal_actions(0)
    assert {"type": "end_game", "player": 1} in game.legal_actions(1)
    worths = [game.net_worth(s) for s in range(2)]
    events = act(game, {"type": "end_game", "player": 1})
    assert events[-1]["type"] == "game_over"
    assert game.is_over
    assert worths[game.winner] == max(worths)
    with pytest.raises(IllegalAction, match="only a timed game"):
        started(2).check({"type": "end_game", "player": 0})


def test_free_building_allows_uneven_and_unlimited_building():
    def with_brown_group(rules):
        game = started(2, rules)
        snap = game.snapshot()
        owner = list(snap["state"]["owner"])
        owner[0] = owner[1] = 0  # Mediterranean Avenue (square 1) and Baltic Avenue (square 3)
        snap["state"]["owner"] = owner
        return Game.from_snapshot(snap, seed=0)

    strict = with_brown_group(None)
    act(strict, {"type": "build", "player": 0, "square": 1})
    assert strict.houses_left == 31
    assert refused(strict, {"type": "build", "player": 0, "square": 1}).startswith("build evenly")
    free = with_brown_group(Rules(free_building=True))
    for level in range(1, 6):
        act(free, {"type": "build", "player": 0, "square": 1})
        assert free.square(1)["level"] == level
    assert free.square(3)["level"] == 0


# --- state identity and round trips ---------------------------------------------------------------


def test_state_hash(game3):
    h = game3.state_hash()
    assert isinstance(h, bytes) and len(h) == 32
    assert started(3).state_hash() == h
    assert started(4).state_hash() != h
    game3.apply({"type": "roll", "player": 0})
    assert game3.state_hash() != h
    # The names and the resolver are not part of the state.
    assert Game(["a", "b", "c"], seed=1).state_hash() == Game(3, seed=2).state_hash()


def _played(n=3, steps=120, seed=11):
    game = Game(n, seed=seed)
    bot = lanopoly.SimpleBot()
    for _ in range(steps):
        if game.is_chance_node:
            game.resolve_chance()
        else:
            seat = game.current_player
            game.apply(bot.choose(game, seat, game.legal_actions(seat)))
    return game


def test_snapshot_round_trip():
    game = _played()
    snap = game.snapshot()
    assert snap["format"] == 1
    assert snap["names"] == game.names
    back = Game.from_snapshot(snap)
    assert back.state_hash() == game.state_hash()
    assert back.names == game.names
    assert back.snapshot() == snap
    # Through JSON and msgpack, as it would travel.
    via_json = Game.from_snapshot(json.loads(json.dumps(snap)))
    assert via_json.state_hash() == game.state_hash()
    via_msgpack = Game.from_snapshot(msgpack.unpackb(msgpack.packb(snap)))
    assert via_msgpack.state_hash() == game.state_hash()


def test_bytes_round_trip():
    game = _played()
    data = game.to_bytes()
    assert data.startswith(b"lanopoly/s2\x00")
    back = Game.from_bytes(data)
    assert back.state_hash() == game.state_hash()
    assert back.to_bytes() == data
    assert back.names == ["seat 0", "seat 1", "seat 2"]
    named = Game.from_bytes(data, names=["x", "y", "z"], seed=4)
    assert named.names == ["x", "y", "z"]
    with pytest.raises(ValueError, match="2 names for 3 seats"):
        Game.from_bytes(data, names=["x", "y"])
    # A restored game plays on exactly like the original.
    a, b = game.clone(), Game.from_bytes(data)
    for _ in range(30):
        if a.is_over:
            break
        outcome = a.chance_outcomes()[0][0] if a.is_chance_node else a.legal_actions()[0]
        assert a.apply(outcome) == b.apply(outcome)
        assert a.state_hash() == b.state_hash()


def test_clone_and_copies_are_independent():
    game = _played(steps=40)
    for other in (game.clone(), copy.copy(game), copy.deepcopy(game)):
        assert isinstance(other, Game)
        assert other is not game
        assert other.state_hash() == game.state_hash()
        assert other.names == game.names
        before = game.state_hash()
        while not other.is_over and other.state_hash() == before:
            if other.is_chance_node:
                other.resolve_chance()
            else:
                other.apply(other.legal_actions()[0])
        assert other.state_hash() != before
        assert game.state_hash() == before


def test_clone_copies_the_resolver():
    game = Game(4, seed=99)
    twin = game.clone()
    for _ in range(10):
        if not game.is_chance_node:
            break
        assert game.resolve_chance() == twin.resolve_chance()
    assert game.state_hash() == twin.state_hash()


def test_repr(game3):
    assert repr(game3) == "<lanopoly.Game 3 players, board=classic, step=3, in play>"
