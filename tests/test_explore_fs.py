"""Notebook 03's library (dpviz.explore.fs): explorer callbacks over a grid, tables."""

import json
import math

import altair as alt
import numpy as np
import pandas as pd
import pytest

from dpviz.errors import InvalidParameterError
from dpviz.experiments import fs_runs, runner
from dpviz.experiments.reproduce_fs import fs_table1
from dpviz.explore import fs
from dpviz.trees.id3 import split_grid
from dpviz.trees.id3_quality import sensitivity_infogain
from dpviz.ui.tree_charts import tree_chart
from dpviz.ui.widgets import explorer


@pytest.fixture
def small_curve(monkeypatch):
    """A three-point curve and fresh caches, so that the grid stays fast."""
    monkeypatch.setattr(fs_runs, "EXPLORER_EPSILONS", (0.1, 1.0, 10.0))
    monkeypatch.setattr(runner, "_MEMORY", {})


def _layers(chart):
    """(summary, reference, highlight) frames of an accuracy chart."""
    summary = chart.layer[0].data
    reference = chart.layer[2].data
    highlight = chart.layer[3].data
    return summary, reference, highlight


def _check_explorer_chart(chart, dataset, eps):
    assert isinstance(chart, alt.LayerChart)
    summary, reference, highlight = _layers(chart)
    assert ((summary["low"] >= 0) & (summary["high"] <= 1)).all()
    assert summary["mean"].between(0, 1).all()
    assert 0 <= reference["accuracy"].iloc[0] <= 1
    assert highlight["epsilon"].iloc[0] == eps
    assert np.isclose(summary["epsilon"], eps).any()  # the fresh point joins the curve
    runs = summary.loc[np.isclose(summary["epsilon"], eps), "runs"].iloc[0]
    assert runs == fs_runs.REPEATS[dataset]
    spec = chart.to_dict()
    assert f"B = {eps:.3g}" in spec["title"]["text"]
    return spec


@pytest.mark.parametrize("dataset", fs_runs.EXPLORER_DATASETS)
@pytest.mark.parametrize("criterion", fs_runs.CRITERIA)
def test_explorer_chart_grid(small_curve, dataset, criterion):
    for eps in (0.05, 3.0):
        _check_explorer_chart(fs.fs_explorer_chart(dataset, eps, None, criterion), dataset, eps)


@pytest.mark.parametrize("dataset", ["fs-single-split", "nursery"])
def test_explorer_chart_depths(small_curve, dataset):
    for criterion in ("max", "sulq"):
        for depth in (2, 3):
            chart = fs.fs_explorer_chart(dataset, 0.5, depth, criterion)
            spec = _check_explorer_chart(chart, dataset, 0.5)
            assert f"depth {depth}" in spec["title"]["subtitle"][0]


def test_more_budget_is_not_worse(monkeypatch):
    # The ends of the real curves: at B = 10 every algorithm is at least as accurate as at B = 0.05,
    # on average over its fits (at 0.05 most trees are a leaf or a random split).
    monkeypatch.setattr(fs_runs, "EXPLORER_EPSILONS", (0.05, 10.0))
    monkeypatch.setattr(runner, "_MEMORY", {})
    for dataset in fs_runs.EXPLORER_DATASETS:
        for criterion in fs_runs.CRITERIA:
            curve = fs_runs.explorer_curve(dataset, criterion)
            mean = curve.groupby("epsilon")["accuracy"].mean()
            assert mean[10.0] >= mean[0.05] - 0.02, (dataset, criterion, mean)
            assert mean[math.inf] >= mean[0.05] - 0.02


