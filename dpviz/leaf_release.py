"""Lazy releases of per-leaf statistics of random trees: noisy counts and noisy labels.

A random tree's leaves are a public set fixed before any row is read (the tree
structure comes from the Domain), so releasing one noisy statistic per leaf is
one histogram-style query: one row changes one leaf's statistics. These objects
are what :meth:`dpviz.privacy.PrivateTable.noisy_leaf_counts` and
:meth:`~dpviz.privacy.PrivateTable.noisy_leaf_labels` return.

Laziness: only leaves that the training rows visit are stored (their exact
statistics, combined with noise on lookup); every other leaf has exact count 0
and its noise is computed on demand. The noise of leaf ``k`` is a pure function
of ``(noise_key, k)`` (:mod:`dpviz.keyed`), so the release — the map from every
leaf to its noisy statistic — has exactly the distribution of a fully
materialized one, and looking a leaf up twice gives the same answer. The
stored set of visited leaves is internal state, like the private rows inside a
``PrivateTable``: publish the lookups, never the arrays.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from dpviz import keyed
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.mechanisms import NOT_PROVEN_MESSAGE, smooth_sensitivity_logits

__all__ = [
    "NoisyLeafCounts",
    "NoisyLeafLabels",
    "SummedLeafCounts",
    "leaf_count_noise",
    "leaf_labels",
]

_NOISE_STREAM = 101


def leaf_count_noise(
    keys: np.ndarray, n_classes: int, *, epsilon: float, mechanism: str
) -> np.ndarray:
    """Keyed noise for the class counts of leaves with noise keys ``keys``: shape (m, T).

    ``"discrete_laplace"``: two-sided geometric, P(k) ∝ e^{−ε|k|}, as the difference
    of two Geometric(1 − e^{−ε}) variables drawn by inversion,
    ⌊log U / log e^{−ε}⌋. ``"laplace"``: Laplace(1/ε) by inversion. ε = inf: zeros.
    """
    keys = np.asarray(keys, dtype=np.uint64)
    m, t = len(keys), n_classes
    if math.isinf(epsilon):
        return np.zeros((m, t), dtype=np.int64 if mechanism == "discrete_laplace" else float)
    if mechanism == "discrete_laplace":
        u = keyed.uniforms(keys, _NOISE_STREAM, 2 * t)
        g = np.floor(np.log(u) / -epsilon).astype(np.int64)
        return g[:, :t] - g[:, t:]
    u = keyed.uniforms(keys, _NOISE_STREAM, t)
    return -np.sign(u - 0.5) * np.log1p(-2.0 * np.abs(u - 0.5)) / epsilon


def leaf_labels(
    counts: np.ndarray, keys: np.ndarray, *, epsilon: float, mechanism: str
) -> np.ndarray:
    """Keyed private label of leaves with exact class counts ``counts`` (m, T) and noise keys.

    See :class:`NoisyLeafLabels` for the mechanisms and their privacy claims.
    """
    counts = np.asarray(counts)
    u = keyed.uniforms(np.asarray(keys, dtype=np.uint64), _NOISE_STREAM, counts.shape[1])
    if mechanism == "rosnam":
        if math.isinf(epsilon):
            return np.argmax(counts - u * 1e-3, axis=1)  # ties broken at random
        return np.argmax(counts - np.log(u) / epsilon, axis=1)
    gumbel = -np.log(-np.log(u))
    if mechanism == "exponential":
        top = counts == counts.max(axis=1, keepdims=True)
        if math.isinf(epsilon):
            return np.argmax(np.where(top, gumbel, -np.inf), axis=1)
        return np.argmax(epsilon * top / 2.0 + gumbel, axis=1)
    if mechanism == "smooth_sensitivity":
        return np.argmax(smooth_sensitivity_logits(counts, epsilon=epsilon) + gumbel, axis=1)
    raise InvalidParameterError(f"unknown leaf mechanism {mechanism!r}")


class _LeafTable:
    """Exact per-leaf class counts of the visited leaves, looked up by leaf key."""

    def __init__(self, leaf_keys: np.ndarray, labels: np.ndarray, n_classes: int) -> None:
        keys, inverse = np.unique(np.asarray(leaf_keys, dtype=np.uint64), return_inverse=True)
        self._keys = keys
        self._counts = np.bincount(
            inverse * n_classes + labels, minlength=len(keys) * n_classes
        ).reshape(len(keys), n_classes)
        self.n_classes = n_classes

    def exact(self, leaf_keys: np.ndarray) -> np.ndarray:
        """Exact counts (m, T) for any leaf keys (0 for unvisited leaves)."""
        leaf_keys = np.asarray(leaf_keys, dtype=np.uint64)
        pos = np.searchsorted(self._keys, leaf_keys)
        pos = np.minimum(pos, max(len(self._keys) - 1, 0))
        out = np.zeros((len(leaf_keys), self.n_classes), dtype=np.int64)
        if len(self._keys):
            hit = self._keys[pos] == leaf_keys
            out[hit] = self._counts[pos[hit]]
        return out

    @property
    def n_visited(self) -> int:
        return len(self._keys)


class _LeafRelease:
    """Shared state of a lazy per-leaf release: the visited leaves' counts and the noise key."""

    MECHANISMS: tuple[str, ...] = ()

    def __init__(
        self,
        leaf_keys: np.ndarray,
        labels: np.ndarray,
        n_classes: int,
        *,
        epsilon: float,
        mechanism: str,
        noise_key: int,
    ) -> None:
        if mechanism not in self.MECHANISMS:
            raise InvalidParameterError(
                f"mechanism must be one of {self.MECHANISMS}, got {mechanism!r}"
            )
        self._table = _LeafTable(leaf_keys, labels, n_classes)
        self.epsilon = epsilon
        self.mechanism = mechanism
        self.noise_key = np.uint64(noise_key)
        self.n_classes = n_classes

    @property
    def n_visited(self) -> int:
        """Number of leaves holding at least one training row (internal; do not publish)."""
        return self._table.n_visited


