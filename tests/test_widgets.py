import asyncio
from functools import partial

import altair as alt
import ipywidgets.widgets.widget_output as widget_output
import numpy as np
import pandas as pd
import pytest

import dpviz.ui.widgets as widgets_module
from dpviz.data.uci import load
from dpviz.experiments import holdout_accuracy
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.ui.plots import accuracy_chart
from dpviz.ui.widgets import (
    BUSY,
    FAILED,
    choice_dropdown,
    depth_slider,
    epsilon_slider,
    explorer,
    fits_on_move,
    int_slider,
    selection_slider,
    trees_slider,
)


def test_explorer_calls_back_on_every_change():
    calls = []

    def callback(epsilon, depth):
        calls.append((epsilon, depth))
        return alt.Chart(pd.DataFrame({"x": [epsilon]})).mark_point().encode(x="x:Q")

    eps, depth = epsilon_slider(1.0), depth_slider(3)
    panel = explorer(callback, {"epsilon": eps, "depth": depth})
    assert calls == [(1.0, 3)]
    depth.value = 5
    eps.value = 0.1
    assert calls[-2:] == [(1.0, 5), (pytest.approx(0.1), 5)]
    assert "updated in" in panel.children[1].value


def _counting(calls):
    def callback(**values):
        calls.append(values)
        return alt.Chart(pd.DataFrame({"x": [1]})).mark_point().encode(x="x:Q")
    return callback


def test_a_move_that_resets_other_controls_runs_the_callback_once():
    # a picker whose observer resets two sliders (registered before the explorer's, as the
    # explore modules' controls do): one move, one run, with every value set
    picker, depth, trees = choice_dropdown(["a", "b"]), depth_slider(3), trees_slider(10)
    defaults = {"a": (3, 10), "b": (6, 5)}

    def reset(change):
        with depth.hold_trait_notifications(), trees.hold_trait_notifications():
            depth.value, trees.value = defaults[change["new"]]

    picker.observe(reset, names="value")
    calls = []
    explorer(_counting(calls), {"dataset": picker, "depth": depth, "n_trees": trees})
    picker.value = "b"
    assert calls[1:] == [{"dataset": "b", "depth": 6, "n_trees": 5}]  # was 3 runs
    picker.value = "a"
    assert calls[2:] == [{"dataset": "a", "depth": 3, "n_trees": 10}]
    trees.value = 7  # a plain move: one run
    assert calls[3:] == [{"dataset": "a", "depth": 3, "n_trees": 7}]
    depth.value = 3  # no change, no notification, no run
    assert len(calls) == 4


def test_the_estimators_load_right_after_the_explorer_cell_in_a_kernel(monkeypatch):
    # a first chart that reads shipped results needs no estimator; the first move that fits
    # must not wait for their import (a second of CPU): the kernel's loop imports the modules
    # the callback declares next, and a callback that declares none costs no page that import
    imported = []
    monkeypatch.setattr(widgets_module, "_import_estimators", imported.append)
    fitting = fits_on_move("dpviz.trees.rdt")(_counting([]))

    async def cell(callback):
        explorer(callback, {"depth": depth_slider(3)})
        assert imported == []  # not before the cell's chart is out
        await asyncio.sleep(0)  # the kernel's loop runs what was scheduled
        return list(imported)

    assert asyncio.run(cell(fitting)) == [("dpviz.trees.rdt",)]
    imported.clear()
    assert asyncio.run(cell(_counting([]))) == []  # it never fits: nothing imported
    explorer(fitting, {"depth": depth_slider(3)})  # no loop (a script): nothing
    assert imported == []


def test_the_explorers_that_fit_declare_their_estimators():
    from dpviz.explore import compare, fi, fs, jpw, rdt_sharp

    declared = {f.__name__: getattr(f, widgets_module.WARM_UP, ()) for f in (
        jpw.jpw_explorer_chart, fs.fs_explorer_chart, fs.fs_tree_chart, fi.fi_explorer_chart,
        rdt_sharp.rdt_sharp_explorer_chart, compare.compare_explorer_chart)}
    assert all(declared[name] for name in ("jpw_explorer_chart", "fs_explorer_chart",
                                           "fs_tree_chart", "fi_explorer_chart")), declared
    # their sliders stop at the shipped settings: a move reads, it never fits
    assert declared["rdt_sharp_explorer_chart"] == declared["compare_explorer_chart"] == ()


