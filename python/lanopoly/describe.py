"""Plain sentences for game events, for logs and the console."""

from __future__ import annotations

from typing import Any

from lanopoly._core import Game

Event = dict[str, Any]

_DECKS = {"chance": "Chance", "community_chest": "Community Chest"}
_JAIL_EXITS = {
    "fine": "paying the fine",
    "card": "a get-out-of-jail card",
    "double": "rolling a double",
    "third_failure": "paying the fine after a third failed roll",
}
# Payments that another event already tells (purchases, salaries, building...) are bookkeeping.
_TOLD_ELSEWHERE = {"starting_cash", "salary", "purchase", "auction", "building", "mortgage", "unmortgage", "trade"}


def _party(game: Game, party: Any) -> str:
    if isinstance(party, dict):
        return str(game.names[party["player"]])
    return "the Free Parking jackpot" if party == "jackpot" else "the bank"


def describe(game: Game, event: Event, *, payments: bool = False) -> str | None:
    """One sentence for an event, or None for bookkeeping (payments that another event already
    tells, such as a purchase or a salary, unless ``payments`` asks for every one)."""
    kind = event["type"]
    name = game.names
    money = game.currency

    def who(key: str = "player") -> str:
        return str(name[event[key]])

    def sq(key: str = "square") -> str:
        return str(game.square(event[key])["name"])

    if kind == "payment" and not payments and event["reason"] in _TOLD_ELSEWHERE:
        return None
    match kind:
        case "payment":
            src, dst = _party(game, event["from"]), _party(game, event["to"])
            return f"{src} pays {dst} {money}{event['amount']} ({event['reason'].replace('_', ' ')})."
        case "order_roll":
            return f"{who()} rolls {event['total']} for the first turn."
        case "first_player":
            return f"{who()} starts."
        case "deed_dealt":
            return f"{who()} is dealt {sq()}."
        case "rolled":
            a, b = event["dice"]
            double = " (double)" if a == b else ""
            return f"{who()} rolls {a} + {b} = {a + b}{double}."
        case "moved":
            visiting = " (just visiting)" if event["to"] == 10 else ""
            return f"{who()} moves to {game.square(event['to'])['name']}{visiting}."
        case "passed_go":
            return f"{who()} passes GO."
        case "card_drawn":
            deck = event["deck"]
            return f"{who()} draws {_DECKS[deck]}: {game.card_text(deck, event['card'])}"
        case "went_to_jail":
            return f"{who()} goes to jail."
        case "left_jail":
            return f"{who()} leaves jail by {_JAIL_EXITS[event['how']]}."
        case "stayed_in_jail":
            return f"{who()} stays in jail (failed roll {event['attempts']} of 3)."
        case "bought":
            return f"{who()} buys {sq()} for {money}{game.square(event['square'])['price']}."
        case "declined":
            return f"{who()} does not buy {sq()}."
        case "auction_started":
            return f"{sq()} is auctioned."
        case "shortage_auction_started":
            return f"The bank's last {'hotels are' if event['hotel'] else 'houses are'} auctioned."
        case "bid":
            return f"{who()} bids {money}{event['amount']}."
        case "passed_auction":
            return f"{who()} passes."
        case "auction_won":
            return f"{who()} wins {sq()} for {money}{event['price']}."
        case "shortage_auction_won":
            piece = "hotel" if event["hotel"] else "house"
            return f"{who()} wins the {piece} for a premium of {money}{event['price']}."
        case "auction_unsold":
            return f"Nobody bids: {sq()} stays with the bank."
        case "built":
            level = event["level"]
            what = "a hotel" if level == 5 else f"{level} house{'s' if level != 1 else ''}"
            return f"{who()} builds on {sq()}: now {what}."
        case "sold_building":
            level = event["level"]
            what = "a hotel" if level == 5 else f"{level} house{'s' if level != 1 else ''}"
            return f"{who()} sells a building on {sq()}: now {what}."
        case "mortgaged":
            return f"{who()} mortgages {sq()}."
        case "unmortgaged":
            return f"{who()} lifts the mortgage on {sq()}."
        case "kept_mortgaged":
            return f"{who()} keeps {sq()} mortgaged and pays the 10% fee."
        case "rent_due":
            return f"{who('payer')} owes {who('owner')} {money}{event['amount']} rent for {sq()}, if claimed in time."
        case "rent_lapsed":
            return f"{who('owner')} did not claim the rent for {sq()} in time."
        case "debt_owed":
            return f"{who('debtor')} owes {_party(game, event['creditor'])} {money}{event['amount']} and must raise it."
        case "trade_proposed":
            offer = event["offer"]
            return f"{name[offer['from']]} offers a trade to {name[offer['to']]}."
        case "trade_accepted":
            return f"{who('to')} accepts the trade offered by {who('from')}."
        case "trade_rejected":
            return f"{who('to')} rejects the trade offered by {who('from')}."
        case "trade_cancelled":
            return f"{who('from')} withdraws a trade offer."
        case "property_transferred":
            dst = name[event["to"]] if event["to"] is not None else "the bank"
            return f"{sq()} passes to {dst}."
        case "bankrupt":
            return f"{who()} is bankrupt; everything goes to {_party(game, event['creditor'])}."
        case "turn_ended":
            return None
        case "turn_started":
            cash = game.player(event["player"])["cash"]
            return f"-- Round {event['round'] + 1}: {who()}'s turn (cash {money}{cash})."
        case "game_over":
            return f"Game over: {who('winner')} wins."
    return f"{kind}: {event}"
