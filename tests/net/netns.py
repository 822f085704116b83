"""Separate "hosts" on one Linux machine: network namespaces joined by veth pairs to a bridge.

Layout (research/networking.md section 3.5)::

    <prefix>-sw   (the "switch")  br0 bridge, one veth end "p1".."pN" per peer enslaved to it
    <prefix>-1 .. <prefix>-N      each: lo up, "eth0" (the other veth end) with 10.231.0.<i>/24

Every link is created from inside the switch namespace (``ip -n <switch> link add ... peer name eth0
netns <peer>``), so nothing is ever created, even briefly, in the root namespace, and the root
namespace's interfaces never carry a packet of these tests: a namespace only sees its own veth end
and its loopback, and the bridge is connected to nothing else. 10.231.0.0/24 is used only inside
these namespaces. Namespace names carry this process's id, so two test runs on one machine never
collide (each has its own isolated bridge, so they may both use the same subnet).

``Lan`` removes everything it created (deleting a namespace destroys its veth ends; deleting the
switch destroys the bridge), also when setup fails half-way. The ``lan`` fixture skips (with the
reason) when ``ip`` is missing or ``ip netns add`` is not permitted (unprivileged containers).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

SUBNET = ipaddress.IPv4Network("10.231.0.0/24")
"""The private /24 of the test namespaces (never configured in the root namespace)."""
IP_TIMEOUT = 10.0


class NetnsUnavailable(Exception):
    """Network namespaces cannot be created here (no ``ip``, or not permitted)."""


def _ip(*args: str) -> None:
    """Run one ``ip`` command; CalledProcessError (with its stderr) on failure."""
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=IP_TIMEOUT)


def in_test_subnet(address: str) -> bool:
    """Whether ``address`` belongs to the namespaces' private /24."""
    return ipaddress.IPv4Address(address) in SUBNET


@dataclass
class Lan:
    """``size`` peer namespaces on one bridge; ``hosts[i]`` is (namespace name, address) of peer i."""

    size: int
    prefix: str = field(default_factory=lambda: f"lnp{os.getpid()}")
    hosts: list[tuple[str, str]] = field(default_factory=list)
    _created: list[str] = field(default_factory=list)

    @property
    def switch(self) -> str:
        return f"{self.prefix}-sw"

    def _add_ns(self, name: str) -> None:
        _ip("netns", "add", name)
        self._created.append(name)
        _ip("-n", name, "link", "set", "lo", "up")

    def create(self) -> None:
        """Build the switch and the peers; on any failure remove what exists and re-raise."""
        try:
            self._add_ns(self.switch)
            _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
            _ip("-n", self.switch, "link", "set", "br0", "up")
            for i in range(1, self.size + 1):
                ns, address = f"{self.prefix}-{i}", str(SUBNET.network_address + i)
                self._add_ns(ns)
                _ip("-n", self.switch, "link", "add", f"p{i}", "type", "veth", "peer", "name", "eth0", "netns", ns)
                _ip("-n", self.switch, "link", "set", f"p{i}", "master", "br0", "up")
                _ip("-n", ns, "addr", "add", f"{address}/{SUBNET.prefixlen}", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
                self.hosts.append((ns, address))
        except BaseException:
            self.remove()
            raise

    def remove(self) -> None:
        """Delete every namespace this object created (peers first, then the switch); never raises."""
        for name in reversed(self._created):
            with contextlib.suppress(subprocess.SubprocessError, OSError):
                _ip("netns", "del", name)
        self._created.clear()
        self.hosts.clear()

    def exists(self) -> list[str]:
        """The names of this object's namespaces that the kernel still lists (for the cleanup test)."""
        out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=IP_TIMEOUT).stdout
        names = {line.split()[0] for line in out.splitlines() if line.strip()}
        return sorted(n for n in names if n == self.switch or n.startswith(self.prefix + "-"))


def probe() -> None:
    """Raise NetnsUnavailable (with a reason) unless this process may create network namespaces."""
    if shutil.which("ip") is None:
        raise NetnsUnavailable("the `ip` command (iproute2) is not installed")
    name = f"lnp{os.getpid()}-probe"
    try:
        _ip("netns", "add", name)
    except subprocess.CalledProcessError as e:
        raise NetnsUnavailable(f"`ip netns add` is not permitted here: {e.stderr.strip() or e}") from None
    except (subprocess.SubprocessError, OSError) as e:
        raise NetnsUnavailable(f"`ip netns add` failed: {e}") from None
    with contextlib.suppress(subprocess.SubprocessError, OSError):
        _ip("netns", "del", name)


@pytest.fixture
def lan(request: pytest.FixtureRequest) -> Iterator[Lan]:
    """Three peer namespaces on a bridge (``@pytest.mark.parametrize("lan", [N], indirect=True)`` for N)."""
    try:
        probe()
    except NetnsUnavailable as e:
        pytest.skip(f"network namespace tests need root (CAP_NET_ADMIN) and iproute2: {e}")
    net = Lan(int(getattr(request, "param", 3)))
    net.create()
    try:
        yield net
    finally:
        net.remove()
