"""neardup's configuration from the environment, read in one place by the library and the CLI.

Why one module: a notebook and a shell must talk to the same Solr. Before, only the CLI read
``NEARDUP_SOLR_URL`` and ``NEARDUP_HOME``, so ``NearDupIndex.open()`` in a notebook started or
used another node than ``neardup index`` in the shell beside it. Explicit arguments (a flag, a
keyword) always win over the environment; the environment wins over the defaults.

================================  ==========================================================
``NEARDUP_HOME``                  where neardup's own Solr node lives (default ``~/.neardup``)
``NEARDUP_SOLR_URL``              an existing Solr (base or collection URL) instead of it
``NEARDUP_SOLR_USER``             basic-auth user
``NEARDUP_SOLR_PASSWORD``         its password, or
``NEARDUP_SOLR_PASSWORD_FILE``    a file holding it (one line; kept out of the process list)
``NEARDUP_SOLR_CA``               a CA bundle to verify Solr's TLS certificate
``NEARDUP_SOLR_TIMEOUT``          seconds a request may take, to its answer's last byte
``NEARDUP_SOLR_RETRY_BUDGET``     seconds of retries a request may use
``NEARDUP_SOLR_HEAP``             the Java heap of the local node (``4g``)
``NEARDUP_KERNEL``                ``c`` or ``numpy``: which kernel shingles and hashes
================================  ==========================================================

A ``NEARDUP_*`` variable neardup does not know (a misspelt name) would be ignored
without a word: it is said once, with the known name closest to it (:func:`unknown_variables`).

neardup's own node needs no credentials from anyone: its clients read the node's own password
file (:mod:`neardup.solr.local`), also when its URL is given as ``NEARDUP_SOLR_URL`` or a flag
without a user.
"""

from __future__ import annotations

import difflib
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import InputError, NeardupWarning

if TYPE_CHECKING:
    from .solr.client import Auth


#: Every ``NEARDUP_*`` variable read anywhere: neardup's (the table above), then those of its
#: tests (a SolrCloud to test against) and of its accuracy benchmark (the tasks, the downloads).
KNOWN = (
    "NEARDUP_HOME", "NEARDUP_SOLR_URL", "NEARDUP_SOLR_USER", "NEARDUP_SOLR_PASSWORD",
    "NEARDUP_SOLR_PASSWORD_FILE", "NEARDUP_SOLR_CA", "NEARDUP_SOLR_TIMEOUT",
    "NEARDUP_SOLR_RETRY_BUDGET", "NEARDUP_SOLR_HEAP", "NEARDUP_KERNEL",
    "NEARDUP_SOLR_CLOUD_URL", "NEARDUP_ER_DIR", "NEARDUP_ACCURACY_CACHE",
)  # fmt: skip
#: The unknown variables already said by this process: each once, by the CLI or the library.
_SAID: set[str] = set()


class UnknownVariable(NeardupWarning):
    """A ``NEARDUP_*`` variable of the environment that neardup does not read."""


