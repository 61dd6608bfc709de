"""Edges of the release path that the claims rows and invariants do not reach (issue 43).

Each test closes a gap that a survivor of ``make mutants`` showed (bench/mutation/triage.csv
names the test that kills each target): the papers' sensitivities and budget splits as exact
numbers, the ledger of a tiny fit query by query, the structure a fit may decide, refusals.
Small, fast and deterministic (a fixed seed): the privacy suite runs them for every mutant
of the functions they call. No fixture of tests/conftest.py (the mutation run does not load
it: bench/mutation/_from_tests.py).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpviz import mechanisms
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import BudgetExceededError, InvalidParameterError
from dpviz.leaf_release import NoisyLeafLabels
from dpviz.privacy import PrivateTable
from dpviz.trees import id3, privatree, rdt_sharp
from dpviz.trees.id3 import DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.id3_quality import sensitivity_gini, sensitivity_infogain, sensitivity_max
from dpviz.trees.id3_view import ID3Node
from dpviz.trees.privatree import PrivaTreeClassifier
from dpviz.trees.rdt import PrivateRDTClassifier

BINARY = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
MIXED = Domain([Categorical("a", ("p", "q", "r")), Numeric("x", 0.0, 1.0)], ["n", "y"])


def _binary_rows(n: int = 60, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Three binary attributes, the label a1 XOR a0 (a depth-2 tree)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, (n, 3)).astype(str), columns=["a0", "a1", "a2"])
    return X, np.where((X.a0 == "1") ^ (X.a1 == "1"), "y", "n")


def _mixed_rows(n: int = 40, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice(["p", "q", "r"], n), "x": rng.uniform(0, 1, n)})
    return X, np.where(X.x > 0.5, "y", "n")


def _entries(ledger, label: str) -> list:
    return [e for e in ledger.entries if e.label == label]


# ------------------------------------------------------------------- sensitivities (FS App. A)
@pytest.mark.parametrize("n", [1, 2, 10, 1000])
def test_infogain_sensitivity_is_log2_n_plus_1_plus_1_over_ln2(n):
    assert sensitivity_infogain(n) == pytest.approx(math.log2(n + 1) + 1 / math.log(2), rel=1e-12)


@pytest.mark.parametrize("bound", [0, -1])
def test_infogain_sensitivity_refuses_a_bound_below_one(bound):
    with pytest.raises(InvalidParameterError):
        sensitivity_infogain(bound)


@pytest.mark.parametrize("bound", [None, 1, 1000])
def test_gini_and_max_sensitivities_are_2_and_1(bound):
    assert (sensitivity_gini(bound), sensitivity_max(bound)) == (2.0, 1.0)


# ------------------------------------------------------------------- PrivateTable.append (JPW)
def test_appended_batches_compose_in_parallel_and_only_from_a_batch():
    X, y = _binary_rows(12)
    root = PrivateTable(X, y, domain=BINARY, epsilon=1.0, rng=0)
    root.noisy_count(epsilon=0.2)
    second = root.append(BINARY.encode(X), BINARY.encode_labels(y))
    assert root.path == ("batch 1",)
    second.noisy_count(epsilon=0.1)  # within batch 1's 0.2: free
    second.noisy_count(epsilon=0.3)  # batch 2 at 0.4: 0.2 more
    root.noisy_count(epsilon=0.1)  # batch 1 at 0.3 < 0.4: free
    assert [e.charged for e in root.ledger.entries] == pytest.approx([0.2, 0.0, 0.2, 0.0])
    assert root.ledger.spent == pytest.approx(0.4)
    third = root.append(BINARY.encode(X), BINARY.encode_labels(y))  # again from batch 1
    second.append(BINARY.encode(X), BINARY.encode_labels(y))  # and from another batch
    third.noisy_count(epsilon=0.5)  # batch 3 at 0.5: 0.1 more
    assert root.ledger.spent == pytest.approx(0.5)
    root.partition("a0")[0].noisy_count(epsilon=0.1)  # a batch partitions as a root does
    assert root.ledger.spent == pytest.approx(0.5)
    part = PrivateTable(X, y, domain=BINARY, epsilon=1.0, rng=0).partition("a0")[0]
    with pytest.raises(InvalidParameterError):
        part.append(BINARY.encode(X), BINARY.encode_labels(y))  # not a root or batch: refused


# ------------------------------------------------------------------- SuLQ ID3 (FS Alg. 1)
def _check_sulq_tree(root: ID3Node, ledger, budget: float, depth: int | None,
                     stopping: str) -> None:
    """The tree and ledger of FS Alg. 1: ε = B / (2(d+1)) per query of a node, the 2|𝒜|
    attribute count queries at ε / (2|𝒜|) each, one count per node, one leaf query per leaf,
    each attribute at most once on a path, the stopping rule asked for."""
    eps = budget / (2 * (depth + 1)) if depth is not None else math.inf
    n_attributes = len(BINARY)
    assert (root.depth, root.condition) == (0, "(root)")
    stack = [(root, (), ())]
    while stack:
        node, path, used = stack.pop()
        here = [e for e in ledger.entries if e.path == path]
        assert node.epsilon == eps
        assert [e.epsilon for e in here if e.label == id3.LABEL_COUNT] == [eps]
        if node.is_split:
            assert node.attribute not in used
            left = n_attributes - len(used)
            scores = [e.epsilon for e in here
                      if e.label in (id3.LABEL_VALUE_COUNTS, id3.LABEL_CELL_COUNTS)]
            if math.isfinite(eps):
                assert scores == pytest.approx([eps / (2 * left)] * (2 * left))
                assert math.isnan(node.stop_below) or (node.stop_below == 0) == (stopping == "id3")
            else:
                assert len(scores) == 2 * left
            for child, part in zip(node.children, BINARY[node.attribute].values, strict=True):
                assert (child.depth, child.condition) == (node.depth + 1,
                                                          f"{node.attribute} = {part}")
                stack.append((child, (*path, child.condition), (*used, node.attribute)))
        else:
            assert node.stop and (node.stop != "no attribute left" or len(used) == n_attributes)
            assert len([e for e in here if e.label == id3.LABEL_LEAF]) == 1


@pytest.mark.parametrize(("budget", "depth", "stopping"), [
    (1000.0, 2, "id3"), (1000.0, 2, "fs"), (math.inf, None, "fs"), (math.inf, 3, "id3")])
def test_sulq_id3_ledger_and_tree_are_fs_algorithm_1(budget, depth, stopping):
    X, y = _binary_rows()
    model = SuLQID3Classifier(budget, max_depth=depth, stopping=stopping, domain=BINARY,
                              random_state=0).fit(X, y)
    root = model.tree_.root
    assert root.is_split and any(c.is_split for c in root.children)  # the tree of a1 XOR a0
    _check_sulq_tree(root, model.ledger_, budget, depth, stopping)


def test_sulq_id3_functions_default_to_fs_stopping():
    X, y = _binary_rows()
    table = PrivateTable(X, y, domain=BINARY, epsilon=1000.0, rng=0)
    root = id3.sulq_id3(table, ["a0", "a1", "a2"], 2, 1000.0)
    assert root.stop_below > 0  # FS's rule: √2/ε·t·|C|, not ID3's 0
    table = PrivateTable(X, y, domain=BINARY, epsilon=1000.0, rng=0)
    node = ID3Node(depth=0, condition="(root)", epsilon=1000.0 / 6, noisy_count=math.nan)
    assert id3.build_sulq_id3(table, ["a0", "a1", "a2"], 2, 1000.0 / 6, node).stop_below > 0


# ------------------------------------------------------------------- PrivaTree
@pytest.mark.parametrize(("splitter", "depth", "share", "n_public"), [
    ("histogram", 2, 0.3, None), ("histogram", 2, None, 1000), ("exponential", 2, None, None),
    ("histogram", 0, None, None)])
def test_privatree_ledger_is_the_papers_budget_split(splitter, depth, share, n_public):
    X, y = _mixed_rows()
    eps = 1.0
    model = PrivaTreeClassifier(eps, max_depth=depth, n_bins=4, splitter=splitter,
                                leaf_share=share, n_public=n_public, domain=MIXED,
                                random_state=0).fit(X, y)
    if depth == 0:
        leaf, level = eps, math.inf  # no level: all ε to the leaf
    else:
        leaf = (eps * share if share is not None
                else privatree.leaf_epsilon(eps, depth, 2, n_public))
        level = (eps - leaf) / depth
    assert (model.eps_leaf_, model.eps_level_) == pytest.approx((leaf, level))
    ledger = model.ledger_
    labels = _entries(ledger, privatree.LABEL_LEAF)
    assert [e.epsilon for e in labels] == pytest.approx([leaf] * len(labels))
    assert {e.mechanism for e in labels} == {"report_noisy_max"}
    split_label = {"histogram": privatree.LABEL_HISTOGRAM, "exponential": privatree.LABEL_SPLIT}
    splits: dict[tuple, float] = {}
    for e in _entries(ledger, split_label[splitter]):
        splits[e.path] = splits.get(e.path, 0.0) + e.epsilon
    assert all(s == pytest.approx(level) for s in splits.values())
    assert ledger.spent == pytest.approx(eps)
    stack = [(model.tree_.root, ())]
    while stack:
        node, path = stack.pop()
        if node.split is None:
            assert node.epsilon == pytest.approx(leaf) and len(node.children) == 0
            assert len([e for e in labels if e.path == path]) == 1
            continue
        assert node.epsilon == pytest.approx(level) and path in splits
        conditions = node.split.describe(MIXED)
        for k, child in enumerate(node.children):
            assert (child.depth, child.condition) == (node.depth + 1, conditions[k])
            stack.append((child, (*path, f"part {k}")))


# ------------------------------------------------------------------- RDT# height (public)
#: Six categorical attributes of four values, six numeric ones (two sides each): b = 3.
RDT_SHARP_MIXED = Domain([Categorical(f"c{j}", tuple("pqrs")) for j in range(6)]
                         + [Numeric(f"x{j}", 0.0, 1.0) for j in range(6)], ["n", "y"])


@pytest.mark.parametrize(("domain", "n", "expected"), [
    (RDT_SHARP_MIXED, 100, 5),  # min(⌊12/2⌋, ⌊log_3 100⌋ + 1) = min(6, 5)
    (RDT_SHARP_MIXED, 10, 3),  # min(6, ⌊log_3 10⌋ + 1) = 3
    (Domain([Categorical(f"u{j}", ("one",)) for j in range(4)], ["n", "y"]), 100, 2)])  # b = 1
def test_rdt_sharp_height_is_its_rule_on_the_public_count(domain, n, expected):
    assert rdt_sharp.height(domain, n_labeled=n) == expected


# ------------------------------------------------------------------- report noisy max
@pytest.mark.parametrize(("utilities", "eps", "kwargs", "reference"), [
    ([0.0, 3.0, 3.0, 3.0], 1.0, {}, {"sensitivity": 1.0, "monotone": True}),  # defaults: scale 1
    ([0.0, 12.0, 12.0, 12.0], 0.5, {"sensitivity": 2.0, "monotone": False}, {})])  # 2Δ/ε = 8
def test_report_noisy_max_draws_its_exact_distribution(utilities, eps, kwargs, reference):
    """Exponential noise of scale Δ/ε (2Δ/ε if not monotone) *added*: with four candidates
    (two are the same in distribution with the noise subtracted) the draws' frequencies are
    report_noisy_max_probabilities' within five standard errors."""
    u, n = np.array(utilities), 20_000
    draws = mechanisms.report_noisy_max(u, epsilon=eps, rng=np.random.default_rng(0), size=n,
                                        **kwargs)
    p = mechanisms.report_noisy_max_probabilities(u, epsilon=eps, **kwargs, **reference)
    freq = np.bincount(draws, minlength=len(u)) / n
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-3)


