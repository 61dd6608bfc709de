"""The eager reference of FS Algorithms 1 and 2 gives exactly the estimators' trees."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import dpviz
from dpviz.domain import Encoded
from dpviz.pseudocode import fs
from dpviz.trees.id3 import DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.id3_view import ID3Node


def predicted_codes(model, codes):
    """The class codes ``model`` predicts for encoded rows."""
    return model.domain_.encode_labels(model.predict(Encoded(codes, model.domain_)))



@functools.cache
def _data(name: str) -> tuple[dpviz.Domain, np.ndarray, np.ndarray]:
    data = dpviz.load(name)
    codes = data.domain.encode(data.X)
    labels = data.domain.encode_labels(data.y)
    if name == "nursery":  # a subset keeps the row-by-row reference quick
        keep = np.random.default_rng(0).choice(len(labels), 1500, replace=False)
        codes, labels = codes[keep], labels[keep]
    return data.domain, codes, labels


def _same_tree(ref: fs.Leaf | fs.Node, node: ID3Node) -> int:
    """Assert the reference tree equals the estimator's, bit for bit; return #nodes."""
    assert ref.N_T == node.noisy_count
    if isinstance(ref, fs.Leaf):
        assert node.attribute is None
        assert node.class_counts is not None
        np.testing.assert_array_equal(ref.N_c, node.class_counts)
        assert ref.label == node.label
        return 1
    assert node.attribute == ref.A
    assert len(node.children) == len(ref.subtrees)
    return 1 + sum(_same_tree(r, c) for r, c in zip(ref.subtrees, node.children, strict=True))


CASES = [
    ("votes", 0.5, 3, "max"),
    ("votes", 2.0, 4, "gini"),
    ("votes", 1.0, 2, "infogain"),
    ("nursery", 1.0, 3, "max"),
    ("nursery", 5.0, 3, "infogain"),
    ("nursery", 20.0, 4, "gini"),
]


@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize(("dataset", "B", "d", "criterion"), CASES)
def test_diffp_id3_reference_is_the_estimator(dataset, B, d, criterion, seed):
    domain, codes, labels = _data(dataset)
    model = DiffPID3Classifier(
        B, d, criterion=criterion, size_bound=50_000, domain=domain, random_state=seed
    )
    model.fit(Encoded(codes, domain), domain.decode_labels(labels))
    T = fs.private_table(codes, labels, domain, B, seed)
    tree = fs.diffp_id3(T, list(domain.names), list(domain.classes), d, B,
                        criterion=criterion, N=50_000)
    _same_tree(tree, model.tree_.root)
    assert T.ledger.spent == pytest.approx(model.ledger_.spent)
    rows = codes[:300]
    expected = predicted_codes(model, rows)
    np.testing.assert_array_equal([fs.classify(tree, r, domain) for r in rows], expected)


@pytest.mark.parametrize("seed", [0, 3, 11])
@pytest.mark.parametrize(("dataset", "B", "d"), [("votes", 1.0, 2), ("votes", 20.0, 3),
                                                  ("nursery", 10.0, 2), ("nursery", 50.0, 3)])
def test_sulq_id3_reference_is_the_estimator(dataset, B, d, seed):
    domain, codes, labels = _data(dataset)
    model = SuLQID3Classifier(B, d, domain=domain, random_state=seed)
    model.fit(Encoded(codes, domain), domain.decode_labels(labels))
    T = fs.private_table(codes, labels, domain, B, seed)
    tree = fs.sulq_id3(T, list(domain.names), list(domain.classes), d, B)
    _same_tree(tree, model.tree_.root)
    rows = codes[:300]
    expected = predicted_codes(model, rows)
    np.testing.assert_array_equal([fs.classify(tree, r, domain) for r in rows], expected)


def test_the_cases_grow_real_trees():
    """Guard: the comparisons above are not only of single leaves."""
    sizes = []
    for dataset, B, d, criterion in CASES:
        domain, codes, labels = _data(dataset)
        T = fs.private_table(codes, labels, domain, B, 0)
        tree = fs.diffp_id3(T, list(domain.names), list(domain.classes), d, B,
                            criterion=criterion, N=50_000)
        sizes.append(isinstance(tree, fs.Node))
    assert sum(sizes) >= 4
