"""The verbs that work on an index: index, report, neighbors, search, delete, compare, evaluate,
plot; and the hook through which a plug-in adds methods to ``report`` (:data:`REPORT_METHODS`)."""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any, Protocol

from ..backends.base import Capability
from ..backends.duckdb_file import DuckDBBackend
from ..choose import SAMPLE
from ..constraints import NONE, check, declared
from ..decision.cluster import pair_clusters
from ..defaults import DEFAULTS
from ..errors import (
    ArgumentError,
    InputError,
    MissingColumn,
    ParameterMismatch,
    RecordNotFound,
    RejectedRows,
)
from ..evaluate import bcubed, score
from ..evaluate.compare import compare, format_compare
from ..evaluate.plot import plot_s_curve, restaurant_plots
from ..index import SHORT_QUERY, NearDupIndex
from ..keys import source_named
from ..options import ReportOptions
from ..out.output import (
    TABLE_FORMATS,
    cluster_columns,
    decided,
    decided_line,
    destination,
    is_stdout,
    pair_columns,
    rule_line,
    table_format,
    write_table,
)
from ..out.review import write_evaluation_page
from ..out.write import Outputs, same_file, write_clusters, write_pairs
from ..params import Params
from ..pipeline import IndexStats
from ..plan import Spark
from ..read.inputs import is_stream, no_file
from ..read.items import EmptyText, Item, Record, Unstored
from ..read.pair_files import STDIN, RowIds, align, read_pairs_file
from ..read.records import expected_records, read_records
from ..sign.text import check_text
from .common import (
    OPENED,
    check_outputs,
    emit,
    file_path,
    index_file_option,
    input_options,
    json_option,
    max_bucket_option,
    open_solr,
    out_option,
    param_options,
    progress,
    read_input,
    refuse_binary_to_terminal,
    say_source_column,
    solr_options,
    verbose_option,
)


def given_params(args: argparse.Namespace) -> dict[str, Any]:
    """The parameters of :class:`~neardup.params.Params` that the flags give (not None)."""
    names = {f.name for f in dataclasses.fields(Params)}
    given = {k: v for k, v in vars(args).items() if k in names and v is not None}
    for name in ("bands", "rows"):  # 0 means "chosen" to Params, not a number of them
        if given.get(name, 1) < 1:
            raise ArgumentError(
                f"--{name} {given[name]}: at least 1 (leave --bands and --rows out to have "
                "them chosen from the threshold)"
            )
    return given


def open_index(
    args: argparse.Namespace,
    create: bool = True,
    param_flags: bool = False,
    report_flags: tuple[str, ...] = (),
    writes: bool = True,
) -> NearDupIndex:
    """The index the flags name. With ``param_flags`` (``neardup index``) a new index gets the
    parameters the flags give (the rest are chosen from its first records); an existing one
    keeps its own, and a flag that disagrees with them is an error. ``report_flags`` name the
    parameter flags that mean the report's option here, not the index's (``--threshold`` of
    ``dedupe --no-index``)."""
    backend = _backend(args, create, writes)
    stored = backend.load_params()
    given = given_params(args) if param_flags else {}
    given = {k: v for k, v in given.items() if k not in report_flags}
    if stored is None:
        if not create:
            raise InputError(f"{backend.location} holds no neardup index (index a file first)")
        return NearDupIndex(backend=backend, given=given)
    index = NearDupIndex(backend=backend)
    diffs = [_differs(k, getattr(index.params, k), v) for k, v in given.items()
             if getattr(index.params, k) != v]  # fmt: skip
    if diffs:
        raise ParameterMismatch(
            f"the index at {backend.location} was built with other parameters "
            f"({'; '.join(diffs)}); leave those flags out to use its own, or index into a new "
            + ("index file" if getattr(args, "index_file", None) is not None else "collection")
        )
    return index


#: The flags that turn a parameter on or off, by the value they give.
_SWITCHES = {
    ("canonical", False): "--no-canonical", ("fold_accents", False): "--no-fold-accents",
    ("split_hyphens", False): "--keep-hyphens", ("fix_text", True): "--fix-text",
    ("fields_2014", True): "--fields-2014",
}  # fmt: skip


def _flag_of(name: str, value: Any) -> str:
    """The flag that gave a parameter: ``--no-canonical`` for canonical False (there is no
    ``--canonical`` to leave out), ``--keep-hyphens`` for split_hyphens False."""
    if isinstance(value, bool) and (name, value) in _SWITCHES:
        return _SWITCHES[(name, value)]
    flag = name.replace("_", "-")
    return f"--no-{flag}" if value is False else f"--{flag}"


def _differs(name: str, stored: Any, given: Any) -> str:
    """What a flag asks that the index was built otherwise: a switch in words (the index
    ``has canonical on``, not ``has True, given False``), a value as it is."""
    if isinstance(given, bool):
        words = name.replace("_", " ")
        return (f"{_flag_of(name, given)}: the index has {words} {'on' if stored else 'off'}, "
                f"the flag turns it {'on' if given else 'off'}")  # fmt: skip
    return f"{_flag_of(name, given)}: the index has {stored!r}, given {given!r}"


def _backend(args: argparse.Namespace, create: bool, writes: bool = True) -> Any:
    """The store the flags name: the DuckDB file of ``--index-file`` (opened read-only for a
    verb that only reads it), else Solr's collection."""
    path = getattr(args, "index_file", None)
    if path is None:
        # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not
        # need
        from ..backends.solr import SolrBackend

        return SolrBackend(open_solr(args, create=create))
    named = [f for f, v in (("--solr-url", args.solr_url), ("--collection", args.collection))
             if v is not None]  # fmt: skip
    if named:
        raise InputError(f"--index-file keeps the index in a file, not in Solr: leave out "
                         f"{' and '.join(named)}")  # fmt: skip
    if path.is_dir():
        raise InputError(f"{path}: a folder, not an index file")
    if not create and not path.is_file():
        raise InputError(f"{path}: no such index file (neardup index FILE --index-file {path} "
                         "makes one)")  # fmt: skip
    records = getattr(args, "file", None)
    if records is not None and path.exists() and same_file(Path(records), path):
        raise InputError(f"{records} is the index file itself: give the records' file, and "
                         "another --index-file")  # fmt: skip
    backend = DuckDBBackend(path, read_only=not writes)
    OPENED.append(backend)
    return backend


class ReportMethod(Protocol):
    """Methods a plug-in adds to ``report --method`` (the 2014 design's two): their names,
    their help, the flags only they read, and what runs them on the opened index."""

    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def help(self) -> str: ...
    @property
    def run(self) -> Callable[[argparse.Namespace, NearDupIndex], int]: ...
    @property
    def flags(self) -> Callable[[argparse.ArgumentParser], None] | None: ...


