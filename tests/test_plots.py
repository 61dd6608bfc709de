import numpy as np
import pandas as pd
import pytest

from dpviz.domain import Categorical, Domain
from dpviz.errors import InvalidParameterError
from dpviz.privacy import PrivateTable
from dpviz.ui.plots import (
    accuracy_chart,
    epsilon_bound_chart,
    ledger_chart,
    log_ticks,
    noisy_counts_chart,
)


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
    from dpviz.audit import targets
    from dpviz.audit.engine import audit, bound_vs_samples
    from dpviz.ui.plots import audit_histogram_chart, epsilon_bound_chart, privacy_loss_chart

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


def test_epsilon_bound_chart_legend_and_ticks_are_legible():
    # notebook 06: the legend cut long mechanism names (Vega's labelLimit: 160 px) and the log
    # axis wrote "3,000" "4,000" ... into each other
    names = [
        "FI 2017 smooth-sensitivity label (withdrawn): ((60, 0), (61, 0))",
        "discrete Laplace count: (10, 11)",
    ]
    sizes = [1_000, 3_000, 10_000, 30_000, 100_000]
    frame = pd.DataFrame(
        [{"mechanism": m, "n_samples": n, "epsilon_lower": 0.1, "epsilon": 0.5}
         for m in names for n in sizes]
    )
    spec = epsilon_bound_chart(frame).to_dict()
    encoding = spec["layer"][0]["encoding"]
    legend = encoding["color"]["legend"]
    assert legend["labelLimit"] >= 6 * len(names[0])  # at least ~6 px per character
    axis = encoding["x"]["axis"]
    assert axis["values"] == sizes and axis["format"] == "~s"  # 1k, 3k, 10k, 30k, 100k


def test_log_ticks_do_not_run_together():
    assert log_ticks(0.05, 10.0) == [0.01, 0.1, 1.0, 10.0]  # 1-2-5 steps would be 10
    assert log_ticks(0.2, 1.0) == [0.1, 0.2, 0.5, 1.0]
    assert log_ticks(1e-6, 1e6) == [1e-6, 1e-3, 1.0, 1e3, 1e6]  # every 3rd power of ten
    assert len(log_ticks(1e-6, 1e6, max_ticks=3)) <= 3
    with pytest.raises(InvalidParameterError, match="low=0"):
        log_ticks(0, 1)


@pytest.mark.parametrize("epsilons", [(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10), (0.2, 1.0)])
def test_accuracy_chart_log_axis_has_few_ticks(epsilons):
    # notebook 07: "0.010.02" on a narrow log axis
    frame = pd.DataFrame({"epsilon": list(epsilons) * 2, "accuracy": 0.5})
    spec = accuracy_chart(frame, highlight=0.3, width=300).to_dict()
    axis = spec["layer"][0]["encoding"]["x"]["axis"]
    assert 2 <= len(axis["values"]) <= 6 and axis["format"] == "~g"
    assert min(axis["values"]) <= min(epsilons) * 10 and max(axis["values"]) >= max(epsilons) / 10


def test_the_dpviz_renderer_adds_a_png_so_voila_shows_no_set_data_error():
    """Voilà's plain outputs have no setData: a bundle without image/png made JupyterLab's
    Vega renderer fail after drawing ("Javascript Error: e.setData is not a function")."""
    import base64

    import altair as alt

    from dpviz.ui.plots import PLACEHOLDER_PNG

    with alt.renderers.enable("dpviz"):
        bundle, _ = alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_point().encode(
            x="x:Q")._repr_mimebundle_()
    assert set(bundle) == {"application/vnd.vegalite.v5+json", "image/png", "text/plain"}
    assert bundle["image/png"] == PLACEHOLDER_PNG
    assert base64.b64decode(PLACEHOLDER_PNG).startswith(b"\x89PNG\r\n\x1a\n")
    assert bundle["application/vnd.vegalite.v5+json"]["mark"]["type"] == "point"
