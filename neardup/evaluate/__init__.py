"""Measuring what neardup finds: scores against gold pairs, LSH against brute force, and the
pictures that explain the LSH choices (the 2014 restaurant experiment is
:mod:`neardup.seed2014.experiment`)."""

from .scores import ClusterScores, Scores, bcubed, score

__all__ = ["ClusterScores", "Scores", "bcubed", "score"]
