"""The person's moves: a typed command parsed and sent to the table (asked first when it cannot be
taken back), the trade panel's offer sent, an offer answered; a refusal said with its reason,
and nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from prompt_toolkit.buffer import Buffer

from lanopoly._core import IllegalAction
from lanopoly.console.commands import CommandError, Local, any_square, help_text, one_player, parse
from lanopoly.console.deed_card import house_levels
from lanopoly.console.drawing import Drawing
from lanopoly.console.names import fold
from lanopoly.console.net_session import NetTable
from lanopoly.console.session import Action, LocalTable, Table
from lanopoly.console.trade_panel import Draft, offers_to
from lanopoly.describe import square_name
from lanopoly.i18n import money, t
from lanopoly.refusals import explain

_ASKED = {"resign": "confirm.resign", "end_game": "confirm.endgame"}
"""Moves that cannot be taken back, asked first: the question of each."""


class Moves(Drawing):
    """Commands typed and moves made on the panels, sent to the table; what the person is told back."""

    def _accept(self, buffer: Buffer) -> bool:
        if self.shown is not None and self.shown[0] == "trade":
            self._in_panel(buffer.text)
            return False
        if self.shown is not None and not buffer.text.strip():
            self.close_card()  # Enter on an empty line only closes the card
            return False
        self.execute(buffer.text)
        return False  # clear the line

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

    def _refused(self, error: IllegalAction | CommandError) -> None:
        """Say why a move was not played (the engine's reason in the person's language, or why a
        LAN game cannot take it now: frozen, a move still being sent) and redraw."""
        game, lang = self.table.game, self.table.lang
        self.say("class:error", explain(error, game, lang) if isinstance(error, IllegalAction) else str(error))
        self.app.invalidate()

    def ask(self, key: str, then: Callable[[], None], **fields: Any) -> None:
        """Ask on the message line (the text ``key`` filled with ``fields``, ending "(y/n)" in the
        language); ``then`` runs if the next line typed says yes, anything else does nothing."""
        self._confirm = then
        self.say("class:decision", t(self.table.lang, key, **fields))
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
        """Leaving is asked first in a game still played: on the LAN (the others are left
        waiting), and against bots when it is saved (the question says where, and how to play
        on: the terminal may close with the window, tmux's pane does)."""
        table = self.table
        if table.game.is_over:
            return False
        return isinstance(table, NetTable) or (isinstance(table, LocalTable) and table.saved_at() is not None)

    def ask_to_quit(self) -> None:
        """Ask whether to leave (:meth:`_asks_to_quit`); a yes leaves."""
        table = self.table
        if isinstance(table, LocalTable) and table.saved_at() is not None:
            self.ask("confirm.quit_local", lambda: self.app.exit(result=0), path=table.saved_at())
        else:
            self.ask("confirm.quit_lan", lambda: self.app.exit(result=0))

    def _local(self, command: Local) -> None:
        if command.name == "quit":
            if self._asks_to_quit():
                self.ask_to_quit()
            else:
                self.app.exit(result=0)
        elif command.name == "help":
            lang = self.table.lang
            self.log_view.anchor(len(self.table.lines))
            self.table.lines.extend(
                [t(lang, "help.title"), *help_text(lang).splitlines(), t(lang, "help.keys"), t(lang, "help.board")]
            )
            self.say("class:hint", t(lang, "help.where"), in_log=True)
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
                name = square_name(table.game, square, table.lang)
                self.say("class:hint", t(table.lang, "info.where", name=name), in_log=True)
            else:
                self.say("class:hint", "")
            self.open_card("deed", square)

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

    def _in_panel(self, text: str) -> None:
        """Enter while the trade panel is open: on an empty line it sends the offer; a typed
        command (a stray key, or a move meant for later) is asked about first, never run at once:
        a yes leaves the panel and runs it, the draft kept for F9; anything else keeps the panel
        and the draft as they are."""
        lang = self.table.lang
        if self._confirm is not None:  # the answer to that question
            then, self._confirm = self._confirm, None
            if fold(text.strip()) in t(lang, "confirm.yes").split():
                then()
            else:
                self.say("class:hint", t(lang, "trade.kept"))
            self.app.invalidate()
        elif not text.strip():
            self._send_draft()
        else:
            self.ask("trade.leave_panel", lambda: self.execute(text), command=text.strip())

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


def deed_lines(table: Table, square: int) -> list[str]:
    """A title deed as log lines."""
    game, lang = table.game, table.lang
    info: Mapping[str, Any] = game.square(square)

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    price = cash(info["price"]) if "price" in info else "-"
    name = square_name(game, square, lang)
    if info.get("owner") is None:  # languages that merge "of the" (della banca)
        lines = [t(lang, "deed.title_bank", name=name, price=price)]
    else:
        lines = [t(lang, "deed.title", name=name, price=price, owner=game.names[info["owner"]])]
    if info["kind"] == "street":
        rents = info["rents"]
        lines.append(
            t(
                lang,
                "deed.street",
                rent=cash(rents[0]),
                houses=", ".join(cash(rents[n]) for n in house_levels(game)),
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
