"""The plain JPW pseudocode (dpviz.pseudocode.jpw) gives exactly what the fast estimators release.

Fed the fast fit's draws (tests/_replay.py): the same trees (every leaf's path of tests), the
same noisy counter of every leaf (the visited ones through ``released_counts`` at the training
rows, all of them through the public ``export_release``), the same probabilities and
predictions — on Votes, a Nursery subset and a small synthetic domain with numeric attributes,
over several seeds; a planted difference (noise at twice the scale) is caught.
"""

import math
import warnings

import numpy as np
import pytest
from _replay import Replay, keyed_structure, tree_keys

from dpviz.audit.exact_laws import discrete_laplace_law, sampling_findings
from dpviz.data.uci import load
from dpviz.domain import Categorical, Domain, Encoded, Numeric
from dpviz.errors import NotProvenPrivateWarning
from dpviz.pseudocode import jpw, show
from dpviz.trees._base import release_generators
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier

SEEDS = (0, 1, 7)

def predicted_codes(model, codes):
    """The class codes ``model`` predicts for encoded rows."""
    return model.domain_.encode_labels(model.predict(Encoded(codes, model.domain_)))



def _synthetic():
    """Two categorical attributes and a numeric one; height 4 > the 2 categorical ones."""
    domain = Domain(
        [Categorical("a", ("0", "1", "2")), Numeric("z", -1.0, 3.0), Categorical("b", ("x", "y"))],
        ["-", "+", "?"],
    )
    rng = np.random.default_rng(42)
    n = 300
    codes = np.column_stack([rng.integers(0, 3, n), rng.uniform(-1, 3, n), rng.integers(0, 2, n)])
    labels = ((codes[:, 0] == 1) + (codes[:, 1] > 1.0)).astype(np.int64)
    return domain, codes.astype(np.float64), labels, 4


def _short():
    """Categorical attributes only, fewer than the height: paths run out of attributes."""
    domain = Domain([Categorical(f"c{j}", tuple("pqr"[: 2 + j % 2])) for j in range(3)],
                    ["no", "yes"])
    rng = np.random.default_rng(5)
    codes = np.column_stack([rng.integers(0, a.n_values, 120) for a in domain])
    labels = (codes.sum(axis=1) % 2).astype(np.int64)
    return domain, codes.astype(np.float64), labels, 5


@pytest.fixture(scope="module", params=["votes", "nursery", "synthetic", "short"])
def data(request):
    """(domain, codes, labels, height) of a small data set."""
    if request.param == "synthetic":
        return _synthetic()
    if request.param == "short":
        return _short()
    dataset = load(request.param)
    codes = dataset.domain.encode(dataset.X)
    labels = dataset.domain.encode_labels(dataset.y)
    if request.param == "nursery":  # a subset keeps the eager reference fast
        keep = np.random.default_rng(0).choice(len(labels), 600, replace=False)
        codes, labels = codes[keep], labels[keep]
    height = {"votes": 8, "nursery": 4}[request.param]
    return dataset.domain, codes, labels, height


def _rows(codes, labels):
    return list(zip(codes.tolist(), labels.tolist(), strict=True))


def _paths(r, domain, prefix=""):
    """The leaf paths of a reference tree, written as RandomTree.leaves writes them."""
    if r.F is None:
        return [prefix or "(root)"]
    a = domain.attributes[r.F]
    out = []
    for i, c in enumerate(r.children):
        if a.is_categorical:
            test = f"{a.name} = {a.values[i]}"
        else:
            test = f"{a.name} {'<=' if i == 0 else '>'} {r.threshold:.6g}"
        out += _paths(c, domain, f"{prefix} and {test}" if prefix else test)
    return out


def _structure(domain, h, seed, N):
    """The fast path's structure draws of N trees (root keys from the fit's structure rng)."""
    structure_rng, _ = release_generators(np.random.default_rng(seed))
    X = list(range(len(domain)))
    return [e for key in tree_keys(structure_rng, N) for e in keyed_structure(X, h, key, domain)]


def _fast(domain, codes, labels, seed, epsilon, N, h, **kw):
    return PrivateRDTClassifier(epsilon=epsilon, n_trees=N, max_depth=h, domain=domain,
                                random_state=seed, **kw).fit(Encoded(codes, domain),
                                                             domain.decode_labels(labels))


