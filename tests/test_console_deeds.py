"""See everything (issue 14): the card of any square and each player's portfolio, opened by a
command, a key or a click on the board, and the game's status in the board's middle; played
through the real application on a pipe, in an 80x24 terminal.

The situation is forced with scripted chance: the deeds are dealt (``starting_deeds``), ada (the
person) builds three houses on each brown street, bea mortgages Water Works, and ada rolls 1+2
onto Baltic Avenue. The bots pause 30 seconds after each move, so the game stands still while the
test types and reads the screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import ColorDepth

from conftest import dice
from lanopoly import Rules
from lanopoly.console import ConsoleApp, LocalTable, deed_card
from lanopoly.describe import describe
from lanopoly.i18n import LANGUAGES, money, plural, t
from screen import Terminal, wait_for

PAUSE = 30.0
F7, F8 = "\x1b[18~", "\x1b[19~"
LEFT, RIGHT, ESC = "\x1b[D", "\x1b[C", "\x1b"


def click(column: int, row: int) -> str:
    """A left click (press and release) at a screen cell, 0-based, as an SGR mouse sequence."""
    return f"\x1b[<0;{column + 1};{row + 1}M\x1b[<0;{column + 1};{row + 1}m"


def forced(lang: str = "en", jackpot: bool = True) -> LocalTable:
    """ada: both browns with 3 houses each and Electric Company; bea: Reading and Pennsylvania
    Railroads and Water Works, mortgaged; ada stands on Baltic Avenue after rolling 1+2."""
    rules = Rules(starting_deeds=3, free_parking_jackpot=jackpot)
    table = LocalTable(["ada", "bea"], me=0, seed=1, lang=lang, rules=rules)
    for square in (1, 5, 3, 15, 12, 28):  # dealt to ada, bea, ada, bea, ...
        table.act({"type": "deed", "square": square})
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    for _ in range(3):
        for square in (1, 3):
            table.act({"type": "build", "player": 0, "square": square})
    table.act({"type": "mortgage", "player": 1, "square": 28})
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 2))
    return table


Step = tuple[str, Callable[[list[str]], bool]]


def drive(table: LocalTable, steps: list[Step], columns: int = 80, rows: int = 24) -> list[list[str]]:
    """Send each step's keys to the running application and wait until its check holds for the
    screen (failing with the screen if it never does); the screens, one per step."""

    async def session() -> list[list[str]]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=Terminal(columns, rows))
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("ada" in line for line in lines))
            screens = []
            for keys, check in steps:
                pipe.send_text(keys)
                screen = await wait_for(app.app, check)
                assert check(screen), (keys, "\n".join(screen))
                screens.append(screen)
            pipe.send_text("\x11")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screens

    return asyncio.run(session())


def shows(*texts: str) -> Callable[[list[str]], bool]:
    return lambda lines: all(text in "\n".join(lines) for text in texts)


def hides(text: str) -> Callable[[list[str]], bool]:
    return lambda lines: text not in "\n".join(lines) and lines[0].startswith("FREE")


BALTIC = [
    " Baltic Avenue",
    " brown · price $60",
    " owner: ada",
    "   rent                                    $4",
    "   with 1 house                           $20",
    "   with 2 houses                          $60",
    " > with 3 houses                         $180",
    "   with 4 houses                         $320",
    "   with a hotel                          $450",
    " rent now: $180",
    " houses $50 each; a hotel: 4 houses + $50",
    " mortgage value $30; not mortgaged",
    " standing here: ada",
]


def test_info_shows_the_deed_card_in_place_of_the_board_with_the_rent_now_marked() -> None:
    (screen,) = drive(forced(), [("info baltic\r", shows("standing here"))])
    assert screen[: len(BALTIC)] == BALTIC
    assert screen[-1] == "Esc or any key: back to the game · Left/Right: next squares · click: any card"


def test_railways_and_utilities_show_their_own_tables() -> None:
    """The English texts call the railways by the classic edition's word (its deeds are "Reading
    Railroad"...): they said "railways" (found in the English tmux run)."""
    reading, water = drive(
        forced(),
        [("deed reading\r", shows("Reading Railroad", "mortgage value")), ("info WATR\r", shows("Water Works"))],
    )
    assert reading[:10] == [
        " Reading Railroad",
        " railroads · price $200",
        " owner: bea",
        "   1 railroad owned                       $25",
        " > 2 railroads owned                      $50",
        "   3 railroads owned                     $100",
        "   4 railroads owned                     $200",
        " rent now: $50",
        " mortgage value $100; not mortgaged",
        "",
    ]
    assert water[:8] == [
        " Water Works",
        " utilities · price $150",
        " owner: bea",
        "   1 utility owned                4x the dice",
        "   2 utilities owned             10x the dice",
        " rent now: none (mortgaged)",
        " mortgage value $75; MORTGAGED",
        "",
    ]


