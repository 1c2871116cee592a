"""Near-duplicates of one record, the seed's way: an OR query, a first-word filter, edit distance.

This module reproduces the 2014 Searcher faithfully (seed 003): the record's shingles (or its 20
MinHash values) are OR-ed into one ranked query, filtered to records with the same first word,
the top 10 are read, and each is confirmed by MD5 equality (distance 0) or word-level
Levenshtein distance, stopping down the ranked list once one neighbour is too far.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import index_params
from .errors import InputError
from .lsh import key_field
from .shingles import ShingleProcessor, word_edit_distance
from .solr import Solr, any_term_params, or_query, quote, terms_params

METHODS = ("shingles", "minhash")
#: A scored OR query stays below Solr's default maxBooleanClauses (1024); larger term sets go
#: through {!terms}, which has no limit but scores every match alike.
MAX_SCORED_TERMS = 1000
SEED_ROWS = 10
#: Candidates of one neighbors/search lookup read per request: fewer take a single request.
CANDIDATE_ROWS = 1000
SOURCE_FIELDS = "id,content,md5_hash,first_word"


@dataclass(frozen=True)
class Neighbor:
    id: str
    content: str
    edit_distance: int
    score: float


def id_key(value: str) -> tuple[int, int | str]:
    """Ids compare as numbers when both are numbers (the seed's ``toInt``), else as text."""
    return (0, int(value)) if value.isdigit() else (1, value)


class SeedSearcher:
    """The seed's per-record near-duplicate search, over one collection."""

    def __init__(self, solr: Solr, processor: ShingleProcessor, rows: int = SEED_ROWS) -> None:
        self.solr = solr
        self.processor = processor
        self.rows = rows
        index_params.check(index_params.load(solr), processor.params(), solr.url)

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
            raise InputError(f"unknown method {method!r}: choose one of {', '.join(METHODS)}")
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
            if id_key(hit["id"]) > id_key(source["id"]) and dist <= max_dist:
                found.append(Neighbor(hit["id"], hit["content"], dist, float(hit["score"])))
        return found

    def near_dups_of(self, doc_id: str, method: str, max_dist: int = 2) -> list[Neighbor]:
        return self.near_dups(self.get(doc_id), method, max_dist)

    def sources(self) -> Iterator[dict[str, Any]]:
        """Every record in id order, read by cursor (the seed looped over ids one by one)."""
        docs = list(self.solr.iter_docs(SOURCE_FIELDS, fq=[index_params.RECORDS_FQ]))
        docs.sort(key=lambda d: id_key(d["id"]))
        yield from docs


@dataclass(frozen=True)
class Match:
    """A record similar to the query, with its verified similarity."""

    id: str
    content: str
    jaccard: float
    edit_distance: int
    shared_bands: int


class LshSearcher:
    """Top-k most similar records of a record or of any text, through the band fields.

    Every record that shares at least one band key with the query is a candidate (no top-10
    cut), and candidates are ranked by their exact Jaccard similarity to the query. A lookup
    reads its candidates in pages of ``rows``: with fewer candidates than that, ``search`` is
    one request and ``neighbors`` two (the record's band keys, then its candidates).
    """

    def __init__(self, solr: Solr, rows: int = CANDIDATE_ROWS) -> None:
        from .allpairs import index_config

        self.solr = solr
        self.rows = rows
        self.config = index_config(solr)

    def neighbors(self, doc_id: str, k: int = 10, threshold: float = 0.0) -> list[Match]:
        docs = self.solr.get([doc_id], fields="id,content,raw,content_lsh")
        if not docs:
            raise InputError(f"no record with id {doc_id!r} in {self.solr.url}")
        doc = docs[0]
        return self._rank(doc, list(doc.get("content_lsh", [])), k, threshold, exclude=doc_id)

    def search(self, text: str, k: int = 10, threshold: float = 0.0) -> list[Match]:
        from .shingles import normalize

        content = normalize(text)
        if not content:
            raise InputError("the query text has no words after normalization")
        return self._rank({"content": content, "raw": text}, self.config.keys(text), k, threshold)

    def _rank(
        self,
        query: dict[str, Any],
        keys: list[str],
        k: int,
        threshold: float,
        exclude: str | None = None,
    ) -> list[Match]:
        if k < 1:
            raise InputError(f"-k must be >= 1, got {k}")
        from .allpairs import lsh_text, verified_jaccard

        mine = self.config.shingles(lsh_text(query))
        words = str(query.get("content", "")).split()
        keyset = set(keys)
        params = any_term_params([(key_field(key), key) for key in sorted(keyset)])
        matches: list[Match] = []
        for hit in self.solr.iter_docs("id,content,raw,content_lsh", rows=self.rows, params=params):
            if hit["id"] == exclude:
                continue
            jac = verified_jaccard(mine, self.config.shingles(lsh_text(hit)))
            if jac is None or jac < threshold:
                continue
            shared = len(keyset.intersection(hit.get("content_lsh", [])))
            matches.append(
                Match(
                    hit["id"],
                    hit.get("content", ""),
                    round(jac, 6),
                    word_edit_distance(words, hit.get("content", "").split()),
                    shared,
                )
            )
        matches.sort(key=lambda m: (-m.jaccard, m.edit_distance, id_key(m.id)))
        return matches[:k]
