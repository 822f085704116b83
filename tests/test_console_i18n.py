"""The console's languages: every text in every language, the locale, French games on the Paris board."""

from __future__ import annotations

import asyncio
import re
import string

import pytest
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from conftest import started
from lanopoly import Game, IllegalAction
from lanopoly.__main__ import main
from lanopoly.bots import SimpleBot
from lanopoly.catalog import load
from lanopoly.console import ConsoleApp, Setup
from lanopoly.console import table_for as make_table
from lanopoly.console.board_view import render
from lanopoly.console.commands import COMMANDS, CommandError, help_text, parse
from lanopoly.console.completion import CommandCompleter
from lanopoly.describe import describe
from lanopoly.i18n import ALIASES, LANGUAGES, TOKENS, default_board, detect, has, money, normalize, t


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_command_has_its_help_text():
    """(That every catalog has every text, with the same fields, is tests/test_catalogs.py's.)"""
    for name, _, _ in COMMANDS:
        assert has(f"cmd.{name}"), name


def _texts(lang: str) -> dict[str, str]:
    """Each text of the console catalog of ``lang`` (a counted one in its plural form)."""
    catalog = load(lang, "console")
    assert catalog is not None
    return {key: entry.forms[-1] for key, entry in catalog.entries.items()}


def test_other_languages_are_translated_not_copied():
    english = _texts("en")
    for lang in ("fr", "it", "no"):
        texts = _texts(lang)
        # the Paris edition's deed names on the large ring (ring.paris.*) are its French ones in every language;
        # Norwegian names the keys as the keycaps and English do (PgUp/PgDn)
        keycaps = {"trade.cash_keys"} if lang == "no" else set()
        same = [
            k
            for k, v in english.items()
            if texts[k] == v
            and _fields(v) != {"text"}
            and len(v) > 12
            and not k.startswith("ring.paris.")
            and k not in keycaps
        ]
        assert not same, (lang, same)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lan_save_notices_name_the_start_screen_keys_in_80_columns(lang):
    """The notice in the log that a LAN game is saved, and the farewell printed when the console
    closes on it, say how to take it up again from the start screen (F4 rejoins, F5 resumes) and
    from a shell, in lines of 80 columns (but for the lines holding the file's path)."""
    notice = t(lang, "net.saving").splitlines()
    assert len(notice) == 2 and all(len(line) <= 80 for line in notice), notice
    assert "F4" in " ".join(notice) and "lanopoly rejoin" in " ".join(notice)
    path = "/home/ann/.local/share/lanopoly/games/0123456789abcdef.json"
    farewell = t(lang, "net.saved_at", path=path).splitlines()
    assert all(len(line) <= 80 for line in farewell if path not in line), farewell
    text = " ".join(farewell)
    assert "F4" in text and "F5" in text
    assert f"  lanopoly rejoin {path}" in farewell and f"  lanopoly resume {path}" in farewell


_ARGUMENTS = {
    "bid": "120",
    "selldown": "boardwalk 1 2",
    "trade": "car give $5 for baltic",
    "accept": "car",
    "reject": "2",
}


def test_tokens_and_aliases():
    assert TOKENS["en"] == Game(8).names
    assert TOKENS["fr"] == Game(8, board="paris").names  # the engine's Paris edition names them so
    for lang in LANGUAGES:
        assert len(set(TOKENS[lang])) == 8
    english = {name for name, _, _ in COMMANDS} | {a for _, aliases, _ in COMMANDS for a in aliases}
    game = started(3)
    args_of = {name: args for name, _, args in COMMANDS}
    for lang, aliases in ALIASES.items():
        for alias, name in aliases.items():
            assert name in english and (alias not in english or (lang, alias) in SHADOWING), (lang, alias)
            rest = _ARGUMENTS.get(name, "boardwalk" if args_of[name] else "")
            assert parse(game, 0, f"{alias} {rest}", lang) == parse(game, 0, f"{name} {rest}"), (lang, alias)
    assert parse(game, 0, "lancer", "fr") == {"type": "roll", "player": 0}
    assert parse(game, 0, "acheter", "fr") == {"type": "buy", "player": 0}
    assert parse(game, 0, "hypothéquer boardwalk", "fr") == {"type": "mortgage", "player": 0, "square": 39}
    assert parse(game, 0, "tira", "it") == {"type": "roll", "player": 0}
    assert parse(game, 0, "kjøp", "no") == parse(game, 0, "kjop", "no") == {"type": "buy", "player": 0}
    assert parse(game, 0, "roll", "no") == {"type": "roll", "player": 0}  # English words work everywhere
    with pytest.raises(CommandError, match="unknown command"):
        parse(game, 0, "lancer")  # French words only in French
    with pytest.raises(CommandError, match="commande inconnue"):
        parse(game, 0, "danser", "fr")
    with pytest.raises(CommandError, match="enchérir de combien"):
        parse(game, 0, "bid beaucoup", "fr")
    assert "lancer les dés" in help_text("fr") and "(lancer, r)" in help_text("fr")


