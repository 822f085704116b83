"""The gettext message catalogs: complete in every language, placeholders intact, plural forms right.

Every catalog of a domain must have exactly the English catalog's keys and sources, a non-empty
translation in every form, the same ``{placeholders}`` as its source (per plural form), and the
header gettext tools expect; GNU msgfmt must accept every file. The checks are run on damaged
copies too (a translation deleted, a placeholder misspelt), to show they catch it.
"""

from __future__ import annotations

import re
import shutil
import string
import subprocess
from collections import Counter

import pytest

from lanopoly import Game, boards, catalog
from lanopoly.catalog import DOMAINS, Catalog, PoError, parse, read
from lanopoly.console.drawing import key_rows
from lanopoly.i18n import LANGUAGES, money, plural, t

PLURAL_FORMS = {
    "en": ("nplurals=2; plural=(n != 1);", (1, 0, 1)),
    "fr": ("nplurals=2; plural=(n > 1);", (0, 0, 1)),
    "it": ("nplurals=2; plural=(n != 1);", (1, 0, 1)),
    "no": ("nplurals=2; plural=(n != 1);", (1, 0, 1)),
}
"""Each language's Plural-Forms as the GNU gettext manual gives it, and the form it picks for 0, 1, 2."""
CASES = [(lang, domain) for lang in LANGUAGES for domain in DOMAINS]


def placeholders(text: str) -> Counter[tuple[str, str | None, str]]:
    """The ``{name!conversion:spec}`` fields of a template, counted."""
    return Counter((name, conv, spec) for _, name, spec, conv in string.Formatter().parse(text) if name is not None)


def problems(found: Catalog, english: Catalog) -> list[str]:
    """What is wrong with a catalog against the English one of its domain (nothing: an empty list)."""
    wrong = [f"missing {key!r}" for key in english.entries.keys() - found.entries.keys()]
    wrong += [f"not in English {key!r}" for key in found.entries.keys() - english.entries.keys()]
    for key, entry in found.entries.items():
        source = english.entries.get(key)
        if source is None:
            continue
        if (entry.msgid, entry.msgid_plural) != (source.msgid, source.msgid_plural):
            wrong.append(f"{key!r}: source text differs from English")
        if entry.msgid_plural is not None and len(entry.forms) != found.nplurals:
            wrong.append(f"{key!r}: {len(entry.forms)} forms, the language has {found.nplurals}")
        sources = [entry.msgid] if entry.msgid_plural is None else [entry.msgid, entry.msgid_plural]
        for i, text in enumerate(entry.forms):
            if not text.strip():
                wrong.append(f"{key!r}: form {i} empty")
            try:
                fields = placeholders(text)
            except ValueError as error:
                wrong.append(f"{key!r}: form {i} is no template ({error})")
                continue
            if fields != placeholders(sources[min(i, len(sources) - 1)]):
                wrong.append(f"{key!r}: form {i} has placeholders {sorted(fields)}")
        if "fuzzy" in entry.flags:
            wrong.append(f"{key!r}: fuzzy (to review, so not used)")
        if bool(placeholders(entry.msgid)) != ("python-brace-format" in entry.flags):
            wrong.append(f"{key!r}: python-brace-format flag wrong")
    return wrong


def _text(lang: str, domain: str) -> str:
    return catalog.path(lang, domain).read_text(encoding="utf-8")


def _load(lang: str, domain: str) -> Catalog:
    found = catalog.load(lang, domain)
    assert found is not None, f"no {domain} catalog in {lang}"
    return found


def test_the_languages_are_the_catalogs_in_the_package():
    assert {"en", "fr", "it", "no"} <= set(LANGUAGES)
    for lang in LANGUAGES:
        assert lang in PLURAL_FORMS, f"add the Plural-Forms of {lang!r} and its forms for 0, 1, 2 to PLURAL_FORMS"


@pytest.mark.parametrize(("lang", "domain"), CASES)
def test_every_catalog_is_complete_with_its_placeholders(lang, domain):
    assert problems(_load(lang, domain), _load("en", domain)) == []


@pytest.mark.parametrize(("lang", "domain"), CASES)
def test_headers(lang, domain):
    found = _load(lang, domain)
    assert found.headers["Language"] == lang
    assert found.headers["Content-Type"] == "text/plain; charset=UTF-8"
    assert found.headers["Plural-Forms"] == PLURAL_FORMS[lang][0]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_board_labels_fit_their_cell(lang):
    labels = {k: e.forms[0] for k, e in _load(lang, "console").entries.items() if k.startswith("label.")}
    assert len(labels) == 9 and all(1 <= len(text) <= 4 for text in labels.values()), labels


def test_the_console_has_counted_texts():
    counted = {k for k, e in _load("en", "console").entries.items() if e.msgid_plural is not None}
    assert {"level", "panel.deeds", "panel.cards", "log.below", "end.chart", "start.saved_value"} <= counted


