"""Tables (CSV, TSV, any one-character separator): rows as records, each with its last
line, a malformed row rejected at its first line, a header that names a column twice refused.
"""

from __future__ import annotations

import csv
import dataclasses
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import InputError, MissingColumn, NeardupWarning
from .checks import LINE_ROOM
from .items import Blank, Item, Record, Rejection
from .lines import Lines
from .rows import ROW_ID, default_text_fields, record_from_mapping, say_text_only
from .sniff import excel_sep, quoting


def read_table(
    lines: Lines,
    source: str,
    delimiter: str,
    id_field: str,
    text_fields: Sequence[str] | None,
    limit: int | None,
    source_field: str | None = None,
) -> Iterator[tuple[Item, int]]:
    """Rows as items, each with its last line; a row that is malformed is rejected at its
    first line, and the next row starts after it.

    The csv module's own bound on a field (131,072 characters, one setting for the whole
    process) is raised to the record limit, so that the limit is the same in every format."""
    bad: dict[int, str] = {}  # the lines that could not be read, and why
    reader = _csv_reader(_texts(lines, bad), delimiter, limit)
    header: list[str] | None = None
    start = 1
    # rows shorter than the header, read with their last columns empty: how many, the first
    short: tuple[int, int] = (0, 0)
    padded = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            first, start = start, reader.line_num + 1
            problem = _malformed(exc, first, start - 1)
            if header is None:
                raise InputError(unreadable_header(source, first, problem)) from None
            yield Rejection(source, first, problem), start - 1
            continue
        first, last = start, reader.line_num
        start = last + 1
        broken = [n for n in range(first, last + 1) if n in bad]
        if broken and header is None:  # read as a row, the next line would name the columns
            raise InputError(unreadable_header(source, broken[0], bad[broken[0]]))
        if broken:
            yield Rejection(source, broken[0], bad[broken[0]]), last
        elif first == 1 and 0 in bad:  # Excel's "sep=;": no row, nor a blank line
            continue
        elif not any(cell.strip() for cell in row):
            yield Blank(source, first), last
        elif header is None:
            header = [h.strip() for h in row]
            text_fields = _read_fields(header, source, first, id_field, text_fields, source_field)
        elif len(row) == len(header) and row[0].strip() == header[0] and [
            c.strip() for c in row
        ] == header:  # (the first cell first: a record's row costs one comparison)
            # the header again, where files were joined (cat a.csv b.csv): no record's row
            yield Rejection(source, first, "the header again (files joined one after the "
                            "other?): not a record"), last  # fmt: skip
        else:
            where = (source, first, last)
            item = _row_item(row, header, text_fields, where, delimiter, id_field, source_field)
            if len(row) < len(header) and isinstance(item, Record):
                short = short if padded else (first, len(row))
                padded += 1
                item = dataclasses.replace(item, padded=True)
            yield item, last
    if padded:
        warnings.warn(NeardupWarning(
            f"{source}: {padded} row{'s' if padded > 1 else ''} shorter than the header read "
            f"with the missing last columns empty (the first at line {short[0]}: {short[1]} of "
            f"{len(header or ())} columns)"
        ), stacklevel=2)  # fmt: skip


def unreadable_header(source: str, line: int, problem: str) -> str:
    """The error of a table whose header line cannot be read: read as a row instead, the next
    line would name the columns and be lost."""
    return (f"{source}:{line}: the header cannot be read ({problem}): fix that line, which "
            "names the columns; nothing was read")  # fmt: skip


def _texts(lines: Lines, bad: dict[int, str]) -> Iterator[str]:
    """The lines as the csv module reads them; an unreadable line is an empty one, and its
    problem is noted in ``bad`` (its row is rejected for it); so is Excel's first line
    ``sep=;`` (:func:`~neardup.read.sniff.excel_sep`), noted at 0."""
    for number, text, problem in lines:
        if number == 1 and text is not None and excel_sep(text) is not None:
            bad[0] = "sep"
            yield "\n"
        elif text is None:
            bad[number] = problem or "unreadable"
            yield "\n"
        else:
            yield text + "\n"


def _csv_reader(texts: Iterator[str], delimiter: str, limit: int | None) -> Any:
    """A strict csv reader of ``texts``, its field bound raised to the record limit."""
    field_limit = 2**31 - 1 if limit is None else limit + LINE_ROOM  # a C long everywhere
    if csv.field_size_limit() < field_limit:
        csv.field_size_limit(field_limit)
    return csv.reader(texts, delimiter=delimiter, quoting=quoting(delimiter), strict=True)


def _malformed(exc: csv.Error, first: int, last: int) -> str:
    """Why the csv module could not read the row over lines ``first``-``last``, in words."""
    reason = f"malformed row: {exc}"
    if "field larger than field limit" in str(exc):  # quoted lines, each short enough
        reason = f"record too large, a field over {csv.field_size_limit()} characters"
    elif "new-line character seen in unquoted field" in str(exc):
        reason = (
            "a carriage return (CR) alone in an unquoted field: a line break of old Mac "
            "OS? convert it to LF (tr '\\r' '\\n') or quote the field"
        )
    elif "unexpected end of data" in str(exc):  # a quote opened and never closed
        reason = (
            f"unclosed quote: the row's quoted field runs to the end of the file, "
            f"taking lines {first}-{last} ({last - first + 1} lines) with it"
        )
    elif last > first:  # the error came after a quoted field took several lines
        reason += f" (a quoted field ran over lines {first}-{last}, all rejected)"
    return reason


