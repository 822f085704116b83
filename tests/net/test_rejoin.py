"""A peer killed mid-game comes back with ``lanopoly rejoin`` and the game ends as if nothing happened.

The peer is a separate process killed with SIGKILL (no goodbye, its last moves half-sent); the
others notice the drop and wait. The restarted process replays its own saved log, gets the steps
it missed from the others (every signature and reveal checked), gives them what they missed from
it, and the game goes on to the end with the same final hash on every peer. Its saved log then
verifies offline like anyone's.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import stat
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, ClassVar, cast

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly._core import Rules
from lanopoly.bots import Policy, SimpleBot
from lanopoly.log import GameLog
from lanopoly.net import PROTOCOL_VERSION, secure
from lanopoly.net.framing import FramedConnection, pack, unpack
from lanopoly.net.lockstep import LockstepSession
from lanopoly.net.mesh import HostLobby, Listener, Mesh, MeshJoiner, PeerConfig
from lanopoly.net.messages import Accept, Kind, Message, ProtocolError, Rejoin, Sync, parse
from lanopoly.net.outcome import SessionResult
from lanopoly.net.reconnect import RECONNECT_INTERVAL, read_sync, stop_if_cancelled
from lanopoly.net.rejoin import PeerSecrets, load_saved, rejoin, secret_path
from lanopoly.net.verify import VerifyError, verify_text

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


def test_a_cancellation_that_wait_for_loses_still_stops_a_retry_loop() -> None:
    """Python 3.11's ``wait_for`` returns the result when the cancel comes as the awaited future
    completes; a rejoiner's dial loop then went on to its deadline (the rare multi-rejoin freeze).
    ``stop_if_cancelled`` after the wait stops it all the same."""

    async def main() -> None:
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def retrying() -> str:
            await asyncio.wait_for(done, 5)  # the cancel may be lost here...
            stop_if_cancelled()  # ...not here
            return "went on"

        task = asyncio.create_task(retrying())
        await asyncio.sleep(0)  # it waits
        done.set_result(1)
        task.cancel()  # in the same loop iteration
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_rejoin_and_sync_messages_round_trip_and_are_checked() -> None:
    rejoin = Rejoin(b"g" * 16, 2, b"p" * 16, b"s" * 64, 41, 40123)
    assert parse(unpack(pack(rejoin.to_wire()))) == rejoin
    for port in (0, 65536, -1, "40123", None):  # where it listens now: a port, nothing else
        with pytest.raises(ProtocolError, match="port"):
            parse([*rejoin.to_wire()[:-1], port])
    with pytest.raises(ProtocolError, match="expected 6 fields"):  # a protocol 6 REJOIN (no port) is refused
        parse(rejoin.to_wire()[:-1])
    changes = [(43, [(b"vote 0", b"a" * 64), (b"vote 1", b"b" * 64)])]
    ports = ((1, 40124), (3, 65535))
    sync = Sync(b"g" * 16, [(42, [(b"body", b"s" * 64)])], True, 42, [b"frame"], (1, 3), changes, ports)
    assert parse(unpack(pack(sync.to_wire()))) == sync
    assert sync.to_wire()[-3] == 0b1010  # the peers away, a bit set
    assert sync.to_wire()[-2] == [[43, [[b"vote 0", b"a" * 64], [b"vote 1", b"b" * 64]]]]  # each change's votes
    assert sync.to_wire()[-1] == [[1, 40124], [3, 65535]]  # where peers listen now, [peer, port]

    def sync_with(*fields: object) -> list[object]:
        return [Kind.SYNC, PROTOCOL_VERSION, b"g" * 16, *fields]

    with pytest.raises(ProtocolError, match="signature"):
        parse(sync_with([[42, [[b"body", b"short"]]]], True, 42, [], 0, [], []))
    with pytest.raises(ProtocolError, match="last"):
        parse(sync_with([], 1, 42, [], 0, [], []))
    with pytest.raises(ProtocolError, match="away"):
        parse(sync_with([], True, 42, [], 1 << 8, [], []))
    bad_changes = [
        [[0, [[b"vote", b"s" * 64]]]],  # no step 0
        [[43, []]],  # a change without votes
        [[43, [[b"vote", b"short"]]]],  # a truncated signature
        [[43, [[b"v" * 513, b"s" * 64]]]],  # an oversized vote body
        [[43, [[b"vote", b"s" * 64]] * 9]],  # more votes than peers
        [[43, [[b"vote", b"s" * 64]]]] * 9,  # more changes than a game can have
        [[43]],
        7,
    ]
    for bad in bad_changes:
        with pytest.raises(ProtocolError):
            parse(sync_with([], True, 42, [], 0, bad, []))
    assert parse(sync_with([], True, 42, [], 0, [], [[7, 1]] + [[p, 40000 + p] for p in range(7)])).ports[0] == (7, 1)
    bad_ports = [
        [[p % 8, 40000 + p] for p in range(9)],  # more entries than peers
        [[8, 40123]],  # no peer 8
        [[-1, 40123]],
        [[1, 0]],  # not a port
        [[1, 65536]],
        [[1, 40123], [1, 40124]],  # one peer twice
        [[1, 40123], [1, 40123]],
        [["1", 40123]],  # not integers
        [[1, "40123"]],
        [[True, 40123]],
        [[1, b"\x9c\xbb"]],
        [[1, None]],
        [[1]],  # not [peer, port]
        [[1, 40123, 5]],
        [1, 40123],
        {1: 40123},
        7,
        None,
    ]
    for bad in bad_ports:
        with pytest.raises(ProtocolError, match="sync port"):
            parse(sync_with([], True, 42, [], 0, [], bad))
    with pytest.raises(ProtocolError, match="expected 8 fields"):  # a protocol 6 layout in a protocol 7 SYNC
        parse(sync_with([], True, 42, [], 0, []))
    with pytest.raises(ProtocolError, match="expected 8 fields"):  # a protocol 5 SYNC (no away set) is refused
        parse(sync_with([], True, 42, []))
    v6 = [Kind.SYNC, 6, b"g" * 16, [], True, 42, [], 0b10, []]  # protocol 6 (no ports) parses as before
    assert parse(v6, version=6) == Sync(b"g" * 16, [], True, 42, [], (1,), [])
    assert parse([Kind.SYNC, 5, b"g" * 16, [], True, 42, []], version=5) == Sync(b"g" * 16, [], True, 42, [])

    class Frames:
        """A connection delivering ``sync``: ``read_sync`` checks its ports against the start record."""

        label = "peer 0"

        async def recv_within(self, timeout: float) -> tuple[int, list[Any]]:
            return 0, unpack(pack(dataclasses.replace(sync, held=[], changes=[]).to_wire()))

    state = asyncio.run(read_sync(cast(FramedConnection, Frames()), b"g" * 16, 4, 1.0, proof_of=None))
    assert state.ports == {1: 40124, 3: 65535} and state.away == {1, 3}
    with pytest.raises(ProtocolError, match="port for peer 3, not in the start record"):
        asyncio.run(read_sync(cast(FramedConnection, Frames()), b"g" * 16, 3, 1.0, proof_of=None))


PIN = "123456"
"""The PIN of the in-process games below (every peer on 127.0.0.1)."""


async def _meshes(names: list[str]) -> list[Mesh]:
    """A game of ``len(names)`` peers formed in this event loop on 127.0.0.1, ``meshes[i]`` peer i."""
    addr = "127.0.0.1"
    rules = Rules(round_limit=10).to_dict()
    lobby = HostLobby(PeerConfig(names[0], [addr], pin=PIN), len(names), len(names), "classic", rules)
    port = await lobby.open()
    joins = [
        asyncio.create_task(MeshJoiner(PeerConfig(name, [addr], pin=PIN)).join(addr, port, lobby_timeout=10))
        for name in names[1:]
    ]
    await lobby.wait_full(10)
    return sorted(await asyncio.gather(lobby.start(), *joins), key=lambda m: m.me)


def _policies(mesh: Mesh) -> dict[int, Policy]:
    """A simple bot for each seat this peer controls."""
    return {s: SimpleBot() for s, c in enumerate(mesh.start.controllers) if c == mesh.me}


def test_a_peer_that_cannot_prove_its_key_is_not_taken_back(tmp_path: Path) -> None:
    """A REJOIN signed with another key is refused and logged as a fault; the game is not disturbed."""
    asyncio.run(asyncio.wait_for(_forged_rejoin(), 60))


async def _forged_rejoin() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from lanopoly.net import secure
    from lanopoly.net.mesh import dial

    addr, pin = "127.0.0.1", PIN
    host_mesh, guest_mesh = await _meshes(["Ada", "Bob"])
    port = host_mesh.listener.port
    sessions = [LockstepSession(m, _policies(m), step_timeout=10) for m in (host_mesh, guest_mesh)]

    async def impostor() -> None:
        while sessions[0].game.step < 10:
            await asyncio.sleep(0.01)
        conn, _ = await dial(addr, port, [addr], 5, secure.normalize_pin(pin), host_mesh.start.game_id)
        fake = Ed25519PrivateKey.generate().sign(secure.rejoin_proof_data(conn.binding, host_mesh.start.game_id, 1))
        forged = Rejoin(host_mesh.start.game_id, 1, host_mesh.start.peers[1].peer_id, fake, 0, guest_mesh.listener.port)
        await conn.send(forged.to_wire())
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
    meshes = await _meshes(["Ada", "Bob", "Cy"])
    sessions = [LockstepSession(m, _policies(m), step_timeout=10, rejoin_timeout=30) for m in meshes]

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


@pytest.mark.parametrize("forgers", [(), (0,), (0, 1)], ids=["honest", "one-forges", "all-forge"])
def test_a_rejoiner_that_voted_before_it_dropped_learns_the_change_from_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forgers: tuple[int, ...]
) -> None:
    """Peer 3 goes silent; peer 2 votes to replace it, its vote reaches peers 0 and 1, then peer 2 is
    killed; 0 and 1 vote too and make the change. Peer 2 comes back with ``rejoin``: the SYNC carries
    the change's signed votes, it makes the change as they did (checked as ``verify`` does), and the
    game ends with 0, 1 and 2 on one final hash, no faults, every saved log verifying.

    ``forgers`` send the change with a vote whose signature is not its voter's: a change one honest
    peer proves is made all the same; with no proof the rejoin fails (VerifyError)."""
    asyncio.run(asyncio.wait_for(_rejoiner_missed_a_change(tmp_path, monkeypatch, forgers), 60))


class _FourPeers:
    """Four peers playing in this event loop, each a ``LockstepSession`` saving its game and its secrets."""

    options: ClassVar[dict[str, Any]] = {"step_timeout": 10.0, "rejoin_timeout": 30.0, "save_interval": 0.05}
    addr: ClassVar[str] = "127.0.0.1"

    def __init__(self, tmp_path: Path) -> None:
        self.saves = [tmp_path / f"peer{i}.json" for i in range(4)]
        self.sessions: list[LockstepSession] = []
        self.runs: list[asyncio.Task[SessionResult]] = []

    async def start(self) -> None:
        meshes = await _meshes(["Ada", "Bob", "Cy", "Di"])
        for mesh, save in zip(meshes, self.saves, strict=True):
            PeerSecrets.of(mesh).save(secret_path(save))
        self.sessions = [
            LockstepSession(m, _policies(m), log_path=self.saves[i], **self.options) for i, m in enumerate(meshes)
        ]
        self.runs = [asyncio.create_task(s.run()) for s in self.sessions]

    async def kill(self, peer: int) -> None:
        """Stop ``peer``'s session as a crash would: its links cut at once (the others see it drop
        before they play on without it), then its task cancelled until it is (a cancellation may be
        swallowed while the session closes)."""
        for link in list(self.sessions[peer].mesh.links.values()):
            link.writer.transport.abort()
        while not self.runs[peer].done():
            self.runs[peer].cancel()
            await asyncio.sleep(0.01)

    async def settled(self, peers: list[int]) -> int:
        """Wait until ``peers`` stand still at one step (the game waits for someone away); returns it."""
        seen: list[int] = []
        while len(seen) < 20 or len({*seen[-20:]}) > 1:
            steps = {self.sessions[p].game.step for p in peers}
            seen.append(steps.pop() if len(steps) == 1 else -1)
            await asyncio.sleep(0.02)
        assert not self.sessions[peers[0]].game.is_over, "the game ended before the peers stood still"
        return seen[-1]

    async def kill_3_at(self, step: int) -> None:
        """Peer 3 goes away for good at ``step``: the others wait for it."""
        while self.sessions[3].game.step < step:
            await asyncio.sleep(0.005)
        await self.kill(3)

    async def vote_and_wait(self, voter: int, step: int, reached: tuple[int, ...]) -> None:
        """``voter`` votes to replace peer 3 (from ``step``); wait until the vote reached ``reached``."""
        self.sessions[voter].vote_replace(3)
        while not all(voter in self.sessions[p].voting.at(step) for p in reached):
            await asyncio.sleep(0.01)

    async def changed(self, peers: tuple[int, ...], step: int) -> None:
        """Wait until ``peers`` made the change (peer 3 replaced from ``step``)."""
        while not all(self.sessions[p].membership.changes for p in peers):
            await asyncio.sleep(0.01)
        for p in peers:
            assert [(c.step, c.removed) for c in self.sessions[p].membership.changes] == [(step, (3,))]

    async def reach(self, peer: int, step: int) -> None:
        """Wait until ``peer`` played up to ``step`` (the game must not end before)."""
        game = self.sessions[peer].game
        while game.step < step:
            assert not game.is_over, f"the game ended at step {game.step}, before step {step}"
            await asyncio.sleep(0.005)

    async def crash(self, peer: int) -> None:
        """``peer`` saves its game, then is killed and its listener closed (its process is gone)."""
        session = self.sessions[peer]
        await session.save_now()
        await self.kill(peer)
        await session.mesh.listener.close()

    @contextlib.asynccontextmanager
    async def moved(self, peer: int, at: int, squatter: _Impostor | None = None) -> AsyncIterator[LockstepSession]:
        """``peer`` is killed once it played step ``at`` and something else takes its port meanwhile:
        it comes back with ``rejoin`` listening on another port. Yields its new session, running
        (it replaces the old one in ``sessions`` and ``runs``), while the old port stays taken:
        by something that hangs up on whoever connects, or by ``squatter``."""
        await self.reach(peer, at)
        old_port = self.sessions[peer].mesh.listener.port
        await self.crash(peer)
        if squatter is None:  # something else listens on the peer's port now (and hangs up on whoever connects)
            taken = await asyncio.start_server(lambda _, writer: writer.close(), self.addr, old_port)
        else:
            await squatter.listen(old_port)
        try:
            back = await self.rejoin(peer)
            assert back.mesh.listener.port != old_port
            yield back
        finally:
            if squatter is None:
                taken.close()
            else:
                await squatter.close()

    def cut(self, a: int, b: int) -> FramedConnection:
        """Break the link between playing peers ``a`` and ``b`` (both ends aborted, as a network
        failure would); returns ``a``'s end of it."""
        link = self.sessions[a].mesh.links[b]
        link.writer.transport.abort()
        self.sessions[b].mesh.links[a].writer.transport.abort()
        return link

    async def rejoin(self, peer: int) -> LockstepSession:
        """``peer``, killed, takes its seat again (``lanopoly rejoin``); its new session runs in ``runs``."""
        back = await rejoin(self.saves[peer], _policies, interfaces=[self.addr], timeout=5.0, **self.options)
        self.sessions[peer] = back
        self.runs[peer] = asyncio.create_task(back.run())
        return back


