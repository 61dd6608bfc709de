"""The speed model of the trees: how long a fit or a prediction takes, and its progress bar.

Node visits (rows × trees × levels) at the rates measured for numpy's routing and for the
compiled descent of :mod:`dpviz.trees.random_tree` (docs/benchmarks.md). The bar is shown to
whoever runs the job, not released: it is no part of a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.util import find_spec
from typing import Any

import numpy as np

from dpviz.trees.random_tree import COMPILED_MIN_VISITS, engine

__all__ = ["LEAF_VISITS", "PROGRESS_MIN_VISITS", "VISITS_PER_SECOND", "about", "deep_visits",
           "progress", "shows_progress"]

#: Node visits (rows × trees × levels) from which a fit or a prediction shows a progress
#: bar: about 4 s of numpy's routing, 1 s of the compiled descent (:data:`VISITS_PER_SECOND`).
PROGRESS_MIN_VISITS = 2 * 10**8
#: Node visits per second of a whole fit, numpy's routing (one core: 5.3-6.3e7 on 1M × 20
#: rows at depth 10-20, issue 37) and numba's compiled descent (1-1.6e8 on one core, 2.9e8 on
#: 2); a leaf released or looked up costs ``LEAF_VISITS`` numpy visits (5e6 leaves/s: 200,000
#: Private-RDT trees on Votes fit in 22 s); measured on AMD EPYC, load < 1.3
#: (docs/benchmarks.md). Visits below the levels the rows fill (:func:`deep_visits`) run at
#: the lazy route's ``"deep"`` rate (depth 64: 3-5e6 visits/s).
VISITS_PER_SECOND = {"numpy": 5e7, "compiled": 1.5e8, "deep": 3e6}
LEAF_VISITS = 10


def deep_visits(n_rows: int, depth: int) -> int:
    """An item's visits below the levels that hold fewer nodes than ``n_rows / 8`` (binary)."""
    return n_rows * max(depth - max(int(np.log2(max(n_rows, 8) / 8)), 0), 0)


def shows_progress(visits: float) -> bool:
    """Whether a job of ``visits`` node visits takes long enough to show a progress bar."""
    return visits >= PROGRESS_MIN_VISITS


def progress(items: Sequence[Any], visits: int, description: str, descent: int = 0,
             leaves: float = 0, deep: float = 0) -> Any:
    """``items``, with a progress bar (tqdm) and its expected time when the job takes seconds.

    ``descent``: an item's visits, compiled (numba) from ``COMPILED_MIN_VISITS`` on (0: numpy);
    ``leaves``: the leaves the job reaches (the memory guard's bound), at ``LEAF_VISITS`` each;
    ``deep``: the part of ``visits`` at the ``"deep"`` rate (:func:`deep_visits`).
    The bar is shown to whoever runs the fit, not released: it is no part of the model.
    """
    rate = VISITS_PER_SECOND
    slow = deep * rate["numpy"] / rate["deep"]  # in numpy visits
    if not shows_progress(visits - deep + slow + LEAF_VISITS * leaves) or len(items) < 2:
        return items
    from tqdm.auto import tqdm  # only now: in a kernel it loads the widget library

    compiled = descent >= COMPILED_MIN_VISITS and engine() != "numpy" and find_spec("numba")
    seconds = ((visits - deep) / rate["compiled" if compiled else "numpy"]
               + (slow + LEAF_VISITS * leaves) / rate["numpy"])
    return tqdm(items, desc=f"{description} ({about(seconds)})", leave=False)


def about(seconds: float) -> str:
    """A duration in words: "about 40 s", "about 3 min", "about 2.5 h"."""
    if seconds < 90:
        return f"about {max(round(seconds), 1)} s"
    return f"about {seconds / 60:.0f} min" if seconds < 5400 else f"about {seconds / 3600:.1f} h"
