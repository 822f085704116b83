"""Which local IPv4 addresses discovery and listening may use.

``LANOPOLY_INTERFACES`` (comma-separated IPv4 addresses, e.g. ``127.0.0.1`` or
``127.0.0.2,127.0.0.3``) restricts both mDNS and the TCP listener to those addresses. Unset (or
empty) means every interface, which is what a real LAN game needs. Tests always set it so that
nothing is ever sent on the machine's real network card.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping

ENV_VAR = "LANOPOLY_INTERFACES"


class InterfaceConfigError(ValueError):
    """``LANOPOLY_INTERFACES`` (or an explicit list) holds something that is not a usable IPv4 address."""


def parse_interfaces(text: str) -> list[str] | None:
    """Parse a comma-separated list of IPv4 addresses; None (all interfaces) for an empty text.

    Addresses are normalised (``127.000.0.1`` is refused by ``ipaddress``; duplicates are dropped,
    order is kept). Unspecified (0.0.0.0), multicast and IPv6 addresses are refused with a message
    that names the offending entry, because they cannot select one interface.
    """
    items = [item.strip() for item in text.split(",")]
    if all(not item for item in items):
        return None
    result: list[str] = []
    for item in items:
        if not item:
            raise InterfaceConfigError(f"{ENV_VAR}={text!r}: empty entry (use comma-separated IPv4 addresses)")
        try:
            address = ipaddress.IPv4Address(item)
        except ValueError:
            raise InterfaceConfigError(
                f"{ENV_VAR}={text!r}: {item!r} is not an IPv4 address (expected e.g. 127.0.0.1,192.168.1.5)"
            ) from None
        if address.is_unspecified or address.is_multicast or address.is_reserved:
            raise InterfaceConfigError(f"{ENV_VAR}={text!r}: {item!r} does not name one interface")
        if str(address) not in result:
            result.append(str(address))
    return result


def configured_interfaces(environ: Mapping[str, str] | None = None) -> list[str] | None:
    """The addresses from ``LANOPOLY_INTERFACES``, or None for all interfaces when it is unset."""
    env = os.environ if environ is None else environ
    return parse_interfaces(env.get(ENV_VAR, ""))


def is_loopback_only(interfaces: list[str] | None) -> bool:
    """Whether every configured address is a loopback address (127.0.0.0/8)."""
    return interfaces is not None and all(ipaddress.IPv4Address(a).is_loopback for a in interfaces)
