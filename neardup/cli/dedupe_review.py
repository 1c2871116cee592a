"""The verbs that index a file and hand back another: ``dedupe`` (the dataset without its
near-duplicates, or with a cluster id on every record) and ``review`` (one HTML page to look at
what was merged before trusting it); and ``clean``, which removes the temporary collections of
their runs that were killed."""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import hashlib
import os
import re
import shlex
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from ..backends.duckdb_file import TEMP_PREFIX as DUCKDB_PREFIX
from ..backends.duckdb_file import DuckDBBackend
from ..backends.memory import MemoryBackend
from ..constraints import declared
from ..decision.cluster import pair_clusters
from ..decision.labelled import asked_explain, checked_explain
from ..decision.prune import PRUNE_MODES
from ..errors import InputError, NeardupError, SolrUnavailable
from ..index import NearDupIndex
from ..keys import SEP, record_id, source_of_key
from ..options import MODES, ReportOptions
from ..out.dedupe import (
    KEEP_RULES,
    check_columns,
    check_output_format,
    dedupe,
    index_similarity,
    kept_ids,
)
from ..out.output import decided_line, destination, rule_line
from ..out.review import MAX_PAIRS, review_index
from ..out.write import Outputs
from ..params import Params
from ..pipeline import IndexStats
from ..plan.budget import budget_of, storage_fits
from ..read.inputs import first_bytes, no_file
from ..read.records import CR_PEEK, expected_records, guess_format, refuse_encoding
from ..read.unchanged import FirstRead
from ..results import Report
from .commands import (
    _file_source,
    _named_source,
    add_records,
    check_indexed,
    given_params,
    nothing_indexed,
    open_index,
    print_choice,
    print_stats,
)
from .common import (
    check_outputs,
    config,
    emit,
    file_path,
    index_file_option,
    input_options,
    json_option,
    local_node,
    max_bucket_option,
    open_solr,
    out_option,
    pair_count,
    param_options,
    progress,
    read_input,
    refuse_binary_to_terminal,
    resolve_ids,
    say_source_column,
    solr_options,
    verbose_option,
)

BACKENDS = ("solr", "memory", "duckdb")
#: The backends that index in this process, with no Solr.
LOCAL = ("memory", "duckdb")
#: The help of dedupe's and review's ``-v``.
DECIDED_IN_DETAIL = (
    "also say how the pairs were decided, in detail: the valley, the numbers and columns "
    "checks, the clusters completed (--json has them too)"
)


def _run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="solr",
        help="solr (default): index the input into --collection (kept) or, without one, into a "
        "temporary collection deleted at the end; memory: index it in this process (no Java), "
        "or, where it would not fit the memory budget, on disk as duckdb does; duckdb: index "
        "it into a temporary DuckDB file (no Java), deleted at the end",
    )
    p.add_argument(
        "--no-index",
        action="store_true",
        help="the collection already holds the input (from 'neardup index'): do not index it",
    )
    p.add_argument(
        "--prune",
        choices=list(PRUNE_MODES),
        default=None,
        help="which verified pairs link records (default: the report's; see 'report --help')",
    )
    p.add_argument(
        "--similarity",
        choices=declared("ReportOptions")["similarity"].choices,
        default="auto",
        help="what decides a pair (default: the report's; see 'report --help'): weighted for "
        "duplicates that come one to a record and are written differently, as two catalogues "
        "in one file",
    )
    p.add_argument(
        "--memory",
        default=None,
        metavar="SIZE",
        help="the memory the run may take (8GB, 500MB; default: a quarter of this machine's): "
        "--backend memory keeps the records on disk in DuckDB past it, and the report runs on "
        "DuckDB past it",
    )
    max_bucket_option(p)
    param_options(p)  # --threshold: a new index's; with --no-index, the report's


