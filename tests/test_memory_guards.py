"""The tree-count memory guard against measured memory (issue 27).

Each case fits an estimator while tracemalloc counts every allocation (numpy's included) and
compares what the fitted model keeps, and the peak of the fit, with the guard's estimate
``n_trees * (tree_bytes(k, leaves, C) + 16)``, where ``leaves`` is the bound fit uses
(:func:`~dpviz.trees.random_tree.leaves_bound`: at most ``min(n_rows, max_leaves)`` leaves of
a tree hold rows). The estimate is an upper bound (the guard never lets through what it
thinks fits but does not), and where the trees are full of leaves it is within a small factor.
Categorical (Votes, Mushroom), mixed (Adult) and numeric data are covered, and RDT#'s estimate
of its centres (cells) and secondary trees.
"""

import gc
import tracemalloc

import numpy as np
import pytest

from dpviz.data.uci import load
from dpviz.domain import Domain, Encoded, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.trees import rdt, rdt_sharp
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.random_tree import leaves_bound, route_bytes, tree_bytes
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier, cells_peak
from dpviz.validation import check_memory


def measured(estimator, X, y):
    """(bytes the fitted model keeps, peak bytes during the fit)."""
    gc.collect()
    tracemalloc.start()
    try:
        estimator.fit(X, y)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return kept, peak


def numeric_data(n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, k))
    y = (X[:, 0] + 0.3 * rng.random(n) > 0.6).astype(int)
    return X, y, Domain([Numeric(f"x{j}", 0.0, 1.0) for j in range(k)], classes=[0, 1])


def estimate(estimator, n_rows: int, per_tree_rows: float | None = None, labels: bool = False,
             levels: int = 1) -> float:
    domain = estimator.domain
    leaves = levels * leaves_bound(domain, estimator.depth_, per_tree_rows or n_rows)
    each = tree_bytes(len(domain), leaves, 1 if labels else domain.n_classes) + 16
    return estimator.n_trees * each


