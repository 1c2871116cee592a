"""The 2014 design's verbs: ``experiment restaurants``, and the ``report`` methods ``shingles``
and ``minhash`` (one query per record), which the core's ``report`` verb runs through its hook
(:data:`neardup.cli.commands.REPORT_METHODS`). The CLI (:mod:`neardup.cli.main`) imports this
module, the one import of this package from outside it, and adds both.

This module imports nothing of :mod:`neardup.cli` at its top: ``neardup/cli/__init__.py``
imports ``main``, which imports this module, so that importing it first would find it half made.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..index import NearDupIndex
from ..out.output import destination, is_stdout
from .schema import MAX_DIST


def report_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true", help="2014 methods: do not print the pairs")


def cmd_report_2014(args: argparse.Namespace, index: NearDupIndex) -> int:
    """``report --method shingles|minhash``: the article's report of the opened index."""
    # Here, not at the top: the searcher brings the Solr client, which --help must not load.
    from .searcher import SeedSearcher, seed_report

    max_dist = MAX_DIST if args.max_dist is None else args.max_dist
    console = None if args.quiet or is_stdout(args.out) else sys.stdout
    with destination(args.out) as target:
        pairs = seed_report(SeedSearcher(index), args.method, max_dist, target, console)
    print(
        f"{len(pairs)} pairs ({args.method}, max distance {max_dist}) -> {args.out}",
        file=sys.stderr,
    )
    return 0


@dataclass(frozen=True)
class Methods:
    """Report methods as the core's hook takes them
    (:class:`neardup.cli.commands.ReportMethod`)."""

    names: tuple[str, ...]
    help: str
    run: Callable[[argparse.Namespace, NearDupIndex], int]
    flags: Callable[[argparse.ArgumentParser], None] | None = None


#: The article's two methods, as ``report --method`` offers them.
REPORT = Methods(
    ("shingles", "minhash"),
    "shingles/minhash: the 2014 article's one query per record (needs --fields-2014)",
    cmd_report_2014,
    report_flags,
)


def register_experiment(sub: Any) -> None:
    # Here, not at the top: neardup.cli imports this module (see the module's docstring).
    from ..cli.common import json_option, solr_options

    p = sub.add_parser("experiment", help="run a bundled experiment end to end")
    p.add_argument("name", choices=["restaurants"])
    p.add_argument(
        "--out-dir",
        type=Path,
        default=Path("out/restaurants"),
        help="where the pair reports are written (default out/restaurants)",
    )
    json_option(p)
    solr_options(p)
    p.set_defaults(func=cmd_experiment, collection_default="restaurants")


def cmd_experiment(args: argparse.Namespace) -> int:
    # Here, not at the top: the Solr backend and the experiment bring the Solr client (pysolr,
    # requests), which --help and the verbs without Solr do not need; neardup.cli imports this
    # module (see the module's docstring).
    from ..backends.solr import SolrBackend
    from ..cli.common import emit, open_solr
    from .experiment import PARAMS, check_collection, format_table, run_restaurants

    if args.collection is None:
        args.collection = args.collection_default
    solr = open_solr(args)
    check_collection(SolrBackend(solr))
    solr.delete_query("*:*")  # afresh, parameters included
    solr.commit()
    index = NearDupIndex(PARAMS, backend=SolrBackend(solr))
    result = run_restaurants(index, args.out_dir, progress=not args.json)
    emit(args, result["scores"], format_table(result))
    return 0