def register_dedupe(sub: Any) -> None:
    p = sub.add_parser(
        "dedupe",
        help="the input without its near-duplicates (or with cluster ids), in its own format",
        description="Index the input, find its near-duplicate pairs and clusters, and write it "
        "again in its own format (lines, TSV, CSV, JSONL, Parquet, Arrow) with every cluster but "
        "one record "
        "removed, or with --cluster-column, every record with its cluster id. Rows that are "
        "not records (a wrong number of fields, no id, invalid UTF-8...) are written through "
        "as they are and counted, or with --rejects, to that file instead; blank lines are "
        "dropped and counted. The exit code is 0 when the run completed (every row is in the "
        "output or the rejects file); --strict makes it 2 when any row was rejected.",
    )
    p.add_argument("input", type=Path, help="the records")
    out_option(p, "where to write (same format; '-': stdout)")
    input_options(p)
    _keep_option(p)
    p.add_argument(
        "--cluster-column",
        metavar="NAME",
        default=None,
        help="write every record, with its cluster's id (the id of the record the cluster "
        "keeps; a record in no cluster is its own) in column NAME and its similarity to that "
        "record; 'ID TEXT' lines become TSV (id, NAME, similarity, text)",
    )
    p.add_argument(
        "--similarity-column",
        metavar="NAME",
        default=None,
        help="with --cluster-column: the similarity's column (default 'similarity')",
    )
    p.add_argument(
        "--rejects",
        type=file_path,
        default=None,
        help="write the rows that are not records to this file (as they are in the input, "
        "after a table's header) instead of into the output; their reasons go to stderr",
    )
    p.add_argument(
        "--review",
        type=file_path,
        metavar="PAGE.html",
        default=None,
        help="also write the review page of the pairs that were merged",
    )
    _max_pairs_option(p)
    _run_options(p)
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit with code 2 if any row was rejected or had an empty text (the outputs are "
        "written all the same)",
    )
    json_option(p, "print the counts as JSON")
    verbose_option(p, DECIDED_IN_DETAIL)
    solr_options(p)
    p.set_defaults(func=cmd_dedupe)


def _max_pairs_option(p: Any) -> None:
    p.add_argument(
        "--max-pairs",
        type=pair_count,
        default=MAX_PAIRS,
        metavar="N",
        help=f"the review page shows at most N pairs, those nearest the threshold (default "
        f"{MAX_PAIRS:,}; 0: every pair): a page of every pair of a large report is too heavy "
        "for a browser; the report's file holds them all",
    )


def _say_shown(page: Any) -> None:
    """On stderr, where the review page shows fewer pairs than the report holds."""
    line = page.shown_line() if page is not None else ""
    if line:
        print(f"neardup: note: {line}", file=sys.stderr)


def register_review(sub: Any) -> None:
    p = sub.add_parser(
        "review",
        help="a self-contained HTML page of the pairs and clusters, to read in a browser",
        description="Write one HTML file (no network needed to view it): the run's parameters "
        "and counts, the similarity histogram with the threshold, clusters largest first, "
        "every pair side by side with its word differences, a filter and a search. Reviews "
        "the collection as it is, or indexes INPUT first (like dedupe).",
    )
    p.add_argument(
        "inputs",
        type=Path,
        nargs="*",
        metavar="INPUT",
        help="files of records to index first (optional; two or more: one source each, "
        "for --mode link)",
    )
    out_option(p, "the HTML page to write ('-': stdout)")
    p.add_argument("--title", default=None, help="the page's title")
    p.add_argument(
        "--ask",
        type=int,
        default=None,
        metavar="N",
        help="link: a page of the N pairs whose labels would teach the most (uncertain and "
        "diverse); mark them, download labels.tsv, and give it back with --labels",
    )
    p.add_argument(
        "--check",
        type=int,
        default=None,
        metavar="N",
        help="a page of N pairs drawn at random from those the report keeps (with --labels, "
        "those of the rule they teach): marked and given back with --labels, they say how "
        "often the pairs are right (report --labels prints its precision from them)",
    )
    p.add_argument(
        "--labels",
        type=Path,
        default=None,
        metavar="FILE",
        help="the labels so far (the page's labels.tsv): --ask then asks what they leave "
        "uncertain (link); without --ask the page shows the pairs the labels' rule decides, "
        "and the precision the pairs drawn by --check say",
    )
    p.add_argument(
        "--mode",
        choices=list(MODES),
        default="dedup",
        help="dedup (default) pairs any two records; link pairs only records of different "
        "sources (the files they were indexed from), as 'report --mode link' does, and shows "
        "each record's source beside its id",
    )
    input_options(p)
    _keep_option(p)
    _max_pairs_option(p)
    _run_options(p)
    json_option(p, "print what was written as JSON")
    verbose_option(p, DECIDED_IN_DETAIL)
    index_file_option(p)
    solr_options(p)
    p.set_defaults(func=cmd_review)


