"""The comparison of every learner over repeated random splits, on a grid of ε and sizes n.

FS (KDD 2010, §1, Fig. 2): accuracy, privacy ε and data size n trade off. Each repeat draws
its own test rows and fits every learner on the same ``n`` training rows (paired; seeds:
docs/privacy.md §8.3); :func:`summary` gives each point's mean with a 95 % interval.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz.data import catalogue
from dpviz.data.synthetic import fi_synth
from dpviz.data.uci import Dataset, load
from dpviz.errors import InvalidParameterError
from dpviz.experiments.registry import (
    ALGORITHMS,
    PRIVATE,
    RECENT,
    REFERENCES,
    TODAY,
    applicable,
    make_estimator,
    registered,
)
from dpviz.experiments.runner import cache, curve, holdout_accuracy, holdout_split, remember
from dpviz.experiments.semi_supervised import METHODS, SemiSupervisedArm
from dpviz.validation import check_epsilon, check_int

#: Data sets the comparison knows: the UCI sets of the papers and FI's synthetic SynthA-G.
DATASETS = catalogue.ids("uci", "fi-synth")

#: ε grid of the comparison (a 1-2-5 series: evenly spaced on a log axis).
EPSILONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)

#: Training sizes n (each data set keeps those its training part can supply).
SIZES = (100, 300, 1000, 3000, 10000)

#: Test rows held out in each run (at most a quarter of the rows).
TEST_ROWS = 1000


# ---------------------------------------------------------------------------------- data
@remember()
def load_dataset(name: str) -> Dataset:
    """A data set of :data:`DATASETS` (``synth-a``..``synth-g``: FI's SynthA-G), loaded once."""
    key = str(name).strip().lower()
    if key not in DATASETS:
        raise InvalidParameterError(f"dataset must be one of {list(DATASETS)}, got {name!r}")
    if key.startswith("synth-"):
        return fi_synth(key[-1].upper(), random_state=0)
    return load(key)


def n_test_rows(data: Dataset) -> int:
    """Rows held out for testing: :data:`TEST_ROWS`, or a quarter of the rows if fewer."""
    return int(min(TEST_ROWS, data.n_rows // 4))


def _sizes(data: Dataset, sizes: Sequence[int]) -> list[int]:
    """The sizes the training part can supply (at least its whole size)."""
    pool = data.n_rows - n_test_rows(data)
    kept = sorted({check_int(n, "sizes", minimum=10) for n in sizes if n <= pool})
    return kept or [pool]


def nearest(value: float, options: Sequence[float]) -> float:
    """The option closest to ``value`` on a log scale."""
    options = np.asarray(sorted(options), dtype=float)
    return float(options[np.argmin(np.abs(np.log(options) - math.log(value)))])


# ---------------------------------------------------------------------------------- runs
def _evaluate(data: Dataset, algorithm: str, n: int, epsilons: list[float], repeats: int,
              seed: int) -> pd.DataFrame:
    """The runner's :func:`curve` of one (algorithm, n) over ``repeats`` random splits.

    Run ``r`` holds out its own test rows (:func:`holdout_split` by ``seed + r``) and fits on
    ``n`` of the remaining rows drawn by ``seed + r`` alone: every learner sees the same split
    and training rows in run ``r`` (paired), and the runs are independent repetitions.
    """
    def split(run: int) -> tuple:
        X_train, X_test, y_train, y_test = _split(data, seed + run)
        size = min(n, len(X_train))  # public: the protocol's n and the documented rows
        rows = np.random.default_rng([seed + run, 7]).choice(len(X_train), size=size,
                                                             replace=False)
        return X_train.iloc[rows], y_train.iloc[rows], X_test, y_test.to_numpy()

    def accuracy(eps: float, run: int, rows: tuple) -> float:
        X, y, X_test, truth = rows
        model = make_estimator(algorithm, eps, data, seed + run, n_train=len(X))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. sklearn's one-hot "unknown categories"
            model.fit(X, y)
            return float(np.mean(model.predict(X_test) == truth))

    def evaluate(run: int, epsilons: list[float]) -> list[list[dict]]:
        rows = split(run)
        return [[{"algorithm": algorithm, "epsilon": eps, "n": n, "repeat": run,
                  "accuracy": accuracy(eps, run, rows)}] for eps in epsilons]

    return curve(evaluate, epsilons, repeats)


@remember(maxsize=8)  # one (algorithm, n)'s runs: Adult's splits are large
def _split(data: Dataset, seed: int) -> tuple:
    """:func:`holdout_split` of ``data`` by ``seed``, :func:`n_test_rows` held out (kept)."""
    return holdout_split(data, n_test_rows(data), seed)


def _references(references: bool | Sequence[str]) -> list[str]:
    """The references a comparison runs: ``True`` the built-in ones, or those named."""
    if references is True:
        return [r for r in REFERENCES if r not in registered()]
    chosen = [] if references is False else [references] if isinstance(
        references, str) else list(references)
    for name in chosen:
        if name not in REFERENCES:
            raise InvalidParameterError(
                f"unknown reference {name!r}; known: {list(REFERENCES)}")
    return chosen


def _jobs(
    datasets: Sequence[str], algorithms: Sequence[str], epsilons: Sequence[float],
    sizes: Sequence[int], references: bool | Sequence[str],
) -> list[tuple[Dataset, str, int, list[float]]]:
    """Every (data set, algorithm, n, εs) of the comparison, ε = ∞ and the references included."""
    eps = [check_epsilon(e, "epsilons") for e in epsilons]
    if any(math.isinf(e) for e in eps):
        raise InvalidParameterError("epsilons must be finite (ε = ∞ is run for every algorithm)")
    for name in algorithms:
        if name not in ALGORITHMS and name not in TODAY:
            raise InvalidParameterError(
                f"unknown algorithm {name!r}; known: {[*ALGORITHMS, *TODAY]}")
    jobs = []
    for name in datasets:
        data = load_dataset(name)
        algs = [a for a in algorithms if applicable(a, data)]
        for n in _sizes(data, sizes):
            jobs += [(data, a, n, [*eps, math.inf]) for a in algs]
            jobs += [(data, r, n, [math.inf]) for r in _references(references)]
    return jobs


@cache
def compare(
    datasets: Sequence[str] = ("nursery",), algorithms: Sequence[str] = PRIVATE,
    epsilons: Sequence[float] = EPSILONS, sizes: Sequence[int] = SIZES, repeats: int = 3, *,
    references: bool = True, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """Hold-out accuracy of every algorithm at every (ε, n), with the non-private references.

    Repeat ``r`` holds out its own test rows and draws ``n`` training rows from the rest, both
    by ``seed + r``, and fits with seed ``seed + r`` (:func:`_evaluate`); private algorithms
    (the papers' and :data:`~dpviz.experiments.registry.TODAY`'s) also run at ε = ∞
    (``private`` False there and for the references). ``references``: ``True`` the built-in
    non-private references, ``False`` none, or the names of those to run.
    """
    repeats = check_int(repeats, "repeats", minimum=1)
    jobs = _jobs(datasets, algorithms, epsilons, sizes, references)
    if not jobs:
        raise InvalidParameterError("nothing to compare: no algorithm or reference applies")
    frames = []
    for data, algorithm, n, eps in tqdm(jobs, disable=not progress, desc="compare", leave=False):
        frames.append(_evaluate(data, algorithm, n, eps, repeats, seed).assign(dataset=data.name))
    out = pd.concat(frames, ignore_index=True)
    out["private"] = out["algorithm"].isin([*ALGORITHMS, *TODAY]) & np.isfinite(out["epsilon"])
    columns = ["dataset", "algorithm", "private", "epsilon", "n", "repeat", "accuracy"]
    return out[columns]


def compare_today(
    dataset: str = "nursery", epsilons: Sequence[float] = EPSILONS,
    sizes: Sequence[int] = SIZES, repeats: int = 3, *, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """Today's built-in reference points on ``dataset``: :func:`compare` of :data:`RECENT`.

    The same test rows, training rows and seeds as :func:`compare` with the same arguments, so
    its rows pair with the papers' learners'; a learner the domain rules out is left out.
    """
    return compare((dataset,), RECENT, epsilons, sizes, repeats, references=False, seed=seed,
                   progress=progress)


#: The confidence of :func:`summary`'s interval of the mean.
CONFIDENCE = 0.95


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, sd, a 95 % interval of the mean and runs per (dataset, algorithm, ε, n).

    ``low``, ``high``: mean ∓ t·sd/√k, Student's t at ``k − 1`` degrees of freedom for the
    ``k`` runs that have an accuracy (NaN skipped; NaN with fewer than two runs). The runs are
    independent repeated splits (:func:`compare`), so the interval is over splits and seeds.
    """
    keys = ["dataset", "algorithm", "private", "epsilon", "n"]
    grouped = frame.groupby(keys, sort=False)["accuracy"]
    out = grouped.agg(mean="mean", sd="std", counted="count", runs="size")
    counted = out.pop("counted").to_numpy()
    critical = {int(k): t_critical(int(k) - 1) for k in np.unique(counted) if k > 1}
    t = np.array([critical.get(int(k), math.nan) for k in counted])
    half = t * out["sd"].to_numpy() / np.sqrt(np.maximum(counted, 1))
    out.insert(2, "low", out["mean"] - half)
    out.insert(3, "high", out["mean"] + half)
    return out.reset_index()


def _within(t: float, df: int) -> float:
    """P(|T| < t) for Student's T with ``df`` (integer) degrees of freedom, in closed form.

    Student's finite series in θ = atan(t/√df) (Abramowitz & Stegun 26.7.3-4).
    """
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        return s * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = math.cos(theta)
    for k in range(3, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return 2 / math.pi * (theta + s * total)


def t_critical(df: int, confidence: float = CONFIDENCE) -> float:
    """The t with P(|T| < t) = ``confidence`` at ``df`` degrees of freedom (bisection).

    scipy's ``t.ppf((1 + confidence) / 2, df)`` to 1e-13, without importing scipy (the
    explorer's first chart).
    """
    df = check_int(df, "df", minimum=1)
    low, high = 0.0, 1.0
    while _within(high, df) < confidence:
        high *= 2
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if _within(middle, df) < confidence else (low, middle)
    return (low + high) / 2


def reference_accuracy(frame: pd.DataFrame, dataset: str, n: int) -> pd.DataFrame:
    """Mean accuracy of each non-private reference at (``dataset``, ``n``)."""
    refs = frame[
        (frame["dataset"] == dataset) & (frame["n"] == n) & frame["algorithm"].isin(REFERENCES)
    ]
    return refs.groupby("algorithm", sort=False)["accuracy"].mean().rename("accuracy").reset_index()


# ---------------------------------------------------------------------------------- RDT#
RDT_SHARP_METHODS = tuple(METHODS.values())


@cache
def rdt_sharp_comparison(
    dataset: str = "nursery", *, n_labeled: int = 1000, n_public: int = 2000,
    epsilons: Sequence[float] = (0.2, 1.0), repeats: int = 2, n_secondary: int = 200, seed: int = 0,
) -> pd.DataFrame:
    """RDT# against Private-RDT when part of the training rows are public and unlabeled.

    Each repeat draws ``n_labeled`` private labeled and ``n_public`` public rows
    (:class:`~dpviz.experiments.semi_supervised.SemiSupervisedArm`).
    """
    data = load_dataset(dataset)
    n_labeled = check_int(n_labeled, "n_labeled", minimum=2)
    n_public = check_int(n_public, "n_public", minimum=1)
    pool = data.n_rows - n_test_rows(data)
    if n_labeled + n_public > pool:
        raise InvalidParameterError(
            f"n_labeled + n_public = {n_labeled + n_public} exceeds the {pool} training rows"
        )

    factory = functools.partial(SemiSupervisedArm, n_labeled=n_labeled, n_public=n_public,
                                n_secondary=n_secondary, domain=data.domain)
    frames = [
        holdout_accuracy(
            factory, data, repeats=check_int(repeats, "repeats", minimum=1),
            test_size=n_test_rows(data), seed=seed, method=method,
            epsilon=check_epsilon(eps, "epsilons"),
        )
        for eps in epsilons
        for method in RDT_SHARP_METHODS
    ]
    out = pd.concat(frames, ignore_index=True)
    return out.assign(dataset=data.name, n_labeled=n_labeled, n_public=n_public)
