"""Candidates: the pairs the band buckets propose, and the exact check each must pass.

``buckets.py`` finds candidate pairs in the band buckets at a bounded cost; ``verify.py`` keeps
a candidate only if its exact similarity holds; ``bruteforce.py`` is the exact all-pairs join
LSH is measured against; ``documents.py`` is what an index stores for each record, and
``text_table.py`` the texts a report's candidates are verified on.
"""
