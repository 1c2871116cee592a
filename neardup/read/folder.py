"""A folder of documents as records: each file is one record, its path under the folder its id.

Why: a corpus of documents (articles, reports, pages saved as text) often comes as files, not as
a table, and making a JSON Lines file of it first is work every user would redo. A file's whole
content is its text, read as a file's lines are (:mod:`neardup.read.lines`: UTF-8, bytes that
are not UTF-8 in the encoding the first such file reads as, else Windows-1252, said once). Files
and folders whose names start with a dot (``.git``, ``.DS_Store``) are not documents and are
passed over; symbolic links to folders are not followed (a link back up would loop). The order
is the paths' (sorted), so a folder gives the same records and ids on every machine.

A file that is not text (a NUL byte: an image, a PDF) or larger than a record may be is
rejected with its reason, never read whole; an empty file is counted apart, as an empty text.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from .checks import LINE_ROOM
from .items import EmptyText, Item, Record, Rejection
from .lines import BOM, NUL, as_legacy

#: The format name of a folder read as documents.
FOLDER = "folder"


def folder_files(path: Path) -> list[str]:
    """The documents of the folder ``path``: the paths of its regular files under it (``/``
    between folders), sorted, hidden names (a leading dot) and their contents left out."""
    found: list[str] = []
    for where, folders, files in os.walk(path, onerror=_unreadable):
        folders[:] = [f for f in folders if not f.startswith(".")]
        base = Path(where).relative_to(path)
        # a link to a folder is not walked (it may loop): named, with the files that are no
        # regular files (a named pipe, a socket), among the rejected documents, not passed over
        linked = [f for f in folders if (Path(where) / f).is_symlink()]
        for name in [*files, *linked]:
            if not name.startswith("."):
                found.append((base / name).as_posix())
    return sorted(found)


def _not_a_file(path: Path) -> str | None:
    """Why ``path`` is no document (None: a regular file, or a link to one)."""
    if path.is_file():
        return None
    if path.is_symlink():
        target = os.readlink(path)
        if path.is_dir():
            return f"a symbolic link to a folder ({target}), not followed: give that folder"
        return f"a symbolic link to a file that does not exist ({target})"
    try:
        mode = path.lstat().st_mode
    except OSError as exc:  # gone since the folder was listed
        return f"cannot be read ({exc.strerror})"
    kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a special file"
    return f"not a regular file: {kind}"


def _unreadable(exc: OSError) -> None:
    raise InputError(f"{exc.filename}: the folder cannot be read ({exc.strerror})") from exc


def read_folder(path: Path, limit: int | None) -> Iterator[tuple[Item, int]]:
    """Each document of the folder ``path`` (:func:`folder_files`) as a record, a rejection or
    an empty text, with its number among them for its line; ``limit``: the most bytes of text
    a record may hold (a larger file is rejected by its size, unread)."""
    source = str(path)
    noted = False
    encoding: str | None = None  # read off the first file that is not UTF-8, kept for the rest
    for number, rel in enumerate(folder_files(path), start=1):
        file = path / rel
        reason = _not_a_file(file)
        if reason is not None:
            yield Rejection(source, number, reason, rel), number
            continue
        try:
            size = file.stat().st_size
            if limit is not None and size > limit + LINE_ROOM:
                reason = f"record too large, a file of {size} bytes (the limit is {limit} bytes)"
                yield Rejection(source, number, reason, rel), number
                continue
            data = file.read_bytes()
        except OSError as exc:
            yield Rejection(source, number, f"cannot be read ({exc.strerror})", rel), number
            continue
        if NUL in data:
            reason = f"not text: a NUL byte at byte {data.index(NUL) + 1} (a binary file?)"
            yield Rejection(source, number, reason, rel), number
            continue
        data = data.removeprefix(BOM)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text, encoding = as_legacy(data, exc, file, say=not noted, encoding=encoding,
                                       also="this file and the folder's others")  # fmt: skip
            noted = True
        if not text.strip():
            yield EmptyText(source, number, "an empty file", rel), number
        else:
            yield Record(rel, text, source, number), number
