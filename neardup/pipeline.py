"""Batched, pipelined writes into a backend, with counts that add up and per-record rejections."""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from tqdm import tqdm

from .backends.base import Backend
from .constraints import check_all
from .errors import SolrRequestError
from .read.items import Blank, EmptyText, Item, Record, Rejection, Unstored

#: A batch is sent once its records' text reaches this many bytes, whatever their number: a
#: thousand records of 7 MB each (each under the reader's limit) would otherwise make one 7 GB
#: update, which Solr's heap cannot hold. A document carries its text about twice (as written
#: and normalized) and each writer sends a slice of the batch, so a request stays near this.
BATCH_BYTES = 16 << 20
#: Rejections kept in full for the report; the rest are only counted (a million bad lines must not
#: fill memory), and the CLI says how many were not shown.
KEEP_REJECTIONS = 1000


#: Where a reason's detail starts: ": " or ", ", but not the ", " of a list of names ("no text
#: in 'title', 'brand'").
_DETAIL = re.compile(r": |, (?![\'\"])")
#: A place in a line or file ("at column 12"), the detail of a reason wherever it stands.
_PLACE = re.compile(r" at (?:line|column|character|byte) \d+\b")


def reason_kind(reason: str) -> str:
    """The kind of a rejection's reason, which :attr:`IndexStats.reasons` counts: the reason up
    to its detail (the value got, the line an id was first seen at, the parser's message),
    which starts at the first ``": "`` or ``", "`` outside brackets, and without a place in the
    line. Why: cut at its first comma and at " at ", a reason was cut mid-word ("id is a
    float", "invalid JSON: Expecting '"), two kinds were one ("no text in 'title'" and
    "no text in 'title', 'brand'"), and a kind with its value was as many kinds as values."""
    for sep in _DETAIL.finditer(reason):
        head = reason[: sep.start()]
        if sum(map(head.count, "([{")) <= sum(map(head.count, ")]}")):
            reason = head
            break
    return _PLACE.sub("", reason).strip() or reason


@dataclass
class IndexStats:
    """Counts that add up: ``read == indexed + rejected + identical`` and
    ``lines == read + blank``. ``empty`` counts the rejected records whose text is empty;
    ``identical`` the copies of an earlier record (same id and text), indexed once."""

    read: int = 0
    indexed: int = 0
    rejected: int = 0
    blank: int = 0
    empty: int = 0
    identical: int = 0
    seconds: float = 0.0
    rejections: list[Rejection] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)
    #: The rejected records whose text holds no word (punctuation only): read whole, but
    #: nothing in them to compare.
    wordless: int = 0

    def reject(self, rejection: Rejection) -> None:
        self.rejected += 1
        if isinstance(rejection, EmptyText):
            self.empty += 1
        elif isinstance(rejection, Unstored):
            self.wordless += 1
        key = reason_kind(rejection.reason)
        self.reasons[key] = self.reasons.get(key, 0) + 1
        if len(self.rejections) < KEEP_REJECTIONS:
            self.rejections.append(rejection)

    def plus(self, other: IndexStats) -> IndexStats:
        """The counts of two files read one after the other (their first rejections kept)."""
        reasons = dict(self.reasons)
        for key, n in other.reasons.items():
            reasons[key] = reasons.get(key, 0) + n
        return IndexStats(
            self.read + other.read, self.indexed + other.indexed,
            self.rejected + other.rejected, self.blank + other.blank, self.empty + other.empty,
            self.identical + other.identical, self.seconds + other.seconds,
            (self.rejections + other.rejections)[:KEEP_REJECTIONS], reasons,
            self.wordless + other.wordless,
        )  # fmt: skip

    def rejected_note(self, frame: bool = False, shown: int = 3) -> str | None:
        """What a library call that rejected records says (:class:`~neardup.errors.RejectedRows`):
        how many, by reason, and the first ``shown`` with their place and id; None if none was.
        ``frame``: the records were a DataFrame's rows, whose "line" is the position + 1."""
        if not self.rejected:
            return None
        first = "; ".join(str(r) for r in self.rejections[:shown])
        more = f"; {self.rejected - shown} more" if self.rejected > shown else ""
        kinds = ", ".join(f"{n} {reason}" for reason, n in self.reasons.items())
        where = " (a DataFrame's line N is its row at position N-1)" if frame else ""
        return (
            f"{self.rejected} of the {self.read} records read were rejected, not indexed "
            f"({kinds}): {first}{more}{where}; IndexStats.rejections lists them"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "read": self.read,
            "indexed": self.indexed,
            "rejected": self.rejected,
            "blank_lines": self.blank,
            "empty_texts": self.empty,
            "identical": self.identical,
            "seconds": round(self.seconds, 3),
            "reasons": self.reasons,
            "rejections": [
                {"source": r.source, "line": r.line, "reason": r.reason, "id": r.id}
                for r in self.rejections
            ],
        }


