"""The dicts that cross the engine's boundary, as ``TypedDict`` unions keyed by their ``type``.

Every move the engine accepts (``Game.apply``, ``check``; what ``legal_actions`` and the bots
return), every chance outcome, and every event it emits has a class here, so a type checker can
follow a policy's code through ``action["type"]`` checks::

    from lanopoly.types import Move, Event

    def choose(game: lanopoly.Game, seat: int, legal: list[Move]) -> Move:
        for action in legal:
            if action["type"] == "build":  # narrowed to BuildAction: action["square"] is an int
                return action
        return legal[0]

The classes mirror the Rust conversions (``rust_core/bindings/src/convert.rs`` for moves and
outcomes, the ``Event`` enum of ``rust_core/engine/src/event.rs`` for events);
``tests/test_types.py`` checks every move and event of real games against them, so they cannot
drift apart. Seats and squares are ints (squares 0..39 on every board); money is an int.
"""

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, cast, get_args, get_type_hints

JailCard: TypeAlias = Literal["chance", "community_chest"]
"""A "get out of jail" card, by its deck."""


class TradeBundle(TypedDict):
    """What one side of a trade hands over. The engine always writes the three keys; a move may
    leave any out (nothing of that kind)."""

    properties: NotRequired[list[int]]
    """Squares of unbuilt deeds."""
    cash: NotRequired[int]
    jail_cards: NotRequired[list[JailCard]]


# Moves: a player's decision, always with the acting seat. ----------------------------------


class RollAction(TypedDict):
    type: Literal["roll"]
    player: int


class PayJailFineAction(TypedDict):
    type: Literal["pay_jail_fine"]
    player: int


class UseJailCardAction(TypedDict):
    type: Literal["use_jail_card"]
    player: int


class BuyAction(TypedDict):
    type: Literal["buy"]
    player: int


class DeclineAction(TypedDict):
    type: Literal["decline"]
    player: int


class BidAction(TypedDict):
    type: Literal["bid"]
    player: int
    amount: int


class PassAction(TypedDict):
    """Leave the running auction."""

    type: Literal["pass"]
    player: int


class BuildAction(TypedDict):
    type: Literal["build"]
    player: int
    square: int


class SellAction(TypedDict):
    """Sell one level of building back to the bank."""

    type: Literal["sell"]
    player: int
    square: int


class SellDownAction(TypedDict):
    """Sell a colour group's buildings down to ``levels`` at once (street order, 5 = hotel)."""

    type: Literal["sell_down"]
    player: int
    group: int
    levels: list[int]


class MortgageAction(TypedDict):
    type: Literal["mortgage"]
    player: int
    square: int


class UnmortgageAction(TypedDict):
    type: Literal["unmortgage"]
    player: int
    square: int


class KeepMortgagedAction(TypedDict):
    type: Literal["keep_mortgaged"]
    player: int
    square: int


class ProposeTradeAction(TypedDict):
    """``give`` is what the proposer gives, ``get`` what it asks of ``to`` (each empty if left out)."""

    type: Literal["propose_trade"]
    player: int
    to: int
    give: NotRequired[TradeBundle]
    get: NotRequired[TradeBundle]


AcceptTradeAction = TypedDict("AcceptTradeAction", {"type": Literal["accept_trade"], "player": int, "from": int})
"""Accept the open offer that seat ``from`` made to ``player``."""
RejectTradeAction = TypedDict("RejectTradeAction", {"type": Literal["reject_trade"], "player": int, "from": int})


class CancelTradeAction(TypedDict):
    type: Literal["cancel_trade"]
    player: int


class PayDebtAction(TypedDict):
    type: Literal["pay_debt"]
    player: int


class DeclareBankruptcyAction(TypedDict):
    type: Literal["declare_bankruptcy"]
    player: int


class ClaimRentAction(TypedDict):
    type: Literal["claim_rent"]
    player: int
    square: int


class EndTurnAction(TypedDict):
    type: Literal["end_turn"]
    player: int


class EndGameAction(TypedDict):
    """End a timed game now (the ``timed`` option)."""

    type: Literal["end_game"]
    player: int


class ResignAction(TypedDict):
    """Leave the game; legal at any time but a chance event, never listed by ``legal_actions``."""

    type: Literal["resign"]
    player: int


