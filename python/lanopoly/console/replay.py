"""A saved game shown on the board, step by step or at a chosen speed: ``lanopoly replay FILE``
in a terminal (and ``lanopoly watch``, which plays a bots' game first and then shows it).

:class:`Replay` walks a :class:`~lanopoly.log.GameLog` forward and back, checking the recorded
state hash after every step as ``replay --verify-only`` does: a log that was changed stops at the
first step that does not match, with the reason, and goes no further. Going back replays the
inputs from the start (the engine does that in milliseconds), so no state is kept per step.
:class:`ReplayScreen` draws it with the console's board and log; Space plays or pauses,
Left/Right step, +/- change the speed, Home/End go to either end, q or Esc leave.
"""

from __future__ import annotations

import asyncio
import contextlib

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output

from lanopoly._core import Game
from lanopoly.console import board_view
from lanopoly.console.escape import quick_escape
from lanopoly.console.log_view import LogView, wrap
from lanopoly.console.portfolio import name_width, player_status
from lanopoly.console.small import guarded
from lanopoly.console.style import no_color, style
from lanopoly.describe import describe_events
from lanopoly.i18n import plural, t
from lanopoly.log import GameLog

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 500)
"""Steps a second the person can choose with + and -."""


class Replay:
    """A log's game at ``step`` (0: before the first input), with the log's lines up to there."""

    def __init__(self, log: GameLog, lang: str = "en") -> None:
        self.log, self.lang = log, lang
        self.game = log.new_game()
        self.step = 0
        self.lines: list[str] = []
        self.ends = [0]
        """How many lines there are after each step walked so far (``ends[k]``: after step k)."""
        self.broken: tuple[int, str] | None = None
        """The first step that did not replay as recorded, and why (the walk stops before it)."""

    @property
    def total(self) -> int:
        return len(self.log.inputs)

    @property
    def at_end(self) -> bool:
        return self.step >= self.total or (self.broken is not None and self.step + 1 >= self.broken[0])

    def forward(self) -> bool:
        """One step on; False at the end of the log or at a step that does not replay."""
        if self.at_end:
            return False
        step = self.step + 1
        action = self.log.inputs[self.step]
        try:
            events = self.game.apply(action)
        except (ValueError, TypeError) as e:
            self.broken = (step, t(self.lang, "replay.refused", reason=str(e)))
            return False
        if step > len(self.log.hashes) or self.game.state_hash() != self.log.hashes[self.step]:
            self.broken = (step, t(self.lang, "replay.hash"))
            self.seek(self.step)  # the step applied does not count: back to the last good state
            return False
        self.step = step
        del self.lines[self.ends[step - 1] :]
        self.lines.extend(describe_events(self.game, events, lang=self.lang))
        del self.ends[step:]
        self.ends.append(len(self.lines))
        return True

    def back(self) -> bool:
        """One step back; False at the start."""
        if self.step == 0:
            return False
        self.seek(self.step - 1)
        return True

    def seek(self, step: int) -> None:
        """Go to ``step``: forward from here, or replayed from the start when it is behind."""
        step = max(0, min(step, self.total))
        if step < self.step or self.game.step != self.step:
            self.game = self.log.new_game()
            for action in self.log.inputs[:step]:
                self.game.apply(action)
            self.step = step
            del self.lines[self.ends[step] :]
            del self.ends[step + 1 :]
            return
        while self.step < step and self.forward():
            pass


