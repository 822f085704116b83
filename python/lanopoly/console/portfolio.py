"""A player's portfolio, drawn in place of the board; every player's in short, for the side panel
of a large terminal; and the lines of game status in the board's middle.

The portfolio lists a player's deeds by colour group (then railways, utilities), each with its
buildings, its mortgage and the rent a landing costs now (the engine's figure), then the
get-out-of-jail cards, the cash and the net worth. The status tells what the screen shows nowhere
else: the last roll, the houses and hotels left in the bank, the Free Parking jackpot when that
variant is on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanopoly._core import Game
from lanopoly.console.board_view import player_style
from lanopoly.console.deed_card import WIDTH, group_name, rent_text
from lanopoly.console.log_view import wrap
from lanopoly.console.names import labels
from lanopoly.i18n import agreeing, money, plural, t
from lanopoly.types import deed

Fragments = StyleAndTextTuples


def _deed(game: Game, lang: str, info: Mapping[str, Any]) -> str:
    """One deed of a portfolio: its name, buildings, mortgage and rent now."""
    parts = []
    level = info["level"]
    if level == 5:
        parts.append(t(lang, "level.hotel"))
    elif level:
        parts.append(plural(lang, "pf.houses", level))
    if info["mortgaged"]:
        parts.append(agreeing(lang, "pf.mortgaged", info["name"]))
    else:
        parts.append(t(lang, "pf.rent", rent=rent_text(game, lang, info)))
    return f"{info['name']} ({', '.join(parts)})"


def _groups(game: Game, seat: int) -> list[list[Mapping[str, Any]]]:
    """The seat's deeds grouped: colour groups in board order, then railways, then utilities."""
    groups: dict[tuple[int, int], list[Mapping[str, Any]]] = {}
    for square in sorted(game.player(seat)["properties"]):
        info = game.square(square)
        key = (0, info["group"]) if info["kind"] == "street" else ((1, 0) if info["kind"] == "railway" else (2, 0))
        groups.setdefault(key, []).append(info)
    return [groups[key] for key in sorted(groups)]


def portfolio_lines(game: Game, seat: int, lang: str, width: int) -> list[Fragments]:
    """Everything a player holds, wrapped to ``width`` columns: a title, cash and net worth,
    jail cards, then one line (or more, wrapped) per group of deeds."""
    p = game.player(seat)

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    title = t(lang, "pf.title", name=p["name"])
    if seat == game.turn_player and not game.is_over:
        title += " " + t(lang, "pf.turn")
    lines: list[Fragments] = [[("class:card.title", f" {title} ".ljust(min(width, WIDTH)))]]
    if p["bankrupt"]:
        lines.append([("class:card", " " + t(lang, "panel.bankrupt"))])
        return lines
    lines.append([("class:card", " " + t(lang, "pf.cash", cash=cash(p["cash"]), worth=cash(p["net_worth"])))])
    decks = ", ".join(t(lang, "deck." + deck) for deck in p["jail_cards"]) or t(lang, "pf.no_cards")
    lines.append([("class:card", " " + t(lang, "pf.cards", cards=decks))])
    groups = _groups(game, seat)
    if not groups:
        lines.append([("class:card", " " + t(lang, "pf.none"))])
    for deeds in groups:
        label = t(lang, "pf.group", group=group_name(lang, deeds[0]))
        rows = _rows([_deed(game, lang, info) for info in deeds], f" {label:<13} ", width)
        lines.extend([("class:card", row)] for row in rows)
    return lines


def _rows(items: list[str], head: str, width: int) -> list[str]:
    """``items`` after ``head``, joined by " · " and broken between items (an item wider than a
    row alone, between words), the rows after the first indented under the first item."""
    indent = " " * len(head)
    rows = [head]
    for item in items:
        joined = rows[-1] + (" · " if rows[-1].strip() and rows[-1] != head else "") + item
        if len(joined) <= width or rows[-1] in (head, indent):
            rows[-1] = joined
        else:
            rows.append(indent + item)
    return [part for row in rows for part in wrap(row, width)]


def _mark(info: Mapping[str, Any]) -> str:
    """A deed's buildings or mortgage as the board marks them: 1-4, H, m (nothing unbuilt)."""
    if info["mortgaged"]:
        return "m"
    return {0: "", 5: "H"}.get(info["level"], str(info["level"]))


