"""The report's steps as table operations: the SQL text of each step, and the functions over
Arrow batches that the SQL cannot say (signing, verifying), which call the in-process code.

Tables, each made by one step from the ones before it:

* ``records(seq, id, idkey, source, text)`` and ``keys(seq, band, key)``: loaded from
  :func:`signed_batch` (the texts signed by the C kernel, the band keys of
  :func:`~neardup.sign.banding.band_hashes_batch`, the same 64-bit values a Solr index holds);
* ``buckets(band, key, size)``: the shared buckets (two or more records);
* ``codes(seq, code)``: the records in some shared bucket, numbered in id order
  (:func:`~neardup.keys.id_key`, through ``idkey``), as :mod:`neardup.candidates.buckets` numbers
  them;
* ``m(code, band, key, size)``: each such record's shared buckets;
* ``found(a, b, n)``: each time a pair is found (``a < b``): once per small bucket it shares
  (the view ``small_found``, read by the next step only);
  from a large bucket of band ``b`` that is not coherent, once per later band it shares too;
  from a coherent large bucket, once if any other band is shared
  (:func:`neardup.candidates.buckets._large_bucket_pairs`, same counts);
* ``counted(a, b, shared)``: the candidates, each with its finds summed up to
  :data:`~neardup.candidates.buckets.COUNT_MAX` (what
  :func:`~neardup.candidates.buckets.cap_per_record` ranks by);
* ``candidates(a, b)``: after the per-record cap, level by level (:data:`CAP_LEVEL`);
* ``screened(a, b)``: the candidates that pass the screen (:func:`screened_batch`, on their
  shingle hashes, made with the signatures);
* the screened candidates joined with both texts, verified in batches by :func:`verified_rows`.

One definition a step: plain SQL (joins, group by, window) that DuckDB runs and Spark SQL can;
the constants are put in as literals (:func:`sql`). The tie-break hash of the cap is
:func:`neardup.candidates.buckets._uniform` itself, registered as a function over Arrow batches.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..candidates.buckets import COUNT_MAX, _uniform
from ..candidates.text_table import Gathered, TextTable
from ..candidates.verify import SCREEN_MARGIN, verify_codes
from ..defaults import DEFAULTS
from ..results import Pair
from ..sign.banding import band_hashes_batch
from ..sign.minhash import ShingleProcessor, hashed_jaccard

if TYPE_CHECKING:
    import pyarrow as pa

#: No bound on a bucket's size (``max_bucket=None``): every bucket is small.
UNBOUNDED = 1 << 62

CREATE_INPUT = """
CREATE TABLE records (
  seq BIGINT, id VARCHAR, idkey BLOB, source VARCHAR, text VARCHAR, hashes UINTEGER[]
);
CREATE TABLE keys (seq BIGINT, band INTEGER, key UBIGINT);
"""

BUCKETS = """
CREATE TABLE buckets AS
SELECT band, key, count(*) AS size FROM keys GROUP BY band, key HAVING count(*) > 1
"""

CODES = """
CREATE TABLE codes AS
SELECT r.seq, CAST(row_number() OVER (ORDER BY r.idkey) - 1 AS BIGINT) AS code
FROM records r
WHERE r.seq IN (SELECT k.seq FROM keys k JOIN buckets b ON k.band = b.band AND k.key = b.key)
"""

MEMBERS = """
CREATE TABLE m AS
SELECT c.code, k.band, k.key, b.size
FROM keys k
JOIN buckets b ON k.band = b.band AND k.key = b.key
JOIN codes c ON c.seq = k.seq
"""

#: The records in a shared bucket of every band, grouped by a sum over their band keys (the
#: same in DuckDB and Spark): the groups' sizes choose the bound
#: (:func:`neardup.candidates.buckets.star_bound`); the in-process step is
#: :func:`neardup.candidates.buckets._identical`.
SIGS = """
CREATE TABLE sigs AS
SELECT code, sum(CAST(key % 2147483647 AS BIGINT) * (2 * band + 1)) AS sig
FROM m GROUP BY code HAVING count(*) = {bands}
"""

#: The records of a group of :data:`SIGS` of more than ``repeated`` (one text repeated), each
#: with its group's first (``head``), checked band by band against the head.
REPEATS = """
CREATE TABLE heads AS
SELECT sig, min(code) AS head FROM sigs GROUP BY sig HAVING count(*) > {repeated};
CREATE TABLE copies AS
SELECT s.code, h.head
FROM sigs s
JOIN heads h ON h.sig = s.sig
JOIN m x ON x.code = s.code
JOIN m y ON y.code = h.head AND y.band = x.band AND y.key = x.key
WHERE s.code <> h.head
GROUP BY s.code, h.head
HAVING count(*) = {bands}
"""

#: The copies out of every bucket (buckets left with one member are no longer shared).
UNREPEAT = """
CREATE TABLE kept_members AS
SELECT code, band, key FROM m WHERE NOT EXISTS (SELECT 1 FROM copies c WHERE c.code = m.code);
DROP TABLE m;
DROP TABLE buckets;
CREATE TABLE buckets AS
SELECT band, key, count(*) AS size FROM kept_members GROUP BY band, key HAVING count(*) > 1;
CREATE TABLE m AS
SELECT k.code, k.band, k.key, b.size
FROM kept_members k JOIN buckets b ON b.band = k.band AND b.key = k.key;
DROP TABLE kept_members
"""

#: Each copy paired with its head only, as sharing every band (never capped).
COPY_PAIRS = """
INSERT INTO found SELECT head AS a, code AS b, {count_max} AS n FROM copies
"""

#: Every pair of a small bucket, once per band: a view that :data:`COUNTED` reads, not a
#: table (most of the finds of a large collection, written out and read back once each);
#: ``found`` takes the finds of the other steps.
SMALL_PAIRS = """
CREATE TEMPORARY VIEW small_found AS
SELECT x.code AS a, y.code AS b, 1 AS n
FROM m x JOIN m y ON x.band = y.band AND x.key = y.key AND x.code < y.code
WHERE x.size <= {max_bucket};
CREATE TABLE found (a BIGINT, b BIGINT, n INTEGER)
"""

#: The members of each large bucket labelled by their bucket in each later band.
REGROUPED = """
CREATE TABLE regrouped AS
SELECT l.band AS b, l.key AS kb, o.band AS j, o.key AS kj, l.code
FROM m l JOIN m o ON o.code = l.code AND o.band > l.band
WHERE l.size > {max_bucket} AND l.size <= {repeated}
"""

#: The large buckets whose regrouped pairs would outnumber ``coherent`` times their own pairs.
COHERENT = """
CREATE TABLE coherent AS
SELECT g.b, g.kb
FROM (
  SELECT b, kb, sum(CAST(c AS DOUBLE) * CAST(c - 1 AS DOUBLE) / 2.0) AS cost
  FROM (SELECT b, kb, j, kj, count(*) AS c FROM regrouped GROUP BY b, kb, j, kj) runs
  GROUP BY b, kb
) g
JOIN buckets s ON s.band = g.b AND s.key = g.kb
WHERE g.cost > CAST({coherent!r} AS DOUBLE) * CAST(s.size AS DOUBLE)
               * CAST(s.size - 1 AS DOUBLE) / 2.0
