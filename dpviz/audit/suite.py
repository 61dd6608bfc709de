"""The adversarial audit suite: every release path of every estimator, audited as an attacker would.

Each :class:`Case` is a row of the claims table (docs/privacy.md §6–7), its text read from
``claims.csv`` and its target built here: a release path, its claimed ε, worst-case neighbours
(D and D + a canary) and the attacker's events. A ``"claim"`` must not be rejected and carries
a planted :class:`Bug` that must be; a ``"no claim"`` path must be rejected.

Besides the bugs of a given strength (the path at k·ε, an exact argmax), the realistic ones
change one step of the shipped code as a programmer might: FI's equal split as printed, rows
dealt by position, a split grid over the observed range, one noise draw for every visited
leaf, a copied generator, a ledger that forgets a release. Their targets see what those
faults move: the canary first (D′ is not D with a row appended), the leaves of D's rows beside
the canary's, a canary outside D's range, and the ε the fitted model's ledger claims.
"""

from __future__ import annotations

import copy
import csv
import math
import platform
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from importlib.resources import files
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.audit import targets
from dpviz.audit.engine import (
    AuditResult,
    Event,
    Mechanism,
    audit,
    laplace_lattice_events,
    per_seed,
)
from dpviz.domain import Categorical, Domain, Encoded, Numeric
from dpviz.errors import NotProvenPrivateWarning, PrivacyLeakWarning
from dpviz.privacy import PrivateTable
from dpviz.trees import forest as forest_module
from dpviz.trees import id3 as id3_module
from dpviz.trees import privatree as privatree_module
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import (
    DEFAULT_SPLIT_CELLS,
    DiffPC45Classifier,
    DiffPID3Classifier,
    SuLQID3Classifier,
    split_grid,
)
from dpviz.trees.privatree import PrivaTreeClassifier
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

__all__ = [
    "NEIGHBOURS", "SIZES", "TABLE_END", "TABLE_START", "Bug", "Case", "Target", "cases",
    "claims_markdown", "claims_table", "run_case", "run_suite", "smallest_size", "write_claims"
]

#: The neighbour relation of every claim in dpviz.
NEIGHBOURS = "add/remove one row"

EPS = 1.0


@dataclass(frozen=True)
class Target:
    """What to audit: a vectorized mechanism, the two neighbours and the attacker's events.

    ``claimed()``, when given, is the ε the release itself claims (its fitted model's
    ``ledger_``), audited instead of the row's: a ledger that forgets a release then fails.
    """

    mechanism: Mechanism
    D: Any
    D_prime: Any
    events: Sequence[Event] = ()
    exact_epsilon: float | None = None
    claimed: Callable[[], float] | None = None


@dataclass(frozen=True)
class Bug:
    """A claim's path with a fault it rules out."""

    name: str
    build: Callable[[], Target] = field(repr=False)


#: The sample sizes (per neighbour) a row's size is chosen from (:func:`smallest_size`).
SIZES: tuple[int, ...] = (100, 150, 200, 300, 400, 500, 700, 1_000, 1_500, 2_000, 3_000, 4_000,
                          6_000, 8_000, 12_000, 16_000)


@dataclass(frozen=True)
class Case:
    """One release path × option, its claim, and how to audit it (``build()``: the target).

    ``no_power`` says why a claim has no bug; ``whole``: one fit per sample (``make audit``
    gives these fewer samples than components); ``samples``: the samples per neighbour of the
    case and its bug at test size — twice :func:`smallest_size` (the smallest of
    :data:`SIZES` at which the planted bug is caught, or a no-claim path rejected, at each of
    five seeds) for whole estimators; 50,000 for components (milliseconds, above that rule).
    """

    family: str
    estimator: str
    option: str
    role: str
    epsilon: float
    neighbours: str
    released: str
    build: Callable[[], Target] = field(repr=False)
    bug: Bug | None = None
    no_power: str = ""
    whole: bool = True
    samples: int = 1_000

    @property
    def name(self) -> str:
        """A short id: ``estimator [option] (role)``."""
        return f"{self.estimator} [{self.option}] ({self.role})"


#: A target to audit, built when the case runs.
Build = Callable[[], Target]
#: Each row's target and its planted bug's (None: the row says why it has none), by row id.
Builds = dict[str, tuple[Build, Build | None]]


def planted(build: Build, path: str, replacement: Any) -> tuple[Build, Build]:
    """``build`` and its planted bug: its target run with the object at ``path`` replaced."""

    def patched(run: Callable[..., Any] | None) -> Callable[..., Any] | None:
        def with_bug(*args: Any) -> Any:
            with mock.patch(path, replacement):
                return run(*args)

        return None if run is None else with_bug

    def bugged() -> Target:
        target = build()
        return replace(target, mechanism=patched(target.mechanism),
                       claimed=patched(target.claimed))

    return build, bugged


def _at(build: Callable[..., Target], *args: Any, bug: float = 2.0,
        **kw: Any) -> tuple[Build, Build]:
    """``build(ε, *args)`` at ε = 1, and its planted bug ``build(bug × ε, *args)`` (overspent)."""
    return partial(build, EPS, *args, **kw), partial(build, bug * EPS, *args, **kw)


_EXPONENTIAL = mechanisms.exponential_mechanism
_EM_PATH = "dpviz.mechanisms.exponential_mechanism"


def _exponential_times(k: float) -> Callable[..., Any]:
    """Planted bug: every exponential mechanism spends ``k`` times the ε it is charged."""

    def exponential(utilities: Any, *, epsilon: float, **kw: Any) -> Any:
        return _EXPONENTIAL(utilities, epsilon=k * epsilon, **kw)

    return exponential


#: Planted bug: the exponential mechanism replaced by the exact argmax (ties at random).
_exact_argmax = _exponential_times(math.inf)


def _no_noise(values: Any, **kw: Any) -> np.ndarray:
    """Planted bug: the discrete Laplace sampler returns the exact values (no noise)."""
    return np.asarray(values)


# ------------------------------------------------------------------------------- realistic bugs
# Faults a programmer makes, each one change to the shipped path while its target runs.


