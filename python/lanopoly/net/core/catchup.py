"""Catching a peer up over a new link: the ``STATUS`` it opens with, and the ``SYNC`` frames it lacks.

Each side of a new link first sends ``STATUS`` (its step, its number of changes, the ports it
knows of peers that moved). The first one on a link is answered, once: a peer behind gets the
signed steps and changes it lacks (``sync_frames``), and the session repeats what it signed for
the steps in play. Ports: a peer that listens elsewhere than the start record says so in its
link handshake (kept until it comes back where it started) or a third peer tells it in a STATUS
(only a hint, never over what was learned first hand).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lanopoly.net import protocol as p8
from lanopoly.net.core.record import Record
from lanopoly.net.protocol import Status, StepRecord, Sync

SYNC_BYTES = 40_000
"""A SYNC frame is cut when its signed messages pass this many bytes (the frame cap is 64 KiB)."""


class Catchup:
    """Whose ``STATUS`` is to be answered, where peers listen now, and the frames of ``record``
    that a peer behind lacks (``start_ports``: each peer's port in the start record)."""

    def __init__(self, me: int, start_ports: Sequence[int], record: Record) -> None:
        self._me = me
        self._start_ports = tuple(start_ports)
        self._record = record
        self._ports: dict[int, int] = {}
        """Listening ports of peers that moved (learned from their link handshake or a STATUS)."""
        self._due: set[int] = set()
        """Peers whose link came up and whose ``STATUS`` (a link's first message) is not yet answered:
        one answer per link, since an answer (the steps it lacks, what this peer signed) costs far more
        than the few bytes asking for it."""

    @property
    def ports(self) -> Mapping[int, int]:
        """peer -> the port it listens on now, for peers that moved (the driver dials it)."""
        return self._ports

    def linked(self, peer: int, port: int | None) -> None:
        """A link to ``peer`` came up (``port``: where it said it listens, if it did): its STATUS is due."""
        if port is not None and port != self._start_ports[peer]:
            self._ports[peer] = port
        elif port is not None:  # the peer itself says it is back where it started: a hint is dropped
            self._ports.pop(peer, None)
        self._due.add(peer)

    def status(self, step: int, changes: int) -> Status:
        """This peer's STATUS at ``step`` with ``changes`` made, telling the ports it knows."""
        return Status(step, changes, tuple(sorted(self._ports.items())))

    def answers(self, link: int, status: Status) -> bool:
        """Whether to answer ``status``, the first on ``link`` since it came up (a later one is
        ignored: a peer sending STATUS in a loop would otherwise get the whole game again for each
        24 bytes, 16 ms of this peer's CPU each at step 850). Its ports are taken as hints."""
        if link not in self._due:
            return False
        self._due.discard(link)
        for peer, port in status.ports:
            if peer != self._me and peer < len(self._start_ports) and port != self._start_ports[peer]:
                self._ports.setdefault(peer, port)
        return True

    def sync_frames(self, after: int) -> list[Sync]:
        """The SYNC frames holding every step after step ``after`` and the changes made since,
        cut at ``SYNC_BYTES`` or ``MAX_SYNC_STEPS`` (the changes go in the last frame)."""
        changes = tuple(self._record.changes_after(after))
        frames: list[list[StepRecord]] = [[]]
        size = 0
        for record in self._record.steps_after(after):
            weight = sum(len(m.signed.body) + 64 for m in record.messages) + 16
            if frames[-1] and (size + weight > SYNC_BYTES or len(frames[-1]) >= p8.MAX_SYNC_STEPS):
                frames.append([])
                size = 0
            frames[-1].append(record)
            size += weight
        last = len(frames) - 1
        return [Sync(tuple(chunk), changes if i == last else (), i == last) for i, chunk in enumerate(frames)]
