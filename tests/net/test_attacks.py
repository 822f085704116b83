"""Attacks on the sockets of a LAN game, tried as an outsider would, against the real listener,
handshakes and drivers (in one process, each peer on its own loopback address).

The outside tester found, against protocol 7: idle connections from a few addresses filling the
handshake slots (honest joins and rejoins failed); a flood from 256 addresses filling the address
table; ten wrong PINs locking a listener for the rest of the game (a killed peer could not rejoin);
a lobby host proving no key. Each is tried here against protocol 9.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from lanopoly.net import cli, wire
from lanopoly.net import protocol as p8
from lanopoly.net.core import effects as fx
from lanopoly.net.core.pinauth import AUTH_OFFER, BUSY, REJECT, PinJoiner, StartBudget, normalize_pin
from lanopoly.net.core.record import StepEntry
from lanopoly.net.core.session import Config, Session
from lanopoly.net.hosting import HostLobby, Joining, SetupError
from lanopoly.net.keys import ED25519, Suite
from lanopoly.net.links import Conn, LinkClosed, connect
from lanopoly.net.play import play, rebuild, restart
from lanopoly.net.store import Journal, Secrets, journal_path, secret_path

from .inproc import PIN, address, bots, drivers, open_lobby, set_up


async def idle(port: int, source: str, host: str = "127.0.0.1") -> asyncio.StreamWriter:
    """A connection that says nothing (slowloris)."""
    _, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    return writer


async def join(lobby: HostLobby, i: int, pin: str = PIN) -> None:
    joining = Joining(address(0), lobby.gate.port, f"guest{i}", pin, [address(i)], expect_fingerprint=lobby.fingerprint)
    task = asyncio.create_task(joining.run())
    await lobby.wait_full(10)
    starting = asyncio.create_task(lobby.start())
    started = await asyncio.wait_for(task, 20)
    await starting
    assert started.genesis.record.peers[started.me].name == f"guest{i}"
    await lobby.close()
    await started.gate.close()


def test_idle_connections_from_a_few_addresses_do_not_keep_a_joiner_out() -> None:
    async def main() -> None:
        lobby = await open_lobby(2)
        writers = [await idle(lobby.gate.port, f"127.0.2.{a}") for a in range(1, 5) for _ in range(8)]
        await lobby.gate.listener.until(lambda s: s.accepted >= 32)
        assert lobby.gate.listener.pending <= 16  # four slots per address
        await join(lobby, 1)
        for w in writers:
            w.close()

    asyncio.run(main())


def test_a_flood_from_256_addresses_does_not_keep_a_joiner_out() -> None:
    async def main() -> None:
        lobby = await open_lobby(2)
        writers = [await idle(lobby.gate.port, f"127.0.3.{a}") for a in range(1, 256)]
        writers.append(await idle(lobby.gate.port, "127.0.4.1"))
        await lobby.gate.listener.until(lambda s: s.accepted >= 256)
        await join(lobby, 1)
        for w in writers:
            w.close()

    asyncio.run(main())


async def say_hello(lobby: HostLobby, source: str) -> str:
    """Send an ``AUTH_HELLO`` from ``source``: "offer" if the host ran a SPAKE2 start, else its refusal."""
    conn = await connect(address(0), lobby.gate.port, source)
    try:
        conn.send(PinJoiner(normalize_pin(PIN)).hello())
        answer = wire.unpack(await conn.recv(5))
    finally:
        await conn.close()
    if answer[0] == AUTH_OFFER:
        return "offer"
    assert answer[0] == REJECT
    return str(answer[2])


def test_a_hello_flood_gets_only_the_lobby_s_spake2_budget_and_a_new_joiner_gets_in() -> None:
    """AUTH_HELLOs from two addresses, ten each: the host runs SPAKE2 starts only while its budget lasts
    (here no refill: 2 starts, then BUSY), keeping its reserve for an address it has not served, and an
    honest joiner from a new address gets in. (Every AUTH_HELLO cost the host a SPAKE2 start, 2.5 ms
    holding the GIL: a flood from many addresses saturated it.) A joiner answered BUSY tries again."""

    async def main() -> None:
        lobby = await open_lobby(2)
        lobby.budget = StartBudget(rate=1e-6, burst=3, reserve=1)
        answers = [await say_hello(lobby, f"127.0.7.{1 + i % 2}") for i in range(20)]
        assert answers.count("offer") == 2 and answers.count(BUSY) == 18, answers
        await join(lobby, 1)

        lobby = await open_lobby(2)
        lobby.budget = StartBudget(rate=40, burst=1, reserve=0)
        assert await say_hello(lobby, address(1)) == "offer"  # the joiner's address spent the token
        await join(lobby, 1)  # BUSY at first, then in once a token is back

    asyncio.run(main())


async def wrong_pin(lobby: HostLobby, source: str, pin: str) -> str:
    """Try ``pin`` from ``source``; the host's answer (a refusal's reason)."""
    conn = await connect(address(0), lobby.gate.port, source)
    machine = PinJoiner(normalize_pin(pin))
    try:
        conn.send(machine.hello())
        conn.send(await asyncio.to_thread(machine.offer, await conn.recv(5)))
        machine.confirm(await conn.recv(5))
    except Exception as e:  # the refusal
        return str(e)
    finally:
        await conn.close()
    return "accepted"


def test_thirty_wrong_pins_from_ten_addresses_lock_nobody_out() -> None:
    """Wrong guesses from many addresses never change the PIN: a joiner holding the one it was told
    gets in after them (a lobby that took a new PIN after ten turned every such joiner away)."""

    async def main() -> None:
        lobby = await open_lobby(2)
        # Thirty handshakes in a fraction of a second, three from each address: the lobby's SPAKE2
        # budget would answer BUSY to some (tested in test_start_budget.py); here only PINs count.
        lobby.budget = StartBudget(burst=64)
        wrong = "000000" if PIN != "000000" else "111111"
        answers = [await wrong_pin(lobby, f"127.0.5.{1 + i // 3}", wrong) for i in range(30)]
        assert all("wrong PIN" in a for a in answers), answers
        assert "too many wrong PINs" in await wrong_pin(lobby, "127.0.5.1", PIN)  # three wrong from there
        assert lobby.pin == PIN
        await join(lobby, 1, PIN)

    asyncio.run(main())


def test_a_joiner_refuses_a_lobby_that_does_not_prove_the_advertised_key() -> None:
    async def main() -> None:
        real = await open_lobby(2)
        impostor = await open_lobby(2)  # a lobby by the same name elsewhere, with its own key
        joining = Joining(
            address(0), impostor.gate.port, "guest", PIN, [address(1)], expect_fingerprint=real.fingerprint
        )
        with pytest.raises(SetupError, match=f"not the advertised {real.fingerprint}"):
            await joining.run()
        await real.close()
        await impostor.close()

    asyncio.run(main())


def test_after_the_start_strangers_and_pins_cannot_keep_a_restarted_peer_out(tmp_path: Path) -> None:
    """A peer killed mid-game comes back by its start-record key while strangers hold idle
    connections to every other peer and try PINs: no PIN is asked after the start."""

    async def main() -> None:
        started = await set_up(3, rounds=3)
        ds = drivers(started, tmp_path)
        halfway = asyncio.Event()
        ds[2].subscribe(lambda e: halfway.set() if isinstance(e, fx.StepApplied) and e.step >= 15 else None)
        tasks = [asyncio.create_task(play(d, s)) for d, s in zip(ds, started, strict=True)]
        await halfway.wait()
        tasks[2].cancel()
        with pytest.raises(asyncio.CancelledError):
            await tasks[2]
        writers = []
        for peer in (0, 1):
            port = started[peer].gate.port
            writers += [await idle(port, f"127.0.7.{a}", address(peer)) for a in range(1, 5) for _ in range(8)]
        for peer in (0, 1):  # the lobby is closed: a stranger's PIN handshake gets nowhere
            conn = await connect(address(peer), started[peer].gate.port, "127.0.8.1")
            conn.send(PinJoiner(normalize_pin(PIN)).hello())
            with pytest.raises(LinkClosed):
                await conn.recv(5)
            await conn.close()
        rebuilt = rebuild(tmp_path / "p2.json", bots, Config(step_timeout=10, rejoin_timeout=30))
        driver, gate = await restart(rebuilt, interfaces=[address(2)])
        back = await driver.run()
        await gate.close()
        results = [await t for t in tasks[:2]] + [back]
        assert {r.outcome for r in results} == {"over"}
        assert len({r.state_hash for r in results}) == 1
        for w in writers:
            w.close()

    asyncio.run(main())


def test_a_stranger_cannot_link_as_a_peer_of_the_game(tmp_path: Path) -> None:
    """A link handshake in a peer's name without its key gets nowhere, and the game plays on."""

    async def main() -> None:
        from lanopoly.net.core.linkauth import KeyDialer
        from lanopoly.net.keys import ED25519

        started = await set_up(2, rounds=1)
        ds = drivers(started, None)
        tasks = [asyncio.create_task(play(d, s)) for d, s in zip(ds, started, strict=True)]
        record = started[0].genesis.record
        stranger = KeyDialer(record, 1, ED25519.new_signer(None), 0, 40000, ED25519)  # claims to be peer 1
        conn: Conn = await connect(address(0), started[0].gate.port, "127.0.9.1")
        conn.send(stranger.hello())
        answer = await conn.recv(5)
        proof, _ = stranger.accept(answer)  # the listener proves itself; the stranger cannot
        conn.send(proof)
        with pytest.raises(LinkClosed):
            await conn.recv(5)
        results = [await t for t in tasks]
        assert {r.outcome for r in results} == {"over"}

    asyncio.run(main())


