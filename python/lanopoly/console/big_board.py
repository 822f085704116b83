"""The board ring of a large terminal: every square's name in full (or nearly), on two lines.

From :data:`COLUMNS` x :data:`ROWS_NEEDED` the console draws this ring instead of the 4-letter
one of :mod:`board_view`: each column of the ring is as wide as the longest word of its squares'
names (the Italian, Norwegian and Paris names are longer than the classic ones), the spare width
going to the columns whose names still take more than two lines; if the names need more than the
terminal has, the widest columns give way (a long word is then cut with a hyphen). The top and
bottom squares take three lines (two of name, one of marks), the side squares two (the marks right
of the name: owner seat and buildings on the first, tokens on the second). The marks are the small
board's: owner seat, buildings (1-4, H, m) after a dot, tokens. The
middle holds what the small ring's does, with twice the lines. Every character of a square carries
its mouse handler, so a click anywhere on a square opens its card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from lanopoly._core import Game
from lanopoly.console import board_view
from lanopoly.console.board_view import Clicks, Fragments, clickable, grid_position, label_style, marks
from lanopoly.console.names import fold
from lanopoly.describe import square_key, square_name
from lanopoly.i18n import has, t
from lanopoly.types import DEED_KINDS

COLUMNS, ROWS_NEEDED = 120, 40
"""The smallest terminal that gets the large ring (its 24 rows leave 16 for the log and the lines
under it)."""
MARKS = 3
"""Columns of a side square's marks, right of its name: the owner and its buildings after a dot on
the first line, the tokens after an at sign under them (the ring has no column to spare at 120).
The top and bottom squares have the small ring's marks under their names, on one line."""
NAME_ROWS = 2
"""Lines of a square's name."""
EDGE_ROWS, SIDE_ROWS = NAME_ROWS + 1, NAME_ROWS
"""Lines of a square on the top and bottom rows (the marks under the name), and on the sides."""
ROWS = 2 * EDGE_ROWS + 9 * SIDE_ROWS
"""Rows of the large ring on the screen."""
MIDDLE_ROWS = 9 * SIDE_ROWS
"""Rows of the middle."""
NARROWEST, WIDEST = board_view.MARKS, 16
"""The fewest and most columns of a name."""
_SIDES = (0, 10)
"""The columns of the ring whose squares are on the sides (their marks take columns too)."""


def full_names(game: Game, lang: str) -> list[str]:
    """Each square's name: a deed's as the board's edition has it, the other squares' in ``lang``
    as the catalog writes them for this ring (``ring.*``: the name of ``square.*``, or a shorter
    one where a language's is too long for two lines of the ring at 120 columns); a deed whose
    name is too long has its shorter one there too (``ring.<board>.<square>``)."""
    names = []
    for square in range(40):
        key = square_key(game, square) or f"{game.board}.{square}"  # a deed: its edition's, if the catalog has one
        names.append(t(lang, f"ring.{key}") if has(f"ring.{key}") else square_name(game, square, lang))
    return names


DROPPED = {"avenue", "rue", "boulevard", "place", "de", "la", "le", "du", "des", "faubourg", "gare", "the"}
"""Words a name loses, when it does not fit in two lines otherwise (folded)."""


_BREAKS = "[^-\u2019']*[-\u2019']|[^-\u2019']+"
"""A piece of a word: up to a hyphen or an apostrophe (a typographic one too), the mark included."""


def _pieces(words: list[str]) -> list[tuple[str, bool]]:
    """The pieces a line may break between: each word, also split after its hyphens and
    apostrophes ("Henri-" "Martin", "d\u2019" "électricité"); each piece with whether it follows the
    one before on a line without a space."""
    pieces: list[tuple[str, bool]] = []
    for word in words:
        parts = re.findall(_BREAKS, word)
        pieces += [(part, i > 0) for i, part in enumerate(parts)]
    return pieces


