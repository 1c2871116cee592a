"""neardup against its peers, on a synthetic corpus with exact ground truth.

    python -m benchmarks.run --mode quick [--out PATH]       # CI smoke test, < 3 minutes
    python -m benchmarks.run --mode full [--sizes 10000 100000] [--out benchmarks/results.json]

Solr: ``NEARDUP_SOLR_URL`` if set (collections ``bench_*`` are created there and deleted after),
else a private node in ``<repo>/.neardup/bench``, started here and stopped at the end if this run
started it.

What is measured at each corpus size (see ``benchmarks/corpus.py`` for the corpus):

(a) signature throughput, 128 permutations of the same shingle sets (neardup's LSH shingles,
    by default word 3-grams of the canonical text, ``--kind``/``--size`` to choose), from the
    same (canonical) texts: neardup's ``signatures_batch`` against datasketch's ``MinHash.bulk``
    (its default SHA-1 token hash, and the mmh3 token hash its docs recommend for speed) and
    rensa's ``RMinHash`` bulk constructors. The peers get their shingle sets from neardup's own
    shingler inside the timed region, because neardup's ``signatures_batch`` shingles too;
    the shingling alone is timed as well so its share is visible.
(b) indexing throughput into Solr with ``NearDupIndex.add_many`` over a ``SolrBackend`` (the
    2014 seed fields, ``Params(fields_2014=True)``, + LSH bands), for short records (8-15 words)
    and for the 100-300 word documents, and the Solr index size on disk.
(c) all near-duplicate pairs at Jaccard >= t: neardup's LSH report (``NearDupIndex.report``); the
    seed's one-query-per-document loop (``seed2014.SeedSearcher.near_dups`` with its 20 MinHash
    values, top 10, first-word filter), run on a sample of documents and extrapolated linearly;
    datasketch ``MinHashLSH`` in memory (insert all, query each). Every method's candidates are
    verified by the same exact Jaccard (``neardup.candidates.verify.verify``), so (d) recall and
    precision against the ground truth compare candidate generation on equal terms.
(e) peak memory (VmHWM of this process, reset before each phase) and Solr's index size.
(f) growth between sizes, and ``NearDupIndex.neighbors`` latency.
(g) end to end, the headline: a text file in, verified pairs out, each library as a user runs
    it in its own process(es) (neardup's CLI into Solr, neardup's library in memory, datasketch,
    rensa): wall time, CPU time, peak RSS (and Solr's), recall and precision
    (``benchmarks/end_to_end.py``).

Quick mode writes only its JSON (``--out``); full mode also merges its sizes into the JSON
(other sizes already there are kept, so ``--sizes 1000000`` can run separately) and regenerates
``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.corpus import bench_params
from benchmarks.measure import run_size
from benchmarks.node import BENCH, T0, SolrNode, environment, say
from benchmarks.render import render, targets
from neardup.solr.client import Solr

RESULTS_MD = BENCH / "RESULTS.md"
DEFAULT_OUT = {"full": BENCH / "results.json", "quick": BENCH / "results-quick.json"}

MODES: dict[str, dict[str, Any]] = {
    "quick": {
        "sizes": [2000], "short_cap": 5000, "seed_sample": 200, "sha1_cap": 2000,
        "warmup_short": 2000,
        "neighbors": 30, "exact_truth_max": 2000, "profile_docs": 0, "repeats_small": 1,
    },
    "full": {
        "sizes": [10_000, 100_000], "short_cap": 100_000, "seed_sample": 2000,
        "warmup_short": 60_000,
        "sha1_cap": 20_000, "neighbors": 200, "exact_truth_max": 10_000, "profile_docs": 2000,
        "repeats_small": 3,
    },
}  # fmt: skip


# -- main --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.run", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument("--mode", choices=sorted(MODES), default="quick")
    ap.add_argument("--sizes", type=int, nargs="+", help="corpus sizes (default: by mode)")
    ap.add_argument(
        "--out",
        type=Path,
        help="results JSON (default: benchmarks/results.json "
        "for full, benchmarks/results-quick.json for quick)",
    )
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument(
        "--kind", choices=["word", "char"], default="word", help="shingle kind (default: word)"
    )
    ap.add_argument(
        "--size",
        type=int,
        default=3,
        help="shingle size (default: 3, the seed's document shingles; see DOCUMENT_SHINGLES)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seed-sample", type=int, help="documents of the seed loop sample")
    ap.add_argument(
        "--skip-datasketch-lsh",
        action="store_true",
        help="leave out datasketch's in-memory LSH (it needs every MinHash in RAM)",
    )
    ap.add_argument(
        "--skip-end-to-end",
        action="store_true",
        help="leave out (g), the end-to-end runs of every library from a text file",
    )
    ap.add_argument("--keep-collections", action="store_true")
    ap.add_argument(
        "--max-memory-gb",
        type=float,
        help="cap this process's address space (a MemoryError instead of the OOM killer)",
    )
    ap.add_argument(
        "--no-results-md",
        action="store_true",
        help="full mode: do not regenerate benchmarks/RESULTS.md",
    )
    args = ap.parse_args(argv)
    conf = dict(MODES[args.mode])
    if args.seed_sample:
        conf["seed_sample"] = args.seed_sample
    sizes = args.sizes or conf["sizes"]
    out_path: Path = args.out or DEFAULT_OUT[args.mode]
    # The environment is read here only, as the CLI does: the rest takes what it needs.
    url = os.environ.get("NEARDUP_SOLR_URL") or None
    heap = os.environ.get("NEARDUP_SOLR_HEAP") or None
    if args.mode == "full" and heap is None:
        heap = "2g" if max(sizes) < 1_000_000 else "4g"

    data: dict[str, Any] = {"schema": 1, "runs": {}}
    if args.mode == "full" and out_path.exists():
        try:
            data = json.loads(out_path.read_text(encoding="utf-8"))
            say(f"merging into {out_path} (sizes already there: {', '.join(data['runs'])})")
            probe = bench_params(args)
            want = (f"{probe.shingle_kind} {probe.shingle_size}-gram", args.threshold)
            for key in list(data["runs"]):
                got = (data["runs"][key].get("shingles"), data["runs"][key].get("threshold"))
                if got != want:
                    say(f"dropping the {key} run from {out_path}: it used {got}, now {want}")
                    del data["runs"][key]
        except (ValueError, KeyError):
            data = {"schema": 1, "runs": {}}
    node = SolrNode(url, heap)
    code = 0
    if args.max_memory_gb:  # after Solr started: the JVM must not inherit the limit
        limit = int(args.max_memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        say(f"address space of this process limited to {args.max_memory_gb} GiB")
    try:
        env = environment(Solr(node.base, "bench_probe"), heap)
        if not node.external:
            env["solr_start_s"] = node.start_seconds
        for n in sizes:
            env_n = dict(
                env,
                load_average_at_start=os.getloadavg(),
                date=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            )
            with tempfile.TemporaryDirectory(prefix="neardup-bench-") as work:
                res = run_size(n, args.mode, conf, node, args, Path(work))
            res["env"] = env_n
            data["runs"][str(n)] = res
            out_path.parent.mkdir(parents=True, exist_ok=True)
            out_path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            say(f"wrote {out_path}")
    except Exception:
        traceback.print_exc()
        code = 1
    finally:
        node.stop()
    if code == 0:
        for t in targets({k: v for k, v in data["runs"].items() if int(k) in sizes}):
            ok = "n/a" if t["met"] is None else ("met" if t["met"] else "MISSED")
            say(f"target {t['target']} @ {int(t['size']):,d}: {t['value']} -> {ok} ({t['margin']})")
        if args.mode == "full" and not args.no_results_md:
            RESULTS_MD.write_text(render(data), encoding="utf-8")
            say(f"wrote {RESULTS_MD}")
    say(f"done in {time.perf_counter() - T0:.1f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
