"""The trade panel: the person's holdings and a partner's side by side, an offer composed with keys.

An offer made to the person shows first, with its full terms (``offer_lines``): ``a`` accepts
it, ``r`` rejects it, ``c`` counters it: the composer opens with the offer reversed (what was
asked of the person is what they give, what was offered what they get, ``countered``), and
sending the counter-offer rejects the offer it answers and proposes the new one.

Up/Down move along a side, Left/Right change side, Space puts the deed or jail card under the
cursor into the offer or takes it out, + and - change that side's cash by 10 (PageUp and
PageDown by 100), Tab picks the next partner, Enter sends the offer, Esc closes the panel. What
the panel sends is an ordinary ``propose_trade``: the engine checks it (a street with houses, say)
and its refusal is told in the person's language, the draft kept to be mended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lanopoly._core import Game
from lanopoly.console.deed_card import HOTEL
from lanopoly.describe import square_name
from lanopoly.i18n import agreeing, money, plural, t

GIVE, GET = 0, 1
"""The two sides of a draft: what the person gives, and what the partner gives in return."""

CASH_STEP, CASH_PAGE = 10, 100


@dataclass(frozen=True)
class Item:
    """One thing a player may trade: a deed (``square``) or a get-out-of-jail card (``deck``).
    Items are the same by what they are, whatever their label says now (a deed chosen, then
    mortgaged, is still chosen)."""

    label: str = field(compare=False)
    square: int | None = None
    deck: str | None = None


def holdings(game: Game, seat: int, lang: str) -> list[Item]:
    """What ``seat`` holds that a trade may carry, deeds in board order, then jail cards."""
    p = game.player(seat)
    items = []
    for square in sorted(p["properties"]):
        info: Any = game.square(square)
        marks = agreeing(lang, "trade.mortgaged", info["name"]) if info.get("mortgaged") else ""
        level = info.get("level", 0)
        if level:
            buildings = t(lang, "level.hotel") if level == HOTEL else plural(lang, "pf.houses", level)
            marks += " " + t(lang, "trade.built", what=buildings)
        items.append(Item(f"{info['name']}{marks}", square=square))
    for deck in p["jail_cards"]:
        items.append(Item(t(lang, f"trade.card.{deck}"), deck=deck))
    return items


@dataclass
class Draft:
    """An offer being composed: to whom, what is chosen on each side, the cash of each, and where
    the cursor is (its side and line; the cash is the line after the items)."""

    me: int
    partner: int
    side: int = GIVE
    row: int = 0
    chosen: set[tuple[int, Item]] = field(default_factory=set)
    cash: list[int] = field(default_factory=lambda: [0, 0])
    answers: bool = False
    """Whether the draft counters the partner's offer to the person (sent, it rejects that offer)."""

    def seat(self, side: int) -> int:
        return self.me if side == GIVE else self.partner

    def move(self, game: Game, lang: str, step: int) -> None:
        """Up (-1) or down (1) along the side, the cash line last."""
        rows = len(holdings(game, self.seat(self.side), lang)) + 1
        self.row = (self.row + step) % rows

    def switch(self) -> None:
        self.side = GET if self.side == GIVE else GIVE
        self.row = 0

    def next_partner(self, game: Game) -> None:
        """The next player still in the game, other than the person; the draft starts afresh."""
        n = game.num_players
        for d in range(1, n):
            seat = (self.partner + d) % n
            if seat != self.me and not game.player(seat)["bankrupt"]:
                self.partner, self.chosen, self.cash, self.side, self.row = seat, set(), [0, 0], GIVE, 0
                self.answers = False
                return

    def toggle(self, game: Game, lang: str) -> None:
        """Space: the item under the cursor into the offer or out of it (nothing on the cash line)."""
        items = holdings(game, self.seat(self.side), lang)
        if self.row < len(items):
            key = (self.side, items[self.row])
            self.chosen.symmetric_difference_update({key})

    def add_cash(self, amount: int) -> None:
        """Change the cash of the side under the cursor, never below 0."""
        self.cash[self.side] = max(0, self.cash[self.side] + amount)

    def bundle(self, side: int) -> dict[str, Any]:
        items = [item for s, item in self.chosen if s == side]
        return {
            "properties": sorted(item.square for item in items if item.square is not None),
            "cash": self.cash[side],
            "jail_cards": sorted(item.deck for item in items if item.deck is not None),
        }

    def action(self) -> dict[str, Any]:
        """The offer as the engine takes it."""
        give, get = self.bundle(GIVE), self.bundle(GET)
        return {"type": "propose_trade", "player": self.me, "to": self.partner, "give": give, "get": get}


