"""Outputs: a report's pairs and clusters as files and tables, the review page, dedupe.

``write.py`` writes atomically and checks outputs before the work starts; ``output.py`` turns a
report into tables (TSV, CSV, JSON Lines, Parquet, pandas); ``review.py`` builds the review
page; ``dedupe.py`` hands back the dataset without its near-duplicates.
"""
