"""Id pairs from a file: a gold standard, or neardup's own reports read back."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError
from ..sign.text import ordered
from .inputs import SNIFF_BYTES, first_bytes
from .records import refuse_encoding


def read_pairs(path: str | Path, linked: bool = False) -> set[tuple[str, str]]:
    """Unordered id pairs from a file: two ids a line (separated by tabs; in a line without a
    tab by ``|``, by commas where it has no space, else by white space), ``#`` comments, an
    optional header, and also neardup's own reports (seed TSV and the LSH TSV).

    ``linked``: the pairs of a link, the first id of the first source and the second of the
    second, kept in that order; a pair of one id (``7|7``: each file numbers its own) is a
    pair too."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    pairs: set[tuple[str, str]] = set()
    refuse_encoding(path, first_bytes(path, SNIFF_BYTES), records=False)  # UTF-16, gzip
    with open(path, encoding="utf-8", errors="strict") as fh:
        try:
            lines = fh.read().splitlines()
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: invalid UTF-8 at byte {exc.start + 1}") from exc
    first_data = True
    rows = [
        (number, _pair_columns(text))
        for number, line in enumerate(lines, start=1)
        if (text := "" if line.lstrip().startswith("#") else line.strip())
    ]
    for n, (number, cols) in enumerate(rows):
        if len(cols) < 2:
            raise InputError(f"{path}:{number}: expected two ids, found {len(cols)} column")
        if first_data and (
            cols[0].lower() in {"id1", "docid", "id", "id_a", "left"}
            or _names_over_numbers(cols, rows[n + 1][1] if n + 1 < len(rows) else None)
        ):
            first_data = False
            continue
        first_data = False
        a, b = cols[0], cols[1]
        if linked:
            pairs.add((a, b))
        elif a != b:
            pairs.add(ordered(a, b))
    return pairs


def _pair_columns(text: str) -> list[str]:
    """A line of a pairs file split into its ids: at tabs where it has them (neardup's reports
    are TSV, and an id may hold a space), else at ``|`` (gold files of ER benchmarks:
    ``12|345``), else at commas where it has no space, else at white space."""
    if "\t" in text:
        return [c.strip() for c in text.split("\t")]
    if "|" in text:
        return [c.strip() for c in text.split("|")]
    if "," in text and not any(c.isspace() for c in text):
        return text.split(",")
    return text.split()


def _names_over_numbers(cols: Sequence[str], after: Sequence[str] | None) -> bool:
    """A header such as ``D1|D2`` or ``left,right``: names above a line of numeric ids."""
    if after is None or len(after) < 2:
        return False
    return not any(c.isdigit() for c in cols[:2]) and all(c.isdigit() for c in after[:2])
