"""neardup's version, in a module of its own so that any layer can name it without importing
the package's front door (``neardup/__init__.py`` imports everything)."""

__version__ = "0.2.0"
