"""The adapters to learning frameworks (Gymnasium, PettingZoo, OpenSpiel) pass their frameworks'
own checkers, keep their conventions, and are found by name once lanopoly is imported."""

from __future__ import annotations

import subprocess
import warnings

import numpy as np
import pytest

from conftest import PYTHON
from lanopoly import Rules

SHORT = Rules(round_limit=15)


# --- Gymnasium ------------------------------------------------------------------------------------


def test_gymnasium_env_passes_the_checker_made_by_name_with_rendering():
    gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("lanopoly/Lanopoly-v1", players=3, rules=SHORT, render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any complaint of the checker fails the test
        check_env(env.unwrapped)
    assert "round 0" in env.unwrapped.render()


def test_gymnasium_env_plays_to_the_end_and_refuses_a_step_after_it():
    gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    from lanopoly.envs.gymnasium_env import LanopolyEnv

    env = LanopolyEnv(players=3, rules=SHORT)
    _, info = env.reset(seed=3)
    total, done = 0.0, False
    while not done:
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and np.array_equal(mask, env.action_masks())
        action = env.action_space.sample(mask=mask)  # Gymnasium's masked sampling takes int8
        assert mask[action] == 1
        _, reward, terminated, truncated, info = env.step(action)
        assert not info["illegal_action"]
        total += reward
        done = terminated or truncated
    assert terminated and np.float32(total) in (np.float32(1.0), np.float32(-0.5))
    with pytest.raises(gymnasium.error.ResetNeeded, match="call reset"):
        env.step(0)
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_gymnasium_env_refuses_a_render_mode_it_does_not_offer():
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    from lanopoly.envs.gymnasium_env import LanopolyEnv

    with pytest.raises(ValueError, match=r"render_mode 'rgb_array' is not offered; render modes: \['ansi'\]"):
        LanopolyEnv(render_mode="rgb_array")
    assert LanopolyEnv(render_mode=None).render() is None


# --- registration by name -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("framework", "code"),
    [
        ("gymnasium", "import gymnasium; gymnasium.make('lanopoly/Lanopoly-v1', players=2).reset(seed=1)"),
        ("pyspiel", "import pyspiel; pyspiel.load_game('python_lanopoly').new_initial_state()"),
    ],
    ids=["gymnasium", "openspiel"],
)
@pytest.mark.parametrize("lanopoly_first", [True, False])
def test_import_lanopoly_registers_with_the_frameworks_in_either_order(framework, code, lanopoly_first):
    pytest.importorskip(framework, reason=f"{framework} is not installed")
    script = f"import lanopoly; {code}" if lanopoly_first else f"{code.split(';')[0]}; import lanopoly; {code}"
    subprocess.run([PYTHON, "-W", "error", "-c", script], check=True, capture_output=True)


def test_registration_waits_for_the_import_not_for_a_look_up():
    """``importlib.util.find_spec`` (a library asking whether Gymnasium is installed) imports
    nothing: the registration must still happen when Gymnasium is imported later."""
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    code = (
        "import importlib.util, lanopoly; importlib.util.find_spec('gymnasium'); "
        "import gymnasium; gymnasium.make('lanopoly/Lanopoly-v1', players=2)"
    )
    subprocess.run([PYTHON, "-W", "error", "-c", code], check=True, capture_output=True)


