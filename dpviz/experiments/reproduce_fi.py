"""Reproductions of Fletcher & Islam (2017) with the corrected (ROSNAM) leaf mechanism.

Each figure returns our numbers next to FI's. FI measured with the smooth-sensitivity
mechanism the 2021 addendum withdrew; ours use Report One-Sided Noisy Arg-Max unless said
otherwise, so expect a few points less (the gap is reported).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz import mechanisms
from dpviz.data import catalogue
from dpviz.data.published import FI_FIG4, FI_FIG5, FI_FIG6, FI_FIG7, FI_TABLE2, FI_TABLE3, SYNTH
from dpviz.data.synthetic import fi_synth
from dpviz.data.uci import Dataset, load
from dpviz.domain import Domain
from dpviz.errors import NotProvenPrivateWarning
from dpviz.experiments.runner import cache, summarize, sweep
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.random_tree import FI_TABLE4, RandomTree, expected_untested, fletcher_islam_depth

#: FI Table 3's data sets, as FI names them: SynthA-G, Adult, Mushroom, Nursery.
TABLE3_DATASETS = (*SYNTH, *catalogue.display_names("adult", "mushroom", "nursery"))


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
    """FI's data sets as in FI Table 3; ``n_rows`` keeps the first rows of a shuffle."""
    key = catalogue.dataset_id(name)
    synthetic = catalogue.source(key) == "fi-synth"
    if synthetic:
        data = fi_synth(key, n_rows=n_rows or 30_000, random_state=random_state)
    elif key == "mushroom":
        data = load("mushroom", missing="drop_rows")
    elif key == "adult":
        data = load("adult", split="original")
    else:
        data = load(key)
    if n_rows is not None and n_rows < data.n_rows and not synthetic:
        idx = np.random.default_rng(random_state).permutation(data.n_rows)[:n_rows]
        data = Dataset(data.name, data.X.iloc[idx].reset_index(drop=True),
                       data.y.iloc[idx].reset_index(drop=True), data.domain, data.citation,
                       data.description, data.url)
    return data


