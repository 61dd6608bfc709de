"""The plain RDT# pseudocode (Fig. 3-5), fed the fast estimator's draws, gives its outputs.

tests/_replay.py serves the fast fit's choices (attributes, centres) and noise to the plain
functions in the order they ask, checking each call; then every centre's noisy counts, the
pseudo-labels, the secondary trees' counts and the predictions are equal. A planted
difference (noise at twice the scale) is caught.
"""

import math

import numpy as np
import pytest
from _replay import Replay, child_key, tree_keys, uniform

from dpviz.data.synthetic import boolean_tree_data
from dpviz.data.uci import load
from dpviz.domain import Encoded
from dpviz.pseudocode import rdt_sharp as ref
from dpviz.trees._base import release_generators
from dpviz.trees.random_tree import ATTRIBUTE_STREAM
from dpviz.trees.rdt_sharp import RDTSharpClassifier


def predicted_codes(model, codes):
    """The class codes ``model`` predicts for encoded rows."""
    return model.domain_.encode_labels(model.predict(Encoded(codes, model.domain_)))



def _data(name):
    if name == "synthetic":
        return boolean_tree_data(400, 9, flip=0.05, random_state=0)
    return load(name)


def _walk(D, N, X, d, h, key, order, public, domain, out):
    """The fast path's choices for one node (Fig. 3), in the pseudocode's call order."""
    if d == h or not X:
        k = min(math.ceil(10 * len(D) / N), len(D)) if N else 0
        chosen = sorted(D, key=lambda row: order[row])[:k]  # the rows first in the tree's order
        out["events"].append(("centres", (len(D), k), [D.index(row) for row in chosen]))
        out["cells"] += [child_key(key, c) for c in range(max(k, 1))]
        return
    F = X[math.floor(uniform(key, ATTRIBUTE_STREAM) * len(X))]
    out["events"].append(("attribute", tuple(X), F))
    rest = [a for a in X if a != F]
    for i in range(int(domain.n_values[F])):
        D_i = [row for row in D if public[row][F] == i]
        _walk(D_i, N, rest, d + 1, h, child_key(key, i), order, public, domain, out)


def _keyed_trees(rng, n_trees, public, h, domain):
    """Per tree: its choices and its centres' keys, drawn as RDTSharpClassifier draws them."""
    trees = []
    for _ in range(n_trees):
        key = tree_keys(rng, 1)[0]
        N = len(public)
        order = np.argsort(rng.permutation(N)) if N else np.zeros(0, dtype=np.int64)
        out = {"events": [], "cells": []}
        _walk(list(range(N)), N, list(range(len(domain))), 0, h, key, order, public, domain, out)
        trees.append(out)
    return trees


def _replay(model, exact, public, seed, domain):
    """A Replay of ``model``'s fit: its choices, and its noise (release − ``exact``'s counts)."""
    structure, _ = release_generators(np.random.default_rng(seed))
    secondary = structure.spawn(1)[0]
    primary = _keyed_trees(structure, 5, public, model.depth_, domain)
    second = _keyed_trees(secondary, 3, public, model.depth_, domain)
    noise = []
    if exact is not None:
        for tree, release, counts in zip(primary, model.primary_counts_, exact.primary_counts_,
                                         strict=True):
            keys = np.array(tree["cells"], dtype=np.uint64)
            noise += (release(keys) - counts(keys)).ravel().tolist()
    events = [e for tree in primary + second for e in tree["events"]]
    return Replay(events, noise, model.epsilon / 5), primary, second


# (data set, labeled rows, public rows, height, ε, noise)
CASES = [
    ("votes", 60, 200, None, 0.5, "discrete_laplace"),
    ("votes", 40, 150, 3, math.inf, "discrete_laplace"),
    ("mushroom", 80, 250, 2, 1.0, "discrete_laplace"),
    ("synthetic", 50, 200, None, 2.0, "laplace"),
]


def _split(data, n_labeled, n_public, seed):
    codes, labels = data.domain.encode(data.X), data.domain.encode_labels(data.y)
    rows = np.random.default_rng(100 + seed).permutation(data.n_rows)
    lab, pub, test = np.split(rows[: n_labeled + n_public + 60], [n_labeled, n_labeled + n_public])
    return codes, labels, lab, pub, test


