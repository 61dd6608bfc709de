"""The adversarial audit suite: every release path of every estimator, audited as an attacker would.

Each :class:`Case` is one row of the privacy-claims table in ``docs/privacy.md``: an
estimator (or a mechanism it ships) with one privacy-relevant option, the ε it claims,
the worst-case neighbours an attacker would pick (add/remove one row: D and D + a
canary row), what exactly is released, and the events the attacker tests — automatic
value/threshold events on every released number, plus the events that broke earlier
versions of dpviz:

* **floating-point lattices** of every released float (the Laplace sampler's lattice
  around the true count; the lattice of a uniform draw between data-dependent ends);
* **differences between two releases** (``update``: "after − before");
* **exact equality with the ε = ∞ output** (tiny and huge ε).

Every target calls the code that ships (the estimators' ``fit``, ``update`` and their
public lookups ``released_counts`` / ``released_labels``, or the leaf releases and
mechanisms the estimators call), never a copy. Three roles:

``claim``
    A correct path: the audit must *not* reject its claimed ε.
``control``
    A power control: the same path secretly spending 2ε (or composing wrongly) while
    claiming ε — the audit must reject it, so a pass of the corresponding claim means
    something. Every family has one.
``no claim``
    A path that is not proven private (float Laplace, the withdrawn FI smooth-sensitivity
    label, the non-private pruned tree): kept for teaching, and the audit shows why.

:func:`run_suite` runs the cases; :func:`claims_table` turns the results into the table
that ``make audit`` writes into ``docs/privacy.md`` (the tests run the same cases with
fewer samples, ``tests/test_audit_suite.py``). An audit refutes, it never proves: a row
that says "no violation found" is a lower bound below the claim at that many samples.
"""

from __future__ import annotations

import math
import platform
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dpviz import audit_targets as targets
from dpviz import mechanisms
from dpviz.audit import (
    AuditResult,
    Event,
    audit,
    laplace_lattice_events,
    uniform_lattice_events,
)
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import NotProvenPrivateWarning, PrivacyLeakWarning
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import (
    DEFAULT_SPLIT_CELLS,
    DiffPC45Classifier,
    DiffPID3Classifier,
    SuLQID3Classifier,
    split_grid,
)
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

__all__ = [
    "NEIGHBOURS",
    "TABLE_END",
    "TABLE_START",
    "Case",
    "Target",
    "cases",
    "claims_markdown",
    "claims_table",
    "run_case",
    "run_suite",
    "write_claims",
]

Mechanism = Callable[[Any, int, np.random.Generator], np.ndarray]

#: The neighbour relation of every claim in dpviz.
NEIGHBOURS = "add/remove one row"

EPS = 1.0


@dataclass(frozen=True)
class Target:
    """What to audit: a vectorized mechanism, the two neighbours and the attacker's events."""

    mechanism: Mechanism
    D: Any
    D_prime: Any
    events: Sequence[Event] = ()
    exact_epsilon: float | None = None


@dataclass(frozen=True)
class Case:
    """One release path × option, its claim, and how to audit it.

    Attributes
    ----------
    family : str
        The audit family (each has a power control).
    estimator : str
        The estimator or shipped component.
    option : str
        The privacy-relevant option audited.
    role : {"claim", "control", "no claim"}
        See the module docstring.
    epsilon : float
        The ε the audit checks: the claimed ε (for "no claim" rows, the nominal one).
    neighbours : str
        D and D′ as the attacker chose them.
    released : str
        What the audited output is (what an observer of the release sees).
    build : callable
        Returns the :class:`Target`.
    whole : bool
        A whole-estimator audit (one fit per sample: fewer samples in the tests).
    min_samples : int
        Run with at least this many samples per neighbour (a control whose gap is small).
    """

    family: str
    estimator: str
    option: str
    role: str
    epsilon: float
    neighbours: str
    released: str
    build: Callable[[], Target] = field(repr=False)
    whole: bool = True
    min_samples: int = 0

    @property
    def expect_reject(self) -> bool:
        """A control or an unproven path must be rejected; a claim must not."""
        return self.role != "claim"

    @property
    def name(self) -> str:
        """A short id: ``estimator [option] (role)``."""
        return f"{self.estimator} [{self.option}] ({self.role})"


