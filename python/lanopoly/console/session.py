"""A table on this machine: one person against bots, stepped by the console's event loop.

The table owns the game and the log of sentences; the user interface only reads it and sends the
person's commands. Bots and chance move the game on one step at a time, so the screen can show
each step. The table also follows the events for the end-of-game summary: who held which deed
for how many turns, and the rent each player paid and received.

Given a file, the table saves its game log there as it goes (when the game comes to the person,
on the first move a second or more after the last save, and when the game ends or the table
closes), so that a game cut short is taken up again with :meth:`LocalTable.continued`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from lanopoly._core import Game, Rules
from lanopoly.bots import DIFFICULTIES, Policy, SimpleBot, answer_out_of_turn, claim_out_of_turn
from lanopoly.console.bid_clock import BID_TIMERS
from lanopoly.console.commands import CommandError
from lanopoly.console.saves import shown_path
from lanopoly.describe import describe_events, square_name
from lanopoly.i18n import money, plural, t
from lanopoly.log import GameLog

SAVE_EVERY = 1.0
"""Seconds between two saves of a game against bots (it is also saved at once whenever the game
comes to the person, who may think for long)."""

Action = dict[str, Any]
Event = Mapping[str, Any]


@dataclass(frozen=True)
class Standing:
    """One player at the end: net worth (0 when bankrupt), rent paid and received, and the deed
    held longest (square, turns) if any."""

    seat: int
    name: str
    bankrupt: bool
    net_worth: int
    rent_paid: int
    rent_received: int
    longest: tuple[int, int] | None


@dataclass(frozen=True)
class Summary:
    """The end of a game: the winner, each player's standing, and the longest holding of all
    (seat, square, turns)."""

    winner: int | None
    round: int
    """The round the game ended in, numbered as the log numbers them (from 1)."""
    standings: list[Standing]
    record: tuple[int, int, int] | None
    worth: tuple[tuple[int, ...], ...] = ()
    """Each player's net worth as each round began (one row a round, one column a seat)."""
    biggest_rent: tuple[int, int, int, int] | None = None
    """The largest rent paid: (payer, owner, amount, round)."""
    out: tuple[int, ...] = ()
    """The seats that went bankrupt or resigned, the first to go first."""

    def ranked(self) -> list[Standing]:
        """The standings in the order a player reads a result: the winner first, then those still
        in by net worth, then the bankrupt, the last to go first (seat order breaks ties)."""
        gone = {seat: order for order, seat in enumerate(self.out)}

        def rank(row: Standing) -> tuple[bool, bool, int, int]:
            behind = -gone.get(row.seat, -1) if row.bankrupt else -row.net_worth
            return (row.seat != self.winner, row.bankrupt, behind, row.seat)

        return sorted(self.standings, key=rank)


