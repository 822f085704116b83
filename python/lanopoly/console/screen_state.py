"""The state of the game screen shared by its parts (drawing, moves, keys): the table, the message
line and what it says until it no longer holds, the card shown, and the screen's geometry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer

from lanopoly.console import big_board, board_view
from lanopoly.console.bid_clock import BidClock
from lanopoly.console.log_view import LogView
from lanopoly.console.session import Action, Table
from lanopoly.console.trade_panel import Draft, group_completed
from lanopoly.describe import square_name
from lanopoly.i18n import agreeing, t

LARGE = 120
"""Columns from which the screen has a side panel right of the small board and the log: every
player's holdings in short, or the card asked for (the board stays in view)."""
LEFT = board_view.WIDTH
"""Columns of the board and log column beside the side panel (the board and a margin)."""
PANEL = 36
"""The fewest columns of a side panel beside the large board (from 120x40, :mod:`big_board`):
at 120 columns the large board takes them all, and the card asked for shows in its middle."""


@dataclass(frozen=True)
class Said:
    """What the message line says of the game, to tell when it no longer holds (``_freshen``)."""

    step: int
    """The game's step it was said at."""
    mine: bool
    """Whether the game then waited for the person."""
    queued: Action | None
    """The LAN move out of turn it tells is queued, or the trade offer it tells was sent."""
    offer: bool
    """Whether ``queued`` is an offer (the message stays until it is answered or withdrawn)."""
    in_log: bool
    """Whether it points at the log (it goes once a card hides the log)."""


class ScreenState:
    """What the game screen holds between two redraws: the table, the message line, the card shown
    in place of the board, the trade being composed, the log's scroll; and the screen's geometry
    (how large a board, whether a side panel fits)."""

    app: Application[int]
    """The prompt_toolkit application (made by :class:`~lanopoly.console.app.ConsoleApp`)."""
    buffer: Buffer
    """The command line."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.clock = BidClock(table.bid_timer)
        """The countdown of a LAN auction (the bid timer agreed in the lobby; none against bots)."""
        self.feedback: tuple[str, str] = ("class:hint", t(table.lang, "welcome"))
        self._said: Said | None = None
        """When and of what the message line was last set (``say``)."""
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

    # -- the message line --------------------------------------------------------------------

    def say(
        self,
        style: str,
        text: str,
        *,
        queued: Action | None = None,
        offer: bool = False,
        in_log: bool = False,
    ) -> None:
        """Set the message line: the answer to a command, or what the console did for the person
        (the bid timer passed for them). Every message goes this way, so that it stays until it
        no longer holds (``_freshen``): with ``offer``, until the trade offer ``queued`` is
        answered or withdrawn; with ``in_log``, a message that points at the log ("the deed of X
        is in the log above"), also once a card hides the log."""
        table = self.table
        self.feedback = (style, text)
        self._said = Said(table.game.step, table.my_move, queued, offer, in_log)

    def _freshen(self) -> None:
        """Clear the message line once what it says is over: the LAN move it tells is queued was
        taken (or the log told it was not), the offer it tells was sent is answered or withdrawn,
        the log it points at is hidden by a card, or the game came back to the person since it
        was said ("it is bea's turn" then no longer holds). The welcome stays until the first
        command."""
        said = self._said
        if said is None or self._confirm is not None:
            return
        table, queued = self.table, said.queued
        if said.offer:  # sent, or held back until the rejection it follows is played (a counter-offer)
            sent = queued not in table.queued() and queued != self._then
            over = sent and not any(o["from"] == table.me for o in table.game.offers)
        elif queued is not None:
            over = queued not in table.queued()
        else:
            over = table.my_move and not said.mine and table.game.step != said.step
        if said.in_log and self.log_hidden():
            over = True
        if over:
            self.feedback = ("class:hint", self._turned_down(queued) if said.offer else "")
            self._said = None

    def log_hidden(self) -> bool:
        """Whether a card is shown in place of the board and the log (below 120 columns, when the
        large board does not show it in its middle)."""
        return self.shown is not None and not self._wide() and not self._large()

    def _turned_down(self, offer: Action | None) -> str:
        """Why the person's offer answered was likely turned down, when it asked for the street
        that completes a group of theirs: newcomers offered its price, were refused, and never
        built. "" otherwise."""
        game, lang = self.table.game, self.table.lang
        if offer is None or offer.get("type") != "propose_trade":
            return ""
        square = group_completed(game, dict(offer))
        if square is None:
            return ""
        deed = square_name(game, square, lang)  # "elle compléterait": the words agree with the deed's name
        return agreeing(lang, "trade.group_dear", deed, partner=game.names[offer["to"]], deed=deed)

    # -- the card in place of the board --------------------------------------------------------

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

    # -- geometry ------------------------------------------------------------------------------

    def _width(self) -> int:
        return self.app.output.get_size().columns if self.app.is_running else 80

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
