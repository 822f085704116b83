"""The full-screen console: the board, the log, the decision in front of you, a command line.

Layout (80x24 and up): the board ring with the players, the game's status and the current
decision in its middle, the log of what happened, a feedback line, the command line with
completion, and a line of hints. A square's card (``info``, F7, a click on the board) or a
player's portfolio (``portfolio``, F8) takes the place of the board and the log until a key is
pressed. Bots and chance play in an asyncio task beside the user interface, one step at a time.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from lanopoly._core import IllegalAction
from lanopoly.console import big_board, board_view, deed_card
from lanopoly.console.claims import KEY as CLAIM_KEY
from lanopoly.console.claims import WAIT as CLAIM_WAIT
from lanopoly.console.claims import claim_hint, ending_now
from lanopoly.console.commands import (
    COMMANDS,
    CommandError,
    Local,
    any_square,
    command_for,
    command_words,
    help_text,
    one_player,
    parse,
)
from lanopoly.console.deed_card import card_lines
from lanopoly.console.log_view import LogView, wrap
from lanopoly.console.names import fold
from lanopoly.console.net_session import NetTable
from lanopoly.console.portfolio import auction_lines, player_status, players_lines, portfolio_lines, status_lines
from lanopoly.console.session import Action, LocalTable, Table, summary_lines
from lanopoly.console.small import guarded
from lanopoly.console.trade_panel import (
    CASH_PAGE,
    CASH_STEP,
    Draft,
    countered,
    first_partner,
    offer_lines,
    offers_to,
    panel_lines,
)
from lanopoly.describe import bundle_text, square_name
from lanopoly.i18n import ALIASES, clock, money, plural, t
from lanopoly.refusals import explain
from lanopoly.types import deed

PLAYER_COLOURS = ["#ff5f5f", "#5fafff", "#ffd75f", "#d787ff", "#5fd7af", "#ff87d7", "#d7af87", "#afd700"]
"""A colour per seat (1 to 8): its owner marks and token on the board, its name in the panels."""

COLOURS = {
    "cell": "",
    "group.brown": "bg:#8b4513 #ffffff",
    "group.lightblue": "bg:#87ceeb #000000",
    "group.pink": "bg:#d63384 #ffffff",
    "group.orange": "bg:#fd7e14 #000000",
    "group.red": "bg:#dc3545 #ffffff",
    "group.yellow": "bg:#ffc107 #000000",
    "group.green": "bg:#198754 #ffffff",
    "group.darkblue": "bg:#0d3b8e #ffffff",
    **{f"player.p{seat + 1}": colour for seat, colour in enumerate(PLAYER_COLOURS)},
    "owner": "",
    "owner.me": "bold underline",
    "building": "#ffaa00 bold",
    "token": "reverse",
    "token.me": "reverse bold",
    "me": "bold underline",
    "turn": "bold",
    "decision": "bold #ffffff bg:#333333",
    "error": "#ff5555 bold",
    "hint": "#888888",
    "prompt": "bold",
    "card": "",
    "card.title": "reverse bold",
    "card.current": "reverse",
    "card.now": "bold",
}
"""The console's style in colour."""

MONOCHROME = {
    **{name: "" for name in COLOURS},
    "owner.me": "bold underline",
    "building": "bold",
    "token": "reverse",
    "token.me": "reverse bold",
    "me": "bold underline",
    "turn": "bold",
    "decision": "reverse bold",
    "error": "bold",
    "prompt": "bold",
    "card.title": "reverse bold",
    "card.current": "reverse",
    "card.now": "bold",
}
"""The console's style without colours (NO_COLOR): bold, underline and reverse only; the text
says everything the colours do (labels, seat digits, the card's ``>``)."""


