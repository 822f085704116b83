"""The game screen's keys: F2-F6 for the usual moves, F7-F9 for the deed, the portfolio and the
trade panel, PageUp/PageDown for the log, Ctrl-Q to leave; and the keys of each card while it is
shown (the trade panel's composer, an offer's answers).
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys as KeyName

from lanopoly.console.claims import KEY as CLAIM_KEY
from lanopoly.console.decision import shown_word
from lanopoly.console.moves import Moves
from lanopoly.console.trade_panel import CASH_PAGE, CASH_STEP, Draft, countered, first_partner, offers_to

CARD_KEY = "f7"
"""Opens the card of the square the person stands on (the deed to buy, while deciding)."""
PORTFOLIO_KEY = "f8"
"""Opens the person's portfolio."""
TRADE_KEY = "f9"
"""Opens the trade panel: the offers made to the person first, if any (to accept, reject or
counter); else the composer, with the first other player still in (Tab for the next)."""
CLOSING_KEYS = ("up", "down", "home", "end", "backspace", "delete", "c-a", "c-e", "c-k", "c-u", "c-w")
"""Keys the input line would take for itself that close a card first (any key closes it)."""


class Keys(Moves):
    """The key bindings of the game screen."""

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            if self._confirm is not None or not self._asks_to_quit():
                event.app.exit(result=0)  # pressed again while asked: leave
            else:
                self.ask_to_quit()

        keyed = (("f2", "roll"), ("f3", "buy"), ("f4", "decline"), ("f5", "end"), (CLAIM_KEY, "claim"))
        for key, command in keyed:

            def run(event: KeyPressEvent, command: str = command) -> None:
                self.execute(shown_word(self.table.lang, command))  # "ok : réclamer", not "ok : claim"

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
            draft = self.draft
            if draft is not None and not self.table.game.player(draft.partner)["bankrupt"]:
                partner = draft.partner  # the offer being composed, with whoever it is for
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

        @keys.add(KeyName.Any, filter=showing)
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