#: The declarations of the report's and the lookups' flags (:mod:`neardup.constraints`).
REPORT = declared("ReportOptions")
LOOKUP = declared("lookup")

#: ``report --method``'s choices besides lsh: the CLI adds the plug-ins' (neardup/cli/main.py)
#: before it builds the parser.
REPORT_METHODS: list[ReportMethod] = []


# -- the verbs' flags: one function per verb, in the order `neardup --help` lists them ----------
def register_index(sub: Any) -> None:
    p = sub.add_parser("index", help="index a file of records")
    p.add_argument("file", type=Path)
    input_options(p)
    param_options(p)
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit with code 2 if any record was rejected (the rest is indexed)",
    )
    p.add_argument(
        "--source",
        default=None,
        metavar="NAME",
        help="the source the file's records belong to (default: the file's path, or the "
        "--source-field column): a later file of changed rows indexed with the same --source "
        "replaces them instead of adding a second record",
    )
    p.add_argument(
        "--append",
        action="store_true",
        help="(the default now, kept for scripts) a file joins a collection with the "
        "collection's parameters, and a line says when its own data would get others",
    )
    p.add_argument(
        "--writers",
        type=int,
        default=2,
        help="concurrent update requests per batch (default 2: Solr indexes a request on one "
        "thread; more helps a Solr with more cores)",
    )
    json_option(p, "print the counts as JSON")
    solr_options(p)
    index_file_option(p)
    p.set_defaults(func=cmd_index)


def register_report(sub: Any) -> None:
    p = sub.add_parser("report", help="all near-duplicate pairs of an index, as TSV")
    p.add_argument(
        "--method",
        choices=["lsh", *(n for m in REPORT_METHODS for n in m.names)],
        default="lsh",
        help="; ".join(["lsh: banded MinHash in Solr, verified by Jaccard (default)",
                        *(m.help for m in REPORT_METHODS)]),
    )  # fmt: skip
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help=f"lsh: smallest verified Jaccard, {REPORT['threshold'].constraints[0]} (default: "
        "the index's threshold)",
    )
    p.add_argument(
        "--max-dist",
        type=int,
        default=None,
        help="largest word edit distance (lsh: no limit; other methods: their own default)",
    )
    _report_table_options(p)
    _report_rule_options(p)
    _report_added_options(p)
    _report_scope_options(p)
    for flags in dict.fromkeys(m.flags for m in REPORT_METHODS if m.flags):
        flags(p)
    json_option(p, "print the counts as JSON")
    verbose_option(p, "also say how the pairs were decided: the valley, the checks, clusters")
    solr_options(p)
    index_file_option(p)
    p.set_defaults(func=cmd_report)


def _report_table_options(p: argparse.ArgumentParser) -> None:
    """Where the pairs go, and as what: ids only or a table."""
    out_option(
        p,
        "the pairs file to write ('-': standard output); ids only (id1 id2 jaccard "
        "edit_distance, TSV) unless --format or a .csv, .jsonl or .parquet name asks for a table",
    )
    p.add_argument(
        "--format",
        choices=list(TABLE_FORMATS),
        default=None,
        help="pairs and clusters as a table: ids, similarity, edit distance, reason, and the "
        "records' sources and texts (without it, a file named .csv, .jsonl or .parquet is that "
        "table, other files hold ids only; an output named for another format is an error)",
    )
    p.add_argument(
        "--text-column",
        default=None,
        metavar="NAME",
        help="with a table: the records' column NAME instead of their whole text",
    )


def _report_rule_options(p: argparse.ArgumentParser) -> None:
    """Which pairs are kept: the mode, the pruning, the similarity, the checks, the labels."""
    p.add_argument(
        "--mode",
        choices=REPORT["mode"].choices,
        default="dedup",
        help="lsh: dedup (default) pairs any two records; link pairs only records of "
        "different sources (the files they were indexed from)",
    )
    p.add_argument(
        "--prune",
        choices=REPORT["prune"].choices,
        default=None,
        help="lsh: keep every verified pair (none: the default in dedup mode), give each record "
        "at most one partner in each other source (one-to-one: the default in link mode), keep "
        "a pair only if it is the best match of one of its records (best) or of both (mutual)",
    )
    p.add_argument(
        "--similarity",
        choices=REPORT["similarity"].choices,
        default="auto",
        help="lsh: what decides a pair: jaccard (shingle sets, LSH candidates), weighted "
        "(TF-IDF cosine, each record's top candidates, one partner each, the relative rule; "
        "in dedup mode for duplicates that come one to a record and are written differently, "
        "as two catalogues in one file), auto (default: weighted in link mode when the index's "
        "parameters were chosen from the data and no --threshold is given, else jaccard)",
    )
    p.add_argument(
        "--no-numbers-check",
        dest="numbers_check",
        action="store_false",
        help="lsh: keep the pairs whose records hold different numbers (house, model, phone "
        "numbers; by default dropped where the data's numbers identify records)",
    )
    p.add_argument(
        "--no-names-check",
        dest="names_check",
        action="store_false",
        help="link mode: keep the pairs of two names (records of a few words) that each hold a "
        "word the other has nothing of ('Peter Mortimer', 'John Mortimer'; by default dropped "
        "below cosine 0.7): nicknames, translated names ('Dick', 'Richard')",
    )
    p.add_argument(
        "--columns",
        default=None,
        metavar="A=B[,C=D]",
        help="lsh: columns of two sources that are one (title=product_name); the others are "
        "matched by name and by content",
    )
    p.add_argument(
        "--labels",
        type=Path,
        default=None,
        metavar="FILE",
        help="link: decide by the rule a reviewer's labels teach (the review page's labels.tsv: "
        "source1 id1 source2 id2 label, match or non-match); 'neardup review --ask N' picks "
        "the pairs to label. Pairs 'review --check N' drew at random (asked: at random) say "
        "the precision, in any mode",
    )


def _report_added_options(p: argparse.ArgumentParser) -> None:
    """What comes with the pairs: the dropped ones, the completed clusters, the clusters."""
    p.add_argument(
        "--dropped",
        type=file_path,
        default=None,
        help="lsh: write the pairs the decision's checks dropped (numbers, columns) to this "
        "file, in the format of --out, with a column 'check'",
    )
    p.add_argument(
        "--complete",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="lsh: add the missing pairs of clusters whose pairs are at least 70%% verified "
        "(default: on in dedup mode without pruning when the threshold is read off the data, "
        "off with a fixed --threshold)",
    )
    p.add_argument(
        "--clusters",
        type=file_path,
        default=None,
        help="lsh: also write the clusters (center clustering: every member is a pair of its "
        "cluster's center, so clusters do not chain), one a line: center, the smallest "
        "similarity of a member to it, the other members; or as a table (--format: one record "
        "a row with its cluster's number)",
    )


