"""The FI reference forest (dpviz.pseudocode.fi, Algorithms 1–2 as eager Python) releases exactly
the forest of the fast estimator (dpviz.trees.forest) for the same random_state: the same trees,
the same label on every leaf (visited or not), the same votes and predictions."""

import math

import numpy as np
import pandas as pd
import pytest

from dpviz.data.synthetic import fi_synth
from dpviz.data.uci import load
from dpviz.pseudocode import fi, show
from dpviz.trees.forest import DPRandomForestClassifier


@pytest.fixture(scope="module")
def datasets():
    votes = load("votes")  # 16 two-valued discrete features: FI depth 8, 256 leaves a tree
    synth = fi_synth("A", n_rows=600, random_state=0)  # 5 continuous features: depth 5
    nursery = load("nursery")  # 8 discrete features of 2-5 values, 5 classes: depth 4
    rows = np.random.default_rng(0).permutation(nursery.n_rows)[:800]
    return {
        "votes": (votes.domain, votes.X, votes.y),
        "SynthA": (synth.domain, synth.X, synth.y),
        "Nursery": (nursery.domain, nursery.X.iloc[rows], nursery.y.iloc[rows]),
    }


def _paths(T, domain, prefix=""):
    """The root-to-leaf tests of each leaf, as ``RandomTree.leaves`` writes them."""
    if not T.children:
        return [prefix or "(root)"]
    attribute = list(domain)[T.g]
    out = []
    for i, child in enumerate(T.children):
        if T.p is None:
            test = f"{attribute.name} = {attribute.values[i]}"
        else:
            test = f"{attribute.name} {'<=' if i == 0 else '>'} {T.p:.6g}"
        out += _paths(child, domain, f"{prefix} and {test}" if prefix else test)
    return out


def _both(name, datasets, seed, **params):
    domain, X, y = datasets[name]
    model = DPRandomForestClassifier(domain=domain, random_state=seed, **params).fit(X, y)
    x, C = domain.encode(X), domain.encode_labels(y)
    F = fi.build_forest(
        params.get("epsilon", 1.0), x, params.get("n_trees", 100), domain, C,
        d=params.get("max_depth"), mechanism=params.get("leaf_mechanism", "rosnam"),
        disjoint=params.get("disjoint", True), random_state=seed,
    )
    return model, F, domain, x, X


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("votes", {"epsilon": 1.0, "n_trees": 6}),
        ("votes", {"epsilon": 0.3, "n_trees": 4, "disjoint": False}),
        ("votes", {"epsilon": math.inf, "n_trees": 3, "max_depth": 4}),
        ("SynthA", {"epsilon": 1.0, "n_trees": 10}),
        ("SynthA", {"epsilon": 2.0, "n_trees": 5, "disjoint": False, "max_depth": 7}),
        ("SynthA", {"epsilon": 0.5, "n_trees": 4, "leaf_mechanism": "exponential"}),
        ("SynthA", {"epsilon": 1.0, "n_trees": 3, "leaf_mechanism": "smooth_sensitivity"}),
        ("Nursery", {"epsilon": 0.5, "n_trees": 8}),
    ],
)
def test_reference_forest_is_the_estimators_release(datasets, name, seed, params):
    model, F, domain, x, X = _both(name, datasets, seed, **params)
    assert len(F) == len(model.trees_)
    # every leaf of every tree (visited or not): same tests on the path, same label
    release = model.export_release()
    reference = pd.DataFrame(
        [
            {"tree": t, "leaf": path, "label": model.classes_[L.label]}
            for t, T in enumerate(F)
            for path, L in zip(_paths(T, domain), fi.leaves(T), strict=True)
        ]
    )
    pd.testing.assert_frame_equal(release, reference, check_dtype=False)
    # the training rows reach the same leaves (by key) and read the same labels there
    keys = model.locate_encoded(x).keys
    for t, T in enumerate(F):
        assert [fi.reach_leaf(T, row).key for row in x] == keys[t].tolist()
    np.testing.assert_array_equal(
        model.released_labels(X), [[fi.reach_leaf(T, row).label for row in x] for T in F]
    )
    votes, predicted = fi.classify(F, x, domain.n_classes)
    np.testing.assert_array_equal(votes, model.votes_encoded(x))
    np.testing.assert_array_equal(predicted, model.predict_encoded(x))


def test_fi_depth_and_unknown_categories(datasets):
    model, F, domain, x, _ = _both("votes", datasets, 3, epsilon=1.0, n_trees=5)
    assert model.depth_ == 8  # ⌊16/2⌋ discrete features, no continuous one
    assert all(len(fi.leaves(T)) == 2**8 for T in F)
    unknown = x[:40].copy()
    unknown[:, ::3] = -1  # an unknown category goes to a child drawn from the node's key
    model.set_params(unknown="random")
    votes, _ = fi.classify(F, unknown, domain.n_classes)
    np.testing.assert_array_equal(votes, model.votes_encoded(unknown))


def test_disjoint_rows_each_reach_one_tree(datasets):
    _, F, _, x, _ = _both("SynthA", datasets, 0, epsilon=1.0, n_trees=10)
    counted = sum(int(L.f.sum()) for T in F for L in fi.leaves(T))
    assert counted == len(x)  # every row in exactly one leaf of one tree


def test_show_renders_the_paper_procedures():
    for function in (fi.build_forest, fi.build_tree, fi.get_majority_labels, fi.classify):
        assert repr(show(function)).startswith("def " + function.__name__)
        assert "dpviz-listing" in show(function).data
