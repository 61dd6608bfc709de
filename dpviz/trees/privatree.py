"""PrivaTree (Vos, Vos, Li, Erkin & Verwer, arXiv 2305.15394): a greedy Gini tree, privately.

dpviz's proven variant, not the algorithm behind the paper's tables: those came from the
authors' final code (github.com/tudelft-cda-lab/PrivaTree at f2922ff, "Fix privacy leaks";
c3d33ae adds the appendix), whose split is permute-and-flip on 0.5 − Gini with a sensitivity
read from a noisy node size (no proven ε-DP). Every numeric attribute is cut into ``n_bins``
equal bins of its public range (the authors' ``use_uniform_bins``), so the split candidates come
from the Domain, never from the rows. Each level of the tree spends ``(ε − ε_leaf) / d``: a node
chooses its binary split from noisy class histograms of its attributes' bins, each charged ε/F
(``splitter="histogram"``, the default: the authors' earlier method, 2aff7a0, which charged each
histogram the whole level's ε) or by one exponential-mechanism query over all its candidates
(``splitter="exponential"``: the later code's single selection, with FS's Gini quality and its
global sensitivity), or (``splitter="published"``, no claim) as the authors' final code does;
the nodes of a level hold disjoint rows (parallel composition). Every one of the 2^d leaves then
gets its label by permute-and-flip (Report One-Sided Noisy Arg-Max) at ε_leaf = min(ε/2,
2^d·W(K)/(n·0.01)), the paper's Appendix (Corollary 4), with n a public training size. The rows
are read only through a :class:`~dpviz.privacy.PrivateTable`. Twin in the authors' words:
:mod:`dpviz.pseudocode.privatree`. ε-DP in the rows (add/remove one) with ``"histogram"`` or
``"exponential"``; no claim with ``"published"``; argument: docs/privacy.md §8.2.6.
"""

from __future__ import annotations

import html
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar

from dpviz import keyed, mechanisms
from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.privacy import Ledger, PrivateTable
from dpviz.records import atomic, open_table
from dpviz.trees._base import Classifier, DPEstimatorMixin, check_fitted
from dpviz.trees.id3_quality import q_gini, sensitivity_gini
from dpviz.trees.random_tree import UNKNOWN_STREAM
from dpviz.validation import check_epsilon, check_int

__all__ = [
    "DEFAULT_BINS", "LEAF_SUCCESS", "MAX_LEAF_SHARE", "SPLITTERS", "Plan", "PrivaNode", "PrivaTree",
    "PrivaTreeClassifier", "Scope", "Split", "bin_edges", "budget", "candidate_splits",
    "choose_split_exponential", "choose_split_histogram", "choose_split_published",
    "histogram_splits", "leaf_epsilon", "leaf_label", "ordered_splits", "plan", "privatree",
    "published_sensitivity", "weighted_gini", "worst_expected_error",
]

#: The authors' defaults: 10 bins per numeric attribute, a leaf label right with
#: probability 0.99 (Corollary 4's E_max = 1 − 0.99), at most half of ε for the leaves.
DEFAULT_BINS = 10
LEAF_SUCCESS = 0.99
MAX_LEAF_SHARE = 0.5
SPLITTERS = ("histogram", "exponential", "published")

#: Ledger labels of the query kinds.
LABEL_HISTOGRAM = "split histogram"
LABEL_SPLIT = "split"
LABEL_LEAF = "leaf label"
LABEL_SIZE = "node size"

#: The warning of the published splitter (no claim).
PUBLISHED_MESSAGE = (
    "splitter='published' is the split selection of the authors' code behind the paper's "
    "tables (f2922ff): permute-and-flip on 0.5 - Gini with a sensitivity computed from a noisy "
    "node size, which is too small whenever the noisy size overstates the true one. It has no "
    "proof of differential privacy (docs/privacy.md §8.2.6); it is kept to compare with the "
    "published numbers. Use splitter='histogram' or 'exponential' for a claim."
)


