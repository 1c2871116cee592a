"""Measuring what neardup finds: scores against gold pairs, LSH against brute force, the
restaurant experiment and its pictures."""

from .scores import ClusterScores, Scores, bcubed, score

__all__ = ["ClusterScores", "Scores", "bcubed", "score"]
