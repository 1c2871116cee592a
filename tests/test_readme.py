"""The README's Python examples run, and print what their comments say.

Each ``print(...)  # expected`` line of a ```python block under "## Python" must print the
expected text; ``|`` separates the lines a loop prints, ``...`` stands for anything.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_PRINT = re.compile(r"^\s*print\(.*\)\s+#\s(.*)$")


def python_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def expected_lines(block: str) -> list[str]:
    out: list[str] = []
    for line in block.splitlines():
        m = _PRINT.match(line)
        if m:
            out += [part.strip() for part in m.group(1).split(" | ")]
    return out


def matches(expected: str, got: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, got) is not None


def run(block: str, env: dict[str, str] | None = None) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_the_section_has_examples_that_check_something() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 2
    assert all(len(expected_lines(b)) >= 3 for b in blocks)
    assert matches("a ... c", "a b b c") and not matches("a ... c", "a b b d")


def test_the_in_memory_example() -> None:
    block = python_blocks()[0]
    assert "open(" not in block  # no Solr in this one
    got = run(block)
    want = expected_lines(block)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert matches(w, g), (w, g)


@pytest.mark.solr
def test_the_solr_examples(solr_base: str) -> None:
    import os

    from neardup.solr import admin

    admin.delete_collection(admin.connect(solr_base, "readme_listings"))
    for block in python_blocks()[1:]:
        got = run(block, env={**os.environ, "NEARDUP_SOLR_URL": solr_base})
        want = expected_lines(block)
        assert len(got) == len(want), got
        for g, w in zip(got, want, strict=True):
            assert matches(w, g), (w, g)
