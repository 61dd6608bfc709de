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

from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.privacy import PrivateTable
from dpviz.trees.id3_quality import sensitivity_gini, sensitivity_infogain, sensitivity_max

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


