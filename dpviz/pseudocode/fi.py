"""Fletcher & Islam (2017) Algorithms 1–2 with the 2021 addendum's leaf label, as eager Python.

The reference implementation of :class:`dpviz.trees.forest.DPRandomForestClassifier`,
one function per procedure of the paper and in its names:

* :func:`build_forest` — Alg. 1 ``BuildForest(ε, x, τ, S, R, C)``;
* :func:`build_tree` — Alg. 2 ``BuildTree(d, d′, S, R)``, lines 1–19;
* :func:`get_majority_labels` — Alg. 2 ``GetMajorityLabels(ε, x, C, F)``, lines 20–29,
  with :func:`majority_label` (line 25) by the addendum's Report One-Sided Noisy Arg-Max;
* :func:`classify` — FI §2.3: every tree votes with the label of the leaf a row reaches.

Every tree is built in full (all ``m^d`` leaves), so use it on small domains only
(``votes``: 16 two-valued features, depth 8, 256 leaves a tree; SynthA: 5 numeric
features, depth 5, 32 leaves). The fast estimator never builds a tree: it computes a
node's feature and split point from the node's key only for the nodes the rows visit,
routes all rows through all τ trees level by level with numpy, and labels the leaves no
row reaches lazily (see :func:`get_majority_labels`). Both draw the same random numbers
in the same order, so for the same ``random_state`` they release the same forest, leaf
for leaf (``tests/test_pseudocode_fi.py``).

Privacy claim (the estimator's): ε-differential privacy for add/remove one row with
``mechanism="rosnam"`` (FI 2021 addendum §2; McKenna & Sheldon 2020) or
``"exponential"`` (McSherry & Talwar 2007), by parallel composition over the disjoint
leaves (FI §4.2, Definition 3). ``"smooth_sensitivity"`` (FI 2017 §4.1, Theorem 1) has
no proof — the addendum withdraws it — and warns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpviz import keyed, mechanisms
from dpviz.domain import UNKNOWN_CODE, Domain
from dpviz.trees._base import release_generators
from dpviz.trees.random_tree import (
    ATTRIBUTE_STREAM,
    SPLIT_STREAM,
    UNKNOWN_STREAM,
    fletcher_islam_depth,
)
from dpviz.validation import check_random_state

__all__ = [
    "Node",
    "build_forest",
    "build_tree",
    "child_key",
    "classify",
    "count_rows",
    "get_majority_labels",
    "leaves",
    "majority_label",
    "reach_leaf",
    "release_labels",
    "uniform",
]

# the keyed streams from which dpviz.trees.random_tree draws a node's randomness
FEATURE_STREAM, SPLIT_POINT_STREAM = ATTRIBUTE_STREAM, SPLIT_STREAM
UNKNOWN_VALUE_STREAM = UNKNOWN_STREAM


@dataclass
class Node:
    """A node of a random decision tree: an inner node tests feature ``g``, a leaf has a label.

    ``key`` is the node's 64-bit key: its feature and split point are drawn from it
    (:func:`uniform`), and its children's keys are derived from it.
    """

    key: int
    g: int | None = None  # the feature tested (its column in the domain); None: a leaf
    p: float | None = None  # split point of a continuous feature: x_g <= p left, > p right
    children: list[Node] = field(default_factory=list)
    f: np.ndarray | None = None  # a leaf's class counts f(x_t ∩ L_i): a curator secret
    label: int | None = None  # a leaf's private majority label


def uniform(key: int, stream: int) -> float:
    """A public uniform in (0, 1) drawn from a node's key (one per stream)."""
    return float(keyed.uniforms(np.array([key], dtype=np.uint64), stream)[0])


def child_key(key: int, i: int) -> int:
    """The key of child ``i`` of the node with key ``key``."""
    return int(keyed.child_keys(np.array([key], dtype=np.uint64), np.array([i]))[0])


# ---------------------------------------------------------------------------------- Algorithm 1
def build_forest(
    epsilon: float,
    x: np.ndarray,
    tau: int,
    domain: Domain,
    C: np.ndarray,
    *,
    d: int | None = None,
    mechanism: str = "rosnam",
    disjoint: bool = True,
    random_state: int | np.random.Generator | None = None,
) -> list[Node]:
    """FI Alg. 1, ``BuildForest(ε, x, τ, S, R, C)``: τ random trees, then their leaves' labels.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε (``math.inf``: exact majority labels).
    x : ndarray (n, k)
        The rows, encoded with ``domain`` (``domain.encode``).
    tau : int
        τ, the number of trees.
    domain : Domain
        Public: its numeric attributes are S (continuous, with public bounds), its
        categorical ones R (discrete).
    C : ndarray (n,)
        The rows' class codes (``domain.encode_labels``).
    d : int, optional
        The tree depth; default Theorem 2 as FI Table 4 applies it (line 3).
    mechanism, disjoint
        As :class:`~dpviz.trees.forest.DPRandomForestClassifier`'s ``leaf_mechanism``
        and ``disjoint``.
    random_state : int, Generator or None
        Split, like the estimator's, into a public structure generator (the trees'
        keys) and a secret noise generator (row-to-tree assignment, leaf noise).

    Returns
    -------
    list of Node
        F, the forest: τ trees whose leaves carry their private label.
    """
    structure, noise = release_generators(check_random_state(random_state))
    discrete = domain.categorical_mask
    S = {g: tuple(domain.bounds[g]) for g in range(len(domain)) if not discrete[g]}
    R = [g for g in range(len(domain)) if discrete[g]]
    if d is None:
        d = fletcher_islam_depth(len(S), len(R))  # line 3
    F = []
    for tree_key in structure.integers(0, 2**63, size=tau):  # lines 4-7
        root_key = int(keyed.splitmix64(np.array([tree_key], dtype=np.uint64))[0])
        F.append(build_tree(d, 0, S, R, domain, root_key))
    return get_majority_labels(epsilon, x, C, F, domain, mechanism=mechanism,
                               disjoint=disjoint, noise=noise)  # line 8


