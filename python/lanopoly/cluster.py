"""Simulations on a Ray cluster: the games of ``lanopoly.simulate(..., cluster="ray")`` split by
game index into Ray tasks.

Game ``i`` of a run is seeded from the run's seed and ``i`` alone, so a task that plays games
``first..first + n`` (``_core.simulate(n, ..., first_game=first)``) plays exactly the games the
local run would, wherever it runs; the parts come back in index order and are merged as the
local run merges its chunks. The result is the local run's, bit for bit.

Ray is not a dependency of lanopoly: ``pip install ray``. A Ray runtime already started in the
process (``ray.init(address=...)``) is used as it is; otherwise ``ray.init()`` starts or joins
one as Ray decides (``RAY_ADDRESS``). Only built-in bots (names or specs) run on a cluster.
"""

from __future__ import annotations

from collections.abc import Callable

from lanopoly import _core
from lanopoly._core import Rules
from lanopoly.types import RawSimulation

TASKS_PER_CPU = 4
"""Parts per CPU of the cluster: enough that a slow node does not hold the run up for long."""


def parts_of(games: int, parts: int) -> list[tuple[int, int]]:
    """(first game, count) of ``parts`` contiguous, nearly equal slices of ``games`` games."""
    parts = max(1, min(parts, games))
    bounds = [games * k // parts for k in range(parts + 1)]
    return [(bounds[k], bounds[k + 1] - bounds[k]) for k in range(parts) if bounds[k + 1] > bounds[k]]


def play_part(
    games: int,
    players: int,
    board: str,
    rules: Rules | None,
    bots: list[str],
    seed: int,
    threads: int,
    max_inputs: int,
    first_game: int,
) -> RawSimulation:
    """One part of a run, in a Ray worker: ``_core.simulate`` (Ray wraps Python functions only)."""
    return _core.simulate(games, players, board, rules, bots, seed, threads, max_inputs, first_game)


def simulate_on_ray(
    games: int,
    players: int,
    board: str,
    rules: Rules | None,
    bots: list[str],
    seed: int,
    max_inputs: int,
    done: Callable[[RawSimulation], None],
) -> None:
    """Play the games as Ray tasks (one thread each) and hand each part's raw result to ``done``,
    in game order."""
    import ray

    if not ray.is_initialized():
        ray.init()
    resources: dict[str, float] = ray.cluster_resources()
    cpus = int(resources.get("CPU", 1))
    play = ray.remote(num_cpus=1)(play_part)
    pending = [
        play.remote(n, players, board, rules, bots, seed, 1, max_inputs, first)
        for first, n in parts_of(games, cpus * TASKS_PER_CPU)
    ]
    for part in pending:
        done(ray.get(part))
