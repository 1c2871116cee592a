"""Records and band keys in a Solr collection (standalone core or SolrCloud).

Each record is one Solr document: ``id``, ``raw`` (the text as written), and one
single-valued field per band (``lsh_b00``, ``lsh_b01``, ...: indexed with docValues) that
searches and the report of a large index facet on; a record's keys are read back from the same
fields' docValues (``fl=lsh_b*``). Indexes of format 2 (:data:`neardup.params.READS`), those
whose plug-in asks for it (:mod:`neardup.extra_fields`) and those with string band fields also
store the keys as strings (``content_lsh``):
40 stored strings a record took 3.6 of the 8.4 s of Solr CPU that indexing 100k short records
cost, and reading them back was no faster (10,000 records: 0.23-0.28 s, against 0.15 s for
their docValues).
A band field holds its key's 64 bits as a signed long (``plong``: points and numeric
docValues), not the key's text: Lucene indexes a long per band about twice as fast as a unique
string term with sorted docValues (measured: 40 bands, 60,000 records, 13,700 against 7,300 a
second). Collections made before keep their string band fields, and are read as they are.
A record read from several columns keeps them as JSON in ``columns_txt`` (stored only).
The fields of a plug-in come along when the index's parameters turn it on
(:attr:`~neardup.backends.base.Document.extra`). The parameter set lives in one metadata
document.

Solr does the bucketing: a JSON terms facet with ``mincount: 2`` on a band's field returns only
the keys that two or more records share, and one terms query on those keys returns their
members. A facet nested per bucket instead costs one Solr sub-query per bucket (measured at 1M
records: 84 s instead of 7-12 s for 21 bands, and superlinear in the collection).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from .. import extra_fields
from ..errors import SolrRequestError
from ..params import Params
from ..sign import kernel
from ..sign.banding import MAX_BANDS, band_field, key_field, key_value, value_key
from ..sign.minhash import ShingleProcessor
from ..solr.client import EncodedJSON, Solr, _separator, any_term_params, terms_params
from ..solr.shards import shard_cores
from .base import Capability, Document, NewestBatch, StoredRecord

META_ID = "_neardup_meta_"
#: Filter that keeps records and leaves out the metadata document.
RECORDS_FQ = f"-id:{META_ID}"
#: Where a record comes from (link mode); a dynamic string field of the configset.
SOURCE_FIELD = "source_s"
#: The batch that wrote a record (a long: microseconds since the epoch at the write's start).
BATCH_FIELD = "batch_l"
#: The newest batch written, on the metadata document (:meth:`SolrBackend.written_batch`).
WRITTEN_FIELD = "nd_written_l"
#: A record's columns as JSON (stored only; a dynamic text field of the configset).
COLUMNS_FIELD = "columns_txt"
#: Tries at noting the newest batch while other writers change the metadata document.
NOTE_TRIES = 5
#: Ids per request when fetching the text of candidates (50,000 texts of 10M records: 0.66 s
#: in requests of 1,000, 0.54 s in requests of 5,000).
FETCH_BATCH = 5000
#: Shared band keys per terms query when listing the members of their buckets.
MEMBERS_BATCH = 20_000
#: Such queries under way at once.
MEMBER_THREADS = 2
#: Key groups per request when looking for records that hold two keys of a group: each group
#: is a ``{!bool mm=2}`` of up to one term per band, under Solr's 1,024 clauses a query.
TWO_GROUPS = 20
#: Candidates of one neighbours/query lookup read per request: fewer take a single request.
CANDIDATE_ROWS = 1000
#: A record's keys: its stored strings where it has them, else its band fields' docValues.
KEY_FIELDS = "content_lsh,lsh_b*"
RECORD_FIELDS = f"id,raw,content,{KEY_FIELDS}"
#: Records read per request when every text is read (:meth:`SolrBackend.all_texts`): each
#: request of a cursor sorts the whole index again, so 100k short texts took 3.2 s in pages
#: of 1,000 and 2.4 s in pages of 10,000 (about 15 MB of documents a page).
TEXT_ROWS = 10_000
#: Cursors read side by side when every text is read (split by a hash of the id): two, for
#: the two cores of a small machine (one signs while Solr loads the next pages on the other).
TEXT_PARTS = 2
#: Records a part holds at most when every text is read: more records, more parts (read
#: :data:`TEXT_PARTS` at a time). Each page of a cursor scans its whole part, so one cursor's
#: cost grows with the square of its records: at 10M short records a page of 10,000 took
#: 0.3 s, 0.17 s of it that scan, whatever the page's size.
PART_RECORDS = 1_000_000
#: What a short search looks up (fields of the configset, indexed only): a record's normalized
#: text, whose words are its :func:`~neardup.backends.base.search_terms` in an index of word
#: shingles; its prepared text, whose words are its shingles where they are single words; and
#: how many distinct shingles it has (docValues), for its Jaccard similarity with the query.
#: Solr splits both texts at spaces: sending two strings costs indexing far less than a list of
#: terms (each record's terms as values made indexing 100k short records 70-90% slower).
WORDS_FIELD = "nd_words"
SHINGLES_COUNT_FIELD = "nd_shingles_n"
#: Where single-word shingles differ from the words (canonical forms): the shingles that are
#: not words, and the words that are not shingles. Sent only then, so that a record's words
#: are indexed once (both texts whole made indexing 100k documents 31% slower).
SHINGLES_FIELD = "nd_shingles"
UNSHINGLED_FIELD = "nd_unshingled"
#: In an index of character k-grams: the prepared text, which Solr cuts into its k-grams
#: (one field a k the configset knows), or, shorter than a k-gram, the text itself (its one
#: shingle).
CHAR_FIELDS = {k: f"nd_c{k}" for k in range(2, 7)}
WHOLE_FIELD = "nd_whole"
SEARCH_FIELDS = (WORDS_FIELD, SHINGLES_FIELD, UNSHINGLED_FIELD, SHINGLES_COUNT_FIELD,
                 WHOLE_FIELD, *CHAR_FIELDS.values())  # fmt: skip
#: Characters (UTF-16 units) of the longest word the search fields hold (their analyzer's
#: length filter: Lucene refuses a term of more than 32,766 bytes); a search for a longer one
#: reads every record.
MAX_SEARCH_WORD = 8000
#: Terms of a query a short search looks up at most (one clause each, under Solr's 1,024
#: clauses a query): past it, the search reads every record.
MAX_SEARCH_TERMS = 500
#: Within this share of the ``k``-th record's rank (two per term held, plus its Jaccard) a
#: record is tied with it: Solr's functions compute in 32-bit floats (a few units in the
#: last place of 2**-24 each).
SOLR_TIE = 1e-6
_BAND_FIELDS = tuple(band_field(b) for b in range(MAX_BANDS))


def solr_document(
    doc: Document,
    numeric: bool = True,
    strings: bool = False,
    bands: bool = True,
    searched: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What Solr is sent for ``doc``; ``strings``: its keys also as stored strings;
    ``bands``: with its band fields (else the caller writes them: :func:`encoded_documents`);
    ``searched``: its search fields (:func:`search_fields`)."""
    out: dict[str, Any] = {"id": doc.id, "raw": doc.text}
    if searched:
        out.update(searched)
    if doc.extra:  # a plug-in's fields come with the normalized text they are made of
        out["content"] = doc.content
    if strings or not numeric:
        out["content_lsh"] = doc.keys
    out.update(doc.extra)
    if doc.source:
        out[SOURCE_FIELD] = doc.source
    if doc.batch:
        out[BATCH_FIELD] = doc.batch
    if doc.fields:
        out[COLUMNS_FIELD] = json.dumps(doc.fields, ensure_ascii=False)
    if not bands:
        return out
    if not numeric:
        values: list[Any] = doc.keys
    elif len(doc.values):
        values = doc.values.tolist() if isinstance(doc.values, np.ndarray) else doc.values
    else:
        values = [key_value(k) for k in doc.keys]
    out.update(zip(_BAND_FIELDS, values, strict=False))  # the keys are the shorter
    return out