def register_clean(sub: Any) -> None:
    p = sub.add_parser(
        "clean",
        help="remove the temporary collections of dedupe/review runs that were killed",
        description="dedupe and review without --collection index into a temporary collection "
        f"({TEMP_PREFIX}<pid>_<time>_<host>), or with --backend duckdb into a temporary folder "
        f"({DUCKDB_PREFIX}<pid>-... in the system's temporary folder), and delete it at the end, "
        "also on Ctrl-C and SIGTERM; a run killed outright (SIGKILL, a crash) leaves it behind. "
        "This lists those whose process no longer runs on this machine and removes them. "
        "<host> stands for this machine, its boot and its PID namespace (a container is a host "
        "of its own): a collection of another host's run, which may still be going, is left "
        "alone and listed, unless --older-than is given and it is older; so are the "
        f"collections named by an older neardup ({TEMP_PREFIX}<pid>_<time>, no host) whose "
        "pid does not run here.",
    )
    p.add_argument("--dry-run", action="store_true", help="only list them")
    p.add_argument(
        "--older-than",
        metavar="AGE",
        type=_age,
        help="also remove the temporary collections of other hosts (and of an older neardup) "
        "made longer ago than AGE (90m, 24h, 7d: s, m, h or d); without it they are never "
        "removed, since this machine cannot tell whether their run is still going",
    )
    json_option(p)
    solr_options(p, collection=False)
    p.set_defaults(func=cmd_clean)


