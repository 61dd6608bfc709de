"""RDT# (Jagannathan, Monteleoni & Pillaipakkamnatt 2013), Fig. 3-5, as eager recursive Python.

Read beside the paper's Figure 3 (``CreateTree``, ``AddLabeled``, ``AddInstance``),
Figure 4 (``Classify``) and Figure 5 (the RDT# Classifier and ``AddNoise``). The names
are the paper's: ``D`` the rows reaching a node, ``N = |D_npriv|``, ``X`` the attributes
still available, ``d`` the depth, ``h`` the height, ``F`` the test attribute,
``num_centers``, ``alpha`` (the counters α_c[t] of a centre), ``E1``/``E2``, ``p``/``t``.

Every tree here is built in full (every child of every node, empty or not), as in the
paper, so use it on small domains only (Votes, a few Mushroom attributes).
:class:`dpviz.trees.rdt_sharp.RDTSharpClassifier` is the fast version: it routes all rows
level by level with numpy, keeps only the leaves that public rows reach, and gives the
centres of the other leaves their noise lazily from a secret-keyed pseudorandom function.
For the same seed the two give exactly the same released noisy centre counts,
pseudo-labels and predictions (``tests/test_pseudocode_rdt_sharp.py``), because this
module replays the fast version's randomness: tree keys and centre orders from its
public structure generator, attribute choices from the node keys
(:func:`dpviz.keyed.uniforms`), noise from its secret noise generator in the same order.

Categorical attributes only, as Fig. 3 ("the algorithm as presented works only for
categorical attributes"); the fast version also splits numeric attributes at random
thresholds (Fan et al. 2003).

Privacy: ε-DP for add/remove one private labeled row (RDT# Theorem 3), with
``noise="discrete_laplace"``: only the p primary trees read private rows, each releases
its centre counts (sensitivity 1) with noise of scale p/ε; the structures, the centres and
the secondary ensemble use only the public rows and the primary trees' released output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpviz import keyed, mechanisms
from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError
from dpviz.trees._base import release_generators
from dpviz.trees.rdt_sharp import region_distance

__all__ = [
    "Leaf",
    "Node",
    "add_instance",
    "add_labeled",
    "add_noise",
    "cell_key",
    "classify",
    "create_tree",
    "leaf_of",
    "leaves",
    "nearest_center",
    "rdt_sharp",
    "rdt_sharp_tree",
]

#: The keyed streams of a node's random choices (those of :mod:`dpviz.trees.random_tree`).
ATTRIBUTE_STREAM = 1


@dataclass
class Leaf:
    """A leaf: its dense-region centres (public rows) and each centre's counters α_c."""

    key: int
    centers: list[np.ndarray]
    alpha: list[np.ndarray]  # alpha[c][t]: t-labeled rows in the region of centre c


@dataclass
class Node:
    """An internal node testing attribute ``F``; ``children[v]`` for ``x[F] == v``."""

    key: int
    F: int
    children: list = field(default_factory=list)


def create_tree(
    D: list[int], N: int, X: list[int], d: int, h: int, *,
    D_npriv: np.ndarray, key: int, order: np.ndarray, N_CELLS: int, T: int, domain: Domain,
) -> Node | Leaf:
    """Fig. 3, ``CreateTree(D, N, X, d, h)``: a random tree with centres from public rows.

    ``D`` holds the positions (in ``D_npriv``) of the public rows reaching this node.
    "Randomly choose an attribute F" is a keyed draw from the node's ``key``, and
    "Select num_centers instances of D at random" takes the rows of D that come first in
    ``order``, a random order of all public rows drawn once per tree (both as the fast
    version draws them). With no attribute left before depth h the node is a leaf.
    """
    if d == h or not X:
        num_centers = min(math.ceil(N_CELLS * len(D) / N), len(D)) if N else 0
        chosen = sorted(D, key=lambda row: order[row])[:num_centers]
        centers = [D_npriv[row] for row in chosen]
        # "each leaf has at least one center": a leaf without public rows has one implicit
        # centre whose region is the whole leaf
        return Leaf(key, centers, [np.zeros(T, dtype=np.int64) for _ in centers or [None]])
    u = keyed.uniforms(np.array([key], dtype=np.uint64), ATTRIBUTE_STREAM)[0]
    F = X[math.floor(u * len(X))]
    r = Node(key, F)
    m = int(domain.n_values[F])  # F has m valid values
    for i in range(m):
        D_i = [row for row in D if D_npriv[row][F] == i]
        child_key = int(keyed.child_keys(np.array([key], dtype=np.uint64), np.array([i]))[0])
        r.children.append(create_tree(
            D_i, N, [a for a in X if a != F], d + 1, h, D_npriv=D_npriv, key=child_key,
            order=order, N_CELLS=N_CELLS, T=T, domain=domain,
        ))
    return r