def test_any_square_has_a_card_and_the_bank_s_deed_marks_no_row() -> None:
    boardwalk, parking = drive(
        forced(), [("info boardwalk\r", shows("Boardwalk")), ("info FREE\r", shows("jackpot: $0"))]
    )
    assert boardwalk[2] == " owner: the bank" and not any(line.startswith(" >") for line in boardwalk)
    assert " rent now: none (the bank's)" in boardwalk
    assert parking[:2] == [" Free Parking", " Stop here to win the jackpot: $0."]


def test_f7_opens_the_card_of_my_square_arrows_turn_it_and_any_key_types_on() -> None:
    table = forced()
    baltic, chest, income, typed = drive(
        table,
        [
            (F7, shows("Baltic Avenue", "standing here")),
            (LEFT, shows("Community Chest card")),
            (RIGHT + RIGHT, shows("Pay $200 to the bank.")),
            ("r", hides("Pay $200")),
        ],
    )
    assert baltic[: len(BALTIC)] == BALTIC
    assert chest[:2] == [" Community Chest", " Draw a Community Chest card."]
    assert income[:2] == [" Income Tax", " Pay $200 to the bank."]
    assert "> r" in typed, "the key that closed the card was typed on the input line"


def test_esc_closes_the_card_and_changes_nothing() -> None:
    table = forced()
    before = table.game.state_hash()
    _, back = drive(table, [("info baltic\r", shows("standing here")), (ESC, hides("standing here"))])
    assert back[11].startswith("JAIL") and table.game.state_hash() == before


def test_a_click_on_a_board_square_opens_its_card_and_a_click_on_the_card_closes_it() -> None:
    """Baltic Avenue's label is on the bottom row (row 11, columns 49-52), Boardwalk's on the right
    side (row 10, columns 70-73)."""
    baltic, board, boardwalk = drive(
        forced(),
        [
            (click(50, 11), shows("standing here")),
            (click(10, 3), hides("standing here")),
            (click(71, 10), shows("Boardwalk", "mortgage value $200")),
        ],
    )
    assert baltic[: len(BALTIC)] == BALTIC
    assert board[11].startswith("JAIL")
    assert boardwalk[0] == " Boardwalk"
    # The terminal is asked for mouse events (the pipe above parses them either way).
    assert ConsoleApp(forced(), input=None, output=Terminal()).app.mouse_support()


def test_the_portfolio_shows_deeds_by_group_houses_rents_cards_cash_and_net_worth() -> None:
    mine, hers, again = drive(
        forced(),
        [("portfolio\r", shows("ada's portfolio")), (RIGHT, shows("bea's portfolio")), (F8, shows("ada's portfolio"))],
    )
    assert mine[:6] == [
        " ada's portfolio (to play)",
        " cash $930 · net worth $1500",
        " get-out-of-jail cards: none",
        " brown:        Mediterranean Avenue (3 houses, rent $90)",
        "               Baltic Avenue (3 houses, rent $180)",
        " utilities:    Electric Company (rent 4x the dice)",
    ]
    assert hers[:5] == [
        " bea's portfolio",
        " cash $1025 · net worth $1500",
        " get-out-of-jail cards: none",
        " railroads:    Reading Railroad (rent $50) · Pennsylvania Railroad (rent $50)",
        " utilities:    Water Works (mortgaged)",
    ]
    assert again[:6] == mine[:6]
    assert mine[-1] == "Esc or any key: back to the game · Left/Right: the other players"


