"""Friedman & Schuster §4.3 (DiffPC4.5): a numeric split point by the exponential mechanism.

FS §4.3 choose the split point r of a numeric attribute on its public interval
``[low, high]`` by the exponential mechanism with the density ``exp(ε q(r) / 2S)``, q(r)
the quality of the split "x <= r" (FS §4.1). The score is constant between consecutive
distinct values of the rows, so that continuous mechanism is sampled in two stages: a
score-constant range with probability proportional to its integral
(:func:`split_point_ranges`, :func:`split_point_probabilities`), then a point uniformly
inside it (:func:`choose_split_point_continuous`).

**dpviz discretises FS §4.3's continuous output space on a public grid.** Each numeric
attribute's public range is cut into ``n_cells`` equal cells, and the split point is one
of the grid points ``grid[i] = low + (high - low) · i / n_cells`` (:func:`split_grid`, the
one function that computes them), chosen by the exponential mechanism with
``P(i) ∝ exp(ε q_i / 2S)``: FS's density evaluated on a uniform base measure over the
grid points (:func:`choose_split_point`, :func:`split_point_grid_probabilities`, and in
the estimators :func:`private_split_point`). A node's interval is a pair of grid indices
``(i_lo, i_hi)``; its candidates are the interior points ``i_lo < i < i_hi``, and a split at
i gives the children ``(i_lo, i)`` and ``(i, i_hi)``. The resolution ``(high - low) / n_cells``
is public; as ``n_cells`` grows, the grid distribution tends to FS's continuous one.

Why: floating point. The second stage of the continuous sampler returns
``rng.uniform(start, end) = start + (end - start) · U`` with ``U = k · 2^-53``, and the ends
``start``, ``end`` are distinct values of the *private* rows. The set of doubles it can
return — a lattice (:mod:`dpviz.lattice`) — therefore depends on the rows, and the split
point is released in the fitted tree. A released double on the lattice of D's ranges but
off those of a neighbour D′ tells D from D′ whatever ε was meant: the attack Mironov
(CCS 2012) describes for the Laplace mechanism. On the neighbours D = {1}, D′ = {1, 2}
(public range [0, 1e6]) the event "off D's lattices" is impossible under D and has
probability about 1/3 under D′: the privacy loss is infinite, and an audit's lower bound
grows with its sample count only (ε ≥ 7.3 at 20,000 samples per neighbour in
``tests/test_id3_split_point.py``, with :func:`dpviz.lattice.uniform_lattice_member` as
the event). A grid point
is a double computed from public numbers only, so the set of possible outputs is the
same for every data set and the exponential mechanism's guarantee holds for the released
float itself.

The continuous sampler is kept as a teaching target only: :func:`choose_split_point_continuous`
warns :class:`~dpviz.errors.NotProvenPrivateWarning` on every call and no estimator uses
it; :func:`split_point_ranges` and :func:`split_point_probabilities` still draw the paper's
density (``dpviz.experiments.fs_runs.split_point_frame``).
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
    "DEFAULT_SPLIT_CELLS",
    "LABEL_POINT",
    "choose_split_point",
    "choose_split_point_continuous",
    "grid_cell_ids",
    "grid_split_qualities",
    "private_split_point",
    "split_grid",
    "split_point_grid_probabilities",
    "split_point_probabilities",
    "split_point_ranges",
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


def _criterion(criterion: Criterion | str) -> Criterion:
    return get_criterion(criterion) if isinstance(criterion, str) else criterion


# =============================================================================== the grid
def split_grid(low: float, high: float, n_cells: int) -> np.ndarray:
    """The public grid of split points of a numeric attribute: ``n_cells + 1`` doubles.

    ``grid[i] = low + (high - low) * i / n_cells`` for i = 0 .. n_cells. Every released
    split point is one of these doubles (the candidates of a node are its interior points),
    and this is the only function that computes them.

    Parameters
    ----------
    low, high : float
        The attribute's public bounds (``Domain[name].low``, ``.high``), ``low < high``.
    n_cells : int
        Number of equal cells (>= 2).

    Returns
    -------
    ndarray of float64, shape (n_cells + 1,)
        Strictly increasing; ``grid[0] == low``.

    Raises
    ------
    InvalidParameterError
        On non-finite or unordered bounds, or when the cells are too narrow for float64 to
        keep the grid points apart.
    """
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
    """The grid cell of each value: the smallest k with ``value <= grid[k]`` (clipped to n_cells).

    A row goes left of the split at grid index i (``x <= grid[i]``) exactly when its cell
    k satisfies ``k <= i``. Values below ``grid[0]`` get 0, values above ``grid[-1]`` get
    ``n_cells``: they are on the same side of every candidate as the ends.

    Parameters
    ----------
    values : ndarray of float
        The attribute's values of the rows.
    grid : ndarray
        From :func:`split_grid`.

    Returns
    -------
    ndarray of int64 in ``[0, n_cells]``
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
    values: np.ndarray,
    labels: np.ndarray,
    n_classes: int,
    grid: np.ndarray,
    i_lo: int,
    i_hi: int,
    criterion: Criterion | str,
) -> np.ndarray:
    """The quality of every candidate split point ``grid[i]``, ``i_lo < i < i_hi``, at once.

    The one quality computation of the grid mechanism (the estimators' query, the array
    sampler and the exact distribution all call it): each row's cell by ``np.searchsorted``,
    the (cell, class) counts by ``np.bincount``, the left part of every candidate by a
    cumulative sum, and the criterion on the stacked (2, C) tables.

    Parameters
    ----------
    values : ndarray of float
        The attribute's values of the node's rows (private).
    labels : ndarray of int
        Their class codes.
    n_classes : int
        |C|.
    grid : ndarray
        From :func:`split_grid`.
    i_lo, i_hi : int
        The node's public interval, as grid indices.
    criterion : Criterion or str
        Quality function (FS §4.1).

    Returns
    -------
    ndarray of shape (i_hi - i_lo - 1,)
        ``q_i`` of the split "x <= grid[i]" for i = i_lo + 1 .. i_hi - 1.
    """
    crit = _criterion(criterion)
    n_cells = grid.size - 1
    i_lo, i_hi = _check_interval((i_lo, i_hi), n_cells)
    cells = grid_cell_ids(values, grid)
    labels = np.asarray(labels, dtype=np.int64)
    counts = np.bincount(
        cells * n_classes + labels, minlength=(n_cells + 1) * n_classes
    ).reshape(n_cells + 1, n_classes)
    return _qualities_from_cell_counts(counts, i_lo, i_hi, crit)