# ------------------------------------------------------------------------------- data
def categorical_problem() -> tuple[Domain, np.ndarray, list[str], np.ndarray]:
    """Three binary attributes; D's rows all sit at 000, the canary at 111 (label "n").

    In a random tree of height 3 every attribute is used once on each path, so the
    canary's leaf is empty under D in every tree: the worst case for a leaf release
    (empty leaf vs one row: pure noise vs one count + noise, label uniform vs biased).
    """
    domain = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
    X = np.full((6, 3), "0", dtype=object)
    y = ["n", "y"] * 3
    canary = np.full((1, 3), "1", dtype=object)
    return domain, X, y, canary


def _numeric_problem() -> tuple[Domain, np.ndarray, list[str], np.ndarray]:
    """Two numeric attributes on [0, 1]; D's rows near 0, the canary at (0.97, 0.97)."""
    domain = Domain([Numeric("x0", 0.0, 1.0), Numeric("x1", 0.0, 1.0)], ["n", "y"])
    X = np.array([[0.05, 0.1], [0.1, 0.05], [0.15, 0.2], [0.2, 0.15]])
    y = ["n", "y", "n", "y"]
    canary = np.array([[0.97, 0.97]])
    return domain, X, y, canary


def with_row(X: np.ndarray, y: list[str], row: np.ndarray, label: str) -> tuple[Any, Any]:
    """D + one row: the add/remove neighbour."""
    return np.vstack([X, row]), [*y, label]


def _shift_events(coordinates: Sequence[int], values: Sequence[float]) -> list[Event]:
    """The attacker's joint events for releases that the canary shifts by +1 on several coordinates.

    With D's true values ``values`` at ``coordinates`` (D′ adds one to each), "every
    coordinate ≥ its value + 1" and "every coordinate ≤ its value" are the likelihood-ratio
    events of independent noise: their privacy loss is the *sum* of the coordinates'
    losses — the event that shows sequential composition (or its violation).
    """
    idx, v = list(coordinates), np.asarray(values, dtype=float)
    shown = ", ".join(map(str, idx))

    def up(x: np.ndarray) -> np.ndarray:
        return (np.asarray(x, float)[:, idx] >= v + 1).all(axis=1)

    def down(x: np.ndarray) -> np.ndarray:
        return (np.asarray(x, float)[:, idx] <= v).all(axis=1)

    return [Event(f"[{shown}] all ≥ D's value + 1", up), Event(f"[{shown}] all ≤ D's value", down)]


