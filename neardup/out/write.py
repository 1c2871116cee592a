"""Writers of reports: pairs and clusters as TSV; outputs checked before the work starts,
and written whole or not at all (:class:`AtomicFile`, :class:`Outputs`).

Cells that start with ``=``, ``+``, ``-`` or ``@`` are written as they are, not neutralised
against spreadsheet formulas (a leading ``'``, as OWASP suggests for CSV injection): the
pairs and clusters files are read back by neardup (evaluate, review, labels) and joined with
the records on their ids, and an id changed on the way out would no longer be the record's.
`dedupe` writes the user's own rows again, byte for byte. Open these files in a spreadsheet
as text (an import with the columns as text), not by double-clicking them.
"""

from __future__ import annotations

import contextvars
import csv
import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from ..errors import ArgumentError, InputError, OutputError
from ..keys import qualified, record_id, source_of_key
from ..read.checks import BAD_ID_CHAR
from ..read.records import EXTENSIONS


def write_pairs(
    pairs: Sequence[Any], out: str | Path, primary: str | None = None, *, linked: bool = False
) -> int:
    """The pairs report: TSV with the header ``id1 id2 jaccard edit_distance``; how many.

    Where a weighted similarity decided (link mode; a valley read on weighted Jaccard), a
    column ``similarity`` (empty for a pair Jaccard decided, such as a completed cluster's);
    where pairs carry their sources (link mode; two files may both hold an id 7), two more:
    ``source1 source2``. Written whole or not at all (:class:`AtomicFile`); a control
    character in an id or a source is written as its code point (:func:`_cell`). A pair of
    two records of the ``primary`` source carries no sources: its cells name that source,
    as the clusters file does (a blank one read as another record than the same id named).
    ``linked`` (a link's report): the link's columns even where it found no pair, so that a
    reader of columns by name reads every report of the link alike."""
    linked = linked or any(getattr(p, "source1", None) is not None for p in pairs)
    weighed = linked or any(getattr(p, "similarity", None) is not None for p in pairs)
    n = 0
    with AtomicFile(out, text=True) as fh:
        fh.write("id1\tid2\tjaccard\tedit_distance" + ("\tsimilarity" if weighed else "")
                 + ("\tsource1\tsource2" if linked else "") + "\n")  # fmt: skip
        for p in pairs:
            # ids and sources are checked as they are read, so _cell() changes nothing but
            # what an older index may hold: a row is one line of as many cells, always.
            row = f"{_cell(p.id1)}\t{_cell(p.id2)}\t{p.jaccard:.4f}\t{p.edit_distance}"
            if weighed:
                row += "\t" + ("" if p.similarity is None else f"{p.similarity:.4f}")
            if linked:
                row += f"\t{_cell(p.source1 or primary or '')}\t{_cell(p.source2 or primary or '')}"
            fh.write(row + "\n")
            n += 1
    return n


def write_clusters(groups: Iterable[Any], out: str | Path, primary: str | None = None) -> None:
    """Clusters as TSV: ``center least_similarity members...``, one cluster a line under a
    header: the record every member is paired with, the smallest similarity of a member to it,
    then the other members (:class:`neardup.decision.cluster.Cluster`). Where a cluster holds
    records of a source other than the index's ``primary`` one, each record is written as its id and
    its source (``center center_source least_similarity member source ...``), so that two
    files' records 7 are never read as one. Plain groups of ids (connected components) are
    written one a line, their ids separated by tabs."""
    groups = list(groups)
    sourced = any(qualified(m) for g in groups if hasattr(g, "center") for m in g.members)

    def cells(key: str) -> list[str]:
        if not sourced:
            return [_cell(record_id(key))]  # the record's own id
        return [_cell(record_id(key)), _cell(source_of_key(key) or primary or "")]

    with AtomicFile(out, text=True) as fh:
        header = False
        for g in groups:
            if hasattr(g, "center"):
                if not header:
                    fh.write(
                        "center\tcenter_source\tleast_similarity\tmembers (id, source)\n"
                        if sourced
                        else "center\tleast_similarity\tmembers\n"
                    )
                    header = True
                first, *rest = g.members
                row = [*cells(first), f"{g.least:.4f}", *(c for m in rest for c in cells(m))]
                fh.write("\t".join(row) + "\n")
            else:
                fh.write("\t".join(map(_cell, g)) + "\n")


