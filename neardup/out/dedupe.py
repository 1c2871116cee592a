"""The dataset without its near-duplicates, or with a cluster id on every record.

What users take away from a run is their own data, not pairs of ids: :func:`dedupe` writes the
input again, in its own format, with every cluster but one record removed (or, with
``cluster_column``, every record with the id of its cluster and its similarity to the record the
cluster keeps). It streams: in memory it holds the ``id -> cluster`` mapping of the records that
are in a cluster and, per cluster, the id of the record it keeps (in ``cluster_column`` mode,
where the pairs do not link every member to every other, also that record's text, to measure
the others against it); never the records themselves. The input is read again to be written,
so a file larger than memory is fine; given what the read that indexed it saw (``first_read``),
every read checks the file is still that one (:mod:`neardup.read.unchanged`).

Rules, in the order the code applies them:

- **Which record a cluster keeps** (``keep``): ``first`` seen in the file (the default),
  ``last``, ``longest`` or ``shortest`` text (characters of the text fields; ties go to the
  first seen), or ``central``: the highest summed similarity over the cluster's pairs (its
  medoid; ties to the first seen). A member of a cluster that is not in the input (an index
  that holds more than this file) is never chosen.
- **What is written**: kept records as they were written, byte for byte (a table's header
  too, a byte-order mark and ``\\r\\n`` endings included); in ``cluster_column`` mode every
  record, with two columns added (CSV, TSV), two keys added (JSONL), or, since ``ID TEXT`` lines
  have no columns, as TSV ``id, <cluster>, <similarity>, text`` (a tab inside a text becomes a
  space). The cluster id is the id of the record the cluster keeps; a record in no cluster is its
  own cluster (similarity 1.0).
- **Identical rows** (a record with the id and the text of an earlier one:
  :attr:`neardup.read.items.Record.copy_of`) are duplicates like any other: removed (counted in
  ``removed`` and ``identical``), or with ``cluster_column``, written with their cluster's id
  and similarity 1.0 to their first line.
- **Records with an empty text** cannot be compared: they are written as they are (counted in
  ``kept`` and ``empty``, the first 1,000 in ``empties``; their own cluster, similarity empty).
- **Rows that are not records** (invalid UTF-8, a malformed row, no id, an id seen before in
  the file with another text, a record over ``max_record_bytes``: what the readers of
  :mod:`neardup.read` reject) are never lost: a deduplicated file that silently lacks the rows
  it could not read would pass for the whole data. Each is counted in ``rejected`` and kept in
  ``rejections`` (the first 1,000), and its lines are written byte for byte as they are in the
  input: by default into the output, in their place (with ``cluster_column``: with the two
  columns added, empty, a row with cells more than the header's with its extra cells after
  them, never under them; a JSON object with the two keys, null; an ``ID TEXT`` line as a TSV
  row whose cluster and similarity are empty; a line that is not a JSON object as it is), or,
  with ``rejects``, into that file instead (after the table's header, so that it reads as the
  input does, to be mended and given again). Blank lines are dropped and counted in ``blank``.
  Records the index could not store (no words after normalization) duplicate nothing, so they
  are written.
  The counts add up: ``read == kept + removed + rejected`` and ``lines == read + blank`` (+ the
  header of a table).
- **Parquet and Arrow** inputs are written again in their own format, schema and values as they
  were: the rows kept and the rows rejected, or with ``cluster_column`` every row with two
  columns added (the cluster id as a string, the similarity as a float; null for a row
  rejected); with ``rejects``, the rows rejected go to that file, in the same format. Such a
  file is read whole to be written (columnar files are written a table at a time), not
  streamed.
- The output appears whole or not at all, and so does the rejects file, together with it: each
  is written to a temporary file beside it and both are renamed at the end
  (:class:`neardup.out.write.Outputs`; a device or a FIFO is written through, never replaced); a
  file replaced keeps its permission bits. The output and the rejects file must be two files.
"""

from __future__ import annotations

import csv
import io as _io
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tqdm import tqdm

from ..candidates.verify import verified_jaccard
from ..errors import ArgumentError, InputError
from ..keys import record_id, source_of_key
from ..read.checks import BAD_ID_CHAR, MAX_RECORD_BYTES
from ..read.inputs import raw_lines
from ..read.items import Blank, EmptyText, Record, Rejection
from ..read.lines import WINDOWS_1252
from ..read.records import ARROW_FORMATS, guess_format, read_spans
from ..read.sniff import quoting, table_delimiter, without_sep_line
from ..read.unchanged import FirstRead, changed, read_again
from ..results import Pair
from .write import (
    AtomicFile,
    Outputs,
    check_output,
    check_output_extension,
    distinct_outputs,
    format_name,
    table_writer,
)

if TYPE_CHECKING:
    from ..index import NearDupIndex

KEEP_RULES = ("first", "last", "longest", "shortest", "central")
#: Rejections kept in full in :class:`DedupeStats` (every row rejected is written, to the output
#: or to the ``rejects`` file).
KEEP_REJECTIONS = 1000
BOM = b"\xef\xbb\xbf"
#: The similarity written for a record kept (to itself).
SAME = "1.0000"

