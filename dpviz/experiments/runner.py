"""Experiment runners: cross-validated accuracy over a grid of settings, as tidy DataFrames.

Every reproduction in dpviz is a call to :func:`sweep`: for each setting of a
grid (ε, depth, number of trees, ...), fit a fresh estimator on each training
fold of a (repeated) stratified k-fold split and record the test accuracy —
one row per (setting, repeat, fold). :func:`summarize` turns that into means,
standard deviations and maxima. Results can be cached on disk (joblib) so that
re-running a notebook is quick, and long sweeps show a tqdm progress bar.

Seeds: fold ``f`` of repeat ``r`` uses split seed ``seed + r`` and estimator
seed ``seed + 1000·r + f`` for every setting, so settings are compared on the
same splits (paired), and the same call always gives the same table.

The outputs are evaluations, not releases to publish together: the fits of one fold
at different settings (ε, depth, number of trees, ...) share their seed on purpose
(common random numbers make the curves smoother), so they may share trees and noise
draws, and the sequential-composition bound (their ε added up) does not cover two of
them side by side. The same holds for :func:`holdout_accuracy`, whose repeat ``r`` uses
seed ``seed + r`` at every setting. To publish several models, fit each with its own
``random_state``.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import itertools
import os
import tempfile
import warnings
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from joblib import Memory
from sklearn.model_selection import StratifiedKFold
from tqdm.auto import tqdm

from dpviz import __version__
from dpviz.data.uci import Dataset
from dpviz.errors import CacheUnavailableWarning
from dpviz.validation import check_int

__all__ = ["cache", "cache_bypassed", "holdout_accuracy", "holdout_split", "summarize", "sweep"]

EstimatorFactory = Callable[..., Any]
_BYPASSED = contextvars.ContextVar("dpviz_cache_bypassed", default=False)


def cache_dir() -> Path:
    """Folder of the on-disk result cache: ``$DPVIZ_CACHE`` or ``.dpviz_cache`` in the project."""
    return Path(
        os.environ.get("DPVIZ_CACHE", Path(__file__).resolve().parents[2] / ".dpviz_cache")
    )


_WRITABLE: dict[Path, bool] = {}


def _writable(folder: Path) -> bool:
    """Whether ``folder`` (created if missing) takes files; warn once per folder if not.

    The answer is remembered for the process, so an unwritable ``$DPVIZ_CACHE`` gives
    one :class:`~dpviz.errors.CacheUnavailableWarning`, not one per cached call.
    """
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


def cache(function: Callable[..., pd.DataFrame]) -> Callable[..., pd.DataFrame]:
    """Memoize a reproduction function on disk with :class:`joblib.Memory` (keyed by arguments).

    The cache lives in :func:`cache_dir`, in a sub-folder per dpviz version; set
    ``DPVIZ_CACHE=off`` to bypass it (the unit tests do), as :func:`cache_bypassed` does
    for a recomputation. A folder that cannot be written (read-only, under a regular
    file, under ``/proc``) is bypassed too, with one
    :class:`~dpviz.errors.CacheUnavailableWarning` per folder and process. joblib keys on
    the function's own code and arguments only: after changing an algorithm it calls,
    clear the folder (``make clean``). The ``progress`` flag is not part of the key.

    Entries carry no digest, unlike the shipped results: the folder is the user's own,
    written only by their own runs, so whoever can alter a pickle there can alter the code
    that reads it, or a digest kept beside it. Deleting the folder (``make clean``) resets
    it. Nothing read from it is labelled a shipped result: ``shipped.result`` reads only
    the shipped files, and recomputes (and ``make results`` saves) inside
    :func:`cache_bypassed`.
    """
    ignore = ["progress"] if "progress" in inspect.signature(function).parameters else []
    memoized: dict[Path, Callable[..., pd.DataFrame]] = {}

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> pd.DataFrame:
        if _BYPASSED.get() or os.environ.get("DPVIZ_CACHE", "").lower() == "off":
            return function(*args, **kwargs)
        folder = cache_dir() / __version__
        if not _writable(folder):
            return function(*args, **kwargs)
        if folder not in memoized:
            memoized[folder] = Memory(folder, verbose=0).cache(function, ignore=ignore)
        return memoized[folder](*args, **kwargs)

    return wrapper


@contextlib.contextmanager
def cache_bypassed() -> Iterator[None]:
    """Within the block every :func:`cache`-d function runs: no cache read, no cache write.

    :func:`dpviz.experiments.shipped.result` recomputes inside it, so a recomputation (and a
    file ``make results`` ships) never comes from the cache, even through a cached function
    that the reproduction calls.
    """
    token = _BYPASSED.set(True)
    try:
        yield
    finally:
        _BYPASSED.reset(token)


def sweep(
    make_estimator: EstimatorFactory,
    dataset: Dataset,
    grid: Mapping[str, Sequence[Any]],
    *,
    n_folds: int = 10,
    n_repeats: int = 1,
    seed: int = 0,
    progress: bool = False,
    description: str | None = None,
) -> pd.DataFrame:
    """Cross-validated test accuracy for every combination of ``grid``.

    Parameters
    ----------
    make_estimator : callable
        ``make_estimator(random_state=..., **setting)`` returns an unfitted estimator.
    dataset : Dataset
        Rows, labels and public domain (the factory should pass ``dataset.domain``).
    grid : mapping of str to sequence
        Parameter values; every combination is run.
    n_folds, n_repeats : int
        Repeated stratified k-fold cross-validation (FI: 10 × 10; JPW: 10-fold).
    seed : int
        Base seed of the splits and the estimators.
    progress : bool
        Show a tqdm progress bar.
    description : str, optional
        Progress bar label.

    Returns
    -------
    DataFrame
        One row per (setting, repeat, fold): the grid's columns, ``repeat``,
        ``fold``, ``accuracy`` and ``dataset``.
    """
    n_folds = check_int(n_folds, "n_folds", minimum=2)
    n_repeats = check_int(n_repeats, "n_repeats", minimum=1)
    names = list(grid)
    settings = [
        dict(zip(names, values, strict=True)) for values in itertools.product(*grid.values())
    ]
    X, y = dataset.X, dataset.y
    rows = []
    total = len(settings) * n_repeats * n_folds
    bar = tqdm(total=total, desc=description or dataset.name, disable=not progress, leave=False)
    for repeat in range(n_repeats):
        folds = StratifiedKFold(n_folds, shuffle=True, random_state=seed + repeat)
        with warnings.catch_warnings():
            # Nursery's class "recommend" has 2 rows: fewer than the folds, as in the papers.
            warnings.filterwarnings("ignore", "The least populated class", UserWarning)
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
    """Mean, standard deviation, maximum and count of ``accuracy`` per group.

    Runs are first averaged over folds (one accuracy per repeat, as the papers
    report "average and maximum over runs"), then summarized over repeats.
    """
    by = list(by)
    per_run = frame.groupby([*by, "repeat"], sort=False)["accuracy"].mean().reset_index()
    return (
        per_run.groupby(by, sort=False)["accuracy"]
        .agg(mean="mean", std="std", max="max", runs="size")
        .reset_index()
    )


def holdout_accuracy(
    make_estimator: EstimatorFactory,
    dataset: Dataset,
    *,
    repeats: int = 3,
    test_size: float = 0.25,
    seed: int = 0,
    **params: Any,
) -> pd.DataFrame:
    """Accuracy of ``repeats`` fits on one stratified train/test split (fast, for explorers).

    The split is fixed by ``seed`` and cached per data set (so moving a slider
    changes only the model); repeat ``r`` uses estimator seed ``seed + r`` (at every
    setting: evaluations, not releases to publish together).

    Returns
    -------
    DataFrame
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


_SPLITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def holdout_split(dataset: Dataset, test_size: float, seed: int) -> tuple:
    """A stratified train/test split ``(X_train, X_test, y_train, y_test)``, cached on the data set.

    The split :func:`holdout_accuracy` uses; explorers share it to stay paired with it.
    """
    from sklearn.model_selection import train_test_split

    cache_for = _SPLITS.setdefault(dataset, {})
    if (test_size, seed) not in cache_for:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "The least populated class", UserWarning)
            try:
                parts = train_test_split(
                    dataset.X, dataset.y, test_size=test_size, random_state=seed, stratify=dataset.y
                )
            except ValueError:  # a class too small to stratify (Nursery's "recommend")
                parts = train_test_split(
                    dataset.X, dataset.y, test_size=test_size, random_state=seed
                )
        cache_for[(test_size, seed)] = tuple(parts)
    return cache_for[(test_size, seed)]
