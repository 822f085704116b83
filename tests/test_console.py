"""The console: its command language, its board drawing, and the real application driven by keys.

A full solo game is played through typed commands (chosen by a bot for the person, typed as text),
with the real prompt_toolkit application reading a pipe; a tmux test runs the real program in a
real terminal and reads the screen.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from conftest import dice, roll, started
from lanopoly import Bot, Game, IllegalAction, Rules, SimpleBot
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.console.board_view import grid_position, render
from lanopoly.console.commands import CommandError, Local, command_for, parse
from lanopoly.console.names import find_squares, labels


def test_squares_are_found_by_what_people_type():
    game = Game(2, seed=0)
    assert find_squares(game, "boardwalk") == [39]
    assert find_squares(game, "Board") == [39]
    assert find_squares(game, "st charles") == [11]
    assert find_squares(game, "ST. CHARLES PLACE") == [11]
    assert sorted(find_squares(game, "pennsylvania")) == [15, 34]
    assert find_squares(game, "nowhere") == []
    paris = Game(2, board="paris", seed=0)
    assert find_squares(paris, "champs elysees") == [37]
    assert find_squares(paris, "rue de la paix") == [39]


def test_labels_are_four_characters_and_unique_among_deeds():
    for board in ("classic", "paris"):
        game = Game(2, board=board, seed=0)
        names = labels(game)
        assert all(len(label) == 4 for label in names)
        deeds = [names[s] for s in range(40) if "price" in game.square(s)]
        assert len(set(deeds)) == len(deeds), deeds


def test_commands_parse_to_moves_of_my_seat():
    game = started(3)
    assert parse(game, 1, "roll") == {"type": "roll", "player": 1}
    assert parse(game, 0, "r") == {"type": "roll", "player": 0}
    assert parse(game, 0, "build boardwalk") == {"type": "build", "player": 0, "square": 39}
    assert parse(game, 0, "bid $120") == {"type": "bid", "player": 0, "amount": 120}
    assert parse(game, 0, "accept top") == {"type": "accept_trade", "player": 0, "from": 1}
    assert parse(game, 0, "trade car give baltic, $50 for boardwalk, chance jail card") == {
        "type": "propose_trade",
        "player": 0,
        "to": 2,
        "give": {"properties": [3], "cash": 50, "jail_cards": []},
        "get": {"properties": [39], "cash": 0, "jail_cards": ["chance"]},
    }
    assert parse(game, 0, "help") == Local("help")
    assert parse(game, 0, "info park place") == Local("info", "park place")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type a command"),
        ("dance", "unknown command"),
        ("build", "build what"),
        ("build avenue", "could be"),
        ("mortgage atlantis", "no property called"),
        ("bid lots", "bid how much"),
        ("accept nobody", "no single player"),
        ("trade dog boardwalk", "trade PLAYER give"),
    ],
)
def test_bad_commands_say_what_to_type(text, message):
    game = started(3)
    with pytest.raises(CommandError, match=message):
        parse(game, 0, text)


def _full(action):
    """An action with its trade bundles spelled out in full (as the parser writes them)."""
    out = dict(action)
    for key in ("give", "get"):
        if key in out:
            out[key] = {"properties": [], "cash": 0, "jail_cards": []} | out[key]
    return out


def test_every_legal_action_has_a_command_that_parses_back():
    """Over bot games, each legal action of every seat, and each move the bots make (incl.
    trade proposals), round-trips through its typed command."""
    for seed in range(3):
        game = Game(4, rules=Rules(round_limit=25), seed=seed)
        bots = [SimpleBot() for _ in range(4)]
        checked = 0
        while not game.is_over:
            if game.is_chance_node:
                game.resolve_chance()
                continue
            seat = game.current_player
            assert seat is not None
            for action in game.legal_actions(seat):
                assert parse(game, seat, command_for(action, game)) == action
                checked += 1
            action = bots[seat].choose(game, seat, game.legal_actions(seat))
            assert parse(game, seat, command_for(action, game)) == _full(action)
            game.apply(action)
        assert checked > 100


def test_selldown_and_trade_commands_round_trip():
    game = started(2)
    selldown = {"type": "sell_down", "player": 0, "group": 7, "levels": [3, 4]}
    assert command_for(selldown, game) == "selldown Park Place 3 4"
    assert parse(game, 0, command_for(selldown, game)) == selldown
    trade = {
        "type": "propose_trade",
        "player": 0,
        "to": 1,
        "give": {"properties": [], "cash": 0, "jail_cards": ["community_chest"]},
        "get": {"properties": [5, 15], "cash": 10, "jail_cards": []},
    }
    assert command_for(trade, game) == (
        "trade top hat give community chest jail card for Reading Railroad, Pennsylvania Railroad, $10"
    )
    assert parse(game, 0, command_for(trade, game)) == trade


def test_the_ring_puts_go_bottom_right_and_jail_bottom_left():
    assert grid_position(0) == (10, 10)
    assert grid_position(10) == (10, 0)
    assert grid_position(20) == (0, 0)
    assert grid_position(30) == (0, 10)
    assert len({grid_position(s) for s in range(40)}) == 40


def test_the_board_fits_80_columns_and_shows_owners_buildings_and_tokens():
    game = started(3)
    roll(game, 1, 2)  # seat 0 to Baltic
    game.apply({"type": "buy", "player": 0})
    game.apply({"type": "end_turn", "player": 0})
    roll(game, 6, 5)  # seat 1 to St. Charles Place
    game.apply({"type": "buy", "player": 1})
    text = "".join(t for _, t in render(game, 0, [[("", "middle")]]))
    lines = text.splitlines()
    assert len(lines) == 13
    assert all(len(line) <= 80 for line in lines)
    labels, marks = lines[11], lines[12]
    # Baltic (square 3) is the 8th cell from the left on the bottom row: its label, and under it
    # its marks: owner 1, no building (nor its dot), the token of seat 1 (seat 0 shown as "1").
    assert labels[7 * 7 : 7 * 8] == "Balt   " and marks[7 * 7 : 7 * 8] == "1  @1  "
    assert labels[70:] == "GO     " and marks[70:] == "   @3  "  # seat 2 (shown as 3) still on GO
    # On the sides a space parts a label from its marks: St. Charles Place (owner 2, its token).
    assert lines[10][:10] == "StCh 2  @2"
    assert lines[2][10:16] == "middle"


def _play_through_the_app(table: LocalTable, seconds: float = 120) -> tuple[int, list[str]]:
    """Run the real application on a pipe; type the commands a bot would choose for the person."""
    typed: list[str] = []
    person = SimpleBot()

    async def session() -> int:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=DummyOutput())
            running = asyncio.create_task(app.run())
            deadline = time.monotonic() + seconds
            while not table.over and time.monotonic() < deadline:
                await asyncio.sleep(0.001)
                if not table.my_move:
                    continue
                game = table.game
                action = person.choose(game, table.me, game.legal_actions(table.me))
                command = command_for(action, game)
                typed.append(command)
                applied = len(table.record.inputs)
                pipe.send_text(command + "\r")
                while len(table.record.inputs) == applied and time.monotonic() < deadline:
                    await asyncio.sleep(0.001)  # until the application has read and applied it
            assert table.over, "the game did not end in time"
            assert app.decision().startswith("Game over")
            pipe.send_text("quit\r")
            return await asyncio.wait_for(running, timeout=30)

    return asyncio.run(session()), typed


def test_a_full_solo_game_is_played_to_the_end_through_typed_commands():
    table = LocalTable(["ada", "dog", "car"], me=0, rules=Rules(round_limit=30), seed=4)
    status, typed = _play_through_the_app(table)
    assert status == 0
    assert table.over
    assert table.game.winner is not None
    assert "roll" in typed
    assert any(line.startswith("Game over") for line in table.lines)
    # Every input went through the table's log: the recorded game replays to the same hash.
    assert table.record.replay().state_hash() == table.game.state_hash()


def test_an_illegal_command_shows_the_reason_and_changes_nothing():
    table = LocalTable(["ada", "dog"], me=0, seed=1)
    app = ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    while not table.my_move:
        table.step()
    before = table.game.state_hash()
    app.execute("build boardwalk")
    assert app.feedback == ("class:error", "you do not own Boardwalk")
    app.execute("fly away")
    assert app.feedback[0] == "class:error" and "unknown command" in app.feedback[1]
    assert table.game.state_hash() == before
    app.execute("info boardwalk")
    assert table.lines[-2].startswith("Boardwalk: price $400, owned by the bank")
    app.execute("roll")
    assert table.game.state_hash() != before
    assert app.feedback == ("class:hint", "ok: roll")


def test_a_deed_of_the_bank_takes_the_languages_contraction():
    """Italian said "Boardwalk: prezzo 400 $, di la banca"; it is "della banca"."""
    table = LocalTable(["ada", "dog"], me=0, seed=1, lang="it")
    app = ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    while not table.my_move:
        table.step()
    app.execute("info boardwalk")
    assert table.lines[-2].startswith("Boardwalk: prezzo 400 $, della banca"), table.lines[-2]


def test_resign_leaves_the_game_to_the_bank_and_the_bots_play_on():
    table = LocalTable(["ada", "dog", "car"], me=0, seed=1)
    app = ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    while not table.my_move:
        table.step()
    app.execute("remove dog")
    assert app.feedback[0] == "class:error" and "Only in a LAN game" in app.feedback[1]
    app.execute("resign")
    assert app.feedback == ("class:decision", "Resign for good? The bank takes everything you have. (y/n)")
    assert not table.game.player(0)["bankrupt"], "asked first"
    app.execute("y")
    assert app.feedback == ("class:hint", "ok: resign")
    ada = table.game.player(0)
    assert ada["bankrupt"] and ada["cash"] == 0 and ada["properties"] == []
    assert "ada leaves the game; the bank takes everything." in table.lines
    assert table.game.turn_player == 1
    app.execute("roll")
    assert app.feedback == ("class:error", "ada is bankrupt")
    steps = table.game.step
    for _ in range(20):
        table.step()
    assert table.game.step > steps, "the bots play on"


@pytest.mark.parametrize("bot", [SimpleBot, lambda: Bot("heuristic")], ids=["easy", "normal"])
def test_a_bot_owed_rent_claims_it_out_of_turn_while_the_person_plays(bot):
    """The official rules: rent must be claimed. bea, a bot, owns Oriental Avenue; ada lands on it
    and is still to play: bea claims the rent at once."""
    table = LocalTable(["ada", "bea"], me=0, seed=0, bot=bot)
    for action in (
        *(dice(6, 6), dice(1, 2)),
        *({"type": "roll", "player": 0}, dice(1, 2), {"type": "buy", "player": 0}, {"type": "end_turn", "player": 0}),
        *({"type": "roll", "player": 1}, dice(2, 4), {"type": "buy", "player": 1}, {"type": "end_turn", "player": 1}),
        *({"type": "roll", "player": 0}, dice(1, 2)),  # ada from Baltic to Oriental Avenue
    ):
        table.act(action)
    assert table.my_move
    assert [(c["owner"], c["square"], c["amount"]) for c in table.game.claims] == [(1, 6, 6)]
    assert table.step(), "the bot moves out of turn"
    assert table.game.claims == []
    assert (table.game.player(0)["cash"], table.game.player(1)["cash"]) == (1500 - 60 - 6, 1500 - 100 + 6)
    assert not table.step(), "then the game waits for the person again"
    assert table.record.replay().state_hash() == table.game.state_hash()


def test_decisions_read_in_plain_words():
    table = LocalTable(["ada", "dog"], me=0, seed=1)
    app = ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    while not table.my_move:
        table.step()
    assert app.decision().startswith("Your turn: roll")
    table.act({"type": "roll", "player": 0})
    while table.game.is_chance_node:
        table.step()
    decision = app.decision()
    assert decision.startswith(("Buy ", "Build, mortgage", "Your turn: roll", "You owe", "Waiting")), decision
    with pytest.raises(IllegalAction):
        table.act({"type": "roll", "player": 1})


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_real_program_in_a_real_terminal(tmp_path):
    """`lanopoly play` in an 80x24 tmux terminal: the board, the players and the prompt show."""
    session = f"lanopoly-test-{os.getpid()}"
    # The variables in the command: a running tmux server gives its own environment, not ours.
    command = f"env XDG_DATA_HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/config LANOPOLY_INTERFACES=127.0.0.1"
    command += f" {sys.executable} -m lanopoly play"
    command += " --seed 5 --players 3 --lang en"
    env = {**os.environ, "LANOPOLY_INTERFACES": "127.0.0.1"}
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command], check=True, env=env)
    try:
        screen = ""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            screen = subprocess.run(
                ["tmux", "capture-pane", "-t", session, "-p"], capture_output=True, text=True, check=True
            ).stdout
            if "Your turn: roll" in screen:
                break
            time.sleep(0.2)
        assert "Your turn: roll" in screen, screen
        assert "GO" in screen and "JAIL" in screen and "Boar" in screen
        assert "1 dog" in screen
        subprocess.run(["tmux", "send-keys", "-t", session, "r", "Enter"], check=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            screen = subprocess.run(
                ["tmux", "capture-pane", "-t", session, "-p"], capture_output=True, text=True, check=True
            ).stdout
            if "dog rolls" in screen:
                break
            time.sleep(0.2)
        assert "dog rolls" in screen, screen
        subprocess.run(["tmux", "send-keys", "-t", session, "quit", "Enter"], check=True)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
