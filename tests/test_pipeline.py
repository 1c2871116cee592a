"""What the index writes for each record, and the pipelined, batched writes into Solr."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup import NearDupIndex, Params, RejectedRows, read_records
from neardup.backends.base import Document
from neardup.backends.solr import SolrBackend, key_value, solr_document
from neardup.candidates.documents import documents
from neardup.errors import InputError, SolrUnavailable
from neardup.pipeline import IndexStats, reason_kind
from neardup.read.items import Blank, Item, Record, Rejection, Unstored
from neardup.seed2014 import MAX_TERM_BYTES, processor_2014
from neardup.sign.banding import band_keys_batch
from neardup.sign.text import normalize
from neardup.solr.client import Solr

from .faultproxy import Fault, FaultProxy

# -- documents -------------------------------------------------------------------------------------

#: Parameter sets: the defaults with and without the 2014 fields, and the other code paths.
SETUPS = [
    Params(fields_2014=True),
    Params(),
    Params(num_perm=7, hash_family="xor", canonical=False, fields_2014=True),
    Params(shingle_kind="char", shingle_size=4, threshold=0.5, seed=5, fields_2014=True),
    Params(shingle_kind="char", shingle_size=3, num_perm=9),
]
INDEX_2014 = Params(fields_2014=True)

WIDE = "é" * 5450  # 10,900 bytes: three of them make a shingle of 32,702 bytes (fits)
TRICKY = [
    "Art's Deli, 12224 Ventura Blvd. & Co",
    "854 Seventh Avenue between 54th and 55th Sts., New York City",
    "...",
    "",
    "   \t ",
    "one",
    "two words",
    "exactly three words",
    "  MIXED   case\tand\nwhitespace  ",
    "ΑΣ ΣΑ final sigma Σ. İstanbul straße ǅ",
    "a-b c—d e_f «g» 数字 🙂 \x1c\x1d sep",
    "x" * 40_000 + " y",  # one word longer than a term may be
    " ".join(["€" * 3700] * 3),  # a 3-gram of 33,302 bytes: only the shingle is too long
    " ".join([WIDE] * 4),  # the text is longer than a term, every shingle is not
    " ".join(f"w{i % 997}" for i in range(20_000)),  # long, nothing too long
]


def expected_documents(params: Params, records: list[Record]) -> list[dict[str, Any] | Rejection]:
    """What the index must send to Solr, recomputed record by record with the public API."""
    out: list[dict[str, Any] | Rejection] = []
    proc = params.processor()
    for r in records:
        text = normalize(r.text)
        if not text:
            out.append(Unstored(r.source, r.line, "no words after normalization", r.id))
            continue
        sig = proc.signatures_batch([r.text])
        keys = band_keys_batch(sig, params.bands, params.rows)[0]
        doc: dict[str, Any] = {"id": r.id, "raw": r.text}
        if params.fields_2014:  # the text is stored once: normalized only for the 2014 searcher
            doc["content"] = text
        if params.fields_2014:  # format 3 keeps key strings for the 2014 design alone
            doc["content_lsh"] = keys
        if params.fields_2014:
            old = processor_2014(params)
            shingles = old.ngrams(text)
            words = old.words(text)
            longest = max(len(s.encode("utf-8")) for s in [words[0], *shingles])
            if longest > MAX_TERM_BYTES:
                reason = (
                    f"a word or shingle of {longest} bytes is longer than Solr's limit "
                    f"for one indexed term ({MAX_TERM_BYTES} bytes)"
                )
                out.append(Unstored(r.source, r.line, reason, r.id))
                continue
            doc.update(
                {
                    "md5_hash": hashlib.md5(text.encode("utf-8")).hexdigest(),
                    "num_words": len(words),
                    "first_word": words[0],
                    "content_ng": shingles,
                    "content_sg": [str(int(v)) for v in old.signature(text)],
                }
            )
        if r.source:
            doc["source_s"] = r.source  # where it comes from, for link mode
        doc.update({f"lsh_b{b:02d}": key_value(k) for b, k in enumerate(keys)})
        out.append(doc)
    return out


def sent(params: Params, records: list[Record]) -> list[dict[str, Any] | Rejection]:
    got = documents(params, params.processor(), records)
    # The strings as SolrBackend.strings decides them for an index of these parameters.
    strings = params.fields_2014
    return [solr_document(d, strings=strings) if isinstance(d, Document) else d for d in got]


def as_sent(items: list[dict[str, Any] | Rejection]) -> list[str]:
    """Documents as the JSON Solr receives (types and key order included), rejections as such."""
    return [repr(i) if isinstance(i, Rejection) else json.dumps(i) for i in items]


def records_of(texts: list[str]) -> list[Record]:
    return [Record(f"id{i}", t, "in.txt", i + 1) for i, t in enumerate(texts)]


@pytest.mark.parametrize("params", SETUPS, ids=lambda x: repr(x)[7:60])
def test_documents_are_what_the_public_api_computes(params: Params) -> None:
    records = records_of(TRICKY)
    got = sent(params, records)
    assert as_sent(got) == as_sent(expected_documents(params, records))
    reasons = [d.reason for d in got if isinstance(d, Rejection)]
    # Only the 2014 fields index words and shingles as terms, so only they can be too long.
    assert any("longer than Solr's limit" in r for r in reasons) == params.fields_2014
    assert sent(params, []) == []


ADDRESS_WORDS = ["st", "street", "ave", "seventh", "between", "and", "at", "new", "york", "&"]
texts = st.lists(
    st.one_of(st.text(max_size=30), st.lists(st.sampled_from(ADDRESS_WORDS)).map(" ".join)),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(texts=texts)
def test_documents_of_any_text_are_what_the_public_api_computes(texts: list[str]) -> None:
    records = records_of(texts)
    for params in SETUPS[:3]:
        assert as_sent(sent(params, records)) == as_sent(expected_documents(params, records))


def test_rejections_are_counted_by_their_whole_kind(tmp_path: Path) -> None:
    """The counts by reason were keyed by the reason up to its first comma: a JSONL file's
    objects with no text in 'title' and in 'title', 'brand' were one kind, an invalid JSON
    line was "invalid JSON: Expecting '", and each float id was a kind of its own, its value
    kept (wtlib2, finding 3). A reason's kind ends where its detail starts, after ": " or ", "
    (not a list's ", '"), and a position ("at column 10") is detail too."""
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join([
        '{"id": 1, "title": "acme drill rx 101"}',
        '{"id": 2, "title": ""}',
        '{"id": 3, "title": "", "brand": ""}',
        '{"id": 4.5, "title": "bosch saw"}',
        '{"id": 5.5, "title": "bosch saw two"}',
        '{"id": 6 "title": "x"}',
        'not json at all',
        '{"id": 1, "title": "another text"}',
    ]) + "\n", encoding="utf-8")  # fmt: skip
    with pytest.warns(RejectedRows):
        stats = NearDupIndex().add_many(read_records(path, id_field="id"))
    assert stats.reasons == {
        "no text in 'title'": 1,
        "no text in 'title', 'brand'": 1,
        "id field 'id' is not a string or an integer": 2,
        "invalid JSON": 2,
        "duplicate id": 1,
    }
    assert IndexStats().plus(stats).reasons == stats.reasons
    said = {
        "the id must be a string or an integer, got float": "the id must be a string or an integer",
        "expected an (id, text) pair, an (id, text, source) triple or a Record, got {'a': 1}":
            "expected an (id, text) pair",
        "id is a float at or above 2**53, so not exact: 123456789012345680 may have been another":
            "id is a float at or above 2**53",
        "record too large, 123 bytes of text (the limit is 100)": "record too large",
        "a carriage return (CR) alone at column 14, inside the line: lines end with LF or CRLF":
            "a carriage return (CR) alone",
        "a field opens a quote it does not close (tab-separated fields are read as written, not "
        "unquoted, so a quoted line break splits the record; save the file as CSV)":
            "a field opens a quote it does not close (tab-separated fields are read as written, "
            "not unquoted, so a quoted line break splits the record; save the file as CSV)",
        "field 'name' is not valid Unicode: lone surrogate U+D800 at character 3":
            "field 'name' is not valid Unicode",
        "invalid UTF-8 in column 'name' at byte 7": "invalid UTF-8 in column 'name'",
        "refused by Solr: Solr at /update answered HTTP 400: Exception writing document id r5 "
        "to the index; possible analysis error.": "refused by Solr",
    }  # fmt: skip
    assert {reason: reason_kind(reason) for reason in said} == said


