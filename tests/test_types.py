"""The TypedDicts of ``lanopoly.types`` match what the engine accepts and emits, key for key.

Real games (built-in bots of both kinds, several rule presets) are played through the Python API
and every move listed or taken, every chance outcome and every event is checked against its
class: the exact keys (required and optional) and the type of every value. The classes' type
names are also compared with the Rust enums they mirror, so neither side can drift alone.
"""

from __future__ import annotations

import functools
import re
import types
from pathlib import Path
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

import lanopoly
from lanopoly import types as lt

ROOT = Path(__file__).resolve().parent.parent


def mismatch(value: Any, hint: Any, where: str = "value") -> str | None:
    """Why ``value`` is not of type ``hint`` (None if it is): a runtime check of the hints used
    in ``lanopoly.types`` (TypedDicts, Literal, unions, list, tuple (fixed-size or ``...``),
    int, bool, str, None)."""
    origin = get_origin(hint)
    if origin is NotRequired:
        return mismatch(value, get_args(hint)[0], where)
    if origin in (Union, types.UnionType):
        errors = [mismatch(value, arm, where) for arm in get_args(hint)]
        return (
            None if None in errors else f"{where}: {value!r} matches no arm of {hint} ({'; '.join(map(str, errors))})"
        )
    if origin is Literal:
        known = any(value == arg and type(value) is type(arg) for arg in get_args(hint))
        return None if known else f"{where}: {value!r} is not in {hint}"
    if hint is type(None):
        return None if value is None else f"{where}: {value!r} is not None"
    if hint in (int, bool, str, float):
        return None if type(value) is hint else f"{where}: {value!r} is a {type(value).__name__}, not {hint.__name__}"
    if origin is list:
        if type(value) is not list:
            return f"{where}: {value!r} is not a list"
        (item,) = get_args(hint)
        return next((e for i, v in enumerate(value) if (e := mismatch(v, item, f"{where}[{i}]"))), None)
    if origin is tuple and get_args(hint)[1:] == (...,):
        if type(value) is not tuple:
            return f"{where}: {value!r} is not a tuple"
        return next((e for i, v in enumerate(value) if (e := mismatch(v, get_args(hint)[0], f"{where}[{i}]"))), None)
    if origin is tuple:
        items = get_args(hint)
        if type(value) is not tuple or len(value) != len(items):
            return f"{where}: {value!r} is not a {len(items)}-tuple"
        return next(
            (e for i, (v, h) in enumerate(zip(value, items, strict=True)) if (e := mismatch(v, h, f"{where}[{i}]"))),
            None,
        )
    if is_typeddict(hint):
        return typed_dict_mismatch(value, hint, where)
    raise AssertionError(f"no runtime check for {hint!r}")


@functools.cache
def hints_of(cls: Any) -> dict[str, Any]:
    return get_type_hints(cls, include_extras=False)


def typed_dict_mismatch(value: Any, cls: Any, where: str) -> str | None:
    if type(value) is not dict:
        return f"{where}: {value!r} is not a dict"
    hints = hints_of(cls)
    required, optional = cls.__required_keys__, cls.__optional_keys__
    if missing := required - value.keys():
        return f"{where}: {cls.__name__} misses {sorted(missing)} in {value!r}"
    if extra := value.keys() - required - optional:
        return f"{where}: {cls.__name__} has no {sorted(extra)} in {value!r}"
    return next((e for key in value if (e := mismatch(value[key], hints[key], f"{where}[{key!r}]"))), None)


CHECKED: set[str] = set()
"""The values checked already, as ``repr`` (which shows every key, value and value type that
matters here): most values recur (dice, turns), and checking them again would cost most of
the test's time."""


def check(value: Any, by_type: dict[str, type], where: str) -> str:
    """Check ``value`` against the class of its ``type``; returns the type."""
    key = repr(value)
    if key in CHECKED:
        return str(value["type"])
    CHECKED.add(key)
    cls = by_type.get(value.get("type"))
    assert cls is not None, f"{where}: no class for type {value.get('type')!r}: {value!r}"
    error = typed_dict_mismatch(value, cls, where)
    assert error is None, error
    return str(value["type"])


def check_full_bundles(value: Any) -> None:
    """Bundles written by the engine carry all three keys (a move may leave any out)."""
    for key in ("give", "get"):
        if key in value:
            assert value[key].keys() == {"properties", "cash", "jail_cards"}, value


def check_state(value: Any, hint: Any, where: str) -> None:
    """Check a value an accessor of ``Game`` returned against its type (once per distinct value)."""
    key = f"{where}: {value!r}"
    if key not in CHECKED:
        CHECKED.add(key)
        error = mismatch(value, hint, where)
        assert error is None, error


