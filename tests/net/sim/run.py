"""One simulated game from a seed: the scenario it draws, the run, and the invariants checked.

``run_game(seed)`` is deterministic: the same seed replays the same game event by event. A game
draws its table (2 to 5 peers, 2 to 6 seats, people at some seats), its rules (a preset, a few
rounds), its faults (links broken, peers killed and restarted, or never; a process paused, and
one stopped in the middle of a broadcast, each drawn apart so that adding it changed no other
draw) and, sometimes, one misbehaving peer from
``behaviours.CATALOGUE``. The invariants:

1. Honest peers never disagree on a step they settled (all acks agreed).
2. No honest peer is blamed for misbehaviour, by any fault or freeze of an honest peer; one named
   as absent was really killed, cut off or paused (a paused peer names only one dead, cut off
   from it, or paused itself past the step timeout).
3. Every proof an honest peer holds checks offline against the genesis and names a cheater; an
   honest peer that froze over a provable misbehaviour holds its proof.
4. An honest game (no cheater, every killed peer back in time) ends with every live peer over and
   agreeing on the final hash, but for a peer replaced after it was down, or cut off from every
   other peer, for ``replace_after`` (it is told so); any game ends (no hang) within the
   simulated time allowed.
5. Every honest peer's journal rebuilds its session to the last step it recorded.
"""

from __future__ import annotations

import json
import logging
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lanopoly._core import Rules
from lanopoly.net import shares
from lanopoly.net.chain import HashChain
from lanopoly.net.core import effects as fx
from lanopoly.net.core.chance import step_seed
from lanopoly.net.core.evidence import check_proof, proof_from_json
from lanopoly.net.core.record import ChangeEntry, StepEntry
from lanopoly.net.core.session import Config, Session
from lanopoly.net.keys import ED25519
from lanopoly.net.protocol import action_hash

from .behaviours import CATALOGUE, DRAWN
from .keys import SIM
from .world import SimPeer, World

MISBEHAVIOUR = {
    "replayed",
    "forged",
    "bad_signature",
    "equivocation",
    "illegal_action",
    "withheld",
    "bad_reveal",
    "malformed",
    "out_of_turn",
    "diverged",
    "bad_share",
    "bad_deal",
    "bad_sync",
    "final_hash",
    "wrong_game",
}
"""Fault kinds that say a peer misbehaved (``silent`` only says it was not heard from)."""

logging.getLogger("lanopoly.net.session").setLevel(logging.CRITICAL)

PRESETS = ["official", "official", "official", "it", "no", "paris-app", "speed"]
SIM_TIME = 4000.0
MAX_EVENTS = 400_000
PAUSES = 0.15
"""The share of games where a peer's process is paused a while (drawn from a generator of its own)."""
MIDWAYS = 0.05
"""The share of games where a peer's process is stopped between two sends of one broadcast (its
own generator too: the games drawn before it was added stay as they were)."""
LEAKS = 0.05
"""The share of the games without another cheater where a peer passes the offers it takes on
(``OfferLeaker``; its own generator too)."""
STALLS = 0.03
"""The share of the games without another cheater where a leader nests out-of-turn moves to put its
own turn off (``TurnStaller``; its own generator too)."""
SYNC_LIES = 0.04
"""The share of the games without another cheater where a peer answers one catching up with another
move of its own in a step it led (``SyncLiar``; its own generator too)."""
VOTE_LIES = 0.03
"""The share of the games without another cheater where a peer votes two ways in one round
(``VoteEquivocator``; its own generator too)."""


@dataclass
class Scenario:
    seed: int
    controllers: list[int]
    persons: dict[int, set[int]]
    rules: dict[str, Any]
    config: Config
    faults: list[tuple[float, str, tuple[Any, ...]]]
    cheater: int | None
    behaviour: str | None
    ed25519: bool
    must_finish: bool

    def describe(self) -> str:
        peers = max(self.controllers) + 1
        cheat = f", peer {self.cheater} {self.behaviour}" if self.cheater is not None else ""
        faults = "; ".join(f"{t:.2f}s {k}{args}" for t, k, args in self.faults) or "none"
        return (
            f"seed {self.seed}: {peers} peers, seats {self.controllers}, persons {self.persons}, "
            f"rounds {self.rules.get('round_limit')}, replace_after {self.config.replace_after}, "
            f"rejoin {self.config.rejoin_timeout}{cheat}; faults: {faults}"
        )


