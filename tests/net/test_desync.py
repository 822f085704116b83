"""The desync report a peer writes when its session freezes for a fault or a desync (``net/desync.py``):
what ``lanopoly host``/``join`` write with ``--report-dir`` and the console writes beside its saved game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lanopoly.log import GameLog
from lanopoly.net.core import effects as fx
from lanopoly.net.core.outcome import FreezeInfo
from lanopoly.net.desync import write_report

from .sim import run as sim


def test_a_peer_frozen_by_a_liar_writes_a_report_that_names_it_and_replays_to_its_state(tmp_path: Path) -> None:
    """A simulated game where a peer lies about its state: each honest peer that froze writes a report
    naming the liar, with the step, every peer's hashes, the proofs and a log that replays offline
    to the reporter's own state."""
    seed = 0
    cheater = sim.draw(seed, behaviour="lying_hash").cheater
    written: list[tuple[Path, FreezeInfo, str]] = []

    def watch(world: Any, peer: int, item: object) -> None:
        if isinstance(item, fx.Frozen) and peer != cheater:
            core = world.peers[peer].core
            path = write_report(tmp_path, core, item.info)
            if path is not None:
                written.append((path, item.info, core.game.state_hash().hex()))

    report = sim.run_game(seed, behaviour="lying_hash", watch=watch)
    assert report.ok, report.text()
    assert written, "no honest peer froze with a report"
    for path, info, state_hash in written:
        data = json.loads(path.read_text())
        assert data["kind"] == "lanopoly-desync-report" and data["step"] == info.step
        assert data["reason"] == info.reason
        assert [b["peer"] for b in data["blamed"]] == [cheater]
        assert data["proofs"] and set(data["hashes"]) >= {str(p) for p in info.hashes}
        assert data["local_state_hash"] == state_hash
        assert GameLog.from_json(json.dumps(data["log"])).replay().state_hash().hex() == state_hash


def test_a_freeze_for_an_absent_peer_writes_no_report(tmp_path: Path) -> None:
    """A peer that dropped is no desync: there is nothing to debug, and no file."""
    worlds: list[Any] = []

    def keep_world(world: Any, peer: int, item: Any) -> None:
        if not worlds:
            worlds.append(world)

    sim.run_game(1, cheat=False, watch=keep_world)
    core = worlds[0].peers[0].core
    assert write_report(tmp_path, core, FreezeInfo(3, "peer 1 dropped", (1,), cause="absent")) is None
    assert write_report(tmp_path, core, FreezeInfo(3, "this peer left", cause="local")) is None
    assert not list(tmp_path.iterdir())
    assert write_report(tmp_path, core, FreezeInfo(3, "acks disagree", (1,), cause="desync")) is not None
