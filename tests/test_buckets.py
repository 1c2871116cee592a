"""The candidate rule: a shared bucket of at most max_bucket records, or two shared buckets."""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from neardup import NearDupIndex, Params
from neardup.backends.base import Capability, Document
from neardup.backends.memory import MemoryBackend
from neardup.candidates import buckets
from neardup.candidates.buckets import (
    all_candidates,
    check_max_bucket,
    fresh_candidates,
    large_key_groups,
)
from neardup.defaults import DEFAULTS
from neardup.errors import ArgumentError
from neardup.keys import id_key
from neardup.resources import restaurants
from neardup.sign.banding import band_keys_batch

from .conftest import run_cli


def _random_keys(n: int, bands: int, alphabet: int, seed: int) -> dict[str, list[str]]:
    """Each record's band keys: few values per band, so that buckets are of every size."""
    rng = random.Random(seed)
    out = {}
    for i in range(n):
        # a skewed choice: value 0 is common (a large bucket), the rest rarer
        out[str(i)] = [f"b{b}_{min(int(rng.expovariate(0.35)), alphabet)}" for b in range(bands)]
    return out


def _buckets(keys: dict[str, list[str]], bands: int) -> list[list[list[str]]]:
    per_band: list[dict[str, list[str]]] = [{} for _ in range(bands)]
    for rid, ks in keys.items():
        for b, k in enumerate(ks):
            per_band[b].setdefault(k, []).append(rid)
    return [[m for m in band.values() if len(m) > 1] for band in per_band]


def _by_the_rule(
    keys: dict[str, list[str]], max_bucket: int | None, bound: int = DEFAULTS.repeated_group
) -> set[tuple[str, str]]:
    """Every pair checked on its own, as the module's docstring states the rule (and its
    exception: a group of more than ``bound`` with the same keys in every band)."""
    out = set()
    groups: dict[tuple[str, ...], list[str]] = {}
    for rid in sorted(keys, key=id_key):
        groups.setdefault(tuple(keys[rid]), []).append(rid)
    keys = dict(keys)
    for members in groups.values():
        if max_bucket is not None and len(members) > bound:
            out |= {(members[0], m) for m in members[1:]}
            for m in members[1:]:
                del keys[m]
    size: dict[str, int] = {}
    for ks in keys.values():
        for k in ks:
            size[k] = size.get(k, 0) + 1
    for a, b in combinations(sorted(keys, key=id_key), 2):
        shared = set(keys[a]) & set(keys[b])
        if not shared:
            continue
        small = max_bucket is None or any(size[k] <= max_bucket for k in shared)
        if small or len(shared) >= 2:
            out.add((a, b))
    return out


@pytest.mark.parametrize("max_bucket", [None, 2, 3, 8, 30])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_all_candidates_follow_the_rule_pair_by_pair(max_bucket: int | None, seed: int) -> None:
    keys = _random_keys(120, 6, 12, seed)
    expected = _by_the_rule(keys, max_bucket)
    found = all_candidates(_buckets(keys, 6), max_bucket)
    assert found.pairs == expected
    assert found.buckets == sum(len(b) for b in _buckets(keys, 6))
    large = sum(1 for band in _buckets(keys, 6) for m in band if max_bucket and len(m) > max_bucket)
    assert found.large == large
    if max_bucket in (2, 3):  # the bound is doing something on this data
        assert len(found.pairs) < len(_by_the_rule(keys, None))


