"""``python -m benchmarks.accuracy [--quick] [--json PATH] [--datasets a,b] [--no-results]``.

Full mode scores every dataset, the held-out ones included, prints the table and rewrites
RESULTS.md beside this file; ``--quick`` (CI) scores smaller versions of the development
datasets only, without the edit-distance oracle, and leaves RESULTS.md alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import datasets, er, er_labels, oracle, suite
from .fetch import FetchError

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.accuracy", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the CI subset (under 2 minutes)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument(
        "--datasets", help=f"comma-separated subset of: {', '.join(s.name for s in datasets.SUITE)}"
    )
    parser.add_argument(
        "--no-results", action="store_true", help="do not rewrite RESULTS.md (full mode)"
    )
    parser.add_argument(
        "--no-er", action="store_true",
        help="leave out the two-source tasks of ../shared/datasets/er (they need a Solr)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    only = [d.strip() for d in args.datasets.split(",")] if args.datasets else None
    known = {s.name for s in datasets.SUITE}
    if only and set(only) - known:
        parser.error(f"unknown datasets: {', '.join(sorted(set(only) - known))}")
    functions = oracle.JACCARD if args.quick else oracle.FUNCTIONS
    env = suite.environment()  # before the run: the neardup that is imported and measured
    start = time.perf_counter()
    try:
        # The learned rule's estimates against the labels: a full run's second table.
        rows = suite.run(datasets.load(args.quick, only), functions, learned=not args.quick)
    except FetchError as exc:
        print(f"accuracy: {exc}", file=sys.stderr)
        return 1
    # The real two-source tasks, through the CLI (a Solr: NEARDUP_SOLR_URL or the local node).
    er_rows = [] if args.no_er or only else er.run(er.QUICK if args.quick else None)
    # The same tasks with 100 labels asked by 'review --ask' (a full run only: minutes a task).
    labelled = [] if args.no_er or only or args.quick else er_labels.run()
    seconds = time.perf_counter() - start
    print()
    print(suite.format_table(rows))
    if er_rows:
        print()
        print(er.table(er_rows))
    if labelled:
        print()
        print(er_labels.table(labelled))
    print(f"\n{len(rows) + len(er_rows)} datasets in {seconds:.1f} s")
    command = "python -m benchmarks.accuracy" + (" --quick" if args.quick else "")
    if args.json:
        payload = {"env": env, "quick": args.quick, "seconds": seconds, "results": rows,
                   "er": er_rows, "er_labels": labelled}  # fmt: skip
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
        print(f"results: {args.json}")
    if not args.quick and not only and not args.no_results:
        text = suite.markdown(rows, env, seconds, command)
        if er_rows:
            text += "\n" + "\n".join(er.markdown(er_rows)) + "\n"
        if labelled:
            text += "\n" + er_labels.table(labelled, markdown=True) + "\n"
        RESULTS.write_text(text, encoding="utf-8")
        print(f"table: {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