def variant(value: Any) -> str:
    """The variant of a phase or pending chance: the string, or the one key of the dict."""
    return value if isinstance(value, str) else next(iter(value))


class Seen:
    """Types seen so far, by kind."""

    def __init__(self) -> None:
        self.moves: set[str] = set()
        self.outcomes: set[str] = set()
        self.events: set[str] = set()
        self.states: set[str] = set()
        """What the state accessors returned: "auction:house", "phase:buy_decision", "square:tax"..."""

    def state_of(self, game: lanopoly.Game, everything: bool) -> None:
        """Check what the state accessors return (the seats and squares too if ``everything``)."""
        phase, pending, auction = game.phase, game.pending_chance, game.auction
        check_state(phase, lt.Phase, "phase")
        self.states.add(f"phase:{variant(phase)}")
        check_state(pending, lt.PendingChance | None, "pending_chance")
        self.states.add(f"pending:{None if pending is None else variant(pending)}")
        check_state(auction, lt.Auction | None, "auction")
        if auction is not None:
            self.states.add(f"auction:{auction['lot']}")
        for name, hint in (("offers", lt.Offer), ("debts", lt.Debt), ("claims", lt.RentClaim)):
            values = getattr(game, name)
            check_state(values, list[hint], name)  # type: ignore[valid-type]
            if values:
                self.states.add(name)
            for offer in values if name == "offers" else []:
                check_full_bundles(offer)
        if everything:
            for seat in range(game.num_players):
                check_state(game.player(seat), lt.PlayerInfo, "player")
            for square in range(40):
                value = game.square(square)
                check_state(value, lt.SquareInfo, "square")
                self.states.add(f"square:{value['kind']}")
                if value["kind"] in ("street", "railway", "utility") and value["owner"] is not None:
                    self.states.add("square:owned")

    def events_of(self, events: list[Any]) -> None:
        assert type(events) is list
        for event in events:
            self.events.add(check(event, lt.EVENT_TYPES, "event"))
            check_full_bundles(event)
            if event["type"] == "trade_proposed":
                check_full_bundles(event["offer"])


def play(game: lanopoly.Game, bots: list[lanopoly.Bot], seen: Seen, max_inputs: int = 4000) -> None:
    """Play ``game`` to its end (or ``max_inputs``), checking everything that crosses the boundary."""
    for step in range(max_inputs):
        seen.state_of(game, everything=game.is_over or step % 50 == 0)
        if game.is_over:
            return
        if game.is_chance_node:
            for outcome, _ in game.chance_outcomes():
                check(outcome, lt.OUTCOME_TYPES, "chance outcome")
            outcome, events = game.resolve_chance()
            seen.outcomes.add(check(outcome, lt.OUTCOME_TYPES, "resolved outcome"))
            seen.events_of(events)
            continue
        seat = game.current_player
        assert seat is not None
        legal = game.legal_actions(seat)
        for action in legal:
            seen.moves.add(check(action, lt.MOVE_TYPES, "legal move"))
        action = bots[seat].choose(game, seat, legal)
        seen.moves.add(check(action, lt.MOVE_TYPES, "chosen move"))
        check_full_bundles(action)
        seen.events_of(game.apply(action))
        for other in range(game.num_players):
            claim = bots[other].interject(game, other)
            if claim is not None:
                seen.moves.add(check(claim, lt.MOVE_TYPES, "interjected move"))
                seen.events_of(game.apply(claim))


# Rule sets that between them reach every move and event: the book's (auctions, rent to claim,
# limited buildings), speed (deeds dealt), timed (end_game) and a small bank (shortage auctions).
SETTINGS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("official", {"round_limit": 60}, ["heuristic", "heuristic", "random", "heuristic"]),
    ("official", {"round_limit": 40}, ["random", "random", "random"]),
    ("speed", {}, ["heuristic", "random", "heuristic", "heuristic"]),
    ("timed", {"round_limit": 40}, ["random", "heuristic"]),
    ("official", {"round_limit": 80, "houses": 8, "hotels": 2, "shortage_opening_bid": 10}, ["heuristic"] * 4),
    ("official", {"round_limit": 60, "free_parking_jackpot": True, "rent_claim": "automatic"}, ["heuristic"] * 3),
]
GAMES_PER_SETTING = 35


