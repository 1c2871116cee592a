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

from . import datasets, oracle, suite
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
    seconds = time.perf_counter() - start
    print()
    print(suite.format_table(rows))
    print(f"\n{len(rows)} datasets in {seconds:.1f} s")
    command = "python -m benchmarks.accuracy" + (" --quick" if args.quick else "")
    if args.json:
        payload = {"env": env, "quick": args.quick, "seconds": seconds, "results": rows}
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
        print(f"results: {args.json}")
    if not args.quick and not only and not args.no_results:
        RESULTS.write_text(suite.markdown(rows, env, seconds, command), encoding="utf-8")
        print(f"table: {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
