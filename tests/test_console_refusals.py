"""The engine's refusals in the player's language.

Every refusal the engine can produce is made from a template in its sources (``deny!``,
``ensure!``, ``within``); each language must translate every one of them with the same fields
(no silent fallback to English). Then refusals typed in the real application read in French,
name players and amounts as the game shows them, and change nothing.
"""

from __future__ import annotations

import asyncio
import re
import string

import pytest
from prompt_toolkit.input import create_pipe_input

from conftest import REPO, dice
from lanopoly import IllegalAction, Rules
from lanopoly.catalog import load
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.i18n import LANGUAGES
from lanopoly.refusals import explain
from screen import Terminal, wait_for

_CALL = re.compile(r'\b(?:deny|ensure)!\((?:[^"]*?)"((?:[^"\\]|\\.)*)"')
_WITHIN = re.compile(r'\.(?:within|wrap)\("((?:[^"\\]|\\.)*)"\)')


def engine_templates() -> set[str]:
    """The templates of every refusal in the engine's sources."""
    found: set[str] = set()
    for path in sorted((REPO / "rust_core" / "engine" / "src").glob("*.rs")):
        if path.name == "error.rs":  # the macros themselves, and their examples
            continue
        text = path.read_text()
        found |= {m.group(1).replace('\\"', '"') for m in _CALL.finditer(text)}
        found |= {m.group(1) for m in _WITHIN.finditer(text)}
    return found


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_the_scan_finds_the_engine_refusals():
    templates = engine_templates()
    assert len(templates) > 80
    assert "you do not own {square}" in templates
    assert "the offer no longer holds: {cause}" in templates


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_is_translated_with_the_same_fields(lang):
    templates = engine_templates()
    catalog = load(lang, "refusals")
    assert catalog is not None
    table = {code: entry.forms[0] for code, entry in catalog.entries.items() if entry.context is None}
    feminine = {entry.msgid: entry.forms[0] for entry in catalog.entries.values() if entry.context is not None}
    assert {entry.context for entry in catalog.entries.values()} <= {None, "feminine"}
    assert sorted(feminine.keys() - table.keys()) == [], "feminine forms of templates without a plain one"
    assert all("{square}" in code for code in feminine), "a feminine form agrees with a deed"
    for code, text in feminine.items():
        assert fields(text) == fields(table[code]), (code, text)
    assert sorted(templates - table.keys()) == [], "refusals without a translation"
    assert sorted(table.keys() - templates) == [], "translations of refusals the engine no longer has"
    for code, text in table.items():
        assert fields(text) <= fields(code), (code, text)
        if lang != "en":
            assert text != code or not re.search("[a-z]{4}", code), f"{lang}: {code!r} left in English"


def test_the_engine_error_carries_its_template_and_fields():
    table = LocalTable(["ada", "bea"], me=0, seed=0)
    table.act(dice(6, 6))
    table.act(dice(1, 2))  # ada starts
    with pytest.raises(IllegalAction) as refused:
        table.act({"type": "roll", "player": 1})
    error = refused.value
    assert str(error) == "it is seat 0's turn"
    assert (error.code, dict(error.fields)) == ("it is seat {seat}'s turn", {"seat": "0"})
    assert explain(error, table.game, "fr") == "c'est à ada de jouer"
    assert explain(error, table.game, "en") == "it is ada's turn"


def test_a_wrapped_refusal_is_explained_with_its_cause():
    """bea offers $1400 for Baltic Avenue, then spends money: accepting is refused, and why."""
    table = LocalTable(["ada", "bea"], me=0, seed=0)
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 2))  # ada to Baltic Avenue
    table.act({"type": "buy", "player": 0})
    offer = {"properties": [], "cash": 1500, "jail_cards": []}
    table.act({"type": "propose_trade", "player": 1, "to": 0, "give": offer, "get": {"properties": [3]}})
    table.act({"type": "end_turn", "player": 0})
    table.act({"type": "roll", "player": 1})
    table.act(dice(1, 2))  # bea lands on ada's Baltic Avenue
    table.act({"type": "claim_rent", "player": 0, "square": 3})  # and pays her $4 rent: $1496 left
    before = table.game.state_hash()
    with pytest.raises(IllegalAction) as refused:
        table.act({"type": "accept_trade", "player": 0, "from": 1})
    assert table.game.state_hash() == before
    error = refused.value
    assert error.code == "the offer no longer holds: {cause}"
    assert isinstance(error.__cause__, IllegalAction)
    assert explain(error, table.game, "fr") == "l'offre ne tient plus : bea n'a que 1496 $ en liquide"
    assert explain(error, table.game, "no") == "tilbudet gjelder ikke lenger: bea har bare 1496 $ i kontanter"


