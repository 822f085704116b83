"""Chance through the bindings: exact outcome lists, byte-driven outcomes, the seeded resolver."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from conftest import DEED_SQUARES, dice, end_turn, roll, started
from lanopoly import CHANCE, Game, IllegalAction, Rules

ALL_DICE = [[a, b] for a in range(1, 7) for b in range(a, 7)]


def test_dice_outcomes_and_probabilities():
    game = Game(2, seed=0)
    outcomes = game.chance_outcomes()
    assert len(outcomes) == 21
    assert [o["dice"] for o, _ in outcomes] == ALL_DICE
    assert all(o["type"] == "dice" for o, _ in outcomes)
    assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
    for o, p in outcomes:
        a, b = o["dice"]
        assert p == pytest.approx(1 / 36 if a == b else 1 / 18, abs=1e-15)
    assert game.legal_actions() == [o for o, _ in outcomes]


def test_dice_outcome_in_its_documented_list_form():
    """The stub and convert.rs document {"type": "dice", "dice": [3, 4]}: a list, as JSON gives it."""
    game = Game(2, seed=0)
    assert game.apply({"type": "dice", "dice": [6, 6]}) == [{"type": "order_roll", "player": 0, "total": 12}]


def test_dice_order_does_not_matter():
    a, b = started(2), started(2)
    roll(a, 1, 2)
    roll(b, 2, 1)
    assert a.state_hash() == b.state_hash()


def test_card_draws_are_uniform_over_the_remaining_cards():
    game = started(3)
    roll(game, 3, 4)  # Chance, square 7
    assert game.current_player == CHANCE
    outcomes = game.chance_outcomes()
    assert [o for o, _ in outcomes] == [{"type": "card", "card": i} for i in range(16)]
    assert all(p == pytest.approx(1 / 16) for _, p in outcomes)
    game.apply({"type": "card", "card": 6})  # dividend of 50
    assert game.player(0)["cash"] == 1550
    end_turn(game)
    roll(game, 3, 4)  # seat 1 lands on Chance too: 15 cards left, card 6 is at the bottom
    outcomes = game.chance_outcomes()
    assert len(outcomes) == 15
    assert {"type": "card", "card": 6} not in [o for o, _ in outcomes]
    assert all(p == pytest.approx(1 / 15) for _, p in outcomes)
    with pytest.raises(IllegalAction, match="card 6 is not in the deck now"):
        game.apply({"type": "card", "card": 6})


def test_deed_dealing_is_uniform_over_the_deeds_left():
    game = Game(3, rules=Rules.preset("speed"), seed=0)
    assert game.phase == {"dealing": {"seat": 0, "dealt": 0}}
    outcomes = game.chance_outcomes()
    assert len(outcomes) == 28
    assert all(o["type"] == "deed" for o, _ in outcomes)
    assert all(p == pytest.approx(1 / 28) for _, p in outcomes)
    events = game.apply({"type": "deed", "square": 39})
    assert events == [
        {"type": "deed_dealt", "player": 0, "square": 39},
        {"type": "payment", "from": {"player": 0}, "to": "bank", "amount": 400, "reason": "purchase"},
    ]
    outcomes = game.chance_outcomes()
    assert len(outcomes) == 27
    assert {"type": "deed", "square": 39} not in [o for o, _ in outcomes]
    with pytest.raises(IllegalAction):
        game.apply({"type": "deed", "square": 39})


def test_outcome_from_bytes_is_deterministic_and_legal():
    game = started(3)
    game.apply({"type": "roll", "player": 0})
    rng = random.Random(7)
    legal = [o for o, _ in game.chance_outcomes()]
    for n in (0, 1, 16, 32, 100):
        data = bytes(rng.randrange(256) for _ in range(n))
        first = game.outcome_from_bytes(data)
        assert first == game.outcome_from_bytes(data)
        assert first == game.clone().outcome_from_bytes(data)
        assert first in legal
        clone = game.clone()
        clone.apply(first)  # always applicable
    # The outcome depends on the bytes only, not on the resolver seed of the game.
    other = Game.from_bytes(game.to_bytes(), seed=999)
    for i in range(50):
        data = i.to_bytes(8, "little")
        assert other.outcome_from_bytes(data) == game.outcome_from_bytes(data)


def test_outcome_from_bytes_dice_distribution():
    """20,160 deterministic random byte strings: the 21 dice outcomes near their exact odds."""
    game = started(2)
    game.apply({"type": "roll", "player": 0})
    rng = random.Random(2024)
    n = 36 * 560
    counts = dict.fromkeys(map(tuple, ALL_DICE), 0)
    for _ in range(n):
        o = game.outcome_from_bytes(rng.randbytes(16))
        counts[tuple(o["dice"])] += 1
    chi2 = 0.0
    for (a, b), seen in counts.items():
        expected = n * (1 / 36 if a == b else 1 / 18)
        chi2 += (seen - expected) ** 2 / expected
    # 20 degrees of freedom: mean 20, P(chi2 > 60) ~ 1e-5. A biased mapping is far above this.
    assert chi2 < 60, counts
    doubles = sum(counts[(a, a)] for a in range(1, 7))
    assert abs(doubles / n - 1 / 6) < 0.02


def test_outcome_from_bytes_cards_cover_the_deck():
    game = started(2)
    roll(game, 3, 4)
    seen = {game.outcome_from_bytes(i.to_bytes(4, "little"))["card"] for i in range(2000)}
    assert seen == set(range(16))


def test_seeded_resolver_gives_the_same_game():
    def play(seed):
        game = Game(4, seed=seed)
        outcomes = []
        for _ in range(400):
            if game.is_over:
                break
            if game.is_chance_node:
                outcome, events = game.resolve_chance()
                assert isinstance(events, list)
                outcomes.append(outcome)
            else:
                game.apply(game.legal_actions()[-1])
        return outcomes, game.state_hash()

    a, b, c = play(12345), play(12345), play(54321)
    assert a == b
    assert a != c


def test_sample_chance_does_not_apply_and_advances_the_resolver():
    game = Game(3, seed=8)
    before = game.state_hash()
    twin = Game(3, seed=8)
    first = game.sample_chance()
    assert game.state_hash() == before
    assert first in [o for o, _ in game.chance_outcomes()]
    outcome, _ = twin.resolve_chance()
    assert outcome == first
    # Same seed, same stream of samples.
    assert [Game(3, seed=8).sample_chance() for _ in range(3)] == [first] * 3


def test_resolver_uses_exact_weights():
    """Over many samples from one seed, doubles come up about 1/6 of the time."""
    game = started(2)
    game.apply({"type": "roll", "player": 0})
    doubles = 0
    n = 6000
    for _ in range(n):
        a, b = game.sample_chance()["dice"]
        doubles += a == b
    assert abs(Fraction(doubles, n) - Fraction(1, 6)) < Fraction(2, 100)


def test_utility_card_asks_for_dice():
    game = started(2)
    snap = game.snapshot()
    owner = list(snap["state"]["owner"])
    owner[DEED_SQUARES.index(12)] = 0  # seat 0 owns Electric Company
    snap["state"]["owner"] = owner
    game = Game.from_snapshot(snap, seed=0)
    roll(game, 1, 3)  # income tax
    end_turn(game)
    roll(game, 3, 4)  # seat 1 on Chance
    game.apply({"type": "card", "card": 5})  # nearest utility: owned, roll and pay ten times the roll
    assert game.is_chance_node
    assert game.current_player == CHANCE
    assert len(game.chance_outcomes()) == 21
    events = game.apply(dice(2, 3))
    assert {"type": "rent_due", "owner": 0, "payer": 1, "square": 12, "amount": 50} in events
    events = game.apply({"type": "claim_rent", "player": 0, "square": 12})  # the official rules: claimed
    assert {"type": "payment", "from": {"player": 1}, "to": {"player": 0}, "amount": 50, "reason": "rent"} in events
    assert game.player(1)["cash"] == 1450