def fit_release(
    make: Callable[[int], Any],
    output: Callable[[Any], np.ndarray],
    fit: Callable[[Any, Any, Any], Any] | None = None,
) -> Mechanism:
    """A whole-estimator mechanism: per sample, fit ``make(seed)`` on the data, then output.

    ``fit(model, X, y)`` defaults to ``model.fit(X, y)``; the seeds are fresh 63-bit draws,
    one per sample, so every sample is an independent release.
    """
    fit = fit or (lambda model, X, y: model.fit(X, y))

    def mechanism(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        X, y = data
        seeds = rng.integers(0, 2**63, size=n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvenPrivateWarning)
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            return np.array([np.ravel(output(fit(make(int(s)), X, y))) for s in seeds])

    return mechanism


def _numeric_target(cls: type, output: Callable[[Any, np.ndarray], np.ndarray]) -> Target:
    """One tree of height 2 over the numeric problem; ``output(model, canary)`` is released."""
    domain, X, y, canary = _numeric_problem()

    def make(seed: int) -> Any:
        return cls(epsilon=EPS, n_trees=1, max_depth=2, domain=domain, random_state=seed)

    neighbours = (X, y), with_row(X, y, canary, "n")
    return Target(fit_release(make, lambda m: output(m, canary)), *neighbours)


def _with_total(counts: np.ndarray) -> np.ndarray:
    """Per-tree class-0 counts of the canary's leaf, plus their sum (the attacker's statistic)."""
    first = counts[:, 0, 0]
    return np.append(counts[:, 0, :].ravel(), first.sum())


# ------------------------------------------------------------------------------- cases
def _rdt_cases() -> list[Case]:
    domain, X, y, canary = categorical_problem()
    D, D_prime = (X, y), with_row(X, y, canary, "n")
    hood = "6 rows at 000 vs + canary 111 (n); canary's leaf empty vs one row"

    def rdt(epsilon: float, n_trees: int = 1, **kw: Any) -> Target:
        def make(seed: int) -> PrivateRDTClassifier:
            return PrivateRDTClassifier(epsilon=epsilon, n_trees=n_trees, max_depth=3,
                                        domain=domain, random_state=seed, **kw)

        out = (lambda m: _with_total(m.released_counts(canary))) if n_trees > 1 else (
            lambda m: m.released_counts(canary)[0, 0])
        events: list[Event] = []
        if kw.get("noise") == "laplace":  # the lattice of coordinate 0 (class "n" count)
            events = [Event(f"[0] {e.name}", lambda x, e=e: e(np.asarray(x)[:, 0]))
                      for e in laplace_lattice_events(n_trees / epsilon, 0.0)]
        if n_trees > 1:  # the canary's leaf in every tree gains one class-"n" row
            events = _shift_events(range(0, 2 * n_trees, 2), [0] * n_trees)
        return Target(fit_release(make, out), D, D_prime, events)

    def rdt_numeric() -> Target:
        return _numeric_target(PrivateRDTClassifier, lambda m, c: m.released_counts(c)[0, 0])

    released = "noisy class counts of the canary's leaf"
    name = "PrivateRDTClassifier"
    family = "Private-RDT leaf counts"
    return [
        Case(family, name, "noise='discrete_laplace', 1 tree", "claim", EPS, hood, released,
             lambda: rdt(EPS)),
        Case(family, name, "noise='discrete_laplace', spends 2ε", "control", EPS, hood,
             released, lambda: rdt(2 * EPS)),
        Case(family, name, "3 trees (ε/3 each)", "claim", EPS, hood,
             released + " in every tree, and their sum", lambda: rdt(EPS, 3)),
        Case(family, name, "3 trees at the full ε each", "control", EPS, hood,
             released + " in every tree, and their sum", lambda: rdt(3 * EPS, 3)),
        Case(family, name, "numeric attributes", "claim", EPS,
             "4 rows near 0 vs + canary (0.97, 0.97)", released, rdt_numeric),
        Case(family, name, "clip_negative=True", "claim", EPS, hood,
             "predict_proba of the canary (post-processing)",
             lambda: Target(fit_release(lambda s: PrivateRDTClassifier(
                 epsilon=EPS, n_trees=1, max_depth=3, clip_negative=True, domain=domain,
                 random_state=s), lambda m: np.round(m.predict_proba(canary)[0], 6)),
                 D, D_prime)),
        Case(family, name, "huge ε = 30: exact equality with the ε = ∞ output", "claim", 30.0,
             hood, released, lambda: rdt(30.0)),
        Case(family, name, "tiny ε at the sampler's minimum (2^-20)", "claim",
             mechanisms.MIN_NOISE_RATE, hood, released,
             lambda: rdt(mechanisms.MIN_NOISE_RATE)),
        Case(family, name, "noise='laplace' (float)", "no claim", EPS, hood,
             released + " (doubles): lattice events", lambda: rdt(EPS, noise="laplace")),
    ]


def _update_cases() -> list[Case]:
    domain, X, y, canary = categorical_problem()
    batch = np.array([["0", "0", "1"]], dtype=object), ["y"]

    def update(method: str, canary_in: str) -> Target:
        def run(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
            (X1, y1), (X2, y2) = data if canary_in == "D1" else ((X, y), data)
            seeds = rng.integers(0, 2**63, size=n)
            out = []
            for s in seeds:
                model = PrivateRDTClassifier(epsilon=EPS, n_trees=1, max_depth=3,
                                             domain=domain, random_state=int(s)).fit(X1, y1)
                before = model.released_counts(canary)[0, 0]
                kw = {} if method == "jpw" else {"X_previous": X1, "y_previous": y1}
                after = model.update(X2, y2, method=method, **kw).released_counts(canary)[0, 0]
                out.append(np.concatenate([before, after, after - before,
                                           [before[0] + after[0]]]))
            return np.array(out)

        if canary_in == "D1":  # both releases read the canary: before[0] and after[0] shift
            return Target(run, ((X, y), batch), (with_row(X, y, canary, "n"), batch),
                          _shift_events([0, 2], [0, 0]))
        return Target(run, batch, with_row(*batch, canary, "n"), _shift_events([4], [0]))

    family = "Private-RDT update (two releases)"
    name = "PrivateRDTClassifier.update"
    released = ("both releases' counts of the canary's leaf, their difference "
                "'after − before' and their sum")
    return [
        Case(family, name, "method='jpw', canary in D2", "claim", EPS,
             "D2 = one row vs D2 + canary", released, lambda: update("jpw", "D2")),
        Case(family, name, "method='jpw', canary in D1", "claim", EPS,
             "D1 = 6 rows vs D1 + canary", released, lambda: update("jpw", "D1")),
        Case(family, name, "method='recount' (ledger 2ε), canary in D1", "claim", 2 * EPS,
             "D1 = 6 rows vs D1 + canary", released, lambda: update("recount", "D1")),
        Case(family, name, "method='recount' judged as if it cost ε", "control", EPS,
             "D1 = 6 rows vs D1 + canary", released, lambda: update("recount", "D1")),
        Case(family, name, "method='rebuild' (ledger 2ε), canary in D2", "claim", 2 * EPS,
             "D2 = one row vs D2 + canary", released, lambda: update("rebuild", "D2")),
        Case(family, name, "method='rebuild' (ledger 2ε), canary in D1", "claim", 2 * EPS,
             "D1 = 6 rows vs D1 + canary", released, lambda: update("rebuild", "D1")),
    ]


def _forest_cases() -> list[Case]:
    domain, X, y, canary = categorical_problem()
    D, D_prime = (X, y), with_row(X, y, canary, "n")
    hood = "6 rows at 000 vs + canary 111 (n); canary's leaf empty vs one row"

    def forest(epsilon: float, n_trees: int = 1, data: Any = None, **kw: Any) -> Target:
        def make(seed: int) -> DPRandomForestClassifier:
            return DPRandomForestClassifier(epsilon=epsilon, n_trees=n_trees, max_depth=3,
                                            domain=domain, random_state=seed, **kw)

        def out(m: DPRandomForestClassifier) -> np.ndarray:
            labels = m.released_labels(canary)[:, 0]
            return labels if n_trees == 1 else np.append(labels, labels.sum())

        a, b = data if data is not None else (D, D_prime)
        return Target(fit_release(make, out), a, b)

    # the smooth-sensitivity label's worst case: a pure leaf that grows, (1, 0) vs (2, 0)
    pure = (with_row(X, y, canary, "n"), with_row(*with_row(X, y, canary, "n"), canary, "n"))
    def forest_numeric() -> Target:
        return _numeric_target(DPRandomForestClassifier,
                               lambda m, c: m.released_labels(c)[:, 0])

    family = "FI forest leaf labels"
    name = "DPRandomForestClassifier"
    released = "the canary's leaf label"
    return [
        Case(family, name, "leaf_mechanism='rosnam', 1 tree", "claim", EPS, hood, released,
             lambda: forest(EPS)),
        Case(family, name, "leaf_mechanism='rosnam', spends 2ε", "control", EPS, hood,
             released, lambda: forest(2 * EPS)),
        Case(family, name, "disjoint=True, 5 trees", "claim", EPS, hood,
             released + " in every tree, and the votes", lambda: forest(EPS, 5)),
        Case(family, name, "disjoint=False, 3 trees (ε/3 each)", "claim", EPS, hood,
             released + " in every tree, and the votes",
             lambda: forest(EPS, 3, disjoint=False)),
        Case(family, name, "disjoint=False, 3 trees at the full ε each", "control", EPS, hood,
             released + " in every tree, and the votes",
             lambda: forest(3 * EPS, 3, disjoint=False)),
        Case(family, name, "leaf_mechanism='exponential'", "claim", EPS, hood, released,
             lambda: forest(EPS, leaf_mechanism="exponential")),
        Case(family, name, "numeric attributes", "claim", EPS,
             "4 rows near 0 vs + canary (0.97, 0.97)", released, forest_numeric),
        Case(family, name, "leaf_mechanism='smooth_sensitivity' (FI 2017)", "no claim", EPS,
             "canary's leaf (1, 0) vs (2, 0)", released,
             lambda: forest(EPS, data=pure, leaf_mechanism="smooth_sensitivity")),
    ]


def _rdt_sharp_cases() -> list[Case]:
    domain, X, y, canary = categorical_problem()
    D, D_prime = (X, y), with_row(X, y, canary, "n")
    public = np.array([["0", "0", "0"], ["1", "1", "1"], ["0", "1", "0"], ["1", "0", "1"]],
                      dtype=object)
    hood = "6 rows at 000 vs + canary 111 (n); 4 public rows"

    def sharp(epsilon: float, out: Callable[[Any], np.ndarray] | None = None,
              data: Any = None, **kw: Any) -> Target:
        def make(seed: int) -> RDTSharpClassifier:
            return RDTSharpClassifier(epsilon=epsilon, n_primary=1, n_secondary=2,
                                      domain=domain, random_state=seed, **kw)

        def fit(model: RDTSharpClassifier, X_: Any, y_: Any) -> RDTSharpClassifier:
            return model.fit(X_, y_, public)

        events: list[Event] = []
        if kw.get("noise") == "laplace":
            events = [Event(f"[0] {e.name}", lambda x, e=e: e(np.asarray(x)[:, 0]))
                      for e in laplace_lattice_events(1 / epsilon, 0.0)]
        a, b = data if data is not None else (D, D_prime)
        output = out or (lambda m: m.released_counts(canary)[0, 0])
        return Target(fit_release(make, output, fit), a, b, events)

    one, two = (X[:1], y[:1]), (X[:2], y[:2])
    family = "RDT# centre counts"
    name = "RDTSharpClassifier"
    released = "noisy counts of the canary's cell (primary tree)"
    return [
        Case(family, name, "noise='discrete_laplace'", "claim", EPS, hood, released,
             lambda: sharp(EPS, max_depth=3)),
        Case(family, name, "noise='discrete_laplace', spends 2ε", "control", EPS, hood,
             released, lambda: sharp(2 * EPS, max_depth=3)),
        Case(family, name, "pseudo-labels and predictions (post-processing)", "claim", EPS,
             hood, "pseudo-labels of the public rows and the canary's prediction",
             lambda: sharp(EPS, out=lambda m: np.append(m.pseudo_labels_,
                                                        m.predict(canary) == "n"),
                           max_depth=3)),
        Case(family, name, "default height (no n_labeled, no max_depth)", "claim", EPS,
             "1 row vs 2 rows", "the released trees' height",
             lambda: sharp(EPS, out=lambda m: np.array([m.depth_]), data=(one, two))),
        Case(family, name, "noise='laplace' (float)", "no claim", EPS, hood,
             released + " (doubles): lattice events",
             lambda: sharp(EPS, max_depth=3, noise="laplace")),
    ]


#: JPW Fig. 3-4 in miniature: two binary attributes, six rows at a = 0; D′ adds a row at a = 1.
_PRUNED_DOMAIN = Domain([Categorical("a", ("0", "1")), Categorical("b", ("0", "1"))], ["-", "+"])
_PRUNED_DATA = (
    (np.array([["0", "0"], ["0", "1"]] * 3, dtype=object), ["-", "+"] * 3),
    (np.array([["0", "0"], ["0", "1"]] * 3 + [["1", "1"]], dtype=object), ["-", "+"] * 3 + ["+"]),
)


def _fs_cases() -> list[Case]:
    domain, X, y, canary = categorical_problem()
    D, D_prime = (X, y), with_row(X, y, canary, "n")
    hood = "6 rows vs + canary 111 (n)"

    def leaf(cls: type, budget: float) -> Target:
        """Depth 0: the root is a leaf; the release is its noisy count and class counts."""

        def make(seed: int) -> Any:
            return cls(epsilon=budget, max_depth=0, domain=domain, random_state=seed)

        def out(m: Any) -> np.ndarray:
            root = m.tree_.root
            return np.array([root.noisy_count, *root.class_counts,
                             root.noisy_count + root.class_counts[0]])

        # N_T (6 under D) and the class-"n" count (3 under D) both gain one
        return Target(fit_release(make, out), D, D_prime, _shift_events([0, 1], [6, 3]))

    # 60 rows at 000 (so that the root passes the stopping rule N_T/(t|C|) >= √2/ε and
    # splits), the canary at 111: the child holding the canary is empty under D
    big = (np.full((60, 3), "0", dtype=object), ["n", "y"] * 30)
    big_prime = with_row(*big, canary, "n")

    def split(cls: type, budget: float, **kw: Any) -> Target:
        def make(seed: int) -> Any:
            return cls(epsilon=budget, max_depth=1, domain=domain, random_state=seed, **kw)

        def out(m: Any) -> np.ndarray:
            root = m.tree_.root
            attribute = -1 if root.attribute is None else domain.index(root.attribute)
            labels = [c.label for c in root.children] or [root.label, root.label]
            return np.array([attribute, root.noisy_count, *labels])

        return Target(fit_release(make, out), big, big_prime)

    numeric_domain, nX, ny, ncanary = _numeric_problem()

    def numeric_threshold() -> Target:
        def make(seed: int) -> DiffPC45Classifier:
            return DiffPC45Classifier(epsilon=EPS, max_depth=1, domain=numeric_domain,
                                      random_state=seed)

        def out(m: DiffPC45Classifier) -> np.ndarray:
            root = m.tree_.root
            points = [root.split_points.get(a.name, math.nan) for a in numeric_domain]
            return np.array(points)

        return Target(fit_release(make, out), (nX, ny), with_row(nX, ny, ncanary, "n"))

    family = "FS trees (the released tree)"
    released = "root's noisy count and class counts, and count + class-n count"
    hood_big = "60 rows at 000 vs + canary 111 (n); the root splits"
    return [
        Case(family, "DiffPID3Classifier", "max_depth=0 (one leaf)", "claim", EPS, hood,
             released, lambda: leaf(DiffPID3Classifier, EPS)),
        Case(family, "DiffPID3Classifier", "max_depth=0, spends 2ε", "control", EPS, hood,
             released, lambda: leaf(DiffPID3Classifier, 2 * EPS)),
        Case(family, "SuLQID3Classifier", "max_depth=0 (one leaf)", "claim", EPS, hood,
             released, lambda: leaf(SuLQID3Classifier, EPS)),
        Case(family, "DiffPID3Classifier", "max_depth=1, criterion='max'", "claim", EPS,
             hood_big, "root attribute, root count, leaf labels",
             lambda: split(DiffPID3Classifier, EPS, criterion="max")),
        Case(family, "DiffPID3Classifier", "max_depth=1, criterion='gini'", "claim", EPS,
             hood_big, "root attribute, root count, leaf labels",
             lambda: split(DiffPID3Classifier, EPS, criterion="gini")),
        Case(family, "DiffPID3Classifier", "max_depth=1, criterion='infogain'", "claim", EPS,
             hood_big, "root attribute, root count, leaf labels",
             lambda: split(DiffPID3Classifier, EPS, criterion="infogain", size_bound=50)),
        Case(family, "SuLQID3Classifier", "max_depth=1", "claim", EPS, hood_big,
             "root attribute, root count, leaf labels",
             lambda: split(SuLQID3Classifier, EPS)),
        Case(family, "DiffPC45Classifier", "numeric split points (public grid), prune=True",
             "claim", EPS, "4 rows near 0 vs + canary (0.97, 0.97)",
             "the root's released split points (doubles): value events", numeric_threshold),
        Case(family, "DiffPC45Classifier", "categorical, prune=True (noisy-count pruning)",
             "claim", EPS, hood_big, "root attribute, root count, leaf labels after pruning",
             lambda: split(DiffPC45Classifier, EPS, prune=True)),
        Case(family, "RandomDecisionTreeClassifier", "prune=True (Fan et al., not private)",
             "no claim", EPS, "six rows at a = 0 vs + one row at a = 1",
             "the number of non-empty leaves of the pruned tree",
             lambda: Target(targets.pruned_tree_leaves(_PRUNED_DOMAIN), *_PRUNED_DATA)),
    ]


def _mechanism_cases() -> list[Case]:
    """The shipped components on their own, with many samples (vectorized)."""
    c0, c1 = np.array([0, 0]), np.array([1, 0])
    family_counts = "count noise (shipped samplers)"
    family_labels = "leaf labels (shipped samplers)"
    family_select = "selection (shipped samplers)"
    u = np.array([0.0] + [1.0] * 20)
    u_prime = np.array([1.0] + [0.0] * 20)

    def t(mech: Mechanism, a: Any, b: Any, events: Sequence[Event] = ()) -> Callable[[], Target]:
        return lambda: Target(mech, a, b, events)

    lattice = [Event(f"[0] {e.name}", lambda x, e=e: e(np.asarray(x)[:, 0]))
               for e in laplace_lattice_events(1.0, 0.0)]
    return [
        Case(family_counts, "NoisyLeafCounts", "discrete Laplace, empty vs one row", "claim",
             EPS, "leaf (0, 0) vs (1, 0)", "the leaf's noisy counts",
             t(targets.leaf_vector(EPS), c0, c1), whole=False),
        Case(family_counts, "NoisyLeafCounts", "discrete Laplace, spends 2ε", "control", EPS,
             "leaf (0, 0) vs (1, 0)", "the leaf's noisy counts",
             t(targets.leaf_vector(2 * EPS), c0, c1), whole=False),
        Case(family_counts, "NoisyLeafCounts", "float Laplace (noise='laplace')", "no claim",
             EPS, "leaf (0, 0) vs (1, 0)", "the leaf's noisy counts (doubles)",
             t(targets.leaf_vector(EPS, "laplace"), c0, c1, lattice), whole=False),
        Case(family_counts, "mechanisms.discrete_laplace", "a count", "claim", EPS,
             "count 10 vs 11", "the noisy count",
             t(targets.discrete_laplace_count(EPS), 10, 11), whole=False),
        Case(family_labels, "NoisyLeafLabels", "rosnam, empty vs one row", "claim", EPS,
             "leaf (0, 0) vs (1, 0)", "the leaf's label",
             t(targets.leaf_label(EPS), c0, c1), whole=False),
        Case(family_labels, "NoisyLeafLabels", "rosnam, spends 2ε", "control", EPS,
             "leaf (0, 0) vs (1, 0)", "the leaf's label",
             t(targets.leaf_label(2 * EPS), c0, c1), whole=False),
        Case(family_labels, "NoisyLeafLabels", "smooth_sensitivity (FI 2017)", "no claim", EPS,
             "leaf (1, 0) vs (2, 0)", "the leaf's label",
             t(targets.leaf_label(EPS, "smooth_sensitivity"), np.array([1, 0]),
               np.array([2, 0])), whole=False),
        Case(family_select, "mechanisms.exponential_mechanism", "21 candidates", "claim", EPS,
             "utilities (0, 1, …, 1) vs (1, 0, …, 0)", "the chosen index",
             t(targets.exponential_choice(EPS), u, u_prime), whole=False),
        Case(family_select, "mechanisms.exponential_mechanism", "spends 2ε", "control", EPS,
             "utilities (0, 1, …, 1) vs (1, 0, …, 0)", "the chosen index",
             t(targets.exponential_choice(2 * EPS), u, u_prime), whole=False),
        Case(family_select, "mechanisms.report_noisy_max", "counts", "claim", EPS,
             "counts (0, 0) vs (1, 0)", "the chosen index",
             t(targets.report_noisy_max_choice(EPS), c0, c1), whole=False),
    ]


def _split_point_cases() -> list[Case]:
    """FS §4.3's numeric split point: the shipped grid path, and the paper's continuous draw."""
    low, high = 0.0, 1e6
    one_class = Domain([Numeric("x", low, high)], (0,))
    D = (np.array([1.0]), np.zeros(1, dtype=np.int64))
    D_prime = (np.array([1.0, 2.0]), np.zeros(2, dtype=np.int64))
    ranges = [(0.0, 1.0), (1.0, high)]  # D's score-constant ranges (the lattices of D)
    lattice = uniform_lattice_events(ranges)
    # the power control's neighbours: a second class at b between grid points 200 and 201;
    # the added row lifts the quality of every candidate above b (exact loss at 4ε: 1.79)
    two_class = Domain([Numeric("x", low, high)], (0, 1))
    grid = split_grid(low, high, DEFAULT_SPLIT_CELLS)
    b = (grid[200] + grid[201]) / 2
    tight = ((np.array([1.0, b]), np.array([0, 1])),
             (np.array([1.0, b, 0.5]), np.array([0, 1, 1])))
    above = [Event(f"x > {t:.8g}", lambda y, t=t: np.asarray(y) > t) for t in grid[195:206]]
    family = "FS split point (DiffPC4.5, §4.3)"
    hood = "values {1} vs {1, 2} on the public range [0, 1e6]"
    released = "the released threshold (a double): lattice and value events"
    return [
        Case(family, "private_split_point", "public grid of 256 cells (shipped)", "claim", EPS,
             hood, released,
             lambda: Target(targets.split_point_grid(one_class, epsilon=EPS), D, D_prime,
                            lattice)),
        Case(family, "private_split_point", "spends 4ε (the mechanism loses ε/2 per ε on "
             "monotone qualities, so 4ε is the first multiple that must fail)", "control", EPS,
             "one row of class 1 added to {(1, 0), (b, 1)}", "the released threshold",
             lambda: Target(targets.split_point_grid(two_class, epsilon=4 * EPS), *tight,
                            above), min_samples=4_000),
        Case(family, "choose_split_point_continuous", "FS §4.3 as printed: uniform in a "
             "data-dependent range", "no claim", EPS, hood, released,
             lambda: Target(targets.split_point_continuous(low, high, epsilon=EPS), D,
                            D_prime, lattice)),
    ]


def cases() -> list[Case]:
    """Every case of the suite, in the order of the claims table."""
    return [*_mechanism_cases(), *_rdt_cases(), *_update_cases(), *_forest_cases(),
            *_rdt_sharp_cases(), *_fs_cases(), *_split_point_cases()]


# ------------------------------------------------------------------------------- running
def run_case(case: Case, n_samples: int, seed: int = 0) -> AuditResult:
    """Audit one case with ``n_samples`` per neighbour (automatic + the case's own events)."""
    target = case.build()
    n_samples = max(n_samples, case.min_samples)
    return audit(
        target.mechanism,
        target.D,
        target.D_prime,
        epsilon=case.epsilon,
        n_samples=n_samples,
        seed=seed,
        extra_events=target.events,
        neighbours=case.neighbours,
        exact_epsilon=target.exact_epsilon,
    )


def _run_index(job: tuple[int, int, int]) -> tuple[int, AuditResult]:
    """Worker: run case number ``i`` of :func:`cases` (rebuilt here: cases hold closures)."""
    i, n_samples, seed = job
    return i, run_case(cases()[i], n_samples, seed)


def run_suite(
    n_whole: int = 2_000,
    n_mechanism: int = 50_000,
    *,
    seed: int = 0,
    select: Callable[[Case], bool] | None = None,
    processes: int = 1,
) -> list[tuple[Case, AuditResult]]:
    """Run every case (or those ``select`` keeps).

    Whole estimators get ``n_whole`` fits per neighbour, shipped components
    ``n_mechanism`` samples. ``processes > 1`` runs cases in parallel worker processes
    (fork), each case with its own fixed seed, so the results do not depend on it.
    """
    all_cases = cases()
    jobs = [
        (i, n_whole if case.whole else n_mechanism, seed)
        for i, case in enumerate(all_cases)
        if select is None or select(case)
    ]
    jobs.sort(key=lambda job: -job[1])  # longest first
    if processes > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(processes) as pool:
            done = dict(pool.imap_unordered(_run_index, jobs))
    else:
        done = dict(map(_run_index, jobs))
    return [(all_cases[i], done[i]) for i in sorted(done)]


def claims_table(results: Sequence[tuple[Case, AuditResult]]) -> pd.DataFrame:
    """The privacy-claims table: one row per case, with the audit's verdict."""
    rows = []
    for case, r in results:
        ok = r.reject == case.expect_reject
        if case.role == "claim":
            verdict = "no violation found" if not r.reject else "VIOLATION (bug)"
        else:
            verdict = "rejected, as it must be" if r.reject else "NOT rejected (no power)"
        rows.append({
            "family": case.family,
            "estimator": case.estimator,
            "option": case.option,
            "role": case.role,
            "claimed ε": "none" if case.role == "no claim" else f"{case.epsilon:.6g}",
            "neighbours": f"{NEIGHBOURS}: {case.neighbours}",
            "released": case.released,
            "ε lower bound (95%)": round(r.epsilon_lower, 3),
            "samples": r.n_samples,
            "event": r.event,
            "verdict": verdict,
            "as expected": ok,
        })
    return pd.DataFrame(rows)


#: The markers between which ``make audit`` writes the table into ``docs/privacy.md``.
TABLE_START = "<!-- claims-table:start (generated by `make audit`: bench/privacy_claims.py) -->"
TABLE_END = "<!-- claims-table:end -->"

_COLUMNS = ("estimator", "option", "role", "claimed ε", "neighbours", "released",
            "ε lower bound (95%)", "samples", "verdict")


def claims_markdown(table: pd.DataFrame, header: str) -> str:
    """The claims table as markdown, one section per family, between :data:`TABLE_START`/END."""
    lines = [TABLE_START, "", header, ""]
    for family, group in table.groupby("family", sort=False):
        lines += [f"#### {family}", "", "| " + " | ".join(_COLUMNS) + " |",
                  "|" + "---|" * len(_COLUMNS)]
        for row in group.itertuples(index=False):
            values = dict(zip(table.columns, row, strict=True))
            cells = [str(values[c]).replace("|", "\\|") for c in _COLUMNS]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(TABLE_END)
    return "\n".join(lines)


def write_claims(path: str, table: pd.DataFrame, header: str) -> None:
    """Replace the generated block of ``path`` (between the markers) by the table."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.index(TABLE_START), text.index(TABLE_END) + len(TABLE_END)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + claims_markdown(table, header) + text[end:])


def machine_line() -> str:
    """Where and when the table was produced (for the generated docs)."""
    return (f"{time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, numpy "
            f"{np.__version__}, {platform.machine()}")