@pytest.mark.parametrize(("lang", "domain"), CASES)
def test_the_plural_rule_of_each_language(lang, domain):
    assert tuple(_load(lang, domain).form(n) for n in (0, 1, 2)) == PLURAL_FORMS[lang][1]


def test_counted_texts_read_right():
    assert [plural("en", "panel.deeds", n) for n in (0, 1, 2)] == [" 0 deeds", " 1 deed", " 2 deeds"]
    assert [plural("fr", "panel.deeds", n) for n in (0, 1, 2)] == [" 0 titre", " 1 titre", " 2 titres"]
    assert plural("en", "log.below", 1).startswith("log: 1 more line below")
    assert plural("it", "level", 1) == "1 casa" and plural("it", "level", 3) == "3 case"
    assert t("en", "end.title", round=1, winner="ada") == "Game over in round 1: ada wins."
    assert plural("fr", "lobby.left", 2, names="bob, eve").startswith("bob, eve ont quitté le salon")
    assert plural("it", "net.removed", 1, peer="bob", seats="cane").startswith("bob escluso: cane si ritira,")
    assert plural("en", "replay.status", 1, step=1, total=9, state="paused", speed=1).endswith("1 step a second")
    assert plural("fr", "end.chart", 1, rounds=1, top="9 €").startswith("Fortune tour par tour (1 tour ;")
    assert t("no", "level", n=4) == "4 hus"  # t() takes the count from the field n
    with pytest.raises(TypeError, match="depends on a count"):
        t("en", "level")


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext's msgfmt is not installed")
@pytest.mark.parametrize(("lang", "domain"), CASES)
def test_msgfmt_accepts_every_catalog(lang, domain):
    done = subprocess.run(
        ["msgfmt", "--check", "-o", "/dev/null", "-"], input=_text(lang, domain), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr


def _damaged(old: str, new: str) -> Catalog:
    text = _text("fr", "console")
    assert old in text
    return read(text.replace(old, new, 1), "damaged")


def test_the_checks_catch_a_deleted_translation():
    damaged = _damaged('msgctxt "ev.bought"\n', 'msgctxt "ev.bought.gone"\n')
    assert "missing 'ev.bought'" in problems(damaged, _load("en", "console"))
    emptied = _damaged('msgstr "la banque"', 'msgstr ""')
    assert "'party.bank': form 0 empty" in problems(emptied, _load("en", "console"))
    fuzzy = _damaged('msgctxt "party.bank"\n', '#, fuzzy\nmsgctxt "party.bank"\n')
    assert "'party.bank': fuzzy (to review, so not used)" in problems(fuzzy, _load("en", "console"))


def test_the_checks_catch_a_misspelt_placeholder():
    damaged = _damaged("{player} achète {square} pour {price}.", "{player} achète {sqaure} pour {price}.")
    assert any(p.startswith("'ev.bought': form 0 has placeholders") for p in problems(damaged, _load("en", "console")))
    second = _damaged('msgstr[1] "{n} maisons"', 'msgstr[1] "{m} maisons"')
    assert any(p.startswith("'level': form 1 has placeholders") for p in problems(second, _load("en", "console")))


def test_an_empty_translation_falls_back_to_english():
    found = read(_text("fr", "console").replace('msgstr "la banque"', 'msgstr ""', 1))
    assert found.text("party.bank") is None  # i18n.t then asks the English catalog


# The reader itself.

_HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
_HEADER += '"Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n'


def test_the_reader_reads_every_kind_of_entry():
    text = _HEADER + (
        "# a comment\n#. for translators\n#: here.py:1\n#, python-brace-format, fuzzy\n"
        'msgctxt "k"\nmsgid "say \\"{x}\\"\\n"\n"twice"\nmsgstr ""\n"dis \\"{x}\\"\\n"\n"deux fois\\t\\\\"\n\n'
        'msgid "{n} house"\nmsgid_plural "{n} houses"\nmsgstr[0] "{n} maison"\nmsgstr[1] "{n} maisons"\n\n'
        '#~ msgid "gone"\n#~ msgstr "parti"\n'
    )
    entries, headers = parse(text)
    assert headers == {"Content-Type": "text/plain; charset=UTF-8", "Plural-Forms": "nplurals=2; plural=(n > 1);"}
    first, second = entries
    assert (first.context, first.msgid, first.forms) == ("k", 'say "{x}"\ntwice', ('dis "{x}"\ndeux fois\t\\',))
    assert first.flags == {"python-brace-format", "fuzzy"} and second.flags == frozenset()
    assert (second.key, second.msgid_plural, second.forms) == ("{n} house", "{n} houses", ("{n} maison", "{n} maisons"))
    found = read(text)
    assert found.text("{n} house", 0) == "{n} maison" and found.text("{n} house", 2) == "{n} maisons"
    assert found.text("k") is None  # fuzzy: not used, as gettext does
    assert found.text("nothing") is None


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (_HEADER + 'msgid "a"\nmsgtxt "b"\n', "unknown keyword 'msgtxt'"),
        (_HEADER + 'msgid "a"\n', "needs one msgstr"),
        (_HEADER + 'msgid "a"\nmsgid_plural "as"\nmsgstr "x"\n', "needs msgstr"),
        (_HEADER + 'msgid "a"\nmsgid_plural "as"\nmsgstr[1] "x"\n', "needs msgstr"),
        (_HEADER + 'msgid "a"\nmsgstr "b"\nmsgstr "c"\n', "msgstr twice"),
        (_HEADER + 'msgid "a"\nmsgstr "b"\nmsgid "a"\nmsgstr "c"\n', "'a' twice"),
        (_HEADER + 'msgid "a\nmsgstr "b"\n', "quoted string"),
        (_HEADER + 'msgid "a"\nmsgstr "b"\n\n"x"\n', "continues no keyword"),
        ('msgid ""\nmsgstr "Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n', "charset=UTF-8"),
        (_HEADER.replace("(n > 1)", "(import os)"), "bad Plural-Forms"),
    ],
)  # fmt: skip
def test_the_reader_refuses_a_broken_file(text, error):
    with pytest.raises(PoError, match=error):
        read(text)


