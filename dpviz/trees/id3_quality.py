"""Split quality functions of Friedman & Schuster (KDD 2010) and their sensitivities.

Every quality function takes a table of (private) counts ``τ_{j,c}`` — rows ``j`` are
the values of a candidate attribute A (or the two sides of a numeric threshold), columns
``c`` the classes — and returns one score; *higher is better*. Extra leading axes are
independent candidates, so one call scores every attribute (or every threshold) at once.

===================  ===============================================  ======================
criterion            quality (FS §4.1)                                sensitivity (FS App. A)
===================  ===============================================  ======================
``"infogain"``       ``q_IG = Σ_j Σ_c τ_jc · log2(τ_jc / τ_j)``        ``log2(N + 1) + 1/ln 2``
``"gini"``           ``q_Gini = −Σ_j τ_j (1 − Σ_c (τ_jc / τ_j)²)``     ``2``
``"max"``            ``q_Max = Σ_j max_c τ_jc``                        ``1``
===================  ===============================================  ======================

``N`` is a *public* bound on the number of rows of the data set, given by the data
provider (FS §4.1, App. A.1); it must never be computed from the rows.

Sign of ``q_IG`` (erratum, see docs/papers.md (errata)): FS print
``q_IG = V(A) = −Σ_j Σ_c τ_jc log(τ_jc / τ_j)``, which as written is ``+τ·H(C|A)`` and would
favour the *least* informative attribute. Maximising information gain means maximising
``−τ·H(C|A) = Σ_j Σ_c τ_jc log2(τ_jc / τ_j)`` (always ≤ 0), which is what this module
computes; the sensitivity bound is unaffected.

The SuLQ-based ID3 (FS Alg. 1) scores attributes with *noisy* counts instead, by the
approximation of FS eq. (2): :func:`sulq_information_gain`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int

__all__ = [
    "CRITERIA",
    "Criterion",
    "get_criterion",
    "q_gini",
    "q_infogain",
    "q_max",
    "sensitivity_gini",
    "sensitivity_infogain",
    "sensitivity_max",
    "sulq_information_gain",
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
    """Information-gain quality ``q_IG(T, A) = Σ_j Σ_c τ_jc · log2(τ_jc / τ_j)`` (FS §4.1).

    Parameters
    ----------
    counts : array_like, shape (..., n_values, n_classes)
        Exact counts ``τ_jc`` of the rows taking value ``j`` of the attribute and class ``c``.

    Returns
    -------
    float or ndarray of shape (...)
        ``−τ · H(C | A)`` in bits (≤ 0; 0 for a split into pure parts). ``0 · log 0 = 0``.

    Notes
    -----
    This is FS eq. (1) with the sign corrected (see the module docstring): maximising it
    maximises ``InfoGain(A, T) = H_C(T) − H_{C|A}(T)``, since ``H_C(T)`` does not depend on A.
    Sensitivity: :func:`sensitivity_infogain` (FS App. A.1).
    """
    c = _counts(counts)
    tau_j = c.sum(axis=-1, keepdims=True)
    safe_c = np.where(c > 0, c, 1.0)
    safe_tau = np.where(tau_j > 0, tau_j, 1.0)
    terms = np.where(c > 0, c * np.log2(safe_c / safe_tau), 0.0)
    out = terms.sum(axis=(-2, -1))
    return float(out) if out.ndim == 0 else out


def q_gini(counts: np.ndarray) -> np.ndarray | float:
    """Gini quality ``q_Gini(T, A) = −Σ_j τ_j · (1 − Σ_c (τ_jc / τ_j)²)`` (FS §4.1, App. A.2).

    Parameters
    ----------
    counts : array_like, shape (..., n_values, n_classes)
        Exact counts ``τ_jc``.

    Returns
    -------
    float or ndarray of shape (...)
        Minus the record-weighted Gini impurity of the split (≤ 0). A value ``j`` with
        ``τ_j = 0`` contributes 0.

    Notes
    -----
    Minimising the Gini index of CART (Breiman et al. 1984) is maximising this function.
    Sensitivity: 2 (:func:`sensitivity_gini`, FS App. A.2).
    """
    c = _counts(counts)
    tau_j = c.sum(axis=-1)
    safe = np.where(tau_j > 0, tau_j, 1.0)
    out = -(tau_j - (c**2).sum(axis=-1) / safe).sum(axis=-1)
    return float(out) if out.ndim == 0 else out


def q_max(counts: np.ndarray) -> np.ndarray | float:
    """Max quality ``q_Max(T, A) = Σ_j max_c τ_jc`` (FS §4.1, App. A.3).

    Parameters
    ----------
    counts : array_like, shape (..., n_values, n_classes)
        Exact counts ``τ_jc``.

    Returns
    -------
    float or ndarray of shape (...)
        The number of rows the split would classify correctly by labelling each part with
        its majority class (the resubstitution estimate of CART, Breiman et al. 1984).

    Notes
    -----
    Sensitivity: 1 (:func:`sensitivity_max`): one row changes one ``τ_jc`` by one.
    """
    c = _counts(counts)
    out = c.max(axis=-1).sum(axis=-1)
    return float(out) if out.ndim == 0 else out


def sensitivity_infogain(size_bound: int) -> float:
    """``S(q_IG) = log2(N + 1) + 1/ln 2`` for a public bound N on the data size (FS App. A.1).

    Parameters
    ----------
    size_bound : int
        The public upper bound N on the number of rows (FS: "a bound on the dataset size
        [...] known or given by the data provider"); never computed from the rows.

    Returns
    -------
    float
        The sensitivity bound (e.g. 13.73 for N = 5000, FS Table 1).

    Raises
    ------
    InvalidParameterError
        If ``size_bound`` is missing (None) or not an integer ≥ 1.

    Notes
    -----
    FS App. A.1: adding a row changes only the terms of the value j it takes;
    ``|a log((a+1)/a)| ≤ 1/ln 2`` for a > 0 (FS Claim 1) bounds the change by
    ``log2(τ_j + 1) + 1/ln 2 ≤ log2(N + 1) + 1/ln 2``.
    """
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
    """A split criterion: its quality function and its sensitivity.

    Attributes
    ----------
    name : str
        ``"infogain"``, ``"gini"`` or ``"max"``.
    quality : callable
        ``quality(counts) -> scores`` on counts of shape (..., n_values, n_classes).
    sensitivity : callable
        ``sensitivity(size_bound) -> float``.
    needs_size_bound : bool
        Whether the sensitivity depends on the public bound N.

    """

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
    """Return the :class:`Criterion` called ``name``, or raise naming the valid ones."""
    if not isinstance(name, str) or name.lower() not in CRITERIA:
        raise InvalidParameterError(
            f"criterion must be one of {sorted(CRITERIA)} (FS §4.1), got {name!r}"
        )
    return CRITERIA[name.lower()]


def sulq_information_gain(value_counts: np.ndarray, cell_counts: np.ndarray) -> float:
    """FS eq. (2): ``V̄_A = Σ_j Σ_c N_jc · log2(N_jc / N_j)`` from *noisy* counts.

    Parameters
    ----------
    value_counts : array_like, shape (n_values,)
        Noisy counts ``N_j^A`` of the rows taking each value of A (FS Alg. 1 line 17).
    cell_counts : array_like, shape (n_values, n_classes)
        Noisy counts ``N_jc^A`` (FS Alg. 1 line 18).

    Returns
    -------
    float
        The approximate quality; terms with a non-positive ``N_j`` or ``N_jc`` are skipped
        (FS Alg. 1 line 19: "negative N_j^A or N_jc^A are skipped"; a zero, possible with
        integer noise, is skipped too, as ``0 · log 0 = 0`` and ``log(x / 0)`` is undefined).

    Notes
    -----
    The counts are already ε-DP releases, so this is post-processing. With noisy counts
    ``N_jc`` may exceed ``N_j``, making a term positive; FS use the formula as it is.
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
