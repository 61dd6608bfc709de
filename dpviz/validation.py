"""Checks of public parameters: each returns the value or raises ``InvalidParameterError``."""

from __future__ import annotations

import math
import numbers
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpviz.errors import InvalidParameterError


def is_real(value: object) -> bool:
    """True for a real number that is not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_epsilon(value: object, name: str = "epsilon", *, allow_inf: bool = False) -> float:
    """ε as a float: a real number > 0, finite unless ``allow_inf`` (the non-private reference)."""
    if not is_real(value):
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
    if not is_real(value):
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


def check_option(value: Any, options: Sequence[Any], name: str) -> Any:
    """``value`` if it is one of ``options``, else InvalidParameterError naming ``name``."""
    if value not in options:
        raise InvalidParameterError(f"{name} must be one of {list(options)}, got {value!r}")
    return value


def check_probability(value: object, name: str) -> float:
    """Return ``value`` as a float if it lies in [0, 1]."""
    if not is_real(value) or not 0 <= value <= 1:
        raise InvalidParameterError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


#: Bits of entropy a seed needs to key a release that is published (docs/privacy.md §3).
SEED_BITS = 128


def fresh_seed() -> int:
    """A new seed of :data:`SEED_BITS` (128) bits from the operating system (:mod:`secrets`).

    For a release to publish whose seed must be recorded (to refit or audit it): a small int
    is found by trying every seed against the release; keep this one as secret as the data.
    ``random_state=None`` draws as much entropy without recording it.
    """
    return secrets.randbits(SEED_BITS)


def check_random_state(
    random_state: object, name: str = "random_state", *, allow_none: bool = True,
    generators: bool = True,
) -> np.random.Generator:
    """The one rule turning a seed into a :class:`numpy.random.Generator`.

    A non-negative int seeds a new one; ``None`` (if ``allow_none``) seeds from 128 bits of OS
    entropy: a seed is a curator secret (docs/privacy.md §3). A Generator is used as is, a
    legacy ``RandomState`` seeds a new one from its draws, only where ``generators``: a noise
    source used in place (``PrivateTable``'s ``rng``, the mechanisms). An estimator's
    ``random_state`` is a parameter, which scikit-learn's ``clone`` deep-copies: every copy
    of a generator would draw the same noise, so the estimators refuse them.
    """
    if isinstance(random_state, np.random.Generator | np.random.RandomState) and not generators:
        raise InvalidParameterError(
            f"{name} must be an int seed or None, got a {type(random_state).__name__}: "
            "scikit-learn's clone (cross_val_score, GridSearchCV) copies a generator in its "
            "state, so every copy would draw the same noise and two releases on overlapping "
            "rows would reveal a row. Pass None (fresh OS entropy at every fit) or an int seed "
            "of your own per release, e.g. dpviz.fresh_seed() (docs/privacy.md §3)"
        )
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
    allowed = "an int seed" + (", a numpy.random.Generator" if generators else "") + (
        " or None" if allow_none else "")
    raise InvalidParameterError(f"{name} must be {allowed}, got {random_state!r}")


def check_bool(value: object, name: str) -> bool:
    """``value`` as a bool; anything but a (numpy) bool is refused, e.g. ``"False"`` or 0."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise InvalidParameterError(f"{name} must be True or False, got {value!r}")


#: Bytes an estimator may plan for what its parameters fix (trees, centres, routing chunks):
#: 2 GiB, a tenth of a 24 GiB machine shared by a notebook server (:func:`check_memory`).
MEMORY_BUDGET = 2 * 2**30


def check_memory(estimate: float, what: str, fix: str, budget: float = MEMORY_BUDGET) -> float:
    """Return ``estimate`` (bytes), or refuse it above ``budget`` naming ``what`` and ``fix``."""
    if estimate > budget:
        raise InvalidParameterError(
            f"{what} need about {estimate / 2**30:.3g} GiB of memory, over the budget of "
            f"{budget / 2**30:.3g} GiB (dpviz.validation.MEMORY_BUDGET): {fix}"
        )
    return estimate
