"""Fletcher & Islam (2017) Algorithms 1–2 with the 2021 addendum's leaf label, as plain Python.

ε-DP (finite ε) with ``"rosnam"`` or ``"exponential"`` (docs/privacy.md §8.2);
``"smooth_sensitivity"`` (FI 2017) has no proof and warns. Fast twin:
:class:`dpviz.trees.forest.DPRandomForestClassifier` (the same law).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from dpviz.domain import Domain
from dpviz.errors import NotProvenPrivateWarning
from dpviz.mechanisms import NOT_PROVEN_MESSAGE
from dpviz.pseudocode import printed
from dpviz.trees.random_tree import fletcher_islam_depth

__all__ = [
    "ALGORITHM_1", "ALGORITHM_2_BUILD_TREE", "ALGORITHM_2_GET_MAJORITY_LABELS", "Node",
    "build_forest", "build_tree", "classify", "get_majority_labels", "leaves", "majority_label",
    "reach_leaf",
]

#: FI 2017, Algorithm 1, as printed.
ALGORITHM_1 = printed("fi_algorithm_1")
#: FI 2017, Algorithm 2, lines 1-19, as printed.
ALGORITHM_2_BUILD_TREE = printed("fi_algorithm_2_build_tree")
#: FI 2017, Algorithm 2, lines 20-29, as printed, with the addendum's line 25.
ALGORITHM_2_GET_MAJORITY_LABELS = printed("fi_algorithm_2_get_majority_labels")


@dataclass
class Node:
    """A node: an inner node tests feature ``g``, a leaf has a label."""

    g: int | None = None  # the feature tested (its column in the domain); None: a leaf
    p: float | None = None  # split point of a continuous feature: x_g <= p left, > p right
    children: list[Node] = field(default_factory=list)
    f: np.ndarray | None = None  # a leaf's class counts f(x_t ∩ L_i): a curator secret
    label: int | None = None  # a leaf's private majority label


def build_forest(
    epsilon: float, x: np.ndarray, tau: int, domain: Domain, C: np.ndarray, *,
    rng: np.random.Generator, d: int | None = None, mechanism: str = "rosnam",
    disjoint: bool = True,
) -> list[Node]:
    """FI Alg. 1, ``BuildForest(ε, x, τ, S, R, C)``: τ random trees, then their leaves' labels.

    ``x``: the encoded rows; ``C``: their class codes; S: each continuous feature's
    (low, high); R: the discrete features; ``d``: default FI's Theorem 2 (line 3).
    """
    S = {g: tuple(domain.bounds[g]) for g in range(len(domain)) if not domain.categorical_mask[g]}
    R = [g for g in range(len(domain)) if domain.categorical_mask[g]]
    F = []  # line 2
    if d is None:
        d = fletcher_islam_depth(len(S), len(R))  # line 3
    for _ in range(tau):  # lines 4-7
        F.append(build_tree(d, 0, S, R, domain, rng))
    return get_majority_labels(epsilon, x, C, F, domain, rng=rng, mechanism=mechanism,
                               disjoint=disjoint)  # line 8


def build_tree(
    d: int, d_prime: int, S: dict[int, tuple[float, float]], R: list[int], domain: Domain,
    rng: np.random.Generator,
) -> Node:
    """FI Alg. 2, ``BuildTree(d, d′, S, R)``: a random tree drawn from the public domain alone."""
    T = Node()  # line 2
    features = sorted([*S, *R])  # S ∪ R, in the domain's order
    if d_prime < d and features:  # line 3
        T.g = g = features[rng.integers(len(features))]  # line 4
        if g in S:  # line 5
            low, high = S[g]
            T.p = p = rng.uniform(low, high)  # line 6
            T.children = [
                build_tree(d, d_prime + 1, {**S, g: (low, p)}, R, domain, rng),  # lines 7-8
                build_tree(d, d_prime + 1, {**S, g: (p, high)}, R, domain, rng),  # lines 9-10
            ]
        else:  # line 11
            R_minus_g = [r for r in R if r != g]  # line 12
            T.children = [build_tree(d, d_prime + 1, S, R_minus_g, domain, rng)
                          for _ in range(domain.n_values[g])]  # lines 13-15
    return T


def get_majority_labels(
    epsilon: float, x: np.ndarray, C: np.ndarray, F: list[Node], domain: Domain, *,
    rng: np.random.Generator, mechanism: str = "rosnam", disjoint: bool = True,
) -> list[Node]:
    """FI Alg. 2, ``GetMajorityLabels(ε, x, C, F)``: a private label for every leaf of every tree.

    ``disjoint`` (line 22): each row picks its tree uniformly at random, independently of
    the other rows (an equal split would let one added row move others between trees), and
    every leaf's label is released at ε. Otherwise every tree reads all of x at ε/τ.
    """
    tau = len(F)
    if disjoint:
        tree_of_row = rng.integers(tau, size=len(x))  # line 22: x = {x_1, ..., x_τ}
    for t, T in enumerate(F):  # line 21
        x_t, C_t = (x[tree_of_row == t], C[tree_of_row == t]) if disjoint else (x, C)
        for L in leaves(T):  # line 23
            L.f = np.zeros(domain.n_classes, dtype=np.int64)
        for row, c in zip(x_t, C_t, strict=True):  # line 24: f(x_t ∩ L_i)
            reach_leaf(T, row).f[c] += 1
        for L in leaves(T):
            L.label = majority_label(L.f, epsilon if disjoint else epsilon / tau, mechanism,
                                     rng)  # line 25
    return F


def majority_label(f: np.ndarray, epsilon: float, mechanism: str,
                   rng: np.random.Generator) -> int:
    """Alg. 2 line 25: the leaf's majority label, chosen privately from its counts ``f``.

    ``"rosnam"``: the addendum's argmax_c f_c + E_c, E_c ~ Exponential(scale 1/ε);
    ``"exponential"``: FI's utility (1 for the majority labels, else 0) at sensitivity 1;
    ``"smooth_sensitivity"``: the same at FI 2017's smooth sensitivity e^{-jε} (Theorem 1),
    NOT PROVEN PRIVATE (warns).
    """
    if mechanism == "rosnam":
        return int(np.argmax(f + rng.exponential(1 / epsilon, size=len(f))))
    u = f == f.max()  # utility 1 for the majority label(s), 0 for the others
    Delta_u = 1.0  # global sensitivity
    if mechanism == "smooth_sensitivity":
        warnings.warn(NOT_PROVEN_MESSAGE, NotProvenPrivateWarning, stacklevel=2)
        top_two = np.sort(f)[-2:]
        j = top_two[-1] - top_two[0]  # the gap between the two largest counts
        Delta_u = np.exp(-j * epsilon)
    weight = np.where(u, 1.0, np.exp(-epsilon / (2 * Delta_u)))  # ∝ exp(ε·u / 2Δu)
    return int(rng.choice(len(f), p=weight / weight.sum()))


# ---------------------------------------------------------------------------------- prediction
def leaves(T: Node) -> list[Node]:
    """The leaves of tree ``T``, left to right."""
    if not T.children:
        return [T]
    return [L for child in T.children for L in leaves(child)]


def reach_leaf(T: Node, row: np.ndarray) -> Node:
    """The leaf the encoded ``row`` reaches (FI §2.3; known categories only)."""
    while T.children:
        value = row[T.g]
        T = T.children[int(value > T.p) if T.p is not None else int(value)]
    return T


def classify(F: list[Node], x: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """FI §2.3: each tree votes for its leaf's label. Returns the votes and the majority."""
    votes = np.zeros((len(x), n_classes), dtype=np.int64)
    for i, row in enumerate(x):
        for T in F:
            votes[i, reach_leaf(T, row).label] += 1
    return votes, np.argmax(votes, axis=1)
