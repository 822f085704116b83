"""The lockstep session of one game on one peer, as a pure state machine (no I/O, no clock).

Inputs: ``start(now)``, ``link_up(peer, now)``, ``link_down(peer, reason, now)``,
``receive(peer, payload, now)``, ``submit(seat, action, now)`` (the person's move),
``vote_replace(peer, choice, now)``, ``leave(reason, now)`` and ``timer(now)``; each returns the
effects to carry out (``effects.py``), and ``deadline`` says when to call ``timer`` next.

Step ``k`` (the k-th input of the game) goes like this on every peer:

1. **Decide.** At a chance node every present peer reveals its next hash-chain link (in its ack of
   step k-1 when it can, else alone); the outcome comes from the seed of every peer's link
   (``chance.py``). Otherwise, if acks of step k-1 carried out-of-turn moves, the first valid one
   in the fixed order of ``order.py`` is the input. Otherwise the controller of the seat to act
   (the step's *leader*) sends its signed move, or forwards (signed) another peer's move offered
   to it while its own is not chosen.
2. **Apply** the input (the engine checks it; a signed illegal move freezes the session naming
   its signer), record it, and **ack** it: a signed (step, input hash, state hash), carrying this
   peer's out-of-turn move or reveal for step k+1.
3. **Agree.** Step k+1 starts when every present peer's ack of k is in and all agree. Different
   inputs start the evidence round (proofs of equivocation); the same input with different states
   is a desync (a strict majority of three or more plays on and votes the others out).

Every signed message is verified on arrival (a bad signature is a fault of the link it came on; a
signature by another peer's key is attributed to that peer) and filed by slot: a second different
message in a slot is proof of equivocation. A peer whose link drops is waited for (``rejoin
timeout``), its messages passed on to the others; with ``replace_after`` a peer away or silent
that long is voted out (``members.py``) and its chain secret rebuilt from the others' shares.
A new link starts with ``STATUS``; a peer behind gets ``SYNC`` (the signed steps it lacks) and
everyone repeats what it signed for the steps in play.

Concerns with state of their own live in sub-machines that own it (the session reads their results
and calls their methods): the ballot (``votes.py``), the waits and their timeouts (``silence.py``),
catching a peer up (``catchup.py``), the evidence round (``inquiry.py``), out-of-turn moves and the
person's moves waiting for a step (``outofturn.py``); which signed move may
decide a step is worked out by the pure functions of ``moves.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from lanopoly._core import Game, Rules
from lanopoly.bots import Policy, SimpleBot
from lanopoly.log import GameLog
from lanopoly.net import protocol as p8
from lanopoly.net.core import effects as fx
from lanopoly.net.core import moves
from lanopoly.net.core.catchup import Catchup
from lanopoly.net.core.chance import Chance, Recovery, step_seed
from lanopoly.net.core.evidence import Proof, SlotBook, expand, find_proofs
from lanopoly.net.core.inquiry import (
    EvidenceRound,
    InputsDiverged,
    NoOwnAck,
    Outvote,
    acks_of,
    desync_verdict,
    disagree,
)
from lanopoly.net.core.members import Change, Members
from lanopoly.net.core.outcome import Fault, FreezeInfo, SessionResult
from lanopoly.net.core.outofturn import OutOfTurn
from lanopoly.net.core.record import ChangeEntry, EndEntry, JournalEntry, Record, SignedEntry, StepEntry
from lanopoly.net.core.silence import Absent, AskOthers, Silence, Silent, WantOut
from lanopoly.net.core.steps import Inbox, Mine
from lanopoly.net.core.votes import Ballot, Plan
from lanopoly.net.genesis import Genesis
from lanopoly.net.keys import ED25519, Signer, Suite
from lanopoly.net.protocol import (
    Ack,
    Action,
    Bye,
    ChangeRecord,
    Evidence,
    Forward,
    Freeze,
    Offer,
    Relay,
    Reveal,
    Share,
    Signed,
    Status,
    StepRecord,
    Sync,
    Vote,
    Want,
    action_hash,
)
from lanopoly.net.wire import WireError

log = logging.getLogger("lanopoly.net.session")

STALEMATE = "a vote for a change that can be made"
"""What is awaited from the peers that voted otherwise while this peer's own vote cannot pass."""

_CHEATS_ON_A_STEP = ("equivocation", "illegal_action")
"""Faults that make what decides a step differ from peer to peer (see ``Session._missing_move``)."""

Move = Mapping[str, Any]


@dataclass(frozen=True)
class Config:
    """The session's patience and pace (seconds)."""

    step_timeout: float = 30.0
    """How long a present peer may stay silent when its message is awaited."""
    rejoin_timeout: float = 0.0
    """How long a peer whose link dropped is waited for (0: the session freezes at once)."""
    replace_after: float | None = None
    """Vote out a peer away this long, or silent past ``step_timeout`` (None: never)."""
    bot_delay: float = 0.0
    """Seconds this peer's bots wait before an in-turn move (so that people can follow)."""
    max_steps: int = 200_000
    evidence_wait: float = 3.0
    bye_wait: float = 5.0


class Phase(Enum):
    DECIDING = "deciding"
    AGREEING = "agreeing"
    EVIDENCE = "evidence"
    FINISHING = "finishing"
    OVER = "over"
    FROZEN = "frozen"


