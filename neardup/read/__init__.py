"""Readers: records from files, by format, and the checks every record passes.

``records.py`` is the way in (:func:`neardup.read.records.read_records`): it finds a file's format
and hands its lines to the reader of that format (``lines.py``, ``tables.py`` with the separator
``sniff.py`` reads off, ``jsonl.py``, ``arrow.py``), whose rows ``rows.py`` makes records of;
``checks.py`` checks each (ids, sizes, ids seen before), ``items.py`` holds what comes out, and
``inputs.py`` the bytes read (a pipe is read once). ``pairs.py`` reads id pairs.
"""
