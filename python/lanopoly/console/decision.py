"""The decision in front of the person, in a sentence for the middle of the board (the deed to buy,
the auction, the debt, a trade offered), and every offer made to the person with its full terms
for the rows under the log.
"""

from __future__ import annotations

from lanopoly.console import board_view
from lanopoly.console.log_view import wrap
from lanopoly.console.screen_state import ScreenState
from lanopoly.describe import bundle_text
from lanopoly.i18n import ALIASES, money, t
from lanopoly.types import deed

OFFER_ROWS = 4
"""The most rows the trades offered to the person take, under the log (while there are any)."""


class Decision(ScreenState):
    """What the person is to decide now, in words."""

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
            if table.ledger.doubled == table.me and not game.player(table.me)["in_jail"]:
                return t(lang, "dec.roll_again")
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


def shown_word(lang: str, command: str) -> str:
    """The word a person of ``lang`` reads for a command: the language's own (its first alias),
    or the English one where the language has none."""
    return next((alias for alias, name in ALIASES.get(lang, {}).items() if name == command), command)
