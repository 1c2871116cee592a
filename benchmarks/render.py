"""``benchmarks/RESULTS.md`` from the results JSON: the headline, every target met or missed
with its margin, and what bounds the missed ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks.end_to_end import PEERS
from benchmarks.measure import NUM_PERM

STAGE_ORDER = ("text_and_hashing", "permutations")
INDEX_PART_ORDER = ("documents_total", "lsh_keys_batch", "of_which_canonicalize",
                    "seed_signatures_20", "content_ng_ngrams")  # fmt: skip
SIG_ORDER = ("neardup", "neardup+canonical", "datasketch.mmh3", "datasketch.sha1", "rensa.digests",
             "rensa.matrix", "shingling only")  # fmt: skip


# -- targets and the report --------------------------------------------------------------------


def _ratio_fmt(x: float | None) -> str:
    if x is None or x != x:
        return "n/a"
    return f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


def targets(runs: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target of the issue, per size where it applies: measured, met, margin."""
    out: list[dict[str, Any]] = []
    failed = ""

    def add(
        name: str,
        size: int | str,
        value: float | None,
        goal: float,
        higher: bool,
        unit: str,
        bound: str = "",
    ) -> None:
        if value is None:
            out.append(
                {
                    "target": name,
                    "size": size,
                    "value": None,
                    "met": False if failed else None,
                    "margin": failed or "not measured",
                    "bound": bound,
                }
            )
            return
        met = value >= goal if higher else value <= goal
        factor = value / goal if higher else goal / value if value else float("inf")
        if met:
            margin = f"{factor:.2f}x the target"
        else:
            margin = f"by {1 - factor:.0%} ({factor:.2f} of the target; {1 / factor:.2f}x needed)"
        out.append(
            {
                "target": name,
                "size": size,
                "value": value,
                "unit": unit,
                "met": met,
                "margin": margin,
                "bound": bound,
            }
        )

    for key in sorted(runs, key=int):
        r = runs[key]
        n = int(key)
        ndp = r["pairs"]["neardup"]
        failed = "" if ndp.get("completed", True) else "all pairs did not complete (see below)"
        sr = r["signatures"]["ratios"]
        add(
            "signatures >= 10x datasketch (fastest variant, per CPU-second)",
            n,
            sr["neardup/datasketch_fastest"],
            10,
            True,
            "x",
            "signatures",
        )
        add(
            "signatures within 2x of rensa (>= 0.5x, per CPU-second)",
            n,
            sr["neardup/rensa_fastest"],
            0.5,
            True,
            "x",
            "signatures",
        )
        lsh_only = "docs_lsh_only" in r["indexing"]  # runs before #14 indexed 2014 fields too
        add(
            "indexing short records >= 15,000/s (no 2014 fields)"
            if lsh_only
            else "indexing short records >= 5,000/s (with the 2014 fields)",
            n,
            r["indexing"]["short"]["docs_per_s"],
            15000 if lsh_only else 5000,
            True,
            "/s",
            "indexing",
        )
        if lsh_only:
            add(
                "indexing 200-word docs >= 5,000/s (no 2014 fields)",
                n,
                r["indexing"]["docs_lsh_only"]["docs_per_s"],
                5000,
                True,
                "/s",
                "indexing",
            )
        inc = r["indexing"].get("incremental")
        if inc and inc["collection"] >= 100_000:
            add(
                f"1,000 new records into {inc['collection']:,d}: index + their pairs <= 5 s",
                n,
                inc["seconds"],
                5,
                False,
                "s",
                "incremental",
            )
        add(
            "indexing 200-word docs >= 1,000/s (with the 2014 fields)",
            n,
            r["indexing"]["docs"]["docs_per_s"],
            1000,
            True,
            "/s",
            "indexing",
        )
        for name, value, goal in target_values(n, r):
            add(name, n, value, goal, False, "x", "end to end")
        if n >= 100_000:
            add(
                "all pairs >= 10x faster than the seed loop",
                n,
                r["ratios"]["seed/neardup"],
                10,
                True,
                "x",
            )
            add(
                "all pairs recall >= 0.99 at J >= 0.8",
                n,
                ndp.get("recall"),
                0.99,
                True,
                "",
            )
        if n >= 1_000_000:
            out.append(
                {
                    "target": "1M: all pairs completes",
                    "size": n,
                    "value": None,
                    "met": not failed,
                    "margin": failed or f"in {ndp['seconds']:,.0f} s",
                    "bound": "",
                }
            )
            add("1M: neighbors p50 <= 20 ms", n, r["neighbors"]["p50_ms"], 20, False, "ms")
            lower = runs.get(str(n // 10))
            if lower:
                ratio = None
                if not failed:
                    ratio = round(ndp["seconds"] / lower["pairs"]["neardup"]["seconds"], 2)
                add("1M: all-pairs time(1M)/time(100k) <= 12", n, ratio, 12, False, "")
    return out


def _mb(b: int | None) -> str:
    return "n/a" if b is None else f"{b / 2**20:,.0f} MB"


def render(data: dict[str, Any]) -> str:
    runs = data["runs"]
    sizes = sorted(runs, key=int)
    envs = {k: runs[k]["env"] for k in sizes}
    env = envs[sizes[-1]]
    L: list[str] = []
    w = L.append
    w("# neardup benchmarks\n")
    w(
        "Generated by `python -m benchmarks.run --mode full` (do not edit by hand; "
        "`benchmarks/results.json` holds the raw numbers). Ratios between libraries measured in "
        "the same run are the headline; absolute seconds depend on the machine.\n"
    )
    w(
        "**Noise:** 2 cores, shared by the benchmark, Solr and anything else running; absolute "
        "timings move by tens of percent from run to run, ratios between libraries measured in "
        "interleaved chunks much less. The load average at the start of each size is listed "
        "below.\n"
    )
    w("## Machine and versions\n")
    w("| | |\n|---|---|")
    w(f"| CPU | {env['cpu']}, {env['cores']} cores |")
    w(f"| RAM | {env['ram_gib']} GiB |")
    w(f"| OS | {env['os']} |")
    w(f"| Python / numpy | {env['python']} / {env['numpy']} |")
    w(f"| datasketch / rensa / mmh3 | {env['datasketch']} / {env['rensa']} / {env['mmh3']} |")
    w(f"| Solr | {env['solr']} (heap {env['solr_heap']}) |")
    w(
        f"| neardup | {env['neardup']}, git {env['git_commit']}"
        + (
            f" + uncommitted changes in {len(env['neardup_uncommitted_files'])} files of neardup/"
            if env["neardup_uncommitted_files"]
            else ""
        )
        + " |"
    )
    for k in sizes:
        e = envs[k]
        la = e.get("load_average_at_start")
        w(
            f"| run of {int(k):,d} docs | {e['date']}, git {e.get('git_commit')}, load average "
            "at start "
            f"{', '.join(f'{x:.2f}' for x in la) if la else 'n/a'} |"
        )
    w("")

    r0 = runs[sizes[-1]]
    w(
        f"Configuration: neardup's LSH shingles = {r0.get('shingles', '?')} "
        f"({'canonical' if r0.get('canonical', True) else 'normalized'} text), {NUM_PERM} "
        f"permutations, b x r = {r0.get('bands')} x {r0.get('rows')}, threshold "
        f"{r0['threshold']}.\n"
    )
    L.extend(headline(runs))
    w("## The parts: ratios measured in the same run\n")
    w(
        "| documents | signatures per CPU-s: neardup / datasketch (fastest / SHA-1 default) | "
        "neardup / rensa | all pairs: seed loop / neardup | datasketch LSH / neardup | "
        "recall neardup / seed / datasketch |"
    )
    w("|---:|---:|---:|---:|---:|---|")
    for k in sizes:
        r = runs[k]
        sr = r["signatures"]["ratios"]
        p = r["pairs"]
        dsr = r["ratios"].get("datasketch/neardup")
        rec = " / ".join(
            "n/a" if p.get(m) is None or p[m].get("recall") is None else f"{p[m]['recall']:.4f}"
            for m in ("neardup", "seed", "datasketch")
        )
        w(
            f"| {int(k):,d} | {_ratio_fmt(sr['neardup/datasketch_fastest'])} / "
            f"{_ratio_fmt(sr['neardup/datasketch_sha1'])} | "
            f"{_ratio_fmt(sr['neardup/rensa_fastest'])} | "
            f"{_ratio_fmt(r['ratios'].get('seed/neardup'))} | "
            f"{'n/a' if dsr is None else _ratio_fmt(dsr)} | {rec} |"
        )
    w(
        "\nA ratio above 1 means neardup is faster. The seed loop's time is extrapolated from a "
        "sample (see below); its recall is measured on the truth pairs of the sampled documents.\n"
    )

    w("## Targets\n")
    w("| target | size | measured | result |")
    w("|---|---:|---:|---|")
    tg = targets(runs)
    for t in tg:
        val = "n/a" if t["value"] is None else f"{t['value']:,}{t.get('unit', '')}"
        res = "n/a" if t["met"] is None else ("**met**" if t["met"] else "**MISSED**")
        w(f"| {t['target']} | {int(t['size']):,d} | {val} | {res} {t['margin']} |")
    if not any(int(k) >= 1_000_000 for k in sizes):
        w(
            "| 1M targets (completes, time ratio <= 12, neighbors p50 <= 20 ms) | 1,000,000 | "
            "not run | see below |"
        )
    w("")
    missed = {t["bound"] for t in tg if t["met"] is False and t["bound"]}
    if missed or any(t["met"] is False for t in tg):
        w("### What bounds the missed targets\n")
        ref = runs[
            max((k for k in sizes if "stages_signatures" in runs[k]), key=int, default=sizes[-1])
        ]
        for key in ("signatures", "indexing"):
            if key in missed:
                w(bounds_text(key, ref))
        if "end to end" in missed:
            w(bounds(runs))
        for k in sizes:
            v = runs[k]["pairs"]["neardup"]
            if not v.get("completed", True):
                w(pairs_failure_text(int(k), v, runs))
        for t in tg:
            if t["met"] is False and not t["bound"] and "did not complete" not in t["margin"]:
                w(f"- {t['target']} at {int(t['size']):,d}: {t['margin']}.")
        w("")

    for k in sizes:
        r = runs[k]
        n = int(k)
        w(f"## {n:,d} documents\n")
        c = r["corpus"]
        w(
            f"Corpus: {n:,d} documents (mean {c['mean_words']} words), seed {c['seed']}, "
            f"{c['families']:,d} families holding {c['copies']:,d} edited copies "
            f"(edit rate {c['min_rate']:.0%}-{c['max_rate']:.0%} per word), vocabulary "
            f"{c['vocab_size']:,d} words, Zipf exponent {c['exponent']}; fingerprint "
            f"`{c['fingerprint']}` (numpy {c['numpy']}). Ground truth: {c['truth_pairs']:,d} pairs "
            f"with exact Jaccard >= {r['threshold']} over {r.get('shingles', '?')} shingles "
            f"({c['exact_duplicates_in_truth']} of them identical texts). Largest Jaccard among "
            f"2,000 random cross-family pairs: {c['cross_family_max_jaccard']}."
        )
        if "exact_check" in c:
            w(
                f" Brute-force `all_pairs` over all {n:,d} documents gives the same pairs: "
                f"{c['exact_check']['same_as_family_truth']}."
            )
        w(f" Generated in {c['seconds']:.1f} s.\n")
        L.extend(detail(r))
        s = r["signatures"]
        w(
            f"**(a) Signatures** ({NUM_PERM} permutations, best of {s['repeats']} "
            f"interleaved run(s))\n"
        )
        w(
            "| library | path | docs | wall s | docs/s (wall) | CPU s | docs per CPU-s | "
            "vs neardup (CPU) |"
        )
        w("|---|---|---:|---:|---:|---:|---:|---:|")
        nd = s["libs"]["neardup"].get("docs_per_cpu_s") or s["libs"]["neardup"]["docs_per_s"]
        order = [*SIG_ORDER, *(x for x in s["libs"] if x not in SIG_ORDER)]
        for name in order:
            v = s["libs"].get(name)
            if v is None:
                continue
            per_cpu = v.get("docs_per_cpu_s") or v["docs_per_s"]
            w(
                f"| {name} | {v['how']} | {v['docs']:,d} | {v['seconds']:.2f} | "
                f"{v['docs_per_s']:,.0f} | {v.get('cpu_seconds', 0):.2f} | {per_cpu:,.0f} | "
                f"{per_cpu / nd:.2f} |"
            )
        w(f"\nPeak RSS during the signature runs: {s['peak_rss_mb']:,.0f} MB.\n")
        ix = r["indexing"]
        w(
            "**(b) Indexing** (`NearDupIndex.add_many`, batches of 1,000, each sent as 2 "
            "concurrent requests, one commit; "
            f"{r.get('bands', '')} LSH band keys, in `content_lsh` and one field per band; "
            "short records and 'documents, LSH only' without the 2014 article's fields, "
            "'documents' with them, for the seed loop)\n"
        )
        w(
            "| records | count | seconds | records/s | client CPU s (share of wall) | "
            "Solr index on disk | peak RSS |"
        )
        w("|---|---:|---:|---:|---:|---:|---:|")
        for kind, label in (
            ("short", "short (8-15 words)"),
            ("docs_lsh_only", "documents (100-300 w), LSH only"),
            ("docs", "documents (100-300 w)"),
        ):
            v = ix.get(kind)
            if v is None:
                continue
            reps = v.get("runs_per_s") or []
            if len(reps) > 1:
                label += f", best of {len(reps)} runs ({', '.join(f'{x:,.0f}' for x in reps)}/s)"
            w(
                f"| {label} | {v['docs']:,d} | {v['seconds']:.1f} | {v['docs_per_s']:,.0f} | "
                f"{v.get('client_cpu_s', 0):.1f} ({v.get('client_cpu_s', 0) / v['seconds']:.0%}) | "
                f"{_mb(v['index_bytes'])} | {v['peak_rss_mb']:,.0f} MB |"
            )
        inc = ix.get("incremental")
        if inc:
            w(
                f"\nIncremental: {inc['new']:,d} new short records into a collection of "
                f"{inc['collection']:,d}, indexed in {inc['index_s']:.2f} s, and the report of "
                f"only their pairs (`report(since=batch)`) in {inc['report_s']:.2f} s "
                f"({inc['candidates']:,d} candidates): {inc['seconds']:.2f} s in all."
            )
        w("")
        w(f"**(c, d, e) All pairs at J >= {r['threshold']}**\n")
        w("| method | seconds | candidates | reported | recall | precision | peak RSS | details |")
        w("|---|---:|---:|---:|---:|---:|---:|---|")
        for m in ("neardup", "seed", "datasketch", "datasketch_same_bands"):
            v = r["pairs"].get(m)
            if v is None:
                continue
            if m == "seed":
                det = (
                    f"extrapolated from {v['sample_docs']:,d} of {v['docs']:,d} docs "
                    f"({v['ms_per_doc']} ms/doc, measured {v['seconds_measured']:.1f} s); "
                    f"the seed's own rule (edit distance <= 2) would keep recall <= "
                    f"{v['seed_rule']['recall']}, precision {v['seed_rule']['precision']}"
                )
                secs = (
                    f"{v['seconds']:,.1f} (extrapolated)"
                    if v["extrapolated"]
                    else f"{v['seconds']:,.1f}"
                )
            elif m == "neardup" and not v.get("completed", True):
                dg = v.get("diagnosis") or {}
                det = (
                    f"**did not complete**: {v['error']} (after {v['failed_after_s']} s). "
                    f"Band {dg.get('band')} alone, with no timeout: the facet of its "
                    f"{dg.get('shared_keys', 0):,d} shared keys {dg.get('keys_facet_s')} s, "
                    f"keys and members of {dg.get('buckets', 0):,d} buckets "
                    f"{dg.get('keys_and_members_s')} s (measured right after the timed-out "
                    "attempts, which Solr keeps computing: upper bounds)"
                )
                w(f"| {v['method']} | did not complete | | | | | | {det} |")
                continue
            elif m == "neardup":
                det = f"phases {v['timings']}, {v['buckets']:,d} buckets"
                secs = f"{v['seconds']:,.1f}"
            else:
                det = (
                    f"b x r = {v['bands']} x {v['rows']}; {v['timings']}; "
                    f"index ~{v['index_rss_mb']:,.0f} MB"
                )
                secs = f"{v['seconds']:,.1f}"
            w(
                f"| {v['method']} | {secs} | {v['candidates']:,d} | {v['reported']:,d} | "
                f"{v['recall']} | {v['precision']} | {v['peak_rss_mb']:,.0f} MB | {det} |"
            )
        nb = r.get("neighbors")
        if nb:
            w(
                f"\n`NearDupIndex.neighbors(id, k=10)`: p50 {nb['p50_ms']} ms, "
                f"p95 {nb['p95_ms']} ms, max {nb['max_ms']} ms over {nb['lookups']} random ids; "
                f"{nb.get('requests_per_lookup')} Solr requests per lookup at "
                f"{nb.get('request_ms')} ms each ({nb.get('share_in_requests', 0):.0%} of the "
                "lookup time)."
                + (
                    " The three requests are one real-time get and two cursor pages of "
                    "`Solr.iter_docs`, whose last page only learns that the cursor is exhausted "
                    "(a first page shorter than `rows` already says so)."
                    if nb.get("requests_per_lookup", 0) >= 3
                    else ""
                )
                + "\n"
            )
        st = r.get("stages_signatures")
        if st:
            tot = st["total"]
            w(
                f"Where `signatures_batch` spends its time ({r['profile_docs']:,d} documents, "
                f"implementation `{st.get('kernel', '?')}`; CPU seconds, best of 3; the kernel "
                "is one C call, so its stages are timed by difference: the same kernel with one "
                "permutation does all the per-text work):\n"
            )
            w("| stage | seconds | share |\n|---|---:|---:|")
            labels = {
                "text_and_hashing": "normalize, shingle, MurmurHash3, drop repeats (1 permutation)",
                "permutations": f"the other {NUM_PERM - 1} permutations and their minima",
            }
            for key in STAGE_ORDER:
                if key in st:
                    w(f"| {labels[key]} | {st[key]:.3f} | {st[key] / tot:.0%} |")
            w(f"| signatures_batch | {tot:.3f} | 100% |")
            if st.get("numpy_reference"):
                w(
                    f"| the numpy reference path (`signatures_batch_numpy`), same texts | "
                    f"{st['numpy_reference']:.3f} | {st['numpy_reference'] / tot:.1f}x |"
                )
            w("")
        st = r.get("stages_indexing_client")
        if st:
            per_doc = r["indexing"]["docs"]["seconds"] / r["indexing"]["docs"]["docs"]
            whole = per_doc * r["profile_docs"]
            w(
                f"Client-side work of `NearDupIndex.documents` on {r['profile_docs']:,d} "
                "documents, "
                f"against {whole:.2f} s of indexing wall time for as many documents:\n"
            )
            w("| part | seconds | share of indexing wall time |\n|---|---:|---:|")
            for key in INDEX_PART_ORDER:
                if key in st:
                    w(f"| {key.replace('_', ' ')} | {st[key]:.3f} | {st[key] / whole:.0%} |")
            w(
                f"| waiting for Solr (add + commit), by difference | "
                f"{max(0.0, whole - st['documents_total']):.3f} | "
                f"{max(0.0, whole - st['documents_total']) / whole:.0%} |\n"
            )
        for key, title in (
            ("profile_signatures", "signatures_batch"),
            ("profile_indexing", "NearDupIndex.add_many"),
        ):
            if r.get(key):
                w(
                    f"<details><summary>Profile of {title} on {r.get('profile_docs')} "
                    "documents (pyinstrument; its per-call hook inflates Python-call-heavy "
                    f"code)</summary>\n\n```\n{r[key]}\n```\n</details>\n"
                )

    if len(sizes) >= 2:
        w("## Growth between sizes\n")
        w(
            "| from -> to | size x | signatures (per doc) | indexing docs | all pairs neardup | "
            "datasketch LSH | neighbors p50 |"
        )
        w("|---|---:|---:|---:|---:|---:|---:|")
        for a, b in zip(sizes[:-1], sizes[1:], strict=True):
            ra, rb = runs[a], runs[b]

            def g(f: Callable[[dict[str, Any]], float | None], ra=ra, rb=rb) -> str:
                try:
                    x, y = f(ra), f(rb)
                    return "n/a" if not x or y is None else f"{y / x:.2f}x"
                except (KeyError, TypeError):
                    return "n/a"

            w(
                f"| {int(a):,d} -> {int(b):,d} | {int(b) / int(a):.0f}x | "
                f"{g(lambda r: 1 / r['signatures']['libs']['neardup']['docs_per_cpu_s'])} | "
                f"{g(lambda r: r['indexing']['docs']['seconds'])} | "
                f"{g(lambda r: r['pairs']['neardup']['seconds'])} | "
                f"{g(lambda r: r['pairs']['datasketch']['seconds'])} | "
                f"{g(lambda r: r['neighbors']['p50_ms'])} |"
            )
        w("")
    if not any(int(k) >= 1_000_000 for k in sizes):
        w("## 1,000,000 documents\n")
        w(MILLION_TEXT)
        w("")
    w("## How each number is measured\n")
    if any(runs[k].get("shingles") == "word 3-gram" for k in sizes):
        w(DOCUMENT_SHINGLES)
    w(METHOD_TEXT)
    w(END_TO_END_TEXT)
    return "\n".join(L) + "\n"


def bounds_text(key: str, r: dict[str, Any]) -> str:
    """What bounds a missed target, with the shares measured in run ``r``."""
    n = int(r["n"])
    if key == "signatures":
        st = r.get("stages_signatures") or {}
        tot = st.get("total") or 1.0
        return (
            f"- **Signatures** ({n:,d} run, implementation `{st.get('kernel', '?')}`): "
            f"{st.get('text_and_hashing', 0) / tot:.0%} of the time is the per-text work "
            "(normalize, shingle, hash) and "
            f"{st.get('permutations', 0) / tot:.0%} the {NUM_PERM} universal permutations "
            "(one 32x32-bit multiply, two folds of 2**32 = -15 (mod p) and a min per shingle "
            "and permutation, vectorized). Without the C kernel (no compiler at install time, "
            "or `NEARDUP_KERNEL=numpy`) neardup runs its numpy path, "
            f"{(st.get('numpy_reference') or 0) / tot:.0f}x slower."
        )
    if key == "indexing":
        ix = r["indexing"]
        parts = []
        for kind, label in (("short", "short records"), ("docs", "200-word documents")):
            v = ix[kind]
            if v.get("client_cpu_s"):
                parts.append(f"{v['client_cpu_s'] / v['seconds']:.0%} for {label}")
        return (
            f"- **Indexing** ({n:,d} run). The client's CPU time is "
            f"{' and '.join(parts) or 'n/a'} of the indexing wall time: `add_many` computes "
            "batch k+1 while two writer threads send batch k as two concurrent update requests, "
            "so the rate is Solr's, on the two cores it shares with the client: JSON parsing, "
            "Lucene indexing of about 200 `content_ng` values, 20 `content_sg` values and one "
            "key per band field per document, the stored `content`, `raw` and `content_lsh`, "
            "the transaction log, segment flushes and merges and the final commit."
        )
    return ""


def pairs_failure_text(n: int, v: dict[str, Any], runs: dict[str, Any]) -> str:
    dg = v.get("diagnosis") or {}
    lower = runs.get(str(n // 10), {}).get("pairs", {}).get("neardup", {})
    low_t = lower.get("timings", {}).get("buckets")
    low = (
        f" At {n // 10:,d} documents the whole buckets phase (all bands) took {low_t:.1f} s."
        if low_t
        else ""
    )
    return (
        f"- **All pairs at {n:,d} documents did not complete** ({v.get('error')}). "
        "`SolrBackend.buckets` asks Solr, per band, for a terms facet over the band's "
        "own field `lsh_bNN` (the keys that two or more records share), then for the members "
        f"of those buckets with a terms query. Band {dg.get('band')} has "
        f"{dg.get('shared_keys', 0):,d} shared keys; with no client timeout the facet took "
        f"{dg.get('keys_facet_s')} s and facet plus members {dg.get('keys_and_members_s')} s "
        "(upper bounds: Solr was still computing the abandoned attempts); "
        f"{runs.get(str(n), {}).get('bands', '')} bands of this kind take longer than the "
        f"client's 60 s timeout per request.{low} The client-side work (candidate pairs, "
        "verification) was not reached."
    )


MILLION_TEXT = (
    "Not in this file yet: run `python -m benchmarks.run --mode full --sizes 1000000 "
    "--skip-datasketch-lsh` (it merges into `results.json` and regenerates this file)."
)


DOCUMENT_SHINGLES = """\
- **Shingles: word 3-grams** (`--kind word --size 3`), the seed's document shingles, not
  `Params`'s record default (word 1-grams, tuned on the restaurant addresses). In 100-300
  word Zipf documents unrelated texts share their frequent words: with word 1-grams their
  Jaccard is 0.1-0.2, a pair collides in one of the 21 bands of 6 rows with probability about
  21 x 0.15^6 = 2.4e-4, and the false candidates grow with the square of the collection.
  Measured with word 1-grams on this corpus (the same code, outside this run): all pairs took
  13.1 s at 100,000 documents (82,062 candidates for 17,834 true pairs) and 494 s at 1,000,000
  (7,009,185 candidates for 180,733 true pairs: buckets 178 s, fetch 43 s, exact verification
  274 s), a 38x growth for 10x the documents. With word 3-grams unrelated documents share
  almost no shingle (largest cross-family Jaccard in the sample below) and candidates stay
  proportional to the true pairs. The README gives the same advice for long documents.
"""

METHOD_TEXT = """\
- **Corpus** (`benchmarks/corpus.py`): seeded; documents of 100-300 Zipf words; 10% of the
  documents are edited copies (per-word insertion/deletion/substitution at 1-10%) of a base in
  a family of 1-5 copies. Truth = all pairs with exact Jaccard >= t on neardup's own shingle
  sets (`Params(threshold=t).processor().shingle_set`), computed within families; that this is all
  pairs is checked by brute force at 10k documents and by the cross-family sample at each size.
- **(a)** Each library turns the same canonical texts into 128-value signatures of the same
  shingle sets; the peers receive Python sets from neardup's shingler inside the timed region
  (neardup's `signatures_batch` does that shingling itself); "shingling only" times that
  common part. datasketch's fastest documented path is `MinHash.bulk` with a fast `hashfunc`
  (its docs suggest farmhash; mmh3 is used here); rensa's bulk constructors return all
  signatures in one call. The libraries take turns on chunks of 5,000 documents (the order
  rotating per chunk), so all of them meet the same load of the shared machine; for each chunk
  the best of the repeats counts. Throughput per CPU-second of this process is the headline
  (every path measured is single-threaded, and CPU time is not inflated by other processes
  waiting for the same cores); wall-clock throughput is listed too.
- **(b)** `NearDupIndex(Params(threshold=t, fields_2014=True),
  backend=SolrBackend(solr)).add_many(records)` with its defaults (batches of 1,000, 2
  writers; the 2014 seed fields and the LSH band keys), timed by its writer (includes the final
  commit), into a new collection on a JVM that first indexed 60,000 short records and 3,000
  documents into a throwaway collection (its JIT-compiled code is then steady); short records
  at 10,000 or fewer are the best of 3 runs. Index size from Solr's core status.
- **(c)** neardup: `NearDupIndex.report(t, prune="none")` on the indexed collection,
  right after its commit (per band one terms facet on the band's field and one terms query for
  the members of its shared buckets, fetch of the candidates' content, exact verification;
  every verified pair is kept, no rival pruning). Seed loop: what
  `neardup report --method minhash` does (read all records by cursor, then
  `seed2014.SeedSearcher.near_dups` per record with 20 MinHash values, first-word filter,
  top 10), with no edit-distance cut so that its candidates are verified by exact Jaccard like
  the others;
  time = reading all records + (per-document time of the sample) x N. datasketch:
  `MinHashLSH(threshold=t, num_perm=128)` with its default (b, r) and again with neardup's
  (b, r), `insert` every MinHash (mmh3 variant), `query` every MinHash, then the same exact
  verification. Times exclude computing signatures (neardup's happen at indexing time).
- **(d)** recall = reported true pairs / truth pairs; precision = reported true pairs /
  reported pairs. Every method verifies exactly, so precision is 1 unless the truth missed a
  pair ("outside_truth" in the JSON counts verified pairs absent from the truth; it is 0).
- **(e)** Peak RSS is this Python process's VmHWM, reset before each phase
  (`/proc/self/clear_refs`); it includes the corpus held in memory (the same for every method
  of one size). Solr runs in its own JVM (heap as listed) and is not included.
- **(f)** growth = time at the larger size / time at the smaller size.
"""


# -- the end-to-end part (benchmarks/end_to_end.py) ----------------------------------------


#: What a method's row is called in the tables.
LABELS = {
    "neardup_solr": "neardup CLI, Solr (index + report)",
    "neardup_memory": "neardup library, in memory",
    "datasketch": "datasketch MinHashLSH",
    "rensa": "rensa RMinHashLSH",
}


#: The issue's targets, at 100,000 documents and above: (name, ratio key, goal); lower is better.
TARGETS = (
    ("end to end: neardup (index + report) <= 0.67x datasketch's wall time",
     "neardup/datasketch_wall", 0.67),
    ("end to end: neardup (index + report) within 1.5x of rensa's wall time",
     "neardup/rensa_wall", 1.5),
    ("end to end: neardup's Python peak RSS <= 1/4 of datasketch's",
     "neardup/datasketch_python_rss", 0.25),
)  # fmt: skip


TARGET_MIN_DOCS = 100_000


#: The phases the children time themselves, in the order they run (the JSON sorts its keys).
PHASES = (
    "read",
    "shingle",
    "minhash",
    "lsh_insert",
    "lsh_query",
    "verify_and_write",
    "read_and_index",
    "report",
    "report.buckets",
    "report.fetch",
    "report.verify",
    "write",
)


def target_values(n: int, r: dict[str, Any]) -> list[tuple[str, float | None, float]]:
    """The issue's targets for one size: (name, measured ratio, goal); lower is better."""
    e2e = r.get("end_to_end")
    if n < TARGET_MIN_DOCS or not e2e:
        return []
    return [(name, e2e["ratios"].get(key), goal) for name, key, goal in TARGETS]


def _s(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.2f}" if x < 100 else f"{x:,.0f}"


def _x(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}x"


def _megabytes(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.0f} MB"


def _n(x: int | None) -> str:
    return "" if x is None else f"{x:,d}"


def headline(runs: dict[str, Any]) -> list[str]:
    """The headline table: one row per size that has an end-to-end run."""
    sizes = [k for k in sorted(runs, key=int) if runs[k].get("end_to_end")]
    L = ["## Headline: end to end, text file in, verified pairs out\n"]
    if not sizes:
        return [*L, "Not measured in these runs.\n"]
    L.append(
        "| documents | neardup index + report (Solr) | report alone | neardup in memory | "
        "datasketch | rensa | neardup / datasketch | neardup / rensa | Python peak RSS "
        "neardup / datasketch / rensa | recall neardup / datasketch / rensa |"
    )
    L.append("|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for k in sizes:
        e = runs[k]["end_to_end"]
        m = e["methods"]
        ra = e["ratios"]

        def wall(key: str, m: dict[str, Any] = m) -> str:
            return f"{_s(m[key]['wall_s'])} s" if key in m else "n/a"

        nd = m.get("neardup_solr", {})
        rep = nd.get("steps", {}).get("report", {}).get("wall_s")
        rep_s = "n/a" if rep is None else f"{_s(rep)} s"
        rss = " / ".join(
            f"{m[x]['peak_rss_mb']:,.0f} MB" if x in m else "n/a"
            for x in ("neardup_solr", "datasketch", "rensa")
        )
        rec = " / ".join(
            str(m[x]["recall"]) if x in m else "n/a"
            for x in ("neardup_solr", "datasketch", "rensa")
        )
        L.append(
            f"| {int(k):,d} | {wall('neardup_solr')} | {rep_s} | {wall('neardup_memory')} | "
            f"{wall('datasketch')} | {wall('rensa')} | {_x(ra.get('neardup/datasketch_wall'))} | "
            f"{_x(ra.get('neardup/rensa_wall'))} | {rss} | {rec} |"
        )
    for k in sizes:
        for kind, why in runs[k]["end_to_end"].get("failed", {}).items():
            L.append(f"\n{int(k):,d} documents: {kind} did not finish: {why}")
    L.append(
        "\nWall time from the start of the process(es) to the pairs file, one run each, the "
        "corpus already written to an `ID TEXT` file; a ratio below 1 means neardup takes less. "
        "neardup's Python peak RSS is its larger process (index or report); Solr's JVM is not "
        "in it (see each size's table). Every method verifies its candidates by exact Jaccard, "
        "so precision is 1.0 for all of them. What each method runs is in *How each number is "
        "measured*.\n"
    )
    return L


def detail(r: dict[str, Any]) -> list[str]:
    """The table of one size."""
    e = r.get("end_to_end")
    if not e:
        return []
    L = [
        f"**End to end** (file of {e['file_bytes'] / 2**20:,.0f} MB; Solr's CPU and peak RSS "
        f"{'measured' if e.get('solr_measured') else 'not measured (external Solr)'})\n",
        "| method | wall s | CPU s | peak RSS | Solr CPU s | Solr peak RSS | candidates | "
        "reported | recall | precision | phases |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    rows: list[tuple[str, dict[str, Any], str]] = []
    for key in PEERS:
        v = e["methods"].get(key)
        if v is None:
            continue
        ph = phases(v)
        if v.get("startup_and_imports_s") is not None:
            ph = f"start and imports {v['startup_and_imports_s']:.2f} s, {ph}"
        if v.get("bands"):
            ph = f"b x r = {v['bands']} x {v['rows']}" + (f"; {ph}" if ph else "")
        rows.append((LABELS[key], v, ph))
        for step, s in v.get("steps", {}).items():
            own = s.get("own_seconds")
            note = "" if own is None else f"its own count: {own} s"
            rows.append((f"&nbsp;&nbsp;of which `neardup {step}`", s, note))
    for label, v, ph in rows:
        L.append(
            f"| {label} | {_s(v['wall_s'])} | {_s(v['cpu_s'])} | {_megabytes(v['peak_rss_mb'])} | "
            f"{_s(v.get('solr_cpu_s'))} | {_megabytes(v.get('solr_peak_rss_mb'))} | "
            f"{_n(v.get('candidates'))} | {_n(v.get('reported'))} | {v.get('recall', '')} | "
            f"{v.get('precision', '')} | {ph} |"
        )
    L.append("")
    return L


def phases(v: dict[str, Any]) -> str:
    """A child's own phase timings, in the order they ran."""
    got = v.get("phases", {})
    order = [*PHASES, *(k for k in got if k not in PHASES)]
    return ", ".join(f"{k} {got[k]:.2f} s" for k in order if k in got)


def bounds(runs: dict[str, Any]) -> str:
    """Where the time of the largest end-to-end run goes, for a missed target."""
    sizes = [k for k in sorted(runs, key=int) if runs[k].get("end_to_end")]
    if not sizes:
        return ""
    e = runs[sizes[-1]]["end_to_end"]
    m = e["methods"]
    parts = []
    nd = m.get("neardup_solr")
    if nd:
        for step, s in nd["steps"].items():
            parts.append(
                f"`neardup {step}` {_s(s['wall_s'])} s wall, {_s(s['cpu_s'])} s of its own CPU "
                f"and {_s(s.get('solr_cpu_s'))} s of Solr's"
            )
    for key in ("datasketch", "rensa"):
        if key in m:
            ph = phases(m[key])
            parts.append(f"{key} {_s(m[key]['wall_s'])} s ({ph})")
    return f"- **End to end** ({int(sizes[-1]):,d} run): " + "; ".join(parts) + "."


END_TO_END_TEXT = """\
- **End to end** (`benchmarks/end_to_end.py`, its docstring has the details): the corpus is
  written to an `ID TEXT` file (not timed), then each method runs as its own process(es) and
  writes its verified pairs to a TSV file, scored against the truth. neardup in Solr: `neardup
  index FILE --format lines --shingle-kind word --shingle-size 3 --threshold t --rule threshold`
  into a new collection, then `neardup report --out pairs.tsv`. neardup in memory:
  `read_records` + `NearDupIndex(Params(...))` + `add_many` + `report` + `write_pairs`.
  datasketch: read the lines, neardup's shingle sets, `MinHash.bulk` (mmh3 32-bit hash),
  `MinHashLSH(threshold=t, num_perm=128)` (default bands), insert all, query each,
  `neardup.candidates.verify.verify`, `write_pairs`. rensa: the same with `RMinHash.from_token_sets`
  and `RMinHashLSH(t, 128, num_bands=16)` (its bands must divide 128; 16 x 8 is nearest neardup's
  S-curve). Each process is started by a small launcher that reads its wall time, CPU time
  (all threads) and peak RSS with `os.wait4` (interpreter start and imports included; the peers
  import `neardup.candidates.verify` for the verification, about 26 MB). Solr's CPU
  (`/proc/PID/stat`) and peak RSS (`VmHWM`, reset before each command) are read around each neardup
  command.
"""
