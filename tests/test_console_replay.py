"""A saved game on the board (issue 14, "Watching and replaying"): ``lanopoly replay FILE`` in a
terminal walks the log forward and back with the state hash checked at every step, and stops,
saying why, at a step that does not replay as recorded; ``lanopoly watch`` shows a bots' game."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input

import lanopoly.__main__ as cli
from lanopoly.console.replay import Replay, ReplayScreen
from lanopoly.describe import describe_events
from lanopoly.log import GameLog
from screen import Terminal, wait_for

RIGHT, LEFT, HOME, END = "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F"


def _log(seed: int = 3) -> GameLog:
    args = cli.parser().parse_args(["watch", "--seed", str(seed), "--quiet"])
    args.players, args.board, args.rules = 4, "classic", "official"
    return cli.play_log(args, io.StringIO())


def _lines_after(log: GameLog, steps: int) -> list[str]:
    """The log's sentences after ``steps`` steps, told one step at a time as a table does."""
    game, lines = log.new_game(), []
    for action in log.inputs[:steps]:
        lines.extend(describe_events(game, game.apply(action)))
    return lines


def test_the_walk_goes_forward_and_back_with_the_state_and_the_log_of_each_step():
    log = _log()
    replay = Replay(log)
    for _ in range(40):
        assert replay.forward()
    assert replay.step == 40 and replay.game.state_hash() == log.hashes[39]
    assert replay.lines == _lines_after(log, 40)
    assert replay.back() and replay.back()
    assert replay.step == 38 and replay.game.state_hash() == log.hashes[37]
    assert replay.lines == _lines_after(log, 38)
    assert replay.forward() and replay.lines == _lines_after(log, 39)
    replay.seek(replay.total)
    assert replay.game.is_over and replay.at_end and not replay.forward()
    assert replay.lines == _lines_after(log, len(log.inputs))
    replay.seek(0)
    assert replay.step == 0 and replay.lines == [] and not replay.back()


def test_a_step_whose_hash_was_changed_stops_the_walk_before_it():
    log = _log()
    log.hashes[9] = bytes(32)
    replay = Replay(log)
    replay.seek(30)
    assert replay.step == 9 and replay.at_end and not replay.forward()
    assert replay.broken is not None and replay.broken[0] == 10 and "state hash differs" in replay.broken[1]
    assert replay.game.state_hash() == log.hashes[8], "the state shown is the last one that replayed"
    assert replay.lines == _lines_after(log, 9)


def test_a_step_whose_input_was_changed_is_refused_with_the_engines_reason():
    log = _log()
    log.inputs[0] = {"type": "bid", "player": 0, "amount": 5}
    replay = Replay(log)
    assert not replay.forward()
    assert replay.step == 0 and replay.broken is not None and replay.broken[0] == 1
    assert replay.broken[1].startswith("its input is refused (")


def _screen(log: GameLog, keys: list[str], until: str, **options: Any) -> tuple[list[str], Replay]:
    """The viewer on a pipe, paused unless told: type each key, then wait for ``until`` on screen."""
    replay = Replay(log, options.pop("lang", "en"))

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = ReplayScreen(replay, input=pipe, output=Terminal(), **{"playing": False, **options})
            running = asyncio.create_task(screen.run())
            await wait_for(screen.app, lambda lines: any("Step" in line or "Étape" in line for line in lines))
            for key in keys:
                pipe.send_text(key)
            lines = await wait_for(screen.app, lambda lines: any(until in line for line in lines))
            pipe.send_text("q")
            await asyncio.wait_for(running, timeout=10)
            return lines

    return asyncio.run(run()), replay


def test_keys_step_the_board_and_the_log_and_the_status_line_says_where():
    log = _log()
    lines, replay = _screen(log, [RIGHT] * 6 + [LEFT], "Step 5 of")
    assert replay.step == 5
    assert f" Step 5 of {len(log.inputs)}: paused, 10 steps a second" in lines
    assert lines[-1].startswith("Space play/pause")
    assert _lines_after(log, 5)[-1] in lines, "the log ends with step 5's last sentence"
    lines, replay = _screen(log, [END], "the end of the log")
    assert replay.game.is_over and any("Game over" in line for line in lines)


