"""The PINQ-style privacy layer (FS §2.2, McSherry 2009): the only door to private rows.

A :class:`PrivateTable` answers only noisy aggregate queries, each paid for from a budget
recorded by its :class:`Ledger`: ``Ledger.total``-DP in the rows (add/remove one);
argument: docs/privacy.md §8.1. Every refusal happens before a row is read; functions
passed in must be total and row-wise (docs/privacy.md §4).
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import (
    BudgetExceededError,
    EmptyDataError,
    InvalidParameterError,
    NotProvenPrivateWarning,
)
from dpviz.leaf_release import FLOAT_LAPLACE_MESSAGE, NoisyLeafCounts, NoisyLeafLabels
from dpviz.validation import (
    check_epsilon,
    check_int,
    check_positive,
    check_random_state,
    is_real,
)

__all__ = ["BudgetExceededError", "Ledger", "LedgerEntry", "PrivateTable"]

#: Relative tolerance of the budget check (ten queries of 0.1 fit in 1.0 despite rounding).
BUDGET_RTOL = 1e-9

#: The mechanism recorded by :meth:`PrivateTable.charge_prior` (a copy of earlier spending).
PRIOR_MECHANISM = "(earlier release)"

CountMechanism = Literal["discrete_laplace", "laplace"]
SelectMechanism = Literal["exponential", "report_noisy_max"]
Route = Callable[[np.ndarray], np.ndarray | tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class LedgerEntry:
    """One answered query; ``charged`` is the increase of the root's spend (≤ ``epsilon``)."""

    query: int  # sequence number in the ledger
    label: str  # what the query was for
    mechanism: str
    epsilon: float  # the ε the query used on its own table
    charged: float  # less than epsilon (even 0) in a partition part (parallel composition)
    path: tuple[str, ...]  # partition path from the root to the table that answered


class Ledger:
    """The record of every query against one private data set, and its total ε."""

    def __init__(self, total: float) -> None:
        self.total = check_epsilon(total, "epsilon", allow_inf=True)
        self.entries: list[LedgerEntry] = []
        self.spent = 0.0
        self._interrupted: dict[int, str] = {}  # query number -> the path that was interrupted

    @property
    def remaining(self) -> float:
        """Budget left at the root."""
        return max(self.total - self.spent, 0.0)

    def _record(
        self, label: str, mechanism: str, epsilon: float, charged: float, path: tuple[str, ...]
    ) -> None:
        entry = LedgerEntry(len(self.entries), label, mechanism, epsilon, charged, path)
        self.spent += charged  # first: an interrupt in between over-counts, never under-counts
        self.entries.append(entry)

    def record_discarded(self, what: str, start: int, others: Sequence[Ledger] = ()) -> None:
        """Charge in full the entries from ``start`` on and ``others``' of an interrupted fit.

        Labelled ``"interrupted <what>: <label>"`` (and counted by :meth:`interrupted`);
        :attr:`spent` may exceed :attr:`total`.
        """
        own = self.entries[start:]
        self.spent += sum(e.epsilon - e.charged for e in own)  # first: never under-counts
        self.entries[start:] = [
            replace(e, label=f"interrupted {what}: {e.label}", charged=e.epsilon) for e in own
        ]
        for ledger in others:
            for e in ledger.entries:
                if e.mechanism != PRIOR_MECHANISM:
                    self._record(f"interrupted {what}: {e.label}", e.mechanism, e.epsilon,
                                 e.charged, e.path)
        marks = self.__dict__.setdefault("_interrupted", {})  # (a ledger pickled before has none)
        marks.update(dict.fromkeys(range(start, len(self.entries)), what))

    def interrupted(self, what: str | None = None) -> float:
        """ε charged by the queries of interrupted paths (``what``: of those only, "update")."""
        marks = getattr(self, "_interrupted", {})
        return sum(e.charged for e in self.entries
                   if e.query in marks and what in (None, marks[e.query]))

    def to_frame(self) -> pd.DataFrame:
        """One row per query: query, label, mechanism, epsilon, charged, path, depth."""
        columns = ["query", "label", "mechanism", "epsilon", "charged", "path", "depth"]
        rows = [
            (e.query, e.label, e.mechanism, e.epsilon, e.charged,
             " / ".join(e.path) if e.path else "(root)", len(e.path))
            for e in self.entries
        ]
        return pd.DataFrame(rows, columns=columns)

    def summary(self, by: str = "label") -> pd.DataFrame:
        """Charged ε and number of queries grouped by ``by`` (a column of :meth:`to_frame`)."""
        frame = self.to_frame()
        if by not in frame.columns:
            raise InvalidParameterError(f"by must be one of {list(frame.columns)}, got {by!r}")
        return (
            frame.groupby(by, sort=False, dropna=False)  # a query without a label counts too
            .agg(queries=("query", "size"), charged=("charged", "sum"))
            .reset_index()
        )

    def __repr__(self) -> str:
        stopped = len(getattr(self, "_interrupted", {}))
        return (f"Ledger(spent={self.spent:.6g} of {self.total:.6g}, {len(self.entries)} queries"
                + (f", {stopped} of them interrupted" if stopped else "") + ")")

    def _repr_html_(self) -> str:
        head = f"<p><b>Ledger</b>: spent {self.spent:.4g} of ε = {self.total:.4g}</p>"
        return head + self.to_frame().to_html(index=False)


