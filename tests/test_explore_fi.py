"""Notebook 05's library side: the FI explorer over a grid of slider values, the addendum's Table 6,
the smooth-sensitivity loss and the budget-split lessons (exercises: tests/test_fi_exercises.py)."""

import math
from functools import partial

import numpy as np
import pandas as pd
import pytest

from dpviz import mechanisms
from dpviz.errors import InvalidParameterError
from dpviz.experiments import holdout_accuracy
from dpviz.experiments import reproduce_fi as rf
from dpviz.explore import fi
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.random_tree import FI_TABLE4


def _forest(random_state, domain, depth, **params):
    return DPRandomForestClassifier(
        domain=domain, max_depth=depth, random_state=random_state, **params
    )


# ---------------------------------------------------------------------------------- explorer
@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize(
    ("name", "epsilon", "mechanism", "disjoint"),
    [
        ("SynthA", 1.0, "rosnam", True),
        ("SynthA", 0.1, "exponential", True),
        ("SynthA", math.inf, "rosnam", False),
        ("Nursery", 0.5, "smooth_sensitivity", True),
    ],
)
def test_fast_accuracy_equals_the_estimators_predict(name, epsilon, mechanism, disjoint):
    data = fi.explorer_dataset(name)
    depth = fi.explorer_depth(name)
    expected = holdout_accuracy(
        partial(_forest, domain=data.domain, depth=depth),
        data,
        repeats=2,
        test_size=fi.TEST_ROWS,
        seed=0,
        epsilon=epsilon,
        n_trees=20,
        leaf_mechanism=mechanism,
        disjoint=disjoint,
    )["accuracy"].tolist()
    ours = [fi.forest_accuracy(name, epsilon, depth, 20, mechanism, r, disjoint) for r in range(2)]
    assert ours == expected


def _layers(chart):
    _band, line, reference, highlight = chart.layer
    return line.data, float(reference.data["accuracy"].iloc[0]), highlight.data


def _check_chart(chart, epsilon):
    summary, reference, highlight = _layers(chart)
    assert set(summary.columns) >= {"epsilon", "mean", "low", "high", "runs"}
    assert summary["mean"].between(0, 1).all() and reference <= 1 and reference >= 0
    assert (summary["low"] <= summary["mean"] + 1e-12).all()
    assert (summary["mean"] <= summary["high"] + 1e-12).all()
    assert (summary["runs"] == fi.REPEATS).all()
    assert highlight["epsilon"].tolist() == [epsilon]
    assert epsilon in summary["epsilon"].tolist()
    assert set(fi.EPSILON_GRID) <= set(summary["epsilon"])
    chart.to_dict()  # a valid Vega-Lite 5 spec
    return summary, reference


@pytest.mark.parametrize("name", fi.EXPLORER_DATASETS)
def test_explorer_every_dataset(name):
    chart = fi.fi_explorer_chart(name, 0.3, 0, 10, "rosnam")
    summary, _ = _check_chart(chart, 0.3)
    # ε = 10 against ε = 0.01 (a near coin flip per leaf): a large, reliable gain on every data set
    by = summary.set_index("epsilon")["mean"]
    assert by[10.0] > by[0.01] + 0.05, by


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 10.0])
@pytest.mark.parametrize("depth", [0, 3])
@pytest.mark.parametrize("n_trees", [1, 30])
@pytest.mark.parametrize("mechanism", ["rosnam", "smooth_sensitivity"])
def test_explorer_grid(epsilon, depth, n_trees, mechanism):
    chart = fi.fi_explorer_chart("SynthA", epsilon, depth, n_trees, mechanism)
    _check_chart(chart, epsilon)
    title = chart.layer[0].title.text
    assert f"depth {depth or 5}" in title and f"{n_trees} trees" in title


def test_explorer_defaults_more_epsilon_is_better_and_reference_on_top():
    chart = fi.fi_explorer_chart()
    summary, reference = _check_chart(chart, 1.0)
    by = summary.set_index("epsilon")["mean"]
    # monotone in ε up to the noise of 3 forests. Over 30 seeds one forest scores 0.54 ± 0.08
    # (sd) at ε = 0.01, 0.78 ± 0.04 at 0.1, 0.835 ± 0.014 at 1, 0.838 ± 0.012 at 10, and the
    # non-private reference 0.839 ± 0.015: every bound sits over 3 standard deviations of a
    # 3-forest mean (or of its difference to another mean or to the reference) away
    assert by[0.01] < by[0.1] < by[1.0] + 0.02
    assert by[1.0] > 0.75 and by[0.01] < 0.70
    assert by[10.0] < reference + 0.05


