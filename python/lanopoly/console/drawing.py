"""Drawing the game screen: its layout (board, log, side panel, message line, command line, hints)
and what each part shows, with the mouse handlers of the board's squares and of the cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import ConditionalContainer, HSplit, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

from lanopoly.console import big_board, board_view, deed_card
from lanopoly.console.claims import claim_hint
from lanopoly.console.commands import command_for
from lanopoly.console.decision import Decision, shown_word
from lanopoly.console.deed_card import card_lines
from lanopoly.console.log_view import WheelControl, wrap
from lanopoly.console.portfolio import (
    auction_lines,
    name_width,
    player_status,
    players_lines,
    portfolio_lines,
    status_lines,
)
from lanopoly.console.session import summary_lines
from lanopoly.console.trade_panel import offer_lines, offers_to, panel_lines
from lanopoly.i18n import clock, money, plural, t

MIDDLE_CARD = 60
"""Columns of a deed's card in the large ring's middle: wider than a card shown alone, so that no
line of it wraps in any language ("maisons 50 $ chacune ; un hôtel : ...") and it fits beside an
auction's lines."""
HINT_ROWS = 2
"""The most rows the hint line takes: two while it tells rent owed to the person (a long square
name), one otherwise."""

WHEEL_LINES = 3
"""Lines of the log a notch of the mouse wheel scrolls."""

CURSOR = ("[SetCursorPosition]", "")
"""A fragment that puts a window's cursor where it stands: prompt_toolkit scrolls a window to
show its cursor."""

FEEDBACK_ROWS = 3
"""The most rows the answer to a command takes (the log gives them up while it is shown)."""