Similarity = Callable[[str, str], "float | None"]


@dataclass
class DedupeStats:
    """What a dedupe did. ``read == kept + removed + rejected``; ``removed`` counts the records
    that are duplicates of a kept one (in ``cluster_column`` mode they are written too, with
    their cluster id: ``written == kept + removed`` there, ``written == kept`` otherwise), and
    ``written`` counts the rows rejected too when they go to the output (``rejects`` None)."""

    lines: int = 0
    read: int = 0
    kept: int = 0
    removed: int = 0
    rejected: int = 0
    blank: int = 0
    written: int = 0
    clusters: int = 0
    clustered: int = 0
    keep: str = "first"
    seconds: float = 0.0
    rejections: list[Rejection] = field(default_factory=list)
    #: Records with an empty text (written as they are, never compared): a subset of ``kept``.
    empty: int = 0
    empties: list[EmptyText] = field(default_factory=list)
    #: Identical rows (the id and text of an earlier record): a subset of ``removed``.
    identical: int = 0
    #: Where the rows rejected were written: the rejects file, or None for the output itself.
    rejects: str | None = None
    #: Records removed that the report did not pair with the record kept (only with their
    #: cluster's center, which a rule other than ``central`` may not keep): a subset of
    #: ``removed``, 0 where no pairs were given.
    unpaired: int = 0
    #: Rows shorter than the header read with the columns they leave out empty
    #: (``Record.padded``): a subset of ``read``.
    padded: int = 0

    @property
    def first_rejected(self) -> str | None:
        """``file:line`` of the first row rejected, for a summary to point at."""
        first = self.rejections[0] if self.rejections else None
        return None if first is None else first.place

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "read": self.read,
            "kept": self.kept,
            "removed": self.removed,
            "rejected": self.rejected,
            "blank_lines": self.blank,
            "written": self.written,
            "clusters": self.clusters,
            "clustered": self.clustered,
            "keep": self.keep,
            "seconds": round(self.seconds, 3),
            "rejections": [r.as_dict() for r in self.rejections],
            "empty_texts": self.empty,
            "empties": [r.as_dict() for r in self.empties],
            "identical": self.identical,
            "unpaired": self.unpaired,
            "padded_rows": self.padded,
            "rejected_to": self.rejects if self.rejects is not None else "output",
            "first_rejected": self.first_rejected,
        }


def index_similarity(index: NearDupIndex) -> Similarity:
    """Exact Jaccard of two texts as ``index`` measures its pairs (its own shingles), for the
    members of a cluster that the report did not pair with the record kept."""
    shingles = index.processor.shingle_set

    def similarity(a: str, b: str) -> float | None:
        value = verified_jaccard(shingles(a), shingles(b))
        return None if value is None else round(value, 6)

    return similarity


#: A record as the clusters name it: its id, or with sources (``source_field``), its
#: ``(source, id)``, since the same id may be a record of each source.
Name = Any


def _sourced(member: Any, primary: str | None) -> tuple[str, str]:
    """A cluster member as ``(source, id)``: a pair as it is; a storage key (``id``, or
    ``id<SEP>source`` for a record of a secondary source: :func:`neardup.keys.key_of`) read."""
    if isinstance(member, tuple):
        return (str(member[0]), str(member[1]))
    return (source_of_key(member) or primary or "", record_id(member))


class _Clusters:
    """``name -> cluster number`` for the records in a cluster, and what the report measured.
    ``sourced``: records are named ``(source, id)`` (:data:`Name`), ``primary`` the source of
    the members and pairs that name none."""

    def __init__(
        self,
        groups: Iterable[Sequence[Any]],
        pairs: Iterable[Pair],
        sourced: bool = False,
        primary: str | None = None,
    ) -> None:
        self.of: dict[Name, int] = {}
        self.size: list[int] = []
        for number, group in enumerate(groups):
            self.size.append(len(group))
            if len(group) < 2:
                continue
            for member in group:
                name = _sourced(member, primary) if sourced else member
                if name in self.of:
                    raise ArgumentError(f"id {member!r} is in two clusters")
                self.of[name] = number
        self.similar: dict[frozenset[Name], float] = {}
        self.weight: dict[Name, float] = {}  # summed similarity over the pairs, for "central"
        self.paired = [0] * len(self.size)
        for p in pairs:
            a, b = p.id1, p.id2
            if sourced:
                a, b = (p.source1 or primary or "", a), (p.source2 or primary or "", b)
            if a in self.of and self.of[a] == self.of.get(b):
                key = frozenset((a, b))
                if key not in self.similar:
                    self.paired[self.of[a]] += 1
                self.similar[key] = p.jaccard
                for x in (a, b):
                    self.weight[x] = self.weight.get(x, 0.0) + p.jaccard

    def complete(self, number: int) -> bool:
        """Whether the pairs link every two members of the cluster: then every similarity to
        the record kept is the report's, and its text need not be held to measure them."""
        n = self.size[number]
        return self.paired[number] >= n * (n - 1) // 2