def test_explorer_rejects_unknown_inputs():
    with pytest.raises(InvalidParameterError, match="mechanism"):
        fi.fi_explorer_chart(mechanism="laplace")
    with pytest.raises(InvalidParameterError, match="dataset"):
        fi.explorer_dataset("Iris")


def test_explorer_depth_default_is_fi_table4():
    assert fi.explorer_depth("SynthC") == 12 and fi.explorer_depth("Nursery") == 4
    assert fi.explorer_depth("Mushroom") == 11 and fi.explorer_depth("SynthC", 6) == 6


# ---------------------------------------------------------------------------------- tables
def test_table6_reproduces_the_addendum_and_names_the_softmax():
    table = fi.fi_table6()
    assert np.allclose(table["original"], table["original_paper"], atol=0.1)
    assert np.allclose(table["softmax"], table["new_paper"], atol=0.05)
    # counts 5, 10 at ε = 0.1: noisy arg-max P(B) = 1 - e^{-0.5}/2
    assert table["noisy_argmax"].iloc[0] == pytest.approx(100 * (1 - math.exp(-0.5) / 2))


def test_table4_explained():
    table = rf.fi_table4_explained()
    assert (table["ours"] == table["paper"]).all()
    continuous_only = (table["continuous"] > 0) & (table["discrete"] == 0)
    assert (table.loc[continuous_only, "theorem2"] == table.loc[continuous_only, "paper"] - 1).all()
    assert len(table) == len(FI_TABLE4)


def test_reproduction_settings_and_tables():
    quick, full = fi.reproduction_settings(True), fi.reproduction_settings(False)
    assert quick["n_rows"] == 6000 and full["n_rows"] is None and len(full["datasets"]) == 7
    assert "QUICK" not in fi.describe_settings(quick) and "2-fold" in fi.describe_settings(quick)
    frame = pd.DataFrame(
        {
            "dataset": ["SynthA", "SynthA", "SynthB", "SynthB"],
            "setting": ["rosnam", "exponential"] * 2,
            "mean": [80.0, 70.0, 75.0, 65.0],
            "paper": [np.nan, 72.6, np.nan, 66.8],
        }
    )
    wide = fi.side_by_side(frame)
    assert list(wide.columns) == ["rosnam", "exponential", "exponential FI"]
    spec = fi.paper_chart(frame, title="t").to_dict()
    # the axis starts at 40 %: every layer is clipped to the plot (issue 13: bars spilled
    # below the axis, over the data-set names)
    for layer in spec["layer"]:
        assert layer["mark"]["clip"] is True
        domain = layer["encoding"]["y"].get("scale", {}).get("domain")
        assert domain in (None, [40, 100])


# ---------------------------------------------------------------------------------- lessons
def test_smooth_sensitivity_loss_matches_the_closed_form_and_rosnam_is_tight():
    loss = fi.smooth_sensitivity_loss_table(epsilons=(0.5, 1.0), gaps=(0, 1, 2, 4))
    for row in loss.itertuples():
        if row.mechanism == "rosnam":
            assert row.loss == pytest.approx(row.epsilon)  # pure leaf: exactly ε
            continue
        r = [row.epsilon / 2 * math.exp(k * row.epsilon) for k in (row.j, row.j + 1)]
        # the minority's probability 1/(1 + e^r) falls (at j = 0 both labels tie at 1/2)
        before = math.log(2) if row.j == 0 else math.log1p(math.exp(r[0]))
        expected = math.log1p(math.exp(r[1])) - before
        assert row.loss == pytest.approx(expected, rel=1e-9)
    fi.loss_chart(loss).to_dict()


def test_exact_loss_agrees_with_the_mechanisms_probabilities():
    d, d_prime = np.array([3, 1, 0]), np.array([3, 2, 0])
    p = mechanisms.report_noisy_max_probabilities(d, epsilon=0.7)
    q = mechanisms.report_noisy_max_probabilities(d_prime, epsilon=0.7)
    expected = np.max(np.abs(np.log(p / q)))
    assert fi.leaf_label_loss("rosnam", 0.7)(d, d_prime) == pytest.approx(expected)
    assert fi.leaf_label_loss("rosnam", 0.7)(d, d_prime) <= 0.7 + 1e-12
    assert fi.leaf_label_loss("exponential", 0.7)(d, d_prime) <= 0.7 + 1e-12
    with pytest.raises(InvalidParameterError):
        fi.leaf_label_loss("laplace", 1.0)(d, d_prime)


