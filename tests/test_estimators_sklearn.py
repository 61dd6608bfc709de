"""scikit-learn conformance of the random-tree estimators (issue 3, item 6).

* scikit-learn's own estimator checks (``parametrize_with_checks``) against
  ``RandomDecisionTreeClassifier``, ``PrivateRDTClassifier``,
  ``DPRandomForestClassifier`` and ``RDTSharpClassifier``; the private ones declare
  scikit-learn's ``poor_score`` tag;
* any class labels (strings, unsorted, shifted or non-contiguous integers) give
  the same model as labels ``0 .. K-1`` under the same seed, with a public
  Domain and with a derived one;
* reproducibility, ``cross_val_score`` and ``Pipeline`` on DataFrames with
  categorical string columns (the UCI Votes and Nursery data, public Domains);
* clear errors on bad input.
"""

from __future__ import annotations

import functools
import inspect
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpviz
from dpviz.data.uci import load
from dpviz.domain import Domain, Numeric
from dpviz.errors import (
    ColumnMismatchError,
    EmptyDataError,
    InvalidParameterError,
    MissingValueError,
    PrivacyLeakWarning,
    UnknownCategoryError,
    UnknownLabelError,
)
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.privatree import PrivaTreeClassifier
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

ESTIMATORS = {
    "rdt": RandomDecisionTreeClassifier,
    "private_rdt": PrivateRDTClassifier,
    "forest": DPRandomForestClassifier,
    "privatree": PrivaTreeClassifier,
}
PRIVATE = ["private_rdt", "forest", "privatree"]

# ================================================================ scikit-learn's own checks
# The checks derive the domain from their numeric arrays (domain=None), which warns
# PrivacyLeakWarning by design; the warning is silenced here, not removed.
#
# One instance per class, as scikit-learn checks its own estimators. The non-private RDT at
# max_depth=4: its default height rule gives h = k/2 = 1 on the checks' 2-feature blobs, one
# random split per tree, too shallow for three blobs (check_classifiers_train asserts a
# training accuracy > 0.83 with random_state=0; measured 0.96/0.91 binary/3-class at depth 4,
# 0.78 at the default height). The private estimators at their defaults (only random_state
# set): they carry scikit-learn's poor_score tag (their accuracy on small data is low by
# design: the noise), so the check skips its 0.83 bar for them and every check passes.
_checks = parametrize_with_checks(
    [RandomDecisionTreeClassifier(n_trees=10, max_depth=4, random_state=0),
     PrivateRDTClassifier(random_state=0), DPRandomForestClassifier(random_state=0),
     RDTSharpClassifier(random_state=0),  # fit(X, y) alone: no public rows
     PrivaTreeClassifier(random_state=0)],
    xfail_strict=True,
)


@pytest.mark.filterwarnings("ignore::dpviz.errors.PrivacyLeakWarning")
@_checks
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    "estimator",
    [PrivateRDTClassifier(), DPRandomForestClassifier(), RDTSharpClassifier(),
     DiffPID3Classifier(), DiffPC45Classifier(), SuLQID3Classifier(), PrivaTreeClassifier()],
    ids=lambda e: type(e).__name__,
)
def test_private_estimators_declare_a_poor_score(estimator):
    # noisy by design: scikit-learn's accuracy bar does not apply to them
    assert get_tags(estimator).classifier_tags.poor_score
    assert {"poor_score": True}.items() <= estimator._more_tags().items()  # sklearn < 1.6


def test_the_non_private_rdt_does_not_declare_a_poor_score():
    assert not get_tags(RandomDecisionTreeClassifier()).classifier_tags.poor_score


# ================================================================ data and helpers
@functools.cache
def _votes():
    return load("votes")


@functools.cache
def _nursery():
    return load("nursery")


def _numeric_data(n=300, seed=0):
    """Three classes on two features in [0, 1]: the class is the third of [0, 1] x0 is in."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    y = np.digitize(X[:, 0], [1 / 3, 2 / 3])
    return X, y


def _numeric_domain(classes):
    return Domain([Numeric(f"x{j}", 0.0, 1.0) for j in range(2)], classes)


def _make(kind, **params):
    """A small, fast estimator of each kind (ε = 1 for the private ones)."""
    settings = {
        "rdt": {"n_trees": 5, "max_depth": 3},
        "private_rdt": {"epsilon": 1.0, "n_trees": 5, "max_depth": 3},
        "forest": {"epsilon": 1.0, "n_trees": 10, "max_depth": 3},
        "privatree": {"epsilon": 1.0, "max_depth": 3},
    }[kind]
    return ESTIMATORS[kind](**{"random_state": 0, **settings, **params})


def _fit_quiet(estimator, X, y):
    """Fit, silencing the PrivacyLeakWarning of a derived domain."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return estimator.fit(X, y)