def _report_scope_options(p: argparse.ArgumentParser) -> None:
    """Which records are reported (new ones, a bucket's bound) and where the report runs."""
    new = p.add_mutually_exclusive_group()
    new.add_argument(
        "--new",
        action="store_true",
        help="lsh: only the pairs of the records of the latest 'neardup index' run (each run "
        "is a batch), at a cost that follows their number, not the index's; in link mode the "
        "pairs a full weighted link gives them; none, said so, once that batch's records were "
        "deleted",
    )
    new.add_argument(
        "--since",
        type=int,
        default=None,
        metavar="BATCH",
        help="lsh: only the pairs of the records of this batch (printed by 'neardup index') "
        "or later ones",
    )
    max_bucket_option(p)
    p.add_argument(
        "--engine",
        choices=REPORT["engine"].choices,
        default="auto",
        help="lsh: where the report runs: auto (default: this process while the report's "
        "estimated memory fits --memory, else duckdb), memory (this process), duckdb (one "
        "plan of table operations on DuckDB: every core, spilling to disk past --memory; the "
        "same pairs; the full report only) or spark (the same plan on Spark: --spark-master)",
    )
    p.add_argument(
        "--memory",
        default=None,
        metavar="SIZE",
        help="the memory the report may take (8GB, 500MB; default: a quarter of this machine's): "
        "what --engine auto decides by, and DuckDB's or Spark's memory limit",
    )
    p.add_argument(
        "--spark-master",
        default=None,
        metavar="URL",
        help="--engine spark: the master as Spark takes it (local[2], spark://host:7077, yarn, "
        "k8s://...); default local[*], every core of this machine",
    )


def register_neighbors(sub: Any) -> None:
    p = sub.add_parser("neighbors", help="the records most similar to one record")
    p.add_argument("id")
    p.add_argument(
        "--source",
        default=None,
        help="the source the record is of (default: the collection's first source); "
        "a record is its source and its id",
    )
    _lookup_options(p)
    p.set_defaults(func=cmd_neighbors)


def register_search(sub: Any) -> None:
    p = sub.add_parser("search", help="the records most similar to a text")
    p.add_argument("text")
    _lookup_options(p)
    p.set_defaults(func=cmd_search)


def _lookup_options(p: argparse.ArgumentParser) -> None:
    """What neighbors and search share: how many records, how similar, and where."""
    p.add_argument("-k", type=int, default=10, help=f"how many, {LOOKUP['k'].allowed} "
                   "(default 10)")  # fmt: skip
    p.add_argument(
        "--threshold",
        type=float,
        default=0.0,
        help=f"smallest Jaccard, {LOOKUP['threshold'].allowed} (default 0); search: of a query "
        f"of at most {SHORT_QUERY} words, the smallest share of it a record holds",
    )
    json_option(p)
    solr_options(p)
    index_file_option(p)


def register_info(sub: Any) -> None:
    p = sub.add_parser(
        "info", help="what a collection holds: records, sources, parameters, batches"
    )
    json_option(p)
    solr_options(p)
    index_file_option(p)
    p.set_defaults(func=cmd_info)


def register_delete(sub: Any) -> None:
    p = sub.add_parser("delete", help="remove records (and their band keys) from an index")
    p.add_argument("ids", nargs="*", help="ids to remove")
    p.add_argument("--ids-file", type=Path, default=None,
                   help="a file of ids, one a line (blank lines and lines starting with # are "
                   "left out, and counted: give such an id on the command line)")
    p.add_argument(
        "--source",
        default=None,
        help="the source the ids are of (default: the collection's first source)",
    )
    json_option(p)
    solr_options(p)
    index_file_option(p)
    p.set_defaults(func=cmd_delete)


def register_drop(sub: Any) -> None:
    p = sub.add_parser(
        "drop", help="delete a whole collection neardup made: its records, schema and files"
    )
    p.add_argument("name", metavar="COLLECTION", help="the collection (core) to drop")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument(
        "--force",
        action="store_true",
        help="drop it even if neardup did not make it (no stored parameters or fields)",
    )
    json_option(p)
    solr_options(p, collection=False)
    p.set_defaults(func=cmd_drop)


def register_compare(sub: Any) -> None:
    p = sub.add_parser("compare", help="LSH against exact brute force on an index")
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="Jaccard threshold for both (default: the index's)",
    )
    json_option(p)
    solr_options(p)
    index_file_option(p)
    p.set_defaults(func=cmd_compare)


def register_evaluate(sub: Any) -> None:
    p = sub.add_parser("evaluate", help="score a file of pairs against gold pairs")
    p.add_argument(
        "pairs",
        type=Path,
        help="the pairs found: neardup's pairs table (.tsv, .csv, .jsonl, .parquet, read by its "
        "header: id1 id2 and source1 source2 where it has them) or two ids a line; '-': stdin",
    )
    p.add_argument(
        "--gold",
        type=Path,
        required=True,
        help="the true pairs, in any of those forms (e.g. 'D1|D2' over '12|345', or id1 id2 "
        "source1 source2 where two files share ids); '-': stdin",
    )
    p.add_argument(
        "--html",
        type=file_path,
        default=None,
        metavar="PAGE.html",
        help="also write a review page: false positives and missed pairs side by side ('-': "
        "stdout, the scores going to stderr)",
    )
    p.add_argument(
        "--records",
        type=Path,
        action="append",
        default=None,
        help="a records file (any input format; again for each file of a link): B-cubed "
        "averages over every record (else over the records in some pair), and --html shows "
        "the pairs' texts. Where pairs name sources, a record's source is its file as given",
    )
    p.add_argument(
        "--id-field",
        default=None,
        help="the records' id column/key in --records, and in a clusters table without an "
        "'id' column (dedupe --cluster-column's of a file without one), as dedupe was given it "
        "(default: 'id' if there is one, else the one column named as an id, else line numbers: "
        "@row)",
    )
    p.add_argument(
        "--source-field",
        default=None,
        metavar="COLUMN",
        help="the column of each record's source in a clusters table (cluster, id) such as "
        "dedupe --source-field COLUMN --cluster-column cluster writes (default: 'source'), and "
        "in --records, as dedupe was given it",
    )
    p.add_argument(
        "--cluster-column",
        default="cluster",
        metavar="NAME",
        help="the cluster's column of a clusters table, as dedupe --cluster-column was given "
        "it (default: 'cluster'; with NAME_source, the kept record's source, where dedupe wrote "
        "one)",
    )
    p.add_argument(
        "--similarity-column",
        default="similarity",
        metavar="NAME",
        help="the similarity's column of a clusters table, as dedupe --similarity-column was "
        "given it (default: 'similarity')",
    )
    json_option(p)
    p.set_defaults(func=cmd_evaluate)


