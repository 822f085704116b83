"""LAN play benchmark: step latency (p50, p99) and steps per second of full bot games over the network.

    python benches/bench_lan.py                      # 2, 4 and 8 peers, one full game each
    python benches/bench_lan.py --peers 4 --profile  # also profile the host peer (cProfile, top functions)
    python benches/bench_lan.py --in-turn-only       # bots never act out of turn (signed acks only)

Every peer is a separate process on its own loopback address (127.0.0.1xx), exactly as in a real
game: PIN handshake, encrypted links, signed actions, reveals, an ack from every peer on every
step. Joiners join by address (``--no-advertise``): no mDNS at all, and ``LANOPOLY_INTERFACES`` is
set to each peer's loopback address, so nothing is sent beyond loopback.

A step's latency is the wall time of one lockstep step on one peer, from its start to every peer's
ack agreeing (it includes the acting bot's choice and, at chance nodes, the reveal round); the
figures pool every peer's steps. Steps per second is the host's steps over its session time (the
lobby and the mesh setup are not counted). "CPU ms" is the CPU time one peer process spends per
step (session CPU time over steps, averaged over the peers): with more peers than cores, a step
cannot be faster than peers x CPU ms / cores. Speed is measured here, never asserted in tests.

The same file is the peer entry point (``--peer host|join ...``): it runs the real CLI with a
session that also records each step's duration to ``LANOPOLY_BENCH_TIMINGS``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SERVICE_TYPE = "_lanopoly-bench._tcp.local."
TIMINGS_ENV = "LANOPOLY_BENCH_TIMINGS"
PROFILE_ENV = "LANOPOLY_BENCH_PROFILE"
IN_TURN_ENV = "LANOPOLY_BENCH_IN_TURN_ONLY"


def peer_main(argv: list[str]) -> int:
    """Run one peer (the real CLI) with a session that times every step."""
    from lanopoly.net import cli
    from lanopoly.net.lockstep import LockstepSession, SessionResult

    class TimedSession(LockstepSession):
        """A lockstep session that records each step's wall time (perf_counter) and writes them at the end."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.times: list[float] = []

        def next_interjection(self) -> tuple[int, dict[str, Any]] | None:
            if os.environ.get(IN_TURN_ENV):
                return None  # --in-turn-only: the bots never act out of turn (signed acks, no interjections)
            return super().next_interjection()

        async def play_step(self) -> None:
            t = time.perf_counter()
            await super().play_step()
            self.times.append(time.perf_counter() - t)

        async def run(self) -> SessionResult:
            cpu = time.process_time()
            result = await super().run()
            cpu = time.process_time() - cpu
            data = {"me": self.me, "steps": result.step, "seconds": result.seconds, "cpu": cpu}
            Path(os.environ[TIMINGS_ENV]).write_text(json.dumps(data | {"times": self.times}))
            return result

    profile_path = os.environ.get(PROFILE_ENV)
    if not profile_path:
        return cli.main(argv, TimedSession)
    profiler = cProfile.Profile()
    code = profiler.runcall(cli.main, argv, TimedSession)
    profiler.dump_stats(profile_path)
    return code


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by the nearest-rank method."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def run_game(peers: int, players: int, rounds: int, workdir: Path, timeout: float, profile: bool) -> dict[str, Any]:
    """Play one game with ``peers`` processes on 127.0.0.101.. ; returns the pooled figures."""
    addresses = [f"127.0.0.{101 + i}" for i in range(peers)]
    procs: list[subprocess.Popen[bytes]] = []
    ready = workdir / "ready.json"
    ready.unlink(missing_ok=True)
    common = ["--step-timeout", "20", "--timeout", str(timeout), "--report-dir", str(workdir)]

    def spawn(i: int, args: list[str]) -> None:
        env = dict(os.environ)
        env |= {"LANOPOLY_INTERFACES": addresses[i], "LANOPOLY_SERVICE_TYPE": SERVICE_TYPE}
        env[TIMINGS_ENV] = str(workdir / f"t{i}.json")
        env.pop(PROFILE_ENV, None)
        if profile and i == 0:
            env[PROFILE_ENV] = str(workdir / "host.prof")
        with open(workdir / f"p{i}.err", "wb") as err:
            procs.append(
                subprocess.Popen(
                    [sys.executable, __file__, "--peer", *args, *common],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                )
            )

    deadline = time.monotonic() + timeout
    try:
        host = ["host", "--peers", str(peers), "--players", str(players), "--rounds", str(rounds)]
        spawn(0, [*host, "--no-advertise", "--ready-file", str(ready)])
        while not ready.exists():
            if time.monotonic() > deadline or procs[0].poll() is not None:
                raise RuntimeError(f"the host did not open its lobby: {(workdir / 'p0.err').read_text()}")
            time.sleep(0.05)
        time.sleep(0.05)
        info = json.loads(ready.read_text())
        for i in range(1, peers):
            spawn(i, ["join", f"{info['host']}:{info['port']}", "--pin", info["pin"], "--name", f"g{i}"])
        for proc in procs:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
    if any(p.returncode != 0 for p in procs):
        raise RuntimeError(f"a peer failed: {[p.returncode for p in procs]} {(workdir / 'p0.err').read_text()}")
    timings = [json.loads((workdir / f"t{i}.json").read_text()) for i in range(peers)]
    times = [t for peer in timings for t in peer["times"]]
    host_run = timings[0]
    cpu = sum(t["cpu"] for t in timings) / sum(t["steps"] for t in timings)
    return {
        "cpu_ms": 1000 * cpu,
        "peers": peers,
        "players": players,
        "steps": host_run["steps"],
        "p50_ms": 1000 * statistics.median(times),
        "p99_ms": 1000 * percentile(times, 0.99),
        "max_ms": 1000 * max(times),
        "steps_per_s": host_run["steps"] / host_run["seconds"],
        "seconds": host_run["seconds"],
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--peer":
        return peer_main(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", type=int, nargs="+", default=[2, 4, 8], help="peer counts (default 2 4 8)")
    parser.add_argument("--players", type=int, default=0, help="seats (default: max(4, peers))")
    parser.add_argument("--rounds", type=int, default=0, help="round limit (default 0: play to the end)")
    parser.add_argument("--repeat", type=int, default=1, help="games per peer count (figures pool them)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a game is killed")
    parser.add_argument("--profile", action="store_true", help="profile the host peer and print the top functions")
    parser.add_argument(
        "--in-turn-only", action="store_true", help="bots never act out of turn (to compare with in-turn-only play)"
    )
    args = parser.parse_args()
    if args.in_turn_only:
        os.environ[IN_TURN_ENV] = "1"  # inherited by every peer process
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}")
    heads = ("peers", "seats", "steps", "p50 ms", "p99 ms", "max ms", "steps/s", "CPU ms")
    print(" ".join(f"{h:>{w}}" for h, w in zip(heads, (5, 5, 6, 7, 7, 7, 8, 7), strict=True)))
    with tempfile.TemporaryDirectory(prefix="bench-lan-") as tmp:
        for peers in args.peers:
            players = args.players or max(4, peers)
            runs = []
            for r in range(args.repeat):
                workdir = Path(tmp) / f"{peers}-{r}"
                workdir.mkdir()
                runs.append(run_game(peers, players, args.rounds, workdir, args.timeout, args.profile))
            steps = sum(r["steps"] for r in runs)
            row = {
                "p50": statistics.median(r["p50_ms"] for r in runs),
                "p99": statistics.median(r["p99_ms"] for r in runs),
                "max": max(r["max_ms"] for r in runs),
                "sps": steps / sum(r["seconds"] for r in runs),
                "cpu": statistics.median(r["cpu_ms"] for r in runs),
            }
            print(
                f"{peers:>5} {players:>5} {steps:>6} {row['p50']:>7.2f} {row['p99']:>7.2f} "
                f"{row['max']:>7.1f} {row['sps']:>8.0f} {row['cpu']:>7.2f}",
                flush=True,
            )
            if args.profile:
                out = io.StringIO()
                stats = pstats.Stats(str(Path(tmp) / f"{peers}-{args.repeat - 1}" / "host.prof"), stream=out)
                stats.sort_stats("tottime").print_stats(20)
                print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
