"""Notebook 04's library side: the RDT# explorer over a grid of slider values (its fast path checked
against the estimators and the reproduction's runs), the "what goes wrong" tables (exercises:
tests/test_rdt_sharp_exercises.py)."""

import ast
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpviz import keyed
from dpviz.data.uci import load
from dpviz.errors import InvalidParameterError
from dpviz.experiments.reproduce_rdt_sharp import rdt_sharp_runs
from dpviz.experiments.semi_supervised import (
    fit_seed,
    protocol_split,
    rdt_sharp_dataset,
    split_key,
)
from dpviz.explore import rdt_sharp as rs
from dpviz.trees.random_tree import rdt_sharp_depth
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier, create_tree, region_distance


# ---------------------------------------------------------------------------------- fast path
@pytest.mark.parametrize(("dataset", "percent"), [("votes", 30), ("mushroom", 2), ("nursery", 25)])
def test_run_errors_equal_the_reproductions_runs(dataset, percent):
    frame = rdt_sharp_runs(
        dataset, fractions=(percent / 100,), epsilons=(0.5, 3.0), n_runs=2, n_secondary=4
    )
    for row in frame.itertuples():
        errors = rs.run_errors(dataset, percent, 4, row.run, row.epsilon)
        assert errors[0 if row.method == "rdt_sharp" else 1] == row.error


def test_run_errors_at_infinity_and_without_secondary_trees_equal_the_estimators():
    data = load("votes")
    split = protocol_split(data.n_rows, 0.3, 1)
    X, y = data.X, data.y
    truth = y.iloc[split.test].to_numpy()
    # run 1's seeds: keyed on the rows read (the split's labeled and public rows), the method
    seeds = [fit_seed(1, *split_key(split), method) for method in (0, 1)]
    for n_secondary in (0, 3):
        model = RDTSharpClassifier(
            epsilon=math.inf,
            n_secondary=n_secondary,
            n_labeled=len(split.labeled),
            domain=data.domain,
            random_state=seeds[0],
        ).fit(X.iloc[split.labeled], y.iloc[split.labeled], X.iloc[split.public])
        expected = float(np.mean(model.predict(X.iloc[split.test]) != truth))
        assert rs.run_errors("votes", 30, n_secondary, 1, math.inf)[0] == expected
    rdt = PrivateRDTClassifier(
        epsilon=math.inf, n_trees=5, max_depth=model.depth_, domain=data.domain,
        random_state=seeds[1],
    ).fit(X.iloc[split.labeled], y.iloc[split.labeled])
    expected = float(np.mean(rdt.predict(X.iloc[split.test]) != truth))
    assert rs.run_errors("votes", 30, 3, 1, math.inf)[1] == expected


def test_the_explorer_is_a_view():
    """It imports no release machinery and reads no other module's private names."""
    tree = ast.parse(Path(rs.__file__).read_text())
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    banned = {"dpviz.leaf_release", "dpviz.keyed", "dpviz.privacy", "dpviz.trees._base"}
    assert not modules & banned
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
    assert not [name for name in imported if name.startswith("_")]
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not {a for a in attributes if a.startswith("_") and not a.startswith("__")}


# ---------------------------------------------------------------------------------- explorer
def _check_chart(chart, epsilon):
    _band, line, reference, highlight = chart.layer
    summary = line.data
    assert set(summary["method"]) == {"RDT#", "Private-RDT, labeled rows"}
    assert summary["mean"].between(0, 1).all()
    assert (summary["runs"] == rs.REPEATS).all()
    assert 0 <= float(reference.data["accuracy"].iloc[0]) <= 1
    assert highlight.data["epsilon"].tolist() == [epsilon]
    assert epsilon in summary["epsilon"].tolist()
    assert set(rs.EPSILON_GRID) <= set(summary["epsilon"])
    chart.to_dict()
    return summary