"""

#: A large bucket that is not coherent: its pairs in one bucket of a later band, once a band.
REGROUPED_PAIRS = """
INSERT INTO found
SELECT x.code AS a, y.code AS b, 1 AS n
FROM regrouped x
JOIN regrouped y ON x.b = y.b AND x.kb = y.kb AND x.j = y.j AND x.kj = y.kj AND x.code < y.code
WHERE NOT EXISTS (SELECT 1 FROM coherent c WHERE c.b = x.b AND c.kb = x.kb)
"""

#: A coherent large bucket: its pairs once, where they share any other band. The other band is
#: looked up by a join on each record's buckets, not by a subquery a pair (which DuckDB ran
#: as a nested loop: most of the plan's time on a large collection).
COHERENT_PAIRS = """
INSERT INTO found
SELECT x.code AS a, y.code AS b, 1 AS n
FROM m x
JOIN m y ON x.band = y.band AND x.key = y.key AND x.code < y.code
JOIN coherent c ON c.b = x.band AND c.kb = x.key
JOIN m p ON p.code = x.code AND p.band <> x.band
JOIN m q ON q.code = y.code AND q.band = p.band AND q.key = p.key
GROUP BY x.code, y.code, x.band
"""

#: A bucket of more than ``repeated`` members: ordered by the buckets its members hold in the
#: next three bands (each named by its smallest member's code; none first), each member paired
#: with its next ``window`` where they share another band too
#: (:func:`neardup.candidates.buckets._windowed_pairs`, the in-process step). Its next are
#: joined by rank (``offsets``: 1..``window``), so that a bucket of thousands is never paired
#: with itself whole; ``{offsets}`` is :func:`offsets`.
WINDOWED_PAIRS = """
CREATE TABLE wmembers AS
SELECT DISTINCT code FROM m WHERE size > {repeated} AND size > {max_bucket};
CREATE TABLE wbuckets AS
SELECT DISTINCT x.band, x.key FROM m x JOIN wmembers w ON w.code = x.code;
CREATE TABLE heads_m AS
SELECT x.code, x.band, h.head
FROM m x
JOIN wmembers w ON w.code = x.code
JOIN (
  SELECT y.band, y.key, min(y.code) AS head
  FROM m y JOIN wbuckets b ON b.band = y.band AND b.key = y.key
  GROUP BY y.band, y.key
) h ON h.band = x.band AND h.key = x.key;
CREATE TABLE ordered AS
SELECT g.band, g.key, g.code,
  row_number() OVER (
    PARTITION BY g.band, g.key
    ORDER BY coalesce(h1.head, -1), coalesce(h2.head, -1), coalesce(h3.head, -1), g.code
  ) AS rn
