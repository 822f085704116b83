"""LAN play's CPU cost per step, every peer in one process; and what one save of a long game costs.

    python benches/bench_lan_cpu.py                    # 4 peers, 3 games of 15 rounds
    python benches/bench_lan_cpu.py --peers 2 4 8 --games 5
    python benches/bench_lan_cpu.py --profile          # cProfile of one game, top functions

The game is the real stack (the lobby's handshakes, links proven by start-record keys, encrypted
frames, Ed25519 on every message, journals and saves to files), but its peers share one process,
so no peer ever waits for a core another peer holds: the figure is the protocol's CPU per step and
peer, free of the scheduling noise of ``bench_lan.py`` (whose latency, on 2 cores with 4 peer
processes, is bounded by peers x this figure / cores). The save figure is one save of a game of
``--save-steps`` steps, as the driver does every half second while a game changes.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.net.inproc import drivers, set_up

from lanopoly.net import protocol as p8
from lanopoly.net.core.record import Record
from lanopoly.net.keys import Ed25519Signer
from lanopoly.net.play import play
from lanopoly.net.store import save_text


async def one_game(peers: int, rounds: int, profiler: cProfile.Profile | None) -> tuple[float, int]:
    """CPU ms per step and peer of one game (setup not counted), and its steps."""
    started = await set_up(peers, rounds=rounds)
    with tempfile.TemporaryDirectory() as folder:
        ds = drivers(started, Path(folder))
        if profiler is not None:
            profiler.enable()
        begin = time.process_time()
        await asyncio.gather(*(play(d, s) for d, s in zip(ds, started, strict=True)))
        used = time.process_time() - begin
        if profiler is not None:
            profiler.disable()
    steps = ds[0].core.game.step
    return 1000 * used / steps / peers, steps


def one_save(steps: int) -> float:
    """Milliseconds of one save (record to text, spliced into the log) of a ``steps``-step game."""

    class Start:
        def to_json(self) -> dict[str, str]:
            return {"start": "-"}

    key = Ed25519Signer()
    moves = [p8.sign_action(key, bytes(16), i, 0, bytes(32), 0, {"type": "roll", "player": 0}) for i in range(64)]
    record = Record(Start(), 0)  # type: ignore[arg-type,unused-ignore]
    for i in range(steps):
        record.add_step(p8.StepRecord(i + 1, tuple(moves[(i + k) % 64] for k in range(3 if i % 3 == 0 else 1))))
    log_json = json.dumps({"inputs": [{"type": "roll", "player": 0}] * steps})
    times = []
    for _ in range(7):
        begin = time.perf_counter()
        save_text(log_json, record.to_text())
        times.append(time.perf_counter() - begin)
    return 1000 * statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers", type=int, nargs="*", default=[4])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--save-steps", type=int, default=3000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("LANOPOLY_INTERFACES", "127.0.0.1")
    machine = f"{platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}"
    print(f"# {machine}, load {os.getloadavg()[0]:.2f}")
    print("peers  games  steps (median)  CPU ms/step/peer: median (min)")
    for peers in args.peers:
        profiler = cProfile.Profile() if args.profile else None
        results = [asyncio.run(one_game(peers, args.rounds, profiler)) for _ in range(args.games)]
        cpu = [c for c, _ in results]
        steps = statistics.median(s for _, s in results)
        print(f"{peers:>5}  {args.games:>5}  {steps:>14.0f}  {statistics.median(cpu):>8.3f} ({min(cpu):.3f})")
        if profiler is not None:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    print(f"one save of a {args.save_steps}-step game: {one_save(args.save_steps):.1f} ms (median of 7)")
    print(f"# load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
