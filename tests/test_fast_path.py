"""The experiments' fast path: rows encoded once (``Encoded``) and test rows routed once.

The experiment layer fits thousands of models on rows encoded once; these tests show that
``fit`` / ``predict`` on :class:`~dpviz.domain.Encoded` rows is the same computation as on
the rows themselves (bit for bit, same seed), that :mod:`dpviz.experiments.fast`'s located
rows predict as the model does, and that bad encoded input gets a clear error instead of a
numpy failure deep inside a fit (issue 15: NaN codes gave a negative-bincount error or an
IndexError).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dpviz
from dpviz.domain import Encoded
from dpviz.errors import InvalidParameterError, MissingValueError
from dpviz.experiments import fast
from dpviz.validation import check_random_state

VOTES = dpviz.load("votes")
DOMAIN = VOTES.domain
CODES = DOMAIN.encode(VOTES.X)
LABELS = DOMAIN.encode_labels(VOTES.y)
ROWS = Encoded(CODES, DOMAIN)


def estimators(seed: int) -> dict[str, object]:
    common = {"domain": DOMAIN, "random_state": seed}
    return {
        "RDT": dpviz.RandomDecisionTreeClassifier(n_trees=3, **common),
        "Private-RDT": dpviz.PrivateRDTClassifier(1.0, n_trees=3, **common),
        "FI forest": dpviz.DPRandomForestClassifier(1.0, n_trees=10, **common),
        "RDT#": dpviz.RDTSharpClassifier(1.0, n_secondary=3, n_labeled=200, **common),
        "SuLQ-ID3": dpviz.SuLQID3Classifier(1.0, max_depth=3, **common),
        "DiffPID3": dpviz.DiffPID3Classifier(1.0, max_depth=3, **common),
        "DiffPC4.5": dpviz.DiffPC45Classifier(1.0, max_depth=3, **common),
    }


@pytest.mark.parametrize("name", list(estimators(0)))
@pytest.mark.parametrize("seed", [0, 7])
def test_encoded_rows_fit_and_predict_as_the_rows(name, seed):
    slow = estimators(seed)[name].fit(VOTES.X, VOTES.y)
    fast_model = estimators(seed)[name].fit(ROWS, VOTES.y)
    assert np.array_equal(fast_model.predict_proba(ROWS), slow.predict_proba(VOTES.X))
    assert np.array_equal(fast_model.predict(ROWS), slow.predict(VOTES.X))
    assert fast_model.n_features_in_ == slow.n_features_in_ == len(DOMAIN)
    assert list(fast_model.classes_) == list(slow.classes_)
    assert not hasattr(fast_model, "feature_names_in_")  # codes in domain order, no names


def test_rdt_sharp_public_rows_take_the_fast_path_too():
    public, private = slice(0, 200), slice(200, None)
    slow = estimators(3)["RDT#"].fit(VOTES.X.iloc[private], VOTES.y.iloc[private],
                                     VOTES.X.iloc[public])
    fast_model = estimators(3)["RDT#"].fit(Encoded(CODES[private], DOMAIN), VOTES.y.iloc[private],
                                           Encoded(CODES[public], DOMAIN))
    assert np.array_equal(fast_model.predict_proba(ROWS), slow.predict_proba(VOTES.X))


@pytest.mark.parametrize("name", list(estimators(0)))
def test_bad_encoded_rows_get_a_clear_error(name):
    model = estimators(0)[name]
    nan = CODES.copy()
    nan[3, 2] = np.nan
    with pytest.raises(MissingValueError, match="NaN"):
        model.fit(Encoded(nan, DOMAIN), VOTES.y)
    with pytest.raises(InvalidParameterError, match="shape"):
        model.fit(Encoded(CODES[:, :-1], DOMAIN), VOTES.y)
    outside = CODES.copy()
    outside[0, 0] = 7  # votes' attributes have 3 values (y, n, ?)
    with pytest.raises(InvalidParameterError, match="outside its public values"):
        model.fit(Encoded(outside, DOMAIN), VOTES.y)
    with pytest.raises(InvalidParameterError, match="inconsistent"):
        model.fit(ROWS, VOTES.y[:-1])
    other = dpviz.Domain(DOMAIN.attributes, ["a", "b"])
    with pytest.raises(InvalidParameterError, match="another domain"):
        model.fit(Encoded(CODES, other), VOTES.y)
    model.fit(ROWS, VOTES.y)
    with pytest.raises(MissingValueError, match="NaN"):
        model.predict(Encoded(nan, DOMAIN))
    unknown = CODES[:5].copy()
    unknown[:, 0] = -1  # an unknown category: as predict's ``unknown`` policy says
    with pytest.raises(InvalidParameterError, match="outside its public values"):
        model.predict(Encoded(unknown, DOMAIN))  # unknown="raise"
    assert model.set_params(unknown="random").predict(Encoded(unknown, DOMAIN)).shape == (5,)


def test_encoded_rows_of_the_domain_are_fitted_without_a_domain_and_without_a_warning():
    """The encoding's domain is public: an estimator without one takes it, no leak warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = dpviz.PrivateRDTClassifier(1.0, n_trees=3, random_state=0).fit(ROWS, VOTES.y)
    assert model.domain_ is DOMAIN


