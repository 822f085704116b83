"""``lanopoly.observation`` describes the observation the engine writes: every entry once, within
its bounds in real games, the fields where the engine puts the values, and the guide's table."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import lanopoly
from lanopoly.observation import OBSERVATION_FIELDS, bounds, field_of, markdown_table
from lanopoly.rl import OBSERVATION_LAYOUT, OBSERVATION_SIZE, VecGame

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide.md"


def test_the_fields_cover_the_vector_exactly_once() -> None:
    entries = sorted(i for f in OBSERVATION_FIELDS for i in f.indices())
    assert entries == list(range(OBSERVATION_SIZE))
    assert [f.start for f in OBSERVATION_FIELDS] == sorted(f.start for f in OBSERVATION_FIELDS)


def test_the_fields_fall_in_the_engine_s_parts() -> None:
    for part, start, stop in OBSERVATION_LAYOUT:
        mine = [f for f in OBSERVATION_FIELDS if re.split(r"[.\[]", f.name)[0] == part]
        assert sorted(i for f in mine for i in f.indices()) == list(range(start, stop)), part


def entry(name: str, repeat: int = 0) -> int:
    f = next(f for f in OBSERVATION_FIELDS if f.name == name)
    return f.start + repeat * f.stride


def test_the_fields_hold_what_they_say() -> None:
    """A few values read at their fields' entries equal the game's state: a shifted field fails."""
    rules = lanopoly.Rules(round_limit=30)
    game, bot = lanopoly.Game(3, rules=rules, seed=3), lanopoly.Bot("heuristic", seed=3)
    checked = 0
    while not game.is_over:
        if game.is_chance_node:
            game.resolve_chance()
        else:
            seat = game.current_player
            assert seat is not None
            game.apply(bot.choose(game, seat, game.legal_actions(seat)))
        for seat in range(3):
            obs = game.observation(seat)
            for rel in range(3):
                p = game.player((seat + rel) % 3)
                assert obs[entry("players[s].cash", rel)] == pytest.approx(p["cash"] / 1000)
                assert obs[entry("players[s].net_worth", rel)] == pytest.approx(p["net_worth"] / 5000)
                if not p["bankrupt"]:
                    assert obs[entry("players[s].position", rel) + p["position"]] == 1
            assert obs[entry("bank.houses_left")] == pytest.approx(game.houses_left / 32)
            assert obs[entry("bank.round")] == pytest.approx(game.round / 100)
            assert obs[entry("players[s].turn", (game.turn_player - seat) % 3)] == 1
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("players", [2, 4, 8])
def test_observations_of_random_games_stay_within_the_bounds(players: int) -> None:
    """Random legal actions (trade drafts included) in 32 games, every seat's view."""
    low, high = (np.asarray(b, dtype=np.float64) for b in bounds())
    rng = np.random.default_rng(players)
    vec = VecGame(32, players=players, seed=players, max_inputs=20_000)
    obs, mask, _ = vec.reset()
    seen_low, seen_high = obs.min(axis=0).astype(np.float64), obs.max(axis=0).astype(np.float64)
    for step in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, *_ = vec.step(actions)
        rows = [obs]
        if step % 20 == 0:
            rows += [vec.view(i, seat)[0][None] for i in range(0, 32, 4) for seat in range(players)]
        stacked = np.concatenate(rows)
        np.minimum(seen_low, stacked.min(axis=0), out=seen_low)
        np.maximum(seen_high, stacked.max(axis=0), out=seen_high)
    below, above = np.flatnonzero(seen_low < low), np.flatnonzero(seen_high > high)
    assert below.size == 0, [(i, field_of(i).name, seen_low[i]) for i in below]
    assert above.size == 0, [(i, field_of(i).name, seen_high[i]) for i in above]
    # The games went somewhere: seats moved, deeds were owned, auctions and drafts opened.
    for name in ("players[s].cash", "properties[p].owner", "auction.running", "draft.open", "offer.present"):
        f = next(f for f in OBSERVATION_FIELDS if f.name == name)
        assert seen_high[f.indices()].max() > 0, name


def test_the_guide_shows_the_table_of_the_data() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    shown = re.search(r"<!-- observation fields: start -->\n(.*?)\n<!-- observation fields: end -->", text, re.DOTALL)
    assert shown is not None, "the guide lost its table of observation fields"
    assert shown.group(1) == markdown_table(), (
        "regenerate it: python -c 'import lanopoly.observation as o; print(o.markdown_table())'"
    )