def test_playing_goes_to_the_end_by_itself_and_stops_there():
    log = _log()
    del log.inputs[60:], log.hashes[60:]  # the first 60 steps: an unfinished game's log
    lines, replay = _screen(log, [], "the end of the log", playing=True, speed=500)
    assert replay.at_end and replay.step == 60 and not replay.game.is_over
    assert " Step 60 of 60: the end of the log, 500 steps a second" in lines


def test_a_changed_log_says_where_it_stops_and_why_in_the_persons_language():
    log = _log()
    log.hashes[2] = bytes(32)
    lines, replay = _screen(log, [RIGHT] * 5, "Arrêt avant", lang="fr")
    assert replay.step == 2
    assert any("Arrêt avant l'étape 3 : son empreinte d'état diffère de celle enregistrée" in line for line in lines), (
        lines[-3:]
    )


def test_replay_in_a_terminal_opens_the_viewer_and_watch_shows_a_bots_game(monkeypatch: pytest.MonkeyPatch, tmp_path):
    """The command picks the viewer in a terminal (``--verify-only`` or a pipe: the check alone);
    ``watch`` plays the bots' game to the end first and shows its log."""
    shown: list[tuple[GameLog, Any]] = []
    monkeypatch.setattr(cli, "_view", lambda log, args: shown.append((log, args)) or 0)
    path = tmp_path / "game.json"
    log = _log()
    log.save(path)
    assert cli.run(cli.parser().parse_args(["replay", str(path), "--speed", "50"]), interactive=True) == 0
    assert shown[-1][0].hashes == log.hashes and shown[-1][1].speed == 50
    assert cli.run(cli.parser().parse_args(["replay", str(path), "--verify-only"]), interactive=True) == 0
    assert len(shown) == 1
    assert cli.run(cli.parser().parse_args(["watch", "--seed", "3", "--paused"]), interactive=True) == 0
    watched, args = shown[-1]
    assert watched.hashes == log.hashes and args.paused
    assert watched.replay().is_over


@pytest.mark.parametrize(("lang", "dog"), [("it", "cane"), ("no", "hund"), ("en", "dog")])
def test_watch_names_the_bots_after_the_tokens_in_the_viewers_language(
    monkeypatch: pytest.MonkeyPatch, lang: str, dog: str
) -> None:
    """Found in the Italian tmux run: ``lanopoly watch --lang it`` showed the bots as "dog", "top
    hat"... in an Italian viewer. They are now the tokens of the language, on the board's middle."""
    shown: list[GameLog] = []
    monkeypatch.setattr(cli, "_view", lambda log, args: shown.append(log) or 0)
    assert cli.run(cli.parser().parse_args(["watch", "--seed", "3", "--lang", lang]), interactive=True) == 0
    (log,) = shown

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = ReplayScreen(Replay(log, lang), playing=False, input=pipe, output=Terminal())
            running = asyncio.create_task(screen.run())
            lines = await wait_for(screen.app, lambda lines: any(f"1 {dog}" in line for line in lines))
            pipe.send_text("q")
            await asyncio.wait_for(running, 10)
            return lines

    lines = asyncio.run(run())
    assert any(f"1 {dog}" in line for line in lines), "\n".join(lines)
    assert log.replay().names[0] == dog


@pytest.mark.parametrize(
    ("argv", "board", "square"),
    [
        (["--lang", "fr"], "paris", "Bell   DÉP."),
        (["--lang", "en"], "classic", "Medi   GO"),
        (["--lang", "fr", "--board", "classic"], "classic", "Medi   DÉP."),
    ],
)
def test_watch_plays_on_the_board_of_the_viewers_language(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], board: str, square: str
) -> None:
    """Left by the last pass: ``lanopoly watch --lang fr`` showed the classic board where ``play``
    and ``host`` in French play on Paris. Without --board it is the language's board."""
    shown: list[GameLog] = []
    monkeypatch.setattr(cli, "_view", lambda log, args: shown.append(log) or 0)
    assert cli.run(cli.parser().parse_args(["watch", "--seed", "3", *argv]), interactive=True) == 0
    (log,) = shown
    assert log.replay().board == board
    lang = argv[1]

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = ReplayScreen(Replay(log, lang), playing=False, input=pipe, output=Terminal())
            running = asyncio.create_task(screen.run())
            lines = await wait_for(screen.app, lambda lines: any(square in line for line in lines))
            pipe.send_text("q")
            await asyncio.wait_for(running, 10)
            return lines

    lines = asyncio.run(run())
    assert any(square in line for line in lines), "\n".join(lines)
