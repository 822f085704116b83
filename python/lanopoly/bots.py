"""Simple bots: policies that choose among the legal actions, as a person would through the API.

A policy sees only what a player sees (the game and its legal actions) and never the future of
chance. The Rust bots (``lanopoly.Bot``) are faster and stronger; this one is the console's easy
level and keeps the tests honest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from lanopoly._core import Bot, Game
from lanopoly.types import deed

Action = Mapping[str, Any]
"""A move as a policy sees it: a ``lanopoly.types.Move`` (typed policies may say so), or any
mapping of the same form."""


class Policy(Protocol):
    """Anything that picks one of the legal actions of a seat."""

    def choose(self, game: Game, seat: int, legal: Sequence[Action]) -> Action: ...


class Interjecting(Policy, Protocol):
    """A policy that may also act out of turn. The method is optional: a plain ``Policy`` never does.

    ``interject`` is asked after every step for each seat the policy plays that is not the one to
    act (``legal`` is that seat's legal moves now, never empty: bids and passes in an open auction,
    building, selling, mortgages, trade answers...; trade proposals are legal too though not listed).
    It returns one legal action of that seat, or None to stay quiet. An action returned may not be
    taken (another seat's may go first): the policy is then asked again with the new state.
    """

    def interject(self, game: Game, seat: int, legal: Sequence[Action]) -> Action | None: ...


def claim_out_of_turn(game: Game, policies: Mapping[int, Policy]) -> Action | None:
    """The claim of rent owed to a seat not to act that its policy makes out of turn (its
    ``interject``), seats in order after the one to act; None if there is none. Rent must be
    claimed in time under the printed books' rules, while the payer plays on: the drivers that let
    bots move only when the game waits for them (the console, ``lanopoly watch``) ask this after
    every step."""
    actor = game.current_player
    if game.is_over or game.is_chance_node or actor is None or not game.claims:
        return None
    owners = {claim["owner"] for claim in game.claims}
    n = game.num_players
    for seat in ((actor + d) % n for d in range(1, n)):
        interject = getattr(policies.get(seat), "interject", None)
        if seat not in owners or interject is None:
            continue
        action: Action | None = interject(game, seat, game.legal_actions(seat))
        if action is not None and action.get("type") == "claim_rent":
            return action
    return None


def answer_out_of_turn(game: Game, policies: Mapping[int, Policy]) -> Action | None:
    """A bot's answer (accept or reject) to a trade offer made to it while another seat is to
    act, oldest offer first, from the bots that answer out of turn (their ``interject``); None if
    there is none. A person who offers a trade then hears back at once, not when the bot's own
    turn comes (the console asks this after every step). Every bot here answers so: the simple
    bot and the Rust bots (``lanopoly.Bot``), which judge an offer out of turn as on their turn."""
    actor = game.current_player
    if game.is_over or game.is_chance_node or actor is None:
        return None
    for offer in game.offers:
        seat = offer["to"]
        interject = getattr(policies.get(seat), "interject", None)
        if seat == actor or interject is None:
            continue
        answers = [a for a in game.legal_actions(seat) if a["type"] in ("accept_trade", "reject_trade")]
        action: Action | None = interject(game, seat, answers) if answers else None
        if action is not None and action.get("type") in ("accept_trade", "reject_trade"):
            return action
    return None


class SimpleBot:
    """Buys what it can afford while keeping a reserve, builds when rich, bids up to the price,
    raises money by selling then mortgaging, buys the last street of a colour group for twice its
    price, sells a street for 1.5 times its price unless that breaks a group of its own, and
    claims every rent owed to it.

    Out of turn (``interject``) it claims the rent owed to it, answers the trade offers made to
    it, raises a running auction by a tenth of the price while that stays within its limit, and
    offers to complete a group."""

    def __init__(self, reserve: int = 150) -> None:
        self.reserve = reserve
        self._tried: set[tuple[int, int]] = set()

    def choose(self, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        by_type: dict[str, list[Action]] = {}
        for action in legal:
            by_type.setdefault(action["type"], []).append(action)
        cash = int(game.player(seat)["cash"])

        def first(*kinds: str) -> Action | None:
            for kind in kinds:
                if kind in by_type:
                    return by_type[kind][0]
            return None

        # Money owed comes first: pay, else raise it, else give up.
        if game.debts and any(d["debtor"] == seat for d in game.debts):
            return first("pay_debt", "sell", "sell_down", "mortgage", "declare_bankruptcy") or legal[0]
        if "claim_rent" in by_type:
            return by_type["claim_rent"][0]
        if "keep_mortgaged" in by_type:
            if cash > 600 and "unmortgage" in by_type:
                return by_type["unmortgage"][0]
            return by_type["keep_mortgaged"][0]
        if "bid" in by_type or "pass" in by_type:
            return self._bid(game, seat, by_type)
        if "build" in by_type:
            for action in by_type["build"]:
                if cash - deed(game.square(action["square"]))["house_cost"] >= 2 * self.reserve:
                    return action
        if "unmortgage" in by_type and cash > 1000:
            return by_type["unmortgage"][0]
        for accept in by_type.get("accept_trade", []):
            if self._good_offer(game, seat, accept["from"]):
                return accept
        if "reject_trade" in by_type:
            return by_type["reject_trade"][0]
        if "roll" in by_type or "end_turn" in by_type:
            offer = self._offer_to_complete_a_group(game, seat, cash)
            if offer is not None:
                return offer
        if "buy" in by_type:
            price = deed(game.square(game.buy_square))["price"] if game.buy_square is not None else 0
            return by_type["buy"][0] if cash - price >= self.reserve else by_type["decline"][0]
        if "use_jail_card" in by_type:
            return by_type["use_jail_card"][0]
        if "pay_jail_fine" in by_type and cash > 4 * self.reserve:
            return by_type["pay_jail_fine"][0]
        return first("roll", "end_turn", "decline", "end_game") or legal[0]

    def interject(self, game: Game, seat: int, legal: Sequence[Action]) -> Action | None:
        """An out-of-turn move: claim rent, answer an offer, raise the auction, or offer to complete
        a group."""
        by_type: dict[str, list[Action]] = {}
        for action in legal:
            by_type.setdefault(action["type"], []).append(action)
        if "claim_rent" in by_type:
            return by_type["claim_rent"][0]
        if game.debts and any(d["debtor"] == seat for d in game.debts):
            return None
        for accept in by_type.get("accept_trade", []):
            if self._good_offer(game, seat, accept["from"]):
                return accept
        if "reject_trade" in by_type:
            return by_type["reject_trade"][0]
        auction = game.auction
        if auction is not None and "bid" in by_type and auction["high_bidder"] != seat:
            span = game.bid_range(seat)
            value = deed(game.square(auction["square"]))["price"] if auction["lot"] == "property" else 0
            limit = min(value, int(game.player(seat)["cash"]) - self.reserve)
            if span is not None and span[0] <= limit:
                amount = min(max(span[0], auction["high_bid"] + max(1, value // 10)), limit, span[1])
                return {"type": "bid", "player": seat, "amount": amount}
            return None
        if auction is None and game.step % 10 == seat % 10:
            return self._offer_to_complete_a_group(game, seat, int(game.player(seat)["cash"]))
        return None

    def _bid(self, game: Game, seat: int, by_type: dict[str, list[Action]]) -> Action:
        auction = game.auction
        value = deed(game.square(auction["square"]))["price"] if auction and auction["lot"] == "property" else 0
        cash = int(game.player(seat)["cash"])
        if "bid" in by_type:
            bid = by_type["bid"][0]
            if int(bid["amount"]) <= min(value, cash - self.reserve):
                return bid
        return by_type["pass"][0] if "pass" in by_type else by_type["bid"][0]

    def _groups(self, game: Game) -> dict[int, list[int]]:
        groups: dict[int, list[int]] = {}
        for s in range(40):
            info = game.square(s)
            if info["kind"] == "street":
                groups.setdefault(int(info["group"]), []).append(s)
        return groups

    def _offer_to_complete_a_group(self, game: Game, seat: int, cash: int) -> Action | None:
        """Offer twice the price for the streets that would complete a group, once a turn."""
        for group, streets in self._groups(game).items():
            info = [deed(game.square(s)) for s in streets]
            mine = [i for i in info if i["owner"] == seat]
            theirs = [i for i in info if i["owner"] not in (seat, None)]
            if len(mine) != len(streets) - 1 or len(theirs) != 1 or theirs[0]["level"] > 0:
                continue
            key = (game.step // 50, group)
            price = 2 * int(theirs[0]["price"])
            if key in self._tried or cash - price < self.reserve:
                continue
            self._tried.add(key)
            offer: Action = {
                "type": "propose_trade",
                "player": seat,
                "to": theirs[0]["owner"],
                "give": {"cash": price},
                "get": {"properties": [theirs[0]["square"]]},
            }
            try:
                game.check(offer)
            except ValueError:
                continue
            return offer
        return None

    def _good_offer(self, game: Game, seat: int, proposer: int) -> bool:
        """Accept cash of at least 1.5 times the price of what we give (plus any cash asked of
        us), if no group of ours breaks."""
        offer = next((o for o in game.offers if o["from"] == proposer and o["to"] == seat), None)
        if offer is None or offer["get"]["jail_cards"] or offer["give"]["properties"]:
            return False
        given = [deed(game.square(s)) for s in offer["get"].get("properties", [])]
        groups = self._groups(game)
        for info in given:
            if info["kind"] == "street":
                group = groups[info["group"]]
                if all(deed(game.square(s))["owner"] == seat for s in group):
                    return False
        value = sum(d["price"] for d in given)
        return int(offer["give"]["cash"]) >= value * 3 // 2 + int(offer["get"]["cash"])


DIFFICULTIES: dict[str, Callable[[], Policy]] = {
    "easy": SimpleBot,
    "normal": lambda: Bot("heuristic"),
    "hard": lambda: Bot("search"),
}
"""The console's bot levels, weakest first: this module's simple bot, the Rust heuristic bot, and
the Rust search bot (the heuristic bot with Monte Carlo rollouts at the decisions that matter,
a few milliseconds at most per decision)."""
