import math

import altair as alt
import numpy as np
import pandas as pd
import pytest

from dpviz.datasets import load
from dpviz.errors import InvalidParameterError
from dpviz.exercises import EXERCISES, check
from dpviz.explore import compare as cmp
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.rdt import PrivateRDTClassifier

# A small grid for the explorer tests: every learner, 2 ε × 2 n × 2 runs per data set.
TINY = {"epsilons": (0.1, 1.0), "sizes": (100, 300), "repeats": 2}
EXPLORED = ("nursery", "votes", "adult")


@pytest.fixture(scope="module")
def tiny_grid():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cmp, "grid", lambda: dict(TINY))
        frames = {name: cmp.explorer_frame(name) for name in EXPLORED}
        yield frames


# ---------------------------------------------------------------------------------- Pareto
def test_dominated_by_hand_example():
    eps = [0.1, 0.1, 1.0, 1.0, 1.0, 10.0]
    acc = [0.5, 0.6, 0.8, 0.8, 0.55, 0.7]
    # (0.1, .5) loses to (0.1, .6); the two (1, .8) tie and survive;
    # (1, .55) and (10, .7) are dominated
    assert cmp.dominated_by(eps, acc).tolist() == [True, False, False, False, True, True]
    assert not cmp.dominated_by([1.0], [0.3]).any()


def _fake_frame() -> pd.DataFrame:
    """A compare-like frame with known means (two runs at ±0.01 around each mean)."""
    means = {
        # (algorithm, ε, n): mean
        ("A", 0.1, 100): 0.30, ("A", 1.0, 100): 0.50, ("A", 10.0, 100): 0.85,
        ("B", 0.1, 100): 0.40, ("B", 1.0, 100): 0.45, ("B", 10.0, 100): 0.70,
        ("A", 0.1, 1000): 0.60, ("A", 1.0, 1000): 0.90, ("A", 10.0, 1000): 0.92,
        ("B", 0.1, 1000): 0.82, ("B", 1.0, 1000): 0.88, ("B", 10.0, 1000): 0.95,
    }
    rows = []
    for (alg, eps, n), mean in means.items():
        for r, shift in enumerate((-0.01, 0.01)):
            rows.append(("toy", alg, True, eps, n, r, mean + shift))
    for n in (100, 1000):
        for r in range(2):
            rows.append(("toy", "majority class", False, math.inf, n, r, 0.35))
            rows.append(("toy", "A", False, math.inf, n, r, 0.95))
    return pd.DataFrame(
        rows, columns=["dataset", "algorithm", "private", "epsilon", "n", "repeat", "accuracy"]
    )


def test_pareto_frontier_and_envelope():
    frame = _fake_frame()
    front = cmp.pareto_frontier(frame)
    eff = front[front["efficient"]].set_index(["n", "algorithm", "epsilon"])["mean"]
    assert sorted(eff.loc[100].index) == [("A", 1.0), ("A", 10.0), ("B", 0.1)]
    assert sorted(eff.loc[1000].index) == [("A", 1.0), ("B", 0.1), ("B", 10.0)]
    assert not (front["epsilon"] == math.inf).any()  # ε = ∞ runs are references, not points
    steps = cmp._envelope(front, ["dataset", "n"])
    assert (steps.groupby("n")["best"].diff().dropna() >= 0).all()  # best within a budget grows


def test_privacy_price_useful_from_and_winners():
    frame = _fake_frame()
    price = cmp.privacy_price(frame, 0.8).set_index("n")
    assert price.loc[100, "epsilon"] == 10.0 and price.loc[100, "algorithm"] == "A"
    assert price.loc[1000, "epsilon"] == 0.1 and price.loc[1000, "algorithm"] == "B"
    assert math.isnan(cmp.privacy_price(frame, 0.99).loc[0, "epsilon"])
    useful = cmp.useful_from(frame, margin=0.01).set_index("n")
    assert useful.loc[100, "epsilon"] == 0.1  # B's 0.40 beats the majority's 0.35 by > 1 point
    assert useful.loc[1000, "epsilon_n"] == pytest.approx(100)
    # by default "beats" means by FLOOR_MARGIN (5 points: more than a constant guess gains by
    # guessing another class); a margin above B's 5 points leaves n = 100 to A at ε = 1
    assert cmp.FLOOR_MARGIN == 0.05
    assert cmp.useful_from(frame).equals(cmp.useful_from(frame, margin=cmp.FLOOR_MARGIN))
    assert cmp.winners(frame).equals(cmp.winners(frame, floor_margin=cmp.FLOOR_MARGIN))
    assert cmp.useful_from(frame, margin=0.06).set_index("n").loc[100, "epsilon"] == 1.0
    win = cmp.winners(frame, floor_margin=0.01).set_index(["n", "epsilon"])
    assert win.loc[(100, 1.0), "winner"] == "A"
    assert win.loc[(100, 1.0), "margin"] == pytest.approx(0.05)
    assert win.loc[(100, 0.1), "majority"] == pytest.approx(0.35)
    strict = cmp.winners(frame, floor_margin=0.1).set_index(["n", "epsilon"])
    assert strict.loc[(100, 0.1), "winner"] == cmp.NO_WINNER
    with pytest.raises(InvalidParameterError):
        cmp.privacy_price(frame, 1.5)