def fi_table4_explained() -> pd.DataFrame:
    """FI Table 4 with Theorem 2 read literally (one level less) and its ``E[X|theorem2]``."""
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
    datasets: Sequence[str] = TABLE3_DATASETS, *, n_runs: int = 10,
    n_walks: int = 20_000, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """FI Table 3: % of empty leaves with 1 tree and with 30 trees on disjoint data.

    Leaves counted exactly up to 2·10^5, else estimated from ``n_walks`` random walks.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for name in tqdm(datasets, disable=not progress, desc="FI Table 3"):
        data = fi_dataset(name, random_state=seed)
        depth = fig6_depths(data.domain)["theorem2"]
        one = [s for _ in range(n_runs) for s in _empty_leaf_shares(data, 1, depth, rng, n_walks)]
        thirty = [np.mean(_empty_leaf_shares(data, 30, depth, rng, n_walks)) for _ in range(n_runs)]
        rows.append({"dataset": name, "rows": data.n_rows, "depth": depth,
                     "empty_1": np.mean(one), "sd_1": np.std(one, ddof=1),
                     "empty_30": np.mean(thirty), "sd_30": np.std(thirty, ddof=1)})
    ours = pd.DataFrame(rows)
    return ours.merge(FI_TABLE3, on="dataset", how="left", suffixes=("", "_paper"))


def _forest(random_state: int, domain, **params) -> DPRandomForestClassifier:
    return DPRandomForestClassifier(domain=domain, random_state=random_state, **params)


def _figure(
    datasets: Sequence[str], settings: Callable[[Dataset], list[tuple[dict, dict]]], by: list[str],
    paper: pd.DataFrame, on: list[str], *, n_rows: int | None, n_folds: int, n_repeats: int,
    seed: int, progress: bool,
) -> pd.DataFrame:
    """One FI figure: a :func:`sweep` per data set and setting, summarized next to the paper.

    ``settings(data)`` lists (columns to add, forest parameters; a list is a grid axis).
    """
    frames = []
    for name in tqdm(datasets, disable=not progress, desc="data sets"):
        data = fi_dataset(name, n_rows=n_rows, random_state=seed)
        for columns, params in settings(data):
            grid = {k: v for k, v in params.items() if isinstance(v, list)}
            fixed = {k: v for k, v in params.items() if k not in grid}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NotProvenPrivateWarning)
                frame = sweep(partial(_forest, domain=data.domain, **fixed), data, grid,
                              n_folds=n_folds, n_repeats=n_repeats, seed=seed,
                              progress=progress, description=name)
            frames.append(frame.assign(dataset=name, **columns))
    out = summarize(pd.concat(frames, ignore_index=True), by).merge(paper, on=on, how="left")
    out[["mean", "std", "max"]] *= 100
    out["gap"] = out["mean"] - out["paper"]
    return out


@cache
def fi_figure4(
    datasets: Sequence[str] = SYNTH, *, epsilon: float = 1.0, n_rows: int | None = None,
    n_folds: int = 5, n_repeats: int = 1, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """FI Fig. 4 and the correction: leaf labels by ROSNAM, smooth sensitivity, global 0/1.

    Smooth sensitivity is not proven private (FI 2021 addendum): run to compare with FI's bars.
    """
    mechanisms_ = ["rosnam", "smooth_sensitivity", "exponential"]
    return _figure(
        datasets,
        lambda data: [({"setting": lambda f: f["leaf_mechanism"]},
                       {"epsilon": epsilon, "leaf_mechanism": mechanisms_})],
        ["dataset", "setting"], FI_FIG4, ["dataset", "setting"], n_rows=n_rows,
        n_folds=n_folds, n_repeats=n_repeats, seed=seed, progress=progress,
    )


@cache
def fi_figure5(
    datasets: Sequence[str] = SYNTH, *, epsilon: float = 1.0, n_rows: int | None = None,
    n_folds: int = 5, n_repeats: int = 1, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """FI Fig. 5a: disjoint rows per tree (full ε each) vs all rows in every tree (ε/τ)."""
    setting = {"setting": lambda f: np.where(f["disjoint"], "disjoint", "shared")}
    return _figure(
        datasets, lambda data: [(setting, {"epsilon": epsilon, "disjoint": [True, False]})],
        ["dataset", "setting"], FI_FIG5, ["dataset", "setting"], n_rows=n_rows,
        n_folds=n_folds, n_repeats=n_repeats, seed=seed, progress=progress,
    )


def fig6_depths(domain: Domain) -> dict[str, int]:
    """FI Fig. 6's depths: m/2 (``half``), Theorem 2 + ⌊r/2⌋ (``theorem2``) and m (``full``)."""
    m = len(domain)
    n_discrete = int(domain.categorical_mask.sum())
    return {"half": max(m // 2, 1), "theorem2": fletcher_islam_depth(m - n_discrete, n_discrete),
            "full": m}


@cache
def fi_figure6(
    datasets: Sequence[str] = SYNTH, *, epsilon: float = 1.0, n_rows: int | None = None,
    n_folds: int = 5, n_repeats: int = 1, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """FI Fig. 6: depth m/2 ("half"), Theorem 2 ("theorem2") and m ("full"), at ε = 1."""
    return _figure(
        datasets,
        lambda data: [({"setting": setting, "depth": depth}, {"epsilon": epsilon,
                                                                "max_depth": depth})
                      for setting, depth in fig6_depths(data.domain).items()],
        ["dataset", "setting", "depth"], FI_FIG6, ["dataset", "setting"], n_rows=n_rows,
        n_folds=n_folds, n_repeats=n_repeats, seed=seed, progress=progress,
    )


@cache
def fi_figure7(
    datasets: Sequence[str] = SYNTH, *, epsilons: Sequence[float] = (0.2, 1.0),
    n_trees: Sequence[int] = (1, 10, 30, 100, 300), n_rows: int | None = None, n_folds: int = 5,
    n_repeats: int = 1, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """FI Fig. 7: accuracy with 1 to 300 trees at ε = 0.2 and ε = 1."""
    by = ["dataset", "epsilon", "n_trees"]
    return _figure(
        datasets, lambda data: [({}, {"epsilon": list(epsilons), "n_trees": list(n_trees)})],
        by, FI_FIG7, by, n_rows=n_rows, n_folds=n_folds, n_repeats=n_repeats, seed=seed,
        progress=progress,
    )
