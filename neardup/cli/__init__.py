"""The ``neardup`` command line: flags and environment in, library calls out."""

from .main import main

__all__ = ["main"]
