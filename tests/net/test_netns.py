"""Peers as separate hosts: each in its own network namespace, all on one bridge (needs root).

The host advertises its lobby with real zeroconf on its namespace's address; the joiners find it
by name over mDNS (multicast through the bridge), join, build the full mesh across the bridge and
play a full bot game to the end with identical final hashes. Nothing leaves the namespaces the
test creates: ``LANOPOLY_INTERFACES`` is each namespace's own address, and the bridge is linked to
nothing but the peers' veth ends.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lanopoly.log import GameLog
from lanopoly.net.verify import verify_text

from . import netns
from .netns import Lan
from .peers import run_game


def test_lan_fixture_isolates_and_cleans_up(lan: Lan) -> None:
    """Each namespace has lo and one address of the test subnet; its peers reach each other only via the bridge."""
    assert len(lan.hosts) == 3 and len(lan.exists()) == 4
    ns, address = lan.hosts[0]
    out = subprocess.run(
        ["ip", "-n", ns, "-4", "-o", "addr", "show"], capture_output=True, text=True, timeout=10, check=True
    ).stdout
    assert "127.0.0.1/8" in out and f"{address}/24" in out and len(out.splitlines()) == 2
    other = lan.hosts[1][1]
    probe = f"import socket; s = socket.create_connection(('{other}', 9), timeout=3)"
    # Nothing listens on port 9 over there: a refused connection proves the peer answered across the bridge.
    run = subprocess.run(
        ["ip", "netns", "exec", ns, "python3", "-c", probe], capture_output=True, text=True, timeout=10
    )
    assert "ConnectionRefusedError" in run.stderr, run.stderr
    copy = Lan(1, prefix=lan.prefix + "x")
    try:
        copy.create()
        assert copy.exists() == [f"{copy.prefix}-1", f"{copy.prefix}-sw"]
    finally:
        copy.remove()
    assert copy.exists() == []


def test_lan_removes_everything_when_setup_fails_half_way(lan: Lan, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure while building (here: the second peer's address) leaves no namespace behind."""
    real = netns._ip

    def failing(*args: str) -> None:
        if "10.231.0.2/24" in args:
            raise subprocess.CalledProcessError(2, ["ip", *args], stderr="injected failure")
        real(*args)

    monkeypatch.setattr(netns, "_ip", failing)
    broken = Lan(3, prefix=lan.prefix + "f")
    try:
        with pytest.raises(subprocess.CalledProcessError):
            broken.create()
        assert broken.exists() == [] and broken.hosts == []
    finally:
        broken.remove()


@pytest.mark.parametrize("lan", [3], indirect=True)
def test_three_hosts_discover_each_other_and_play_to_identical_hashes(tmp_path: Path, lan: Lan) -> None:
    namespaces = [ns for ns, _ in lan.hosts]
    addresses = [address for _, address in lan.hosts]
    runs = run_game(tmp_path, addresses, players=4, rounds=20, timeout=60, join_by_name=True, namespaces=namespaces)
    for run in runs:
        assert run.code == 0, f"{run.address} exited {run.code}:\n{run.err}"
        assert run.result is not None and run.result["outcome"] == "over" and run.result["faults"] == []
    results = [run.result for run in runs if run.result]
    assert len({r["state_hash"] for r in results}) == 1 and len({r["step"] for r in results}) == 1
    assert {r["me"] for r in results} == {0, 1, 2}
    for run in runs:
        assert GameLog.load(run.log).replay().state_hash().hex() == results[0]["state_hash"]
    assert verify_text(runs[1].log.read_text()).final_hash.hex() == results[0]["state_hash"]
