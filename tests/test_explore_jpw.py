"""Notebook 02's library side (JPW, Private-RDT): the explorer callback over a grid of slider
values, the widgets, the reproduction tables and the pruning demo (its exercises:
test_jpw_exercises.py)."""

import json
import math
from functools import partial

import altair as alt
import numpy as np
import pandas as pd
import pytest

from dpviz.data.uci import load
from dpviz.experiments import holdout_accuracy
from dpviz.experiments.reproduce_jpw import make_private_rdt
from dpviz.explore import jpw
from dpviz.ui.widgets import explorer


@pytest.fixture
def short_curve(monkeypatch):
    # two ε on the cached curve instead of seven keep the grid fast; the callback is the same
    monkeypatch.setattr(jpw, "EXPLORER_EPSILONS", (0.1, 1.0))


def _data(chart, i):
    data = chart.layer[i].data
    return chart.data if data is alt.Undefined else data


GRID = [
    ("nursery", 2, 1),
    ("nursery", 4, 10),
    ("nursery", None, None),
    ("votes", 3, 5),
    ("votes", None, None),
    ("mushroom", 3, 2),
]


@pytest.mark.parametrize(("dataset", "depth", "n_trees"), GRID)
@pytest.mark.parametrize("epsilon", [0.05, 1.0, 7.0])
def test_explorer_chart_over_the_grid(short_curve, dataset, depth, n_trees, epsilon):
    chart = jpw.jpw_explorer_chart(dataset, epsilon, depth, n_trees)
    spec = chart.to_dict()
    assert "layer" in spec
    summary = _data(chart, 0)
    assert ((summary["mean"] >= 0) & (summary["mean"] <= 1)).all()
    assert (summary["low"] <= summary["mean"] + 1e-12).all()
    assert (summary["high"] >= summary["mean"] - 1e-12).all()
    assert (summary["runs"] == jpw.REPEATS).all()
    # the slider's ε is on the curve and highlighted; ε = ∞ is the reference, not a point
    assert np.isclose(summary["epsilon"], epsilon).sum() == 1
    assert np.isfinite(summary["epsilon"]).all()
    assert _data(chart, 3)["epsilon"].tolist() == [epsilon]
    reference = _data(chart, 2)["accuracy"].iloc[0]
    assert 0.3 < reference <= 1  # majority class: 33% on Nursery, 61% on Votes
    expected = (*jpw.EXPLORER_EPSILONS, epsilon) if epsilon not in jpw.EXPLORER_EPSILONS else (
        jpw.EXPLORER_EPSILONS)
    assert sorted(summary["epsilon"]) == pytest.approx(sorted(expected))
    if depth is None:
        defaults = jpw.explorer_defaults(dataset)
        assert f"height {defaults['depth']}, {defaults['n_trees']} trees" in json.dumps(
            spec, ensure_ascii=False)


def test_more_epsilon_is_more_accurate(monkeypatch):
    # Nursery at the defaults: ~0.4 at ε = 0.05, ~0.89 at ε = 5 and ~0.9 without noise; the
    # spread over 3 fits is a few points, far below these gaps
    monkeypatch.setattr(jpw, "EXPLORER_EPSILONS", (0.05, 5.0))
    mean = jpw.explorer_curve("nursery", 4, 10).groupby("epsilon")["accuracy"].mean()
    low, high, exact = mean[0.05], mean[5.0], mean[math.inf]
    assert low + 0.2 < high <= exact + 0.03


def test_defaults_are_the_papers():
    assert jpw.explorer_defaults("nursery") == {"depth": 4, "n_trees": 10}
    assert jpw.explorer_defaults("mushroom") == {"depth": 10, "n_trees": 10}
    assert jpw.explorer_defaults("votes") == {"depth": 8, "n_trees": 5}
    with pytest.raises(ValueError, match="dataset"):
        jpw.explorer_defaults("adult")


