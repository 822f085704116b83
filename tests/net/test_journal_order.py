"""A peer's journal lines are out of the process before any message sent after them (docs/lan.md,
"Files"): the driver writes a step's lines and flushes once, before the first send that follows.

One real 2-peer game in this process over loopback sockets; every send checks every peer's journal
on disk against the lines its driver wrote so far.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lanopoly.net.links import Conn
from lanopoly.net.play import play
from lanopoly.net.store import Journal

from .inproc import drivers, set_up


def test_every_journal_line_is_on_disk_before_the_next_send(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written: dict[Path, int] = {}
    checked = 0
    behind: list[str] = []

    real_write, real_send = Journal._write, Conn.send

    def write(self: Journal, line: str) -> None:
        real_write(self, line)
        written[self.path] = written.get(self.path, 0) + 1

    def send(self: Conn, payload: bytes) -> None:
        nonlocal checked
        for path, count in written.items():
            on_disk = path.read_bytes().count(b"\n")
            if on_disk != count:
                behind.append(f"{path.name}: {on_disk} lines on disk, {count} written")
        checked += 1
        real_send(self, payload)

    monkeypatch.setattr(Journal, "_write", write)
    monkeypatch.setattr(Conn, "send", send)

    async def main() -> set[str]:
        started = await set_up(2, rounds=2)
        ds = drivers(started, tmp_path)
        results = await asyncio.gather(*(play(d, s) for d, s in zip(ds, started, strict=True)))
        return {r.outcome for r in results}

    assert asyncio.run(main()) == {"over"}
    assert len(written) == 2 and checked > 50
    assert behind == []