CASES = {
    "Private-RDT, Votes (categorical, full trees)": ("votes", PrivateRDTClassifier, 400, {}),
    "Private-RDT, Nursery (5 classes)": ("nursery", PrivateRDTClassifier, 100, {}),
    "Private-RDT, Mushroom (deep categorical)": ("mushroom", PrivateRDTClassifier, 100, {}),
    "Private-RDT, Adult (mixed)": ("adult", PrivateRDTClassifier, 20, {}),
    "random decision trees, Votes (every level kept)": ("votes", RandomDecisionTreeClassifier,
                                                       200, {}),
    "FI forest, Adult (disjoint rows)": ("adult", DPRandomForestClassifier, 50, {}),
    "FI forest, Nursery (shared rows)": ("nursery", DPRandomForestClassifier, 20,
                                         {"disjoint": False}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_estimate_bounds_what_a_fit_keeps_and_its_peak(case):
    name, cls, n_trees, params = CASES[case]
    data = load(name)
    estimator = cls(n_trees=n_trees, domain=data.domain, random_state=0, **params)
    kept, peak = measured(estimator, data.X, data.y)
    n = len(data.y)
    rows = n / n_trees if params.get("disjoint", True) and cls is DPRandomForestClassifier else n
    levels = estimator.depth_ + 1 if cls is RandomDecisionTreeClassifier else 1
    bound = estimate(estimator, n, rows, labels=cls is DPRandomForestClassifier, levels=levels)
    # the fit's transient peak adds the routing of the rows (one tree's worth at a time, or
    # Private-RDT's batch of trees: ROUTED_BYTES)
    routing = n * route_bytes(len(data.domain), estimator.depth_) + data.X.memory_usage().sum()
    if cls is PrivateRDTClassifier:
        routing = max(routing, rdt.ROUTED_BYTES)
    assert kept <= bound, f"{case}: kept {kept:,} B, estimated {bound:,.0f} B"
    assert peak <= bound + 4 * routing, f"{case}: peak {peak:,} B, estimated {bound:,.0f} B"


def test_where_trees_are_full_the_estimate_is_close():
    """Votes: 435 rows fill most of each tree's leaves; the bound is within 3× of the truth."""
    data = load("votes")
    estimator = PrivateRDTClassifier(n_trees=400, domain=data.domain, random_state=0)
    kept, _ = measured(estimator, data.X, data.y)
    assert estimate(estimator, len(data.y)) <= 3 * kept


def test_numeric_deep_trees_hold_a_leaf_per_row():
    X, y, domain = numeric_data(20_000, 10)
    estimator = PrivateRDTClassifier(n_trees=5, max_depth=40, domain=domain, random_state=0)
    kept, _ = measured(estimator, X, y)
    bound = estimate(estimator, len(y))
    assert kept <= bound <= 3 * kept, (kept, bound)


def test_what_would_not_fit_is_refused_before_any_tree_is_drawn():
    """On Votes a tree holds up to 256 leaves: 300,000 trees would keep about 2.8 GiB, over the
    2 GiB budget, and are refused once fit knows the rows (before any tree or release), though
    the parameters alone (leaves unknown, 1.1 GiB) pass."""
    data = load("votes")
    PrivateRDTClassifier(n_trees=300_000, domain=data.domain)._check_params()
    with pytest.raises(InvalidParameterError,
                       match=r"n_trees=300000 .*at most 1 per training row, 256 in all.*2 GiB"):
        PrivateRDTClassifier(n_trees=300_000, domain=data.domain).fit(data.X, data.y)


def _refusal(fit, n_rows: int) -> str:
    X, y, domain = numeric_data(n_rows, 2)
    with pytest.raises(InvalidParameterError, match="memory") as info:
        fit(domain, X, y)
    return str(info.value)


def _rebuild(domain, X, y):
    model = PrivateRDTClassifier(n_trees=2, max_depth=40, domain=domain, random_state=0)
    model.fit(X[:500], y[:500]).set_params(n_trees=200_000)
    model.update(X[500:], y[500:], method="rebuild", X_previous=X[:500], y_previous=y[:500])


GUARDED = {  # 200,000 trees of 2 attributes pass without rows (0.6 GiB), not with 1,000 leaves
    "Private-RDT fit": lambda d, X, y: PrivateRDTClassifier(
        n_trees=200_000, max_depth=40, domain=d).fit(X, y),
    "Private-RDT update (rebuild)": _rebuild,
    "FI forest fit (shared rows)": lambda d, X, y: DPRandomForestClassifier(
        epsilon=10.0, n_trees=200_000, max_depth=40, disjoint=False, domain=d).fit(X, y),
    "random decision trees fit": lambda d, X, y: RandomDecisionTreeClassifier(
        n_trees=200_000, max_depth=40, domain=d).fit(X, y),
}


@pytest.mark.parametrize("case", list(GUARDED))
def test_a_refusal_says_one_bit_of_the_rows(case):
    """Refused for 1,000 rows and for 1,001, the guard says the same: public values only (the
    guard's refusal is the one bit of the rows it may reveal; the old message printed the row
    count, "holding up to 1,000 leaves each", and the GiB it made)."""
    first, second = (_refusal(GUARDED[case], n) for n in (1000, 1001))
    assert first == second
    assert "1,000" not in first and "1000" not in first


def rdt_sharp_measured(X, y, domain, **params):
    """Fit RDT# on a fifth of the rows, the rest public: (kept, peak, estimate of what it keeps
    (trees × (tree + n_cells centres + public rows)), estimate of placing the public rows)."""
    labeled = len(y) // 5
    estimator = RDTSharpClassifier(domain=domain, random_state=0, n_labeled=labeled, **params)
    gc.collect()
    tracemalloc.start()
    try:
        estimator.fit(X[:labeled], y[:labeled], X_public=X[labeled:])
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    k, n_public = len(domain), len(y) - labeled
    each = tree_bytes(k) + estimator.n_cells * (8 * k + 24) + 24 * n_public
    bound = (estimator.n_primary + estimator.n_secondary) * each
    return kept, peak, bound, cells_peak(domain, estimator.depth_, n_public, estimator.n_cells)


@pytest.mark.parametrize(("name", "n_secondary"), [("nursery", 200), ("mushroom", 200),
                                                   ("adult", 20), ("numeric", 50)])
def test_rdt_sharp_estimate_covers_its_cells_and_secondary_trees(name, n_secondary):
    """RDT#'s guard: (primary + secondary trees) × (tree + n_cells centres + public rows), and
    placing the public rows in one tree's cells (routing, centre distances) at a time. Adult
    (mixed, 36,178 public rows) with 20 secondary trees, not RDT#'s 200 (25 s under
    tracemalloc; measured: kept 139 MB, peak 181 MB, estimate 240 MB; before the distances
    went in blocks, the peak was 296 MB). Numeric: 20,000 rows × 10 attributes (depth 5)."""
    if name == "numeric":
        X, y, domain = numeric_data(20_000, 10)
    else:
        data = load(name)
        X, y, domain = data.X.to_numpy(dtype=object), data.y.to_numpy(), data.domain
    kept, peak, bound, transient = rdt_sharp_measured(X, y, domain, n_secondary=n_secondary)
    assert kept <= bound <= 2 * kept, (kept, bound)  # measured: 1.3-1.5x
    assert peak <= bound + transient <= 2 * peak, (peak, bound, transient)


def test_rdt_sharp_guard_counts_the_centres_it_draws(monkeypatch):
    """At depth 12 a tree has 4,096 leaves and each leaf holding public rows gets a centre
    beyond n_cells: the up-front estimate is under what the model keeps (21.4 < 23.2 MB), so fit
    checks the guard again with each drawn tree's real centre count (public rows only, before
    any charge); the last estimate checked bounds what the model keeps."""
    checked = []

    def recorded(estimate, *args, **kwargs):
        checked.append(estimate)
        return check_memory(estimate, *args, **kwargs)

    monkeypatch.setattr(rdt_sharp, "check_memory", recorded)
    X, y, domain = numeric_data(20_000, 10)
    kept, _, bound, transient = rdt_sharp_measured(X, y, domain, n_secondary=50, max_depth=12)
    assert bound < kept <= checked[-1] - transient <= 2 * kept, (bound, kept, checked[-1])


@pytest.mark.parametrize("cls", [PrivateRDTClassifier, RandomDecisionTreeClassifier])
def test_prediction_memory_does_not_grow_with_the_trees(cls):
    """Classify sums the trees' counts one tree at a time: 100 trees peak as 10 do (stacked,
    Nursery's 12,960 rows × 5 classes would take 5 MB per 10 trees)."""
    data = load("nursery")
    codes = data.domain.encode(data.X)
    peaks = []
    for n_trees in (10, 100):
        model = cls(n_trees=n_trees, domain=data.domain, random_state=0).fit(data.X, data.y)
        gc.collect()
        tracemalloc.start()
        try:
            model.predict_proba(Encoded(codes, model.domain_))
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[1] <= 1.2 * peaks[0], peaks
