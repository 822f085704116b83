"""The PIN handshake (SPAKE2 + key confirmation), the encrypted links and the wrong-PIN lockout.

Real sockets on loopback, real SPAKE2 and ChaCha20-Poly1305, no mocks:

- the link cipher refuses a tampered frame, a repeated counter and a skipped one;
- a joiner with a wrong PIN is refused by the host, which counts the failure and starts no game;
  an impostor listener that does not know the PIN is refused by the dialer (both sides check);
- after ``MAX_AUTH_FAILURES`` wrong PINs the lobby refuses even the right PIN and gives up;
- the CLI: ``lanopoly join --pin <wrong>`` fails with "wrong PIN" and no peer starts a game;
- a SPAKE2 message of another side is refused also under ``python -O`` (``spake2`` checks it with
  an ``assert``), and a point off the curve is refused like any bad message;
- a handshake that times out is logged with its reason (never an empty one);
- the host's ready file, which holds the PIN, is readable by its owner only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly import Rules
from lanopoly.net import cli, reason, secure
from lanopoly.net.framing import FramedConnection, FrameError
from lanopoly.net.mesh import MAX_AUTH_FAILURES, HostLobby, MeshError, MeshJoiner, PeerConfig, dial
from lanopoly.net.messages import AuthConfirm, AuthOffer, AuthReply, parse

from .peers import run_game

ADDR = "127.0.0.1"
PIN = "123456"
RULES = Rules(round_limit=5).to_dict()


def test_cipher_refuses_tampered_repeated_and_skipped_frames() -> None:
    key_a, key_b = b"a" * 32, b"b" * 32
    alice, bob = secure.Cipher(key_a, key_b), secure.Cipher(key_b, key_a)
    frames = [alice.seal(f"frame {i}".encode()) for i in range(4)]
    assert bob.open(frames[0]) == b"frame 0"
    with pytest.raises(FrameError, match="repeated"):
        bob.open(frames[0])
    with pytest.raises(FrameError, match="skipped ahead"):
        bob.open(frames[2])
    tampered = bytearray(frames[1])
    tampered[10] ^= 0x80
    with pytest.raises(FrameError, match="AEAD"):
        bob.open(bytes(tampered))
    with pytest.raises(FrameError, match="too short"):
        bob.open(frames[1][:10])
    assert bob.open(frames[1]) == b"frame 1"  # failures do not advance the counter (the link is closed anyway)
    assert alice.open(bob.seal(b"back")) == b"back"  # the other direction has its own key and counter
    # Keys depend on the transcript: the same SPAKE2 key with other messages gives other keys.
    k1 = secure.derive_keys(b"k" * 32, b"g" * 16, b"S" + b"1" * 32, b"S" + b"2" * 32)
    k2 = secure.derive_keys(b"k" * 32, b"g" * 16, b"S" + b"2" * 32, b"S" + b"1" * 32)
    assert len({k1.listener_to_dialer, k1.dialer_to_listener, k2.listener_to_dialer, k1.binding, k2.binding}) == 5


def test_a_genuine_signature_verifies_and_nothing_else_does() -> None:
    """``secure.verify``: every genuine signature verifies; a changed byte of the signature or
    the data, another key, a short signature or no key never does (and it never raises)."""
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    public = [secure.load_public(secure.public_bytes(k)) for k in keys]
    for size in (0, 1, 64, 200, 4096):
        data = secrets.token_bytes(size)
        signature = keys[0].sign(data)
        assert secure.verify(public[0], signature, data)
        assert not secure.verify(public[1], signature, data)
        assert not secure.verify(None, signature, data)
        assert not secure.verify(public[0], signature[:-1], data)
        for i in (0, 31, 63):
            bad = bytearray(signature)
            bad[i] ^= 1
            assert not secure.verify(public[0], bytes(bad), data)
        if data:
            assert not secure.verify(public[0], signature, data[:-1] + bytes([data[-1] ^ 0x80]))
    assert secure.load_public(b"short") is None


def test_pin_normalisation() -> None:
    assert secure.normalize_pin("123 456") == secure.normalize_pin("123-456") == b"123456"
    assert len(secure.new_pin()) == secure.PIN_DIGITS and secure.new_pin().isdigit()
    with pytest.raises(ValueError):
        secure.normalize_pin(" - ")
    with pytest.raises(ValueError, match="PIN is required"):
        HostLobby(PeerConfig("Ada", [ADDR]), 2, 2, "classic", RULES)


async def _impostor(pin: bytes) -> tuple[asyncio.Server, list[str]]:
    """A listener that does not know the PIN but answers with its own key confirmation anyway."""
    seen: list[str] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = FramedConnection(reader, writer)
        game_id = b"\x07" * 16
        pake = secure.Pake(pin, game_id)
        offer = await pake.start()
        await conn.send(AuthOffer(game_id, offer).to_wire())
        reply = parse(await conn.recv())
        assert isinstance(reply, AuthReply)
        keys = secure.derive_keys(await pake.finish(reply.pake), game_id, offer, reply.pake)
        seen.append("dialer proved our PIN" if reply.confirm == keys.confirm_dialer else "dialer proved another PIN")
        await conn.send(AuthConfirm(keys.confirm_listener).to_wire())
        await conn.close()

    server = await asyncio.start_server(on_connect, ADDR, 0)
    return server, seen


def test_wrong_pin_is_refused_on_both_sides_and_no_game_starts() -> None:
    async def main() -> None:
        lobby = HostLobby(PeerConfig("Ada", [ADDR], pin=PIN), 2, 2, "classic", RULES)
        port = await lobby.open()
        eve = MeshJoiner(PeerConfig("Eve", [ADDR], pin="654321"))
        with pytest.raises(MeshError, match="wrong PIN"):
            await eve.join(ADDR, port, lobby_timeout=5)
        await eve.close()
        assert lobby.auth_failures == 1 and lobby.taken == 1
        with pytest.raises(TimeoutError):
            await lobby.wait_full(0.2)  # nobody joined: no game can start
        # The dialer checks the listener too: an impostor that does not know the PIN is refused.
        server, seen = await _impostor(b"999999")
        with pytest.raises(MeshError, match="could not prove the PIN"):
            await dial(ADDR, server.sockets[0].getsockname()[1], [ADDR], 5, secure.normalize_pin(PIN))
        server.close()
        assert seen == ["dialer proved another PIN"]
        # The right PIN still gets in after one failure.
        bob = MeshJoiner(PeerConfig("Bob", [ADDR], pin="123 456"))
        join = asyncio.create_task(bob.join(ADDR, port, lobby_timeout=10))
        await lobby.wait_full(5)
        host_mesh, guest_mesh = await asyncio.gather(lobby.start(), join)
        assert host_mesh.start_hash == guest_mesh.start_hash and guest_mesh.links[0].cipher is not None
        assert set(host_mesh.start_sigs) == set(guest_mesh.start_sigs) == {0, 1}
        await asyncio.gather(host_mesh.close(), guest_mesh.close())

    asyncio.run(asyncio.wait_for(main(), 30))


def test_lobby_locks_after_too_many_wrong_pins() -> None:
    async def main() -> None:
        lobby = HostLobby(PeerConfig("Ada", [ADDR], pin=PIN), 2, 2, "classic", RULES)
        port = await lobby.open()
        waiter = asyncio.create_task(lobby.wait_full(30))
        for guess in range(MAX_AUTH_FAILURES):
            eve = MeshJoiner(PeerConfig("Eve", [ADDR], pin=f"{guess:06d}"))
            with pytest.raises(MeshError, match="wrong PIN"):
                await eve.join(ADDR, port, lobby_timeout=5)
            await eve.close()
        assert lobby.auth_failures == MAX_AUTH_FAILURES and lobby.listener.locked
        bob = MeshJoiner(PeerConfig("Bob", [ADDR], pin=PIN))
        with pytest.raises(MeshError, match="too many wrong PINs"):
            await bob.join(ADDR, port, lobby_timeout=5)
        await bob.close()
        with pytest.raises(MeshError, match="locked"):
            await waiter
        assert lobby.taken == 1
        await lobby.close()

    asyncio.run(asyncio.wait_for(main(), 30))


def test_cli_join_with_a_wrong_pin_fails_and_nobody_plays(tmp_path: Path) -> None:
    runs = run_game(tmp_path, ["127.0.0.71", "127.0.0.72"], timeout=20, lobby_timeout=3, pins={1: "000000x"})
    host, guest = runs
    assert guest.code == 1 and "wrong PIN" in guest.err, guest.err
    assert host.code == 1 and "nobody else joined" in host.err, host.err
    assert "game PIN:" in host.out and "starts" not in host.out + guest.out
    assert "wrong PIN" in host.err and host.result is None and guest.result is None


def test_a_spake2_message_of_another_side_is_refused_even_under_python_o() -> None:
    """``spake2`` checks that a symmetric message comes from the symmetric side with an ``assert``,
    which ``python -O`` removes: ``Pake.finish`` checks it itself, so -O changes nothing."""
    code = textwrap.dedent(
        """
        import asyncio
        from spake2 import SPAKE2_Symmetric
        from lanopoly.net.secure import AuthError, Pake

        other = SPAKE2_Symmetric(b"123456", idSymmetric=b"lanopoly/v1|" + bytes(16)).start()

        async def finish(message):
            pake = Pake(b"123456", bytes(16))
            await pake.start()
            try:
                await pake.finish(message)
            except AuthError as e:
                return f"refused: {e}"
            return "ACCEPTED"

        for side in (b"X", b"\\x00", b"A", b"B", b""):
            print(side, asyncio.run(finish(side + other[1:])))
        print("genuine", asyncio.run(finish(other)))
        """
    )
    for flags in (["-O"], []):
        done = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True, timeout=60)
        lines = done.stdout.splitlines()
        assert done.returncode == 0 and len(lines) == 6, (flags, done.stdout, done.stderr)
        assert all("refused: invalid SPAKE2 message" in line for line in lines[:5]), (flags, lines)
        assert lines[5] == "genuine ACCEPTED", (flags, lines)


def test_a_spake2_point_off_the_curve_is_an_auth_error_on_both_sides() -> None:
    """Half of all 32-byte strings are no curve point: ``spake2`` raises ``NotOnCurve`` (a bare
    Exception) for them. The handshake refuses such a message like any bad one: the dialer facing a
    listener that offers one gets a MeshError (``lanopoly join`` says why instead of crashing)."""
    off_curve = b"S" + b"\x02" * 32

    async def offer_off_curve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = FramedConnection(reader, writer)
        await conn.send(AuthOffer(b"\x07" * 16, off_curve).to_wire())
        with contextlib.suppress(Exception):
            await conn.recv()
        await conn.close()

    async def main() -> None:
        pake = secure.Pake(secure.normalize_pin(PIN), b"\x07" * 16)
        await pake.start()
        with pytest.raises(secure.AuthError, match="invalid SPAKE2 message: NotOnCurve"):
            await pake.finish(off_curve)
        server = await asyncio.start_server(offer_off_curve, ADDR, 0)
        with pytest.raises(MeshError, match="invalid SPAKE2 message"):
            await dial(ADDR, server.sockets[0].getsockname()[1], [ADDR], 5, secure.normalize_pin(PIN))
        server.close()

    asyncio.run(asyncio.wait_for(main(), 20))


def test_an_error_reason_is_never_empty() -> None:
    assert reason(TimeoutError()) == "TimeoutError" and reason(ConnectionResetError()) == "ConnectionResetError"
    assert reason(MeshError("the host refused: full")) == "the host refused: full"


def test_a_handshake_that_times_out_is_logged_with_its_reason(caplog: pytest.LogCaptureFixture) -> None:
    """A dialer that never answers ``AUTH_OFFER`` is dropped at the handshake deadline, and the
    warning says why (``TimeoutError``, whose message is empty) instead of nothing."""

    async def main() -> None:
        lobby = HostLobby(PeerConfig("Ada", [ADDR], pin=PIN, handshake_timeout=0.2), 2, 2, "classic", RULES)
        port = await lobby.open()
        reader, writer = await asyncio.open_connection(ADDR, port)
        while await reader.read(4096):  # the offer, then the end: the listener gave up on us
            pass
        writer.close()
        await lobby.close()

    with caplog.at_level(logging.WARNING, logger="lanopoly.net.mesh"):
        asyncio.run(asyncio.wait_for(main(), 10))
    dropped = [r.getMessage() for r in caplog.records if r.getMessage().startswith("dropping connection from")]
    assert len(dropped) == 1 and re.fullmatch(r"dropping connection from \S+: TimeoutError", dropped[0]), dropped


def test_the_ready_file_holding_the_pin_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    """``lanopoly host --ready-file`` writes the PIN: mode 0600 from its creation, whatever the
    umask, and also when a killed host left a world-readable partial file behind."""
    ready = tmp_path / "ready.json"
    leftover = tmp_path / "ready.json.partial"
    leftover.write_text("{}")
    leftover.chmod(0o644)
    umask = os.umask(0)  # a file created by ``write_text`` would be 0666
    try:
        code = cli.main(
            ["host", "--no-advertise", "--ready-file", str(ready), "--timeout", "0", "--interfaces", ADDR, "--pin", PIN]
        )
    finally:
        os.umask(umask)
    assert code == cli.EXIT_SETUP  # nobody joined
    assert stat.S_IMODE(ready.stat().st_mode) == 0o600 and not leftover.exists()
    info = json.loads(ready.read_text())
    assert info["pin"] == PIN and re.fullmatch(r"[0-9a-f]{4}(-[0-9a-f]{4}){3}", info["fingerprint"]), info
    cli.write_private(ready, "again")  # over an existing file
    assert stat.S_IMODE(ready.stat().st_mode) == 0o600 and ready.read_text() == "again"
