"""Everything private in dpviz, as ``mechanism(data, n, rng)`` for :func:`dpviz.audit.engine.audit`.

Each function returns a vectorized mechanism drawing ``n`` independent outputs by
calling the code that ships — the mechanisms of :mod:`dpviz.mechanisms`, the leaf
releases of :mod:`dpviz.leaf_release` exactly as the estimators make them, the
estimators themselves — never a re-implementation (an audit of a copy proves nothing
about the original). Plus deliberately broken targets for the lessons: the withdrawn
FI 2017 smooth-sensitivity label, the pruned (non-private) random tree, and a forest
that reads every row in every tree with the full ε.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.domain import Domain
from dpviz.errors import NotProvenPrivateWarning
from dpviz.leaf_release import NoisyLeafCounts, NoisyLeafLabels
from dpviz.privacy import PrivateTable
from dpviz.trees.forest import DPRandomForestClassifier, get_majority_labels
from dpviz.trees.id3 import (
    attribute_qualities,
    categorical_splits,
    choose_split_point_continuous,
    private_split_point,
)
from dpviz.trees.id3_quality import get_criterion
from dpviz.trees.random_tree import RandomTree
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier

__all__ = [
    "diffpid3_split_choice",
    "discrete_laplace_count",
    "exponential_choice",
    "fitted_object_visited_leaves",
    "forest_reading_all_rows_with_full_epsilon",
    "laplace_count",
    "leaf_label",
    "leaf_vector",
    "pruned_tree_leaves",
    "report_noisy_max_choice",
    "reused_noise_releases",
    "smooth_sensitivity_leaf_label",
    "split_point_continuous",
    "split_point_grid",
]

Mechanism = Callable[[Any, int, np.random.Generator], np.ndarray]


def laplace_count(epsilon: float) -> Mechanism:
    """A count with float Laplace(1/ε) noise (``mechanisms.laplace``). Data: the count."""
    return lambda count, n, rng: mechanisms.laplace(np.full(n, float(count)), epsilon=epsilon,
                                                    rng=rng)


def discrete_laplace_count(epsilon: float) -> Mechanism:
    """A count released with discrete Laplace noise. Data: the count."""
    return lambda count, n, rng: mechanisms.discrete_laplace(np.full(n, int(count)),
                                                             epsilon=epsilon, rng=rng)


def exponential_choice(epsilon: float, sensitivity: float = 1.0) -> Mechanism:
    """The exponential mechanism's choice. Data: the utility vector."""
    return lambda u, n, rng: mechanisms.exponential_mechanism(
        np.asarray(u, float), epsilon=epsilon, sensitivity=sensitivity, rng=rng, size=n)


def report_noisy_max_choice(epsilon: float) -> Mechanism:
    """Report One-Sided Noisy Arg-Max on counts (FI addendum). Data: the count vector."""
    return lambda c, n, rng: mechanisms.report_noisy_max(
        np.asarray(c, float), epsilon=epsilon, sensitivity=1, rng=rng, size=n, monotone=True)


def smooth_sensitivity_leaf_label(epsilon: float) -> Mechanism:
    """The withdrawn FI 2017 leaf label (warnings silenced: this target is *meant* to fail)."""

    def mechanism(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvenPrivateWarning)
            return mechanisms.smooth_sensitivity_label(np.asarray(counts), epsilon=epsilon,
                                                       rng=rng, size=n)

    return mechanism


