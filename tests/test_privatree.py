"""PrivaTree (issue 39): its budget, its exact output laws on tiny cases, bad input, accuracy.

scikit-learn conformance and the label/column/missing-value battery run in
tests/test_estimators_sklearn.py; the pseudocode twin in tests/test_pseudocode_privatree.py.
"""

from __future__ import annotations

import functools
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom
from sklearn.model_selection import StratifiedKFold

import dpviz
from dpviz import mechanisms
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import EmptyDataError, InvalidParameterError, UnknownCategoryError
from dpviz.trees.id3_quality import q_gini
from dpviz.trees.privatree import (
    LABEL_HISTOGRAM,
    LABEL_LEAF,
    LABEL_SIZE,
    LABEL_SPLIT,
    PrivaTreeClassifier,
    Scope,
    leaf_epsilon,
    ordered_splits,
    published_sensitivity,
    weighted_gini,
    worst_expected_error,
)
from dpviz.trees.privatree import plan as privatree_plan

#: Each frequency test refuses a correct sampler with probability at most this.
FALSE_ALARM = 1e-6


def _binomial_ok(k: int, n: int, p: float) -> bool:
    """k of n hits is inside the two-sided Binomial(n, p) interval of level FALSE_ALARM."""
    return binom.ppf(FALSE_ALARM / 2, n, p) <= k <= binom.isf(FALSE_ALARM / 2, n, p)


@functools.cache
def _data(name: str, **options: str) -> dpviz.Dataset:
    return dpviz.load(name, **options)


def _one_numeric(rows: list[tuple[float, int]]) -> tuple[Domain, pd.DataFrame, list[int]]:
    domain = Domain([Numeric("x", 0.0, 1.0)], [0, 1])
    return domain, pd.DataFrame({"x": [x for x, _ in rows]}), [c for _, c in rows]


# ================================================================ the budget
def test_worst_expected_error_is_one_over_e_for_two_classes():
    # max_p 2 log(1/p)·(p/2) = max_p p log(1/p) = 1/e at p = 1/e (Corollary 4 with K = 2)
    assert worst_expected_error(2) == pytest.approx(1 / math.e, rel=1e-9)
    grid = np.linspace(1e-6, 1, 200_001)
    for k in (3, 5):
        brute = (2 * np.log(1 / grid) * (1 - (1 - (1 - grid) ** k) / (k * grid))).max()
        assert worst_expected_error(k) == pytest.approx(brute, rel=1e-6)


def test_leaf_epsilon_is_corollary_4s_absolute_epsilon_from_a_public_size():
    # ε_leaf = min(ε/2, 2^d·W(K)/(n·0.01)), W(2) = 1/e (Appendix, Corollary 4; the authors'
    # __distribute_epsilon): an ε, not a share of ε
    need = 16 / (math.e * 360)  # d = 4, K = 2, n = 36,000: 0.01635
    assert leaf_epsilon(1.0, 4, 2, 36_000) == pytest.approx(need, rel=1e-9)
    assert leaf_epsilon(0.1, 4, 2, 36_000) == pytest.approx(need, rel=1e-9)  # not 0.1·need
    assert leaf_epsilon(0.01, 4, 2, 36_000) == 0.005  # the cap ε/2 (the share rule: 1.6e-4)
    assert leaf_epsilon(1.0, 3, 2, 1000) == pytest.approx(8 / (math.e * 10), rel=1e-9)  # 0.294
    assert leaf_epsilon(0.5, 3, 2, 1000) == 0.25  # capped: 0.294 > ε/2
    assert leaf_epsilon(1.0, 4, 2, 100) == 0.5  # 16/e = 5.9: capped
    assert leaf_epsilon(2.0, 4, 2, None) == 1.0  # no public size: ε/2, never the private count
    assert leaf_epsilon(math.inf, 4, 2, 100) == math.inf
    # three classes: W(3) from its maximisation, here on a fine grid
    grid = np.linspace(1e-6, 1, 2_000_001)
    w3 = (2 * np.log(1 / grid) * (1 - (1 - (1 - grid) ** 3) / (3 * grid))).max()
    assert leaf_epsilon(1.0, 4, 3, 12_960) == pytest.approx(16 * w3 / 129.6, rel=1e-6)


