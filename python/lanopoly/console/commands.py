"""The console's command language: what a player types, turned into a move for the engine.

Every move of the game has a command; the engine decides whether it is legal and says why not.
Squares are named as printed (any unambiguous part: "board", "st charles", "rue de la paix").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lanopoly._core import Game
from lanopoly.console.claims import open_claims
from lanopoly.console.names import find_squares, fold, near_squares
from lanopoly.describe import square_name
from lanopoly.i18n import ALIASES, t

Action = dict[str, Any]

MOST_MONEY = 2**32 - 1
"""The largest amount the engine holds (its amounts are 32-bit): more than anyone's cash."""


class CommandError(ValueError):
    """What the player typed is not a command, or names nothing; the message says what to type."""


@dataclass(frozen=True)
class Local:
    """A command for the console itself, not a move of the game (help, info, portfolio, quit,
    replace, remove, and trade with a player's name alone: the trade panel)."""

    name: str
    argument: str = ""


# name, aliases, argument hint: the help table and the completer read this; the descriptions
# are the texts "cmd.NAME" of each language (lanopoly.i18n).
COMMANDS: list[tuple[str, tuple[str, ...], str]] = [
    ("roll", ("r",), ""),
    ("buy", ("b",), ""),
    ("decline", ("d", "no"), ""),
    ("bid", (), "AMOUNT"),
    ("pass", ("p",), ""),
    ("build", (), "PROPERTY"),
    ("sell", (), "PROPERTY"),
    ("selldown", (), "PROPERTY L1 L2 [L3]"),
    ("mortgage", ("m",), "PROPERTY"),
    ("unmortgage", ("u", "lift"), "PROPERTY"),
    ("keep", (), "PROPERTY"),
    ("fine", (), ""),
    ("card", (), ""),
    ("pay", (), ""),
    ("bankrupt", (), ""),
    ("claim", (), "[PROPERTY]"),
    ("trade", (), "PLAYER give ITEMS for ITEMS"),
    ("accept", (), "[PLAYER]"),
    ("reject", (), "[PLAYER]"),
    ("cancel", (), ""),
    ("end", ("e",), ""),
    ("endgame", (), ""),
    ("resign", (), ""),
    ("replace", (), "PLAYER"),
    ("remove", (), "PLAYER"),
    ("info", ("i", "deed"), "SQUARE"),
    ("portfolio", ("pf",), "[PLAYER]"),
    ("help", ("h", "?"), ""),
    ("quit", ("q", "exit"), ""),
]

_ALIASES = {alias: name for name, aliases, _ in COMMANDS for alias in (name, *aliases)}


def command_words(lang: str = "en") -> dict[str, str]:
    """Every word that names a command (folded) in ``lang``: the English ones and the language's;
    where a word is both, the language's meaning wins (Italian ``fine`` ends the turn, as the
    F5 hint "fine turno" says; ``multa`` pays the jail fine)."""
    return {**_ALIASES, **{fold(alias): name for alias, name in ALIASES.get(lang, {}).items()}}


def _english_words(lang: str, name: str, aliases: Sequence[str] = ()) -> list[str]:
    """The English words of command ``name`` that still name it in ``lang`` (not taken by one
    of the language's words for another command)."""
    words = command_words(lang)
    return [w for w in (name, *aliases) if words.get(fold(w)) == name]


def near_commands(word: str, lang: str = "en", most: int = 3) -> list[str]:
    """The command words ``word`` may have meant, as shown in ``lang``: the ones it begins
    ("hyp" for "hypothéquer") or that are one typo away ("mortage"); what an unknown word suggests."""
    shown = {name: name for name, _, _ in COMMANDS}
    for alias, name in reversed(list(ALIASES.get(lang, {}).items())):
        shown[name] = alias  # the language's first word for a command is the one it shows
    folded = fold(word)
    words = command_words(lang)
    found = [w for w in words if len(folded) >= 2 and w.startswith(folded)]
    found += difflib.get_close_matches(folded, list(words), n=most, cutoff=0.75)
    out: list[str] = []
    for w in found:
        if shown[words[w]] not in out:
            out.append(shown[words[w]])
    return out[:most]


