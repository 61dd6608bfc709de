"""Notebook 07 (compare all): every algorithm of the workbook on the same data.

Friedman & Schuster (KDD 2010, §1 and Fig. 2) frame private data mining as a
trade-off between three objectives — accuracy, privacy (ε) and data size (n) —
and call a setting *Pareto efficient* when no algorithm does better on one
objective without doing worse on another. This module makes their hypothetical
Fig. 2 real: it runs every private tree learner of the workbook on one
stratified hold-out split, over a grid of ε and training sizes n, next to
non-private references.

* :func:`compare` — the tidy frame (one row per data set, algorithm, ε, n and
  repeat), cached on disk with :func:`dpviz.experiments.cache`.
* :func:`pareto_frontier`, :func:`pareto_chart` — the (ε, accuracy) points that
  no other point dominates, per (data set, n); :func:`tradeoff_chart` and
  :func:`privacy_price` — FS Fig. 2 as accuracy against ε for several n: more
  data buys privacy.
* :func:`compare_explorer_chart` and :func:`compare_controls` — the explorer
  (data set, ε, n, algorithms); it looks its points up in a per-data-set grid
  computed once (:func:`explorer_frame`), so a slider move only redraws.
* :func:`winners`, :func:`winner_chart`, :func:`claims` — "which algorithm
  when", read off the numbers.
* :func:`rdt_sharp_comparison` — RDT# with part of the training rows as public
  unlabeled data, against Private-RDT on the labeled rows only.
* :func:`budget_pitfall` and :func:`tuning_pitfall` (:func:`tuning_optimism` over
  many draws) — what goes wrong when algorithms are compared at different total
  budgets, or tuned on the test data.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from dpviz.datasets import Dataset, load
from dpviz.errors import InvalidParameterError
from dpviz.exercises import Exercise, register
from dpviz.experiments import cache, holdout_accuracy
from dpviz.explore import quick
from dpviz.plots import accuracy_chart
from dpviz.validation import check_epsilon, check_int

__all__ = [
    "ALGORITHMS",
    "DATASETS",
    "EPSILONS",
    "EXERCISE_POINTS",
    "EXPLORER_DATASETS",
    "FLOOR_MARGIN",
    "NO_WINNER",
    "PRIVATE",
    "RDT_SHARP_METHODS",
    "REFERENCES",
    "SIZES",
    "TEST_ROWS",
    "Algorithm",
    "algorithm_table",
    "budget_pitfall",
    "budget_pitfall_chart",
    "claims",
    "compare",
    "compare_controls",
    "compare_explorer_chart",
    "dominated_by",
    "explorer_frame",
    "explorer_update_ms",
    "grid",
    "make_estimator",
    "pareto_chart",
    "pareto_frontier",
    "privacy_price",
    "rdt_sharp_comparison",
    "summary",
    "tradeoff_chart",
    "tuning_optimism",
    "tuning_pitfall",
    "useful_from",
    "winner_chart",
    "winners",
]


# ---------------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class Algorithm:
    """One learner of the comparison.

    Attributes
    ----------
    name : str
        Short name used in the frames and the charts.
    paper : str
        Where it comes from (paper and figure / algorithm).
    dpviz : str
        The dpviz class (and settings) that implements it.
    private : bool
        ε-DP for add/remove one training row (False for the references).
    nominal_only : bool
        Handles categorical attributes only (SuLQ-ID3).
    """

    name: str
    paper: str
    dpviz: str
    private: bool = True
    nominal_only: bool = False


#: The private learners, in the order of the charts (RDT# is shown apart: it needs public rows).
ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm(
            "Private-RDT",
            "JPW Fig. 5: random trees, Laplace noise on every leaf count, ε/N per tree",
            "PrivateRDTClassifier(ε, n_trees=10; Votes 5)",
        ),
        Algorithm(
            "DP forest",
            "FI Alg. 1-2 + 2021 addendum: disjoint rows per tree, noisy arg-max leaf label",
            "DPRandomForestClassifier(ε) — 100 trees, ROSNAM",
        ),
        Algorithm(
            "SuLQ-ID3",
            "FS Alg. 1: ID3 whose gains come from noisy counts",
            "SuLQID3Classifier(ε, max_depth=5)",
            nominal_only=True,
        ),
        Algorithm(
            "DiffPID3-Max",
            "FS Alg. 2: one exponential-mechanism choice per node, Max quality",
            'DiffPID3Classifier(ε, max_depth=5, criterion="max")',
        ),
        Algorithm(
            "DiffPID3-Gini",
            "FS Alg. 2 with the Gini quality (sensitivity 2)",
            'DiffPID3Classifier(ε, max_depth=5, criterion="gini")',
        ),
        Algorithm(
            "DiffPID3-InfoGain",
            "FS Alg. 2 with InfoGain (sensitivity log2(N+1) + 1/ln 2)",
            'DiffPID3Classifier(ε, criterion="infogain", size_bound=rows of the data set)',
        ),
        Algorithm(
            "DiffPC4.5",
            "FS §4.2-4.3 + Alg. 3: DiffPID3-Max, pruned with the noisy counts",
            "DiffPC45Classifier(ε, max_depth=5)",
        ),
    )
}

#: Names of the private learners.
PRIVATE: tuple[str, ...] = tuple(ALGORITHMS)

#: The non-private references (drawn as dashed rules).
REFERENCES: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm(
            "RDT (non-private)",
            "Fan et al.'s random decision trees, exact counts, pruned (JPW Fig. 1-2)",
            "RandomDecisionTreeClassifier(n_trees=10)",
            private=False,
        ),
        Algorithm(
            "sklearn tree",
            "CART, unlimited depth, on one-hot encoded attributes",
            "sklearn DecisionTreeClassifier",
            private=False,
        ),
        Algorithm(
            "sklearn forest",
            "Breiman's random forest (50 trees) on one-hot encoded attributes",
            "sklearn RandomForestClassifier(n_estimators=50)",
            private=False,
        ),
        Algorithm(
            "majority class",
            "always predict the most frequent training class: the floor",
            "sklearn DummyClassifier",
            private=False,
        ),
    )
}

#: Data sets the comparison knows: the UCI sets of the papers and FI's synthetic SynthA-G.
DATASETS = ("nursery", "mushroom", "votes", "adult", *(f"synth-{c}" for c in "abcdefg"))

#: ε grid of the comparison (a 1-2-5 series: evenly spaced on a log axis).
EPSILONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)

#: Training sizes n (each data set keeps those its training part can supply).
SIZES = (100, 300, 1000, 3000, 10000)

#: Test rows held out once per data set (at most a quarter of the rows).
TEST_ROWS = 1000

#: How much better than the majority-class reference a learner must be to "beat" it. A
#: constant guess scores the share of the class it guesses, and the majority class of a
#: small training sample is not always the test rows' largest class: on Nursery the three
#: large classes hold 33.4%, 32.9% and 31.2% of the test rows, on Mushroom 51.8% and 48.2%.
#: A private tree that is a single noisy-majority leaf is such a guess; 5 points is more than
#: these spreads, so a lucky constant does not count as "useful".
FLOOR_MARGIN = 0.05

_QUICK_EPSILONS = (0.05, 0.2, 1.0, 5.0)
_QUICK_SIZES = (100, 1000, 10000)


def grid() -> dict[str, Any]:
    """The explorer's grid: ε values, sizes and repeats (smaller under quick mode).

    Returns
    -------
    dict
        ``epsilons``, ``sizes`` and ``repeats``: the full grid (10 ε × 5 n × 5
        repeats) or, when :func:`dpviz.explore.quick` is on, 4 ε × 3 n × 2 repeats.
    """
    if quick():
        return {"epsilons": _QUICK_EPSILONS, "sizes": _QUICK_SIZES, "repeats": 2}
    return {"epsilons": EPSILONS, "sizes": SIZES, "repeats": 5}


def algorithm_table() -> pd.DataFrame:
    """Every learner of the comparison: name, paper (figure / algorithm), dpviz class, private."""
    rows = [
        {"algorithm": a.name, "paper": a.paper, "dpviz": a.dpviz, "ε-DP": a.private}
        for a in (*ALGORITHMS.values(), *REFERENCES.values())
    ]
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- data
@functools.cache
def _dataset(name: str) -> Dataset:
    """A data set by name (loaded once; the hold-out split is cached on this object)."""
    key = str(name).strip().lower()
    if key not in DATASETS:
        raise InvalidParameterError(f"dataset must be one of {list(DATASETS)}, got {name!r}")
    if key.startswith("synth-"):
        from dpviz.synthetic import fi_synth

        return fi_synth(key[-1].upper(), random_state=0)
    return load(key)


def _test_rows(data: Dataset) -> int:
    return int(min(TEST_ROWS, data.n_rows // 4))


def _sizes(data: Dataset, sizes: Sequence[int]) -> list[int]:
    """The sizes the training part can supply (at least its whole size)."""
    pool = data.n_rows - _test_rows(data)
    kept = sorted({check_int(n, "sizes", minimum=10) for n in sizes if n <= pool})
    return kept or [pool]


# ---------------------------------------------------------------------------------- estimators
class _OneHot:
    """A scikit-learn model on the domain's encoding: one column per category, numbers as is.

    The categories come from the public domain, so the encoding reads no row.
    """

    def __init__(self, model: Any, data: Dataset) -> None:
        self.model, self.domain = model, data.domain

    def _design(self, X: pd.DataFrame) -> np.ndarray:
        codes = self.domain.encode(X)
        blocks = []
        for j, attribute in enumerate(self.domain):
            if attribute.is_categorical:
                blocks.append(np.eye(attribute.n_values)[codes[:, j].astype(np.int64)])
            else:
                blocks.append(codes[:, j : j + 1].astype(float))
        return np.hstack(blocks)

    def fit(self, X: pd.DataFrame, y: pd.Series) -> _OneHot:
        self.model.fit(self._design(X), np.asarray(y))
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return self.model.predict(self._design(X))


def make_estimator(
    algorithm: str, epsilon: float, data: Dataset, random_state: int = 0
) -> Any:
    """An unfitted estimator of ``algorithm`` at ``epsilon`` for ``data`` (its public domain).

    Parameters
    ----------
    algorithm : str
        A key of :data:`ALGORITHMS` or :data:`REFERENCES`.
    epsilon : float
        Total budget (``math.inf``: the private learner without noise); ignored by
        the references.
    data : Dataset
        Supplies the public domain (and, for InfoGain, the public size bound: the
        documented number of rows of the whole data set).
    random_state : int
        Seed of the estimator.

    Returns
    -------
    estimator
        scikit-learn style (``fit(X, y)``, ``predict(X)``).
    """
    from dpviz.trees.forest import DPRandomForestClassifier
    from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
    from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier

    domain = data.domain
    n_trees = 5 if data.name == "votes" else 10  # JPW §VI
    common = {"domain": domain, "random_state": random_state}
    if algorithm == "Private-RDT":
        return PrivateRDTClassifier(epsilon, n_trees=n_trees, **common)
    if algorithm == "DP forest":
        return DPRandomForestClassifier(epsilon, **common)
    if algorithm == "SuLQ-ID3":
        return SuLQID3Classifier(epsilon, max_depth=5, **common)
    if algorithm.startswith("DiffPID3-"):
        criterion = algorithm.split("-", 1)[1].lower()
        bound = data.n_rows if criterion == "infogain" else None
        return DiffPID3Classifier(
            epsilon, max_depth=5, criterion=criterion, size_bound=bound, **common
        )
    if algorithm == "DiffPC4.5":
        return DiffPC45Classifier(epsilon, max_depth=5, **common)
    if algorithm == "RDT (non-private)":
        return RandomDecisionTreeClassifier(n_trees=n_trees, **common)
    if algorithm == "sklearn tree":
        from sklearn.tree import DecisionTreeClassifier

        return _OneHot(DecisionTreeClassifier(random_state=random_state), data)
    if algorithm == "sklearn forest":
        from sklearn.ensemble import RandomForestClassifier

        return _OneHot(RandomForestClassifier(50, random_state=random_state), data)
    if algorithm == "majority class":
        from sklearn.dummy import DummyClassifier

        return DummyClassifier(strategy="most_frequent")
    raise InvalidParameterError(
        f"unknown algorithm {algorithm!r}; known: {[*ALGORITHMS, *REFERENCES]}"
    )


def _applicable(algorithm: str, data: Dataset) -> bool:
    spec = ALGORITHMS.get(algorithm) or REFERENCES.get(algorithm)
    return not (spec and spec.nominal_only and not data.domain.categorical_mask.all())


class _Subsample:
    """Fit ``algorithm`` on ``n`` training rows drawn at random (seeded by ``random_state``).

    The draw depends only on the seed, so every algorithm and ε of a repeat sees
    the same n rows (paired comparisons).
    """

    def __init__(
        self, algorithm: str, epsilon: float, n: int, data: Dataset, random_state: int
    ) -> None:
        self.algorithm, self.epsilon, self.n = algorithm, epsilon, n
        self.data, self.random_state = data, random_state

    def fit(self, X: pd.DataFrame, y: pd.Series) -> _Subsample:
        rng = np.random.default_rng([self.random_state, 7])
        rows = rng.choice(len(X), size=min(self.n, len(X)), replace=False)
        self.model_ = make_estimator(self.algorithm, self.epsilon, self.data, self.random_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. sklearn's one-hot "unknown categories"
            self.model_.fit(X.iloc[rows], y.iloc[rows])
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.model_.predict(X)


def _evaluate(
    data: Dataset, algorithm: str, epsilon: float, n: int, repeats: int, seed: int
) -> pd.DataFrame:
    def factory(random_state: int, **params: Any) -> _Subsample:
        return _Subsample(params["algorithm"], params["epsilon"], params["n"], data, random_state)

    return holdout_accuracy(
        factory,
        data,
        repeats=repeats,
        test_size=_test_rows(data),
        seed=seed,
        algorithm=algorithm,
        epsilon=float(epsilon),
        n=int(n),
    )


# ---------------------------------------------------------------------------------- compare
@cache
def compare(
    datasets: Sequence[str] = ("nursery",),
    algorithms: Sequence[str] = PRIVATE,
    epsilons: Sequence[float] = EPSILONS,
    sizes: Sequence[int] = SIZES,
    repeats: int = 3,
    *,
    references: bool = True,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """Hold-out accuracy of every algorithm at every (ε, n), with the non-private references.

    Each data set is split once (stratified; :data:`TEST_ROWS` test rows, or a
    quarter of the rows if fewer). Repeat ``r`` draws ``n`` training rows from the
    rest with seed ``seed + r`` — the same rows for every algorithm and ε — and
    fits with estimator seed ``seed + r``.

    Parameters
    ----------
    datasets : sequence of str
        Names from :data:`DATASETS`.
    algorithms : sequence of str
        Private learners from :data:`ALGORITHMS`; each also runs at ε = ∞ (its
        own non-private version). SuLQ-ID3 is skipped on data with numeric
        attributes (FS Alg. 1 is for nominal attributes).
    epsilons : sequence of float
        Total budgets ε (finite).
    sizes : sequence of int
        Training sizes; sizes the training part cannot supply are dropped.
    repeats : int
        Fits per setting (the band of the charts).
    references : bool
        Also run :data:`REFERENCES` (non-private) at every n.
    seed : int
        Base seed of the split, the subsamples and the estimators.
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    DataFrame
        One row per (dataset, algorithm, ε, n, repeat): ``dataset``,
        ``algorithm``, ``private`` (False for the references and for every
        ε = ∞ run), ``epsilon`` (``inf`` for those), ``n``, ``repeat``,
        ``accuracy``.
    """
    from tqdm.auto import tqdm

    repeats = check_int(repeats, "repeats", minimum=1)
    eps = [check_epsilon(e, "epsilons") for e in epsilons]
    if any(math.isinf(e) for e in eps):
        raise InvalidParameterError("epsilons must be finite (ε = ∞ is run for every algorithm)")
    for name in algorithms:
        if name not in ALGORITHMS:
            raise InvalidParameterError(f"unknown algorithm {name!r}; known: {list(ALGORITHMS)}")
    jobs = []
    for name in datasets:
        data = _dataset(name)
        algs = [a for a in algorithms if _applicable(a, data)]
        for n in _sizes(data, sizes):
            jobs += [(data, a, e, n) for a in algs for e in (*eps, math.inf)]
            if references:
                jobs += [(data, r, math.inf, n) for r in REFERENCES]
    frames = []
    for data, algorithm, epsilon, n in tqdm(
        jobs, disable=not progress, desc="compare", leave=False
    ):
        frame = _evaluate(data, algorithm, epsilon, n, repeats, seed)
        frame["dataset"] = data.name
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    out["private"] = out["algorithm"].isin(list(ALGORITHMS)) & np.isfinite(out["epsilon"])
    columns = ["dataset", "algorithm", "private", "epsilon", "n", "repeat", "accuracy"]
    return out[columns]


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, 10th and 90th percentile and runs of the accuracy per (dataset, algorithm, ε, n)."""
    keys = ["dataset", "algorithm", "private", "epsilon", "n"]
    return (
        frame.groupby(keys, sort=False)["accuracy"]
        .agg(
            mean="mean",
            low=lambda s: s.quantile(0.1),
            high=lambda s: s.quantile(0.9),
            runs="size",
        )
        .reset_index()
    )


