import importlib.util
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpviz import keyed
from dpviz.data.uci import load
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.trees import random_tree
from dpviz.trees import random_tree as descend
from dpviz.trees.random_tree import (
    RandomTree,
    forest_leaf_keys,
    forest_leaves,
    forest_route,
    forest_top,
)


def reference_path(tree: RandomTree, row: np.ndarray):
    """Walk one row down the tree node by node (JPW Fig. 1 / FI Alg. 2, written plainly)."""
    domain = tree.domain
    key = keyed.splitmix64(np.array([tree.key]))[0]
    used: set[int] = set()
    low = [a.low if isinstance(a, Numeric) else 0.0 for a in domain]
    high = [a.high if isinstance(a, Numeric) else 0.0 for a in domain]
    path = []
    for _ in range(tree.depth):
        available = [j for j, a in enumerate(domain) if isinstance(a, Numeric) or j not in used]
        if not available:
            path.append(None)
            continue
        u = keyed.uniforms(np.array([key]), 1)[0]
        a = available[int(np.floor(u * len(available)))]
        if isinstance(domain.attributes[a], Categorical):
            child = int(row[a])
            used.add(a)
            path.append((a, None))
        else:
            t = low[a] + keyed.uniforms(np.array([key]), 2)[0] * (high[a] - low[a])
            child = int(row[a] > t)
            if child:
                low[a] = t
            else:
                high[a] = t
            path.append((a, t))
        key = keyed.child_keys(np.array([key]), np.array([child]))[0]
    return key, path


def mixed_rows(n: int, seed: int) -> pd.DataFrame:
    """n random rows of the ``mixed_domain`` fixture's attributes."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "c3": rng.choice(list("abc"), n),
            "x": rng.uniform(0, 10, n),
            "c2": rng.choice(list("uv"), n),
            "z": rng.uniform(-1, 1, n),
        }
    )


@pytest.fixture(scope="module")
def mixed_domain():
    return Domain(
        [
            Categorical("c3", ("a", "b", "c")),
            Numeric("x", 0, 10),
            Categorical("c2", ("u", "v")),
            Numeric("z", -1, 1),
        ],
        ["n", "y"],
    )


def test_vectorized_routing_equals_the_plain_walk(mixed_domain):
    n = 400
    codes = mixed_domain.encode(mixed_rows(n, seed=0))
    for key in range(5):
        tree = RandomTree(mixed_domain, 6, key)
        leaves = tree.leaf_keys(codes)
        for i in range(0, n, 7):
            ref_key, path = reference_path(tree, codes[i])
            assert leaves[i] == ref_key
            cats = [a for a, t in (p for p in path if p) if t is None]
            assert len(cats) == len(set(cats))  # a categorical attribute at most once per path


def test_numeric_only_routing_equals_the_plain_walk():
    domain = Domain([Numeric(f"x{j}", -5, 5) for j in range(4)], [0, 1])
    codes = np.random.default_rng(1).normal(0, 2, size=(300, 4)).clip(-5, 5)
    for key in range(5):
        tree = RandomTree(domain, 9, key)
        leaves = tree.leaf_keys(codes)
        for i in range(0, 300, 11):
            assert leaves[i] == reference_path(tree, codes[i])[0]


def test_forest_route_every_row_through_every_tree_matches_each_tree(mixed_domain):
    n = 200
    codes = mixed_domain.encode(mixed_rows(n, seed=2)).astype(float)
    codes[::17, 0] = -1  # unknown categories take the keyed random child
    trees = [RandomTree(mixed_domain, 5, key) for key in range(4)]
    tree_of = np.repeat(np.arange(4), n)
    row_of = np.tile(np.arange(n), 4)
    routing = forest_route(trees, codes, tree_of, row_of)
    expected = np.concatenate([t.leaf_keys(codes) for t in trees])
    np.testing.assert_array_equal(routing.leaf_keys, expected)
    # the same as copying the rows once per tree
    np.testing.assert_array_equal(
        forest_leaf_keys(trees, np.tile(codes, (4, 1)), tree_of), expected
    )
    # per_leaf evaluates a keyed release once per distinct leaf, with the same result
    calls = []

    def release(keys):
        calls.append(len(keys))
        return keyed.uniforms(keys, 7)

    np.testing.assert_array_equal(routing.per_leaf(release), keyed.uniforms(expected, 7))
    assert calls == [len(np.unique(expected))]


def test_categorical_only_tree_uses_each_attribute_once_and_passes_through():
    domain = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], [0, 1])
    codes = domain.encode(pd.DataFrame({f"a{j}": ["0", "1"] * 4 for j in range(3)}))
    tree = RandomTree(domain, 5, 1)  # deeper than the attributes: the last levels pass through
    routing = tree.route(codes)
    assert [len(k) for k in routing.level_keys][3:] == [2, 2, 2]
    _, path = reference_path(tree, codes[0])
    assert sorted(a for a, _ in path[:3]) == [0, 1, 2] and path[3:] == [None, None]
    # the levels below the last attribute are skipped, with the plain walk's leaves
    assert len(routing.level_keys) == len(routing.level_index) == 6
    assert [reference_path(tree, row)[0] for row in codes] == routing.leaf_keys.tolist()
    np.testing.assert_array_equal(routing.leaf_keys, RandomTree(domain, 3, 1).leaf_keys(codes))


def test_nursery_trees_deeper_than_its_attributes_route_as_the_plain_walk():
    """Nursery's 8 categorical attributes: at depth 12 every path ends after 8 tests."""
    data = load("nursery")
    codes = data.domain.encode(data.X.iloc[::97])
    for key in range(3):
        tree = RandomTree(data.domain, 12, key)
        leaves = tree.leaf_keys(codes)
        np.testing.assert_array_equal(leaves, RandomTree(data.domain, 8, key).leaf_keys(codes))
        for i in range(0, len(codes), 9):
            assert leaves[i] == reference_path(tree, codes[i])[0]