async def _rejoiner_missed_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forgers: tuple[int, ...]) -> None:
    peers = _FourPeers(tmp_path)
    await peers.start()
    sessions, saves, options, addr, policies = peers.sessions, peers.saves, peers.options, peers.addr, _policies
    await peers.kill_3_at(30)
    step = await peers.settled([0, 1, 2]) + 1
    await peers.vote_and_wait(2, step, (0, 1))
    await sessions[2].save_now()
    await peers.kill(2)  # killed, its vote cast: the others wait for it too
    sessions[0].vote_replace(3)
    sessions[1].vote_replace(3)
    await peers.changed((0, 1), step)

    for p in forgers:
        honest = sessions[p].catch_up.changes_after

        def forged(have: int, honest: Callable[[int], list[Any]] = honest) -> list[Any]:
            return [(step, [(body, bytes(64)) for body, _ in votes]) for step, votes in honest(have)]

        monkeypatch.setattr(sessions[p].catch_up, "changes_after", forged)
    if forgers == (0, 1):
        with pytest.raises(VerifyError, match="not signed by its key"):
            await rejoin(saves[2], policies, interfaces=[addr], timeout=5.0, **options)
        await peers.kill(0)
        await peers.kill(1)
        return
    back = await rejoin(saves[2], policies, interfaces=[addr], timeout=5.0, **options)
    assert [(c.step, c.removed) for c in back.membership.changes] == [(step, (3,))]
    results = await asyncio.gather(peers.runs[0], peers.runs[1], back.run())
    _ended_agreed(results, saves[:3])