def _rank(
    rule: str, clusters: _Clusters
) -> Callable[[Name, Record, int], tuple[float, ...]]:
    """The key a rule ranks the records of a cluster by: the highest wins; ``ordinal`` (the
    record's position in the file) breaks ties towards the first seen."""
    if rule == "last":
        return lambda name, r, n: (n,)
    if rule == "longest":
        return lambda name, r, n: (len(r.text), -n)
    if rule == "shortest":
        return lambda name, r, n: (-len(r.text), -n)
    if rule == "central":
        return lambda name, r, n: (round(clusters.weight.get(name, 0.0), 9), -n)
    return lambda name, r, n: (-n,)


@dataclass
class _Keeper:
    id: Name  # its name (:data:`Name`): its id, or its (source, id)
    text: str
    rank: tuple[float, ...] = ()
    #: Its id as the file typed it (:attr:`~neardup.read.items.Record.raw_id`).
    raw: str | int | None = None

    @property
    def record_id(self) -> str:
        return str(self.id[1] if isinstance(self.id, tuple) else self.id)

    @property
    def source(self) -> str | None:
        """Its source, where records are named with theirs (a source column)."""
        return str(self.id[0]) if isinstance(self.id, tuple) else None


def _name_of(sourced: bool) -> Callable[[Record], Name]:
    return (lambda r: (r.source, r.id)) if sourced else (lambda r: r.id)


def _keepers(
    items: Iterator[Any],
    clusters: _Clusters,
    rule: str,
    with_text: bool,
    name: Callable[[Record], Name],
) -> dict[int, _Keeper]:
    """The record each cluster keeps, by one pass over the input (rules other than ``first``)."""
    rank = _rank(rule, clusters)
    best: dict[int, _Keeper] = {}
    ordinal = 0
    for item in items:
        if not isinstance(item, Record) or item.copy_of:
            continue
        ordinal += 1
        named = name(item)
        number = clusters.of.get(named)
        if number is None:
            continue
        key = rank(named, item, ordinal)
        held = best.get(number)
        if held is None or key > held.rank:
            text = item.text if with_text and not clusters.complete(number) else ""
            best[number] = _Keeper(named, text, key, item.raw_id)
    return best


def kept_ids(
    items: Iterable[Any],
    clusters: Iterable[Sequence[Any]],
    pairs: Iterable[Pair] = (),
    keep: str = "first",
    *,
    sourced: bool = False,
    primary: str | None = None,
) -> set[Any]:
    """The ids of the records :func:`dedupe` keeps, one a cluster, by its rule ``keep`` over
    ``items`` (the input as dedupe reads it): the review page marks them, by the same code.
    ``sourced`` (the items read with a ``source_field``): ``(source, id)`` pairs instead, the
    members and pairs that name no source being of ``primary``."""
    if keep not in KEEP_RULES:
        raise ArgumentError(f"unknown rule {keep!r} for the record kept: one of {KEEP_RULES}")
    groups = _Clusters(clusters, list(pairs), sourced, primary)
    keepers = _keepers(iter(items), groups, keep, False, _name_of(sourced))
    return {k.id for k in keepers.values()}


