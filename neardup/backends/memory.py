"""Records and band keys in Python dictionaries: no Java, no Solr, nothing persisted.

For tests, notebooks and small jobs; it gives the same pairs as the Solr backend for the same
parameters, because :class:`~neardup.index.NearDupIndex` does the rest the same way on both.
"""

from __future__ import annotations

import collections
import copy
import functools
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..keys import id_key
from ..params import Params
from ..sign.banding import band_keys_batch
from .base import Capability, Document, StoredRecord, search_terms

#: Segments of a search lookup at most: past it they are merged into one (each search reads
#: every segment's postings, and a merge sorts every posting again).
SEGMENTS = 8
#: Within this much of the ``k``-th record's Jaccard similarity a record is tied with it:
#: the search rounds similarities to six places, numpy may round the last one otherwise.
TIE = 2e-6
#: Ordinals of records, postings of terms.
Ordinals = NDArray[np.int64]


class TermLookup:
    """Records' search terms inverted (term -> the records that hold it), so that a short
    search counts the terms each record holds from the postings of its own few terms instead
    of reading every record. Built in segments, like Lucene's: records added since the last
    search become a segment of their own (no re-sort of every posting after one add), and
    the segments are merged into one past :data:`SEGMENTS`. A record replaced or removed is
    only marked dead; a merge drops its postings. Plain numpy: a search engine library
    (whoosh, tantivy) would keep the records' texts a second time and count no faster."""

    def __init__(self, terms_of: Callable[[str], frozenset[str]]) -> None:
        self.terms_of = terms_of
        self.vocab: dict[str, int] = {}
        #: ordinal -> record id (a replaced record gets a new ordinal, the old one dies).
        self.ids: list[str] = []
        self.ordinal: dict[str, int] = {}
        self.sizes = np.empty(0, dtype=np.int32)
        self.alive = np.empty(0, dtype=bool)
        #: Each segment's postings: ``(offsets, members)``, term ``t``'s records are
        #: ``members[offsets[t]:offsets[t + 1]]`` (terms past ``len(offsets) - 1`` came later).
        self.segments: list[tuple[Ordinals, NDArray[np.int32]]] = []
        self._terms = array("i")
        self._owners = array("i")
        self._sizes = array("i")
        self._dead: list[int] = []

    def add(self, records: Iterable[tuple[str, str]]) -> None:
        vocab, terms, owners, sizes = self.vocab, self._terms, self._owners, self._sizes
        for record_id, text in records:
            self.remove((record_id,))
            n = len(self.ids)
            self.ids.append(record_id)
            self.ordinal[record_id] = n
            held = self.terms_of(text)
            for term in held:
                t = vocab.get(term)
                if t is None:
                    t = vocab[term] = len(vocab)
                terms.append(t)
            owners.extend(array("i", [n]) * len(held))
            sizes.append(len(held))

    def remove(self, ids: Iterable[str]) -> None:
        for record_id in ids:
            n = self.ordinal.pop(record_id, None)
            if n is not None:
                self._dead.append(n)

    def _settle(self) -> None:
        """The records added since the last search as a segment; the dead marked."""
        if self._sizes:
            new = np.frombuffer(self._sizes, dtype=np.int32)
            self.sizes = np.concatenate([self.sizes, new])
            self.alive = np.concatenate([self.alive, np.ones(len(new), dtype=bool)])
            terms = np.frombuffer(self._terms, dtype=np.int32)
            owners = np.frombuffer(self._owners, dtype=np.int32)
            self.segments.append(_segment(terms, owners, len(self.vocab)))
            self._terms, self._owners, self._sizes = array("i"), array("i"), array("i")
        if self._dead:
            self.alive[self._dead] = False
            self._dead = []
        if len(self.segments) > SEGMENTS:
            self.segments = [self._merged()]

    def _merged(self) -> tuple[Ordinals, NDArray[np.int32]]:
        terms, owners = [], []
        for offsets, members in self.segments:
            terms.append(np.repeat(np.arange(len(offsets) - 1, dtype=np.int32), np.diff(offsets)))
            owners.append(members)
        all_terms, all_owners = np.concatenate(terms), np.concatenate(owners)
        live = self.alive[all_owners]
        return _segment(all_terms[live], all_owners[live], len(self.vocab))

    def _counts(self, terms: Iterable[str]) -> NDArray[np.intp]:
        """How many of ``terms`` (distinct) each ordinal holds."""
        wanted = [t for t in map(self.vocab.get, terms) if t is not None]
        runs = [
            members[offsets[t] : offsets[t + 1]]
            for offsets, members in self.segments
            for t in wanted
            if t < len(offsets) - 1
        ]
        held = np.concatenate(runs) if runs else np.empty(0, dtype=np.int32)
        return np.bincount(held, minlength=len(self.ids))

    def best(
        self, wanted: Sequence[str], whole: Sequence[str] | None, k: int, least: int
    ) -> list[str]:
        """The ids :meth:`MemoryBackend.holding` returns the records of."""
        self._settle()
        counts = self._counts(wanted)
        counts[~self.alive] = 0
        found = np.flatnonzero(counts >= max(least, 1))
        if len(found) > k:
            key = counts[found].astype(np.float64)
            tie = 0.0
            if whole is not None:  # two per term held, plus a Jaccard of at most one
                inter = self._counts(whole)[found]
                key = 2 * key + inter / (len(whole) + self.sizes[found] - inter)
                tie = TIE
            kth = -np.partition(-key, k - 1)[k - 1]
            found = found[key >= kth - tie]
        ids = self.ids
        return [ids[n] for n in found.tolist()]


