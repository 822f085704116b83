"""Framing and message validation, on their own and against a live peer (real sockets, no mocks).

A live host must drop garbage, oversized frames, ExtTypes, bad messages and silent connections,
log them, and keep working: a real joiner then joins and a whole game is played, while strangers
keep sending garbage to its listener (they get nothing but the host's handshake offer). A mesh
peer that sends an oversized frame, a tampered encrypted frame or a replayed encrypted frame
mid-game freezes the session with that peer named, and the others do not crash.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from dataclasses import replace

import msgpack  # type: ignore[import-untyped]
import pytest

from lanopoly import Rules
from lanopoly.bots import SimpleBot
from lanopoly.net import PROTOCOL_VERSION
from lanopoly.net.framing import PRE_START_MAX_FRAME, FrameError, frame, pack, read_frame, unpack
from lanopoly.net.lockstep import LockstepSession, SessionResult
from lanopoly.net.mesh import (
    HANDSHAKE_WINDOW,
    HANDSHAKES_PER_HOST,
    MAX_TRACKED_HOSTS,
    HostLobby,
    Listener,
    Mesh,
    MeshJoiner,
    PeerConfig,
)
from lanopoly.net.messages import Hello, Kind, PeerEntry, ProtocolError, Reject, StartRecord, parse

ADDR = "127.0.0.1"
PIN = "271828"


def test_unpack_rejects_malformed_payloads() -> None:
    assert unpack(pack([7, 1, b"x", "y", {"a": [1, 2]}])) == [7, 1, b"x", "y", {"a": [1, 2]}]
    bad = [
        b"\xc1",  # reserved byte
        pack([1, 1]) + b"\x00",  # trailing data
        msgpack.packb([1, 1, msgpack.ExtType(5, b"boom")]),
        msgpack.packb([1, 1, msgpack.Timestamp(1, 0)]),  # ext -1 too
        msgpack.packb([1, 1, {1: 2}]),  # non-string map key
        msgpack.packb({"type": 1}),  # not an array
        msgpack.packb([1]),  # no version
        msgpack.packb(["1", 1]),  # type not an int
        b"\x91" * 3000 + b"\x01",  # nested too deep
        b"\xdd\xff\xff\xff\xff",  # array header claiming 4 billion items
        b"\xa3\xff\xfe\xfd",  # invalid UTF-8
    ]
    for payload in bad:
        with pytest.raises(FrameError):
            unpack(payload)


def test_parse_checks_version_and_fields() -> None:
    hello = Hello(b"g" * 16, "Ada", 4000, b"i" * 16, b"a" * 32, b"k" * 32, b"p" * 64)
    assert parse(unpack(pack(hello.to_wire()))) == hello
    wire = hello.to_wire()
    wrong_version = [*wire[:1], PROTOCOL_VERSION + 1, *wire[2:]]
    for broken in (wrong_version, wire[:-1], [*wire[:4], -1, *wire[5:]], [*wire[:3], 5, *wire[4:]]):
        with pytest.raises(ProtocolError):
            parse(broken)
    with pytest.raises(ProtocolError, match="unknown message type"):
        parse([99, 1])


def test_the_start_record_carries_the_replacement_choice_since_protocol_5() -> None:
    peers = tuple(PeerEntry(bytes([i]) * 16, f"p{i}", "", 4000 + i, b"a" * 32, b"k" * 32) for i in range(2))
    record = StartRecord(b"g" * 16, peers, ("ann", "bob"), (0, 1), "classic", {"round_limit": 5}, 400, "bank")
    assert parse(unpack(pack(record.to_wire()))) == record
    old = [Kind.START, 4, *record.to_wire()[2:-1]]  # protocol 4 (a saved game): no choice, "bot"
    assert parse(old, 4) == replace(record, replace_with="bot")
    with pytest.raises(ProtocolError, match="START: expected 8 fields, got 7"):
        parse([Kind.START, PROTOCOL_VERSION, *old[2:]])
    with pytest.raises(ProtocolError, match="unknown choice 'robot': one of bot, bank"):
        parse([*record.to_wire()[:-1], "robot"])


def test_frame_caps() -> None:
    with pytest.raises(FrameError):
        frame(b"x" * (PRE_START_MAX_FRAME + 1), PRE_START_MAX_FRAME)

    async def read(data: bytes) -> bytes:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        return await read_frame(reader, PRE_START_MAX_FRAME)

    assert asyncio.run(read(frame(b"abc"))) == b"abc"
    for data in (
        struct.pack(">I", PRE_START_MAX_FRAME + 1) + b"x" * 10,
        struct.pack(">I", 0),
        b"\x00\x00",
        b"\x00\x00\x00\x09ab",
    ):
        with pytest.raises(FrameError):
            asyncio.run(read(data))


def _only_offers(data: bytes) -> bool:
    """Whether a stranger got nothing from the listener but its plaintext handshake offer."""
    kinds = []
    while data:
        (length,) = struct.unpack(">I", data[:4])
        kinds.append(unpack(data[4 : 4 + length])[0])
        data = data[4 + length :]
    return set(kinds) <= {Kind.AUTH_OFFER}


async def _send_raw(port: int, data: bytes, wait: float = 5.0) -> bytes:
    """Send bytes to a live peer; return what it answers before it closes the connection."""
    reader, writer = await asyncio.open_connection(ADDR, port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), wait)
    except ConnectionResetError:
        return b""
    finally:
        writer.close()


GARBAGE = [
    b"\x00\x00\x00\x05\xc1\xc1\xc1\xc1\xc1",
    struct.pack(">I", PRE_START_MAX_FRAME + 1) + b"x" * 100,  # oversized before the start record
    struct.pack(">I", 2**32 - 1),
    frame(msgpack.packb([1, 1, msgpack.ExtType(7, b"x" * 10)])),
    frame(msgpack.packb({"not": "an array"})),
    frame(msgpack.packb([1, 1, {1: 1}])),
    frame(msgpack.packb([1, 99, b"", "x", 1, b"i" * 16, b"a" * 32])),  # wrong protocol version
    b"\x00\x00\x00\x10abc",  # truncated, then closed
]


async def _two_peer_game(
    rounds: int, attack: str, churned: list[int] | None = None
) -> tuple[SessionResult, SessionResult]:
    """A 2-peer game over loopback attacked mid-game by ``attack``; the "churn" attack appends to
    ``churned`` how many of its connections got the listener's AUTH_OFFER."""
    rules = Rules(round_limit=rounds).to_dict()
    lobby = HostLobby(PeerConfig("Ada", [ADDR], handshake_timeout=1.0, pin=PIN), 2, 3, "classic", rules)
    port = await lobby.open()
    # Garbage before anyone joined: every connection is dropped, the lobby stays open.
    for data in GARBAGE:
        assert _only_offers(await _send_raw(port, data))
    assert _only_offers(await _send_raw(port, b"", wait=3.0))  # silent: dropped at the handshake deadline
    assert lobby.auth_failures == 0  # garbage is not a PIN guess
    joiner = MeshJoiner(PeerConfig("Bob", [ADDR], pin=PIN))
    join = asyncio.create_task(joiner.join(ADDR, port, lobby_timeout=10))
    await lobby.wait_full(10)
    host_mesh, guest_mesh = await asyncio.gather(lobby.start(), join)

    def session(mesh: Mesh) -> LockstepSession:
        bots = {s: SimpleBot() for s, c in enumerate(mesh.start.controllers) if c == mesh.me}
        return LockstepSession(mesh, bots, step_timeout=10)

    host, guest = session(host_mesh), session(guest_mesh)

    async def attacker() -> None:
        while host.game.step < 20:
            await asyncio.sleep(0.005)
        if attack == "stranger":  # garbage to the listener mid-game: dropped, the game goes on
            for data in GARBAGE[:4]:
                assert _only_offers(await _send_raw(port, data))
        elif attack == "flood":  # many silent connections from several addresses, held open mid-game
            flood = []
            for i in range(48):
                source = (f"127.0.0.{200 + i % 6}", 0)  # 6 sources x 8: over the per-source and total caps
                flood.append(await asyncio.open_connection(ADDR, port, local_addr=source))
            while not host.game.is_over and host.game.step < 120:  # the game goes on meanwhile
                await asyncio.sleep(0.01)
            for _, writer in flood:
                writer.close()
        elif attack == "churn":  # one address reconnecting in a loop: each start costs the listener a SPAKE2
            offered = 0
            for _ in range(HANDSHAKES_PER_HOST + 10):
                reader, writer = await asyncio.open_connection(ADDR, port, local_addr=("127.0.0.199", 0))
                offered += bool(await asyncio.wait_for(reader.read(4), 5))  # the AUTH_OFFER, or closed at once
                writer.close()
            assert churned is not None
            churned.append(offered)
        elif attack == "oversized":  # a mesh peer sends a frame over the in-game cap
            guest_mesh.links[0].writer.write(struct.pack(">I", 70_000) + b"\x00" * 100)
        elif attack == "disconnect":  # the guest's connection drops mid-game
            guest_mesh.links[0].writer.transport.abort()
        elif attack in ("tamper", "replay-frame"):  # a well-formed encrypted frame, then a bad one
            link = guest_mesh.links[0]
            assert link.cipher is not None
            sealed = link.cipher.seal(pack(Reject("harmless").to_wire()))
            link.writer.write(frame(sealed))  # valid: the host rejects it as unexpected and goes on
            if attack == "tamper":  # flip one ciphertext bit of the next frame
                bad = bytearray(link.cipher.seal(pack(Reject("tampered").to_wire())))
                bad[-20] ^= 1
                link.writer.write(frame(bytes(bad)))
            else:  # the same frame again: its counter repeats
                link.writer.write(frame(sealed))

    results = await asyncio.gather(host.run(), guest.run(), attacker())
    return results[0], results[1]


