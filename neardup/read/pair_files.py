"""Pairs files as ``evaluate`` reads them: neardup's own pairs tables (TSV, CSV, JSON Lines,
Parquet, as :mod:`neardup.out.output` and :func:`neardup.out.write.write_pairs` write them, and the
review page's gold and labels files) by their headers, and plain files of two ids a line (gold
standards such as ``12|345`` under ``D1|D2``).

Why a reader of its own: a table's text columns hold tabs, commas, quotes and line breaks, so
a table split at white space is a file of nonsense pairs, scored 0 without an error; and its
``source1 source2`` columns say which file each id comes from, without which two files' records
7 are one. A record here is its source and its id (:data:`Rec`); a pair is unordered, whatever
its sources (:mod:`neardup.evaluate.scores`). :func:`align` puts a file with sources and one
without on common keys, or refuses where ids alone cannot say which record they mean.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import json
import re
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, NeardupWarning
from ..keys import source_like, source_named
from .checks import check_id, check_source
from .inputs import SNIFF_BYTES, no_file
from .lines import as_legacy
from .records import ID_SAMPLE_ROWS, refuse_encoding, refuse_spreadsheet
from .rows import ROW_ID, id_like
from .sniff import is_number, without_sep_line

#: A record: its source ("" where the file names none) and its id.
Rec = tuple[str, str]
Pair = tuple[Rec, Rec]

#: The path that means standard input.
STDIN = "-"
#: The key of the row that carries a file of ids alone's header, read by :func:`_collect`.
HEADER = "\0header"
#: Formats by extension; any other name is read by its content.
SUFFIXES = {
    ".tsv": "tsv",
    ".tab": "tsv",
    ".csv": "csv",
    ".jsonl": "json",
    ".ndjson": "json",
    ".json": "json",
    ".parquet": "parquet",
}
#: The extensions of a records file, whose names head a gold file's columns (``a.csv|b.csv``).
FILE_SUFFIXES = frozenset({*SUFFIXES, ".txt"})
#: The columns of neardup's pairs tables: a first line holding one of them is a header, read
#: by name (which needs ``id1`` and ``id2``).
TABLE_COLUMNS = frozenset(
    {"id1", "id2", "source1", "source2", "similarity", "jaccard", "edit_distance",
     "probability", "reason", "text1", "text2", "label"}
)  # fmt: skip
#: The columns read: the ids, their sources, and the review page's labels (match, non-match).
READ = ("id1", "id2", "source1", "source2", "label", "asked")
#: Other tools' names of the columns read (Magellan and DeepMatcher's ``ltable_id``,
#: ``rtable_id``; Splink's ``unique_id_l``, ``source_dataset_l``): read as neardup's, where the
#: file does not also hold neardup's name.
ALIASES = {
    "ltable_id": "id1", "rtable_id": "id2", "left_id": "id1", "right_id": "id2",
    "id_l": "id1", "id_r": "id2", "unique_id_l": "id1", "unique_id_r": "id2",
    "source_dataset_l": "source1", "source_dataset_r": "source2", "is_match": "label",
    "clerical_match_score": "label", "predicted": "label", "prediction": "label",
    "match_probability": "label",
}  # fmt: skip
#: A label's words, and the true and false of other tools' labelled pairs (numbers:
#: :func:`label_word`).
LABEL_WORDS = {"match": "match", "non-match": "non-match", "true": "match", "false": "non-match"}


#: What a label may be, as an error says it.
LABELS_SAID = "'match' or 'non-match' (or true or false, 1 or 0, a score from 0 to 1)"


def label_word(said: str) -> str | None:
    """``match`` or ``non-match`` for a label as written: the words, true or false, or a
    number from 0 to 1 (1 and 0; Splink's clerical match score, a match from 0.5); else None."""
    word = LABEL_WORDS.get(said.strip().lower())
    if word is not None or not is_number(said):
        return word
    value = float(said)
    if not 0.0 <= value <= 1.0:
        return None
    return "match" if value >= 0.5 else "non-match"
#: A column's name that says it holds ids: ``idDBLP``, ``id_a``, ``left_id``, ``tableA-id``.
_ID_NAME = re.compile(r"^((id|ID|Id)([\W_]\w+|[A-Z]\w*)|\w*?[A-Za-z0-9]([\W_](id|ID|Id)|Id|ID))$")
#: First cells of a header line over plain pairs (besides neardup's ``id1``).
PLAIN_HEADERS = frozenset({"id", "docid", "id_a", "left"})
#: Names of the two columns of plain pairs that make a first line a header (as well as names
#: of ids, :data:`_ID_NAME`, and of records files, ``a.csv|b.csv``): the ER tasks' ``D1|D2``.
HEADER_NAMES = frozenset(
    {"id", "id1", "id2", "id_a", "id_b", "docid", "docid1", "docid2", "left", "right", "d1",
     "d2", "source", "target", "source1", "source2", "record1", "record2", "ltable", "rtable"}
)  # fmt: skip
#: What :func:`header_line` says of a first line: names, so a header; or words without a digit
#: above a line of numbers, read as a header with a note, as either reading may be wrong.
NAMED, GUESSED = "named", "guessed"


@dataclass(frozen=True)
class PairsFile:
    """The pairs of one file, in its order (first column first), and whether it names sources."""

    name: str
    pairs: list[Pair]
    sourced: bool
    #: The two names a file of ids alone heads its columns with (``a.csv|b.csv``), if any.
    header: tuple[str, str] | None = None
    #: The pairs it labels non-match (not in ``pairs``).
    non_matches: int = 0
    #: Its lines that pair a record with itself (not in ``pairs``: no pair to find).
    selves: int = 0
    #: The sources its lines name, those of its non-match lines too.
    named: frozenset[str] = frozenset()
    #: What was read in a way the file did not say (a first line taken for a header).
    notes: tuple[str, ...] = ()

    def sources(self) -> set[str]:
        return {r[0] for p in self.pairs for r in p}


@dataclass(frozen=True)
class Aligned:
    """Found and gold pairs on common keys: ``(source, id)`` where ``by_source``, else
    ``("", id)``; ``notes`` say how a side without sources was read."""

    found: list[Pair]
    gold: list[Pair]
    by_source: bool
    notes: list[str] = field(default_factory=list)

    def sources(self) -> set[str]:
        return {r[0] for p in self.found + self.gold for r in p}


@dataclass(frozen=True)
class RowIds:
    """How the rows of a clusters table without an id column are named (``dedupe
    --cluster-column``'s output for a file whose records have no id column).

    ``field``: the column of their ids (``evaluate --id-field``, as dedupe was given it), or
    :data:`ROW_ID`, their lines; None: as dedupe chose, the one column named as an id whose
    values are all there, none twice, else their lines. ``records``: the ids of the records of
    the file dedupe read (``evaluate --records``), in file order: under :data:`ROW_ID`, the
    rows that have a cluster are those records, in that order (the lines dedupe numbered,
    blank lines and the rows it rejected being in the table or not)."""

    field: str | None = None
    records: Sequence[str] | None = None
    #: The columns ``dedupe --cluster-column NAME --similarity-column NAME`` added, read as
    #: ``cluster`` (with ``NAME_source``, the kept record's source) and ``similarity``.
    cluster: str = "cluster"
    similarity: str = "similarity"

    def header(self, names: Sequence[str], where: str) -> list[str]:
        """A header's names with dedupe's columns, where named otherwise, as evaluate reads
        them (a column of the records named ``cluster`` or ``similarity`` set aside), if the
        header has the cluster column; else as they are. A clusters table without the cluster
        column named is an :class:`InputError`: its ``cluster`` is the records' own."""
        theirs = {self.cluster.strip().lower(): "cluster",
                  f"{self.cluster.strip().lower()}_source": "cluster_source",
                  self.similarity.strip().lower(): "similarity"}  # fmt: skip
        lowered = [str(n).strip().lower() for n in names]
        if all(k == v for k, v in theirs.items()):
            return [str(n) for n in names]
        if self.cluster.strip().lower() not in lowered:
            if "cluster" in lowered and not {"id1", "id2"} & set(lowered):
                raise InputError(
                    f"{where}: no column {self.cluster!r} (--cluster-column; columns: "
                    f"{', '.join(map(str, names))})"
                )
            return [str(n) for n in names]
        ours = set(theirs.values())
        return [theirs.get(n.strip().lower(), f"{n} (a column of the records)"
                           if n.strip().lower() in ours else n) for n in map(str, names)]


def read_pairs_file(
    path: str | Path, source_field: str | None = None, ids: RowIds | None = None
) -> PairsFile:
    """The pairs of ``path`` (``-``: standard input), its format by extension, else by content.

    ``source_field``: the column of a clusters table that holds each record's source (the one
    ``dedupe --source-field`` was given; default ``source``). ``ids``: how the rows of a
    clusters table without an id column are named (:class:`RowIds`).

    Raises :class:`InputError` naming the file and line for a table without ``id1`` and
    ``id2``, a row that cannot be read, an empty id, or a file that is not there."""
    name = str(path)
    data = _bytes(name)
    fmt = SUFFIXES.get(Path(name).suffix.lower()) if name != STDIN else None
    if data[:4] == b"PAR1":
        fmt = "parquet"
    elif fmt == "parquet":
        raise InputError(f"{name}: not a Parquet file (it does not start with PAR1)")
    elif fmt is None and data.lstrip()[:1] in (b"{", b"["):
        fmt = "json"
    source = SOURCE if source_field is None else source_field.strip().lower()
    ids = ids or RowIds()
    if fmt == "parquet":
        return _collect(name, _parquet_rows(name, data, source, ids))
    text = _text(name, data)
    if fmt == "json":
        return _collect(name, _json_rows(name, text, source, ids))
    return _collect(name, _text_rows(name, text, fmt, source, ids))


#: Why ``review --ask`` asked a pair, as its ``asked`` field and the labels file write it.
ASKED_AT_RANDOM, ASKED_UNCERTAIN = "at random", "to teach"


@dataclass(frozen=True)
class Labels:
    """A reviewer's labels (the review page's ``labels.tsv``): pairs said to match, and pairs
    said not to."""

    name: str
    matches: list[Pair]
    non_matches: list[Pair]
    #: The pairs ``review --ask`` drew at random from those the rule kept (the file's ``asked``
    #: column says ``at random``): a sample that corrects the rule's estimates of itself.
    drawn: frozenset[frozenset[Rec]] = frozenset()
    #: Where each pair was said (``file:line``), for a message about it.
    where: dict[frozenset[Rec], str] = field(default_factory=dict, compare=False)

    def __len__(self) -> int:
        return len(self.matches) + len(self.non_matches)

    def at(self, a: Rec, b: Rec) -> str:
        """Where the pair of ``a`` and ``b`` was said: ``file:line``, else the labels' name."""
        return self.where.get(frozenset((a, b)), self.name)


def read_labels(path: str | Path) -> Labels:
    """The labelled pairs of ``path``: a table with ``id1``, ``id2``, ``label`` (``match`` or
    ``non-match``) and, where records of two sources share ids, ``source1`` and ``source2``;
    an optional ``asked`` column says ``at random`` of the pairs drawn at random
    (:data:`ASKED_AT_RANDOM`).

    Raises :class:`InputError` naming the file and line for a row without a label, a label
    that is neither, or a pair labelled both ways."""
    name = str(path)
    data = _bytes(name)
    fmt = SUFFIXES.get(Path(name).suffix.lower()) if name != STDIN else None
    if data[:4] == b"PAR1":
        rows: Iterable[Row] = _parquet_rows(name, data)
    elif fmt == "json" or (fmt is None and data.lstrip()[:1] in (b"{", b"[")):
        rows = _json_rows(name, _text(name, data))
    else:
        rows = _text_rows(name, _text(name, data), fmt)
    said: dict[frozenset[Rec], tuple[bool, str]] = {}
    written: dict[frozenset[Rec], Pair] = {}  # each pair as its first line wrote it
    drawn: set[frozenset[Rec]] = set()
    for where, row in rows:
        if "label" not in row:  # a file without its header, or of other names: read as pairs
            raise InputError(f"{name}: no 'label' column: a labels file's first line is its "
                             "header, naming source1 id1 source2 id2 label (and asked), as the "
                             f"review page's labels.tsv does; {_first_line(data)}")  # fmt: skip
        if _header_again(row):  # two rounds' downloads joined (cat): no pair, read on
            warnings.warn(NeardupWarning(f"{where}: the header again (files joined one after "
                                         "the other?): not a label, read on"), stacklevel=2)
            continue
        label = _row_label(row, where)
        ids = [_id(row, key, where) for key in ("id1", "id2")]
        sources = [_source(row, key, where) for key in ("source1", "source2")]
        first, second = (sources[0], ids[0]), (sources[1], ids[1])
        if first == second and first[0]:  # ids alone: "1 1" is a record of each source
            raise InputError(f"{where}: a record paired with itself ({ids[0]}): a label is of "
                             "two records")  # fmt: skip
        pair = frozenset({first, second})
        written.setdefault(pair, (first, second))
        _label_once(said, pair, label, where)
        asked = str(row.get("asked") or "").strip().lower()
        if asked == ASKED_AT_RANDOM:
            drawn.add(pair)
        elif asked not in ("", ASKED_UNCERTAIN):
            raise InputError(f"{where}: asked {asked!r}: expected {ASKED_AT_RANDOM!r}, "
                             f"{ASKED_UNCERTAIN!r} or nothing")  # fmt: skip
    if not said:
        raise InputError(f"{name}: no labelled pair in it (a header alone, or nothing)")
    matches, non = [], []
    for pair, (match, _) in said.items():
        # as written: a file without sources says by its columns which is which record
        (matches if match else non).append(written[pair])
    where = {pair: line for pair, (_, line) in said.items()}
    return Labels(name, matches, non, frozenset(drawn), where)


def _header_again(row: Mapping[str, Any]) -> bool:
    """Whether a labels file's row is its header again: each column holds its own name, as
    where two rounds' labels.tsv were joined with ``cat`` (the records readers say so too)."""
    return all(isinstance(v, str) and v.strip().lower() == k for k, v in row.items()
               if k in ("id1", "id2", "label"))  # fmt: skip


def _first_line(data: bytes) -> str:
    """The file's first line, as an error shows it."""
    line = data.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r")
    shown = line.decode("utf-8", "replace")
    return f"its first line is {shown[:120]!r}" if shown.strip() else "its first line is blank"


_NO_GOLD = (
    "{}: no pair to score against (the file is empty, labels every pair non-match, or pairs "
    "records with themselves): give the pairs that should be found"
)


def align(found: PairsFile, gold: PairsFile) -> Aligned:
    """Both files' pairs on common keys (:func:`_align`), with a note of the pairs the gold
    file labels non-match: a found one counts as wrong, as does one it does not list at all,
    which a sample of labelled pairs (a DeepMatcher test split) does not say either way."""
    aligned = _align(found, gold)
    # A record paired with itself, as the two files are read: no pair to find or to score.
    found_pairs = [p for p in aligned.found if p[0] != p[1]]
    gold_pairs = [p for p in aligned.gold if p[0] != p[1]]
    selves = {found.name: found.selves + len(aligned.found) - len(found_pairs),
              gold.name: gold.selves + len(aligned.gold) - len(gold_pairs)}  # fmt: skip
    if not gold_pairs:
        raise InputError(_NO_GOLD.format(gold.name))
    aligned = dataclasses.replace(aligned, found=found_pairs, gold=gold_pairs)
    aligned.notes[:0] = [*found.notes, *gold.notes]
    for name, n in selves.items():
        if n:
            aligned.notes.append(f"{name}: {_count(n, 'line')} pairing a record with itself "
                                 "left out (a record is no duplicate of itself)")  # fmt: skip
    if gold.non_matches:
        aligned.notes.append(
            f"{gold.name} labels {_count(gold.non_matches, 'pair')} non-match: a pair found "
            "counts as right only if the gold labels it match, so where the gold is a sample "
            "of labelled pairs, precision counts every found pair it leaves out as wrong"
        )
    return aligned


def _align(found: PairsFile, gold: PairsFile) -> Aligned:
    """Both files' pairs on common keys.

    Both with sources: compared as pairs of ``(source, id)``. Neither: by ids. One with and
    one without: by ids alone where no id of the first is in two of its sources; else, where
    every pair of the first goes from one source to another (a link), the plain file's first
    column is read as the first source's ids and its second as the other's (with a note); else
    an :class:`InputError`, since an id alone cannot say which record it means; so is a gold
    file without a pair, whose recall and precision would read 0 for nothing measured."""
    if not gold.pairs:
        raise InputError(_NO_GOLD.format(gold.name))
    if found.sourced and gold.sourced:
        gold, renamed = _sources_as(gold, sorted(found.sources()))
        if renamed:
            gold = dataclasses.replace(gold, pairs=renamed)
        common = found.sources() & gold.sources()
        if found.pairs and gold.pairs and not common:
            raise InputError(
                f"{found.name} and {gold.name} name no source in common ({_names(found)} "
                f"against {_names(gold)}): no pair can match; name the sources the same way in "
                "both (as they were indexed)"
            )
        notes = [
            f"{f.name} names sources {other.name} does not: {', '.join(sorted(extra))}"
            for f, other in ((found, gold), (gold, found))
            if (extra := f.sources() - other.sources() - other.named) and other.pairs
        ]
        if renamed:
            notes.append(f"{gold.name} names its sources' files as typed, or from another "
                         f"folder: read as {_names(found)}")  # fmt: skip
        return Aligned(found.pairs, gold.pairs, True, notes)
    if not found.sourced and not gold.sourced:
        return Aligned(found.pairs, gold.pairs, False)
    sourced, plain = (found, gold) if found.sourced else (gold, found)
    owners: dict[str, set[str]] = {}
    for pair in sourced.pairs:
        for source, rid in pair:
            owners.setdefault(rid, set()).add(source)
    shared = sorted(rid for rid, sources in owners.items() if len(sources) > 1)
    if not shared:
        bare = [(("", a[1]), ("", b[1])) for a, b in sourced.pairs]
        note = (
            f"{plain.name} names no sources: pairs compared by their ids alone (no id of "
            f"{sourced.name} is in two sources)"
        )
        read = (bare, plain.pairs) if sourced is found else (plain.pairs, bare)
        return Aligned(*read, False, [note])
    sides = {(a[0], b[0]) for a, b in sourced.pairs}
    first, second = next(iter(sides))
    if len(sides) > 1 or first == second:
        example = shared[0]
        raise InputError(
            f"{plain.name} names no sources, and {sourced.name} holds ids of several sources "
            f"({_count(len(shared), 'id')}, e.g. {example!r} of "
            f"{' and '.join(sorted(owners[example]))}) in pairs that do not all go from one "
            f"source to another: an id alone cannot say which record it is. Give {plain.name} "
            "source1 and source2 columns (a header 'id1 id2 source1 source2')"
        )
    why = f"as every pair of {sourced.name} goes"
    if plain.header is not None and _names_file(plain.header[0], second) and _names_file(
        plain.header[1], first
    ):  # a header that names the files the other way round: as it says
        first, second = second, first
        why = f"as its header ({' '.join(plain.header)}) says"
    elif plain.header is None or not _names_file(plain.header[0], first):
        first, second, why = _likelier(sourced, plain, first, second, why)
    oriented = [((first, a[1]), (second, b[1])) for a, b in plain.pairs]
    note = (
        f"{plain.name} names no sources: its first column read as ids of {first}, its second "
        f"as ids of {second}, {why}"
    )
    read = (sourced.pairs, oriented) if sourced is found else (oriented, sourced.pairs)
    return Aligned(*read, True, [note])


def _likelier(
    sourced: PairsFile, plain: PairsFile, first: str, second: str, why: str
) -> tuple[str, str, str]:
    """With nothing to say which column of ``plain`` is which file's: the reading under which
    the two files share more pairs, and why (a gold file written the other way round scored
    0, exit 0)."""
    held = {frozenset(p) for p in sourced.pairs}
    straight, turned = (
        sum(frozenset(((x, a[1]), (y, b[1]))) in held for a, b in plain.pairs)
        for x, y in ((first, second), (second, first))
    )  # fmt: skip
    if turned <= straight:
        return first, second, why
    return second, first, (f"the way {_count(turned, 'pair')} of them are in {sourced.name} ("
                           f"{straight} the other way; nothing names the columns' files)")


def _sources_as(gold: PairsFile, sources: Sequence[str]) -> tuple[PairsFile, list[Pair]]:
    """``gold``, and its pairs with each source that is none of ``sources`` but names one of
    their files (as typed, from another folder: :func:`~neardup.keys.source_like`) as that
    source; no pairs where none is renamed."""
    known = set(sources)
    rename = {s: like for s in gold.sources() - known
              if (like := source_like(s, sources)) is not None}  # fmt: skip
    if not rename:
        return gold, []
    return gold, [tuple((rename.get(src, src), rid) for src, rid in pair)  # type: ignore[misc]
                  for pair in gold.pairs]  # fmt: skip


def _names_file(name: str, source: str) -> bool:
    """Whether a header's ``name`` is the file ``source``: as written, however its path is
    spelled, or by its file name alone (``a.csv`` of ``/data/a.csv``)."""
    return bool(name) and (
        source_named(name, [source]) is not None or Path(name).name == Path(source).name
    )


def _names(f: PairsFile) -> str:
    return ", ".join(sorted(f.sources()))


# -- reading ----------------------------------------------------------------------------------


def _bytes(name: str) -> bytes:
    if name == STDIN:
        return sys.stdin.buffer.read()
    path = Path(name)
    if not path.is_file():
        raise InputError(no_file(path))
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{name}: cannot be read ({exc.strerror})") from exc


def _text(name: str, data: bytes) -> str:
    refuse_spreadsheet(Path(name), data[:SNIFF_BYTES])  # xlsx, ods, any ZIP: by name
    refuse_encoding(Path(name), data[:SNIFF_BYTES], records=False)  # UTF-16, gzip: by name
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # read as the records' files are (neardup.read.lines)
        return as_legacy(data, exc, name, say=True, codec="utf-8-sig")[0]


#: One row of a file: where it is (``file:line``, ``file: row N``) and its values by column.
Row = tuple[str, Mapping[str, Any]]


def _collect(name: str, rows: Iterable[Row]) -> PairsFile:
    """The pairs of ``rows`` (each with ``id1``, ``id2`` and maybe ``source1``, ``source2``);
    of a labels file (the review page's), the pairs labelled ``match``."""
    pairs: list[Pair] = []
    sourced = False
    header = None
    said: dict[frozenset[Rec], tuple[bool, str]] = {}
    non = selves = 0
    named: set[str] = set()
    notes: list[str] = []
    for where, row in rows:
        if HEADER in row:
            header = row[HEADER]
            if row.get(GUESSED):
                notes.append(guessed_note(where, header))
            continue
        label = _row_label(row, where) if "label" in row else None
        ids = [_id(row, key, where) for key in ("id1", "id2")]
        sources = [_source(row, key, where) for key in ("source1", "source2")]
        named.update(s for s in sources if s)
        if label is not None:  # a pair labelled both ways is refused, as read_labels does
            _label_once(said, frozenset(zip(sources, ids, strict=True)), label, where)
            if label == "non-match":
                non += 1
                continue
        sourced = sourced or any(sources)
        if sources[0] and (sources[0], ids[0]) == (sources[1], ids[1]):
            selves += 1  # (ids alone, "7 7" may be two files' records 7: seen once aligned)
            continue
        pairs.append(((sources[0], ids[0]), (sources[1], ids[1])))
    return PairsFile(name, pairs, sourced, header, non, selves, frozenset(named), tuple(notes))


def guessed_note(where: str, header: Sequence[str]) -> str:
    """The note of a first line read as a header though nothing says it is one."""
    return (f"{where}: {' '.join(header)!r} read as a header (two words above a line of "
            "numbers), not as a pair: if it is a pair, give the file a header line 'id1 id2'")


def _row_label(row: Mapping[str, Any], where: str) -> str:
    """The label of a row of a labels or gold file, ``match`` or ``non-match``: a word, a JSON
    or Parquet true or false, a number from 0 to 1. A JSON null or a Parquet null is no label,
    as an empty cell is (an :class:`InputError`); false and 0 are labels, which a test of the
    value's truth read as none."""
    value = row.get("label")
    said_as = "" if value is None else str(value).strip()
    label = label_word(said_as)
    if label is None:
        got = f"label {said_as!r}" if said_as else "no label"
        raise InputError(f"{where}: {got}: expected {LABELS_SAID}")
    return label


def _label_once(
    said: dict[frozenset[Rec], tuple[bool, str]], pair: frozenset[Rec], label: str, where: str
) -> None:
    """Note ``pair``'s label in ``said``; a pair labelled the other way before is an error
    naming both lines, since either answer taken silently would change the scores."""
    match = label == "match"
    if pair in said and said[pair][0] != match:
        raise InputError(f"{where}: this pair is labelled {label!r}, but "
                         f"{said[pair][1]} labels it the other way")  # fmt: skip
    said.setdefault(pair, (match, where))


def _id(row: Mapping[str, Any], key: str, where: str) -> str:
    if key not in row:
        raise InputError(f"{where}: no {key!r} (it has {', '.join(map(str, row)) or 'nothing'})")
    value = _plain(row[key], key, where)
    if not value:
        raise InputError(f"{where}: {key} is empty")
    if "\n" in value or "\r" in value:
        raise InputError(f"{where}: {key} holds a line break (a quote left open?)")
    why = check_id(value)  # as the records readers check ids: no such id is in any index
    if why is not None:
        raise InputError(f"{where}: {key} {why.removeprefix('id ')}")
    return value


def _source(row: Mapping[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    source = "" if value is None else _plain(value, key, where)
    why = check_source(source)
    if why is not None:
        raise InputError(f"{where}: {key} {why.removeprefix('source ')}")
    return source


def _plain(value: Any, key: str, where: str) -> str:
    """An id or a source as text: a string, or a whole number (JSON and Parquet files)."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    raise InputError(f"{where}: {key} is {json.dumps(value, default=str)}, not an id")


def _delimiter(line: str, fmt: str | None) -> str | None:
    """The separator of a text file, read off its first line: the extension's where the line
    has it, else a tab, a ``|``, a comma between two ids (``4,5``, ``4, 5``: split at the space,
    the first id read ``4,`` and nothing matched); None for white space."""
    if fmt == "tsv" and "\t" in line:
        return "\t"
    if fmt == "csv" and "," in line:
        return ","
    if fmt == "csv" and ";" in line:  # a CSV of a European Excel: ';' between its cells
        return ";"
    for sep in ("\t", "|"):
        if sep in line:
            return sep
    if "," in line and (not any(c.isspace() for c in line)
                        or sum(bool(c.strip()) for c in line.split(",")) >= 2):  # "4, 5"
        return ","
    return None


def _lines(text: str, delimiter: str | None, name: str) -> Iterator[tuple[int, list[str]]]:
    """(line, cells) of every row that is not blank; a row's line is the one it starts on."""
    if delimiter is None:
        for number, line in enumerate(io.StringIO(text, newline=""), start=1):
            if cells := line.split():
                yield number, cells
        return
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                yield start, cells
            start = reader.line_num + 1
    except csv.Error as exc:
        what = _sep_name(delimiter)
        raise InputError(f"{name}:{start}: cannot be read as {what}: {exc}") from exc


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _sep_name(delimiter: str) -> str:
    return {"\t": "TSV", ",": "CSV"}.get(delimiter, f"{delimiter!r}-separated values")


def _text_rows(
    name: str, text: str, fmt: str | None, source: str = "source", ids: RowIds | None = None
) -> Iterator[Row]:
    """A TSV, CSV or plain file: by its header where its first line names neardup's columns,
    else two ids a line (``#`` comments, an optional header line). Excel's first line
    ``sep=;`` names the separator, and is no row."""
    text, named = without_sep_line(text)
    first = next(
        (s for line in io.StringIO(text, newline="") if (s := line.strip()) and s[0] != "#"), ""
    )
    delimiter = named or _delimiter(first, fmt)
    rows = _lines(text, delimiter, name)
    for number, cells in rows:
        if cells[0].lstrip().startswith("#"):
            continue
        cells = (ids or RowIds()).header(cells, f"{name}:{number}")
        names = _named(cells, f"{name}:{number}")
        if names[0] == "center" and "least_similarity" in names:
            yield from _cluster_pairs(name, _center_rows(name, number, names, rows))
        elif _clusters_table(names):
            _cluster_columns(f"{name}:{number}", [c.strip().lower() for c in cells], source)
            read = (*CLUSTER, CLUSTER_SOURCE, source)
            yield from _cluster_pairs(name, _table_rows(name, number, cells, rows, read), source)
        elif _unnamed_clusters(names):
            header = [c.strip() for c in cells]
            _cluster_columns(f"{name}:{number}", [c.lower() for c in header], source)
            found = ((f"{name}:{line}", line, dict(zip(header, row, strict=True)))
                     for line, row in _same_width(name, number, header, rows))  # fmt: skip
            unnamed = _Unnamed(name, f"{name}:{number}", header, source, ids or RowIds())
            yield from _cluster_pairs(name, unnamed.rows(found), source)
        elif TABLE_COLUMNS & set(names):
            yield from _table_rows(name, number, cells, rows)
        else:
            yield from _plain_rows(name, [(number, cells), *rows], delimiter)
        return


def _table_rows(
    name: str, number: int, header: list[str], rows: Iterable[tuple[int, list[str]]],
    read: tuple[str, ...] = READ,
) -> Iterator[Row]:  # fmt: skip
    names = _named(header, f"{name}:{number}") if read is READ else [
        c.strip().lower() for c in header
    ]
    shown = ", ".join(c.strip() for c in header)
    missing = [n for n in ("id1", "id2") if n not in names and read is READ]
    if missing:
        raise InputError(
            f"{name}:{number}: the header has no {' and no '.join(map(repr, missing))} column "
            f"(columns: {shown}); evaluate reads pairs by their id1 and id2 columns (or "
            "ltable_id and rtable_id, unique_id_l and unique_id_r)"
            + ("; a clusters table of dedupe --cluster-column NAME: give evaluate "
               "--cluster-column NAME" if "id" in names else "")
        )
    if ("source1" in names) != ("source2" in names):
        has, lacks = ("source1", "source2") if "source1" in names else ("source2", "source1")
        raise InputError(f"{name}:{number}: the header has {has!r} but no {lacks!r} column")
    wanted = {n: names.index(n) for n in read if n in names}
    for line, cells in _same_width(name, number, names, rows):
        yield f"{name}:{line}", {n: cells[k] for n, k in wanted.items()}


def _same_width(
    name: str, number: int, names: Sequence[str], rows: Iterable[tuple[int, list[str]]]
) -> Iterator[tuple[int, list[str]]]:
    """The rows of a table, each refused unless it has as many cells as its header (line
    ``number``). In a clusters table, a row of another width whose cluster is empty is a row
    dedupe could not read (a field too many or too few), written through as it was with the
    cluster's columns added empty (a row's extra cells after them): a row of empty cells, in
    no cluster."""
    lowered = [str(n).strip().lower() for n in names]
    at = lowered.index("cluster") if "cluster" in lowered else None
    for line, cells in rows:
        if at is not None and len(cells) != len(names) and not (
            cells[at].strip() if at < len(cells) else ""
        ):
            yield line, [""] * len(names)
            continue
        if len(cells) != len(names):
            raise InputError(
                f"{name}:{line}: {_count(len(cells), 'column')} where the header (line "
                f"{number}) has {len(names)}"
            )
        yield line, cells


def _named(cells: Sequence[str], where: str) -> list[str]:
    """A header's names as read: lower-cased, other tools' names as neardup's
    (:data:`ALIASES`). Two columns that would be read as one (``label`` and ``predicted``,
    ``ltable_id`` and ``left_id``) are an :class:`InputError`: either taken silently would
    change the scores."""
    names = [c.strip().lower() for c in cells]
    read = [ALIASES.get(n, n) for n in names]
    for k, name in enumerate(read):
        if name in READ and name in read[:k]:
            first = names[read.index(name)]
            raise InputError(
                f"{where}: the columns {first!r} and {names[k]!r} would both be read as "
                f"{name}: keep the one to read (a pairs file's decision, a gold file's labels)"
            )
    return read


def _plain_rows(
    name: str, rows: list[tuple[int, list[str]]], delimiter: str | None = None
) -> Iterator[Row]:
    """Two ids a line; a line of more, where the file is separated by tabs or white space
    and has no header, a group of ids (the 2014 experiment's clusters), every two of them a
    pair. Elsewhere more than two cells are refused: a third column (a label of 0 or 1, a
    score) read as nothing would count every line as a match."""
    data = [(n, c) for n, c in rows if not c[0].lstrip().startswith("#")]
    kind = header_line(data[0][1], data[1][1] if len(data) > 1 else None) if data else None
    header = kind is not None
    body = data[1:] if header else data
    # two ids and a number a line (the 2014 report's id, id, edit distance, by tabs): pairs,
    # the number aside; but a third column of 0 and 1 only, by commas or |, is a gold file's
    # labels, and a non-match read as nothing would count as a match
    third = {c[2].strip() for _, c in body if len(c) == 3}
    scored = bool(body) and all(len(c) == 3 for _, c in body) and all(
        is_number(v) for v in third
    )
    if scored and third <= {"0", "1"} and delimiter not in (None, "\t"):
        line = body[0][0]
        raise InputError(
            f"{name}:{line}: a third column of 0 and 1 only reads as labels: evaluate reads "
            "the pairs that match, so keep the lines labelled 1 and drop that column (or "
            "give a header 'id1 id2 label' with match and non-match)"
        )
    grouped = not header and not scored and delimiter in (None, "\t")
    groups: list[tuple[str, list[Rec]]] = []
    for k, (line, cells) in enumerate(data):
        if len(cells) < 2:
            found = _count(len(cells), "column")
            raise InputError(f"{name}:{line}: expected two ids, found {found}")
        if k == 0 and header:
            said = (cells[0].strip(), cells[1].strip())
            yield f"{name}:{line}", {HEADER: said, GUESSED: kind == GUESSED}
            if len(cells) > 2:
                raise InputError(
                    f"{name}:{line}: a header of {len(cells)} columns "
                    f"({', '.join(c.strip() for c in cells)}): evaluate reads two ids a line, "
                    "or neardup's pairs tables (id1, id2) and clusters (cluster, id) by their "
                    "header"
                )
            continue
        if len(cells) > 2 and not grouped and not scored:
            raise InputError(
                f"{name}:{line}: {len(cells)} columns: evaluate reads two ids a line (a third "
                "column, such as a label, would be read as nothing), or neardup's pairs tables "
                "(id1, id2) and clusters (cluster, id) by their header"
            )
        if len(cells) > 2 and grouped:
            score = next((c.strip() for c in cells[2:] if "." in c and is_number(c.strip())), None)
            if score is not None:  # '2 753 0.7 extra': a score, read as a record of a group
                raise InputError(
                    f"{name}:{line}: {len(cells)} columns, one of them the number {score}: a "
                    "line of more than two ids is a group of ids, every two of them a pair; "
                    "a score column needs a header (id1 id2 similarity)"
                )
            groups.append((f"{name}:{line}", [("", c.strip()) for c in cells]))
            continue
        yield f"{name}:{line}", {"id1": cells[0], "id2": cells[1]}
    yield from _group_pairs(name, groups)


#: The columns of a clusters table (``--clusters out.csv``: one row a record).
CLUSTER = ("cluster", "id")
#: The column of a record's source in a clusters table, unless told another
#: (``evaluate --source-field``, as ``dedupe --source-field`` was given).
SOURCE = "source"
#: The column that, with ``cluster``, names a cluster in ``dedupe --source-field
#: --cluster-column cluster``'s output: the kept record's source (two sources' ``1`` are two
#: clusters).
CLUSTER_SOURCE = "cluster_source"
#: The most pairs a clusters file may spread into: each cluster's records are all paired.
MAX_CLUSTER_PAIRS = 20_000_000


def _clusters_table(names: Sequence[str]) -> bool:
    """A header of neardup's clusters tables: ``cluster`` and ``id``, no ``id1``."""
    return "cluster" in names and "id" in names and "id1" not in names


def _unnamed_clusters(names: Sequence[str]) -> bool:
    """A header of a clusters table without an id column: ``dedupe --cluster-column
    cluster``'s output for a file whose records have none (their ids are their lines, or a
    column named as an id, such as ``customer_id``)."""
    lowered = {str(n).strip().lower() for n in names}
    return "cluster" in lowered and not lowered & {"id", "id1", "id2"}


def _itself(similarity: Any) -> bool:
    """Whether a clusters table's similarity is a record kept's to itself: 1, or not said."""
    if similarity is None or similarity == "" or similarity != similarity:  # (NaN: not said)
        return True
    try:
        return float(similarity) == 1.0
    except (TypeError, ValueError):
        return True


class _Unnamed:
    """The rows of a clusters table without an id column (:func:`_unnamed_clusters`), each
    named as dedupe named the record it was written from (:class:`RowIds`), and checked: the
    cluster of dedupe's output is named by the id of a record in it (the one kept), so a
    cluster without the record it is named by says that the rows were named otherwise than
    dedupe named them (the blank lines of its input, which the output drops, shift the lines),
    an error rather than a score of the wrong records."""

    def __init__(self, name: str, where: str, header: list[str], source: str, ids: RowIds):
        self.name, self.header, self.source, self.ids = name, header, source, ids
        self.field = ids.field
        if self.field is not None and self.field != ROW_ID and self.field not in header:
            lowered = {c.lower(): c for c in header}
            if self.field.strip().lower() not in lowered:
                raise InputError(
                    f"{where}: a clusters table without an 'id' column, and no column "
                    f"{self.field!r} (--id-field; columns: {', '.join(header)}): name the "
                    "column dedupe was given (--id-field), or @row for line numbers"
                )
            self.field = lowered[self.field.strip().lower()]

    def rows(self, found: Iterable[tuple[str, int, Mapping[str, Any]]]) -> Iterator[Row]:
        """The rows, each with its ``id``, keyed by lower-cased column names."""
        found = list(found)
        if self.field is None:
            self.field = self._id_column([row for _, _, row in found])
        records = iter(self.ids.records) if self.field == ROW_ID and self.ids.records else None
        named: list[Row] = []
        for where, number, row in found:
            read = {str(k).strip().lower(): v for k, v in row.items()}
            if read.get("cluster") in (None, ""):
                named.append((where, read))  # a row dedupe could not read: in no cluster
                continue
            if self.field != ROW_ID:
                rid = row.get(self.field)
            elif records is None:
                rid = str(number)
            elif (rid := next(records, None)) is None:
                raise self._unmatched(f"{where}: more rows with a cluster than records in")
            named.append((where, {**read, "id": rid}))
        if records is not None and next(records, None) is not None:
            raise self._unmatched(f"{self.name}: fewer rows with a cluster than records in")
        self._check(named)
        return iter(named)

    def _id_column(self, rows: list[Mapping[str, Any]]) -> str:
        """The id column as dedupe chose it where none was named (neardup.read.records'
        choose_id_field): the only column named as an id, if its values in the first rows are
        all there and none twice; else line numbers."""
        ours = {"cluster", "cluster_source", "similarity", self.source}
        candidates = [c for c in self.header if c.lower() not in ours and id_like(c)]
        if len(candidates) != 1:
            return ROW_ID
        values = [("" if (v := row.get(candidates[0])) is None else str(v)).strip()
                  for row in rows[:ID_SAMPLE_ROWS]]  # fmt: skip
        whole = values and all(values) and len(set(values)) == len(values)
        return candidates[0] if whole else ROW_ID

    def _unmatched(self, said: str) -> InputError:
        return InputError(
            f"{said} --records (the ids of its records that dedupe wrote with a cluster): give "
            "--records the file dedupe read, with the --id-field it was given"
        )

    def _check(self, rows: list[Row]) -> None:
        """Each cluster holds the record it is named by, at similarity 1 where the table says
        each row's (the record kept, to itself), else an :class:`InputError`."""
        kept: dict[Rec, bool] = {}  # each cluster: whether the record it is named by is in it
        first: dict[Rec, str] = {}
        for where, row in rows:
            if row.get("cluster") in (None, ""):
                continue
            key = (_source(row, CLUSTER_SOURCE, where), _plain(row["cluster"], "cluster", where))
            rec = (_source(row, self.source, where), _id(row, "id", where))
            first.setdefault(key, where)
            named = rec == key if key[0] else rec[1] == key[1]
            kept[key] = kept.get(key, False) or (named and _itself(row.get("similarity")))
        for key, found in kept.items():
            if not found:
                raise InputError(f"{first[key]}: {self._why(key)}")

    def _why(self, key: Rec) -> str:
        named = f"cluster {_cluster_name(key)} does not hold the record it is named by"
        table = "a clusters table without an 'id' column"
        kept = "dedupe names a cluster by the record it keeps, at similarity 1"
        if self.field != ROW_ID:
            return (
                f"{table}, its rows named by their column {self.field!r}, but {named} "
                f"({kept}): give --id-field, the column dedupe was given (or @row if the "
                "records were numbered by their lines)"
            )
        if self.ids.records:
            return (
                f"{table}, its rows named as the records of --records, but {named} ({kept}): "
                "is --records the file dedupe read, with the --id-field it was given?"
            )
        return (
            f"{table}, its rows numbered by their lines as dedupe numbers the records of a file "
            f"without one, but {named} ({kept}): the file dedupe read has lines that this table "
            "does not (blank lines, rows moved to --rejects). Give that file as --records FILE, "
            "and its records are numbered as dedupe read them (or --id-field COLUMN, the column "
            "dedupe was given)"
        )


def _cluster_columns(where: str, names: Sequence[str], source: str) -> None:
    """Refuse a clusters table whose records' sources evaluate would not read: a source column
    asked for (``--source-field``) that it does not have, or clusters named by their source
    too (``cluster_source``) without a column of the records' sources, whose records of two
    sources read as one (two sources' cluster ``1`` read as one cluster)."""
    if source != SOURCE and source not in names:
        raise InputError(
            f"{where}: a clusters table (cluster, id) without the column {source!r} of the "
            f"records' sources (--source-field; columns: {', '.join(names)})"
        )
    if CLUSTER_SOURCE in names and source not in names:
        raise InputError(
            f"{where}: a clusters table whose clusters are named by their source too "
            f"({CLUSTER_SOURCE!r}: dedupe --source-field's output), but no column {source!r} "
            "says each record's source, so records of two sources would read as one: give "
            "--source-field with the column dedupe was given"
        )


def _center_rows(
    name: str, number: int, names: list[str], rows: Iterable[tuple[int, list[str]]]
) -> Iterator[tuple[str, list[Rec]]]:
    """The clusters of :func:`neardup.out.write.write_clusters` (``center [center_source]
    least_similarity members...``): each line's records."""
    sourced = len(names) > 1 and names[1] == "center_source"
    step = 2 if sourced else 1
    for line, cells in rows:
        where = f"{name}:{line}"
        cells = [c.strip() for c in cells]
        head = cells[:step]
        rest = cells[step + 1 :]
        if len(cells) < step + 1 or len(rest) % step:
            raise InputError(
                f"{where}: a cluster is its center{', its source' if sourced else ''}, the "
                f"least similarity and its members{' with their sources' if sourced else ''} "
                f"(the header, line {number}); this line has {_count(len(cells), 'cell')}"
            )
        members = [head, *(rest[k : k + step] for k in range(0, len(rest), step))]
        yield where, [((m[1] if sourced else ""), m[0]) for m in members]


def _cluster_pairs(name: str, rows: Iterable[Any], source: str = SOURCE) -> Iterator[Row]:
    """Every two records of each cluster as a pair row: from rows of a clusters table (one
    record a row, by its ``cluster`` and, where there is one, its ``cluster_source``; each
    record by its ``source`` column, or the one named ``source``, and its ``id``) or from
    :func:`_center_rows` (one cluster a row).

    A row whose cluster is empty is in none (a row ``dedupe`` could not read, written as it
    was). A record in two clusters is an :class:`InputError`: one file's clusters part its
    records, so the rows name records of several sources that the file does not tell apart."""
    clusters: dict[Rec, tuple[str, list[Rec]]] = {}
    seen: dict[Rec, tuple[Rec, str]] = {}
    for where, row in rows:
        if isinstance(row, list):
            clusters[("", where)] = (where, row)
            continue
        if "cluster" not in row:
            raise InputError(f"{where}: no 'cluster' (it has {', '.join(map(str, row))})")
        if row["cluster"] is None or row["cluster"] == "":
            continue
        key = (_source(row, CLUSTER_SOURCE, where), _plain(row["cluster"], "cluster", where))
        if not key[1]:
            continue
        rec = (_source(row, source, where), _id(row, "id", where))
        other = seen.setdefault(rec, (key, where))
        if other[0] != key:
            shown = f"{rec[1]} of {rec[0]}" if rec[0] else rec[1]
            raise InputError(
                f"{where}: record {shown} is in cluster {_cluster_name(key)}, and in cluster "
                f"{_cluster_name(other[0])} at {other[1]}: a record is in one cluster"
                + ("; rows of several sources' records that no column tells apart? (give "
                   "--source-field, the column of their sources)" if not rec[0] else "")
            )
        clusters.setdefault(key, (where, []))[1].append(rec)
    yield from _group_pairs(name, list(clusters.values()))


def _cluster_name(key: Rec) -> str:
    return f"{key[1]} of {key[0]}" if key[0] else key[1]


def _group_pairs(name: str, groups: list[tuple[str, list[Rec]]]) -> Iterator[Row]:
    """Every two distinct records of each group, as pair rows named by the group's place."""
    sizes = [len(set(g)) for _, g in groups]
    total = sum(n * (n - 1) // 2 for n in sizes)
    if total > MAX_CLUSTER_PAIRS:
        raise InputError(
            f"{name}: its clusters hold {total:,d} pairs of records (more than "
            f"{MAX_CLUSTER_PAIRS:,d}): score a pairs file instead (report --out)"
        )
    for where, members in groups:
        unique = list(dict.fromkeys(members))
        for i, (sa, a) in enumerate(unique):
            if not a:
                raise InputError(f"{where}: an empty id")
            for sb, b in unique[i + 1 :]:
                yield where, {"id1": a, "id2": b, "source1": sa, "source2": sb}


def header_line(cells: Sequence[str], after: Sequence[str] | None) -> str | None:
    """Whether a first line over plain pairs is a header, by its names: :data:`NAMED` for
    ``id ...``, two of :data:`HEADER_NAMES` (``D1|D2``, ``left,right``) or of records files
    (``a.csv|b.csv``), two names of ids (``idDBLP,idACM``, ``left_id,right_id``: the Leipzig
    benchmarks' gold files) where the next line's are not; :data:`GUESSED` for two other words
    without a digit above a line of numbers (``abt|buy`` over ``12|345``), which the reader
    says it took for a header; else None, a pair. Why by names: a first pair of ids that are
    not numbers (``A12 B7``) above numbers (``3 4``) was dropped as a header, without a word."""
    if cells[0].strip().lower() in PLAIN_HEADERS:
        return NAMED
    words = [c.strip() for c in cells[:2]]
    if len(words) < 2:
        return None
    if all(w.lower() in HEADER_NAMES or Path(w).suffix.lower() in FILE_SUFFIXES for w in words):
        return NAMED
    below = [c.strip() for c in (after or [])[:2]]
    if all(map(_ID_NAME.match, words)) and not (
        len(below) == 2 and all(map(_ID_NAME.match, below))
    ):
        return NAMED
    if len(below) == 2 and all(map(str.isdigit, below)) and not any(
        ch.isdigit() for w in words for ch in w
    ):
        return GUESSED
    return None


def _json_rows(
    name: str, text: str, source: str = SOURCE, ids: RowIds | None = None
) -> Iterator[Row]:
    """JSON Lines (one object a line), or one JSON array of objects."""
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{name}:{exc.lineno}: not JSON ({exc.msg})") from exc
        numbered = ((f"{name}: item {k}", k, item) for k, item in enumerate(items, start=1))
    else:
        numbered = _json_lines(name, text)
    ids = ids or RowIds()
    numbered = ((w, n, _renamed(o, ids, w)) for w, n, o in numbered)
    start = next(numbered, None)
    if start is None:
        return
    if isinstance(start[2], dict) and _unnamed_clusters(list(start[2])):
        header = [str(k).strip() for k in start[2]]
        _cluster_columns(start[0], [k.lower() for k in header], source)
        unnamed = _Unnamed(name, start[0], header, source, ids or RowIds())
        rows = ((w, n, _object(w, o)) for w, n, o in itertools.chain([start], numbered))
        yield from _cluster_pairs(name, unnamed.rows(rows), source)
        return
    checked = _objects((w, o) for w, _, o in itertools.chain([start], numbered))
    first = next(checked, None)
    if first is None:
        return
    both = itertools.chain([first], checked)
    if _clusters_table(list(first[1])):
        _cluster_columns(first[0], list(first[1]), source)
        yield from _cluster_pairs(name, both, source)
    else:
        yield from both


def _renamed(item: Any, ids: RowIds, where: str) -> Any:
    """An object's keys as :meth:`RowIds.header` reads a header's names."""
    if not isinstance(item, dict):
        return item
    return dict(zip(ids.header(list(map(str, item)), where), item.values(), strict=True))


def _objects(found: Iterable[tuple[str, Any]]) -> Iterator[Row]:
    for where, item in found:
        item = _object(where, item)
        keys = _named(list(item), where)
        yield where, {k: v for k, v in zip(keys, item.values(), strict=True)}


def _object(where: str, item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object with id1 and id2, found {item!r:.40}")
    return {str(k).strip(): v for k, v in item.items()}


def _json_lines(name: str, text: str) -> Iterator[tuple[str, int, Any]]:
    """Each line's place, number and object (blank lines skipped, not renumbered)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                yield f"{name}:{number}", number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{name}:{number}: not JSON ({exc.msg})") from exc


def _parquet_rows(
    name: str, data: bytes, source: str = SOURCE, ids: RowIds | None = None
) -> Iterator[Row]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        need = "reading Parquet needs pyarrow: pip install 'neardup[data]'"
        raise InputError(f"{name}: {need}") from None
    try:
        # one thread, no read-ahead: a pairs file is small, and Arrow's thread pools, once
        # started, can abort the process as it exits (apache/arrow#34314: "terminate called
        # without an active exception", seen once in CI after evaluate had printed its result)
        table = pq.read_table(pa.BufferReader(data), use_threads=False, pre_buffer=False)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{name}: not a readable Parquet file ({exc})") from exc
    table = table.rename_columns((ids or RowIds()).header(table.column_names, name))
    lowered = [c.strip().lower() for c in table.column_names]
    if _unnamed_clusters(lowered):
        header = [c.strip() for c in table.column_names]
        _cluster_columns(name, lowered, source)
        table = table.rename_columns(header)
        values = {c: _pylist(name, c, table.column(c)) for c in dict.fromkeys(header)}
        found = ((f"{name}: row {k + 1}", k + 1, {c: values[c][k] for c in values})
                 for k in range(table.num_rows))  # fmt: skip
        unnamed = _Unnamed(name, name, header, source, ids or RowIds())
        yield from _cluster_pairs(name, unnamed.rows(found), source)
        return
    if _clusters_table(lowered):
        _cluster_columns(name, lowered, source)
        table = table.rename_columns(lowered)
        wanted = list(dict.fromkeys(c for c in (*CLUSTER, CLUSTER_SOURCE, source) if c in lowered))
        columns = {c: _pylist(name, c, table.column(c)) for c in wanted}
        rows = ((f"{name}: row {k + 1}", {c: columns[c][k] for c in wanted})
                for k in range(table.num_rows))  # fmt: skip
        yield from _cluster_pairs(name, rows, source)
        return
    table = table.rename_columns(_named(table.column_names, name))
    missing = [c for c in ("id1", "id2") if c not in table.column_names]
    if missing:
        raise InputError(
            f"{name}: no {' and no '.join(map(repr, missing))} column (columns: "
            f"{', '.join(table.column_names)}); evaluate reads pairs by their id1 and id2 columns"
        )
    wanted = [c for c in READ if c in table.column_names]
    columns = {c: _pylist(name, c, table.column(c)) for c in wanted}
    for k in range(table.num_rows):
        yield f"{name}: row {k + 1}", {c: columns[c][k] for c in wanted}


def _pylist(name: str, column: str, values: Any) -> list[Any]:
    """A Parquet column's values; a string that is not UTF-8 (not every writer checks) an
    :class:`InputError` naming its row and column, as a text file's line is named."""
    try:
        return list(values.to_pylist())
    except UnicodeDecodeError:
        pass
    for k in range(len(values)):
        try:
            values[k].as_py()
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{name}: row {k + 1}: invalid UTF-8 in column {column!r} (byte {exc.start})"
            ) from None
    return list(values.to_pylist())  # (not reached: some value was not UTF-8)
