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


def check_random_state(
    random_state: object, name: str = "random_state", *, allow_none: bool = True
) -> np.random.Generator:
    """The one rule turning a seed into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : Generator, int, RandomState or None
        A Generator is returned as is; a non-negative int seeds a new one; a legacy
        ``RandomState`` contributes 128 bits to a new one; ``None`` (when ``allow_none``)
        seeds from the operating system's entropy (128 bits, ``default_rng()``) — never
        from a small searchable seed, because the seed of a release is a curator secret
        (``docs/privacy.md``).
    name : str
        The parameter's name, for the error message.
    allow_none : bool
        Whether ``None`` is accepted. Mechanisms refuse it: they never draw from
        unseeded state implicitly, so every result can be reproduced.

    Returns
    -------
    numpy.random.Generator
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise InvalidParameterError(
                f"{name} must be a non-negative int seed, got {random_state!r}"
            )
        return np.random.default_rng(int(random_state))
    if random_state is None and allow_none:
        return np.random.default_rng()
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32, size=4, dtype=np.uint64))
    allowed = "an int seed, a numpy.random.Generator" + (" or None" if allow_none else "")
    raise InvalidParameterError(f"{name} must be {allowed}, got {random_state!r}")


def check_bool(value: object, name: str) -> bool:
    """Return ``value`` as a Python bool if it is a bool or a numpy bool.

    Anything else is refused, in particular the strings ``"no"`` and ``"False"`` and the
    numbers 0 and 1, which Python would read as a truth value without a word.

    Parameters
    ----------
    value : object
        The candidate flag.
    name : str
        Parameter name used in the error message.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a ``bool`` or a ``numpy.bool_``.
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise InvalidParameterError(f"{name} must be True or False, got {value!r}")


#: The memory (bytes) an estimator may plan to use for the parts its parameters fix (trees,
#: centres, routing chunks): 2 GiB, a tenth of a 24 GiB machine shared by a notebook server.
#: :func:`check_memory` refuses settings whose estimate exceeds it, before any row is read.
MEMORY_BUDGET = 2 * 2**30


def check_memory(estimate: float, what: str, fix: str, budget: float = MEMORY_BUDGET) -> float:
    """Refuse a setting whose estimated memory exceeds ``budget`` (default :data:`MEMORY_BUDGET`).

    Parameters
    ----------
    estimate : float
        Estimated bytes.
    what : str
        The setting and how the estimate is made, naming the user's values
        (e.g. ``"n_trees=1000000000 trees (about 1 KiB + 40 B per attribute each)"``).
    fix : str
        How to bring the estimate under the budget.
    budget : float
        The limit in bytes.

    Returns
    -------
    float
        ``estimate``, if within the budget.

    Raises
    ------
    InvalidParameterError
        With the estimate, the budget and ``fix``.
    """
    if estimate > budget:
        raise InvalidParameterError(
            f"{what} need about {estimate / 2**30:.3g} GiB of memory, over the budget of "
            f"{budget / 2**30:.3g} GiB (dpviz.validation.MEMORY_BUDGET): {fix}"
        )
    return estimate
