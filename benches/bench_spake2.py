"""What a SPAKE2 handshake costs one side: ``start()`` (the message a listener offers before any
reply) and ``start()`` + ``finish()`` (a whole side), as the lobby's PIN handshake runs them
(``net/core/pinauth.py``; ``spake2`` in symmetric mode, pure Python).

Run: python benches/bench_spake2.py   (figures go in benches/README.md and docs/lan.md).
CPU time of this process and wall time, each the best and the median of 7 repeats of 50 calls:
on a shared machine the best CPU time is the figure least disturbed by other work.
"""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable

from spake2 import SPAKE2_Symmetric  # type: ignore[import-untyped]

from lanopoly.net.core.pinauth import PAKE_CONTEXT

PIN = b"123456"
CONTEXT = PAKE_CONTEXT + bytes(16)
OTHER = SPAKE2_Symmetric(PIN, idSymmetric=CONTEXT).start()
NUMBER, REPEAT = 50, 7


def start_only() -> None:
    SPAKE2_Symmetric(PIN, idSymmetric=CONTEXT).start()


def one_side() -> None:
    side = SPAKE2_Symmetric(PIN, idSymmetric=CONTEXT)
    side.start()
    side.finish(OTHER)


def main() -> None:
    cases: list[tuple[str, Callable[[], None]]] = [("start()", start_only), ("start() + finish()", one_side)]
    for name, fn in cases:
        for clock_name, clock in (("CPU", time.process_time), ("wall", time.perf_counter)):
            runs = sorted(timeit.Timer(fn, timer=clock).repeat(repeat=REPEAT, number=NUMBER))
            best, median = runs[0] / NUMBER * 1e3, runs[REPEAT // 2] / NUMBER * 1e3
            print(f"{name:20} {clock_name:4}  best {best:6.2f} ms  median {median:6.2f} ms")


if __name__ == "__main__":
    main()