class Session:
    """One peer's side of one game. ``policies`` play this peer's seats (None: the person)."""

    def __init__(
        self,
        genesis: Genesis,
        me: int,
        key: Signer | None,
        chain_secret: bytes | None,
        held_shares: Mapping[int, bytes],
        policies: Mapping[int, Policy | None],
        config: Config | None = None,
        *,
        suite: Suite = ED25519,
        journal: Sequence[JournalEntry] = (),
        bot_factory: Callable[[], Policy] = SimpleBot,
    ) -> None:
        start = genesis.record
        self.genesis = genesis
        self.game_id = genesis.game_id
        self.me = me
        self._key = key
        self.observer = key is None
        """Without a key this session only checks (``verify``): it replays recorded steps and changes."""
        if key is not None and key.public != start.peers[me].key:
            raise ValueError("this signing key is not this peer's key in the start record")
        self.suite = suite
        self.keys = genesis.keys
        self.names = [p.name for p in start.peers]
        self.config = config or Config()
        self.bot_factory = bot_factory
        mine = set(start.seats_of(me)) if key is not None else set()
        if set(policies) != mine:
            raise ValueError(f"policies for seats {sorted(policies)} but this peer controls {sorted(mine)}")
        self.policies: dict[int, Policy | None] = dict(policies)
        self.held_shares = dict(held_shares)
        self.game = Game(list(start.names), board=start.board, rules=Rules.recorded(start.rules), seed=0)
        self.log = GameLog.start(self.game)
        self.record = Record(genesis, me)
        self.members = Members(len(start.peers), start.controllers)
        self.chance = Chance(genesis, me, chain_secret)
        self.recovery = Recovery(genesis, self.chance)
        self.inbox = Inbox()
        self.mine = Mine()
        self.slots = SlotBook()

        self.phase = Phase.DECIDING
        self.faults: list[Fault] = []
        self.proofs: list[Proof] = []
        self.result: SessionResult | None = None
        self.frozen: FreezeInfo | None = None
        """Why this session froze, once it did (told to a peer that links in later)."""
        self.links: set[int] = set()
        self.away: dict[int, float] = {}
        self.broken: dict[int, str] = {}
        """Peers whose link this peer closed for misbehaving: not waited for."""
        self.ballot = Ballot(me, self.members, self.mine, start.replace_with)
        self.out_of_turn = OutOfTurn()
        self.person_move: tuple[int, Move] | None = None
        """The person's in-turn move, with the step it is for."""
        self.bot_due: float | None = None
        self.asked: int = -1
        """The last step for which ``YourMove`` was emitted."""
        self.remote_freeze: tuple[int, str, float] | None = None
        self.evidence = EvidenceRound()
        self.byes: dict[int, Bye] = {}
        self.pending_change: Change | None = None
        self._seats_changed: dict[int, int] = {}
        self.finishing_since = 0.0
        c = self.config
        self.silence = Silence(c.step_timeout, c.rejoin_timeout, c.replace_after)
        self.wants: dict[int, dict[int, int]] = {}
        """peer -> {asker: step}: whoever asked (``WANT``) for that peer's messages from that step on."""
        self.catchup = Catchup(me, [p.port for p in start.peers], self.record)
        self._now = 0.0
        self._out: list[fx.Effect] = []
        self._hash_step = -1
        self._hash = b""
        """The game's state hash at step ``_hash_step`` (``_state_hash``)."""
        self._restoring = False
        if journal:
            self._restore(journal)

    @classmethod
    def observe(cls, genesis: Genesis, suite: Suite = ED25519) -> Session:
        """A session that signs nothing and only checks recorded steps and changes (``verify``)."""
        session = cls(genesis, -1, None, None, {}, {}, Config(), suite=suite)
        session._restoring = True
        return session

    def check_step(self, record: StepRecord) -> None:
        """Observer: apply one recorded step, checked; ValueError with the reason if it does not hold."""
        if record.step != self.game.step + 1:
            raise ValueError(f"step {record.step} recorded after step {self.game.step}")
        before = len(self.faults)
        if not self._replay(-1, record):
            if len(self.faults) > before:
                raise ValueError(self.faults[before].detail)
            freeze = self.result.freeze if self.result is not None else None
            raise ValueError(freeze.reason if freeze is not None else "the step does not hold")

    def check_change(self, record: ChangeRecord) -> None:
        """Observer: make one recorded change of membership, checked; ValueError if it does not hold."""
        before = len(self.faults)
        if not self._catch_up_change(-1, record) or self.pending_change is not None:
            detail = self.faults[before].detail if len(self.faults) > before else "its shares do not rebuild a secret"
            raise ValueError(f"the change at step {record.step} does not hold: {detail}")

    @property
    def key(self) -> Signer:
        if self._key is None:
            raise ValueError("an observer signs nothing")
        return self._key

    # ----------------------------------------------------------------------------- public inputs

    def start(self, now: float) -> list[fx.Effect]:
        """Begin (or go on after a restart): every other peer counts as away until its link is up."""
        self._now = now
        for peer in self.members.others(self.me):
            if peer not in self.links:
                self.away.setdefault(peer, now)
        self._advance()
        return self._flush()

    def link_up(self, peer: int, now: float, port: int | None = None) -> list[fx.Effect]:
        """An authenticated link to ``peer`` is up (``port``: where it listens now, if it said)."""
        self._now = now
        if peer == self.me:
            return self._flush()
        if not self.members.is_present(peer):
            self._tell_removed(peer)
            return self._flush()
        if self.phase is Phase.FROZEN:
            self._tell_frozen(peer)
            return self._flush()
        self.catchup.linked(peer, port)
        self.links.add(peer)
        self.broken.pop(peer, None)
        self.ballot.back(peer)
        self.silence.linked(peer)
        if self.away.pop(peer, None) is not None and self.phase not in (Phase.OVER, Phase.FROZEN):
            self._notify(fx.PeerBack(peer))
        self._send(peer, p8.encode(self.game_id, self.catchup.status(self.game.step, len(self.members.changes))))
        for other in self.silence.waiting:  # the new link may hold what this peer waits for from one it cannot reach
            if other in self.away and other != peer:
                self._send(peer, p8.encode(self.game_id, Want(other, self.game.step)))
        return self._flush()

    def _tell_frozen(self, peer: int) -> None:
        """A peer linked in after this session froze (it was down, or its process stopped, when the
        freeze went out): tell it, as every linked peer was told, and close the link; left
        unanswered it would name this peer silent."""
        info = self.frozen
        if info is not None and info.cause not in ("local", "removed"):
            evidence = self._proof_evidence(info)
            if evidence is not None:
                self._out.append(fx.Send(peer, evidence))
            self._out.append(fx.Send(peer, p8.encode(self.game_id, Freeze(info.step, info.reason))))
        self._out.append(fx.Close(peer, "the session stopped"))

    def _tell_removed(self, peer: int) -> None:
        """A removed peer came back: tell it why it no longer plays, and close its link."""
        change = next((c for c in self.members.changes if peer in c.removed), None)
        if change is None:
            return
        voters = ", ".join(self.peer_label(v.signer) for v in change.commits)
        reason = f"removed from step {change.step} by the votes of {voters}"
        self._out.append(fx.Send(peer, p8.encode(self.game_id, Freeze(change.step, reason))))
        self._out.append(fx.Close(peer, "removed from the game"))

    def link_down(self, peer: int, reason: str, now: float) -> list[fx.Effect]:
        """The link to ``peer`` closed or broke: wait for it (``rejoin_timeout``), passing on what it said."""
        self._now = now
        self.links.discard(peer)
        if not self.members.is_present(peer) or peer in self.away or self.phase in (Phase.OVER, Phase.FROZEN):
            return self._flush()
        self.away[peer] = now
        for asked in self.wants.values():
            asked.pop(peer, None)
        self._notify(fx.PeerAway(peer, now, reason))
        self.silence.unlinked(peer)
        held = self.inbox.held_by(peer, max(self.game.step - 1, 0))
        if held:
            relay = p8.encode(self.game_id, Relay(tuple(held)))
            for other in self.members.others(self.me):
                if other != peer:
                    self._send(other, relay)
        self._advance()
        return self._flush()

    def receive(self, peer: int, payload: bytes, now: float) -> list[fx.Effect]:
        """A message from ``peer``'s link (authenticated, decrypted)."""
        self._now = now
        if not self.members.is_present(peer):
            return self._flush()
        try:
            message = p8.parse(payload, self.game_id)
        except WireError as e:
            if self.phase is not Phase.OVER:
                self._misbehaved(peer, "malformed", f"sent a malformed message: {e}")
            return self._flush()
        if self.phase is Phase.OVER:
            if isinstance(message, Status):  # a peer back after the end: what it lacks, and goodbye
                self._take_status(peer, message)
                self._send(peer, p8.encode(self.game_id, Bye(self.game.step, self._state_hash())))
            return self._flush()
        if self.phase is Phase.FROZEN:
            return self._flush()
        self._dispatch(peer, message)
        self._advance()
        return self._flush()

    def submit(self, seat: int, action: Move, now: float) -> list[fx.Effect]:
        """The person's move for ``seat``: in turn if the game waits for it, else out of turn.

        Raises ``ValueError`` (``IllegalAction`` from the engine) with the reason when it may not
        be played now; nothing changes then.
        """
        self._now = now
        if self.members.controllers[seat] != self.me or self.policies.get(seat, 0) is not None:
            raise ValueError(f"seat {seat} is not played by the person at this peer")
        if self.phase in (Phase.OVER, Phase.FROZEN):
            raise ValueError("the game has ended")
        self.members.check(self.game, action)
        step = self.game.step + 1
        if not self.game.is_chance_node and self.game.current_player == seat:
            self.person_move = (step, dict(action))
        else:
            replaced = self.out_of_turn.queue(seat, action)
            if replaced is not None:
                self._notify(fx.MoveDropped(seat, replaced, "a newer move of the seat replaced it", replaced=True))
            if self.phase is Phase.DECIDING:
                self._offer(step)
        self._advance()
        return self._flush()

    def vote_replace(self, peer: int, choice: str, now: float) -> list[fx.Effect]:
        """Vote to remove ``peer`` from the next step on (its seats to ``bot`` or ``bank``)."""
        self._now = now
        if choice not in p8.VOTE_CHOICES:
            raise ValueError(f"unknown choice {choice!r}: one of {', '.join(p8.VOTE_CHOICES)}")
        if peer == self.me or not self.members.is_present(peer):
            raise ValueError(f"peer {peer} is not another peer still playing")
        if len(self.members.present) == 2 and choice != "bank":
            raise ValueError("with two peers nobody can be outvoted: the other's seats can only resign (bank)")
        self.ballot.condemn((peer,), choice)
        self._advance()
        return self._flush()

    def leave(self, reason: str, now: float) -> list[fx.Effect]:
        """This peer stops playing (the person quit): the session freezes here."""
        self._now = now
        self._freeze(FreezeInfo(self.game.step, reason, (), cause="local"))
        return self._flush()

    def timer(self, now: float) -> list[fx.Effect]:
        """Time passed: deadlines (silence, drops, votes, evidence, bots' pace) are looked at."""
        self._now = now
        self._on_time()
        self._advance()
        return self._flush()

    # ----------------------------------------------------------------------------- queries

    @property
    def deadline(self) -> float | None:
        """When ``timer`` should be called next (None: nothing is timed)."""
        if self.phase in (Phase.OVER, Phase.FROZEN):
            return None
        c = self.config
        times: list[float] = []
        if self.phase is Phase.EVIDENCE:
            times.append(self.evidence.until)
        if self.phase is Phase.FINISHING:
            times.append(self.finishing_since + c.bye_wait)
        if self.bot_due is not None and self.bot_due > self._now:
            # Once due, the bot moves when the step can be decided; until then something else
            # (a change this peer committed to, say) holds the step, and its own time counts.
            times.append(self.bot_due)
        times += self.silence.deadlines(self._now, self.away, self.ballot.is_auto)
        return min(times) if times else None

    def _state_hash(self) -> bytes:
        """The game's state hash, computed once a step (a dozen places ask for it each step; only
        ``_apply`` moves the game, and every input moves its step)."""
        step = self.game.step
        if step != self._hash_step:
            self._hash = self.game.state_hash()
            self._hash_step = step
        return self._hash

    def waiting_for(self) -> dict[int, str]:
        """The peers whose messages the session waits for now, with what it waits for."""
        return dict(self._waiting())

    @property
    def controllers(self) -> list[int]:
        return self.members.controllers

    def peer_label(self, peer: int) -> str:
        return f"peer {peer} ({self.names[peer]})" if 0 <= peer < len(self.names) else "the record"

    def saved_text(self) -> str:
        """The network record to save with the game log, as JSON text (``verify`` checks it)."""
        return self.record.to_text()

    # ----------------------------------------------------------------------------- effects

    def _flush(self) -> list[fx.Effect]:
        """The effects so far; and the wait is timed: since when each awaited thing is awaited."""
        waiting = self._waiting() if self.phase not in (Phase.OVER, Phase.FROZEN) else {}
        for peer in self.silence.wait(waiting, self._now):
            if peer in self.away:
                self._want(peer)
        out, self._out = self._out, []
        return out

    def _want(self, peer: int) -> None:
        """This peer waits for ``peer``'s messages and cannot reach it: ask the others to pass them on
        (one of them may hold what ``peer`` sent before its link to this peer broke)."""
        want = p8.encode(self.game_id, Want(peer, self.game.step))
        for other in self.members.others(self.me):
            if other != peer:
                self._send(other, want)

    def _send(self, peer: int, payload: bytes) -> None:
        if peer in self.links and peer != self.me and not self._restoring:
            self._out.append(fx.Send(peer, payload))

    def _broadcast(self, payload: bytes) -> None:
        for peer in self.members.others(self.me):
            self._send(peer, payload)

    def _persist(self, entry: JournalEntry) -> None:
        if not self._restoring:
            self._out.append(fx.Persist(entry))  # type: ignore[arg-type]

    def _notify(self, event: fx.Event) -> None:
        if not self._restoring:
            self._out.append(fx.Notify(event))

    def _fault(self, peer: int, kind: str, detail: str) -> None:
        """Record and log misbehaviour of ``peer``; the game goes on unless the caller freezes."""
        fault = Fault(self.game.step + 1, peer, kind, detail)
        self.faults.append(fault)
        log.warning("peer %d: step %d: %s: %s", self.me, fault.step, self.peer_label(peer), detail)
        self._notify(fx.FaultSeen(fault))

    def _misbehaved(self, peer: int, kind: str, detail: str) -> None:
        """A fault on ``peer``'s own authenticated link: close it; the peer is not waited for."""
        self._fault(peer, kind, detail)
        if peer in self.links:
            self._out.append(fx.Close(peer, detail))
        self.links.discard(peer)
        self.broken[peer] = detail
        self.away.pop(peer, None)
        if self.config.replace_after is not None:
            self.ballot.condemn((peer,))
        else:
            self._freeze(FreezeInfo(self.game.step + 1, f"{self.peer_label(peer)} {detail}", (peer,)))

    def _sign_and_keep(self, message: Signed, to: str = "all") -> Signed:
        """Keep a message this peer just signed, journaled before it is sent."""
        self._keep(message, to)
        self._persist(SignedEntry(message, to))
        return message

    def _keep(self, message: Signed, to: str) -> None:
        """Remember a message this peer signed, and the move or reveal an ack of it carries: its slot
        is taken (the ack goes out, and is repeated, for it)."""
        self.mine.keep(message, to)
        self.slots.file(message)
        if isinstance(message, Ack) and message.nested is not None:
            self.mine.keep(message.nested, "nested")
            self.slots.file(message.nested)

    # ----------------------------------------------------------------------------- intake

    def _dispatch(self, link: int, message: p8.Message) -> None:
        if isinstance(message, Signed):
            if message.signer != link:
                self._fault(
                    link, "replayed", f"sent {p8.a_kind(message.kind)} signed by {self.peer_label(message.signer)}"
                )
                return
            self._take_signed(link, message, direct=True)
        elif isinstance(message, Offer):
            self._take_offer(link, message.action)
        elif isinstance(message, Relay):
            for m in message.messages:
                self._take_signed(link, m, direct=False)
        elif isinstance(message, Evidence):
            self._take_evidence(link, message)
        elif isinstance(message, Freeze):
            self._take_freeze(link, message)
        elif isinstance(message, Bye):
            self.byes[link] = message
        elif isinstance(message, Status):
            self._take_status(link, message)
        elif isinstance(message, Sync):
            self._take_sync(link, message)
        elif isinstance(message, Want) and message.peer != link and message.peer != self.me:
            held = self.inbox.held_by(message.peer, max(message.step - 1, 0))
            if held:
                self._send(link, p8.encode(self.game_id, Relay(tuple(held[-p8.MAX_BATCH :]))))
            self.wants.setdefault(message.peer, {})[link] = message.step  # and what it sends later

    def _verified(self, link: int, message: Signed) -> bool:
        """Check every signature in ``message`` (nested ones too). An honest peer passes on only
        what it verified, so a failure is the misbehaviour of ``link``; a body signed by another key
        than its signer's is also proof against the key's owner (it signed in another's name)."""
        for m in expand([message]):
            if m.carrier is message:
                continue  # nested in the ack just verified: covered by its signature
            if m.game_id != self.game_id:
                self._misbehaved(link, "wrong_game", f"sent {p8.a_kind(m.kind)} of another game")
                return False
            if m.signer < len(self.keys) and self.suite.verify(self.keys[m.signer], m.signed_data, m.signature):
                continue
            what = f"{p8.a_kind(m.kind)} for step {m.step} in the name of peer {m.signer}"
            other = next(
                (
                    q
                    for q, k in enumerate(self.keys)
                    if q != m.signer and self.suite.verify(k, m.signed_data, m.signature)
                ),
                None,
            )
            if other is not None and other != link:
                self._fault(other, "forged", f"signed {what}")
            kind = "forged" if other == link else "bad_signature"
            self._misbehaved(link, kind, f"sent {what} that its key did not sign")
            return False
        return True

    def _take_signed(self, link: int, message: Signed, direct: bool) -> None:
        if self.inbox.seen(message):
            if direct and isinstance(message, Ack):
                self.inbox.add_ack(message, direct)  # now known to have come on its own link too
            elif direct and isinstance(message, Action | Forward):
                self.inbox.add_move(message, direct)
            return  # a message already taken (repeated after a new link, or passed on twice): nothing new
        step = self.game.step
        if message.step + 1 < step or message.step > step + 2:
            return  # settled long ago, or far ahead (this peer is behind and will catch up): not verified
        if not self._verified(link, message):
            return
        if not self.members.is_present(message.signer):
            return
        for m in expand([message]):
            proof = self.slots.file(m)
            if proof is not None:
                if self._proven(proof) and isinstance(m, Vote):  # once: the votes passed on come back
                    self._voted_two_ways(proof)
                if m is message:
                    return
        self.inbox.taken(message)
        for asker, since in self.wants.get(message.signer, {}).items():
            if message.step + 1 >= since and asker != link:
                self._send(asker, p8.encode(self.game_id, Relay((message,))))
        if isinstance(message, Action | Forward):
            self.inbox.add_move(message, direct)
        elif isinstance(message, Reveal):
            self.inbox.add_reveal(message)
        elif isinstance(message, Ack):
            self._take_ack(link, message, direct)
        elif isinstance(message, Vote):
            self._take_vote(link, message)
        elif isinstance(message, Share):
            self._take_share(message)

    def _proven(self, proof: Proof) -> bool:
        """Keep a proof and name its cheater; False if this proof was held already."""
        if any(p.messages == proof.messages for p in self.proofs):
            return False
        self.proofs.append(proof)
        self._fault(proof.peer, proof.kind, proof.describe())
        return True

    def _voted_two_ways(self, proof: Proof) -> None:
        """A peer signed two different votes (or commits) in one round: with both out, peers that
        hold different ones commit to different changes, none can be made, and the game waited for
        a vote that never came, naming an honest peer silent (the simulation's vote equivocator).
        The cheater is voted out like a peer that misbehaved on its link (``--replace-after``), else
        the session freezes with the proof. Both votes are passed on to every peer first: each was
        sent to a part of the table, and a peer that saw one only would vote to keep the cheater."""
        peer = proof.peer
        if peer == self.me or not self.members.is_present(peer):
            return
        self._broadcast(p8.encode(self.game_id, Relay(tuple(proof.messages))))
        if self.config.replace_after is not None:
            self.ballot.condemn((peer,))
        else:
            reason = f"{self.peer_label(peer)} {proof.describe()}"
            self._freeze(FreezeInfo(self.game.step + 1, reason, (peer,), proofs=(proof,)))

    def _take_ack(self, link: int, ack: Ack, direct: bool) -> None:
        self.inbox.add_ack(ack, direct)
        for asked in self.wants.values():  # the asker moved on: it has what it wanted
            if asked.get(ack.signer, ack.step + 1) < ack.step:
                del asked[ack.signer]

    def _withheld(self, peer: int, step: int, what: str) -> bool:
        """Whether ``peer`` acked ``step`` on its own link without sending this peer ``what`` first
        (on one link messages arrive in order): it kept it from this peer. Freezes naming it."""
        if not self.inbox.acked_directly(step, peer):
            return False
        detail = f"acked step {step} without sending this peer {what}"
        self._fault(peer, "withheld", detail)
        self._freeze(FreezeInfo(step, f"{self.peer_label(peer)} {detail}", (peer,)))
        return True

    def _take_vote(self, link: int, vote: Vote) -> None:
        if not self.members.take(vote):
            return
        if vote.kind is p8.Kind.VOTE:
            self._notify(fx.VoteSeen(vote.signer, vote.removed, vote.choice, vote.step))
        # A voter behind this peer may lack what decided the steps it is stuck on: pass them on.
        if vote.step <= self.game.step and link in self.links:
            found = [m for r in self.record.steps[vote.step - 1 :] for m in r.messages]
            for removed in vote.removed:
                found += self.inbox.held_by(removed, vote.step - 1)
            if found:
                self._send(link, p8.encode(self.game_id, Relay(tuple(found[-p8.MAX_BATCH :]))))

    def _take_share(self, share: Share) -> None:
        """File a released share. One whose dealer is still present here is kept too: its holder
        made the change first (its commit reached this peer, the last commit not yet), and it sends
        each share once, so dropping it left this peer short of shares, waiting forever."""
        if share.dealer == share.signer:
            return
        if not self.recovery.check(share):
            self._proven(Proof(share.signer, "bad_share", (share,)))
            return
        self.recovery.take(share)

    def _take_offer(self, link: int, offer: Action) -> None:
        step = self.game.step
        if offer.step + 1 < step or offer.step > step + 2:
            return  # as for signed messages: kept, offers for any step grew without bound (1 KB each)
        if offer.signer != link or not self._verified(link, offer):
            if offer.signer != link:
                self._fault(link, "replayed", "offered a move signed by another peer")
            return
        proof = self.slots.file(offer)
        if proof is not None:
            self._proven(proof)
            return
        self.inbox.add_offer(offer)

    def _take_freeze(self, link: int, freeze: Freeze) -> None:
        """Another peer stopped: stop too, citing it (a peer this one votes out is not followed; during
        the evidence round this peer finishes its own diagnosis first)."""
        if self.ballot.is_condemned(link) or self.remote_freeze is not None:
            return
        self.remote_freeze = (link, freeze.reason, self._now)
        log.warning("peer %d: %s froze the session: %s", self.me, self.peer_label(link), freeze.reason)
        if self._follows_freeze():
            self._freeze_remote()

    def _follows_freeze(self) -> bool:
        """Whether the remote freeze held is followed now: not during the evidence round, nor while this
        peer is bound to a change removing its sender. A peer removed while its links are up freezes
        on being told so by the first peer that made the change, and tells every peer; one that has
        committed to the same change but not made it yet (a commit still on its way) would follow it,
        and the whole game froze instead of playing on without it. Making the change drops it."""
        if self.remote_freeze is None or self.phase is Phase.EVIDENCE:
            return False
        commit = self._bound(self.game.step + 1)
        return commit is None or self.remote_freeze[0] not in commit.removed

    def _freeze_remote(self) -> None:
        assert self.remote_freeze is not None
        peer, reason, _ = self.remote_freeze
        self._freeze(
            FreezeInfo(self.game.step + 1, f"{self.peer_label(peer)} froze the session: {reason}", cause="remote")
        )

    def _take_evidence(self, link: int, evidence: Evidence) -> None:
        if self.phase is not Phase.EVIDENCE and not self._shows_disagreement(evidence.step, evidence.messages):
            self._unfounded(link, evidence.step)  # checked before any signature: costs nothing to refuse
            return
        good = [m for m in evidence.messages if self._verified(link, m)]
        if self.phase is Phase.EVIDENCE:
            self.evidence.add(link, good)
        elif self._shows_disagreement(evidence.step, good):
            self.evidence.add(link, good)
            self._start_evidence(evidence.step)

    def _unfounded(self, link: int, step: int) -> None:
        """Name (once) a peer that sent evidence showing no disagreement; the game goes on."""
        if not any(f.peer == link and f.kind == "unfounded_evidence" for f in self.faults):
            self._fault(link, "unfounded_evidence", f"sent evidence for step {step} with no acks that disagree")

    def _shows_disagreement(self, step: int, messages: Sequence[Signed]) -> bool:
        """Whether signed acks of ``step`` (in ``messages`` or held here) disagree (``inquiry.disagree``)."""
        return disagree(step, messages, self.inbox.acks.get(step, {}).values())

    # ----------------------------------------------------------------------------- the step machine

    def _advance(self) -> None:
        for _ in range(100_000):
            if self.phase in (Phase.OVER, Phase.FROZEN):
                return
            if self.silence.voted:
                for peer in self.silence.heard(self._waiting(), self.away):
                    self.ballot.back(peer)
            self._cast_vote()
            if self.pending_change is None:
                self._maybe_change()
            if self.pending_change is not None and not self._finish_change():
                # A change waiting for shares does not hold up an evidence round whose time is up
                # (its deadline has passed: without this, timer() would be called again at once).
                if self.phase is Phase.EVIDENCE and self._evidence_done():
                    continue
                return
            if self.phase is Phase.EVIDENCE:
                progressed = self._evidence_done()
            elif self.phase is Phase.AGREEING:
                progressed = self._try_agree()
            elif self.phase is Phase.DECIDING:
                progressed = self._try_decide()
            elif self.phase is Phase.FINISHING:
                progressed = self._try_finish()
            else:
                return  # the vote or change above ended the session (this peer was voted out)
            if not progressed:
                return

    def _leader(self) -> int | None:
        seat = self.game.current_player
        return None if seat is None else self.members.controllers[seat]

    def _waiting(self) -> dict[int, str]:
        """The present peers the session waits for now (their link up or not), and for what."""
        step = self.game.step + 1
        present = self.members.others(self.me)  # a peer that misbehaved blocks too, until it is voted out
        out = self._blocking(step, present)
        outvoting = self.ballot.outvoting == self.game.step
        vote = self._bound(step) or (self.members.vote_of(self.me, step) if outvoting else None)
        if vote is None:
            return out
        needed = self.members.voters_for(vote)
        if needed is None:
            # This peer's vote cannot pass (it names as many as it leaves), and only a change
            # decides the step: the peers that voted otherwise, or not at all, are awaited, so that
            # a stalemate ends at the timeouts instead of waiting for good: one away is named absent,
            # while a linked one freezes the game naming nobody (``_freeze_absent``).
            for p in present:
                theirs = self.members.vote_of(p, step)
                if theirs is None or theirs.proposal != vote.proposal:
                    out.setdefault(p, STALEMATE)
            return out
        for p in present:
            if p in needed and self.members.commit_of(p, step) is None:
                out.setdefault(p, "its vote")
        return out

    def _blocking(self, step: int, present: list[int]) -> dict[int, str]:
        if self.pending_change is not None:
            got = self.recovery.shares
            removed = self.pending_change.removed
            return {
                p: "its share of a removed peer's secret"
                for p in present
                if not any(p in got.get(d, {}) for d in removed)
            }
        if self.phase is Phase.AGREEING:
            acks = self.inbox.acks.get(self.game.step, {})
            return {p: f"its ack of step {self.game.step}" for p in present if p not in acks}
        if self.phase is Phase.FINISHING:
            return {p: "its goodbye" for p in present if p not in self.byes}
        if self.phase is Phase.EVIDENCE:
            return {p: "its evidence" for p in present if not self.evidence.has(p) and p not in self.away}
        if self.phase is not Phase.DECIDING or self.game.is_over:
            return {}
        if self.game.is_chance_node:
            reveals = self.inbox.reveals.get(step, {})
            return {p: f"its reveal for step {step}" for p in present if p not in reveals}
        leader = self._leader()
        if (
            leader is not None
            and leader != self.me
            and leader in present
            and leader not in self.inbox.moves.get(step, {})
        ):
            return {leader: f"the move of {self.game.names[self.game.current_player or 0]} (step {step})"}
        return {}

    def _try_decide(self) -> bool:
        step = self.game.step + 1
        if self.game.is_over:
            self.phase = Phase.FINISHING
            self.finishing_since = self._now
            self._broadcast(p8.encode(self.game_id, Bye(self.game.step, self._state_hash())))
            return True
        if self.game.step >= self.config.max_steps:
            self._freeze(FreezeInfo(self.game.step, f"step limit {self.config.max_steps} reached", cause="limit"))
            return True
        if self._bound(step) is not None:
            return False  # this peer committed to a change at this step: the change decides it, or nothing
        prev = self._state_hash()
        if self.game.is_chance_node:
            return self._decide_chance(step, prev)
        picked = self._pick_interjection(step, prev)
        if picked is not None:
            self._apply(step, picked.action, (picked,), picked.seat, out_of_turn=True)
            return True
        leader = self._leader()
        seat = self.game.current_player
        if leader is None or seat is None:
            self._freeze(FreezeInfo(step, "the game waits for nobody", cause="local"))
            return True
        if leader == self.me:
            return self._decide_mine(step, prev, seat)
        return self._decide_theirs(step, prev, leader, seat)

    def _decide_chance(self, step: int, prev: bytes) -> bool:
        own = self.mine.get("reveal", step)
        if not isinstance(own, Reveal):
            own = self._my_reveal(step, prev)
            self._broadcast(own.wire())
        self.inbox.add_reveal(own)
        got = self.inbox.reveals.get(step, {})
        reveals: dict[int, Reveal] = {}
        for peer in self.members.present:
            reveal = got.get(peer)
            if reveal is None:
                return self._withheld(peer, step, "its reveal")
            if reveal.prev != prev or not self.chance.valid(reveal):
                detail = (
                    f"revealed a wrong link for step {step}"
                    if reveal.prev == prev
                    else f"revealed for another state at step {step}"
                )
                self._fault(peer, "bad_reveal", detail)
                self._freeze(FreezeInfo(step, f"{self.peer_label(peer)} {detail}", (peer,)))
                return True
            reveals[peer] = reveal
        links = self.chance.links(reveals)
        outcome = self.game.outcome_from_bytes(step_seed(self.game_id, step, prev, links))
        self.chance.advance(links)
        self._apply(step, outcome, tuple(reveals[p] for p in sorted(reveals)), None, out_of_turn=False)
        return True

    def _my_reveal(self, step: int, prev: bytes) -> Reveal:
        reveal = p8.sign_reveal(
            self.key, self.game_id, step, self.me, prev, self.chance.index + 1, self.chance.my_link()
        )
        self._sign_and_keep(reveal)
        return reveal

    def _check_move(self, step: int, prev: bytes, move: Action | Forward, in_turn: bool) -> str | None:
        """Why ``move`` cannot be step ``step``'s input on this state (None if it can)."""
        return moves.problem(self.game, self.members, self._leader(), step, prev, move, in_turn)

    def _pick_interjection(self, step: int, prev: bytes) -> Action | None:
        nested = self.inbox.nested.get(step, {})
        picked, faults = moves.interjection(
            self.game, self.members, self._leader(), step, prev, nested, self.out_of_turn.run
        )
        for peer, detail in faults:
            self._fault(peer, "illegal_action", detail)
        return picked

    def _decide_mine(self, step: int, prev: bytes, seat: int) -> bool:
        prior = self.mine.get("move", step)
        if isinstance(prior, Forward) or (isinstance(prior, Action) and prior.seat == seat):
            return self._play_signed(step, prev, prior)  # signed before a restart: repeated, never redone
        if isinstance(prior, Action) and prior.carrier is None:
            # This peer offered an out-of-turn move for this step to its leader, then a change made
            # it lead the step: the offer fills its one move of the step, so it is the input (the
            # peers take a leader's own out-of-turn move), never a second move beside it.
            self._broadcast(prior.wire())
            return self._play_signed(step, prev, prior)
        policy = self.policies.get(seat)
        if self._must_resign(seat):
            action: Move = {"type": "resign", "player": seat}
        elif policy is None:
            if self.person_move is not None and self.person_move[0] == step:
                action = self.person_move[1]
            else:
                offer = self._best_offer(step, prev)
                if offer is not None:
                    forward = p8.sign_forward(self.key, self.game_id, step, self.me, prev, offer)
                    self._sign_and_keep(forward)
                    self._broadcast(forward.wire())
                    return self._play_signed(step, prev, forward)
                if self.asked != step:
                    self.asked = step
                    self._notify(fx.YourMove(seat, step))
                return False
        else:
            if self.config.bot_delay > 0:
                if self.bot_due is None:
                    self.bot_due = self._now + self.config.bot_delay
                if self._now < self.bot_due:
                    return False
            action = policy.choose(self.game, seat, self.game.legal_actions(seat))
        why = self._refusal(action)
        if why is not None:
            self._freeze(FreezeInfo(step, f"this peer's policy chose an illegal move {action!r}: {why}", cause="local"))
            return True
        move = p8.sign_action(self.key, self.game_id, step, self.me, prev, seat, dict(action))
        self._sign_and_keep(move)
        self._broadcast(move.wire())
        return self._play_signed(step, prev, move)

    def _must_resign(self, seat: int) -> bool:
        return self.members.refusal(self.game, {"type": "", "player": seat}) is not None

    def _best_offer(self, step: int, prev: bytes) -> Action | None:
        """An offered out-of-turn move the leader (this peer) may play while its person thinks."""
        return moves.best_offer(self.game, self.members, prev, self.inbox.offers.get(step, {}), self.out_of_turn.run)

    def _decide_theirs(self, step: int, prev: bytes, leader: int, seat: int) -> bool:
        move: Action | Forward | None = self.inbox.moves.get(step, {}).get(leader)
        if move is None:
            early = self.inbox.nested.get(step, {}).get(leader)
            move = early if early is not None and moves.is_early(early, seat, self.members) else None
        if move is None:
            self._offer(step)
            return self._missing_move(leader, step)
        return self._play_signed(step, prev, move)

    def _missing_move(self, leader: int, step: int) -> bool:
        """The leader acked ``step`` on its own link, and this peer holds no move for it. If another
        peer was caught cheating on what decides the step (an ack of the step before signed twice,
        or an illegal out-of-turn move nested in one), the step's input may be that peer's move
        nested in an ack this peer was not sent: the freeze names that peer, never the leader
        (found by the soak, seed 49620). Otherwise the leader kept its move from this peer."""
        if not self.inbox.acked_directly(step, leader):
            return False
        cheats = sorted(
            {f.peer for f in self.faults if f.step == step and f.peer != leader and f.kind in _CHEATS_ON_A_STEP}
        )
        if not cheats:
            return self._withheld(leader, step, "its move")
        names = ", ".join(self.peer_label(p) for p in cheats)
        reason = f"{names} cheated on the moves of step {step}, which the others decided without this peer"
        proofs = tuple(p for p in self.proofs if p.peer in cheats)
        self._freeze(FreezeInfo(step, reason, tuple(cheats), proofs=proofs))
        return True

    def _play_signed(self, step: int, prev: bytes, move: Action | Forward) -> bool:
        """Apply the leader's signed move or forward (checked first; illegal: freeze naming the
        signer). The leader's own move for another seat than the one to act is out of turn: an
        offer it signed for the step before a change made it the leader (``_decide_mine``)."""
        in_turn = isinstance(move, Forward) or move.seat == self.game.current_player
        problem = self._check_move(step, prev, move, in_turn=in_turn)
        out_of_turn = isinstance(move, Forward) or not in_turn  # a forward too is held to the cap
        if (
            problem is None
            and out_of_turn
            and moves.over_cap(self.members, self.out_of_turn.run, move.signer, self._leader(), step)
        ):
            problem = f"moved out of turn after {self.out_of_turn.run} steps in a row out of turn, as the leader"
        if problem is not None:
            self._fault(move.signer, "illegal_action", problem)
            self._freeze(FreezeInfo(step, f"{self.peer_label(move.signer)} {problem}", (move.signer,)))
            return True
        if isinstance(move, Forward):
            self._apply(step, move.offer.action, (move,), move.offer.seat, out_of_turn=True)
        else:
            self._apply(step, move.action, (move,), move.seat, out_of_turn=not in_turn)
        return True

    def _offer(self, step: int) -> None:
        """Send the person's queued out-of-turn move to the leader of ``step`` (once a step)."""
        if not self.out_of_turn.has_queued or self.game.is_chance_node or self.mine.get("move", step) is not None:
            return
        leader = self._leader()
        if leader is None or leader == self.me or not self.out_of_turn.allows(len(self.members.present)):
            return
        queued = self._queued(step)
        if queued is not None:
            seat, action = queued
            move = p8.sign_action(self.key, self.game_id, step, self.me, self._state_hash(), seat, dict(action))
            self._sign_and_keep(move, "leader")
            self._send(leader, p8.encode(self.game_id, Offer(move)))

    def _queued(self, step: int) -> tuple[int, Move] | None:
        """Take the person's first queued out-of-turn move that is legal now, for ``step`` (to offer it
        to the leader, or to nest in this peer's ack)."""
        picked, dropped = self.out_of_turn.take(step, self.game.current_player, self._refusal)
        for seat, action, why in dropped:
            self._notify(fx.MoveDropped(seat, action, why))
        return picked

    def _refusal(self, action: Move) -> str | None:
        """Why the engine (and the seats' controllers) refuse ``action`` now; None if it may be played."""
        try:
            self.members.check(self.game, action)
        except (ValueError, TypeError, KeyError) as e:
            return str(e)
        return None

    def _apply(
        self,
        step: int,
        action: Move,
        messages: tuple[Signed, ...],
        seat: int | None,
        out_of_turn: bool,
        ack: bool = True,
    ) -> None:
        """Apply the decided input of ``step``, record it, and ack it (not when replaying recorded steps)."""
        try:
            events = self.game.apply(action)
        except (ValueError, TypeError, KeyError) as e:
            signer = messages[0].signer if messages and seat is not None else None
            self._freeze(
                FreezeInfo(step, f"the input of step {step} was refused: {e}", () if signer is None else (signer,))
            )
            return
        self.log.record(action, self.game)
        self._hash, self._hash_step = self.log.hashes[-1], self.game.step  # the log just computed it
        signer = None
        if out_of_turn:  # the signer of the move itself (a forward's is the leader's)
            signer = messages[0].offer.signer if isinstance(messages[0], Forward) else messages[0].signer
        self.out_of_turn.decided(str(action.get("type")), signer)
        record = StepRecord(step, messages)
        self.record.add_step(record)
        self._persist(StepEntry(record, self._state_hash()))
        self._notify(fx.StepApplied(step, dict(action), seat, [dict(e) for e in events], out_of_turn))
        self.out_of_turn.settle(step, self.mine.get("move", step), messages)
        self.bot_due = None
        self.inbox.forget_before(step - 1)
        self.members.forget_before(step + 1)
        self.mine.forget_before(step - 1)
        self.slots.forget_before(step - 1)
        if ack:
            self._acknowledge(step)

    def _acknowledge(self, step: int) -> None:
        """Sign (or repeat) this peer's ack of ``step`` and send it; the session then agrees."""
        ack = self.mine.get("ack", step)
        if not isinstance(ack, Ack):
            nested: bytes | None = None
            if not self.game.is_over:
                if self.game.is_chance_node:
                    nested = self._reveal_body(step + 1)
                elif self._may_interject(step + 1):
                    nested = self._interjection(step + 1)
                elif self._leader() == self.me:
                    nested = self._early_move(step + 1)
            ack = p8.sign_ack(
                self.key, self.game_id, step, self.me, action_hash(self.log.inputs[-1]), self._state_hash(), nested
            )
            self._sign_and_keep(ack)
        self.inbox.add_ack(ack)
        self._broadcast(ack.wire())
        self.phase = Phase.AGREEING

    def _reveal_body(self, step: int) -> bytes:
        """The body of this peer's reveal for chance step ``step``, nested in its ack of the step
        before (the one it signed alone already, if any: the same body, so the same message)."""
        signed = self.mine.get("reveal", step)
        if signed is not None:
            return signed.body
        index, link = self.chance.index + 1, self.chance.my_link()
        return p8.unsigned_body(p8.Kind.REVEAL, self.game_id, step, self.me, self._state_hash(), index, link)

    def _move_body(self, step: int, seat: int, action: Move) -> bytes:
        """The body of this peer's move for ``seat`` at ``step``, to nest in its ack of the step before."""
        return p8.unsigned_body(p8.Kind.ACTION, self.game_id, step, self.me, self._state_hash(), seat, dict(action))

    def _early_move(self, step: int) -> bytes | None:
        """This peer's bot move for ``step``, chosen as it acks the step before, so that it goes out
        nested in that ack (its body, signed by the ack): the next step then needs no round trip of
        its own. Only a bot that moves at once does so (a person, a bot with a delay, or a seat that
        must resign moves when the step comes)."""
        seat = self.game.current_player
        if seat is None or self.config.bot_delay > 0 or self._bound(step) is not None:
            return None
        policy = self.policies.get(seat)
        if policy is None or self._must_resign(seat):
            return None
        action = policy.choose(self.game, seat, self.game.legal_actions(seat))
        if self._refusal(action) is not None:
            return None  # refused again when the step comes, and then the session freezes
        return self._move_body(step, seat, action)

    def _may_interject(self, step: int) -> bool:
        return (
            self.out_of_turn.allows(len(self.members.present))
            and self._leader() != self.me
            and self.mine.get("move", step) is None
            and any(c == self.me for c in self.members.controllers)
        )

    def _interjection(self, step: int) -> bytes | None:
        """The body of this peer's out-of-turn move for ``step`` (to nest in its ack): the person's
        queued one, else a bot's."""
        queued = self._queued(step)
        if queued is not None:
            return self._move_body(step, *queued)
        current = self.game.current_player
        for seat in self.members.seats_of(self.me):
            policy = self.policies.get(seat)
            interject = getattr(policy, "interject", None)
            if seat == current or interject is None or self._must_resign(seat):
                continue
            legal = self.game.legal_actions(seat)
            if not legal:
                continue
            action = interject(self.game, seat, legal)
            if action is not None and self._refusal(action) is None:
                return self._move_body(step, seat, action)
        return None

    def _try_agree(self) -> bool:
        step = self.game.step
        acks = self.inbox.acks.get(step, {})
        present = self.members.present
        if not all(p in acks for p in present):
            return False
        hashes = {p: (acks[p].action_hash, acks[p].state_hash) for p in present}
        mine = hashes[self.me]
        if all(h == mine for h in hashes.values()):
            self._out_of_turn_faults(step)
            self.phase = Phase.DECIDING
            self.silence.agreed()
            return True
        return self._disagree(step)

    def _out_of_turn_faults(self, step: int) -> None:
        """Moves sent for ``step`` on their signers' own links by peers that did not lead it were out
        of turn. One passed on by another proves nothing: it may be an offer its signer sent to the
        leader alone, which a leader could pass on to have an honest offerer named."""
        decided = self.record.steps[step - 1].messages if len(self.record.steps) >= step else ()
        for peer, move in self.inbox.moves.get(step, {}).items():
            if move not in decided and self.inbox.sent_by_signer(step, peer):
                self._fault(peer, "out_of_turn", f"sent a move for step {step} when it was not its turn")

    def _disagree(self, step: int) -> bool:
        """Acks of ``step`` differ: first look for proof of equivocation with every peer (evidence round)."""
        if self.ballot.outvoting == step:
            return False  # the minority is being voted out: the change settles it
        self._start_evidence(step)
        return True

    def _after_evidence(self, step: int, hashes: dict[int, tuple[bytes, bytes]]) -> None:
        """No proof found: carry out the desync verdict (``inquiry.desync_verdict``). A majority
        that agrees with this peer votes the others out and plays on; else the session freezes."""
        verdict = desync_verdict(hashes, self.me)
        if isinstance(verdict, NoOwnAck):
            self._freeze(FreezeInfo(step, f"another peer saw the acks of step {step} disagree (no proof found)"))
        elif isinstance(verdict, Outvote) and self.game.is_over:
            # The step ended the game: no later step to remove them from. The majority's final
            # state stands; the diverged peers are named, and the session says goodbye.
            for peer in verdict.diverged:
                self._fault(peer, "diverged", f"announced another final state at step {step}")
            self._try_decide()
        elif isinstance(verdict, Outvote):
            for peer in verdict.diverged:
                self._fault(peer, "diverged", f"announced another state at step {step}: voted out")
            self.ballot.outvote(step, verdict.diverged)
            self.phase = Phase.AGREEING
        elif isinstance(verdict, InputsDiverged):
            reason = f"inputs diverged at step {step}, and the evidence that reached this peer proves no equivocation"
            self._freeze(FreezeInfo(step, reason, (), hashes))
        else:
            names = ", ".join(self.peer_label(p) for p in verdict.blamed)
            by = "the majority" if verdict.by_majority else f"{self.peer_label(self.me)} (no majority)"
            reason = f"desync at step {step}: state hashes differ after the same input; {names} diverged from {by}"
            self._freeze(FreezeInfo(step, reason, verdict.blamed, hashes, cause="desync"))

    # ----------------------------------------------------------------------------- evidence

    def _start_evidence(self, step: int) -> None:
        """The inputs of ``step`` diverged: exchange every signed message held for it and the step before."""
        self.phase = Phase.EVIDENCE
        self.evidence.start(step, self._now + self.config.evidence_wait)
        held = self.inbox.of_step(step) + self.inbox.of_step(step + 1) + self.inbox.of_step(step - 1)
        held += [m for r in self.record.steps[max(step - 2, 0) : step] for m in r.messages]
        mine = list(dict.fromkeys(held))[: p8.MAX_BATCH]
        self.evidence.add(self.me, mine)
        self._broadcast(p8.encode(self.game_id, Evidence(step, tuple(mine))))

    def _evidence_done(self) -> bool:
        """Once the round is over: freeze with the proofs found, else give the desync verdict. A peer
        away is waited for too (up to the round's end) when this peer holds its ack of the step: its
        input may be the one that differs, and the evidence it holds the proof."""
        acked = self.inbox.acks.get(self.evidence.step, {})
        present = [
            p for p in self.members.others(self.me) if p not in self.broken and (p not in self.away or p in acked)
        ]
        if not self.evidence.over(self._now, present):
            return False
        collected = self.evidence.close()
        for proof in find_proofs(collected, self.keys, self.suite.verify):
            self._proven(proof)
        step = self.evidence.step
        acks = acks_of(step, self.inbox.acks.get(step, {}), collected)
        hashes = {p: (a.action_hash, a.state_hash) for p, a in acks.items() if self.members.is_present(p)}
        if self.proofs:
            blamed = tuple(sorted({p.peer for p in self.proofs}))
            names = ", ".join(self.peer_label(p) for p in blamed)
            reason = f"acks of step {step} disagree: {names} equivocated (signed proof)"
            self._freeze(FreezeInfo(step, reason, blamed, hashes, tuple(self.proofs)))
            return True
        self._after_evidence(step, hashes)
        return True

    # ----------------------------------------------------------------------------- votes and changes

    @property
    def condemned(self) -> frozenset[int]:
        """Peers this peer wants removed for good (``votes.py``)."""
        return self.ballot.condemned

    def _bound(self, step: int) -> Vote | None:
        """This peer's commit to a change at ``step``, while it binds (``Ballot.bound``)."""
        return self.ballot.bound(step, self.inbox.acks.get(step, {}))

    def _cast_vote(self) -> None:
        """Vote (again) for the step to come when this peer wants peers removed; commit once the vote
        is unanimous."""
        targets = self.ballot.intent(self.members.others(self.me))
        if not targets or self.phase not in (Phase.DECIDING, Phase.AGREEING):
            return
        step = self.game.step + 1
        if self._bound(step) is not None:
            return
        plan = self.ballot.plan(step, self._state_hash(), targets)
        if isinstance(plan, Plan):
            self._maybe_commit(self._sign_vote(plan))
        elif plan is not None:
            self._maybe_commit(plan)

    def _sign_vote(self, plan: Plan) -> Vote:
        """Sign, keep and send the vote ``plan`` says."""
        step, round_, choice = plan.step, plan.round, plan.choice
        vote = p8.sign_vote(self.key, self.game_id, step, self.me, plan.prev, round_, plan.removed, choice)
        self._sign_and_keep(vote)
        self.members.take(vote)
        names = ", ".join(self.peer_label(p) for p in plan.removed)
        log.warning("peer %d: voting to remove %s from step %d (%s, round %d)", self.me, names, step, choice, round_)
        self._notify(fx.VoteSeen(self.me, vote.removed, choice, step))
        self._broadcast(vote.wire())
        return vote

    def _maybe_commit(self, vote: Vote) -> None:
        """Commit to ``vote`` once every peer its change needs voted exactly it."""
        if not self.ballot.commits(vote, self.inbox.acks.get(vote.step, {})):
            return
        commit = p8.sign_vote(
            self.key, self.game_id, vote.step, self.me, vote.prev, vote.round, vote.removed, vote.choice, p8.Kind.COMMIT
        )
        self._sign_and_keep(commit)
        self.members.take(commit)
        self._broadcast(commit.wire())

    def _maybe_change(self) -> None:
        if self.phase not in (Phase.DECIDING, Phase.AGREEING):
            return
        change = self.members.decide(self.game.step + 1, self._state_hash())
        if change is None:
            return
        if self.me in change.removed:
            voters = ", ".join(self.peer_label(v.signer) for v in change.commits)
            self._freeze(
                FreezeInfo(change.step, f"this peer was voted out from step {change.step} by {voters}", cause="removed")
            )
            return
        self._make_change(change)

    def _make_change(self, change: Change) -> None:
        """Remove the peers of ``change`` (the same on every peer) and start rebuilding their secrets."""
        self._seats_changed = {s: self.members.controllers[s] for s in self.members.seats_of_any(change.removed)}
        seats = self.members.apply(change)
        if change.controller == self.me:
            for seat in seats:
                self.policies[seat] = self.bot_factory()
        voters = ", ".join(self.peer_label(v.signer) for v in change.commits)
        notice = p8.encode(
            self.game_id, Freeze(change.step, f"removed from step {change.step} by the votes of {voters}")
        )
        for peer in change.removed:
            self._send(peer, notice)
            if peer in self.links:
                self._out.append(fx.Close(peer, "removed from the game"))
            self.links.discard(peer)
            self.away.pop(peer, None)
            self.broken.pop(peer, None)
            self.ballot.removed(peer)
            self.silence.removed(peer)
            self.inbox.drop_from(peer)
            if self.remote_freeze is not None and self.remote_freeze[0] == peer:
                self.remote_freeze = None
        self.recovery.start(change.removed, self.members.present)
        for dealer in sorted(self.recovery.pending & set(change.removed)):
            value = self.held_shares.get(dealer)
            if value is None:
                continue
            share = p8.sign_share(self.key, self.game_id, change.step, self.me, dealer, value)
            self._sign_and_keep(share)
            self.recovery.take(share)
            self._broadcast(share.wire())
        self.pending_change = change

    def _finish_change(self) -> bool:
        """Once the removed peers' secrets are rebuilt (or given up), the change is complete."""
        change = self.pending_change
        assert change is not None
        if self.recovery.pending & set(change.removed):
            return False
        shares: list[Share] = []
        for dealer in change.removed:
            shares.extend(self.recovery.used(dealer))
            if self.recovery.failed(dealer):
                self._proven(Proof(dealer, "bad_deal", tuple(self.recovery.used(dealer))))
            if self.chance.recovered.get(dealer) is None:
                self.members.to_bank([s for s, before in self._seats_changed.items() if before == dealer])
        record = ChangeRecord(change.step, change.commits, tuple(shares))
        self.record.add_change(record)
        self._persist(ChangeEntry(record))
        self.pending_change = None
        seats = tuple(self._seats_changed)
        choice = "bank" if all(s in self.members.resigning for s in seats) else change.choice
        self._notify(fx.PeersRemoved(change.step, change.removed, change.controller, seats, choice))
        log.warning("peer %d: from step %d %s removed (%s)", self.me, change.step, list(change.removed), choice)
        return True

    # ----------------------------------------------------------------------------- time

    def _on_time(self) -> None:
        """Time passed: follow a freeze held back, else act on the waits that lasted too long."""
        if self.phase in (Phase.OVER, Phase.FROZEN):
            return
        if self._follows_freeze():
            self._freeze_remote()
            return
        for decision in self.silence.check(self._now, self._waiting(), self.away):
            if isinstance(decision, WantOut):
                self.ballot.want_out(decision.peer)
            elif isinstance(decision, AskOthers):
                self._ask_others(decision.peer, decision.what)
            else:
                self._freeze_absent(decision)

    def _freeze_absent(self, gone: Absent | Silent) -> None:
        """Freeze naming a peer that was away or silent too long (a silent one is a fault too). A
        linked peer that would not vote for a change that can be made is named nothing: neither
        side of a stalemate can show the other wrong."""
        if isinstance(gone, Silent) and gone.what == STALEMATE:
            wait = f"{self.config.step_timeout:g} s"
            reason = f"no change could be agreed in {wait}: {self.peer_label(gone.peer)} voted otherwise"
            self._freeze(FreezeInfo(self.game.step + 1, reason, (), cause="absent"))
            return
        if isinstance(gone, Silent):
            self._fault(gone.peer, "silent", f"{gone.detail} while this peer waited for {gone.what}")
        reason = f"waiting for {gone.what}: {self.peer_label(gone.peer)} {gone.detail}"
        self._freeze(FreezeInfo(self.game.step + 1, reason, (gone.peer,), cause="absent"))

    def _ask_others(self, peer: int, what: str) -> None:
        """``peer`` is linked but this peer has waited half the step timeout for ``what``: ask the
        others to pass on what they hold of ``peer``'s. A process stopped in the middle of a broadcast
        (``kill -STOP`` lands anywhere) sent its ack to one peer and not yet to this one; that peer
        moved on to the next step and waited for this peer's ack, which never came while this peer
        waited for the stopped one: it froze naming this honest peer silent (or voted it out).
        Asked, it passes on what this peer lacks, this peer acks, and only the stopped peer is
        silent. Once a wait: another thing awaited may be asked for again.

        Waiting for ``peer``'s ack of this step, this peer also sends it the records of this step
        and the one before: a peer behind cannot ack a step it never saw decided (this peer may
        have had it from a third peer's SYNC, which nobody passes on). It is at most two steps
        behind (this peer left the step before last with its ack), and ignores a record it holds.

        It also passes on the votes and commits it holds for the step to come: a voter cannot commit
        to a change without every vote it needs, and the vote of a peer that died right after
        voting reached only the peers linked to it then (one restarting was not).
        ``Silence.check`` records the ask: once a wait."""
        self._want(peer)
        if peer not in self.links:
            return
        if self.phase is Phase.AGREEING:
            self._send_sync(peer, max(self.game.step - 2, 0))
        votes = [v for v in self.members.held(self.game.step + 1) if v.signer != peer]
        if votes:
            self._send(peer, p8.encode(self.game_id, Relay(tuple(votes[-p8.MAX_BATCH :]))))

    def _try_finish(self) -> bool:
        others = [p for p in self.members.others(self.me) if p not in self.away and p not in self.broken]
        if not all(p in self.byes for p in others) and self._now < self.finishing_since + self.config.bye_wait:
            return False
        final = self._state_hash()
        for peer, bye in self.byes.items():
            if bye.state_hash != final or bye.step != self.game.step:
                self._fault(peer, "final_hash", "announced another final state")
        self.phase = Phase.OVER
        self.result = self._result("over", None)
        self._persist(EndEntry("over", self.game.step, ""))
        self.record.end = EndEntry("over", self.game.step, "")
        self._notify(fx.Finished(self.result))
        return True

    def _freeze(self, info: FreezeInfo) -> None:
        if self.phase in (Phase.OVER, Phase.FROZEN):
            return
        self.phase = Phase.FROZEN
        self.frozen = info
        log.error("peer %d: session frozen at step %d: %s", self.me, info.step, info.reason)
        if info.cause not in ("local", "removed"):
            evidence = self._proof_evidence(info)
            if evidence is not None:
                self._broadcast(evidence)
            self._broadcast(p8.encode(self.game_id, Freeze(info.step, info.reason)))
        for peer in sorted(self.links):
            self._out.append(fx.Close(peer, "the session stopped"))
        self.result = self._result("frozen", info)
        end = EndEntry("frozen", self.game.step, info.reason)
        self.record.end = end
        self._persist(end)
        self._notify(fx.Frozen(info))
        self._notify(fx.Finished(self.result))

    def _proof_evidence(self, info: FreezeInfo) -> bytes | None:
        """The proofs a freeze cites, with the acks of its step held here, as ``EVIDENCE`` sent before
        the ``FREEZE``: a peer still in its evidence round, or that never saw the acks disagree,
        finds the proof itself instead of freezing without one. The cheater may be the only link
        between the peer that holds the proof and the others (a peer catching up from a lying
        ``SYNC``), so the proof goes to every peer as it links in too (``_tell_frozen``). None when
        the freeze cites no proof, or when the acks held here do not disagree (a receiver would
        rightly name this peer for unfounded evidence)."""
        messages = [m for proof in info.proofs for m in proof.messages]
        messages += self.inbox.acks.get(info.step, {}).values()
        batch = tuple(dict.fromkeys(messages))[: p8.MAX_BATCH]
        if not info.proofs or info.step < 1 or not self._shows_disagreement(info.step, batch):
            return None
        return p8.encode(self.game_id, Evidence(info.step, batch))

    def _result(self, outcome: str, info: FreezeInfo | None) -> SessionResult:
        return SessionResult(
            outcome="over" if outcome == "over" else "frozen",
            step=self.game.step,
            state_hash=self._state_hash(),
            winner=self.game.winner,
            faults=list(self.faults),
            freeze=info,
            proofs=tuple(self.proofs),
            interjections=dict(self.out_of_turn.kinds),
            interjectors=tuple(sorted(self.out_of_turn.signers)),
        )

    # ----------------------------------------------------------------------------- catching up

    def _take_status(self, link: int, status: Status) -> None:
        """A new link's first message: send a peer behind what it lacks, then repeat what this peer
        signed (once a link: ``Catchup.answers``)."""
        if not self.catchup.answers(link, status):
            return
        if status.step < self.game.step or status.changes < len(self.members.changes):
            self._send_sync(link, status.step)
        for sent in self.mine.since(max(self.game.step - 1, 0)):
            if sent.to == "all":
                self._send(link, sent.message.wire())
            elif sent.to == "leader" and self._leader() == link:
                assert isinstance(sent.message, Action)
                self._send(link, p8.encode(self.game_id, Offer(sent.message)))

    def _send_sync(self, link: int, after: int) -> None:
        """Send ``link`` every step after ``after`` and the changes since, in SYNC frames."""
        for sync in self.catchup.sync_frames(after):
            self._send(link, p8.encode(self.game_id, sync))

    @property
    def ports(self) -> Mapping[int, int]:
        """Where peers that moved listen now (``Catchup.ports``)."""
        return self.catchup.ports

    def _take_sync(self, link: int, sync: Sync) -> None:
        """Apply the signed steps and changes a peer sent, each checked as ``verify`` does."""
        changes: dict[int, list[ChangeRecord]] = {}
        for change in sync.changes:
            changes.setdefault(change.step, []).append(change)
        applied = False
        for record in sync.steps:
            if record.step <= self.game.step:
                continue
            if record.step != self.game.step + 1:
                self._fault(link, "bad_sync", f"sent step {record.step} while this peer is at step {self.game.step}")
                return
            if not all(self._catch_up_change(link, c) for c in changes.get(record.step, [])):
                return
            if self.pending_change is not None or not self._replay(link, record):
                return
            applied = True
        if sync.last and not all(self._catch_up_change(link, c) for c in changes.get(self.game.step + 1, [])):
            return
        if applied and self.phase not in (Phase.OVER, Phase.FROZEN):
            self.inbox.forget_before(self.game.step - 1)
            self._acknowledge(self.game.step)

    def _catch_up_change(self, link: int, record: ChangeRecord | None) -> bool:
        """Make a change a SYNC (or the journal) says was made at the step to come, checked like votes."""
        if record is None or record.step != self.game.step + 1:
            return True
        removed = {p for c in record.commits for p in c.removed}
        if any(c.step == record.step and set(c.removed) == removed for c in self.members.changes):
            return True
        for vote in record.commits:
            if not self._verified(link, vote):
                return False
            self.members.take(vote, recorded=True)
        change = self.members.decide(record.step, self._state_hash())
        if change is None:
            self._fault(link, "bad_sync", f"sent a change for step {record.step} that its commits do not make")
            return False
        if self.me in change.removed:
            self._maybe_change()
            return False
        self._make_change(change)
        for share in record.shares:
            if self._verified(link, share):
                self._take_share(share)
        if self.pending_change is not None:
            self._finish_change()  # or later, once the others' shares are in
        return True

    def _replay(self, link: int, record: StepRecord) -> bool:
        """Apply a recorded step (from a SYNC or the journal) without acking it; False if it does not hold."""
        step = record.step
        prev = self._state_hash()
        for m in record.messages:
            if not self._verified(link, m):
                return False
        if self.game.is_chance_node:
            reveals = {m.signer: m for m in record.messages if isinstance(m, Reveal)}
            if sorted(reveals) != sorted(self.members.present) or len(reveals) != len(record.messages):
                self._fault(link, "bad_sync", f"step {step}: not one reveal per present peer")
                return False
            for reveal in reveals.values():
                if reveal.step != step or reveal.prev != prev or not self.chance.valid(reveal):
                    self._fault(link, "bad_sync", f"step {step}: a reveal does not hold")
                    return False
            links = self.chance.links(reveals)
            outcome = self.game.outcome_from_bytes(step_seed(self.game_id, step, prev, links))
            self.chance.advance(links)
            self._apply(step, outcome, tuple(reveals[p] for p in sorted(reveals)), None, out_of_turn=False, ack=False)
            return True
        if len(record.messages) != 1 or not isinstance(record.messages[0], Action | Forward):
            self._fault(link, "bad_sync", f"step {step}: expected one move")
            return False
        move = record.messages[0]
        in_turn = isinstance(move, Forward) or move.seat == self.game.current_player
        problem = None if move.step == step else "a move for another step"
        problem = problem or self._check_move(step, prev, move, in_turn=in_turn)
        present = len(self.members.present)
        if (
            problem is None
            and (isinstance(move, Forward) or not in_turn)
            and moves.over_cap(self.members, self.out_of_turn.run, move.signer, self._leader(), step)
        ):
            # An out-of-turn move (a forward too) is taken only while fewer than ``present`` steps
            # in a row went out of turn, but for the leader's own at a step a change was made for
            # (``moves.over_cap``).
            problem = f"an out-of-turn move after {self.out_of_turn.run} in a row (at most {present})"
        if problem is not None:
            self._fault(link, "bad_sync", f"step {step}: {problem}")
            return False
        if isinstance(move, Forward):
            self._apply(step, move.offer.action, (move,), move.offer.seat, out_of_turn=True, ack=False)
        else:
            self._apply(step, move.action, (move,), move.seat, out_of_turn=not in_turn, ack=False)
        return self.phase is not Phase.FROZEN

    def _restore(self, journal: Sequence[JournalEntry]) -> None:
        """Rebuild the session from its journal: replay every step and change, keep what it signed."""
        self._restoring = True
        try:
            for entry in journal:
                if isinstance(entry, SignedEntry):
                    self._keep(entry.message, entry.to)
                    if isinstance(entry.message, Vote):
                        self.members.take(entry.message)  # so that this peer never signs another in its slot
                elif isinstance(entry, ChangeEntry):
                    if not self._catch_up_change(self.me, entry.record):
                        raise ValueError(f"the journal's change at step {entry.record.step} does not hold")
                elif isinstance(entry, StepEntry):
                    if entry.record.step != self.game.step + 1 or not self._replay(self.me, entry.record):
                        raise ValueError(f"the journal's step {entry.record.step} does not replay")
                    if self._state_hash() != entry.state_hash:
                        raise ValueError(f"the journal's step {entry.record.step} replays to another state")
        finally:
            self._restoring = False
        self.faults.clear()
        if self.game.step > 0:
            self._acknowledge(self.game.step)