def _read_fields(
    header: list[str],
    source: str,
    line: int,
    id_field: str,
    text_fields: Sequence[str] | None,
    source_field: str | None,
) -> Sequence[str]:
    """The text fields a table's rows are read with (by default :func:`default_text_fields`),
    or an error for a header that names a column twice or lacks one the reader needs."""
    _refuse_repeated(header, source, line, text_fields)
    if text_fields is None:
        text_fields = default_text_fields(header, id_field, source_field)
        say_text_only(source, header, id_field, source_field, "--text-field text,...")
    wanted = (id_field, *text_fields, *([source_field] if source_field else []))
    wanted = tuple(w for w in wanted if w != ROW_ID)
    missing = [f for f in wanted if f not in header]
    if missing:
        raise MissingColumn(
            f"{source}:{line}: the header has no column {', '.join(map(repr, missing))}"
            f" (columns: {', '.join(header)}): name the id and text columns it has"
        )
    return text_fields


def _row_item(
    row: list[str],
    header: list[str],
    text_fields: Sequence[str],
    where: tuple[str, int, int],
    delimiter: str,
    id_field: str,
    source_field: str | None,
) -> Item:
    """A row under its header as a record, or a rejection: a row of another width, or one
    whose quoted field swallowed rows of their own. ``where``: the source, the row's first
    line and its last."""
    source, first, last = where
    # a quoted TSV (pandas' to_csv(sep="\t"), Excel): its quotes are read as text, and a line
    # break inside quotes splits the record in two rows, the first a field opened by a quote
    opened = delimiter == "\t" and any(
        cell.count('"') % 2 and (cell.startswith('"') or len(row) != len(header)) for cell in row
    )
    if len(row) > len(header) or opened:
        reason = (
            f"expected {len(header)} columns, found {len(row)}"
            if len(row) != len(header) else "a field opens a quote it does not close"
        )
        if opened:
            reason += (
                " (tab-separated fields are read as written, not unquoted, so a quoted line "
                "break splits the record; save the file as CSV)"
            )
        return Rejection(source, first, reason)
    swallowed = 0
    if last > first and id_field in header:
        own = row[header.index(id_field)]
        swallowed = _rows_inside(row, own, len(header), delimiter, quoting(delimiter))
    if swallowed:
        reason = (
            f"a quoted field ran over lines {first}-{last} and holds {swallowed} lines that "
            "read as rows of their own (a quote opened by mistake and closed by a later "
            "one?): all rejected"
        )
        return Rejection(source, first, reason)
    # a row that leaves out its last empty fields (an editor trimming trailing tabs) has
    # them empty, as csv.DictReader and pandas read it; a row too long has no column to go in
    cells = dict(zip(header, [*row, *[""] * (len(header) - len(row))], strict=True))
    return record_from_mapping(cells, source, first, id_field, text_fields, source_field)


def _refuse_repeated(
    header: list[str], source: str, line: int, text_fields: Sequence[str] | None
) -> None:
    """An error for a header that names a column twice: a row read by name would keep the
    last one's value and lose the other's. Columns without a name may repeat (a spreadsheet's
    trailing separators) unless they are read: as the text, when no column is named ``text``."""
    for k, name in enumerate(header):
        if name not in header[:k]:
            continue
        read = "" in text_fields if text_fields is not None else "text" not in header
        if not name and not read:
            continue
        first = header.index(name) + 1
        shown = repr(name) if name else "without a name"
        raise InputError(
            f"{source}:{line}: the header names the column {shown} twice (columns {first} and "
            f"{k + 1}): one would be lost; rename one"
        )


def _rows_inside(row: list[str], own: str, columns: int, delimiter: str, quoting: int) -> int:
    """How many of the line breaks inside the row's quoted fields start a line that reads as a
    whole row: ``columns`` cells, the first one an id shaped like the row's own ``own`` (one
    word; digits if it is digits). A quote opened by mistake and closed by a stray quote lines
    later takes such rows into one field, which would otherwise pass unseen; a quoted address
    or paragraph over several lines ("12 Main St" / "Springfield, IL") has none."""
    found = 0
    for cell in row:
        for piece in cell.split("\n")[1:]:
            if delimiter not in piece:
                continue
            try:
                cells = next(csv.reader([piece], delimiter=delimiter, quoting=quoting))
            except (csv.Error, StopIteration):
                continue
            first = cells[0] if cells else ""
            found += (
                len(cells) == columns
                and bool(first)
                and len(first.split()) == 1
                and first.strip() == first
                and first.isdigit() == own.isdigit()
            )
    return found