def register_plot(sub: Any) -> None:
    p = sub.add_parser("plot", help="PNG pictures: S-curve, bands x rows sweep, P/R vs threshold")
    p.add_argument(
        "what",
        choices=["restaurants", "s-curve"],
        help="restaurants: all three pictures on the bundled data; s-curve: one curve",
    )
    p.add_argument("--out-dir", type=Path, default=Path("out/plots"))
    p.add_argument("--threshold", type=float, default=None, help="s-curve: Jaccard threshold")
    p.add_argument("--num-perm", type=int, default=None, help="s-curve: MinHash values")
    p.add_argument("--bands", type=int, default=None, help="s-curve: bands (default: chosen)")
    p.add_argument("--rows", type=int, default=None, help="s-curve: rows (default: chosen)")
    p.set_defaults(func=cmd_plot)


#: Rejections printed with ``--quiet``.
QUIET_SHOWN = 5


def print_stats(
    stats: IndexStats, out: Any = sys.stderr, quiet: bool = False, written: bool = False
) -> None:
    """The lines rejected: each one, or with ``quiet``, the first few and the counts by
    reason. ``written``: the records the index could not store are written as they are
    (``dedupe``), so they are not called rejected."""
    shown = stats.rejections[:QUIET_SHOWN] if quiet else stats.rejections
    for r in shown:
        what = "empty text, not indexed:" if isinstance(r, EmptyText) else "rejected"
        if written and isinstance(r, Unstored):
            what = "not compared, written as it is:"
        print(f"neardup: {what} {r}", file=out)
    hidden = stats.rejected - len(shown)
    if hidden > 0:
        print(f"neardup: ... and {hidden} more rejected records not shown", file=out)
    if quiet and hidden > 0:
        counts = sorted(stats.reasons.items(), key=lambda kv: -kv[1])
        print(
            "neardup: rejected by reason: " + "; ".join(f"{k}: {n}" for k, n in counts),
            file=out,
        )
    if stats.identical:
        print(
            f"neardup: {stats.identical} identical rows (the id and text of an earlier line) "
            "indexed once",
            file=out,
        )


def check_indexed(stats: IndexStats, path: Path) -> None:
    """An error if nothing at all was indexed from ``path`` (:func:`nothing_indexed`)."""
    problem = nothing_indexed(stats, path)
    if problem:
        raise InputError(problem)


def nothing_indexed(stats: IndexStats, path: Path) -> str | None:
    """Why nothing at all was indexed from ``path``, and which flags help (None if some was)."""
    if stats.indexed or stats.identical:
        return None
    if not stats.read:
        return f"{path}: nothing was indexed: the file holds no records"
    if stats.empty + stats.wordless == stats.read:  # read, but nothing in them to compare
        return (
            f"{path}: nothing was indexed: none of its {stats.read} records holds a word (their "
            "texts are empty or punctuation only); name the column that holds the text with "
            "--text-field (a nested JSON key by its path, e.g. --text-field item.title)"
        )
    top = max(stats.reasons.items(), key=lambda kv: kv[1])[0] if stats.reasons else "rejected"
    hint = ""
    if top.startswith(("no text in", "missing id field", "field ")):
        hint = (
            " (name the fields with --text-field and --id-field; a nested JSON key by its "
            "path, e.g. --text-field item.title)"
        )
    return (
        f"{path}: nothing was indexed: all {stats.read} records were rejected, most for "
        f"{top!r}{hint}"
    )


def _large(result: Any) -> str:
    """The buckets the bound applied to, and the candidates the per-record cap dropped."""
    out = ""
    if result.large_buckets:
        out = (
            f" ({result.large_buckets} of more than {result.max_bucket} records paired only "
            "on a second shared band)"
        )
    if result.identical:
        out += (
            f" ({result.identical} records of groups of more than {result.repeated} "
            "with the same band keys paired with their group's first record only"
            + (f": all their pairs would be more than {DEFAULTS.identical_pairs} a record)"
               if result.repeated < DEFAULTS.repeated_group else ")")  # fmt: skip
        )
    if result.capped:
        out += (
            f" ({result.capped} candidates over the cap of {result.cap} a record dropped: "
            "each record kept those sharing the most bands)"
        )
    return out