def _one_leaf_per_sample(counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows for n independent samples: leaf key i holds ``counts`` (class c repeated c times)."""
    counts = np.asarray(counts, dtype=np.int64)
    labels = np.repeat(np.arange(len(counts)), counts)
    keys = np.repeat(np.arange(n, dtype=np.uint64), len(labels))
    return keys, np.tile(labels, n)


def leaf_vector(epsilon: float, mechanism: str = "discrete_laplace") -> Mechanism:
    """One leaf's noisy class-count vector, released by the shipped Private-RDT release.

    Each sample is a different leaf of one :meth:`NoisyLeafCounts.release` holding the
    given exact counts — a visited leaf (noise from fresh uniforms at release time) when
    the counts are positive, an unvisited one (noise from the secret-keyed uniforms) when
    they are all 0, exactly as the estimators release them. Data: the leaf's exact class
    counts; outputs have shape (n, n_classes).
    """

    def release(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.asarray(counts)
        keys, labels = _one_leaf_per_sample(counts, n)
        with warnings.catch_warnings():  # noise="laplace" warns: it is audited on purpose
            warnings.simplefilter("ignore", NotProvenPrivateWarning)
            released = NoisyLeafCounts.release(keys, labels, len(counts), epsilon=epsilon,
                                               mechanism=mechanism, rng=rng)
        return released(np.arange(n, dtype=np.uint64))

    return release


def leaf_label(epsilon: float, mechanism: str = "rosnam") -> Mechanism:
    """One leaf's private label, released by the shipped FI forest release. Data: the counts."""

    def release(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.asarray(counts)
        keys, labels = _one_leaf_per_sample(counts, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvenPrivateWarning)
            released = NoisyLeafLabels.release(keys, labels, len(counts), epsilon=epsilon,
                                               mechanism=mechanism, rng=rng)
        return released(np.arange(n, dtype=np.uint64))

    return release


def pruned_tree_leaves(domain: Domain, *, max_depth: int = 2) -> Mechanism:
    """Number of leaves of Fan's pruned random tree (JPW Fig. 1) — NOT private.

    Data: ``(X, y)``. The released structure shows which leaves are non-empty, so
    adding a row with a new value can create a leaf that cannot exist without it
    (JPW Fig. 3–4): an output of probability 0 under one neighbour, ε = ∞.
    """

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        X, y = data
        seeds = rng.integers(0, 2**31 - 1, size=n)
        return np.array([
            RandomDecisionTreeClassifier(n_trees=1, max_depth=max_depth, domain=domain,
                                         random_state=int(s)).fit(X, y).visited_leaves()[0]
            for s in seeds
        ])

    return release


def forest_reading_all_rows_with_full_epsilon(domain: Domain, canary: pd.DataFrame | np.ndarray,
                                              *, epsilon: float, n_trees: int = 10,
                                              max_depth: int = 2) -> Mechanism:
    """A WRONG budget split: every tree reads every row and spends the full ε.

    It claims ε but, by sequential composition, spends τ·ε. Output: the number of
    trees voting for class 1 on the canary. Data: ``(codes, labels)`` encoded rows.
    """
    canary_codes = domain.encode(canary)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        codes, labels = data
        votes = np.empty(n, dtype=np.int64)
        for i in range(n):
            trees = [RandomTree(domain, max_depth, int(k)) for k in rng.integers(0, 2**63, n_trees)]
            table = PrivateTable.from_encoded(codes, labels, domain=domain,
                                              epsilon=epsilon * n_trees, rng=rng)
            released = get_majority_labels(table, trees, epsilon=epsilon * n_trees,
                                           mechanism="rosnam", disjoint=False, rng=rng)
            votes[i] = sum(int(lab(t.leaf_keys(canary_codes))[0]) for t, lab in
                           zip(trees, released, strict=True))
        return votes

    return release


def forest_votes(domain: Domain, canary: pd.DataFrame | np.ndarray, *, epsilon: float,
                 n_trees: int = 10, max_depth: int = 2) -> Mechanism:
    """The correct FI forest (disjoint rows, ROSNAM): votes for class 1 on the canary."""
    canary_codes = domain.encode(canary)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        X, y = data
        seeds = rng.integers(0, 2**31 - 1, size=n)
        out = np.empty(n, dtype=np.int64)
        for i, s in enumerate(seeds):
            model = DPRandomForestClassifier(epsilon=epsilon, n_trees=n_trees, max_depth=max_depth,
                                             domain=domain, random_state=int(s)).fit(X, y)
            out[i] = model.votes(domain.decode(canary_codes))[0, 1]
        return out

    return release


def diffpid3_split_choice(domain: Domain, *, criterion: str = "gini", epsilon: float = 1.0,
                          size_bound: int | None = None) -> Mechanism:
    """DiffPID3's choice of split attribute (FS Alg. 2 line 14) at one node.

    Data: ``(codes, labels)``, the node's rows encoded with an all-categorical
    ``domain``. The qualities are computed by the shipped
    :func:`dpviz.trees.id3.attribute_qualities` (the function ``build_diffp_id3`` hands to
    :meth:`PrivateTable.select`), and the choice is the shipped
    :func:`dpviz.mechanisms.exponential_mechanism` with the criterion's sensitivity —
    exactly the two calls ``select`` makes, with ``size=n`` draws at once. Output: the
    chosen attribute's index.
    """
    crit = get_criterion(criterion)
    sensitivity = crit.sensitivity(size_bound) if crit.needs_size_bound else crit.sensitivity()
    splits = categorical_splits(domain)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        codes, labels = data
        scores = attribute_qualities(codes, np.asarray(labels), splits, crit, domain.n_classes)
        return mechanisms.exponential_mechanism(scores, epsilon=epsilon,
                                                sensitivity=sensitivity, rng=rng, size=n)

    return release


def split_point_grid(domain: Domain, *, epsilon: float = 1.0, criterion: str = "max",
                     n_cells: int = 256) -> Mechanism:
    """FS §4.3's numeric split point as DiffPC4.5 releases it (the shipped path).

    Data: ``(values, labels)`` of one numeric attribute (``domain`` has that one attribute).
    Each sample builds a :class:`PrivateTable` and calls the shipped
    :func:`dpviz.trees.id3.private_split_point` at the root: the exponential mechanism
    over the public grid of the attribute's range. Output: the released threshold.
    """
    name = domain.names[0]
    crit = get_criterion(criterion)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        values, labels = data
        codes = np.asarray(values, dtype=np.float64)[:, None]
        out = np.empty(n)
        for i in range(n):
            table = PrivateTable.from_encoded(codes, labels, domain=domain, epsilon=epsilon,
                                              rng=rng)
            out[i], _ = private_split_point(table, name, (0, n_cells), criterion=crit,
                                            sensitivity=crit.sensitivity(), epsilon=epsilon,
                                            n_cells=n_cells)
        return out

    return release


def split_point_continuous(low: float, high: float, *, epsilon: float = 1.0,
                           criterion: str = "max") -> Mechanism:
    """TEACHING TARGET — FS §4.3 as printed: a uniform draw inside a data-dependent range.

    :func:`dpviz.trees.id3.choose_split_point_continuous` (not used by any estimator; it
    warns :class:`NotProvenPrivateWarning`, silenced here because the target is *meant*
    to fail). ``rng.uniform(start, end)`` can only return a lattice of doubles fixed by
    the range's ends — the private rows' values — so the released threshold tells them
    apart. Data: ``(values, labels)`` on the public interval ``[low, high]``.
    """
    crit = get_criterion(criterion)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        values, labels = data
        n_classes = int(np.max(labels)) + 1 if len(labels) else 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvenPrivateWarning)
            return np.array([
                choose_split_point_continuous(values, labels, n_classes, low, high,
                                              criterion=crit, sensitivity=crit.sensitivity(),
                                              epsilon=epsilon, rng=rng)
                for _ in range(n)
            ])

    return release


def reused_noise_releases(epsilon: float = 1.0) -> Mechanism:
    """TEACHING TARGET — two releases that share their noise (dpviz ≤ 0.1's ``update``).

    Release 1 is the count of D1 plus discrete Laplace noise; release 2, made later when a
    batch D2 arrived, is the count of D1 ∪ D2 plus *the same* noise (a generator reseeded
    with the same seed draws the same uniforms — what ``update(method="rebuild")`` did with
    an int ``random_state``). Each release alone is ε-DP; their difference is the exact
    count of D2. Data: ``(count of D1, count of D2)``; output: ``(release 1, release 2)``.
    Both releases go through the shipped :func:`dpviz.mechanisms.discrete_laplace`, fed
    the same uniforms.
    """

    def release(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        c1, c2 = (int(c) for c in counts)
        u = mechanisms.open_uniforms(rng, (n, 2))
        first = mechanisms.discrete_laplace(np.full(n, c1), epsilon=epsilon, uniforms=u)
        second = mechanisms.discrete_laplace(np.full(n, c1 + c2), epsilon=epsilon, uniforms=u)
        return np.column_stack([first, second, second - first])

    return release


def fitted_object_visited_leaves(domain: Domain, *, max_depth: int = 3) -> Mechanism:
    """TEACHING TARGET — reading a fitted Private-RDT *object* instead of its release.

    The object keeps, as a curator secret, the set of leaves that hold training rows; this
    target publishes its size (``n_visited`` of tree 1's release). That is JPW's pruning
    leak again: one more row can make a new leaf non-empty — an output impossible without
    it (ε = ∞). The release itself (``released_counts``, ``export_release``) passes the
    same audit. Data: ``(X, y)``.
    """

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        X, y = data
        seeds = rng.integers(0, 2**63, size=n)
        return np.array([
            PrivateRDTClassifier(epsilon=1.0, n_trees=1, max_depth=max_depth, domain=domain,
                                 random_state=int(s)).fit(X, y).leaf_counts_[0].n_visited
            for s in seeds
        ])

    return release