@pytest.mark.parametrize("max_bucket", [None, 3, 8])
def test_fresh_candidates_are_the_pairs_of_the_new_records(max_bucket: int | None) -> None:
    """From key counts, small buckets' members and the records holding two large keys (the
    backend calls of report(since=...)), the same pairs as the full rule."""
    keys = _random_keys(150, 6, 12, seed=7)
    backend = MemoryBackend()
    backend.add([Document(i, "", "", ks) for i, ks in keys.items()])
    fresh = {str(i): keys[str(i)] for i in range(130, 150)}
    everything = all_candidates(_buckets(keys, 6), max_bucket).pairs
    counts = backend.key_counts(sorted({k for ks in fresh.values() for k in ks}))
    small, groups = large_key_groups(fresh, counts, max_bucket)
    if max_bucket == 3:
        assert groups  # the records holding two large keys are looked up
    found = fresh_candidates(
        fresh, counts, backend.members(small), backend.holding_two(groups), max_bucket
    )
    assert found.pairs == {p for p in everything if p[0] in fresh or p[1] in fresh}
    assert found.pairs  # not vacuous


def test_ids_are_ordered_by_id_key_in_every_pair() -> None:
    found = all_candidates([[["10", "9", "x"]]], None)
    assert found.pairs == {("9", "10"), ("9", "x"), ("10", "x")}
    assert all(id_key(a) < id_key(b) for a, b in found.pairs)


@pytest.mark.parametrize("bad", [1, 0, -5, True, 2.5, "100"])
def test_a_bad_max_bucket_is_refused(bad: object) -> None:
    with pytest.raises(ArgumentError, match="max_bucket"):
        check_max_bucket(bad)  # type: ignore[arg-type]
    idx = NearDupIndex(Params(threshold=0.5))
    idx.add_many([("1", "a b c d"), ("2", "a b c e")])
    with pytest.raises(ArgumentError, match="max_bucket"):
        idx.report(max_bucket=bad)  # type: ignore[arg-type]


def test_a_common_feature_no_longer_pairs_strangers() -> None:
    """Records that share only a frequent word pass one band by chance; with a small bound
    they stop being candidates, while the real copies stay found."""
    idx = NearDupIndex(Params(shingle_kind="char", shingle_size=3, threshold=0.3, rule="threshold"))
    rng = random.Random(5)
    letters = "abcdefghijklmnopqrstuvwxyz"
    records = []
    for i in range(400):
        words = " ".join("".join(rng.choice(letters) for _ in range(7)) for _ in range(4))
        records.append((f"r{i}", f"springfield {words}"))
    records += [("copy1", "123 Main Street Springfield"), ("copy2", "123 Main Street, Springfield")]
    idx.add_many(records)
    full = idx.report(max_bucket=None, cap=None)
    bounded = idx.report(max_bucket=4, cap=None)
    assert bounded.large_buckets > 0
    assert bounded.candidates < full.candidates * 0.8, (bounded.candidates, full.candidates)
    assert ("copy1", "copy2") in {(p.id1, p.id2) for p in bounded.pairs}
    assert bounded.counts()["max_bucket"] == 4
    assert {(p.id1, p.id2) for p in bounded.pairs} <= {(p.id1, p.id2) for p in full.pairs}


@pytest.mark.parametrize("seed", [4, 5])
def test_a_cluster_of_near_copies_follows_the_rule_too(seed: int) -> None:
    """Near-copies share most bands: their large buckets take the enumerate-and-filter way
    (DEFAULTS.coherent), strangers the regrouping one; both give the rule's pairs."""
    keys = _random_keys(80, 8, 12, seed)
    rng = random.Random(seed)
    for c in range(25):  # 25 copies of one record, each differing in a band or two
        own = [f"b{b}_copy" for b in range(8)]
        for b in rng.sample(range(8), rng.randint(0, 2)):
            own[b] = f"b{b}_x{c}"
        keys[f"c{c}"] = own
    for max_bucket in (3, 10):
        found = all_candidates(_buckets(keys, 8), max_bucket)
        assert found.pairs == _by_the_rule(keys, max_bucket)
        assert found.large > 0


