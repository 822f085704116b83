"""Text that other peers send reaches screens: names (a joiner's ``HELLO``, the host's roster and
start record), the reasons of refusals (``REJECT``) and freezes (``FREEZE``). An outside tester
joined as ``ESC ] 0 ; PWNED BEL ESC [31m red RLO evil LF X``: every peer's headless output printed
it raw (a terminal title changed, colours, a reordered line, a forged line of output). Names that
do not show as they are are refused where they come in; reasons are neutralised.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from lanopoly.net import cli, wire
from lanopoly.net import protocol as p8
from lanopoly.net.core import lobby as lm
from lanopoly.net.core.pinauth import REJECT, PinError, PinJoiner, _expect, normalize_pin
from lanopoly.net.genesis import parse_start
from lanopoly.net.protocol import PROTOCOL
from lanopoly.net.wire import WireError

from .inproc import PIN, address, open_lobby
from .test_protocol9 import GAME, record

HOSTILE = [
    "\x1b]0;PWNED\x07x",  # an OSC title change
    "\x1b[2Jx",  # a screen clear
    "red\x1b[31m",  # a colour
    "a\u202eevil",  # a right-to-left override
    "two\nlines",  # a forged line of output
    "back\rover",  # a carriage return
    "zero\u200bwidth",  # a zero-width space
    " padded ",  # spaces around it
]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_lobby_message_naming_a_player_with_hidden_characters_is_refused(name: str) -> None:
    hello = lm.encode(lm.Hello(name, 40000, bytes(32), bytes(32), bytes(64)))
    roster = lm.encode(lm.Roster(("host", name), 3))
    welcome = lm.encode(lm.Welcome(bytes(32), bytes(64), 3, ("host", name), 50))
    for payload in (hello, roster, welcome):
        with pytest.raises(WireError, match="printable"):
            lm.parse(payload)
    assert lm.parse(lm.encode(lm.Hello("Zoë O'Brien-Ngũgĩ 李", 40000, bytes(32), bytes(32), bytes(64)))).name


@pytest.mark.parametrize("name", HOSTILE)
def test_a_start_record_naming_a_seat_or_peer_with_hidden_characters_is_refused(name: str) -> None:
    rec, _, _ = record()
    seats = dataclasses.replace(rec, names=(name, *rec.names[1:]))
    peers = dataclasses.replace(rec, peers=(dataclasses.replace(rec.peers[0], name=name), *rec.peers[1:]))
    for bad in (seats, peers):
        with pytest.raises(WireError, match="printable"):
            parse_start(bad.encode())
    assert parse_start(rec.encode()) == rec


def test_reasons_from_other_peers_are_neutralised() -> None:
    """A FREEZE's reason, a lobby REJECT's and a PIN handshake REJECT's: each shows with ``?`` for
    what would have acted on the terminal."""
    evil = "\x1b]0;PWNED\x07stop\r\nfault at step 1: peer 0 (host): \u202echeated"
    frozen = p8.parse(p8.encode(GAME, p8.Freeze(3, evil)), GAME)
    assert isinstance(frozen, p8.Freeze)
    assert frozen.reason == "?stop??fault at step 1: peer 0 (host): ?cheated"
    assert lm.parse(wire.pack([lm.REJECT, PROTOCOL, evil])) == ("reject", frozen.reason)
    with pytest.raises(PinError) as refused:
        _expect(wire.pack([REJECT, PROTOCOL, evil]), 0, 0)
    assert str(refused.value) == f"refused: {frozen.reason}"


@pytest.mark.parametrize("name", ["\x1b]0;PWNED\x07x", "two\nlines", "a" * 33])
def test_join_and_host_refuse_a_name_that_others_would_refuse(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["join", "127.0.0.1:1", "--pin", "1", "--name", name])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "\x1b" not in err, err
    assert "printable characters" in err.rstrip("\n").splitlines()[-1], err


def test_a_joiner_that_sends_a_hidden_name_does_not_reach_the_roster() -> None:
    """A raw joiner with the PIN sends ``HELLO`` named with an escape sequence: the lobby refuses the
    message and its roster stays as it was; an honest joiner then gets in."""

    async def main() -> None:
        from lanopoly.net import links
        from lanopoly.net.keys import ED25519

        lobby = await open_lobby(2)
        conn = await links.connect(address(0), lobby.gate.port, address(1))
        machine = PinJoiner(normalize_pin(PIN))
        conn.send(machine.hello())
        conn.send(await asyncio.to_thread(machine.offer, await conn.recv(5)))
        channel = machine.confirm(await conn.recv(5))
        conn.secure(channel.cipher)
        welcome = lm.parse(await conn.recv(5))
        assert isinstance(welcome, lm.Welcome)
        key = ED25519.new_signer(None)
        hello = lm.Hello("\x1b]0;PWNED\x07", 40000, key.public, bytes(32), lm.prove(key, lm.HELLO_TAG, channel.binding))
        conn.send(lm.encode(hello))
        with pytest.raises(links.LinkClosed):
            await conn.recv(5)
        await conn.close()
        assert lobby.roster == [lobby.name]
        from .test_attacks import join

        await join(lobby, 2)

    asyncio.run(main())


@pytest.mark.parametrize("timer", [0, 601, -1, 2**40, "20", b"\x14", None, [20]])
def test_a_roster_with_a_bid_timer_out_of_range_is_refused(timer: object) -> None:
    """A ROSTER carries the bid timer the host chose (a last field, absent when off): from a
    malicious host, 0 written out, more than ``MAX_BID_TIMER`` seconds or not an integer is refused
    before a joiner's screen shows it."""
    with pytest.raises(WireError, match="bid timer"):
        lm.parse(wire.pack([lm.ROSTER, PROTOCOL, ["host", "bob"], 3, timer]))
    assert lm.parse(lm.encode(lm.Roster(("host", "bob"), 3, 600))) == lm.Roster(("host", "bob"), 3, 600)
    assert lm.encode(lm.Roster(("host", "bob"), 3)) == wire.pack([lm.ROSTER, PROTOCOL, ["host", "bob"], 3])