FROM m g
LEFT JOIN heads_m h1 ON h1.code = g.code AND h1.band = (g.band + 1) % {bands}
LEFT JOIN heads_m h2 ON h2.code = g.code AND h2.band = (g.band + 2) % {bands}
LEFT JOIN heads_m h3 ON h3.code = g.code AND h3.band = (g.band + 3) % {bands}
WHERE g.size > {repeated} AND g.size > {max_bucket};
CREATE TABLE offsets (k BIGINT);
INSERT INTO offsets VALUES {offsets};
CREATE TABLE near AS
SELECT x.code AS a, y.code AS b, x.band AS band
FROM ordered x
CROSS JOIN offsets d
JOIN ordered y ON y.band = x.band AND y.key = x.key AND y.rn = x.rn + d.k;
INSERT INTO found
SELECT least(w.a, w.b) AS a, greatest(w.a, w.b) AS b, 1 AS n
FROM near w
JOIN m p ON p.code = w.a AND p.band <> w.band
JOIN m q ON q.code = w.b AND q.band = p.band AND q.key = p.key
GROUP BY w.a, w.b, w.band
"""

COUNTED = """
CREATE TABLE counted AS
SELECT a, b, least(sum(n), {count_max}) AS shared
FROM (SELECT a, b, n FROM small_found UNION ALL SELECT a, b, n FROM found) f
GROUP BY a, b
"""

#: Each record's candidates (``degree``).
DEGREE = """
CREATE TABLE degree AS
SELECT code, count(*) AS d
FROM (SELECT a AS code FROM counted UNION ALL SELECT b AS code FROM counted) ends
GROUP BY code
"""

#: The candidates the cap may drop: of a record with more than ``cap``, sharing fewer than
#: ``protect`` bands; with the tie-break hash of their key ``a << 32 | b``.
WEAK = """
CREATE TABLE over AS SELECT code FROM degree WHERE d > {cap};
CREATE TABLE weak AS
SELECT u.a, u.b, u.shared, tie_hash(u.a * 4294967296 + u.b) AS h, u.a * 4294967296 + u.b AS key
FROM (
  SELECT c.a, c.b, c.shared FROM counted c JOIN over o ON o.code = c.a WHERE c.shared < {protect}
  UNION
  SELECT c.a, c.b, c.shared FROM counted c JOIN over o ON o.code = c.b WHERE c.shared < {protect}
) u
"""

#: What each record of a weak candidate keeps before the weak candidates are chosen.
KEPT = """
CREATE TABLE kept AS
SELECT d.code, d.d - w.n AS kept
FROM degree d
JOIN (
  SELECT code, count(*) AS n
  FROM (SELECT a AS code FROM weak UNION ALL SELECT b AS code FROM weak) ends
  GROUP BY code
) w ON w.code = d.code
"""

#: One level of shared bands of the cap (:func:`neardup.candidates.buckets.cap_per_record`), most
#: shared first: each record's room, the pairs drawn by the hash against its share of room,
#: then the pairs it is still owed, its next by the hash (ties as numpy's stable sort leaves
#: them: the record's first-of-pair ends first, then by key). Its pairs kept go to ``chosen``.
#: Tables are dropped and made again (Spark's tables take no CREATE OR REPLACE ... AS).
CAP_LEVEL = """
DROP TABLE IF EXISTS level;
CREATE TABLE level AS SELECT a, b, h, key FROM weak WHERE shared = {level};
DROP TABLE IF EXISTS room;
CREATE TABLE room AS
SELECT e.code, e.ties, greatest({cap} - k.kept, 0) AS room
FROM (
  SELECT code, count(*) AS ties
  FROM (SELECT a AS code FROM level UNION ALL SELECT b AS code FROM level) ends
  GROUP BY code
) e JOIN kept k ON k.code = e.code;
DROP TABLE IF EXISTS drawn;
CREATE TABLE drawn AS
SELECT l.a, l.b, l.h, l.key,
  (CAST(l.h AS DOUBLE) < least(CAST(ra.room AS DOUBLE) / CAST(greatest(ra.ties, 1) AS DOUBLE),
                               CAST(1 AS DOUBLE))
   OR CAST(l.h AS DOUBLE) < least(CAST(rb.room AS DOUBLE) / CAST(greatest(rb.ties, 1) AS DOUBLE),
                                  CAST(1 AS DOUBLE))) AS took
