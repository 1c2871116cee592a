"""Readers of records (``ID TEXT`` lines, TSV, CSV, JSONL) and of id pairs; writers of reports.

A reader never drops a line silently: every line that is not a record comes out as a
:class:`Rejection` that names the file, the line and the reason, so that the counts a run prints
add up to the lines of the input. Policy: a byte-order mark at the start of a line (of the file,
or of files joined) and ``\\r\\n`` endings are repaired, and a file whose lines end with ``\\r``
alone is refused as a whole; blank lines are skipped and counted; a line with invalid UTF-8, a
NUL byte, no id, no text, or an id seen before in the same file is rejected, and so is a record
too large (:data:`MAX_RECORD_BYTES`), before it is decoded when its line alone is too long;
in ``ID TEXT`` lines, a carriage return alone inside a line is rejected (it would join two lines
into one record). A file that is UTF-16 or gzip-compressed is refused as a whole, by name.

A pipe or a FIFO (``/dev/stdin``) is read once: its first bytes are kept for the choices made
before reading (format, separator, id column) and read again from memory, then the rest from
the pipe (:func:`_open_input`). A FIFO without a writer is waited on for :data:`FIFO_WAIT`
seconds, then refused, rather than blocking in ``open()`` for ever.

Tables are read as they come: their separator is read off their first lines
(:func:`sniff_table`); a table that would be read as one column, or as ``ID TEXT`` lines, is an
error that names its separator (:func:`table_delimiter`, :func:`refuse_unread_table`), and a
spreadsheet is refused by name.
"""

from __future__ import annotations

import contextvars
import csv
import errno
import io as _io
import json
import math
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from .errors import ArgumentError, InputError, InvalidText, MissingColumn, OutputError
from .keys import qualified, record_id, source_of_key
from .text import check_text, ordered

FORMATS = ("lines", "tsv", "csv", "jsonl", "parquet", "arrow")
#: Formats read with pyarrow (the ``data`` extra): a row number stands for a line number.
ARROW_FORMATS = ("parquet", "arrow")
#: The id "field" that numbers records by their line in the file (their row in Parquet and
#: Arrow files, from 1): for data without an id column (``--id-field @row``).
ROW_ID = "@row"
#: The longest id, in bytes of UTF-8, in files and in records given as values alike.
MAX_ID_BYTES = 512
NUL = b"\x00"
#: The largest text of one record, in bytes of UTF-8 (``max_record_bytes`` of the readers,
#: ``--max-record-bytes`` of the CLI): 8 MiB. It is there to bound what one line can cost, not
#: to judge records: a runaway line (a dump with no line breaks, a binary blob) is rejected
#: with its size instead of being sent. 8 MiB is well above any record neardup is for (a
#: 200,000-word record, about the longest novels, is 1.8 MB) and well below what breaks a run:
#: a record costs the client about 20 times its size while it is shingled and sent, 40 with
#: the 2014 fields (an 8 MB record: 380 MB at peak), and a 50 MB record with the 2014 fields
#: takes the local node's default 1 GB heap down (``OutOfMemoryError``, after which Solr
#: closes its index writer), where 16 MB still indexes. Solr's own request limits do not
#: help: the JSON body of an update has none (``formdataUploadLimitInKB`` bounds forms only).
MAX_RECORD_BYTES = 8 * 1024 * 1024
#: How much longer than ``max_record_bytes`` the line of a record may be: room for its id,
#: the other columns or keys of its row, JSON's quotes and escapes, and a line ending. A longer
#: line is rejected as it is read, measured in chunks, never decoded or held whole.
LINE_ROOM = 64 * 1024
#: Bytes read at a time to measure the rest of a line too long to be a record.
SKIP_CHUNK = 1 << 20
BOM = b"\xef\xbb\xbf"
#: Bytes read at the start of a file to tell CR-only line endings: a CR and no LF in them.
CR_PEEK = 1 << 16
#: How long a FIFO given as input is waited on for a writer, in seconds: ``open()`` of a FIFO
#: blocks until a writer opens it too, and a FIFO that nothing writes to would block for ever.
FIFO_WAIT = 10.0
#: The first bytes of a gzip file, and the byte-order marks of UTF-32 and UTF-16 (UTF-32 first:
#: its little-endian mark starts with UTF-16's). Such a file is refused by name
#: (:func:`_refuse_encoding`) rather than rejected line by line as NUL bytes or invalid UTF-8.
GZIP_MAGIC = b"\x1f\x8b"
WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"),
)  # fmt: skip
#: Ids starting with this are neardup's own (the Solr backend keeps its parameters in the
#: document ``_neardup_meta_``): a record with such an id is refused, so no input can reach
#: an index's metadata.
RESERVED_PREFIX = "_neardup_"
#: What an id may not hold: control characters (tab, newline, CR, ESC ...), line and paragraph
#: separators, the bidirectional controls and the byte-order mark. They break TSV outputs and
#: terminals, or make one id look like another; a record holding one is refused with its file
#: and line.
_BAD_ID_CHAR = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)


@dataclass(frozen=True)
class Record:
    id: str
    text: str
    #: Where the record comes from: the file it was read from, or the value of its source
    #: column (``source_field``), which link mode pairs across.
    source: str = ""
    line: int = 0
    fields: dict[str, str] = field(default_factory=dict, compare=False)
    #: The file, when ``source`` is a column's value (else empty: ``source`` is the file).
    file: str = field(default="", compare=False)
    #: The line of an earlier record of the same file with the same id, text and source: this
    #: one is a copy of it (an identical row), a duplicate like any other, not a new record.
    copy_of: int = field(default=0, compare=False)

    @property
    def location(self) -> str:
        """The file a message about this record names with its line."""
        return self.file or self.source


@dataclass(frozen=True)
class Rejection:
    source: str
    line: int
    reason: str
    id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "reason": self.reason, "id": self.id}

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}"
        return f"{where}: {self.reason}" + (f" (id {self.id!r})" if self.id is not None else "")


@dataclass(frozen=True)
class EmptyText(Rejection):
    """A record whose text is empty: it cannot be compared, so it is never indexed, but it is
    a row of the user's data, counted apart (``dedupe`` writes it as it is)."""


@dataclass
class Blank:
    """A blank or whitespace-only line: skipped, but counted."""

    source: str
    line: int


Item = Record | Rejection | Blank
#: The lines of a file as the readers see them: (line number, text, problem).
Lines = Iterator[tuple[int, str | None, str | None]]


#: The formats that extensions name; a file of any other extension is ``lines`` unless its first
#: lines are a table (:func:`guess_format`).
EXTENSIONS = {
    ".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
    ".parquet": "parquet", ".pq": "parquet",
    ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow",
}  # fmt: skip
#: Spreadsheets by their extension: refused by name (reading them would need openpyxl or odfpy),
#: rather than read as lines of ZIP or OLE bytes.
SPREADSHEETS = {
    ".xlsx": "an Excel workbook", ".xlsm": "an Excel workbook", ".xlsb": "an Excel workbook",
    ".xls": "an Excel 97-2003 workbook", ".ods": "an OpenDocument spreadsheet",
    ".numbers": "a Numbers spreadsheet",
}  # fmt: skip
#: The first bytes of a ZIP archive (xlsx, ods) and of an OLE2 compound file (xls).
ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def guess_format(path: Path, delimiter: str | None = None) -> str:
    """A file's format: the one its extension names (:data:`EXTENSIONS`); else ``csv`` when a
    delimiter is given, or when its first lines are a table whose header names an ``id``
    column (:meth:`TableLayout.names_ids`); else ``lines``."""
    fmt = EXTENSIONS.get(path.suffix.lower())
    if fmt is not None:
        return fmt
    if path.suffix.lower() == ".json":
        return _json_lines_or_refused(path)
    if delimiter is not None:
        return "csv"
    layout = sniff_table(path)
    return "csv" if layout is not None and layout.names_ids() else "lines"