class _SharedNoise:
    """Planted bug: one noise draw shared by all visited leaves (their first one's uniforms).

    Replaces ``dpviz.leaf_release.mechanisms`` (the leaf releases' only use of it).
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(mechanisms, name)

    @staticmethod
    def open_uniforms(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        first = mechanisms.open_uniforms(rng, (1, *shape[1:]))
        return np.repeat(first, shape[0], axis=0)


_LEAF_COUNTS = PrivateTable.noisy_leaf_counts


def _counts_from_a_copy(self: PrivateTable, *args: Any, **kw: Any) -> Any:
    """Planted bug (``PrivateTable.noisy_leaf_counts``): each release draws from a copy.

    The table's generator never advances: every tree's release is fed from copies of one
    generator state.
    """
    rng = self.rng
    self.rng = copy.deepcopy(rng)
    try:
        return _LEAF_COUNTS(self, *args, **kw)
    finally:
        self.rng = rng


_UPDATE = PrivateRDTClassifier.update


def _update_restarting(self: PrivateRDTClassifier, *args: Any, **kw: Any) -> Any:
    """Planted bug (``PrivateRDTClassifier.update``): it restarts the fit's generators.

    From ``random_state`` again: its trees (``rebuild``), secret key and uniforms are copies
    of the fit's.
    """
    self._structure_rng, self._noise_rng = self._rngs()
    return _UPDATE(self, *args, **kw)


def _forgets_prior(table: PrivateTable, epsilon: float, **kw: Any) -> None:
    """Planted bug: ``charge_prior`` records nothing — the ledger forgets the earlier release."""


_MAJORITY_LABELS = forest_module.get_majority_labels


class _Dealt:
    """The forest's secret generator, except its one draw of the rows' trees (``deal``)."""

    def __init__(self, rng: np.random.Generator,
                 deal: Callable[[np.random.Generator, int, int], np.ndarray]) -> None:
        self._rng, self._deal = rng, deal

    def integers(self, low: int, high: int, size: int) -> np.ndarray:
        if low != 0:
            raise AssertionError("the planted bug expected the draw of each row's tree")
        return self._deal(self._rng, int(size), int(high))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rng, name)


def _rows_dealt(deal: Callable[[np.random.Generator, int, int], np.ndarray]) -> Callable[..., Any]:
    """Planted bug: row i goes to tree ``deal(rng, n, τ)[i]``, not to one drawn for it alone.

    Replaces the forest's ``get_majority_labels`` (its generator's draw of the rows' trees).
    """

    def get_majority_labels(table: PrivateTable, trees: list, *, rng: np.random.Generator,
                            **kw: Any) -> Any:
        return _MAJORITY_LABELS(table, trees, rng=_Dealt(rng, deal), **kw)

    return get_majority_labels


def _deal_equally(rng: np.random.Generator, n: int, tau: int) -> np.ndarray:
    """FI §4.2 as printed ("sampled without replacement"): shuffle, deal; leftovers first.

    Each tree's size is fixed by n (the leftover rows go to the first trees), so adding a row
    moves rows between trees.
    """
    return rng.permutation(n) % tau


def _deal_by_position(rng: np.random.Generator, n: int, tau: int) -> np.ndarray:
    """Round robin: row i to tree i mod τ (adding a row first moves every other row)."""
    return np.arange(n) % tau


_equal_split, _round_robin = _rows_dealt(_deal_equally), _rows_dealt(_deal_by_position)

_FIT_C45 = DiffPC45Classifier.fit


def _fit_on_observed_range(self: DiffPC45Classifier, X: Any, y: Any, *args: Any,
                           **kw: Any) -> Any:
    """Planted bug (``DiffPC45Classifier.fit``): split grids over the data's observed range.

    Each numeric attribute's grid spans its rows' smallest to largest value instead of the
    public domain's bounds (at the root, the node's observed range).
    """
    codes = self.domain.encode(X)
    observed = {(a.low, a.high): (float(codes[:, j].min()), float(codes[:, j].max()))
                for j, a in enumerate(self.domain) if isinstance(a, Numeric)}

    def grid(low: float, high: float, n_cells: int) -> np.ndarray:
        low, high = observed.get((low, high), (low, high))
        return split_grid(low, high, n_cells)

    with mock.patch("dpviz.trees.id3_split_point.split_grid", grid):
        return _FIT_C45(self, X, y, *args, **kw)


# ------------------------------------------------------------------------------- data
def categorical_problem() -> tuple[Domain, np.ndarray, list[str], np.ndarray]:
    """Three binary attributes; D's 6 rows at 000, the canary at 111 (label "n"): the worst case."""
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


def with_row(X: np.ndarray, y: list[str], row: np.ndarray, label: str,
             first: bool = False) -> tuple[Any, Any]:
    """D + one row: the add/remove neighbour.

    ``first``: the row before D's, moving each of them one place (a fit may depend on the
    order of a data set, a multiset, only through a uniformly random permutation).
    """
    if first:
        return np.vstack([row, X]), [label, *y]
    return np.vstack([X, row]), [*y, label]


def _shift_events(coordinates: Sequence[int], values: Sequence[float]) -> list[Event]:
    """Joint events "all ≥ D's value + 1" / "all ≤ D's value" at ``coordinates`` (losses add)."""
    idx, v = list(coordinates), np.asarray(values, dtype=float)
    shown = ", ".join(map(str, idx))
    return [Event(f"[{shown}] all ≥ D's value + 1",
                  lambda x: (np.asarray(x, float)[:, idx] >= v + 1).all(axis=1)),
            Event(f"[{shown}] all ≤ D's value",
                  lambda x: (np.asarray(x, float)[:, idx] <= v).all(axis=1))]


def _first_lattice(scale: float) -> list[Event]:
    """The Laplace sampler's lattice events around 0, on coordinate 0 (the class-n count)."""
    return [Event(f"[0] {e.name}", lambda x, e=e: e(np.asarray(x)[:, 0]))
            for e in laplace_lattice_events(scale, 0.0)]


#: A problem: its domain, D's rows and labels, and the canary that D′ adds.
Problem = tuple[Domain, np.ndarray, list[str], np.ndarray]


def _canary_target(cls: type, output: Callable[[Any, np.ndarray], np.ndarray], *,
                   problem: Callable[[], Problem] = categorical_problem, label: str = "n",
                   fit: Callable[[Any, Any, Any], Any] | None = None,
                   events: Sequence[Event] = (), first: bool = False, with_d: bool = False,
                   **kw: Any) -> Target:
    """``output(model, rows)`` of ``fit(cls(**kw), *D)`` (default: ``.fit``) per sample.

    ``rows``: the canary, and (``with_d``) D's first row after it, whose leaves hold D's
    rows; ``first``: D′ puts the canary before D's rows.
    """
    domain, X, y, canary = problem()
    make = partial(cls, domain=domain, **kw)
    fit = fit or (lambda model, X_, y_: model.fit(X_, y_))
    rows = np.vstack([canary, X[:1]]) if with_d else canary

    def mechanism(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvenPrivateWarning)
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            return per_seed(lambda s: np.ravel(output(fit(make(random_state=s), *data), rows)),
                            n, rng)

    return Target(mechanism, (X, y), with_row(X, y, canary, label, first), events)