FROM level l JOIN room ra ON ra.code = l.a JOIN room rb ON rb.code = l.b;
DROP TABLE IF EXISTS owed;
CREATE TABLE owed AS
SELECT r.code, least(r.room, r.ties) - coalesce(g.got, 0) AS owed
FROM room r
LEFT JOIN (
  SELECT code, count(*) AS got
  FROM (SELECT a AS code FROM drawn WHERE took UNION ALL SELECT b AS code FROM drawn WHERE took) e
  GROUP BY code
) g ON g.code = r.code;
DROP TABLE IF EXISTS taken;
CREATE TABLE taken AS
SELECT a, b FROM drawn WHERE took
UNION
SELECT a, b FROM (
  SELECT t.a, t.b, o.owed,
    row_number() OVER (PARTITION BY t.code ORDER BY t.h, t.role, t.key) - 1 AS rank
  FROM (
    SELECT a, b, h, key, a AS code, 0 AS role FROM drawn WHERE NOT took
    UNION ALL
    SELECT a, b, h, key, b AS code, 1 AS role FROM drawn WHERE NOT took
  ) t JOIN owed o ON o.code = t.code
  WHERE o.owed > 0
) ranked
WHERE rank < owed;
INSERT INTO chosen SELECT a, b FROM taken;
CREATE TABLE kept_next AS
SELECT k.code, k.kept + coalesce(t.n, 0) AS kept
FROM kept k
LEFT JOIN (
  SELECT code, count(*) AS n
  FROM (SELECT a AS code FROM taken UNION ALL SELECT b AS code FROM taken) ends
  GROUP BY code
) t ON t.code = k.code;
DROP TABLE kept;
ALTER TABLE kept_next RENAME TO kept
"""

#: Tables no later step reads, dropped as soon as they are done with: an engine holds them in
#: its memory or spills them, and at 10M records they were tens of gigabytes of spill.
#: ``DONE_MEMBERS`` after :data:`MEMBERS`; ``DONE_FOUND`` once :data:`COUNTED` is made;
#: ``DONE_COUNTED`` once :data:`CANDIDATES` is.
DONE_MEMBERS = "DROP TABLE keys"
DONE_FOUND = """
DROP VIEW IF EXISTS small_found;
DROP TABLE IF EXISTS found;
DROP TABLE IF EXISTS regrouped;
DROP TABLE IF EXISTS coherent;
DROP TABLE IF EXISTS wmembers;
DROP TABLE IF EXISTS wbuckets;
DROP TABLE IF EXISTS heads_m;
DROP TABLE IF EXISTS ordered;
DROP TABLE IF EXISTS near;
DROP TABLE IF EXISTS offsets;
DROP TABLE IF EXISTS sigs;
DROP TABLE IF EXISTS heads;
DROP TABLE IF EXISTS copies;
DROP TABLE IF EXISTS m
"""
DONE_COUNTED = """
DROP TABLE IF EXISTS counted;
DROP TABLE IF EXISTS degree;
DROP TABLE IF EXISTS over;
DROP TABLE IF EXISTS weak;
DROP TABLE IF EXISTS kept;
DROP TABLE IF EXISTS chosen;
DROP TABLE IF EXISTS level;
DROP TABLE IF EXISTS room;
DROP TABLE IF EXISTS drawn;
DROP TABLE IF EXISTS owed;
DROP TABLE IF EXISTS taken
"""

#: The candidates: every counted pair but the weak ones not chosen (``{capping}``: whether
#: the cap ran), of different sources in link mode.
CANDIDATES = """
CREATE TABLE candidates AS
SELECT c.a, c.b FROM counted c
{uncapped}
"""
CAPPED_OUT = """
WHERE NOT EXISTS (
  SELECT 1 FROM weak w WHERE w.a = c.a AND w.b = c.b
    AND NOT EXISTS (SELECT 1 FROM chosen k WHERE k.a = w.a AND k.b = w.b)
)
"""

#: Candidates of one source dropped (link mode pairs records of different sources); a new
#: table renamed, not a DELETE, which Spark's tables do not take.
OTHER_SOURCES = """
CREATE TABLE linked AS
SELECT c.a, c.b
FROM candidates c
JOIN codes ca ON ca.code = c.a JOIN records ra ON ra.seq = ca.seq
JOIN codes cb ON cb.code = c.b JOIN records rb ON rb.seq = cb.seq
WHERE ra.source <> rb.source;
DROP TABLE candidates;
ALTER TABLE linked RENAME TO candidates
"""

#: The candidates with both records' shingle hashes, for the screen.
SCREEN_PAIRS = """
SELECT c.a, c.b, ra.hashes AS hashes_a, rb.hashes AS hashes_b
FROM candidates c
JOIN codes ca ON ca.code = c.a JOIN records ra ON ra.seq = ca.seq
JOIN codes cb ON cb.code = c.b JOIN records rb ON rb.seq = cb.seq
"""

CREATE_SCREENED = "CREATE TABLE screened (a BIGINT, b BIGINT)"
#: The verified pairs (:func:`verified_rows`) with their records' texts.
CREATE_VERIFIED = """
CREATE TABLE verified (
  id1 STRING, id2 STRING, jaccard DOUBLE, edit_distance BIGINT, text1 STRING, text2 STRING
)
"""
#: Every candidate passes where the report does not screen (too few, or no C kernel).
UNSCREENED = "INSERT INTO screened SELECT a, b FROM candidates"

#: The screened candidates with both records' ids and texts, for verification.
PAIRS = """
SELECT c.a, c.b, ra.id AS id_a, rb.id AS id_b, ra.text AS text_a, rb.text AS text_b
FROM screened c
JOIN codes ca ON ca.code = c.a JOIN records ra ON ra.seq = ca.seq
JOIN codes cb ON cb.code = c.b JOIN records rb ON rb.seq = cb.seq
"""


def sql(template: str, **values: Any) -> list[str]:
    """A step's statements with its constants put in (numbers only: nothing a user typed)."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name}: a step's constant is a number, got {value!r}")
    text = template.format(count_max=COUNT_MAX, coherent=DEFAULTS.coherent, **values)
    return [s for s in (part.strip() for part in text.split(";")) if s]


