"""LANOPOLY_INTERFACES parsing: valid lists, the all-interfaces default, clear errors."""

from __future__ import annotations

import pytest

from lanopoly.net.interfaces import InterfaceConfigError, configured_interfaces, is_loopback_only, parse_interfaces


def test_parse_lists_and_default() -> None:
    assert parse_interfaces("127.0.0.1") == ["127.0.0.1"]
    assert parse_interfaces(" 127.0.0.2, 127.0.0.3 ,127.0.0.2") == ["127.0.0.2", "127.0.0.3"]
    assert parse_interfaces("") is None and parse_interfaces(" , ") is None
    assert configured_interfaces({}) is None
    assert configured_interfaces({"LANOPOLY_INTERFACES": "10.0.0.7"}) == ["10.0.0.7"]
    assert is_loopback_only(["127.0.0.2", "127.9.9.9"]) and not is_loopback_only(["10.0.0.1"])
    assert not is_loopback_only(None)


@pytest.mark.parametrize("bad", ["localhost", "127.0.0.256", "::1", "0.0.0.0", "224.0.0.251", "127.0.0.1,,127.0.0.2"])
def test_parse_refuses_bad_entries(bad: str) -> None:
    with pytest.raises(InterfaceConfigError, match="LANOPOLY_INTERFACES"):
        parse_interfaces(bad)


def test_suite_runs_on_loopback_only() -> None:
    assert is_loopback_only(configured_interfaces())