# ---------------------------------------------------------------------------------- Pareto
def dominated_by(epsilon: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """For each point, whether another point dominates it.

    Point q dominates point p when q's ε is no larger and its accuracy no lower,
    one of them strictly.

    Parameters
    ----------
    epsilon, accuracy : array-like
        The points' privacy cost (lower is better) and accuracy (higher is better).

    Returns
    -------
    ndarray of bool
        True where the point is dominated (not on the Pareto frontier).
    """
    e = np.asarray(epsilon, dtype=float)[:, None]
    a = np.asarray(accuracy, dtype=float)[:, None]
    no_worse = (e.T <= e) & (a.T >= a)
    better = (e.T < e) | (a.T > a)
    return np.any(no_worse & better, axis=1)


def pareto_frontier(frame: pd.DataFrame, *, by: Sequence[str] = ("dataset", "n")) -> pd.DataFrame:
    """The Pareto-efficient (algorithm, ε) points of every group (FS §1, Fig. 2).

    A point (ε, accuracy) of a private algorithm is *dominated* when another
    point of the same group has an ε no larger and a mean accuracy no lower, one
    of them strictly: switching to it is a Pareto improvement. The frontier is
    the points that are not dominated.

    Parameters
    ----------
    frame : DataFrame
        From :func:`compare` (the private rows are used; the ε = ∞ runs and the
        references are not points of the trade-off).
    by : sequence of str
        The groups (default: one frontier per data set and training size n).

    Returns
    -------
    DataFrame
        :func:`summary` of the private points with ``efficient`` (bool), sorted
        by group and ε.
    """
    points = summary(frame[frame["private"]])
    by = list(by)
    flags = pd.Series(False, index=points.index)
    for _, group in points.groupby(by, sort=False):
        flags[group.index] = ~dominated_by(group["epsilon"], group["mean"])
    points["efficient"] = flags
    return points.sort_values([*by, "epsilon", "mean"], ascending=[*[True] * len(by), True, False])


def _envelope(points: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Best accuracy reachable with a budget of at most ε (the frontier as a step curve)."""
    rows = []
    for keys, group in points.groupby(list(by), sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        best = group.groupby("epsilon")["mean"].max().sort_index().cummax()
        for e, value in best.items():
            winner = group[(group["epsilon"] <= e) & np.isclose(group["mean"], value)]
            rows.append(
                {
                    **dict(zip(by, keys, strict=True)),
                    "epsilon": e,
                    "best": value,
                    "algorithm": winner["algorithm"].iloc[0],
                }
            )
    return pd.DataFrame(rows)


def _references(frame: pd.DataFrame, dataset: str, n: int) -> pd.DataFrame:
    refs = frame[
        (frame["dataset"] == dataset) & (frame["n"] == n) & frame["algorithm"].isin(REFERENCES)
    ]
    return refs.groupby("algorithm", sort=False)["accuracy"].mean().rename("accuracy").reset_index()


def _reference_layer(refs: pd.DataFrame) -> alt.LayerChart:
    rules = (
        alt.Chart(refs)
        .mark_rule(strokeDash=[6, 4], color="gray")
        .encode(
            y="accuracy:Q",
            tooltip=["algorithm:N", alt.Tooltip("accuracy:Q", format=".3f")],
        )
    )
    labels = (
        alt.Chart(refs)
        .mark_text(align="left", dx=3, dy=-5, fontSize=10, color="gray")
        .encode(y="accuracy:Q", x=alt.value(0), text="algorithm:N")
    )
    return rules + labels


def pareto_chart(frame: pd.DataFrame, dataset: str, n: int, *, width: int = 420) -> alt.LayerChart:
    """FS Fig. 2 made real: every (algorithm, ε) point at one n, the frontier as a step line.

    Parameters
    ----------
    frame : DataFrame
        From :func:`compare`.
    dataset : str
        One data set of the frame.
    n : int
        One training size of the frame.
    width : int
        Chart width in pixels.

    Returns
    -------
    altair.LayerChart
        Points coloured by algorithm (filled when Pareto efficient), the best
        accuracy reachable within each budget (black steps), the non-private
        references as dashed rules.
    """
    points = pareto_frontier(frame)
    points = points[(points["dataset"] == dataset) & (points["n"] == n)]
    if points.empty:
        raise InvalidParameterError(f"no private points for dataset={dataset!r}, n={n}")
    steps = _envelope(points, ["dataset", "n"])
    efficient = int(points["efficient"].sum())
    title = alt.Title(
        f"{dataset}, n = {n}: {efficient} of {len(points)} (algorithm, ε) points are efficient",
        subtitle="filled: on the Pareto frontier; black: best accuracy within a budget ε; "
        "dashed: non-private references",
    )
    base = alt.Chart(points, title=title, width=width, height=260)
    x = alt.X("epsilon:Q", scale=alt.Scale(type="log"), title="ε (lower = more private)")
    y = alt.Y("mean:Q", title="accuracy", scale=alt.Scale(zero=False))
    dots = base.mark_point(size=60).encode(
        x=x,
        y=y,
        color=alt.Color("algorithm:N", scale=_palette()),
        fill=alt.condition(
            "datum.efficient", alt.Color("algorithm:N", scale=_palette()), alt.value("white")
        ),
        tooltip=[
            "algorithm:N",
            "epsilon:Q",
            alt.Tooltip("mean:Q", format=".3f"),
            "efficient:N",
            "runs:Q",
        ],
    )
    step = (
        alt.Chart(steps)
        .mark_line(interpolate="step-after", color="black", strokeWidth=1.5)
        .encode(
            x="epsilon:Q",
            y="best:Q",
            tooltip=["epsilon:Q", "algorithm:N", alt.Tooltip("best:Q", format=".3f")],
        )
    )
    return alt.layer(step, dots, _reference_layer(_references(frame, dataset, n)))


def privacy_price(frame: pd.DataFrame, target: float) -> pd.DataFrame:
    """The smallest ε of the grid at which some private algorithm reaches ``target`` accuracy.

    Parameters
    ----------
    frame : DataFrame
        From :func:`compare`.
    target : float
        Accuracy (mean over repeats) to reach, in [0, 1].

    Returns
    -------
    DataFrame
        One row per (dataset, n): ``epsilon`` (NaN when no ε of the grid
        reaches the target), ``algorithm`` (the first to reach it) and its
        ``accuracy``.
    """
    if not 0 <= target <= 1:
        raise InvalidParameterError(f"target must be in [0, 1], got {target!r}")
    points = summary(frame[frame["private"]])
    rows = []
    for (dataset, n), group in points.groupby(["dataset", "n"], sort=True):
        hit = group[group["mean"] >= target]
        hit = hit.sort_values(["epsilon", "mean"], ascending=[True, False])
        rows.append(
            {
                "dataset": dataset,
                "n": int(n),
                "epsilon": float(hit["epsilon"].iloc[0]) if len(hit) else math.nan,
                "algorithm": hit["algorithm"].iloc[0] if len(hit) else None,
                "accuracy": float(hit["mean"].iloc[0]) if len(hit) else math.nan,
            }
        )
    return pd.DataFrame(rows)


def useful_from(frame: pd.DataFrame, *, margin: float = FLOOR_MARGIN) -> pd.DataFrame:
    """The smallest ε of the grid at which some private algorithm beats the majority class.

    Parameters
    ----------
    frame : DataFrame
        From :func:`compare` (with its references: the majority class is one).
    margin : float
        How much better than the majority-class accuracy counts as "beats"
        (default :data:`FLOOR_MARGIN`: more than the spread of constant guesses).

    Returns
    -------
    DataFrame
        One row per (dataset, n): ``epsilon`` (NaN if no ε of the grid is
        enough), ``algorithm``, ``accuracy``, ``majority`` and ``epsilon_n`` = ε·n,
        the budget times the rows — roughly what a noisy count's signal-to-noise
        ratio depends on.
    """
    table = winners(frame, floor_margin=margin)
    rows = []
    for (dataset, n), group in table.groupby(["dataset", "n"], sort=True):
        hit = group[group["winner"] != NO_WINNER].sort_values("epsilon")
        eps = float(hit["epsilon"].iloc[0]) if len(hit) else math.nan
        rows.append(
            {
                "dataset": dataset,
                "n": int(n),
                "epsilon": eps,
                "algorithm": hit["algorithm"].iloc[0] if len(hit) else None,
                "accuracy": float(hit["accuracy"].iloc[0]) if len(hit) else math.nan,
                "majority": float(group["majority"].iloc[0]),
                "epsilon_n": eps * n,
            }
        )
    return pd.DataFrame(rows)


def tradeoff_chart(
    frame: pd.DataFrame,
    dataset: str,
    *,
    algorithm: str | None = None,
    target: float | None = None,
    per_row: bool = False,
    width: int = 420,
) -> alt.LayerChart:
    """Accuracy against ε for every training size n (FS Fig. 2's three objectives at once).

    Parameters
    ----------
    frame : DataFrame
        From :func:`compare`.
    dataset : str
        One data set of the frame.
    algorithm : str, optional
        Draw this algorithm's curves; default the frontier (the best private
        algorithm within each budget).
    target : float, optional
        An accuracy target, drawn as a rule, with the ε each n needs to reach it.
    per_row : bool
        Put ε·n (budget times rows) on the x axis instead of ε: if the curves of
        different n fall on one line, what matters is the product.
    width : int
        Chart width in pixels.

    Returns
    -------
    altair.LayerChart
        One line per n (darker = more rows).
    """
    rows = frame[(frame["dataset"] == dataset) & frame["private"]]
    if rows.empty:
        raise InvalidParameterError(f"no private rows for dataset {dataset!r}")
    if algorithm is None:
        curves = _envelope(summary(rows), ["dataset", "n"]).rename(columns={"best": "mean"})
        what = "best private algorithm within each budget"
    else:
        if algorithm not in ALGORITHMS:
            raise InvalidParameterError(f"unknown algorithm {algorithm!r}")
        curves = summary(rows[rows["algorithm"] == algorithm])
        what = algorithm
    curves = curves.assign(epsilon_n=curves["epsilon"] * curves["n"])
    xfield, xtitle = ("epsilon_n", "ε · n") if per_row else ("epsilon", "ε (lower = more private)")
    title = alt.Title(
        f"{dataset}: accuracy against {'ε · n' if per_row else 'ε'} for several n"
        + ("" if per_row else " — more data buys privacy"),
        subtitle=f"{what}; mean over repeats",
    )
    base = alt.Chart(curves, title=title, width=width, height=260)
    lines = base.mark_line(point=True).encode(
        x=alt.X(f"{xfield}:Q", scale=alt.Scale(type="log"), title=xtitle),
        y=alt.Y("mean:Q", title="accuracy", scale=alt.Scale(zero=False)),
        color=alt.Color("n:O", scale=alt.Scale(scheme="blues"), title="training rows n"),
        tooltip=["n:O", "epsilon:Q", alt.Tooltip("mean:Q", format=".3f"), "algorithm:N"],
    )
    layers: list[Any] = [lines]
    if target is not None:
        price = privacy_price(frame[frame["dataset"] == dataset], target).dropna()
        price = price.assign(epsilon_n=price["epsilon"] * price["n"])
        layers.append(
            alt.Chart(pd.DataFrame({"target": [target]}))
            .mark_rule(strokeDash=[2, 2], color="firebrick")
            .encode(y="target:Q")
        )
        layers.append(
            alt.Chart(price)
            .mark_point(shape="diamond", size=120, color="firebrick", filled=True)
            .encode(
                x=f"{xfield}:Q",
                y="accuracy:Q",
                tooltip=[
                    "n:O", "epsilon:Q", "algorithm:N", alt.Tooltip("accuracy:Q", format=".3f")
                ],
            )
        )
    return alt.layer(*layers)


# ---------------------------------------------------------------------------------- explorer
#: Data sets offered by the explorer's picker (each computed once, on first pick, then cached).
EXPLORER_DATASETS = ("nursery", "mushroom", "votes", "adult", "synth-a")


@functools.cache
def _explorer_frame(
    dataset: str, epsilons: tuple[float, ...], sizes: tuple[int, ...], repeats: int
) -> pd.DataFrame:
    return compare((dataset,), PRIVATE, epsilons, sizes, repeats, progress=True)


def explorer_frame(dataset: str = "nursery") -> pd.DataFrame:
    """The explorer's grid for ``dataset``: :func:`compare` over :func:`grid` (cached).

    Computed once per data set (and kept on disk by :func:`compare`'s cache), so
    moving a slider afterwards only looks points up. Shows a progress bar while
    it computes.
    """
    g = grid()
    key = str(dataset).strip().lower()
    _dataset(key)  # validates the name
    return _explorer_frame(key, tuple(g["epsilons"]), tuple(g["sizes"]), int(g["repeats"]))


@functools.cache
def _explorer_summary(
    dataset: str, epsilons: tuple[float, ...], sizes: tuple[int, ...], repeats: int
) -> pd.DataFrame:
    return summary(_explorer_frame(dataset, epsilons, sizes, repeats))


def _nearest(value: float, options: Sequence[float]) -> float:
    """The option closest to ``value`` on a log scale."""
    options = np.asarray(sorted(options), dtype=float)
    return float(options[np.argmin(np.abs(np.log(options) - math.log(value)))])


def _selection(algorithms: Sequence[str] | None) -> list[str]:
    if algorithms is None:
        return list(PRIVATE)
    chosen = [algorithms] if isinstance(algorithms, str) else list(algorithms)
    for name in chosen:
        if name not in ALGORITHMS:
            raise InvalidParameterError(f"unknown algorithm {name!r}; known: {list(ALGORITHMS)}")
    return [a for a in PRIVATE if a in chosen]


def compare_explorer_chart(
    dataset: str = "nursery",
    epsilon: float = 1.0,
    n: int = 1000,
    algorithms: Sequence[str] | None = None,
) -> alt.HConcatChart:
    """Explorer callback: every algorithm's accuracy at (data set, ε, n), and against ε.

    Parameters
    ----------
    dataset : str
        One of :data:`EXPLORER_DATASETS` (or any of :data:`DATASETS`).
    epsilon : float
        Total budget; snapped to the nearest ε of the grid (log scale) — the
        explorer's slider only offers grid values.
    n : int
        Training rows; snapped to the nearest size the data set supplies.
    algorithms : sequence of str, optional
        Private learners to show (default all of :data:`PRIVATE`; an empty
        selection shows only the references).

    Returns
    -------
    altair.HConcatChart
        Left: mean accuracy of each algorithm at (ε, n) with its band over
        repeats (10th-90th percentile), a hollow diamond at its own ε = ∞
        accuracy, and the non-private references as dashed rules. Right:
        :func:`~dpviz.plots.accuracy_chart` of the same algorithms against ε at
        this n, the slider's ε marked in red.
    """
    check_epsilon(epsilon)
    chosen = _selection(algorithms)
    g = grid()
    key = str(dataset).strip().lower()
    data = _dataset(key)
    args = (key, tuple(g["epsilons"]), tuple(g["sizes"]), int(g["repeats"]))
    frame, stats = _explorer_frame(*args), _explorer_summary(*args)
    eps = _nearest(epsilon, g["epsilons"])
    sizes = sorted(stats["n"].unique())
    size = int(_nearest(check_int(n, "n", minimum=1), sizes))
    here = stats[(stats["n"] == size) & stats["algorithm"].isin(chosen)]
    at_eps = here[np.isclose(here["epsilon"], eps)]
    at_inf = here[~np.isfinite(here["epsilon"])]
    refs = _references(frame, key, size)
    order = [a for a in chosen if a in set(at_eps["algorithm"])]
    # Channel objects rather than "field:type" strings: altair parses shorthands slowly,
    # and the explorer redraws on every slider move.
    y = alt.Y("algorithm", type="nominal", sort=order, title=None)
    scale = alt.Scale(domain=[0, 1])
    color = alt.Color("algorithm", type="nominal", title="algorithm")
    tip = alt.Tooltip("mean", type="quantitative", format=".3f", title="accuracy")
    name = alt.Tooltip("algorithm", type="nominal")
    width = 300
    points = pd.concat(
        [at_eps.assign(setting=f"ε = {eps:g}"), at_inf.assign(setting="ε = ∞")], ignore_index=True
    )
    left_layers: list[Any] = [
        alt.Chart(at_eps)
        .mark_rule(strokeWidth=3, opacity=0.5)
        .encode(
            x=alt.X("low", type="quantitative", title="accuracy", scale=scale),
            x2=alt.X2("high"),
            y=y,
            color=color,
        ),
        # the point at the slider's ε (filled) and the same learner without noise (hollow diamond)
        alt.Chart(points)
        .mark_point(size=80)
        .encode(
            x=alt.X("mean", type="quantitative"),
            y=y,
            color=color,
            shape=alt.Shape(
                "setting",
                type="nominal",
                scale=alt.Scale(domain=[f"ε = {eps:g}", "ε = ∞"], range=["circle", "diamond"]),
                title=None,
            ),
            fillOpacity=alt.FillOpacity(
                "setting",
                type="nominal",
                scale=alt.Scale(domain=[f"ε = {eps:g}", "ε = ∞"], range=[1, 0]),
                legend=None,
            ),
            tooltip=[name, alt.Tooltip("setting", type="nominal"), tip],
        ),
    ]
    ref_x = alt.X("accuracy", type="quantitative")
    ref_tip = [name, alt.Tooltip("accuracy", type="quantitative", format=".3f")]
    if len(refs):
        left_layers.append(
            alt.Chart(refs)
            .mark_rule(strokeDash=[6, 4], color="gray")
            .encode(x=ref_x, tooltip=ref_tip)
        )
    if at_eps.empty:
        best_text = "no private algorithm selected"
    else:
        best = at_eps.loc[at_eps["mean"].idxmax()]
        best_text = f"best private: {best['algorithm']} {best['mean']:.1%}"
    note = "" if size == n else f" (nearest to n = {n})"
    left = alt.LayerChart(
        layer=left_layers,
        width=width,
        height=24 * max(len(order), 3),
        title=alt.Title(
            f"ε = {eps:g}, n = {size}{note}: {best_text}",
            subtitle="bar: 10th-90th percentile of the runs; ◇ the same algorithm at ε = ∞; "
            "dashed: non-private references",
        ),
    )
    curve_rows = frame[
        (frame["n"] == size) & frame["algorithm"].isin(chosen) & frame["private"]
    ]
    if curve_rows.empty:  # nothing selected: an empty axis with the references
        curve_rows = pd.DataFrame({"epsilon": [eps], "accuracy": [math.nan], "algorithm": ["—"]})
    curves = accuracy_chart(
        curve_rows,
        x="epsilon",
        color="algorithm",
        highlight=eps,
        title=f"against ε at n = {size}",
        width=width,
    )
    ref_y = alt.Y("accuracy", type="quantitative")
    ref_layers = [
        alt.Chart(refs).mark_rule(strokeDash=[6, 4], color="gray").encode(y=ref_y, tooltip=ref_tip),
        alt.Chart(refs)
        .mark_text(align="left", dx=3, dy=-5, fontSize=10, color="gray")
        .encode(y=ref_y, x=alt.value(0), text=alt.Text("algorithm", type="nominal")),
    ]
    right = alt.LayerChart(layer=[*curves.layer, *ref_layers])  # flat: nested layers copy slowly
    runs = int(stats["runs"].max())
    return alt.HConcatChart(
        hconcat=[left, right],
        title=alt.Title(
            f"{data.name}: every algorithm at the same (ε, n)",
            subtitle=f"hold-out accuracy on {_test_rows(data)} test rows, {runs} runs per point",
        ),
    )


def compare_controls(
    dataset: str = "nursery", epsilon: float = 1.0, n: int = 1000
) -> dict[str, Any]:
    """The explorer's widgets: data set, ε (log-spaced grid), n (log-spaced grid), algorithms.

    The ε and n sliders move over the grid of :func:`grid` (evenly spaced on a
    log scale), whose points are computed once per data set.
    """
    import ipywidgets as widgets

    from dpviz.widgets import choice_dropdown

    g = grid()
    eps_options = [(f"{e:g}", float(e)) for e in g["epsilons"]]
    size_options = [(str(s), int(s)) for s in g["sizes"]]
    return {
        "dataset": choice_dropdown(list(EXPLORER_DATASETS), dataset),
        "epsilon": widgets.SelectionSlider(
            options=eps_options,
            value=_nearest(epsilon, g["epsilons"]),
            description="ε (log)",
            continuous_update=False,
        ),
        "n": widgets.SelectionSlider(
            options=size_options,
            value=int(_nearest(n, g["sizes"])),
            description="n (log)",
            continuous_update=False,
        ),
        "algorithms": widgets.SelectMultiple(
            options=list(PRIVATE), value=list(PRIVATE), rows=len(PRIVATE), description="show"
        ),
    }


def explorer_update_ms(dataset: str = "nursery", n: int = 1000) -> pd.DataFrame:
    """Time the explorer's update at every ε of the grid (data set and n fixed).

    The data set's grid is computed first (as the notebook does before the
    explorer); each timed update is a call of :func:`compare_explorer_chart` and
    the serialization of the chart (its ``to_dict``), as a slider move does.

    Returns
    -------
    DataFrame
        ``epsilon`` and ``ms`` per slider position.
    """
    explorer_frame(dataset)
    compare_explorer_chart(dataset, 1.0, n).to_dict()  # warm-up (imports, caches)
    rows = []
    for eps in grid()["epsilons"]:
        start = time.perf_counter()
        compare_explorer_chart(dataset, eps, n).to_dict()
        rows.append({"epsilon": eps, "ms": 1000 * (time.perf_counter() - start)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- which when
#: Label of a cell where no private algorithm beats the majority-class reference.
NO_WINNER = "none beats the majority class"


def _palette() -> alt.Scale:
    """The same colour for an algorithm in every chart of the notebook.

    Vega-Lite's default (tableau10 over the names in sorted order), which the
    explorer's charts get when every learner is shown, plus grey for :data:`NO_WINNER`.
    """
    tableau = ["#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2"]
    return alt.Scale(domain=[*sorted(PRIVATE), NO_WINNER], range=[*tableau, "#dddddd"])


def winners(frame: pd.DataFrame, *, floor_margin: float = FLOOR_MARGIN) -> pd.DataFrame:
    """The best private algorithm at every (dataset, n, ε), with its margin over the runner-up.

    Exact ties (e.g. DiffPC4.5 when pruning removed nothing, so it equals
    DiffPID3-Max) go to the first in :data:`PRIVATE` order and are listed in
    ``tied``. A cell whose best mean accuracy is not at least ``floor_margin``
    above the majority-class reference (when the frame has it; default
    :data:`FLOOR_MARGIN`) is labelled :data:`NO_WINNER`: a constant guess could do
    as well.

    Returns
    -------
    DataFrame
        ``dataset``, ``n``, ``epsilon``, ``winner`` (the label), ``algorithm``
        (best mean accuracy), ``accuracy``, ``tied``, ``runner_up``, ``margin``
        (best minus the best non-tied runner-up) and ``majority`` (the floor).
    """
    points = summary(frame[frame["private"]])
    order = {a: k for k, a in enumerate(PRIVATE)}
    points["rank"] = points["algorithm"].map(order)
    floors = (
        frame[frame["algorithm"] == "majority class"]
        .groupby(["dataset", "n"])["accuracy"]
        .mean()
    )
    rows = []
    for (dataset, n, eps), group in points.groupby(["dataset", "n", "epsilon"], sort=True):
        ranked = group.sort_values(["mean", "rank"], ascending=[False, True])
        best = float(ranked["mean"].iloc[0])
        tied = ranked[np.isclose(ranked["mean"], best, rtol=0, atol=1e-12)]
        rest = ranked.iloc[len(tied) :]
        floor = float(floors.get((dataset, n), math.nan))
        useful = not best < floor + floor_margin  # True when there is no floor
        rows.append(
            {
                "dataset": dataset,
                "n": int(n),
                "epsilon": float(eps),
                "winner": ranked["algorithm"].iloc[0] if useful else NO_WINNER,
                "algorithm": ranked["algorithm"].iloc[0],
                "accuracy": best,
                "tied": ", ".join(tied["algorithm"].iloc[1:]),
                "runner_up": rest["algorithm"].iloc[0] if len(rest) else None,
                "margin": float(best - rest["mean"].iloc[0]) if len(rest) else math.nan,
                "majority": floor,
            }
        )
    return pd.DataFrame(rows)


def winner_chart(frame: pd.DataFrame, dataset: str, *, width: int = 460) -> alt.LayerChart:
    """"Which algorithm when" as a map: the best private algorithm in every (ε, n) cell.

    Cells are coloured by the winner (grey: none beats the majority class by
    :data:`FLOOR_MARGIN`) and labelled with its mean accuracy (%); a pale cell means
    the runner-up is within 2 points (a near tie).
    """
    table = winners(frame[frame["dataset"] == dataset])
    if table.empty:
        raise InvalidParameterError(f"no private rows for dataset {dataset!r}")
    table = table.assign(
        label=(100 * table["accuracy"]).round().astype(int).astype(str),
        clear=~(table["margin"] < 0.02),
    )
    base = alt.Chart(table, width=width, height=40 * table["n"].nunique())
    x = alt.X("epsilon:O", title="ε", sort="ascending")
    y = alt.Y("n:O", title="training rows n", sort="descending")
    cells = base.mark_rect().encode(
        x=x,
        y=y,
        color=alt.Color("winner:N", scale=_palette(), title="best private"),
        opacity=alt.condition("datum.clear", alt.value(1.0), alt.value(0.45)),
        tooltip=[
            alt.Tooltip("n:O"),
            alt.Tooltip("epsilon:O", title="ε"),
            alt.Tooltip("algorithm:N", title="best"),
            alt.Tooltip("accuracy:Q", format=".3f"),
            alt.Tooltip("tied:N"),
            alt.Tooltip("runner_up:N", title="runner-up"),
            alt.Tooltip("margin:Q", format=".3f"),
            alt.Tooltip("majority:Q", title="majority class", format=".3f"),
        ],
    )
    text = base.mark_text(fontSize=10).encode(x=x, y=y, text="label:N")
    return alt.layer(cells, text).properties(
        title=alt.Title(
            f"{dataset}: which algorithm when",
            subtitle=f"colour: best mean accuracy (%, in the cell); grey: nothing beats the "
            f"majority class by {FLOOR_MARGIN:.0%}; pale: runner-up within 2 points",
        )
    )


def _mean_at(points: pd.DataFrame, algorithm: str, **where: float) -> pd.Series:
    rows = points[points["algorithm"] == algorithm]
    for column, value in where.items():
        rows = rows[np.isclose(rows[column], value)]
    return rows.set_index(["n", "epsilon"])["mean"]


def claims(frame: pd.DataFrame, dataset: str, *, target: float = 0.8) -> pd.DataFrame:
    """The "which algorithm when" statements, each with the numbers behind it and whether it holds.

    Statements (on ``dataset``, over the frame's grid):

    1. *Budget-efficient queries win* (FS §4, Table 1): DiffPID3-Max is on average
       at least 3 points more accurate than SuLQ-ID3 over the (ε, n) grid.
    2. *Max, then Gini, then InfoGain* (FS §5.2, Fig. 8): on average over the
       grid DiffPID3-Max beats DiffPID3-Gini, which beats DiffPID3-InfoGain
       (low-sensitivity quality functions waste less).
    3. *More data buys privacy* (FS §1, Fig. 2): the smallest ε at which some
       private algorithm reaches ``target`` is smaller at the largest n than at the
       smallest n of the grid, and never larger for more data.
    4. *The price of privacy shrinks with n*: the gap between the best ε = ∞
       accuracy and the best private accuracy at ε = 1 is smaller at the largest n
       than at the smallest.
    5. *FI's forest needs data*: with 100 trees on disjoint rows, at the smallest n
       it is below the majority-class reference at every ε, and at the largest n
       and largest ε it is within 5 points of the best private algorithm.
    6. *An ε·n rule of thumb*: the smallest ε at which a private algorithm beats
       the majority class by :data:`FLOOR_MARGIN` (:func:`useful_from`), times n,
       varies by at most a factor of 4 across the sizes.

    Returns
    -------
    DataFrame
        ``claim``, ``ours`` (the numbers) and ``holds`` (bool).
    """
    rows = frame[frame["dataset"] == dataset]
    points = summary(rows[rows["private"]])
    if points.empty:
        raise InvalidParameterError(f"no private rows for dataset {dataset!r}")
    sizes = [int(n) for n in sorted(points["n"].unique())]
    small, large = sizes[0], sizes[-1]
    out = []
    diff = (_mean_at(points, "DiffPID3-Max") - _mean_at(points, "SuLQ-ID3")).dropna()
    out.append(
        {
            "claim": "DiffPID3-Max beats SuLQ-ID3 (one exponential-mechanism query per node "
            "instead of noisy counts for every attribute)",
            "ours": f"mean difference over {len(diff)} (ε, n) cells: {diff.mean():+.3f}; "
            f"SuLQ ahead by > 2 points in {int((diff < -0.02).sum())} cells",
            "holds": bool(len(diff) and diff.mean() >= 0.03),
        }
    )
    max_gini = (_mean_at(points, "DiffPID3-Max") - _mean_at(points, "DiffPID3-Gini")).dropna()
    gini_ig = (_mean_at(points, "DiffPID3-Gini") - _mean_at(points, "DiffPID3-InfoGain")).dropna()
    out.append(
        {
            "claim": "Max beats Gini beats InfoGain (score sensitivity 1, 2, log2(N+1) + 1/ln 2)",
            "ours": f"mean differences over {len(max_gini)} cells: Max − Gini "
            f"{max_gini.mean():+.3f}, Gini − InfoGain {gini_ig.mean():+.3f}",
            "holds": bool(len(max_gini) and max_gini.mean() > 0 and gini_ig.mean() > 0),
        }
    )
    price = privacy_price(rows, target)
    price = price.set_index("n")["epsilon"].reindex(sizes)
    filled = price.fillna(math.inf).tolist()
    out.append(
        {
            "claim": f"more data buys privacy: the ε needed for {target:.0%} accuracy falls as "
            "n grows",
            "ours": "; ".join(f"n = {n}: ε = {e:g}" for n, e in zip(sizes, filled, strict=True)),
            "holds": bool(
                all(a >= b for a, b in itertools.pairwise(filled))
                and filled[-1] < filled[0]
            ),
        }
    )
    finite = points[np.isfinite(points["epsilon"])]
    exact = summary(rows[rows["algorithm"].isin(PRIVATE) & ~np.isfinite(rows["epsilon"])])
    eps_one = _nearest(1.0, finite["epsilon"].unique())
    gaps = {}
    for n in (small, large):
        best_inf = exact.loc[exact["n"] == n, "mean"].max()
        best_one = finite.loc[(finite["n"] == n) & np.isclose(finite["epsilon"], eps_one), "mean"]
        gaps[n] = float(best_inf - best_one.max())
    out.append(
        {
            "claim": f"the price of privacy (best at ε = ∞ minus best at ε = {eps_one:g}) "
            "shrinks with n",
            "ours": f"n = {small}: {gaps[small]:.3f}; n = {large}: {gaps[large]:.3f}",
            "holds": bool(gaps[large] < gaps[small]),
        }
    )
    majority = rows[(rows["algorithm"] == "majority class") & (rows["n"] == small)]
    floor = float(majority["accuracy"].mean()) if len(majority) else math.nan
    forest_small = finite[(finite["algorithm"] == "DP forest") & (finite["n"] == small)]
    top = finite[(finite["n"] == large) & np.isclose(finite["epsilon"], finite["epsilon"].max())]
    forest_top = top.loc[top["algorithm"] == "DP forest", "mean"]
    gap = float(top["mean"].max() - forest_top.max()) if len(forest_top) else math.nan
    out.append(
        {
            "claim": "FI's forest (100 trees, disjoint rows) needs data: below the majority "
            "class at the smallest n, close to the best at the largest n and ε",
            "ours": f"n = {small}: at most {forest_small['mean'].max():.3f} "
            f"(majority class {floor:.3f}); n = {large}: {gap:.3f} behind the best",
            "holds": bool(forest_small["mean"].max() < floor and gap <= 0.05),
        }
    )
    useful = useful_from(rows).dropna(subset=["epsilon"])
    products = useful["epsilon_n"].to_numpy()
    spread = float(products.max() / products.min()) if len(products) else math.nan
    out.append(
        {
            "claim": "a rule of thumb: a private tree beats the majority class once ε·n passes "
            "roughly the same value, whatever n (within a factor of 4)",
            "ours": "; ".join(
                f"n = {n}: ε = {e:g} (ε·n = {p:g})"
                for n, e, p in zip(useful["n"], useful["epsilon"], products, strict=True)
            ),
            "holds": bool(len(products) >= 2 and spread <= 4),
        }
    )
    return pd.DataFrame(out)


# ---------------------------------------------------------------------------------- RDT#
class _SemiSupervised:
    """One arm of the RDT# comparison, fitted on a random draw of the training part.

    ``"RDT#"``: RDT# on ``n_labeled`` private labeled rows plus ``n_public``
    other rows used as public unlabeled data (their labels are dropped).
    ``"Private-RDT, labeled rows"``: Private-RDT on the same labeled rows only.
    ``"Private-RDT, if public rows were labeled"``: Private-RDT on both parts
    with their labels (a reference: more private labeled data).
    """

    def __init__(
        self,
        method: str,
        epsilon: float,
        n_labeled: int,
        n_public: int,
        n_secondary: int,
        data: Dataset,
        random_state: int,
    ) -> None:
        self.method, self.epsilon = method, epsilon
        self.n_labeled, self.n_public, self.n_secondary = n_labeled, n_public, n_secondary
        self.data, self.random_state = data, random_state

    def fit(self, X: pd.DataFrame, y: pd.Series) -> _SemiSupervised:
        from dpviz.trees.rdt import PrivateRDTClassifier
        from dpviz.trees.rdt_sharp import RDTSharpClassifier

        rng = np.random.default_rng([self.random_state, 11])
        rows = rng.permutation(len(X))[: self.n_labeled + self.n_public]
        labeled, public = rows[: self.n_labeled], rows[self.n_labeled :]
        domain = self.data.domain
        if self.method == "RDT#":
            self.model_ = RDTSharpClassifier(
                self.epsilon,
                n_secondary=self.n_secondary,
                n_labeled=self.n_labeled,
                domain=domain,
                random_state=self.random_state,
            ).fit(X.iloc[labeled], y.iloc[labeled], X.iloc[public])
        else:
            use = labeled if self.method == "Private-RDT, labeled rows" else rows
            self.model_ = PrivateRDTClassifier(
                self.epsilon, domain=domain, random_state=self.random_state
            ).fit(X.iloc[use], y.iloc[use])
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return self.model_.predict(X)


#: The arms of :func:`rdt_sharp_comparison`.
RDT_SHARP_METHODS = (
    "RDT#",
    "Private-RDT, labeled rows",
    "Private-RDT, if public rows were labeled",
)


@cache
def rdt_sharp_comparison(
    dataset: str = "nursery",
    *,
    n_labeled: int = 1000,
    n_public: int = 2000,
    epsilons: Sequence[float] = (0.2, 1.0),
    repeats: int = 2,
    n_secondary: int = 200,
    seed: int = 0,
) -> pd.DataFrame:
    """RDT# against Private-RDT when part of the training rows serve as public unlabeled data.

    RDT# needs something the other learners do not get: rows from the same
    population that are *public* (no privacy cost) but unlabeled. It is therefore
    not in the main grid. Here each run draws ``n_labeled + n_public`` rows of the
    training part; the first ``n_labeled`` are the private labeled data, the rest
    are handed to RDT# without labels.

    Returns
    -------
    DataFrame
        One row per (method, ε, repeat): ``method``, ``epsilon``, ``repeat``,
        ``accuracy``, ``dataset``, ``n_labeled``, ``n_public``.
    """
    data = _dataset(dataset)
    n_labeled = check_int(n_labeled, "n_labeled", minimum=2)
    n_public = check_int(n_public, "n_public", minimum=1)
    pool = data.n_rows - _test_rows(data)
    if n_labeled + n_public > pool:
        raise InvalidParameterError(
            f"n_labeled + n_public = {n_labeled + n_public} exceeds the {pool} training rows"
        )

    def factory(random_state: int, **params: Any) -> _SemiSupervised:
        return _SemiSupervised(
            params["method"], params["epsilon"], n_labeled, n_public, n_secondary, data,
            random_state,
        )

    frames = [
        holdout_accuracy(
            factory,
            data,
            repeats=check_int(repeats, "repeats", minimum=1),
            test_size=_test_rows(data),
            seed=seed,
            method=method,
            epsilon=check_epsilon(eps, "epsilons"),
        )
        for eps in epsilons
        for method in RDT_SHARP_METHODS
    ]
    out = pd.concat(frames, ignore_index=True)
    return out.assign(dataset=data.name, n_labeled=n_labeled, n_public=n_public)


# ---------------------------------------------------------------------------------- pitfalls
@cache
def budget_pitfall(
    dataset: str = "nursery", *, epsilon: float = 0.5, repeats: int = 3, seed: int = 0
) -> pd.DataFrame:
    """JPW's update experiment (§VI-B) with each arm's *claimed* and *true* total ε.

    The training part is split into an old batch D1 and a new batch D2
    (:class:`dpviz.reproduce_jpw.UpdateExperiment`). A model of D1 has been
    released at ε; then:

    * ``update`` — JPW's update with D2 at ε: total ε (parallel composition);
    * ``union`` — a fresh Private-RDT on D1 ∪ D2 at ε: its own ledger says ε, but
      D1's rows were already used by the first release, so the history cost 2ε
      (JPW Fig. 13-15 plot it at ε);
    * ``union_half`` — both releases at ε/2: total ε, the fair comparison.

    Returns
    -------
    DataFrame
        One row per method: ``method``, ``claimed_epsilon`` (what a chart at
        "ε" suggests), ``total_epsilon`` (the history's real cost),
        ``model_ledger`` (the final model's own ledger), ``mean`` and ``std``
        of the accuracy over ``repeats``.
    """
    from dpviz.reproduce_jpw import UpdateExperiment

    data = _dataset(dataset)
    eps = check_epsilon(epsilon)
    n_trees = 5 if data.name == "votes" else 10

    spent: dict[str, list[float]] = {}

    class _Arm(UpdateExperiment):
        def fit(self, X: pd.DataFrame, y: pd.Series) -> _Arm:
            super().fit(X, y)
            spent.setdefault(self.method, []).append(float(self.spent_))
            return self

    def factory(random_state: int, **params: Any) -> _Arm:
        return _Arm(
            method=params["method"],
            epsilon=eps,
            n_trees=n_trees,
            domain=data.domain,
            random_state=random_state,
        )

    rows = []
    for method in ("update", "union", "union_half"):
        runs = holdout_accuracy(
            factory, data, repeats=repeats, test_size=_test_rows(data), seed=seed, method=method
        )
        rows.append(
            {
                "method": method,
                "claimed_epsilon": eps,
                "total_epsilon": 2 * eps if method == "union" else eps,
                "model_ledger": float(np.max(spent[method])),
                "mean": float(runs["accuracy"].mean()),
                "std": float(runs["accuracy"].std(ddof=1)) if repeats > 1 else math.nan,
            }
        )
    return pd.DataFrame(rows)


def budget_pitfall_chart(table: pd.DataFrame, *, width: int = 380) -> alt.LayerChart:
    """The update experiment's arms at their claimed ε (hollow) and their true total ε (filled)."""
    long = pd.concat(
        [
            table.assign(epsilon=table["claimed_epsilon"], plotted="as claimed"),
            table.assign(epsilon=table["total_epsilon"], plotted="true total"),
        ],
        ignore_index=True,
    )
    base = alt.Chart(long, width=width, height=220)
    x = alt.X("epsilon:Q", scale=alt.Scale(type="log"), title="total ε")
    y = alt.Y("mean:Q", title="accuracy", scale=alt.Scale(zero=False))
    arrows = base.mark_line(strokeDash=[3, 3], color="gray").encode(
        x=x, y=y, detail="method:N"
    )
    dots = base.mark_point(size=90).encode(
        x=x,
        y=y,
        color=alt.Color("method:N"),
        shape=alt.Shape("plotted:N", title=None),
        fill=alt.condition(
            "datum.plotted == 'true total'", alt.Color("method:N"), alt.value("white")
        ),
        tooltip=["method:N", "plotted:N", "epsilon:Q", alt.Tooltip("mean:Q", format=".3f")],
    )
    return alt.layer(arrows, dots).properties(
        title=alt.Title(
            "Compare at the same total budget",
            subtitle="the 'union' arm plotted at ε really spent 2ε on the rows of D1",
        )
    )


@cache
def tuning_pitfall(
    dataset: str = "nursery",
    *,
    epsilon: float = 1.0,
    n: int = 1000,
    depths: Sequence[int] = (2, 3, 4, 5, 6),
    criteria: Sequence[str] = ("max", "gini", "infogain"),
    n_tuning: int = 200,
    splits: int = 200,
    seed: int = 0,
) -> pd.DataFrame:
    """Tuning hyperparameters on the (private) test rows: an optimistic score and a K·ε bill.

    Fits one DiffPID3 per configuration (criterion × depth) at ``epsilon`` on the
    same ``n`` training rows, and predicts the test part once. Then, ``splits``
    times, splits the test rows at random into a tuning set of ``n_tuning`` rows
    and a fresh set (the rest), picks the configuration with the best tuning
    accuracy, and records its accuracy on both sets.

    Returns
    -------
    DataFrame
        One row per split: ``split``, ``chosen`` (configuration), ``tuning``
        (its accuracy on the rows that chose it), ``fresh`` (on the other
        rows); and in ``attrs``: ``configs`` (K), ``epsilon`` (each fit's
        budget), ``budgets`` (K·ε: the bound sequential composition gives, since
        all K fits read the same rows), ``spent`` (what the K ledgers charged in
        total — less when a tree stops early) and ``test_accuracy`` (every
        configuration's accuracy on the whole test part).
    """
    from sklearn.model_selection import train_test_split

    from dpviz.trees.id3 import DiffPID3Classifier

    data = _dataset(dataset)
    eps = check_epsilon(epsilon)
    n_test = _test_rows(data)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        X_pool, X_test, y_pool, y_test = train_test_split(
            data.X, data.y, test_size=n_test, random_state=seed
        )
    if not 0 < n_tuning < n_test:
        raise InvalidParameterError(f"n_tuning must be in (0, {n_test}), got {n_tuning!r}")
    rng = np.random.default_rng([seed, 13])
    train = rng.choice(len(X_pool), size=min(check_int(n, "n", minimum=2), len(X_pool)),
                       replace=False)
    truth = y_test.to_numpy()
    correct, names, spent = [], [], 0.0
    for k, (criterion, depth) in enumerate(
        (c, d) for c in criteria for d in depths
    ):
        model = DiffPID3Classifier(
            eps,
            max_depth=check_int(depth, "depths", minimum=1),
            criterion=criterion,
            size_bound=data.n_rows if criterion == "infogain" else None,
            domain=data.domain,
            random_state=seed + k,
        ).fit(X_pool.iloc[train], y_pool.iloc[train])
        spent += model.ledger_.spent
        correct.append(model.predict(X_test) == truth)
        names.append(f"{criterion}, depth {depth}")
    hits = np.asarray(correct, dtype=float)  # (configs, test rows)
    rows = []
    for s in range(check_int(splits, "splits", minimum=1)):
        order = rng.permutation(n_test)
        tune, fresh = order[:n_tuning], order[n_tuning:]
        scores = hits[:, tune].mean(axis=1)
        best = int(np.argmax(scores))
        rows.append(
            {
                "split": s,
                "chosen": names[best],
                "tuning": float(scores[best]),
                "fresh": float(hits[best, fresh].mean()),
            }
        )
    out = pd.DataFrame(rows)
    out.attrs.update(
        configs=len(names),
        epsilon=eps,
        budgets=len(names) * eps,
        spent=float(spent),
        test_accuracy=dict(zip(names, hits.mean(axis=1).round(4).tolist(), strict=True)),
    )
    return out


def tuning_optimism(
    dataset: str = "nursery", *, draws: int = 40, **params: Any
) -> pd.DataFrame:
    """The optimism of :func:`tuning_pitfall` over ``draws`` draws of the data and seeds.

    Draw ``s`` is ``tuning_pitfall(dataset, seed=s, **params)``: another test
    split and other training rows (its K fits use the estimator seeds s to
    s + K − 1). Choosing the best of several models on the rows that score it
    overstates its accuracy *in expectation* — the chosen model's tuning score is
    the largest of several noisy scores — but by how much depends on the draw:
    little when one configuration is clearly best, more when several are close.
    One draw shows an instance; the average over draws, with its standard error,
    is what can be claimed.

    Returns
    -------
    DataFrame
        One row per draw: ``seed``, ``optimism`` (mean over the splits of tuning
        minus fresh accuracy), ``positive`` (share of the splits where it is > 0),
        ``chosen`` (how many configurations were ever chosen) and ``best``
        (the best configuration's accuracy on the whole test part).
    """
    rows = []
    for s in range(check_int(draws, "draws", minimum=2)):
        runs = tuning_pitfall(dataset, seed=s, **params)
        gap = runs["tuning"] - runs["fresh"]
        rows.append(
            {
                "seed": s,
                "optimism": float(gap.mean()),
                "positive": float((gap > 0).mean()),
                "chosen": int(runs["chosen"].nunique()),
                "best": float(max(runs.attrs["test_accuracy"].values())),
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- exercises
#: Exercise 07.1's points (one data set, one n): how many are Pareto efficient?
EXERCISE_POINTS = pd.DataFrame(
    {
        "algorithm": ["A", "A", "A", "B", "B", "B", "C", "C", "C"],
        "epsilon": [0.1, 1.0, 10.0, 0.1, 1.0, 10.0, 0.1, 1.0, 10.0],
        "accuracy": [0.52, 0.80, 0.85, 0.60, 0.71, 0.90, 0.55, 0.80, 0.83],
    }
)

register(
    {
        "07.1": Exercise(
            answer=float((~dominated_by(EXERCISE_POINTS["epsilon"], EXERCISE_POINTS["accuracy"]))
                         .sum()),
            tolerance=0,
            hint="a point is dominated when another has an ε no larger and an accuracy no lower "
            "(one of them strictly); at each ε only the best can survive, and then only if it "
            "beats every point with a smaller ε; equal points do not dominate each other",
        ),
        "07.2": Exercise(
            answer=10.0,
            tolerance=0.5,
            hint="DPRandomForestClassifier spreads the rows over its 100 trees (disjoint data, "
            "FI §4.2): divide n by the number of trees",
        ),
        "07.3": Exercise(
            answer=1.0,
            tolerance=1e-9,
            hint="the rows of D1 were read by the release at ε = 0.5 and again by the model of "
            "D1 ∪ D2 at ε = 0.5: sequential composition adds them",
        ),
        "07.4": Exercise(
            answer=15.0,
            tolerance=1e-9,
            hint="every configuration is trained on the same private rows with a budget of ε = 1: "
            "sequential composition adds the 15 budgets",
        ),
    }
)
