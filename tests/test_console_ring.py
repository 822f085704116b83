"""The large board ring (issue 14, "larger terminals get a larger board ring with full names"):
from 120x40 each square shows its name on two lines, in full or nearly, with its marks; the middle
keeps the players, the status and the decision, or shows the card asked for; a click anywhere on a
square opens its card. Played through the real application on a pipe (``drive``), in the
situation of tests/test_console_deeds.py (ada: both browns with three houses each and Electric
Company, standing on Baltic Avenue; bea: Reading and Pennsylvania Railroads, Water Works mortgaged).
"""

from __future__ import annotations

import pytest

from lanopoly import Game
from lanopoly.console import LocalTable, big_board
from lanopoly.console.big_board import name_rows, ring
from lanopoly.console.board_view import grid_position
from lanopoly.console.names import fold
from lanopoly.i18n import LANGUAGES, default_board
from test_console_deeds import click, drive, forced, shows


def _text(fragments: list[tuple[str, str]]) -> list[str]:
    return "".join(fragment[1] for fragment in fragments).split("\n")


def test_at_120x40_every_square_shows_its_name_whole_with_its_marks() -> None:
    (screen,) = drive(forced(), [("", shows("last roll"))], columns=120, rows=40)
    board = screen[: big_board.ROWS]
    assert board[0].startswith("Free Parking     Kentucky    Chance  Indiana Illinois")
    bottom = "Jail Connecticut Vermont Chance Oriental Reading Income Baltic Community Mediterranean GO"
    assert board[21].split() == bottom.split(" ")
    assert board[22].split() == ["Avenue", "Avenue", "Avenue", "Railroad", "Tax", "Avenue", "Chest", "Avenue"]
    assert board[19].startswith("St. Charles") and board[19].endswith("Boardwalk")
    # The marks under the bottom row's names: bea's Reading Railroad; Baltic (ada's, after a dot 3
    # houses, after an at sign ada on it); Mediterranean (ada's, 3 houses); bea's token on GO.
    shape = ring(Game(["ada", "bea"], seed=1), "en", 120)
    assert board[23][shape.start(5) : shape.start(5) + 5] == "2    "
    assert board[23][shape.start(7) : shape.start(7) + 5] == "1·3@1"
    assert board[23][shape.start(9) : shape.start(9) + 5] == "1·3  "
    assert board[23][shape.start(10) : shape.start(10) + 5] == "   @2"
    assert board[11] == "Pennsylvania 2" + " " * 90 + "Short Line", "a side square's marks right of its name"
    assert board[2][shape.start(8) :] == "2·m", "Water Works: bea's, mortgaged"
    # The middle: the players, the status and the decision, between the side columns.
    assert board[3][shape.start(1) :].startswith(" >1 ada            $930")
    assert board[20][shape.start(1) :].startswith(" Build, mortgage, trade... or end your turn (e)")
    assert screen[24] == "ada rolls 12 for the first turn.", "the log under the ring, from its start"
    names = " ".join(" ".join(line.split()) for line in board)
    for name in shape.names:  # the deeds' names from the game, the other squares' from the catalog
        assert all(word in names.split() for word in name.split()), name


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("columns", [120, 133, 160, 200])
def test_the_ring_fits_its_width_and_its_lines_meet_in_every_language(lang: str, columns: int) -> None:
    """Every line of the ring as wide as the ring, the ring no wider than the terminal; the right
    column's names start at the same column on every line (nothing pushed out of place)."""
    game = Game(["ann", "bea", "cy"], seed=0, board=default_board(lang))
    shape = ring(game, lang, columns)
    lines = _text(big_board.render(game, 0, [[("", "x" * 300)]] * 18, shape))
    assert len(lines) == big_board.ROWS and shape.width <= columns
    assert {len(line) for line in lines} == {shape.width}, lang
    for line in lines[big_board.EDGE_ROWS : -big_board.EDGE_ROWS]:
        assert line[shape.start(10) - 1] == " " and line[shape.start(1) - 1] == " "
    for square in range(40):
        rows = name_rows(shape.names[square], shape.widths[grid_position(square)[1]])
        assert 1 <= len(rows) <= big_board.NAME_ROWS and all(rows), (lang, shape.names[square])