def test_portfolio_names_a_player_and_refuses_a_stranger() -> None:
    table = forced()
    hers, refused = drive(table, [("pf 2\r", shows("bea's portfolio")), ("portfolio zed\r", shows("no single player"))])
    assert hers[0] == " bea's portfolio"
    assert refused[0].startswith("FREE")


def test_the_board_s_middle_shows_the_last_roll_the_bank_and_the_jackpot() -> None:
    (screen,) = drive(forced(), [("", shows("last roll"))])
    assert screen[8][11:70].rstrip() == "last roll 1+2 (ada)"
    assert screen[9][11:70].rstrip() == "bank: houses 26, hotels 12 · jackpot $0"
    (plain,) = drive(forced(jackpot=False), [("", shows("last roll"))])
    assert "jackpot" not in plain[9]


def test_the_card_and_portfolio_in_french() -> None:
    card, portfolio = drive(
        forced("fr"), [("titre baltic\r", shows("loyer actuel")), ("portefeuille bea\r", shows("Portefeuille"))]
    )
    assert card[:10] == [
        " Baltic Avenue",
        " marron · prix 60 $",
        " propriétaire : ada",
        "   loyer                                  4 $",
        "   avec 1 maison                         20 $",
        "   avec 2 maisons                        60 $",
        " > avec 3 maisons                       180 $",
        "   avec 4 maisons                       320 $",
        "   avec un hôtel                        450 $",
        " loyer actuel : 180 $",
    ]
    assert portfolio[:6] == [
        " Portefeuille : bea",
        " argent 1025 $ · valeur nette 1500 $",
        " cartes « libéré de prison » : aucune",
        " gares :       Reading Railroad (loyer 50 $)",
        "               Pennsylvania Railroad (loyer 50 $)",
        " compagnies :  Water Works (hypothéqué)",
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_card_keys_fit_the_hint_line(lang: str) -> None:
    for key in ("card.keys", "pf.keys"):
        assert len(t(lang, key)) < 80, (lang, key)


def test_at_120x36_a_side_panel_shows_every_player_then_the_card_beside_the_board() -> None:
    """From 120 columns (with fewer than 40 rows: from 40, tests/test_console_ring.py's large
    ring), the board and the log keep their 80 columns on the left; the panel right of them shows
    every player in short (the board's labels and marks), or the card asked for; the log is
    longer."""
    players, card = drive(
        forced(),
        [("", shows("Players (F8")), ("info baltic\r", shows("standing here"))],
        columns=120,
        rows=36,
    )
    panel = [line[80:] for line in players[:8]]
    assert panel == [
        " Players (F8: portfolio; click a square:",
        "   its card)",
        ">1 ada",
        "   cash $930 · net worth $1500",
        "   Medi3 Balt3 · ELEC",
        " 2 bea",
        "   cash $1025 · net worth $1500",
        "   Read Penn · WATRm",
    ]
    assert players[0].startswith("FREE") and players[11].startswith("JAIL")
    assert players[13] == "ada is dealt Mediterranean Avenue.", "the whole log from its start, under the board"
    assert [line[80:] for line in card[:4]] == [
        " Baltic Avenue",
        " brown · price $60",
        " owner: ada",
        "   rent" + " " * 30 + "$4",
    ]
    assert card[0].startswith("FREE") and card[11].startswith("JAIL"), "the board stays in view"


def test_80x24_keeps_its_layout_below_120_columns() -> None:
    (screen,) = drive(forced(), [("", shows("last roll"))], columns=119, rows=40)
    assert screen[0].rstrip().endswith("COPS") and "Players" not in "\n".join(screen)


def test_no_color_draws_in_monochrome_and_the_card_still_marks_the_rent_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = ConsoleApp(forced(), input=None, output=Terminal())
    assert app.app.color_depth == ColorDepth.DEPTH_1_BIT
    for name in ("group.brown", "player.p1", "decision", "card.current"):
        attrs = app.app.style.get_attrs_for_style_str("class:" + name)
        assert not attrs.color and not attrs.bgcolor, name
    assert app.app.style.get_attrs_for_style_str("class:card.current").reverse
    (screen,) = drive(forced(), [("info baltic\r", shows("standing here"))])
    assert screen[: len(BALTIC)] == BALTIC


def test_colours_per_group_and_player_unless_no_color_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "")  # present but empty: colours (https://no-color.org)
    app = ConsoleApp(forced(), input=None, output=Terminal())
    assert app.app.color_depth == Terminal().get_default_color_depth()
    colours = {app.app.style.get_attrs_for_style_str(f"class:player.p{seat}").color for seat in range(1, 9)}
    assert len(colours) == 8 and "" not in colours
    assert app.app.style.get_attrs_for_style_str("class:group.brown").bgcolor == "8b4513"
    board = app._board()
    owner = next(style for style, text, *_ in board if text == "1" and "owner" in style)
    assert "class:player.p1" in owner


