"""The TypedDicts of rule sets, snapshots and simulation runs match what the engine returns.

``Rules.to_dict()``, ``Game.snapshot()`` and ``_core.simulate(...)`` return plain dicts; the stub
types them with ``lanopoly.types.RulesDict``, ``Snapshot`` and ``RawSimulation``. Real values
(every preset and some variants, snapshots of bot games at every step until every optional part
of the state has been seen, runs with several bots) are checked against the classes' annotations,
key for key, with the runtime checker of ``test_types``: a field added, dropped or changed on
either side fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_type_hints

import pytest

import lanopoly
from lanopoly import _core
from lanopoly import types as lt
from test_types import mismatch, strict_errors


def check(value: Any, hint: Any, where: str) -> None:
    error = mismatch(value, hint, where)
    assert error is None, error


RULE_SETS = [
    *(lanopoly.Rules.preset(name) for name in lanopoly.Rules.presets()),
    lanopoly.Rules(),
    lanopoly.Rules(free_building=True, rent_claim="automatic", round_limit=30),
    lanopoly.Rules.preset("no", opening_bid=10, reshuffle_decks=True, build_in_own_turn=True),
    lanopoly.Rules.recorded({}),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=repr)
def test_rules_to_dict_fits_rules_dict(rules: lanopoly.Rules) -> None:
    value = rules.to_dict()
    check(value, lt.RulesDict, "to_dict()")
    assert lanopoly.Rules(**value) == rules
    # Every option reads as an attribute, with the same value.
    assert all(getattr(rules, key) == item for key, item in value.items())


def lot_kind(auction: lt.SnapshotAuction | None) -> str | None:
    return None if auction is None else next(iter(auction["lot"]))


FEATURES = {
    "buildings": lambda s: any(s["level"]),
    "hotel": lambda s: 5 in s["level"],
    "mortgages": lambda s: s["mortgaged"] != 0,
    "fee due": lambda s: s["fee_due"] != 0,
    "jail card held": lambda s: any(p["jail_cards"] for p in s["players"]),
    "in jail": lambda s: any(p["in_jail"] for p in s["players"]),
    "bankrupt": lambda s: any(p["bankrupt"] for p in s["players"]),
    "property auction": lambda s: lot_kind(s["auction"]) == "property",
    "building auction": lambda s: lot_kind(s["auction"]) == "building",
    "placing": lambda s: s["placing"] is not None,
    "offers": lambda s: bool(s["offers"]),
    "debts": lambda s: bool(s["debts"]),
    "claims": lambda s: bool(s["claims"]),
    "card pending": lambda s: isinstance(s["pending"], dict) and "card" in s["pending"],
    "buy decision": lambda s: isinstance(s["phase"], dict) and "buy_decision" in s["phase"],
    "dealing": lambda s: isinstance(s["phase"], dict) and "dealing" in s["phase"],
    "game over": lambda s: s["phase"] == "game_over",
}
"""Parts of a snapshot that are empty or absent in most states, each of which must be met."""

# The book's rules (offers, claims, auctions), speed (deals deeds, a hotel after three houses) and
# a small bank (building-shortage auctions, then placing the piece won).
GAMES: list[tuple[lanopoly.Rules, list[str]]] = [
    (lanopoly.Rules(round_limit=80, houses=8, hotels=2, shortage_opening_bid=10), ["heuristic"] * 4),
    (lanopoly.Rules.preset("speed"), ["heuristic", "random", "heuristic"]),
    (lanopoly.Rules(round_limit=60), ["heuristic", "random", "heuristic", "random"]),
]


def snapshots(rules: lanopoly.Rules, bots: list[str], seed: int) -> list[lt.Snapshot]:
    """The snapshot of a bot game after every input, to its end."""
    game = lanopoly.Game(len(bots), rules=rules, seed=seed)
    players = [lanopoly.Bot(name, seed=seed * 8 + i) for i, name in enumerate(bots)]
    out = [game.snapshot()]
    for _ in range(20_000):
        if game.is_over:
            break
        if game.is_chance_node:
            game.resolve_chance()
        else:
            seat = game.current_player
            assert seat is not None
            game.apply(players[seat].choose(game, seat))
            for other, bot in enumerate(players):
                if (move := bot.interject(game, other)) is not None:
                    game.apply(move)
        out.append(game.snapshot())
    return out


def test_snapshots_of_bot_games_fit_snapshot() -> None:
    """Every snapshot of some bot games fits ``Snapshot``; between them they hold buildings,
    mortgages, a jail card held, both kinds of auction and every other optional part."""
    seen: set[str] = set()
    checked: set[str] = set()
    for seed in range(12):
        for rules, bots in GAMES:
            for snap in snapshots(rules, bots, seed):
                if repr(snap) in checked:
                    continue
                checked.add(repr(snap))
                check(snap, lt.Snapshot, "snapshot()")
                state = snap["state"]
                assert len(state["players"]) == 8 and len(state["owner"]) == len(state["level"]) == 28
                assert len(state["decks"]) == 2 and state["num_players"] == len(snap["names"])
                seen |= {name for name, has in FEATURES.items() if has(state)}
        if seen == set(FEATURES):
            break
    assert seen == set(FEATURES), set(FEATURES) - seen


def test_a_snapshot_with_a_jail_card_mortgage_and_houses_restores() -> None:
    """A value typed ``Snapshot`` goes back through ``from_snapshot`` as it came out."""
    for snap in snapshots(*GAMES[0], seed=3):
        state = snap["state"]
        if any(state["level"]) and state["mortgaged"] and any(p["jail_cards"] for p in state["players"]):
            assert lanopoly.Game.from_snapshot(snap).snapshot() == snap
            return
    pytest.fail("no state of game 3 has houses, a mortgage and a jail card held at once")


@pytest.mark.parametrize(
    ("players", "bots"),
    [
        (4, ["heuristic", "random", "heuristic(jail=stay)", "random"]),
        (2, ["random"]),
        (3, ["search", "heuristic", "random"]),
    ],
)
def test_simulate_result_fits_raw_simulation(players: int, bots: list[str]) -> None:
    games = 5
    value = _core.simulate(games, players=players, bots=bots, seed=4, threads=1, max_inputs=3000)
    check(value, lt.RawSimulation, "simulate()")
    per_game = ("winners", "rounds", "turns", "actions", "bankruptcies", "truncated", "net_worths")
    assert set(per_game) | {"landings"} == lt.RawSimulation.__required_keys__
    assert all(len(value[key]) == games for key in per_game)
    assert all(len(worths) == players for worths in value["net_worths"])
    assert len(value["landings"]) == 41


def test_the_checker_refuses_a_snapshot_with_a_field_missing_added_or_of_another_type() -> None:
    snap = lanopoly.Game(2, seed=1).snapshot()
    check(snap, lt.Snapshot, "snapshot")
    state: dict[str, Any] = dict(snap["state"])
    assert mismatch({**snap, "state": {k: v for k, v in state.items() if k != "jackpot"}}, lt.Snapshot)
    assert mismatch({**snap, "state": {**state, "bonus": 1}}, lt.Snapshot)
    assert mismatch({**snap, "state": {**state, "owner": list(state["owner"])}}, lt.Snapshot)
    assert mismatch({**snap, "format": 2}, lt.Snapshot)
    assert mismatch({**snap, "format": True}, lt.Snapshot)


STATIC_CHECK = """
from typing import assert_type

