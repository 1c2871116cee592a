"""Documents alike by the words many records hold, and by nothing else, are not copies.

A shop writes the same paragraph of shipping, returns and warranty under every product of a
brand; a company the same "about us" under every job it posts. Two different products then
share most of their words, and on word 1-grams their Jaccard passes a bar that edited copies
need (a copy with a quarter of its words changed sits near 0.6). What tells them apart is
which words they share: a copy shares the words that only it and its original hold, two
products of one brand share words hundreds of records hold. The Jaccard with every word
weighted by its rarity (:func:`neardup.decision.valley.weighted_jaccards`) says so: a pair
under ``DEFAULTS.common_words_floor`` there shares little but common words, and is dropped.

The rarity is read over the records of the pairs; among a handful of them every shared word
looks common (two records: a shared word weighs 0.4, one held alone 1.1), so the check is made
only where the pairs hold ``DEFAULTS.common_words_records`` records or more.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..defaults import DEFAULTS
from ..results import Pair
from ..sign.minhash import ShingleProcessor
from .valley import weighted_jaccards


def common_alone(
    pairs: Sequence[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    hashes: Callable[[Sequence[str]], tuple[Any, Any] | None] | None = None,
) -> tuple[list[Pair], dict[str, Any]]:
    """The pairs that share more than common words, and what was found: whether the check
    was made, how many pairs were dropped, the floor."""
    floor = DEFAULTS.common_words_floor
    records = len({i for p in pairs for i in (p.id1, p.id2)})
    if records < DEFAULTS.common_words_records:
        return list(pairs), {
            "made": False, "dropped": 0, "floor": floor, "records": records,
            "reason": f"not made: the pairs hold {records} records (fewer than "
                      f"{DEFAULTS.common_words_records}: too few to tell a common word)",
        }  # fmt: skip
    weights = weighted_jaccards(pairs, texts, processor, hashes)
    kept = [p for p, w in zip(pairs, weights, strict=True) if w >= floor]
    dropped = len(pairs) - len(kept)
    return kept, {
        "made": True, "dropped": dropped, "floor": floor, "records": records,
        "reason": f"{dropped} pairs dropped that share little but words many records hold "
                  f"(Jaccard weighted by rarity < {floor:g}: a template or boilerplate)",
    }  # fmt: skip