class NoisyLeafCounts(_LeafRelease):
    """Noisy class-count vectors of every leaf of a random tree (JPW Fig. 5), computed lazily.

    Privacy claim: the vector of all leaves' class counts has L1 sensitivity 1
    under add/remove one row (JPW Theorem 3), so adding independent discrete
    Laplace noise with P(k) ∝ exp(−ε|k|) — or Laplace(1/ε) — to every component
    is ε-DP. Empty leaves get pure noise like the others.

    Parameters
    ----------
    leaf_keys : array of uint64
        The leaf reached by each private row.
    labels : array of int
        Each private row's class code.
    n_classes : int
        Number of classes (public).
    epsilon : float
        ε of the release (``inf`` = exact counts, the non-private reference).
    mechanism : {"discrete_laplace", "laplace"}
        The noise distribution.
    noise_key : int
        Key of the noise (drawn by the PrivateTable from its generator).
    """

    MECHANISMS = ("discrete_laplace", "laplace")

    def noise(self, leaf_keys: np.ndarray) -> np.ndarray:
        """The noise added to each leaf's counts, shape (m, T) (0 when ε = inf)."""
        leaf_keys = np.asarray(leaf_keys, dtype=np.uint64)
        keys = keyed.splitmix64(leaf_keys ^ self.noise_key)
        return leaf_count_noise(
            keys, self.n_classes, epsilon=self.epsilon, mechanism=self.mechanism
        )

    def __call__(self, leaf_keys: np.ndarray) -> np.ndarray:
        """Noisy class counts (m, T) of the given leaves (any leaves, visited or not)."""
        leaf_keys = np.asarray(leaf_keys, dtype=np.uint64)
        return self._table.exact(leaf_keys) + self.noise(leaf_keys)

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

    Mechanisms (``mechanism``):

    ``"rosnam"`` (default)
        Report One-Sided Noisy Arg-Max (FI 2021 addendum): argmax over classes of
        count + Exponential(scale 1/ε). Class counts are monotone with
        sensitivity 1, so this is ε-DP (Dwork & Roth 2014 §3.3; Ding et al.
        2021 show it equals permute-and-flip). An empty leaf gets a uniformly
        random label.
    ``"exponential"``
        FI 2017's 0/1 utility (1 for the majority labels) with its *global*
        sensitivity 1: P(c) ∝ exp(ε·u_c / 2). ε-DP (McSherry & Talwar 2007),
        but the 0/1 utility wastes the counts (FI Fig. 4's "global sensitivity").
    ``"smooth_sensitivity"``
        FI 2017 §4.1: the same utility with the smooth sensitivity e^{−jε} in
        place of Δ. NOT PROVEN PRIVATE (withdrawn by the 2021 addendum); warns
        :class:`~dpviz.errors.NotProvenPrivateWarning`. Kept for the audit lesson.

    Sampling uses keyed uniforms: one-sided exponential noise −log(U)/ε, or the
    Gumbel-max trick −log(−log U) on the log-weights, both exact inversions.
    """

    MECHANISMS = ("rosnam", "exponential", "smooth_sensitivity")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("mechanism") == "smooth_sensitivity":
            warnings.warn(NOT_PROVEN_MESSAGE, NotProvenPrivateWarning, stacklevel=3)
        super().__init__(*args, **kwargs)

    def __call__(self, leaf_keys: np.ndarray) -> np.ndarray:
        """The private label code of each given leaf (any leaves, visited or not)."""
        leaf_keys = np.asarray(leaf_keys, dtype=np.uint64)
        keys = keyed.splitmix64(leaf_keys ^ self.noise_key)
        return leaf_labels(
            self._table.exact(leaf_keys), keys, epsilon=self.epsilon, mechanism=self.mechanism
        )
