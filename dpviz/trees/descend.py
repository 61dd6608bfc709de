"""Rows down the materialized top levels of random trees: a compiled kernel and a numpy twin.

:mod:`dpviz.trees.random_tree` computes a node's attribute and threshold from its key.
To route many rows, :func:`~dpviz.trees.random_tree.forest_leaves` and
:func:`~dpviz.trees.random_tree.forest_top` first *materialize* the top levels of the
trees (every node of those levels, as flat arrays: :class:`TreeTop`), as many levels as
fit a budget of nodes proportional to the routed items (rows in trees), and the items go
down them here: :func:`descend` gives the node each item reaches, :func:`vote` counts the
labels of the leaves reached (for :meth:`dpviz.DPRandomForestClassifier.predict`).

Two engines give the same result (they make the same comparisons of the same float64
values, and no arithmetic on them; tested on both):

* ``"numba"``: a compiled loop (numba, ``cache=True``: compiled once per machine, about
  1 s per kernel, then loaded from numba's cache). numba is imported by the first call
  that uses it, never when dpviz is imported: once per process, 0.3–1 s and about
  130 MB of resident memory (LLVM), measured.
* ``"numpy"``: level by level over all items, with numpy.

``"auto"`` (the default) uses numba for calls of at least :data:`COMPILED_MIN_VISITS`
node visits (items × levels) when it is installed, numpy otherwise; choose one engine
with :func:`set_engine` or the environment variable ``DPVIZ_ENGINE`` (``auto``, ``numba``
or ``numpy``). numba is optional: without it every result is the same, only slower.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpviz.errors import InvalidParameterError

__all__ = [
    "COMPILED_MIN_VISITS", "ENGINES", "TreeTop", "descend", "engine", "set_engine", "vote",
]

ENGINES = ("auto", "numba", "numpy")
#: From this many node visits (items × levels) on, ``"auto"`` uses the compiled kernels.
#: Below, numpy takes under ~25 ms (e.g. the notebooks' 1,500 test rows × 100 trees of
#: depth 8: 1.2 M visits, about 12 ms), less than loading numba (0.3–1 s, 130 MB, once
#: per process) would cost an interactive session; the benchmark's 7,500 rows × 100 trees
#: (6 M visits) take about 40 ms with numpy, 10 ms compiled (measured, one core).
COMPILED_MIN_VISITS = 2_000_000

_engine = os.environ.get("DPVIZ_ENGINE", "auto")
if _engine not in ENGINES:
    raise InvalidParameterError(f"DPVIZ_ENGINE must be one of {ENGINES}, got {_engine!r}")
_kernel: list[Callable | None] = []  # [] not tried yet; [None] numba unavailable


@dataclass(frozen=True, eq=False)
class TreeTop:
    """The top ``levels`` levels of some random trees, every node materialized.

    Nodes are numbered level by level (level 0: the trees' roots, tree ``t``'s is node
    ``t``); the children of a node are consecutive, from ``first_child``. The
    ``levels``-th level (the *frontier*) starts at node ``frontier``; its nodes have no
    entries in the arrays below.

    Attributes
    ----------
    attribute : ndarray of int64
        The column each node reads (0 for a node with no attribute left).
    threshold : ndarray of float64
        Numeric split point: an item goes to child 1 when its value is ``> threshold``,
        else child 0 (``+inf`` for a node with no attribute left, which has one child).
    categorical : ndarray of bool
        A categorical node sends code ``c`` to child ``c``.
    unknown_child : ndarray of int64
        The child a categorical node sends an unknown code (``-1``) to.
    first_child : ndarray of int64
    levels : int
    frontier : int
        The number of the first frontier node (= the number of materialized nodes).
    frontier_size : int
        The number of frontier nodes.
    roots : int
        The number of trees (roots).
    n_values : ndarray of int64
        Per column of the encoded rows: its number of categories (0 for a numeric one),
        against which the rows are checked.
    """

    attribute: np.ndarray
    threshold: np.ndarray
    categorical: np.ndarray
    unknown_child: np.ndarray
    first_child: np.ndarray
    levels: int
    frontier: int
    frontier_size: int
    roots: int
    n_values: np.ndarray


def set_engine(name: str) -> None:
    """Choose the engine of :func:`descend`: ``"auto"`` (default), ``"numba"`` or ``"numpy"``.

    Raises
    ------
    InvalidParameterError
        For another name, or ``"numba"`` when numba cannot be imported.
    """
    global _engine
    if name not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {ENGINES}, got {name!r}")
    if name == "numba" and _compiled() is None:
        raise InvalidParameterError("engine 'numba' needs the numba package (pip install numba)")
    _engine = name


def engine() -> str:
    """The engine chosen by :func:`set_engine` (or ``DPVIZ_ENGINE``)."""
    return _engine


def descend(
    top: TreeTop, codes: np.ndarray, tree_of: np.ndarray, row_of: np.ndarray
) -> np.ndarray:
    """The frontier node (its number in ``top``) each item reaches.

    Parameters
    ----------
    top : TreeTop
    codes : ndarray (n, k) of float64, C-contiguous
        Encoded rows (categorical codes ``0 .. m-1`` or ``-1``; no NaN).
    tree_of, row_of : ndarray (m,) of int64
        Item i starts at the root of tree ``tree_of[i]`` and reads row ``row_of[i]``.

    Returns
    -------
    ndarray (m,) of int64

    Raises
    ------
    InvalidParameterError
        If ``codes`` do not fit the columns of ``top`` (shape; a categorical code that is
        not an integer in ``-1 .. m-1``) or an item names a tree or row that does not
        exist: the compiled kernel reads memory unchecked, so nothing reaches it unchecked.
    """
    codes = _checked_codes(top, codes)
    tree_of = np.ascontiguousarray(tree_of, dtype=np.int64)
    row_of = np.ascontiguousarray(row_of, dtype=np.int64)
    if tree_of.shape != row_of.shape or tree_of.ndim != 1:
        raise InvalidParameterError("tree_of and row_of must be 1-d arrays of one length")
    if tree_of.size and (min(tree_of.min(), row_of.min()) < 0 or tree_of.max() >= top.roots
                         or row_of.max() >= codes.shape[0]):
        raise InvalidParameterError(
            f"tree_of must lie in 0 .. {top.roots - 1} and row_of in 0 .. {codes.shape[0] - 1}")
    kernels = _kernels(len(tree_of) * top.levels)
    if kernels is None:
        return _descend_numpy(top, codes, tree_of, row_of)
    out = np.empty(len(tree_of), dtype=np.int64)
    kernels[0](codes, tree_of.view(np.uint64), row_of.view(np.uint64), *_arrays(top),
               out.view(np.uint64))
    return out


def vote(top: TreeTop, codes: np.ndarray, leaf_label: np.ndarray, n_classes: int) -> np.ndarray:
    """Votes of every row in every tree, from labels of the frontier nodes (e.g. the leaves).

    Parameters
    ----------
    top : TreeTop
    codes : ndarray (n, k) of float64, C-contiguous
    leaf_label : ndarray of int64
        The label (``0 .. n_classes-1``) of each frontier node, in frontier order.
    n_classes : int

    Returns
    -------
    ndarray (n, n_classes) of int64
        How many of the trees (roots of ``top``) send each row to a node of each label.

    Raises
    ------
    InvalidParameterError
        For ``codes`` as in :func:`descend`, or labels that are not one per frontier node
        in ``0 .. n_classes-1``.
    """
    codes = _checked_codes(top, codes)
    leaf_label = np.ascontiguousarray(leaf_label, dtype=np.int64)
    if leaf_label.shape != (top.frontier_size,) or (
        leaf_label.size and (leaf_label.min() < 0 or leaf_label.max() >= n_classes)
    ):
        raise InvalidParameterError(
            f"leaf_label must hold {top.frontier_size} labels in 0 .. {n_classes - 1}")
    n = codes.shape[0]
    kernels = _kernels(n * top.roots * top.levels)
    if kernels is None:
        node = _descend_numpy(top, codes, np.repeat(np.arange(top.roots), n),
                              np.tile(np.arange(n), top.roots))
        flat = np.tile(np.arange(n) * n_classes, top.roots) + leaf_label[node - top.frontier]
        return np.bincount(flat, minlength=n * n_classes).reshape(n, n_classes)
    votes = np.zeros((n, n_classes), dtype=np.int64)
    # numeric nodes only (every level full): node i's children are 2i + roots + (0, 1)
    binary = not top.categorical.any() and np.array_equal(
        top.first_child, 2 * np.arange(len(top.first_child)) + top.roots)
    kernels[1](codes, top.roots, *_arrays(top), top.frontier, leaf_label, binary, votes)
    return votes


def _checked_codes(top: TreeTop, codes: np.ndarray) -> np.ndarray:
    """``codes`` as a C-contiguous float64 array, refused if they do not fit ``top``."""
    codes = np.ascontiguousarray(codes, dtype=np.float64)
    if codes.ndim != 2 or codes.shape[1] != len(top.n_values):
        raise InvalidParameterError(
            f"encoded rows must have shape (n, {len(top.n_values)}), got {codes.shape}")
    columns = np.flatnonzero(top.n_values)
    if len(columns) and top.categorical.any():
        cat = codes[:, columns]
        bad = ~((cat >= -1) & (cat < top.n_values[columns]) & (cat == np.floor(cat)))
        if bad.any():
            raise InvalidParameterError(
                f"encoded column {int(columns[np.argwhere(bad)[0, 1]])} holds a code that is "
                "not a category (0 .. m-1) or -1 (unknown)")
    return codes


def _arrays(top: TreeTop) -> tuple:
    """The node arrays as the kernels read them (int64 indices viewed as uint64)."""
    return (top.attribute.view(np.uint64), top.threshold, top.categorical,
            top.unknown_child.view(np.uint64), top.first_child.view(np.uint64), top.levels)


def _descend_numpy(
    top: TreeTop, codes: np.ndarray, tree_of: np.ndarray, row_of: np.ndarray
) -> np.ndarray:
    """:func:`descend` with numpy: one level at a time over all items."""
    k = codes.shape[1]
    flat = codes.ravel()
    base = row_of * k
    node = tree_of.astype(np.int64, copy=True)
    any_categorical = bool(top.categorical.any())
    for _ in range(top.levels):
        value = flat[base + top.attribute[node]]
        if any_categorical:
            is_cat = top.categorical[node]
            code = np.where(value == -1, top.unknown_child[node], value)
            child = np.where(is_cat, code, value > top.threshold[node]).astype(np.int64)
        else:
            child = value > top.threshold[node]
        node = top.first_child[node] + child
    return node


def _kernels(visits: int) -> tuple[Callable, Callable] | None:
    """The compiled kernels for a call of ``visits`` node visits, or None: use numpy."""
    if _engine == "numpy" or (_engine == "auto" and visits < COMPILED_MIN_VISITS):
        return None
    return _compiled()


def _compiled() -> tuple[Callable, Callable] | None:
    """The numba kernels, compiled (or loaded from numba's cache) on first use; None without numba.

    numba compiles each on its first call, so a process that only votes never compiles
    :func:`_descend_loop`.
    """
    if not _kernel:
        try:
            import numba
        except ImportError:
            _kernel.append(None)
            return None
        try:
            kernels = tuple(numba.njit(cache=True, nogil=True)(f) for f in _LOOPS)
        except RuntimeError:  # no writable cache directory: compile in every process
            kernels = tuple(numba.njit(nogil=True)(f) for f in _LOOPS)
        _kernel.append(kernels)
    return _kernel[0]


# The kernels numba compiles. Each walks a block of items down level by level, so that the
# items of a block are independent work for the processor (no chain of dependent loads),
# with unsigned indices (no negative index for numba to wrap around: the loop vectorizes,
# twice as fast, measured). A categorical node sends code c to child c (an unknown code,
# -1, to unknown_child); a numeric one sends value > threshold to child 1. The arrays were
# checked by descend / vote: the kernels read them unchecked. Run compiled only (tested
# against the numpy twin and the lazy route in tests/test_random_tree.py).
_BLOCK = 64


def _descend_loop(codes, tree_of, row_of, attribute, threshold, categorical,
                  unknown_child, first_child, levels, out):  # pragma: no cover
    k = np.uint64(codes.shape[1])
    flat = codes.ravel()
    node = np.empty(_BLOCK, np.uint64)
    base = np.empty(_BLOCK, np.uint64)
    for start in range(0, tree_of.shape[0], _BLOCK):
        m = min(_BLOCK, tree_of.shape[0] - start)
        for j in range(m):
            node[j] = tree_of[start + j]
            base[j] = row_of[start + j] * k
        for _ in range(levels):
            for j in range(m):
                at = node[j]
                value = flat[base[j] + attribute[at]]
                numeric = np.uint64(value > threshold[at])
                code = unknown_child[at] if value == -1.0 else np.uint64(max(value, 0.0))
                node[j] = first_child[at] + (code if categorical[at] else numeric)
        for j in range(m):
            out[start + j] = node[j]


def _vote_loop(codes, roots, attribute, threshold, categorical, unknown_child, first_child,
               levels, frontier, leaf_label, binary, votes):  # pragma: no cover
    n, k = codes.shape[0], np.uint64(codes.shape[1])
    flat = codes.ravel()
    node = np.empty(_BLOCK, np.uint64)
    two, n_roots, first_leaf = np.uint64(2), np.uint64(roots), np.uint64(frontier)
    for tree in range(roots):
        for start in range(0, n, _BLOCK):
            m = min(_BLOCK, n - start)
            node[:m] = tree
            base = np.uint64(start) * k
            for _ in range(levels):
                if binary:
                    for j in range(m):
                        at = node[j]
                        value = flat[base + np.uint64(j) * k + attribute[at]]
                        node[j] = two * at + n_roots + np.uint64(value > threshold[at])
                else:
                    for j in range(m):
                        at = node[j]
                        value = flat[base + np.uint64(j) * k + attribute[at]]
                        numeric = np.uint64(value > threshold[at])
                        code = unknown_child[at] if value == -1.0 else np.uint64(max(value, 0.0))
                        node[j] = first_child[at] + (code if categorical[at] else numeric)
            for j in range(m):
                votes[start + j, leaf_label[node[j] - first_leaf]] += 1


_LOOPS = (_descend_loop, _vote_loop)
