"""The fitted DP-EBM keeps no exact count of its training rows (issue 43 item 3).

interpret's fitted ``DPExplainableBoostingClassifier`` stores ``bag_weights_ = [n]``, the exact
row count, and the noisy bin counts that predict never reads. ``DPEBMModel.fit`` removes every
fitted attribute that predict does not read and that the public parameters do not fix
(docs/privacy.md §8.2.7). These tests walk every value the wrapper and interpret's object hold.
"""

import copy
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip(
    "interpret.privacy",
    reason="interpret-core (DP-EBM, an optional third-party reference) is not installed")

from dpviz.data.uci import Dataset
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import PrivacyLeakWarning
from dpviz.experiments.registry import DPEBMModel, design

DOMAIN = Domain([Categorical("colour", ("red", "green", "blue")),
                 Categorical("member", ("no", "yes")), Numeric("age", 0.0, 120.0)],
                ["no", "yes"])
SEED = 3

#: The fitted attributes left on interpret's object: what predict and predict_proba read …
READ_BY_PREDICT = {"has_fitted_", "feature_names_in_", "feature_types_in_", "link_",
                   "link_param_", "bins_", "intercept_", "term_scores_", "term_features_",
                   "classes_"}
#: … and what the public parameters fix.
PUBLIC = {"n_features_in_", "term_names_", "feature_bounds_", "noise_scale_binning_",
          "noise_scale_boosting_", "best_iteration_"}
#: The noisy output among them (the cuts of the noisy histogram, the noisy boosting's scores
#: and their weighted mean): one more row changes them even with the same seed.
NOISY = {"bins_", "term_scores_", "intercept_"}


def rows(n: int) -> tuple[pd.DataFrame, pd.Series]:
    """``n`` synthetic rows (the first ``n`` of one draw), the label mostly ``member``."""
    rng = np.random.default_rng(11)
    colour = rng.choice(DOMAIN["colour"].values, 400)
    member = rng.choice(["no", "yes"], 400)
    age = rng.choice([20.0, 40.0, 60.0, 80.0], 400)
    label = np.where(rng.random(400) < 0.85, member, np.where(member == "yes", "no", "yes"))
    X = pd.DataFrame({"colour": colour, "member": member, "age": age})
    return X.iloc[:n], pd.Series(label[:n], name="class")


DATA = Dataset("synthetic", *rows(400), DOMAIN)


def fit(n: int, epsilon: float = 1.0) -> DPEBMModel:
    return DPEBMModel(epsilon, DATA, SEED).fit(*rows(n))


def exact_counts(n: int) -> set[float]:
    """Every count interpret reads from the rows: n, n / 31 (its bin-merging threshold, stored
    as a bin weight when no noisy bin reaches it), each uniform bin's count per attribute (a
    numeric one; a categorical value's indicator column: the rows with and without it), each
    class's count."""
    X, y = rows(n)
    codes = DOMAIN.encode(X)
    counts = {n, n / 31, *pd.Series(y).value_counts().tolist()}
    for j, attribute in enumerate(DOMAIN):
        if attribute.is_categorical:
            held = np.bincount(codes[:, j].astype(np.int64), minlength=attribute.n_values)
            counts |= set(held[held > 0].tolist()) | set((n - held[held < n]).tolist())
            continue
        histogram, _ = np.histogram(codes[:, j], bins=62, range=(attribute.low, attribute.high))
        counts |= set(histogram[histogram > 0].tolist())
    return counts


def values(value: object):
    """Every number ``value`` holds, through objects' attributes, lists, tuples, dicts, arrays."""
    if isinstance(value, Domain):
        return  # the public domain, given
    if isinstance(value, dict):
        for key, item in value.items():
            yield from values(key)
            yield from values(item)
    elif isinstance(value, list | tuple | set):
        for item in value:
            yield from values(item)
    elif isinstance(value, np.ndarray):
        if value.dtype.kind in "biuf":
            yield from value.ravel().tolist()
        else:
            for item in value.ravel().tolist():
                yield from values(item)
    elif isinstance(value, bool | int | float | np.number):
        yield float(value)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        yield from values(vars(value))