def test_winners_break_exact_ties_in_private_order():
    rows = [
        ("d", a, True, 1.0, 100, r, 0.7) for a in ("DiffPC4.5", "DiffPID3-Max") for r in range(2)
    ]
    frame = pd.DataFrame(
        rows, columns=["dataset", "algorithm", "private", "epsilon", "n", "repeat", "accuracy"]
    )
    row = cmp.winners(frame).iloc[0]
    assert row["winner"] == "DiffPID3-Max" and row["tied"] == "DiffPC4.5"
    assert math.isnan(row["margin"]) and math.isnan(row["majority"])


# ---------------------------------------------------------------------------------- compare
def test_compare_frame():
    frame = cmp.compare(("votes",), ("Private-RDT", "DiffPID3-Max"), (0.5,), (100, 10_000), 2)
    assert set(frame["n"]) == {100}  # Votes' training part cannot supply 10,000 rows
    assert set(frame["algorithm"]) == {"Private-RDT", "DiffPID3-Max", *cmp.REFERENCES}
    assert frame["accuracy"].between(0, 1).all()
    assert set(frame.loc[frame["private"], "epsilon"]) == {0.5}
    assert (~frame.loc[~frame["private"], "epsilon"].map(np.isfinite)).all()
    assert (frame.groupby(["algorithm", "epsilon"]).size() == 2).all()
    # the same training rows for every learner of a run: the majority class is run-specific only
    again = cmp.compare(("votes",), ("Private-RDT",), (0.5,), (100,), 2, references=False)
    pd.testing.assert_series_equal(
        again.query("private")["accuracy"].reset_index(drop=True),
        frame.query("private and algorithm == 'Private-RDT'")["accuracy"].reset_index(drop=True),
    )


def test_compare_skips_sulq_on_numeric_data_and_validates():
    frame = cmp.compare(("synth-a",), ("SuLQ-ID3", "DiffPID3-Max"), (1.0,), (200,), 1,
                        references=False)
    assert set(frame["algorithm"]) == {"DiffPID3-Max"}
    with pytest.raises(InvalidParameterError, match="finite"):
        cmp.compare(("votes",), ("DiffPID3-Max",), (math.inf,), (100,), 1)
    with pytest.raises(InvalidParameterError, match="unknown algorithm"):
        cmp.compare(("votes",), ("ID3",), (1.0,), (100,), 1)
    with pytest.raises(InvalidParameterError, match="dataset"):
        cmp.compare(("iris",), ("DiffPID3-Max",), (1.0,), (100,), 1)
    with pytest.raises(InvalidParameterError, match="unknown algorithm"):
        cmp.make_estimator("ID3", 1.0, load("votes"))


def test_algorithm_table_lists_everything():
    table = cmp.algorithm_table()
    assert list(table["algorithm"]) == [*cmp.PRIVATE, *cmp.REFERENCES]
    assert table["ε-DP"].sum() == len(cmp.PRIVATE)


# ---------------------------------------------------------------------------------- explorer
def _layer_data(chart: dict, index: int) -> list[pd.DataFrame]:
    """The data of every layer of panel ``index`` of the explorer's chart (inline datasets)."""
    panel = chart["hconcat"][index]
    return [pd.DataFrame(chart["datasets"][layer["data"]["name"]]) for layer in panel["layer"]]


@pytest.mark.parametrize("dataset", EXPLORED)
@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.3, 1.0, 10.0])
@pytest.mark.parametrize("n", [50, 100, 300, 5000])
def test_explorer_over_a_grid(tiny_grid, dataset, epsilon, n):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cmp, "grid", lambda: dict(TINY))
        chart = cmp.compare_explorer_chart(dataset, epsilon, n)
        spec = chart.to_dict()
    assert isinstance(chart, alt.HConcatChart)
    snapped = min(TINY["epsilons"], key=lambda e: abs(math.log(e / epsilon)))
    ranges, points, refs = _layer_data(spec, 0)
    assert np.allclose(ranges["epsilon"], snapped)
    assert ranges["mean"].between(0, 1).all() and (ranges["low"] <= ranges["high"]).all()
    assert set(points["setting"]) == {f"ε = {snapped:g}", "ε = ∞"}
    expected = set(cmp.PRIVATE) - ({"SuLQ-ID3"} if dataset == "adult" else set())
    assert set(ranges["algorithm"]) == expected
    assert set(refs["algorithm"]) == set(cmp.REFERENCES) and refs["accuracy"].between(0, 1).all()
    sizes = set(tiny_grid[dataset]["n"])
    assert len(set(ranges["n"])) == 1 and ranges["n"].iloc[0] in sizes
    right = _layer_data(spec, 1)
    highlight = [d for d in right if list(d.columns) == ["epsilon"]]
    assert len(highlight) == 1 and highlight[0]["epsilon"].iloc[0] == pytest.approx(snapped)