_SIMPLE = {
    "roll": "roll",
    "buy": "buy",
    "decline": "decline",
    "pass": "pass",
    "fine": "pay_jail_fine",
    "card": "use_jail_card",
    "pay": "pay_debt",
    "bankrupt": "declare_bankruptcy",
    "cancel": "cancel_trade",
    "end": "end_turn",
    "endgame": "end_game",
    "resign": "resign",
}
_ON_SQUARE = {
    "build": "build",
    "sell": "sell",
    "mortgage": "mortgage",
    "unmortgage": "unmortgage",
    "keep": "keep_mortgaged",
    "claim": "claim_rent",
}


def one_square(game: Game, text: str, lang: str = "en") -> int:
    """The one property ``text`` names, or a CommandError saying which ones it could be."""
    found = find_squares(game, text, lang=lang)
    if not found:
        near = ", ".join(square_name(game, s, lang) for s in near_squares(game, text, lang=lang))
        if near:
            raise CommandError(t(lang, "err.no_property_near", text=text.strip(), names=near))
        raise CommandError(t(lang, "err.no_property", text=text.strip()))
    if len(found) > 1:
        names = ", ".join(square_name(game, s, lang) for s in found[:6])
        raise CommandError(t(lang, "err.could_be", text=text.strip(), names=names))
    return found[0]


def any_square(game: Game, text: str, lang: str = "en") -> int:
    """The one square ``text`` names for its card: a deed as :func:`one_square` finds it, else a
    square that is no deed ("go", "jail", a board label such as "FREE"); the deed's error if none."""
    try:
        return one_square(game, text, lang)
    except CommandError:
        others = [s for s in find_squares(game, text, deeds_only=False, lang=lang) if "price" not in game.square(s)]
        if len(others) == 1:
            return others[0]
        raise


def one_player(game: Game, text: str, lang: str = "en") -> int:
    """The seat ``text`` names (a name, a name's start, or a seat number from 1)."""
    want = fold(text.strip())
    if want.isdigit() and 1 <= int(want) <= game.num_players:
        return int(want) - 1
    seats = [s for s, n in enumerate(game.names) if fold(n) == want] or [
        s for s, n in enumerate(game.names) if fold(n).startswith(want)
    ]
    if len(seats) != 1:
        raise CommandError(t(lang, "err.no_player", text=text.strip(), players=", ".join(game.names)))
    return seats[0]


def trade_words(kind: str, lang: str) -> list[str]:
    """The words of the trade command for ``kind`` (``jail_card``, ``community_chest``,
    ``nothing``), folded: the language's own (its catalog's ``trade.words.KIND``) and the English ones."""
    return [fold(word) for code in dict.fromkeys((lang, "en")) for word in t(code, f"trade.words.{kind}").split()]


def _says(item: str, kind: str, lang: str) -> bool:
    """Whether the folded trade item holds one of the words of ``kind``."""
    return any(word in item for word in trade_words(kind, lang))


def parse_items(game: Game, text: str, lang: str = "en") -> dict[str, Any]:
    """Trade items: comma-separated properties, '$100' or '100' cash, a jail card in the
    language's words ('jail card', 'carta prigione probabilità', 'løslatelseskort')."""
    bundle: dict[str, Any] = {"properties": [], "cash": 0, "jail_cards": []}
    for raw in filter(None, (part.strip() for part in re.split(r",|\band\b", text))):
        item = fold(raw)
        money = re.fullmatch(r"[$€]?\s*(\d+)\s*[$€]?", item)
        if money:
            bundle["cash"] += int(money.group(1))
            if bundle["cash"] > MOST_MONEY:
                raise CommandError(t(lang, "err.too_large", number=money.group(1)))
        elif _says(item, "jail_card", lang):
            kind = "community_chest" if _says(item, "community_chest", lang) else "chance"
            bundle["jail_cards"].append(kind)
        elif any(item == word for word in trade_words("nothing", lang)):
            continue
        else:
            bundle["properties"].append(one_square(game, raw, lang))
    return bundle


