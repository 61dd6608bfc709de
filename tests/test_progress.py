"""Big fits and predictions show progress (issue 26, item 3): a tqdm bar from
``PROGRESS_MIN_VISITS`` node visits on, with the same results as without it; small ones
stay silent (the notebooks' fits print nothing). The bar says up front how long the job
should take (issue 27): its node visits at ``VISITS_PER_SECOND`` (no clock is read)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dpviz.data.uci import load
from dpviz.trees import random_tree, speed
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.random_tree import leaves_bound
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
    monkeypatch.setattr(speed, "PROGRESS_MIN_VISITS", 1)
    loud, _ = _fit_predict(estimator().set_params(**kwargs), votes)
    assert bar in capsys.readouterr().err
    np.testing.assert_array_equal(loud, quiet)


def test_private_rdt_update_shows_progress_too(votes, monkeypatch, capsys):
    half = len(votes.y) // 2
    model = PrivateRDTClassifier(epsilon=1.0, n_trees=4, domain=votes.domain, random_state=0)
    model.fit(votes.X[:half], votes.y[:half])
    monkeypatch.setattr(speed, "PROGRESS_MIN_VISITS", 1)
    model.update(votes.X[half:], votes.y[half:])
    assert "Private-RDT: trees" in capsys.readouterr().err


def test_the_threshold_is_seconds_of_routing():
    # numpy routes ~1.5e7 node visits per second on one core; numba's whole fit runs
    # ~1.5-3e8 (docs/benchmarks.md)
    assert speed.PROGRESS_MIN_VISITS == 2 * 10**8
    assert 1 < speed.PROGRESS_MIN_VISITS / speed.VISITS_PER_SECOND["compiled"] < 60


@pytest.mark.parametrize("n_trees", [10, 40])
def test_the_bar_says_up_front_how_long_the_fit_and_prediction_take(n_trees, votes, monkeypatch,
                                                                     capsys):
    """Node visits and the leaves the memory guard bounds (Votes: 256 a tree), at the rates."""
    monkeypatch.setattr(speed, "PROGRESS_MIN_VISITS", 1)
    monkeypatch.setattr(speed, "VISITS_PER_SECOND", {"numpy": 1.0, "compiled": 1.0,
                                                         "deep": 1.0})
    model = PrivateRDTClassifier(n_trees=n_trees, domain=votes.domain, random_state=0)
    model.fit(votes.X, votes.y).predict(votes.X[:100])
    err = capsys.readouterr().err
    for rows in (len(votes.y), 100):  # the fit, then the prediction: seconds at 1 visit/s
        leaves = leaves_bound(votes.domain, model.depth_, rows)
        seconds = n_trees * (rows * model.depth_ + speed.LEAF_VISITS * leaves)
        assert f"Private-RDT: trees ({speed.about(seconds)})" in err
    hours = float(re.search(r"trees \(about ([\d.]+) h\)", err).group(1))
    fit = n_trees * (len(votes.y) * model.depth_ + speed.LEAF_VISITS * 256)
    assert hours == pytest.approx(fit / 3600, abs=0.05)  # 10 trees: 45.2 h, 40: 180.9 h


def test_the_time_is_the_engine_s_and_leaves_count():
    """Compiled descents (numba, when installed) are counted at the compiled rate; leaves at
    LEAF_VISITS numpy visits, so few visits to many leaves show a bar too."""
    numpy, compiled = (speed.about(10**9 / speed.VISITS_PER_SECOND[e]) for e in ("numpy",
                                                                                 "compiled"))
    assert speed.progress([0, 1], 10**9, "job").desc == f"job ({numpy})"
    bar = speed.progress([0, 1], 10**9, "job", descent=10**7)
    assert bar.desc == f"job ({compiled if random_tree._compiled() else numpy})"
    assert speed.progress([0, 1], 10**7, "job") == [0, 1]  # under the threshold: no bar
    assert speed.progress([0, 1], 10**7, "job", leaves=10**8).desc.startswith("job (about")
    # visits below the levels the rows fill run at the deep rate (depth 64, 1M rows: 48 levels)
    assert speed.deep_visits(10**6, 64) == 48 * 10**6 and speed.deep_visits(10**6, 10) == 0
    assert speed.progress([0, 1], 10**7, "job", deep=10**7) == [0, 1]
    deep = speed.about(10**8 / speed.VISITS_PER_SECOND["deep"])
    assert speed.progress([0, 1], 10**8, "job", deep=10**8).desc == f"job ({deep})"
    assert [speed.about(s) for s in (0.2, 30, 180, 9000)] == [
        "about 1 s", "about 30 s", "about 3 min", "about 2.5 h"]
