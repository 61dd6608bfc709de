"""Faults leave nothing half-done: every fitting path is all or nothing.

Each path is interrupted at several points by a KeyboardInterrupt raised from an internal
function on its k-th call (and, once, by a real timer signal). After the interrupt a model
fitted before is exactly as it was (the same attributes, the same predictions), a model
never fitted is unfitted (NotFittedError), and every query answered before the interrupt
is still recorded: in the model's ``ledger_`` when the path was (re)fitting the model, and
always on the exception (``dpviz_ledgers``).
"""

from __future__ import annotations

import math
import signal
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from dpviz.data.uci import load
from dpviz.domain import Domain, Encoded
from dpviz.errors import BudgetExceededError, PrivacyLeakWarning
from dpviz.leaf_release import NoisyLeafCounts
from dpviz.privacy import PRIOR_MECHANISM, Ledger, PrivateTable
from dpviz.trees import forest as forest_module
from dpviz.trees import rdt as rdt_module
from dpviz.trees import rdt_sharp as rdt_sharp_module
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.random_tree import RandomTree
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

TARGETS = {
    "PrivateTable": PrivateTable,
    "RandomTree": RandomTree,
    "Domain": Domain,
    "NoisyLeafCounts": NoisyLeafCounts,
    "forest": forest_module,
    "rdt": rdt_module,
    "rdt_sharp": rdt_sharp_module,
}


@pytest.fixture(scope="module")
def data():
    """Two disjoint batches of Nursery (and of Adult, for C4.5's numeric attributes)."""
    nursery, adult = load("nursery"), load("adult")
    order = np.random.default_rng(0).permutation(len(nursery.X))
    a, b, pub, test = order[:1500], order[1500:2500], order[2500:4000], order[4000:5000]
    rows = np.random.default_rng(1).permutation(len(adult.X))[:1600]
    d = nursery.domain
    return SimpleNamespace(
        domain=d, X1=nursery.X.iloc[a], y1=nursery.y.iloc[a], X2=nursery.X.iloc[b],
        y2=nursery.y.iloc[b], public=nursery.X.iloc[pub], test=nursery.X.iloc[test],
        codes1=d.encode(nursery.X.iloc[a]), codes2=d.encode(nursery.X.iloc[b]),
        public_codes=d.encode(nursery.X.iloc[pub]),
        adult=adult.domain, A1=adult.X.iloc[rows[:800]], b1=adult.y.iloc[rows[:800]],
        A2=adult.X.iloc[rows[800:1400]], b2=adult.y.iloc[rows[800:1400]],
        A_test=adult.X.iloc[rows[1400:]],
    )


