import math

import pandas as pd
import pytest

from dpviz.errors import InvalidParameterError
from dpviz.experiments import comparison, pareto, registry


def test_dominated_by_hand_example():
    eps = [0.1, 0.1, 1.0, 1.0, 1.0, 10.0]
    acc = [0.5, 0.6, 0.8, 0.8, 0.55, 0.7]
    # (0.1, .5) loses to (0.1, .6); the two (1, .8) tie and survive;
    # (1, .55) and (10, .7) are dominated
    assert pareto.dominated_by(eps, acc).tolist() == [True, False, False, False, True, True]
    assert not pareto.dominated_by([1.0], [0.3]).any()


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
    front = pareto.pareto_frontier(frame)
    eff = front[front["efficient"]].set_index(["n", "algorithm", "epsilon"])["mean"]
    assert sorted(eff.loc[100].index) == [("A", 1.0), ("A", 10.0), ("B", 0.1)]
    assert sorted(eff.loc[1000].index) == [("A", 1.0), ("B", 0.1), ("B", 10.0)]
    assert not (front["epsilon"] == math.inf).any()  # ε = ∞ runs are references, not points
    steps = pareto.envelope(front, ["dataset", "n"])
    assert (steps.groupby("n")["best"].diff().dropna() >= 0).all()  # best within a budget grows
    at_100 = steps[steps["n"] == 100].set_index("epsilon")
    assert at_100["best"].tolist() == pytest.approx([0.40, 0.50, 0.85])
    assert at_100["algorithm"].tolist() == ["B", "A", "A"]


def test_privacy_price_useful_from_and_winners():
    frame = _fake_frame()
    price = pareto.privacy_price(frame, 0.8).set_index("n")
    assert price.loc[100, "epsilon"] == 10.0 and price.loc[100, "algorithm"] == "A"
    assert price.loc[1000, "epsilon"] == 0.1 and price.loc[1000, "algorithm"] == "B"
    assert math.isnan(pareto.privacy_price(frame, 0.99).loc[0, "epsilon"])
    useful = pareto.useful_from(frame, margin=0.01).set_index("n")
    assert useful.loc[100, "epsilon"] == 0.1  # B's 0.40 beats the majority's 0.35 by > 1 point
    assert useful.loc[1000, "epsilon_n"] == pytest.approx(100)
    # by default "beats" means by FLOOR_MARGIN (5 points: more than a constant guess gains by
    # guessing another class); a margin above B's 5 points leaves n = 100 to A at ε = 1
    assert pareto.FLOOR_MARGIN == 0.05
    assert pareto.useful_from(frame).equals(pareto.useful_from(frame, margin=pareto.FLOOR_MARGIN))
    assert pareto.winners(frame).equals(pareto.winners(frame, floor_margin=pareto.FLOOR_MARGIN))
    assert pareto.useful_from(frame, margin=0.06).set_index("n").loc[100, "epsilon"] == 1.0
    win = pareto.winners(frame, floor_margin=0.01).set_index(["n", "epsilon"])
    assert win.loc[(100, 1.0), "winner"] == "A"
    assert win.loc[(100, 1.0), "margin"] == pytest.approx(0.05)
    assert win.loc[(100, 0.1), "majority"] == pytest.approx(0.35)
    strict = pareto.winners(frame, floor_margin=0.1).set_index(["n", "epsilon"])
    assert strict.loc[(100, 0.1), "winner"] == pareto.NO_WINNER
    with pytest.raises(InvalidParameterError):
        pareto.privacy_price(frame, 1.5)


def test_winners_break_exact_ties_in_private_order():
    rows = [
        ("d", a, True, 1.0, 100, r, 0.7) for a in ("DiffPC4.5", "DiffPID3-Max") for r in range(2)
    ]
    frame = pd.DataFrame(
        rows, columns=["dataset", "algorithm", "private", "epsilon", "n", "repeat", "accuracy"]
    )
    row = pareto.winners(frame).iloc[0]
    assert row["winner"] == "DiffPID3-Max" and row["tied"] == "DiffPC4.5"
    assert math.isnan(row["margin"]) and math.isnan(row["majority"])


@pytest.fixture(scope="module")
def votes_frame() -> pd.DataFrame:
    return comparison.compare(("votes",), registry.PRIVATE, (0.1, 1.0), (100, 300), 2)


def test_claims_structure(votes_frame):
    claims = pareto.claims(votes_frame, "votes")
    assert len(claims) == 6 and claims["holds"].map(lambda v: isinstance(v, bool)).all()
    assert list(claims.columns) == ["claim", "ours", "holds"]
    assert "n = 100" in claims.loc[2, "ours"] and "n = 300" in claims.loc[2, "ours"]
    with pytest.raises(InvalidParameterError):
        pareto.claims(votes_frame, "nursery")


def test_claims_read_the_numbers(votes_frame):
    # claim 1 is the mean DiffPID3-Max − SuLQ-ID3 difference over the (ε, n) cells
    stats = comparison.summary(votes_frame[votes_frame["private"]])
    by = stats.set_index(["algorithm", "n", "epsilon"])["mean"]
    diff = (by["DiffPID3-Max"] - by["SuLQ-ID3"]).mean()
    claims = pareto.claims(votes_frame, "votes")
    assert f"{diff:+.3f}" in claims.loc[0, "ours"]
    assert claims.loc[0, "holds"] == (diff >= 0.03)


@pytest.mark.parametrize("by", [("dataset", "n"), ("n",)])
def test_a_private_point_no_better_than_a_constant_guess_is_not_efficient(by):
    # one private learner at a tiny ε scores below the majority class: nothing private beats it
    # at that ε, yet spending budget to do worse than guessing is dominated by the guess (ε = 0)
    rows = [("toy", "majority class", False, math.inf, 100, r, 0.50) for r in range(2)]
    rows += [("toy", "A", True, 0.01, 100, r, 0.40) for r in range(2)]
    rows += [("toy", "A", True, 1.0, 100, r, 0.80) for r in range(2)]
    frame = pd.DataFrame(
        rows, columns=["dataset", "algorithm", "private", "epsilon", "n", "repeat", "accuracy"]
    )
    front = pareto.pareto_frontier(frame, by=by).set_index("epsilon")["efficient"]
    assert front.to_dict() == {0.01: False, 1.0: True}
    without = pareto.pareto_frontier(frame, by=by, constant=False).set_index("epsilon")
    assert without["efficient"].to_dict() == {0.01: True, 1.0: True}
