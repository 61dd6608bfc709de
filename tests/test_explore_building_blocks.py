"""Notebook 01's library side: the three explorer callbacks over a grid of slider values,
the exact checks, the overlap audit and the exercise answers."""

import itertools
import math

import altair as alt
import numpy as np
import pytest

from dpviz import mechanisms
from dpviz.errors import InvalidParameterError
from dpviz.explore import building_blocks as bb
from dpviz.privacy import PrivateTable
from dpviz.ui.exercises import EXERCISES, check

EPSILONS = (0.01, 0.1, 0.3, 1.0, 3.0, 10.0)


def _layer_data(chart, i=0):
    data = chart.layer[i].data
    return chart.data if data is alt.Undefined else data


@pytest.mark.parametrize("mechanism", bb.COUNT_MECHANISMS)
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_noise_chart_over_the_slider(epsilon, mechanism):
    chart = bb.noise_chart(epsilon, mechanism, n_samples=5_000)
    assert isinstance(chart, alt.LayerChart)
    chart.to_dict()  # a valid Vega-Lite spec
    frame = _layer_data(chart)
    # the bins tile the central 99.9% of the noise and their exact probabilities say so
    assert len(frame) <= 60
    assert np.all(frame["end"] > frame["start"])
    assert np.allclose(frame["start"].iloc[1:].to_numpy(), frame["end"].iloc[:-1].to_numpy())
    assert 0.998 <= frame["exact"].sum() <= 1.0 + 1e-12
    assert (frame["exact"] >= 0).all() and (frame["sampled"] >= 0).all()
    # the histogram follows the exact distribution: total variation within sampling error
    assert 0.5 * np.abs(frame["sampled"] - frame["exact"]).sum() < 0.05
    # the true count sits in the middle bin's range
    assert frame["start"].min() < 100 < frame["end"].max()


def test_discrete_noise_bins_are_the_pmf_at_large_epsilon():
    frame = bb.noise_frame(1.0, "discrete_laplace", n_samples=1000)
    middle = frame.loc[frame["centre"] == 100.0].iloc[0]
    assert middle["exact"] == pytest.approx(math.tanh(0.5))
    assert middle["end"] - middle["start"] == 1.0


def test_noise_std_matches_samples():
    for mechanism in bb.COUNT_MECHANISMS:
        for eps in (0.1, 1.0):
            draws = (mechanisms.laplace if mechanism == "laplace" else mechanisms.discrete_laplace)(
                0, epsilon=eps, rng=1, size=100_000
            )
            # sample std of 1e5 draws: relative error ~ sqrt(5/4e5) ≈ 0.35%; allow 2%
            assert np.std(draws) == pytest.approx(bb.noise_std(eps, mechanism), rel=0.02)
    with pytest.raises(InvalidParameterError):
        bb.noise_std(1.0, "gaussian")


@pytest.mark.parametrize("example", list(bb.SELECTION_EXAMPLES))
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_selection_chart_over_the_slider(epsilon, example):
    chart = bb.selection_chart(epsilon, example, n_samples=4_000)
    chart.to_dict()
    frame = _layer_data(chart)
    labels, utilities = bb.SELECTION_EXAMPLES[example]
    assert len(frame) == 3 * len(labels)
    sums = frame.groupby("mechanism")[["exact", "sampled"]].sum()
    assert np.allclose(sums, 1.0)
    best = frame[frame["utility"] == max(utilities)].set_index("mechanism")["exact"]
    # report noisy max is never worse than the softmax exp(εu/Δ) (permute-and-flip), which is
    # never worse than the general calibration exp(εu/2Δ)
    assert best["report noisy max"] >= best["exponential for counts, exp(εu/Δ)"] - 1e-12
    assert best["exponential for counts, exp(εu/Δ)"] >= best["exponential, exp(εu/2Δ)"] - 1e-12
    # sampled frequencies within 5 binomial standard errors of the exact probabilities
    se = np.sqrt(frame["exact"] * (1 - frame["exact"]) / 4_000) + 1e-9
    assert (np.abs(frame["sampled"] - frame["exact"]) <= 5 * se + 1e-3).all()


def test_selection_rejects_unknown_example():
    with pytest.raises(InvalidParameterError):
        bb.selection_chart(1.0, "nothing")
    with pytest.raises(InvalidParameterError):
        bb.selection_frame([1, 2], 1.0, labels=["a"])


def test_more_epsilon_picks_the_best_more_often():
    probs = [
        bb.selection_frame((10, 8, 5, 0), e, n_samples=10).query("utility == 10")["exact"]
        for e in (0.01, 0.1, 1.0)
    ]
    assert all((b > a).all() for a, b in itertools.pairwise(probs))