# -- pipelined writes ------------------------------------------------------------------------------


REFUSED = ("r5", "r9", "r15")  # the records Solr refuses (the proxy answers HTTP 400)


def test_counts_and_rejections_come_in_the_order_of_the_input(collection: Solr) -> None:
    """Reader rejections, per-record rejections and Solr's refusals (found by halving a refused
    batch) are counted in input order although batch k is sent while batch k+1 is computed
    (Solr's refusals of a batch after its other rejections); a reader's rejection among a
    batch's records stands where it was read, not before them."""

    def rec(line: int, text: str = "") -> Record:
        return Record(f"r{line}", text or f"some words here {line}", "in.txt", line)

    items: list[Item] = [
        rec(1),
        Blank("in.txt", 2),
        Rejection("in.txt", 3, "unreadable A"),
        rec(4, "..."),
        rec(5),
        Rejection("in.txt", 6, "unreadable mid-batch"),  # read among batch 1's records
        rec(7),  # batch 1: lines 1, 4, 5, 7
        Rejection("in.txt", 8, "unreadable B"),  # read while batch 1 is on its way
        rec(9),
        rec(10, "x" * 40_000),
        rec(11),
        rec(12),  # batch 2: lines 9, 10, 11, 12
        Rejection("in.txt", 13, "unreadable C"),
        rec(14),
        Rejection("in.txt", 15, "unreadable D"),
        rec(15),  # batch 3 (the last, short): lines 14 and 15
    ]
    faults = [Fault("/update", "400", times=100, contains=f'"{r}"') for r in REFUSED]
    with FaultProxy(collection.base_url, faults) as proxy:
        NearDupIndex(INDEX_2014, backend=SolrBackend(collection))  # stores the parameters
        solr = Solr(f"{proxy.url}/{collection.collection}", retries=0)
        stats = NearDupIndex(backend=SolrBackend(solr)).add_many(items, batch_size=4)
    # Solr's refusals of a batch are known once it is sent: after its other rejections
    assert [r.line for r in stats.rejections] == [3, 4, 6, 5, 8, 10, 9, 13, 15, 15]
    assert (stats.read, stats.indexed, stats.rejected, stats.blank) == (15, 5, 10, 1)
    assert list(stats.reasons) == [
        "unreadable A",
        "no words after normalization",
        "unreadable mid-batch",
        "refused by Solr",
        "unreadable B",
        "a word or shingle of 40000 bytes is longer than Solr's limit for one indexed term "
        "(32766 bytes)",
        "unreadable C",
        "unreadable D",
    ]
    assert stats.reasons["refused by Solr"] == 3
    refused = [r for r in stats.rejections if r.reason.startswith("refused by Solr")]
    assert [r.id for r in refused] == list(REFUSED)
    assert all("HTTP 400" in r.reason for r in refused)
    ids = [d["id"] for d in collection.iter_docs("id", fq=["-id:_neardup_meta_"])]
    assert sorted(ids) == ["r1", "r11", "r12", "r14", "r7"]  # committed
    assert not writers_alive()


