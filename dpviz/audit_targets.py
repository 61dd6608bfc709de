"""Everything private in dpviz, as ``mechanism(data, n, rng)`` for :func:`dpviz.audit.audit`.

Each function returns a vectorized mechanism drawing ``n`` independent outputs,
running the *same code* as the library (the keyed leaf noise of the trees, the
estimators themselves), plus three deliberately broken targets for the lessons:
the withdrawn FI 2017 smooth-sensitivity label, the pruned (non-private) random
tree, and a forest that reads every row in every tree with the full ε.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from dpviz import keyed, mechanisms
from dpviz.domain import Domain
from dpviz.errors import NotProvenPrivateWarning
from dpviz.leaf_release import leaf_count_noise, leaf_labels
from dpviz.privacy import PrivateTable
from dpviz.trees.forest import DPRandomForestClassifier, get_majority_labels
from dpviz.trees.random_tree import RandomTree
from dpviz.trees.rdt import RandomDecisionTreeClassifier

__all__ = [
    "diffpid3_split_choice",
    "discrete_laplace_count",
    "exponential_choice",
    "forest_reading_all_rows_with_full_epsilon",
    "laplace_count",
    "leaf_label",
    "leaf_vector",
    "pruned_tree_leaves",
    "report_noisy_max_choice",
    "smooth_sensitivity_leaf_label",
]

Mechanism = Callable[[Any, int, np.random.Generator], np.ndarray]


def laplace_count(epsilon: float) -> Mechanism:
    """A count released with continuous Laplace(1/ε) noise (numpy's sampler). Data: the count."""
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


def _noise_keys(n: int, rng: np.random.Generator, leaf: int = 12345) -> np.ndarray:
    """The per-release keys of one leaf: a fresh noise key per sample, as every fit draws."""
    noise_keys = rng.integers(0, 2**63, size=n).astype(np.uint64)
    return keyed.splitmix64(np.uint64(leaf) ^ noise_keys)


def leaf_vector(epsilon: float, mechanism: str = "discrete_laplace") -> Mechanism:
    """One leaf's noisy class-count vector as Private-RDT releases it (keyed noise).

    Data: the leaf's exact class counts; outputs have shape (n, n_classes).
    """

    def release(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.asarray(counts)
        noise = leaf_count_noise(_noise_keys(n, rng), len(counts), epsilon=epsilon,
                                 mechanism=mechanism)
        return counts[None, :] + noise

    return release


def leaf_label(epsilon: float, mechanism: str = "rosnam") -> Mechanism:
    """One leaf's private label as the FI forest releases it (keyed). Data: the class counts."""

    def release(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.broadcast_to(np.asarray(counts), (n, len(counts)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvenPrivateWarning)
            return leaf_labels(counts, _noise_keys(n, rng), epsilon=epsilon, mechanism=mechanism)

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
    ``domain``. The quality of each attribute is the FS criterion
    (:mod:`dpviz.trees.id3_quality`) on its value × class counts; the choice is
    the exponential mechanism with the criterion's sensitivity, as
    :meth:`PrivateTable.select` makes it. Output: the chosen attribute's index.
    """
    from dpviz.trees.id3_quality import get_criterion

    crit = get_criterion(criterion)
    sensitivity = crit.sensitivity(size_bound) if crit.needs_size_bound else crit.sensitivity()
    n_classes = domain.n_classes
    arities = domain.n_values

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        codes, labels = data
        scores = []
        for j, m in enumerate(arities):
            cells = codes[:, j].astype(np.int64) * n_classes + np.asarray(labels)
            table = np.bincount(cells, minlength=m * n_classes).reshape(m, n_classes)
            scores.append(float(crit.quality(table)))
        return mechanisms.exponential_mechanism(np.array(scores), epsilon=epsilon,
                                                sensitivity=sensitivity, rng=rng, size=n)

    return release
