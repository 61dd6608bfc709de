"""Differential-privacy mechanisms: noise addition and private selection.

Vectorized inversion samplers fed by ``rng`` or by ``uniforms`` (open uniforms on the grid of
:func:`dpviz.keyed.uniforms_from_bits`). ``size`` draws that many samples: ``(*size,
*value.shape)``, or indices ``(*size, ...)`` for utilities ``(..., m)``, each selection with
an exact ``*_probabilities`` companion. ``epsilon=math.inf``: no noise (ties at random).
Neighbours differ by one row; floating point: docs/privacy.md §4 and §8.1.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.keyed import uniforms_from_bits
from dpviz.validation import check_epsilon, check_int, check_positive, check_random_state

__all__ = [
    "MIN_NOISE_RATE", "check_noise_rate", "discrete_laplace", "discrete_laplace_pmf",
    "exponential_mechanism", "exponential_probabilities", "laplace", "laplace_noise",
    "majority_label_smooth_sensitivity", "open_uniforms", "report_noisy_max",
    "report_noisy_max_probabilities", "smooth_sensitivity_label",
    "smooth_sensitivity_label_probabilities", "smooth_sensitivity_logits",
]

SizeLike = int | tuple[int, ...] | None
Rng = np.random.Generator | int | None

#: log-scales are clipped here: exp(709) is finite in float64 and exp(-exp(709)) is 0.0.
_LOG_FLOAT_MAX = 709.0
#: The smallest ε/Δ the noise samplers support (2^-20 ≈ 9.5e-7): see :func:`check_noise_rate`.
MIN_NOISE_RATE = 2.0**-20
_MAX_EXACT_FLOAT_INT = 2.0**53

NOT_PROVEN_MESSAGE = (
    "smooth_sensitivity_label is the Fletcher & Islam (2017) smooth-sensitivity exponential "
    "mechanism, withdrawn by the author's 2021 addendum as not proven private: its real "
    "privacy cost may be about twice epsilon (or more). It is kept for teaching and auditing "
    "only; use report_noisy_max for a mechanism with a proof."
)


# ------------------------------------------------------------------------------- input checks
def _shape_of_size(size: object) -> tuple[int, ...]:
    """``size`` (None, int or tuple of ints) as a tuple of non-negative ints."""
    if size is None:
        return ()
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return (check_int(size, "size", minimum=0),)
    if isinstance(size, tuple | list):
        return tuple(check_int(s, "size", minimum=0) for s in size)
    raise InvalidParameterError(f"size must be None, an int or a tuple of ints, got {size!r}")


def _eps_delta(epsilon: object, sensitivity: object) -> tuple[float, float]:
    """The checked ε (``inf`` allowed) and Δ (finite, > 0)."""
    return check_epsilon(epsilon, allow_inf=True), check_positive(sensitivity, "sensitivity")


def _as_array(value: object, name: str, *, allow_neg_inf: bool = False) -> np.ndarray:
    """``value`` as float64, refusing non-reals, NaN and +inf (and -inf unless allowed)."""
    raw = _as_reals(value, name)
    arr = raw.astype(np.float64)
    if np.isposinf(arr).any():
        raise InvalidParameterError(f"{name} must not contain +inf, got {value!r}")
    if not allow_neg_inf and np.isneginf(arr).any():
        raise InvalidParameterError(f"{name} must be finite, got {value!r}")
    return arr


def _as_reals(value: object, name: str, what: str = "real numbers") -> np.ndarray:
    """``value`` as an int or float array without NaN (bools are refused: not ``what``)."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # e.g. ragged nested lists
        raise InvalidParameterError(f"{name} must be numeric, got {value!r}") from exc
    if raw.dtype.kind not in "iuf":  # refuses bools, strings, objects (None), complex
        raise InvalidParameterError(f"{name} must be {what}, got {value!r}")
    if raw.dtype.kind == "f" and np.isnan(raw).any():
        raise InvalidParameterError(f"{name} must not contain NaN, got {value!r}")
    return raw


def _as_int_array(value: object, name: str, *, nonnegative: bool = False) -> np.ndarray:
    """``value`` as int64; integral floats (|x| ≤ 2^53) are accepted, anything else refused."""
    arr = _as_reals(value, name, "integer-valued")
    if arr.dtype.kind == "f" and (not np.isfinite(arr).all() or (arr != np.round(arr)).any()
                                  or (np.abs(arr) > _MAX_EXACT_FLOAT_INT).any()):
        raise InvalidParameterError(f"{name} must be integer-valued, got {value!r}")
    out = arr.astype(np.int64)
    if nonnegative and (out < 0).any():
        raise InvalidParameterError(f"{name} must be >= 0, got {value!r}")
    return out