def _middle_best(scores: np.ndarray) -> int:
    """Position of the best score; among ties the middle one (the lower middle if even).

    The non-private reference's rule: the best candidates between two consecutive data
    values form a run of tied grid points, and its middle is the grid point nearest to
    C4.5's midpoint.
    """
    best = np.flatnonzero(scores == scores.max())
    return int(best[(best.size - 1) // 2])


# =============================================================================== grid mechanism
def split_point_grid_probabilities(
    values: np.ndarray,
    labels: np.ndarray,
    n_classes: int,
    grid: np.ndarray,
    i_lo: int,
    i_hi: int,
    *,
    criterion: Criterion | str,
    sensitivity: float,
    epsilon: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The exact output distribution of the grid mechanism (:func:`choose_split_point`).

    ``P(i) = exp(ε q_i / 2S) / Σ_k exp(ε q_k / 2S)`` over the candidates
    ``i_lo < i < i_hi`` (a softmax, computed with the maximum subtracted). With
    ``epsilon = inf`` all mass is on the middle one of the best candidates.

    Returns
    -------
    indices : ndarray of int
        The candidates' grid indices ``i_lo + 1 .. i_hi - 1`` (the thresholds are
        ``grid[indices]``).
    probabilities : ndarray
        Their probabilities (sum 1).
    """
    epsilon = check_epsilon(epsilon, allow_inf=True)
    sensitivity = check_positive(sensitivity, "sensitivity")
    scores = grid_split_qualities(values, labels, n_classes, grid, i_lo, i_hi, criterion)
    indices = np.arange(i_lo + 1, i_hi)
    if scores.size == 0:
        raise InvalidParameterError(f"the interval ({i_lo}, {i_hi}) has no interior grid point")
    if math.isinf(epsilon):
        p = np.zeros(scores.size)
        p[_middle_best(scores)] = 1.0
        return indices, p
    log_w = epsilon * (scores - scores.max()) / (2 * sensitivity)
    w = np.exp(log_w)
    return indices, w / w.sum()


def choose_split_point(
    values: np.ndarray,
    labels: np.ndarray,
    n_classes: int,
    grid: np.ndarray,
    i_lo: int,
    i_hi: int,
    *,
    criterion: Criterion | str,
    sensitivity: float,
    epsilon: float,
    rng: np.random.Generator,
) -> float:
    """Sample a numeric split point on the public grid by the exponential mechanism (FS §4.3).

    The array version of :func:`private_split_point` (for teaching and exact-probability
    tests): the candidates are the grid points ``grid[i]``, ``i_lo < i < i_hi``, and i is
    drawn with probability ∝ ``exp(ε q_i / 2S)`` (:func:`split_point_grid_probabilities`).
    With ``epsilon = inf`` (non-private reference) the middle one of the best candidates
    is returned.

    Parameters
    ----------
    values, labels, n_classes, grid, i_lo, i_hi, criterion
        As for :func:`grid_split_qualities`.
    sensitivity : float
        The criterion's sensitivity S (public).
    epsilon : float
        ε of this choice.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    float
        The split point, exactly one of the doubles ``grid[i_lo + 1 : i_hi]``; rows with
        ``x <= r`` go left.

    Notes
    -----
    Privacy claim: ε-DP under add/remove-one-row neighbours: the exponential mechanism
    (McSherry & Talwar 2007; FS Def. 3) over a public finite candidate set; the released
    threshold is one of the public grid doubles, so no floating-point lattice depends on
    the rows. The candidate set depends only on the public bounds, ``n_cells`` and the
    public interval (released split points above the node); each q_i is a split quality
    of sensitivity S (FS App. A).
    """
    epsilon = check_epsilon(epsilon, allow_inf=True)
    sensitivity = check_positive(sensitivity, "sensitivity")
    scores = grid_split_qualities(values, labels, n_classes, grid, i_lo, i_hi, criterion)
    if scores.size == 0:
        raise InvalidParameterError(f"the interval ({i_lo}, {i_hi}) has no interior grid point")
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
    table: PrivateTable,
    name: str,
    interval: tuple[int, int],
    *,
    criterion: Criterion | str,
    sensitivity: float,
    epsilon: float,
    n_cells: int = DEFAULT_SPLIT_CELLS,
) -> tuple[float, int]:
    """The split point of numeric attribute ``name`` at a node, released through ``table``.

    The shipped path of DiffPC4.5 (:func:`dpviz.trees.id3.build_diffp_id3` calls it, and an
    audit can call exactly it): one :meth:`PrivateTable.select` query (label
    ``"split point"``) over the public candidates ``interval[0] < i < interval[1]`` of the
    grid :func:`split_grid` of the attribute's domain bounds, with the quality
    :func:`grid_split_qualities` of the table's rows. With ``epsilon = inf`` (non-private
    reference) the exact (cell, class) counts are read by one ε = inf histogram query and
    the middle one of the best candidates is taken.

    Parameters
    ----------
    table : PrivateTable
        The node's rows (with labels).
    name : str
        A numeric attribute of ``table.domain``.
    interval : (int, int)
        The node's public interval as grid indices (``(0, n_cells)`` at the root).
    criterion : Criterion or str
        Quality function (FS §4.1).
    sensitivity : float
        Its sensitivity S (public).
    epsilon : float
        ε of this query.
    n_cells : int, default 256
        Cells of the public grid.

    Returns
    -------
    threshold : float
        ``grid[index]``; rows with ``x <= threshold`` go left.
    index : int
        Its grid index (the children's intervals are ``(i_lo, index)`` and ``(index, i_hi)``).

    Raises
    ------
    InvalidParameterError
        If ``name`` is not numeric or the interval has no interior grid point.

    Notes
    -----
    Privacy claim: ε-DP under add/remove-one-row neighbours: the exponential mechanism
    (McSherry & Talwar 2007; FS Def. 3) over a public finite candidate set; the released
    threshold is one of the public grid doubles, so no floating-point lattice depends on
    the rows. The quality of each candidate is a split quality of sensitivity S (FS App. A),
    and the table charges ε before reading a row.
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
    crit = _criterion(criterion)
    j = table.domain.index(name)
    n_classes = table.domain.n_classes
    candidates = list(range(i_lo + 1, i_hi))
    if math.isinf(epsilon):
        counts = table.noisy_histogram(
            lambda codes: grid_cell_ids(codes[:, j], grid),
            epsilon=math.inf,
            n_cells=n_cells + 1,
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
    values: np.ndarray,
    labels: np.ndarray,
    n_classes: int,
    low: float,
    high: float,
    criterion: Criterion | str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The score-constant ranges of a numeric split point on ``[low, high]`` (FS §4.3).

    A split point r sends the rows with ``x <= r`` to the left part. With the distinct
    values u_1 < ... < u_m of the rows, every r in ``[u_i, u_{i+1})`` makes the same parts,
    so the domain splits into the ranges ``[low, u_1), [u_1, u_2), ..., [u_m, high]``, each
    with one score. (The paper's continuous mechanism; the estimators use the public grid,
    see the module docstring.)

    Parameters
    ----------
    values : ndarray
        The attribute's values of the rows (private; inside ``[low, high]``).
    labels : ndarray of int
        Their class codes.
    n_classes : int
        |C|.
    low, high : float
        The public interval of the node (the domain's bounds narrowed by the released split
        points above it).
    criterion : Criterion or str
        Quality function of the parts (FS §4.1).

    Returns
    -------
    starts, ends, scores : ndarray
        Range i is ``[starts[i], ends[i])`` with quality ``scores[i]``; zero-length ranges
        (a value equal to ``low``) are kept, with length 0.
    """
    crit = _criterion(criterion)
    values = np.asarray(values, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    distinct, inverse = np.unique(values, return_inverse=True)
    m = distinct.size
    per_value = np.bincount(
        inverse * n_classes + labels, minlength=m * n_classes
    ).reshape(m, n_classes)
    left = np.zeros((m + 1, n_classes))
    left[1:] = np.cumsum(per_value, axis=0)
    total = left[-1]
    tables = np.stack([left, total[None, :] - left], axis=1)  # (m+1, 2, C)
    scores = np.asarray(crit.quality(tables), dtype=np.float64).reshape(m + 1)
    edges = np.concatenate([[low], np.clip(distinct, low, high), [high]])
    return edges[:-1], edges[1:], scores


def split_point_probabilities(
    starts: np.ndarray,
    ends: np.ndarray,
    scores: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float,
) -> np.ndarray:
    """Closed form of FS §4.3: P(range i) = exp(ε q_i / 2S) |R_i| / Σ_k exp(ε q_k / 2S) |R_k|.

    The integral of the exponential mechanism's density ``exp(ε q(r) / 2S)`` over each
    score-constant range, normalised (the paper's formula writes the exponent without the
    factor 1/2S, which its Definition 3 includes). This is the distribution on the reals;
    the doubles :func:`choose_split_point_continuous` returns are not distributed like it
    at the level of single floats (see the module docstring).
    """
    lengths = np.asarray(ends, dtype=np.float64) - np.asarray(starts, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_w = epsilon * np.asarray(scores, dtype=np.float64) / (2 * sensitivity) + np.log(
            lengths
        )
    log_w = log_w - log_w.max()
    w = np.exp(log_w)
    return w / w.sum()


def choose_split_point_continuous(
    values: np.ndarray,
    labels: np.ndarray,
    n_classes: int,
    low: float,
    high: float,
    *,
    criterion: Criterion | str,
    sensitivity: float,
    epsilon: float,
    rng: np.random.Generator,
) -> float:
    """FS §4.3 as printed: a range by the exponential mechanism, then ``rng.uniform`` inside it.

    NOT PRIVATE as implemented — a teaching target, used by no estimator. First a
    score-constant range (:func:`split_point_ranges`) is chosen with probability
    proportional to ``exp(ε q_i / 2S) · |R_i|`` (:func:`split_point_probabilities`), then
    a point ``rng.uniform(start, end)`` inside it. With ``epsilon = inf`` the midpoint of
    the best range of positive length is returned (C4.5-like).

    Warns
    -----
    NotProvenPrivateWarning
        On every call: the output lies on the floating-point lattice of
        ``rng.uniform(start, end)``, whose ends are private row values.

    Returns
    -------
    float
        The split point r in ``[low, high]``; rows with ``x <= r`` go left.

    Notes
    -----
    No privacy claim. On the reals the two stages sample the exponential mechanism
    (McSherry & Talwar 2007; FS Definition 3) with density ``exp(ε q(r) / 2S)``, which is
    ε-DP. In float64 the second stage returns ``start + (end - start) · k 2^-53``: a set
    of doubles fixed by the range ends, i.e. by the rows' values. Membership of the
    released double in that lattice (:func:`dpviz.lattice.uniform_lattice_member`) is an
    event whose probability ratio between neighbours is infinite (Mironov 2012):
    ``tests/test_id3_split_point.py`` measures ε ≥ 7.3 for a claimed ε = 1 at 20,000
    samples, a bound limited only by the sample count. Use
    :func:`choose_split_point` (the public grid) instead.
    """
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
