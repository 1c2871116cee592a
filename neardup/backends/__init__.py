"""Where an index keeps its records and band keys: one small protocol, two backends.

``memory`` (:class:`MemoryBackend`) holds everything in Python dictionaries: tests, notebooks,
small jobs, no Java. ``solr`` (:class:`SolrBackend`) keeps it in a Solr collection: persistent,
incremental, shared between processes, SolrCloud beyond one machine. :class:`NearDupIndex
<neardup.index.NearDupIndex>` only talks to :class:`Backend`, so the same parameters give the
same pairs, neighbours and clusters on both (a test checks).
"""

from .base import Backend, Document, StoredRecord
from .memory import MemoryBackend

__all__ = ["Backend", "Document", "MemoryBackend", "StoredRecord"]