def _counts(model):
    return model.export_release().iloc[:, 2:].to_numpy()


def _reference(domain, codes, labels, seed, *, epsilon, N, h, noise="discrete_laplace",
               model=None):
    """Private-RDT in the paper's words, fed the draws of the fast fit ``model``."""
    noise_values = []
    if not math.isinf(epsilon):  # the fast path's noise: its release minus the exact counts
        exact = _fast(domain, codes, labels, seed, math.inf, N, h)
        noise_values = (_counts(model) - _counts(exact)).ravel()
    rng = Replay(_structure(domain, h, seed, N), noise_values, epsilon / N)
    ensemble = jpw.private_rdt(_rows(codes, labels), domain, epsilon=epsilon, N=N, h=h, rng=rng,
                               noise=noise)
    rng.assert_used_up()
    return ensemble


def _assert_same_release(model, ensemble, domain, codes, exact=True):
    """The same trees and every leaf's counts (float Laplace: to the last bits)."""
    same = np.array_equal if exact else lambda a, b: np.allclose(a, b, rtol=1e-12, atol=1e-9)
    release = model.export_release()
    ours = [leaf.alpha for R in ensemble for leaf in jpw.leaves(R)]
    paths = [p for R in ensemble for p in _paths(R, domain)]
    assert release["leaf"].tolist() == paths  # the same trees
    assert same(release.iloc[:, 2:].to_numpy(), np.array(ours))  # every leaf
    at_rows = model.released_counts(domain.decode(codes))  # the visited leaves' lookups
    reached = [[jpw.leaf_reached(R, x).alpha for x in codes.tolist()] for R in ensemble]
    assert same(at_rows, np.array(reached))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("epsilon", [0.5, math.inf])
def test_private_rdt_is_the_estimator(data, seed, epsilon):
    domain, codes, labels, h = data
    model = _fast(domain, codes, labels, seed, epsilon, 4, h)
    ensemble = _reference(domain, codes, labels, seed, epsilon=epsilon, N=4, h=h, model=model)
    _assert_same_release(model, ensemble, domain, codes)
    proba = np.array([jpw.classify(ensemble, x) for x in codes.tolist()])
    assert np.array_equal(proba, model.predict_proba(Encoded(codes, domain)))  # integer sums: exact
    assert np.array_equal(proba.argmax(axis=1), predicted_codes(model, codes))
    for tree, R in zip(model.trees_, ensemble, strict=True):
        assert tree.count_leaves() == len(list(jpw.leaves(R)))


def test_float_laplace_and_clipping(data):
    domain, codes, labels, h = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvenPrivateWarning)
        model = PrivateRDTClassifier(
            epsilon=0.3, n_trees=3, max_depth=h, noise="laplace", clip_negative=True,
            domain=domain, random_state=3,
        ).fit(Encoded(codes, domain), domain.decode_labels(labels))
        ensemble = _reference(domain, codes, labels, 3, epsilon=0.3, N=3, h=h, noise="laplace",
                              model=model)
    _assert_same_release(model, ensemble, domain, codes, exact=False)
    proba = np.array([jpw.classify(ensemble, x, clip_negative=True) for x in codes.tolist()])
    assert np.allclose(proba, model.predict_proba(Encoded(codes, domain)), rtol=1e-12, atol=1e-15)
    assert np.array_equal(proba.argmax(axis=1), predicted_codes(model, codes))


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_update_is_the_estimators(data, seed):
    domain, codes, labels, h = data
    half = len(labels) // 2
    model = _fast(domain, codes[:half], labels[:half], seed, 1.0, 3, h)
    before = _counts(model)
    ensemble = _reference(domain, codes[:half], labels[:half], seed, epsilon=1.0, N=3, h=h,
                          model=model)
    model.update(domain.decode(codes[half:]), domain.decode_labels(labels[half:]))
    exact_D2 = _counts(_fast(domain, codes[half:], labels[half:], seed, math.inf, 3, h))
    rng = Replay(noise=(_counts(model) - before - exact_D2).ravel(), epsilon=1.0 / 3)
    jpw.update(ensemble, _rows(codes[half:], labels[half:]), epsilon=1.0, rng=rng)
    rng.assert_used_up()
    _assert_same_release(model, ensemble, domain, codes)
    proba = np.array([jpw.classify(ensemble, x) for x in codes.tolist()])
    assert np.array_equal(proba, model.predict_proba(Encoded(codes, model.domain_)))