class _Output:
    """Writes records in the input's format: copied, or with the cluster columns added."""

    def __init__(
        self,
        fh: IO[bytes],
        fmt: str,
        column: str | None,
        sim_column: str,
        bom: bool,
        id_field: str = "id",
        delimiter: str | None = None,
        source_column: str | None = None,
    ) -> None:
        self.fh = fh
        #: With a source column (``source_field``), the column of the kept record's source:
        #: a cluster id alone named two clusters whose kept records are two sources' ``1``.
        self.source_column = source_column
        self.id_field = id_field
        self.fmt = fmt
        self.column = column
        self.sim_column = sim_column
        #: JSON Lines: whether a cluster id whose kept record's typed id is unknown (a record
        #: without text) is written as a number, as the first record's id is (None until it
        #: is read). Else a cluster id is its kept record's id as that row wrote it.
        self.numeric_ids: bool | None = None
        #: A table's separator as the reader read it (``|``, ``;``...), which the added cells
        #: are written with too.
        self.delimiter = delimiter or ("\t" if fmt == "tsv" else ",")
        self.header_done = False
        #: A table's header as it was written in the input (the rejects file starts with it).
        self.head: list[bytes] = []
        #: The header's columns: a rejected row's cells beyond them are written after the
        #: columns added, not under them.
        self.width: int | None = None
        self.rejects_started = False
        if bom and not (column and fmt == "lines"):
            fh.write(BOM)
        if column and fmt == "lines":
            fh.write(_tsv_row(["id", column, sim_column, "text"]))
            self.header_done = True

    def header(self, lines: list[bytes], where: str) -> None:
        """The lines no record covers: a table's header (written once, with the new columns)."""
        if self.header_done or not lines:
            return
        self.header_done = True
        self.head = lines
        if not self.column:
            self.fh.write(b"".join(lines))
            return
        text = b"".join(lines).decode("utf-8", "replace").removeprefix("\ufeff")
        text = without_sep_line(text)[0].lstrip("\r\n")  # Excel's "sep=;", written back
        row = next(csv.reader([text], delimiter=self.delimiter), [])
        self.width = len(next(csv.reader([text], delimiter=self.delimiter,
                                         quoting=quoting(self.delimiter)), []))  # fmt: skip
        names = {c.strip() for c in row}
        for name in self.added():
            if name in names:
                raise InputError(
                    f"{where}: the input already has a column {name!r}: choose another name "
                    "(--cluster-column, --similarity-column)"
                )
        self._append(lines, self.added())

    def added(self) -> list[str]:
        """The columns added: the cluster's id, its kept record's source (with a source
        column), the similarity."""
        assert self.column is not None
        src = [self.source_column] if self.source_column else []
        return [self.column, *src, self.sim_column]

    def record(
        self, lines: list[bytes], record: Record, cluster: str, sim: str,
        raw: str | int | None = None, source: str | None = None,
    ) -> None:  # fmt: skip
        """A record's lines, with its cluster's id (``raw``: as the file typed the kept
        record's id, so that the column joins with the id column), the kept record's
        ``source`` (with a source column) and similarity added."""
        if not self.column:
            self.fh.write(b"".join(lines))
        elif self.fmt == "lines":
            text = record.text.replace("\t", " ")
            self.fh.write(_tsv_row([record.id, cluster, sim, text]))
        elif self.fmt == "jsonl":
            self._json(lines[0], record, cluster, sim, raw, source)
        else:
            src = [source or ""] if self.source_column else []
            self._append(lines, [raw if isinstance(raw, str) else cluster, *src, sim])

    def rejected(self, lines: list[bytes], side: IO[bytes] | None) -> None:
        """A row the reader rejected, as it is in the input: into the rejects file ``side``
        (after the table's header, once), else into the output in its place (with
        ``column``, with an empty cluster and similarity where the format has room for them)."""
        if side is not None:
            if not self.rejects_started:
                self.rejects_started = True
                side.write(b"".join(self.head))
            side.write(b"".join(lines))
            return
        if not self.column:
            self.fh.write(b"".join(lines))
        elif self.fmt == "lines":  # the output is TSV: id, cluster, similarity, text
            body, ending = _split_ending(b"".join(lines))
            parts = body.split(None, 1)
            record_id = parts[0] if parts else b""
            rest = parts[1].replace(b"\t", b" ") if len(parts) > 1 else b""
            cells = [_unbytes(record_id), "", "", _unbytes(rest)]
            self.fh.write(_tsv_row(cells, (ending or b"\n").decode()))
        elif self.fmt == "jsonl":
            self._json_empty(lines)
        else:
            self._table_empty(lines)

    def _table_empty(self, lines: list[bytes]) -> None:
        """A rejected table row with the added columns empty. A row with cells more than the
        header's gets them after its header's columns, its extra cells after them: appended,
        the stray cell of a row with a field too many sat under the cluster column, and the
        rejected row read as a member of a cluster (csv.DictReader, spreadsheets)."""
        empty = [""] * len(self.added())
        *head, last = lines
        body, ending = _split_ending(last)
        row = b"".join(head) + body
        sep = _encoded(self.delimiter, row)
        cuts = _cuts(row, sep, quoting(self.delimiter) != csv.QUOTE_NONE)
        if self.width is None or len(cuts) < self.width:
            self._append(lines, empty)
            return
        at = cuts[self.width - 1]  # the separator before the first cell past the header's
        self.fh.write(row[:at] + sep * len(empty) + row[at:] + (ending or b"\n"))

    def _json_empty(self, lines: list[bytes]) -> None:
        """A rejected JSON line: an object gets the two keys, null; anything else (not JSON,
        not UTF-8, not an object, or with a key of that name) is written as it is."""
        raw = b"".join(lines)
        body, ending = _split_ending(raw)
        try:
            obj = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            obj = None
        if not isinstance(obj, dict) or any(name in obj for name in self.added()):
            self.fh.write(raw)
            return
        added = ", ".join(f"{json.dumps(name)}: null" for name in self.added())
        self.fh.write(_with_keys(body, added.encode()) + (ending or b"\n"))

    def _append(self, lines: list[bytes], cells: list[str]) -> None:
        """Two cells more at the end of a row (its last line, before the line ending), after
        the header's columns: a row that left out its last empty fields (read with them empty)
        gets them, else its cluster would sit under a column of the records."""
        *head, last = lines
        body, ending = _split_ending(last)
        row = b"".join(head) + body
        sep = _encoded(self.delimiter, row)
        if self.width is not None and row.count(sep) < self.width - 1:  # else none left out
            cuts = _cuts(row, sep, quoting(self.delimiter) != csv.QUOTE_NONE)
            row += sep * max(0, self.width - 1 - len(cuts))
        if self.delimiter == "\t":
            extra = "".join("\t" + c for c in cells)
        else:
            buf = _io.StringIO()
            csv.writer(buf, delimiter=self.delimiter, lineterminator="").writerow(cells)
            extra = self.delimiter + buf.getvalue()
        self.fh.write(row + _encoded(extra, row) + (ending or b"\n"))

    def _json(
        self, line: bytes, record: Record, cluster: str, sim: str, raw: str | int | None = None,
        source: str | None = None,
    ) -> None:
        body, ending = _split_ending(line)
        utf8 = _is_utf8(body)
        # a BOM where files saved by Windows tools were joined (cat): read past, written back
        obj = json.loads(body.removeprefix(BOM).decode("utf-8", WINDOWS_1252))
        for name in self.added():
            if name in obj:
                raise InputError(
                    f"{record.location}:{record.line}: the record already has a key {name!r}: "
                    "choose another name (--cluster-column, --similarity-column)"
                )
        value = json.dumps(float(sim)) if sim else "null"
        cid: str | int = cluster if raw is None else raw  # as the kept record's row typed it
        if self.numeric_ids is None:  # where unknown, one type, read off the first row
            self.numeric_ids = isinstance(obj.get(self.id_field), int)
        if raw is None and self.numeric_ids and cluster.lstrip("-").isdigit():
            cid = int(cluster)  # numeric ids stay numbers, to join on
        # the row as it was, byte for byte; what is added in ASCII where the row is not UTF-8
        # (read as Windows-1252): \u escapes are the same characters in either encoding
        added = f"{json.dumps(self.column)}: {json.dumps(cid, ensure_ascii=not utf8)}, "
        if self.source_column:
            src = json.dumps(source, ensure_ascii=not utf8)
            added += f"{json.dumps(self.source_column)}: {src}, "
        added += f"{json.dumps(self.sim_column)}: {value}"
        self.fh.write(_with_keys(body, added.encode()) + (ending or b"\n"))