def test_the_plan_spends_the_rest_of_epsilon_on_the_levels():
    domain = Domain([Numeric("x", 0.0, 1.0), Categorical("c", ("u", "v", "w"))], ["n", "y"])
    settings = privatree_plan(domain, 4, 1.0, n_public=36_000)
    assert settings.eps_leaf == pytest.approx(16 / (math.e * 360), rel=1e-9)
    assert settings.eps_level == pytest.approx((1.0 - settings.eps_leaf) / 4, rel=1e-12)
    given = privatree_plan(domain, 4, 0.2, share=0.25, n_public=36_000)  # a given share of ε
    assert (given.eps_leaf, given.eps_level) == pytest.approx((0.05, 0.0375))


@pytest.mark.parametrize("splitter", ["histogram", "exponential"])
@pytest.mark.parametrize(("name", "options"), [("mushroom", {}), ("nursery", {}),
                                               ("adult", {})])
def test_the_ledger_sums_to_epsilon_level_by_level(name, options, splitter):
    data = _data(name, **options)
    model = PrivaTreeClassifier(0.7, 3, splitter=splitter, domain=data.domain, n_public=5000,
                                random_state=1).fit(data.X.iloc[:3000],
                                                    np.asarray(data.y)[:3000])
    ledger = model.ledger_.to_frame()
    assert model.ledger_.spent == pytest.approx(0.7, rel=1e-12)
    assert model.eps_leaf_ == pytest.approx(leaf_epsilon(0.7, 3, data.domain.n_classes, 5000))
    assert 3 * model.eps_level_ + model.eps_leaf_ == pytest.approx(0.7, rel=1e-12)
    kind = LABEL_HISTOGRAM if splitter == "histogram" else LABEL_SPLIT
    splits = ledger[ledger.label == kind]
    for depth in range(3):  # every node of a level spends the level's ε (parallel)
        level = splits[splits.depth == depth]
        spent = level.groupby("path").epsilon.sum()
        assert len(spent) == 2**depth
        np.testing.assert_allclose(spent, model.eps_level_, rtol=1e-12)
    assert splits.charged.sum() == pytest.approx(3 * model.eps_level_, rel=1e-12)
    leaves = ledger[ledger.label == LABEL_LEAF]
    assert len(leaves) == 8 and (leaves.depth == 3).all()
    assert (leaves.epsilon == model.eps_leaf_).all()
    assert leaves.charged.sum() == pytest.approx(model.eps_leaf_, rel=1e-12)
    if splitter == "histogram":  # the root asks one histogram per attribute, ε/F each
        root = splits[splits.depth == 0]
        assert len(root) == len(data.domain)
        np.testing.assert_allclose(root.epsilon, model.eps_level_ / len(data.domain))


def test_a_tree_no_deeper_than_its_candidates_spends_every_level():
    # one binary attribute: one split is all there is, so d = 5 spends ε/2 at one level
    domain = Domain([Categorical("a", ("u", "v"))], ["n", "y"])
    X = pd.DataFrame({"a": ["u", "v"] * 10})
    model = PrivaTreeClassifier(1.0, 5, domain=domain, random_state=0).fit(X, ["n", "y"] * 10)
    assert model.tree_.depth == 1
    assert model.eps_level_ == 0.5 and model.eps_leaf_ == 0.5
    assert model.ledger_.spent == pytest.approx(1.0)


# ================================================================ exact output laws
def _split_frequency(splitter: str, domain: Domain, X: pd.DataFrame, y: list[int],
                     epsilon: float, n: int) -> int:
    """How often the root splits at x <= 1/3 in n fits (seeds 0 … n−1)."""
    hits = 0
    for seed in range(n):
        model = PrivaTreeClassifier(epsilon, 1, n_bins=3, splitter=splitter, leaf_share=0.5,
                                    domain=domain, random_state=seed).fit(X, y)
        hits += model.tree_.root.split.threshold == pytest.approx(1 / 3)
    return hits


def test_the_exponential_split_has_the_exponential_mechanisms_law():
    # bins [0, 1/3), [1/3, 2/3), [2/3, 1]: two candidates; class counts per bin (4,0) (0,2) (0,2)
    domain, X, y = _one_numeric([(0.1, 0)] * 4 + [(0.5, 1)] * 2 + [(0.9, 1)] * 2)
    tables = np.array([[[4, 0], [0, 4]], [[4, 2], [0, 2]]], dtype=float)
    eps_level = 1.0  # ε = 2, half to the leaves, one level
    p = mechanisms.exponential_probabilities(q_gini(tables), epsilon=eps_level, sensitivity=2)
    assert p[0] == pytest.approx(1 / (1 + math.exp(-(8 / 3) / 4)))  # 0.661
    n = 2000
    hits = _split_frequency("exponential", domain, X, y, 2 * eps_level, n)
    assert _binomial_ok(hits, n, p[0])
    # power: at twice the ε (p = 0.791) the same test fails with probability > 1 − 1e-9
    doubled = mechanisms.exponential_probabilities(q_gini(tables), epsilon=2 * eps_level,
                                                   sensitivity=2)[0]
    assert binom.cdf(binom.isf(FALSE_ALARM / 2, n, p[0]), n, doubled) < 1e-9