def test_a_planted_difference_is_caught(data):
    """Noise at twice the scale (ε/(2N) per tree), a tree short, a wrong attribute: refused."""
    domain, codes, labels, h = data
    noise = _counts(_fast(domain, codes, labels, 0, 0.5, 4, h)) - _counts(
        _fast(domain, codes, labels, 0, math.inf, 4, h))
    rng = Replay(_structure(domain, h, 0, 4), noise.ravel(), epsilon=0.5 / 4)
    with pytest.raises(AssertionError, match="noise drawn at ε"):  # Lap(2N/ε) instead of N/ε
        jpw.private_rdt(_rows(codes, labels), domain, epsilon=0.25, N=4, h=h, rng=rng)
    rng = Replay(_structure(domain, h, 0, 4))
    jpw.random_decision_trees(_rows(codes, labels), domain, N=3, h=h, rng=rng)
    with pytest.raises(AssertionError, match="fewer choices"):
        rng.assert_used_up()
    with pytest.raises(AssertionError, match="drawn among"):  # a path that reuses its attribute
        jpw.build_tree_structure([0, 0, *range(1, len(domain))], h, domain,
                                 Replay(_structure(domain, h, 0, 1)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("prune", [True, False])
def test_random_decision_trees_is_the_estimator(data, seed, prune):
    domain, codes, labels, h = data
    train, test = codes[::2], codes[1::2]
    model = RandomDecisionTreeClassifier(
        n_trees=3, max_depth=h, prune=prune, domain=domain, random_state=seed
    ).fit(Encoded(train, domain), domain.decode_labels(labels[::2]))
    rng = Replay(_structure(domain, h, seed, 3))
    ensemble = jpw.random_decision_trees(_rows(train, labels[::2]), domain, N=3, h=h, rng=rng,
                                         prune_empty=prune)
    rng.assert_used_up()
    # held-out rows reach pruned parts too: the deepest node left answers
    reached = [[jpw.counts(jpw.leaf_reached(R, x)) for x in test.tolist()] for R in ensemble]
    assert np.array_equal(model.released_counts(domain.decode(test)), np.array(reached))
    if prune:
        assert model.visited_leaves() == [len(list(jpw.leaves(R))) for R in ensemble]
    proba = np.array([jpw.classify(ensemble, x) for x in test.tolist()])
    assert np.array_equal(proba, model.predict_proba(Encoded(test, model.domain_)))
    assert np.array_equal(proba.argmax(axis=1), predicted_codes(model, test))


def test_build_tree_structure_by_hand():
    # JPW Fig. 3's shape: two binary attributes, height 2 -> both used, four leaves
    domain = Domain([Categorical("a", ("0", "1")), Categorical("b", ("0", "1"))], ["-", "+"])
    R = jpw.build_tree_structure([0, 1], 2, domain, np.random.default_rng(0))
    assert {R.F, R.children[0].F} == {0, 1} and len(list(jpw.leaves(R))) == 4
    assert all(leaf.alpha == [0, 0] for leaf in jpw.leaves(R))
    jpw.update_statistics(R, [([0, 0], 0), ([0, 1], 1), ([0, 1], 1)])
    assert sorted(sum(leaf.alpha) for leaf in jpw.leaves(R)) == [0, 0, 1, 2]
    jpw.prune(R)  # Fig. 1's pruning keeps the two leaves rows reached
    assert len(list(jpw.leaves(R))) == 2
    assert repr(show(jpw.build_tree_structure)).startswith("def build_tree_structure")


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 2.5])
def test_lap_is_discrete_laplace(epsilon):
    """``lap`` (two geometric draws) has dpviz's discrete Laplace law: the sampling test, false
    alarm at most 1e-6 per ε; the same test catches Lap(2/ε), the planted difference."""
    n = 20_000
    law = [discrete_laplace_law(0, epsilon)]
    draws = np.random.default_rng(11)
    assert sampling_findings([[jpw.lap(draws, epsilon) for _ in range(n)]], law, n_samples=n) == []
    assert sampling_findings([[jpw.lap(draws, epsilon / 2) for _ in range(n)]], law, n_samples=n)
