"""The notebooks' library side, one module per notebook: explorer callbacks and tables.

Importing a module registers its notebook's exercises.
:func:`quick` is true under ``DPVIZ_QUICK=1`` (``make notebooks``): a reproduction recomputed
(``DPVIZ_RECOMPUTE=1``) then runs its quick settings; without ``DPVIZ_RECOMPUTE`` every notebook
reads the shipped results, made with the full settings. Each module lists its shipped
reproductions in ``SHIPPED`` (:func:`run_shipped`: ``make results``).
The exercises' texts and settings are data: the step-by-step privacy arguments in
``arguments.json`` (:func:`argument`), the hints a wrong answer shows in ``hints.json``
(:func:`hint`), the cases, tolerances and seeds in ``exercises.json`` (:func:`exercise`);
the reproductions' quick and full settings in ``reproductions.json`` (:func:`reproductions`).
The notebooks hold no run-mode flags: the environment decides, through these functions.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
from importlib.resources import files
from typing import Any, TypeVar

from dpviz.experiments.shipped import recompute_requested
from dpviz.ui.exercises import Argument, Step

__all__ = ["argument", "exercise", "hint", "load_all", "quick", "reproductions", "run_shipped"]

T = TypeVar("T")


def _texts(name: str) -> dict[str, Any]:
    """One of the files of exercise texts, parsed."""
    return json.loads(files(__name__).joinpath(name).read_text(encoding="utf-8"))


_ARGUMENTS, _HINTS = _texts("arguments.json"), _texts("hints.json")
_SETTINGS = _texts("exercises.json")


def quick() -> bool:
    """True when ``DPVIZ_QUICK=1``: a recomputed reproduction runs its quick settings."""
    return os.environ.get("DPVIZ_QUICK", "") == "1"


def _recomputing_quickly() -> bool:
    """True when ``DPVIZ_QUICK=1`` and ``DPVIZ_RECOMPUTE=1``: reproductions run small."""
    return quick() and recompute_requested()


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


def _tupled(value: Any) -> Any:
    """JSON's lists as tuples, inside dicts too (the cases as Python writes them)."""
    if isinstance(value, dict):
        return {k: _tupled(v) for k, v in value.items()}
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def exercise(key: str, kind: type[T], **fields: Any) -> T:
    """Exercise ``key`` of ``kind``: ``fields`` (its functions), its settings and its hint."""
    return kind(**_tupled(_SETTINGS.get(key, {})), **fields, hint=hint(key))


def reproductions(notebook: str, quick: bool | None = None) -> dict[str, Any]:
    """Notebook ``notebook``'s reproduction settings, quick or full (``reproductions.json``).

    ``quick=None``: the run mode's, i.e. the quick ones only when ``DPVIZ_QUICK=1`` recomputes
    (``DPVIZ_RECOMPUTE=1``); the shipped results are read with the full ones.
    """
    if quick is None:
        quick = _recomputing_quickly()
    return _tupled(_texts("reproductions.json")[notebook]["quick" if quick else "full"])


def run_shipped() -> None:
    """Call every notebook's shipped reproductions (each module's ``SHIPPED``), in order.

    They read the shipped files; ``make results`` sets ``DPVIZ_RECOMPUTE=1`` and
    ``DPVIZ_SAVE_RESULTS=1``, so that each is recomputed with the full settings and rewritten.
    """
    for module in pkgutil.iter_modules(__path__):
        shipped = getattr(importlib.import_module(f"{__name__}.{module.name}"), "SHIPPED", ())
        for reproduce in shipped:
            print(f"{module.name}: {getattr(reproduce, '__name__', reproduce)}", flush=True)
            reproduce()