# =============================================================================== budget
def worst_expected_error(n_classes: int) -> float:
    """max_p 2·log(1/p)·(1 − (1 − (1−p)^K)/(K·p)): permute-and-flip's worst expected error.

    In counts, at ε = Δ = 1, over K candidates (McKenna & Sheldon 2020, Prop. 4; PrivaTree
    Appendix, Corollary 4); 1/e for K = 2.
    """
    k = check_int(n_classes, "n_classes", minimum=2)

    def minus_error(p: float) -> float:
        return -2.0 * math.log(1.0 / p) * (1.0 - (1.0 - (1.0 - p) ** k) / (k * p))

    best = minimize_scalar(minus_error, bounds=(1e-12, 1.0), method="bounded",
                           options={"xatol": 1e-12})
    return float(-best.fun)


def leaf_epsilon(epsilon: float, depth: int, n_classes: int, n_public: int | None) -> float:
    """ε_leaf = min(ε/2, 2^d·W(K) / (n·E_max)): the paper's leaf budget (Appendix, Corollary 4).

    An absolute ε, as the authors' code computes it (``__distribute_epsilon``: the smaller of
    ``epsilon·max_leaf_epsilon_share`` and the required ε): with it, permute-and-flip's expected
    share of rows a wrong leaf label costs stays below E_max = 1 − ``LEAF_SUCCESS`` (W(K):
    :func:`worst_expected_error`). ``n`` must be public (``n_public``: a documented or declared
    training size, never counted from the rows, where the authors read the private count);
    without it, the cap ε/2. ``ε = inf``: inf.
    """
    cap = epsilon * MAX_LEAF_SHARE
    if n_public is None or math.isinf(epsilon):
        return cap
    need = 2.0**depth * worst_expected_error(n_classes) / (n_public * (1.0 - LEAF_SUCCESS))
    return min(cap, need)


def budget(epsilon: float, levels: int, leaf: float) -> tuple[float, float]:
    """(ε of each level's split queries, ε of the leaf labels) for the leaves' ``leaf`` ≤ ε.

    No level: all ε to the leaves. ``ε = inf`` (the non-private reference): every query exact.
    """
    if levels == 0 or math.isinf(epsilon):
        return math.inf, epsilon
    return (epsilon - leaf) / levels, leaf


# =============================================================================== splits
def bin_edges(low: float, high: float, n_bins: int) -> np.ndarray:
    """The public bin edges ``low + (high − low)·i / n_bins``, i = 0 … n_bins."""
    return np.linspace(low, high, n_bins + 1)


@dataclass(frozen=True)
class Split:
    """A public binary test: ``x ≤ threshold`` (numeric) or ``x ∈ left`` (categorical) go left."""

    attribute: str
    index: int
    threshold: float | None = None
    left: tuple[int, ...] = ()

    def goes_right(self, codes: np.ndarray) -> np.ndarray:
        """0 (left) or 1 (right) for each encoded row."""
        column = codes[:, self.index]
        if self.threshold is not None:
            return (column > self.threshold).astype(np.int64)
        return (~np.isin(column, self.left)).astype(np.int64)

    def describe(self, domain: Domain) -> tuple[str, str]:
        """The conditions of the left and right edges, in the domain's words."""
        if self.threshold is not None:
            t = f"{self.threshold:.6g}"
            return f"{self.attribute} <= {t}", f"{self.attribute} > {t}"
        values = domain[self.attribute].values
        shown = ", ".join(str(values[v]) for v in self.left)
        return f"{self.attribute} in {{{shown}}}", f"{self.attribute} not in {{{shown}}}"