@pytest.mark.parametrize("missing", [2, 1], ids=["the dialer missed a vote", "the dialed peer missed a vote"])
def test_a_peer_that_missed_a_vote_when_its_link_broke_learns_the_change_when_it_links_up_again(
    tmp_path: Path, missing: int
) -> None:
    """Peer 3 goes silent; the peer ``missing`` (2 or 1) votes to replace it and the vote reaches
    the other two; then the link between 1 and 2 breaks and the other of the two votes, with 0:
    that vote never reaches ``missing``, so 0 and the other make the change and ``missing`` does
    not. Peer 2 dials 1 again from its session (``reconnect``). When 2 missed the vote, 1's SYNC
    carries the change's votes and 2 counts them (``CatchUp.adopt``); when 1 missed it, 2 repeats
    its own vote of the change (having made it, it does not vote again otherwise). Either way
    ``missing`` makes the change too and the game ends agreed."""
    asyncio.run(asyncio.wait_for(_vote_lost_with_a_link(tmp_path, missing), 60))


async def _vote_lost_with_a_link(tmp_path: Path, missing: int) -> None:
    lost = 3 - missing  # the other of peers 1 and 2, whose vote goes down with the link
    peers = _FourPeers(tmp_path)
    await peers.start()
    sessions = peers.sessions
    await peers.kill_3_at(30)
    step = await peers.settled([0, 1, 2]) + 1
    await peers.vote_and_wait(missing, step, (0, lost))
    broken = sessions[2].mesh.links[1]
    await broken.close()
    sessions[lost].vote_replace(3)  # lost with the link: ``missing`` never gets it
    sessions[0].vote_replace(3)
    await peers.changed((0, lost), step)
    await peers.changed((missing,), step)
    results = await asyncio.gather(*peers.runs[:3])
    assert sessions[2].mesh.links[1] is not broken
    _ended_agreed(results, peers.saves[:3])