def test_a_join_that_cannot_reach_the_host_says_why_once(capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal is printed as docs/lan.md shows it, not as 'could not join: could not join: ...'."""
    with socket.socket() as taken:  # a port nobody listens on: bound, never listening
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        code = cli.main(["join", f"127.0.0.1:{port}", "--pin", "123456", "--timeout", "10"])
    out = capsys.readouterr().err
    assert code == 1 and f"could not join: cannot reach 127.0.0.1:{port}" in out, out
    assert "could not join: could not join" not in out, out


def test_a_peer_sending_status_in_a_loop_gets_one_answer_per_link() -> None:
    """STATUS (a link's first message) makes the receiver send what the sender lacks: the whole game
    for ``STATUS [0]``. Answered every time, a peer of the game sending it in a loop cost another
    16 ms of CPU and 150 KiB to send per 24 bytes (at step 850): one answer per link now."""

    async def main() -> None:
        started = await set_up(2, rounds=3)
        ds = drivers(started, None)
        results = await asyncio.gather(*(play(d, s) for d, s in zip(ds, started, strict=True)))
        assert {r.outcome for r in results} == {"over"}
        core = ds[0].core
        status = p8.encode(core.game_id, p8.Status(0, 0, ()))

        def sent(effects: list[fx.Effect]) -> int:
            return sum(len(e.payload) for e in effects if isinstance(e, fx.Send))

        core.link_up(1, 0.0)  # the link this STATUS opens
        assert sent(core.receive(1, status, 0.0)) > 1000  # the game, for a peer that lacks it
        again = [sent(core.receive(1, status, 0.0)) for _ in range(10)]
        assert max(again) < 100, again  # at most its BYE (the game is over): no history again

    asyncio.run(main())


def test_an_unfounded_evidence_message_does_not_freeze_the_game(tmp_path: Path) -> None:
    """A peer sends EVIDENCE for a step whose acks all agree, with nothing in it. Taken as is, it put
    every other peer in the evidence round and froze them all as a 'desync' blaming nobody (one
    message, and --replace-after could no longer save the game). Now it is named and the game goes on."""

    async def main() -> None:
        started = await set_up(3, rounds=3)
        ds = drivers(started, tmp_path)
        sent = asyncio.Event()

        def griefer(event: fx.Event) -> None:
            if isinstance(event, fx.StepApplied) and event.step == 10 and not sent.is_set():
                sent.set()
                for peer in (0, 1):
                    ds[2].links[peer].conn.send(p8.encode(ds[2].core.game_id, p8.Evidence(event.step, ())))

        ds[2].subscribe(griefer)
        results = await asyncio.gather(*(play(d, s) for d, s in zip(ds, started, strict=True)))
        assert sent.is_set()
        assert [r.outcome for r in results] == ["over"] * 3, [r.freeze for r in results]
        for r in results[:2]:
            assert [(f.peer, f.kind) for f in r.faults] == [(2, "unfounded_evidence")], r.faults

    asyncio.run(main())


def _finished(folder: Path, peers: int) -> Path:
    """The files of a finished game of ``peers`` peers, to rebuild a peer's core from (as a rejoin does)."""

    async def main() -> None:
        started = await set_up(peers, rounds=3)
        ds = drivers(started, folder)
        results = await asyncio.gather(*(play(d, s) for d, s in zip(ds, started, strict=True)))
        assert {r.outcome for r in results} == {"over"}

    asyncio.run(main())
    return folder


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _finished(tmp_path_factory.mktemp("finished2"), 2)


@pytest.fixture(scope="module")
def finished3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _finished(tmp_path_factory.mktemp("finished3"), 3)


def rebuilt(folder: Path, me: int, checks: list[bytes]) -> Session:
    """Peer ``me``'s core rebuilt from its journal in the middle of the game, its links to the other
    peers up; every signature it checks from now on is appended to ``checks``."""
    secrets = Secrets.read(secret_path(folder / f"p{me}.json"))
    genesis, entries = Journal.read(journal_path(folder / f"p{me}.json"))
    steps = [i for i, e in enumerate(entries) if isinstance(e, StepEntry)]
    upto = entries[: steps[len(steps) // 2 - 1] + 1]

    def counted(key: bytes, data: bytes, signature: bytes) -> bool:
        checks.append(data)
        return bool(ED25519.verify(key, data, signature))

    core = Session(
        genesis,
        me,
        ED25519.new_signer(secrets.key_seed),
        secrets.chain_secret,
        secrets.held,
        bots(genesis.record, me),
        Config(step_timeout=10, rejoin_timeout=30),
        suite=Suite("counted", ED25519.new_signer, counted),
        journal=upto,
    )
    assert core.game.step == len(steps) // 2
    for other in range(len(genesis.record.peers)):
        core.link_up(other, 0.0)  # its own index is ignored
    checks.clear()
    return core


def test_a_relay_of_long_settled_messages_costs_no_signature_check(finished: Path) -> None:
    """A peer passes on (RELAY) 64 validly signed messages of steps settled long ago, in a loop: they
    were each verified before being found too old to matter (7 ms of CPU per 10 KB frame at step 400,
    never named). Now the step window is looked at first."""
    checks: list[bytes] = []
    core = rebuilt(finished, 0, checks)
    old = tuple(m for r in core.record.steps_after(0)[: core.game.step - 2] for m in r.messages)[: p8.MAX_BATCH]
    assert len(old) >= 10
    core.receive(1, p8.encode(core.game_id, p8.Relay(old)), 1.0)
    assert checks == [] and core.faults == [] and core.result is None


def test_offers_for_steps_far_ahead_are_not_kept(finished: Path) -> None:
    """A peer OFFERs moves it signed for steps far ahead, a new step each time: each was verified and
    kept (its inbox and its equivocation slots, about 1 KB each, 22 MB for 20,000), never named nor
    forgotten. Now an offer outside the step window is dropped unverified, as any signed message."""
    checks: list[bytes] = []
    core = rebuilt(finished, 0, checks)
    key = ED25519.new_signer(Secrets.read(secret_path(finished / "p1.json")).key_seed)
    seat = core.genesis.record.controllers.index(1)
    for ahead in range(3, 103):
        move = p8.sign_action(
            key, core.game_id, core.game.step + ahead, 1, b"\0" * 32, seat, {"type": "decline", "player": seat}
        )
        core.receive(1, p8.encode(core.game_id, p8.Offer(move)), 1.0)
    assert checks == [] and core.inbox.offers == {} and core.faults == [] and core.result is None


def test_a_vote_in_the_last_round_does_not_crash_a_peer_whose_wish_changes(finished3: Path) -> None:
    """A peer votes in round 64, the last a vote may carry, at the step to come. A peer following it
    into that round and then wishing another change (one more peer to remove) signed a vote for
    round 65, which its own encoder refuses: WireError out of the session core. Now it does not vote."""
    core = rebuilt(finished3, 0, [])
    step, prev = core.game.step + 1, core._state_hash()
    core.vote_replace(2, "bot", 1.0)
    key = ED25519.new_signer(Secrets.read(secret_path(finished3 / "p1.json")).key_seed)
    last = p8.sign_vote(key, core.game_id, step, 1, prev, 64, (2,), "bank")  # not the same: no commit
    core.receive(1, last.wire(), 1.0)
    assert core.members.vote_of(0, step) is not None and core.members.vote_of(0, step).round == 64
    core.vote_replace(1, "bot", 1.0)  # its wish changes: no round is left at this step
    assert core.members.vote_of(0, step).round == 64 and core.result is None


def test_a_joiner_kept_busy_keeps_trying_within_its_address_s_start_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lobby that answers BUSY for as long as the joiner tries (its SPAKE2 budget spent, by a flood
    say): the joiner's retries stay under the listener's starts per address, so it is never cut off
    as a flood itself, and it gives up saying the lobby is busy. (Retrying every 50-250 ms it made
    more than 60 starts in 10 s: refused by the listener after 9.7 s, it failed with "end of
    stream".) Here the listener's window and the retry time are a tenth of the real ones."""
    from lanopoly.net import hosting
    from lanopoly.net.listener import Limits

    monkeypatch.setattr(hosting, "BUSY_RETRY_FOR", 2.0)

    async def main() -> None:
        lobby = await open_lobby(2)
        limits = lobby.gate.listener.limits
        lobby.gate.listener.limits = Limits(
            starts_per_address=limits.starts_per_address // 10, window=limits.window / 10
        )
        lobby.budget = StartBudget(rate=1e-6, burst=1, reserve=0)
        assert lobby.budget.take("127.9.9.9", 0.0)  # spent: BUSY to everyone from now on
        joining = Joining(
            address(0), lobby.gate.port, "guest1", PIN, [address(1)], expect_fingerprint=lobby.fingerprint
        )
        with pytest.raises(SetupError, match="busy"):
            await joining.run()
        assert lobby.gate.listener.stats.refused == {}, lobby.gate.listener.stats
        await lobby.close()

    asyncio.run(main())


def test_after_a_stop_of_this_process_the_next_save_waits_its_interval(finished: Path, tmp_path: Path) -> None:
    """Not an attack, a laptop asleep: the driver paced its saves in the session's time but armed
    their timer in the loop's. Once a stop of the process was noticed (the session's time then lags
    the loop's by the stop), the next save was due at a loop time long past: its timer fired at
    once and was armed again, without pause, until the lag was made up (60 s here)."""
    from lanopoly.net.driver import Driver

    async def main() -> None:
        loop = asyncio.get_running_loop()
        driver = Driver(rebuilt(finished, 0, []), ED25519.new_signer(None), save=tmp_path / "p0.json")
        driver.clock.armed(loop.time() - 60)  # a wake due 60 s ago: this process did not run
        driver.now()
        assert driver.clock.stops == 1
        wakes = 0
        due = driver._save_due

        def counted() -> None:
            nonlocal wakes
            wakes += 1
            due()

        driver._save_due = counted  # type: ignore[method-assign]
        driver._dirty = True
        driver._maybe_save()  # the first save is written at once
        assert driver._saving is not None
        await driver._saving
        driver._dirty = True
        driver._maybe_save()  # the next waits for its interval
        for _ in range(20):
            await asyncio.sleep(0)
        pending = driver._save_later
        assert wakes == 0 and pending is not None and pending.when() > loop.time(), (wakes, pending)
        pending.cancel()

    asyncio.run(main())


def test_a_false_port_in_another_peer_s_status_does_not_keep_a_peer_unreachable(finished3: Path) -> None:
    """Peer 1 tells peer 0, in the STATUS that opens their link, that peer 2 listens on port 1 (a lie:
    a third peer's port is only a hint). Peer 0 still dials peer 2's start-record port every other
    attempt, and once peer 2 links from that port the hint is dropped. (The hint stuck for good: when
    peer 0's link to peer 2 dropped it dialed port 1 for ever, and froze naming peer 2.)"""
    from lanopoly.net.driver import Driver
    from lanopoly.net.protocol import Status

    core = rebuilt(finished3, 0, [])
    record = core.genesis.record
    core.receive(1, p8.encode(core.game_id, Status(core.game.step, len(core.members.changes), ((2, 1),))), 1.0)
    assert core.ports == {2: 1}
    driver = Driver(core, ED25519.new_signer(None))
    assert [driver.address_of(2, attempt)[1] for attempt in range(4)] == [1, record.peers[2].port] * 2
    core.link_down(2, "gone", 2.0)
    core.link_up(2, 3.0, record.peers[2].port)
    assert core.ports == {}