@pytest.mark.parametrize(("epsilon", "sensitivity", "monotone", "refused"), [
    (2.0**-21, 1.0, True, True), (1.0, 2.0**21, True, True), (1.5 * 2.0**-20, 1.0, False, True),
    (2.0**-19, 1.0, True, False)])
def test_report_noisy_max_refuses_a_noise_scale_above_2_to_the_20(epsilon, sensitivity,
                                                                   monotone, refused):
    """The sampler's rate ε/Δ (ε/(2Δ) if not monotone) must be at least 2**-20."""
    def draw():
        return mechanisms.report_noisy_max(np.zeros(3), epsilon=epsilon, sensitivity=sensitivity,
                                           monotone=monotone, rng=np.random.default_rng(0))
    if refused:
        with pytest.raises(InvalidParameterError):
            draw()
    else:
        assert draw() in (0, 1, 2)


# ------------------------------------------------------------------- leaf labels
def test_leaf_labels_are_int_codes_and_the_exponential_one_prefers_the_majority():
    """An empty release's labels are int64 codes (a disjoint forest's tree may get no row);
    FI 2017's 0/1 utility rewards the majority class (at ε = 50 it wins)."""
    empty = NoisyLeafLabels.release(np.zeros(0, np.uint64), np.zeros(0, np.int64), 3,
                                    epsilon=1.0, mechanism="rosnam", rng=np.random.default_rng(0))
    labels = empty(np.array([1, 2, 3], np.uint64))
    assert labels.dtype == np.int64 and set(labels) <= {0, 1, 2}
    keys = np.array([5] * 6 + [9] * 6, np.uint64)
    codes = np.array([0, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 0])
    release = NoisyLeafLabels.release(keys, codes, 3, epsilon=50.0, mechanism="exponential",
                                      rng=np.random.default_rng(0))
    assert release(np.array([5, 9], np.uint64)).tolist() == [2, 1]