@pytest.mark.parametrize(
    "algorithms", [("DP forest",), ["DiffPID3-Max", "Private-RDT"], (), "SuLQ-ID3"]
)
def test_explorer_algorithm_selection(tiny_grid, algorithms):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cmp, "grid", lambda: dict(TINY))
        spec = cmp.compare_explorer_chart("nursery", 1.0, 300, algorithms).to_dict()
    chosen = {algorithms} if isinstance(algorithms, str) else set(algorithms)
    ranges = _layer_data(spec, 0)[0]
    assert set(ranges.get("algorithm", [])) == chosen
    with pytest.raises(InvalidParameterError):
        cmp.compare_explorer_chart("nursery", 1.0, 300, ["ID3"])


def test_more_budget_is_not_worse_on_average(tiny_grid):
    # Averaged over every learner, size and run of a data set, ε = 1 beats ε = 0.1 (each learner's
    # accuracy is nondecreasing in ε in expectation; averaging over 26+ fits leaves little noise).
    for frame in tiny_grid.values():
        private = frame[frame["private"]]
        by_eps = private.groupby("epsilon")["accuracy"].mean()
        assert by_eps[1.0] >= by_eps[0.1] - 0.01


def test_controls_snap_to_the_grid(tiny_grid):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cmp, "grid", lambda: dict(TINY))
        controls = cmp.compare_controls("votes", epsilon=0.7, n=250)
    assert set(controls) == {"dataset", "epsilon", "n", "algorithms"}
    assert controls["epsilon"].value == 1.0 and controls["n"].value == 300
    assert controls["dataset"].value == "votes"
    assert tuple(controls["algorithms"].value) == cmp.PRIVATE


def test_explorer_update_time(tiny_grid):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cmp, "grid", lambda: dict(TINY))
        timing = cmp.explorer_update_ms("nursery", n=100)
    assert list(timing["epsilon"]) == list(TINY["epsilons"])
    assert (timing["ms"] > 0).all() and timing["ms"].median() < 2000


# ---------------------------------------------------------------------------------- charts
def test_pareto_tradeoff_and_winner_charts(tiny_grid):
    frame = tiny_grid["nursery"]
    spec = cmp.pareto_chart(frame, "nursery", 300).to_dict()
    data = [pd.DataFrame(v) for v in spec["datasets"].values()]
    points = next(d for d in data if "efficient" in d)
    assert points["efficient"].any() and set(points["n"]) == {300}
    with pytest.raises(InvalidParameterError):
        cmp.pareto_chart(frame, "nursery", 12345)
    for kwargs in ({}, {"target": 0.5}, {"per_row": True}, {"algorithm": "Private-RDT"}):
        spec = cmp.tradeoff_chart(frame, "nursery", **kwargs).to_dict()
        curves = next(pd.DataFrame(v) for v in spec["datasets"].values() if "epsilon_n" in v[0])
        assert np.allclose(curves["epsilon_n"], curves["epsilon"] * curves["n"])
        assert curves["mean"].between(0, 1).all()
    with pytest.raises(InvalidParameterError):
        cmp.tradeoff_chart(frame, "nursery", algorithm="ID3")
    spec = cmp.winner_chart(frame, "nursery").to_dict()
    cells = pd.DataFrame(next(iter(spec["datasets"].values())))
    assert len(cells) == 4 and set(cells["winner"]) <= {*cmp.PRIVATE, cmp.NO_WINNER}


def test_claims_structure(tiny_grid):
    claims = cmp.claims(tiny_grid["nursery"], "nursery")
    assert len(claims) == 6 and claims["holds"].map(lambda v: isinstance(v, bool)).all()
    with pytest.raises(InvalidParameterError):
        cmp.claims(tiny_grid["nursery"], "votes")


# ---------------------------------------------------------------------------------- RDT#, pitfalls
def test_rdt_sharp_comparison_small():
    runs = cmp.rdt_sharp_comparison(
        "votes", n_labeled=100, n_public=150, epsilons=(1.0,), repeats=1, n_secondary=10
    )
    assert list(runs["method"]) == list(cmp.RDT_SHARP_METHODS)
    assert runs["accuracy"].between(0, 1).all() and set(runs["n_public"]) == {150}
    with pytest.raises(InvalidParameterError, match="exceeds"):
        cmp.rdt_sharp_comparison("votes", n_labeled=300, n_public=300)