def _check_counts(counts: object) -> np.ndarray:
    """Class counts (..., m), m ≥ 1, as non-negative int64."""
    c = _as_int_array(counts, "counts", nonnegative=True)
    if c.ndim == 0 or c.shape[-1] == 0:
        raise InvalidParameterError(f"counts must have at least one class, got {counts!r}")
    return c


def _check_utilities(utilities: object, name: str = "utilities") -> np.ndarray:
    """Utilities (..., m), m ≥ 1, each row with a finite entry; -inf means probability 0."""
    u = _as_array(utilities, name, allow_neg_inf=True)
    if u.ndim == 0 or u.shape[-1] == 0:
        raise InvalidParameterError(
            f"{name} must have at least one candidate on its last axis, got shape {u.shape}"
        )
    if np.isneginf(_row_max(u)).any():  # (a row all -inf)
        raise InvalidParameterError(
            f"{name}: every row needs at least one finite utility (all -inf leaves nothing to "
            f"choose), got {utilities!r}"
        )
    return u


def check_noise_rate(epsilon: float, sensitivity: float = 1.0, *, what: str = "epsilon") -> None:
    """Refuse ε/Δ below :data:`MIN_NOISE_RATE` (the samplers' rounding, docs/privacy.md §4)."""
    if math.isinf(epsilon):
        return
    if epsilon / sensitivity < MIN_NOISE_RATE:
        raise InvalidParameterError(
            f"{what} = {epsilon:.6g} is below the smallest ε this noise sampler supports, "
            f"{MIN_NOISE_RATE * sensitivity:.6g} (= 2**-20 × sensitivity {sensitivity:g}); "
            "a smaller ε cannot be sampled accurately in float64. Use a larger ε (or fewer "
            "queries sharing it)"
        )


