"""Exact output distributions of small mechanisms, for the audits' exact curves.

An empirical audit (:mod:`dpviz.audit.engine`) estimates P[M(D) ∈ E] from samples; where the
output distribution is known in closed form, these classes give the exact probability of
the same named events (``x = v``, ``x ≤ t``, ``x > t``, ``[i] x > t``) so the notebooks can
draw the true privacy loss beside the estimate, and :func:`pair_epsilon` gives the exact
ε of two discrete laws.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.audit.engine import clopper_pearson
from dpviz.errors import InvalidParameterError

__all__ = [
    "LEAF_LABEL_MECHANISMS",
    "ContinuousLaw",
    "DiscreteLaw",
    "Law",
    "VectorLaw",
    "anticipated_bound",
    "discrete_laplace_law",
    "event_probability",
    "exact_event_losses",
    "label_law",
    "leaf_label_log_probabilities",
    "leaf_label_loss",
    "pair_epsilon",
    "smooth_sensitivity_loss",
]


class Law:
    """An exact output distribution: probabilities of ``x = v``, ``x ≤ t`` and ``x > t``."""

    def prob(self, op: str, value: Any) -> float:  # pragma: no cover - interface
        """P[x = value] (``op`` ``"="``), P[x ≤ value] (``"≤"``) or P[x > value] (``">"``)."""
        raise NotImplementedError


@dataclass(frozen=True)
class DiscreteLaw(Law):
    """A law on finitely many values: ``pmf[i]`` is the probability of ``support[i]``."""

    support: np.ndarray
    pmf: np.ndarray

    def prob(self, op: str, value: Any) -> float:
        """See :meth:`Law.prob`."""
        if op == "=":
            return float(self.pmf[self.support == value].sum())
        below = self.pmf[self.support <= value].sum()
        return float(below if op == "≤" else max(1.0 - below, 0.0))


@dataclass(frozen=True)
class ContinuousLaw(Law):
    """A continuous law given by its cumulative distribution function."""

    cdf: Callable[[float], float]

    def prob(self, op: str, value: Any) -> float:
        """See :meth:`Law.prob`."""
        if op == "=":
            return 0.0
        below = float(self.cdf(float(value)))
        return below if op == "≤" else 1.0 - below


@dataclass(frozen=True)
class VectorLaw(Law):
    """Independent coordinates (events ``[i] x ...`` read coordinate i)."""

    coordinates: tuple[Law, ...]


_EVENT = re.compile(r"^(?:\[(\d+)\] )?x (=|≤|>) (.+)$")


def event_probability(law: Law, name: str) -> float | None:
    """Exact probability of an auto event (by its name), or None if the name is not parsed."""
    match = _EVENT.match(name)
    if match is None:
        return None
    coord, op, text = match.groups()
    if isinstance(law, VectorLaw):
        if coord is None:
            return None
        law = law.coordinates[int(coord)]
    elif coord is not None:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(value, int | float):
        return None
    return law.prob(op, value)


def exact_event_losses(names: Sequence[str], law: Law, law_prime: Law) -> pd.DataFrame:
    """The exact log P[M(D) ∈ E] / P[M(D′) ∈ E] of each named auto event.

    Parameters
    ----------
    names : sequence of str
        Event names as :func:`dpviz.audit.engine.auto_events` writes them (``x = 3``,
        ``x ≤ 2.5``, ``[1] x > 7``).
    law, law_prime : exact output distributions under D and D′.

    Returns
    -------
    DataFrame
        Columns ``event`` and ``loss`` (finite losses only), for
        :func:`dpviz.ui.plots.privacy_loss_chart`.
    """
    rows = []
    for name in names:
        p, q = event_probability(law, name), event_probability(law_prime, name)
        if p is None or q is None or p <= 0 or q <= 0:
            continue
        rows.append({"event": name, "loss": math.log(p) - math.log(q)})
    return pd.DataFrame(rows, columns=["event", "loss"])


def pair_epsilon(p: np.ndarray, q: np.ndarray) -> float:
    """Exact ε of two discrete laws on the same outcomes: max |log p/q| (∞ if supports differ)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    both = (p > 0) & (q > 0)
    if np.any((p > 0) != (q > 0)):
        return math.inf
    return float(np.max(np.abs(np.log(p[both]) - np.log(q[both]))))


