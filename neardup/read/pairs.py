"""Id pairs from a file: a gold standard, or neardup's own reports read back."""

from __future__ import annotations

import warnings
from pathlib import Path

from ..errors import InputError, NeardupWarning
from ..sign.text import ordered
from .checks import check_id
from .inputs import SNIFF_BYTES, first_bytes
from .pair_files import GUESSED, NAMED, guessed_note, header_line
from .records import refuse_encoding, refuse_spreadsheet


def read_pairs(path: str | Path, linked: bool = False) -> set[tuple[str, str]]:
    """Unordered id pairs from a file: two ids a line (separated by tabs; in a line without a
    tab by ``|``, by commas where it has no space, else by white space), ``#`` comments, an
    optional header (:func:`~neardup.read.pair_files.header_line`, as ``evaluate`` reads it),
    and also neardup's own reports (seed TSV and the LSH TSV).

    ``linked``: the pairs of a link, the first id of the first source and the second of the
    second, kept in that order; a pair of one id (``7|7``: each file numbers its own) is a
    pair too."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    pairs: set[tuple[str, str]] = set()
    head = first_bytes(path, SNIFF_BYTES)
    refuse_spreadsheet(path, head)  # xlsx, ods, any ZIP
    refuse_encoding(path, head, records=False)  # UTF-16, gzip
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
        kind = None
        if first_data:
            if cols[0].lower() == "id1":  # neardup's own reports
                kind = NAMED
            else:
                kind = header_line(cols, rows[n + 1][1] if n + 1 < len(rows) else None)
        if kind is not None:
            if kind == GUESSED:
                note = guessed_note(f"{path}:{number}", cols[:2])
                warnings.warn(NeardupWarning(note), stacklevel=2)
            first_data = False
            continue
        first_data = False
        a, b = cols[0], cols[1]
        for k, value in enumerate((a, b), start=1):
            why = check_id(value)  # as the records readers check ids (no NUL, no ESC)
            if why is not None:
                raise InputError(f"{path}:{number}: id{k} {why.removeprefix('id ')}")
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