def unknown_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """A message for each ``NEARDUP_*`` variable of the environment that neardup does not read
    and that was not said before: a misspelt name would be ignored without a word."""
    env = os.environ if environ is None else environ
    said = []
    for name in sorted(env):
        if name.startswith("NEARDUP_") and name not in KNOWN and name not in _SAID:
            _SAID.add(name)
            close = difflib.get_close_matches(name, KNOWN, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            said.append(f"{name} is not a variable neardup reads{hint}; it is ignored")
    return said


@dataclass(frozen=True)
class Config:
    """What neardup is configured with (None: not set, the default applies)."""

    home: Path | None = None
    solr_url: str | None = None
    user: str | None = None
    #: Left out of the repr, so that printing a Config never shows it.
    password: str | None = field(default=None, repr=False)
    ca: str | None = None
    timeout: float | None = None
    retry_budget: float | None = None
    heap: str | None = None
    kernel: str | None = None

    @property
    def auth(self) -> Auth | None:
        """Basic-auth credentials, if a user is set."""
        # Here, not at the top: the Solr client loads pysolr and requests, which the CLI's
        # --help and its verbs without Solr read this module without paying for.
        from .solr.client import Auth

        return Auth(self.user, self.password or "") if self.user else None

    @property
    def verify(self) -> bool | str:
        """What TLS verification uses: the CA bundle, else the system's."""
        return self.ca or True


def load(
    *,
    home: str | Path | None = None,
    solr_url: str | None = None,
    user: str | None = None,
    password: str | None = None,
    password_file: str | Path | None = None,
    ca: str | None = None,
    heap: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """The configuration: each explicit argument, else its environment variable, else None.

    A password comes from ``password``, else ``password_file``, else the environment's password,
    else its password file."""
    env = os.environ if environ is None else environ
    for message in unknown_variables(env):
        warnings.warn(UnknownVariable(message), stacklevel=2)

    def get(name: str) -> str | None:
        value = env.get(name, "").strip()
        return value or None

    home_raw = home if home is not None else get("NEARDUP_HOME")
    if password is None and password_file is not None:
        password = read_password(password_file)
    if password is None:
        password = env.get("NEARDUP_SOLR_PASSWORD") or None
    if password is None and get("NEARDUP_SOLR_PASSWORD_FILE"):
        password = read_password(get("NEARDUP_SOLR_PASSWORD_FILE"), "NEARDUP_SOLR_PASSWORD_FILE")
    home_path = Path(home_raw).expanduser() if home_raw else None
    solr_url = solr_url or get("NEARDUP_SOLR_URL")
    user = user or get("NEARDUP_SOLR_USER")
    if solr_url and user is None and password is None:
        # Here, not at the top: see Config.auth (the Solr modules load pysolr and requests).
        from .solr.local import url_auth

        own = url_auth(solr_url, home_path)  # the URL of neardup's own node: its password
        if own is not None:
            user, password = own.user, own.password
    return Config(
        home=home_path,
        solr_url=solr_url,
        user=user,
        password=password,
        ca=ca or get("NEARDUP_SOLR_CA"),
        timeout=seconds("NEARDUP_SOLR_TIMEOUT", env, positive=True),
        retry_budget=seconds("NEARDUP_SOLR_RETRY_BUDGET", env),
        heap=heap or _heap(get("NEARDUP_SOLR_HEAP")),
        kernel=kernel(env),
    )


#: The values of ``NEARDUP_KERNEL`` (:mod:`neardup.sign.kernel`).
KERNELS = ("c", "numpy")


def kernel(environ: Mapping[str, str] | None = None) -> str | None:
    """``NEARDUP_KERNEL``, lower-cased (None when unset or empty), checked: read alone, so that
    a verb that does not talk to Solr never fails on a bad Solr variable."""
    env = os.environ if environ is None else environ
    raw = env.get("NEARDUP_KERNEL", "").strip()
    if raw and raw.lower() not in KERNELS:
        raise InputError(f"NEARDUP_KERNEL must be 'c' or 'numpy', got {raw!r}")
    return raw.lower() or None


def _heap(raw: str | None) -> str | None:
    """``NEARDUP_SOLR_HEAP`` checked, so that a bad one is said with the variable's name."""
    if raw is None:
        return None
    # Here, not at the top: see Config.auth (the Solr modules load pysolr and requests).
    from .solr.local import heap_size

    return heap_size(raw, "NEARDUP_SOLR_HEAP")


def read_password(path: str | Path | None, what: str = "the password file") -> str:
    """The password a file holds: its first line, without the line ending."""
    try:
        text = Path(str(path)).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read {what}: {exc}") from None
    lines = text.splitlines()
    if not lines or not lines[0]:
        raise InputError(f"{path}: {what} is empty")
    return lines[0]


def seconds(name: str, environ: Mapping[str, str] | None = None, positive: bool = False) -> (
    float | None
):
    """A number of seconds from the environment (None when unset or empty), at most a day."""
    env = os.environ if environ is None else environ
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value > 0 if positive else value >= 0):  # also rejects nan and inf below
        raise InputError(
            f"{name} must be a number of seconds {'> 0' if positive else '>= 0'}, got {raw!r}"
        )
    return min(value, 86400.0)
