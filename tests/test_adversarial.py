"""Regression tests for the findings of the adversarial privacy review (issue 11), one per
finding, each written as the attack that broke dpviz ≤ 0.1 — so each fails on the old code.
The whole-estimator audits of every option are in tests/test_audit_suite.py."""

import inspect
import math
import pickle
import warnings

import numpy as np
import pytest

from dpviz import keyed, mechanisms
from dpviz.audit import targets as audit_targets
from dpviz.audit.engine import Event, audit, laplace_lattice_events
from dpviz.audit.suite import categorical_problem
from dpviz.domain import Categorical, Domain
from dpviz.errors import (
    InvalidParameterError,
    NotProvenPrivateWarning,
    PrivacyLeakWarning,
)
from dpviz.leaf_release import NoisyLeafCounts
from dpviz.privacy import PrivateTable
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

DOMAIN, X, Y, CANARY = categorical_problem()
BATCH = (np.array([["1", "1", "1"]], dtype=object), ["n"])  # the new batch holds the canary


def _rdt(seed, **kw):
    return PrivateRDTClassifier(epsilon=1.0, n_trees=1, max_depth=3, domain=DOMAIN,
                                random_state=seed, **kw).fit(X, Y)


# 1 ------------------------------------------------------------------------------------------
def test_finding_1_rebuild_draws_fresh_noise():
    """update(method="rebuild") reseeded the generator: the trees and the noise repeated, so
    "after − before" was the exact count of the new batch (ε = ∞ against the ledger's 2ε)."""
    exact = 0
    for seed in range(100):
        model = _rdt(seed)
        before = model.released_counts(CANARY)[0, 0]
        model.update(*BATCH, method="rebuild", X_previous=X, y_previous=Y)
        after = model.released_counts(CANARY)[0, 0]
        exact += int(np.array_equal(after - before, [1, 0]))
    # independent noise: P(N2 - N1 = (0, 0)) = P(difference of two DL(1) is 0)^2 ≈ 0.21;
    # 100 fits: mean 21, sd 4.1 — old code: 100 of 100
    assert exact < 40


# 2 ------------------------------------------------------------------------------------------
def _old_keyed_noise(leaf_key: int, noise_key: int, n_classes: int, epsilon: float):
    """The attacker's model of dpviz ≤ 0.1: leaf noise = SplitMix64-keyed inversion."""
    key = keyed.splitmix64(np.array([leaf_key], dtype=np.uint64) ^ np.uint64(noise_key))
    base = keyed.child_keys(keyed.derive(key, 101)[..., None],
                            np.arange(2 * n_classes, dtype=np.uint64))
    u = (keyed.splitmix64(base) >> np.uint64(11)).astype(np.float64) * 2.0**-53 + 2.0**-54
    g = np.floor(np.log(u) / -epsilon).astype(np.int64)
    return (g[:, :n_classes] - g[:, n_classes:])[0]


def test_finding_2_recount_noise_is_not_derived_from_public_tree_keys():
    """update(method="recount") used each tree's (public, invertible) key as its noise key:
    subtracting the noise recomputed from the released structure gave exact counts."""
    exact = 0
    for seed in range(60):
        model = _rdt(seed)
        model.update(*BATCH, method="recount", X_previous=X, y_previous=Y)
        tree = model.trees_[0]
        leaf = int(tree.leaf_keys(DOMAIN.encode(CANARY))[0])
        released = model.released_counts(CANARY)[0, 0]
        guess = released - _old_keyed_noise(leaf, int(tree.key), 2, 1.0)
        exact += int(np.array_equal(guess, [1, 0]))
    assert exact < 25  # chance ≈ 0.21 per fit; the old code: 60 of 60


