"""Misbehaving peers: each rewrites what its honest core sends, as a cheater's modified client would.

A behaviour sees every payload its peer's core sends (``outgoing``) and may drop it, change it,
send it to some peers only, or send something else; it signs with the peer's own key (it is that
peer), never with another's. ``provable`` says whether what it does leaves signed proof: an honest
peer that freezes blaming it must then hold a proof that checks offline.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from lanopoly.net import protocol as p8
from lanopoly.net.protocol import Ack, Action, Reveal, Share, Signed, Status
from lanopoly.net.wire import WireError

from .world import Behaviour

if TYPE_CHECKING:
    from lanopoly.net.core.session import Session

    from .world import World


def _parse(world: World, payload: bytes) -> p8.Message | None:
    try:
        return p8.parse(payload, world.genesis.game_id)
    except WireError:
        return None


def _resign(world: World, me: int, ack: Ack, **changes: object) -> Ack:
    """The ack ``ack`` with some fields changed, signed again by ``me``."""
    key = world.peers[me].secrets.key
    fields = {
        "ahash": ack.action_hash,
        "shash": ack.state_hash,
        "nested": ack.nested,
    }
    fields.update(changes)
    return p8.sign_ack(key, ack.game_id, ack.step, me, fields["ahash"], fields["shash"], fields["nested"])  # type: ignore[arg-type]


class Quiet(Behaviour):
    """Honest until a moment of its choosing, then sends nothing at all (its links stay up)."""

    name = "silent"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.5, 6.0)

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        if world.now >= self.after:
            self.acted += 1
            return []
        return [(to, payload)]


class ZeroAckSignatures(Behaviour):
    """Acks with a zeroed signature (to every peer or to some): the outside tester's first finding."""

    name = "zero_ack_signatures"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.0, 4.0)
        self.victims: set[int] | None = None if rng.random() < 0.5 else set()
        self.rng = rng

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or not isinstance(m, Ack):
            return [(to, payload)]
        if self.victims is not None and not self.victims:
            self.victims = {p for p in range(len(world.peers)) if p != me and self.rng.random() < 0.5} or {to}
        if self.victims is not None and to not in self.victims:
            return [(to, payload)]
        return [(to, self.mark(p8.wire.pack([int(m.kind), p8.PROTOCOL, m.body, bytes(64)])))]


class AckEquivocator(Behaviour):
    """Signs two different acks of one step and sends each to a different part of the table."""

    name = "ack_equivocator"
    provable = True

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.0, 5.0)
        self.rng = rng
        self.done: dict[int, Ack] = {}

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or not isinstance(m, Ack) or len(world.peers) < 3:
            return [(to, payload)]
        if m.step not in self.done:
            lie = _resign(world, me, m, shash=bytes(a ^ 1 for a in m.state_hash))
            self.done[m.step] = lie
        if to % 2 == 0:
            return [(to, self.mark(self.done[m.step].wire()))]
        return [(to, payload)]


