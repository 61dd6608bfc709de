"""DRAFT (not collected by pytest): PrivaTree's rows for dpviz/audit/suite.py and claims.csv.

``_privatree_targets()`` is written to paste into suite.py beside ``_fs_targets`` (it uses
suite.py's helpers: ``_canary_target``, ``planted``, ``_EM_PATH``, ``_exact_argmax``,
``split_problem``, ``Problem``, ``EPS``), and ``CLAIMS_ROWS`` holds the matching claims.csv
lines. Run it (``python tests/_privatree_audit_draft.py [n_fits]``) to audit every row and
its planted bug with dpviz.audit.engine.audit, 1,000 fits per neighbour by default.
"""

# ruff: noqa: E501  (claims.csv lines are kept whole)
from __future__ import annotations

import math
import sys
import time
from typing import Any

import numpy as np

from dpviz.audit.engine import Event
from dpviz.audit.suite import (
    _EM_PATH,
    EPS,
    Build,
    Builds,
    Problem,
    Target,
    _canary_target,
    _exact_argmax,
    planted,
    run_case,
    split_problem,
)
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.trees import privatree as _pt
from dpviz.trees.privatree import PrivaTreeClassifier

CLAIMS_ROWS = """\
privatree-histogram,PrivaTree (the released tree),PrivaTreeClassifier,"splitter='histogram', max_depth=1",claim,1.0,6 rows all n vs + canary 111 (y); the root splits,"root attribute and test, the canary's leaf label",stops at a pure node read from the exact rows (the authors' code of the paper's version),,,yes,
privatree-exponential,PrivaTree (the released tree),PrivaTreeClassifier,"splitter='exponential', max_depth=1",claim,1.0,"60 rows, a0 and a1 tie vs + canary 010 (y), which favours a1; the root splits","root attribute and test, the canary's leaf label",split chosen by exact argmax,,,yes,
privatree-bounds,PrivaTree (the released tree),PrivaTreeClassifier,numeric bins from the public bounds,claim,1.0,"6 rows in [0.1, 0.9] vs + canary 0.97 (y)",the root's threshold (a double) and the canary's leaf label,bins from the rows' own range (the authors' experiments take feature_range from the training rows),,,yes,
"""


def _pure_problem() -> Problem:
    """Six rows of class n over three binary attributes; the canary 111 is of class y."""
    domain = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
    X = np.array([list(f"{v:03b}") for v in (0, 1, 2, 3, 5, 6)], dtype=object)
    return domain, X, ["n"] * 6, np.array([["1", "1", "1"]], dtype=object)


def _range_problem() -> Problem:
    """One numeric attribute on the public [0, 1]: D's rows in [0.1, 0.9], the canary 0.97."""
    X = np.array([[0.1], [0.2], [0.3], [0.7], [0.8], [0.9]])
    return (Domain([Numeric("x", 0.0, 1.0)], ["n", "y"]), X, ["n", "n", "n", "y", "y", "y"],
            np.array([[0.97]]))


def _release(m: PrivaTreeClassifier, canary: np.ndarray) -> np.ndarray:
    """The root's attribute (−1: a leaf), its test (threshold, or the left values as bits) and
    whether the canary's leaf says y."""
    split = m.tree_.root.split
    if split is None:
        attribute, test = -1, math.nan
    else:
        attribute = split.index
        test = split.threshold if split.threshold is not None else sum(2**v for v in split.left)
    return np.array([attribute, test, float(m.predict(canary)[0] == "y")])


_GROW = _pt._grow


def _grow_stopping_at_pure_nodes(table: Any, node: Any, scope: Any, edges: Any, levels: int,
                                 *args: Any) -> Any:
    """Planted bug: a node whose exact rows hold one class (or none) becomes a leaf."""
    _, labels = table._read()  # the bug: the exact labels decide the tree's shape
    if len(np.unique(labels)) <= 1:
        levels = node.depth
    return _GROW(table, node, scope, edges, levels, *args)


def _privatree_targets() -> Builds:
    def tree(problem: Any = split_problem, fit: Any = None, label: str = "y",
             **kw: Any) -> Target:
        return _canary_target(PrivaTreeClassifier, _release, problem=problem, fit=fit,
                              label=label, epsilon=EPS, max_depth=1, **kw)

    # the attacker's event: the threshold is an inner edge of 10 bins of D's own range
    own = np.linspace(0.1, 0.9, 11)[1:-1]
    on_own_grid = Event("[1] on the grid of D's range [0.1, 0.9]",
                        lambda o: np.isclose(np.asarray(o)[:, 1:2], own).any(axis=1))

    def from_rows(model: PrivaTreeClassifier, X: Any, y: Any) -> PrivaTreeClassifier:
        """Planted bug: the bins from the rows' own range (Domain.from_data)."""
        return model.set_params(domain=None).fit(X, y)

    bounds: tuple[Build, Build] = (
        lambda: tree(_range_problem, events=[on_own_grid], n_bins=10),
        lambda: tree(_range_problem, fit=from_rows, events=[on_own_grid], n_bins=10))
    return {
        "privatree-histogram": planted(lambda: tree(_pure_problem), "dpviz.trees.privatree._grow",
                                       _grow_stopping_at_pure_nodes),
        "privatree-exponential": planted(lambda: tree(splitter="exponential"), _EM_PATH,
                                         _exact_argmax),
        "privatree-bounds": bounds,
    }


def _extra_targets() -> Builds:
    """Not rows: the paper version's accounting (every attribute's histogram at the level's
    whole ε; the Ledger refuses it, so the bug scales the noise instead), measured."""
    from dpviz import mechanisms

    dl = mechanisms.discrete_laplace

    def times_three(values: Any, *, epsilon: float, **kw: Any) -> Any:
        return dl(values, epsilon=3 * epsilon, **kw)

    def tree(problem: Any) -> Target:
        return _canary_target(PrivaTreeClassifier, _release, problem=problem, label="y",
                              epsilon=EPS, max_depth=1)

    return {
        f"F-fold histograms ({name})": planted(lambda p=p: tree(p),
                                               "dpviz.mechanisms.discrete_laplace", times_three)
        for name, p in (("pure", _pure_problem), ("tie", split_problem))}


def main(n_fits: int = 1000) -> None:
    from dpviz.audit.suite import Case

    rows = {line.split(",", 1)[0]: line for line in CLAIMS_ROWS.splitlines()}
    for name, (build, bug) in {**_privatree_targets(), **_extra_targets()}.items():
        case = Case("PrivaTree", "PrivaTreeClassifier", name, "claim", 1.0, "add/remove one row",
                    rows.get(name, name), build, None)
        for which, b in (("claim", build), ("planted bug", bug)):
            start = time.time()
            r = run_case(Case(**{**vars(case), "build": b}), n_fits)
            print(f"{name:24s} {which:12s} ε ≥ {r.epsilon_lower:.3f} (reject: {r.reject}; "
                  f"event {r.event!r} {r.direction}) {time.time() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
