"""A few smoke tests of LAN games between separate peer processes over real TCP (loopback).

Faults and cheaters are tested by the deterministic network simulation (``test_sim.py``) and by
the attacks on sockets (``test_attacks.py``); these check that the commands people run work end
to end: hosting, joining by address and by name (real mDNS), a peer killed (SIGKILL) and brought
back with ``lanopoly rejoin``, every peer killed and the game restarted with ``lanopoly resume``,
and ``lanopoly verify`` on every saved game.
"""

from __future__ import annotations

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
