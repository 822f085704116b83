"""Plain sentences for game events, for logs and the console, in English (the default), French,
Italian or Norwegian. The sentences themselves are in :mod:`lanopoly.i18n`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lanopoly import catalog
from lanopoly._core import Game
from lanopoly.i18n import LANGUAGES, agreeing, money, plural, t
from lanopoly.types import DEED_KINDS, deed

Event = Mapping[str, Any]
"""An event dict (``lanopoly.types.Event``, or one read back from a log)."""

# Payments that another event already tells (purchases, salaries, building...) are bookkeeping.
_TOLD_ELSEWHERE = {"starting_cash", "salary", "purchase", "auction", "building", "mortgage", "unmortgage", "trade"}
# Events whose sentence needs only the player and the square named in the event.
_PLAIN = {
    "first_player",
    "deed_dealt",
    "passed_go",
    "went_to_jail",
    "declined",
    "auction_started",
    "passed_auction",
    "auction_unsold",
}
# The mortgage events and the reason of the payment each comes with (the amount of the sentence).
_MORTGAGE_PAYMENTS = {"mortgaged": "mortgage", "unmortgaged": "unmortgage", "kept_mortgaged": "transfer_fee"}


def square_name(game: Game, square: int, lang: str = "en") -> str:
    """A square's name as a person reads it in ``lang``: a deed keeps its edition's name (the
    street names are the board's), the other squares (GO, jail, cards, taxes...) take the
    language's words (the catalog's ``square.*``), whatever the edition calls them."""
    key = square_key(game, square)
    return str(game.square(square)["name"]) if key is None else t(lang, f"square.{key}")


def square_key(game: Game, square: int) -> str | None:
    """The catalogs' key of a square that is not a deed ("go", "chance", "income_tax"...: the
    rest of its ``square.*`` key), or None for a deed (its name is its edition's)."""
    kind = str(game.square(square)["kind"])
    if kind in DEED_KINDS:
        return None
    if kind == "tax":
        return "income_tax" if square < 20 else "luxury_tax"
    return kind


def card_text(game: Game, deck: str, card: int, lang: str = "en") -> str:
    """The text of a Chance or Community Chest card in ``lang``: the catalogs' ``cards`` domain
    translates each edition's printed text (:meth:`Game.card_text`); the printed text where a
    language lacks it."""
    printed = game.card_text(deck, card)
    found = catalog.load(lang, "cards") if lang in LANGUAGES else None
    translated = found.text(printed) if found is not None else None
    return translated or printed


def party(game: Game, party: Any, lang: str = "en") -> str:
    """A player's name, the bank or the Free Parking jackpot."""
    if isinstance(party, dict):
        return str(game.names[party["player"]])
    return t(lang, "party.jackpot" if party == "jackpot" else "party.bank")


def bundle_text(game: Game, bundle: Mapping[str, Any], lang: str = "en") -> str:
    """One side of a trade in words: its properties, its cash, its jail cards ("nothing" when empty)."""
    items = [square_name(game, s, lang) for s in bundle.get("properties", [])]
    if bundle.get("cash"):
        items.append(money(lang, game.currency, bundle["cash"]))
    items += [t(lang, "dec.jail_card") for _ in bundle.get("jail_cards", [])]
    return ", ".join(items) or t(lang, "dec.nothing")


def _level(lang: str, level: int) -> str:
    if level == 5:
        return t(lang, "level.hotel")
    return plural(lang, "level", level)


def describe(game: Game, event: Event, *, payments: bool = False, lang: str = "en") -> str | None:
    """One sentence for an event in ``lang``, or None for bookkeeping (payments that another event
    already tells, such as a purchase or a salary, unless ``payments`` asks for every one)."""
    kind = event["type"]
    names = game.names

    def cash(amount: int) -> str:
        return money(lang, game.currency, amount)

    def who(key: str = "player") -> str:
        return str(names[event[key]])

    def sq(key: str = "square") -> str:
        return square_name(game, event[key], lang)

    def say(key: str, **fields: Any) -> str:
        return t(lang, key, **fields)

    if kind == "payment" and not payments and event["reason"] in _TOLD_ELSEWHERE:
        return None
    if kind in _PLAIN:
        fields = {k: who() if k == "player" else sq() for k in ("player", "square") if k in event}
        if "square" in fields:  # "Avenue Foch est mise aux enchères": the words agree with the deed's name
            return agreeing(lang, f"ev.{kind}", fields["square"], **fields)
        return say(f"ev.{kind}", **fields)
    match kind:
        case "mortgaged" | "unmortgaged" | "kept_mortgaged":
            amount = event["amount"] if "amount" in event else _mortgage_amount(game, kind, event["square"])
            square = sq()  # "garde Avenue Foch hypothéquée": the words agree with the deed's name
            return agreeing(lang, f"ev.{kind}", square, player=who(), square=square, amount=cash(amount))
        case "payment":
            src, dst = party(game, event["from"], lang), party(game, event["to"], lang)
            reason = say(f"reason.{event['reason']}")
            amount = cash(event["amount"])
            if event["to"] in ("bank", "jackpot"):  # languages that merge "to the" (alla banca)
                return say(f"ev.payment_to_{event['to']}", src=src, amount=amount, reason=reason)
            return say("ev.payment", src=src, dst=dst, amount=amount, reason=reason)
        case "order_roll":
            return say("ev.order_roll", player=who(), total=event["total"])
        case "rolled":
            a, b = event["dice"]
            return say("ev.rolled", player=who(), a=a, b=b, total=a + b, double=say("ev.double") if a == b else "")
        case "moved":
            visiting = say("ev.visiting") if event["to"] == 10 else ""
            return say("ev.moved", player=who(), square=square_name(game, event["to"], lang), visiting=visiting)
        case "card_drawn":
            deck = event["deck"]
            text = card_text(game, deck, event["card"], lang)
            return say("ev.card_drawn", player=who(), deck=say(f"deck.{deck}"), text=text)
        case "left_jail":
            return say("ev.left_jail", player=who(), how=say(f"jail.{event['how']}"))
        case "stayed_in_jail":
            return say("ev.stayed_in_jail", player=who(), attempts=event["attempts"])
        case "bought":
            return say("ev.bought", player=who(), square=sq(), price=cash(deed(game.square(event["square"]))["price"]))
        case "shortage_auction_started":
            return say(f"ev.shortage_auction_started.{'hotel' if event['hotel'] else 'house'}")
        case "bid":
            return say("ev.bid", player=who(), amount=cash(event["amount"]))
        case "auction_won":
            return say("ev.auction_won", player=who(), square=sq(), price=cash(event["price"]))
        case "shortage_auction_won":
            piece = "hotel" if event["hotel"] else "house"
            return say(f"ev.shortage_auction_won.{piece}", player=who(), price=cash(event["price"]))
        case "built" | "sold_building":
            return say(f"ev.{kind}", player=who(), square=sq(), what=_level(lang, event["level"]))
        case "rent_due":
            return say("ev.rent_due", payer=who("payer"), owner=who("owner"), amount=cash(event["amount"]), square=sq())
        case "rent_lapsed":
            return say("ev.rent_lapsed", owner=who("owner"), square=sq())
        case "debt_owed":
            if event["creditor"] in ("bank", "jackpot"):  # languages that merge "to the"
                return say(f"ev.debt_owed_{event['creditor']}", debtor=who("debtor"), amount=cash(event["amount"]))
            creditor = party(game, event["creditor"], lang)
            return say("ev.debt_owed", debtor=who("debtor"), creditor=creditor, amount=cash(event["amount"]))
        case "trade_proposed":  # every term, cash included: the log is the record of the deal
            offer = event["offer"]
            give, get = bundle_text(game, offer["give"], lang), bundle_text(game, offer["get"], lang)
            return say("ev.trade_proposed", proposer=names[offer["from"]], to=names[offer["to"]], give=give, get=get)
        case "trade_accepted":
            give, get = bundle_text(game, event["give"], lang), bundle_text(game, event["get"], lang)
            return say("ev.trade_accepted", to=who("to"), proposer=who("from"), give=give, get=get)
        case "trade_rejected":
            return say("ev.trade_rejected", to=who("to"), proposer=who("from"))
        case "trade_cancelled":
            return say("ev.trade_cancelled", proposer=who("from"))
        case "property_transferred":
            if event["to"] is None:
                return say("ev.property_transferred_bank", square=sq())
            return say("ev.property_transferred", square=sq(), to=names[event["to"]])
        case "bankrupt":
            if event["creditor"] == "bank":  # languages that merge "to the"
                return say("ev.bankrupt_bank", player=who())
            return say("ev.bankrupt", player=who(), creditor=party(game, event["creditor"], lang))
        case "resigned":
            return say("ev.resigned", player=who())
        case "turn_ended":
            return None
        case "turn_started":
            balance = cash(game.player(event["player"])["cash"])
            return say("ev.turn_started", round=event["round"] + 1, player=who(), cash=balance)
        case "game_over":
            return say("ev.game_over", winner=who("winner"))
    return f"{kind}: {event}"


def _mortgage_amount(game: Game, kind: str, square: int) -> int:
    """What a mortgage event moved, from the deed, for an event told without its payment: the
    mortgage value, or its 10 % (rounded up) on top to lift it, or the 10 % alone to keep it."""
    value = deed(game.square(square))["mortgage_value"]
    fee = (value + 9) // 10
    return {"mortgaged": value, "unmortgaged": value + fee}.get(kind, fee)


def reading_order(events: Sequence[Event]) -> list[Event]:
    """The events of one step as a person reads them: passing GO before the move that passed it
    (the engine records the move, then what passing GO brings), and each mortgage event with the
    amount of the payment it came with."""
    out = list(events)
    for i in range(1, len(out)):
        before, event = out[i - 1], out[i]
        if event["type"] == "passed_go" and before["type"] == "moved" and before["player"] == event["player"]:
            out[i - 1], out[i] = event, before
        elif before["type"] == "payment" and before["reason"] == _MORTGAGE_PAYMENTS.get(event["type"]):
            out[i] = {**event, "amount": before["amount"]}
    return out


def describe_events(game: Game, events: Sequence[Event], *, lang: str = "en") -> list[str]:
    """The sentences of one step's events, in reading order (:func:`reading_order`)."""
    lines = (describe(game, event, lang=lang) for event in reading_order(events))
    return [line for line in lines if line]
