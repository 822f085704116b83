"""Drops and rejoins in a lockstep session: relaying for a dropped peer, taking it back, catching up.

A peer whose connection closes is waited for up to ``rejoin_timeout`` seconds (0: freeze at once);
the others relay its last signed messages to each other so that all hold the same (``relay_from``,
``take_relay``). It comes back with ``lanopoly rejoin`` (``net/rejoin.py``): ``REJOIN`` on a new
link (``on_connection``), answered with ``ACCEPT`` (our key proved on that link) and ``SYNC`` (the
signed steps it missed, where we are, its own messages we hold, the changes of membership it may
have missed: ``send_history``, ``replace_link``). On its side, ``net/rejoin.py`` replays the steps
and changes (``replay``, ``replay_change``) and plans the resumption (``plan_resume``), with the
peers that dropped too marked away (``mark_away``); the session then repeats what it missed saying
and the step loop goes on (``resume``). A connection this session dialed itself to a peer that was
away (``net/reconnect.py``) is adopted the same way (``adopt``), counting the votes its SYNC
carries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from lanopoly.net import secure
from lanopoly.net.framing import MAX_FRAME, ConnectionClosed, FramedConnection, FrameError, pack, unpack
from lanopoly.net.mesh import accept_message
from lanopoly.net.messages import (
    MAX_HELD,
    MAX_SYNC_PORTS,
    Ack,
    ActionMsg,
    Kind,
    Message,
    ProtocolError,
    Rejoin,
    Relay,
    Reveal,
    Sync,
    Vote,
    parse,
)
from lanopoly.net.outcome import action_hash
from lanopoly.net.reconnect import PeerState
from lanopoly.net.verify import StepChecker, VerifyError, decode_signed

if TYPE_CHECKING:
    from lanopoly.net.lockstep import LockstepSession

log = logging.getLogger("lanopoly.net.lockstep")  # the session's logger: log lines keep their name


class CatchUp:
    """A session's side of drops and rejoins: its own and the other peers' catching up."""

    def __init__(self, session: LockstepSession) -> None:
        self.session = session
        self.resuming = False
        """This peer is resuming: the others repeat what it missed (ignored for steps it replayed)."""
        self.held_own: dict[tuple[Kind, int], Message] = {}
        """What this peer said for the next step before it dropped: it says the same again."""
        self.plan: tuple[dict[int, int], dict[int, list[Message]]] | None = None
        """Where every peer is and what of ours it holds (``plan_resume``), until ``resume``."""

    # ----------------------------------------------------------------------------- a dropped peer

    def relay_from(self, peer: int) -> None:
        """``peer`` dropped: pass on to the others its signed messages we hold for the steps not agreed."""
        session = self.session
        # The others are at most a step behind us: its acks of our last two steps may be missing there.
        recent = [acks.get(peer) for s, acks in sorted(session._acks.items()) if s >= session.game.step - 1]
        held: list[Message] = [m for m in recent if isinstance(m, Ack) and m.peer == peer]
        held += [
            m
            for (_, step), box in sorted(session._inbox.items())
            for p, m in box.items()
            if p == peer and not (isinstance(m, ActionMsg) and session.controllers[m.seat] != peer)  # not forwarded
        ]
        held += [
            m
            for s, m in sorted(session._applied.items())
            if s > session.game.step - 1 and session.controllers[m.seat] == peer
        ]
        if not held or len(session.others) < 2:
            return
        relay = Relay(session.game_id, peer, [pack(m.to_wire()) for m in held[:MAX_HELD]])
        payload = pack(relay.to_wire())
        for other in session.others:
            if other != peer and other not in session._lost:
                with contextlib.suppress(ConnectionClosed, FrameError):
                    session.mesh.links[other].send_payload_nowait(payload)

    def take_relay(self, link: int, relay: Relay) -> None:
        """Messages of a dropped peer passed on by ``link``: each must be signed by that peer; filed as its own."""
        session = self.session
        peer = relay.peer
        if peer in (link, session.me) or not session.membership.is_active(peer):
            return
        for frame in relay.frames:
            try:
                message = parse(unpack(frame))
            except (FrameError, ProtocolError) as e:
                session.fault(link, "malformed", f"relayed a malformed message: {e}")
                continue
            if not isinstance(message, Ack | ActionMsg | Reveal) or not self.signed_by_owner(peer, message):
                session.fault(link, "bad_relay", f"relayed a message not signed by {session.peer_label(peer)}")
                continue
            if message.step >= session._step:
                session.dispatch(peer, message)

    def forwarded_by_me(self, message: ActionMsg | Reveal) -> bool:
        """Whether ``message`` is another seat's move this peer may have forwarded (signed by its controller)."""
        if not isinstance(message, ActionMsg) or message.seat >= len(self.session.controllers):
            return False
        owner = self.session.controllers[message.seat]
        return owner != self.session.me and self.signed_by_owner(owner, message)

    def signed_by_owner(self, peer: int, message: Ack | ActionMsg | Reveal) -> bool:
        """Whether ``message`` is ``peer``'s (its ack, its reveal, an action of a seat it plays), signed by it."""
        session = self.session
        if isinstance(message, Ack | Reveal):
            owner = message.peer
        else:
            owner = session.controllers[message.seat] if message.seat < len(session.controllers) else -1
        return owner == peer and secure.verify(session._keys[peer], message.signature, message.signed_data)

    # ----------------------------------------------------------------------------- a peer rejoining

    async def on_connection(self, conn: FramedConnection, message: Message) -> bool:
        """A new connection to our listener during the game (after the PIN handshake): only REJOIN is welcome.

        A REJOIN proved with the start record's key of the peer it names is answered with our
        ``ACCEPT`` (our own key proved on this channel: the dialer checks it), then SYNC.
        """
        session = self.session
        if not isinstance(message, Rejoin):
            log.warning("dropping a %s from %s during the game", type(message).__name__, conn.label)
            return False
        peer = message.index
        start = session.mesh.start
        if message.game_id != session.game_id or peer == session.me or peer >= len(start.peers):
            log.warning("dropping a REJOIN for another game or peer from %s", conn.label)
            return False
        proof = secure.rejoin_proof_data(conn.binding, session.game_id, peer)
        if start.peers[peer].peer_id != message.peer_id or not secure.verify(session._keys[peer], message.proof, proof):
            session.fault(peer, "bad_rejoin", f"a REJOIN from {conn.label} claims to be it but does not prove it")
            return False
        if session._remote_freeze is not None or session.game.is_over:
            log.warning("%s wants to rejoin, but the session is over or frozen", session.peer_label(peer))
            return False
        if not session.membership.is_active(peer):
            log.warning("%s wants to rejoin, but it was replaced by a bot", session.peer_label(peer))
            return False
        if self.plan is not None:  # this peer is rejoining and does not play yet: the other tries again
            log.info("%s wants to rejoin, but we do not play yet", session.peer_label(peer))
            return False
        conn.max_frame = MAX_FRAME
        conn.label = session.peer_label(peer)
        try:
            await conn.send(accept_message(conn, session.mesh.key, session.game_id, session.me).to_wire())
            upto = await self.send_history(conn, message.have_step)
            self.replace_link(peer, conn, upto, message.have_step)
        except (ConnectionClosed, FrameError) as e:
            log.warning("%s could not rejoin: %s", session.peer_label(peer), e)
            return False
        session.reconnects.moved(peer, message.port)  # where to dial it if this link breaks
        return True

    async def send_history(self, conn: FramedConnection, have: int) -> int:
        """Send a rejoining peer the signed inputs of the steps after ``have`` that we have applied; returns the last.

        Steps keep being applied while this awaits; ``replace_link`` sends the rest.
        """
        session = self.session
        end = session.game.step
        steps = [(s, session.net_record.signed[s - 1]) for s in range(have + 1, end + 1)]
        for chunk in Sync.chunks(session.game_id, steps):
            await conn.send(chunk.to_wire())
        return max(end, have)

    def replace_link(self, peer: int, conn: FramedConnection, upto: int, have: int) -> None:
        """Make ``conn`` the link to ``peer``; tell it where we are and repeat what it missed (no await: atomic).

        The last SYNC carries the steps applied since ``send_history`` began, the step we are at,
        the rejoiner's own messages we hold, the other peers we are waiting for (they need not
        be reached before it plays on), the changes of membership made after ``have`` (their
        votes: it may have missed them, even one for the step to come) and the ports the others
        listen on now where not on their start record's (``moved_ports``); then, if it is one step
        behind (``have``: a peer dialing from its session, see ``reconnect``), our part of the step
        it lacks; then every message we sent it since our last ack.
        """
        session = self.session
        top = session.game.step
        tail = [(s, session.net_record.signed[s - 1]) for s in range(upto + 1, top + 1)]
        held: list[Message] = [acks[peer] for _, acks in sorted(session._acks.items()) if peer in acks]
        held += [m for (_, step), box in sorted(session._inbox.items()) for p, m in box.items() if p == peer]
        away = tuple(sorted(p for p in session._dropped if p != peer))
        frames = [pack(m.to_wire()) for m in held[:MAX_HELD]]
        last = Sync(session.game_id, tail, True, top, frames, away, self.changes_after(have), self.moved_ports(peer))
        conn.send_payload_nowait(pack(last.to_wire()))
        if have == top - 1:
            for message in self.part_of_step(top, []):
                conn.send_payload_nowait(pack(message.to_wire()))
        self._link(peer, conn)

    def moved_ports(self, peer: int) -> tuple[tuple[int, int], ...]:
        """The peers other than ``peer`` that listen on another port than their start record's, with
        that port (``Reconnects.ports``)."""
        moved = [(p, port) for p, port in sorted(self.session.reconnects.ports.items()) if p != peer]
        return tuple(moved[:MAX_SYNC_PORTS])

    def changes_after(self, have: int) -> list[tuple[int, list[tuple[bytes, bytes]]]]:
        """The changes of membership from after step ``have`` on, each with its signed votes as SYNC carries them."""
        changes = self.session.membership.changes
        return [(c.step, [(v.body, v.signature) for v in c.votes]) for c in changes if c.step > have]

    def adopt(self, peer: int, conn: FramedConnection, state: PeerState) -> bool:
        """Make ``conn``, dialed from our session to ``peer`` (``reconnect``), the link to it; False if we cannot.

        ``state`` is its SYNC: where it is. Every peer is at our step or one away (nobody passes a
        step without every present peer's ack). One behind, it lacks our part of our step (sent
        now); one ahead, it sent us its part of the next step after its SYNC. No await: atomic.
        A change of membership it made while its vote could not reach us comes with its SYNC: we
        count those votes too (each checked, ``Voting.take_change``) and make the change if they agree.
        The other way round, it sends us no SYNC: we repeat our own votes of the changes we made
        after its step (our vote may be the one it lacks, and having made the change we do not
        vote again), which it takes as any vote of ours.
        """
        session = self.session
        if not session.membership.is_active(peer) or session.game.is_over or session._remote_freeze is not None:
            return False
        top = session.game.step
        if abs(state.applied - top) > 1:
            log.warning("%s is at step %d, we are at %d", session.peer_label(peer), state.applied, top)
        try:
            for change in session.membership.changes:
                for vote in change.votes:
                    if change.step > state.applied and vote.voter == session.me:
                        conn.send_payload_nowait(pack(vote.to_wire()))
            if state.applied == top - 1:
                for message in self.part_of_step(top, state.held):
                    conn.send_payload_nowait(pack(message.to_wire()))
        except (ConnectionClosed, FrameError) as e:
            log.debug("%s: the new connection broke at once: %s", session.peer_label(peer), e)
            return False
        self._link(peer, conn)
        for step, votes in sorted(state.changes.items()):
            if not any(c.step == step for c in session.membership.changes):
                session.voting.take_change(peer, votes)
        return True

    def part_of_step(self, step: int, held: list[Message]) -> list[Message]:
        """What a peer that applied ``step - 1`` lacks from us: our ack of ``step - 1`` and our part of ``step``."""
        session = self.session
        out: list[Message] = []
        if step >= 2:
            sent = session._acks.get(step - 1, {}).get(session.me)
            out.append(sent if sent is not None else self.own_ack(step - 1, held))
        if step >= 1:
            out += self.own_signed(step)
        return out

    def _link(self, peer: int, conn: FramedConnection) -> None:
        """``conn`` is now the link to ``peer``: repeat what we sent it since our last ack, read it, stop waiting."""
        session = self.session
        old = session.mesh.links.get(peer)
        session.mesh.links[peer] = conn
        for payload in session._outbox.get(peer, []):
            conn.send_payload_nowait(payload)
        session._lost.pop(peer, None)
        session._dropped.pop(peer, None)
        session._last_rejoin = time.monotonic()
        session._readers.append(asyncio.get_running_loop().create_task(session._read(peer, conn)))
        if old is not None and old is not conn:
            asyncio.get_running_loop().create_task(old.close())
        log.warning("%s rejoined at step %d", session.peer_label(peer), session.game.step)
        session._wake.set()

    # ----------------------------------------------------------------------------- this peer rejoining

    def replay(self, step: int, signed: list[ActionMsg | Reveal], checker: StepChecker) -> None:
        """Apply a step this peer saved or missed (see ``LockstepSession.replay``)."""
        session = self.session
        action = checker.input_for(session.game, step, signed)
        first = signed[0] if signed else None
        interjections = session.interjections
        if isinstance(first, ActionMsg):
            session._applied[step] = first
            interjections.run = interjections.run + 1 if first.seat != session.game.current_player else 0
        else:
            interjections.run = 0
        try:
            session.game.apply(action)
        except (ValueError, TypeError, KeyError) as e:
            raise VerifyError(step, f"input refused: {e}") from None
        session.log.record(action, session.game)
        session.net_record.record(step, signed)
        session._chance_index = checker.chance_index
        session._verifiers = {p: checker.chains[p] for p in session.others}
        session._step = step

    def replay_change(self, step: int, votes: list[Vote], checker: StepChecker) -> None:
        """Make a saved change of membership again before replaying ``step`` (checked like ``verify``)."""
        session = self.session
        change = checker.change(session.game, step, votes)
        session.membership.apply(change)
        session.net_record.record_change(change)
        if change.controller == session.me:
            for seat, ctrl in enumerate(session.controllers):
                if ctrl == session.me and seat not in session.policies:
                    session.policies[seat] = session.bot_factory()

    def plan_resume(self, applied: Mapping[int, int], held: Mapping[int, list[Message]]) -> None:
        """After ``replay``: remember where every peer is and what of ours it holds (see ``LockstepSession``)."""
        self.plan = (dict(applied), {p: list(m) for p, m in held.items()})

    def mark_away(self, peers: list[int]) -> None:
        """Start with ``peers`` away, as if they had just dropped: they rejoined us neither (they are
        rejoining too, or not yet back); we wait for them, and dial those it falls to us to dial."""
        session = self.session
        now = time.monotonic()
        for peer in peers:
            session._lost.setdefault(peer, "away (rejoining too, or not back yet)")
            session._dropped.setdefault(peer, now)
            log.warning("%s is away; waiting up to %g s for it", session.peer_label(peer), session.rejoin_timeout)

    def own_hashes(self, step: int) -> tuple[bytes, bytes]:
        """This peer's (action hash, state hash) of an applied step, as its ack announces them."""
        session = self.session
        return action_hash(session.log.inputs[step - 1]), session.log.hashes[step - 1]

    def own_ack(self, step: int, held: list[Message]) -> Ack:
        """Our ack of ``step``: the one a peer holds from before we dropped if it is ours and right, else a new one.

        Repeating the old one matters: its out-of-turn action may already decide the next step
        for the peers that got it.
        """
        session = self.session
        mine = self.own_hashes(step)
        for m in held:
            if (
                isinstance(m, Ack)
                and (m.step, m.peer, m.action_hash, m.state_hash) == (step, session.me, *mine)
                and secure.verify(session._keys[session.me], m.signature, m.signed_data)
            ):
                return m
        return Ack.signed(session.mesh.key, session.game_id, step, session.me, *mine)

    def own_signed(self, step: int) -> list[ActionMsg | Reveal]:
        """The signed messages of ours among those that decided ``step``."""
        session = self.session

        def ours(m: ActionMsg | Reveal) -> bool:
            return (m.peer if isinstance(m, Reveal) else session.controllers[m.seat]) == session.me

        return [m for m in decode_signed(session.net_record.signed[step - 1], step) if ours(m)]

    async def resume(self) -> None:
        """Rejoin the step loop: send every peer what it missed from us, then agree on the current step.

        Every other peer is at our step M or one behind (nobody passes a step without our ack). One
        behind, it lacks our part of step M (our action or reveal, which it gets now) and maybe our
        ack of M - 1. Messages the others repeat for steps we replayed are ignored meanwhile.
        """
        session = self.session
        if self.plan is None:
            return
        applied, held = self.plan
        self.plan = None
        top = session.game.step
        self.resuming = True
        all_held = [m for ms in held.values() for m in ms]
        for message in all_held:  # what we said for the next step before we dropped: we say it again
            if (
                isinstance(message, ActionMsg | Reveal)
                and message.step == top + 1
                and (session.signed_by(session.me, message) or self.forwarded_by_me(message))
            ):
                kind = Kind.ACTION if isinstance(message, ActionMsg) else Kind.REVEAL
                self.held_own[(kind, message.step)] = message

        def holds(peer: int, step: int) -> bool:
            return any(isinstance(m, Ack) and m.step == step for m in held.get(peer, []))

        for peer in session.others:
            if applied.get(peer) == top - 1 and top >= 1:
                if top >= 2 and not holds(peer, top - 1):
                    await session.send_each({peer: pack(self.own_ack(top - 1, all_held).to_wire())})
                for message in self.own_signed(top):
                    await session.send_each({peer: pack(message.to_wire())})
            elif applied.get(peer) != top and peer not in session._dropped:
                log.warning("%s is at step %s, we resume at %d", session.peer_label(peer), applied.get(peer), top)
        if top >= 1:
            ack = pack(self.own_ack(top, all_held).to_wire())
            session._outbox = {}
            await session.send_each({p: ack for p in session.others if not holds(p, top)})
            await session.agree(top, self.own_ack(top, all_held))
        for key in [k for k in session._inbox if k[1] <= top]:
            del session._inbox[key]
        self.resuming = False
        log.warning("rejoined the game at step %d", top)