def add_records(index: NearDupIndex, items: Any, **options: Any) -> IndexStats:
    """``index.add_many`` for a file the flags name: a missing column names the flags; the
    rows rejected are printed by the verb, each with its line (not the library's note)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RejectedRows)
            return index.add_many(items, **options)
    except MissingColumn as exc:
        raise InputError(f"{exc} (--id-field, --text-field)") from None


def _chosen(index: NearDupIndex) -> dict[str, Any] | None:
    return index.chosen.as_dict() if index.chosen else None


def print_choice(index: NearDupIndex, out: Any = sys.stderr) -> None:
    """What a new index chose from its first records, and why (nothing for an existing one)."""
    if index.joined is not None:
        print(
            "note: another indexer created the collection first; this file's records were "
            f"indexed with its parameters ({index.joined}), not those chosen from them",
            file=out,
        )
    if index.chosen is None:
        return
    print(f"neardup: parameters chosen from the data: {index.params.describe()}", file=out)
    for reason in index.chosen.reasons:
        print(f"neardup:   {reason}", file=out)


class _Padded:
    """How many records of a file are table rows padded to their header (``Record.padded``),
    for ``--json``: counted here, as they go by, beside the counts of the writer."""

    def __init__(self) -> None:
        self.rows = 0

    def over(self, items: Iterable[Item]) -> Iterator[Item]:
        for item in items:
            if isinstance(item, Record) and item.padded:
                self.rows += 1
            yield item


def cmd_index(args: argparse.Namespace) -> int:
    padded = _Padded()
    items = read_input(args, args.file).through(padded.over)
    if args.source is not None:  # a bad name or both flags: refused before Solr is started
        _named_source((), args.source, args.source_field)
    if not 1 <= args.writers <= 64:
        raise InputError(f"--writers must be between 1 and 64, got {args.writers}")
    Params(**given_params(args))  # bad flags are reported before Solr is started
    file = getattr(args, "index_file", None)
    made = file is not None and not Path(file).exists()  # an index file this run creates
    index = open_index(args, param_flags=True)
    if args.source is not None:  # the source delete and neighbors name by the same --source
        args.source = index.source_given(args.source)
        items = _named_source(items, args.source, None)
    elif args.source_field is None:
        args.source = _file_source(index, args.file)
        if args.source is None:  # a pipe: every one is named alike
            _check_piped_again(index, args.file)
        elif args.source != str(args.file):
            items = _named_source(items, args.source, None)
    if args.source_field is None and index.chosen is None:
        _joining_note(args, index)
    total = expected_records(args.file, args.format)  # a new index chooses for it; the bar
    try:
        stats = add_records(index, items, writers=args.writers, progress=progress(args),
                            total=total)  # fmt: skip
    except InputError:  # a column or key the file lacks, refused before any record is written
        _drop_if_empty(index, file if made else None)
        raise
    except KeyboardInterrupt:  # what is there now, and how to finish it
        print(
            f"neardup: {args.file}: interrupted while indexing; the records written before it "
            f"stay in {index.backend.location}: run the same command again to index the rest "
            "(a record is replaced by its source and id, never doubled)",
            file=sys.stderr,
        )
        raise
    print_stats(stats, quiet=args.quiet)
    say_source_column(args, args.file, stats.rejections)
    print_choice(index)
    problem = nothing_indexed(stats, args.file)
    source = args.source if args.source is not None else str(args.file)
    left = _not_written(index, source, stats) if args.source_field is None else 0
    emit(
        args,
        {
            **stats.as_dict(),
            "params": index.params.to_dict(),
            "chosen": _chosen(index),
            "batch": index.batch_written,
            "not_in_file": left,
            "padded_rows": padded.rows,
        },
        f"{args.file}: read {stats.read}, indexed {stats.indexed}, rejected {stats.rejected}"
        + (f" ({stats.empty} with an empty text)" if stats.empty else "")
        + (f", identical rows {stats.identical}" if stats.identical else "")
        + f", blank lines {stats.blank} -> {index.backend.location} ({stats.seconds:.1f} s)"
        + ("" if problem else f"; batch {index.batch_written} (report --new: only its pairs)"),
    )
    _say_not_written(left, source)
    if problem:  # after the counts, which --json still prints
        _drop_if_empty(index, file if made else None)
        print(f"neardup: error: {problem}", file=sys.stderr)
        return 2
    return 2 if args.strict and stats.rejected else 0


def _drop_if_empty(index: NearDupIndex, made: str | Path | None) -> None:
    """The index file ``made`` by this run (None: none was), removed if it holds no record: no
    index is left behind that holds nothing, by a run that ends in an error."""
    if made is None or index.backend.count():
        return
    index.close()
    for leftover in (Path(made), Path(f"{made}.wal")):
        leftover.unlink(missing_ok=True)


def _not_written(index: NearDupIndex, source: str, stats: IndexStats) -> int:
    """How many records of ``source`` the index holds that this run did not write: indexed
    before from rows the file no longer has. A run upserts by source and id, it never
    prunes, so they stay; counted (one count of the source, after the run) to be said."""
    return max(0, index.backend.source_records(source) - stats.indexed)


def _say_not_written(left: int, source: str) -> None:
    """The note for :func:`_not_written`'s records: "indexing it again replaces its records"
    read as the index now being the file, and a re-run after rows were deleted from the file
    left them, with their pairs, without a word."""
    if not left:
        return
    what, are, stay = ("records", "are", "they stay") if left > 1 else ("record", "is", "it stays")
    print(
        f"neardup: note: {left} {what} of {source} indexed before {are} not in this file: "
        f"{stay} in the index (a file of changed rows updates the records it holds); "
        f"'neardup delete ID... --source {shlex.quote(source)}' (or --ids-file FILE) removes "
        "records",
        file=sys.stderr,
    )


def _check_piped_again(index: NearDupIndex, path: Path) -> None:
    """Refuse a pipe (``/dev/stdin``, ``<(...)``) without ``--source`` into an index that
    holds records piped under that name before: every pipe has the same name, so a second
    file's ids silently replaced the first one's records."""
    held = index.backend.source_records(str(path))
    if held:
        raise InputError(
            f"{path}: the index holds {held} record{'s' if held > 1 else ''} piped earlier "
            f"under the source name {path}, which this input's records would replace where "
            "their ids are the same: give --source NAME (a new name keeps them apart; the "
            "same name replaces them)"
        )


def _file_source(index: NearDupIndex, path: Path) -> str | None:
    """The source a file's records get by default (:meth:`NearDupIndex.source_of_file`)."""
    return index.source_of_file(path)


def _given_source(index: NearDupIndex, source: str | None) -> str | None:
    """A ``--source`` as the collection names it (:meth:`NearDupIndex.source_given`, as
    ``index --source`` names it): the name the collection holds, else a file (or a folder of
    documents) given by another spelling of its path is the source it knows it by."""
    return source if source is None else index.source_given(source)


def _named_source(items: Any, name: str, source_field: str | None) -> Any:
    """The records of a file as records of the source ``name`` (``--source``): the same source
    and id is the same record, so changed rows sent again replace their records."""
    if source_field is not None:
        raise InputError("give --source (one source for the file) or --source-field, not both")
    if not name.strip() or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise InputError(f"--source must be a name without control characters, got {name!r}")
    return (
        dataclasses.replace(item, source=name, file=item.file or item.source)
        if isinstance(item, Record)
        else item
        for item in items
    )


def _joining_note(args: argparse.Namespace, index: NearDupIndex) -> None:
    """Say in one line when ``args.file`` joins a collection of other files' records with
    parameters its own data would not get (neardup.collection.joining_note): the
    collection's parameters stand for every later file the user gives none for."""

    # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not need
    from ..collection import joining_note

    backend = index.backend
    described = isinstance(backend, DuckDBBackend)  # an index file, described as a collection
    described = described or Capability.COLLECTION_INFO in backend.capabilities
    if not described or backend.load_params() is None:
        return  # a new index (a Solr collection or an index file): its parameters its own
    if str(args.file) == STDIN or not Path(args.file).is_file():
        return  # a pipe is read once: a sample taken here would be the records never indexed
    sample = (r.text for r in read_input(args, args.file) if isinstance(r, Record))
    source = args.source if args.source is not None else str(args.file)
    note = joining_note(
        backend, index.params, source, list(islice(sample, SAMPLE)), given_params(args)
    )
    if note:
        print(f"note: {note}", file=sys.stderr)


def cmd_info(args: argparse.Namespace) -> int:
    # lazy: both pull in pysolr and requests, which --help and the verbs without Solr do not need
    from ..backends.solr import SolrBackend
    from ..collection import describe, describe_file, format_info

    if getattr(args, "index_file", None) is not None:
        info = describe_file(_backend(args, create=False, writes=False))
    else:
        info = describe(SolrBackend(open_solr(args, create=False)))
    emit(args, info, format_info(info))
    return 0


def _threshold_flag(args: argparse.Namespace) -> None:
    """``--threshold`` checked as the flag a person typed: 'threshold must be ... or None'
    named neither the flag nor a value one can type."""
    if args.threshold is not None:
        allowed = [c for c in REPORT["threshold"].constraints if c is not NONE]
        check("--threshold", args.threshold, *allowed)