def encoded_documents(
    docs: Sequence[Document],
    numeric: bool = True,
    strings: bool = False,
    processor: ShingleProcessor | None = None,
) -> list[dict[str, Any] | EncodedJSON]:
    """What Solr is sent for ``docs``: those whose band values are an int64 row (as
    :func:`neardup.candidates.documents.documents` makes them) as JSON text, their band fields
    written by the C kernel (``json.dumps`` of 40 longs a record was a fifth of indexing's Python
    time); the others as :func:`solr_document`'s dicts. ``processor``: with the fields a
    short search looks up (:func:`search_fields`), made by it.
    """
    c = kernel.get()
    fast = [
        numeric and c is not None and isinstance(d.values, np.ndarray) and d.values.size > 0
        for d in docs
    ]
    searched = search_fields(processor, docs) if processor is not None else [{} for _ in docs]
    out: list[dict[str, Any] | EncodedJSON] = [
        solr_document(d, numeric, strings, bands=not f, searched=s)
        for d, f, s in zip(docs, fast, searched, strict=True)
    ]
    by_width: dict[int, list[int]] = {}
    for k, f in enumerate(fast):
        if f:
            by_width.setdefault(int(docs[k].values.size), []).append(k)
    for width, ks in by_width.items():
        assert c is not None  # only with the kernel
        matrix = np.ascontiguousarray(np.stack([docs[k].values for k in ks]), dtype=np.int64)
        members = c.band_json(matrix, len(ks), list(_BAND_FIELDS[:width]))
        for k, fields in zip(ks, members, strict=True):
            head = json.dumps(out[k], allow_nan=False)
            out[k] = EncodedJSON(f"{head[:-1]}, {fields}}}")
    return out


#: Each band field's band number (``lsh_b07`` -> 7).
_BAND_OF = {band_field(b): b for b in range(MAX_BANDS)}


