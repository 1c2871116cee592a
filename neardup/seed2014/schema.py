"""The 2014 article's schema: the fields its Indexer writes per record, as a plug-in of the
index (:mod:`neardup.extra_fields`) turned on by ``Params(fields_2014=True)``.

Per record: ``md5_hash``, ``first_word``, ``num_words``, ``content_ng`` (word 3-gram
shingles) and ``content_sg`` (20 MinHash values, xor family); the Solr backend stores the
normalized text with them (``content``, which the searcher reads), and the band keys also as
strings (``content_lsh``), as the article's schema has them.
Light on purpose: the CLI imports this package at start-up, and the Solr client comes only
with the searcher (:mod:`neardup.seed2014.searcher`).

>>> from neardup import Params
>>> fields_2014(Params(fields_2014=True), ["arts deli 12224 ventura blvd"])[0]["first_word"]
'arts'
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..backends.base import Capability
from ..errors import ArgumentError
from ..params import Params
from ..sign.minhash import ShingleProcessor

#: The article's setup: word 3-grams, 20 MinHash values, word edit distance <= 2.
NGRAM, NUM_PERM, MAX_DIST = 3, 20, 2
#: Lucene refuses an indexed term longer than this (a string field value, one shingle).
MAX_TERM_BYTES = 32766


def processor_2014(params: Params) -> ShingleProcessor:
    """The article's processor for its fields: word 3-grams of the normalized text, 20 MinHash
    values of the xor family, drawn from the parameter set's seed.

    Its normalization is v3, as it has always been stored (``fold_marks=False``): it reads
    texts the index's own processor has normalized already (marks folded there where the index
    folds them), so folding again would change nothing but the version that indexes stored."""
    return ShingleProcessor(
        NGRAM, kind="word", num_perm=NUM_PERM, hash_family="xor", seed=params.seed,
        canonical=False, fold_marks=False,
    )  # fmt: skip


def fields_2014(params: Params, texts: list[str]) -> list[dict[str, Any] | str]:
    """The article's fields of each normalized text, or why the text cannot have them (a word
    or shingle longer than Lucene's term limit).

    The byte length of every word and shingle is only measured when the whole text is longer
    than one term may be (each of them is a part of the text).
    """
    proc = processor_2014(params)
    sigs = proc.signatures_batch(texts).tolist()
    out: list[dict[str, Any] | str] = []
    for text, sig in zip(texts, sigs, strict=True):
        first = text.partition(" ")[0]  # words are separated by exactly one space
        shingles = proc.ngrams(text, prepared=True)
        data = text.encode("utf-8")
        if len(data) > MAX_TERM_BYTES:
            longest = max(len(s.encode("utf-8")) for s in [first, *shingles])
            if longest > MAX_TERM_BYTES:
                out.append(
                    f"a word or shingle of {longest} bytes is longer than Solr's limit "
                    f"for one indexed term ({MAX_TERM_BYTES} bytes)"
                )
                continue
        out.append(
            {
                "md5_hash": hashlib.md5(data).hexdigest(),
                "num_words": text.count(" ") + 1,
                "first_word": first,
                "content_ng": shingles,
                "content_sg": list(map(str, sig)),
            }
        )
    return out


class Fields2014:
    """The plug-in: what an index with ``fields_2014=True`` stores, and where it may."""

    name = "fields_2014"
    #: The article's schema names the band keys as a field (``content_lsh``).
    key_strings = True

    def stored(self, params: Params) -> dict[str, Any]:
        """The processor's versions, under the key indexes have always stored them."""
        return {"processor_2014": processor_2014(params).params()}

    def check(self, backend: Any) -> None:
        """Only Solr answers the article's queries (a ranked OR of shingles, a filter)."""
        if Capability.SOLR_QUERIES not in backend.capabilities:
            raise ArgumentError(
                "the 2014 design's fields are searched by Solr queries: use a Solr backend"
            )

    def fields(self, params: Params, texts: list[str]) -> list[dict[str, Any] | str]:
        return fields_2014(params, texts)


FIELDS = Fields2014()
