"""A table's separator, read off its first lines (:func:`sniff_table`), or named by Excel's
first line ``sep=;`` (:func:`excel_sep`); a table that would be read as one column, or as
``ID TEXT`` lines, is an error that names its separator (:func:`table_delimiter`,
:func:`refuse_unread_table`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .inputs import SNIFF_BYTES, first_bytes
from .rows import ROW_ID

#: The separators preferred when two split a file's first lines equally well, and the ones a
#: table's header is tried with when no separator splits its first lines consistently.
DELIMITERS = (",", "|", ";", "\t")
#: How many of a file's first lines (of its first :data:`~neardup.read.inputs.SNIFF_BYTES`)
#: its separator is read off.
SNIFF_LINES = 50
#: The share of a sample's rows that must have as many cells as the header (a few ragged rows,
#: which the reader rejects, do not hide a separator).
SNIFF_AGREEMENT = 0.9
#: The separators a file of another extension than a table's (``.txt``, none) is taken to be a
#: table by: in a ``.csv`` any character may separate columns, but lines of text hold ``:``,
#: ``-``, ``/`` or ``=`` line after line ("Name: value", "key=value").
LINE_TABLE_SEPARATORS = (",", "\t", "|", ";", "#", "%", "^", "~", "\u00a6", "\u00a7")
#: Separators of a table that ``ID TEXT`` lines and lines of prose also hold, line after line
#: ("Studio City, CA"; an id and a tab): in a file read as lines, only a header naming an
#: ``id`` column makes them a table's (:func:`refuse_unread_table`).
PROSE_SEPARATORS = (",", "\t")


@dataclass(frozen=True)
class TableLayout:
    """What the first lines of a file say about it as a table: the separator that splits them
    into as many cells as the header (:func:`sniff_table`)."""

    delimiter: str
    header: tuple[str, ...]
    #: The line of the header (blank lines before it are passed over).
    line: int
    #: The rows after the header in the sample, and how many of them have the header's width.
    rows: int
    matching: int

    def consistent(self, least: int = 2) -> bool:
        """Every row of the sample, at least ``least`` of them after the header, as wide as
        the header: a table, not lines that happen to hold the character."""
        return self.rows >= least and self.matching == self.rows

    def names(self) -> bool:
        """Whether the header reads as column names: none empty or repeated, none starting with
        a digit (a number, or the id of an ``ID TEXT`` line), none a phrase of more than four
        words."""
        return (
            all(self.header)
            and len(set(self.header)) == len(self.header)
            and not any(
                cell[0].isdigit() or is_number(cell) or len(cell.split()) > 4
                for cell in self.header
            )
        )

    def names_ids(self) -> bool:
        """A table beyond doubt, whatever the file's extension: consistent, a header of names,
        one of them ``id``, and a separator of tables (:data:`LINE_TABLE_SEPARATORS`)."""
        return (
            self.delimiter in LINE_TABLE_SEPARATORS
            and self.consistent()
            and self.names()
            and "id" in self.header
        )

    def describe(self) -> str:
        shown = ", ".join(cell[:40] for cell in self.header[:6])
        more = ", ..." if len(self.header) > 6 else ""
        lines = f"each of its first {self.rows + 1}" if self.matching == self.rows else (
            f"{self.matching + 1} of its first {self.rows + 1}"
        )
        return f"{len(self.header)} columns in {lines} lines: {shown}{more}"


def excel_sep(line: str) -> str | None:
    """The separator a table's first line names when it is Excel's hint ``sep=X`` (X one
    character; Excel writes it when asked for a separator, and reads the file with it), else
    None. The line is no row: every reader of tables passes over it (a table's records, its
    header, the pairs and labels files). Why: read as the header, ``sep=;`` made the real
    header a record, or, with three columns or more, every row "expected 2 columns"."""
    line = line.lstrip("\ufeff").rstrip("\r\n")
    if len(line) == 5 and line[:4].lower() == "sep=" and line[4] not in '\r\n"':
        return line[4]
    return None


def without_sep_line(text: str) -> tuple[str, str | None]:
    """``text``, the start of a table, with Excel's first line ``sep=X`` (:func:`excel_sep`)
    left blank (its rows keep their line numbers), and X; or ``text`` as it is, and None."""
    first, newline, rest = text.partition("\n")
    sep = excel_sep(first)
    return (newline + rest, sep) if sep is not None else (text, None)


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a number (``12``, ``3.5``, ``1e3``)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _sample(path: Path) -> str | None:
    """The first :data:`SNIFF_LINES` whole lines of a file (at most :data:`SNIFF_BYTES`; of a
    pipe, the first bytes it keeps), decoded; None for a file that cannot be read."""
    try:
        head = first_bytes(path, SNIFF_BYTES)
    except InputError:
        return None
    if len(head) == SNIFF_BYTES and b"\n" in head:
        head = head[: head.rindex(b"\n") + 1]  # no line cut in two
    text = head.decode("utf-8", "replace").replace("\ufeff", "")
    text = without_sep_line(text)[0]
    return "".join(text.splitlines(keepends=True)[:SNIFF_LINES])


def quoting(delimiter: str) -> int:
    """How the readers quote: tab-separated files have no quoting (a quote is text)."""
    return csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL


def _rows(sample: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """The non-blank rows of a sample read with ``delimiter``, each with its first line; a row
    the csv module cannot read ends them."""
    reader = csv.reader(
        io.StringIO(sample, newline=""), delimiter=delimiter, quoting=quoting(delimiter)
    )
    start = 1
    while True:
        try:
            row = next(reader)
        except (StopIteration, csv.Error):
            return
        first, start = start, reader.line_num + 1
        if any(cell.strip() for cell in row):
            yield first, [cell.strip() for cell in row]


def _layout(sample: str, delimiter: str) -> TableLayout | None:
    rows = _rows(sample, delimiter)
    line, header = next(rows, (0, []))
    if not header:
        return None
    widths = [len(row) for _line, row in rows]
    matching = sum(w == len(header) for w in widths)
    return TableLayout(delimiter, tuple(header), line, len(widths), matching)


def _candidates(sample: str) -> list[str]:
    """The characters that may separate a table: those of its first non-blank line that are
    not a letter, a digit, white space (tab is), a quote or a replaced byte, the common ones
    first, then by code point, so that the choice never depends on set order."""
    first = next((line for line in sample.splitlines() if line.strip()), "")
    chars = {
        c for c in first
        if c == "\t" or not (c.isalnum() or c.isspace() or c in "\"'\ufffd")
    }  # fmt: skip
    common = [d for d in DELIMITERS if d in chars]
    return common + sorted(chars - set(common))


def sniff_table(path: Path) -> TableLayout | None:
    """The layout of a file's first lines as a table, or None: of the characters of its first
    line (:func:`_candidates`), the one that splits that line into two or more cells and at
    least :data:`SNIFF_AGREEMENT` of the next lines (at least one) into as many, read as the
    readers read them (quoted cells may hold the separator and line breaks). The most
    consistent wins, then the widest, then the one first in :data:`DELIMITERS`.

    Not :class:`csv.Sniffer`, which guesses from how often each character occurs a line and
    took ``e``, a space or ``/`` for the separator of one-column files and of headers made of
    URIs; not clevercsv, which searches quote and escape characters too (the readers fix
    both) and would be a compiled dependency for a choice among a few characters. This is
    its pattern score anchored on the header: a row of another width counts against a
    separator."""
    sample = _sample(path)
    if not sample:
        return None
    best: TableLayout | None = None
    best_key: tuple[float, int] = (0.0, 0)
    for d in _candidates(sample):
        layout = _layout(sample, d)
        if layout is None or len(layout.header) < 2 or layout.rows == 0:
            continue
        share = layout.matching / layout.rows
        key = (share, len(layout.header))
        if share >= SNIFF_AGREEMENT and key > best_key:  # on a tie, the earlier candidate
            best, best_key = layout, key
    return best


def sniff_delimiter(path: Path) -> str:
    """The delimiter of a CSV file: the one its first lines are a table with
    (:func:`sniff_table`), else of :data:`DELIMITERS`, the one that splits its first line
    into the most columns (a header alone, or rows too ragged to agree on any), else ``,``;
    the one Excel's first line ``sep=X`` names, first of all (:func:`excel_sep`)."""
    try:
        named = excel_sep(first_bytes(path, 16).split(b"\n", 1)[0].decode("utf-8", "replace"))
    except InputError:
        named = None
    if named is not None:
        return named
    layout = sniff_table(path)
    if layout is not None:
        return layout.delimiter
    sample = _sample(path) or ""
    best, width = ",", 1
    for d in DELIMITERS:
        first = _layout(sample, d)
        if first is not None and len(first.header) > width:
            best, width = d, len(first.header)
    return best


