"""Listener shedding benchmark: what refusing or evicting a connection costs the listener, and how
long an honest handshake takes meanwhile.

    python benches/bench_listener.py                     # both floods, 5 s each
    python benches/bench_listener.py --mode evict --seconds 10

An attacker process floods the listener on loopback. ``refuse``: it reconnects in a loop from one
address, so beyond that address's slots and start rate every connection is refused at once.
``evict``: it connects from ~4000 addresses in turn and leaves every connection idle, so every
connection starts a handshake and evicts the oldest one. Meanwhile the listener's process runs an
honest handshake (one frame each way) from its own address every 20 ms. Reported: connections the
listener accepted per second, its process CPU time per connection (the cost of shedding one, what
bounds the rate one core sheds), what it did with them, and the honest handshakes' latency.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import socket
import statistics
import struct
import subprocess
import sys
import time
from typing import Any

from lanopoly.net import wire
from lanopoly.net.listener import Listener

SERVER = "127.0.0.1"
HONEST = [f"127.0.2.{i}" for i in range(1, 255)]
"""The honest joiner's addresses, in turn: one of them joining every 20 ms would hit its start rate."""
CAP = 64
HELD = 2000
"""Idle connections the ``evict`` attacker keeps open (the listener evicted them long before)."""


def attack(mode: str, port: int, seconds: float, index: int) -> None:
    """The flood, with blocking sockets (closing with a reset: no TIME_WAIT on the attacker's side)."""
    if mode == "refuse":
        sources = [f"127.0.3.{1 + index}"]
    else:
        sources = [f"127.{1 + index}.{i // 254}.{1 + i % 254}" for i in range(16 * 254)]
    held: collections.deque[socket.socket] = collections.deque()
    connects = errors = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        try:
            sock.bind((sources[connects % len(sources)], 0))
            sock.connect((SERVER, port))
        except OSError:
            sock.close()
            errors += 1
            continue
        connects += 1
        held.append(sock)
        if len(held) > (4 if mode == "refuse" else HELD):
            held.popleft().close()
    for sock in held:
        sock.close()
    print(json.dumps({"connects": connects, "errors": errors}))


async def handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> asyncio.StreamWriter:
    (length,) = wire.HEADER.unpack(await reader.readexactly(wire.HEADER.size))
    if not 0 < length <= CAP:
        raise wire.WireError(f"frame of {length} bytes")
    message = wire.unpack(await reader.readexactly(length))
    writer.write(wire.frame(wire.pack(["welcome", *message[1:]]), CAP))
    await writer.drain()
    return writer


async def honest_join(port: int, source: str) -> float:
    began = time.perf_counter()
    reader, writer = await asyncio.open_connection(SERVER, port, local_addr=(source, 0))
    try:
        writer.write(wire.frame(wire.pack(["hello", "honest"]), CAP))
        await reader.readexactly(wire.HEADER.size)
    finally:
        writer.close()
    return time.perf_counter() - began


async def honest_joins(port: int, until: asyncio.Future[Any]) -> tuple[list[float], dict[str, int]]:
    """Honest handshakes every 20 ms until ``until`` is done: their latencies, and why some failed."""
    latencies: list[float] = []
    failures: collections.Counter[str] = collections.Counter()
    while not until.done():
        try:
            latencies.append(await asyncio.wait_for(honest_join(port, HONEST[len(latencies) % len(HONEST)]), 2.0))
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as e:
            failures[type(e).__name__] += 1
        await asyncio.wait([until], timeout=0.02)
    return latencies, failures


async def flood(mode: str, seconds: float, attackers: int) -> dict[str, Any]:
    listener: Listener[asyncio.StreamWriter] = Listener(handshake, lambda writer: writer.close())
    port = await listener.start(SERVER)
    loop = asyncio.get_running_loop()
    quiet = loop.create_task(asyncio.sleep(1.0))  # the honest joins alone: the CPU they cost
    cpu = time.process_time()
    await honest_joins(port, quiet)
    baseline = (time.process_time() - cpu) / 1.0
    joins_before = listener.stats.completed
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--attacker",
            mode,
            "--port",
            str(port),
            "--seconds",
            str(seconds),
            "--index",
            str(i),
            stdout=subprocess.PIPE,
        )
        for i in range(attackers)
    ]
    done = asyncio.gather(*(p.communicate() for p in processes))
    cpu, wall, accepted = time.process_time(), time.perf_counter(), listener.stats.accepted
    latencies, failures = await honest_joins(port, done)
    cpu, wall, accepted = time.process_time() - cpu, time.perf_counter() - wall, listener.stats.accepted - accepted
    await listener.close()
    stats = listener.stats
    return {
        "mode": mode,
        "attackers": [json.loads(out) for out, _ in done.result()],
        "accepted_per_s": round(accepted / wall),
        "cpu_share": round(cpu / wall, 2),
        "cpu_us_per_connection": round((cpu - baseline * wall) / max(accepted, 1) * 1e6, 1),
        "completed": stats.completed - joins_before,
        "refused": stats.refused,
        "evicted": stats.evicted,
        "timed_out": stats.timed_out,
        "failed": stats.failed,
        "honest": {
            "joins": len(latencies),
            "failures": dict(failures),
            "p50_ms": round(statistics.median(latencies) * 1e3, 2) if latencies else None,
            "max_ms": round(max(latencies) * 1e3, 2) if latencies else None,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mode", choices=["refuse", "evict", "both"], default="both")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--attackers", type=int, default=2, help="attacker processes")
    parser.add_argument("--attacker", choices=["refuse", "evict"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attacker:
        attack(args.attacker, args.port, args.seconds, args.index)
        return
    for mode in ["refuse", "evict"] if args.mode == "both" else [args.mode]:
        print(json.dumps(asyncio.run(flood(mode, args.seconds, args.attackers))))


if __name__ == "__main__":
    main()