# ================================================================ label handling
LABELINGS = {
    "strings": np.array(["setosa", "versicolor", "virginica"], dtype=object),
    "strings_unsorted": np.array(["zebra", "ant", "moose"], dtype=object),
    "unsorted_ints": np.array([3, 1, 2]),
    "shifted_ints": np.array([10, 20, 30]),
    "non_contiguous_ints": np.array([-1, 5, 2]),
    "integral_floats": np.array([2.0, 0.0, 1.0]),
}


def _assert_same_type(pred, labels):
    if labels.dtype.kind in "iu":
        assert pred.dtype.kind == "i"
    elif labels.dtype.kind == "f":
        assert pred.dtype.kind == "f"
    else:
        assert all(isinstance(p, str) for p in pred)


def _assert_proba(est, X, pred):
    proba = est.predict_proba(X)
    assert proba.shape == (len(X), len(est.classes_))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(est.classes_[np.argmax(proba, axis=1)], pred)
    return proba


@pytest.mark.parametrize("labeling", LABELINGS)
@pytest.mark.parametrize("kind", ESTIMATORS)
def test_labels_with_public_domain_map_like_codes(kind, labeling):
    """A public Domain listing the labels in the order of the codes gives the same model."""
    X, y = _numeric_data()
    labels = LABELINGS[labeling]
    base = _make(kind, domain=_numeric_domain([0, 1, 2])).fit(X, y)
    assert set(base.predict(X)) == {0, 1, 2}  # a model that tells the classes apart
    est = _make(kind, domain=_numeric_domain(labels.tolist())).fit(X, labels[y])

    assert_array_equal(est.classes_, labels)  # the Domain's order, not sorted
    pred = est.predict(X)
    assert_array_equal(pred, labels[base.predict(X)])
    _assert_same_type(pred, labels)
    assert_array_equal(_assert_proba(est, X, pred), base.predict_proba(X))
    assert est.score(X, labels[y]) == base.score(X, y)


@pytest.mark.parametrize("labeling", LABELINGS)
@pytest.mark.parametrize("kind", ESTIMATORS)
def test_labels_with_derived_domain_map_through_sorted_classes(kind, labeling):
    """domain=None: classes_ are the sorted labels, and label k behaves like code rank(k)."""
    X, y = _numeric_data()
    labels = LABELINGS[labeling]
    order = np.argsort(labels)
    rank = np.argsort(order)  # rank[k]: position of labels[k] among the sorted labels
    base = _fit_quiet(_make(kind), X, rank[y])
    est = _fit_quiet(_make(kind), X, labels[y])

    assert_array_equal(est.classes_, labels[order])
    pred = est.predict(X)
    assert_array_equal(pred, labels[order][base.predict(X)])
    _assert_same_type(pred, labels)
    assert_array_equal(_assert_proba(est, X, pred), base.predict_proba(X))


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_nursery_string_labels_follow_the_public_class_order(kind):
    """Nursery's class order is not alphabetical: classes_ and proba columns follow it."""
    ds = _nursery()
    classes = list(ds.domain.classes)
    assert classes != sorted(classes)
    codes = ds.domain.encode_labels(ds.y)
    coded = Domain(list(ds.domain), list(range(len(classes))))
    est = _make(kind, domain=ds.domain).fit(ds.X, ds.y)
    base = _make(kind, domain=coded).fit(ds.X, codes)

    assert est.classes_.tolist() == classes
    X = ds.X.iloc[::7]
    pred = est.predict(X)
    assert_array_equal(pred, np.asarray(classes, dtype=object)[base.predict(X)])
    assert_array_equal(_assert_proba(est, X, pred), base.predict_proba(X))


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_label_containers(kind):
    """Lists, pandas Series (str and category dtypes) and column vectors give one model."""
    X, y = _numeric_data()
    labels = LABELINGS["strings"][y]
    domain = _numeric_domain(LABELINGS["strings"].tolist())
    ref = _make(kind, domain=domain).fit(X, labels).predict(X)
    for container in (
        labels.tolist(),
        pd.Series(labels, dtype="str"),
        pd.Series(labels, dtype="category"),
    ):
        assert_array_equal(_make(kind, domain=domain).fit(X, container).predict(X), ref)
    with pytest.warns(UserWarning, match="column-vector y"):  # DataConversionWarning
        est = _make(kind, domain=domain).fit(X, labels[:, None])
    assert_array_equal(est.predict(X), ref)


