"""A networked table: the console's view of a LAN game played in lockstep with other peers.

``NetTable`` has the interface the console uses for a local table (``game``, ``me``, ``lang``,
``lines``, ``my_move``, ``act``, ``legal``, ``summary``), but the game is the one the session core
(:mod:`lanopoly.net.core.session`) plays, run by its asyncio driver (:mod:`lanopoly.net.driver`)
in a task beside the user interface. The table subscribes to the session's typed events: it tells
each step in the log, follows the peers away, back and voted out, and tells ``changes`` so that the
game screen redraws; it never polls the session.

The person's seat has no policy: the core says when it waits for the person's move (``YourMove``)
and takes it from ``submit``. A move out of turn (a bid while another seat is to bid, building,
mortgaging, a trade or an answer to one, a rent claim) is checked by the engine at once and handed
to ``submit`` too: the core queues it, nests it in this peer's next ack or offers it to the step's
leader, and says when it was not played (``MoveDropped``): the log then tells the person to type
it again. The bots this peer controls (the host's free seats) are the core's, paced by its
``bot_delay``.

A peer whose connection drops is waited for (``rejoin_timeout``): the table shows who is away and
since when, and says so again when it is back. The game is saved continuously (the log, and next to
it the journal and this peer's secrets: :mod:`lanopoly.net.store`), so that ``lanopoly rejoin FILE``
takes the seat again after a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lanopoly._core import Game, IllegalAction, Rules
from lanopoly.bots import Policy
from lanopoly.console.changes import Changes
from lanopoly.console.commands import CommandError, command_for
from lanopoly.console.saves import shown_path
from lanopoly.console.session import Ledger, Summary, summary_lines
from lanopoly.describe import describe_events
from lanopoly.i18n import clock, plural, t
from lanopoly.net.core import effects as fx
from lanopoly.net.core.members import Change
from lanopoly.net.core.outcome import SessionResult
from lanopoly.net.core.session import Config, Session
from lanopoly.net.desync import write_report
from lanopoly.net.driver import Driver
from lanopoly.net.genesis import StartRecord
from lanopoly.net.hosting import Gate, Started
from lanopoly.net.links import Conn
from lanopoly.net.play import driver_for, rebuild, restart
from lanopoly.net.store import StoreError

Action = dict[str, Any]

log = logging.getLogger(__name__)

CLOSE_TIMEOUT = 5.0
"""Seconds leaving a LAN game may take (the session stops and closes its connections; a game just
over lingers a moment for a peer catching up)."""

STEP_TIMEOUT = 3600.0
"""Seconds a peer waits for another peer's input: people think, so it is long (a lost
connection is still noticed at once)."""

REJOIN_TIMEOUT = 300.0
"""Seconds the game waits for a peer whose connection dropped to come back (``lanopoly rejoin``)
before it stops."""

KEEP_STEP_LINES = 64
"""How many recent steps the table remembers where their lines start (a replacement is told there)."""


def console_policies(record: StartRecord, me: int, bot: Callable[[], Policy]) -> dict[int, Policy | None]:
    """The policies of this peer's seats: the person (None) in the first one, bots in the others."""
    mine = record.seats_of(me)
    return {seat: (None if seat == mine[0] else bot()) for seat in mine}


def console_config(bot_delay: float, rejoin_timeout: float = REJOIN_TIMEOUT) -> Config:
    """The session's pace for people: a long step timeout, bots that wait ``bot_delay`` seconds."""
    return Config(step_timeout=STEP_TIMEOUT, rejoin_timeout=rejoin_timeout, bot_delay=bot_delay)