# ------------------------------------------------------------------- Private-RDT update
def _interrupt_third_leaf_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """KeyboardInterrupt on the third noisy_leaf_counts call: two of three trees answered."""
    original, calls = PrivateTable.noisy_leaf_counts, [0]

    def interrupted(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        return original(*args, **kwargs)
    monkeypatch.setattr(PrivateTable, "noisy_leaf_counts", interrupted)


@pytest.mark.parametrize(("interrupted", "method", "epsilon", "refused"), [
    (False, "jpw", 1.5, InvalidParameterError),  # a parallel batch above the budget
    (False, "jpw", 1.0, None),
    (False, "recount", 2.0, None),  # sequential: may spend more than the budget again
    (True, "jpw", 1.0, BudgetExceededError),  # 2/3 carried + 1 > 1
    (True, "jpw", 0.5, BudgetExceededError),  # 2/3 + 1/2 > 1
    (True, "jpw", 1 / 3, None),  # 2/3 + 1/3 = 1 fits exactly
    (True, "recount", 1.0, None)])  # reads D1 ∪ D2 again at a charge of its own
def test_rdt_update_refuses_a_jpw_batch_over_its_budget_before_reading_a_row(
        monkeypatch, interrupted, method, epsilon, refused):
    """A JPW batch (parallel composition) is refused above ledger_.total, and with the ε that
    interrupted updates charged on rows it may read again (JPW §V-B, docs/privacy.md §3)."""
    X, y = _binary_rows(40)
    X2, y2 = _binary_rows(20, seed=1)
    model = PrivateRDTClassifier(1.0, n_trees=3, max_depth=2, domain=BINARY,
                                 random_state=0).fit(X, y)
    if interrupted:
        with monkeypatch.context() as patch:
            _interrupt_third_leaf_release(patch)
            with pytest.raises(KeyboardInterrupt):
                model.update(X2, y2)
        assert model.ledger_.interrupted("update") == pytest.approx(2 / 3)
    model.set_params(epsilon=epsilon)
    spent = model.ledger_.spent
    if refused is not None:
        with pytest.raises(refused):
            model.update(X2, y2, method=method, X_previous=X, y_previous=y)
        assert model.ledger_.spent == spent
    else:
        model.update(X2, y2, method=method, X_previous=X, y_previous=y)
        assert model.ledger_.spent == pytest.approx(
            spent if method == "jpw" else spent + epsilon)


def test_rdt_ledger_and_trees_across_updates():
    """Each tree's leaf vector at ε/N, labelled by tree and batch; a recount keeps the trees
    and charges D1's release first; a rebuild draws new ones; a JPW batch after a recount
    appends to the recount's table (JPW §V-B)."""
    X, y = _binary_rows(40)
    X2, y2 = _binary_rows(20, seed=1)
    model = PrivateRDTClassifier(0.75, n_trees=3, max_depth=2, domain=BINARY,
                                 random_state=0).fit(X, y)

    def last(k):
        return [(e.label, e.epsilon) for e in model.ledger_.entries[-k:]]
    vector = [f"tree {i} leaf vector" for i in (1, 2, 3)]
    assert last(3) == [(v, pytest.approx(0.25)) for v in vector] and len(model.ledger_.entries) == 3
    model.update(X2, y2)
    assert last(3) == [(f"{v} (batch 2)", pytest.approx(0.25)) for v in vector]
    trees = list(model.trees_)
    model.update(X2, y2, method="recount", X_previous=X, y_previous=y)
    assert [e.label for e in model.ledger_.entries[:1]] == ["earlier release on D1 (sequential)"]
    assert last(3) == [(f"{v} (recount on D1 ∪ D2)", pytest.approx(0.25)) for v in vector]
    assert all(a is b for a, b in zip(model.trees_, trees, strict=True))
    model.update(X2, y2)
    assert last(3) == [(f"{v} (batch 2)", pytest.approx(0.25)) for v in vector]
    model.update(X2, y2, method="rebuild", X_previous=X, y_previous=y)
    assert last(3) == [(f"{v} (rebuild on D1 ∪ D2)", pytest.approx(0.25)) for v in vector]
    assert not any(a is b for a, b in zip(model.trees_, trees, strict=True))


# ------------------------------------------------------------------- RDT# refit
@pytest.mark.parametrize("interrupted", [False, True])
def test_rdt_sharp_refit_is_recorded_in_the_objects_record_not_its_ledger(monkeypatch,
                                                                          interrupted):
    """A refit makes a new model: its queries (answered ones of an interrupted refit too) go
    to the object's privacy_record as 'RDTSharpClassifier.refit', never into the fitted
    model's ledger_ (docs/privacy.md §8.2.5)."""
    X, y = _binary_rows(40)
    model = rdt_sharp.RDTSharpClassifier(1.0, n_primary=3, n_secondary=2, max_depth=2,
                                         domain=BINARY, random_state=0).fit(X, y)
    entries, spent = list(model.ledger_.entries), model.ledger_.spent
    calls = len(model.privacy_record.calls)
    if interrupted:
        _interrupt_third_leaf_release(monkeypatch)
        with pytest.raises(KeyboardInterrupt):
            model.refit(X, y, epsilon=0.6)
    else:
        model.refit(X, y, epsilon=0.6)
    assert (model.ledger_.entries, model.ledger_.spent) == (entries, spent)
    (call,) = model.privacy_record.calls[calls:]
    assert (call.what, call.interrupted) == ("RDTSharpClassifier.refit", interrupted)
    assert call.epsilon == pytest.approx(0.4 if interrupted else 0.6)  # 2 of 3 trees at 0.2


# ------------------------------------------------- gaps found by triaging the survivors
def test_secret_noise_keys_span_the_whole_uint64_range():
    """A 128-bit key: two words drawn from all of [0, 2**64) (a narrowed range, such as
    [0, 128), would let an adversary brute-force the key of the lazy leaf release)."""
    from dpviz.keyed import new_secret_key

    words = np.concatenate([new_secret_key(np.random.default_rng(s)) for s in range(8)])
    assert words.dtype == np.uint64 and words.shape == (16,)
    assert words.max() > np.uint64(2**62)  # all 16 below 2**62: probability 4**-16
    assert len(set(words.tolist())) == 16


@pytest.mark.parametrize(("epsilon", "sensitivity", "refused"), [
    (1e-7, 1.0, True), (2.0**-20, 2.0, True), (1.0, 2.0**21, True), (2.0**-19, 2.0, False)])
def test_discrete_laplace_refuses_a_noise_rate_below_2_to_the_20(epsilon, sensitivity, refused):
    """ε/Δ below 2**-20 is refused: far below it the geometric draws overflow int64 and the
    noise cancels, releasing the exact count."""
    def draw():
        return mechanisms.discrete_laplace(5, epsilon=epsilon, sensitivity=sensitivity,
                                           rng=np.random.default_rng(0))
    if refused:
        with pytest.raises(InvalidParameterError):
            draw()
    else:
        assert isinstance(int(draw()), int)


def test_discrete_laplace_draws_its_exact_distribution_at_sensitivity_2():
    """Δ = 2, ε = 1: P(K = k) = tanh(a/2)·e^(−a|k|) with a = ε/Δ = 1/2 (every caller in dpviz
    has Δ = 1, where a rate of εΔ and of ε/Δ agree), within five standard errors."""
    n, a = 20_000, 0.5
    draws = mechanisms.discrete_laplace(np.zeros(n, dtype=np.int64), epsilon=1.0,
                                        sensitivity=2.0, rng=np.random.default_rng(0))
    k = np.arange(-6, 7)
    p = math.tanh(a / 2) * np.exp(-a * np.abs(k))
    freq = np.array([(draws == j).mean() for j in k])
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-3)