# -- outputs: checked before the work starts, and written whole or not at all -------------------
#
# A run that indexes and reports for minutes must not fail at the end on a path it could have
# checked at the start (check_output, distinct_outputs), and a run that fails or is interrupted
# must leave no half-written or empty file (AtomicFile), nor some of its outputs new and others
# old (Outputs). What is replaced is only ever a regular file, and it keeps its permission bits:
# a device (/dev/null, /dev/full), a FIFO or a terminal is written through, and a symbolic link
# is followed (the file it points at is replaced; the link stays a link).

#: Write errors that are the output's, not the input's: said as such, without a traceback.
WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE)
#: What a temporary output file's name ends with (``.NAME.PID.RANDOM.tmp``, beside its target).
TMP_SUFFIX = ".tmp"


#: The format an output's extension names: a records file's (:data:`EXTENSIONS`), and ``.json``
#: for JSON Lines (what ``evaluate`` and the records readers read a ``.json`` file as).
OUTPUT_EXTENSIONS = {**EXTENSIONS, ".json": "jsonl"}
#: Formats as a message names them.
FORMAT_NAMES = {"jsonl": "JSON Lines", "lines": "ID TEXT lines"}


def named_format(path: str | Path | None) -> str | None:
    """The format ``path``'s extension names (:data:`OUTPUT_EXTENSIONS`); None for standard
    output ('-') or an extension of no format (``.txt``, none)."""
    if path is None or str(path) == "-":
        return None
    return OUTPUT_EXTENSIONS.get(Path(str(path)).suffix.lower())


def format_name(fmt: str) -> str:
    return FORMAT_NAMES.get(fmt, fmt.upper())


def check_output_extension(path: str | Path | None, written: str, flag: str, why: str) -> None:
    """Refuse an output whose extension names another format than ``written``, the one the
    verb will write there (``why`` says why it is that one): one definition for ``dedupe`` and
    ``report``, each of which let either win before (a ``.parquet`` file holding TSV, a
    ``.csv`` file holding JSON Lines), so that a reader going by the name failed or misread."""
    named = named_format(path)
    if named is not None and named != written:
        raise ArgumentError(
            f"{flag} {path}: its extension says {format_name(named)}, but {why}: give it an "
            "extension of that format, or none"
        )