# ------------------------------------------------------------------- uniforms and samplers
def open_uniforms(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Fresh open uniforms ``(k + 1/2) / 2**52`` from ``rng`` (the grid of the keyed ones)."""
    return uniforms_from_bits(rng.integers(0, 2**64, size=shape, dtype=np.uint64))


def _uniforms(
    rng: object, uniforms: np.ndarray | None, size: SizeLike, shape: tuple[int, ...]
) -> np.ndarray:
    """The uniforms ``(*size, *shape)`` a sampler inverts: from ``rng``, or the caller's."""
    shape = (*_shape_of_size(size), *shape)
    if uniforms is None:
        return open_uniforms(check_random_state(rng, "rng", allow_none=False), shape)
    if rng is not None:
        raise InvalidParameterError("pass either rng or uniforms, not both")
    u = np.asarray(uniforms, dtype=np.float64)
    if u.shape != shape:
        raise InvalidParameterError(f"uniforms must have shape {shape}, got {u.shape}")
    if u.size and not ((u > 0.0) & (u < 1.0)).all():
        raise InvalidParameterError("uniforms must lie in the open interval (0, 1)")
    return u


def _geometric(u: np.ndarray, rate: float) -> np.ndarray:
    """``floor(-log(U) / rate)``: P(G >= g) = exp(-rate·g), g = 0, 1, … (inversion)."""
    return np.floor(-np.log(u) / rate).astype(np.int64)


def laplace_noise(uniforms: np.ndarray, *, scale: float) -> np.ndarray:
    """Laplace(scale) noise by inversion of the CDF at open uniforms (same shape, float64)."""
    d = np.asarray(uniforms, dtype=np.float64) - 0.5
    return -scale * np.sign(d) * np.log1p(-2.0 * np.abs(d))


def _index_result(idx: np.ndarray) -> np.ndarray | int:
    """A 0-d index array as a Python int, any other as int64."""
    idx = np.asarray(idx, dtype=np.int64)
    return int(idx) if idx.ndim == 0 else idx


#: Rows of at most this many entries are reduced column by column: numpy reduces a short
#: last axis slowly (~20 ns a row for two entries, 25× a column-wise pass).
_SHORT_ROWS = 8


def _row_max(u: np.ndarray) -> np.ndarray:
    """``u.max(axis=-1, keepdims=True)`` (exact: column by column for short rows)."""
    if not 0 < u.shape[-1] <= _SHORT_ROWS:
        return u.max(axis=-1, keepdims=True)
    out = u[..., 0].copy()
    for j in range(1, u.shape[-1]):
        np.maximum(out, u[..., j], out=out)
    return out[..., None]


def _row_argmax(v: np.ndarray) -> np.ndarray:
    """``np.argmax(v, axis=-1)`` of rows without NaN: the first maximum of each row."""
    if not 0 < v.shape[-1] <= _SHORT_ROWS:
        return np.argmax(v, axis=-1)
    best, index = v[..., 0].copy(), np.zeros(v.shape[:-1], dtype=np.int64)
    for j in range(1, v.shape[-1]):
        column = v[..., j]
        index[column > best] = j  # strictly greater: ties keep the first
        np.maximum(best, column, out=best)
    return index


def _shifted(u: np.ndarray) -> np.ndarray:
    """``u - max(u)`` per row (max exactly 0); gaps that overflow become -inf (probability 0)."""
    with np.errstate(over="ignore"):
        return u - _row_max(u)


def _scaled_logits(u: np.ndarray, rate: float) -> np.ndarray:
    """Log-weights ``rate·(u - max u)``, no NaN; ``rate = inf``: 0 at the maximisers, -inf else."""
    shifted = _shifted(u)
    if math.isinf(rate):
        return np.where(shifted == 0.0, 0.0, -np.inf)
    with np.errstate(over="ignore", under="ignore"):
        return shifted * rate


def _gumbel_argmax(logits: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Index i with P(i) ∝ exp(logits_i) (logits ≤ 0, a 0 per row): the Gumbel-max trick."""
    return _row_argmax(logits - np.log(-np.log(uniforms)))


def _softmax(logits: np.ndarray) -> np.ndarray:
    """``exp(logits)`` normalized on the last axis (logits ≤ 0, a 0 per row: no overflow)."""
    with np.errstate(under="ignore"):
        w = np.exp(logits)
    return w / w.sum(axis=-1, keepdims=True)


def _rate(eps: float, delta: float, monotone: bool) -> float:
    """The utilities' multiplier in the exponent: ε/Δ if monotone, else ε/(2Δ)."""
    return eps / delta if monotone else eps / (2.0 * delta)


# ------------------------------------------------------------------------- noise addition
def laplace(
    value: float | np.ndarray,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    rng: Rng = None,
    size: SizeLike = None,
    uniforms: np.ndarray | None = None,
) -> np.ndarray | float:
    """``value`` plus Laplace noise of scale Δ/ε (Dwork, McSherry, Nissim & Smith 2006).

    ε-DP in exact arithmetic for L1 sensitivity Δ; NOT PROVEN PRIVATE in float64 (Mironov
    2012; docs/privacy.md §8.1): release counts with :func:`discrete_laplace`.
    """
    eps, delta = _eps_delta(epsilon, sensitivity)
    check_noise_rate(eps, delta)
    v = _as_array(value, "value")
    u = _uniforms(rng, uniforms, size, v.shape)
    if math.isinf(eps):
        out = np.broadcast_to(v, u.shape).copy()
    else:
        out = v + laplace_noise(u, scale=delta / eps)
    return float(out) if out.ndim == 0 else out


def discrete_laplace(
    value: int | np.ndarray,
    *,
    epsilon: float,
    sensitivity: float = 1,
    rng: Rng = None,
    size: SizeLike = None,
    uniforms: np.ndarray | None = None,
) -> np.ndarray:
    """Integer ``value`` plus discrete Laplace noise, P(K = k) = tanh(a/2)·exp(-a|k|), a = ε/Δ.

    ε-DP in the rows (add/remove one) for an integer query of L1 sensitivity Δ, up to the
    sampler's δ ≤ (1 + e^ε)·(37/a + 2)·2^-52; argument: docs/privacy.md §8.1. ``uniforms``
    has shape ``(*size, *value.shape, 2)``; returns int64.
    """
    eps, delta = _eps_delta(epsilon, sensitivity)
    check_noise_rate(eps, delta)
    v = _as_int_array(value, "value")
    u = _uniforms(rng, uniforms, size, (*v.shape, 2))
    rate = eps / delta
    if math.isinf(rate):
        noise = np.zeros(u.shape[:-1], dtype=np.int64)
    else:
        noise = _geometric(u[..., 0], rate) - _geometric(u[..., 1], rate)
    out = np.asarray(v + noise, dtype=np.int64)
    return out[()] if out.ndim == 0 else out


def discrete_laplace_pmf(
    k: int | np.ndarray, *, epsilon: float, sensitivity: float = 1
) -> np.ndarray | float:
    """Exact P(K = k) = tanh(a/2)·exp(-a|k|) of the discrete Laplace noise (0 off the integers).

    Equal to ``scipy.stats.dlaplace(a).pmf(k)``, a = ε/Δ; ``ε = inf`` is the point mass at 0.
    """
    eps, delta = _eps_delta(epsilon, sensitivity)
    karr = _as_array(k, "k", allow_neg_inf=True)
    integral = np.isfinite(karr) & (karr == np.round(karr))
    if math.isinf(eps):
        out = np.where(karr == 0.0, 1.0, 0.0)
    else:
        a = eps / delta
        with np.errstate(under="ignore", invalid="ignore"):
            logp = math.log(math.tanh(a / 2.0)) - a * np.abs(karr)
            out = np.where(integral, np.exp(logp), 0.0)
    return float(out) if out.ndim == 0 else out


# ------------------------------------------------------------------------------ selection
def exponential_mechanism(
    utilities: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float,
    rng: Rng = None,
    size: SizeLike = None,
    monotone: bool = False,
    uniforms: np.ndarray | None = None,
) -> np.ndarray | int:
    """Index i with probability ∝ exp(ε·u_i / (2Δ)) (``monotone``: exp(ε·u_i / Δ)).

    ε-DP in the rows (add/remove one) when every utility has sensitivity ≤ Δ (``monotone``:
    utilities that all move the same way); McSherry & Talwar 2007, argument: docs/privacy.md
    §8.1. Gumbel-max in log space; -inf is never chosen; a Python int for 1-d utilities.
    """
    eps, delta = _eps_delta(epsilon, sensitivity)
    u = _check_utilities(utilities)
    g = _uniforms(rng, uniforms, size, u.shape)
    return _index_result(_gumbel_argmax(_scaled_logits(u, _rate(eps, delta, bool(monotone))), g))


def exponential_probabilities(
    utilities: np.ndarray, *, epsilon: float, sensitivity: float, monotone: bool = False
) -> np.ndarray:
    """Exact output distribution (..., m) of :func:`exponential_mechanism` (a stable softmax)."""
    eps, delta = _eps_delta(epsilon, sensitivity)
    return _softmax(_scaled_logits(_check_utilities(utilities), _rate(eps, delta, bool(monotone))))


def report_noisy_max(
    utilities: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    rng: Rng = None,
    size: SizeLike = None,
    monotone: bool = True,
    uniforms: np.ndarray | None = None,
) -> np.ndarray | int:
    """Report One-Sided Noisy Arg-Max: argmax_i (u_i + E_i), E_i ~ Exponential(Δ/ε).

    ``monotone=False`` uses scale 2Δ/ε. ε-DP in the rows (add/remove one) for utilities of
    sensitivity Δ (monotone ones with ``monotone=True``): permute-and-flip in distribution
    (McKenna & Sheldon 2020); argument: docs/privacy.md §8.1. As :func:`exponential_mechanism`.
    """
    eps, delta = _eps_delta(epsilon, sensitivity)
    scale = delta / eps if monotone else 2.0 * delta / eps
    check_noise_rate(eps, scale * eps)
    u = _check_utilities(utilities)
    g = _uniforms(rng, uniforms, size, u.shape)
    if math.isinf(eps):
        return _index_result(_gumbel_argmax(_scaled_logits(u, math.inf), g))
    return _index_result(_row_argmax(_shifted(u) - scale * np.log(g)))


def report_noisy_max_probabilities(
    utilities: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    monotone: bool = True,
) -> np.ndarray:
    """Exact output distribution (..., m) of :func:`report_noisy_max` (docs/privacy.md §8.1)."""
    eps, delta = _eps_delta(epsilon, sensitivity)
    u = _check_utilities(utilities)
    with np.errstate(under="ignore"):
        a = np.exp(_scaled_logits(u, _rate(eps, delta, monotone)))  # in [0, 1], max exactly 1
    nodes, weights = np.polynomial.legendre.leggauss(u.shape[-1] // 2 + 1)
    t = (nodes + 1.0) / 2.0  # nodes mapped from [-1, 1] to [0, 1]
    factors = 1.0 - a[..., :, None] * t  # (..., m, n): 1 - a_j t
    ones = np.ones_like(factors[..., :1, :])
    with np.errstate(under="ignore"):
        left = np.concatenate([ones, np.cumprod(factors, axis=-2)[..., :-1, :]], axis=-2)
        right_rev = np.cumprod(factors[..., ::-1, :], axis=-2)
        right = np.concatenate([right_rev[..., -2::-1, :], ones], axis=-2)
        p = a * ((left * right) @ (weights / 2.0))  # ∏_{j≠i} (1 - a_j t), integrated
    return p / p.sum(axis=-1, keepdims=True)


# ------------------------------------- Fletcher & Islam (2017) smooth sensitivity: WITHDRAWN
def _majority_label_log_rate(counts: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(u, log r): FI eq. (7)'s 0/1 utility and ``log r = log(ε/2) + j·ε``, j the top gap."""
    u = (counts == counts.max(axis=-1, keepdims=True)).astype(np.float64)
    if counts.shape[-1] >= 2:
        part = np.partition(counts, counts.shape[-1] - 2, axis=-1)
        j = part[..., -1] - part[..., -2]
    else:
        j = np.zeros(counts.shape[:-1], dtype=np.int64)
    return u, math.log(eps / 2.0) + j.astype(np.float64) * eps


def majority_label_smooth_sensitivity(counts: np.ndarray, *, epsilon: float) -> np.ndarray | float:
    """FI (2017) smooth sensitivity ``exp(-j·ε)`` of the majority label, j the top-two gap.

    Reproduces FI Table 2 (j = 10, ε = 0.1 → 0.36788); a function of the private counts,
    not a release.
    """
    eps = check_epsilon(epsilon, "epsilon")
    _, log_rate = _majority_label_log_rate(_check_counts(counts), eps)
    with np.errstate(under="ignore"):
        out = np.exp(math.log(eps / 2.0) - log_rate)  # = exp(-j ε)
    return float(out) if np.ndim(out) == 0 else out


def smooth_sensitivity_logits(counts: np.ndarray, *, epsilon: float) -> np.ndarray:
    """Log-weights (..., m) of the FI (2017) mechanism: 0 for top labels, ``-r`` for others.

    ``r = (ε/2)·e^{jε}``, ``log r`` clipped at 709. Computing them releases nothing.
    """
    eps = check_epsilon(epsilon, "epsilon")
    u, log_rate = _majority_label_log_rate(_as_int_array(counts, "counts", nonnegative=True), eps)
    with np.errstate(under="ignore"):
        r = np.exp(np.minimum(log_rate, _LOG_FLOAT_MAX))[..., None]
    return np.where(u == 1.0, 0.0, -r)


def smooth_sensitivity_label(
    counts: np.ndarray,
    *,
    epsilon: float,
    rng: Rng = None,
    size: SizeLike = None,
    uniforms: np.ndarray | None = None,
) -> np.ndarray | int:
    """A leaf's label by the withdrawn FI (2017) smooth-sensitivity exponential mechanism.

    P(c) ∝ exp((ε/2)·e^{jε}·u_c), u the 0/1 majority utility and j the top-two gap. NOT
    PROVEN PRIVATE (Fletcher 2021 addendum; docs/privacy.md §8.1): warns on every call.
    ``counts`` (..., m); arguments and result as for :func:`exponential_mechanism`.
    """
    warnings.warn(NOT_PROVEN_MESSAGE, NotProvenPrivateWarning, stacklevel=2)
    eps = check_epsilon(epsilon, "epsilon")
    c = _check_counts(counts)
    g = _uniforms(rng, uniforms, size, c.shape)
    return _index_result(_gumbel_argmax(smooth_sensitivity_logits(c, epsilon=eps), g))


def smooth_sensitivity_label_probabilities(counts: np.ndarray, *, epsilon: float) -> np.ndarray:
    """Exact output distribution (..., m) of :func:`smooth_sensitivity_label` (does not warn)."""
    eps = check_epsilon(epsilon, "epsilon")
    return _softmax(smooth_sensitivity_logits(_check_counts(counts), epsilon=eps))