class Ledger:
    """What the summary needs, followed event by event: deed holdings measured in turns started
    while held, rent payments between players, and each player's net worth as each round began."""

    def __init__(self, players: int) -> None:
        self.turns = 0
        self.round = 0
        self.worth: list[tuple[int, ...]] = []
        self.biggest_rent: tuple[int, int, int, int] | None = None
        self.holder: dict[int, tuple[int, int]] = {}  # square -> (seat, since turn)
        self.held: dict[tuple[int, int], int] = {}  # (seat, square) -> turns, closed holdings
        self.rent_paid = [0] * players
        self.rent_received = [0] * players
        self.last_roll: tuple[int, int, int] | None = None
        """The last roll of the dice for a move: (seat, die, die); the status line shows it."""
        self.doubled: int | None = None
        """The seat whose last roll of its turn was a double, until the next turn starts: when the
        engine has it roll again, the decision says why ("you must roll first" puzzled a newcomer
        who ended the turn)."""
        self.out: list[int] = []
        """The seats that went bankrupt or resigned, in the order they went."""

    def see(self, event: Event, game: Game) -> None:
        """Follow one event of a step just applied to ``game``."""
        kind = event["type"]
        if kind == "rolled":
            self.last_roll = (event["player"], *event["dice"])
            a, b = event["dice"]
            self.doubled = event["player"] if a == b else None
        elif kind == "turn_started":
            self.doubled = None
            self.turns += 1
            self.round = event["round"] + 1
            if self.round > len(self.worth):
                self.worth.append(tuple(game.net_worth(seat) for seat in range(game.num_players)))
        elif kind in ("bankrupt", "resigned"):
            if event["player"] not in self.out:
                self.out.append(event["player"])
        elif kind in ("bought", "deed_dealt") or (kind == "auction_won" and "square" in event):
            self._hand(event["square"], event["player"])
        elif kind == "property_transferred":
            self._hand(event["square"], event["to"])
        elif kind == "payment" and event["reason"] == "rent":
            if isinstance(event["from"], dict):
                self.rent_paid[event["from"]["player"]] += event["amount"]
            if isinstance(event["to"], dict):
                self.rent_received[event["to"]["player"]] += event["amount"]
            between_players = isinstance(event["from"], dict) and isinstance(event["to"], dict)
            if between_players and (self.biggest_rent is None or event["amount"] > self.biggest_rent[2]):
                self.biggest_rent = (event["from"]["player"], event["to"]["player"], event["amount"], self.round)

    def _hand(self, square: int, seat: int | None) -> None:
        previous = self.holder.pop(square, None)
        if previous is not None:
            key = (previous[0], square)
            self.held[key] = self.held.get(key, 0) + self.turns - previous[1]
        if seat is not None:
            self.holder[square] = (seat, self.turns)

    def holdings(self) -> dict[tuple[int, int], int]:
        """Turns each (seat, square) was held, the current holdings counted up to now."""
        out = dict(self.held)
        for square, (seat, since) in self.holder.items():
            out[(seat, square)] = out.get((seat, square), 0) + self.turns - since
        return out

    def summary(self, game: Game) -> Summary:
        holdings = self.holdings()
        standings = []
        for seat in range(game.num_players):
            mine = [(turns, -square) for (s, square), turns in holdings.items() if s == seat]
            longest = max(mine, default=None)
            p = game.player(seat)
            standings.append(
                Standing(
                    seat=seat,
                    name=str(p["name"]),
                    bankrupt=bool(p["bankrupt"]),
                    net_worth=game.net_worth(seat),
                    rent_paid=self.rent_paid[seat],
                    rent_received=self.rent_received[seat],
                    longest=(-longest[1], longest[0]) if longest else None,
                )
            )
        best = max(((turns, -seat, -square) for (seat, square), turns in holdings.items()), default=None)
        record = (-best[1], -best[2], best[0]) if best else None
        worth = tuple(self.worth)
        return Summary(game.winner, max(1, self.round), standings, record, worth, self.biggest_rent, tuple(self.out))


def _saved_timer(value: object) -> int:
    """The bid timer a saved game against bots was played with: one the start screen offers,
    else none (a hand-edited file's other value is not trusted with the person's bids)."""
    return value if type(value) is int and value in BID_TIMERS else 0