def _json_lines_or_refused(path: Path) -> str:
    """``jsonl`` for a ``.json`` file of one object a line (JSON Lines under another name); a
    JSON array or one document over several lines is refused with how to convert it, rather
    than read as lines of text (each line would be one record of JSON syntax)."""
    head = _head(path, SNIFF_BYTES).lstrip(b"\xef\xbb\xbf \t\r\n")
    convert = f"convert it to JSON Lines, one object a line: jq -c '.[]' {path} > new.jsonl"
    if head.startswith(b"["):
        raise InputError(f"{path} is one JSON array, not JSON Lines: {convert}")
    if head.startswith(b"{"):
        first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
        try:
            whole = isinstance(_json(first), dict)
        except (ValueError, RecursionError):
            whole = False
        if not whole:
            raise InputError(
                f"{path} holds a JSON document over several lines, not JSON Lines (one object "
                f"a line): convert it, e.g. jq -c '.records[]' {path} > new.jsonl"
            )
    return "jsonl"


def read_records(
    path: str | Path,
    fmt: str = "auto",
    id_field: str | None = "id",
    text_fields: Sequence[str] | None = None,
    *,
    max_record_bytes: int | None = MAX_RECORD_BYTES,
    source_field: str | None = None,
    delimiter: str | None = None,
) -> Iterator[Item]:
    """Every line of ``path`` as a Record, a Rejection or a Blank, in file order.

    ``text_fields`` names the columns (csv, tsv) or keys (jsonl) whose values, joined, are a
    record's text; by default the one named ``text``, or every one but the id (and the source)
    when there is none. ``source_field`` names the column or key whose value is a record's
    source (what link mode pairs across: one file holding several catalogues); by default a
    record's source is its file.

    A record whose text is over ``max_record_bytes`` bytes of UTF-8 is rejected with its size
    (None: no limit); so is a line longer than that plus :data:`LINE_ROOM`, before it is decoded.
    ``delimiter`` separates a table's columns, and makes a file of another extension one
    (None: read off its first lines, :func:`table_delimiter`).

    A JSON key (or a field of a Parquet struct) may be named by its path, ``item.title``.
    ``id_field`` :data:`ROW_ID` numbers the records by their line (row); None means ``id`` if
    the file has one, else line numbers (:func:`resolve_id_field`).
    """
    path, fmt = _checked(path, fmt, delimiter, refuse_tables=fmt == "auto")
    limit = _checked_limit(max_record_bytes)
    id_field = resolve_id_field(path, fmt, id_field, delimiter)
    spans = _iter_spans(path, fmt, id_field, text_fields, limit, source_field, delimiter)
    return _Items((item for item, _last in spans), path, fmt)


class Checked(Iterator[Item]):
    """Items whose records were checked as they were read (:func:`checked_spans`: ids, sizes,
    ids seen before), as :func:`read_records` and DataFrames give them: ``add_many`` does not
    check them again (:func:`checked_items`)."""

    def __init__(self, items: Iterator[Item]) -> None:
        self._items = items

    def __iter__(self) -> Checked:
        return self

    def __next__(self) -> Item:
        return next(self._items)


class _Items(Checked):
    """A file's items, with its line count as their length hint (:func:`expected_records`,
    counted when first asked): a new index chooses its parameters for the size it is about to
    receive (``NearDupIndex().add_many(read_records(path))``)."""

    def __init__(self, items: Iterator[Item], path: Path, fmt: str) -> None:
        super().__init__(items)
        self._path, self._fmt = path, fmt

    def __length_hint__(self) -> int:
        lines = expected_records(self._path, self._fmt)
        return NotImplemented if lines is None else lines


def read_spans(
    path: str | Path,
    fmt: str = "auto",
    id_field: str | None = "id",
    text_fields: Sequence[str] | None = None,
    *,
    max_record_bytes: int | None = MAX_RECORD_BYTES,
    source_field: str | None = None,
    delimiter: str | None = None,
) -> Iterator[tuple[Item, int]]:
    """What :func:`read_records` yields, each item with the number of its last line.

    An item ends at that line and begins after the item before it: at ``item.line`` (a CSV row
    with a quoted line break covers several lines; a rejected one may name the line of its fault
    instead of its first), or after a table's header, the lines no item covers before the first
    row. Writers that copy records as they were written (``neardup dedupe``) read the raw lines
    alongside (:func:`raw_lines`).
    """
    path, fmt = _checked(path, fmt, delimiter, refuse_tables=fmt == "auto")
    limit = _checked_limit(max_record_bytes)
    id_field = resolve_id_field(path, fmt, id_field, delimiter)
    return _iter_spans(path, fmt, id_field, text_fields, limit, source_field, delimiter)


def _checked(
    path: str | Path, fmt: str, delimiter: str | None = None, refuse_tables: bool = False
) -> tuple[Path, str]:
    """The file and its format (``auto``: :func:`guess_format`; ``lines`` with a delimiter is
    a table), or an error that says why it cannot be read: no such file, a spreadsheet, CR
    line endings; with ``refuse_tables``, a file read as lines that looks like a table
    (:func:`refuse_unread_table`)."""
    path = Path(path)
    if fmt != "auto" and fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a file")
    head = _head(path, CR_PEEK)  # a pipe's first bytes are kept to be read again
    _refuse_spreadsheet(path, head)
    if (EXTENSIONS.get(path.suffix.lower()) if fmt == "auto" else fmt) not in ARROW_FORMATS:
        _refuse_encoding(path, head)  # (Parquet and Arrow files are binary)
    if b"\r" in head.rstrip(b"\r") and b"\n" not in head:
        raise InputError(
            f"{path}: its lines end with a carriage return alone (CR, old Mac OS), which would "
            "make the whole file one line: convert them to LF first (tr '\\r' '\\n')"
        )
    if fmt == "auto":
        fmt = guess_format(path, delimiter)
        if fmt == "lines" and refuse_tables:
            refuse_unread_table(path)
    elif fmt == "lines" and delimiter is not None:
        fmt = "csv"  # a separator of columns is given: the file is a table
    return path, fmt


def _refuse_spreadsheet(path: Path, head: bytes) -> None:
    """A spreadsheet (by its extension, or a ZIP or OLE2 file by its first bytes) is refused by
    name: read as text, its bytes would be rejected line by line (NUL bytes, invalid UTF-8)."""
    kind = SPREADSHEETS.get(path.suffix.lower())
    if kind is not None:
        what = f"is a spreadsheet ({kind}), which neardup does not read"
    elif head.startswith(ZIP_MAGIC):
        what = "is a ZIP archive, not text (an .xlsx or .ods spreadsheet?)"
    elif head.startswith(OLE_MAGIC):
        what = "is an OLE2 compound file, not text (an .xls spreadsheet?)"
    else:
        return
    raise InputError(
        f"{path} {what}: save it as CSV (UTF-8) from the spreadsheet program and give that file"
    )


def _refuse_encoding(path: Path, head: bytes) -> None:
    """A file neardup cannot read as text, refused by name rather than line by line (every
    line a NUL byte or invalid UTF-8): gzip-compressed (its magic bytes), or UTF-16 or UTF-32
    (a byte-order mark, or, without one, a NUL byte in every other byte: ASCII text in UTF-16).

    Not read transparently: a compressed file could not be written back as it was by
    ``dedupe``, its line count (:func:`expected_records`) would be its compressed bytes', and
    ``zcat FILE | neardup index /dev/stdin`` reads it as it is, once."""
    if head.startswith(GZIP_MAGIC):
        raise InputError(
            f"{path} is gzip-compressed: gunzip it first (or zcat {path} | neardup index "
            "/dev/stdin --format ...)"
        )
    wide = next((name for bom, name in WIDE_BOMS if head.startswith(bom)), None)
    sample = head[:4096]
    pairs = len(sample) // 2
    if wide is None and pairs >= 2:
        even, odd = sample[0 : 2 * pairs : 2].count(0), sample[1 : 2 * pairs : 2].count(0)
        if max(even, odd) >= 0.9 * pairs and min(even, odd) <= 0.1 * pairs:
            wide = "UTF-16LE" if odd > even else "UTF-16BE"
    if wide is not None:
        raise InputError(
            f"{path} is {wide}, not UTF-8: save it as UTF-8 (iconv -f {wide} -t UTF-8 {path} "
            "> new-file)"
        )