def keys_of(doc: dict[str, Any]) -> list[str]:
    """A record's band keys, in band order: its stored strings (format 2), else its band
    fields' values (read as ``fl=lsh_b*``; :func:`value_key` inlined, 40 keys a record).

    >>> keys_of({"id": "1", "lsh_b01": -1, "lsh_b00": 255})
    ['b00_00000000000000ff', 'b01_ffffffffffffffff']
    """
    if "content_lsh" in doc:
        return list(doc["content_lsh"])
    bands = sorted((_BAND_OF[f], v) for f, v in doc.items() if f in _BAND_OF)
    return [f"b{b:02d}_{int(v) & 0xFFFF_FFFF_FFFF_FFFF:016x}" for b, v in bands]


def _text(doc: dict[str, Any]) -> str:
    """A record's text as written (``raw``), else its normalized text (``content``) where a
    record holds only that."""
    return str(doc.get("raw") or doc.get("content") or "")


def _record(doc: dict[str, Any]) -> StoredRecord:
    return StoredRecord(doc["id"], _text(doc), keys_of(doc))


def _member_pairs(
    solr: Solr, fld: str, values: Sequence[str], rows: int
) -> tuple[list[Any], list[str]]:
    """The band value and the id of every record whose band field ``fld`` holds one of
    ``values``, as two lists, unsorted (a constant score: index order; sorting by id cost 40%
    more, and the order of a bucket's members does not matter; ``_docid_`` fails on
    SolrCloud)."""
    params = terms_params(fld, list(values))
    params.update({"fl": f"id,{fld}", "rows": rows})
    held: list[Any] = []
    ids: list[str] = []
    got = 0
    while True:  # more members than counted only if records were added in between
        res = solr.select({**params, "start": got})["response"]
        docs = [d for d in res["docs"] if fld in d]
        held.extend([d[fld] for d in docs])
        ids.extend([d["id"] for d in docs])
        got += len(res["docs"])
        if not res["docs"] or got >= int(res["numFound"]):
            return held, ids


T = TypeVar("T")
R = TypeVar("R")


def search_fields(processor: ShingleProcessor, docs: Sequence[Document]) -> list[dict[str, Any]]:
    """The fields a short search looks up of each record (:data:`SEARCH_FIELDS`): in an index
    of word shingles its normalized text (``Document.content``: the words search counts),
    and, for single-word shingles, its prepared text; in one of character k-grams, its
    prepared text (:data:`CHAR_FIELDS`, or :data:`WHOLE_FIELD` when shorter than a k-gram);
    with how many distinct shingles it has where Solr can count its Jaccard. None for
    k-grams the configset has no field for: a search of their index reads every record."""
    if processor.kind == "word" and processor.size != 1:
        return [{WORDS_FIELD: d.content} for d in docs]
    if processor.kind != "word" and processor.size not in CHAR_FIELDS:
        return [{} for _ in docs]
    missing = [d.text for d in docs if d.prepared is None]
    made = iter(processor.prepared(missing) if missing else [])
    prepared = [d.prepared if d.prepared is not None else next(made) for d in docs]
    if kernel.active() == "c":  # distinct shingles counted as the kernel hashes them
        counts = np.diff(processor.shingle_hashes(prepared, ready=True)[1]).tolist()
    else:
        counts = [len(processor.shingle_set(p, prepared=True)) for p in prepared]
    if processor.kind == "word":
        out: list[dict[str, Any]] = []
        for d, p, n in zip(docs, prepared, counts, strict=True):
            fields: dict[str, Any] = {WORDS_FIELD: d.content, SHINGLES_COUNT_FIELD: n}
            if p != d.content:
                words, shingles = set(d.content.split()), set(p.split())
                fields[SHINGLES_FIELD] = " ".join(sorted(shingles - words))
                fields[UNSHINGLED_FIELD] = " ".join(sorted(words - shingles))
            out.append(fields)
        return out
    grams, size = CHAR_FIELDS[processor.size], processor.size
    return [
        {WHOLE_FIELD if len(p) < size else grams: p, SHINGLES_COUNT_FIELD: n}
        for p, n in zip(prepared, counts, strict=True)
    ]


def _term_field(processor: ShingleProcessor, term: str, fld: str) -> str:
    """The field a search term is looked up in: ``fld`` (a word field), or in an index of
    character k-grams the k-gram field, :data:`WHOLE_FIELD` for a term shorter than a k-gram."""
    if processor.kind == "word":
        return fld
    return WHOLE_FIELD if len(term) < processor.size else CHAR_FIELDS[processor.size]


def _searchable(terms: Sequence[str]) -> bool:
    """Whether the search fields can hold every one of ``terms``: no space, and no longer than
    their length filter keeps (:data:`MAX_SEARCH_WORD`, in UTF-16 units as Lucene counts)."""
    return all(
        t and " " not in t and len(t.encode("utf-16-le")) <= 2 * MAX_SEARCH_WORD for t in terms
    )


