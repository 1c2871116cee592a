"""The one switch for every call into the optional C kernel (``neardup/_kernel.c``).

The kernel normalizes ASCII text, computes MinHash signatures and LSH band keys; every one of
those has a Python/numpy reference that gives identical output (tested), so the switch only
changes speed. It is built by the install when a C compiler is there.

>>> from neardup import kernel
>>> kernel.active() in ("c", "numpy")
True
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType

import numpy as np
from numpy.typing import NDArray

from ..errors import ArgumentError

try:  # built by setup.py; optional
    from .. import _kernel as _compiled
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _compiled = None

#: The implementation chosen by :func:`use`; None until then: ``NEARDUP_KERNEL``, else ``"c"``.
_wanted: str | None = None


def use(name: str) -> None:
    """Pick the implementation: ``"c"`` (the default, when compiled) or ``"numpy"``; it wins
    over ``NEARDUP_KERNEL``."""
    global _wanted
    if name not in ("c", "numpy"):
        raise ArgumentError(f"kernel must be 'c' or 'numpy', got {name!r}")
    _wanted = name


def _chosen() -> str:
    """The implementation asked for: :func:`use`'s, else ``NEARDUP_KERNEL``'s, else ``"c"``.
    Read at the first call, not at import, so that the library honours the variable as the CLI
    does; a bad value raises an :class:`InputError` at each call until it is fixed."""
    global _wanted
    if _wanted is None:
        from .. import config  # up a layer: config is the one module that reads the environment

        _wanted = config.kernel() or "c"
    return _wanted


def active() -> str:
    """``"c"`` when the compiled kernel is built and chosen, else ``"numpy"``."""
    return "c" if _compiled is not None and _chosen() == "c" else "numpy"


def compiled() -> ModuleType | None:
    """The compiled module if it is built, whatever the switch says (for tests)."""
    return _compiled


def get() -> ModuleType | None:
    """The compiled module when it is the active implementation, else None."""
    return _compiled if _chosen() == "c" else None


def threads() -> int:
    """How many threads a kernel call that lets go of the GIL may split its work over: the
    cores this process may run on, at most 4."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def in_parts(
    n: int, per_part: int, call: Callable[[int, int], object], most: int | None = None
) -> None:
    """``call(lo, hi)`` over ``range(n)`` in up to :func:`threads` (or ``most``) slices of at
    least ``per_part`` items, at the same time: for kernel calls that let go of the GIL. The
    first slice runs in this thread; an error of any slice is raised here.

    >>> seen = []
    >>> in_parts(10, 100, lambda lo, hi: seen.append((lo, hi)))
    >>> seen
    [(0, 10)]
    """
    parts = max(1, min(threads(), most or threads(), n // per_part))
    if parts == 1:
        call(0, n)
        return
    cuts = [n * k // parts for k in range(parts + 1)]
    with ThreadPoolExecutor(parts - 1, thread_name_prefix="neardup-kernel") as pool:
        others = [pool.submit(call, lo, hi) for lo, hi in zip(cuts[1:-1], cuts[2:], strict=True)]
        call(cuts[0], cuts[1])
        for job in others:
            job.result()


#: Arrays of at most this many values are sorted by the kernel's radix sort, which needs a
#: scratch copy (128 MB at this size); larger ones by numpy, in place.
RADIX_MAX = 1 << 24


def sort_int64(a: NDArray[np.int64]) -> None:
    """Sort an int64 array in place: by the kernel's radix sort where it is active and the
    array is at most :data:`RADIX_MAX` long, else by numpy. Candidate keys use about 40 of their
    64 bits, and their five byte-wide passes sorted 9M keys in 0.17 s against numpy's 0.7 s
    (most of banding 100k short records).

    >>> a = np.array([3, -1, 2], dtype=np.int64)
    >>> sort_int64(a)
    >>> a.tolist()
    [-1, 2, 3]
    """
    c = get()
    if c is not None and a.dtype == np.int64 and a.flags.c_contiguous and a.size <= RADIX_MAX:
        c.sort_i64(a)
    else:
        a.sort()