# ================================================================ reproducibility, composition
@pytest.mark.parametrize("kind", ESTIMATORS)
def test_same_seed_same_model(kind):
    ds = _votes()
    est = _make(kind, domain=ds.domain).fit(ds.X, ds.y)
    twin = clone(est).fit(ds.X, ds.y)
    again = pickle.loads(pickle.dumps(est))
    for other in (twin, again):
        assert_array_equal(other.predict(ds.X), est.predict(ds.X))
        assert_array_equal(other.predict_proba(ds.X), est.predict_proba(ds.X))


@pytest.mark.parametrize("kind", PRIVATE)
def test_different_seeds_different_models(kind):
    """Five seeds, five different releases (pairwise different probabilities on Votes)."""
    ds = _votes()
    probas = [
        _make(kind, domain=ds.domain, random_state=seed).fit(ds.X, ds.y).predict_proba(ds.X)
        for seed in range(5)
    ]
    for i in range(5):
        for j in range(i):
            assert not np.array_equal(probas[i], probas[j]), (i, j)


def _reverse_columns(X):
    """A FunctionTransformer step: the columns in reverse order (encoding is by name)."""
    return X[X.columns[::-1]]


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_cross_val_score_and_pipeline_on_votes(kind):
    ds = _votes()
    est = _make(kind, domain=ds.domain)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = cross_val_score(est, ds.X, ds.y, cv=cv)
    assert scores.shape == (5,)
    assert scores.mean() > 0.75  # majority class: 0.61
    assert_array_equal(cross_val_score(est, ds.X, ds.y, cv=cv), scores)  # reproducible

    pipe = Pipeline([("reverse", FunctionTransformer(_reverse_columns)), ("clf", clone(est))])
    pipe.fit(ds.X, ds.y)
    bare = clone(est).fit(ds.X, ds.y)
    assert_array_equal(pipe.predict(ds.X), bare.predict(ds.X))
    assert_array_equal(pipe.predict_proba(ds.X), bare.predict_proba(ds.X))
    assert_array_equal(pipe.classes_, np.asarray(ds.domain.classes, dtype=object))
    assert list(pipe[-1].feature_names_in_) == list(ds.X.columns[::-1])
    assert_array_equal(cross_val_score(pipe, ds.X, ds.y, cv=cv), scores)


# A numpy Generator (or RandomState) as random_state (issue 35, item 4). scikit-learn's clone,
# which cross_val_score and GridSearchCV call for every fold, deep-copies the parameters: each
# clone started from the same generator state and drew the same trees, noise and secret keys,
# so two folds differing by one row revealed its label. Estimators refuse generators.
EVERY = {
    **{kind: functools.partial(_make, kind) for kind in ESTIMATORS},
    "rdt_sharp": functools.partial(RDTSharpClassifier, 1.0, n_secondary=3, n_labeled=300),
    "sulq": functools.partial(SuLQID3Classifier, 1.0, max_depth=2),
    "diffpid3": functools.partial(DiffPID3Classifier, 1.0, max_depth=2),
    "diffpc45": functools.partial(DiffPC45Classifier, 1.0, max_depth=2),
}


@pytest.mark.parametrize("source", [np.random.default_rng, np.random.RandomState])
@pytest.mark.parametrize("kind", EVERY)
def test_a_generator_random_state_is_refused_since_clones_would_share_it(kind, source):
    ds = _votes()
    est = EVERY[kind](domain=ds.domain, random_state=source(0))
    with pytest.raises(InvalidParameterError, match=r"must be an int seed or None.*clone"):
        clone(est).fit(ds.X, ds.y)
    # why: clone copies a generator in its state, so two clones would draw alike
    a, b = (clone(est).random_state for _ in range(2))
    draw = (lambda g: g.random(3)) if source is np.random.default_rng else (lambda g: g.rand(3))
    assert a is not b and np.array_equal(draw(a), draw(b))