def test_a_decision_too_long_for_one_row_takes_two_and_keeps_its_keys() -> None:
    """In French the buy question with its keys is 64 characters, two more than the board's
    middle: it used to lose "(d)" at the right edge; it now takes a second row above it."""
    from lanopoly.console import board_view

    table = LocalTable(["ann", "bea"], me=0, seed=0, lang="fr", board="paris")
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    table.act({"type": "roll", "player": 0})
    table.act(dice(3, 5))  # to Rue de Courcelles, for sale
    app = ConsoleApp(table, delay=0, input=None, output=Terminal())
    question = app.decision()
    assert question == "Acheter Rue de Courcelles pour 100 € ? acheter / refuser"
    rows = ["".join(text for _, text, *_ in line) for line in app._middle()]
    assert len(rows) == 9 and all(len(row) <= board_view.MIDDLE for row in rows)
    assert " ".join(row.strip() for row in rows[-2:]).endswith(question)  # on one row now: its keys went


def test_an_auction_shows_the_lot_who_is_still_in_the_leader_and_what_the_person_may_bid() -> None:
    """Issue 14, "Auctions on screen": ann declines Vermont Avenue; the middle of the board shows
    its printed price, the bidders still in with the leader's bid, and ann's cash and bid range;
    once ann passes it says she is out (in French too)."""
    table = LocalTable(["ann", "bea", "cy"], me=0, seed=0)
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    table.act(dice(1, 1))
    table.act({"type": "roll", "player": 0})
    table.act(dice(3, 5))  # to Vermont Avenue
    table.act({"type": "decline", "player": 0})
    table.act({"type": "bid", "player": 0, "amount": 20})
    table.act({"type": "bid", "player": 1, "amount": 50})
    app = ConsoleApp(table, delay=0, input=None, output=Terminal())

    def middle() -> list[str]:
        return ["".join(text for _, text, *_ in line).rstrip() for line in app._middle()]

    assert middle()[-4:] == [
        " Vermont Avenue: printed price $100",
        " still in: ann, bea ($50), cy",
        " you: cash $1500, a bid from $51 to $1500",
        " Auction of Vermont Avenue: $50 by bea. bid N / pass",
    ]
    table.act({"type": "bid", "player": 2, "amount": 60})
    table.act({"type": "pass", "player": 0})
    assert table.game.auction is not None, "bea and cy still in"
    table.lang = "fr"
    assert middle()[-3:-1] == [" encore en lice : bea, cy (60 $)", " vous êtes sorti de cette enchère"]


def test_in_the_speed_game_a_deeds_card_has_no_line_for_a_fourth_house() -> None:
    """The speed game puts a hotel on 3 houses: Baltic Avenue's card listed "with 4 houses $320",
    a rent nobody can ever be charged. Its rows are now the levels the rules allow: 1 to 3 houses,
    then the hotel, which 3 houses and $50 buy."""
    table = LocalTable(["ada", "bea"], me=0, seed=1, rules=Rules.preset("speed"))
    while not table.my_move:
        table.step()
    (card,) = drive(table, [("info baltic\r", shows("Baltic Avenue", "mortgage value"))])
    rows = [line.strip() for line in card]
    assert [row.split("  ")[0] for row in rows if row.startswith("with")] == [
        "with 1 house",
        "with 2 houses",
        "with 3 houses",
        "with a hotel",
    ], "\n".join(card)
    assert "houses $50 each; a hotel: 3 houses + $50" in rows, "\n".join(card)


