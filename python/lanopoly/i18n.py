"""Every text of the console and of the event sentences, in each language of the message catalogs.

The texts live in gettext catalogs, ``lanopoly/locale/<lang>/LC_MESSAGES/console.po`` (read by
:mod:`lanopoly.catalog`): each one's ``msgctxt`` is the key the code asks for and its ``msgstr``
a ``str.format`` template that :func:`t` fills in; a text that depends on a count has plural
forms, picked by :func:`plural`. The command words stay English in every language;
:data:`ALIASES` adds each language's own words. The language comes from ``--lang`` or the system
locale (:func:`detect`); French brings the Paris board by default (:func:`default_board`), the
others keep the classic one. A language is a directory of catalogs: :data:`LANGUAGES` lists them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from lanopoly import catalog

LANGUAGES = catalog.languages()
_BOARDS = {"fr": "paris"}  # the edition of a language, where the engine has one


def _catalog(lang: str) -> catalog.Catalog:
    found = catalog.load(lang, "console") if lang in LANGUAGES else None
    if found is None:
        raise LookupError(f"no console catalog for {lang!r}")
    return found


def _text(lang: str, key: str, n: int | None) -> str:
    """The template of ``key`` in ``lang``, else in English (a text a catalog lacks or left empty)."""
    for code in (lang, "en") if lang in LANGUAGES else ("en",):
        text = _catalog(code).text(key, n)
        if text is not None:
            return text
    raise KeyError(f"no text {key!r} in the console catalog")


def has(key: str) -> bool:
    """Whether the catalogs have a text ``key`` (the English catalog has every key)."""
    return key in _catalog("en").entries


def _prefixed(lang: str, prefix: str) -> dict[str, str]:
    """The texts of ``lang`` whose key starts with ``prefix``, by the rest of the key, in catalog order."""
    return {key[len(prefix) :]: _text(lang, key, None) for key in _catalog("en").entries if key.startswith(prefix)}


LANGUAGE_NAMES = {lang: _text(lang, "language.name", None) for lang in LANGUAGES}
"""Each language's name in itself: "Français"."""

TOKENS: dict[str, list[str]] = {lang: list(_prefixed(lang, "token.").values()) for lang in LANGUAGES}
"""The eight tokens in each language (French: the engine's Paris edition names them so)."""

BOARD_LABELS: dict[str, dict[str, str]] = {lang: _prefixed(lang, "label.") for lang in LANGUAGES}
"""The 4-letter board labels of the squares that are not deeds to buy by name (corners, cards,
taxes) and of the utilities (their names differ most between editions), in each language."""

ALIASES: dict[str, dict[str, str]] = {
    lang: {
        word: command
        for command, words in _prefixed(lang, "alias.").items()
        for word in words.split()
        if word != command
    }
    for lang in LANGUAGES
}
"""Each language's words for the commands (the English words work everywhere): word -> command.
A catalog lists a command's words separated by spaces, the one shown first."""


def t(lang: str, key: str, **fields: Any) -> str:
    """The text ``key`` in ``lang`` (English if the language lacks it), filled with ``fields``
    (a counted text takes its form from the field ``n``)."""
    return _text(lang, key, fields.get("n")).format(**fields)


def feminine(lang: str, name: str) -> bool:
    """Whether a deed's name is feminine in ``lang``, for the words that agree with it (French
    "Avenue Foch (hypothéquée)", "Boulevard de Belleville (hypothéqué)"): its first word (the
    head of a French name) or its last (of an English one: "Baltic Avenue") is one of the
    catalog's ``gender.feminine`` words. Masculine otherwise, like the "titre" or "contratto" of
    the deed."""
    words = _text(lang, "gender.feminine", None).split()
    parts = name.casefold().split()
    return bool(parts) and (parts[0] in words or parts[-1] in words)


def agreeing(lang: str, key: str, name: str, **fields: Any) -> str:
    """The text ``key`` in ``lang`` agreeing with the deed called ``name``: the catalog's
    ``key.f`` when the name is feminine (:func:`feminine`) and the text has such a form (one
    that says "mortgaged" of the deed has), ``key`` otherwise."""
    female = f"{key}.f"
    return t(lang, female if has(female) and feminine(lang, name) else key, **fields)


def plural(lang: str, key: str, n: int, **fields: Any) -> str:
    """The counted text ``key`` in the form the language's Plural-Forms rule gives ``n`` (singular
    for 1 in English, Italian and Norwegian; for 0 and 1 in French), filled with ``n`` and ``fields``."""
    return _text(lang, key, n).format(n=n, **fields)


def money(lang: str, currency: str, amount: int) -> str:
    """An amount of money as the language writes it: "$200" in English, "200 €" in French."""
    return t(lang, "money", currency=currency, amount=amount)


def clock(seconds: float) -> str:
    """A duration as the screen shows it, the same in every language: ``m:ss``."""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def preset_name(lang: str, preset: str) -> str:
    """A rules preset's name as a player reads it ("officielles" for ``official``); an id the
    catalogs do not know (a newer peer's, in a LAN advert) as it is."""
    return t(lang, f"preset.{preset}") if has(f"preset.{preset}") else preset


def board_name(lang: str, board: str, *, short: bool = False) -> str:
    """A board's name as a player reads it ("classico (Atlantic City, $)", or ``short``
    "classico"); an id the catalogs do not know as it is."""
    key = f"board.short.{board}" if short else f"board.{board}"
    return t(lang, key) if has(key) else board


def default_board(lang: str) -> str:
    """The board of the language's edition, where the engine has one; else the classic board."""
    return _BOARDS.get(lang, "classic")


def normalize(code: str | None) -> str | None:
    """The language of a locale or language code ("fr_FR.UTF-8", "nb", "it"), if we have it."""
    if not code:
        return None
    base = code.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    if base in ("nb", "nn"):
        base = "no"
    return base if base in LANGUAGES else None


def detect(environ: Mapping[str, str] | None = None) -> str:
    """The language of the system locale: LC_ALL, then LC_MESSAGES, then LANG (POSIX order);
    English when none is set or the set one is not among ours."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:
            return normalize(value) or "en"
    return "en"
