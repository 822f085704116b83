"""A networked table: the console's view of a LAN game played in lockstep with other peers.

``NetTable`` has the interface the console uses for a local table (``game``, ``me``, ``lang``,
``lines``, ``my_move``, ``step``, ``act``, ``legal``, ``summary``), but the game is the one the
:class:`~lanopoly.net.lockstep.LockstepSession` plays: the person's moves are sent as this peer's
actions, the other peers' moves arrive over the network, and the bots this peer controls (the
host's free seats) play their seats here. The session runs in a task beside the user interface.

A move in the person's turn is handed to the session for the step it waits for. A move out of
turn (a bid while another seat is to bid, building, mortgaging, a trade or an answer to one, a
rent claim) is checked by the engine at once and queued with ``interject``: it goes out with this
peer's next ack and is taken at the next step if the fixed order of the session picks it (the
table then tells the person when it was not taken). No step happens while the game waits for a
person's move in turn, so a queued move waits for that move too.

A peer whose connection drops is waited for (``rejoin_timeout``): the table shows who is away and
since when, and says so again when it is back. The game is saved continuously, with this peer's
secrets next to it, so that ``lanopoly rejoin FILE`` can take the seat again after a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from lanopoly._core import Game, Rules
from lanopoly.bots import Policy
from lanopoly.console.commands import CommandError, command_for
from lanopoly.console.saves import shown_path
from lanopoly.console.session import Ledger, Summary, summary_lines
from lanopoly.describe import describe
from lanopoly.i18n import clock, t
from lanopoly.net.lockstep import FREEZE_GRACE, LockstepSession, SessionResult
from lanopoly.net.mesh import Mesh
from lanopoly.net.rejoin import PeerSecrets, secret_path

Action = dict[str, Any]

log = logging.getLogger(__name__)

CLOSE_TIMEOUT = 3.0
"""Seconds leaving a LAN game may take (the session stops and closes its connections)."""

STEP_TIMEOUT = 3600.0
"""Seconds a peer waits for another peer's input: people think, so it is long (a lost
connection is still noticed at once)."""

FREEZE_CHECK = 0.25
"""Seconds between looks, while the game waits for the person, at whether another peer froze it."""

REJOIN_TIMEOUT = 300.0
"""Seconds the game waits for a peer whose connection dropped to come back (``lanopoly rejoin``)
before it stops."""


class Person:
    """The policy placeholder for the person's seat: the session asks the table instead."""

    def choose(self, game: Game, seat: int, legal: list[Action] | None = None) -> Action:
        raise AssertionError("the person's moves come from the console")


def console_policies(mesh: Mesh, bot: Callable[[], Policy]) -> dict[int, Policy]:
    """The policies of this peer's seats: the person in the first one, bots in the others."""
    mine = [seat for seat, ctrl in enumerate(mesh.start.controllers) if ctrl == mesh.me]
    return {seat: (Person() if seat == mine[0] else bot()) for seat in mine}


