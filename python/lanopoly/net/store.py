"""Where a LAN game lives on disk: the saved game, its journal and its secrets.

- ``FILE``: the game log (``lanopoly replay``) with the network record as its ``"network"`` member
  (``lanopoly verify`` checks it offline), rewritten whole (temporary file, then rename) every
  half second and at the end.
- ``FILE.journal``: the genesis, then one JSON line per step applied, change made and message
  signed, appended and flushed before the message it records is sent: a peer killed at any moment
  restarts from it (``lanopoly rejoin FILE``) and never contradicts what it signed.
- ``FILE.secret`` (mode 0600 from its creation): this peer's signing key, chain secret, the shares it
  holds of the others' secrets, the PIN and where it reached the host. Nothing else reads it.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from lanopoly.net.core.record import ChangeEntry, JournalEntry, SignedEntry, from_line, to_line
from lanopoly.net.genesis import Genesis, b64, unb64
from lanopoly.net.keys import Suite
from lanopoly.net.protocol import Signed
from lanopoly.net.wire import WireError

SECRET_FORMAT = "lanopoly-secret/9"


class StoreError(Exception):
    """A saved game, journal or secret file that cannot be used (missing, another format, damaged)."""


def journal_path(save: Path) -> Path:
    return save.with_name(save.name + ".journal")


def secret_path(save: Path) -> Path:
    return save.with_name(save.name + ".secret")


def write_atomic(path: Path, text: str, private: bool = False) -> None:
    """Write a file so that a reader never sees a partial one (a temporary file, then a rename).
    The temporary file is created mode 0600 (``mkstemp``); ``private`` keeps it so."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if not private:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class Secrets:
    """What this peer keeps to itself to take its seat again after a crash."""

    me: int
    key_seed: bytes
    chain_secret: bytes
    held: dict[int, bytes]
    pin: str
    host: tuple[str, int]

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": SECRET_FORMAT,
                "me": self.me,
                "key": b64(self.key_seed),
                "chain": b64(self.chain_secret),
                "held": {str(p): b64(v) for p, v in sorted(self.held.items())},
                "pin": self.pin,
                "host": [self.host[0], self.host[1]],
            }
        )

    def write(self, path: Path) -> None:
        write_atomic(path, self.to_json(), private=True)

    @classmethod
    def read(cls, path: Path) -> Secrets:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("format") != SECRET_FORMAT:
                found = data.get("format") if isinstance(data, dict) else data
                raise StoreError(f"{path}: not a protocol 9 secret file ({found!r})")
            host = data["host"]
            if not isinstance(host, list) or len(host) != 2:
                raise ValueError("host: expected [address, port]")
            key, chain = unb64(data["key"], "key"), unb64(data["chain"], "chain")
            if len(key) != 32 or len(chain) != 32:
                raise ValueError("the key and the chain secret must be 32 bytes each")
            return cls(
                int(data["me"]),
                key,
                chain,
                {int(p): unb64(v, "share") for p, v in data["held"].items()},
                str(data["pin"]),
                (str(host[0]), int(host[1])),
            )
        except OSError as e:
            raise StoreError(f"cannot read {path}: {e.strerror or e}") from None
        except RecursionError:
            raise StoreError(f"{path} is damaged: nested too deeply") from None
        except (KeyError, TypeError, ValueError, OverflowError, WireError, AttributeError) as e:
            raise StoreError(f"{path} is damaged: {type(e).__name__}: {e}") from None