class _AckRewriter(Behaviour):
    """From a moment on, sends a rewrite of each of its acks instead (signed once, the same to every
    peer); ``rewrite`` says what to change, or None to send the ack as it is."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.0, 5.0)
        self.signed: dict[bytes, bytes] = {}

    def rewrite(self, world: World, me: int, ack: Ack) -> Ack | None:
        raise NotImplementedError

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or type(m) is not Ack:
            return [(to, payload)]
        if m.body not in self.signed:
            lie = self.rewrite(world, me, m)
            if lie is None:
                return [(to, payload)]
            self.signed[m.body] = lie.wire()
        return [(to, self.mark(self.signed[m.body]))]


class LyingHash(_AckRewriter):
    """Acks every step with a wrong state hash (one signed ack, the same to everyone)."""

    name = "lying_hash"

    def rewrite(self, world: World, me: int, ack: Ack) -> Ack | None:
        return _resign(world, me, ack, shash=bytes(32))


class MoveEquivocator(Behaviour):
    """As the leader of a step, sends one legal move to some peers and another to the rest."""

    name = "move_equivocator"
    provable = True

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.0, 5.0)
        self.rng = rng
        self.other: dict[int, bytes | None] = {}

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or type(m) is not Action:
            return [(to, payload)]
        if m.step not in self.other:
            self.other[m.step] = self._alternative(world, me, m)
        alt = self.other[m.step]
        if alt is not None and to % 2 == 1:
            return [(to, self.mark(alt))]
        return [(to, payload)]

    def _alternative(self, world: World, me: int, move: Action) -> bytes | None:
        alt = self._other_action(world, me, move)
        if alt is None:
            return None
        key = world.peers[me].secrets.key
        return p8.sign_action(key, move.game_id, move.step, me, move.prev, move.seat, alt).wire()

    def _other_action(self, world: World, me: int, move: Action) -> dict[str, object] | None:
        """Another legal move for ``move``'s seat on the state it was made for (None if there is none)."""
        core = world.peers[me].core
        if core is None or len(core.log.inputs) < move.step - 1:
            return None
        game = core.log.new_game()
        for action in core.log.inputs[: move.step - 1]:
            game.apply(action)
        others = [a for a in game.legal_actions(move.seat) if a != move.action and a["type"] != "declare_bankruptcy"]
        return self.rng.choice(others) if others else None


class EarlyEquivocator(MoveEquivocator):
    """As the leader, nests its early move for the next step in its ack (to everyone) and also
    sends some peers a different move for that step directly: one slot, two signed moves."""

    name = "early_equivocator"
    provable = True

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or type(m) is not Ack or type(m.nested) is not Action:
            return [(to, payload)]
        early = m.nested
        if early.step not in self.other:
            self.other[early.step] = self._alternative(world, me, early)
        alt = self.other[early.step]
        if alt is not None and to % 2 == 1:
            return [(to, payload), (to, self.mark(alt))]
        return [(to, payload)]


class NestedEquivocator(MoveEquivocator):
    """Signs two acks of one step nesting two different moves for the next (its early move or an
    out-of-turn one), each to a part of the table: in protocol 9 the ack's signature is the only one
    over a nested move, so the proof is the two acks, two signed messages in one slot."""

    name = "nested_equivocator"
    provable = True

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.lies: dict[int, bytes | None] = {}

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or type(m) is not Ack or type(m.nested) is not Action or len(world.peers) < 3:
            return [(to, payload)]
        if m.step not in self.lies:
            move = m.nested
            alt = self._other_action(world, me, move)
            body = (
                None
                if alt is None
                else p8.unsigned_body(p8.Kind.ACTION, m.game_id, move.step, me, move.prev, move.seat, alt)
            )
            self.lies[m.step] = None if body is None else _resign(world, me, m, nested=body).wire()
        lie = self.lies[m.step]
        if lie is not None and to % 2 == 1:
            return [(to, self.mark(lie))]
        return [(to, payload)]


class IllegalNester(_AckRewriter):
    """Nests a move the rules refuse in its ack (its early move, or an out-of-turn one), the same to
    every peer: the ack's signature is the only one over it."""

    name = "illegal_nester"

    def rewrite(self, world: World, me: int, ack: Ack) -> Ack | None:
        move = ack.nested
        if type(move) is not Action:
            return None
        illegal = {"type": "bid", "player": move.seat, "amount": -1}  # refused by the rules, whatever the state
        body = p8.unsigned_body(p8.Kind.ACTION, ack.game_id, move.step, me, move.prev, move.seat, illegal)
        return _resign(world, me, ack, nested=body)


class Omitter(Behaviour):
    """As the leader of a step, keeps its move from some peers (the others get it)."""

    name = "omitter"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.0, 5.0)
        self.victim: int | None = None

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now >= self.after and type(m) is Action:
            if self.victim is None:
                self.victim = to
            if to == self.victim:
                self.acted += 1
                return []
        return [(to, payload)]


