"""A held-out catalogue of realistic privacy faults, by kind (issue 43), for bench/fault_kinds.py.

Each :class:`Plant` replaces one shipped function, method or constant by a faulty copy, written
as an implementer would get it wrong: the shipped code with one change (the line marked
``# FAULT``), never a fault that merely raises. The replacements keep the shipped names, so
that the release invariants' checks of who reads the rows see the same callers as the shipped
code. The plants sit in other estimators and places than the faults that
dpviz/audit/suite.py and tests/test_invariants.py plant themselves (those are the project's
own; these are the held-out check of what their rows and invariants catch).

``live()`` runs a small scenario with and without the plant and says what the fault changes
(it raises AssertionError when the plant changes nothing there: a dead plant).
"""

from __future__ import annotations

import builtins
import dis
import math
import types
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock

import numpy as np

from dpviz import keyed, leaf_release, mechanisms, privacy, records
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import (
    BudgetExceededError,
    InvalidParameterError,
    NotProvenPrivateWarning,
    PrivacyLeakWarning,
)
from dpviz.leaf_release import NoisyLeafCounts, _LeafRelease
from dpviz.privacy import BUDGET_RTOL, Ledger, LedgerEntry, PrivateTable, _Account
from dpviz.records import (
    OPENED,
    RECORD,
    PrivacyRecord,
    _call,
    keep_discarded,
    open_table,
    record_of,
    warn_pending,
)
from dpviz.trees import forest, id3_quality, rdt, rdt_sharp
from dpviz.trees import id3 as id3_module
from dpviz.trees import privatree as privatree_module
from dpviz.trees.forest import DPRandomForestClassifier, get_majority_labels
from dpviz.trees.id3 import (
    LABEL_CELL_COUNTS,
    LABEL_COUNT,
    LABEL_LEAF,
    LABEL_VALUE_COUNTS,
    SQRT2,
    DiffPC45Classifier,
    DiffPID3Classifier,
    SuLQID3Classifier,
    _argmax_random,
    _branching,
    _check_depth,
    _child,
    _one_less,
    _Split,
    exact_gain_improves,
    private_split_point,
    stopping_rule,
    sulq_information_gain,
)
from dpviz.trees.id3_quality import CRITERIA, Criterion
from dpviz.trees.id3_view import ID3Tree, flatten
from dpviz.trees.privatree import (
    PrivaNode,
    PrivaTree,
    PrivaTreeClassifier,
    Scope,
    _flatten,
    leaf_label,
    plan,
    privatree,
)
from dpviz.trees.random_tree import (
    cap_depth,
    check_depth,
    check_trees_memory,
    fletcher_islam_depth,
    leaves_bound,
    random_trees,
    route_leaves,
)
from dpviz.trees.rdt import PrivateRDTClassifier, _batch, _LeafGroups, classify
from dpviz.trees.rdt_sharp import (
    CentredTree,
    RDTSharpClassifier,
    _cell_counts,
    _distinct,
    _exact_release,
    _public_codes,
    create_tree,
    height,
)
from dpviz.trees.speed import deep_visits, progress
from dpviz.validation import check_bool, check_epsilon, check_int

__all__ = ["KINDS", "PLANTS", "Plant", "planted"]

#: The kinds of fault of issue 43, as the review named them.
KINDS: dict[int, str] = {
    1: "noise of the wrong shape: several released numbers share one draw",
    2: "a quality's sensitivity or the mechanism's factor 2 wrong in a choice",
    3: "a leaf no row reaches labelled or counted without a query or noise",
    4: "a data-dependent stop",
    5: "a control decision read from an exact count",
    6: "a structural setting computed from n",
    7: "private rows used for the structure, bounds or grid",
    8: "several noisy counts or histograms charged as one query",
    9: "a call that starts its own privacy record (or a record that under-counts)",
}


@dataclass(frozen=True)
class Plant:
    """One realistic fault: its kind, what it changes, where, its patches and its liveness check."""

    id: str
    kind: int
    description: str
    where: str
    patches: Callable[[], list[Any]]
    live: Callable[[], str]


@contextmanager
def planted(plant: Plant) -> Iterator[None]:
    """The plant's patches, started for the ``with`` block only."""
    with ExitStack() as stack:
        for p in plant.patches():
            stack.enter_context(p)
        yield


def _quiet(run: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvenPrivateWarning)
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return run()


