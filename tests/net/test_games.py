"""A few smoke tests of LAN games between separate peer processes over real TCP (loopback).

Faults and cheaters are tested by the deterministic network simulation (``test_sim.py``) and by
the attacks on sockets (``test_attacks.py``); these check that the commands people run work end
to end: hosting, joining by address and by name (real mDNS), a peer killed (SIGKILL) and brought
back with ``lanopoly rejoin``, every peer killed and the game restarted with ``lanopoly resume``,
a peer stopped (SIGSTOP) past the step timeout and resumed (the driver's clock; the simulation
pauses cores, not drivers), and ``lanopoly verify`` on every saved game.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from .conftest import peer_env
from .peers import TURN, Outcome, Peer, common, host, join, outcome


def agreed(outcomes: list[Outcome]) -> None:
    for o in outcomes:
        assert o.code == 0, o.err[-3000:]
        assert o.result["outcome"] == "over" and o.result["faults"] == [], o.result
    assert len({o.result["state_hash"] for o in outcomes}) == 1
    for o in outcomes:
        verified = subprocess.run(
            [sys.executable, "-m", "lanopoly", "verify", str(o.save)],
            capture_output=True,
            text=True,
            timeout=60,
            env=peer_env("127.0.0.1"),
        )
        assert verified.returncode == 0 and "COMPLETE signed game" in verified.stdout, verified.stdout + verified.stderr


def test_three_peers_host_join_by_address_and_agree(tmp_path: Path) -> None:
    p0, where = host(tmp_path, "127.0.0.11", 3)
    peers = [p0] + [join(tmp_path, f"127.0.0.{11 + i}", i, where, p0.pin) for i in (1, 2)]  # type: ignore[attr-defined]
    agreed([outcome(tmp_path, p, i) for i, p in enumerate(peers)])


def test_two_peers_join_by_lobby_name_over_mdns(tmp_path: Path) -> None:
    p0, _ = host(tmp_path, "127.0.0.21", 2, advertise=True)
    p1 = join(tmp_path, "127.0.0.22", 1, f"test table {tmp_path.name}", p0.pin)  # type: ignore[attr-defined]
    p1.wait_line("joined the lobby of host key ", 30)
    assert any(p0.pin in line for line in p0.out)  # type: ignore[attr-defined]
    agreed([outcome(tmp_path, p0, 0), outcome(tmp_path, p1, 1)])


def test_a_killed_peer_rejoins_from_its_saved_game(tmp_path: Path) -> None:
    p0, where = host(tmp_path, "127.0.0.31", 3, rounds=10)
    p1 = join(tmp_path, "127.0.0.32", 1, where, p0.pin)  # type: ignore[attr-defined]
    p2 = join(tmp_path, "127.0.0.33", 2, where, p0.pin)  # type: ignore[attr-defined]
    p2.wait_line(TURN, 60, count=8)
    p2.kill()
    back = Peer(["rejoin", "p2.json", *common(tmp_path, "p2")], "127.0.0.33", tmp_path, "p2")
    back.wait_line("rejoin game ", 30)
    agreed([outcome(tmp_path, p0, 0), outcome(tmp_path, p1, 1), outcome(tmp_path, back, 2)])


def test_every_peer_killed_resumes_the_game(tmp_path: Path) -> None:
    p0, where = host(tmp_path, "127.0.0.41", 2, rounds=10)
    p1 = join(tmp_path, "127.0.0.42", 1, where, p0.pin)  # type: ignore[attr-defined]
    p1.wait_line(TURN, 60, count=8)
    p0.kill()
    p1.kill()
    back = [
        Peer(["resume", f"p{i}.json", *common(tmp_path, f"p{i}")], f"127.0.0.{41 + i}", tmp_path, f"p{i}")
        for i in (0, 1)
    ]
    agreed([outcome(tmp_path, p, i) for i, p in enumerate(back)])


def test_a_peer_stopped_past_the_step_timeout_follows_the_others_and_blames_nobody(tmp_path: Path) -> None:
    """``kill -STOP`` a joined peer until the others froze naming it (3 s step timeout), then
    ``kill -CONT``: it reads their freeze and follows it, naming nobody. (It froze at once instead,
    blaming an honest peer "silent for 8 s": its timer ran before what had arrived was read, and
    the time it had not run counted as the others' silence. Then, 1 run in 10, it found the others
    "dropped and did not come back": they had exited, its first write after it ran again was
    answered by a reset, and asyncio dropped their FREEZE that its kernel still held: ``streams.py``.)
    The peers log at info level (links lost and why) in ``p*.err``."""
    fast = ["--step-timeout", "3", "--log-level", "info"]
    args = ["host", "--name", "host", "--peers", "3", "--players", "3", "--rounds", "60", "--no-advertise"]
    p0 = Peer([*args, *common(tmp_path, "p0"), *fast], "127.0.0.51", tmp_path, "p0")
    where = p0.wait_line("lobby open at ", 20).split()[3].rstrip(",")
    pin = p0.wait_line("game PIN: ", 5).split()[2]
    joined = [
        Peer(
            ["join", where, "--name", f"guest{i}", "--pin", pin, *common(tmp_path, f"p{i}"), *fast],
            f"127.0.0.5{1 + i}",
            tmp_path,
            f"p{i}",
        )
        for i in (1, 2)
    ]
    p1, p2 = joined
    p1.wait_line(TURN, 60, count=8)
    os.kill(p1.proc.pid, signal.SIGSTOP)
    try:
        others = [outcome(tmp_path, p0, 0), outcome(tmp_path, p2, 2)]
    finally:
        os.kill(p1.proc.pid, signal.SIGCONT)
    stopped = outcome(tmp_path, p1, 1)
    # Each of the others named it silent, or followed the freeze of the one that did first.
    named = [o for o in others if o.result["freeze"]["blamed"] == [stopped.result["me"]]]
    assert named, [o.result["freeze"] for o in others]
    for o in others:
        freeze = o.result["freeze"]
        followed = freeze["cause"] == "remote" and "guest1" in freeze["reason"] and freeze["blamed"] == []
        assert o.code == 3 and (o in named or followed), freeze
    freeze = stopped.result["freeze"]
    assert stopped.code == 3 and freeze["cause"] == "remote" and "froze the session" in freeze["reason"], freeze
    assert stopped.result["faults"] == [] and freeze["blamed"] == [], stopped.result