class RevealGrinder(Behaviour):
    """Reveals last: holds its reveal (and everything after it) until it has every other peer's,
    computes the roll, and withholds it for good (going silent) when it dislikes the roll. The
    outside tester's second finding: with three or more peers it is removed and its reveal rebuilt,
    so the roll is the one it would have given (``Checker.fair_rolls``)."""

    name = "reveal_grinder"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.0, 4.0)
        self.holding: tuple[Reveal, list[tuple[int, bytes]]] | None = None
        self.sulking = False
        self.withheld: list[int] = []

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        if self.sulking:
            return []
        if self.holding is not None:
            self.holding[1].append((to, payload))
            return []
        m = _parse(world, payload)
        reveal = m.nested if isinstance(m, Ack) else m if isinstance(m, Reveal) else None
        if world.now < self.after or not isinstance(reveal, Reveal):
            return [(to, payload)]
        held: list[tuple[int, bytes]] = []
        if isinstance(m, Ack):  # the ack goes out without its reveal; the reveal waits
            held_ack = _resign(world, me, m, nested=None).wire()
            self.holding = (reveal, held)
            world.at(world.now + 0.001, self.decide, world, me)
            return [(to, held_ack)]
        self.holding = (reveal, [(to, payload)])
        world.at(world.now + 0.001, self.decide, world, me)
        return []

    def decide(self, world: World, me: int) -> None:
        if self.holding is None:
            return
        reveal, held = self.holding
        core = world.peers[me].core
        if core is None or core.result is not None:
            self.holding = None
            return
        got = core.inbox.reveals.get(reveal.step, {})
        present = core.members.present
        if any(p not in got for p in present if p != me) and core.game.step < reveal.step:
            world.at(world.now + 0.01, self.decide, world, me)
            return
        if core.game.step >= reveal.step:  # its own core applied the step: what the roll was is known
            liked = (
                core.log.inputs[reveal.step - 1].get("dice", (1, 1))[0] % 2 == 0
                if len(core.log.inputs) >= reveal.step
                else True
            )
        else:
            liked = True
        self.holding = None
        if liked:
            alone = reveal.wire()
            if reveal.carrier is not None:  # its ack went out without it: the reveal goes alone, signed
                key = world.peers[me].secrets.key
                alone = p8.sign_reveal(
                    key, reveal.game_id, reveal.step, me, reveal.prev, reveal.index, reveal.link
                ).wire()
            for to in range(len(world.peers)):
                if to != me:
                    world.send(me, to, alone)
            for to, payload in held:
                world.send(me, to, payload)
        else:
            self.sulking = True
            self.acted += 1
            self.withheld.append(reveal.step)


class Replayer(Behaviour):
    """Sends again, on its own link, messages it received from others and old ones of its own."""

    name = "replayer"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng
        self.seen: list[bytes] = []

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        out = [(to, payload)]
        m = _parse(world, payload)
        if isinstance(m, Signed):
            self.seen.append(payload)
        core = world.peers[me].core
        if core is not None and self.rng.random() < 0.2:
            others = [x for by in core.inbox.acks.values() for x in by.values() if x.signer != me]
            if others and self.rng.random() < 0.5:
                out.append((to, self.mark(self.rng.choice(others).wire())))
            elif self.seen:
                out.append((to, self.mark(self.rng.choice(self.seen))))
        return out


class Forger(Behaviour):
    """Makes moves for seats it does not control: signed by itself, or passed on in another's name."""

    name = "forger"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng
        self.after = rng.uniform(0.0, 5.0)

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        core = world.peers[me].core
        if world.now < self.after or not isinstance(m, Ack) or core is None or self.rng.random() < 0.7:
            return [(to, payload)]
        theirs = [s for s, c in enumerate(core.controllers) if c != me]
        if not theirs:
            return [(to, payload)]
        seat = self.rng.choice(theirs)
        legal = core.game.legal_actions(seat) or [{"type": "pass", "player": seat}]
        key = world.peers[me].secrets.key
        prev = core.game.state_hash()
        mine = p8.sign_action(key, m.game_id, m.step + 1, me, prev, seat, self.rng.choice(legal))
        victim = core.controllers[seat]
        impostor = p8.sign(key, p8.Kind.ACTION, m.game_id, m.step + 1, victim, prev, seat, self.rng.choice(legal))
        choice = self.rng.random()
        if choice < 0.4:  # an out-of-turn move for a seat it does not control, nested in its ack
            return [(to, self.mark(_resign(world, me, m, nested=mine).wire()))]
        if choice < 0.7:  # the same, sent alone
            return [(to, payload), (to, self.mark(mine.wire()))]
        return [(to, payload), (to, self.mark(p8.encode(m.game_id, p8.Relay((impostor,)))))]  # in another's name


