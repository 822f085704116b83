"""examples/reinforce.py learns: a short run (fixed seeds) beats its untrained policy.

The guide documents the example with the win rates of a run of minutes; here a run of seconds
with a higher learning rate, on the same code. With learning off (``lr=0``) the trained policy is
the untrained one and the assertion fails: the margin is what training gives, not luck.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "reinforce.py"


@pytest.fixture(scope="module")
def reinforce() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reinforce_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


ROUNDS = 30
"""A short round limit (the richest wins then): shorter games, so more updates and a quick evaluation."""


def short_run(reinforce: ModuleType, lr: float) -> tuple[float, float]:
    """Win rates (trained, untrained) against 3 random bots after 20k learner steps."""
    untrained, trained = reinforce.train(
        20_000, seed=1, envs=16, batch=4, lr=lr, round_limit=ROUNDS, log=lambda line: None
    )
    games = 64
    return (
        reinforce.evaluate(trained.act, "random", games, ROUNDS),
        reinforce.evaluate(untrained.act, "random", games, ROUNDS),
    )


def test_a_short_run_wins_far_more_often_than_the_untrained_policy(reinforce: ModuleType) -> None:
    trained, untrained = short_run(reinforce, lr=0.1)
    # Measured: 30% against 5% (the untrained policy, about uniform, mortgages and declares
    # bankruptcy at random); lr=0 gives 5% against 5%.
    assert trained >= untrained + 0.15, (trained, untrained)


def test_the_policy_only_plays_legal_actions_and_samples_by_its_probabilities(reinforce: ModuleType) -> None:
    from lanopoly.rl import VecGame

    obs, mask, _ = VecGame(16, seed=2, learner=0, opponents=["random"]).reset()
    policy = reinforce.Policy.initial(3, scale=0.5)
    p = policy.probabilities(obs, mask)
    assert np.allclose(p.sum(axis=1), 1.0) and not p[~mask[:, : reinforce.ACTIONS]].any()
    dense = np.where(mask[:, : reinforce.ACTIONS], reinforce.features(obs) @ policy.weights + policy.bias, -np.inf)
    assert np.allclose(
        p,
        np.exp(dense - dense.max(axis=1, keepdims=True))
        / np.exp(dense - dense.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True),
        atol=1e-5,
    )  # the sparse product is the matrix product
    rng = np.random.default_rng(0)
    draws = np.stack([reinforce.sample(p, rng) for _ in range(2000)])
    assert mask[np.arange(16), draws].all()
    first = draws[:, 0]
    for action in np.flatnonzero(p[0] > 0.05):
        assert abs((first == action).mean() - p[0, action]) < 0.05


def test_the_command_runs_and_prints_the_evaluation() -> None:
    command = [sys.executable, str(SCRIPT), "--steps", "2000", "--seed", "1", "--eval-games", "4", "--round-limit", "5"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True).stdout
    assert "vs 3 random" in out and "vs 3 heuristic" in out
    assert [line.split()[0] for line in out.splitlines()[-3:]] == ["trained", "untrained", "uniform"]
