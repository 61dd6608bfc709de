"""The four papers' pseudocode as short, eager Python that a student reads beside the paper.

One module per paper, in the paper's names, on small domains; for the same seed each gives
exactly the outputs of the fast estimator in :mod:`dpviz.trees` (tests/test_pseudocode_*.py).
Below: the node-key helpers they share, and :func:`show` for a notebook.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from dpviz import keyed, mechanisms

__all__ = ["child_key", "leaf_uniforms", "noisy", "show", "tree_keys", "uniform"]

#: Listings longer than this are shown collapsed, so a Voilà page does not open on source.
OPEN_LINES = 15


def uniform(key: int, stream: int) -> float:
    """A node's public uniform in (0, 1) for one of its random choices (one per stream)."""
    return float(keyed.uniforms(np.array([key], dtype=np.uint64), stream)[0])


def child_key(key: int, i: int) -> int:
    """The key of child ``i`` of the node with key ``key``."""
    return int(keyed.child_keys(np.array([key], dtype=np.uint64), np.array([i]))[0])


def tree_keys(structure_rng: np.random.Generator, N: int) -> list[int]:
    """The root keys of N trees, drawn as the estimators draw them (public structure)."""
    seeds = structure_rng.integers(0, 2**63, size=N)
    return [int(k) for k in keyed.splitmix64(seeds.astype(np.uint64))]


def leaf_uniforms(rng: np.random.Generator, keys: list[int], reached: list[int],
                  k: int) -> dict[int, np.ndarray]:
    """``k`` uniforms for the noise of each leaf key, drawn as the fast release draws them.

    First a secret key, then fresh uniforms for the ``reached`` leaves in key order; every
    other leaf's come from the secret key (the estimator computes them on look-up).
    """
    secret = keyed.new_secret_key(rng)
    reached = sorted(reached)
    fresh = dict(zip(reached, mechanisms.open_uniforms(rng, (len(reached), k)), strict=True))
    return {key: fresh[key] if key in fresh else
            keyed.secret_uniforms(secret, np.array([key], dtype=np.uint64), k)[0] for key in keys}


def noisy(counts: Any, epsilon: float, u: np.ndarray, noise: str) -> np.ndarray:
    """``counts`` + noise at ε from the uniforms ``u``, two per count.

    Discrete Laplace, or the paper's float Laplace (``"laplace"``: not proven private).
    """
    T = len(counts)
    if noise == "discrete_laplace":
        return np.asarray(mechanisms.discrete_laplace(counts, epsilon=epsilon,
                                                      uniforms=u.reshape(T, 2)))
    return np.asarray(mechanisms.laplace(counts, epsilon=epsilon, uniforms=u[:T]))


def show(function: Callable[..., Any]) -> Any:
    """The source of ``function`` as a highlighted ``<details class="dpviz-listing">`` block.

    Collapsed (a click opens it) when longer than :data:`OPEN_LINES` lines; its text form is
    the plain source.
    """
    from IPython.display import HTML
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    source = inspect.getsource(function).rstrip()
    lines = source.count("\n") + 1
    code = highlight(source, PythonLexer(), HtmlFormatter(noclasses=True, nobackground=True))
    summary = f"<code>{function.__name__}</code> ({lines} lines of Python)"

    class Listing(HTML):
        def __repr__(self) -> str:  # the text form: the source itself
            return source

    return Listing(f'<details class="dpviz-listing"{"" if lines > OPEN_LINES else " open"}>'
                   f'<summary style="cursor:pointer">{summary}</summary>{code}</details>')