def test_budget_pitfall_accounts_for_the_earlier_release():
    table = cmp.budget_pitfall("votes", epsilon=0.5, repeats=2).set_index("method")
    assert table.loc["union", "total_epsilon"] == 1.0
    assert table.loc["update", "total_epsilon"] == table.loc["union_half", "total_epsilon"] == 0.5
    # the fresh union model's own ledger cannot see the earlier release: it says ε, not 2ε
    assert table.loc["union", "model_ledger"] == pytest.approx(0.5)
    assert table["mean"].between(0, 1).all()
    assert cmp.budget_pitfall_chart(table.reset_index()).to_dict()["layer"]


def test_tuning_pitfall_small():
    runs = cmp.tuning_pitfall(
        "votes", epsilon=1.0, n=200, depths=(2, 3), criteria=("max", "gini"), n_tuning=40, splits=30
    )
    assert len(runs) == 30 and runs[["tuning", "fresh"]].stack().between(0, 1).all()
    assert runs.attrs["configs"] == 4 and runs.attrs["budgets"] == 4.0
    assert 0 < runs.attrs["spent"] <= runs.attrs["budgets"] + 1e-9
    # the chosen configuration is the best on its tuning rows (a random part of the test part),
    # so in expectation it cannot look worse there than over the whole test part:
    # E[max_c T_c] >= max_c E[T_c] >= E[test(chosen)]. Over 30 splits the mean gap may dip
    # below 0 by sampling noise only: allow 3 standard errors of the per-split gap.
    test_acc = runs.attrs["test_accuracy"]
    gap = runs["tuning"].to_numpy() - np.array([test_acc[c] for c in runs["chosen"]])
    assert gap.mean() >= -3 * gap.std(ddof=1) / np.sqrt(len(gap))
    with pytest.raises(InvalidParameterError):
        cmp.tuning_pitfall("votes", n_tuning=500)


def test_tuning_optimism_summarizes_one_pitfall_per_seed():
    params = dict(epsilon=1.0, n=200, depths=(2, 3), criteria=("max", "gini"), n_tuning=40,
                  splits=20)
    draws = cmp.tuning_optimism("votes", draws=3, **params)
    assert draws["seed"].tolist() == [0, 1, 2]
    for row in draws.itertuples():
        runs = cmp.tuning_pitfall("votes", seed=row.seed, **params)
        gap = runs["tuning"] - runs["fresh"]
        assert row.optimism == pytest.approx(gap.mean())
        assert row.positive == pytest.approx((gap > 0).mean())
        assert row.chosen == runs["chosen"].nunique()
        assert row.best == pytest.approx(max(runs.attrs["test_accuracy"].values()))
    with pytest.raises(InvalidParameterError):
        cmp.tuning_optimism("votes", draws=1, **params)


# ---------------------------------------------------------------------------------- exercises
def test_exercise_07_1_matches_the_frontier(capsys):
    points = cmp.EXERCISE_POINTS.assign(
        dataset="ex", n=100, repeat=0, private=True
    )
    front = cmp.pareto_frontier(points)
    assert EXERCISES["07.1"].answer == front["efficient"].sum() == 4
    check("07.1", int(front["efficient"].sum()))
    assert "correct" in capsys.readouterr().out


def test_exercise_07_2_rows_per_tree():
    forest = DPRandomForestClassifier()
    assert EXERCISES["07.2"].answer == pytest.approx(1000 / forest.n_trees)


def test_exercise_07_3_matches_the_ledger():
    data = load("votes")
    d1, d2 = slice(0, 200), slice(200, 400)
    model = PrivateRDTClassifier(0.5, n_trees=5, domain=data.domain, random_state=0)
    model.fit(data.X.iloc[d1], data.y.iloc[d1])
    model.update(data.X.iloc[d2], data.y.iloc[d2], method="rebuild",
                 X_previous=data.X.iloc[d1], y_previous=data.y.iloc[d1])
    # the rebuild's ledger charges the earlier release too: the true total for a row of D1
    assert model.ledger_.spent == pytest.approx(EXERCISES["07.3"].answer)
    fresh = PrivateRDTClassifier(0.5, n_trees=5, domain=data.domain, random_state=0)
    assert fresh.fit(data.X, data.y).ledger_.spent == pytest.approx(0.5)  # what "union" shows


def test_exercise_07_4_matches_the_tuning_bill():
    runs = cmp.tuning_pitfall("votes", epsilon=1.0, n=200, splits=5, n_tuning=40)
    assert runs.attrs["configs"] == 15
    assert runs.attrs["budgets"] == pytest.approx(EXERCISES["07.4"].answer)