class LocalTable:
    """One human seat (``me``) and bots in the others; the log in the language ``lang``. With
    ``save``, the game log is kept in that file (with ``me`` and the bots' ``difficulty``)."""

    def __init__(
        self,
        names: list[str],
        me: int = 0,
        board: str = "classic",
        rules: Rules | None = None,
        seed: int | None = None,
        bot: Callable[[], Policy] = SimpleBot,
        lang: str = "en",
        save: Path | None = None,
        difficulty: str = "",
        bid_timer: int = 0,
    ) -> None:
        self.game = Game(names, board=board, rules=rules, seed=seed)
        self.me = me
        self.lang = lang
        self.bots: dict[int, Policy] = {seat: bot() for seat in range(len(names)) if seat != me}
        self.lines: list[str] = []
        self.record = GameLog.start(self.game)
        self.record.table = {"me": me, "difficulty": difficulty}
        if bid_timer:
            self.record.table["bid_timer"] = bid_timer  # `lanopoly continue` plays on with it
        self.ledger = Ledger(len(names))
        self.summarized = False
        self.save_path = save
        self.bid_timer = bid_timer
        """Seconds the person has to bid before the console passes for them (the start screen's; 0 off)."""
        self._saved_at = 0.0

    @classmethod
    def continued(cls, log: GameLog, path: Path, lang: str = "en") -> LocalTable:
        """The game against bots saved in ``path`` (its ``log``), played again input by input and
        checked against every recorded hash: the screen's log is told again from the start, the
        bots decide their moves again (``_replay``), and the game goes on saving to ``path``.
        Raises ReplayMismatch if the file was altered."""
        info = log.table or {}
        difficulty = str(info.get("difficulty") or "normal")
        table = cls(
            list(log.names),
            me=int(info.get("me", 0)),
            board=log.board,
            rules=log.game_rules(),
            bot=DIFFICULTIES.get(difficulty, DIFFICULTIES["normal"]),
            lang=lang,
            difficulty=difficulty,
            bid_timer=_saved_timer(info.get("bid_timer")),
        )
        log.replay(table.game, table._replay)
        table.save_path = path
        table.lines.append(t(lang, "local.continued", path=path.name))
        return table

    @property
    def my_move(self) -> bool:
        """Does the game wait for the person?"""
        return self.game.current_player == self.me

    @property
    def over(self) -> bool:
        return self.game.is_over

    def step(self) -> bool:
        """Let chance or one bot move the game on by one input; a bot owed rent claims it first,
        and a bot offered a trade answers it, out of turn (even while the person is to act).
        False if the person must act (or the game is over)."""
        game = self.game
        if game.is_over:
            return False
        claim = claim_out_of_turn(game, self.bots)
        if claim is not None:
            self._apply(dict(claim))
            return True
        answer = answer_out_of_turn(game, self.bots)  # a bot offered a trade answers at once
        if answer is not None:
            self._apply(dict(answer))
            return True
        if self.my_move:
            return False
        action: Mapping[str, Any]
        if game.is_chance_node:
            action = game.sample_chance()
        else:
            seat = game.current_player
            assert seat is not None
            action = self.bots[seat].choose(game, seat, game.legal_actions(seat))
        self._apply(dict(action))
        return True

    def act(self, action: Action) -> str | None:
        """Apply the person's move; raises IllegalAction with the reason (nothing changes)."""
        self._apply(action)
        return None

    def saved_at(self) -> str | None:
        """Where the game is saved, as the person reads it (``~/...``); None when it is not."""
        return shown_path(self.save_path) if self.save_path is not None else None

    def farewell(self) -> str | None:
        """What to print once the console closed on an unfinished game: where it is saved and how
        to play on (``lanopoly continue``); None when it is over or not saved."""
        path = self.saved_at()
        if path is None or self.game.is_over:
            return None
        return t(self.lang, "local.saved_at", path=path)

    def queued(self) -> list[Action]:
        """Moves sent and waiting for a step to come (only a LAN game queues moves)."""
        return []

    def replace(self, seat: int, choice: str = "bot") -> str:
        """Only a LAN game has peers to vote out: here bots already play every other seat."""
        raise CommandError(t(self.lang, "net.replace_local"))

    def legal(self) -> list[Action]:
        """What the person may do now (in turn or out of turn)."""
        if self.game.is_over or self.game.is_chance_node:
            return []
        return [dict(a) for a in self.game.legal_actions(self.me)]

    def summary(self) -> Summary:
        """The standings so far (the final ones once the game is over)."""
        return self.ledger.summary(self.game)

    def summary_lines(self) -> list[str]:
        """The end-of-game summary as log lines in the table's language."""
        return summary_lines(self.game, self.summary(), self.lang)

    def status(self) -> tuple[str, str] | None:
        """A line about the table for the game screen (a LAN table has one; a local one not)."""
        return None

    def alert(self) -> str | None:
        """What stops the game, in place of the decision (only a LAN game has such things)."""
        return None

    def away_seats(self) -> dict[int, float]:
        """Seats whose player's connection dropped, with seconds away (none at a local table)."""
        return {}

    def replaced_seats(self) -> set[int]:
        """Seats a bot plays in place of a peer voted out (none at a local table)."""
        return set()

    async def close(self) -> None:
        """Leave the table: save the game as it stands (when it is saved)."""
        self.save()

    def save(self) -> None:
        """Write the game log to the table's file now. A failure is told once in the log, and
        the game goes on unsaved."""
        if self.save_path is None:
            return
        try:
            self.record.save(self.save_path)
        except OSError as e:
            self.lines.append(t(self.lang, "local.save_failed", path=str(self.save_path), reason=e.strerror or e))
            self.save_path = None
        self._saved_at = time.monotonic()

    def _replay(self, action: Action) -> None:
        """Apply a saved input; a bot's move is first decided again by the bot, in turn or out of
        turn (a claim, an answer to an offer), so that it plays on remembering what it did (its
        trade offers, the search bot's random stream), as if the game had never stopped. The saved
        move is the one applied."""
        game = self.game
        player = action.get("player")
        if player in self.bots and not game.is_chance_node:
            bot = self.bots[player]
            if player == game.current_player:
                bot.choose(game, player, game.legal_actions(player))
            elif (interject := getattr(bot, "interject", None)) is not None:
                interject(game, player, game.legal_actions(player))
        self._apply(action)

    def _apply(self, action: Action) -> None:
        was_mine = self.my_move
        events = self.game.apply(action)
        self.record.record(action, self.game)
        for event in events:
            self.ledger.see(event, self.game)
        self.lines.extend(describe_events(self.game, events, lang=self.lang))
        if self.game.is_over and not self.summarized:
            self.summarized = True
            self.lines.extend(self.summary_lines())
        # Saved once the game waits for the person after a move not theirs: a bot's or chance's
        # that handed it over, or a bot's out of turn (an answer to the person's offer).
        handed = self.my_move and (not was_mine or action.get("player") != self.me)
        if self.save_path is not None and (
            handed or self.game.is_over or time.monotonic() - self._saved_at >= SAVE_EVERY
        ):
            self.save()


