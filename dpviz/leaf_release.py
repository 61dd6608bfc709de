"""Lazy releases of per-leaf statistics of random trees: noisy counts and noisy labels.

A leaf holding a row gets its noisy statistic from fresh uniforms of the noise generator;
every other leaf, the same mechanism on zero counts with uniforms from SipHash-2-4 under a
secret key (:func:`dpviz.keyed.secret_uniforms`), computed on demand: the law of a fully
materialized release (docs/privacy.md §8.1). The visited leaves and the key are curator
secrets: pickling a finite-ε release warns :class:`~dpviz.errors.PrivacyLeakWarning`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from dpviz import keyed, mechanisms
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning, PrivacyLeakWarning
from dpviz.mechanisms import NOT_PROVEN_MESSAGE

__all__ = [
    "FLOAT_LAPLACE_MESSAGE", "SECRET_MESSAGE", "NoisyLeafCounts", "NoisyLeafLabels",
    "SummedLeafCounts",
]

SECRET_MESSAGE = (
    "this object holds curator secrets of a lazy differentially private release (the set of "
    "leaves that hold training rows and the secret key of the other leaves' noise); sharing "
    "it is not covered by the privacy claim. Share predictions or the model's "
    "export_release() instead (docs/privacy.md)."
)

FLOAT_LAPLACE_MESSAGE = (
    "noise='laplace' adds floating-point Laplace noise to counts: its low-order bits encode "
    "the exact count (Mironov, CCS 2012), so the release is NOT PROVEN PRIVATE in float64 — "
    "an audit finds an unbounded privacy loss. It is kept to teach the attack; use the "
    "default 'discrete_laplace' for a release with a proof."
)


def unique_inverse(
    keys: np.ndarray | tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` by hashing (pandas), O(n) for few distinct keys.

    ``keys`` may come grouped, as (leaves, each row's index into them): then O(n + leaves).
    """
    if isinstance(keys, tuple):
        leaves, index = keys
        used = np.flatnonzero(np.bincount(index, minlength=len(leaves)))
        order = used[np.argsort(leaves[used])]
        if len(order) > 1 and not (np.diff(leaves[order]) > 0).all():  # two leaves, one key
            return unique_inverse(leaves[index])
        rank = np.empty(len(leaves), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return leaves[order], rank[index]
    codes, distinct = pd.factorize(keys)
    order = np.argsort(distinct)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[order] = np.arange(len(distinct))
    return distinct[order], rank[codes]


class _LeafRelease:
    """A lazy per-leaf release: stored noisy values of the visited leaves, keyed noise elsewhere.

    Subclasses define the class attributes below and ``_apply`` (the mechanism applied to
    exact counts with given uniforms, through :mod:`dpviz.mechanisms`).
    """

    MECHANISMS: tuple[str, ...] = ()
    _DETERMINISTIC_AT_INF: tuple[str, ...] = ()  # mechanisms needing no randomness at ε = inf
    _RATE_CHECKED: tuple[str, ...] = ()  # mechanisms whose sampler has a smallest ε
    _NOT_PROVEN: ClassVar[dict[str, str]] = {}  # mechanism -> its NotProvenPrivateWarning message
    _WHAT = ""  # the release's name in messages
    _UNIFORMS_PER_CLASS = 1

    def __init__(
        self,
        visited: np.ndarray,
        values: np.ndarray,
        n_classes: int,
        *,
        epsilon: float,
        mechanism: str,
        secret: np.ndarray | None,
    ) -> None:
        self.check(epsilon, mechanism)
        self._visited = np.asarray(visited, dtype=np.uint64)
        self._values = values
        self._secret = secret
        self.epsilon = epsilon
        self.mechanism = mechanism
        self.n_classes = n_classes

    @classmethod
    def check(cls, epsilon: float, mechanism: str) -> None:
        """Refuse an unknown mechanism or an ε its sampler cannot serve (before any charge)."""
        if mechanism not in cls.MECHANISMS:
            raise InvalidParameterError(
                f"mechanism must be one of {cls.MECHANISMS}, got {mechanism!r}"
            )
        if mechanism in cls._RATE_CHECKED:
            mechanisms.check_noise_rate(epsilon, 1.0, what=f"epsilon of the {cls._WHAT} release")

    @classmethod
    def release(
        cls,
        leaf_keys: np.ndarray,
        labels: np.ndarray,
        n_classes: int,
        *,
        epsilon: float,
        mechanism: str,
        rng: np.random.Generator | None,
    ) -> Any:
        """Release every leaf's statistic from the rows' leaf keys and class codes (rng: secret)."""
        cls.check(epsilon, mechanism)
        exact = math.isinf(epsilon) and mechanism in cls._DETERMINISTIC_AT_INF
        if mechanism in cls._NOT_PROVEN and not exact:
            warnings.warn(cls._NOT_PROVEN[mechanism], NotProvenPrivateWarning, stacklevel=3)
        visited, inverse = unique_inverse(
            leaf_keys if isinstance(leaf_keys, tuple) else np.asarray(leaf_keys, dtype=np.uint64))
        counts = np.bincount(
            inverse.ravel() * n_classes + np.asarray(labels, dtype=np.int64),
            minlength=len(visited) * n_classes,
        ).reshape(len(visited), n_classes)
        if exact:
            return cls(visited, counts, n_classes, epsilon=epsilon, mechanism=mechanism,
                       secret=None)
        if rng is None:
            raise InvalidParameterError("a release at finite ε needs a noise generator (rng)")
        secret = keyed.new_secret_key(rng)
        fresh = mechanisms.open_uniforms(rng, (len(visited), cls._UNIFORMS_PER_CLASS * n_classes))
        values = cls._apply(counts, fresh, epsilon=epsilon, mechanism=mechanism)
        return cls(visited, values, n_classes, epsilon=epsilon, mechanism=mechanism,
                   secret=secret)

    def __call__(self, leaf_keys: np.ndarray) -> np.ndarray:
        """The released value of each given leaf (visited: stored; others: keyed noise)."""
        leaf_keys = np.asarray(leaf_keys, dtype=np.uint64)
        visited = self._visited
        pos = np.minimum(np.searchsorted(visited, leaf_keys), max(len(visited) - 1, 0))
        hit = (visited[pos] == leaf_keys) if len(visited) else np.zeros(len(leaf_keys), bool)
        out = np.empty((len(leaf_keys), *self._values.shape[1:]), dtype=self._values.dtype)
        out[hit] = self._values[pos[hit]]
        miss = ~hit
        if miss.any():
            zeros = np.zeros((int(miss.sum()), self.n_classes), dtype=np.int64)
            u = None if self._secret is None else keyed.secret_uniforms(  # None: ε = inf, exact
                self._secret, leaf_keys[miss], self._UNIFORMS_PER_CLASS * self.n_classes)
            out[miss] = self._apply(zeros, u, epsilon=self.epsilon, mechanism=self.mechanism)
        return out

    @property
    def n_visited(self) -> int:
        """Number of leaves holding at least one training row (a curator secret: do not publish)."""
        return len(self._visited)

    def __getstate__(self) -> dict[str, Any]:
        """Pickling (or deep-copying) a finite-ε release warns: the object holds secrets."""
        if self._secret is not None:
            warnings.warn(SECRET_MESSAGE, PrivacyLeakWarning, stacklevel=2)
        return self.__dict__.copy()


class NoisyLeafCounts(_LeafRelease):
    """Noisy class counts (m, T) of every leaf of a random tree (JPW Fig. 5), computed lazily.

    ε-DP in the rows (add/remove one): L1 sensitivity 1 (JPW Theorem 3), discrete Laplace
    noise; argument: docs/privacy.md §8.1. ``mechanism="laplace"`` (float) is not proven
    private and warns.
    """

    MECHANISMS = ("discrete_laplace", "laplace")
    _DETERMINISTIC_AT_INF = _RATE_CHECKED = MECHANISMS
    _NOT_PROVEN: ClassVar[dict[str, str]] = {"laplace": FLOAT_LAPLACE_MESSAGE}
    _WHAT = "leaf-count"
    _UNIFORMS_PER_CLASS = 2

    @staticmethod
    def _apply(
        counts: np.ndarray, uniforms: np.ndarray | None, *, epsilon: float, mechanism: str
    ) -> np.ndarray:
        if math.isinf(epsilon):
            return counts.astype(np.float64) if mechanism == "laplace" else counts
        m, t = counts.shape
        if mechanism == "discrete_laplace":
            return mechanisms.discrete_laplace(
                counts, epsilon=epsilon, uniforms=uniforms.reshape(m, t, 2)
            ).reshape(m, t)
        return np.asarray(
            mechanisms.laplace(counts, epsilon=epsilon, uniforms=uniforms[:, :t])
        ).reshape(m, t)

    def add(self, other: NoisyLeafCounts) -> SummedLeafCounts:
        """The sum of two releases on the same tree (JPW §V-B step 4: add the leaf vectors)."""
        return SummedLeafCounts((self, other))


class SummedLeafCounts:
    """The sum of several :class:`NoisyLeafCounts` releases (post-processing: no extra cost)."""

    def __init__(self, parts: tuple[NoisyLeafCounts | SummedLeafCounts, ...]) -> None:
        self.parts = parts
        self.n_classes = parts[0].n_classes

    def __call__(self, leaf_keys: np.ndarray) -> np.ndarray:
        """Summed noisy class counts (m, T) of the given leaves."""
        return sum(p(leaf_keys) for p in self.parts)

    def add(self, other: NoisyLeafCounts) -> SummedLeafCounts:
        """Add one more release."""
        return SummedLeafCounts((*self.parts, other))


class NoisyLeafLabels(_LeafRelease):
    """A private label code for every leaf of a random tree (FI Alg. 2 line 25), lazily.

    ``mechanism``: ``"rosnam"`` (default), Report One-Sided Noisy Arg-Max on the class
    counts, ε-DP; ``"exponential"``, FI 2017's 0/1 majority utility with global sensitivity
    1, ε-DP; ``"smooth_sensitivity"``, FI 2017 §4.1, NOT PROVEN PRIVATE (warns). Arguments:
    docs/privacy.md §8.1.
    """

    MECHANISMS = ("rosnam", "exponential", "smooth_sensitivity")
    _RATE_CHECKED = ("rosnam",)
    _NOT_PROVEN: ClassVar[dict[str, str]] = {"smooth_sensitivity": NOT_PROVEN_MESSAGE}
    _WHAT = "leaf-label"

    @staticmethod
    def _apply(
        counts: np.ndarray, uniforms: np.ndarray | None, *, epsilon: float, mechanism: str
    ) -> np.ndarray:
        if len(counts) == 0:
            return np.zeros(0, dtype=np.int64)
        if mechanism == "rosnam":
            out = mechanisms.report_noisy_max(
                counts, epsilon=epsilon, sensitivity=1, monotone=True, uniforms=uniforms
            )
        elif mechanism == "exponential":
            top = (counts == counts.max(axis=1, keepdims=True)).astype(np.float64)
            out = mechanisms.exponential_mechanism(
                top, epsilon=epsilon, sensitivity=1, uniforms=uniforms
            )
        else:
            with warnings.catch_warnings():  # warned once, when the release was made
                warnings.simplefilter("ignore", NotProvenPrivateWarning)
                out = mechanisms.smooth_sensitivity_label(
                    counts, epsilon=epsilon, uniforms=uniforms
                )
        return np.atleast_1d(np.asarray(out, dtype=np.int64))
