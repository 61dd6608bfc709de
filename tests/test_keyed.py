import numpy as np
from scipy import stats

from dpviz import keyed


def test_uniforms_are_deterministic_and_in_open_interval():
    keys = np.arange(100_000, dtype=np.uint64)
    u1 = keyed.uniforms(keys, 1)
    u2 = keyed.uniforms(keys, 1)
    np.testing.assert_array_equal(u1, u2)
    assert (u1 > 0).all() and (u1 < 1).all()


def test_uniforms_are_uniform_and_streams_independent():
    keys = np.arange(200_000, dtype=np.uint64)  # consecutive keys: the hardest case for a hash
    a, b = keyed.uniforms(keys, 1), keyed.uniforms(keys, 2)
    assert stats.kstest(a, "uniform").pvalue > 1e-3
    assert stats.kstest(b, "uniform").pvalue > 1e-3
    # independence of streams: correlation ~ N(0, 1/n); 5 sd = 0.011
    assert abs(np.corrcoef(a, b)[0, 1]) < 5 / np.sqrt(len(keys))
    # a wrong distribution is rejected at this n (power check)
    assert stats.kstest(a**1.02, "uniform").pvalue < 1e-6


def test_multiple_draws_per_key_are_uniform_and_uncorrelated():
    keys = np.arange(50_000, dtype=np.uint64)
    u = keyed.uniforms(keys, 7, n=4)
    assert u.shape == (50_000, 4)
    assert stats.kstest(u.ravel(), "uniform").pvalue > 1e-3
    c = np.corrcoef(u.T)
    assert np.abs(c[np.triu_indices(4, 1)]).max() < 5 / np.sqrt(len(keys))


def test_child_keys_distinct_and_deterministic():
    parents = np.arange(10_000, dtype=np.uint64)
    children = np.concatenate([keyed.child_keys(parents, np.full(10_000, i)) for i in range(12)])
    assert len(np.unique(children)) == children.size
    np.testing.assert_array_equal(
        keyed.child_keys(parents, np.zeros(10_000, dtype=int)), children[:10_000]
    )
