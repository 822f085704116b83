"""Rent owed to the person and not yet claimed, in plain words for the hint line.

Under the printed books' rules (``rent_claim`` other than "automatic") the owner collects rent
only by claiming it (``claim_rent``) before it lapses: when the player of turn
``lapses_at_turn`` rolls. A newcomer who misses the log line loses the rent, so the console says
it on the hint line, with its deadline, and one key (``KEY``) or a bare ``claim`` collects it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from lanopoly._core import Game
from lanopoly.describe import square_name
from lanopoly.i18n import ALIASES, money, t

KEY = "f6"
"""The key that claims the oldest rent owed to the person (F2-F5 roll, buy, decline and end)."""

WAIT = 8.0
"""Seconds the bots of a local game wait before the roll that would end a claim owed to the person:
they play a move every few tenths of a second, and a person needs time to read the hint line."""

Claim = dict[str, Any]


def open_claims(game: Game, seat: int, sent: Sequence[dict[str, Any]] = ()) -> list[Claim]:
    """The rent ``seat`` may still claim, oldest first (none once the game is over), but for the
    claims ``sent`` (a LAN game's moves sent and not yet played: on their way). A claim names a
    square, and the engine takes the oldest rent owed on it: each one sent passes over one."""
    if game.is_over:
        return []
    on_the_way = Counter(a["square"] for a in sent if a.get("type") == "claim_rent" and a.get("player") == seat)
    left = []
    for claim in game.claims:
        if claim["owner"] != seat:
            continue
        if on_the_way[claim["square"]]:
            on_the_way[claim["square"]] -= 1
        else:
            left.append(dict(claim))
    return left


def lapsing_seat(game: Game, claim: Claim) -> int:
    """The seat whose roll ends ``claim``: the player of turn ``lapses_at_turn``, counted on from
    the turn player over the seats still in (as the engine passes play on, ``next_turn``)."""
    seat = game.turn_player
    for _ in range(max(0, claim["lapses_at_turn"] - game.turn)):
        for _step in range(game.num_players):
            seat = (seat + 1) % game.num_players
            if not game.player(seat)["bankrupt"]:
                break
    return seat


def claim_word(lang: str) -> str:
    """The word a person of ``lang`` types to claim: the language's own, or "claim"."""
    return next((alias for alias, name in ALIASES.get(lang, {}).items() if name == "claim"), "claim")


def claim_hint(game: Game, seat: int, lang: str, sent: Sequence[dict[str, Any]] = ()) -> str | None:
    """The hint line while rent is owed to ``seat``: who owes what for which square, how to claim
    it and before whose roll; with several, how many and the oldest. None when nothing is owed
    but by claims already ``sent``."""
    claims = open_claims(game, seat, sent)
    if not claims:
        return None
    oldest = claims[0]
    by = lapsing_seat(game, oldest)
    deadline = t(lang, "claim.before_you") if by == seat else t(lang, "claim.before", player=game.names[by])
    fields = {
        "payer": game.names[oldest["payer"]],
        "amount": money(lang, game.currency, oldest["amount"]),
        "square": square_name(game, oldest["square"], lang),
        "button": KEY.upper(),
        "word": claim_word(lang),
        "deadline": deadline,
    }
    if len(claims) == 1:
        return t(lang, "claim.one", **fields)
    return t(lang, "claim.many", n=len(claims), **fields)


def ending_now(game: Game, seat: int) -> list[Claim]:
    """The claims of ``seat`` that the turn player's next roll ends, while that player is another:
    the last moment to claim them."""
    if game.is_over or game.turn_player == seat:
        return []
    return [c for c in open_claims(game, seat) if lapsing_seat(game, c) == game.turn_player]
