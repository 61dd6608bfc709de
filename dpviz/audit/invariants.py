"""Release invariants: what every fit of a dpviz estimator must do, checked by watching it.

The claims rows (:mod:`dpviz.audit.suite`) sample releases and bound ε from below; they see a
fault only where their neighbours and events make it visible. These invariants see a fault
wherever it sits, on any fit, by recording what the fit does while it runs (:func:`watch`):

1. **A charge per draw.** Every noise draw (a sampler of :mod:`dpviz.mechanisms`) happens inside
   one charged query of a :class:`~dpviz.privacy.PrivateTable` (or as the lazy noise of a leaf
   release made by one), with the query's mechanism, ε and sensitivity; each query makes one
   draw (none at ε = ∞, or a leaf release that no row reaches).
2. **One draw per released number.** A draw consumes as many uniforms as the numbers it
   releases need (two per discrete Laplace count, one per Laplace value, one per candidate of a
   selection), of the released shape, and every fresh uniform of a call is used once: no two
   released numbers share noise, within a release or across the releases of one call.
3. **The declared sensitivity holds.** A ``select`` declares the sensitivity of its quality
   function (and whether it is monotone); it is checked on the query's own rows against every
   neighbour that removes a row or adds one (each row seen, with each class, and public points
   of the domain).
4. **Rows are read only by a charged query** (or by ``partition``, which routes them and
   releases nothing): never before the charge, never by the estimator's own code.

What a fit derives (heights, bins, candidates, budget shares, stopping thresholds, the
structures drawn from public randomness) must not depend on the rows either: each estimator's
``public_settings()`` lists it, equal at n and n + 1 rows (tests/test_invariants.py); and a
model's ``privacy_record`` must see every call that spent on its rows (:func:`total_charged`).
Argument and the faults each invariant catches: docs/privacy.md §7.1.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import numpy as np

from dpviz import keyed, mechanisms
from dpviz.domain import Categorical
from dpviz.leaf_release import _LeafRelease
from dpviz.privacy import PRIOR_MECHANISM, Ledger, PrivateTable

__all__ = ["Draw", "Query", "Watch", "empirical_sensitivity", "public_settings", "total_charged",
           "watch"]

#: The samplers: (uniforms per released number, or None: one per candidate; default Δ;
#: default ``monotone``).
SAMPLERS: dict[str, tuple[int | None, float | None, bool]] = {
    "discrete_laplace": (2, 1.0, False),
    "laplace": (1, 1.0, False),
    "exponential_mechanism": (None, None, False),
    "report_noisy_max": (None, 1.0, True),
    "smooth_sensitivity_label": (None, None, False),
}

#: The sampler each query mechanism must draw with (the ledger's mechanism names).
DRAWN_BY = {
    "discrete_laplace": "discrete_laplace", "laplace": "laplace",
    "exponential": "exponential_mechanism", "report_noisy_max": "report_noisy_max",
    "rosnam": "report_noisy_max", "smooth_sensitivity": "smooth_sensitivity_label",
}

#: Neighbours tried per ``select`` when its empirical sensitivity is checked (at most).
MAX_NEIGHBOURS = 400


@dataclass
class Draw:
    """One sampler call: its name, ε, Δ, ``monotone``, what it released and the uniforms used."""

    sampler: str
    epsilon: float
    sensitivity: float | None
    monotone: bool
    released: int  # numbers released (noisy values, or selections)
    uniforms: np.ndarray  # the open uniforms it consumed
    lazy: bool  # the keyed noise of a leaf no row reached (materialised on demand)


@dataclass
class Query:
    """One charged query of a table: its ledger charge and the draws made while it ran."""

    kind: str
    label: str
    mechanism: str
    epsilon: float
    draws: list[Draw] = field(default_factory=list)


def _base_name(code_name: str) -> str:
    """A function's name without a mutation tester's suffix (``f__mutmut_3`` -> ``f``)."""
    name = code_name.split("__mutmut")[0]
    return name.rsplit("ǁ", 1)[-1]


class Watch:
    """What the fits run inside :func:`watch` did, and every breach of the invariants."""

    def __init__(self) -> None:
        self.queries: list[Query] = []
        self.violations: list[str] = []
        self.ledgers: list[Ledger] = []
        self._query: Query | None = None  # the query running now
        self._draw: list[np.ndarray] | None = None  # fresh uniforms drawn by the sampler running
        self._fresh: list[np.ndarray] = []  # the fresh uniforms of the current query
        self._lazy = 0  # inside a leaf release's on-demand noise
        self._lazy_draws: list[Draw] = []  # the draws of that noise
        self._charged: set[int] = set()  # tables charged whose rows were not read yet
        self._keys: list[np.ndarray] = []

    # ------------------------------------------------------------------ recording
    def flag(self, what: str) -> None:
        """Record a breach (once)."""
        if what not in self.violations:
            self.violations.append(what)

    def draws(self) -> list[Draw]:
        """Every draw made inside a query, in order."""
        return [d for q in self.queries for d in q.draws]

    @property
    def spent(self) -> float:
        """What the watched calls added to the spends of every ledger they charged."""
        return total_charged(self.ledgers)

    def check_fresh(self) -> None:
        """No two released numbers of the watched calls share a uniform (nor a secret key)."""
        used = [d.uniforms.ravel() for d in self.draws() if not d.lazy]
        if used:
            flat = np.concatenate(used)
            if len(np.unique(flat)) < len(flat):
                self.flag("noise reused: two released numbers drew the same uniforms "
                          f"({len(flat) - len(np.unique(flat))} repeated of {len(flat)})")
        if self._keys:
            keys = np.stack(self._keys)
            if len(np.unique(keys, axis=0)) < len(keys):
                self.flag("noise reused: two leaf releases drew the same secret key")


def total_charged(ledgers: list[Ledger]) -> float:
    """The ε the ledgers' queries charged, copies of earlier releases (``charge_prior``) aside."""
    return math.fsum(e.charged for lg in ledgers for e in lg.entries
                     if e.mechanism != PRIOR_MECHANISM)