def draw(
    seed: int, *, cheat: bool | None = None, ed25519: bool | None = None, behaviour: str | None = None
) -> Scenario:
    """The scenario of game ``seed`` (``cheat``/``ed25519``/``behaviour`` force those choices)."""
    rng = random.Random(seed)
    peers = rng.choice([2, 2, 3, 3, 3, 4, 4, 5])
    seats = rng.randint(max(peers, 2), min(6, peers + 2))
    controllers = list(range(peers)) + [rng.randrange(peers) for _ in range(seats - peers)]
    rng.shuffle(controllers)
    persons: dict[int, set[int]] = {}
    for peer in range(peers):
        if rng.random() < 0.3:
            persons[peer] = {controllers.index(peer)}
    preset = rng.choice(PRESETS)
    rules = Rules.preset(preset, round_limit=rng.choice([1, 1, 2, 2, 3, 4])).to_dict()
    replace_after = rng.choice([None, None, 6.0])
    config = Config(
        step_timeout=10.0,
        rejoin_timeout=rng.choice([30.0, 30.0, 0.0]) if replace_after is None else 30.0,
        replace_after=replace_after,
        bot_delay=rng.choice([0.0, 0.0, 0.05]),
        evidence_wait=2.0,
        bye_wait=3.0,
    )
    faults: list[tuple[float, str, tuple[Any, ...]]] = []
    must_finish = True
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        when = rng.uniform(0.0, 8.0)
        if rng.random() < 0.5 and peers >= 2:
            a, b = rng.sample(range(peers), 2)
            faults.append((when, "break", (a, b)))
            if config.rejoin_timeout <= 0:
                must_finish = False
        else:
            victim = rng.randrange(peers)
            back = rng.choice([rng.uniform(0.2, 5.0), rng.uniform(0.2, 5.0), None])
            late = None
            if back is not None and peers >= 3 and rng.random() < 0.3:  # it reaches some peers first
                late = (rng.choice([p for p in range(peers) if p != victim]), rng.uniform(2.0, 15.0))
            faults.append((when, "kill", (victim, back, late)))
            if back is None or config.rejoin_timeout <= 0:
                must_finish = must_finish and config.replace_after is not None and peers >= 2 and back is not None
    if cheat is None:
        cheat = rng.random() < 0.35
    cheater = None
    if behaviour is not None:
        cheat = True
    if cheat and peers >= 2:
        cheater = rng.randrange(peers)
        drawn = rng.choice(sorted(b.name for b in DRAWN))
        behaviour = behaviour or drawn
        must_finish = False
    leaks = random.Random(seed ^ 0x0FFE2)  # its own draws, as the pauses' below
    if cheater is None and peers >= 2 and leaks.random() < LEAKS:
        cheater, behaviour, must_finish = leaks.randrange(peers), "offer_leaker", False
    stalls = random.Random(seed ^ 0x57A11)
    if cheater is None and peers >= 2 and stalls.random() < STALLS:
        cheater, behaviour, must_finish = stalls.randrange(peers), "turn_staller", False
    lies = random.Random(seed ^ 0x5111A)
    if cheater is None and peers >= 2 and lies.random() < SYNC_LIES:
        cheater, behaviour, must_finish = lies.randrange(peers), "sync_liar", False
    votes = random.Random(seed ^ 0x707E5)
    if cheater is None and peers >= 2 and votes.random() < VOTE_LIES:
        cheater, behaviour, must_finish = votes.randrange(peers), "vote_equivocator", False
    if ed25519 is None:
        ed25519 = rng.random() < 0.02
    stops = random.Random(seed ^ 0x570B5)  # its own draws: the games without a pause stay as they were
    if stops.random() < PAUSES:
        seconds = stops.choice([stops.uniform(0.5, 6.0), stops.uniform(12.0, 40.0)])
        faults.append((stops.uniform(0.0, 8.0), "pause", (stops.randrange(peers), seconds)))
        # A pause past the others' step timeout (less what it waited for already) freezes them, rightly.
        must_finish = must_finish and seconds < config.step_timeout - 2.0
    midway = random.Random(seed ^ 0x3D3A7)
    if midway.random() < MIDWAYS:
        seconds = midway.choice([midway.uniform(0.5, 6.0), midway.uniform(12.0, 40.0)])
        faults.append((midway.uniform(0.0, 8.0), "midway", (midway.randrange(peers), seconds)))
        must_finish = must_finish and seconds < config.step_timeout - 2.0
    return Scenario(seed, controllers, persons, rules, config, faults, cheater, behaviour, ed25519, must_finish)