def test_in_the_speed_game_the_info_line_in_the_log_has_no_fourth_house_either() -> None:
    """The card was fixed, but the line ``info`` writes in the log still listed the 4-house rent
    ($320) of Baltic Avenue in the speed game: both now list the levels the rules allow
    (``deed_card.rent_levels``)."""
    table = LocalTable(["ada", "bea"], me=0, seed=1, rules=Rules.preset("speed"))
    while not table.my_move:
        table.step()
    _, log = drive(table, [("info baltic\r", shows("mortgage value")), (ESC, shows("Baltic Avenue: price"))])
    line = next(line for line in table.lines if line.startswith("  rent $4"))
    assert "houses $20, $60, $180, hotel $450" in line, line
    assert "$320" not in "\n".join(log), "\n".join(log)


def _mortgaged(lang: str, board: str) -> LocalTable:
    """ada holds squares 1 and 32 (Paris: Boulevard de Belleville, Avenue Foch; classic:
    Mediterranean Avenue, Pacific Avenue) and 12, all mortgaged; bea holds 5 and 15 and 28."""
    table = LocalTable(["ada", "bea"], me=0, seed=1, lang=lang, rules=Rules(starting_deeds=3), board=board)
    for square in (1, 5, 32, 15, 12, 28):  # dealt to ada, bea, ada, bea, ...
        table.act({"type": "deed", "square": square})
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    for square in (1, 32, 12):
        table.act({"type": "mortgage", "player": 0, "square": square})
    return table


def test_mortgaged_agrees_with_the_deed_s_name_in_french_and_italian() -> None:
    """ "Avenue Foch (hypothéqué)": the word agreed with no name. A deed whose name is feminine
    (its head word: "avenue", "rue", "place", "gare", "compagnie"...; the catalogs'
    ``gender.feminine``) now reads "hypothéquée", "ipotecata"; the others keep the masculine."""
    portfolio, card = drive(
        _mortgaged("fr", "paris"),
        [("portefeuille\r", shows("Portefeuille")), ("titre foch\r", shows("loyer actuel"))],
    )
    text = "\n".join(portfolio)
    assert "Boulevard de Belleville (hypothéqué)" in text, text
    assert "Avenue Foch (hypothéquée)" in text, text
    assert "Compagnie d\u2019électricité (hypothéquée)" in text, text
    assert " loyer actuel : aucun (hypothéquée)" in card, "\n".join(card)
    assert " valeur hypothécaire 150 € ; HYPOTHÉQUÉE" in card, "\n".join(card)
    (italian,) = drive(_mortgaged("it", "classic"), [("portafoglio\r", shows("Portafoglio"))])
    text = "\n".join(italian)
    assert "Mediterranean Avenue (ipotecata)" in text and "Electric Company (ipotecata)" in text, text
    (english,) = drive(_mortgaged("en", "paris"), [("portfolio\r", shows("portfolio"))])
    assert "Avenue Foch (mortgaged)" in "\n".join(english), "\n".join(english)


def test_the_log_s_kept_mortgaged_line_agrees_too() -> None:
    """The log's sentence of a mortgaged deed kept after a trade: "garde Avenue Foch hypothéquée"."""
    game = _mortgaged("fr", "paris").game
    kept = {"type": "kept_mortgaged", "player": 0, "square": 32, "amount": 15}
    assert describe(game, kept, lang="fr") == "ada garde Avenue Foch hypothéquée et paie les 10 % de frais, 15 €."
    assert describe(game, {**kept, "square": 1}, lang="it") == (
        "ada tiene Boulevard de Belleville ipotecato e paga il 10% (15 €)."
    )


