"""The board drawn as a ring of 40 cells, with the players and the decision in its middle.

Each cell has a 4-letter label and three marks: the owner's seat number, its buildings (1-4, H,
or m for mortgaged) after a dot, and the tokens standing there after an at sign (a seat number, or
* for several): "1·3@2" is player 1's with three houses, player 2 standing on it. The dot and the
at sign keep the digits apart in a text capture too, where neither colours nor reverse video show
("New York 11" read as eleven, "1·31" as thirty-one).
The marks never touch a label: on the top and bottom rows they sit on a line of their own under
the label, on the sides one space after it (a label such as "Pen4" next to its owner's digit read
"Pen42").
Colour groups colour the label, each seat's colour its owner marks and token (``player_style``);
without colours the text alone says everything. Fits 80x24
(78x13). Each cell's fragments may carry a mouse handler (``on_click``): a click on a square opens
its card.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.mouse_events import MouseEvent

from lanopoly._core import Game
from lanopoly.console.names import labels
from lanopoly.types import DEED_KINDS, deed

Fragments = StyleAndTextTuples
Clicks = Callable[[int], Callable[[MouseEvent], object]]
"""The mouse handler of each square's fragments (given the square)."""

CELL = 7
"""Columns of a cell of the top and bottom rows."""
MARKS = 5
"""Columns of a square's marks: owner, a dot before its buildings, buildings, an at sign before
the tokens, tokens."""
MIDDLE = CELL * 9 - (MARKS - 2)
"""Columns of the middle: between the side cells (label, space, marks), so that the right one
starts where the top row's last cell does."""
WIDTH = 2 * (4 + 1 + MARKS) + MIDDLE
"""Columns of the board: the side cells (label, space, marks) and the middle (80)."""
ROWS = 13
"""Rows of the board on the screen: the top and bottom rows take two each (labels, then marks)."""
GROUP_STYLES = [
    "class:group.brown",
    "class:group.lightblue",
    "class:group.pink",
    "class:group.orange",
    "class:group.red",
    "class:group.yellow",
    "class:group.green",
    "class:group.darkblue",
]


def grid_position(square: int) -> tuple[int, int]:
    """(row, column) of a square on the 11x11 ring, GO at the bottom right."""
    if square <= 10:
        return 10, 10 - square
    if square <= 20:
        return 20 - square, 0
    if square <= 30:
        return 0, square - 20
    return square - 30, 10


def player_style(seat: int) -> str:
    """The style class of a seat's colour (its marks, token and name), to add to another class."""
    return f" class:player.p{seat + 1}"


def label_style(game: Game, square: int) -> str:
    """The style of a square's name: its colour group's for a street, plain otherwise."""
    info = game.square(square)
    return GROUP_STYLES[info["group"]] if info["kind"] == "street" else "class:cell"


def marks(game: Game, square: int, me: int) -> Fragments:
    """A square's three marks (:data:`MARKS` columns): its owner's seat, then after a dot its
    buildings (or m, mortgaged), then after an at sign its tokens: so that without colours the
    owner's, the houses' and the tokens' digits never run together ("1·31" read as thirty-one)."""
    info = game.square(square)
    land = deed(info) if info["kind"] in DEED_KINDS else None
    owner = land["owner"] if land else None
    owner_mark = str(owner + 1) if owner is not None else " "
    level = land["level"] if land else 0
    building = "m" if land and land["mortgaged"] else ("H" if level == 5 else (str(level) if level else " "))
    players = [game.player(s) for s in range(game.num_players)]
    here = [p["seat"] for p in players if not p["bankrupt"] and p["position"] == square]
    token = "@" + (str(here[0] + 1) if len(here) == 1 else "*") if here else "  "
    token_style = "class:token" + (player_style(here[0]) if len(here) == 1 else "")
    token_style += " class:token.me" if me in here else ""
    owner_style = "class:owner" + (player_style(owner) if owner is not None else "")
    owner_style += " class:owner.me" if owner == me else ""
    dot = "·" if building != " " else " "
    return [(owner_style, owner_mark), ("class:building", dot + building), (token_style, token)]


def _cell(game: Game, square: int, label: str, me: int) -> tuple[Fragments, Fragments]:
    """The label of a square and its three marks (owner, buildings, tokens)."""
    return [(label_style(game, square), label)], marks(game, square, me)


def clickable(fragments: Fragments, handler: Callable[[MouseEvent], object]) -> Fragments:
    """``fragments`` each carrying the mouse ``handler``."""
    return [(fragment[0], fragment[1], handler) for fragment in fragments]


def render(game: Game, me: int, middle: list[Fragments], lang: str = "en", on_click: Clicks | None = None) -> Fragments:
    """The ring, with up to 9 lines of ``middle`` (:data:`MIDDLE` characters wide) inside it, its
    labels in ``lang``; with ``on_click``, each cell's label and marks carry its mouse handler."""
    names = labels(game, lang)
    cells: dict[tuple[int, int], tuple[Fragments, Fragments]] = {}
    for square in range(40):
        label, shown = _cell(game, square, names[square], me)
        if on_click is not None:
            label, shown = clickable(label, on_click(square)), clickable(shown, on_click(square))
        cells[grid_position(square)] = (label, shown)
    out: Fragments = []
    for row in range(11):
        if row in (0, 10):
            for part in (0, 1):  # the labels, then the marks under them
                for col in range(11):
                    out.extend(cells[(row, col)][part])
                    out.append(("", " " * (CELL - (4 if part == 0 else MARKS))))
                out.append(("", "\n"))
            continue
        left, right = cells[(row, 0)], cells[(row, 10)]
        out.extend([*left[0], ("", " "), *left[1]])
        inner = middle[row - 1] if row - 1 < len(middle) else []
        width = sum(len(fragment[1]) for fragment in inner)
        out.extend(inner)
        out.append(("", " " * max(0, MIDDLE - width)))
        out.extend([*right[0], ("", " "), *right[1]])
        out.append(("", "\n"))
    return out


def fit(fragments: Fragments, width: int) -> Fragments:
    """Cut a line of fragments to ``width`` characters."""
    out: Fragments = []
    left = width
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        if left <= 0:
            break
        out.append((style, text[:left]))
        left -= len(text[:left])
    return out