#: Temporary collections are named ``neardup_tmp_<pid>_<seconds>_<host>``: the host
#: (:func:`host_tag`) and the pid tell a leftover (its run is gone) from the collection of a
#: run still going. Before the host was recorded they were ``neardup_tmp_<pid>_<seconds>``.
TEMP_PREFIX = "neardup_tmp_"
_TEMP_NAME = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)_(\d+)(?:_([0-9a-f]{10}))?")
_AGE_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def host_tag() -> str:
    """Where a pid means one process: this machine (its name), this boot of it (Linux's boot
    id) and this PID namespace (a container, or 'unshare', has one of its own while it shares
    the boot id), as 10 hex digits for a temporary collection's name. Two runs with the same
    tag see the same processes, so ``clean`` may judge a run of its own tag by its pid."""
    parts = [socket.gethostname()]
    with contextlib.suppress(OSError):
        parts.append(Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii"))
    with contextlib.suppress(OSError):
        parts.append(os.readlink("/proc/self/ns/pid"))
    return hashlib.sha256("\0".join(parts).encode("utf-8", "replace")).hexdigest()[:10]


def temporary_collection() -> str:
    """The name of a new temporary collection of this run (:data:`TEMP_PREFIX`)."""
    return f"{TEMP_PREFIX}{os.getpid()}_{int(time.time())}_{host_tag()}"


def _age(text: str) -> float:
    """``--older-than``: seconds of a number with a unit (s, m, h, d)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(
            f"expected an age such as 90m, 24h or 7d (s, m, h or d), got {text!r}"
        )
    return float(m[1]) * _AGE_UNITS[m[2]]


def _sort_temporary(names: list[str], older_than: float | None) -> dict[str, list[str]]:
    """The temporary collections among ``names``: ``leftover`` (to remove: of this host and
    its run gone, or of another host, or unknown, and older than ``older_than`` seconds),
    ``running`` (of a run alive here) and ``elsewhere`` (another host's, or of a neardup that
    did not record the host and whose pid does not run here: their run may still go on)."""
    from ..solr.local import _alive  # lazy: --help and the verbs without Solr do not need it

    here, now = host_tag(), time.time()
    found: dict[str, list[str]] = {"leftover": [], "running": [], "elsewhere": []}
    for name in names:
        m = _TEMP_NAME.fullmatch(name)
        if m is None:
            continue
        if m[3] in (here, None) and _alive(int(m[1])):
            # a pid alive here may also be a new process, or (no host recorded) another
            # machine's run's: left alone, the safe mistake
            found["running"].append(name)
        elif m[3] == here:
            found["leftover"].append(name)
        elif older_than is not None and now - int(m[2]) > older_than:
            found["leftover"].append(name)
        else:
            found["elsewhere"].append(name)
    return found


def cmd_clean(args: argparse.Namespace) -> int:
    """List, and unless ``--dry-run`` delete, the temporary collections that runs killed
    before their clean-up (SIGKILL, a crash, a power cut) left on the server."""
    # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not need
    from ..solr import admin

    folders = _duckdb_folders(dry_run=args.dry_run)
    if not _solr_to_clean(args):
        gone = folders["leftover"]
        verb = "would remove" if args.dry_run else "removed"
        emit(
            args,
            {"removed": [], "leftover": [], "running": [], "elsewhere": [], "folders": folders,
             "solr": None},
            f"{verb} {len(gone)} temporary DuckDB folder(s)"
            + (f": {', '.join(gone)}" if gone else "")
            + "; no Solr looked at: none is given, and neardup's local node is not running "
            "and holds no temporary collection",
        )  # fmt: skip
        return 0
    server = open_solr(args, server=True)
    found = _sort_temporary(admin.collections(server), args.older_than)
    leftover, running, elsewhere = found["leftover"], found["running"], found["elsewhere"]
    if not args.dry_run:
        for name in leftover:
            admin.delete_collection(_on(server, name))
    verb = "would remove" if args.dry_run else "removed"
    gone = folders["leftover"]
    emit(
        args,
        {"removed": [] if args.dry_run else leftover, **found, "folders": folders},
        f"{verb} {len(leftover)} temporary collection(s) at {server.base_url}"
        + (f": {', '.join(leftover)}" if leftover else "")
        + (f"; {len(running)} in use by a running neardup left alone" if running else "")
        + (f"; {len(elsewhere)} of another host (or of an older neardup) left alone, as their "
           f"run may still be going: {', '.join(elsewhere)} (--older-than AGE removes those "
           "made longer ago)" if elsewhere else "")
        + (f"; {verb} {len(gone)} temporary DuckDB folder(s): {', '.join(gone)}" if gone else ""),
    )  # fmt: skip
    return 0


def _solr_to_clean(args: argparse.Namespace) -> bool:
    """Whether ``clean`` has a Solr to look at: one given (flag or environment), or
    neardup's local node running or holding a temporary collection's core on its disk. A
    user without Java who cleans DuckDB folders does not get a Solr started for nothing."""
    if config(args).solr_url is not None:
        return True
    node = local_node(args)
    if node.running() is not None:
        return True
    return any(node.home.glob(f"*/{TEMP_PREFIX}*"))


def _duckdb_folders(dry_run: bool, where: Path | None = None) -> dict[str, list[str]]:
    """The temporary folders of DuckDB indexes (``--backend duckdb``) in ``where`` (the
    system's temporary folder) whose run is gone, removed unless ``dry_run``; those of runs
    still going are listed and left alone."""
    # lazy: the local node's module, which --help and the other verbs do not need
    from ..solr.local import _alive

    found: dict[str, list[str]] = {"removed": [], "leftover": [], "running": []}
    base = where if where is not None else Path(tempfile.gettempdir())
    for folder in sorted(base.glob(f"{DUCKDB_PREFIX}*")):
        m = re.fullmatch(re.escape(DUCKDB_PREFIX) + r"(\d+)-\w+", folder.name)
        if m is None or not folder.is_dir() or folder.is_symlink():
            continue
        alive = _alive(int(m.group(1)))
        found["running" if alive else "leftover"].append(str(folder))
        if not alive and not dry_run:
            shutil.rmtree(folder, ignore_errors=True)
            found["removed"].append(str(folder))
    return found


def _collection_named(args: argparse.Namespace) -> bool:
    """Whether the flags or the environment name a collection (else a temporary one is used)."""
    # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not need
    from ..solr.client import split_url

    if args.collection:
        return True
    url = config(args).solr_url
    return bool(url) and split_url(url)[1] is not None


@contextmanager
def indexed(args: argparse.Namespace) -> Iterator[tuple[NearDupIndex, IndexStats | None]]:
    """The index a run works on, with ``args.input`` indexed into it (the stats; None when
    nothing was indexed). Memory: a new index in this process. Solr: the collection named
    (kept afterwards; ``--no-index`` uses what it holds), else a temporary collection that is
    deleted at the end, whatever happens."""
    if getattr(args, "index_file", None) is not None:  # review of an index file as it is
        yield open_index(args, create=False, writes=False), None  # closed when the verb ends
        return
    files = list(getattr(args, "more_inputs", [])) if args.input is not None else []
    files = [args.input, *files] if args.input is not None else []
    if args.input is None:  # review of a collection as it is
        if args.backend in LOCAL:
            raise InputError(f"--backend {args.backend} holds nothing: give the records to index")
        args.no_index = True
    for path in files:
        if not path.is_file() and not (args.verb == "review" and path.exists()):
            raise InputError(no_file(path))
    files = _once_each(files)
    if args.no_index and args.backend in LOCAL:
        raise InputError(f"--no-index needs a collection in Solr, not --backend {args.backend}")
    Params(**given_params(args))  # bad flags are reported before Solr is started
    if args.memory is not None:
        budget_of(args.memory)
    temporary = args.backend == "solr" and not args.no_index and not _collection_named(args)
    index: NearDupIndex | None = None
    try:
        if args.backend in LOCAL:
            index = NearDupIndex(given=given_params(args), backend=_local_backend(args, files))
        else:
            if temporary:
                args.collection = temporary_collection()
            report_flags = ("threshold",) if args.no_index else ()
            index = open_index(
                args, not args.no_index, param_flags=True, report_flags=report_flags
            )
        stats = None
        kept = args.backend == "solr" and not temporary  # a collection that outlives the run
        if not args.no_index:
            for path in files:  # one source each, in order (the first is the primary one)
                total = expected_records(path, args.format)  # chosen for its size too
                first = FirstRead(path) if args.verb == "dedupe" and path == args.input else None
                items = read_input(args, path)
                if first is not None:  # read again to be written: it must be the same then
                    items = items.through(first.over)
                    args.first_read = first
                named = _file_source(index, path) if kept and args.source_field is None else None
                if named is not None and named != str(path):
                    # by its absolute path, as index names it: a name as typed ('people.csv')
                    # made another folder's file of that name replace its records
                    items = _named_source(items, named, None)
                one = add_records(index, items, progress=progress(args), total=total)
                # "written as it is" only where the run goes on to write (some record indexed)
                written = args.verb == "dedupe" and not nothing_indexed(one, path)
                print_stats(one, quiet=args.quiet, written=written)
                check_indexed(one, path)
                stats = one if stats is None else stats.plus(one)
            print_choice(index)
        yield index, stats
    finally:
        if temporary:
            _drop(args, index)
        if index is not None and isinstance(index.backend, DuckDBBackend):
            index.backend.close()


def _once_each(files: list[Path]) -> list[Path]:
    """The files, each read once: a file named again (another spelling, a symbolic or hard
    link) is one source, whose records would otherwise be paired with themselves."""
    seen: dict[tuple[int, int], Path] = {}
    out = []
    for path in files:
        info = path.stat()
        if path.is_file() and (info.st_dev, info.st_ino) in seen:
            first = seen[(info.st_dev, info.st_ino)]
            print(f"neardup: {path} is {first} (the same file): read once", file=sys.stderr)
            continue
        seen[(info.st_dev, info.st_ino)] = path
        out.append(path)
    return out


def _local_backend(args: argparse.Namespace, files: list[Path]) -> Any:
    """Where ``--backend memory`` or ``duckdb`` keeps the records: this process's memory, or a
    temporary DuckDB file where they (with their report) would not fit the memory budget,
    which a note says."""
    if args.backend == "duckdb":
        return DuckDBBackend()
    records, size = 0, 0
    for path in files:
        if not path.is_file():
            return MemoryBackend()  # a pipe, read once: no size to go by
        n = expected_records(path, args.format)
        if n is None:
            n = _parquet_rows(path)
        if n is None:
            return MemoryBackend()  # Arrow: no size to go by
        records, size = records + n, size + path.stat().st_size
    fits, why = storage_fits(records, size / max(records, 1), args.memory)
    if fits:
        return MemoryBackend()
    if not args.quiet:
        print(f"neardup: {why}: the records are kept on disk in a temporary DuckDB file, "
              "as --backend duckdb does", file=sys.stderr)  # fmt: skip
    return DuckDBBackend()


def _parquet_rows(path: Path) -> int | None:
    """A Parquet file's rows, from its footer (None for any other file)."""
    try:
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # noqa: BLE001  (not Parquet, or unreadable: the reader says why later)
        return None


def _drop(args: argparse.Namespace, index: NearDupIndex | None) -> None:
    """Delete the temporary collection; also when the run stopped while opening it (the
    collection made, its schema not yet checked), found then by its name."""
    # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not need
    from ..solr import admin

    try:
        if index is not None:
            solr = index.backend.solr  # type: ignore[attr-defined]
        else:
            solr = _on(open_solr(args, server=True, start=False), args.collection)
            if not admin.collection_exists(solr):
                return
        admin.delete_collection(solr)
    except SolrUnavailable:
        if index is not None:  # made, and Solr went away since: it stays, which clean removes
            print(f"neardup: could not delete the temporary collection {args.collection}: "
                  "Solr is unreachable ('neardup clean' removes it later)", file=sys.stderr)
        # else the run never reached Solr: no collection was made, and the error says why
    except NeardupError as exc:
        print(f"neardup: could not delete the temporary collection: {exc}", file=sys.stderr)


def _on(server: Any, name: str) -> Any:
    """The client ``server`` (a :class:`neardup.solr.Solr`) for the collection ``name``."""
    one = copy.copy(server)
    one.collection = name
    return one


def _keep_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--keep",
        choices=KEEP_RULES,
        default="first",
        help="the record a cluster keeps: first seen in the file (default), last, longest or "
        "shortest text, central (highest summed similarity to the others); ties: first seen",
    )


def _kept(
    args: argparse.Namespace,
    report: Any,
    groups: list[list[str]] | None = None,
    primary: str | None = None,
    index: NearDupIndex | None = None,
) -> Any:
    """The ids dedupe keeps (by ``--keep``) for the review page; None without an input file.
    With ``--source-field``, ``(source, id)`` pairs: ``groups`` are storage keys of an index
    whose primary source is ``primary``. ``--no-index`` of a file that is not the collection's
    primary source (``index`` given): ``(source, id)`` pairs of that file's records, matched to
    its own records (:func:`_of_input`), not to the primary source's of the same ids."""
    if args.input is None or not args.input.is_file():
        return None
    pairs = report.pairs
    if groups is None:
        groups = [c.members for c in pair_clusters(pairs, primary)]
    sourced = getattr(args, "source_field", None) is not None
    source = None
    if index is not None and args.no_index and not sourced:
        source = _file_source(index, args.input)
        if source is not None and source != primary:
            groups, pairs = _of_input(index, args.input, groups, pairs)
    kept = kept_ids(read_input(args, args.input), groups, pairs, args.keep,
                    sourced=sourced, primary=primary)  # fmt: skip
    if source is not None and source != primary and not sourced:
        return {(source, i) for i in kept}
    return kept


def _report(index: NearDupIndex, args: argparse.Namespace, mode: str = "dedup") -> Any:
    options = ReportOptions(
        args.threshold, mode=mode, prune=args.prune, progress=progress(args),
        max_bucket=args.max_bucket, memory=args.memory, similarity=args.similarity,
    )
    return index.report(options=options)


def _dedupe_usage(args: argparse.Namespace) -> None:
    """What dedupe's flags and input must be, checked before any work (nothing is indexed or
    written when they are not)."""
    if args.input.is_dir():
        raise InputError(
            f"{args.input}: a folder; dedupe writes a file again without its duplicates. The "
            f"duplicates among a folder's documents: neardup index {shlex.quote(str(args.input))}"
            ", then neardup report --out pairs.tsv --clusters clusters.csv (or neardup review "
            f"{shlex.quote(str(args.input))} for a page to read them on)"
        )
    if args.input.exists() and not args.input.is_file():
        raise InputError(
            f"{args.input}: not a regular file; dedupe reads its input twice (to index it, then "
            "to write its records), so save it to a file first"
        )
    named = (("--out", "output"), ("--rejects", "rejects file"), ("--review", "review page"))
    check_outputs(args, named, [args.input])
    if args.similarity_column is not None and args.cluster_column is None:
        raise InputError("--similarity-column names the column beside --cluster-column's: "
                         "give --cluster-column too (without it no column is added)")
    args.similarity_column = args.similarity_column or "similarity"
    check_columns(args.cluster_column, args.similarity_column)
    if args.input.is_file():
        # compressed: gunzip it, and no pipe said (dedupe reads its input twice)
        refuse_encoding(args.input, first_bytes(args.input, CR_PEEK), pipe=False)
        fmt = guess_format(args.input, args.delimiter) if args.format == "auto" else args.format
        refuse_binary_to_terminal("--out", args.out, fmt)  # before a note on the file
        refuse_binary_to_terminal("--rejects", args.rejects, fmt)
        resolve_ids(args, args.input)
        check_output_format(args.out, fmt, args.cluster_column)
        check_output_format(args.rejects, fmt, None, "--rejects")


def cmd_dedupe(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    _dedupe_usage(args)
    # the output, the rejects and the page replaced together once all are written, or none
    with indexed(args) as (index, index_stats), Outputs(), ExitStack() as outputs:
        report = _report(index, args)
        groups = [c.members for c in pair_clusters(report.pairs, index.primary_source)]
        pairs = report.pairs
        if args.no_index and args.source_field is None:
            groups, pairs = _of_input(index, args.input, groups, pairs)
        out = outputs.enter_context(destination(args.out))
        rejects = (
            outputs.enter_context(destination(args.rejects)) if args.rejects is not None else None
        )
        stats = dedupe(
            args.input,
            out,
            groups,
            pairs=pairs,
            fmt=args.format,
            id_field=args.id_field,
            text_fields=tuple(args.text_field) if args.text_field else None,
            keep=args.keep,
            cluster_column=args.cluster_column,
            similarity_column=args.similarity_column,
            similarity=index_similarity(index),
            rejects=rejects,
            progress=progress(args),
            max_record_bytes=args.max_record_bytes,
            source_field=args.source_field,
            delimiter=args.delimiter,
            primary=index.primary_source,
            first_read=vars(args).get("first_read"),  # None with --no-index: nothing read
        )
        page = None
        if args.review is not None:
            target = outputs.enter_context(destination(args.review))
            page = review_index(index, target, report, source=str(args.input),
                                kept=_kept(args, report, groups, index.primary_source),
                                keep=args.keep, max_pairs=args.max_pairs)  # fmt: skip
            _say_shown(page)
    if index_stats is None:  # nothing was indexed, so nothing was said about these lines yet
        for r in stats.rejections:
            print(f"neardup: rejected {r}", file=sys.stderr)
    payload = {
        **stats.as_dict(),
        "output": str(args.out),
        "index": index_stats.as_dict() if index_stats is not None else None,
        "report": report.counts(),
        "decided": decided_line(report).strip(),
        "review": page.as_dict() if page is not None else None,
    }
    sourced = f" (the kept record's source in {args.cluster_column + '_source'!r})" \
        if args.cluster_column and args.source_field else ""  # fmt: skip
    what = (
        f"every record with its cluster id in column {args.cluster_column!r}{sourced}"
        if args.cluster_column
        else f"kept {stats.kept}, removed {stats.removed}"
    )
    # one bracket: "removed 1 (1 identical row; 2 records in 1 cluster, keep first)"
    identical = f"{_count(stats.identical, 'identical row')}; " if stats.identical else ""
    what += (f" ({identical}{stats.clustered} records in {_count(stats.clusters, 'cluster')}, "
             f"keep {args.keep})")  # fmt: skip
    if stats.empty:
        what += f", empty texts {stats.empty} (written as they are, not compared)"
    if index_stats is not None and index_stats.wordless:  # said one by one above: counted here
        what += (f", no words {index_stats.wordless} (punctuation or symbols alone: written as "
                 "they are, not compared)")  # fmt: skip
    emit(
        args,
        payload,
        f"{args.input}: read {stats.read}, {what}, {_rejected(stats, args)}, blank lines "
        f"{stats.blank} -> {args.out}"
        + (f"; review -> {args.review}" if page is not None else "")
        + f" ({time.perf_counter() - started:.1f} s)"
        + decided_line(report)
        + rule_line(report.decision, report.completion, verbose=_verbose(args)),
    )
    _notes(stats, args)
    return 2 if args.strict and (stats.rejected or stats.empty) else 0


def _notes(stats: Any, args: argparse.Namespace) -> None:
    """The notes after dedupe's line: ids repeated beside a source column, records removed
    through their cluster's center."""
    say_source_column(args, args.input, stats.rejections)
    _say_unpaired(stats, args)


def _say_unpaired(stats: Any, args: argparse.Namespace) -> None:
    """The records removed that the report paired with their cluster's center only, not with
    the record kept (a chain through the center), and the rule that removes none such."""
    if not stats.unpaired:
        return
    print(
        f"neardup: note: {stats.unpaired} of the {stats.removed} records removed "
        f"{'was' if stats.unpaired == 1 else 'were'} paired with their cluster's center, not "
        f"with the record kept (keep {args.keep}); "
        "--keep central keeps the record every member was paired with"
        + (f" (column {args.cluster_column!r} has each one's similarity to the record kept)"
           if args.cluster_column else ""),
        file=sys.stderr,
    )  # fmt: skip


def _of_input(
    index: NearDupIndex, path: Path, groups: list[Any], pairs: list[Any]
) -> tuple[list[Any], list[Any]]:
    """``--no-index``: the clusters and pairs as the rows of ``path`` name their records, by
    id. The file's records are those of its source in the collection; a row's id is matched to
    a record of that source only, not to the first source's record of the same id (which
    removed rows of a file without a duplicate because another file's rows had them)."""
    # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not need
    from ..collection import describe

    source = _file_source(index, path)
    primary = index.primary_source
    if source is None or source == primary:
        return groups, pairs
    held = describe(index.backend)["sources"]  # type: ignore[arg-type]
    if source not in held:
        if len(held) <= 1:  # one source (indexed with --source NAME, or from a pipe): it
            return groups, pairs
        raise InputError(
            f"--no-index: the collection {index.backend.location} holds the records of "
            f"{len(held)} sources, none of them {path}; index it first, or leave --no-index out"
        )
    # a record of another source gets a key no row's id can be (ids hold no SEP)
    mine = [[record_id(k) if source_of_key(k) == source else k + SEP for k in g]
            for g in groups]  # fmt: skip
    own = [dataclasses.replace(p, source1=None, source2=None)
           for p in pairs if p.source1 == source and p.source2 == source]  # fmt: skip
    return mine, own


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _rejected(stats: Any, args: argparse.Namespace) -> str:
    """The summary's words for the rows rejected: how many, where they went, the first's line."""
    if not stats.rejected:
        return "rejected 0"
    first = f"the first at {stats.first_rejected}"
    if args.rejects is not None:
        return f"rejected {stats.rejected} -> {args.rejects} ({first})"
    return f"rejected {stats.rejected} (written through as they are, {first})"


def _rejected_rows(stats: IndexStats) -> str:
    """How many rows were rejected, and the first's place: the page shows only records."""
    if not stats.rejected:
        return "rejected 0"
    first = stats.rejections[0]
    return f"rejected {stats.rejected} (the first at {first.place})"


def _verbose(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "verbose", False))


def _asked(index: NearDupIndex, n: int, labels: Path | None) -> Report:
    """The pairs to label next as a report (its rule says how they were picked)."""
    pairs = index.ask(n, labels)
    taught = labels is not None and any(p.probability is not None for p in pairs)
    rule = asked_explain(len(pairs), str(labels) if labels is not None else None, taught)
    return Report(pairs=pairs, records=index.backend.count(), candidates=len(pairs),
                  confirmed=len(pairs), prune="one-to-one", mode="link", rule=rule, index=index)


def _checking(index: NearDupIndex, n: int, labels: Path | None, mode: str) -> Report:
    """The pairs drawn at random to check the report, as a report (its rule says how)."""
    pairs = index.check(n, labels, mode=mode)
    given = index._as_labels(labels) if labels is not None else None
    taught = given is not None and len(given.drawn) < len(given)
    rule = checked_explain(len(pairs), str(labels) if labels is not None else None, taught)
    return Report(pairs=pairs, records=index.backend.count(), candidates=len(pairs),
                  confirmed=len(pairs), mode=mode, rule=rule, index=index)  # fmt: skip


def cmd_review(args: argparse.Namespace) -> int:
    inputs = list(args.inputs)
    args.input = inputs[0] if inputs else None
    args.more_inputs = inputs[1:]
    labels = [args.labels] if args.labels is not None else []
    if args.index_file is not None and (inputs or args.backend != "solr"):
        raise InputError(
            "--index-file reviews the index kept in that file as it is: give no records to "
            "index and no --backend (neardup index FILE --index-file ... adds records to it)"
        )
    indexes = [args.index_file] if args.index_file is not None else []
    check_outputs(args, (("--out", "review page"),), [*inputs, *labels, *indexes])
    if args.ask is not None and args.mode != "link":
        raise InputError("--ask asks what would teach a link's rule: add --mode link")
    if args.ask is not None and args.check is not None:
        raise InputError("give --ask (pairs that teach) or --check (pairs drawn at random)")
    for flag, n in (("--ask", args.ask), ("--check", args.check)):
        if n is not None and n < 1:
            raise InputError(f"{flag} takes a number of pairs >= 1, got {n}")
    with indexed(args) as (index, stats), destination(args.out) as out:
        if args.ask is not None:
            report = _asked(index, args.ask, args.labels)
        elif args.check is not None:
            report = _checking(index, args.check, args.labels, args.mode)
        else:
            report = index.report(mode=args.mode, progress=False, labels=args.labels) \
                if args.labels is not None else _report(index, args, args.mode)
        if (args.ask is not None or args.check is not None) and not report.pairs:
            print("neardup: note: no pair left to label: every pair there is to "
                  f"{'ask' if args.ask is not None else 'draw'} is labelled already "
                  f"({args.labels})", file=sys.stderr)  # fmt: skip
        source = ", ".join(map(str, inputs)) if inputs else index.backend.location
        if stats is not None and stats.rejected:  # rows the page cannot show: said on it
            source += f"; {_rejected_rows(stats)}, not on this page"
        # a link removes no record, and records of several files are kept by none of them
        kept = (
            _kept(args, report, primary=index.primary_source, index=index)
            if args.mode == "dedup" and len(inputs) < 2
            else None
        )
        page = review_index(
            index, out, report, title=args.title or "neardup review", source=source,
            kept=kept, keep=args.keep, max_pairs=args.max_pairs,
        )
        _say_shown(page)
    picked = args.ask is not None or args.check is not None
    asked = {"asked": [p.as_dict() for p in report.pairs]} if picked else {}
    read = {"input": stats.as_dict()} if stats is not None else {}
    emit(
        args,
        {**page.as_dict(), "path": str(args.out), "report": report.counts(), **read, **asked},
        f"{_count(page.pairs, 'pair')} in {_count(page.clusters, 'cluster')} of "
        f"{report.records} records -> "
        f"{args.out} ({page.bytes / 1024:.0f} KB)"
        + (f"; read {stats.read}, indexed {stats.indexed}, "
           f"{_rejected_rows(stats)}" if stats is not None else "")
        + decided_line(report)
        + rule_line(report.decision, report.completion, verbose=_verbose(args)),
    )
    return 0
