"""neardup: near-duplicate detection with shingles, MinHash and LSH, backed by Apache Solr.

>>> from neardup import NearDupIndex, Params
>>> idx = NearDupIndex(Params(threshold=0.5))          # in memory: no Java, no Solr
>>> _ = idx.add_many([("1", "Art's Deli, 12224 Ventura Blvd"),
...                   ("2", "Arts Deli 12224 Ventura Boulevard")])
>>> idx.pairs()[0].id2
'2'

``NearDupIndex.open(url)`` keeps the index in Solr instead, with the same methods.
"""

from .errors import (
    ArgumentError,
    InputError,
    InvalidText,
    NeardupError,
    ParameterMismatch,
    SolrRequestError,
    SolrUnavailable,
)
from .index import Match, NearDupIndex, Pair, Report
from .params import Params
from .pipeline import IndexStats
from .read.items import Record, Rejection
from .read.records import read_records
from .sign.minhash import ShingleProcessor
from .version import __version__ as __version__

__all__ = [
    "ArgumentError",
    "IndexStats",
    "InputError",
    "InvalidText",
    "Match",
    "NearDupIndex",
    "NeardupError",
    "Pair",
    "ParameterMismatch",
    "Params",
    "Record",
    "Rejection",
    "Report",
    "ShingleProcessor",
    "SolrRequestError",
    "SolrUnavailable",
    "read_records",
]
