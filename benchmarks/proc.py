"""What /proc says about a process, with the standard library only: the benchmark's children
(:mod:`benchmarks.end_to_end`) import it, and their memory is what is measured."""

from __future__ import annotations


def status_mb(key: str, pid: int | str = "self") -> float | None:
    """``VmHWM``/``VmRSS`` of a process in MB, None where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None
