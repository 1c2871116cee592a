"""The benchmark corpus generator: exact ground truth, intended edit rates, reproducibility;
the end-to-end part (``benchmarks/end_to_end.py``) at a tiny size, scored against the truth.

No timing here: the benchmark itself (``python -m benchmarks.run --mode quick``) is the smoke
test of the measurements.
"""

from __future__ import annotations

import json
import math
import os
from itertools import combinations
from pathlib import Path

import pytest

from benchmarks import corpus as C
from benchmarks import end_to_end as E
from benchmarks import render as R
from neardup.keys import id_key
from neardup.params import Params
from neardup.sign.text import word_edit_distance

THRESHOLD = 0.8


@pytest.fixture(scope="module")
def cfg() -> Params:
    return Params(threshold=THRESHOLD)


@pytest.fixture(scope="module")
def small(cfg: Params) -> C.Corpus:
    # A high duplicate fraction so that a small corpus has many families to check.
    return C.generate(400, seed=7, threshold=THRESHOLD, dup_fraction=0.3, config=cfg)


def naive_truth(corpus: C.Corpus, cfg: Params, threshold: float) -> list[tuple[str, str]]:
    """Every pair, the plain O(n^2) way, with the shingle sets neardup verifies with."""
    proc = cfg.processor()
    sets = {r.id: proc.shingle_set(r.text) for r in corpus.records}
    out = []
    for a, b in combinations(sorted(sets, key=id_key), 2):
        sa, sb = sets[a], sets[b]
        if len(sa & sb) / len(sa | sb) >= threshold:
            out.append((a, b))
    return out


def test_truth_is_exact(small: C.Corpus, cfg: Params) -> None:
    assert small.truth, "the corpus should contain near-duplicate pairs"
    assert [(a, b) for a, b, _ in small.truth] == naive_truth(small, cfg, THRESHOLD)
    proc = cfg.processor()
    for a, b, sim in small.truth:
        sa, sb = proc.shingle_set(small.texts()[a]), proc.shingle_set(small.texts()[b])
        assert sim == len(sa & sb) / len(sa | sb)


@pytest.mark.parametrize("threshold", [0.5, 0.9])
def test_family_truth_equals_brute_force_at_other_thresholds(threshold: float) -> None:
    cfg = Params(threshold=threshold)
    corp = C.generate(250, seed=3, threshold=threshold, dup_fraction=0.3, config=cfg)
    exact = C.exact_truth(corp.records, cfg, threshold)
    assert [(a, b) for a, b, _ in corp.truth] == [(a, b) for a, b, _ in exact]


def test_cross_family_pairs_are_far_below_threshold(small: C.Corpus, cfg: Params) -> None:
    assert C.cross_family_similarity(small, samples=300, cfg=cfg) < 0.3


def test_shape_of_the_corpus(small: C.Corpus) -> None:
    assert len(small.records) == 400
    assert [r.id for r in small.records] == [str(i) for i in range(400)]
    assert len(small.copies) == round(0.3 * 400)
    copy_ids = {c.id for c in small.copies}
    for r in small.records:
        if r.id not in copy_ids:
            assert 100 <= len(r.text.split()) <= 300
    for base, members in small.families.items():
        assert members[0] == base
        assert 2 <= len(members) <= 6  # base + 1..5 copies
    assert sum(len(m) - 1 for m in small.families.values()) == len(small.copies)


def test_texts_are_already_canonical(small: C.Corpus, cfg: Params) -> None:
    """So the edit rates are exactly what the shingles see."""
    proc = cfg.processor()
    for r in small.records:
        assert proc.prepare(r.text) == r.text


def test_edits_match_what_the_copies_record(small: C.Corpus) -> None:
    texts = small.texts()
    for c in small.copies:
        base, copy = texts[c.base].split(), texts[c.id].split()
        assert c.base_words == len(base)
        assert len(copy) == len(base) + c.insertions - c.deletions
        assert word_edit_distance(base, copy) <= c.edits
        assert 0.01 <= c.rate <= 0.10