# ------------------------------------------------------------------------------- sensitivity
def _neighbour_rows(codes: np.ndarray, labels: np.ndarray, domain: Any,
                    rng: np.random.Generator) -> Iterator[tuple[np.ndarray, int]]:
    """Rows (codes, label) to add: each row seen and public points of the domain, each class.

    The public points: random picks of each attribute's values, or bounds and middle.
    """
    seen = np.unique(codes, axis=0) if len(codes) else np.zeros((0, len(domain)))
    points = [seen]
    corners = []
    for a in domain:
        if isinstance(a, Categorical):
            corners.append(np.arange(a.n_values, dtype=np.float64))
        else:
            corners.append(np.array([a.low, (a.low + a.high) / 2, a.high]))
    picks = np.stack([rng.choice(c, size=24) for c in corners], axis=1) if len(domain) else None
    if picks is not None:
        points.append(picks)
    rows = np.unique(np.vstack(points), axis=0)
    for row in rows:
        for c in range(domain.n_classes):
            yield row, c


def empirical_sensitivity(
    quality: Callable[[np.ndarray, np.ndarray], np.ndarray], codes: np.ndarray,
    labels: np.ndarray, domain: Any, *, seed: int = 0,
) -> tuple[float, bool]:
    """(max_i |q_i(D′) − q_i(D)| over neighbours D′, whether each moves all q_i one way).

    D′: the rows ``codes, labels`` with one removed or one added (:func:`_neighbour_rows`).
    """
    rng = np.random.default_rng(seed)
    base = np.asarray(quality(codes, labels), dtype=np.float64)
    worst, monotone = 0.0, True
    distinct = np.unique(np.column_stack([codes, labels]), axis=0) if len(codes) else []
    tried = 0

    def visit(moved: np.ndarray) -> None:
        nonlocal worst, monotone
        diff = np.asarray(moved, dtype=np.float64) - base
        finite = np.isfinite(diff)
        if finite.any():
            worst = max(worst, float(np.abs(diff[finite]).max()))
        if (diff[finite] > 1e-12).any() and (diff[finite] < -1e-12).any():
            monotone = False

    for row in distinct:  # remove one row of each kind
        at = np.flatnonzero((np.column_stack([codes, labels]) == row).all(axis=1))[0]
        keep = np.ones(len(codes), dtype=bool)
        keep[at] = False
        visit(quality(codes[keep], labels[keep]))
        tried += 1
    for row, c in _neighbour_rows(codes, labels, domain, rng):  # add one row
        if tried >= MAX_NEIGHBOURS:
            break
        visit(quality(np.vstack([codes, row[None, :]]), np.append(labels, c).astype(labels.dtype)))
        tried += 1
    return worst, monotone