@pytest.mark.parametrize(("monotone", "divisor"), [(True, 2.0), (False, 4.0)])
def test_exponential_mechanism_at_sensitivity_2_draws_exp_eps_u_over_delta(monotone, divisor):
    """Δ = 2, ε = 1: P(i) ∝ exp(ε·u_i/Δ) if monotone, exp(ε·u_i/(2Δ)) if not: the closed
    form, not exponential_probabilities (which shares the sampler's rate)."""
    u, n = np.array([0.0, 2.0, 4.0, 6.0]), 20_000
    draws = mechanisms.exponential_mechanism(u, epsilon=1.0, sensitivity=2.0, monotone=monotone,
                                             rng=np.random.default_rng(0), size=n)
    p = np.exp(u / divisor) / np.exp(u / divisor).sum()
    freq = np.bincount(draws, minlength=len(u)) / n
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-3)


@pytest.mark.parametrize("first", [0.8, 0.5, 0.0])
def test_a_query_past_the_remaining_budget_is_refused_before_it_is_recorded(first):
    """A table of ε = 1: after ``first`` is spent, a query of 0.6 that would pass the total
    raises BudgetExceededError and records nothing; one that fits (or reaches 1 exactly)
    goes through; a query larger than the whole budget is refused at once."""
    X = pd.DataFrame({"a": ["x", "y", "x", "y"]})
    domain = Domain([Categorical("a", ["x", "y"])], classes=["0", "1"])
    table = PrivateTable(X, pd.Series(["0", "1", "1", "0"]), domain=domain, epsilon=1.0,
                         rng=np.random.default_rng(0))
    if first:
        table.noisy_count(epsilon=first)
    if first + 0.6 > 1.0:
        with pytest.raises(BudgetExceededError):
            table.noisy_count(epsilon=0.6)
        assert table.ledger.spent == pytest.approx(first) and len(table.ledger.entries) == 1
    else:
        with pytest.raises(BudgetExceededError):
            table.noisy_count(epsilon=1.5)
        table.noisy_count(epsilon=0.6)
        assert table.ledger.spent == pytest.approx(first + 0.6)
    table.noisy_count(epsilon=1.0 - table.ledger.spent)  # the rest, exactly
    with pytest.raises(BudgetExceededError):
        table.noisy_count(epsilon=0.01)
    assert table.ledger.spent == pytest.approx(1.0)


