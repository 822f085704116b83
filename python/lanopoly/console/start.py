"""The start screen: name, token, bots, difficulty, board, rules preset (its options shown) and
language, in a small full-screen form. Enter starts at once with what is shown, so the defaults
put a newcomer into a game with one key. F2 hosts a LAN game instead (the seats are you and the
bots, which people who join replace), F3 joins one (:mod:`lanopoly.console.lobby`).

Keys: Up/Down (or Tab) choose a line, Left/Right change it, typing edits the name, Enter starts,
F2 hosts, F3 joins, Escape or Ctrl-C leaves. When LAN games saved here are unfinished, one more
line picks one of them (Left/Right): F4 rejoins it (the others are still playing and wait for this
peer), F5 resumes it (every peer restarts it), as ``lanopoly rejoin FILE`` / ``resume FILE`` do.
When the last game against bots was left unfinished, F6 continues it (``lanopoly continue``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import AfterInput, ConditionalProcessor
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from lanopoly._core import Rules, boards
from lanopoly.bots import DIFFICULTIES
from lanopoly.console.bid_clock import BID_TIMERS, timer_text
from lanopoly.console.escape import quick_escape
from lanopoly.console.form_keys import leaving, stepping
from lanopoly.console.log_view import rows_between_words
from lanopoly.console.prefs import MAX_NAME
from lanopoly.console.saves import SavedLanGame, SavedLocalGame, shown_path
from lanopoly.console.small import guarded
from lanopoly.i18n import LANGUAGE_NAMES, LANGUAGES, TOKENS, board_name, default_board, has, plural, preset_name, t

DIFFICULTY_LEVELS = tuple(DIFFICULTIES)
ROWS = ("name", "token", "bots", "difficulty", "bid_timer", "board", "rules", "language")
_LABEL = 16

STYLE = Style.from_dict(
    {
        "title": "bold",
        "selected": "reverse bold",
        "value": "bold",
        "hint": "#888888",
        "options": "",
        "error": "#ff5555 bold",
    }
)


@dataclass(frozen=True)
class Setup:
    """What the person chose: ``token`` indexes the eight tokens; ``name`` empty means the
    token's name; ``rules`` is a preset name."""

    name: str = ""
    token: int = 0
    bots: int = 3
    difficulty: str = "normal"
    board: str = "classic"
    rules: str = "official"
    lang: str = "en"
    bid_timer: int = 0
    """Seconds the console gives the person to bid in an auction before it passes for them (0:
    off); a host's lobby starts with it."""
    mode: str = "solo"
    """``solo`` (against bots here), ``host`` (open a LAN lobby), ``join`` (find one), ``rejoin``
    / ``resume`` (take up the saved LAN game ``saved`` again), or ``continue`` (the saved game
    against bots ``saved``)."""
    saved: Path | None = None

    def player_name(self) -> str:
        return self.name.strip() or TOKENS[self.lang][self.token]

    def seat_names(self) -> list[str]:
        """The person first, then the bots named after the other tokens."""
        tokens = TOKENS[self.lang]
        others = [name for i, name in enumerate(tokens) if i != self.token and name != self.player_name()]
        return [self.player_name(), *others[: self.bots]]

    def rules_with(self, rounds: int = 0) -> Rules:
        """The chosen preset, its round limit replaced by ``rounds`` when that is not 0."""
        return Rules.preset(self.rules, round_limit=rounds) if rounds else Rules.preset(self.rules)


def option_text(lang: str, preset: str) -> str:
    """A preset's options in words: "starting cash 1500, auctions yes, ..."."""
    parts = []
    options = Rules.preset(preset).to_dict()
    for key, value in options.items():
        if not has(f"opt.{key}"):
            continue
        if key == "shortage_opening_bid" and not options["limited_buildings"]:
            continue  # no shortage without limited buildings: no shortage auction to tell of
        if key == "shortage_opening_bid" and value == 0:
            parts.append(t(lang, "opt.shortage_no_premium"))  # not "from 0": that read as an option off
            continue
        if isinstance(value, bool):
            shown = t(lang, "yes" if value else "no")
        elif key == "rent_claim":
            shown = t(lang, f"rent_claim.{value}")
        elif key == "round_limit" and value == 0:
            shown = t(lang, "opt.none")
        else:
            shown = str(value)
        parts.append(f"{t(lang, 'opt.' + key)} {shown}")
    return ", ".join(parts)


