"""Signing: a record's text made comparable, shingled, MinHashed and cut into band keys.

``text.py`` normalizes text and compares it exactly; ``canonical.py`` spells name/address
records one way; ``minhash.py`` holds the ``ShingleProcessor`` every path shares; ``kernel.py``
is the one switch into the optional C kernel; ``banding.py`` cuts a signature into band keys.
"""
