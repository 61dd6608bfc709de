"""Friedman & Schuster §4.3 (DiffPC4.5): a numeric split point by the exponential mechanism.

The score of a split point is constant between consecutive distinct values of the rows,
so the exponential mechanism over the continuous interval is sampled exactly in two
stages: a score-constant range with probability proportional to its integral
(:func:`split_point_ranges`, :func:`split_point_probabilities`), then a point uniformly
inside it (:func:`choose_split_point`).
"""

from __future__ import annotations

import math

import numpy as np

from dpviz import mechanisms
from dpviz.trees.id3_quality import Criterion, get_criterion

__all__ = ["choose_split_point", "split_point_probabilities", "split_point_ranges"]


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
    with one score.

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
    crit = get_criterion(criterion) if isinstance(criterion, str) else criterion
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
    factor 1/2S, which its Definition 3 includes).
    """
    lengths = np.asarray(ends, dtype=np.float64) - np.asarray(starts, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_w = epsilon * np.asarray(scores, dtype=np.float64) / (2 * sensitivity) + np.log(
            lengths
        )
    log_w = log_w - log_w.max()
    w = np.exp(log_w)
    return w / w.sum()


def choose_split_point(
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
    """Sample a numeric split point by the exponential mechanism over ranges (FS §4.3).

    First a score-constant range (:func:`split_point_ranges`) is chosen with probability
    proportional to ``exp(ε q_i / 2S) · |R_i|`` (:func:`split_point_probabilities`), then
    a point uniformly inside it. With ``epsilon = inf`` (non-private reference) the midpoint
    of the best range of positive length is returned (C4.5-like).

    Returns
    -------
    float
        The split point r in ``[low, high]``; rows with ``x <= r`` go left.

    Notes
    -----
    Privacy claim: ε-DP. The two stages sample exactly the exponential mechanism
    (McSherry & Talwar 2007; FS Definition 3) on the continuous output space
    ``[low, high]`` with the uniform base measure and score q(r), the quality of the split
    at r. For every fixed r, q(r) is a split quality of sensitivity S (FS App. A), so the
    density ratio between neighbours is at most e^ε. The interval is public (the domain's
    bounds narrowed by released split points); the ranges depend on the rows but only
    organise the computation of the same distribution.
    """
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
