"""Big fits and predictions show progress (issue 26, item 3): a tqdm bar from
``PROGRESS_MIN_VISITS`` node visits on, with the same results as without it; small ones
stay silent (the notebooks' fits print nothing)."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz.data.uci import load
from dpviz.trees import _base
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.rdt import PrivateRDTClassifier


@pytest.fixture(scope="module")
def votes():
    return load("votes")


def _fit_predict(estimator, data):
    model = estimator.fit(data.X, data.y)
    return model.predict_proba(data.X), model


@pytest.mark.parametrize(("estimator", "bar"), [
    (lambda: PrivateRDTClassifier(epsilon=1.0, n_trees=6, random_state=3), "Private-RDT: trees"),
    (lambda: DPRandomForestClassifier(epsilon=1.0, n_trees=6, random_state=3),
     "FI forest: predict"),
])
def test_a_big_job_shows_a_bar_and_gives_the_same_result(estimator, bar, votes, monkeypatch,
                                                         capsys):
    kwargs = {"domain": votes.domain}
    quiet, _ = _fit_predict(estimator().set_params(**kwargs), votes)
    assert bar not in capsys.readouterr().err  # the notebooks' sizes: no bar
    monkeypatch.setattr(_base, "PROGRESS_MIN_VISITS", 1)
    loud, _ = _fit_predict(estimator().set_params(**kwargs), votes)
    assert bar in capsys.readouterr().err
    np.testing.assert_array_equal(loud, quiet)


def test_private_rdt_update_shows_progress_too(votes, monkeypatch, capsys):
    half = len(votes.y) // 2
    model = PrivateRDTClassifier(epsilon=1.0, n_trees=4, domain=votes.domain, random_state=0)
    model.fit(votes.X[:half], votes.y[:half])
    monkeypatch.setattr(_base, "PROGRESS_MIN_VISITS", 1)
    model.update(votes.X[half:], votes.y[half:])
    assert "Private-RDT: trees" in capsys.readouterr().err


def test_the_threshold_is_a_few_seconds_of_routing():
    # numpy routes ~10^8 node visits per second on one core (docs/benchmarks.md): 2 s
    assert _base.PROGRESS_MIN_VISITS == 2 * 10**8
