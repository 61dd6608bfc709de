"""JPW's random decision trees and Private-RDT, eagerly, in the paper's words.

Jagannathan, Pillaipakkamnatt & Wright, *A Practical Differentially Private Random
Decision Tree Classifier* (ICDM workshops 2009):

* Fig. 1 — :func:`build_tree_structure`, :func:`update_statistics` /
  :func:`add_instance`, and the non-private :func:`random_decision_trees` with its
  pruning step (:func:`prune`);
* Fig. 5 — :func:`add_noise` and :func:`private_rdt` (an ensemble of N trees, ε/N each);
* Fig. 2 — :func:`classify`;
* §V-B — :func:`update` (append a batch D2 at no extra ε).

Every tree is built whole (every node and every leaf is a :class:`Node`), so use small
domains only: Votes at height 8 has 256 leaves, Nursery at height 4 a few hundred,
Mushroom at height 10 tens of millions.

How :class:`~dpviz.trees.rdt.PrivateRDTClassifier` differs, and why. It releases the
*same* trees and the *same* noisy leaf vectors for the same ``random_state`` (the tests
check it bit for bit), but never builds a tree: a node is a 64-bit key, its attribute
and threshold are computed from the key when rows reach it, and all rows go down a tree
together, level by level, with numpy (:mod:`dpviz.trees.random_tree`). Only the leaves
that rows reach are stored, with their noise drawn at fit time; the noise of every other
leaf is computed when someone looks the leaf up, from a secret key
(:mod:`dpviz.leaf_release`) — the same distribution as noise drawn for every leaf, at a
cost that grows with the rows instead of with the leaves (up to ~10^8 per tree on
Mushroom). Here the secret key is drawn and used exactly as the estimator does, so the
two agree on every leaf.

Privacy claim (the estimator's): :func:`private_rdt` is ε-DP for adding or removing one
row — each tree's leaf vector has L1 sensitivity 1 (JPW Theorem 3), noise of scale N/ε on
every component makes each tree ε/N-DP, and the N trees compose to ε (Theorem 2; JPW
§VI splits ε over the trees although Fig. 5 writes Lap(1/ε): see docs/papers.md
(errata)). With ``noise="discrete_laplace"`` (up to the samplers' documented rounding δ,
:mod:`dpviz.mechanisms`); no claim with the float ``"laplace"`` (Mironov 2012).
:func:`update` keeps ε (parallel composition over the disjoint batches D1, D2). The
pruned :func:`random_decision_trees` is *not* private (JPW Fig. 3–4). Only the structure
and the noisy counters are the release; the noise generator and its secret keys are
curator secrets.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from dpviz import keyed, mechanisms
from dpviz.domain import Domain
from dpviz.trees.random_tree import ATTRIBUTE_STREAM, SPLIT_STREAM

__all__ = [
    "Node",
    "add_instance",
    "add_noise",
    "build_tree_structure",
    "classify",
    "counts",
    "leaf_reached",
    "leaves",
    "private_rdt",
    "prune",
    "random_decision_trees",
    "tree_keys",
    "update",
    "update_statistics",
]

#: A training set: rows ``x`` (codes of ``domain.encode``) with class codes ``t``.
Rows = Sequence[tuple[Sequence[float], int]]

# the keyed streams of a node: its attribute, its threshold (those of the fast trees)
ATTRIBUTE, THRESHOLD = ATTRIBUTE_STREAM, SPLIT_STREAM


@dataclass
class Node:
    """A node of a random decision tree.

    Attributes
    ----------
    key : int
        The node's 64-bit key: its random choices are drawn from it.
    F : int or None
        Index of the testing attribute in the domain; ``None`` for a leaf.
    threshold : float or None
        A numeric ``F`` sends ``x[F] <= threshold`` to child 0, the rest to child 1.
    children : list of Node (or None where pruned)
        One child per value of a categorical ``F``, two for a numeric one.
    alpha : list
        A leaf's T counters α[1..T] (JPW Fig. 1), noisy after :func:`add_noise`.
    """

    key: int
    F: int | None = None
    threshold: float | None = None
    children: list[Node | None] = field(default_factory=list)
    alpha: list = field(default_factory=list)


def _uniform(key: int, stream: int) -> float:
    """The node's public uniform number in (0, 1) for one of its random choices."""
    return float(keyed.uniforms(np.array([key], dtype=np.uint64), stream)[0])


def _child_key(key: int, i: int) -> int:
    """The key of child ``i`` of the node with this key."""
    return int(keyed.child_keys(np.array([key], dtype=np.uint64), np.array([i]))[0])


