"""The evidence round of a lockstep session: who equivocated when the inputs of a step diverged.

Acks are signed (verified lazily: links are already authenticated, signatures are only needed as
transferable proof). When the inputs of a step diverge (acks disagree on the action hash, or the
peer whose input this peer waits for acks the step without having sent it), every peer that
notices broadcasts ``EVIDENCE``: the signed input it applied and every ack it holds for that step
and the one before (which carry the interjections). A peer holding two different messages signed
by the same peer for the same slot (``evidence``) blames that peer, with the two signed messages as
proof in the freeze and the desync report.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from lanopoly.net.evidence import find_proofs
from lanopoly.net.messages import Ack, ActionMsg, Evidence, Kind, Signed
from lanopoly.net.outcome import FreezeInfo, Frozen

if TYPE_CHECKING:
    from lanopoly.net.lockstep import LockstepSession

log = logging.getLogger("lanopoly.net.lockstep")  # the session's logger: log lines keep their name

EVIDENCE_WAIT = 3.0
"""Seconds a peer waits for the others' evidence after the inputs of a step diverged (less if a
proof turns up or every peer has answered)."""


class EvidenceRound:
    """The evidence a session received from the others, and the round that looks it through."""

    def __init__(self, session: LockstepSession) -> None:
        self.session = session
        self.received: dict[int, dict[int, Evidence]] = {}
        """Each peer's evidence, by step."""

    def take(self, peer: int, message: Evidence) -> None:
        """File ``peer``'s evidence (for the step being played or the one before); a fault if for another step."""
        session = self.session
        if message.step + 1 < session._step or message.step > session._step + 1:
            session.fault(peer, "wrong_step", f"EVIDENCE for step {message.step} while at step {session._step}")
            return
        self.received.setdefault(message.step, {}).setdefault(peer, message)
        session._wake.set()

    def reported(self) -> FreezeInfo | None:
        """If another peer sent evidence (it saw the inputs diverge): the step and who, for ``Diverged``."""
        if not self.received:
            return None
        at = min(self.received)
        by = ", ".join(self.session.peer_label(p) for p in sorted(self.received[at]))
        return FreezeInfo(at, f"inputs diverged at step {at} (evidence from {by})")

    def evidence_for(self, step: int) -> Evidence:
        """What this peer holds for ``step``: the move it applied, every ack of ``step - 1`` and ``step``."""
        session = self.session
        items: list[Signed] = []
        if step in session._applied:
            items.append(session._applied[step])
        for s in (step - 1, step):
            acks = dict(session._acks.get(s, {}))
            acks.update({p: m for p, m in session._inbox.get((Kind.ACK, s), {}).items() if isinstance(m, Ack)})
            items.extend(acks[p] for p in sorted(acks))
        for m in session._inbox.get((Kind.ACTION, step), {}).values():
            if isinstance(m, ActionMsg) and m is not session._applied.get(step):
                items.append(m)
        return Evidence(session.game_id, step, tuple(items))

    async def investigate(self, info: FreezeInfo) -> Frozen:
        """The evidence round after the inputs of ``info.step`` diverged; returns the freeze to raise.

        Broadcast what this peer holds, gather the others' (until every live peer answered, a proof
        turns up, or ``EVIDENCE_WAIT``), and look for two signatures of one peer on different
        messages of one slot. Proven equivocators are blamed (with the proof); otherwise the
        blame of ``info`` stands.
        """
        session = self.session
        step = info.step
        mine = self.evidence_for(step)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.broadcast(mine), 2)
        deadline = time.monotonic() + min(EVIDENCE_WAIT, session.step_timeout)
        while True:
            session._wake.clear()
            theirs = self.received.get(step, {})
            pool: list[Signed] = list(mine.signed)
            for peer in sorted(theirs):
                pool.extend(m for m in theirs[peer].signed if m.game_id == session.game_id)
            proofs = find_proofs(pool, session.controllers, session._keys)
            left = deadline - time.monotonic()
            if proofs or left <= 0 or all(p in theirs or p in session._lost for p in session.others):
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session._wake.wait(), left)
        if not proofs:
            log.error("step %d: inputs diverged; no equivocation proven (%d peers sent evidence)", step, len(theirs))
            return Frozen(info)
        blamed = tuple(sorted({p.peer for p in proofs}))
        proven = "; ".join(f"{session.peer_label(p.peer)} signed {p.describe()}" for p in proofs)
        reason = f"equivocation at step {step}: {proven}"
        for p in proofs:
            session.fault(p.peer, "equivocation", f"signed {p.describe()}")
        return Frozen(FreezeInfo(step, reason, blamed, info.hashes, tuple(proofs)))
