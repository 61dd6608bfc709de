"""All-or-nothing calls of an estimator, and the record of what each call spent.

A call that answers private queries (a fit, an update, a refit) runs on a working copy of the
object and commits it in one store (:func:`atomic`): an exception leaves the object as it was.
What the call spent stays recorded all the same, finished or interrupted: in the model's
:class:`~dpviz.privacy.Ledger`, on the exception and in the object's :class:`PrivacyRecord`
(docs/privacy.md §3).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpviz.domain import Domain
from dpviz.errors import PrivacyLeakWarning
from dpviz.privacy import PRIOR_MECHANISM, Ledger, PrivateTable

__all__ = ["Call", "PrivacyRecord", "atomic", "keep_discarded", "open_table", "record_of",
           "warn_pending"]

#: Where an object keeps its record, and where a working copy lists the tables it opened.
RECORD, OPENED = "_privacy_record", "_opened"


@dataclass(frozen=True, eq=False)
class Call:
    """One call of an estimator object that answered private queries (a fit, an update...)."""

    what: str  # "PrivateRDTClassifier.fit"
    interrupted: bool  # stopped: its model was discarded, its cost incurred all the same
    epsilon: float  # what it added to the spend of the ledgers it charged
    ledgers: tuple[Ledger, ...]  # where its queries are listed


class PrivacyRecord:
    """Every call of one estimator object that read private rows, interrupted ones too.

    ``spent`` sums their ε: a bound on the loss of every row they read (sequential composition
    over the calls). Kept across refits (``ledger_`` is the current model's only); one per
    object (and the models it makes): ``sklearn.base.clone`` starts an empty one, so add up
    the records of the objects fitted on the same rows (docs/privacy.md §3).
    """

    def __init__(self) -> None:
        self.calls: list[Call] = []

    @property
    def spent(self) -> float:
        """The ε of every call, in all."""
        return math.fsum(c.epsilon for c in self.calls)

    @property
    def ledgers(self) -> list[Ledger]:
        """Every ledger the calls opened or charged, in order, each once."""
        seen: dict[int, Ledger] = {}
        for call in self.calls:
            for ledger in call.ledgers:
                seen.setdefault(id(ledger), ledger)
        return list(seen.values())

    def pending(self) -> list[Call]:
        """The interrupted calls since the last call that finished."""
        done = [i for i, c in enumerate(self.calls) if not c.interrupted]
        return self.calls[done[-1] + 1 if done else 0:]

    def to_frame(self) -> pd.DataFrame:
        """One row per call: call, what, status, epsilon, ledger."""
        rows = [(i, c.what, "interrupted" if c.interrupted else "finished", c.epsilon,
                 "; ".join(map(repr, c.ledgers))) for i, c in enumerate(self.calls)]
        return pd.DataFrame(rows, columns=["call", "what", "status", "epsilon", "ledger"])

    def __repr__(self) -> str:
        stopped = sum(c.interrupted for c in self.calls)
        return (f"PrivacyRecord(spent={self.spent:.6g} by {_calls(len(self.calls))}"
                + (f", {stopped} of them interrupted" if stopped else "") + ")")

    def _repr_html_(self) -> str:
        head = (f"<p><b>Privacy record</b> of this object: ε = {self.spent:.4g} spent by "
                f"{_calls(len(self.calls))}</p>")
        return head + self.to_frame().to_html(index=False)


def _calls(n: int) -> str:
    return f"{n} call{'' if n == 1 else 's'}"


def record_of(obj: Any) -> PrivacyRecord:
    """The record of ``obj``'s calls (an empty one if none answered a query yet)."""
    record = vars(obj).get(RECORD)
    return PrivacyRecord() if record is None else record


def atomic(obj: Any, what: str, path: Callable[[Any], Any], *, record: bool = True) -> Any:
    """Run ``path(work)`` on a shallow working copy of ``obj``, then commit it in one store.

    An exception leaves ``obj`` as it was; the generators are shared (a retry draws fresh
    noise). The queries already answered are kept (:func:`keep_discarded`) in ``ledger_``
    (unless ``record=False``) and on the exception; the call and its ε, finished or not, in
    the object's record (:func:`record_of`). The tables the path reads are made by
    :func:`open_table`. Returns ``obj``.
    """
    name = f"{type(obj).__name__}.{what}"
    ledger = getattr(obj, "ledger_", None) if record else None
    start = len(ledger.entries) if ledger is not None else 0
    if what != "update":  # an update checks its own budget (PrivateRDTClassifier)
        warn_pending(record_of(obj), name)
    opened: list[Ledger] = []  # the ledgers of the tables the path makes
    work = object.__new__(type(obj))
    work.__dict__.update(vars(obj), **{OPENED: opened})
    state: dict[str, Any] | None = None
    finished: tuple[PrivacyRecord, Call] | None = None
    try:
        path(work)
        state = vars(work)
        del state[OPENED]
        call = _call(name, False, opened, ledger, start, state.get("ledger_"))
        if call is not None:  # recorded first: an interrupt now over-counts, never under
            log = state.setdefault(RECORD, PrivacyRecord())
            log.calls.append(call)
            finished = log, call
        obj.__dict__ = state  # one store: the old model or the new, never a mix
    except BaseException as exc:
        if vars(obj) is not state:  # not committed: the release is discarded
            call = _call(name, True, opened, ledger, start)
            keep_discarded(exc, name, opened, ledger, start)
            if call is not None:
                vars(obj).setdefault(RECORD, PrivacyRecord()).calls.append(call)
            if finished is not None and finished[1] in finished[0].calls:
                finished[0].calls.remove(finished[1])  # it did not finish after all
        raise
    return obj


def open_table(work: Any, codes: np.ndarray, labels: np.ndarray, *, domain: Domain,
               epsilon: float, rng: np.random.Generator) -> PrivateTable:
    """The private rows of an :func:`atomic` path; its ledger is kept if the path is discarded."""
    table = PrivateTable.from_encoded(codes, labels, domain=domain, epsilon=epsilon, rng=rng)
    opened = vars(work).get(OPENED)
    if opened is not None:
        opened.append(table.ledger)
    return table


def _call(what: str, interrupted: bool, opened: list[Ledger], ledger: Ledger | None, start: int,
          fitted: Ledger | None = None) -> Call | None:
    """The record of a path that charged ``ledger`` from entry ``start`` on and ``opened``.

    Its ε: what it added to their spends, an interrupted path's own entries in full (as
    :meth:`Ledger.record_discarded` charges them); None if it answered no query.
    """
    own = [] if ledger is None else ledger.entries[start:]
    made = [e for lg in opened for e in lg.entries if e.mechanism != PRIOR_MECHANISM]
    if not own and not made:
        return None
    epsilon = math.fsum([*(e.epsilon if interrupted else e.charged for e in own),
                         *(e.charged for e in made)])
    if interrupted or fitted is None:
        ledgers = (*opened, *([ledger] if own else []))
    else:
        ledgers = tuple(opened) or (fitted,)
    return Call(what, interrupted, epsilon, ledgers)


def warn_pending(record: PrivacyRecord, what: str) -> None:
    """Warn (PrivacyLeakWarning) when interrupted calls precede a new fit of the object.

    Their loss is incurred; a retry on the same rows adds its ε to theirs, beyond the claim
    of the model it makes (docs/privacy.md §3).
    """
    pending = record.pending()
    if pending:
        spent = math.fsum(c.epsilon for c in pending)
        calls, they = (("call of this object was", "it") if len(pending) == 1
                       else (f"{len(pending)} calls of this object were", "they"))
        warnings.warn(
            f"{what}: the last {calls} interrupted after spending ε = "
            f"{spent:.6g} on the rows {they} read (privacy_record); if this call reads the same "
            f"rows, their loss adds up: {spent:.6g} + this call's ε, beyond the ε its model "
            "claims",
            PrivacyLeakWarning,
            stacklevel=4,
        )


def keep_discarded(
    exc: BaseException, what: str, opened: list[Ledger], ledger: Ledger | None, start: int
) -> None:
    """Record the queries of a discarded fitting path in ``ledger`` and on ``exc``.

    ``opened``: the ledgers of the tables the path made; ``ledger``: the fitted model's
    (entries from ``start`` on were charged by the path) or None.
    """
    own = [] if ledger is None else ledger.entries[start:]
    queries = own + [e for lg in opened for e in lg.entries if e.mechanism != PRIOR_MECHANISM]
    if not queries:
        return
    if ledger is not None:
        ledger.record_discarded(what.rsplit(".", 1)[-1], start, opened)
        where = "in the estimator's ledger_ (labelled 'interrupted'; the model is as before)"
    else:
        where = "in this exception's dpviz_ledgers (the estimator is as before, or unfitted)"
    exc.dpviz_ledgers = [  # type: ignore[attr-defined]
        *getattr(exc, "dpviz_ledgers", []), *opened, *([ledger] if own else [])
    ]
    exc.add_note(
        f"dpviz: {what} stopped after {len(queries)} private queries (at most ε = "
        f"{sum(e.epsilon for e in queries):.6g}) whose release was discarded; "
        f"their privacy cost was incurred and is recorded {where}"
    )