def _with_total(counts: np.ndarray) -> np.ndarray:
    """Per-tree class-0 counts of the canary's leaf, plus their sum (the attacker's statistic)."""
    return np.append(counts[:, 0, :].ravel(), counts[:, 0, 0].sum())


# ------------------------------------------------------------------------------- targets
def rdt_leaf_target(epsilon: float, n_trees: int = 1, **kw: Any) -> Target:
    """Private-RDT (height 3) on :func:`categorical_problem`: the canary's leaf counts."""
    out = (lambda m, c: _with_total(m.released_counts(c))) if n_trees > 1 else (
        lambda m, c: m.released_counts(c)[0, 0])
    events = _first_lattice(n_trees / epsilon) if kw.get("noise") == "laplace" else []
    if n_trees > 1:  # the canary's leaf in every tree gains one class-"n" row
        events = _shift_events(range(0, 2 * n_trees, 2), [0] * n_trees)
    return _canary_target(PrivateRDTClassifier, out, events=events, epsilon=epsilon,
                          n_trees=n_trees, max_depth=3, **kw)


def _equal(name: str, a: Sequence[int], b: Sequence[int] | np.ndarray) -> Event:
    """The joint event "coordinates ``a`` equal ``b``" (coordinates, or values)."""
    def test(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, float)
        other = x[:, list(b)] if isinstance(b, list) else np.asarray(b, float)
        return (x[:, list(a)] == other).all(axis=1)

    return Event(name, test)


def rdt_leaves_target(epsilon: float, n_trees: int = 1) -> Target:
    """Private-RDT (height 3) on :func:`categorical_problem`, the canary first in D′.

    Per tree: the noisy class counts of the canary's leaf, of D's leaf (000) and their
    difference; events: the difference is D′'s exact one, (1, 0) − (3, 3), in a tree; a leaf's
    counts are the same in two trees.
    """
    def out(m: PrivateRDTClassifier, rows: np.ndarray) -> np.ndarray:
        counts = m.released_counts(rows)  # (trees, [canary, D's row], classes)
        return np.concatenate([counts.reshape(n_trees, 4), counts[:, 0] - counts[:, 1]], axis=1)

    events = [_equal(f"tree {t + 1}: canary's leaf − D's leaf = D′'s exact (−2, −3)",
                     [6 * t + 4, 6 * t + 5], [-2, -3]) for t in range(n_trees)]
    for s in range(n_trees):
        for t in range(s + 1, n_trees):
            events += [_equal(f"{what} leaf: the same counts in trees {s + 1} and {t + 1}",
                              [6 * s + j, 6 * s + j + 1], [6 * t + j, 6 * t + j + 1])
                       for what, j in (("the canary's", 0), ("D's", 2))]
    if n_trees > 1:  # the canary's leaf in every tree gains one class-"n" row
        events += _shift_events(range(0, 6 * n_trees, 6), [0] * n_trees)
    return _canary_target(PrivateRDTClassifier, out, events=events, first=True, with_d=True,
                          epsilon=epsilon, n_trees=n_trees, max_depth=3)


def _mechanism_targets() -> Builds:
    """The shipped components on their own, with many samples (vectorized)."""
    c0, c1 = np.array([0, 0]), np.array([1, 0])

    def component(make: Callable[[float], Mechanism], a: Any, b: Any,
                  bug: float = 2.0) -> tuple[Build, Build]:
        return _at(lambda epsilon: Target(make(epsilon), a, b), bug=bug)

    return {
        "leaf-counts": component(targets.leaf_vector, c0, c1),
        "leaf-counts-laplace": (lambda: Target(targets.leaf_vector(EPS, "laplace"), c0, c1,
                                               _first_lattice(1.0)), None),
        "count": component(targets.discrete_laplace_count, 10, 11),
        "leaf-label": component(targets.leaf_label, c0, c1),
        "leaf-label-smooth": (lambda: Target(targets.leaf_label(EPS, "smooth_sensitivity"),
                                             np.array([1, 0]), np.array([2, 0])), None),
        "exponential": component(targets.exponential_choice, targets.UTILITIES,
                                 targets.UTILITIES_PRIME, bug=math.inf),
        "noisy-max": component(targets.report_noisy_max_choice, c0, c1),
    }


def _rdt_targets() -> Builds:
    def rdt_numeric(epsilon: float) -> Target:  # one tree of height 2, numeric attributes
        return _canary_target(PrivateRDTClassifier, lambda m, c: m.released_counts(c)[0, 0],
                              problem=_numeric_problem, epsilon=epsilon, n_trees=1, max_depth=2)

    def proba(epsilon: float) -> Target:
        return _canary_target(PrivateRDTClassifier, lambda m, c: np.round(m.predict_proba(c)[0], 6),
                              epsilon=epsilon, n_trees=1, max_depth=3, clip_negative=True)

    return {
        "rdt": _at(rdt_leaf_target),
        "rdt-3-trees": _at(rdt_leaf_target, 3, bug=3),
        "rdt-numeric": _at(rdt_numeric),
        "rdt-proba": _at(proba, bug=math.inf),
        "rdt-huge-eps": (partial(rdt_leaf_target, 30.0), None),
        "rdt-tiny-eps": (partial(rdt_leaf_target, mechanisms.MIN_NOISE_RATE),
                         partial(rdt_leaf_target, math.inf)),
        "rdt-laplace": (partial(rdt_leaf_target, EPS, noise="laplace"), None),
        "rdt-leaves": planted(partial(rdt_leaves_target, EPS), "dpviz.leaf_release.mechanisms",
                              _SharedNoise()),
        "rdt-3-trees-leaves": planted(partial(rdt_leaves_target, EPS, 3),
                                      "dpviz.privacy.PrivateTable.noisy_leaf_counts",
                                      _counts_from_a_copy),
    }