def check_output(path: str | Path, what: str = "output", inputs: Iterable[Path] = ()) -> Path:
    """``path`` if a file can be written there, else an :class:`InputError` that says why:
    a directory, no such directory, no permission, or one of ``inputs`` (never overwritten)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{escape_unseen(str(path))}: the {what} is a directory")
    real = path.resolve()
    for source in inputs:
        if Path(source).exists() and same_file(path, Path(source)):
            raise InputError(f"{escape_unseen(str(path))}: the {what} would overwrite the input")
    if path.exists():  # asked of the path, not of ``real``: /dev/fd/63, a pipe, resolves to
        # the name of no file (/proc/self/fd/pipe:[...]), while opening the path opens the pipe
        if not os.access(path, os.W_OK):
            raise InputError(f"{path}: the {what} cannot be written (permission denied)")
        if _read_only(path):
            raise InputError(f"{path}: the {what} is a read-only file: {_READ_ONLY}")
        if not _regular(path):
            return path  # written through: its directory need not be writable
    parent = real.parent
    if not parent.is_dir():  # a symbolic link's: where its target would be (not the link's)
        missing = parent if path.is_symlink() else path.parent
        raise InputError(f"{path}: no such directory {str(missing)!r}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{path}: the {what} cannot be written in {str(parent)!r}")
    return path


def distinct_outputs(named: Mapping[str, str | Path | None]) -> None:
    """An :class:`InputError` if two of a run's outputs (by the name it is given as, e.g.
    ``--out``) are one file: the same path however spelled (``./x`` and ``x``, a symbolic link
    and its file, a hard link) or both standard output (``-``). Each would replace the other, or
    the two would be mixed. Character devices (``/dev/null``) are written through, and may be
    given twice."""
    given = [(name, Path(path)) for name, path in named.items() if path is not None]
    for k, (name, path) in enumerate(given):
        for other, path2 in given[:k]:
            if str(path) == "-" or str(path2) == "-":
                same = str(path) == str(path2)
            else:
                same = same_file(path, path2) and not _device(path)
            if same:
                where = "standard output ('-')" if str(path) == "-" else escape_unseen(str(path))
                raise InputError(
                    f"{other} and {name} are the same file, {where}: give each its own"
                )


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same resolved path, or one inode."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _device(path: Path) -> bool:
    try:
        return stat.S_ISCHR(path.stat().st_mode)
    except OSError:
        return False


#: What to do about an output that is a read-only file.
_READ_ONLY = "neardup does not replace it; make it writable (chmod u+w) or give another path"


def _read_only(path: Path) -> bool:
    """Whether ``path`` is a regular file that no one may write (no ``w`` bit): refused even
    where :func:`os.access` allows it (root may write any file, and the rename that replaces
    an output needs only its folder), as it is for any other user."""
    try:
        st = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and not st.st_mode & 0o222


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True  # does not exist (yet): it will be a regular file


#: The outputs of the run in progress (:class:`Outputs`), if one is open.
_RUN: contextvars.ContextVar[Outputs | None] = contextvars.ContextVar("neardup_run", default=None)


class Outputs:
    """The outputs of one run, replaced all together or not at all.

    Every :class:`AtomicFile` completed inside the block stays under its temporary name; when
    the block ends without an error, and so every output of the run is complete, each is renamed
    over its target. On an error (or Ctrl-C) none is replaced and every temporary file is
    removed: a run that writes a report and its clusters, or a dataset and its review page, never
    leaves one new and the other old. Renames in one folder need no space, so once every file is
    complete the commit does not fail for a full disk. Outputs written through (a device, a FIFO)
    cannot be taken back; standard output is sent last, after the files (:func:`when_written`).
    Blocks nest: an inner one's files are committed with the outer one's."""

    def __init__(self) -> None:
        self.files: list[AtomicFile] = []
        self.then: list[Callable[[], None]] = []
        self.finally_: list[Callable[[], None]] = []
        self._token: contextvars.Token[Outputs | None] | None = None
        self._outer: Outputs | None = None

    def __enter__(self) -> Outputs:
        self._outer = _RUN.get()
        self._token = _RUN.set(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._token is not None:
            _RUN.reset(self._token)
        if exc_type is not None:
            self.abort()
        elif self._outer is not None:
            self._outer.files += self.files
            self._outer.then += self.then
            self._outer.finally_ += self.finally_
        else:
            self.commit()

    def commit(self) -> None:
        files, self.files = self.files, []
        try:
            for k, f in enumerate(files):
                try:
                    f.replace()
                except OSError as exc:
                    for rest in files[k:]:
                        rest.discard()
                    raise f.error(exc) from None
            for step in self.then:
                step()
        finally:
            self._cleanup()

    def abort(self) -> None:
        files, self.files = self.files, []
        for f in files:
            f.discard()
        self._cleanup()

    def _cleanup(self) -> None:
        steps, self.then, self.finally_ = self.finally_, [], []
        for step in steps:
            step()


def when_written(step: Callable[[], None], cleanup: Callable[[], None]) -> None:
    """Run ``step`` once the run's files are in place, then ``cleanup`` (which runs also when
    they are thrown away): at the end of the :class:`Outputs` block, or now outside one. What
    writes to standard output through a temporary file sends it this way."""
    run = _RUN.get()
    if run is None:
        try:
            step()
        finally:
            cleanup()
        return
    run.then.append(step)
    run.finally_.append(cleanup)


def _name_max(folder: Path) -> int:
    """The longest file name ``folder`` takes, in bytes (255 where the system does not say)."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255


