"""``NearDupIndex``: the front door. Add records, then ask for pairs, clusters or neighbours.

>>> from neardup import NearDupIndex, Params
>>> idx = NearDupIndex(Params(threshold=0.5))
>>> stats = idx.add_many([("1", "Art's Deli, 12224 Ventura Blvd"),
...                       ("2", "Arts Deli 12224 Ventura Boulevard"),
...                       ("3", "Hotel Bel-Air 701 Stone Canyon Rd")])
>>> [(p.id1, p.id2) for p in idx.pairs()]
[('1', '2')]
>>> [m.id for m in idx.query("arts deli 12224 ventura", k=1)]
['2']

Every answer is verified: LSH band keys only propose candidates (records that share a band),
and a candidate becomes a pair only if the exact Jaccard similarity of the two shingle sets,
recomputed from the stored text, reaches the threshold. The pipeline is the same on every
backend: read -> normalize -> shingle -> sign -> band -> store -> candidates -> verify ->
pairs/clusters.

This module is the facade: it composes the steps and decides nothing itself. What is stored
for a record is :mod:`neardup.candidates.documents`; candidates,
:mod:`neardup.candidates.buckets`; their texts, :mod:`neardup.candidates.text_table`;
verification, :mod:`neardup.candidates.verify`; the decision (a threshold, the valley, the
learned rule, and their checks),
:mod:`neardup.decision.decide`; pruning, :mod:`neardup.decision.prune`; clusters,
:mod:`neardup.decision.completion` and :mod:`neardup.decision.cluster`; what a report is asked
for, :mod:`neardup.options`.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import gc
import itertools
import logging
import numbers
import operator
import os
import re
import sys
import threading
import time
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set, Sized
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
from tqdm import tqdm

from .backends.base import (
    Backend,
    Capability,
    Document,
    SignatureStore,
    TermSearch,
    held_share,
)
from .backends.memory import MemoryBackend
from .candidates.buckets import (
    DEFAULT_CAP,
    DEFAULT_MAX_BUCKET,
    Candidates,
    all_candidates,
    band_buckets,
    fresh_candidates,
    large_key_groups,
    protected_bands,
    signature_candidates,
)
from .candidates.documents import documents
from .candidates.estimate import bound, estimated
from .candidates.text_table import TextTable
from .candidates.verify import (
    held_hashes,
    runs_of,
    screen_keep,
    signed_for_screen,
    used_codes,
    verified_jaccard,
    verify,
    verify_codes,
)
from .choose import Choice, choose
from .constraints import check_all
from .decision.cluster import pair_clusters
from .decision.codes import codes_differ
from .decision.completion import missing_pairs, parted_pairs
from .decision.decide import Features, rule_for
from .decision.labelled import Label, link_by_labels, pairs_to_ask
from .decision.learned import wilson
from .decision.link import _pairs as link_pairs
from .decision.link import link
from .decision.link_new import link_new, updated
from .decision.prune import prune
from .decision.route import LABELLED, WEIGHTED, Route, across_sources, route, within_distance
from .decision.valley import NEW_RECORDS, RecordNumbers
from .defaults import DEFAULTS
from .errors import (
    ArgumentError,
    InputError,
    NeardupError,
    NeardupWarning,
    RecordNotFound,
    RejectedRows,
)
from .graph import clusters as clusters  # re-exported: connected components
from .keys import (
    SEP,
    id_key,
    key_of,
    qualified,
    record_id,
    source_like,
    source_named,
    source_of_key,
)
from .options import ReportOptions
from .out.output import pair_columns, to_frame
from .params import Params
from .pipeline import IndexStats, Writer
from .plan import decided, engine_named
from .plan.budget import SAMPLE, Moved, Placement, candidates_fit, mean_text_bytes, place
from .read.checks import RESERVED_PREFIX, Checked, check_id, checked_items
from .read.frames import frame_records, is_frame
from .read.items import Blank, Item, Record, Rejection
from .read.pair_files import ASKED_AT_RANDOM, ASKED_UNCERTAIN, Labels, label_word, read_labels
from .read.records import FileItems
from .results import Decision, Match, Pair, Report
from .sign import kernel
from .sign.banding import band_keys_batch
from .sign.minhash import ShingleProcessor
from .sign.text import check_text, jaccard, sort_ids, word_edit_distance

if TYPE_CHECKING:
    from .decision.link import Linked, LinkState
    from .solr.client import Auth, Solr


#: Threads a report may sign texts read back from a backend on (a chunk split by text size):
#: one, as two gave nothing measurable while the local node serves the pages on the other core.
SIGN_THREADS = 1
#: Queries of at most this many words are searched by containment (NearDupIndex.search).
SHORT_QUERY = 8
#: Indexes of at most this many records are scanned whole by a short search.
SCAN_LIMIT = 200_000
#: The seed of :meth:`NearDupIndex.check`'s draw (with the number of labels so far).
CHECK_SEED = 0
log = logging.getLogger("neardup")


F = TypeVar("F", bound=Callable[..., Any])


def _label_source(name: str, sources: Sequence[str]) -> str:
    """The source a label names, among the link's ``sources``: as written, else the one that
    is that file however spelled (a review page of files given as typed, ``a.csv``; an index
    that names them by their absolute paths), else the one file of that name (labels written
    in another folder); else as written, which holds no record."""
    return source_like(name, sources) or name


def _not_held(
    where: str, rid: str, source: str, names: Sequence[str], why: str, other_form: str = ""
) -> str:
    """Why a label's record was not found: a file name that several sources have (two folders'
    ``shop.csv``) is named as such, with the paths that tell them apart; a source the index
    does not hold, with those it does; ``other_form`` says where it holds the id in another
    Unicode form (:meth:`NearDupIndex._other_form`)."""
    alike = [n for n in names if source and Path(n).name == Path(source).name and n != source]
    if len(alike) > 1:
        return (f"{where}: {source!r} names {len(alike)} sources of the index "
                f"({', '.join(alike[:3])}): give its path, as the index names it")
    at = f" of {source}" if source else ""
    said = f"{where}: record {rid}{at} is not in the index"
    resolved = _label_source(source, names) if source else ""
    if source and resolved not in names:  # a source misspelt, in another case, another file's
        held = ", ".join(map(repr, names[:5])) + (f" and {len(names) - 5} more"
                                                  if len(names) > 5 else "")  # fmt: skip
        return f"{said}, which holds no source {source!r} (its sources: {held}): {why}"
    if resolved:  # the source is held (as the name resolved on the label's other lines): the id
        # is not; 'holds no source' was said of a file name the index knows by its path
        said += f" (its source {resolved!r} holds no record of id {rid!r})"
    return f"{said}{other_form}: {why}"


def _said_before(
    said: dict[frozenset[Any], tuple[bool, str]], pair: frozenset[Any], match: bool, where: str,
    of: Mapping[str, str] | None = None,
) -> bool:  # fmt: skip
    """Whether the records of ``pair`` (keys of the index, or ``(source, id)``) were labelled
    before, and alike; labelled the other way, an :class:`InputError` naming both lines. The
    labels reader refuses a pair labelled both ways as written; this is the same check once
    each line is read as records of the index, where a source's path and its file name typed
    by hand, or ids alone, name one pair: either answer taken silently taught the rule both,
    and the last decided the pair."""
    if pair not in said:
        said[pair] = (match, where)
        return False
    before, there = said[pair]
    if before == match:
        return True
    first, second = sorted((there, where), key=_line_order)
    label = "match" if (match if second == where else before) else "non-match"
    named = " and ".join(sorted(
        f"{record_id(k)} of {of.get(k) or 'no source'}" if of is not None else f"{k[1]} of {k[0]}"
        for k in pair
    ))  # fmt: skip
    raise InputError(f"{second}: this pair is labelled {label!r}, but {first} labels it the "
                     f"other way (both name the records {named}, however written)")  # fmt: skip


def _line_order(where: str) -> tuple[str, int]:
    """``file:line`` (or ``label N``, ``file: row N``) in the file's order."""
    found = re.search(r"^(.*?)(\d+)$", where)
    return (found.group(1), int(found.group(2))) if found else (where, 0)


def _unsure(where: str, a: tuple[str, str], b: tuple[str, str]) -> str:
    """Why a label's two records cannot be told: ids alone, or one source given of two, that
    several sources could hold."""
    if a[0] or b[0]:
        given, bare = (a, b) if a[0] else (b, a)
        return (f"{where}: the line names the source of one record only ({given[1]} of "
                f"{given[0]}; {bare[1]} of none), and several other sources hold a record "
                f"{bare[1]}: give both source1 and source2")  # fmt: skip
    return (f"{where}: ids alone cannot say which records these are (several sources hold "
            "them): give the label source1 and source2")


def _label_value(value: Any, at: str, form: str) -> bool:
    """A label's truth: True or False (numpy's too), or the words a labels file writes. Why
    strict: ``"non-match"`` is a true string, and was read as a match."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("match", "non-match"):
            return word == "match"
    elif type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    raise ArgumentError(f"{at}: {value!r:.40} is no label: {form}")


def _holding_hint(holding: Sequence[str]) -> str:
    many = len(holding) > 1
    return (f"the source{'s' if many else ''} {', '.join(holding)} "
            f"{'hold' if many else 'holds'} records with such ids (source={holding[0]!r} names "
            "those)")  # fmt: skip


def _locked(method: F) -> F:
    """One thread at a time in the index's reads and writes: a report made while another
    thread adds records would read buckets half updated (the memory backend's dicts change
    under it). Reentrant, so that clusters() may call report()."""

    @functools.wraps(method)
    def run(self: NearDupIndex, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            if self._closed:  # every backend alike: the memory one kept working, DuckDB failed
                raise NeardupError(
                    f"{self.backend.location}: this index was closed (close()): open its "
                    "storage again with a new NearDupIndex to use it"
                )
            return method(self, *args, **kwargs)

    return run  # type: ignore[return-value]


def _said_rejected(stats: IndexStats, frame: bool) -> IndexStats:
    """``stats``, its rejections said in a :class:`RejectedRows` warning: a notebook never
    reads ``stats.rejections``, and rows were lost without a word (hostile sweep hx26)."""
    note = stats.rejected_note(frame)
    if note:
        warnings.warn(RejectedRows(note), stacklevel=_caller_level())
    return stats


def _caller_level() -> int:
    """The ``stacklevel`` of a warning that names the caller's own line, outside neardup (a
    call of add_many, of add_frame, through the lock's wrapper: each its own depth)."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        package + os.sep
    ):
        frame, level = frame.f_back, level + 1
    return level


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


# -- the index ---------------------------------------------------------------------------------


#: The source of records given without one: ``(id, text)`` pairs, and DataFrame rows with no
#: source column. Two calls that both write here with the same ids are refused, not merged
#: (:meth:`NearDupIndex.add_many`): nothing says whether they are one source or two.
UNNAMED_SOURCES = ("<records>", "<frame>")


def _said_of_new(
    explain: dict[str, Any] | None, rule: str, fresh: set[str] | None
) -> dict[str, Any] | None:
    """The rule's explanation, with what a report of new records owes to a bar read off the
    data (:data:`~neardup.decision.valley.NEW_RECORDS`)."""
    if fresh is None or rule != "valley":
        return explain
    return {**(explain or {}), "new": NEW_RECORDS}


def _as_record(item: Any, position: int, default_source: str = "<records>") -> Item:
    """A record of the input: a :class:`Record`, a :class:`Rejection`, a blank, an
    ``(id, text)`` pair (ids may be integers) or an ``(id, text, source)`` triple."""
    if type(item) is tuple and len(item) == 2:  # the common case, checked in fewest steps
        record_id, text = item
        if type(record_id) is str and type(text) is str:
            return Record(record_id, text, default_source, position)
    if isinstance(item, Record | Rejection | Blank):
        return item
    source = default_source
    try:
        if isinstance(item, str | bytes | bytearray | Mapping | Set):
            # unpacked, a 2-key dict would be the record ("id", "text"), a 2-character
            # string ("a", "b"): a record of the keys or letters, not an error
            raise TypeError
        if isinstance(item, tuple | list) and len(item) == 3:
            record_id, text, source = item
            if source is None:  # never the source "None"
                source = default_source
            elif _bad_source(source):  # as source_name is checked; the rows before are written
                said = ("the source must be a non-empty string without control characters, "
                        f"got {source!r:.40}")  # fmt: skip
                return Rejection(default_source, position, said)
        else:
            record_id, text = item
    except (TypeError, ValueError):
        said = (f"expected an (id, text) pair, an (id, text, source) triple or a Record, got "
                f"{item!r:.80}")  # fmt: skip
        if position == 1:  # nothing written yet: the call's records are of another shape
            raise ArgumentError(f"record {position}: {said}") from None
        return Rejection(default_source, position, said)
    rid = _id_text(record_id)
    if rid is None:
        # Rejected, as a file's row is, rather than raised: the records before it are written
        # already, and a call that raised half-way would leave them with no counts to say so.
        got = type(record_id).__name__
        return Rejection(source, position, f"the id must be a string or an integer, got {got}")
    if not isinstance(text, str):
        got = type(text).__name__
        return Rejection(source, position, f"the text must be a string, got {got}", rid)
    return Record(rid, text, source, position)


def _frame_labels(labels: Any) -> Any:
    """A pandas or polars frame of the labels file's columns (``source1 id1 source2 id2
    label``, ``asked``) as label items; anything else as it is. Iterated as given, a frame was
    its column names, and the error spoke of a label 'source1'."""
    rows: list[dict[str, Any]] | None = None
    kind = type(labels).__module__.split(".", 1)[0]
    if kind == "pandas" and hasattr(labels, "to_dict") and hasattr(labels, "columns"):
        rows = labels.to_dict("records")
    elif kind == "polars" and hasattr(labels, "to_dicts"):
        rows = labels.to_dicts()
    if rows is None:
        return labels
    columns = [str(c) for c in labels.columns]
    missing = [c for c in ("source1", "id1", "source2", "id2", "label") if c not in columns]
    if missing:
        raise ArgumentError(
            f"labels: a frame of labels has the labels file's columns (source1, id1, source2, "
            f"id2, label; asked); this one lacks {', '.join(missing)} (columns: "
            f"{', '.join(columns)})"
        )
    out = []
    for row in rows:
        said = label_word("" if row["label"] is None else str(row["label"]))
        drawn = str(row.get("asked") or "").strip().lower() == ASKED_AT_RANDOM
        out.append(((row["source1"], row["id1"]), (row["source2"], row["id2"]),
                    said if said is not None else row["label"], drawn))  # fmt: skip
    return out


def _check_given(given: Any) -> None:
    """``given`` is a mapping of :class:`Params`' names: a misspelt one
    (``{"treshold": 0.5}``) was a bare TypeError of Params, a string a ValueError."""
    if not isinstance(given, Mapping):
        raise ArgumentError(
            f"given names parameters and their values, as a dict ({{'threshold': 0.5}}), got "
            f"{type(given).__name__}"
        )
    known = {f.name for f in dataclasses.fields(Params)}
    unknown = sorted(str(k) for k in given if k not in known)
    if unknown:
        raise ArgumentError(
            f"given: unknown parameters: {', '.join(unknown)} (the parameters: "
            f"{', '.join(sorted(known))})"
        )


def _id_text(record_id: Any) -> str | None:
    """An id given in Python as the index reads it: a string as it is, an integer (numpy's too:
    ``df.id.values``) written in decimal, and a float that is one (``1.0``: a pandas id column
    with a missing value is float, and ``add_frame`` reads it so); None for anything else (a
    fraction, NaN, None, a bool)."""
    if isinstance(record_id, str):
        return record_id
    if isinstance(record_id, bool | np.bool_):
        return None
    if isinstance(record_id, numbers.Integral):
        return str(int(record_id))
    if isinstance(record_id, numbers.Real) and float(record_id).is_integer():
        return str(int(record_id))
    return None


#: How a message names an index file (``duckdb:FILE``, the DuckDB backend's location), and
#: what :meth:`NearDupIndex.open` takes for it.
FILE_SCHEME = "duckdb:"


def with_record_ids(
    pairs: Iterable[Pair],
    sources: Mapping[str, str],
    primary: str | None,
    link: bool,
    named: bool = False,
) -> list[Pair]:
    """Pairs of storage keys as a user reads them: the records' own ids, with their sources
    where they matter (``link``: every pair; else a pair with a record of a secondary source,
    and with ``named``, an index that holds another source, a pair of the primary's records
    too). In link mode the record of the primary source comes first."""
    out = []
    for p in pairs:
        if not link and not (qualified(p.id1) or qualified(p.id2)):
            out.append(dataclasses.replace(p, source1=primary, source2=primary) if named else p)
            continue
        s1, s2 = sources.get(p.id1), sources.get(p.id2)
        id1, id2 = record_id(p.id1), record_id(p.id2)
        if link and s2 == primary and s1 != primary:
            id1, id2, s1, s2 = id2, id1, s2, s1
        out.append(dataclasses.replace(p, id1=id1, id2=id2, source1=s1, source2=s2))
    return out


class NearDupIndex:
    """Near-duplicate detection over one index with one frozen parameter set.

    ``NearDupIndex(params)`` keeps the index in memory; :meth:`open` keeps it in Solr. A
    backend that already holds an index brings its own parameters: they are read back and used,
    and asking for others (in ``params``, or some of them in ``given``) raises
    :class:`~neardup.errors.ParameterMismatch`.
    """

    def __init__(
        self,
        params: Params | None = None,
        *,
        backend: Backend | None = None,
        given: Mapping[str, Any] | None = None,
    ) -> None:
        if backend is not None and not callable(getattr(backend, "load_params", None)):
            # a name ("memory") was an AttributeError from deep inside
            raise ArgumentError(
                "backend must be a storage: MemoryBackend(), DuckDBBackend(path) or "
                f"SolrBackend(...) of neardup.backends, got {type(backend).__name__} "
                f"{backend!r:.40}"
            )
        self.backend: Backend = backend if backend is not None else MemoryBackend()
        #: How the parameters were chosen from the data (:class:`neardup.choose.Choice`), once
        #: the first records arrive at an index created without parameters; else None.
        self.chosen: Choice | None = None
        #: The batch number of the latest write through this object (``report(since=...)``).
        self.batch_written = 0
        self._given: dict[str, Any] | None = None
        #: How many records the write that chooses the parameters brings, when known.
        self._expected: int | None = None
        #: The source of the first record written (:attr:`primary_source`), once known.
        self._primary: str | None = None
        #: Whether the index was empty of parameters when opened: then its first record's
        #: source is the primary one, with no request to find out.
        self._fresh = False
        #: Whether the parameters were chosen from the data (no parameters given): then link
        #: mode decides by weighted similarity (:mod:`neardup.decision.link`).
        self.from_data = False
        #: The keys of unnamed sources written by the current call, while it refuses to
        #: replace records of earlier calls (:meth:`_refuse_overlap`); None: no such check.
        self._unnamed: set[str] | None = None
        #: Whether this object has written records (an index empty when opened is empty
        #: until then: no request needed to know it).
        self._written = False
        #: Held by every read and write (:func:`_locked`), and by a batch while it is open.
        self._lock = threading.RLock()
        #: Whether :meth:`close` was called: every read and write is refused after.
        self._closed = False
        #: What the last weighted link kept for a link of new records
        #: (:mod:`neardup.decision.link_new`).
        self._link_state: LinkState | None = None
        #: The parameters another writer stored first, when this one had chosen others from
        #: its own records (two first indexers at once): its records were signed with those.
        self.joined: str | None = None
        if params is not None and given:
            raise ArgumentError("give the parameters (params) or some of them (given), not both")
        if params is not None and not isinstance(params, Params):
            raise ArgumentError(
                f"params must be a neardup.Params, got {type(params).__name__} (give some "
                "parameters by name with given={...})"
            )
        if given is not None:
            _check_given(given)
        stored = self.backend.load_params()
        self._fresh = stored is None
        self._another: bool | None = False if self._fresh else None  # _holds_another_source
        #: The primary source the stored parameters name (indexes whose first write chose
        #: them from the data), read instead of inferred from a record keyed by id alone.
        self._stored_primary: str | None = (stored or {}).get("primary_source")
        if stored is None:
            if params is None:
                # Chosen from the first batch of records (documents()); until then, what the
                # given parameters and the field defaults say.
                self._given = dict(given or {})
                self.params = Params(**self._given)
            else:
                self.params = params
                self._store()
        else:
            self.params = Params.from_dict(stored)
            if params is None and given:
                # only what was given is compared (bands and rows a replace would choose again)
                self.params.check_given(given, self.backend.location)
            if params is not None:
                self.params.check(params, self.backend.location)
            self.from_data = bool(stored.get("chosen_from_data", False))
        self.processor: ShingleProcessor = self.params.processor()

    def _store(self) -> None:
        for plugin in self.params.extra_fields():  # before anything is stored
            plugin.check(self.backend)
        mine = self.params.to_dict()
        mine["chosen_from_data"] = self.from_data
        if self._primary is not None:  # stored with them, so that a second first writer
            mine["primary_source"] = self._primary  # keys its records as the first does
        stored = self.backend.store_params(mine)
        if stored.get("primary_source") is not None:
            self._primary = self._stored_primary = stored["primary_source"]
        if stored != mine:  # another writer stored its parameters first
            winner = Params.from_dict(stored)
            if self.chosen is None:  # parameters asked for: the same, or a mismatch
                winner.check(self.params, self.backend.location)
            elif winner != self.params:  # what a later file gets too: said, not hidden
                self.joined = winner.describe()
            self.params = winner  # chosen from the data: the index's own are used
            self.processor = self.params.processor()
            self.chosen = None  # not this run's choice
            self.from_data = bool(stored.get("chosen_from_data", False))

    @property
    def primary_source(self) -> str | None:
        """The source of the first record written: its records are keyed by id alone, those
        of any other source by id and source (:mod:`neardup.keys`). Read off the index (the
        source of a record keyed by id alone), so nothing more is stored; None while empty."""
        if self._primary is None and self._stored_primary is not None:
            # stored with the parameters: still the primary once its records are all deleted
            # (inferred then from another source's records, whose keys say otherwise)
            self._primary = self._stored_primary
        if self._primary is None and self.backend.count():
            for rec in self.backend.records():
                if not qualified(rec.id):
                    self._primary = self.backend.sources([rec.id]).get(rec.id)
                    break
        return self._primary

    def _choose(self, records: Sequence[Record]) -> None:
        """Fix the parameters from the first batch (see :mod:`neardup.choose`)."""
        assert self._given is not None
        self.chosen = choose([r.text for r in records], self._given, self._expected)
        self.params = self.chosen.params
        self.processor = self.params.processor()
        self.from_data = not self._given
        self._given = None
        self._store()

    @classmethod
    def open(
        cls,
        solr: str | Solr | Any | None = None,
        params: Params | None = None,
        *,
        collection: str | None = None,
        create: bool = True,
        auth: Auth | tuple[str, str] | None = None,
        verify: bool | str | None = None,
        home: str | None = None,
    ) -> NearDupIndex:
        """An index kept in Solr, or in the index file ``"duckdb:FILE"`` (the name every
        message gives it; :meth:`NearDupIndex._open_file`).

        ``solr`` is a collection URL (``http://host:8983/solr/listings``), a base URL with
        ``collection``, a :class:`pysolr.Solr`, a :class:`neardup.solr.Solr`, or None for
        ``$NEARDUP_SOLR_URL``, else neardup's own local node (started, or reused, in ``home``,
        default ``$NEARDUP_HOME``, else ``~/.neardup``). ``auth`` and ``verify`` default to
        the environment's too (:mod:`neardup.config`), so a notebook uses what the shell's
        ``neardup`` uses. A missing collection is created from neardup's configset where the
        server allows it.
        """
        # lazy: the Solr client (pysolr, requests) loads only for an index kept in Solr
        from . import config
        from .backends.solr import SolrBackend
        from .solr.admin import connect, ensure_collection
        from .solr.client import Auth, Solr

        if isinstance(solr, str) and solr.startswith(FILE_SCHEME):
            solr_only = {"collection": collection, "auth": auth, "verify": verify, "home": home}
            given = [name for name, value in solr_only.items() if value is not None]
            return cls._open_file(solr, params, create=create, given=given)
        if isinstance(auth, tuple):
            auth = Auth(*auth)
        if isinstance(solr, Solr):
            client = ensure_collection(solr, create=create)
        elif solr is None or isinstance(solr, str):
            settings = config.load(solr_url=solr, home=home)
            client = connect(
                settings.solr_url,
                collection,
                auth=auth if auth is not None else settings.auth,
                verify=verify if verify is not None else settings.verify,
                create=create,
                home=settings.home,
                heap=settings.heap,
                timeout=settings.timeout,
                retry_budget=settings.retry_budget,
            )
        elif hasattr(solr, "url") and hasattr(solr, "get_session"):  # a pysolr.Solr
            client = ensure_collection(Solr.from_pysolr(solr), create=create)
        else:
            raise ArgumentError(
                f"expected a Solr URL, a pysolr.Solr or a neardup Solr, got {type(solr).__name__}"
            )
        return cls(params, backend=SolrBackend(client))

    @classmethod
    def _open_file(
        cls, location: str, params: Params | None, *, create: bool, given: list[str]
    ) -> NearDupIndex:
        """``open("duckdb:FILE")``: the index file a message names so (a location), as
        ``NearDupIndex(params, backend=DuckDBBackend(FILE))`` opens it. It was refused as "not
        a Solr URL", though every message names a DuckDB index ``duckdb:FILE``."""
        from .backends.duckdb_file import DuckDBBackend  # lazy: duckdb, for a file only

        path = location[len(FILE_SCHEME):]
        if given:
            raise ArgumentError(
                f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} Solr's: {location} is "
                "an index file (open it without {'it' if len(given) == 1 else 'them'})"
            )
        if not path:
            raise ArgumentError("duckdb: names an index file by its path: 'duckdb:shop.duckdb'")
        if not create and not Path(path).is_file():
            raise InputError(f"{location}: no such index file (create=True makes one)")
        return cls(params, backend=DuckDBBackend(path))

    def __repr__(self) -> str:
        return f"NearDupIndex({self.params!r}, backend={self.backend!r})"

    @_locked
    def __len__(self) -> int:
        return self.backend.count()

    # -- writing ----------------------------------------------------------------------------

    def documents(self, records: list[Record]) -> list[Document | Rejection]:
        """What is stored for each record of a batch, or why a record cannot be stored.

        Records are keyed by source and id (:func:`neardup.keys.key_of`): two files that
        both number their rows from 0 are two sets of records, never one replacing the other.
        """
        bad = [r for r in records if SEP in r.id]
        if bad:  # a reader refuses them; records made in Python are checked here
            raise ArgumentError(
                f"record {bad[0].id!r} ({bad[0].location}:{bad[0].line}): an id may not hold "
                "a control character"
            )
        if records and self._primary is None and (self._fresh or self.primary_source is None):
            self._primary = records[0].source
        if self._given is not None:
            self._choose(records)
        # Signed on every core in memory; a Solr node on this machine indexes on the other
        # one (100k documents split over two threads: 8.0 -> 8.5 s into the local node).
        offers = self.backend.capabilities
        threads = kernel.threads() if Capability.THREADS in offers else 1
        docs = documents(
            self.params, self.processor, records, self.batch_written, self.backend.key_strings,
            Capability.SIGNATURES in offers and not self.params.extra_fields(), threads,
        )  # fmt: skip
        primary = self.primary_source
        docs = [
            d if isinstance(d, Rejection) or d.source == primary
            else dataclasses.replace(d, id=key_of(d.id, d.source, primary))
            for d in docs
        ]  # fmt: skip
        if any(not isinstance(d, Rejection) and d.source != primary for d in docs):
            self._another = True
        if self._unnamed is not None:
            self._refuse_overlap(docs)
        self._written = True
        return docs

    def _overlap_check(self, replace: bool, source_name: str | None) -> set[str] | None:
        """The keys a write of an unnamed source will collect to refuse records an earlier
        call wrote; None where nothing is to be refused (asked to replace, a source named, or
        an index empty before this write: nothing earlier to collide with)."""
        if replace or source_name is not None:
            return None
        if self._fresh and not self._written:  # empty when opened, nothing written since
            return None
        return set()

    def _refuse_overlap(self, docs: Sequence[Document | Rejection]) -> None:
        """Refuse records of an unnamed source whose keys an earlier call wrote.

        Two DataFrames (or lists of pairs) that both number their rows from 0 and give no
        source would otherwise be one source, the second replacing the first row by row
        without a word; so the user says which they meant: a source each, or a replacement.
        """
        assert self._unnamed is not None
        keys = [d.id for d in docs if isinstance(d, Document) and d.source in UNNAMED_SOURCES]
        if not keys:
            return
        earlier = [k for k in self.backend.sources(keys) if k not in self._unnamed]
        if earlier:
            source = next(d.source for d in docs if isinstance(d, Document) and d.id == earlier[0])
            shown = ", ".join(repr(record_id(k)) for k in sorted(earlier, key=id_key)[:5])
            more = f" and {len(earlier) - 5} more" if len(earlier) > 5 else ""
            raise ArgumentError(
                f"{'ids' if len(earlier) > 1 else 'id'} {shown}{more} "
                f"{'are' if len(earlier) > 1 else 'is'} already in the index, written by an "
                "earlier call with no "
                f"source ({source}): to keep both, give each call its own source "
                "(source_name='shop2', or a source column); to replace those records, "
                "pass replace=True"
            )
        self._unnamed.update(keys)

    @_locked  # (a closed index refuses it as every call: the memory backend kept writing)
    def batch(
        self,
        *,
        batch_size: int = 1000,
        writers: int = 2,
        progress: bool = False,
        source_name: str | None = None,
        replace: bool = False,
    ) -> _Batch:
        """A context for many writes: records go in batches, sent while the next is computed,
        and are committed once at the end. ``source_name`` and ``replace`` are
        :meth:`add_many`'s.

        >>> idx = NearDupIndex()
        >>> with idx.batch() as b:
        ...     b.add("1", "first record")
        ...     b.add("2", "second record")
        >>> b.stats.indexed
        2
        """
        self._new_batch()
        source = _source_name(source_name, "<records>")
        self._unnamed = self._overlap_check(replace, source_name)
        return _Batch(
            self,
            Writer(
                self.backend,
                self.documents,
                batch_size=batch_size,
                writers=writers,
                progress=progress,
            ),
            source,
        )

    def add(
        self, record_id: str, text: str, *, source_name: str | None = None, replace: bool = False
    ) -> IndexStats:
        """Add one record (``source_name`` and ``replace`` as :meth:`add_many`); for many,
        :meth:`add_many` or :meth:`batch` are faster."""
        return self.add_many([(record_id, text)], source_name=source_name, replace=replace)

    @_locked
    def add_many(
        self,
        records: Iterable[Any],
        *,
        batch_size: int = 1000,
        writers: int = 2,
        progress: bool = False,
        total: int | None = None,
        source_name: str | None = None,
        replace: bool = False,
    ) -> IndexStats:
        """Add records: ``(id, text)`` pairs, ``(id, text, source)`` triples, what
        :func:`neardup.read.records.read_records` yields, or a pandas or polars DataFrame (its
        columns as :meth:`add_frame` reads them by default). Returns the counts (read, indexed,
        rejected with where and why, identical: ``read == indexed + rejected + identical``); the
        records carry a new batch number (:attr:`batch_written`).

        Records given as values are checked as the lines of a file are
        (:func:`neardup.read.checks.checked_items`): an id is made a string, so ``1`` and ``"1"``
        are one id, and an id seen before in the same call and source is rejected (a copy, if its
        text is the same: counted as identical); an id over 512 bytes is rejected, whatever
        the backend.

        A record is its source and its id: one with the source and id of a record already
        stored replaces it. ``source_name`` names the source of records given without one
        (default ``"<records>"``, and ``"<frame>"`` for a DataFrame); while it is not given,
        such records whose ids an earlier call wrote are refused (:class:`ArgumentError`, from
        the batch that holds the first of them), since nothing says whether the two calls are
        one source or two: ``replace=True`` replaces them. The records of a file
        (``read_records``) are of the source the index knows the file by, or with
        ``source_name`` of the source that name is (:meth:`source_given`, as ``--source``):
        a file of changed rows replaces the records it changes. ``total``: how many records come,
        where ``records`` has no length (nor a length hint, as read_records' items have): the
        progress bar's end and, in a new index whose
        parameters are chosen from the data, the size they are chosen for
        (:func:`neardup.choose.choose`)."""
        default = _source_name(source_name, "<records>")
        if is_frame(records) and not isinstance(records, Iterable):  # a polars LazyFrame
            frame_records(records)  # refused, with what to do
        if isinstance(records, str | bytes) or not isinstance(records, Iterable):
            raise ArgumentError(
                "records must be an iterable of (id, text) pairs, (id, text, source) triples, "
                f"Records or a DataFrame, got {type(records).__name__}"
            )
        if isinstance(records, FileItems):  # one name for the file, however it was typed
            records = self._file_named(records, source_name)
        if is_frame(records):
            total = len(records) if total is None else total  # type: ignore[arg-type]
            records = frame_records(records, name=_source_name(source_name, "<frame>"))
        if total is None and isinstance(records, Sized):
            total = len(records)
        if total is None:  # read_records' items know about how many lines their file has
            total = operator.length_hint(records, -1)
            total = None if total < 0 else total
        self._expected = total  # what the parameters are chosen for, if this write chooses
        self._new_batch()
        writer = Writer(
            self.backend,
            self.documents,
            batch_size=batch_size,
            writers=writers,
            progress=progress,
            total=total,
        )
        read = isinstance(records, Checked)  # read from a file or a frame: checked as read
        frame = read and records.frame  # type: ignore[union-attr]
        records = (_as_record(r, n, default) for n, r in enumerate(records, start=1))
        if not read:  # ids as a file's reader checks them: 1 and "1" are one id, seen twice
            records = checked_items(records)
        self._unnamed = self._overlap_check(replace, source_name)
        # In memory, every record read and stored is a few objects more the collector would
        # walk again and again (100k short records: 0.3 s). Into Solr, the batches on their way
        # (records, documents, requests) kept it walking too: 2M short records, 10.6 s of
        # collections in a 123 s write.
        try:
            with _gc_paused():
                stats = writer.write_all(records)
        finally:
            self._unnamed = None
        return _said_rejected(stats, frame)

    def _file_named(self, records: FileItems, source_name: str | None) -> FileItems:
        """A file's records of the source the index knows the file by, or of ``source_name``
        where it is given (:meth:`source_given`: a file of changed rows replaces the records of
        the source it names); a source column's records with ``source_name`` are refused, as
        ``--source`` with ``--source-field`` is: it was silently left out."""
        if source_name is None:
            return records.named(self.source_of_file(records.path) or str(records.path))
        name = self.source_given(source_name)

        def checked(items: Iterable[Item]) -> Iterator[Item]:
            for item in items:
                if isinstance(item, Record) and item.file:  # named by its source column
                    raise ArgumentError(
                        f"{item.file}:{item.line}: source_name={source_name!r} names the source "
                        "of a file's records, but these records were read with a source column "
                        "(source_field) that names theirs: give one or the other"
                    )
                yield item

        return records.through(checked).named(name)

    def add_frame(
        self,
        frame: Any,
        *,
        id: str | None = None,  # noqa: A002 - reads as the column it names
        text: str | Sequence[str] | None = None,
        source: str | None = None,
        source_name: str | None = None,
        **options: Any,
    ) -> IndexStats:
        """Add the rows of a pandas or polars DataFrame: ``id`` names the id column (default
        ``id``, else the pandas index, else the row's position), ``text`` the text column or
        columns (default ``text``, else every other column), ``source`` the column of each
        row's source (link mode), ``source_name`` the source of every row where there is no
        such column (default ``"<frame>"``; two frames with overlapping ids and no source are
        refused, see :meth:`add_many`). Rows are checked like the lines of a file; ``options``
        are :meth:`add_many`'s."""
        unknown = sorted(set(options) - {"batch_size", "writers", "progress", "replace"})
        if unknown:  # else a TypeError naming add_many, which the user did not call
            raise ArgumentError(
                f"add_frame() got an unknown keyword {', '.join(map(repr, unknown))}: it takes "
                "id, text, source, source_name, batch_size, writers, progress and replace"
            )
        name = _source_name(source_name, "<frame>")
        rows = frame_records(frame, id=id, text=text, source=source, name=name)
        return self.add_many(rows, total=len(frame), source_name=source_name, **options)

    def _new_batch(self) -> None:
        """Microseconds since the epoch (no request to the backend: a write that must not
        query first), above this object's previous batch."""
        self.batch_written = max(time.time_ns() // 1000, self.batch_written + 1)

    def key(self, record_id: str | int, source: str | None = None) -> str:
        """The storage key of the record ``record_id`` of ``source`` (None: the primary
        source, the one an index of one file holds): a record is its source and its id."""
        rid = _id_text(record_id)
        if rid is None:
            raise ArgumentError(f"an id is a string or an integer, got {record_id!r}")
        if source is not None and (not isinstance(source, str) or not source):
            raise ArgumentError(f"a source is a non-empty string, got {source!r}")
        if SEP in rid or rid.startswith(RESERVED_PREFIX):
            # such an id would be another source's key (id, SEP, source) or neardup's own
            # document: no record has it, and none of them is reached through it
            raise ArgumentError(f"not a record's id: {rid!r} ({check_id(rid, None)})")
        return key_of(rid, source, self.primary_source) if source else rid

    @_locked
    def remove(self, ids: Iterable[str | int], *, source: str | None = None) -> int:
        """Remove the records of ``source`` (default: the primary one) with these ids, with
        their band keys; returns how many were there (unknown ids are ignored). One id given
        alone (``remove("12")``) is that one record, never its characters one by one."""
        if _id_text(ids) is not None:
            ids = [ids]  # type: ignore[list-item]
        if not isinstance(ids, Iterable):
            kind = type(ids).__name__
            raise ArgumentError(f"ids must be an id or an iterable of ids, got {kind}")
        given = list(ids)
        keys = [self.key(i, source) for i in given]  # a float, None: refused, not 'nan', 'None'
        ids = [_id_text(i) or "" for i in given]
        found = self.backend.sources(keys) if keys else {}
        self.backend.remove(keys)
        self.backend.commit()
        self._another = None
        missing = [i for i, k in zip(ids, keys, strict=True) if k not in found]
        if missing:
            holding = self.sources_holding(missing, source)
            if holding:  # not an error (unknown ids are ignored), but not silent either
                warnings.warn(
                    f"neardup: {len(set(missing))} of the ids are not records of "
                    f"{source or self.primary_source or 'the primary source'!r}; "
                    f"{_holding_hint(holding)}",
                    stacklevel=3,
                )
        return len(found)

    def source_of_file(self, path: str | Path) -> str | None:
        """The source a file's records get by default: the name the collection already knows
        this very file by (indexed before under another spelling, or from another folder),
        else its absolute path, so that '../d5k.csv', 'd5k.csv' and '/tmp/rel/d5k.csv' are one
        source and a re-read replaces its records; None for standard input and pipes (named
        as given)."""
        path = Path(path)
        if str(path) == "-" or not (path.is_file() or path.is_dir()):
            return None
        known: list[str] = []
        backend = self.backend
        if Capability.COLLECTION_INFO in backend.capabilities and backend.load_params() is not None:
            from .collection import describe  # lazy: pulls in pysolr, for Solr storage only

            known = list(describe(backend)["sources"])  # type: ignore[arg-type]
        # only a name that says its folder can be this file: a bare 'people.csv' (written by a
        # verb that kept the name as typed) is any folder's, and matching it replaced the
        # records of another folder's file of that name
        real = path.resolve()
        return source_named(real, [k for k in known if Path(k).is_absolute()]) or str(real)

    def source_given(self, name: str) -> str:
        """The source a name a user gives (``--source NAME`` of every verb, ``source_name`` of a
        file's records) is: the very name the index holds records of, else, for a file or folder
        that is there, the name its records get (:meth:`source_of_file`, its absolute path), else
        the name as given. One rule, so that ``--source shop.csv`` names one source in index,
        delete and neighbors, and a file of changed rows replaces the records of ``shop.csv``."""
        if not name or self.backend.source_records(name):  # ('' is no folder: Path('') is '.')
            return name
        return self.source_of_file(name) or name

    def sources_holding(self, ids: Sequence[str | int], source: str | None = None) -> list[str]:
        """The sources other than ``source`` (default: the primary one) that hold a record of
        one of ``ids``: what to say when an id is not found where it was looked for (a
        record is its source and its id). Read from the collection's list of sources where
        the storage keeps one, else from its records (an error's path only)."""
        backend = self.backend
        own = source or self.primary_source
        wanted = [str(i) for i in ids]
        if Capability.COLLECTION_INFO in backend.capabilities:
            from .collection import describe  # lazy: pulls in pysolr, for Solr storage only

            held = describe(backend)["sources"]  # type: ignore[arg-type]
            return [name for name in held if name != own
                    and backend.sources([self.key(i, name) for i in wanted])]  # fmt: skip
        # by the sources the records were stored with: a key names no source for the
        # primary one's records, so the primary source was never named
        want = set(wanted)
        keys = [key for key, _ in backend.all_texts() if record_id(key) in want]
        held = {src for src in backend.sources(keys).values() if src and src != own}
        primary = self.primary_source
        return sorted(held, key=lambda s: (s != primary, s))  # the primary first

    def source_counts(self, listed: int = 50) -> tuple[dict[str, int], int]:
        """The records of each source (at most ``listed`` sources, most records first;
        ``(none)`` for records of no source) and how many sources there are: what to say
        when a source is asked for that the index does not hold. A facet where the storage
        keeps one, else every record's source."""
        backend = self.backend
        if Capability.COLLECTION_INFO in backend.capabilities:
            from .collection import describe  # lazy: pulls in pysolr

            info = describe(backend)  # type: ignore[arg-type]
            return dict(info["sources"]), int(info["source_count"])
        if callable(getattr(backend, "facets", None)):
            facts = backend.facets(listed)  # type: ignore[attr-defined]
            unnamed = {"(none)": facts["unnamed"]} if facts["unnamed"] else {}
            return dict(facts["sources"]) | unnamed, int(facts["source_count"])
        keys = [k for k, _ in backend.all_texts()]
        counts = collections.Counter(s or "(none)" for s in backend.sources(keys).values())
        return dict(counts.most_common(listed)), len(counts)

    # -- reading ----------------------------------------------------------------------------

    @_locked
    def candidates(
        self,
        progress: bool = False,
        max_bucket: int | None = DEFAULT_MAX_BUCKET,
        cap: int | None = DEFAULT_CAP,
    ) -> Candidates:
        """Candidate pairs (smaller id first) from every band: a shared bucket of at most
        ``max_bucket`` records, or two shared buckets; a record with more than ``cap`` keeps
        its ``cap`` best by shared bands (:mod:`neardup.candidates.buckets`; None: no cap)."""
        return self._candidates(progress, max_bucket, cap)

    def _candidates(
        self,
        progress: bool,
        max_bucket: int | None,
        cap: int | None,
        placed: Placement | None = None,
    ) -> Candidates:
        """:meth:`candidates`; with ``placed`` (``auto``'s choice of this process), checked
        against its budget once the band buckets are known, before any pair is formed
        (:func:`~neardup.plan.budget.candidates_fit`: raises
        :class:`~neardup.plan.budget.Moved`). Where the buckets are read from the backend
        (not signed here) they are not checked."""
        bands = (
            self.backend.buckets(band)
            for band in tqdm(
                range(self.params.bands),
                desc="buckets",
                unit="band",
                disable=None if progress else True,
                leave=False,
            )
        )
        protect = protected_bands(self.params.bands, self.params.rows)
        total = self.backend.count()
        # why: neardup.defaults; a backend that kept the signatures is not signing again
        scan = DEFAULTS.scan_records
        if self.params.shingle_kind == "char":
            scan *= DEFAULTS.scan_char_factor
        if total <= scan or Capability.SIGNATURES in self.backend.capabilities:
            return self._signed_candidates(max_bucket, cap, protect, total, placed)
        return all_candidates(bands, max_bucket, cap, protect)

    def _signed_candidates(
        self, max_bucket: int | None, cap: int | None, protect: int, total: int = 0,
        placed: Placement | None = None,
    ) -> Candidates:  # fmt: skip
        """The candidates of every record, banded in numpy
        (:func:`~neardup.candidates.buckets.signature_candidates`) from the signatures the backend
        kept, or else signed again from the texts (what they were signed from when written);
        the texts stay with the candidates, so the report does not read them twice."""
        held: dict[str, str] = {}
        keeper = cast(SignatureStore, self.backend)
        kept_all = Capability.SIGNATURES in self.backend.capabilities
        stored = keeper.signatures() if kept_all else None
        if stored is not None:  # the screen's shingle hashes are kept too, or made here
            kept, sigs = stored
            held.update(self.backend.all_texts())
            hashes = keeper.shingle_hashes(kept)
            if hashes is None:
                sizes = np.fromiter((len(held[i]) for i in kept), np.int64, count=len(kept))
                hashes = held_hashes(lambda j: held[kept[j]], sizes, self.processor)
            row = {i: n for n, i in enumerate(kept)}
        else:

            def arriving() -> Iterator[str]:
                for i, text in self.backend.all_texts():
                    if i not in held:  # a backend gives each record once; if not, the first
                        held[i] = text
                        yield text

            # Signed as they arrive (the backend reads ahead meanwhile), each text prepared
            # once for its signature and its shingle hashes (the screen's).
            sigs, hashes = signed_for_screen(arriving(), self.processor, total, SIGN_THREADS)
            row = {i: n for n, i in enumerate(held)}
        # then put in id order
        ids = sort_ids(held)
        order = np.fromiter((row[i] for i in ids), dtype=np.int64, count=len(ids))
        if not bool((order == np.arange(len(ids))).all()):
            sigs = sigs[order]
        if placed is not None and placed.budget is not None:
            buckets = band_buckets(sigs, self.params.bands, self.params.rows)
            candidates_fit(
                placed, len(ids), bound([sizes for _, sizes in buckets]),
                functools.partial(estimated, buckets, len(ids), max_bucket),
            )  # fmt: skip
        else:
            buckets = None
        found = signature_candidates(
            ids, sigs, self.params.bands, self.params.rows, max_bucket, cap, protect, buckets
        )
        del buckets
        found.texts = TextTable(found.ids, (held[i] for i in found.ids))
        if hashes is not None:
            found.hashes = runs_of(*hashes, [row[i] for i in found.ids])
        return found

    @_locked
    def candidates_since(
        self, batch: int, max_bucket: int | None = DEFAULT_MAX_BUCKET
    ) -> tuple[Candidates, set[str]]:
        """Candidate pairs with at least one record of ``batch`` or later (by the same rule as
        :meth:`candidates`), and those records' ids. Found from the new records' own keys: how
        many records hold each (one request), the members of the small buckets (one), and the
        records that hold two of a new record's large keys (one per 20 new records), so the
        cost follows the new records, not the index; a bucket of 50,000 records is counted,
        never listed."""
        own: dict[str, list[str]] = {}
        for rec in self.backend.records_since(batch):
            own[rec.id] = rec.keys
        if 2 * len(own) >= self.backend.count():
            # Most of the index is new (a file indexed again): every candidate at once, those
            # of the new records kept, costs a full report's time, where asking for each new
            # record's buckets cost 40 times that (20k records again: 64 s against 1.5 s).
            cands = self.candidates(False, max_bucket)
            new = np.fromiter((i in own for i in cands.ids), bool, count=len(cands.ids))
            cands.only(new[cands.first] | new[cands.second])
            return cands, set(own)
        counts = self.backend.key_counts(sorted({k for ks in own.values() for k in ks}))
        small, groups = large_key_groups(own, counts, max_bucket)
        members = self.backend.members(small)
        holders = self.backend.holding_two(groups) if groups else {}
        return fresh_candidates(own, counts, members, holders, max_bucket), set(own)

    @_locked
    def last_batch(self) -> int | None:
        """The newest batch written into the index, whether or not it holds a record now:
        ``report(since=index.last_batch())`` reports the pairs of the latest write, none once
        its records are deleted (not the pairs of the batch before it, already reported)."""
        held = (self.backend.written_batch(), self.backend.last_batch())
        return max((b for b in held if b is not None), default=None)

    @_locked
    def batch_records(self, batch: int) -> int:
        """How many records of ``batch`` the index holds (0: no such batch, or all removed)."""
        return self.backend.batch_records(int(batch))

    @_locked
    def report(
        self,
        threshold: float | None = None,
        *,
        mode: str = "dedup",
        prune: str | None = None,
        max_dist: int | None = None,
        progress: bool = False,
        since: int | None = None,
        max_bucket: int | None = DEFAULT_MAX_BUCKET,
        complete: bool | None = None,
        similarity: str = "auto",
        cap: int | None = DEFAULT_CAP,
        numbers_check: bool = True,
        columns: Mapping[str, str] | str | None = None,
        engine: Any = "auto",
        memory: str | int | None = None,
        names_check: bool = True,
        options: ReportOptions | None = None,
        labels: Any = None,
    ) -> Report:
        """All verified near-duplicate pairs, with the counts of how they were found.

        The keywords are those of :class:`~neardup.options.ReportOptions`, which says what
        each means and checks them; ``options`` gives them as one object instead (giving both
        is refused). Which rule decides: :func:`neardup.decision.route.route`.

        ``labels`` (link mode): a reviewer's labels, as the review page downloads them (a
        ``labels.tsv`` path, :class:`~neardup.read.pair_files.Labels`, or
        ``((source, id), (source, id), match)`` triples): the pairs are then decided by the
        rule they teach on every candidate's evidence (:mod:`neardup.decision.labelled`), with
        its precision and recall estimated from them. :meth:`ask` says which pairs to label.
        """
        given = ReportOptions(
            threshold, mode, prune, max_dist, progress, since, max_bucket, complete, similarity,
            cap, numbers_check, columns, engine, memory, names_check,
        )  # fmt: skip
        if options is not None and not isinstance(options, ReportOptions):
            raise ArgumentError(  # a dict was an AttributeError of the router
                f"options must be a ReportOptions (neardup.options), got "
                f"{type(options).__name__}: ReportOptions(**options), or the report's keywords"
            )
        if options is None:
            options = given
        elif given != ReportOptions():
            raise ArgumentError("give the report's options or its keywords, not both")
        checked: Labels | None = None
        if labels is not None:
            labels = self._as_labels(labels)
            if labels.drawn and len(labels.drawn) == len(labels):  # a check, which teaches none
                checked, labels = labels, None
        chosen = route(options, self.params.rule, self.params.threshold, self.from_data,
                       labels is not None)  # fmt: skip
        if checked is not None:
            result = self.report(options=options)
            result.rule = {**(result.rule or {}), "check": self._checked(result, checked)}
            return result
        if chosen.rule == LABELLED:
            result = self._report_labelled(labels, options.max_dist)
            result.index = self
            return result
        if chosen.rule == WEIGHTED:
            result = self._report_weighted(
                options.max_dist, options.numbers_check, dict(options.columns or ()),
                options.since, options.names_check, within=options.mode == "dedup",
            )
            result.index = self
            return self._said_nothing_new(result)
        with _gc_paused():
            result = self._report(options, chosen)
        if options.mode == "link" and not result.pairs and self._one_source():
            # as the weighted link says it (_two_sources): with a threshold given, an empty
            # report read as "no duplicates across the files"
            _two_sources(self._one_source() or [])
        result.index = self  # where to_pandas() reads the records' texts
        return self._said_nothing_new(result)

    def _said_nothing_new(self, result: Report) -> Report:
        """A report of new records that has none says why (:attr:`Report.nothing_new`): an
        empty report read as "no duplicates among the new records"."""
        since = result.since
        if since is None or result.new_records:
            return result
        if since == self.last_batch():
            result.nothing_new = (f"batch {since}, the newest written, holds no record now "
                                  "(its records were deleted): nothing new to report")  # fmt: skip
        else:
            result.nothing_new = (f"no record of batch {since} or later is in "
                                  f"{self.backend.location}: nothing new to report")  # fmt: skip
        return result

    def _report(self, options: ReportOptions, chosen: Route) -> Report:
        start = time.perf_counter()
        prune_mode, mode, since = options.pruning, options.mode, options.since
        records = self.backend.count()
        placed = self._placed(options, records)
        found = None
        if placed.engine == "memory":
            try:
                found = self._in_process(options, chosen, records, placed)
            except Moved as moved:  # its candidates would not fit the budget
                placed = moved.placement
        if found is None:  # the same steps, as one plan of table operations
            found = self._planned(options, chosen, placed)
        sources = found.sources
        # In link mode the candidates' sources, read above, are every pair's.
        pairs = prune(found.pairs, prune_mode,
                      sources=sources if prune_mode == "one-to-one" else None)  # fmt: skip
        parted = parted_pairs(found.decision.dropped, RecordNumbers(found.texts, self.processor))
        pairs, completion = self._completed(
            pairs, found.texts, chosen.complete, options.max_dist, parted,
            (found.decision.explain or {}).get("codes", {}).get("made"),
        )
        pairs = within_distance(pairs, options.max_dist)
        pairs = self._with_record_ids(pairs, sources, mode == "link")
        t3 = time.perf_counter()
        cands, decision, fresh = found.cands, found.decision, found.fresh
        return Report(
            pairs=pairs,
            records=records,
            bands=self.params.bands,
            buckets=cands.buckets,
            large_buckets=cands.large,
            max_bucket=options.max_bucket,
            capped=cands.capped,
            identical=cands.identical,
            repeated=cands.repeated,
            cap=cands.cap,
            candidates=len(cands),
            verified=found.verified,
            confirmed=len(pairs),
            threshold=decision.threshold,
            prune=prune_mode,
            mode=mode,
            rule=_said_of_new(decision.explain, decision.rule, fresh),
            seconds=time.perf_counter() - start,
            timings={"buckets": found.t1 - start, "fetch": found.t2 - found.t1,
                     "verify": t3 - found.t2},  # fmt: skip
            since=since,
            new_records=0 if fresh is None else len(fresh),
            completion=completion,
            dropped={
                check: self._with_record_ids(dropped, sources, mode == "link")
                for check, dropped in decision.dropped.items()
            },
            stood_out=decision.stood_out,
            engine=placed.name,
            engine_why=placed.why,
        )

    def _planned(self, options: ReportOptions, chosen: Route, placed: Placement) -> _Found:
        """The verified pairs and the rule's decision, from the plan run by an engine
        (:mod:`neardup.plan`)."""
        planned = decided(
            self.backend, self.processor, self.params.bands, self.params.rows, options,
            chosen.threshold, chosen.rule, self.primary_source, engine_named(placed.engine),
        )  # fmt: skip
        sources = None
        if options.mode == "link":
            # the kept pairs' records and the dropped ones': every pair written names its sources
            dropped = (p for d in planned.decision.dropped.values() for p in d)
            written = itertools.chain(planned.pairs, dropped)
            ids = sorted({i for p in written for i in (p.id1, p.id2)})
            sources = self.backend.sources(ids)
        now = time.perf_counter()
        return _Found(planned, planned.texts, planned.verified, planned.pairs, planned.decision,
                      sources, None, now, now)  # fmt: skip

    def _in_process(
        self, options: ReportOptions, chosen: Route, records: int, placed: Placement
    ) -> _Found:
        """The verified pairs and the rule's decision, found in this process: candidates (of
        the records since a batch, given one), the link's cut across sources, the texts, the
        screen and exact verification, then the rule. Raises
        :class:`~neardup.plan.budget.Moved` where ``placed`` (``auto``'s) finds the candidates
        over its budget."""
        fresh: set[str] | None = None
        if options.since is None:
            cands = self._candidates(options.progress, options.max_bucket, options.cap, placed)
        else:
            cands, fresh = self.candidates_since(options.since, options.max_bucket)
        t1 = time.perf_counter()
        sources = None  # link mode: every candidate's source
        if options.mode == "link":
            sources = across_sources(cands, self.backend.sources)
        texts = cands.texts
        if texts is None:
            texts = TextTable.read(self.backend, cands.ids, used_codes(cands))
        t2 = time.perf_counter()
        threshold = chosen.threshold
        keep = screen_keep(cands, texts, self.processor, threshold)
        pairs = verify_codes(
            cands.first[keep], cands.second[keep], texts, self.processor, threshold,
            options.progress, options.max_dist,
        )  # fmt: skip
        features = Features(
            pairs, texts, self.processor, records, fresh, self.backend.columns,
            self.backend.sources, self.primary_source, dict(options.columns or ()),
            self.backend.all_texts if options.mode == "dedup" else None,
            cast(SignatureStore, self.backend).shingle_hashes
            if Capability.SIGNATURES in self.backend.capabilities else None,
        )  # fmt: skip
        rule = rule_for(chosen.rule, threshold, numbers_check=options.numbers_check)
        kept, decision = rule.decide(features)
        return _Found(cands, texts, len(pairs), kept, decision, sources, fresh, t1, t2)

    def _completed(
        self,
        pairs: list[Pair],
        texts: Any,
        complete: bool,
        max_dist: int | None = None,
        parted: set[tuple[str, str]] | None = None,
        codes: Sequence[str] | None = None,
    ) -> tuple[list[Pair], dict[str, Any] | None]:
        """The pairs with their clusters completed where asked (:mod:`neardup.decision.completion`),
        never with a pair the decision's checks dropped as two entities (``parted``), nor one
        whose records hold different codes in a column the codes check was made on (``codes``:
        :mod:`neardup.decision.codes`: two sibling models), and what the completion did (their
        distances exact up to the report's ``max_dist``)."""
        if not complete:
            return pairs, None
        veto = (lambda missing: self._codes_differ(missing, codes)) if codes else None
        missing, completion = missing_pairs(
            [(p.id1, p.id2) for p in pairs], parted=parted or frozenset(), veto=veto
        )
        if missing:
            pairs = pairs + verify(
                missing, texts, self.processor, 0.0, screened=True, max_dist=max_dist
            )
            pairs.sort(key=lambda p: (id_key(p.id1), id_key(p.id2)))
        return pairs, completion

    def _codes_differ(
        self, missing: list[tuple[str, str]], codes: Sequence[str]
    ) -> tuple[list[tuple[str, str]], str]:
        """The ``missing`` pairs whose records hold different codes in ``codes``
        (:func:`neardup.decision.codes.codes_differ`), and why they are left out."""
        ids = sorted({i for ab in missing for i in ab}, key=id_key)
        asked = [Pair(a, b, 0.0, 0) for a, b in missing]
        gone = codes_differ(asked, self.backend.columns(ids), codes, self.processor.normalize)[1]
        why = f"whose records hold different codes in {', '.join(codes)}"
        return [(p.id1, p.id2) for p in gone], why

    def _placed(self, options: ReportOptions, records: int) -> Placement:
        """Where the report runs under its memory budget (:mod:`neardup.plan.budget`); a
        report of new records runs in this process, whatever its size."""
        if options.since is not None:
            return Placement("memory", "a report of new records runs in this process")
        sample = mean_text_bytes(self.backend.some_texts(SAMPLE)) if records else 0.0
        return place(options.engine, records, sample, options.memory)

    def _with_record_ids(
        self, pairs: list[Pair], sources: Mapping[str, str] | None, link: bool
    ) -> list[Pair]:
        """Pairs with the records' own ids and, where they matter, sources
        (:func:`neardup.index.with_record_ids`)."""
        if not link and not any(qualified(p.id1) or qualified(p.id2) for p in pairs):
            return with_record_ids(pairs, {}, self.primary_source, False, self._named(pairs))
        if sources is None:
            sources = self.backend.sources(sorted({i for p in pairs for i in (p.id1, p.id2)}))
        return with_record_ids(pairs, sources, self.primary_source, link, named=True)

    def _named(self, pairs: Sequence[Pair]) -> bool:
        """Whether a dedup's pairs of the primary source's records name it: where the index
        holds another source, as neighbors, clusters and the CLI's pairs file name it (a
        record is its source and its id; ``(None, '1')`` and ``('a.csv', '1')`` were two
        keys of one record). Asked once a report, not per pair (:meth:`_holds_another_source`)."""
        primary = self.primary_source
        return bool(pairs) and bool(primary) and self._holds_another_source(primary or "")

    def _report_weighted(
        self,
        max_dist: int | None,
        numbers_check: bool = True,
        given_columns: Mapping[str, str] | None = None,
        since: int | None = None,
        names_check: bool = True,
        *,
        within: bool = False,
    ) -> Report:
        """The link report decided by weighted similarity (:mod:`neardup.decision.link`). With
        ``since``, the pairs of the full link that hold a record of that batch or later, from
        what the last full link kept when it holds the other records
        (:mod:`neardup.decision.link_new`), else from a full link. ``within``: the weighted
        dedup of the collection (any two records, one partner each), always made in full."""
        start = time.perf_counter()
        fresh: set[str] | None = None
        if since is not None:
            fresh = {rec.id for rec in self.backend.records_since(since)}
            linked = None if within else self._link_new(fresh, numbers_check, names_check)
            if linked is not None:
                return self._weighted_report(linked, max_dist, start, start, since, fresh)
        batch = self.backend.last_batch()
        held = {rec.id: rec.text for rec in self.backend.records()}
        keys = sort_ids(held)  # the rows in id order whatever the backend's (ties: link.py)
        texts = [held[k] for k in keys]
        t1 = time.perf_counter()
        of = self.backend.sources(keys)
        sources = [of.get(k, "") for k in keys]
        if not within:
            _two_sources(sources)
        order = [self.primary_source] if self.primary_source is not None else []
        stored = self.backend.columns(keys)
        columns = [stored.get(k) for k in keys]
        linked = link(
            keys, texts, sources, self.processor, order, columns, check_numbers=numbers_check,
            given_columns=given_columns, check_names=names_check, within=within,
        )  # fmt: skip
        if linked.state is not None:
            linked.state.batch = batch
        if not within:  # what a link of new records starts from
            self._link_state = linked.state
        if fresh is not None:
            linked.pairs = [p for p in linked.pairs if p.id1 in fresh or p.id2 in fresh]
            linked.dropped = [p for p in linked.dropped if p.id1 in fresh or p.id2 in fresh]
            linked.dropped_names = [p for p in linked.dropped_names
                                    if p.id1 in fresh or p.id2 in fresh]  # fmt: skip
        return self._weighted_report(linked, max_dist, start, t1, since, fresh)

    def _link_new(
        self, fresh: set[str], numbers_check: bool, names_check: bool = True
    ) -> Linked | None:
        """The pairs of the ``fresh`` records from the last full link's state brought up to
        date, or None where it cannot hold every other record (none yet, records removed
        since, another primary source)."""
        state = self._link_state
        order = [self.primary_source] if self.primary_source is not None else []
        if state is None or state.batch is None or state.order != order:
            return None
        batch = self.backend.last_batch()
        later = list(self.backend.records_since(state.batch + 1))
        if len(set(state.keys) | {rec.id for rec in later}) != self.backend.count():
            return None  # records removed since: the state holds some no more in the index
        ids = [rec.id for rec in later]
        of, stored = self.backend.sources(ids), self.backend.columns(ids)
        state = updated(
            state, [(r.id, r.text, of.get(r.id, ""), stored.get(r.id)) for r in later],
            self.processor, batch,
        )  # fmt: skip
        self._link_state = state
        return link_new(state, fresh, self.backend.texts, self.processor,
                        check_numbers=numbers_check, check_names=names_check)  # fmt: skip

    def _weighted_report(
        self, linked: Linked, max_dist: int | None, start: float, t1: float,
        since: int | None, fresh: set[str] | None,
    ) -> Report:  # fmt: skip
        across = not (linked.state is not None and linked.state.within)  # link, not dedup
        held = linked.pairs + linked.dropped + linked.dropped_names
        ids = sorted({i for p in held for i in (p.id1, p.id2)})
        of = self.backend.sources(ids)
        primary, every = self.primary_source, not across and self._named(held)
        pairs = with_record_ids(linked.pairs, of, primary, across, every)
        dropped = with_record_ids(linked.dropped, of, primary, across, every)
        named = with_record_ids(linked.dropped_names, of, primary, across, every)
        pairs = within_distance(pairs, max_dist)
        t2 = time.perf_counter()
        decision = Decision("weighted", linked.explain["threshold"], explain=linked.explain)
        return Report(
            pairs=pairs,
            # every record: a weighted dedup's state holds one record of each text
            records=self.backend.count(),
            bands=0,  # candidates by TF-IDF top-k, not banded
            candidates=linked.candidates,
            verified=linked.mapped,
            confirmed=len(pairs),
            threshold=decision.threshold,
            prune="one-to-one",
            mode="link" if across else "dedup",
            rule=decision.explain,
            seconds=time.perf_counter() - start,
            timings={"fetch": t1 - start, "link": t2 - t1},
            since=since,
            new_records=0 if fresh is None else len(fresh),
            dropped={k: v for k, v in (("numbers", dropped), ("names", named)) if v},
        )

    def _link_records(self) -> tuple[list[str], list[str], list[str], list[str],
                                     list[Mapping[str, str] | None]]:  # fmt: skip
        """Every record as a link reads it: keys, texts, sources, the sources' order (the
        primary first) and columns."""
        held = {rec.id: rec.text for rec in self.backend.records()}
        keys = sort_ids(held)  # the rows in id order whatever the backend's: the same rule
        texts = [held[k] for k in keys]
        of = self.backend.sources(keys)
        stored = self.backend.columns(keys)
        order = [self.primary_source] if self.primary_source is not None else []
        sources = [of.get(k, "") for k in keys]
        _two_sources(sources)
        return keys, texts, sources, order, [stored.get(k) for k in keys]

    @staticmethod
    def _as_labels(labels: Any) -> Labels:
        """The labels as :class:`~neardup.read.pair_files.Labels`: a labels file's path, one
        already, or ``((source, id), (source, id), match[, drawn at random])`` items."""
        if isinstance(labels, str | os.PathLike):
            return read_labels(labels)
        if isinstance(labels, Labels):
            return labels
        labels = _frame_labels(labels)
        matches, non, drawn = [], [], set()
        said: dict[frozenset[Any], bool] = {}
        where: dict[frozenset[Any], str] = {}
        form = ("a label is ((source, id), (source, id), match) with match True or False (or "
                "'match', 'non-match'), and for a pair drawn at random (check) a fourth item "
                "True")  # fmt: skip
        if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
            raise ArgumentError(f"labels: a labels file's path, or an iterable: {form}")
        for k, item in enumerate(labels, start=1):
            at = f"label {k}"
            if not (isinstance(item, tuple | list) and len(item) in (3, 4)) or not all(
                isinstance(r, tuple | list) and len(r) == 2 for r in item[:2]
            ):
                raise ArgumentError(f"{at}: {form}, got {item!r:.80}")
            pair = tuple((str(s), _id_text(r) or str(r)) for s, r in item[:2])  # 1.0: '1'
            pair = cast(tuple[tuple[str, str], tuple[str, str]], pair)
            match = _label_value(item[2], at, form)
            if pair[0] == pair[1] and pair[0][0]:  # ids alone: one of each source
                raise ArgumentError(f"{at}: a record paired with itself ({pair[0]!r})")
            key = frozenset(pair)
            if said.setdefault(key, match) != match:
                raise ArgumentError(f"{at}: this pair is labelled both ways ({where[key]} too)")
            if key in where:
                continue  # said twice alike: once
            where[key] = at
            (matches if match else non).append(pair)
            if len(item) > 3 and _label_value(item[3], at, form):
                drawn.add(key)
        return Labels("the labels given", matches, non, frozenset(drawn), where)  # type: ignore[arg-type]

    def _one_source(self) -> list[str] | None:
        """The sources of the index's records, as many as it holds records, where they are
        all of one source (and there are two records or more); else None. Read only when a
        link report found nothing: a facet where the storage keeps one, else every record's."""
        n = self.backend.count()
        if n < 2:
            return None
        held = [s if s != "(none)" else "" for s in self.source_counts(2)[0]]  # unnamed
        return [held[0]] * n if len(held) == 1 else None

    def _checked(self, report: Report, labels: Labels) -> dict[str, Any]:
        """The precision of ``report`` estimated from the pairs drawn at random from those it
        keeps (:meth:`check`) and labelled: the share of them that are matches, with its 95%
        (Wilson) interval. A pair drawn from another report and not kept by this one is left
        out, and the line says how many were."""
        primary = self.primary_source or ""

        def key(source: str | None, rid: str) -> tuple[str, str]:
            return (source or primary, rid)

        kept = {frozenset({key(p.source1, p.id1), key(p.source2, p.id2)}) for p in report.pairs}
        names = list(dict.fromkeys([*(s for s in [self.primary_source] if s),
                                    *(s for p in report.pairs for s in (p.source1, p.source2)
                                      if s)]))  # fmt: skip
        said: list[tuple[frozenset[tuple[str, str]], bool]] = []
        resolved: dict[frozenset[Any], tuple[bool, str]] = {}
        for pairs, match in ((labels.matches, True), (labels.non_matches, False)):
            for a, b in pairs:
                if frozenset((a, b)) not in labels.drawn:
                    continue
                where = labels.at(a, b)
                pair = self._drawn_pair(a, b, names, report.mode, where)
                if not _said_before(resolved, pair, match, where):  # once, however spelled
                    said.append((pair, match))
        inside = [match for pair, match in said if pair in kept]
        out: dict[str, Any] = {"drawn": len(said), "kept": len(inside), "matches": sum(inside)}
        if not inside:
            out["line"] = (f"checked: none of the {len(said)} pairs drawn at random is "
                           "among this report's pairs: no precision to estimate")  # fmt: skip
            return out
        hits, n = sum(inside), len(inside)
        low, high = wilson(hits, n)
        out["precision"] = {"value": round(hits / n, 3), "low": round(low, 3),
                            "high": round(high, 3), "of": n}  # fmt: skip
        out["line"] = (f"checked: {hits} of {n} pairs drawn at random from those kept are "
                       f"matches: precision {hits / n:.2f} ({low:.2f}-{high:.2f}, 95% "
                       "interval)")  # fmt: skip
        if len(said) > n:  # a stale or hand-edited check: said, or it read as used whole
            left = len(said) - n
            out["line"] += (f"; {left} of the {len(said)} labelled pairs drawn at random "
                            f"{'is' if left == 1 else 'are'} not among the pairs kept: left "
                            "out")  # fmt: skip
        return out

    def _drawn_pair(
        self, a: tuple[str, str], b: tuple[str, str], names: Sequence[str], mode: str,
        where: str,
    ) -> frozenset[tuple[str, str]]:  # fmt: skip
        """The two records a label of a check names, as a report names them ``(source, id)``:
        read as a label that teaches is (:meth:`_label_pair`): a source however the file was
        spelled, ids alone of the sources that hold them (of a link's two, the first column
        the first's); a record the index does not hold is refused with its line. Before, a
        label naming ``a.csv`` where the index says ``/data/a.csv``, or no source, was
        silently never among the pairs kept."""
        primary = self.primary_source or ""

        def held(source: str, rid: str) -> list[tuple[str, str]]:
            named = [_label_source(source, names)] if source else (list(names) or [primary])
            keys = {self.key(rid, s or None): (s or primary, rid) for s in named}
            found = self.backend.sources(list(keys))
            return [rec for k, rec in keys.items() if k in found]

        first, second = held(*a), held(*b)
        for (source, rid), found in ((a, first), (b, second)):
            if not found:
                raise InputError(_not_held(where, rid, source, names, "a pair drawn at random "
                                           "from another index checks nothing here",
                                           self._held_form(rid, source, names)))  # fmt: skip
        both = [(x, y) for x in first for y in second if mode != "link" or x[0] != y[0]]
        if not both:
            raise InputError(f"{where}: both records are of {first[0][0]}: a link's pair is "
                             "of two records of two sources")  # fmt: skip
        if len(both) > 1 and not a[0] and not b[0] and len(names) == 2:
            both = [(x, y) for x, y in both if x[0] == names[0]]  # the first column's first
        if len(both) != 1:
            raise InputError(_unsure(where, a, b))
        return frozenset(both[0])

    def close(self) -> None:
        """Close the storage where it holds a file or a connection: a DuckDB file writes its
        last records and frees the file for other processes; a temporary one is deleted. The
        index cannot be used after (its reads and writes say so, whatever the storage)."""
        with self._lock:
            self._closed = True
        closing = getattr(self.backend, "close", None)
        if callable(closing):
            closing()

    def __enter__(self) -> NearDupIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @_locked
    def check(self, n: int = 20, labels: Any = None, *, mode: str = "link") -> list[Pair]:
        """``n`` pairs drawn at random from those the report keeps (in link mode with
        ``labels`` that teach, the rule they teach; else the default), none labelled yet, each
        with ``asked`` ``"at random"``. Labelled and given back to :meth:`report` (with the
        labels that teach, if any), they say how often its pairs are right: a random draw,
        unlike the pairs :meth:`ask` picks to teach, is a sample of the pairs kept as they
        are. The draw is seeded by the number of labels: the same labels, the same pairs."""
        check_all("ask", {"n": n})
        given = self._as_labels(labels) if labels is not None else None
        report = self.report(mode=mode, labels=given) if given else self.report(mode=mode)
        primary = self.primary_source or ""
        done = set(given.drawn) if given else set()
        if given:
            done |= {frozenset(pair) for pair in given.matches + given.non_matches}
        pool = [p for p in report.pairs if frozenset(
            {(p.source1 or primary, p.id1), (p.source2 or primary, p.id2)}) not in done]
        rng = np.random.default_rng([CHECK_SEED, len(done)])
        picked = sorted(rng.choice(len(pool), min(n, len(pool)), replace=False).tolist())
        return [dataclasses.replace(pool[i], asked=ASKED_AT_RANDOM,
                                    source1=pool[i].source1 or self.primary_source,
                                    source2=pool[i].source2 or self.primary_source)
                for i in picked]  # fmt: skip

    def _label_rows(
        self, labels: Any, keys: Sequence[str], sources: Sequence[str]
    ) -> tuple[str, list[Label]]:
        """The labels (a labels file's path, a :class:`~neardup.read.pair_files.Labels`, or
        ``((source, id), (source, id), match)`` triples) as rows of ``keys`` (of ``sources``).

        A label is of two records of two sources. Where a pair names no sources (a labels
        file of ids alone), each id is the record of a source that holds it: of a link of two
        sources, the first column the first source's and the second the other's where both
        hold both ids (as ``evaluate`` reads such a file); where that leaves more than one
        reading, the label is refused with its line. Before, ids alone were read as records
        of the first source, and a link report kept one pair inside it."""
        labels = self._as_labels(labels)
        name = labels.name
        said = [(a, b, True, frozenset({a, b}) in labels.drawn) for a, b in labels.matches]
        said += [(a, b, False, frozenset({a, b}) in labels.drawn)
                 for a, b in labels.non_matches]  # fmt: skip
        row = {k: n for n, k in enumerate(keys)}
        of = dict(zip(keys, sources, strict=True))
        names = list(dict.fromkeys([*(s for s in [self.primary_source] if s), *sources]))
        if len(names) == 2 and self._ids_second_first(said, row, names, name):
            names.reverse()  # ids alone: the first column is the second source's
        out: list[Label] = []
        resolved: dict[frozenset[str], tuple[bool, str]] = {}
        for a, b, match, drawn in said:
            where = labels.at(a, b)
            ka, kb = self._label_pair(a, b, row, of, names, where)
            if _said_before(resolved, frozenset({ka, kb}), match, where, of):
                continue  # the same records labelled alike, spelled otherwise: taught once
            out.append((row[ka], row[kb], match, drawn))
        return name, out

    def _ids_second_first(
        self, said: Sequence[tuple[Any, Any, bool, bool]], row: Mapping[str, int],
        names: Sequence[str], name: str,
    ) -> bool:  # fmt: skip
        """Whether labels of ids alone are written the other way round (the second source's
        id first), as ``evaluate`` reads a gold file of ids: the way more of them name records
        of the index, else the way their matches are more alike. Read the first way always, a
        file written b-then-a taught a rule from 60 wrong pairs, exit 0."""
        bare = [(a[1], b[1], m) for a, b, m, _ in said if not a[0] and not b[0]]
        if not bare:
            return False
        ways = []
        for first, second in (names, names[::-1]):
            found = [(self.key(x, first), self.key(y, second), m) for x, y, m in bare]
            found = [(ka, kb, m) for ka, kb, m in found if ka in row and kb in row]
            ways.append(found)
        if len(ways[0]) != len(ways[1]):
            flip = len(ways[1]) > len(ways[0])
        else:
            flip = self._alike(ways[1]) > self._alike(ways[0])
        if flip:
            warnings.warn(NeardupWarning(
                f"{name}: labels of ids alone read as {names[1]}'s id first, then "
                f"{names[0]}'s: that way {len(ways[1])} of {len(bare)} name records of the "
                "index and their matches are the more alike (give source1 and source2 to say)"
            ), stacklevel=3)  # fmt: skip
        return flip

    def _alike(self, pairs: Sequence[tuple[str, str, bool]]) -> float:
        """The mean Jaccard of the pairs labelled match (-1 without any)."""
        matches = [(a, b) for a, b, m in pairs if m]
        if not matches:
            return -1.0
        texts = self.backend.texts(sorted({k for pair in matches for k in pair}))
        sets = {k: self.processor.shingle_set(t) for k, t in texts.items()}
        return float(np.mean([jaccard(sets.get(a, frozenset()), sets.get(b, frozenset()))
                              for a, b in matches]))  # fmt: skip

    def _label_pair(
        self, a: tuple[str, str], b: tuple[str, str], row: Mapping[str, int],
        of: Mapping[str, str], names: Sequence[str], where: str,
    ) -> tuple[str, str]:  # fmt: skip
        """The keys of one label's two records (see :meth:`_label_rows`)."""

        def held(source: str, rid: str) -> list[str]:
            named = [_label_source(source, names)] if source else list(names)
            return [k for k in (self.key(rid, s) for s in named) if k in row]

        first, second = held(*a), held(*b)
        for (source, rid), found in ((a, first), (b, second)):
            if not found:
                raise InputError(_not_held(where, rid, source, names, "its label cannot teach "
                                           "(index it, or leave the line out)",
                                           self._held_form(rid, source, names)))  # fmt: skip
        both = [(x, y) for x in first for y in second if of[x] != of[y]]
        if not both:
            raise InputError(f"{where}: both records are of {of[first[0]]}: a link's label "
                             "is of two records of two sources")  # fmt: skip
        if len(both) > 1 and not a[0] and not b[0] and len(names) == 2:
            both = [(x, y) for x, y in both if of[x] == names[0]]  # the first column's first
        if len(both) > 1:
            raise InputError(_unsure(where, a, b))
        return both[0]

    def _report_labelled(self, labels: Any, max_dist: int | None) -> Report:
        """The link report decided by the rule a reviewer's labels teach
        (:mod:`neardup.decision.labelled`)."""
        start = time.perf_counter()
        keys, texts, sources, order, columns = self._link_records()
        name, rows = self._label_rows(labels, keys, sources)
        t1 = time.perf_counter()
        decided = link_by_labels(texts, sources, self.processor, rows, order, columns)
        scored = decided.scored()
        found = link_pairs([(c, a, b) for c, _, a, b in scored], keys, texts, self.processor)
        chance = {(keys[a], keys[b]): p for _, p, a, b in scored}
        found = [dataclasses.replace(p, probability=round(chance[(p.id1, p.id2)], 6))
                 for p in found]  # fmt: skip
        of = dict(zip(keys, sources, strict=True))
        pairs = within_distance(with_record_ids(found, of, self.primary_source, True), max_dist)
        explain = decided.explain(name)
        t2 = time.perf_counter()
        return Report(
            pairs=pairs,
            records=len(keys),
            bands=0,  # candidates by TF-IDF top-k, not banded
            candidates=len(decided.evidence),
            verified=len(decided.evidence),
            confirmed=len(pairs),
            threshold=explain["threshold"],
            prune="one-to-one",
            mode="link",
            rule=explain,
            seconds=time.perf_counter() - start,
            timings={"fetch": t1 - start, "link": t2 - t1},
        )

    @_locked
    def ask(self, n: int = 20, labels: Any = None) -> list[Pair]:
        """The ``n`` candidate pairs of a link whose labels would teach the most
        (:mod:`neardup.decision.ask`), given the ``labels`` so far (as :meth:`report` takes
        them; None: none yet). Each pair's ``probability`` is the current rule's (None before
        the labels can teach one), its ``asked`` ``"to teach"`` (:meth:`check` draws pairs to
        check a report instead). An empty index has none to ask: ``[]``."""
        check_all("ask", {"n": n})
        keys, texts, sources, order, columns = self._link_records()
        if not keys:  # nothing to ask, as report(mode="link") and check() find nothing
            return []  # (scikit-learn's TF-IDF raised a bare ValueError, "empty vocabulary")
        rows = self._label_rows(labels, keys, sources)[1] if labels is not None else []
        asked = pairs_to_ask(texts, sources, self.processor, n, rows, order, columns)
        found = link_pairs([(c, a, b) for c, _, a, b in asked], keys, texts, self.processor)
        chance = {(keys[a], keys[b]): p for _, p, a, b in asked}
        found = [dataclasses.replace(p, probability=None if chance[(p.id1, p.id2)] is None
                                     else round(chance[(p.id1, p.id2)], 6),  # type: ignore[arg-type]
                                     asked=ASKED_UNCERTAIN)
                 for p in found]  # fmt: skip
        of = dict(zip(keys, sources, strict=True))
        return with_record_ids(found, of, self.primary_source, True)

    def frame(self, report: Report, text_column: str | None, kind: str) -> Any:
        """``report``'s pairs as a ``kind`` (pandas or polars) DataFrame, with this index's
        texts and sources (:meth:`Report.to_pandas <neardup.results.Report.to_pandas>`)."""
        return to_frame(pair_columns(report, self, text_column), kind)

    def pairs(self, threshold: float | None = None, **options: Any) -> list[Pair]:
        """All verified near-duplicate pairs: :meth:`report`'s pairs, with its keywords (see
        it for the counts too)."""
        return self.report(threshold, **options).pairs

    def clusters(
        self, threshold: float | None = None, *, mode: str = "dedup", prune: str | None = None
    ) -> list[list[str]] | list[list[tuple[str, str]]]:
        """Groups of records linked by verified pairs, largest first: center clusters
        (:mod:`neardup.decision.cluster`), each its center first, so that groups do not chain.

        A member is its id while every record clustered is of the primary source; once one
        is not (link mode, or several sources in one index), every member is a
        ``(source, id)`` pair, since an id alone would name two records."""
        pairs = self.pairs(threshold, mode=mode, prune=prune)
        primary = self.primary_source
        found = pair_clusters(pairs, primary)
        if not any(p.source1 is not None or p.source2 is not None for p in pairs):
            return [[record_id(m) for m in c.members] for c in found]
        return [
            [(source_of_key(m) or primary or "", record_id(m)) for m in c.members] for c in found
        ]

    @_locked
    def query(self, text: str, k: int = 10, threshold: float = 0.0) -> list[Match]:
        """The ``k`` records most similar to any text, in the index or not (one lookup)."""
        check_text(text, "the query text")
        if not self.processor.normalize(text):
            raise InputError("the query text has no words after normalization")
        sig = self.processor.signatures_batch([text])
        keys = band_keys_batch(sig, self.params.bands, self.params.rows)[0]
        return self._sourced(self._rank(text, keys, k, threshold))

    @_locked
    def search(self, text: str, k: int = 10, threshold: float = 0.0) -> list[Match]:
        """The ``k`` records that best answer a search: a query of at most
        :data:`SHORT_QUERY` words is scored by containment (the share of its words' shingles a
        record holds: a two-word query finds the records holding both words, which Jaccard
        against a long record cannot), ties by Jaccard; a longer one is :meth:`query`.

        Why not LSH: it finds records *similar* to the query, and a short query is similar to
        no long record. The backend looks the query's terms up instead
        (:meth:`~neardup.backends.base.TermSearch.holding`: the records that hold the most of
        them, and all tied with the ``k``-th), and those are scored here, so the answer is the
        one a scan of every record gives. A backend without a lookup (a Solr collection made
        before its search fields, or of k-grams past them) is scanned whole up to
        :data:`SCAN_LIMIT` records; above
        that, only the records that share a band with the query are (said in a warning).
        """
        check_text(text, "the query text")
        words = self.processor.words(text)
        if not words:
            raise InputError("the query text has no words after normalization")
        if len(words) > SHORT_QUERY:
            return self.query(text, k, threshold)
        _check_rank(k, threshold)
        processor = self.processor
        if processor.kind == "word":
            mine = frozenset(words)
        else:
            mine = frozenset().union(*(processor.shingle_set(w) for w in words))
        whole = processor.shingle_set(text)
        keys = band_keys_batch(processor.signatures_batch([text]), self.params.bands,
                               self.params.rows)[0]  # fmt: skip
        keyset = set(keys)
        held = held_share(processor, mine)
        # Every hit's share first (cheap), then Jaccard and distance for those that can still
        # be among the k best: the share orders them first.
        shares: list[tuple[float, str, str, list[str] | None]] = []
        for rid, text, hit_keys in self._search_hits(mine, whole, keys, k, threshold):
            share = held(text)
            if share > 0.0 and share >= threshold:
                shares.append((share, rid, text, hit_keys))
        shares.sort(key=lambda h: -h[0])
        if len(shares) > k:
            kth = shares[k - 1][0]
            shares = [h for h in shares if h[0] >= kth]
        scored: list[tuple[float, Match]] = []
        for share, rid, text, hit_keys in shares:
            jac = verified_jaccard(whole, processor.shingle_set(text)) or 0.0
            match = Match(
                record_id(rid), text, round(jac, 6),
                word_edit_distance(words, processor.words(text)), -1 if hit_keys is None
                else len(keyset.intersection(hit_keys)), source_of_key(rid), round(share, 6),
            )  # fmt: skip
            scored.append((share, match))
        scored.sort(key=lambda sm: (-sm[0], -sm[1].jaccard, sm[1].edit_distance, id_key(sm[1].id)))
        return self._sourced([self._with_shared_bands(m, keyset) for _, m in scored[:k]])

    def _with_shared_bands(self, match: Match, keyset: set[str]) -> Match:
        """``match`` with the bands its record shares with the query, read now where the scan
        that found it read texts only."""
        if match.shared_bands >= 0:
            return match
        stored = self.backend.get(self.key(match.id, match.source))
        shared = len(keyset.intersection(stored.keys)) if stored is not None else 0
        return dataclasses.replace(match, shared_bands=shared)

    def _search_hits(
        self,
        mine: frozenset[str],
        whole: frozenset[str],
        keys: Sequence[str],
        k: int,
        threshold: float,
    ) -> Iterable[tuple[str, str, list[str] | None]]:
        """The records :meth:`search` scores, (key, text, band keys or None): the backend's
        lookup of the query's terms, else a scan of every text (or, past :data:`SCAN_LIMIT`,
        the records sharing a band with the query)."""
        least = next((c for c in range(1, len(mine) + 1) if c / len(mine) >= threshold), None)
        if least is None:
            return []
        found = None
        # a query word shorter than a shingle is no looked-up term (a record's shingles are
        # longer): the texts are read, where they can be
        short = self.processor.kind == "char" and any(len(g) < self.processor.size for g in mine)
        if short and len(self) <= SCAN_LIMIT:
            return ((rid, text, None) for rid, text in self.backend.all_texts())
        if Capability.TERM_LOOKUP in self.backend.capabilities:
            lookup = cast(TermSearch, self.backend)
            found = lookup.holding(sorted(mine), sorted(whole), k, least)
        if found is not None:
            return ((hit.id, hit.text, hit.keys) for hit in found)
        if len(self) <= SCAN_LIMIT:  # the texts alone: a record's band keys are read for the k
            return ((rid, text, None) for rid, text in self.backend.all_texts())
        log.warning(
            "search: the index holds more than %d records and its backend cannot look terms "
            "up, so only those sharing an LSH band with the query were scored; a short query "
            "may miss some",
            SCAN_LIMIT,
        )
        return ((hit.id, hit.text, hit.keys) for hit in self.backend.sharing(sorted(set(keys))))

    @_locked
    def neighbors(
        self,
        record_id: str | int,
        k: int = 10,
        threshold: float = 0.0,
        *,
        source: str | None = None,
    ) -> list[Match]:
        """The ``k`` records most similar to one record of the index (itself left out): the
        record ``record_id`` of ``source`` (default: the primary source)."""
        record = self.backend.get(self.key(record_id, source))
        if record is None:
            of = f" of source {source!r}" if source else ""
            holding = self.sources_holding([record_id], source)
            hint = f"; {_holding_hint(holding)}" if holding else ""
            message = f"no record with id {str(record_id)!r}{of} in {self.backend.location}"
            message += self._other_form(str(record_id), source)
            raise RecordNotFound(message, holding, hint)
        found = self._rank(record.text, record.keys, k, threshold, exclude=record.id)
        return self._sourced(found, source)

    def _other_form(self, record_id: str, source: str | None) -> str:
        """What to add to "no record with id X" where the index holds X written in another
        Unicode form (``café`` typed with a combining accent): the two read alike."""
        for form in ("NFC", "NFD"):
            other = unicodedata.normalize(form, record_id)
            if other != record_id and self.backend.get(self.key(other, source)) is not None:
                return (f" (it holds {other!r}, which reads alike but is written in another "
                        f"Unicode form, {form}: give it as the index holds it)")  # fmt: skip
        return ""

    def _held_form(self, rid: str, source: str, names: Sequence[str]) -> str:
        """:meth:`_other_form` of a label's record not found: of its source, or of any of
        ``names`` where the label gives none ("" where no form is held)."""
        named = [_label_source(source, names)] if source else list(names)
        return next((said for s in named if (said := self._other_form(rid, s or None))), "")

    def _sourced(self, matches: list[Match], asked: str | None = None) -> list[Match]:
        """The matches with the primary source named too wherever the index holds records of
        another source, as a report's pairs name both: a record is its source and its id, and
        ``source`` None read as "the primary" only where there is no other. Before, it was
        named only where a match of the same answer (or the record asked about) was of
        another source, so one record came back as ``('1', None)`` or ``('1', 'a')`` by what
        else was found."""
        primary = self.primary_source
        if not matches or not primary or all(m.source is not None for m in matches):
            return matches
        if all(m.source is None for m in matches) and (asked is None or asked == primary):
            # all of the primary: named where another source is held (a one-source index, the
            # common case, names none, as its report does)
            if not self._holds_another_source(primary):
                return matches
        return [m if m.source is not None else dataclasses.replace(m, source=primary)
                for m in matches]  # fmt: skip

    def _holds_another_source(self, primary: str) -> bool:
        """Whether a record of another source than ``primary`` is held: known from this
        object's writes, else counted once (until it removes records), so that a search stays
        one request to the index, not three."""
        if self._another is None:  # (an index of unnamed records holds no other source)
            self._another = bool(primary) and (
                self.backend.source_records(primary) < self.backend.count()
            )
        return self._another

    def _rank(
        self,
        text: str,
        keys: Sequence[str],
        k: int,
        threshold: float,
        exclude: str | None = None,
    ) -> list[Match]:
        """Every record that shares a band key with the query is a candidate (no top-10 cut);
        candidates are ranked by their exact Jaccard similarity to it."""
        _check_rank(k, threshold)
        mine = self.processor.shingle_set(text)
        words = self.processor.words(text)
        keyset = set(keys)
        matches: list[Match] = []
        for hit in self.backend.sharing(sorted(keyset)):
            if hit.id == exclude:
                continue
            jac = verified_jaccard(mine, self.processor.shingle_set(hit.text))
            if jac is None or jac < threshold:
                continue
            matches.append(
                Match(
                    record_id(hit.id),
                    hit.text,
                    round(jac, 6),
                    word_edit_distance(words, self.processor.words(hit.text)),
                    len(keyset.intersection(hit.keys)),
                    source_of_key(hit.id),
                )
            )
        matches.sort(key=lambda m: (-m.jaccard, m.edit_distance, id_key(m.id)))
        return matches[:k]


def _check_rank(k: int, threshold: float) -> None:
    """The ``k`` and ``threshold`` of a ranked lookup (query, neighbours, search): a threshold
    of 0 is every candidate, ranked (:mod:`neardup.constraints` declares both)."""
    check_all("lookup", {"k": k, "threshold": threshold})


def _two_sources(sources: Sequence[str]) -> None:
    """Refuse a link of records that are all of one source: it pairs none of them, and an
    empty result would read as "no duplicates" (the review page said "weighted similarity
    >= 1")."""
    held = set(sources)
    if len(held) == 1:
        (only,) = held
        raise InputError(
            f"link mode pairs records of different sources, and all {len(sources)} records "
            f"are of one source ({only or 'unnamed'}): index a second file, name each row's "
            "source with --source-field (in Python: add_frame(source=...), add_many(..., "
            "source_name=...)), or find duplicates in dedup mode"
        )


def _bad_source(name: Any) -> bool:
    """Whether ``name`` cannot be a source: not a string, blank, or holding a control character
    (it is written into keys and output columns)."""
    if not isinstance(name, str) or not name.strip():
        return True
    return any(ord(c) < 32 or ord(c) == 127 for c in name)


def _source_name(name: str | None, default: str) -> str:
    """A source named in Python: a non-empty string without control characters (it is
    written into keys and output columns), else ``default``."""
    if name is None:
        return default
    if not isinstance(name, str) or not name.strip():
        raise ArgumentError(f"source_name must be a non-empty string, got {name!r}")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ArgumentError(f"source_name may not hold a control character: {name!r}")
    return name


@dataclasses.dataclass
class _Found:
    """What a report found before pruning: the candidates (their counts), the texts read, how
    many pairs were verified, the pairs the rule kept and its decision, the candidates'
    sources (link mode), the new records (a report since a batch), and when the candidates
    and the texts were ready."""

    cands: Any
    texts: Any
    verified: int
    pairs: list[Pair]
    decision: Decision
    sources: dict[str, str] | None
    fresh: set[str] | None
    t1: float
    t2: float


class _Batch:
    """What :meth:`NearDupIndex.batch` returns: ``add`` records, then the context commits and
    says the records it rejected (:class:`RejectedRows`), as :meth:`NearDupIndex.add_many`
    does."""

    def __init__(self, index: NearDupIndex, writer: Writer, source: str = "<records>") -> None:
        self.index = index
        self._writer = writer
        self._n = 0
        self._source = source
        self.stats = writer.stats
        self._next: list[Item] = []
        # the ids of add() checked as add_many checks them: one record in, one out
        self._checked = checked_items(iter(self._next.pop, None))

    def add(self, record_id: str, text: str) -> None:
        self._n += 1
        self._next.append(_as_record((record_id, text), self._n, self._source))
        self._writer.write(next(self._checked))

    def add_record(self, item: Item) -> None:
        """An item of :func:`neardup.read.records.read_records` (a record, a rejection or a
        blank)."""
        self._writer.write(item)

    def __enter__(self) -> _Batch:
        self.index._lock.acquire()  # no report reads the index while the batch writes it
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            if exc_type is None:
                self.stats = self._writer.close()
            else:
                self._writer.abort()
        finally:
            self.index._unnamed = None
            self.index._lock.release()
        if exc_type is None:  # said once, for every batch written, as add_many says its own
            _said_rejected(self.stats, frame=False)
