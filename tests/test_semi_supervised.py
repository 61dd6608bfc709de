"""The semi-supervised harness: RDT#'s protocol and the comparison arms, equal to direct fits."""

import math

import numpy as np
import pandas as pd
import pytest

from dpviz.datasets import load
from dpviz.errors import InvalidParameterError
from dpviz.experiments import holdout_accuracy
from dpviz.experiments import semi_supervised as ss
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier


@pytest.fixture(scope="module")
def votes():
    return load("votes")


def test_protocol_split_is_a_partition():
    split = ss.protocol_split(1000, 0.05, 3)
    assert len(split.labeled) == 50 and len(split.test) == 100 and len(split.public) == 850
    rows = np.concatenate([split.labeled, split.public, split.test])
    assert len(np.unique(rows)) == 1000
    assert len(ss.protocol_split(1000, 0.05, 3, n_unlabeled=200).public) == 200
    assert len(ss.protocol_split(1000, 0.0001, 3).labeled) == 2  # at least two labeled rows


def test_protocol_runs_equal_fresh_fits_of_the_estimators(votes):
    epsilons = (0.5, 2.0, math.inf)
    frame = ss.protocol_runs(
        "votes", fractions=(0.3,), epsilons=epsilons, n_runs=2, n_secondary=4, seed=5
    )
    assert len(frame) == 2 * 3 * 2
    assert set(frame.columns) >= {"dataset", "fraction", "n_labeled", "n_unlabeled", "epsilon",
                                  "method", "run", "error", "accuracy"}
    np.testing.assert_allclose(frame["accuracy"], 1 - frame["error"])
    X, y = votes.X, votes.y
    for row in frame.itertuples():
        split = ss.protocol_split(votes.n_rows, 0.3, row.run)
        n_labeled = len(split.labeled)
        if row.method == "rdt_sharp":
            model = RDTSharpClassifier(
                row.epsilon, n_secondary=4, n_labeled=n_labeled, domain=votes.domain,
                random_state=row.run,
            ).fit(X.iloc[split.labeled], y.iloc[split.labeled], X.iloc[split.public])
        else:
            depth = RDTSharpClassifier(n_labeled=n_labeled).height(votes.domain)
            model = PrivateRDTClassifier(
                row.epsilon, n_trees=5, max_depth=depth, domain=votes.domain, random_state=row.run
            ).fit(X.iloc[split.labeled], y.iloc[split.labeled])
        truth = y.iloc[split.test].to_numpy()
        assert row.error == float(np.mean(model.predict(X.iloc[split.test]) != truth))


def test_protocol_run_gives_the_same_answer_in_any_order(votes):
    a = ss.ProtocolRun(votes, 0.3, 1, n_secondary=3)
    b = ss.ProtocolRun(votes, 0.3, 1, n_secondary=3)
    first = [a.error("rdt_sharp", e) for e in (0.2, 1.0, 5.0)]
    second = [b.error("rdt_sharp", e) for e in (5.0, 1.0, 0.2)][::-1]
    assert first == second
    assert a.rdt_sharp(1.0).pseudo_labels_.shape == (a.n_public,)
    assert a.depth == RDTSharpClassifier(n_labeled=a.n_labeled).height(votes.domain)


def _old_arm(method, epsilon, n_labeled, n_public, n_secondary, data, random_state, X, y):
    """The comparison arm as notebook 07 fitted it before the harness (the reference)."""
    rng = np.random.default_rng([random_state, 11])
    rows = rng.permutation(len(X))[: n_labeled + n_public]
    labeled, public = rows[:n_labeled], rows[n_labeled:]
    if method == "RDT#":
        return RDTSharpClassifier(
            epsilon, n_secondary=n_secondary, n_labeled=n_labeled, domain=data.domain,
            random_state=random_state,
        ).fit(X.iloc[labeled], y.iloc[labeled], X.iloc[public])
    use = labeled if method == "Private-RDT, labeled rows" else rows
    return PrivateRDTClassifier(epsilon, domain=data.domain, random_state=random_state).fit(
        X.iloc[use], y.iloc[use]
    )


@pytest.mark.parametrize("method", list(ss.METHODS.values()))
def test_semi_supervised_arm_equals_the_comparison_it_replaces(votes, method):
    X, y = votes.X.iloc[:300], votes.y.iloc[:300]
    arm = ss.SemiSupervisedArm(method, 0.7, 40, 150, 3, votes.domain, random_state=4).fit(X, y)
    old = _old_arm(method, 0.7, 40, 150, 3, votes, 4, X, y)
    test = votes.X.iloc[300:]
    np.testing.assert_array_equal(arm.predict(test), old.predict(test))


def test_arms_through_holdout_accuracy(votes):
    def factory(random_state, **params):
        return ss.SemiSupervisedArm(
            params["method"], params["epsilon"], 40, 150, 3, votes.domain, random_state
        )

    frames = [
        holdout_accuracy(factory, votes, repeats=2, method=m, epsilon=1.0) for m in ss.METHODS
    ]
    frame = pd.concat(frames)
    assert frame["accuracy"].between(0, 1).all() and len(frame) == 6


def test_fit_method_rows(votes):
    codes, labels = votes.domain.encode(votes.X), votes.domain.encode_labels(votes.y)
    labeled, public = np.arange(30), np.arange(30, 130)
    all_rows = ss.fit_method(
        "private_rdt_all", codes, labels, votes.domain, labeled=labeled, public=public,
        epsilon=math.inf, random_state=0,
    )
    # "if public rows were labeled": Private-RDT on labeled and public rows with their labels
    direct = PrivateRDTClassifier(
        math.inf, n_trees=ss.N_PRIMARY, max_depth=all_rows.depth_, domain=votes.domain,
        random_state=0,
    ).fit(votes.X.iloc[:130], votes.y.iloc[:130])
    np.testing.assert_array_equal(
        all_rows.released_counts(votes.X), direct.released_counts(votes.X)
    )
    # its height is RDT#'s for the 30 labeled rows (min(8, ⌊log2 30⌋ + 1) = 5)
    assert all_rows.depth_ == 5
    with pytest.raises(InvalidParameterError, match="method"):
        ss.fit_method("id3", codes, labels, votes.domain, labeled=labeled, public=public,
                      epsilon=1.0, random_state=0)


def test_datasets():
    assert ss.rdt_sharp_dataset("synthetic").n_rows == 2000
    assert set(ss.DATASETS) == {"mushroom", "nursery", "votes", "synthetic"}
