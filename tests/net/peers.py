"""Running a networked game as separate peer processes on distinct loopback addresses."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .conftest import peer_env

ENTRY = Path(__file__).with_name("_entry.py")


@dataclass
class PeerRun:
    """One finished peer process: exit code, output, and its result JSON (if written)."""

    address: str
    code: int
    out: str
    err: str
    result: dict[str, Any] | None
    log: Path


def _spawn(
    args: list[str], address: str, extra_env: dict[str, str] | None, workdir: Path, tag: str, netns: str | None
) -> subprocess.Popen[str]:
    """Start one peer process bound to ``address``; inside network namespace ``netns`` when given.

    ``ip netns exec`` execs the command in place, so the Popen pid is the peer itself (killable).
    """
    env = peer_env(address, netns=netns is not None) | (extra_env or {})
    prefix = ["ip", "netns", "exec", netns] if netns is not None else []
    # The child gets its own copies of the file descriptors; ours are closed when Popen returns.
    with open(workdir / f"{tag}.out", "w") as out, open(workdir / f"{tag}.err", "w") as err:
        return subprocess.Popen(
            [*prefix, sys.executable, str(ENTRY), *args], env=env, cwd=workdir, stdout=out, stderr=err, text=True
        )


def _wait_for_step(log: Path, step: int, proc: subprocess.Popen[str], deadline: float) -> None:
    """Wait until the saved log at ``log`` holds ``step`` steps (it is replaced atomically as the game goes)."""
    while True:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"{log} never reached step {step}")
        try:
            if len(json.loads(log.read_text())["steps"]) >= step:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)


def run_game(
    workdir: Path,
    addresses: list[str],
    *,
    players: int = 4,
    rounds: int = 30,
    timeout: float = 60.0,
    misbehave: dict[int, str] | None = None,
    join_by_name: bool = False,
    pins: dict[int, str] | None = None,
    lobby_timeout: float | None = None,
    namespaces: list[str] | None = None,
    crash: tuple[int, int] | None = None,
    crash_also: tuple[int, ...] = (),
    crash_all: int | None = None,
    rejoin_timeout: float = 60.0,
    restart: bool = True,
    extra: list[str] | None = None,
    host_extra: list[str] | None = None,
    joiner_extra: list[str] | None = None,
) -> list[PeerRun]:
    """Host on ``addresses[0]``, one joiner on each other address; wait for all (killed at ``timeout``).

    The host picks a random PIN and writes it to its ready file; joiners use it, except those that
    ``pins`` (joiner position 1.. -> PIN) gives another one. ``misbehave`` maps a peer's position
    (0: the host) to a ``LANOPOLY_TEST_MISBEHAVE`` value. ``lobby_timeout`` is how long the peers wait
    in the lobby (default: ``timeout``). ``namespaces[i]`` runs peer i inside that network namespace
    (separate hosts; its address must be that namespace's). ``crash=(i, k)`` kills peer i (SIGKILL)
    once its saved log holds k steps and starts ``lanopoly rejoin`` in its place, on its address;
    ``crash_also`` peers are killed at the same moment and rejoin likewise (several rejoining at once);
    ``crash_all=k`` kills every peer once the host's log holds k steps and restarts them all with
    ``lanopoly resume``. ``restart=False`` leaves the crashed peer dead. ``extra`` options go to
    every peer, ``host_extra`` to the host only, ``joiner_extra`` to the joiners only.
    """
    pins = pins or {}
    misbehave = misbehave or {}
    procs: list[subprocess.Popen[str]] = []
    ready = workdir / "ready.json"
    lobby = timeout if lobby_timeout is None else lobby_timeout
    common = ["--step-timeout", "10", "--timeout", str(lobby), "--report-dir", str(workdir)]
    common += ["--rejoin-timeout", str(rejoin_timeout), *(extra or [])]
    if crash is not None or crash_all is not None:  # the kill watches the saved log: keep it close behind
        common += ["--save-interval", "0.05"]
    table = f"test table {workdir.name}"
    host_args = ["host", "--name", "host", "--peers", str(len(addresses)), "--players", str(players)]
    host_args += ["--rounds", str(rounds), "--ready-file", str(ready), "--table", table]
    if not join_by_name:
        host_args.append("--no-advertise")
    deadline = time.monotonic() + timeout
    try:
        procs.append(
            _spawn(
                host_args + common + [*(host_extra or []), "--save", "p0.log.json", "--result", "p0.result.json"],
                addresses[0],
                {"LANOPOLY_TEST_MISBEHAVE": misbehave[0]} if 0 in misbehave else None,
                workdir,
                "p0",
                namespaces[0] if namespaces else None,
            )
        )
        while not ready.exists():
            if time.monotonic() > deadline or procs[0].poll() is not None:
                raise AssertionError(f"host never opened its lobby: {(workdir / 'p0.err').read_text()}")
            time.sleep(0.05)
        info = json.loads(ready.read_text())
        target = table if join_by_name else f"{info['host']}:{info['port']}"
        for i, address in enumerate(addresses[1:], 1):
            args = ["join", target, "--name", f"guest{i}", "--save", f"p{i}.log.json", "--result", f"p{i}.result.json"]
            args += ["--pin", pins.get(i, info["pin"])]
            env = {"LANOPOLY_TEST_MISBEHAVE": misbehave[i]} if i in misbehave else None
            args += joiner_extra or []
            procs.append(_spawn(args + common, address, env, workdir, f"p{i}", namespaces[i] if namespaces else None))
        if crash is not None:
            i, at = crash
            _wait_for_step(workdir / f"p{i}.log.json", at, procs[i], deadline)
            for k in (i, *crash_also):
                procs[k].kill()
            for k in (i, *crash_also):
                procs[k].wait(5)
        if crash is not None and restart:
            for i in (crash[0], *crash_also):
                args = ["rejoin", f"p{i}.log.json", "--result", f"p{i}.result.json", *common]
                procs[i] = _spawn(args, addresses[i], None, workdir, f"p{i}", namespaces[i] if namespaces else None)
        if crash_all is not None:
            _wait_for_step(workdir / "p0.log.json", crash_all, procs[0], deadline)
            for proc in procs:
                proc.kill()
            for i, proc in enumerate(procs):
                proc.wait(5)
                args = ["resume", f"p{i}.log.json", "--result", f"p{i}.result.json", *common]
                procs[i] = _spawn(args, addresses[i], None, workdir, f"p{i}", namespaces[i] if namespaces else None)
        for proc in procs:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
    runs = []
    for i, (proc, address) in enumerate(zip(procs, addresses, strict=True)):
        result_path = workdir / f"p{i}.result.json"
        runs.append(
            PeerRun(
                address=address,
                code=proc.returncode,
                out=(workdir / f"p{i}.out").read_text(),
                err=(workdir / f"p{i}.err").read_text(),
                result=json.loads(result_path.read_text()) if result_path.exists() else None,
                log=workdir / f"p{i}.log.json",
            )
        )
    return runs
