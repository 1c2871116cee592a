"""The storage protocol every backend implements, and the capabilities some declare.

As datasketch's ``Storage``: a few members every backend must have (:class:`Storage`), what
the core needs of records and band keys; what only some backends do (keep signatures, look
search terms up, answer Solr queries, ...) is a :class:`Capability` a backend declares in
``capabilities``, and the core asks for it there, never for a backend's class or name.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..sign.minhash import ShingleProcessor
    from ..solr.client import Solr


@dataclass(frozen=True)
class Document:
    """A record ready to store: its id, its text as written and normalized, its LSH band keys
    (one per band, ``b07_3f9c...``), and in ``extra`` the fields of the plug-ins its index's
    parameters turn on (:mod:`neardup.extra_fields`), stored as they are."""

    id: str
    text: str
    content: str
    keys: list[str]
    extra: dict[str, Any] = field(default_factory=dict)
    #: Where the record comes from (a file, or a source named by the caller): link mode pairs
    #: only records of different sources.
    source: str = ""
    #: The write (``add_many`` call, ``neardup index`` run) that stored it: a report of only
    #: the pairs of new records starts from the records of a batch.
    batch: int = 0
    #: The record's columns, when it has two or more (:mod:`neardup.decision.columns` compares
    #: them).
    fields: dict[str, str] = field(default_factory=dict)
    #: The band keys as the 64-bit values a Solr index's band fields hold (signed), made
    #: instead of ``keys`` for a backend that does not read strings (:attr:`Storage.key_strings`):
    #: 40 strings a record made and parsed again were a third of indexing's Python time.
    #: A list of ints, or a row of int64 (what
    #: :func:`neardup.candidates.documents.documents` makes).
    values: Any = field(default_factory=list)
    #: The record's MinHash signature, given instead of keys and values to a backend that keeps
    #: signatures (:attr:`Capability.SIGNATURES`) and makes the keys from it when asked.
    signature: Any = None
    #: The record's sorted distinct shingle hashes (uint32), given with its signature to a
    #: backend that keeps signatures: the screen of a report compares them.
    hashes: Any = None
    #: The text as :meth:`~neardup.sign.minhash.ShingleProcessor.prepare` makes it, where it
    #: was made to sign the record (the C kernel's path): a backend that stores it (Solr's
    #: search fields) need not prepare the record a second time. None: not made.
    prepared: str | None = None


@dataclass(frozen=True)
class StoredRecord:
    """A record as a backend gives it back."""

    id: str
    text: str
    keys: list[str]


def search_terms(processor: ShingleProcessor, text: str) -> frozenset[str]:
    """What a short search looks up of a record (``NearDupIndex.search``): its words when the
    index shingles words, else its character shingles. One definition for the search's
    scoring and for the lookups the backends keep, so that both count the same terms."""
    if processor.kind == "word":
        return frozenset(processor.words(text))
    return processor.shingle_set(text)


def held_share(processor: ShingleProcessor, mine: frozenset[str]) -> Callable[[str], float]:
    """How to score a record by a short search: the share of the query's terms ``mine`` that
    :func:`search_terms` of the record holds, without making them all. Character shingles of
    the query's words hold no space, so each is in a record's shingles exactly when it is in
    the prepared text (a text shorter than a shingle is one shingle: itself); a scan of every
    record asks this once a record."""
    n = len(mine) or 1
    if processor.kind == "word":
        return lambda text: len(mine.intersection(processor.words(text))) / n
    size = processor.size
    grams = [g for g in mine if len(g) == size]
    # a query word shorter than a shingle (NY, LA, a CJK character) is its own term: held where
    # the record has it as a word (within a CJK text, which words split by character)
    short = [g for g in mine if len(g) < size]

    def share(text: str) -> float:
        prepared = processor.prepare(text)
        if len(prepared) < size:
            return float(prepared in mine) / n if prepared else 0.0
        held = sum(g in prepared for g in grams)
        if short:
            words = set(prepared.split())
            held += sum(g in words or (not g.isascii() and g in prepared) for g in short)
        return held / n

    return share


class Capability(enum.Enum):
    """What a backend offers beyond :class:`Storage`, declared in its ``capabilities``.

    Why declared rather than told by the backend's class or a name: the core asks what it
    needs ("may signing use threads here?"), so a third backend says what it can and no
    module has to know the first two. Each capability with members of its own has a protocol
    of them (:class:`SignatureStore`, :class:`TermSearch`, :class:`SolrStore`); a test holds
    that every backend that declares one implements it.
    """

    #: The records outlive the process: a second handle on the same storage sees them.
    PERSISTENT = "persistent"
    #: Signing may use every core of this process: the backend does its work in the
    #: caller's thread (a Solr node on the same machine indexes on the other cores).
    THREADS = "threads"
    #: It keeps the signatures and shingle hashes it is given (:class:`SignatureStore`), so
    #: that a report need not sign every text again.
    SIGNATURES = "signatures"
    #: It looks a short search's terms up (:class:`TermSearch`) instead of the search
    #: reading every record.
    TERM_LOOKUP = "term lookup"
    #: It is a Solr collection with neardup's configset, whose client answers queries of
    #: their own (:class:`SolrStore`): the 2014 design's, a temporary collection's deletion.
    SOLR_QUERIES = "solr queries"
    #: :func:`neardup.collection.describe` answers for it (records, sources, batches): the
    #: CLI names the sources a collection holds from it.
    COLLECTION_INFO = "collection info"



class NewestBatch:
    """The newest batch a backend's handles wrote records of (a backend and its clones share
    one: any of them may send a batch's records and another commit it), and the newest the
    index's metadata says: what a commit notes (:meth:`Storage.written_batch`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wrote = 0
        self._noted = 0

    def saw(self, docs: Sequence[Document]) -> None:
        """Documents on their way to the index."""
        newest = max((d.batch for d in docs), default=0)
        with self._lock:
            self._wrote = max(self._wrote, newest)

    def unnoted(self) -> int | None:
        """The newest batch written that the metadata may not say yet (None: nothing to note)."""
        with self._lock:
            return self._wrote if self._wrote > self._noted else None

    def noted(self, batch: int) -> None:
        """The metadata says ``batch`` or a newer one."""
        with self._lock:
            self._noted = max(self._noted, batch)

