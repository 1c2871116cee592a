"""neardup: near-duplicate detection with shingles, MinHash and LSH, backed by Apache Solr."""

from .errors import InputError, NeardupError, ParameterMismatch, SolrUnavailable
from .evaluate import score
from .indexer import Indexer, IndexStats
from .searcher import SeedSearcher
from .shingles import ShingleProcessor, normalize, optimal_bands, s_curve, word_edit_distance
from .solr import Solr, connect

__version__ = "0.1.0"

__all__ = [
    "IndexStats",
    "Indexer",
    "InputError",
    "NeardupError",
    "ParameterMismatch",
    "SeedSearcher",
    "ShingleProcessor",
    "Solr",
    "SolrUnavailable",
    "connect",
    "normalize",
    "optimal_bands",
    "s_curve",
    "score",
    "word_edit_distance",
]
