"""Differential-privacy mechanisms used by the workbook: noise addition and private selection.

Every mechanism is a plain function that

* takes its randomness from an explicit keyword ``rng`` (a :class:`numpy.random.Generator`
  or an int seed, validated by :func:`dpviz.validation.check_random_state`), so every result can be
  reproduced — or, instead, from ``uniforms``: open uniforms on the 52-bit grid of
  :func:`dpviz.keyed.uniforms_from_bits`, e.g. the secret-keyed uniforms of a lazily
  released leaf (:mod:`dpviz.leaf_release`). Either way the *same* inversion sampler turns
  the uniforms into noise: one sampler per mechanism, used by the estimators, the audit
  targets and the exact-distribution tests alike;
* validates ε with :func:`dpviz.validation.check_epsilon` and the sensitivity Δ (> 0), and
  raises :class:`dpviz.errors.InvalidParameterError` on NaN inputs;
* is vectorized: the keyword ``size`` (``None``, an int or a tuple) draws that many
  independent samples in one call, without a Python loop over samples. Noise-adding
  mechanisms return shape ``(*size, *value.shape)``; selection mechanisms take utilities of
  shape ``(..., m)`` (``m`` candidates on the last axis) and return indices of shape
  ``(*size, ...)``.

Each selection mechanism has an exact companion (``*_probabilities``) giving the output
distribution, which the tests and the empirical privacy audit compare samples against.

Neighbouring relation. Throughout, two data sets are neighbours when one is obtained from the
other by adding or removing one record (the relation of Friedman & Schuster 2010, Def. 1,
and of Fletcher & Islam 2017, Def. 1, where ``||x - y||_1 <= 1`` on histograms). A
sensitivity Δ is the largest change of the query (L1 norm) or of any single utility between
such neighbours.

Floating point
--------------
Every sampler inverts a CDF at a uniform ``U = (k + 1/2) / 2**52`` (``k`` uniform on
``0 … 2**52 - 1``), so each probability it realises is within 2**-52 of the exact one. For
the count mechanisms this bounds the total-variation distance to the exact noise by about
``(37 / a + 2) · 2**-52`` for ``a = ε/Δ`` (checked in the tests): about 9e-9 at
``MIN_NOISE_RATE = 2**-20``, 8e-12 at ``a = 1e-3``, 9e-15 at ``a = 1``. Below the minimum
the distance grows past 1e-8 (and, far below, the noise would overflow int64), so
:func:`check_noise_rate` refuses such ε with an error naming the minimum. Integer outputs
(discrete Laplace) carry no floating-point lattice; the continuous Laplace sampler does
(Mironov 2012), which is why dpviz releases counts with discrete Laplace and marks float
Laplace releases as not proven private.

Mechanisms
----------
laplace, discrete_laplace, discrete_laplace_pmf
    Noise addition for real-valued and integer-valued (count) queries.
exponential_mechanism, exponential_probabilities
    McSherry–Talwar selection, sampled in log space with the Gumbel-max trick.
report_noisy_max, report_noisy_max_probabilities
    Report One-Sided Noisy Arg-Max (the Fletcher 2021 addendum's replacement), identical in
    distribution to permute-and-flip.
smooth_sensitivity_label, smooth_sensitivity_label_probabilities
    The withdrawn Fletcher & Islam (2017) smooth-sensitivity exponential mechanism, kept for
    teaching; it warns with :class:`dpviz.errors.NotProvenPrivateWarning` on every call.
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
    "MIN_NOISE_RATE",
    "check_noise_rate",
    "discrete_laplace",
    "discrete_laplace_noise",
    "discrete_laplace_pmf",
    "exponential_mechanism",
    "exponential_probabilities",
    "laplace",
    "laplace_noise",
    "majority_label_smooth_sensitivity",
    "open_uniforms",
    "report_noisy_max",
    "report_noisy_max_probabilities",
    "smooth_sensitivity_label",
    "smooth_sensitivity_label_probabilities",
]

SizeLike = int | tuple[int, ...] | None

# Largest x with exp(x) finite in float64 is ~709.78; clipping a log-scale at 709 keeps exp()
# finite, and exp(-exp(709)) is exactly 0.0 in float64 anyway, so nothing is lost.
_LOG_FLOAT_MAX = 709.0
#: The smallest ε/Δ the noise samplers support (2**-20 ≈ 9.5e-7): see :func:`check_noise_rate`.
MIN_NOISE_RATE = 2.0**-20
# Largest integer that every float64 represents exactly.
_MAX_EXACT_FLOAT_INT = 2.0**53


# ----------------------------------------------------------------------------------------------
# private helpers
# ----------------------------------------------------------------------------------------------


def _shape_of_size(size: object) -> tuple[int, ...]:
    """Return ``size`` (None, int or tuple of ints) as a tuple of non-negative ints."""
    if size is None:
        return ()
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return (check_int(size, "size", minimum=0),)
    if isinstance(size, tuple | list):
        return tuple(check_int(s, "size", minimum=0) for s in size)
    raise InvalidParameterError(f"size must be None, an int or a tuple of ints, got {size!r}")


def _check_sensitivity(sensitivity: object) -> float:
    """Return the sensitivity Δ as a float after checking it is finite and > 0."""
    return check_positive(sensitivity, "sensitivity")


def _as_array(value: object, name: str, *, allow_neg_inf: bool = False) -> np.ndarray:
    """Return ``value`` as a float64 array, refusing NaN and +inf (and -inf unless allowed)."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # e.g. ragged nested lists
        raise InvalidParameterError(f"{name} must be numeric, got {value!r}") from exc
    if raw.dtype.kind not in "iuf":  # refuses bools, strings, objects (None), complex
        raise InvalidParameterError(f"{name} must be real numbers, got {value!r}")
    arr = raw.astype(np.float64)
    if np.isnan(arr).any():
        raise InvalidParameterError(f"{name} must not contain NaN, got {value!r}")
    if np.isposinf(arr).any():
        raise InvalidParameterError(f"{name} must not contain +inf, got {value!r}")
    if not allow_neg_inf and np.isneginf(arr).any():
        raise InvalidParameterError(f"{name} must be finite, got {value!r}")
    return arr


