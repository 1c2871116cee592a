"""The records of a file, in whatever format: ``ID TEXT`` lines, TSV, CSV, JSON Lines,
Parquet, Arrow (:func:`read_records`).

A reader never drops a line silently: every line that is not a record comes out as a
:class:`~neardup.read.items.Rejection` that names the file, the line and the reason. A file is
refused as a whole, by name, when it cannot be read as text: its lines end with ``\\r`` alone, it
is UTF-16 or gzip-compressed, or a spreadsheet.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import ArgumentError, InputError
from .arrow import arrow_columns, read_arrow
from .checks import MAX_RECORD_BYTES, Checked, checked_spans
from .folder import FOLDER, folder_files, read_folder
from .inputs import SNIFF_BYTES, first_bytes, is_stream, no_file
from .items import Item, Record, Rejection
from .jsonl import decode_json, read_jsonl
from .lines import WINDOWS_1252, decoded_lines, read_lines
from .rows import ROW_ID, id_column, id_like
from .sniff import (
    excel_sep,
    quoting,
    refuse_unread_table,
    sniff_table,
    table_delimiter,
    without_sep_line,
)
from .tables import read_table, unreadable_header

FORMATS = ("lines", "tsv", "csv", "jsonl", "parquet", "arrow", FOLDER)
#: Formats read with pyarrow (the ``data`` extra): a row number stands for a line number.
ARROW_FORMATS = ("parquet", "arrow")
#: Bytes read at the start of a file to tell CR-only line endings: a CR and no LF in them.
CR_PEEK = 1 << 16
#: The first bytes of a gzip file, and the byte-order marks of UTF-32 and UTF-16 (UTF-32 first:
#: its little-endian mark starts with UTF-16's). Such a file is refused by name
#: (:func:`refuse_encoding`) rather than rejected line by line as NUL bytes or invalid UTF-8.
GZIP_MAGIC = b"\x1f\x8b"
#: The first bytes of the other compressed files a catalogue comes in, and the tool that opens
#: them: refused by name, as gzip is.
COMPRESSED = (
    (re.compile(rb"BZh[1-9]1AY&SY"), "bzip2", "bzip2"),  # a block's magic after the header
    (re.compile(rb"\xfd7zXZ\x00"), "xz", "xz"),
    (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd", "zstd"),
)
WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"),
)  # fmt: skip


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
#: Formats of records over several lines each (bibliographies), by their extension: read as
#: lines, each line would be a record, and a line of one entry removed as a copy of another's.
MULTILINE = {
    ".bib": "BibTeX", ".bibtex": "BibTeX", ".ris": "RIS", ".enw": "EndNote (tagged)",
    ".nbib": "MEDLINE (PubMed)", ".medline": "MEDLINE (PubMed)", ".ciw": "Web of Science",
}  # fmt: skip
#: The same formats by their first line (past blank lines and, in BibTeX, ``%`` comments).
MULTILINE_HEADS = (
    (re.compile(r"@[A-Za-z]+\s*[{(]"), "BibTeX"),
    (re.compile(r"TY {2}- "), "RIS"),
    (re.compile(r"%0 [A-Z]"), "EndNote (tagged)"),
    (re.compile(r"PMID- "), "MEDLINE (PubMed)"),
)
#: The first bytes of a ZIP archive (xlsx, ods) and of an OLE2 compound file (xls).
ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: The first bytes of the columnar files neardup reads (a Parquet file, an Arrow IPC file):
#: under another extension, such a file is refused with the format to give, rather than read
#: as lines of binary and every line rejected.
COLUMNAR_MAGIC = ((b"PAR1", "parquet", "a Parquet file"), (b"ARROW1", "arrow", "an Arrow file"))


def guess_format(path: Path, delimiter: str | None = None) -> str:
    """A file's format: the one its extension names (:data:`EXTENSIONS`); else ``csv`` when a
    delimiter is given, or when its first lines are a table whose header names an ``id``
    column (:meth:`TableLayout.names_ids`); else ``lines``."""
    fmt = EXTENSIONS.get(path.suffix.lower())
    if fmt == "jsonl" and (path.is_file() or is_stream(path)):  # an array named .jsonl
        _json_document(path, named_json=False)
    if fmt is not None:
        return fmt
    if path.suffix.lower() == ".json":
        _json_document(path, named_json=True)
        return "jsonl"
    if delimiter is None and (path.is_file() or is_stream(path)):
        if _json_document(path, named_json=False) is not None:
            return "jsonl"  # one JSON object a line, under another name
    if delimiter is not None:
        return "csv"
    layout = sniff_table(path)
    return "csv" if layout is not None and layout.names_ids() else "lines"


#: The start of a JSON array of objects, arrays or strings (``[{``, ``[\n  {``).
_JSON_ARRAY = re.compile(rb"\[\s*[\[{\"\]]")


def _json_document(path: Path, named_json: bool) -> dict[str, Any] | None:
    """The object on the first line of a file that starts as JSON Lines (None: it does not).
    One JSON array, a document over several lines, and (``named_json``: a ``.json`` file)
    records held in one list of an object are refused with how to convert them: read as
    lines, each line would be one record of JSON syntax (a whole array one record, its
    duplicates never compared). A ``.json`` file is JSON for sure: any ``[`` starts an array
    and a first line that is not a whole object a document; under another name, only what
    cannot be anything else is (``[{``, a ``{`` alone, a ``{"key":`` left open)."""
    head = first_bytes(path, SNIFF_BYTES).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"[") if named_json else _JSON_ARRAY.match(head):
        raise InputError(f"{path} is one JSON array, not JSON Lines: convert it to JSON Lines, "
                         f"one object a line: jq -c '.[]' {path} > new.jsonl")  # fmt: skip
    first = head.split(b"\n", 1)[0].strip()
    if not first.startswith(b"{"):
        return None
    try:
        obj = decode_json(first.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        obj = None
    held = list(obj.values()) if isinstance(obj, dict) else []
    if named_json and len(held) == 1 and isinstance(held[0], list) and held[0] \
            and all(isinstance(v, dict) for v in held[0]):  # fmt: skip
        (key,) = obj  # type: ignore[union-attr]
        raise InputError(
            f"{path} holds its records in one list under {key!r}, not one object a line: "
            f"convert it, e.g. jq -c '.[{json.dumps(key)}][]' {path} > new.jsonl"
        )
    left_open = first == b"{" or (first.startswith(b'{"') and not first.endswith(b"}"))
    if left_open or (named_json and not isinstance(obj, dict)):
        raise InputError(
            f"{path} holds a JSON document over several lines, not JSON Lines (one object a "
            f"line): convert it, e.g. jq -c '.records[]' {path} > new.jsonl"
        )
    if not named_json and not first.startswith(b'{"'):
        return None  # ("{a} b": an ID TEXT line whose id has braces)
    return obj if isinstance(obj, dict) else None


def read_records(
    path: str | Path,
    fmt: str = "auto",
    id_field: str | None = "id",
    text_fields: Sequence[str] | None = None,
    *,
    max_record_bytes: int | None = MAX_RECORD_BYTES,
    source_field: str | None = None,
    delimiter: str | None = None,
) -> FileItems:
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
    path, fmt = checked_file(path, fmt, delimiter, refuse_tables=fmt == "auto")
    limit = _checked_limit(max_record_bytes)
    id_field = resolve_id_field(path, fmt, id_field, delimiter)
    named = (id_field, *(text_fields or ()))
    if source_field is not None and source_field in named:
        what = "id" if source_field == id_field else "text"
        raise InputError(f"{path}: the source column {source_field!r} is also the {what} column: "
                         "name the source column (--source-field) apart from the id and text "
                         "columns (--id-field, --text-field)")  # fmt: skip
    spans = _iter_spans(path, fmt, id_field, text_fields, limit, source_field, delimiter)
    return FileItems((item for item, _last in spans), path, fmt)


class FileItems(Checked):
    """A file's items, with its line count as their length hint (:func:`expected_records`,
    counted when first asked): a new index chooses its parameters for the size it is about to
    receive (``NearDupIndex().add_many(read_records(path))``)."""

    def __init__(self, items: Iterator[Item], path: Path, fmt: str) -> None:
        super().__init__(items)
        self.path, self._fmt = path, fmt

    def __length_hint__(self) -> int:
        lines = expected_records(self.path, self._fmt)
        return NotImplemented if lines is None else lines

    def through(self, tap: Callable[[Iterable[Item]], Iterator[Item]]) -> FileItems:
        """The same items, passed through ``tap`` as they are read (e.g.
        :meth:`neardup.read.unchanged.FirstRead.over`)."""
        return FileItems(tap(self), self.path, self._fmt)

    def named(self, source: str) -> FileItems:
        """The same items, the records named by the file (no source column) of the source
        ``source``: the one name an index knows the file by, however its path was typed (a
        message still names the file as typed)."""
        typed = str(self.path)
        if source == typed:
            return self
        renamed = (
            dataclasses.replace(item, source=source, file=typed)
            if isinstance(item, Record) and not item.file and item.source == typed
            else item
            for item in self
        )
        return FileItems(renamed, self.path, self._fmt)


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
    path, fmt = checked_file(path, fmt, delimiter, refuse_tables=fmt == "auto")
    limit = _checked_limit(max_record_bytes)
    id_field = resolve_id_field(path, fmt, id_field, delimiter)
    return _iter_spans(path, fmt, id_field, text_fields, limit, source_field, delimiter)


def checked_file(
    path: str | Path, fmt: str, delimiter: str | None = None, refuse_tables: bool = False
) -> tuple[Path, str]:
    """The file and its format (``auto``: :func:`guess_format`; ``lines`` with a delimiter is
    a table), or an error that says why it cannot be read: no such file, a spreadsheet, CR
    line endings; with ``refuse_tables``, a file read as lines that looks like a table
    (:func:`refuse_unread_table`)."""
    path = Path(path)
    if fmt != "auto" and fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if path.is_dir() and fmt in ("auto", FOLDER):
        if delimiter is not None:
            raise InputError(f"{path}: a folder's documents are whole files, not tables: a "
                             "delimiter separates a table's columns")  # fmt: skip
        return path, FOLDER  # a folder of documents, each file a record (neardup.read.folder)
    if path.is_dir():
        raise InputError(f"{path}: a folder, read as documents (each file a record), not as "
                         f"{fmt}: give no format, or the format 'folder'")  # fmt: skip
    if not path.exists():
        raise InputError(no_file(path))
    if fmt == FOLDER:
        raise InputError(f"{path}: not a folder (the folder format reads a folder's files as "
                         "documents)")  # fmt: skip
    head = first_bytes(path, CR_PEEK)  # a pipe's first bytes are kept to be read again
    refuse_spreadsheet(path, head)
    if (EXTENSIONS.get(path.suffix.lower()) if fmt == "auto" else fmt) not in ARROW_FORMATS:
        _refuse_columnar(path, head)
        refuse_encoding(path, head)  # (Parquet and Arrow files are binary)
    if b"\r" in head.rstrip(b"\r") and b"\n" not in head:
        raise InputError(
            f"{path}: its lines end with a carriage return alone (CR, old Mac OS), which would "
            "make the whole file one line: convert them to LF first (tr '\\r' '\\n')"
        )
    if fmt == "auto":
        fmt = guess_format(path, delimiter)
        if fmt == "lines":
            refuse_multiline(path, head)
        if fmt == "lines" and refuse_tables:
            refuse_unread_table(path)
    elif fmt == "lines" and delimiter is not None:
        fmt = "csv"  # a separator of columns is given: the file is a table
    return path, fmt


def refuse_spreadsheet(path: Path, head: bytes) -> None:
    """A spreadsheet (by its extension, or a ZIP or OLE2 file by its first bytes) is refused by
    name: read as text, its bytes would be rejected line by line (NUL bytes, invalid UTF-8),
    or (a pairs file, :mod:`neardup.read.pair_files`) read as Windows-1252 into pairs of ids."""
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


def refuse_multiline(path: Path, head: bytes) -> None:
    """A file of records over several lines each (BibTeX, RIS, EndNote, MEDLINE: by its
    extension, :data:`MULTILINE`, or its first line, :data:`MULTILINE_HEADS`) is refused when
    it would be read as lines (no format given): each line would be a record, its first word
    the id, and a line of one entry removed as a copy of another entry's line (``journal =
    {Nature}``), which corrupts the file ``dedupe`` writes."""
    kind = MULTILINE.get(path.suffix.lower())
    if kind is None:
        lines = head.decode("utf-8", "replace").lstrip("\ufeff").splitlines()
        first = next((s for s in lines if s.strip() and not s.startswith("% ")), "")
        kind = next((k for pattern, k in MULTILINE_HEADS if pattern.match(first)), None)
    if kind is None:
        return
    tip = (f" (e.g. pandoc -f bibtex -t csljson {path} | jq -c '.[]' > refs.jsonl)"
           if kind == "BibTeX" else " (a reference manager exports CSV)")  # fmt: skip
    raise InputError(
        f"{path} is {kind}, a record over several lines, which neardup does not read: as "
        "lines, each line would be a record (and a line of one entry removed as a copy of "
        f"another's): convert it to CSV or JSON Lines, one record a line{tip}, and give that file"
    )


def _refuse_columnar(path: Path, head: bytes) -> None:
    """A Parquet or Arrow file to be read as text (another extension, or another format
    given) is refused with the format to read it with: as text, every line of it would be
    rejected for NUL bytes or invalid UTF-8."""
    for magic, fmt, kind in COLUMNAR_MAGIC:
        if head.startswith(magic):
            raise InputError(
                f"{path} is {kind}, not text: read it as one (--format {fmt}, or name it .{fmt})"
            )


def refuse_encoding(path: Path, head: bytes, records: bool = True, pipe: bool = True) -> None:
    """A file neardup cannot read as text, refused by name rather than line by line (every
    line a NUL byte or invalid UTF-8), the records' files and the pairs files alike
    (:mod:`neardup.read.pair_files`): gzip-compressed (its magic bytes), or UTF-16 or UTF-32
    (a byte-order mark, or, without one, a NUL byte in every other byte: ASCII text in UTF-16).

    Not read transparently: a compressed file could not be written back as it was by
    ``dedupe``, its line count (:func:`expected_records`) would be its compressed bytes', and
    ``zcat FILE | neardup index /dev/stdin`` reads it as it is, once (said of ``records``'
    files only: a pairs file is not indexed; and not where the verb reads no pipe, ``pipe``
    False: ``dedupe`` reads its input twice)."""
    said = records and pipe
    if head.startswith(GZIP_MAGIC):
        hint = f" (or zcat {path} | neardup index /dev/stdin --format ...)" if said else ""
        raise InputError(f"{path} is gzip-compressed: gunzip it first{hint}")
    for magic, name, tool in COMPRESSED:
        if magic.match(head):
            hint = f" (or {tool} -dc {path} | neardup index /dev/stdin --format ...)" \
                if said else ""  # fmt: skip
            raise InputError(f"{path} is {name}-compressed: {tool} -d it first{hint}")
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
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".csv", delete=False) as fh:
    ...     _ = fh.write(b"id,text\n1,a\n2,b\n")
    >>> expected_records(fh.name), os.unlink(fh.name)
    (2, None)
    """
    file, fmt = checked_file(path, fmt)
    if fmt == FOLDER:
        return len(folder_files(file))
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
    lines += last != b"\n"
    # a table's first line is its header: 300,000 rows were "300,001 records expected", past a
    # size the parameters are chosen by
    return max(0, lines - 1) if fmt in ("csv", "tsv") else lines


def _checked_limit(max_record_bytes: int | None) -> int | None:
    if max_record_bytes is None:
        return None
    if isinstance(max_record_bytes, bool) or not isinstance(max_record_bytes, int):
        raise ArgumentError(f"max_record_bytes must be an integer, got {max_record_bytes!r}")
    if max_record_bytes < 1:
        raise ArgumentError(f"max_record_bytes must be >= 1, got {max_record_bytes}")
    # a bound no file can reach is no bound: the readers' sizes are C integers (readline, the
    # csv module's field limit), which 10**20 overflowed
    return None if max_record_bytes >= 2**62 else max_record_bytes


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
    if fmt == FOLDER:
        if text_fields or source_field is not None or id_field not in ("id", ROW_ID):
            given = "a text field" if text_fields else (
                "a source field" if source_field is not None else f"an id field ({id_field})")
            raise ArgumentError(
                f"{source}: a folder's records are its files, each one's whole text, its path "
                f"the id: {given} names a column, which a folder has none of"
            )  # fmt: skip
        for item, last in checked_spans(read_folder(path, limit), source, limit):
            if isinstance(item, Rejection):
                item = dataclasses.replace(item, in_folder=True)  # named by its file
            yield item, last
        return
    lines = decoded_lines(path, limit)
    if source_field is not None and (fmt == "lines" or not source_field.strip()):
        raise InputError(
            f"{source}: a source field names a column of a table or a key of JSON lines"
            + (f", not of the {fmt!r} format" if fmt == "lines" else "")
        )
    if fmt in ARROW_FORMATS:
        read = read_arrow(path, fmt, id_field, text_fields, source_field)
        spans = ((item, item.line) for item in read)
    elif fmt == "lines":
        spans = read_lines(lines, source, id_field == ROW_ID)
    elif fmt == "jsonl":
        read = read_jsonl(lines, source, id_field, text_fields, source_field)
        spans = ((item, item.line) for item in read)
    else:
        delimiter = table_delimiter(path, fmt, delimiter, id_field)
        spans = read_table(lines, source, delimiter, id_field, text_fields, limit, source_field)
    yield from checked_spans(spans, source, limit)


def resolve_id_field(
    path: Path, fmt: str, id_field: str | None, delimiter: str | None = None
) -> str:
    """The id field to read ``path`` with: ``id_field``, or for None the one
    :func:`choose_id_field` chooses: ``id`` when the file has such a column or key (the first
    row or object says), else its one column named as an id whose values are unique in the
    rows read first, else :data:`ROW_ID`."""
    if id_field is not None:
        if not id_field.strip():
            raise ArgumentError("the id field needs a name (or @row for line numbers)")
        return id_field
    return choose_id_field(path, fmt, delimiter).field


#: How many of a file's first rows a column named as an id must hold no value twice in to be
#: the ids (:func:`choose_id_field`); of a table or JSON Lines, at most those of its first
#: :data:`~neardup.read.inputs.SNIFF_BYTES`.
ID_SAMPLE_ROWS = 10_000


@dataclasses.dataclass(frozen=True)
class IdChoice:
    """The id field chosen for a file no id field was named for (:func:`choose_id_field`)."""

    #: The column or key, or :data:`ROW_ID`.
    field: str
    #: Without an ``id`` column, the columns whose names read as ids (:func:`id_like`).
    candidates: tuple[str, ...] = ()
    #: Of a sole candidate not chosen, a value it holds twice (or an empty one: ``""``).
    repeated: str | None = None
    #: The rows its values were read in.
    rows: int = 0


def choose_id_field(path: Path, fmt: str, delimiter: str | None = None) -> IdChoice:
    """The id field of a file when none is named: ``id`` (or the one column named ``id`` in
    other letters, :func:`id_column`); else, of the columns whose names read as ids
    (:func:`id_like`: ``customer_id``, ``CustomerID``, ``product id``), the only one, if its
    values in the first rows (:data:`ID_SAMPLE_ROWS`) are all there and none twice; else line
    numbers (:data:`ROW_ID`), the candidates named (several: which is the id is ambiguous).
    Why: ``customer_id,name,city`` compared its ids as text, the numbers check dropped every
    true duplicate for their different ids, and the clusters were named by line numbers."""
    if fmt in ("lines", FOLDER):
        return IdChoice("id")
    columns = first_columns(path, fmt, delimiter)
    found = id_column(columns)
    if found is not None:
        return IdChoice(found)
    candidates = tuple(c for c in columns if id_like(c))
    if len(candidates) != 1:
        return IdChoice(ROW_ID, candidates)
    values = _first_values(path, fmt, delimiter, candidates[0])
    seen: set[str] = set()
    for value in values:
        if not value or value in seen:
            return IdChoice(ROW_ID, candidates, value, len(values))
        seen.add(value)
    return IdChoice(candidates[0] if values else ROW_ID, candidates, None, len(values))


def _first_values(path: Path, fmt: str, delimiter: str | None, column: str) -> list[str]:
    """The values of ``column`` in the first rows of a file (at most :data:`ID_SAMPLE_ROWS`),
    stripped; a row without it gives ``""``."""
    if fmt in ARROW_FORMATS:
        from .arrow import column_head  # (pyarrow, only for these formats)

        return [("" if v is None else str(v).strip()) for v in
                column_head(path, fmt, column, ID_SAMPLE_ROWS)]  # fmt: skip
    head = first_bytes(path, SNIFF_BYTES)
    if len(head) == SNIFF_BYTES and b"\n" in head:
        head = head[: head.rindex(b"\n") + 1]  # no row cut in two
    text = without_sep_line(head.decode("utf-8", WINDOWS_1252).replace("\ufeff", ""))[0]
    values: list[str] = []
    if fmt == "jsonl":
        for line in text.splitlines():
            try:
                obj = decode_json(line) if line.strip() else None
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict):
                value = obj.get(column)
                values.append("" if value is None else str(value).strip())
    else:
        delimiter = table_delimiter(path, fmt, delimiter)
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                            quoting=quoting(delimiter))  # fmt: skip
        rows = (row for row in reader if any(cell.strip() for cell in row))
        try:
            header = [cell.strip() for cell in next(rows, [])]
            at = header.index(column)
            values = [(row[at].strip() if len(row) > at else "") for row in rows]
        except (csv.Error, ValueError):
            return values
    return values[:ID_SAMPLE_ROWS]


def first_columns(path: Path, fmt: str, delimiter: str | None = None) -> list[str]:
    """The columns of a table's header, the keys of the first JSON object (lines that are not
    one are passed over), or the columns of a Parquet or Arrow file (empty when there are none,
    or the header cannot be read)."""
    if fmt in ARROW_FORMATS:
        return arrow_columns(path, fmt)
    if fmt == FOLDER:
        return []
    for number, text, problem in decoded_lines(path, MAX_RECORD_BYTES, head_only=True):
        if text is None and fmt in ("csv", "tsv"):
            raise InputError(unreadable_header(str(path), number, problem or "unreadable"))
        if text is None or not text.strip():
            continue
        if number == 1 and fmt != "jsonl" and excel_sep(text) is not None:
            continue  # Excel's "sep=;", not the header
        if fmt == "jsonl":
            try:
                obj = decode_json(text)
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