@dataclass(frozen=True)
class Scope:
    """What a node's rows can hold (public): bins [a, b) of a numeric attribute, or codes."""

    bins: dict[str, tuple[int, int]]
    values: dict[str, tuple[int, ...]]

    @classmethod
    def of(cls, domain: Domain, n_bins: int) -> Scope:
        """The root's scope: every bin and every value."""
        return cls({a.name: (0, n_bins) for a in domain if not a.is_categorical},
                   {a.name: tuple(range(a.n_values)) for a in domain if a.is_categorical})

    def size(self, name: str) -> int:
        """Number of bins or values of ``name`` left here."""
        if name in self.bins:
            a, b = self.bins[name]
            return b - a
        return len(self.values[name])

    def active(self, domain: Domain) -> list[str]:
        """The attributes that can still split (two bins or values left), in domain order."""
        return [n for n in domain.names if self.size(n) >= 2]

    def children(self, split: Split, edges: np.ndarray) -> tuple[Scope, Scope]:
        """The scopes of the left and right child of ``split``."""
        name = split.attribute
        if split.threshold is not None:
            a, b = self.bins[name]
            k = int(np.flatnonzero(edges == split.threshold)[0])  # threshold = edges[k]
            return (Scope({**self.bins, name: (a, k)}, self.values),
                    Scope({**self.bins, name: (k, b)}, self.values))
        left = tuple(v for v in self.values[name] if v in split.left)
        right = tuple(v for v in self.values[name] if v not in split.left)
        return (Scope(self.bins, {**self.values, name: left}),
                Scope(self.bins, {**self.values, name: right}))

    def capacity(self) -> int:
        """The most splits a path below can make (each removes a bin or a value)."""
        return sum(b - a - 1 for a, b in self.bins.values()) + sum(
            len(v) - 1 for v in self.values.values())


def _cells(domain: Domain, scope: Scope, name: str, edges: np.ndarray) -> Any:
    """Row-wise map of the encoded rows to the node's cells of ``name`` (bins or values)."""
    j = domain.index(name)
    if name in scope.bins:
        a = scope.bins[name][0]
        interior = edges[1:-1]
        return lambda codes: np.searchsorted(interior, codes[:, j], side="left") - a
    lookup = np.full(domain[name].n_values, -1, dtype=np.int64)
    lookup[list(scope.values[name])] = np.arange(scope.size(name))
    return lambda codes: lookup[codes[:, j].astype(np.int64)]


