"""The notebooks' library side, one module per notebook: explorer callbacks and tables.

Importing a module registers its notebook's exercises.
:func:`quick` is true under ``DPVIZ_QUICK=1`` (``make notebooks``): sweeps use fewer repeats.
The exercises' texts are data: the step-by-step privacy arguments in ``arguments.json``
(:func:`argument`), the hints a wrong answer shows in ``hints.json`` (:func:`hint`).
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
from importlib.resources import files
from typing import Any

from dpviz.ui.exercises import Argument, Step

__all__ = ["argument", "hint", "load_all", "quick"]


def _texts(name: str) -> dict[str, Any]:
    """One of the files of exercise texts, parsed."""
    return json.loads(files(__name__).joinpath(name).read_text(encoding="utf-8"))


_ARGUMENTS, _HINTS = _texts("arguments.json"), _texts("hints.json")


def quick() -> bool:
    """True when ``DPVIZ_QUICK=1``: notebooks shrink their repeat counts (said in each notebook)."""
    return os.environ.get("DPVIZ_QUICK", "") == "1"


def load_all() -> None:
    """Import every explorer module (so that all exercises are registered)."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


def argument(key: str) -> Argument:
    """Exercise ``key``'s :class:`~dpviz.ui.exercises.Argument`, read from ``arguments.json``."""
    spec = _ARGUMENTS[key]
    steps = tuple(Step(s["question"], s["options"], s["correct"], s["why_wrong"])
                  for s in spec["steps"])
    return Argument(spec["claim"], steps, spec["conclusion"])


def hint(key: str) -> str:
    """Exercise ``key``'s hint, read from ``hints.json``."""
    return _HINTS[key]
