"""Reproductions of Fletcher & Islam (2017) with the corrected (ROSNAM) leaf mechanism.

Each function returns a tidy DataFrame with our numbers next to the paper's
(:mod:`dpviz.data.published`). FI's accuracies were measured with the
smooth-sensitivity mechanism that the 2021 addendum withdrew; ours use Report
One-Sided Noisy Arg-Max unless a function says otherwise, so expect them a few
points lower — the gap is reported, not tuned away. FI used 10 × 10-fold
cross-validation; the ``n_folds`` / ``n_repeats`` arguments say what we ran.

Also the runner behind notebook 05's explorer (:func:`explorer_frame`): FI forests on a
fixed train/test split, cached so that moving ε refits only the forests at the new ε;
the forests of many ε are fitted together, the training rows routed once
(:meth:`~dpviz.trees.forest.DPRandomForestClassifier.fit_encoded_epsilons`), and vote
from the test rows' leaves, routed once per tree structure
(:meth:`~dpviz.trees.forest.DPRandomForestClassifier.locate_encoded`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from functools import lru_cache, partial

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz import mechanisms
from dpviz.data.published import FI_FIG4, FI_FIG5, FI_FIG6, FI_FIG7, FI_TABLE2, FI_TABLE3, SYNTH
from dpviz.data.synthetic import fi_synth
from dpviz.data.uci import Dataset, load
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.experiments import cache, holdout_split, summarize, sweep
from dpviz.trees.forest import DPRandomForestClassifier, ForestLeaves
from dpviz.trees.random_tree import FI_TABLE4, RandomTree, expected_untested, fletcher_islam_depth

__all__ = [
    "EXPLORER_DATASETS",
    "EXPLORER_ROWS",
    "REPEATS",
    "TEST_ROWS",
    "explorer_dataset",
    "explorer_depth",
    "explorer_frame",
    "fi_dataset",
    "fi_figure4",
    "fi_figure5",
    "fi_figure6",
    "fi_figure7",
    "fi_table2",
    "fi_table3",
    "fi_table4",
    "fi_table4_explained",
    "forest_accuracies",
    "forest_accuracy",
    "non_private_accuracy",
]


def fi_table2() -> pd.DataFrame:
    """FI Table 2: the smooth sensitivity e^{-jε}, ours (exact) next to the paper's."""
    ours = [
        mechanisms.majority_label_smooth_sensitivity(np.array([j, 0]), epsilon=eps)
        for j, eps in zip(FI_TABLE2["j"], FI_TABLE2["epsilon"], strict=True)
    ]
    return FI_TABLE2.assign(ours=ours)[["j", "epsilon", "ours", "paper"]]


def fi_table4() -> pd.DataFrame:
    """FI Table 4: tree depths from :func:`fletcher_islam_depth` next to the paper's."""
    ours = [
        fletcher_islam_depth(c, d)
        for c, d in zip(FI_TABLE4["continuous"], FI_TABLE4["discrete"], strict=True)
    ]
    return FI_TABLE4.rename(columns={"depth": "paper"}).assign(ours=ours)


def fi_dataset(name: str, *, n_rows: int | None = None, random_state: int = 0) -> Dataset:
    """The data sets of FI's experiments: ``"SynthA"``..``"SynthG"``, Nursery, Mushroom, Adult.

    Mushroom drops the rows with a missing stalk-root (5644 rows, 22 attributes) and
    Adult uses the cleaned training file (30162 rows), as FI Table 3 reports.
    ``n_rows`` subsamples (stratified by nothing: the first rows of a shuffle).
    """
    if name.startswith("Synth"):
        data = fi_synth(name[-1], n_rows=n_rows or 30_000, random_state=random_state)
    elif name == "Mushroom":
        data = load("mushroom", missing="drop_rows")
    elif name == "Adult":
        data = load("adult", split="original")
    else:
        data = load(name.lower())
    if n_rows is not None and n_rows < data.n_rows and not name.startswith("Synth"):
        idx = np.random.default_rng(random_state).permutation(data.n_rows)[:n_rows]
        data = Dataset(
            data.name,
            data.X.iloc[idx].reset_index(drop=True),
            data.y.iloc[idx].reset_index(drop=True),
            data.domain,
            data.citation,
            data.description,
            data.url,
        )
    return data


