"""JPW's random decision trees and Private-RDT, eagerly, in the paper's words.

Jagannathan, Pillaipakkamnatt & Wright (ICDM workshops 2009): Fig. 1 (the structure, the
non-private RDT and its pruning), Fig. 5 (Private-RDT), Fig. 2 (``classify``) and §V-B
(``update``). Every tree is built whole: small domains only (Votes at height 8: 256 leaves).
:class:`~dpviz.trees.rdt.PrivateRDTClassifier` releases the same trees and noisy leaf vectors
for the same seed without building them. Pruning is not private (JPW Fig. 3–4).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from dpviz.domain import Domain
from dpviz.pseudocode import child_key, leaf_uniforms, noisy, tree_keys, uniform
from dpviz.trees.random_tree import ATTRIBUTE_STREAM, SPLIT_STREAM

__all__ = [
    "Node", "add_instance", "add_noise", "build_tree_structure", "classify", "counts",
    "leaf_reached", "leaves", "private_rdt", "prune", "random_decision_trees", "tree_keys",
    "update", "update_statistics",
]

#: A training set: rows ``x`` (codes of ``domain.encode``) with class codes ``t``.
Rows = Sequence[tuple[Sequence[float], int]]


@dataclass
class Node:
    """A node: its 64-bit key (its random choices come from it) and test, or a leaf's counters."""

    key: int
    F: int | None = None  # the testing attribute (index in the domain); None: a leaf
    threshold: float | None = None  # numeric F: x[F] <= threshold to child 0, the rest to 1
    children: list[Node | None] = field(default_factory=list)  # None where pruned
    alpha: list = field(default_factory=list)  # a leaf's T counters α[1..T] (Fig. 1)


def build_tree_structure(
    X: Sequence[int], h: int, key: int, domain: Domain, ranges: dict | None = None
) -> Node:
    """JPW Fig. 1, ``BuildTreeStructure(X)`` down to height ``h``, from the public domain only.

    ``X``: the attributes left on this path; ``ranges``: a numeric attribute's current range
    (JPW's random-threshold extension: it splits its range and stays available).
    """
    ranges = ranges or {}
    if not X or h == 0:
        return Node(key, alpha=[0] * domain.n_classes)  # "return a leaf node"
    F = X[int(uniform(key, ATTRIBUTE_STREAM) * len(X))]  # "randomly choose an attribute F"
    r = Node(key, F=F)  # "create an internal node r with F as the attribute"
    attribute = domain.attributes[F]
    if attribute.is_categorical:  # "assume F has m valid values"
        rest = [a for a in X if a != F]
        for i in range(attribute.n_values):
            r.children.append(build_tree_structure(rest, h - 1, child_key(key, i), domain,
                                                   ranges))
        return r
    low, high = ranges.get(F, (float(attribute.low), float(attribute.high)))
    r.threshold = low + uniform(key, SPLIT_STREAM) * (high - low)
    left, right = {**ranges, F: (low, r.threshold)}, {**ranges, F: (r.threshold, high)}
    r.children = [  # x[F] <= threshold, x[F] > threshold; F stays in X
        build_tree_structure(X, h - 1, child_key(key, 0), domain, left),
        build_tree_structure(X, h - 1, child_key(key, 1), domain, right),
    ]
    return r


def _child(r: Node, x: Sequence[float]) -> Node | None:
    """"The child of r that corresponds to the value of F in x" (None if pruned)."""
    if r.threshold is None:
        return r.children[int(x[r.F])]
    return r.children[int(x[r.F] > r.threshold)]


def update_statistics(r: Node, D: Rows) -> None:
    """JPW Fig. 1, ``UpdateStatistics(r, D)``: filter every row of D through the tree."""
    for x, t in D:
        add_instance(r, x, t)


def add_instance(r: Node, x: Sequence[float], t: int) -> None:
    """JPW Fig. 1, ``AddInstance(r, x)``: α[t] ← α[t] + 1 at the leaf x reaches (label t)."""
    if r.F is not None:  # r is not a leaf node
        add_instance(_child(r, x), x, t)
    else:
        r.alpha[t] += 1


def leaves(r: Node) -> Iterator[Node]:
    """The leaves under ``r``, left to right: the order of the leaf vector V (JPW §V)."""
    if r.F is None:
        yield r
        return
    for c in r.children:
        if c is not None:
            yield from leaves(c)


def counts(r: Node) -> list:
    """The class counts of the rows that reached ``r``: the sum of its leaves' α."""
    return [sum(column) for column in zip(*(leaf.alpha for leaf in leaves(r)), strict=True)]


def prune(r: Node) -> None:
    """JPW Fig. 1, "Prune subtrees with zero counts": NOT private, it depends on the rows."""
    for i, c in enumerate(r.children):
        if c is not None and sum(counts(c)) == 0:
            r.children[i] = None
        elif c is not None:
            prune(c)