def test_exact_checks_match_the_published_numbers():
    table = bb.exact_checks()
    published = table.dropna(subset=["published"])
    assert len(published) == 3
    # the papers print 3 significant digits
    assert np.allclose(published["exact"], published["published"], atol=0.0005, rtol=0.003)
    by = table.set_index("mechanism")["exact"]
    assert by["report noisy max (one-sided exp.)"] == pytest.approx(1 - math.exp(-0.5) / 2)
    assert by["exponential for counts, exp(εu/Δ)"] == pytest.approx(0.6225, abs=5e-5)


def test_sampled_checks_agree_with_the_exact_values():
    table = bb.sampled_checks(n_samples=50_000, seed=3)
    assert (table["z"].abs() < 5).all(), table


@pytest.mark.parametrize(
    ("count_eps", "classes_eps", "group_eps", "refused"),
    [
        (0.1, 0.4, 0.4, 0),  # 0.9 of 1: everything answered
        (0.3, 0.3, 0.4, 0),  # exactly 1 (three groups at 0.4 together cost 0.4)
        (0.5, 0.4, 0.4, 3),  # the three per-group queries are refused
        (1.0, 0.1, 0.1, 4),  # all but the count are refused
        (0.01, 0.01, 0.01, 0),
    ],
)
def test_budget_game_over_the_sliders(count_eps, classes_eps, group_eps, refused):
    table, answers, refusals = bb.budget_game(count_eps, classes_eps, group_eps)
    assert len(refusals) == refused
    assert table.ledger.spent <= 1.0 + 1e-9
    expected = count_eps + (classes_eps if "class counts" in answers else 0)
    expected += group_eps if "class counts per health" in answers else 0
    assert table.ledger.spent == pytest.approx(expected)
    chart = bb.budget_game_chart(count_eps, classes_eps, group_eps)
    spec = chart.to_dict()
    assert len(spec["vconcat"]) == 3


def test_overlap_audit_refutes_the_parallel_claim_and_keeps_the_true_one():
    wrong = bb.overlap_audit(1.0, overlap=True, n_samples=20_000)
    # exact ratio e^2: P_D' = 0.731^2 = 0.534 against P_D = 0.269^2 = 0.072
    assert wrong.reject and wrong.exact_epsilon == 2.0
    assert 1.5 < wrong.epsilon_lower < 2.0 + 1e-9
    right = bb.overlap_audit(1.0, overlap=False, n_samples=20_000)
    assert not right.reject and right.exact_epsilon == 1.0


def test_exercise_answers(capsys):
    # 01.5: P(noise = 0) = 1/2
    eps = EXERCISES["01.5"].answer
    assert mechanisms.discrete_laplace_pmf(0, epsilon=eps) == pytest.approx(0.5)
    # 01.6: report noisy max on (5, 10) at ε = 0.2
    p = mechanisms.report_noisy_max_probabilities([5, 10], epsilon=0.2)[1]
    assert EXERCISES["01.6"].answer == pytest.approx(p)
    # 01.7: the two health groups are disjoint (parallel), the finance group overlaps both
    # (sequential): the ledger of a table that asks the three counts so says
    from dpviz.data.uci import load

    data = load("nursery")
    table = PrivateTable(data.X, data.y, domain=data.domain, epsilon=2.0, rng=0)
    health = dict(zip(data.domain["health"].values, table.partition("health"), strict=True))
    health["recommended"].noisy_count(epsilon=0.4, label="health = recommended")
    health["priority"].noisy_count(epsilon=0.3, label="health = priority")
    finance = dict(zip(data.domain["finance"].values, table.partition("finance"), strict=True))
    finance["convenient"].noisy_count(epsilon=0.25, label="finance = convenient")
    assert table.ledger.spent == pytest.approx(EXERCISES["01.7"].answer)
    for key in ("01.5", "01.6", "01.7"):
        check(key, EXERCISES[key].answer)
    assert capsys.readouterr().out.count("correct") == 3
    for wrong in (0.4, 0.95, 0.7):  # parallel only; sequential only; §5's pair at ε = 0.35
        with pytest.raises(AssertionError, match="Hint"):
            check("01.7", wrong)
    for key in ("01.5", "01.6", "01.7"):  # no hint states its answer
        hint = EXERCISES[key].hint
        assert "ln 3" not in hint and "0.65" not in hint and "0.4 + 0.25" not in hint
        assert "exp(-" not in hint