def test_budget_split_table():
    table = fi.budget_split_table(epsilon=1.0, n_trees=100)
    assert table["loss"].tolist() == pytest.approx([1.0, 1.0, 100.0])
    assert table["trees_reading_the_row"].tolist() == [1, 100, 100]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_independent_assignment_changes_one_tree_and_equal_split_many(seed):
    table = fi.assignment_changes(n_rows=3000, n_trees=50, seed=seed).set_index("scheme")
    independent = table.loc["independent per row (dpviz)"]
    assert independent["rows_that_move"] == 0 and independent["trees_changed"] == 1
    assert table.loc["sort and cut into equal parts", "trees_changed"] > 5


# ---------------------------------------------------------------------------------- ranges
def test_controls_ranges_are_the_documented_ones():
    controls = fi.fi_controls()
    assert [v for _, v in controls["depth"].options] == list(fi.DEPTHS)
    assert [v for _, v in controls["n_trees"].options] == list(fi.TREES)
    assert (fi.DEPTHS[0], fi.DEPTHS[-1], fi.TREES[0], fi.TREES[-1]) == (0, fi.MAX_DEPTH, 1,
                                                                       fi.MAX_TREES)
    # the settings the notebook names are stops: depth 0 and 6 on SynthC, 1, 10 and 50 trees
    assert {0, 6} <= set(fi.DEPTHS) and {1, 10, 50} <= set(fi.TREES)
    with pytest.raises(InvalidParameterError, match="n_trees must be one of"):
        fi.fi_controls(n_trees=7)
    assert 10 ** controls["epsilon"].min == pytest.approx(0.01)
    assert 10 ** controls["epsilon"].max == pytest.approx(10.0)
    assert list(controls["dataset"].options) == list(fi.EXPLORER_DATASETS)
    assert list(controls["mechanism"].options) == list(fi.LEAF_MECHANISMS)
    values = {name: w.value for name, w in controls.items()}
    assert values == {"dataset": "SynthA", "epsilon": 1.0, "depth": 0, "n_trees": fi.MAX_TREES,
                      "mechanism": "rosnam"}
    # FI's own depth of every data set (depth 0) is within the slider's range
    assert max(fi.explorer_depth(name) for name in fi.EXPLORER_DATASETS) <= fi.MAX_DEPTH


@pytest.mark.parametrize(("depth", "n_trees"), [(1, 1), (fi.MAX_DEPTH, fi.MAX_TREES)])
def test_explorer_at_the_ends_of_the_ranges(depth, n_trees):
    specs = []
    for epsilon in (0.01, 10.0):
        chart = fi.fi_explorer_chart("SynthA", epsilon, depth, n_trees, "rosnam")
        _check_chart(chart, epsilon)
        assert f"depth {depth}, {n_trees} trees" in chart.layer[0].title.text
        specs.append(chart.to_dict())
    assert specs[0] != specs[1]  # the slider's ε is drawn: a move changes the chart


def test_every_stop_ships_and_the_shipped_forests_are_the_live_ones():
    for name in fi.EXPLORER_DATASETS:
        table = fi._shipped_curves(name)
        depths = {fi.explorer_depth(name, d) for d in fi.DEPTHS}
        assert set(table) == {(d, t, e, r) for d in depths for t in fi.TREES
                              for e in fi.EPSILON_GRID for r in range(fi.REPEATS)}
    for mechanism in fi.LEAF_MECHANISMS:
        shipped = fi.explorer_frame("Nursery", (0.01, 3.0), 6, 5, mechanism)
        fresh = fi.explorer_frame("Nursery", (0.01, 3.0), 6, 5, mechanism, shipped=False)
        pd.testing.assert_frame_equal(shipped, fresh, check_exact=True)
    assert fi._shipped_references("Nursery")[6, 5] / fi.TEST_ROWS == fi.forest_accuracy(
        "Nursery", math.inf, 6, 5, "rosnam", 0, False)
    read = fi.fi_explorer_chart("Nursery", 3.0, 6, 5).layer[0].title.subtitle[-1]
    assert read == "read from the shipped grid made by make results (fi.fi_curves)"
    point = fi.fi_explorer_chart("Nursery", 0.2, 6, 5).layer[0].title.subtitle[-1]
    assert point.endswith("the forests at ε = 0.2 fitted now")
    assert fi.fi_explorer_chart("Nursery", 0.2, 7, 5).layer[0].title.subtitle[-1] == (
        "every forest fitted now")