@dataclass
class Report:
    scenario: Scenario
    outcomes: dict[int, str] = field(default_factory=dict)
    steps: int = 0
    violations: list[str] = field(default_factory=list)
    events: int = 0
    cheater_acted: int = 0
    trace: str = ""
    """The digest of everything the peers' cores did (``trace.py``): equal runs, equal digests."""

    @property
    def ok(self) -> bool:
        return not self.violations

    def text(self) -> str:
        lines = [self.scenario.describe(), f"outcomes {self.outcomes}, {self.steps} steps, {self.events} events"]
        lines += [f"VIOLATION: {v}" for v in self.violations]
        return "\n".join(lines)


class Checker:
    """Checks the invariants as events happen (``on_event``) and at the end (``finish``)."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.cheaters = {scenario.cheater} if scenario.cheater is not None else set()
        self.violations: list[str] = []
        self.isolated: set[int] = set()  # peers removed while cut off from everyone long enough
        self.finished: set[tuple[int, int]] = set()  # (peer, restarts) of each session that ended

    def honest(self, peer: int) -> bool:
        return peer not in self.cheaters

    def on_event(self, world: World, peer: int, item: Any) -> None:
        if not self.honest(peer):
            return
        if isinstance(item, fx.FaultSeen):
            fault = item.fault
            if fault.kind in MISBEHAVIOUR and self.honest(fault.peer):
                self.violations.append(f"peer {peer} blamed honest peer {fault.peer}: {fault.kind}: {fault.detail}")
        elif isinstance(item, fx.Frozen):
            self.check_freeze(world, peer, item)
        elif isinstance(item, fx.Finished):
            run = (peer, world.peers[peer].restarts)
            if run in self.finished:
                self.violations.append(f"peer {peer} ended twice, the second time {item.result.outcome}")
            self.finished.add(run)
        elif isinstance(item, fx.PeersRemoved) and self.scenario.config.replace_after is not None:
            since = world.now - self.scenario.config.replace_after
            self.isolated.update(r for r in item.removed if world.cut_off(r, since))

    def check_freeze(self, world: World, peer: int, frozen: fx.Frozen) -> None:
        info = frozen.info
        honest_blamed = [p for p in info.blamed if self.honest(p)]
        if info.cause in ("fault", "desync") and honest_blamed:
            self.violations.append(f"peer {peer} froze blaming honest {honest_blamed}: {info.reason}")
        if info.cause == "absent":
            explained = world.killed | world.cut | world.paused
            unexplained = [p for p in honest_blamed if p not in explained]
            if unexplained:
                self.violations.append(f"peer {peer} froze naming {unexplained} absent, never cut off: {info.reason}")
            if world.peers[peer].was_paused:  # the silence was its own: it follows the others' verdict
                # (it may name one dead for good, one the network cut it from, one killed when a drop
                # freezes, one paused itself past the step timeout)
                dropped = world.killed if self.scenario.config.rejoin_timeout <= 0 else set()
                stopped = {p for p, s in world.longest_pause.items() if s > self.scenario.config.step_timeout}
                named = [
                    p
                    for p in honest_blamed
                    if world.peers[p].alive
                    and frozenset((peer, p)) not in world.faulted
                    and p not in dropped
                    and p not in stopped
                ]
                if named:
                    self.violations.append(f"peer {peer}, paused, froze naming {named} absent: {info.reason}")
        for proof in info.proofs:
            if not check_proof(proof, world.genesis, world.suite.verify):
                self.violations.append(f"peer {peer} holds a proof that does not check: {proof.describe()}")
            saved = proof_from_json(json.loads(json.dumps(proof.to_json())))  # as a desync report holds it
            if saved is None or not check_proof(saved, world.genesis, world.suite.verify):
                self.violations.append(f"peer {peer} holds a proof that does not check once saved: {proof.describe()}")
            if self.honest(proof.peer):
                self.violations.append(f"peer {peer} holds a proof against honest peer {proof.peer}")
        behaviour = world.behaviours.get(self.scenario.cheater) if self.scenario.cheater is not None else None
        blames_cheater = any(p in self.cheaters for p in info.blamed) and info.cause == "fault"
        if behaviour is not None and behaviour.provable and blames_cheater and not info.proofs:
            self.violations.append(f"peer {peer} froze over provable {behaviour.name} without proof: {info.reason}")

    def fair_rolls(self, world: World, peer: SimPeer) -> None:
        """Every roll and draw ``peer`` applied is the one the true links of every peer give (a
        removed peer's too, rebuilt from shares: one that withheld its reveal changed nothing;
        zeros only where its secret could not be rebuilt)."""
        core = peer.core
        if core is None:
            return
        game = core.log.new_game()
        chains = [HashChain.of(world.genesis.record.chain_length, p.secrets.chain_secret) for p in world.peers]
        # A removed peer's secret is rebuilt when the peers left hold a threshold of its shares
        # (three peers or more); only otherwise do its links count as zeros.
        t = shares.threshold(len(chains))
        present = set(range(len(chains)))
        recoverable: dict[int, bool] = {}
        for change in core.members.changes:
            present -= set(change.removed)
            for removed in change.removed:
                recoverable[removed] = t is not None and len(present) >= t
        index = 0
        for step, (record, action) in enumerate(zip(core.record.steps, core.log.inputs, strict=True), 1):
            if game.is_chance_node:
                index += 1
                revealed = {m.signer for m in record.messages}
                links = []
                for p, chain in enumerate(chains):
                    lost = p not in revealed and not recoverable.get(p, True)
                    links.append(bytes(32) if lost else chain.reveal(index))
                fair = game.outcome_from_bytes(step_seed(world.genesis.game_id, step, game.state_hash(), links))
                if action_hash(fair) != action_hash(action):
                    self.violations.append(
                        f"peer {peer.index} applied {action} at step {step}; true reveals give {fair}"
                    )
                    return
            game.apply(action)

    def finish(self, world: World) -> None:
        honest = [p for p in world.peers if self.honest(p.index)]
        for peer in honest:
            self.fair_rolls(world, peer)
        settled: dict[int, dict[int, bytes]] = {}
        for peer in honest:
            steps = [e for e in peer.journal if isinstance(e, StepEntry)]
            over = peer.core is not None and peer.core.result is not None and peer.core.result.outcome == "over"
            keep = steps if over else steps[:-1]
            settled[peer.index] = {e.record.step: e.state_hash for e in keep}
        # Two peers left that lost each other each remove the other (nobody can outvote anyone): their
        # games part from that step, as two players who each saw the other leave.
        alone: dict[int, dict[int, int]] = {}
        for peer in honest:
            for entry in peer.journal:
                if isinstance(entry, ChangeEntry) and len(entry.record.commits) == 1:
                    for removed in entry.record.commits[0].removed:
                        alone.setdefault(peer.index, {}).setdefault(removed, entry.record.step)
        for a in settled:
            for b in settled:
                if a < b:
                    parted = alone.get(a, {}).get(b), alone.get(b, {}).get(a)
                    if parted[0] is not None and parted[1] is not None:
                        limit = min(parted)  # type: ignore[type-var]
                        settled[a] = {k: v for k, v in settled[a].items() if k < limit}
                        settled[b] = {k: v for k, v in settled[b].items() if k < limit}
                    common = settled[a].keys() & settled[b].keys()
                    bad = sorted(s for s in common if settled[a][s] != settled[b][s])
                    if bad:
                        self.violations.append(f"honest peers {a} and {b} settled different states from step {bad[0]}")
        for peer in world.peers:
            if peer.alive and peer.core is not None and peer.core.result is None:
                self.violations.append(f"peer {peer.index} never ended (step {peer.core.game.step}, {peer.core.phase})")
        if self.scenario.must_finish:
            live = [p for p in honest if p.alive and p.core is not None]
            hashes = {
                p.core.result.state_hash
                for p in live
                if p.core is not None and p.core.result is not None and p.core.result.outcome == "over"
            }
            for p in live:
                assert p.core is not None
                result = p.core.result
                freeze = result.freeze if result is not None else None
                # voted out: it saw the votes itself ("removed"), or the others told it ("remote")
                told = freeze is not None and (
                    freeze.cause == "removed" or (freeze.cause == "remote" and "removed" in freeze.reason)
                )
                replaced = told and (p.index in world.killed or p.index in self.isolated)
                if replaced:
                    continue  # it was down or cut off long enough to be replaced: it is told so when back
                if result is None or result.outcome != "over":
                    reason = result.freeze.reason if result is not None and result.freeze is not None else "no result"
                    self.violations.append(f"honest game: peer {p.index} did not finish: {reason}")
            if len(hashes) > 1:
                self.violations.append("honest game: live peers ended on different states")
        for peer in honest:
            # Every restart in the game rebuilt a peer from its journal already; at the end each
            # journal is rebuilt again in one game of eight (it costs as much as the game).
            if not peer.journal or (self.scenario.seed % 8 and not peer.restarts):
                continue
            try:
                restored = world.make_core(peer)
            except Exception as e:
                self.violations.append(f"peer {peer.index}'s journal does not rebuild its session: {e!r}")
                continue
            steps = [e for e in peer.journal if isinstance(e, StepEntry)]
            if steps and (restored.game.step, restored.game.state_hash()) != (
                steps[-1].record.step,
                steps[-1].state_hash,
            ):
                self.violations.append(f"peer {peer.index}'s journal rebuilds another state")


def run_game(
    seed: int,
    *,
    cheat: bool | None = None,
    ed25519: bool | None = None,
    behaviour: str | None = None,
    verbose: bool = False,
    watch: Callable[[World, int, Any], None] | None = None,
    faults: Sequence[tuple[float, str, tuple[Any, ...]]] = (),
    delay: tuple[float, float] | None = None,
    trace: bool = True,
) -> Report:
    """Play game ``seed`` in the simulated world and check every invariant (``faults``: more faults
    than the seed draws, the game then need not finish; ``delay``: the network's, if not the world's;
    ``trace``: whether to keep the digest of everything the cores did, ``Report.trace``)."""
    scenario = draw(seed, cheat=cheat, ed25519=ed25519, behaviour=behaviour)
    if faults:
        scenario.faults = [*scenario.faults, *faults]
        scenario.must_finish = False
    checker = Checker(scenario)
    rng = random.Random(seed ^ 0x5EED)
    behaviours = {}
    if scenario.cheater is not None and scenario.behaviour is not None:
        behaviours[scenario.cheater] = CATALOGUE[scenario.behaviour](rng)
    world = World(
        rng,
        ED25519 if scenario.ed25519 else SIM,
        scenario.controllers,
        rules=scenario.rules,
        config=scenario.config,
        persons=scenario.persons,
        behaviours=behaviours,
        on_event=checker.on_event if watch is None else _both(checker.on_event, watch),
        trace=trace,
        **({} if delay is None else {"delay": delay}),
    )
    report = Report(scenario)
    try:
        world.start()
        for peer, seats in scenario.persons.items():
            if seats:
                world.at(rng.uniform(0, 2), world.person_interjects, peer)
        for when, kind, args in scenario.faults:
            if kind == "break":
                world.at(when, world.break_link, args[0], args[1], "link broken", True)
            elif kind == "pause":
                world.at(when, world.pause, args[0], args[1])
            elif kind == "midway":
                world.at(when, world.pause_midway, args[0], args[1])
            else:
                world.at(when, world.kill, args[0], args[1], args[2])
        world.run(SIM_TIME, MAX_EVENTS)
        if world.events >= MAX_EVENTS:
            checker.violations.append(f"event budget of {MAX_EVENTS} exhausted at {world.now:.1f} s (livelock?)")
        checker.finish(world)
    except Exception as e:  # a crash of a core is a violation like any other, with the seed to replay it
        import traceback

        checker.violations.append(f"crash: {e!r}\n{traceback.format_exc()}")
    report.violations = checker.violations
    report.events = world.events
    report.trace = "" if world.trace is None else world.trace.hexdigest()
    report.cheater_acted = sum(b.acted for b in behaviours.values())
    for peer in world.peers:
        core = peer.core
        report.outcomes[peer.index] = (
            "dead" if core is None else (core.result.outcome if core.result else str(core.phase))
        )
        if core is not None:
            report.steps = max(report.steps, core.game.step)
    if verbose:
        print(report.text(), file=sys.stderr)
    return report


def sessions_of(world: World) -> list[Session]:
    return [p.core for p in world.peers if p.core is not None]


def _both(
    first: Callable[[World, int, Any], None], second: Callable[[World, int, Any], None]
) -> Callable[[World, int, Any], None]:
    def call(world: World, peer: int, item: Any) -> None:
        first(world, peer, item)
        second(world, peer, item)

    return call