def test_live_peer_survives_garbage_and_plays_on(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    host, guest = asyncio.run(asyncio.wait_for(_two_peer_game(15, "stranger"), 60))
    assert host.outcome == guest.outcome == "over"
    assert host.state_hash == guest.state_hash and host.step == guest.step > 20
    dropped = [r for r in caplog.records if "dropping connection" in r.getMessage()]
    assert len(dropped) >= len(GARBAGE) + 1 + 4, [r.getMessage() for r in caplog.records]


def test_connection_flood_is_capped_and_the_game_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    """48 silent connections mid-game: those over the caps (8 per source, 32 in all) are dropped at
    once, the rest at the handshake deadline; nobody's game is disturbed."""
    caplog.set_level(logging.WARNING)
    host, guest = asyncio.run(asyncio.wait_for(_two_peer_game(15, "flood"), 60))
    assert host.outcome == guest.outcome == "over" and host.faults == guest.faults == []
    assert host.state_hash == guest.state_hash and host.step == guest.step > 120
    capped = [r for r in caplog.records if "too many connections in their handshake" in r.getMessage()]
    assert len(capped) >= 48 - 32, [r.getMessage() for r in caplog.records][-5:]


def test_an_address_reconnecting_in_a_loop_is_cut_off_and_the_game_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    """One address opens connections one after another mid-game and leaves after the listener's
    first message: the listener starts a handshake (a SPAKE2 computation) for the first
    ``HANDSHAKES_PER_HOST`` only, drops the rest at once, and the game is not disturbed."""
    caplog.set_level(logging.WARNING)
    churned: list[int] = []
    host, guest = asyncio.run(asyncio.wait_for(_two_peer_game(15, "churn", churned), 60))
    assert host.outcome == guest.outcome == "over" and host.faults == guest.faults == []
    assert host.state_hash == guest.state_hash
    assert churned == [HANDSHAKES_PER_HOST]
    cut = [r for r in caplog.records if "too many handshakes from 127.0.0.199" in r.getMessage()]
    assert len(cut) == 10, [r.getMessage() for r in caplog.records][-5:]


def test_the_handshake_rate_is_counted_per_address_over_a_sliding_window() -> None:
    async def no_game() -> bytes:
        return b""

    async def no_handler(*_: object) -> bool:
        return False

    listener = Listener(no_handler, None, 0, 1.0, b"pin", no_game)
    start = 1000.0
    assert all(listener._may_start("10.0.0.1", start + i / 100) for i in range(HANDSHAKES_PER_HOST))
    assert not listener._may_start("10.0.0.1", start + 1)  # its share is spent
    assert listener._may_start("10.0.0.2", start + 1)  # another address has its own
    assert listener._may_start("10.0.0.1", start + HANDSHAKE_WINDOW + 0.001)  # the first left the window
    assert not listener._may_start("10.0.0.1", start + HANDSHAKE_WINDOW + 0.002)  # only the first
    # Addresses beyond the tracked ones wait until one has been quiet for a window.
    later = start + 2
    for i in range(MAX_TRACKED_HOSTS - 2):
        assert listener._may_start(f"10.1.{i // 256}.{i % 256}", later)
    assert not listener._may_start("10.9.9.9", later)
    assert listener._may_start("10.9.9.9", later + HANDSHAKE_WINDOW)  # the quiet ones are forgotten


def test_oversized_frame_mid_game_freezes_and_names_the_sender() -> None:
    host, guest = asyncio.run(asyncio.wait_for(_two_peer_game(15, "oversized"), 60))
    assert host.outcome == guest.outcome == "frozen"
    assert host.freeze is not None and host.freeze.blamed == (1,)
    assert any(f.kind == "malformed" and f.peer == 1 for f in host.faults)


def test_disconnect_mid_game_freezes_and_names_the_peer() -> None:
    host, guest = asyncio.run(asyncio.wait_for(_two_peer_game(15, "disconnect"), 60))
    assert host.outcome == guest.outcome == "frozen"
    assert host.freeze is not None and host.freeze.blamed == (1,) and "disconnected" in host.freeze.reason


@pytest.mark.parametrize(("attack", "detail"), [("tamper", "AEAD authentication failed"), ("replay-frame", "repeated")])
def test_bad_encrypted_frame_closes_the_link_and_names_the_sender(
    attack: str, detail: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    host, guest = asyncio.run(asyncio.wait_for(_two_peer_game(15, attack), 60))
    assert host.outcome == guest.outcome == "frozen"
    assert host.freeze is not None and host.freeze.blamed == (1,)
    assert any(f.kind == "unexpected" and f.peer == 1 for f in host.faults)  # the valid frame got through
    bad = [f for f in host.faults if f.kind == "malformed"]
    assert len(bad) == 1 and bad[0].peer == 1 and detail in bad[0].detail, host.faults
    assert any(detail in r.getMessage() for r in caplog.records)
