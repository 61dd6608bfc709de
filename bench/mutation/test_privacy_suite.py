"""The privacy suite, one test per row of the claims table and one per planted bug.

The rows and bugs of tests/test_audit_suite.py's ``test_case``, asserted the same way at the
same seed (0), but each row at its own size, ``Case.samples`` (claims.csv ``samples``: for a
whole estimator, twice the smallest size at which its planted bug is caught at five seeds),
where ``make test`` runs whole estimators at no fewer than 1,000 fits per neighbour: a
survivor re-runs every row that reaches its function, 2-5 times cheaper at the rows' own sizes
(at which each planted bug is still caught: ``test_planted_bug``). No process pool: mutmut maps
each test to the functions it calls (its per-test coverage, recorded in this process), so that
a mutant runs only the rows that reach its function, and a forked pool would hide those calls
from it. A row and its bug are two tests: a bug's target may not call what its row calls (a
plant replaces a step). Ids: the rows' ids in dpviz/audit/claims.csv.
"""

from __future__ import annotations

import csv
from importlib.resources import files

import pytest

from dpviz.audit import suite as audit_suite

CASES = audit_suite.cases()
_IDS = [row["id"] for row in csv.DictReader(
    files("dpviz.audit").joinpath("claims.csv").read_text(encoding="utf-8").splitlines())]
assert len(_IDS) == len(CASES)  # cases() follows claims.csv row by row
BUGGED = [(i, c) for i, c in zip(_IDS, CASES, strict=True) if c.bug is not None]


def size(case: audit_suite.Case) -> int:
    """The row's own samples per neighbour (claims.csv), not ``make test``'s floor of 1,000."""
    return case.samples


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_row(case):
    result = audit_suite.run_case(case, size(case), 0)
    if case.role == "claim":
        assert result.epsilon == pytest.approx(case.epsilon)  # a ledger says what the row says
        assert not result.reject, result.summary()
    else:  # an unproven path: the audit must catch it
        assert result.reject, result.summary()


@pytest.mark.parametrize("case", [c for _, c in BUGGED], ids=[i for i, _ in BUGGED])
def test_planted_bug(case):
    bug = audit_suite.run_case(case, size(case), 0, bug=True)
    assert bug.reject, (case.bug.name, bug.summary())  # the row's power at the same size
