"""What a peer keeps to prove its game, and the journal it writes as it plays.

The **record** holds the genesis, the signed messages that decided every step (a move, or every
present peer's reveal; one nested in an ack is saved as that ack, its signed carrier) and the
changes of membership (the commits that made them, and the shares released); it is saved with the
game log (``"network"``) and ``verify`` checks it offline, trusting nothing the saving peer says.
It also answers a peer behind (``SYNC``).

The **journal** is what a peer appends, in order, as it plays: each applied step, each change,
and every message it signs, written before the message is sent. A restarted peer rebuilds its
session from it (``Session(journal=...)``), so it repeats what it signed instead of signing
anew (which would be an equivocation). Records are plain values here; ``to_line``/``from_line``
give their JSON form.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lanopoly.net.genesis import Genesis, b64, unb64
from lanopoly.net.protocol import PROTOCOL, ChangeRecord, Share, Signed, StepRecord, Vote, decode_signed, step_messages
from lanopoly.net.wire import WireError

FORMAT = "lanopoly-net"


@dataclass(frozen=True)
class StepEntry:
    """Journal: step ``record.step`` was applied, reaching ``state_hash``."""

    record: StepRecord
    state_hash: bytes


@dataclass(frozen=True)
class ChangeEntry:
    """Journal: a change of membership was made."""

    record: ChangeRecord


@dataclass(frozen=True)
class SignedEntry:
    """Journal: this peer signed ``message`` (sent to ``to``: ``all`` or ``leader``)."""

    message: Signed
    to: str


@dataclass(frozen=True)
class EndEntry:
    """Journal: the session ended (``over`` or ``frozen``) at ``step``."""

    outcome: str
    step: int
    reason: str


JournalEntry = StepEntry | ChangeEntry | SignedEntry | EndEntry


def _pairs(messages: Sequence[Signed]) -> list[list[str]]:
    return [[b64(body), b64(signature)] for body, signature in (m.pair() for m in messages)]


def pairs_text(messages: Sequence[Signed]) -> str:
    """``_pairs`` as JSON text, from each message's text made once (``Signed.pair_text``)."""
    return f"[{','.join(m.pair_text for m in messages)}]"


_compact = json.JSONEncoder(separators=(",", ":")).encode


def unpairs(value: Any) -> tuple[Signed, ...]:
    if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
        raise WireError("expected a list of signed messages, each [body, signature]")
    return tuple(decode_signed(unb64(p[0], "body"), unb64(p[1], "signature")) for p in value)


def to_line(entry: JournalEntry) -> str:
    """One journal line (JSON, no newline)."""
    data: dict[str, Any]
    if isinstance(entry, StepEntry):  # the two lines of every step: spliced from text made once
        signed = pairs_text(entry.record.messages)
        return f'{{"t":"step","step":{int(entry.record.step)},"signed":{signed},"hash":"{entry.state_hash.hex()}"}}'
    if isinstance(entry, SignedEntry):
        return f'{{"t":"signed","signed":[{entry.message.pair_text}],"to":{_compact(entry.to)}}}'
    if isinstance(entry, ChangeEntry):
        data = {"t": "change", **change_json(entry.record)}
    else:
        data = {"t": "end", "outcome": entry.outcome, "step": entry.step, "reason": entry.reason}
    return _compact(data)


def from_line(line: str) -> JournalEntry:
    """A journal entry from its line; WireError if it is not one."""
    try:
        data = json.loads(line)
        kind = data["t"]
        if kind == "step":
            record = StepRecord(_step_of(data), step_messages(unpairs(data["signed"])))
            return StepEntry(record, bytes.fromhex(data["hash"]))
        if kind == "change":
            return ChangeEntry(change_from_json(data))
        if kind == "signed":
            (message,) = unpairs(data["signed"])
            return SignedEntry(message, str(data["to"]))
        if kind == "end":
            return EndEntry(str(data["outcome"]), int(data["step"]), str(data["reason"]))
    except RecursionError:
        raise WireError("bad journal line: nested too deeply") from None
    except (KeyError, TypeError, ValueError, OverflowError) as e:
        raise WireError(f"bad journal line: {type(e).__name__}: {e}") from None
    raise WireError(f"unknown journal entry {kind!r}")


def change_json(record: ChangeRecord) -> dict[str, Any]:
    return {"step": record.step, "commits": _pairs(record.commits), "shares": _pairs(record.shares)}


def _step_of(data: dict[str, Any]) -> int:
    """The ``step`` of a saved entry: a JSON integer from 0 (not a string of digits, nor a bool,
    which ``int()`` would take), so a hand-edited file is refused, never read another way."""
    step = data["step"]
    if type(step) is not int or step < 0:
        raise WireError(f"a step is a whole number, not {type(step).__name__} {str(step)[:20]!r}")
    return step


def change_from_json(data: Any) -> ChangeRecord:
    """A change record saved as ``{step, commits, shares}``; WireError if it is not one."""
    if not isinstance(data, dict) or not {"step", "commits", "shares"} <= data.keys():
        raise WireError("a change is an object with a step, its commits and its shares")
    votes = unpairs(data["commits"])
    shares = unpairs(data["shares"])
    if not all(isinstance(v, Vote) for v in votes) or not all(isinstance(s, Share) for s in shares):
        raise WireError("a change holds commits and shares")
    return ChangeRecord(_step_of(data), votes, shares)  # type: ignore[arg-type]


class Record:
    """The signed history of a game as one peer holds it."""

    def __init__(self, genesis: Genesis, me: int) -> None:
        self.genesis = genesis
        self.me = me
        self.steps: list[StepRecord] = []
        self.changes: list[ChangeRecord] = []
        self.end: EndEntry | None = None
        self._steps_text: list[str] = []
        """Each step's messages as saved (JSON text), encoded once: the game is saved every half
        second, and encoding every message again each time cost more the longer the game."""

    def add_step(self, record: StepRecord) -> None:
        self.steps.append(record)
        self._steps_text.append(pairs_text(record.messages))

    def add_change(self, record: ChangeRecord) -> None:
        self.changes.append(record)

    def steps_after(self, step: int) -> list[StepRecord]:
        return self.steps[step:]

    def changes_after(self, step: int) -> list[ChangeRecord]:
        """Changes made from step ``step + 1`` on."""
        return [c for c in self.changes if c.step > step]

    def to_text(self) -> str:
        """The record as saved with the game (JSON text): the genesis, every step's deciding messages,
        the changes and how the session ended."""
        head = json.dumps(
            {
                "format": FORMAT,
                "protocol": PROTOCOL,
                "me": self.me,
                "genesis": self.genesis.to_json(),
                "changes": [change_json(c) for c in self.changes],
                "end": None
                if self.end is None
                else {"outcome": self.end.outcome, "step": self.end.step, "reason": self.end.reason},
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )
        return f'{head[:-1]},"steps":[{",".join(self._steps_text)}]}}'
