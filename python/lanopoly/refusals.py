"""The engine's refusals in the player's language.

The engine refuses a move with :class:`~lanopoly.IllegalAction`, whose ``code`` is the English
template the reason was made from (``"you do not own {square}"``) and whose ``fields`` are its
values (``{"square": "Boardwalk"}``). Each language here maps every template to its own text
with the same fields, in the message catalogs' ``refusals`` domain
(``lanopoly/locale/<lang>/LC_MESSAGES/refusals.po``, whose msgid is the template); :func:`explain`
fills one in for a game, saying players by name instead of seat number and amounts in the board's
currency. A refusal that wraps another (``{cause}``) has it explained too. Where a word agrees with
the deed (French "hypothéquée", Italian "ipotecata"), the catalog's ``msgctxt "feminine"`` form is
taken for a deed whose name is feminine. A test checks that every template the engine has is in
every catalog.
"""

from __future__ import annotations

from lanopoly import catalog
from lanopoly._core import Game, IllegalAction
from lanopoly.catalog import CONTEXT
from lanopoly.i18n import LANGUAGES, feminine, money

SEAT_FIELDS = frozenset({"seat"})
"""Fields holding a seat number: shown as the player's name."""
MONEY_FIELDS = frozenset({"amount", "cash", "cost", "fine", "price", "min", "max", "owed", "can_raise"})
"""Fields holding an amount of money: shown in the board's currency."""


def _template(lang: str, code: str, square: str | None = None) -> str | None:
    """The translation of the engine's template ``code`` in ``lang``, else in English, else None;
    its feminine form if it has one and the deed called ``square`` has a feminine name."""
    for each in (lang, "en") if lang in LANGUAGES else ("en",):
        found = catalog.load(each, "refusals")
        if found is None:
            continue
        text = None
        if square is not None and feminine(each, square):
            text = found.text(f"feminine{CONTEXT}{code}")
        text = text or found.text(code)
        if text is not None:
            return text
    return None


def explain(error: IllegalAction, game: Game, lang: str = "en") -> str:
    """The refusal in ``lang``, players named and amounts in the board's currency; the engine's
    English reason when the refusal has no template (it was not made by a move)."""
    template = _template(lang, error.code or "", error.fields.get("square"))
    if template is None:
        return str(error)
    fields: dict[str, str] = {}
    for name, value in error.fields.items():
        if name in SEAT_FIELDS and value.isdigit() and int(value) < game.num_players:
            fields[name] = game.names[int(value)]
        elif name in MONEY_FIELDS and value.isdigit():
            fields[name] = money(lang, game.currency, int(value))
        elif name == "cause" and isinstance(error.__cause__, IllegalAction):
            fields[name] = explain(error.__cause__, game, lang)
        else:
            fields[name] = value
    return template.format(**fields)
