"""The one runner: cross-validated sweeps, hold-out fits, explorer curves and their caches.

A sweep's fold ``f`` of repeat ``r`` uses seed ``seed + 1000·r + f`` at every setting:
evaluations, not releases to publish together (docs/privacy.md §8.3).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import itertools
import os
import sys
import tempfile
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz import provenance
from dpviz.data.uci import Dataset, data_dir
from dpviz.errors import CacheUnavailableWarning
from dpviz.validation import check_int

if TYPE_CHECKING:
    from dpviz.experiments.fast import Located

EstimatorFactory = Callable[..., Any]
F = TypeVar("F", bound=Callable[..., Any])
_BYPASSED = contextvars.ContextVar("dpviz_cache_bypassed", default=False)
_PROJECT = Path(__file__).resolve().parents[2]
#: The cache's folder under ``$DPVIZ_CACHE``: entries hold a result and the record of what it ran.
CACHE_FORMAT = "recorded"
_STRATIFY_WARNING = "The least populated class"  # Nursery's "recommend" has 2 rows


# ---------------------------------------------------------------------------------- on disk
_WRITABLE: dict[Path, bool] = {}


def _writable(folder: Path) -> bool:
    """Whether ``folder`` (created if missing) takes files; warn once per folder if not."""
    if folder not in _WRITABLE:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as error:
            _WRITABLE[folder] = False
            setting = os.environ.get("DPVIZ_CACHE")
            where = f"DPVIZ_CACHE={setting}" if setting else f"the result cache {folder.parent}"
            warnings.warn(
                f"{where} is not writable ({error.strerror or error}): running without the "
                "cache (set DPVIZ_CACHE to a writable folder, or to off)",
                CacheUnavailableWarning,
                stacklevel=3,
            )
        else:
            _WRITABLE[folder] = True
    return _WRITABLE[folder]


def changes(record: provenance.Record) -> list[str]:
    """What differs now from a result's record (:func:`dpviz.provenance.changes`): [] if nothing.

    Data files are looked for where :func:`~dpviz.data.uci.data_dir` says; factories in the
    registry as it is now.
    """
    from dpviz.experiments.registry import FACTORIES

    return provenance.changes(record, data_folder=data_dir(), factories=FACTORIES)


class _NotRecordable(Exception):  # noqa: N818 (a result carried past joblib's store, not a fault)
    """A result whose computation ran code that cannot be recorded: returned, never stored."""

    def __init__(self, frame: Any) -> None:
        super().__init__("not recordable")
        self.frame = frame


def _recorded(function: Callable[..., Any]) -> Callable[..., tuple[Any, provenance.Record]]:
    """``function`` returning its result and the record of what it ran (what the cache stores).

    Raises :class:`_NotRecordable` (carrying the result) when that cannot be recorded.
    """
    @functools.wraps(function)
    def run_and_record(*args: Any, **kwargs: Any) -> tuple[Any, provenance.Record]:
        with provenance.recording() as watch:
            frame = function(*args, **kwargs)
        record = provenance.record(watch)
        if record is None:
            raise _NotRecordable(frame)
        return frame, record

    return run_and_record


def _read_or_run(memoized: Any, args: tuple, kwargs: dict) -> Any:
    """The cached result if what it ran is unchanged, else a fresh run that replaces it."""
    try:
        frame, record = memoized(*args, **kwargs)
        if changes(record):
            frame, record = memoized.call(*args, **kwargs)[0]
    except _NotRecordable as carried:
        return carried.frame
    provenance.replay(record)  # a recording around this call learns what the result ran
    return frame


def cache(function: Callable[..., pd.DataFrame]) -> Callable[..., pd.DataFrame]:
    """Memoize a reproduction on disk (:class:`joblib.Memory`), checked against its code.

    Each entry holds the result and the record of what it ran (:mod:`dpviz.provenance`: the
    digests of the modules it executed, without docstrings and comments, the data files it
    read, the library versions, the factories it called); a read whose record differs from
    the code, data and libraries now runs the function again and replaces the entry. A run
    that executed code that cannot be recorded (a notebook cell's) is not stored.
    The folder: ``$DPVIZ_CACHE`` or ``.dpviz_cache`` in the project. Bypassed under
    ``DPVIZ_CACHE=off``, :func:`cache_bypassed` or an unwritable folder (one warning).
    ``progress`` is not part of the key.
    """
    ignore = ["progress"] if "progress" in inspect.signature(function).parameters else []
    memoized: dict[Path, Callable[..., pd.DataFrame]] = {}

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> pd.DataFrame:
        if _BYPASSED.get() or os.environ.get("DPVIZ_CACHE", "").lower() == "off":
            return function(*args, **kwargs)
        folder = Path(os.environ.get("DPVIZ_CACHE", _PROJECT / ".dpviz_cache")) / CACHE_FORMAT
        if not _writable(folder):
            return function(*args, **kwargs)
        if folder not in memoized:
            from joblib import Memory  # a cached run's: not for reading a shipped result

            memoized[folder] = Memory(folder, verbose=0).cache(_recorded(function),
                                                               ignore=ignore)
        return _read_or_run(memoized[folder], args, kwargs)

    return wrapper


@contextlib.contextmanager
def cache_bypassed() -> Iterator[None]:
    """Within the block every :func:`cache`-d function runs: no cache read, no cache write."""
    token = _BYPASSED.set(True)
    try:
        yield
    finally:
        _BYPASSED.reset(token)


# ---------------------------------------------------------------------------------- in memory
#: The in-process cache: one bounded store (oldest out first) per kind of value.
_MEMORY: dict[str, OrderedDict] = {}
_LEARNERS = [0]  # the registry's GENERATION the remembered values were computed under


def _forget_if_learners_changed() -> None:
    """Empty the in-process cache once a learner was registered, replaced or removed."""
    registry = sys.modules.get("dpviz.experiments.registry")  # not imported: nothing registered
    generation = 0 if registry is None else registry.GENERATION
    if generation != _LEARNERS[0]:
        _MEMORY.clear()
        _LEARNERS[0] = generation


def recall(kind: str, key: Hashable, compute: Callable[[], Any], maxsize: int | None = None) -> Any:
    """``compute()``, remembered in memory under ``(kind, key)``; ``kind`` keeps ``maxsize``.

    Remembered with what it ran when a recording runs (:mod:`dpviz.provenance`), which is told
    it again at each later use (else a cached result's record would miss it).
    """
    _forget_if_learners_changed()
    store = _MEMORY.setdefault(kind, OrderedDict())
    if key in store and provenance.known(store[key][1]):
        store.move_to_end(key)
    else:
        with provenance.watched() as seen:
            _keep(store, key, (compute(), seen), maxsize)
    value, seen = store[key]
    provenance.replay(seen)
    return value


def _keep(store: OrderedDict, key: Hashable, entry: Any, maxsize: int | None) -> None:
    """Put ``entry`` last in ``store``, the oldest entries out beyond ``maxsize``."""
    store[key] = entry
    store.move_to_end(key)
    if maxsize is not None and len(store) > maxsize:
        store.popitem(last=False)


def remember(maxsize: int | None = None) -> Callable[[F], F]:
    """Decorator: :func:`recall` of the function's results, keyed by its arguments."""

    def decorate(function: F) -> F:
        kind = f"{function.__module__}.{function.__qualname__}"

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = (args, tuple(sorted(kwargs.items())))
            return recall(kind, key, lambda: function(*args, **kwargs), maxsize)

        return wrapper  # type: ignore[return-value]

    return decorate


def located(key: Hashable, model: Any, codes: np.ndarray) -> Located:
    """:func:`fast.locate` of ``codes``, remembered under ``key`` (what fixes the trees, not ε)."""
    from dpviz.experiments import fast  # the estimators: imported with the first fit

    return recall("located", key, lambda: fast.locate(model, codes), maxsize=16)


def curve(
    evaluate: Callable[[int, list[float]], list[list[dict]]], epsilons: Sequence[float],
    runs: int | Sequence[int], key: Hashable | None = None,
) -> pd.DataFrame:
    """An explorer's curve: the records of each (ε, run), ε first, then runs in order.

    ``evaluate(run, epsilons)`` returns, per ε, that run's records (dicts, the rows); ``runs``
    is an int (``range(runs)``) or the runs. With a ``key`` (what fixes the curve apart from ε
    and the run) each (run, ε) is remembered in memory and only the missing ε are evaluated.
    """
    eps = [float(e) for e in epsilons]
    runs = range(runs) if isinstance(runs, int) else runs
    _forget_if_learners_changed()
    store = _MEMORY.setdefault("curve", OrderedDict()) if key is not None else {}
    points: dict[tuple[int, float], list[dict]] = {}
    for run in runs:
        missing = [e for e in dict.fromkeys(eps)
                   if (key, run, e) not in store or not provenance.known(store[key, run, e][1])]
        with provenance.watched() as seen:
            evaluated = evaluate(run, missing) if missing else []
        for e, records in zip(missing, evaluated, strict=True):
            points[run, e] = records
            if key is not None:
                _keep(store, (key, run, e), (records, seen), maxsize=65536)
        for e in eps:
            if (run, e) not in points:
                points[run, e], earlier = store[key, run, e]
                provenance.replay(earlier)
    return pd.DataFrame([record for e in eps for run in runs for record in points[run, e]])


# ---------------------------------------------------------------------------------- sweeps
def sweep(
    make_estimator: EstimatorFactory, dataset: Dataset, grid: Mapping[str, Sequence[Any]], *,
    n_folds: int = 10, n_repeats: int = 1, seed: int = 0, progress: bool = False,
    description: str | None = None,
) -> pd.DataFrame:
    """Accuracy for every setting of ``grid``: one row per (setting, repeat, fold).

    ``make_estimator(random_state=..., **setting)``; ``n_repeats`` × stratified ``n_folds``-fold.
    """
    from sklearn.model_selection import StratifiedKFold  # half a second: only when a sweep runs

    n_folds = check_int(n_folds, "n_folds", minimum=2)
    n_repeats = check_int(n_repeats, "n_repeats", minimum=1)
    settings = [dict(zip(grid, v, strict=True)) for v in itertools.product(*grid.values())]
    X, y = dataset.X, dataset.y
    rows = []
    total = len(settings) * n_repeats * n_folds
    bar = tqdm(total=total, desc=description or dataset.name, disable=not progress, leave=False)
    for repeat in range(n_repeats):
        folds = StratifiedKFold(n_folds, shuffle=True, random_state=seed + repeat)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", _STRATIFY_WARNING, UserWarning)
            splits = list(folds.split(X, y))
        for fold, (train, test) in enumerate(splits):
            for setting in settings:
                estimator = make_estimator(random_state=seed + 1000 * repeat + fold, **setting)
                estimator.fit(X.iloc[train], y.iloc[train])
                accuracy = float(
                    np.mean(estimator.predict(X.iloc[test]) == y.iloc[test].to_numpy())
                )
                rows.append({**setting, "repeat": repeat, "fold": fold, "accuracy": accuracy})
                bar.update()
    bar.close()
    frame = pd.DataFrame(rows)
    frame["dataset"] = dataset.name
    return frame


def summarize(frame: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean, std, max and count of ``accuracy`` over repeats (each first averaged over folds)."""
    by = list(by)
    per_run = frame.groupby([*by, "repeat"], sort=False)["accuracy"].mean().reset_index()
    return (
        per_run.groupby(by, sort=False)["accuracy"]
        .agg(mean="mean", std="std", max="max", runs="size")
        .reset_index()
    )


def holdout_accuracy(
    make_estimator: EstimatorFactory, dataset: Dataset, *, repeats: int = 3,
    test_size: float = 0.25, seed: int = 0, **params: Any,
) -> pd.DataFrame:
    """Accuracy of ``repeats`` fits (seeds ``seed + r``) on :func:`holdout_split`.

    One row per repeat: the ``params``, ``repeat`` and ``accuracy``.
    """
    X_train, X_test, y_train, y_test = holdout_split(dataset, test_size, seed)
    truth = y_test.to_numpy()
    rows = []
    for r in range(check_int(repeats, "repeats", minimum=1)):
        model = make_estimator(random_state=seed + r, **params).fit(X_train, y_train)
        rows.append(
            {**params, "repeat": r, "accuracy": float(np.mean(model.predict(X_test) == truth))}
        )
    return pd.DataFrame(rows)


@remember(maxsize=16)
def encoded_split(dataset: Dataset, test_size: float, seed: int) -> tuple[np.ndarray, ...]:
    """:func:`holdout_split` encoded with the public domain: train codes and labels, test's."""
    X_train, X_test, y_train, y_test = holdout_split(dataset, test_size, seed)
    domain = dataset.domain
    return (domain.encode(X_train), domain.encode_labels(y_train), domain.encode(X_test),
            domain.encode_labels(y_test))


@remember(maxsize=32)
def holdout_split(dataset: Dataset, test_size: float, seed: int) -> tuple:
    """:func:`stratified_split` of the data set: ``(X_train, X_test, y_train, y_test)``."""
    return tuple(stratified_split(dataset.X, dataset.y, test_size, seed))


def stratified_split(X: Any, y: Any, test_size: float, seed: int) -> list:
    """``train_test_split`` stratified by ``y`` (unstratified when a class is too small)."""
    from sklearn.model_selection import train_test_split  # half a second: only when a split runs

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", _STRATIFY_WARNING, UserWarning)
        try:
            return train_test_split(X, y, test_size=test_size, random_state=seed, stratify=y)
        except ValueError:  # a class too small to stratify (Nursery's "recommend")
            return train_test_split(X, y, test_size=test_size, random_state=seed)
