"""Benchmarks of the Python bindings: what a call costs from Python.

Run: python benches/bench_python.py   (after `pip install -e .`); figures go in benches/README.md.
``--vector``: only the vectorized Gymnasium environment (``gymnasium.make_vec``, 1024 games).
Each figure is the median of several repeats of a timed loop.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

import lanopoly
import lanopoly.rl


def median_ns(fn: Callable[[], object], number: int, repeat: int = 7) -> float:
    """Median over `repeat` runs of the time per call of `fn`, in nanoseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        for _ in range(number):
            fn()
        times.append((time.perf_counter_ns() - start) / number)
    return statistics.median(times)


def random_trace(seed: int) -> list[dict[str, object]]:
    """The inputs of one bot game (round limit 100), as dicts."""
    game = lanopoly.Game(4, rules=lanopoly.Rules(round_limit=100), seed=seed)
    bots = [lanopoly.SimpleBot() for _ in range(4)]
    inputs = []
    while not game.is_over:
        if game.is_chance_node:
            action = game.sample_chance()
        else:
            seat = game.current_player
            assert seat is not None
            action = bots[seat].choose(game, seat, game.legal_actions(seat))
        game.apply(action)
        inputs.append(action)
    return inputs


def vecgame_step_ns(n: int, out: bool, steps: int = 300, threads: int = 1) -> float:
    """Median time of one `VecGame.step` call on n 4-player games (official rules), each game
    playing its first legal action (cheap to pick), with fresh output arrays per call or the
    caller's (`out=`)."""
    v = lanopoly.rl.VecGame(n, players=4, seed=1, threads=threads)
    _, mask, _ = v.reset()
    buffers = v.step(mask.argmax(axis=1))
    mask = buffers[1]
    times = []
    for _ in range(7):
        start = time.perf_counter_ns()
        for _ in range(steps):
            mask = (v.step(mask.argmax(axis=1), out=buffers) if out else v.step(mask.argmax(axis=1)))[1]
        times.append((time.perf_counter_ns() - start) / steps)
    return statistics.median(times)


def vector_env_step_ns(num_envs: int, copy: bool, opponents: str, steps: int = 100) -> float:
    """Median time of one step of ``gymnasium.make_vec("lanopoly/Lanopoly-v1", num_envs)``
    (4 players, official rules, the learner against ``opponents``), the learner playing its
    first legal action; only the ``step`` calls are timed (not the choice of actions)."""
    import gymnasium

    envs = gymnasium.make_vec("lanopoly/Lanopoly-v1", num_envs=num_envs, opponents=opponents, copy=copy)
    _, info = envs.reset(seed=1)
    times = []
    for _ in range(7):
        spent = 0
        for _ in range(steps):
            actions = info["action_mask"].argmax(axis=1)
            start = time.perf_counter_ns()
            *_, info = envs.step(actions)
            spent += time.perf_counter_ns() - start
        times.append(spent / steps)
    return statistics.median(times)


def learner_vecgame_step_ns(num_envs: int, opponents: str, steps: int = 100) -> float:
    """Median time of one ``VecGame.step(out=...)`` of the same games as ``vector_env_step_ns``:
    the Rust step alone, without the Gymnasium wrapper."""
    v = lanopoly.rl.VecGame(num_envs, players=4, seed=1, learner=0, opponents=[opponents])
    _, mask, _ = v.reset()
    buffers = v.step(mask.argmax(axis=1))
    mask = buffers[1]
    times = []
    for _ in range(7):
        spent = 0
        for _ in range(steps):
            actions = mask.argmax(axis=1)
            start = time.perf_counter_ns()
            mask = v.step(actions, out=buffers)[1]
            spent += time.perf_counter_ns() - start
        times.append(spent / steps)
    return statistics.median(times)


def main() -> None:
    if "--vector" in sys.argv:
        for opponents in ("random", "heuristic"):
            ns = learner_vecgame_step_ns(1024, opponents)
            print(
                f"VecGame(1024, learner=0).step(out=), opponents {opponents}: {ns / 1000:8.1f} us/step "
                f"({1024 / ns * 1e3:5.2f} M steps/s)"
            )
            for copy in (False, True):
                ns = vector_env_step_ns(1024, copy, opponents)
                print(
                    f"make_vec(num_envs=1024), opponents {opponents}, copy={copy}: {ns / 1000:8.1f} us/step "
                    f"({1024 / ns * 1e3:5.2f} M steps/s)"
                )
        return
    trace = random_trace(1)
    rules = lanopoly.Rules(round_limit=100)

    def replay() -> None:
        game = lanopoly.Game(4, rules=rules, seed=0)
        for action in trace:
            game.apply(action)

    per_game = median_ns(replay, 3)
    print(f"apply() from Python, dict in, events out: {per_game / len(trace):8.0f} ns/step ({len(trace)} steps)")

    mid = lanopoly.Game(4, rules=rules, seed=0)
    for action in trace[: len(trace) // 2]:
        mid.apply(action)
    seat = mid.current_player if mid.current_player is not None and mid.current_player >= 0 else 0
    print(f"legal_actions(seat):                        {median_ns(lambda: mid.legal_actions(seat), 2000):8.0f} ns")
    print(f"state_hash():                               {median_ns(mid.state_hash, 20000):8.0f} ns")
    print(f"clone():                                    {median_ns(mid.clone, 20000):8.0f} ns")
    print(f"snapshot():                                 {median_ns(mid.snapshot, 2000):8.0f} ns")

    for n in (64, 256):
        for threads in (1, 2):
            fresh = vecgame_step_ns(n, out=False, threads=threads)
            reused = vecgame_step_ns(n, out=True, threads=threads)
            print(
                f"VecGame({n}).step, {threads} thread(s): new arrays {fresh / 1000:7.1f} us "
                f"({n / fresh * 1e3:5.2f} M steps/s), out= {reused / 1000:7.1f} us ({n / reused * 1e3:5.2f} M steps/s)"
            )

    start = time.perf_counter()
    games = 5
    for seed in range(games):
        random_trace(100 + seed)
    per_game_s = (time.perf_counter() - start) / games
    print(f"full SimpleBot game in Python (4 players):  {per_game_s * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
