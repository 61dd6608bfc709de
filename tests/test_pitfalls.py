import numpy as np
import pytest

from dpviz.errors import InvalidParameterError
from dpviz.experiments import pitfalls


def test_budget_pitfall_accounts_for_the_earlier_release():
    table = pitfalls.budget_pitfall("votes", epsilon=0.5, repeats=2).set_index("method")
    assert table.loc["union", "total_epsilon"] == 1.0
    assert table.loc["update", "total_epsilon"] == table.loc["union_half", "total_epsilon"] == 0.5
    # the fresh union model's own ledger cannot see the earlier release: it says ε, not 2ε
    assert table.loc["union", "model_ledger"] == pytest.approx(0.5)
    assert table["mean"].between(0, 1).all()


def test_tuning_pitfall_small():
    runs = pitfalls.tuning_pitfall(
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
        pitfalls.tuning_pitfall("votes", n_tuning=500)


def test_tuning_optimism_summarizes_one_pitfall_per_seed():
    params = dict(epsilon=1.0, n=200, depths=(2, 3), criteria=("max", "gini"), n_tuning=40,
                  splits=20)
    draws = pitfalls.tuning_optimism("votes", draws=3, **params)
    assert draws["seed"].tolist() == [0, 1, 2]
    for row in draws.itertuples():
        runs = pitfalls.tuning_pitfall("votes", seed=row.seed, **params)
        gap = runs["tuning"] - runs["fresh"]
        assert row.optimism == pytest.approx(gap.mean())
        assert row.positive == pytest.approx((gap > 0).mean())
        assert row.chosen == runs["chosen"].nunique()
        assert row.best == pytest.approx(max(runs.attrs["test_accuracy"].values()))
    with pytest.raises(InvalidParameterError):
        pitfalls.tuning_optimism("votes", draws=1, **params)

