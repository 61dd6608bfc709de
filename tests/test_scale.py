"""Issue 15, scale: impossible sizes refused up front, default depth rules capped.

Every refusal is checked to come before fit reads a row: the data given would fail to
encode (a string in a numeric column), or the tree builder is replaced by one that fails,
so the error seen is the size check's — and none of these tests can hang on a size.
"""

import numpy as np
import pandas as pd
import pytest

import dpviz.trees.forest as forest_module
from dpviz.domain import Categorical, Domain, Encoded, Numeric
from dpviz.errors import InvalidParameterError, MissingValueError
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.random_tree import (
    MAX_DEPTH,
    RandomTree,
    cap_depth,
    check_depth,
    fan_depth,
    fletcher_islam_depth,
    route_bytes,
    tree_bytes,
)
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier
from dpviz.validation import MEMORY_BUDGET, check_memory

ESTIMATORS = [
    DPRandomForestClassifier,
    PrivateRDTClassifier,
    RandomDecisionTreeClassifier,
    RDTSharpClassifier,
]


def numeric_domain(k: int) -> Domain:
    return Domain([Numeric(f"x{i}", 0.0, 1.0) for i in range(k)], classes=[0, 1])


def unreadable_rows(k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Rows that fail as soon as fit reads them (missing values), with or without a domain."""
    X = np.array([[np.nan] * k, [0.5] * k])
    return X, np.array([0, 1])


# ------------------------------------------------------------------ depth beyond MAX_DEPTH
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
@pytest.mark.parametrize("with_domain", [True, False])
def test_huge_max_depth_is_refused_before_the_rows_are_read(estimator, with_domain):
    X, y = unreadable_rows()
    clf = estimator(max_depth=10**9, domain=numeric_domain(3) if with_domain else None)
    with pytest.raises(InvalidParameterError, match=r"max_depth=1000000000 .*MAX_DEPTH=64"):
        clf.fit(X, y)


def test_max_depth_at_the_cap_is_accepted_and_one_above_refused():
    assert check_depth(MAX_DEPTH) == MAX_DEPTH
    with pytest.raises(InvalidParameterError, match=r"max_depth=65.*Pass max_depth <= 64"):
        check_depth(MAX_DEPTH + 1)


def test_huge_depth_refused_on_the_encoded_path_before_any_tree_is_built(monkeypatch):
    def no_tree(*args, **kwargs):
        raise AssertionError("the tree builder was reached")

    monkeypatch.setattr(forest_module, "RandomTree", no_tree)
    codes, labels = np.full((4, 3), 0.5), np.array([0, 1, 0, 1])
    clf = DPRandomForestClassifier(max_depth=10**9, random_state=0)
    with pytest.raises(InvalidParameterError, match="MAX_DEPTH"):
        clf.fit(Encoded(codes, numeric_domain(3)), labels)


def test_random_tree_refuses_a_depth_beyond_the_cap():
    with pytest.raises(InvalidParameterError, match="depth=1000000000"):
        RandomTree(numeric_domain(2), 10**9, key=0)


# ------------------------------------------------------------------ memory of trees and cells
@pytest.mark.parametrize(
    "estimator", [DPRandomForestClassifier, PrivateRDTClassifier, RandomDecisionTreeClassifier],
    ids=lambda e: e.__name__,
)
@pytest.mark.parametrize("with_domain", [True, False])
def test_a_billion_trees_are_refused_with_an_estimate(estimator, with_domain):
    X, y = unreadable_rows()
    clf = estimator(n_trees=10**9, domain=numeric_domain(3) if with_domain else None)
    with pytest.raises(InvalidParameterError) as info:
        clf.fit(X, y)
    message = str(info.value)
    assert "n_trees=1000000000" in message and "GiB" in message
    assert "MEMORY_BUDGET" in message and "pass n_trees <=" in message


@pytest.mark.parametrize(
    "params", [{"n_cells": 10**9}, {"n_secondary": 10**9}], ids=["n_cells", "n_secondary"]
)
def test_rdt_sharp_refuses_a_billion_cells_or_trees_with_an_estimate(params):
    X, y = unreadable_rows()
    clf = RDTSharpClassifier(domain=numeric_domain(3), **params)
    with pytest.raises(InvalidParameterError, match=r"GiB of memory.*fewer n_cells"):
        clf.fit(X, y, X_public=X)


def test_the_memory_refusal_names_the_user_value_and_comes_from_the_estimate():
    k = 10
    n_max = MEMORY_BUDGET // (tree_bytes(k) + 16)
    domain = numeric_domain(k)
    X, y = unreadable_rows(k)
    with pytest.raises(MissingValueError) as at_budget:  # passes the check, fails at the rows
        DPRandomForestClassifier(n_trees=n_max, domain=domain).fit(X, y)
    assert "MEMORY_BUDGET" not in str(at_budget.value)
    with pytest.raises(InvalidParameterError, match=f"pass n_trees <= {n_max}"):
        DPRandomForestClassifier(n_trees=n_max + 1, domain=domain).fit(X, y)
    assert check_memory(100.0, "x", "y", budget=100) == 100.0
    with pytest.raises(InvalidParameterError, match=r"y$"):
        check_memory(101.0, "x", "y", budget=100)
    assert route_bytes(k, 64, categorical=False) < route_bytes(k, 64, categorical=True)


# ------------------------------------------------------------------ default rules capped
def test_paper_rules_unchanged_and_capped_at_max_depth():
    assert fletcher_islam_depth(500, 0) == 348  # FI Theorem 2 on 500 continuous features
    assert cap_depth(fletcher_islam_depth(500, 0)) == MAX_DEPTH
    assert cap_depth(fan_depth(21)) == 10  # below the cap: unchanged


def test_fi_rule_closed_form_equals_the_step_by_step_rule():
    def stepwise(s):
        d = 0
        while s * ((s - 1) / s) ** d >= s / 2:
            d += 1
        return d + 1

    for s in [*range(1, 400), 1000, 4321]:
        assert fletcher_islam_depth(s, 3) == stepwise(s) + 1


def small_numeric(k: int, n: int = 12):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((n, k)), columns=[f"x{i}" for i in range(k)])
    return X, np.arange(n) % 2


def test_fi_forest_default_depth_is_capped_on_500_attributes():
    X, y = small_numeric(500)
    clf = DPRandomForestClassifier(n_trees=2, domain=numeric_domain(500), random_state=0)
    clf.fit(X, y)
    assert clf.depth_ == MAX_DEPTH
    assert clf.predict(X).shape == (len(X),)


@pytest.mark.parametrize("estimator", [PrivateRDTClassifier, RandomDecisionTreeClassifier])
def test_fan_default_depth_is_capped_on_200_attributes(estimator):
    X, y = small_numeric(200)
    clf = estimator(n_trees=2, domain=numeric_domain(200), random_state=0).fit(X, y)
    assert clf.depth_ == MAX_DEPTH


def test_rdt_sharp_default_height_is_capped_on_200_attributes():
    X, y = small_numeric(200)
    clf = RDTSharpClassifier(
        n_primary=1, n_secondary=1, domain=numeric_domain(200), random_state=0
    ).fit(X, y, X_public=X)
    assert clf.depth_ == MAX_DEPTH


def test_categorical_domain_saturates_below_the_cap():
    # every categorical attribute is used once per path: beyond k levels nodes pass through
    domain = Domain([Categorical(f"c{i}", ["a", "b"]) for i in range(3)], classes=[0, 1])
    deep, exact = RandomTree(domain, MAX_DEPTH, key=7), RandomTree(domain, 3, key=7)
    assert deep.count_leaves() == exact.count_leaves() == 8
    assert np.array_equal(deep.leaves()[0], exact.leaves()[0])