def table_delimiter(
    path: Path, fmt: str, delimiter: str | None = None, id_field: str | None = None
) -> str:
    """The separator a table is read with: ``delimiter``, else tab for TSV, else the sniffed
    one (:func:`sniff_delimiter`). A separator given (or TSV's tab) that leaves the header
    one column where another character splits the first lines into a table is an error that
    names that character: read so, every row would be one text, and no id column found."""
    if delimiter is not None and (len(delimiter) != 1 or delimiter in '\r\n"'):
        raise InputError(f"{path}: a delimiter is one character, got {delimiter!r}")
    if delimiter is None and fmt != "tsv":
        return sniff_delimiter(path)
    chosen = delimiter or "\t"
    sample = _sample(path)
    read = _layout(sample, chosen) if sample else None
    if read is None or len(read.header) > 1:
        return chosen
    layout = sniff_table(path)
    if layout is None or layout.delimiter == chosen:
        return chosen
    missing = ""
    if id_field not in (None, ROW_ID) and id_field not in read.header:
        missing = f"the header has no column {id_field!r}: "
    given = f"the delimiter {chosen!r}" if delimiter is not None else "tabs (TSV)"
    raise InputError(
        f"{path}:{read.line}: {missing}read with {given}, the header is one column, "
        f"but the file looks like a table separated by {layout.delimiter!r} "
        f"({layout.describe()}): give --delimiter {layout.delimiter!r}"
    )


def refuse_unread_table(path: Path) -> None:
    """An error for a file that would be read as ``ID TEXT`` lines (its extension names no
    format) while its first lines are a table: every line the same number of cells, two or
    more, under a header of names whose first is one word (an ``ID TEXT`` line's first cell is
    an id and words), separated by a character of tables that lines of text do not hold line
    after line (:data:`LINE_TABLE_SEPARATORS` but not :data:`PROSE_SEPARATORS`). Read as
    lines, its header would be a record and each row's first word an id."""
    layout = sniff_table(path)
    if (
        layout is None
        or layout.delimiter not in LINE_TABLE_SEPARATORS
        or layout.delimiter in PROSE_SEPARATORS
        or not layout.consistent()
        or not layout.names()
        or len(layout.header[0].split()) > 1  # an id, a space and the start of a text
    ):
        return
    d = layout.delimiter
    raise InputError(
        f"{path}:{layout.line}: line {layout.line} looks like a table separated by {d!r} "
        f"({layout.describe()}), not ID TEXT lines: give --delimiter {d!r} to read it as a "
        "table (or --format lines to read it as lines)"
    )
