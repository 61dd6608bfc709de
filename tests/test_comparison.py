import math

import numpy as np
import pandas as pd
import pytest

from dpviz.errors import InvalidParameterError
from dpviz.experiments import comparison, registry


def test_compare_frame():
    frame = comparison.compare(
        ("votes",), ("Private-RDT", "DiffPID3-Max"), (0.5,), (100, 10_000), 2
    )
    assert set(frame["n"]) == {100}  # Votes' training part cannot supply 10,000 rows
    assert set(frame["algorithm"]) == {"Private-RDT", "DiffPID3-Max", *registry.REFERENCES}
    assert frame["accuracy"].between(0, 1).all()
    assert set(frame.loc[frame["private"], "epsilon"]) == {0.5}
    assert (~frame.loc[~frame["private"], "epsilon"].map(np.isfinite)).all()
    assert (frame.groupby(["algorithm", "epsilon"]).size() == 2).all()
    # the same training rows for every learner of a run: the majority class is run-specific only
    again = comparison.compare(("votes",), ("Private-RDT",), (0.5,), (100,), 2, references=False)
    pd.testing.assert_series_equal(
        again.query("private")["accuracy"].reset_index(drop=True),
        frame.query("private and algorithm == 'Private-RDT'")["accuracy"].reset_index(drop=True),
    )
    # same seed, same table
    pd.testing.assert_frame_equal(
        again, comparison.compare(("votes",), ("Private-RDT",), (0.5,), (100,), 2, references=False)
    )


def test_compare_skips_sulq_on_numeric_data_and_validates():
    frame = comparison.compare(("synth-a",), ("SuLQ-ID3", "DiffPID3-Max"), (1.0,), (200,), 1,
                               references=False)
    assert set(frame["algorithm"]) == {"DiffPID3-Max"}
    with pytest.raises(InvalidParameterError, match="finite"):
        comparison.compare(("votes",), ("DiffPID3-Max",), (math.inf,), (100,), 1)
    with pytest.raises(InvalidParameterError, match="unknown algorithm"):
        comparison.compare(("votes",), ("ID3",), (1.0,), (100,), 1)
    with pytest.raises(InvalidParameterError, match="dataset"):
        comparison.compare(("iris",), ("DiffPID3-Max",), (1.0,), (100,), 1)


def test_today_pairs_with_the_papers_learners_and_skips_dp_ebm_on_five_classes():
    """compare_today is compare on RECENT: the same rows and seeds, so PrivaTree's accuracies are
    those of a joint run; DP-EBM is left out where the domain has more than two classes."""
    args = ((0.5,), (100,), 2)
    today = comparison.compare_today("votes", *args)
    assert set(today["algorithm"]) == set(registry.RECENT)
    assert set(today["epsilon"]) == {0.5, math.inf} and today["accuracy"].between(0, 1).all()
    assert today.loc[today["private"], "epsilon"].eq(0.5).all()
    joint = comparison.compare(("votes",), ("DiffPID3-Max", *registry.RECENT), *args,
                               references=False)
    pd.testing.assert_frame_equal(
        today.reset_index(drop=True),
        joint[joint["algorithm"].isin(registry.RECENT)].reset_index(drop=True))
    nursery = comparison.compare_today("nursery", (1.0,), (100,), 1)
    assert set(nursery["algorithm"]) == {"PrivaTree (dpviz variant)"}


def test_data_helpers():
    votes = comparison.load_dataset("votes")
    assert votes is comparison.load_dataset("votes")  # loaded once
    assert comparison.load_dataset(" Votes ").name == "votes"
    assert comparison.n_test_rows(votes) == votes.n_rows // 4
    assert comparison.n_test_rows(comparison.load_dataset("nursery")) == comparison.TEST_ROWS
    assert comparison.load_dataset("synth-a").n_rows > 0
    assert comparison.nearest(0.7, comparison.EPSILONS) == 0.5  # log scale: 0.7 is nearer 0.5
    assert comparison.nearest(0.8, comparison.EPSILONS) == 1.0
    assert comparison.nearest(250, comparison.SIZES) == 300


def test_summary_and_reference_accuracy():
    frame = pd.DataFrame(
        {
            "dataset": "d",
            "algorithm": ["A"] * 10 + ["majority class"] * 2,
            "private": [True] * 10 + [False] * 2,
            "epsilon": [1.0] * 10 + [math.inf] * 2,
            "n": 100,
            "repeat": [*range(10), 0, 1],
            "accuracy": [*np.linspace(0.5, 0.95, 10), 0.3, 0.4],
        }
    )
    stats = comparison.summary(frame).set_index("algorithm")
    assert stats.loc["A", "mean"] == pytest.approx(0.725)
    assert stats.loc["A", "low"] < stats.loc["A", "mean"] < stats.loc["A", "high"]
    assert stats.loc["A", "runs"] == 10
    refs = comparison.reference_accuracy(frame, "d", 100)
    assert refs["algorithm"].tolist() == ["majority class"]
    assert refs["accuracy"].tolist() == [pytest.approx(0.35)]


def test_rdt_sharp_comparison_small():
    runs = comparison.rdt_sharp_comparison(
        "votes", n_labeled=100, n_public=150, epsilons=(1.0,), repeats=1, n_secondary=10
    )
    assert list(runs["method"]) == list(comparison.RDT_SHARP_METHODS)
    assert runs["accuracy"].between(0, 1).all() and set(runs["n_public"]) == {150}
    with pytest.raises(InvalidParameterError, match="exceeds"):
        comparison.rdt_sharp_comparison("votes", n_labeled=300, n_public=300)
