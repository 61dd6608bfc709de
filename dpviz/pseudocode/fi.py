"""Fletcher & Islam (2017) Algorithms 1–2 with the 2021 addendum's leaf label, as eager Python.

The reference of :class:`dpviz.trees.forest.DPRandomForestClassifier`, one function per
procedure in the paper's names; :func:`classify` is FI §2.3's vote. Every tree is built in
full (``m^d`` leaves): small domains only. Both release the same forest for the same seed,
ε-DP with ``"rosnam"`` or ``"exponential"`` (docs/privacy.md §8.2); ``"smooth_sensitivity"``
(FI 2017) has no proof and warns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpviz import mechanisms
from dpviz.domain import UNKNOWN_CODE, Domain
from dpviz.pseudocode import child_key, leaf_uniforms, tree_keys, uniform
from dpviz.trees._base import release_generators
from dpviz.trees.random_tree import (
    ATTRIBUTE_STREAM,
    SPLIT_STREAM,
    UNKNOWN_STREAM,
    fletcher_islam_depth,
)
from dpviz.validation import check_random_state

__all__ = [
    "Node", "build_forest", "build_tree", "child_key", "classify", "count_rows",
    "get_majority_labels", "leaves", "majority_label", "reach_leaf", "release_labels", "uniform",
]


@dataclass
class Node:
    """A node: an inner node tests feature ``g``, a leaf has a label."""

    key: int  # its feature, split point and children's keys are drawn from it
    g: int | None = None  # the feature tested (its column in the domain); None: a leaf
    p: float | None = None  # split point of a continuous feature: x_g <= p left, > p right
    children: list[Node] = field(default_factory=list)
    f: np.ndarray | None = None  # a leaf's class counts f(x_t ∩ L_i): a curator secret
    label: int | None = None  # a leaf's private majority label


# ---------------------------------------------------------------------------------- Algorithm 1
def build_forest(
    epsilon: float, x: np.ndarray, tau: int, domain: Domain, C: np.ndarray, *,
    d: int | None = None, mechanism: str = "rosnam", disjoint: bool = True,
    random_state: int | np.random.Generator | None = None,
) -> list[Node]:
    """FI Alg. 1, ``BuildForest(ε, x, τ, S, R, C)``: τ random trees, then their leaves' labels.

    ``x``: the encoded rows; ``C``: their class codes; S and R: the domain's numeric and
    categorical attributes; ``d``: default FI's Theorem 2 (line 3); ``mechanism`` and
    ``disjoint`` as the estimator's ``leaf_mechanism`` and ``disjoint``.
    """
    structure, noise = release_generators(check_random_state(random_state))
    discrete = domain.categorical_mask
    S = {g: tuple(domain.bounds[g]) for g in range(len(domain)) if not discrete[g]}
    R = [g for g in range(len(domain)) if discrete[g]]
    if d is None:
        d = fletcher_islam_depth(len(S), len(R))  # line 3
    F = [build_tree(d, 0, S, R, domain, key) for key in tree_keys(structure, tau)]  # lines 4-7
    return get_majority_labels(epsilon, x, C, F, domain, mechanism=mechanism,
                               disjoint=disjoint, noise=noise)  # line 8


# ---------------------------------------------------------------------------------- Algorithm 2
def build_tree(
    d: int, d_prime: int, S: dict[int, tuple[float, float]], R: list[int], domain: Domain, key: int
) -> Node:
    """FI Alg. 2, ``BuildTree(d, d′, S, R)``: a random tree drawn from the public domain alone.

    ``S``: each continuous feature's current (low, high); ``R``: the discrete features left.
    """
    T = Node(key)
    features = sorted([*S, *R])  # S ∪ R, in the domain's order
    if d_prime < d and features:  # line 3: termination criteria
        T.g = g = features[int(uniform(key, ATTRIBUTE_STREAM) * len(features))]  # line 4
        if g in S:  # lines 5-10
            low, high = S[g]
            T.p = p = low + uniform(key, SPLIT_STREAM) * (high - low)  # line 6
            T.children = [
                build_tree(d, d_prime + 1, {**S, g: (low, p)}, R, domain, child_key(key, 0)),
                build_tree(d, d_prime + 1, {**S, g: (p, high)}, R, domain, child_key(key, 1)),
            ]
        else:  # lines 11-15: a discrete feature is tested once on a path, one child per value
            R_minus_g = [r for r in R if r != g]
            T.children = [
                build_tree(d, d_prime + 1, S, R_minus_g, domain, child_key(key, i))
                for i in range(domain.n_values[g])
            ]
    return T


def get_majority_labels(
    epsilon: float, x: np.ndarray, C: np.ndarray, F: list[Node], domain: Domain, *,
    mechanism: str = "rosnam", disjoint: bool = True, noise: np.random.Generator,
) -> list[Node]:
    """FI Alg. 2, ``GetMajorityLabels(ε, x, C, F)``: a private label for every leaf of every tree.

    ``disjoint`` (line 22): each row picks its tree uniformly at random, independently of
    the other rows (an equal split would let one added row move others between trees), and
    all leaves are one release at ε. Otherwise every tree reads all of x at ε/τ.
    """
    tau = len(F)
    if disjoint:
        t_of_row = noise.integers(0, tau, size=len(x))  # line 22: x = {x_1, ..., x_τ}
        for t, T in enumerate(F):
            count_rows(T, x[t_of_row == t], C[t_of_row == t], domain.n_classes)
        release_labels([L for T in F for L in leaves(T)], epsilon, mechanism, noise)
    else:
        for T in F:
            count_rows(T, x, C, domain.n_classes)
            release_labels(leaves(T), epsilon / tau, mechanism, noise)
    return F


def count_rows(T: Node, x_t: np.ndarray, C_t: np.ndarray, n_classes: int) -> None:
    """Lines 23-24: f(x_t ∩ L_i), the class counts of the rows reaching each leaf L_i."""
    for L in leaves(T):
        L.f = np.zeros(n_classes, dtype=np.int64)
    for row, c in zip(x_t, C_t, strict=True):
        reach_leaf(T, row).f[c] += 1


def release_labels(
    L: list[Node], epsilon: float, mechanism: str, noise: np.random.Generator
) -> None:
    """Line 25 for the leaves ``L`` of one release: each leaf's label at ε, from its own noise.

    An empty leaf gets a uniformly random label (its counts tie at 0).
    """
    u = leaf_uniforms(noise, [leaf.key for leaf in L],
                      [leaf.key for leaf in L if leaf.f.sum() > 0], len(L[0].f))
    for leaf in L:
        leaf.label = majority_label(leaf.f, u[leaf.key], epsilon, mechanism)


def majority_label(
    f: np.ndarray, u: np.ndarray, epsilon: float, mechanism: str = "rosnam"
) -> int:
    """Alg. 2 line 25: the leaf's majority label, chosen privately from its counts ``f``.

    ``"rosnam"``: argmax_c f_c + E_c, E_c ~ Exponential(1/ε) (the addendum);
    ``"exponential"``: utility 1 for the majority labels, else 0; ``"smooth_sensitivity"``:
    FI 2017's Theorem 1, NOT PROVEN PRIVATE (warns).
    """
    if mechanism == "rosnam":
        return int(mechanisms.report_noisy_max(f, epsilon=epsilon, sensitivity=1, uniforms=u))
    if mechanism == "exponential":
        top = (f == f.max()).astype(np.float64)
        return int(mechanisms.exponential_mechanism(top, epsilon=epsilon, sensitivity=1,
                                                    uniforms=u))
    return int(mechanisms.smooth_sensitivity_label(f, epsilon=epsilon, uniforms=u))


# ---------------------------------------------------------------------------------- prediction
def leaves(T: Node) -> list[Node]:
    """The leaves of tree ``T``, left to right."""
    if not T.children:
        return [T]
    return [L for child in T.children for L in leaves(child)]


def reach_leaf(T: Node, row: np.ndarray) -> Node:
    """The leaf ``row`` reaches (FI §2.3); an unknown category goes to a keyed random child."""
    while T.children:
        value = row[T.g]
        if T.p is not None:
            T = T.children[int(value > T.p)]
        elif value == UNKNOWN_CODE:
            T = T.children[int(uniform(T.key, UNKNOWN_STREAM) * len(T.children))]
        else:
            T = T.children[int(value)]
    return T


def classify(F: list[Node], x: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """FI §2.3: each tree votes for its leaf's label. Returns the votes and the majority."""
    votes = np.zeros((len(x), n_classes), dtype=np.int64)
    for i, row in enumerate(x):
        for T in F:
            votes[i, reach_leaf(T, row).label] += 1
    return votes, np.argmax(votes, axis=1)