def parse(game: Game, seat: int, text: str, lang: str = "en", *, sent: Sequence[Action] = ()) -> Action | Local:
    """Turn one typed line into a move for ``seat`` or a console command. The command words are
    English in every language; ``lang`` adds its own words and says the errors in that language.
    ``sent``: the seat's moves sent and not yet played (a LAN game's), which a bare ``claim``
    passes over."""
    words = text.strip().split(maxsplit=1)
    if not words:
        raise CommandError(t(lang, "err.empty"))
    name = command_words(lang).get(fold(words[0]))
    rest = words[1] if len(words) > 1 else ""
    if name is None:
        near = near_commands(words[0], lang)
        if near:
            raise CommandError(t(lang, "err.unknown_near", word=words[0], near=", ".join(near)))
        raise CommandError(t(lang, "err.unknown", word=words[0]))
    if rest and (name in _SIMPLE or name in ("help", "quit")):
        raise CommandError(t(lang, "err.extra", word=words[0], extra=rest))
    if name == "info" and not rest:
        raise CommandError(t(lang, "err.what", name=words[0], example=str(game.square(39)["name"]).lower()))
    if name in ("replace", "remove") and not rest:
        raise CommandError(t(lang, "err.who", name=words[0], example=game.names[-1]))
    if name in ("help", "quit", "info", "portfolio", "replace", "remove"):
        return Local(name, rest)
    if name in _SIMPLE:
        return {"type": _SIMPLE[name], "player": seat}
    if name == "claim" and not rest:
        return _oldest_claim(game, seat, lang, sent)
    if name in _ON_SQUARE:
        if not rest:
            raise CommandError(t(lang, "err.what", name=name, example=str(game.square(39)["name"]).lower()))
        return {"type": _ON_SQUARE[name], "player": seat, "square": one_square(game, rest, lang)}
    if name == "bid":
        amount = re.fullmatch(r"[$€]?\s*(\d+)\s*[$€]?", rest.strip())
        if not amount:
            raise CommandError(t(lang, "err.bid"))
        # Beyond what the engine holds is beyond anyone's cash: the engine says the most one may bid.
        return {"type": "bid", "player": seat, "amount": min(int(amount.group(1)), MOST_MONEY)}
    if name == "selldown":
        return _selldown(game, seat, rest, lang)
    if name in ("accept", "reject"):
        return {"type": f"{name}_trade", "player": seat, "from": _offer_from(game, seat, name, rest, lang)}
    assert name == "trade"
    if rest and not re.search(rf"\b(?:{_either('give', lang)})\b", rest, flags=re.IGNORECASE):
        try:
            one_player(game, rest, lang)
        except CommandError:
            pass  # not a player's name alone: the usage below says what to type
        else:
            return Local("trade", rest)  # the trade panel, with that player
    return _trade(game, seat, rest, lang)


def _offer_from(game: Game, seat: int, name: str, rest: str, lang: str) -> int:
    """Whose offer ``accept``/``reject`` answers: the player named, or with no name the only
    offer waiting for ``seat``'s answer (several: the reply names them)."""
    if rest.strip():
        return one_player(game, rest, lang)
    senders = [int(offer["from"]) for offer in game.offers if offer["to"] == seat]
    if not senders:
        raise CommandError(t(lang, "err.no_offer"))
    if len(senders) > 1:
        names = ", ".join(game.names[s] for s in senders)
        raise CommandError(t(lang, "err.which_offer", names=names, name=name, example=game.names[senders[0]]))
    return senders[0]


def _oldest_claim(game: Game, seat: int, lang: str, sent: Sequence[Action]) -> Action:
    """A bare ``claim``: the oldest rent still owed to ``seat`` and not claimed by a move already
    sent (the one the hint line shows); the oldest of all if every one was sent."""
    owed = open_claims(game, seat, sent) or open_claims(game, seat)
    if not owed:
        raise CommandError(t(lang, "err.no_claim"))
    return {"type": "claim_rent", "player": seat, "square": owed[0]["square"]}


