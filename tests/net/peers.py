"""Running a LAN game as separate peer processes (``lanopoly host``/``join``/``rejoin``/``resume``).

Each peer is a real process on its own address (a loopback address, or a network namespace's);
the test waits on what the peers print (a reader thread per process turns stdout lines into a
queue), never on a timer: the host's "lobby open at HOST:PORT" line says where to join, and the
turn lines of ``-v`` say how far a peer got (to kill it at a given turn).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .conftest import peer_env

TURN = "-- "
"""How ``-v`` starts the line of each new turn."""


class Peer:
    """One peer process, its output lines as they come."""

    def __init__(self, args: list[str], address: str, workdir: Path, tag: str, netns: str | None = None) -> None:
        env = peer_env(address, netns=netns is not None)
        prefix = ["ip", "netns", "exec", netns] if netns is not None else []
        self.tag = tag
        self.err_path = workdir / f"{tag}.err"
        with open(self.err_path, "a") as err:
            self.proc = subprocess.Popen(
                [*prefix, sys.executable, "-m", "lanopoly", *args],
                env=env,
                cwd=workdir,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
            )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.out: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_line(self, start: str, timeout: float, count: int = 1) -> str:
        """The ``count``-th line starting with ``start`` (AssertionError if the peer ends or is too slow)."""
        seen = 0
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"{self.tag} printed no {start!r} within {timeout:g} s") from None
            if line is None:
                raise AssertionError(f"{self.tag} ended before printing {start!r}: {self.err_path.read_text()[-2000:]}")
            self.out.append(line)
            if line.startswith(start):
                seen += 1
                if seen == count:
                    return line

    def finish(self, timeout: float) -> int:
        code = self.proc.wait(timeout)
        while True:
            line = self.lines.get(timeout=5)
            if line is None:
                return code
            self.out.append(line)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(5)


@dataclass
class Outcome:
    code: int
    result: dict[str, Any]
    save: Path
    err: str


def common(workdir: Path, tag: str, timeout: float = 60) -> list[str]:
    return [
        "--save", f"{tag}.json", "--result", f"{tag}.result.json", "--step-timeout", "10",
        "--rejoin-timeout", "30", "--timeout", str(timeout), "--report-dir", str(workdir), "-v",
    ]  # fmt: skip


def host(workdir: Path, address: str, peers: int, *, players: int = 4, rounds: int = 8, advertise: bool = False,
         netns: str | None = None) -> tuple[Peer, str]:  # fmt: skip
    """Start the host; returns it and the "HOST:PORT" it opened its lobby at, and its PIN."""
    args = ["host", "--name", "host", "--peers", str(peers), "--players", str(players), "--rounds", str(rounds)]
    args += ["--table", f"test table {workdir.name}", *common(workdir, "p0")]
    if not advertise:
        args.append("--no-advertise")
    peer = Peer(args, address, workdir, "p0", netns)
    where = peer.wait_line("lobby open at ", 20).split()[3].rstrip(",")
    pin = peer.wait_line("game PIN: ", 5).split()[2]
    peer.target, peer.pin = where, pin  # type: ignore[attr-defined]
    return peer, where


def join(workdir: Path, address: str, index: int, target: str, pin: str, netns: str | None = None) -> Peer:
    args = ["join", target, "--name", f"guest{index}", "--pin", pin, *common(workdir, f"p{index}")]
    return Peer(args, address, workdir, f"p{index}", netns)


def outcome(workdir: Path, peer: Peer, index: int, timeout: float = 90) -> Outcome:
    code = peer.finish(timeout)
    path = workdir / f"p{index}.result.json"
    result = json.loads(path.read_text()) if path.exists() else {}
    return Outcome(code, result, workdir / f"p{index}.json", peer.err_path.read_text())