@pytest.mark.parametrize("peer_2_rejoins", [False, True], ids=["live-peer-redials", "rejoiner-dials-and-redials"])
def test_a_peer_that_rejoined_on_another_port_is_dialed_where_it_listens_now(
    tmp_path: Path, peer_2_rejoins: bool
) -> None:
    """Peer 1 is killed and its port taken meanwhile: it rejoins listening on another one (its
    REJOIN says which). Then, if ``peer_2_rejoins``, peer 2 is killed and rejoins too: peer 1's
    start record port is not peer 1 any more, but the SYNCs taking peer 2 back say where it listens
    (``ports``), and peer 2 dials it there. Later the link between 1 and 2 breaks: peer 2, the
    higher index, dials peer 1 again from its session at its new port, and the game ends agreed."""
    asyncio.run(asyncio.wait_for(_moved_peer(tmp_path, peer_2_rejoins), 60))


async def _moved_peer(tmp_path: Path, peer_2_rejoins: bool) -> None:
    peers = _FourPeers(tmp_path)
    await peers.start()
    async with peers.moved(1, 20) as moved:
        await peers.reach(1, moved.game.step + 10)
        if peer_2_rejoins:
            await peers.crash(2)
            back = await peers.rejoin(2)
            assert back.mesh.links.keys() == {0, 1, 3}  # peer 1 reached, at its new port
            assert back.reconnects.ports == {1: moved.mesh.listener.port}
            await peers.reach(2, back.game.step + 10)
        broken = peers.cut(2, 1)
        results = await asyncio.gather(*peers.runs)
    _ended_agreed(results, peers.saves, replaced=0)
    assert peers.sessions[2].mesh.links[1] is not broken