class Interrupter:
    """Raise KeyboardInterrupt on the k-th call of ``target.name``; spy on the charges.

    ``before`` holds ``(ledger, mechanism, charged)`` of every query recorded before the
    interrupt (``Ledger._record`` is called by every answered query).
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch, point: str) -> None:
        where, k = point.split("#")
        target, name = where.rsplit(".", 1)
        self.charges: list[tuple[Ledger, str, float]] = []
        self.before: list[tuple[Ledger, str, float]] | None = None
        original, calls = getattr(TARGETS[target], name), [0]

        def interrupted(*args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            if calls[0] == int(k):
                self.before = list(self.charges)
                raise KeyboardInterrupt
            return original(*args, **kwargs)

        record = Ledger._record

        def spy(ledger: Ledger, label: str, mechanism: str, epsilon: float, charged: float,
                path: tuple[str, ...]) -> None:
            self.charges.append((ledger, mechanism, charged))
            record(ledger, label, mechanism, epsilon, charged, path)

        monkeypatch.setattr(TARGETS[target], name, interrupted)
        monkeypatch.setattr(Ledger, "_record", spy)


@dataclass
class Path:
    """A fitting path: the estimator, how to fit it before (or not), and the call."""

    make: Callable[[Any], Any]
    call: Callable[[Any, Any], Any]
    prefit: Callable[[Any, Any], Any] | None = None
    on_model: bool = True  # the path refits the model (else it makes new models)
    points: list[str] = field(default_factory=list)


def _rdt(d):
    return PrivateRDTClassifier(epsilon=1.0, n_trees=3, domain=d.domain, random_state=0)


def _forest(d, disjoint=True):
    return DPRandomForestClassifier(epsilon=1.0, n_trees=6, max_depth=3, disjoint=disjoint,
                                    domain=d.domain, random_state=0)


def _sharp(d):
    return RDTSharpClassifier(epsilon=1.0, n_primary=3, n_secondary=4, max_depth=3,
                              domain=d.domain, random_state=0)


def _update(method):
    def call(m, d):
        return m.update(d.X2, d.y2, method=method, X_previous=d.X1, y_previous=d.y1)

    return call


GENERIC = ["PrivateTable._charge#1", "PrivateTable._charge#2", "PrivateTable._read#2"]
RDT_FIT = [*GENERIC, "Domain.encode#1", "PrivateTable.noisy_leaf_counts#3",
           "rdt.route_leaves#1", "PrivateTable.close#1"]
RDT_FIT_ENCODED = [p for p in RDT_FIT if not p.startswith("Domain")]
FOREST_FIT = ["PrivateTable._charge#1", "PrivateTable._read#1", "forest.forest_leaves#1",
              "PrivateTable.close#1"]
SHARP_FIT = [*GENERIC, "PrivateTable.noisy_leaf_counts#3", "rdt_sharp.classify#1",
             "rdt_sharp._exact_release#2"]
FS_FIT = [*GENERIC, "PrivateTable._charge#5", "PrivateTable.partition#1"]


def _fit1(m, d):
    return m.fit(d.X1, d.y1)


def _fit2(m, d):
    return m.fit(d.X2, d.y2)


def _enc1(m, d):
    return m.fit(Encoded(d.codes1, d.domain), d.y1)


def _enc2(m, d):
    return m.fit(Encoded(d.codes2, d.domain), d.y2)


def _sharp_fit(m, d):
    return m.fit(d.X2, d.y2, d.public)


def _sharp_enc(m, d):
    return m.fit(Encoded(d.codes2, d.domain), d.y2, Encoded(d.public_codes, d.domain))


def _fs(cls, **kw):
    def make(d):
        if cls is DiffPC45Classifier:  # ε = 5: the root splits (on 800 rows), on split points
            return cls(epsilon=5.0, max_depth=2, domain=d.adult, random_state=0, **kw)
        return cls(epsilon=1.0, max_depth=2, domain=d.domain, random_state=0, **kw)

    return make


def _fs_fit(m, d):
    return m.fit(*((d.A2, d.b2) if isinstance(m, DiffPC45Classifier) else (d.X2, d.y2)))


def _fs_prefit(m, d):
    return m.fit(*((d.A1, d.b1) if isinstance(m, DiffPC45Classifier) else (d.X1, d.y1)))


PATHS = {
    "rdt.fit (first)": Path(_rdt, _fit2, points=RDT_FIT),
    "rdt.fit (refit)": Path(_rdt, _fit2, _fit1, points=RDT_FIT),
    "rdt.fit encoded (first)": Path(_rdt, _enc2, points=RDT_FIT_ENCODED),
    "rdt.fit encoded (refit)": Path(_rdt, _enc2, _enc1, points=RDT_FIT_ENCODED),
    "rdt.update jpw": Path(_rdt, _update("jpw"), _fit1, points=[
        *GENERIC, "PrivateTable.append#1", "NoisyLeafCounts.add#2", "Domain.encode#1"]),
    "rdt.update recount": Path(_rdt, _update("recount"), _fit1, points=[
        *GENERIC, "PrivateTable._charge#4", "PrivateTable.close#1"]),
    "rdt.update rebuild": Path(_rdt, _update("rebuild"), _fit1, points=[
        *GENERIC, "RandomTree.__init__#1", "PrivateTable.noisy_leaf_counts#3"]),
    "random tree.fit (first)": Path(
        lambda d: RandomDecisionTreeClassifier(n_trees=3, domain=d.domain, random_state=0),
        _fit2, points=["RandomTree.route#1", "RandomTree.route#3"]),
    "random tree.fit (refit)": Path(
        lambda d: RandomDecisionTreeClassifier(n_trees=3, domain=d.domain, random_state=0),
        _fit2, _fit1, points=["Domain.encode#1", "RandomTree.route#2"]),
    "forest.fit (first)": Path(_forest, _fit2, points=FOREST_FIT),
    "forest.fit (refit)": Path(_forest, _fit2, _fit1, points=FOREST_FIT),
    "forest.fit (refit, shared rows)": Path(
        lambda d: _forest(d, disjoint=False), _fit2, _fit1,
        points=["PrivateTable.noisy_leaf_labels#3", "PrivateTable._read#5"]),
    "forest.fit encoded (refit)": Path(_forest, _enc2, _enc1, points=FOREST_FIT),
    "rdt#.fit (first)": Path(_sharp, _sharp_fit, points=SHARP_FIT),
    "rdt#.fit (refit)": Path(_sharp, _sharp_fit, lambda m, d: m.fit(d.X1, d.y1, d.public),
                             points=SHARP_FIT),
    "rdt#.fit encoded (refit)": Path(
        _sharp, _sharp_enc,
        lambda m, d: m.fit(Encoded(d.codes1, d.domain), d.y1, Encoded(d.public_codes, d.domain)),
        points=SHARP_FIT),
    "rdt#.refit": Path(
        _sharp, lambda m, d: m.refit(d.X1, d.y1, epsilon=0.5),
        lambda m, d: m.fit(d.X1, d.y1, d.public), on_model=False, points=SHARP_FIT),
    **{
        f"{cls.__name__}.fit ({state})": Path(_fs(cls), _fs_fit, prefit, points=FS_FIT)
        for cls in (DiffPID3Classifier, DiffPC45Classifier, SuLQID3Classifier)
        for state, prefit in (("first", None), ("refit", _fs_prefit))
    },
}

CASES = [(name, point) for name, path in PATHS.items() for point in path.points]


def _recorded(ledgers: list[Ledger]) -> float:
    return sum(e.charged for lg in ledgers for e in lg.entries if e.mechanism != PRIOR_MECHANISM)


@pytest.mark.parametrize(("name", "point"), CASES, ids=[f"{n}: {p}" for n, p in CASES])
def test_an_interrupted_path_leaves_the_model_as_it_was(data, monkeypatch, name, point):
    path = PATHS[name]
    model = path.make(data)
    if path.prefit is not None:  # then refit with another seed (a finished refit differs)
        path.prefit(model, data).set_params(random_state=1)
    attributes = dict(vars(model))
    calls = list(model.privacy_record.calls)
    ledger = getattr(model, "ledger_", None)
    spent, n_entries = (ledger.spent, len(ledger.entries)) if ledger is not None else (0.0, 0)
    test = data.A_test if isinstance(model, DiffPC45Classifier) else data.test
    proba = model.predict_proba(test) if path.prefit is not None else None
    spy = Interrupter(monkeypatch, point)
    with pytest.raises(KeyboardInterrupt) as info:
        path.call(model, data)
    # exactly as before: the same attributes, holding the same objects (a model never fitted
    # may gain one: the record of what the call spent)
    assert vars(model).keys() - {"_privacy_record"} == attributes.keys() - {"_privacy_record"}
    assert all(vars(model)[k] is v for k, v in attributes.items())
    if proba is None:
        with pytest.raises(NotFittedError):
            check_is_fitted(model)
        with pytest.raises(NotFittedError):
            model.predict(test)
    else:
        np.testing.assert_array_equal(model.predict_proba(test), proba)
    charged = spy.before
    assert charged is not None
    new = [c for lg, mechanism, c in charged if mechanism != PRIOR_MECHANISM]
    exc = info.value
    if not new:  # nothing was answered: nothing to record
        assert not getattr(exc, "__notes__", None)
        assert ledger is None or (ledger.spent, len(ledger.entries)) == (spent, n_entries)
        assert model.privacy_record.calls == calls
        return
    assert any(note.startswith("dpviz: ") for note in exc.__notes__)
    assert _recorded(exc.dpviz_ledgers) >= sum(new) - 1e-12
    # the object's record keeps the call (and those of the models it finished before)
    record = model.privacy_record
    added = record.calls[len(calls):]
    assert record.calls[:len(calls)] == calls
    assert math.fsum(c.epsilon for c in added) >= sum(new) - 1e-12
    if path.on_model:  # one call, interrupted
        assert len(added) == 1 and added[0].interrupted
    if ledger is not None and path.on_model:  # the model's ledger holds every charge too
        assert ledger.spent >= spent + sum(new) - 1e-12
        interrupted = [e for e in ledger.entries if e.label.startswith("interrupted ")]
        assert len(interrupted) == len(new)
    elif ledger is not None:  # a path that makes new models leaves this one's ledger alone
        assert (ledger.spent, len(ledger.entries)) == (spent, n_entries)


def test_a_batch_update_after_an_interrupted_refit_is_still_answered(data, monkeypatch):
    """The interrupted refit's record puts the spend over the total; a parallel batch adds 0."""
    model = _rdt(data).fit(data.X1, data.y1)
    Interrupter(monkeypatch, "PrivateTable.noisy_leaf_counts#3")
    with pytest.raises(KeyboardInterrupt):
        model.set_params(random_state=1).fit(data.X1, data.y1)
    assert model.ledger_.spent == pytest.approx(1.0 + 2 / 3)
    model.update(data.X2, data.y2)  # JPW: the new batch is read by its own releases only
    assert model.ledger_.spent == pytest.approx(1.0 + 2 / 3)
    assert model.ledger_.to_frame()["path"].tolist()[-3:] == ["batch 2"] * 3