import lanopoly
from lanopoly import _core
from lanopoly.types import RawSimulation, RentClaimRule, RulesDict, Snapshot, SnapshotAuction

rules = lanopoly.Rules.preset("speed")
options = rules.to_dict()
assert_type(options, RulesDict)
assert_type(options["rent_claim"], RentClaimRule)
assert_type(options["starting_cash"], int)
lanopoly.Rules(**options)

game = lanopoly.Game(3, rules=rules, seed=1)
snap = game.snapshot()
assert_type(snap, Snapshot)
assert_type(snap["state"]["players"][0]["cash"], int)
assert_type(snap["state"]["auction"], SnapshotAuction | None)
assert_type(snap["state"]["last_dice"], tuple[int, int])
for offer in snap["state"]["offers"]:
    assert_type(offer["give"]["properties"], int)
lanopoly.Game.from_snapshot(snap)

run = _core.simulate(10, players=3, bots=["heuristic"])
assert_type(run, RawSimulation)
assert_type(run["net_worths"], list[list[int]])
print(snap["state"]["cahs"])  # E: misspelt key
"""


def test_the_stub_gives_these_typed_dicts_to_a_type_checker(tmp_path: Path) -> None:
    """mypy --strict sees ``RulesDict``, ``Snapshot`` and ``RawSimulation`` (not ``dict[str, Any]``)
    and refuses a misspelt key: the only line of the snippet with errors."""
    errors = strict_errors(STATIC_CHECK, tmp_path)
    assert any('"cahs"' in e for e in errors), errors


def test_rules_options_are_rules_dicts_options_and_free_building() -> None:
    """``RulesOptions`` (the keyword arguments) lists every option ``to_dict`` has, typed the
    same, plus ``free_building``; an option added to one and not the other fails here."""
    options = get_type_hints(lt.RulesOptions)
    assert options.pop("free_building") is bool
    assert options == get_type_hints(lt.RulesDict)
    assert lt.RulesOptions.__required_keys__ == frozenset()


RULES_OPTIONS_CHECK = """
import lanopoly

lanopoly.Rules(starting_cash=2000, rent_claim="automatic", free_building=True)
lanopoly.Rules.preset("speed", round_limit=30)
lanopoly.Rules(start_cash=2000, auctions=1)  # E: a misspelt option, a number for a flag
"""


def test_the_stub_types_the_rules_keyword_arguments(tmp_path: Path) -> None:
    """``Rules(**options)`` is typed with ``Unpack[RulesOptions]``: mypy refuses a misspelt
    option and a value of the wrong type, and accepts the right ones."""
    errors = strict_errors(RULES_OPTIONS_CHECK, tmp_path)
    assert any('"start_cash"' in e for e in errors), errors
    assert any('"auctions"' in e for e in errors), errors
