"""The desync report: what a peer writes when the session freezes, so the divergence can be debugged.

Like Factorio's desync reports and 0 A.D.'s ``oos_dump``: the step, why it froze, who is blamed,
the action and state hashes every peer announced for that step, the proofs of equivocation (two
different messages signed by the blamed peer for one slot, see ``evidence``), this peer's own state
(snapshot), and the whole game log so far (which replays offline with ``GameLog.replay``). JSON,
hashes in hex, signed messages as [type, base64 body, base64 signature].
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanopoly._core import STATE_FORMAT, Game
from lanopoly.log import GameLog
from lanopoly.net import PROTOCOL_VERSION

if TYPE_CHECKING:
    from lanopoly.net.core.outcome import FreezeInfo
    from lanopoly.net.core.session import Session

log = logging.getLogger(__name__)

REPORTED = ("fault", "desync")
"""The causes of a freeze worth a report: a peer misbehaved, or the same inputs gave different states."""


def write_atomic(path: Path, text: str) -> None:
    """Write a file so that a reader never sees a partial one (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def build_report(
    *,
    game_id: bytes,
    me: int,
    peer_names: Sequence[str],
    step: int,
    reason: str,
    blamed: Sequence[int],
    hashes: Mapping[int, tuple[bytes, bytes]],
    game: Game,
    log: GameLog,
    proofs: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The report as a JSON-able dict."""
    return {
        "kind": "lanopoly-desync-report",
        "protocol_version": PROTOCOL_VERSION,
        "state_format": STATE_FORMAT,
        "game_id": game_id.hex(),
        "reporter": {"peer": me, "name": peer_names[me]},
        "step": step,
        "reason": reason,
        "blamed": [{"peer": p, "name": peer_names[p]} for p in blamed],
        "hashes": {
            str(p): {"name": peer_names[p], "action_hash": a.hex(), "state_hash": s.hex()}
            for p, (a, s) in sorted(hashes.items())
        },
        "proofs": list(proofs),
        "local_state_hash": game.state_hash().hex(),
        "local_state": game.snapshot(),
        "log": json.loads(log.to_json()),
    }


def report_path(directory: Path, game_id: bytes, me: int, step: int) -> Path:
    return directory / f"desync-{game_id.hex()[:12]}-peer{me}-step{step}.json"


def write_report(directory: Path, core: Session, info: FreezeInfo) -> Path | None:
    """Write this peer's report of a freeze worth one (``REPORTED``) into ``directory``: its path, or
    None (another cause, or the file could not be written, which is logged)."""
    if info.cause not in REPORTED:
        return None
    report = build_report(
        game_id=core.game_id,
        me=core.me,
        peer_names=core.names,
        step=info.step,
        reason=info.reason,
        blamed=info.blamed,
        hashes=info.hashes,
        game=core.game,
        log=core.log,
        proofs=[p.to_json() for p in info.proofs],
    )
    report["faults"] = [f.to_json() for f in core.faults]
    path = report_path(directory, core.game_id, core.me, info.step)
    try:
        write_atomic(path, json.dumps(report, indent=1, ensure_ascii=False))
    except OSError as e:
        log.error("could not write the desync report %s: %s", path, e)
        return None
    return path
