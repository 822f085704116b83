"""The console on the LAN: the networked table driven without a terminal, and two console peers in
real terminals (tmux, 80x24) that host, discover, join with the PIN and play by typed commands.

Every test and every process here uses loopback addresses only (``LANOPOLY_INTERFACES``) and a
test-only DNS-SD type (``LANOPOLY_SERVICE_TYPE``): nothing is sent on the machine's network card.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanopoly import IllegalAction, Rules
from lanopoly.bots import SimpleBot
from lanopoly.console.commands import CommandError
from lanopoly.console.lobby import lobby_names, start_lobby
from lanopoly.console.net_session import NetTable
from lanopoly.net.mesh import HostLobby, MeshJoiner, PeerConfig

TEST_SERVICE_TYPE = "_lanopoly-test._tcp.local."


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("LANOPOLY_INTERFACES", "127.0.0.1")
    monkeypatch.setenv("LANOPOLY_SERVICE_TYPE", TEST_SERVICE_TYPE)
    yield


async def _two_tables(seats: int, rounds: int = 0) -> tuple[NetTable, NetTable]:
    """A host (with ``seats - 2`` bots) and one joiner on 127.0.0.1, as two networked tables."""
    rules = Rules(round_limit=rounds).to_dict()
    lobby = HostLobby(PeerConfig("ann", ["127.0.0.1"], pin="246810"), seats, seats, "classic", rules)
    port = await lobby.open()
    joiner = MeshJoiner(PeerConfig("bob", ["127.0.0.1"], pin="246810"))
    joining = asyncio.create_task(joiner.join("127.0.0.1", port))
    while lobby.taken < 2:
        await asyncio.sleep(0.01)
    assert lobby_names(lobby) == ["ann", "bob"]
    host_mesh = await start_lobby(lobby, seats)
    guest_mesh = await joining
    return NetTable(host_mesh, bot=SimpleBot, bot_delay=0), NetTable(guest_mesh, bot=SimpleBot, bot_delay=0, lang="fr")


def test_two_networked_tables_play_a_game_to_the_end_and_agree():
    async def run() -> None:
        host, guest = await _two_tables(3, rounds=4)
        tables = (host, guest)
        try:
            assert (host.me, guest.me) == (0, 1)
            assert host.game.names == ["ann", "bob", "bot 1"] and set(host.bots) == {2} and not guest.bots
            person = SimpleBot()
            refused: list[str] = []
            deadline = time.monotonic() + 20
            while not (host.result and guest.result) and time.monotonic() < deadline:
                for table in tables:
                    table.step()
                    if table.legal():
                        table.act(person.choose(table.game, table.me, table.legal()))
                    elif table.playing and table.game.current_player not in (None, -1, table.me):
                        with pytest.raises(CommandError) as refusal:
                            table.act({"type": "roll", "player": table.me})
                        refused.append(str(refusal.value))
                await asyncio.sleep(0.001)
            assert host.result is not None and guest.result is not None
            assert host.result.outcome == guest.result.outcome == "over"
            assert host.game.state_hash() == guest.game.state_hash()
            assert any(line.startswith("Game over") for line in host.lines)
            assert any(line.startswith("Partie terminée") for line in guest.lines)
            assert "only moves in your turn" in refused[0].lower() or "seuls les coups" in refused[0]
            assert "every peer agrees" in host.status()[1]
            with pytest.raises(CommandError, match="over"):
                host.act({"type": "roll", "player": 0})
        finally:
            for table in tables:
                await table.close()

    asyncio.run(asyncio.wait_for(run(), 40))


def test_an_illegal_move_is_refused_here_and_nothing_is_sent():
    async def run() -> None:
        host, guest = await _two_tables(2)
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                host.step()
                guest.step()
                if host.my_move or guest.my_move:
                    break
                await asyncio.sleep(0.005)
            table = host if host.my_move else guest
            before = table.game.state_hash()
            with pytest.raises(IllegalAction):
                table.act({"type": "end_turn", "player": table.me})  # must roll first
            assert not table.session.move_pending and table.game.state_hash() == before
            assert table.status()[1].endswith(("waiting for you", "on vous attend"))
            table.act({"type": "roll", "player": table.me})
            with pytest.raises(CommandError):
                table.act({"type": "roll", "player": table.me})  # the first is being sent
        finally:
            await host.close()
            await guest.close()

    asyncio.run(asyncio.wait_for(run(), 30))


def test_a_peer_that_leaves_is_shown_and_freezes_the_game():
    async def run() -> None:
        host, guest = await _two_tables(2)
        try:
            for _ in range(100):
                host.step()
                guest.step()
                await asyncio.sleep(0.01)
                if host.game.step > 2:
                    break
            waited = host if not host.my_move else guest
            await (guest if waited is host else host).close()
            deadline = time.monotonic() + 10
            while not waited.frozen and time.monotonic() < deadline:
                waited.step()
                await asyncio.sleep(0.02)
            style, text = waited.status()
            assert waited.frozen and style == "class:error", text
            assert "GAME FROZEN" in text or "PARTIE GELÉE" in text
            assert "disconnected" in text
            assert any("FROZEN" in line or "GELÉE" in line for line in waited.lines)
            with pytest.raises(CommandError):
                waited.act({"type": "roll", "player": waited.me})
        finally:
            await host.close()
            await guest.close()

    asyncio.run(asyncio.wait_for(run(), 30))


# -- two console peers in real terminals ---------------------------------------------------------


class Terminal:
    """One console peer in a tmux session (80x24) on one loopback address."""

    def __init__(self, server: str, name: str, address: str, workdir: Path) -> None:
        assert address.startswith("127."), "tests use loopback addresses only"
        self.server, self.name = server, name
        env = f"env -u LC_ALL -u LC_MESSAGES LANG=C.UTF-8 LANOPOLY_INTERFACES={address} "
        env += f"LANOPOLY_SERVICE_TYPE={TEST_SERVICE_TYPE} "
        command = f"{env}{shlex.quote(sys.executable)} -m lanopoly play --lang en 2>{name}.err"
        self.tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-c", str(workdir), command)

    def tmux(self, *args: str) -> str:
        env = {**os.environ, "LANOPOLY_INTERFACES": "127.0.0.1", "LANOPOLY_SERVICE_TYPE": TEST_SERVICE_TYPE}
        done = subprocess.run(["tmux", "-L", self.server, *args], capture_output=True, text=True, env=env, check=True)
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-t", self.name, "-p")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)
        self.keys("Enter")

    def wait_for(self, pattern: str, seconds: float = 15) -> str:
        deadline = time.monotonic() + seconds
        while True:
            screen = self.screen()
            if re.search(pattern, screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: no {pattern!r} on the screen:\n{screen}")
            time.sleep(0.1)


def _rows(screen: str) -> list[str]:
    return (screen.splitlines() + [""] * 24)[:24]


def _shared(screen: str) -> tuple[list[str], list[str]]:
    """What both peers must show alike: the player panels and the log."""
    rows = _rows(screen)
    panels = [row[8:60].rstrip() for row in rows[1:3]]
    log = [row.rstrip() for row in rows[11:20] if row.strip()]
    return panels, log


def _command(screen: str) -> str:
    """The command a simple player types now, from the hints line."""
    hints = _rows(screen)[23]
    words = set(re.sub(r"^.*?:", "", hints).replace(",", " ").split())
    for word in ("buy", "roll", "end", "pay", "fine", "pass", "decline", "bankrupt"):
        if word in words:
            return word
    raise AssertionError(f"nothing to type:\n{screen}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")
def test_two_console_peers_host_discover_join_and_play_in_real_terminals(tmp_path: Path):
    server = f"lanopoly-lan-{os.getpid()}"
    try:
        host = Terminal(server, "host", "127.0.0.2", tmp_path)
        guest = Terminal(server, "guest", "127.0.0.3", tmp_path)
        # The start screens: name, then one bot (two seats: the host and the guest), F2 hosts;
        # the guest's F3 opens the list of games found on the network.
        host.wait_for("a new game")
        guest.wait_for("a new game")
        host.keys("a", "n", "n", "Down", "Down", "Left", "Left", "F2")
        guest.keys("b", "o", "b", "F3")
        pin = re.search(r"Game PIN: (\d{6})", host.wait_for(r"Game PIN: \d{6}"))
        assert pin is not None
        assert re.search(r"Address: +127\.0\.0\.2:\d+", host.screen())
        assert "1  ann (you)" in host.screen() and "2  a bot" in host.screen()
        listed = guest.wait_for(r"> ann's table.*127\.0\.0\.2:\d+ +1/2 seats +open +official/classic")
        assert "Game PIN" in listed
        guest.type(pin.group(1))
        guest.wait_for("waiting for the host to start")
        host.wait_for(r"2  bob \(joined\)")
        host.keys("Enter")
        host.wait_for(r"LAN: ann \(you\), bob")
        guest.wait_for(r"LAN: ann, bob \(you\)")

        # Play: whoever the game waits for types the command a simple player would.
        ends = 0
        peers = {"host": host, "guest": guest}
        for _ in range(60):
            if ends >= 4:
                break
            screens = {name: peers[name].screen() for name in peers}
            mover = next((name for name, s in screens.items() if "| waiting for you" in s), None)
            if mover is None:
                time.sleep(0.1)
                continue
            other = "guest" if mover == "host" else "host"
            if _shared(screens[other]) != _shared(screens[mover]):
                time.sleep(0.1)  # the other screen is still catching up
                continue
            command = _command(screens[mover])
            before = _shared(screens[mover])
            if command == "roll":
                # An out-of-turn move on the other screen is refused, saying why.
                peers[other].type("roll")
                peers[other].wait_for("Only moves in your turn work in LAN games")
            peers[mover].type(command)
            ends += command == "end"
            deadline = time.monotonic() + 10
            while _shared(peers[mover].screen()) == before and time.monotonic() < deadline:
                time.sleep(0.05)
        assert ends >= 4, f"only {ends} turns ended:\n{host.screen()}\n{guest.screen()}"

        # Both screens show the same state: the same panels (cash, deeds) and the same log.
        deadline = time.monotonic() + 10
        while _shared(host.screen()) != _shared(guest.screen()) and time.monotonic() < deadline:
            time.sleep(0.1)
        panels, log = _shared(host.screen())
        assert (panels, log) == _shared(guest.screen()), f"{host.screen()}\n{guest.screen()}"
        assert re.search(r"1 ann +\$\d+", panels[0]) and re.search(r"2 bob +\$\d+", panels[1]), panels
        assert any("Round" in line or "rolls" in line for line in log), log

        # The guest leaves: the host's screen says so.
        guest.type("quit")
        host.wait_for(r"bob \(DISCONNECTED\)|GAME FROZEN")
        host.type("quit")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            alive = subprocess.run(["tmux", "-L", server, "has-session", "-t", "host"], capture_output=True)
            if alive.returncode != 0:
                break  # the console ended and its terminal closed
            time.sleep(0.1)
        else:
            raise AssertionError(f"the host's console did not quit:\n{host.screen()}")
    finally:
        subprocess.run(["tmux", "-L", server, "kill-server"], capture_output=True)
        for name in ("host", "guest"):
            err = tmp_path / f"{name}.err"
            if err.exists() and err.read_text().strip():
                print(f"{name} stderr:\n{err.read_text()}")
