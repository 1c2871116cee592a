"""What an index stores for each record: the normalized text, its LSH band keys and the fields
of the plug-ins its parameters turn on (:mod:`neardup.extra_fields`), or why a record cannot
be stored (:func:`documents`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..backends.base import Document
from ..params import Params
from ..read.checks import check_id
from ..read.items import Record, Rejection, Unstored
from ..sign import kernel
from ..sign.banding import band_hashes_batch, band_keys_batch
from ..sign.minhash import ShingleProcessor


def documents(
    params: Params,
    processor: ShingleProcessor,
    records: list[Record],
    batch: int = 0,
    strings: bool = True,
    signatures: bool = False,
    threads: int = 1,
) -> list[Document | Rejection]:
    """What an index with ``params`` stores for each record, or why a record cannot be stored
    (no words after normalization; a plug-in's reason, e.g. a word too long for Solr).
    Ids are checked here too (:func:`neardup.read.checks.check_id`): records given as values, not
    read from a file, must not reach the index's own metadata either. ``strings``: the band keys as
    strings (``Document.keys``), else as the band fields' values (``Document.values``);
    ``signatures``: neither, but the signature (``Document.signature``), for a backend that
    keeps it and makes the keys itself (:attr:`~neardup.backends.base.Capability.SIGNATURES`);
    ``threads``: how many threads may sign
    (:meth:`~neardup.sign.minhash.ShingleProcessor.signatures_batch`)."""
    bad = [(r, check_id(r.id, None)) for r in records]
    if any(problem for _, problem in bad):
        kept = [r for r, problem in bad if not problem]
        args = (batch, strings, signatures, threads)
        done = iter(documents(params, processor, kept, *args) if kept else [])
        return [
            Rejection(r.location, r.line, problem, r.id[:80]) if problem else next(done)
            for r, problem in bad
        ]
    texts = [processor.storable(processor.normalize(r.text)) for r in records]
    keep = [i for i, t in enumerate(texts) if t]
    keys: list[list[str]] = []
    values: list[Any] = []
    hashes: list[Any] = []
    prepared: list[str] = []
    if keep and signatures:  # the backend keeps these and makes the keys when it needs them
        sigs, held = processor.signatures_with_hashes(
            [records[i].text for i in keep], threads=threads
        )
        sigs.setflags(write=False)
        if held is not None:
            runs, ends = held
            runs.setflags(write=False)
            bounds = ends.tolist()
            hashes = [runs[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    elif keep:
        sigs, prepared = _signed(processor, [records[i].text for i in keep], threads)
        if strings:
            keys = band_keys_batch(sigs, params.bands, params.rows)
        else:
            # rows of one int64 matrix: the Solr backend writes them as JSON in C
            values = list(band_hashes_batch(sigs, params.bands, params.rows).view(np.int64))
    extras: list[dict[str, Any] | str] = []
    plugins = params.extra_fields()
    for plugin in plugins if keep else []:
        got = plugin.fields(params, [texts[i] for i in keep])
        extras = got if not extras else [  # a record one plug-in rejects is rejected
            e if isinstance(e, str) else f if isinstance(f, str) else {**e, **f}
            for e, f in zip(extras, got, strict=True)
        ]  # fmt: skip
    out: list[Document | Rejection] = []
    row = -1
    for record, text in zip(records, texts, strict=True):
        if not text:
            out.append(
                Unstored(record.location, record.line, "no words after normalization", record.id)
            )
            continue
        row += 1
        extra = extras[row] if extras else {}
        if isinstance(extra, str):
            out.append(Unstored(record.location, record.line, extra, record.id))
            continue
        out.append(
            Document(
                record.id, record.text, text, keys[row] if keys else [], extra,
                record.source, batch, dict(record.fields) if len(record.fields) >= 2 else {},
                values[row] if values else [], sigs[row] if signatures else None,
                hashes[row] if hashes else None, prepared[row] if prepared else None,
            )  # fmt: skip
        )
    return out


def _signed(
    processor: ShingleProcessor, texts: list[str], threads: int
) -> tuple[NDArray[np.uint32], list[str]]:
    """The texts' signatures, and the texts as prepared to sign them where the processor
    prepares them in Python for the C kernel (else none): prepared once, for the signature
    and for a backend that stores the prepared text (Solr's search fields)."""
    if processor.prepares and kernel.active() == "c":
        ready = processor.kernel_ready(texts)
        return processor.signatures_batch(ready, ready=True, threads=threads), ready
    return processor.signatures_batch(texts, threads=threads), []