def test_an_interrupted_batch_is_charged_in_full_and_a_retry_must_fit_with_it(data, monkeypatch):
    """Two of three batch releases answered (2/3): in parallel they would add 0, but a retry
    reads D2 again, so they are charged in full, and a retry is answered only if its ε and
    theirs fit in the budget (1/3 does, 1 does not: refused before any row is read; the old
    code answered it, and five interrupted updates and a sixth reached 4.33 of 1)."""
    model = _rdt(data).fit(data.X1, data.y1)
    spy = Interrupter(monkeypatch, "PrivateTable.noisy_leaf_counts#3")
    with pytest.raises(KeyboardInterrupt):
        model.update(data.X2, data.y2)
    frame = model.ledger_.to_frame()
    assert model.ledger_.spent == pytest.approx(1.0 + 2 / 3)
    assert frame["charged"].sum() == pytest.approx(model.ledger_.spent)
    assert frame["label"].str.startswith("interrupted update: ").sum() == 2
    attributes, read = dict(vars(model)), len(spy.charges)
    monkeypatch.setattr(PrivateTable, "append", None)  # a retry must not get as far as D2's table
    with pytest.raises(BudgetExceededError, match=r"0\.666667 \+ 1 is more than .* Pass "
                       r"epsilon <= 0\.333333 .*no data was read"):
        model.update(data.X2, data.y2)  # at ε = 1: D2's rows would carry 5/3
    assert vars(model) == attributes and len(spy.charges) == read
    assert model.ledger_.interrupted("update") == pytest.approx(2 / 3)
    assert repr(model.ledger_).endswith(", 5 queries, 2 of them interrupted)")
    monkeypatch.undo()
    model.set_params(epsilon=1 / 3).update(data.X2, data.y2)  # 2/3 + 1/3 fits
    assert model.ledger_.spent == pytest.approx(1.0 + 2 / 3)  # a parallel batch adds 0
    assert model.ledger_.to_frame()["path"].tolist()[-3:] == ["batch 3"] * 3
    with pytest.raises(BudgetExceededError):
        model.set_params(epsilon=0.5).update(data.X2, data.y2)


