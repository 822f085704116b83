"""examples/rllib_multiagent.py: its environment is lanopoly's parallel one in the form RLlib's
action-masking models read, and, where RLlib and a deep-learning framework are installed, the
example trains.

RLlib's own dependencies (dm-tree, and torch or TensorFlow: a gigabyte or more) are not among the
test extras, so the training run is skipped without them; the guide records a full run.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from lanopoly import Rules
from lanopoly.envs.pettingzoo_env import ParallelLanopolyEnv

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "rllib_multiagent.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    pytest.importorskip("pettingzoo")
    spec = importlib.util.spec_from_file_location("rllib_multiagent_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_masked_observation_is_the_lanopoly_one_renamed_with_a_float_mask(example: ModuleType) -> None:
    """The wrapper changes the observations' form only: same vectors, same masks (as float32, which
    RLlib's masking models take the log of), same agents, rewards and ends, in the wrapper's space."""
    env = example.MaskedObservations(ParallelLanopolyEnv(players=3, rules=Rules(round_limit=4)))
    plain = ParallelLanopolyEnv(players=3, rules=Rules(round_limit=4))
    rng = np.random.default_rng(0)
    masked, _ = env.reset(seed=5)
    expected, _ = plain.reset(seed=5)
    for _ in range(5_000):
        assert masked.keys() == expected.keys()
        for agent, obs in masked.items():
            assert env.observation_space(agent).contains(obs)
            assert obs["action_mask"].dtype == np.float32
            np.testing.assert_array_equal(obs["observations"], expected[agent]["observation"])
            np.testing.assert_array_equal(obs["action_mask"], expected[agent]["action_mask"])
        if not env.agents:
            break
        acting = next(a for a in env.agents if masked[a]["action_mask"].any())
        actions = {a: int(rng.choice(np.flatnonzero(masked[acting]["action_mask"]))) for a in env.agents}
        masked, rewards, terminated, truncated, _ = env.step(actions)
        expected, *same = plain.step(actions)
        assert [rewards, terminated, truncated] == same[:3]
    assert not env.agents, "the game ended (round limit 4)"


def test_seat_0_is_the_learner_and_the_others_the_opponent(example: ModuleType) -> None:
    assert example.policy_of("player_0") == example.LEARNER
    assert {example.policy_of(f"player_{i}", None) for i in (1, 2, 3)} == {example.OPPONENT}


def _framework() -> str | None:
    """The framework the example can train with here, if RLlib runs at all."""
    if importlib.util.find_spec("ray") is None or importlib.util.find_spec("tree") is None:
        return None  # RLlib imports dm-tree ("tree") at once
    try:
        import ray.rllib  # noqa: F401
    except ImportError:  # another of RLlib's extras missing
        return None
    if importlib.util.find_spec("torch") is not None:
        return "torch"
    if importlib.util.find_spec("tensorflow") is not None:
        return "tf2"
    return None


@pytest.mark.skipif(_framework() is None, reason="RLlib with torch or TensorFlow is not installed")
def test_the_example_trains_an_iteration_under_rllib(tmp_path: Path) -> None:
    framework = _framework()
    assert framework is not None
    env = {**os.environ, "RAY_DEDUP_LOGS": "0", "TF_CPP_MIN_LOG_LEVEL": "3"}
    command = [sys.executable, str(SCRIPT), "--framework", framework, "--iterations", "1", "--batch", "400"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env, cwd=tmp_path, check=False)
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert "iteration 1: learner return" in run.stdout, run.stdout + run.stderr[-4000:]