def _histogram_law(exact: np.ndarray, epsilon: float, radius: int) -> float:
    """P(the root picks candidate 0) of the histogram splitter, summing over all the noise.

    ``exact``: (3 bins, 2 classes) counts; each cell gets discrete Laplace noise at ε, clipped
    at 0; the Gini arg-min, ties split evenly. Noise beyond ``radius`` is dropped (its mass
    is bounded by the caller). The split reads only the clipped cells, so each cell's noise
    values that clip to the same count (every k <= -c clips to 0) are summed into one: the
    same finite sum as over all (2·radius + 1)^6 noise vectors, grouped (at radius 8, 891,000
    histograms instead of 24 million noise vectors).
    """
    k = np.arange(-radius, radius + 1)
    pmf = mechanisms.discrete_laplace_pmf(k, epsilon=epsilon)
    values, masses = [], []
    for c in exact.T.ravel():  # classes 0, then 1, per bin
        clipped, where = np.unique(np.maximum(c + k, 0), return_inverse=True)
        values.append(clipped)
        masses.append(np.bincount(where.ravel(), weights=pmf, minlength=len(clipped)))
    cells = np.meshgrid(*values, indexing="ij")
    weight = functools.reduce(np.multiply.outer, masses).ravel()
    h = np.stack([cell.ravel() for cell in cells], axis=1).reshape(-1, 2, 3)
    h = h.transpose(0, 2, 1).astype(float)  # (histogram, bin, class)
    g0 = weighted_gini(h[:, 0], h[:, 1] + h[:, 2])
    g1 = weighted_gini(h[:, 0] + h[:, 1], h[:, 2])
    return float(weight @ np.where(g0 < g1, 1.0, np.where(g0 == g1, 0.5, 0.0)))


def test_the_histogram_split_has_its_exact_law():
    # counts per bin (2,0) (1,1) (0,1): x <= 1/3 is best (Gini 0.267 against 0.3)
    exact = np.array([[2, 0], [1, 1], [0, 1]])
    domain, X, y = _one_numeric([(0.1, 0)] * 2 + [(0.5, 0), (0.5, 1), (0.9, 1)])
    eps_level, radius = 3.0, 8  # ε = 6 (half to the leaves); one attribute: ε/F = ε
    dropped = 6 * 2 * math.exp(-eps_level * (radius + 1)) / (1 + math.exp(-eps_level))
    p = _histogram_law(exact, eps_level, radius)
    assert 0.75 < p < 0.95 and dropped < 1e-10
    n = 3000
    hits = _split_frequency("histogram", domain, X, y, 2 * eps_level, n)
    assert _binomial_ok(hits, n, p)
    # power: the law at 2ε (a histogram overspent) is refused almost surely, and so is the
    # exact arg-max (no noise: always x <= 1/3)
    doubled = _histogram_law(exact, 2 * eps_level, 4)
    assert p < doubled and binom.cdf(binom.isf(FALSE_ALARM / 2, n, p), n, doubled) < 1e-9
    assert not _binomial_ok(n, n, p)


def test_the_published_sensitivity_is_a_gini_after_one_row():
    # n rows of one class and one of another: Gini 1 − (n/(n+1))² − (1/(n+1))² = 2n/(n+1)²
    assert published_sensitivity(1) == 0.5
    assert published_sensitivity(2) == pytest.approx(4 / 9)
    assert published_sensitivity(8) == pytest.approx(16 / 81)
    assert weighted_gini(np.array([[8.0, 1.0]]), np.zeros((1, 2)))[0] == pytest.approx(16 / 81)