def writers_alive() -> list[threading.Thread]:
    """Writer threads still alive (each ends once its run is over)."""
    deadline = time.monotonic() + 5
    while True:
        alive = [t for t in threading.enumerate() if t.name == "neardup-writer"]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.01)


def numbered(n: int, prefix: str = "p") -> list[Record]:
    return [
        Record(f"{prefix}{i:05d}", f"record number {i} of many", "in.txt", i + 1) for i in range(n)
    ]


def present(solr: Solr, ids: list[str]) -> set[str]:
    """Which of ``ids`` Solr holds, committed or not (real-time get)."""
    return {d["id"] for d in solr.get(ids, fields="id")}


@pytest.mark.parametrize("writers", [1, 2])
def test_a_failed_batch_raises_and_nothing_is_sent_after_it(
    new_collection: Callable[[str], Solr], writers: int
) -> None:
    direct = new_collection(f"fail{writers}")
    records = numbered(1000)
    # Batch 2 (records 100-199) goes as `writers` slices at once; the slice holding p00150 is
    # cut off, and retries=0 makes that final.
    fault = Fault("/update", "close", times=100, contains='"p00150"')
    with FaultProxy(direct.base_url, [fault]) as proxy:
        NearDupIndex(INDEX_2014, backend=SolrBackend(direct))  # stores the parameters
        solr = Solr(f"{proxy.url}/{direct.collection}", retries=0)
        index = NearDupIndex(backend=SolrBackend(solr))
        with pytest.raises(SolrUnavailable, match="cannot reach Solr at .*/update"):
            index.add_many(records, batch_size=100, writers=writers)
        updates = [p for _, p, _ in proxy.log if "/update" in p]
    assert fault.injected == 1
    # batches 1 and 2 in `writers` slices each; no batch 3; then what was sent is committed
    # (issue 41 item 9), so that Solr shows what memory would hold, with the batch noted on
    # the metadata document first (one update: SolrBackend.written_batch)
    assert len([p for p in updates if "commit=true" not in p]) == 2 * writers + 1
    assert len([p for p in updates if "commit=true" in p]) == 1
    ids = [r.id for r in records]
    sent = 100 + 50 * (writers - 1)  # batch 1, and batch 2's slice that went alongside
    assert present(direct, ids[:sent]) == set(ids[:sent])
    assert not present(direct, ids[sent:])
    assert not writers_alive()


