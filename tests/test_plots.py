import numpy as np
import pandas as pd
import pytest

from dpviz.domain import Categorical, Domain
from dpviz.errors import InvalidParameterError
from dpviz.plots import ledger_chart, noisy_counts_chart
from dpviz.privacy import PrivateTable


def _table():
    domain = Domain([Categorical("a", ("x", "y"))], ["no", "yes"])
    X = pd.DataFrame({"a": ["x", "y", "y"]})
    return PrivateTable(X, ["no", "yes", "yes"], domain=domain, epsilon=1.0, rng=0)


@pytest.mark.parametrize("by", ["label", "mechanism", "depth", "path"])
def test_ledger_chart_sums_charged_budget(by):
    t = _table()
    t.noisy_count(epsilon=0.25, label="size")
    for part in t.partition("a"):
        part.noisy_class_counts(epsilon=0.5, label="leaf")
    chart = ledger_chart(t.ledger, by=by)
    data = chart.data
    assert data["charged"].sum() == pytest.approx(0.75)
    assert by in data.columns
    assert chart.to_dict()["encoding"]["x"]["aggregate"] == "sum"


def test_ledger_chart_of_empty_ledger_and_bad_grouping():
    t = _table()
    assert len(ledger_chart(t.ledger).data) == 0
    with pytest.raises(InvalidParameterError, match="by"):
        ledger_chart(t.ledger, by="colour")


def test_noisy_counts_chart_data():
    chart = noisy_counts_chart(["a", "b"], [3, 4], np.array([2.0, 6.0]))
    data = chart.data
    assert list(data["release"]) == ["true", "true", "noisy", "noisy"]
    assert list(data["count"]) == [3, 4, 2, 6]
    with pytest.raises(InvalidParameterError, match="same length"):
        noisy_counts_chart(["a"], [1, 2], [1, 2])


def _layer_data(chart, i):
    import altair as alt

    data = chart.layer[i].data
    return chart.data if data is alt.Undefined else data


def test_audit_charts():
    from dpviz import audit_targets as targets
    from dpviz.audit import audit, bound_vs_samples
    from dpviz.plots import audit_histogram_chart, epsilon_bound_chart, privacy_loss_chart

    result = audit(targets.discrete_laplace_count(1.0), 0, 1, epsilon=1.0, n_samples=5_000)
    hist = audit_histogram_chart(result)
    assert list(_layer_data(hist, 0)["neighbour"]) == ["D", "D'"]
    profile = privacy_loss_chart(result)
    data = _layer_data(profile, 1)
    assert len(data) == len(result.selection)
    # a correct mechanism's point log-ratios stay near [-ε, ε] on well-populated events
    populated = (result.selection["count_D"] > 200) & (result.selection["count_D'"] > 200)
    assert (data["log_ratio"][populated].abs() < 1.3).all()
    frame = bound_vs_samples({"discrete Laplace": (targets.discrete_laplace_count(1.0), 0, 1)},
                             epsilon=1.0, sizes=(1_000, 10_000))
    assert list(frame["n_samples"]) == [1_000, 10_000]
    assert frame["epsilon_lower"].iloc[1] > frame["epsilon_lower"].iloc[0]
    epsilon_bound_chart(frame).to_dict()