def _ended_agreed(results: list[SessionResult], saves: list[Path], replaced: int = 1) -> None:
    """Every session ended the game on one final hash, without faults, and its saved log verifies
    with ``replaced`` replacements made."""
    assert all(r.outcome == "over" for r in results), [r.freeze for r in results]
    assert len({r.state_hash for r in results}) == 1
    assert all(r.faults == [] for r in results), [r.faults for r in results]
    for save in saves:
        verified = verify_text(save.read_text())
        assert verified.replaced == replaced and verified.final_hash == results[0].state_hash


class _Impostor:
    """Something that knows the PIN but not peer ``index``'s key, listening at that peer's address
    (its port, taken after it crashed): it answers a REJOIN as that peer would, a SYNC saying it is
    where the dialer is, with no proof of the key (``forged``: one made with another key)."""

    def __init__(self, game_id: bytes, index: int, forged: bool) -> None:
        self.game_id, self.index, self.forged = game_id, index, forged
        self.rejoins: list[int] = []
        """Who dialed it, by the REJOINs it got."""
        self.listener: Listener | None = None
        self.conns: list[FramedConnection] = []

    async def answer(self, conn: FramedConnection, message: Message) -> bool:
        if not isinstance(message, Rejoin):
            return False
        self.rejoins.append(message.index)
        if self.forged:
            fake = Ed25519PrivateKey.generate().sign(secure.accept_proof_data(conn.binding, self.game_id, self.index))
            await conn.send(Accept(self.game_id, self.index, fake).to_wire())
        await conn.send(Sync(self.game_id, [], True, message.have_step, [], (), [], ()).to_wire())
        self.conns.append(conn)
        return True

    async def listen(self, port: int) -> None:
        async def game_id() -> bytes:
            return self.game_id

        self.listener = Listener(self.answer, [_FourPeers.addr], port, 5.0, secure.normalize_pin(PIN), game_id)
        await self.listener.start()

    async def close(self) -> None:
        if self.listener is not None:
            await self.listener.close()
        await asyncio.gather(*(conn.close() for conn in self.conns))


