"""What a reader yields for each line or row of its input: a :class:`Record`, a
:class:`Rejection` (or an :class:`EmptyText`) that names the file, the line and the reason, or a
:class:`Blank`, so that the counts a run prints add up to the lines of the input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Record:
    id: str
    text: str
    #: Where the record comes from: the file it was read from, or the value of its source
    #: column (``source_field``), which link mode pairs across.
    source: str = ""
    line: int = 0
    fields: dict[str, str] = field(default_factory=dict, compare=False)
    #: The file, when ``source`` is a column's value (else empty: ``source`` is the file).
    file: str = field(default="", compare=False)
    #: The line of an earlier record of the same file with the same id, text and source: this
    #: one is a copy of it (an identical row), a duplicate like any other, not a new record.
    copy_of: int = field(default=0, compare=False)
    #: The id as the file typed it (a JSON or Parquet number, a string with its spaces), where
    #: a row gave one: what a cluster column names the record kept by, to join on.
    raw_id: str | int | None = field(default=None, compare=False)
    #: A table's row shorter than its header, read with the columns it leaves out empty (an
    #: editor that trims trailing tabs, or a line break in an unquoted field): counted.
    padded: bool = field(default=False, compare=False)

    @property
    def location(self) -> str:
        """The file a message about this record names with its line."""
        return self.file or self.source


@dataclass(frozen=True)
class Rejection:
    source: str
    line: int
    reason: str
    id: str | None = None
    #: A document of a folder (:mod:`neardup.read.folder`): its place is its file, whose path
    #: under the folder is its id, not a line.
    in_folder: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "reason": self.reason, "id": self.id}

    @property
    def place(self) -> str:
        """Where it is: ``file:line``, or a folder's document by its path."""
        if self.in_folder and self.id is not None:
            return f"{self.source.rstrip('/')}/{self.id}"
        return f"{self.source}:{self.line}"

    def __str__(self) -> str:
        named = self.id is not None and not self.in_folder  # (a document's id is its place)
        return f"{self.place}: {self.reason}" + (f" (id {self.id!r})" if named else "")


@dataclass(frozen=True)
class EmptyText(Rejection):
    """A record whose text is empty: it cannot be compared, so it is never indexed, but it is
    a row of the user's data, counted apart (``dedupe`` writes it as it is)."""


class Unstored(Rejection):
    """A record read whole that the index cannot store (no words after normalization, or a
    plug-in's reason): it duplicates nothing, so ``dedupe`` writes it as it is and counts it
    kept, while ``index`` reports it rejected."""


@dataclass
class Blank:
    """A blank or whitespace-only line: skipped, but counted."""

    source: str
    line: int


Item = Record | Rejection | Blank
