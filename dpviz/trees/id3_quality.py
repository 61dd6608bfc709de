"""Split quality functions of Friedman & Schuster (KDD 2010) and their sensitivities.

A quality takes counts ``τ_jc`` (part j of a candidate split, class c; extra leading axes
are independent candidates) and returns a score, higher is better: :func:`q_infogain`,
:func:`q_gini` and :func:`q_max` (FS §4.1), of sensitivity log2(N + 1) + 1/ln 2, 2 and 1 (FS
App. A), N a public bound on the number of rows. FS print q_IG with the opposite sign, which
would favour the least informative attribute (docs/papers.md, errata). SuLQ-based ID3 uses
FS eq. (2) on noisy counts instead (:func:`sulq_information_gain`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int

__all__ = [
    "CRITERIA", "Criterion", "get_criterion", "q_gini", "q_infogain", "q_max", "sensitivity_gini",
    "sensitivity_infogain", "sensitivity_max", "sulq_information_gain",
]


def _counts(counts: object) -> np.ndarray:
    arr = np.asarray(counts, dtype=np.float64)
    if arr.ndim < 2:
        raise InvalidParameterError(
            f"counts must have shape (..., n_values, n_classes), got shape {arr.shape}"
        )
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise InvalidParameterError("counts must be finite and non-negative")
    return arr


def q_infogain(counts: np.ndarray) -> np.ndarray | float:
    """``q_IG = Σ_j Σ_c τ_jc · log2(τ_jc / τ_j)`` = −τ·H(C|A) in bits (FS §4.1, sign corrected)."""
    c = _counts(counts)
    tau_j = c.sum(axis=-1, keepdims=True)
    safe_c = np.where(c > 0, c, 1.0)
    safe_tau = np.where(tau_j > 0, tau_j, 1.0)
    terms = np.where(c > 0, c * np.log2(safe_c / safe_tau), 0.0)
    out = terms.sum(axis=(-2, -1))
    return float(out) if out.ndim == 0 else out


def q_gini(counts: np.ndarray) -> np.ndarray | float:
    """``q_Gini = −Σ_j τ_j · (1 − Σ_c (τ_jc / τ_j)²)``: minus CART's weighted Gini impurity."""
    c = _counts(counts)
    tau_j = c.sum(axis=-1)
    safe = np.where(tau_j > 0, tau_j, 1.0)
    out = -(tau_j - (c**2).sum(axis=-1) / safe).sum(axis=-1)
    return float(out) if out.ndim == 0 else out


def q_max(counts: np.ndarray) -> np.ndarray | float:
    """``q_Max = Σ_j max_c τ_jc``: the rows a majority label per part classifies correctly."""
    c = _counts(counts)
    out = c.max(axis=-1).sum(axis=-1)
    return float(out) if out.ndim == 0 else out


def sensitivity_infogain(size_bound: int) -> float:
    """``log2(N + 1) + 1/ln 2`` for the public bound N on the rows (FS App. A.1; N required)."""
    if size_bound is None:
        raise InvalidParameterError(
            "size_bound (a public bound N on the number of rows) is required for the "
            "information-gain criterion: its sensitivity log2(N+1) + 1/ln 2 depends on it "
            "(FS §4.1); it must come from the data provider, not from the rows"
        )
    n = check_int(size_bound, "size_bound", minimum=1)
    return math.log2(n + 1) + 1.0 / math.log(2)


def sensitivity_gini(size_bound: int | None = None) -> float:
    """``S(q_Gini) = 2`` (FS App. A.2); ``size_bound`` is accepted and ignored."""
    return 2.0


def sensitivity_max(size_bound: int | None = None) -> float:
    """``S(q_Max) = 1`` (FS App. A.3); ``size_bound`` is accepted and ignored."""
    return 1.0


@dataclass(frozen=True)
class Criterion:
    """A split criterion: ``quality(counts)``, ``sensitivity(size_bound)``, needs N or not."""

    name: str
    quality: Callable[[np.ndarray], np.ndarray | float]
    sensitivity: Callable[..., float]
    needs_size_bound: bool


#: The three quality functions of FS §4.1, by name.
CRITERIA: dict[str, Criterion] = {
    "infogain": Criterion("infogain", q_infogain, sensitivity_infogain, True),
    "gini": Criterion("gini", q_gini, sensitivity_gini, False),
    "max": Criterion("max", q_max, sensitivity_max, False),
}


def get_criterion(name: object) -> Criterion:
    """The :class:`Criterion` called ``name`` (or ``name`` itself), or an error naming them."""
    if isinstance(name, Criterion):
        return name
    if not isinstance(name, str) or name.lower() not in CRITERIA:
        raise InvalidParameterError(
            f"criterion must be one of {sorted(CRITERIA)} (FS §4.1), got {name!r}"
        )
    return CRITERIA[name.lower()]


def sulq_information_gain(value_counts: np.ndarray, cell_counts: np.ndarray) -> float:
    """FS eq. (2): ``V̄_A = Σ_j Σ_c N_jc · log2(N_jc / N_j)`` from noisy counts (post-processing).

    Terms with a non-positive N_j or N_jc are skipped (FS Alg. 1 line 19).
    """
    nj = np.asarray(value_counts, dtype=np.float64)
    njc = np.asarray(cell_counts, dtype=np.float64)
    if njc.ndim != 2 or nj.shape != (njc.shape[0],):
        raise InvalidParameterError(
            f"value_counts must have shape (n_values,) and cell_counts (n_values, n_classes), "
            f"got {nj.shape} and {njc.shape}"
        )
    ok = (njc > 0) & (nj[:, None] > 0)
    safe_c = np.where(ok, njc, 1.0)
    safe_j = np.where(nj > 0, nj, 1.0)[:, None]
    return float(np.where(ok, njc * np.log2(safe_c / safe_j), 0.0).sum())
