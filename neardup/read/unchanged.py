"""A file read twice must be the same file both times: ``neardup dedupe`` indexes its input,
then reads it again to write it. A row edited in place or rows appended between the two reads
went unnoticed: rows were removed as duplicates of a text the file no longer held, and rows
never indexed (never compared) were written as kept, with exit code 0.

:class:`FirstRead` notes what the first read saw: the file's identity (device, inode, size,
modification time) when it began, and the count and a digest of the items it read (their
kind, line, id, text and source, or a rejection's reason). :func:`read_again` checks a later
read against it: the same identity before and after, the same items; else an
:class:`~neardup.errors.InputError` says the file changed while it was read (nothing written:
the writer's output is replaced only once it is whole).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import InputError
from .items import Blank, Record, Rejection


def file_identity(path: Path) -> tuple[int, int, int, int]:
    """What tells a file from itself edited: device, inode, size, modification time (ns)."""
    info = os.stat(path)
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _item_bytes(item: Any) -> bytes:
    if isinstance(item, Record):
        seen: tuple[Any, ...] = ("R", item.line, item.id, item.text, item.source, item.copy_of)
    elif isinstance(item, Rejection):
        seen = (type(item).__name__, item.line, item.id, item.reason)
    elif isinstance(item, Blank):
        seen = ("B", item.line)
    else:
        seen = (type(item).__name__, repr(item))
    # repr: a lone surrogate (a JSON "\\ud800") encodes too
    return repr(seen).encode("utf-8")


class FirstRead:
    """The identity of ``path`` now, and the items :meth:`over` passes on (count, digest)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.identity = file_identity(self.path)
        self.count = 0
        self._digest = hashlib.blake2b(digest_size=16)

    @property
    def digest(self) -> bytes:
        return self._digest.digest()

    def over(self, items: Iterable[Any]) -> Iterator[Any]:
        """``items``, noted as they pass; the file checked unchanged once they are all read."""
        for item in items:
            self.note(item)
            yield item
        self.check_unchanged()

    def note(self, item: Any) -> None:
        self.count += 1
        self._digest.update(_item_bytes(item))

    def check_unchanged(self) -> None:
        """The file as it was when this read began, or an error."""
        if file_identity(self.path) != self.identity:
            raise InputError(changed(self.path))


def changed(path: Path) -> str:
    return (
        f"{path}: the file changed while it was read (it is read twice: to index it, then to "
        "write it); nothing was written: run again once nothing writes to it"
    )


def read_again(
    first: FirstRead, spans: Iterable[tuple[Any, int]]
) -> Iterator[tuple[Any, int]]:
    """``spans`` (:func:`neardup.read.records.read_spans` of the file ``first`` read), checked
    to be what the first read saw: the file unchanged since, the same items in the same order.
    """
    first.check_unchanged()
    again = FirstRead(first.path)
    for item, last in spans:
        again.note(item)
        yield item, last
    again.check_unchanged()
    if (again.count, again.digest) != (first.count, first.digest):
        raise InputError(changed(first.path))
