"""All near-duplicate pairs of a collection, with two Solr requests per band, not per document.

Solr does the bucketing: every band's key of a record is also in a field of its own
(``lsh_bNN``), where a JSON terms facet with ``mincount: 2`` returns only the keys that two or
more records share, and a terms query on those keys returns their members. Every pair that
shares a bucket is a candidate; each candidate is then confirmed by the exact Jaccard similarity
of the two shingle sets, recomputed from the stored content, and only confirmed pairs are
reported, each with its similarity and its word edit distance.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from tqdm import tqdm

from . import index_params
from .errors import InputError
from .lsh import LshConfig, band_field
from .searcher import id_key
from .shingles import WordCodes, encoded_distance
from .solr import Solr, terms_params

#: Ids per request when fetching the content of candidates.
FETCH_BATCH = 1000
#: Shared band keys per terms query when listing the members of their buckets.
MEMBERS_BATCH = 20_000


@dataclass(frozen=True)
class Pair:
    id1: str
    id2: str
    jaccard: float
    edit_distance: int


@dataclass
class PairsResult:
    pairs: list[Pair]
    bands: int = 0
    buckets: int = 0
    candidates: int = 0
    verified: int = 0
    confirmed: int = 0
    records: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def counts(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "bands": self.bands,
            "buckets": self.buckets,
            "candidates": self.candidates,
            "verified": self.verified,
            "confirmed": self.confirmed,
            "seconds": round(self.seconds, 3),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


def index_config(solr: Solr) -> LshConfig:
    params = index_params.load(solr)
    if params is None:
        raise InputError(f"{solr.url} holds no neardup index (index a file first)")
    return LshConfig.from_params(params)


def shared_keys(solr: Solr, band: int) -> list[tuple[str, int]]:
    """``(key, records)`` of every bucket of one band that holds two or more records."""
    facet = {
        "keys": {
            "type": "terms",
            "field": band_field(band),
            "mincount": 2,
            "limit": -1,
            "sort": "index asc",
            "numBuckets": False,
        }
    }
    res = solr.select(
        {"q": "*:*", "fq": index_params.RECORDS_FQ, "rows": 0, "json.facet": json.dumps(facet)}
    )
    buckets = res.get("facets", {}).get("keys", {}).get("buckets", [])
    return [(b["val"], int(b["count"])) for b in buckets]


def colliding_buckets(solr: Solr, band: int) -> Iterator[list[str]]:
    """The member ids of every bucket of one band that holds two or more records.

    Two steps, neither of them per bucket: a terms facet on the band's own field lists the
    shared keys (counting one docValues ordinal per record), then a terms query on that field
    returns the members of many buckets at once with their key, and they are grouped here. A
    facet nested per bucket instead costs one Solr sub-query per bucket (measured at 1M
    records: 84 s instead of 7-12 s for 21 bands, and superlinear in the collection).
    """
    fld = band_field(band)
    keys = shared_keys(solr, band)
    groups: dict[str, list[str]] = {}
    for start in range(0, len(keys), MEMBERS_BATCH):
        chunk = keys[start : start + MEMBERS_BATCH]
        params = terms_params(fld, [k for k, _ in chunk])
        expected = sum(c for _, c in chunk)
        params.update({"fl": f"id,{fld}", "sort": "id asc", "rows": expected})
        got = 0
        while True:  # more members than counted only if records were added in between
            res = solr.select({**params, "start": got})["response"]
            for doc in res["docs"]:
                if fld in doc:
                    groups.setdefault(doc[fld], []).append(doc["id"])
            got += len(res["docs"])
            if not res["docs"] or got >= int(res["numFound"]):
                break
    for members in groups.values():
        if len(members) > 1:
            yield members


def candidate_pairs(
    solr: Solr, cfg: LshConfig, progress: bool = True
) -> tuple[set[tuple[str, str]], int]:
    """Unordered candidate pairs (smaller id first) from every band, and the bucket count."""
    pairs: set[tuple[str, str]] = set()
    buckets = 0
    for band in tqdm(
        range(cfg.bands),
        desc="buckets",
        unit="band",
        disable=None if progress else True,
        leave=False,
    ):
        for members in colliding_buckets(solr, band):
            buckets += 1
            members.sort(key=id_key)
            pairs.update(combinations(members, 2))
    return pairs, buckets


def lsh_text(doc: dict[str, Any]) -> str:
    """The text LSH works on: the record as written, else its normalized content."""
    return str(doc.get("raw") or doc.get("content") or "")


def fetch_content(solr: Solr, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
    """``id -> (content, text as written)`` for many ids, in batches, by a terms query."""
    wanted = list(ids)
    out: dict[str, tuple[str, str]] = {}
    for start in range(0, len(wanted), FETCH_BATCH):
        chunk = wanted[start : start + FETCH_BATCH]
        params = terms_params("id", chunk)
        params.update({"fl": "id,content,raw", "rows": len(chunk)})
        for doc in solr.select(params)["response"]["docs"]:
            out[doc["id"]] = (doc.get("content", ""), lsh_text(doc))
    return out


def verified_jaccard(a: frozenset[str], b: frozenset[str]) -> float | None:
    """Exact Jaccard, or None for a record without shingles (it duplicates nothing)."""
    if not a or not b:
        return None
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def components(pairs: Iterable[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The pairs grouped by connected component of the graph they form, in first-seen order."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]  # path halving
            x = parent[x]
        return x

    pairs = list(pairs)
    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[rb] = ra
    groups: dict[str, list[tuple[str, str]]] = {}
    for a, b in pairs:
        groups.setdefault(root(a), []).append((a, b))
    return list(groups.values())


def verify(
    candidates: Iterable[tuple[str, str]],
    content: dict[str, tuple[str, str]],
    cfg: LshConfig,
    threshold: float,
    progress: bool = True,
    total: int | None = None,
) -> list[Pair]:
    """Keep the candidates whose exact shingle Jaccard is at least ``threshold``.

    One connected component of candidates at a time: a record's shingle set is made once and
    dropped once its component is done, so memory holds the largest component's sets, not
    every candidate's (at 1M documents that is 30 MB instead of gigabytes, and each set is
    looked up while it is still in the CPU's caches).
    """
    codes = WordCodes()
    shingles: dict[str, frozenset[str]] = {}
    encoded: dict[str, tuple[int, str]] = {}  # id -> (generation of `codes`, encoded words)

    def sh(i: str) -> frozenset[str]:
        s = shingles.get(i)
        if s is None:
            s = shingles[i] = cfg.shingles(content.get(i, ("", ""))[1])
        return s

    def enc(i: str) -> str:
        got = encoded.get(i)
        if got is None or got[0] != codes.generation:
            text = codes.encode(content.get(i, ("", ""))[0].split())
            got = encoded[i] = (codes.generation, text)
        return got[1]

    confirmed: list[Pair] = []
    bar = tqdm(
        total=total,
        desc="verifying",
        unit="pair",
        disable=None if progress else True,
        leave=False,
    )
    try:
        for group in components(candidates):
            shingles.clear()
            encoded.clear()
            for a, b in group:
                jac = verified_jaccard(sh(a), sh(b))
                if jac is None or jac < threshold:
                    continue
                ea, eb = enc(a), enc(b)
                if encoded[a][0] != codes.generation:  # encoding b filled the table: afresh
                    codes.restart()
                    ea, eb = enc(a), enc(b)
                    if encoded[a][0] != codes.generation:
                        raise ValueError(
                            f"records {a!r} and {b!r} are too long to compare word by word"
                        )
                confirmed.append(Pair(a, b, round(jac, 6), encoded_distance(ea, eb)))
            bar.update(len(group))
    finally:
        bar.close()
    confirmed.sort(key=lambda p: (id_key(p.id1), id_key(p.id2)))
    return confirmed


PRUNE_MODES = ("best", "mutual", "none")
#: Pairs this similar are kept whatever the pruning: they are copies, not rival matches.
KEEP_ABOVE = 0.9


def prune(pairs: list[Pair], mode: str = "best", keep_above: float = KEEP_ABOVE) -> list[Pair]:
    """Drop the weaker rival links of records that have a better match.

    Records that describe one thing are each other's most similar record; two listings that
    merely share a street address and a city (``palm`` and ``palm too``) are less similar than
    each is to its own twin. ``best`` keeps a pair when it is the best match of at least one of
    its two records (so no record that has a match loses all of them, and clusters stay
    connected); ``mutual`` only when it is the best match of both (one-to-one linkage of two
    sources); ``none`` keeps every verified pair. Pairs at ``keep_above`` or more are always
    kept, and ties for best are all kept.
    """
    if mode not in PRUNE_MODES:
        raise InputError(f"unknown pruning {mode!r}: choose one of {', '.join(PRUNE_MODES)}")
    if mode == "none":
        return pairs
    best: dict[str, float] = {}
    for p in pairs:
        for x in (p.id1, p.id2):
            if p.jaccard > best.get(x, -1.0):
                best[x] = p.jaccard

    def top(x: str, p: Pair) -> bool:
        return p.jaccard >= best[x] - 1e-9

    keep = all if mode == "mutual" else any
    return [p for p in pairs if p.jaccard >= keep_above or keep((top(p.id1, p), top(p.id2, p)))]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cycle collector off while millions of acyclic objects are made.

    Shingle sets, parsed responses and candidate tuples hold no reference cycles, so reference
    counting frees them all; but each one made counts towards the collector's next pass, which
    walks every live container, so with the collector on the phases cost more per item the
    larger the collection (measured at 1M records: verification 2.3x slower).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def lsh_pairs(
    solr: Solr,
    threshold: float | None = None,
    max_dist: int | None = None,
    progress: bool = True,
    prune_mode: str = "best",
) -> PairsResult:
    """All confirmed near-duplicate pairs of the collection (Jaccard >= ``threshold``)."""
    with _gc_paused():
        return _lsh_pairs(solr, threshold, max_dist, progress, prune_mode)


def _lsh_pairs(
    solr: Solr,
    threshold: float | None,
    max_dist: int | None,
    progress: bool,
    prune_mode: str,
) -> PairsResult:
    start = time.perf_counter()
    cfg = index_config(solr)
    threshold = cfg.threshold if threshold is None else threshold
    if not 0.0 < threshold <= 1.0:
        raise InputError(f"--threshold must be in (0, 1], got {threshold}")
    records = solr.count(fq=[index_params.RECORDS_FQ])
    t0 = time.perf_counter()
    candidates, buckets = candidate_pairs(solr, cfg, progress)
    t1 = time.perf_counter()
    ids = sorted({i for p in candidates for i in p}, key=id_key)
    content = fetch_content(solr, ids)
    t2 = time.perf_counter()
    pairs = verify(
        candidates,
        content,
        cfg,
        threshold,
        progress,
        total=len(candidates),
    )
    verified = len(pairs)
    pairs = prune(pairs, prune_mode)
    if max_dist is not None:
        pairs = [p for p in pairs if p.edit_distance <= max_dist]
    t3 = time.perf_counter()
    return PairsResult(
        pairs=pairs,
        bands=cfg.bands,
        buckets=buckets,
        candidates=len(candidates),
        verified=verified,
        confirmed=len(pairs),
        records=records,
        seconds=time.perf_counter() - start,
        timings={"buckets": t1 - t0, "fetch": t2 - t1, "verify": t3 - t2},
    )