def offsets(window: int) -> str:
    """The rows ``(1), (2), ... (window)`` of WINDOWED_PAIRS' ``offsets`` table."""
    return ", ".join(f"({k})" for k in range(1, int(window) + 1))


def id_sort_key(record_id: str) -> bytes:
    """Bytes that sort as :func:`~neardup.keys.id_key` orders ids: numbers (decimal digits) by
    value, before any other id, those by code point (UTF-8 bytes sort so). Ids of one value
    written two ways (``7``, ``07``) are ordered by the ids themselves (their bytes follow
    the value's digits, whose length comes first)."""
    if not record_id.isdecimal():
        return b"\x01" + record_id.encode("utf-8", "surrogatepass")
    digits = (
        record_id
        if record_id.isascii()
        else "".join(str(unicodedata.decimal(ch)) for ch in record_id)
    )
    digits = digits.lstrip("0")
    value = len(digits).to_bytes(8, "big") + digits.encode("ascii")
    return b"\x00" + value + record_id.encode("utf-8", "surrogatepass")


def signed_batch(
    start: int,
    ids: Sequence[str],
    texts: Sequence[str],
    sources: Sequence[str] | None,
    processor: ShingleProcessor,
    bands: int,
    rows: int,
) -> tuple[pa.Table, pa.Table]:
    """The ``records`` and ``keys`` rows of a batch of records (``seq`` from ``start``): their
    signatures and band keys made by the same functions as the index's."""
    import pyarrow as pa

    n = len(ids)
    seq = np.arange(start, start + n, dtype=np.int64)
    # the screen's hashes with the signatures, one pass over each text (None without the C
    # kernel, with which alone the plan screens): two passes were a fifth of a large load
    signatures, made = processor.signatures_with_hashes(list(texts))
    shingles = None
    if made is not None:
        values, offsets = made
        shingles = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(values))
    hashes = band_hashes_batch(signatures, bands, rows)
    records = pa.table(
        {
            "seq": seq,
            "id": pa.array(ids, pa.string()),
            "idkey": pa.array([id_sort_key(i) for i in ids], pa.binary()),
            "source": pa.array(sources if sources is not None else [""] * n, pa.string()),
            "text": pa.array(texts, pa.string()),
            "hashes": shingles if shingles is not None else pa.nulls(n, pa.list_(pa.uint32())),
        }
    )
    keys = pa.table(
        {
            "seq": np.repeat(seq, bands),
            "band": np.tile(np.arange(bands, dtype=np.int32), n),
            "key": hashes.reshape(-1),
        }
    )
    return records, keys