class Journal:
    """The append-only journal of one peer's game; its first line is the genesis.

    ``append`` only writes; ``flush`` hands what was written to the system. The driver flushes once
    before the first send that follows lines written, and at the end of each batch of effects, so
    a step's lines cost one flush and every line is still out of the process before anything sent
    after it (what a kill can lose is what no peer was sent: the same as before batching)."""

    def __init__(self, path: Path, genesis: Genesis) -> None:
        self.path = path
        fresh = not path.exists() or path.stat().st_size == 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = open(path, "a", encoding="utf-8")  # noqa: SIM115 (kept open for the game)
        self.pending = False
        """Lines written and not yet flushed."""
        if fresh:
            self._write(json.dumps({"t": "genesis", **genesis.to_json()}))
            self.flush()

    def _write(self, line: str) -> None:
        self._file.write(line + "\n")
        self.pending = True

    def append(self, entry: JournalEntry) -> None:
        """Write one entry (``flush`` before sending anything that must follow it)."""
        self._write(to_line(entry))

    def flush(self) -> None:
        if self.pending:
            self._file.flush()
            self.pending = False

    def close(self) -> None:
        self._file.close()

    @staticmethod
    def read(path: Path) -> tuple[Genesis, list[JournalEntry]]:
        """The genesis and entries of a journal; a last line cut by a crash is ignored."""
        try:
            lines = path.read_text(encoding="utf-8").split("\n")
        except OSError as e:
            raise StoreError(f"cannot read {path}: {e.strerror or e}") from None
        except UnicodeDecodeError as e:
            raise StoreError(f"{path} is damaged: {e}") from None
        if not lines or not lines[0]:
            raise StoreError(f"{path} is empty")
        try:
            head = json.loads(lines[0])
            if not isinstance(head, dict) or head.get("t") != "genesis":
                raise StoreError(f"{path} does not start with a genesis")
            genesis = Genesis.from_json(head)
        except RecursionError:
            raise StoreError(f"{path}: bad genesis: nested too deeply") from None
        except (ValueError, WireError) as e:
            raise StoreError(f"{path}: bad genesis: {e}") from None
        entries: list[JournalEntry] = []
        body = lines[1:]
        for number, line in enumerate(body, 2):
            if not line:
                continue
            try:
                entries.append(from_line(line))
            except WireError as e:
                if number == len(body) + 1 or all(not rest for rest in body[number - 1 :]):
                    break  # the line being written when the peer was killed
                raise StoreError(f"{path}:{number}: {e}") from None
        return genesis, entries


def _signed_in(entry: JournalEntry) -> tuple[Signed, ...]:
    """The signed messages of a journal entry the session's rebuild does not check: this peer's own,
    and those that made a change (a step's are checked as it is applied again)."""
    if isinstance(entry, SignedEntry):
        return (entry.message,)
    if isinstance(entry, ChangeEntry):
        return (*entry.record.commits, *entry.record.shares)
    return ()


def check_signatures(path: Path, genesis: Genesis, entries: Sequence[JournalEntry], suite: Suite) -> None:
    """Every signed message of a journal that the rebuild does not check (``_signed_in``) verifies under
    its signer's key in the start record, else a StoreError naming the first that does not. A
    rejoining peer sends its own messages again: a damaged or edited one would be a bad signature in
    its name (the others named it and froze), so it is refused before anything is sent."""
    keys = [peer.key for peer in genesis.record.peers]
    for number, entry in enumerate(entries, 1):
        for m in _signed_in(entry):
            if not (0 <= m.signer < len(keys) and suite.verify(keys[m.signer], m.signed_data, m.signature)):
                raise StoreError(
                    f"{path} is damaged: entry {number}, peer {m.signer}'s {m.kind.name} of step {m.step}, "
                    "has a signature that does not verify"
                )


def save_text(log_json: str, network: str) -> str:
    """The saved game: the log's JSON object with the network record (JSON text) as its
    ``"network"`` member, spliced in as text: decoding and encoding the whole log again at every
    save cost more the longer the game."""
    head = log_json.rstrip()
    if not head.endswith("}"):
        raise ValueError("the game log must be a JSON object")
    members = head[:-1].rstrip()
    sep = "" if members.endswith("{") else ","
    return f'{members}{sep}"network":{network}}}'


def read_entries(lines: Sequence[str]) -> list[JournalEntry]:
    return [from_line(line) for line in lines if line]
