"""How many candidate pairs the band buckets will make, known before any pair is formed.

Why: finding the candidates in process holds every pair the buckets make before the per-record
cap cuts them (:func:`~neardup.candidates.buckets.coded_candidates`), about 60 bytes each at
the peak. On ordinary records that is a few per record; on records that are all alike (8-15
words of a 10-word vocabulary) it was 1,900 a record at 10k records, 1.2 GB, and it grows
faster than the records, so a budget that fits their texts many times over does not fit their
candidates. The report's placement (:mod:`neardup.plan.budget`) reads this estimate to move
such a report to an engine that spills to disk.

Two figures, from the bucket sizes of every band: :func:`bound`, every pair each bucket could
make counted in every band it is shared (free, and an overestimate: a near copy shares many
bands); and, where the bound matters, :func:`estimated`: the pairs among a sample of records
that the bucket rule would make, scaled to all pairs of records.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS
from .buckets import WINDOW

#: Records drawn for :func:`estimated` (their pairs, two million, are each checked in every
#: band: about half a second).
SAMPLE = 2_000


def bound(sizes: list[NDArray[np.int32]], repeated: int = DEFAULTS.repeated_group) -> int:
    """At most how many pairs the buckets of these sizes make, counted once per band: every
    pair of a bucket of up to ``repeated`` records, and :data:`~neardup.candidates.buckets.WINDOW`
    neighbours (and a group's first) a member of a larger one."""
    total = 0
    for s in sizes:
        s = s.astype(np.int64)
        regular = s <= repeated
        total += int((s[regular] * (s[regular] - 1) // 2).sum())
        total += int((WINDOW + 1) * s[~regular].sum())
    return total


def estimated(
    buckets: list[tuple[NDArray[np.int32], NDArray[np.int32]]],
    n: int,
    max_bucket: int | None,
    repeated: int = DEFAULTS.repeated_group,
    sample: int = SAMPLE,
) -> int:
    """The candidates the bucket rule makes of ``n`` records, estimated from the pairs of
    ``sample`` records drawn at random (a fixed draw): a pair is one where it shares a bucket
    of at most ``max_bucket`` records, or two buckets one of which holds at most ``repeated``
    (larger ones pair neighbours: :func:`bound`'s count of them is added)."""
    if n < 2:
        return 0
    drawn = np.sort(np.random.default_rng(0).choice(n, min(n, sample), replace=False))
    m = drawn.size
    first, second = np.triu_indices(m, 1)
    shared = np.zeros(first.size, dtype=np.uint8)
    small = np.zeros(first.size, dtype=bool)
    regular = np.zeros(first.size, dtype=bool)
    limit = max_bucket if max_bucket is not None else np.iinfo(np.int32).max
    larger = []
    for members, sizes in buckets:
        where = np.full(n, -1, dtype=np.int32)
        where[members] = np.repeat(np.arange(sizes.size, dtype=np.int32), sizes)
        label = where[drawn]
        size = np.where(label >= 0, sizes[label], 1)
        same = (label[first] == label[second]) & (label[first] >= 0)
        shared += same
        bucket = size[first]
        small |= same & (bucket <= limit)
        regular |= same & (bucket <= repeated)
        larger.append(sizes[sizes > repeated])
    hits = int((small | ((shared >= 2) & regular)).sum())
    scaled = hits * (n * (n - 1) / 2) / first.size
    return int(scaled) + bound(larger, repeated)