def _fit(data, epsilon, codes, labels, lab, pub, height, noise, seed):
    return RDTSharpClassifier(
        epsilon, n_secondary=3, max_depth=height, n_labeled=len(lab), noise=noise,
        domain=data.domain, random_state=seed,
    ).fit(Encoded(codes[lab], data.domain), data.domain.decode_labels(labels[lab]),
          Encoded(codes[pub], data.domain))


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize(("dataset", "n_labeled", "n_public", "height", "epsilon", "noise"), CASES)
def test_reference_equals_the_estimator(dataset, n_labeled, n_public, height, epsilon, noise,
                                        seed):
    data = _data(dataset)
    codes, labels, lab, pub, test = _split(data, n_labeled, n_public, seed)
    model = _fit(data, epsilon, codes, labels, lab, pub, height, noise, seed)
    exact = (None if math.isinf(epsilon)
             else _fit(data, math.inf, codes, labels, lab, pub, height, noise, seed))
    rng, primary, second = _replay(model, exact, codes[pub], seed, data.domain)
    E1, pseudo_labels, E2 = ref.rdt_sharp(
        codes[lab], labels[lab], codes[pub], epsilon, h=model.depth_, domain=data.domain,
        rng=rng, p=5, t=3, N_CELLS=10, noise=noise,
    )
    rng.assert_used_up()
    same = (np.testing.assert_array_equal if noise == "discrete_laplace"
            else lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9))
    # the released noisy counts of every centre of every primary tree
    for R, tree, release in zip(E1, primary, model.primary_counts_, strict=True):
        ours = [a for leaf in ref.leaves(R) for a in leaf.alpha]
        same(release(np.array(tree["cells"], dtype=np.uint64)), np.array(ours))
    assert sum(len(tree["cells"]) for tree in primary) >= 5
    np.testing.assert_array_equal(pseudo_labels, model.pseudo_labels_)
    # the secondary trees' exact counts of the pseudo-labeled public rows
    for R, tree, counts in zip(E2, second, model.secondary_counts_, strict=True):
        ours = [a for leaf in ref.leaves(R) for a in leaf.alpha]
        np.testing.assert_array_equal(counts(np.array(tree["cells"], dtype=np.uint64)),
                                      np.array(ours))
    # predictions of E1 ∪ E2 (Fig. 4, then the most probable class)
    proba = np.array([ref.classify(E1 + E2, x, data.domain) for x in codes[test]])
    np.testing.assert_allclose(proba, model.predict_proba(Encoded(codes[test], data.domain)),
                               rtol=1e-12)
    np.testing.assert_array_equal(proba.argmax(axis=1), predicted_codes(model, codes[test]))


def test_a_planted_difference_is_caught():
    """AddNoise at ε/(2p) per tree (Lap(2p/ε)) instead of ε/p: the replay refuses it."""
    data = _data("votes")
    codes, labels, lab, pub, _ = _split(data, 60, 200, 0)
    model = _fit(data, 0.5, codes, labels, lab, pub, None, "discrete_laplace", 0)
    exact = _fit(data, math.inf, codes, labels, lab, pub, None, "discrete_laplace", 0)
    rng, _, _ = _replay(model, exact, codes[pub], 0, data.domain)
    with pytest.raises(AssertionError, match="noise drawn at ε"):
        ref.rdt_sharp(codes[lab], labels[lab], codes[pub], 0.25, h=model.depth_,
                      domain=data.domain, rng=rng, t=3)


def test_create_tree_follows_figure_3():
    data = load("votes")
    public = data.domain.encode(data.X.iloc[:200])
    tree = ref.create_tree(public, 200, list(range(len(data.domain))), 0, 3,
                           rng=np.random.default_rng(0), N_CELLS=10, domain=data.domain)
    leaves = ref.leaves(tree)
    assert len(leaves) == 2**3  # every child of every node, empty or not
    sizes = [sum(ref.leaf_of(tree, x) is leaf for x in public) for leaf in leaves]
    for leaf, size in zip(leaves, sizes, strict=True):
        assert len(leaf.centers) == min(math.ceil(10 * size / 200), size)
        assert len(leaf.alpha) == max(len(leaf.centers), 1)  # at least one centre per leaf
        assert all(ref.leaf_of(tree, c) is leaf for c in leaf.centers)  # centres from its rows