@pytest.mark.parametrize("kind", ["private_rdt", "forest", "rdt_sharp", "diffpid3"])
def test_clones_of_a_model_seeded_by_none_draw_their_own_noise(kind):
    ds = _votes()
    est = EVERY[kind](domain=ds.domain, random_state=None)
    twins = [clone(est).fit(ds.X, ds.y) for _ in range(2)]
    assert not np.array_equal(twins[0].predict_proba(ds.X), twins[1].predict_proba(ds.X))


def test_fresh_seed_is_a_128_bit_seed_that_every_estimator_takes():
    seeds = {dpviz.fresh_seed() for _ in range(4)}
    assert len(seeds) == 4 and all(0 <= s < 2**128 for s in seeds) and max(seeds) >= 2**64
    ds = _votes()
    seed = dpviz.fresh_seed()
    for make in EVERY.values():
        a, b = (make(domain=ds.domain, random_state=seed).fit(ds.X, ds.y) for _ in range(2))
        assert_array_equal(a.predict_proba(ds.X), b.predict_proba(ds.X))  # reproducible


def test_a_private_table_takes_a_generator_as_its_noise_source():
    # not a parameter anything copies: the table (and its parts) draw from it in place
    ds = _votes()
    rng = np.random.default_rng(0)
    table = dpviz.PrivateTable(ds.X, ds.y, domain=ds.domain, epsilon=1.0, rng=rng)
    assert table.rng is rng
    state = rng.bit_generator.state
    table.noisy_count(epsilon=0.5)
    assert rng.bit_generator.state != state


