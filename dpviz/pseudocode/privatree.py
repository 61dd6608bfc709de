"""PrivaTree (Vos, Vos, Li, Erkin & Verwer, arXiv 2305.15394 v2), dpviz's variant, as plain Python.

Read from the paper's Appendix (Corollary 4, the leaf budget; the appendix is in the authors'
repository) and the authors' code (github.com/tudelft-cda-lab/PrivaTree,
``privatree/privatree.py``: at 2aff7a0 the splits come from noisy histograms; at f2922ff, "Fix
privacy leaks", the code behind the paper's tables, from permute-and-flip on 0.5 − Gini with a
sensitivity read from a noisy node size, which has no proof of ε-DP, and uniform bins from
given bounds). The histogram splitter below is the earlier method with each histogram charged
its share, dpviz's proven variant, not the paper's published algorithm. The paper's main text
was not available here; the names below are the code's (``max_bins``, ``epsilon_leaf``,
``node_epsilon``, ``fit_recursive``, ``find_best_split``, ``create_leaf``).

T is a :class:`~dpviz.privacy.PrivateTable`: the code sees noisy answers only, and asks the
queries :mod:`dpviz.trees.privatree` asks, in the same order (tests/test_pseudocode_privatree.py
replays them). Where dpviz departs from the authors' code, a comment says ``dpviz:``.
ε-DP in the rows (add/remove one); argument: docs/privacy.md §8.2.6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpviz.domain import Domain
from dpviz.privacy import PrivateTable
from dpviz.trees.privatree import worst_expected_error
from dpviz.validation import check_random_state

__all__ = [
    "Leaf", "Node", "classify", "create_leaf", "distribute_epsilon", "find_best_split",
    "fit_recursive", "private_table", "privatree", "published_split", "uniform_bins",
]


@dataclass
class Leaf:
    """A leaf: ``value``, the label permute-and-flip chose."""

    value: int


@dataclass
class Node:
    """An inner node: ``x[feature] <= threshold`` (numeric) or ``x[feature] in categories``."""

    feature: int
    threshold: float | None
    categories: list[int] | None
    children: list[Leaf | Node] = field(default_factory=list)


def private_table(
    codes: np.ndarray, labels: np.ndarray, domain: Domain, epsilon: float, random_state: Any
) -> PrivateTable:
    """T: the private rows behind the PINQ interface, opened as the estimator opens it."""
    rng = check_random_state(random_state)
    rng.integers(0, 2**63 - 1)  # the estimator's unknown-category routing key (unused here)
    return PrivateTable.from_encoded(codes, labels, domain=domain, epsilon=epsilon, rng=rng)


def uniform_bins(domain: Domain, max_bins: int) -> dict[int, list[float]]:
    """PrivateBinner with ``use_uniform_bins``: the inner edges of ``max_bins`` equal bins.

    From the public ``feature_range`` (here the Domain's bounds): no privacy cost. dpviz:
    the last edge (= high, a split that sends every row left) is not a candidate.
    """
    edges = {}
    for j, a in enumerate(domain):
        if not a.is_categorical:
            edges[j] = list(np.linspace(a.low, a.high, max_bins + 1)[1:-1])
    return edges


def distribute_epsilon(
    epsilon: float, max_depth: int, n_classes: int, n: int | None, epsilon_leaf: float | None
) -> tuple[float, float]:
    """The budget (``__distribute_epsilon``): ε_leaf for the labels, the rest over the levels.

    Appendix, Corollary 4: ε_leaf ≥ 2^d · max_p 2 log(1/p)(1 − (1 − (1−p)^K)/(Kp)) / (n · E_max)
    with E_max = 1 − 0.99; the code takes the smaller of that ε and ε/2 (an absolute ε, not a
    share of ε). dpviz: n is a public number (the authors use the private row count); without
    it, ε/2. ``epsilon_leaf`` given: the leaves' share of ε.
    """
    if max_depth == 0 or epsilon == math.inf:
        return epsilon, math.inf
    if epsilon_leaf is not None:
        leaf = epsilon * epsilon_leaf
    elif n is None:
        leaf = epsilon * 0.5
    else:
        leaf = min(epsilon * 0.5,
                   2**max_depth * worst_expected_error(n_classes) / (n * (1 - 0.99)))
    return leaf, (epsilon - leaf) / max_depth  # node_epsilon: one level's share


def privatree(
    T: PrivateTable, max_depth: int, epsilon: float, *, max_bins: int = 10,
    splitter: str = "histogram", epsilon_leaf: float | None = None, n: int | None = None,
) -> Leaf | Node:
    """``PrivaTreeClassifier.fit``: bins from public bounds, the budget, then the tree."""
    domain = T.domain
    bins = uniform_bins(domain, max_bins)
    # what a node's rows can hold: the bins of a numeric feature, the codes of a categorical one
    scope = {j: list(range(max_bins)) if j in bins else list(range(a.n_values))
             for j, a in enumerate(domain)}
    levels = min(max_depth, sum(len(s) - 1 for s in scope.values()))  # dpviz: usable levels
    eps_leaf, node_epsilon = distribute_epsilon(epsilon, levels, domain.n_classes, n,
                                                epsilon_leaf)
    return fit_recursive(T, scope, bins, 0, levels, node_epsilon, eps_leaf, splitter)


def fit_recursive(
    T: PrivateTable, scope: dict[int, list[int]], bins: dict[int, list[float]], depth: int,
    max_depth: int, node_epsilon: float, eps_leaf: float, splitter: str,
) -> Leaf | Node:
    """``__fit_recursive``: split until ``max_depth``, whatever the data (no early stop).

    The version of 2aff7a0 also stopped at pure or small nodes, read from the exact rows: a
    leak that f2922ff removed. dpviz: a node whose scope has no split left is a leaf too.
    """
    features = [j for j in scope if len(scope[j]) >= 2]
    if depth == max_depth or not features:
        return create_leaf(T, eps_leaf)
    if splitter == "histogram":
        feature, threshold, categories = find_best_split(T, scope, bins, features, node_epsilon)
    elif splitter == "published":
        feature, threshold, categories = published_split(T, scope, bins, features, node_epsilon)
    else:
        feature, threshold, categories = select_split(T, scope, bins, features, node_epsilon)
    if threshold is not None:
        k = bins[feature].index(threshold) + 1  # bins below k go left
        left = [b for b in scope[feature] if b < k]
        right = [b for b in scope[feature] if b >= k]
        T_left, T_right = T.partition(
            lambda rows: (rows[:, feature] > threshold).astype(int), n_parts=2)
    else:
        left = [v for v in scope[feature] if v in categories]
        right = [v for v in scope[feature] if v not in categories]
        T_left, T_right = T.partition(
            lambda rows: (~np.isin(rows[:, feature], categories)).astype(int), n_parts=2)
    node = Node(feature, threshold, categories)
    for part, values in ((T_left, left), (T_right, right)):
        node.children.append(fit_recursive(T=part, scope={**scope, feature: values}, bins=bins,
                                           depth=depth + 1, max_depth=max_depth,
                                           node_epsilon=node_epsilon, eps_leaf=eps_leaf,
                                           splitter=splitter))
    return node


def create_leaf(T: PrivateTable, eps_leaf: float) -> Leaf:
    """``__create_leaf``: permute-and-flip (monotone, sensitivity 1) on the class counts.

    dpviz samples it as Report One-Sided Noisy Arg-Max, which has its law (McKenna & Sheldon).
    """
    K = T.domain.n_classes

    def counts(rows: np.ndarray, y: np.ndarray) -> list[int]:
        c = [0] * K
        for label in y:
            c[int(label)] += 1
        return c

    return Leaf(int(T.select(list(range(K)), counts, sensitivity=1.0, epsilon=eps_leaf,
                             mechanism="report_noisy_max", monotone=True, label="leaf label")))


def bin_of(value: float, edges: list[float]) -> int:
    """``np.digitize(value, edges, right=True)``: the number of inner edges below the value."""
    return sum(e < value for e in edges)


def gini(left: list[float], right: list[float]) -> float:
    """The weighted Gini impurity of one split (``__find_best_split``'s inner loop)."""
    n_l, n_r = sum(left), sum(right)
    g_l = n_l - sum(c**2 for c in left) / n_l if n_l > 0 else 0.0
    g_r = n_r - sum(c**2 for c in right) / n_r if n_r > 0 else 0.0
    return (g_l + g_r) / (n_l + n_r) if n_l + n_r > 0 else 1.0 - 1.0 / len(left)


def find_best_split(
    T: PrivateTable, scope: dict[int, list[int]], bins: dict[int, list[float]],
    features: list[int], node_epsilon: float,
) -> tuple[int, float | None, list[int] | None]:
    """``__find_best_split`` of 2aff7a0: the least Gini on private histograms of every feature.

    ``private_bincount``: per class, the counts of the node's rows in each bin, plus
    truncated geometric noise (two-sided geometric, negatives to 0). dpviz: one histogram
    per feature at ε/F (the authors charge each the level's ε, which composes to F·ε), and
    only the node's own bins or values.
    """
    K = T.domain.n_classes
    candidates, ginis = [], []
    for j in features:
        cells = scope[j]
        if j in bins:
            def cell(rows: np.ndarray, j: int = j, cells: list[int] = cells) -> np.ndarray:
                return np.array([bin_of(v, bins[j]) - cells[0] for v in rows[:, j]], dtype=int)
        else:
            def cell(rows: np.ndarray, j: int = j, cells: list[int] = cells) -> np.ndarray:
                return np.array([cells.index(int(v)) if int(v) in cells else -1
                                 for v in rows[:, j]], dtype=int)
        noisy = T.noisy_histogram(cell, n_cells=len(cells), epsilon=node_epsilon / len(features),
                                  label="split histogram")
        hist = [[max(float(noisy[b][c]), 0.0) for c in range(K)] for b in range(len(cells))]
        if j in bins:
            orders = [list(range(len(cells)))]  # numeric bins in their order
        else:  # categories sorted by their share of class c (class 1 only for two classes)
            orders = [sorted(range(len(cells)), key=lambda b, c=c: share(hist[b], c))
                      for c in ([1] if K == 2 else range(K))]
        seen = set()
        for order in orders:
            for p in range(1, len(cells)):
                left = [sum([hist[b][c] for b in order[:p]], 0.0) for c in range(K)]
                total = [sum([hist[b][c] for b in order], 0.0) for c in range(K)]
                right = [total[c] - left[c] for c in range(K)]
                if j in bins:
                    candidates.append((j, bins[j][cells[0] + p - 1], None))
                else:
                    cats = sorted(cells[b] for b in order[:p])
                    key = min(tuple(cats), tuple(v for v in cells if v not in cats))
                    if key in seen:
                        continue
                    seen.add(key)
                    candidates.append((j, None, cats))
                ginis.append(gini(left, right))
    best = [i for i, g in enumerate(ginis) if g == min(ginis)]
    return candidates[best[0] if len(best) == 1 else int(T.rng.choice(best))]


def share(counts: list[float], c: int) -> float:
    """A category's share of class c in its noisy counts (1/K when they are all 0)."""
    total = sum(counts)
    return counts[c] / total if total > 0 else 1.0 / len(counts)


def select_split(
    T: PrivateTable, scope: dict[int, list[int]], bins: dict[int, list[float]],
    features: list[int], node_epsilon: float,
) -> tuple[int, float | None, list[int] | None]:
    """``__find_best_split`` of f2922ff, made ε-DP: one selection over every candidate.

    The authors' permute-and-flip scores 0.5 − Gini with a sensitivity set from a noisy row
    count (no proof). dpviz: the exponential mechanism with FS's Gini quality
    −Σ n_side·Gini_side, whose global sensitivity is 2; a categorical candidate is one value
    against the rest.
    """
    candidates: list[tuple[int, float | None, list[int] | None]] = []
    for j in features:
        if j in bins:
            candidates += [(j, bins[j][b - 1], None) for b in scope[j][1:]]
        else:
            values = scope[j] if len(scope[j]) > 2 else scope[j][:1]
            candidates += [(j, None, [v]) for v in values]
    K = T.domain.n_classes

    def quality(rows: np.ndarray, y: np.ndarray) -> list[float]:
        out = []
        for j, threshold, categories in candidates:
            tau = [[0.0] * K, [0.0] * K]
            for x, label in zip(rows[:, j], y, strict=True):
                goes_right = x > threshold if threshold is not None else x not in categories
                tau[int(goes_right)][int(label)] += 1
            out.append(-sum(sum(t) - sum(c**2 for c in t) / sum(t) if sum(t) > 0 else 0.0
                            for t in tau))
        return out

    return T.select(candidates, quality, sensitivity=2.0, epsilon=node_epsilon, label="split")


def published_split(
    T: PrivateTable, scope: dict[int, list[int]], bins: dict[int, list[float]],
    features: list[int], node_epsilon: float,
) -> tuple[int, float | None, list[int] | None]:
    """``__find_best_split`` of f2922ff, the code behind the paper's tables: NO claim of DP.

    ``n = GeometricTruncated(node_epsilon / 2, lower=1).randomise(len(X))``, then
    ``PermuteAndFlip(node_epsilon / 2, sensitivity=1 - (n/(n+1))**2 - (1/(n+1))**2)`` on
    ``0.5 - gini`` of every candidate. The sensitivity comes from a noisy n: too small when n
    overstates the node's rows (docs/privacy.md §8.2.6). dpviz: the two-sided geometric
    (discrete Laplace) count, clamped at 1; permute-and-flip sampled as Report Noisy Max with
    exponential noise (the same law); only the node's own bins and values (the authors' code
    also offers splits that send every row one way).
    """
    candidates: list[tuple[int, float | None, list[int] | None]] = []
    for j in features:
        if j in bins:
            candidates += [(j, bins[j][b - 1], None) for b in scope[j][1:]]
        else:  # bin_order = arange: the values in code order, every prefix to the left
            candidates += [(j, None, scope[j][: p + 1]) for p in range(len(scope[j]) - 1)]
    n = max(T.noisy_count(epsilon=node_epsilon / 2, label="node size"), 1.0)
    sensitivity = 1 - (n / (n + 1)) ** 2 - (1 / (n + 1)) ** 2
    K = T.domain.n_classes

    def utility(rows: np.ndarray, y: np.ndarray) -> list[float]:
        out = []
        for j, threshold, categories in candidates:
            left, right = [0.0] * K, [0.0] * K
            for x, label in zip(rows[:, j], y, strict=True):
                goes_right = x > threshold if threshold is not None else x not in categories
                (right if goes_right else left)[int(label)] += 1
            out.append(0.5 - gini(left, right))
        return out

    return T.select(candidates, utility, sensitivity=sensitivity, epsilon=node_epsilon / 2,
                    mechanism="report_noisy_max", monotone=False, label="split")


def classify(tree: Leaf | Node, x: np.ndarray) -> int:
    """The label of the encoded row ``x`` (``Node.predict``)."""
    while isinstance(tree, Node):
        if tree.threshold is not None:
            go_right = x[tree.feature] > tree.threshold
        else:
            go_right = int(x[tree.feature]) not in tree.categories
        tree = tree.children[int(go_right)]
    return tree.value
