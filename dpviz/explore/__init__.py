"""The notebooks' library side, one module per notebook: explorer callbacks and tables.

Each module defines its notebook's exercises in one place, in Python: per exercise its cases
and settings, its hint, its check and its worked answer (the instructor's key,
:func:`dpviz.ui.exercises.solution`), registered on import. Each module also holds its
reproductions' settings (``REPRODUCTION_SETTINGS``: ``"full"``, the shipped runs, and
``"quick"``) and lists its shipped reproductions in ``SHIPPED`` (:func:`run_shipped`:
``make results``). The notebooks hold no run-mode flags: the environment decides, through
:func:`settings`: every notebook reads the shipped results, made with the full settings; a
reproduction recomputed (``DPVIZ_RECOMPUTE=1``) under ``DPVIZ_QUICK=1`` runs the quick ones.
A table that a notebook computes in a second or less ships too (:func:`ships`), so that opening a
page costs the server little: the notebook's own call reads it, any other call runs.
"""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil
from collections.abc import Callable
from typing import Any, TypeVar

from dpviz.errors import InvalidParameterError
from dpviz.experiments.shipped import (
    ShippedResultError,
    ShippedResultIntegrityError,
    recompute_requested,
    result,
)

__all__ = ["load_all", "quick", "run_shipped", "settings", "shipping_modules", "ships"]

F = TypeVar("F", bound=Callable[..., Any])


def quick() -> bool:
    """True when ``DPVIZ_QUICK=1``: a recomputed reproduction runs its quick settings."""
    return os.environ.get("DPVIZ_QUICK", "") == "1"


def settings(table: dict[str, dict[str, Any]], quick_run: bool | None = None) -> dict[str, Any]:
    """``table["quick"]`` or ``table["full"]`` (a copy): by ``quick_run``, or the run mode's.

    ``quick_run=None``: quick only when ``DPVIZ_QUICK=1`` recomputes (``DPVIZ_RECOMPUTE=1``);
    the shipped results are read with the full settings.
    """
    if quick_run is None:
        quick_run = quick() and recompute_requested()
    return dict(table["quick" if quick_run else "full"])


def ships(function: F) -> F:
    """Decorator: a table-making function whose notebook call reads a shipped result.

    A call whose arguments are those of its shipped file (``dpviz/results/{name}-....csv``,
    made by ``make results`` from the module's ``SHIPPED``) reads the file (its SHA-256
    checked) instead of running: the same frame, without the work each page of a class would
    repeat. Any other call (an exercise's, a student's) runs ``function``, as does every call
    under ``DPVIZ_RECOMPUTE=1`` (which ``make results`` saves). An altered file raises.
    """
    @functools.wraps(function)
    def read_or_run(*args: Any, **kwargs: Any) -> Any:
        try:
            return result(read_or_run, *args, **kwargs)  # recomputing runs ``function``
        except ShippedResultIntegrityError:
            raise
        except ShippedResultError:  # no file for these arguments: run
            return function(*args, **kwargs)

    return read_or_run  # type: ignore[return-value]


def load_all() -> None:
    """Import every explorer module (so that all exercises are registered)."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


def shipping_modules() -> dict[str, tuple]:
    """The notebook modules that ship results, by name (``fi``, ``fs`` ...): their ``SHIPPED``."""
    found = {}
    for module in pkgutil.iter_modules(__path__):
        shipped = getattr(importlib.import_module(f"{__name__}.{module.name}"), "SHIPPED", ())
        if shipped:
            found[module.name] = tuple(shipped)
    return found


def run_shipped(only: str = "") -> None:
    """Call the notebooks' shipped reproductions (each module's ``SHIPPED``), in order.

    ``only``: a module's name, or names with commas (``make results ONLY=fi``); all if empty.
    They read the shipped files; ``make results`` sets ``DPVIZ_RECOMPUTE=1`` and
    ``DPVIZ_SAVE_RESULTS=1``, so that each is recomputed with the full settings and rewritten.
    """
    modules = shipping_modules()
    chosen = [name.strip() for name in only.split(",") if name.strip()] or list(modules)
    if unknown := [name for name in chosen if name not in modules]:
        raise InvalidParameterError(
            f"ONLY={only}: {', '.join(unknown)} ships no results; the modules that do: "
            f"{', '.join(modules)}")
    for name in chosen:
        for reproduce in modules[name]:
            print(f"{name}: {getattr(reproduce, '__name__', reproduce)}", flush=True)
            reproduce()