def players_lines(game: Game, me: int, lang: str, width: int) -> list[Fragments]:
    """Every player in a few rows, for the side panel of a large terminal: the seat (``>`` whose
    turn it is), name, cash and net worth, jail cards, then the deeds by their board labels and
    marks, a group's deeds together."""
    names = labels(game, lang)

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    title = wrap(f" {t(lang, 'pf.panel')}", width)
    lines: list[Fragments] = [[("class:card.title", row.ljust(width))] for row in title]
    for seat in range(game.num_players):
        p = game.player(seat)
        marker = ">" if seat == game.turn_player and not game.is_over else " "
        style = player_style(seat) + (" class:me" if seat == me else "")
        lines.append([(style, f"{marker}{seat + 1} {p['name']}"[:width])])
        if p["bankrupt"]:
            lines.append([("class:card", "   " + t(lang, "panel.bankrupt"))])
            continue
        worth = t(lang, "pf.cash", cash=cash(p["cash"]), worth=cash(p["net_worth"]))
        cards = plural(lang, "panel.cards", len(p["jail_cards"])) if p["jail_cards"] else ""
        lines.extend([("class:card", row)] for row in wrap("   " + worth + cards, width))
        groups = [" ".join(names[i["square"]].strip() + _mark(i) for i in deeds) for deeds in _groups(game, seat)]
        if groups:
            lines.extend([("class:card", row)] for row in _rows(groups, "   ", width))
    return lines


def status_lines(game: Game, last_roll: tuple[int, int, int] | None, lang: str, bid_timer: int = 0) -> list[str]:
    """The game's status in two short lines: the last roll (and who rolled it), and the bank's
    houses and hotels left, with the Free Parking jackpot when that variant is on; first, with a
    LAN game's ``bid_timer``, its seconds (the first line to go when the middle is short of room)."""
    if last_roll is None:
        dice = t(lang, "status.no_dice")
    else:
        seat, a, b = last_roll
        dice = t(lang, "status.dice", a=a, b=b, player=game.names[seat])
    bank = t(lang, "status.bank", houses=game.houses_left, hotels=game.hotels_left)
    if game.rules.free_parking_jackpot:
        bank += " · " + t(lang, "status.jackpot", amount=money(lang, game.currency, game.jackpot))
    timer = [t(lang, "status.bid_timer", seconds=bid_timer)] if bid_timer else []
    return [*timer, dice, bank]


def auction_lines(game: Game, me: int, lang: str, left: int | None = None) -> list[str]:
    """The running auction for the board's middle, most important last: the lot and its printed
    price, who is still in (the leader marked with its bid; with a bid timer, the seconds ``left``
    before the console passes for the person), and what the person may bid."""
    a = game.auction
    if a is None:
        return []
    cash = partial(money, lang, game.currency)
    if a["lot"] == "property":
        square = deed(game.square(a["square"]))
        lot = t(lang, "auction.lot", lot=square["name"], price=cash(square["price"]))
    else:
        lot = t(lang, f"dec.lot.{a['lot']}")
    names = [
        game.names[seat] + (f" ({cash(a['high_bid'])})" if seat == a["high_bidder"] else "") for seat in a["bidders"]
    ]
    bids = game.bid_range(me) if me in a["bidders"] else None
    if bids is None:
        mine = t(lang, "auction.out")
    else:
        mine = t(lang, "auction.you", cash=cash(game.player(me)["cash"]), least=cash(bids[0]), most=cash(bids[1]))
    bidders = ", ".join(names)
    timed = {} if left is None else {"left": left}
    still_in = t(lang, "auction.in_timed" if timed else "auction.in", names=bidders, **timed)
    return [lot, still_in, mine]


NAME_COLUMN = 14
"""The fewest columns of the names in the players' lines in the middle of the board."""


def name_width(names: Sequence[str], statuses: Sequence[str], width: int) -> int:
    """Columns of the names in the players' lines (`` >1 name status``, ``width`` wide): as wide as
    the longest name at the table, so that a token's name shows whole in every language (the
    French "chapeau haut-de-forme" was cut to "chapeau haut-d" at 80x24), unless the longest status
    would then be cut; never fewer than :data:`NAME_COLUMN`."""
    room = width - len(" >1  ") - max(map(len, statuses), default=0)
    return max(NAME_COLUMN, min(max(map(len, names), default=0), room))


def player_status(game: Game, seat: int, lang: str) -> str:
    """A player's line under the board's ring: bankrupt, or cash, deeds, in jail, jail cards."""
    p = game.player(seat)
    if p["bankrupt"]:
        return t(lang, "panel.bankrupt")
    jail = t(lang, "panel.in_jail") if p["in_jail"] else ""
    cards = plural(lang, "panel.cards", len(p["jail_cards"])) if p["jail_cards"] else ""
    deeds = plural(lang, "panel.deeds", len(p["properties"]))
    return f"{money(lang, game.currency, p['cash']):<7} {deeds}{jail}{cards}"
