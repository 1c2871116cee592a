"""A report's pairs and clusters as tables people use: TSV, CSV, JSON Lines, Parquet, pandas
and polars, with the records' texts, their sources, the similarity and the reason.

Why a module of its own: the report decides which pairs there are (:mod:`neardup.index`); this
only lays them out. The ids alone (``id1 id2 jaccard edit_distance``, the pairs file
:func:`neardup.out.write.write_pairs` writes and :func:`neardup.read.pairs.read_pairs` reads back)
cannot be read by a person or joined without a second step. pandas, polars and pyarrow are
optional and imported only here, when a table of theirs is asked for; ``-`` as a path is
standard output.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..decision.words import words_for
from ..errors import ArgumentError, InputError, NeardupWarning
from ..keys import key_of, record_id
from .write import (
    AtomicFile,
    check_output_extension,
    format_name,
    named_format,
    table_writer,
    when_written,
)

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..results import Decision, Pair, Report

TABLE_FORMATS = ("tsv", "csv", "jsonl", "parquet")
#: The path that means standard output.
STDOUT = "-"
EXTRA = "pip install 'neardup[data]'"
Columns = dict[str, list[Any]]


class Held(Protocol):
    """Where the records of a report are held: an index (:class:`neardup.index.NearDupIndex`),
    named by what the tables read of it so that this module needs no index."""

    backend: Backend
    primary_source: str | None


def is_stdout(path: str | Path | None) -> bool:
    return path is not None and str(path) == STDOUT


@contextmanager
def destination(path: str | Path) -> Iterator[Path]:
    """Where to write ``path``: itself, or for ``-``, a temporary file whose bytes go to
    standard output once the block is done, or inside a run's :class:`neardup.out.write.Outputs`,
    once its files are in place (so every writer that takes a path can write to stdout, and a
    failed run writes nothing there)."""
    if not is_stdout(path):
        yield Path(path)
        return
    tmp = Path(tempfile.mkdtemp(prefix="neardup-out-"))
    target = tmp / "out"

    def send() -> None:
        if target.exists():
            sys.stdout.flush()
            with open(target, "rb") as fh:
                shutil.copyfileobj(fh, sys.stdout.buffer)
            sys.stdout.buffer.flush()

    def remove() -> None:
        shutil.rmtree(tmp, ignore_errors=True)

    try:
        yield target
    except BaseException:
        remove()
        raise
    when_written(send, remove)


def table_format(path: str | Path | None, given: str | None, flag: str = "--out") -> str | None:
    """The table format to write ``path`` in: the one given, else its extension's (``.csv``,
    ``.jsonl`` or ``.json``, ``.parquet``); None for the plain ids formats (a ``.tsv`` file,
    or one of no format's extension, with no format given).

    A format given and an extension that names another (``x.csv --format jsonl``), or an
    extension of a format no table is written in (``.arrow``), is an :class:`ArgumentError`
    (:func:`~neardup.out.write.check_output_extension`, as ``dedupe`` refuses them): either one
    won before, depending on the two, and the file's name then lied about its bytes."""
    if given is not None and given not in TABLE_FORMATS:
        raise ArgumentError(f"unknown format {given!r}: one of {', '.join(TABLE_FORMATS)}")
    named = named_format(path)
    if given is not None:
        check_output_extension(path, given, flag, f"--format {given} asks for "
                               f"{format_name(given)}")  # fmt: skip
        return given
    if named == "tsv" or named is None:
        return None  # the ids file, TSV
    if named not in TABLE_FORMATS:
        raise ArgumentError(
            f"{flag} {path}: its extension says {format_name(named)}, a format the report is not "
            "written in: name it .tsv, .csv, .jsonl or .parquet (or give --format)"
        )
    return named


def decided(result: Report) -> str:
    """How the report's threshold came about, in a few words (``report`` prints it; the review
    page shows the same words): the rule's own (:mod:`neardup.decision.words`)."""
    return words_for(result.decision).short(result.decision)


def decided_line(result: Report) -> str:
    """The one line, after a leading newline, that says in plain words which pairs the report
    kept: what ``dedupe`` and ``review`` print by default (``-v`` adds :func:`rule_line`'s
    details, ``--json`` has them all)."""
    checked = (result.rule or {}).get("check")  # pairs drawn at random said its precision
    line = "\n" + words_for(result.decision).line(result.decision)
    return line + (f"\n{checked['line']}" if checked else "")


def rule_line(
    decision: Decision, completion: dict[str, Any] | None = None, verbose: bool = True
) -> str:
    """What a report's rule decided, in detail (the rule's own words), and the clusters
    completed (a leading newline each). Details a new user need not read: the CLI prints them
    with ``-v`` only (``verbose`` False: nothing)."""
    if not verbose:
        return ""
    done = f"\nclusters completed: {completion['reason']}" if completion else ""
    return (words_for(decision).detail(decision) if decision.explain else "") + done


def rule_text(report: Report) -> list[str]:
    """The threshold and the rule of a report, line by line, in the very words ``neardup
    report`` prints (:func:`decided`, :func:`decided_line`, then :func:`rule_line`): the review
    page shows these."""
    lines = [decided(report), decided_line(report).strip()]
    lines += rule_line(report.decision, report.completion).split("\n")
    return [line for line in lines if line]


def reason(report: Report, pair: Pair) -> str:
    """Which rule kept ``pair``, in its words."""
    return words_for(report.decision).reason(report.decision, pair, report.threshold)


def _same_columns(report: Report, column: str | None) -> set[str]:
    """``column`` and the columns a link matched with it (``columns_matched``: ``name=full_name
    (content)``): what another source calls it."""
    if column is None:
        return set()
    names = {column}
    for said in (report.rule or {}).get("columns_matched", []) or []:
        pair = str(said).split(" (")[0]
        left, _, right = pair.partition("=")
        if column in (left, right):
            names |= {left, right}
    return names


def _lookup(
    index: Held | None, ids: list[str], column: str | None, same: set[str] | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """The texts (or one column's values, a record without that column its whole text) and
    the sources of ``ids`` in ``index``."""
    if index is None or not ids:
        return {}, {}
    backend = index.backend
    if column is None:
        texts = backend.texts(ids)
        gone = len(ids) - len(texts)
        if gone:  # removed since the report: empty cells, said rather than left to be found
            warnings.warn(NeardupWarning(
                f"{gone} of the {len(ids)} records in the report are no longer in the index "
                "(removed since it was made): their text and source are empty"
            ), stacklevel=6)  # fmt: skip
    else:
        rows = backend.columns(ids)
        if not rows:  # each cell was the whole text, as if the column did not matter
            raise InputError(f"no column {column!r}: these records were indexed without "
                             "columns (lines, or a table's one text column)")  # fmt: skip
        if not any(column in r for r in rows.values()):
            names = sorted({n for r in rows.values() for n in r})
            raise InputError(f"no column {column!r} in the records (columns: {', '.join(names)})")
        # a record without the column shows the one a link matched with it (another source's
        # name for it: name, full_name), else its whole text; not an empty cell
        names = [column, *sorted((same or set()) - {column})]
        own = {i: next((rows[i][n] for n in names if n in rows.get(i, {})), None) for i in ids}
        lacking = [i for i, v in own.items() if v is None]
        whole = backend.texts(lacking) if lacking else {}
        texts = {i: v if v is not None else whole.get(i, "") for i, v in own.items()}
    return texts, backend.sources(ids)


def pair_columns(
    report: Report, index: Held | None = None, text_column: str | None = None
) -> Columns:
    """The report's pairs as columns: ids, Jaccard, similarity, edit distance, the learned rule's
    probability, the reason and, given the index, both records' sources and texts (or their
    ``text_column``)."""
    pairs = report.pairs
    # A pair names its records by their own ids and, where they matter, their sources; the
    # index keys them by both (neardup.keys).
    primary = index.primary_source if index is not None else None
    key1 = [p.id1 if p.source1 is None else key_of(p.id1, p.source1, primary) for p in pairs]
    key2 = [p.id2 if p.source2 is None else key_of(p.id2, p.source2, primary) for p in pairs]
    ids = sorted(set(key1) | set(key2))
    texts, sources = _lookup(index, ids, text_column, _same_columns(report, text_column))
    cols: Columns = {
        "id1": [p.id1 for p in pairs],
        "id2": [p.id2 for p in pairs],
        "jaccard": [p.jaccard for p in pairs],
        # the weighted similarity that decided the pair where one did, as the TSV writes it
        "similarity": [round(p.similarity if p.similarity is not None else p.jaccard, 6)
                       for p in pairs],  # fmt: skip
        "edit_distance": [p.edit_distance for p in pairs],
        "probability": [p.probability for p in pairs],
        "reason": [reason(report, p) for p in pairs],
    }
    if index is not None:
        cols["source1"] = [sources.get(k) for k in key1]
        cols["source2"] = [sources.get(k) for k in key2]
        cols["text1"] = [texts.get(k) for k in key1]
        cols["text2"] = [texts.get(k) for k in key2]
    return cols


def cluster_columns(
    groups: Sequence[Sequence[str]],
    index: Held | None = None,
    text_column: str | None = None,
) -> Columns:
    """Clusters as one row per record: the cluster's number (from 1, largest first), its size,
    the record's id and, given the index, its source and text."""
    ids = [i for g in groups for i in g]  # keys: ids, and sources where they matter
    texts, sources = _lookup(index, ids, text_column)
    cols: Columns = {
        "cluster": [n for n, g in enumerate(groups, start=1) for _ in g],
        "size": [len(g) for g in groups for _ in g],
        "id": [record_id(i) for i in ids],
    }
    if index is not None:
        cols["source"] = [sources.get(i) for i in ids]
        cols["text"] = [texts.get(i) for i in ids]
    return cols


def write_table(columns: Columns, path: str | Path, fmt: str) -> int:
    """Write ``columns`` to ``path`` (``-``: standard output) as ``fmt``; how many rows.
    Written whole or not at all, as every output (:class:`neardup.out.write.AtomicFile`)."""
    names = list(columns)
    rows = len(next(iter(columns.values()), []))
    with destination(path) as target:
        if fmt == "parquet":
            pa = _pyarrow()
            import pyarrow.parquet as pq

            table = pa.table(columns)  # built before the file is opened: its errors are not
            with AtomicFile(target) as fh:  # the output's
                pq.write_table(table, fh)
        elif fmt == "jsonl":
            with AtomicFile(target, text=True) as fh:
                for k in range(rows):
                    row = {n: columns[n][k] for n in names}
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            # csv.writer wants newline="" (its own line ends); AtomicFile's "\n" is that here
            with AtomicFile(target, text=True) as fh:
                writer = table_writer(fh, fmt)
                writer.writerow(names)
                for k in range(rows):
                    writer.writerow(["" if columns[n][k] is None else columns[n][k] for n in names])
    return rows


def to_frame(columns: Columns, kind: str) -> Any:
    """``columns`` as a pandas or a polars DataFrame."""
    if kind not in ("pandas", "polars"):  # anything else read as polars before
        raise ArgumentError(f"a DataFrame is 'pandas' or 'polars', got {kind!r}")
    try:
        if kind == "pandas":
            import pandas as pd

            return pd.DataFrame(columns)
        import polars as pl

        return pl.DataFrame(columns, strict=False)
    except ImportError:
        raise ImportError(f"a {kind} DataFrame needs {kind}: {EXTRA}") from None


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        raise InputError(f"writing Parquet needs pyarrow: {EXTRA}") from None
    return pa
