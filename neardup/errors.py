"""Exceptions that carry a message meant for the user, not a traceback."""

from __future__ import annotations


class NeardupError(Exception):
    """Any failure neardup can explain; the CLI prints it and exits with ``exit_code``."""

    exit_code = 1


class InputError(NeardupError):
    """Bad usage or bad input (a file, a line, a parameter): exit code 2."""

    exit_code = 2


class ArgumentError(InputError, ValueError):
    """A library call got an argument it cannot use (a threshold outside (0, 1], k < 1 ...)."""


class MissingColumn(ArgumentError):
    """A column named for the ids, texts or sources is not in the file or DataFrame (the CLI
    adds which flags name them)."""


class MissingCABundle(InputError):
    """The CA bundle given to verify Solr's TLS certificate does not exist."""


class InvalidText(InputError, ValueError):
    """A text that is not valid Unicode (a lone surrogate, e.g. from a JSON ``\\ud800`` escape or
    undecodable command-line bytes): it has no UTF-8 form to shingle and hash."""


class OutputError(NeardupError):
    """A file neardup writes could not be written (a full disk, a device that refuses)."""


class SolrUnavailable(NeardupError):
    """Solr cannot be reached or started; the message says which URL or which log to read."""


class SolrRequestError(NeardupError):
    """Solr answered a request with an error."""


class NoSuchCollection(SolrRequestError):
    """The collection named is not on that Solr: a name mistyped, so bad usage (exit 2)."""

    exit_code = 2


class ParameterMismatch(InputError):
    """The index was built with another parameter set than the one asked for."""


class RecordNotFound(InputError):
    """No record of that source has that id; ``holding``: the other sources that have a record
    of the id, which the message names (a caller may name them its own way: ``message``)."""

    def __init__(self, message: str, holding: list[str], hint: str = "") -> None:
        super().__init__(message + hint)
        self.message, self.holding = message, holding


class SolrUnauthorized(SolrUnavailable):
    """Solr asked for credentials, or refused the ones sent (HTTP 401)."""


class SolrCertificateUnverified(SolrUnavailable):
    """Solr's TLS certificate could not be verified (a CA bundle is needed)."""


class NeardupWarning(UserWarning):
    """A note for the user about something done that they may not expect; the CLI prints its
    message as a line of its own (``neardup: note: ...``)."""


class RejectedRows(NeardupWarning):
    """Records ``add_many``, ``add_frame`` or a ``batch()`` (when it closes) read and did not
    index (an id repeated with another text, a missing id, no text ...): how many, and the
    first with their rows and reasons. ``stats.rejections`` lists them too, but a notebook
    seldom reads it, and the rows were lost without a word;
    ``warnings.filterwarnings("ignore", category=RejectedRows)`` silences it."""


class NotUtf8(NeardupWarning):
    """A file with bytes that are not UTF-8, read in the legacy encoding read off them, else as
    Windows-1252 (:mod:`neardup.read.lines`): said once per file, with the first such line.
    ``encoding``: the encoding found (None: Windows-1252)."""

    def __init__(
        self, path: object, line: int, byte: int, also: str = "the file",
        encoding: str | None = None,
    ) -> None:  # fmt: skip
        self.path, self.line, self.byte = str(path), line, byte
        self.encoding = encoding or "Windows-1252 (cp1252)"
        if encoding is None:
            said = (
                f"read as Windows-1252 (cp1252), as is any such byte of {also}; if the file is "
                "in another encoding, save it as UTF-8 (iconv -f ENCODING -t UTF-8)"
            )
        else:
            said = (
                f"read as {encoding}, the encoding its bytes read as, as is any such line of "
                f"{also}; if it is in another encoding, save it as UTF-8 (iconv -f ENCODING "
                "-t UTF-8)"
            )
        super().__init__(f"{path}:{line}: not UTF-8 at column {byte}: {said}")