# ---------------------------------------------------------------------------------- Algorithm 2
def build_tree(
    d: int, d_prime: int, S: dict[int, tuple[float, float]], R: list[int], domain: Domain, key: int
) -> Node:
    """FI Alg. 2, ``BuildTree(d, d′, S, R)``: a random tree drawn from the public domain alone.

    ``S`` maps each continuous feature to its current domain (lower, upper bound), ``R``
    lists the discrete features not yet tested on the path. A node with no feature left
    (every discrete one used, no continuous one) is a leaf.
    """
    T = Node(key)
    features = sorted([*S, *R])  # S ∪ R, in the domain's order
    if d_prime < d and features:  # line 3: termination criteria
        T.g = g = features[int(uniform(key, FEATURE_STREAM) * len(features))]  # line 4
        if g in S:  # lines 5-10
            low, high = S[g]
            T.p = p = low + uniform(key, SPLIT_POINT_STREAM) * (high - low)  # line 6
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
    epsilon: float,
    x: np.ndarray,
    C: np.ndarray,
    F: list[Node],
    domain: Domain,
    *,
    mechanism: str = "rosnam",
    disjoint: bool = True,
    noise: np.random.Generator,
) -> list[Node]:
    """FI Alg. 2, ``GetMajorityLabels(ε, x, C, F)``: a private label for every leaf of every tree.

    ``disjoint`` (line 22): x_t, the rows of tree t, are disjoint — each row picks its
    tree uniformly at random, independently of the other rows (FI sample "without
    replacement"; an equal split would let one added row move others between trees
    and break parallel composition) — and the leaves of all trees are *one* release at
    the full ε. Otherwise every tree reads all of x at ε/τ (FI Fig. 5's comparison).
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

    The fast estimator stores labels only for the leaves some row reaches (drawing their
    noise in the order of the leaves' keys) and computes any other leaf's label when it
    is looked up, from noise keyed by the leaf under a secret key (SipHash-2-4,
    :func:`dpviz.keyed.secret_uniforms`): independent noise for every leaf, as here.
    """
    n_classes = len(L[0].f)
    secret = keyed.new_secret_key(noise)
    reached = sorted((leaf for leaf in L if leaf.f.sum() > 0), key=lambda leaf: leaf.key)
    fresh = mechanisms.open_uniforms(noise, (len(reached), n_classes))
    for leaf, u in zip(reached, fresh, strict=True):
        leaf.label = majority_label(leaf.f, u, epsilon, mechanism)
    for leaf in L:
        if leaf.f.sum() == 0:  # an empty leaf: a uniformly random label (ties of zeros)
            u = keyed.secret_uniforms(secret, np.array([leaf.key], dtype=np.uint64), n_classes)
            leaf.label = majority_label(leaf.f, u[0], epsilon, mechanism)


def majority_label(
    f: np.ndarray, u: np.ndarray, epsilon: float, mechanism: str = "rosnam"
) -> int:
    """Alg. 2 line 25: the leaf's majority label, chosen privately from its counts ``f``.

    ``"rosnam"`` (the addendum): Report One-Sided Noisy Arg-Max, argmax_c f_c + E_c with
    E_c ~ Exponential(scale 1/ε), here −log(u_c)/ε. ``"exponential"``: utility 1 for
    the majority labels, 0 otherwise, at global sensitivity 1. ``"smooth_sensitivity"``:
    FI 2017's Theorem 1 — NOT PROVEN PRIVATE (warns).
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
    """The leaf that ``row`` reaches: follow the tests from the root (FI §2.3, "filtering").

    An unknown category (code −1, prediction only) goes to a child drawn from the node's key.
    """
    while T.children:
        value = row[T.g]
        if T.p is not None:
            T = T.children[int(value > T.p)]
        elif value == UNKNOWN_CODE:
            T = T.children[int(uniform(T.key, UNKNOWN_VALUE_STREAM) * len(T.children))]
        else:
            T = T.children[int(value)]
    return T


def classify(F: list[Node], x: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """FI §2.3: each tree votes for its leaf's label; the forest predicts the majority.

    Returns
    -------
    votes : ndarray (n, n_classes)
        Trees voting for each class.
    predicted : ndarray (n,)
        The most voted class (ties: the first class).
    """
    votes = np.zeros((len(x), n_classes), dtype=np.int64)
    for i, row in enumerate(x):
        for T in F:
            votes[i, reach_leaf(T, row).label] += 1
    return votes, np.argmax(votes, axis=1)