# 3 ------------------------------------------------------------------------------------------
def test_finding_3_released_split_points_lie_on_the_public_grid():
    """FS §4.3 thresholds were uniform draws between data values (a data-dependent lattice);
    now every released threshold is a point of the public grid (the audit of both samplers
    is in tests/test_id3_split_point.py)."""
    from dpviz.data.synthetic import fs_numeric_split_data
    from dpviz.trees.id3 import DiffPC45Classifier, split_grid

    data = fs_numeric_split_data(500, random_state=0)
    model = DiffPC45Classifier(epsilon=5.0, max_depth=3, domain=data.domain,
                               random_state=0).fit(data.X, data.y)
    released = [(a, v) for node in model.tree_.nodes() for a, v in node.split_points.items()]
    assert released
    for name, value in released:
        attribute = data.domain[name]
        assert value in split_grid(attribute.low, attribute.high, model.n_split_cells)


# 4 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: PrivateRDTClassifier(epsilon=1.0, n_trees=1, max_depth=3, noise="laplace",
                                 domain=DOMAIN, random_state=0),
    lambda: RDTSharpClassifier(epsilon=1.0, n_primary=1, n_secondary=0, max_depth=3,
                               noise="laplace", domain=DOMAIN, random_state=0),
], ids=["Private-RDT", "RDT#"])
def test_finding_4_float_laplace_is_marked_not_proven(make):
    with pytest.warns(NotProvenPrivateWarning, match="Mironov"):
        make().fit(X, Y)


def test_finding_4_float_laplace_leaf_counts_fail_the_lattice_audit():
    result = audit(audit_targets.leaf_vector(1.0, "laplace"), np.array([0, 0]),
                   np.array([1, 0]), epsilon=1.0, n_samples=5_000,
                   events=[Event(f"[0] {e.name}", lambda x, e=e: e(x[:, 0]))
                           for e in laplace_lattice_events(1.0)])
    assert result.reject and result.epsilon_lower > 4, result.summary()


# 5 ------------------------------------------------------------------------------------------
def test_finding_5_rdt_sharp_default_height_ignores_the_private_size():
    heights = {RDTSharpClassifier(n_secondary=0, domain=DOMAIN, random_state=0)
               .fit(X[:n], Y[:n]).depth_ for n in (1, 2, 6)}
    assert heights == {1}  # ⌊3/2⌋ on this domain, one row or six (old code: 1, 2, 2)


# 6 ------------------------------------------------------------------------------------------
def test_finding_6_tiny_epsilon_is_refused_before_any_release(monkeypatch):
    read = []
    monkeypatch.setattr(PrivateTable, "_read", lambda self: read.append(1) or (None, None))
    for make in (
        lambda: PrivateRDTClassifier(epsilon=1e-30, domain=DOMAIN),
        lambda: RDTSharpClassifier(epsilon=1e-30, n_secondary=0, domain=DOMAIN),
        lambda: DPRandomForestClassifier(epsilon=1e-30, domain=DOMAIN),
    ):
        with pytest.raises(InvalidParameterError, match=r"smallest ε .*9\.53674e-07"):
            make().fit(X, Y)
    assert not read
    with pytest.raises(InvalidParameterError, match="smallest"):
        mechanisms.laplace(5.0, epsilon=5e-324, rng=0)
    with pytest.raises(InvalidParameterError, match="smallest"):
        mechanisms.discrete_laplace(5, epsilon=1e-19, rng=0)
    table = PrivateTable(X, Y, domain=DOMAIN, epsilon=1.0, rng=0)
    with pytest.raises(InvalidParameterError, match="smallest"):
        table.noisy_count(epsilon=1e-12)
    assert table.ledger.spent == 0 and not read
    # at the minimum itself the noise is huge, never zero (the old code returned exact counts)
    noise = mechanisms.discrete_laplace(np.zeros(1000, int), epsilon=mechanisms.MIN_NOISE_RATE,
                                        rng=0)
    assert (noise != 0).mean() > 0.99


# 7 ------------------------------------------------------------------------------------------
def test_finding_7_no_exception_depends_on_unpaid_rows():
    """A cell function mapping some rows out of range raised only when such rows existed."""
    domain = Domain([Categorical("a", ("0", "1", "2"))], ["n", "y"])

    def cells(codes):  # value "2" maps outside the 2 cells
        return codes[:, 0].astype(int)

    outcomes = []
    for rows in (["0", "1"], ["0", "1", "2"]):
        X_ = np.array(rows, dtype=object)[:, None]
        table = PrivateTable(X_, ["n"] * len(rows), domain=domain, epsilon=math.inf, rng=0)
        hist = table.noisy_histogram(cells, n_cells=2, epsilon=math.inf, classes=False)
        parts = table.partition(cells, n_parts=2)
        outcomes.append((hist.tolist(), len(parts)))
    assert outcomes == [([1, 1], 2), ([1, 1], 2)]  # the row in "2" is simply not counted


