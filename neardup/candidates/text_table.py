"""The texts of a report's candidates, held for the verification and the rules.

Why a module of its own: the report reads its candidates' texts from the backend once
(:meth:`TextTable.read`), and verification (:mod:`neardup.candidates.verify`), the rules
(:mod:`neardup.decision.decide`) and the checks all read them from here.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping

import numpy as np
from numpy.typing import NDArray

from ..backends.base import Backend


class TextTable(Mapping[str, str]):
    """The texts of the candidates' records by code (``ids`` sorted by
    :func:`~neardup.keys.id_key`), read from the backend :data:`TEXT_CHUNK` at a time and
    held as UTF-8 in one buffer.

    Why not a dict of id -> text: at ten million records a report's candidates hold millions
    of records; a dict costs about 100 bytes an entry and a str object 50 more on top of the
    text, and the strs kept out of each parsed response pin the memory of the rest. One
    buffer costs the text's bytes and 16 bytes a record. Lookups by id (the rules read the
    texts of their pairs) build the index of ids on first use.
    """

    def __init__(self, ids: list[str], texts: Iterable[str] | None = None) -> None:
        self.ids = ids
        self._buffer = bytearray()
        self._start = np.zeros(len(ids), dtype=np.int64)
        self._end = np.zeros(len(ids), dtype=np.int64)
        self._view: memoryview | None = None
        self._codes: dict[str, int] | None = None
        if texts is not None:
            self._put(range(len(ids)), texts)

    def _put(self, codes: Iterable[int], texts: Iterable[str]) -> None:
        buffer, start, end = self._buffer, self._start, self._end
        for k, text in zip(codes, texts, strict=True):
            start[k] = len(buffer)
            buffer += text.encode("utf-8", "surrogatepass")
            end[k] = len(buffer)

    @classmethod
    def read(cls, backend: Backend, ids: list[str], codes: NDArray[np.int64]) -> TextTable:
        table = cls(ids)
        wanted = codes.tolist()
        for lo in range(0, len(wanted), TEXT_CHUNK):
            chunk = wanted[lo : lo + TEXT_CHUNK]
            got = backend.texts([ids[k] for k in chunk])
            table._put(chunk, (got.get(ids[k], "") for k in chunk))
        return table

    @classmethod
    def over(
        cls, ids: list[str], buffer: bytearray, start: NDArray[np.int64], end: NDArray[np.int64]
    ) -> TextTable:
        """The table of ``ids`` whose texts are already in ``buffer``: code ``k``'s text is
        ``buffer[start[k]:end[k]]``. The buffer is taken, not copied."""
        table = cls(ids)
        table._buffer, table._start, table._end = buffer, start, end
        return table

    def text(self, k: int) -> str:
        """The text of code ``k`` ("" for a record without one)."""
        if self._view is None:  # the buffer is complete once read: no more resizing
            self._view = memoryview(self._buffer)
        return str(self._view[self._start[k] : self._end[k]], "utf-8", "surrogatepass")

    def sizes(self, codes: NDArray[np.int64]) -> NDArray[np.int64]:
        """The UTF-8 bytes of each code's text."""
        return self._end[codes] - self._start[codes]

    def code(self, record_id: str) -> int | None:
        if self._codes is None:  # only the rules look texts up by id: built on first use
            self._codes = {i: k for k, i in enumerate(self.ids)}
        return self._codes.get(record_id)

    def __getitem__(self, record_id: str) -> str:
        k = self.code(record_id)
        if k is None:
            raise KeyError(record_id)
        return self.text(k)

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


class Gathered:
    """Texts by id gathered in any order, each id once, into one UTF-8 buffer, then made a
    :class:`TextTable` in id order without a copy. Why: the verified pairs of a plan come in
    batches, each holding the texts of its pairs' records; a dict of their strs and then a
    table copied from it held the texts three times over at the peak (documents at 10M: 1.25M
    records' texts)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._at: dict[str, int] = {}
        self._start = array("q")
        self._end = array("q")

    def add(self, ids: Iterable[str], texts: Iterable[str]) -> None:
        """The texts of ``ids`` (a text given again for an id is not kept twice)."""
        buffer, at, start, end = self._buffer, self._at, self._start, self._end
        for record_id, text in zip(ids, texts, strict=True):
            if record_id in at:
                continue
            at[record_id] = len(start)
            start.append(len(buffer))
            buffer += text.encode("utf-8", "surrogatepass")
            end.append(len(buffer))

    def ids(self) -> list[str]:
        """The ids gathered, in the order they came."""
        return list(self._at)

    def __len__(self) -> int:
        return len(self._at)

    def table(self, ids: list[str]) -> TextTable:
        """The table of ``ids`` (each one gathered), their codes in that order."""
        at = self._at
        rows = np.fromiter((at[i] for i in ids), dtype=np.int64, count=len(ids))
        table = TextTable.over(ids, self._buffer, np.frombuffer(self._start, dtype=np.int64)[rows],
                               np.frombuffer(self._end, dtype=np.int64)[rows])  # fmt: skip
        self._buffer, self._at = bytearray(), {}  # the table holds the buffer now
        self._start, self._end = array("q"), array("q")
        return table


#: Texts read from the backend per call when a report fetches its candidates' records.
TEXT_CHUNK = 50_000