def test_the_published_split_has_its_law_and_warns():
    # the exponential test's rows: candidates x <= 1/3 (Gini 0) and x <= 2/3 (Gini 1/3); ε = 2,
    # half to the leaves: a noisy size at 0.5 (discrete Laplace, at least 1), then
    # permute-and-flip at 0.5 on 0.5 − Gini with the sensitivity of the noisy size
    domain, X, y = _one_numeric([(0.1, 0)] * 4 + [(0.5, 1)] * 2 + [(0.9, 1)] * 2)
    k = np.arange(-400, 401)
    sizes = np.maximum(8 + k, 1)
    first = np.array([mechanisms.report_noisy_max_probabilities(
        [0.5, 0.5 - 1 / 3], epsilon=0.5, sensitivity=published_sensitivity(m),
        monotone=False)[0] for m in sizes])
    p = float(mechanisms.discrete_laplace_pmf(k, epsilon=0.5) @ first)
    assert 0.55 < p < 0.8
    n = 2000
    with pytest.warns(dpviz.NotProvenPrivateWarning, match="no proof"):
        _split_frequency("published", domain, X, y, 2.0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpviz.NotProvenPrivateWarning)
        hits = _split_frequency("published", domain, X, y, 2.0, n)
    assert _binomial_ok(hits, n, p)
    assert not _binomial_ok(n, n, p)  # power: the exact arg-max is refused
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ε = ∞: no noise, no claim to warn about
        exact = PrivaTreeClassifier(math.inf, 1, n_bins=3, splitter="published",
                                    domain=domain, random_state=0).fit(X, y)
    assert exact.tree_.root.split.threshold == pytest.approx(1 / 3)


def test_the_published_splitter_spends_half_a_level_on_each_nodes_size():
    data = _data("votes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpviz.NotProvenPrivateWarning)
        model = PrivaTreeClassifier(0.7, 3, splitter="published", domain=data.domain,
                                    n_public=300, random_state=1).fit(data.X, data.y)
    ledger = model.ledger_.to_frame()
    assert model.ledger_.spent == pytest.approx(0.7, rel=1e-12)
    for label in (LABEL_SIZE, LABEL_SPLIT):
        asked = ledger[ledger.label == label]
        assert len(asked) == 7 and (asked.epsilon == model.eps_level_ / 2).all()
    # the authors' categorical candidates: the values in code order, every prefix left
    domain = Domain([Categorical("c", ("u", "v", "w"))], [0, 1])
    scope = Scope.of(domain, 10)
    assert [s.left for s in ordered_splits(domain, scope, {})] == [(0,), (0, 1)]


def test_the_leaf_label_is_permute_and_flip():
    # depth 0: the root is the leaf; counts (3, 1) at ε: P(class 0) = 1 − e^{−2ε}/2
    domain = Domain([Categorical("a", ("u",))], [0, 1])
    X = pd.DataFrame({"a": ["u"] * 4})
    p = mechanisms.report_noisy_max_probabilities([3, 1], epsilon=0.4, sensitivity=1)[0]
    assert p == pytest.approx(1 - math.exp(-0.8) / 2)
    n = 3000
    hits = sum(PrivaTreeClassifier(0.4, 0, domain=domain, random_state=s).fit(X, [0, 0, 0, 1])
               .tree_.root.label == 0 for s in range(n))
    assert _binomial_ok(hits, n, p)


# ================================================================ releases and fits
def test_binary_and_multiclass_fits():
    votes, nursery = _data("votes"), _data("nursery")
    for data in (votes, nursery):
        model = PrivaTreeClassifier(1.0, 3, domain=data.domain, random_state=0)
        model.fit(data.X, data.y)
        assert list(model.classes_) == list(data.domain.classes)
        proba = model.predict_proba(data.X)
        assert proba.shape == (len(data.X), data.domain.n_classes)
        np.testing.assert_array_equal(proba.sum(axis=1), 1.0)
        assert set(model.predict(data.X)) <= set(data.domain.classes)
        assert model.tree_.n_leaves == 8
        text = str(model.tree_)
        assert text.startswith("PrivaTree (histogram splits): ε = 1") and "→ class" in text
    assert model.apply(nursery.X).max() < len(list(model.tree_.nodes()))


def test_epsilon_inf_is_the_exact_greedy_gini_tree():
    # a separable threshold at x = 0.45: the bins of 10 find it between 0.4 and 0.5
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 400)
    x = x[np.abs(x - 0.45) > 0.06]
    domain = Domain([Numeric("x", 0, 1), Numeric("noise", 0, 1)], [0, 1])
    X = pd.DataFrame({"x": x, "noise": rng.uniform(0, 1, len(x))})
    y = (x > 0.45).astype(int)
    for splitter in ("histogram", "exponential"):
        model = PrivaTreeClassifier(math.inf, 2, splitter=splitter, domain=domain,
                                    random_state=0).fit(X, y)
        assert model.tree_.root.split.attribute == "x"
        assert model.tree_.root.split.threshold in (pytest.approx(0.4), pytest.approx(0.5))
        assert model.score(X, y) == 1.0