# The cards domain: every card of every edition, with its amounts.

_NUMBER = re.compile(r"\d+")


def _amounts(text: str, currency: str, lang: str) -> Counter[int]:
    """The sums of money a card text names, read as ``lang`` writes money ("$200", "200 €")."""
    written = re.escape(money(lang, currency, 0)).replace("0", r"(\d+)")
    return Counter(int(n) for n in re.findall(written, text))


def test_every_card_of_every_edition_is_in_the_cards_catalogs():
    english = _load("en", "cards")
    for board in boards():
        game = Game(2, board=board)
        texts = {game.card_text(deck, card) for deck in ("chance", "community_chest") for card in range(16)}
        assert texts <= english.entries.keys(), (board, sorted(texts - english.entries.keys()))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_card_says_the_same_amounts_in_every_language(lang):
    found = _load(lang, "cards")
    for board in boards():
        game = Game(2, board=board)
        for deck in ("chance", "community_chest"):
            for card in range(16):
                printed = game.card_text(deck, card)
                text = found.text(printed)
                assert text is not None, (lang, printed)
                # every number, and every sum of money written as the language writes money
                assert Counter(_NUMBER.findall(text)) == Counter(_NUMBER.findall(printed)), (lang, printed, text)
                edition = "fr" if board == "paris" else "en"
                assert _amounts(text, game.currency, lang) == _amounts(printed, game.currency, edition), (lang, text)
                assert sum(_amounts(text, game.currency, lang).values()) == text.count(game.currency), (lang, text)


def test_the_amount_check_catches_a_changed_amount():
    text = _text("it", "cards").replace("Ritirate 150 $", "Ritirate 15 $", 1)
    found = read(text, "damaged")
    printed = "Your building loan matures. Collect $150."
    assert _amounts(found.text(printed) or "", "$", "it") != _amounts(printed, "$", "en")


def test_unknown_domain():
    with pytest.raises(ValueError, match="unknown message domain"):
        catalog.load("en", "menus")
    assert catalog.load("xx", "console") is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_players_turns_and_the_rounds_have_different_words(lang):
    """The end screen counts how long a deed was held in players' turns and the game in rounds;
    French said "tours" for both ("356 tours" in a game of "96 tours")."""

    def unit(text: str, number: int) -> str:
        return re.split(r"[;:.)]", text.split(str(number), 1)[1])[0].strip()

    turns = unit(plural(lang, "end.longest", 356, square="X", turns=356), 356)
    record = unit(plural(lang, "end.record", 356, name="a", square="X", turns=356), 356)
    rounds = unit(plural(lang, "end.chart", 96, rounds=96, top="1"), 96)
    assert turns == record and turns != rounds, (turns, rounds)


WRAPPED_KEYS = ("trade.keys", "card.keys", "offer.keys", "pf.keys")
"""The keys of what the game screen shows in place of the board, which may take two rows (the
trade panel's say what each arrow does)."""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_hint_fits_80_columns_and_says_what_each_key_does(lang):
    """The key hints under a panel are one line of an 80-column screen (two for those of the game
    screen's panels, which wrap); French and Italian cut theirs short to fit ("... Entrée
    proposer  Échap": Esc said nothing) or ran past 80."""
    for key, entry in _load(lang, "console").entries.items():
        if not key.endswith(".keys") or key == "help.keys":  # help.keys is a wrapped paragraph
            continue
        text = entry.forms[0]
        if key in WRAPPED_KEYS:  # the game screen gives it two rows where one is too short
            assert len(key_rows(text, 80)) <= 2, (key, text)
        else:
            assert len(text) < 80, (key, len(text), text)
        assert text.split()[-1].rstrip(":") not in ("Esc", "Échap"), (key, text)
