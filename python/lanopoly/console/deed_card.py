"""The card of any square, drawn in place of the board: a title deed with its rent table, or what
a corner, card, tax or jail square does.

Every figure comes from the engine (``Game.square``): the printed price, rents, house cost and
mortgage value, the owner, the buildings, the mortgage, and ``rent``, what a landing costs now.
The row of the rent table that applies now is marked by a ``>`` (and a style), so the card reads
the same without colours (``NO_COLOR``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanopoly._core import Game
from lanopoly.console.board_view import GROUP_STYLES
from lanopoly.console.log_view import wrap
from lanopoly.describe import square_name
from lanopoly.i18n import agreeing, money, plural, t

Fragments = StyleAndTextTuples

WIDTH = 46
"""Columns of a card: its title bar, and the rent table's amounts right-aligned to it."""

HOTEL = 5
"""A street's level with a hotel (its houses: 1 to the rules' houses per hotel)."""
GROUP_KEYS = ["brown", "lightblue", "pink", "orange", "red", "yellow", "green", "darkblue"]
"""The colour groups by engine number (0..7), as the texts ``group.NAME`` and styles name them."""


def group_name(lang: str, info: Mapping[str, Any]) -> str:
    """The group a deed belongs to, in words: its colour, or railways, or utilities."""
    if info["kind"] == "street":
        return t(lang, "group." + GROUP_KEYS[info["group"]])
    return t(lang, "group." + info["kind"])


def rent_text(game: Game, lang: str, info: Mapping[str, Any]) -> str:
    """What a landing on a deed costs now, from the engine: an amount, or a factor of the dice
    for a utility; the reason when it costs nothing (the bank's deed, a mortgaged one)."""
    if info.get("owner") is None:
        return t(lang, "card.rent_unowned")
    if info["mortgaged"]:
        return agreeing(lang, "card.rent_mortgaged", info["name"])
    if info["kind"] == "utility":
        return t(lang, "card.dice", factor=info["rent"])
    return money(lang, game.currency, info["rent"])


def _row(label: str, value: str, current: bool, width: int) -> Fragments:
    mark = ">" if current else " "
    text = f" {mark} {label}"
    line = f"{text}{value:>{max(1, width - len(text) - 1)}} "
    return [("class:card.current" if current else "class:card", line)]


def rent_levels(game: Game) -> list[int]:
    """A street's levels the rules allow, each a rent of its deed: bare, each house count, the
    hotel. The speed game's hotel is on 3 houses: no level (nor rent) of a 4th house. The deed
    card and the ``info`` line in the log both list these."""
    return [0, *house_levels(game), HOTEL]


def house_levels(game: Game) -> list[int]:
    """The house counts a street can have: 1 to the rules' houses per hotel."""
    return list(range(1, game.rules.houses_per_hotel + 1))


def _rent_rows(game: Game, lang: str, info: Mapping[str, Any], width: int) -> list[Fragments]:
    """The printed rent table, the row that applies now marked (none for the bank's deed or a
    mortgaged one)."""

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    live = info.get("owner") is not None and not info["mortgaged"]
    if info["kind"] == "street":
        rents = info["rents"]
        labels = {0: t(lang, "card.rent"), HOTEL: t(lang, "card.with_hotel")}
        labels |= {n: plural(lang, "card.with_houses", n) for n in house_levels(game)}
        return [_row(labels[i], cash(rents[i]), live and info["level"] == i, width) for i in rent_levels(game)]
    table = info["rent_table"]
    now = table.index(info["rent"]) if live and info["rent"] in table else None
    if info["kind"] == "railway":
        return [_row(plural(lang, "card.railways", i + 1), cash(rent), now == i, width) for i, rent in enumerate(table)]
    return [
        _row(plural(lang, "card.utilities", i + 1), t(lang, "card.dice", factor=factor), now == i, width)
        for i, factor in enumerate(table)
    ]


