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

from lanopoly.net.verify import verify_text

from . import netns
from .netns import Lan
from .peers import host, join, outcome


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
    (ns0, a0), (ns1, a1), (ns2, a2) = lan.hosts
    p0, _ = host(tmp_path, a0, 3, advertise=True, netns=ns0)
    table = f"test table {tmp_path.name}"
    p1 = join(tmp_path, a1, 1, table, p0.pin, netns=ns1)  # type: ignore[attr-defined]
    p2 = join(tmp_path, a2, 2, table, p0.pin, netns=ns2)  # type: ignore[attr-defined]
    outcomes = [outcome(tmp_path, p, i) for i, p in enumerate((p0, p1, p2))]
    for o in outcomes:
        assert o.code == 0, o.err[-3000:]
        assert o.result["outcome"] == "over" and o.result["faults"] == []
    assert len({o.result["state_hash"] for o in outcomes}) == 1
    assert {o.result["me"] for o in outcomes} == {0, 1, 2}
    assert verify_text(outcomes[1].save.read_text()).final_hash.hex() == outcomes[0].result["state_hash"]