def _count_params(
    prefix: str, terms: Sequence[str], field_of: Callable[[str], str]
) -> tuple[str, dict[str, Any]]:
    """The clauses and parameters of a query whose score is how many of ``terms`` a record
    holds: one constant-score ``{!terms}`` clause per term (a term query's score would weigh
    it), to be OR-ed by ``{!bool <clauses>}``; that query is also ``$<prefix>.q``. Each term
    is a parameter of its own, split by a separator it does not hold: never parsed as
    syntax."""
    params: dict[str, Any] = {f"{prefix}.sep": _separator(terms)}
    clauses = []
    for i, term in enumerate(terms):
        params[f"{prefix}.v{i}"] = term
        params[f"{prefix}.c{i}"] = (
            f"{{!terms f={field_of(term)} separator=${prefix}.sep v=${prefix}.v{i}}}"
        )
        clauses.append(f"should=${prefix}.c{i}")
    should = " ".join(clauses)
    params[f"{prefix}.q"] = f"{{!bool {should}}}"
    return should, params


def concurrently(solr: Solr, work: Callable[[Solr, T], R], items: Sequence[T]) -> Iterator[R]:
    """``work(client, item)`` for every item, :data:`MEMBER_THREADS` requests at a time, each
    thread on a client (a session) of its own; the results in the items' order, so a report
    is the same every time. Why: Solr answers one request while the client parses the last
    (10M records: a band's members took 5.7 s one request at a time)."""
    local = threading.local()

    def run(item: T) -> R:
        if not hasattr(local, "solr"):
            local.solr = solr.clone()
        return work(local.solr, item)

    with ThreadPoolExecutor(MEMBER_THREADS, thread_name_prefix="neardup-solr") as pool:
        yield from pool.map(run, items)