def _title(text: str, style: str, width: int) -> Fragments:
    return [(style, f" {text} ".ljust(width)[:width])]


def _text(text: str, width: int, style: str = "class:card") -> list[Fragments]:
    """A line of the card, wrapped between words to ``width`` columns."""
    return [[(style, row)] for row in wrap(" " + text, width)]


def _paired(rows: list[Fragments], width: int) -> list[Fragments]:
    """The rows of a rent table two by two, side by side in ``width`` columns (a compact card)."""
    return [[*rows[i], *rows[i + 1]] if i + 1 < len(rows) else rows[i] for i in range(0, len(rows), 2)]


def deed_lines(
    game: Game, square: int, lang: str, width: int = WIDTH, for_sale: bool = False, compact: bool = False
) -> list[Fragments]:
    """The card of a title deed: name and group, price and owner, the rent table with the current
    row marked, the rent now, the house cost and the mortgage; ``for_sale`` (the bank's deed the
    person is asked to buy): without the owner and the rent now, which say nothing then;
    ``compact``: the rent table in two columns, on half its rows (a street's 6 on 3)."""
    info: Mapping[str, Any] = game.square(square)

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    style = GROUP_STYLES[info["group"]] if info["kind"] == "street" else "class:card.title"
    owner = info.get("owner")
    holder = game.names[owner] if owner is not None else t(lang, "party.bank")
    lines = [
        _title(square_name(game, square, lang), style, width),
        *_text(f"{group_name(lang, info)} · {t(lang, 'card.price', price=cash(info['price']))}", width),
        *([] if for_sale else _text(t(lang, "card.owner", owner=holder), width)),
        *(_paired(_rent_rows(game, lang, info, width // 2), width) if compact else _rent_rows(game, lang, info, width)),
        *([] if for_sale else _text(t(lang, "card.now", rent=rent_text(game, lang, info)), width, "class:card.now")),
    ]
    if info["kind"] == "street":
        houses = game.rules.houses_per_hotel
        lines += _text(t(lang, "card.house_cost", cost=cash(info["house_cost"]), n=houses), width)
    key = "card.mortgaged" if info["mortgaged"] else "card.not_mortgaged"
    return lines + _text(agreeing(lang, key, info["name"], value=cash(info["mortgage_value"])), width)


def square_lines(game: Game, square: int, lang: str, width: int = WIDTH) -> list[Fragments]:
    """The card of a square that is no deed: what happens there."""
    info: Mapping[str, Any] = game.square(square)

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    kind = info["kind"]
    rules = game.rules
    if kind == "go":
        text = t(lang, "sq.go", salary=cash(rules.go_salary))
    elif kind == "tax":
        text = t(lang, "sq.tax", amount=cash(info["amount"]))
    elif kind in ("chance", "community_chest"):
        text = t(lang, "sq.card", deck=t(lang, "deck." + kind))
    elif kind == "jail":
        text = t(lang, "sq.jail", fine=cash(rules.jail_fine))
    elif kind == "free_parking" and rules.free_parking_jackpot:
        text = t(lang, "sq.jackpot", amount=cash(game.jackpot))
    elif kind == "free_parking":
        text = t(lang, "sq.free_parking")
    else:
        text = t(lang, "sq.go_to_jail")
    return [_title(square_name(game, square, lang), "class:card.title", width), *_text(text, width)]


def card_lines(game: Game, square: int, lang: str, width: int = WIDTH) -> list[Fragments]:
    """The card of any square, ``width`` columns wide (its rent table's amounts right-aligned),
    then who stands there."""
    info = game.square(square)
    lines = (deed_lines if "price" in info else square_lines)(game, square, lang, width)
    here = [
        game.names[seat]
        for seat in range(game.num_players)
        if not game.player(seat)["bankrupt"] and game.player(seat)["position"] == square
    ]
    if here:
        lines += _text(t(lang, "card.here", players=", ".join(here)), width)
    return lines