def test_structure_is_drawn_from_the_domain_not_the_rows(mixed_domain):
    tree = RandomTree(mixed_domain, 4, 99)
    X1 = pd.DataFrame({"c3": ["a"], "x": [1.0], "c2": ["u"], "z": [0.5]})
    X2 = pd.DataFrame(
        {
            "c3": ["a", "c", "b"] * 50,
            "x": np.linspace(0, 10, 150),
            "c2": ["v", "u", "u"] * 50,
            "z": np.linspace(-1, 1, 150),
        }
    )
    both = pd.concat([X1, X2], ignore_index=True)
    # the leaf of a row does not depend on which other rows are routed with it
    assert (
        tree.leaf_keys(mixed_domain.encode(X1))[0] == tree.leaf_keys(mixed_domain.encode(both))[0]
    )


def test_root_attribute_is_uniform_and_numeric_split_uniform_on_the_range(mixed_domain):
    keys = np.arange(20_000, dtype=np.uint64)
    tree = RandomTree(mixed_domain, 1, 0)
    used = tree._root_state(keys)[1]  # no attribute used above the root
    attribute, threshold = tree._level_splits(keys, used, [], [])  # the root: the whole range
    assert stats.chisquare(np.bincount(attribute, minlength=4)).pvalue > 1e-3
    x_splits = threshold[attribute == 1]
    assert stats.kstest(x_splits, stats.uniform(0, 10).cdf).pvalue > 1e-3


def test_unknown_category_goes_to_one_random_child_per_node():
    domain = Domain([Categorical("c", ("a", "b", "c"))], [0, 1])
    tree = RandomTree(domain, 1, 5)
    codes = np.array([[-1.0], [-1.0], [0.0], [1.0], [2.0]])
    leaves = tree.leaf_keys(codes)
    assert leaves[0] == leaves[1] and leaves[0] in set(leaves[2:])