def expected_records(path: str | Path, fmt: str = "auto") -> int | None:
    r"""About how many records a file holds, read off its lines (a header and quoted line
    breaks make it a little more than the records), or None for a pipe and for Parquet and
    Arrow files. A size hint only: a new index chooses its parameters for it
    (:func:`neardup.choose.choose`) and the progress bar ends there.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as fh:
    ...     _ = fh.write(b"1 a\n2 b\n3 c")
    >>> expected_records(fh.name), os.unlink(fh.name)
    (3, None)
    """
    file, fmt = _checked(path, fmt)
    if fmt in ARROW_FORMATS or not file.is_file():
        return None
    lines, last = 0, b"\n"
    try:
        with open(file, "rb") as fh:
            while chunk := fh.read(1 << 20):
                lines += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError:
        return None
    return lines + (last != b"\n")


def _checked_limit(max_record_bytes: int | None) -> int | None:
    if max_record_bytes is None:
        return None
    if isinstance(max_record_bytes, bool) or not isinstance(max_record_bytes, int):
        raise ArgumentError(f"max_record_bytes must be an integer, got {max_record_bytes!r}")
    if max_record_bytes < 1:
        raise ArgumentError(f"max_record_bytes must be >= 1, got {max_record_bytes}")
    return max_record_bytes


def _iter_spans(
    path: Path,
    fmt: str,
    id_field: str,
    text_fields: Sequence[str] | None,
    limit: int | None,
    source_field: str | None = None,
    delimiter: str | None = None,
) -> Iterator[tuple[Item, int]]:
    source = str(path)
    spans: Iterator[tuple[Item, int]]
    lines = _decoded_lines(path, limit)
    if source_field is not None and (fmt == "lines" or not source_field.strip()):
        raise InputError(
            f"{source}: a source field names a column of a table or a key of JSON lines"
            + (f", not of the {fmt!r} format" if fmt == "lines" else "")
        )
    if fmt in ARROW_FORMATS:
        read = read_arrow(path, fmt, id_field, text_fields, source_field)
        spans = ((item, item.line) for item in read)
    elif fmt == "lines":
        spans = _read_lines(lines, source, id_field == ROW_ID)
    elif fmt == "jsonl":
        read = _read_jsonl(lines, source, id_field, text_fields, source_field)
        spans = ((item, item.line) for item in read)
    else:
        delimiter = table_delimiter(path, fmt, delimiter, id_field)
        spans = _read_table(lines, source, delimiter, id_field, text_fields, limit, source_field)
    yield from checked_spans(spans, source, limit)


def checked_spans(
    spans: Iterable[tuple[Item, int]], source: str, limit: int | None = MAX_RECORD_BYTES
) -> Iterator[tuple[Item, int]]:
    """Records checked as every reader checks them: an id that is missing or too long, a text
    too large, an id seen before (a copy when its record is the same: :attr:`Record.copy_of`;
    else a rejection)."""
    check = _checker(source, limit)
    for item, last in spans:
        yield (check(item) if isinstance(item, Record) else item), last


def _checker(source: str, limit: int | None) -> Callable[[Record], Item]:
    """One record checked (:func:`checked_spans`), against the ids seen before by this
    checker: the record, a copy of an earlier one, or a rejection naming ``source``."""
    # source -> id -> the line it was first seen at << 64 | a hash of that record's content.
    # Strings and ints only: the collector never walks these dicts (with tuples, at 10M records
    # it walked 20M objects again and again), and a record costs half the memory.
    seen: dict[str, dict[str, int]] = {}
    good_sources: set[str] = set()  # a source is checked once, not once per record

    def check(item: Record) -> Item:
        problem = check_id(item.id)
        if problem is None and item.source not in good_sources:
            problem = check_source(item.source)
            if problem is None:
                good_sources.add(item.source)
        if problem:
            return Rejection(source, item.line, problem, item.id[:80])
        problem = _check_size(item.text, limit)
        if problem:
            return Rejection(source, item.line, problem, item.id)
        # Records are keyed by source and id: one file may hold several sources
        # (source_field), and the same id in two of them is two records.
        ids = seen.get(item.source)
        if ids is None:
            ids = seen[item.source] = {}
        earlier = ids.get(item.id)
        content = _content_hash(item)
        if earlier is not None:
            if earlier & _MASK64 == content:  # an identical row: a duplicate to remove
                return _copy(item, earlier >> 64)
            reason = f"duplicate id, first seen at line {earlier >> 64}"
            return Rejection(source, item.line, reason, item.id)
        ids[item.id] = item.line << 64 | content
        return item

    return check


def checked_items(items: Iterable[Item], limit: int | None = None) -> Iterator[Item]:
    """Items given as values (not read from a file) checked as a file's records are
    (:func:`checked_spans`): an id too long, an id seen before with another text (ids made
    strings: ``1`` and ``"1"`` are one id), a copy. A rejection names the record's own file
    or source and its line (its position). ``limit``: the largest text, None for none."""
    check = _checker("", limit)
    for item in items:
        if not isinstance(item, Record):
            yield item
            continue
        out = check(item)
        if out is not item and isinstance(out, Rejection):
            out = Rejection(item.location, out.line, out.reason, out.id)
        yield out


_MASK64 = (1 << 64) - 1


def _content_hash(item: Record) -> int:
    """A hash of what a record holds (its text and fields), as a non-negative 64-bit int."""
    return hash((item.text, tuple(item.fields.items())) if item.fields else item.text) & _MASK64


def _copy(record: Record, first: int) -> Record:
    """``record`` marked as a copy of the record at line ``first``."""
    return Record(
        record.id, record.text, record.source, record.line, record.fields, record.file, first
    )


def resolve_id_field(
    path: Path, fmt: str, id_field: str | None, delimiter: str | None = None
) -> str:
    """The id field to read ``path`` with: ``id_field``, or for None, ``id`` when the file
    has such a column or key (the first row or object says), else :data:`ROW_ID`."""
    if id_field is not None:
        if not id_field.strip():
            raise ArgumentError("the id field needs a name (or @row for line numbers)")
        return id_field
    if fmt == "lines":
        return "id"
    return "id" if "id" in first_columns(path, fmt, delimiter) else ROW_ID


def first_columns(path: Path, fmt: str, delimiter: str | None = None) -> list[str]:
    """The columns of a table's header, the keys of the first JSON object (lines that are not
    one are passed over), or the columns of a Parquet or Arrow file (empty when there are none,
    or the header cannot be read)."""
    if fmt in ARROW_FORMATS:
        return arrow_columns(path, fmt)
    for _number, text, _problem in _decoded_lines(path, MAX_RECORD_BYTES, head_only=True):
        if text is None or not text.strip():
            continue
        if fmt == "jsonl":
            try:
                obj = _json(text)
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict):
                return list(obj)
            continue
        delimiter = table_delimiter(path, fmt, delimiter)
        quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
        try:
            row = next(csv.reader([text], delimiter=delimiter, quoting=quoting), [])
        except csv.Error:
            return []
        return [cell.strip() for cell in row]
    return []


