"""Games against bots save themselves as they are played, and are taken up again: ``LocalTable``
with a file, F6 on the start screen, and ``lanopoly continue``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import lanopoly.console
from lanopoly import Bot, Rules, SimpleBot
from lanopoly.__main__ import main
from lanopoly.console import ConsoleApp, Setup, continued_table, session
from lanopoly.console.saves import games_dir, last_local, load_local, new_local_save
from lanopoly.console.session import LocalTable
from lanopoly.log import GameLog

F6, ENTER = "\x1b[17~", "\r"


def _played(save: Path | None, inputs: int, rules: Rules | None = None) -> LocalTable:
    """A table against two heuristic bots saving to ``save``, played (the person as a simple bot)
    until ``inputs`` inputs are applied and a bot or chance has just handed the game to the
    person (the moment it is saved), or the game is over."""
    table = LocalTable(
        ["ann", "dog", "car"], rules=rules, seed=7, bot=lambda: Bot("heuristic"), save=save, difficulty="normal"
    )
    person = SimpleBot()
    while not table.over:
        if table.step():
            if len(table.record.inputs) >= inputs and table.my_move:
                break
        else:
            table.act(person.choose(table.game, table.me, table.legal()))
    return table


def test_a_game_saves_itself_and_is_taken_up_where_it_stood() -> None:
    path = new_local_save()
    assert path.parent == games_dir() and path.name.startswith("local-")
    table = _played(path, 300)
    # Saved at once when the game comes to the person: the file holds every input so far.
    saved = load_local(path)
    assert saved.log.inputs == table.record.inputs and saved.log.hashes == table.record.hashes
    assert saved.log.table == {"me": 0, "difficulty": "normal"}
    assert (saved.round, saved.over) == (table.game.round, False)
    assert last_local() == saved
    # Taken up: the same state, the log told again, the bots of the saved difficulty, same file.
    again = LocalTable.continued(saved.log, path)
    assert again.game.state_hash() == table.game.state_hash() and again.my_move
    assert again.lines[:-1] == table.lines and again.lines[-1] == f"Game taken up again from {path.name}."
    assert again.ledger.summary(again.game) == table.ledger.summary(table.game)
    assert all(isinstance(bot, Bot) and bot.name == "heuristic" for bot in again.bots.values())
    # It goes on saving to the same file.
    person = SimpleBot()
    again.act(person.choose(again.game, again.me, again.legal()))
    while again.step():
        pass
    assert load_local(path).log.inputs == again.record.inputs
    assert len(again.record.inputs) > len(table.record.inputs)


def test_the_bots_of_a_continued_game_play_on_as_if_it_had_never_stopped(tmp_path: Path) -> None:
    """Hard bots (the search bot draws its rollouts from its own random stream, and remembers its
    offers): taken up from the file, they decide exactly what the bots of the table that never
    stopped decide, given the same chance and the same moves of the person."""
    path = tmp_path / "hard.json"
    table = LocalTable(["ann", "dog", "car"], seed=7, bot=lambda: Bot("search"), save=path, difficulty="hard")
    person = SimpleBot()
    while len(table.record.inputs) < 150 or not table.my_move:
        if not table.step():
            table.act(person.choose(table.game, table.me, table.legal()))
    table.save()
    again = LocalTable.continued(load_local(path).log, path)
    decided = 0
    for _ in range(400):
        game = table.game
        if game.is_over:
            break
        if game.is_chance_node:
            action = game.sample_chance()
        elif table.my_move:
            action = person.choose(game, table.me, table.legal())
        else:
            seat = game.current_player
            action = table.bots[seat].choose(game, seat, game.legal_actions(seat))
            assert again.bots[seat].choose(again.game, seat, again.game.legal_actions(seat)) == action
            decided += 1
        table.act(action)
        again.act(action)
    assert decided > 100 and again.game.state_hash() == table.game.state_hash()


def test_bots_that_answered_out_of_turn_are_taken_up_as_they_were(tmp_path: Path) -> None:
    """Issue 14: the search bot answers an offer out of turn by rollouts from its own random
    stream. ann offers $1 for a deed a bot holds; it answers at once, the file holds the answer
    (saved as the game waits for ann again), and the bots taken up from the file are exactly
    those that never stopped, random streams included (each answer was decided again)."""
    path = tmp_path / "hard.json"
    table = LocalTable(["ann", "dog", "car"], seed=7, bot=lambda: Bot("search"), save=path, difficulty="hard")
    person = SimpleBot()
    game = table.game

    def held_by_a_bot() -> list[int]:
        return [s for s in range(40) if game.square(s).get("owner") in (1, 2) and not game.square(s).get("level")]

    while not (table.my_move and held_by_a_bot() and not game.offers and game.auction is None):
        if not table.step():
            table.act(person.choose(game, table.me, table.legal()))
    square = held_by_a_bot()[0]
    owner = game.square(square)["owner"]
    table.act({"type": "propose_trade", "player": 0, "to": owner, "give": {"cash": 1}, "get": {"properties": [square]}})
    assert table.step() and not game.offers and table.my_move
    assert table.record.inputs[-1]["player"] == owner
    saved = load_local(path)
    assert saved.log.inputs == table.record.inputs
    again = LocalTable.continued(saved.log, path)
    assert [again.bots[s].__getstate__() for s in (1, 2)] == [table.bots[s].__getstate__() for s in (1, 2)]


def test_a_finished_game_is_not_offered_and_an_altered_one_is_refused() -> None:
    done = new_local_save()
    over = _played(done, 10**6, rules=Rules(round_limit=3))
    assert over.over and load_local(done).over
    assert last_local() is None  # the only saved game is over
    assert "game over" in str(continued_table(Setup(mode="continue", saved=done)))
    # An altered file: one hash changed. It is skipped, and refused if named.
    altered = new_local_save()
    _played(altered, 50)
    data = json.loads(altered.read_text())
    data["steps"][10]["hash"] = "00" * 32
    altered.write_text(json.dumps(data))
    assert last_local() is None
    refused = continued_table(Setup(mode="continue", saved=altered))
    assert refused == "Could not continue that game: step 11: state hash differs from the recorded one", refused
    # A file that is not a game against bots (a log without the console's table) is refused too.
    plain = games_dir() / "local-plain.json"
    GameLog.start(lanopoly.Game(2)).save(plain)
    assert "not a console game against bots" in str(continued_table(Setup(mode="continue", saved=plain)))


def test_a_damaged_save_in_the_games_folder_is_skipped_not_a_crash_at_the_start() -> None:
    """The start screen reads every saved game to offer the last unfinished one: a save whose
    rules were edited into nonsense is skipped (it once stopped ``lanopoly`` with a TypeError),
    the good one is still offered, and naming the damaged one says why it cannot go on."""
    good = new_local_save()
    _played(good, 50)
    damaged = games_dir() / "local-29990101-000000-damaged.json"  # written last, so read first
    data = json.loads(good.read_text())
    data["rules"]["opening_bid"] = [1, 2]
    damaged.write_text(json.dumps(data))
    saved = last_local()
    assert saved is not None and saved.path == good
    refused = str(continued_table(Setup(mode="continue", saved=damaged)))
    assert refused.startswith("Could not continue that game: ") and 'rule option "opening_bid"' in refused, refused


def test_a_save_that_fails_is_told_once_and_the_game_goes_on(tmp_path: Path) -> None:
    table = _played(tmp_path / "missing" / "game.json", 60)
    failures = [line for line in table.lines if line.startswith("Could not save the game to")]
    assert len(failures) == 1 and "No such file or directory" in failures[0], failures
    assert table.save_path is None and len(table.record.inputs) >= 60


def _session(setup: Setup, keys: str) -> tuple[ConsoleApp | None, int]:
    """The start screen then the game on one pipe, typing ``keys``; quits as soon as the game opens."""
    opened: list[ConsoleApp] = []

    async def run() -> int:
        with create_pipe_input() as pipe:
            running = asyncio.create_task(
                session(setup, ask=True, delay=0, input=pipe, output=DummyOutput(), started=opened.append)
            )
            await asyncio.sleep(0.05)
            pipe.send_text(keys)
            while not opened and not running.done():
                await asyncio.sleep(0.005)
            if opened:
                while not opened[0].app.is_running:
                    await asyncio.sleep(0.005)
                pipe.send_text("quit\ry\r")  # the game is saved: quitting asks first
            return await asyncio.wait_for(running, timeout=20)

    status = asyncio.run(run())
    return (opened[0] if opened else None), status


def test_quitting_keeps_the_game_and_f6_takes_it_up() -> None:
    # A new game, quit at once: it is saved (the bots' order rolls at least) and offered for F6.
    first, status = _session(Setup(), ENTER)
    assert status == 0 and first is not None
    left = last_local()
    assert left is not None and left.log.names == first.table.game.names
    assert left.log.inputs == first.table.record.inputs  # type: ignore[attr-defined]
    screen = lanopoly.console.StartScreen(Setup(), last=left)
    assert screen.continue_text() == (
        f"F6: continue your last game against bots (dog, top hat, car, battleship, round {left.round + 1})"
    )
    # F6 opens it where it stood.
    second, status = _session(Setup(lang="it"), F6)
    assert status == 0 and second is not None
    record = second.table.record  # type: ignore[attr-defined]
    steps = len(left.log.inputs)
    assert record.inputs[:steps] == left.log.inputs and record.hashes[:steps] == left.log.hashes
    assert f"Partita ripresa da {left.path.name}." in second.table.lines
    kept = last_local()  # saved again on quitting
    assert kept is not None and kept.path == left.path and kept.log.inputs == record.inputs


def test_lanopoly_continue_takes_up_the_last_game_or_says_there_is_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[tuple[Setup, bool]] = []

    def fake(setup: Setup, *, ask: bool, **_: object) -> int:
        calls.append((setup, ask))
        return 0

    monkeypatch.setattr("lanopoly.console.play_console", fake)
    # Not in a terminal (as under pytest): refused.
    assert main(["continue"]) == 2
    assert "played in a terminal" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert main(["continue"]) == 1
    assert "no unfinished game against bots in" in capsys.readouterr().err
    path = new_local_save()
    _played(path, 40)
    assert main(["continue", "--lang", "no"]) == 0
    assert calls == [(Setup(lang="no", mode="continue", saved=path), False)]
    other = Path("elsewhere.json")
    assert main(["continue", str(other)]) == 0
    assert calls[-1][0].saved == other and calls[-1][0].mode == "continue"


@pytest.mark.parametrize("lang", ["en", "fr", "it", "no"])
def test_the_f6_line_names_the_key_in_every_language(lang: str) -> None:
    path = new_local_save()
    _played(path, 20)
    saved = last_local()
    assert saved is not None
    text = lanopoly.console.StartScreen(Setup(lang=lang), last=saved).continue_text()
    assert text.startswith("F6") and "ann, dog, car" in text and str(saved.round + 1) in text