def test_same_key_same_tree_and_mushroom_height_11_is_lazy():
    ds = load("mushroom")
    codes = ds.domain.encode(ds.X)
    a, b = RandomTree(ds.domain, 11, 7), RandomTree(ds.domain, 11, 7)
    np.testing.assert_array_equal(a.leaf_keys(codes), b.leaf_keys(codes))
    assert not np.array_equal(a.leaf_keys(codes), RandomTree(ds.domain, 11, 8).leaf_keys(codes))
    routing = a.route(codes)
    assert a.max_leaves() > 1e8  # the full tree would be huge...
    assert len(routing.level_keys[-1]) <= len(codes)  # ...only visited leaves exist


# ------------------------------------------------------------------ materialized top levels
ENGINES = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    importlib.util.find_spec("numba") is None, reason="numba not installed (optional)"))]


@pytest.fixture(params=ENGINES)
def engine(request):
    """Run the test with one engine of dpviz.trees.random_tree, then restore the default."""
    before = descend.engine()
    descend.set_engine(request.param)
    yield request.param
    descend.set_engine(before)


def _forest_cases(mixed_domain):
    """(trees, codes, tree_of, row_of): full and partial tops, unknown codes, pass-through."""
    rng = np.random.default_rng(3)
    mixed = mixed_domain.encode(mixed_rows(300, seed=4)).astype(float)
    mixed[::13, 0] = -1  # unknown categories
    mixed[::17, 2] = -1
    numeric = Domain([Numeric(f"x{j}", -5, 5) for j in range(6)], [0, 1])
    wide = rng.normal(0, 2, size=(250, 6))
    binary = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], [0, 1])
    bits = rng.integers(0, 2, size=(40, 3)).astype(float)
    cases = []
    for domain, codes, depth, n_trees in [
        (mixed_domain, mixed, 3, 2),  # every level fits: leaves materialized
        (mixed_domain, mixed, 12, 3),  # deeper than the budget: the rest routed lazily
        (numeric, wide, 4, 3), (numeric, wide, 8, 5), (numeric, wide, 30, 2),
        (numeric, wide, 0, 3),
        (binary, bits, 6, 4),  # categorical only, deeper than its attributes: pass-through
    ]:
        trees = [RandomTree(domain, depth, int(k)) for k in rng.integers(0, 2**63, n_trees)]
        n = len(codes)
        every = (np.repeat(np.arange(n_trees), n), np.tile(np.arange(n), n_trees))
        cases.append((trees, codes, *every))
        cases.append((trees, codes, rng.integers(0, n_trees, n), None))  # one tree per row
    return cases