def _update_targets() -> Builds:
    domain, X, y, canary = categorical_problem()
    batch = np.array([["0", "0", "1"]], dtype=object), ["y"]

    def update(epsilon: float, method: str, canary_in: str, ledger: bool = False) -> Target:
        """The releases of a fit and its update (``ledger``: the claim is the model's ledger_)."""
        def updated(data: Any, seed: int) -> tuple[PrivateRDTClassifier, np.ndarray]:
            (X1, y1), (X2, y2) = data if canary_in == "D1" else ((X, y), data)
            kw = {} if method == "jpw" else {"X_previous": X1, "y_previous": y1}
            model = PrivateRDTClassifier(epsilon=epsilon, n_trees=1, max_depth=3, domain=domain,
                                         random_state=seed).fit(X1, y1)
            before = model.released_counts(canary)[0, 0]
            return model.update(X2, y2, method=method, **kw), before

        def run(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
            def releases(seed: int) -> np.ndarray:
                model, before = updated(data, seed)
                after = model.released_counts(canary)[0, 0]
                return np.concatenate([before, after, after - before, [before[0] + after[0]]])

            return per_seed(releases, n, rng)

        if canary_in == "D1":  # both releases read the canary: before[0] and after[0] shift
            pair = ((X, y), batch), (with_row(X, y, canary, "n"), batch)
            events = _shift_events([0, 2], [0, 0])
        else:  # the canary's leaf: unchanged by the update under D (same noise if reused)
            pair = batch, with_row(*batch, canary, "n")
            events = [*_shift_events([4], [0]),
                      _equal("the canary's leaf unchanged by the update", [4, 5], [0, 0])]
        claimed = (lambda: updated(pair[1], 0)[0].ledger_.spent) if ledger else None
        return Target(run, *pair, events, claimed=claimed)

    def from_ledger(method: str, canary_in: str) -> tuple[Build, Build]:
        """The update at the ε its ledger_ claims, and its bug.

        Canary in D1: the ledger forgets the D1 release; in D2: the update restarts the fit's
        generators (their noise is reused).
        """
        path, bug = (("dpviz.privacy.PrivateTable.charge_prior", _forgets_prior)
                     if canary_in == "D1" else
                     ("dpviz.trees.rdt.PrivateRDTClassifier.update", _update_restarting))
        return planted(partial(update, EPS, method, canary_in, ledger=True), path, bug)

    return {
        "jpw-d2": _at(update, "jpw", "D2"),
        "jpw-d1": _at(update, "jpw", "D1"),
        "recount-d1": from_ledger("recount", "D1"),
        "recount-d2": from_ledger("recount", "D2"),
        "rebuild-d2": from_ledger("rebuild", "D2"),
        "rebuild-d1": from_ledger("rebuild", "D1"),
    }


def _forest_targets() -> Builds:
    def forest(epsilon: float, n_trees: int = 1, **kw: Any) -> Target:
        def out(m: DPRandomForestClassifier, canary: np.ndarray) -> np.ndarray:
            labels = m.released_labels(canary)[:, 0]
            return labels if n_trees == 1 else np.append(labels, labels.sum())

        return _canary_target(DPRandomForestClassifier, out, epsilon=epsilon, n_trees=n_trees,
                              max_depth=3, **kw)

    def pure() -> Problem:
        """The smooth-sensitivity label's worst case: a pure leaf that grows, (1, 0) vs (2, 0)."""
        domain, X, y, canary = categorical_problem()
        return (domain, *with_row(X, y, canary, "n"), canary)

    def forest_numeric(epsilon: float) -> Target:  # one tree of height 2, numeric attributes
        return _canary_target(DPRandomForestClassifier, lambda m, c: m.released_labels(c)[:, 0],
                              problem=_numeric_problem, epsilon=epsilon, n_trees=1, max_depth=2)

    def one_leaf() -> Problem:
        """D's 3 rows of class n and the canary (class y) in one leaf.

        FI's equal split's worst case (docs/privacy.md §8.2.4); with the canary first, an
        order-dependent split moves D's rows too.
        """
        domain = Domain([Categorical("a", ("0", "1"))], ["n", "y"])
        X = np.full((3, 1), "0", dtype=object)
        return domain, X, ["n"] * 3, X[:1]

    def split(epsilon: float) -> Target:
        """Two trees, the canary first: both trees' labels of the leaf, and their pattern.

        At ε = 2 the equal split's exact loss is 3.38 and it is caught at 1,000 fits per
        neighbour (at five seeds); at ε = 1 its 1.51 would need about 4,000.
        """
        def out(m: DPRandomForestClassifier, rows: np.ndarray) -> np.ndarray:
            labels = m.released_labels(rows)[:, 0]
            return np.append(labels, 2 * labels[0] + labels[1])

        return _canary_target(DPRandomForestClassifier, out, problem=one_leaf, label="y",
                              first=True, epsilon=epsilon, n_trees=2, max_depth=1)

    return {
        "forest": _at(forest),
        "forest-disjoint": (partial(forest, EPS, 5),
                            partial(forest, 5 * EPS, 5, disjoint=False)),
        "forest-shared": _at(forest, 3, bug=3, disjoint=False),
        "forest-exponential": planted(partial(forest, EPS, leaf_mechanism="exponential"),
                                      _EM_PATH, _exact_argmax),
        "forest-numeric": _at(forest_numeric),
        "forest-smooth": (partial(forest, EPS, problem=pure, leaf_mechanism="smooth_sensitivity"),
                          None),
        "forest-split": planted(partial(split, 2 * EPS), "dpviz.trees.forest.get_majority_labels",
                                _equal_split),
        "forest-order": planted(partial(split, 2 * EPS), "dpviz.trees.forest.get_majority_labels",
                                _round_robin),
    }


def _rdt_sharp_targets() -> Builds:
    public = np.array([["0", "0", "0"], ["1", "1", "1"], ["0", "1", "0"], ["1", "0", "1"]],
                      dtype=object)

    def sharp(epsilon: float, output: Callable[[Any, np.ndarray], np.ndarray] | None = None,
              label: str = "n", n_secondary: int = 0, **kw: Any) -> Target:
        """The primary tree's counts (secondary trees only where the release reads them).

        The secondary trees post-process the public rows' pseudo-labels: the predictions.
        """
        def fit(model: RDTSharpClassifier, X_: Any, y_: Any) -> RDTSharpClassifier:
            return model.fit(X_, y_, public)

        events = _first_lattice(1 / epsilon) if kw.get("noise") == "laplace" else []
        return _canary_target(RDTSharpClassifier,
                              output or (lambda m, c: m.released_counts(c)[0, 0]), label=label,
                              fit=fit, events=events, epsilon=epsilon, n_primary=1,
                              n_secondary=n_secondary, **kw)

    def wide() -> Problem:
        """The height rule needs k/2 >= 2 to tell one row from two: six binary attributes."""
        row = np.full((1, 6), "0", dtype=object)
        return (Domain([Categorical(f"a{j}", ("0", "1")) for j in range(6)], ["n", "y"]), row,
                ["n"], row)

    def height(private_count: bool) -> Target:
        def fit(model: RDTSharpClassifier, X_: Any, y_: Any) -> RDTSharpClassifier:
            if private_count:  # the paper's rule with the private row count
                model.set_params(n_labeled=len(y_))
            return model.fit(X_, y_, np.array([["0"] * 6, ["1"] * 6], dtype=object))

        return _canary_target(RDTSharpClassifier, lambda m, c: np.array([m.depth_]),
                              problem=wide, label="y", fit=fit, epsilon=EPS, n_primary=1,
                              n_secondary=0)

    def labels(epsilon: float) -> Target:
        # a canary of class y: its empty cell's exact counts (0, 0) give class n (ties: the
        # lowest class), its own row gives y
        return sharp(epsilon, lambda m, c: np.append(m.pseudo_labels_, m.predict(c) == "n"),
                     label="y", max_depth=3, n_secondary=2)

    return {
        "sharp": _at(sharp, max_depth=3),
        "sharp-labels": _at(labels, bug=math.inf),
        "sharp-height": (partial(height, False), partial(height, True)),
        "sharp-laplace": (partial(sharp, EPS, max_depth=3, noise="laplace"), None),
    }


def split_problem() -> Problem:
    """60 rows where a0 and a1 tie (000 → n, 110 → y); the canary 010 (y) makes a1 best."""
    domain = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
    X = np.array([["0", "0", "0"]] * 30 + [["1", "1", "0"]] * 30, dtype=object)
    return domain, X, ["n"] * 30 + ["y"] * 30, np.array([["0", "1", "0"]], dtype=object)


def _threshold_problem() -> Problem:
    """Classes at 0.1 and 0.9 (the root splits); the canary 0.3 (y) lifts splits in (0.3, 0.9)."""
    return (Domain([Numeric("x", 0.0, 1.0)], ["n", "y"]), np.array([[0.1]] * 30 + [[0.9]] * 30),
            ["n"] * 30 + ["y"] * 30, np.array([[0.3]]))


def _fs_targets() -> Builds:
    def leaf(budget: float, cls: type) -> Target:
        """Depth 0: the root is a leaf; the release is its noisy count and class counts."""
        def out(m: Any, canary: np.ndarray) -> np.ndarray:
            root = m.tree_.root
            return np.array([root.noisy_count, *root.class_counts,
                             root.noisy_count + root.class_counts[0]])

        # N_T (6 under D) and the class-"n" count (3 under D) both gain one
        return _canary_target(cls, out, events=_shift_events([0, 1], [6, 3]), epsilon=budget,
                              max_depth=0)

    def split(cls: type, **kw: Any) -> Target:
        def out(m: Any, canary: np.ndarray) -> np.ndarray:
            root = m.tree_.root
            attribute = -1 if root.attribute is None else m.domain.index(root.attribute)
            labels = [c.label for c in root.children] or [root.label, root.label]
            return np.array([attribute, root.noisy_count, *labels])

        return _canary_target(cls, out, problem=split_problem, label="y", epsilon=EPS,
                              max_depth=1, **kw)

    def by_argmax(cls: type, **kw: Any) -> tuple[Build, Build]:
        return planted(partial(split, cls, **kw), _EM_PATH, _exact_argmax)

    def numeric_threshold() -> Target:
        # at the split point's share ε/5 of B = ε: B / ((2 + n)d + 2) with n = d = 1
        def out(m: DiffPC45Classifier, canary: np.ndarray) -> np.ndarray:
            return np.array([m.tree_.root.split_points.get("x", math.nan)])

        return _canary_target(DiffPC45Classifier, out, problem=_threshold_problem, label="y",
                              events=[Event("x < 0.3", lambda o: np.asarray(o)[:, 0] < 0.3)],
                              epsilon=EPS, max_depth=1)

    def outside_range() -> Target:
        """The same split point, the canary first and outside D's range [0.1, 0.9]: at 0.99."""
        def problem() -> Problem:
            return (*_threshold_problem()[:3], np.array([[0.99]]))

        def out(m: DiffPC45Classifier, canary: np.ndarray) -> np.ndarray:
            return np.array([m.tree_.root.split_points.get("x", math.nan)])

        d_grid = split_grid(0.1, 0.9, DEFAULT_SPLIT_CELLS)  # 0.8·i/256 = 0.89·j/256: none inside
        on = Event("on the grid of D's range [0.1, 0.9]",
                   lambda o: np.isin(np.asarray(o)[:, 0], d_grid[1:-1]))
        off = Event("off the grid of D's range [0.1, 0.9]", lambda o: ~on(o))
        return _canary_target(DiffPC45Classifier, out, problem=problem, label="y", first=True,
                              events=[on, off], epsilon=EPS, max_depth=1)

    return {
        "diffpid3-leaf": _at(leaf, DiffPID3Classifier),
        "sulq-leaf": _at(leaf, SuLQID3Classifier),
        "diffpid3-max": by_argmax(DiffPID3Classifier, criterion="max"),
        "diffpid3-gini": by_argmax(DiffPID3Classifier, criterion="gini"),
        "diffpid3-infogain": by_argmax(DiffPID3Classifier, criterion="infogain",
                                       size_bound=100),
        "sulq-split": planted(partial(split, SuLQID3Classifier),
                              "dpviz.mechanisms.discrete_laplace", _no_noise),
        "diffpc45-prune": by_argmax(DiffPC45Classifier, prune=True),
        "diffpc45-numeric": planted(numeric_threshold, _EM_PATH, _exponential_times(8)),
        "diffpc45-range": planted(outside_range, "dpviz.trees.id3.DiffPC45Classifier.fit",
                                  _fit_on_observed_range),
        "fan-pruned": (_pruned_tree, None),
    }


def _privatree_release(m: PrivaTreeClassifier, canary: np.ndarray) -> np.ndarray:
    """The root's attribute (−1: a leaf), its test (threshold or left values) and the label."""
    split = m.tree_.root.split
    if split is None:
        return np.array([-1.0, math.nan, float(m.predict(canary)[0] == "y")])
    test = split.threshold if split.threshold is not None else sum(2**v for v in split.left)
    return np.array([split.index, test, float(m.predict(canary)[0] == "y")])


def _range_problem() -> Problem:
    """One numeric attribute on the public [0, 1]: D's rows in [0.1, 0.9], the canary 0.97."""
    X = np.array([[0.1], [0.2], [0.3], [0.7], [0.8], [0.9]])
    return (Domain([Numeric("x", 0.0, 1.0)], ["n", "y"]), X, ["n", "n", "n", "y", "y", "y"],
            np.array([[0.97]]))


def _privatree_targets() -> Builds:
    def tree(problem: Callable[[], Problem] = split_problem, **kw: Any) -> Target:
        return _canary_target(PrivaTreeClassifier, _privatree_release, problem=problem,
                              label="y", epsilon=EPS, max_depth=1, **kw)

    # the attacker's event: the threshold is an inner edge of 10 bins of D's own range
    own = np.linspace(0.1, 0.9, 11)[1:-1]
    on_own_grid = Event("[1] on the grid of D's range [0.1, 0.9]",
                        lambda o: np.isclose(np.asarray(o)[:, 1:2], own).any(axis=1))

    def bins(from_rows: bool, splitter: str = "histogram") -> Target:
        def fit(model: PrivaTreeClassifier, X: Any, y: Any) -> PrivaTreeClassifier:
            if from_rows:  # the bug: bins over the rows' own range (Domain.from_data)
                model.set_params(domain=None)
            return model.fit(X, y)

        return tree(_range_problem, fit=fit, first=True, events=[on_own_grid], n_bins=10,
                    splitter=splitter)

    return {
        "privatree-histogram": planted(tree, "dpviz.mechanisms.discrete_laplace", _no_noise),
        "privatree-exponential": planted(partial(tree, splitter="exponential"), _EM_PATH,
                                         _exact_argmax),
        "privatree-bounds": (partial(bins, False), partial(bins, True)),
        # the authors' published variant as their experiments run it: no claim
        "privatree-published": (partial(bins, True, "published"), None),
    }


# ------------------------------------------------------------------------------- boundaries
# Targets at the edges where a fault shows whatever its kind: a pure D, a leaf only the canary
# reaches (empty under D), a node at FS's stopping threshold, RDT# without public rows. Each
# releases the tree's shape beside its values, read joined (``joint_events``).

_LEAF_LABEL = privatree_module.leaf_label


def _empty_leaf_unqueried(table: PrivateTable, epsilon: float) -> int:
    """Planted bug (PrivaTree's ``leaf_label``): a leaf no row reaches gets class 0, unqueried.

    It reads the leaf's rows, without a charge, to see that it holds none.
    """
    if len(table._read()[1]) == 0:
        return 0
    return _LEAF_LABEL(table, epsilon)


_STOPPING_RULE = id3_module.stopping_rule


def _stop_on_exact_count(table: PrivateTable, node: Any, attributes: Any, depth: Any,
                         epsilon: float, *, stopping: str = "fs") -> Any:
    """Planted bug (FS ``stopping_rule``): line 9 reads the node's exact count, not N_T."""
    noisy, node.noisy_count = node.noisy_count, float(len(table._read()[0]))
    try:
        return _STOPPING_RULE(table, node, attributes, depth, epsilon, stopping=stopping)
    finally:
        node.noisy_count = noisy


_FIT_SHARP = RDTSharpClassifier.fit


def _structure_from_private_rows(self: RDTSharpClassifier, X: Any, y: Any,
                                 X_public: Any = None) -> Any:
    """Planted bug (``RDTSharpClassifier.fit``): no public rows? The private rows instead.

    They then place the centres: the structure.
    """
    return _FIT_SHARP(self, X, y, X if X_public is None else X_public)


def _tree_shape(m: PrivaTreeClassifier, canary: np.ndarray) -> np.ndarray:
    """The tree's shape and labels, then the canary's label.

    Each node of the full depth-2 tree, pre-order (NaN where none grew): its split's attribute
    (−1 at a leaf) and a leaf's label.
    """
    nodes = [(-1.0 if n.split is None else float(n.split.index),
              -1.0 if n.label is None else float(n.label)) for n in m.tree_.nodes()]
    shape = np.full((7, 2), np.nan)
    shape[:len(nodes)] = nodes[:7]
    return np.append(shape.ravel(), float(m.predict(canary)[0] == "y"))


def pure_problem() -> Problem:
    """D: six rows of class n at 000 (pure); the canary 111 (y), alone in its leaf."""
    domain, X, _, canary = categorical_problem()
    return domain, X, ["n"] * 6, canary


def stop_problem() -> Problem:
    """22 rows, N_T/(t|C|) just below √2/ε at the root (ε = 1/4: 22.63 rows); the canary 23rd."""
    domain = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
    X = np.array([["0", "0", "1"], ["1", "1", "0"]] * 11, dtype=object)
    return domain, X, ["n", "y"] * 11, np.array([["1", "1", "1"]], dtype=object)


def _boundary_targets() -> Builds:
    def pure_tree() -> Target:
        return _canary_target(PrivaTreeClassifier, _tree_shape, problem=pure_problem, label="y",
                              first=True, epsilon=EPS, max_depth=2)

    def at_stop(cls: type) -> Target:
        def out(m: Any, canary: np.ndarray) -> np.ndarray:
            root = m.tree_.root
            attribute = -1 if root.attribute is None else m.domain.index(root.attribute)
            return np.array([attribute, root.noisy_count])

        return _canary_target(cls, out, problem=stop_problem, epsilon=EPS, max_depth=1)

    def no_public() -> Target:
        def out(m: RDTSharpClassifier, canary: np.ndarray) -> np.ndarray:
            t = m.primary_[0]
            return np.concatenate([m.released_counts(canary)[0, 0], [len(t.centres)]])

        return _canary_target(RDTSharpClassifier, out, fit=lambda m, X, y: m.fit(X, y),
                              epsilon=EPS, n_primary=1, n_secondary=0, max_depth=3)

    stop = "dpviz.trees.id3.stopping_rule"
    return {
        "privatree-pure": planted(pure_tree, "dpviz.trees.privatree.leaf_label",
                                  _empty_leaf_unqueried),
        "diffpid3-stop": planted(partial(at_stop, DiffPID3Classifier), stop,
                                 _stop_on_exact_count),
        "sulq-stop": planted(partial(at_stop, SuLQID3Classifier), stop, _stop_on_exact_count),
        "sharp-no-public": planted(no_public, "dpviz.trees.rdt_sharp.RDTSharpClassifier.fit",
                                   _structure_from_private_rows),
    }


def _pruned_tree() -> Target:
    domain, D, D_prime = targets.pruned_tree_problem()
    return Target(targets.pruned_tree_leaves(domain), D, D_prime)


def _split_point_targets() -> Builds:
    """FS §4.3's numeric split point: the shipped grid path, and the paper's continuous draw."""
    low, high = targets.THRESHOLD_RANGE
    one_class, D, D_prime, lattice = targets.threshold_problem()  # lattices of D's ranges
    # discriminating neighbours: a second class at b between grid points 200 and 201; the
    # added row lifts the quality of every candidate above b (exact loss at 4ε: 1.79)
    two_class = Domain([Numeric("x", low, high)], (0, 1))
    grid = split_grid(low, high, DEFAULT_SPLIT_CELLS)
    b = (grid[200] + grid[201]) / 2
    tight = ((np.array([1.0, b]), np.array([0, 1])),
             (np.array([1.0, b, 0.5]), np.array([0, 1, 1])))
    above = [Event(f"x > {t:.8g}", lambda y, t=t: np.asarray(y) > t) for t in grid[195:206]]

    def continuous() -> Target:
        return Target(targets.split_point_continuous(low, high, epsilon=EPS), D, D_prime,
                      lattice)

    def grid_target(epsilon: float, domain: Domain, data: Any, events: Any) -> Target:
        return Target(targets.split_point_grid(domain, epsilon=epsilon), *data, events)

    return {
        "grid": _at(grid_target, two_class, tight, above, bug=4),
        "grid-lattice": (partial(grid_target, EPS, one_class, (D, D_prime), lattice),
                         continuous),
        "continuous": (continuous, None),
    }


def _two_fits(fit_pair: Callable[[Any, int, int], tuple[np.ndarray, np.ndarray]]) -> Mechanism:
    """Per sample, ``fit_pair(data, seed_a, seed_b)``'s two releases and their difference."""

    def mechanism(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        seeds = rng.integers(0, 2**63, size=(n, 2))
        with warnings.catch_warnings(action="ignore", category=PrivacyLeakWarning):
            out = [np.concatenate([a, b, b - a]) for a, b in
                   (fit_pair(data, int(s), int(t)) for s, t in seeds)]
        return np.array(out, dtype=float)

    return mechanism


def _side_by_side_targets() -> Builds:
    """Two models of overlapping data, covered by composition only with their own seeds."""
    domain, X, y, canary = categorical_problem()

    def nested(one_seed: bool) -> Target:
        # the labelled-fraction search: fit 1 on a prefix D1, fit 2 on a longer prefix D2;
        # the canary sits in D2 only (its leaf empty in fit 1 under both neighbours)
        def pair(data: Any, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
            (X1, y1), (X2, y2) = data
            def fit(X_: Any, y_: Any, seed: int) -> np.ndarray:
                return PrivateRDTClassifier(epsilon=0.5, n_trees=1, max_depth=3, domain=domain,
                                            random_state=seed).fit(X_, y_).released_counts(
                                                canary)[0, 0]
            return fit(X1, y1, a), fit(X2, y2, a if one_seed else b)

        d2 = with_row(X, y, np.array([["0", "0", "1"]], dtype=object), "y")
        return Target(_two_fits(pair), ((X, y), d2), ((X, y), with_row(*d2, canary, "n")))

    def forests(one_seed: bool) -> Target:
        # one leaf whose counts are (3, 2) vs (3, 3): FI's 0/1-utility exponential label
        leaf_domain = Domain([Categorical("a", ("x",))], ("0", "1"))
        row = np.zeros((1, 1))

        def forest(seed: int, epsilon: float = 1.0) -> DPRandomForestClassifier:
            return DPRandomForestClassifier(epsilon, n_trees=1, max_depth=1, domain=leaf_domain,
                                            leaf_mechanism="exponential", random_state=seed)

        def pair(counts: Any, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
            rows = Encoded(np.zeros((sum(counts), 1)), leaf_domain)
            classes = np.repeat(np.array(["0", "1"], dtype=object), counts)
            fits = [forest(a, 0.2).fit(rows, classes),
                    forest(a if one_seed else b, 1.0).fit(rows, classes)]
            return tuple(leaf_domain.encode_labels(f.predict(Encoded(row, leaf_domain)))[:1]
                         .astype(float) for f in fits)

        differ = Event("1 at ε = 0.2, 0 at ε = 1", lambda o: (o[:, 0] == 1) & (o[:, 1] == 0))
        return Target(_two_fits(pair), (3, 2), (3, 3), [differ])

    def sharp(one_seed: bool) -> Target:
        public = np.array([["0", "0", "0"], ["1", "1", "1"]], dtype=object)

        def model(seed: int, epsilon: float) -> RDTSharpClassifier:
            return RDTSharpClassifier(epsilon, n_primary=1, n_secondary=0, max_depth=3,
                                      domain=domain, random_state=seed)

        def pair(data: Any, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
            X_, y_ = data
            base = model(a, 1.0).fit(X_, y_, public)
            if one_seed:
                refit = base.refit(X_, y_, epsilon=0.2)
            else:
                refit = model(b, 0.2).fit(X_, y_, public)
            return base.released_counts(canary)[0, 0], refit.released_counts(canary)[0, 0]

        # the same uniforms at both ε: under D the refit's count is about 5× the base's,
        # under D′ (both shifted by one) about 5× − 4 (columns: base n, y; refit n, y; ...)
        events = [Event(f"refit − 5·base (class n) {op} {t}",
                        lambda o, t=t, op=op: (o[:, 2] - 5 * o[:, 0] <= t) if op == "≤"
                        else (o[:, 2] - 5 * o[:, 0] >= t))
                  for t in (-4, -3, -2, -1, 0, 1) for op in ("≤", "≥")]
        return Target(_two_fits(pair), (X, y), with_row(X, y, canary, "n"), events)

    builds = {"nested": nested, "forests": forests, "sharp-refit": sharp}
    return {key: (partial(b, False), partial(b, True)) for key, b in builds.items()}


def cases() -> list[Case]:
    """Every case of the suite, in the order of the claims table (the rows of claims.csv)."""
    builds = {**_mechanism_targets(), **_rdt_targets(), **_update_targets(), **_forest_targets(),
              **_rdt_sharp_targets(), **_fs_targets(), **_privatree_targets(),
              **_boundary_targets(), **_split_point_targets(), **_side_by_side_targets()}
    text = files("dpviz.audit").joinpath("claims.csv").read_text(encoding="utf-8")
    out = []
    for row in csv.DictReader(text.splitlines()):
        build, bug = builds.pop(row["id"])
        if (bug is None) != (row["bug"] == ""):
            raise ValueError(f"claims.csv row {row['id']}: its bug and its targets disagree")
        out.append(Case(row["family"], row["estimator"], row["option"], row["role"],
                        float(row["epsilon"]), row["neighbours"], row["released"], build,
                        None if bug is None else Bug(row["bug"], bug),
                        row["no_power"], row["whole"] == "yes", int(row["samples"])))
    if builds:
        raise ValueError(f"targets without a row in claims.csv: {sorted(builds)}")
    return out


# ------------------------------------------------------------------------------- running
#: One row of the suite's results: the case, its audit, and its planted bug's audit.
Row = tuple[Case, AuditResult, AuditResult | None]


def run_case(case: Case, n_samples: int | None = None, seed: int = 0, *,
             bug: bool = False) -> AuditResult:
    """Audit one case (or its planted bug: same neighbours, events, size and seed).

    ``n_samples`` per neighbour (default the case's); the claim is the target's own
    (``claimed()``, read from its ledger) when it has one, else the row's ε. A whole
    estimator's release is also read joined: its coordinates in pairs (``joint_events``).
    """
    if bug and case.bug is None:
        raise ValueError(f"{case.name} has no planted bug")
    target = case.bug.build() if bug else case.build()
    epsilon = case.epsilon if target.claimed is None else float(target.claimed())
    return audit(target.mechanism, target.D, target.D_prime, epsilon=epsilon,
                 n_samples=case.samples if n_samples is None else n_samples, seed=seed,
                 extra_events=target.events, neighbours=case.neighbours,
                 exact_epsilon=target.exact_epsilon, joint=case.whole)


def smallest_size(case: Case, seeds: Sequence[int] = range(5),
                  sizes: Sequence[int] = SIZES) -> int | None:
    """The smallest of ``sizes`` at which the planted bug is caught at each of ``seeds``.

    A no-claim path: rejected. None if no size does. ``Case.samples`` is twice this.
    """
    for n in sizes:
        if all(run_case(case, n, seed, bug=case.bug is not None).reject for seed in seeds):
            return n
    return None


def _run_index(job: tuple[int, bool, int, int]) -> tuple[tuple[int, bool], AuditResult]:
    """Worker: run case number ``i`` of :func:`cases` or its bug (cases hold closures)."""
    i, bug, n_samples, seed = job
    return (i, bug), run_case(cases()[i], n_samples, seed, bug=bug)


def run_suite(
    n_whole: int | None = None,
    n_mechanism: int | None = None,
    *,
    seed: int = 0,
    select: Callable[[Case], bool] | None = None,
    processes: int = 1,
) -> list[Row]:
    """Run every case (or those ``select`` keeps) and its planted bug.

    Each case at its own size (``Case.samples``), or at least ``n_whole`` fits per neighbour
    for estimators and ``n_mechanism`` samples for components; ``processes > 1`` forks
    workers (the same results).
    """
    all_cases = cases()

    def size(case: Case) -> int:
        least = n_whole if case.whole else n_mechanism
        return case.samples if least is None else max(least, case.samples)

    jobs = [
        (i, bug, size(case), seed)
        for i, case in enumerate(all_cases)
        if select is None or select(case)
        for bug in ((False, True) if case.bug is not None else (False,))
    ]
    jobs.sort(key=lambda job: -job[2])  # longest first
    if processes > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(processes) as pool:
            done = dict(pool.imap_unordered(_run_index, jobs))
    else:
        done = dict(map(_run_index, jobs))
    return [(all_cases[i], done[i, False], done.get((i, True)))
            for i in sorted({i for i, _ in done})]


def power(case: Case, bug_result: AuditResult | None) -> str:
    """Whether a claim's row counts as evidence: its planted bug caught, and at what bound."""
    if case.role != "claim":
        return "n/a (no claim)"
    if case.bug is None or bug_result is None:
        return f"none ({case.no_power}): not evidence"
    if not bug_result.reject:
        return f"NOT caught (ε ≥ {bug_result.epsilon_lower:.2f}): not evidence"
    return f"caught: ε ≥ {bug_result.epsilon_lower:.2f} > {bug_result.epsilon:.6g}"


def claims_table(results: Sequence[Row]) -> pd.DataFrame:
    """The privacy-claims table: one row per case, with the audit's verdict and its power."""
    rows = []
    for case, r, bug in results:
        ok = r.reject == (case.role != "claim")  # an unproven path must be rejected
        has_power = case.role == "claim" and bug is not None and bug.reject
        if case.role == "claim":
            verdict = "no violation found" if not r.reject else "VIOLATION (bug)"
        else:
            verdict = "rejected, as it must be" if r.reject else "NOT rejected"
        rows.append({
            "family": case.family, "estimator": case.estimator, "option": case.option,
            "role": case.role,
            "claimed ε": "none" if case.role == "no claim" else f"{r.epsilon:.6g}",
            "neighbours": f"{NEIGHBOURS}: {case.neighbours}", "released": case.released,
            "ε lower bound (95%)": round(r.epsilon_lower, 3), "samples": r.n_samples,
            "event": r.event, "verdict": verdict,
            "planted bug": case.bug.name if case.bug is not None else "—",
            "power": power(case, bug), "evidence": has_power and not r.reject,
            "as expected": ok and (case.role != "claim" or case.bug is None or has_power),
        })
    return pd.DataFrame(rows)


#: The markers between which ``make audit`` writes the table into ``docs/privacy.md``.
TABLE_START = "<!-- claims-table:start (generated by `make audit`: bench/privacy_claims.py) -->"
TABLE_END = "<!-- claims-table:end -->"

_COLUMNS = ("estimator", "option", "role", "claimed ε", "neighbours", "released",
            "ε lower bound (95%)", "samples", "verdict", "planted bug", "power")


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