def test_fs_single_split_curve_matches_table1():
    # Depth 1 on FS Table 1's data (2,000 rows): the non-private reference finds the split, and at
    # B = 0.1 Max finds it in every fit (P = 0.999) while SuLQ rarely does (P ≈ 0.1).
    for criterion in fs_runs.CRITERIA:
        curve = fs_runs.explorer_curve("fs-single-split", criterion)
        assert curve.loc[np.isinf(curve["epsilon"]), "accuracy"].iloc[0] == 1.0
    max_curve = fs_runs.explorer_curve("fs-single-split", "max")
    sulq_curve = fs_runs.explorer_curve("fs-single-split", "sulq")
    assert max_curve.loc[max_curve["epsilon"] == 0.1, "accuracy"].mean() > 0.99
    assert sulq_curve.loc[sulq_curve["epsilon"] == 0.1, "accuracy"].mean() < 0.8


@pytest.mark.parametrize("dataset", fs_runs.EXPLORER_DATASETS)
@pytest.mark.parametrize("criterion", fs_runs.CRITERIA)
def test_tree_chart_grid(dataset, criterion):
    for eps, run in ((0.1, 0), (5.0, 1)):
        chart = fs.fs_tree_chart(dataset, eps, None, criterion, run)
        assert isinstance(chart, alt.VConcatChart)
        _tree, ledger = chart.vconcat
        frame = ledger.data
        assert frame["charged"].sum() <= eps + 1e-9
        spec = chart.to_dict()
        assert "test accuracy" in spec["title"]["text"]


@pytest.mark.parametrize("dataset", fs_runs.EXPLORER_DATASETS)
@pytest.mark.parametrize("criterion", fs_runs.CRITERIA)
def test_budget_split_matches_the_ledger(dataset, criterion):
    model, accuracy, unclassified = fs_runs.fit_one(dataset, criterion, 2.0, 2)
    split = fs_runs.budget_split(dataset, criterion, 2.0, 2)
    assert math.isclose(model.epsilon_, split["level"])
    ledger = model.ledger_.to_frame()
    assert ledger["charged"].sum() <= 2.0 + 1e-9
    root = ledger[ledger["depth"] == 0]
    assert math.isclose(root["epsilon"].min(), split["split_epsilon"])
    if model.tree_.root.attribute is not None:  # the root split
        kinds = root[root["label"] != "node count"]
        assert len(kinds) == split["split_queries"]
    assert 0 <= accuracy <= 1 and 0 <= unclassified <= 1


def test_query_epsilons_sulq_share():
    table = fs_runs.query_epsilons("fs-single-split", 0.1, 1)
    sulq = table[table["algorithm"] == "SuLQ-based ID3"]
    counts = sulq[sulq["query"] != "node count"]
    assert np.allclose(counts["epsilon"], 0.1 / 4 / 20)  # FS §5.1.1: "a mere 0.00125"
    assert (counts["count_noise_std"] > 1000).all()  # "standard deviation over 1000"
    assert counts["queries"].sum() == 20
    diffp = table[table["algorithm"] != "SuLQ-based ID3"]
    assert np.allclose(diffp["epsilon"], 0.025)
    # each algorithm's root charges 2ε = 0.05 in all
    assert np.allclose(table.groupby("algorithm")["charged"].sum(), 0.05)


def test_split_choice_table_predicts_table1():
    table = fs_runs.split_choice_table()
    assert (table["expected_accuracy"] - table["paper"]).abs().max() < 4
    p = table.pivot(index="n", columns="criterion", values="p_true")
    assert ((p["max"] >= p["gini"]) & (p["gini"] >= p["infogain"])).all()
    assert p["infogain"].is_monotonic_increasing
    assert np.allclose(table.loc[table["criterion"] == "infogain", "sensitivity"],
                       sensitivity_infogain(5000))


def test_split_point_frame_and_chart():
    frame = fs_runs.split_point_frame(1000, budget=0.1)
    assert np.allclose(frame.groupby("criterion")["probability"].sum(), 1.0)
    mass = fs_runs.split_point_mass(frame, 30, 40)
    assert mass["max"] > mass["gini"] > mass["infogain"] > 0.1  # uniform would give 0.1
    assert math.isclose(fs_runs.split_point_mass(frame, 0, 100)["gini"], 1.0)
    chart = fs.split_point_chart(frame)
    assert chart.title.startswith("FS §4.3: the continuous density")  # the paper's idea
    binned = chart.data
    assert len(binned) == 300
    assert np.allclose(binned.groupby("criterion")["probability"].sum(), 1.0)
    chart.to_dict()