Move: TypeAlias = (
    RollAction
    | PayJailFineAction
    | UseJailCardAction
    | BuyAction
    | DeclineAction
    | BidAction
    | PassAction
    | BuildAction
    | SellAction
    | SellDownAction
    | MortgageAction
    | UnmortgageAction
    | KeepMortgagedAction
    | ProposeTradeAction
    | AcceptTradeAction
    | RejectTradeAction
    | CancelTradeAction
    | PayDebtAction
    | DeclareBankruptcyAction
    | ClaimRentAction
    | EndTurnAction
    | EndGameAction
    | ResignAction
)
"""A player's move: what a policy returns and ``legal_actions`` lists for a seat."""

# Chance outcomes: what chance brings at a chance node, applied like moves. ------------------


class DiceOutcome(TypedDict):
    """Two dice, smaller first as the engine writes them (either order is accepted)."""

    type: Literal["dice"]
    dice: list[int]


class CardOutcome(TypedDict):
    """A card of the deck being drawn from, by its index in the edition's table."""

    type: Literal["card"]
    card: int


class DeedOutcome(TypedDict):
    """A deed dealt at the start (speed and timed variants), by its square."""

    type: Literal["deed"]
    square: int


ChanceOutcome: TypeAlias = DiceOutcome | CardOutcome | DeedOutcome
"""A chance outcome (``sample_chance``, ``chance_outcomes``, ``legal_actions`` at a chance node)."""

Action: TypeAlias = Move | ChanceOutcome
"""Any input of ``Game.apply``: a move or a chance outcome."""

# Events: what an input made happen. ---------------------------------------------------------


class PlayerParty(TypedDict):
    player: int


Party: TypeAlias = Literal["bank", "jackpot"] | PlayerParty
"""Who pays or is paid: the bank, the Free Parking jackpot (option) or a seat."""

PaymentReason: TypeAlias = Literal[
    "starting_cash",
    "salary",
    "purchase",
    "auction",
    "rent",
    "tax",
    "card",
    "jail_fine",
    "building",
    "mortgage",
    "unmortgage",
    "transfer_fee",
    "trade",
    "bankruptcy",
    "resignation",
    "jackpot",
]

JailExit: TypeAlias = Literal["fine", "card", "double", "third_failure"]
"""How a player left jail (``third_failure``: the fine paid after the third failed roll)."""

Offer = TypedDict("Offer", {"from": int, "to": int, "give": TradeBundle, "get": TradeBundle})
"""A trade offer: ``from`` gives ``give`` and asks ``get`` of ``to``."""

PaymentEvent = TypedDict(
    "PaymentEvent",
    {"type": Literal["payment"], "from": Party, "to": Party, "amount": int, "reason": PaymentReason},
)
"""Money moved: every unit has a source and a sink."""


class OrderRollEvent(TypedDict):
    type: Literal["order_roll"]
    player: int
    total: int


class FirstPlayerEvent(TypedDict):
    type: Literal["first_player"]
    player: int


class DeedDealtEvent(TypedDict):
    type: Literal["deed_dealt"]
    player: int
    square: int


class RolledEvent(TypedDict):
    type: Literal["rolled"]
    player: int
    dice: tuple[int, int]


MovedEvent = TypedDict("MovedEvent", {"type": Literal["moved"], "player": int, "from": int, "to": int})


class PassedGoEvent(TypedDict):
    type: Literal["passed_go"]
    player: int


class CardDrawnEvent(TypedDict):
    type: Literal["card_drawn"]
    player: int
    deck: JailCard
    card: int


class WentToJailEvent(TypedDict):
    type: Literal["went_to_jail"]
    player: int


class LeftJailEvent(TypedDict):
    type: Literal["left_jail"]
    player: int
    how: JailExit


class StayedInJailEvent(TypedDict):
    type: Literal["stayed_in_jail"]
    player: int
    attempts: int


class BoughtEvent(TypedDict):
    type: Literal["bought"]
    player: int
    square: int


class DeclinedEvent(TypedDict):
    type: Literal["declined"]
    player: int
    square: int


class AuctionStartedEvent(TypedDict):
    type: Literal["auction_started"]
    square: int