def _report_outputs(args: argparse.Namespace) -> None:
    """``report``'s outputs checked before the work, not after it: none the labels, and none
    named for another format than the one it would be written in."""
    if is_stdout(args.dropped):
        raise InputError("--dropped needs a file, not standard output ('-')")
    named = (("--out", "report"), ("--clusters", "clusters file"), ("--dropped", "--dropped"))
    check_outputs(args, named, [args.labels] if args.labels is not None else [])
    for flag, _ in named:
        path = getattr(args, flag.lstrip("-"))
        refuse_binary_to_terminal(flag, path, table_format(path, args.format, flag))


def cmd_report(args: argparse.Namespace) -> int:
    _threshold_flag(args)
    _report_outputs(args)
    engine: Any = args.engine
    if args.spark_master is not None:
        if args.engine != "spark":
            raise InputError("--spark-master says where Spark runs: use it with --engine spark")
        engine = Spark(master=args.spark_master)
    index = open_index(args, create=False, writes=False)
    if args.method != "lsh" and (args.new or args.since is not None):
        raise InputError("--new and --since report LSH pairs: use them with --method lsh")
    if args.method == "lsh":
        since = args.since
        if since is not None and not index.batch_records(since):
            # a batch number mistyped was read as "since then": another set of records
            last = index.last_batch()
            raise InputError(
                f"--since {since}: no record of that batch is in {index.backend.location} ("
                + ("its records were deleted: it is the newest batch written; 'report --new' "
                   "says so and reports no pair)" if since == last
                   else f"the latest batch is {last}; each 'neardup index' prints its own)"
                   if last is not None else "it holds no record)")
            )  # fmt: skip
        if args.new:
            since = index.last_batch()
            if since is None:
                raise InputError(f"{index.backend.location} holds no batch of records to report")
        options = ReportOptions(
            args.threshold,
            mode=args.mode,
            prune=args.prune,
            max_dist=args.max_dist,
            progress=not args.json,
            since=since,
            max_bucket=args.max_bucket,
            complete=args.complete,
            similarity=args.similarity,
            numbers_check=args.numbers_check,
            names_check=args.names_check,
            columns=args.columns,
            engine=engine,
            memory=args.memory,
        )
        result = index.report(options=options, labels=args.labels)
        counts = result.counts()
        with Outputs():  # the pairs, the dropped and the clusters replaced together, or none
            _write_pairs(args, result, index)
            if args.dropped is not None:
                _write_dropped(args, result, index)
            if args.clusters:
                groups = pair_clusters(result.pairs, index.primary_source)
                _write_clusters(args, groups, index)
                counts["clusters"] = len(groups)
        emit(
            args,
            counts,
            f"{result.records} records"
            + (
                f" ({result.new_records} of batch {result.since} or later)"
                if result.since is not None
                else ""
            )
            + (f", {result.bands} bands: {result.buckets} shared buckets{_large(result)}, "
               if result.bands else ": ")  # fmt: skip
            + f"{result.candidates} candidate pairs, {result.verified} verified, "
            f"{result.confirmed} kept ({result.mode}, pruning {result.prune}, "
            f"{decided(result)}) -> {args.out}"
            + (f"; {counts['clusters']} clusters -> {args.clusters}" if args.clusters else "")
            + f" ({result.seconds:.1f} s)"
            + decided_line(result)
            + _new_line(result)
            + _dropped_line(result, args.dropped)
            + _engine_line(result, args.verbose)
            + rule_line(result.decision, result.completion, verbose=args.verbose),
        )
        return 0
    return next(m for m in REPORT_METHODS if args.method in m.names).run(args, index)


def _new_line(result: Any) -> str:
    """What a report of new records owes to its rule (a bar read off their pairs, a link's
    weights learned again), where the rule says; and why it has none, where it has none."""
    said = (result.rule or {}).get("new") if result.since is not None else None
    none = f"\n{result.nothing_new}" if result.nothing_new else ""
    return (f"\nnew records: {said}" if said else "") + none


def _engine_line(result: Any, verbose: bool) -> str:
    """Where the report ran and why: always when not in this process, with -v otherwise."""
    if result.engine == "memory" and not verbose:
        return ""
    return f"\nengine: {result.engine}; {result.engine_why}" if result.engine_why else ""


def _dropped_line(result: Any, path: Path | None) -> str:
    """One line for the pairs the checks dropped, and where to read them."""
    counts = {check: len(pairs) for check, pairs in result.dropped.items() if pairs}
    if not counts:
        return ""
    said = ", ".join(f"{n} by the {check} check" for check, n in counts.items())
    where = f"listed in {path}" if path is not None else "--dropped FILE lists them"
    flags = [f"--no-{c}-check" for c in ("numbers", "names") if c in counts]
    keep = f"; {' and '.join(flags)} keep{'s' if len(flags) == 1 else ''} them" if flags else ""
    return f"\n{sum(counts.values())} pairs dropped ({said}): {where}{keep}"


def _write_dropped(args: argparse.Namespace, result: Any, index: NearDupIndex) -> None:
    """The pairs the checks dropped, as a pairs table with the check that dropped each."""
    pairs = [p for found in result.dropped.values() for p in found]
    checks = [check for check, found in result.dropped.items() for _ in found]
    fmt = table_format(args.dropped, args.format, "--dropped") or "tsv"
    columns = pair_columns(dataclasses.replace(result, pairs=pairs), index, args.text_column)
    write_table({**columns, "check": checks}, args.dropped, fmt)


def _write_pairs(args: argparse.Namespace, result: Any, index: NearDupIndex) -> None:
    """The pairs file: ids only, or a table with texts, sources and reasons (neardup.out.output)."""
    fmt = table_format(args.out, args.format)
    if fmt is None:
        with destination(args.out) as target:
            write_pairs(result.pairs, target, index.primary_source, linked=result.mode == "link")
        return
    write_table(pair_columns(result, index, args.text_column), args.out, fmt)


def _write_clusters(args: argparse.Namespace, groups: list[Any], index: Any) -> None:
    """The clusters file: one center cluster a line, or a table of one record a row."""
    fmt = table_format(args.clusters, args.format, "--clusters")
    if fmt is None:
        with destination(args.clusters) as target:
            write_clusters(groups, target, index.primary_source)
        return
    members = [g.members for g in groups]
    write_table(cluster_columns(members, index, args.text_column), args.clusters, fmt)