def group_completed(game: Game, offer: dict[str, Any]) -> int | None:
    """A street the person's ``offer`` (a ``propose_trade``) asks for that would complete a colour
    group of theirs, while the partner still holds it (the offer was not taken); else None. A bot
    sells such a street only well above its price (the group is worth more to the buyer), which a
    newcomer who offered its price did not know."""
    asked: list[int] = list(offer["get"]["properties"])
    squares: list[Any] = [game.square(s) for s in range(40)]
    if any(squares[s].get("owner") != offer["to"] for s in asked):
        return None
    mine = set(game.player(offer["player"])["properties"]) | set(asked)
    for square in asked:
        if squares[square]["kind"] != "street":
            continue
        group = [s for s in range(40) if squares[s].get("group", -1) == squares[square]["group"]]
        if all(s in mine for s in group):
            return square
    return None


def first_partner(game: Game, me: int) -> int | None:
    """The first player after the person who is still in the game, if any."""
    n = game.num_players
    return next(
        (s for s in ((me + d) % n for d in range(1, n)) if not game.player(s)["bankrupt"]),
        None,
    )


def panel_lines(game: Game, draft: Draft, lang: str, width: int) -> list[tuple[str, str]]:
    """The panel, as (style, text) lines: a title, then each side's items with what is chosen
    marked [x] and the cursor >, and each side's cash (the keys are on the hint line, but for the
    cash's, beside the cash line under the cursor)."""

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    title = "trade.counter_title" if draft.answers else "trade.title"
    lines = [("class:card.title", " " + t(lang, title, partner=game.names[draft.partner]) + " ")]
    for side in (GIVE, GET):
        seat = draft.seat(side)
        head = "trade.give" if side == GIVE else "trade.get"
        lines.append(("class:card.now", t(lang, head, name=game.names[seat], cash=cash(game.player(seat)["cash"]))))
        items = holdings(game, seat, lang)
        if not items:
            lines.append(("", "      " + t(lang, "trade.nothing")))
        for row, item in enumerate(items):
            here = draft.side == side and draft.row == row
            mark = "[x]" if (side, item) in draft.chosen else "[ ]"
            lines.append(
                ("class:card.current" if here else "", f"  {'>' if here else ' '} {mark} {item.label}"[:width])
            )
        here = draft.side == side and draft.row == len(items)
        text = f"  {'>' if here else ' '}     " + t(lang, "trade.cash", amount=cash(draft.cash[side]))
        if here:  # the hint line has no room for PageUp/PageDown: a player pressed + thirty times for $300
            text += "   " + t(lang, "trade.cash_keys", step=cash(CASH_STEP), page=cash(CASH_PAGE))
        lines.append(("class:card.current" if here else "", text[:width]))
    return lines


def offers_to(game: Game, me: int) -> list[dict[str, Any]]:
    """The offers made to the person and not yet answered, oldest first."""
    return [dict(offer) for offer in game.offers if offer["to"] == me]


def countered(offer: dict[str, Any]) -> Draft:
    """A draft answering ``offer`` with the same terms from the person's side: what it asked of
    them is what they give, what it offered is what they get; to be changed, then sent."""
    draft = Draft(offer["to"], offer["from"], answers=True)
    for side, bundle in ((GIVE, offer["get"]), (GET, offer["give"])):
        draft.chosen |= {(side, Item("", square=int(square))) for square in bundle.get("properties", [])}
        draft.chosen |= {(side, Item("", deck=str(deck))) for deck in bundle.get("jail_cards", [])}
        draft.cash[side] = int(bundle.get("cash", 0))
    return draft


def offer_lines(game: Game, offers: list[dict[str, Any]], index: int, lang: str) -> list[tuple[str, str]]:
    """The offer ``index`` of ``offers`` made to the person, every term on a line of its own: a
    title, what its maker gives, what it asks of the person, and which of how many offers it is
    (the keys are on the hint line)."""
    offer = offers[index]
    maker = game.names[offer["from"]]

    def items(bundle: dict[str, Any]) -> list[tuple[str, str]]:
        rows = []
        for square in bundle.get("properties", []):
            info: Any = game.square(square)
            mortgaged = agreeing(lang, "trade.mortgaged", info["name"]) if info.get("mortgaged") else ""
            rows.append(("", "    " + square_name(game, square, lang) + mortgaged))
        rows += [("", "    " + t(lang, f"trade.card.{deck}")) for deck in bundle.get("jail_cards", [])]
        if bundle.get("cash"):
            rows.append(("", "    " + t(lang, "trade.cash", amount=money(lang, game.currency, bundle["cash"]))))
        return rows or [("", "    " + t(lang, "dec.nothing"))]

    lines = [("class:card.title", " " + t(lang, "offer.title", player=maker) + " ")]
    lines.append(("class:card.now", t(lang, "offer.gives", player=maker)))
    lines += items(offer["give"])
    lines.append(("class:card.now", t(lang, "offer.asks", player=maker)))
    lines += items(offer["get"])
    if len(offers) > 1:
        lines.append(("class:hint", t(lang, "offer.count", index=index + 1, count=len(offers))))
    return lines