def test_cli_max_bucket(tmp_path: Path) -> None:
    """--max-bucket reaches the report, 'none' lifts the bound, and a bad value exits 2."""
    addresses, _ = restaurants()
    counts = {}
    for value in ("none", "2"):
        out = tmp_path / f"out-{value}.txt"
        proc = run_cli("dedupe", str(addresses), "--out", str(out), "--backend", "memory",
                       "--max-bucket", value, "--json")
        assert proc.returncode == 0, proc.stderr
        counts[value] = json.loads(proc.stdout)["report"]
    assert counts["none"]["max_bucket"] is None and counts["none"]["large_buckets"] == 0
    assert counts["2"]["max_bucket"] == 2 and counts["2"]["large_buckets"] > 0
    assert counts["2"]["candidates"] < counts["none"]["candidates"]
    for bad in ("1", "x", "-3"):
        proc = run_cli("dedupe", str(addresses), "--out", str(tmp_path / "o.txt"),
                       "--backend", "memory", "--max-bucket", bad)
        assert proc.returncode == 2 and "--max-bucket" in proc.stderr, proc.stderr


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_cap_keeps_each_record_its_best_and_never_a_protected_pair(seed: int) -> None:
    from neardup.candidates.buckets import cap_per_record

    rng = np.random.default_rng(seed)
    n, cap, protect = 300, 8, 6
    a = rng.integers(0, n, 6_000)
    b = rng.integers(0, n, 6_000)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keys = np.unique((lo[lo != hi] << 32) | hi[lo != hi])
    shared = rng.integers(1, 9, keys.size).astype(np.uint16)
    keep = cap_per_record(keys, shared, n, cap, protect)
    assert (keep == cap_per_record(keys, shared, n, cap, protect)).all()  # the same each run
    assert keep[shared >= protect].all()
    assert not keep.all()  # records of about 40 candidates each: the cap bites
    first, second = keys >> 32, keys & 0xFFFFFFFF
    degree = np.bincount(first, minlength=n) + np.bincount(second, minlength=n)
    kept = np.bincount(first[keep], minlength=n) + np.bincount(second[keep], minlength=n)
    assert (kept >= np.minimum(cap, degree)).all()
    # A dropped pair was dropped by both its records: each kept `cap` pairs sharing at least
    # as many bands (its best), so no record drops a pair better than one it keeps.
    for k in np.flatnonzero(~keep)[:200].tolist():
        for r in (first[k], second[k]):
            mine = ((first == r) | (second == r)) & keep & (shared >= shared[k])
            assert mine.sum() >= cap, (k, r)


def test_a_light_record_keeps_every_candidate() -> None:
    from neardup.candidates.buckets import cap_per_record

    keys = np.array([(0 << 32) | k for k in range(1, 30)])  # a hub and 29 records of one pair
    keep = cap_per_record(keys, np.ones(29, np.uint16), 30, cap=5, protect=9)
    assert keep.all()  # each partner has one candidate: it keeps it


def test_the_cap_bounds_an_adversarial_vocabulary_and_keeps_the_planted_pairs() -> None:
    from benchmarks.corpus import short_families

    corp = short_families(3_000, seed=5, words="tokens")
    idx = NearDupIndex()
    idx.add_many([(r.id, r.text) for r in corp.records])
    free = idx.report(cap=None)
    capped = idx.report(cap=10)
    assert capped.capped > 0 and capped.cap == 10
    assert capped.candidates + capped.capped == free.candidates
    assert capped.candidates < free.candidates * 0.7
    truth = {(a, b) for a, b, _ in corp.truth}
    found = {(p.id1, p.id2) for p in capped.pairs}
    assert len(found & truth) >= 0.98 * len({(p.id1, p.id2) for p in free.pairs} & truth)
    with pytest.raises(ArgumentError, match="cap"):
        idx.report(cap=0)