def test_the_record_keeps_every_call_across_refits(data, monkeypatch):
    """Three refits interrupted after two of three trees, then one that finishes: ledger_ is
    the new model's (1 of 1), the object's record keeps all five calls and ε = 4 in all; each
    retry after an interrupt warns. The old code forgot the interrupted calls at the refit."""
    model = _rdt(data).fit(data.X1, data.y1)
    release, calls = PrivateTable.noisy_leaf_counts, [0]

    def third_stops(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] % 3 == 0:
            raise KeyboardInterrupt
        return release(*args, **kwargs)

    monkeypatch.setattr(PrivateTable, "noisy_leaf_counts", third_stops)
    for seed in (1, 2, 3):
        with pytest.raises(KeyboardInterrupt), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.set_params(random_state=seed).fit(data.X1, data.y1)
        warned = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
        assert len(warned) == (seed > 1)
    assert model.ledger_.spent == pytest.approx(3.0)  # the first model's, with the three
    monkeypatch.undo()
    with pytest.warns(PrivacyLeakWarning, match=r"last 3 calls of this object were interrupted "
                      r"after spending ε = 2 on the rows they read"):
        model.set_params(random_state=4).fit(data.X1, data.y1)
    assert repr(model.ledger_) == "Ledger(spent=1 of 1, 3 queries)"
    record = model.privacy_record
    assert repr(record) == "PrivacyRecord(spent=4 by 5 calls, 3 of them interrupted)"
    frame = record.to_frame()
    assert frame["status"].tolist() == ["finished", *["interrupted"] * 3, "finished"]
    assert frame["epsilon"].tolist() == pytest.approx([1, 2 / 3, 2 / 3, 2 / 3, 1])
    assert len(record.ledgers) == 5 and record.ledgers[-1] is model.ledger_
    assert [lg.spent for lg in record.ledgers[1:4]] == pytest.approx([2 / 3] * 3)  # as opened
    model.update(data.X2, data.y2)  # a finished parallel batch: recorded, adds 0
    assert record.calls[-1].epsilon == 0 and record.spent == pytest.approx(4.0)
    assert clone(model).privacy_record.calls == []  # per object: a clone starts empty


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
@pytest.mark.filterwarnings("ignore::dpviz.errors.PrivacyLeakWarning")  # refits after interrupts
def test_a_timer_interrupt_leaves_the_old_model_or_the_new_never_a_mix():
    """A real SIGALRM raising KeyboardInterrupt at several points of a ~0.5 s refit."""
    adult = load("adult")
    codes = Encoded(np.tile(adult.domain.encode(adult.X), (2, 1)), adult.domain)
    labels = np.tile(np.asarray(adult.y), 2)
    test = Encoded(codes.codes[:2000], adult.domain)
    model = PrivateRDTClassifier(n_trees=10, domain=adult.domain, random_state=0)
    start = time.perf_counter()
    model.fit(codes, labels)
    duration = time.perf_counter() - start

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    added = []  # per delay: ε added to the old ledger (NaN: the refit finished)
    try:
        for seed, fraction in enumerate((0.02, 0.3, 0.6, 0.9), start=1):
            model.set_params(random_state=seed)
            attributes, ledger = dict(vars(model)), model.ledger_
            spent, before = ledger.spent, model.predict(test)
            try:
                signal.setitimer(signal.ITIMER_REAL, fraction * duration)
                model.fit(codes, labels)
                signal.setitimer(signal.ITIMER_REAL, 0)
            except KeyboardInterrupt:
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if model.ledger_ is ledger:  # interrupted: the old model, exactly
                assert vars(model).keys() == attributes.keys()
                assert all(vars(model)[k] is v for k, v in attributes.items())
                np.testing.assert_array_equal(model.predict(test), before)
                assert ledger.spent >= spent
                added.append(ledger.spent - spent)
            else:  # the refit finished: all of it is the new model
                fresh = clone(model).fit(codes, labels)
                np.testing.assert_array_equal(model.predict(test), fresh.predict(test))
                added.append(math.nan)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert not math.isnan(added[0])  # 2 % into the refit: interrupted
    assert any(a > 0 for a in added)  # later: after some releases, which the ledger keeps
