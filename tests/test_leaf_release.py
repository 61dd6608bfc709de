import math
import warnings

import numpy as np
import pytest
from scipy import stats

from dpviz import mechanisms
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.leaf_release import NoisyLeafCounts, NoisyLeafLabels


def _chisquare_pooled(observed, expected):
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


@pytest.mark.parametrize("epsilon", [0.3, 1.0])
def test_noise_of_unvisited_leaves_is_discrete_laplace(epsilon):
    release = NoisyLeafCounts(
        np.array([5], dtype=np.uint64),
        np.array([0]),
        2,
        epsilon=epsilon,
        mechanism="discrete_laplace",
        noise_key=11,
    )
    leaves = np.arange(1000, 101_000, dtype=np.uint64)  # none visited
    noise = release(leaves).ravel()
    assert noise.dtype.kind == "i"
    ks = np.arange(-40, 41)
    observed = np.array([(noise == k).sum() for k in ks] + [(np.abs(noise) > 40).sum()])
    pmf = stats.dlaplace(epsilon).pmf(ks)
    expected = np.append(pmf, 1 - pmf.sum()) * noise.size
    assert _chisquare_pooled(observed, expected) > 1e-3
    wrong = np.append(stats.dlaplace(epsilon * 1.1).pmf(ks), 0)
    wrong[-1] = 1 - wrong.sum()
    assert _chisquare_pooled(observed, wrong * noise.size) < 1e-6


def test_laplace_option_and_exact_counts():
    leaf_keys = np.array([3, 3, 3, 9], dtype=np.uint64)
    labels = np.array([0, 1, 1, 0])
    exact = NoisyLeafCounts(
        leaf_keys, labels, 2, epsilon=math.inf, mechanism="laplace", noise_key=1
    )
    np.testing.assert_array_equal(
        exact(np.array([3, 9, 4], dtype=np.uint64)), [[1, 2], [1, 0], [0, 0]]
    )
    release = NoisyLeafCounts(leaf_keys, labels, 2, epsilon=0.5, mechanism="laplace", noise_key=1)
    noise = release(np.arange(100, 60_100, dtype=np.uint64)).ravel()
    assert stats.kstest(noise, stats.laplace(scale=2.0).cdf).pvalue > 1e-3


def test_lookups_are_deterministic_and_visited_leaves_carry_their_counts():
    keys = np.array([42] * 30 + [7] * 5, dtype=np.uint64)
    labels = np.array([1] * 30 + [0] * 5)
    a = NoisyLeafCounts(keys, labels, 2, epsilon=1.0, mechanism="discrete_laplace", noise_key=5)
    b = NoisyLeafCounts(keys, labels, 2, epsilon=1.0, mechanism="discrete_laplace", noise_key=5)
    query = np.array([42, 7, 1000], dtype=np.uint64)
    np.testing.assert_array_equal(a(query), b(query))
    np.testing.assert_array_equal(a(query) - a.noise(query), [[0, 30], [5, 0], [0, 0]])
    # the noise of a leaf does not depend on what else was visited
    c = NoisyLeafCounts(
        np.array([42], dtype=np.uint64),
        np.array([1]),
        2,
        epsilon=1.0,
        mechanism="discrete_laplace",
        noise_key=5,
    )
    np.testing.assert_array_equal(c.noise(query), a.noise(query))


def test_summed_releases_add():
    a = NoisyLeafCounts(
        np.array([1], dtype=np.uint64),
        np.array([0]),
        2,
        epsilon=1.0,
        mechanism="discrete_laplace",
        noise_key=1,
    )
    b = NoisyLeafCounts(
        np.array([1], dtype=np.uint64),
        np.array([1]),
        2,
        epsilon=1.0,
        mechanism="discrete_laplace",
        noise_key=2,
    )
    q = np.array([1, 2], dtype=np.uint64)
    np.testing.assert_array_equal(a.add(b)(q), a(q) + b(q))
    np.testing.assert_array_equal(a.add(b).add(a)(q), 2 * a(q) + b(q))


def _label_frequencies(counts, mechanism, epsilon, n=60_000):
    """Sample the lazily released label of n different leaves that all hold `counts`."""
    leaves = np.arange(n, dtype=np.uint64)
    labels = np.repeat(np.arange(len(counts)), counts)
    rows = np.concatenate([np.full(sum(counts), k) for k in range(n)]).astype(np.uint64)
    release = NoisyLeafLabels(
        rows, np.tile(labels, n), len(counts), epsilon=epsilon, mechanism=mechanism, noise_key=3
    )
    return np.bincount(release(leaves), minlength=len(counts))


@pytest.mark.parametrize("counts", [(5, 10), (0, 1), (3, 3, 1), (0, 0, 0)])
def test_rosnam_labels_match_exact_probabilities(counts):
    freq = _label_frequencies(counts, "rosnam", 0.5)
    p = mechanisms.report_noisy_max_probabilities(
        np.array(counts, float), epsilon=0.5, sensitivity=1, monotone=True
    )
    assert stats.chisquare(freq, p * freq.sum()).pvalue > 1e-3


@pytest.mark.parametrize("counts", [(5, 10), (2, 0, 2)])
def test_exponential_labels_match_exact_probabilities(counts):
    freq = _label_frequencies(counts, "exponential", 1.0)
    utility = (np.array(counts) == max(counts)).astype(float)
    p = mechanisms.exponential_probabilities(utility, epsilon=1.0, sensitivity=1)
    assert stats.chisquare(freq, p * freq.sum()).pvalue > 1e-3


def test_smooth_sensitivity_labels_warn_and_match_exact_probabilities():
    with pytest.warns(NotProvenPrivateWarning):
        _label_frequencies((5, 10), "smooth_sensitivity", 0.1, n=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvenPrivateWarning)
        freq = _label_frequencies((5, 8), "smooth_sensitivity", 0.1)
    p = mechanisms.smooth_sensitivity_label_probabilities(np.array([5, 8]), epsilon=0.1)
    assert stats.chisquare(freq, p * freq.sum()).pvalue > 1e-3


def test_empty_leaf_label_is_uniform():
    freq = _label_frequencies((0, 0, 0, 0), "rosnam", 1.0)
    assert stats.chisquare(freq).pvalue > 1e-3


def test_unknown_mechanisms_refused():
    with pytest.raises(InvalidParameterError, match="mechanism"):
        NoisyLeafCounts(
            np.array([1], dtype=np.uint64),
            np.array([0]),
            2,
            epsilon=1.0,
            mechanism="gaussian",
            noise_key=1,
        )
    with pytest.raises(InvalidParameterError, match="mechanism"):
        NoisyLeafLabels(
            np.array([1], dtype=np.uint64),
            np.array([0]),
            2,
            epsilon=1.0,
            mechanism="argmax",
            noise_key=1,
        )
