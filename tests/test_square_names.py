"""Square names and card texts in the player's language: the engine names the squares and prints
the cards as its edition does (English on the classic board); a person reads the squares that are
no deeds, and the cards, in the language of the game."""

from __future__ import annotations

import pytest

from conftest import dice, roll
from lanopoly import Game
from lanopoly.console.big_board import full_names, longest
from lanopoly.console.commands import any_square
from lanopoly.describe import describe, describe_events, square_name
from lanopoly.i18n import LANGUAGES, t


def _game(board: str = "classic") -> Game:
    """A game of two, "corazzata" to play first."""
    game = Game(["corazzata", "cane"], board=board)
    game.apply(dice(6, 6))
    game.apply(dice(1, 2))
    return game


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        ("en", "corazzata moves to Chance."),
        ("fr", "corazzata va sur Chance."),
        ("it", "corazzata va su Imprevisti."),
        ("no", "corazzata flytter til Sjanse."),
    ],
)
def test_a_move_to_chance_names_the_square_in_the_language(lang, sentence):
    game = _game()
    assert describe_events(game, roll(game, 3, 4), lang=lang)[-1] == sentence


def test_the_squares_that_are_no_deeds_take_the_language_and_deeds_keep_their_edition():
    game = _game()
    assert [square_name(game, s, "it") for s in (0, 2, 4, 10, 20, 30, 38)] == [
        "Via!", "Probabilità", "Tassa patrimoniale", "Prigione", "Parcheggio gratuito", "In prigione!",
        "Tassa di lusso",
    ]  # fmt: skip
    assert square_name(game, 39, "it") == "Boardwalk" and square_name(game, 5, "no") == "Reading Railroad"
    assert describe(game, {"type": "went_to_jail", "player": 1}, lang="it") == t("it", "ev.went_to_jail", player="cane")
    assert full_names(game, "no")[7] == "Sjanse" and full_names(game, "it")[39] == "Boardwalk"
    assert full_names(game, "en") == [square_name(game, s, "en") for s in range(40)]
    for lang in LANGUAGES:  # the large ring's: the same, or shorter or narrower where the catalog says (ring.*)
        names = [square_name(game, s, lang) for s in range(40)]
        for ring_name, name in zip(full_names(game, lang), names, strict=True):
            narrower = len(ring_name) < len(name) or longest(ring_name) < longest(name)
            assert ring_name == name or narrower, (lang, ring_name, name)


def test_the_paris_board_in_french_keeps_its_french_names():
    game = _game("paris")
    engine = [game.square(s)["name"] for s in range(40)]
    shown = [square_name(game, s, "fr") for s in range(40)]
    differ = {s: (engine[s], shown[s]) for s in range(40) if engine[s] != shown[s]}
    assert differ == {10: ("Prison / Simple visite", "Prison")}  # the visit is told apart by the sentence
    assert square_name(game, 7, "it") == "Imprevisti"


@pytest.mark.parametrize(
    ("lang", "text", "square"),
    [("it", "imprevisti", None), ("it", "probabilità", None), ("it", "prigione", 10), ("it", "jail", 10),
     ("it", "via", 0), ("it", "parcheggio", 20), ("no", "fengsel", 10), ("no", "go to jail", 30),
     ("no", "gå i fengsel", 30), ("fr", "parc gratuit", 20)],
)  # fmt: skip
def test_info_takes_a_square_in_english_or_in_the_language_shown(lang, text, square):
    game = _game()
    if square is None:  # three Chance squares, three Community Chest ones: a name, not a square
        with pytest.raises(Exception, match="'"):
            any_square(game, text, lang)
    else:
        assert any_square(game, text, lang) == square


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        ("en", "corazzata draws Chance: Get Out of Jail Free. This card may be kept until needed or traded."),
        ("fr", "corazzata tire une carte Chance : Vous êtes libéré de prison. Cette carte peut être conservée"
         " jusqu\u2019à utilisation ou échangée."),
        ("it", "corazzata pesca Imprevisti: Uscite gratis di prigione. Questa carta si può conservare fino al"
         " momento di servirsene, o scambiare."),
        ("no", "corazzata trekker Sjanse: Du slipper ut av fengselet. Dette kortet kan beholdes til du trenger"
         " det, eller byttes bort."),
    ],
)  # fmt: skip
def test_a_card_drawn_reads_in_the_language(lang, sentence):
    game = _game()
    roll(game, 3, 4)  # Chance
    assert describe_events(game, game.apply({"type": "card", "card": 7}), lang=lang) == [sentence]


def test_a_card_with_amounts_reads_them_as_the_language_writes_money():
    game = _game()
    roll(game, 1, 1)  # Community Chest, square 2
    events = game.apply({"type": "card", "card": 13})
    assert describe_events(game, events, lang="it")[0] == (
        "corazzata pesca Probabilità: Dovete contribuire ai lavori stradali: 40 $ per ogni casa,"
        " 115 $ per ogni albergo."
    )
    paris = _game("paris")
    roll(paris, 3, 4)
    events = paris.apply({"type": "card", "card": 11})
    assert describe_events(paris, events, lang="en")[0] == "corazzata draws Chance: Speeding fine: €15."
    assert describe_events(paris, events, lang="fr")[0] == (
        "corazzata tire une carte Chance : Amende pour excès de vitesse : 15 €."
    )
    assert describe_events(paris, events, lang="no")[0].endswith("Sjanse: Fartsbot: 15 €.")