SHADOWING = {("it", "fine")}
"""A language's words that are also English command words, where the language's meaning wins."""


def test_an_italian_fine_ends_the_turn_as_the_f5_hint_says():
    """The Italian F5 hint reads "fine turno", so a newcomer types "fine": it paid the jail fine
    (the English word), and the refusal spoke of jail. In Italian "fine" now ends the turn;
    "multa" pays the fine, and the help and the completion no longer offer "fine" for the fine."""
    game = started(3)
    assert parse(game, 0, "fine", "it") == {"type": "end_turn", "player": 0}
    assert parse(game, 0, "multa", "it") == parse(game, 0, "fine", "en") == {"type": "pay_jail_fine", "player": 0}
    assert parse(game, 0, "fine", "fr") == {"type": "pay_jail_fine", "player": 0}  # English words elsewhere
    rows = {row.split()[0]: row for row in help_text("it").splitlines()}
    assert "fine" not in rows and "paga la multa" in rows["multa"] and "fine" in rows["end"], rows
    table = make_table(Setup(lang="it"))
    offered = [(c.text, c.display_meta_text) for c in CommandCompleter(table).get_completions(Document("fin"), None)]
    assert offered == [("fine", t("it", "cmd.end"))], offered


def _events(game: Game) -> list[dict[str, object]]:
    """At least one event of every kind the engine sends, with every variant of its wording."""
    me, bank = {"player": 0}, "bank"
    reasons = [k.split(".", 1)[1] for k in _texts("en") if k.startswith("reason.")]
    events: list[dict[str, object]] = [
        {"type": "payment", "from": me, "to": to, "amount": 50, "reason": r}
        for r in reasons
        for to in (bank, "jackpot")
    ]
    events += [
        {"type": "order_roll", "player": 0, "total": 7},
        {"type": "first_player", "player": 1},
        {"type": "deed_dealt", "player": 1, "square": 39},
        {"type": "rolled", "player": 0, "dice": [3, 3]},
        {"type": "rolled", "player": 0, "dice": [3, 4]},
        {"type": "moved", "player": 0, "from": 3, "to": 10},
        {"type": "moved", "player": 0, "from": 3, "to": 11},
        {"type": "passed_go", "player": 0},
        {"type": "card_drawn", "player": 0, "deck": "chance", "card": 0},
        {"type": "card_drawn", "player": 0, "deck": "community_chest", "card": 1},
        {"type": "went_to_jail", "player": 0},
        *({"type": "left_jail", "player": 0, "how": how} for how in ("fine", "card", "double", "third_failure")),
        {"type": "stayed_in_jail", "player": 0, "attempts": 2},
        {"type": "bought", "player": 0, "square": 39},
        {"type": "declined", "player": 0, "square": 39},
        {"type": "auction_started", "square": 39},
        {"type": "shortage_auction_started", "hotel": True},
        {"type": "shortage_auction_started", "hotel": False},
        {"type": "bid", "player": 1, "amount": 120},
        {"type": "passed_auction", "player": 1},
        {"type": "auction_won", "player": 1, "square": 39, "price": 120},
        {"type": "shortage_auction_won", "player": 1, "hotel": True, "price": 20},
        {"type": "shortage_auction_won", "player": 1, "hotel": False, "price": 20},
        {"type": "auction_unsold", "square": 39},
        *({"type": "built", "player": 0, "square": 39, "level": n} for n in (1, 3, 5)),
        *({"type": "sold_building", "player": 0, "square": 39, "level": n} for n in (0, 1, 4)),
        {"type": "mortgaged", "player": 0, "square": 39},
        {"type": "unmortgaged", "player": 0, "square": 39},
        {"type": "kept_mortgaged", "player": 0, "square": 39},
        {"type": "rent_due", "owner": 0, "payer": 1, "square": 39, "amount": 50},
        {"type": "rent_lapsed", "owner": 0, "payer": 1, "square": 39},
        {"type": "debt_owed", "debtor": 1, "creditor": me, "amount": 50},
        {"type": "trade_proposed", "offer": {"from": 0, "to": 1, "give": {}, "get": {}}},
        {"type": "trade_accepted", "from": 0, "to": 1, "give": {}, "get": {}},
        {"type": "trade_rejected", "from": 0, "to": 1},
        {"type": "trade_cancelled", "from": 0},
        {"type": "property_transferred", "from": 0, "to": 1, "square": 39},
        {"type": "property_transferred", "from": 0, "to": None, "square": 39},
        {"type": "bankrupt", "player": 1, "creditor": bank},
        {"type": "turn_started", "player": 0, "round": 0},
        {"type": "game_over", "winner": 0},
    ]
    return events