def _tsv_row(cells: list[str], end: str = "\n") -> bytes:
    """A row of the TSV that ``ID TEXT`` lines with a cluster column become, quoted as
    report's TSV is (:func:`table_writer`): a text that starts with a quote read back as
    the start of a quoted cell, and the table broke. Bytes that were not UTF-8 go back as
    they were (:func:`_unbytes`)."""
    buf = _io.StringIO()
    table_writer(buf, "tsv", end).writerow(cells)
    return buf.getvalue().encode("utf-8", "surrogateescape")


def _unbytes(data: bytes) -> str:
    """A rejected line's bytes as text that :func:`_tsv_row` writes back byte for byte."""
    return data.decode("utf-8", "surrogateescape")


def _cuts(row: bytes, sep: bytes, quoted: bool) -> list[int]:
    """Where ``row``'s separators are, as the readers' csv module splits its cells: with
    ``quoted``, none inside a quoted cell (opened at a cell's start; ``""`` a quote in it)."""
    cuts: list[int] = []
    token = re.compile(re.escape(sep) + (b'|"' if quoted else b""))
    start = at = 0  # where the current cell starts, where to look from
    while (found := token.search(row, at)) is not None:
        if found.group() == sep:
            cuts.append(found.start())
            start = at = found.end()
        elif found.start() != start:  # a quote inside a cell is text
            at = found.end()
        else:  # a quoted cell: to its closing quote
            at = found.end()
            while (at := row.find(b'"', at)) >= 0 and row[at + 1 : at + 2] == b'"':
                at += 2
            if at < 0:
                return cuts  # never closed: the rest is that cell
            at += 1
    return cuts


def _with_keys(body: bytes, members: bytes) -> bytes:
    """A JSON object's line (it parsed as one) with ``members`` added before its closing
    brace: after a comma where it has keys, alone in an empty object (``{}``, ``{ }``), where
    a comma would make the line invalid JSON."""
    head = body.rstrip()[:-1].rstrip()  # up to the closing brace
    empty = head.removeprefix(BOM).strip() == b"{"
    return head + (b"" if empty else b", ") + members + b"}"


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _encoded(text: str, row: bytes) -> bytes:
    """Cells added to ``row``, in its encoding: UTF-8, or for a row that is not UTF-8 (read
    as Windows-1252, :mod:`neardup.read.lines`) Windows-1252 where the cells can be written
    so (a cluster id is a row's id: read from such a row, it writes back as it was)."""
    if _is_utf8(row):
        return text.encode()
    try:
        return text.encode("cp1252")
    except UnicodeEncodeError:
        return text.encode()


def _split_ending(line: bytes) -> tuple[bytes, bytes]:
    if line.endswith(b"\r\n"):
        return line[:-2], b"\r\n"
    if line.endswith(b"\n"):
        return line[:-1], b"\n"
    return line, b""


def _check_paths(path: Path, out: Path, rejects: Path | None) -> None:
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    check_output(out, "output", [path])
    if rejects is not None:
        check_output(rejects, "rejects file", [path])
        distinct_outputs({"the output": out, "the rejects file": rejects})


