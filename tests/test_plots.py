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