def test_stopping_table():
    table = fs_runs.stopping_table("adult", (0.5, 10.0), depth=3)
    assert (table["t"] == 41).all()  # native-country
    assert np.allclose(table["rows_needed"], 41 * 2 * math.sqrt(2) / table["epsilon"])
    first = table.iloc[0]
    assert first["rows_needed"] > first["training_rows"] and first["leaves"] == 1
    assert math.isclose(first["accuracy"], first["majority"])
    assert table.iloc[1]["leaves"] > 1


def test_pruning_table_is_free():
    table = fs_runs.pruning_table("nursery", 1.0, depth=4, runs=2)
    unpruned = table[~table["pruned"]].set_index("run")
    pruned = table[table["pruned"]].set_index("run")
    assert (unpruned["spent"] == pruned["spent"]).all()
    assert (pruned["leaves"] <= unpruned["leaves"]).all()
    with pytest.raises(InvalidParameterError):
        fs_runs.pruning_table("nursery", criterion="sulq")


def test_table1_helpers():
    runs = fs_runs.table1_runs(2, 1, sizes=(1000,))
    assert set(runs["algorithm"]) == set(fs_runs.ALGORITHM_NAMES.values()) | {"ID3"}
    assert runs.groupby("algorithm").size()["ID3"] == 1
    assert runs.groupby("algorithm").size()["DiffPID3-Max"] == 2
    table = fs.table1_table(runs)
    assert list(table.index) == [1000]
    assert table[("ID3", "paper")].iloc[0] == 90.1
    fs.table1_chart(runs).to_dict()
    frame = fs_table1(sizes=(1000, 2000), runs=1, algorithms=("DiffPID3-Max",))
    assert fs.table1_table(frame).shape == (2, 2)


def test_figure_helpers():
    fig4 = fs_runs.fig4_runs((500,), 1)
    fig5 = fs_runs.fig5_runs((500,), 1)
    for frame in (fig4, fig5):
        chart = fs.runs_chart(frame, title="t")
        summary = chart.data  # one data set for both layers: altair moves it to the top
        assert summary["mean"].between(0, 100).all()
    jpw = fs_runs.jpw_runs(1, datasets=("votes",))
    table = fs.jpw_table(jpw)
    assert set(table["dataset"]) == {"votes"}
    assert table["jpw_private"].iloc[0] == 2.5


def test_published_table1():
    text = fs.published_table1()
    assert text is None or "FS Table 1" in text


def test_a_data_set_switch_redraws_once():
    calls = []

    def callback(**values):
        calls.append(values)
        return alt.Chart(pd.DataFrame({"x": [1]})).mark_point()

    controls = fs.fs_controls()
    explorer(callback, controls)
    for name in ("nursery", "adult", "fs-single-split"):  # it was 2 runs per switch
        del calls[:]
        controls["dataset"].value = name
        assert [(c["dataset"], c["depth"]) for c in calls] == [
            (name, fs_runs.DEFAULT_DEPTH[name])]


def test_controls():
    controls = fs.fs_controls()
    assert set(controls) == {"dataset", "epsilon", "depth", "criterion"}
    assert controls["depth"].value == 1
    controls["dataset"].value = "nursery"
    assert controls["depth"].value == 3
    assert math.isclose(controls["epsilon"].value, 0.1)
    tree = fs.fs_tree_controls(criterion="sulq")
    assert tree["run"].value == 0 and tree["criterion"].value == "sulq"


def test_invalid_arguments():
    with pytest.raises(InvalidParameterError):
        fs.fs_explorer_chart("iris")
    with pytest.raises(InvalidParameterError):
        fs.fs_explorer_chart(criterion="entropy")
    with pytest.raises(InvalidParameterError):
        fs.fs_explorer_chart(epsilon=0)
    with pytest.raises(InvalidParameterError):
        fs.fs_tree_chart(run=-1)