def _lines(words: list[str], width: int) -> list[str]:
    """``words`` filled into lines of ``width``, broken between words or after a hyphen; a piece
    longer than a line is cut with a hyphen."""
    rows: list[str] = []
    for piece, glued in _pieces(words):
        joined = piece if glued else " " + piece
        if rows and len(rows[-1]) + len(joined) <= width:
            rows[-1] += joined
            continue
        while len(piece) > width:
            rows.append(piece[: width - 1] + "-")
            piece = piece[width - 1 :]
        rows.append(piece)
    return rows or [""]


def longest(name: str) -> int:
    """The longest piece of a name (a line cannot be narrower without cutting it)."""
    return max((len(piece) for piece, _ in _pieces(name.split())), default=0)


def _whole(name: str, width: int) -> bool:
    """Whether ``name`` shows whole in :data:`NAME_ROWS` lines of ``width``, or nearly (its filler
    words left out), no piece cut."""
    words = name.split()
    short = [w for w in words if fold(w) not in DROPPED] or words
    return longest(name) <= width and any(len(_lines(choice, width)) <= NAME_ROWS for choice in (words, short))


def name_rows(name: str, width: int) -> list[str]:
    """A name in at most :data:`NAME_ROWS` lines of ``width``: whole if it fits; else without its
    filler words ("Avenue", "Rue de"); else its end cut with an ellipsis."""
    words = name.split()
    short = [w for w in words if fold(w) not in DROPPED] or words
    for choice in (words, short):
        rows = _lines(choice, width)
        if len(rows) <= NAME_ROWS:
            return rows
    text, head = " ".join(short), "".join(rows[: NAME_ROWS - 1])
    rest = text[len(head) :].strip() if text.startswith(head) else " ".join(rows[NAME_ROWS - 1 :])
    return [*rows[: NAME_ROWS - 1], rest[: width - 1] + "…"]


@dataclass(frozen=True)
class Ring:
    """The columns of the large ring: each one's name width and where it starts on the screen."""

    names: list[str]
    widths: list[int]

    def cell(self, column: int) -> int:
        """Columns of a square of this ring column (its name, and its marks on a side)."""
        return self.widths[column] + (MARKS + 1 if column in _SIDES else 0)

    def start(self, column: int) -> int:
        return sum(self.cell(c) + 1 for c in range(column))

    @property
    def width(self) -> int:
        return self.start(10) + self.cell(10)

    @property
    def middle(self) -> int:
        """Columns of the middle (a column of margin before the right side)."""
        return self.start(10) - 1 - self.start(1)


def _squares(column: int) -> list[int]:
    return [s for s in range(40) if grid_position(s)[1] == column]


def _room(column: int, square: int) -> int:
    """Columns a square's name gains beyond its ring column's width: a corner of a side column
    has its marks' columns too (its marks go under its name)."""
    return MARKS + 1 if column in _SIDES and square % 10 == 0 else 0


def _broken(names: list[str], column: int, width: int, deeds: frozenset[int]) -> int:
    """How badly a ring column of ``width`` shows its squares' names: each name not whole counts,
    and each character its longest piece lacks, a deed's ten times (a deed's name is what a person
    looks for; a card or tax square's is known by heart)."""
    loss = 0
    for s in _squares(column):
        room = width + _room(column, s)
        loss += (10 if s in deeds else 1) * (max(0, longest(names[s]) - room) + (not _whole(names[s], room)))
    return loss


def ring(game: Game, lang: str, columns: int) -> Ring:
    """The large ring's columns for a terminal ``columns`` wide (see :func:`_widths`)."""
    names = full_names(game, lang)
    deeds = frozenset(s for s in range(40) if game.square(s)["kind"] in DEED_KINDS)
    return Ring(names, list(_widths(tuple(names), deeds, columns)))