def test_the_longer_names_wrap_between_words_and_after_hyphens() -> None:
    assert name_rows("Mediterranean Avenue", 13) == ["Mediterranean", "Avenue"]
    assert name_rows("Avenue Henri-Martin", 9) == ["Henri-", "Martin"], "filler left out before a name is cut"
    assert name_rows("Boulevard Saint-Michel", 12) == ["Boulevard", "Saint-Michel"]
    assert name_rows("Compagnie d\u2019électricité", 9) == ["Compagnie", "d\u2019électr…"]
    assert name_rows("Probabilità", 5) == ["Prob-", "abil…"]
    game = Game(["ann", "bea"], seed=0, board="paris")
    shape = ring(game, "fr", 120)
    shown = [" ".join(name_rows(shape.names[s], shape.widths[0])) for s in range(40)]
    assert "Départ" in shape.names and "Parc gratuit" in shape.names, "the squares that are no deeds in French"
    assert shape.width <= 120 and shown


def test_a_click_on_a_square_of_the_large_ring_opens_its_card_in_the_middle() -> None:
    """Boardwalk's name starts the 20th row's right column; Mediterranean Avenue's marks are
    under its name on the bottom row: a click on either opens its card in the ring's middle (the
    board around it), a click on the card closes it."""
    shape = ring(Game(["ada", "bea"], seed=1), "en", 120)
    boardwalk, board, mediterranean = drive(
        forced(),
        [
            (click(shape.start(10) + 2, 19), shows("mortgage value $200")),
            (click(shape.start(1) + 3, 6), shows("last roll")),
            (click(shape.start(9) + 1, 23), shows("Mediterranean Avenue", "brown · price $60")),
        ],
        columns=120,
        rows=40,
    )
    middle = shape.start(1)
    assert boardwalk[3][middle:].startswith(" Boardwalk ") and boardwalk[4][middle:].startswith(" dark blue")
    assert boardwalk[19].endswith("Boardwalk") and boardwalk[21].startswith("Jail"), "the ring stays around it"
    assert "owner: the bank" in boardwalk[5]
    assert board[3][middle:].startswith(" >1 ada")
    assert mediterranean[3][middle:].startswith(" Mediterranean Avenue") and "owner: ada" in mediterranean[5]


def test_beside_a_wider_large_ring_the_side_panel_stays() -> None:
    """At 160x40 the classic ring (120 columns) leaves room for the side panel: every player in
    short, then the card asked for; the ring's middle keeps the game."""
    players, card = drive(
        forced(),
        [("", shows("Players (F8")), ("info baltic\r", shows("standing here"))],
        columns=160,
        rows=40,
    )
    assert players[0].startswith("Free Parking") and players[0][121:] == " Players (F8: portfolio; click a"
    assert players[2][121:] == ">1 ada"
    assert card[0][121:] == " Baltic Avenue" and card[3][18:].startswith(">1 ada")


def _shown_name(screen: list[str], shape: big_board.Ring, square: int) -> str:
    """A square's name as the screen shows it on the large ring: its two lines read back from
    the screen, joined as a person reads them (no space after a line ending with a hyphen or an
    apostrophe)."""
    row, column = grid_position(square)
    side = column in (0, 10) and square % 10 != 0
    width = shape.widths[column] if side else shape.cell(column)
    if row in (0, 10):
        top = 0 if row == 0 else big_board.ROWS - big_board.EDGE_ROWS
    else:
        top = big_board.EDGE_ROWS + (row - 1) * big_board.SIDE_ROWS
    start = shape.start(column)
    lines = [screen[top + line][start : start + width].strip() for line in range(big_board.NAME_ROWS)]
    first, second = lines
    return first + ("" if not second or first.endswith(("-", "\u2019", "'")) else " ") + second


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("board", ["classic", "paris"])
def test_at_120x40_no_name_is_cut_in_any_language_on_any_board(lang: str, board: str) -> None:
    """At 120x40 every square's name shows whole on the screen, at most without its filler words
    ("Avenue", "Rue de"): none cut short with an ellipsis nor broken inside a word by the ring. The
    catalogs' ``ring.*`` names are shorter where a language's (or the Paris edition's) would not
    fit: "Caisse de communauté", "Probabilità", "Compagnie d'électricité" once lost their ends."""
    table = LocalTable(["ada", "bea"], me=0, seed=1, lang=lang, board=board)
    (screen,) = drive(table, [("", lambda lines: len(lines) > big_board.ROWS and "ada" in "\n".join(lines))], 120, 40)
    shape = ring(table.game, lang, 120)
    assert shape.width <= 120
    for square in range(40):
        name = shape.names[square]
        short = " ".join(word for word in name.split() if fold(word) not in big_board.DROPPED)
        shown = _shown_name(screen, shape, square)
        assert "…" not in shown and shown in (name, short), (lang, board, square, name, shown)