def test_binned_adult_for_sulq():
    data = fs_runs.prepared("adult", binned=True)
    assert data.domain.categorical_mask.all()
    assert data.X_train.max(axis=0)[data.domain.index("age")] <= fs_runs.ADULT_BINS - 1
    plain = fs_runs.prepared("adult")
    assert not plain.domain.categorical_mask.all()
    assert np.array_equal(plain.y_train, data.y_train)


def test_prepared_is_cached_and_split():
    a = fs_runs.prepared("nursery")
    assert a is fs_runs.prepared("nursery")
    assert len(a.y_train) + len(a.y_test) == 12960
    train = pd.Series(a.y_train).value_counts(normalize=True)
    test = pd.Series(a.y_test).value_counts(normalize=True)
    assert (train - test).abs().max() < 0.01  # stratified


def test_split_point_grid_frame_and_chart():
    """The grid the estimators release: the same shape of distribution as the paper's density."""
    frame = fs_runs.split_point_grid_frame(1000, budget=0.1)
    continuous = fs_runs.split_point_frame(1000, budget=0.1)
    assert np.allclose(frame.groupby("criterion")["probability"].sum(), 1.0)
    assert len(frame) == 3 * 255  # interior points of [0, 100] in 256 cells
    np.testing.assert_array_equal(
        frame["threshold"].to_numpy()[:255], split_grid(0.0, 100.0, 256)[1:-1]
    )
    mass = fs_runs.split_point_mass(frame, 30, 40)
    assert mass["max"] > mass["gini"] > mass["infogain"] > 0.1
    # the grid is FS's density on a discretised output space: its mass on [30, 40] is close
    # to the continuous one (the grid has 26 of its 255 points there, 10.2% of a uniform
    # draw against 10%, and the score moves by at most one grid cell's worth of rows)
    paper = fs_runs.split_point_mass(continuous, 30, 40)
    assert ((mass - paper).abs() < 0.02).all()
    assert math.isclose(fs_runs.split_point_mass(frame, 0, 100)["gini"], 1.0)
    chart = fs.split_point_chart(frame)
    assert chart.title.startswith("dpviz: a point of the public grid (256 cells")
    assert np.allclose(chart.data.groupby("criterion")["probability"].sum(), 1.0)
    chart.to_dict()
    assert fs.split_point_chart(frame, title="mine").title == "mine"


def _json_strict(spec):
    """The spec as the widget protocol sends it: no NaN or inf (JSON has neither)."""
    return json.dumps(spec, allow_nan=False)


# Notebook 03 §4's widgets: every data set and criterion, B at the slider's ends and middle,
# depths 1 and 6 (and the default), runs 0 and 9.
TREE_SECTION_GRID = [(0.05, None, 0), (0.1, 1, 9), (1.0, 6, 3), (10.0, 2, 0)]


@pytest.mark.parametrize("dataset", fs_runs.EXPLORER_DATASETS)
@pytest.mark.parametrize("criterion", fs_runs.CRITERIA)
def test_tree_section_charts_are_json_and_the_ledger_bars_have_colours(dataset, criterion):
    for eps, depth, run in TREE_SECTION_GRID:
        chart = fs.fs_tree_chart(dataset, eps, depth, criterion, run)
        spec = chart.to_dict()
        _json_strict(spec)  # raises on NaN / inf: the widget's "Message serialization failed"
        for rows in spec["datasets"].values():
            for row in rows:
                for value in row.values():
                    assert not (isinstance(value, float) and not math.isfinite(value)), row
        # the two panels keep their own colour scales: the tree's (node kinds) would leave
        # the ledger's query labels without a colour, so its bars would not be drawn
        assert spec["resolve"]["scale"]["color"] == "independent"
        _tree, ledger_spec = spec["vconcat"]
        labels = set(pd.DataFrame(spec["datasets"][ledger_spec["data"]["name"]])["label"])
        assert labels, "the ledger chart has no bars"
        scale = ledger_spec["encoding"]["color"]["scale"]
        assert labels <= set(scale["domain"]) and len(scale["range"]) == len(scale["domain"])
        assert ledger_spec["encoding"]["color"]["field"] == "label"


