"""The FS runs behind notebook 03: the explorers' data, fits and curves, exact tables, runs.

:mod:`dpviz.explore.fs` draws them; the paper's reproductions are in
:mod:`dpviz.experiments.reproduce_fs`. Accuracies are fractions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz import mechanisms
from dpviz.data import catalogue
from dpviz.data.published import FS_TABLE1, FS_TABLE1_ALGORITHMS
from dpviz.data.synthetic import fs_numeric_split_data, fs_single_split_data
from dpviz.data.uci import load
from dpviz.domain import Attribute, Categorical, Domain, Encoded, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.experiments.runner import cache, curve, remember, stratified_split
from dpviz.experiments.shipped import ShippedResultError, ShippedResultIntegrityError, result
from dpviz.trees import id3_split_point as split_points
from dpviz.trees.id3_quality import get_criterion
from dpviz.validation import check_epsilon, check_int, check_option

EXPLORER_DATASETS = catalogue.dataset_ids("fs-single-split", "nursery", "adult")
#: Criteria of the explorers: DiffPID3's three quality functions and the SuLQ-based ID3.
CRITERIA = ("infogain", "gini", "max", "sulq")
#: Names of the algorithms, as FS Table 1 writes them (DiffPC4.5 when numeric attributes).
ALGORITHM_NAMES = {
    "infogain": "DiffPID3-InfoGain", "gini": "DiffPID3-Gini", "max": "DiffPID3-Max",
    "sulq": "SuLQ-based ID3",
}
#: Budgets B of the explorer's curve (ε = ∞ is the reference line).
EXPLORER_EPSILONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
#: Fits per point of the explorer (the band is their spread); cheap data gets more.
REPEATS = {"fs-single-split": 10, "nursery": 4, "adult": 4}
#: Depths of the explorers' slider; every curve at them ships (:func:`shipped_curves`).
EXPLORER_DEPTHS = (1, 2, 3, 4, 5, 6)
#: Public bound N on the number of rows, for InfoGain's sensitivity (FS: 5,000 and 50,000).
SIZE_BOUND = {"fs-single-split": 5_000, "nursery": 50_000, "adult": 50_000}
#: Training rows of the explorer's FS single-split data (FS Table 1: 1,000 to 5,000).
FS_ROWS = 2_000
#: Rows of the explorer's Adult sample (stratified, before the 75/25 split).
ADULT_SAMPLE = 5_000
#: Equal-width bins of each numeric Adult attribute for the SuLQ-based ID3 (nominal only).
ADULT_BINS = 4
#: The explorers' depth per data set: 1 for FS's single split, 3 otherwise.
DEFAULT_DEPTH = {"fs-single-split": 1, "nursery": 3, "adult": 3}


@dataclass(frozen=True, eq=False)
class Prepared:
    """A data set of the explorers, encoded once (codes) with its public domain and bound N."""

    name: str
    domain: Domain
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    size_bound: int
    note: str


def check_dataset(dataset: str) -> str:
    """``dataset`` if it is one of :data:`EXPLORER_DATASETS`, else raise."""
    return check_option(dataset, EXPLORER_DATASETS, "dataset")


def check_criterion(criterion: str) -> str:
    """``criterion`` if it is one of :data:`CRITERIA`, else raise."""
    return check_option(criterion, CRITERIA, "criterion")


def _binned(domain: Domain, codes: np.ndarray, n_bins: int) -> tuple[Domain, np.ndarray]:
    """Numeric attributes cut into ``n_bins`` equal-width bins of their *public* bounds."""
    codes = codes.copy()
    attributes: list[Attribute] = []
    for j, a in enumerate(domain.attributes):
        if isinstance(a, Numeric):
            width = (a.high - a.low) / n_bins
            codes[:, j] = np.clip(np.floor((codes[:, j] - a.low) / width), 0, n_bins - 1)
            edges = [a.low + k * width for k in range(n_bins + 1)]
            labels = tuple(f"[{edges[k]:.4g}, {edges[k + 1]:.4g})" for k in range(n_bins))
            attributes.append(Categorical(a.name, labels))
        else:
            attributes.append(a)
    return Domain(attributes, domain.classes, target=domain.target), codes


@remember()
def prepared(dataset: str, binned: bool = False) -> Prepared:
    """The explorer's rows of ``dataset``, split (stratified 75/25, seed 0) and encoded once.

    FS's single split: :data:`FS_ROWS` noisy training rows and 10,000 noiseless test rows;
    Adult: a sample of :data:`ADULT_SAMPLE` rows; ``binned``: numeric attributes in
    :data:`ADULT_BINS` bins of their public bounds (for SuLQ).
    """
    check_dataset(dataset)
    if dataset == "fs-single-split":
        data = fs_single_split_data(FS_ROWS, random_state=0)
        assert data.test is not None
        X_train, y_train, X_test, y_test = data.X, data.y, data.test.X, data.test.y
        note = f"{FS_ROWS:,} noisy training rows (p_noise = 0.1), 10,000 noiseless test rows"
    else:
        data = load(dataset)
        X, y = data.X, data.y
        if dataset == "adult":
            X, _, y, _ = stratified_split(X, y, len(y) - ADULT_SAMPLE, 0)  # keep ADULT_SAMPLE
        X_train, X_test, y_train, y_test = stratified_split(X, y, 0.25, 0)
        note = f"{len(y_train):,} training and {len(y_test):,} test rows (stratified split)"
    domain = data.domain
    train = domain.encode(X_train)
    test = domain.encode(X_test)
    if binned and not domain.categorical_mask.all():
        domain, train = _binned(data.domain, train, ADULT_BINS)
        _, test = _binned(data.domain, test, ADULT_BINS)
        note += f"; numeric attributes in {ADULT_BINS} equal-width bins"
    return Prepared(dataset, domain, train, data.domain.encode_labels(y_train), test,
                    data.domain.encode_labels(y_test), SIZE_BOUND[dataset], note)


def explorer_data(dataset: str, criterion: str) -> Prepared:
    """The explorer's rows for ``criterion`` (binned numeric attributes for SuLQ)."""
    return prepared(dataset, binned=criterion == "sulq")


