"""Property tests: random legal games driven from Python, checking invariants after every input.

Hypothesis draws the seat count, the preset and a seed; a random.Random of that seed drives every choice
(chance outcomes, moves of any seat, bid amounts, random trade proposals, random junk inputs).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DEED_SQUARES, bank_flow, check_invariants, money_in_play
from lanopoly import Game, Rules

JUNK_TYPES = ["roll", "buy", "decline", "end_turn", "build", "sell", "mortgage", "unmortgage", "pay_debt", "bid"]


def random_offer(rng: random.Random, game: Game) -> dict[str, Any]:
    n = game.num_players
    a = rng.randrange(n)
    b = rng.randrange(n)

    def bundle(seat: int) -> dict[str, Any]:
        props = game.player(seat)["properties"]
        chosen = [s for s in props if rng.random() < 0.3]
        if rng.random() < 0.1:
            chosen.append(rng.choice(DEED_SQUARES))
        cards = [c for c in ("chance", "community_chest") if rng.random() < 0.05]
        cash = rng.choice([0, 0, 1, 10, 50, 200, int(game.player(seat)["cash"])])
        return {"properties": chosen, "cash": cash, "jail_cards": cards}

    return {"type": "propose_trade", "player": a, "to": b, "give": bundle(a), "get": bundle(b)}


def random_junk(rng: random.Random, game: Game) -> dict[str, Any]:
    kind = rng.choice(JUNK_TYPES)
    action: dict[str, Any] = {"type": kind, "player": rng.randrange(-1, game.num_players + 2)}
    if kind in ("build", "sell", "mortgage", "unmortgage"):
        action["square"] = rng.randrange(-2, 42)
    if kind == "bid":
        action["amount"] = rng.randrange(-5, 3000)
    return action


# Lean towards buying and building (so that groups, houses, hotels and shortages come up) and away
# from mortgage ping-pong.
WEIGHTS = {"build": 8.0, "buy": 4.0, "accept_trade": 3.0, "mortgage": 0.3, "unmortgage": 0.3, "sell": 0.5}


def pick_move(rng: random.Random, game: Game) -> dict[str, Any] | None:
    """A random legal move: usually of the seat the game waits for, sometimes of another seat."""
    seats = [game.current_player]
    if rng.random() < 0.3:
        seats.insert(0, rng.randrange(game.num_players))
    for seat in seats:
        legal = game.legal_actions(seat)
        if not legal:
            continue
        weights = [WEIGHTS.get(a["type"], 1.0) for a in legal]
        action = dict(rng.choices(legal, weights)[0])
        if action["type"] == "bid":
            lo, hi = game.bid_range(seat)
            action["amount"] = rng.choice([lo, lo, rng.randint(lo, hi), hi])
        return action
    return None


def step_checked(game: Game, action: dict[str, Any]) -> None:
    money = money_in_play(game)
    events = game.apply(action)
    assert isinstance(events, list)
    assert money_in_play(game) - money == bank_flow(events), (action, events)


def drive(game: Game, rng: random.Random, steps: int, *, roundtrip_every: int = 5, limited: bool = True) -> None:
    houses, hotels = int(game.rules.houses), int(game.rules.hotels)
    for i in range(steps):
        if game.is_over:
            assert game.current_player is None
            assert game.winner is not None
            assert game.legal_actions() == []
            return
        # Refused junk changes nothing.
        if rng.random() < 0.1:
            junk = random_junk(rng, game)
            before = game.state_hash()
            try:
                step_checked(game, junk)
            except (ValueError, TypeError):  # refused (IllegalAction) or malformed
                assert game.state_hash() == before
        if game.is_over:
            continue
        if game.is_chance_node:
            outcomes = game.chance_outcomes()
            assert outcomes
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            outcome = game.outcome_from_bytes(rng.randbytes(16))
            assert outcome in [o for o, _ in outcomes]
            step_checked(game, outcome)
        else:
            if rng.random() < 0.05:
                offer = random_offer(rng, game)
                try:
                    game.check(offer)
                except (ValueError, TypeError):  # refused (IllegalAction) or malformed
                    before = game.state_hash()
                    try:
                        game.apply(offer)
                    except (ValueError, TypeError):  # refused (IllegalAction) or malformed
                        pass
                    else:
                        raise AssertionError(f"check refused {offer} but apply took it")
                    assert game.state_hash() == before
                else:
                    step_checked(game, offer)
                    continue
            action = pick_move(rng, game)
            assert action is not None, f"seat {game.current_player} has no legal action"
            before = game.state_hash()
            game.check(action)
            assert game.state_hash() == before
            step_checked(game, action)
        check_invariants(game, houses, hotels, limited=limited)
        if i % roundtrip_every == 0:
            h = game.state_hash()
            assert Game.from_bytes(game.to_bytes()).state_hash() == h
            assert Game.from_snapshot(game.snapshot()).state_hash() == h


@settings(max_examples=30)
@given(
    n=st.integers(2, 6),
    preset=st.sampled_from(["official", "it", "paris-app", "paris-house", "speed", "timed"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_legal_games_keep_the_invariants(n, preset, seed):
    rng = random.Random(seed)
    rules = Rules.preset(preset)
    game = Game(n, rules=rules, seed=0)
    drive(game, rng, 500)


@settings(max_examples=10)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_random_games_with_a_small_building_stock(n, seed):
    """Few houses and hotels in the bank: shortages and shortage auctions come up."""
    rng = random.Random(seed)
    game = Game(n, rules=Rules.preset("speed", houses=6, hotels=2), seed=0)
    drive(game, rng, 600)


@settings(max_examples=10)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_random_games_with_claimed_rent_and_jackpot(n, seed):
    rng = random.Random(seed)
    rules = Rules(rent_claim="before_second_next_roll", free_parking_jackpot=True, double_go_on_landing=True)
    drive(Game(n, rules=rules, seed=0), rng, 250)


@settings(max_examples=8)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_random_games_with_free_building(n, seed):
    rng = random.Random(seed)
    game = Game(n, rules=Rules(free_building=True), seed=0)
    drive(game, rng, 250, limited=False)
    assert game.houses_left == 0 and game.hotels_left == 0


@settings(max_examples=8)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_games_with_a_round_limit_end(n, seed):
    rng = random.Random(seed)
    game = Game(n, rules=Rules(round_limit=2), seed=0)
    drive(game, rng, 3000, roundtrip_every=50)
    assert game.is_over
    assert game.round <= 2
    alive = [s for s in range(n) if not game.player(s)["bankrupt"]]
    worths = {s: game.net_worth(s) for s in alive}
    assert game.winner in alive
    if not game.player(game.winner)["bankrupt"] and len(alive) > 1:
        assert worths[game.winner] == max(worths.values())


@settings(max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), data=st.binary(min_size=0, max_size=64))
def test_refused_random_inputs_leave_the_hash(seed, data):
    rng = random.Random(seed)
    game = Game(3, seed=1)
    drive(game, rng, 40, roundtrip_every=1000)
    before = game.state_hash()
    junk = random_junk(rng, game)
    try:
        game.apply(junk)
    except (ValueError, TypeError):  # refused (IllegalAction) or malformed
        assert game.state_hash() == before
    if game.is_chance_node:
        outcome = game.outcome_from_bytes(data)
        assert outcome == game.outcome_from_bytes(data)
        assert outcome in [o for o, _ in game.chance_outcomes()]
