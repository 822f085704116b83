"""Type stubs for ``lanopoly._core``, the Rust rules engine (PyO3).

Moves are plain dicts with a ``type`` and the acting ``player`` seat, for example
``{"type": "build", "player": 0, "square": 39}``. Chance outcomes are dicts too:
``{"type": "dice", "dice": [3, 4]}``, ``{"type": "card", "card": 7}`` (index in the
edition's deck table) or ``{"type": "deed", "square": 39}``. Squares are 0..39 on every board.

Move types and their fields:

- ``roll``, ``pay_jail_fine``, ``use_jail_card``, ``buy``, ``decline``, ``pass``,
  ``cancel_trade``, ``pay_debt``, ``declare_bankruptcy``, ``end_turn``, ``end_game``,
  ``resign``: none (``resign`` leaves the game at once, the bank taking everything; it is legal
  at any time but a chance event and never listed by ``legal_actions``)
- ``bid``: ``amount``
- ``build``, ``sell``, ``mortgage``, ``unmortgage``, ``keep_mortgaged``, ``claim_rent``: ``square``
- ``sell_down``: ``group`` (0..7) and ``levels`` (one per street of the group, 5 = hotel)
- ``propose_trade``: ``to``, ``give`` and ``get``, each ``{"properties": [squares],
  "cash": n, "jail_cards": ["chance" | "community_chest"]}`` (keys optional)
- ``accept_trade``, ``reject_trade``: ``from`` (the proposer's seat)

Each move, outcome and event has a ``TypedDict`` in ``lanopoly.types`` (``Move``,
``ChanceOutcome``, ``Action`` = either, ``Event``), which these signatures use.

Errors say by their type what went wrong, and leave every object as it was:

- ``IllegalAction`` (a ``ValueError``): a well-formed move or chance outcome that the rules refuse
  in this state (not your turn, not enough cash, dice outside 1..6, a card the deck lacks), with
  the reason; also a chance draw when no chance event is pending, and a ``VecGame`` action index
  that is masked out in its game.
- ``TypeError``: an argument of the wrong Python type: a move that is not a dict, a field that is
  not a number (``"square": "39"``, ``1.5``, ``None``), a ``"type"`` that is not a string, a rule
  option of the wrong kind (``Rules(auctions=1)``), a seed that is not an integer.
- ``ValueError``: an argument of the right type with a bad value: a missing field, an unknown
  move type, board, preset, rule option or bot, a number out of its field's range (a negative
  amount, a square outside 0..39, a colour group outside 0..7, a bundle square that is no deed),
  a seat the game does not have (as a query's argument or in a move's ``player``, ``to`` or
  ``from``), an action index outside the action space.
- ``DecodeError`` (a ``ValueError``): bytes, a snapshot or a pickle that do not decode to a valid
  state (``Game.from_bytes``, ``Game.from_snapshot``, ``VecGame.from_bytes``, unpickling).

``except ValueError`` catches all but ``TypeError``.
"""

from collections.abc import Mapping, Sequence
from typing import Any, Final, Unpack, final, overload

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from lanopoly.types import (
    Action,
    Auction,
    ChanceOutcome,
    Debt,
    Event,
    Move,
    Offer,
    PendingChance,
    Phase,
    PlayerInfo,
    RawSimulation,
    RentClaim,
    RulesDict,
    RulesOptions,
    Snapshot,
    SquareInfo,
)

__all__ = [
    "CHANCE",
    "STATE_FORMAT",
    "Bot",
    "DecodeError",
    "Ed25519Key",
    "Game",
    "IllegalAction",
    "Rules",
    "VecGame",
    "boards",
    "bot_parameters",
    "bots",
    "ed25519_verify",
    "simulate",
    "simulation_seeds",
    "square_names",
]

CHANCE: Final[int]
"""``current_player`` at a chance node (-1)."""
STATE_FORMAT: Final[str]
"""Tag of the canonical state encoding (``to_bytes``), "lanopoly/s2"; changes when the encoding
does. A state whose rules give the options added with s2 (``reshuffle_decks``, ``max_players``,
``build_in_own_turn``, ``shortage_opening_bid``) their old values (``Rules.recorded({})``) is
still written in "lanopoly/s1", byte for byte as before, so recorded games keep their hashes."""