def test_tree_chart_of_a_model_is_json():
    model, _, _ = fs_runs.fit_one("nursery", "max", 1.0, 3)
    _json_strict(tree_chart(model).to_dict())
    _json_strict(tree_chart(model, show_pruned=False).to_dict())


# ---------------------------------------------------------------------------------- shipped curves
@pytest.mark.parametrize("dataset", fs_runs.EXPLORER_DATASETS)
def test_every_explorer_curve_ships_for_the_current_settings(dataset):
    """A depth, data-set or criterion move reads the curves (issue 15): they must be shipped."""
    frame = fs_runs.shipped_curves(dataset)
    assert frame is not None, "run: make results (or fs_runs.shipped_curves(d, recompute=True))"
    assert set(frame["criterion"]) == set(fs_runs.CRITERIA)
    assert set(frame["depth"]) == set(fs_runs.EXPLORER_DEPTHS)
    finite = frame[np.isfinite(frame["epsilon"])]
    assert set(finite["epsilon"]) == set(fs_runs.EXPLORER_EPSILONS)
    runs = finite.groupby(["criterion", "depth", "epsilon"]).size()
    assert (runs == fs_runs.REPEATS[dataset]).all()
    assert (frame[~np.isfinite(frame["epsilon"])].groupby(["criterion", "depth"]).size() == 1).all()
    assert fs.MAX_DEPTH == max(fs_runs.EXPLORER_DEPTHS)


@pytest.mark.parametrize(
    ("dataset", "criteria", "depths"),
    [("fs-single-split", fs_runs.CRITERIA, (1, 2)), ("nursery", ("max", "sulq"), (1,)),
     ("adult", ("gini", "sulq"), (1,))],
)
def test_shipped_curves_are_what_the_code_computes(dataset, criteria, depths):
    """Same seeds, same numbers: a change of the algorithms without `make results` fails here."""
    fresh = fs_runs.explorer_curves(dataset, criteria=criteria, depths=depths)
    shipped = fs_runs.shipped_curves(dataset)
    shipped = shipped[shipped["criterion"].isin(criteria) & shipped["depth"].isin(depths)]
    key = ["criterion", "depth", "epsilon", "repeat"]
    pd.testing.assert_frame_equal(
        fresh.sort_values(key).reset_index(drop=True),
        shipped.sort_values(key).reset_index(drop=True),
        check_exact=True, check_dtype=False,
    )


def test_explorer_points_come_from_the_shipped_curves_or_are_computed_alike(monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "_MEMORY", {})
    shipped = fs_runs.explorer_point("nursery", "max", 0.5, 2)
    grid_point = fs_runs.explorer_curve("nursery", "max", 2)
    # no shipped file (another results folder): the explorer computes the same fits
    monkeypatch.setattr("dpviz.experiments.shipped.RESULTS", tmp_path)
    monkeypatch.setattr(runner, "_MEMORY", {})
    assert fs_runs.shipped_curves("nursery") is None
    computed = fs_runs.explorer_point("nursery", "max", 0.5, 2)
    pd.testing.assert_frame_equal(shipped, computed, check_exact=True, check_dtype=False)
    pd.testing.assert_frame_equal(
        grid_point, fs_runs.explorer_curve("nursery", "max", 2), check_exact=True,
        check_dtype=False,
    )


def test_a_point_off_the_shipped_grid_is_computed(monkeypatch):
    monkeypatch.setattr(runner, "_MEMORY", {})
    point = fs_runs.explorer_point("fs-single-split", "max", 0.3, 1)  # B not on the grid
    assert len(point) == fs_runs.REPEATS["fs-single-split"]
    accuracy = [fs_runs.fit_one("fs-single-split", "max", 0.3, 1, r)[1] for r in range(len(point))]
    assert point["accuracy"].tolist() == accuracy
