"""Records -> Solr documents: the seed's fields, computed client-side by one ShingleProcessor."""

from __future__ import annotations

import hashlib
import queue
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import index_params
from .datasets import Blank, Item, Record, Rejection, read_records
from .errors import SolrRequestError
from .lsh import LshConfig, band_field
from .shingles import ShingleProcessor
from .solr import Solr

#: Rejections kept in full for the report; the rest are only counted (a million bad lines must not
#: fill memory), and the CLI says how many were not shown.
KEEP_REJECTIONS = 1000
#: Lucene refuses an indexed term longer than this (a string field value, one shingle).
MAX_TERM_BYTES = 32766


@dataclass
class IndexStats:
    """Counts that add up: ``read == indexed + rejected`` and ``lines == read + blank``."""

    read: int = 0
    indexed: int = 0
    rejected: int = 0
    blank: int = 0
    seconds: float = 0.0
    rejections: list[Rejection] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)

    def reject(self, rejection: Rejection) -> None:
        self.rejected += 1
        key = rejection.reason.split(",")[0].split(" at ")[0]
        self.reasons[key] = self.reasons.get(key, 0) + 1
        if len(self.rejections) < KEEP_REJECTIONS:
            self.rejections.append(rejection)

    def as_dict(self) -> dict[str, Any]:
        return {
            "read": self.read,
            "indexed": self.indexed,
            "rejected": self.rejected,
            "blank_lines": self.blank,
            "seconds": round(self.seconds, 3),
            "reasons": self.reasons,
            "rejections": [
                {"source": r.source, "line": r.line, "reason": r.reason, "id": r.id}
                for r in self.rejections
            ],
        }


