"""The vectorized Gymnasium environment: made by ``gymnasium.make_vec``, its three autoreset
modes, per-game reset, masks in the info, illegal actions, pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from lanopoly import Rules
from lanopoly.rl import OBSERVATION_SIZE, VecGame

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")
from gymnasium.vector import AutoresetMode  # noqa: E402

from lanopoly.envs.vector_env import LanopolyVectorEnv  # noqa: E402

SHORT = Rules(round_limit=8)


def masked_actions(info: dict, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per game (0 for a game with none: an ended one waiting to restart)."""
    legal = [np.flatnonzero(row) for row in info["action_mask"]]
    return np.array([rng.choice(row) if len(row) else 0 for row in legal])


def test_make_vec_makes_the_rust_vector_env():
    envs = gymnasium.make_vec("lanopoly/Lanopoly-v1", num_envs=8, players=3, rules=SHORT)
    assert isinstance(envs.unwrapped, LanopolyVectorEnv) and envs.num_envs == 8
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert envs.spec is not None and envs.spec.id == "lanopoly/Lanopoly-v1"
    obs, info = envs.reset(seed=1)
    assert obs.shape == (8, OBSERVATION_SIZE) and envs.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (8, 255)
    actions = envs.action_space.sample()
    assert actions.shape == (8,)


def test_same_step_autoreset_gives_the_final_observation():
    """The final observation of an ended game is the row a VecGame without autoreset shows."""
    envs = LanopolyVectorEnv(6, players=3, rules=SHORT, opponents="random")
    twin = VecGame(6, players=3, rules=SHORT, seed=5, learner=0, opponents=["random"])
    twin.autoreset = False
    _, info = envs.reset(seed=5)  # a new batch seeded 5, as the twin
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(400):
        actions = masked_actions(info, rng)
        obs, rewards, terminated, truncated, info = envs.step(actions)
        twin_obs, _, _, twin_rewards, twin_terminated, twin_truncated = twin.step(actions)
        done = terminated | truncated
        assert np.array_equal(terminated, twin_terminated) and np.array_equal(truncated, twin_truncated)
        assert np.array_equal(rewards, twin_rewards[:, 0])
        if done.any():
            ended += int(done.sum())
            assert np.array_equal(info["_final_obs"], done)
            assert np.array_equal(info["final_obs"][done], twin_obs[done])
            assert not info["final_obs"][~done].any()
            twin.reset_games(done)
        assert np.array_equal(obs, twin.observe()[0])
    assert ended > 0


def test_next_step_autoreset_starts_an_ended_game_at_the_next_step():
    envs = LanopolyVectorEnv(4, players=2, rules=SHORT, autoreset_mode=AutoresetMode.NEXT_STEP)
    _, info = envs.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(2_000):
        _, _, terminated, truncated, info = envs.step(masked_actions(info, rng))
        done = terminated | truncated
        if done.any():
            break
    else:
        pytest.fail("no game ended")
    assert "final_obs" not in info
    actions = np.where(done, 254, masked_actions(info, rng))  # an ended game's action is ignored
    _, rewards, terminated, truncated, info = envs.step(actions)
    assert not (terminated | truncated)[done].any() and not rewards[done].any()
    assert not info["illegal_action"][done].any()


def test_disabled_autoreset_waits_for_a_reset_of_the_ended_games_only():
    envs = LanopolyVectorEnv(4, players=2, rules=SHORT, autoreset_mode="Disabled")  # by value, as Gymnasium names it
    _, info = envs.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(2_000):
        obs, _, terminated, truncated, info = envs.step(masked_actions(info, rng))
        if (terminated | truncated).any():
            break
    done = terminated | truncated
    with pytest.raises(gymnasium.error.ResetNeeded, match="have ended"):
        envs.step(masked_actions(info, rng))
    kept = obs[~done].copy()
    obs, info = envs.reset(options={"reset_mask": done})
    assert np.array_equal(obs[~done], kept), "the other games were left as they were"
    envs.step(masked_actions(info, rng))


def test_an_illegal_action_changes_nothing_and_costs_the_penalty():
    envs = LanopolyVectorEnv(3, players=2, rules=SHORT, copy=False)
    obs, info = envs.reset(seed=4)
    before = obs.copy()
    actions = masked_actions(info, np.random.default_rng(4))
    bad = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    actions[1] = bad
    obs, rewards, *_, info = envs.step(actions)
    assert info["illegal_action"].tolist() == [False, True, False]
    assert rewards[1] == pytest.approx(-0.01) and np.array_equal(obs[1], before[1])


def test_the_vector_env_pickles_and_resumes():
    envs = LanopolyVectorEnv(4, players=3, rules=SHORT)
    _, info = envs.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(50):
        *_, info = envs.step(masked_actions(info, rng))
    other = pickle.loads(pickle.dumps(envs))
    for _ in range(100):
        actions = masked_actions(info, rng)
        expected = envs.step(actions)
        got = other.step(actions)
        info = expected[4]
        assert all(np.array_equal(a, b) for a, b in zip(expected[:4], got[:4], strict=True))