class Drawing(Decision):
    """The screen's layout and every window's content, redrawn from the table at each frame."""

    def _body(self) -> HSplit:
        """The screen: the board (or the card asked for) over the log, a side panel when the
        terminal is wide enough, then the LAN status, the offers to the person, the message line,
        the command line and the hints."""
        wide = Condition(self._wide)
        # the card in place of the board (the large board shows it in its middle)
        showing = Condition(self.log_hidden)
        main = HSplit(
            [
                ConditionalContainer(
                    Window(FormattedTextControl(self._board), height=self._board_rows), filter=~showing
                ),
                ConditionalContainer(Window(WheelControl(self._log, self._wheel), wrap_lines=True), filter=~showing),
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
        return body

    def _board(self) -> board_view.Fragments:
        game, me = self.table.game, self.table.me
        if self._large():
            ring = self._ring()
            middle = self._card_lines(ring.middle) if self.shown is not None and not self._wide() else None
            if middle is None:
                middle = self._middle(ring.middle, big_board.MIDDLE_ROWS)
            return big_board.render(game, me, middle, ring, self._clicks)
        return board_view.render(game, me, self._middle(), self.table.lang, self._clicks)

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
            # The cursor's line holds the window's cursor: a panel taller than the window scrolls
            # to it (at 80x24 two players' holdings may take more than its 21 rows).
            rows = panel_lines(game, self.draft, lang, width)
            return [[CURSOR, line] if "card.current" in line[0] else [line] for line in rows]
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
        statuses = {}
        for seat in seats:
            if summary is not None:
                statuses[seat] = self._final(seat)
            elif game.player(seat)["bankrupt"]:
                statuses[seat] = player_status(game, seat, lang)
            else:
                gone = t(lang, "panel.away", since=clock(away[seat])) if seat in away else ""
                gone = t(lang, "panel.bot") if seat in replaced else gone
                statuses[seat] = player_status(game, seat, lang) + gone
        names = name_width([game.names[seat] for seat in seats], list(statuses.values()), width)
        for seat in seats:
            marker = ">" if seat == game.turn_player and not game.is_over else " "
            if summary is not None:
                marker = "*" if seat == game.winner else " "
            role = " class:me" if seat == me else (" class:turn" if marker != " " else "")
            style = board_view.player_style(seat) + role
            text = f" {marker}{seat + 1} {game.names[seat][:names]:<{names}} {statuses[seat]}"
            lines.append([(style, text[:width])])
        lines = lines[:8]
        # The decision at the bottom, on two rows when it is too long for one and there is room
        # (a French "buy" question with its keys is); then the status, as much of it as fits.
        decision = wrap(self.decision(), width - 2)[: max(1, rows - len(lines))]
        room = rows - len(lines) - len(decision)
        left = self.clock.shown(game)
        told = auction_lines(game, me, lang, left)
        # Short of room, an auction leaves out who is still in before the lot's printed price (the
        # decision names the leader; a French auction at 80x24 lost the price), unless that line
        # holds the seconds left to bid.
        drop = (1, 0) if told and left is None else ()
        told = told or status_lines(game, self.table.ledger.last_roll, lang, self.table.bid_timer)
        # The deed the person is asked to buy or may bid for, on the large ring's middle when its
        # card fits whole there: before the status, which gets the rows left (an auction's lines
        # keep theirs), after a blank row if there is one to spare.
        # Short of rows for the whole card (8 players at 120x40), its rent table goes in two columns.
        keep = sum(len(wrap(text, width - 1)) for text in told) if game.auction else 0
        card = self._card_on_offer(width - 1) if rows >= big_board.MIDDLE_ROWS else []
        if card and len(card) + keep > room:
            card = self._card_on_offer(width - 1, compact=True)
        if card and len(card) + keep <= room:
            gap: list[board_view.Fragments] = [[]] if len(card) + 1 + keep <= room else []
            lines += [*gap, *([("", " "), *line] for line in card)]
            room -= len(gap) + len(card)
        shown = told_rows(told, width - 1, room, drop)
        lines += [[]] * (room - len(shown))
        lines += [board_view.fit([("class:hint", " " + text)], width) for text in shown]
        lines += [board_view.fit([("class:decision", " " + row + " ")], width) for row in decision]
        return lines

    def _card_on_offer(self, width: int, compact: bool = False) -> list[board_view.Fragments]:
        """The card of the deed the person is asked to buy, or is bidding for in an auction
        (price, rent table, mortgage), for the middle of the large ring: at 120x40 the question
        showed with no rent table though there was room for it."""
        game, me = self.table.game, self.table.me
        auction = game.auction
        if game.is_over:
            return []
        if auction is not None:
            if auction["lot"] != "property" or me not in auction["bidders"]:
                return []
            square = auction["square"]
        elif self.table.my_move and game.buy_square is not None:
            square = game.buy_square
        else:
            return []
        width = min(width, MIDDLE_CARD)
        return deed_card.deed_lines(game, square, self.table.lang, width, for_sale=True, compact=compact)

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

    def _offers(self) -> board_view.Fragments:
        return [("class:decision", "\n".join(self.offer_lines()))]

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

    def _wheel(self, notches: int) -> None:
        """The mouse wheel over the log: ``WHEEL_LINES`` lines up (-1) or down (1) per notch."""
        self.log_view.scroll(self.table.lines, *self._log_size(), notches * WHEEL_LINES)

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
        if self.shown is not None:
            return min(HINT_ROWS, len(key_rows(self._shown_keys(), self._width())))
        claim = self.claim_line()
        return min(HINT_ROWS, len(wrap(claim, self._width()))) if claim else 1

    def _shown_keys(self) -> str:
        """The keys of the card shown in place of the board (a deed, a portfolio, the trade panel)."""
        assert self.shown is not None
        keys = {"deed": "card.keys", "trade": "trade.keys", "offer": "offer.keys"}.get(self.shown[0], "pf.keys")
        return t(self.table.lang, keys)

    def _hints(self) -> board_view.Fragments:
        """The line at the bottom: rent owed to the person first (it lapses if not claimed in
        time), else more log below, else the commands the person may type now."""
        lang = self.table.lang
        if self.shown is not None:  # on two rows when one is too short (the trade panel's say what each arrow does)
            return [("class:hint", "\n".join(key_rows(self._shown_keys(), self._width())[:HINT_ROWS]))]
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


def key_rows(keys: str, width: int) -> list[str]:
    """A line of keys ("↑↓: item  ←→: ...  Esc: close") in rows of ``width``, broken only between
    two keys (at their double spaces), never between a key and what it does ("Enter:" / "offer")."""
    rows: list[str] = []
    for part in keys.split("  "):
        if rows and len(rows[-1]) + 2 + len(part) <= width:
            rows[-1] += "  " + part
        else:
            rows.append(part)
    return rows


def told_rows(told: list[str], width: int, room: int, drop: Sequence[int] = ()) -> list[str]:
    """The status or auction lines ``told`` in at most ``room`` rows of ``width``: each wrapped
    between words, lines left out while they do not all fit, those at the indices ``drop`` first
    (in that order), then the first ones (most important last; a French auction's "19 s pour
    enchérir" was cut to "19 s pour enc" beside a long name); a last line too long for the room
    alone is cut."""
    if room <= 0:
        return []
    wrapped: dict[int, list[str]] = {i: wrap(text, width) for i, text in enumerate(told)}
    order = [*drop, *(i for i in range(len(told)) if i not in drop)]
    while wrapped and sum(map(len, wrapped.values())) > room:
        del wrapped[next(i for i in order if i in wrapped)]
    if not wrapped and told:
        return [told[-1]]
    return [row for _, rows in sorted(wrapped.items()) for row in rows]