@pytest.mark.parametrize("bad", [-1, 1.5, "0", True])
def test_check_random_state_names_the_parameter_and_the_value(bad):
    with pytest.raises(InvalidParameterError, match=r"random_state must be .*got"):
        check_random_state(bad)
    with pytest.raises(InvalidParameterError, match=r"random_state must be .*got"):
        dpviz.PrivateRDTClassifier(1.0, domain=DOMAIN, random_state=bad).fit(VOTES.X, VOTES.y)


def test_check_random_state_rules():
    g = np.random.default_rng(0)
    assert check_random_state(g) is g
    assert check_random_state(5).random() == np.random.default_rng(5).random()
    a = check_random_state(np.random.RandomState(1)).random()
    assert a == check_random_state(np.random.RandomState(1)).random()
    assert check_random_state(None).random() != check_random_state(None).random()
    with pytest.raises(InvalidParameterError, match="rng must be an int seed"):
        check_random_state(None, "rng", allow_none=False)
    assert not math.isnan(a)


@pytest.mark.parametrize("name", ["Private-RDT", "FI forest", "RDT#"])
def test_located_rows_predict_as_the_model_at_every_epsilon(name):
    """fast.locate (public, ε-independent) + fast.predict_located = predict."""
    test = CODES[::3]
    located = fast.locate(estimators(5)[name].fit(ROWS, VOTES.y), test)
    for epsilon in (0.1, 1.0, 4.0):
        model = estimators(5)[name].set_params(epsilon=epsilon).fit(ROWS, VOTES.y)
        assert np.array_equal(model.classes_[fast.predict_located(model, located)],
                              model.predict(Encoded(test, DOMAIN)))


@pytest.mark.parametrize("name", ["Private-RDT", "FI forest", "RDT#"])
def test_located_rows_of_other_trees_are_refused(name):
    located = fast.locate(estimators(5)[name].fit(ROWS, VOTES.y), CODES[:9])
    other = estimators(6)[name].fit(ROWS, VOTES.y)
    with pytest.raises(InvalidParameterError, match="same trees"):
        fast.predict_located(other, located)


def test_located_rows_of_rdt_sharp_with_other_public_rows_are_refused():
    """RDT#'s cells are its centres, public rows: the same seed with other ones is refused."""
    model = estimators(5)["RDT#"]
    a = model.fit(ROWS, VOTES.y, Encoded(CODES[:100], DOMAIN))
    located = fast.locate(a, CODES[:9])
    b = estimators(5)["RDT#"].fit(ROWS, VOTES.y, Encoded(CODES[100:200], DOMAIN))
    with pytest.raises(InvalidParameterError, match="same trees"):
        fast.predict_located(b, located)
    assert np.array_equal(a.classes_[fast.predict_located(a, located)],
                          a.predict(Encoded(CODES[:9], DOMAIN)))
