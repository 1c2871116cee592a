"""neardup: near-duplicate detection with shingles, MinHash and LSH, backed by Apache Solr.

>>> from neardup import NearDupIndex, Params
>>> idx = NearDupIndex(Params(threshold=0.5))          # in memory: no Java, no Solr
>>> _ = idx.add_many([("1", "Art's Deli, 12224 Ventura Blvd"),
...                   ("2", "Arts Deli 12224 Ventura Boulevard")])
>>> idx.pairs()[0].id2
'2'

``NearDupIndex.open(url)`` keeps the index in Solr instead, with the same methods.

The public names are loaded on first use (PEP 562), not when the package is imported: the
``neardup`` command imports this package before its own code runs, and loading the library
here (numpy, pandas, the index) would leave a Ctrl-C during those tenths of a second to end
in a traceback, before the command could catch it.
"""

from .version import __version__ as __version__

# why not ``from typing import TYPE_CHECKING``: loading typing here is the start-up this module
# keeps small; type checkers read this name as ``typing.TYPE_CHECKING`` (mypy, pyright).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .errors import (
        ArgumentError,
        InputError,
        InvalidText,
        NeardupError,
        NeardupWarning,
        NotUtf8,
        ParameterMismatch,
        RecordNotFound,
        RejectedRows,
        SolrRequestError,
        SolrUnavailable,
    )
    from .index import Match, NearDupIndex, Pair, Report
    from .params import Params
    from .pipeline import IndexStats
    from .read.frames import frame_labels
    from .read.items import Record, Rejection
    from .read.records import read_records
    from .sign.minhash import ShingleProcessor

#: Each public name and the module that defines it (relative to this package).
_WHERE = {
    "ArgumentError": ".errors",
    "IndexStats": ".pipeline",
    "InputError": ".errors",
    "InvalidText": ".errors",
    "Match": ".index",
    "NearDupIndex": ".index",
    "NeardupError": ".errors",
    "NeardupWarning": ".errors",
    "NotUtf8": ".errors",
    "Pair": ".index",
    "ParameterMismatch": ".errors",
    "RecordNotFound": ".errors",
    "RejectedRows": ".errors",
    "Params": ".params",
    "Record": ".read.items",
    "Rejection": ".read.items",
    "Report": ".index",
    "ShingleProcessor": ".sign.minhash",
    "SolrRequestError": ".errors",
    "SolrUnavailable": ".errors",
    "read_records": ".read.records",
    "frame_labels": ".read.frames",
}

__all__ = [
    "ArgumentError",
    "IndexStats",
    "InputError",
    "InvalidText",
    "Match",
    "NearDupIndex",
    "NeardupError",
    "NeardupWarning",
    "NotUtf8",
    "Pair",
    "ParameterMismatch",
    "RecordNotFound",
    "RejectedRows",
    "Params",
    "Record",
    "Rejection",
    "Report",
    "ShingleProcessor",
    "SolrRequestError",
    "SolrUnavailable",
    "frame_labels",
    "read_records",
]


def __getattr__(name: str) -> object:
    """A public name, imported from its module the first time it is asked for."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'neardup' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(where, __name__), name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