def leaf_of(r: Node | Leaf, x: np.ndarray) -> Leaf:
    """Follow ``x`` from ``r`` down to its leaf (the walk of ``AddInstance``)."""
    while isinstance(r, Node):
        r = r.children[int(x[r.F])]
    return r


def nearest_center(leaf: Leaf, x: np.ndarray, domain: Domain) -> int:
    """"The region center in r closest to x" (ties: the first centre; see ``region_distance``)."""
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


def cell_key(leaf: Leaf, c: int) -> int:
    """The key of centre ``c``'s region (how the fast version names a centre's counts)."""
    return int(keyed.child_keys(np.array([leaf.key], dtype=np.uint64), np.array([c]))[0])


def leaves(r: Node | Leaf) -> list[Leaf]:
    """Every leaf of the tree, left to right."""
    return [r] if isinstance(r, Leaf) else [lf for child in r.children for lf in leaves(child)]


def add_noise(
    R: Node | Leaf, epsilon: float, rng: np.random.Generator, noise: str = "discrete_laplace"
) -> None:
    """Fig. 5, ``AddNoise(R, ε)``: α_c[i] ← α_c[i] + Lap(1/ε) for every centre c and class i.

    The uniforms behind each centre's noise are drawn as the fast release draws them:
    first a secret key, then fresh uniforms for the centres some labeled row reached
    (in the order of their keys); the other centres' uniforms come from the secret key
    (:func:`dpviz.keyed.secret_uniforms`). Every centre gets independent noise either way.
    ``noise="discrete_laplace"``: integer (two-sided geometric) noise, the proven choice.
    """
    if math.isinf(epsilon):
        return  # the non-private reference: exact counts
    secret = keyed.new_secret_key(rng)
    regions = [(cell_key(lf, c), lf, c) for lf in leaves(R) for c in range(len(lf.alpha))]
    reached = sorted(key for key, lf, c in regions if lf.alpha[c].any())
    T = len(regions[0][1].alpha[0])
    fresh = dict(zip(reached, mechanisms.open_uniforms(rng, (len(reached), 2 * T)), strict=True))
    for key, lf, c in regions:
        u = fresh[key] if key in fresh else keyed.secret_uniforms(
            secret, np.array([key], dtype=np.uint64), 2 * T)[0]
        if noise == "discrete_laplace":
            lf.alpha[c] = mechanisms.discrete_laplace(
                lf.alpha[c], epsilon=epsilon, uniforms=u.reshape(T, 2))
        else:  # the paper's float Laplace: not proven private in floating point
            lf.alpha[c] = np.asarray(
                mechanisms.laplace(lf.alpha[c], epsilon=epsilon, uniforms=u[:T]))


