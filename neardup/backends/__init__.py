"""Where an index keeps its records and band keys: one small protocol, two backends.

``memory`` (:class:`MemoryBackend`) holds everything in Python dictionaries: tests, notebooks,
small jobs, no Java. ``solr`` (:class:`SolrBackend`) keeps it in a Solr collection: persistent,
incremental, shared between processes, SolrCloud beyond one machine. :class:`NearDupIndex
<neardup.index.NearDupIndex>` only talks to :class:`Storage`, and asks a backend's
``capabilities`` (:class:`Capability`) for the rest, so the same parameters give the same
pairs, neighbours and clusters on both (a test checks).
"""

from .base import Backend, Capability, Document, Storage, StoredRecord
from .memory import MemoryBackend

__all__ = ["Backend", "Capability", "Document", "MemoryBackend", "Storage", "StoredRecord"]