def test_sliders_ranges():
    eps = epsilon_slider(0.5, low=0.01, high=10)
    assert eps.min == pytest.approx(-2) and eps.max == pytest.approx(1) and eps.value == 0.5
    assert trees_slider(10, 300).max == 300
    assert choice_dropdown(["a", "b"]).value == "a"


@pytest.fixture(scope="module")
def votes():
    return load("votes")


def test_holdout_accuracy_is_paired_and_reproducible(votes):
    make = partial(PrivateRDTClassifier, domain=votes.domain, n_trees=5)
    a = holdout_accuracy(make, votes, epsilon=1.0, repeats=3)
    b = holdout_accuracy(make, votes, epsilon=1.0, repeats=3)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["epsilon", "repeat", "accuracy"] and len(a) == 3
    exact = holdout_accuracy(make, votes, epsilon=np.inf, repeats=3)
    assert exact["accuracy"].mean() > 0.85  # Votes without noise (JPW: about 0.9)


def test_accuracy_chart_summarizes_repeats(votes):
    frame = pd.DataFrame({"epsilon": [0.1, 0.1, 1.0, 1.0], "accuracy": [0.5, 0.7, 0.8, 0.9]})
    chart = accuracy_chart(frame, reference=0.95, highlight=1.0)
    data = chart.layer[0].data
    data = chart.data if data is alt.Undefined else data
    assert list(data["mean"]) == pytest.approx([0.6, 0.85])
    assert (data["low"] <= data["mean"]).all() and (data["high"] >= data["mean"]).all()
    assert len(chart.layer) == 4
    colored = accuracy_chart(frame.assign(algorithm=["a", "b", "a", "b"]), color="algorithm")
    colored_data = colored.layer[0].data
    colored_data = colored.data if colored_data is alt.Undefined else colored_data
    assert set(colored_data["algorithm"]) == {"a", "b"}


def _px(width):
    assert width.endswith("px"), width
    return int(width.removesuffix("px"))


def test_controls_keep_a_minimum_width_and_the_row_wraps():
    # squeezed to ~30 px by a row of five controls, a 20 px drag moved ε from 0.708 to 0.089
    sliders = [
        epsilon_slider(1.0),
        depth_slider(3),
        trees_slider(10),
        int_slider(0, 0, 5, "run"),
        selection_slider([("a", 1), ("b", 2)], 1, "pick"),
    ]
    for slider in sliders:
        assert _px(slider.layout.min_width) >= 300 and slider.layout.flex == "0 0 auto"
    picker = choice_dropdown(["a", "b"])
    assert _px(picker.layout.min_width) >= 200
    panel = explorer(
        lambda **_: alt.Chart(pd.DataFrame({"x": [1]})).mark_point().encode(x="x:Q"),
        {f"w{i}": w for i, w in enumerate([picker, *sliders])},
    )
    assert panel.children[0].layout.flex_flow == "row wrap"


def test_explorer_says_computing_while_the_callback_runs():
    seen = []
    panel = None

    def callback(depth):
        if panel is not None:
            seen.append(panel.children[1].value)
        return alt.Chart(pd.DataFrame({"x": [depth]})).mark_point().encode(x="x:Q")

    depth = depth_slider(3)
    panel = explorer(callback, {"depth": depth})
    depth.value = 5
    assert seen == [BUSY]  # sent to the page before the (possibly long) computation
    assert "updated in" in panel.children[1].value
    quiet = explorer(callback, {"depth": depth_slider(2)}, show_time=False)
    assert quiet.children[1].value == ""


def test_explorer_shows_a_failure_in_a_kernel(monkeypatch):
    shown = []

    class Shell:  # what Output.__exit__ needs of IPython: it shows the error and swallows it
        def showtraceback(self, exc_info, **_):
            shown.append(exc_info[0])

    def callback(depth):
        if depth > 3:
            raise ValueError("no chart at this depth")
        return alt.Chart(pd.DataFrame({"x": [depth]})).mark_point().encode(x="x:Q")

    depth = depth_slider(3)
    panel = explorer(callback, {"depth": depth})
    monkeypatch.setattr(widget_output, "get_ipython", lambda: Shell())
    depth.value = 5
    assert shown == [ValueError] and panel.children[1].value == FAILED
    depth.value = 2
    assert "updated in" in panel.children[1].value
