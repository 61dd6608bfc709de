"""The runner's stratified split is scikit-learn's ``train_test_split``, row for row.

:func:`dpviz.experiments.runner.stratified_split` is written in numpy (importing scikit-learn
made a kernel's first fitting slider move a second slower); every shipped result was computed
with scikit-learn's split, so the two must give the same rows in the same order: on every UCI
data set at the sizes the workbook uses, in the unstratified fallback, and on the edge cases
(tied quotas, a frame, a series or an array).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from dpviz.data.uci import available, load
from dpviz.experiments.runner import stratified_split


def sklearn_split(X, y, test_size, seed):
    try:
        return train_test_split(X, y, test_size=test_size, random_state=seed, stratify=y)
    except ValueError:  # a class too small to stratify: unstratified, as the runner did
        return train_test_split(X, y, test_size=test_size, random_state=seed)


def assert_same(ours, theirs):
    assert len(ours) == len(theirs) == 4
    for a, b in zip(ours, theirs, strict=True):
        assert type(a) is type(b)
        if isinstance(a, pd.DataFrame | pd.Series):
            pd.testing.assert_index_equal(a.index, b.index)
            assert a.equals(b)
        else:
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", available())
def test_every_uci_set_splits_as_scikit_learn_does(name):
    data = load(name)
    n = len(data.y)
    for test_size, seed in [(0.25, 0), (0.3, 7), (1 / 3, 12), (n // 5, 3), (n - n // 10, 0)]:
        assert_same(stratified_split(data.X, data.y, test_size, seed),
                    sklearn_split(data.X, data.y, test_size, seed))


@pytest.mark.parametrize("seed", range(6))
def test_tied_quotas_small_classes_and_arrays_split_as_scikit_learn_does(seed):
    rng = np.random.default_rng(seed)
    cases = [np.repeat(list("abcd"), [5, 5, 5, 3]),  # tied remainders: broken at random
             np.repeat(list("xyz"), [40, 7, 2]),
             np.repeat(list("pq"), [30, 1]),  # a class of one row: unstratified
             rng.integers(0, 3, 57)]
    for labels in cases:
        X = rng.normal(size=(len(labels), 2))
        for test_size in (0.2, 0.5, 5, 0.9):
            y = pd.Series(labels, index=rng.permutation(len(labels)) + 100)
            frame = pd.DataFrame(X, index=y.index)
            try:
                expected = sklearn_split(frame, y, test_size, seed)
            except ValueError:  # too few rows for a side: both refuse
                with pytest.raises(ValueError):
                    stratified_split(frame, y, test_size, seed)
                continue
            assert_same(stratified_split(frame, y, test_size, seed), expected)
            assert_same(stratified_split(X, labels, test_size, seed),
                        sklearn_split(X, labels, test_size, seed))


def test_a_test_size_outside_the_rows_is_refused():
    for size in (0, 1.0, 10, -0.5):
        with pytest.raises(ValueError, match="test_size"):
            stratified_split(np.zeros((10, 1)), np.arange(10) % 2, size, 0)