class ReplayScreen:
    """The board and log of a :class:`Replay`, played at ``speed`` steps a second from the start
    (``playing``) or paused on the first step."""

    def __init__(
        self,
        replay: Replay,
        *,
        speed: int = 10,
        playing: bool = True,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.replay = replay
        self.speed = min(SPEEDS, key=lambda s: abs(s - speed))
        self.playing = playing
        self.log_view = LogView()
        keys = self._keys()
        body = HSplit(
            [
                Window(FormattedTextControl(self._board), height=board_view.ROWS),
                Window(FormattedTextControl(self._log)),
                Window(FormattedTextControl(self._status), height=1),
                Window(FormattedTextControl(self._help), height=1),
            ]
        )
        self.app: Application[None] = Application(
            layout=Layout(guarded(body, lambda: self.replay.lang)),
            key_bindings=keys,
            style=style(no_color()),
            color_depth=ColorDepth.DEPTH_1_BIT if no_color() else None,
            full_screen=True,
            input=input,
            output=output,
        )
        quick_escape(self.app)

    async def run(self) -> None:
        ticker = asyncio.create_task(self._tick())
        try:
            await self.app.run_async()
        finally:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker

    async def _tick(self) -> None:
        """While playing, one step every 1/speed seconds (the pace a person can follow)."""
        while True:
            await asyncio.sleep(1 / self.speed)
            if self.playing and self.app.is_running:
                if not self.replay.forward():
                    self.playing = False
                self.app.invalidate()

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        replay = self.replay

        def pause() -> None:
            self.playing = False
            self.log_view.follow()

        @kb.add(" ")
        def _(event: KeyPressEvent) -> None:
            self.playing = not self.playing and not replay.at_end

        @kb.add("right")
        def _(event: KeyPressEvent) -> None:
            replay.forward()
            pause()

        @kb.add("left")
        def _(event: KeyPressEvent) -> None:
            replay.back()
            pause()

        @kb.add("home")
        def _(event: KeyPressEvent) -> None:
            replay.seek(0)
            pause()

        @kb.add("end")
        def _(event: KeyPressEvent) -> None:
            replay.seek(replay.total)
            pause()

        @kb.add("+")
        def _(event: KeyPressEvent) -> None:
            self.speed = SPEEDS[min(SPEEDS.index(self.speed) + 1, len(SPEEDS) - 1)]

        @kb.add("-")
        def _(event: KeyPressEvent) -> None:
            self.speed = SPEEDS[max(SPEEDS.index(self.speed) - 1, 0)]

        @kb.add("pageup")
        def _(event: KeyPressEvent) -> None:
            self.log_view.page_up(replay.lines, *self._log_size())

        @kb.add("pagedown")
        def _(event: KeyPressEvent) -> None:
            self.log_view.page_down(replay.lines, *self._log_size())

        @kb.add("q")
        @kb.add("escape")
        @kb.add("c-c")
        @kb.add("c-q")
        def _(event: KeyPressEvent) -> None:
            event.app.exit()

        return kb

    # -- drawing ---------------------------------------------------------------------------------

    def _board(self) -> board_view.Fragments:
        game = self.replay.game
        return board_view.render(game, -1, self._players(game), self.replay.lang)

    def _players(self, game: Game) -> list[board_view.Fragments]:
        lang = self.replay.lang
        lines: list[board_view.Fragments] = []
        seats = range(game.num_players)[:8]
        statuses = [player_status(game, seat, lang) for seat in seats]
        names = name_width([game.names[seat] for seat in seats], statuses, board_view.MIDDLE)
        for seat in seats:
            turn = seat == game.turn_player and not game.is_over
            name, status = game.names[seat], statuses[seat]
            text = f" {'>' if turn else ' '}{seat + 1} {name[:names]:<{names}} {status}"
            lines.append([("class:turn" if turn else "", text[: board_view.MIDDLE])])
        return lines

    def _log_size(self) -> tuple[int, int]:
        if not self.app.is_running:
            return 8, 80
        size = self.app.output.get_size()
        return max(1, size.rows - board_view.ROWS - 2), size.columns

    def _log(self) -> board_view.Fragments:
        height, width = self._log_size()
        page = self.log_view.page(self.replay.lines, height, width)
        return [("", "\n".join(row for line in page.lines for row in wrap(line, width)))]

    def _status(self) -> board_view.Fragments:
        replay, lang = self.replay, self.replay.lang
        if replay.broken is not None and replay.at_end:
            step, reason = replay.broken
            return [("class:error", t(lang, "replay.broken", step=step, reason=reason))]
        state = t(lang, "replay.playing" if self.playing else ("replay.end" if replay.at_end else "replay.paused"))
        text = plural(
            lang, "replay.status", self.speed, step=replay.step, total=replay.total, state=state, speed=self.speed
        )
        return [("class:decision", " " + text + " ")]

    def _help(self) -> board_view.Fragments:
        return [("class:hint", t(self.replay.lang, "replay.keys"))]