class ShortageAuctionStartedEvent(TypedDict):
    """An auction of the bank's last houses (``hotel`` False) or hotels."""

    type: Literal["shortage_auction_started"]
    hotel: bool


class BidEvent(TypedDict):
    type: Literal["bid"]
    player: int
    amount: int


class PassedAuctionEvent(TypedDict):
    type: Literal["passed_auction"]
    player: int


class AuctionWonEvent(TypedDict):
    type: Literal["auction_won"]
    player: int
    square: int
    price: int


class ShortageAuctionWonEvent(TypedDict):
    type: Literal["shortage_auction_won"]
    player: int
    hotel: bool
    price: int


class AuctionUnsoldEvent(TypedDict):
    type: Literal["auction_unsold"]
    square: int


class BuiltEvent(TypedDict):
    """``level`` is the street's new level (5 = hotel)."""

    type: Literal["built"]
    player: int
    square: int
    level: int


class SoldBuildingEvent(TypedDict):
    type: Literal["sold_building"]
    player: int
    square: int
    level: int


class MortgagedEvent(TypedDict):
    type: Literal["mortgaged"]
    player: int
    square: int


class UnmortgagedEvent(TypedDict):
    type: Literal["unmortgaged"]
    player: int
    square: int


class KeptMortgagedEvent(TypedDict):
    type: Literal["kept_mortgaged"]
    player: int
    square: int


class RentDueEvent(TypedDict):
    type: Literal["rent_due"]
    owner: int
    payer: int
    square: int
    amount: int


class RentLapsedEvent(TypedDict):
    type: Literal["rent_lapsed"]
    owner: int
    payer: int
    square: int


class DebtOwedEvent(TypedDict):
    type: Literal["debt_owed"]
    debtor: int
    creditor: Party
    amount: int


class TradeProposedEvent(TypedDict):
    type: Literal["trade_proposed"]
    offer: Offer


TradeAcceptedEvent = TypedDict(
    "TradeAcceptedEvent",
    {"type": Literal["trade_accepted"], "from": int, "to": int, "give": TradeBundle, "get": TradeBundle},
)
TradeRejectedEvent = TypedDict("TradeRejectedEvent", {"type": Literal["trade_rejected"], "from": int, "to": int})
TradeCancelledEvent = TypedDict("TradeCancelledEvent", {"type": Literal["trade_cancelled"], "from": int})
PropertyTransferredEvent = TypedDict(
    "PropertyTransferredEvent",
    {"type": Literal["property_transferred"], "from": int | None, "to": int | None, "square": int},
)
"""A deed changed hands; None is the bank."""


class BankruptEvent(TypedDict):
    type: Literal["bankrupt"]
    player: int
    creditor: Party


class ResignedEvent(TypedDict):
    type: Literal["resigned"]
    player: int


class TurnEndedEvent(TypedDict):
    type: Literal["turn_ended"]
    player: int


class TurnStartedEvent(TypedDict):
    type: Literal["turn_started"]
    player: int
    round: int


class GameOverEvent(TypedDict):
    type: Literal["game_over"]
    winner: int


Event: TypeAlias = (
    PaymentEvent
    | OrderRollEvent
    | FirstPlayerEvent
    | DeedDealtEvent
    | RolledEvent
    | MovedEvent
    | PassedGoEvent
    | CardDrawnEvent
    | WentToJailEvent
    | LeftJailEvent
    | StayedInJailEvent
    | BoughtEvent
    | DeclinedEvent
    | AuctionStartedEvent
    | ShortageAuctionStartedEvent
    | BidEvent
    | PassedAuctionEvent
    | AuctionWonEvent
    | ShortageAuctionWonEvent
    | AuctionUnsoldEvent
    | BuiltEvent
    | SoldBuildingEvent
    | MortgagedEvent
    | UnmortgagedEvent
    | KeptMortgagedEvent
    | RentDueEvent
    | RentLapsedEvent
    | DebtOwedEvent
    | TradeProposedEvent
    | TradeAcceptedEvent
    | TradeRejectedEvent
    | TradeCancelledEvent
    | PropertyTransferredEvent
    | BankruptEvent
    | ResignedEvent
    | TurnEndedEvent
    | TurnStartedEvent
    | GameOverEvent
)
"""One thing that happened (``Game.apply`` and ``resolve_chance`` return them in order)."""