# ---------------------------------------------------------------------------------- one split
# The accuracy curve of notebook 05's explorer (dpviz.explore.fi.fi_explorer_chart): FI
# forests on a fixed train/test split of an FI data set, one forest per (ε, seed).

#: Data sets of the explorer: FI's seven synthetic sets and three UCI sets.
EXPLORER_DATASETS = (*SYNTH, "Nursery", "Mushroom", "Adult")
#: Rows used by the explorer (synthetic sets and Adult are subsampled for speed; None = all).
EXPLORER_ROWS = {**dict.fromkeys(SYNTH, 6000), "Nursery": None, "Mushroom": None, "Adult": 6000}
#: Rows of the explorer's fixed test split (the rest trains the forest).
TEST_ROWS = 1500
#: Forests per point of the explorer's curve (the band spans them).
REPEATS = 3


@lru_cache(maxsize=16)
def explorer_dataset(name: str) -> Dataset:
    """The explorer's version of an FI data set (:data:`EXPLORER_ROWS` rows, seed 0)."""
    if name not in EXPLORER_DATASETS:
        raise InvalidParameterError(f"dataset must be one of {EXPLORER_DATASETS}, got {name!r}")
    return fi_dataset(name, n_rows=EXPLORER_ROWS[name], random_state=0)


def explorer_depth(name: str, depth: int = 0) -> int:
    """``depth``, or FI's depth (Theorem 2 + ⌊r/2⌋, :func:`fletcher_islam_depth`) when 0."""
    if depth:
        return int(depth)
    domain = explorer_dataset(name).domain
    n_discrete = int(domain.categorical_mask.sum())
    return fletcher_islam_depth(len(domain) - n_discrete, n_discrete)


# Where the test rows land in every tree, per (data set, depth, trees, seed): the trees do
# not depend on ε, so moving the ε slider re-fits the forests (new leaf labels) and votes
# from these leaves (DPRandomForestClassifier.locate_encoded / votes_located).
_TEST_LEAVES: dict[tuple, ForestLeaves] = {}


def _test_leaves(key: tuple, model: DPRandomForestClassifier, codes: np.ndarray) -> ForestLeaves:
    leaves = _TEST_LEAVES.get(key)
    if leaves is None:
        if len(_TEST_LEAVES) >= 16:  # a few MB each: start afresh when full
            _TEST_LEAVES.clear()
        leaves = _TEST_LEAVES[key] = model.locate_encoded(codes)
    return leaves