class Writer:
    """Writes records into a backend in batches and commits once at the end.

    Push records with :meth:`write` (or a whole iterable with :meth:`write_all`) and end with
    :meth:`close`, which returns the counts. A batch is ``batch_size`` records or
    :data:`BATCH_BYTES` of text, whichever comes first. Pipelined: writer threads send batch k
    while the caller computes batch k+1, and batch k+1 is handed over only once batch k is in,
    so at most one batch is on its way and two are in memory. Batch k goes as ``writers`` contiguous
    slices in as many concurrent update requests (Solr indexes one request on one thread), each
    writer on a backend clone of its own (a ``requests.Session`` is not meant to be shared
    between threads). Everything else is as if each batch were sent before the next one is
    read: the counts and the order of the rejections, the progress bar, and errors, since a
    failed batch raises (once all its slices have ended; the other slices may be in) and no
    batch is sent after it. Records are keyed by id, so writing the same input twice leaves the
    same index, and a run that was cut short is completed by running it again.
    """

    def __init__(
        self,
        backend: Backend,
        documents: Callable[[list[Record]], list[Any]],
        *,
        batch_size: int = 1000,
        writers: int = 2,
        progress: bool = False,
        total: int | None = None,
    ) -> None:
        check_all("Writer", {"batch_size": batch_size, "writers": writers,
                             "progress": progress, "total": total})  # fmt: skip
        self.backend = backend
        self.documents = documents
        self.batch_size = batch_size
        self.batch_bytes = BATCH_BYTES
        self._bytes = 0
        self.stats = IndexStats()
        self._start = time.perf_counter()
        self._bar = tqdm(
            total=total,
            unit="rec",
            desc="indexing",
            disable=None if progress else True,
            leave=False,
        )
        writers = min(writers, backend.max_writers)
        clients = [backend] + [backend.clone() for _ in range(writers - 1)]
        self._pipe = _Pipeline([partial(self._send, c) for c in clients], self.stats, self._bar)
        self._batch: list[Record] = []
        #: Rejections read while the batch fills, each with the batch position it stands
        #: before: counted with the batch's own, in input order.
        self._held: list[tuple[int, Rejection]] = []
        self._closed = False

    def write(self, item: Item) -> None:
        """Count one item of the input; a record goes into the current batch."""
        if isinstance(item, Blank):
            self.stats.blank += 1
            return
        self.stats.read += 1
        if isinstance(item, Rejection):
            if self._batch:  # after records whose own rejections are not known yet
                self._held.append((len(self._batch), item))
            else:
                self._pipe.reject(item)
            return
        if item.copy_of:  # the same record again: it is in the batch of its first line
            self.stats.identical += 1
            return
        self._batch.append(item)
        text = item.text
        self._bytes += len(text) if text.isascii() else len(text.encode("utf-8", "replace"))
        if len(self._batch) >= self.batch_size or self._bytes >= self.batch_bytes:
            batch, self._batch, self._bytes = self._batch, [], 0
            held, self._held = self._held, []
            self._flush(batch, held)

    def write_all(self, items: Iterable[Item]) -> IndexStats:
        """Write every item, then :meth:`close`; on an error, :meth:`abort` and re-raise.

        What a failed write leaves, on every backend alike: when the *input* fails (a
        generator that raises), every record read before it is written and committed (the
        batch in hand too), then the error is raised; when a write fails, the batches sent
        before it stay, committed. Records are keyed by source and id, so a re-run completes
        either."""
        it = iter(items)
        while True:
            try:
                item = next(it)
            except StopIteration:
                break
            except Exception:
                self._keep_what_was_read()
                raise
            except BaseException:  # an interrupt: stop sending, keep what was sent
                self.abort()
                raise
            try:
                self.write(item)
            except BaseException:
                self.abort()
                raise
        return self.close()

    def _keep_what_was_read(self) -> None:
        """After the input failed: the records read so far written and committed; a failure
        doing so is left to :meth:`abort` (the input's error is the one raised)."""
        try:
            self.close()
        except Exception:  # noqa: BLE001  (the input's error is raised by the caller)
            self.abort()

    def close(self) -> IndexStats:
        """Send the last batch, wait for everything, commit; the counts."""
        if self._closed:
            return self.stats
        try:
            if self._batch:
                batch, self._batch, self._bytes = self._batch, [], 0
                held, self._held = self._held, []
                self._flush(batch, held)
            self._pipe.finish()
            self.backend.commit()
        except BaseException:
            self.abort()
            raise
        self._end()
        return self.stats

    def abort(self) -> None:
        """After an error in the caller: the batch on its way completes (its own failure,
        had it failed, is raised here), nothing else is sent, and what was sent is committed,
        so that Solr shows what memory holds (not the next writer's commit, later)."""
        if self._closed:
            return
        try:
            self._pipe.drain()
        finally:
            try:
                self.backend.commit()
            except Exception:  # noqa: BLE001  (the first error is the one that matters)
                pass
            self._end()

    def _end(self) -> None:
        self._closed = True
        self._pipe.close()
        self._bar.close()
        self.stats.seconds = time.perf_counter() - self._start

    def _flush(self, batch: list[Record], held: list[tuple[int, Rejection]] | None = None) -> None:
        """Compute the documents of ``batch`` (while the previous batch is sent), then send it;
        ``held``: the reader's rejections among its records, by position."""
        docs: list[Any] = []
        sources: list[Record] = []
        rejected: list[Rejection] = []
        waiting = list(held or [])
        k = 0
        for i, (record, doc) in enumerate(zip(batch, self.documents(batch), strict=True)):
            while k < len(waiting) and waiting[k][0] <= i:
                rejected.append(waiting[k][1])
                k += 1
            if isinstance(doc, Rejection):
                rejected.append(doc)
            else:
                docs.append(doc)
                sources.append(record)
        rejected += [r for _, r in waiting[k:]]
        self._pipe.send(docs, sources, rejected, len(batch))

    def _send(
        self, backend: Backend, docs: list[Any], sources: list[Record]
    ) -> tuple[int, list[Rejection]]:
        """Add a slice: (records written, records refused); runs in a writer thread."""
        refused: list[Rejection] = []
        return self._add(backend, docs, sources, refused), refused

    def _add(
        self,
        backend: Backend,
        docs: list[Any],
        sources: list[Record],
        refused: list[Rejection],
    ) -> int:
        """Add a batch; if Solr refuses it, halve it until the refused records are found.

        Like Elasticsearch's bulk API, one bad record costs its own rejection (with Solr's
        reason), not its whole batch. Transport failures are not caught here: they end the run,
        and a re-run completes it, since documents are keyed by id. Returns how many documents
        were added; the refused ones are appended to ``refused``, in batch order.
        """
        if not docs:
            return 0
        try:
            backend.add(docs)
            return len(docs)
        except SolrRequestError as exc:
            if len(docs) == 1:
                r = sources[0]
                refused.append(Rejection(r.location, r.line, f"refused by Solr: {exc}", r.id))
                return 0
            half = len(docs) // 2
            return self._add(backend, docs[:half], sources[:half], refused) + self._add(
                backend, docs[half:], sources[half:], refused
            )


