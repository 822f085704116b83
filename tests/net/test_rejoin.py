"""A peer killed mid-game comes back with ``lanopoly rejoin`` and the game ends as if nothing happened.

The peer is a separate process killed with SIGKILL (no goodbye, its last moves half-sent); the
others notice the drop and wait. The restarted process replays its own saved log, gets the steps
it missed from the others (every signature and reveal checked), gives them what they missed from
it, and the game goes on to the end with the same final hash on every peer. Its saved log then
verifies offline like anyone's.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from lanopoly.log import GameLog
from lanopoly.net import PROTOCOL_VERSION
from lanopoly.net.framing import pack, unpack
from lanopoly.net.messages import Kind, ProtocolError, Rejoin, Sync, parse
from lanopoly.net.rejoin import PeerSecrets, load_saved, secret_path
from lanopoly.net.verify import verify_text

from .peers import run_game


@pytest.mark.parametrize(
    ("addresses", "crash"),
    [
        (["127.0.0.91", "127.0.0.92", "127.0.0.93"], (2, 60)),
        (["127.0.0.95", "127.0.0.96"], (0, 40)),
    ],
    ids=["3-peers-joiner-crashes", "2-peers-host-crashes"],
)
def test_killed_peer_rejoins_and_the_game_ends_with_identical_hashes(
    tmp_path: Path, addresses: list[str], crash: tuple[int, int]
) -> None:
    runs = run_game(tmp_path, addresses, players=4, rounds=30, timeout=120, crash=crash)
    for run in runs:
        assert run.code == 0, f"{run.address} exited {run.code}:\n{run.err}"
        assert run.result is not None and run.result["outcome"] == "over", run.result
        assert run.result["faults"] == [], run.result
    assert "rejoined game" in runs[crash[0]].out
    hashes = {run.result["state_hash"] for run in runs if run.result}
    assert len(hashes) == 1, [run.result for run in runs]
    final = hashes.pop()
    for run in runs:
        assert GameLog.load(run.log).replay().state_hash().hex() == final
        verified = verify_text(run.log.read_text())
        assert verified.networked and verified.final_hash.hex() == final
    secret = secret_path(runs[crash[0]].log)
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
    saved = load_saved(runs[crash[0]].log)
    assert PeerSecrets.load(secret).game_id == saved.start.game_id


@pytest.mark.parametrize(
    ("peers", "killed"),
    [(4, (2, 3)), (5, (0, 2, 4))],
    ids=["two of four", "the host and two others of five"],
)
def test_peers_killed_at_once_all_rejoin_and_the_game_ends_with_identical_hashes(
    tmp_path: Path, peers: int, killed: tuple[int, ...]
) -> None:
    """Several peers killed together all run ``lanopoly rejoin``: each learns from the live peers'
    SYNC which others are away too, plays on without waiting for them, and they link up again."""
    addresses = [f"127.0.0.{101 + 10 * (peers - 4) + i}" for i in range(peers)]
    runs = run_game(
        tmp_path, addresses, players=peers, rounds=20, timeout=90, crash=(killed[0], 40), crash_also=killed[1:]
    )
    for run in runs:
        assert run.code == 0, f"{run.address} exited {run.code}:\n{run.err}"
        assert run.result is not None and run.result["outcome"] == "over", run.result
        assert run.result["faults"] == [], run.result
    assert all("rejoined game" in runs[i].out for i in killed)
    hashes = {run.result["state_hash"] for run in runs if run.result}
    assert len(hashes) == 1, [run.result for run in runs]
    final = hashes.pop()
    for run in runs:
        verified = verify_text(run.log.read_text())
        assert verified.networked and verified.final_hash.hex() == final


def test_every_peer_killed_resumes_the_game_to_identical_hashes(tmp_path: Path) -> None:
    addresses = ["127.0.0.97", "127.0.0.98", "127.0.0.99"]
    runs = run_game(tmp_path, addresses, players=4, rounds=30, timeout=120, crash_all=60)
    for run in runs:
        assert run.code == 0, f"{run.address} exited {run.code}:\n{run.err}"
        assert run.result is not None and run.result["outcome"] == "over", run.result
        assert "resumed game" in run.out
    hashes = {run.result["state_hash"] for run in runs if run.result}
    assert len(hashes) == 1, [run.result for run in runs]
    for run in runs:
        assert verify_text(run.log.read_text()).final_hash.hex() == hashes.copy().pop()


def test_rejoin_and_sync_messages_round_trip_and_are_checked() -> None:
    rejoin = Rejoin(b"g" * 16, 2, b"p" * 16, b"s" * 64, 41)
    assert parse(unpack(pack(rejoin.to_wire()))) == rejoin
    sync = Sync(b"g" * 16, [(42, [(b"body", b"s" * 64)])], True, 42, [b"frame"], (1, 3))
    assert parse(unpack(pack(sync.to_wire()))) == sync
    assert sync.to_wire()[-1] == 0b1010  # the peers away, a bit set
    with pytest.raises(ProtocolError, match="signature"):
        parse([Kind.SYNC, PROTOCOL_VERSION, b"g" * 16, [[42, [[b"body", b"short"]]]], True, 42, [], 0])
    with pytest.raises(ProtocolError, match="last"):
        parse([Kind.SYNC, PROTOCOL_VERSION, b"g" * 16, [], 1, 42, [], 0])
    with pytest.raises(ProtocolError, match="away"):
        parse([Kind.SYNC, PROTOCOL_VERSION, b"g" * 16, [], True, 42, [], 1 << 8])
    with pytest.raises(ProtocolError, match="expected 6 fields"):  # a protocol 5 SYNC (no away set) is refused
        parse([Kind.SYNC, PROTOCOL_VERSION, b"g" * 16, [], True, 42, []])
    assert parse([Kind.SYNC, 5, b"g" * 16, [], True, 42, []], version=5) == Sync(b"g" * 16, [], True, 42, [])


def test_a_peer_that_cannot_prove_its_key_is_not_taken_back(tmp_path: Path) -> None:
    """A REJOIN signed with another key is refused and logged as a fault; the game is not disturbed."""
    asyncio.run(asyncio.wait_for(_forged_rejoin(), 60))


async def _forged_rejoin() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from lanopoly._core import Rules
    from lanopoly.bots import SimpleBot
    from lanopoly.net import secure
    from lanopoly.net.lockstep import LockstepSession
    from lanopoly.net.mesh import HostLobby, MeshJoiner, PeerConfig, dial

    addr, pin = "127.0.0.1", "123456"
    rules = Rules(round_limit=10).to_dict()
    lobby = HostLobby(PeerConfig("Ada", [addr], pin=pin), 2, 2, "classic", rules)
    port = await lobby.open()
    joiner = MeshJoiner(PeerConfig("Bob", [addr], pin=pin))
    join = asyncio.create_task(joiner.join(addr, port, lobby_timeout=10))
    await lobby.wait_full(10)
    host_mesh, guest_mesh = await asyncio.gather(lobby.start(), join)
    sessions = [
        LockstepSession(m, {s: SimpleBot() for s, c in enumerate(m.start.controllers) if c == m.me}, step_timeout=10)
        for m in (host_mesh, guest_mesh)
    ]

    async def impostor() -> None:
        while sessions[0].game.step < 10:
            await asyncio.sleep(0.01)
        conn, _ = await dial(addr, port, [addr], 5, secure.normalize_pin(pin), host_mesh.start.game_id)
        fake = Ed25519PrivateKey.generate().sign(secure.rejoin_proof_data(conn.binding, host_mesh.start.game_id, 1))
        await conn.send(Rejoin(host_mesh.start.game_id, 1, host_mesh.start.peers[1].peer_id, fake, 0).to_wire())
        assert await conn.reader.read() == b""  # closed without a word
        await conn.close()

    host, guest, _ = await asyncio.gather(sessions[0].run(), sessions[1].run(), impostor())
    assert host.outcome == guest.outcome == "over" and host.state_hash == guest.state_hash
    assert [f.kind for f in host.faults] == ["bad_rejoin"]


def test_a_broken_link_between_two_playing_peers_is_dialed_again_by_the_higher_index() -> None:
    """The link between peers 1 and 2 breaks mid-game (both processes live on): each waits for the
    other; peer 2 dials peer 1 from its session, peer 1 takes it back, and the game ends agreed."""
    asyncio.run(asyncio.wait_for(_broken_link(), 60))


async def _broken_link() -> None:
    from lanopoly._core import Rules
    from lanopoly.bots import SimpleBot
    from lanopoly.net.lockstep import LockstepSession
    from lanopoly.net.mesh import HostLobby, MeshJoiner, PeerConfig

    addr, pin = "127.0.0.1", "123456"
    rules = Rules(round_limit=10).to_dict()
    lobby = HostLobby(PeerConfig("Ada", [addr], pin=pin), 3, 3, "classic", rules)
    port = await lobby.open()
    joiners = [MeshJoiner(PeerConfig(name, [addr], pin=pin)) for name in ("Bob", "Cy")]
    first = asyncio.create_task(joiners[0].join(addr, port, lobby_timeout=10))
    while lobby.taken < 2:
        await asyncio.sleep(0.01)
    second = asyncio.create_task(joiners[1].join(addr, port, lobby_timeout=10))
    await lobby.wait_full(10)
    meshes = await asyncio.gather(lobby.start(), first, second)
    sessions = [
        LockstepSession(
            m,
            {s: SimpleBot() for s, c in enumerate(m.start.controllers) if c == m.me},
            step_timeout=10,
            rejoin_timeout=30,
        )
        for m in meshes
    ]

    broken = []

    async def break_link() -> None:
        while sessions[2].game.step < 20:
            await asyncio.sleep(0.001)
        broken.append(sessions[2].mesh.links[1])
        await broken[0].close()

    results = await asyncio.gather(*(s.run() for s in sessions), break_link())
    outcomes = results[:3]
    assert all(r.outcome == "over" for r in outcomes), [r.freeze for r in outcomes]
    assert sessions[2].mesh.links[1] is not broken[0] and sessions[1].mesh.links[2] is not broken[0]
    assert len({r.state_hash for r in outcomes}) == 1
    assert all(r.faults == [] for r in outcomes), [r.faults for r in outcomes]
