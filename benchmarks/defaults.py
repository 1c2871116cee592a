"""The whole job with the settings a user gets: text in, pairs out, no flags.

    python -m benchmarks.defaults --corpus documents short --sizes 100000 [--out PATH]

Issue #28's headline. A corpus is written to an ``ID TEXT`` file (outside the timed region):

- ``documents``: 100-300 Zipf pseudo-words, 10% edited copies (``benchmarks/corpus.py``
  ``generate``);
- ``short``: 8-15 real English words by their real frequencies, 10% copies with 1-3 slips
  each (a typo, a word dropped, two words swapped: ``short_families``);
- ``tokens``: the same over the adversarial vocabulary ``w0``..``w49999``, whose character
  3-grams most records share.

The truth is every pair inside a planted family: what a user wants found, whatever shingles a
method uses. Then, each in its own process(es), measured as ``benchmarks/end_to_end.py`` does:

- ``neardup_solr``: ``neardup index FILE --format lines`` and ``neardup report --out
  pairs.tsv`` into a new collection of the local node, without any parameter flag;
- ``neardup_memory``: ``NearDupIndex()`` (parameters chosen from the data), ``add_many``,
  ``report``;
- ``datasketch`` and ``rensa`` "ours": the shingles neardup chose for the corpus and the
  threshold its report decided by (printed in its log), 128 permutations, exact Jaccard
  verification of their candidates;
- ``datasketch`` and ``rensa`` "readme": their README's recipe, word sets at threshold 0.5.

It prints wall time, CPU time and peak RSS of each, recall and precision against the planted
pairs, and the ratios neardup / peer (issue #28's targets: at most 0.67x datasketch, at most
1.5x rensa, recall and precision at least 0.95); given several ``--sizes``, each method's time
and Python peak from one size to the next (time(10x) / time(x)).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import corpus as C
from benchmarks.end_to_end import (
    ratios,
    run_child,
    run_neardup_solr,
    scored,
    warm_up,
    write_corpus,
)
from benchmarks.node import SolrNode, say
from neardup.params import Params

CORPORA = ("documents", "short", "tokens")
#: The peers' README recipe: word sets (``set(text.split())``) at threshold 0.5.
README = Params(shingle_kind="word", shingle_size=1, threshold=0.5, rule="threshold")
TARGETS = {"datasketch": 0.67, "rensa": 1.5}


def make_corpus(name: str, n: int, seed: int) -> C.Corpus:
    if name == "documents":
        return C.generate(n, seed=seed, truth="none")
    words = "real" if name == "short" else "tokens"
    return C.short_families(n, seed=seed, words=words)


def planted(corp: C.Corpus) -> set[tuple[str, str]]:
    """Every pair inside a family, smaller id first (as the pairs files are read)."""
    from itertools import combinations

    from neardup.keys import id_key

    out = set()
    for members in corp.families.values():
        for a, b in combinations(members, 2):
            out.add((a, b) if id_key(a) <= id_key(b) else (b, a))
    return out


def _cut(report_log: str) -> list[str]:
    """The Jaccard cut the report decided by; where the valley was read on rarity-weighted
    Jaccard, that cut (the nearest a peer without weights can be given)."""
    return (re.findall(r"(?<!weighted )Jaccard >= ([0-9.]+)", report_log)
            or re.findall(r"weighted Jaccard >= ([0-9.]+)", report_log))  # fmt: skip


def chosen(work: Path) -> Params:
    """The shingles neardup's index chose and the threshold its report decided by, read from
    the two commands' logs: what the peers get as "ours"."""
    index_log = (work / "neardup_index.log").read_text(encoding="utf-8")
    report_log = (work / "neardup_report.log").read_text(encoding="utf-8")
    m = re.search(r"chosen from the data: (word|character) (\d+)-grams", index_log)
    t = _cut(report_log)
    if not m or not t:
        raise RuntimeError("could not read neardup's chosen parameters from its logs")
    kind = "word" if m.group(1) == "word" else "char"
    return Params(shingle_kind=kind, shingle_size=int(m.group(2)), threshold=float(t[0]),
                  rule="threshold")  # fmt: skip


def chosen_text(work: Path) -> str:
    """What neardup's index said it chose, and the threshold its report decided by."""
    index_log = (work / "neardup_index.log").read_text(encoding="utf-8")
    report_log = (work / "neardup_report.log").read_text(encoding="utf-8")
    m = re.search(r"chosen from the data: ([^\n]+)", index_log)
    t = _cut(report_log)
    return f"{m.group(1) if m else '?'}; the report decided Jaccard >= {t[0] if t else '?'}"


def settings(label: str, r: dict[str, Any], res: dict[str, Any]) -> str:
    """How a method ran, as the table says it: neardup's choice, or a peer's shingles and
    threshold with the bands it chose itself."""
    if label == "neardup_solr":
        return "no flags: " + res.get("chosen", "chosen from the data")
    if label == "neardup_memory":
        return "NearDupIndex(): chosen from the data"
    given = str(r.get("settings", "")).split(", 128")[0]
    return f"{given}, its own {r.get('bands')} bands x {r.get('rows')} rows"