def summary_lines(game: Game, s: Summary, lang: str) -> list[str]:
    """The end-of-game summary as log lines in ``lang``."""
    winner = game.names[s.winner] if s.winner is not None else t(lang, "dec.nobody")
    lines = [t(lang, "end.title", round=s.round, winner=winner), *tie_lines(game, s, lang)]
    for rank, row in enumerate(s.ranked(), 1):
        fields = {
            "rank": rank,
            "name": row.name,
            "worth": money(lang, game.currency, row.net_worth),
            "paid": money(lang, game.currency, row.rent_paid),
            "received": money(lang, game.currency, row.rent_received),
        }
        lines.append(t(lang, "end.bankrupt" if row.bankrupt else "end.player", **fields))
        if row.longest is None:
            lines.append(t(lang, "end.no_property"))
        else:
            square, turns = row.longest
            lines.append(plural(lang, "end.longest", turns, square=square_name(game, square, lang), turns=turns))
    if s.record is not None:
        seat, square, turns = s.record
        where = square_name(game, square, lang)
        lines.append(plural(lang, "end.record", turns, name=game.names[seat], square=where, turns=turns))
    return lines + moments_lines(game, s, lang)


def tie_lines(game: Game, s: Summary, lang: str) -> list[str]:
    """Why the winner won when others still in had the same net worth (the engine's tie-break:
    more cash, then the first in the order of play): a line saying which one decided; none
    without a tie (a tied end said only who won, as if the others had less)."""
    if s.winner is None or s.standings[s.winner].bankrupt:
        return []
    worth = s.standings[s.winner].net_worth
    tied = [row for row in s.standings if row.seat != s.winner and not row.bankrupt and row.net_worth == worth]
    if not tied:
        return []
    cash = game.player(s.winner)["cash"]
    decided = "end.tie_cash" if cash > max(game.player(row.seat)["cash"] for row in tied) else "end.tie_order"
    fields = {
        "worth": money(lang, game.currency, worth),
        "cash": money(lang, game.currency, cash),
        "others": ", ".join(row.name for row in tied),
        "winner": game.names[s.winner],
    }
    return [t(lang, decided, **fields)]