class IllegalAction(ValueError):
    """A move or chance outcome the rules do not allow now; the message says why and the game is
    unchanged. A malformed move (wrong type, missing field, value out of range, no such seat) is
    a plain ``TypeError`` or ``ValueError`` instead (see the module docstring).

    ``code`` is the English template the message was made from (``"you do not own {square}"``),
    a stable key for translations (None for a free text, such as a malformed state), and
    ``fields`` its values (``{"square": "Boardwalk"}``; seats as numbers). A refusal that wraps
    another (``{cause}``) has it as ``__cause__``. See ``lanopoly.refusals``."""

    code: str | None
    fields: Mapping[str, str]

class DecodeError(ValueError):
    """Bytes, a snapshot or a pickle that do not decode to a valid state (corrupt, truncated, of
    another format, or inconsistent); the message says why and nothing is created."""

@final
class Rules:
    """Rule options. ``Rules()`` is the official game (the French C1009 book); keyword arguments
    override options:

    ``starting_cash`` (1500), ``go_salary`` (200), ``double_go_on_landing`` (False: 400 for
    stopping on GO by the dice), ``auctions`` (True), ``opening_bid`` (1),
    ``free_parking_jackpot`` (False), ``jailed_owner_collects`` (True), ``even_building`` (True),
    ``limited_buildings`` (True), ``houses`` (32), ``hotels`` (12), ``houses_per_hotel`` (4),
    ``jail_fine`` (50), ``round_limit`` (0 = none), ``rent_claim`` ("before_second_next_roll";
    "before_next_roll", or "automatic": collected on landing), ``starting_deeds`` (0),
    ``end_after_bankruptcies`` (0), ``timed`` (False), ``reshuffle_decks`` (False: a card drawn
    goes under the deck and the order repeats), ``max_players`` (8), ``build_in_own_turn``
    (False), ``shortage_opening_bid`` (0), and ``free_building=True`` (no even building,
    unlimited stock). Options are also readable as attributes (``rules.opening_bid``).
    """

    def __new__(cls, **options: Unpack[RulesOptions]) -> Rules: ...
    @staticmethod
    def preset(name: str, **options: Unpack[RulesOptions]) -> Rules:
        """A named preset (see ``presets()``), with options overridden."""
    @staticmethod
    def recorded(options: Mapping[str, Any]) -> Rules:
        """The rules a log or saved game recorded (``to_dict()`` then): an option it lacks takes
        the value that plays as before the option existed, so the game replays exactly."""
    @staticmethod
    def presets() -> list[str]:
        """The preset names: official, paris-app, it, no, paris-quick, paris-house, speed, timed."""
    def to_dict(self) -> RulesDict:
        """Every option and its value (a new dict); ``Rules(**rules.to_dict())`` gives the same
        rules."""
    def __getnewargs_ex__(self) -> tuple[tuple[()], RulesDict]:
        """Pickling and copying: ``Rules(**rules.to_dict())``."""
    def __getattr__(self, name: str) -> Any: ...
    def __eq__(self, value: object, /) -> bool: ...