def _matches(
    args: argparse.Namespace, matches: list[Any], title: str, primary: str | None,
    several: bool = False,
) -> None:
    """The matches, each record by its id and, where another source is in play (a match of
    one, the record asked about is of one, or the collection holds several: ``several``), by
    its source too: an id alone would name a record of either."""
    if any(m.source for m in matches) or getattr(args, "source", None) or several:
        matches = [m if m.source else dataclasses.replace(m, source=primary) for m in matches]
    # --json names every record's source, the primary's too: a script reading "source": null
    # could not tell which of two files' records "1" is
    named = [m if m.source else dataclasses.replace(m, source=primary) for m in matches]
    lines = [title] + [
        (f"{m.containment:.3f} of the query, " if m.containment is not None else "")
        + f"{m.jaccard:.3f}  {m.id}{f' ({m.source})' if m.source else ''}: {m.text}  "
        f"(edit distance {m.edit_distance}, {m.shared_bands} shared bands)"
        for m in matches
    ]
    if not matches:
        lines.append("(no similar records)")
    emit(args, {"matches": [m.as_dict() for m in named]}, "\n".join(lines))


def _several_sources(index: NearDupIndex) -> bool:
    """Whether the collection holds records of more than one source
    (:meth:`NearDupIndex.source_counts`: one facet request where the storage keeps one)."""
    backend = index.backend
    if Capability.COLLECTION_INFO in backend.capabilities and backend.load_params() is None:
        return False  # a collection never written to: no records, no sources
    return index.source_counts(1)[1] > 1


def _k(args: argparse.Namespace) -> None:
    """-k and --threshold of a lookup, checked as the library checks them, before Solr is
    asked."""
    check("-k", args.k, *LOOKUP["k"].constraints)
    check("--threshold", args.threshold, *LOOKUP["threshold"].constraints)


def cmd_neighbors(args: argparse.Namespace) -> int:
    _k(args)
    index = open_index(args, create=False, writes=False)
    p = index.params
    args.source = _given_source(index, args.source)
    try:
        # an id as the readers store it: around spaces are not part of it
        matches = index.neighbors(args.id.strip(), args.k, args.threshold, source=args.source)
    except RecordNotFound as exc:  # the sources that hold it, named by the flag
        _known_source(index, args.source)
        raise InputError(f"{exc.message}{_holding_flag(exc.holding)}") from None
    several = _several_sources(index)
    source = args.source or (index.primary_source if several else None)
    of = f" of {source}" if source else ""
    _matches(
        args,
        matches,
        f"records most similar to {args.id}{of} (Jaccard of {p.shingle_kind} "
        f"{p.shingle_size}-gram shingles):",
        index.primary_source,
        several,
    )
    return 0


#: The sources an error lists by name at most (beyond, how many there are).
SOURCES_SHOWN = 5


def _known_source(index: NearDupIndex, source: str | None) -> None:
    """Refuse a ``--source`` the index holds no record of, naming its sources: a typo (or a
    file's bare name where the index knows its path) read as "no such id" in that source."""
    if source is None or index.backend.source_records(source):
        return
    counts, many = index.source_counts(SOURCES_SHOWN)
    names = [shlex.quote(s) for s in counts if s != "(none)"]
    if not names:
        its = "it holds no named source"
    elif many > len(names):
        its = f"it holds {many} sources ('neardup info' lists them)"
    else:
        its = f"its source{'s are' if len(names) > 1 else ' is'} {', '.join(names)}"
    raise InputError(
        f"--source {shlex.quote(source)} is not a source of {index.backend.location} (it "
        f"holds no record of it): {its}"
    )


def _other_sources(index: NearDupIndex, ids: list[str], source: str | None) -> str:
    """A hint for ids not found in ``source``: the other sources of the collection that hold
    them, and the flag that names one (a record is its source and its id)."""
    return _holding_flag(index.sources_holding(ids, source))


def _holding_flag(holding: list[str]) -> str:
    if not holding:
        return ""
    return f"; the source{'s' if len(holding) > 1 else ''} {', '.join(holding)} " + (
        f"{'hold' if len(holding) > 1 else 'holds'} records with such ids (--source "
        f"{shlex.quote(holding[0])} names those)"  # as a shell reads it: '*' stays '*'
    )


def cmd_search(args: argparse.Namespace) -> int:
    _k(args)
    check_text(args.text, "the search text")  # before Solr: undecodable argv bytes end here
    index = open_index(args, create=False, writes=False)
    short = len(index.processor.words(args.text)) <= SHORT_QUERY
    _matches(
        args,
        index.search(args.text, args.k, args.threshold),
        "records holding most of the text (containment, then Jaccard):"
        if short
        else "records most similar to the text:",
        index.primary_source,
        _several_sources(index),
    )
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    ids = [i.strip() for i in args.ids if i.strip()]  # as the readers store them
    comments = 0
    if args.ids_file is not None:
        path = args.ids_file
        if not (path.is_file() or is_stream(path)):  # a pipe (<(...), /dev/stdin) is read too
            raise InputError(no_file(path))  # a directory is not "no such file"
        data = path.read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise InputError(f"{path}:{line}: invalid UTF-8 (byte {exc.start + 1})") from None
        for line in text.splitlines():
            value = line.strip()
            if value.startswith("#"):  # a comment, counted: an id '#5' is not asked for
                comments += 1
            elif value:
                ids.append(value)
    if not ids:
        given = " (its lines are all blank or comments: give such ids on the command line)" \
            if args.ids_file is not None else ""  # fmt: skip
        raise InputError(f"give ids to delete, or --ids-file{given}")
    ids = list(dict.fromkeys(ids))  # an id given twice is asked for once
    index = open_index(args, create=False)
    args.source = _given_source(index, args.source)
    _known_source(index, args.source)
    present = set(index.backend.sources([index.key(i, args.source) for i in ids]))
    missing = [i for i in dict.fromkeys(ids) if index.key(i, args.source) not in present]
    # whose records: of several sources, the primary one's unless --source (as neighbors says)
    several = args.source is None and _several_sources(index)
    with warnings.catch_warnings():  # the ids not found are said below, with the flag to give
        warnings.simplefilter("ignore", UserWarning)
        removed = index.remove(ids, source=args.source)
    after = len(index)
    source = args.source or (index.primary_source if several else None)
    of = f" of {source}" if source else ""
    text = (
        f"asked to remove {len(ids)} ids{of}: {removed} removed, {after} records left in "
        f"{index.backend.location}"
    )
    if comments:
        text += (f" ({comments} line{'s' if comments > 1 else ''} of {args.ids_file} starting "
                 "with '#' read as comments, not ids)")  # fmt: skip
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        shown = ", ".join(missing[:5]) + more
        text += f"; not found: {shown}{_other_sources(index, missing, args.source)}"
        if args.json:  # the reason for exit 1 is said where a person reads it too
            print(f"neardup: {text}", file=sys.stderr)
    emit(
        args,
        {"asked": len(ids), "removed": removed, "records": after, "not_found": missing,
         "source": args.source or index.primary_source, "comment_lines": comments},
        text,
    )
    return 1 if missing else 0