@dataclass(eq=False)
class _Account:
    """The spend of one table: the root, or one part of a partition (a `_Group` member)."""

    group: _Group | None
    spent: float = 0.0


@dataclass(eq=False)
class _Group:
    """The parts of one partition: charged to ``owner`` by the maximum of their spends."""

    owner: _Account
    members: list[_Account] = field(default_factory=list)

    def max_spent(self) -> float:
        return max((m.spent for m in self.members), default=0.0)


def _row_values(output: Any) -> np.ndarray:
    """A function's output as an array, a list or tuple read element by element (object).

    ``np.asarray`` would choose one dtype for all the elements, so that one row's value changes
    how another's is read (``[1, "a"]`` is text, ``[-1, 2**63 + 1]`` rounds to float) or
    raises (``[1, (1, 2)]``).
    """
    if isinstance(output, list | tuple):
        return np.fromiter(output, dtype=object, count=len(output))
    return np.asarray(output)


def _whole_number(value: object, high: int) -> int:
    """``value`` if it is a whole number in ``[0, high)`` (a bool is 0 or 1), else -1.

    Never raises: ``None``, text, NaN, ±inf, 1.5, ``10**400``, a complex or a number type
    that fails to compare are -1, each row read on its own.
    """
    try:
        if isinstance(value, numbers.Integral | np.bool_):
            whole = int(value)
            return whole if 0 <= whole < high else -1
        if isinstance(value, numbers.Real) and 0 <= value < high:
            whole = int(value)
            return whole if whole == value else -1
    except Exception:  # a row's value must not make the query raise
        return -1
    return -1


