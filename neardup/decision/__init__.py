"""The decision step as one package: which candidate pairs are matches, and why.

Candidates' similarities go in, a decision comes out. This package holds the evidence of a
pair (:mod:`.evidence`: the comparison vector of every candidate), the labels a reviewer gives
(:mod:`.labels`), the rule learned from them together with the unlabelled candidates
(:mod:`.learned`) and the choice of the pairs a reviewer should label next (:mod:`.ask`).
"""
