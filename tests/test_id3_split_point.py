"""FS §4.3 split points on a public grid, the lattice membership test, and their audits.

The continuous mechanism of FS §4.3 (``choose_split_point_continuous``) releases
``rng.uniform(start, end)`` with range ends that are private row values: its doubles lie
on a data-dependent lattice, and an audit with the lattice as event refutes its ε. The
estimators release a point of a public grid instead (``private_split_point``): the same
audit finds nothing, while a control run at a larger ε is caught.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import clone

import dpviz
from dpviz.data.synthetic import fs_numeric_split_data
from dpviz.domain import Domain, Numeric
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.lattice import uniform_lattice_member, uniform_lattice_member_any
from dpviz.privacy import PrivateTable
from dpviz.trees.id3 import (
    DEFAULT_SPLIT_CELLS,
    LABEL_POINT,
    POINT_MECHANISM,
    DiffPC45Classifier,
    DiffPID3Classifier,
    choose_split_point,
    grid_split_qualities,
    private_split_point,
    split_grid,
    split_point_grid_probabilities,
)
from dpviz.trees.id3_quality import get_criterion

# chi-square goodness of fit at a fixed seed: reject only below this p-value
P_MIN = 1e-3


# ============================================================================ the lattice test
@pytest.mark.parametrize(
    ("a", "b"),
    [(0.0, 1.0), (1.0, 1e6), (0.0, 1e6), (-3.7, 2.2), (1e6, 1e6 + 1), (0.1, 0.3),
     (5.0, 5.000001), (-1e300, 1e300), (1e-300, 1e-299)],
)
def test_every_uniform_output_is_on_its_lattice(a, b):
    rng = np.random.default_rng(17)
    outputs = rng.uniform(a, b, size=10_000)
    assert uniform_lattice_member(outputs, a, b).all()
    assert uniform_lattice_member(outputs[:5].reshape(5, 1), a, b).shape == (5, 1)


def test_outputs_of_other_ends_are_mostly_off_the_lattice():
    rng = np.random.default_rng(18)
    # lattice of uniform(0, 1e6): spacing 1e6 · 2^-53 ≈ 1.1e-10, while the doubles in
    # [1, 2) are 2^-52 apart: about one in 5e5 of them is a lattice point
    small = rng.uniform(1.0, 2.0, size=10_000)
    assert uniform_lattice_member(small, 0.0, 1e6).sum() == 0
    # FS's neighbours: ranges [1, 1e6] (D) and [2, 1e6] (D'). Where the doubles are spaced
    # more finely than the lattice (ulp(y) < 999999 · 2^-53, y < 2^19), a fraction
    # ulp(y) / spacing of them is on D's lattice; above 2^19 every double is. So the
    # membership rate of D' outputs is that fraction per binade (binomial standard errors).
    outputs = rng.uniform(2.0, 1e6, size=200_000)
    member = uniform_lattice_member(outputs, 1.0, 1e6)
    spacing = (1e6 - 1.0) / 2.0**53
    for e in range(8, 20):  # binades with at least ~50 outputs
        band = (outputs >= 2.0**e) & (outputs < 2.0 ** (e + 1))
        expected = min(1.0, 2.0 ** (e - 52) / spacing)
        se = math.sqrt(expected * (1 - expected) / band.sum())
        assert abs(member[band].mean() - expected) <= 4 * se + 1e-12, e
    low = outputs < 2.0**17
    assert member[low].mean() < 0.2  # most outputs below 2^17 are off D's lattice


def test_lattice_member_edge_cases():
    assert not uniform_lattice_member(1.5, 0.0, 1e6)
    np.testing.assert_array_equal(
        uniform_lattice_member([np.nan, np.inf, 0.0, 1e6, -1e-300], 0.0, 1e6),
        [False, False, True, False, False],  # k < 2^53: the upper end is never returned
    )
    np.testing.assert_array_equal(uniform_lattice_member([3.0, 3.5], 3.0, 3.0), [True, False])
    ranges = [(0.0, 1.0), (1.0, 1e6)]
    y = np.array([0.25, 1.5, 3e5])
    np.testing.assert_array_equal(
        uniform_lattice_member_any(y, ranges),
        uniform_lattice_member(y, 0.0, 1.0) | uniform_lattice_member(y, 1.0, 1e6),
    )
    with pytest.raises(InvalidParameterError):
        uniform_lattice_member(1.0, 0.0, math.inf)


# ============================================================================ the grid
def test_split_grid_is_the_formula():
    grid = split_grid(-2.0, 7.5, 19)
    expected = [-2.0 + (7.5 - -2.0) * i / 19 for i in range(20)]
    assert grid.tolist() == expected  # bit for bit
    assert (np.diff(grid) > 0).all()
    for bad in (1, 0, 2.5, True):
        with pytest.raises(InvalidParameterError, match="n_cells"):
            split_grid(0.0, 1.0, bad)
    with pytest.raises(InvalidParameterError):
        split_grid(1.0, 1.0, 4)
    with pytest.raises(InvalidParameterError, match="too fine"):
        split_grid(1e16, 1e16 + 4, 256)


# Toy data on [0, 10] with 10 cells: grid 0, 1, ..., 10, candidates 1..9.
# values 2, 5, 5, 7 with classes 0, 0, 1, 1; Max quality of "x <= i":
#   i = 1: all right (2, 2)             -> 2
#   i = 2..4: (1, 0) | (1, 2)           -> 3
#   i = 5, 6: (2, 1) | (0, 1)           -> 3
#   i = 7..9: all left                  -> 2
TOY_VALUES = np.array([2.0, 5.0, 5.0, 7.0])
TOY_LABELS = np.array([0, 0, 1, 1])
TOY_GRID = split_grid(0.0, 10.0, 10)
TOY_MAX = np.array([2, 3, 3, 3, 3, 3, 2, 2, 2], dtype=float)


def test_grid_qualities_by_hand():
    q = grid_split_qualities(TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 0, 10, "max")
    np.testing.assert_array_equal(q, TOY_MAX)
    # a node's interval: only its interior points; the rows are the node's rows
    # rows 5, 5, 7 of classes 0, 0, 1 in the interval (2, 10): i = 3..9
    inner = grid_split_qualities(TOY_VALUES[1:], [0, 0, 1], 2, TOY_GRID, 2, 10, "max")
    np.testing.assert_array_equal(inner, [2, 2, 3, 3, 2, 2, 2])
    # the same as the brute-force tables for every criterion
    for name in ("gini", "infogain", "max"):
        q = grid_split_qualities(TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 0, 10, name)
        crit = get_criterion(name)
        for i, qi in zip(range(1, 10), q, strict=True):
            left = TOY_VALUES <= TOY_GRID[i]
            table = np.array(
                [[np.sum(left & (TOY_LABELS == c)) for c in (0, 1)],
                 [np.sum(~left & (TOY_LABELS == c)) for c in (0, 1)]]
            )
            assert qi == pytest.approx(crit.quality(table))
    with pytest.raises(InvalidParameterError, match="interval"):
        grid_split_qualities(TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 5, 11, "max")


def test_grid_probabilities_are_the_softmax():
    eps = 2.0
    indices, p = split_point_grid_probabilities(
        TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 0, 10,
        criterion="max", sensitivity=1.0, epsilon=eps,
    )
    np.testing.assert_array_equal(indices, np.arange(1, 10))
    w = np.exp(eps * TOY_MAX / 2)
    np.testing.assert_allclose(p, w / w.sum())
    _, exact = split_point_grid_probabilities(
        TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 0, 10,
        criterion="max", sensitivity=1.0, epsilon=math.inf,
    )
    np.testing.assert_array_equal(exact, np.eye(9)[3])  # the middle of the tied run 2..6: 4


def test_grid_sampler_matches_its_exact_distribution():
    eps, n = 2.0, 20_000
    rng = np.random.default_rng(2024)
    points = np.array(
        [
            choose_split_point(
                TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 0, 10,
                criterion="max", sensitivity=1.0, epsilon=eps, rng=rng,
            )
            for _ in range(n)
        ]
    )
    assert np.isin(points, TOY_GRID[1:-1]).all()  # exactly the public doubles
    indices, p = split_point_grid_probabilities(
        TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 0, 10,
        criterion="max", sensitivity=1.0, epsilon=eps,
    )
    observed = np.array([(points == TOY_GRID[i]).sum() for i in indices])
    assert observed.sum() == n
    assert stats.chisquare(observed, p * n).pvalue > P_MIN  # 8 degrees of freedom


def test_shipped_path_matches_the_exact_distribution():
    """private_split_point on a PrivateTable draws from split_point_grid_probabilities."""
    eps, n = 2.0, 10_000
    domain = Domain([Numeric("x", 0.0, 10.0)], (0, 1))
    codes = TOY_VALUES[:, None]
    rng = np.random.default_rng(7)
    indices = np.empty(n, dtype=np.int64)
    for s in range(n):
        table = PrivateTable.from_encoded(codes, TOY_LABELS, domain=domain, epsilon=eps, rng=rng)
        point, indices[s] = private_split_point(
            table, "x", (0, 10), criterion="max", sensitivity=1.0, epsilon=eps, n_cells=10
        )
        assert point == TOY_GRID[indices[s]]
    candidates, p = split_point_grid_probabilities(
        TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 0, 10,
        criterion="max", sensitivity=1.0, epsilon=eps,
    )
    observed = np.array([(indices == i).sum() for i in candidates])
    assert observed.sum() == n
    assert stats.chisquare(observed, p * n).pvalue > P_MIN


def test_shipped_path_ledger_and_exact_reference():
    domain = Domain([Numeric("x", 0.0, 10.0)], (0, 1))
    table = PrivateTable.from_encoded(
        TOY_VALUES[:, None], TOY_LABELS, domain=domain, epsilon=1.0, rng=0
    )
    private_split_point(table, "x", (0, 10), criterion="max", sensitivity=1.0, epsilon=0.25,
                        n_cells=10)
    entry = table.ledger.entries[-1]
    assert (entry.label, entry.mechanism, entry.epsilon) == (LABEL_POINT, POINT_MECHANISM, 0.25)
    assert table.ledger.spent == pytest.approx(0.25)
    # the non-private reference: the middle of the best run (grid points 2..6 tie)
    exact = PrivateTable.from_encoded(
        TOY_VALUES[:, None], TOY_LABELS, domain=domain, epsilon=math.inf, rng=0
    )
    point, index = private_split_point(
        exact, "x", (0, 10), criterion="gini", sensitivity=2.0, epsilon=math.inf, n_cells=10
    )
    assert (point, index) == (4.0, 4)
    assert exact.ledger.entries[-1].label == LABEL_POINT
    value = choose_split_point(
        TOY_VALUES, TOY_LABELS, 2, TOY_GRID, 0, 10,
        criterion="gini", sensitivity=2.0, epsilon=math.inf, rng=np.random.default_rng(0),
    )
    assert value == 4.0
    with pytest.raises(InvalidParameterError, match="interior"):
        private_split_point(table, "x", (3, 4), criterion="max", sensitivity=1.0,
                            epsilon=0.1, n_cells=10)


# ============================================================================ the estimators
def _thresholds(model):
    """(attribute, released value) of every split point in the fitted tree."""
    return [(a, v) for node in model.tree_.nodes() for a, v in node.split_points.items()]


def _check_on_grid(model, domain, n_cells):
    released = _thresholds(model)
    assert released
    for name, value in released:
        attribute = domain[name]
        grid = split_grid(attribute.low, attribute.high, n_cells)
        assert np.isin(value, grid[1:-1]), (name, value)
    for node in model.tree_.nodes():
        if node.threshold is not None:
            assert node.threshold == node.split_points[node.attribute]


@pytest.mark.parametrize("n_cells", [DEFAULT_SPLIT_CELLS, 7])
def test_fitted_thresholds_are_grid_points(n_cells):
    data = fs_numeric_split_data(3000, n_test=0, random_state=2)
    model = DiffPC45Classifier(
        20.0, max_depth=4, criterion="gini", n_split_cells=n_cells, domain=data.domain,
        random_state=1,
    ).fit(data.X, data.y)
    _check_on_grid(model, data.domain, n_cells)
    # nested splits on one attribute stay strictly inside the parent's interval
    def walk(node, bounds):
        if node.threshold is not None:
            low, high = bounds.get(node.attribute, (-math.inf, math.inf))
            assert low < node.threshold < high
            left, right = node.children
            walk(left, {**bounds, node.attribute: (low, node.threshold)})
            walk(right, {**bounds, node.attribute: (node.threshold, high)})
        else:
            for child in node.children:
                walk(child, bounds)
            for a, v in node.split_points.items():
                low, high = bounds.get(a, (-math.inf, math.inf))
                assert low < v < high

    walk(model.tree_.root, {})
    # the ledger: one split-point query per numeric attribute at the root, at the node's ε
    frame = model.ledger_.to_frame()
    points = frame[frame["label"] == LABEL_POINT]
    assert set(points["mechanism"]) == {POINT_MECHANISM}
    np.testing.assert_allclose(points["epsilon"], model.epsilon_)
    assert (points["depth"] == 0).sum() == 3
    assert model.ledger_.spent <= 20.0 * (1 + 1e-9)


def test_adult_thresholds_are_grid_points():
    try:
        adult = dpviz.load("adult", download=False)
    except Exception as exc:  # pragma: no cover - data cache missing
        pytest.skip(f"UCI data not available: {exc}")
    X, y = adult.X.iloc[:6000], adult.y.iloc[:6000]
    model = DiffPC45Classifier(
        50.0, max_depth=5, domain=adult.domain, random_state=3
    ).fit(X, y)
    _check_on_grid(model, adult.domain, DEFAULT_SPLIT_CELLS)
    assert len(_thresholds(model)) > 20


def test_exact_reference_takes_the_best_grid_point():
    domain = Domain([Numeric("x", 0.0, 100.0)], (0, 1))
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 100, 500)
    X = pd.DataFrame({"x": x})
    y = (x > 61.3).astype(int)
    model = DiffPID3Classifier(math.inf, max_depth=1, domain=domain, random_state=0).fit(X, y)
    grid = split_grid(0.0, 100.0, DEFAULT_SPLIT_CELLS)
    below, above = x[x <= 61.3].max(), x[x > 61.3].min()
    best = grid[(grid >= below) & (grid < above)]  # every such grid point splits perfectly
    assert best.size >= 1
    assert model.tree_.root.threshold == best[(best.size - 1) // 2]
    assert model.score(X, y) == 1.0


def test_n_split_cells_parameter():
    model = DiffPC45Classifier(1.0)
    assert model.get_params()["n_split_cells"] == DEFAULT_SPLIT_CELLS
    assert DiffPID3Classifier(n_split_cells=12).get_params()["n_split_cells"] == 12
    assert clone(DiffPC45Classifier(n_split_cells=9)).n_split_cells == 9
    data = fs_numeric_split_data(300, n_test=0, random_state=0)
    for bad in (1, 0, 2.5, "64", None):
        with pytest.raises(InvalidParameterError, match="n_split_cells"):
            DiffPC45Classifier(1.0, n_split_cells=bad, domain=data.domain).fit(data.X, data.y)


def test_no_estimator_uses_the_continuous_sampler():
    data = fs_numeric_split_data(1000, n_test=0, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotProvenPrivateWarning)
        DiffPC45Classifier(1.0, max_depth=3, domain=data.domain, random_state=0).fit(
            data.X, data.y
        )


# ============================================================ the laws behind the suite's rows
# Finding 3: public range [0, 1e6], D = {1}, D' = {1, 2}, one class, Max (S = 1), ε = 1.
LOW, HIGH = 0.0, 1e6
D = (np.array([1.0]), np.zeros(1, dtype=np.int64))
D_PRIME = (np.array([1.0, 2.0]), np.zeros(2, dtype=np.int64))


def test_the_grid_path_has_one_law_on_both_neighbours():
    """One class: every candidate has the same quality under D and D', so the two output
    distributions are equal (exact privacy loss 0), uniform over the 255 grid points. (The
    audit of the shipped grid path on these neighbours is the claims suite's grid-lattice row.)
    """
    grid = split_grid(LOW, HIGH, DEFAULT_SPLIT_CELLS)
    for values, labels in (D, D_PRIME):
        _, p = split_point_grid_probabilities(
            values, labels, 1, grid, 0, DEFAULT_SPLIT_CELLS,
            criterion="max", sensitivity=1.0, epsilon=1.0,
        )
        np.testing.assert_allclose(p, 1 / 255)


def test_the_grid_path_at_4_epsilon_loses_more_than_epsilon_and_at_2_epsilon_does_not():
    """The exact law of the claims suite's grid row and its planted bug (the path at 4ε): the
    audit of the suite must refute the bug, and this is why it can.

    Why 4ε, not 2ε: under add/remove-one-row neighbours every FS quality moves in one
    direction (Max: each q_i grows by 0 or 1 when a row is added), so the exponential
    mechanism with exp(ε q / 2S) loses at most ε/2 (Dwork & Roth 2014, §3.4). Run at 2ε its
    loss is at most ε, and no audit can refute the claim ε; at 4ε it is up to 2ε.

    Neighbours (two classes): D = {(1, c0), (b, c1)}, D' = D + {(0.5, c1)}, b between the
    grid points 200 and 201. Under D the candidates below b split perfectly (q = 2) and
    those from grid[201] up do not (q = 1); the added row raises exactly the latter to 2.
    So P_D'(x >= grid[201]) / P_D(x >= grid[201]) = (55 + 200 e^{ε/2}) / 255.
    """
    epsilon, run = 1.0, 4.0
    grid = split_grid(LOW, HIGH, DEFAULT_SPLIT_CELLS)
    b = (grid[200] + grid[201]) / 2
    d = (np.array([1.0, b]), np.array([0, 1]))
    d_prime = (np.array([1.0, b, 0.5]), np.array([0, 1, 1]))

    def exact(eps):
        return [
            split_point_grid_probabilities(
                v, y, 2, grid, 0, DEFAULT_SPLIT_CELLS,
                criterion="max", sensitivity=1.0, epsilon=eps,
            )[1]
            for v, y in (d, d_prime)
        ]

    # exact losses over all events: the largest single-point log ratio
    p, q = exact(2 * epsilon)
    assert np.abs(np.log(q / p)).max() <= epsilon  # 2ε: within the claim (see docstring)
    p, q = exact(run)
    loss = np.abs(np.log(q / p)).max()
    assert loss == pytest.approx(math.log((55 + 200 * math.exp(run / 2)) / 255))
    assert loss > 1.7 * epsilon
