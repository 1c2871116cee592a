"""The verbs that work on a collection: index, report, evaluate, experiment."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import datasets, evaluate
from .errors import InputError
from .indexer import IndexStats

SolrOptions = Callable[..., None]


def register(sub: Any, solr_options: SolrOptions) -> None:
    p = sub.add_parser("index", help="index a file of records into a collection")
    p.add_argument("file", type=Path)
    p.add_argument(
        "--format",
        default="auto",
        choices=["auto", *datasets.FORMATS],
        help="input format (default: from the file's extension; 'lines' is 'ID TEXT')",
    )
    p.add_argument("--id-field", default="id", help="id column/key for tsv, csv and jsonl")
    p.add_argument(
        "--text-field",
        action="append",
        default=None,
        help="text column/key (repeat to join several; default 'text')",
    )
    _shingle_options(p)
    _lsh_options(p)
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit with code 2 if any record was rejected (the rest is indexed)",
    )
    p.add_argument(
        "--writers",
        type=int,
        default=2,
        help="concurrent update requests per batch (default 2: Solr indexes a request on one "
        "thread; more helps a Solr with more cores)",
    )
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    solr_options(p)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("report", help="all near-duplicate pairs of a collection, as TSV")
    p.add_argument(
        "--method",
        choices=["lsh", "shingles", "minhash"],
        default="lsh",
        help="lsh: banded MinHash in Solr, verified by Jaccard (default); "
        "shingles/minhash: the seed's one query per record",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="lsh: smallest verified Jaccard (default: the index's threshold)",
    )
    p.add_argument(
        "--max-dist",
        type=int,
        default=None,
        help="largest word edit distance (seed methods: default 2; lsh: no limit)",
    )
    p.add_argument("--out", type=Path, required=True, help="TSV file of pairs to write")
    p.add_argument(
        "--prune",
        choices=["best", "mutual", "none"],
        default="best",
        help="lsh: keep a pair only if it is the best match of one of its records "
        "(best, default), of both (mutual: one-to-one linkage of two sources), "
        "or keep all verified pairs (none); pairs at Jaccard >= 0.9 are always "
        "kept",
    )
    p.add_argument(
        "--clusters",
        type=Path,
        default=None,
        help="lsh: also write connected components, one cluster a line",
    )
    p.add_argument("--quiet", action="store_true", help="seed methods: do not print the pairs")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    _shingle_options(p)
    solr_options(p)
    p.set_defaults(func=cmd_report)

    for verb, arg, what, func in (
        ("neighbors", "id", "one record", cmd_neighbors),
        ("search", "text", "a text", cmd_search),
    ):
        p = sub.add_parser(verb, help=f"the records most similar to {what}")
        p.add_argument(arg)
        p.add_argument("-k", type=int, default=10, help="how many (default 10)")
        p.add_argument("--threshold", type=float, default=0.0, help="smallest Jaccard (default 0)")
        p.add_argument("--json", action="store_true")
        solr_options(p)
        p.set_defaults(func=func)

    p = sub.add_parser("compare", help="LSH against exact brute force on a collection")
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="Jaccard threshold for both (default: the index's)",
    )
    p.add_argument("--json", action="store_true")
    solr_options(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("evaluate", help="score a file of pairs against gold pairs")
    p.add_argument("pairs", type=Path)
    p.add_argument("--gold", type=Path, required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("plot", help="PNG pictures: S-curve, bands x rows sweep, P/R vs threshold")
    p.add_argument(
        "what",
        choices=["restaurants", "s-curve"],
        help="restaurants: all three pictures on the bundled data; s-curve: one curve",
    )
    p.add_argument("--out-dir", type=Path, default=Path("out/plots"))
    p.add_argument("--threshold", type=float, default=None, help="s-curve: Jaccard threshold")
    p.add_argument("--num-perm", type=int, default=None, help="s-curve: MinHash values")
    p.add_argument("--bands", type=int, default=0, help="s-curve: bands (default: chosen)")
    p.add_argument("--rows", type=int, default=0, help="s-curve: rows (default: chosen)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("experiment", help="run a bundled experiment end to end")
    p.add_argument("name", choices=["restaurants"])
    p.add_argument(
        "--out-dir",
        type=Path,
        default=Path("out/restaurants"),
        help="where the pair reports are written (default out/restaurants)",
    )
    p.add_argument("--json", action="store_true")
    solr_options(p)
    p.set_defaults(func=cmd_experiment, collection_default="restaurants")


def _shingle_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("shingles and signatures (must match the index)")
    g.add_argument("--ngram", type=int, default=3, help="shingle size (default 3)")
    g.add_argument("--shingle-kind", choices=["word", "char"], default="word")
    g.add_argument("--num-perm", type=int, default=20, help="MinHash values (default 20)")
    g.add_argument("--hash-family", choices=["xor", "universal"], default="xor")
    g.add_argument("--seed", type=int, default=42)


def _lsh_options(p: argparse.ArgumentParser) -> None:
    from . import lsh

    g = p.add_argument_group("LSH (stored with the index; report, neighbors and search read it)")
    g.add_argument(
        "--threshold",
        type=float,
        default=lsh.DEFAULT_THRESHOLD,
        help=f"Jaccard threshold the bands are tuned for (default {lsh.DEFAULT_THRESHOLD})",
    )
    g.add_argument(
        "--lsh-kind",
        choices=["word", "char"],
        default=lsh.DEFAULT_KIND,
        help=f"LSH shingle kind (default {lsh.DEFAULT_KIND})",
    )
    g.add_argument(
        "--lsh-size",
        type=int,
        default=lsh.DEFAULT_SIZE,
        help=f"LSH shingle size (default {lsh.DEFAULT_SIZE})",
    )
    g.add_argument(
        "--lsh-num-perm",
        type=int,
        default=lsh.DEFAULT_NUM_PERM,
        help=f"LSH MinHash values (default {lsh.DEFAULT_NUM_PERM})",
    )
    g.add_argument("--lsh-hash-family", choices=["xor", "universal"], default=lsh.DEFAULT_FAMILY)
    g.add_argument("--bands", type=int, default=0, help="bands (default: from the threshold)")
    g.add_argument("--rows", type=int, default=0, help="rows per band (default: from it too)")
    g.add_argument(
        "--no-canonical",
        action="store_true",
        help="do not canonicalize record forms (7th/seventh, st/street) before LSH",
    )


def lsh_config(args: argparse.Namespace) -> Any:
    from .lsh import LshConfig

    if (args.bands > 0) != (args.rows > 0):
        raise InputError("give both --bands and --rows, or neither")
    return LshConfig(
        kind=args.lsh_kind,
        size=args.lsh_size,
        num_perm=args.lsh_num_perm,
        hash_family=args.lsh_hash_family,
        seed=args.seed,
        threshold=args.threshold,
        canonical=not args.no_canonical,
        bands=args.bands,
        rows=args.rows,
    )


def _processor(args: argparse.Namespace) -> Any:
    from .shingles import ShingleProcessor

    try:
        return ShingleProcessor(
            args.ngram,
            kind=args.shingle_kind,
            num_perm=args.num_perm,
            hash_family=args.hash_family,
            seed=args.seed,
        )
    except ValueError as exc:
        raise InputError(str(exc)) from exc


def print_stats(stats: IndexStats, out: Any = sys.stderr) -> None:
    for r in stats.rejections:
        print(f"neardup: rejected {r}", file=out)
    hidden = stats.rejected - len(stats.rejections)
    if hidden > 0:
        print(f"neardup: ... and {hidden} more rejected records not shown", file=out)


def cmd_index(args: argparse.Namespace) -> int:
    from .cli import emit, open_solr
    from .indexer import Indexer

    proc = _processor(args)
    items = datasets.read_records(
        args.file, args.format, args.id_field, tuple(args.text_field or ("text",))
    )
    cfg = lsh_config(args)
    if not 1 <= args.writers <= 64:
        raise InputError(f"--writers must be between 1 and 64, got {args.writers}")
    solr = open_solr(args)
    stats = Indexer(solr, proc, lsh=cfg, writers=args.writers).index(items)
    print_stats(stats)
    emit(
        args,
        stats.as_dict(),
        f"{args.file}: read {stats.read}, indexed {stats.indexed}, rejected {stats.rejected}, "
        f"blank lines {stats.blank} -> {solr.url} ({stats.seconds:.1f} s)",
    )
    return 2 if args.strict and stats.rejected else 0


def cmd_report(args: argparse.Namespace) -> int:
    from .cli import emit, open_solr
    from .report import seed_report
    from .searcher import SeedSearcher

    solr = open_solr(args, create=False)
    if args.method == "lsh":
        from .allpairs import lsh_pairs
        from .report import clusters, write_clusters, write_pairs

        result = lsh_pairs(
            solr, args.threshold, args.max_dist, progress=not args.json, prune_mode=args.prune
        )
        write_pairs(result.pairs, args.out)
        counts = result.counts()
        if args.clusters:
            groups = clusters((p.id1, p.id2) for p in result.pairs)
            write_clusters(groups, args.clusters)
            counts["clusters"] = len(groups)
        emit(
            args,
            counts,
            f"{result.records} records, {result.bands} bands: {result.buckets} shared buckets, "
            f"{result.candidates} candidate pairs, {result.verified} verified, "
            f"{result.confirmed} kept ({args.prune} matches) -> {args.out}"
            + (f"; {counts['clusters']} clusters -> {args.clusters}" if args.clusters else "")
            + f" ({result.seconds:.1f} s)",
        )
        return 0
    if args.max_dist is None:
        args.max_dist = 2
    searcher = SeedSearcher(solr, _processor(args))
    console = None if args.quiet else sys.stdout
    pairs = seed_report(searcher, args.method, args.max_dist, args.out, console)
    print(
        f"{len(pairs)} pairs ({args.method}, max distance {args.max_dist}) -> {args.out}",
        file=sys.stderr,
    )
    return 0


def _matches(args: argparse.Namespace, matches: list[Any], title: str) -> None:
    from dataclasses import asdict

    from .cli import emit

    lines = [title] + [
        f"{m.jaccard:.3f}  {m.id}: {m.content}  (edit distance {m.edit_distance}, "
        f"{m.shared_bands} shared bands)"
        for m in matches
    ]
    if not matches:
        lines.append("(no similar records)")
    emit(args, {"matches": [asdict(m) for m in matches]}, "\n".join(lines))


def cmd_neighbors(args: argparse.Namespace) -> int:
    from .cli import open_solr
    from .searcher import LshSearcher

    searcher = LshSearcher(open_solr(args, create=False))
    _matches(
        args,
        searcher.neighbors(args.id, args.k, args.threshold),
        f"records most similar to {args.id} (Jaccard of {searcher.config.kind} "
        f"{searcher.config.size}-gram shingles):",
    )
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from .cli import open_solr
    from .searcher import LshSearcher
    from .shingles import check_text

    check_text(args.text, "the search text")  # before Solr: undecodable argv bytes end here
    searcher = LshSearcher(open_solr(args, create=False))
    _matches(
        args,
        searcher.search(args.text, args.k, args.threshold),
        "records most similar to the text:",
    )
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .cli import emit, open_solr
    from .compare import compare, format_compare

    result = compare(open_solr(args, create=False), args.threshold, progress=not args.json)
    emit(args, result, format_compare(result))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from . import lsh
    from .plot import plot_s_curve, restaurant_plots

    args.out_dir.mkdir(parents=True, exist_ok=True)
    if args.what == "restaurants":
        paths = restaurant_plots(args.out_dir)
    else:
        threshold = lsh.DEFAULT_THRESHOLD if args.threshold is None else args.threshold
        num_perm = args.num_perm or lsh.DEFAULT_NUM_PERM
        if (args.bands > 0) != (args.rows > 0):
            raise InputError("give both --bands and --rows, or neither")
        b, r = (args.bands, args.rows) if args.bands else lsh.choose_bands(num_perm, threshold)
        paths = [plot_s_curve(b, r, threshold, args.out_dir / "s_curve.png", num_perm=num_perm)]
    for path in paths:
        print(path)
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from .cli import emit

    found = datasets.read_pairs(args.pairs)
    gold = datasets.read_pairs(args.gold)
    s = evaluate.score(found, gold)
    emit(
        args,
        s.as_dict(),
        f"pairs {s.pairs}  true pairs {s.true_pairs} of {s.gold}  recall {s.recall:.3f}  "
        f"precision {s.precision:.3f}  F1 {s.f1:.3f}",
    )
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    from .cli import emit, open_solr
    from .experiment import format_table, run_restaurants

    if args.collection is None:
        args.collection = args.collection_default
    solr = open_solr(args)
    result = run_restaurants(solr, args.out_dir, progress=not args.json)
    emit(args, result["scores"], format_table(result))
    return 0