def cmd_drop(args: argparse.Namespace) -> int:
    """Drop a collection after a yes (or ``--yes``): never on the strength of a missing
    terminal, so a script must say ``--yes``."""
    # lazy: both pull in pysolr and requests, which --help and the verbs without Solr do not need
    from ..solr.admin import collection_exists, collection_facts, drop_collection
    from ..solr.client import check_collection_name, redact

    check_collection_name(args.name)
    if not args.yes and not sys.stdin.isatty():
        raise InputError(
            f"drop '{args.name}' deletes the collection and all its records: with no terminal "
            "to confirm it, add --yes"
        )
    server = open_solr(args, server=True, start=False)
    if not args.yes:
        target = server.clone(args.name)
        records, own = collection_facts(target) if collection_exists(target) else (0, False)
        if own or args.force:  # else drop_collection says why not, before any question
            print(
                f"drop the collection '{args.name}' at {redact(server.base_url)} and its "
                f"{records} records? [y/N] ",
                end="",
                file=sys.stderr,
                flush=True,
            )
            if sys.stdin.readline().strip().lower() not in ("y", "yes"):
                print("neardup: not dropped", file=sys.stderr)
                return 1
    dropped = drop_collection(server, args.name, force=args.force)
    forced = "" if dropped.own else " (not made by neardup: dropped with --force)"
    emit(
        args,
        {"dropped": dropped.collection, "records": dropped.records, "where": dropped.where,
         "neardup": dropped.own},
        f"dropped the collection '{dropped.collection}' at {dropped.where}: "
        f"{dropped.records} records{forced}",
    )
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    _threshold_flag(args)
    index = open_index(args, create=False, writes=False)
    result = compare(index, args.threshold, progress=not args.json)
    emit(args, result, format_compare(result))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    try:
        args.out_dir.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InputError(f"{args.out_dir}: --out-dir names a file, not a folder") from None
    except OSError as exc:
        raise InputError(f"{args.out_dir}: the folder cannot be made ({exc.strerror})") from None
    if args.what == "restaurants":
        paths = restaurant_plots(args.out_dir)
    else:
        given = {
            k: v
            for k, v in (
                ("threshold", args.threshold),
                ("num_perm", args.num_perm),
                ("bands", args.bands),
                ("rows", args.rows),
            )
            if v is not None
        }
        p = Params(**given)
        paths = [
            plot_s_curve(p.bands, p.rows, p.threshold, args.out_dir / "s_curve.png", p.num_perm)
        ]
    for path in paths:
        print(path)
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    if str(args.pairs) == STDIN and str(args.gold) == STDIN:
        raise InputError("evaluate: the pairs and the gold cannot both be read from stdin ('-')")
    inputs = [args.pairs, args.gold, *(args.records or [])]
    check_outputs(args, (("--html", "evaluation page"),), inputs)  # never one of the inputs
    read = [
        (path, list(read_records(path, id_field=args.id_field, source_field=args.source_field)))
        for path in args.records or []
    ]
    # The rows of a clusters table without an id column (dedupe --cluster-column's of a file
    # without one) are named as dedupe named them: by --id-field, or as the records read (those
    # dedupe wrote with a cluster: records, empty texts too), else by their lines.
    written = [i.id or "" for _, items in read for i in items if isinstance(i, Record | EmptyText)]
    ids = RowIds(args.id_field, written if args.records else None, args.cluster_column,
                 args.similarity_column)
    # A record is its source and its id: two files may both hold an id 7 (neardup.read.pair_files).
    aligned = align(*(read_pairs_file(f, args.source_field, ids) for f in (args.pairs, args.gold)))
    for note in aligned.notes:
        print(f"neardup: {note}", file=sys.stderr)
    keys: list[tuple[str, str]] | None = None
    records: list[Record] = []
    for path, items in read:
        # a record's source: its file as given, or with --source-field, its column's
        named = (source_named(path, aligned.sources())
                 if aligned.by_source and args.source_field is None else None)  # fmt: skip
        records += [r if named is None else dataclasses.replace(r, source=named)
                    for r in items if isinstance(r, Record)]  # fmt: skip
    if args.records:
        keys = [(r.source if aligned.by_source else "", r.id) for r in records]
        stray = sorted({s for s, _ in keys} - aligned.sources()) if aligned.by_source else []
        if stray:
            raise InputError(
                f"--records {stray[0]}: no pair names this source (the pairs name "
                f"{', '.join(sorted(aligned.sources()))}); give the records files by the names "
                "they were indexed under"
            )
    notes = list(aligned.notes)
    if keys is not None:
        named = {r for pairs in (aligned.found, aligned.gold) for p in pairs for r in p}
        unknown = sorted(named - set(keys))
        if unknown:
            src, rid = unknown[0]
            note = (
                f"{len(unknown)} records named by the pairs or the gold are not in --records "
                f"(the first: {rid}{f' of {src}' if src else ''}); B-cubed counts each as a "
                "record of its own"
            )
            notes.append(note)
            print(f"neardup: {note}", file=sys.stderr)
    s = score(aligned.found, aligned.gold)
    b3 = bcubed(aligned.found, aligned.gold, keys)
    if args.html is not None:
        def shown(r: tuple[str, str]) -> str:
            return f"{r[1]} ({r[0]})" if aligned.by_source and r[0] else r[1]

        found, gold = ([(shown(a), shown(b)) for a, b in x] for x in (aligned.found, aligned.gold))
        texts = [(shown(k), r.text) for k, r in zip(keys or [], records, strict=True)]
        with destination(args.html) as target:
            page = write_evaluation_page(
                target, found, gold, texts if args.records else None, scores=s,
                source=str(args.pairs),
            )  # fmt: skip
        print(f"review page -> {args.html} ({page.pairs} pairs)", file=sys.stderr)
    said = s.as_reported()  # the precision of no pair found: undefined (null), not 0
    precision = "n/a (no pair found)" if said["precision"] is None else f"{s.precision:.3f}"
    emit(
        args,
        {
            **said,
            "bcubed": b3.as_dict(),
            "records_by": "source and id" if aligned.by_source else "id",
            "notes": notes,
        },
        f"pairs {s.pairs}  true pairs {s.true_pairs} of {s.gold}  recall {s.recall:.3f}  "
        f"precision {precision}  F1 {s.f1:.3f}\n"
        f"clusters (B-cubed over {b3.records} records): recall {b3.recall:.3f}  "
        f"precision {b3.precision:.3f}  F1 {b3.f1:.3f}",
    )
    return 0
