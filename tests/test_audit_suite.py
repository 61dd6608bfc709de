"""The adversarial audit suite (dpviz.audit_suite) at test size: every release path of every
exported estimator × its privacy-relevant options, audited on worst-case neighbours.

Each correct path must come out "no violation found"; each power control (the same path
secretly spending 2ε, or composing wrongly) and each unproven path must be rejected, so a
pass means the audit could have failed. Whole estimators: 1,000 fits per neighbour (each
family's control is rejected at that size); shipped components: 50,000 samples. Fixed
seeds. `make audit` runs the same cases with more samples and writes docs/privacy.md.
"""

import os

import pytest

from dpviz import audit_suite
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

CASES = audit_suite.cases()


@pytest.fixture(scope="module")
def results():
    processes = max(1, min(2, os.cpu_count() or 1))
    run = audit_suite.run_suite(n_whole=1_000, n_mechanism=50_000, processes=processes)
    return {case.name: result for case, result in run}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case, results):
    result = results[case.name]
    if case.role == "claim":
        assert not result.reject, result.summary()
    else:  # a power control or an unproven path: the audit must catch it
        assert result.reject, result.summary()


def test_every_exported_estimator_and_family_is_covered():
    estimators = {c.estimator.split(".")[0] for c in CASES}
    for cls in (PrivateRDTClassifier, DPRandomForestClassifier, RDTSharpClassifier,
                DiffPID3Classifier, DiffPC45Classifier, SuLQID3Classifier,
                RandomDecisionTreeClassifier):
        assert cls.__name__ in estimators
    for family in {c.family for c in CASES}:  # each family: claims and a power control
        roles = {c.role for c in CASES if c.family == family}
        assert {"claim", "control"} <= roles, family
    # the options each finding was about are in the suite
    options = " ".join(c.option for c in CASES)
    for needed in ("method='rebuild'", "method='recount'", "method='jpw'", "noise='laplace'",
                   "default height", "numeric split points", "tiny ε", "huge ε",
                   "smooth_sensitivity", "disjoint=False", "clip_negative", "numeric attributes",
                   "prune=True", "criterion='gini'", "criterion='infogain'"):
        assert needed in options, needed


def test_claims_table_reports_every_case(results):
    pairs = [(c, results[c.name]) for c in CASES]
    table = audit_suite.claims_table(pairs)
    assert len(table) == len(CASES)
    assert table["as expected"].all()
    assert set(table["role"]) == {"claim", "control", "no claim"}


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
        assert cells[-1] == ("no violation found" if case.role == "claim"
                             else "rejected, as it must be")