def tie_hash(keys: pa.Array) -> pa.Array:
    """The cap's tie-break of pairs ``a << 32 | b``
    (:func:`neardup.candidates.buckets._uniform`), as a function over an Arrow batch."""
    import pyarrow as pa

    return pa.array(_uniform(np.asarray(keys.to_numpy(zero_copy_only=False), np.int64)))


def screened_batch(batch: pa.RecordBatch, threshold: float) -> pa.Table:
    """The candidates of one batch (columns of :data:`SCREEN_PAIRS`) that can reach
    ``threshold``: the screen of :func:`~neardup.candidates.verify.screen_keep` (the kernel's
    Jaccard of the shingle hashes, :data:`~neardup.candidates.verify.SCREEN_MARGIN` under the
    threshold)."""
    import pyarrow as pa

    first, second = batch.column("hashes_a"), batch.column("hashes_b")
    n = batch.num_rows
    values = np.concatenate(
        [np.asarray(first.values.to_numpy(), np.uint32), np.asarray(second.values.to_numpy(),
                                                                     np.uint32)]
    )  # fmt: skip
    ends_a = np.asarray(first.offsets.to_numpy(), np.int64)
    ends_b = np.asarray(second.offsets.to_numpy(), np.int64)
    offsets = np.concatenate([ends_a - ends_a[0], ends_b[1:] - ends_b[0] + ends_a[-1] - ends_a[0]])
    floor = threshold - SCREEN_MARGIN
    runs = np.arange(n, dtype=np.int64)
    keep = hashed_jaccard(values, offsets, runs, runs + n, floor) >= floor
    return pa.table({"a": batch.column("a").filter(keep), "b": batch.column("b").filter(keep)})


