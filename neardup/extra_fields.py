"""The hook through which a plug-in stores fields of its own with each record.

neardup's index stores a record's text and band keys. A design that searches other fields
(the 2014 article's, :mod:`neardup.seed2014`) adds them through this hook instead of the core
knowing it: the plug-in registers itself under the name of the boolean parameter that turns it
on (a field of :class:`~neardup.params.Params`, stored with the index under that name, so that
an index keeps saying which fields it holds), and the core asks the registry for the plug-ins an
index's parameters turn on. A plug-in that is asked for but not loaded is an error, never an
index written without its fields.

Nothing here imports another neardup module: the parameters, the documents and the backends all
read this registry, and it must sit below them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from .errors import ArgumentError


class ExtraFields(Protocol):
    """Fields a plug-in stores with each record. ``params`` is the index's
    :class:`~neardup.params.Params`, ``backend`` its :class:`~neardup.backends.base.Backend`
    (typed loosely here: both modules import this one)."""

    #: The boolean parameter that turns the fields on; the registry's key.
    name: str
    #: Whether an index with these fields also writes its band keys as stored strings (a
    #: schema that names them as a field of its own).
    key_strings: bool

    def stored(self, params: Any) -> dict[str, Any]:
        """What is stored with the index's parameters besides them (the versions of the
        plug-in's fixed choices): an index opened later is refused if they changed."""
        ...

    def check(self, backend: Any) -> None:
        """Raise :class:`~neardup.errors.ArgumentError` unless ``backend`` can hold and answer
        the fields, before an index stores its parameters there."""
        ...

    def fields(self, params: Any, texts: list[str]) -> list[dict[str, Any] | str]:
        """Each normalized text's fields, or why the text cannot have them (the record is
        then rejected with that reason)."""
        ...


_REGISTERED: dict[str, ExtraFields] = {}


def register(plugin: ExtraFields) -> None:
    """Make ``plugin`` answer for its parameter (a plug-in's package calls this on import)."""
    _REGISTERED[plugin.name] = plugin


def loaded(values: Mapping[str, Any]) -> list[ExtraFields]:
    """The registered plug-ins whose parameter is on in ``values`` (parameters, or the stored
    form of an index's parameters); a plug-in that is not loaded is left out."""
    return [p for name, p in _REGISTERED.items() if values.get(name)]


def wanted(names: Iterable[str], packages: Mapping[str, str]) -> list[ExtraFields]:
    """The plug-ins of the parameters ``names`` (those that are on), or an error naming the
    package to import (``packages``: parameter -> package) for one that is not loaded."""
    out = []
    for name in names:
        if name not in _REGISTERED:
            raise ArgumentError(
                f"{name}=True asks for fields that {packages.get(name, 'a plug-in')} adds, and "
                f"it is not loaded: import {packages.get(name, 'it')} before indexing"
            )
        out.append(_REGISTERED[name])
    return out
