"""Statistical tests of dpviz.mechanisms against their exact distributions.

Every goodness-of-fit test uses a fixed seed and a significance level that does not depend
on a hand-picked tolerance: the sample must *pass* at p > 1e-3, and for each family a
deliberately wrong reference distribution must be *rejected* at p < 1e-6 with the same
sample size, which shows the test has the power to notice a mistake.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.mechanisms import (
    discrete_laplace,
    discrete_laplace_pmf,
    exponential_mechanism,
    exponential_probabilities,
    laplace,
    majority_label_smooth_sensitivity,
    report_noisy_max,
    report_noisy_max_probabilities,
    smooth_sensitivity_label,
    smooth_sensitivity_label_probabilities,
)

N = 200_000
PASS_P = 1e-3
REJECT_P = 1e-6


def chisquare_pvalue(samples: np.ndarray, probs: np.ndarray) -> float:
    """Chi-square p-value of integer samples in {0..m-1} against exact probabilities.

    Bins whose expected count is below 5 are pooled into one bin (merged with the smallest
    remaining bin if the pool itself is still below 5). A sample in a bin of probability 0 is
    an outright failure (p = 0).
    """
    probs = np.asarray(probs, dtype=float)
    observed = np.bincount(np.asarray(samples).ravel(), minlength=probs.size).astype(float)
    assert observed.size == probs.size, "sample outside the support"
    if observed[probs == 0.0].sum() > 0:
        return 0.0
    n = observed.sum()
    expected = n * probs
    small = expected < 5
    obs = list(observed[~small])
    exp = list(expected[~small])
    if small.any():
        pooled_o, pooled_e = observed[small].sum(), expected[small].sum()
        if pooled_e >= 5 or not exp:
            obs.append(pooled_o)
            exp.append(pooled_e)
        else:
            i = int(np.argmin(exp))
            obs[i] += pooled_o
            exp[i] += pooled_e
    if len(exp) < 2:
        return 1.0
    obs_a, exp_a = np.array(obs), np.array(exp)
    exp_a *= obs_a.sum() / exp_a.sum()  # remove float rounding so chisquare accepts the sums
    return float(stats.chisquare(obs_a, exp_a).pvalue)


def assert_invalid(func, match_name: str, bad: object, **kwargs) -> None:
    """Assert ``func(**kwargs)`` raises InvalidParameterError naming the parameter and value."""
    with pytest.raises(InvalidParameterError) as info:
        func(**kwargs)
    message = str(info.value)
    assert match_name in message
    assert repr(bad) in message


# ----------------------------------------------------------------------------------------------
# Laplace
# ----------------------------------------------------------------------------------------------


def test_laplace_matches_exact_distribution_and_test_has_power():
    rng = np.random.default_rng(20240101)
    value, eps, delta = 3.0, 0.5, 2.0
    x = laplace(value, epsilon=eps, sensitivity=delta, rng=rng, size=N)
    assert x.shape == (N,) and x.dtype == np.float64
    scale = delta / eps
    assert stats.kstest(x, stats.laplace(loc=value, scale=scale).cdf).pvalue > PASS_P
    assert stats.kstest(x, stats.laplace(loc=value, scale=1.1 * scale).cdf).pvalue < REJECT_P
    assert stats.kstest(x, stats.laplace(loc=value + 0.1, scale=scale).cdf).pvalue < REJECT_P


def test_laplace_vector_shapes_and_independent_coordinates():
    rng = np.random.default_rng(7)
    value = np.array([[0.0, 10.0, -5.0], [1.0, 2.0, 3.0]])
    assert isinstance(laplace(1.0, epsilon=1.0, rng=rng), float)
    assert laplace(value, epsilon=1.0, rng=rng).shape == (2, 3)
    assert laplace(value, epsilon=1.0, rng=rng, size=4).shape == (4, 2, 3)
    assert laplace(1.0, epsilon=1.0, rng=rng, size=(2, 5)).shape == (2, 5)
    x = laplace(value, epsilon=2.0, sensitivity=1.0, rng=rng, size=50_000)
    for idx in np.ndindex(value.shape):
        column = x[(slice(None), *idx)]
        ref = stats.laplace(loc=value[idx], scale=0.5).cdf
        assert stats.kstest(column, ref).pvalue > PASS_P
    # coordinates are independent: correlation within noise of zero (|r| < 5/sqrt(n))
    r = np.corrcoef(x[:, 0, 0], x[:, 0, 1])[0, 1]
    assert abs(r) < 5 / math.sqrt(50_000)


def test_laplace_epsilon_inf_is_exact_value():
    value = np.array([1.5, -2.0])
    out = laplace(value, epsilon=math.inf, rng=0, size=3)
    assert out.shape == (3, 2)
    np.testing.assert_array_equal(out, np.broadcast_to(value, (3, 2)))
    assert laplace(4.25, epsilon=math.inf, rng=0) == 4.25


def test_laplace_refuses_nan_and_infinite_value():
    for bad in (math.nan, [1.0, math.nan], math.inf, "3", True, [1.0, None]):
        with pytest.raises(InvalidParameterError, match="value"):
            laplace(bad, epsilon=1.0, rng=0)


# ----------------------------------------------------------------------------------------------
# Discrete Laplace
# ----------------------------------------------------------------------------------------------


def _discrete_laplace_bins(noise: np.ndarray, a: float, k_max: int) -> tuple[np.ndarray, ...]:
    """Map noise to bins 0..2k_max+2 (two tail bins) and return (bins, exact probabilities)."""
    dist = stats.dlaplace(a)
    ks = np.arange(-k_max, k_max + 1)
    probs = np.concatenate([[dist.cdf(-k_max - 1)], dist.pmf(ks), [dist.sf(k_max)]])
    bins = np.clip(noise, -k_max - 1, k_max + 1) + k_max + 1
    return bins, probs


@pytest.mark.parametrize(("eps", "delta"), [(0.8, 1), (0.3, 2)])
def test_discrete_laplace_matches_scipy_dlaplace(eps, delta):
    rng = np.random.default_rng(99)
    value = 17
    x = discrete_laplace(value, epsilon=eps, sensitivity=delta, rng=rng, size=N)
    assert x.dtype == np.int64 and x.shape == (N,)
    a = eps / delta
    k_max = math.ceil(25 / a)
    bins, probs = _discrete_laplace_bins(x - value, a, k_max)
    assert chisquare_pvalue(bins, probs) > PASS_P
    # power: a 10 % larger ε (smaller noise) is rejected with the same sample
    bins_w, probs_w = _discrete_laplace_bins(x - value, 1.1 * a, k_max)
    assert chisquare_pvalue(bins_w, probs_w) < REJECT_P


def test_discrete_laplace_pmf_is_exact():
    k = np.arange(-40, 41)
    for eps, delta in [(0.1, 1), (1.0, 1), (2.0, 3), (0.01, 1)]:
        expected = stats.dlaplace(eps / delta).pmf(k)
        np.testing.assert_allclose(
            discrete_laplace_pmf(k, epsilon=eps, sensitivity=delta), expected, rtol=1e-12
        )
    # sums to one (closed form, no truncation): the tail beyond ±40 at a = 2 is negligible
    assert math.isclose(discrete_laplace_pmf(k, epsilon=2.0).sum(), 1.0, rel_tol=1e-12)
    assert discrete_laplace_pmf(0.5, epsilon=1.0) == 0.0
    assert isinstance(discrete_laplace_pmf(3, epsilon=1.0), float)
    np.testing.assert_array_equal(
        discrete_laplace_pmf([-1, 0, 1], epsilon=math.inf), np.array([0.0, 1.0, 0.0])
    )


def test_discrete_laplace_integer_dtype_shapes_and_inf():
    rng = np.random.default_rng(3)
    counts = np.array([4, 0, 9])
    out = discrete_laplace(counts, epsilon=1.0, rng=rng, size=(5, 2))
    assert out.shape == (5, 2, 3) and out.dtype == np.int64
    scalar = discrete_laplace(4, epsilon=1.0, rng=rng)
    assert np.asarray(scalar).dtype == np.int64 and np.ndim(scalar) == 0
    exact = discrete_laplace(counts, epsilon=math.inf, rng=rng, size=2)
    assert exact.dtype == np.int64
    np.testing.assert_array_equal(exact, np.stack([counts, counts]))
    # integral floats (e.g. counts read by pandas as float) are accepted
    assert discrete_laplace(np.array([3.0, 4.0]), epsilon=math.inf, rng=rng).tolist() == [3, 4]


@pytest.mark.parametrize("bad", [2.5, [1, 2.5], math.nan, True, "3", math.inf])
def test_discrete_laplace_refuses_non_integer_value(bad):
    with pytest.raises(InvalidParameterError, match="value"):
        discrete_laplace(bad, epsilon=1.0, rng=0)


# ----------------------------------------------------------------------------------------------
# Exponential mechanism
# ----------------------------------------------------------------------------------------------


def test_exponential_probabilities_match_direct_formula():
    u = np.array([3.0, 1.0, 0.0, 2.5])
    for eps, delta, monotone in [(1.0, 1.0, False), (0.7, 2.0, True), (0.1, 0.5, False)]:
        rate = eps / delta if monotone else eps / (2 * delta)
        w = np.exp(rate * u)
        np.testing.assert_allclose(
            exponential_probabilities(u, epsilon=eps, sensitivity=delta, monotone=monotone),
            w / w.sum(),
            rtol=1e-13,
        )


def test_exponential_mechanism_matches_exact_distribution_and_test_has_power():
    rng = np.random.default_rng(11)
    u = np.array([3.0, 1.0, 0.0, 2.5, -np.inf])
    probs = exponential_probabilities(u, epsilon=1.0, sensitivity=1.0)
    assert probs[-1] == 0.0
    x = exponential_mechanism(u, epsilon=1.0, sensitivity=1.0, rng=rng, size=N)
    assert x.shape == (N,) and x.dtype == np.int64
    assert chisquare_pvalue(x, probs) > PASS_P
    wrong = exponential_probabilities(u, epsilon=1.1, sensitivity=1.0)
    assert chisquare_pvalue(x, wrong) < REJECT_P

    xm = exponential_mechanism(u, epsilon=1.0, sensitivity=1.0, rng=rng, size=N, monotone=True)
    probs_m = exponential_probabilities(u, epsilon=1.0, sensitivity=1.0, monotone=True)
    assert chisquare_pvalue(xm, probs_m) > PASS_P
    assert chisquare_pvalue(xm, probs) < REJECT_P


def test_exponential_mechanism_batched_rows_match_their_own_distributions():
    rng = np.random.default_rng(12)
    u = np.array([[0.0, 1.0, 2.0], [5.0, 5.0, 0.0], [-np.inf, 0.0, 0.3], [10.0, 0.0, 9.0]])
    n = 60_000
    x = exponential_mechanism(u, epsilon=2.0, sensitivity=1.0, rng=rng, size=n)
    assert x.shape == (n, 4)
    probs = exponential_probabilities(u, epsilon=2.0, sensitivity=1.0)
    assert probs.shape == u.shape
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-14)
    for row in range(u.shape[0]):
        assert chisquare_pvalue(x[:, row], probs[row]) > PASS_P
    # the rows really differ: row 0's sample is rejected against row 3's distribution
    assert chisquare_pvalue(x[:, 0], probs[3]) < REJECT_P


def test_exponential_mechanism_shapes():
    u1 = [1.0, 2.0, 3.0]
    u2 = np.zeros((4, 3))
    assert isinstance(exponential_mechanism(u1, epsilon=1.0, sensitivity=1.0, rng=0), int)
    assert exponential_mechanism(u1, epsilon=1.0, sensitivity=1.0, rng=0, size=7).shape == (7,)
    assert exponential_mechanism(u1, epsilon=1, sensitivity=1, rng=0, size=(2, 3)).shape == (2, 3)
    assert exponential_mechanism(u2, epsilon=1.0, sensitivity=1.0, rng=0).shape == (4,)
    assert exponential_mechanism(u2, epsilon=1, sensitivity=1, rng=0, size=(5,)).shape == (5, 4)
    assert exponential_mechanism(u2, epsilon=1, sensitivity=1, rng=0, size=(2, 5)).shape == (
        2,
        5,
        4,
    )
    assert exponential_mechanism([7.0], epsilon=1.0, sensitivity=1.0, rng=0) == 0


def test_exponential_mechanism_extreme_utilities_do_not_overflow():
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        for monotone in (False, True):
            kw = {"epsilon": 1.0, "sensitivity": 1.0, "monotone": monotone}
            x = exponential_mechanism([1e300, 0.5e300, 0.0], rng=1, size=10_000, **kw)
            assert (x == 0).all()
            p = exponential_probabilities([1e300, 0.5e300, 0.0], **kw)
            assert np.isfinite(p).all()
            np.testing.assert_array_equal(p, [1.0, 0.0, 0.0])
            # gaps that overflow float64 (2e308) and -inf entries have probability 0
            x = exponential_mechanism([-np.inf, 1e308, -1e308], rng=2, size=1000, **kw)
            assert (x == 1).all()
            np.testing.assert_array_equal(
                exponential_probabilities([-np.inf, 1e308, -1e308], **kw), [0.0, 1.0, 0.0]
            )
            # -inf with otherwise moderate utilities
            x = exponential_mechanism([-np.inf, 0.0, 0.0, -np.inf], rng=3, size=10_000, **kw)
            assert set(np.unique(x)) == {1, 2}
        x = report_noisy_max([1e300, 0.5e300, 0.0], epsilon=1.0, rng=4, size=10_000)
        assert (x == 0).all()
        np.testing.assert_array_equal(
            report_noisy_max_probabilities([1e300, 0.5e300, 0.0, -np.inf], epsilon=1.0),
            [1.0, 0.0, 0.0, 0.0],
        )


@pytest.mark.parametrize(
    "bad",
    [[1.0, math.nan], [1.0, math.inf], [-math.inf, -math.inf], [], [[0.0, 1.0], [-np.inf] * 2]],
)
def test_selection_mechanisms_refuse_bad_utilities(bad):
    for func in (exponential_mechanism, report_noisy_max):
        with pytest.raises(InvalidParameterError, match="utilities"):
            func(bad, epsilon=1.0, sensitivity=1.0, rng=0)
    with pytest.raises(InvalidParameterError, match="utilities"):
        exponential_probabilities(bad, epsilon=1.0, sensitivity=1.0)
    with pytest.raises(InvalidParameterError, match="utilities"):
        report_noisy_max_probabilities(bad, epsilon=1.0)


# ----------------------------------------------------------------------------------------------
# Report One-Sided Noisy Arg-Max
# ----------------------------------------------------------------------------------------------


def _rnm_probabilities_by_quad(u: np.ndarray, rate: float) -> np.ndarray:
    """Independent reference: integrate f_i(x) ∏_{j≠i} F_j(x) with scipy.integrate.quad."""
    out = np.empty(u.size)
    for i in range(u.size):

        def integrand(x, i=i):
            if x < u[i]:
                return 0.0
            value = rate * math.exp(-rate * (x - u[i]))
            for j in range(u.size):
                if j != i:
                    value *= -math.expm1(-rate * (x - u[j])) if x > u[j] else 0.0
            return value

        breaks = sorted(set(u.tolist()))
        total = 0.0
        edges = [*breaks, u.max() + 60.0 / rate]
        for lo, hi in itertools.pairwise(edges):
            total += integrate.quad(integrand, lo, hi, epsabs=1e-14, epsrel=1e-13)[0]
        total += integrate.quad(integrand, edges[-1], np.inf, epsabs=1e-14)[0]
        out[i] = total
    return out


def test_report_noisy_max_probabilities_two_candidate_closed_form():
    for eps, delta, gap in [(0.1, 1.0, 5.0), (1.0, 1.0, 0.0), (0.5, 2.0, 3.0), (2.0, 1.0, 7.0)]:
        for monotone, rate in [(True, eps / delta), (False, eps / (2 * delta))]:
            p = report_noisy_max_probabilities(
                [0.0, gap], epsilon=eps, sensitivity=delta, monotone=monotone
            )
            best = 1.0 - 0.5 * math.exp(-rate * gap)
            assert abs(p[1] - best) < 1e-12 and abs(p.sum() - 1.0) < 1e-12


def test_report_noisy_max_probabilities_match_numerical_integration():
    cases = [
        (np.array([5.0, 10.0, 7.0, 9.5, 0.0]), 0.3),
        (np.array([3.0, 3.0, 1.0, 2.0, 3.0, 0.0, 2.5, 1.5, 0.5, 2.9]), 1.0),
        (np.array([100.0, 99.0, 98.0, 120.0]), 0.05),
    ]
    for u, eps in cases:
        exact = report_noisy_max_probabilities(u, epsilon=eps)
        reference = _rnm_probabilities_by_quad(u, eps)
        np.testing.assert_allclose(exact, reference, rtol=0, atol=1e-9)
        assert abs(exact.sum() - 1.0) < 1e-12
    # batched rows agree with row-by-row computation
    batch = np.stack([cases[0][0], cases[0][0][::-1]])
    np.testing.assert_allclose(
        report_noisy_max_probabilities(batch, epsilon=0.3)[1],
        report_noisy_max_probabilities(batch[1], epsilon=0.3),
        rtol=1e-13,
    )


def test_fi_addendum_sanity_numbers_noisy_argmax_vs_softmax():
    counts = [5, 10]
    p_rnm = report_noisy_max_probabilities(counts, epsilon=0.1)
    p_soft = exponential_probabilities(counts, epsilon=0.1, sensitivity=1.0, monotone=True)
    assert round(p_rnm[1], 3) == 0.697
    assert round(p_soft[1], 3) == 0.622
    rng = np.random.default_rng(5)
    x = report_noisy_max(counts, epsilon=0.1, rng=rng, size=N)
    assert chisquare_pvalue(x, p_rnm) > PASS_P
    # the addendum's Table 6 softmax is a different distribution, and the test can tell
    assert chisquare_pvalue(x, p_soft) < REJECT_P


def test_report_noisy_max_matches_exact_distribution():
    rng = np.random.default_rng(6)
    u = np.array([4.0, 6.0, 6.0, 1.0, -np.inf, 5.0])
    for monotone in (True, False):
        x = report_noisy_max(u, epsilon=0.8, sensitivity=1.0, rng=rng, size=N, monotone=monotone)
        assert x.dtype == np.int64 and x.shape == (N,)
        probs = report_noisy_max_probabilities(u, epsilon=0.8, monotone=monotone)
        assert probs[4] == 0.0
        assert chisquare_pvalue(x, probs) > PASS_P
        other = report_noisy_max_probabilities(u, epsilon=0.8, monotone=not monotone)
        assert chisquare_pvalue(x, other) < REJECT_P


def test_report_noisy_max_batched_rows_and_shapes():
    rng = np.random.default_rng(8)
    u = np.array([[0.0, 1.0, 2.0], [3.0, 3.0, 0.0], [10.0, 0.0, 9.0]])
    x = report_noisy_max(u, epsilon=1.0, rng=rng, size=60_000)
    assert x.shape == (60_000, 3)
    probs = report_noisy_max_probabilities(u, epsilon=1.0)
    for row in range(3):
        assert chisquare_pvalue(x[:, row], probs[row]) > PASS_P
    assert isinstance(report_noisy_max([1, 2], epsilon=1.0, rng=0), int)
    assert report_noisy_max(u, epsilon=1.0, rng=0).shape == (3,)
    assert report_noisy_max(u, epsilon=1.0, rng=0, size=(2, 4)).shape == (2, 4, 3)


def test_exact_distributions_are_epsilon_dp_on_neighbouring_counts():
    """Sanity of the proven mechanisms: adding one record never moves a log-probability by > ε."""
    eps = 0.5
    base = np.array([[5, 10, 7], [0, 0, 0], [3, 3, 9], [40, 1, 2]])
    for counts in base:
        for k in range(counts.size):
            neighbour = counts.copy()
            neighbour[k] += 1
            pairs = [
                (
                    exponential_probabilities(counts, epsilon=eps, sensitivity=1.0),
                    exponential_probabilities(neighbour, epsilon=eps, sensitivity=1.0),
                ),
                (
                    exponential_probabilities(counts, epsilon=eps, sensitivity=1, monotone=True),
                    exponential_probabilities(neighbour, epsilon=eps, sensitivity=1, monotone=True),
                ),
                (
                    report_noisy_max_probabilities(counts, epsilon=eps),
                    report_noisy_max_probabilities(neighbour, epsilon=eps),
                ),
                (
                    report_noisy_max_probabilities(counts, epsilon=eps, monotone=False),
                    report_noisy_max_probabilities(neighbour, epsilon=eps, monotone=False),
                ),
            ]
            for p, q in pairs:
                assert np.max(np.abs(np.log(p) - np.log(q))) <= eps + 1e-12


# ----------------------------------------------------------------------------------------------
# Fletcher & Islam (2017) smooth-sensitivity mechanism (withdrawn)
# ----------------------------------------------------------------------------------------------


def test_smooth_sensitivity_reproduces_fi_table_2():
    js = np.array([0, 1, 5, 10, 50, 100, 500])
    table = {
        0.01: [1.0, 0.99004, 0.95122, 0.90483, 0.60653, 0.36788, 0.00674],
        0.1: [1.0, 0.90483, 0.60653, 0.36788, 0.00674, 0.00005, 1.93e-22],
        1.0: [1.0, 0.36788, 0.00674, 0.00005, 1.93e-22, 3.72e-44, 7.12e-218],
    }
    counts = np.stack([js + 3, np.full_like(js, 3)], axis=1)
    for eps, expected in table.items():
        got = majority_label_smooth_sensitivity(counts, epsilon=eps)
        np.testing.assert_allclose(got, expected, rtol=1e-2, atol=5e-6)


def test_smooth_sensitivity_reproduces_fi_addendum_table_6_original_column():
    rows = [(5, 10, 52.1), (105, 110, 52.1), (0, 1, 51.4), (0, 10, 53.4), (10, 50, 93.8)]
    rows.append((10, 60, 99.9))
    for f_a, f_b, percent in rows:
        p_b = smooth_sensitivity_label_probabilities([f_a, f_b], epsilon=0.1)[1]
        # the addendum truncates (93.88 % is printed 93.8 %), so allow one unit in the last place
        assert percent / 100 - 1e-3 < p_b < percent / 100 + 1e-3


def test_smooth_sensitivity_label_warns_on_every_call():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        smooth_sensitivity_label([5, 10], epsilon=1.0, rng=0)
        smooth_sensitivity_label([5, 10], epsilon=1.0, rng=0)
    found = [w for w in caught if issubclass(w.category, NotProvenPrivateWarning)]
    assert len(found) == 2
    message = str(found[0].message)
    assert "withdrawn" in message and "2021" in message and "twice" in message
    assert found[0].filename == __file__  # stacklevel=2 points at the caller


def test_smooth_sensitivity_label_matches_exact_distribution():
    rng = np.random.default_rng(13)
    counts = np.array([[12, 9, 9], [4, 4, 1], [0, 0, 0], [2, 0, 1]])
    with pytest.warns(NotProvenPrivateWarning):
        x = smooth_sensitivity_label(counts, epsilon=0.3, rng=rng, size=60_000)
    assert x.shape == (60_000, 4) and x.dtype == np.int64
    probs = smooth_sensitivity_label_probabilities(counts, epsilon=0.3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-14)
    for row in range(counts.shape[0]):
        assert chisquare_pvalue(x[:, row], probs[row]) > PASS_P
    # power: the global-sensitivity exponential mechanism on the same 0/1 utility differs
    u0 = (counts[0] == counts[0].max()).astype(float)
    global_probs = exponential_probabilities(u0, epsilon=0.3, sensitivity=1.0)
    assert chisquare_pvalue(x[:, 0], global_probs) < REJECT_P


def test_smooth_sensitivity_label_closed_form_ties_and_huge_gaps():
    eps = 0.5
    # two labels tied at the top (j = 0, S* = 1): both score 1, the third scores 0
    p = smooth_sensitivity_label_probabilities([7, 7, 2], epsilon=eps)
    r = eps / 2
    np.testing.assert_allclose(p, np.array([1, 1, math.exp(-r)]) / (2 + math.exp(-r)))
    # a single class is always chosen
    assert smooth_sensitivity_label_probabilities([4], epsilon=eps).tolist() == [1.0]
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", NotProvenPrivateWarning)
        np.testing.assert_array_equal(
            smooth_sensitivity_label_probabilities([100_000, 0, 3], epsilon=1.0), [1.0, 0.0, 0.0]
        )
        x = smooth_sensitivity_label([100_000, 0, 3], epsilon=1.0, rng=0, size=1000)
        assert (x == 0).all()


def test_smooth_sensitivity_label_privacy_loss_exceeds_its_claim():
    """The withdrawn mechanism's exact loss between neighbours grows with the gap j."""
    eps = 0.1
    p = smooth_sensitivity_label_probabilities([0, 60], epsilon=eps)
    q = smooth_sensitivity_label_probabilities([0, 61], epsilon=eps)
    loss = abs(math.log(p[0]) - math.log(q[0]))
    assert loss > 2 * eps  # beyond even the addendum's "about twice ε"
    assert 2.0 < loss < 2.2