@pytest.mark.parametrize("forged", [False, True], ids=["no proof", "another key's proof"])
def test_a_rejoiner_refuses_an_impostor_at_a_peers_address(tmp_path: Path, forged: bool) -> None:
    """Peer 1 rejoins on another port, its own taken by something that knows the PIN (not its
    key) and answers REJOINs as peer 1. Peer 2 is killed and rejoins: it dials peer 1 at its start
    record port first, reaches the impostor, which does not prove peer 1's key (``ACCEPT``): refused,
    it dials again where the others' SYNCs say peer 1 listens, and the game ends agreed."""
    asyncio.run(asyncio.wait_for(_rejoiner_meets_an_impostor(tmp_path, forged), 60))


async def _rejoiner_meets_an_impostor(tmp_path: Path, forged: bool) -> None:
    peers = _FourPeers(tmp_path)
    await peers.start()
    impostor = _Impostor(peers.sessions[0].game_id, 1, forged)
    async with peers.moved(1, 20, impostor) as moved:
        await peers.reach(1, moved.game.step + 10)
        await peers.crash(2)
        back = await peers.rejoin(2)
        assert impostor.rejoins[:1] == [2]  # peer 2 reached the impostor first...
        assert back.reconnects.ports == {1: moved.mesh.listener.port}  # ...then peer 1, where it listens
        results = await asyncio.gather(*peers.runs)
    _ended_agreed(results, peers.saves, replaced=0)


@pytest.mark.parametrize("forged", [False, True], ids=["no proof", "another key's proof"])
def test_a_session_dialing_a_peer_again_refuses_an_impostor_at_its_address(tmp_path: Path, forged: bool) -> None:
    """Peer 1 crashes and something that knows the PIN (not its key) takes its port. Peers 2 and 3
    dial peer 1 again from their sessions and reach the impostor, which does not prove peer 1's key:
    they go on waiting for peer 1 (taking the impostor for it, they would wait for no one). Peer 1
    rejoins, on another port, and the game ends agreed."""
    asyncio.run(asyncio.wait_for(_session_meets_an_impostor(tmp_path, forged), 60))


async def _session_meets_an_impostor(tmp_path: Path, forged: bool) -> None:
    peers = _FourPeers(tmp_path)
    await peers.start()
    impostor = _Impostor(peers.sessions[0].game_id, 1, forged)
    await peers.reach(1, 20)
    old_port = peers.sessions[1].mesh.listener.port
    await peers.crash(1)
    await impostor.listen(old_port)
    try:
        while 2 not in impostor.rejoins or 3 not in impostor.rejoins:  # each reached it...
            await asyncio.sleep(0.05)
        await asyncio.sleep(4 * RECONNECT_INTERVAL)
        assert all(1 in peers.sessions[p].waiting_for() for p in (0, 2, 3))  # ...and still waits for peer 1
        assert impostor.rejoins.count(2) >= 2 and impostor.rejoins.count(3) >= 2  # dialing it again
        back = await peers.rejoin(1)
        assert back.mesh.listener.port != old_port
        results = await asyncio.gather(*peers.runs)
    finally:
        await impostor.close()
    _ended_agreed(results, peers.saves, replaced=0)