@pytest.fixture(scope="module")
def seen() -> Seen:
    seen = Seen()
    for s, (preset, options, bots) in enumerate(SETTINGS):
        rules = lanopoly.Rules.preset(preset, **options)
        for g in range(GAMES_PER_SETTING):
            game = lanopoly.Game(len(bots), rules=rules, seed=1000 * s + g)
            play(game, [lanopoly.Bot(name, seed=7 * g + i) for i, name in enumerate(bots)], seen)
    # A hotel auctioned in a shortage: rare (several seats want the last hotel at once); this
    # game has one (4028 had one until the bots answered offers out of turn, issue 14).
    rules = lanopoly.Rules(round_limit=80, hotels=1, shortage_opening_bid=10)
    play(lanopoly.Game(4, rules=rules, seed=4011), [lanopoly.Bot("heuristic", seed=7 * 28 + i) for i in range(4)], seen)
    # A resignation: legal at any time but a chance event, never listed nor chosen by the bots.
    game = lanopoly.Game(3, seed=5)
    while game.is_chance_node:
        seen.events_of(game.resolve_chance()[1])
    resign: lt.ResignAction = {"type": "resign", "player": 1}
    seen.events_of(game.apply(resign))
    seen.moves.add(check(resign, lt.MOVE_TYPES, "resign"))
    return seen


def test_every_move_outcome_and_event_of_real_games_fits_its_typed_dict(seen: Seen) -> None:
    # The checks ran while playing; here, that the games reached every type there is (a class
    # that nothing ever fits, or a misspelt type literal, would be missing).
    assert seen.moves == set(lt.MOVE_TYPES)
    assert seen.outcomes == set(lt.OUTCOME_TYPES)
    assert seen.events == set(lt.EVENT_TYPES)


def test_what_the_state_accessors_of_real_games_return_fits_its_typed_dict(seen: Seen) -> None:
    # Checked while playing (Game.phase, pending_chance, auction, offers, debts, claims, player,
    # square); here, that the games reached every variant of the types.
    phases = {f"phase:{variant(v)}" for v in get_args(lt.Phase) for v in get_args(v) or [get_type_hints(v)]}
    pendings = {f"pending:{variant(v)}" for v in get_args(lt.PendingChance) for v in get_args(v) or [get_type_hints(v)]}
    lots = {f"auction:{lot}" for lot in get_args(get_type_hints(lt.Auction)["lot"])}
    kinds = {f"square:{k}" for cls in get_args(lt.SquareInfo) for k in get_args(get_type_hints(cls)["kind"])}
    expected = phases | pendings | {"pending:None"} | lots | kinds | {"square:owned", "offers", "debts", "claims"}
    assert seen.states == expected, (expected - seen.states, seen.states - expected)


def test_the_checker_refuses_a_wrong_key_a_missing_key_and_a_wrong_type() -> None:
    good = {"type": "built", "player": 0, "square": 1, "level": 2}
    assert typed_dict_mismatch(good, lt.BuiltEvent, "e") is None
    assert typed_dict_mismatch({**good, "extra": 1}, lt.BuiltEvent, "e")
    assert typed_dict_mismatch({k: v for k, v in good.items() if k != "level"}, lt.BuiltEvent, "e")
    assert typed_dict_mismatch({**good, "level": True}, lt.BuiltEvent, "e")
    assert typed_dict_mismatch({**good, "type": "bought"}, lt.BuiltEvent, "e")
    payment = {"type": "payment", "from": {"player": 1}, "to": "bank", "amount": 5, "reason": "tax"}
    assert typed_dict_mismatch(payment, lt.PaymentEvent, "e") is None
    assert typed_dict_mismatch({**payment, "to": "nobody"}, lt.PaymentEvent, "e")
    assert typed_dict_mismatch({**payment, "from": {"seat": 1}}, lt.PaymentEvent, "e")


def sample(hint: Any) -> Any:
    """A value of type ``hint`` (the first arm of a union or literal; zeros; full TypedDicts)."""
    origin = get_origin(hint)
    if origin is NotRequired or origin in (Union, types.UnionType, Literal):
        return sample(get_args(hint)[0]) if origin is not Literal else get_args(hint)[0]
    if origin is list:
        return [sample(get_args(hint)[0])]
    if is_typeddict(hint):
        return {key: sample(h) for key, h in get_type_hints(hint).items()}
    return {int: 1, bool: False, str: "x"}[hint]


