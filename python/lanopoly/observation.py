"""What every entry of the float32 observation means, and its bounds, as data.

``OBSERVATION_FIELDS`` lists the observation's fields in order: a field is a run of entries with
one meaning (``length`` 40 for a one-hot square, 1 for a number), and a field of a repeated block
(a seat, a property) appears ``repeats`` times, ``stride`` entries apart: ``players[s].cash`` is
entry ``2 + 51 * s`` for relative seat ``s`` (0 = the observer). Seats are relative to the
observer; money is in thousands. ``low``/``high`` bound every entry of the field (``inf``: no
bound, as money has none). The parts of ``lanopoly.rl.OBSERVATION_LAYOUT`` are the prefixes of
the names; ``tests/test_observation.py`` checks that the fields cover the vector exactly once
and that observations of random games stay within the bounds. The source of truth is
``rust_core/sim/src/observation.rs``.

    >>> from lanopoly.observation import OBSERVATION_FIELDS, field_of
    >>> field_of(2 + 51 * 1).name
    'players[s].cash'
"""

from __future__ import annotations

import math
from typing import NamedTuple


class ObservationField(NamedTuple):
    """One field of the observation; see the module documentation."""

    name: str
    start: int
    length: int
    meaning: str
    low: float
    high: float
    repeats: int = 1
    """How many times the field comes (once per seat or property of its block)."""
    stride: int = 0
    """Entries between two repeats (the block's size)."""

    def indices(self) -> list[int]:
        """Every entry of the field, all repeats."""
        return [self.start + r * self.stride + i for r in range(self.repeats) for i in range(self.length)]


INF = math.inf
SEATS = 8
PROPERTIES = 28

# (name, length, meaning, low, high) of one block, in order.
_Entry = tuple[str, int, str, float, float]
_PLAYER: list[_Entry] = [
    ("present", 1, "1 if the game has this seat", 0, 1),
    ("bankrupt", 1, "1 if the seat went bankrupt (or resigned)", 0, 1),
    ("cash", 1, "cash, in thousands", 0, INF),
    ("position", 40, "one-hot square 0..39 (all 0 once bankrupt)", 0, 1),
    ("in_jail", 1, "1 if in jail", 0, 1),
    ("jail_attempts", 1, "failed rolls for doubles in jail / 3", 0, 1),
    ("chance_card", 1, "1 if holding the Chance get-out-of-jail card", 0, 1),
    ("community_chest_card", 1, "1 if holding the Community Chest one", 0, 1),
    ("net_worth", 1, "net worth (Game.net_worth), in units of 5000", 0, INF),
    ("turn", 1, "1 if it is this seat's turn", 0, 1),
    ("waited_for", 1, "1 if the game waits for this seat", 0, 1),
    ("owes", 1, "unpaid debts of the seat, in thousands", 0, INF),
]
_PROPERTY: list[_Entry] = [
    ("owner", 1 + SEATS, "one-hot owner: the bank, then relative seats 0..7", 0, 1),
    ("level", 1, "houses / 5 (1 with a hotel)", 0, 1),
    ("hotel", 1, "1 with a hotel", 0, 1),
    ("mortgaged", 1, "1 if mortgaged", 0, 1),
    ("fee_due", 1, "1 if the 10% fee of a mortgaged deed received is still due", 0, 1),
]
_BUNDLE: list[_Entry] = [
    ("properties", PROPERTIES, "1 per property (board order) in the bundle", 0, 1),
    ("cash", 1, "cash in the bundle, in thousands", 0, INF),
    ("jail_cards", 2, "1 per jail card (Chance, Community Chest) in the bundle", 0, 1),
]
_PARTS: list[tuple[str, list[_Entry]]] = [
    (
        "phase",
        [("phase", 6, "one-hot: dealing, ordering, await roll, buy decision, after roll, game over", 0, 1)],
    ),
    (
        "pending",
        [("pending", 6, "one-hot chance event awaited: none, move dice, order dice, utility dice, card, deed", 0, 1)],
    ),
    (
        "auction",
        [
            ("running", 1, "1 while an auction runs (the rest of the part is 0 otherwise)", 0, 1),
            ("lot", PROPERTIES, "one-hot property auctioned", 0, 1),
            ("building_lot", 1, "1 if the lot is a house or hotel (shortage auction)", 0, 1),
            ("high_bid", 1, "highest bid, in thousands", 0, INF),
            ("leader", 1 + SEATS, "one-hot highest bidder: none, then relative seats", 0, 1),
            ("still_in", 1, "1 if the observer still bids", 0, 1),
            ("my_lowest_bid", 1, "the observer's lowest bid, in thousands (0 if none)", 0, INF),
            ("my_highest_bid", 1, "the observer's highest bid, in thousands (0 if none)", 0, INF),
        ],
    ),
    (
        "offer",
        [
            ("present", 1, "1 if an offer to the observer is open (its oldest; else the part is 0)", 0, 1),
            ("from", SEATS, "one-hot relative seat of the proposer", 0, 1),
            *[(f"give.{n}", length, f"what the proposer gives: {m}", lo, hi) for n, length, m, lo, hi in _BUNDLE],
            *[(f"get.{n}", length, f"what the proposer asks: {m}", lo, hi) for n, length, m, lo, hi in _BUNDLE],
        ],
    ),
    (
        "draft",
        [
            ("open", 1, "1 if the observer's trade draft is open (VecGame only; else the part is 0)", 0, 1),
            ("to", SEATS, "one-hot relative seat the draft is for", 0, 1),
            *[(f"give.{n}", length, f"what the observer would give: {m}", lo, hi) for n, length, m, lo, hi in _BUNDLE],
            *[(f"get.{n}", length, f"what the observer would ask: {m}", lo, hi) for n, length, m, lo, hi in _BUNDLE],
        ],
    ),
    (
        "bank",
        [
            ("houses_left", 1, "houses in the bank / 32 (above 1 only if the rules give more)", 0, INF),
            ("hotels_left", 1, "hotels in the bank / 12 (above 1 only if the rules give more)", 0, INF),
            ("jackpot", 1, "the Free Parking jackpot (option), in thousands", 0, INF),
            ("round", 1, "completed rounds / 100", 0, INF),
            ("doubles", 1, "doubles rolled in a row this turn / 3", 0, 1),
            ("last_dice", 1, "total of the last dice / 12", 0, 1),
        ],
    ),
]