def test_controls_reset_depth_and_trees_once(short_curve):
    calls = []

    def callback(**values):
        calls.append(values)
        return alt.Chart(pd.DataFrame({"x": [1]})).mark_point()

    controls = jpw.jpw_controls()
    assert controls["epsilon"].value == 1.0 and controls["depth"].value == 4
    explorer(callback, controls)
    # one move, one redraw (it was 3 for Votes: depth, trees, then the picker itself), and it
    # sees the new data set with its own defaults
    for name in ("votes", "mushroom", "nursery"):
        del calls[:]
        controls["dataset"].value = name
        assert calls == [{"dataset": name, "epsilon": 1.0, **jpw.explorer_defaults(name)}]
    controls["depth"].value = 2
    assert len(calls) == 2 and calls[-1]["depth"] == 2


def _fake_accuracy():
    rows = []
    table = {
        "nursery": (86.9, 88.8, 89.4, 90.4),
        "mushroom": (97.1, 98.4, 99.0, 99.7),
        "votes": (80.4, 83.5, 85.0, 92.2),
    }
    for name, means in table.items():
        for eps, mean in zip((0.5, 0.75, 1.0, math.inf), means, strict=True):
            rows.append({"dataset": name, "epsilon": eps, "mean": mean, "std": 1.0,
                         "max": mean + 1, "runs": 10})
    return pd.DataFrame(rows)


def test_accuracy_and_claims_tables():
    results = _fake_accuracy()
    wide = jpw.accuracy_table(results)
    assert list(wide.index) == ["nursery", "mushroom", "votes"]
    assert wide.loc["votes", ("mean", "∞")] == 92.2 and wide.loc["votes", ("max", "0.5")] == 81.4
    claims = jpw.claims_table(results)
    assert claims["holds"].all()
    flipped = results.copy()
    flipped.loc[(flipped["dataset"] == "mushroom") & (flipped["epsilon"] == 0.5), "mean"] = 80.0
    assert not jpw.claims_table(flipped)["holds"].all()
    jpw.accuracy_figure(results).to_dict()


def test_update_table():
    rows = [
        {"dataset": "nursery", "epsilon": e, "method": m, "mean": v, "std": 0.0, "max": v,
         "runs": 1, "total_epsilon": e * (2 if m == "union" else 1)}
        for e in (0.5, 1.0)
        for m, v in (("update", 80.0), ("union_half", 75.0), ("union", 85.0))
    ]
    table = jpw.update_table(pd.DataFrame(rows))
    assert table["update − union ε/2"].tolist() == [5.0, 5.0]
    assert table["update − union ε"].tolist() == [-5.0, -5.0]


def test_small_tables():
    id3 = jpw.private_id3_noise()
    assert id3.loc[id3["dataset"] == "mushroom", "epsilon_per_query"].iloc[0] == pytest.approx(
        0.0037, abs=1e-4)  # JPW §III: "approximately 0.0037"
    leaves = jpw.leaf_vector_table(n_trees=3).set_index("dataset")
    assert leaves.loc["nursery", "height"] == 4 and leaves.loc["votes", "mean_leaves"] == 256
    assert leaves.loc["mushroom", "rows_per_leaf"] < 0.01  # almost every leaf is empty
    assert (leaves["mean_leaves"] <= leaves["max_leaves"] * 1.5).all()


def test_pruning_demo_and_audits():
    demo = jpw.pruning_demo().set_index(["model", "data"])["leaves released"]
    assert demo[("RDT with pruning (Fig. 1)", "D")] == 2
    assert demo[("RDT with pruning (Fig. 1)", "D′")] == 3
    assert demo[("Private-RDT (Fig. 5)", "D")] == demo[("Private-RDT (Fig. 5)", "D′")] == 4
    leak = jpw.pruning_audit(n_samples=100)
    assert leak.reject and min(leak.p.count, leak.p_prime.count) == 0
    private = jpw.private_leaf_audit(n_samples=20_000)
    assert not private.reject


def test_accuracy_figure_labels_infinity_upright():
    # a rotated "∞" reads as "8": the ε labels stay horizontal and the title names ε = ∞
    spec = jpw.accuracy_figure(_fake_accuracy()).to_dict()
    x = spec["spec"]["encoding"]["x"]
    assert x["axis"]["labelAngle"] == 0
    assert x["sort"][-1] == "∞" and "∞: no noise" in x["title"]