def fit_one(
    dataset: str, criterion: str, epsilon: float, depth: int, run: int = 0, prune: bool = False
) -> tuple[Any, float, float]:
    """Fit seed ``run`` on the explorer's rows: ``(model, accuracy, unclassified share)``."""
    data = explorer_data(check_dataset(dataset), check_criterion(criterion))
    from dpviz.experiments import reproduce_fs  # the estimators: imported with the first fit

    model = reproduce_fs.fs_estimator(criterion, epsilon, depth, domain=data.domain,
                         size_bound=data.size_bound, random_state=int(run), prune=prune)
    model.fit(Encoded(data.X_train, data.domain), data.domain.decode_labels(data.y_train))
    accuracy, unclassified = reproduce_fs.evaluate_encoded(model, data.X_test, data.y_test)
    return model, accuracy, unclassified


def budget_split(dataset: str, criterion: str, epsilon: float, depth: int) -> dict[str, Any]:
    """Where the budget of one node goes (FS Alg. 1/2, §4.3): ε per query and per split query.

    Public facts only: the data set's attributes (SuLQ's binned ones are as many), never its
    rows' split (a UCI set's is not made for this).
    """
    dataset, criterion = check_dataset(dataset), check_criterion(criterion)
    public = explorer_data(dataset, "max") if dataset == "fs-single-split" else load(dataset)
    domain = public.domain
    eps = check_epsilon(epsilon, "epsilon", allow_inf=True)
    d = check_int(depth, "depth", minimum=0)
    k = len(domain)
    n_numeric = int((~domain.categorical_mask).sum())
    if criterion == "sulq":
        level = eps / (2 * (d + 1))
        return {"level": level, "split_queries": 2 * k, "split_epsilon": level / (2 * k),
                "sensitivity": 1.0, "numeric": 0, "attributes": k}
    level = eps / ((2 + n_numeric) * d + 2)
    return {"level": level, "split_queries": 1 + n_numeric, "split_epsilon": level,
            "sensitivity": get_criterion(criterion).sensitivity(SIZE_BOUND[dataset]),
            "numeric": n_numeric, "attributes": k}