def weighted_gini(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """CART's weighted Gini impurity of splits with class counts ``left``, ``right`` (s, K).

    An empty side counts 0; a split of no rows gets 1 − 1/K (the least informative).
    """
    n_l, n_r = left.sum(axis=1), right.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        g_l = np.where(n_l > 0, n_l - (left**2).sum(axis=1) / n_l, 0.0)
        g_r = np.where(n_r > 0, n_r - (right**2).sum(axis=1) / n_r, 0.0)
        total = n_l + n_r
        gini = np.where(total > 0, (g_l + g_r) / total, 1.0 - 1.0 / left.shape[1])
    return gini


def histogram_splits(
    histogram: np.ndarray, name: str, index: int, scope: Scope, edges: np.ndarray
) -> tuple[list[Split], np.ndarray]:
    """The candidate splits of one attribute and their Gini, from its noisy histogram (m, K).

    Numeric: the bins in order, a threshold between any two. Categorical: the values sorted
    by their share of class c, every prefix to the left (Breiman's ordering, the authors' for
    two classes; with K > 2 classes one ordering per class). Counts below 0 count as 0.
    """
    h = np.maximum(np.asarray(histogram, dtype=np.float64), 0.0)
    m, k = h.shape
    if name in scope.bins:
        a = scope.bins[name][0]
        orders = [np.arange(m)]
    else:
        totals = h.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(totals[:, None] > 0, h / totals[:, None], 1.0 / k)
        orders = [np.argsort(share[:, c], kind="stable") for c in ([1] if k == 2 else range(k))]
    splits: list[Split] = []
    lefts, rights, seen = [], [], set()
    for order in orders:
        prefix = np.cumsum(h[order], axis=0)[:-1]
        for p in range(m - 1):
            if name in scope.bins:
                split = Split(name, index, threshold=float(edges[a + p + 1]))
            else:
                left = tuple(sorted(scope.values[name][i] for i in order[: p + 1]))
                key = min(left, tuple(v for v in scope.values[name] if v not in left))
                if key in seen:
                    continue
                seen.add(key)
                split = Split(name, index, left=left)
            splits.append(split)
            lefts.append(prefix[p])
            rights.append(h.sum(axis=0) - prefix[p])
    return splits, weighted_gini(np.array(lefts), np.array(rights))


def _argmin_random(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of the smallest value, ties broken uniformly at random (post-processing)."""
    best = np.flatnonzero(values == values.min())
    return int(best[0] if best.size == 1 else rng.choice(best))


def choose_split_histogram(
    table: PrivateTable, scope: Scope, edges: dict[str, np.ndarray], epsilon: float
) -> Split:
    """The split of least weighted Gini on noisy histograms: one per attribute at ε / F.

    Each histogram (the node's bins or values × classes) is ε/F-DP (disjoint cells); the F
    attributes compose sequentially to ε; the Gini and the arg-min are post-processing.
    """
    domain = table.domain
    names = scope.active(domain)
    share = epsilon / len(names)
    splits: list[Split] = []
    ginis = []
    for name in names:
        cells = _cells(domain, scope, name, edges.get(name, np.empty(0)))
        h = table.noisy_histogram(cells, n_cells=scope.size(name), epsilon=share,
                                  label=LABEL_HISTOGRAM)
        s, g = histogram_splits(h, name, domain.index(name), scope, edges.get(name))
        splits += s
        ginis.append(g)
    return splits[_argmin_random(np.concatenate(ginis), table.rng)]


def candidate_splits(domain: Domain, scope: Scope, edges: dict[str, np.ndarray]) -> list[Split]:
    """Every public candidate of a node: each inner bin edge, each value against the rest."""
    return _scope_splits(domain, scope, edges,
                         lambda values: [(v,) for v in values[: 1 if len(values) == 2 else None]])


def _scope_splits(domain: Domain, scope: Scope, edges: dict[str, np.ndarray],
                  lefts: Callable[[Sequence[Any]], list[tuple]]) -> list[Split]:
    """Each inner bin edge of the node's scope, and a categorical attribute's ``lefts(values)``."""
    out: list[Split] = []
    for name in scope.active(domain):
        j = domain.index(name)
        if name in scope.bins:
            a, b = scope.bins[name]
            out += [Split(name, j, threshold=float(edges[name][k])) for k in range(a + 1, b)]
        else:
            out += [Split(name, j, left=left) for left in lefts(scope.values[name])]
    return out


def split_qualities(
    codes: np.ndarray, labels: np.ndarray, splits: list[Split], n_classes: int
) -> np.ndarray:
    """FS's Gini quality −Σ_side n_s·Gini_s of every candidate on the node's exact rows."""
    tables = np.stack([
        np.bincount(s.goes_right(codes) * n_classes + labels, minlength=2 * n_classes)
        .reshape(2, n_classes) for s in splits]).astype(np.float64)
    return np.asarray(q_gini(tables), dtype=np.float64)


def choose_split_exponential(
    table: PrivateTable, scope: Scope, edges: dict[str, np.ndarray], epsilon: float
) -> Split:
    """One exponential-mechanism query over the node's candidates, Gini quality (Δ = 2): ε-DP."""
    splits = candidate_splits(table.domain, scope, edges)
    k = table.domain.n_classes
    chosen = table.select(
        splits, lambda codes, labels: split_qualities(codes, labels, splits, k),
        sensitivity=sensitivity_gini(), epsilon=epsilon, label=LABEL_SPLIT)
    assert isinstance(chosen, Split)
    return chosen


def published_sensitivity(n: float) -> float:
    """1 − (n/(n+1))² − (1/(n+1))² = 2n/(n+1)²: the authors' bound on a Gini's change at size n.

    The Gini of n rows of one class after one row of another is added; the authors compute it
    from a noisy n (:func:`choose_split_published`).
    """
    return 1.0 - (n / (n + 1.0)) ** 2 - (1.0 / (n + 1.0)) ** 2


def ordered_splits(domain: Domain, scope: Scope, edges: dict[str, np.ndarray]) -> list[Split]:
    """The authors' candidates in the node's scope (``bin_order = arange``).

    Each inner bin edge; a categorical attribute's values in code order, every prefix to the
    left. dpviz: only the node's own bins and values (the authors' code also offers splits
    that send every row one way).
    """
    return _scope_splits(domain, scope, edges,
                         lambda values: [tuple(values[: p + 1]) for p in range(len(values) - 1)])


def choose_split_published(
    table: PrivateTable, scope: Scope, edges: dict[str, np.ndarray], epsilon: float
) -> Split:
    """The authors' published split (f2922ff ``__find_best_split``): no claim.

    A noisy node size ñ (two-sided geometric at ε/2, at least 1: their truncated geometric),
    then permute-and-flip at ε/2 on 0.5 − weighted Gini over :func:`ordered_splits` with the
    sensitivity :func:`published_sensitivity` (ñ): too small whenever ñ overstates the node's
    rows, so no ε-DP follows (docs/privacy.md §8.2.6). Permute-and-flip is sampled as Report
    Noisy Max with exponential noise, which has its law.
    """
    splits = ordered_splits(table.domain, scope, edges)
    size = max(table.noisy_count(epsilon=epsilon / 2, label=LABEL_SIZE), 1.0)
    k = table.domain.n_classes

    def utility(codes: np.ndarray, labels: np.ndarray) -> np.ndarray:
        sides = np.stack([
            np.bincount(s.goes_right(codes) * k + labels, minlength=2 * k).reshape(2, k)
            for s in splits]).astype(np.float64)
        return 0.5 - weighted_gini(sides[:, 0], sides[:, 1])

    chosen = table.select(splits, utility, sensitivity=published_sensitivity(size),
                          epsilon=epsilon / 2, mechanism="report_noisy_max", monotone=False,
                          label=LABEL_SPLIT)
    assert isinstance(chosen, Split)
    return chosen


def leaf_label(table: PrivateTable, epsilon: float) -> int:
    """The leaf's label by permute-and-flip on its class counts (monotone, Δ = 1): ε-DP."""
    k = table.domain.n_classes
    label = table.select(
        list(range(k)), lambda codes, labels: np.bincount(labels, minlength=k),
        sensitivity=1.0, epsilon=epsilon, mechanism="report_noisy_max", monotone=True,
        label=LABEL_LEAF)
    return int(label)  # type: ignore[call-overload]


# =============================================================================== the tree
@dataclass(eq=False)
class PrivaNode:
    """A node: an inner node's public ``split`` and two children, or a leaf's ``label``."""

    depth: int
    condition: str
    epsilon: float  # ε of this node's query (its split, or its label)
    split: Split | None = None
    children: list[PrivaNode] = field(default_factory=list)
    label: int | None = None

    def walk(self) -> Iterator[PrivaNode]:
        """Pre-order iterator over the node and its descendants."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class Plan:
    """What a PrivaTree fit settles before it reads a row, all public: bins, depth, ε shares."""

    n_bins: int
    edges: dict[str, np.ndarray]  # each numeric attribute's public bin edges
    levels: int  # the tree's depth: max_depth, or fewer when no candidate would be left
    eps_level: float  # ε of each level's split queries (the level's nodes in parallel)
    eps_leaf: float  # ε of each leaf label


def plan(
    domain: Domain, depth: int, epsilon: float, *, n_bins: int = DEFAULT_BINS,
    share: float | None = None, n_public: int | None = None,
) -> Plan:
    """The bins, depth and ε shares of a PrivaTree fit, from public values only.

    ``share``: the leaves' share of ε, given; by default ε_leaf is :func:`leaf_epsilon`'s.
    """
    edges = {a.name: bin_edges(a.low, a.high, n_bins) for a in domain
             if not a.is_categorical}  # type: ignore[union-attr]
    levels = min(depth, Scope.of(domain, n_bins).capacity())
    leaf = (leaf_epsilon(epsilon, levels, domain.n_classes, n_public) if share is None
            else epsilon * share)
    return Plan(n_bins, edges, levels, *budget(epsilon, levels, leaf))


def privatree(table: PrivateTable, settings: Plan, *, splitter: str = "histogram") -> PrivaNode:
    """PrivaTree on ``table``: ``settings.levels`` levels of splits, then a label per leaf."""
    choose = {"histogram": choose_split_histogram, "exponential": choose_split_exponential,
              "published": choose_split_published}[splitter]
    root = PrivaNode(0, "(root)", settings.eps_level)
    return _grow(table, root, Scope.of(table.domain, settings.n_bins), settings.edges,
                 settings.levels, settings.eps_level, settings.eps_leaf, choose)


def _grow(
    table: PrivateTable, node: PrivaNode, scope: Scope, edges: dict[str, np.ndarray],
    levels: int, eps_level: float, eps_leaf: float, choose: Any,
) -> PrivaNode:
    """Split ``node`` until depth ``levels`` (or no candidate is left), then label it."""
    if node.depth == levels or not scope.active(table.domain):
        node.epsilon = eps_leaf
        node.label = leaf_label(table, eps_leaf)
        return node
    node.split = split = choose(table, scope, edges, eps_level)
    conditions = split.describe(table.domain)
    parts = table.partition(split.goes_right, n_parts=2)
    for part, child_scope, condition in zip(parts, scope.children(split, edges.get(
            split.attribute, np.empty(0))), conditions, strict=True):
        child = PrivaNode(node.depth + 1, condition, eps_level)
        node.children.append(_grow(part, child, child_scope, edges, levels, eps_level, eps_leaf,
                                   choose))
    return node


@dataclass
class _Flat:
    """The tree as arrays for vectorized routing (breadth-first)."""

    feature: np.ndarray  # -1 at a leaf
    threshold: np.ndarray  # NaN for a categorical test
    left: np.ndarray  # (nodes, max values): True where a category goes left
    first_child: np.ndarray
    label: np.ndarray
    depth: int


def _flatten(root: PrivaNode, domain: Domain) -> _Flat:
    order, first_child = [root], []
    for node in order:  # grows while iterating: breadth-first
        first_child.append(len(order) if node.split else -1)
        order.extend(node.children)
    width = max([1, *domain.n_values])
    n = len(order)
    feature = np.full(n, -1, dtype=np.int64)
    threshold = np.full(n, np.nan)
    left = np.zeros((n, width), dtype=bool)
    label = np.zeros(n, dtype=np.int64)
    for i, node in enumerate(order):
        if node.split is None:
            label[i] = node.label
            continue
        feature[i] = node.split.index
        if node.split.threshold is not None:
            threshold[i] = node.split.threshold
        left[i, list(node.split.left)] = True
    depth = max(node.depth for node in order)
    return _Flat(feature, threshold, left, np.asarray(first_child, dtype=np.int64), label, depth)


def _route(flat: _Flat, codes: np.ndarray, key: int) -> np.ndarray:
    """The leaf (index into ``flat``) of every encoded row.

    An unknown category (code −1) goes right when the keyed uniform of (model key, node)
    is ≥ 1/2: a function of the public model and the row only.
    """
    node = np.zeros(codes.shape[0], dtype=np.int64)
    for _ in range(flat.depth):
        idx = np.flatnonzero(flat.feature[node] >= 0)
        if idx.size == 0:
            break
        here = node[idx]
        values = codes[idx, flat.feature[here]]
        thr = flat.threshold[here]
        numeric = ~np.isnan(thr)
        cat = np.clip(values, 0, flat.left.shape[1] - 1).astype(np.int64)
        right = np.where(numeric, values > np.where(numeric, thr, 0.0), ~flat.left[here, cat])
        unknown = ~numeric & (values < 0)
        if unknown.any():
            at = here[unknown]
            u = keyed.uniforms(keyed.child_keys(np.full(at.size, key, dtype=np.uint64), at),
                               UNKNOWN_STREAM)
            right[unknown] = u >= 0.5
        node[idx] = flat.first_child[here] + right.astype(np.int64)
    return node


class PrivaTree:
    """A released PrivaTree with its public context (domain, splitter, ε of levels and leaves)."""

    def __init__(self, root: PrivaNode, domain: Domain, *, splitter: str, budget: float,
                 eps_level: float, eps_leaf: float) -> None:
        self.root, self.domain, self.splitter = root, domain, splitter
        self.budget, self.eps_level, self.eps_leaf = budget, eps_level, eps_leaf

    def nodes(self) -> Iterator[PrivaNode]:
        """Pre-order iterator over every node."""
        return self.root.walk()

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return sum(node.split is None for node in self.nodes())

    @property
    def depth(self) -> int:
        """The deepest leaf's depth."""
        return max(node.depth for node in self.nodes())

    @property
    def header(self) -> str:
        """One line: splitter, budget, ε per level and per leaf, depth, leaves and classes."""
        return (f"PrivaTree ({self.splitter} splits): ε = {self.budget:g}, ε per level = "
                f"{self.eps_level:.4g}, ε per leaf = {self.eps_leaf:.4g}, depth {self.depth}, "
                f"{self.n_leaves} leaves; classes {list(self.domain.classes)}")

    def to_frame(self) -> pd.DataFrame:
        """One row per node (pre-order): depth, condition, ε, split, label."""
        classes = list(self.domain.classes)
        rows = [(n.depth, n.condition, n.epsilon,
                 "" if n.split is None else n.split.describe(self.domain)[0],
                 None if n.label is None else classes[n.label]) for n in self.nodes()]
        return pd.DataFrame(rows, columns=["depth", "condition", "epsilon", "split", "label"])

    def __str__(self) -> str:
        classes = list(self.domain.classes)
        lines = [self.header]
        for n in self.nodes():
            end = "" if n.label is None else f"  → class {classes[n.label]}"
            lines.append(f"{'  ' * n.depth}{n.condition}{end}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"PrivaTree({self.splitter}, ε = {self.budget:g}, depth {self.depth}, "
                f"{self.n_leaves} leaves)")

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(str(self))}</pre>"


# =============================================================================== estimator
class PrivaTreeClassifier(DPEstimatorMixin, Classifier):
    """PrivaTree (Vos et al.), dpviz's proven variant: noisy histograms choose the splits.

    Not the authors' published split selection, which has no proof (docs/privacy.md §8.2.6).
    Binary splits on public candidates (``n_bins`` equal bins of each numeric attribute's
    public range; subsets of a categorical attribute's values), always grown to ``max_depth``
    (no data-dependent stopping); each level spends ``(ε − ε_leaf)/d`` (parallel over its
    nodes), each leaf's label permute-and-flip at ε_leaf. ε-DP in the rows (add/remove one)
    with ``"histogram"`` or ``"exponential"``; no claim with ``"published"`` (warns);
    argument: docs/privacy.md §8.2.6. Twin: :func:`dpviz.pseudocode.privatree.privatree`.

    Parameters
    ----------
    epsilon : float, default 1.0
        The total budget ε; ``math.inf``: the non-private reference (exact counts, arg-max).
    max_depth : int, default 4
        The tree's depth d (public; the paper's experiments use 4).
    n_bins : int, default 10
        Equal bins of each numeric attribute's public range (the authors' ``max_bins``).
    splitter : {"histogram", "exponential", "published"}, default "histogram"
        A node's split: least Gini on noisy histograms of its attributes, ε/F each (the
        authors' earlier method, each histogram charged its share); or the exponential
        mechanism over its candidates with FS's Gini quality (sensitivity 2; categorical
        candidates: one value against the rest); or the authors' published selection
        (permute-and-flip on 0.5 − Gini, its sensitivity from a noisy node size: not proven
        private, warns ``NotProvenPrivateWarning``).
    leaf_share : float, optional
        The share of ε for the leaf labels, in (0, 1); default: the paper's rule
        ε_leaf = min(ε/2, 2^d·W(K)/(n·0.01)) with n = ``n_public`` (Appendix, Corollary 4).
    n_public : int, optional
        A public or declared number of training rows (documentation or the protocol's
        size, never counted from the rows): the n of the default leaf rule; without it,
        ε_leaf = ε/2.
    domain : Domain or None, default None
        Public schema; derived from the rows (PrivacyLeakWarning) if omitted.
    unknown : {"raise", "random"}, default "raise"
        Unseen categories at predict time: refused, or sent to a child picked by a public
        keyed uniform of the node.
    random_state : int or None, default None
        Seed of the structure and the noise, a curator secret: to publish a release,
        None (128 bits of OS entropy) or a recorded dpviz.fresh_seed(). A Generator is
        refused: scikit-learn's clone copies it in its state.

    Attributes
    ----------
    tree_ : PrivaTree
        The released tree (text, HTML, frame).
    ledger_ : Ledger
        Every query of the current model with its ε (and tree level); earlier fits of
        this object, interrupted ones too: ``privacy_record``.
    eps_level_, eps_leaf_ : float
        ε of each level's split queries (together) and of each leaf label.
    plan_ : Plan
        The bins, depth and ε shares, settled from public values before any row is read.
    """

    _noisy_by_design = True  # scikit-learn's poor_score tag (see DPEstimatorMixin)

    def __init__(
        self, epsilon: float = 1.0, max_depth: int = 4, *, n_bins: int = DEFAULT_BINS,
        splitter: str = "histogram", leaf_share: float | None = None, n_public: int | None = None,
        domain: Domain | None = None, unknown: str = "raise",
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.n_bins = n_bins
        self.splitter = splitter
        self.leaf_share = leaf_share
        self.n_public = n_public
        self.domain = domain
        self.unknown = unknown
        self.random_state = random_state

    def _check_params(self) -> None:
        self._epsilon()
        check_int(self.max_depth, "max_depth", minimum=0)
        check_int(self.n_bins, "n_bins", minimum=2)
        if self.splitter not in SPLITTERS:
            raise InvalidParameterError(
                f"splitter must be one of {SPLITTERS}, got {self.splitter!r}")
        if self.leaf_share is not None:
            share = check_epsilon(self.leaf_share, "leaf_share")
            if share >= 1:
                raise InvalidParameterError(f"leaf_share must lie in (0, 1), got {share!r}")
        if self.n_public is not None:
            check_int(self.n_public, "n_public", minimum=1)

    def fit(self, X: Any, y: Any) -> Any:
        """PrivaTree on the rows ``X`` and labels ``y``; all or nothing.

        ``X``: a DataFrame, an array, or :class:`~dpviz.domain.Encoded` rows of the domain.
        """
        self._check_params()
        if self.splitter == "published" and math.isfinite(self._epsilon()):
            warnings.warn(PUBLISHED_MESSAGE, NotProvenPrivateWarning, stacklevel=2)
        return atomic(self, "fit", lambda work: work._fit_tree(X, y))

    def _fit_tree(self, X: Any, y: Any) -> Any:
        codes, labels, domain = self._fit_inputs(X, y)
        epsilon = self._epsilon()
        self.plan_ = settings = plan(domain, self.max_depth, epsilon, n_bins=self.n_bins,
                                     share=self.leaf_share, n_public=self.n_public)
        self._check_shares(settings.eps_level, settings.eps_leaf,
                           len(Scope.of(domain, self.n_bins).active(domain)))
        rng = self._rng()
        self._unknown_key_ = int(rng.integers(0, 2**63 - 1))  # public routing key, drawn first
        table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=rng)
        root = privatree(table, settings, splitter=self.splitter)
        self.ledger_: Ledger = table.ledger
        self.eps_level_, self.eps_leaf_ = settings.eps_level, settings.eps_leaf
        self.tree_ = PrivaTree(root, domain, splitter=self.splitter, budget=epsilon,
                               eps_level=settings.eps_level, eps_leaf=settings.eps_leaf)
        self._flat_ = _flatten(root, domain)
        return self

    def _check_shares(self, eps_level: float, eps_leaf: float, n_active: int) -> None:
        """Refuse, before any query, a share of ε the samplers cannot serve."""
        shares = [(eps_leaf, "for each leaf label")]
        if self.splitter == "histogram" and n_active and math.isfinite(eps_level):
            shares.append((eps_level / n_active, f"for each of the {n_active} attribute "
                                                 "histograms of a level"))
        if self.splitter == "published" and n_active and math.isfinite(eps_level):
            shares.append((eps_level / 2, "for each node's size and for its split"))
        for share, how in shares:
            try:
                mechanisms.check_noise_rate(share, 1.0, what="the ε of one query")
            except InvalidParameterError as exc:
                raise InvalidParameterError(
                    f"epsilon={self.epsilon!r} gives {share:.6g} {how}: {exc}") from None

    def _leaves(self, codes: np.ndarray) -> np.ndarray:
        check_fitted(self, "tree_")
        return _route(self._flat_, codes, self._unknown_key_)

    def _label_codes(self, codes: np.ndarray) -> np.ndarray:
        """The label of the leaf each row reaches."""
        return self._flat_.label[self._leaves(codes)]

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        """One-hot: the leaf's released label (the tree releases labels, not counts)."""
        labels = self._label_codes(codes)
        out = np.zeros((len(labels), self.domain_.n_classes))
        out[np.arange(len(labels)), labels] = 1.0
        return out

    def apply(self, X: Any) -> np.ndarray:
        """Index of the leaf each row reaches (breadth-first numbering of the nodes)."""
        return self._leaves(self._predict_codes(X))

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        tags.input_tags.allow_nan = False
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags
