"""Solr: the document client, the admin calls, and neardup's own local node."""

from .admin import connect
from .client import Auth, Solr

__all__ = ["Auth", "Solr", "connect"]
