"""Every Python block of docs/guide.md runs (with fewer games, so the suite stays quick)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide.md"
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_guide_has_its_eight_examples():
    assert len(BLOCKS) == 8


def test_every_code_fence_of_the_guide_is_on_a_line_of_its_own():
    fences = [line for line in GUIDE.read_text(encoding="utf-8").splitlines() if "```" in line]
    assert fences and all(line in ("```", "```python", "```sh") for line in fences), fences
    assert len(fences) % 2 == 0


@pytest.mark.parametrize("block", range(len(BLOCKS)))
def test_a_guide_example_runs(block, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the heat map example writes landings.png
    code = BLOCKS[block].replace("100_000", "2_000").replace("    200, policies", "    20, policies")
    exec(compile(code, f"guide block {block + 1}", "exec"), {})
    out = capsys.readouterr().out
    assert out.strip(), "every example prints something"