def same(a: object, b: object) -> bool:
    """Equal values, through lists, tuples, dicts and arrays (NaN equals NaN)."""
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and bool(
            np.all((a == b) | (pd.isna(a) & pd.isna(b))))
    return a == b or (a != a and b != b)


def fitted(model: object) -> set[str]:
    """The attributes of interpret's object that are not its constructor's parameters."""
    return set(vars(model)) - set(model.get_params(deep=False))


@pytest.fixture(scope="module")
def two_fits() -> tuple[DPEBMModel, DPEBMModel]:
    return fit(157), fit(158)


def test_the_data_has_counts_no_public_number_holds():
    """The walk below has power: every exact count is at least 20, above every index and code
    the fitted object holds, and none is a value of the unfitted wrapper's parameters."""
    parameters = set(values(DPEBMModel(1.0, DATA, SEED)))
    for n in (157, 158):
        counts = exact_counts(n)
        assert min(counts - {n / 31}) >= 20, counts
        assert not counts & parameters


def test_no_value_of_the_fitted_object_is_an_exact_count(two_fits):
    for model, n in zip(two_fits, (157, 158), strict=True):
        held = set(values(model))
        assert not held & exact_counts(n), sorted(held & exact_counts(n))
        assert fitted(model.model) == READ_BY_PREDICT | PUBLIC
        assert model.domain is DOMAIN


def test_one_more_row_changes_only_the_noisy_output(two_fits):
    a, b = two_fits
    assert set(vars(a)) == set(vars(b)) and set(vars(a.model)) == set(vars(b.model))
    for name in set(vars(a)) - {"model", "_model"}:
        assert same(vars(a)[name], vars(b)[name]), name
    for name in set(vars(a.model)) - NOISY:
        assert same(vars(a.model)[name], vars(b.model)[name]), name
    assert not same(a.model.term_scores_, b.model.term_scores_)  # the row did reach the model


def test_predictions_are_those_of_interprets_unscrubbed_fit(two_fits):
    from interpret.privacy import DPExplainableBoostingClassifier

    model = two_fits[0]
    X, y = rows(157)
    raw = DPExplainableBoostingClassifier(
        **{**model.model.get_params(deep=False), "random_state": SEED})
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Privacy violation: using a fixed random_state")
        raw.fit(design(DOMAIN, DOMAIN.encode(X)), DOMAIN.encode_labels(y))
    assert raw.bag_weights_.tolist() == [157.0]  # what the scrub removes
    test, _ = rows(400)
    codes = design(DOMAIN, DOMAIN.encode(test))
    assert np.array_equal(model.model.predict_proba(codes), raw.predict_proba(codes))
    assert np.array_equal(model.predict(test), DOMAIN.decode_labels(raw.predict(codes)))
    assert same(model.model.term_scores_, raw.term_scores_)
    assert 0.7 < np.mean(model.predict(test) == rows(400)[1].to_numpy())  # ε = 1: it learns


def test_the_seed_stays_on_the_wrapper_which_warns_when_copied(two_fits):
    """interpret's fitted object keeps no seed (with it its noise could be regenerated); the
    wrapper keeps it for refits and warns when pickled or copied, as dpviz's estimators do."""
    model = two_fits[0]
    assert model.model.random_state is None and model.random_state == SEED
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pickle.dumps(model.model)
        copy.copy(fit(20, math.inf))  # ε = ∞: no claim, no warning
        copy.copy(DPEBMModel(1.0, DATA, SEED))  # not fitted
    with pytest.warns(PrivacyLeakWarning, match="seed"):
        copy.copy(model)
    with pytest.warns(PrivacyLeakWarning, match="seed"):
        pickle.dumps(model)
    again = fit(157)
    assert same(again.model.term_scores_, model.model.term_scores_)  # the same seed