class BadShare(Behaviour):
    """Releases a wrong share of a removed peer's secret (validly signed)."""

    name = "bad_share"
    provable = True

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if not isinstance(m, Share):
            return [(to, payload)]
        key = world.peers[me].secrets.key
        wrong = bytes([m.value[0] ^ 1]) + m.value[1:]
        return [(to, self.mark(p8.sign_share(key, m.game_id, m.step, me, m.dealer, wrong).wire()))]


class Garbage(Behaviour):
    """Now and then sends bytes that are no message (or a message of another game)."""

    name = "garbage"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng
        self.after = rng.uniform(0.0, 5.0)

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        if world.now < self.after or self.rng.random() < 0.9:
            return [(to, payload)]
        junk = [b"\xc1", p8.wire.pack([999, 8]), p8.encode(bytes(16), Status(0, 0, ())), self.rng.randbytes(40)]
        return [(to, self.mark(self.rng.choice(junk))), (to, payload)]


class WrongReveal(Behaviour):
    """Reveals a link that is not the next of its chain (signed)."""

    name = "wrong_reveal"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.0, 5.0)
        self.rng = rng

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or not isinstance(m, Reveal | Ack):
            return [(to, payload)]
        key = world.peers[me].secrets.key
        reveal = m.nested if isinstance(m, Ack) else m
        if not isinstance(reveal, Reveal):
            return [(to, payload)]
        bad = p8.sign_reveal(key, reveal.game_id, reveal.step, me, reveal.prev, reveal.index, bytes(32))
        if isinstance(m, Ack):
            return [(to, self.mark(_resign(world, me, m, nested=bad).wire()))]
        return [(to, self.mark(bad.wire()))]


class IllegalMover(Behaviour):
    """As the leader, sends a signed move the rules refuse."""

    name = "illegal_mover"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.after = rng.uniform(0.0, 5.0)

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or type(m) is not Action:
            return [(to, payload)]
        key = world.peers[me].secrets.key
        illegal = {"type": "bid", "player": m.seat, "amount": -1}  # refused by the rules, whatever the state
        return [(to, self.mark(p8.sign_action(key, m.game_id, m.step, me, m.prev, m.seat, illegal).wire()))]


class OfferLeaker(Behaviour):
    """As the leader, passes every offer it takes on to the others (any peer may pass a signed
    message on: an offer then looks like a move its signer sent alone); in half the games it then
    falls silent instead of moving, is voted out, and its seat may pass to the offerer, whose offer
    already fills its one move of the step. Neither may get an honest offerer named."""

    name = "offer_leaker"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.falls_silent = rng.random() < 0.5
        self.silent = False
        self.passed: dict[int, set[Action]] = {}
        """Peer -> the offers passed on to it."""

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        core = world.peers[me].core
        offers = [] if core is None else [o for by in core.inbox.offers.values() for o in by.values()]
        fresh = [o for o in offers if o.signer != to and o not in self.passed.setdefault(to, set())]
        out: list[tuple[int, bytes]] = []
        if fresh:
            self.passed[to].update(fresh)
            out.append((to, self.mark(p8.encode(world.genesis.game_id, p8.Relay(tuple(fresh))))))
            self.silent = self.silent or self.falls_silent
        if self.silent:
            self.acted += 1
        else:
            out.append((to, payload))
        return out