# ----------------------------------- gaps found by triaging the survivors of 2026-12-02's run
def test_an_interrupted_jpw_update_is_in_the_record_as_in_the_ledger(monkeypatch):
    """Fit (ε = 1), a JPW batch (parallel: 0 more), then a batch interrupted after two of three
    trees (2/3, charged in full): the object's record lists the three calls, each with the
    model's own ledger, and sums to what that ledger spent (docs/privacy.md §3)."""
    X, y = _binary_rows(40)
    X2, y2 = _binary_rows(20, seed=1)
    model = PrivateRDTClassifier(1.0, n_trees=3, max_depth=2, domain=BINARY,
                                 random_state=0).fit(X, y)
    model.update(X2, y2)
    with monkeypatch.context() as patch:
        _interrupt_third_leaf_release(patch)
        with pytest.raises(KeyboardInterrupt):
            model.update(X2, y2)
    record = model.privacy_record
    assert [(c.what, c.interrupted) for c in record.calls] == [
        ("PrivateRDTClassifier.fit", False), ("PrivateRDTClassifier.update", False),
        ("PrivateRDTClassifier.update", True)]
    assert [c.epsilon for c in record.calls] == pytest.approx([1.0, 0.0, 2 / 3])
    assert all(len(c.ledgers) == 1 and c.ledgers[0] is model.ledger_ for c in record.calls)
    assert record.spent == pytest.approx(model.ledger_.spent) == pytest.approx(5 / 3)
    assert len(record.ledgers) == 1 and record.ledgers[0] is model.ledger_
    assert record.to_frame().status.tolist() == ["finished", "finished", "interrupted"]


