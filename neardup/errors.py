"""Exceptions that carry a message meant for the user, not a traceback."""

from __future__ import annotations


class NeardupError(Exception):
    """Any failure neardup can explain; the CLI prints it and exits with ``exit_code``."""

    exit_code = 1


class InputError(NeardupError):
    """Bad usage or bad input (a file, a line, a parameter): exit code 2."""

    exit_code = 2


class InvalidText(InputError, ValueError):
    """A text that is not valid Unicode (a lone surrogate, e.g. from a JSON ``\\ud800`` escape or
    undecodable command-line bytes): it has no UTF-8 form to shingle and hash."""


class SolrUnavailable(NeardupError):
    """Solr cannot be reached or started; the message says which URL or which log to read."""


class SolrRequestError(NeardupError):
    """Solr answered a request with an error."""


class ParameterMismatch(NeardupError):
    """The index was built with other shingling/hashing parameters than the ones asked for."""