@disjoint_base
class Game:
    """One game: the complete deterministic state, seat names, and a seeded chance resolver.

    A new game starts at a chance node (rolling for who starts, after dealing deeds in the
    speed and timed variants). Chance outcomes are applied like moves; ``resolve_chance``
    draws them with the game's seeded resolver, which is not part of the state: nothing in the
    state predicts the next roll, nor a card not seen yet. Cards drawn go under their deck, so
    once every card of a deck has been seen its order repeats and the next one is known, as at a
    real table (unless ``reshuffle_decks``). ``snapshot``, ``to_bytes`` and ``state_hash`` leave
    the resolver out; ``chance_seed`` says where it is, and pickles and copies keep it, so a
    pickled game resolves the same chance as the original.
    """

    def __new__(
        cls,
        players: int | list[str],
        board: str = "classic",
        rules: Rules | None = None,
        seed: int | None = None,
    ) -> Game:
        """``players`` is a count (2-8, or up to the rules' ``max_players``; seats are named after
        the tokens) or a list of names.
        ``seed`` seeds the resolver for ``resolve_chance``/``sample_chance`` (default random)."""
    @property
    def names(self) -> list[str]:
        """Seat names."""
    @property
    def num_players(self) -> int: ...
    @property
    def board(self) -> str:
        """Board name: "classic" or "paris"."""
    @property
    def rules(self) -> Rules: ...
    @property
    def current_player(self) -> int | None:
        """The seat the game waits for, ``CHANCE`` at a chance node, None when the game is over."""
    @property
    def is_chance_node(self) -> bool: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def winner(self) -> int | None:
        """The winning seat once the game is over."""
    @property
    def turn_player(self) -> int:
        """The seat whose turn it is (others may still act out of turn)."""
    @property
    def round(self) -> int:
        """Completed rounds."""
    @property
    def turn(self) -> int:
        """Turns started since the beginning (0 for the first turn)."""
    @property
    def pending_chance(self) -> PendingChance | None:
        """The chance event the game waits for: None, "move_dice", "order_dice", "deed",
        ``{"utility_dice": {"property": i}}`` or ``{"card": "chance" | "community_chest"}``."""
    @property
    def step(self) -> int:
        """Inputs (moves and chance outcomes) applied so far."""
    @property
    def phase(self) -> Phase:
        """Where the turn is: "await_roll", "after_roll", "game_over", or a dict such as
        ``{"buy_decision": {"property": 27}}`` (property indices 0..27 in board order), or while
        the game starts ``{"dealing": ...}`` / ``{"ordering": ...}`` (``lanopoly.types.Phase``)."""
    @property
    def buy_square(self) -> int | None:
        """The square of the deed the turn player may buy now, if it is deciding."""
    @property
    def auction(self) -> Auction | None:
        """The running auction: ``lot`` ("property", "house", "hotel"), ``square``, ``high_bid``,
        ``high_bidder`` (None before a bid) and ``bidders`` (seats still in)."""
    @property
    def offers(self) -> list[Offer]:
        """Open trade offers: ``from``, ``to``, ``give``, ``get``."""
    @property
    def debts(self) -> list[Debt]:
        """Unpaid debts, oldest first: ``debtor``, ``creditor``, ``amount``, ``reason``. A game
        that ended with debts open keeps them: they count in its net worths."""
    @property
    def claims(self) -> list[RentClaim]:
        """Rent its owner may still claim (``claim_rent``), oldest first: ``owner``, ``payer``,
        ``square``, ``amount``, ``lapses_at_turn`` (it lapses when that turn's player rolls)."""
    @property
    def currency(self) -> str: ...
    @property
    def houses_left(self) -> int:
        """Houses in the bank."""
    @property
    def hotels_left(self) -> int:
        """Hotels in the bank."""
    @property
    def jackpot(self) -> int:
        """The Free Parking jackpot (option)."""
    def chance_outcomes(self) -> list[tuple[ChanceOutcome, float]]:
        """Every outcome of the pending chance event with its exact probability. A card drawn
        from a deck every card of which has been seen is certain: one outcome, probability 1
        (cards go under the deck; see ``Rules`` ``reshuffle_decks``)."""
    def outcome_from_bytes(self, data: bytes) -> ChanceOutcome:
        """The outcome these random bytes select for the pending chance event, with exactly the
        right odds (for randomness produced jointly by networked peers)."""
    def sample_chance(self) -> ChanceOutcome:
        """Draw an outcome of the pending chance event with the seeded resolver (not applied)."""
    def resolve_chance(self) -> tuple[ChanceOutcome, list[Event]]:
        """Draw and apply one chance outcome; returns it and the events it caused."""
    @overload
    def legal_actions(self, player: int) -> list[Move]: ...
    @overload
    def legal_actions(self, player: None = None) -> list[Action]:
        """Legal moves of a seat (default: the seat the game waits for; at a chance node, the
        possible outcomes: pass the seat to get ``Move`` dicts only). Every seat may have moves
        out of turn (building, trades, bids). Bids are listed at their lowest amount (see
        ``bid_range``); trade proposals and partial sell-downs are open-ended and not listed."""
    def action_mask(self, seat: int) -> npt.NDArray[np.bool_]:
        """Legality of each index of the integer action space (``lanopoly.rl``) for a seat;
        trade composition (211..255) is masked out: it needs a VecGame."""
    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """The float32 observation of ``lanopoly.rl`` from a seat's point of view, with no trade
        draft open: a ``Game`` keeps no drafts, so its "draft" part is a closed draft's, where a
        ``VecGame`` row shows the seat's draft (the rows differ only there)."""
    def action_from_index(self, seat: int, index: int) -> Move:
        """The move an integer action means for a seat now: ``IllegalAction`` if it means none
        now, ``ValueError`` for an index outside the action space or a trade-draft index."""
    def bid_range(self, player: int) -> tuple[int, int] | None:
        """Lowest and highest bid the seat may make in the running auction."""
    def apply(self, action: Action | Mapping[str, Any]) -> list[Event]:
        """Apply a move or chance outcome; returns the events it caused. Raises
        ``IllegalAction`` with the reason, leaving the game unchanged, if it is not allowed now;
        ``TypeError`` or ``ValueError`` if the dict is not a move or outcome of this game."""
    def check(self, action: Move | Mapping[str, Any]) -> None:
        """Raise ``IllegalAction`` if the move is not allowed now (``TypeError`` or ``ValueError``
        as ``apply``); change nothing. Moves only: a chance outcome is refused as a move without
        ``player`` (``ValueError``)."""
    def state_hash(self) -> bytes:
        """SHA-256 (32 bytes) of the canonical encoding of the complete state."""
    def to_bytes(self) -> bytes:
        """The canonical encoding of the state (names and resolver not included)."""
    @classmethod
    def from_bytes(cls, data: bytes, names: list[str] | None = None, seed: int | None = None) -> Game:
        """Restore a state from ``to_bytes``; malformed or inconsistent bytes raise ``DecodeError``."""
    def snapshot(self) -> Snapshot:
        """The complete state as a plain dict: ``{"format": 1, "names": [...], "state": {...}}``;
        ``state`` mirrors the engine's ``Game`` struct field for field (JSON- and msgpack-able;
        its fixed-size arrays are tuples). ``lanopoly.types.Snapshot`` says what each field is."""
    @classmethod
    def from_snapshot(cls, snapshot: Snapshot | dict[str, Any], seed: int | None = None) -> Game:
        """Restore a game from ``snapshot()``; an invalid one raises ``DecodeError`` (a non-dict,
        ``TypeError``)."""
    def clone(self) -> Game:
        """An independent copy (with a copy of the chance stream)."""
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, memo: Any) -> Game: ...
    @property
    def chance_seed(self) -> int:
        """The seed that continues this game's chance stream from where it is now:
        ``Game.from_bytes(g.to_bytes(), seed=g.chance_seed)`` draws what ``g`` would draw next."""
    def __reduce__(self) -> tuple[Any, tuple[bytes, list[str], int]]:
        """Pickling: ``Game.from_bytes(to_bytes(), names, chance_seed)``."""
    def net_worth(self, seat: int) -> int:
        """Cash + printed price of unmortgaged deeds + mortgage value of mortgaged ones +
        buildings at cost, less the debts the seat owes and plus those owed to it (never below 0)."""
    def player(self, seat: int) -> PlayerInfo:
        """A seat: ``seat``, ``name``, ``cash``, ``position``, ``in_jail``, ``jail_attempts``,
        ``jail_cards``, ``bankrupt``, ``net_worth``, ``properties`` (squares)."""
    def square(self, square: int) -> SquareInfo:
        """A square: ``square``, ``name``, ``kind`` and, for deeds (``kind`` "street", "railway",
        "utility"), ``price``, ``owner``, ``level`` (5 = hotel), ``mortgaged``, ``house_cost``,
        ``rents`` (a street's printed table: unbuilt, 1-4 houses, hotel), ``mortgage_value``,
        ``rent`` (what a landing costs now: 0 for the bank's deed or a mortgaged one; for a
        utility, the factor of the dice), ``group`` for streets and ``rent_table`` for railways
        (the rent for 1-4 railways owned) and utilities (the dice factor for 1-2 utilities
        owned); ``amount`` for a tax."""
    def card_text(self, deck: str, card: int) -> str:
        """The printed text of a card ("chance" or "community_chest") of this edition."""