@pytest.mark.parametrize("kind", PRIVATE)
def test_pipeline_set_params_reaches_epsilon(kind):
    ds = _votes()
    pipe = Pipeline([("reverse", FunctionTransformer(_reverse_columns)), ("clf", _make(kind))])
    pipe.set_params(clf__domain=ds.domain, clf__epsilon=math.inf)
    pipe.fit(ds.X, ds.y)
    assert pipe[-1].ledger_.total == math.inf


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_domain_none_warns_and_public_domain_does_not(kind):
    ds = _votes()
    with pytest.warns(PrivacyLeakWarning):
        _make(kind).fit(ds.X, ds.y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        _make(kind, domain=ds.domain).fit(ds.X, ds.y)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_feature_names(kind):
    ds = _votes()
    X_rev = _reverse_columns(ds.X)  # not the domain's column order
    est = _make(kind, domain=ds.domain).fit(X_rev, ds.y)
    assert est.n_features_in_ == 16
    assert est.feature_names_in_.dtype == object
    assert_array_equal(est.feature_names_in_, X_rev.columns)
    assert_array_equal(est.predict(ds.X), est.predict(X_rev))  # DataFrames: by name
    for unnamed in (X_rev.to_numpy(), X_rev.set_axis(range(16), axis=1)):
        with pytest.warns(UserWarning, match="X does not have valid feature names"):
            pred = est.predict(unnamed)  # no feature names: by position, as at fit
        assert_array_equal(pred, est.predict(X_rev))
    X, y = _numeric_data()
    _fit_quiet(est.set_params(domain=None), X, y)  # refit on an array: no names
    assert not hasattr(est, "feature_names_in_")
    frame = pd.DataFrame(X)  # integer column names are not feature names: by position
    assert_array_equal(est.predict(frame), est.predict(X))
    from_frame = _fit_quiet(clone(est), frame, y)
    assert not hasattr(from_frame, "feature_names_in_")
    assert from_frame.domain_ == est.domain_
    assert_array_equal(from_frame.predict(frame), est.predict(X))
    assert_array_equal(from_frame.predict(X), est.predict(X))


# ================================================================ bad input
@pytest.mark.parametrize("epsilon", [0, -1.0, math.nan, -math.inf, "1", None, True])
@pytest.mark.parametrize("kind", PRIVATE)
def test_bad_epsilon(kind, epsilon):
    X, y = _numeric_data()
    with pytest.raises(InvalidParameterError, match="epsilon"):
        _make(kind, domain=_numeric_domain([0, 1, 2]), epsilon=epsilon).fit(X, y)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_unknown_category_raises_or_routes(kind):
    ds = _votes()
    est = _make(kind, domain=ds.domain).fit(ds.X, ds.y)
    X = ds.X.iloc[:20].astype(object).copy()
    X.iloc[3, 5] = "abstain"
    with pytest.raises(UnknownCategoryError, match="religious-groups-in-schools") as info:
        est.predict(X)
    assert info.value.attribute == "religious-groups-in-schools"
    assert info.value.value == "abstain"
    assert "'abstain'" in str(info.value)

    est.set_params(unknown="random")  # a prediction-time policy: no refit needed
    pred = est.predict(X)
    assert_array_equal(est.predict(X), pred)  # the random child is a function of the node
    keep = np.arange(20) != 3
    assert_array_equal(pred[keep], est.predict(ds.X.iloc[:20])[keep])
    assert set(pred) <= set(ds.domain.classes)
    np.testing.assert_allclose(est.predict_proba(X).sum(axis=1), 1.0)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_bad_unknown_policy(kind):
    ds = _votes()
    with pytest.raises(InvalidParameterError, match="unknown"):
        _make(kind, domain=ds.domain, unknown="ignore").fit(ds.X, ds.y)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_mismatched_columns(kind):
    ds = _votes()
    est = _make(kind, domain=ds.domain).fit(ds.X, ds.y)
    with pytest.raises(ColumnMismatchError, match="missing \\['crime'\\]"):
        est.predict(ds.X.drop(columns="crime"))
    with pytest.raises(ColumnMismatchError, match="unexpected \\['age'\\]"):
        est.predict(ds.X.assign(age=1))
    with (
        pytest.raises(ValueError, match=r"X has 15 features, but \w+ is expecting 16"),
        pytest.warns(UserWarning, match="valid feature names"),
    ):
        est.predict(ds.X.to_numpy()[:, :15])
    with pytest.raises(ColumnMismatchError, match="missing \\['crime'\\]"):
        clone(est).fit(ds.X.drop(columns="crime"), ds.y)
    with pytest.raises(InvalidParameterError, match="inconsistent numbers of samples"):
        clone(est).fit(ds.X, ds.y[:-1])
    with pytest.raises(InvalidParameterError, match="domain must be a dpviz Domain"):
        _make(kind, domain={"crime": ["y", "n"]}).fit(ds.X, ds.y)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_missing_values(kind):
    ds = _votes()
    X = ds.X.copy()
    X.iloc[7, 3] = None
    est = _make(kind, domain=ds.domain)
    with pytest.raises(MissingValueError, match="physician-fee-freeze"):
        est.fit(X, ds.y)
    est.fit(ds.X, ds.y)
    with pytest.raises(MissingValueError, match="physician-fee-freeze"):
        est.predict(X)
    y = ds.y.astype(object).copy()
    y.iloc[4] = None
    with pytest.raises(MissingValueError, match="y"):
        clone(est).fit(ds.X, y)
    Xn, yn = _numeric_data()
    Xn[2, 1] = np.nan
    with pytest.raises(MissingValueError, match="NaN"):
        _fit_quiet(_make(kind), Xn, yn)
    with pytest.raises(MissingValueError, match="NaN"):
        _make(kind, domain=_numeric_domain([0, 1, 2])).fit(Xn, yn)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_empty_data(kind):
    ds = _votes()
    est = _make(kind, domain=ds.domain)
    with pytest.raises(EmptyDataError, match="0 sample"):
        est.fit(ds.X.iloc[:0], ds.y.iloc[:0])
    with pytest.raises(EmptyDataError, match="0 feature"):
        _fit_quiet(_make(kind), np.empty((5, 0)), [0, 1, 0, 1, 0])


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_single_class(kind):
    """domain=None refuses one observed class; a public Domain makes it a valid (small) sample."""
    ds = _votes()
    democrats = (ds.y == "democrat").to_numpy()
    X, y = ds.X[democrats], ds.y[democrats]
    with pytest.raises(EmptyDataError, match="only one class"):
        _fit_quiet(_make(kind), X, y)
    est = _make(kind, domain=ds.domain).fit(X, y)
    assert est.classes_.tolist() == ["democrat", "republican"]
    proba = est.predict_proba(ds.X)
    assert proba.shape == (len(ds.X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    if kind == "rdt":  # exact counts: only the observed class can win
        assert set(est.predict(ds.X)) == {"democrat"}


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_bad_labels(kind):
    X, y = _numeric_data()
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        _fit_quiet(_make(kind), X, y + 0.5)
    with pytest.raises(UnknownLabelError, match="'maybe'"):
        labels = np.array(["a", "b", "maybe"])[y]
        _make(kind, domain=_numeric_domain(["a", "b", "c"])).fit(X, labels)


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_predict_before_fit(kind):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        _make(kind).predict(np.zeros((2, 2)))


@pytest.mark.parametrize("kind", ESTIMATORS)
def test_infinite_values(kind):
    X, y = _numeric_data()
    X[5, 1] = np.inf
    with pytest.raises(InvalidParameterError, match="infinity"):
        _make(kind, domain=_numeric_domain([0, 1, 2])).fit(X, y)
    with pytest.raises(InvalidParameterError, match="'x1' contains infinity"):
        _make(kind, domain=_numeric_domain([0, 1, 2])).fit(pd.DataFrame(X).add_prefix("x"), y)


def test_derived_domain_reads_numbers_as_numeric_and_strings_as_categorical():
    """domain=None on arrays or lists: a column of numbers is Numeric, of strings Categorical."""
    rows = [[0.5, "red", 3], [1.5, "blue", 4], [2.5, "red", 5], [3.5, "blue", 6]]
    y = ["a", "b", "a", "b"]
    for X in (rows, np.array(rows, dtype=object)):
        est = _fit_quiet(_make("rdt"), X, y)
        kinds = [type(a).__name__ for a in est.domain_]
        assert kinds == ["Numeric", "Categorical", "Numeric"]
        assert est.domain_["x1"].values == ("blue", "red")
        assert_array_equal(est.predict(X), est.predict(np.array(rows, dtype=object)))
    bad = np.array(rows, dtype=object)
    bad[1, 1] = {"colour": "blue"}
    with pytest.raises(TypeError, match="must be a string or a number"):
        _fit_quiet(_make("rdt"), bad, y)


def test_private_rdt_update_reads_columns_like_predict():
    """JPW's update batch is read like prediction input: by name, or by fit-time position."""
    ds = _votes()
    X_rev = _reverse_columns(ds.X)
    half = len(ds.X) // 2
    models = []
    for batch in (X_rev.iloc[half:], ds.X.iloc[half:], X_rev.iloc[half:].to_numpy()):
        est = _make("private_rdt", domain=ds.domain).fit(X_rev.iloc[:half], ds.y.iloc[:half])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the array has no feature names
            models.append(est.update(batch, ds.y.iloc[half:]))
    for est in models[1:]:
        assert_array_equal(est.predict_proba(ds.X), models[0].predict_proba(ds.X))
    assert models[0].ledger_.spent == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError, match="inconsistent numbers of samples"):
        models[0].update(ds.X.iloc[half:], ds.y.iloc[half + 1 :])


# ================================================================ parameters in plain sight
ALL_ESTIMATORS = [RandomDecisionTreeClassifier, PrivateRDTClassifier, DPRandomForestClassifier,
                  RDTSharpClassifier, SuLQID3Classifier, DiffPID3Classifier,
                  PrivaTreeClassifier]


def _documented_parameters(cls: type) -> list[str]:
    """The names of the "Parameters" section of the docstring as written in the source."""
    doc = inspect.getsource(cls).split('"""')[1]  # the source text, not a filled-in template
    section = doc.split("Parameters\n    ----------\n")[1].split("\n\n")[0]
    return [line.split(" : ")[0].strip() for line in section.splitlines()
            if line.startswith("    ") and not line.startswith("     ") and " : " in line]


@pytest.mark.parametrize("cls", ALL_ESTIMATORS, ids=lambda c: c.__name__)
def test_each_parameter_is_written_out_in_the_docstring_and_init(cls):
    """Issue 38: ``_store_params(locals())`` and ``{placeholders}`` hid them from a reader."""
    names = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert _documented_parameters(cls) == names
    source = inspect.getsource(cls.__init__)
    assert all(f"self.{n} = {n}\n" in source for n in names)
