"""Measurement helpers shared by the benchmark workers (standard library only).

The workers run under two interpreters (the project's .venv and the peer's
bench/.venv-diffprivlib), so this module imports nothing outside the standard
library. Every timing in bench/ is ``time.perf_counter()`` around one call,
repeated, and summarized by the median (see ``docs/benchmarks.md``).
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def timed(fn: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """Seconds taken by ``fn(*args)`` (perf_counter) and its result."""
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def rss_mb() -> float:
    """Current resident set size of this process in MiB (Linux /proc/self/status VmRSS)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far in MiB (getrusage ru_maxrss, KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def versions(*packages: str) -> dict[str, str]:
    """Installed versions of ``packages`` plus the interpreter's."""
    out = {"python": platform.python_version()}
    for name in packages:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def write_result(path: str | Path, result: dict[str, Any]) -> None:
    """Write a worker's result as JSON (the orchestrator reads it)."""
    result = {"executable": sys.executable, **result}
    Path(path).write_text(json.dumps(result, indent=1))