@lru_cache(maxsize=16)
def _explorer_split(dataset: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The explorer's fixed split, encoded once: train codes and labels, test codes and labels."""
    data = explorer_dataset(dataset)
    X_train, X_test, y_train, y_test = holdout_split(data, TEST_ROWS, 0)
    domain = data.domain
    return (domain.encode(X_train), domain.encode_labels(y_train),
            domain.encode(X_test), domain.encode_labels(y_test))


# Accuracies already computed, per (data set, depth, trees, mechanism, seed, disjoint, ε):
# the explorer's curve is remade from them when a slider comes back (bounded, oldest first).
_ACCURACY: dict[tuple, float] = {}
_ACCURACY_SIZE = 4096


def forest_accuracies(
    dataset: str,
    epsilons: Sequence[float],
    depth: int,
    n_trees: int,
    mechanism: str = "rosnam",
    seed: int = 0,
    disjoint: bool = True,
) -> list[float]:
    """Test accuracy of one FI forest per ε on the explorer's split (cached in memory).

    The forest at ε is ``DPRandomForestClassifier(ε, n_trees, max_depth=depth,
    leaf_mechanism=mechanism, disjoint=disjoint, random_state=seed)`` fitted on the
    training part; its accuracy equals that of its ``predict`` on the :data:`TEST_ROWS`
    test rows (the unit tests check it against
    :func:`dpviz.experiments.holdout_accuracy`). The forests of the missing ε are fitted
    together (:meth:`~dpviz.trees.forest.DPRandomForestClassifier.fit_encoded_epsilons`:
    the training rows are routed once) and vote from the test rows' leaves, routed once
    per tree structure (:meth:`~dpviz.trees.forest.DPRandomForestClassifier.votes_located`);
    the trees do not depend on ε.
    """
    key = (dataset, int(depth), int(n_trees), mechanism, int(seed), bool(disjoint))
    wanted = [float(e) for e in epsilons]
    missing = [e for e in dict.fromkeys(wanted) if (*key, e) not in _ACCURACY]
    if missing:
        data = explorer_dataset(dataset)
        train, train_labels, test, test_labels = _explorer_split(dataset)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvenPrivateWarning)  # said in the chart's title
            forests = DPRandomForestClassifier(
                n_trees=int(n_trees),
                max_depth=int(depth),
                leaf_mechanism=mechanism,
                disjoint=disjoint,
                domain=data.domain,
                random_state=int(seed),
            ).fit_encoded_epsilons(train, train_labels, data.domain, missing)
        leaves = _test_leaves((dataset, int(depth), int(n_trees), int(seed)), forests[0], test)
        while len(_ACCURACY) + len(missing) > _ACCURACY_SIZE:
            del _ACCURACY[next(iter(_ACCURACY))]
        for eps, forest in zip(missing, forests, strict=True):
            predicted = np.argmax(forest.votes_located(leaves), axis=1)
            _ACCURACY[(*key, eps)] = float(np.mean(predicted == test_labels))
    return [_ACCURACY[(*key, e)] for e in wanted]


def forest_accuracy(
    dataset: str,
    epsilon: float,
    depth: int,
    n_trees: int,
    mechanism: str = "rosnam",
    seed: int = 0,
    disjoint: bool = True,
) -> float:
    """Test accuracy of one FI forest on the explorer's split (:func:`forest_accuracies`)."""
    return forest_accuracies(dataset, [epsilon], depth, n_trees, mechanism, seed, disjoint)[0]


def explorer_frame(
    dataset: str,
    epsilons: Sequence[float],
    depth: int,
    n_trees: int,
    mechanism: str = "rosnam",
    repeats: int = REPEATS,
) -> pd.DataFrame:
    """Accuracy of ``repeats`` forests (seeds 0, 1, ...) at each ε: one row per forest."""
    per_seed = [forest_accuracies(dataset, epsilons, depth, n_trees, mechanism, r)
                for r in range(repeats)]
    return pd.DataFrame(
        [
            {"epsilon": float(eps), "repeat": r, "accuracy": per_seed[r][i]}
            for i, eps in enumerate(epsilons)
            for r in range(repeats)
        ]
    )


@lru_cache(maxsize=256)
def non_private_accuracy(dataset: str, depth: int, n_trees: int) -> float:
    """FI's non-private forest (§2.4): ε = ∞ (exact majority labels), all rows in every tree."""
    return forest_accuracy(dataset, math.inf, depth, n_trees, "rosnam", 0, False)