@pytest.mark.parametrize("board", ["classic", "paris"])
def test_every_event_has_a_sentence_in_every_language(board):
    game = started(3, board=board)
    for event in _events(game):
        english = describe(game, event, payments=True)
        assert english == describe(game, event, payments=True, lang="en")
        for lang in LANGUAGES:
            line = describe(game, event, payments=True, lang=lang)
            assert isinstance(line, str) and line, (lang, event)
            assert not line.startswith(f"{event['type']}:") and "{" not in line, (lang, line)
            if lang != "en" and event["type"] not in ("rolled", "passed_auction", "deed_dealt"):
                assert line != english, (lang, line)
    assert describe(game, {"type": "turn_ended", "player": 0}, lang="fr") is None


def test_english_sentences_are_unchanged():
    game = started(3)
    assert describe(game, {"type": "bought", "player": 0, "square": 39}) == "dog buys Boardwalk for $400."
    assert describe(game, {"type": "built", "player": 0, "square": 39, "level": 1}) == (
        "dog builds on Boardwalk: now 1 house."
    )
    paris = started(3, board="paris")
    event = {"type": "bought", "player": 0, "square": 39}
    assert describe(paris, event) == "chien buys Rue de la Paix for €400."
    assert describe(paris, event, lang="fr") == "chien achète Rue de la Paix pour 400 €."
    assert describe(paris, event, lang="it") == "chien compra Rue de la Paix per 400 €."
    assert describe(paris, event, lang="no") == "chien kjøper Rue de la Paix for 400 €."
    assert money("en", "$", 5) == "$5" and money("fr", "€", 5) == "5 €"


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "it_IT.UTF-8"}, "it"),
        ({"LANG": "nb_NO.UTF-8"}, "no"),
        ({"LANG": "nn_NO"}, "no"),
        ({"LANG": "no_NO"}, "no"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({"LANG": "fr_CA.UTF-8", "LC_MESSAGES": "it_IT.UTF-8"}, "it"),
        ({"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "it_IT", "LC_ALL": "nb_NO.UTF-8"}, "no"),
        ({"LANG": "fr_FR.UTF-8", "LC_ALL": ""}, "fr"),
        ({"LANG": "en_GB.UTF-8", "LC_ALL": "fr_BE@euro"}, "fr"),
    ],
)
def test_the_language_comes_from_the_locale(environ, lang):
    assert detect(environ) == lang


def test_languages_bring_their_board():
    assert default_board("fr") == "paris"
    assert [default_board(lang) for lang in ("en", "it", "no")] == ["classic"] * 3
    assert normalize("fr-FR") == "fr" and normalize("xx") is None


@pytest.fixture
def chosen(monkeypatch):
    """What `lanopoly` would start the console with (the console itself is not run)."""
    calls: list[tuple[Setup, bool]] = []

    def fake(
        setup: Setup, *, ask: bool, seed: int | None = None, rounds: int = 0, delay: float = 0.3, notice: str = ""
    ) -> int:
        calls.append((setup, ask))
        return 0

    monkeypatch.setattr("lanopoly.console.play_console", fake)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    return calls


def test_the_command_line_picks_language_board_and_start_screen(chosen, monkeypatch):
    assert main(["play", "--players", "3"]) == 0
    assert chosen[-1] == (Setup(bots=2, board="classic", lang="en"), False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert main(["play"]) == 0
    assert chosen[-1] == (Setup(board="paris", lang="fr"), True)  # no --players: the start screen
    assert main(["play", "--lang", "it", "--name", "ada", "--difficulty", "easy"]) == 0
    assert chosen[-1] == (Setup(name="ada", difficulty="easy", board="classic", lang="it"), True)
    assert main(["--lang", "fr", "--board", "classic", "--players", "2", "play"]) == 0
    assert chosen[-1] == (Setup(bots=1, board="classic", lang="fr"), False)
    assert main(["play", "--players", "2", "--difficulty", "hard"]) == 0
    assert chosen[-1] == (Setup(bots=1, difficulty="hard", board="paris", lang="fr"), False)


def test_a_french_game_speaks_french_on_the_paris_board():
    table = make_table(Setup(lang="fr", board=default_board("fr")), seed=2)
    app = ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    assert app.feedback[1].startswith("« aide »")
    assert table.game.board == "paris" and table.game.currency == "€"
    assert table.game.names == ["chien", "chapeau haut-de-forme", "voiture", "cuirassé"]
    while not table.my_move:
        table.step()
    assert any(line.endswith("pour le premier tour.") for line in table.lines), table.lines
    assert any(line.startswith("-- Tour 1 : à ") for line in table.lines), table.lines
    assert app.decision() == "À vous : lancer"
    board = "".join(text for _, text in render(table.game, 0, app._middle(), "fr"))
    assert "Paix" in board and "Cham" in board and "Boar" not in board
    assert "PARC" in board and "FREE" not in board
    assert "1 chien" in board and "1500 €" in board and " 0 titre " in board
    app.execute("danser")
    assert app.feedback == ("class:error", "commande inconnue 'danser' ; tapez « aide » pour la liste")
    app.execute("info rue de la paix")
    assert table.lines[-2] == "Rue de la Paix : prix 400 €, appartient à la banque"
    app.execute("aide")
    assert "Commandes :" in table.lines and app.feedback[1] == t("fr", "help.where")
    assert table.lines[-1].startswith("Le plateau : près de chaque case, le numéro de son propriétaire")
    before = len(table.lines)
    app.execute("lancer")
    assert app.feedback == ("class:hint", "ok : lancer")
    table.step()  # the dice
    assert table.lines[before].startswith("chien lance ")
    with pytest.raises(IllegalAction):
        table.act({"type": "roll", "player": 1})


@pytest.mark.parametrize("lang", ["it", "no"])
def test_italian_and_norwegian_games_keep_the_classic_board(lang):
    table = make_table(Setup(lang=lang, board=default_board(lang)), seed=3)
    app = ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    while not table.my_move:
        table.step()
    assert table.game.board == "classic"
    assert table.game.names[0] == TOKENS[lang][0]
    assert app.decision() == t(lang, "dec.roll", extra="")
    assert any(line.startswith(t(lang, "ev.turn_started", round=1, player="", cash="")[:6]) for line in table.lines)


def test_an_italian_log_names_no_square_and_reads_no_card_in_english():
    """Bots play every seat of an Italian game (the person's too) for 120 turns: the log names the
    squares that are no deeds and reads the cards in Italian, never as the classic edition prints them."""
    table = make_table(Setup(lang="it", board="classic"), seed=5)
    ConsoleApp(table, delay=0, input=None, output=DummyOutput())
    game, me = table.game, SimpleBot()
    while game.turn < 120 and not table.over:
        if not table.step() and table.my_move:
            table.act(dict(me.choose(game, 0, game.legal_actions(0))))
    log = "\n".join(table.lines)
    english_squares = {game.square(s)["name"] for s in range(40) if "price" not in game.square(s)}
    english_cards = {game.card_text(deck, card) for deck in ("chance", "community_chest") for card in range(16)}
    assert english_squares >= {"Chance", "Community Chest", "Free Parking", "Luxury Tax", "Go To Jail"}
    assert [name for name in english_squares if re.search(rf"\b{re.escape(name)}\b", log)] == []
    assert [text for text in english_cards if text in log] == []
    assert "pesca Imprevisti: " in log and "pesca Probabilità: " in log  # cards were drawn
    assert " va su Imprevisti." in log or " va su Probabilità." in log


JAIL_CARD = {
    "en": "get-out-of-jail",
    "fr": "« libéré de prison »",
    "it": "«uscite gratis di prigione»",
    "no": "løslatelseskort",
}
"""The name of the get-out-of-jail card in each language (the card's own words in French and Italian)."""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_jail_card_has_one_name_in_each_language(lang):
    """The help, the portfolio, the trade panel and the engine's refusal call the card by the same
    name: the Italian help said «uscite gratis di prigione», the panel "carta esci di prigione";
    the French help « libéré de prison », the panel "carte de sortie de prison" (found playing at 120x40)."""
    name = JAIL_CARD[lang]
    texts = [t(lang, "cmd.card"), t(lang, "pf.cards", cards="x"), t(lang, "trade.card.chance")]
    texts += [t(lang, "trade.card.community_chest"), _refusal(lang, 'you have no "get out of jail" card')]
    assert all(name in text for text in texts), texts


def _refusal(lang: str, template: str) -> str:
    """The engine's refusal ``template`` as the language's catalog says it."""
    catalog = load(lang, "refusals")
    assert catalog is not None
    text = catalog.text(template, None)
    assert text is not None, template
    return text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_tokens_name_shows_whole_in_the_middle_of_the_80x24_board(lang: str) -> None:
    """At 80x24 the players' lines cut a name at 14 characters: the French "chapeau haut-de-forme"
    showed as "chapeau haut-d". With all eight tokens at the table (official rules, the language's
    board), each name shows whole on the screen the application draws, its cash after it."""
    from screen import Terminal, screen_lines, wait_for

    table = make_table(Setup(lang=lang, bots=7, board=default_board(lang)), seed=2)
    while not table.my_move:
        table.step()
    table.act({"type": "roll", "player": 0})
    while table.game.is_chance_node:
        table.step()

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=30, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            lines = await wait_for(app.app, lambda shown: shown[0].strip() != "")
            pipe.send_text("\x11")  # Ctrl-Q
            await asyncio.wait_for(running, 10)
            return lines if lines[0].strip() else screen_lines(app.app)

    screen = asyncio.run(run())
    middle = screen[2:10]
    for seat, token in enumerate(TOKENS[lang]):
        row = next((line for line in middle if f"{seat + 1} {token} " in line), None)
        assert row is not None, (token, "\n".join(middle))
        assert re.search(rf"{seat + 1} {re.escape(token)} +[0-9$]", row) and len(row) <= 80, row


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_function_key_is_answered_with_the_languages_command_word(lang: str) -> None:
    """Found in the French tmux run: F6 (claim) answered "ok : claim", F2 "ok : roll", the English
    words under a French game. The answer now names the command in the game's language."""
    from screen import Terminal, wait_for

    table = make_table(Setup(lang=lang, bots=1, board=default_board(lang)), seed=2)
    while not table.my_move:
        table.step()
    word = next((alias for alias, name in ALIASES[lang].items() if name == "roll"), "roll")

    said: list[str] = []

    async def run() -> None:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=30, input=pipe, output=Terminal(80, 24))
            say = app.say
            app.say = lambda style, text, **how: (said.append(text), say(style, text, **how))[1]  # type: ignore[method-assign]
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda shown: shown[0].strip() != "")
            pipe.send_text("\x1bOQ")  # F2: roll
            await wait_for(app.app, lambda shown: bool(said))
            pipe.send_text("\x11")  # Ctrl-Q
            await asyncio.wait_for(running, 10)

    asyncio.run(run())
    assert said[:1] == [t(lang, "ok", text=word)], said


@pytest.mark.parametrize(("lang", "board"), [("fr", "paris"), ("en", "classic"), ("it", "classic")])
def test_host_and_play_take_the_same_board_for_a_language(monkeypatch, lang, board):
    """Found in the French tmux run: `lanopoly host` opened a lobby on the classic board while
    `lanopoly play` (and `play --host`) used Paris. Both take the language's board, unless
    --board says otherwise."""
    import lanopoly.__main__ as cli

    calls: list[Setup] = []
    monkeypatch.setattr("lanopoly.console.play_console", lambda setup, **_: calls.append(setup) or 0)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    for argv in (["host", "--lang", lang], ["play", "--lang", lang, "--host", "--players", "3"]):
        assert cli.run(cli.parse(argv), interactive=True) == 0
    assert [(s.mode, s.board) for s in calls] == [("host", board), ("host", board)]
    assert cli.run(cli.parse(["host", "--lang", lang, "--board", "classic"]), interactive=True) == 0
    assert calls[-1].board == "classic"
