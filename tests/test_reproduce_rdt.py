"""Reproductions of the random-tree papers (FI, JPW), run small: exact tables exactly,
statistical ones on fixed seeds with margins far above their run-to-run spread."""

import numpy as np
import pytest

from dpviz.experiments.reproduce_fi import fi_figure7, fi_table2, fi_table3, fi_table4
from dpviz.experiments.reproduce_jpw import jpw_accuracy, jpw_update


def test_fi_table2_exact():
    table = fi_table2()
    # the paper prints 5 decimals (its last digit sometimes truncated: e^-0.01 = 0.990050 is
    # printed 0.99004), or 3 significant digits for tiny values
    for ours, paper in zip(table["ours"], table["paper"], strict=True):
        if paper >= 1e-5:
            assert abs(ours - paper) <= 1.0e-5
        else:
            assert ours == pytest.approx(paper, rel=0.005)


def test_fi_table4_exact():
    table = fi_table4()
    assert (table["ours"] == table["paper"]).all()


def test_fi_table3_small():
    table = (
        fi_table3.__wrapped__(("Nursery", "Mushroom", "SynthB"), n_runs=2, n_walks=2000)
        if hasattr(fi_table3, "__wrapped__")
        else fi_table3(("Nursery", "Mushroom", "SynthB"), n_runs=2, n_walks=2000)
    )
    by = table.set_index("dataset")
    # Nursery is a full factorial design: with all rows in one depth-4 tree no leaf is empty
    assert by.loc["Nursery", "empty_1"] == 0.0
    # disjoint data leaves more leaves empty, as FI's Table 3 shows on every data set
    assert (by["empty_30"] >= by["empty_1"]).all()
    assert by.loc["Mushroom", "empty_1"] > 99.0
    assert by.loc["SynthB", "depth"] == 8


def test_fi_figure7_more_trees_help_at_epsilon_1():
    table = fi_figure7(("SynthA",), epsilons=(1.0,), n_trees=(1, 100), n_rows=6000, n_folds=3)
    acc = table.set_index("n_trees")["mean"]
    # 1 tree vs 100 trees: ~70% vs ~88% (run-to-run spread ~1 point)
    assert acc[100] > acc[1] + 10
    assert set(table.columns) >= {"paper", "gap"}


def test_jpw_accuracy_and_update_trends():
    acc = jpw_accuracy(("mushroom",), epsilons=(0.5, np.inf), n_runs=1, n_folds=3)
    by = acc.set_index("epsilon")["mean"]
    assert by[np.inf] > by[0.5] > 90  # Mushroom is "least affected by the noise" (JPW §VI)
    upd = jpw_update(("nursery",), epsilons=(0.5,), n_runs=1, n_folds=3)
    by = upd.set_index("method")
    # at the same total ε, JPW's update beats rebuilding on the union at ε/2 + ε/2: ~79 vs ~70
    # at seed 0; over 30 other seeds the gain was 9.2 ± 2.3 points (smallest 4.9), so a bar of 3
    # is ~2.7 standard deviations below it
    assert by.loc["update", "mean"] > by.loc["union_half", "mean"] + 3
    assert by.loc["union", "total_epsilon"] == 1.0 and by.loc["update", "total_epsilon"] == 0.5