def _as_int_array(value: object, name: str, *, nonnegative: bool = False) -> np.ndarray:
    """Return ``value`` as an int64 array; integral floats are accepted, anything else refused."""
    if isinstance(value, bool | np.bool_):
        raise InvalidParameterError(f"{name} must be an integer (not bool), got {value!r}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # pragma: no cover - ragged input
        raise InvalidParameterError(f"{name} must be integer-valued, got {value!r}") from exc
    if arr.dtype.kind in "iu":
        out = arr.astype(np.int64)
    elif arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise InvalidParameterError(f"{name} must not contain NaN, got {value!r}")
        if (
            not np.isfinite(arr).all()
            or (np.abs(arr) > _MAX_EXACT_FLOAT_INT).any()
            or (arr != np.round(arr)).any()
        ):
            raise InvalidParameterError(f"{name} must be integer-valued, got {value!r}")
        out = arr.astype(np.int64)
    else:
        raise InvalidParameterError(f"{name} must be integer-valued, got {value!r}")
    if nonnegative and (out < 0).any():
        raise InvalidParameterError(f"{name} must be >= 0, got {value!r}")
    return out


def _check_utilities(utilities: object, name: str = "utilities") -> np.ndarray:
    """Return utilities as a float64 array of shape (..., m), m >= 1, each row with a finite entry.

    NaN and +inf are refused; -inf is accepted and means "probability 0".
    """
    u = _as_array(utilities, name, allow_neg_inf=True)
    if u.ndim == 0 or u.shape[-1] == 0:
        raise InvalidParameterError(
            f"{name} must have at least one candidate on its last axis, got shape {u.shape}"
        )
    if np.isneginf(u).all(axis=-1).any():
        raise InvalidParameterError(
            f"{name}: every row needs at least one finite utility (all -inf leaves nothing to "
            f"choose), got {utilities!r}"
        )
    return u


def _shifted(u: np.ndarray) -> np.ndarray:
    """Return ``u - max(u)`` per row (≤ 0, max exactly 0); overflowing gaps become -inf.

    A gap below -1.8e308 has probability exactly 0.0 in float64 for any usable ε/Δ, so the
    overflow to -inf is the correct answer, not an error.
    """
    with np.errstate(over="ignore"):
        return u - u.max(axis=-1, keepdims=True)


def _scaled_logits(u: np.ndarray, rate: float) -> np.ndarray:
    """Return the log-weights ``rate·(u - max u)`` per row, computed without NaN.

    ``rate = inf`` (ε = inf) gives 0 for the maximisers and -inf elsewhere: the limit
    distribution is uniform over the maximisers.
    """
    shifted = _shifted(u)
    if math.isinf(rate):
        return np.where(shifted == 0.0, 0.0, -np.inf)
    with np.errstate(over="ignore", under="ignore"):
        return shifted * rate  # ≤ 0; -inf stays -inf; huge gaps overflow to -inf (prob 0)


def _gumbel_argmax(logits: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Sample indices with P(i) ∝ exp(logits[..., i]) by the Gumbel-max trick.

    ``argmax_i (logits_i + G_i)`` with i.i.d. standard Gumbel ``G_i`` is distributed as the
    softmax of ``logits`` (Gumbel 1954; Maddison et al. 2014). ``logits`` must be ≤ 0 with a 0
    in each row (so adding Gumbel noise cannot overflow); -inf entries are never chosen.
    """
    return np.argmax(logits + _gumbel_noise(uniforms), axis=-1)


# ----------------------------------------------------------------------------------------------
# uniforms and the inversion samplers (one per noise distribution)
# ----------------------------------------------------------------------------------------------


def open_uniforms(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Fresh open uniforms ``(k + 1/2) / 2**52`` from ``rng`` (the grid of the keyed ones)."""
    return uniforms_from_bits(rng.integers(0, 2**64, size=shape, dtype=np.uint64))


def _uniforms(
    rng: object, uniforms: np.ndarray | None, shape: tuple[int, ...]
) -> np.ndarray:
    """The uniforms a sampler inverts: drawn from ``rng``, or the caller's (checked)."""
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


def check_noise_rate(epsilon: float, sensitivity: float = 1.0, *, what: str = "epsilon") -> None:
    """Refuse an ε/Δ below :data:`MIN_NOISE_RATE`, naming the smallest supported ε.

    Called by every noise-adding release *before* it charges a budget or reads a row.
    Below ``2**-20`` the inversion samplers' float rounding would no longer be negligible
    (total variation above about 1e-8 from the exact noise) and, far below, the noise would not
    fit in int64 (an old dpviz returned exact counts at ε = 1e-30). ``ε = inf`` (no noise,
    the non-private reference) passes.

    Raises
    ------
    InvalidParameterError
        If ``epsilon / sensitivity < MIN_NOISE_RATE``.
    """
    if math.isinf(epsilon):
        return
    if epsilon / sensitivity < MIN_NOISE_RATE:
        raise InvalidParameterError(
            f"{what} = {epsilon:.6g} is below the smallest ε this noise sampler supports, "
            f"{MIN_NOISE_RATE * sensitivity:.6g} (= 2**-20 × sensitivity {sensitivity:g}); "
            "a smaller ε cannot be sampled accurately in float64. Use a larger ε (or fewer "
            "queries sharing it)"
        )


def _geometric(u: np.ndarray, rate: float) -> np.ndarray:
    """``floor(-log(U) / rate)``: P(G >= g) = exp(-rate·g), g = 0, 1, … (inversion)."""
    return np.floor(-np.log(u) / rate).astype(np.int64)


def discrete_laplace_noise(uniforms: np.ndarray, *, rate: float) -> np.ndarray:
    """Two-sided geometric noise from pairs of open uniforms on the last axis.

    ``G1 - G2`` for two independent geometric variables on {0, 1, …} with
    ``P(G >= g) = exp(-rate·g)`` has ``P(K = k) = tanh(rate/2)·exp(-rate·|k|)``.
    ``rate = inf`` gives 0. Shape ``uniforms.shape[:-1]``, int64. The caller checks
    ``rate >= MIN_NOISE_RATE`` (:func:`check_noise_rate`).
    """
    u = np.asarray(uniforms, dtype=np.float64)
    if math.isinf(rate):
        return np.zeros(u.shape[:-1], dtype=np.int64)
    return _geometric(u[..., 0], rate) - _geometric(u[..., 1], rate)


def laplace_noise(uniforms: np.ndarray, *, scale: float) -> np.ndarray:
    """Laplace(scale) noise by inversion of the CDF at open uniforms (same shape, float64)."""
    d = np.asarray(uniforms, dtype=np.float64) - 0.5
    return -scale * np.sign(d) * np.log1p(-2.0 * np.abs(d))


def _exponential_noise(uniforms: np.ndarray, scale: float) -> np.ndarray:
    """Exponential(scale) noise, ``-scale·log(U)``."""
    return -scale * np.log(uniforms)


def _gumbel_noise(uniforms: np.ndarray) -> np.ndarray:
    """Standard Gumbel noise, ``-log(-log U)`` (finite: U is never 0 or 1)."""
    return -np.log(-np.log(uniforms))


def _index_result(idx: np.ndarray) -> np.ndarray | int:
    """Return a 0-d index array as a Python int, any other array as int64."""
    idx = np.asarray(idx, dtype=np.int64)
    return int(idx) if idx.ndim == 0 else idx


def _softmax_from_logits(logits: np.ndarray) -> np.ndarray:
    """Return ``exp(logits) / sum exp(logits)`` per row for logits ≤ 0 with a 0 in each row."""
    with np.errstate(under="ignore"):
        w = np.exp(logits)
    return w / w.sum(axis=-1, keepdims=True)


# ----------------------------------------------------------------------------------------------
# Laplace mechanism
# ----------------------------------------------------------------------------------------------


def laplace(
    value: float | np.ndarray,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    rng: np.random.Generator | int | None = None,
    size: SizeLike = None,
    uniforms: np.ndarray | None = None,
) -> np.ndarray | float:
    """Return ``value`` plus Laplace noise of scale ``sensitivity / epsilon``.

    Parameters
    ----------
    value : float or array_like
        The exact answer of the query f(x), a real number or a vector of them. NaN and ±inf
        are refused.
    epsilon : float
        Privacy parameter ε > 0. ``math.inf`` means *no noise: the non-private reference*;
        the exact value is returned (broadcast to the requested ``size``).
    sensitivity : float, default 1.0
        L1 sensitivity Δ of the query between neighbours (> 0, finite). For a vector query
        this is the sensitivity of the whole vector: the same scale Δ/ε is used on every
        coordinate.
    rng : numpy.random.Generator or int
        Source of randomness (an int is used as a seed).
    size : int or tuple of int, optional
        Draw that many independent noisy answers at once; output shape
        ``(*size, *value.shape)``.
    uniforms : array, optional
        Instead of ``rng``: open uniforms of the output's shape to invert (e.g. keyed ones).

    Returns
    -------
    float or numpy.ndarray
        A float when ``value`` is a scalar and ``size`` is None, else a float64 array.

    Raises
    ------
    InvalidParameterError
        On an invalid ε, Δ, rng or size, a NaN / infinite ``value``, or ε/Δ below
        :data:`MIN_NOISE_RATE`.

    Notes
    -----
    PRIVACY CLAIM: ε-differential privacy under add/remove-one-record neighbours, provided
    ``||f(x) - f(y)||_1 <= sensitivity`` for all neighbours x, y — in exact real arithmetic.

    SOURCE: Dwork, McSherry, Nissim & Smith (2006), "Calibrating noise to sensitivity in
    private data analysis" (the Laplace mechanism); restated as Theorem 1 of Friedman &
    Schuster (2010) and in Fletcher & Islam (2017) §2.1.

    SAMPLING: inversion of the Laplace CDF at an open uniform (:func:`laplace_noise`).

    FLOATING-POINT CAVEAT — NOT PROVEN PRIVATE IN FLOAT64: the noise is drawn by
    inverse-CDF sampling on doubles (as :meth:`numpy.random.Generator.laplace` does).
    Mironov (CCS 2012, "On significance of the least significant bits for differential
    privacy") showed that the set of doubles such
    a sampler can output around a value depends on the value itself, so the low-order bits of
    the result can reveal the exact input and the textbook guarantee fails in practice. Use
    this function for teaching plots; release counts with :func:`discrete_laplace`, whose
    output is an integer.

    """
    eps = check_epsilon(epsilon, "epsilon", allow_inf=True)
    delta = _check_sensitivity(sensitivity)
    check_noise_rate(eps, delta)
    shape = _shape_of_size(size)
    v = _as_array(value, "value")
    out_shape = (*shape, *v.shape)
    u = _uniforms(rng, uniforms, out_shape)
    if math.isinf(eps):
        out = np.broadcast_to(v, out_shape).copy()
    else:
        out = v + laplace_noise(u, scale=delta / eps)
    return float(out) if out.ndim == 0 else out


# ----------------------------------------------------------------------------------------------
# Discrete Laplace (two-sided geometric) mechanism
# ----------------------------------------------------------------------------------------------


def discrete_laplace(
    value: int | np.ndarray,
    *,
    epsilon: float,
    sensitivity: float = 1,
    rng: np.random.Generator | int | None = None,
    size: SizeLike = None,
    uniforms: np.ndarray | None = None,
) -> np.ndarray:
    """Return the integer ``value`` plus two-sided geometric (discrete Laplace) noise.

    The noise K has ``P(K = k) = tanh(a/2) · exp(-a·|k|)`` for every integer k, with
    ``a = epsilon / sensitivity`` (see :func:`discrete_laplace_pmf`).

    Parameters
    ----------
    value : int or array_like of int
        The exact integer answer (e.g. a count or a vector of class counts). Integer dtypes
        and integral floats (|x| ≤ 2**53) are accepted; 2.5, NaN, inf and bools are refused.
    epsilon : float
        Privacy parameter ε > 0. ``math.inf`` means *no noise: the non-private reference*.
    sensitivity : float, default 1
        L1 sensitivity Δ of the integer query (1 for a count; an integer in practice).
    rng : numpy.random.Generator or int
        Source of randomness.
    size : int or tuple of int, optional
        Number of independent draws; output shape ``(*size, *value.shape)``.
    uniforms : array, optional
        Instead of ``rng``: open uniforms of shape ``(*size, *value.shape, 2)`` (two per
        output), e.g. the keyed uniforms of a lazily released leaf.

    Returns
    -------
    numpy.ndarray or numpy.int64
        int64 samples; a numpy ``int64`` scalar when ``value`` is a scalar and ``size`` is
        None.

    Raises
    ------
    InvalidParameterError
        On a non-integer ``value``, an invalid ε, Δ, rng or size, or an ε/Δ below
        :data:`MIN_NOISE_RATE` (too small to sample accurately; see
        :func:`check_noise_rate`).

    Notes
    -----
    PRIVACY CLAIM: ε-differential privacy under add/remove-one-record neighbours for an
    integer-valued query with ``||f(x) - f(y)||_1 <= sensitivity``.

    SOURCE: Ghosh, Roughgarden & Sundararajan (2009), "Universally utility-maximizing privacy
    mechanisms" (the geometric mechanism); Canonne, Kamath & Steinke (2020), "The discrete
    Gaussian for differential privacy" (discrete Laplace, its sampling and its privacy).

    SAMPLING: the difference of two i.i.d. geometric variables on {0, 1, ...} with
    ``P(G >= g) = exp(-g·ε/Δ)``, each drawn by inversion ``floor(-log(U)/(ε/Δ))`` at an open
    uniform U on the 52-bit grid (:func:`discrete_laplace_noise`), is two-sided geometric
    with ratio ``q = exp(-ε/Δ)``. The output is an integer, so Mironov's attack on the
    low-order bits of a floating-point result does not apply. The inversion is exact up to
    the 2**-52 grid of U: every realised probability is within 2**-52 of the exact one,
    a total-variation distance of about ``(37/a + 2)·2**-52`` (``a = ε/Δ``), i.e. the release
    is ``(ε, δ)``-DP with ``δ ≤ (1 + e^ε)·TV`` — for small ε about 2e-8 at the smallest
    supported ``a = 2**-20``, 2e-11 at ``a = 1e-3`` and 3e-14 at ``a = ε = 1`` (Canonne et
    al. give an exact-arithmetic sampler).

    """
    eps = check_epsilon(epsilon, "epsilon", allow_inf=True)
    delta = _check_sensitivity(sensitivity)
    check_noise_rate(eps, delta)
    shape = _shape_of_size(size)
    v = _as_int_array(value, "value")
    out_shape = (*shape, *v.shape)
    u = _uniforms(rng, uniforms, (*out_shape, 2))
    out = v + discrete_laplace_noise(u, rate=eps / delta)
    out = np.asarray(out, dtype=np.int64)
    return out[()] if out.ndim == 0 else out


def discrete_laplace_pmf(
    k: int | np.ndarray, *, epsilon: float, sensitivity: float = 1
) -> np.ndarray | float:
    """Return the exact probability mass of the discrete Laplace noise at ``k``.

    ``P(K = k) = tanh(a/2) · exp(-a·|k|) = (1 - q)/(1 + q) · q**|k|`` with ``a = ε/Δ`` and
    ``q = exp(-a)``; equal to ``scipy.stats.dlaplace(a).pmf(k)``.

    Parameters
    ----------
    k : int or array_like
        Noise value(s). Non-integer values have probability 0; NaN is refused.
    epsilon : float
        Privacy parameter ε > 0; ``math.inf`` gives the point mass at 0 (no noise).
    sensitivity : float, default 1
        Sensitivity Δ > 0.

    Returns
    -------
    float or numpy.ndarray
        The probabilities, with the shape of ``k``.

    """
    eps = check_epsilon(epsilon, "epsilon", allow_inf=True)
    delta = _check_sensitivity(sensitivity)
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


# ----------------------------------------------------------------------------------------------
# Exponential mechanism
# ----------------------------------------------------------------------------------------------


def _em_rate(eps: float, delta: float, monotone: bool) -> float:
    """Return the multiplier of the utilities in the exponent: ε/(2Δ), or ε/Δ if monotone."""
    return eps / delta if monotone else eps / (2.0 * delta)


def exponential_mechanism(
    utilities: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator | int | None = None,
    size: SizeLike = None,
    monotone: bool = False,
    uniforms: np.ndarray | None = None,
) -> np.ndarray | int:
    """Choose a candidate index i with probability ∝ ``exp(ε·u_i / (2Δ))``.

    With ``monotone=True`` the weights are ``exp(ε·u_i / Δ)``.

    Parameters
    ----------
    utilities : array_like, shape (..., m)
        Utility (quality score) of each of the m candidates on the last axis; leading axes
        are independent problems. ``-inf`` means "never choose"; NaN and +inf are refused, as
        is a row with no finite entry.
    epsilon : float
        Privacy parameter ε > 0. ``math.inf`` means *no noise: the non-private reference*;
        an argmax is returned (ties broken uniformly at random, the ε → ∞ limit).
    sensitivity : float
        Sensitivity Δ > 0 of the utility: ``max_i |u_i(x) - u_i(y)|`` over neighbours.
    rng : numpy.random.Generator or int
        Source of randomness.
    size : int or tuple of int, optional
        Number of independent draws; output shape ``(*size, *utilities.shape[:-1])``.
    monotone : bool, default False
        Use ``exp(ε·u/Δ)``: valid only when, between any two neighbours, every utility moves
        in the same direction (all increase or all decrease), e.g. class counts when a
        record is added or removed.
    uniforms : array, optional
        Instead of ``rng``: open uniforms of shape ``(*size, *utilities.shape)`` (one per
        candidate and draw), e.g. the keyed uniforms of a lazily released leaf.

    Returns
    -------
    int or numpy.ndarray
        The chosen index (a Python int for 1-d utilities and ``size=None``), else an int64
        array of indices into the last axis.

    Raises
    ------
    InvalidParameterError
        On an invalid ε, Δ, rng or size, or NaN / +inf utilities.

    Notes
    -----
    PRIVACY CLAIM: ε-differential privacy under add/remove-one-record neighbours when every
    utility has sensitivity ≤ Δ; with ``monotone=True``, ε-DP only for monotone utilities.

    SOURCE: McSherry & Talwar (2007), "Mechanism design via differential privacy" (the
    factor 2 can be dropped for monotone utilities: Dwork & Roth 2014, "The Algorithmic
    Foundations of Differential Privacy", §3.4), as used by Friedman & Schuster (2010) §2,
    Definition 3, and by Fletcher & Islam (2017) Definition 4, eq. (2).

    NUMERICS: computed in log space. Utilities are shifted by their per-row maximum before
    the multiplication by ε/(2Δ), so every log-weight is ≤ 0 and no exp() is ever taken;
    the index is sampled by the Gumbel-max trick ``argmax_i (log w_i + G_i)`` with i.i.d.
    standard Gumbel ``G_i``. Utilities of order 1e300 therefore neither overflow nor give
    NaN: a gap that overflows becomes -inf, i.e. probability exactly 0 in float64.

    """
    eps = check_epsilon(epsilon, "epsilon", allow_inf=True)
    delta = _check_sensitivity(sensitivity)
    shape = _shape_of_size(size)
    u = _check_utilities(utilities)
    g = _uniforms(rng, uniforms, (*shape, *u.shape))
    logits = _scaled_logits(u, _em_rate(eps, delta, bool(monotone)))
    return _index_result(_gumbel_argmax(logits, g))


def exponential_probabilities(
    utilities: np.ndarray, *, epsilon: float, sensitivity: float, monotone: bool = False
) -> np.ndarray:
    """Return the exact output distribution of :func:`exponential_mechanism`.

    ``P(i) = exp(r·u_i) / Σ_j exp(r·u_j)`` with ``r = ε/(2Δ)`` (``ε/Δ`` if ``monotone``),
    computed as a stable softmax of the max-shifted log-weights.

    Parameters
    ----------
    utilities : array_like, shape (..., m)
        As for :func:`exponential_mechanism`.
    epsilon : float
        ε > 0; ``math.inf`` gives the uniform distribution over the maximisers.
    sensitivity : float
        Δ > 0.
    monotone : bool, default False
        Use ``r = ε/Δ``.

    Returns
    -------
    numpy.ndarray, shape (..., m)
        Probabilities; each row sums to 1.

    """
    eps = check_epsilon(epsilon, "epsilon", allow_inf=True)
    delta = _check_sensitivity(sensitivity)
    u = _check_utilities(utilities)
    return _softmax_from_logits(_scaled_logits(u, _em_rate(eps, delta, bool(monotone))))


# ----------------------------------------------------------------------------------------------
# Report One-Sided Noisy Arg-Max (= permute-and-flip)
# ----------------------------------------------------------------------------------------------


def report_noisy_max(
    utilities: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    rng: np.random.Generator | int | None = None,
    size: SizeLike = None,
    monotone: bool = True,
    uniforms: np.ndarray | None = None,
) -> np.ndarray | int:
    """Return the arg-max of the utilities after adding one-sided exponential noise to each.

    This is the Report One-Sided Noisy Arg-Max (ROSNAM) mechanism of the Fletcher (2021)
    addendum: ``argmax_i (u_i + E_i)`` with i.i.d. ``E_i ~ Exponential(scale=Δ/ε)`` for a
    monotone utility (e.g. class counts), or ``scale=2Δ/ε`` for a general one.

    Parameters
    ----------
    utilities : array_like, shape (..., m)
        Utilities on the last axis (e.g. the class counts of a leaf). ``-inf`` means never
        chosen; NaN and +inf are refused.
    epsilon : float
        ε > 0. ``math.inf`` means *no noise: the non-private reference*: an argmax, ties
        broken uniformly at random (the ε → ∞ limit of the mechanism).
    sensitivity : float, default 1.0
        Sensitivity Δ > 0 of each utility (1 for counts).
    rng : numpy.random.Generator or int
        Source of randomness.
    size : int or tuple of int, optional
        Number of independent draws; output shape ``(*size, *utilities.shape[:-1])``.
    monotone : bool, default True
        Noise scale Δ/ε (True; valid when all utilities move in the same direction between
        neighbours, as counts do) or 2Δ/ε (False; any utility of sensitivity Δ).
    uniforms : array, optional
        Instead of ``rng``: open uniforms of shape ``(*size, *utilities.shape)`` (one per
        candidate and draw), e.g. the keyed uniforms of a lazily released leaf.

    Returns
    -------
    int or numpy.ndarray
        Chosen index (Python int for 1-d utilities and ``size=None``) or int64 indices.

    Raises
    ------
    InvalidParameterError
        On an invalid ε, Δ, rng or size, or NaN / +inf utilities.

    Notes
    -----
    PRIVACY CLAIM: ε-differential privacy under add/remove-one-record neighbours, for
    utilities of sensitivity Δ (and, with ``monotone=True``, monotone utilities).

    SOURCE: Fletcher (2021), addendum to Fletcher & Islam (2017), §2, quoting Dwork & Roth
    (2014) Example 3.6. The mechanism is identical in distribution to permute-and-flip
    (McKenna & Sheldon 2020, "Permute-and-Flip: A new mechanism for differentially private
    selection", which proves it ε-DP and never worse than the exponential mechanism): Ding,
    Kifer, et al. (2021), "The Permute-and-Flip Mechanism is Identical to Report-Noisy-Max
    with Exponential Noise". It is *not* the same distribution as the softmax
    ``exp(ε·u/Δ)`` that the addendum's Table 6 prints (see
    :func:`report_noisy_max_probabilities`).

    NUMERICS: the noise is ``-(Δ/ε)·log(U)`` at open uniforms U (inversion), and ε/Δ must
    be at least :data:`MIN_NOISE_RATE` (:func:`check_noise_rate`). Utilities are shifted by
    their per-row maximum before the noise is added, so large counts do not swallow the
    noise's precision. Ties in the noisy values have
    probability 0 for finite utilities; ``argmax`` takes the first if one occurs.

    """
    eps = check_epsilon(epsilon, "epsilon", allow_inf=True)
    delta = _check_sensitivity(sensitivity)
    scale = delta / eps if monotone else 2.0 * delta / eps
    check_noise_rate(eps, scale * eps)
    shape = _shape_of_size(size)
    u = _check_utilities(utilities)
    g = _uniforms(rng, uniforms, (*shape, *u.shape))
    if math.isinf(eps):
        return _index_result(_gumbel_argmax(_scaled_logits(u, math.inf), g))
    return _index_result(np.argmax(_shifted(u) + _exponential_noise(g, scale), axis=-1))


def report_noisy_max_probabilities(
    utilities: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    monotone: bool = True,
) -> np.ndarray:
    """Return the exact output distribution of :func:`report_noisy_max`.

    Parameters
    ----------
    utilities : array_like, shape (..., m)
        As for :func:`report_noisy_max`.
    epsilon : float
        ε > 0; ``math.inf`` gives the uniform distribution over the maximisers.
    sensitivity : float, default 1.0
        Δ > 0.
    monotone : bool, default True
        Noise rate λ = ε/Δ (True) or ε/(2Δ) (False).

    Returns
    -------
    numpy.ndarray, shape (..., m)
        Probabilities; each row sums to 1.

    Notes
    -----
    With rate λ and ``a_j = exp(λ·(u_j - max u)) ∈ [0, 1]``, the probability that candidate
    i has the largest noisy utility is

    ``P(i) = ∫ f_i(x) ∏_{j≠i} F_j(x) dx = a_i · ∫_0^1 ∏_{j≠i} (1 - a_j·t) dt``

    (substitute ``t = exp(-λ·(x - max u))``; on ``t ∈ [0, 1]`` every factor lies in
    [0, 1], so there is no cancellation). The integrand is a polynomial of degree m - 1 in
    t, which Gauss–Legendre quadrature with ``m//2 + 1`` nodes integrates exactly; the
    result is therefore exact up to float64 rounding (≈1e-15), for any m. For two
    candidates with gap g it reduces to ``P(best) = 1 - exp(-λ·g)/2`` — e.g. counts (5, 10)
    at ε = 0.1: 0.697, against 0.622 for the softmax ``exp(ε·f)``.

    """
    eps = check_epsilon(epsilon, "epsilon", allow_inf=True)
    delta = _check_sensitivity(sensitivity)
    u = _check_utilities(utilities)
    rate = eps / delta if monotone else eps / (2.0 * delta)
    with np.errstate(under="ignore"):
        a = np.exp(_scaled_logits(u, rate))  # (..., m) in [0, 1], max exactly 1
    m = u.shape[-1]
    nodes, weights = np.polynomial.legendre.leggauss(m // 2 + 1)
    t = (nodes + 1.0) / 2.0  # nodes mapped from [-1, 1] to [0, 1]
    w = weights / 2.0
    factors = 1.0 - a[..., :, None] * t  # (..., m, n): 1 - a_j t
    ones = np.ones_like(factors[..., :1, :])
    with np.errstate(under="ignore"):
        left = np.concatenate([ones, np.cumprod(factors, axis=-2)[..., :-1, :]], axis=-2)
        right_rev = np.cumprod(factors[..., ::-1, :], axis=-2)
        right = np.concatenate([right_rev[..., -2::-1, :], ones], axis=-2)
        exclusive = left * right  # ∏_{j≠i} (1 - a_j t) at each node
        p = a * (exclusive @ w)
    return p / p.sum(axis=-1, keepdims=True)  # already sums to 1 up to rounding


# ----------------------------------------------------------------------------------------------
# Fletcher & Islam (2017) smooth-sensitivity exponential mechanism — WITHDRAWN
# ----------------------------------------------------------------------------------------------

NOT_PROVEN_MESSAGE = (
    "smooth_sensitivity_label is the Fletcher & Islam (2017) smooth-sensitivity exponential "
    "mechanism, withdrawn by the author's 2021 addendum as not proven private: its real "
    "privacy cost may be about twice epsilon (or more). It is kept for teaching and auditing "
    "only; use report_noisy_max for a mechanism with a proof."
)


def _majority_label_log_rate(counts: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Return (u, log r) for the FI 2017 mechanism on counts of shape (..., m).

    ``u`` is the 0/1 utility of FI eq. (7) (1 for every label tied at the maximum count) and
    ``log r = log(ε/2) + j·ε`` is the log of the exponent's multiplier ``ε / (2·e^{-jε})``,
    with ``j`` the gap between the two largest counts (0 when there is one label).
    """
    top = counts.max(axis=-1, keepdims=True)
    u = (counts == top).astype(np.float64)
    if counts.shape[-1] >= 2:
        part = np.partition(counts, counts.shape[-1] - 2, axis=-1)
        j = part[..., -1] - part[..., -2]
    else:
        j = np.zeros(counts.shape[:-1], dtype=np.int64)
    log_rate = math.log(eps / 2.0) + j.astype(np.float64) * eps
    return u, log_rate


def majority_label_smooth_sensitivity(counts: np.ndarray, *, epsilon: float) -> np.ndarray | float:
    """Return the FI (2017) smooth sensitivity ``S*(u, x) = exp(-j·ε)`` of the majority label.

    Parameters
    ----------
    counts : array_like of int, shape (..., m)
        Class counts of a leaf (non-negative integers) on the last axis.
    epsilon : float
        ε > 0 (finite); FI use the privacy budget itself as the smoothing parameter β.

    Returns
    -------
    float or numpy.ndarray
        ``exp(-j·ε)`` per row, j = (largest count) − (second largest count); 1 when j = 0.
        Reproduces FI Table 2 (e.g. j = 10, ε = 0.1 → 0.36788). Very large j·ε underflows
        to 0.0 here; the mechanism itself works with the logarithm and is unaffected.

    Notes
    -----
    SOURCE: Fletcher & Islam (2017) §4.1, Theorem 1, eqs. (8), (11)–(13). Computing this
    number is not a private release; it depends on the private counts.

    """
    eps = check_epsilon(epsilon, "epsilon")
    c = _as_int_array(counts, "counts", nonnegative=True)
    if c.ndim == 0 or c.shape[-1] == 0:
        raise InvalidParameterError(f"counts must have at least one class, got {counts!r}")
    _, log_rate = _majority_label_log_rate(c, eps)
    with np.errstate(under="ignore"):
        out = np.exp(math.log(eps / 2.0) - log_rate)  # = exp(-j ε)
    return float(out) if np.ndim(out) == 0 else out


def smooth_sensitivity_label(
    counts: np.ndarray,
    *,
    epsilon: float,
    rng: np.random.Generator | int | None = None,
    size: SizeLike = None,
    uniforms: np.ndarray | None = None,
) -> np.ndarray | int:
    """Return a leaf's "majority label" by the withdrawn FI (2017) smooth-sensitivity mechanism.

    NOT PROVEN PRIVATE — warns with :class:`dpviz.errors.NotProvenPrivateWarning` on every
    call. Kept so the workbook can show that an empirical audit catches it; the default leaf
    labeller is :func:`report_noisy_max`.

    Parameters
    ----------
    counts : array_like of int, shape (..., m)
        Class counts ``n_c`` of the leaf on the last axis (non-negative integers; integral
        floats accepted). Leading axes are independent leaves.
    epsilon : float
        The *claimed* ε > 0 (finite: ε = inf makes ``exp(-j·ε)`` undefined at j = 0).
    rng : numpy.random.Generator or int
        Source of randomness.
    size : int or tuple of int, optional
        Number of independent draws; output shape ``(*size, *counts.shape[:-1])``.
    uniforms : array, optional
        Instead of ``rng``: open uniforms of shape ``(*size, *counts.shape)``.

    Returns
    -------
    int or numpy.ndarray
        The chosen label index (Python int for 1-d counts and ``size=None``), else int64.

    Raises
    ------
    InvalidParameterError
        On invalid ε, rng, size or counts (negative, non-integer, NaN).

    Warns
    -----
    NotProvenPrivateWarning
        Always.

    Notes
    -----
    DEFINITION (Fletcher & Islam 2017, §4.1, Theorem 1 and Table 5 of the 2021 addendum).
    The utility is the 0/1 score of eq. (7), ``u(c, x) = 1`` if ``n_c = max_i n_i`` else 0
    (every label tied at the maximum scores 1, as the proof of Theorem 1 and the
    addendum's Table 5 say). Its smooth sensitivity, eqs. (8) and (13), is

    ``S*(u, x) = max_k exp(-k·ε)·S^k(x) = exp(-j·ε)``,  ``j = n_(1) - n_(2)``,

    the gap between the largest and second-largest counts, with the smoothing parameter
    of eq. (6) taken equal to the privacy budget ε (β = ε). S* replaces the global
    sensitivity Δ(u) = 1 in the exponential mechanism of Definition 4, eq. (2) (Algorithm
    2, line 25), keeping its factor 2:

    ``P(c) ∝ exp(ε·u(c, x) / (2·exp(-j·ε))) = exp((ε/2)·e^{j·ε}·u(c, x))``.

    So with k labels tied at the top and m labels in all, each top label has probability
    ``1 / (k + (m - k)·exp(-r))`` and every other label ``exp(-r) / (k + (m - k)·exp(-r))``,
    ``r = (ε/2)·e^{jε}``. This reading reproduces every "Original Pr(B)" of the addendum's
    Table 6 (e.g. counts 5, 10 at ε = 0.1 → 52.1%). Sampling uses the Gumbel-max trick on
    log-weights ``0`` / ``-r`` with ``log r = log(ε/2) + j·ε`` clipped at 709, so huge
    ``j·ε`` never overflows (``exp(-r)`` is then 0.0 exactly in float64).

    PRIVACY CLAIM: the paper claims ε-DP under add/remove-one-record neighbours (Theorem 1),
    but a smooth-sensitivity bound cannot simply replace the global sensitivity in the
    exponential mechanism (Nissim, Raskhodnikova & Smith 2007 calibrate *noise* to smooth
    sensitivity with specific distributions and β). The 2021 addendum withdraws the
    mechanism as not proven private and reports that its real cost may be about twice ε.
    The exact probabilities show the loss is in fact unbounded: with two labels, adding
    one record to the majority moves the gap from j to j + 1, and the minority label's
    probability ``1 / (1 + e^{r_j})`` drops by the factor
    ``(1 + e^{r_{j+1}}) / (1 + e^{r_j}) ≈ exp((ε/2)·e^{jε}·(e^ε - 1))``, which grows without
    limit in j (ε = 0.1, j = 60: a privacy loss of about 2.1, i.e. 21·ε).

    SOURCE: Fletcher & Islam (2017), "Differentially private random decision forests using
    smooth sensitivity", Expert Systems with Applications 78:16–31, §4.1; withdrawn in
    Fletcher (2021), addendum §1.

    """
    warnings.warn(NOT_PROVEN_MESSAGE, NotProvenPrivateWarning, stacklevel=2)
    eps = check_epsilon(epsilon, "epsilon")
    shape = _shape_of_size(size)
    c = _as_int_array(counts, "counts", nonnegative=True)
    if c.ndim == 0 or c.shape[-1] == 0:
        raise InvalidParameterError(f"counts must have at least one class, got {counts!r}")
    g = _uniforms(rng, uniforms, (*shape, *c.shape))
    logits = smooth_sensitivity_logits(c, epsilon=eps)
    return _index_result(_gumbel_argmax(logits, g))


def smooth_sensitivity_label_probabilities(counts: np.ndarray, *, epsilon: float) -> np.ndarray:
    """Return the exact output distribution of :func:`smooth_sensitivity_label`.

    Parameters
    ----------
    counts : array_like of int, shape (..., m)
        Class counts on the last axis.
    epsilon : float
        The claimed ε > 0 (finite).

    Returns
    -------
    numpy.ndarray, shape (..., m)
        ``P(c) = exp(r·u_c) / Σ_i exp(r·u_i)`` with ``r = (ε/2)·e^{jε}`` (see
        :func:`smooth_sensitivity_label`); each row sums to 1.

    Notes
    -----
    This function only computes probabilities (it releases nothing), so it does not warn.

    """
    eps = check_epsilon(epsilon, "epsilon")
    c = _as_int_array(counts, "counts", nonnegative=True)
    if c.ndim == 0 or c.shape[-1] == 0:
        raise InvalidParameterError(f"counts must have at least one class, got {counts!r}")
    with np.errstate(under="ignore"):
        q = np.exp(smooth_sensitivity_logits(c, epsilon=eps))
    return q / q.sum(axis=-1, keepdims=True)


def smooth_sensitivity_logits(counts: np.ndarray, *, epsilon: float) -> np.ndarray:
    """Return the log-weights of the FI (2017) mechanism: 0 for top labels, ``-r`` for others.

    ``r = (ε/2)·e^{jε}`` as in :func:`smooth_sensitivity_label` (``log r`` clipped at 709 so
    that huge ``j·ε`` cannot overflow). Shape ``(..., m)``, like ``counts``. Computing the
    weights releases nothing, so this does not warn; sampling from them does.
    """
    eps = check_epsilon(epsilon, "epsilon")
    c = _as_int_array(counts, "counts", nonnegative=True)
    u, log_rate = _majority_label_log_rate(c, eps)
    with np.errstate(under="ignore"):
        r = np.exp(np.minimum(log_rate, _LOG_FLOAT_MAX))[..., None]
    return np.where(u == 1.0, 0.0, -r)