def _fields() -> tuple[ObservationField, ...]:
    """The table above with each field's start (the fields follow each other without gaps)."""
    fields: list[ObservationField] = []
    at = 0
    for block, repeats, entries in (("players[s]", SEATS, _PLAYER), ("properties[p]", PROPERTIES, _PROPERTY)):
        stride = sum(length for _, length, *_ in entries)
        for name, length, meaning, low, high in entries:
            fields.append(ObservationField(f"{block}.{name}", at, length, meaning, low, high, repeats, stride))
            at += length
        at += stride * (repeats - 1)
    for part, entries in _PARTS:
        for name, length, meaning, low, high in entries:
            full = part if name == part else f"{part}.{name}"
            fields.append(ObservationField(full, at, length, meaning, low, high))
            at += length
    return tuple(fields)


OBSERVATION_FIELDS: tuple[ObservationField, ...] = _fields()
"""Every field of the observation, in order of its first entry."""


def field_of(index: int) -> ObservationField:
    """The field an observation entry belongs to."""
    for f in OBSERVATION_FIELDS:
        if index in f.indices():
            return f
    raise IndexError(f"no observation entry {index}")


def bounds() -> tuple[list[float], list[float]]:
    """The lowest and highest value of every entry, as two lists (for a Box space, say)."""
    size = sum(f.length * f.repeats for f in OBSERVATION_FIELDS)
    low, high = [0.0] * size, [0.0] * size
    for f in OBSERVATION_FIELDS:
        for i in f.indices():
            low[i], high[i] = f.low, f.high
    return low, high


def markdown_table() -> str:
    """The fields as a Markdown table (docs/guide.md shows it; a test keeps the two equal)."""

    def bound(x: float) -> str:
        return "∞" if x == INF else f"{x:g}"

    rows = ["| field | first entry | length | repeats | meaning | low | high |", "|---|---:|---:|---|---|---:|---:|"]
    for f in OBSERVATION_FIELDS:
        repeats = f"{f.repeats}, every {f.stride}" if f.repeats > 1 else ""
        rows.append(
            f"| `{f.name}` | {f.start} | {f.length} | {repeats} | {f.meaning} | {bound(f.low)} | {bound(f.high)} |"
        )
    return "\n".join(rows)


__all__ = ["OBSERVATION_FIELDS", "ObservationField", "bounds", "field_of", "markdown_table"]
