"""The gettext message catalogs shipped in the package, read from their .po files.

Every text a person reads lives in ``lanopoly/locale/<lang>/LC_MESSAGES/<domain>.po``: the
``console`` domain (keyed by ``msgctxt``), the ``refusals`` domain (keyed by the engine's
template, the ``msgid``, with a ``msgctxt "feminine"`` variant where a word agrees with a deed's
name: :data:`CONTEXT` joins the two, as gettext does) and the ``cards`` domain (the Chance and
Community Chest cards, keyed by the engine's text of each edition, the ``msgid``). The .po files
are parsed here, once per file, rather than compiled to .mo: the package build (maturin) runs no
gettext step and nothing new is needed at run time. A text that depends on a count has plural
forms, chosen by the file's own ``Plural-Forms`` rule.
"""

from __future__ import annotations

import ast
import gettext
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

DOMAINS = ("console", "refusals", "cards")
KEYED_BY_CONTEXT = frozenset({"console"})
"""Domains whose key is the ``msgctxt`` alone (the msgid is the English text); the others are keyed
by the msgid, or by context and msgid joined with :data:`CONTEXT`."""
CONTEXT = "\x04"
"""What joins a context and a msgid into one key, as in gettext's compiled catalogs."""


@dataclass(frozen=True)
class Entry:
    """One message: its key (the context, else the msgid), English source and translated forms."""

    context: str | None
    msgid: str
    msgid_plural: str | None
    forms: tuple[str, ...]  # msgstr, or msgstr[0..] for a counted text
    flags: frozenset[str]

    @property
    def key(self) -> str:
        """The key of a ``console`` entry: its context, else its msgid."""
        return self.msgid if self.context is None else self.context

    @property
    def gettext_key(self) -> str:
        """The key as gettext has it: the msgid, after the context and :data:`CONTEXT` if any."""
        return self.msgid if self.context is None else f"{self.context}{CONTEXT}{self.msgid}"


@dataclass(frozen=True)
class Catalog:
    """The entries of one .po file by key, its header fields and its plural rule."""

    entries: dict[str, Entry]
    headers: dict[str, str]
    nplurals: int
    rule: Callable[[int], int]

    def form(self, n: int) -> int:
        """Which plural form the language uses for a count of ``n``."""
        return min(max(self.rule(n), 0), self.nplurals - 1)

    def text(self, key: str, n: int | None = None) -> str | None:
        """The translation of ``key`` (for a count of ``n`` if counted); None if absent, empty or
        marked fuzzy (a translation to review: gettext does not use those either)."""
        entry = self.entries.get(key)
        if entry is None or "fuzzy" in entry.flags:
            return None
        if entry.msgid_plural is not None:
            if n is None:
                raise TypeError(f"{key!r} depends on a count: give n")
            text = entry.forms[self.form(n)] if self.form(n) < len(entry.forms) else ""
        else:
            text = entry.forms[0]
        return text or None


class PoError(ValueError):
    """A .po file this reader cannot understand: where, and why."""


def _unquote(token: str, where: str) -> str:
    """The value of a C string literal in a .po file ("a\\n" -> a newline)."""
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise PoError(f"{where}: expected a quoted string, got {token!r}")
    if "\\" not in token and '"' not in token[1:-1]:
        return token[1:-1]  # the common case, quickly
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError) as error:
        raise PoError(f"{where}: bad string {token!r}") from error
    if not isinstance(value, str):
        raise PoError(f"{where}: bad string {token!r}")
    return value


def _keywords(lines: list[str], source: str) -> Iterator[tuple[str, str, int]]:
    """Each keyword of the file with its string (continuation lines joined) and its line; flags
    (``#, python-brace-format``) come as the keyword ``#,``; other comments are skipped."""
    keyword: str | None = None
    value, start = "", 0
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        where = f"{source}:{number}"
        if line.startswith('"'):
            if keyword is None:
                raise PoError(f"{where}: a string continues no keyword")
            value += _unquote(line, where)
            continue
        if keyword is not None:
            yield keyword, value, start
            keyword = None
        if line.startswith("#,"):
            yield "#,", line[2:], number
        elif line and not line.startswith("#"):  # blank lines, comments and obsolete (#~) entries skipped
            word, _, rest = line.partition(" ")
            if word not in ("msgctxt", "msgid", "msgid_plural", "msgstr") and not (
                word.startswith("msgstr[") and word.endswith("]") and word[7:-1].isdigit()
            ):
                raise PoError(f"{where}: unknown keyword {word!r}")
            keyword, value, start = word, _unquote(rest.strip(), where), number
    if keyword is not None:
        yield keyword, value, start