def discrete_laplace_law(centre: int, epsilon: float) -> DiscreteLaw:
    """``centre`` + discrete Laplace noise at ``epsilon`` (tails below 1e-19 cut)."""
    width = math.ceil(45.0 / epsilon) + 2
    k = np.arange(-width, width + 1)
    return DiscreteLaw(k + centre, np.asarray(mechanisms.discrete_laplace_pmf(k, epsilon=epsilon)))


def label_law(probabilities: np.ndarray) -> DiscreteLaw:
    """A label ``0 .. k-1`` drawn with the given probabilities."""
    p = np.asarray(probabilities, float)
    return DiscreteLaw(np.arange(len(p)), p)


#: The leaf-label mechanisms of the FI forest whose label law is known exactly.
LEAF_LABEL_MECHANISMS = ("rosnam", "exponential", "smooth_sensitivity")


def leaf_label_log_probabilities(mechanism: str, counts: Any, epsilon: float) -> np.ndarray:
    """Exact log-probabilities of a leaf's released label, given its class counts.

    ``"rosnam"`` (Report One-Sided Noisy Arg-Max, the FI addendum), ``"exponential"``
    (the exponential mechanism on the 0/1 "is a majority class" utility, sensitivity 1)
    and ``"smooth_sensitivity"`` (FI 2017's withdrawn mechanism), in log space.
    """
    counts = np.asarray(counts)
    if mechanism == "smooth_sensitivity":
        logits = mechanisms.smooth_sensitivity_logits(counts, epsilon=epsilon)
        return logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)
    if mechanism == "rosnam":
        with np.errstate(divide="ignore"):
            return np.log(mechanisms.report_noisy_max_probabilities(counts, epsilon=epsilon))
    if mechanism == "exponential":
        utility = (counts == counts.max(axis=-1, keepdims=True)).astype(float)
        with np.errstate(divide="ignore"):
            return np.log(
                mechanisms.exponential_probabilities(utility, epsilon=epsilon, sensitivity=1.0)
            )
    raise InvalidParameterError(
        f"mechanism must be one of {LEAF_LABEL_MECHANISMS}, got {mechanism!r}"
    )


def leaf_label_loss(mechanism: str, epsilon: float) -> Callable[[Any, Any], float]:
    """``loss(D, D′)``: the exact privacy loss max_c |log P_D(c) / P_D′(c)| of a leaf label.

    ``D`` and ``D′`` are the leaf's class counts under two neighbours; the function suits
    the ``exact`` argument of :func:`dpviz.audit.engine.search_neighbours`.
    """

    def loss(d: Any, d_prime: Any) -> float:
        a = leaf_label_log_probabilities(mechanism, d, epsilon)
        b = leaf_label_log_probabilities(mechanism, d_prime, epsilon)
        return float(np.max(np.abs(a - b)))

    return loss


def smooth_sensitivity_loss(counts: Sequence[int], counts_prime: Sequence[int],
                            epsilon: float) -> float:
    """Exact privacy loss of the FI 2017 smooth-sensitivity label between two leaves.

    ``max_c |log P(c | counts) − log P(c | counts′)|``: :func:`leaf_label_loss` of
    ``"smooth_sensitivity"``.
    """
    return leaf_label_loss("smooth_sensitivity", epsilon)(counts, counts_prime)


def anticipated_bound(p: np.ndarray, q: np.ndarray, n: int, alpha: float) -> float:
    """The lower bound an audit with ``n`` estimation samples gets at the expected counts."""
    kp, kq = np.round(np.asarray(p) * n), np.round(np.asarray(q) * n)
    p_low, p_high = clopper_pearson(kp, n, alpha / 2)
    q_low, q_high = clopper_pearson(kq, n, alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        forward = np.log(p_low) - np.log(q_high)
        backward = np.log(q_low) - np.log(p_high)
    best = np.nan_to_num(np.maximum(forward, backward), nan=-np.inf)
    return float(np.max(best))
