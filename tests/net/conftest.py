"""Fixtures of the network tests: loopback only, a test-only DNS-SD service type, bounded time.

Every test here runs with ``LANOPOLY_INTERFACES`` set to loopback addresses and with
``LANOPOLY_SERVICE_TYPE`` set to a test type, so nothing is sent on the machine's real network card
and nothing shows up in real lobbies. Subprocess environments are built by ``peer_env``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from .netns import in_test_subnet
from .netns import lan as lan  # the network namespace fixture, for every test here


def _test_service_type() -> str:
    """``LANOPOLY_SERVICE_TYPE`` when it names a test type (``_lanopoly-NAME._tcp.local.``, at most
    15 characters between ``_`` and ``._tcp`` as DNS-SD allows: each checkout its own, so that test
    runs side by side on one machine never see each other's lobbies), else
    ``_lanopoly-test._tcp.local.``; never the real type."""
    value = os.environ.get("LANOPOLY_SERVICE_TYPE", "")
    name = value.removeprefix("_").removesuffix("._tcp.local.")
    if value.startswith("_lanopoly-") and value.endswith("._tcp.local.") and len(name) <= 15:
        return value
    return "_lanopoly-test._tcp.local."


TEST_SERVICE_TYPE = _test_service_type()


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("LANOPOLY_INTERFACES", "127.0.0.1")
    monkeypatch.setenv("LANOPOLY_SERVICE_TYPE", TEST_SERVICE_TYPE)
    yield


def peer_env(address: str, netns: bool = False) -> dict[str, str]:
    """The environment of a peer subprocess bound to one address: loopback, or (``netns``) a test namespace's.

    Namespace addresses are only allowed from the private /24 that the tests' own namespaces use
    (``netns.SUBNET``), so a typo can never point a peer at the machine's real network card.
    """
    if netns:
        assert in_test_subnet(address), f"{address} is not in the test namespaces' subnet"
    else:
        assert address.startswith("127."), "tests use loopback addresses only"
    env = dict(os.environ)
    env["LANOPOLY_INTERFACES"] = address
    env["LANOPOLY_SERVICE_TYPE"] = TEST_SERVICE_TYPE
    env["PYTHONUNBUFFERED"] = "1"
    return env