# 8 ------------------------------------------------------------------------------------------
def test_finding_8_fitted_models_hold_no_exact_counts_and_warn_when_shared():
    model = _rdt(0)
    release = model.leaf_counts_[0]
    assert set(vars(release)) == {"_visited", "_values", "_secret", "epsilon", "mechanism",
                                  "n_classes"}
    with pytest.warns(PrivacyLeakWarning, match="curator secrets"):
        pickle.dumps(model)
    forest = DPRandomForestClassifier(epsilon=1.0, n_trees=3, max_depth=2, domain=DOMAIN,
                                      random_state=0).fit(X, Y)
    with pytest.warns(PrivacyLeakWarning):
        pickle.dumps(forest)


def test_finding_8_random_state_none_uses_full_entropy():
    model = PrivateRDTClassifier(domain=DOMAIN)
    entropy = [model._rng().bit_generator.seed_seq.entropy for _ in range(4)]
    assert len(set(entropy)) == 4
    # 128-bit OS entropy, not a 31-bit seed an attacker could search
    assert max(entropy) > 2**64


def test_finding_8_uniforms_are_never_0_or_1():
    extremes = np.array([0, 2**64 - 1], dtype=np.uint64)
    u = keyed.uniforms_from_bits(extremes)
    assert u[0] == 2.0**-53 and u[1] == 1 - 2.0**-53
    assert np.isfinite(mechanisms.laplace_noise(u, scale=1.0)).all()
    assert np.isfinite(-np.log(-np.log(u))).all()


# 9 ------------------------------------------------------------------------------------------
def test_finding_9_audit_targets_call_the_shipped_samplers():
    """The leaf targets return exactly what the shipped release returns for the same draws."""
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    audited = audit_targets.leaf_vector(0.5)(np.array([3, 1]), 50, rng_a)
    keys = np.repeat(np.arange(50, dtype=np.uint64), 4)
    labels = np.tile([0, 0, 0, 1], 50)
    shipped = NoisyLeafCounts.release(keys, labels, 2, epsilon=0.5,
                                      mechanism="discrete_laplace", rng=rng_b)
    np.testing.assert_array_equal(audited, shipped(np.arange(50, dtype=np.uint64)))
    # and no sampler is re-implemented in the targets module
    source = inspect.getsource(audit_targets)
    samplers = ("np.log(", "gumbel", ".geometric(", "rng.exponential(", "rng.laplace(")
    for private_sampling in samplers:
        assert private_sampling not in source


def test_finding_8_export_release_is_the_shareable_release():
    model = PrivateRDTClassifier(epsilon=1.0, n_trees=2, max_depth=3, domain=DOMAIN,
                                 random_state=0).fit(X, Y)
    export = model.export_release()
    assert len(export) == 2 * 8 and list(export.columns) == ["tree", "leaf", "n", "y"]
    canary_leaf = export["leaf"].map(lambda p: all(f"a{j} = 1" in p for j in range(3)))
    for t in range(2):
        row = export[(export["tree"] == t) & canary_leaf][["n", "y"]].to_numpy()
        np.testing.assert_array_equal(row[0], model.released_counts(CANARY)[t, 0])
    forest = DPRandomForestClassifier(epsilon=1.0, n_trees=2, max_depth=3, domain=DOMAIN,
                                      random_state=0).fit(X, Y)
    labels = forest.export_release()
    assert len(labels) == 16 and set(labels["label"]) <= {"n", "y"}
    with warnings.catch_warnings():  # the export holds no secret: sharing it does not warn
        warnings.simplefilter("error", PrivacyLeakWarning)
        pickle.dumps(export)
        pickle.dumps(labels)
    with pytest.raises(InvalidParameterError, match="leaves"):
        model.export_release(max_leaves=4)