@pytest.mark.parametrize("kind", ["char", "word"])
@pytest.mark.parametrize("backend", ["memory", "solr"])
def test_signing_again_finds_the_candidates_the_index_holds(
    backend: str, kind: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report of a small index signs its records again and bands them in numpy; the
    candidates are those of the index's own buckets (read band by band), pair for pair:
    records (character shingles) and documents (word shingles) alike."""
    import dataclasses

    from benchmarks.corpus import short_families
    from neardup import index as index_mod
    from neardup.backends.solr import SolrBackend
    from neardup.defaults import DEFAULTS

    corp = short_families(2_500, seed=9, words="real")
    if backend == "solr":
        solr = request.getfixturevalue("new_collection")("signed")
        idx = NearDupIndex(backend=SolrBackend(solr), given={"shingle_kind": kind})
    else:
        idx = NearDupIndex(given={"shingle_kind": kind})
    idx.add_many([(r.id, r.text) for r in corp.records])
    assert idx.params.shingle_kind == kind
    signed = idx.candidates()
    assert signed.texts is not None  # read once, kept for the report
    if backend == "memory":  # banded from the signatures it kept: the same as signed again
        assert idx.backend.signatures() is not None
        with monkeypatch.context() as m:
            m.setattr(idx.backend, "signatures", lambda: None)
            again = idx.candidates()
        assert again.pairs == signed.pairs and again.ids == signed.ids
        assert again.hashes is not None and signed.hashes is not None
        assert all((x == y).all() for x, y in zip(again.hashes, signed.hashes, strict=True))
    monkeypatch.setattr(index_mod, "DEFAULTS", dataclasses.replace(DEFAULTS, scan_records=0))
    if backend == "memory":  # past the bound too, it bands the signatures it kept
        assert idx.candidates().texts is not None
        kept = idx.backend.capabilities - {Capability.SIGNATURES}
        monkeypatch.setattr(idx.backend, "capabilities", kept)
    held = idx.candidates()
    assert held.texts is None
    assert signed.pairs == held.pairs and len(signed) > 1_000
    assert (signed.buckets, signed.large, signed.capped) == (held.buckets, held.large, held.capped)
    assert signed.ids == held.ids
    if backend == "solr":  # past scan_records, records are signed again up to twice as many
        monkeypatch.setattr(
            index_mod, "DEFAULTS", dataclasses.replace(DEFAULTS, scan_records=1_500)
        )
        between = idx.candidates()
        assert (between.texts is not None) == (kind == "char")
        assert between.pairs == signed.pairs
    a = idx.report()
    monkeypatch.setattr(index_mod, "DEFAULTS", DEFAULTS)
    assert idx.report().pairs == a.pairs


def test_the_memory_buckets_filled_when_asked_follow_every_write() -> None:
    """The memory backend fills its buckets at the first lookup after a write: records replaced,
    removed or added before, between and after lookups are in exactly the buckets of the
    records it holds."""
    keys = _random_keys(60, 4, 6, seed=3)
    backend = MemoryBackend()
    backend.add([Document(i, "", "", ks) for i, ks in list(keys.items())[:40]])
    backend.add([Document("3", "", "", keys["50"])])  # replaced before any lookup
    backend.remove(["7"])  # removed before any lookup
    held = {i: ks for i, ks in list(keys.items())[:40] if i != "7"}
    held["3"] = keys["50"]

    def expected() -> list[list[str]]:
        return sorted(sorted(m, key=id_key) for band in _buckets(held, 4) for m in band)

    def stored() -> list[list[str]]:
        return sorted(sorted(m, key=id_key) for b in range(4) for m in backend.buckets(b))

    assert stored() == expected() and expected()
    backend.add([Document(i, "", "", ks) for i, ks in list(keys.items())[40:]])  # after one
    backend.add([Document("12", "", "", keys["0"])])
    held.update(dict(list(keys.items())[40:]))
    held["12"] = keys["0"]
    assert stored() == expected()
    counts = {k: sum(k in ks for ks in held.values()) for k in keys["0"]}
    assert backend.key_counts(keys["0"]) == {k: n for k, n in counts.items() if n > 1}


def test_the_memory_backend_makes_keys_from_the_signatures_it_keeps() -> None:
    """Records stored with a signature get their keys when first needed, the keys of that
    signature, whatever was replaced or removed before; records stored with keys mix in, and
    then the backend has no signature for every record to give."""
    rng = np.random.default_rng(5)
    sigs = rng.integers(0, 3, size=(60, 8), dtype=np.uint32)  # few values: shared buckets
    keys = {str(i): ks for i, ks in enumerate(band_keys_batch(sigs, 4, 2))}
    backend = MemoryBackend()
    backend.store_params({"bands": 4, "rows": 2})
    backend.add([Document(str(i), str(i), "", [], signature=sigs[i]) for i in range(40)])
    backend.add([Document("3", "x", "", [], signature=sigs[50])])  # replaced, keys not made
    backend.remove(["7"])  # removed before its keys were made
    held = {str(i): keys[str(i)] for i in range(40) if i != 7}
    held["3"] = keys["50"]
    ids, kept = backend.signatures() or ([], None)
    assert ids == [i for i, _ in backend.all_texts()] and kept is not None
    assert all((kept[n] == sigs[50 if i == "3" else int(i)]).all() for n, i in enumerate(ids))

    def expected() -> list[list[str]]:
        return sorted(sorted(m, key=id_key) for band in _buckets(held, 4) for m in band)

    def stored() -> list[list[str]]:
        return sorted(sorted(m, key=id_key) for b in range(4) for m in backend.buckets(b))

    assert stored() == expected() and expected()
    got = backend.get("3")
    assert got is not None and got.keys == keys["50"]
    backend.add([Document(str(i), "", "", keys[str(i)]) for i in range(40, 60)])  # keys given
    backend.add([Document("12", "", "", [], signature=sigs[0])])  # replaced after its keys
    backend.remove(["20"])  # removed after its keys were made
    held.update({str(i): keys[str(i)] for i in range(40, 60)})
    held["12"] = keys["0"]
    del held["20"]
    assert stored() == expected()
    assert {r.id: r.keys for r in backend.records()} == held
    assert backend.signatures() is None  # 20 records were stored with keys only


def test_the_memory_backend_keeps_hashes_within_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Records written to memory keep their shingle hashes for the report's screen, replaced
    and removed with them; past the budget none are kept, and the report is the same."""
    from benchmarks.corpus import short_families
    from neardup.backends import memory

    records = [(r.id, r.text) for r in short_families(3_000, seed=2, words="real").records]
    idx = NearDupIndex()
    idx.add_many(records)
    idx.add_many([(records[0][0], records[1][1])], replace=True)  # its hashes: the new text's
    idx.remove([records[2][0]])
    ids = [i for i, _ in idx.backend.all_texts()]
    kept = idx.backend.shingle_hashes(ids)
    assert kept is not None and records[2][0] not in ids
    values, offsets = idx.processor.shingle_hashes([t for _, t in idx.backend.all_texts()])
    np.testing.assert_array_equal(kept[0], values)
    np.testing.assert_array_equal(kept[1], offsets)
    assert idx.backend.shingle_hashes(ids + ["nobody"]) is None
    report = idx.report()
    monkeypatch.setattr(memory, "HASH_BYTES", 10_000)
    small = NearDupIndex()
    small.add_many(records)
    small.add_many([(records[0][0], records[1][1])], replace=True)
    small.remove([records[2][0]])
    assert small.backend.shingle_hashes(ids) is None  # over budget: made by the report
    again = small.report()
    assert again.pairs == report.pairs and len(report.pairs) > 100


def test_regrouping_labels_every_member_by_both_buckets_sorted() -> None:
    """Large buckets' members regrouped by other bands: each member with a bucket there,
    labelled by both buckets and the band, in label order; the same whether label and code fit
    one packed radix sort or (labels past 2**52 here) are argsorted."""
    from neardup.candidates.buckets import _regroup

    rng = np.random.default_rng(7)
    codes = rng.permutation(5_000)[:3_000].astype(np.int32)
    which = np.sort(rng.integers(0, 40, codes.size)).astype(np.int64)
    theres = [rng.integers(-1, 50 + 10 * j, 5_000).astype(np.int32) for j in range(3)]
    for bands in (theres[:1], theres):
        want = {(int(w), j, int(there[c]), int(c)) for j, there in enumerate(bands)
                for c, w in zip(codes, which, strict=True) if there[c] >= 0}  # fmt: skip
        step = max(int(t[codes].max()) for t in bands) + 1
        for shift in (0, 1 << 45):
            kept, labels, width = _regroup(codes, which + shift, bands)
            assert (np.diff(labels) >= 0).all() and width == step * len(bands)
            got = {(int(lab // width) - shift, int(lab % width) // step,
                    int(lab % width) % step, int(c))
                   for c, lab in zip(kept, labels, strict=True)}  # fmt: skip
            assert got == want and len(want) > 2_000 * len(bands)


@pytest.mark.parametrize(("n", "bands", "rows"), [(4_000, 40, 3), (2_500, 32, 4), (1, 40, 3)])
def test_banding_signatures_in_c_gives_numpy_s_candidates(n: int, bands: int, rows: int) -> None:
    """The kernel's buckets (band_buckets), radix sort and fold give the candidates, buckets,
    large buckets and capped count of the numpy path, on signatures of few values (many
    shared and large buckets)."""
    from neardup.candidates.buckets import signature_candidates
    from neardup.sign import kernel

    if kernel.get() is None:
        pytest.skip("the C kernel is not built")
    rng = np.random.default_rng(n)
    sig = rng.integers(0, 6 if rows == 3 else 3, (n, 128), dtype=np.uint32)
    ids = [str(i) for i in range(n)]
    fast = signature_candidates(ids, sig, bands, rows, max_bucket=20, cap=100, protect=5)
    kernel.use("numpy")
    try:
        slow = signature_candidates(ids, sig, bands, rows, max_bucket=20, cap=100, protect=5)
    finally:
        kernel.use("c")
    assert fast.ids == slow.ids
    assert (fast.first == slow.first).all() and (fast.second == slow.second).all()
    assert (fast.buckets, fast.large, fast.capped) == (slow.buckets, slow.large, slow.capped)
    assert n == 1 or (len(fast) > 10_000 and fast.large > 0 and fast.capped > 0)


@pytest.mark.parametrize("seed", [0, 1])
def test_large_buckets_in_c_give_numpy_s_pairs_and_coherent_buckets(seed: int) -> None:
    """The kernel's large_pairs gives, band by band, the pairs of numpy's regrouping (the same
    multiset once sorted: a pair once per later band it shares) and the same coherent
    buckets, whose pairs are then enumerated and filtered in both."""
    from neardup.candidates.buckets import DEFAULTS as CD
    from neardup.candidates.buckets import _large_bucket_pairs
    from neardup.sign import kernel

    c = kernel.get()
    if c is None:
        pytest.skip("the C kernel is not built")
    rng = np.random.default_rng(seed)
    n, bands = 3_000, 12
    bucket_of = [rng.integers(-1, 40, n).astype(np.int32) for _ in range(bands)]
    copies = rng.choice(n, 60, replace=False)  # near copies: one bucket in most bands
    for where in bucket_of:
        where[copies[rng.random(60) < 0.9]] = 41
    large = [np.flatnonzero(bucket_of[0] == k).astype(np.int32) for k in range(42)]
    large = [m for m in large if m.size > 20]
    sizes = np.array([m.size for m in large], dtype=np.int64)
    pairs, flags = c.large_pairs(np.concatenate(large), sizes, bucket_of[1:], CD.coherent)
    coherent = np.frombuffer(flags, dtype=np.uint8).astype(bool)
    assert coherent.any() and not coherent.all()
    fast = np.sort(np.concatenate(_large_bucket_pairs(large, 0, bucket_of)))
    kernel.use("numpy")
    try:
        slow = np.sort(np.concatenate(_large_bucket_pairs(large, 0, bucket_of)))
    finally:
        kernel.use("c")
    assert fast.size > 1_000 and (fast == slow).all()
    assert np.frombuffer(pairs, dtype=np.int64).size < fast.size  # the coherent ones came apart


def test_large_pairs_refuses_what_does_not_fit() -> None:
    """Sizes that do not add up to the members, and a member outside the bands' records, are
    errors, not reads past the arrays."""
    from neardup.sign import kernel

    c = kernel.get()
    if c is None:
        pytest.skip("the C kernel is not built")
    where = [np.zeros(10, dtype=np.int32)]
    codes = np.arange(5, dtype=np.int32)
    with pytest.raises(ValueError, match="sum"):
        c.large_pairs(codes, np.array([3], dtype=np.int64), where, 2.0)
    with pytest.raises(ValueError, match="outside"):
        c.large_pairs(codes + 8, np.array([5], dtype=np.int64), where, 2.0)
    with pytest.raises(ValueError, match="one length"):
        c.large_pairs(codes, np.array([5], dtype=np.int64), [*where, where[0][:4]], 2.0)
    pairs, flags = c.large_pairs(codes, np.array([5], dtype=np.int64), where, 2.0)
    assert len(pairs) == 10 * 8 and bytes(flags) == b"\x00"  # all five share bucket 0


@pytest.mark.parametrize("seed", [4, 5])
def test_a_group_over_the_bound_follows_the_rule_s_exception(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a bound of 3, the copies that share every band are paired with their first only,
    and the rest of the rule still holds pair by pair."""
    monkeypatch.setattr(buckets, "star_bound", lambda sizes, n, max_bucket: 3)
    keys = _random_keys(80, 8, 12, seed)
    for c in range(12):
        keys[f"c{c}"] = [f"b{b}_copy" for b in range(8)]
    for max_bucket in (3, 10):
        found = all_candidates(_buckets(keys, 8), max_bucket)
        assert found.pairs == _by_the_rule(keys, max_bucket, bound=3)
        assert found.identical == 11


def test_a_repeated_text_is_paired_with_its_first_copy_only() -> None:
    """1,200 copies of one text share every band: the rule alone would pair all 719,400 of
    them. Each copy is paired with the first instead, a near variant still pairs with the
    group, and the report says how many copies it treated so; 20 copies keep every pair."""
    text = "usb charging cable one metre white"
    idx = NearDupIndex()
    idx.add_many([(f"c{i:04d}", text) for i in range(1200)], progress=False)
    idx.add_many([("few0", "red wool scarf knitted by hand"), ("variant", text + " x")],
                 progress=False)  # fmt: skip
    idx.add_many([(f"few{i}", "red wool scarf knitted by hand") for i in range(1, 20)],
                 progress=False)  # fmt: skip
    report = idx.report()
    pairs = {(p.id1, p.id2) for p in report.pairs}
    assert report.identical == 1199 and report.counts()["identical"] == 1199
    assert {("c0000", f"c{i:04d}") for i in range(1, 1200)} <= pairs
    assert not any(a.startswith("c") and a != "c0000" and b.startswith("c") for a, b in pairs)
    assert ("c0000", "variant") in pairs
    assert len([p for p in pairs if p[0].startswith("few")]) == 20 * 19 // 2
    clusters = [sorted(c) for c in idx.clusters() if "c0000" in c]
    assert len(clusters) == 1 and len(clusters[0]) == 1201


def test_a_bucket_of_thousands_pairs_each_member_with_few_neighbours() -> None:
    """3,000 records that differ in one number share most bands: every pair of them would be
    a candidate that the cap keeps (4.5M). Buckets past DEFAULTS.repeated_group pair each
    member with its neighbours instead: candidates stay a few hundred a record, and a
    near-copy of one of them is still found."""
    idx = NearDupIndex()
    idx.add_many([(str(i), f"replacement filter cartridge model {i}") for i in range(3000)],
                 progress=False)  # fmt: skip
    idx.add_many([("dup", "replacement filter cartrige model 1717")], progress=False)
    report = idx.report()
    assert report.large_buckets > 0
    assert report.candidates + report.capped < 3001 * 300
    assert ("1717", "dup") in {(p.id1, p.id2) for p in report.pairs}


def test_windowed_pairs_follow_their_order_and_share_another_band() -> None:
    """Members ordered by the smallest code of their bucket in the next band, then by code;
    each paired with its next WINDOW members when they share another band."""
    n = 12
    members = np.arange(n)
    # band 0: one bucket of all; band 1: two buckets (evens, odds); band 2: none shared
    bucket_of = [np.zeros(n, np.int32), (members % 2).astype(np.int32), np.full(n, -1, np.int32)]
    got = set(np.concatenate(buckets._windowed_pairs(members, 0, bucket_of)).tolist())
    ordered = [*range(0, n, 2), *range(1, n, 2)]  # evens (head 0) before odds (head 1)
    want = {
        min(a, b) << 32 | max(a, b)
        for k, a in enumerate(ordered)
        for b in ordered[k + 1 : k + 1 + buckets.WINDOW]
        if a % 2 == b % 2  # share band 1
    }
    assert got == want


@pytest.mark.parametrize(
    ("sizes", "n", "bound"),
    [
        ([263, 106, 30, 5], 2379, DEFAULTS.repeated_group),  # the patent applicants' shape
        ([320] * 5 + [100], 1700, 100),  # smallest first: the 100 fit, the 320s do not
        ([320] * 5, 1600, 20),  # one size all in or all out: none fit, max_bucket
        ([1200, 30], 100_000, DEFAULTS.repeated_group),  # fits, but never past the bound
        ([15] * 1000, 15_000, DEFAULTS.repeated_group),  # small groups never starred
    ],
)
def test_star_bound_keeps_groups_smallest_first_within_the_budget(
    sizes: list[int], n: int, bound: int
) -> None:
    """Groups keep every pair, smallest first, while all those pairs fit in
    DEFAULTS.identical_pairs a record; the bound never passes repeated_group nor falls below
    max_bucket."""
    assert buckets.star_bound(np.array(sizes), n, 20) == bound
    budget = DEFAULTS.identical_pairs * max(n, DEFAULTS.identical_records)
    kept = [z for z in sizes if z <= bound]
    assert sum(z * (z - 1) // 2 for z in kept if z > 20) <= budget or bound == 20


def test_many_groups_of_copies_are_starred_once_their_pairs_pass_the_budget() -> None:
    """Five texts of 320 copies and one of 100 (1,700 records): all their pairs (259,150)
    would pass 50 a record, so the five large groups are paired with their first copy only
    and the group of 100 keeps every pair, the same on DuckDB as in process (a group of
    1,000 copies was paired in full: 20 such groups made a report of over 180 s)."""
    idx = NearDupIndex()
    texts = [f"{w} stainless steel kettle with a {w} lid" for w in
             ("red", "blue", "green", "black", "white", "grey")]  # fmt: skip
    rows = [(f"g{g}_{i:03d}", texts[g]) for g in range(5) for i in range(320)]
    rows += [(f"h_{i:03d}", texts[5]) for i in range(100)]
    idx.add_many(rows, progress=False)
    held, planned = idx.report(engine="memory"), idx.report(engine="duckdb")
    assert sorted((p.id1, p.id2) for p in held.pairs) == sorted(
        (p.id1, p.id2) for p in planned.pairs
    )
    pairs = {(p.id1, p.id2) for p in held.pairs if p.jaccard == 1.0}
    assert held.identical == planned.identical == 5 * 319
    assert held.repeated == planned.repeated == 100
    assert len([p for p in pairs if p[0].startswith("h")]) == 100 * 99 // 2
    for g in range(5):
        assert {q for p, q in pairs if p.startswith(f"g{g}_")} == {
            f"g{g}_{i:03d}" for i in range(1, 320)
        }
    assert held.counts()["repeated_group"] == 100