def query_epsilons(
    dataset: str = "fs-single-split", epsilon: float = 0.1, depth: int = 1, run: int = 0
) -> pd.DataFrame:
    """The root's queries of each algorithm from a fit's ledger, with a count's noise std."""
    rows = []
    for criterion in CRITERIA:
        frame = fit_one(dataset, criterion, epsilon, depth, run)[0].ledger_.to_frame()
        root = frame[frame["depth"] == 0]
        for (label, mechanism), group in root.groupby(["label", "mechanism"], sort=False):
            eps = float(group["epsilon"].max())
            q = math.exp(-eps)
            rows.append({
                "algorithm": ALGORITHM_NAMES[criterion], "query": label, "mechanism": mechanism,
                "queries": len(group), "epsilon": eps, "charged": float(group["charged"].sum()),
                "count_noise_std": math.sqrt(2 * q) / (1 - q) if "laplace" in mechanism
                else math.nan,
            })
    return pd.DataFrame(rows)


def _curve(dataset: str, criterion: str, depth: int, epsilons: Sequence[float],
           repeats: int, shipped: bool) -> pd.DataFrame:
    """Fits ``0 .. repeats - 1`` at each B (one at ε = ∞): the runner's :func:`curve`.

    ``shipped``: read the points :func:`shipped_curves` holds and remember the rest in memory.
    """
    table = _records(dataset) if shipped else {}

    def fit(eps: float, run: int) -> dict:
        model, accuracy, unclassified = fit_one(dataset, criterion, eps, depth, run)
        return {"epsilon": eps, "repeat": run, "accuracy": accuracy,
                "unclassified": unclassified, "leaves": model.tree_.n_leaves}

    def evaluate(run: int, epsilons: list[float]) -> list[list[dict]]:
        return [[] if run and math.isinf(eps) else
                [table.get((criterion, depth, eps, run)) or fit(eps, run)] for eps in epsilons]

    key = ("fs", dataset, criterion, depth) if shipped else None
    return curve(evaluate, epsilons, repeats, key=key)


def explorer_point(dataset: str, criterion: str, epsilon: float, depth: int) -> pd.DataFrame:
    """Test accuracy of the :data:`REPEATS` fits at one B (one at ε = ∞), shipped or fitted."""
    return _curve(dataset, criterion, int(depth), [epsilon], REPEATS[dataset], True)