def _segment(
    terms: NDArray[np.int32], owners: NDArray[np.int32], vocab: int
) -> tuple[Ordinals, NDArray[np.int32]]:
    """Postings sorted by term (owners in order within one: a stable sort)."""
    order = np.argsort(terms, kind="stable")
    offsets = np.zeros(vocab + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=vocab), out=offsets[1:])
    return offsets, owners[order]


#: Shingle hashes kept for a report's screen at most (the screen's own budget,
#: :data:`neardup.candidates.verify.SCREEN_HASH_BYTES`): 100k short records take 24 MB.
HASH_BYTES = 1 << 30


def band_of(key: str) -> int:
    """The band number of a band key (``b07_3f9c...`` -> 7)."""
    return int(key.partition("_")[0][1:])


class MemoryBackend:
    """An in-memory index.

    >>> from neardup import NearDupIndex
    >>> from neardup.backends.base import Capability
    >>> idx = NearDupIndex()            # a MemoryBackend by default
    >>> Capability.THREADS in idx.backend.capabilities
    True
    """

    #: Signed on every core (nothing else of the process works meanwhile); the signatures
    #: and search terms kept (:class:`~neardup.backends.base.SignatureStore`,
    #: :class:`~neardup.backends.base.TermSearch`); nothing persisted.
    capabilities = frozenset({Capability.THREADS, Capability.SIGNATURES, Capability.TERM_LOOKUP})
    max_writers = 1
    #: Records' keys are held as strings.
    key_strings = True

    def __init__(self) -> None:
        self._params: dict[str, Any] | None = None
        self._texts: dict[str, str] = {}
        self._sources: dict[str, str] = {}
        #: Records of each source, kept as they are written: a search names the primary source
        #: where another is held, and counting every record's source took a scan a search.
        self._per_source: collections.Counter[str] = collections.Counter()
        self._keys: dict[str, list[str]] = {}
        self._batch: dict[str, int] = {}
        #: The newest batch written, whether or not a record of it is held now.
        self._written = 0
        self._columns: dict[str, dict[str, str]] = {}
        self._bands: dict[int, dict[str, set[str]]] = {}
        #: Records written since the buckets were last brought up to date (:meth:`_buckets`).
        self._pending: list[tuple[str, list[str]]] = []
        #: The signatures of records stored with one (:attr:`Capability.SIGNATURES`), and of
        #: those whose keys are not made yet (:meth:`_keyed`). A record's keys are made from its
        #: signature when first needed: a report of every pair bands the signatures in numpy
        #: and never needs the keys (making them was a quarter of adding 100k short records),
        #: and it need not sign the texts again.
        self._sigs: dict[str, NDArray[np.uint32]] = {}
        self._unkeyed: dict[str, NDArray[np.uint32]] = {}
        #: The shingle hashes of records stored with them, while they take at most
        #: :data:`HASH_BYTES` (past it, none are kept: a report makes them again).
        self._hashes: dict[str, NDArray[np.uint32]] = {}
        self._hash_bytes: int | None = 0
        #: The records' search terms inverted, made by the first short search
        #: (:meth:`holding`) and kept up to date from then on.
        self._lookup: TermLookup | None = None
        #: Whether the lookup ranks by Jaccard too (the search terms are the shingles).
        self._counted = False

    @property
    def location(self) -> str:
        return "memory"

    def __repr__(self) -> str:
        return f"MemoryBackend({len(self._texts)} records)"

    def load_params(self) -> dict[str, Any] | None:
        return copy.deepcopy(self._params)

    def store_params(self, stored: dict[str, Any]) -> dict[str, Any]:
        if self._params is None:
            self._params = copy.deepcopy(stored)
        return copy.deepcopy(self._params)

    def add(self, docs: Sequence[Document]) -> None:
        """Stores the records; their keys are made and their buckets filled when first asked
        for (:meth:`_keyed`, :meth:`_buckets`): a report of every pair bands the signatures
        and never asks, and filling 40 buckets a record was 60% of adding 100k short records."""
        for doc in docs:
            if doc.id in self._texts:
                self._unlink(doc.id)
            self._texts[doc.id] = doc.text
            if doc.id in self._sources:
                self._per_source[self._sources[doc.id]] -= 1
            self._sources[doc.id] = doc.source
            self._per_source[doc.source] += 1
            self._keep_hashes(doc)
            if doc.signature is not None:
                self._sigs[doc.id] = self._unkeyed[doc.id] = doc.signature
                self._keys.pop(doc.id, None)
            else:
                self._sigs.pop(doc.id, None)
                keys = list(doc.keys)
                self._keys[doc.id] = keys
                self._pending.append((doc.id, keys))
            self._batch[doc.id] = doc.batch
            self._written = max(self._written, doc.batch)
            if doc.fields:
                self._columns[doc.id] = dict(doc.fields)
            else:
                self._columns.pop(doc.id, None)
        if self._lookup is not None:
            self._lookup.add((doc.id, doc.text) for doc in docs)

    def _keep_hashes(self, doc: Document) -> None:
        old = self._hashes.pop(doc.id, None)
        if self._hash_bytes is None:
            return
        if old is not None:
            self._hash_bytes -= old.nbytes
        if doc.hashes is None:
            return
        self._hash_bytes += doc.hashes.nbytes
        if self._hash_bytes > HASH_BYTES:  # too many to hold: a report makes them
            self._hashes.clear()
            self._hash_bytes = None
            return
        self._hashes[doc.id] = doc.hashes

    def shingle_hashes(
        self, ids: Sequence[str]
    ) -> tuple[NDArray[np.uint32], NDArray[np.int64]] | None:
        """The shingle hashes of ``ids`` as ``(values, offsets)``, if each was stored with them
        (and they took at most :data:`HASH_BYTES`); else None."""
        kept = self._hashes
        if self._hash_bytes is None or not all(i in kept for i in ids):
            return None
        runs = [kept[i] for i in ids]
        offsets = np.zeros(len(runs) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, runs), dtype=np.int64, count=len(runs)), out=offsets[1:])
        values = np.concatenate(runs) if runs else np.empty(0, dtype=np.uint32)
        return values, offsets

    def _keyed(self) -> dict[str, list[str]]:
        """Every record's keys, made for the records stored with a signature since the last
        call (in one :func:`~neardup.sign.banding.band_keys_batch`)."""
        if self._unkeyed:
            if self._params is None:
                raise RuntimeError("records were stored before the index's parameters")
            ids = list(self._unkeyed)
            sigs = np.stack(list(self._unkeyed.values()))
            made = band_keys_batch(sigs, int(self._params["bands"]), int(self._params["rows"]))
            for record_id, keys in zip(ids, made, strict=True):
                self._keys[record_id] = keys
                self._pending.append((record_id, keys))
            self._unkeyed = {}
        return self._keys

    def signatures(self) -> tuple[list[str], NDArray[np.uint32]] | None:
        """Every record's id (in :meth:`all_texts` order) and signature, if each was stored
        with one."""
        if not self._texts or len(self._sigs) != len(self._texts):
            return None
        ids = list(self._texts)
        return ids, np.stack([self._sigs[i] for i in ids])

    def _buckets(self) -> dict[int, dict[str, set[str]]]:
        """Each band's buckets (key -> ids), with the records written since the last call."""
        self._keyed()
        if self._pending:
            bands = self._bands
            for record_id, keys in self._pending:
                for key in keys:
                    bands.setdefault(band_of(key), {}).setdefault(key, set()).add(record_id)
            self._pending = []
        return self._bands

    def remove(self, ids: Sequence[str]) -> None:
        if self._lookup is not None:
            self._lookup.remove(ids)
        for record_id in ids:
            if record_id in self._texts:
                self._unlink(record_id)
                del self._texts[record_id]
                self._per_source[self._sources.pop(record_id)] -= 1
                self._keys.pop(record_id, None)
                self._sigs.pop(record_id, None)
                gone = self._hashes.pop(record_id, None)
                if gone is not None and self._hash_bytes is not None:
                    self._hash_bytes -= gone.nbytes
                del self._batch[record_id]
                self._columns.pop(record_id, None)

    def _unlink(self, record_id: str) -> None:
        if self._unkeyed.pop(record_id, None) is not None:
            return  # its keys were never made: it is in no bucket
        bands = self._buckets()
        for key in self._keys.get(record_id, []):
            band = bands[band_of(key)]
            members = band[key]
            members.discard(record_id)
            if not members:
                del band[key]

    def commit(self) -> None:
        """Nothing to do: a write is visible at once."""

    def count(self) -> int:
        return len(self._texts)

    def buckets(self, band: int) -> Iterator[list[str]]:
        for members in self._buckets().get(band, {}).values():
            if len(members) > 1:
                yield list(members)

    def texts(self, ids: Sequence[str]) -> dict[str, str]:
        return {i: self._texts[i] for i in ids if i in self._texts}

    def sources(self, ids: Sequence[str]) -> dict[str, str]:
        return {i: self._sources[i] for i in ids if i in self._sources}

    def columns(self, ids: Sequence[str]) -> dict[str, dict[str, str]]:
        return {i: dict(self._columns[i]) for i in ids if i in self._columns}

    def get(self, record_id: str) -> StoredRecord | None:
        if record_id not in self._texts:
            return None
        return StoredRecord(record_id, self._texts[record_id], list(self._keyed()[record_id]))

    def sharing(self, keys: Sequence[str]) -> Iterator[StoredRecord]:
        found: set[str] = set()
        for key in keys:
            found |= self._buckets().get(band_of(key), {}).get(key, set())
        for record_id in sorted(found, key=id_key):
            yield StoredRecord(record_id, self._texts[record_id], list(self._keyed()[record_id]))

    def all_texts(self) -> Iterator[tuple[str, str]]:
        """Every record's id and text."""
        yield from self._texts.items()

    def some_texts(self, n: int) -> list[str]:
        return list(islice(self._texts.values(), n))

    def records(self) -> Iterator[StoredRecord]:
        for record_id in sorted(self._texts, key=id_key):
            yield StoredRecord(record_id, self._texts[record_id], list(self._keyed()[record_id]))

    def members(self, keys: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for key in keys:
            found = self._buckets().get(band_of(key), {}).get(key)
            if found:
                out[key] = sorted(found, key=id_key)
        return out

    def key_counts(self, keys: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for key in keys:
            n = len(self._buckets().get(band_of(key), {}).get(key, ()))
            if n > 1:
                out[key] = n
        return out

    def holding_two(self, groups: Sequence[Sequence[str]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for group in groups:
            seen: dict[str, int] = {}
            for key in group:
                for rid in self._buckets().get(band_of(key), {}).get(key, ()):
                    seen[rid] = seen.get(rid, 0) + 1
            mine = set(group)
            for rid, n in seen.items():
                if n >= 2:
                    held = set(out.get(rid, ())) | {k for k in self._keyed()[rid] if k in mine}
                    out[rid] = sorted(held)
        return out

    def holding(
        self, wanted: Sequence[str], whole: Sequence[str] | None, k: int, least: int
    ) -> list[StoredRecord]:
        """See :meth:`~neardup.backends.base.TermSearch.holding`: from a :class:`TermLookup` of
        every record, made by the first call (the records' terms as the index's stored
        parameters make them). Ranked by Jaccard too where the search terms are the shingles
        themselves (character shingles, or single words not in canonical forms): the lookup
        counts both from the same postings."""
        if self._lookup is None:
            if self._params is None:
                return []  # no parameters: no records either
            processor = Params.from_dict(self._params).processor()
            self._lookup = TermLookup(functools.partial(search_terms, processor))
            self._lookup.add(self._texts.items())
            self._counted = processor.kind == "char" or (
                processor.size == 1 and not processor.canonical
            )
        found = self._lookup.best(wanted, whole if self._counted else None, k, least)
        return [StoredRecord(i, self._texts[i], keys) for i, keys in self._keys_of(found)]

    def _keys_of(self, ids: list[str]) -> Iterator[tuple[str, list[str]]]:
        """The keys of a few records, those not made yet made for them alone (banding every
        record stored since the last report would cost a first search seconds)."""
        unkeyed = [i for i in ids if i in self._unkeyed]
        made: dict[str, list[str]] = {}
        if unkeyed and self._params is not None:
            sigs = np.stack([self._unkeyed[i] for i in unkeyed])
            rows = band_keys_batch(sigs, int(self._params["bands"]), int(self._params["rows"]))
            made = dict(zip(unkeyed, rows, strict=True))
        for i in ids:
            yield i, list(made[i] if i in made else self._keys[i])

    def records_since(self, batch: int) -> Iterator[StoredRecord]:
        for record_id in sorted(self._texts, key=id_key):
            if self._batch[record_id] >= batch:
                keys = self._keyed()[record_id]
                yield StoredRecord(record_id, self._texts[record_id], list(keys))

    def last_batch(self) -> int | None:
        return max(self._batch.values(), default=None)

    def batch_records(self, batch: int) -> int:
        return sum(1 for b in self._batch.values() if b == batch)

    def written_batch(self) -> int | None:
        return self._written or None

    def source_records(self, source: str) -> int:
        return self._per_source[source]

    def clone(self) -> MemoryBackend:
        return self
