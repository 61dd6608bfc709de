"""Explorer callbacks and helpers of the notebooks, one module per notebook.

Each module holds the library side of one notebook — the callbacks its sliders
call (plain functions returning altair charts, unit-tested over a grid of
values) and small tables it shows; its exercises live beside it in
``<module>_exercises`` (registered with :func:`dpviz.ui.exercises.register` when
imported). Notebooks only call these.

:func:`quick` tells whether the notebooks run in quick mode (``DPVIZ_QUICK=1``,
set by ``make notebooks`` so that every notebook runs under nbval in a few
minutes): sweeps then use fewer repeats, and each notebook says so.
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