BARS = " ▁▂▃▄▅▆▇█"
"""A net worth as a bar of its chart: nothing, then eight heights up to the top of the chart."""
CHART_WIDTH = 60
"""The most columns a chart row takes (more rounds than that: one column for several)."""


def worth_chart(worth: Sequence[Sequence[int]], seat: int) -> str:
    """One player's net worth round by round as a row of bars, all rows on one scale."""
    top = max((max(row) for row in worth), default=0)
    if top <= 0:
        return ""
    rounds = len(worth)
    columns = min(rounds, CHART_WIDTH)
    bars = []
    for column in range(columns):
        value = worth[(column + 1) * rounds // columns - 1][seat]  # the last round of the column
        bars.append(BARS[0] if value <= 0 else BARS[max(1, -(-value * 8 // top))])
    return "".join(bars)


def lead_since(worth: Sequence[Sequence[int]], seat: int) -> int | None:
    """The round from which ``seat``'s net worth was the highest until the end (None: never)."""
    since = None
    for number, row in enumerate(worth, 1):
        leading = row[seat] >= max(row) and row[seat] > 0
        since = (since or number) if leading else None
    return since


def moments_lines(game: Game, s: Summary, lang: str) -> list[str]:
    """The end-of-game chart of net worths by round, when the winner took the lead for good, and
    the largest rent paid."""
    lines: list[str] = []
    if s.worth and max(max(row) for row in s.worth) > 0:
        top = max(max(row) for row in s.worth)
        lines.append(plural(lang, "end.chart", len(s.worth), top=money(lang, game.currency, top), rounds=len(s.worth)))
        width = max(len(name) for name in game.names[: game.num_players])
        for seat in range(game.num_players):
            lines.append(f"   {game.names[seat]:<{width}} {worth_chart(s.worth, seat)}")
        since = lead_since(s.worth, s.winner) if s.winner is not None else None
        if since is not None and s.winner is not None:
            lines.append(t(lang, "end.lead", name=game.names[s.winner], round=since))
    if s.biggest_rent is not None:
        payer, owner, amount, number = s.biggest_rent
        amount_text = money(lang, game.currency, amount)
        told = {"payer": game.names[payer], "owner": game.names[owner], "amount": amount_text, "round": number}
        lines.append(t(lang, "end.biggest_rent", **told))
    return lines


class Table(Protocol):
    """What the game screen needs of a table: a local one (:class:`LocalTable`) or a LAN one
    (:class:`lanopoly.console.net_session.NetTable`)."""

    lang: str
    me: int
    lines: list[str]
    ledger: Ledger

    @property
    def game(self) -> Game: ...

    @property
    def bid_timer(self) -> int:
        """Seconds the console gives the person to bid before it passes for them (0: no timer)."""
        ...

    @property
    def my_move(self) -> bool: ...

    @property
    def over(self) -> bool: ...

    def act(self, action: Action) -> str | None:
        """Play the person's move; a message to show instead of "ok" (a move queued), or None."""
        ...

    def replace(self, seat: int, choice: str = "bot") -> str:
        """Vote to give the seats of the peer playing ``seat`` to a bot (``choice`` "bot") or to have
        them resign to the bank ("bank"); what to tell the person. Raises CommandError saying why not."""
        ...

    def legal(self) -> list[Action]: ...

    def farewell(self) -> str | None:
        """What to print once the console closed on an unfinished game (where it is saved)."""
        ...

    def queued(self) -> list[Action]:
        """The person's moves sent out of turn and not yet taken or dropped (a LAN game's)."""
        ...

    def summary(self) -> Summary: ...

    def status(self) -> tuple[str, str] | None: ...

    def alert(self) -> str | None: ...

    def away_seats(self) -> dict[int, float]: ...

    def replaced_seats(self) -> set[int]: ...

    async def close(self) -> None: ...
