import math
import pickle
import warnings

import numpy as np
import pytest
from scipy import stats

from dpviz import keyed, mechanisms
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning, PrivacyLeakWarning
from dpviz.leaf_release import NoisyLeafCounts, NoisyLeafLabels


def _chisquare_pooled(observed, expected):
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


def _counts(keys, labels, epsilon, mechanism="discrete_laplace", seed=11):
    return NoisyLeafCounts.release(
        np.asarray(keys, dtype=np.uint64), np.asarray(labels), 2, epsilon=epsilon,
        mechanism=mechanism, rng=np.random.default_rng(seed),
    )


def _dl_goodness(noise, epsilon):
    ks = np.arange(-40, 41)
    observed = np.array([(noise == k).sum() for k in ks] + [(np.abs(noise) > 40).sum()])
    pmf = stats.dlaplace(epsilon).pmf(ks)
    expected = np.append(pmf, 1 - pmf.sum()) * noise.size
    wrong = np.append(stats.dlaplace(epsilon * 1.1).pmf(ks), 0)
    wrong[-1] = 1 - wrong.sum()
    return _chisquare_pooled(observed, expected), _chisquare_pooled(observed, wrong * noise.size)


@pytest.mark.parametrize("epsilon", [0.3, 1.0])
def test_noise_of_unvisited_leaves_is_discrete_laplace(epsilon):
    release = _counts([5], [0], epsilon)
    noise = release(np.arange(1000, 101_000, dtype=np.uint64)).ravel()  # none visited
    assert noise.dtype.kind == "i"
    right, wrong = _dl_goodness(noise, epsilon)
    assert right > 1e-3 and wrong < 1e-6  # and the test has power against ε·1.1


@pytest.mark.parametrize("epsilon", [0.3, 1.0])
def test_noise_of_visited_leaves_is_discrete_laplace_around_the_count(epsilon):
    # 50,000 visited leaves with one row of class 1 each: noisy - exact is discrete Laplace
    keys = np.arange(50_000, dtype=np.uint64)
    release = _counts(keys, np.ones(50_000, dtype=int), epsilon)
    noise = (release(keys) - np.array([0, 1])).ravel()
    right, wrong = _dl_goodness(noise, epsilon)
    assert right > 1e-3 and wrong < 1e-6


def test_laplace_option_warns_and_exact_counts_at_infinity():
    leaf_keys = np.array([3, 3, 3, 9], dtype=np.uint64)
    labels = np.array([0, 1, 1, 0])
    exact = _counts(leaf_keys, labels, math.inf, "laplace")
    np.testing.assert_array_equal(
        exact(np.array([3, 9, 4], dtype=np.uint64)), [[1, 2], [1, 0], [0, 0]]
    )
    with pytest.warns(NotProvenPrivateWarning, match="Mironov"):
        release = _counts(leaf_keys, labels, 0.5, "laplace")
    noise = release(np.arange(100, 60_100, dtype=np.uint64)).ravel()
    assert stats.kstest(noise, stats.laplace(scale=2.0).cdf).pvalue > 1e-3


def test_lookups_are_deterministic_and_hold_no_exact_counts():
    keys = np.array([42] * 30 + [7] * 5, dtype=np.uint64)
    labels = np.array([1] * 30 + [0] * 5)
    a, b = _counts(keys, labels, 1.0, seed=5), _counts(keys, labels, 1.0, seed=5)
    query = np.array([42, 7, 1000, 42], dtype=np.uint64)
    np.testing.assert_array_equal(a(query), b(query))
    np.testing.assert_array_equal(a(query)[0], a(query)[3])
    # Finding 8: the object keeps the visited leaves, their *noisy* values and the secret
    # key of the other leaves' noise — no exact counts, nothing that regenerates the noise
    # of a visited leaf (its noise came from fresh uniforms, not from the key)
    assert set(vars(a)) == {"_visited", "_values", "_secret", "epsilon", "mechanism",
                            "n_classes"}
    np.testing.assert_array_equal(a._values, a(np.array([7, 42], dtype=np.uint64)))
    keyed_noise = mechanisms.discrete_laplace(
        np.zeros((2, 2), dtype=int), epsilon=1.0,
        uniforms=keyed.secret_uniforms(a._secret, a._visited, 4).reshape(2, 2, 2),
    )
    assert not np.array_equal(a._values - [[5, 0], [0, 30]], keyed_noise)