def verified_rows(
    batch: pa.RecordBatch | pa.Table,
    processor: ShingleProcessor,
    threshold: float,
    max_dist: int | None = None,
) -> pa.Table:
    """The screened candidates of one batch (columns of :data:`PAIRS`) verified by the
    in-process step: the exact Jaccard and edit distance (exact up to ``max_dist``, given one)
    (:func:`~neardup.candidates.verify.verify_codes`).
    Returns the pairs with their records' texts (the columns of :data:`CREATE_VERIFIED`), an
    Arrow table, so that an engine may run it where the rows are (Spark's executors)."""
    import pyarrow as pa

    a = np.asarray(batch.column("a").to_numpy(), dtype=np.int64)
    b = np.asarray(batch.column("b").to_numpy(), dtype=np.int64)
    codes, where = np.unique(np.concatenate([a, b]), return_inverse=True)
    ids: list[str] = [""] * codes.size
    texts: list[str] = [""] * codes.size
    for side in ("a", "b"):
        local = where[: a.size] if side == "a" else where[a.size :]
        for k, i, t in zip(
            local.tolist(),
            batch.column(f"id_{side}").to_pylist(),
            batch.column(f"text_{side}").to_pylist(),
            strict=True,
        ):
            ids[k], texts[k] = i, t
    table = TextTable(ids, texts)  # codes in id order, as the report's are
    first, second = where[: a.size].astype(np.int64), where[a.size :].astype(np.int64)
    pairs = verify_codes(first, second, table, processor, threshold, max_dist=max_dist)
    return pa.table(
        {
            "id1": pa.array([p.id1 for p in pairs], pa.string()),
            "id2": pa.array([p.id2 for p in pairs], pa.string()),
            "jaccard": pa.array([p.jaccard for p in pairs], pa.float64()),
            "edit_distance": pa.array([p.edit_distance for p in pairs], pa.int64()),
            "text1": pa.array([table[p.id1] for p in pairs], pa.string()),
            "text2": pa.array([table[p.id2] for p in pairs], pa.string()),
        }
    )


def verified_pairs(batch: pa.RecordBatch | pa.Table, texts: Gathered) -> list[Pair]:
    """The pairs of a batch of :func:`verified_rows`; the texts of their records go to
    ``texts``."""
    columns = batch.to_pydict()
    pairs = [
        Pair(i, j, float(s), int(d))
        for i, j, s, d in zip(
            columns["id1"], columns["id2"], columns["jaccard"], columns["edit_distance"],
            strict=True,
        )
    ]  # fmt: skip
    texts.add(columns["id1"], columns["text1"])
    texts.add(columns["id2"], columns["text2"])
    return pairs
