"""Tests of dpviz.data.synthetic: the papers' synthetic data generators."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp, kstest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from dpviz.data import synthetic
from dpviz.data.synthetic import (
    FI_SYNTH_SETTINGS,
    boolean_tree_data,
    fi_synth,
    fs_numeric_split_data,
    fs_random_tree_data,
    fs_single_split_data,
)
from dpviz.data.uci import Dataset
from dpviz.domain import Categorical, Numeric
from dpviz.errors import InvalidParameterError

SEED = 20240611


def tolerance(p: float, n: int) -> float:
    """Four binomial standard deviations of a proportion ``p`` estimated from ``n`` trials."""
    return 4.0 * math.sqrt(p * (1.0 - p) / n)


# A small instance of every generator, as a function of random_state.
GENERATORS = {
    "boolean": lambda rs: boolean_tree_data(400, random_state=rs),
    "fs-tree": lambda rs: fs_random_tree_data(400, n_numeric=3, n_test=150, random_state=rs),
    "fs-tree-3": lambda rs: fs_random_tree_data(
        400, n_values=3, n_classes=3, depth=3, n_test=150, random_state=rs
    ),
    "fs-single": lambda rs: fs_single_split_data(400, n_test=150, random_state=rs),
    "fs-numeric": lambda rs: fs_numeric_split_data(400, n_test=150, random_state=rs),
    "fs-binned": lambda rs: fs_numeric_split_data(
        400, n_test=150, n_bins=10, p_noise=0.0, random_state=rs
    ),
    "fi-d": lambda rs: fi_synth("D", n_rows=400, random_state=rs),
}
NAMES = {
    "boolean": "jpw-boolean-tree",
    "fs-tree": "fs-random-tree",
    "fs-tree-3": "fs-random-tree",
    "fs-single": "fs-single-split",
    "fs-numeric": "fs-numeric-split",
    "fs-binned": "fs-numeric-split-binned",
    "fi-d": "fi-synth-d",
}


def assert_same(a: Dataset, b: Dataset) -> None:
    pd.testing.assert_frame_equal(a.X, b.X)
    pd.testing.assert_series_equal(a.y, b.y)
    assert a.domain == b.domain
    assert a.description == b.description
    assert (a.test is None) == (b.test is None)
    if a.test is not None:
        assert_same(a.test, b.test)


def differs(a: Dataset, b: Dataset) -> bool:
    return not (a.X.equals(b.X) and a.y.equals(b.y))


def grouped_label_counts(features: pd.DataFrame, y: pd.Series) -> pd.Series:
    """Number of distinct labels among the rows sharing each combination of attribute values."""
    frame = features.astype(str).assign(_y=y.to_numpy())
    return frame.groupby(list(features.columns), observed=True)["_y"].nunique()


# --------------------------------------------------------------------------- the printed tree
def parse_tree(description: str) -> list:
    """Parse the 'Generating tree:' text of a description into nested branches."""
    lines = description.split("Generating tree:\n", 1)[1].splitlines()

    def parse(i: int, indent: int) -> tuple[list, int]:
        branches = []
        while i < len(lines):
            line = lines[i]
            here = len(line) - len(line.lstrip())
            if here < indent:
                break
            condition, _, rest = line.strip().partition(":")
            name, op, value = condition.split(" ", 2)
            if rest.strip():
                branches.append(((name, op, value), int(rest.strip().removeprefix("class "))))
                i += 1
            else:
                child, i = parse(i + 1, here + 2)
                branches.append(((name, op, value), child))
        return branches, i

    return parse(0, 2)[0]


def tree_predict(tree: list, features: pd.DataFrame) -> np.ndarray:
    def holds(row: pd.Series, name: str, op: str, value: str) -> bool:
        if op == "=":
            return str(row[name]) == value
        if op == "<=":
            return float(row[name]) <= float(value)
        return float(row[name]) > float(value)

    def one(row: pd.Series, branches: list) -> int:
        for (name, op, value), child in branches:
            if holds(row, name, op, value):
                return child if isinstance(child, int) else one(row, child)
        raise AssertionError(f"no branch of the printed tree holds for {dict(row)}")

    return np.array([one(row, tree) for _, row in features.iterrows()])


# --------------------------------------------------------------------------- common properties
@pytest.mark.parametrize("key", list(GENERATORS))
def test_same_int_seed_gives_identical_data(key):
    assert_same(GENERATORS[key](SEED), GENERATORS[key](SEED))


@pytest.mark.parametrize("key", list(GENERATORS))
def test_equal_generators_give_identical_data(key):
    a = GENERATORS[key](np.random.default_rng(7))
    b = GENERATORS[key](np.random.default_rng(7))
    assert_same(a, b)


@pytest.mark.parametrize("key", list(GENERATORS))
def test_different_seeds_give_different_data(key):
    assert differs(GENERATORS[key](SEED), GENERATORS[key](SEED + 1))
    assert differs(GENERATORS[key](None), GENERATORS[key](None))


@pytest.mark.parametrize("key", list(GENERATORS))
def test_dataset_matches_its_domain(key):
    data = GENERATORS[key](SEED)
    assert isinstance(data, Dataset)
    assert data.name == NAMES[key]
    assert data.citation and data.description and data.url.startswith("https://doi.org/")
    assert list(data.X.columns) == list(data.domain.names)
    assert len(data.X) == len(data.y) == 400
    encoded = data.domain.encode(data.X, out_of_bounds="raise")
    assert encoded.shape == (400, len(data.domain))
    codes = data.domain.encode_labels(data.y)
    assert set(np.unique(codes)) <= set(range(data.domain.n_classes))
    if data.test is not None:
        assert data.test.domain == data.domain
        assert len(data.test.X) == 150
        data.test.domain.encode(data.test.X, out_of_bounds="raise")
        data.test.domain.encode_labels(data.test.y)


@pytest.mark.parametrize("key", list(GENERATORS))
def test_domain_does_not_depend_on_the_rows(key):
    # the public domain is a function of the parameters only
    assert GENERATORS[key](1).domain == GENERATORS[key](2).domain


def test_random_state_is_validated():
    for bad in ("seed", -1, 1.5, True):
        with pytest.raises(InvalidParameterError, match="random_state"):
            boolean_tree_data(10, random_state=bad)
        with pytest.raises(InvalidParameterError, match="random_state"):
            fi_synth("A", n_rows=10, random_state=bad)
    # one rule for every seed in dpviz (validation.check_random_state): a legacy
    # RandomState is accepted, as by the estimators and scikit-learn
    a = boolean_tree_data(10, random_state=np.random.RandomState(0)).X
    b = boolean_tree_data(10, random_state=np.random.RandomState(0)).X
    assert a.equals(b)


# --------------------------------------------------------------------------- JPW / RDT#
def test_boolean_defaults_follow_rdt_sharp():
    data = boolean_tree_data(random_state=SEED)
    assert data.X.shape == (2000, 9)  # RDT# Table I: 9 attributes, 2000 rows
    assert all(isinstance(a, Categorical) and a.values == ("0", "1") for a in data.domain)
    assert data.domain.classes == (0, 1)
    assert data.test is None


@pytest.mark.parametrize("flip", [0.05, 0.3])
def test_boolean_flip_rate_matches_flip(flip):
    n = 20_000
    clean = boolean_tree_data(n, 10, flip=0.0, random_state=SEED)
    noisy = boolean_tree_data(n, 10, flip=flip, random_state=SEED)
    pd.testing.assert_frame_equal(clean.X, noisy.X)  # same rows, only labels flipped
    observed = float((clean.y != noisy.y).mean())
    assert abs(observed - flip) < tolerance(flip, n)


def test_boolean_noiseless_labels_follow_the_printed_tree():
    data = boolean_tree_data(3000, 8, depth=4, flip=0.0, random_state=SEED)
    tree = parse_tree(data.description)
    np.testing.assert_array_equal(tree_predict(tree, data.X), data.y.to_numpy())
    assert (grouped_label_counts(data.X, data.y) == 1).all()

    def depths(branches, d=1):
        for _, child in branches:
            if isinstance(child, int):
                yield d
            else:
                yield from depths(child, d + 1)

    assert set(depths(tree)) == {4}  # complete tree of the requested depth


def test_boolean_classes_are_balanced():
    n = 20_000
    data = boolean_tree_data(n, 9, flip=0.0, random_state=SEED)
    assert abs(data.y.mean() - 0.5) < tolerance(0.5, n)


def test_boolean_default_depth_is_half_the_attributes():
    data = boolean_tree_data(200, 9, flip=0.0, random_state=SEED)
    assert "depth 4" in data.description


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_rows": 0}, "n_rows"),
        ({"n_rows": 10.0}, "n_rows"),
        ({"n_attributes": 0}, "n_attributes"),
        ({"depth": 0}, "depth"),
        ({"n_attributes": 3, "depth": 4}, "depth"),
        ({"flip": -0.1}, "flip"),
        ({"flip": 1.5}, "flip"),
        ({"flip": float("nan")}, "flip"),
    ],
)
def test_boolean_validates_parameters(kwargs, name):
    with pytest.raises(InvalidParameterError, match=name):
        boolean_tree_data(**{"n_rows": 100, **kwargs})


# --------------------------------------------------------------------------- FS random tree
def test_fs_random_tree_defaults_follow_the_paper():
    data = fs_random_tree_data(100, random_state=SEED)
    assert len(data.domain) == 10
    assert all(isinstance(a, Categorical) and a.n_values == 2 for a in data.domain)
    assert data.domain.classes == (0, 1)
    assert len(data.test.X) == 10_000
    assert "maximum depth 5" in data.description and "p_leaf = 0.3" in data.description
    mixed = fs_random_tree_data(100, n_numeric=3, n_test=0, random_state=SEED)
    assert mixed.test is None
    numeric = [a for a in mixed.domain if isinstance(a, Numeric)]
    assert [(a.low, a.high) for a in numeric] == [(0.0, 100.0)] * 3
    assert sum(isinstance(a, Categorical) for a in mixed.domain) == 7


def test_fs_noise_rates_match_p_noise():
    n, p = 4000, 0.2
    kwargs = {"n_values": 3, "n_classes": 3, "n_numeric": 3, "n_test": 0, "random_state": SEED}
    clean = fs_random_tree_data(n, p_noise=0.0, **kwargs)
    noisy = fs_random_tree_data(n, p_noise=p, **kwargs)
    nominal = [a.name for a in clean.domain if isinstance(a, Categorical)]
    numeric = [a.name for a in clean.domain if isinstance(a, Numeric)]
    changed_nominal = float((clean.X[nominal] != noisy.X[nominal]).to_numpy().mean())
    expected = p * (1 - 1 / 3)  # the replacement may repeat the original value
    assert abs(changed_nominal - expected) < tolerance(expected, n * len(nominal))
    changed_numeric = float((clean.X[numeric] != noisy.X[numeric]).to_numpy().mean())
    assert abs(changed_numeric - p) < tolerance(p, n * len(numeric))
    changed_class = float((clean.y != noisy.y).mean())
    assert abs(changed_class - expected) < tolerance(expected, n)
    # the tree and the test set do not depend on the noise or the number of rows
    a = fs_random_tree_data(100, p_noise=0.0, random_state=SEED)
    b = fs_random_tree_data(300, p_noise=0.2, random_state=SEED)
    assert_same(a.test, b.test)


def test_fs_nominal_test_set_is_noiseless_and_follows_the_tree():
    kwargs = {"depth": 5, "n_test": 3000, "random_state": SEED}
    clean = fs_random_tree_data(3000, p_noise=0.0, **kwargs)
    noisy = fs_random_tree_data(3000, p_noise=0.2, **kwargs)
    tree = parse_tree(clean.description)
    np.testing.assert_array_equal(tree_predict(tree, clean.test.X), clean.test.y.to_numpy())
    np.testing.assert_array_equal(tree_predict(tree, clean.X), clean.y.to_numpy())
    both_x = pd.concat([clean.X, clean.test.X], ignore_index=True)
    both_y = pd.concat([clean.y, clean.test.y], ignore_index=True)
    assert (grouped_label_counts(both_x, both_y) == 1).all()
    # the same check has power: the noisy rows are not a function of the attributes
    assert (grouped_label_counts(noisy.X, noisy.y) > 1).any()


def test_fs_numeric_test_set_is_noiseless():
    kwargs = {"n_numeric": 3, "n_test": 4000, "random_state": SEED}
    clean = fs_random_tree_data(20_000, p_noise=0.0, **kwargs)
    model = DecisionTreeClassifier(random_state=0).fit(
        clean.domain.encode(clean.X), clean.domain.encode_labels(clean.y)
    )
    accuracy = model.score(clean.test.domain.encode(clean.test.X), clean.test.y.to_numpy())
    # class noise of p_noise = 0.2 alone would cap the accuracy near 0.9
    assert accuracy > 0.97


def _walk(node, level=0, used=(), intervals=None):
    """Yield (node, level, nominal attributes used above, numeric intervals above)."""
    intervals = intervals or {}
    yield node, level, used, intervals
    if node.is_leaf:
        return
    j = node.attribute
    if node.threshold is None:
        for child in node.children:
            yield from _walk(child, level + 1, (*used, j), intervals)
    else:
        low, high = intervals.get(j, (0.0, 100.0))
        t = node.threshold
        yield from _walk(node.children[0], level + 1, used, {**intervals, j: (low, t)})
        yield from _walk(node.children[1], level + 1, used, {**intervals, j: (t, high)})


def _fs_trees(count, is_numeric, n_values=2, depth=5, n_classes=2, p_leaf=0.3):
    rng = np.random.default_rng(SEED)
    return [
        synthetic._random_fs_tree(rng, is_numeric, n_values, depth, n_classes, p_leaf)
        for _ in range(count)
    ]


def test_fs_tree_structure():
    is_numeric = [False] * 7 + [True] * 3
    leaves_below_2 = inner_below_2 = 0
    labels = []
    for tree in _fs_trees(300, is_numeric, n_values=3, n_classes=3):
        assert tree.depth() <= 5
        for node, level, used, intervals in _walk(tree):
            if node.is_leaf:
                labels.append(node.label)
                assert level >= 2  # leaves only from the third level on (or at max depth)
                if level < 5:
                    leaves_below_2 += 1
                continue
            if level >= 2:
                inner_below_2 += 1
            if is_numeric[node.attribute]:
                low, high = intervals.get(node.attribute, (0.0, 100.0))
                assert low <= node.threshold <= high and len(node.children) == 2
            else:
                assert node.attribute not in used  # no nominal attribute twice on a path
                assert len(node.children) == 3
    # nodes of levels 3..5 (0-based 2..4) become leaves with probability p_leaf
    n = leaves_below_2 + inner_below_2
    assert abs(leaves_below_2 / n - 0.3) < tolerance(0.3, n)
    # leaf classes are uniform
    for c in range(3):
        assert abs(labels.count(c) / len(labels) - 1 / 3) < tolerance(1 / 3, len(labels))


@pytest.mark.parametrize(("p_leaf", "depth", "expected"), [(0.0, 4, 4), (1.0, 6, 2)])
def test_fs_tree_depth_extremes(p_leaf, depth, expected):
    for tree in _fs_trees(20, [False] * 10, depth=depth, p_leaf=p_leaf):
        leaf_levels = {lv for node, lv, _, _ in _walk(tree) if node.is_leaf}
        assert leaf_levels == {expected}


def test_fs_tree_stops_when_nominal_attributes_run_out():
    for tree in _fs_trees(5, [False] * 3, depth=10, p_leaf=0.0):
        assert tree.depth() == 3


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_rows": 0}, "n_rows"),
        ({"n_values": 1}, "n_values"),
        ({"n_classes": 1}, "n_classes"),
        ({"depth": 0}, "depth"),
        ({"p_leaf": 1.2}, "p_leaf"),
        ({"p_noise": -0.5}, "p_noise"),
        ({"n_numeric": 11}, "n_numeric"),
        ({"n_numeric": -1}, "n_numeric"),
        ({"n_test": -1}, "n_test"),
        ({"n_attributes": 0}, "n_attributes"),
    ],
)
def test_fs_random_tree_validates_parameters(kwargs, name):
    with pytest.raises(InvalidParameterError, match=name):
        fs_random_tree_data(**{"n_rows": 100, **kwargs})


# --------------------------------------------------------------------------- FS single split
def _informative_attributes(data: Dataset) -> list[str]:
    """Attributes whose value (or its negation) equals the test label on every test row."""
    y = data.test.y.to_numpy()
    found = []
    for name in data.domain.names:
        v = data.test.X[name].astype(int).to_numpy()
        if np.array_equal(v, y) or np.array_equal(1 - v, y):
            found.append(name)
    return found


def test_fs_single_split_test_set_is_the_split_exactly():
    for seed in range(5):
        data = fs_single_split_data(100, n_test=2000, random_state=seed)
        assert len(data.domain) == 10 and data.domain.classes == (0, 1)
        found = _informative_attributes(data)
        assert len(found) == 1
        assert f"decided by {found[0]} alone" in data.description


def test_fs_single_split_depth_one_tree_finds_the_attribute():
    # FS Table 1 setting (ten binary attributes, p_noise = 0.1, 1000 rows): a depth-1
    # non-private ID3 finds the true split every time (papers README errata)
    for seed in range(20):
        data = fs_single_split_data(1000, n_test=500, random_state=seed)
        (informative,) = _informative_attributes(data)
        onehot = pd.get_dummies(data.X, prefix_sep="=")
        stump = DecisionTreeClassifier(max_depth=1, criterion="entropy").fit(onehot, data.y)
        chosen = onehot.columns[stump.tree_.feature[0]]
        assert chosen.split("=")[0] == informative


def test_fs_single_split_noise_rate():
    n, p = 5000, 0.1
    clean = fs_single_split_data(n, p_noise=0.0, n_test=0, random_state=SEED)
    noisy = fs_single_split_data(n, p_noise=p, n_test=0, random_state=SEED)
    changed = float((clean.X != noisy.X).to_numpy().mean())
    assert abs(changed - p / 2) < tolerance(p / 2, n * 10)
    assert abs(float((clean.y != noisy.y).mean()) - p / 2) < tolerance(p / 2, n)


# --------------------------------------------------------------------------- FS numeric split
@pytest.mark.parametrize("threshold", [35.0, 60.0])
def test_fs_numeric_split_class_flips_at_the_threshold(threshold):
    data = fs_numeric_split_data(200, threshold=threshold, n_test=3000, random_state=SEED)
    assert [a.name for a in data.domain if isinstance(a, Numeric)] == ["x0", "x1", "x2"]
    assert sum(isinstance(a, Categorical) for a in data.domain) == 7
    y = data.test.y.to_numpy()
    splits = [
        name for name in ("x0", "x1", "x2")
        if len(np.unique(y[data.test.X[name] <= threshold])) == 1
        and len(np.unique(y[data.test.X[name] > threshold])) == 1
        and len(np.unique(y)) == 2
    ]
    assert len(splits) == 1
    assert f"{splits[0]} <= {threshold:g}" in data.description


def test_fs_numeric_split_noise_and_binning():
    n, p = 5000, 0.1
    raw = fs_numeric_split_data(n, p_noise=p, n_test=500, random_state=SEED)
    clean = fs_numeric_split_data(n, p_noise=0.0, n_test=500, random_state=SEED)
    changed = float((raw.X[["x0", "x1", "x2"]] != clean.X[["x0", "x1", "x2"]]).to_numpy().mean())
    assert abs(changed - p) < tolerance(p, 3 * n)

    binned = fs_numeric_split_data(n, p_noise=p, n_test=500, n_bins=10, random_state=SEED)
    assert all(
        isinstance(a, Categorical) and a.n_values == (10 if a.name.startswith("x") else 2)
        for a in binned.domain
    )
    for part_raw, part_binned in [(raw, binned), (raw.test, binned.test)]:
        pd.testing.assert_series_equal(part_raw.y, part_binned.y)  # labels from the numeric split
        codes = part_binned.domain.encode(part_binned.X)
        for j, name in enumerate(part_binned.domain.names):
            if name.startswith("x"):
                expected = np.minimum(np.floor(part_raw.X[name].to_numpy() / 10), 9)
                np.testing.assert_array_equal(codes[:, j], expected)
            else:
                pd.testing.assert_series_equal(part_raw.X[name], part_binned.X[name])
    assert binned.domain["x0"].values[3] == "[30, 40)"  # the split at 35 falls inside a bin


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"threshold": 0.0}, "threshold"),
        ({"threshold": 100.0}, "threshold"),
        ({"threshold": float("nan")}, "threshold"),
        ({"threshold": "35"}, "threshold"),
        ({"p_noise": 2.0}, "p_noise"),
        ({"n_bins": 1}, "n_bins"),
        ({"n_test": 1.5}, "n_test"),
        ({"n_rows": -3}, "n_rows"),
    ],
)
def test_fs_numeric_split_validates_parameters(kwargs, name):
    with pytest.raises(InvalidParameterError, match=name):
        fs_numeric_split_data(**{"n_rows": 100, **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_attributes": 0}, "n_attributes"),
        ({"p_noise": 1.01}, "p_noise"),
        ({"n_rows": 0}, "n_rows"),
    ],
)
def test_fs_single_split_validates_parameters(kwargs, name):
    with pytest.raises(InvalidParameterError, match=name):
        fs_single_split_data(**{"n_rows": 100, **kwargs})


# --------------------------------------------------------------------------- FI Synth A-G
# FI Table 1 (n_informative, n_random) and Table 4 (depth), transcribed from the paper.
FI_TABLE_1 = {
    "A": (5, 0, 5),
    "B": (10, 0, 8),
    "C": (15, 0, 12),
    "D": (10, 5, 12),
    "E": (5, 10, 12),
    "F": (5, 5, 8),
    "G": (10, 10, 15),
}


def test_fi_settings_table_matches_the_paper():
    table = FI_SYNTH_SETTINGS
    assert list(table.index) == list(FI_TABLE_1)
    for letter, (informative, useless, depth) in FI_TABLE_1.items():
        row = table.loc[letter]
        assert row["dataset"] == f"Synth{letter}"
        assert (row["n_informative"], row["n_random"]) == (informative, useless)
        assert row["depth"] == depth
        assert row["n_features"] == informative + useless
        assert row["discrete_features"] == 0 and row["n_classes"] == 2
        assert row["n_rows"] == 30_000
        assert row["bound"] == math.ceil(2 * math.sqrt(informative / 3 + 1))


@pytest.mark.parametrize("letter", list(FI_TABLE_1))
def test_fi_synth_matches_table_1(letter):
    informative, useless, _ = FI_TABLE_1[letter]
    n = 4000
    data = fi_synth(letter, n_rows=n, random_state=SEED)
    assert data.name == f"fi-synth-{letter.lower()}"
    assert data.X.shape == (n, informative + useless)
    assert data.domain.classes == (0, 1)
    bound = float(FI_SYNTH_SETTINGS.loc[letter, "bound"])
    assert all(isinstance(a, Numeric) and (a.low, a.high) == (-bound, bound) for a in data.domain)
    assert data.X.abs().to_numpy().max() <= bound
    # balanced binary class
    assert abs(data.y.mean() - 0.5) < tolerance(0.5, n)
    # exactly n_random features are pure N(0, 1) noise, independent of the class ...
    y = data.y.to_numpy()
    noise = [c for c in data.X.columns if kstest(data.X[c], "norm").pvalue > 1e-4]
    assert len(noise) == useless
    for c in noise:
        assert ks_2samp(data.X[c][y == 0], data.X[c][y == 1]).pvalue > 1e-4
    # ... and the n_informative others carry the class
    signal = [c for c in data.X.columns if c not in noise]
    half = n // 2

    def holdout_accuracy(columns):
        model = DecisionTreeClassifier(max_depth=6, random_state=0)
        model.fit(data.X[columns][:half], y[:half])
        return model.score(data.X[columns][half:], y[half:])

    assert holdout_accuracy(signal) > 0.7
    if noise:
        assert holdout_accuracy(noise) < 0.5 + tolerance(0.5, n - half)


def test_fi_synth_default_size_and_sklearn_call():
    data = fi_synth("a", random_state=3)
    assert data.X.shape == (30_000, 5)
    assert abs(data.y.mean() - 0.5) < tolerance(0.5, 30_000)
    x, y = make_classification(
        n_samples=30_000, n_features=5, n_informative=5, n_redundant=0, n_repeated=0,
        n_classes=2, random_state=3,
    )
    np.testing.assert_array_equal(data.X.to_numpy(), np.clip(x, -4, 4))
    np.testing.assert_array_equal(data.y.to_numpy(), y)
    wide = fi_synth("a", random_state=3, bound="wide")
    np.testing.assert_array_equal(wide.X.to_numpy(), np.clip(x, -10, 10))
    assert fi_synth("a", random_state=3, n_rows=10, bound=2.5).domain["x0"].high == 2.5
    # the typical bound clips a few per cent of the values, not more
    assert 0.005 < (np.abs(x) > 4).mean() < 0.06


@pytest.mark.parametrize("letter", list(FI_TABLE_1))
def test_fi_synth_draws_what_sklearn_make_classification_draws(letter):
    informative, useless, _ = FI_TABLE_1[letter]
    for n, seed in [(501, 0), (30, 2**32 - 1), (7, 11)]:
        mine = synthetic.make_classification(n, informative, useless, seed)
        x, y = make_classification(
            n_samples=n, n_features=informative + useless, n_informative=informative,
            n_redundant=0, n_repeated=0, n_classes=2, random_state=seed,
        )
        assert mine[0].tobytes() == x.tobytes() and mine[1].tobytes() == y.tobytes()


def test_fi_synth_name_is_case_insensitive():
    assert_same(fi_synth("g", n_rows=50, random_state=1), fi_synth("G", n_rows=50, random_state=1))
    assert_same(
        fi_synth("SynthC", n_rows=50, random_state=1), fi_synth("C", n_rows=50, random_state=1)
    )


@pytest.mark.parametrize("bad", ["H", "", "AB", 3, None])
def test_fi_synth_rejects_unknown_names(bad):
    with pytest.raises(InvalidParameterError, match="'A', 'B', 'C', 'D', 'E', 'F', 'G'"):
        fi_synth(bad)


def test_fi_synth_validates_n_rows():
    with pytest.raises(InvalidParameterError, match="n_rows"):
        fi_synth("A", n_rows=0)