@dataclass
class _Job:
    """One dedupe: where from, how it is read, what is written."""

    path: Path
    fmt: str
    id_field: str
    text_fields: tuple[str, ...] | None
    groups: _Clusters
    keepers: dict[int, _Keeper]
    column: str | None
    sim_column: str
    similarity: Similarity | None
    max_record_bytes: int | None
    source_field: str | None = None
    delimiter: str | None = None
    #: What the read that indexed the file saw: every later read must see the same.
    first: FirstRead | None = None

    @property
    def source_column(self) -> str | None:
        """The column of the kept record's source, added with the cluster column where records
        have a source column: a record is its source and its id, and so is a cluster's."""
        return f"{self.column}_source" if self.column and self.source_field else None

    def name(self, record: Record) -> Name:
        """The record as the clusters name it (:data:`Name`)."""
        return (record.source, record.id) if self.source_field is not None else record.id

    def items(self) -> Iterator[Any]:
        return (item for item, _last in self.spans())

    def spans(self) -> Iterator[Any]:
        spans = self._spans()
        return spans if self.first is None else read_again(self.first, spans)

    def _spans(self) -> Iterator[Any]:
        return read_spans(
            self.path,
            self.fmt,
            self.id_field,
            self.text_fields,
            max_record_bytes=self.max_record_bytes,
            source_field=self.source_field,
            delimiter=self.delimiter,
        )

    def check_unchanged(self) -> None:
        """The file as the read that indexed it found it (``first``, where given)."""
        if self.first is not None:
            self.first.check_unchanged()

    def similarity_to(self, record: Record, keeper: _Keeper) -> str:
        """The record's similarity to the one its cluster keeps: the report's if it paired
        them, else measured, else unknown (empty)."""
        sim = self.groups.similar.get(frozenset((self.name(record), keeper.id)))
        if sim is None and self.similarity is not None:
            sim = self.similarity(record.text, keeper.text)
        return "" if sim is None else f"{sim:.4f}"


def check_columns(cluster_column: str | None, similarity_column: str) -> None:
    """The names of the columns ``cluster_column`` mode adds, checked (also by the command,
    before its work: they were found wrong only once the input was indexed and reported)."""
    if cluster_column is not None:
        if not cluster_column.strip() or not similarity_column.strip():
            raise ArgumentError("the cluster and similarity columns need names")
        if cluster_column == similarity_column:
            raise ArgumentError(f"the cluster and similarity columns are both {cluster_column!r}")
        for flag, name in (("--cluster-column", cluster_column),
                           ("--similarity-column", similarity_column)):  # fmt: skip
            if BAD_ID_CHAR.search(name):  # a tab or line break would split the header's row
                raise ArgumentError(f"{flag} {name!r}: a column name without control "
                                    "characters, line breaks or direction marks")  # fmt: skip


def check_output_format(
    out: str | Path | None, fmt: str, cluster_column: str | None, flag: str = "--out"
) -> None:
    """Refuse an output whose extension names another format than the one written: the
    input's (``ID TEXT`` lines with a cluster column: TSV). Why: a ``.parquet`` output of a
    CSV input held CSV text, which every reader of its name then fails on."""
    written = "tsv" if fmt == "lines" and cluster_column else fmt
    why = (f"dedupe writes the input's format, {format_name(written)} (byte for byte, every "
           "column as it was)")  # fmt: skip
    check_output_extension(out, written, flag, why)


def dedupe(
    path: str | Path,
    out: str | Path,
    clusters: Iterable[Sequence[str]],
    *,
    pairs: Iterable[Pair] = (),
    fmt: str = "auto",
    id_field: str = "id",
    text_fields: Sequence[str] | None = None,
    keep: str = "first",
    cluster_column: str | None = None,
    similarity_column: str = "similarity",
    similarity: Similarity | None = None,
    rejects: str | Path | None = None,
    progress: bool = False,
    max_record_bytes: int | None = MAX_RECORD_BYTES,
    source_field: str | None = None,
    delimiter: str | None = None,
    primary: str | None = None,
    first_read: FirstRead | None = None,
) -> DedupeStats:
    """Write ``path`` to ``out`` in its own format without the near-duplicates ``clusters``
    name (groups of ids, e.g. :meth:`NearDupIndex.clusters`), or with ``cluster_column``, every
    record with its cluster id and similarity. See the module's docstring for the rules.

    ``pairs`` (the report's) give the similarities the report measured and the weights of the
    ``central`` rule; ``similarity(text_a, text_b)`` (e.g. :func:`index_similarity`) measures
    the members of a cluster that no pair links to the record kept (left empty without it).
    ``max_record_bytes`` is the readers' limit (:func:`neardup.read.records.read_records`): give the
    one the input was indexed with, so that the same lines are rejected; ``source_field`` too.
    With ``source_field`` a record is its ``(source, id)``, as in the index: ``clusters`` name
    them so (:meth:`NearDupIndex.clusters`) or by storage key, the records of ``primary`` (the
    index's :attr:`~NearDupIndex.primary_source`) by their ids, and ``cluster_column`` is
    joined by ``<cluster_column>_source``, the kept record's source (two sources' ``1`` are
    two clusters).
    ``rejects``: a file for the rows rejected, as they are in the input; without it they are
    written into ``out``, in their place.
    ``first_read``: what the read that indexed ``path`` saw (:class:`FirstRead` over its
    items): a file changed since (edited, appended to) is refused, nothing written.
    """
    started = time.perf_counter()
    path, out = Path(path), Path(out)
    rejects = Path(rejects) if rejects is not None else None
    if keep not in KEEP_RULES:
        raise ArgumentError(f"unknown rule {keep!r} for the record kept: one of {KEEP_RULES}")
    check_columns(cluster_column, similarity_column)
    fmt = guess_format(path) if fmt == "auto" else fmt
    check_output_format(out, fmt, cluster_column)
    check_output_format(rejects, fmt, None, "--rejects")
    _check_paths(path, out, rejects)
    pairs = list(pairs)
    groups = _Clusters(clusters, pairs, source_field is not None, primary)
    if keep == "central" and groups.of and not pairs:
        raise ArgumentError("keep='central' ranks by the report's pairs: pass pairs")
    job = _Job(path, fmt, id_field, tuple(text_fields) if text_fields is not None else None,
               groups, {}, cluster_column, similarity_column, similarity, max_record_bytes,
               source_field, delimiter, first_read)  # fmt: skip
    if keep != "first":
        job.keepers = _keepers(
            job.items(), job.groups, keep, cluster_column is not None, job.name
        )
    stats = DedupeStats(keep=keep, rejects=str(rejects) if rejects is not None else None)
    # both files or neither: the rejects are the rows the output lacks
    with (
        Outputs(),
        AtomicFile(out) as fh,
        AtomicFile(rejects) if rejects else nullcontext() as side,
    ):
        _write(job, fh, side, stats, progress)
    stats.seconds = time.perf_counter() - started
    return stats