def random_decision_trees(
    D: Rows, domain: Domain, *, N: int, h: int, structure_rng: np.random.Generator,
    prune_empty: bool = True,
) -> list[Node]:
    """JPW Fig. 1, Algorithm RDT, N times: Fan et al.'s non-private ensemble (pruned: leaky)."""
    X = list(range(len(domain)))
    ensemble = []
    for key in tree_keys(structure_rng, N):
        R = build_tree_structure(X, h, key, domain)
        update_statistics(R, D)
        if prune_empty:
            prune(R)
        ensemble.append(R)
    return ensemble


def add_noise(
    R: Node, epsilon: float, noise_rng: np.random.Generator, noise: str = "discrete_laplace"
) -> None:
    """JPW Fig. 5, "Add Lap(1/ε) to each component of the leaf vector", every leaf.

    Discrete Laplace by default (``"laplace"``: not proven private in floating point).
    """
    if math.isinf(epsilon):
        return
    V = list(leaves(R))
    u = leaf_uniforms(noise_rng, [leaf.key for leaf in V],
                      [leaf.key for leaf in V if sum(leaf.alpha) > 0], 2 * len(V[0].alpha))
    for leaf in V:
        leaf.alpha = noisy(np.array(leaf.alpha), epsilon, u[leaf.key], noise).tolist()


def private_rdt(
    D: Rows, domain: Domain, *, epsilon: float, N: int, h: int,
    structure_rng: np.random.Generator, noise_rng: np.random.Generator,
    noise: str = "discrete_laplace",
) -> list[Node]:
    """JPW Fig. 5, Algorithm Private-RDT: N trees at ε/N each, no pruning.

    With ``release_generators(np.random.default_rng(seed))`` as the two generators, exactly
    ``PrivateRDTClassifier(epsilon, n_trees=N, max_depth=h, noise=noise, random_state=seed)``.
    ε-DP in the rows (add/remove one) with discrete Laplace noise; argument: docs/privacy.md
    §8.2. ``noise_rng`` stays with the curator.
    """
    # for each tree: R = BuildTreeStructure(X), UpdateStatistics(R, D), no pruning
    ensemble = random_decision_trees(D, domain, N=N, h=h, structure_rng=structure_rng,
                                     prune_empty=False)
    for R in ensemble:
        add_noise(R, epsilon / N, noise_rng, noise)  # "add noise to each component of V"
    return ensemble


def update(ensemble: list[Node], D2: Rows, *, epsilon: float, noise_rng: np.random.Generator,
           noise: str = "discrete_laplace") -> None:
    """JPW §V-B: add a batch D2 (disjoint from the fit's rows) at no extra ε.

    ``noise_rng`` continues the fit's (``PrivateRDTClassifier.update(method="jpw")``).
    """
    for r1 in ensemble:
        r1_clone = _cleared_clone(r1)  # 1) clone r1 as r1′ and clear its leaf vector
        update_statistics(r1_clone, D2)  # 2) UpdateStatistics with the rows of D2
        add_noise(r1_clone, epsilon / len(ensemble), noise_rng, noise)  # 3) noise at ε/N
        for leaf, new in zip(leaves(r1), leaves(r1_clone), strict=True):
            leaf.alpha = [a + b for a, b in zip(leaf.alpha, new.alpha, strict=True)]  # 4)


def _cleared_clone(r: Node) -> Node:
    """Step 1 of §V-B: the same structure, every counter 0."""
    return Node(r.key, F=r.F, threshold=r.threshold, alpha=[0] * len(r.alpha),
                children=[None if c is None else _cleared_clone(c) for c in r.children])


def leaf_reached(R: Node, x: Sequence[float]) -> Node:
    """ℓ: the leaf ``x`` reaches (in a pruned tree, the deepest node left on its path)."""
    r = R
    while r.F is not None and _child(r, x) is not None:
        r = _child(r, x)
    return r


def classify(ensemble: list[Node], x: Sequence[float], *, clip_negative: bool = False) -> list:
    """JPW Fig. 2, Algorithm Classify: P(t|x) = Σ_i α_i[t] / Σ_τ Σ_i α_i[τ].

    Negative sums count as 0; if none is positive the largest sums share the probability
    (as :func:`dpviz.trees.rdt.classify`). ``clip_negative`` clips each tree's counters first.
    """
    T = len(next(leaves(ensemble[0])).alpha)
    sums = [0] * T  # Σ_i α_i[t]
    for R in ensemble:
        alpha = counts(leaf_reached(R, x))  # α_i: the counters of ℓ_i
        for t in range(T):
            sums[t] += max(alpha[t], 0) if clip_negative else alpha[t]
    positive = [float(max(s, 0)) for s in sums]
    mass = sum(positive)  # Σ_τ Σ_i α_i[τ]
    if mass > 0:
        return [p / mass for p in positive]
    top = [float(s == max(sums)) for s in sums]
    return [p / sum(top) for p in top]