def test_an_interrupted_first_fit_is_recorded_and_a_retry_warns(monkeypatch):
    """A first fit stopped after two of three trees: the interrupt itself reaches the caller,
    the record holds one interrupted call of 2/3 whose ledger is the exception's, and a
    second fit warns that the two losses add up (PrivacyLeakWarning) and records 2/3 + 1."""
    from dpviz.errors import PrivacyLeakWarning

    X, y = _binary_rows(40)
    model = PrivateRDTClassifier(1.0, n_trees=3, max_depth=2, domain=BINARY, random_state=0)
    with monkeypatch.context() as patch:
        _interrupt_third_leaf_release(patch)
        with pytest.raises(KeyboardInterrupt) as stopped:
            model.fit(X, y)
    (call,) = model.privacy_record.calls
    assert (call.what, call.interrupted) == ("PrivateRDTClassifier.fit", True)
    assert call.epsilon == pytest.approx(2 / 3)
    ledgers = stopped.value.dpviz_ledgers
    assert len(call.ledgers) == len(ledgers) == 1 and call.ledgers[0] is ledgers[0]
    with pytest.warns(PrivacyLeakWarning, match="interrupted"):
        model.fit(X, y)
    assert model.privacy_record.spent == pytest.approx(2 / 3 + 1)
    assert [c.interrupted for c in model.privacy_record.calls] == [True, False]