# ---------------------------------------------------------------------------------- ranges
@pytest.mark.parametrize(("dataset", "depth", "n_trees"),
                         [("nursery", 4, 10), ("votes", 8, 5), ("mushroom", 6, 3)])
def test_curve_equals_holdout_accuracy(short_curve, dataset, depth, n_trees):
    # the explorer's fast path (rows encoded once, test rows routed once per tree structure)
    # gives exactly the accuracy of the estimator's predict on holdout_accuracy's split
    data = load(dataset)
    expected = pd.concat(
        [holdout_accuracy(partial(make_private_rdt, domain=data.domain), data,
                          repeats=jpw.REPEATS, epsilon=eps, max_depth=depth, n_trees=n_trees)
         for eps in (*jpw.EXPLORER_EPSILONS, math.inf)], ignore_index=True)
    pd.testing.assert_frame_equal(jpw.explorer_curve(dataset, depth, n_trees), expected)


def test_controls_ranges_are_the_documented_ones():
    controls = jpw.jpw_controls()
    assert (controls["depth"].min, controls["depth"].max) == (1, jpw.MAX_DEPTH["nursery"])
    assert (controls["n_trees"].min, controls["n_trees"].max) == (1, jpw.MAX_TREES)
    assert 10 ** controls["epsilon"].min == pytest.approx(0.01)
    assert 10 ** controls["epsilon"].max == pytest.approx(10.0)
    for name in ("mushroom", "votes", "nursery"):
        controls["dataset"].value = name
        assert controls["depth"].max == jpw.depth_range(name) == jpw.MAX_DEPTH[name]
        # the paper's settings are within the ranges
        assert controls["depth"].value == jpw.explorer_defaults(name)["depth"] <= (
            jpw.MAX_DEPTH[name])
        assert controls["n_trees"].value == jpw.explorer_defaults(name)["n_trees"] <= jpw.MAX_TREES


@pytest.mark.parametrize("dataset", ["votes", "mushroom"])
def test_explorer_at_the_ends_of_the_ranges(short_curve, dataset):
    specs = []
    for depth, n_trees in ((1, 1), (jpw.depth_range(dataset), jpw.MAX_TREES)):
        for epsilon in (0.01, 10.0):
            chart = jpw.jpw_explorer_chart(dataset, epsilon, depth, n_trees)
            summary = _data(chart, 0)
            assert summary["mean"].between(0, 1).all() and (summary["runs"] == jpw.REPEATS).all()
            assert f"height {depth}, {n_trees} trees" in chart.layer[0].title.subtitle[0]
            specs.append(json.dumps(chart.to_dict(), sort_keys=True))
    assert len(set(specs)) == len(specs)  # every move changes the chart


@pytest.mark.parametrize(("dataset", "depth", "n_trees"), [("votes", 3, 5), ("mushroom", 10, 10),
                                                           ("nursery", 1, 7)])
def test_the_shipped_curves_are_the_live_fits(dataset, depth, n_trees):
    shipped = jpw._points(dataset, (0.05, 5.0, math.inf), depth, n_trees)
    assert (depth, n_trees, 0.05, 0) in jpw._shipped_curves(dataset)  # read, not fitted
    fitted = jpw._points(dataset, (0.05, 5.0, math.inf), depth, n_trees, shipped=False)
    pd.testing.assert_frame_equal(shipped, fitted, check_exact=True)
    chart = jpw.jpw_explorer_chart(dataset, 0.3, depth, n_trees)
    assert chart.layer[0].title.subtitle[1] == (  # the chart says what it read
        "curve read from the shipped grid made by make results (jpw.jpw_curves); "
        "the point at ε = 0.3 fitted now")


def test_every_slider_setting_ships():
    for dataset in jpw.JPW_DATASETS:
        table = jpw._shipped_curves(dataset)
        grid = jpw._slider_grid(dataset)
        assert {(d, t) for d, t, _, _ in table} == {
            (d, t) for d in grid["depths"] for t in grid["trees"]}
        assert len(table) == len(grid["depths"]) * jpw.MAX_TREES * 8 * jpw.REPEATS
