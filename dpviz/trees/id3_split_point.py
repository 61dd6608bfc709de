"""Friedman & Schuster §4.3 (DiffPC4.5): a numeric split point by the exponential mechanism.

dpviz draws it among the points ``low + (high − low)·i / n_cells`` of a public grid
(:func:`split_grid`) inside the node's interval ``(i_lo, i_hi)``, with P(i) ∝ exp(ε q_i / 2S).
FS's continuous sampler (:func:`choose_split_point_continuous`) is kept for teaching: its
output lies on a lattice fixed by private values, so it is not private and warns
(docs/privacy.md §8.2.1).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from dpviz import mechanisms
from dpviz.domain import Numeric
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.privacy import PrivateTable
from dpviz.trees.id3_quality import Criterion, get_criterion
from dpviz.validation import check_epsilon, check_int, check_positive

__all__ = [
    "DEFAULT_SPLIT_CELLS", "LABEL_POINT", "choose_split_point", "choose_split_point_continuous",
    "grid_cell_ids", "grid_split_qualities", "private_split_point", "split_grid",
    "split_point_grid_probabilities", "split_point_probabilities", "split_point_ranges",
]

#: Default number of equal cells of a numeric attribute's public range (257 grid points).
DEFAULT_SPLIT_CELLS = 256

#: Ledger label of the split-point queries.
LABEL_POINT = "split point"

_LATTICE_WARNING = (
    "choose_split_point_continuous is not ε-DP as implemented: its output "
    "rng.uniform(start, end) lies on a floating-point lattice whose ends are private row "
    "values, so the released double can reveal the rows (Mironov 2012; its privacy loss is "
    "unbounded: an output possible under one neighbour only). Kept for teaching; the "
    "estimators use the public-grid mechanism (choose_split_point / private_split_point)."
)


# =============================================================================== the grid
def split_grid(low: float, high: float, n_cells: int) -> np.ndarray:
    """The public grid of split points: ``low + (high - low) * i / n_cells``, i = 0 .. n_cells."""
    n = check_int(n_cells, "n_cells", minimum=2)
    low, high = float(low), float(high)
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise InvalidParameterError(
            f"split_grid needs finite bounds low < high, got [{low}, {high}]"
        )
    grid = low + (high - low) * np.arange(n + 1, dtype=np.float64) / n
    if not (np.diff(grid) > 0).all():
        raise InvalidParameterError(
            f"n_cells={n} is too fine for [{low}, {high}] in float64: grid points coincide"
        )
    return grid


def _check_interval(interval: Sequence[int], n_cells: int) -> tuple[int, int]:
    i_lo, i_hi = (check_int(i, "interval") for i in interval)
    if not 0 <= i_lo < i_hi <= n_cells:
        raise InvalidParameterError(
            f"interval must be grid indices 0 <= i_lo < i_hi <= {n_cells}, got {tuple(interval)}"
        )
    return i_lo, i_hi


def grid_cell_ids(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The grid cell of each value: the smallest k with ``value <= grid[k]``, clipped to n_cells.

    A row goes left of the split at grid index i exactly when its cell k <= i.
    """
    k = np.searchsorted(grid, np.asarray(values, dtype=np.float64), side="left")
    return np.minimum(k, grid.size - 1).astype(np.int64)


def _qualities_from_cell_counts(
    cell_counts: np.ndarray, i_lo: int, i_hi: int, criterion: Criterion
) -> np.ndarray:
    """Quality of each candidate ``i_lo < i < i_hi`` from the (cell, class) counts."""
    cell_counts = np.asarray(cell_counts, dtype=np.float64)
    left = np.cumsum(cell_counts, axis=0)[i_lo + 1 : i_hi]  # rows with cell k <= i
    total = cell_counts.sum(axis=0)
    tables = np.stack([left, total[None, :] - left], axis=1)  # (m, 2, C)
    return np.asarray(criterion.quality(tables), dtype=np.float64).reshape(i_hi - i_lo - 1)


