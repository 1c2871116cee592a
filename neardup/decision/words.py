"""What a decision says in words, found by its rule's name.

Each rule's words live beside the rule: the Jaccard rules' in :mod:`neardup.decision.decide`,
the weighted link's in :mod:`neardup.decision.link`, the labels' in
:mod:`neardup.decision.labelled`. The outputs (``report``, ``dedupe``, ``review`` and the
review page) print a :class:`~neardup.results.Decision` through :func:`words_for` and know no
rule by name, so a new rule brings its own words and nothing outside this package changes.
"""

from __future__ import annotations

from typing import Protocol

from ..results import Decision, Pair
from .decide import DocumentsWords, LearnedWords, ThresholdWords, ValleyWords
from .labelled import AskedWords, CheckedWords, LabelledWords
from .link import WeightedWords


class Words(Protocol):
    """The words of one rule."""

    def short(self, decision: Decision) -> str:
        """How the threshold came about, in a few words."""
        ...

    def line(self, decision: Decision) -> str:
        """The one line saying which pairs were kept (``decided: ...``)."""
        ...

    def detail(self, decision: Decision) -> str:
        """What the rule found, each line after a leading newline (``-v``)."""
        ...

    def reason(self, decision: Decision, pair: Pair, threshold: float) -> str:
        """Why one kept pair stands."""
        ...


#: Every rule's words by the name its :class:`~neardup.results.Decision` carries.
WORDS: dict[str, Words] = {
    "threshold": ThresholdWords(),
    "documents": DocumentsWords(),
    "valley": ValleyWords(),
    "learned": LearnedWords(),
    "weighted": WeightedWords(),
    "labelled": LabelledWords(),
    "asked": AskedWords(),
    "checked": CheckedWords(),
}


def words_for(decision: Decision) -> Words:
    """The words of the rule that made ``decision``; a fixed threshold's for a decision read
    from a report made by hand."""
    return WORDS.get(decision.rule, WORDS["threshold"])
