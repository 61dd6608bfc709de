"""The eager reference of RDT# (Fig. 3-5) gives exactly the fast estimator's outputs."""

import math

import numpy as np
import pytest

from dpviz.data.synthetic import boolean_tree_data
from dpviz.data.uci import load
from dpviz.pseudocode import rdt_sharp as ref
from dpviz.trees.rdt_sharp import RDTSharpClassifier


def _data(name):
    if name == "synthetic":
        return boolean_tree_data(400, 9, flip=0.05, random_state=0)
    return load(name)


# (data set, labeled rows, public rows, height, ε, noise)
CASES = [
    ("votes", 60, 200, None, 0.5, "discrete_laplace"),
    ("votes", 40, 150, 3, math.inf, "discrete_laplace"),
    ("mushroom", 80, 250, 2, 1.0, "discrete_laplace"),
    ("synthetic", 50, 200, None, 2.0, "laplace"),
]


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize(("dataset", "n_labeled", "n_public", "height", "epsilon", "noise"), CASES)
def test_reference_equals_the_estimator(dataset, n_labeled, n_public, height, epsilon, noise,
                                        seed):
    data = _data(dataset)
    codes, labels = data.domain.encode(data.X), data.domain.encode_labels(data.y)
    rows = np.random.default_rng(100 + seed).permutation(data.n_rows)
    lab, pub, test = np.split(rows[: n_labeled + n_public + 60], [n_labeled, n_labeled + n_public])
    model = RDTSharpClassifier(
        epsilon, n_secondary=3, max_depth=height, n_labeled=n_labeled, noise=noise,
        domain=data.domain, random_state=seed,
    ).fit_encoded(codes[lab], labels[lab], data.domain, public=codes[pub])
    E1, pseudo_labels, E2 = ref.rdt_sharp(
        codes[lab], labels[lab], codes[pub], epsilon, h=model.depth_, domain=data.domain,
        p=5, t=3, N_CELLS=10, noise=noise, seed=seed,
    )
    # the released noisy counts of every centre of every primary tree, bit for bit
    n_centres = 0
    for R, release in zip(E1, model.primary_counts_, strict=True):
        for leaf in ref.leaves(R):
            keys = np.array([ref.cell_key(leaf, c) for c in range(len(leaf.alpha))], np.uint64)
            np.testing.assert_array_equal(release(keys), np.array(leaf.alpha))
            n_centres += len(keys)
    assert n_centres >= 5
    np.testing.assert_array_equal(pseudo_labels, model.pseudo_labels_)
    # the secondary trees' exact counts of the pseudo-labeled public rows
    for R, counts in zip(E2, model.secondary_counts_, strict=True):
        for leaf in ref.leaves(R):
            keys = np.array([ref.cell_key(leaf, c) for c in range(len(leaf.alpha))], np.uint64)
            np.testing.assert_array_equal(counts(keys), np.array(leaf.alpha))
    # predictions of E1 ∪ E2 (Fig. 4, then the most probable class)
    proba = np.array([ref.classify(E1 + E2, x, data.domain) for x in codes[test]])
    np.testing.assert_allclose(proba, model.predict_proba_encoded(codes[test]), rtol=1e-12)
    np.testing.assert_array_equal(proba.argmax(axis=1), model.predict_encoded(codes[test]))


def test_create_tree_follows_figure_3():
    data = load("votes")
    public = data.domain.encode(data.X.iloc[:200])
    tree = ref.rdt_sharp_tree(public, 3, np.random.default_rng(0), N_CELLS=10, domain=data.domain)
    leaves = ref.leaves(tree)
    assert len(leaves) == 2**3  # every child of every node, empty or not
    sizes = [sum(ref.leaf_of(tree, x) is leaf for x in public) for leaf in leaves]
    for leaf, size in zip(leaves, sizes, strict=True):
        assert len(leaf.centers) == min(math.ceil(10 * size / 200), size)
        assert len(leaf.alpha) == max(len(leaf.centers), 1)  # at least one centre per leaf