def test_a_french_auction_at_80x24_keeps_the_printed_price_when_the_bidders_take_two_rows() -> None:
    """Found in the French tmux run at 80x24 (four players, long token names): ada declines Rue de
    Courcelles and the auction's bidders took two rows, so the lot's printed price was left out.
    Short of room, the bidders' line now goes first (the decision names the leader)."""
    table = LocalTable(["ada", "chapeau haut-de-forme", "voiture", "cuirassé"], me=0, seed=0, lang="fr", board="paris")
    table.act(dice(6, 6))
    for _ in range(3):
        table.act(dice(1, 2))
    table.act({"type": "roll", "player": 0})
    table.act(dice(3, 5))  # to Rue de Courcelles
    (screen,) = drive(table, [("refuser\r", shows("Enchères pour Rue de Courcelles"))])
    middle = [line[11:70].strip() for line in screen[2:11]]
    assert "Rue de Courcelles : prix imprimé 100 €" in middle, "\n".join(screen)
    assert "vous : argent 1500 €, une enchère de 1 € à 1500 €" in middle, "\n".join(screen)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_at_120x40_the_buy_question_shows_the_deeds_rent_table_in_the_middle(lang: str) -> None:
    """Found in the tmux run at 120x40: asked to buy Vermont Avenue, the person saw the price and
    no rent table though the large ring's middle had rows to spare. Its card (less the owner and
    the rent now, the bank's) now shows there, above the status and the question, and in the
    auction when she declines; at 80x24 the middle has no room for it."""
    table = LocalTable(["ada", "bea", "cy", "dee"], me=0, seed=0, lang=lang)
    table.act(dice(6, 6))
    for _ in range(3):
        table.act(dice(1, 2))
    table.act({"type": "roll", "player": 0})
    table.act(dice(3, 5))  # to Vermont Avenue
    assert table.game.buy_square == 8
    house = deed_card.card_lines(table.game, 8, lang)[4]
    row = "".join(text for _, text, *_ in house).strip()  # "with 1 house   $30"
    question = t(lang, "dec.buy", square=table.game.square(8)["name"], price=money(lang, table.game.currency, 100))
    (small,) = drive(table, [("", shows(question.split("?")[0]))])
    assert " ".join(row.split()) not in " ".join("\n".join(small[:13]).split())
    # She declines: in the auction she is in, the card stays, with the auction's three lines.
    decline = t(lang, "alias.decline").split()[0]
    price = t(lang, "auction.lot", lot=table.game.square(8)["name"], price=money(lang, table.game.currency, 100))
    large, auction = drive(
        table, [("", shows(question.split("?")[0])), (decline + "\r", shows(price))], columns=120, rows=40
    )
    for screen in (large, auction):
        middle = "\n".join(screen[2:21])
        assert " ".join(row.split()) in " ".join(middle.split()), middle
        assert t(lang, "card.owner", owner=t(lang, "party.bank")) not in middle
    mine = t(lang, "auction.you", cash=money(lang, "$", 1500), least=money(lang, "$", 1), most=money(lang, "$", 1500))
    assert mine in "\n".join(auction[2:21]), "\n".join(auction)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_with_8_players_at_120x40_the_buy_question_shows_a_compact_card(lang: str) -> None:
    """Left by the last pass: with 8 players' lines the large ring's middle had a row too few for
    the deed's card, and showed none. The card now shows compact, its rent table in two columns
    (6 rents on 3 rows), above the question, which is still there."""
    table = LocalTable(["ada", "bea", "cy", "dee", "eve", "fay", "gus", "hal"], me=0, seed=0, lang=lang)
    table.act(dice(6, 6))
    for _ in range(7):
        table.act(dice(1, 2))
    table.act({"type": "roll", "player": 0})
    table.act(dice(3, 5))  # to Vermont Avenue
    assert table.game.buy_square == 8
    cash = table.game.currency
    question = t(lang, "dec.buy", square=table.game.square(8)["name"], price=money(lang, cash, 100))
    (screen,) = drive(table, [("", shows(question.split("?")[0]))], columns=120, rows=40)
    middle = [" ".join(line[18:100].split()) for line in screen[2:21]]
    rent, one = t(lang, "card.rent"), plural(lang, "card.with_houses", 1)
    assert f"{rent} {money(lang, cash, 6)} {one} {money(lang, cash, 30)}" in middle, "\n".join(screen)
    hotel = f"{t(lang, 'card.with_hotel')} {money(lang, cash, 550)}"
    assert any(row.endswith(hotel) for row in middle), "\n".join(screen)
    assert any(question.split("?")[0] in row for row in middle), "\n".join(screen)