def test_edit_rates_are_the_intended_ones() -> None:
    corp = C.generate(3000, seed=11, truth="none")
    copies = corp.copies
    assert len(copies) == 300
    # Each copy: edits ~ Binomial(words, rate); allow 4.5 standard deviations.
    for c in copies:
        mean = c.base_words * c.rate
        sd = math.sqrt(mean * (1 - c.rate))
        assert abs(c.edits - mean) <= 4.5 * sd + 1, c
    # Over all copies, the realized rate follows the nominal one closely.
    nominal = sum(c.base_words * c.rate for c in copies)
    realized = sum(c.edits for c in copies)
    assert abs(realized - nominal) <= 4 * math.sqrt(nominal)
    # The three kinds of edit are equally likely.
    for kind in ("insertions", "deletions", "substitutions"):
        count = sum(getattr(c, kind) for c in copies)
        assert abs(count - realized / 3) <= 4 * math.sqrt(realized * 2 / 9), kind
    # Rates cover the intended range [1%, 10%].
    rates = sorted(c.rate for c in copies)
    assert rates[0] < 0.02 and rates[-1] > 0.09


def test_seeded_and_reproducible() -> None:
    a = C.generate(200, seed=5, truth="none")
    b = C.generate(200, seed=5, truth="none")
    c = C.generate(200, seed=6, truth="none")
    assert C.fingerprint(a.records) == C.fingerprint(b.records)
    assert a.families == b.families
    assert C.fingerprint(a.records) != C.fingerprint(c.records)


def test_zipf_vocabulary() -> None:
    words = C.vocabulary(5000, seed=0)
    assert len(words) == len(set(words)) == 5000
    assert all(w.isalpha() and w.islower() for w in words)
    corp = C.generate(500, seed=0, truth="none", vocab_size=5000)
    counts: dict[str, int] = {}
    for r in corp.records:
        for w in r.text.split():
            counts[w] = counts.get(w, 0) + 1
    top = sorted(counts.values(), reverse=True)
    # Zipf with exponent 1.1: rank 1 is about 2**1.1 = 2.1 times as frequent as rank 2 and
    # about 10**1.1 = 12.6 times rank 10.
    assert 1.5 < top[0] / top[1] < 3.0
    assert 7 < top[0] / top[9] < 22


def test_short_records() -> None:
    recs = C.short_records(500, seed=1)
    assert len(recs) == 500
    assert len({r.id for r in recs}) == 500
    assert all(8 <= len(r.text.split()) <= 15 for r in recs)
    assert C.fingerprint(recs) == C.fingerprint(C.short_records(500, seed=1))


# -- end to end --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def doc_params() -> Params:
    """The benchmark's parameters: word 3-grams, threshold 0.8."""
    return Params(threshold=THRESHOLD, shingle_kind="word", shingle_size=3)


@pytest.fixture(scope="module")
def e2e_corpus(
    doc_params: Params, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, set[tuple[str, str]]]:
    corp = C.generate(300, seed=7, threshold=THRESHOLD, dup_fraction=0.3, config=doc_params)
    path = tmp_path_factory.mktemp("e2e") / "corpus.txt"
    E.write_corpus(corp.records, path)
    return path, {(a, b) for a, b, _ in corp.truth}


def test_end_to_end_runs_each_library_and_scores_it_against_the_truth(
    e2e_corpus: tuple[Path, set[tuple[str, str]]], doc_params: Params, tmp_path: Path
) -> None:
    pytest.importorskip("datasketch")
    pytest.importorskip("rensa")
    path, truth = e2e_corpus
    assert len(truth) > 20
    res = E.run(path, truth, doc_params, solr_base=None, solr_pid=None, work=tmp_path,
                peers=["neardup_memory", "datasketch", "rensa"], say=lambda _: None)  # fmt: skip
    assert res["docs"] == 300
    assert set(res["methods"]) == {"neardup_memory", "datasketch", "rensa"}
    for kind, r in res["methods"].items():
        found = E.read_pairs(tmp_path / f"{kind}.tsv")
        assert r["reported"] == r["pairs"] == len(found), kind
        assert r["truth"] == len(truth)
        assert r["true_positives"] == len(found & truth), kind
        assert r["recall"] == round(len(found & truth) / len(truth), 5), kind
        assert r["precision"] == 1.0, kind  # every method verifies by exact Jaccard
        assert r["outside_truth"] == 0, kind
        assert {"wall_s", "cpu_s", "peak_rss_mb", "phases", "candidates"} <= set(r), kind
    # neardup's bands (21 x 6) and rensa's (16 x 8) find every pair of this corpus;
    # datasketch's default bands (9 x 13, tuned against false positives) find fewer.
    assert res["methods"]["neardup_memory"]["recall"] == 1.0
    assert res["methods"]["rensa"]["recall"] == 1.0
    assert res["methods"]["datasketch"]["recall"] < 1.0
    assert (res["methods"]["datasketch"]["bands"], res["methods"]["datasketch"]["rows"]) == (9, 13)
    assert "neardup_memory/datasketch_python_rss" in res["ratios"]
    runs = {"100000": {"end_to_end": res}}
    assert [v for _, v, _ in R.target_values(100_000, runs["100000"])] == [None, None, None]
    table = "\n".join(R.headline(runs) + R.detail(runs["100000"]))
    assert "| 100,000 |" in table and "rensa RMinHashLSH" in table