def test_a_reader_error_leaves_every_record_read_before_it(collection: Solr) -> None:
    records = numbered(250)

    def items() -> Iterator[Item]:
        yield from records
        raise InputError("in.txt:251: the reader gave up")

    with pytest.raises(InputError, match="the reader gave up"):
        NearDupIndex(INDEX_2014, backend=SolrBackend(collection)).add_many(
            items(), batch_size=100
        )
    ids = [r.id for r in records]
    # Batches 1 and 2 were full before the error (batch 2 on its way), and the 50 records of
    # the batch in hand are written too (issue 41 item 9): all of them, committed.
    assert present(collection, ids) == set(ids)
    assert collection.count(fq=["-id:_neardup_meta_"]) == 250
    assert not writers_alive()


def test_many_batches_arrive_complete(collection: Solr) -> None:
    solr = collection
    records = numbered(2_345, prefix="m")
    index = NearDupIndex(INDEX_2014, backend=SolrBackend(solr))
    stats = index.add_many(records, batch_size=100)
    assert (stats.read, stats.indexed, stats.rejected) == (2_345, 2_345, 0)
    assert solr.count(fq=["-id:_neardup_meta_"]) == 2_345
    assert solr.get(["m01234"], fields="content_ng")[0]["content_ng"] == [
        "record number 1234",
        "number 1234 of",
        "1234 of many",
    ]


