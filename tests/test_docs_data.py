"""The Python examples of docs/data.md run as they are (their asserts are the checks)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "data.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_example_runs(number: int) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("polars")
    exec(compile(BLOCKS[number], f"{DOC}:python block {number + 1}", "exec"), {})