# The state as the accessors of ``Game`` return it. -------------------------------------------

Deck: TypeAlias = Literal["chance", "community_chest"]
"""A card deck."""


class Auction(TypedDict):
    """``Game.auction``: the running auction."""

    lot: Literal["property", "house", "hotel"]
    """A title deed, or one of the bank's last houses or hotels (building shortage)."""
    square: int
    """The deed auctioned, or the street the building was asked for."""
    high_bid: int
    high_bidder: int | None
    """None before the first bid."""
    bidders: list[int]
    """Seats still in."""


class Debt(TypedDict):
    """``Game.debts``: money a seat must pay but could not when it fell due."""

    debtor: int
    creditor: Party
    amount: int
    reason: PaymentReason


class RentClaim(TypedDict):
    """``Game.claims``: rent its owner may still claim (``claim_rent``)."""

    owner: int
    payer: int
    square: int
    amount: int
    lapses_at_turn: int
    """The claim lapses when the player of this turn rolls."""


class PlayerInfo(TypedDict):
    """``Game.player(seat)``."""

    seat: int
    name: str
    cash: int
    position: int
    in_jail: bool
    jail_attempts: int
    """Failed rolls for doubles during this stay in jail."""
    jail_cards: list[JailCard]
    bankrupt: bool
    net_worth: int
    properties: list[int]
    """Squares of the seat's deeds, in board order."""


class _SquareBase(TypedDict):
    square: int
    name: str


class PlainSquare(_SquareBase):
    """A square that is neither a deed nor a tax."""

    kind: Literal["go", "chance", "community_chest", "jail", "free_parking", "go_to_jail"]


class TaxSquare(_SquareBase):
    kind: Literal["tax"]
    amount: int


class _DeedBase(_SquareBase):
    price: int
    owner: int | None
    """None while the bank has the deed."""
    mortgaged: bool
    level: int
    """Buildings: 0..4 houses, 5 = hotel."""
    house_cost: int
    rents: list[int]
    """A street's printed table: unbuilt, 1-4 houses, hotel."""
    mortgage_value: int
    rent: int
    """What a landing costs now: 0 for the bank's deed or a mortgaged one; a utility's dice factor."""


class StreetSquare(_DeedBase):
    kind: Literal["street"]
    group: int
    """Colour group 0..7."""


class RailwaySquare(_DeedBase):
    kind: Literal["railway"]
    rent_table: list[int]
    """The rent for 1-4 railways owned."""


class UtilitySquare(_DeedBase):
    kind: Literal["utility"]
    rent_table: list[int]
    """The dice factor for 1-2 utilities owned."""


DeedSquare: TypeAlias = StreetSquare | RailwaySquare | UtilitySquare
"""A square with a title deed: its price, owner, buildings and mortgage."""
SquareInfo: TypeAlias = PlainSquare | TaxSquare | DeedSquare
"""``Game.square(square)``, keyed by ``kind``: deeds (street, railway, utility) have their price,
owner, buildings and mortgage; a tax its amount."""
DEED_KINDS: frozenset[str] = frozenset({"street", "railway", "utility"})


def deed(info: SquareInfo) -> DeedSquare:
    """``info`` as the deed it is (``deed(game.square(39))["price"]``), for code that knows the
    square has a deed; ``ValueError`` if it has none."""
    if info["kind"] not in DEED_KINDS:
        raise ValueError(f"{info['name']} (square {info['square']}) has no title deed")
    return cast(DeedSquare, info)


class _Dealing(TypedDict):
    seat: int
    dealt: int


class DealingPhase(TypedDict):
    """Dealing ``starting_deeds`` deeds: ``seat`` gets the next one."""

    dealing: _Dealing


class _Ordering(TypedDict):
    contenders: int
    """Bit mask of the seats rolling for who starts."""
    next: int
    best: int
    leaders: int
    """Bit mask of the seats that rolled ``best``."""


class OrderingPhase(TypedDict):
    """Rolling for who starts."""

    ordering: _Ordering


class _BuyDecision(TypedDict):
    property: int
    """Property index 0..27 in board order."""


