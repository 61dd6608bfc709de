"""RDT# (Jagannathan, Monteleoni & Pillaipakkamnatt 2013), Fig. 3-5, as eager recursive Python.

Categorical attributes only. ε-DP in the private rows (docs/privacy.md §8.2). Fast twin:
:class:`dpviz.trees.rdt_sharp.RDTSharpClassifier` (fed its draws: the same releases).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError
from dpviz.pseudocode.jpw import lap

__all__ = [
    "Leaf", "Node", "add_instance", "add_labeled", "add_noise", "classify", "create_tree",
    "leaf_of", "leaves", "nearest_center", "rdt_sharp",
]


@dataclass
class Leaf:
    """A leaf: its dense-region centres (public rows) and each centre's counters α_c."""

    centers: list[np.ndarray]
    alpha: list[np.ndarray]  # alpha[c][t]: t-labeled rows in the region of centre c


@dataclass
class Node:
    """An internal node testing attribute ``F``; ``children[v]`` for ``x[F] == v``."""

    F: int
    children: list = field(default_factory=list)


def create_tree(D: np.ndarray, N: int, X: list[int], d: int, h: int, *,
                rng: np.random.Generator, N_CELLS: int, domain: Domain) -> Node | Leaf:
    """Fig. 3, ``CreateTree(D, N, X, d, h)``: a random tree with centres from public rows D."""
    if d == h or not X:
        num_centers = min(math.ceil(N_CELLS * len(D) / N), len(D)) if N else 0
        chosen = rng.choice(len(D), size=num_centers, replace=False)  # "randomly choose"
        centers = [D[i] for i in chosen]
        # "each leaf has at least one center": without public rows, one implicit centre
        # whose region is the whole leaf
        return Leaf(centers, [np.zeros(domain.n_classes, dtype=np.int64)
                              for _ in centers or [None]])
    F = int(rng.choice(X))  # "randomly choose an attribute F from X"
    r = Node(F)
    for i in range(int(domain.n_values[F])):  # F has m valid values: a child per value
        D_i = D[D[:, F] == i]
        r.children.append(create_tree(D_i, N, [a for a in X if a != F], d + 1, h, rng=rng,
                                      N_CELLS=N_CELLS, domain=domain))
    return r


def leaf_of(r: Node | Leaf, x: np.ndarray) -> Leaf:
    """Follow ``x`` from ``r`` down to its leaf (the walk of ``AddInstance``)."""
    while isinstance(r, Node):
        r = r.children[int(x[r.F])]
    return r


def nearest_center(leaf: Leaf, x: np.ndarray, domain: Domain) -> int:
    """"The region center in r closest to x" (ties: the first centre; see ``region_distance``)."""
    from dpviz.trees.rdt_sharp import region_distance  # the estimator's (with scikit-learn)

    if not leaf.centers:
        return 0  # the implicit centre of a leaf without public rows
    distances = [float(region_distance(x, c, domain)) for c in leaf.centers]
    return int(np.argmin(distances))


def add_instance(r: Node | Leaf, x: np.ndarray, t: int, domain: Domain) -> None:
    """Fig. 3, ``AddInstance(r, x)``: α_c[t] ← α_c[t] + 1 at the centre c closest to x."""
    leaf = leaf_of(r, x)
    leaf.alpha[nearest_center(leaf, x, domain)][t] += 1


def add_labeled(r: Node | Leaf, D: np.ndarray, labels: np.ndarray, domain: Domain) -> None:
    """Fig. 3, ``AddLabeled(r, D)``: ``AddInstance`` for each labeled row."""
    for x, t in zip(D, labels, strict=True):
        add_instance(r, x, int(t), domain)


def leaves(r: Node | Leaf) -> list[Leaf]:
    """Every leaf of the tree, left to right."""
    return [r] if isinstance(r, Leaf) else [lf for child in r.children for lf in leaves(child)]


def add_noise(R: Node | Leaf, epsilon: float, rng: np.random.Generator,
              noise: str = "discrete_laplace") -> None:
    """Fig. 5, ``AddNoise(R, ε)``: α_c[i] ← α_c[i] + Lap(1/ε) for every centre c and class i."""
    for leaf in leaves(R):
        leaf.alpha = [np.array([a + lap(rng, epsilon, noise) for a in alpha_c])
                      for alpha_c in leaf.alpha]


def classify(E: list[Node | Leaf], x: np.ndarray, domain: Domain) -> np.ndarray:
    """Fig. 4, ``Classify``: P(t|x) = Σ_i α_i[t] / Σ_τ Σ_i α_i[τ] over the trees of E.

    α_i: the counter of the centre closest to x in its leaf of tree i. Negative sums count
    as 0; if none is positive the largest sums share the mass (as ``dpviz.trees.rdt``).
    """
    total = sum(lf.alpha[nearest_center(lf, x, domain)] for lf in (leaf_of(R, x) for R in E))
    total = np.asarray(total, dtype=np.float64)
    positive = np.maximum(total, 0.0)
    if positive.sum() > 0:
        return positive / positive.sum()
    top = (total == total.max()).astype(np.float64)
    return top / top.sum()


def rdt_sharp(
    D_priv: np.ndarray, labels: np.ndarray, D_npriv: np.ndarray, epsilon: float, *,
    h: int, domain: Domain, rng: np.random.Generator, p: int = 5, t: int = 200,
    N_CELLS: int = 10, noise: str = "discrete_laplace",
) -> tuple[list, np.ndarray, list]:
    """Fig. 5, ``Algorithm RDT# Classifier``: E1 on the private rows, pseudo-labels, then E2.

    ``D_priv``/``labels``: the private labeled rows (encoded); ``D_npriv``: the public
    unlabeled rows; each of the p primary trees gets ε/p. Returns E1 (the only private
    release), the pseudo-labels of ``D_npriv`` and E2 (exact counts of pseudo-labeled rows).
    """
    if not domain.categorical_mask.all():
        raise InvalidParameterError("this reference handles categorical attributes only (Fig. 3)")
    X, N = list(range(len(domain))), len(D_npriv)
    E1 = [create_tree(D_npriv, N, X, 0, h, rng=rng, N_CELLS=N_CELLS, domain=domain)
          for _ in range(p)]  # CreateTree(D_npriv, |D_npriv|, X, 0, h), p times
    for R in E1:
        add_labeled(R, D_priv, labels, domain)  # AddLabeled(R, D_priv)
        if not math.isinf(epsilon):
            add_noise(R, epsilon / p, rng, noise)  # AddNoise(R, ε/p)
    pseudo_labels = np.array(  # label D_npriv with Classify(E1, x)
        [int(np.argmax(classify(E1, x, domain))) for x in D_npriv], dtype=np.int64)
    E2 = []
    for _ in range(t if N else 0):
        R = create_tree(D_npriv, N, X, 0, h, rng=rng, N_CELLS=N_CELLS, domain=domain)
        add_labeled(R, D_npriv, pseudo_labels, domain)  # AddLabeled(R, D_npriv), no noise
        E2.append(R)
    return E1, pseudo_labels, E2