@dataclass
class _Placing:
    """What the writing pass has seen of the clusters: their numbers, and the ids of records
    in no cluster that have identical rows (each such record and its copies is a cluster)."""

    seen: set[int] = field(default_factory=set)
    copied: set[Name] = field(default_factory=set)

    def close(self, stats: DedupeStats) -> None:
        stats.clusters = len(self.seen) + len(self.copied)
        stats.clustered += len(self.copied)  # the first rows of the identical ones


def _place(
    job: _Job, item: Any, stats: DedupeStats, placing: _Placing
) -> tuple[Record, str, str, str | int | None, str | None] | None:
    """Count one item of the input and say what to write for it: the record, its cluster's id
    (as text, and as the file typed the kept record's id, where known) and its similarity to
    the record kept; None when no record is written (a blank line, a duplicate removed, or a
    rejection, which the caller writes as it was)."""
    if isinstance(item, Blank):
        stats.blank += 1
        return None
    stats.read += 1
    if isinstance(item, EmptyText):  # written as it is, its own cluster, counted apart
        stats.kept += 1
        stats.written += 1
        stats.empty += 1
        if len(stats.empties) < KEEP_REJECTIONS:
            stats.empties.append(item)
        return (Record(item.id or "", "", item.source, item.line), item.id or "", "", None,
                item.source)  # fmt: skip
    if isinstance(item, Rejection):
        stats.rejected += 1
        if len(stats.rejections) < KEEP_REJECTIONS:
            stats.rejections.append(item)
        if stats.rejects is None:
            stats.written += 1  # as it is, into the output
        return None
    stats.padded += item.padded
    name = job.name(item)
    number = job.groups.of.get(name)
    keeper = None if number is None else job.keepers.get(number)
    if item.copy_of:  # a copy of an earlier record: in the cluster of its first row
        stats.removed += 1
        stats.identical += 1
        stats.clustered += 1
        if number is None:
            placing.copied.add(name)
        else:
            placing.seen.add(number)
        if not job.column:
            return None
        stats.written += 1
        if keeper is None or keeper.id == name:
            return item, item.id, SAME, item.raw_id, item.source
        return item, keeper.record_id, job.similarity_to(item, keeper), keeper.raw, keeper.source
    if number is not None:
        stats.clustered += 1
        placing.seen.add(number)
        if keeper is None:  # rule "first": the first member seen is the one kept
            text = item.text if job.column and not job.groups.complete(number) else ""
            keeper = job.keepers[number] = _Keeper(name, text, raw=item.raw_id)
    if keeper is None or keeper.id == name:
        stats.kept += 1
        stats.written += 1
        return item, item.id, SAME, item.raw_id, item.source
    stats.removed += 1
    if frozenset((keeper.id, name)) not in job.groups.similar and job.groups.similar:
        stats.unpaired += 1  # a duplicate of the cluster's center, not of the record kept
    if not job.column:
        return None
    stats.written += 1
    return item, keeper.record_id, job.similarity_to(item, keeper), keeper.raw, keeper.source


