"""The accuracy development suite: labelled datasets, neardup's defaults against an oracle.

``python -m benchmarks.accuracy [--quick] [--json PATH]`` loads every dataset (see
:mod:`benchmarks.accuracy.datasets`), runs neardup with its defaults on each
(:func:`benchmarks.accuracy.run_neardup.run_neardup`), scores the pairs against the gold, and
compares them with the best exact all-pairs similarity at the best threshold chosen with the
labels (:mod:`benchmarks.accuracy.oracle`): the headroom the defaults leave.
"""