class Indexer:
    """Writes records into one collection in batches and commits once at the end.

    Documents are keyed by the record's id, so indexing the same input twice leaves the same
    index, and a run that was cut short is completed by running it again.
    """

    def __init__(
        self,
        solr: Solr,
        processor: ShingleProcessor,
        *,
        lsh: LshConfig | None = None,
        batch_size: int = 1000,
        writers: int = 2,
        progress: bool = True,
    ) -> None:
        if writers < 1:
            raise ValueError(f"writers must be at least 1, got {writers}")
        self.solr = solr
        self.writers = writers
        self.processor = processor
        self.lsh = lsh
        self.batch_size = batch_size
        self.progress = progress

    def params(self) -> dict[str, Any]:
        params = dict(self.processor.params())
        if self.lsh is not None:
            params.update(self.lsh.params())
        return params

    def documents(self, records: list[Record]) -> list[dict[str, Any] | Rejection]:
        """The Solr documents of a batch (or why a record cannot be one).

        Each text is normalized once and only ``ngrams`` splits it into words (a normalized
        text has one space between words, which gives the first word and the number of words);
        the byte length of every word and shingle is only measured when the whole text is
        longer than one term may be (each of them is a part of the text).
        """
        proc = self.processor
        texts = [proc.normalize(r.text) for r in records]
        out: list[dict[str, Any] | Rejection] = []
        keep = [i for i, t in enumerate(texts) if t]
        sigs = proc.signatures_batch([texts[i] for i in keep]).tolist() if keep else None
        keys = self.lsh.keys_batch([records[i].text for i in keep]) if self.lsh and keep else None
        row = -1  # the record's row in sigs and keys, which hold the kept records only
        for record, text in zip(records, texts, strict=True):
            if not text:
                out.append(
                    Rejection(record.source, record.line, "no words after normalization", record.id)
                )
                continue
            row += 1
            first = text.partition(" ")[0]  # words are separated by exactly one space
            shingles = proc.ngrams(text, normalized=True)
            data = text.encode("utf-8")
            if len(data) > MAX_TERM_BYTES:
                longest = max(len(s.encode("utf-8")) for s in [first, *shingles])
                if longest > MAX_TERM_BYTES:
                    out.append(
                        Rejection(
                            record.source,
                            record.line,
                            f"a word or shingle of {longest} bytes is longer than Solr's limit "
                            f"for one indexed term ({MAX_TERM_BYTES} bytes)",
                            record.id,
                        )
                    )
                    continue
            doc: dict[str, Any] = {
                "id": record.id,
                "content": text,
                "raw": record.text,
                "md5_hash": hashlib.md5(data).hexdigest(),
                "num_words": text.count(" ") + 1,
                "first_word": first,
                "content_ng": shingles,
            }
            if sigs is not None:
                doc["content_sg"] = list(map(str, sigs[row]))
            if keys is not None:
                doc["content_lsh"] = keys[row]
                for band, key in enumerate(keys[row]):
                    doc[band_field(band)] = key
            out.append(doc)
        return out

    def index(self, items: Iterable[Item], total: int | None = None) -> IndexStats:
        """Index ``items`` and commit once at the end; the counts of what happened.

        Pipelined: writer threads send batch k to Solr while this thread reads and computes
        batch k+1, and batch k+1 is handed over only once batch k is in, so at most one batch
        is on its way and two are in memory. Batch k goes as ``writers`` contiguous slices in
        as many concurrent update requests (Solr indexes one request on one thread), each
        writer with a client of its own (a ``requests.Session`` is not meant to be shared
        between threads). Everything else is as if each batch were sent before the next one
        is read: the counts and the order of the rejections, the progress bar, and errors,
        since a failed batch raises here (once all its slices have ended; the other slices
        may be in) and no batch is sent after it. If reading or computing fails, the batch on
        its way is still completed before the error is raised (its own failure, had it
        failed, comes first).
        """
        stats = IndexStats()
        start = time.perf_counter()
        index_params.ensure(self.solr, self.params())
        bar = tqdm(
            total=total,
            unit="rec",
            desc="indexing",
            disable=None if self.progress else True,
            leave=False,
        )
        clients = [self.solr] + [self.solr.clone() for _ in range(self.writers - 1)]
        pipe = _Pipeline([partial(self._send, c) for c in clients], stats, bar)
        batch: list[Record] = []
        try:
            for item in items:
                if isinstance(item, Blank):
                    stats.blank += 1
                    continue
                stats.read += 1
                if isinstance(item, Rejection):
                    pipe.reject(item)
                    continue
                batch.append(item)
                if len(batch) >= self.batch_size:
                    self._flush(batch, pipe)
                    batch = []
            if batch:
                self._flush(batch, pipe)
            pipe.finish()
            self.solr.commit()
        except Exception:
            pipe.drain()  # the batch on its way completes, as it would have before
            raise
        finally:
            pipe.close()
            bar.close()
        stats.seconds = time.perf_counter() - start
        return stats

    def index_file(
        self,
        path: str | Path,
        fmt: str = "auto",
        id_field: str = "id",
        text_fields: tuple[str, ...] = ("text",),
    ) -> IndexStats:
        return self.index(read_records(path, fmt, id_field, text_fields))

    def _flush(self, batch: list[Record], pipe: _Pipeline) -> None:
        """Compute the documents of ``batch`` (while the previous batch is sent), then send it."""
        docs: list[dict[str, Any]] = []
        sources: list[Record] = []
        rejected: list[Rejection] = []
        for record, doc in zip(batch, self.documents(batch), strict=True):
            if isinstance(doc, Rejection):
                rejected.append(doc)
            else:
                docs.append(doc)
                sources.append(record)
        pipe.send(docs, sources, rejected, len(batch))

    def _send(
        self, solr: Solr, docs: list[dict[str, Any]], sources: list[Record]
    ) -> tuple[int, list[Rejection]]:
        """Add a slice: (records indexed, records refused by Solr); runs in a writer thread."""
        refused: list[Rejection] = []
        return self._add(solr, docs, sources, refused), refused

    def _add(
        self,
        solr: Solr,
        docs: list[dict[str, Any]],
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
            solr.add(docs)
            return len(docs)
        except SolrRequestError as exc:
            if len(docs) == 1:
                r = sources[0]
                refused.append(Rejection(r.source, r.line, f"refused by Solr: {exc}", r.id))
                return 0
            half = len(docs) // 2
            return self._add(solr, docs[:half], sources[:half], refused) + self._add(
                solr, docs[half:], sources[half:], refused
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
