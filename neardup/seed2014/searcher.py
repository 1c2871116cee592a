"""The 2014 article's Searcher and report (seed 003), reproduced exactly.

Its Searcher ORs a record's shingles (or MinHash values) into one ranked query, filters to
records with the same first word, reads the top 10, and confirms each by MD5 equality
(distance 0) or word-level Levenshtein distance, stopping down the ranked list once one
neighbour is too far. Only a Solr index with the article's fields
(:mod:`neardup.seed2014.schema`) can answer it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from tqdm import tqdm

from ..backends.base import Capability
from ..backends.solr import RECORDS_FQ
from ..errors import ArgumentError, InputError
from ..keys import id_key, record_id
from ..out.write import AtomicFile
from ..params import Params
from ..results import Pair
from ..sign.text import jaccard, word_edit_distance
from ..solr.client import Solr, or_query, quote, terms_params
from .schema import MAX_DIST, processor_2014


class Indexed(Protocol):
    """What the article's search reads of an index (:class:`neardup.index.NearDupIndex`):
    named by its parts, so that this plug-in needs no index module."""

    backend: Any
    params: Params


METHODS = ("shingles", "minhash")
#: A scored OR query stays below Solr's default maxBooleanClauses (1024); larger term sets go
#: through {!terms}, which has no limit but scores every match alike.
MAX_SCORED_TERMS = 1000
SEED_ROWS = 10
SOURCE_FIELDS = "id,content,md5_hash,first_word"


@dataclass(frozen=True)
class Neighbor:
    """A hit of the article's query: the record, its word edit distance and Solr's score."""

    id: str
    content: str
    edit_distance: int
    score: float


class SeedSearcher:
    """The article's per-record near-duplicate search, over an index that has its fields."""

    def __init__(self, index: Indexed, rows: int = SEED_ROWS) -> None:
        if Capability.SOLR_QUERIES not in index.backend.capabilities:
            raise ArgumentError("the 2014 methods are Solr queries: open the index in Solr")
        if not index.params.fields_2014:
            raise InputError(
                f"the index at {index.backend.location} has no 2014 fields: index it with "
                "Params(fields_2014=True) to use the shingles and minhash methods"
            )
        self.solr: Solr = index.backend.solr
        self.processor = processor_2014(index.params)
        self.rows = rows

    def get(self, doc_id: str) -> dict[str, Any]:
        docs = self.solr.get([doc_id], fields=SOURCE_FIELDS)
        if not docs:
            raise InputError(f"no record with id {doc_id!r} in {self.solr.url}")
        return docs[0]

    def query(self, source: dict[str, Any], method: str) -> dict[str, Any]:
        """The Solr parameters of the seed's query for one source record."""
        content = source["content"]
        if method == "shingles":
            field, terms = "content_ng", list(dict.fromkeys(self.processor.ngrams(content)))
        elif method == "minhash":
            sig = self.processor.signature(content)
            field, terms = "content_sg", list(dict.fromkeys(str(int(v)) for v in sig))
        else:
            raise ArgumentError(f"unknown method {method!r}: choose one of {', '.join(METHODS)}")
        if len(terms) <= MAX_SCORED_TERMS:
            params: dict[str, Any] = {"q": or_query(field, terms)}
        else:
            params = terms_params(field, terms)
        params.update(
            {
                "fq": f"first_word:{quote(source['first_word'])}",
                "rows": self.rows,
                "fl": "id,content,md5_hash,score",
            }
        )
        return params

    def near_dups(self, source: dict[str, Any], method: str, max_dist: int) -> list[Neighbor]:
        """Neighbours with a larger id within ``max_dist`` word edits, in Solr's rank order."""
        hits = self.solr.select(self.query(source, method))["response"]["docs"]
        words = source["content"].split(" ")
        found: list[Neighbor] = []
        prev = 0
        too_far = max_dist + 1
        for hit in hits:
            if hit["md5_hash"] == source["md5_hash"]:
                dist = 0
            elif prev <= max_dist:
                dist = word_edit_distance(words, hit["content"].split(" "))
            else:
                # The seed stops computing once a neighbour down the list is too far.
                dist = too_far
            prev = dist
            # Ids as the records were given (the keys of a secondary source's records hold
            # their source too: neardup.keys), so that the article's order is the ids'.
            hid = record_id(hit["id"])
            if id_key(hid) > id_key(record_id(source["id"])) and dist <= max_dist:
                found.append(Neighbor(hid, hit["content"], dist, float(hit["score"])))
        return found

    def near_dups_of(self, doc_id: str, method: str, max_dist: int = 2) -> list[Neighbor]:
        return self.near_dups(self.get(doc_id), method, max_dist)

    def sources(self) -> Iterator[dict[str, Any]]:
        """Every record in id order, read by cursor (the seed looped over ids one by one)."""
        docs = list(self.solr.iter_docs(SOURCE_FIELDS, fq=[RECORDS_FQ]))
        docs.sort(key=lambda d: id_key(record_id(d["id"])))
        yield from docs


def seed_report(
    searcher: SeedSearcher,
    method: str,
    max_dist: int = MAX_DIST,
    out: Path | None = None,
    console: TextIO | None = None,
    progress: bool = False,
) -> list[Pair]:
    """The article's ``reportNearDups``: one query per record.

    ``out`` receives the article's TSV (``docId neighborId dist``); ``console`` its lines
    (source, neighbours with their distance, ``==``). Each pair also carries the exact Jaccard
    similarity of the two records' word 3-gram sets.
    """
    pairs: list[Pair] = []
    sources = list(searcher.sources())
    target = AtomicFile(out, text=True) if out else None
    writer = target.fh if target else None
    say: Callable[[str], None] = (lambda s: print(s, file=console)) if console else (lambda s: None)
    proc = searcher.processor
    try:
        for source in tqdm(
            sources,
            desc=f"{method} report",
            unit="rec",
            disable=None if progress else True,
            leave=False,
        ):
            neighbours = searcher.near_dups(source, method, max_dist)
            if not neighbours:
                continue
            sid = record_id(source["id"])
            say(f"{sid}: {source['content']}")
            mine = proc.shingle_set(source["content"], prepared=True)
            for nb in neighbours:
                jac = jaccard(mine, proc.shingle_set(nb.content, prepared=True))
                pairs.append(Pair(sid, nb.id, round(jac, 6), nb.edit_distance))
                if writer:
                    writer.write(f"{sid}\t{nb.id}\t{nb.edit_distance}\n")
                say(f"{nb.id}: {nb.content} ({nb.edit_distance})")
            say("==")
    except BaseException:
        if target:
            target.fail()
        raise
    if target:
        target.done()
    return pairs