def test_rows_that_reach_no_leaf_are_left_out_not_refused():
    """A route may leave a row in no leaf (a key of -1): the release counts the others and
    raises nothing (an exception after the read would tell that such a row exists)."""
    domain = Domain([Categorical("a", ["x", "y"])], classes=["0", "1"])
    table = PrivateTable(pd.DataFrame({"a": ["x", "y", "x"]}), pd.Series(["0", "1", "1"]),
                         domain=domain, epsilon=math.inf, rng=np.random.default_rng(0))
    release = table.noisy_leaf_counts(lambda codes: np.array([5, 5, -1]), epsilon=math.inf)
    assert release(np.array([5], dtype=np.uint64)).tolist() == [[1, 1]]


def test_leaf_releases_without_a_proof_warn():
    """Float Laplace leaf counts and FI 2017's smooth-sensitivity labels carry no claim: each
    release says so (NotProvenPrivateWarning), the float one naming Mironov's attack."""
    from dpviz.errors import NotProvenPrivateWarning
    from dpviz.leaf_release import NoisyLeafCounts

    keys, labels = np.array([1, 1, 2], dtype=np.uint64), np.array([0, 1, 1])
    with pytest.warns(NotProvenPrivateWarning, match="Mironov"):
        NoisyLeafCounts.release(keys, labels, 2, epsilon=0.5, mechanism="laplace",
                                rng=np.random.default_rng(0))
    with pytest.warns(NotProvenPrivateWarning):
        NoisyLeafLabels.release(keys, labels, 2, epsilon=0.5, mechanism="smooth_sensitivity",
                                rng=np.random.default_rng(0))


def test_a_progress_bar_changes_nothing_a_private_rdt_releases(monkeypatch):
    """The bar shows from PROGRESS_MIN_VISITS node visits on, a threshold in the private row
    count: a fit and an update with the bar shown release what they release without it
    (a failure only with the bar would tell n above or below the threshold)."""
    from dpviz.trees import speed

    X, y = _binary_rows(40)
    X2, y2 = _binary_rows(20, seed=1)

    def released():
        model = PrivateRDTClassifier(1.0, n_trees=3, max_depth=2, domain=BINARY,
                                     random_state=0).fit(X, y)
        model.update(X2, y2)
        return model.released_counts(X), [(e.label, e.epsilon) for e in model.ledger_.entries]
    quiet = released()
    monkeypatch.setattr(speed, "PROGRESS_MIN_VISITS", 1)
    shown = released()
    assert np.array_equal(quiet[0], shown[0]) and quiet[1] == shown[1]


