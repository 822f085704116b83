"""Finding squares by what a person types, and short labels for the board."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable

from lanopoly._core import Game
from lanopoly.describe import square_name
from lanopoly.i18n import BOARD_LABELS

# Words that say little about which square is meant.
_FILLER = {
    "avenue", "place", "rue", "de", "la", "le", "du", "des", "boulevard", "the", "and", "&", "b", "o",
    "railroad", "gare", "faubourg", "compagnie", "d\u2019électricité", "company", "works", "gardens",
}  # fmt: skip

_UTILITIES = {12: "electric", 28: "water"}
"""The utilities by board position (their names differ most between editions)."""


def fold(text: str) -> str:
    """Lower case without accents, for matching what people type."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The words of a name, folded, split at spaces, hyphens, dots and apostrophes."""
    return [w for w in re.split(r"[\s\-.'\u2019&]+", fold(text)) if w]


def find_squares(game: Game, text: str, *, deeds_only: bool = True, lang: str = "en") -> list[int]:
    """Squares whose name matches ``text``: exact name first, then word prefixes and the label
    the board shows in ``lang`` ("StCh", "pen4", any case), then substring. A label that is also the
    start of other names ("Penn", "BO") stays ambiguous: the person is told the names rather than
    given one."""
    want = fold(text.strip())
    if not want:
        return []
    if want.isdigit() and int(want) < 40:
        return [int(want)]
    squares = [s for s in range(40) if not deeds_only or game.square(s)["kind"] in ("street", "railway", "utility")]
    names = _names(game, squares, lang)
    exact = _each(s for s, n in names if n == want)
    if exact:
        return exact
    wanted = words(want)
    prefix = _each(s for s, n in names if all(any(w.startswith(p) for w in words(n)) for p in wanted))
    shown = labels(game, lang)
    labelled = [s for s in squares if fold(shown[s].strip()) == want]
    if prefix or labelled:
        # "BO", the label of B. & O. Railroad, also starts Boardwalk: both, so that the person is
        # asked which (it picked Boardwalk, the one the board does not show as "BO")
        return _each([*labelled, *prefix])
    return _each(s for s, n in names if want in n)


def _names(game: Game, squares: list[int], lang: str) -> list[tuple[int, str]]:
    """Each square with the names a person may type for it, folded: the edition's name and, where
    it differs (a square that is no deed), the name shown in ``lang``."""
    out = []
    for s in squares:
        edition, shown = fold(game.square(s)["name"]), fold(square_name(game, s, lang))
        out += [(s, edition)] + ([(s, shown)] if shown != edition else [])
    return out


def _each(squares: Iterable[int]) -> list[int]:
    """``squares`` without repeats, in their order."""
    return list(dict.fromkeys(squares))


def near_squares(game: Game, text: str, most: int = 3, lang: str = "en") -> list[int]:
    """Deeds whose name, a word of their name or their board label is close to ``text`` (a typo:
    "bordwalk", "pensylvania"), closest first: what to suggest when nothing matches."""
    candidates: dict[str, int] = {}
    shown = labels(game, lang)
    for s in range(40):
        if game.square(s)["kind"] not in ("street", "railway", "utility"):
            continue
        name = fold(game.square(s)["name"])
        for word in [w for w in words(name) if len(w) > 3 and w not in _FILLER]:
            candidates.setdefault(word, s)
        candidates.setdefault(fold(shown[s].strip()), s)
        candidates[name] = s
    found: list[int] = []
    for match in difflib.get_close_matches(fold(text.strip()), list(candidates), n=most * 3, cutoff=0.6):
        if candidates[match] not in found:
            found.append(candidates[match])
    return found[:most]


def labels(game: Game, lang: str = "en") -> list[str]:
    """A 4-character label for each square, unique among deeds: the corners, card and tax squares
    and the utilities in the language's words (:data:`lanopoly.i18n.BOARD_LABELS`), the other
    deeds from their names."""
    own = BOARD_LABELS.get(lang, BOARD_LABELS["en"])
    out: list[str] = []
    used: set[str] = set()
    for s in range(40):
        info = game.square(s)
        kind = _UTILITIES.get(s, "") if info["kind"] == "utility" else info["kind"]
        if kind in own:
            out.append(f"{own[kind]:<4}")
            continue
        name = [w for w in re.split(r"[\s\-&]+", info["name"]) if w]
        meaningful = [w.strip(".'\u2019") for w in name if fold(w) not in _FILLER] or [w.strip(".") for w in name]
        first = meaningful[0]
        # "St. Charles" -> "StCh", "New York" -> "NeYo"
        label = first[:2] + meaningful[1][:2] if len(first) < 4 and len(meaningful) > 1 else first[:4]
        if label in used and len(meaningful) > 1:
            label = first[:2] + meaningful[1][:2]
        if label in used:
            label = first[:3] + str(s % 10)
        used.add(label)
        out.append(f"{label:<4}"[:4])
    return out
