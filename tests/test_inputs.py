"""Estimator inputs (issue 15): silently wrong answers and poor messages.

* ``unknown="random"`` in the ID3 family routes a row independently of the rest of the
  batch (a keyed uniform per node, as the random-tree family);
* infinity is refused in every numeric column, whatever its dtype;
* boolean parameters accept only booleans;
* an ε that underflows when divided is reported with the user's value;
* duplicated column names are refused with their names;
* a refused ``PrivateRDTClassifier.update`` leaves the ledger and the model unchanged;
* ``cross_val_predict(method="predict_proba")`` with string classes gives the documented hint;
* values outside a numeric attribute's public bounds behave like the bound (documented, pinned),
  and dates and durations are refused where a number is read.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import cross_val_predict

from dpviz.data.uci import load
from dpviz.domain import Categorical, Domain, Encoded, Numeric
from dpviz.errors import ColumnMismatchError, InvalidParameterError, UnknownLabelError
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier
from dpviz.validation import check_bool

ID3_FAMILY = [SuLQID3Classifier, DiffPID3Classifier, DiffPC45Classifier]


@functools.cache
def _nursery():
    return load("nursery")


def _small():
    """A public domain with a numeric and a categorical attribute, and 40 rows."""
    domain = Domain([Numeric("a", 0, 10), Categorical("c", ("x", "y"))], ["n", "p"])
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0] * 10, "c": ["x", "y"] * 20})
    y = ["n", "p", "n", "p"] * 10
    return domain, X, y


def _estimators(domain):
    """One instance of every estimator that accepts numeric attributes."""
    return [
        RandomDecisionTreeClassifier(n_trees=3, max_depth=2, domain=domain, random_state=0),
        PrivateRDTClassifier(1.0, n_trees=3, max_depth=2, domain=domain, random_state=0),
        DPRandomForestClassifier(1.0, n_trees=3, max_depth=2, domain=domain, random_state=0),
        DiffPID3Classifier(5.0, max_depth=2, domain=domain, random_state=0),
        DiffPC45Classifier(5.0, max_depth=2, domain=domain, random_state=0),
        RDTSharpClassifier(1.0, n_primary=2, n_secondary=2, max_depth=2, domain=domain,
                           random_state=0),
    ]


# ================================================================ 1. unknown="random" in ID3
@pytest.mark.parametrize("cls", ID3_FAMILY)
def test_id3_unknown_routing_is_a_function_of_the_model_and_the_row(cls):
    data = _nursery()
    model = cls(20.0, max_depth=3, domain=data.domain, unknown="random", random_state=3)
    model.fit(data.X, data.y)
    root = model.tree_.root.attribute
    assert root is not None  # the root splits, so the unseen value is routed at random
    X = data.X.iloc[:4000].astype(object).copy()
    X[root] = "unseen"
    X.iloc[::2, 1] = "unseen too"  # unseen in a second column, every other row
    pred = model.predict(X)
    assert_array_equal(model.predict(X.iloc[::-1])[::-1], pred)  # permutation
    order = np.random.default_rng(0).permutation(len(X))
    assert_array_equal(model.predict(X.iloc[order]), pred[order])
    proba = model.predict_proba(X)
    assert_array_equal(model.predict_proba(X.iloc[order]), proba[order])
    for i in range(0, 4000, 97):  # each row alone
        assert model.predict(X.iloc[[i]])[0] == pred[i]
    assert_array_equal(model.predict(X), pred)  # and again: nothing is consumed


def test_id3_unknown_child_varies_with_the_model():
    """Across models (seeds), an unseen value at a node goes to different children."""
    data = _nursery()
    X = data.X.iloc[:1].astype(object).copy()
    leaves = set()
    for seed in range(12):
        model = DiffPID3Classifier(
            20.0, max_depth=1, domain=data.domain, unknown="random", random_state=seed
        ).fit(data.X, data.y)
        X2 = X.copy()
        X2[model.tree_.root.attribute] = "unseen"
        leaves.add((model.tree_.root.attribute, int(model.apply(X2)[0])))
    # 12 models: the chance that every unseen row lands in the same child of a root with
    # ≥ 2 children is ≤ (1/2)^11 per attribute; several distinct leaves must appear
    assert len(leaves) >= 2


# ================================================================ 2. infinity
@pytest.mark.parametrize("value", [np.inf, -np.inf, "inf", "-inf", "Infinity"])
@pytest.mark.parametrize("model", range(6))
def test_infinity_in_an_object_column_is_refused(value, model):
    domain, X, y = _small()
    est = _estimators(domain)[model]
    bad = X.astype({"a": object})
    bad.loc[3, "a"] = value
    with pytest.raises(InvalidParameterError, match="'a' contains infinity"):
        est.fit(bad, y)
    est.fit(X, y)
    with pytest.raises(InvalidParameterError, match="'a' contains infinity"):
        est.predict(bad)


def test_infinity_is_refused_by_domain_encode_in_any_dtype():
    domain, X, _ = _small()
    for column in (X["a"].astype(object), X["a"].astype(str), X["a"]):
        bad = X.assign(a=column)
        bad.loc[5, "a"] = np.inf if column.dtype.kind == "f" else "inf"
        with pytest.raises(InvalidParameterError, match=r"'a' contains infinity \(row 5,"):
            domain.encode(bad)
    arr = X.to_numpy(dtype=object)
    arr[2, 0] = float("-inf")
    with pytest.raises(InvalidParameterError, match="'a' contains infinity"):
        domain.encode(arr)
    # a large finite value is still clipped to the public bound
    assert domain.encode(X.assign(a=1e308))[0, 0] == 10.0


def test_infinity_without_a_domain_names_the_column():
    X = np.array([[1.0, "x"], [np.inf, "y"], [2.0, "x"], [3.0, "y"]], dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InvalidParameterError, match="column 0 of X contains infinity"):
            PrivateRDTClassifier(1.0, random_state=0).fit(X, ["n", "p", "n", "p"])


# ================================================================ 3. boolean parameters
BOOLEAN_PARAMS = [
    (DPRandomForestClassifier, "disjoint"),
    (RandomDecisionTreeClassifier, "prune"),
    (PrivateRDTClassifier, "clip_negative"),
    (DiffPID3Classifier, "prune"),
    (DiffPC45Classifier, "prune"),
]


@pytest.mark.parametrize(("cls", "name"), BOOLEAN_PARAMS)
@pytest.mark.parametrize("value", ["no", "False", 0, 1, None, 1.0])
def test_boolean_parameters_refuse_non_booleans(cls, name, value):
    domain, X, y = _small()
    est = cls(domain=domain, random_state=0, **{name: value})
    with pytest.raises(InvalidParameterError, match=f"{name} must be True or False, got {value!r}"):
        est.fit(X, y)
    with pytest.raises(InvalidParameterError, match=f"{name} must be True or False"):
        est.fit(Encoded(domain.encode(X), domain), y)
    with pytest.raises(InvalidParameterError, match=f"{name} must be True or False"):
        est.fit(None, None)  # refused before any data is read


@pytest.mark.parametrize(("cls", "name"), BOOLEAN_PARAMS)
def test_boolean_parameters_accept_numpy_booleans(cls, name):
    domain, X, y = _small()
    a = cls(domain=domain, random_state=0, max_depth=2, **{name: np.bool_(False)}).fit(X, y)
    b = cls(domain=domain, random_state=0, max_depth=2, **{name: False}).fit(X, y)
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize(("cls", "name"), [(RandomDecisionTreeClassifier, "prune"),
                                           (PrivateRDTClassifier, "clip_negative")])
def test_boolean_parameters_read_at_prediction_are_checked_there(cls, name):
    domain, X, y = _small()
    est = cls(domain=domain, random_state=0, max_depth=2).fit(X, y)
    est.set_params(**{name: "no"})
    with pytest.raises(InvalidParameterError, match=f"{name} must be True or False"):
        est.predict(X)


def test_check_bool():
    assert check_bool(True, "flag") is True
    assert check_bool(np.bool_(False), "flag") is False
    for value in ("yes", 1, 0.0, None, [True]):
        with pytest.raises(InvalidParameterError, match="flag must be True or False"):
            check_bool(value, "flag")


# ================================================================ 4. ε that underflows
@pytest.mark.parametrize("epsilon", [5e-324, 1e-300, 1e-7])
@pytest.mark.parametrize("model", [1, 2, 3, 4, 5])
def test_tiny_epsilon_names_the_users_value(epsilon, model):
    domain, X, y = _small()
    est = _estimators(domain)[model].set_params(epsilon=epsilon)
    with pytest.raises(InvalidParameterError, match=f"epsilon={epsilon!r}") as info:
        est.fit(X, y)
    assert "got 0.0" not in str(info.value)


@pytest.mark.parametrize("epsilon", [5e-324, 1e-300, 1e-7])
def test_tiny_epsilon_sulq(epsilon):
    data = _nursery()
    est = SuLQID3Classifier(epsilon, max_depth=2, domain=data.domain, random_state=0)
    with pytest.raises(InvalidParameterError, match=f"epsilon={epsilon!r}"):
        est.fit(data.X.iloc[:100], data.y.iloc[:100])


# ================================================================ 5. duplicated columns
@pytest.mark.parametrize("model", range(6))
def test_duplicated_columns_are_named(model):
    domain, X, y = _small()
    est = _estimators(domain)[model]
    dup = pd.concat([X, X[["a"]]], axis=1)
    with pytest.raises(ColumnMismatchError, match=r"duplicated column names: \['a'\]"):
        est.fit(dup, y)
    est.fit(X, y)
    with pytest.raises(ColumnMismatchError, match=r"duplicated column names: \['a'\]"):
        est.predict(dup)
    with pytest.raises(ColumnMismatchError, match=r"duplicated column names: \['a', 'c'\]"):
        domain.encode(pd.concat([X, X], axis=1))


# ================================================================ 6. a refused update
def _snapshot(model, X):
    ledger = model.ledger_
    return (len(ledger.entries), ledger.spent, ledger.total, list(model.leaf_counts_),
            list(model.trees_), model.predict_proba(X))


@pytest.mark.parametrize(
    ("epsilon", "method", "match"),
    [
        (2.0, "jpw", "epsilon=2.0"),  # more than the fitted budget: refused, not half-spent
        (5e-324, "jpw", "epsilon=5e-324"),
        (5e-324, "recount", "epsilon=5e-324"),
        (1.0, "bogus", "method must be"),
        (1.0, "rebuild", "X_previous"),
    ],
)
def test_refused_update_changes_nothing(epsilon, method, match):
    domain, X, y = _small()
    model = PrivateRDTClassifier(1.0, n_trees=10, max_depth=2, domain=domain, random_state=0)
    model.fit(X, y)
    before = _snapshot(model, X)
    model.set_params(epsilon=epsilon)
    with pytest.raises(InvalidParameterError, match=match):
        model.update(X, y, method=method)
    after = _snapshot(model, X)
    assert after[:3] == before[:3]
    assert all(a is b for a, b in zip(after[3], before[3], strict=True))
    assert all(a is b for a, b in zip(after[4], before[4], strict=True))
    assert_array_equal(after[5], before[5])
    model.set_params(epsilon=1.0)  # and the model still updates normally
    model.update(X, y)
    assert model.ledger_.spent == pytest.approx(1.0)


# ================================================================ 7. cross_val_predict
def test_cross_val_predict_proba_with_string_classes_gives_the_hint():
    data = load("votes")
    est = PrivateRDTClassifier(1.0, n_trees=5, domain=data.domain, random_state=0)
    with pytest.raises(UnknownLabelError, match=r"cross_val_predict\(method='predict_proba'\)"):
        cross_val_predict(est, data.X, data.y, cv=3, method="predict_proba")
    predicted = cross_val_predict(est, data.X, data.y, cv=3)  # predict keeps the labels
    assert set(predicted) <= set(data.domain.classes)


# ================================================================ 8. bounds and time columns
@pytest.mark.parametrize("index", range(6))
def test_values_outside_the_bounds_behave_like_the_bound(index):
    """The documented clipping (Numeric's Notes): a fit, and every prediction, read a value
    below ``low`` as ``low`` and one above ``high`` as ``high``."""
    domain = Domain([Numeric("a", 0, 10), Categorical("c", ("x", "y"))], ["n", "p"])
    rng = np.random.default_rng(0)
    a = rng.uniform(-5, 15, 400)  # half of the values outside [0, 10]
    X = pd.DataFrame({"a": a, "c": rng.choice(["x", "y"], 400)})
    y = np.where(a + rng.normal(0, 2, 400) > 5, "p", "n")
    model = _estimators(domain)[index]
    at_bounds = clone(model).fit(X.assign(a=X["a"].clip(0, 10)), y)
    model.fit(X, y)
    test = pd.DataFrame({"a": [-1e9, -0.5, 0.0, 10.0, 10.5, 1e9], "c": ["x"] * 6})
    proba = model.predict_proba(test)
    assert_array_equal(proba, at_bounds.predict_proba(test))
    assert_array_equal(proba[[0, 1]], proba[[2, 2]])
    assert_array_equal(proba[[4, 5]], proba[[3, 3]])


@pytest.mark.parametrize("index", range(6))
def test_bounds_that_exclude_all_the_data_make_the_attribute_one_value(index):
    domain = Domain([Numeric("a", 0, 10), Categorical("c", ("x", "y"))], ["n", "p"])
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.uniform(20, 30, 200), "c": rng.choice(["x", "y"], 200)})
    y = np.where(X["c"] == "x", "p", "n")
    model = _estimators(domain)[index]
    one_value = clone(model).fit(X.assign(a=10.0), y)
    model.fit(X, y)
    assert_array_equal(model.predict_proba(X), one_value.predict_proba(X))


def test_a_duration_column_is_refused_by_every_estimator():
    domain, X, y = _small()
    waits = X.assign(a=pd.to_timedelta(X["a"], unit="h"))
    for model in _estimators(domain):
        with pytest.raises(InvalidParameterError, match="'a' holds durations"):
            model.fit(waits, y)
        model.fit(X, y)  # and at prediction time
        with pytest.raises(InvalidParameterError, match="'a' holds durations"):
            model.predict(waits)
    with warnings.catch_warnings():  # without a domain: neither numeric nor categorical
        warnings.simplefilter("ignore")
        for array in (waits, waits.to_numpy(), np.array([[1], [2]], dtype="m8[s]")):
            labels = y[: len(array)]
            with pytest.raises(InvalidParameterError, match="holds durations"):
                PrivateRDTClassifier(random_state=0).fit(array, labels)
