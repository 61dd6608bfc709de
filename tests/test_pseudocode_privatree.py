"""PrivaTree's pseudocode (the paper and the authors' code) gives exactly the estimator's trees.

Same seed, same queries in the same order: the same tree, split by split and label by label,
the same ledger and the same predictions, for the three splitters, on categorical (Votes,
Mushroom), multi-class (Nursery) and mixed numeric data (Adult).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import dpviz
from dpviz.domain import Encoded
from dpviz.errors import NotProvenPrivateWarning
from dpviz.pseudocode import privatree as pt
from dpviz.trees.privatree import PrivaNode, PrivaTreeClassifier


@functools.cache
def _data(name: str) -> tuple[dpviz.Domain, np.ndarray, np.ndarray]:
    data = dpviz.load(name)
    codes = data.domain.encode(data.X)
    labels = data.domain.encode_labels(data.y)
    if len(labels) > 2000:  # a subset keeps the row-by-row reference quick
        keep = np.random.default_rng(0).choice(len(labels), 1500, replace=False)
        codes, labels = codes[keep], labels[keep]
    return data.domain, codes, labels


def _same_tree(ref: pt.Leaf | pt.Node, node: PrivaNode) -> int:
    """Assert the reference tree equals the estimator's; return the number of nodes."""
    if isinstance(ref, pt.Leaf):
        assert node.split is None
        assert node.label == ref.value
        return 1
    assert node.split is not None and node.split.index == ref.feature
    if ref.threshold is None:
        assert node.split.threshold is None and list(node.split.left) == ref.categories
    else:
        assert node.split.threshold == ref.threshold
    return 1 + sum(_same_tree(r, c) for r, c in zip(ref.children, node.children, strict=True))


@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("splitter", ["histogram", "exponential", "published"])
@pytest.mark.parametrize(("dataset", "epsilon", "depth"), [
    ("votes", 0.5, 3), ("votes", 5.0, 4), ("mushroom", 1.0, 3), ("nursery", 2.0, 3),
    ("adult", 1.0, 3), ("adult", 20.0, 2),
])
def test_the_pseudocode_is_the_estimator(dataset, epsilon, depth, splitter, seed):
    domain, codes, labels = _data(dataset)
    model = PrivaTreeClassifier(epsilon, depth, splitter=splitter, n_public=1500, domain=domain,
                                random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvenPrivateWarning)  # "published": no claim
        model.fit(Encoded(codes, domain), domain.decode_labels(labels))
    T = pt.private_table(codes, labels, domain, epsilon, seed)
    tree = pt.privatree(T, depth, epsilon, splitter=splitter, n=1500)
    assert _same_tree(tree, model.tree_.root) == 2 ** (depth + 1) - 1
    assert T.ledger.spent == model.ledger_.spent
    rows = codes[:300]
    np.testing.assert_array_equal([pt.classify(tree, r) for r in rows],
                                  domain.encode_labels(model.predict(Encoded(rows, domain))))


def test_the_replay_has_power():
    """Guard: a different seed gives a different tree (the comparison reads the draws)."""
    domain, codes, labels = _data("adult")
    model = PrivaTreeClassifier(1.0, 3, domain=domain, random_state=0)
    model.fit(Encoded(codes, domain), domain.decode_labels(labels))
    tree = pt.privatree(pt.private_table(codes, labels, domain, 1.0, 1), 3, 1.0)
    with pytest.raises(AssertionError):
        _same_tree(tree, model.tree_.root)