def _write(
    job: _Job, fh: IO[bytes], side: IO[bytes] | None, stats: DedupeStats, progress: bool
) -> None:
    """The writing pass: every item of the input with its raw lines, in file order."""
    if job.fmt in ARROW_FORMATS:
        _write_columnar(job, fh, side, stats)
        return
    raw = raw_lines(job.path)
    first = next(raw, None)
    bom = first is not None and first.startswith(BOM)
    lines = _lines(first[3:] if bom and first else first, raw)
    table = job.fmt not in ("lines", "jsonl")
    # the separator the reader splits the rows with: the added cells are written with it
    sep = table_delimiter(job.path, job.fmt, job.delimiter, job.id_field) if table else None
    output = _Output(fh, job.fmt, job.column, job.sim_column, bom, job.id_field, sep,
                     job.source_column)  # fmt: skip
    cursor = 0  # lines consumed
    placing = _Placing()

    def take(n: int) -> list[bytes]:
        got = [line for _, line in zip(range(n), lines, strict=False)]
        if len(got) < n:
            raise InputError(changed(job.path))
        return got

    bar = tqdm(unit="rec", desc="writing", disable=None if progress else True, leave=False)
    try:
        for item, last in job.spans():
            # The lines before the item no item covers: a table's header, before it is seen;
            # after it, the first lines of a row rejected at a later line (its fault's).
            gap = take(item.line - 1 - cursor)
            if gap and table and not output.header_done:
                output.header(gap, f"{job.path}:{cursor + 1}")
                gap = []
            chunk = gap + take(last - item.line + 1)
            cursor = last
            placed = _place(job, item, stats, placing)
            if not isinstance(item, Blank):
                bar.update(1)
            if placed is not None:
                output.record(chunk, *placed)
            elif _rejected(item):
                output.rejected(chunk, side)
        rest = list(lines)
        if table and not output.header_done:
            output.header(rest, f"{job.path}:{cursor + 1}")  # a table with a header, no rows
        else:
            fh.write(b"".join(rest))  # no reader leaves lines after its last item: never lost
        stats.lines = cursor + len(rest)
        placing.close(stats)
        job.check_unchanged()
    finally:
        bar.close()


def _write_columnar(
    job: _Job, fh: IO[bytes], side: IO[bytes] | None, stats: DedupeStats
) -> None:
    """A Parquet or Arrow input written again in its own format: the rows kept (or every row,
    with the cluster columns added), its schema and its values as they were. The table is read
    whole: columnar files are written a table at a time."""
    import pyarrow as pa

    rows: list[int] = []
    clusters: list[str | None] = []
    sources: list[str | None] = []  # the kept records' (with a source column)
    sims: list[float | None] = []
    rejected: list[int] = []  # the rows for the rejects file
    placing = _Placing()
    for item, _last in job.spans():
        placed = _place(job, item, stats, placing)
        if placed is not None:
            rows.append(item.line - 1)  # rows are numbered from 1
            clusters.append(placed[1])
            sources.append(placed[4])
            sims.append(float(placed[2]) if placed[2] else None)
        elif _rejected(item):
            if side is not None:
                rejected.append(item.line - 1)
            else:  # as it is, in its place, its cluster and similarity null
                rows.append(item.line - 1)
                clusters.append(None)
                sources.append(None)
                sims.append(None)
    placing.close(stats)
    whole = _read_table_whole(job.path, job.fmt)
    job.check_unchanged()  # (read a third time, whole)
    stats.lines = whole.num_rows
    table = whole.take(pa.array(rows, type=pa.int64()))
    if side is not None and rejected:
        _write_arrow(whole.take(pa.array(rejected, type=pa.int64())), side, job.fmt)
    if job.column:
        added = [job.column, job.source_column, job.sim_column]
        for name in (n for n in added if n):
            if name in table.column_names:
                raise InputError(
                    f"{job.path}: the input already has a column {name!r}: choose another name "
                    "(--cluster-column, --similarity-column)"
                )
        table = table.append_column(job.column, _cluster_ids(clusters, table, job.id_field))
        if job.source_column:
            table = table.append_column(job.source_column, pa.array(sources, type=pa.string()))
        table = table.append_column(job.sim_column, pa.array(sims, type=pa.float64()))
    _write_arrow(table, fh, job.fmt)


def _cluster_ids(clusters: list[str | None], table: Any, id_field: str) -> Any:
    """The cluster column, in the id column's type where that is an integer (it joins with
    the ids, as the other formats write it), else as text."""
    import pyarrow as pa

    ids = pa.array(clusters, type=pa.string())
    kind = table.schema.field(id_field).type if id_field in table.column_names else None
    if kind is not None and pa.types.is_integer(kind):
        try:
            return ids.cast(kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return ids  # (an id of another source's records: text)
    return ids


def _rejected(item: Any) -> bool:
    """Whether ``item`` is a row the reader rejected (a record with an empty text is not: it is
    written as a record)."""
    return isinstance(item, Rejection) and not isinstance(item, EmptyText)


def _write_arrow(table: Any, fh: IO[bytes], fmt: str) -> None:
    """``table`` written to ``fh`` as Parquet or as an Arrow file."""
    import pyarrow as pa

    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, fh)
    else:
        with pa.ipc.new_file(fh, table.schema) as writer:
            writer.write_table(table)


def _read_table_whole(path: Path, fmt: str) -> Any:
    """A Parquet or Arrow file as one pyarrow table."""
    import pyarrow as pa

    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path)
    with pa.memory_map(str(path)) as source:
        try:
            return pa.ipc.open_file(source).read_all()
        except pa.ArrowInvalid:
            source.seek(0)
            return pa.ipc.open_stream(source).read_all()


def _lines(first: bytes | None, rest: Iterator[bytes]) -> Iterator[bytes]:
    """The file's lines again, the first one given (without its byte-order mark)."""
    if first is not None:
        yield first
    yield from rest