def explorer_curves(
    dataset: str, *, criteria: Sequence[str] = CRITERIA, depths: Sequence[int] = EXPLORER_DEPTHS,
    epsilons: Sequence[float] = EXPLORER_EPSILONS, repeats: int | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Every point of the explorer's curves on ``dataset``, fitted afresh (what ships)."""
    check_dataset(dataset)
    n = REPEATS[dataset] if repeats is None else check_int(repeats, "repeats", minimum=1)
    settings = [(c, int(d)) for c in criteria for d in depths]
    frames = [
        _curve(dataset, check_criterion(c), d, (*epsilons, math.inf), n, False)
        .assign(criterion=c, depth=d)
        for c, d in tqdm(settings, disable=not progress, desc=f"FS curves, {dataset}")
    ]
    columns = ["criterion", "depth", "epsilon", "repeat", "accuracy", "unclassified", "leaves"]
    return pd.concat(frames, ignore_index=True)[columns]


@remember()
def _shipped(dataset: str) -> pd.DataFrame | None:
    try:
        return result(explorer_curves, dataset, criteria=CRITERIA, depths=EXPLORER_DEPTHS,
                      epsilons=tuple(EXPLORER_EPSILONS), repeats=REPEATS[dataset],
                      recompute=False)
    except ShippedResultIntegrityError:
        raise  # an altered file is a fault to show, not a file that is absent
    except ShippedResultError:
        return None


def shipped_curves(dataset: str, *, recompute: bool | None = False) -> pd.DataFrame | None:
    """The shipped :func:`explorer_curves` of ``dataset``, or None if none ships for the settings.

    An altered file raises; ``recompute=None`` follows ``DPVIZ_RECOMPUTE``.
    """
    check_dataset(dataset)
    if recompute is not False:
        return result(explorer_curves, dataset, criteria=CRITERIA, depths=EXPLORER_DEPTHS,
                      epsilons=tuple(EXPLORER_EPSILONS), repeats=REPEATS[dataset],
                      recompute=recompute, progress=True)
    return _shipped(dataset)


@remember()
def _records(dataset: str) -> dict[tuple, dict]:
    """The shipped fits by (criterion, depth, ε, repeat) (empty when none ship)."""
    frame = _shipped(dataset)
    columns = ["epsilon", "repeat", "accuracy", "unclassified", "leaves"]
    return {} if frame is None else {
        (r["criterion"], r["depth"], r["epsilon"], r["repeat"]): {c: r[c] for c in columns}
        for r in frame.to_dict("records")
    }


def explorer_depth(dataset: str, criterion: str, depth: int | None) -> int:
    """Validate the explorer's setting; ``depth`` or the data set's default depth."""
    check_dataset(dataset), check_criterion(criterion)
    return DEFAULT_DEPTH[dataset] if depth is None else check_int(depth, "depth", minimum=1)


def explorer_curve(dataset: str, criterion: str, depth: int | None = None) -> pd.DataFrame:
    """Test accuracy at every B of :data:`EXPLORER_EPSILONS` and at ε = ∞ (see explorer_point)."""
    d = explorer_depth(dataset, criterion, depth)
    return _curve(dataset, criterion, d, (*EXPLORER_EPSILONS, math.inf), REPEATS[dataset], True)


def split_choice_table(
    sizes: Sequence[int] = (1000, 2000, 3000, 4000, 5000), *, budget: float = 0.1,
    size_bound: int = 5000, p_noise: float = 0.1, random_state: int = 0,
) -> pd.DataFrame:
    """FS Table 1 on the back of an envelope: the exact chance of the right split (ε = B/4).

    From exact counts (teaching only); the expected accuracy is about 1/2 + P/2.
    """
    eps = check_epsilon(budget, "budget") / 4  # B / (2(d+1)) with d = 1
    rows = []
    for n in sizes:
        data = fs_single_split_data(
            check_int(n, "sizes", minimum=1), p_noise=p_noise, n_test=0, random_state=random_state,
        )
        truth = data.domain.index(_split_attribute(data))
        codes = data.domain.encode(data.X)
        labels = data.domain.encode_labels(data.y)
        counts = np.zeros((codes.shape[1], 2, 2))  # τ_jc of every attribute
        for j in range(codes.shape[1]):
            np.add.at(counts[j], (codes[:, j].astype(np.int64), labels), 1.0)
        for name in ("infogain", "gini", "max"):
            crit = get_criterion(name)
            q = np.asarray(crit.quality(counts), dtype=np.float64)
            s = crit.sensitivity(size_bound)
            p = mechanisms.exponential_probabilities(q, epsilon=eps, sensitivity=s)
            others = np.delete(q, truth)
            paper = FS_TABLE1[(FS_TABLE1["n"] == n)
                              & (FS_TABLE1["algorithm"] == ALGORITHM_NAMES[name])]["mean"]
            rows.append({
                "n": int(n), "criterion": name, "sensitivity": s, "q_true": float(q[truth]),
                "q_other": float(others.max()),
                "gap_in_noise_units": eps * float(q[truth] - others.max()) / (2 * s),
                "p_true": float(p[truth]), "expected_accuracy": 100 * (0.5 + 0.5 * float(p[truth])),
                "paper": float(paper.iloc[0]) if len(paper) else math.nan,
            })
    return pd.DataFrame(rows)


def split_point_frame(
    n: int = 2000, *, budget: float = 0.1, size_bound: int = 5000, p_noise: float = 0.1,
    random_state: int = 0,
) -> pd.DataFrame:
    """FS §4.3's continuous split-point mechanism at the root of FS Fig. 4's data (35).

    One row per (criterion, score-constant range): ``probability`` and ``density``.
    """
    attribute, values, labels, eps = _split_point_setting(n, budget, p_noise, random_state)
    frames = []
    for criterion in ("infogain", "gini", "max"):
        crit = get_criterion(criterion)
        starts, ends, scores = split_points.split_point_ranges(
            values, labels, 2, attribute.low, attribute.high, crit
        )
        p = split_points.split_point_probabilities(
            starts, ends, scores, epsilon=eps, sensitivity=crit.sensitivity(size_bound)
        )
        length = ends - starts
        frames.append(pd.DataFrame({
            "criterion": criterion, "start": starts, "end": ends, "score": scores, "probability": p,
            "density": np.divide(p, length, out=np.zeros_like(p), where=length > 0),
        }))
    return pd.concat(frames, ignore_index=True)


def split_point_grid_frame(
    n: int = 2000, *, budget: float = 0.1, size_bound: int = 5000, p_noise: float = 0.1,
    n_cells: int = split_points.DEFAULT_SPLIT_CELLS, random_state: int = 0,
) -> pd.DataFrame:
    """The estimators' grid mechanism in :func:`split_point_frame`'s setting."""
    attribute, values, labels, eps = _split_point_setting(n, budget, p_noise, random_state)
    n_cells = check_int(n_cells, "n_cells", minimum=2)
    grid = split_points.split_grid(attribute.low, attribute.high, n_cells)
    frames = []
    for criterion in ("infogain", "gini", "max"):
        crit = get_criterion(criterion)
        indices, p = split_points.split_point_grid_probabilities(
            values, labels, 2, grid, 0, n_cells,
            criterion=crit, sensitivity=crit.sensitivity(size_bound), epsilon=eps,
        )
        frames.append(pd.DataFrame({
            "criterion": criterion, "index": indices, "threshold": grid[indices],
            "score": split_points.grid_split_qualities(values, labels, 2, grid, 0, n_cells, crit),
            "probability": p,
        }))
    frame = pd.concat(frames, ignore_index=True)
    frame.attrs["range"] = (attribute.low, attribute.high)
    return frame


def _split_point_setting(
    n: int, budget: float, p_noise: float, random_state: int
) -> tuple[Numeric, np.ndarray, np.ndarray, float]:
    """The data of the §4.3 views: the generating attribute, its values, labels and ε."""
    data = fs_numeric_split_data(
        check_int(n, "n", minimum=1), p_noise=p_noise, n_test=0, random_state=random_state
    )
    name = _split_attribute(data)
    assert name is not None
    attribute = data.domain[name]
    assert isinstance(attribute, Numeric)
    values = data.domain.encode(data.X)[:, data.domain.index(name)]
    labels = data.domain.encode_labels(data.y)
    eps = check_epsilon(budget, "budget") / ((2 + 3) * 1 + 2)
    return attribute, values, labels, eps


def _mass_in(group: pd.DataFrame, edges: np.ndarray) -> np.ndarray:
    """P(drawn split point in each bin of ``edges``) of one criterion's rows, either mechanism."""
    p = group["probability"].to_numpy()
    if "threshold" in group:  # the grid mechanism: point masses
        return np.histogram(group["threshold"], bins=edges, weights=p)[0]
    starts = group["start"].to_numpy()[:, None]
    length = (group["end"].to_numpy() - group["start"].to_numpy())[:, None]
    share = np.clip(np.divide(edges[None, :] - starts, length,
                              out=np.ones((len(group), len(edges))), where=length > 0), 0.0, 1.0)
    return np.diff(p @ share)


def binned_split_point_mass(frame: pd.DataFrame, bins: int) -> pd.DataFrame:
    """Probability of each of ``bins`` equal-width bins of the range, per criterion."""
    out = []
    for criterion, group in frame.groupby("criterion", sort=False):
        span = (frame.attrs["range"] if "threshold" in group
                else (float(group["start"].min()), float(group["end"].max())))
        edges = np.linspace(*span, bins + 1)
        out.append(pd.DataFrame({"criterion": criterion, "start": edges[:-1], "end": edges[1:],
                                 "probability": _mass_in(group, edges)}))
    return pd.concat(out, ignore_index=True)


def split_point_mass(frame: pd.DataFrame, low: float = 30.0, high: float = 40.0) -> pd.Series:
    """P(low <= drawn split point <= high) per criterion, exactly, for either frame."""
    mass = {criterion: float(_mass_in(group, np.array([low, high]))[0])
            for criterion, group in frame.groupby("criterion", sort=False)}
    return pd.Series(mass, name=f"P({low:g} <= split point <= {high:g})")


def _split_attribute(data: Any) -> str | None:
    from dpviz.experiments.reproduce_fs import split_attribute

    return split_attribute(data)


@remember()
def _cached(name: str) -> Callable[..., pd.DataFrame]:
    """:func:`cache` of the reproduction ``name`` of :mod:`.reproduce_fs` (imported when run)."""
    from dpviz.experiments import reproduce_fs

    return cache(getattr(reproduce_fs, name))


_PRIVATE = tuple(a for a in FS_TABLE1_ALGORITHMS if a != "ID3")


def table1_runs(
    runs: int, id3_runs: int, *, sizes: Sequence[int] = (1000, 2000, 3000, 4000, 5000),
    progress: bool = False,
) -> pd.DataFrame:
    """FS Table 1 (cached), ``runs`` runs per size, ``id3_runs`` for the slow ID3 column."""
    sizes = tuple(sizes)
    private = _cached("fs_table1")(
        sizes, runs=check_int(runs, "runs", minimum=1), algorithms=_PRIVATE, progress=progress
    )
    id3 = _cached("fs_table1")(
        sizes, runs=check_int(id3_runs, "id3_runs", minimum=1), algorithms=("ID3",),
        progress=progress,
    )
    return pd.concat([id3, private], ignore_index=True)


def fig4_runs(sizes: Sequence[int], runs: int, *, progress: bool = False) -> pd.DataFrame:
    """FS Fig. 4 (numeric split at 35, B = 0.1) at ``sizes`` with ``runs`` runs (cached)."""
    return _cached("fs_fig4")(sizes=tuple(sizes), runs=runs, progress=progress)


def fig5_runs(sizes: Sequence[int], runs: int, *, progress: bool = False) -> pd.DataFrame:
    """FS Fig. 5 (numeric vs ten bins, B = 0.2, no noise) at ``sizes`` (cached)."""
    return _cached("fs_fig5")(sizes=tuple(sizes), runs=runs, progress=progress)


def jpw_runs(
    runs: int, *, datasets: Sequence[str] = catalogue.dataset_ids("nursery", "votes", "mushroom"),
    progress: bool = False,
) -> pd.DataFrame:
    """JPW Table I (:func:`~.reproduce_fs.jpw_table1`, ε' = 1), ``runs`` splits (cached)."""
    return _cached("jpw_table1")(tuple(datasets), runs=runs, progress=progress)


def stopping_table(
    dataset: str = "adult", budgets: Sequence[float] = (0.5, 1.0, 2.0, 5.0, 10.0), *,
    depth: int = 3, criterion: str = "max", run: int = 0,
) -> pd.DataFrame:
    """FS's stopping rule: a node needs N_T ≥ t|C|√2/ε rows to split (Adult: t = 41), per B."""
    from dpviz.trees.id3 import SQRT2

    data = explorer_data(check_dataset(dataset), check_criterion(criterion))
    t = int(max(a.n_values if isinstance(a, Categorical) else 2 for a in data.domain))
    majority = 100 * np.bincount(data.y_test).max() / len(data.y_test)
    rows = []
    for budget in budgets:
        model, accuracy, _ = fit_one(dataset, criterion, budget, depth, run)
        rows.append({
            "budget": float(budget), "epsilon": model.epsilon_, "t": t,
            "rows_needed": t * data.domain.n_classes * SQRT2 / model.epsilon_,
            "training_rows": len(data.y_train), "depth": model.tree_.depth,
            "leaves": model.tree_.n_leaves, "accuracy": 100 * accuracy, "majority": majority,
        })
    return pd.DataFrame(rows)


def pruning_table(
    dataset: str = "nursery", budget: float = 1.0, *, depth: int = 5, criterion: str = "max",
    runs: int = 5,
) -> pd.DataFrame:
    """FS Alg. 3: the same trees unpruned and pruned with their own noisy counts (same ledger)."""
    if check_criterion(criterion) == "sulq":
        raise InvalidParameterError("pruning with noisy counts (FS Alg. 3) is for DiffPID3")
    rows = []
    for run in range(check_int(runs, "runs", minimum=1)):
        for prune in (False, True):
            model, accuracy, _ = fit_one(dataset, criterion, budget, depth, run, prune)
            rows.append({"run": run, "pruned": prune, "leaves": model.tree_.n_leaves,
                         "accuracy": 100 * accuracy, "spent": model.ledger_.spent})
    return pd.DataFrame(rows)