class BuyDecisionPhase(TypedDict):
    """The turn player landed on an unowned deed: buy or decline."""

    buy_decision: _BuyDecision


Phase: TypeAlias = Literal["await_roll", "after_roll", "game_over"] | DealingPhase | OrderingPhase | BuyDecisionPhase
"""``Game.phase``: where the turn is."""


class _UtilityDice(TypedDict):
    property: int


class UtilityDicePending(TypedDict):
    """Dice for the rent of a utility reached by a card."""

    utility_dice: _UtilityDice


class CardPending(TypedDict):
    card: Deck


PendingChance: TypeAlias = Literal["move_dice", "order_dice", "deed"] | UtilityDicePending | CardPending
"""``Game.pending_chance`` (when not None): the chance event the game waits for."""


# Rule sets, snapshots and simulation runs: the plain dicts of ``Rules.to_dict``,
# ``Game.snapshot`` and ``_core.simulate``. -----------------------------------------------------

RentClaimRule: TypeAlias = Literal["automatic", "before_next_roll", "before_second_next_roll"]
"""When rent is paid: on landing, or claimed by the owner before the next (or second next) roll."""


class RulesDict(TypedDict):
    """``Rules.to_dict()``: every rule option and its value; ``Rules(**d)`` gives the same rules.
    A snapshot's ``state["rules"]`` is the same dict. Amounts are in currency units."""

    starting_cash: int
    go_salary: int
    """Salary for passing or landing on GO."""
    double_go_on_landing: bool
    """Stopping exactly on GO by the dice pays twice the salary."""
    auctions: bool
    """A declined deed is auctioned; off: it stays with the bank."""
    opening_bid: int
    """Lowest first bid in an auction."""
    free_parking_jackpot: bool
    """Taxes and fines pile up; landing on Free Parking takes them."""
    jailed_owner_collects: bool
    even_building: bool
    """Houses within a colour group differ by at most one."""
    limited_buildings: bool
    """The bank has only ``houses`` and ``hotels`` pieces; off: unlimited."""
    houses: int
    hotels: int
    houses_per_hotel: int
    """Houses needed on every street of a group before a hotel."""
    jail_fine: int
    round_limit: int
    """After this many complete rounds the richest player wins; 0: no limit."""
    rent_claim: RentClaimRule
    starting_deeds: int
    """Deeds dealt at random to each seat at the start, paid to the bank."""
    end_after_bankruptcies: int
    """The game ends when this many seats are bankrupt (0: play to the last one standing)."""
    timed: bool
    """The game may be ended by ``end_game`` (a time limit agreed at the start)."""
    reshuffle_decks: bool
    """Each pass through a deck is a fresh shuffle; off: a card drawn goes under the deck."""
    max_players: int
    build_in_own_turn: bool
    """Building, selling and mortgaging only in one's own turn (a debtor still raises money)."""
    shortage_opening_bid: int
    """The premium the asker leads at in a building-shortage auction."""


class RulesOptions(TypedDict, total=False):
    """The keyword arguments of ``Rules(**options)`` and ``Rules.preset(name, **options)``: any of
    ``RulesDict``'s options (same meaning and type; ``tests/test_types_dicts.py`` keeps the two
    lists equal), plus ``free_building`` (True: no even building, unlimited stock)."""

    starting_cash: int
    go_salary: int
    double_go_on_landing: bool
    auctions: bool
    opening_bid: int
    free_parking_jackpot: bool
    jailed_owner_collects: bool
    even_building: bool
    limited_buildings: bool
    houses: int
    hotels: int
    houses_per_hotel: int
    jail_fine: int
    round_limit: int
    rent_claim: RentClaimRule
    starting_deeds: int
    end_after_bankruptcies: int
    timed: bool
    reshuffle_decks: bool
    max_players: int
    build_in_own_turn: bool
    shortage_opening_bid: int
    free_building: bool


class SnapshotPlayer(TypedDict):
    """One seat of a snapshot (every state has eight; the seats past ``num_players`` are zeros)."""

    cash: int
    position: int
    in_jail: bool
    jail_attempts: int
    """Failed rolls for doubles during this stay in jail."""
    jail_cards: int
    """Bit 0: holds the Chance "get out of jail" card, bit 1: the Community Chest one."""
    bankrupt: bool