def run_corpus(
    name: str, n: int, seed: int, node: SolrNode | None, peers: list[str], work: Path
) -> dict[str, Any]:
    corp = make_corpus(name, n, seed)
    truth = planted(corp)
    path = work / f"{name}.txt"
    write_corpus(corp.records, path)
    del corp
    res: dict[str, Any] = {"corpus": name, "records": n, "truth_pairs": len(truth), "methods": {}}
    ours = None
    if node is not None:
        warm_up(path, README, node.base, work)
        r, out = run_neardup_solr(path, README, node.base, f"bench_defaults_{name}_{n}",
                                  node.pid, work, flags=[])  # fmt: skip
        ours = chosen(work)
        r.update(scored(out, truth))
        res["methods"]["neardup_solr"] = r
        res["chosen"] = chosen_text(work)
    runs: list[tuple[str, str, Params, list[str]]] = [
        ("neardup_memory", "neardup_memory", README, ["--defaults"])
    ]
    for peer in ("datasketch", "rensa"):
        if ours is not None:
            runs.append((peer, f"{peer}_ours", ours, []))
        runs.append((peer, f"{peer}_readme", README, []))
    for kind, label, cfg, extra in runs:
        if kind not in peers:
            continue
        try:
            r, out = run_child(kind, path, cfg, work, extra, tag=label.removeprefix(kind))
        except RuntimeError as exc:
            res.setdefault("failed", {})[label] = str(exc).splitlines()[0][-300:]
            say(f"{name} {label}: did not finish")
            continue
        r.update(scored(out, truth))
        r["settings"] = "neardup's defaults" if extra else cfg.describe()
        res["methods"][label] = r
    for label, r in res["methods"].items():
        say(
            f"{name} {n:,d} {label}: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, peak "
            f"{r['peak_rss_mb']:.0f} MB; recall {r['recall']}, precision {r['precision']}"
        )
    # neardup (Solr and memory) / each peer run, by wall time.
    peers = [label for label in res["methods"] if not label.startswith("neardup")]
    mine = {"neardup_solr": "neardup_solr", "neardup_memory": "neardup_memory"}
    res["ratios"] = ratios(res["methods"], peers, {"": "wall_s"}, mine)
    say(f"{name} {n:,d} ratios (wall, neardup / peer): {res['ratios']}")
    return res


def scaling(results: list[dict[str, Any]]) -> list[str]:
    """For a corpus run at several sizes, each method's time and Python peak from one size to
    the next (issue #28: time(10x) / time(x) at most 11 for short records)."""
    runs: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = {}
    for res in results:
        for label, r in res["methods"].items():
            runs.setdefault((res["corpus"], label), []).append((res["records"], r))
    out = []
    for (corpus, label), sized in runs.items():
        sized.sort(key=lambda x: x[0])
        for (n0, r0), (n1, r1) in zip(sized, sized[1:], strict=False):
            out.append(
                f"{corpus} {label}: {n0:,d} -> {n1:,d} records ({n1 / n0:.0f}x): "
                f"{r0['wall_s']:.1f} -> {r1['wall_s']:.1f} s ({r1['wall_s'] / r0['wall_s']:.1f}x "
                f"the time), Python peak {r0['peak_rss_mb']:.0f} -> {r1['peak_rss_mb']:.0f} MB"
            )
    return out


def table(results: list[dict[str, Any]]) -> list[str]:
    """The results as a Markdown table: one row per corpus and method."""
    out = [
        "| corpus | records | method | settings | wall s | CPU s | Python peak MB | recall "
        "| precision | neardup (Solr) / this |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        mine = res["methods"].get("neardup_solr")
        for label, r in res["methods"].items():
            how = settings(label, r, res)
            ratio = f"{mine['wall_s'] / r['wall_s']:.2f}x" if mine and mine is not r else ""
            out.append(
                f"| {res['corpus']} | {res['records']:,d} | {label} | {how} | "
                f"{r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['peak_rss_mb']:.0f} | {r['recall']} "
                f"| {r['precision']} | {ratio} |"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.defaults", description=__doc__)
    ap.add_argument("--corpus", nargs="+", choices=CORPORA, default=["documents", "short"])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--peers", nargs="+", default=["neardup_solr", "neardup_memory",
                                                   "datasketch", "rensa"])  # fmt: skip
    ap.add_argument("--out", type=Path, help="write the results as JSON here")
    ap.add_argument("--render", type=Path, help="only print the table of a results JSON")
    args = ap.parse_args(argv)
    if args.render:
        rendered = json.loads(args.render.read_text(encoding="utf-8"))
        print("\n".join(table(rendered) + scaling(rendered)))
        return 0
    url = os.environ.get("NEARDUP_SOLR_URL") or None
    node = SolrNode(url, os.environ.get("NEARDUP_SOLR_HEAP") or "2g") if (
        "neardup_solr" in args.peers) else None  # fmt: skip
    results: list[dict[str, Any]] = []
    try:
        for n in args.sizes:
            for name in args.corpus:
                with tempfile.TemporaryDirectory(prefix="neardup-defaults-") as tmp:
                    results.append(run_corpus(name, n, args.seed, node, args.peers, Path(tmp)))
    finally:
        if node is not None:
            node.stop()
    print("\n".join(table(results) + scaling(results)))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        say(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