#: The separators preferred when two split a file's first lines equally well, and the ones a
#: table's header is tried with when no separator splits its first lines consistently.
DELIMITERS = (",", "|", ";", "\t")
#: How much of a file's start its separator is read off: bytes, and lines of them.
SNIFF_BYTES = 1 << 16
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
                cell[0].isdigit() or _number(cell) or len(cell.split()) > 4 for cell in self.header
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


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _sample(path: Path) -> str | None:
    """The first :data:`SNIFF_LINES` whole lines of a file (at most :data:`SNIFF_BYTES`; of a
    pipe, the first bytes it keeps), decoded; None for a file that cannot be read."""
    try:
        head = _head(path, SNIFF_BYTES)
    except InputError:
        return None
    if len(head) == SNIFF_BYTES and b"\n" in head:
        head = head[: head.rindex(b"\n") + 1]  # no line cut in two
    text = head.decode("utf-8", "replace").replace("\ufeff", "")
    return "".join(text.splitlines(keepends=True)[:SNIFF_LINES])


def _quoting(delimiter: str) -> int:
    """How the readers quote: tab-separated files have no quoting (a quote is text)."""
    return csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL


def _rows(sample: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """The non-blank rows of a sample read with ``delimiter``, each with its first line; a row
    the csv module cannot read ends them."""
    reader = csv.reader(
        _io.StringIO(sample, newline=""), delimiter=delimiter, quoting=_quoting(delimiter)
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
    into the most columns (a header alone, or rows too ragged to agree on any), else ``,``."""
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


def check_id(record_id: str, max_bytes: int | None = MAX_ID_BYTES) -> str | None:
    """Why ``record_id`` cannot be a record's id, if it cannot. Every way in checks it, with
    the one size limit :data:`MAX_ID_BYTES` whatever the backend (Solr would refuse an id
    over Lucene's 32,766-byte term, memory none): the readers, and ``add_many`` for records
    given as values (:func:`checked_items`); what an index stores is checked again, without
    the size (:func:`neardup.documents.documents`)."""
    if not record_id:
        return "missing id"
    if (
        max_bytes is not None
        and len(record_id) * 4 > max_bytes  # else short enough whatever its characters
        and len(record_id.encode("utf-8", "surrogatepass")) > max_bytes
    ):
        return f"id longer than {max_bytes} bytes"
    if record_id.startswith(RESERVED_PREFIX):
        return f"id starting with {RESERVED_PREFIX!r} is reserved for neardup's own documents"
    return _bad_character(record_id, "id")


def _bad_character(text: str, what: str) -> str | None:
    """Why ``text`` (an id, a source) cannot be ``what``, if it holds a character no id or
    source may hold (:data:`_BAD_ID_CHAR`): which, and where."""
    bad = None if text.isprintable() else _BAD_ID_CHAR.search(text)
    if bad is None:
        return None
    code = ord(bad.group())
    return f"{what} holds the control character U+{code:04X} at character {bad.start() + 1}"


def _check_size(text: str, limit: int | None) -> str | None:
    """Why a record's text is too large, if it is (no copy unless it may be: UTF-8 has at most
    4 bytes a character, and an ASCII text has one)."""
    if limit is None or len(text) * 4 <= limit:
        return None
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return f"record too large, {size} bytes of text (the limit is {limit})"


#: Bytes a reader asks the file for at once. Each refill lets go of the GIL and must win it
#: back from the threads that sign and send records: with the default 8 KB, 100k documents
#: (120 MB) were 15k refills, and reading was 0.9 s of indexing them into Solr; 256 KB makes
#: them 470 (and two files read side by side, as dedupe does, hold 0.5 MB).
READ_BUFFER = 1 << 18


# -- the bytes of an input: a file, or a pipe read once ------------------------------------------


@dataclass
class _Stream:
    """A pipe or FIFO opened for reading: its first bytes, read and kept, and the rest."""

    head: bytes
    rest: IO[bytes]


#: The pipes and FIFOs whose first bytes were read (:func:`_head`) and the rest not yet, by
#: path: the choices made before reading (format, separator, id column) are read off those
#: bytes, and the reader takes them (:func:`_open_input`), so that a pipe is read once.
_STREAMS: dict[str, _Stream] = {}


def _is_stream(path: Path) -> bool:
    """Whether ``path`` is a pipe, a FIFO, a terminal or another device: bytes that can be read
    only once, not a file that can be opened again."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` (all of them if it is shorter); of a pipe, of the
    bytes kept of it (:data:`_STREAMS`)."""
    if _is_stream(path):
        kept = _STREAMS.get(str(path))
        if kept is None:
            rest = _open_stream(path)
            kept = _STREAMS[str(path)] = _Stream(_read_head(rest), rest)
        return kept.head[:size]
    try:
        with open(path, "rb") as fh:
            return fh.read(size)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read: {exc.strerror or exc}") from None


def _read_head(fh: IO[bytes]) -> bytes:
    """The first bytes of a pipe, kept to be read again: its first line that is not blank (a
    table's header, the first JSON object: they name the id; waited for, up to a record's
    longest line), then what has come already, up to :data:`SNIFF_BYTES` (a table's separator
    is read off them). Nothing more is waited for: a program that writes a line at a time is
    read as it writes."""
    import select

    head = bytearray()
    first: int | None = None  # where the first byte that is not white space is
    line = False  # whether the line of that byte has ended
    while (len(head) < SNIFF_BYTES or not line) and len(head) < MAX_RECORD_BYTES + LINE_ROOM:
        if line and not select.select([fh], [], [], 0)[0]:
            break  # the first line is in, and nothing more has come yet
        chunk = fh.read(SNIFF_BYTES)  # unbuffered: what has come, b"" at the end
        if not chunk:
            break
        start = len(head)
        head += chunk
        if first is None and chunk.strip():
            first = start + len(chunk) - len(chunk.lstrip())
        if first is not None and not line:
            line = head.find(b"\n", max(first, start)) >= 0
    return bytes(head)


def _open_stream(path: Path) -> IO[bytes]:
    """A pipe, FIFO or device opened for reading, unbuffered. ``open()`` of a FIFO waits until
    a writer opens it: it is waited on in a thread for :data:`FIFO_WAIT` seconds, then the FIFO
    is refused, and the waiting ``open()`` released by a writer opened and closed here."""
    import threading

    opened: list[int] = []
    failed: list[OSError] = []

    def opener() -> None:
        try:
            opened.append(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
        except OSError as exc:
            failed.append(exc)

    try:
        fifo = stat.S_ISFIFO(path.stat().st_mode)
    except OSError:
        fifo = False
    if not fifo:  # a pipe (/dev/stdin) has its writer; a device opens at once
        opener()
    else:
        waiter = threading.Thread(target=opener, name="neardup-fifo", daemon=True)
        waiter.start()
        waiter.join(FIFO_WAIT)
        if waiter.is_alive():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC))
            except OSError:
                pass  # then the thread stays blocked; it is a daemon
            waiter.join(1.0)
            for fd in opened:
                os.close(fd)
            raise InputError(
                f"{path}: a FIFO that no program writes to: none opened it within "
                f"{FIFO_WAIT:g} seconds (start the program that writes to it first, or give "
                "a file)"
            )
    if failed:
        raise InputError(f"{path}: cannot be read: {failed[0].strerror or failed[0]}")
    return open(opened[0], "rb", buffering=0)


class _Chained(_io.RawIOBase):
    """The bytes kept of a pipe, then the rest of the pipe."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        super().__init__()
        self._head, self._at, self._rest = memoryview(head), 0, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._at < len(self._head):
            n = min(len(buffer), len(self._head) - self._at)
            buffer[:n] = self._head[self._at : self._at + n]
            self._at += n
            return n
        return self._rest.readinto(buffer)  # type: ignore[attr-defined]

    def close(self) -> None:
        try:
            self._rest.close()
        finally:
            super().close()


def _open_input(path: Path, head_only: bool = False) -> IO[bytes]:
    """``path`` opened to be read: a file from its start; a pipe from the bytes kept of it
    (:func:`_head`), then the rest, which is taken: read once, what a second reader of the same
    pipe gets is what is left in it. ``head_only``: of a pipe, only the bytes kept."""
    if not _is_stream(path):
        return open(path, "rb", buffering=READ_BUFFER)
    if head_only:
        _head(path, 0)
        return _io.BytesIO(_STREAMS[str(path)].head)
    kept = _STREAMS.pop(str(path), None)
    if kept is None:
        kept = _Stream(b"", _open_stream(path))
    return _io.BufferedReader(_Chained(kept.head, kept.rest), READ_BUFFER)  # type: ignore[arg-type]


def raw_lines(path: str | Path) -> Iterator[bytes]:
    """The lines of a file as bytes, line endings included, numbered as the readers number
    them (a line ends at ``\\n``; ``\\r`` is part of the line's ending)."""
    with _open_input(Path(path)) as fh:
        yield from fh


def _sized_lines(
    path: Path, cap: int | None, head_only: bool = False
) -> Iterator[tuple[bytes | None, int]]:
    """The lines of a file as :func:`raw_lines` numbers them, each with its size in bytes. A
    line over ``cap`` bytes (its ending not counted) comes as None and its size: it is read
    ``cap`` bytes into memory, and the rest is measured ``SKIP_CHUNK`` bytes at a time.
    ``head_only``: of a pipe, the lines of the bytes kept (:func:`_open_input`)."""
    if cap is None:
        with _open_input(path, head_only) as fh:
            for raw in fh:
                yield raw, len(raw) - _ending(raw)
        return
    with _open_input(path, head_only) as fh:
        while raw := fh.readline(cap + 3):  # a line of ``cap`` bytes, "\r\n", and one more
            size, tail = len(raw), raw[-2:]
            text_size = size - (2 if tail == b"\r\n" else 1 if tail[-1:] == b"\n" else 0)
            if text_size <= cap:
                yield raw, text_size
                continue
            if not raw.endswith(b"\n"):
                del raw
                while chunk := fh.readline(SKIP_CHUNK):
                    size, tail = size + len(chunk), (tail + chunk)[-2:]
                    if chunk.endswith(b"\n"):
                        break
            yield None, size - _ending(tail)


def _ending(raw: bytes) -> int:
    """The length of a line's ending."""
    return 2 if raw.endswith(b"\r\n") else 1 if raw.endswith(b"\n") else 0


def _decoded_lines(path: Path, limit: int | None, head_only: bool = False) -> Lines:
    """(line number, text, problem): text is None where the line cannot be taken as it is.
    ``head_only``: of a pipe, the lines of the bytes kept of it (:func:`_open_input`)."""
    cap = None if limit is None else limit + LINE_ROOM
    for number, (raw, size) in enumerate(_sized_lines(path, cap, head_only), start=1):
        if raw is None:
            problem = (
                f"record too large, a line of {size} bytes (the limit is {limit} bytes of text)"
            )
            yield number, None, problem
            continue
        if raw.startswith(BOM):  # at the start of the file, or of files joined by cat
            raw = raw[3:]
        raw = raw.rstrip(b"\n").rstrip(b"\r")
        if NUL in raw:
            yield number, None, f"NUL byte at column {raw.index(NUL) + 1}"
            continue
        try:
            yield number, raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            yield number, None, f"invalid UTF-8 at byte {exc.start + 1}"


def _text_lines(lines: Lines, source: str) -> Iterator[Item | tuple[int, str]]:
    """(line number, text) of each line that has text; unreadable and blank ones as items."""
    for number, text, problem in lines:
        if text is None:
            yield Rejection(source, number, problem or "unreadable")
        elif not text.strip():
            yield Blank(source, number)
        else:
            yield number, text


def _read_lines(
    lines: Lines, source: str, numbered: bool = False
) -> Iterator[tuple[Item, int]]:
    """``ID TEXT`` lines, each item with its line; ``numbered``: each line is a text, its id
    its line number. (What :func:`_text_lines` does, done here: a generator less a line was
    0.1 s of reading 100k records.)"""
    for number, text, problem in lines:
        if text is None:
            yield Rejection(source, number, problem or "unreadable"), number
            continue
        stripped = text.strip()
        if "\r" in stripped:  # a line break of old Mac OS: two records would be read as one
            column = text.index(stripped) + stripped.index("\r") + 1
            reason = (
                f"a carriage return (CR) alone at column {column}, inside the line: lines end "
                "with LF or CRLF; convert it (tr '\\r' '\\n')"
            )
            yield Rejection(source, number, reason), number
            continue
        text = stripped
        if not text:
            yield Blank(source, number), number
        elif numbered:
            yield Record(str(number), text, source, number), number
        else:
            parts = text.split(None, 1)
            if len(parts) < 2:  # split() leaves no blank text after the id
                yield EmptyText(source, number, "no text after the id", parts[0]), number
            else:
                yield Record(parts[0], parts[1], source, number), number


def _read_jsonl(
    lines: Lines,
    source: str,
    id_field: str,
    text_fields: Sequence[str] | None,
    source_field: str | None = None,
) -> Iterator[Item]:
    for item in _text_lines(lines, source):
        if not isinstance(item, tuple):
            yield item
            continue
        number, text = item
        try:
            obj = _json(text)
        except json.JSONDecodeError as exc:
            yield Rejection(source, number, f"invalid JSON: {exc.msg} at column {exc.colno}")
            continue
        except DuplicateKey as exc:
            reason = f"duplicate key {exc.args[0]!r} in a JSON object (one value would be lost)"
            yield Rejection(source, number, reason)
            continue
        except ValueError as exc:  # NaN, or an integer of more than 4,300 digits
            yield Rejection(source, number, f"invalid JSON: {exc}")
            continue
        except RecursionError:  # Python's parser recurses once a level
            yield Rejection(source, number, "invalid JSON: nested too deep to be read")
            continue
        if not isinstance(obj, dict):
            yield Rejection(source, number, "a JSON object was expected")
            continue
        if text_fields is None:
            names = default_text_fields(obj, id_field, source_field)
            kinds = {k: _kind(obj[k]) for k in names if k in obj and not _scalar(obj[k])}
            obj = {k: v for k, v in obj.items() if k not in kinds}
            yield _record_from_mapping(obj, source, number, id_field, names, source_field, kinds)
            continue
        yield _record_from_mapping(obj, source, number, id_field, text_fields, source_field)


def _not_json(constant: str) -> None:
    """``NaN`` and ``Infinity`` are not JSON (Python's reader takes them): a text of "nan"."""
    raise ValueError(f"{constant} is not a JSON value")


class DuplicateKey(ValueError):
    """A JSON object that names a key twice: Python's reader keeps the last value, silently."""


class BigNumber(str):
    """A JSON number beyond a float's range (``1e400``), kept as it is written: as a float it
    would be ``inf``, a text that every such record shares. Text, but not an id."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def _json_float(text: str) -> float | str:
    value = float(text)
    return value if -math.inf < value < math.inf else BigNumber(text)


#: The one JSON reader of lines (made once: ``json.loads`` with hooks makes one a call): a key
#: named twice, ``NaN`` and ``Infinity`` are errors, a number too large for a float is kept as
#: it is written (:class:`BigNumber`).
_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_keys, parse_float=_json_float, parse_constant=_not_json
)


def _json(text: str) -> Any:
    """A JSON line read as :data:`_DECODER` reads it; ``RecursionError`` when it is nested too
    deep for Python's parser."""
    return _DECODER.decode(text)


def _read_table(
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
    bad: dict[int, str] = {}

    def texts() -> Iterator[str]:
        for number, text, problem in lines:
            if text is None:
                bad[number] = problem or "unreadable"
                yield "\n"
            else:
                yield text + "\n"

    field_limit = 2**31 - 1 if limit is None else limit + LINE_ROOM  # a C long everywhere
    if csv.field_size_limit() < field_limit:
        csv.field_size_limit(field_limit)
    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    reader = csv.reader(texts(), delimiter=delimiter, quoting=quoting, strict=True)
    header: list[str] | None = None
    start = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            first, start = start, reader.line_num + 1
            last = start - 1
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
            yield Rejection(source, first, reason), last
            continue
        first, last = start, reader.line_num
        start = last + 1
        broken = [n for n in range(first, last + 1) if n in bad]
        if broken:
            yield Rejection(source, broken[0], bad[broken[0]]), last
            continue
        if not any(cell.strip() for cell in row):
            yield Blank(source, first), last
            continue
        if header is None:
            header = [h.strip() for h in row]
            _refuse_repeated(header, source, first, text_fields)
            if text_fields is None:
                text_fields = default_text_fields(header, id_field, source_field)
            wanted = (id_field, *text_fields, *([source_field] if source_field else []))
            wanted = tuple(w for w in wanted if w != ROW_ID)
            missing = [f for f in wanted if f not in header]
            if missing:
                raise MissingColumn(
                    f"{source}:{first}: the header has no column {', '.join(map(repr, missing))}"
                    f" (columns: {', '.join(header)}): name the id and text columns it has"
                )
            continue
        if len(row) != len(header):
            reason = f"expected {len(header)} columns, found {len(row)}"
            yield Rejection(source, first, reason), last
            continue
        swallowed = 0
        if last > first and id_field in header:
            own = row[header.index(id_field)]
            swallowed = _rows_inside(row, own, len(header), delimiter, quoting)
        if swallowed:
            reason = (
                f"a quoted field ran over lines {first}-{last} and holds {swallowed} lines that "
                "read as rows of their own (a quote opened by mistake and closed by a later "
                "one?): all rejected"
            )
            yield Rejection(source, first, reason), last
            continue
        record = _record_from_mapping(
            dict(zip(header, row, strict=True)), source, first, id_field, text_fields,
            source_field,
        )  # fmt: skip
        yield record, last


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


def default_text_fields(
    columns: Iterable[str], id_field: str, source_field: str | None = None
) -> list[str]:
    """The text of a record when no text field is named: the column ``text`` if there is one,
    else every column but the id (and the source), joined in their order (and kept apart as the
    record's ``fields``, which a report compares one by one: :mod:`neardup.fields`)."""
    names = list(columns)
    return ["text"] if "text" in names else [n for n in names if n not in (id_field, source_field)]


def field_value(obj: Mapping[str, Any], name: str) -> Any:
    """The value of key ``name`` of ``obj``, or, if it has no such key, of the nested key its
    dotted path names (``item.title``: ``obj["item"]["title"]``); None if there is none."""
    if name in obj:
        return obj[name]
    if "." not in name:
        return None
    value: Any = obj
    for part in name.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _kind(value: object) -> str:
    """What a JSON value that is not text is, for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return "a list" if isinstance(value, list) else "an object"


def _record_from_mapping(
    obj: dict[str, object],
    source: str,
    number: int,
    id_field: str,
    text_fields: Sequence[str],
    source_field: str | None = None,
    kinds: Mapping[str, str] | None = None,
) -> Record | Rejection:
    """The record of a row or object; ``kinds``: the fields left out of the text for what
    they hold (a list, a struct), named with it where the record has no text."""
    raw_id = number if id_field == ROW_ID else field_value(obj, id_field)
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        return Rejection(source, number, f"missing id field {id_field!r}")
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool | BigNumber):
        return Rejection(source, number, f"id field {id_field!r} is not a string or an integer")
    parts: dict[str, str] = {}
    for name in text_fields:
        value = field_value(obj, name)
        if value is None:
            continue
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            return Rejection(source, number, f"field {name!r} is not text", str(raw_id))
        parts[name] = str(value)
    for name, value in [(id_field, str(raw_id)), *parts.items()]:
        try:
            check_text(value, f"field {name!r}")
        except InvalidText as exc:  # only JSON escapes can make one: files are decoded UTF-8
            shown = str(raw_id)[:80].encode("utf-8", "replace").decode("utf-8")
            return Rejection(source, number, str(exc), shown)
    text = " ".join(v.strip() for v in parts.values() if v.strip())
    if not text:
        kinds = kinds or {}
        named = [*text_fields, *(k for k in kinds if k not in text_fields)]
        names = ", ".join(f"{n!r} ({kinds[n]})" if n in kinds else repr(n) for n in named)
        reason = f"no text in {names or 'any field but the id'}"
        return EmptyText(source, number, reason, str(raw_id).strip())
    if source_field is None:
        return Record(str(raw_id).strip(), text, source, number, parts)
    origin = field_value(obj, source_field)
    if not _scalar(origin) or not str(origin).strip():
        reason = f"no source in field {source_field!r}"
        return Rejection(source, number, reason, str(raw_id).strip())
    return Record(str(raw_id).strip(), text, str(origin).strip(), number, parts, file=source)


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


def write_pairs(pairs: Sequence[Any], out: str | Path) -> int:
    """The pairs report: TSV with the header ``id1 id2 jaccard edit_distance``; how many.

    Where pairs carry their sources (link mode; two files may both hold an id 7), three more
    columns: ``similarity`` (the weighted similarity that decided, empty where Jaccard did)
    and ``source1 source2``. Written whole or not at all (:class:`AtomicFile`); a control
    character in an id or a source is written as its code point (:func:`_cell`)."""
    linked = any(getattr(p, "source1", None) is not None for p in pairs)
    n = 0
    with AtomicFile(out, text=True) as fh:
        if not linked:
            fh.write("id1\tid2\tjaccard\tedit_distance\n")
        else:
            fh.write("id1\tid2\tjaccard\tedit_distance\tsimilarity\tsource1\tsource2\n")
        for p in pairs:
            # ids and sources are checked as they are read, so _cell() changes nothing but
            # what an older index may hold: a row is one line of as many cells, always.
            id1, id2 = _cell(p.id1), _cell(p.id2)
            if not linked:
                fh.write(f"{id1}\t{id2}\t{p.jaccard:.4f}\t{p.edit_distance}\n")
            else:
                sim = "" if p.similarity is None else f"{p.similarity:.4f}"
                fh.write(
                    f"{id1}\t{id2}\t{p.jaccard:.4f}\t{p.edit_distance}\t{sim}\t"
                    f"{_cell(p.source1 or '')}\t{_cell(p.source2 or '')}\n"
                )
            n += 1
    return n


def write_clusters(groups: Iterable[Any], out: str | Path, primary: str | None = None) -> None:
    """Clusters as TSV: ``center least_similarity members...``, one cluster a line under a
    header: the record every member is paired with, the smallest similarity of a member to it,
    then the other members (:class:`neardup.cluster.Cluster`). Where a cluster holds records
    of a source other than the index's ``primary`` one, each record is written as its id and
    its source (``center center_source least_similarity member source ...``), so that two
    files' records 7 are never read as one. Plain groups of ids (connected components) are
    written one a line, their ids separated by tabs."""
    groups = list(groups)
    sourced = any(qualified(m) for g in groups if hasattr(g, "center") for m in g.members)

    def cells(key: str) -> list[str]:
        if not sourced:
            return [_cell(record_id(key))]  # the record's own id
        return [_cell(record_id(key)), _cell(source_of_key(key) or primary or "")]

    with AtomicFile(out, text=True) as fh:
        header = False
        for g in groups:
            if hasattr(g, "center"):
                if not header:
                    fh.write(
                        "center\tcenter_source\tleast_similarity\tmembers (id, source)\n"
                        if sourced
                        else "center\tleast_similarity\tmembers\n"
                    )
                    header = True
                first, *rest = g.members
                row = [*cells(first), f"{g.least:.4f}", *(c for m in rest for c in cells(m))]
                fh.write("\t".join(row) + "\n")
            else:
                fh.write("\t".join(map(_cell, g)) + "\n")


# -- outputs: checked before the work starts, and written whole or not at all -------------------
#
# A run that indexes and reports for minutes must not fail at the end on a path it could have
# checked at the start (check_output, distinct_outputs), and a run that fails or is interrupted
# must leave no half-written or empty file (AtomicFile), nor some of its outputs new and others
# old (Outputs). What is replaced is only ever a regular file, and it keeps its permission bits:
# a device (/dev/null, /dev/full), a FIFO or a terminal is written through, and a symbolic link
# is followed (the file it points at is replaced; the link stays a link).

#: Write errors that are the output's, not the input's: said as such, without a traceback.
WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE)
#: What a temporary output file's name ends with (``.NAME.PID.RANDOM.tmp``, beside its target).
TMP_SUFFIX = ".tmp"


def check_output(path: str | Path, what: str = "output", inputs: Iterable[Path] = ()) -> Path:
    """``path`` if a file can be written there, else an :class:`InputError` that says why:
    a directory, no such directory, no permission, or one of ``inputs`` (never overwritten)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{shown(str(path))}: the {what} is a directory")
    real = path.resolve()
    for source in inputs:
        if Path(source).exists() and _same_file(path, Path(source)):
            raise InputError(f"{shown(str(path))}: the {what} would overwrite the input")
    if path.exists():
        if not os.access(real, os.W_OK):
            raise InputError(f"{path}: the {what} cannot be written (permission denied)")
        if not _regular(real):
            return path  # written through: its directory need not be writable
    parent = real.parent
    if not parent.is_dir():
        raise InputError(f"{path}: no such directory {str(path.parent)!r}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{path}: the {what} cannot be written in {str(parent)!r}")
    return path


def distinct_outputs(named: Mapping[str, str | Path | None]) -> None:
    """An :class:`InputError` if two of a run's outputs (by the name it is given as, e.g.
    ``--out``) are one file: the same path however spelled (``./x`` and ``x``, a symbolic link
    and its file, a hard link) or both standard output (``-``). Each would replace the other, or
    the two would be mixed. Character devices (``/dev/null``) are written through, and may be
    given twice."""
    given = [(name, Path(path)) for name, path in named.items() if path is not None]
    for k, (name, path) in enumerate(given):
        for other, path2 in given[:k]:
            if str(path) == "-" or str(path2) == "-":
                same = str(path) == str(path2)
            else:
                same = _same_file(path, path2) and not _device(path)
            if same:
                where = "standard output ('-')" if str(path) == "-" else shown(str(path))
                raise InputError(
                    f"{other} and {name} are the same file, {where}: give each its own"
                )


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same resolved path, or one inode."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _device(path: Path) -> bool:
    try:
        return stat.S_ISCHR(path.stat().st_mode)
    except OSError:
        return False


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True  # does not exist (yet): it will be a regular file


#: The outputs of the run in progress (:class:`Outputs`), if one is open.
_RUN: contextvars.ContextVar[Outputs | None] = contextvars.ContextVar("neardup_run", default=None)


class Outputs:
    """The outputs of one run, replaced all together or not at all.

    Every :class:`AtomicFile` completed inside the block stays under its temporary name; when
    the block ends without an error, and so every output of the run is complete, each is renamed
    over its target. On an error (or Ctrl-C) none is replaced and every temporary file is
    removed: a run that writes a report and its clusters, or a dataset and its review page, never
    leaves one new and the other old. Renames in one folder need no space, so once every file is
    complete the commit does not fail for a full disk. Outputs written through (a device, a FIFO)
    cannot be taken back; standard output is sent last, after the files (:func:`when_written`).
    Blocks nest: an inner one's files are committed with the outer one's."""

    def __init__(self) -> None:
        self.files: list[AtomicFile] = []
        self.then: list[Callable[[], None]] = []
        self.finally_: list[Callable[[], None]] = []
        self._token: contextvars.Token[Outputs | None] | None = None
        self._outer: Outputs | None = None

    def __enter__(self) -> Outputs:
        self._outer = _RUN.get()
        self._token = _RUN.set(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._token is not None:
            _RUN.reset(self._token)
        if exc_type is not None:
            self.abort()
        elif self._outer is not None:
            self._outer.files += self.files
            self._outer.then += self.then
            self._outer.finally_ += self.finally_
        else:
            self.commit()

    def commit(self) -> None:
        files, self.files = self.files, []
        try:
            for k, f in enumerate(files):
                try:
                    f.replace()
                except OSError as exc:
                    for rest in files[k:]:
                        rest.discard()
                    raise f.error(exc) from None
            for step in self.then:
                step()
        finally:
            self._cleanup()

    def abort(self) -> None:
        files, self.files = self.files, []
        for f in files:
            f.discard()
        self._cleanup()

    def _cleanup(self) -> None:
        steps, self.then, self.finally_ = self.finally_, [], []
        for step in steps:
            step()


def when_written(step: Callable[[], None], cleanup: Callable[[], None]) -> None:
    """Run ``step`` once the run's files are in place, then ``cleanup`` (which runs also when
    they are thrown away): at the end of the :class:`Outputs` block, or now outside one. What
    writes to standard output through a temporary file sends it this way."""
    run = _RUN.get()
    if run is None:
        try:
            step()
        finally:
            cleanup()
        return
    run.then.append(step)
    run.finally_.append(cleanup)


class AtomicFile:
    """A file written under a temporary name beside its target and renamed over it only when
    complete (:meth:`done`); :meth:`fail` (or leaving the ``with`` block on an error) removes
    the temporary file and leaves the target as it was. Inside an :class:`Outputs` block the
    rename waits for the run's other outputs. The file replaced keeps its permission bits (a
    new one gets the umask's, as :func:`open` gives). A target that exists and is not a
    regular file is opened and written through instead; a symbolic link's target is the file
    replaced. Every error writing it is an :class:`OutputError` that names the target."""

    def __init__(self, target: str | Path, text: bool = False) -> None:
        self.target = Path(target)
        self.real = real = self.target.resolve()
        self.tmp: Path | None = None
        self.fh: IO[Any]
        try:
            if self.target.exists() and not _regular(real):
                fd = os.open(real, os.O_WRONLY | os.O_CLOEXEC)
            else:
                fd = self._temporary(real)
        except OSError as exc:
            raise self.error(exc) from None
        if text:
            self.fh = open(fd, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        else:
            self.fh = open(fd, "wb")  # noqa: SIM115 - closed by done() or fail()

    def _temporary(self, real: Path) -> int:
        """The temporary file, made (never an existing one), with the bits of the file it
        will replace."""
        try:
            mode: int | None = stat.S_IMODE(real.stat().st_mode) & 0o777
        except FileNotFoundError:
            mode = None  # a new file: 0o666 less the umask, as open() makes it
        self.tmp = real.with_name(f".{real.name}.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        fd = os.open(self.tmp, flags, 0o666 if mode is None else mode)
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # exactly the old bits, whatever the umask takes off
        except OSError:
            os.close(fd)
            self.discard()
            raise
        return fd

    def done(self) -> None:
        """Complete the file: flushed and, unless a run's :class:`Outputs` wait for their
        other files, renamed over its target."""
        try:
            self.fh.flush()
            if self.tmp is not None:
                os.fsync(self.fh.fileno())  # on disk before the rename makes it the file
            self.fh.close()
        except OSError as exc:
            self.fail()
            raise self.error(exc) from None
        run = _RUN.get()
        if run is not None and self.tmp is not None:
            run.files.append(self)
            return
        try:
            self.replace()
        except OSError as exc:
            self.discard()
            raise self.error(exc) from None

    def replace(self) -> None:
        """Rename the complete temporary file over the target."""
        if self.tmp is not None:
            os.replace(self.tmp, self.real)
            self.tmp = None

    def fail(self) -> None:
        try:
            self.fh.close()
        except OSError:
            pass  # the data that could not be flushed is being thrown away anyway
        self.discard()

    def discard(self) -> None:
        """Remove the temporary file, if any: the target stays as it was."""
        if self.tmp is not None:
            self.tmp.unlink(missing_ok=True)
            self.tmp = None

    def error(self, exc: OSError) -> OutputError:
        """What the user is told when this file cannot be written."""
        return OutputError(f"{shown(str(self.target))}: cannot be written: {exc.strerror or exc}")

    def __enter__(self) -> IO[Any]:
        return self.fh

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.done()
            return
        self.fail()
        if isinstance(exc, OSError) and exc.errno in WRITE_ERRORS:
            raise self.error(exc) from None


#: What a TSV cell or a terminal line must not show raw (:func:`shown`): the control characters
#: and line separators, which break a TSV row or move a terminal's cursor, and the characters
#: that change how the text around them reads without being seen (bidirectional controls,
#: zero-width characters, the byte-order mark), as the review page shows them.
_UNSEEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]"
)
_UNSEEN_BUT_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]"
)


def shown(text: str, lines: bool = False) -> str:
    """``text`` with each control or invisible character as its code point, ``[U+202E]``, as
    the review page shows them; with ``lines``, tabs and line feeds are kept (a summary's own
    layout). For what is printed on a terminal, and the names in messages."""
    if text.isprintable() and text.isascii():
        return text
    pattern = _UNSEEN_BUT_LINES if lines else _UNSEEN
    return pattern.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def _cell(text: str) -> str:
    """``text`` fit for a TSV cell: the characters no id or source may hold (:func:`check_id`,
    :func:`check_source`) as their code points, ``[U+0009]``. Checked data has none, so this
    changes only what an index made before the checks may hold; nothing an id may hold is
    changed, so the file reads back as the ids it was written from."""
    if text.isprintable():
        return text
    return _BAD_ID_CHAR.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def check_source(source: str) -> str | None:
    """Why ``source`` (a record's source: a file's name, or a source column's value) cannot be
    one, if it cannot: a control character, a line separator or a bidirectional control, which
    would break the TSV outputs that name sources, or make one source read as another."""
    return _bad_character(source, "source")


# -- Parquet and Arrow files (pyarrow, imported only when one is read) ---------------------------

#: Rows converted to Python objects at a time.
ARROW_CHUNK = 10_000
DATA_EXTRA = "pip install 'neardup[data]'"


def _pyarrow(what: str) -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        raise InputError(f"{what} needs pyarrow: {DATA_EXTRA}") from None
    return pa


def _open(path: Path, fmt: str) -> Any:
    """A reader with ``schema`` and ``batches()``, for a Parquet or Arrow (IPC, Feather 2) file."""
    pa = _pyarrow(f"reading {fmt} files ({path})")
    if _is_stream(path):
        raise InputError(
            f"{path}: a {fmt} file is read from a file, not a pipe (its columns are found from "
            "its end): save it to a file first"
        )
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return _Parquet(pq.ParquetFile(path), path)
        source = pa.memory_map(str(path))
        try:
            return _Ipc(pa.ipc.open_file(source), path)
        except pa.ArrowInvalid:
            return _Ipc(pa.ipc.open_stream(pa.memory_map(str(path))), path)
    except (OSError, ValueError) as exc:  # pyarrow's errors are both
        raise InputError(f"{path}: not a readable {fmt} file: {exc}") from None


class _Parquet:
    """A Parquet file's batches, a row group at a time: a corrupt page is an error that names
    the file and its row group (pyarrow raises an ``OSError`` that names neither)."""

    def __init__(self, file: Any, path: Path) -> None:
        self.file, self.path = file, path
        self.schema = file.schema_arrow

    def batches(self, columns: list[str] | None) -> Iterator[Any]:
        groups = self.file.num_row_groups
        for group in range(groups):
            try:
                yield from self.file.iter_batches(
                    batch_size=ARROW_CHUNK, columns=columns, row_groups=[group]
                )
            except (OSError, ValueError) as exc:  # pyarrow's errors are both
                raise InputError(
                    f"{self.path}: row group {group + 1} of {groups} cannot be read (a corrupt "
                    f"page?): {' '.join(str(exc).split())}"
                ) from None


class _Ipc:
    def __init__(self, reader: Any, path: Path) -> None:
        self.reader, self.path = reader, path
        self.schema = reader.schema

    def batches(self, columns: list[str] | None) -> Iterator[Any]:
        if hasattr(self.reader, "num_record_batches"):
            got = (self.reader.get_batch(i) for i in range(self.reader.num_record_batches))
        else:
            got = iter(self.reader)
        number = 0
        try:
            for number, batch in enumerate(got, start=1):  # noqa: B007 - named in the error
                yield batch if columns is None else batch.select(columns)
        except (OSError, ValueError) as exc:
            raise InputError(
                f"{self.path}: record batch {number + 1} cannot be read: "
                f"{' '.join(str(exc).split())}"
            ) from None


def arrow_columns(path: Path, fmt: str) -> list[str]:
    """The top-level columns of a Parquet or Arrow file."""
    return list(_open(path, fmt).schema.names)


def _text_columns(schema: Any, id_field: str, source_field: str | None) -> list[str]:
    """The default text of a columnar file: what :func:`default_text_fields` picks among its
    columns of text and numbers (a struct or a list is not text: name its fields by path)."""
    import pyarrow.types as t

    names = [
        f.name
        for f in schema
        if t.is_string(f.type) or t.is_large_string(f.type) or t.is_integer(f.type)
        or t.is_floating(f.type) or t.is_decimal(f.type)
    ]  # fmt: skip
    return default_text_fields(names, id_field, source_field)


def read_arrow(
    path: Path,
    fmt: str,
    id_field: str,
    text_fields: Sequence[str] | None,
    source_field: str | None = None,
) -> Iterator[Item]:
    """The rows of a Parquet or Arrow file as records (numbered from 1), read a chunk at a
    time and only the columns they need."""
    reader = _open(path, fmt)
    names = list(reader.schema.names)
    twice = next((n for k, n in enumerate(names) if n in names[:k]), None)
    if twice is not None:
        raise InputError(
            f"{path}: the column {twice!r} is named twice (columns {names.index(twice) + 1} and "
            f"{names.index(twice, names.index(twice) + 1) + 1}): one would be lost; rename one"
        )
    fields = (
        list(text_fields) if text_fields else _text_columns(reader.schema, id_field, source_field)
    )
    kinds = {  # a file with no column of text: what the others hold, for the message
        f.name: str(f.type) for f in reader.schema if f.name not in (id_field, source_field)
    } if not fields else {}  # fmt: skip
    wanted = [f for f in (id_field, *fields, source_field) if f and f != ROW_ID]
    missing = [f for f in wanted if f not in names and f.split(".")[0] not in names]
    if missing:
        raise MissingColumn(
            f"{path}: the file has no column {', '.join(map(repr, missing))} "
            f"(columns: {', '.join(names)}): name the id and text columns it has"
        )
    columns = [n for n in names if n in wanted or n in {f.split(".")[0] for f in wanted}]
    number = 0
    for batch in reader.batches(columns):
        for row in batch.to_pylist():
            number += 1
            yield _record_from_mapping(
                _no_nan(row), str(path), number, id_field, fields, source_field, kinds
            )


def _no_nan(row: dict[str, Any]) -> dict[str, Any]:
    """A row with its float NaNs (pandas' missing values) as None: missing, not the text nan."""
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
