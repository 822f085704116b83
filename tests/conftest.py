"""Shared helpers for the Python test suite of lanopoly.

The helpers mirror the engine's scenario tests (rust_core/engine/tests/common): a game whose order
roll is scripted so that seat 0 starts, rolling given dice, checking that a refused input changes
nothing, and a few whole-state invariants used by the property tests.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

import lanopoly

# Deterministic hypothesis: no example database, derandomized, no deadline (the machine is slow
# and shared), modest example counts so the suite stays quick.
settings.register_profile(
    "lanopoly",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=25,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("lanopoly")

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

Action = dict[str, Any]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--sim-seed", default=None, help="replay one game of the LAN network simulation, verbosely")


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The console saves its games under ``$XDG_DATA_HOME`` and remembers the person's choices
    under ``$XDG_CONFIG_HOME``: every test gets folders of its own, so no test reads or writes the
    machine's user's games or choices, nor sees another test's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


def dice(a: int, b: int) -> Action:
    """The chance outcome of two dice."""
    return {"type": "dice", "dice": (a, b)}


def started(n: int, rules: lanopoly.Rules | None = None, board: str = "classic", seed: int = 0) -> lanopoly.Game:
    """A game of n seats where the order roll is scripted so that seat 0 starts."""
    game = lanopoly.Game(n, board=board, rules=rules, seed=seed)
    assert game.is_chance_node
    for seat in range(n):
        game.apply(dice(6, 6) if seat == 0 else dice(1, 2))
    assert game.current_player == 0
    assert game.turn_player == 0
    return game


def roll(game: lanopoly.Game, a: int, b: int) -> list[dict[str, Any]]:
    """The turn player rolls these dice; returns the events of both inputs."""
    events = game.apply({"type": "roll", "player": game.turn_player})
    assert game.is_chance_node
    return events + game.apply(dice(a, b))


def act(game: lanopoly.Game, action: Action) -> list[dict[str, Any]]:
    """Apply a move that must be legal."""
    try:
        return game.apply(action)
    except lanopoly.IllegalAction as e:  # pragma: no cover - a failing scenario
        pytest.fail(f"{action} refused: {e}")


def refused(game: lanopoly.Game, action: Any) -> str:
    """Apply an input that must be refused with IllegalAction, and check nothing changed."""
    before = game.state_hash()
    step = game.step
    with pytest.raises(lanopoly.IllegalAction) as info:
        game.apply(action)
    assert game.state_hash() == before, f"refused {action!r} changed the state"
    assert game.step == step
    reason = str(info.value)
    assert reason, "an IllegalAction must say why"
    return reason


def rejected(game: lanopoly.Game, action: Any, kind: type[Exception]) -> str:
    """Apply an input that must raise exactly ``kind`` (``TypeError``, ``ValueError`` or
    ``IllegalAction``: not a subclass, so a bad argument is not taken for a refusal), and check
    nothing changed."""
    before = game.state_hash()
    step = game.step
    with pytest.raises(Exception) as info:
        game.apply(action)
    assert type(info.value) is kind, f"{action!r} raised {type(info.value).__name__}, not {kind.__name__}: {info.value}"
    assert game.state_hash() == before, f"rejected {action!r} changed the state"
    assert game.step == step
    assert str(info.value), "an error must say why"
    return str(info.value)


def end_turn(game: lanopoly.Game) -> None:
    act(game, {"type": "end_turn", "player": game.turn_player})


def street_groups() -> dict[int, list[int]]:
    """Colour group -> its street squares (the same on every board)."""
    game = lanopoly.Game(2, seed=0)
    groups: dict[int, list[int]] = {}
    for s in range(40):
        info = game.square(s)
        if info["kind"] == "street":
            groups.setdefault(int(info["group"]), []).append(s)
    return groups


GROUPS = street_groups()
STREETS = [s for squares in GROUPS.values() for s in squares]
DEED_SQUARES = [s for s in range(40) if "price" in lanopoly.Game(2, seed=0).square(s)]
HOTEL = 5


def money_in_play(game: lanopoly.Game) -> int:
    return sum(int(game.player(s)["cash"]) for s in range(game.num_players)) + int(game.jackpot)


def bank_flow(events: list[dict[str, Any]]) -> int:
    """Net money that entered the players' hands and the jackpot from the bank."""
    flow = 0
    for e in events:
        if e["type"] != "payment":
            continue
        if e["from"] == "bank":
            flow += int(e["amount"])
        if e["to"] == "bank":
            flow -= int(e["amount"])
    return flow


def check_invariants(game: lanopoly.Game, houses: int = 32, hotels: int = 12, limited: bool = True) -> None:
    """Whole-state invariants that hold after every input under the default building rules."""
    on_board_houses = 0
    on_board_hotels = 0
    per_hotel = int(game.rules.houses_per_hotel)
    for group, squares in GROUPS.items():
        levels = [int(game.square(s)["level"]) for s in squares]
        for level in levels:
            assert 0 <= level <= HOTEL
            if level == HOTEL:
                on_board_hotels += 1
            else:
                on_board_houses += level
        if game.rules.even_building:
            heights = [per_hotel + 1 if lv == HOTEL else lv for lv in levels]
            assert max(heights) - min(heights) <= 1, f"uneven building in group {group}: {levels}"
        if any(levels):
            owners = {game.square(s)["owner"] for s in squares}
            assert len(owners) == 1 and None not in owners, f"buildings in a split group {group}"
            assert not any(game.square(s)["mortgaged"] for s in squares)
    if limited:
        assert on_board_houses + game.houses_left == houses
        assert on_board_hotels + game.hotels_left == hotels
    for seat in range(game.num_players):
        p = game.player(seat)
        assert p["cash"] >= 0
        assert 0 <= p["position"] < 40
        if p["bankrupt"]:
            assert game.net_worth(seat) == 0
            assert len(p["properties"]) == 0


@pytest.fixture
def game3() -> lanopoly.Game:
    return started(3)
