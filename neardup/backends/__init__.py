"""Where an index keeps its records and band keys: one small protocol, three backends.

``memory`` (:class:`MemoryBackend`) holds everything in Python dictionaries: tests, notebooks,
small jobs, no Java. ``duckdb`` (:class:`~neardup.backends.duckdb_file.DuckDBBackend`) keeps it
in a DuckDB file: more records than this process's memory holds, no server. ``solr``
(:class:`SolrBackend`) keeps it in a Solr collection: persistent, incremental, shared between
processes, SolrCloud beyond one machine. :class:`NearDupIndex
<neardup.index.NearDupIndex>` only talks to :class:`Storage`, and asks a backend's
``capabilities`` (:class:`Capability`) for the rest, so the same parameters give the same
pairs, neighbours and clusters on both (a test checks).
"""

from .base import Backend, Capability, Document, Storage, StoredRecord
from .duckdb_file import DuckDBBackend
from .memory import MemoryBackend

__all__ = [
    "Backend", "Capability", "Document", "DuckDBBackend", "MemoryBackend", "Storage",
    "StoredRecord",
]
