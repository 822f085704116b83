"""The simulated world: peers' session cores, a network with delays and breaks, crashes, people.

One ``random.Random(seed)`` drives every choice, and events run in (time, sequence) order, so a
game replays exactly from its seed. Per direction a link delivers in order (TCP); across links
anything goes. A broken link loses what was still in flight; each end learns of the break a little
later, and the link comes back after a while (the higher index redials) unless an end is dead. A
killed peer loses everything but its journal; a restarted one rebuilds its session from it and
dials everyone again. A paused peer (``kill -STOP``, a laptop asleep) runs nothing until it resumes:
what reaches it waits, and on resuming it first notices, as the driver does (its timer came late:
``RunClock``), that it did not run, then reads what came meanwhile. A pause may also stop a process
in the middle of what its core returned (``pause_midway``): some peers got its message, the others
get it once it runs again.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lanopoly._core import Bot, Game
from lanopoly.bots import Policy, SimpleBot
from lanopoly.net.core import effects as fx
from lanopoly.net.core.record import JournalEntry, StepEntry
from lanopoly.net.core.runclock import RunClock
from lanopoly.net.core.session import Config, Session
from lanopoly.net.genesis import Genesis
from lanopoly.net.keys import Suite

from .table import PeerSecrets, make_table
from .trace import Trace

MAX_SPINS = 1000
"""Timer calls at one simulated instant after which a deadline that never moves is a busy loop."""


@dataclass
class Link:
    up: bool = False
    epoch: int = 0
    down_since: float = 0.0
    reset: set[int] = field(default_factory=set)
    """Epochs that ended in a reset (a process killed): what a paused end had not read yet is lost;
    after any other break it reads what reached it before the break."""


@dataclass
class SimPeer:
    """One simulated process: its session core (None while dead), its journal, what it saw."""

    index: int
    secrets: PeerSecrets
    persons: set[int]
    core: Session | None = None
    journal: list[JournalEntry] = field(default_factory=list)
    alive: bool = True
    events: list[fx.Event] = field(default_factory=list)
    timer_at: float | None = None
    restarts: int = 0
    thinking: dict[int, Bot] = field(default_factory=dict)
    """The bot a simulated person asks for its moves (kept, so it remembers what it tried)."""
    clock: RunClock = field(default_factory=lambda: RunClock(tick=None))
    """The session's time, as the driver keeps it (the world's, less the time the process was paused)."""
    paused_since: float | None = None
    """When the process was paused, while it is."""
    was_paused: bool = False
    """This process (since its last restart) was paused at some point."""
    deferred: list[tuple[Callable[..., None], tuple[Any, ...]]] = field(default_factory=list)
    """What happened to it while paused, in order: it runs once the process resumes."""
    midway: float | None = None
    """Seconds of a pause to begin after the first send of the next effects with two sends or more."""


class Behaviour:
    """How a misbehaving peer rewrites what its honest core sends (subclasses in ``behaviours``)."""

    name = "honest"
    acted = 0
    """How many of its changed or made-up messages reached a peer still playing (``World.deliver``);
    for a behaviour that withholds, how many times it did."""
    provable = False

    def __init__(self) -> None:
        self.forged: set[bytes] = set()

    def mark(self, payload: bytes) -> bytes:
        """Remember a payload as misbehaviour (counted in ``acted`` when it reaches a playing peer)."""
        self.forged.add(payload)
        return payload

    """Whether what it does leaves signed proof (an honest peer that freezes over it must hold one)."""

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        return [(to, payload)]


class World:
    """Runs one game among ``len(secrets)`` simulated peers."""

    def __init__(
        self,
        rng: random.Random,
        suite: Suite,
        controllers: list[int],
        *,
        rules: dict[str, Any],
        config: Config,
        persons: dict[int, set[int]] | None = None,
        behaviours: dict[int, Behaviour] | None = None,
        delay: tuple[float, float] = (0.0002, 0.02),
        reconnect: tuple[float, float] = (0.2, 2.0),
        chain_length: int = 400,
        replace_with: str = "bot",
        on_event: Callable[[World, int, Any], None] | None = None,
        trace: bool = True,
    ) -> None:
        self.rng = rng
        self.suite = suite
        self.config = config
        self.delay = delay
        self.reconnect_delay = reconnect
        self.behaviours = behaviours or {}
        self.on_event = on_event
        self.genesis, secrets = make_table(
            rng, suite, controllers, rules=rules, chain_length=chain_length, replace_with=replace_with
        )
        persons = persons or {}
        self.peers = [SimPeer(i, s, persons.get(i, set())) for i, s in enumerate(secrets)]
        self.now = 0.0
        self._queue: list[tuple[float, int, Callable[..., None], tuple[Any, ...]]] = []
        self._seq = itertools.count()
        self.links = {frozenset((i, j)): Link() for i, j in itertools.combinations(range(len(self.peers)), 2)}
        self._fifo: dict[tuple[int, int], float] = {}
        self.events = 0
        self._spins: dict[int, tuple[float, int]] = {}
        """peer -> (time, how many timer calls at that time left its deadline not later)."""
        self.killed: set[int] = set()
        """Peers killed at some point (an honest peer named as absent must be one, or cut off)."""
        self.cut: set[int] = set()
        """Peers that had a link broken at some point."""
        self.paused: set[int] = set()
        """Peers paused at some point (the others may rightly name them silent)."""
        self.longest_pause: dict[int, float] = {}
        """peer -> the longest it was paused, in seconds (a peer paused past the step timeout was
        silent, even to one paused itself a moment)."""
        self.faulted: set[frozenset[int]] = set()
        """Links cut by the network (not closed by a session that stopped, nor reset by a kill)."""
        self.trace = Trace() if trace else None
        """The digest of every effect the cores returned, in order (``trace.py``); None when not
        asked for, as in a soak, where it would cost a sixth of the time."""

    # ----------------------------------------------------------------------------- scheduling

    def at(self, time: float, action: Callable[..., None], *args: Any) -> None:
        heapq.heappush(self._queue, (max(time, self.now), next(self._seq), action, args))

    def run(self, until: float, max_events: int) -> None:
        while self._queue and self.events < max_events:
            if self.events % 64 == 0 and self.done():
                break
            time, _, action, args = heapq.heappop(self._queue)
            if time > until:
                heapq.heappush(self._queue, (time, next(self._seq), action, args))
                break
            self.now = time
            self.events += 1
            action(*args)

    def done(self) -> bool:
        """Every live peer's session has ended."""
        return all(p.core is None or p.core.result is not None for p in self.peers if p.alive)

    # ----------------------------------------------------------------------------- peers

    def policies(self, peer: SimPeer) -> dict[int, Policy | None]:
        out: dict[int, Policy | None] = {}
        for seat in self.genesis.record.seats_of(peer.index):
            if seat in peer.persons:
                out[seat] = None
            elif self.rng.random() < 0.5:
                out[seat] = SimpleBot()
            else:
                out[seat] = Bot("heuristic", seed=self.rng.randrange(1 << 30))
        return out

    def make_core(self, peer: SimPeer) -> Session:
        s = peer.secrets
        return Session(
            self.genesis,
            peer.index,
            s.key,
            s.chain_secret,
            s.held,
            self.policies(peer),
            self.config,
            suite=self.suite,
            journal=list(peer.journal),
        )

    def start(self) -> None:
        """Every peer up, every link up, every session started (the mesh of a new game)."""
        for peer in self.peers:
            peer.core = self.make_core(peer)
        for link in self.links.values():
            link.up = True
        for peer in self.peers:
            assert peer.core is not None
            for other in self.peers:
                if other is not peer:
                    self.process(peer, peer.core.link_up(other.index, self.t(peer)))
        for peer in self.peers:
            assert peer.core is not None
            self.process(peer, peer.core.start(self.t(peer)))

    def kill(self, index: int, restart_after: float | None, late: tuple[int, float] | None = None) -> None:
        peer = self.peers[index]
        if not peer.alive:
            return
        peer.alive = False
        peer.core = None
        peer.timer_at = None
        peer.paused_since = None
        peer.deferred.clear()
        self.killed.add(index)
        for other in range(len(self.peers)):
            if other != index:
                self.at(self.now + self.rng.uniform(0, 0.01), self.break_link, index, other, "connection reset", False)
        if restart_after is not None:
            self.at(self.now + restart_after, self.restart, index, late)

    def restart(self, index: int, late: tuple[int, float] | None = None) -> None:
        """Bring a killed peer back from its journal; ``late`` = (peer, seconds): its link to that
        peer comes up only that much later (a rejoin that reaches some peers first)."""
        peer = self.peers[index]
        if peer.alive:
            return
        peer.alive = True
        peer.restarts += 1
        peer.thinking.clear()
        peer.clock = RunClock(tick=None)  # a new process
        peer.was_paused = False
        peer.core = self.make_core(peer)
        self.process(peer, peer.core.start(self.t(peer)))
        for other in self.peers:
            if other.index != index and other.alive:
                delay = self.rng.uniform(*self.reconnect_delay)
                if late is not None and late[0] == other.index:
                    delay += late[1]
                self.at(self.now + delay, self.connect, index, other.index)

    def t(self, peer: SimPeer) -> float:
        """The session time of ``peer`` now (what its driver passes its core)."""
        return peer.clock.check(self.now)

    def pause(self, index: int, seconds: float) -> None:
        """Stop peer ``index``'s process for ``seconds`` (``kill -STOP``, then ``kill -CONT``)."""
        peer = self.peers[index]
        if peer.core is None or peer.paused_since is not None:
            return
        peer.paused_since = self.now
        peer.was_paused = True
        self.paused.add(index)
        self.longest_pause[index] = max(seconds, self.longest_pause.get(index, 0.0))
        self.at(self.now + seconds, self.resume, index, peer.core)

    def pause_midway(self, index: int, seconds: float) -> None:
        """Stop peer ``index``'s process for ``seconds`` between two sends of one broadcast (the next
        effects with two sends or more): ``kill -STOP`` lands anywhere, and a real peer was stopped
        after sending its ack to one peer and before the other."""
        peer = self.peers[index]
        if peer.core is not None and peer.paused_since is None:
            peer.midway = seconds

    def waits(self, peer: SimPeer, action: Callable[..., None], *args: Any) -> bool:
        """Whether ``peer`` is paused: then ``action`` runs once it resumes, after what came before it."""
        if peer.paused_since is None:
            return False
        peer.deferred.append((action, args))
        return True

    def resume(self, index: int, core: Session) -> None:
        """The paused process runs again. Its driver's wake (armed at most ``RunClock.tick`` after
        the pause began; here at the pause) comes first and late: the stop is noticed before anything
        that came meanwhile is read."""
        peer = self.peers[index]
        if peer.core is not core or peer.paused_since is None:
            return
        if core.deadline is not None:
            peer.clock.armed(peer.paused_since)
        peer.paused_since = None
        self.t(peer)
        peer.timer_at = None
        self.arm(peer)
        for action, args in peer.deferred:
            self.at(self.now, action, *args)
        peer.deferred.clear()

    # ----------------------------------------------------------------------------- links

    def break_link(self, a: int, b: int, reason: str, redial: bool = True) -> None:
        link = self.links[frozenset((a, b))]
        if not link.up:
            return
        link.up = False
        if reason == "connection reset":
            link.reset.add(link.epoch)
        if redial:
            self.faulted.add(frozenset((a, b)))
        link.epoch += 1
        link.down_since = self.now
        self.cut.update((a, b))
        for me, other in ((a, b), (b, a)):
            self.at(self.now + self.rng.uniform(0, 0.01), self._tell_down, me, other, link.epoch, reason)
        if redial:
            self.at(self.now + self.rng.uniform(*self.reconnect_delay), self.connect, a, b)

    def _tell_down(self, me: int, other: int, epoch: int, reason: str) -> None:
        peer = self.peers[me]
        if self.waits(peer, self._tell_down, me, other, epoch, reason):
            return
        if peer.core is not None and self.links[frozenset((me, other))].epoch == epoch:
            self.process(peer, peer.core.link_down(other, reason, self.t(peer)))

    def cut_off(self, index: int, since: float) -> bool:
        """Has peer ``index`` had no link up to any other peer since time ``since`` or earlier?"""
        links = [self.links[frozenset((index, other))] for other in range(len(self.peers)) if other != index]
        return all(not link.up and link.down_since <= since for link in links)

    def connect(self, a: int, b: int) -> None:
        link = self.links[frozenset((a, b))]
        pa, pb = self.peers[a], self.peers[b]
        if link.up or pa.core is None or pb.core is None:
            return
        if self.waits(pa, self.connect, a, b) or self.waits(pb, self.connect, a, b):
            return  # a link handshake needs both processes running
        link.up = True
        link.epoch += 1
        self.process(pa, pa.core.link_up(b, self.t(pa)))
        if pb.core is not None:
            self.process(pb, pb.core.link_up(a, self.t(pb)))

    def send(self, src: int, dst: int, payload: bytes) -> None:
        link = self.links[frozenset((src, dst))]
        if not link.up:
            return
        lo, hi = self.delay
        when = self.now + lo + (hi - lo) * self.rng.random() ** 3
        when = max(when, self._fifo.get((src, dst), 0.0))
        self._fifo[(src, dst)] = when
        self.at(when, self.deliver, src, dst, payload, link.epoch)

    def deliver(self, src: int, dst: int, payload: bytes, epoch: int) -> None:
        peer = self.peers[dst]
        link = self.links[frozenset((src, dst))]
        if peer.core is None or not link.up or link.epoch != epoch:
            return
        if self.waits(peer, self._read_late, src, dst, payload, epoch):
            return
        self._read(src, dst, payload)

    def _read_late(self, src: int, dst: int, payload: bytes, epoch: int) -> None:
        """A paused peer reads, once it runs, what reached it meanwhile (unless its link was reset)."""
        peer = self.peers[dst]
        link = self.links[frozenset((src, dst))]
        if peer.core is not None and (link.epoch == epoch or epoch not in link.reset):
            self._read(src, dst, payload)

    def _read(self, src: int, dst: int, payload: bytes) -> None:
        peer = self.peers[dst]
        assert peer.core is not None
        behaviour = self.behaviours.get(src)
        if behaviour is not None and payload in behaviour.forged and peer.core.result is None:
            behaviour.acted += 1
        self.process(peer, peer.core.receive(src, payload, self.t(peer)))

    # ----------------------------------------------------------------------------- effects

    def trace_effect(self, peer: int, effect: fx.Effect) -> None:
        """Fold an effect of ``peer``'s core into the game's digest, as it is carried out."""
        if self.trace is not None:
            self.trace.effect(self.now, peer, effect)

    def process(self, peer: SimPeer, effects: list[fx.Effect]) -> None:
        behaviour = self.behaviours.get(peer.index)
        sent = 0
        for i, effect in enumerate(effects):
            if isinstance(effect, fx.Send) and sent and peer.midway is not None and peer.core is not None:
                seconds, peer.midway = peer.midway, None
                self.pause(peer.index, seconds)
                peer.deferred.append((self._process_rest, (peer.index, peer.core, effects[i:])))
                return
            self.trace_effect(peer.index, effect)
            sent += isinstance(effect, fx.Send)
            if isinstance(effect, fx.Send):
                if behaviour is None:
                    self.send(peer.index, effect.peer, effect.payload)
                else:
                    for to, payload in behaviour.outgoing(self, peer.index, effect.peer, effect.payload):
                        self.send(peer.index, to, payload)
            elif isinstance(effect, fx.Persist):
                peer.journal.append(effect.record)  # type: ignore[arg-type]
                if self.on_event is not None and isinstance(effect.record, StepEntry):
                    self.on_event(self, peer.index, effect.record)
            elif isinstance(effect, fx.Close):  # a graceful close: what was sent arrives first
                after = max(self.now, self._fifo.get((peer.index, effect.peer), 0.0)) + 1e-6
                self.at(after, self.break_link, peer.index, effect.peer, effect.reason, False)
            elif isinstance(effect, fx.Notify):
                peer.events.append(effect.event)
                if self.on_event is not None:
                    self.on_event(self, peer.index, effect.event)
                if isinstance(effect.event, fx.YourMove):
                    self.at(self.now + self.rng.uniform(0.0, 1.0), self.person_moves, peer.index, effect.event.seat)
        if peer.core is not None and self.trace is not None:
            self.trace.deadline(self.now, peer.index, peer.core.deadline)
        self.arm(peer)

    def _process_rest(self, index: int, core: Session, effects: list[fx.Effect]) -> None:
        """Carry out what a process stopped in the middle of its effects had left, once it runs."""
        peer = self.peers[index]
        if peer.core is core:
            self.process(peer, effects)

    def arm(self, peer: SimPeer) -> None:
        """Make sure the core's timer fires at its deadline (the world's time of it)."""
        if peer.core is None:
            return
        deadline = peer.clock.wake_at(peer.core.deadline, self.now)
        if deadline is None or (peer.timer_at is not None and peer.timer_at <= deadline and peer.timer_at >= self.now):
            return
        peer.timer_at = deadline
        self.at(deadline, self.fire, peer.index, peer.core)

    def fire(self, index: int, core: Session) -> None:
        peer = self.peers[index]
        if peer.core is not core or peer.paused_since is not None:
            return  # a paused peer's timer is armed again when it resumes
        peer.timer_at = None
        deadline = core.deadline
        now = self.t(peer)
        if (deadline is not None and deadline > now) or peer.clock.holding(self.now):
            self.arm(peer)
            return
        self.process(peer, core.timer(now))
        after = core.deadline if peer.core is core else None
        if after is None or after > now:
            self._spins.pop(index, None)
            return
        # A deadline not later than now makes a driver call timer() again at once: harmless while
        # another event due now changes the picture, a busy loop on a real machine if none does.
        at, count = self._spins.get(index, (self.now, 0))
        self._spins[index] = (self.now, count + 1 if at == self.now else 1)
        if self._spins[index][1] > MAX_SPINS:
            raise AssertionError(f"peer {index}: timer({self.now:.3f}) called {MAX_SPINS} times, deadline {after:.3f}")

    # ----------------------------------------------------------------------------- people

    def person_moves(self, index: int, seat: int) -> None:
        """A person at ``index`` plays ``seat``'s move in turn (chosen by a bot for them)."""
        peer = self.peers[index]
        core = peer.core
        if core is None or core.result is not None or self.waits(peer, self.person_moves, index, seat):
            return
        game = core.game
        if game.is_chance_node or game.is_over or game.current_player != seat:
            return
        bot = peer.thinking.setdefault(seat, Bot("heuristic", seed=self.rng.randrange(1 << 30)))
        action = bot.choose(game, seat)
        with contextlib.suppress(ValueError):
            self.process(peer, core.submit(seat, action, self.t(peer)))

    def person_interjects(self, index: int) -> None:
        """A person makes an out-of-turn move now and then (bids, building...)."""
        peer = self.peers[index]
        if self.waits(peer, self.person_interjects, index):
            return
        core = peer.core
        if core is not None and core.result is None:
            game = core.game
            seats = [s for s in peer.persons if core.controllers[s] == index and s != game.current_player]
            if seats and not game.is_over and not game.is_chance_node:
                seat = self.rng.choice(seats)
                legal = [a for a in game.legal_actions(seat) if a["type"] not in ("declare_bankruptcy", "resign")]
                if legal:
                    with contextlib.suppress(ValueError):
                        self.process(peer, core.submit(seat, self.rng.choice(legal), self.t(peer)))
        if not peer.alive or (peer.core is not None and peer.core.result is None):
            self.at(self.now + self.rng.expovariate(1 / 3.0), self.person_interjects, index)

    def game_at(self, index: int) -> Game | None:
        core = self.peers[index].core
        return None if core is None else core.game

    @property
    def record_genesis(self) -> Genesis:
        return self.genesis