def _named(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` under the shipped function's name (its code's too: the watch reads callers' names)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__code__ = fn.__code__.replace(co_name=name)
    return fn


def _shipped(fn: Callable[..., Any], module: types.ModuleType,
             name: str | None = None) -> Callable[..., Any]:
    """``fn`` as a function of ``module`` (its globals the module's), under the shipped name.

    A faulty copy then looks up what it calls where the shipped function does, so that other
    patches (the suite's planted bugs, the watch's hooks) reach it as they reach the shipped
    code; its code's name is the shipped one (the watch reads its callers' names). Refused if
    the copy reads a global the module does not hold.
    """
    name = name or fn.__name__

    def globals_of(code: types.CodeType) -> set[str]:
        found = {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                found |= globals_of(const)
        return found

    missing = globals_of(fn.__code__) - set(vars(module)) - set(vars(builtins))
    if missing:
        raise NameError(f"{fn.__name__} reads {sorted(missing)}, not in {module.__name__}")
    out = types.FunctionType(fn.__code__.replace(co_name=name), vars(module), name,
                             fn.__defaults__, fn.__closure__)
    out.__kwdefaults__, out.__doc__ = fn.__kwdefaults__, fn.__doc__
    out.__qualname__ = name
    return out


def _both(plant_id: str, run: Callable[[], Any]) -> tuple[Any, Any]:
    """``run()`` on the shipped code, then with the plant ``plant_id``."""
    shipped = _quiet(run)
    with planted(PLANTS[plant_id]):
        faulty = _quiet(run)
    return shipped, faulty


def _differs(plant_id: str, run: Callable[[], Any], what: str) -> str:
    shipped, faulty = _both(plant_id, run)
    if _same(shipped, faulty):
        raise AssertionError(f"{plant_id}: {what} is the same with the plant ({shipped!r})")
    return f"{what}: {_short(shipped)} (shipped) vs {_short(faulty)} (planted)"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _short(x: Any) -> str:
    text = repr(np.asarray(x).tolist() if isinstance(x, np.ndarray) else x)
    return text if len(text) <= 90 else text[:87] + "..."


# ------------------------------------------------------------------------------- data
CATEGORICAL = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
NUMERIC = Domain([Numeric("x0", 0.0, 1.0), Numeric("x1", 0.0, 1.0)], ["n", "y"])
MIXED = Domain([Categorical("a", ("p", "q", "r")), Numeric("x", 0.0, 1.0)], ["n", "y"])


def _categorical_rows(n: int, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    X = rng.choice(["0", "1"], (n, 3)).astype(object)
    return X, np.where(X[:, 1] == "1", "y", "n").tolist()


def _numeric_rows(n: int, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.1, 0.4, (n, 2))
    return X, np.where(X[:, 0] > 0.25, "y", "n").tolist()


def _mixed_rows(n: int, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    X = np.empty((n, 2), dtype=object)
    X[:, 0] = rng.choice(["p", "q", "r"], n)
    X[:, 1] = rng.uniform(0, 1, n).round(3)
    return X, np.where(X[:, 1].astype(float) > 0.5, "y", "n").tolist()


ALL_ROWS = np.array([[a, b, c] for a in "01" for b in "01" for c in "01"], dtype=object)


# =============================================================================== kind 1


def _counts_apply_one_draw_per_leaf(
    counts: np.ndarray, uniforms: np.ndarray | None, *, epsilon: float, mechanism: str
) -> np.ndarray:
    """NoisyLeafCounts._apply, with one noise draw per leaf added to all its class counts."""
    if math.isinf(epsilon):
        return counts.astype(np.float64) if mechanism == "laplace" else counts
    m, t = counts.shape
    if mechanism == "discrete_laplace":
        per_leaf = uniforms.reshape(m, t, 2)[:, :1, :]  # FAULT: the first class's pair only
        return mechanisms.discrete_laplace(
            counts, epsilon=epsilon, uniforms=np.broadcast_to(per_leaf, (m, t, 2))
        ).reshape(m, t)
    return np.asarray(
        mechanisms.laplace(counts, epsilon=epsilon, uniforms=uniforms[:, :t])
    ).reshape(m, t)



def _k1_leaf_live() -> str:
    def run() -> Any:
        m = PrivateRDTClassifier(n_trees=1, max_depth=2, domain=CATEGORICAL, random_state=3)
        counts = m.fit(*_categorical_rows(40)).released_counts(ALL_ROWS)[0]
        return counts - counts[:, :1]  # class y − class n: exact under the plant
    return _differs("k1-leaf-counts-one-draw-per-leaf", run,
                    "Private-RDT leaf counts: class y − class n of each row's leaf")


def noisy_histogram(
    self: PrivateTable, by: Any, *, epsilon: float, n_cells: int | None = None,
    classes: bool = True, mechanism: str = "discrete_laplace", label: str = "histogram",
) -> np.ndarray:
    """PrivateTable.noisy_histogram, with one draw per cell shared by its class counts."""
    epsilon = check_epsilon(epsilon, allow_inf=True)
    self._check_count_query(epsilon, mechanism)
    cells, n, _ = self._cell_function(by, n_cells)
    n_classes = self.domain.n_classes
    if classes:
        self._require_labels()
    self._charge(epsilon, label, mechanism)
    codes, labels = self._read()
    cell_ids = cells(codes)
    kept = cell_ids >= 0
    if classes:
        flat = cell_ids[kept] * n_classes + labels[kept]
        exact = np.bincount(flat, minlength=n * n_classes).reshape(n, n_classes)
        # FAULT: a cell's noise drawn once, added to each of its class counts
        return exact + self._noisy(np.zeros(n, dtype=np.int64), epsilon, mechanism)[:, None]
    exact = np.bincount(cell_ids[kept], minlength=n)
    return self._noisy(exact, epsilon, mechanism)


def _k1_histogram_live() -> str:
    def run() -> Any:
        X, y = _categorical_rows(30)
        out = []
        for seed in range(5):
            table = PrivateTable(X, y, domain=CATEGORICAL, epsilon=0.5, rng=seed)
            h = table.noisy_histogram("a0", epsilon=0.5)
            out.append((h[:, 1] - h[:, 0]).tolist())
        return out
    return _differs("k1-histogram-one-draw-per-cell", run,
                    "a histogram's class y − class n per cell")


_LR_CALL = _LeafRelease.__call__


def _lazy_by_position(self: _LeafRelease, leaf_keys: np.ndarray) -> np.ndarray:
    """_LeafRelease.__call__, the keyed noise of unvisited leaves keyed by their position."""
    leaf_keys = np.asarray(leaf_keys, dtype=np.uint64)
    visited = self._visited
    pos = np.minimum(np.searchsorted(visited, leaf_keys), max(len(visited) - 1, 0))
    hit = (visited[pos] == leaf_keys) if len(visited) else np.zeros(len(leaf_keys), bool)
    out = np.empty((len(leaf_keys), *self._values.shape[1:]), dtype=self._values.dtype)
    out[hit] = self._values[pos[hit]]
    miss = ~hit
    if miss.any():
        zeros = np.zeros((int(miss.sum()), self.n_classes), dtype=np.int64)
        u = None if self._secret is None else keyed.secret_uniforms(  # None: ε = inf, exact
            self._secret, np.flatnonzero(miss).astype(np.uint64),  # FAULT: not leaf_keys[miss]
            self._UNIFORMS_PER_CLASS * self.n_classes)
        out[miss] = self._apply(zeros, u, epsilon=self.epsilon, mechanism=self.mechanism)
    return out



def _k1_lazy_live() -> str:
    def run() -> Any:
        X = np.array([["0", "0", "0"]] * 6, dtype=object)
        m = PrivateRDTClassifier(n_trees=1, max_depth=3, domain=CATEGORICAL, random_state=5)
        m.fit(X, ["n", "y"] * 3)
        one_by_one = [m.released_counts(row[None, :])[0, 0].tolist() for row in ALL_ROWS[1:]]
        return len({tuple(c) for c in one_by_one})  # distinct releases of 7 empty leaves
    return _differs("k1-lazy-noise-by-position", run,
                    "distinct noisy counts of 7 empty leaves looked up one at a time")


_CHILD = PrivateTable._child


def _child_copied_rng(self: PrivateTable, codes: np.ndarray, labels: np.ndarray | None,
                      group: Any, path: tuple[str, ...]) -> PrivateTable:
    """PrivateTable._child, each part of a partition with its own copy of the generator."""
    import copy

    account = _Account(group)
    group.members.append(account)
    child = PrivateTable.__new__(PrivateTable)
    child._init(codes, labels, self.domain, self.ledger, copy.deepcopy(self.rng),  # FAULT
                account, path)
    return child



def _k1_child_live() -> str:
    def run() -> Any:
        X, y = _categorical_rows(200)
        m = DiffPID3Classifier(2.0, max_depth=1, domain=CATEGORICAL, random_state=2).fit(X, y)
        return [c.noisy_count - m.tree_.root.children[0].noisy_count
                for c in m.tree_.root.children]
    return _differs("k1-partition-parts-copy-the-generator", run,
                    "DiffPID3 children's noisy counts (minus the first's)")


# =============================================================================== kind 2
def sensitivity_gini(size_bound: int | None = None) -> float:
    """``S(q_Gini)`` read as 1 (Gini impurity is bounded by 1)."""
    return 1.0  # FAULT: FS App. A.2 gives 2


def sensitivity_infogain(size_bound: int) -> float:
    """``log2(N + 1)``: FS App. A.1 without its ``1/ln 2``."""
    n = check_int(size_bound, "size_bound", minimum=1)
    return math.log2(n + 1)  # FAULT: + 1/ln 2 dropped


def _criteria(**changed: Callable[..., float]) -> dict[str, Criterion]:
    out = dict(CRITERIA)
    for name, sensitivity in changed.items():
        c = CRITERIA[name]
        out[name] = Criterion(c.name, c.quality, sensitivity, c.needs_size_bound)
    return out


def _criterion_live(plant_id: str, name: str) -> Callable[[], str]:
    def live() -> str:
        return _differs(plant_id, lambda: id3_quality.get_criterion(name).sensitivity(100),
                        f"DiffPID3 {name}'s declared sensitivity at N = 100")
    return live


def _rate(eps: float, delta: float, monotone: bool) -> float:
    """mechanisms._rate without the exponential mechanism's factor 2."""
    return eps / delta  # FAULT: ε/(2Δ) for utilities that are not monotone


def _k2_rate_live() -> str:
    return _differs("k2-exponential-without-factor-2",
                    lambda: mechanisms.exponential_probabilities(
                        np.array([0.0, 1.0]), epsilon=1.0, sensitivity=1.0).round(3),
                    "exponential mechanism's law over utilities (0, 1) at ε = Δ = 1")


def split_candidates(
    table: PrivateTable, node: Any, attributes: Any, intervals: dict[str, tuple[int, int]], *,
    criterion: Any, sensitivity: float, epsilon: float, n_split_cells: int = 256,
) -> list[_Split]:
    """id3.split_candidates, every split point drawn with q_Max's Δ = 1."""
    domain = table.domain
    candidates: list[_Split] = []
    for name in attributes:
        attribute = domain[name]
        j = domain.index(name)
        if isinstance(attribute, Categorical):
            candidates.append(_Split(name, j, attribute.n_values))
            continue
        i_lo, i_hi = intervals[name]
        if i_hi - i_lo < 2:  # no interior grid point (public): not a candidate here
            continue
        point, index = private_split_point(
            table, name, (i_lo, i_hi), criterion=criterion, sensitivity=1.0,  # FAULT
            epsilon=epsilon, n_cells=n_split_cells,
        )
        node.split_points[name] = point
        candidates.append(_Split(name, j, 2, point, index))
    return candidates


def _k2_point_live() -> str:
    def run() -> Any:
        X, y = _mixed_rows(60)
        m = DiffPC45Classifier(2.0, max_depth=1, criterion="gini", domain=MIXED,
                               random_state=0).fit(X, y)
        return [(e.label, e.mechanism) for e in m.ledger_.entries]

    seen: list[float] = []
    original = PrivateTable.select

    def spy(self: PrivateTable, candidates: Any, quality: Any, **kw: Any) -> Any:
        if kw.get("label") == id3_module.LABEL_POINT:
            seen.append(kw["sensitivity"])
        return original(self, candidates, quality, **kw)

    _named(spy, "select")
    with mock.patch.object(PrivateTable, "select", spy):
        _both("k2-split-point-delta-of-q-max", run)
    if len(set(seen)) < 2:
        raise AssertionError(f"split point Δ unchanged: {seen}")
    return (f"DiffPC4.5 (gini) split point drawn with Δ = {seen[0]:g} (shipped), "
            f"{seen[-1]:g} (planted)")


# =============================================================================== kind 3
def _make_leaf(table: PrivateTable, node: Any, reason: str,
               counts: np.ndarray | None = None) -> Any:
    """id3._make_leaf, an empty node labelled without a query (its counts: zeros)."""
    if counts is None:
        if len(table._labels) == 0:  # FAULT: no row here, nothing to protect: no query
            counts = np.zeros(table.domain.n_classes)
        else:
            counts = table.noisy_class_counts(epsilon=node.epsilon, label=LABEL_LEAF)
    node.class_counts = np.asarray(counts, dtype=np.float64)
    node.label = _argmax_random(node.class_counts, table.rng)
    node.stop = reason
    return node


def _k3_fs_live() -> str:
    def run() -> Any:
        X = np.array([["0", "0", "0"]] * 40, dtype=object)
        out = []
        for seed in range(4):
            m = DiffPID3Classifier(1.0, max_depth=1, domain=CATEGORICAL, random_state=seed)
            m.fit(X, ["n"] * 40)
            out.append([c.class_counts.tolist() for c in m.tree_.root.children])
        return out
    return _differs("k3-fs-empty-leaf-unqueried", run, "DiffPID3 leaves' class counts")


def _counts_apply_zero_unnoised(
    counts: np.ndarray, uniforms: np.ndarray | None, *, epsilon: float, mechanism: str
) -> np.ndarray:
    """NoisyLeafCounts._apply, all-zero counts (a leaf no row reached) returned as they are."""
    if math.isinf(epsilon) or not counts.any():  # FAULT: nothing to hide in an empty leaf
        return counts.astype(np.float64) if mechanism == "laplace" else counts
    m, t = counts.shape
    if mechanism == "discrete_laplace":
        return mechanisms.discrete_laplace(
            counts, epsilon=epsilon, uniforms=uniforms.reshape(m, t, 2)
        ).reshape(m, t)
    return np.asarray(
        mechanisms.laplace(counts, epsilon=epsilon, uniforms=uniforms[:, :t])
    ).reshape(m, t)



def _empty_leaf_counts() -> Any:
    X = np.array([["0", "0", "0"]] * 6, dtype=object)
    return [PrivateRDTClassifier(n_trees=1, max_depth=3, domain=CATEGORICAL, random_state=seed)
            .fit(X, ["n", "y"] * 3).released_counts(ALL_ROWS[-1:])[0, 0].tolist()
            for seed in range(4)]


def _k3_zero_live() -> str:
    return _differs("k3-leaf-counts-zero-unnoised", _empty_leaf_counts,
                    "Private-RDT counts of a leaf no row reached")


_RDT_TREE_COUNTS = PrivateRDTClassifier._tree_counts


def _tree_counts(self: PrivateRDTClassifier, codes: np.ndarray) -> Iterator[np.ndarray]:
    """PrivateRDTClassifier._tree_counts, a leaf no training row reached read as zeros."""
    n, trees = codes.shape[0], self.trees_
    work = n * len(trees) * self.depth_
    leaves = len(trees) * leaves_bound(self.domain_, self.depth_, n)
    deep = len(trees) * deep_visits(n, self.depth_)
    batch = _batch(trees, n)
    releases = progress(self.leaf_counts_, work, "Private-RDT: trees", leaves=leaves,
                        deep=deep)
    for i, release in enumerate(releases):
        j = i % batch
        if j == 0:  # the batch's trees in one pass
            found, offsets, index = route_leaves(trees[i:i + batch], codes)
        keys = found[offsets[j]:offsets[j + 1]]
        counts = release(keys)
        visited = getattr(release, "_visited", None)
        if visited is not None:  # FAULT: Fan's empty leaf: no row there, no counts
            counts[~np.isin(keys, visited)] = 0
        yield counts[index[j] - offsets[j]]


def _k3_predict_live() -> str:
    return _differs("k3-rdt-empty-leaves-read-as-zero", _empty_leaf_counts,
                    "Private-RDT released counts of a leaf no row reached")


def _release(self: RDTSharpClassifier, codes: np.ndarray, labels: np.ndarray, domain: Domain,
             noise_rng: np.random.Generator) -> RDTSharpClassifier:
    """RDTSharpClassifier._release, cells no private row reached counted as empty (zeros)."""
    epsilon = self._epsilon()
    n_primary = len(self.primary_)
    table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng)
    self.primary_counts_ = [
        table.noisy_leaf_counts(
            tree.cell_keys, epsilon=epsilon / n_primary, mechanism=self.noise,
            label=f"primary tree {i + 1} centre counts",
        )
        for i, tree in enumerate(self.primary_)
    ]
    table.close()
    self.ledger_ = table.ledger
    counts = (  # FAULT: a cell no labelled row reached votes for nothing (zeros)
        np.where(np.isin(keys, c._visited)[:, None], c(keys), 0)[inverse]
        for c, (keys, inverse) in zip(self.primary_counts_, self._public_cells, strict=False)
    )
    self.pseudo_labels_ = classify(counts).argmax(axis=1)
    self.secondary_counts_ = [
        _exact_release(keys, _cell_counts(inverse, self.pseudo_labels_, len(keys),
                                          domain.n_classes))
        for keys, inverse in self._public_cells[n_primary:]
    ]
    return self


def _k3_sharp_live() -> str:
    def run() -> Any:
        X = np.array([["0", "0", "0"]] * 6, dtype=object)
        labels = []
        for seed in range(6):
            m = RDTSharpClassifier(1.0, n_primary=1, n_secondary=2, max_depth=3,
                                   domain=CATEGORICAL, random_state=seed)
            labels.append(m.fit(X, ["y"] * 6, ALL_ROWS).pseudo_labels_.tolist())
        return labels
    return _differs("k3-sharp-empty-cells-vote-nothing", run,
                    "RDT# pseudo-labels of the public rows (6 seeds)")


# =============================================================================== kind 4
def _fit_tree_single_class(self: Any, X: Any, y: Any) -> Any:
    """_FSTreeClassifier._fit_tree, one class in y: a single leaf (nothing to split)."""
    codes, labels, domain = self._fit_inputs(X, y)
    budget = self._epsilon()
    depth = _check_depth(self.max_depth, budget)
    if depth and len(np.unique(labels)) < 2:  # FAULT: as scikit-learn's trees on one class
        depth = 0
    self._check_shares(budget, depth, domain)
    rng = self._rng()
    # the public key of the unknown-category routing (drawn first), see ``route``
    self._unknown_key_ = int(rng.integers(0, 2**63 - 1))
    table = open_table(self, codes, labels, domain=domain, epsilon=budget, rng=rng)
    root = self._build(table, list(domain.names), depth, budget)
    self.ledger_ = table.ledger
    self.epsilon_ = root.epsilon
    self.tree_ = ID3Tree(root, domain, algorithm=self._algorithm_name(), budget=budget,
                         epsilon=root.epsilon)
    self._flat_ = flatten(root, domain)
    return self






def _fs_tree_shape(cls: type, X: Any, y: Any, domain: Domain = CATEGORICAL,
                   epsilon: float = 1.0) -> Callable[[], Any]:
    def run() -> Any:
        m = cls(epsilon, max_depth=2, domain=domain, random_state=0).fit(X, y)
        return (len(list(m.tree_.nodes())), m.epsilon_, len(m.ledger_.entries))
    return run


def _k4_fs_live() -> str:
    X, _ = _categorical_rows(40)
    return _differs("k4-fs-single-class-one-leaf", _fs_tree_shape(DiffPID3Classifier, X,
                                                                   ["n"] * 40),
                    "DiffPID3 on one class: (nodes, ε per query, queries)")


def build_sulq_id3(
    table: PrivateTable, attributes: list[str], depth: int | None, epsilon: float, node: Any,
    *, stopping: str = "fs",
) -> Any:
    """id3.build_sulq_id3, with ID3's pure-node stop (the node's labels read for it)."""
    node.noisy_count = float(table.noisy_count(epsilon=epsilon, label=LABEL_COUNT))  # line 8
    reason, counts = stopping_rule(table, node, attributes, depth, epsilon, stopping=stopping)
    if reason is None and len(np.unique(table._read()[1])) == 1:  # FAULT: ID3's pure node
        reason = "pure node (ID3)"
    if reason is not None:  # line 9
        return _make_leaf(table, node, reason, counts)  # lines 10-12
    scores = sulq_attribute_scores(table, attributes, epsilon)  # lines 14-20
    if counts is not None and not exact_gain_improves(scores, counts):  # ε = inf only
        return _make_leaf(table, node, "no split improves the gain (ID3)", counts)
    chosen = attributes[_argmax_random(scores, table.rng)]  # line 21
    node.attribute = chosen
    rest = [a for a in attributes if a != chosen]
    for part in table.partition(chosen):  # lines 22-23
        child = _child(node, part, epsilon)
        node.children.append(
            build_sulq_id3(part, rest, _one_less(depth), epsilon, child, stopping=stopping)
        )
    return node  # line 24


def _k4_sulq_live() -> str:
    X = np.array([["0", "0", "0"], ["0", "1", "1"]] * 100, dtype=object)
    return _differs("k4-sulq-pure-node-stop",
                    _fs_tree_shape(SuLQID3Classifier, X, ["n", "y"] * 100),
                    "SuLQ-ID3 tree: (nodes, ε per query, queries)")


def split_candidates_constant(
    table: PrivateTable, node: Any, attributes: Any, intervals: dict[str, tuple[int, int]], *,
    criterion: Any, sensitivity: float, epsilon: float, n_split_cells: int = 256,
) -> list[_Split]:
    """id3.split_candidates, a numeric attribute constant at the node is no candidate."""
    domain = table.domain
    candidates: list[_Split] = []
    for name in attributes:
        attribute = domain[name]
        j = domain.index(name)
        if isinstance(attribute, Categorical):
            candidates.append(_Split(name, j, attribute.n_values))
            continue
        i_lo, i_hi = intervals[name]
        if i_hi - i_lo < 2:  # no interior grid point (public): not a candidate here
            continue
        values = table._read()[0][:, j]
        if values.size == 0 or values.min() == values.max():  # FAULT: nothing to split here
            continue
        point, index = private_split_point(
            table, name, (i_lo, i_hi), criterion=criterion, sensitivity=sensitivity,
            epsilon=epsilon, n_cells=n_split_cells,
        )
        node.split_points[name] = point
        candidates.append(_Split(name, j, 2, point, index))
    return candidates



def _k4_c45_live() -> str:
    X = np.empty((200, 2), dtype=object)
    X[:, 0] = ["p", "q"] * 100
    X[:, 1] = 0.5
    return _differs("k4-c45-constant-numeric-no-candidate",
                    _fs_tree_shape(DiffPC45Classifier, X, ["n", "y"] * 100, MIXED, 20.0),
                    "DiffPC4.5 with a constant numeric column: (nodes, ε per query, queries)")


def _build_forest(self: DPRandomForestClassifier, X: Any, y: Any) -> DPRandomForestClassifier:
    """DPRandomForestClassifier._build_forest, one class in y: stumps (nothing to learn)."""
    codes, labels, domain = self._fit_inputs(X, y)
    epsilon, disjoint = self._epsilon(), check_bool(self.disjoint, "disjoint")
    n_discrete = int(domain.categorical_mask.sum())  # FI's depth unless max_depth
    depth = check_depth(self.max_depth) if self.max_depth is not None else cap_depth(
        fletcher_islam_depth(len(domain) - n_discrete, n_discrete))
    if len(np.unique(labels)) < 2:  # FAULT: a single class needs no deep trees
        depth = 1
    n_trees = check_int(self.n_trees, "n_trees", minimum=1)
    rows = len(codes) / n_trees if disjoint else len(codes)  # each tree's, on average
    check_trees_memory(n_trees, len(domain), leaves_bound(domain, depth, rows), 1,  # labels
                       cap=leaves_bound(domain, depth))
    structure_rng, noise_rng = self._rngs()
    self.depth_ = depth
    self.trees_ = random_trees(domain, depth,
                               structure_rng.integers(0, 2**63, size=n_trees).tolist())
    table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng)
    self.leaf_labels_ = get_majority_labels(
        table, self.trees_, epsilon=epsilon, mechanism=self.leaf_mechanism,
        disjoint=disjoint, rng=noise_rng,
    )
    table.close()
    self.ledger_ = table.ledger
    return self




def _forest_depth(plant_id: str, X: Any, y: Any, **kw: Any) -> str:
    def run() -> Any:
        m = DPRandomForestClassifier(n_trees=3, max_depth=3, random_state=0,
                                     domain=kw.get("domain", CATEGORICAL),
                                     **{k: v for k, v in kw.items() if k != "domain"})
        m.fit(X, y)
        return (m.depth_, len(m.trees_), len(m.leaf_labels_), m.ledger_.entries[0].epsilon)
    return _differs(plant_id, run, "FI forest (depth, trees, releases, ε of the first)")


def _k4_forest_live() -> str:
    X, _ = _categorical_rows(40)
    return _forest_depth("k4-forest-single-class-stumps", X, ["n"] * 40)


# =============================================================================== kind 5
def _build_forest_disjoint_n(self: DPRandomForestClassifier, X: Any, y: Any) -> Any:
    """_build_forest, disjoint subsets only when every tree can get a row (n >= τ)."""
    codes, labels, domain = self._fit_inputs(X, y)
    epsilon, disjoint = self._epsilon(), check_bool(self.disjoint, "disjoint")
    n_discrete = int(domain.categorical_mask.sum())  # FI's depth unless max_depth
    depth = check_depth(self.max_depth) if self.max_depth is not None else cap_depth(
        fletcher_islam_depth(len(domain) - n_discrete, n_discrete))
    n_trees = check_int(self.n_trees, "n_trees", minimum=1)
    disjoint = disjoint and len(codes) >= n_trees  # FAULT: the exact n decides the split
    rows = len(codes) / n_trees if disjoint else len(codes)  # each tree's, on average
    check_trees_memory(n_trees, len(domain), leaves_bound(domain, depth, rows), 1,  # labels
                       cap=leaves_bound(domain, depth))
    structure_rng, noise_rng = self._rngs()
    self.depth_ = depth
    self.trees_ = random_trees(domain, depth,
                               structure_rng.integers(0, 2**63, size=n_trees).tolist())
    table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng)
    self.leaf_labels_ = get_majority_labels(
        table, self.trees_, epsilon=epsilon, mechanism=self.leaf_mechanism,
        disjoint=disjoint, rng=noise_rng,
    )
    table.close()
    self.ledger_ = table.ledger
    return self


def _k5_forest_live() -> str:
    X, y = _categorical_rows(2)
    return _forest_depth("k5-forest-disjoint-if-n-at-least-trees", X, y)


def _fit_tree_root_line9(self: Any, X: Any, y: Any) -> Any:
    """_FSTreeClassifier._fit_tree, FS line 9 checked at the root on n (known before a query)."""
    codes, labels, domain = self._fit_inputs(X, y)
    budget = self._epsilon()
    depth = _check_depth(self.max_depth, budget)
    if depth and math.isfinite(budget):  # FAULT: the root's N_T is n, no need to query it
        t = max(_branching(domain, a) for a in domain.names)
        level = self._shares(budget, depth, domain)[0][0]
        if len(codes) / (t * domain.n_classes) < SQRT2 / level:
            depth = 0
    self._check_shares(budget, depth, domain)
    rng = self._rng()
    # the public key of the unknown-category routing (drawn first), see ``route``
    self._unknown_key_ = int(rng.integers(0, 2**63 - 1))
    table = open_table(self, codes, labels, domain=domain, epsilon=budget, rng=rng)
    root = self._build(table, list(domain.names), depth, budget)
    self.ledger_ = table.ledger
    self.epsilon_ = root.epsilon
    self.tree_ = ID3Tree(root, domain, algorithm=self._algorithm_name(), budget=budget,
                         epsilon=root.epsilon)
    self._flat_ = flatten(root, domain)
    return self



def _k5_fs_live() -> str:
    X = np.array([["0", "0", "1"], ["1", "1", "0"]] * 11, dtype=object)
    return _differs("k5-fs-root-line-9-on-n",
                    _fs_tree_shape(SuLQID3Classifier, X, ["n", "y"] * 11),
                    "SuLQ-ID3 at FS's threshold: (nodes, ε per query, queries)")


def _grow(table: PrivateTable, node: Any, scope: Scope, edges: dict[str, np.ndarray],
          levels: int, eps_level: float, eps_leaf: float, choose: Any) -> Any:
    """privatree._grow, with scikit-learn's min_samples_split = 2 on the node's rows."""
    if (node.depth == levels or not scope.active(table.domain)
            or len(table._read()[0]) < 2):  # FAULT: fewer than 2 rows: a leaf
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


def _k5_priva_live() -> str:
    def run() -> Any:
        X = np.array([["0", "0", "0"]] * 30 + [["1", "1", "1"]], dtype=object)
        m = PrivaTreeClassifier(5.0, max_depth=3, domain=CATEGORICAL, random_state=0)
        return len(list(m.fit(X, ["n"] * 30 + ["y"]).tree_.nodes()))
    return _differs("k5-privatree-min-samples-split", run, "PrivaTree nodes")


def _make_leaf_tie_exact(table: PrivateTable, node: Any, reason: str,
                         counts: np.ndarray | None = None) -> Any:
    """id3._make_leaf, ties between noisy class counts broken by the exact ones."""
    if counts is None:
        counts = table.noisy_class_counts(epsilon=node.epsilon, label=LABEL_LEAF)
    node.class_counts = np.asarray(counts, dtype=np.float64)
    labels = table._read()[1]  # FAULT: the true majority breaks a tie
    exact = np.bincount(labels, minlength=table.domain.n_classes) if labels is not None else 0
    node.label = _argmax_random(node.class_counts + 1e-6 * exact, table.rng)
    node.stop = reason
    return node



def _k5_tie_live() -> str:
    def run() -> Any:
        X = np.array([["0", "0", "0"]] * 11, dtype=object)
        out = []
        for seed in range(60):
            m = DiffPID3Classifier(1.0, max_depth=0, domain=CATEGORICAL, random_state=seed)
            out.append(int(m.fit(X, ["n"] * 5 + ["y"] * 6).tree_.root.label))
        return sum(out)
    return _differs("k5-fs-leaf-tie-by-exact-counts", run,
                    "DiffPID3 leaf labels y over 60 seeds on 5 rows n and 6 rows y")


# =============================================================================== kind 6
def _private_rdt_log2n(self: PrivateRDTClassifier, X: Any, y: Any) -> PrivateRDTClassifier:
    """PrivateRDTClassifier._private_rdt, the default height no deeper than log2 n."""
    codes, labels, domain = self._fit_inputs(X, y)
    epsilon = self._epsilon()
    self._structure_rng, self._noise_rng = self._rngs()
    self.depth_ = self._depth(len(domain))
    if self.max_depth is None:  # FAULT: deeper leaves would be empty anyway
        self.depth_ = min(self.depth_, max(1, int(np.log2(len(codes)))))
    self.trees_ = self._make_trees(self._structure_rng, self.depth_, len(codes))
    table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=self._noise_rng)
    self.leaf_counts_ = self._release(table, self.trees_, epsilon, len(codes))
    table.close()
    self._table = table
    self.ledger_ = table.ledger
    return self




WIDE = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(12)], ["n", "y"])


def _wide_rows(n: int) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(1)
    return rng.choice(["0", "1"], (n, 12)).astype(object), rng.choice(["n", "y"], n).tolist()


def _k6_rdt_live() -> str:
    def run() -> Any:
        return [PrivateRDTClassifier(n_trees=1, domain=WIDE, random_state=0)
                .fit(*_wide_rows(n)).depth_ for n in (7, 8)]
    return _differs("k6-rdt-default-height-log2-n", run,
                    "Private-RDT default height at n = 7 and 8 (12 attributes)")


def _build_forest_trees_n(self: DPRandomForestClassifier, X: Any, y: Any) -> Any:
    """_build_forest, no more trees than rows (each disjoint subset must hold one)."""
    codes, labels, domain = self._fit_inputs(X, y)
    epsilon, disjoint = self._epsilon(), check_bool(self.disjoint, "disjoint")
    n_discrete = int(domain.categorical_mask.sum())  # FI's depth unless max_depth
    depth = check_depth(self.max_depth) if self.max_depth is not None else cap_depth(
        fletcher_islam_depth(len(domain) - n_discrete, n_discrete))
    n_trees = check_int(self.n_trees, "n_trees", minimum=1)
    if disjoint:
        n_trees = min(n_trees, len(codes))  # FAULT: τ from n
    rows = len(codes) / n_trees if disjoint else len(codes)  # each tree's, on average
    check_trees_memory(n_trees, len(domain), leaves_bound(domain, depth, rows), 1,  # labels
                       cap=leaves_bound(domain, depth))
    structure_rng, noise_rng = self._rngs()
    self.depth_ = depth
    self.trees_ = random_trees(domain, depth,
                               structure_rng.integers(0, 2**63, size=n_trees).tolist())
    table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng)
    self.leaf_labels_ = get_majority_labels(
        table, self.trees_, epsilon=epsilon, mechanism=self.leaf_mechanism,
        disjoint=disjoint, rng=noise_rng,
    )
    table.close()
    self.ledger_ = table.ledger
    return self




def _k6_forest_live() -> str:
    X, y = _categorical_rows(2)
    return _forest_depth("k6-forest-trees-at-most-n", X, y)


def _fit_tree_depth_log2n(self: Any, X: Any, y: Any) -> Any:
    """_FSTreeClassifier._fit_tree, the depth no more than log2 n (a level halves the rows)."""
    codes, labels, domain = self._fit_inputs(X, y)
    budget = self._epsilon()
    depth = _check_depth(self.max_depth, budget)
    if depth:
        depth = min(depth, max(1, int(math.log2(len(codes)))))  # FAULT: depth from n
    self._check_shares(budget, depth, domain)
    rng = self._rng()
    # the public key of the unknown-category routing (drawn first), see ``route``
    self._unknown_key_ = int(rng.integers(0, 2**63 - 1))
    table = open_table(self, codes, labels, domain=domain, epsilon=budget, rng=rng)
    root = self._build(table, list(domain.names), depth, budget)
    self.ledger_ = table.ledger
    self.epsilon_ = root.epsilon
    self.tree_ = ID3Tree(root, domain, algorithm=self._algorithm_name(), budget=budget,
                         epsilon=root.epsilon)
    self._flat_ = flatten(root, domain)
    return self



def _k6_fs_live() -> str:
    X, y = _categorical_rows(3)
    return _differs("k6-fs-depth-log2-n", _fs_tree_shape(DiffPID3Classifier, X, y),
                    "DiffPID3 max_depth=2 on 3 rows: (nodes, ε per query, queries)")


def _rdt_sharp_cells_n(self: RDTSharpClassifier, X: Any, y: Any, X_public: Any) -> Any:
    """RDTSharpClassifier._rdt_sharp, N_CELLS: one centre per 10 labelled rows (at most n_cells)."""
    codes, labels, domain = self._fit_inputs(X, y)
    public = _public_codes(X_public, domain)
    n_primary, n_secondary, n_cells = self._check_scale(domain, len(public))
    n_cells = min(n_cells, max(1, len(codes) // 10))  # FAULT: centres from the labelled n
    self.depth_ = height(domain, self.n_labeled, self.max_depth)
    structure_rng, noise_rng = self._rngs()
    secondary_rng = structure_rng.spawn(1)[0]
    extra = [0]  # centres beyond n_cells so far: the guard again, with each tree's count

    def draw(rng: np.random.Generator) -> CentredTree:  # public rows only: nothing charged
        tree = create_tree(domain, self.depth_, public, n_cells=n_cells, rng=rng)
        extra[0] += max(len(tree.centres) - n_cells, 0)
        self._check_scale(domain, len(public), extra[0])
        return tree

    self.primary_ = [draw(structure_rng) for _ in range(n_primary)]
    # the secondary structures read public rows only: drawn now, filled after the release
    self.secondary_ = [draw(secondary_rng) for _ in range(n_secondary if len(public) else 0)]
    # where the public rows fall in every tree (distinct cells, and each row's): public,
    # and the same at every ε (refit)
    self._public_cells = [
        _distinct(t.cell_keys(public, leaves=t.public_leaves))
        for t in self.primary_ + self.secondary_
    ]
    return self._release(codes, labels, domain, noise_rng)




def _rdt_sharp_public_plus_private(self: RDTSharpClassifier, X: Any, y: Any,
                                   X_public: Any) -> Any:
    """RDTSharpClassifier._rdt_sharp, the structure from all rows, labelled and unlabelled."""
    codes, labels, domain = self._fit_inputs(X, y)
    public = np.vstack([_public_codes(X_public, domain), codes])  # FAULT: + the labelled rows
    n_primary, n_secondary, n_cells = self._check_scale(domain, len(public))
    self.depth_ = height(domain, self.n_labeled, self.max_depth)
    structure_rng, noise_rng = self._rngs()
    secondary_rng = structure_rng.spawn(1)[0]
    extra = [0]  # centres beyond n_cells so far: the guard again, with each tree's count

    def draw(rng: np.random.Generator) -> CentredTree:  # public rows only: nothing charged
        tree = create_tree(domain, self.depth_, public, n_cells=n_cells, rng=rng)
        extra[0] += max(len(tree.centres) - n_cells, 0)
        self._check_scale(domain, len(public), extra[0])
        return tree

    self.primary_ = [draw(structure_rng) for _ in range(n_primary)]
    # the secondary structures read public rows only: drawn now, filled after the release
    self.secondary_ = [draw(secondary_rng) for _ in range(n_secondary if len(public) else 0)]
    # where the public rows fall in every tree (distinct cells, and each row's): public,
    # and the same at every ε (refit)
    self._public_cells = [
        _distinct(t.cell_keys(public, leaves=t.public_leaves))
        for t in self.primary_ + self.secondary_
    ]
    return self._release(codes, labels, domain, noise_rng)




def _sharp_structure(plant_id: str, n: int, what: str) -> str:
    def run() -> Any:
        X, y = _categorical_rows(n)
        m = RDTSharpClassifier(1.0, n_primary=1, n_secondary=2, max_depth=2,
                               domain=CATEGORICAL, random_state=0).fit(X, y, ALL_ROWS)
        return [t.centres.tolist() for t in m.primary_ + m.secondary_]
    return _differs(plant_id, run, what)


def _k6_sharp_live() -> str:
    return _sharp_structure("k6-sharp-cells-from-n", 30, "RDT# centres (30 labelled rows)")


def _fit_tree_sturges(self: PrivaTreeClassifier, X: Any, y: Any) -> Any:
    """PrivaTreeClassifier._fit_tree, numeric bins by Sturges' rule on n (at most n_bins)."""
    codes, labels, domain = self._fit_inputs(X, y)
    epsilon = self._epsilon()
    n_bins = min(self.n_bins, math.ceil(math.log2(len(codes))) + 1)  # FAULT: numpy's 'sturges'
    self.plan_ = settings = plan(domain, self.max_depth, epsilon, n_bins=n_bins,
                                 share=self.leaf_share, n_public=self.n_public)
    self._check_shares(settings.eps_level, settings.eps_leaf,
                       len(Scope.of(domain, n_bins).active(domain)))
    rng = self._rng()
    self._unknown_key_ = int(rng.integers(0, 2**63 - 1))  # public routing key, drawn first
    table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=rng)
    root = privatree(table, settings, splitter=self.splitter)
    self.ledger_ = table.ledger
    self.eps_level_, self.eps_leaf_ = settings.eps_level, settings.eps_leaf
    self.tree_ = PrivaTree(root, domain, splitter=self.splitter, budget=epsilon,
                           eps_level=settings.eps_level, eps_leaf=settings.eps_leaf)
    self._flat_ = _flatten(root, domain)
    return self



def _k6_priva_live() -> str:
    def run() -> Any:
        out = []
        for n in (64, 65):
            m = PrivaTreeClassifier(max_depth=1, domain=NUMERIC, random_state=0)
            out.append(m.fit(*_numeric_rows(n)).plan_.n_bins)
        return out
    return _differs("k6-privatree-sturges-bins", run, "PrivaTree bins at n = 64 and 65")


# =============================================================================== kind 7


def _private_rdt_observed(self: PrivateRDTClassifier, X: Any, y: Any) -> Any:
    """PrivateRDTClassifier._private_rdt, numeric thresholds drawn in the rows' own range."""
    codes, labels, domain = self._fit_inputs(X, y)
    epsilon = self._epsilon()
    self._structure_rng, self._noise_rng = self._rngs()
    self.depth_ = self._depth(len(domain))
    n_trees = check_trees_memory(
        self.n_trees, len(domain), leaves_bound(domain, self.depth_, len(codes)),
        domain.n_classes, cap=leaves_bound(domain, self.depth_))
    from dpviz.domain import Numeric  # FAULT: the trees' numeric ranges are the data's

    observed = Domain([Numeric(a.name, float(codes[:, j].min()), float(codes[:, j].max()))
                       if not a.is_categorical and codes[:, j].min() < codes[:, j].max() else a
                       for j, a in enumerate(domain)], domain.classes)
    self.trees_ = random_trees(observed, self.depth_,
                               self._structure_rng.integers(0, 2**63, size=n_trees).tolist())
    table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=self._noise_rng)
    self.leaf_counts_ = self._release(table, self.trees_, epsilon, len(codes))
    table.close()
    self._table = table
    self.ledger_ = table.ledger
    return self



def _k7_rdt_live() -> str:
    def run() -> Any:
        X, y = _numeric_rows(30)
        m = PrivateRDTClassifier(n_trees=1, max_depth=3, domain=NUMERIC, random_state=0)
        return m.fit(X, y).trees_[0].domain.bounds.tolist()
    return _differs("k7-rdt-thresholds-in-observed-range", run,
                    "Private-RDT trees' numeric bounds")


def _build_forest_observed(self: DPRandomForestClassifier, X: Any, y: Any) -> Any:
    """_build_forest, numeric thresholds drawn in the rows' own range."""
    codes, labels, domain = self._fit_inputs(X, y)
    epsilon, disjoint = self._epsilon(), check_bool(self.disjoint, "disjoint")
    n_discrete = int(domain.categorical_mask.sum())  # FI's depth unless max_depth
    depth = check_depth(self.max_depth) if self.max_depth is not None else cap_depth(
        fletcher_islam_depth(len(domain) - n_discrete, n_discrete))
    n_trees = check_int(self.n_trees, "n_trees", minimum=1)
    from dpviz.domain import Numeric  # FAULT: the trees' numeric ranges are the data's

    observed = Domain([Numeric(a.name, float(codes[:, j].min()), float(codes[:, j].max()))
                       if not a.is_categorical and codes[:, j].min() < codes[:, j].max() else a
                       for j, a in enumerate(domain)], domain.classes)
    rows = len(codes) / n_trees if disjoint else len(codes)  # each tree's, on average
    check_trees_memory(n_trees, len(domain), leaves_bound(domain, depth, rows), 1,  # labels
                       cap=leaves_bound(domain, depth))
    structure_rng, noise_rng = self._rngs()
    self.depth_ = depth
    self.trees_ = random_trees(observed, depth,
                               structure_rng.integers(0, 2**63, size=n_trees).tolist())
    table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng)
    self.leaf_labels_ = get_majority_labels(
        table, self.trees_, epsilon=epsilon, mechanism=self.leaf_mechanism,
        disjoint=disjoint, rng=noise_rng,
    )
    table.close()
    self.ledger_ = table.ledger
    return self



def _k7_forest_live() -> str:
    def run() -> Any:
        X, y = _numeric_rows(30)
        m = DPRandomForestClassifier(n_trees=2, max_depth=2, domain=NUMERIC, random_state=0)
        return m.fit(X, y).trees_[0].domain.bounds.tolist()
    return _differs("k7-forest-thresholds-in-observed-range", run,
                    "FI forest trees' numeric bounds")


def _k7_sharp_live() -> str:
    return _sharp_structure("k7-sharp-structure-from-all-rows", 30, "RDT# centres")


def _fit_tree_varying(self: Any, X: Any, y: Any) -> Any:
    """_FSTreeClassifier._fit_tree, attributes constant in the rows dropped (they cannot split)."""
    codes, labels, domain = self._fit_inputs(X, y)
    budget = self._epsilon()
    depth = _check_depth(self.max_depth, budget)
    self._check_shares(budget, depth, domain)
    attributes = [name for j, name in enumerate(domain.names)
                  if np.unique(codes[:, j]).size > 1]  # FAULT: the candidates from the rows
    rng = self._rng()
    # the public key of the unknown-category routing (drawn first), see ``route``
    self._unknown_key_ = int(rng.integers(0, 2**63 - 1))
    table = open_table(self, codes, labels, domain=domain, epsilon=budget, rng=rng)
    root = self._build(table, attributes, depth, budget)
    self.ledger_ = table.ledger
    self.epsilon_ = root.epsilon
    self.tree_ = ID3Tree(root, domain, algorithm=self._algorithm_name(), budget=budget,
                         epsilon=root.epsilon)
    self._flat_ = flatten(root, domain)
    return self



def _k7_fs_live() -> str:
    X = np.array([["0", "0", "0"], ["1", "0", "0"]] * 100, dtype=object)
    return _differs("k7-fs-drop-constant-attributes",
                    _fs_tree_shape(SuLQID3Classifier, X, ["n", "y"] * 100, epsilon=20.0),
                    "SuLQ-ID3 with constant columns: (nodes, ε per query, queries)")


# =============================================================================== kind 8
def _charge(self: PrivateTable, epsilon: float, label: str, mechanism: str) -> None:
    """PrivateTable._charge, a node's repeated query (same label, same table) charged once."""
    if getattr(self, "_closed", False):
        raise InvalidParameterError("this PrivateTable was closed: its rows were dropped")
    ledger = self.ledger
    if any(e.label == label and e.path == self.path and e.mechanism == mechanism
           for e in ledger.entries):  # FAULT: the same query on the same rows: one charge
        return
    updates, increase = self._plan(epsilon)
    limit = ledger.total * (1 + BUDGET_RTOL)
    if increase > 0.0 and ledger.spent + increase > limit:
        raise BudgetExceededError(
            f"query {label!r} needs ε = {epsilon:.6g} (raising the total spend by "
            f"{increase:.6g}) but only {ledger.remaining:.6g} of the budget "
            f"{ledger.total:.6g} remains; no data was read"
        )
    for account, new in updates:
        account.spent = new
    ledger._record(label, mechanism, epsilon, increase, self.path)


def _ledger_spent(plant_id: str) -> str:
    def run() -> Any:
        X, y = _categorical_rows(60)
        out = []
        for model in (PrivaTreeClassifier(1.0, max_depth=2, domain=CATEGORICAL, random_state=0),
                      SuLQID3Classifier(1.0, max_depth=1, domain=CATEGORICAL, random_state=0)):
            out.append(round(model.fit(X, y).ledger_.spent, 6))
        return out
    return _differs(plant_id, run, "ledger_.spent of PrivaTree and SuLQ-ID3 at ε = 1")


def _record(self: Ledger, label: str, mechanism: str, epsilon: float, charged: float,
            path: tuple[str, ...]) -> None:
    """Ledger._record, the spend the largest query's (a node's queries as one, in parallel)."""
    entry = LedgerEntry(len(self.entries), label, mechanism, epsilon, charged, path)
    self.spent = max(self.spent, charged)  # FAULT: not += charged
    self.entries.append(entry)


def sulq_attribute_scores(table: PrivateTable, attributes: list[str],
                          epsilon: float) -> np.ndarray:
    """id3.sulq_attribute_scores, an attribute's N_j and N_jc under one charge (one query)."""
    share = epsilon / (2 * len(attributes))
    scores = np.empty(len(attributes))
    for k, name in enumerate(attributes):
        j = table.domain.index(name)
        n_values = table.domain[name].n_values
        # FAULT: the two histograms of A are one query: charged once, noised twice
        table._charge(share, f"{LABEL_VALUE_COUNTS} and {LABEL_CELL_COUNTS}", "discrete_laplace")
        codes, labels = table._read()
        column = codes[:, j].astype(np.int64)
        n_j = table._noisy(np.bincount(column, minlength=n_values), share, "discrete_laplace")
        exact = np.bincount(column * table.domain.n_classes + labels,
                            minlength=n_values * table.domain.n_classes)
        n_jc = table._noisy(exact.reshape(n_values, -1), share, "discrete_laplace")
        scores[k] = sulq_information_gain(n_j, n_jc)
    return scores


def _k8_sulq_live() -> str:
    return _ledger_spent("k8-sulq-two-histograms-one-charge")


def _release_one_charge(self: PrivateRDTClassifier, table: PrivateTable, trees: list,
                        epsilon: float, n_rows: int, tag: str = "") -> list:
    """PrivateRDTClassifier._release, the N trees' leaf vectors as one query (one charge)."""
    per_tree = epsilon / len(trees)
    groups = _LeafGroups(trees, n_rows)
    table._require_labels()
    NoisyLeafCounts.check(per_tree, self.noise)
    table._charge(per_tree, f"leaf vectors of {len(trees)} trees{tag}", self.noise)  # FAULT
    codes, labels = table._read()
    return [NoisyLeafCounts.release(groups.route(i)(codes), labels, self.domain_.n_classes,
                                    epsilon=per_tree, mechanism=self.noise, rng=table.rng)
            for i in range(len(trees))]



def _k8_rdt_live() -> str:
    def run() -> Any:
        m = PrivateRDTClassifier(1.0, n_trees=3, max_depth=2, domain=CATEGORICAL,
                                 random_state=0)
        return round(m.fit(*_categorical_rows(30)).ledger_.spent, 6)
    return _differs("k8-rdt-trees-one-charge", run, "Private-RDT (3 trees) ledger_.spent")


# =============================================================================== kind 9
def atomic(obj: Any, what: str, path: Callable[[Any], Any], *, record: bool = True) -> Any:
    """records.atomic, each call's model with a record of its own call only."""
    name = f"{type(obj).__name__}.{what}"
    ledger = getattr(obj, "ledger_", None) if record else None
    start = len(ledger.entries) if ledger is not None else 0
    if what != "update":
        warn_pending(record_of(obj), name)
    opened: list[Ledger] = []
    work = object.__new__(type(obj))
    work.__dict__.update(vars(obj), **{OPENED: opened})
    state: dict[str, Any] | None = None
    finished: tuple[PrivacyRecord, Any] | None = None
    try:
        path(work)
        state = vars(work)
        del state[OPENED]
        call = _call(name, False, opened, ledger, start, state.get("ledger_"))
        if call is not None:
            log = state[RECORD] = PrivacyRecord()  # FAULT: a new model, a new record
            log.calls.append(call)
            finished = log, call
        obj.__dict__ = state
    except BaseException as exc:
        if vars(obj) is not state:
            call = _call(name, True, opened, ledger, start)
            keep_discarded(exc, name, opened, ledger, start)
            if call is not None:
                vars(obj).setdefault(RECORD, PrivacyRecord()).calls.append(call)
            if finished is not None and finished[1] in finished[0].calls:
                finished[0].calls.remove(finished[1])
        raise
    return obj


def _record_after_update(plant_id: str) -> str:
    def run() -> Any:
        X, y = _categorical_rows(20)
        m = PrivateRDTClassifier(1.0, n_trees=1, max_depth=2, domain=CATEGORICAL,
                                 random_state=0).fit(X, y)
        m.update(X[:5], y[:5], method="recount", X_previous=X, y_previous=y)
        return round(m.privacy_record.spent, 6)
    return _differs(plant_id, run, "privacy_record.spent after a fit and a recount update")


def _spent_max(self: PrivacyRecord) -> float:
    """PrivacyRecord.spent, the largest call's ε (the calls read the same rows)."""
    return max((c.epsilon for c in self.calls), default=0.0)  # FAULT: not their sum



def _update(self: PrivateRDTClassifier, codes: np.ndarray, labels: np.ndarray, epsilon: float,
            method: str, X_previous: Any, y_previous: Any) -> PrivateRDTClassifier:
    """PrivateRDTClassifier._update, the recount's table made with PrivateTable.from_encoded."""
    if method == "jpw":
        batch = self._table.append(codes, labels)
        new = self._release(batch, self.trees_, epsilon, len(codes), f" ({batch.path[0]})")
        batch.close()
        self.leaf_counts_ = [old.add(n) for old, n in zip(self.leaf_counts_, new, strict=True)]
        return self
    previous_codes, previous_labels = self._more_rows(X_previous, y_previous)
    union = np.vstack([previous_codes, codes])
    union_labels = np.concatenate([previous_labels, labels])
    previous = self.ledger_.spent
    trees = (self._make_trees(self._structure_rng, self.depth_, len(union))
             if method == "rebuild" else self.trees_)
    table = PrivateTable.from_encoded(union, union_labels, domain=self.domain_,  # FAULT
                                      epsilon=previous + epsilon, rng=self._noise_rng)
    table.charge_prior(previous, label="earlier release on D1 (sequential)")
    self.leaf_counts_ = self._release(table, trees, epsilon, len(union),
                                      f" ({method} on D1 ∪ D2)")
    self.trees_ = trees
    table.close()
    self._table = table
    self.ledger_ = table.ledger
    return self


# =============================================================================== the catalogue
# Every faulty copy runs in its shipped function's module, under its name (:func:`_shipped`).
_counts_apply_one_draw_per_leaf = _shipped(_counts_apply_one_draw_per_leaf, leaf_release,
                                           "_apply")
_counts_apply_zero_unnoised = _shipped(_counts_apply_zero_unnoised, leaf_release, "_apply")
_lazy_by_position = _shipped(_lazy_by_position, leaf_release, "__call__")
noisy_histogram = _shipped(noisy_histogram, privacy)
_child_copied_rng = _shipped(_child_copied_rng, privacy, "_child")
_charge = _shipped(_charge, privacy)
_record = _shipped(_record, privacy)
sensitivity_gini = _shipped(sensitivity_gini, id3_quality)
sensitivity_infogain = _shipped(sensitivity_infogain, id3_quality)
_rate = _shipped(_rate, mechanisms)
split_candidates = _shipped(split_candidates, id3_module)
split_candidates_constant = _shipped(split_candidates_constant, id3_module, "split_candidates")
_make_leaf = _shipped(_make_leaf, id3_module)
_make_leaf_tie_exact = _shipped(_make_leaf_tie_exact, id3_module, "_make_leaf")
build_sulq_id3 = _shipped(build_sulq_id3, id3_module)
sulq_attribute_scores = _shipped(sulq_attribute_scores, id3_module)
_fit_tree_single_class = _shipped(_fit_tree_single_class, id3_module, "_fit_tree")
_fit_tree_root_line9 = _shipped(_fit_tree_root_line9, id3_module, "_fit_tree")
_fit_tree_depth_log2n = _shipped(_fit_tree_depth_log2n, id3_module, "_fit_tree")
_fit_tree_varying = _shipped(_fit_tree_varying, id3_module, "_fit_tree")
_tree_counts = _shipped(_tree_counts, rdt)
_private_rdt_log2n = _shipped(_private_rdt_log2n, rdt, "_private_rdt")
_private_rdt_observed = _shipped(_private_rdt_observed, rdt, "_private_rdt")
_release_one_charge = _shipped(_release_one_charge, rdt, "_release")
_update = _shipped(_update, rdt)
_release = _shipped(_release, rdt_sharp)
_rdt_sharp_cells_n = _shipped(_rdt_sharp_cells_n, rdt_sharp, "_rdt_sharp")
_rdt_sharp_public_plus_private = _shipped(_rdt_sharp_public_plus_private, rdt_sharp,
                                          "_rdt_sharp")
_build_forest = _shipped(_build_forest, forest)
_build_forest_disjoint_n = _shipped(_build_forest_disjoint_n, forest, "_build_forest")
_build_forest_trees_n = _shipped(_build_forest_trees_n, forest, "_build_forest")
_build_forest_observed = _shipped(_build_forest_observed, forest, "_build_forest")
_grow = _shipped(_grow, privatree_module)
_fit_tree_sturges = _shipped(_fit_tree_sturges, privatree_module, "_fit_tree")
atomic = _shipped(atomic, records)
_spent_max = _shipped(_spent_max, records, "spent")

def _on(target: Any, name: str, new: Any) -> Callable[[], list[Any]]:
    return lambda: [mock.patch.object(target, name, new)]


PLANTS: dict[str, Plant] = {p.id: p for p in [
    # --- kind 1
    Plant("k1-leaf-counts-one-draw-per-leaf", 1,
          "one discrete-Laplace draw per leaf, added to each of its class counts",
          "leaf_release.NoisyLeafCounts._apply (Private-RDT, RDT#)",
          _on(NoisyLeafCounts, "_apply", staticmethod(_counts_apply_one_draw_per_leaf)),
          _k1_leaf_live),
    Plant("k1-histogram-one-draw-per-cell", 1,
          "a histogram cell's noise drawn once and added to each of its class counts",
          "privacy.PrivateTable.noisy_histogram (FS leaves and SuLQ scores, PrivaTree)",
          _on(PrivateTable, "noisy_histogram", noisy_histogram), _k1_histogram_live),
    Plant("k1-lazy-noise-by-position", 1,
          "a leaf no row reached gets the keyed noise of its position in the lookup, not of "
          "its key: the first empty leaf of every lookup shares one draw",
          "leaf_release._LeafRelease.__call__ (Private-RDT, FI forest, RDT#)",
          _on(_LeafRelease, "__call__", _lazy_by_position), _k1_lazy_live),
    Plant("k1-partition-parts-copy-the-generator", 1,
          "each part of a partition gets its own copy of the noise generator (sibling nodes "
          "draw the same noise)",
          "privacy.PrivateTable._child (FS, PrivaTree)",
          _on(PrivateTable, "_child", _child_copied_rng), _k1_child_live),
    # --- kind 2
    Plant("k2-fs-gini-sensitivity-1", 2,
          "FS's Gini quality declared of sensitivity 1 (Gini impurity is bounded by 1), not 2",
          "id3_quality.CRITERIA['gini'] (DiffPID3, DiffPC4.5 criterion='gini')",
          lambda: [mock.patch.object(id3_quality, "CRITERIA",
                                     _criteria(gini=sensitivity_gini))],
          _criterion_live("k2-fs-gini-sensitivity-1", "gini")),
    Plant("k2-fs-infogain-sensitivity-without-1-over-ln2", 2,
          "information gain declared of sensitivity log2(N+1), FS App. A.1 without + 1/ln 2",
          "id3_quality.CRITERIA['infogain'] (DiffPID3 criterion='infogain')",
          lambda: [mock.patch.object(id3_quality, "CRITERIA",
                                     _criteria(infogain=sensitivity_infogain))],
          _criterion_live("k2-fs-infogain-sensitivity-without-1-over-ln2", "infogain")),
    Plant("k2-exponential-without-factor-2", 2,
          "the exponential mechanism weighs exp(ε·u/Δ) for every utility (the factor 2 of "
          "non-monotone qualities dropped)",
          "mechanisms._rate (FS attribute and split point, PrivaTree splitter='exponential', "
          "FI label 'exponential')",
          _on(mechanisms, "_rate", _rate), _k2_rate_live),
    Plant("k2-split-point-delta-of-q-max", 2,
          "a numeric split point drawn with q_Max's Δ = 1 whatever the criterion",
          "id3.split_candidates (DiffPC4.5 numeric, criterion='gini'/'infogain')",
          _on(id3_module, "split_candidates", split_candidates), _k2_point_live),
    # --- kind 3
    Plant("k3-fs-empty-leaf-unqueried", 3,
          "an FS leaf whose node holds no row gets zero counts and a label without a query",
          "id3._make_leaf (SuLQ-ID3, DiffPID3, DiffPC4.5)",
          _on(id3_module, "_make_leaf", _make_leaf), _k3_fs_live),
    Plant("k3-leaf-counts-zero-unnoised", 3,
          "all-zero class counts (a leaf no row reached) released without noise",
          "leaf_release.NoisyLeafCounts._apply (Private-RDT, RDT#)",
          _on(NoisyLeafCounts, "_apply", staticmethod(_counts_apply_zero_unnoised)),
          _k3_zero_live),
    Plant("k3-rdt-empty-leaves-read-as-zero", 3,
          "Private-RDT reads a leaf no training row reached as zero counts (Fan's empty "
          "leaf), in released_counts and predict",
          "rdt.PrivateRDTClassifier._tree_counts (Private-RDT)",
          _on(PrivateRDTClassifier, "_tree_counts", _tree_counts), _k3_predict_live),
    Plant("k3-sharp-empty-cells-vote-nothing", 3,
          "RDT#'s pseudo-labels count a cell no labelled row reached as empty (zeros), not "
          "its noisy counts",
          "rdt_sharp.RDTSharpClassifier._release (RDT# pseudo-labels and E2)",
          _on(RDTSharpClassifier, "_release", _release), _k3_sharp_live),
    # --- kind 4
    Plant("k4-fs-single-class-one-leaf", 4,
          "one class in y: the FS tree is a single leaf (as scikit-learn's trees)",
          "id3._FSTreeClassifier._fit_tree (SuLQ-ID3, DiffPID3, DiffPC4.5)",
          _on(id3_module._FSTreeClassifier, "_fit_tree", _fit_tree_single_class), _k4_fs_live),
    Plant("k4-sulq-pure-node-stop", 4,
          "ID3's stop at a pure node (the node's labels read for it) in SuLQ-ID3",
          "id3.build_sulq_id3 (SuLQ-ID3)",
          _on(id3_module, "build_sulq_id3", build_sulq_id3), _k4_sulq_live),
    Plant("k4-c45-constant-numeric-no-candidate", 4,
          "a numeric attribute constant at a node is no candidate (no split point drawn)",
          "id3.split_candidates (DiffPC4.5 numeric)",
          _on(id3_module, "split_candidates", split_candidates_constant), _k4_c45_live),
    Plant("k4-forest-single-class-stumps", 4,
          "one class in y: the forest's trees are stumps (depth 1)",
          "forest.DPRandomForestClassifier._build_forest (FI forest)",
          _on(DPRandomForestClassifier, "_build_forest", _build_forest), _k4_forest_live),
    # --- kind 5
    Plant("k5-forest-disjoint-if-n-at-least-trees", 5,
          "disjoint subsets only when every tree can get a row (n ≥ τ), else every tree reads "
          "every row at ε/τ",
          "forest.DPRandomForestClassifier._build_forest (FI forest)",
          _on(DPRandomForestClassifier, "_build_forest", _build_forest_disjoint_n),
          _k5_forest_live),
    Plant("k5-fs-root-line-9-on-n", 5,
          "FS line 9 decided at the root on the exact n before any query (a single leaf when "
          "n/(t|C|) < √2/ε)",
          "id3._FSTreeClassifier._fit_tree (SuLQ-ID3, DiffPID3)",
          _on(id3_module._FSTreeClassifier, "_fit_tree", _fit_tree_root_line9), _k5_fs_live),
    Plant("k5-privatree-min-samples-split", 5,
          "scikit-learn's min_samples_split = 2: a PrivaTree node with fewer rows is a leaf",
          "privatree._grow (PrivaTree)",
          _on(privatree_module, "_grow", _grow), _k5_priva_live),
    Plant("k5-fs-leaf-tie-by-exact-counts", 5,
          "a tie between a leaf's noisy class counts broken by the exact counts",
          "id3._make_leaf (SuLQ-ID3, DiffPID3, DiffPC4.5)",
          _on(id3_module, "_make_leaf", _make_leaf_tie_exact), _k5_tie_live),
    # --- kind 6
    Plant("k6-rdt-default-height-log2-n", 6,
          "the default height (Fan's k/2) no deeper than log2 n",
          "rdt.PrivateRDTClassifier._private_rdt (Private-RDT, max_depth=None)",
          _on(PrivateRDTClassifier, "_private_rdt", _private_rdt_log2n), _k6_rdt_live),
    Plant("k6-forest-trees-at-most-n", 6,
          "disjoint forests: no more trees than rows (τ = min(n_trees, n))",
          "forest.DPRandomForestClassifier._build_forest (FI forest)",
          _on(DPRandomForestClassifier, "_build_forest", _build_forest_trees_n),
          _k6_forest_live),
    Plant("k6-fs-depth-log2-n", 6,
          "FS depth no more than log2 n (a level halves the rows); the ε per level follows",
          "id3._FSTreeClassifier._fit_tree (SuLQ-ID3, DiffPID3, DiffPC4.5)",
          _on(id3_module._FSTreeClassifier, "_fit_tree", _fit_tree_depth_log2n), _k6_fs_live),
    Plant("k6-sharp-cells-from-n", 6,
          "RDT#'s N_CELLS: one centre per 10 labelled rows (at most n_cells)",
          "rdt_sharp.RDTSharpClassifier._rdt_sharp (RDT#)",
          _on(RDTSharpClassifier, "_rdt_sharp", _rdt_sharp_cells_n), _k6_sharp_live),
    Plant("k6-privatree-sturges-bins", 6,
          "numeric bins by Sturges' rule, ceil(log2 n) + 1 (at most n_bins)",
          "privatree.PrivaTreeClassifier._fit_tree (PrivaTree numeric)",
          _on(PrivaTreeClassifier, "_fit_tree", _fit_tree_sturges), _k6_priva_live),
    # --- kind 7
    Plant("k7-rdt-thresholds-in-observed-range", 7,
          "numeric thresholds drawn in the rows' observed range, not the public bounds",
          "rdt.PrivateRDTClassifier._private_rdt (Private-RDT numeric)",
          _on(PrivateRDTClassifier, "_private_rdt", _private_rdt_observed), _k7_rdt_live),
    Plant("k7-forest-thresholds-in-observed-range", 7,
          "numeric thresholds drawn in the rows' observed range, not the public bounds",
          "forest.DPRandomForestClassifier._build_forest (FI forest numeric)",
          _on(DPRandomForestClassifier, "_build_forest", _build_forest_observed),
          _k7_forest_live),
    Plant("k7-sharp-structure-from-all-rows", 7,
          "RDT#'s centres drawn from all rows, the labelled ones with the public ones",
          "rdt_sharp.RDTSharpClassifier._rdt_sharp (RDT# with public rows)",
          _on(RDTSharpClassifier, "_rdt_sharp", _rdt_sharp_public_plus_private),
          _k7_sharp_live),
    Plant("k7-fs-drop-constant-attributes", 7,
          "attributes constant in the rows dropped from the candidates (and from DiffPC4.5's "
          "ε split)",
          "id3._FSTreeClassifier._fit_tree (SuLQ-ID3, DiffPID3, DiffPC4.5)",
          _on(id3_module._FSTreeClassifier, "_fit_tree", _fit_tree_varying), _k7_fs_live),
    # --- kind 8
    Plant("k8-ledger-repeat-charged-once", 8,
          "a node's repeated query (the same label on the same table) charged once",
          "privacy.PrivateTable._charge (PrivaTree's histograms, SuLQ's counts)",
          _on(PrivateTable, "_charge", _charge),
          lambda: _ledger_spent("k8-ledger-repeat-charged-once")),
    Plant("k8-ledger-spent-is-largest-query", 8,
          "the ledger's spend is its largest query's, as if a node's queries were parallel",
          "privacy.Ledger._record (every estimator)",
          _on(Ledger, "_record", _record),
          lambda: _ledger_spent("k8-ledger-spent-is-largest-query")),
    Plant("k8-sulq-two-histograms-one-charge", 8,
          "an attribute's N_j and N_jc charged as one query, drawn twice",
          "id3.sulq_attribute_scores (SuLQ-ID3)",
          _on(id3_module, "sulq_attribute_scores", sulq_attribute_scores), _k8_sulq_live),
    Plant("k8-rdt-trees-one-charge", 8,
          "the N trees' leaf vectors charged as one query at ε/N, each released at ε/N",
          "rdt.PrivateRDTClassifier._release (Private-RDT, its update)",
          _on(PrivateRDTClassifier, "_release", _release_one_charge), _k8_rdt_live),
    # --- kind 9
    Plant("k9-atomic-new-record-per-call", 9,
          "each fit, update or refit commits a model with a record of its own call only",
          "records.atomic (every estimator)",
          lambda: [mock.patch("dpviz.records.atomic", atomic),
                   *[mock.patch(f"dpviz.trees.{m}.atomic", atomic)
                     for m in ("rdt", "forest", "rdt_sharp", "id3", "privatree")]],
          lambda: _record_after_update("k9-atomic-new-record-per-call")),
    Plant("k9-record-spent-is-largest-call", 9,
          "the privacy record's ε is its largest call's, not their sum",
          "records.PrivacyRecord.spent (every estimator)",
          _on(PrivacyRecord, "spent", property(_spent_max)),
          lambda: _record_after_update("k9-record-spent-is-largest-call")),
    Plant("k9-rdt-update-table-not-recorded", 9,
          "Private-RDT's recount/rebuild opens its table with PrivateTable.from_encoded, not "
          "open_table: the update is not in the record",
          "rdt.PrivateRDTClassifier._update (Private-RDT update)",
          _on(PrivateRDTClassifier, "_update", _update),
          lambda: _record_after_update("k9-rdt-update-table-not-recorded")),
]}