@dataclass
class _Job:
    """A batch on its way: one future per slice, its records' count and the rejections that
    come after it."""

    futures: list[Future[tuple[int, list[Rejection]]]]
    records: int
    after: list[Rejection] = field(default_factory=list)

    def results(self) -> tuple[int, list[Rejection]]:
        """Wait for every slice; then the first error in slice order, else the summed counts
        and Solr's refusals in batch order."""
        done: list[tuple[int, list[Rejection]]] = []
        error: BaseException | None = None
        for f in self.futures:
            try:
                done.append(f.result())
            except BaseException as exc:  # noqa: BLE001  (re-raised below, after the others)
                error = error or exc
        if error is not None:
            raise error
        return sum(n for n, _ in done), [r for _, refused in done for r in refused]


class _Pipeline:
    """Writer threads that send one batch while the caller computes the next one.

    At most one batch is on its way. It is cut into ``len(sends)`` contiguous slices, sent at
    the same time by as many writer threads (each with a Solr client of its own), because Solr
    indexes one update request on one thread: two requests use two cores. All counting happens
    in the caller's thread, in the order a synchronous loop would have done it: a rejection
    found while a batch is on its way waits (in ``after``) until that batch's own results are
    counted.
    """

    #: Rejections kept waiting for the batch on its way before the reader waits for it.
    MAX_WAITING = 1000

    def __init__(
        self,
        sends: list[Callable[[list[dict[str, Any]], list[Record]], tuple[int, list[Rejection]]]],
        stats: IndexStats,
        bar: tqdm,  # type: ignore[type-arg]
    ) -> None:
        self._sends = sends
        self.stats = stats
        self.bar = bar
        self.job: _Job | None = None
        self._queues: list[queue.SimpleQueue[tuple[Future[Any], list[Any], list[Record]] | None]]
        self._queues = []
        self._threads: list[threading.Thread] = []

    def reject(self, rejection: Rejection) -> None:
        """Count a rejection now, or after the batch on its way if there is one."""
        if self.job is None:
            self.stats.reject(rejection)
            return
        self.job.after.append(rejection)
        if len(self.job.after) >= self.MAX_WAITING:
            self.finish()  # bounded memory: wait for the batch, then count what waited

    def send(
        self,
        docs: list[dict[str, Any]],
        sources: list[Record],
        rejections: list[Rejection],
        records: int,
    ) -> None:
        """Wait for the batch on its way, count this batch's rejections, and send it."""
        self.finish()
        for r in rejections:
            self.stats.reject(r)
        self.job = _Job([], records)
        if not docs:
            return
        if not self._threads:
            for send in self._sends:
                q: queue.SimpleQueue[tuple[Future[Any], list[Any], list[Record]] | None] = (
                    queue.SimpleQueue()
                )
                t = threading.Thread(
                    target=self._run, args=(send, q), name="neardup-writer", daemon=True
                )
                t.start()
                self._queues.append(q)
                self._threads.append(t)
        n = min(len(self._queues), len(docs))
        step = -(-len(docs) // n)
        for k in range(n):
            part = slice(k * step, (k + 1) * step)
            future: Future[tuple[int, list[Rejection]]] = Future()
            self.job.futures.append(future)
            self._queues[k].put((future, docs[part], sources[part]))

    def finish(self) -> None:
        """Wait for the batch on its way and count its results (or raise its error)."""
        job, self.job = self.job, None
        if job is None:
            return
        indexed, refused = job.results()
        self.stats.indexed += indexed
        for r in refused:
            self.stats.reject(r)
        self.bar.update(job.records)
        for r in job.after:
            self.stats.reject(r)

    def drain(self) -> None:
        """After an error here: let the batch on its way complete; raise only its own error."""
        job, self.job = self.job, None
        if job is not None:
            job.results()

    def close(self) -> None:
        """Let the writer threads end once idle (they are daemons: an interrupt never waits)."""
        for q in self._queues:
            q.put(None)
        self._queues, self._threads = [], []

    @staticmethod
    def _run(
        send: Callable[[list[dict[str, Any]], list[Record]], tuple[int, list[Rejection]]],
        jobs: queue.SimpleQueue[tuple[Future[Any], list[Any], list[Record]] | None],
    ) -> None:
        while True:
            job = jobs.get()
            if job is None:
                return
            future, docs, sources = job
            try:
                future.set_result(send(docs, sources))
            except BaseException as exc:  # raised in the caller's thread by finish()
                future.set_exception(exc)