# ------------------------------------------------------------------------------- the watch
def _arg(args: tuple, kw: dict, i: int, name: str, default: Any = None) -> Any:
    """Argument ``i`` (positional) or ``name`` (keyword) of a call."""
    return args[i] if len(args) > i else kw.get(name, default)


class _Hooks:
    """The wrappers :func:`watch` installs, recording into one :class:`Watch`."""

    def __init__(self, w: Watch) -> None:
        self.w = w
        self.samplers = {name: getattr(mechanisms, name) for name in SAMPLERS}
        self.open_uniforms = mechanisms.open_uniforms
        self.new_secret_key = keyed.new_secret_key
        self.charge, self.read = PrivateTable._charge, PrivateTable._read
        self.call = _LeafRelease.__call__

    def sampler(self, name: str) -> Callable[..., Any]:
        """``mechanisms.<name>``, recording each call as a :class:`Draw` (invariants 1-2)."""
        original = self.samplers[name]

        def wrapped(*args: Any, **kw: Any) -> Any:
            w = self.w
            outer, w._draw = w._draw, []
            try:
                out = original(*args, **kw)
                drawn = w._draw
            finally:
                w._draw = outer
            self.record(name, args, kw, out, drawn)
            return out

        return wrapped

    def record(self, name: str, args: tuple, kw: dict, out: Any, drawn: list) -> None:
        """One draw: the uniforms it used against the numbers it released, and where it was."""
        w, (per_value, default_delta, default_monotone) = self.w, SAMPLERS[name]
        given = kw.get("uniforms")
        used = np.asarray(given, dtype=np.float64) if given is not None else (
            np.concatenate([d.ravel() for d in drawn]) if drawn else np.zeros(0))
        value = np.asarray(_arg(args, kw, 0, "value" if per_value else "utilities"))
        released = int(np.size(out))
        need = released * (per_value or value.shape[-1])
        draw = Draw(name, float(kw.get("epsilon", math.nan)), kw.get("sensitivity", default_delta),
                    bool(kw.get("monotone", default_monotone)), released, used, w._lazy > 0)
        if used.size != need and math.isfinite(draw.epsilon):
            w.flag(f"{name} released {released} number(s) from {used.size} uniforms (one draw "
                   f"per released number needs {need})")
        if used.size and len(np.unique(used)) < used.size:
            w.flag(f"{name}: released numbers share uniforms (a draw of the wrong shape)")
        if w._query is not None:
            w._query.draws.append(draw)
        elif draw.lazy:
            w._lazy_draws.append(draw)
        else:
            w.flag(f"{name} drew noise outside any charged query")

    def fresh_uniforms(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """``mechanisms.open_uniforms``, handing what it drew to the sampler running."""
        out = self.open_uniforms(rng, shape)
        if self.w._draw is not None:
            self.w._draw.append(out)
        return out

    def secret_key(self, rng: np.random.Generator) -> np.ndarray:
        """``keyed.new_secret_key``, each key kept (two releases must not share one)."""
        key = self.new_secret_key(rng)
        self.w._keys.append(np.asarray(key).copy())
        return key

    def charged(self, table: PrivateTable, epsilon: float, label: str, mechanism: str) -> None:
        """``PrivateTable._charge``: the running query's one charge (its rows may be read)."""
        self.charge(table, epsilon, label, mechanism)
        w = self.w
        if table.ledger not in w.ledgers:
            w.ledgers.append(table.ledger)
        if mechanism == PRIOR_MECHANISM:
            return
        if w._query is None or w._query.mechanism:
            w.flag(f"a charge outside a query method, or two charges in one query ({label!r})")
            return
        w._query.label, w._query.mechanism, w._query.epsilon = label, mechanism, epsilon
        w._charged.add(id(table))

    def reading(self, table: PrivateTable) -> Any:
        """``PrivateTable._read``: after the query's charge, or routing rows (``partition``)."""
        caller = _base_name(sys._getframe(2).f_code.co_name)  # (past :func:`_function`)
        if caller != "partition":
            if id(table) not in self.w._charged:
                self.w.flag(f"rows read without a charge (by {caller})")
            self.w._charged.discard(id(table))
        return self.read(table)

    def query(self, kind: str, method: Callable[..., Any]) -> Callable[..., Any]:
        """A query method of ``PrivateTable``, checked when it returns (invariants 1-3)."""

        def wrapped(table: PrivateTable, *args: Any, **kw: Any) -> Any:
            w = self.w
            outer = w._query
            here = w._query = Query(kind, "", "", math.nan)
            try:
                if kind == "select":
                    _check_select(w, table, args, kw)
                out = method(table, *args, **kw)
            finally:
                w._query = outer
            if here.mechanism:
                w.queries.append(here)
                _check_query(w, here, kind, args, kw, out)
            return out

        return wrapped

    def lazily(self, release: Any, leaf_keys: np.ndarray) -> np.ndarray:
        """A leaf release's values: each leaf no row reached gets its keyed noise on demand."""
        w = self.w
        w._lazy += 1
        start = len(w._lazy_draws)
        try:
            out = self.call(release, leaf_keys)
        finally:
            w._lazy -= 1
        if math.isfinite(release.epsilon):
            missed = ~np.isin(np.asarray(leaf_keys, dtype=np.uint64), release._visited)
            need = int(missed.sum()) * int(np.prod(release._values.shape[1:]))
            drawn = sum(d.released for d in w._lazy_draws[start:])
            if drawn != need:
                w.flag(f"a leaf release gave {int(missed.sum())} leaves no row reached "
                       f"{drawn} noisy numbers, not {need} (a leaf released without noise)")
        return out

    def rows(self, name: str) -> property:
        """The table's ``_codes`` / ``_labels``: read by ``_read`` only (invariant 4)."""

        def get(table: PrivateTable) -> Any:
            caller = _base_name(sys._getframe(1).f_code.co_name)
            if caller not in ("_read", "_require_labels"):  # (whether labels are held)
                self.w.flag(f"rows read outside a query ({caller} read {name})")
            return vars(table)[name]

        def put(table: PrivateTable, value: Any) -> None:
            vars(table)[name] = value

        return property(get, put)


#: The query methods of ``PrivateTable`` a watch checks, by kind.
QUERY_METHODS = {"histogram": "noisy_histogram", "select": "select", "leaves": "_leaf_release",
                 "apply": "apply"}


def _function(hook: Callable[..., Any]) -> Callable[..., Any]:
    """A plain function calling ``hook``: a method of a class then receives its instance."""

    def call(*args: Any, **kw: Any) -> Any:
        return hook(*args, **kw)

    return call


@contextmanager
def watch() -> Iterator[Watch]:
    """Record every query, draw and read of private rows made inside, and flag breaches.

    Patches :class:`~dpviz.privacy.PrivateTable`'s queries, the samplers of
    :mod:`dpviz.mechanisms` (the module attributes the library calls them through) and the
    lazy leaf releases, for the duration only. One watch per set of releases that must not
    share noise (a ``refit``, which repeats its fit's noise by design, gets its own).
    """
    w = Watch()
    hooks = _Hooks(w)
    patches = [(mechanisms, name, hooks.sampler(name)) for name in SAMPLERS]
    patches += [(mechanisms, "open_uniforms", hooks.fresh_uniforms),
                (keyed, "new_secret_key", hooks.secret_key),
                (PrivateTable, "_charge", hooks.charged), (PrivateTable, "_read", hooks.reading),
                (_LeafRelease, "__call__", hooks.lazily)]
    patches += [(PrivateTable, name, hooks.query(kind, getattr(PrivateTable, name)))
                for kind, name in QUERY_METHODS.items()]
    with ExitStack() as stack:
        for target, name, value in patches:
            stack.enter_context(mock.patch.object(target, name, _function(value)))
        for name in ("_codes", "_labels"):
            stack.enter_context(mock.patch.object(PrivateTable, name, hooks.rows(name),
                                                  create=True))
        yield w
    w.check_fresh()


def _check_select(w: Watch, table: PrivateTable, args: tuple, kw: dict) -> None:
    """Invariant 3: the quality's sensitivity (and monotonicity) on the query's own rows."""
    quality = _arg(args, kw, 1, "quality")
    declared = kw.get("sensitivity")
    monotone = bool(kw.get("monotone", False))
    codes, labels = vars(table).get("_codes"), vars(table).get("_labels")
    if codes is None or labels is None or declared is None or not callable(quality):
        return
    try:
        worst, moves_together = empirical_sensitivity(quality, codes, labels, table.domain)
    except Exception as exc:  # a quality that fails on a neighbour: the query will say so
        w.flag(f"select's quality failed on a neighbour of its rows: {exc!r}")
        return
    if worst > float(declared) * (1 + 1e-9) + 1e-12:
        w.flag(f"select declared sensitivity {declared:g} but its quality moved by "
               f"{worst:.4g} between neighbours ({kw.get('label', 'select')})")
    if monotone and not moves_together:
        w.flag(f"select declared a monotone quality but a neighbour moved its scores both "
               f"ways ({kw.get('label', 'select')})")


def _check_query(w: Watch, q: Query, kind: str, args: tuple, kw: dict, out: Any) -> None:
    """Invariants 1-2 for one query: its draw's sampler, ε, Δ and released size."""
    if math.isinf(q.epsilon):
        return
    if kind == "apply":
        spent = math.fsum(d.epsilon for d in q.draws)
        if spent > q.epsilon * (1 + 1e-9):
            w.flag(f"apply {q.label!r} charged ε = {q.epsilon:g} and drew ε = {spent:g}")
        return
    if kind == "leaves":
        released = int(np.size(out._values))
        mechanism = _arg(args, kw, 3, "mechanism")
    elif kind == "histogram":
        released, mechanism = int(np.size(out)), q.mechanism
    else:
        released, mechanism = 1, q.mechanism
    expected = DRAWN_BY.get(mechanism, "?")
    draws = q.draws
    if kind == "leaves" and released == 0:
        if draws:
            w.flag(f"{q.label!r}: no leaf holds a row but the release drew noise")
        return
    if len(draws) != 1:
        w.flag(f"{q.label!r}: one charge, {len(draws)} noise draws (each release needs its own "
               "charge)")
        return
    d = draws[0]
    if d.sampler != expected:
        w.flag(f"{q.label!r}: charged as {mechanism!r} but drawn by {d.sampler}")
    if not math.isclose(d.epsilon, q.epsilon, rel_tol=1e-12):
        w.flag(f"{q.label!r}: charged ε = {q.epsilon:g} but drawn at ε = {d.epsilon:g}")
    if kind == "select":
        declared = kw.get("sensitivity")
        if d.sensitivity is None or not math.isclose(float(d.sensitivity), float(declared)):
            w.flag(f"{q.label!r}: declared Δ = {declared} but drawn with Δ = {d.sensitivity}")
        if d.monotone != bool(kw.get("monotone", False)):
            w.flag(f"{q.label!r}: monotone={kw.get('monotone', False)} declared, "
                   f"monotone={d.monotone} drawn")
        candidates = list(_arg(args, kw, 0, "candidates"))
        if d.uniforms.size != len(candidates) * d.released or d.released != 1:
            w.flag(f"{q.label!r}: one selection among {len(candidates)} candidates drew "
                   f"{d.uniforms.size} uniforms for {d.released} selection(s)")
    else:
        if d.sensitivity is not None and float(d.sensitivity) != 1.0 and kind == "histogram":
            w.flag(f"{q.label!r}: counts drawn with Δ = {d.sensitivity}, not 1")
        if d.released != released:
            w.flag(f"{q.label!r}: {released} numbers released from a draw of {d.released} "
                   "(noise of the wrong shape: several numbers share one draw)")
        if kind == "leaves" and d.sensitivity is not None and float(d.sensitivity) != 1.0:
            w.flag(f"{q.label!r}: a leaf's counts drawn with Δ = {d.sensitivity}, not 1")
        if kind == "leaves" and d.monotone != (mechanism == "rosnam"):
            # ROSNAM's class counts are monotone; the 0/1 majority utility is not
            w.flag(f"{q.label!r}: {mechanism} drawn with monotone={d.monotone}")


# ------------------------------------------------------------------------------- settings
def _random_trees(model: Any) -> dict[str, Any]:
    """Private-RDT, Fan's RDT and the FI forest: the height, the structures and their bounds.

    A structure is its tree's key and depth, and the numeric bounds its thresholds are drawn in
    (the domain's, never the rows' range).
    """
    def bounds(t: Any) -> list:
        return np.asarray(getattr(t.domain, "bounds", [])).tolist()

    releases = [*getattr(model, "leaf_counts_", []), *getattr(model, "leaf_labels_", [])]
    return {"height": model.depth_,
            "trees": [(int(t.key), t.depth, bounds(t)) for t in model.trees_],
            "ε per release": [getattr(r, "epsilon", None) for r in releases]}


def _rdt_sharp(model: Any) -> dict[str, Any]:
    """RDT#: the height, every tree's structure and centres (public rows), ε per primary tree."""
    def structure(t: Any) -> tuple:
        return (int(t.tree.key), t.leaf_keys.tolist(), t.centres.tolist(), t.slots.tolist())

    return {"height": model.depth_, "primary": [structure(t) for t in model.primary_],
            "secondary": [structure(t) for t in model.secondary_],
            "ε per primary tree": [c.epsilon for c in model.primary_counts_]}


def _fs_tree(model: Any) -> dict[str, Any]:
    """FS trees: ε per query, the root's stopping count (line 9), each numeric attribute's grid."""
    from dpviz.trees.id3_split_point import split_grid

    cells = getattr(model, "n_split_cells", None)
    grids = {a.name: split_grid(a.low, a.high, cells).tolist() for a in model.domain_
             if not a.is_categorical and cells is not None}
    return {"depth": model.max_depth, "ε per query": model.epsilon_,
            "root stops below": model.tree_.root.stop_below, "split grids": grids}


def _privatree(model: Any) -> dict[str, Any]:
    """PrivaTree: its :class:`~dpviz.trees.privatree.Plan` and the root's candidate splits."""
    from dpviz.trees.privatree import Scope, candidate_splits

    p, domain = model.plan_, model.domain_
    root = candidate_splits(domain, Scope.of(domain, p.n_bins), p.edges)
    return {"levels": p.levels, "ε per level": p.eps_level, "ε per leaf": p.eps_leaf,
            "bin edges": {name: e.tolist() for name, e in p.edges.items()},
            "root candidates": [s.describe(domain)[0] for s in root]}


#: Each estimator's accessor, by class name.
SETTINGS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "PrivateRDTClassifier": _random_trees, "RandomDecisionTreeClassifier": _random_trees,
    "DPRandomForestClassifier": _random_trees, "RDTSharpClassifier": _rdt_sharp,
    "SuLQID3Classifier": _fs_tree, "DiffPID3Classifier": _fs_tree,
    "DiffPC45Classifier": _fs_tree, "PrivaTreeClassifier": _privatree,
}


def public_settings(model: Any) -> dict[str, Any]:
    """What a fitted model settled before it read a row, read from the model.

    Heights, structures, bins, grids, candidates, budget shares, stopping thresholds.
    None of it may depend on the rows: equal at n and n + 1 rows with the public parameters
    held fixed (tests/test_invariants.py).
    """
    return SETTINGS[type(model).__name__](model)