def test_fi_forest_default_depth_is_fletcher_islams_rule():
    """max_depth=None: FI's depth, 1 + min{d : E[X | d] < s/2} + ⌊r/2⌋ = 2 + 2 for one
    continuous and four discrete attributes (public: the domain alone)."""
    from dpviz.trees.forest import DPRandomForestClassifier

    domain = Domain([*(Categorical(f"c{j}", ("0", "1")) for j in range(4)),
                     Numeric("x", 0.0, 1.0)], ["n", "y"])
    rng = np.random.default_rng(0)
    X = pd.DataFrame({**{f"c{j}": rng.choice(["0", "1"], 30) for j in range(4)},
                      "x": rng.uniform(0, 1, 30)})
    y = np.where(X.x > 0.5, "y", "n")
    model = DPRandomForestClassifier(epsilon=1.0, n_trees=2, domain=domain,
                                     random_state=0).fit(X, y)
    assert model.depth_ == 4


@pytest.mark.parametrize("bad", [0.0, 1.0, 1.5, -0.5])
def test_uniforms_outside_the_open_unit_interval_are_refused(bad):
    """A caller's uniforms must lie in (0, 1): at 0 or 1 the inversion gives infinite noise."""
    with pytest.raises(InvalidParameterError, match="open interval"):
        mechanisms.discrete_laplace(5, epsilon=1.0, uniforms=[bad, 0.5])


def test_diffp_id3_at_infinite_epsilon_is_id3():
    """ε = inf (the non-private reference): DiffP-ID3 takes the exact best split at every node,
    so the label a1 XOR a0 is split below the root and fitted exactly, each count read once."""
    X, y = _binary_rows()
    model = DiffPID3Classifier(math.inf, max_depth=3, domain=BINARY, random_state=0).fit(X, y)
    root = model.tree_.root
    assert root.is_split and all(c.is_split for c in root.children)
    assert model.score(X, y) == 1.0


def test_float_laplace_counts_are_the_exact_counts_plus_laplace_noise():
    """A table's float-Laplace counts (not proven private, opt-in): the exact counts plus
    Laplace(1/ε) noise from the table's generator, one draw per count, charged once."""
    from dpviz.errors import NotProvenPrivateWarning

    X, y = _binary_rows(40)
    eps, n_tables = 0.5, 400

    def release(seed):
        table = PrivateTable(X, pd.Series(y), domain=BINARY, epsilon=eps,
                             rng=np.random.default_rng(seed))
        with pytest.warns(NotProvenPrivateWarning, match="Mironov"):
            counts = table.noisy_histogram("a0", epsilon=eps, mechanism="laplace")
        assert [(e.epsilon, e.mechanism) for e in table.ledger.entries] == [(eps, "laplace")]
        return counts

    exact = pd.crosstab(X.a0, y).to_numpy()
    noise = np.array([release(seed) for seed in range(n_tables)]) - exact
    assert noise.dtype == np.float64 and np.all(noise != np.round(noise))
    assert np.array_equal(release(7), release(7))  # the table's generator, not a fresh one
    # Laplace(b), b = 1/ε = 2: over 1,600 draws the mean has sd 2√2/40 = 0.07, the mean |draw|
    # (E = b) sd 2/40 = 0.05: 4 sd each
    assert abs(noise.mean()) < 0.3 and abs(np.abs(noise).mean() - 1 / eps) < 0.2
    assert abs(np.corrcoef(noise.reshape(n_tables, -1).T)[0, 1]) < 0.2  # independent draws


def test_diffp_id3_refuses_infogain_without_a_size_bound_before_a_query():
    """Information gain's sensitivity needs a public bound N on the rows (FS App. A): without
    one DiffP-ID3 refuses at finite ε, before any query (Δ = 1 would under-noise it)."""
    X, y = _binary_rows(40)
    table = PrivateTable(X, pd.Series(y), domain=BINARY, epsilon=1.0,
                         rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError):
        id3.diffp_id3(table, ["a0", "a1", "a2"], 2, 1.0, criterion="infogain")
    assert table.ledger.entries == []