def test_forest_leaves_are_forest_route_leaves_with_either_engine(mixed_domain, engine):
    whole = []  # forest_leaves materializes at most one node per 8 items
    for trees, codes, tree_of, row_of in _forest_cases(mixed_domain):
        whole.append(forest_top(trees, len(tree_of) // 8)[0].levels == trees[0].depth > 0)
        routing = forest_route(trees, codes, tree_of, row_of)
        leaves, index = forest_leaves(trees, codes, tree_of, row_of)
        np.testing.assert_array_equal(leaves, routing.level_keys[-1])
        np.testing.assert_array_equal(index, routing.level_index[-1])
        np.testing.assert_array_equal(forest_leaf_keys(trees, codes, tree_of, row_of),
                                      routing.leaf_keys)
    assert 2 <= sum(whole) < len(whole)  # both: leaves materialized, and levels left lazy


@pytest.mark.parametrize("kind", ["categorical", "mixed", "numeric"])
def test_a_few_items_route_on_python_ints_to_the_same_leaves_in_the_same_order(
        kind, mixed_domain, monkeypatch):
    domain = {"categorical": Domain([Categorical(f"a{j}", ("0", "1", "2")[:2 + j % 2])
                                     for j in range(3)], [0, 1]),
              "mixed": mixed_domain,
              "numeric": Domain([Numeric("x", 0, 10), Numeric("z", -1, 1)], [0, 1])}[kind]
    rng = np.random.default_rng(7)
    cases = []
    for depth in (0, 1, 2, 3, 5, 8):
        for _ in range(15):
            m, n = int(rng.integers(1, 6)), int(rng.integers(1, 30))
            trees = [RandomTree(domain, depth, int(k)) for k in rng.integers(0, 2**63, m)]
            codes = np.column_stack([
                rng.integers(-1, len(a.values), n) if isinstance(a, Categorical)  # -1: unknown
                else rng.uniform(a.low, a.high, n) for a in domain]).astype(float)
            items = int(rng.integers(1, 24))
            cases.append((trees, codes, rng.integers(0, m, items), rng.integers(0, n, items)))
    routings = [forest_route(*case) for case in cases]  # numpy's route, level by level
    expected = [(r.level_keys[-1], r.level_index[-1]) for r in routings]

    def numpy_route(*args, **kwargs):
        raise AssertionError("a few items must not take numpy's route")

    monkeypatch.setattr(RandomTree, "_route", numpy_route)
    few = 0
    for (trees, codes, tree_of, row_of), (leaves, index) in zip(cases, expected, strict=True):
        if len(tree_of) * trees[0].depth > random_tree.FEW_VISITS:
            continue
        few += 1
        got_leaves, got_index = forest_leaves(trees, codes, tree_of, row_of)
        np.testing.assert_array_equal(got_leaves, leaves)
        np.testing.assert_array_equal(got_index, index)
    assert few >= 80


def test_forest_top_materializes_whole_levels_within_the_budget(mixed_domain):
    trees = [RandomTree(mixed_domain, 4, key) for key in range(3)]
    top, keys, offsets = forest_top(trees, 10**6)
    assert top.levels == 4 and top.roots == 3 and top.frontier_size == len(keys)
    for t, tree in enumerate(trees):  # the frontier is every leaf, tree by tree
        np.testing.assert_array_equal(keys[offsets[t]:offsets[t + 1]], tree.leaves()[0])
    n_nodes = top.frontier + top.frontier_size
    small, _, _ = forest_top(trees, n_nodes - 1)
    assert small.levels == 3 and small.frontier + small.frontier_size <= n_nodes - 1
    assert forest_top(trees, 0)[0].levels == 0  # the roots, always


@pytest.mark.parametrize("numeric", [False, True])
def test_vote_counts_the_labels_of_the_leaves_reached(mixed_domain, engine, numeric):
    if numeric:  # full binary trees: the kernel's arithmetic child numbers
        domain = Domain([Numeric(f"x{j}", -5, 5) for j in range(5)], [0, 1])
        codes = np.random.default_rng(7).normal(0, 2, size=(200, 5))
    else:
        domain = mixed_domain
        codes = mixed_domain.encode(mixed_rows(200, seed=5)).astype(float)
        codes[::11, 0] = -1
    trees = [RandomTree(domain, 6, key) for key in range(6)]
    top, keys, _ = forest_top(trees, 10**6)
    assert top.levels == 6

    def label(keys):  # any pure function of the key
        return (keyed.uniforms(keys, 9) * 3).astype(np.int64)

    expected = np.zeros((200, 3), dtype=np.int64)
    for tree in trees:
        np.add.at(expected, (np.arange(200), label(tree.leaf_keys(codes))), 1)
    np.testing.assert_array_equal(descend.vote(top, codes, label(keys), 3), expected)


@pytest.mark.parametrize("threads", [1, 3])
def test_the_compiled_kernels_give_numpys_results_in_any_number_of_threads(mixed_domain, threads,
                                                                           monkeypatch):
    """descend and vote split their items over threads (issue 26): any count, the same results."""
    pytest.importorskip("numba")
    monkeypatch.setattr(random_tree, "COMPILED_MIN_VISITS", 1)
    monkeypatch.setattr(random_tree, "THREAD_MIN_VISITS", 1)  # every call in `threads` slices
    monkeypatch.setattr(random_tree, "THREADS", threads)
    for trees, codes, tree_of, row_of in _forest_cases(mixed_domain):
        top, keys, _ = forest_top(trees, 10**6)
        rows = np.arange(len(tree_of)) if row_of is None else row_of
        label = (keyed.uniforms(keys, 9) * 3).astype(np.int64)
        results = []
        for name in ("numpy", "numba"):
            monkeypatch.setattr(random_tree, "_engine", name)
            results.append((descend.descend(top, codes, tree_of, rows),
                            descend.vote(top, codes, label, 3)))
        np.testing.assert_array_equal(results[0][0], results[1][0])
        np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize("k", [1, 3, 10])
def test_the_compiled_kernel_grows_numeric_trees_node_for_node(k, monkeypatch):
    """Numeric trees are materialized whole by the compiled kernel (issue 37): every node's
    attribute and threshold (to the bit), the leaves' keys and the routing are the numpy
    levels' (BuildTreeStructure through keyed.uniforms and keyed.child_keys)."""
    pytest.importorskip("numba")
    domain = Domain([Numeric(f"x{j}", -1.0 - j, 2.0 + 3.5 * j) for j in range(k)], (0, 1))
    codes = np.random.default_rng(k).uniform(-3.0, 40.0, (500, k)).clip(domain.bounds[:, 0],
                                                                       domain.bounds[:, 1])
    monkeypatch.setattr(random_tree, "_engine", "numba")
    for depth in (1, 2, 5, 8):
        trees = random_tree.random_trees(domain, depth, range(7))
        first, roots = random_tree._forest_roots(trees)
        numpy_top, state, _ = first._top_levels(roots, 10**9)
        top, leaves = random_tree._grown(first, roots, 0)
        for name in ("attribute", "threshold", "categorical", "unknown_child", "first_child",
                     "n_values"):
            a, b = getattr(numpy_top, name), getattr(top, name)
            assert a.dtype == b.dtype
            assert a.tobytes() == b.tobytes(), (depth, name)
        np.testing.assert_array_equal(leaves, state[0])
        assert ((numpy_top.levels, numpy_top.frontier, numpy_top.frontier_size, numpy_top.roots)
                == (top.levels, top.frontier, top.frontier_size, top.roots))
        tree_of = np.repeat(np.arange(7), 500)
        grown = forest_leaves(trees, codes, tree_of, np.tile(np.arange(500), 7))
        np.testing.assert_array_equal(grown[0][grown[1]], forest_route(
            trees, codes, tree_of, np.tile(np.arange(500), 7)).leaf_keys)
        _, keys, offsets = forest_top(trees, 10**9, visits=1)
        np.testing.assert_array_equal(keys, leaves)
        np.testing.assert_array_equal(offsets, np.arange(8) * 2**depth)


def test_the_threads_are_capped_by_the_cpus_the_quota_and_the_thread_variables():
    """Never more threads than the process may use (issue 37): its CPUs, its cgroup quota,
    NUMBA_NUM_THREADS and OMP_NUM_THREADS, whichever is smallest (injected values)."""
    allowed = random_tree.allowed_threads
    assert allowed({}, cpus=8, cpu_max=None) == 8
    assert allowed({}, cpus=8, cpu_max="max 100000") == 8  # no quota
    assert allowed({}, cpus=8, cpu_max="250000 100000") == 2  # 2.5 CPUs: 2 whole ones
    assert allowed({}, cpus=8, cpu_max="50000 100000") == 1  # half a CPU: still one thread
    assert allowed({"OMP_NUM_THREADS": "1"}, cpus=8, cpu_max=None) == 1  # a classroom server
    assert allowed({"NUMBA_NUM_THREADS": "3"}, cpus=8, cpu_max="400000 100000") == 3
    assert allowed({"OMP_NUM_THREADS": "4,2"}, cpus=8, cpu_max=None) == 4  # OpenMP's nesting
    assert allowed({"OMP_NUM_THREADS": "16"}, cpus=2, cpu_max=None) == 2  # never above the CPUs
    with pytest.warns(RuntimeWarning, match="OMP_NUM_THREADS='zero'"):
        assert allowed({"OMP_NUM_THREADS": "zero"}, cpus=4, cpu_max=None) == 4
    assert 1 <= allowed() <= (os.cpu_count() or 1)  # this process's own


@pytest.mark.parametrize(("variables", "visits", "slices"), [
    ({}, 10, 1),  # small work: one slice, in the calling thread
    ({}, 100, 4),  # 4 CPUs allowed
    ({"OMP_NUM_THREADS": "1"}, 100, 1),
    ({"NUMBA_NUM_THREADS": "2"}, 100, 2),
])
def test_the_kernels_run_in_threads_only_on_large_work_and_as_allowed(variables, visits, slices,
                                                                     monkeypatch):
    monkeypatch.setattr(random_tree, "THREAD_MIN_VISITS", 10)
    monkeypatch.setattr(random_tree, "THREADS", None)
    for name in random_tree.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(random_tree.os, "sched_getaffinity", lambda _: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(random_tree, "_cgroup_cpu_max", lambda: None)
    seen = []
    random_tree._in_threads(visits, 1000, seen.append)
    assert len(seen) == slices
    assert sorted((s.start, s.stop) for s in seen)[0][0] == 0
    assert sum(s.stop - s.start for s in seen) == 1000


def test_descend_and_vote_refuse_what_the_kernel_must_not_read(mixed_domain, engine):
    codes = mixed_domain.encode(mixed_rows(20, seed=6)).astype(float)
    top, keys, _ = forest_top([RandomTree(mixed_domain, 3, 1)], 10**6)
    items = np.zeros(20, dtype=np.int64)
    for bad_value in (3.0, -2.0, 0.5, np.nan):  # c3 has 3 categories
        bad = codes.copy()
        bad[4, 0] = bad_value
        with pytest.raises(InvalidParameterError, match="column 0"):
            descend.descend(top, bad, items, np.arange(20))
    with pytest.raises(InvalidParameterError, match="shape"):
        descend.descend(top, codes[:, :3], items, np.arange(20))
    for shift in (1, -1):  # past the last root or row, or negative
        with pytest.raises(InvalidParameterError, match="tree_of"):
            descend.descend(top, codes, items + shift, np.arange(20))
        with pytest.raises(InvalidParameterError, match="row_of"):
            descend.descend(top, codes, items, np.arange(20) + shift)
    with pytest.raises(InvalidParameterError, match="leaf_label"):
        descend.vote(top, codes, np.full(len(keys), 2), 2)
    with pytest.raises(InvalidParameterError, match="leaf_label"):
        descend.vote(top, codes, np.zeros(len(keys) + 1, dtype=np.int64), 2)


def test_engine_names_are_checked():
    with pytest.raises(InvalidParameterError, match="engine"):
        descend.set_engine("fortran")


def test_importing_dpviz_does_not_import_numba():
    # numba costs ~0.3 s to import: only the first large routing call loads it
    code = "import sys, dpviz, dpviz.trees.forest; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "DPVIZ_ENGINE": "auto"})
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("depth", [3, 8, 12])
def test_leaf_keys_of_many_rows_take_the_compiled_descent_and_give_the_same_keys(depth,
                                                                                 monkeypatch):
    """Private-RDT's fit routes its rows with ``leaf_groups``: from ``COMPILED_MIN_VISITS`` on
    it goes through :func:`forest_leaves` (issue 26), which must give ``route``'s keys on
    mixed numeric and categorical data, grouped or not."""
    adult = load("adult")
    codes = adult.domain.encode(adult.X)[:5000]
    tree = RandomTree(adult.domain, depth, 7)
    expected = tree.route(codes).leaf_keys
    called = []
    monkeypatch.setattr(random_tree, "COMPILED_MIN_VISITS", 1)
    original = random_tree.forest_leaves
    monkeypatch.setattr(random_tree, "forest_leaves",
                        lambda *a, **k: called.append(1) or original(*a, **k))
    np.testing.assert_array_equal(tree.leaf_keys(codes), expected)
    leaves, index = tree.leaf_groups(codes)
    np.testing.assert_array_equal(leaves[index], expected)
    assert len(called) == 2


def test_the_attribute_pick_skips_used_attributes_as_a_scan_of_all_k_would(mixed_domain):
    """A node picks the ⌊u·m⌋-th of its m available attributes, in index order; the tree keeps
    only the used ones (inserted in sorted place as the path tests them) instead of a node × k
    mask."""
    rng = np.random.default_rng(0)
    tree = RandomTree(mixed_domain, 3, 0)
    k, n = len(mixed_domain), 5000
    categorical = np.flatnonzero(mixed_domain.categorical_mask)
    keys = rng.integers(0, 2**63, size=n).astype(np.uint64)
    # each node: a random subset of the categorical attributes, tested in any order, with
    # numeric tests (nothing added) between them
    none = random_tree._padding(tree._used_dtype)
    tested = np.full((n, 2 * len(categorical)), none)
    chosen = []
    for row in tested:
        chosen.append(rng.permutation(categorical)[: rng.integers(0, len(categorical) + 1)])
        row[np.sort(rng.permutation(len(row))[: len(chosen[-1])])] = chosen[-1]
    used = tree._root_state(keys)[1]
    for column in tested.T:
        used = random_tree._used_after(used, column.astype(used.dtype))
    for row, attributes in zip(used, chosen, strict=True):
        assert row[0] == -1 - len(attributes)
        assert row[1:].tolist() == [*sorted(attributes), *[none] * (
            len(row) - 1 - len(attributes))]
    mask = np.zeros((n, k), dtype=bool)
    for row, attributes in zip(mask, chosen, strict=True):
        row[attributes] = True
    rank = np.cumsum(~mask, axis=1)  # the scan: the first index whose rank passes pick
    u = keyed.uniforms(keys, random_tree.ATTRIBUTE_STREAM)
    pick = np.floor(u * rank[:, -1]).astype(np.int64)
    expected = np.where(rank[:, -1] > 0, np.argmax(rank > pick[:, None], axis=1), -1)
    np.testing.assert_array_equal(tree._attributes(keys, used), expected)


def test_the_used_lists_route_alike_in_two_and_four_bytes():
    """More than 32,702 attributes take 4-byte used lists: the same trees as 2-byte ones,
    through the lazy route and the top levels (many categorical attributes, depth 24)."""
    rng = np.random.default_rng(3)
    columns = [Categorical(f"c{j}", tuple(range(3))) for j in range(30)]
    domain = Domain([*columns, *(Numeric(f"x{j}", 0, 1) for j in range(10))], (0, 1))
    codes = np.column_stack([rng.integers(0, 3, (3000, 30)), rng.random((3000, 10))])
    codes[:5, :3] = -1.0  # unknown categories
    results = []
    for dtype in (np.int16, np.int32):
        trees = [RandomTree(domain, 24, key) for key in range(4)]
        for tree in trees:
            tree._used_dtype = dtype
        results.append((
            [tree.leaf_keys(codes) for tree in trees],
            forest_leaf_keys(trees, codes, np.arange(3000) % 4),
        ))
    assert RandomTree(domain, 24, 0)._used_dtype == np.int16
    for a, b in zip(results[0][0], results[1][0], strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_a_tree_pickled_by_an_older_dpviz_reads_its_domain_again(mixed_domain):
    """Trees keep arrays derived from their domain (issue 37 added some): a tree unpickled
    without them, as an older dpviz pickled it, derives them again and routes as before."""
    import pickle

    tree = RandomTree(mixed_domain, 4, 11)
    codes = mixed_domain.encode(mixed_rows(50, seed=2)).astype(float)
    state = {k: v for k, v in vars(tree).items() if k in ("domain", "depth", "key")}
    old = object.__new__(RandomTree)
    old.__dict__.update(state)
    restored = pickle.loads(pickle.dumps(old))
    np.testing.assert_array_equal(restored.leaf_keys(codes), tree.leaf_keys(codes))