def build_tree_structure(
    X: Sequence[int], h: int, key: int, domain: Domain, ranges: dict | None = None
) -> Node:
    """JPW Fig. 1, ``BuildTreeStructure(X)``, down to height ``h``: no row is read.

    Parameters
    ----------
    X : sequence of int
        The attributes still available on this path (indices into ``domain``, in its order).
    h : int
        Levels left; a node at height 0 is a leaf (Fan et al.'s height, JPW §IV).
    key : int
        The node's key (the root's: see :func:`tree_keys`).
    domain : Domain
        The public schema: each attribute's values (categorical) or bounds (numeric).
    ranges : dict, optional
        A numeric attribute's current range on this path (default: its bounds).

    Returns
    -------
    Node
        The root of the (sub)tree, every leaf with T zero counters.

    Notes
    -----
    The random choice of F is the key's first uniform u: F = X[⌊u·|X|⌋]. A categorical F
    is used once per path (``X − {F}``, one child per value); a numeric F — JPW's
    "random thresholds" extension — splits its current range at a random point and stays
    available. :class:`~dpviz.trees.random_tree.RandomTree` makes the same choices from
    the same keys, level by level; where it runs out of attributes above height 0 it
    passes rows on unchanged, which is this function's early leaf.
    """
    ranges = ranges or {}
    if not X or h == 0:
        return Node(key, alpha=[0] * domain.n_classes)  # "return a leaf node"
    F = X[int(_uniform(key, ATTRIBUTE) * len(X))]  # "randomly choose an attribute F"
    r = Node(key, F=F)  # "create an internal node r with F as the attribute"
    attribute = domain.attributes[F]
    if attribute.is_categorical:  # "assume F has m valid values"
        rest = [a for a in X if a != F]
        for i in range(attribute.n_values):
            r.children.append(build_tree_structure(rest, h - 1, _child_key(key, i), domain,
                                                   ranges))
        return r
    low, high = ranges.get(F, (float(attribute.low), float(attribute.high)))
    r.threshold = low + _uniform(key, THRESHOLD) * (high - low)
    left, right = {**ranges, F: (low, r.threshold)}, {**ranges, F: (r.threshold, high)}
    r.children = [  # x[F] <= threshold, x[F] > threshold; F stays in X
        build_tree_structure(X, h - 1, _child_key(key, 0), domain, left),
        build_tree_structure(X, h - 1, _child_key(key, 1), domain, right),
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
    """JPW Fig. 1, "Prune subtrees with zero counts" — the step that is NOT private (Fig. 3–4).

    Which subtrees survive depends on the rows: a neighbour with one more row can keep a
    leaf this data set prunes.
    """
    for i, c in enumerate(r.children):
        if c is not None and sum(counts(c)) == 0:
            r.children[i] = None
        elif c is not None:
            prune(c)


def tree_keys(structure_rng: np.random.Generator, N: int) -> list[int]:
    """The root keys of N trees, drawn as the estimators draw them (public structure)."""
    seeds = structure_rng.integers(0, 2**63, size=N)
    return [int(k) for k in keyed.splitmix64(seeds.astype(np.uint64))]


def random_decision_trees(
    D: Rows, domain: Domain, *, N: int, h: int, structure_rng: np.random.Generator,
    prune_empty: bool = True,
) -> list[Node]:
    """JPW Fig. 1, Algorithm RDT, N times: Fan et al.'s (non-private) ensemble.

    ``R = BuildTreeStructure(X)``, ``UpdateStatistics(R, D)``, then (``prune_empty``)
    "prune subtrees with zero counts". The same trees and counts as
    :class:`~dpviz.trees.rdt.RandomDecisionTreeClassifier` (``prune=prune_empty``) with
    ``structure_rng`` the first of :func:`~dpviz.trees._base.release_generators`.
    NOT private when pruned (JPW Fig. 3–4).
    """
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
    """JPW Fig. 5, "Add Lap(1/ε) to each component of the leaf vector" (at this tree's ε).

    Every component of every leaf — reached by rows or not — gets independent noise of
    scale 1/ε: discrete Laplace, P(k) ∝ e^(−ε|k|) (default), or the paper's continuous
    Laplace (``noise="laplace"``, not proven private in floating point). ε = ∞ adds none.

    The random numbers are drawn exactly as :class:`~dpviz.leaf_release.NoisyLeafCounts`
    draws them: first a secret key, then fresh uniforms from ``noise_rng`` for the
    leaves rows reached, in increasing key order; every other leaf's uniforms come from
    the secret key and the leaf's key (the estimator computes those only when the leaf
    is looked up).
    """
    if math.isinf(epsilon):
        return
    V = list(leaves(R))
    T = len(V[0].alpha)
    secret = keyed.new_secret_key(noise_rng)
    reached = sorted((leaf for leaf in V if sum(leaf.alpha) > 0), key=lambda leaf: leaf.key)
    fresh = {leaf.key: mechanisms.open_uniforms(noise_rng, (2 * T,)) for leaf in reached}
    for leaf in V:
        if leaf.key in fresh:
            u = fresh[leaf.key]
        else:
            u = keyed.secret_uniforms(secret, np.array([leaf.key], dtype=np.uint64), 2 * T)[0]
        alpha = np.array(leaf.alpha)
        if noise == "discrete_laplace":
            noisy = mechanisms.discrete_laplace(alpha, epsilon=epsilon, uniforms=u.reshape(T, 2))
        else:
            noisy = mechanisms.laplace(alpha, epsilon=epsilon, uniforms=u[:T])
        leaf.alpha = np.asarray(noisy).tolist()


def private_rdt(
    D: Rows,
    domain: Domain,
    *,
    epsilon: float,
    N: int,
    h: int,
    structure_rng: np.random.Generator,
    noise_rng: np.random.Generator,
    noise: str = "discrete_laplace",
) -> list[Node]:
    """JPW Fig. 5, Algorithm Private-RDT, for an ensemble of N trees at ε/N each.

    For each tree: ``R = BuildTreeStructure(X)``, ``UpdateStatistics(R, D)``, add noise
    to each component of the leaf vector (no pruning). ``structure_rng, noise_rng =
    release_generators(np.random.default_rng(seed))`` gives exactly the release of
    ``PrivateRDTClassifier(epsilon, n_trees=N, max_depth=h, noise=noise,
    random_state=seed)``.

    Privacy claim: ε-DP for adding or removing one row of D — each leaf vector has L1
    sensitivity 1 (JPW Theorem 3), so each tree is ε/N-DP, and the N trees compose to ε
    (Theorem 2) — with ``noise="discrete_laplace"``; none with ``"laplace"``. What is
    released: the N structures and their noisy counters; ``noise_rng`` (and the secret
    keys it draws) must stay with the curator.
    """
    X = list(range(len(domain)))
    ensemble = []
    for key in tree_keys(structure_rng, N):
        R = build_tree_structure(X, h, key, domain)
        update_statistics(R, D)
        add_noise(R, epsilon / N, noise_rng, noise)
        ensemble.append(R)
    return ensemble


def update(
    ensemble: list[Node],
    D2: Rows,
    *,
    epsilon: float,
    noise_rng: np.random.Generator,
    noise: str = "discrete_laplace",
) -> None:
    """JPW §V-B: add a new batch D2 to a released ensemble, at no extra ε.

    Per tree r1: 1) clone r1 as r1′ and clear its leaf vector; 2) UpdateStatistics with
    the rows of D2; 3) add noise (ε/N); 4) add r1′'s leaf vector to r1's. D2 and the
    earlier rows are disjoint, so the total stays ε (parallel composition). ``noise_rng``
    continues the generator of the fit (``PrivateRDTClassifier.update(method="jpw")``).
    """
    for r1 in ensemble:
        r1_clone = _cleared_clone(r1)
        update_statistics(r1_clone, D2)
        add_noise(r1_clone, epsilon / len(ensemble), noise_rng, noise)
        for leaf, new in zip(leaves(r1), leaves(r1_clone), strict=True):
            leaf.alpha = [a + b for a, b in zip(leaf.alpha, new.alpha, strict=True)]


def _cleared_clone(r: Node) -> Node:
    """Step 1 of §V-B: the same structure, every counter 0."""
    return Node(
        r.key,
        F=r.F,
        threshold=r.threshold,
        children=[None if c is None else _cleared_clone(c) for c in r.children],
        alpha=[0] * len(r.alpha),
    )


def leaf_reached(R: Node, x: Sequence[float]) -> Node:
    """ℓ: the leaf ``x`` reaches (in a pruned tree, the deepest node left on its path)."""
    r = R
    while r.F is not None and _child(r, x) is not None:
        r = _child(r, x)
    return r


def classify(ensemble: list[Node], x: Sequence[float], *, clip_negative: bool = False) -> list:
    """JPW Fig. 2, Algorithm Classify: P(t|x) = Σ_i α_i[t] / Σ_τ Σ_i α_i[τ].

    α_i are the counters of the leaf ℓ_i that ``x`` reaches in tree R_i (the counts of
    the deepest remaining node in a pruned tree). Noisy sums can be negative: they are
    clipped at 0 before normalizing, and if none is positive the classes with the
    largest sum share the probability (as :func:`dpviz.trees.rdt.classify`); with
    ``clip_negative`` each tree's counters are clipped first (post-processing).
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