class TurnStaller(Behaviour):
    """As the leader of the next step, nests in each of its acks an out-of-turn move for another of
    its seats (a cheat: an honest leader never does, and nests its early move), to put its own turn
    off, move after move, for as long as it likes. Its core is changed to do so (what it nests must
    also be what it holds): the cap on out-of-turn moves in a row must stop it, and at the cap a
    move in turn beside the nested one is two moves in its one slot of the step."""

    name = "turn_staller"

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        core = world.peers[me].core
        if core is not None and not getattr(core, "_stalls", False):
            core._stalls = True  # type: ignore[attr-defined]
            core._may_interject = lambda step: core.game.current_player is not None  # type: ignore[method-assign]
            core._interjection = lambda step: self._stall(core, step)  # type: ignore[method-assign]
        return [(to, payload)]

    def _stall(self, core: Session, step: int) -> bytes | None:
        """An out-of-turn move for ``step`` for another of its seats, when it leads the step."""
        current = core.game.current_player
        if current is None or core.controllers[current] != core.me:
            return None
        for seat in (s for s, c in enumerate(core.controllers) if c == core.me and s != current):
            legal = [a for a in core.game.legal_actions(seat) if a["type"] not in ("declare_bankruptcy", "resign")]
            if legal:
                self.acted += 1
                return core._move_body(step, seat, self.rng.choice(legal))
        return None


class SyncLiar(MoveEquivocator):
    """Answers a peer catching up (``SYNC``) with another legal move of its own in the latest step
    it led: a second signed move in one slot, which the peer behind cannot know from the first."""

    name = "sync_liar"
    provable = True

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.after = 0.0  # a peer catches up rarely: lie at every chance

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if world.now < self.after or type(m) is not p8.Sync:
            return [(to, payload)]
        steps = list(m.steps)
        for i in reversed(range(len(steps))):
            (move, *more) = steps[i].messages
            if more or type(move) is not Action or move.signer != me:
                continue
            if move.step not in self.other:
                self.other[move.step] = self._alternative(world, me, move)
            alt = self.other[move.step]
            if alt is None:
                continue
            lie = _parse(world, alt)
            assert isinstance(lie, Action)
            steps[i] = p8.StepRecord(steps[i].step, (lie,))
            return [(to, self.mark(p8.encode(world.genesis.game_id, p8.Sync(tuple(steps), m.changes, m.last))))]
        return [(to, payload)]


class VoteEquivocator(Behaviour):
    """Votes two ways in one round: its vote or commit as its core signed it to some peers, and one
    naming other peers, or the other choice, to the rest: two signed votes in one slot."""

    name = "vote_equivocator"
    provable = True

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def outgoing(self, world: World, me: int, to: int, payload: bytes) -> list[tuple[int, bytes]]:
        m = _parse(world, payload)
        if type(m) is not p8.Vote or to % 2 == 0:
            return [(to, payload)]
        others = [p for p in range(len(world.peers)) if p != me]
        flipped = set(m.removed) ^ {self.rng.choice(others)}
        removed, choice = (flipped, m.choice) if flipped else (set(m.removed), "bank" if m.choice == "bot" else "bot")
        key = world.peers[me].secrets.key
        alt = p8.sign_vote(key, m.game_id, m.step, me, m.prev, m.round, sorted(removed), choice, m.kind)
        return [(to, self.mark(alt.wire()))]


DRAWN = (
    Quiet,
    ZeroAckSignatures,
    AckEquivocator,
    LyingHash,
    MoveEquivocator,
    EarlyEquivocator,
    NestedEquivocator,
    Omitter,
    RevealGrinder,
    Replayer,
    Forger,
    BadShare,
    Garbage,
    WrongReveal,
    IllegalMover,
    IllegalNester,
)
"""The behaviours a game's seed draws among (``run.draw``); the offer leaker, the turn staller, the
sync liar and the vote equivocator are drawn apart."""

CATALOGUE: dict[str, Callable[[random.Random], Behaviour]] = {
    b.name: b  # type: ignore[misc]
    for b in (*DRAWN, OfferLeaker, TurnStaller, SyncLiar, VoteEquivocator)
}