class SnapshotBundle(TypedDict):
    """One side of a trade offer in a snapshot, as bit masks (``Offer`` has lists of squares)."""

    properties: int
    """Bit mask over property indices 0..27 (board order)."""
    cash: int
    jail_cards: int
    """Bit 0: the Chance card, bit 1: the Community Chest one."""


SnapshotOffer = TypedDict("SnapshotOffer", {"from": int, "to": int, "give": SnapshotBundle, "get": SnapshotBundle})
"""An open trade offer in a snapshot: ``from`` gives ``give`` and asks ``get`` of ``to``."""


class DeckState(TypedDict):
    """A card deck in a snapshot (bit ``i``: card ``i`` of the edition's table)."""

    drawn: int
    """Cards drawn (this cycle, or ever when cards go under the deck) or held by a player."""
    held: int
    """Cards held by a player."""
    queue: int
    """The seen cards under the unseen ones, 4 bits each, the next to come up in the low bits."""
    queued: int
    """How many cards ``queue`` holds (0..16)."""


class PropertyLot(TypedDict):
    """A title deed auctioned, by property index 0..27."""

    property: int


class _BuildingLot(TypedDict):
    hotel: bool
    requester: int
    """The seat that asked for the piece (it leads the bidding)."""
    square: int
    """The street it asked to build on."""


class BuildingLot(TypedDict):
    """One of the bank's last houses or hotels, sold in a building shortage."""

    building: _BuildingLot


class SnapshotAuction(TypedDict):
    """The running auction in a snapshot (``Game.auction`` gives it readably)."""

    lot: PropertyLot | BuildingLot
    high_bid: int
    high_bidder: int
    """255 before the first bid."""
    bidders: int
    """Bit mask of the seats still in."""
    first: int
    """The seat "whose move it is" goes round from."""
    after_landing: bool
    """The auction of a declined purchase: the landing player's move goes on after it."""


class Placement(TypedDict):
    """A house or hotel won in a shortage auction, which its winner must now place."""

    player: int
    hotel: bool


class SnapshotState(TypedDict):
    """The engine's state, field for field: seats, deeds (by property index 0..27 in board order;
    255 is "nobody"), bank, decks, turn and what the game waits for."""

    board: Literal["classic", "paris"]
    rules: RulesDict
    num_players: int
    players: tuple[SnapshotPlayer, ...]
    """Eight seats; those past ``num_players`` are unused."""
    owner: tuple[int, ...]
    """The owner seat of each of the 28 deeds, 255 for the bank."""
    level: tuple[int, ...]
    """Buildings on each of the 28 deeds: 0..4 houses, 5 = hotel."""
    mortgaged: int
    """Bit mask of the mortgaged deeds."""
    fee_due: int
    """Bit mask of mortgaged deeds just received, whose owner must lift or keep the mortgage."""
    houses_left: int
    hotels_left: int
    decks: tuple[DeckState, ...]
    """Chance, then Community Chest."""
    jackpot: int
    turn_player: int
    starter: int
    """The seat that started (a round ends when play comes back to it)."""
    doubles: int
    """Doubles rolled in a row this turn."""
    last_dice: tuple[int, int]
    round: int
    turn: int
    phase: Phase
    pending: PendingChance | None
    auction: SnapshotAuction | None
    auction_queue: int
    """Bit mask of the deeds taken from a bankrupt seat by the bank, auctioned one after another."""
    placing: Placement | None
    debts: list[Debt]
    claims: list[RentClaim]
    offers: list[SnapshotOffer]
    bankruptcies: int
    winner: int
    """The winning seat, 255 while the game goes on."""
    step: int
    """Inputs applied so far."""


class Snapshot(TypedDict):
    """``Game.snapshot()``: the complete state as plain data (JSON- and msgpack-able), which
    ``Game.from_snapshot`` restores. The chance stream is not in it (see ``Game.chance_seed``)."""

    format: Literal[1]
    """The layout's version; ``from_snapshot`` refuses another."""
    names: list[str]
    """Seat names."""
    state: SnapshotState


