"""CPU time of one ``step`` of ``gymnasium.make_vec("lanopoly/Lanopoly-v1", num_envs=1024)``
(4 players, official rules, the learner playing its first legal action), with and without
``copy``, against heuristic and random bots: the median ``time.process_time_ns`` around each
step call only (user and system time, so page faults count), and the minor page faults per step.

CPU time because the machine is shared (wall clock moves with the load). Run it alternately
against another tree with ``PYTHONPATH=OTHER/python`` (same extension) to compare.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time

import gymnasium

import lanopoly.envs  # noqa: F401  (registers the environments)


def step_cpu(opponents: str, copy: bool, steps: int = 300) -> tuple[float, float]:
    """(median µs of CPU per step, minor page faults per step) after 20 warm-up steps."""
    envs = gymnasium.make_vec("lanopoly/Lanopoly-v1", num_envs=1024, opponents=opponents, copy=copy)
    _, info = envs.reset(seed=1)
    for _ in range(20):
        *_, info = envs.step(info["action_mask"].argmax(axis=1))
    spent = []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(steps):
        actions = info["action_mask"].argmax(axis=1)
        start = time.process_time_ns()
        *_, info = envs.step(actions)
        spent.append(time.process_time_ns() - start)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return statistics.median(spent) / 1000, faults / steps


def main() -> None:
    tag = sys.argv[1] if len(sys.argv) > 1 else ""
    for opponents in ("heuristic", "random"):
        for copy in (False, True):
            us, faults = step_cpu(opponents, copy)
            print(f"{tag}\t{opponents}\tcopy={copy}\t{us:.0f} us/step\t{faults:.1f} faults/step", flush=True)


if __name__ == "__main__":
    main()