def grid_split_qualities(
    values: np.ndarray, labels: np.ndarray, n_classes: int, grid: np.ndarray, i_lo: int, i_hi: int,
    criterion: Criterion | str,
) -> np.ndarray:
    """The quality q_i of every candidate split "x <= grid[i]", ``i_lo < i < i_hi``, at once."""
    crit = get_criterion(criterion)
    n_cells = grid.size - 1
    i_lo, i_hi = _check_interval((i_lo, i_hi), n_cells)
    cells = grid_cell_ids(values, grid)
    labels = np.asarray(labels, dtype=np.int64)
    counts = np.bincount(
        cells * n_classes + labels, minlength=(n_cells + 1) * n_classes
    ).reshape(n_cells + 1, n_classes)
    return _qualities_from_cell_counts(counts, i_lo, i_hi, crit)


def _middle_best(scores: np.ndarray) -> int:
    """Position of the best score; among ties the (lower) middle one (C4.5's midpoint)."""
    best = np.flatnonzero(scores == scores.max())
    return int(best[(best.size - 1) // 2])


# =============================================================================== grid mechanism
def split_point_grid_probabilities(
    values: np.ndarray, labels: np.ndarray, n_classes: int, grid: np.ndarray, i_lo: int, i_hi: int,
    *, criterion: Criterion | str, sensitivity: float, epsilon: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact law of :func:`choose_split_point`: candidate indices and P(i) ∝ exp(ε q_i / 2S)."""
    epsilon, sensitivity, scores = _checked_scores(
        values, labels, n_classes, grid, i_lo, i_hi, criterion, sensitivity, epsilon
    )
    indices = np.arange(i_lo + 1, i_hi)
    if math.isinf(epsilon):
        p = np.zeros(scores.size)
        p[_middle_best(scores)] = 1.0
        return indices, p
    w = np.exp(epsilon * (scores - scores.max()) / (2 * sensitivity))
    return indices, w / w.sum()


def _checked_scores(
    values: np.ndarray, labels: np.ndarray, n_classes: int, grid: np.ndarray, i_lo: int,
    i_hi: int, criterion: Criterion | str, sensitivity: float, epsilon: float,
) -> tuple[float, float, np.ndarray]:
    """ε, S and the candidates' qualities, checked (an interval with no candidate is refused)."""
    epsilon = check_epsilon(epsilon, allow_inf=True)
    sensitivity = check_positive(sensitivity, "sensitivity")
    scores = grid_split_qualities(values, labels, n_classes, grid, i_lo, i_hi, criterion)
    if scores.size == 0:
        raise InvalidParameterError(f"the interval ({i_lo}, {i_hi}) has no interior grid point")
    return epsilon, sensitivity, scores


def choose_split_point(
    values: np.ndarray, labels: np.ndarray, n_classes: int, grid: np.ndarray, i_lo: int, i_hi: int,
    *, criterion: Criterion | str, sensitivity: float, epsilon: float, rng: np.random.Generator,
) -> float:
    """A split point on the public grid by the exponential mechanism (FS §4.3), from arrays.

    The array twin of :func:`private_split_point`. ε-DP (docs/privacy.md §8.2.1).
    """
    epsilon, sensitivity, scores = _checked_scores(
        values, labels, n_classes, grid, i_lo, i_hi, criterion, sensitivity, epsilon
    )
    if math.isinf(epsilon):
        position = _middle_best(scores)
    else:
        position = int(
            mechanisms.exponential_mechanism(
                scores, epsilon=epsilon, sensitivity=sensitivity, rng=rng
            )
        )
    return float(grid[i_lo + 1 + position])


def private_split_point(
    table: PrivateTable, name: str, interval: tuple[int, int], *, criterion: Criterion | str,
    sensitivity: float, epsilon: float, n_cells: int = DEFAULT_SPLIT_CELLS,
) -> tuple[float, int]:
    """The split point ``(grid[index], index)`` of numeric ``name`` at a node: one ``select`` query.

    ε-DP in the rows (add/remove one); argument: docs/privacy.md §8.2.1.
    """
    attribute = table.domain[name]
    if not isinstance(attribute, Numeric):
        raise InvalidParameterError(f"{name!r} is not a numeric attribute")
    n_cells = check_int(n_cells, "n_cells", minimum=2)
    grid = split_grid(attribute.low, attribute.high, n_cells)
    i_lo, i_hi = _check_interval(interval, n_cells)
    if i_hi - i_lo < 2:
        raise InvalidParameterError(f"the interval ({i_lo}, {i_hi}) has no interior grid point")
    epsilon = check_epsilon(epsilon, allow_inf=True)
    crit = get_criterion(criterion)
    j = table.domain.index(name)
    n_classes = table.domain.n_classes
    candidates = list(range(i_lo + 1, i_hi))
    if math.isinf(epsilon):
        counts = table.noisy_histogram(
            lambda codes: grid_cell_ids(codes[:, j], grid), epsilon=math.inf, n_cells=n_cells + 1,
            label=LABEL_POINT,
        )
        scores = _qualities_from_cell_counts(counts, i_lo, i_hi, crit)
        index = candidates[_middle_best(scores)]
    else:

        def quality(codes: np.ndarray, labels: np.ndarray | None) -> np.ndarray:
            if labels is None:
                raise InvalidParameterError("a split point needs the rows' class labels")
            return grid_split_qualities(codes[:, j], labels, n_classes, grid, i_lo, i_hi, crit)

        chosen = table.select(
            candidates, quality, sensitivity=sensitivity, epsilon=epsilon, label=LABEL_POINT
        )
        assert isinstance(chosen, int)
        index = chosen
    return float(grid[index]), index


# =============================================================================== teaching target
def split_point_ranges(
    values: np.ndarray, labels: np.ndarray, n_classes: int, low: float, high: float,
    criterion: Criterion | str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FS §4.3's score-constant ranges ``[low, u_1), ..., [u_m, high]``: starts, ends, scores."""
    crit = get_criterion(criterion)
    values = np.asarray(values, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    distinct, inverse = np.unique(values, return_inverse=True)
    m = distinct.size
    per_value = np.bincount(
        inverse * n_classes + labels, minlength=m * n_classes
    ).reshape(m, n_classes)
    # range i holds the splits with the i smallest distinct values on the left
    scores = _qualities_from_cell_counts(np.vstack([np.zeros((1, n_classes)), per_value]),
                                         -1, m + 1, crit)
    edges = np.concatenate([[low], np.clip(distinct, low, high), [high]])
    return edges[:-1], edges[1:], scores


def split_point_probabilities(
    starts: np.ndarray, ends: np.ndarray, scores: np.ndarray, *, epsilon: float,
    sensitivity: float,
) -> np.ndarray:
    """FS §4.3's closed form P(range i) ∝ exp(ε q_i / 2S) |R_i| (the paper omits 1/2S)."""
    lengths = np.asarray(ends, dtype=np.float64) - np.asarray(starts, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_w = epsilon * np.asarray(scores, dtype=np.float64) / (2 * sensitivity) + np.log(lengths)
    log_w = log_w - log_w.max()
    w = np.exp(log_w)
    return w / w.sum()


def choose_split_point_continuous(
    values: np.ndarray, labels: np.ndarray, n_classes: int, low: float, high: float, *,
    criterion: Criterion | str, sensitivity: float, epsilon: float, rng: np.random.Generator,
) -> float:
    """FS §4.3 as printed: NOT PRIVATE in floating point (warns; docs/privacy.md §8.2.1)."""
    warnings.warn(_LATTICE_WARNING, NotProvenPrivateWarning, stacklevel=2)
    starts, ends, scores = split_point_ranges(values, labels, n_classes, low, high, criterion)
    lengths = ends - starts
    if math.isinf(epsilon):
        usable = np.flatnonzero(lengths > 0)
        best = usable[np.argmax(scores[usable])]
        return float((starts[best] + ends[best]) / 2)
    with np.errstate(divide="ignore"):
        utilities = scores + (2 * sensitivity / epsilon) * np.log(lengths)
    i = mechanisms.exponential_mechanism(
        utilities, epsilon=epsilon, sensitivity=sensitivity, rng=rng
    )
    return float(rng.uniform(starts[i], ends[i]))
