"""The 2014 design (seed 003), reproduced exactly, as one plug-in: its schema
(:mod:`~neardup.seed2014.schema`), its Searcher and report (:mod:`~neardup.seed2014.searcher`),
the restaurant experiment (:mod:`~neardup.seed2014.experiment`) and its CLI verbs
(:mod:`~neardup.seed2014.cli`).

Not neardup's path: the core never imports this package. Importing it registers the article's
fields with the index (:mod:`neardup.extra_fields`), so that ``Params(fields_2014=True)``
stores them; the CLI imports it for its verbs, and only a Solr index can answer them.
"""

from __future__ import annotations

from typing import Any

from ..extra_fields import register
from .schema import FIELDS, MAX_DIST, MAX_TERM_BYTES, NGRAM, NUM_PERM, fields_2014, processor_2014

register(FIELDS)

#: What the searcher module gives, read from it on first use: it brings the Solr client,
#: which the CLI's start-up (``neardup --help``) must not load.
_SEARCHER = ("MAX_SCORED_TERMS", "METHODS", "Neighbor", "SeedSearcher", "seed_report")

__all__ = ["MAX_DIST", "MAX_TERM_BYTES", "NGRAM", "NUM_PERM", "fields_2014", "processor_2014",
           *_SEARCHER]  # fmt: skip


def __getattr__(name: str) -> Any:
    """``from neardup.seed2014 import SeedSearcher`` without loading the Solr client before."""
    if name in _SEARCHER:
        # Here, not at the top: the searcher brings the Solr client (pysolr, requests).
        from . import searcher

        return getattr(searcher, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
