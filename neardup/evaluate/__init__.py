"""Measuring what neardup finds: scores against gold pairs, LSH against brute force, the
restaurant experiment and its pictures."""

from .scores import Scores, score

__all__ = ["Scores", "score"]