@pytest.mark.parametrize("dataset", rs.EXPLORER_DATASETS)
def test_explorer_every_dataset_at_its_protocol_fraction(dataset):
    chart = rs.rdt_sharp_explorer_chart(dataset, 0.7, rs.DEFAULT_PERCENT[dataset], 5)
    summary = _check_chart(chart, 0.7)
    rdt = summary[summary["method"] != "RDT#"].set_index("epsilon")["mean"]
    # Private-RDT on the labeled rows: ε = 5 is far better than ε = 0.05 (noise scale 100) on
    # every data set except the synthetic one, where the labeled set is too small at 10%
    if dataset != "synthetic":
        assert rdt[5.0] > rdt[0.05] + 0.05, rdt


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 8.0])
@pytest.mark.parametrize("percent", [1, 5])
@pytest.mark.parametrize("n_secondary", [0, 10])
def test_explorer_grid(epsilon, percent, n_secondary):
    chart = rs.rdt_sharp_explorer_chart("nursery", epsilon, percent, n_secondary)
    _check_chart(chart, epsilon)
    title = chart.layer[0].title.text
    assert f"{n_secondary} secondary trees" in title
    assert f"{round(percent / 100 * 12960)} labeled" in title


def test_explorer_defaults_fall_with_the_noise_scale():
    # the defaults (Mushroom, 2% labeled, ε = 0.5, 20 secondary trees, 3 runs). Measured mean
    # errors over 100 runs: at ε = 0.5 RDT# 0.16, Private-RDT 0.20 (± 0.01); at ε = 0.05 0.43
    # and 0.46. The gap between the methods (0.04 with a per-run spread of 0.09: RDT# behind in
    # 29% of single runs) is beyond 3 runs; the drop from ε = 0.05 to 0.5 (0.27 and 0.25,
    # per-run spread 0.17 and 0.08) is not.
    summary = _check_chart(rs.rdt_sharp_explorer_chart(), 0.5)
    accuracy = summary.set_index(["epsilon", "method"])["mean"]
    assert accuracy[0.5, "RDT#"] > accuracy[0.05, "RDT#"]
    private = "Private-RDT, labeled rows"
    assert accuracy[0.5, private] > accuracy[0.05, private] + 0.1


def test_explorer_rejects_bad_inputs():
    with pytest.raises(InvalidParameterError, match="dataset"):
        rs.rdt_sharp_explorer_chart("iris")
    with pytest.raises(InvalidParameterError, match="percent"):
        rs.rdt_sharp_explorer_chart(percent=95)


# ---------------------------------------------------------------------------------- lessons
def test_overpaying_uses_a_smaller_epsilon_per_primary_tree():
    table = rs.overpaying_table("votes", 30, epsilon=0.5, n_secondary=10, runs=2)
    assert table["epsilon_per_primary_tree"].tolist() == pytest.approx([0.1, 0.5 / 15])
    assert table["error"].between(0, 1).all()


def test_height_leak_table_finds_neighbouring_sizes_with_different_heights():
    table = rs.height_leak_table("mushroom", sizes=(181, 182))
    b = rs.mean_values("mushroom")
    paper = [rdt_sharp_depth(21, b, 181), rdt_sharp_depth(21, b, 182)]
    assert table["paper_height"].tolist() == paper and paper[0] != paper[1]
    # the estimator itself never uses the private size: ⌊21/2⌋ = 10 for both neighbours
    assert table["dpviz_height"].tolist() == [10, 10]


def test_centres_from_private_rows_are_private_rows():
    table = rs.private_centres("votes", n_rows=80)
    assert table["is_a_private_row"].all() and len(table) >= 10


def test_pseudo_label_table():
    table = rs.pseudo_label_table("votes", 30, epsilons=(0.05, 5.0), n_secondary=4, runs=2)
    shares = table[["pseudo_label_accuracy", "pseudo_majority_share", "majority_share"]]
    assert ((shares >= 0) & (shares <= 1)).all().all()
    # at ε = 5 the primary ensemble labels the public rows far better than at ε = 0.05
    acc = table.set_index("epsilon")["pseudo_label_accuracy"]
    assert acc[5.0] > acc[0.05]


def test_explorer_title_speaks_of_accuracy_like_its_axis():
    chart = rs.rdt_sharp_explorer_chart("nursery", 0.5, 5, 0)
    spec = chart.to_dict()
    first = spec["layer"][0]
    assert first["encoding"]["y"]["title"] == "accuracy"
    subtitle = first["title"]["subtitle"]
    assert not any("error" in line for line in [first["title"]["text"], *subtitle]), subtitle
    assert subtitle[0].startswith("test accuracy at ε = 0.5")
    summary = chart.layer[0].data
    at = summary[summary["epsilon"] == 0.5].set_index("method")["mean"]
    assert f"RDT# {at['RDT#']:.3f}" in subtitle[0]
    assert f"labeled rows {at['Private-RDT, labeled rows']:.3f}" in subtitle[0]


