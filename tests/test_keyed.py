import numpy as np
import pytest
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


def test_siphash24_matches_the_reference_test_vectors():
    # Aumasson & Bernstein's reference vectors: key 00 01 .. 0f, message 00 01 .. (len-1)
    key = np.array([0x0706050403020100, 0x0F0E0D0C0B0A0908], dtype=np.uint64)
    words = [np.uint64(0x0706050403020100), np.uint64(0x0F0E0D0C0B0A0908)]
    assert int(keyed.siphash24(key, [])) == 0x726FDB47DD0E0E31
    assert int(keyed.siphash24(key, words[:1])) == 0x93F5F5799A932462
    assert int(keyed.siphash24(key, words)) == 0x3F2ACC7F57C29BDB
    # vectorized over many messages = one call per message (chunk boundaries included)
    many = np.arange(40_000, dtype=np.uint64)
    tags = keyed.siphash24(key, [many])
    assert [int(t) for t in tags[[0, 16_383, 16_384, 39_999]]] == [
        int(keyed.siphash24(key, [np.uint64(m)])) for m in (0, 16_383, 16_384, 39_999)
    ]


def test_a_few_keys_hash_on_python_ints_as_many_do_on_numpy():
    """Up to _FEW_KEYS keys, uniforms and child keys are computed on Python ints (numpy's
    calls cost more): the same numbers as the vectorized path gives the same keys."""
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 2**64, 50, dtype=np.uint64)
    index = rng.integers(0, 7, 50)
    many_u, many_c = keyed.uniforms(keys, 3), keyed.child_keys(keys, index)
    assert len(keys) > keyed._FEW_KEYS
    for stop in range(keyed._FEW_KEYS + 2):
        np.testing.assert_array_equal(keyed.uniforms(keys[:stop], 3), many_u[:stop])
        np.testing.assert_array_equal(keyed.child_keys(keys[:stop], index[:stop]),
                                      many_c[:stop])
        assert keyed.uniforms(keys[:stop], 3).dtype == np.float64
        assert keyed.child_keys(keys[:stop], index[:stop]).dtype == np.uint64


def test_siphash24_on_a_few_tags_gives_the_vectorized_tags():
    """A few tags are computed on Python ints (faster than numpy's calls): the same tags."""
    key = np.array([0x0706050403020100, 0xF0E0D0C0B0A09080], dtype=np.uint64)
    words = np.random.default_rng(3).integers(0, 2**64, (2, 40), dtype=np.uint64)
    many = keyed.siphash24(key, [words[0], words[1]])  # numpy's lanes
    assert len(many) > keyed._FEW
    one_word = keyed.siphash24(key, [words[0]])  # secret_uniforms' case
    for stop in range(keyed._FEW + 1):
        np.testing.assert_array_equal(keyed.siphash24(key, [words[0, :stop], words[1, :stop]]),
                                      many[:stop])
        np.testing.assert_array_equal(keyed.siphash24(key, [words[0, :stop]]), one_word[:stop])
    assert keyed.siphash24(key, [words[0, :3]]).dtype == np.uint64


def test_the_compiled_siphash_gives_numpys_tags(monkeypatch):
    """Once the trees' engine loads numba, keyed noise is hashed by a compiled SipHash (the
    noise of many unvisited leaves at prediction): the same tags; the numpy engine drops it."""
    pytest.importorskip("numba")
    from dpviz.trees import random_tree

    key = np.array([0x0706050403020100, 0xF0E0D0C0B0A09080], dtype=np.uint64)
    words = np.random.default_rng(4).integers(0, 2**64, (2, 1000), dtype=np.uint64)
    monkeypatch.setattr(keyed, "_kernels", [])
    expected = [keyed.siphash24(key, list(words[:m])) for m in (0, 1, 2)]
    assert random_tree._compiled() is not None
    monkeypatch.setattr(keyed, "_kernels", [random_tree._kernel[1]])
    for m in (0, 1, 2):
        np.testing.assert_array_equal(keyed.siphash24(key, list(words[:m])), expected[m])
    np.testing.assert_array_equal(  # broadcast words, as secret_uniforms never passes them
        keyed.siphash24(key, [words[0, :10, None], words[1, None, :3]]),
        [[keyed.siphash24(key, [a, b]) for b in words[1, :3]] for a in words[0, :10]])
    engine = random_tree.engine()
    try:
        random_tree.set_engine("numpy")
        assert keyed._kernels == []
        random_tree.set_engine("auto")
        assert keyed._kernels == [random_tree._kernel[1]]
    finally:
        random_tree.set_engine(engine)


def test_secret_uniforms_are_uniform_deterministic_and_depend_on_the_secret():
    rng = np.random.default_rng(0)
    a, b = keyed.new_secret_key(rng), keyed.new_secret_key(rng)
    leaves = np.arange(100_000, dtype=np.uint64)  # consecutive public keys
    u = keyed.secret_uniforms(a, leaves, 4)
    np.testing.assert_array_equal(u, keyed.secret_uniforms(a, leaves, 4))
    assert u.shape == (100_000, 4) and (u > 0).all() and (u < 1).all()
    assert stats.kstest(u.ravel(), "uniform").pvalue > 1e-3
    c = np.corrcoef(u.T)  # the uniforms of one leaf are uncorrelated: ~N(0, 1/n)
    assert np.abs(c[np.triu_indices(4, 1)]).max() < 5 / np.sqrt(len(leaves))
    v = keyed.secret_uniforms(b, leaves, 4)  # another secret: unrelated numbers
    assert abs(np.corrcoef(u[:, 0], v[:, 0])[0, 1]) < 5 / np.sqrt(len(leaves))
    # the first n uniforms do not depend on how many are asked for
    np.testing.assert_array_equal(keyed.secret_uniforms(a, leaves[:10], 2), u[:10, :2])