def test_end_to_end_scores_come_from_the_truth(tmp_path: Path) -> None:
    out = tmp_path / "pairs.tsv"
    out.write_text("id1\tid2\tjaccard\tedit_distance\n10\t2\t0.9\t3\n3\t4\t0.85\t4\n")
    assert E.read_pairs(out) == {("2", "10"), ("3", "4")}
    both = E.scored(out, {("2", "10"), ("3", "4")})
    assert (both["recall"], both["precision"], both["outside_truth"]) == (1.0, 1.0, 0)
    more = E.scored(out, {("2", "10"), ("3", "4"), ("5", "6"), ("7", "8")})
    assert (more["recall"], more["precision"]) == (0.5, 1.0)
    fewer = E.scored(out, {("2", "10"), ("5", "6")})
    assert (fewer["recall"], fewer["precision"], fewer["outside_truth"]) == (0.5, 0.5, 1)


def test_ratios_one_definition_for_end_to_end_and_the_defaults_benchmark() -> None:
    """End to end divides wall, CPU (with Solr's for neardup on Solr) and Python peak by the
    two peers; the defaults benchmark, wall time by every peer run it made."""
    m = {
        "neardup_solr": {"wall_s": 2.0, "cpu_s": 1.0, "peak_rss_mb": 30.0, "solr_cpu_s": 0.5},
        "neardup_memory": {"wall_s": 1.0, "cpu_s": 1.0, "peak_rss_mb": 90.0},
        "datasketch": {"wall_s": 4.0, "cpu_s": 3.0, "peak_rss_mb": 60.0},
        "datasketch_ours": {"wall_s": 8.0, "cpu_s": 3.0, "peak_rss_mb": 60.0},
    }
    assert E.ratios(m) == {
        "neardup/datasketch_wall": 0.5,
        "neardup/datasketch_cpu": 0.333,
        "neardup/datasketch_python_rss": 0.5,
        "neardup/datasketch_cpu_with_solr": 0.5,
        "neardup_memory/datasketch_wall": 0.25,
        "neardup_memory/datasketch_cpu": 0.333,
        "neardup_memory/datasketch_python_rss": 1.5,
    }
    mine = {"neardup_solr": "neardup_solr", "neardup_memory": "neardup_memory"}
    wall = E.ratios(m, ["datasketch", "datasketch_ours"], {"": "wall_s"}, mine)
    assert list(wall.items()) == [
        ("neardup_solr/datasketch", 0.5),
        ("neardup_solr/datasketch_ours", 0.25),
        ("neardup_memory/datasketch", 0.25),
        ("neardup_memory/datasketch_ours", 0.125),
    ]


def test_end_to_end_cli_into_solr(
    solr_base: str, e2e_corpus: tuple[Path, set[tuple[str, str]]], doc_params: Params,
    tmp_path: Path,
) -> None:  # fmt: skip
    """``neardup index`` and ``neardup report`` as processes, into a collection they create."""
    path, truth = e2e_corpus
    name = f"test_e2e_{os.getpid()}"
    r, out = E.run_neardup_solr(path, doc_params, solr_base, name, None, tmp_path)
    r.update(E.scored(out, truth))
    assert (r["recall"], r["precision"]) == (1.0, 1.0)
    assert r["candidates"] >= len(truth)
    assert set(r["steps"]) == {"index", "report"}
    assert "300 records, 21 bands" in r["steps"]["report"]["summary"]


