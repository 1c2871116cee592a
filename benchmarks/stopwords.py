"""Short records made mostly of stop words, deduplicated with the defaults (issue #39 item 3).

    python -m benchmarks.stopwords --sizes 100000 1000000 [--seed 1] [--exponent 1.1] [--json PATH]

The corpus (``benchmarks/corpus.py`` ``short_families`` with ``exponent=None``): records of
8-15 English words drawn by their real frequencies (``wordfreq``: "the", "to", "and", "of" and
"a" are a sixth of the words), 10% planted copies with 1-3 slips each (a typo, a word dropped,
two words swapped). Unrelated records share stop words, and their plain Jaccard reaches the
valley's cut on those alone: the case the valley read on weighted Jaccard is for
(:func:`neardup.decision.valley.read_valley`). ``--exponent`` draws the words by a Zipf law over
their ranks instead (1.1, 1.2: heavier heads than English).

Each size: ``NearDupIndex()`` (parameters chosen from the data), ``add_many`` of the records as
a list (so the collection knows its size, as a file's lines tell the CLI), ``report()``. It
prints precision and recall against the planted pairs, the threshold, the similarity the
valley was read on and why (the report's own words), and the seconds. The issue's target:
precision at least 0.95 at recall at least 0.99.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import corpus as C
from neardup import NearDupIndex
from neardup.keys import id_key


def run(n: int, seed: int, exponent: float | None) -> dict[str, Any]:
    """One size: the corpus made, deduplicated with the defaults, scored."""
    corp = C.short_families(n, seed=seed, words="real", exponent=exponent)
    truth = {(a, b) for a, b, _ in corp.truth}
    records = [(r.id, r.text) for r in corp.records]
    del corp
    start = time.perf_counter()
    index = NearDupIndex()
    index.add_many(records)
    report = index.report()
    seconds = time.perf_counter() - start
    found = {(p.id1, p.id2) if id_key(p.id1) <= id_key(p.id2) else (p.id2, p.id1)
             for p in report.pairs}  # fmt: skip
    scores = C.score(found, truth)
    rule = report.rule or {}
    return {
        "records": n, "seed": seed, "exponent": exponent, **scores,
        "threshold": report.threshold, "similarity": rule.get("similarity"),
        "choice": rule.get("choice"), "valley": rule.get("reason"),
        "params": index.params.describe(), "seconds": round(seconds, 1),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stopwords", description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--exponent", type=float, default=None,
        help="a Zipf law over the ranks instead of the words' real frequencies",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    rows = []
    for n in args.sizes:
        row = run(n, args.seed, args.exponent)
        rows.append(row)
        print(
            f"{n:>9,} records: P {row['precision']:.3f} R {row['recall']:.3f} "
            f"({row['true_positives']} of {row['truth']} planted pairs, {row['reported']} "
            f"reported) at {row['similarity']} >= {row['threshold']:g}, {row['seconds']} s\n"
            f"           {row['valley']}; {row['choice']}",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