class StartScreen:
    """The form; ``run()`` gives the chosen Setup, or None if the person left. ``saved`` are the
    unfinished LAN games offered for F4/F5 (the one of ``setup.saved`` picked first); ``last`` is
    the unfinished game against bots offered for F6; ``message`` says in red why the last attempt
    to take one up failed."""

    def __init__(
        self,
        setup: Setup,
        *,
        saved: Sequence[SavedLanGame] = (),
        last: SavedLocalGame | None = None,
        message: str = "",
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.setup = setup
        self.saved = list(saved)
        self.last = last
        self.rows = (*ROWS, "saved_game") if self.saved else ROWS
        paths = [game.path for game in self.saved]
        self.pick = paths.index(setup.saved) if setup.saved in paths else 0
        self.message = message
        self.row = 0
        self.board_chosen = False
        self.name = Buffer(multiline=False, accept_handler=self._start, on_text_changed=_keep_a_name)
        self.name.text = setup.name
        label = Window(FormattedTextControl(lambda: self._label(0)), width=_LABEL, height=1)
        # The empty name field says what an empty name means (the token's name), as the game will
        # show it: a newcomer saw a blank line and did not know who they would be.
        placeholder = ConditionalProcessor(
            AfterInput(lambda: self.shown("name"), style="class:hint"), Condition(lambda: not self.name.text)
        )
        body = HSplit(
            [
                Window(FormattedTextControl(lambda: [("class:title", " " + t(self.lang, "start.title"))]), height=2),
                VSplit([label, Window(BufferControl(self.name, input_processors=[placeholder]), height=1)]),
                Window(FormattedTextControl(self._rows), height=len(self.rows) - 1),
                Window(height=1),
                # At least its rows (cut to the room left); the spare rows under it, as the keys stay at the bottom.
                Window(FormattedTextControl(self._options), height=lambda: Dimension(min=len(self.option_rows()))),
                Window(FormattedTextControl(lambda: [("class:hint", " " + t(self.lang, "start.keys"))]), height=1),
                Window(FormattedTextControl(lambda: [("class:hint", " " + t(self.lang, "start.lan"))]), height=1),
                ConditionalContainer(
                    Window(
                        FormattedTextControl(lambda: self._wrapped("class:hint", self.continue_text())), wrap_lines=True
                    ),
                    filter=Condition(lambda: self.last is not None),
                ),
                ConditionalContainer(
                    HSplit(
                        [
                            Window(
                                FormattedTextControl(lambda: [("class:hint", " " + t(self.lang, "start.back_in"))]),
                                height=1,
                            ),
                            Window(FormattedTextControl(self._saved), wrap_lines=True, height=2),
                        ]
                    ),
                    filter=Condition(lambda: bool(self.saved)),
                ),
                ConditionalContainer(
                    Window(FormattedTextControl(lambda: self._wrapped("class:error", self.message)), wrap_lines=True),
                    filter=Condition(lambda: bool(self.message)),
                ),
            ]
        )
        self.app: Application[Setup | None] = Application(
            layout=Layout(guarded(body, lambda: self.lang), focused_element=self.name),
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )
        quick_escape(self.app)

    @property
    def lang(self) -> str:
        return self.setup.lang

    async def run(self) -> Setup | None:
        return await self.app.run_async()

    # -- choosing ----------------------------------------------------------------------------

    def choices(self, row: str) -> list[Any]:
        """The values a line of the form may take."""
        match row:
            case "token":
                return list(range(8))
            case "bots":
                return list(range(1, Rules.preset(self.setup.rules).max_players))
            case "difficulty":
                return list(DIFFICULTY_LEVELS)
            case "bid_timer":
                return sorted({*BID_TIMERS, self.setup.bid_timer})
            case "board":
                return list(boards())
            case "rules":
                return list(Rules.presets())
            case "language":
                return list(LANGUAGES)
        return []

    def _field(self, row: str) -> str:
        return "lang" if row == "language" else row

    def change(self, step: int) -> None:
        """Move the selected line's value by ``step`` (wrapping around)."""
        row = self.rows[self.row]
        if row == "saved_game":
            self.pick = (self.pick + step) % len(self.saved)
            return
        values = self.choices(row)
        if not values:
            return
        current = getattr(self.setup, self._field(row))
        index = values.index(current) if current in values else 0
        value = values[(index + step) % len(values)]
        self.setup = replace(self.setup, **{self._field(row): value})
        if row == "rules":  # the Paris app and the Norwegian book seat at most 6
            most = Rules.preset(value).max_players - 1
            self.setup = replace(self.setup, bots=min(self.setup.bots, most))
        if row == "board":
            self.board_chosen = True
        if row == "language" and not self.board_chosen:
            self.setup = replace(self.setup, board=default_board(value))

    def _start(self, buffer: Buffer, mode: str = "solo") -> bool:
        self.app.exit(result=replace(self.setup, name=buffer.text.strip(), mode=mode, saved=None))
        return True

    def _back_in(self, mode: str) -> None:
        """Leave with the picked saved game and how to take it up (``rejoin`` or ``resume``)."""
        game = self.saved[self.pick]
        self.app.exit(result=replace(self.setup, name=self.name.text.strip(), mode=mode, saved=game.path))

    def _keys(self) -> KeyBindingsBase:
        keys = KeyBindings()

        @keys.add("f2")
        def _host(event: KeyPressEvent) -> None:
            self._start(self.name, "host")

        @keys.add("f3")
        def _join(event: KeyPressEvent) -> None:
            self._start(self.name, "join")

        @keys.add("f4", filter=Condition(lambda: bool(self.saved)))
        def _rejoin(event: KeyPressEvent) -> None:
            self._back_in("rejoin")

        @keys.add("f5", filter=Condition(lambda: bool(self.saved)))
        def _resume(event: KeyPressEvent) -> None:
            self._back_in("resume")

        @keys.add("f6", filter=Condition(lambda: self.last is not None))
        def _continue(event: KeyPressEvent) -> None:
            assert self.last is not None
            self.app.exit(result=replace(self.setup, mode="continue", saved=self.last.path))

        return merge_key_bindings(
            [
                stepping(self._up, self._down, ("up", "s-tab"), ("down", "tab")),
                stepping(
                    lambda: self.change(-1),
                    lambda: self.change(1),
                    ("left",),
                    ("right", "space"),
                    filter=Condition(lambda: self.row != 0),
                ),
                keys,
                leaving(),
            ]
        )

    def _down(self) -> None:
        self.row = (self.row + 1) % len(self.rows)

    def _up(self) -> None:
        self.row = (self.row - 1) % len(self.rows)

    # -- drawing ------------------------------------------------------------------------------

    def _label(self, index: int) -> StyleAndTextTuples:
        selected = index == self.row
        label = t(self.lang, "form.label", label=t(self.lang, "start." + self.rows[index]))
        text = f"{'>' if selected else ' '} {label}"
        return [("class:selected" if selected else "", f"{text:<{_LABEL - 1}}"), ("", " ")]

    def shown(self, row: str) -> str:
        """The value of a line as the form shows it."""
        s, lang = self.setup, self.lang
        match row:
            case "name":
                return self.name.text or f"{s.player_name()} {t(lang, 'start.name_hint')}"
            case "token":
                return TOKENS[lang][s.token]
            case "bots":
                return str(s.bots)
            case "difficulty":
                return t(lang, f"difficulty.{s.difficulty}")
            case "bid_timer":
                return timer_text(lang, s.bid_timer)
            case "board":
                return board_name(lang, s.board)
            case "rules":
                return preset_name(lang, s.rules)
            case "language":
                return LANGUAGE_NAMES[s.lang]
            case "saved_game":
                return self._saved_game()
        return ""

    def _saved_game(self) -> str:
        """The picked saved game in a few words: its players, steps played, and which of how many."""
        game = self.saved[self.pick]
        text = plural(self.lang, "start.saved_value", game.steps, names=", ".join(game.names), steps=game.steps)
        return f"{text} ({self.pick + 1}/{len(self.saved)})" if len(self.saved) > 1 else text

    def _rows(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for index, row in enumerate(self.rows[1:], start=1):
            out.extend(self._label(index))
            out.append(("class:value", f"< {self.shown(row)} >"))
            out.append(("", "\n"))
        return out[:-1]

    def continue_text(self) -> str:
        """The F6 line: the last unfinished game against bots, its players and round."""
        if self.last is None:
            return ""
        names = ", ".join(self.last.log.names)
        return t(self.lang, "start.continue", names=names, round=self.last.round + 1)

    def saved_text(self) -> str:
        """The picked saved game's file and the shell command that takes it up too."""
        game = self.saved[self.pick]
        return t(self.lang, "start.saved", path=shown_path(game.path))

    def _saved(self) -> StyleAndTextTuples:
        return self._wrapped("class:value", self.saved_text())

    def _options(self) -> StyleAndTextTuples:
        return [("class:hint", "\n".join(self.option_rows()))]

    def option_rows(self) -> list[str]:
        """The rules options, wrapped at words, in the rows the other lines leave; cut, the last
        row ends with "…" (at 80x24 with saved games, they were cut with no mark that more exist)."""
        lang = self.lang
        rows = self._lines(f"{t(lang, 'start.options')} {option_text(lang, self.setup.rules)}")
        size = self.app.output.get_size() if self.app.is_running else None
        if size is None:
            return rows
        others = 2 + len(self.rows) + 1 + 2  # title, the form's lines, the blank row, keys and LAN lines
        if self.last is not None:
            others += len(self._lines(self.continue_text()))
        if self.saved:
            others += 3  # the F4/F5 line and the saved game's file on two
        if self.message:
            others += len(self._lines(self.message))
        room = max(1, size.rows - others)
        if len(rows) <= room:
            return rows
        kept, last = rows[: room - 1], rows[room - 1]
        while len(last) + 1 > size.columns - 1 and " " in last.strip():
            last = last.rsplit(" ", 1)[0]
        return [*kept, last.rstrip(" ,") + "…"]

    def _lines(self, text: str) -> list[str]:
        """``text`` wrapped at words to the screen's width, one space in, so no word is cut."""
        width = self.app.output.get_size().columns - 2 if self.app.is_running else 78
        return [" " + row for row in rows_between_words(text, max(20, width))]

    def _wrapped(self, style: str, text: str) -> StyleAndTextTuples:
        return [(style, "\n".join(self._lines(text)))]


def _keep_a_name(buffer: Buffer) -> None:
    """Keep what is typed or pasted a name LAN play takes: printable characters, at most
    ``MAX_NAME`` (a longer one played alone, then was refused by every peer on the LAN)."""
    kept = "".join(ch for ch in buffer.text if ch.isprintable())[:MAX_NAME]
    if kept != buffer.text:
        buffer.text = kept  # calls this again, with nothing left to change