def test_a_fresh_release_draws_fresh_noise_and_a_fresh_secret():
    keys = np.array([1, 2, 3], dtype=np.uint64)
    rng = np.random.default_rng(0)
    a = NoisyLeafCounts.release(keys, [0, 0, 1], 2, epsilon=0.1, mechanism="discrete_laplace",
                                rng=rng)
    b = NoisyLeafCounts.release(keys, [0, 0, 1], 2, epsilon=0.1, mechanism="discrete_laplace",
                                rng=rng)
    q = np.arange(1, 2000, dtype=np.uint64)
    assert (a(q) != b(q)).mean() > 0.9  # P(two dlaplace(0.1) draws agree) = tanh(0.05)/... ≈ 0.05


def test_pickling_a_finite_release_warns_but_infinite_does_not():
    release = _counts([1, 2], [0, 1], 1.0)
    with pytest.warns(PrivacyLeakWarning, match="curator secrets"):
        copy = pickle.loads(pickle.dumps(release))
    q = np.arange(10, dtype=np.uint64)
    np.testing.assert_array_equal(copy(q), release(q))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        pickle.dumps(_counts([1, 2], [0, 1], math.inf))


def test_summed_releases_add():
    a, b = _counts([1], [0], 1.0, seed=1), _counts([1], [1], 1.0, seed=2)
    q = np.array([1, 2], dtype=np.uint64)
    np.testing.assert_array_equal(a.add(b)(q), a(q) + b(q))
    np.testing.assert_array_equal(a.add(b).add(a)(q), 2 * a(q) + b(q))


def test_epsilon_below_the_sampler_minimum_is_refused():
    with pytest.raises(InvalidParameterError, match="smallest"):
        _counts([1], [0], 1e-30)
    with pytest.raises(InvalidParameterError, match="smallest"):
        NoisyLeafLabels.release(np.array([1], dtype=np.uint64), np.array([0]), 2,
                                epsilon=1e-30, mechanism="rosnam", rng=np.random.default_rng(0))


def _label_frequencies(counts, mechanism, epsilon, n=60_000):
    """Sample the lazily released label of n different leaves that all hold `counts`."""
    leaves = np.arange(n, dtype=np.uint64)
    labels = np.repeat(np.arange(len(counts)), counts)
    rows = np.concatenate([np.full(sum(counts), k) for k in range(n)]).astype(np.uint64)
    release = NoisyLeafLabels.release(
        rows, np.tile(labels, n), len(counts), epsilon=epsilon, mechanism=mechanism,
        rng=np.random.default_rng(3),
    )
    # counts > 0: every leaf visited, labels drawn at release time from fresh uniforms;
    # counts = 0: no leaf visited, labels from the secret-keyed uniforms (the lazy path)
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
    one = (np.array([1], dtype=np.uint64), np.array([0]), 2)
    with pytest.raises(InvalidParameterError, match="mechanism"):
        NoisyLeafCounts.release(*one, epsilon=1.0, mechanism="gaussian",
                                rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match="mechanism"):
        NoisyLeafLabels.release(*one, epsilon=1.0, mechanism="argmax",
                                rng=np.random.default_rng(0))


@pytest.mark.parametrize("n_distinct", [0, 1, 7, 1000])
def test_unique_inverse_is_numpys(n_distinct):
    """The leaf release's hashed ``unique_inverse`` gives ``np.unique``'s keys and inverse."""
    from dpviz.leaf_release import unique_inverse

    rng = np.random.default_rng(n_distinct)
    leaves = rng.integers(0, 2**64, size=n_distinct, dtype=np.uint64)
    keys = leaves[rng.integers(0, max(n_distinct, 1), 5000)] if n_distinct else leaves
    cases = [(keys, keys)]
    if n_distinct:  # grouped as a route gives them: (leaves, each row's index into them)
        with_unused = np.concatenate([leaves, rng.integers(0, 2**64, 3, dtype=np.uint64)])
        index = rng.integers(0, n_distinct, 5000)  # the last 3 leaves unused
        cases.append(((with_unused, index), with_unused[index]))
        twin = np.concatenate([leaves, leaves[:1]])  # two leaves with one key
        index = np.concatenate([index, [n_distinct] * 5])
        cases.append(((twin, index), twin[index]))
    for given, rows in cases:
        visited, inverse = unique_inverse(given)
        expected = np.unique(rows, return_inverse=True)
        np.testing.assert_array_equal(visited, expected[0])
        np.testing.assert_array_equal(inverse, expected[1])
        assert visited.dtype == np.uint64 and inverse.dtype == np.int64