def _cell_ids(ids: np.ndarray, n: int) -> np.ndarray:
    """Cell ids in ``[0, n)`` as int64, and -1 for a row in no cell.

    A row is in a cell when its id is a whole number in ``[0, n)`` (1.0 and ``True`` count,
    1.5 does not); any other id (outside, NaN, None, text, ``10**400``) is in no cell instead
    of raising: an exception after reading the rows would reveal, for free, that such a row
    exists (docs/privacy.md §3).
    """
    if ids.dtype.kind == "O":
        return np.fromiter((_whole_number(v, n) for v in ids.ravel().tolist()), dtype=np.int64,
                           count=ids.size).reshape(ids.shape)
    if ids.dtype.kind not in "biuf":
        return np.full(ids.shape, -1, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        valid = (ids >= 0) & (ids < n)
        if ids.dtype.kind == "f":
            valid &= ids == np.floor(ids)
    if valid.all():
        return ids.astype(np.int64)
    out = np.full(ids.shape, -1, dtype=np.int64)
    out[valid] = ids[valid]
    return out


def _key_values(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(uint64 keys of the elements that are leaf keys, their mask): whole numbers < 2**64."""
    if keys.dtype.kind == "u":
        return keys.astype(np.uint64), np.ones(keys.shape, dtype=bool)
    if keys.dtype.kind in "ib":
        reached = keys >= 0
        return keys[reached].astype(np.uint64), reached
    if keys.dtype.kind not in "fO":
        return np.zeros(0, dtype=np.uint64), np.zeros(keys.shape, dtype=bool)
    whole = [_whole_number(v, 2**64) for v in keys.ravel().tolist()]
    reached = np.array([w >= 0 for w in whole], dtype=bool).reshape(keys.shape)
    return np.array([w for w in whole if w >= 0], dtype=np.uint64), reached


def _leaf_keys(keys: Any, n_rows: int) -> tuple[Any, np.ndarray]:
    """(uint64 keys of the rows that reach a leaf, their mask): keys are whole numbers < 2**64.

    A row whose key is anything else reaches no leaf. A route may give the keys grouped,
    (leaves, each row's index into them): a row whose index is not a position of ``leaves``,
    or whose leaf is not a key, reaches none.
    """
    if isinstance(keys, tuple):
        if len(keys) != 2:
            raise InvalidParameterError(
                f"a route giving grouped keys must give (leaves, index), got {len(keys)} items")
        leaves, index = _row_values(keys[0]), _row_values(keys[1])
        if (leaves.dtype == np.uint64 and leaves.ndim == 1 and index.dtype.kind in "iu"
                and index.shape == (n_rows,)
                and (n_rows == 0 or (index.min() >= 0 and index.max() < len(leaves)))):
            return (leaves, index.astype(np.int64, copy=False)), np.ones(n_rows, dtype=bool)
        if leaves.ndim != 1 or index.shape != (n_rows,):
            raise InvalidParameterError(
                "a route giving (leaves, index) must give a 1-D array of leaves and one index "
                f"into them per row, got shapes {leaves.shape} and {index.shape}")
        leaf_keys, is_key = _key_values(leaves)
        position = _cell_ids(index, len(leaves))
        reached = position >= 0
        if not is_key.all():  # rows at a leaf that is not a key reach none
            reached[reached] = is_key[position[reached]]
            return (leaf_keys, (np.cumsum(is_key) - 1)[position[reached]]), reached
        return (leaf_keys, position if reached.all() else position[reached]), reached
    keys = _row_values(keys)
    if keys.shape != (n_rows,):
        raise InvalidParameterError(
            f"the route must return one leaf key per row, got shape {keys.shape}"
        )
    return _key_values(keys)


def _finite_real(value: object, name: str) -> float:
    """``value`` as a finite float: a real number (not a bool or text) of float range."""
    try:
        v = float(value) if is_real(value) else math.nan
    except OverflowError:  # an int beyond float range, e.g. 10**400
        v = math.inf
    if not math.isfinite(v):
        raise InvalidParameterError(f"{name} must be a finite real number, got {value!r}")
    return v


class PrivateTable:
    """Private rows behind a PINQ-style interface (FS §2.2): noisy answers, each paid for.

    ``epsilon``-DP in the rows (add/remove one) for everything this table and its partitions
    release; argument: docs/privacy.md §8.1. ``y`` (optional) serves class queries;
    ``epsilon=math.inf`` is the non-private reference; ``rng`` is the noise's source.
    """

    def __init__(
        self,
        X: pd.DataFrame,
        y: pd.Series | np.ndarray | Sequence[Hashable] | None = None,
        *,
        domain: Domain,
        epsilon: float,
        rng: np.random.Generator | int,
    ) -> None:
        if not isinstance(domain, Domain):
            raise InvalidParameterError(f"domain must be a dpviz Domain, got {domain!r}")
        codes = domain.encode(X)
        self._init(codes, None if y is None else domain.encode_labels(y), domain, Ledger(epsilon),
                   rng)

    @classmethod
    def from_encoded(
        cls,
        codes: np.ndarray,
        labels: np.ndarray | None,
        *,
        domain: Domain,
        epsilon: float,
        rng: np.random.Generator | int,
    ) -> PrivateTable:
        """Build a table from rows already encoded with ``domain`` (see ``Domain.encode``).

        The rows are checked first (:meth:`Domain.check_encoded`: no NaN, no code outside the
        domain), before any query: a refusal is the curator's input error, not a release.
        """
        if not isinstance(domain, Domain):
            raise InvalidParameterError(f"domain must be a dpviz Domain, got {domain!r}")
        table = cls.__new__(cls)
        table._init(*domain.check_encoded(codes, labels), domain, Ledger(epsilon), rng)
        return table

    def _init(
        self,
        codes: np.ndarray,
        labels: np.ndarray | None,
        domain: Domain,
        ledger: Ledger,
        rng: np.random.Generator | int,
        account: _Account | None = None,
        path: tuple[str, ...] = (),
    ) -> None:
        """Set the table's state (``account`` None: a new root account)."""
        self._codes = codes
        self._labels = labels
        self.domain = domain
        self.ledger = ledger
        self.rng = check_random_state(rng, "rng", allow_none=False)
        self._account = _Account(None) if account is None else account
        self.path = path

    def _child(
        self, codes: np.ndarray, labels: np.ndarray | None, group: _Group, path: tuple[str, ...]
    ) -> PrivateTable:
        """A table of some rows with its own account in ``group``, sharing ledger and rng."""
        account = _Account(group)
        group.members.append(account)
        child = PrivateTable.__new__(PrivateTable)
        child._init(codes, labels, self.domain, self.ledger, self.rng, account, path)
        return child

    # ------------------------------------------------------------------ accounting
    @property
    def spent(self) -> float:
        """ε spent by queries on this table and its partitions (its own account)."""
        return self._account.spent

    @property
    def remaining(self) -> float:
        """The most this table can still spend (limited by every ancestor)."""
        return max(self._capacity(self._account), 0.0)

    def _capacity(self, account: _Account) -> float:
        if account.group is None:
            return self.ledger.total - self.ledger.spent
        group = account.group
        return group.max_spent() + self._capacity(group.owner) - account.spent

    def _plan(self, epsilon: float) -> tuple[list[tuple[_Account, float]], float]:
        """The new spends along the path to the root, and the increase at the root."""
        updates: list[tuple[_Account, float]] = []
        account, amount = self._account, epsilon
        while True:
            new = account.spent + amount
            updates.append((account, new))
            group = account.group
            if group is None:
                return updates, amount
            old_max = group.max_spent()
            amount = max(old_max, new) - old_max
            account = group.owner
            if amount <= 0.0:
                return updates, 0.0

    def _charge(self, epsilon: float, label: str, mechanism: str) -> None:
        """Record a query, or raise BudgetExceededError (nothing recorded, no row read)."""
        if getattr(self, "_closed", False):
            raise InvalidParameterError("this PrivateTable was closed: its rows were dropped")
        updates, increase = self._plan(epsilon)
        ledger = self.ledger
        limit = ledger.total * (1 + BUDGET_RTOL)
        # an increase of 0 (a parallel part) adds no loss, even past a discarded release's record
        if increase > 0.0 and ledger.spent + increase > limit:
            raise BudgetExceededError(
                f"query {label!r} needs ε = {epsilon:.6g} (raising the total spend by "
                f"{increase:.6g}) but only {ledger.remaining:.6g} of the budget "
                f"{ledger.total:.6g} remains; no data was read"
            )
        for account, new in updates:
            account.spent = new
        ledger._record(label, mechanism, epsilon, increase, self.path)

    def _read(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The private rows. Called only after a query has been charged."""
        if getattr(self, "_closed", False):
            raise InvalidParameterError("this PrivateTable was closed: its rows were dropped")
        return self._codes, self._labels

    def _require_labels(self) -> None:
        if self._labels is None:
            raise InvalidParameterError("this table holds no labels (y); class queries need them")

    @staticmethod
    def _check_count_query(epsilon: float, mechanism: str) -> None:
        """Checks of a count query that must pass before it is charged (they read nothing)."""
        if mechanism not in NoisyLeafCounts.MECHANISMS:
            raise InvalidParameterError(
                f"mechanism must be 'discrete_laplace' or 'laplace', got {mechanism!r}"
            )
        mechanisms.check_noise_rate(epsilon, 1.0)
        if mechanism == "laplace" and not math.isinf(epsilon):
            warnings.warn(FLOAT_LAPLACE_MESSAGE, NotProvenPrivateWarning, stacklevel=4)

    def _noisy(self, exact: np.ndarray, epsilon: float, mechanism: str) -> np.ndarray:
        if mechanism == "discrete_laplace":
            return mechanisms.discrete_laplace(exact, epsilon=epsilon, sensitivity=1, rng=self.rng)
        return mechanisms.laplace(
            exact.astype(np.float64), epsilon=epsilon, sensitivity=1.0, rng=self.rng
        )

    # ------------------------------------------------------------------ queries
    def noisy_count(
        self,
        *,
        epsilon: float,
        mechanism: CountMechanism = "discrete_laplace",
        label: str = "count",
    ) -> float:
        """The number of rows plus noise (FS §2.2 NoisyCount); ε-DP (sensitivity 1).

        ``mechanism="laplace"`` (float Laplace) is not proven private and warns.
        """
        return self.noisy_histogram(
            None, epsilon=epsilon, classes=False, mechanism=mechanism, label=label
        )[0].item()

    def noisy_class_counts(
        self,
        *,
        epsilon: float,
        mechanism: CountMechanism = "discrete_laplace",
        label: str = "class counts",
    ) -> np.ndarray:
        """Noisy number of rows of each class (``domain.classes`` order); ε-DP."""
        return self.noisy_histogram(
            None, epsilon=epsilon, classes=True, mechanism=mechanism, label=label
        )[0]

    def noisy_histogram(
        self,
        by: str | Route | None,
        *,
        epsilon: float,
        n_cells: int | None = None,
        classes: bool = True,
        mechanism: CountMechanism = "discrete_laplace",
        label: str = "histogram",
    ) -> np.ndarray:
        """Noisy counts of the rows in each public cell (and class), released together.

        ε-DP for the whole array (disjoint public cells; docs/privacy.md §8.1). ``by`` is a
        categorical attribute, a public row-wise function of the encoded rows to cell ids in
        ``[0, n_cells)`` (a row with any other id is not counted: docs/privacy.md §3), or
        ``None`` (one cell). Shape
        (n_cells, n_classes), or (n_cells,) without ``classes``.
        """
        epsilon = check_epsilon(epsilon, allow_inf=True)
        self._check_count_query(epsilon, mechanism)
        cells, n, _ = self._cell_function(by, n_cells)
        n_classes = self.domain.n_classes
        if classes:
            self._require_labels()
        self._charge(epsilon, label, mechanism)
        codes, labels = self._read()
        cell_ids = cells(codes)
        kept = cell_ids >= 0
        if classes:
            flat = cell_ids[kept] * n_classes + labels[kept]
            exact = np.bincount(flat, minlength=n * n_classes).reshape(n, n_classes)
        else:
            exact = np.bincount(cell_ids[kept], minlength=n)
        return self._noisy(exact, epsilon, mechanism)

    def _cell_function(
        self,
        by: str | Route | None,
        n_cells: int | None,
        name: str = "n_cells",
        threshold: float | None = None,
    ) -> tuple[Route, int, list[str] | None]:
        """(codes -> cell ids, number of cells, names of an attribute's cells), without rows."""
        if isinstance(by, str) and isinstance(self.domain[by], Numeric) and threshold is not None:
            t, j = _finite_real(threshold, "threshold"), self.domain.index(by)
            return ((lambda codes: (codes[:, j] > t).astype(np.int64)), 2,
                    [f"{by} <= {t:g}", f"{by} > {t:g}"])
        if threshold is not None:
            raise InvalidParameterError(f"threshold applies to numeric attributes only, not {by!r}")
        if by is None:
            return (lambda codes: np.zeros(codes.shape[0], dtype=np.int64)), 1, None
        if isinstance(by, str):
            attribute, j = self.domain[by], self.domain.index(by)
            if not isinstance(attribute, Categorical):
                raise InvalidParameterError(
                    f"by={by!r} is numeric; pass a threshold to partition, or a cell function"
                )
            names = [f"{by} = {v}" for v in attribute.values]
            return (lambda codes: codes[:, j].astype(np.int64)), attribute.n_values, names
        if callable(by):
            if n_cells is None:
                raise InvalidParameterError(f"{name} (public) is required when by is a function")
            n = check_int(n_cells, name, minimum=1)

            def cell_ids(codes: np.ndarray) -> np.ndarray:
                # a row outside [0, n) is dropped (as PINQ's Partition drops unlisted keys)
                ids = _row_values(by(codes))
                if ids.shape != (codes.shape[0],):
                    raise InvalidParameterError(
                        "the cell function must return one id per row (a row-wise function "
                        f"of the encoded rows), got shape {ids.shape}"
                    )
                return _cell_ids(ids, n)

            return cell_ids, n, None
        raise InvalidParameterError(f"by must be an attribute name, a function or None, got {by!r}")

    def partition(
        self, by: str | Route, *, threshold: float | None = None, n_parts: int | None = None
    ) -> list[PrivateTable]:
        """Split the rows into disjoint public parts (FS §2.2 Partition); free of charge.

        Charged by the *maximum* of the parts' spends (docs/privacy.md §8.1). ``by`` as for
        :meth:`noisy_histogram`, or a numeric attribute with ``threshold`` (``x <= t``, ``x > t``).
        """
        assign, n, names = self._cell_function(by, n_parts, "n_parts", threshold)
        names = names or [f"part {i}" for i in range(n)]
        codes, labels = self._read()  # routing is public and row-wise; nothing is released
        ids = assign(codes)
        group = _Group(self._account)
        return [
            self._child(codes[ids == i], None if labels is None else labels[ids == i], group,
                        (*self.path, name))
            for i, name in enumerate(names)
        ]

    def select(
        self,
        candidates: Sequence[object],
        quality: Callable[[np.ndarray, np.ndarray | None], np.ndarray],
        *,
        sensitivity: float,
        epsilon: float,
        mechanism: SelectMechanism = "exponential",
        monotone: bool = False,
        label: str = "select",
    ) -> object:
        """Choose a candidate with a good quality score, privately (FS §2.2, Alg. 2 line 12).

        ε-DP when ``quality(codes, labels)`` (one score per candidate) has sensitivity
        ``sensitivity`` (docs/privacy.md §8.1); ``mechanism`` and ``monotone`` as in
        :mod:`dpviz.mechanisms`.
        """
        epsilon = check_epsilon(epsilon, allow_inf=True)
        sensitivity = check_positive(sensitivity, "sensitivity")
        candidates = list(candidates)
        if not candidates:
            raise EmptyDataError("select needs at least one candidate")
        if mechanism not in ("exponential", "report_noisy_max"):
            raise InvalidParameterError(
                f"mechanism must be 'exponential' or 'report_noisy_max', got {mechanism!r}"
            )
        if mechanism == "report_noisy_max":
            mechanisms.check_noise_rate(epsilon, sensitivity * (1 if monotone else 2))
        self._charge(epsilon, label, mechanism)
        codes, labels = self._read()
        scores = np.asarray(quality(codes, labels), dtype=np.float64)
        if scores.shape != (len(candidates),):
            raise InvalidParameterError(
                f"quality must return {len(candidates)} scores, got shape {scores.shape}"
            )
        choose = (mechanisms.exponential_mechanism if mechanism == "exponential"
                  else mechanisms.report_noisy_max)
        index = choose(scores, epsilon=epsilon, sensitivity=sensitivity, rng=self.rng,
                       monotone=monotone)
        return candidates[int(index)]

    def noisy_leaf_counts(
        self,
        route: Route,
        *,
        epsilon: float,
        mechanism: CountMechanism = "discrete_laplace",
        label: str = "leaf vector",
    ) -> NoisyLeafCounts:
        """Noisy class counts of every leaf of a random tree, released lazily (JPW Fig. 5).

        ``route`` is a public function of the encoded rows to the uint64 key of the leaf each
        reaches. ε-DP for the whole leaf vector (L1 sensitivity 1, JPW Theorem 3).
        """
        return self._leaf_release(NoisyLeafCounts, route, epsilon, mechanism, label)

    def _leaf_release(
        self, release: type, route: Route, epsilon: float, mechanism: str, label: str
    ) -> Any:
        """Charge, read, route the rows to leaves, and build the lazy ``release``."""
        epsilon = check_epsilon(epsilon, allow_inf=True)
        self._require_labels()
        release.check(epsilon, mechanism)  # refuses before any charge or read
        self._charge(epsilon, label, mechanism)
        codes, labels = self._read()
        keys, reached = _leaf_keys(route(codes), codes.shape[0])
        labels = labels if reached.all() else labels[reached]
        return release.release(keys, labels, self.domain.n_classes, epsilon=epsilon,
                               mechanism=mechanism, rng=self.rng)

    def noisy_leaf_labels(
        self,
        route: Route,
        *,
        epsilon: float,
        mechanism: str = "rosnam",
        label: str = "leaf labels",
    ) -> NoisyLeafLabels:
        """A private label for every leaf of a random tree (FI Alg. 2 line 25), lazily.

        ``route`` as for :meth:`noisy_leaf_counts`. ε-DP in all (one row is in one leaf)
        for ``"rosnam"`` and ``"exponential"``; no claim for ``"smooth_sensitivity"``.
        """
        return self._leaf_release(NoisyLeafLabels, route, epsilon, mechanism, label)

    def append(self, codes: np.ndarray, labels: np.ndarray | None) -> PrivateTable:
        """A new batch of encoded rows, disjoint from this one, composing with it in parallel.

        JPW §V-B; the first call turns this root table into ``"batch 1"``.
        """
        if self.path and not self.path[0].startswith("batch"):
            raise InvalidParameterError("append is only defined on the root table (or a batch)")
        codes, labels = self.domain.check_encoded(codes, labels)  # before any change
        root_account = self._account
        if root_account.group is None:  # first append: the root becomes batch 1
            database = _Account(None)
            database.spent = root_account.spent
            group = _Group(database)
            root_account.group = group
            group.members.append(root_account)
            self.path = ("batch 1",)
        else:
            group = root_account.group
        return self._child(codes, labels, group, (f"batch {len(group.members) + 1}",))

    def charge_prior(self, epsilon: float, *, label: str = "earlier release") -> None:
        """Record ε an earlier release spent on these rows (sequential composition)."""
        epsilon = check_epsilon(epsilon)
        self._charge(epsilon, label, PRIOR_MECHANISM)

    def close(self) -> None:
        """Drop the private rows; the ledger and accounting stay, further queries raise."""
        self._codes = None
        self._labels = None
        self._closed = True

    def apply(
        self,
        mechanism: Callable[[np.ndarray, np.ndarray | None, np.random.Generator], object],
        *,
        epsilon: float,
        name: str,
        label: str = "custom query",
    ) -> object:
        """Answer with a caller-supplied ``epsilon``-DP ``mechanism(codes, labels, rng)``.

        The extension point (e.g. FS's split point): the claim is the mechanism's own; the
        table charges ``epsilon`` first and records ``name``.
        """
        epsilon = check_epsilon(epsilon, allow_inf=True)
        if not callable(mechanism):
            raise InvalidParameterError(f"mechanism must be callable, got {mechanism!r}")
        self._charge(epsilon, label, name)
        codes, labels = self._read()
        return mechanism(codes, labels, self.rng)

    def __repr__(self) -> str:
        where = " / ".join(self.path) if self.path else "root"
        return f"PrivateTable({where}; {self.ledger!r})"