@cache
def _widths(names: tuple[str, ...], deeds: frozenset[int], columns: int) -> tuple[int, ...]:
    """Each ring column as wide as the longest piece of its names; while the ring is too wide, the
    column that loses least by it narrowed (a tax's name cut rather than a deed's); then the spare
    given to the columns whose names are not yet whole, the one that needs least first."""
    shown = list(names)
    widths = [min(WIDEST, max(NARROWEST, *(longest(names[s]) - _room(c, s) for s in _squares(c)))) for c in range(11)]

    def loss(c: int) -> tuple[int, int]:
        return _broken(shown, c, widths[c] - 1, deeds) - _broken(shown, c, widths[c], deeds), -widths[c]

    while Ring(shown, widths).width > columns and max(widths) > NARROWEST:
        widths[min((c for c in range(11) if widths[c] > NARROWEST), key=loss)] -= 1
    while True:
        spare = columns - Ring(shown, widths).width
        needs = []
        for column in range(11):
            width = widths[column]
            while width < WIDEST and _broken(shown, column, width, deeds):
                width += 1
            if width > widths[column] and not _broken(shown, column, width, deeds):
                needs.append((width - widths[column], column, width))
        if not needs or min(needs)[0] > spare:
            break
        _, column, width = min(needs)
        widths[column] = width
    return tuple(widths)


def _square_rows(shape: Ring, game: Game, square: int, me: int, width: int) -> list[Fragments]:
    """The lines of one square: its name rows in its group's colour, then its marks (under the name
    on the top and bottom rows, right of its first line on the sides), each ``width`` wide."""
    style = label_style(game, square)
    column = grid_position(square)[1]
    side = square % 10 != 0 and column in _SIDES
    name_width = shape.widths[column] if side else width
    rows: list[Fragments] = [[(style, row.ljust(name_width))] for row in name_rows(shape.names[square], name_width)]
    rows += [[(style, " " * name_width)]] * (NAME_ROWS - len(rows))
    shown = marks(game, square, me)
    if side:
        token = shown[2:]
        pad = MARKS + 1 - sum(len(fragment[1]) for fragment in token)
        return [[*rows[0], ("", " "), *shown[:2]], [*rows[1], ("", " " * pad), *token]]
    return [*rows, [*shown, ("", " " * (width - board_view.MARKS))]]


def render(game: Game, me: int, middle: list[Fragments], shape: Ring, on_click: Clicks | None = None) -> Fragments:
    """The large ring as one text, with up to :data:`MIDDLE_ROWS` lines of ``middle`` (each cut to
    ``shape.middle`` columns) inside it; with ``on_click``, every character of a square carries
    its mouse handler."""
    cells: dict[tuple[int, int], list[Fragments]] = {}
    for square in range(40):
        row, column = grid_position(square)
        lines = _square_rows(shape, game, square, me, shape.cell(column))
        cells[(row, column)] = [clickable(line, on_click(square)) for line in lines] if on_click else lines
    out: Fragments = []
    for row in range(11):
        if row in (0, 10):
            for line in range(EDGE_ROWS):
                for column in range(11):
                    out.extend(cells[(row, column)][line])
                    out.append(("", " " if column < 10 else "\n"))
            continue
        for line in range(SIDE_ROWS):
            inner = middle[(row - 1) * SIDE_ROWS + line] if (row - 1) * SIDE_ROWS + line < len(middle) else []
            inner = cut(inner, shape.middle)
            used = sum(len(fragment[1]) for fragment in inner)
            out.extend([*cells[(row, 0)][line], ("", " "), *inner, ("", " " * (shape.middle - used + 1))])
            out.extend([*cells[(row, 10)][line], ("", "\n")])
    return out[:-1]


def cut(fragments: Fragments, width: int) -> Fragments:
    """A line of fragments cut to ``width`` characters (each fragment's handler kept)."""
    out: Fragments = []
    left = width
    for fragment in fragments:
        if left <= 0:
            break
        text = fragment[1][:left]
        out.append((fragment[0], text, *fragment[2:]))
        left -= len(text)
    return out