class AtomicFile:
    """A file written under a temporary name beside its target and renamed over it only when
    complete (:meth:`done`); :meth:`fail` (or leaving the ``with`` block on an error) removes
    the temporary file and leaves the target as it was. Inside an :class:`Outputs` block the
    rename waits for the run's other outputs. The file replaced keeps its permission bits (a
    new one gets the umask's, as :func:`open` gives). A target that exists and is not a
    regular file is opened and written through instead; a symbolic link's target is the file
    replaced. Every error writing it is an :class:`OutputError` that names the target."""

    def __init__(self, target: str | Path, text: bool = False) -> None:
        self.target = Path(target)
        self.real = real = self.target.resolve()
        self.tmp: Path | None = None
        self.fh: IO[Any]
        if _read_only(real):  # the library's writers too, not only the CLI's checked outputs
            where = escape_unseen(str(self.target))
            raise OutputError(f"{where}: cannot be written: a read-only file: {_READ_ONLY}")
        try:
            if self.target.exists() and not _regular(self.target):  # not ``real``: a pipe's
                fd = os.open(self.target, os.O_WRONLY | os.O_CLOEXEC)  # /dev/fd/N resolves to none
            else:
                fd = self._temporary(real)
        except OSError as exc:
            raise self.error(exc) from None
        if text:
            self.fh = open(fd, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        else:
            self.fh = open(fd, "wb")  # noqa: SIM115 - closed by done() or fail()

    def _temporary(self, real: Path) -> int:
        """The temporary file, made (never an existing one), with the bits of the file it
        will replace."""
        try:
            mode: int | None = stat.S_IMODE(real.stat().st_mode) & 0o777
        except FileNotFoundError:
            mode = None  # a new file: 0o666 less the umask, as open() makes it
        tail = f".{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}"
        # the name's head only, where the whole would make a name longer than a folder allows
        # (a 250-byte output name was refused after the run, "File name too long")
        room = max(_name_max(real.parent) - len(tail.encode()) - 1, 1)
        head = real.name.encode()[:room].decode("utf-8", "ignore") or "o"
        self.tmp = real.with_name(f".{head}{tail}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        fd = os.open(self.tmp, flags, 0o666 if mode is None else mode)
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # exactly the old bits, whatever the umask takes off
        except OSError:
            os.close(fd)
            self.discard()
            raise
        return fd

    def done(self) -> None:
        """Complete the file: flushed and, unless a run's :class:`Outputs` wait for their
        other files, renamed over its target."""
        try:
            self.fh.flush()
            if self.tmp is not None:
                os.fsync(self.fh.fileno())  # on disk before the rename makes it the file
            self.fh.close()
        except OSError as exc:
            self.fail()
            raise self.error(exc) from None
        run = _RUN.get()
        if run is not None and self.tmp is not None:
            run.files.append(self)
            return
        try:
            self.replace()
        except OSError as exc:
            self.discard()
            raise self.error(exc) from None

    def replace(self) -> None:
        """Rename the complete temporary file over the target."""
        if self.tmp is not None:
            os.replace(self.tmp, self.real)
            self.tmp = None

    def fail(self) -> None:
        try:
            self.fh.close()
        except OSError:
            pass  # the data that could not be flushed is being thrown away anyway
        self.discard()

    def discard(self) -> None:
        """Remove the temporary file, if any: the target stays as it was."""
        if self.tmp is not None:
            self.tmp.unlink(missing_ok=True)
            self.tmp = None

    def error(self, exc: OSError) -> OutputError:
        """What the user is told when this file cannot be written."""
        where = escape_unseen(str(self.target))
        return OutputError(f"{where}: cannot be written: {exc.strerror or exc}")

    def __enter__(self) -> IO[Any]:
        return self.fh

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.done()
            return
        self.fail()
        if isinstance(exc, OSError) and exc.errno in WRITE_ERRORS:
            raise self.error(exc) from None


#: What a TSV cell or a terminal line must not show raw (:func:`escape_unseen`): the
#: control characters
#: and line separators, which break a TSV row or move a terminal's cursor, and the characters
#: that change how the text around them reads without being seen (bidirectional controls,
#: zero-width characters, the byte-order mark), as the review page shows them.
_UNSEEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]"
)
_UNSEEN_BUT_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]"
)


def escape_unseen(text: str, lines: bool = False) -> str:
    """``text`` with each control or invisible character as its code point, ``[U+202E]``, as
    the review page shows them; with ``lines``, tabs and line feeds are kept (a summary's own
    layout). For what is printed on a terminal, and the names in messages."""
    if text.isprintable() and text.isascii():
        return text
    pattern = _UNSEEN_BUT_LINES if lines else _UNSEEN
    return pattern.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def table_writer(fh: IO[str], fmt: str, end: str = "\n") -> Any:
    """The writer of a CSV or TSV table (``fmt``): one for every table neardup writes of
    its records (report's, dedupe's TSV of ``ID TEXT`` lines), so that a cell with a quote,
    the separator or a line break is quoted the one way readers (pandas, csv, neardup's
    own) read back. ``end``: what ends a row."""
    return csv.writer(fh, delimiter="\t" if fmt == "tsv" else ",", lineterminator=end)


def _cell(text: str) -> str:
    """``text`` fit for a TSV cell: the characters no id or source may hold (:func:`check_id`,
    :func:`check_source`) as their code points, ``[U+0009]``. Checked data has none, so this
    changes only what an index made before the checks may hold. A cell that starts with a
    quote is quoted, as CSV quotes (its quotes doubled, the whole between quotes), so the
    file reads back as the ids it was written from."""
    if not text.isprintable():
        text = BAD_ID_CHAR.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)
    if text.startswith('"'):  # quoted as CSV quotes, or a reader of TSV (evaluate's, pandas')
        return '"' + text.replace('"', '""') + '"'  # takes the quote for the start of one
    return text
