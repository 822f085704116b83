"""LAN play benchmark: step latency (p50, p99), steps per second and CPU per step, protocol 9.

    python benches/bench_lan.py                       # 2, 4 and 8 peers, one game each
    python benches/bench_lan.py --peers 4 --games 3   # three games of 4 peers
    python benches/bench_lan.py --peers 4 --profile   # also profile the host (cProfile, top functions)

``LANOPOLY_BENCH_CPU=1`` profiles CPU time (a send's wait for the core it gave the woken receiver is
then not counted), ``LANOPOLY_BENCH_SORT=cumulative`` sorts by cumulative time, and
``LANOPOLY_BENCH_TOP=90`` prints 90 lines.

Every peer is a separate process on its own loopback address (127.0.0.1xx), as in a real game:
the lobby's PIN handshake, links proven by start-record keys, encrypted frames, every message
signed and verified (Ed25519), a journal line before every signed message, an ack from every peer
on every step. Joiners join by address (no mDNS), and ``LANOPOLY_INTERFACES`` is each peer's own
loopback address, so nothing is sent beyond loopback.

A step's latency is the wall time between two steps applied on one peer (``StepApplied`` events of
the driver): deciding the step (the acting bot's choice, or every peer's reveal), applying it and
every peer's ack agreeing. The figures pool every peer's steps. Steps per second is the host's
steps over its game time (lobby and setup not counted); CPU ms is the CPU time a peer process
spends per step, averaged over the peers (in brackets, the part of it spent in the kernel): with
more peers than cores, a step cannot be faster than peers x CPU ms / cores. Speed is measured here,
never asserted in tests.

The same file is the peer entry point (``--peer ...``): the real CLI, with a subscriber that
timestamps every step applied and writes the times (and the process's CPU time) at the end.
"""

from __future__ import annotations

import argparse
import atexit
import cProfile
import io
import json
import os
import platform
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

TIMINGS_ENV = "LANOPOLY_BENCH_TIMINGS"
PROFILE_ENV = "LANOPOLY_BENCH_PROFILE"


def peer_main(argv: list[str]) -> int:
    """Run one peer (the real CLI), timestamping every step its driver applies."""
    from lanopoly.net import cli, driver
    from lanopoly.net.core import effects as fx

    times: list[float] = []
    cpu: list[float] = []
    run = driver.Driver.run

    def seen(event: fx.Event) -> None:
        if isinstance(event, fx.StepApplied):
            times.append(time.perf_counter())
            if not cpu:  # CPU used before the first step (imports, setup) is not counted
                t = resource.getrusage(resource.RUSAGE_SELF)
                cpu.extend((t.ru_utime, t.ru_stime))

    async def timed_run(self: driver.Driver, *args: Any, **kwargs: Any) -> Any:
        self.subscribe(seen)
        return await run(self, *args, **kwargs)

    driver.Driver.run = timed_run  # type: ignore[method-assign]

    def write() -> None:
        t = resource.getrusage(resource.RUSAGE_SELF)  # from the first step applied to the end
        user, system = (t.ru_utime - cpu[0], t.ru_stime - cpu[1]) if cpu else (0.0, 0.0)
        Path(os.environ[TIMINGS_ENV]).write_text(json.dumps({"times": times, "cpu": user + system, "sys": system}))

    atexit.register(write)
    profile_to = os.environ.get(PROFILE_ENV)
    if profile_to:
        profiler = cProfile.Profile(time.thread_time) if os.environ.get("LANOPOLY_BENCH_CPU") else cProfile.Profile()
        code = profiler.runcall(cli.main, argv)
        out = io.StringIO()
        top = int(os.environ.get("LANOPOLY_BENCH_TOP", "45"))
        pstats.Stats(profiler, stream=out).sort_stats(os.environ.get("LANOPOLY_BENCH_SORT", "tottime")).print_stats(top)
        Path(profile_to).write_text(out.getvalue())
        return int(code)
    return int(cli.main(argv))


class Peer:
    def __init__(self, args: list[str], address: str, workdir: Path, tag: str, profile: bool) -> None:
        env = dict(os.environ, LANOPOLY_INTERFACES=address, PYTHONUNBUFFERED="1")
        env[TIMINGS_ENV] = str(workdir / f"{tag}.times.json")
        if profile:
            env[PROFILE_ENV] = str(workdir / f"{tag}.profile.txt")
        self.timings = workdir / f"{tag}.times.json"
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--peer", *args],
            env=env,
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=open(workdir / f"{tag}.err", "w"),  # noqa: SIM115 (the child keeps it)
            text=True,
        )

    def line(self, start: str) -> str:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(start):
                return line
        raise RuntimeError(f"the peer ended before printing {start!r}")


def one_game(peers: int, rounds: int, workdir: Path, profile: bool) -> dict[str, Any]:
    common = ["--step-timeout", "30", "--timeout", "60", "--rounds", str(rounds)]
    addresses = [f"127.0.0.{101 + i}" for i in range(peers)]
    host = Peer(
        ["host", "--peers", str(peers), "--players", str(max(4, peers)), "--no-advertise", *common],
        addresses[0],
        workdir,
        "p0",
        profile,
    )
    where = host.line("lobby open at ").split()[3].rstrip(",")
    pin = host.line("game PIN: ").split()[2]
    joiners = [
        Peer(["join", where, "--pin", pin, "--name", f"j{i}", *common[:4]], a, workdir, f"p{i}", False)
        for i, a in enumerate(addresses[1:], 1)
    ]
    for peer in [host, *joiners]:
        assert peer.proc.stdout is not None
        peer.proc.stdout.read()
        peer.proc.wait(300)
    intervals: list[float] = []
    cpu_per_step: list[float] = []
    sys_per_step: list[float] = []
    host_rate = 0.0
    for i, peer in enumerate([host, *joiners]):
        data = json.loads(peer.timings.read_text())
        times = data["times"]
        steps = len(times)
        intervals += [b - a for a, b in pairwise(times)]
        if steps > 1:
            cpu_per_step.append(data["cpu"] / (steps - 1))
            sys_per_step.append(data["sys"] / (steps - 1))
        if i == 0 and steps > 1:
            host_rate = (steps - 1) / (times[-1] - times[0])
    intervals.sort()
    return {
        "peers": peers,
        "steps": len(json.loads(host.timings.read_text())["times"]),
        "p50_ms": 1000 * statistics.median(intervals),
        "p99_ms": 1000 * intervals[int(0.99 * (len(intervals) - 1))],
        "steps_per_s": host_rate,
        "cpu_ms_per_step": 1000 * statistics.mean(cpu_per_step),
        "sys_ms_per_step": 1000 * statistics.mean(sys_per_step),
        "profile": (workdir / "p0.profile.txt").read_text() if profile else "",
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--peer":
        return peer_main(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers", type=int, nargs="*", default=[2, 4, 8])
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"# {platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}, load {load[0]:.2f}")
    print("peers  steps   p50 ms   p99 ms   steps/s   CPU ms/step/peer (of it in the kernel)")
    for peers in args.peers:
        for _ in range(args.games):
            with tempfile.TemporaryDirectory() as folder:
                r = one_game(peers, args.rounds, Path(folder), args.profile)
            print(
                f"{r['peers']:>5}  {r['steps']:>5}  {r['p50_ms']:>7.2f}  {r['p99_ms']:>7.2f}  {r['steps_per_s']:>8.0f}"
                f"   {r['cpu_ms_per_step']:>6.2f} ({r['sys_ms_per_step']:.2f})"
            )
            if r["profile"]:
                print(r["profile"])
    print(f"# load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
