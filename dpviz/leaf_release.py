"""Lazy releases of per-leaf statistics of random trees: noisy counts and noisy labels.

A random tree's leaves are a public set fixed before any row is read (the tree
structure comes from the Domain), so releasing one noisy statistic per leaf is
one histogram-style query: one row changes one leaf's statistics. These objects
are what :meth:`dpviz.privacy.PrivateTable.noisy_leaf_counts` and
:meth:`~dpviz.privacy.PrivateTable.noisy_leaf_labels` return.

How a release is made (:meth:`NoisyLeafCounts.release`, :meth:`NoisyLeafLabels.release`):

* every leaf that holds a training row gets its noisy statistic **at release time**,
  drawn with fresh uniforms from the noise generator by the mechanism's own sampler
  (:mod:`dpviz.mechanisms`); only that *noisy* value is stored — the exact counts are
  dropped;
* every other leaf (exact count 0) gets the same mechanism applied to zero counts with
  uniforms from a keyed pseudorandom function (SipHash-2-4 under a fresh 128-bit
  secret key, :func:`dpviz.keyed.secret_uniforms`), computed on demand, so a tree with
  10^8 leaves is never materialized and looking a leaf up twice gives the same answer.

The map from every leaf to its noisy statistic therefore has the distribution of a
fully materialized release with independent noise per leaf (to any observer who
cannot break SipHash), and the release uses the same sampler in both cases.

Curator secrets. The object keeps two things that are *not* part of the release:
the set of visited leaves (which leaves hold a row — the pruning leak of JPW Fig. 3)
and the secret key (with which the noise of unvisited leaves can be recomputed, so
that an unvisited leaf can be told from a visited one). Publish lookups
(predictions) or an export of the materialized release, never the object: pickling
it warns :class:`~dpviz.errors.PrivacyLeakWarning` (see ``docs/privacy.md``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from dpviz import keyed, mechanisms
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning, PrivacyLeakWarning
from dpviz.mechanisms import NOT_PROVEN_MESSAGE

__all__ = [
    "FLOAT_LAPLACE_MESSAGE",
    "SECRET_MESSAGE",
    "NoisyLeafCounts",
    "NoisyLeafLabels",
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


def _visited_counts(
    leaf_keys: np.ndarray, labels: np.ndarray, n_classes: int
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct visited leaves (sorted) and their exact class counts (m, T)."""
    keys, inverse = np.unique(np.asarray(leaf_keys, dtype=np.uint64), return_inverse=True)
    labels = np.asarray(labels, dtype=np.int64)
    counts = np.bincount(
        inverse.ravel() * n_classes + labels, minlength=len(keys) * n_classes
    ).reshape(len(keys), n_classes)
    return keys, counts