@pytest.mark.parametrize("bad", [[-1, 3], [1.5, 2], [math.nan, 1], []])
def test_smooth_sensitivity_label_refuses_bad_counts(bad):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvenPrivateWarning)
        with pytest.raises(InvalidParameterError, match="counts"):
            smooth_sensitivity_label(bad, epsilon=1.0, rng=0)
    with pytest.raises(InvalidParameterError, match="counts"):
        smooth_sensitivity_label_probabilities(bad, epsilon=1.0)


# ----------------------------------------------------------------------------------------------
# Shared behaviour: seeds, ε = inf, parameter validation
# ----------------------------------------------------------------------------------------------

SAMPLERS = {
    "laplace": lambda rng, **kw: laplace([1.0, 2.0], rng=rng, **kw),
    "discrete_laplace": lambda rng, **kw: discrete_laplace([1, 2], rng=rng, **kw),
    "exponential_mechanism": lambda rng, **kw: exponential_mechanism(
        [1.0, 2.0, 0.5], sensitivity=1.0, rng=rng, **kw
    ),
    "report_noisy_max": lambda rng, **kw: report_noisy_max([1.0, 2.0, 0.5], rng=rng, **kw),
    "smooth_sensitivity_label": lambda rng, **kw: smooth_sensitivity_label(
        [3, 1, 2], rng=rng, **kw
    ),
}


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_gives_same_samples(name):
    sample = SAMPLERS[name]
    a = sample(np.random.default_rng(42), epsilon=0.5, size=1000)
    b = sample(np.random.default_rng(42), epsilon=0.5, size=1000)
    c = sample(42, epsilon=0.5, size=1000)  # an int seed is a Generator with that seed
    d = sample(np.random.default_rng(43), epsilon=0.5, size=1000)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, d)