def classify(E: list[Node | Leaf], x: np.ndarray, domain: Domain) -> np.ndarray:
    """Fig. 4, ``Classify``: P(t|x) = Σ_i α_i[t] / Σ_τ Σ_i α_i[τ] over the trees of E.

    α_i is the counter of the centre closest to x in the leaf x reaches in tree i.
    Noisy sums can be negative: they count as 0, and if no class has a positive sum the
    mass goes to the classes with the largest sum (as :func:`dpviz.trees.rdt.classify`).
    """
    total = sum(lf.alpha[nearest_center(lf, x, domain)] for lf in (leaf_of(R, x) for R in E))
    total = np.asarray(total, dtype=np.float64)
    positive = np.maximum(total, 0.0)
    if positive.sum() > 0:
        return positive / positive.sum()
    top = (total == total.max()).astype(np.float64)
    return top / top.sum()


def rdt_sharp_tree(
    D_npriv: np.ndarray, h: int, rng: np.random.Generator, *, N_CELLS: int, domain: Domain
) -> Node | Leaf:
    """Fig. 3, ``Algorithm RDT#`` (without AddLabeled): ``CreateTree(D_npriv, |D_npriv|, X, 0, h)``.

    Draws the tree's key and then the random order of the public rows from ``rng`` (the
    public structure generator).
    """
    key = int(keyed.splitmix64(np.array([int(rng.integers(0, 2**63))], dtype=np.uint64))[0])
    N = len(D_npriv)
    order = np.argsort(rng.permutation(N)) if N else np.zeros(0, dtype=np.int64)
    X = list(range(len(domain)))
    return create_tree(list(range(N)), N, X, 0, h, D_npriv=D_npriv, key=key, order=order,
                       N_CELLS=N_CELLS, T=domain.n_classes, domain=domain)


def rdt_sharp(
    D_priv: np.ndarray, labels: np.ndarray, D_npriv: np.ndarray, epsilon: float, *,
    h: int, domain: Domain, p: int = 5, t: int = 200, N_CELLS: int = 10,
    noise: str = "discrete_laplace", seed: int = 0,
) -> tuple[list, np.ndarray, list]:
    """Fig. 5, ``Algorithm RDT# Classifier``: E1 on the private rows, pseudo-labels, then E2.

    Parameters
    ----------
    D_priv, labels : ndarray
        The private labeled rows (encoded with ``domain``) and their class codes.
    D_npriv : ndarray
        The non-private unlabeled rows, encoded.
    epsilon : float
        Total ε; each primary tree gets ε/p (Theorem 3).
    h : int
        The trees' height (public: see ``RDTSharpClassifier.height``).
    domain : Domain
        The public schema (categorical attributes only).
    p, t, N_CELLS : int
        Primary and secondary ensemble sizes and the number of centres (paper: 5, 200, 10).
    noise : {"discrete_laplace", "laplace"}
        AddNoise's noise.
    seed : int
        The fast estimator's ``random_state``.

    Returns
    -------
    E1 : list of trees
        The primary trees with their noisy counters (the only private release).
    pseudo_labels : ndarray
        The class E1 gives each row of ``D_npriv``.
    E2 : list of trees
        The secondary trees, filled with the pseudo-labeled public rows (exact counts).
    """
    if not domain.categorical_mask.all():
        raise InvalidParameterError("this reference handles categorical attributes only (Fig. 3)")
    structure, noise_rng = release_generators(np.random.default_rng(seed))
    secondary = structure.spawn(1)[0]
    E1 = [rdt_sharp_tree(D_npriv, h, structure, N_CELLS=N_CELLS, domain=domain)
          for _ in range(p)]
    for R in E1:
        add_labeled(R, D_priv, labels, domain)
        add_noise(R, epsilon / p, noise_rng, noise)
    pseudo_labels = np.array(
        [int(np.argmax(classify(E1, x, domain))) for x in D_npriv], dtype=np.int64)
    E2 = []
    if len(D_npriv):
        for _ in range(t):
            R = rdt_sharp_tree(D_npriv, h, secondary, N_CELLS=N_CELLS, domain=domain)
            add_labeled(R, D_npriv, pseudo_labels, domain)
            E2.append(R)
    return E1, pseudo_labels, E2