class _LeafRelease:
    """Shared state of a lazy per-leaf release: stored noisy values of the visited leaves.

    Subclasses define ``MECHANISMS``, ``_uniforms_per_leaf`` and ``_apply`` (the mechanism
    applied to exact counts with given uniforms, through :mod:`dpviz.mechanisms`).
    """

    MECHANISMS: tuple[str, ...] = ()

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
        self._check_mechanism(mechanism)
        self._visited = np.asarray(visited, dtype=np.uint64)
        self._values = values
        self._secret = secret
        self.epsilon = epsilon
        self.mechanism = mechanism
        self.n_classes = n_classes

    @classmethod
    def _check_mechanism(cls, mechanism: str) -> None:
        if mechanism not in cls.MECHANISMS:
            raise InvalidParameterError(
                f"mechanism must be one of {cls.MECHANISMS}, got {mechanism!r}"
            )

    @classmethod
    def check(cls, epsilon: float, mechanism: str) -> None:
        """Refuse an unknown mechanism or an ε its sampler cannot serve (before any charge)."""
        cls._check_mechanism(mechanism)

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
        """Release the statistic of every leaf from the rows' leaves and labels.

        Parameters
        ----------
        leaf_keys : array of uint64
            The leaf reached by each private row.
        labels : array of int
            Each private row's class code.
        n_classes : int
            Number of classes (public).
        epsilon : float
            ε of the release (``inf``: the exact, non-private reference).
        mechanism : str
            One of ``MECHANISMS``.
        rng : numpy.random.Generator or None
            The (secret) noise generator: fresh uniforms for the visited leaves and the
            secret key of the others. Unused (may be None) at ε = inf.
        """
        cls.check(epsilon, mechanism)
        cls._warn_if_not_proven(epsilon, mechanism)
        visited, counts = _visited_counts(leaf_keys, labels, n_classes)
        if math.isinf(epsilon) and mechanism in getattr(cls, "_DETERMINISTIC_AT_INF", ()):
            return cls(visited, counts, n_classes, epsilon=epsilon, mechanism=mechanism,
                       secret=None)
        if rng is None:
            raise InvalidParameterError("a release at finite ε needs a noise generator (rng)")
        secret = keyed.new_secret_key(rng)
        fresh = mechanisms.open_uniforms(rng, (len(visited), cls._uniforms_per_leaf(n_classes)))
        values = cls._apply(counts, fresh, epsilon=epsilon, mechanism=mechanism)
        return cls(visited, values, n_classes, epsilon=epsilon, mechanism=mechanism,
                   secret=secret)

    @classmethod
    def _warn_if_not_proven(cls, epsilon: float, mechanism: str) -> None:
        """Warn NotProvenPrivateWarning for an option without a privacy proof (subclasses)."""

    @staticmethod
    def _uniforms_per_leaf(n_classes: int) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    @staticmethod
    def _apply(
        counts: np.ndarray, uniforms: np.ndarray, *, epsilon: float, mechanism: str
    ) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def _lookup(self, leaf_keys: np.ndarray) -> np.ndarray:
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
            if self._secret is None:  # ε = inf: an unvisited leaf's exact statistic
                out[miss] = self._apply(zeros, None, epsilon=self.epsilon,
                                        mechanism=self.mechanism)
            else:
                u = keyed.secret_uniforms(
                    self._secret, leaf_keys[miss], self._uniforms_per_leaf(self.n_classes)
                )
                out[miss] = self._apply(zeros, u, epsilon=self.epsilon,
                                        mechanism=self.mechanism)
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
    """Noisy class-count vectors of every leaf of a random tree (JPW Fig. 5), computed lazily.

    Privacy claim: the vector of all leaves' class counts has L1 sensitivity 1
    under add/remove one row (JPW Theorem 3), so adding independent discrete
    Laplace noise with P(k) ∝ exp(−ε|k|) to every component is ε-DP
    (:func:`dpviz.mechanisms.discrete_laplace`, up to its documented float-rounding
    δ). Empty leaves get pure noise like the others. ``mechanism="laplace"`` (the
    paper's continuous Laplace) is NOT PROVEN PRIVATE in floating point and warns
    :class:`~dpviz.errors.NotProvenPrivateWarning` (Mironov 2012).

    Build with :meth:`release` (or :meth:`dpviz.privacy.PrivateTable.noisy_leaf_counts`).
    Calling the object with leaf keys returns their noisy counts, shape (m, T).
    """

    MECHANISMS = ("discrete_laplace", "laplace")
    _DETERMINISTIC_AT_INF = MECHANISMS

    @classmethod
    def check(cls, epsilon: float, mechanism: str) -> None:
        """Refuse an unknown mechanism or an ε below the samplers' minimum."""
        super().check(epsilon, mechanism)
        mechanisms.check_noise_rate(epsilon, 1.0, what="epsilon of the leaf-count release")

    @classmethod
    def _warn_if_not_proven(cls, epsilon: float, mechanism: str) -> None:
        if mechanism == "laplace" and not math.isinf(epsilon):
            warnings.warn(FLOAT_LAPLACE_MESSAGE, NotProvenPrivateWarning, stacklevel=4)

    @staticmethod
    def _uniforms_per_leaf(n_classes: int) -> int:
        return 2 * n_classes

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

    def __call__(self, leaf_keys: np.ndarray) -> np.ndarray:
        """Noisy class counts (m, T) of the given leaves (any leaves, visited or not)."""
        return self._lookup(leaf_keys)

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
    """A private label for every leaf of a random tree (FI Alg. 2 line 25), computed lazily.

    Mechanisms (``mechanism``), each sampled by its function in :mod:`dpviz.mechanisms`:

    ``"rosnam"`` (default)
        Report One-Sided Noisy Arg-Max (FI 2021 addendum;
        :func:`~dpviz.mechanisms.report_noisy_max`): argmax over classes of
        count + Exponential(scale 1/ε). Class counts are monotone with
        sensitivity 1, so this is ε-DP (McKenna & Sheldon 2020 prove it as
        permute-and-flip; Ding et al. 2021 show the two are the same
        distribution). An empty leaf gets a uniformly random label.
    ``"exponential"``
        FI 2017's 0/1 utility (1 for the majority labels) with its *global*
        sensitivity 1 (:func:`~dpviz.mechanisms.exponential_mechanism`):
        P(c) ∝ exp(ε·u_c / 2). ε-DP (McSherry & Talwar 2007), but the 0/1
        utility wastes the counts (FI Fig. 4's "global sensitivity").
    ``"smooth_sensitivity"``
        FI 2017 §4.1 (:func:`~dpviz.mechanisms.smooth_sensitivity_label`): the
        same utility with the smooth sensitivity e^{−jε} in place of Δ. NOT
        PROVEN PRIVATE (withdrawn by the 2021 addendum); warns
        :class:`~dpviz.errors.NotProvenPrivateWarning`. Kept for the audit lesson.

    Build with :meth:`release` (or :meth:`dpviz.privacy.PrivateTable.noisy_leaf_labels`);
    calling the object with leaf keys returns their label codes.
    """

    MECHANISMS = ("rosnam", "exponential", "smooth_sensitivity")

    @classmethod
    def check(cls, epsilon: float, mechanism: str) -> None:
        """Refuse an unknown mechanism or an ε below the sampler's minimum."""
        super().check(epsilon, mechanism)
        if mechanism == "rosnam":
            mechanisms.check_noise_rate(epsilon, 1.0, what="epsilon of the leaf-label release")

    @classmethod
    def _warn_if_not_proven(cls, epsilon: float, mechanism: str) -> None:
        if mechanism == "smooth_sensitivity":
            warnings.warn(NOT_PROVEN_MESSAGE, NotProvenPrivateWarning, stacklevel=4)

    @staticmethod
    def _uniforms_per_leaf(n_classes: int) -> int:
        return n_classes

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

    def __call__(self, leaf_keys: np.ndarray) -> np.ndarray:
        """The private label code of each given leaf (any leaves, visited or not)."""
        return self._lookup(leaf_keys)
