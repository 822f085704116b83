"""What a saved game proves, as ``lanopoly verify`` reports it: one of four verdicts.

``verify_text`` checks everything the file holds; that alone does not say what the file proves,
since a log cut short, or stripped of its network record and then edited (a die changed, every
later hash recomputed), checks just as well. So the verdict says it, and each has its exit code:

- ``COMPLETE`` (0): a signed game played to its end, every step checked against the signatures;
- ``FAILED`` (1): some check failed (or the file cannot be read): at which step, and why;
- ``UNFINISHED`` (3): a signed game that ends before it was over: every step there is checked,
  but it is only a prefix; why it ends is said when the record says (the saving peer's word);
- ``UNSIGNED`` (4): no network record, so only the hash chain was checked: the file is
  self-consistent, which proves nothing about who played or whether the dice were fair.

(2 is argparse's usage error.)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lanopoly.net.verify import Verified, VerifyError, verify_text


class Kind(enum.Enum):
    """What a saved game proves."""

    COMPLETE = "complete"
    FAILED = "failed"
    UNFINISHED = "unfinished"
    UNSIGNED = "unsigned"


EXIT_CODES = {Kind.COMPLETE: 0, Kind.FAILED: 1, Kind.UNFINISHED: 3, Kind.UNSIGNED: 4}
"""``lanopoly verify``'s exit code for each verdict (2 is a usage error)."""

EXIT_CODES_HELP = """exit codes:
  0  a complete signed game: every step verified, up to the end of the game
  1  verification failed (the step and the reason are printed), or the file cannot be read
  2  usage error
  3  an unfinished signed game: every step verified, but the log ends before the game was over
  4  an unsigned log (no network record): only the hash chain was checked, which proves
     nothing about who played or whether the dice were fair"""


@dataclass(frozen=True)
class Verdict:
    """A verdict on a saved game: its kind, how many steps were verified, and why when it is not COMPLETE.

    ``failed_at`` is the step that failed (0: the file or its start record), for FAILED only;
    ``verified`` is what the checks covered, for every other kind."""

    kind: Kind
    steps: int
    reason: str = ""
    verified: Verified | None = None
    failed_at: int | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.kind]

    def headline(self) -> str:
        """What the file proves, in one sentence (the first thing ``lanopoly verify`` prints)."""
        if self.kind is Kind.COMPLETE:
            return f"COMPLETE signed game: all {self.steps} steps verified, up to the end of the game"
        if self.kind is Kind.UNFINISHED:
            checked = f"steps 1 to {self.steps} verified" if self.steps else "its start record verified"
            return (
                f"UNFINISHED signed game: it ends at step {self.steps}, before the game was over ({checked});"
                f" {self.reason}"
            )
        if self.kind is Kind.UNSIGNED:
            return f"UNSIGNED log, {self.reason}"
        where = f"at step {self.failed_at}" if self.failed_at else "before any step was checked"
        return f"verification FAILED {where}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        """The verdict for scripts (``lanopoly verify --json``)."""
        v = self.verified
        return {
            "verdict": self.kind.value,
            "exit_code": self.exit_code,
            "steps": self.steps,
            "signed": None if v is None else v.networked,
            "over": None if v is None else v.over,
            "failed_at": self.failed_at,
            "reason": self.reason or None,
            "final_hash": None if v is None else v.final_hash.hex(),
        }


def _why_unfinished(verified: Verified) -> str:
    """Why a signed log ends before the game was over, as far as the record says."""
    if verified.freeze is None:
        return "the record does not say why (the session stopped there, or the file was cut)"
    step, reason = verified.freeze
    return f"the saving peer recorded that the session froze at step {step}: {reason} (its own word, signed by nobody)"


def judge_text(text: str) -> Verdict:
    """Verify a saved game (its JSON text) and say what it proves."""
    try:
        verified = verify_text(text)
    except VerifyError as e:
        return Verdict(Kind.FAILED, max(e.step - 1, 0), e.reason, failed_at=e.step)
    if not verified.networked:
        end = "the game over" if verified.over else "the game not over"
        what = (
            "no network record"
            if verified.legacy is None
            else f"a LAN protocol {verified.legacy} record, whose signatures this version does not check"
        )
        reason = (
            f"{what}: only the hash chain of its {verified.steps} steps was checked ({end}); that proves"
            " the file is self-consistent, and nothing about who played or whether the dice were fair"
        )
        return Verdict(Kind.UNSIGNED, verified.steps, reason, verified)
    if not verified.over:
        return Verdict(Kind.UNFINISHED, verified.steps, _why_unfinished(verified), verified)
    return Verdict(Kind.COMPLETE, verified.steps, verified=verified)


def judge_file(path: Path) -> Verdict:
    """``judge_text`` of a file; a file that cannot be read is FAILED before any step."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return Verdict(Kind.FAILED, 0, f"cannot read the file: {e}", failed_at=0)
    return judge_text(text)
