"""Pruning: the weaker rival links of records that have a better match dropped
(:func:`prune`), after the rule decided and before the clusters are made."""

from __future__ import annotations

from collections.abc import Mapping

from ..constraints import PRUNE_MODES  # declared with the other parameters' values
from ..errors import ArgumentError
from ..keys import id_key
from ..results import Pair
from .assign import one_partner_each
from .valley import best_similarities

#: What each mode prunes by default: nothing in a cluster of duplicates; in linkage of sources
#: that each list an entity once, every record keeps at most one partner.
DEFAULT_PRUNE = {"dedup": "none", "link": "one-to-one"}
#: Pairs this similar are kept whatever the pruning: they are copies, not rival matches.
KEEP_ABOVE = 0.9


def prune(
    pairs: list[Pair],
    mode: str = "best",
    keep_above: float = KEEP_ABOVE,
    sources: Mapping[str, str] | None = None,
) -> list[Pair]:
    """Drop the weaker rival links of records that have a better match.

    Records that describe one thing are each other's most similar record; two listings that
    merely share a street address and a city (``palm`` and ``palm too``) are less similar than
    each is to its own twin. ``best`` keeps a pair when it is the best match of at least one of
    its two records (so no record that has a match loses all of them, and clusters stay
    connected); ``mutual`` only when it is the best match of both; ``one-to-one`` takes pairs
    greedily, most probable and most similar first, while neither record has a partner (linkage
    of sources that each list an entity once; with ``sources``, a partner *in the other's
    source*, so that an entity listed by five sources keeps its ten pairs); ``none`` keeps
    every verified pair. Except for
    ``one-to-one``, pairs at ``keep_above`` or more are always kept, and ties for best are all
    kept.
    """
    if mode not in PRUNE_MODES:
        raise ArgumentError(f"unknown pruning {mode!r}: choose one of {', '.join(PRUNE_MODES)}")
    if mode == "none":
        return pairs
    if mode == "one-to-one":
        ranked = sorted(
            pairs,
            key=lambda p: (-(p.probability or 0.0), -p.jaccard, p.edit_distance),
        )
        src = sources.get if sources is not None else (lambda _i: None)
        # A record takes one partner in each other source (one in all, without sources).
        kept = one_partner_each(ranked, lambda p: ((p.id1, src(p.id2)), (p.id2, src(p.id1))))
        kept.sort(key=lambda p: (id_key(p.id1), id_key(p.id2)))
        return kept
    best = best_similarities(pairs)

    def top(x: str, p: Pair) -> bool:
        return p.jaccard >= best[x] - 1e-9

    keep = all if mode == "mutual" else any
    return [p for p in pairs if p.jaccard >= keep_above or keep((top(p.id1, p), top(p.id2, p)))]
