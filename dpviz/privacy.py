"""The PINQ-style privacy layer: the only door to private rows, and the budget ledger.

Friedman & Schuster (KDD 2010, §2.2) build their DP ID3 on McSherry's PINQ
(SIGMOD 2009): the data sits behind an object that answers only noisy
aggregate queries, and every answer is paid for from a fixed budget.

Privacy claim
-------------
Neighbouring data sets differ by adding or removing one row. Every query
answered by a :class:`PrivateTable` is ε_q-differentially private for its own
ε_q (see each method). By **sequential composition** (McSherry 2009, Thm. 1;
FS §2.2) a sequence of queries on one table costs the sum of their ε; by
**parallel composition** (McSherry 2009, Thm. 2; FS §2.2) queries on the
disjoint parts created by :meth:`PrivateTable.partition` cost the *maximum* of
the parts' spends, because one row falls in exactly one part. The
:class:`Ledger` records every query and the increase it caused at the root;
the sum of those increases never exceeds ``Ledger.total``, and a query that
would exceed it raises :class:`BudgetExceededError` *before* any row is read.
So everything a table releases is ``Ledger.total``-DP (ε-DP, pure).

Floating point: the budget check allows a relative slack of 1e-9 so that, e.g.,
ten queries of 0.1 fit in a budget of 1.0 despite rounding. Count queries with
``mechanism="laplace"`` (float Laplace) are not proven private in float64 and warn
:class:`~dpviz.errors.NotProvenPrivateWarning`; the default discrete Laplace is.

Refusals and errors. Every check that can refuse a query — the budget, the
mechanism, an ε below the samplers' minimum — runs before the query reads a row.
No query raises depending on rows it has not paid for: a cell function that maps
a row outside its cells does not count it (as PINQ's Partition drops records whose
key is not listed). Functions passed in (cell functions, qualities, mechanisms)
must be total, row-wise functions; their own exceptions are outside the claim.
The threat model — what is released, what the curator keeps — is in
``docs/privacy.md``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
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
from dpviz.validation import check_epsilon, check_int, check_positive, check_random_state

__all__ = ["BudgetExceededError", "Ledger", "LedgerEntry", "PrivateTable"]

#: Relative tolerance of the budget check (rounding of sums of ε).
BUDGET_RTOL = 1e-9

#: The mechanism recorded by :meth:`PrivateTable.charge_prior` (a copy of earlier spending).
PRIOR_MECHANISM = "(earlier release)"

CountMechanism = Literal["discrete_laplace", "laplace"]
SelectMechanism = Literal["exponential", "report_noisy_max"]


@dataclass(frozen=True)
class LedgerEntry:
    """One answered query.

    Attributes
    ----------
    query : int
        Sequence number (0-based) in the ledger.
    label : str
        What the query was for (e.g. ``"node count"``, ``"split attribute"``).
    mechanism : str
        The noise mechanism that answered it.
    epsilon : float
        The ε the query used on its own table.
    charged : float
        The increase it caused in the root's spend: ``epsilon`` for a query on
        the root, possibly less (even 0) inside a partition where a sibling part
        has already spent more (parallel composition).
    path : tuple of str
        The partition path from the root to the table that answered.

    """

    query: int
    label: str
    mechanism: str
    epsilon: float
    charged: float
    path: tuple[str, ...]


class Ledger:
    """The record of every query against one private data set, and its total budget.

    Parameters
    ----------
    total : float
        The total ε of the data set (``math.inf`` only for the non-private reference).

    """

    def __init__(self, total: float) -> None:
        self.total = check_epsilon(total, "epsilon", allow_inf=True)
        self.entries: list[LedgerEntry] = []
        self.spent = 0.0

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
        """Keep the charges of a release that was computed, then discarded (an interrupted fit).

        A fit interrupted after some queries leaves the model as it was, but the queries
        were answered (their answers may survive in the traceback), so their ε was spent.
        The entries from ``start`` on (queries made on this ledger: a JPW batch) are
        relabelled ``"interrupted <what>: <label>"`` and charged in full: a batch within
        its parallel share cost nothing more, unless its rows are passed again — which
        is what a retry does, and what the per-batch accounts cannot see. The queries of
        ``others`` (the discarded release's own ledgers) are appended under that label,
        their charges added to :attr:`spent` — except :meth:`PrivateTable.charge_prior`
        entries, which copy spending this ledger already holds. :attr:`spent` may then
        exceed :attr:`total`: the record never under-counts, and a later query that raises
        the spend is refused (one that raises nothing, e.g. a JPW batch within its parallel
        share, is answered).
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

    def to_frame(self) -> pd.DataFrame:
        """One row per query: query, label, mechanism, epsilon, charged, path, depth."""
        columns = ["query", "label", "mechanism", "epsilon", "charged", "path", "depth"]
        rows = [
            {
                "query": e.query,
                "label": e.label,
                "mechanism": e.mechanism,
                "epsilon": e.epsilon,
                "charged": e.charged,
                "path": " / ".join(e.path) if e.path else "(root)",
                "depth": len(e.path),
            }
            for e in self.entries
        ]
        return pd.DataFrame(rows, columns=columns)

    def summary(self, by: str = "label") -> pd.DataFrame:
        """Charged ε and number of queries grouped by ``by`` (a column of :meth:`to_frame`)."""
        frame = self.to_frame()
        if by not in frame.columns:
            raise InvalidParameterError(f"by must be one of {list(frame.columns)}, got {by!r}")
        return (
            frame.groupby(by, sort=False)
            .agg(queries=("query", "size"), charged=("charged", "sum"))
            .reset_index()
        )

    def __repr__(self) -> str:
        return f"Ledger(spent={self.spent:.6g} of {self.total:.6g}, {len(self.entries)} queries)"

    def _repr_html_(self) -> str:
        head = f"<p><b>Ledger</b>: spent {self.spent:.4g} of ε = {self.total:.4g}</p>"
        return head + self.to_frame().to_html(index=False)


class _Account:
    """The spend of one table: the root, or one part of a partition (a `_Group` member)."""

    def __init__(self, group: _Group | None) -> None:
        self.group = group
        self.spent = 0.0


class _Group:
    """The parts of one partition: charged to ``owner`` by the maximum of their spends."""

    def __init__(self, owner: _Account) -> None:
        self.owner = owner
        self.members: list[_Account] = []

    def max_spent(self) -> float:
        return max((m.spent for m in self.members), default=0.0)


def _as_numbers(ids: np.ndarray) -> np.ndarray:
    """``ids`` as numbers, NaN for any element that is not a real number (None, text, ...).

    A public function's output on private rows may hold such values for some rows only.
    Mapping them to NaN (no cell, no leaf) instead of raising keeps every query's behaviour
    the same whether or not such a row exists: an exception after reading the rows would
    tell the caller so, for free.
    """
    if ids.dtype.kind in "biuf":
        return ids
    flat = [v if isinstance(v, (int, float, np.integer, np.floating)) else math.nan
            for v in ids.ravel().tolist()]
    return np.asarray(flat, dtype=np.float64).reshape(ids.shape)


def _cell_ids(ids: np.ndarray, n: int) -> np.ndarray:
    """Cell ids in ``[0, n)`` as int64, and -1 for a row in no cell (outside, NaN, not a number)."""
    ids = _as_numbers(ids)
    with np.errstate(invalid="ignore"):
        valid = (ids >= 0) & (ids < n)
    return np.where(valid, ids, -1).astype(np.int64)


def _leaf_keys(keys: Any, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(uint64 keys of the rows that reach a leaf, mask of those rows) from a route's output.

    A key that is not a non-negative integer below 2**64 reaches no leaf: the row is not
    counted, as a cell id outside the cells (see :func:`_as_numbers`).
    """
    keys = np.asarray(keys)
    if keys.shape != (n_rows,):
        raise InvalidParameterError(
            f"the route must return one leaf key per row, got shape {keys.shape}"
        )
    if keys.dtype.kind == "u":
        return keys.astype(np.uint64), np.ones(n_rows, dtype=bool)
    if keys.dtype.kind in "ib":
        reached = keys >= 0
        return keys[reached].astype(np.uint64), reached
    values = keys.ravel().tolist()
    reached = np.array([_is_leaf_key(v) for v in values], dtype=bool)
    kept = [int(v) for v, r in zip(values, reached, strict=True) if r]
    return np.asarray(kept, dtype=np.uint64), reached


def _is_leaf_key(value: object) -> bool:
    """An integer (or integral float) in ``[0, 2**64)``; not a bool, None or text."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return float(value).is_integer() and 0 <= value < 2**64


class PrivateTable:
    """Private rows behind a PINQ-style interface (FS §2.2): noisy answers, each paid for.

    The rows are encoded with a public :class:`~dpviz.domain.Domain`. No method
    returns a row, an exact count or the table's size; :meth:`_read` is the one
    place the rows are read, and every query first charges the ledger (which
    refuses with :class:`BudgetExceededError` if the budget would be exceeded)
    and only then calls it.

    Parameters
    ----------
    X : DataFrame
        The private features, with exactly the domain's columns.
    y : Series or array, optional
        The private class labels (needed by the class-count queries).
    domain : Domain
        The public schema.
    epsilon : float
        Total budget. ``math.inf`` builds the non-private reference table, whose
        queries at ε = inf return exact answers.
    rng : numpy.random.Generator or int
        Source of the noise.

    Notes
    -----
    Privacy claim: everything released by this table and the tables derived
    from it by :meth:`partition` is ``epsilon``-DP for add/remove-one-row
    neighbours, by sequential and parallel composition (McSherry 2009, Thms. 1–2;
    FS §2.2). See the module docstring.

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
        labels = None if y is None else domain.encode_labels(y)
        self._init(codes, labels, domain, Ledger(epsilon), _table_rng(rng), _Account(None), ())

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
        """Build a table from rows already encoded with ``domain`` (see ``Domain.encode``)."""
        codes = np.asarray(codes, dtype=np.float64)
        if codes.ndim != 2 or codes.shape[1] != len(domain):
            raise InvalidParameterError(
                f"codes must have shape (n, {len(domain)}), got {codes.shape}"
            )
        if labels is not None:
            labels = np.asarray(labels, dtype=np.int64)
            if labels.shape != (codes.shape[0],):
                raise InvalidParameterError(
                    f"labels must have shape ({codes.shape[0]},), got {labels.shape}"
                )
            if labels.size and (labels.min() < 0 or labels.max() >= domain.n_classes):
                raise InvalidParameterError(f"labels must be codes in 0..{domain.n_classes - 1}")
        table = cls.__new__(cls)
        table._init(codes, labels, domain, Ledger(epsilon), _table_rng(rng), _Account(None), ())
        return table

    def _init(
        self,
        codes: np.ndarray,
        labels: np.ndarray | None,
        domain: Domain,
        ledger: Ledger,
        rng: np.random.Generator,
        account: _Account,
        path: tuple[str, ...],
    ) -> None:
        self._codes = codes
        self._labels = labels
        self.domain = domain
        self.ledger = ledger
        self.rng = rng
        self._account = account
        self.path = path

    # ------------------------------------------------------------------ accounting
    @property
    def spent(self) -> float:
        """ε spent by queries on this table and its partitions (its own account)."""
        return self._account.spent

    @property
    def remaining(self) -> float:
        """The most this table can still spend (limited by every ancestor).

        A part of a partition may spend up to the largest spend among its
        siblings for free (parallel composition), plus what its owner can still spend.
        """
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

    def _labels_or_raise(self, labels: np.ndarray | None) -> np.ndarray:
        if labels is None:
            raise InvalidParameterError("this table holds no labels (y); class queries need them")
        return labels

    @staticmethod
    def _check_count_mechanism(mechanism: str) -> None:
        if mechanism not in NoisyLeafCounts.MECHANISMS:
            raise InvalidParameterError(
                f"mechanism must be 'discrete_laplace' or 'laplace', got {mechanism!r}"
            )

    @staticmethod
    def _check_count_query(epsilon: float, mechanism: str) -> None:
        """Checks of a count query that must pass before it is charged (they read nothing)."""
        PrivateTable._check_count_mechanism(mechanism)
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
        """The number of rows plus noise (FS §2.2 NoisyCount).

        Privacy claim: ε-DP; a count has sensitivity 1 under add/remove one row
        (Dwork et al. 2006). Discrete Laplace by default (integer noise);
        ``"laplace"`` is the classic continuous version, not proven private in
        floating point (Mironov 2012; warns).
        """
        epsilon = check_epsilon(epsilon, allow_inf=True)
        self._check_count_query(epsilon, mechanism)
        self._charge(epsilon, label, mechanism)
        codes, _ = self._read()
        return np.asarray(self._noisy(np.array(codes.shape[0]), epsilon, mechanism)).item()

    def noisy_class_counts(
        self,
        *,
        epsilon: float,
        mechanism: CountMechanism = "discrete_laplace",
        label: str = "class counts",
    ) -> np.ndarray:
        """The number of rows of each class (in ``domain.classes`` order), each plus noise.

        Privacy claim: ε-DP; the class histogram has L1 sensitivity 1 under
        add/remove one row, since a row falls in exactly one class (parallel
        composition of NoisyCount over the class partition, FS §2.2).
        """
        return self.noisy_histogram(
            None, epsilon=epsilon, classes=True, mechanism=mechanism, label=label
        )[0]

    def noisy_histogram(
        self,
        by: str | Callable[[np.ndarray], np.ndarray] | None,
        *,
        epsilon: float,
        n_cells: int | None = None,
        classes: bool = True,
        mechanism: CountMechanism = "discrete_laplace",
        label: str = "histogram",
    ) -> np.ndarray:
        """Noisy counts of the rows in each cell (and each class), released together.

        Parameters
        ----------
        by : str, callable or None
            A categorical attribute name (cells = its public values, in order),
            a public function mapping the encoded rows (n, k) to int cell ids in
            ``[0, n_cells)``, e.g. the leaf of a random tree, or ``None`` (one cell).
        epsilon : float
            ε of the whole histogram.
        n_cells : int, optional
            Number of cells; required when ``by`` is a callable. Public.
        classes : bool
            Count per (cell, class) (default) or per cell only.
        mechanism : {"discrete_laplace", "laplace"}
            The noise added to every count.
        label : str
            Name of the query in the ledger.

        Returns
        -------
        ndarray of shape (n_cells, n_classes) or (n_cells,)

        Notes
        -----
        Privacy claim: ε-DP for the whole array. Cells (and classes) are
        disjoint, so adding or removing one row changes exactly one count by 1:
        L1 sensitivity 1, and the noise of scale 1/ε on every cell — occupied or
        not, the set of cells being public — gives ε-DP (Dwork et al. 2006;
        parallel composition, FS §2.2).

        """
        epsilon = check_epsilon(epsilon, allow_inf=True)
        self._check_count_query(epsilon, mechanism)
        cells = self._cell_function(by, n_cells)
        n_cells_ = cells[1]
        n_classes = self.domain.n_classes
        if classes and self._labels is None:
            self._labels_or_raise(None)
        self._charge(epsilon, label, mechanism)
        codes, labels = self._read()
        cell_ids = cells[0](codes)
        kept = cell_ids >= 0  # rows mapped outside the cells are not counted (no error)
        if classes:
            flat = cell_ids[kept] * n_classes + self._labels_or_raise(labels)[kept]
            exact = np.bincount(flat, minlength=n_cells_ * n_classes).reshape(n_cells_, n_classes)
        else:
            exact = np.bincount(cell_ids[kept], minlength=n_cells_)
        return self._noisy(exact, epsilon, mechanism)

    def _cell_function(
        self,
        by: str | Callable[[np.ndarray], np.ndarray] | None,
        n_cells: int | None,
        name: str = "n_cells",
    ) -> tuple[Callable[[np.ndarray], np.ndarray], int]:
        """Validate ``by`` and return (codes -> cell ids, number of cells) without reading rows.

        ``name`` is the caller's name of ``n_cells`` (``n_parts`` for :meth:`partition`),
        used in the error messages.
        """
        if by is None:
            return (lambda codes: np.zeros(codes.shape[0], dtype=np.int64)), 1
        if isinstance(by, str):
            attribute = self.domain[by]
            if not isinstance(attribute, Categorical):
                raise InvalidParameterError(
                    f"by={by!r} is numeric; pass a threshold to partition, or a cell function"
                )
            j = self.domain.index(by)
            return (lambda codes: codes[:, j].astype(np.int64)), attribute.n_values
        if callable(by):
            if n_cells is None:
                raise InvalidParameterError(f"{name} (public) is required when by is a function")
            n = check_int(n_cells, name, minimum=1)

            def cell_ids(codes: np.ndarray) -> np.ndarray:
                # A row mapped outside [0, n) (or to NaN, None, text) is in no cell and is dropped,
                # as PINQ's Partition drops records whose key is not listed: raising here
                # would tell the caller whether such a row exists, for free.
                ids = np.asarray(by(codes))
                if ids.shape != (codes.shape[0],):
                    raise InvalidParameterError(
                        "the cell function must return one id per row (a row-wise function "
                        f"of the encoded rows), got shape {ids.shape}"
                    )
                return _cell_ids(ids, n)

            return cell_ids, n
        raise InvalidParameterError(f"by must be an attribute name, a function or None, got {by!r}")

    def partition(
        self,
        by: str | Callable[[np.ndarray], np.ndarray],
        *,
        threshold: float | None = None,
        n_parts: int | None = None,
    ) -> list[PrivateTable]:
        """Split the rows into disjoint public parts (FS §2.2 Partition); free of charge.

        Parameters
        ----------
        by : str or callable
            A categorical attribute (one part per public value, in domain order),
            a numeric attribute with ``threshold`` (parts ``x <= threshold`` and
            ``x > threshold``), or a public function mapping encoded rows to part
            ids in ``[0, n_parts)``.
        threshold : float, optional
            Split point for a numeric attribute (public).
        n_parts : int, optional
            Number of parts when ``by`` is a function (public).

        Returns
        -------
        list of PrivateTable
            The parts, sharing this table's ledger and noise source.

        Notes
        -----
        Parallel composition (McSherry 2009, Thm. 2): the parts are charged to
        this table by the *maximum* of their spends, not the sum, because adding
        or removing one row changes exactly one part. The partition itself
        releases nothing (the parts' sizes stay private).

        """
        if isinstance(by, str) and isinstance(self.domain[by], Numeric):
            if threshold is None:
                raise InvalidParameterError(f"partition on numeric {by!r} needs a threshold")
            t = float(threshold)
            if not math.isfinite(t):
                raise InvalidParameterError(f"threshold must be finite, got {threshold!r}")
            j = self.domain.index(by)

            def assign(codes: np.ndarray) -> np.ndarray:
                return (codes[:, j] > t).astype(np.int64)

            names = [f"{by} <= {t:g}", f"{by} > {t:g}"]
        else:
            if threshold is not None:
                raise InvalidParameterError(
                    f"threshold applies to numeric attributes only, not {by!r}"
                )
            assign, n = self._cell_function(by, n_parts, "n_parts")
            if isinstance(by, str):
                attribute = self.domain[by]
                assert isinstance(attribute, Categorical)
                names = [f"{by} = {v}" for v in attribute.values]
            else:
                names = [f"part {i}" for i in range(n)]
        codes, labels = (
            self._read()
        )  # routing is a public function of each row; nothing is released
        ids = assign(codes)
        group = _Group(self._account)
        parts = []
        for i, name in enumerate(names):
            mask = ids == i
            part = PrivateTable.__new__(PrivateTable)
            account = _Account(group)
            group.members.append(account)
            part._init(
                codes[mask],
                None if labels is None else labels[mask],
                self.domain,
                self.ledger,
                self.rng,
                account,
                (*self.path, name),
            )
            parts.append(part)
        return parts

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

        Parameters
        ----------
        candidates : sequence
            The public candidates (e.g. attribute names, class labels).
        quality : callable
            ``quality(codes, labels) -> array of len(candidates)``, evaluated on
            the private rows. Its sensitivity (the most one row can change any
            score) must be ``sensitivity``.
        sensitivity : float
            Public bound Δ on the quality's sensitivity.
        mechanism : {"exponential", "report_noisy_max"}
            The exponential mechanism (McSherry & Talwar 2007; FS §2.2) or report
            noisy max with one-sided exponential noise (FI addendum).
        epsilon : float
            ε of this selection.
        monotone : bool
            Use the tighter calibration for qualities that all move in the same
            direction between neighbours (e.g. counts).
        label : str
            Name of the query in the ledger.

        Notes
        -----
        Privacy claim: ε-DP when ``quality`` has sensitivity ``sensitivity``
        (McSherry & Talwar 2007, Thm. 6; for report-noisy-max, Ding et al. 2021).

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
        if mechanism == "exponential":
            index = mechanisms.exponential_mechanism(
                scores, epsilon=epsilon, sensitivity=sensitivity, rng=self.rng, monotone=monotone
            )
        else:
            index = mechanisms.report_noisy_max(
                scores, epsilon=epsilon, sensitivity=sensitivity, rng=self.rng, monotone=monotone
            )
        return candidates[int(index)]

    def noisy_leaf_counts(
        self,
        route: Callable[[np.ndarray], np.ndarray],
        *,
        epsilon: float,
        mechanism: CountMechanism = "discrete_laplace",
        label: str = "leaf vector",
    ) -> NoisyLeafCounts:
        """Noisy class counts of every leaf of a random tree, released lazily (JPW Fig. 5).

        Parameters
        ----------
        route : callable
            A public function mapping the encoded rows to the uint64 key of the
            leaf each reaches (e.g. :meth:`dpviz.trees.random_tree.RandomTree.leaf_keys`);
            the tree's set of leaves must be fixed without looking at the rows.
        epsilon : float
            ε of the whole leaf vector.
        mechanism : {"discrete_laplace", "laplace"}
            Noise on each component.
        label : str
            Name of the query in the ledger.

        Returns
        -------
        NoisyLeafCounts
            A callable ``leaf keys -> noisy counts (m, n_classes)``.

        Notes
        -----
        Privacy claim: ε-DP. The leaf vector has L1 sensitivity 1 under
        add/remove one row (JPW Theorem 3) and every leaf — visited or not —
        gets independent noise of scale 1/ε (see :mod:`dpviz.leaf_release`).
        """
        self._check_count_mechanism(mechanism)
        return self._leaf_release(NoisyLeafCounts, route, epsilon, mechanism, label)

    def _leaf_release(
        self,
        release: type,
        route: Callable[[np.ndarray], np.ndarray],
        epsilon: float,
        mechanism: str,
        label: str,
    ) -> Any:
        """Charge, read, route the rows to leaves, and build the lazy ``release``."""
        epsilon = check_epsilon(epsilon, allow_inf=True)
        if self._labels is None:
            self._labels_or_raise(None)
        release.check(epsilon, mechanism)  # refuses before any charge or read
        self._charge(epsilon, label, mechanism)
        codes, labels = self._read()
        keys, reached = _leaf_keys(route(codes), codes.shape[0])
        return release.release(
            keys,
            self._labels_or_raise(labels)[reached],
            self.domain.n_classes,
            epsilon=epsilon,
            mechanism=mechanism,
            rng=self.rng,
        )

    def noisy_leaf_labels(
        self,
        route: Callable[[np.ndarray], np.ndarray],
        *,
        epsilon: float,
        mechanism: str = "rosnam",
        label: str = "leaf labels",
    ) -> NoisyLeafLabels:
        """A private majority label for every leaf of a random tree (FI Alg. 2 line 25), lazily.

        Parameters
        ----------
        route : callable
            Public function: encoded rows -> uint64 leaf keys (see :meth:`noisy_leaf_counts`).
        epsilon : float
            ε of each leaf's label; the leaves are disjoint, so all of them together cost ε.
        mechanism : {"rosnam", "exponential", "smooth_sensitivity"}
            See :class:`dpviz.leaf_release.NoisyLeafLabels`. ``"smooth_sensitivity"``
            is not proven private and warns.
        label : str
            Name of the query in the ledger.

        Returns
        -------
        NoisyLeafLabels
            A callable ``leaf keys -> label codes``.

        Notes
        -----
        Privacy claim: ε-DP for ``"rosnam"`` and ``"exponential"`` (each leaf's
        label is an ε-DP selection from its own class counts, and one row is in
        one leaf: parallel composition, FI Definition 3). No claim for
        ``"smooth_sensitivity"`` (FI 2021 addendum).
        """
        if mechanism not in NoisyLeafLabels.MECHANISMS:
            raise InvalidParameterError(
                f"leaf mechanism must be one of {NoisyLeafLabels.MECHANISMS}, got {mechanism!r}"
            )
        return self._leaf_release(NoisyLeafLabels, route, epsilon, mechanism, label)

    def append(self, codes: np.ndarray, labels: np.ndarray | None) -> PrivateTable:
        """A table of new rows, disjoint from this one, that composes with it in parallel.

        JPW §V-B: when a batch D2 of new rows is appended to D1, queries that
        read only D2 and queries that read only D1 touch disjoint rows, so they
        compose in parallel — the total stays the maximum of the batches' spends.
        The first call turns this root table into the first batch; each call
        adds one batch (path ``"batch k"``) sharing the ledger.

        Parameters
        ----------
        codes : ndarray (n, k)
            The new rows, encoded with this table's domain.
        labels : ndarray (n,) or None
            Their class codes.

        Returns
        -------
        PrivateTable
            The new batch.
        """
        if self.path and not self.path[0].startswith("batch"):
            raise InvalidParameterError("append is only defined on the root table (or a batch)")
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
        new = PrivateTable.from_encoded(
            codes, labels, domain=self.domain, epsilon=self.ledger.total, rng=self.rng
        )
        account = _Account(group)
        group.members.append(account)
        new._init(
            new._codes,
            new._labels,
            self.domain,
            self.ledger,
            self.rng,
            account,
            (f"batch {len(group.members)}",),
        )
        return new

    def charge_prior(self, epsilon: float, *, label: str = "earlier release") -> None:
        """Record ε already spent on these rows by an earlier release; reads nothing.

        Used when a new release reads rows that an earlier, separately accounted
        release also read (e.g. JPW §V-B's rejected options: rebuilding on
        D1 ∪ D2 after releasing a model of D1): by sequential composition the
        earlier ε counts against this table's budget too.
        """
        epsilon = check_epsilon(epsilon)
        self._charge(epsilon, label, PRIOR_MECHANISM)

    def close(self) -> None:
        """Drop the private rows; the ledger and accounting stay, further queries raise.

        A fitted model keeps its table (to append batches, JPW §V-B) but must not
        carry the training rows around.
        """
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
        """Answer a query with a caller-supplied ε-DP mechanism (the extension point).

        For mechanisms that the built-in queries do not cover, e.g. FS's
        exponential mechanism over score-constant ranges of a numeric attribute.
        The table charges ``epsilon`` first (refusing before any row is read),
        then calls ``mechanism(codes, labels, rng)`` and returns its result.

        Parameters
        ----------
        mechanism : callable
            ``mechanism(codes, labels, rng)``; it must be ``epsilon``-DP for
            add/remove-one-row neighbours. Its docstring must state the claim.
        epsilon : float
            The ε the mechanism spends.
        name : str
            The mechanism's name, recorded in the ledger.
        label : str
            Name of the query in the ledger.

        Notes
        -----
        Privacy claim: exactly the claim of ``mechanism``; the table only
        accounts for it (sequential and parallel composition as for any query).
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


def _table_rng(rng: object) -> np.random.Generator:
    """The table's noise generator (a Generator or an int seed; never implicit entropy)."""
    return check_random_state(rng, "rng", allow_none=False)