@final
class Bot:
    """A built-in bot as a Python policy, by name (``bots()``: "random", "heuristic", "search") or
    by spec with parameters (``"heuristic(jail=stay)"``, see ``bot_parameters``); a bad spec raises
    ``ValueError`` saying why."""

    def __new__(cls, name: str = "heuristic", seed: int = 0) -> Bot: ...
    @property
    def name(self) -> str: ...
    def choose(self, game: Game, seat: int, legal: Sequence[Action | Mapping[str, Any]] | None = None) -> Move:
        """The bot's move for ``seat``, which must be the seat the game waits for."""
    def interject(
        self, game: Game, seat: int, legal: Sequence[Action | Mapping[str, Any]] | None = None
    ) -> Move | None:
        """The bot's move out of turn for ``seat`` (None if it stays quiet, or if the game waits
        for ``seat`` or for chance): the built-in bots claim the rent owed to them and answer the
        trade offers made to them, as they would on their turn."""
    def __getnewargs__(self) -> tuple[str, int]: ...
    def __getstate__(self) -> tuple[bytes, int]:
        """Pickling: the bot's memory and random stream, so that it goes on choosing as before."""
    def __setstate__(self, state: tuple[bytes, int]) -> None: ...

@final
class VecGame:
    """Many games stepped at once for learning agents; see ``lanopoly.rl``.

    Integer actions in (one per game, for the seat each game waits for); float32 observations
    from that seat's point of view, boolean legality masks, the seat waited for, rewards (+1 to
    the winner, -1/(players-1) to the others, when a game ends), ``terminated`` and
    ``truncated`` out. Chance is sampled inside with each game's seeded stream. With ``learner``
    set, the bots of ``opponents`` (names or specs) play the other seats inside the step, and
    the learner's bankruptcy ends its game (``terminated``, its -1/(players-1) alone: the others'
    game is not played out). Rent owed to a seat the game does not wait for is claimed for it at
    once (rules where rent must be claimed: a claim is never a decision worth learning). A game
    that reaches ``max_inputs`` inputs (moves and chance outcomes, as in ``simulate``) is cut
    (``truncated``), so a step always returns; Ctrl-C interrupts a long step
    (``KeyboardInterrupt``; the games are then part-way: reset them).
    """

    observation_size: Final[int]
    action_size: Final[int]
    action_space_version: Final[int]
    observation_layout: Final[list[tuple[str, int, int]]]
    action_names: Final[list[str]]
    """What each action index means: the move type, then what it applies to after a colon (a
    board square, a bid as a fraction of the lot's value, a colour group, a seat relative to the
    actor such as ``+1``, a sum, a deck): ``"build:39"``, ``"bid:1/2_value"``,
    ``"accept_trade:+1"``, ``"draft_give_cash:50"``."""
    autoreset: bool
    """Replace a finished game in the same step (default) or keep it until ``reset``."""

    def __new__(
        cls,
        n: int,
        players: int = 4,
        board: str = "classic",
        rules: Rules | None = None,
        seed: int = 0,
        max_steps: int = 20_000,
        learner: int | None = None,
        opponents: list[str] | None = None,
        threads: int = 1,
        max_inputs: int = 1_000_000,
    ) -> VecGame:
        """``threads``: step the games on that many threads (the GIL released; the caller's
        thread and ``threads - 1`` persistent workers, joined when the VecGame is freed), in
        chunks of 8 games that a thread with nothing left to do takes over from the others; the
        outputs are the same whatever the count. With more than one thread, step with ``out=``:
        into six new arrays per step a second thread gained nothing (``benches/README.md``)."""
    @property
    def num_envs(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def max_inputs(self) -> int:
        """Inputs after which a game is cut (reported as truncated)."""
    @property
    def num_players(self) -> int: ...
    def reset(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.int8]]:
        """Start every game afresh: (obs, mask, current player). Also makes a VecGame whose step
        failed with ``RuntimeError`` usable again."""
    def reset_games(
        self,
        which: npt.NDArray[np.bool_],
        out: tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.int8]] | None = None,
    ) -> None:
        """Start the games where ``which`` is True afresh (their next episode). With ``out``,
        three arrays (obs, mask, current player) shaped as ``observe`` returns them, write the new
        games' rows there (the other rows are left as they are)."""
    def observe(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.int8]]:
        """The current (obs, mask, current player) without stepping."""
    def view(self, i: int, seat: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Observation and mask of game ``i`` from any seat's point of view."""
    def step(
        self,
        actions: npt.NDArray[np.integer[Any]] | Sequence[int],
        out: tuple[
            npt.NDArray[np.float32],
            npt.NDArray[np.bool_],
            npt.NDArray[np.int8],
            npt.NDArray[np.float32],
            npt.NDArray[np.bool_],
            npt.NDArray[np.bool_],
        ]
        | None = None,
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.int8],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
    ]:
        """One action per game: (obs, mask, current player, rewards, terminated, truncated).
        ``actions``: an int64 array is used as it is; another integer array or a list of ints is
        converted (anything else raises ``TypeError``; a length other than ``num_envs`` or an
        index outside 0..action_size, ``ValueError``). -1 leaves a game as it is (its row is
        written again, with no reward and neither terminated nor truncated). Every action is
        checked before any game moves: one masked out in its game raises ``IllegalAction``
        naming the first such game and changes nothing (no game moves, ``out`` is not written).
        A bug inside the step (a Rust panic, caught) raises ``RuntimeError``, and so does every
        later call but ``reset``.

        ``out``: six C-contiguous arrays of those dtypes and shapes ((n, observation_size),
        (n, action_size), (n,), (n, num_players), (n,), (n,)) to write into and return, instead
        of six new arrays per call (a wrong shape or dtype raises ``ValueError`` or
        ``TypeError``; after a ``RuntimeError`` or ``KeyboardInterrupt`` their contents are
        unspecified). The GIL stays held while stepping into them."""
    def game(self, i: int) -> Game:
        """A copy of game ``i``."""
    def to_bytes(self) -> bytes:
        """The whole batch (games, chance streams, trade drafts, bots with their memory,
        settings) for ``from_bytes``; pickling uses it. Refused (``RuntimeError``) for a batch
        that must be reset."""
    @staticmethod
    def from_bytes(data: bytes) -> VecGame:
        """A batch from ``to_bytes``, resuming exactly where it was (same actions, same outputs);
        corrupt bytes raise ``DecodeError``."""
    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...

