"""SolrCloud at scale (issue #14, part 5): the all-pairs report on two local nodes, and the
bytes it moves between them.

Usage::

    .venv/bin/python -m benchmarks.cloud --size 1000000 [--setups cloud,standalone] [--json OUT]

Indexes ``--size`` short records (8-15 Zipf words, :func:`benchmarks.corpus.short_records`)
with the parameters an index chooses from its first records (character 3-grams, the valley rule
from a floor of 0.3, 40 bands) into a two-shard collection on two local SolrCloud nodes
(``neardup solr start --cloud``), then runs the all-pairs report. With ``--setups
cloud,standalone`` the same records go into one standalone node too, in the same run, for the
ratios (``--setups standalone``: that one alone).

What it measures, per setup: indexing (wall, records/s), the report (wall, its parts), and the
bytes on the loopback interface while the report runs, less the bytes of this process's
requests and responses (counted on its HTTP session, uncompressed): what the nodes sent each
other (a shard's part of every facet and terms query, gathered by the node that was asked)
plus ZooKeeper's chatter and the packets' headers. Both nodes and
this process share the machine's two cores, so the times are of a worst case for the cloud;
the bytes are what separate machines would put on a network. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from neardup import NearDupIndex
from neardup.backends.solr import SolrBackend
from neardup.solr.admin import connect, delete_collection
from neardup.solr.local import LocalSolr

from . import corpus as C
from .node import BENCH_HOME, say

CLOUD_HOME = BENCH_HOME.parent / "bench-cloud"


def loopback_bytes() -> int:
    """Bytes sent on the loopback interface since boot (Linux ``/proc/net/dev``)."""
    for line in Path("/proc/net/dev").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name.strip() == "lo":
            return int(rest.split()[8])  # transmit bytes
    raise RuntimeError("no loopback interface in /proc/net/dev")


class ClientBytes:
    """Bytes of the requests and responses of one Solr client (bodies and URLs), counted by a
    response hook on its session: what this process sent and received."""

    def __init__(self, solr: Any) -> None:
        self.total = 0
        solr.session.headers["Accept-Encoding"] = "identity"  # bytes on the wire = counted
        solr.session.hooks["response"].append(self._count)

    def _count(self, response: Any, *args: Any, **kwargs: Any) -> None:
        body = response.request.body or b""
        self.total += len(response.content) + len(body) + len(response.request.url or "")


def measure(index: NearDupIndex, records: list[Any], label: str) -> dict[str, Any]:
    start = time.perf_counter()
    stats = index.add_many(records)
    build = time.perf_counter() - start
    say(f"{label}: {stats.indexed:,d} records indexed in {build:.1f} s "
        f"({stats.indexed / build:,.0f}/s; {index.params.describe()})")  # fmt: skip
    client = ClientBytes(index.backend.solr)  # type: ignore[attr-defined]
    lo0 = loopback_bytes()
    start = time.perf_counter()
    report = index.report()
    wall = time.perf_counter() - start
    lo, io = loopback_bytes() - lo0, client.total
    between = max(0, lo - io)
    say(f"{label}: report {wall:.1f} s ({ {k: round(v, 1) for k, v in report.timings.items()} }), "
        f"{report.candidates:,d} candidates, {len(report.pairs):,d} pairs; loopback "
        f"{lo / 1e6:,.1f} MB, this process {io / 1e6:,.1f} MB, between the nodes "
        f"{between / 1e6:,.1f} MB")  # fmt: skip
    return {
        "records": stats.indexed,
        "index_s": round(build, 1),
        "index_per_s": round(stats.indexed / build),
        "report_s": round(wall, 1),
        "report_parts_s": {k: round(v, 2) for k, v in report.timings.items()},
        "candidates": report.candidates,
        "pairs": len(report.pairs),
        "loopback_mb": round(lo / 1e6, 1),
        "client_mb": round(io / 1e6, 1),
        "between_nodes_mb": round(between / 1e6, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.cloud", description=__doc__)
    ap.add_argument("--size", type=int, default=1_000_000, help="records in the collection")
    ap.add_argument(
        "--setups", default="cloud", help="cloud, standalone, or both (comma-separated)"
    )
    ap.add_argument("--json", type=Path, help="also write the result here")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    setups = {s.strip() for s in args.setups.split(",")}
    if not setups or not setups <= {"cloud", "standalone"}:
        ap.error(f"--setups: cloud and/or standalone, got {args.setups!r}")
    records = C.short_records(args.size, seed=args.seed)
    result: dict[str, Any] = {"size": args.size}
    name = f"bench_cloud_{args.size}"
    if "cloud" in setups:
        node = LocalSolr(home=CLOUD_HOME)
        try:
            t = time.perf_counter()
            state = node.start(cloud=True, nodes=2)
            say(f"SolrCloud: {state.url} (two nodes, started in {time.perf_counter() - t:.1f} s)")
            solr = connect(state.url, name, shards=2)
            result["cloud"] = measure(NearDupIndex(backend=SolrBackend(solr)), records, "cloud")
            delete_collection(solr)
        finally:
            node.stop()
    if "standalone" in setups:
        single = LocalSolr(home=BENCH_HOME)
        try:
            state = single.start()
            solr = connect(state.url, name, auth=single.client_auth(state))
            result["standalone"] = measure(
                NearDupIndex(backend=SolrBackend(solr)), records, "standalone"
            )
            delete_collection(solr)
        finally:
            single.stop()
    if len(setups) == 2:
        cloud, alone = result["cloud"], result["standalone"]
        result["ratios"] = {
            "cloud/standalone_index": round(cloud["index_s"] / alone["index_s"], 2),
            "cloud/standalone_report": round(cloud["report_s"] / alone["report_s"], 2),
        }
        say(f"ratios: {result['ratios']}")
    print(json.dumps(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