class Storage(Protocol):
    """Storage of records and band keys: what every backend must do, as the core uses it.
    Ids are strings; adding an id again replaces it. What only some backends do is a
    :class:`Capability` they declare."""

    #: What it offers beyond these members.
    capabilities: frozenset[Capability]
    #: How many writers may call :meth:`add` at the same time (each on its own :meth:`clone`).
    max_writers: int

    @property
    def key_strings(self) -> bool:
        """Whether :meth:`add` reads a document's band keys as strings (``Document.keys``);
        if not, only their values (``Document.values``) are made."""
        ...

    @property
    def location(self) -> str:
        """Where the index is, for messages (a URL without credentials, or ``memory``)."""
        ...

    # -- parameters -----------------------------------------------------------------------
    def load_params(self) -> dict[str, Any] | None:
        """The stored parameter set, or None for an index that has none yet."""
        ...

    def store_params(self, stored: dict[str, Any]) -> dict[str, Any]:
        """Store the parameter set of a new index, once: the set the index holds afterwards,
        which is another writer's if one stored its own first (the caller uses or refuses it)."""
        ...

    # -- writes ---------------------------------------------------------------------------
    def add(self, docs: Sequence[Document]) -> None:
        """Add or replace documents by id (visible to readers after :meth:`commit`)."""
        ...

    def remove(self, ids: Sequence[str]) -> None:
        """Remove records and their band keys; unknown ids are ignored."""
        ...

    def commit(self) -> None: ...

    def clone(self) -> Storage:
        """A handle on the same storage for another writer thread."""
        ...

    # -- records --------------------------------------------------------------------------
    def count(self) -> int:
        """How many records the index holds."""
        ...

    def get(self, record_id: str) -> StoredRecord | None: ...

    def texts(self, ids: Sequence[str]) -> dict[str, str]:
        """``id -> text as written`` for the ids that exist."""
        ...

    def sources(self, ids: Sequence[str]) -> dict[str, str]:
        """``id -> source`` for the ids that exist."""
        ...

    def columns(self, ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """``id -> columns`` for the ids that exist and were stored with two or more."""
        ...

    def records(self) -> Iterator[StoredRecord]:
        """Every record, in id order."""
        ...

    def all_texts(self) -> Iterator[tuple[str, str]]:
        """Every record's id and text, in any order (a report signs them again)."""
        ...

    def some_texts(self, n: int) -> list[str]:
        """Up to ``n`` records' texts, whichever the backend gives cheapest: what an estimate
        of the records' size reads (:mod:`neardup.plan.budget`), in one request at most."""
        ...

    def records_since(self, batch: int) -> Iterator[StoredRecord]:
        """The records written by ``batch`` or a later one."""
        ...

    def last_batch(self) -> int | None:
        """The newest batch of the index (None when it is empty)."""
        ...

    def batch_records(self, batch: int) -> int:
        """How many records ``batch`` wrote that the index still holds."""
        ...

    def written_batch(self) -> int | None:
        """The newest batch that wrote records into the index, kept with them (noted at a
        commit) whether or not the index holds a record of it now: after its records are
        deleted the records' newest batch is an older one, whose pairs are not new. None
        where none was noted (an index written before neardup noted it)."""
        ...

    def source_records(self, source: str) -> int:
        """How many records of ``source`` the index holds: one count, so that ``index`` can
        say what a file left of its source's records (a re-run updates, it never prunes)."""
        ...

    # -- band lookups ---------------------------------------------------------------------
    def buckets(self, band: int) -> Iterator[list[str]]:
        """The member ids of every bucket of one band that holds two or more records."""
        ...

    def sharing(self, keys: Sequence[str]) -> Iterator[StoredRecord]:
        """Every record that has at least one of ``keys``."""
        ...

    def members(self, keys: Sequence[str]) -> dict[str, list[str]]:
        """``key -> ids of the records that hold it`` for every key some record holds."""
        ...

    def key_counts(self, keys: Sequence[str]) -> dict[str, int]:
        """``key -> how many records hold it``, for those of ``keys`` that two or more hold."""
        ...

    def holding_two(self, groups: Sequence[Sequence[str]]) -> dict[str, list[str]]:
        """Every record that holds two or more keys of one group, with the keys it holds of
        each such group (sorted): what :func:`~neardup.candidates.buckets.fresh_candidates` counts.
        Not all of its keys: 40 keys a record were most of what the answer cost."""
        ...


#: The name the rest of the package types a backend with.
Backend = Storage


@runtime_checkable
class SignatureStore(Protocol):
    """:attr:`Capability.SIGNATURES`: :meth:`Storage.add` takes a document's signature
    (``Document.signature``) in place of its keys, and gives it back."""

    def signatures(self) -> tuple[list[str], Any] | None:
        """Every record's id, in :meth:`Storage.all_texts` order, and its signature (one row
        each), if every record was stored with one; None if not."""
        ...

    def shingle_hashes(self, ids: Sequence[str]) -> tuple[Any, Any] | None:
        """The shingle hashes of ``ids`` as ``(values, offsets)`` (those of ``ids[k]`` are
        ``values[offsets[k]:offsets[k + 1]]``), if the backend kept them for each; else None."""
        ...


@runtime_checkable
class TermSearch(Protocol):
    """:attr:`Capability.TERM_LOOKUP`: the records' :func:`search_terms` looked up."""

    def holding(
        self, wanted: Sequence[str], whole: Sequence[str] | None, k: int, least: int
    ) -> list[StoredRecord] | None:
        """The records that may be among the ``k`` best answers of a short search, found by
        the records' :func:`search_terms` instead of reading every record: ranked by how many
        of ``wanted`` they hold (at least ``least``), then, where the backend can count it, by
        the Jaccard similarity of their shingles with ``whole`` (the query's shingles); every
        record tied with the ``k``-th comes too, so that the caller's exact order picks the
        same ``k`` as a scan. None when this storage cannot look them up after all (a Solr
        collection made before its search fields, or of character shingles): the caller
        scans."""
        ...


@runtime_checkable
class SolrStore(Protocol):
    """:attr:`Capability.SOLR_QUERIES` and :attr:`Capability.COLLECTION_INFO`: the Solr
    collection behind the backend, for queries the storage protocol does not make."""

    solr: Solr

    @property
    def location(self) -> str: ...

    def load_params(self) -> dict[str, Any] | None: ...