class ConsoleSession(LockstepSession):
    """A lockstep session where one seat of this peer is played by a person at the console.

    The person's seat is the one whose policy is a :class:`Person` (see ``console_policies``; the
    constructor has the session's signature, so ``rejoin`` and ``resume`` can make one).
    ``submit`` hands the person's move in turn over (already checked against the current state);
    the session sends it as this peer's signed action when the step comes. Bots of this peer wait
    ``bot_delay`` seconds before each move so that people can follow the game.
    """

    def __init__(
        self,
        mesh: Mesh,
        policies: Mapping[int, Policy],
        *,
        bot_delay: float = 0.3,
        **options: Any,
    ) -> None:
        people = [seat for seat, policy in policies.items() if isinstance(policy, Person)]
        if len(people) != 1:
            raise ValueError("a console session has exactly one seat played by the person")
        super().__init__(mesh, policies, **options)
        self.person = people[0]
        self.bot_delay = bot_delay
        self.waiting_for_person = False
        self._move: tuple[int, Action] | None = None
        self._move_ready = asyncio.Event()

    def submit(self, action: Action) -> None:
        """The person's move for the next step (checked by the caller against the current state)."""
        self._move = (self.game.step, action)
        self._move_ready.set()

    @property
    def move_pending(self) -> bool:
        """A move of the person was handed over and not yet played."""
        return self._move is not None

    async def _person_move(self, step: int, prev: bytes) -> None:
        """Wait for the person's move of ``step``, or for another peer's out-of-turn move offered
        meanwhile (``net/handover.py``: this peer then decides the step with it, and the person is
        asked again). Meanwhile another peer may freeze the session (or tell this peer it was
        replaced by a bot): then this one freezes too, as ``collect`` does after the same grace."""
        self.waiting_for_person = True
        try:
            while self._move is None or self._move[0] != self.game.step:
                self._move = None  # a move for an earlier state (the step was decided by an offer)
                if self.handovers.pick(step, prev) is not None:
                    return
                self._move_ready.clear()
                self.handovers.arrived.clear()
                moved = asyncio.ensure_future(self._move_ready.wait())
                offered = asyncio.ensure_future(self.handovers.arrived.wait())
                try:
                    while not (moved.done() or offered.done()):
                        self._check_peer_freeze(step)
                        await asyncio.wait([moved, offered], timeout=FREEZE_CHECK, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    moved.cancel()
                    offered.cancel()
        finally:
            self.waiting_for_person = False

    def _check_peer_freeze(self, step: int) -> None:
        """Raise ``Frozen`` once another peer froze the session ``FREEZE_GRACE`` seconds ago."""
        if self._remote_freeze is None:
            return
        now = time.monotonic()
        if self._freeze_seen is None:
            self._freeze_seen = now
        if now >= self._freeze_seen + FREEZE_GRACE:
            raise self.frozen_by_peer(step)

    async def move_input(self, step: int, prev: bytes) -> tuple[dict[str, Any], int]:
        seat = self.game.current_player
        if seat is not None and seat >= 0 and self.controllers[seat] == self.me:
            if seat == self.person and not self.held_move(step):
                await self._person_move(step, prev)
            elif self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
        return await super().move_input(step, prev)

    def held_move(self, step: int) -> bool:
        """Whether this peer sent its move of ``step`` before it dropped (after a rejoin the session
        says it again, so the person is not asked)."""
        return self.repeats_move(step)

    def choose(self, seat: int) -> dict[str, Any]:
        if seat == self.person:
            assert self._move is not None
            action = self._move[1]
            self._move = None
            return action
        return super().choose(seat)


class NetTable:
    """The person's seat in a LAN game; the console's table for it.

    ``me`` is the person's seat; the log is in ``lang``. ``start()`` runs the session in a task
    (the console does it when the game screen opens); ``close()`` leaves the game (the other peers
    see this peer drop, and wait for it to rejoin). ``save`` is where the session saves the game.
    Make one for a new game with :meth:`new`, or around a session ``rejoin``/``resume`` gave.
    """

    def __init__(self, session: ConsoleSession, *, lang: str = "en", save: Path | None = None) -> None:
        self.session = session
        self.mesh = session.mesh
        self.lang = lang
        self.save = save
        self.me = session.person
        self.lines: list[str] = []
        self.ledger = Ledger(self.game.num_players)
        self.summarized = False
        self.result: SessionResult | None = None
        self.failure = ""
        self._task: asyncio.Task[SessionResult] | None = None
        self._seen: tuple[object, ...] = ()
        self._sent: list[Action] = []
        """Out-of-turn moves handed to the session and not yet seen taken or dropped, oldest first."""
        self._away: set[int] = set()
        self._changes = 0
        """The replacements of peers by bots already told in the log."""
        self._step_lines: dict[int, int] = {}
        """Where the lines of each recent step start in ``lines``: a replacement is told just before
        the step it starts at, however far this peer had played when it learnt of it."""
        if session.game.step:
            self._retell(session)
            self.lines.append(t(lang, "net.back_in", step=session.game.step))
        session.on_events = self._events
        if save is not None:
            self.lines.extend(t(lang, "net.saving").splitlines())  # lines that fit 80 columns

    @classmethod
    def new(
        cls,
        mesh: Mesh,
        *,
        bot: Callable[[], Policy],
        lang: str = "en",
        bot_delay: float = 0.3,
        step_timeout: float = STEP_TIMEOUT,
        rejoin_timeout: float = REJOIN_TIMEOUT,
        save: Path | None = None,
        report_dir: Path | None = None,
    ) -> NetTable:
        """The table of a game that starts on ``mesh``; saving to ``save`` writes its secrets too."""
        if save is not None:
            PeerSecrets.of(mesh).save(secret_path(save))
        session = ConsoleSession(
            mesh,
            console_policies(mesh, bot),
            bot_delay=bot_delay,
            step_timeout=step_timeout,
            rejoin_timeout=rejoin_timeout,
            log_path=save,
            report_dir=report_dir,
        )
        return cls(session, lang=lang, save=save)

    # -- the table interface ---------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.session.game

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
    def bots(self) -> Mapping[int, Policy]:
        """The bots this peer plays (the host's free seats)."""
        return {seat: p for seat, p in self.session.policies.items() if seat != self.me}

    def start(self) -> None:
        """Run the session in a task of the running event loop (once)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.session.run())
            self._task.add_done_callback(self._ended)

    async def close(self) -> None:
        """Leave the game: stop the session (it closes every connection)."""
        task = self._task
        if task is not None and not task.done():
            # Cancel until it stops: asyncio.wait_for (Python 3.11) may swallow a cancellation
            # that races with the session's wake-up event, and the session would wait on.
            deadline = time.monotonic() + CLOSE_TIMEOUT
            while not task.done() and time.monotonic() < deadline:
                task.cancel()
                await asyncio.wait([task], timeout=0.1)
            if task.done():
                return
            log.warning("the LAN session did not stop within %g s; closing its connections", CLOSE_TIMEOUT)
        if task is None or not task.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.mesh.close(), CLOSE_TIMEOUT)

    def step(self) -> bool:
        """True when the game or the LAN status changed since the last call (the screen is then
        redrawn; every second while a peer is away, for its clock). The session moves the game;
        this also starts the session the first time."""
        self.start()
        self._watch_peers()
        away = tuple(int(seconds) for seconds in self.session.waiting_for().values())
        seen = (
            self.game.step,
            self.result is None,
            self.failure,
            len(self.disconnected()),
            self.session.move_pending,
            len(self._sent),
            away,
            self._changes,
        )
        changed = seen != self._seen
        self._seen = seen
        return changed

    def act(self, action: Action) -> str | None:
        """Play the person's move. In turn it is handed to the session for the step it waits for;
        out of turn it is queued (sent with this peer's next ack) and the returned message says so.
        Raises CommandError when the game is not playing or a move in turn is being sent, and
        IllegalAction with the engine's reason (nothing is sent)."""
        lang, game = self.lang, self.game
        if self.frozen:
            raise CommandError(t(lang, "net.refused_frozen"))
        if not self.playing:
            raise CommandError(t(lang, "net.refused_over"))
        if game.current_player != self.me:
            self.session.interject(action)
            self._sent.append(dict(action))
            return self._queued_text(action)
        if self.session.move_pending:
            raise CommandError(t(lang, "net.sending"))
        game.check(action)
        self.session.submit(action)
        return None

    def replace(self, seat: int, choice: str = "bot") -> str:
        """Vote to have the peer playing ``seat`` replaced by a bot, or voted out to the bank (``choice``
        "bank"), with three or more peers, when every other peer votes the same
        (``LockstepSession.vote_replace``); what to tell the person."""
        session, lang = self.session, self.lang
        peer = session.controllers[seat]
        name = self.game.names[seat]
        if peer == session.me:
            raise CommandError(t(lang, "net.replace_self", name=name))
        if not session.membership.is_active(peer):
            raise CommandError(t(lang, "net.replace_gone", name=name))
        if len(session.others) < 2:
            raise CommandError(t(lang, "net.replace_two"))
        session.vote_replace(peer, choice)
        return t(lang, "net.replace_voted" if choice == "bot" else "net.remove_voted", name=name)

    def legal(self) -> list[Action]:
        """What the person may do now: in turn (unless a move is being sent), or out of turn."""
        if not self.playing or self.game.is_chance_node or self.session.move_pending:
            return []
        return self.game.legal_actions(self.me)

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
        """What the person sees once an out-of-turn move is queued: it is taken at the next step
        (even while a person decides the current one: ``net/handover.py``)."""
        return t(self.lang, "net.queued", command=command_for(action, self.game))

    def _resolve(self, applied: Action) -> None:
        """After a step: which of the person's sent out-of-turn moves it decided, and which the
        session dropped (the queue is first in, first out; those no longer queued went out with
        the ack before this step, or were no longer legal then)."""
        waiting = len(self.session.queued)
        gone, self._sent = self._sent[: len(self._sent) - waiting], self._sent[len(self._sent) - waiting :]
        for action in gone:
            if action != applied:
                self.lines.append(t(self.lang, "net.not_taken", command=command_for(action, self.game)))

    # -- the LAN status --------------------------------------------------------------------------

    def peer_names(self) -> list[str]:
        return [p.name for p in self.mesh.start.peers]

    def disconnected(self) -> dict[int, str]:
        """Peers whose connection broke, with why (from the session's view)."""
        return self.session.lost_peers()

    def away(self) -> dict[int, float]:
        """Peers that dropped and are waited for: peer -> seconds away (while the game plays)."""
        return self.session.waiting_for() if self.playing else {}

    def away_seats(self) -> dict[int, float]:
        """The seats of the peers that are away: seat -> seconds away."""
        away = self.away()
        return {seat: away[ctrl] for seat, ctrl in enumerate(self.mesh.start.controllers) if ctrl in away}

    def replaced(self) -> list[int]:
        """The peers the others voted out: a bot plays their seats now."""
        membership = self.session.membership
        return [peer for peer in range(len(self.peer_names())) if not membership.is_active(peer)]

    def replaced_seats(self) -> set[int]:
        """The seats that a bot plays in place of the peer they started with."""
        replaced = set(self.replaced())
        return {seat for seat, ctrl in enumerate(self.mesh.start.controllers) if ctrl in replaced}

    def _watch_peers(self) -> None:
        """Say in the log when a peer drops out (and is waited for), when it is back, and when the
        others voted it out (a bot plays its seats from then on)."""
        away = set(self.away())
        names = self.peer_names()
        limit = clock(self.session.rejoin_timeout)
        for peer in sorted(away - self._away):
            self.lines.append(t(self.lang, "net.dropped", peer=names[peer], limit=limit))
        changes = self.session.membership.changes
        for change in changes[self._changes :]:
            start = self.mesh.start.controllers
            for peer in change.removed:
                seats = ", ".join(self.game.names[seat] for seat, ctrl in enumerate(start) if ctrl == peer)
                host = names[change.controller]
                self._tell_before(change.step, t(self.lang, "net.replaced", peer=names[peer], host=host, seats=seats))
        self._changes = len(changes)
        for peer in sorted(self._away - away):  # back, unless gone for good or replaced
            if self.playing and peer not in self.disconnected() and self.session.membership.is_active(peer):
                self.lines.append(t(self.lang, "net.back", peer=names[peer]))
        self._away = away

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
        ctrl = self.session.controllers[seat]  # a bot of another peer once its peer was replaced
        if seat == self.me:
            return t(lang, "net.wait_you")
        if ctrl == self.mesh.me:
            return t(lang, "net.wait_bot_here", player=game.names[seat])
        peer = self.peer_names()[ctrl]
        if ctrl in self.away():
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
            peers = ", ".join(names[p] for p in away)
            return t(lang, "net.alert_away", peers=peers, since=clock(max(away.values())))
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
            if index == self.mesh.me:
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
            text += " | " + t(lang, "net.sent", n=len(self._sent))
        if self.result is not None and self.result.outcome == "over":
            text += " | " + t(lang, "net.agreed")
        return ("class:error" if lost else "class:hint"), text

    # -- events ----------------------------------------------------------------------------------

    def _events(self, game: Game, events: list[dict[str, Any]]) -> None:
        """The session applied a step: tell it in the log; see what became of sent moves."""
        self._step_lines[game.step] = len(self.lines)
        self._step_lines.pop(game.step - 64, None)
        self._describe(game, events)
        if self._sent:
            self._resolve(self.session.log.inputs[-1])

    def _describe(self, game: Game, events: list[dict[str, Any]]) -> None:
        for event in events:
            self.ledger.see(event)
            line = describe(game, event, lang=self.lang)
            if line:
                self.lines.append(line)
        if game.is_over and not self.summarized:
            self.summarized = True
            self.lines.extend(self.summary_lines())

    def _retell(self, session: LockstepSession) -> None:
        """The log and the ledger of the steps played before this table (a rejoined game): the
        game replayed from its start record, step by step."""
        start = self.mesh.start
        game = Game(list(start.names), board=start.board, rules=Rules(**start.rules), seed=0)
        for action in session.log.inputs:
            self._describe(game, game.apply(action))

    def _ended(self, task: asyncio.Task[SessionResult]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.failure = str(error) or type(error).__name__
            self.lines.append(t(self.lang, "net.failed", reason=self.failure))
            return
        self.result = task.result()
        if self.result.freeze is not None:
            self.lines.append(t(self.lang, "net.frozen", reason=self.result.freeze.reason))
            if self.result.report is not None:
                self.lines.append(t(self.lang, "net.report", path=str(self.result.report)))
