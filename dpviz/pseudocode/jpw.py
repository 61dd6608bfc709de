"""JPW's random decision trees and Private-RDT, eagerly, in the paper's words.

Jagannathan, Pillaipakkamnatt & Wright (ICDM workshops 2009): Fig. 1 (the structure, the
non-private RDT and its leaky pruning), Fig. 5 (Private-RDT), Fig. 2 (``classify``) and
§V-B (``update``). Fast twin: :class:`~dpviz.trees.rdt.PrivateRDTClassifier`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from dpviz.domain import Domain

__all__ = [
    "Node", "add_instance", "add_noise", "build_tree_structure", "classify", "counts", "lap",
    "leaf_reached", "leaves", "private_rdt", "prune", "random_decision_trees", "update",
    "update_statistics",
]

#: A training set: rows ``x`` (codes of ``domain.encode``) with class codes ``t``.
Rows = Sequence[tuple[Sequence[float], int]]


@dataclass
class Node:
    """A node: its testing attribute and children, or (a leaf) its T counters α."""

    F: int | None = None  # the testing attribute (index in the domain); None: a leaf
    threshold: float | None = None  # numeric F: x[F] <= threshold to child 0, the rest to 1
    children: list[Node | None] = field(default_factory=list)  # None where pruned
    alpha: list = field(default_factory=list)  # a leaf's T counters α[1..T] (Fig. 1)


def build_tree_structure(X: list[int], h: int, domain: Domain, rng: np.random.Generator,
                         ranges: dict | None = None) -> Node:
    """JPW Fig. 1, ``BuildTreeStructure(X)`` down to height ``h``, from the public domain only."""
    ranges = ranges or {}
    if not X or h == 0:
        return Node(alpha=[0] * domain.n_classes)  # "return a leaf node"
    F = int(rng.choice(X))  # "randomly choose an attribute F"
    r = Node(F=F)  # "create an internal node r with F as the attribute"
    attribute = domain.attributes[F]
    if attribute.is_categorical:  # "assume F has m valid values": m children, F leaves X
        rest = [a for a in X if a != F]
        r.children = [build_tree_structure(rest, h - 1, domain, rng, ranges)
                      for _ in range(attribute.n_values)]
        return r
    low, high = ranges.get(F, (float(attribute.low), float(attribute.high)))
    r.threshold = float(rng.uniform(low, high))  # numeric F: a random cut; F stays in X
    r.children = [build_tree_structure(X, h - 1, domain, rng, {**ranges, F: (low, r.threshold)}),
                  build_tree_structure(X, h - 1, domain, rng, {**ranges, F: (r.threshold, high)})]
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


def random_decision_trees(D: Rows, domain: Domain, *, N: int, h: int,
                          rng: np.random.Generator, prune_empty: bool = True) -> list[Node]:
    """JPW Fig. 1, Algorithm RDT, N times: Fan et al.'s non-private ensemble (pruned: leaky)."""
    ensemble = []
    for _ in range(N):
        R = build_tree_structure(list(range(len(domain))), h, domain, rng)
        update_statistics(R, D)
        if prune_empty:
            prune(R)
        ensemble.append(R)
    return ensemble


def lap(rng: np.random.Generator, epsilon: float, noise: str = "discrete_laplace") -> float:
    """One draw of Lap(1/ε): discrete Laplace, P(k) ∝ e^(−ε|k|), as dpviz releases it.

    The difference of two geometric draws; ``"laplace"``: the paper's float Laplace (not
    proven private in floating point, docs/privacy.md).
    """
    if noise == "laplace":
        return float(rng.laplace(0.0, 1 / epsilon))
    p = 1 - math.exp(-epsilon)
    return int(rng.geometric(p)) - int(rng.geometric(p))


def add_noise(R: Node, epsilon: float, rng: np.random.Generator,
              noise: str = "discrete_laplace") -> None:
    """JPW Fig. 5: "Add Lap(1/ε) to each component of the leaf vector" — every leaf."""
    for leaf in leaves(R):
        leaf.alpha = [a + lap(rng, epsilon, noise) for a in leaf.alpha]


def private_rdt(D: Rows, domain: Domain, *, epsilon: float, N: int, h: int,
                rng: np.random.Generator, noise: str = "discrete_laplace") -> list[Node]:
    """JPW Fig. 5, Algorithm Private-RDT: N trees at ε/N each, no pruning.

    ε-DP in the rows (add/remove one) with discrete Laplace noise: each tree's leaf vector
    has sensitivity 1 (Theorem 3), N trees compose (docs/privacy.md §8.2).
    """
    ensemble = []
    for _ in range(N):
        R = build_tree_structure(list(range(len(domain))), h, domain, rng)  # public
        update_statistics(R, D)  # no pruning
        if not math.isinf(epsilon):
            add_noise(R, epsilon / N, rng, noise)  # ε/N per tree
        ensemble.append(R)
    return ensemble


def update(ensemble: list[Node], D2: Rows, *, epsilon: float, rng: np.random.Generator,
           noise: str = "discrete_laplace") -> None:
    """JPW §V-B: add a batch D2 (disjoint from the fit's rows) at no extra ε."""
    for r1 in ensemble:
        r1_clone = _cleared_clone(r1)  # 1) clone r1 as r1′ and clear its leaf vector
        update_statistics(r1_clone, D2)  # 2) UpdateStatistics with the rows of D2
        add_noise(r1_clone, epsilon / len(ensemble), rng, noise)  # 3) fresh noise at ε/N
        for leaf, new in zip(leaves(r1), leaves(r1_clone), strict=True):
            leaf.alpha = [a + b for a, b in zip(leaf.alpha, new.alpha, strict=True)]  # 4)


def _cleared_clone(r: Node) -> Node:
    """Step 1 of §V-B: the same structure, every counter 0."""
    return Node(F=r.F, threshold=r.threshold, alpha=[0] * len(r.alpha),
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