def test_epsilon_inf_returns_the_argmax():
    u = np.array([1.0, 4.0, -2.0, 4.0])
    for func, kw in [(exponential_mechanism, {"sensitivity": 1.0}), (report_noisy_max, {})]:
        x = func(u, epsilon=math.inf, rng=0, size=2000, **kw)
        # ties broken uniformly (the ε → ∞ limit): both maximisers occur, nothing else
        assert set(np.unique(x)) == {1, 3}
        assert abs(np.mean(x == 1) - 0.5) < 5 * math.sqrt(0.25 / 2000)
        assert func([0.0, 2.0, 1.0], epsilon=math.inf, rng=0, **kw) == 1
    np.testing.assert_array_equal(
        exponential_probabilities(u, epsilon=math.inf, sensitivity=1.0), [0, 0.5, 0, 0.5]
    )
    np.testing.assert_array_equal(
        report_noisy_max_probabilities(u, epsilon=math.inf), [0, 0.5, 0, 0.5]
    )


INVALID_EPSILONS = [0, -1, math.nan, "1", True]
EPSILON_CALLS = {
    "laplace": lambda eps: laplace(1.0, epsilon=eps, rng=0),
    "discrete_laplace": lambda eps: discrete_laplace(1, epsilon=eps, rng=0),
    "discrete_laplace_pmf": lambda eps: discrete_laplace_pmf(0, epsilon=eps),
    "exponential_mechanism": lambda eps: exponential_mechanism(
        [0.0, 1.0], epsilon=eps, sensitivity=1.0, rng=0
    ),
    "exponential_probabilities": lambda eps: exponential_probabilities(
        [0.0, 1.0], epsilon=eps, sensitivity=1.0
    ),
    "report_noisy_max": lambda eps: report_noisy_max([0.0, 1.0], epsilon=eps, rng=0),
    "report_noisy_max_probabilities": lambda eps: report_noisy_max_probabilities(
        [0.0, 1.0], epsilon=eps
    ),
    "smooth_sensitivity_label": lambda eps: smooth_sensitivity_label([1, 2], epsilon=eps, rng=0),
    "smooth_sensitivity_label_probabilities": lambda eps: smooth_sensitivity_label_probabilities(
        [1, 2], epsilon=eps
    ),
    "majority_label_smooth_sensitivity": lambda eps: majority_label_smooth_sensitivity(
        [1, 2], epsilon=eps
    ),
}
NO_INF = {
    "smooth_sensitivity_label",
    "smooth_sensitivity_label_probabilities",
    "majority_label_smooth_sensitivity",
}


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("name", sorted(EPSILON_CALLS))
def test_invalid_epsilon_is_refused_with_name_and_value(name):
    call = EPSILON_CALLS[name]
    bad_values = INVALID_EPSILONS + ([math.inf] if name in NO_INF else [])
    for bad in bad_values:
        assert_invalid(lambda bad=bad: call(bad), "epsilon", bad)
    if name not in NO_INF:
        call(math.inf)  # documented as the non-private reference


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, "1", True])
def test_invalid_sensitivity_is_refused_with_name_and_value(bad):
    calls = [
        lambda: laplace(1.0, epsilon=1.0, sensitivity=bad, rng=0),
        lambda: discrete_laplace(1, epsilon=1.0, sensitivity=bad, rng=0),
        lambda: discrete_laplace_pmf(0, epsilon=1.0, sensitivity=bad),
        lambda: exponential_mechanism([0.0, 1.0], epsilon=1.0, sensitivity=bad, rng=0),
        lambda: exponential_probabilities([0.0, 1.0], epsilon=1.0, sensitivity=bad),
        lambda: report_noisy_max([0.0, 1.0], epsilon=1.0, sensitivity=bad, rng=0),
        lambda: report_noisy_max_probabilities([0.0, 1.0], epsilon=1.0, sensitivity=bad),
    ]
    for call in calls:
        assert_invalid(call, "sensitivity", bad)


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_rng_and_size_are_validated(name):
    sample = SAMPLERS[name]
    for bad_rng in (None, 1.5, "seed"):
        assert_invalid(lambda bad_rng=bad_rng: sample(bad_rng, epsilon=1.0), "rng", bad_rng)
    for bad_size in (-1, 2.5, (3, -2), "10"):
        with pytest.raises(InvalidParameterError, match="size"):
            sample(0, epsilon=1.0, size=bad_size)
    assert np.shape(sample(0, epsilon=1.0, size=0))[0] == 0


