"""The one encoded fast path of every estimator (``fit_encoded`` / ``predict_encoded``).

The experiment layer fits thousands of models on rows encoded once; these tests show
that the fast path is the same computation as ``fit`` / ``predict`` (bit-for-bit, same
seed) and that bad encoded input gets a clear error instead of a numpy failure deep
inside a fit (issue 15: NaN codes gave a negative-bincount error or an IndexError).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpviz
from dpviz.errors import InvalidParameterError, MissingValueError
from dpviz.validation import check_random_state

VOTES = dpviz.load("votes")
DOMAIN = VOTES.domain
CODES = DOMAIN.encode(VOTES.X)
LABELS = DOMAIN.encode_labels(VOTES.y)


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
def test_fit_encoded_is_fit(name, seed):
    slow = estimators(seed)[name].fit(VOTES.X, VOTES.y)
    fast = estimators(seed)[name].fit_encoded(CODES, LABELS, DOMAIN)
    assert np.array_equal(fast.predict_proba_encoded(CODES), slow.predict_proba(VOTES.X))
    assert np.array_equal(slow.classes_[fast.predict_encoded(CODES)], slow.predict(VOTES.X))
    assert fast.n_features_in_ == slow.n_features_in_ == len(DOMAIN)
    assert list(fast.classes_) == list(slow.classes_)


def test_rdt_sharp_public_rows_take_the_fast_path_too():
    public, private = slice(0, 200), slice(200, None)
    slow = estimators(3)["RDT#"].fit(VOTES.X.iloc[private], VOTES.y.iloc[private],
                                     VOTES.X.iloc[public])
    fast = estimators(3)["RDT#"].fit_encoded(CODES[private], LABELS[private], DOMAIN,
                                             public=CODES[public])
    assert np.array_equal(fast.predict_proba_encoded(CODES), slow.predict_proba(VOTES.X))


@pytest.mark.parametrize("name", list(estimators(0)))
def test_bad_encoded_rows_get_a_clear_error(name):
    model = estimators(0)[name]
    nan = CODES.copy()
    nan[3, 2] = np.nan
    with pytest.raises(MissingValueError, match="NaN"):
        model.fit_encoded(nan, LABELS, DOMAIN)
    with pytest.raises(InvalidParameterError, match="shape"):
        model.fit_encoded(CODES[:, :-1], LABELS, DOMAIN)
    outside = CODES.copy()
    outside[0, 0] = 7  # votes' attributes have 3 values (y, n, ?)
    with pytest.raises(InvalidParameterError, match="outside its public values"):
        model.fit_encoded(outside, LABELS, DOMAIN)
    with pytest.raises(InvalidParameterError, match="class codes"):
        model.fit_encoded(CODES, LABELS + 5, DOMAIN)
    with pytest.raises(InvalidParameterError, match="inconsistent"):
        model.fit_encoded(CODES, LABELS[:-1], DOMAIN)
    model.fit_encoded(CODES, LABELS, DOMAIN)
    with pytest.raises(MissingValueError, match="NaN"):
        model.predict_encoded(nan)
    unknown = CODES[:5].copy()
    unknown[:, 0] = -1  # an unknown category: allowed at predict time (the `unknown` policy)
    assert model.predict_encoded(unknown).shape == (5,)


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
def test_located_rows_predict_as_encoded_rows_at_every_epsilon(name):
    """locate_encoded (public, ε-independent) + predict_located = predict_encoded."""
    test = CODES[::3]
    located = estimators(5)[name].fit_encoded(CODES, LABELS, DOMAIN).locate_encoded(test)
    for epsilon in (0.1, 1.0, 4.0):
        model = estimators(5)[name].set_params(epsilon=epsilon).fit_encoded(CODES, LABELS, DOMAIN)
        assert np.array_equal(model.predict_located(located), model.predict_encoded(test))


@pytest.mark.parametrize("name", ["Private-RDT", "FI forest"])
def test_located_rows_of_other_trees_are_refused(name):
    located = estimators(5)[name].fit_encoded(CODES, LABELS, DOMAIN).locate_encoded(CODES[:9])
    other = estimators(6)[name].fit_encoded(CODES, LABELS, DOMAIN)
    with pytest.raises(InvalidParameterError, match="same trees"):
        other.predict_located(located)