def _entry(fields: dict[str, str], flags: frozenset[str], where: str) -> Entry:
    """One entry from its keywords, checked: a msgstr, or msgstr[0], msgstr[1]... with msgid_plural."""
    if "msgid" not in fields:
        raise PoError(f"{where}: an entry without msgid")
    plural = fields.get("msgid_plural")
    indexed = sorted(int(k[7:-1]) for k in fields if k.startswith("msgstr["))
    if plural is None:
        if "msgstr" not in fields or indexed:
            raise PoError(f"{where}: a text without a count needs one msgstr")
        forms: tuple[str, ...] = (fields["msgstr"],)
    else:
        if "msgstr" in fields or not indexed or indexed != list(range(len(indexed))):
            raise PoError(f"{where}: a counted text needs msgstr[0], msgstr[1]...")
        forms = tuple(fields[f"msgstr[{i}]"] for i in indexed)
    return Entry(fields.get("msgctxt"), fields["msgid"], plural, forms, flags)


def parse(text: str, source: str = "<po>") -> tuple[list[Entry], dict[str, str]]:
    """The entries of a .po file's text, and its header fields (``Language``, ``Plural-Forms``...)."""
    entries: list[Entry] = []
    fields: dict[str, str] = {}
    flags: set[str] = set()
    start = 0
    for keyword, value, line in _keywords(text.splitlines(), source):
        done = any(k.startswith("msgstr") for k in fields)
        if done and keyword in ("#,", "msgctxt", "msgid"):
            entries.append(_entry(fields, frozenset(flags), f"{source}:{start}"))
            fields, flags = {}, set()
        if keyword == "#,":
            flags |= {flag.strip() for flag in value.split(",") if flag.strip()}
            continue
        if not fields:
            start = line
        if keyword in fields:
            raise PoError(f"{source}:{line}: {keyword} twice in one entry")
        fields[keyword] = value
    if fields:
        entries.append(_entry(fields, frozenset(flags), f"{source}:{start}"))
    headers: dict[str, str] = {}
    if entries and entries[0].msgid == "" and entries[0].context is None:
        for field in entries.pop(0).forms[0].splitlines():
            name, colon, value = field.partition(":")
            if colon:
                headers[name.strip()] = value.strip()
    return entries, headers


def plural_rule(header: str) -> tuple[int, Callable[[int], int]]:
    """The number of forms and the rule of a ``Plural-Forms`` header, as gettext reads it."""
    parts = dict(part.strip().partition("=")[::2] for part in header.split(";") if part.strip())
    try:
        nplurals = int(parts["nplurals"])
        rule = gettext.c2py(parts["plural"])
    except (KeyError, ValueError) as error:
        raise PoError(f"bad Plural-Forms {header!r}") from error
    return nplurals, rule


def read(text: str, source: str = "<po>", by_context: bool = True) -> Catalog:
    """A catalog from the text of a .po file; every key once, a Plural-Forms header, UTF-8.
    Keyed by context (``Entry.key``), or as gettext keys (``Entry.gettext_key``) if not ``by_context``."""
    entries, headers = parse(text, source)
    by_key: dict[str, Entry] = {}
    for entry in entries:
        key = entry.key if by_context else entry.gettext_key
        if key in by_key:
            raise PoError(f"{source}: {key!r} twice")
        by_key[key] = entry
    if "charset=UTF-8" not in headers.get("Content-Type", ""):
        raise PoError(f"{source}: the header must say Content-Type: text/plain; charset=UTF-8")
    nplurals, rule = plural_rule(headers.get("Plural-Forms", ""))
    return Catalog(by_key, headers, nplurals, rule)


def _locale() -> Traversable:
    return files("lanopoly") / "locale"


def languages() -> tuple[str, ...]:
    """The languages with a console catalog in the package: English (the fallback) first, then by code."""
    found = {d.name for d in _locale().iterdir() if d.is_dir() and (d / "LC_MESSAGES" / "console.po").is_file()}
    return tuple(sorted(found, key=lambda lang: (lang != "en", lang)))


def path(lang: str, domain: str) -> Traversable:
    """Where the package keeps the catalog of ``domain`` in ``lang``."""
    return _locale() / lang / "LC_MESSAGES" / f"{domain}.po"


@cache
def load(lang: str, domain: str) -> Catalog | None:
    """The catalog of ``domain`` in ``lang``, read once; None if the package has none."""
    if domain not in DOMAINS:
        raise ValueError(f"unknown message domain {domain!r}: one of {', '.join(DOMAINS)}")
    file = path(lang, domain)
    if not file.is_file():
        return None
    return read(file.read_text(encoding="utf-8"), f"{lang}/LC_MESSAGES/{domain}.po", domain in KEYED_BY_CONTEXT)