def fi_table4_explained() -> pd.DataFrame:
    """FI Table 4 with Theorem 2 read literally next to it (the table adds one level).

    Columns of :func:`fi_table4` plus ``theorem2`` — the
    smallest d with E[X | d] < s/2 for the continuous features, plus ⌊r/2⌋ — and
    ``E[X|theorem2]``, the expected number of untested continuous features there.
    """
    table = fi_table4()
    literal, untested = [], []
    for s, r in zip(table["continuous"], table["discrete"], strict=True):
        d = 0
        if s:
            while expected_untested(s, d) >= s / 2:
                d += 1
        literal.append(d + r // 2)
        untested.append(round(expected_untested(s, d), 2) if s else float("nan"))
    return table.assign(theorem2=literal, **{"E[X|theorem2]": untested})


def _empty_leaf_shares(
    data: Dataset, n_trees: int, depth: int, rng: np.random.Generator, n_walks: int
) -> list[float]:
    """% of empty leaves of each of ``n_trees`` trees filled with disjoint rows."""
    codes = data.domain.encode(data.X)
    part = rng.integers(0, n_trees, size=len(codes))
    shares = []
    for t in range(n_trees):
        tree = RandomTree(data.domain, depth, int(rng.integers(0, 2**63)))
        visited = len(np.unique(tree.leaf_keys(codes[part == t])))
        leaves = tree.count_leaves(limit=200_000)
        if leaves is None:  # too many to count: Knuth's unbiased estimate
            leaves = tree.estimate_leaves(n_walks, rng)
        shares.append(100.0 * (1.0 - visited / leaves))
    return shares


@cache
def fi_table3(
    datasets: Sequence[str] = (*SYNTH, "Adult", "Mushroom", "Nursery"),
    *,
    n_runs: int = 10,
    n_walks: int = 20_000,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FI Table 3: % of empty leaves with 1 tree and with 30 trees on disjoint data.

    For each data set, ``n_runs`` times: one tree filled with all rows, and 30
    trees each filled with a disjoint 1/30 of the rows (depth from
    :func:`fletcher_islam_depth`). A leaf is empty when no row reaches it. The
    number of leaves is counted exactly when the tree has at most 2·10^5 leaves
    and otherwise estimated from ``n_walks`` random walks (Knuth 1975) — on
    Mushroom and Adult the trees have 10^7–10^9 leaves. Tree structures and
    leaf occupancy do not depend on ε.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for name in tqdm(datasets, disable=not progress, desc="FI Table 3"):
        data = fi_dataset(name, random_state=seed)
        n_discrete = int(data.domain.categorical_mask.sum())
        depth = fletcher_islam_depth(len(data.domain) - n_discrete, n_discrete)
        one = [s for _ in range(n_runs) for s in _empty_leaf_shares(data, 1, depth, rng, n_walks)]
        thirty = [np.mean(_empty_leaf_shares(data, 30, depth, rng, n_walks)) for _ in range(n_runs)]
        rows.append(
            {
                "dataset": name,
                "rows": data.n_rows,
                "depth": depth,
                "empty_1": np.mean(one),
                "sd_1": np.std(one, ddof=1),
                "empty_30": np.mean(thirty),
                "sd_30": np.std(thirty, ddof=1),
            }
        )
    ours = pd.DataFrame(rows)
    return ours.merge(FI_TABLE3, on="dataset", how="left", suffixes=("", "_paper"))


def _forest(random_state: int, domain, **params) -> DPRandomForestClassifier:
    return DPRandomForestClassifier(domain=domain, random_state=random_state, **params)


def _run(
    datasets: Sequence[str],
    grid: dict,
    *,
    n_rows: int | None,
    n_folds: int,
    n_repeats: int,
    seed: int,
    progress: bool,
    fixed: dict | None = None,
) -> pd.DataFrame:
    frames = []
    for name in tqdm(datasets, disable=not progress, desc="data sets"):
        data = fi_dataset(name, n_rows=n_rows, random_state=seed)
        factory = partial(_forest, domain=data.domain, **(fixed or {}))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotProvenPrivateWarning)
            frame = sweep(
                factory,
                data,
                grid,
                n_folds=n_folds,
                n_repeats=n_repeats,
                seed=seed,
                progress=progress,
                description=name,
            )
        frames.append(frame.assign(dataset=name))
    return pd.concat(frames, ignore_index=True)


def _with_paper(summary: pd.DataFrame, paper: pd.DataFrame, on: list[str]) -> pd.DataFrame:
    out = summary.merge(paper, on=on, how="left")
    out["mean"] *= 100
    out["std"] *= 100
    out["max"] *= 100
    out["gap"] = out["mean"] - out["paper"]
    return out


@cache
def fi_figure4(
    datasets: Sequence[str] = SYNTH,
    *,
    epsilon: float = 1.0,
    n_rows: int | None = None,
    n_folds: int = 5,
    n_repeats: int = 1,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FI Fig. 4 plus the correction: leaf labels by ROSNAM, smooth sensitivity, global 0/1.

    The smooth-sensitivity variant is not proven private (FI 2021 addendum); it is run
    only to compare with the published bars.
    """
    grid = {"leaf_mechanism": ["rosnam", "smooth_sensitivity", "exponential"]}
    frame = _run(
        datasets,
        grid,
        n_rows=n_rows,
        n_folds=n_folds,
        n_repeats=n_repeats,
        seed=seed,
        progress=progress,
        fixed={"epsilon": epsilon},
    )
    summary = summarize(frame, ["dataset", "leaf_mechanism"]).rename(
        columns={"leaf_mechanism": "setting"}
    )
    return _with_paper(summary, FI_FIG4, ["dataset", "setting"])


@cache
def fi_figure5(
    datasets: Sequence[str] = SYNTH,
    *,
    epsilon: float = 1.0,
    n_rows: int | None = None,
    n_folds: int = 5,
    n_repeats: int = 1,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FI Fig. 5a: disjoint rows per tree (full ε each) vs all rows in every tree (ε/τ)."""
    frame = _run(
        datasets,
        {"disjoint": [True, False]},
        n_rows=n_rows,
        n_folds=n_folds,
        n_repeats=n_repeats,
        seed=seed,
        progress=progress,
        fixed={"epsilon": epsilon},
    )
    frame["setting"] = np.where(frame["disjoint"], "disjoint", "shared")
    return _with_paper(summarize(frame, ["dataset", "setting"]), FI_FIG5, ["dataset", "setting"])


@cache
def fi_figure6(
    datasets: Sequence[str] = SYNTH,
    *,
    epsilon: float = 1.0,
    n_rows: int | None = None,
    n_folds: int = 5,
    n_repeats: int = 1,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FI Fig. 6: depth m/2 ("half"), Theorem 2 ("theorem2") and m ("full"), ε = 1.

    Note (docs/papers.md, errata): on SynthA the theorem's depth and m are both 5, yet FI
    report different accuracies for them; ours are equal up to the run's noise.
    """
    frames = []
    for name in datasets:
        data = fi_dataset(name, n_rows=n_rows, random_state=seed)
        m = len(data.domain)
        n_discrete = int(data.domain.categorical_mask.sum())
        depths = {
            "half": max(m // 2, 1),
            "theorem2": fletcher_islam_depth(m - n_discrete, n_discrete),
            "full": m,
        }
        for setting, depth in depths.items():
            frame = sweep(
                partial(_forest, domain=data.domain, epsilon=epsilon, max_depth=depth),
                data,
                {},
                n_folds=n_folds,
                n_repeats=n_repeats,
                seed=seed,
                progress=progress,
                description=f"{name} {setting}",
            )
            frames.append(frame.assign(dataset=name, setting=setting, depth=depth))
    frame = pd.concat(frames, ignore_index=True)
    summary = summarize(frame, ["dataset", "setting", "depth"])
    return _with_paper(summary, FI_FIG6, ["dataset", "setting"])


@cache
def fi_figure7(
    datasets: Sequence[str] = SYNTH,
    *,
    epsilons: Sequence[float] = (0.2, 1.0),
    n_trees: Sequence[int] = (1, 10, 30, 100, 300),
    n_rows: int | None = None,
    n_folds: int = 5,
    n_repeats: int = 1,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FI Fig. 7: accuracy with 1 to 300 trees at ε = 0.2 and ε = 1."""
    grid = {"epsilon": list(epsilons), "n_trees": list(n_trees)}
    frame = _run(
        datasets,
        grid,
        n_rows=n_rows,
        n_folds=n_folds,
        n_repeats=n_repeats,
        seed=seed,
        progress=progress,
    )
    summary = summarize(frame, ["dataset", "epsilon", "n_trees"])
    return _with_paper(summary, FI_FIG7, ["dataset", "epsilon", "n_trees"])