def test_import_lanopoly_imports_no_framework():
    code = "import sys, lanopoly; print(sorted({'gymnasium', 'pettingzoo', 'pyspiel'} & set(sys.modules)))"
    out = subprocess.run([PYTHON, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


# --- PettingZoo and OpenSpiel ---------------------------------------------------------------------


def test_pettingzoo_env_passes_the_api_and_render_tests():
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed")
    from pettingzoo.test import api_test, render_test

    from lanopoly.envs.pettingzoo_env import env

    api_test(env(players=3, rules=SHORT), num_cycles=300, verbose_progress=False)
    render_test(lambda render_mode=None: env(players=3, rules=SHORT, render_mode=render_mode))
    with pytest.raises(ValueError, match="render_mode 'rgb_array' is not offered"):
        env(render_mode="rgb_array")


def test_openspiel_game_passes_the_random_simulation_test_with_serialization():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")

    game = pyspiel.load_game("python_lanopoly", {"players": 3, "round_limit": 10})
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)


def play_aec(env, rng: np.random.Generator, seed: int | None) -> list[tuple]:
    """Play an AEC game to its end with random legal actions; what every agent saw at its turn."""
    env.reset(seed=seed)
    seen = []
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        seen.append((agent, obs["observation"].tobytes(), reward, action))
        env.step(action)
    return seen


def test_pettingzoo_reset_without_a_seed_plays_a_new_game_and_a_seeded_one_repeats():
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed")
    from lanopoly.envs.pettingzoo_env import env as make_env

    first, second = make_env(players=2, rules=SHORT), make_env(players=2, rules=SHORT)
    unseeded = [play_aec(e, np.random.default_rng(0), None) for e in (first, second)]
    assert unseeded[0] != unseeded[1], "two unseeded resets played the same game"
    seeded = [play_aec(e, np.random.default_rng(0), 9) for e in (first, second)]
    assert seeded[0] == seeded[1]
    # Without a seed, reset continues the stream the last seed started: still reproducible.
    assert play_aec(first, np.random.default_rng(0), None) == play_aec(second, np.random.default_rng(0), None)


def test_pettingzoo_agents_not_to_act_have_no_legal_action():
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed")
    from lanopoly.envs.pettingzoo_env import env as make_env

    env = make_env(players=3, rules=SHORT)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter(2_000):
        obs, _, termination, truncation, _ = env.last()
        for other in env.agents:
            assert env.observe(other)["action_mask"].any() == (other == agent and not (termination or truncation))
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_pettingzoo_bankrupt_agents_leave_at_once_with_their_loss():
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed")
    from lanopoly.envs.pettingzoo_env import raw_env

    env = raw_env(players=3)
    rng = np.random.default_rng(1)
    for seed in range(20):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        left_early = []
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            totals[agent] += reward  # what the agent earned since its last turn
            if termination or truncation:
                if len(env.agents) == 3 and env.terminations[agent] and not all(env.terminations.values()):
                    left_early.append(agent)
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert sorted(totals.values()) == [-0.5, -0.5, 1.0], totals
        if left_early:
            assert totals[left_early[0]] == -0.5
            return
    pytest.fail("no agent went bankrupt before the end of a game")


def test_pettingzoo_envs_pass_the_seed_tests():
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed")
    from pettingzoo.test import parallel_seed_test, seed_test

    from lanopoly.envs.pettingzoo_env import env, parallel_env

    seed_test(lambda: env(players=3, rules=SHORT), num_cycles=200)
    parallel_seed_test(lambda: parallel_env(players=3, rules=SHORT), num_cycles=200)


def test_pettingzoo_parallel_env_passes_the_parallel_api_test_and_plays_in_turn():
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed")
    from pettingzoo.test import parallel_api_test

    from lanopoly.envs.pettingzoo_env import parallel_env

    parallel_api_test(parallel_env(players=3, rules=SHORT), num_cycles=2_000)
    env = parallel_env(players=3, rules=SHORT)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        acting = [a for a in env.agents if obs[a]["action_mask"].any()]
        assert len(acting) == 1, "exactly one agent may act at a time"
        actions = {a: int(rng.integers(255)) for a in env.agents}  # the others' are ignored
        actions[acting[0]] = int(rng.choice(np.flatnonzero(obs[acting[0]]["action_mask"])))
        obs, rewards, *_ = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-6) and max(totals.values()) == 1.0


# --- learning out of the box: shaped rewards, no trading ------------------------------------------


def test_net_worth_share_is_the_learners_share_of_all_net_worth():
    from lanopoly.rl import VecGame, net_worth_share

    v = VecGame(2, players=3, rules=SHORT, seed=7, learner=1, opponents=["random"])
    _, mask, _ = v.reset()
    rng = np.random.default_rng(7)
    for _ in range(200):
        obs, mask, player, *_ = v.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
        for i in range(2):
            game = v.game(i)
            if game.is_over or player[i] != 1:
                continue
            worths = [game.net_worth(s) for s in range(3)]
            assert net_worth_share(obs[i]) == pytest.approx(worths[1] / sum(worths), rel=1e-5)


@pytest.mark.parametrize("vector", [False, True])
def test_shaped_rewards_add_up_to_the_end_reward_less_the_first_share(vector):
    """The shaping is a potential (the learner's share of net worth, 0 at the end): over an
    episode that ends it adds exactly minus the share at the learner's first decision."""
    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    from lanopoly.envs.gymnasium_env import LanopolyEnv
    from lanopoly.envs.vector_env import LanopolyVectorEnv
    from lanopoly.rl import net_worth_share

    rng = np.random.default_rng(8)
    kwargs = {"players": 4, "rules": SHORT, "opponents": "random", "reward_shaping": 2.0, "trading": False}
    env = LanopolyVectorEnv(1, **kwargs) if vector else LanopolyEnv(**kwargs)
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        first = float(np.sum(net_worth_share(obs)))
        total, done = 0.0, False
        while not done:
            mask = info["action_mask"]
            assert mask.shape[-1] == 211 and mask.any(), "no trade actions, and always something legal"
            action = rng.choice(np.flatnonzero(mask.reshape(-1)))
            _, reward, terminated, truncated, info = env.step(np.array([action]) if vector else action)
            total += float(np.sum(reward))
            done = bool(np.any(terminated) or np.any(truncated))
        assert bool(np.any(terminated))
        end = 1.0 if total > 0 else -1 / 3
        assert total == pytest.approx(end - 2.0 * first, abs=1e-4)