def no_color(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the person asked for no colours: NO_COLOR set and not empty (https://no-color.org)."""
    return bool((os.environ if environ is None else environ).get("NO_COLOR"))


def style(monochrome: bool) -> Style:
    """The console's style, in colour or monochrome."""
    return Style.from_dict(MONOCHROME if monochrome else COLOURS)


_PROPERTY_COMMANDS = {"build", "sell", "selldown", "mortgage", "m", "unmortgage", "u", "lift", "keep", "claim", "info"}
_PLAYER_COMMANDS = {"accept", "reject", "trade", "portfolio"}
_ASKED = {"resign": "confirm.resign", "end_game": "confirm.endgame"}
"""Moves that cannot be taken back, asked first: the question of each."""


class CommandCompleter(Completer):
    """Completes command names, then property or player names as the command expects."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        lang = self.table.lang
        if " " not in text:
            own = [(alias, name) for alias, name in ALIASES.get(lang, {}).items()]
            for word, name in [(name, name) for name, _, _args in COMMANDS] + own:
                if fold(word).startswith(fold(text)):
                    yield Completion(word, -len(text), display_meta=t(lang, "cmd." + name))
            return
        command, _, rest = text.partition(" ")
        game = self.table.game
        name = command_words(lang).get(fold(command), "")
        if name in _PROPERTY_COMMANDS:
            candidates = [game.square(s)["name"] for s in range(40) if "price" in game.square(s)]
        elif name in _PLAYER_COMMANDS and " " not in rest:
            candidates = list(game.names)
        else:
            return
        for name in candidates:
            if fold(name).startswith(fold(rest)) or fold(rest) in fold(name):
                yield Completion(name, -len(rest))


AWAY_TICK = 1.0
"""Seconds between two redraws of a LAN game while a peer is away (its clock runs on the screen)."""

HINT_ROWS = 2
"""The most rows the hint line takes: two while it tells rent owed to the person (a long square
name), one otherwise."""

FEEDBACK_ROWS = 3
"""The most rows the answer to a command takes (the log gives them up while it is shown)."""

OFFER_ROWS = 4
"""The most rows the trades offered to the person take, under the log (while there are any)."""

LARGE = 120
"""Columns from which the screen has a side panel right of the small board and the log: every
player's holdings in short, or the card asked for (the board stays in view)."""
LEFT = board_view.CELL * 11 + 2
"""Columns of the board and log column beside the side panel (the board and a margin)."""
PANEL = 36
"""The fewest columns of a side panel beside the large board (from 120x40, :mod:`big_board`):
at 120 columns the large board takes them all, and the card asked for shows in its middle."""

CARD_KEY = "f7"
"""Opens the card of the square the person stands on (the deed to buy, while deciding)."""
PORTFOLIO_KEY = "f8"
"""Opens the person's portfolio."""
TRADE_KEY = "f9"
"""Opens the trade panel: the offers made to the person first, if any (to accept, reject or
counter); else the composer, with the first other player still in (Tab for the next)."""
CLOSING_KEYS = ("up", "down", "home", "end", "backspace", "delete", "c-a", "c-e", "c-k", "c-u", "c-w")
"""Keys the input line would take for itself that close a card first (any key closes it)."""


class ConsoleApp:
    """The application around one local table."""

    def __init__(
        self,
        table: Table,
        *,
        delay: float = 0.3,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.table = table
        self.delay = delay
        self.feedback: tuple[str, str] = ("class:hint", t(table.lang, "welcome"))
        self._said: tuple[int, bool, Action | None, bool] | None = None
        """When the message line was last set by a command (``say``): the game's step, whether it
        was the person's move, and the LAN move it tells is queued, if any."""
        self._confirm: Callable[[], None] | None = None
        """What a yes on the next line does, while the message line asks (``ask``)."""
        self.log_view = LogView()
        self.shown: tuple[str, int] | None = None
        """The card in place of the board and log: ("deed", square), ("portfolio", seat),
        ("trade", partner), the trade panel, whose offer is ``draft``, or ("offer", index), the
        offer made to the person shown with its terms (its index among them)."""
        self.draft: Draft | None = None
        self._then: Action | None = None
        """A counter-offer to propose once the rejection sent before it is played (on the LAN a
        move in turn is sent one at a time): ``_follow`` sends it."""
        self.summary_anchored = False
        self.buffer = Buffer(multiline=False, completer=CommandCompleter(table), accept_handler=self._accept)
        wide = Condition(self._wide)
        # the card in place of the board (the large board shows it in its middle)
        showing = Condition(lambda: self.shown is not None) & ~wide & ~Condition(self._large)
        main = HSplit(
            [
                ConditionalContainer(
                    Window(FormattedTextControl(self._board), height=self._board_rows), filter=~showing
                ),
                ConditionalContainer(Window(FormattedTextControl(self._log), wrap_lines=True), filter=~showing),
                ConditionalContainer(Window(FormattedTextControl(self._card)), filter=showing),
            ]
        )
        panel = Window(FormattedTextControl(self._panel), width=lambda: self._width() - self._left())
        body = HSplit(
            [
                VSplit([main, ConditionalContainer(panel, filter=wide)]),
                ConditionalContainer(
                    Window(FormattedTextControl(self._status), height=1),
                    filter=Condition(lambda: self.table.status() is not None),
                ),
                ConditionalContainer(
                    Window(FormattedTextControl(self._offers), height=lambda: len(self.offer_lines())),
                    filter=Condition(lambda: bool(self.offer_lines())),
                ),
                Window(FormattedTextControl(self._feedback), height=lambda: self._feedback_rows()),
                Window(
                    BufferControl(self.buffer),
                    height=1,
                    get_line_prefix=lambda *_: [("class:prompt", "> ")],
                ),
                Window(FormattedTextControl(self._hints), height=lambda: self._hint_rows()),
            ]
        )
        self.app: Application[int] = Application(
            layout=Layout(guarded(body, lambda: self.table.lang), focused_element=self.buffer),
            key_bindings=self._keys(),
            style=style(no_color()),
            color_depth=ColorDepth.DEPTH_1_BIT if no_color() else None,
            full_screen=True,
            mouse_support=True,
            input=input,
            output=output,
        )

    # -- running -------------------------------------------------------------------------------

    async def run(self) -> int:
        """Run until the person quits; bots play in a task beside the interface."""
        driver = asyncio.create_task(self._drive())
        try:
            return await self.app.run_async()
        finally:
            driver.cancel()
            await self.table.close()

    async def _drive(self) -> None:
        """Move the game on: a local table one step at a time (``_step``), a LAN table by its
        session, the screen following its events (``_follow``)."""
        if isinstance(self.table, NetTable):
            await self._follow(self.table)
        elif isinstance(self.table, LocalTable):
            await self._step(self.table)

    async def _step(self, table: LocalTable) -> None:
        """Move the game on one step at a time, pausing ``delay`` seconds after each so the person
        sees every move (and may act out of turn meanwhile: bid, build, mortgage, answer an
        offer); never pausing at a pending chance event, when nobody may act. Before the roll that
        would end rent owed to the person, the bots wait up to ``claims.WAIT`` seconds for it to
        be claimed (the hint line says how)."""
        loop = asyncio.get_running_loop()
        waited: dict[tuple[int, int, int], float] = {}
        while True:
            ending = [(c["square"], c["payer"], c["lapses_at_turn"]) for c in ending_now(table.game, table.me)]
            now = loop.time()
            if any(now < waited.setdefault(claim, now + CLAIM_WAIT) for claim in ending):
                await asyncio.sleep(0.05)
                continue
            if table.step():
                self.app.invalidate()
                if not table.game.is_chance_node:
                    await asyncio.sleep(self.delay)
            else:
                await asyncio.sleep(0.02)

    def _send_then(self, table: NetTable) -> None:
        """Propose the counter-offer kept until its rejection was played; a refusal is told."""
        action, self._then = self._then, None
        if action is None:
            return
        try:
            table.act(action)
        except (IllegalAction, CommandError) as e:
            self._refused(e)

    async def _follow(self, table: NetTable) -> None:
        """Run the LAN table's session and redraw whenever it tells of an event; while a peer is
        away, also every second (its clock on the screen). Nothing is polled otherwise."""
        table.start()
        while True:
            if self._then is not None and not table.move_pending:
                self._send_then(table)
            self.app.invalidate()
            wake = asyncio.ensure_future(table.changed.wait())
            try:
                await asyncio.wait([wake], timeout=AWAY_TICK if table.away() else None)
            finally:
                wake.cancel()
            table.changed.clear()

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            if self._confirm is not None or not self._asks_to_quit():
                event.app.exit(result=0)  # pressed again while asked: leave
            else:
                self.ask("confirm.quit_lan", lambda: self.app.exit(result=0))

        keyed = (("f2", "roll"), ("f3", "buy"), ("f4", "decline"), ("f5", "end"), (CLAIM_KEY, "claim"))
        for key, command in keyed:

            def run(event: KeyPressEvent, command: str = command) -> None:
                self.execute(command)

            keys.add(key)(run)

        @keys.add(CARD_KEY)
        def _card(event: KeyPressEvent) -> None:
            game = self.table.game
            square = game.buy_square
            self.open_card("deed", square if square is not None else game.player(self.table.me)["position"])

        @keys.add(PORTFOLIO_KEY)
        def _portfolio(event: KeyPressEvent) -> None:
            self.open_card("portfolio", self.table.me)

        @keys.add(TRADE_KEY)
        def _trade(event: KeyPressEvent) -> None:
            if offers_to(self.table.game, self.table.me):
                self.open_card("offer", 0)
                return
            partner = first_partner(self.table.game, self.table.me)
            if partner is not None:
                self.open_trade(partner)

        self._card_keys(keys)
        self._trade_keys(keys)
        self._offer_keys(keys)

        @keys.add("pageup")
        def _page_up(event: KeyPressEvent) -> None:
            self.log_view.page_up(self.table.lines, *self._log_size())

        @keys.add("pagedown")
        def _page_down(event: KeyPressEvent) -> None:
            self.log_view.page_down(self.table.lines, *self._log_size())

        return keys

    def _card_keys(self, keys: KeyBindings) -> None:
        """While a card is shown: Left/Right (Tab, Shift-Tab) show the next ones, Esc closes it,
        and any other key closes it and does what it does on the input line (a letter is typed)."""
        showing = Condition(lambda: self.shown is not None and self.shown[0] not in ("trade", "offer"))
        for key, step in (("left", -1), ("right", 1), ("s-tab", -1), ("tab", 1)):

            def turn(event: KeyPressEvent, step: int = step) -> None:
                self.turn_card(step)

            keys.add(key, filter=showing)(turn)

        @keys.add("escape", filter=showing, eager=True)
        def _close(event: KeyPressEvent) -> None:
            self.close_card()

        for key in CLOSING_KEYS:
            keys.add(key, filter=showing)(lambda event: self.close_card())

        @keys.add(Keys.Any, filter=showing)
        def _any(event: KeyPressEvent) -> None:
            self.close_card()
            if event.data and event.data.isprintable():
                event.current_buffer.insert_text(event.data)

    def _trade_keys(self, keys: KeyBindings) -> None:
        """While the trade panel is shown: Up/Down along a side, Left/Right change side, Space
        takes an item in or out, +/- (PageUp/PageDown) the side's cash, Tab the next partner,
        Esc closes it; Enter (``_accept``) sends the offer. Other keys type on the input line."""
        trading = Condition(lambda: self.shown is not None and self.shown[0] == "trade" and self.draft is not None)

        def on_draft(change: Callable[[Draft], None]) -> Callable[[KeyPressEvent], None]:
            def handler(event: KeyPressEvent) -> None:
                if self.draft is not None:
                    change(self.draft)
                    self.shown = ("trade", self.draft.partner)
                    self.app.invalidate()

            return handler

        moves: list[tuple[str, Callable[[Draft], None]]] = [
            ("up", lambda d: d.move(self.table.game, self.table.lang, -1)),
            ("down", lambda d: d.move(self.table.game, self.table.lang, 1)),
            ("left", lambda d: d.switch()),
            ("right", lambda d: d.switch()),
            ("space", lambda d: d.toggle(self.table.game, self.table.lang)),
            ("+", lambda d: d.add_cash(CASH_STEP)),
            ("-", lambda d: d.add_cash(-CASH_STEP)),
            ("pageup", lambda d: d.add_cash(CASH_PAGE)),
            ("pagedown", lambda d: d.add_cash(-CASH_PAGE)),
            ("tab", lambda d: d.next_partner(self.table.game)),
        ]
        for key, change in moves:
            keys.add(key, filter=trading, eager=True)(on_draft(change))

        @keys.add("escape", filter=trading, eager=True)
        def _close(event: KeyPressEvent) -> None:
            self.close_card()

    def _offer_keys(self, keys: KeyBindings) -> None:
        """While an offer made to the person is shown: a accepts it, r rejects it, c counters it
        (the composer, pre-filled), Tab shows the next offer, Esc closes; other keys type on."""
        offering = Condition(lambda: self.shown is not None and self.shown[0] == "offer")
        answers = (("a", "accept_trade"), ("r", "reject_trade"))
        for key, kind in answers:

            def answer(event: KeyPressEvent, kind: str = kind) -> None:
                self.answer_offer(kind)

            keys.add(key, filter=offering, eager=True)(answer)

        @keys.add("c", filter=offering, eager=True)
        def _counter(event: KeyPressEvent) -> None:
            offer = self.shown_offer()
            if offer is None:
                self.close_card()
                return
            self.draft = countered(offer)
            self.open_card("trade", offer["from"])

        @keys.add("tab", filter=offering, eager=True)
        def _next(event: KeyPressEvent) -> None:
            count = len(offers_to(self.table.game, self.table.me))
            if self.shown is not None and count:
                self.open_card("offer", (self.shown[1] + 1) % count)

        @keys.add("escape", filter=offering, eager=True)
        def _close(event: KeyPressEvent) -> None:
            self.close_card()

    def shown_offer(self) -> dict[str, Any] | None:
        """The offer made to the person that the panel shows (the first one if the shown one was
        answered or withdrawn meanwhile), or None when none is left."""
        offers = offers_to(self.table.game, self.table.me)
        if self.shown is None or self.shown[0] != "offer" or not offers:
            return None
        return offers[self.shown[1]] if self.shown[1] < len(offers) else offers[0]

    def answer_offer(self, kind: str) -> None:
        """Accept (``accept_trade``) or reject (``reject_trade``) the offer shown; a refusal (an
        offer that no longer holds) is told and the panel stays."""
        offer = self.shown_offer()
        lang = self.table.lang
        if offer is None:
            self.close_card()
            self.say("class:hint", t(lang, "offer.gone"))
            return
        try:
            note = self.table.act({"type": kind, "player": self.table.me, "from": offer["from"]})
        except (IllegalAction, CommandError) as e:
            self._refused(e)
            return
        self.close_card()
        self.log_view.follow()
        key = "offer.accepted" if kind == "accept_trade" else "offer.rejected"
        self.say("class:hint", note or t(lang, key, player=self.table.game.names[offer["from"]]))

    def _refused(self, error: IllegalAction | CommandError) -> None:
        """Say why a move was not played (the engine's reason in the person's language, or why a
        LAN game cannot take it now: frozen, a move still being sent) and redraw."""
        game, lang = self.table.game, self.table.lang
        self.say("class:error", explain(error, game, lang) if isinstance(error, IllegalAction) else str(error))
        self.app.invalidate()

    def open_trade(self, partner: int) -> None:
        """The trade panel with ``partner``: the draft kept if it is the same partner's."""
        if self.draft is None or self.draft.partner != partner:
            self.draft = Draft(self.table.me, partner)
        self.open_card("trade", partner)

    def _send_draft(self) -> None:
        """Enter in the trade panel: offer the draft; on a refusal the panel stays, the reason said."""
        draft = self.draft
        if draft is None:
            return
        action = draft.action()
        table = self.table
        answered = draft.answers and any(o["from"] == draft.partner for o in offers_to(table.game, table.me))
        try:
            if answered:
                table.game.check(action)  # a counter-offer refused rejects nothing
                table.act({"type": "reject_trade", "player": table.me, "from": draft.partner})
            if answered and isinstance(table, NetTable) and table.move_pending:
                self._then = action  # the rejection is being sent, in turn: the offer follows it
            else:
                table.act(action)
        except (IllegalAction, CommandError) as e:
            self._refused(e)
            return
        self.draft = None
        self.close_card()
        self.log_view.follow()
        key = "trade.countered" if answered else "trade.sent"
        partner = table.game.names[action["to"]]
        self.say("class:hint", t(table.lang, key, partner=partner), queued=action, offer=True)

    def open_card(self, kind: str, index: int) -> None:
        """Show a square's card ("deed") or a player's portfolio ("portfolio") in place of the
        board and the log, until a key closes it."""
        self.shown = (kind, index)
        self.app.invalidate()

    def close_card(self) -> None:
        self.shown = None
        self.app.invalidate()

    def turn_card(self, step: int) -> None:
        """The next (``step`` 1) or previous (-1) square's card, or player's portfolio."""
        if self.shown is not None:
            kind, index = self.shown
            count = 40 if kind == "deed" else self.table.game.num_players
            self.shown = (kind, (index + step) % count)
            self.app.invalidate()

    def _clicks(self, square: int) -> Callable[[MouseEvent], object]:
        """The mouse handler of a square on the board: a click (left button released) opens its card."""

        def handler(event: MouseEvent) -> object:
            if event.event_type == MouseEventType.MOUSE_UP and event.button in (MouseButton.LEFT, MouseButton.UNKNOWN):
                self.open_card("deed", square)
                return None
            return NotImplemented

        return handler

    def _click_closes(self, event: MouseEvent) -> object:
        """A click on a card closes it, as a key does."""
        if event.event_type == MouseEventType.MOUSE_UP:
            self.close_card()
            return None
        return NotImplemented

    def _accept(self, buffer: Buffer) -> bool:
        if self.shown is not None and self.shown[0] == "trade" and not buffer.text.strip():
            self._send_draft()
            return False
        if self.shown is not None and not buffer.text.strip():
            self.close_card()  # Enter on an empty line only closes the card
            return False
        self.execute(buffer.text)
        return False  # clear the line

    # -- commands --------------------------------------------------------------------------------

    def execute(self, text: str) -> None:
        """Run one typed command; illegal moves and typos become a message, nothing changes."""
        table = self.table
        self.shown = None  # a command goes back to the game (or opens the card it asks for)
        if self._confirm is not None:
            self._answer(text)
            return
        try:
            parsed = parse(table.game, table.me, text, table.lang, sent=table.queued())
            if isinstance(parsed, Local):
                self._local(parsed)
            elif parsed["type"] in _ASKED:
                self.ask(_ASKED[parsed["type"]], lambda: self._play(parsed, text))
            else:
                self._play(parsed, text)
        except CommandError as e:
            self.say("class:error", str(e))
        self.app.invalidate()

    def _play(self, action: Action, text: str) -> None:
        """Send the person's move to the table; the answer (or the engine's refusal) on the message line."""
        table = self.table
        try:
            note = table.act(action)
        except IllegalAction as e:
            self.say("class:error", explain(e, table.game, table.lang))
            return
        except (ValueError, TypeError) as e:
            # A move the parser let through malformed (more levels than streets), or a
            # CommandError: the engine's or the command's own words.
            self.say("class:error", str(e))
            return
        self.log_view.follow()
        self.say("class:hint", note or t(table.lang, "ok", text=text.strip()), queued=action if note else None)

    def ask(self, key: str, then: Callable[[], None]) -> None:
        """Ask on the message line (the text ``key``, ending "(y/n)" in the language); ``then``
        runs if the next line typed says yes, anything else does nothing."""
        self._confirm = then
        self.say("class:decision", t(self.table.lang, key))
        self.app.invalidate()

    def _answer(self, text: str) -> None:
        then, self._confirm = self._confirm, None
        if then is not None and fold(text.strip()) in t(self.table.lang, "confirm.yes").split():
            self.say("class:hint", "")
            then()
        else:
            self.say("class:hint", t(self.table.lang, "confirm.kept"))
        self.app.invalidate()

    def _asks_to_quit(self) -> bool:
        """Leaving is asked first in a LAN game still played (the others are left waiting)."""
        return isinstance(self.table, NetTable) and not self.table.game.is_over

    def say(self, style: str, text: str, *, queued: Action | None = None, offer: bool = False) -> None:
        """Answer a command on the message line; it stays until it no longer holds (``_freshen``):
        with ``offer``, until the trade offer ``queued`` is answered or withdrawn."""
        self.feedback = (style, text)
        self._said = (self.table.game.step, self.table.my_move, queued, offer)

    def _freshen(self) -> None:
        """Clear the message line once what it says is over: the LAN move it tells is queued was
        taken (or the log told it was not), the offer it tells was sent is answered or withdrawn,
        or the game came back to the person since it was said
        ("it is bea's turn" then no longer holds). The welcome stays until the first command."""
        if self._said is None or self._confirm is not None:
            return
        step, mine, queued, offer = self._said
        table = self.table
        if offer:  # sent, or held back until the rejection it follows is played (a counter-offer)
            sent = queued not in table.queued() and queued != self._then
            over = sent and not any(o["from"] == table.me for o in table.game.offers)
        elif queued is not None:
            over = queued not in table.queued()
        else:
            over = table.my_move and not mine and table.game.step != step
        if over:
            self.feedback = ("class:hint", "")
            self._said = None

    def _local(self, command: Local) -> None:
        if command.name == "quit":
            if self._asks_to_quit():
                self.ask("confirm.quit_lan", lambda: self.app.exit(result=0))
            else:
                self.app.exit(result=0)
        elif command.name == "help":
            lang = self.table.lang
            self.log_view.anchor(len(self.table.lines))
            self.table.lines.extend(
                [t(lang, "help.title"), *help_text(lang).splitlines(), t(lang, "help.keys"), t(lang, "help.board")]
            )
            self.say("class:hint", t(lang, "help.where"))
        elif command.name == "portfolio":
            table = self.table
            seat = one_player(table.game, command.argument, table.lang) if command.argument.strip() else table.me
            self.open_card("portfolio", seat)
            self.say("class:hint", "")
        elif command.name == "trade":
            self.open_trade(one_player(self.table.game, command.argument, self.table.lang))
            self.say("class:hint", "")
        elif command.name in ("replace", "remove"):
            table = self.table
            seat = one_player(table.game, command.argument, table.lang)
            self.say("class:hint", table.replace(seat, "bot" if command.name == "replace" else "bank"))
        else:
            table = self.table
            square = any_square(table.game, command.argument, table.lang)
            self.log_view.follow()
            if "price" in table.game.square(square):
                table.lines.extend(deed_lines(table, square))
                self.say("class:hint", t(table.lang, "info.where", name=square_name(table.game, square, table.lang)))
            else:
                self.say("class:hint", "")
            self.open_card("deed", square)

    # -- drawing ---------------------------------------------------------------------------------

    def _board(self) -> board_view.Fragments:
        game, me = self.table.game, self.table.me
        if self._large():
            ring = self._ring()
            middle = self._card_lines(ring.middle) if self.shown is not None and not self._wide() else None
            if middle is None:
                middle = self._middle(ring.middle, big_board.MIDDLE_ROWS)
            return big_board.render(game, me, middle, ring, self._clicks)
        return board_view.render(game, me, self._middle(), self.table.lang, self._clicks)

    def _large(self) -> bool:
        """Whether the terminal has room for the large board (:mod:`big_board`)."""
        if not self.app.is_running:
            return False
        size = self.app.output.get_size()
        return size.columns >= big_board.COLUMNS and size.rows >= big_board.ROWS_NEEDED

    def _ring(self) -> big_board.Ring:
        return big_board.ring(self.table.game, self.table.lang, self._width())

    def _board_rows(self) -> int:
        return big_board.ROWS if self._large() else board_view.ROWS

    def _wide(self) -> bool:
        """Whether the terminal is wide enough for the side panel: 120 columns beside the small
        board, :data:`PANEL` columns beside the large one."""
        if self._large():
            return self._width() - self._ring().width - 1 >= PANEL
        return self._width() >= LARGE

    def _left(self) -> int:
        """Columns of the board and the log: the whole width, or the board's beside a side panel."""
        if not self._wide():
            return self._width()
        return self._ring().width + 1 if self._large() else LEFT

    def _panel(self) -> board_view.Fragments:
        """The side panel of a large terminal: the card asked for, else every player in short."""
        if self.shown is not None:
            return self._card()
        width = self._width() - self._left()
        return self._clickable(players_lines(self.table.game, self.table.me, self.table.lang, width), None)

    def _card(self) -> board_view.Fragments:
        """The card shown in place of the board and the log (or in the side panel), each line
        clickable to close it."""
        lines = self._card_lines(self._width() - self._left() if self._wide() else self._width())
        closes = self.shown is not None and self.shown[0] not in ("trade", "offer")
        return self._clickable(lines, self._click_closes if closes else None)

    def _card_lines(self, width: int) -> list[board_view.Fragments]:
        """The card asked for in ``width`` columns, as lines; a deed's or a portfolio's lines
        close it when clicked (the trade panel's do not)."""
        if self.shown is None:
            return []
        kind, index = self.shown
        game, lang = self.table.game, self.table.lang
        if kind == "trade" and self.draft is not None:
            return [[line] for line in panel_lines(game, self.draft, lang, width)]
        if kind == "offer":
            offers = offers_to(game, self.table.me)
            if not offers:
                return [[("class:hint", " " + t(lang, "offer.gone"))]]
            rows = offer_lines(game, offers, index if index < len(offers) else 0, lang)
            return [[(style, text[:width])] for style, text in rows]
        if kind == "deed":
            lines = card_lines(game, index, lang, min(width, deed_card.WIDTH))
        else:
            lines = portfolio_lines(game, index, lang, width)
        return [board_view.clickable(line, self._click_closes) for line in lines]

    def _clickable(
        self, lines: list[board_view.Fragments], handler: Callable[[MouseEvent], object] | None
    ) -> board_view.Fragments:
        """Lines as one text, each fragment with ``handler`` for the mouse (if any)."""
        out: board_view.Fragments = []
        for number, line in enumerate(lines):
            if number:
                out.append(("", "\n") if handler is None else ("", "\n", handler))
            out.extend(line if handler is None else [(fragment[0], fragment[1], handler) for fragment in line])
        return out

    def _middle(self, width: int = board_view.MIDDLE, rows: int = 9) -> list[board_view.Fragments]:
        """The middle of the board, ``width`` x ``rows``: each player's line (in seat order, at the
        end in the order of the standings), then the game's status, and at the bottom the decision
        in front of the person."""
        game, me, lang = self.table.game, self.table.me, self.table.lang
        lines: list[board_view.Fragments] = []
        summary = self.table.summary() if game.is_over else None
        away = self.table.away_seats()
        replaced = self.table.replaced_seats()
        seats = [row.seat for row in summary.ranked()] if summary is not None else range(game.num_players)
        for seat in seats:
            p = game.player(seat)
            marker = ">" if seat == game.turn_player and not game.is_over else " "
            if summary is not None:
                marker = "*" if seat == game.winner else " "
                status = self._final(seat)
            elif p["bankrupt"]:
                status = player_status(game, seat, lang)
            else:
                gone = t(lang, "panel.away", since=clock(away[seat])) if seat in away else ""
                gone = t(lang, "panel.bot") if seat in replaced else gone
                status = player_status(game, seat, lang) + gone
            role = " class:me" if seat == me else (" class:turn" if marker != " " else "")
            style = board_view.player_style(seat) + role
            text = f" {marker}{seat + 1} {p['name'][:14]:<14} {status}"
            lines.append([(style, text[:width])])
        lines = lines[:8]
        # The decision at the bottom, on two rows when it is too long for one and there is room
        # (a French "buy" question with its keys is); then the status, as much of it as fits.
        decision = wrap(self.decision(), width - 2)[: max(1, rows - len(lines))]
        room = rows - len(lines) - len(decision)
        told = auction_lines(game, me, lang) or status_lines(game, self.table.ledger.last_roll, lang)
        told = told[-room:] if room > 0 else []
        lines += [[]] * (room - len(told))
        lines += [board_view.fit([("class:hint", " " + text)], width) for text in told]
        lines += [board_view.fit([("class:decision", " " + row + " ")], width) for row in decision]
        return lines

    def _final(self, seat: int) -> str:
        """A player's line of the end-of-game panel: net worth and rent paid and received."""
        lang, currency = self.table.lang, self.table.game.currency
        row = self.table.summary().standings[seat]
        fields = {
            "worth": money(lang, currency, row.net_worth),
            "paid": money(lang, currency, row.rent_paid),
            "received": money(lang, currency, row.rent_received),
        }
        return t(lang, "end.panel_bankrupt" if row.bankrupt else "end.panel", **fields)

    def decision(self) -> str:
        """The decision in front of the person, in a sentence."""
        table, game, lang = self.table, self.table.game, self.table.lang

        def cash(amount: int) -> str:
            return money(lang, game.currency, amount)

        if game.is_over:
            winner = game.winner
            return t(lang, "dec.game_over", winner=game.names[winner] if winner is not None else t(lang, "dec.nobody"))
        alert = table.alert()
        if alert is not None and not table.my_move:
            return alert  # a LAN game frozen, or a peer gone or away
        if game.player(table.me)["bankrupt"]:
            return t(lang, "dec.out")  # the game plays on without the person: say what is left to do
        if not table.my_move:
            seat = game.current_player
            if seat is None or seat < 0:
                return t(lang, "dec.chance")
            return self._out_of_turn() or t(lang, "dec.waiting", player=game.names[seat])
        if game.auction:
            return self._auction()
        mine = [d for d in game.debts if d["debtor"] == table.me]
        if mine:
            return t(lang, "dec.owe", amount=cash(mine[0]["amount"]))
        if game.buy_square is not None:
            info = deed(game.square(game.buy_square))
            return t(lang, "dec.buy", square=info["name"], price=cash(info["price"]))
        legal = {a["type"] for a in table.legal()}
        if "keep_mortgaged" in legal:
            return t(lang, "dec.keep")
        offer = self._offer_to_me()
        if offer is not None:
            return offer  # made while the person was to move (the hints still show roll or end)
        if "roll" in legal:
            extra = t(lang, "dec.jail_extra") if game.player(table.me)["in_jail"] else ""
            return t(lang, "dec.roll", extra=extra)
        if "end_turn" in legal:
            return t(lang, "dec.end")
        return t(lang, "dec.move")

    def _auction(self) -> str:
        """The running auction: the lot, who leads and for how much."""
        game, lang = self.table.game, self.table.lang
        a = game.auction
        assert a is not None
        lot = game.square(a["square"])["name"] if a["lot"] == "property" else t(lang, f"dec.lot.{a['lot']}")
        leader = a["high_bidder"]
        lead = (
            t(lang, "dec.lead", amount=money(lang, game.currency, a["high_bid"]), player=game.names[leader])
            if leader is not None
            else t(lang, "dec.no_bid")
        )
        return t(lang, "dec.auction", lot=lot, lead=lead)

    def _out_of_turn(self) -> str | None:
        """While the game waits for someone else: an auction the person is still in (anyone in
        bids at any time), or a trade offered to them; None if nothing waits for their answer."""
        table, game = self.table, self.table.game
        if game.auction and table.me in game.auction["bidders"]:
            return self._auction()
        return self._offer_to_me()

    def _offer_to_me(self) -> str | None:
        """The first trade offered to the person and not yet answered, in a sentence that fits the
        middle of the board (or None); its full terms are under the log (``offer_lines``)."""
        table, game, lang = self.table, self.table.game, self.table.lang
        for offer in game.offers:
            if offer["to"] == table.me:
                player = game.names[offer["from"]]
                give, get = bundle_text(game, offer["give"], lang), bundle_text(game, offer["get"], lang)
                text = t(lang, "dec.offer", player=player, give=give, get=get)
                room = self._ring().middle if self._large() else board_view.MIDDLE
                return text if len(text) <= room - 1 else t(lang, "dec.offer_below", player=player)
        return None

    def offer_lines(self) -> list[str]:
        """Every trade offered to the person and not yet answered, with its full terms and how to
        answer, wrapped to the screen's width (at most ``OFFER_ROWS`` rows): shown whatever else
        waits for the person (an auction, a deed to buy), never cut at the board's edge."""
        table, game, lang = self.table, self.table.game, self.table.lang
        rows: list[str] = []
        for offer in game.offers:
            if offer["to"] == table.me:
                player = game.names[offer["from"]]
                give, get = bundle_text(game, offer["give"], lang), bundle_text(game, offer["get"], lang)
                answers = {"accept": shown_word(lang, "accept"), "reject": shown_word(lang, "reject")}
                text = t(lang, "dec.offer_full", player=player, give=give, get=get, **answers)
                rows += wrap(text, self._width())
        return rows[:OFFER_ROWS]

    def _offers(self) -> board_view.Fragments:
        return [("class:decision", "\n".join(self.offer_lines()))]

    def _width(self) -> int:
        return self.app.output.get_size().columns if self.app.is_running else 80

    def _feedback_rows(self) -> int:
        """Rows of the answer to the last command: one, or up to three for a long one (a refusal
        with its cause, a command's usage), wrapped between words."""
        self._freshen()
        return min(FEEDBACK_ROWS, len(wrap(self.feedback[1], self._width())))

    def _feedback(self) -> board_view.Fragments:
        self._freshen()
        style, text = self.feedback
        return [(style, "\n".join(wrap(text, self._width())[:FEEDBACK_ROWS]))]

    def _log_size(self) -> tuple[int, int]:
        """Rows and columns of the log window: the screen less the board and what is under the log
        (the answer to the last command, the prompt, the hints, and a LAN status line if any)."""
        if not self.app.is_running:
            return 8, 80
        size = self.app.output.get_size()
        columns = self._left()
        fixed = self._board_rows() + 1 + self._hint_rows() + self._feedback_rows() + (self.table.status() is not None)
        fixed += len(self.offer_lines())
        return max(1, size.rows - fixed), columns

    def _log(self) -> board_view.Fragments:
        if self.table.game.is_over and not self.summary_anchored:
            self.summary_anchored = True
            self._anchor_summary()
        height, width = self._log_size()
        page = self.log_view.page(self.table.lines, height, width)
        return [("", "\n".join(row for line in page.lines for row in wrap(line, width)))]

    def _anchor_summary(self) -> None:
        """Show the log from the start of the end-of-game summary (PageUp for what came before)."""
        table = self.table
        title = summary_lines(table.game, table.summary(), table.lang)[0]
        starts = [i for i, line in enumerate(table.lines) if line == title]
        if starts:
            self.log_view.anchor(starts[-1])

    def _status(self) -> board_view.Fragments:
        status = self.table.status()
        return [status] if status is not None else []

    def claim_line(self) -> str | None:
        """Rent owed to the person and not yet claimed, as the hint line tells it (or None)."""
        return claim_hint(self.table.game, self.table.me, self.table.lang, self.table.queued())

    def _hint_rows(self) -> int:
        claim = self.claim_line()
        return min(HINT_ROWS, len(wrap(claim, self._width()))) if claim else 1

    def _hints(self) -> board_view.Fragments:
        """The line at the bottom: rent owed to the person first (it lapses if not claimed in
        time), else more log below, else the commands the person may type now."""
        lang = self.table.lang
        if self.shown is not None:
            keys = {"deed": "card.keys", "trade": "trade.keys", "offer": "offer.keys"}.get(self.shown[0], "pf.keys")
            return [("class:hint", t(lang, keys))]
        claim = self.claim_line()
        if claim:
            return [("class:decision", "\n".join(wrap(claim, self._width())[:HINT_ROWS]))]
        below = self.log_view.page(self.table.lines, *self._log_size()).below
        if below:
            return [("class:hint", plural(lang, "log.below", below))]
        if self.table.game.is_over:
            return [("class:hint", t(lang, "log.over"))]
        legal = self.table.legal()
        if not legal:
            return [("class:hint", "")]
        words = sorted({shown_word(lang, command_for(a, self.table.game).split(" ")[0]) for a in legal})
        return [("class:hint", t(lang, "hints", words=", ".join(words)))]


def shown_word(lang: str, command: str) -> str:
    """The word a person of ``lang`` reads for a command: the language's own (its first alias),
    or the English one where the language has none."""
    return next((alias for alias, name in ALIASES.get(lang, {}).items() if name == command), command)


def deed_lines(table: Table, square: int) -> list[str]:
    """A title deed as log lines."""
    game, lang = table.game, table.lang
    info: Mapping[str, Any] = game.square(square)

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    owner = game.names[info["owner"]] if info.get("owner") is not None else t(lang, "party.bank")
    price = cash(info["price"]) if "price" in info else "-"
    lines = [t(lang, "deed.title", name=square_name(game, square, lang), price=price, owner=owner)]
    if info["kind"] == "street":
        rents = info["rents"]
        lines.append(
            t(
                lang,
                "deed.street",
                rent=cash(rents[0]),
                houses=", ".join(cash(r) for r in rents[1:5]),
                hotel=cash(rents[5]),
                house=cash(info["house_cost"]),
                mortgage=cash(info["mortgage_value"]),
            )
        )
    elif info["kind"] == "railway":
        rents = {f"r{i + 1}": cash(rent) for i, rent in enumerate(info["rent_table"])}
        lines.append(t(lang, "deed.railway", mortgage=cash(info["mortgage_value"]), **rents))
    elif info["kind"] == "utility":
        lines.append(t(lang, "deed.utility", mortgage=cash(info["mortgage_value"])))
    return lines
