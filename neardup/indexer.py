"""Records -> Solr documents: the seed's fields, computed client-side by one ShingleProcessor."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import index_params
from .datasets import Blank, Item, Record, Rejection, read_records
from .errors import SolrRequestError
from .lsh import LshConfig
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
        progress: bool = True,
    ) -> None:
        self.solr = solr
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
        """The Solr documents of a batch (or why a record cannot be one)."""
        proc = self.processor
        texts = [proc.normalize(r.text) for r in records]
        out: list[dict[str, Any] | Rejection] = []
        keep = [i for i, t in enumerate(texts) if t]
        sigs = proc.signatures_batch([texts[i] for i in keep]) if keep else None
        keys = self.lsh.keys_batch([records[i].text for i in keep]) if self.lsh and keep else None
        row = {i: k for k, i in enumerate(keep)}
        for i, (record, text) in enumerate(zip(records, texts, strict=True)):
            if not text:
                out.append(
                    Rejection(record.source, record.line, "no words after normalization", record.id)
                )
                continue
            words = text.split(" ")
            shingles = proc.ngrams(text)
            longest = max(len(s.encode("utf-8")) for s in [words[0], *shingles])
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
                "md5_hash": hashlib.md5(text.encode("utf-8")).hexdigest(),
                "num_words": len(words),
                "first_word": words[0],
                "content_ng": shingles,
            }
            if sigs is not None:
                doc["content_sg"] = [str(int(v)) for v in sigs[row[i]]]
            if keys is not None:
                doc["content_lsh"] = keys[row[i]]
            out.append(doc)
        return out

    def index(self, items: Iterable[Item], total: int | None = None) -> IndexStats:
        stats = IndexStats()
        start = time.perf_counter()
        index_params.ensure(self.solr, self.params())
        batch: list[Record] = []
        bar = tqdm(
            total=total,
            unit="rec",
            desc="indexing",
            disable=None if self.progress else True,
            leave=False,
        )
        try:
            for item in items:
                if isinstance(item, Blank):
                    stats.blank += 1
                    continue
                stats.read += 1
                if isinstance(item, Rejection):
                    stats.reject(item)
                    continue
                batch.append(item)
                if len(batch) >= self.batch_size:
                    self._flush(batch, stats)
                    bar.update(len(batch))
                    batch = []
            if batch:
                self._flush(batch, stats)
                bar.update(len(batch))
            self.solr.commit()
        finally:
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

    def _flush(self, batch: list[Record], stats: IndexStats) -> None:
        docs: list[dict[str, Any]] = []
        sources: list[Record] = []
        for record, doc in zip(batch, self.documents(batch), strict=True):
            if isinstance(doc, Rejection):
                stats.reject(doc)
            else:
                docs.append(doc)
                sources.append(record)
        self._add(docs, sources, stats)

    def _add(self, docs: list[dict[str, Any]], sources: list[Record], stats: IndexStats) -> None:
        """Add a batch; if Solr refuses it, halve it until the refused records are found.

        Like Elasticsearch's bulk API, one bad record costs its own rejection (with Solr's
        reason), not its whole batch. Transport failures are not caught here: they end the run,
        and a re-run completes it, since documents are keyed by id.
        """
        if not docs:
            return
        try:
            self.solr.add(docs)
            stats.indexed += len(docs)
        except SolrRequestError as exc:
            if len(docs) == 1:
                r = sources[0]
                stats.reject(Rejection(r.source, r.line, f"refused by Solr: {exc}", r.id))
                return
            half = len(docs) // 2
            self._add(docs[:half], sources[:half], stats)
            self._add(docs[half:], sources[half:], stats)