class RawSimulation(TypedDict):
    """``_core.simulate(...)``: plain lists, one entry per game in game order (``lanopoly.simulate``
    turns them into the numpy arrays of a ``SimulationResult``)."""

    winners: list[int]
    """The winning seat, -1 for a game cut at ``max_inputs``."""
    rounds: list[int]
    turns: list[int]
    actions: list[int]
    """Moves made (chance outcomes not counted)."""
    bankruptcies: list[int]
    truncated: list[bool]
    net_worths: list[list[int]]
    """Final net worth of each seat."""
    landings: list[int]
    """41 counts over all the games: squares 0..39 after every move roll, then "in jail"."""


def _by_type(union: Any) -> dict[str, type]:
    """The classes of a union by their ``type`` literal."""
    return {get_args(get_type_hints(cls)["type"])[0]: cls for cls in get_args(union)}


MOVE_TYPES: dict[str, type] = _by_type(Move)
"""The class of each move ``type`` (``MOVE_TYPES["build"] is BuildAction``)."""
OUTCOME_TYPES: dict[str, type] = _by_type(ChanceOutcome)
"""The class of each chance outcome ``type``."""
EVENT_TYPES: dict[str, type] = _by_type(Event)
"""The class of each event ``type``."""

__all__ = [
    "DEED_KINDS",
    "EVENT_TYPES",
    "MOVE_TYPES",
    "OUTCOME_TYPES",
    "AcceptTradeAction",
    "Action",
    "Auction",
    "AuctionStartedEvent",
    "AuctionUnsoldEvent",
    "AuctionWonEvent",
    "BankruptEvent",
    "BidAction",
    "BidEvent",
    "BoughtEvent",
    "BuildAction",
    "BuildingLot",
    "BuiltEvent",
    "BuyAction",
    "BuyDecisionPhase",
    "CancelTradeAction",
    "CardDrawnEvent",
    "CardOutcome",
    "CardPending",
    "ChanceOutcome",
    "ClaimRentAction",
    "DealingPhase",
    "Debt",
    "DebtOwedEvent",
    "Deck",
    "DeckState",
    "DeclareBankruptcyAction",
    "DeclineAction",
    "DeclinedEvent",
    "DeedDealtEvent",
    "DeedOutcome",
    "DeedSquare",
    "DiceOutcome",
    "EndGameAction",
    "EndTurnAction",
    "Event",
    "FirstPlayerEvent",
    "GameOverEvent",
    "JailCard",
    "JailExit",
    "KeepMortgagedAction",
    "KeptMortgagedEvent",
    "LeftJailEvent",
    "MortgageAction",
    "MortgagedEvent",
    "Move",
    "MovedEvent",
    "Offer",
    "OrderRollEvent",
    "OrderingPhase",
    "Party",
    "PassAction",
    "PassedAuctionEvent",
    "PassedGoEvent",
    "PayDebtAction",
    "PayJailFineAction",
    "PaymentEvent",
    "PaymentReason",
    "PendingChance",
    "Phase",
    "Placement",
    "PlainSquare",
    "PlayerInfo",
    "PlayerParty",
    "PropertyLot",
    "PropertyTransferredEvent",
    "ProposeTradeAction",
    "RailwaySquare",
    "RawSimulation",
    "RejectTradeAction",
    "RentClaim",
    "RentClaimRule",
    "RentDueEvent",
    "RentLapsedEvent",
    "ResignAction",
    "ResignedEvent",
    "RollAction",
    "RolledEvent",
    "RulesDict",
    "RulesOptions",
    "SellAction",
    "SellDownAction",
    "ShortageAuctionStartedEvent",
    "ShortageAuctionWonEvent",
    "Snapshot",
    "SnapshotAuction",
    "SnapshotBundle",
    "SnapshotOffer",
    "SnapshotPlayer",
    "SnapshotState",
    "SoldBuildingEvent",
    "SquareInfo",
    "StayedInJailEvent",
    "StreetSquare",
    "TaxSquare",
    "TradeAcceptedEvent",
    "TradeBundle",
    "TradeCancelledEvent",
    "TradeProposedEvent",
    "TradeRejectedEvent",
    "TurnEndedEvent",
    "TurnStartedEvent",
    "UnmortgageAction",
    "UnmortgagedEvent",
    "UseJailCardAction",
    "UtilityDicePending",
    "UtilitySquare",
    "WentToJailEvent",
    "deed",
]