@pytest.mark.parametrize("kind", sorted(lt.MOVE_TYPES) + sorted(lt.OUTCOME_TYPES))
def test_the_engine_reads_every_key_of_every_move_and_outcome(kind: str) -> None:
    """A dict built from a class's keys is read by the engine: it may refuse the move (the game
    does not allow it now) but never for a missing or misspelt key or an unknown type."""
    cls = lt.MOVE_TYPES.get(kind) or lt.OUTCOME_TYPES[kind]
    value = sample(cls)
    value["type"] = kind
    if kind == "deed":
        value["square"] = 1
    if kind == "dice":
        value["dice"] = [1, 2]
    if "give" in value:
        value["give"]["properties"] = [1]
        value["get"]["properties"] = [3]
        value["get"]["jail_cards"] = ["community_chest"]
    if kind == "sell_down":
        value["levels"] = [0, 0]
    # Moves are checked (``check`` takes moves only); outcomes applied to a new game, which waits
    # for the dice that order the seats (a card or a deed is refused: not the event pending).
    read = lanopoly.Game(2, seed=1).check if kind in lt.MOVE_TYPES else lanopoly.Game(2, seed=1).apply
    try:
        read(value)
    except lanopoly.IllegalAction as e:  # the rules' answer: the dict itself was read
        assert not re.search(r"missing field|unknown|wrong type|not a property|is a list", str(e)), (value, str(e))
    for key in cls.__required_keys__ - {"type"}:
        with pytest.raises(ValueError, match="missing field") as info:
            read({k: v for k, v in value.items() if k != key})
        assert type(info.value) is ValueError


def rust_variants(path: str, enum: str) -> set[str]:
    """The variants of a Rust enum, in snake case (as serde's ``rename_all`` writes them)."""
    source = (ROOT / path).read_text(encoding="utf-8")
    body = re.search(rf"pub enum {enum} \{{\n(.*?)\n\}}", source, flags=re.DOTALL)
    assert body is not None, f"enum {enum} not found in {path}"
    names = re.findall(r"^    ([A-Z]\w*)", body.group(1), flags=re.MULTILINE)
    return {re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower() for name in names}


def test_the_classes_name_every_variant_of_the_rust_enums() -> None:
    assert set(lt.EVENT_TYPES) == rust_variants("rust_core/engine/src/event.rs", "Event")
    assert set(lt.MOVE_TYPES) == rust_variants("rust_core/engine/src/action.rs", "Action")
    assert (
        set(lt.OUTCOME_TYPES) == {"dice", "card", "deed"} == rust_variants("rust_core/engine/src/action.rs", "Outcome")
    )
    assert set(get_args(lt.PaymentReason)) == rust_variants("rust_core/engine/src/event.rs", "Reason")
    assert set(get_args(lt.JailExit)) == rust_variants("rust_core/engine/src/event.rs", "JailExit")


STATIC_CHECK = """
from typing import assert_type

import lanopoly
from lanopoly.types import Action, Auction, BuildAction, ChanceOutcome, Event, Move, RentClaim

game = lanopoly.Game(2, seed=1)
assert_type(game.legal_actions(0), list[Move])
assert_type(game.legal_actions(), list[Action])
assert_type(game.apply({"type": "roll", "player": 0}), list[Event])
assert_type(game.resolve_chance(), tuple[ChanceOutcome, list[Event]])
assert_type(game.sample_chance(), ChanceOutcome)
assert_type(game.chance_outcomes(), list[tuple[ChanceOutcome, float]])
assert_type(game.action_from_index(0, 0), Move)
assert_type(lanopoly.Bot().choose(game, 0), Move)
assert_type(lanopoly.Bot().interject(game, 0), Move | None)
assert_type(game.auction, Auction | None)
assert_type(game.claims, list[RentClaim])
square = game.square(39)
if square["kind"] == "street":
    assert_type(square["group"], int)
for event in game.apply({"type": "roll", "player": 0}):
    if event["type"] == "built":
        assert_type(event["level"], int)
build: BuildAction = {"type": "build", "player": 0, "sqaure": 39}  # E: misspelt key
"""


def strict_errors(source: str, tmp_path: Path) -> list[str]:
    """mypy --strict's errors on ``source``, checked to be all on its one line marked ``# E``."""
    api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(source, encoding="utf-8")
    out, err, _ = api.run(["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(snippet)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    marked = 1 + next(i for i, line in enumerate(source.splitlines()) if "# E" in line)
    assert errors and all(f"snippet.py:{marked}:" in e for e in errors), out + err
    return errors


def test_the_stub_gives_the_typed_dicts_to_a_type_checker(tmp_path: Path) -> None:
    """mypy sees the TypedDicts in the engine's signatures (not ``dict[str, Any]``) and refuses
    a misspelt key in a move: the only line of the snippet with errors."""
    errors = strict_errors(STATIC_CHECK, tmp_path)
    assert any('Extra key "sqaure"' in e for e in errors), errors


def test_deed_gives_a_deed_square_and_refuses_a_square_without_one() -> None:
    game = lanopoly.Game(2, seed=1)
    assert lt.deed(game.square(39)) == game.square(39)
    with pytest.raises(ValueError, match=r"\(square 0\) has no title deed"):
        lt.deed(game.square(0))