def test_incremental_at_scale_runs_and_cleans_up(
    solr_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m benchmarks.incremental``: a collection, 1,000 new records, their report."""
    from benchmarks import incremental
    from neardup.solr.client import Solr

    monkeypatch.setenv("NEARDUP_SOLR_URL", solr_base)
    out = tmp_path / "inc.json"
    assert incremental.main(["--size", "3000", "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert (got["collection"], got["new"]) == (3000, 1000)
    assert got["seconds"] >= got["index_s"] > 0 and got["report_again_s"] > 0
    assert "word 3-grams" in got["params"]
    left = Solr(solr_base, "admin").request("GET", "admin/cores", params={"action": "STATUS"},
                                            core=False)["status"]
    assert "bench_incremental_3000" not in left


def test_a_peer_that_does_not_finish_is_reported_not_fatal(
    e2e_corpus: tuple[Path, set[tuple[str, str]]], doc_params: Params, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """At 1M documents datasketch's MinHashes outgrow memory and the process is killed: the
    run goes on, and the headline says which peer did not finish and why."""
    path, truth = e2e_corpus
    real = E.run_child

    def child(kind: str, *args: object) -> object:
        if kind == "datasketch":
            raise RuntimeError("python -m benchmarks.end_to_end peer datasketch exited with -9:")
        return real(kind, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(E, "run_child", child)
    res = E.run(path, truth, doc_params, solr_base=None, solr_pid=None, work=tmp_path,
                peers=["neardup_memory", "datasketch"], say=lambda _: None)  # fmt: skip
    assert set(res["methods"]) == {"neardup_memory"}
    assert "exited with -9" in res["failed"]["datasketch"]
    assert not any(k.endswith("datasketch_wall") for k in res["ratios"])
    table = "\n".join(R.headline({"1000000": {"end_to_end": res}}))
    assert "1,000,000 documents: datasketch did not finish:" in table
    assert "| 1,000,000 |" in table and "n/a" in table


def test_scale_streams_records_with_near_copies(
    solr_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m benchmarks.scale``: streamed records (a tenth near-copies), indexed and
    reported, and its collection removed."""
    from benchmarks import scale
    from neardup.solr.client import Solr

    a = [(r.id, r.text) for r in scale.stream_short_records(3000, seed=4)]
    assert a == [(r.id, r.text) for r in scale.stream_short_records(3000, seed=4)]
    assert [i for i, _ in a] == [str(k) for k in range(3000)]
    texts = {t for _, t in a}
    copies = sum(1 for _, t in a if t.rsplit(" ", 1)[0] in texts)
    assert 0.05 * 3000 < copies < 0.15 * 3000
    monkeypatch.setenv("NEARDUP_SOLR_URL", solr_base)
    out = tmp_path / "scale.json"
    assert scale.main(["--size", "3000", "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["records"] == 3000 and got["pairs"] >= copies * 0.9
    assert got["candidates"] >= got["pairs"] and got["python_peak_rss_mb"] > 0
    left = Solr(solr_base, "admin").request("GET", "admin/cores", params={"action": "STATUS"},
                                            core=False)["status"]
    assert "bench_scale_3000" not in left


def test_results_md_is_what_render_makes_of_results_json() -> None:
    """RESULTS.md is generated, never edited: rendering the committed JSON gives it back."""
    from benchmarks.render import render

    bench = Path(__file__).resolve().parents[1] / "benchmarks"
    data = json.loads((bench / "results.json").read_text(encoding="utf-8"))
    assert render(data) == (bench / "RESULTS.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("words", ["real", "pseudo", "tokens"])
def test_short_families_plant_near_copies_and_say_which(words: str) -> None:
    from itertools import combinations

    from benchmarks.corpus import short_families

    c = short_families(3_000, seed=2, words=words)
    again = short_families(3_000, seed=2, words=words)
    assert [r.text for r in c.records] == [r.text for r in again.records]
    texts = c.texts()
    assert len(texts) == 3_000 and all(8 - 3 <= len(t.split()) <= 15 for t in texts.values())
    assert len(c.copies) == 300
    planted = {tuple(sorted(p, key=int)) for m in c.families.values() for p in combinations(m, 2)}
    assert {(a, b) for a, b, _ in c.truth} == planted
    for copy in c.copies:  # a copy is near its base: edited, but most words kept
        base, mine = texts[copy.base].split(), texts[copy.id].split()
        assert mine != base and len(set(base) & set(mine)) >= len(set(base)) - 3
    if words == "tokens":
        assert all(w[0] == "w" for t in list(texts.values())[:50] for w in t.split())


def test_defaults_benchmark_runs_neardup_without_flags_and_gives_peers_its_choice(
    solr_base: str, tmp_path: Path
) -> None:
    """``python -m benchmarks.defaults``: neardup as a user runs it (no parameter flag), the
    peers with neardup's choice and with their README's, all scored on the planted pairs."""
    from types import SimpleNamespace

    from benchmarks import defaults as D

    node = SimpleNamespace(base=solr_base, pid=None)
    res = D.run_corpus("short", 800, 3, node, ["neardup_solr", "neardup_memory", "datasketch",
                                                "rensa"], tmp_path)  # type: ignore[arg-type]
    m = res["methods"]
    assert set(m) == {"neardup_solr", "neardup_memory", "datasketch_ours", "datasketch_readme",
                      "rensa_ours", "rensa_readme"}  # fmt: skip
    index_cmd = m["neardup_solr"]["how"].split(";")[0]
    assert "--shingle" not in index_cmd and "--threshold" not in index_cmd
    how_memory = m["neardup_memory"]["how"]
    assert "NearDupIndex()" in how_memory and "Params" not in how_memory
    assert res["chosen"].startswith("character 3-grams, valley rule above a floor of 0.3")
    decided = res["chosen"].rsplit("Jaccard >= ", 1)[1]
    assert m["datasketch_ours"]["settings"].startswith(f"character 3-grams, Jaccard >= {decided}")
    assert "word 1-grams, Jaccard >= 0.5" in m["rensa_readme"]["settings"]
    for label in ("neardup_solr", "neardup_memory"):
        assert m[label]["recall"] >= 0.95 and m[label]["precision"] >= 0.95, (label, m[label])
    assert res["truth_pairs"] == m["neardup_solr"]["truth"] > 50
    assert set(res["ratios"]) >= {"neardup_solr/datasketch_ours", "neardup_memory/rensa_readme"}
    rows = D.table([res])
    assert len(rows) == 2 + 6 and rows[2].startswith("| short | 800 | neardup_solr | no flags: ")
    assert "its own" in rows[4] and "bands x" in rows[4]  # a peer's own banding, said as such


def test_defaults_benchmark_prints_how_each_method_scales_from_one_size_to_the_next() -> None:
    """Given several sizes, each method's time and peak from one to the next, in size order
    whatever order they ran in; a method run at one size only gives no line."""
    from benchmarks import defaults as D

    def run(n: int, methods: dict[str, tuple[float, float]]) -> dict[str, object]:
        return {"corpus": "short", "records": n, "methods": {
            k: {"wall_s": w, "peak_rss_mb": p} for k, (w, p) in methods.items()}}  # fmt: skip

    lines = D.scaling([
        run(10_000_000, {"neardup_solr": (900.0, 1400.0)}),
        run(1_000_000, {"neardup_solr": (90.0, 200.0), "rensa_ours": (30.0, 500.0)}),
    ])  # fmt: skip
    assert lines == [
        "short neardup_solr: 1,000,000 -> 10,000,000 records (10x): 90.0 -> 900.0 s (10.0x the "
        "time), Python peak 200 -> 1400 MB"
    ]


def test_scale_documents_are_streamed_with_edited_copies() -> None:
    """``benchmarks.scale --kind documents``: documents of 100-300 words, the same for a seed,
    a tenth of them an edited copy of an earlier document of their chunk (alike, not equal)."""
    from benchmarks import scale

    got = list(scale.planted_documents(3000, seed=2))
    again = [(r.id, r.text, o) for r, o in scale.planted_documents(3000, seed=2)]
    assert [(r.id, r.text, o) for r, o in got] == again
    assert [r.id for r, _ in got] == [str(k) for k in range(3000)]
    lengths = [len(r.text.split()) for r, o in got if o is None]
    assert min(lengths) >= 100 and max(lengths) <= 300
    copies = [(r, o) for r, o in got if o is not None]
    assert 0.05 * 3000 < len(copies) < 0.15 * 3000
    for r, o in copies:
        assert o < int(r.id)
        a, b = set(got[o][0].text.split()), set(r.text.split())
        assert 0.5 < len(a & b) / len(a | b)
    assert sum(r.text != got[o][0].text for r, o in copies) > 0.9 * len(copies)