def _selldown(game: Game, seat: int, rest: str, lang: str) -> Action:
    parts = rest.split()
    levels = [p for p in parts if p.isdigit() and len(p) == 1]
    street = " ".join(p for p in parts if p not in levels)
    square = one_square(game, street, lang)
    info = game.square(square)
    if info["kind"] != "street":
        raise CommandError(t(lang, "err.streets_only"))
    return {"type": "sell_down", "player": seat, "group": info["group"], "levels": [int(x) for x in levels]}


def _either(kind: str, lang: str) -> str:
    """A pattern of the trade command's words for ``kind`` (``give``, ``for``), folded."""
    return "|".join(re.escape(word) for word in trade_words(kind, lang))


def _trade(game: Game, seat: int, rest: str, lang: str) -> Action:
    pattern = rf"(.+?)\s+(?:{_either('give', lang)})\s+(.*?)\s+(?:{_either('for', lang)})\s+(.*)"
    match = re.fullmatch(pattern, rest.strip(), flags=re.IGNORECASE)
    if not match:
        raise CommandError(t(lang, "err.trade"))
    to = one_player(game, match.group(1), lang)
    give = parse_items(game, match.group(2), lang)
    get = parse_items(game, match.group(3), lang)
    return {"type": "propose_trade", "player": seat, "to": to, "give": give, "get": get}


ARGUMENTS = ("AMOUNT", "PROPERTY", "PLAYER", "ITEMS", "SQUARE")
"""The placeholders of the commands' arguments, named in each language as its descriptions name
them (the catalog's ``arg.*``: "accept [JOUEUR]", described "... proposé par JOUEUR")."""


def placeholders(lang: str, args: str) -> str:
    """A command's argument hint with its placeholders in ``lang``, and the trade's words ``give``
    and ``for`` as the language's parser takes them (its first word of each)."""
    args = re.sub(r"\b(give|for)\b", lambda m: t(lang, f"trade.words.{m[0]}").split()[0], args)
    return re.sub(r"\b[A-Z]+\b", lambda m: t(lang, f"arg.{m[0]}") if m[0] in ARGUMENTS else m[0], args)


def help_text(lang: str = "en") -> str:
    """The command table, one line each, with the language's own words for the commands."""
    own: dict[str, list[str]] = {}
    for alias, name in ALIASES.get(lang, {}).items():
        own.setdefault(name, []).append(alias)
    lines = []
    for name, aliases, args in COMMANDS:
        english = _english_words(lang, name, aliases)
        words = [*own.get(name, []), *(w for w in english if w != name)]
        head = name if name in english or not words else words.pop(0)  # "multa", not Italian "fine"
        alias = f" ({', '.join(words)})" if words else ""
        usage = f"{head} {placeholders(lang, args)}".strip() + alias
        lines.append(f"  {usage:<38} {t(lang, 'cmd.' + name)}")
    return "\n".join(lines)


def command_for(action: Action, game: Game) -> str:
    """What to type for an action: ``parse(game, seat, command_for(action, game)) == action``."""
    kind = action["type"]
    for word, engine in {**_SIMPLE, **_ON_SQUARE}.items():
        if engine == kind:
            if "square" in action:
                return f"{word} {game.square(action['square'])['name']}"
            return word
    if kind == "bid":
        return f"bid {action['amount']}"
    if kind in ("accept_trade", "reject_trade"):
        return f"{kind.split('_')[0]} {game.names[action['from']]}"
    if kind == "sell_down":
        street = next(s for s in range(40) if game.square(s).get("group") == action["group"])
        levels = " ".join(str(level) for level in action["levels"])
        return f"selldown {game.square(street)['name']} {levels}"
    if kind == "propose_trade":
        give, get = _items(game, action.get("give", {})), _items(game, action.get("get", {}))
        return f"trade {game.names[action['to']]} give {give} for {get}"
    raise CommandError(f"no command for {kind!r}")


def _items(game: Game, bundle: dict[str, Any]) -> str:
    items = [game.square(s)["name"] for s in bundle.get("properties", [])]
    if bundle.get("cash"):
        items.append(f"${bundle['cash']}")
    for card in bundle.get("jail_cards", []):
        items.append("community chest jail card" if card == "community_chest" else "chance jail card")
    return ", ".join(items) or "nothing"
