"""The indexer: its documents, value for value, and its pipelined writes against a real Solr."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.datasets import Blank, Item, Record, Rejection
from neardup.errors import InputError, SolrUnavailable
from neardup.indexer import MAX_TERM_BYTES, Indexer
from neardup.lsh import LshConfig
from neardup.shingles import ShingleProcessor
from neardup.solr import Solr

from .faultproxy import Fault, FaultProxy

# -- documents -------------------------------------------------------------------------------------

#: (seed processor, LSH configuration) pairs: the defaults and the other code paths.
SETUPS = [
    (ShingleProcessor(3), LshConfig()),
    (ShingleProcessor(3, num_perm=20), None),
    (ShingleProcessor(1, num_perm=7, hash_family="universal"), LshConfig(canonical=False)),
    (ShingleProcessor(2, seed=5), LshConfig(kind="char", size=4, threshold=0.5)),
    (ShingleProcessor(5, kind="char", num_perm=9), LshConfig(kind="char", size=3)),
]

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


def expected_documents(
    proc: ShingleProcessor, lsh: LshConfig | None, records: list[Record]
) -> list[dict[str, Any] | Rejection]:
    """What the indexer must send, recomputed record by record with the public API."""
    out: list[dict[str, Any] | Rejection] = []
    for r in records:
        text = proc.normalize(r.text)
        if not text:
            out.append(Rejection(r.source, r.line, "no words after normalization", r.id))
            continue
        shingles = proc.ngrams(text)
        longest = max(len(s.encode("utf-8")) for s in [proc.first_word(text), *shingles])
        if longest > MAX_TERM_BYTES:
            reason = (
                f"a word or shingle of {longest} bytes is longer than Solr's limit "
                f"for one indexed term ({MAX_TERM_BYTES} bytes)"
            )
            out.append(Rejection(r.source, r.line, reason, r.id))
            continue
        doc: dict[str, Any] = {
            "id": r.id,
            "content": text,
            "raw": r.text,
            "md5_hash": hashlib.md5(text.encode("utf-8")).hexdigest(),
            "num_words": proc.num_words(text),
            "first_word": proc.first_word(text),
            "content_ng": shingles,
            "content_sg": [str(int(v)) for v in proc.signature(text)],
        }
        if lsh is not None:
            doc["content_lsh"] = lsh.keys(r.text)
            doc.update({f"lsh_b{b:02d}": k for b, k in enumerate(doc["content_lsh"])})
        out.append(doc)
    return out


def as_sent(items: list[dict[str, Any] | Rejection]) -> list[str]:
    """Documents as the JSON Solr receives (types and key order included), rejections as such."""
    return [repr(i) if isinstance(i, Rejection) else json.dumps(i) for i in items]


def records_of(texts: list[str]) -> list[Record]:
    return [Record(f"id{i}", t, "in.txt", i + 1) for i, t in enumerate(texts)]


@pytest.mark.parametrize(("proc", "lsh"), SETUPS, ids=lambda x: repr(x)[:40])
def test_documents_are_what_the_public_api_computes(
    proc: ShingleProcessor, lsh: LshConfig | None
) -> None:
    records = records_of(TRICKY)
    got = Indexer(None, proc, lsh=lsh, progress=False).documents(records)  # type: ignore[arg-type]
    assert as_sent(got) == as_sent(expected_documents(proc, lsh, records))
    reasons = [d.reason for d in got if isinstance(d, Rejection)]
    assert any("longer than Solr's limit" in r for r in reasons)
    assert Indexer(None, proc, lsh=lsh).documents([]) == []  # type: ignore[arg-type]


ADDRESS_WORDS = ["st", "street", "ave", "seventh", "between", "and", "at", "new", "york", "&"]
texts = st.lists(
    st.one_of(st.text(max_size=30), st.lists(st.sampled_from(ADDRESS_WORDS)).map(" ".join)),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(texts=texts)
def test_documents_of_any_text_are_what_the_public_api_computes(texts: list[str]) -> None:
    records = records_of(texts)
    for proc, lsh in SETUPS[:3]:
        got = Indexer(None, proc, lsh=lsh).documents(records)  # type: ignore[arg-type]
        assert as_sent(got) == as_sent(expected_documents(proc, lsh, records))


# -- pipelined writes ------------------------------------------------------------------------------


def huge_id(line: int) -> str:
    """An id Solr refuses (an indexed term longer than 32,766 bytes)."""
    return f"{line}" + "x" * 40_000


def test_counts_and_rejections_come_in_the_order_of_the_input(collection: Solr) -> None:
    """Reader rejections, per-record rejections and Solr's refusals (found by halving a refused
    batch) are counted in input order although batch k is sent while batch k+1 is computed."""

    def rec(line: int, text: str = "", rid: str = "") -> Record:
        return Record(rid or f"r{line}", text or f"some words here {line}", "in.txt", line)

    items: list[Item] = [
        rec(1),
        Blank("in.txt", 2),
        Rejection("in.txt", 3, "unreadable A"),
        rec(4, "..."),
        rec(5, rid=huge_id(5)),
        rec(6),  # batch 1: lines 1, 4, 5, 6
        Rejection("in.txt", 7, "unreadable B"),  # read while batch 1 is on its way
        rec(8),
        rec(9, rid=huge_id(9)),
        rec(10, "x" * 40_000),
        rec(11),  # batch 2: lines 8, 9, 10, 11
        Rejection("in.txt", 12, "unreadable C"),
        rec(13),
        Rejection("in.txt", 14, "unreadable D"),
        rec(15, rid=huge_id(15)),  # batch 3 (the last, short): lines 13 and 15
    ]
    stats = Indexer(collection, ShingleProcessor(3), lsh=LshConfig(), batch_size=4).index(items)
    assert [r.line for r in stats.rejections] == [3, 4, 5, 7, 10, 9, 12, 14, 15]
    assert (stats.read, stats.indexed, stats.rejected, stats.blank) == (14, 5, 9, 1)
    assert list(stats.reasons) == [
        "unreadable A",
        "no words after normalization",
        "refused by Solr: Solr",
        "unreadable B",
        "a word or shingle of 40000 bytes is longer than Solr's limit for one indexed term "
        "(32766 bytes)",
        "unreadable C",
        "unreadable D",
    ]
    assert stats.reasons["refused by Solr: Solr"] == 3
    refused = [r for r in stats.rejections if r.reason.startswith("refused by Solr")]
    assert [r.id for r in refused] == [huge_id(5), huge_id(9), huge_id(15)]
    assert all("HTTP 400" in r.reason for r in refused)
    ids = [d["id"] for d in collection.iter_docs("id", fq=["-id:_neardup_meta_"])]
    assert ids == ["r1", "r11", "r13", "r6", "r8"]  # committed
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
        solr = Solr(f"{proxy.url}/{direct.collection}", retries=0)
        indexer = Indexer(
            solr, ShingleProcessor(3), lsh=LshConfig(), batch_size=100, writers=writers
        )
        with pytest.raises(SolrUnavailable, match="cannot reach Solr at .*/update"):
            indexer.index(records)
        updates = [p for _, p, _ in proxy.log if "/update" in p]
    assert fault.injected == 1
    # the parameters, batches 1 and 2 in `writers` slices each; no batch 3, no commit
    assert len(updates) == 1 + 2 * writers
    ids = [r.id for r in records]
    sent = 100 + 50 * (writers - 1)  # batch 1, and batch 2's slice that went alongside
    assert present(direct, ids[:sent]) == set(ids[:sent])
    assert not present(direct, ids[sent:])
    assert not writers_alive()


def test_a_reader_error_lets_the_batch_on_its_way_complete(collection: Solr) -> None:
    records = numbered(250)

    def items() -> Iterator[Item]:
        yield from records
        raise InputError("in.txt:251: the reader gave up")

    with pytest.raises(InputError, match="the reader gave up"):
        Indexer(collection, ShingleProcessor(3), lsh=LshConfig(), batch_size=100).index(items())
    ids = [r.id for r in records]
    # Batches 1 and 2 were full before the error (batch 2 on its way): both are in, as they
    # were when each batch was sent before the next was read; the 50 unsent records are not.
    assert present(collection, ids) == set(ids[:200])
    assert not writers_alive()


def test_many_batches_arrive_complete(collection: Solr) -> None:
    solr = collection
    records = numbered(2_345, prefix="m")
    stats = Indexer(solr, ShingleProcessor(3), lsh=LshConfig(), batch_size=100).index(records)
    assert (stats.read, stats.indexed, stats.rejected) == (2_345, 2_345, 0)
    assert solr.count(fq=["-id:_neardup_meta_"]) == 2_345
    assert solr.get(["m01234"], fields="content_ng")[0]["content_ng"] == [
        "record number 1234",
        "number 1234 of",
        "1234 of many",
    ]