class NetTable:
    """The person's seat in a LAN game; the console's table for it.

    ``me`` is the person's seat; the log is in ``lang``. ``start()`` runs the driver in a task (the
    console does it when the game screen opens); ``close()`` leaves the game (the other peers see
    this peer drop, and wait for it to rejoin). ``save`` is where the driver saves the game. Make
    one for a new game with :meth:`new`, or for a saved one with :meth:`restarted`.
    """

    def __init__(
        self,
        driver: Driver,
        gate: Gate,
        *,
        links: Mapping[int, tuple[Conn, int]] | None = None,
        lang: str = "en",
        save: Path | None = None,
    ) -> None:
        self.driver = driver
        self.core: Session = driver.core
        self.gate = gate
        self.lang = lang
        self.save = save
        people = [seat for seat, policy in self.core.policies.items() if policy is None]
        if len(people) != 1:
            raise ValueError("a console table has exactly one seat played by the person")
        self.me = people[0]
        self.record = self.core.genesis.record
        self.lines: list[str] = []
        self.ledger = Ledger(self.game.num_players)
        self.summarized = False
        self.result: SessionResult | None = None
        self.failure = ""
        self.changes = Changes()
        """Told on every event of the session: the game screen (and ``reach``) wait for the next."""
        self.asked = -1
        """The last step at which the session asked for the person's move."""
        self._links = dict(links or {})
        self._task: asyncio.Task[SessionResult] | None = None
        self._told: Game = self._fresh_game()
        """The game as far as the log tells it: each step is told on the state just after it."""
        self._sent: list[Action] = []
        """Out-of-turn moves handed to the session and not yet seen taken or dropped, oldest first."""
        self._pending: tuple[int, Action] | None = None
        """The person's move in turn handed to the session, with the step it is for."""
        self._told_away: set[int] = set()
        self._step_lines: dict[int, int] = {}
        """Where the lines of each recent step start in ``lines``: a replacement is told just before
        the step it starts at, however far this peer had played when it learnt of it."""
        if self.core.game.step:
            self._retell()
            self.lines.append(t(lang, "net.back_in", step=self.core.game.step))
        driver.subscribe(self._on_event)
        if self.record.bid_timer:
            self.lines.append(t(lang, "net.bid_timer", seconds=self.record.bid_timer))
        if save is not None:
            self.lines.extend(t(lang, "net.saving").splitlines())  # lines that fit 80 columns

    @classmethod
    def new(
        cls,
        started: Started,
        *,
        bot: Callable[[], Policy],
        lang: str = "en",
        bot_delay: float = 0.3,
        rejoin_timeout: float = REJOIN_TIMEOUT,
        save: Path | None = None,
        interfaces: list[str] | None = None,
    ) -> NetTable:
        """The table of a game just set up; saving to ``save`` writes its journal and secrets too."""

        def policies(record: StartRecord, me: int) -> dict[int, Policy | None]:
            return console_policies(record, me, bot)

        config = console_config(bot_delay, rejoin_timeout)
        driver = driver_for(started, policies, config, save=save, interfaces=interfaces)
        return cls(driver, started.gate, links=started.links, lang=lang, save=save)

    @classmethod
    async def restarted(
        cls,
        save: Path,
        *,
        bot: Callable[[], Policy],
        lang: str = "en",
        bot_delay: float = 0.3,
        rejoin_timeout: float = REJOIN_TIMEOUT,
        interfaces: list[str] | None = None,
    ) -> NetTable:
        """The table of the game saved at ``save``, rebuilt from its journal and listening again (it
        dials every other peer once started). StoreError when the files are missing or do not hold, or
        the game is over already (then nothing is opened)."""

        def policies(record: StartRecord, me: int) -> dict[int, Policy | None]:
            return console_policies(record, me, bot)

        rebuilt = rebuild(save, policies, console_config(bot_delay, rejoin_timeout))
        if rebuilt.core.game.is_over:  # nothing to take up: no port is opened, nobody dialed
            raise StoreError(t(lang, "net.refused_over"))
        driver, gate = await restart(rebuilt, interfaces=interfaces)
        return cls(driver, gate, lang=lang, save=save)

    # -- the table interface ---------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.core.game

    @property
    def bid_timer(self) -> int:
        """The bid timer agreed in the lobby (the start record's, the same on every peer; 0: none)."""
        return self.record.bid_timer

    @property
    def my_move(self) -> bool:
        """Does the game wait for the person (and is the session still playing)?"""
        return self.playing and self.game.current_player == self.me

    @property
    def over(self) -> bool:
        return self.game.is_over

    @property
    def playing(self) -> bool:
        """The session runs: not over, not frozen, not left."""
        return self.result is None and not self.failure and not self.game.is_over

    @property
    def frozen(self) -> bool:
        return self.result is not None and self.result.outcome == "frozen"

    @property
    def waiting_for_you(self) -> bool:
        """The session asked for the person's move at the step to come and has it not yet."""
        return self.playing and self.asked == self.game.step + 1 and not self.move_pending

    @property
    def move_pending(self) -> bool:
        """A move of the person in turn was handed over and the step it is for is not decided yet."""
        return self._pending is not None and self._pending[0] == self.game.step + 1

    @property
    def bots(self) -> Mapping[int, Policy]:
        """The bots this peer plays (the host's free seats, and those of peers voted out to a bot here)."""
        return {seat: p for seat, p in self.core.policies.items() if p is not None}

    def start(self) -> None:
        """Run the driver in a task of the running event loop (once)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
            self._task.add_done_callback(self._ended)

    async def _run(self) -> SessionResult:
        try:
            return await self.driver.run(self._links)
        finally:
            await self.gate.close()

    async def reach(self, every: bool, timeout: float) -> list[int]:
        """Run the session (when not yet) and wait up to ``timeout`` seconds until a link to another
        peer is up, or to ``every`` peer still playing; the peers not reached by then (none: done,
        or the session already ended and says why)."""
        self.start()

        def missing() -> list[int]:
            others = self.core.members.others(self.core.me)
            away = [peer for peer in others if peer not in self.core.links]
            if self.result is not None or self.failure or not (every or len(away) == len(others)):
                return []
            return away

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while missing() and loop.time() < deadline:
            seen = self.changes.count
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changes.since(seen), deadline - loop.time())
        return missing()

    async def stop(self) -> None:
        """Stop the session without leaving the game (nothing is recorded: the game was not
        taken up), and close every connection."""
        task = self._task
        if task is None:
            await self.driver.close()
            await self.gate.close()
            return
        task.cancel()
        await asyncio.wait([task], timeout=CLOSE_TIMEOUT)

    async def close(self) -> None:
        """Leave the game: the session stops here (the others wait for this peer to rejoin) and
        closes every connection."""
        task = self._task
        if task is None:
            await self.driver.close()
            await self.gate.close()
            return
        if not task.done():
            if self.core.result is None:
                with contextlib.suppress(ValueError):
                    self.driver.leave()
            await asyncio.wait([task], timeout=CLOSE_TIMEOUT)
        if not task.done():
            log.warning("the LAN session did not stop within %g s; stopping it", CLOSE_TIMEOUT)
            task.cancel()
            await asyncio.wait([task], timeout=CLOSE_TIMEOUT)

    def act(self, action: Action) -> str | None:
        """Play the person's move. In turn it is handed to the session for the step it waits for;
        out of turn it is queued (sent with this peer's next ack, or offered to the step's leader)
        and the returned message says so. Raises CommandError when the game is not playing or a
        move in turn is being sent, and IllegalAction with the engine's reason (nothing is sent)."""
        lang, game = self.lang, self.game
        if self.frozen:
            raise CommandError(t(lang, "net.refused_frozen"))
        if not self.playing:
            raise CommandError(t(lang, "net.refused_over"))
        in_turn = game.current_player == self.me and not game.is_chance_node
        if in_turn and self.move_pending:
            raise CommandError(t(lang, "net.sending"))
        game.check(action)
        if in_turn:
            self._pending = (game.step + 1, dict(action))
        elif action in self._sent:  # the same move again: it is already waiting
            return self._queued_text(action)
        else:
            self._sent.append(dict(action))
        text = None if in_turn else self._queued_text(action)
        try:
            self.driver.submit(self.me, action)
        except IllegalAction:
            self._undo(in_turn, action)
            raise
        except ValueError as e:
            self._undo(in_turn, action)
            raise CommandError(str(e)) from None
        self.changes.tell()
        return text

    def _undo(self, in_turn: bool, action: Action) -> None:
        if in_turn:
            self._pending = None
        elif action in self._sent:
            self._sent.remove(action)

    def replace(self, seat: int, choice: str = "bot") -> str:
        """Vote to have the peer playing ``seat`` replaced by a bot, or voted out to the bank
        (``choice`` "bank"); the change is made when every other peer votes the same (with two
        peers, only to the bank). What to tell the person."""
        core, lang = self.core, self.lang
        peer = core.controllers[seat]
        name = self.game.names[seat]
        if peer == core.me:
            raise CommandError(t(lang, "net.replace_self", name=name))
        if not core.members.is_present(peer):
            raise CommandError(t(lang, "net.replace_gone", name=name))
        if len(core.members.present) < 3 and choice != "bank":
            raise CommandError(t(lang, "net.replace_two"))
        try:
            self.driver.vote_replace(peer, choice)
        except ValueError as e:
            raise CommandError(str(e)) from None
        self.changes.tell()
        return t(lang, "net.replace_voted" if choice == "bot" else "net.remove_voted", name=name)

    def legal(self) -> list[Action]:
        """What the person may do now: in turn (unless a move is being sent), or out of turn."""
        if not self.playing or self.game.is_chance_node or self.move_pending:
            return []
        return [dict(a) for a in self.game.legal_actions(self.me)]

    def summary(self) -> Summary:
        return self.ledger.summary(self.game)

    def farewell(self) -> str | None:
        """What to print once the console closed on an unfinished game: where it is saved and how
        to take it up again (the start screen's F4/F5, or the commands), in lines of 80 columns
        but for the file's path."""
        if self.save is None or self.game.is_over:
            return None
        return t(self.lang, "net.saved_at", path=shown_path(self.save))

    def summary_lines(self) -> list[str]:
        return summary_lines(self.game, self.summary(), self.lang)

    # -- out-of-turn moves -----------------------------------------------------------------------

    def queued(self) -> list[Action]:
        """The person's out-of-turn moves sent or waiting to be sent, and not yet taken or dropped."""
        return list(self._sent)

    def _queued_text(self, action: Action) -> str:
        """What the person sees once an out-of-turn move is queued: it is taken at a step to come
        (even while a person decides the current one: the leader of the step may play it first)."""
        return t(self.lang, "net.queued", command=command_for(action, self.game))

    def _not_taken(self, action: Action) -> None:
        self.lines.append(t(self.lang, "net.not_taken", command=command_for(action, self._told)))

    # -- the LAN status --------------------------------------------------------------------------

    def peer_names(self) -> list[str]:
        return [p.name for p in self.record.peers]

    def disconnected(self) -> dict[int, str]:
        """Peers whose connection this peer closed because they misbehaved, with why."""
        return dict(self.core.broken)

    def away(self) -> dict[int, float]:
        """Peers whose connection dropped, waited for: peer -> seconds away (while the game plays)."""
        if not self.playing:
            return {}
        now = self.driver.now()  # the session's time, which the core's ``away`` times are in
        return {peer: max(0.0, now - since) for peer, since in self.core.away.items()}

    def away_seats(self) -> dict[int, float]:
        """The seats of the peers that are away: seat -> seconds away."""
        away = self.away()
        return {seat: away[ctrl] for seat, ctrl in enumerate(self.core.controllers) if ctrl in away}

    def replaced(self) -> list[int]:
        """The peers the others voted out (a bot plays their seats now, or they resign to the bank)."""
        return [peer for peer in range(len(self.record.peers)) if not self.core.members.is_present(peer)]

    def replaced_seats(self) -> set[int]:
        """The seats that a bot plays in place of the peer they started with."""
        gone = set(self.replaced())
        resigning = self.core.members.resigning
        return {s for s, ctrl in enumerate(self.record.controllers) if ctrl in gone and s not in resigning}

    def waiting_for(self) -> str:
        """Who the game waits for, in words (empty when it waits for nobody)."""
        lang, game = self.lang, self.game
        if not self.playing:
            return ""
        if game.is_chance_node:
            return t(lang, "net.wait_dice")
        seat = game.current_player
        if seat is None or seat < 0:
            return ""
        ctrl = self.core.controllers[seat]  # a bot of another peer once its peer was replaced
        if seat == self.me:
            return t(lang, "net.wait_you")
        if ctrl == self.core.me:
            return t(lang, "net.wait_bot_here", player=game.names[seat])
        peer = self.peer_names()[ctrl]
        if ctrl in self.core.away:
            return t(lang, "net.wait_away", peer=peer)
        if game.names[seat] == peer:
            return t(lang, "net.wait_peer", peer=peer)
        return t(lang, "net.wait_bot", player=game.names[seat], peer=peer)

    def alert(self) -> str | None:
        """What stops the game, shown in place of the decision: the game stopped or frozen, a peer
        gone, or away (and for how long); None when all is well."""
        lang = self.lang
        if self.failure:
            return t(lang, "net.failed", reason=self.failure)
        if self.frozen:
            assert self.result is not None and self.result.freeze is not None
            return t(lang, "net.frozen", reason=self.result.freeze.reason)
        away = self.away()
        if away:
            names = self.peer_names()
            peers = ", ".join(names[p] for p in sorted(away))
            return plural(lang, "net.alert_away", len(away), peers=peers, since=clock(max(away.values())))
        if self.disconnected() and self.playing:
            return self.status()[1]
        return None

    def status(self) -> tuple[str, str]:
        """The LAN line of the game screen: (style, text)."""
        lang = self.lang
        if self.failure:
            return "class:error", t(lang, "net.failed", reason=self.failure)
        if self.frozen:
            assert self.result is not None and self.result.freeze is not None
            return "class:error", t(lang, "net.frozen", reason=self.result.freeze.reason)
        lost, away, replaced = self.disconnected(), self.away(), self.replaced()
        peers = []
        for index, name in enumerate(self.peer_names()):
            if index == self.core.me:
                peers.append(t(lang, "net.peer_you", peer=name))
            elif index in replaced:
                peers.append(t(lang, "net.peer_replaced", peer=name))
            elif index in away:
                peers.append(t(lang, "net.peer_away", peer=name, since=clock(away[index])))
            elif index in lost:
                peers.append(t(lang, "net.peer_lost", peer=name))
            else:
                peers.append(name)
        text = t(lang, "net.peers", peers=", ".join(peers))
        waiting = self.waiting_for()
        if waiting:
            text += " | " + waiting
        if self._sent and self.playing:
            text += " | " + plural(lang, "net.sent", len(self._sent))
        if self.result is not None and self.result.outcome == "over":
            text += " | " + t(lang, "net.agreed")
        return ("class:error" if lost else "class:hint"), text

    # -- events ----------------------------------------------------------------------------------

    def _on_event(self, event: fx.Event) -> None:
        """The session's events: tell them in the log, then let the screen redraw."""
        if isinstance(event, fx.StepApplied):
            self._step(event)
        elif isinstance(event, fx.YourMove):
            self.asked = event.step
        elif isinstance(event, fx.MoveDropped):
            if event.action in self._sent:
                self._sent.remove(event.action)
            if event.replaced:
                self.lines.append(t(self.lang, "net.move_replaced", command=command_for(event.action, self._told)))
            else:
                self._not_taken(event.action)
        elif isinstance(event, fx.PeerAway):
            self._dropped(event.peer)
        elif isinstance(event, fx.PeerBack):
            self._back(event.peer)
        elif isinstance(event, fx.PeersRemoved):
            self._removed(event)
        elif isinstance(event, fx.Frozen):
            self.lines.append(t(self.lang, "net.frozen", reason=event.info.reason))
            report = None if self.save is None else write_report(self.save.parent, self.core, event.info)
            if report is not None:
                self.lines.append(t(self.lang, "net.desync_report", path=shown_path(report)))
        elif isinstance(event, fx.Finished):
            self.result = event.result
        self.changes.tell()

    def _step(self, event: fx.StepApplied) -> None:
        """A step applied: its lines (told on the state just after it), and what became of the
        person's moves handed to the session."""
        self._step_lines[event.step] = len(self.lines)
        self._step_lines.pop(event.step - KEEP_STEP_LINES, None)
        self._told.apply(event.action)
        self._describe(self._told, event.events)
        if self._pending is not None and self._pending[0] <= event.step:
            step, action = self._pending
            self._pending = None
            if step != event.step or event.action != action:
                self._not_taken(action)  # another move decided its step first: the person is asked again
        if event.out_of_turn and event.seat == self.me and event.action in self._sent:
            self._sent.remove(event.action)

    def _describe(self, game: Game, events: Sequence[Mapping[str, Any]]) -> None:
        for event in events:
            self.ledger.see(event, game)
        self.lines.extend(describe_events(game, events, lang=self.lang))
        if game.is_over and not self.summarized:
            self.summarized = True
            self.lines.extend(summary_lines(game, self.ledger.summary(game), self.lang))

    def _dropped(self, peer: int) -> None:
        if self.playing:
            limit = clock(self.core.config.rejoin_timeout)
            self.lines.append(t(self.lang, "net.dropped", peer=self.peer_names()[peer], limit=limit))
            self._told_away.add(peer)

    def _back(self, peer: int) -> None:
        """A peer told away is back (a peer this one reached after its own restart was never told away)."""
        if peer in self._told_away:
            self._told_away.discard(peer)
            if self.playing:
                self.lines.append(t(self.lang, "net.back", peer=self.peer_names()[peer]))

    def _removed(self, event: fx.PeersRemoved) -> None:
        """Peers voted out: say who plays their seats now, just before the lines of the step the
        change starts at (every peer's log tells it at the same place)."""
        for peer in event.removed:
            self._told_away.discard(peer)
            self._tell_before(event.step, self._removed_line(peer, event.controller, event.choice))

    def _removed_line(self, peer: int, controller: int, choice: str) -> str:
        names = self.peer_names()
        held = [self.game.names[s] for s, ctrl in enumerate(self.record.controllers) if ctrl == peer]
        seats = ", ".join(held)
        if choice == "bank":
            return plural(self.lang, "net.removed", len(held), peer=names[peer], seats=seats)
        return t(self.lang, "net.replaced", peer=names[peer], host=names[controller], seats=seats)

    def _tell_before(self, step: int, line: str) -> None:
        """Put ``line`` in the log just before the lines of ``step`` (at the end if it is still to come),
        so that every peer's log tells it at the same place."""
        at = self._step_lines.get(step)
        if at is None:
            self.lines.append(line)
            return
        self.lines.insert(at, line)
        for later in self._step_lines:
            if later >= step:
                self._step_lines[later] += 1

    def _fresh_game(self) -> Game:
        record = self.record
        return Game(list(record.names), board=record.board, rules=Rules.recorded(record.rules), seed=0)

    def _retell(self) -> None:
        """The log and the ledger of the steps played before this table (a game taken up again):
        the game replayed from its start record, step by step, the changes of membership told
        where they were made."""
        changes = list(self.core.members.changes)
        for step, action in enumerate(self.core.log.inputs, 1):
            while changes and changes[0].step <= step:
                self._retell_change(changes.pop(0))
            self._describe(self._told, self._told.apply(action))
        for change in changes:
            self._retell_change(change)

    def _retell_change(self, change: Change) -> None:
        resigning = self.core.members.resigning
        for peer in change.removed:
            seats = [s for s, ctrl in enumerate(self.record.controllers) if ctrl == peer]
            choice = "bank" if seats and all(s in resigning for s in seats) else change.choice
            self.lines.append(self._removed_line(peer, change.controller, choice))

    def _ended(self, task: asyncio.Task[SessionResult]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.failure = str(error) or type(error).__name__
            self.lines.append(t(self.lang, "net.failed", reason=self.failure))
        elif self.result is None:
            self.result = task.result()
        self.changes.tell()
