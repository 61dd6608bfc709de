"""The semi-supervised harness: RDT#'s protocol and the comparison arms, equal to direct fits."""

import math

import numpy as np
import pandas as pd
import pytest

from dpviz.data.uci import load
from dpviz.errors import InvalidParameterError
from dpviz.experiments import holdout_accuracy
from dpviz.experiments import semi_supervised as ss
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier, height


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
        # each method's own seed: the run's, keyed on the rows read (labeled, public) and method
        seed = ss.fit_seed(row.run, *ss.split_key(split), list(ss.METHODS).index(row.method))
        if row.method == "rdt_sharp":
            model = RDTSharpClassifier(
                row.epsilon, n_secondary=4, n_labeled=n_labeled, domain=votes.domain,
                random_state=seed,
            ).fit(X.iloc[split.labeled], y.iloc[split.labeled], X.iloc[split.public])
        else:
            depth = height(votes.domain, n_labeled)
            model = PrivateRDTClassifier(
                row.epsilon, n_trees=5, max_depth=depth, domain=votes.domain, random_state=seed
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
    assert a.depth == height(votes.domain, a.n_labeled)


def test_fit_seed_is_a_function_of_the_seed_and_the_key():
    seeds = {ss.fit_seed(s, *key) for s in (0, 1) for key in ((), (1,), (2,), (1, 0), (0, 1))}
    assert len(seeds) == 10 and all(0 <= s < 2**63 for s in seeds)
    assert ss.fit_seed(3, 300_000, 0, 1) == ss.fit_seed(np.int64(3), 300_000, 0, 1)


def test_every_fit_of_a_run_has_its_own_seed_on_the_same_rows(votes):
    runs = [ss.ProtocolRun(votes, f, 2, n_secondary=2, n_unlabeled=u)
            for f in (0.3, 0.4) for u in (None, 50)]
    seeds = [r.fit_seed_of(m) for r in runs for m in ss.METHODS]
    assert len(set(seeds)) == len(seeds) == 12
    assert seeds[0] == ss.fit_seed(2, *ss.split_key(runs[0].split), 0)
    assert seeds[5] == ss.fit_seed(2, *ss.split_key(runs[1].split), 2)
    # the rows stay paired: one split per (fraction, unlabeled size), the labeled sets nested
    np.testing.assert_array_equal(runs[0].split.labeled, runs[1].split.labeled)
    assert set(runs[0].split.labeled) < set(runs[2].split.labeled)
    # the comparison's arms: the same rows for every method, each fitted with its own seed
    X, y = votes.X.iloc[:300], votes.y.iloc[:300]
    arms = [ss.SemiSupervisedArm(m, 0.7, 40, 150, 3, votes.domain, random_state=4).fit(X, y)
            for m in ss.METHODS]
    assert len({arm.model_.random_state for arm in arms}) == 3
    assert [arm.model_.random_state for arm in arms] == [ss.fit_seed(4, i) for i in range(3)]


def test_fractions_that_round_alike_but_label_other_rows_get_their_own_seeds(votes):
    """Issue 35: the seed was keyed on round(fraction·10^6), the split on round(fraction·n).

    0.2999999 and 0.3000001 of Votes' 435 rows label 130 and 131 nested rows: one seed gave the
    two fits the same trees and keys, and the difference of their releases the extra row's label.
    """
    runs = [ss.ProtocolRun(votes, f, 0, n_secondary=2) for f in (0.2999999, 0.3000001)]
    assert (runs[0].n_labeled, runs[1].n_labeled) == (130, 131)
    assert set(runs[0].split.labeled) < set(runs[1].split.labeled)
    for method in ss.METHODS:
        assert runs[0].fit_seed_of(method) != runs[1].fit_seed_of(method)
    # the same rows, however the fraction is written: the same fit (not two releases)
    same = ss.ProtocolRun(votes, 0.3, 0, n_secondary=2)
    np.testing.assert_array_equal(same.split.labeled, runs[0].split.labeled)  # 130.5 -> 130
    assert same.fit_seed_of("private_rdt") == runs[0].fit_seed_of("private_rdt")
    # an unlabeled size that cuts nothing reads the rows of n_unlabeled=None: the same fit
    everything = ss.ProtocolRun(votes, 0.3, 0, n_secondary=2, n_unlabeled=10**6)
    assert everything.fit_seed_of("rdt_sharp") == same.fit_seed_of("rdt_sharp")
    one_fewer = ss.ProtocolRun(votes, 0.3, 0, n_secondary=2, n_unlabeled=same.n_public - 1)
    assert one_fewer.fit_seed_of("rdt_sharp") != same.fit_seed_of("rdt_sharp")


@pytest.mark.parametrize("n_unlabeled", [-1, -5, 1.5, "10", True])
def test_an_invalid_unlabeled_size_is_refused(votes, n_unlabeled):
    # -1 kept all public rows but one, under the seed of n_unlabeled=None
    with pytest.raises(InvalidParameterError, match="n_unlabeled"):
        ss.ProtocolRun(votes, 0.3, 0, n_secondary=2, n_unlabeled=n_unlabeled)
    with pytest.raises(InvalidParameterError, match="n_unlabeled"):
        ss.protocol_split(votes.n_rows, 0.3, 0, n_unlabeled)


def test_split_key_reads_the_labeled_and_public_positions():
    split = ss.protocol_split(1000, 0.05, 3)
    key = ss.split_key(split)
    assert len(key) == 4 and all(0 <= k < 2**32 for k in key)
    moved = ss.Split(split.labeled[:-1], np.concatenate([split.labeled[-1:], split.public]),
                     split.test)  # the same rows read, one labeled row made public
    swapped = ss.Split(split.labeled, split.public[::-1], split.test)  # another order
    assert len({key, ss.split_key(moved), ss.split_key(swapped)}) == 3
    assert ss.split_key(ss.Split(split.labeled, split.public, split.test[:5])) == key


def _private_rdt(run, random_state, epsilon):
    """Private-RDT as ``run`` fits it on its labeled rows, with the given seed."""
    return ss.fit_method(
        "private_rdt", run.codes, run.labels, run.data.domain, labeled=run.split.labeled,
        public=run.split.public, epsilon=epsilon, random_state=random_state, max_depth=run.depth,
    )


def test_nested_fractions_of_one_run_do_not_share_noise(votes):
    """Private-RDT at 30% and 40% labeled in one run: nested rows, each fit with its own seed.

    With one seed for both (as before ``fit_seed``) the two fits have the same trees and
    the same secret key for the first tree's noise, so every leaf of that tree empty in
    both releases the same noisy counts: side by side they show which leaves are empty.
    (The later trees' keys are drawn after the noise of the leaves that hold rows, so they
    agree only when the fits hold rows in as many leaves.) With the protocol's seeds no
    tree agrees beyond chance.
    """
    runs = [ss.ProtocolRun(votes, f, 0, n_secondary=2) for f in (0.3, 0.4)]
    assert set(runs[0].split.labeled) < set(runs[1].split.labeled)
    assert runs[0].depth == runs[1].depth
    seeds = [r.fit_seed_of("private_rdt") for r in runs]
    assert seeds[0] != seeds[1]
    rng = np.random.default_rng(0)
    X = votes.X.apply(lambda column: rng.permutation(column.to_numpy()))  # spread over leaves

    def released(states, epsilon):
        return [_private_rdt(r, s, epsilon).released_counts(X)
                for r, s in zip(runs, states, strict=True)]

    for states, shared in (((0, 0), True), (seeds, False)):
        exact = released(states, math.inf)  # the same trees as at ε = 0.5 (same seeds)
        empty = (exact[0].sum(axis=-1) == 0) & (exact[1].sum(axis=-1) == 0)  # (tree, row)
        assert empty.sum() > 1000
        noisy = released(states, 0.5)
        equal = (noisy[0] == noisy[1]).all(axis=-1)  # (tree, row)
        if shared:
            assert empty[0].sum() > 100 and equal[0][empty[0]].all()
        else:
            assert equal[0][empty[0]].mean() < 0.05 and equal[empty].mean() < 0.05


def _old_arm(method, epsilon, n_labeled, n_public, n_secondary, data, random_state, X, y):
    """The comparison arm as notebook 07 fitted it before the harness (the reference).

    The rows come from ``random_state`` (the same for every method: paired); the fit's seed
    is derived from it and the method (``fit_seed``), so that arms never share noise.
    """
    rng = np.random.default_rng([random_state, 11])
    rows = rng.permutation(len(X))[: n_labeled + n_public]
    labeled, public = rows[:n_labeled], rows[n_labeled:]
    seed = ss.fit_seed(random_state, list(ss.METHODS.values()).index(method))
    if method == "RDT#":
        return RDTSharpClassifier(
            epsilon, n_secondary=n_secondary, n_labeled=n_labeled, domain=data.domain,
            random_state=seed,
        ).fit(X.iloc[labeled], y.iloc[labeled], X.iloc[public])
    use = labeled if method == "Private-RDT, labeled rows" else rows
    return PrivateRDTClassifier(epsilon, domain=data.domain, random_state=seed).fit(
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
