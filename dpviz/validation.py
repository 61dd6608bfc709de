"""Checks of public parameters, shared by every module.

Each check returns the validated value (converted to a plain Python number) or
raises :class:`dpviz.errors.InvalidParameterError` naming the parameter and the value.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from dpviz.errors import InvalidParameterError


def check_epsilon(value: object, name: str = "epsilon", *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float if it is a valid privacy parameter ε.

    Parameters
    ----------
    value : object
        The candidate ε. Must be a real number, finite and strictly positive.
    name : str
        Parameter name used in the error message.
    allow_inf : bool
        Accept ``math.inf``, documented wherever it is used as "no noise: the
        non-private reference".

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a real number, is NaN, is ≤ 0, or is infinite while
        ``allow_inf`` is false.

    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a positive real number, got {value!r}")
    v = float(value)
    if math.isnan(v) or v <= 0:
        raise InvalidParameterError(f"{name} must be > 0, got {value!r}")
    if math.isinf(v) and not allow_inf:
        raise InvalidParameterError(
            f"{name} must be finite, got {value!r} (ε = inf is only accepted where it is "
            "documented as the non-private reference)"
        )
    return v


def check_positive(value: object, name: str, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float if it is a finite real number > 0 (or ≥ 0)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise InvalidParameterError(f"{name} must be a finite number {bound}, got {value!r}")
    return v


def check_int(value: object, name: str, *, minimum: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer (not bool) ≥ ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if minimum is not None and v < minimum:
        raise InvalidParameterError(f"{name} must be >= {minimum}, got {value!r}")
    return v


def check_probability(value: object, name: str) -> float:
    """Return ``value`` as a float if it lies in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a probability in [0, 1], got {value!r}")
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise InvalidParameterError(f"{name} must be a probability in [0, 1], got {value!r}")
    return v


def check_rng(rng: object, name: str = "rng") -> np.random.Generator:
    """Return a :class:`numpy.random.Generator`.

    ``rng`` may be a Generator (returned as is) or an int seed (a new Generator).
    ``None`` is refused: dpviz never draws from global or unseeded state
    implicitly, so every result can be reproduced.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise InvalidParameterError(
        f"{name} must be a numpy.random.Generator or an int seed, got {rng!r}"
    )
