"""Simulations on a (local) Ray cluster give exactly the local run's results."""

from __future__ import annotations

import numpy as np
import pytest

import lanopoly
from lanopoly.cluster import parts_of

ray = pytest.importorskip("ray", reason="ray is not installed")


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray runtime with 2 CPUs (CI's machines have two), shut down after the module."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_parts_cover_every_game_once_in_order():
    for games, parts in [(10, 3), (3, 8), (1000, 8), (1, 1)]:
        slices = parts_of(games, parts)
        assert [first for first, _ in slices] == [sum(n for _, n in slices[:k]) for k in range(len(slices))]
        assert sum(n for _, n in slices) == games and all(n > 0 for _, n in slices)


def test_a_ray_run_equals_the_local_run(local_ray):
    kwargs = {"players": 4, "policies": ["heuristic", "random", "random", "random"], "seed": 17, "progress": False}
    local = lanopoly.simulate(300, rules=lanopoly.Rules(round_limit=60), **kwargs)
    remote = lanopoly.simulate(300, rules=lanopoly.Rules(round_limit=60), cluster="ray", **kwargs)
    for field in ("winners", "rounds", "turns", "actions", "bankruptcies", "net_worths", "truncated", "landings"):
        assert np.array_equal(getattr(local, field), getattr(remote, field)), field


def test_a_cluster_takes_built_in_bots_only():
    with pytest.raises(ValueError, match="only built-in bots"):
        lanopoly.simulate(2, policies=[lanopoly.SimpleBot(), "random"], players=2, cluster="ray")
    with pytest.raises(ValueError, match="clusters: 'ray'"):
        lanopoly.simulate(2, cluster="dask")
