"""The adversarial audit suite (dpviz.audit.suite) at test size: every release path of every
exported estimator × its privacy-relevant options, audited on worst-case neighbours.

Each correct path must come out "no violation found", and its planted bug (the same path, on
the same neighbours and events, with a fault of the kind the row rules out: a choice by exact
argmax, a doubled ε, a missing budget split, reused noise) must be rejected at the same size,
so a pass means the audit could have failed; each unproven path must be rejected. Whole
estimators: 1,000 fits per neighbour; shipped components: 50,000 samples. Fixed seeds.
`make audit` runs the same cases with more samples and writes docs/privacy.md.
"""

import os

import numpy as np
import pytest

from dpviz.audit import suite as audit_suite
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

CASES = audit_suite.cases()


@pytest.fixture(scope="module")
def results():
    processes = max(1, min(2, os.cpu_count() or 1))
    run = audit_suite.run_suite(n_whole=1_000, n_mechanism=50_000, processes=processes)
    return {case.name: (result, bug) for case, result, bug in run}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case, results):
    result, bug = results[case.name]
    if case.role == "claim":
        assert not result.reject, result.summary()
        if case.bug is not None:  # its power: the planted bug is caught at the same size
            assert bug is not None and bug.reject, (case.bug.name, bug and bug.summary())
    else:  # an unproven path: the audit must catch it
        assert result.reject, result.summary()


def test_every_claim_has_a_planted_bug_or_says_why_not():
    for case in CASES:
        if case.role == "claim":
            assert (case.bug is None) != (case.no_power == ""), case.name
        else:
            assert case.bug is None, case.name
    without = [c.name for c in CASES if c.role == "claim" and c.bug is None]
    assert len(without) <= 1, without  # only huge ε: no sample size here can refute ε = 30
    # each kind of fault the table claims to rule out is planted somewhere
    bugs = " ".join(c.bug.name for c in CASES if c.bug is not None)
    for kind in ("exact argmax", "spends 2ε", "budget not split", "reused noise",
                 "exact counts", "8× its ε", "private row count"):
        assert kind in bugs, kind


def test_a_planted_bug_runs_the_shipped_path_with_one_fault():
    """The argmax bug replaces the exponential mechanism only while its target runs."""
    from dpviz import mechanisms

    case = next(c for c in CASES if "criterion='max'" in c.option)
    target = case.bug.build()
    before = mechanisms.exponential_mechanism
    out = target.mechanism(target.D_prime, 20, np.random.default_rng(0))
    assert mechanisms.exponential_mechanism is before
    assert (out[:, 0] == 1).all()  # under D′ the exact argmax always takes a1


def test_every_exported_estimator_and_family_is_covered():
    estimators = {c.estimator.split(".")[0] for c in CASES}
    for cls in (PrivateRDTClassifier, DPRandomForestClassifier, RDTSharpClassifier,
                DiffPID3Classifier, DiffPC45Classifier, SuLQID3Classifier,
                RandomDecisionTreeClassifier):
        assert cls.__name__ in estimators
    for family in {c.family for c in CASES}:  # each family: claims with planted bugs
        assert any(c.bug is not None for c in CASES if c.family == family), family
    # the options each finding was about are in the suite
    options = " ".join(c.option for c in CASES)
    for needed in ("method='rebuild'", "method='recount'", "method='jpw'", "noise='laplace'",
                   "default height", "numeric split points", "tiny ε", "huge ε",
                   "smooth_sensitivity", "disjoint=False", "clip_negative", "numeric attributes",
                   "prune=True", "criterion='gini'", "criterion='infogain'",
                   "nested labelled sets", "own seeds"):
        assert needed in options, needed


def test_claims_table_reports_every_case(results):
    rows = [(c, *results[c.name]) for c in CASES]
    table = audit_suite.claims_table(rows)
    assert len(table) == len(CASES)
    assert table["as expected"].all()
    assert set(table["role"]) == {"claim", "no claim"}
    claims = table[table["role"] == "claim"]
    assert claims["power"].str.startswith("caught").sum() == len(claims) - 1
    assert claims["evidence"].sum() == len(claims) - 1
    huge = claims[claims["option"].str.startswith("huge ε")]
    assert huge["power"].str.endswith("not evidence").all() and not huge["evidence"].any()


def test_docs_claims_table_is_generated_from_the_current_suite():
    """docs/privacy.md's table is produced by `make audit` (never typed): one row per case."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "privacy.md").read_text()
    block = text[text.index(audit_suite.TABLE_START):text.index(audit_suite.TABLE_END)]
    rows = [line for line in block.splitlines()
            if line.startswith("| ") and not line.startswith("| estimator |")]
    assert len(rows) == len(CASES), "the suite changed: run `make audit` to regenerate the table"
    for case, row in zip(CASES, rows, strict=True):
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert cells[:3] == [case.estimator, case.option.replace("|", "\\|"), case.role]
        assert cells[8] == ("no violation found" if case.role == "claim"
                            else "rejected, as it must be")
        assert cells[9] == (case.bug.name if case.bug is not None else "—").replace("|", "\\|")
        if case.role == "claim":
            assert cells[10].startswith("caught") or cells[10].endswith("not evidence")
