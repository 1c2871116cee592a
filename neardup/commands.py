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
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    solr_options(p)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("report", help="all near-duplicate pairs of a collection, as TSV")
    p.add_argument("--method", choices=["shingles", "minhash"], default="shingles")
    p.add_argument("--max-dist", type=int, default=2, help="largest word edit distance")
    p.add_argument("--out", type=Path, required=True, help="TSV file of pairs to write")
    p.add_argument("--quiet", action="store_true", help="do not print the pairs")
    _shingle_options(p)
    solr_options(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("evaluate", help="score a file of pairs against gold pairs")
    p.add_argument("pairs", type=Path)
    p.add_argument("--gold", type=Path, required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

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
    solr = open_solr(args)
    stats = Indexer(solr, proc).index(items)
    print_stats(stats)
    emit(
        args,
        stats.as_dict(),
        f"{args.file}: read {stats.read}, indexed {stats.indexed}, rejected {stats.rejected}, "
        f"blank lines {stats.blank} -> {solr.url} ({stats.seconds:.1f} s)",
    )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .cli import open_solr
    from .report import seed_report
    from .searcher import SeedSearcher

    solr = open_solr(args, create=False)
    searcher = SeedSearcher(solr, _processor(args))
    console = None if args.quiet else sys.stdout
    pairs = seed_report(searcher, args.method, args.max_dist, args.out, console)
    print(
        f"{len(pairs)} pairs ({args.method}, max distance {args.max_dist}) -> {args.out}",
        file=sys.stderr,
    )
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