class SolrBackend:
    """One Solr collection as a neardup index.

    Give it a :class:`~neardup.solr.client.Solr` (``neardup.solr.connect(url)`` makes one and
    creates the collection from neardup's configset), or open the index with
    :meth:`NearDupIndex.open <neardup.index.NearDupIndex.open>`.
    """

    #: Persistent; a Solr collection that describes itself and answers queries of its own;
    #: its search terms looked up (:meth:`holding`). Signatures are not stored (128 values a
    #: record would double what Solr indexes): a report signs the texts it reads again.
    capabilities = frozenset({
        Capability.PERSISTENT, Capability.TERM_LOOKUP, Capability.SOLR_QUERIES,
        Capability.COLLECTION_INFO,
    })  # fmt: skip
    #: Solr indexes one update request on one thread: two requests use two cores.
    max_writers = 64

    def __init__(self, solr: Solr, candidate_rows: int = CANDIDATE_ROWS) -> None:
        self.solr = solr
        #: Candidates of one neighbours/query lookup read per request.
        self.candidate_rows = candidate_rows
        self._numeric: bool | None = None
        self._strings: bool | None = None
        self._has_terms: bool | None = None
        self._processor: tuple[ShingleProcessor | None] | None = None
        self._shards: tuple[list[Solr]] | None = None
        self._newest = NewestBatch()

    @property
    def strings(self) -> bool:
        """Whether records are written with their keys also as stored strings: in an index of
        format 2 (the neardup that made it reads them), of a plug-in that asks for them
        (``key_strings`` of :class:`neardup.extra_fields.ExtraFields`), or with string band fields;
        asked of the stored parameters once they exist."""
        if self._strings is None:
            stored = self.load_params()
            if stored is None:  # no parameters yet: written as every reader can read them
                return True
            self._strings = (
                not self.numeric
                or int(stored.get("format", 0)) < 3
                or any(plugin.key_strings for plugin in extra_fields.loaded(stored))
            )
        return self._strings

    @property
    def key_strings(self) -> bool:
        """Whether documents are written with their keys as strings (stored ones, or string
        band fields): else the band fields' values are all that is read of them."""
        return self.strings or not self.numeric

    @property
    def numeric(self) -> bool:
        """Whether the band fields are longs (this configset) or strings (collections made
        before it); asked of the schema once."""
        if self._numeric is None:
            got = self.solr.request("GET", "schema/dynamicfields/lsh_b*")
            self._numeric = got.get("dynamicField", {}).get("type") != "string"
        return self._numeric

    @property
    def has_terms(self) -> bool:
        """Whether the collection has the search terms' fields (collections made before it
        have not: a short search reads every record of them); asked of the schema once."""
        if self._has_terms is None:
            # the list of fields, not the field itself: Solr answers a missing one with a 404
            got = self.solr.request("GET", "schema/fields")
            names = {f.get("name") for f in got.get("fields", [])}
            self._has_terms = all(f in names for f in SEARCH_FIELDS)
        return self._has_terms

    @property
    def shard_cores(self) -> list[Solr] | None:
        """A client on a replica of each shard, where the collection is a SolrCloud one of
        several shards that can be read one by one from here (:func:`shard_cores`); asked of
        the cluster once."""
        if self._shards is None:
            self._shards = (shard_cores(self.solr) or [],)
        return self._shards[0] or None

    @property
    def searcher(self) -> ShingleProcessor | None:
        """The processor of the index's stored parameters, which makes the fields a short
        search looks up, if the collection has those fields and parameters are stored."""
        if self._processor is None and self.has_terms:
            stored = self.load_params()
            if stored is not None:
                self._processor = (Params.from_dict(stored).processor(),)
        return self._processor[0] if self._processor is not None else None

    def _value(self, key: str) -> str:
        """What a band field holds for ``key``, as query text."""
        return str(key_value(key)) if self.numeric else key

    def _key(self, fld: str, value: Any) -> str:
        """The band key of what band field ``fld`` holds."""
        return value_key(int(fld[len("lsh_b") :]), value) if self.numeric else str(value)

    @property
    def location(self) -> str:
        return self.solr.url

    def __repr__(self) -> str:
        return f"SolrBackend({self.solr.url!r})"

    # -- parameters -----------------------------------------------------------------------
    def load_params(self) -> dict[str, Any] | None:
        docs = self.solr.get([META_ID], fields="id,nd_params")
        if not docs or not docs[0].get("nd_params"):
            return None
        return dict(json.loads(docs[0]["nd_params"]))

    def store_params(self, stored: dict[str, Any]) -> dict[str, Any]:
        """Added only if no metadata document exists (Solr's optimistic concurrency:
        ``_version_: -1``), so that of two first-time writers one stores its parameters and
        the other gets an HTTP 409 and reads the winner's."""
        doc = {"id": META_ID, "nd_meta": "params", "nd_params": json.dumps(stored, sort_keys=True)}
        try:
            self.solr.add([{**doc, "_version_": -1}])
        except SolrRequestError as exc:
            if "HTTP 409" not in str(exc):
                raise
        else:
            self.solr.commit()
        self._strings = None  # the layout follows the stored parameters
        now = self.load_params()  # by real-time get: committed or not
        if now is None:
            raise SolrRequestError(f"the parameters could not be stored in {self.location}")
        return now

    # -- writes ---------------------------------------------------------------------------
    def add(self, docs: Sequence[Document]) -> None:
        self.solr.add(encoded_documents(docs, self.numeric, self.strings, self.searcher))
        self._newest.saw(docs)

    def remove(self, ids: Sequence[str]) -> None:
        wanted = [i for i in ids if i != META_ID]
        for start in range(0, len(wanted), FETCH_BATCH):
            self.solr.delete_ids(wanted[start : start + FETCH_BATCH])

    def commit(self) -> None:
        """The newest batch written noted on the metadata document, then a commit."""
        batch = self._newest.unnoted()
        if batch is not None:
            self._note_batch(batch)
        self.solr.commit()

    def _note_batch(self, batch: int) -> None:
        """``batch`` set on the metadata document unless it says a newer one: an atomic
        update of the version read (optimistic concurrency), so that of two writers the
        newest batch stays and a metadata document never comes without its parameters."""
        for _ in range(NOTE_TRIES):
            got = self.solr.get([META_ID], fields=f"id,_version_,{WRITTEN_FIELD}")
            if not got:  # no parameters stored: no record was written either
                return
            if int(got[0].get(WRITTEN_FIELD, 0)) >= batch:
                break
            version = got[0]["_version_"]
            update = {"id": META_ID, WRITTEN_FIELD: {"set": batch}, "_version_": version}
            try:
                self.solr.add([update])
            except SolrRequestError as exc:
                if "HTTP 409" not in str(exc):
                    raise
                continue  # another writer changed it since: read it again
            break
        else:
            return  # noted at the next commit
        self._newest.noted(batch)

    def clone(self) -> SolrBackend:
        other = SolrBackend(self.solr.clone(), self.candidate_rows)
        other._newest = self._newest  # a clone's records are committed by another handle
        other._numeric, other._strings = self._numeric, self._strings
        other._has_terms, other._processor = self._has_terms, self._processor
        return other

    # -- reads ----------------------------------------------------------------------------
    def count(self) -> int:
        return self.solr.count(fq=[RECORDS_FQ])

    def shared_keys(self, band: int) -> list[tuple[str, int]]:
        """``(key, records)`` of every bucket of one band that holds two or more records."""
        fld = band_field(band)
        return [(self._key(fld, v), c) for v, c in self._shared_values(fld)]

    def _shared_values(self, fld: str) -> list[tuple[str, int]]:
        """``(value, records)`` of the band field's values held by two or more records, as
        the field holds them (query text). A classic field facet with its counts as one flat
        list: on 10M records 2.6 s in Solr and 0.4 s to read, where a JSON facet took 3.2 s
        and 0.8 s (a dict per bucket)."""
        res = self.solr.select(
            {
                "q": "*:*",
                "fq": RECORDS_FQ,
                "rows": 0,
                "facet": "true",
                "facet.field": fld,
                "facet.mincount": 2,
                "facet.limit": -1,
                "facet.sort": "index",
                "json.nl": "flat",
            }
        )
        flat = res.get("facet_counts", {}).get("facet_fields", {}).get(fld, [])
        return list(zip(map(str, flat[0::2]), map(int, flat[1::2]), strict=True))

    def buckets(self, band: int) -> Iterator[list[str]]:
        """Two steps, neither of them per bucket: the shared values of the band, then the
        members of many buckets at once with their value, grouped here by sorting the values
        (a dict of lists cost 1 us a membership, 4 s for 100k short records)."""
        fld = band_field(band)
        shared = self._shared_values(fld)
        held, ids = self._members(fld, [v for v, _ in shared], sum(c for _, c in shared))
        if not ids:
            return
        values = np.array(held)  # longs; strings in collections made before the longs
        order = np.argsort(values, kind="stable")
        ranked = values[order]
        starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]]).tolist()
        ends = [*starts[1:], len(ids)]
        ordered = [ids[k] for k in order.tolist()]
        for lo, hi in zip(starts, ends, strict=True):
            if hi - lo > 1:
                yield ordered[lo:hi]

    def _members(
        self, fld: str, values: Sequence[str], expected: int = 0
    ) -> tuple[list[Any], list[str]]:
        """The band values and ids of one band field's ``values``' members,
        :data:`MEMBERS_BATCH` values a request, :data:`MEMBER_THREADS` requests at a time:
        Solr answers one while the client reads the last (10M records: a band's members in
        5.7 s one at a time)."""
        chunks = [values[lo : lo + MEMBERS_BATCH] for lo in range(0, len(values), MEMBERS_BATCH)]
        rows = expected if expected else CANDIDATE_ROWS
        held: list[Any] = []
        ids: list[str] = []

        def fetch(solr: Solr, chunk: Sequence[str]) -> tuple[list[Any], list[str]]:
            return _member_pairs(solr, fld, chunk, rows)

        for got_held, got_ids in concurrently(self.solr, fetch, chunks):
            held.extend(got_held)
            ids.extend(got_ids)
        return held, ids

    def members(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """The members of every key's bucket: a ``{!terms}`` query per band field (of many
        keys, in requests of :data:`MEMBERS_BATCH`), :data:`MEMBER_THREADS` at a time, each
        answering only its own field's value for each member.

        Why per field: one query OR-ing every field answered each member with all 40 of its
        band values, and the members of 1,000 new records' buckets in an index of 1M short
        records (100k of them) took 6.4 s; field by field the answer is a fortieth as long."""
        by_field = self._by_field(keys)
        if not by_field:
            return {}
        numeric = self.numeric
        work: list[tuple[str, list[str], dict[Any, str]]] = []
        for fld, wanted in sorted(by_field.items()):
            back = {key_value(k) if numeric else k: k for k in wanted}
            values = [self._value(k) for k in wanted]
            work += [
                (fld, values[lo : lo + MEMBERS_BATCH], back)
                for lo in range(0, len(values), MEMBERS_BATCH)
            ]

        def fetch(
            solr: Solr, item: tuple[str, list[str], dict[Any, str]]
        ) -> list[tuple[str, str]]:
            fld, values, back = item
            held, ids = _member_pairs(solr, fld, values, TEXT_ROWS)
            return [(back[v], i) for v, i in zip(held, ids, strict=True) if v in back]

        out: dict[str, list[str]] = {}
        for found in concurrently(self.solr, fetch, work):
            for key, rid in found:
                out.setdefault(key, []).append(rid)
        for ids in out.values():
            ids.sort()  # id order, as a query sorted by id gave them
        return out

    def _by_field(self, keys: Sequence[str]) -> dict[str, list[str]]:
        by_field: dict[str, list[str]] = {}
        for key in sorted(set(keys)):
            by_field.setdefault(key_field(key), []).append(key)
        return by_field

    def key_counts(self, keys: Sequence[str]) -> dict[str, int]:
        """One request: per band field, a terms facet over the records holding its keys (each
        record holds one key a band, so the facet counts exactly those keys)."""
        by_field = self._by_field(keys)
        if not by_field:
            return {}
        params: dict[str, str] = {}
        facet: dict[str, Any] = {}
        fields = sorted(by_field)
        for n, fld in enumerate(fields):
            one = terms_params(fld, [self._value(k) for k in by_field[fld]], prefix=f"nd{n}")
            params[f"nd{n}.q"] = one.pop("q")
            params.update(one)
            facet[f"f{n}"] = {
                "type": "terms",
                "field": fld,
                "mincount": 2,
                "limit": -1,
                "numBuckets": False,
                "domain": {"filter": {"param": f"nd{n}.q"}},
            }
        res = self.solr.select(
            {"q": "*:*", "fq": RECORDS_FQ, "rows": 0, "json.facet": json.dumps(facet), **params}
        )
        out: dict[str, int] = {}
        for n, fld in enumerate(fields):
            for b in res.get("facets", {}).get(f"f{n}", {}).get("buckets", []):
                out[self._key(fld, b["val"])] = int(b["count"])
        return out

    def holding_two(self, groups: Sequence[Sequence[str]]) -> dict[str, list[str]]:
        """A ``{!bool mm=2}`` of ``{!term}`` queries per group, :data:`TWO_GROUPS` groups OR-ed
        in a request, :data:`MEMBER_THREADS` requests at a time; each record comes with the
        keys of the groups it holds (what :func:`~neardup.candidates.buckets.fresh_candidates`
        reads), not with all of its keys (few records: two shared bands are rare)."""
        numeric = self.numeric

        def fetch(solr: Solr, chunk: Sequence[Sequence[str]]) -> list[tuple[str, set[str]]]:
            params: dict[str, str] = {}
            outer = []
            lookup: dict[tuple[str, Any], str] = {}
            for g, group in enumerate(chunk):
                inner = []
                for t, key in enumerate(group):
                    fld = key_field(key)
                    lookup[(fld, key_value(key) if numeric else key)] = key
                    params[f"g{g}v{t}"] = self._value(key)
                    params[f"g{g}q{t}"] = f"{{!term f={fld} v=$g{g}v{t}}}"
                    inner.append(f"should=$g{g}q{t}")
                params[f"g{g}"] = f"{{!bool mm=2 {' '.join(inner)}}}"
                outer.append(f"should=$g{g}")
            params["q"] = f"{{!bool {' '.join(outer)}}}"
            fields = ",".join(sorted({f for f, _ in lookup}))
            got = []
            for doc in solr.iter_docs(f"id,{fields}", rows=CANDIDATE_ROWS, params=params):
                held = {lookup[fv] for fv in doc.items() if fv in lookup}
                for group in chunk:  # the keys of each group it holds two of
                    mine = held.intersection(group)
                    if len(mine) >= 2:
                        got.append((doc["id"], mine))
            return got

        chunks = [groups[lo : lo + TWO_GROUPS] for lo in range(0, len(groups), TWO_GROUPS)]
        held: dict[str, set[str]] = {}
        for got in concurrently(self.solr, fetch, chunks):
            for rid, keys in got:
                held.setdefault(rid, set()).update(keys)
        return {rid: sorted(keys) for rid, keys in held.items()}

    def records_since(self, batch: int) -> Iterator[StoredRecord]:
        fq = [RECORDS_FQ, f"{BATCH_FIELD}:[{int(batch)} TO *]"]
        for doc in self.solr.iter_docs(RECORD_FIELDS, fq=fq):
            yield _record(doc)

    def last_batch(self) -> int | None:
        params = {"q": "*:*", "fq": RECORDS_FQ, "rows": 1, "fl": BATCH_FIELD}
        res = self.solr.select({**params, "sort": f"{BATCH_FIELD} desc"})["response"]["docs"]
        return int(res[0][BATCH_FIELD]) if res and BATCH_FIELD in res[0] else None

    def batch_records(self, batch: int) -> int:
        return int(self.solr.count(fq=[RECORDS_FQ, f"{BATCH_FIELD}:{int(batch)}"]))

    def written_batch(self) -> int | None:
        got = self.solr.get([META_ID], fields=f"id,{WRITTEN_FIELD}")
        return int(got[0][WRITTEN_FIELD]) if got and WRITTEN_FIELD in got[0] else None

    def source_records(self, source: str) -> int:
        """A ``{!term}`` query, the name passed by reference: any character is the name's."""
        query = {"q": f"{{!term f={SOURCE_FIELD} v=$src}}", "src": source, "fq": RECORDS_FQ,
                 "rows": 0}  # fmt: skip
        return int(self.solr.select(query)["response"]["numFound"])

    def texts(self, ids: Sequence[str]) -> dict[str, str]:
        """By terms queries of :data:`FETCH_BATCH` ids."""
        return {d["id"]: _record(d).text for d in self._fetch(ids, "id,content,raw")}

    def sources(self, ids: Sequence[str]) -> dict[str, str]:
        docs = self._fetch(ids, f"id,{SOURCE_FIELD}")
        return {d["id"]: str(d.get(SOURCE_FIELD, "")) for d in docs}

    def columns(self, ids: Sequence[str]) -> dict[str, dict[str, str]]:
        docs = self._fetch(ids, f"id,{COLUMNS_FIELD}")
        return {d["id"]: dict(json.loads(d[COLUMNS_FIELD])) for d in docs if d.get(COLUMNS_FIELD)}

    def _fetch(self, ids: Sequence[str], fields: str) -> Iterator[dict[str, Any]]:
        """The documents of ``ids``: terms queries of :data:`FETCH_BATCH` ids,
        :data:`MEMBER_THREADS` at a time (Solr answers one while the client parses the last:
        the texts of 49k candidates of 1,000 new records took 1.2 s one at a time)."""
        wanted = list(ids)
        chunks = [wanted[lo : lo + FETCH_BATCH] for lo in range(0, len(wanted), FETCH_BATCH)]

        def fetch(solr: Solr, chunk: list[str]) -> list[dict[str, Any]]:
            params = terms_params("id", chunk)
            params.update({"fl": fields, "rows": len(chunk)})
            return list(solr.select(params)["response"]["docs"])

        if len(chunks) == 1:  # no thread for one request
            yield from fetch(self.solr, chunks[0])
            return
        for docs in concurrently(self.solr, fetch, chunks):
            yield from docs

    def get(self, record_id: str) -> StoredRecord | None:
        """By real-time get: sees what was added and not yet committed."""
        if record_id == META_ID:
            return None
        docs = self.solr.get([record_id], fields=RECORD_FIELDS)
        return _record(docs[0]) if docs else None

    def sharing(self, keys: Sequence[str]) -> Iterator[StoredRecord]:
        """One ``{!term}`` clause per band field, OR-ed; pages of ``candidate_rows``."""
        unique = sorted(set(keys))
        if not unique:
            return
        params = any_term_params([(key_field(key), self._value(key)) for key in unique])
        for doc in self.solr.iter_docs(RECORD_FIELDS, rows=self.candidate_rows, params=params):
            yield _record(doc)

    def holding(
        self, wanted: Sequence[str], whole: Sequence[str] | None, k: int, least: int
    ) -> list[StoredRecord] | None:
        """See :meth:`~neardup.backends.base.TermSearch.holding`: up to three requests. The first
        ranks the records that hold ``least`` of ``wanted`` (:func:`_term_field`) by how many they
        hold (one constant-score clause a term, so the score is the count, and Lucene skips what
        cannot reach the top ``k``): the ``k``-th holds ``c``. The second ranks those holding
        ``c`` or more by two per term held plus their Jaccard similarity with ``whole`` (a
        function of how many of its shingles they hold, :data:`SHINGLES_FIELD`, and
        :data:`SHINGLES_COUNT_FIELD`), where the index's shingles are single words; the third
        reads every record within :data:`SOLR_TIE` of the ``k``-th's rank. Every term travels in
        a parameter of its own, never parsed as syntax. None where the fields cannot answer: a
        collection without them, an index of character k-grams without a field (past
        :data:`CHAR_FIELDS`), a query of more than
        :data:`MAX_SEARCH_TERMS` terms or of a word longer than the fields keep."""
        processor = self.searcher
        if processor is None or (processor.kind != "word" and processor.size not in CHAR_FIELDS):
            return None
        if processor.kind == "word" and processor.size != 1:  # shingles are not single words
            whole = None
        if max(len(wanted), len(whole or ())) > MAX_SEARCH_TERMS:
            return None
        if processor.kind == "word" and not (_searchable(wanted) and _searchable(whole or ())):
            return None
        if not wanted:
            return []
        should, params = _count_params(
            "w", wanted, functools.partial(_term_field, processor, fld=WORDS_FIELD)
        )
        top = self.solr.select(
            {"q": f"{{!bool {should} mm={least}}}", **params, "fl": f"{RECORD_FIELDS},score",
             "rows": k, "minExactCount": k}
        )["response"]["docs"]  # fmt: skip
        if len(top) < k:
            return [_record(doc) for doc in top]
        most = round(float(top[-1]["score"]))
        query = {"q": f"{{!bool {should} mm={most}}}", **params}
        fq: list[str] = []
        if not whole:  # every record holding as many terms as the k-th
            read = query
        else:
            field_of = functools.partial(_term_field, processor)
            of_whole = _count_params("a", whole, functools.partial(field_of, fld=WORDS_FIELD))[1]
            held = "def(query($a.q),0)"  # a value for records holding none, too
            if processor.kind == "word":  # the shingles: the words, less and plus the others
                for prefix, fld in (("x", SHINGLES_FIELD), ("u", UNSHINGLED_FIELD)):
                    of_whole.update(_count_params(prefix, whole, lambda _, f=fld: f)[1])
                held = f"sub(sum({held},def(query($x.q),0)),def(query($u.q),0))"
            jaccard = f"div({held},sub(sum({len(whole)},field({SHINGLES_COUNT_FIELD})),{held}))"
            rank = f"sum(product(2,query($w.q)),{jaccard})"
            ranked = {**query, **of_whole, "rank": rank, "sort": f"{rank} desc,id asc"}
            kth = self.solr.select({**ranked, "fl": f"{RECORD_FIELDS},nd_rank:{rank}", "rows": k})
            docs = kth["response"]["docs"]
            if int(kth["response"]["numFound"]) <= k:
                return [_record(doc) for doc in docs]
            at = float(docs[-1]["nd_rank"])
            lowest = at - SOLR_TIE * (1 + abs(at))
            read = {**query, **of_whole, "rank": rank}
            fq = [f"{{!frange l={lowest!r} cache=false cost=200 v=$rank}}"]
        pages = self.solr.iter_docs(RECORD_FIELDS, fq=fq, rows=self.candidate_rows, params=read)
        return [_record(doc) for doc in pages]

    def records(self) -> Iterator[StoredRecord]:
        for doc in self.solr.iter_docs(RECORD_FIELDS, fq=[RECORDS_FQ]):
            yield _record(doc)

    def some_texts(self, n: int) -> list[str]:
        """One page of ``n`` records (not the cursors of :meth:`all_texts`, which read ahead
        pages of :data:`TEXT_ROWS`)."""
        params = {"fq": RECORDS_FQ, "fl": "raw,content", "rows": n}
        return [_text(doc) for doc in self.solr.select(params)["response"]["docs"]]

    def all_texts(self) -> Iterator[tuple[str, str]]:
        """Every record's id and text, by :data:`TEXT_PARTS` cursors side by side (pages of
        :data:`TEXT_ROWS`; one part more each :data:`PART_RECORDS` records), the next pages
        read while the caller works on this one."""
        parts = max(TEXT_PARTS, -(-self.count() // PART_RECORDS))
        pages = self.solr.iter_docs(
            "id,raw,content", fq=[RECORDS_FQ], rows=TEXT_ROWS, ahead=True, parts=parts,
            cores=self.shard_cores, side_by_side=TEXT_PARTS,
        )  # fmt: skip
        for doc in pages:  # without _record's keys: the page holds none
            yield doc["id"], _text(doc)
