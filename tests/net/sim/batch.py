"""Running many simulated games: in a process pool, with a summary and every failing seed.

``python -m tests.net.sim.batch --games 1000000 --jobs 2`` is the soak (progress on stderr every
minute); ``--seed N`` replays one game verbosely; ``--traces FILE`` writes each game's trace digest
(``seed digest`` lines, ``trace.py``) to compare two versions of the code. The test suite runs
``run_batch`` too.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from .run import run_game

CHUNK = 50


@dataclass
class Summary:
    games: int = 0
    failures: list[str] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    behaviours: Counter[str] = field(default_factory=Counter)
    faulted: Counter[str] = field(default_factory=Counter)
    steps: int = 0
    traces: dict[int, str] = field(default_factory=dict)
    """seed -> the game's trace digest."""

    def add(self, other: Summary) -> None:
        self.games += other.games
        self.failures += other.failures
        self.outcomes += other.outcomes
        self.behaviours += other.behaviours
        self.faulted += other.faulted
        self.steps += other.steps
        self.traces.update(other.traces)

    def text(self) -> str:
        return (
            f"{self.games} games, {self.steps} steps, {len(self.failures)} failing; outcomes {dict(self.outcomes)};"
            f" cheaters {dict(sorted(self.behaviours.items()))}"
        )


def run_chunk(start: int, count: int, traces: bool = False) -> Summary:
    summary = Summary()
    for seed in range(start, start + count):
        report = run_game(seed, trace=traces)
        summary.games += 1
        summary.steps += report.steps
        if traces:
            summary.traces[seed] = report.trace
        summary.outcomes.update(set(report.outcomes.values()))
        if report.scenario.behaviour is not None:
            summary.behaviours[report.scenario.behaviour] += 1
        if not report.ok:
            summary.failures.append(report.text() + f"\nreplay: pytest tests/net/test_sim.py --sim-seed {seed}")
    return summary


def run_batch(start: int, games: int, jobs: int | None = None, progress: bool = False, traces: bool = False) -> Summary:
    """Games ``start`` to ``start + games - 1`` on ``jobs`` processes (default: every core), with
    each game's trace digest in ``Summary.traces`` if ``traces``."""
    jobs = jobs or os.cpu_count() or 1
    total = Summary()
    began = last = time.monotonic()
    chunks = [(s, min(CHUNK, start + games - s)) for s in range(start, start + games, CHUNK)]
    with ProcessPoolExecutor(jobs) as pool:
        for done in pool.map(run_chunk, *zip(*chunks, strict=True), [traces] * len(chunks)):
            total.add(done)
            if progress:  # a failure is told when found, so a soak stopped early keeps it
                for failure in done.failures:
                    print(f"FAILING {failure}\n", file=sys.stderr, flush=True)
            if progress and time.monotonic() - last >= 60:
                last = time.monotonic()
                rate = total.games / (last - began)
                print(f"{total.text()}; {rate:.0f} games/s", file=sys.stderr, flush=True)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--seed", type=int, default=None, help="replay one game verbosely")
    parser.add_argument("--traces", default=None, help="write 'seed digest' lines of every game to this file")
    args = parser.parse_args()
    if args.seed is not None:
        report = run_game(args.seed, verbose=True)
        return 0 if report.ok else 1
    began = time.monotonic()
    summary = run_batch(args.start, args.games, args.jobs or None, progress=True, traces=args.traces is not None)
    print(f"{summary.text()}; {time.monotonic() - began:.0f} s")
    if args.traces is not None:
        with open(args.traces, "w") as out:
            out.writelines(f"{seed} {digest}\n" for seed, digest in sorted(summary.traces.items()))
    for failure in summary.failures[:20]:
        print(failure, "\n")
    return 0 if not summary.failures else 1


if __name__ == "__main__":
    sys.exit(main())