def test_controls_ranges_are_the_documented_ones():
    controls = rs.rdt_sharp_controls()
    values = {name: [v for _, v in w.options] for name, w in controls.items() if name != "dataset"}
    assert values == {"epsilon": list(rs.EPSILON_GRID), "percent": list(rs.PERCENTS),
                      "n_secondary": list(rs.SECONDARIES)}
    assert (rs.PERCENTS[0], rs.PERCENTS[-1], rs.SECONDARIES[0]) == (1, rs.MAX_PERCENT, 0)
    assert list(controls["dataset"].options) == list(rs.EXPLORER_DATASETS)
    assert {name: w.value for name, w in controls.items()} == {
        "dataset": "nursery", "epsilon": 0.5, "percent": 20, "n_secondary": 20}
    # every data set's protocol fraction, and the settings the notebook names, are stops
    assert set(rs.DEFAULT_PERCENT.values()) | {10, 40} <= set(rs.PERCENTS)
    assert {rs.PREDICTION_SETTING["percent"], 2} <= set(rs.PERCENTS)
    assert rs.PREDICTION_SETTING["epsilon"] in rs.EPSILON_GRID
    with pytest.raises(InvalidParameterError, match="percent must be one of"):
        rs.rdt_sharp_controls(percent=7)


def test_every_stop_ships_and_the_shipped_runs_are_the_live_ones():
    for dataset in rs.EXPLORER_DATASETS:
        table = rs._shipped_curves(dataset)
        assert set(table) == {(p, t, e, r) for p in rs.PERCENTS for t in rs.SECONDARIES
                              for e in (*rs.EPSILON_GRID, math.inf) for r in range(rs.REPEATS)}
    shipped = rs.explorer_frame("votes", (0.05, 2.0, math.inf), 15, 5)
    fresh = rs.explorer_frame("votes", (0.05, 2.0, math.inf), 15, 5, shipped=False)
    pd.testing.assert_frame_equal(shipped, fresh, check_exact=True)
    chart = rs.rdt_sharp_explorer_chart("votes", 2.0, 15, 5)
    assert chart.layer[0].title.subtitle[1].endswith(
        "read from the shipped grid made by make results (rdt_sharp.rdt_sharp_curves)")
    live = rs.rdt_sharp_explorer_chart("votes", 2.0, 16, 5)  # not a stop: run now
    assert live.layer[0].title.subtitle[1].endswith("run now")


@pytest.mark.parametrize(("percent", "n_secondary"), [(1, 0), (rs.MAX_PERCENT, rs.MAX_SECONDARY)])
def test_explorer_at_the_ends_of_the_ranges(percent, n_secondary):
    specs = []
    for epsilon in (0.05, 5.0):
        chart = rs.rdt_sharp_explorer_chart("votes", epsilon, percent, n_secondary)
        _check_chart(chart, epsilon)
        assert f"{n_secondary} secondary trees" in chart.layer[0].title.text
        specs.append(chart.to_dict())
    assert specs[0] != specs[1]


# ---------------------------------------------------------------------------------- centre cells
@pytest.mark.parametrize("dataset", ["mushroom", "votes"])
def test_cell_keys_pick_the_closest_centre_by_region_distance(dataset):
    """The small-integer mismatch count of cell_keys is region_distance's choice, row by row."""
    data = rdt_sharp_dataset(dataset)
    domain = data.domain
    codes = domain.encode(data.X)
    rng = np.random.default_rng(3)
    for depth in (1, 3):
        tree = create_tree(domain, depth, codes[:300], n_cells=40, rng=rng)
        rows = codes[rng.choice(len(codes), 400)]
        leaves = tree.tree.leaf_keys(rows)
        expected = np.zeros(len(rows), dtype=np.int64)
        pos = np.minimum(np.searchsorted(tree.leaf_keys, leaves), len(tree.leaf_keys) - 1)
        for i in range(len(rows)):
            if tree.leaf_keys[pos[i]] != leaves[i]:
                continue
            slots = tree.slots[pos[i]]
            slots = slots[slots >= 0]
            expected[i] = np.argmin(region_distance(rows[i], tree.centres[slots], domain))
        assert np.array_equal(tree.cell_keys(rows), keyed.child_keys(leaves, expected))
