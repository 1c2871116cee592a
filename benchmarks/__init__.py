"""Benchmarks of neardup against its peers: ``python -m benchmarks.run --mode quick|full``."""
