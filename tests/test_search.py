"""``search`` scores short queries by containment (issue 27): a two-word query finds and ranks
the records that hold both words, which Jaccard against a long record misses."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from unittest import mock

import pytest

from neardup import NearDupIndex, Params
from neardup.backends import memory
from neardup.backends.base import Capability, held_share, search_terms
from neardup.errors import ArgumentError
from neardup.resources import restaurants
from neardup.results import Match
from neardup.solr import admin

from .conftest import run_cli

RECORDS = {
    "1": "The quarterly report on river pollution near the old paper mill, with water samples",
    "2": "Water samples taken upstream of the mill show little change over the quarter",
    "3": "A new bakery opened on the high street, selling bread and pastries every morning",
    "4": "Pollution in the river: the paper mill denies any link to the dead fish",
    "5": "Fishing season opens on the river next week, with new quotas",
}


def test_two_words_find_the_records_holding_both(make_index: Callable[..., NearDupIndex]) -> None:
    index = make_index(Params(shingle_kind="char", shingle_size=3, threshold=0.5))
    index.add_many(RECORDS.items())
    query = "river pollution"
    assert not {"1", "4"} <= {m.id for m in index.query(query, k=5)}  # Jaccard misses some
    found = index.search(query, k=5)
    assert [m.id for m in found][:2] == ["1", "4"] or [m.id for m in found][:2] == ["4", "1"]
    assert found[0].containment == found[1].containment == 1.0
    assert all(m.containment is not None and m.containment < 1.0 for m in found[2:])
    assert {m.id for m in found[2:]} >= {"5"}  # holds 'river' only: ranked below
    assert found[0].jaccard >= found[1].jaccard  # ties by Jaccard
    assert [m.id for m in index.search(query, k=5, threshold=1.0)] in (["1", "4"], ["4", "1"])
    words = make_index(Params(shingle_kind="word", shingle_size=1, threshold=0.5))
    words.add_many(RECORDS.items())
    assert {m.id for m in words.search("paper mill", k=5) if m.containment == 1.0} == {"1", "4"}
    long = RECORDS["3"]  # more than eight words: the usual similarity search
    assert words.search(long, k=1)[0].id == "3" and words.search(long, k=1)[0].containment is None


def test_words_shorter_than_a_shingle_are_found(make_index: Callable[..., NearDupIndex]) -> None:
    """``NY``, ``LA`` or a CJK character (words split CJK text by character) were counted in a
    query and held by no record: a query of them found nothing, and ``LA deli`` tied a record
    without ``LA`` with one holding both."""
    index = make_index(Params(shingle_kind="char", shingle_size=3, threshold=0.5))
    index.add_many([("1", "Carnegie Deli 854 7th Ave NY"), ("2", "Spago 1114 Horn Ave LA"),
                    ("3", "Arts Deli Studio City LA"), ("4", "Canyon Road Diner"),
                    ("5", "東京 ラーメン 一蘭 渋谷"), ("6", "大阪 たこ焼き 道頓堀")])  # fmt: skip
    assert [m.id for m in index.search("NY")] == ["1"]  # not canyon, which holds "ny" inside
    assert {m.id for m in index.search("LA")} == {"2", "3"}
    found = index.search("LA deli")
    assert found[0].id == "3" and found[0].containment == 1.0
    assert all(m.containment is not None and m.containment < 1.0 for m in found[1:])
    assert [m.id for m in index.search("ラーメン 渋谷")] == ["5"]
    assert index.search("ラーメン 渋谷")[0].containment == 1.0


def test_cli_search_ranks_by_containment(solr_base: str) -> None:
    records, _ = restaurants()
    coll = "test_search_short"
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/{coll}"}
    admin.delete_collection(admin.connect(solr_base, coll))
    try:
        assert run_cli("index", str(records), env=env).returncode == 0
        proc = run_cli("search", "ventura blvd", "-k", "50", "--json", env=env)
        assert proc.returncode == 0, proc.stderr
        matches = json.loads(proc.stdout)["matches"]
        both = [m for m in matches if m["containment"] == 1.0]
        texts = [line.lower() for line in records.read_text().splitlines()]
        holding = [t for t in texts if "ventura" in t and "blvd" in t]
        assert len(both) == min(50, len(holding)) > 1
        assert all("ventura" in m["text"].lower() and "blvd" in m["text"].lower() for m in both)
        assert matches.index(both[-1]) == len(both) - 1  # ranked first
    finally:
        admin.delete_collection(admin.connect(solr_base, coll))


#: Words of the generated records: some share character grams ("ventura", "venture",
#: "adventure"), some are shorter than a shingle ("st", "a"), so partial matches and ties
#: abound.
WORDS = (
    "ventura venture adventure blvd boulevard st street main maine road broad grill grille "
    "cafe café deli delhi pizza pizzeria a de la north northern park parker sun sunset"
).split()


def _records(n: int, seed: int, start: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for i in range(start, start + n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 7)))
        out.append((str(i), text if i % 9 else "ventura blvd st"))  # duplicates: ties
    return out


QUERIES = [
    "ventura blvd", "venture", "main st", "a de", "pizza sunset park", "zzz qqq",
    "Northern Grill", "cafe delhi", "st", "broad road maine parker",
]  # fmt: skip


def _scanned(index: NearDupIndex, query: str, k: int, threshold: float) -> list[Match]:
    """What search answers when its backend cannot look terms up: a scan of every record."""
    with mock.patch.object(index.backend, "holding", return_value=None):
        return index.search(query, k, threshold)


def _same_as_scan(index: NearDupIndex) -> None:
    for query in QUERIES:
        for k in (1, 25):
            for threshold in (0.0, 0.6):
                found = index.search(query, k, threshold)
                assert found == _scanned(index, query, k, threshold), (query, k, threshold)


#: The backends that look a search's terms up (Capability.TERM_LOOKUP): a DuckDB file reads
#: every record, so it is the scan these tests compare with.
LOOKING_UP = pytest.mark.parametrize(
    "backend_kind", ["memory", pytest.param("solr", marks=pytest.mark.solr)]
)


@LOOKING_UP
@pytest.mark.parametrize(
    "kind, size, canonical",
    [("char", 3, False), ("char", 3, True), ("char", 2, True), ("char", 7, False),
     ("word", 1, True), ("word", 1, False), ("word", 2, True)],
    ids=["char3-plain", "char3", "char2", "char7", "word1", "word1-plain", "word2"],
)
def test_the_lookup_gives_the_scans_answers(
    make_index: Callable[..., NearDupIndex],
    kind: str,
    size: int,
    canonical: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The records a backend looks up are scored as the scan scores every record, so the
    top k must be the scan's, ties and partial matches included; and stay so as records
    are added, replaced and removed once the lookup exists. Solr looks up what its analysis
    makes of the texts neardup sends (words split at spaces, k-grams); an index of k-grams
    past its fields is read whole."""
    monkeypatch.setattr(memory, "SEGMENTS", 2)  # merges happen within the test
    params = Params(shingle_kind=kind, shingle_size=size, threshold=0.5, canonical=canonical)
    index = make_index(params)
    index.add_many(_records(400, seed=size))
    looked: list[int] = []
    real = index.backend.holding

    def counting(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        looked.append(-1 if found is None else len(found))
        return found

    with mock.patch.object(index.backend, "holding", counting):
        _same_as_scan(index)
    if isinstance(index.backend, memory.MemoryBackend) or kind == "word" or size <= 6:
        assert looked and all(0 <= n < 400 for n in looked)  # looked up, not read whole
    else:  # a Solr index of character k-grams past the configset's fields: read whole
        assert looked and all(n == -1 for n in looked)
    for step in range(2):
        index.add_many(_records(60, seed=10 + step, start=380 + 50 * step), replace=True)
        index.remove([str(i) for i in range(step, 400, 37)])
        _same_as_scan(index)


def test_search_checks_k_and_threshold(make_index: Callable[..., NearDupIndex]) -> None:
    index = make_index(Params(shingle_kind="char", shingle_size=3, threshold=0.5))
    index.add_many(RECORDS.items())
    for k, threshold in ((0, 0.0), (True, 0.0), (3, 1.5), (3, "0.5")):
        with pytest.raises(ArgumentError):
            index.search("river mill", k, threshold)  # type: ignore[arg-type]


def test_a_query_that_is_not_text_is_refused(make_index: Callable[..., NearDupIndex]) -> None:
    index = make_index(Params(shingle_kind="char", shingle_size=3, threshold=0.5))
    index.add_many(RECORDS.items())
    for query in (None, b"river mill", 12):
        for look in (index.search, index.query):
            with pytest.raises(ArgumentError, match="must be a string"):
                look(query, 3)  # type: ignore[arg-type]


@LOOKING_UP
def test_odd_terms_are_looked_up_as_text(make_index: Callable[..., NearDupIndex]) -> None:
    """Terms that look like query syntax, separators or long words are terms, nothing else."""
    odd = {
        "1": 'a:b "c" (d OR e) {!terms f=id}1 $w.v0 x\\y',
        "2": "plain words only here",
        "3": "word " + "z" * 300,
        "4": "comma,separated;and\ttab",
    }
    index = make_index(Params(shingle_kind="word", shingle_size=1, threshold=0.5))
    index.add_many(odd.items())
    for query in ('a:b "c"', "{!terms f=id}1 $w.v0", "(d OR e)", "z" * 300, "comma,separated"):
        assert index.search(query, 3) == _scanned(index, query, 3, 0.0), query
    assert index.search("{!terms f=id}1", 1)[0].id == "1"


@pytest.mark.solr
def test_an_index_made_before_the_search_fields_still_indexes_and_searches(
    new_collection: Callable[[str], object],
) -> None:
    """A collection of the configset before records carried their search fields
    (``neardup_v2``) takes new records without a word of the missing fields, and its searches
    read every record, as they did, instead of looking up words its records do not hold."""
    from neardup.backends.solr import SolrBackend
    from neardup.resources import V2_CONFIGSET, configset_dir

    solr = new_collection("v2")  # made from this configset (and deleted after the test)
    admin.delete_collection(solr)  # type: ignore[arg-type]
    admin.create_collection(solr, configset_dir(), configset=V2_CONFIGSET)  # type: ignore[arg-type]
    index = NearDupIndex(Params(threshold=0.5), backend=SolrBackend(solr))  # type: ignore[arg-type]
    stats = index.add_many(_records(200, seed=5))
    assert (stats.indexed, stats.rejected) == (200, 0)
    assert index.backend.has_terms is False  # type: ignore[attr-defined]
    assert index.backend.holding(["ventura"], ["ventura"], 5, 1) is None  # type: ignore[attr-defined]
    _same_as_scan(index)
    assert index.search("ventura blvd", 5)[0].text == "ventura blvd st"


@LOOKING_UP
def test_a_word_longer_than_the_search_fields_keep_is_found_by_a_scan(
    make_index: Callable[..., NearDupIndex],
) -> None:
    """Lucene refuses a term of more than 32,766 bytes: a record holding a word longer than
    the search fields keep is still indexed, and a search for that word (which the fields
    cannot answer) reads every record and finds it."""
    from neardup.backends.solr import MAX_SEARCH_WORD

    long_word = "e" * 33_000  # past Lucene's limit in bytes, and the fields' in characters
    assert len(long_word) > MAX_SEARCH_WORD
    index = make_index(Params(threshold=0.5))
    stats = index.add_many([("1", f"plain {long_word}"), ("2", "plain words"), ("3", "x " * 9000)])
    assert (stats.indexed, stats.rejected) == (3, 0)
    found = index.search(f"{long_word} plain", 3)
    assert [m.id for m in found][:1] == ["1"] and found[0].containment == 1.0
    assert found == _scanned(index, f"{long_word} plain", 3, 0.0)
    assert [m.id for m in index.search("plain words", 1)] == ["2"]


def test_a_backend_without_a_term_lookup_is_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    """A backend that does not declare ``Capability.TERM_LOOKUP`` is never asked to look
    terms up (#42): search reads every record, and answers as the lookup did."""
    index = NearDupIndex(Params(threshold=0.5))
    index.add_many(_records(200, seed=3))
    looked_up = {q: index.search(q, 5) for q in QUERIES}
    without = index.backend.capabilities - {Capability.TERM_LOOKUP}
    monkeypatch.setattr(index.backend, "capabilities", without)
    monkeypatch.setattr(index.backend, "holding", mock.Mock(side_effect=AssertionError("asked")))
    assert {q: index.search(q, 5) for q in QUERIES} == looked_up
    assert any(looked_up.values())


@pytest.mark.parametrize(
    "params",
    [Params(shingle_kind="char", shingle_size=3), Params(shingle_kind="char", shingle_size=2),
     Params(shingle_kind="word", shingle_size=1), Params(shingle_kind="char", shingle_size=4,
                                                           canonical=True)],
    ids=["char3", "char2", "word1", "char4-canonical"],
)  # fmt: skip
def test_the_scan_scores_a_record_as_its_search_terms_do(params: Params) -> None:
    """held_share (what a scan asks of every record) is the share of the query's terms that
    the record's search_terms hold, for texts shorter than a shingle, hyphens, punctuation and
    canonical forms; a query word shorter than a shingle (``b``, ``ab``) is held where the
    record has it as a word (no shingle of a longer record is that short)."""
    processor = params.processor()
    rng = random.Random(3)
    alphabet = ["ab", "abc", "b", "cab", "st.", "seventh", "ave", "a-b", "x", "bca", "&", "7th"]
    for _ in range(300):
        query = " ".join(rng.choice(alphabet) for _ in range(rng.randint(1, 2)))
        words = processor.words(query)
        if not words:
            continue
        if processor.kind == "word":
            mine = frozenset(words)
        else:
            mine = frozenset().union(*(processor.shingle_set(w) for w in words))
        held = held_share(processor, mine)
        for _ in range(5):
            text = " ".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
            terms, prepared = search_terms(processor, text), processor.prepare(text)
            short = processor.kind == "char" and len(prepared) >= processor.size

            def holds(g: str, terms: frozenset[str] = terms, prepared: str = prepared,
                      short: bool = short) -> bool:  # fmt: skip
                if short and len(g) < processor.size:
                    return g in prepared.split()
                return g in terms

            want = sum(holds(g) for g in mine) / len(mine)
            assert held(text) == pytest.approx(want), (query, text)


def test_the_text_prepared_to_sign_a_record_is_not_prepared_again() -> None:
    """Indexing prepares each record once (canonical forms cost most of it): the documents
    carry the prepared text the kernel signed, and the search fields take it from there."""
    from neardup.backends.solr import search_fields
    from neardup.candidates.documents import documents
    from neardup.read.items import Record
    from neardup.sign import kernel

    if kernel.active() != "c":
        pytest.skip("the prepared texts are kept on the C kernel's path only")
    params = Params(shingle_kind="char", shingle_size=3, threshold=0.5)
    processor = params.processor()
    records = [Record(i, t) for i, t in _records(50, seed=7)] + [Record("x", "St. James & Co-op")]
    docs = documents(params, processor, records, strings=False)
    assert [d.prepared for d in docs] == [processor.prepare(r.text) for r in records]  # type: ignore[union-attr]
    with mock.patch.object(type(processor), "prepared", side_effect=AssertionError("again")):
        fields = search_fields(processor, docs)  # type: ignore[arg-type]
    assert fields[-1] == {"nd_c3": "st james and co op", "nd_shingles_n": 16}