def test_the_fitted_model_holds_nothing_but_its_release():
    data = _data("votes")
    model = PrivaTreeClassifier(1.0, 3, domain=data.domain, random_state=0).fit(data.X, data.y)
    with pytest.warns(dpviz.PrivacyLeakWarning, match="random_state"):  # its seed replays
        pickle.dumps(model)
    model.set_params(random_state=None)  # the fitted tree does not read it
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PrivacyLeakWarning: no curator secret inside
        copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict(data.X), model.predict(data.X))
    sizes = [np.size(v) for v in vars(model._flat_).values() if isinstance(v, np.ndarray)]
    assert max(sizes) < len(data.X)  # no per-row array (no exact counts are kept either)


def test_unknown_categories_at_fit_and_predict():
    data = _data("votes")
    X = data.X.iloc[:50].astype(object).copy()
    X.iloc[3, 2] = "abstain"
    model = PrivaTreeClassifier(1.0, 3, domain=data.domain, random_state=0)
    with pytest.raises(UnknownCategoryError, match="abstain"):
        model.fit(X, data.y[:50])
    assert not hasattr(model, "ledger_")  # refused before the table was opened
    model.fit(data.X, data.y)
    with pytest.raises(UnknownCategoryError, match="abstain"):
        model.predict(X)
    model.set_params(unknown="random")
    np.testing.assert_array_equal(model.predict(X), model.predict(X))  # keyed: a function


@pytest.mark.parametrize(("params", "match"), [
    ({"epsilon": 0}, "epsilon must be > 0"),
    ({"epsilon": -1.0}, "epsilon must be > 0"),
    ({"epsilon": math.nan}, "epsilon must be > 0"),
    ({"epsilon": "1"}, "epsilon must be a positive real number"),
    ({"max_depth": -1}, "max_depth must be >= 0"),
    ({"max_depth": None}, "max_depth must be an integer"),
    ({"n_bins": 1}, "n_bins must be >= 2"),
    ({"splitter": "gini"}, "splitter must be one of"),
    ({"leaf_share": 0.0}, "leaf_share must be > 0"),
    ({"leaf_share": 1.0}, r"leaf_share must lie in \(0, 1\)"),
    ({"n_public": 0}, "n_public must be >= 1"),
    ({"epsilon": 2.0**-19, "max_depth": 3}, "below the smallest ε"),
])
def test_bad_parameters_are_refused_before_any_query(params, match):
    data = _data("votes")
    model = PrivaTreeClassifier(domain=data.domain, random_state=0).set_params(**params)
    with pytest.raises(InvalidParameterError, match=match):
        model.fit(data.X, data.y)
    assert not hasattr(model, "ledger_")


def test_empty_and_single_class_data():
    domain = Domain([Numeric("x", 0, 1)], ["a", "b"])
    with pytest.raises(EmptyDataError, match="0 sample"):
        PrivaTreeClassifier(domain=domain).fit(pd.DataFrame({"x": []}), [])
    with pytest.raises(EmptyDataError, match="only one class"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dpviz.PrivacyLeakWarning)
            PrivaTreeClassifier().fit(np.array([[0.1], [0.2]]), ["a", "a"])
    # a public Domain naming both classes: one class in the rows is a valid data set
    model = PrivaTreeClassifier(1.0, 2, domain=domain, random_state=0)
    model.fit(pd.DataFrame({"x": [0.1, 0.2]}), ["a", "a"])
    assert set(model.predict(pd.DataFrame({"x": [0.1, 0.9]}))) <= {"a", "b"}


# ================================================================ accuracy (the paper's tables)
def test_mushroom_accuracy_is_near_the_papers():
    """Depth 4, 5-fold CV on Mushroom without missing rows (the paper's 5,644 × 22).

    Paper, Appendix Tables VI-VII: 0.949 ± 0.005 at ε = 1, 0.694 ± 0.059 at ε = 0.01.
    Measured with these seeds: 0.969 ± 0.012 (ε = 1) and 0.665 ± 0.019 (ε = 0.01); over
    3 × 5 folds 0.973 ± 0.006 and 0.650 ± 0.031 (exponential splits: 0.985, 0.670).
    """
    data = _data("mushroom", missing="drop_rows")
    X, y = data.X, np.asarray(data.y)
    assert X.shape == (5644, 22)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    scores = {}
    for epsilon in (1.0, 0.01):
        scores[epsilon] = np.mean([
            PrivaTreeClassifier(epsilon, 4, domain=data.domain, n_public=len(train),
                                random_state=f).fit(X.iloc[train], y[train])
            .score(X.iloc[test], y[test]) for f, (train, test) in enumerate(folds)])
    assert scores[1.0] > 0.93
    assert 0.55 < scores[0.01] < 0.8
