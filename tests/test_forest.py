import math
import warnings

import numpy as np
import pytest

from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.synthetic import fi_synth
from dpviz.trees.forest import DPRandomForestClassifier


@pytest.fixture(scope="module")
def synth():
    return fi_synth("A", n_rows=3000, random_state=0)


def test_disjoint_forest_spends_epsilon_once(synth):
    clf = DPRandomForestClassifier(epsilon=1.0, n_trees=20, domain=synth.domain, random_state=0)
    clf.fit(synth.X, synth.y)
    frame = clf.ledger_.to_frame()
    # one release for the leaves of all 20 trees: every row reaches one leaf of one tree
    assert len(frame) == 1 and frame["epsilon"].iloc[0] == 1.0
    assert "parallel composition" in frame["label"].iloc[0]
    assert clf.ledger_.spent == pytest.approx(1.0)
    assert frame["charged"].sum() == pytest.approx(1.0)
    assert clf.depth_ == 5  # FI Table 4, SynthA


def test_shared_rows_forest_splits_epsilon(synth):
    clf = DPRandomForestClassifier(
        epsilon=1.0, n_trees=20, disjoint=False, domain=synth.domain, random_state=0
    ).fit(synth.X, synth.y)
    frame = clf.ledger_.to_frame()
    assert np.allclose(frame["epsilon"], 0.05) and clf.ledger_.spent == pytest.approx(1.0)


def test_batched_prediction_equals_tree_by_tree_votes(synth):
    clf = DPRandomForestClassifier(epsilon=1.0, n_trees=12, domain=synth.domain, random_state=4)
    clf.fit(synth.X, synth.y)
    codes = synth.domain.encode(synth.X[:300])
    (release,) = clf.leaf_labels_
    expected = np.zeros((300, 2), dtype=int)
    for tree in clf.trees_:
        np.add.at(expected, (np.arange(300), release(tree.leaf_keys(codes))), 1)
    np.testing.assert_array_equal(clf.votes(synth.X[:300]), expected)


def test_predict_is_majority_vote_and_proba_vote_shares(synth):
    clf = DPRandomForestClassifier(epsilon=1.0, n_trees=15, domain=synth.domain, random_state=0)
    clf.fit(synth.X, synth.y)
    votes = clf.votes(synth.X[:100])
    assert (votes.sum(axis=1) == 15).all()
    np.testing.assert_allclose(clf.predict_proba(synth.X[:100]), votes / 15)
    np.testing.assert_array_equal(clf.predict(synth.X[:100]), np.argmax(votes, axis=1))


def test_smooth_sensitivity_warns_and_default_does_not(synth):
    with pytest.warns(NotProvenPrivateWarning):
        DPRandomForestClassifier(
            n_trees=3, leaf_mechanism="smooth_sensitivity", domain=synth.domain, random_state=0
        ).fit(synth.X, synth.y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotProvenPrivateWarning)
        DPRandomForestClassifier(n_trees=3, domain=synth.domain, random_state=0).fit(
            synth.X, synth.y
        )


def test_infinite_epsilon_labels_are_exact_majorities(synth):
    clf = DPRandomForestClassifier(
        epsilon=math.inf, n_trees=1, max_depth=1, domain=synth.domain, random_state=0
    ).fit(synth.X, synth.y)
    tree, labels = clf.trees_[0], clf.leaf_labels_[0]
    codes = synth.domain.encode(synth.X)
    leaves = tree.leaf_keys(codes)
    # only the rows assigned to the (single) tree are counted: with one tree, all of them
    for leaf in np.unique(leaves):
        y = synth.y.to_numpy()[leaves == leaf]
        assert labels(np.array([leaf]))[0] == np.bincount(y, minlength=2).argmax()


def test_more_budget_more_accuracy(synth):
    """A monotone trend averaged over seeds (a sanity check of the wiring, not a benchmark)."""

    def mean_acc(eps):
        return np.mean(
            [
                DPRandomForestClassifier(
                    epsilon=eps, n_trees=30, domain=synth.domain, random_state=s
                )
                .fit(synth.X[:2000], synth.y[:2000])
                .score(synth.X[2000:], synth.y[2000:])
                for s in range(4)
            ]
        )

    low, high = mean_acc(0.01), mean_acc(5.0)
    # ε = 0.01 over ~66 rows per tree leaves the labels nearly random. Over 40 seeds one forest
    # scores 0.56 ± 0.07 (sd) at ε = 0.01 and 0.86 ± 0.02 at ε = 5: each bound sits 4 standard
    # deviations of a 4-seed mean (or of their difference) away
    assert low < 0.70 and high > 0.75 and high - low > 0.15, (low, high)


def test_invalid_parameters(synth):
    with pytest.raises(InvalidParameterError, match="leaf_mechanism"):
        DPRandomForestClassifier(leaf_mechanism="vote", domain=synth.domain).fit(synth.X, synth.y)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        DPRandomForestClassifier(epsilon=-1, domain=synth.domain).fit(synth.X, synth.y)
