"""The notebooks' library side, one module per notebook: explorer callbacks and tables.

Each module defines its notebook's exercises in one place, in Python: per exercise its cases
and settings, its hint, its check and its worked answer (the instructor's key,
:func:`dpviz.ui.exercises.solution`), registered on import.
:func:`quick` is true under ``DPVIZ_QUICK=1`` (``make notebooks``): sweeps use fewer repeats.
"""

from __future__ import annotations

import importlib
import os
import pkgutil

__all__ = ["load_all", "quick"]


def quick() -> bool:
    """True when ``DPVIZ_QUICK=1``: notebooks shrink their repeat counts (said in each notebook)."""
    return os.environ.get("DPVIZ_QUICK", "") == "1"


def load_all() -> None:
    """Import every explorer module (so that all exercises are registered)."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