def test_discrete_laplace_refuses_epsilon_too_small_for_int64():
    with pytest.raises(InvalidParameterError, match="epsilon"):
        discrete_laplace(0, epsilon=1e-20, rng=0)


@pytest.mark.parametrize("rate", [1.0, 0.1, 0.01])
def test_discrete_laplace_sampler_is_within_its_documented_total_variation(rate):
    """The inversion sampler realises P(G >= g) exactly on the 52-bit grid of U; its total
    variation from the exact geometric is computed here by counting grid points (binary
    search on k, with the sampler's own floating-point expression), and the documented
    bound for the two-sided noise, (37/a + 2)·2^-52, must hold."""
    from dpviz.mechanisms import _geometric

    def g_of(k):  # the sampler's output at U = (k + 1/2) / 2^52, as the sampler computes it
        return int(_geometric(np.array([(k + 0.5) * 2.0**-52]), rate)[0])

    top = g_of(0)  # the largest value the sampler can return
    tail = np.empty(top + 2)  # tail[g] = P̂(G >= g) = (K_g + 1) / 2^52, K_g the last k with G >= g
    for g in range(top + 2):
        lo, hi = -1, 2**52 - 1  # invariant: G(lo) >= g (lo = -1: none), G(hi + 1) < g
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if g_of(mid) >= g:
                lo = mid
            else:
                hi = mid - 1
        tail[g] = (lo + 1) * 2.0**-52
    sampled = tail[:-1] - tail[1:]
    gs = np.arange(top + 1)
    exact = np.exp(-rate * gs) * -np.expm1(-rate)
    tv_geometric = 0.5 * (np.abs(sampled - exact).sum() + np.exp(-rate * (top + 1)))
    bound = (37 / rate + 2) * 2.0**-52
    assert 2 * tv_geometric <= bound  # TV of the difference of two such variables
    assert tv_geometric > 0  # the sampler is not exact: the bound is about something real


@pytest.mark.parametrize("width", [1, 2, 3, 8, 9])
def test_short_rows_are_reduced_as_numpy_reduces_them(width):
    """Rows of a few entries (leaf class counts) are reduced column by column, faster than
    numpy's last-axis reductions (issue 37): the same maxima and the same first arg-max,
    ties and -inf included."""
    from dpviz.mechanisms import _row_argmax, _row_max

    rng = np.random.default_rng(width)
    v = rng.integers(-2, 3, (500, width)).astype(np.float64)  # many ties
    v[rng.random(v.shape) < 0.2] = -np.inf
    for shape in [(500, width), (5, 100, width), (width,)]:
        x = v.ravel()[:math.prod(shape)].reshape(shape)
        np.testing.assert_array_equal(_row_max(x), x.max(axis=-1, keepdims=True))
        np.testing.assert_array_equal(_row_argmax(x), np.argmax(x, axis=-1))
        counts = x[np.isfinite(x).all(axis=-1)].astype(np.int64)  # integer counts too
        np.testing.assert_array_equal(_row_argmax(counts), np.argmax(counts, axis=-1))
