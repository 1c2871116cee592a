"""What every record is checked for, however it comes in (a file's line, a DataFrame's
row, a value given to ``add_many``): its id (missing, too long, reserved, holding a control
character), its source, the size of its text, and an id seen before (a rejection, or a copy
when its record is the same).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from ..errors import InvalidText
from ..sign.text import check_text
from .items import Item, Record, Rejection

#: The longest id, in bytes of UTF-8, in files and in records given as values alike.
MAX_ID_BYTES = 512
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
#: Ids starting with this are neardup's own (the Solr backend keeps its parameters in the
#: document ``_neardup_meta_``): a record with such an id is refused, so no input can reach
#: an index's metadata.
RESERVED_PREFIX = "_neardup_"
#: What an id may not hold: control characters (tab, newline, CR, ESC ...), line and paragraph
#: separators, the bidirectional controls and the byte-order mark. They break TSV outputs and
#: terminals, or make one id look like another; a record holding one is refused with its file
#: and line.
BAD_ID_CHAR = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)


class Checked(Iterator[Item]):
    """Items whose records were checked as they were read (:func:`checked_spans`: ids, sizes,
    ids seen before), as :func:`read_records` and DataFrames give them: ``add_many`` does not
    check them again (:func:`checked_items`)."""

    def __init__(self, items: Iterator[Item], frame: bool = False) -> None:
        self._items = items
        #: Whether the items are a DataFrame's rows (a rejection's line is the row's position
        #: + 1), for what a warning of rejected rows says.
        self.frame = frame

    def __iter__(self) -> Checked:
        return self

    def __next__(self) -> Item:
        return next(self._items)


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
        try:  # a file's text is decoded UTF-8; a value may hold a lone surrogate
            check_text(item.text)
        except InvalidText as exc:
            yield Rejection(item.location, item.line, str(exc), item.id[:80])
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
        record.id, record.text, record.source, record.line, record.fields, record.file, first,
        record.raw_id,
    )


def check_id(record_id: str, max_bytes: int | None = MAX_ID_BYTES) -> str | None:
    """Why ``record_id`` cannot be a record's id, if it cannot. Every way in checks it, with
    the one size limit :data:`MAX_ID_BYTES` whatever the backend (Solr would refuse an id
    over Lucene's 32,766-byte term, memory none): the readers, and ``add_many`` for records
    given as values (:func:`checked_items`); what an index stores is checked again, without
    the size (:func:`neardup.candidates.documents.documents`)."""
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
    source may hold (:data:`BAD_ID_CHAR`), or a lone surrogate (only a value given to
    ``add_many`` or a DataFrame can hold one): which, and where. A surrogate has no UTF-8 form,
    so such an id would be stored and then break every output that writes it."""
    if text.isprintable():
        return None
    bad = BAD_ID_CHAR.search(text)
    if bad is not None:
        code = ord(bad.group())
        return f"{what} holds the control character U+{code:04X} at character {bad.start() + 1}"
    try:
        check_text(text, what)
    except InvalidText as exc:
        return str(exc)
    return None


def _check_size(text: str, limit: int | None) -> str | None:
    """Why a record's text is too large, if it is (no copy unless it may be: UTF-8 has at most
    4 bytes a character, and an ASCII text has one)."""
    if limit is None or len(text) * 4 <= limit:
        return None
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return f"record too large, {size} bytes of text (the limit is {limit})"


def check_source(source: str) -> str | None:
    """Why ``source`` (a record's source: a file's name, or a source column's value) cannot be
    one, if it cannot: a control character, a line separator or a bidirectional control, which
    would break the TSV outputs that name sources, or make one source read as another."""
    return _bad_character(source, "source")