def test_batches_are_bounded_by_their_text_as_well_as_their_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from neardup import pipeline

    monkeypatch.setattr(pipeline, "BATCH_BYTES", 3_000_000)
    sizes: list[int] = []
    index = NearDupIndex(Params())
    real = index.documents

    def spy(records: list[Record]) -> list[Any]:
        sizes.append(len(records))
        return real(records)

    monkeypatch.setattr(index, "documents", spy)
    big = [Record(f"b{i}", f"word{i} " * 300_000) for i in range(9)]  # 1.8 MB of text each
    small = [Record(f"s{i}", f"short record {i}") for i in range(2_500)]
    stats = index.add_many([*big[:5], *small, *big[5:]], batch_size=1_000)
    assert (stats.read, stats.indexed) == (2_509, 2_509)
    # Two big records fill a batch; small ones go a thousand at a time, and the batch that
    # the sixth and seventh big records join ends with them.
    assert sizes == [2, 2, 1_000, 1_000, 503, 2]
    assert len(index) == 2_509


@pytest.mark.parametrize("kernel_name", ["c", "numpy"])
def test_encoded_documents_are_the_documents_as_json(kernel_name: str) -> None:
    """What the Solr backend sends, band fields written in C or by json.dumps, is the JSON of
    :func:`solr_document` for any text, and a list of values or keys gives the same."""
    from neardup.backends.solr import encoded_documents
    from neardup.sign import kernel
    from neardup.solr.client import EncodedJSON

    params = Params(shingle_kind="char", shingle_size=3)
    records = records_of(TRICKY)
    kernel.use(kernel_name)
    try:
        docs = [
            d for d in documents(params, params.processor(), records, 7, strings=False)
            if isinstance(d, Document)
        ]  # fmt: skip
        sent_docs = encoded_documents(docs, numeric=True, strings=False)
    finally:
        kernel.use("c")
    assert docs and all(isinstance(d.values, np.ndarray) for d in docs)
    assert all(isinstance(s, EncodedJSON) for s in sent_docs) == (kernel_name == "c")
    as_lists = [dataclasses.replace(d, values=d.values.tolist()) for d in docs]
    want = [solr_document(d) for d in as_lists]
    assert want[0]["lsh_b00"] == int(docs[0].values[0]) and "raw" in want[0]
    got = [json.loads(s) if isinstance(s, str) else s for s in sent_docs]
    assert got == want
    assert encoded_documents(as_lists) == want  # plain lists: dicts, as before


def test_encoded_documents_of_the_most_bands_are_their_json() -> None:
    """A record of MAX_BANDS band fields (1,024) is written by the kernel like one of 32."""
    from neardup.backends.solr import encoded_documents
    from neardup.sign.banding import MAX_BANDS

    rng = np.random.default_rng(3)
    values = rng.integers(-(2**63), 2**63 - 1, (3, MAX_BANDS), dtype=np.int64, endpoint=True)
    docs = [Document(str(i), "a \"quoted\" text", "", [], values=values[i]) for i in range(3)]
    got = [json.loads(s) if isinstance(s, str) else s for s in encoded_documents(docs)]
    want = [solr_document(dataclasses.replace(d, values=d.values.tolist())) for d in docs]
    assert got == want and len(got[0]) == MAX_BANDS + 2


def test_writes_run_with_the_cycle_collector_paused(
    make_index: Callable[..., NearDupIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every batch is stored while the collector is off (on both backends: the batches on
    their way kept it walking), and it is on again afterwards, also after a failed write."""
    import gc

    index = make_index(Params(threshold=0.5))
    seen: list[bool] = []
    real_add = type(index.backend).add

    def add(self: Any, docs: Any) -> None:
        seen.append(gc.isenabled())
        real_add(self, docs)

    monkeypatch.setattr(type(index.backend), "add", add)
    assert gc.isenabled()
    index.add_many([(str(i), f"record number {i} of the old mill road") for i in range(2500)])
    assert seen and not any(seen)
    assert gc.isenabled()
    assert index.backend.count() == 2500

    def broken() -> Iterator[tuple[str, str]]:
        yield "x", "one record before the reader fails"
        raise OSError("the disk went away")

    with pytest.raises(OSError):
        index.add_many(broken())
    assert gc.isenabled()
