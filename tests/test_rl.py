"""The learning interface: VecGame from Python (the adapters to learning frameworks are tested in
test_envs.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import lanopoly
from lanopoly import IllegalAction, Rules
from lanopoly.rl import ACTION_SIZE, OBSERVATION_LAYOUT, OBSERVATION_SIZE, VecGame, observation_slices

SHORT = Rules(round_limit=15)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)


def test_shapes_and_layout():
    v = VecGame(5, players=3, rules=SHORT, seed=1)
    obs, mask, player = v.reset()
    assert obs.shape == (5, OBSERVATION_SIZE) and obs.dtype == np.float32
    assert mask.shape == (5, ACTION_SIZE) and mask.dtype == np.bool_
    assert player.shape == (5,) and set(player.tolist()) <= {0, 1, 2}
    assert ACTION_SIZE == 255
    assert OBSERVATION_LAYOUT[0][1] == 0 and OBSERVATION_LAYOUT[-1][2] == OBSERVATION_SIZE
    players = observation_slices()["players"]
    # Slot 0 of "players" is the observer: present, not bankrupt, 1500 cash (scaled by 1/1000).
    assert obs[0, players][:3].tolist() == [1.0, 0.0, 1.5]
    assert mask.any(axis=1).all(), "every game has a legal action"


def test_games_run_to_the_end_with_zero_sum_rewards_and_reset():
    v = VecGame(4, players=3, rules=SHORT, seed=2)
    _, mask, _ = v.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(4000):
        obs, mask, _player, rewards, terminated, truncated = v.step(random_actions(mask, rng))
        for i in np.flatnonzero(terminated):
            finished += 1
            assert rewards[i].sum() == pytest.approx(0.0, abs=1e-6)
            assert rewards[i].max() == 1.0
        assert not truncated.any()
        assert np.isfinite(obs).all()
    assert finished > 0


def test_the_same_seed_and_actions_give_the_same_outputs():
    def run(seed: int) -> list[np.ndarray]:
        v = VecGame(3, players=4, rules=SHORT, seed=seed)
        _, mask, _ = v.reset()
        rng = np.random.default_rng(7)
        outs = []
        for _ in range(300):
            obs, mask, _player, _rewards, _, _ = v.step(random_actions(mask, rng))
            outs.append(obs.copy())
        return outs

    a, b = run(11), run(11)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def step_buffers(n: int, players: int) -> tuple[np.ndarray, ...]:
    """Arrays for ``VecGame.step(out=...)``, filled with junk that a step must overwrite."""
    return (
        np.full((n, OBSERVATION_SIZE), np.nan, dtype=np.float32),
        np.ones((n, ACTION_SIZE), dtype=np.bool_),
        np.full(n, 99, dtype=np.int8),
        np.full((n, players), 7.0, dtype=np.float32),
        np.ones(n, dtype=np.bool_),
        np.ones(n, dtype=np.bool_),
    )


def test_step_into_caller_arrays_gives_the_same_outputs():
    fresh = VecGame(4, players=3, rules=SHORT, seed=12)
    reused = VecGame(4, players=3, rules=SHORT, seed=12)
    _, mask, _ = fresh.reset()
    reused.reset()
    out = step_buffers(4, 3)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(1500):
        actions = random_actions(mask, rng)
        expected = fresh.step(actions)
        got = reused.step(actions, out=out)
        assert all(g is o for g, o in zip(got, out, strict=True)), "the caller's arrays come back"
        assert all(np.array_equal(e, g) for e, g in zip(expected, got, strict=True))
        ended += int(expected[4].sum())
        mask = expected[1]
    assert ended > 0, "rewards and terminations were exercised"


def test_step_out_arrays_are_checked():
    v = VecGame(2, players=2, seed=6)
    _, mask, _ = v.reset()
    actions = np.array([int(np.flatnonzero(row)[0]) for row in mask])
    out = list(step_buffers(2, 3))  # rewards for 3 players, not 2
    with pytest.raises(ValueError, match="out rewards has shape"):
        v.step(actions, out=tuple(out))
    out = list(step_buffers(2, 2))
    out[0] = out[0].astype(np.float64)
    with pytest.raises(TypeError):
        v.step(actions, out=tuple(out))
    out = list(step_buffers(2, 2))
    out[4] = out[5]  # the same array twice
    with pytest.raises(ValueError, match="distinct and writable"):
        v.step(actions, out=tuple(out))
    out = list(step_buffers(2, 2))
    out[0] = np.asfortranarray(np.zeros((2, OBSERVATION_SIZE), dtype=np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        v.step(actions, out=tuple(out))
    assert v.step(actions, out=step_buffers(2, 2))[2].shape == (2,)


def test_an_illegal_action_is_refused_clearly():
    v = VecGame(2, players=2, seed=3)
    _, mask, _ = v.reset()
    bad = int(np.flatnonzero(~mask[0])[0])
    with pytest.raises(IllegalAction, match="game 0: action"):
        v.step(np.array([bad, int(np.flatnonzero(mask[1])[0])]))
    with pytest.raises(ValueError, match="out of range"):
        v.step(np.array([-2, 0]))  # -1 leaves a game as it is


@pytest.mark.parametrize("threads", [1, 2])
def test_a_step_with_an_illegal_action_changes_nothing(threads):
    """Every action is checked before any game moves: a step refused for one game's action moves
    no game, so a game that would have ended (and auto-reset) in it keeps its end and rewards for
    the corrected step. A twin VecGame that only ever sees the corrected steps stays identical."""
    refused, twin = (VecGame(9, players=2, rules=SHORT, seed=13, threads=threads) for _ in range(2))
    _, mask, _ = refused.reset()
    twin.reset()
    out = step_buffers(9, 2)
    rng = np.random.default_rng(13)
    ended_after_a_refusal = 0
    for step in range(1500):
        actions = random_actions(mask, rng)
        if step % 3 == 0:
            bad = actions.copy()
            game = int(rng.integers(9))
            bad[game] = rng.choice(np.flatnonzero(~mask[game]))
            before = [refused.game(i).state_hash() for i in range(9)]
            junk = tuple(a.copy() for a in out)
            with pytest.raises(IllegalAction, match=f"game {game}: action"):
                refused.step(bad, out=out)
            assert [refused.game(i).state_hash() for i in range(9)] == before
            assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(junk, out, strict=True)), "out untouched"
        expected = twin.step(actions)
        got = refused.step(actions, out=out)
        assert all(np.array_equal(e, g) for e, g in zip(expected, got, strict=True))
        ended_after_a_refusal += int(expected[4].sum()) if step % 3 == 0 else 0
        mask = expected[1]
    assert ended_after_a_refusal > 0, "games ended in steps that followed a refusal"


def test_actions_may_be_a_list_or_any_integer_array_and_anything_else_is_refused():
    lists, int32s = VecGame(3, players=3, seed=8), VecGame(3, players=3, seed=8)
    _, mask, _ = lists.reset()
    int32s.reset()
    rng = np.random.default_rng(8)
    for _ in range(50):
        actions = random_actions(mask, rng)
        obs, mask, *_ = lists.step([int(a) for a in actions])
        assert np.array_equal(obs, int32s.step(actions.astype(np.int32))[0])
    for bad, given in [(np.zeros(3), "float64 of shape (3,)"), ([[0, 0, 0]], "int64 of shape (1, 3)"), ("0", "<U1")]:
        with pytest.raises(
            TypeError,
            match=re.escape(f"actions must be one integer per game (a list, or a 1-D integer array), not {given}"),
        ):
            lists.step(bad)


def test_opponents_play_inside_the_step():
    v = VecGame(3, players=4, rules=SHORT, seed=4, learner=2, opponents=["heuristic"])
    _, mask, player = v.reset()
    rng = np.random.default_rng(1)
    for _ in range(500):
        assert (player == 2).all(), "every step waits for the learner"
        _, mask, player, _rewards, _terminated, _ = v.step(random_actions(mask, rng))
    with pytest.raises(ValueError, match="unknown bot"):
        VecGame(1, learner=0, opponents=["grandmaster"])


def test_a_game_can_be_inspected():
    v = VecGame(1, players=2, seed=5)
    v.reset()
    game = v.game(0)
    assert isinstance(game, lanopoly.Game) and game.num_players == 2


def test_a_game_offers_the_integer_action_space():
    game = lanopoly.Game(2, seed=1)
    while game.is_chance_node:
        game.resolve_chance()
    seat = game.current_player
    mask = game.action_mask(seat)
    assert mask.shape == (ACTION_SIZE,) and mask[0], "roll (index 0) is legal"
    assert game.action_from_index(seat, 0) == {"type": "roll", "player": seat}
    assert game.observation(seat).shape == (OBSERVATION_SIZE,)
    with pytest.raises(ValueError, match="needs a VecGame"):
        game.action_from_index(seat, 212)  # start a trade draft with the next seat


def test_a_games_observation_is_a_vecgame_row_without_the_draft():
    """As documented: Game.observation and action_mask equal a VecGame's view but for the trade
    draft (the "draft" part of the observation, actions 211..255), which only a VecGame keeps."""
    v = VecGame(1, players=3, rules=SHORT, seed=14)
    _, mask, player = v.reset()
    rng = np.random.default_rng(14)
    draft = observation_slices()["draft"]
    differed = False
    for _ in range(400):
        game, seat = v.game(0), int(player[0])
        obs, row_mask = v.view(0, seat)
        rest = np.ones(OBSERVATION_SIZE, bool)
        rest[draft] = False
        assert np.array_equal(game.observation(seat)[rest], obs[rest])
        assert np.array_equal(game.action_mask(seat)[:211], row_mask[:211]) and not game.action_mask(seat)[211:].any()
        differed |= not np.array_equal(game.observation(seat)[draft], obs[draft])
        _, mask, player, *_ = v.step(random_actions(mask, rng))
    assert differed, "a draft was open at some point"


def test_two_threads_give_the_same_outputs_as_one():
    def run(threads: int) -> list[np.ndarray]:
        v = VecGame(6, players=3, rules=SHORT, seed=21, threads=threads)
        _, mask, _ = v.reset()
        rng = np.random.default_rng(5)
        outs = []
        for _ in range(200):
            obs, mask, _, rewards, _, _ = v.step(random_actions(mask, rng))
            outs.extend([obs.copy(), rewards.copy()])
        return outs

    one, two = run(1), run(2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    with pytest.raises(ValueError):
        VecGame(2, threads=0)


def test_every_action_has_a_name_that_says_what_it_does():
    from lanopoly.rl import ACTION_NAMES

    assert len(ACTION_NAMES) == ACTION_SIZE and len(set(ACTION_NAMES)) == ACTION_SIZE
    assert ACTION_NAMES[:3] == ["roll", "pay_jail_fine", "use_jail_card"]
    assert ACTION_NAMES[11:14] == ["bid:lowest", "bid:1/4_value", "bid:1/2_value"]
    assert ACTION_NAMES[211] == "draft_start:+0" and ACTION_NAMES[-1] == "draft_discard"
    # Every move a game offers has the index whose name is its type (and its square, if any).
    v = VecGame(2, players=3, rules=SHORT, seed=15)
    _, mask, player = v.reset()
    rng = np.random.default_rng(15)
    seen = set()
    for _ in range(300):
        game, seat = v.game(0), int(player[0])
        for index in np.flatnonzero(game.action_mask(seat)):
            move = game.action_from_index(seat, int(index))
            kind, _, what = ACTION_NAMES[index].partition(":")
            assert move["type"] == kind
            if "square" in move:
                assert what == str(move["square"])
            seen.add(kind)
        _, mask, player, *_ = v.step(random_actions(mask, rng))
    assert {"roll", "buy", "end_turn", "bid"} <= seen