def test_a_refused_command_reads_in_french_and_changes_nothing():
    """In the real application on a pipe, at 80x24: French refusals for typed commands, with the
    board's names and euros; the game is unchanged."""
    table = LocalTable(["chien", "chat"], me=0, board="paris", rules=Rules(), seed=0, lang="fr")

    async def session() -> list[list[str]]:
        screens = []
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal())
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("À vous : lancer" in line for line in lines))
            before = table.game.state_hash()
            for command, shown in [
                ("construire rue de la paix", "vous ne possédez pas Rue de la Paix"),
                ("fin", "lancez d'abord les dés"),
                ("payer", "vous ne devez rien"),
                ("encherir 10", "il n'y a pas d'enchère"),
            ]:
                pipe.send_text(command + "\r")
                screens.append(await wait_for(app.app, lambda lines, shown=shown: any(shown in line for line in lines)))
                assert table.game.state_hash() == before
                assert app.feedback == ("class:error", shown)
            pipe.send_text("quitter\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
        return screens

    screens = asyncio.run(session())
    assert any("vous ne possédez pas Rue de la Paix" in line for line in screens[0])


def test_a_malformed_move_the_parser_lets_through_is_shown_not_raised():
    """Five levels for a group of two streets is a bad argument (ValueError, not a refusal of the
    rules): the application shows why on the message line and the game is unchanged."""
    table = LocalTable(["ada", "bea"], me=0, seed=0)

    async def session() -> None:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal())
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("roll" in line for line in lines))
            before = table.game.state_hash()
            pipe.send_text("selldown boardwalk 1 2 3 4\r")
            shown = "a colour group has at most 3 streets"
            await wait_for(app.app, lambda lines: any(shown in line for line in lines))
            assert app.feedback == ("class:error", shown)
            assert table.game.state_hash() == before
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0

    asyncio.run(session())


def test_a_refusal_agrees_with_the_deed_s_name():
    """ "Avenue Foch est déjà hypothéquée" but "Boulevard de Belleville est déjà hypothéqué": the
    catalogs' ``msgctxt "feminine"`` form is taken for a deed whose name is feminine (Italian too);
    English and Norwegian have one form."""
    table = LocalTable(["ada", "bea"], me=0, seed=1, rules=Rules(starting_deeds=2), board="paris")
    for square in (1, 5, 32, 15):  # dealt to ada, bea, ada, bea: ada holds 1 and 32, bea 5 and 15
        table.act({"type": "deed", "square": square})
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    for square in (1, 32):
        table.act({"type": "mortgage", "player": 0, "square": square})
    said: dict[tuple[str, str], str] = {}
    for move, square in [("mortgage", 1), ("mortgage", 32), ("unmortgage", 5)]:
        with pytest.raises(IllegalAction) as refused:
            table.act({"type": move, "player": 0 if move == "mortgage" else 1, "square": square})
        for lang in ("fr", "it", "en"):
            said[lang, f"{move} {square}"] = explain(refused.value, table.game, lang)
    assert said["fr", "mortgage 1"] == "Boulevard de Belleville est déjà hypothéqué"
    assert said["fr", "mortgage 32"] == "Avenue Foch est déjà hypothéquée"
    assert said["it", "mortgage 1"] == "Boulevard de Belleville è già ipotecato"
    assert said["it", "mortgage 32"] == "Avenue Foch è già ipotecata"
    assert said["fr", "unmortgage 5"] == "Gare Montparnasse n'est pas hypothéquée"
    assert said["en", "mortgage 32"] == "Avenue Foch is already mortgaged"