def simulate(
    games: int,
    players: int = 4,
    board: str = "classic",
    rules: Rules | None = None,
    bots: list[str] | None = None,
    seed: int = 0,
    threads: int | None = None,
    max_inputs: int = 1_000_000,
    first_game: int = 0,
) -> RawSimulation:
    """Run ``games`` seeded bot games on ``threads`` threads (default: all cores), GIL released;
    Ctrl-C stops the run (``KeyboardInterrupt``) within a few milliseconds.
    Plain lists per game (``winners`` (-1 if cut), ``rounds``, ``turns``, ``actions``,
    ``bankruptcies``, ``net_worths``, ``truncated``) and ``landings`` (41 counts): see
    ``lanopoly.types.RawSimulation``. Game ``i`` is
    seeded from ``(seed, first_game + i)``: results do not depend on ``threads``. Use
    ``lanopoly.simulate`` for numpy results and a progress bar."""

def simulation_seeds(seed: int, index: int, players: int) -> tuple[int, list[int]]:
    """The seeds ``simulate`` gives game ``index`` of a run with ``seed``: the chance stream's and
    one per seat. ``Game(players, seed=chance)`` stepped with ``Bot(name, seed=seats[s])`` at
    each seat ``s`` is the same game as the Rust run's."""

def bots() -> list[str]:
    """The names of the built-in bots."""

def bot_parameters(bot: str) -> list[tuple[str, str]]:
    """The parameters a built-in bot takes in a spec such as ``heuristic(jail=stay,max_houses=4)``:
    (name, meaning) pairs. The search bot also takes every heuristic parameter (for the heuristic
    player it uses)."""

def boards() -> list[str]:
    """The boards there are."""

@final
class Ed25519Key:
    """An Ed25519 signing key made from its 32-byte secret seed (RFC 8032: deterministic
    signatures, the same bytes as libsodium's); ``ValueError`` for a seed of another length."""

    def __new__(cls, seed: bytes) -> Ed25519Key: ...
    @property
    def public(self) -> bytes:
        """The 32-byte public key."""
    def sign(self, data: bytes) -> bytes:
        """The 64-byte signature of ``data``."""

def ed25519_verify(public: bytes, data: bytes, signature: bytes) -> bool:
    """Whether ``signature`` (64 bytes) is ``public``'s (32 bytes) Ed25519 signature of ``data``,
    by libsodium's rules (canonical S; R and the key not of small order; the key canonically
    encoded; the cofactorless equation); never raises."""

def square_names(board: str = "classic") -> list[str]:
    """The names of the 40 squares of a board."""
