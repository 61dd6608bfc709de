"""Reproductions of Jagannathan, Pillaipakkamnatt & Wright (2009): Private-RDT and its update.

JPW print their accuracies as charts (Fig. 6–8, 13–15); protocol (§VI): 10 runs of
stratified 10-fold cross-validation, 10 trees (Votes: 5), height k/2, ε ∈ {0.5, 0.75, 1, ∞}.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz.data import catalogue
from dpviz.data.published import JPW_DATASETS  # JPW's data sets, 10 trees (Votes: 5)
from dpviz.data.uci import load
from dpviz.experiments.runner import cache, summarize, sweep
from dpviz.trees._base import Classifier
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.validation import check_option


def make_private_rdt(random_state: int, domain: Any, **params: Any) -> PrivateRDTClassifier:
    """An unfitted Private-RDT with this seed and public domain (a :func:`sweep` factory)."""
    return PrivateRDTClassifier(domain=domain, random_state=random_state, **params)


@cache
def jpw_accuracy(
    datasets: Sequence[str] = tuple(JPW_DATASETS), *,
    epsilons: Sequence[float] = (0.5, 0.75, 1.0, math.inf), n_runs: int = 10, n_folds: int = 10,
    seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """JPW Fig. 6–8: mean, std and max accuracy (%) of Private-RDT over runs, per data set and ε."""
    return _sweeps(make_private_rdt, datasets, {"epsilon": list(epsilons)}, n_runs, n_folds, seed,
                   progress, "JPW")


def _sweeps(
    factory: Callable[..., Any], datasets: Sequence[str], grid: dict[str, list], n_runs: int,
    n_folds: int, seed: int, progress: bool, label: str,
) -> pd.DataFrame:
    """A :func:`sweep` of ``factory`` per data set (JPW's trees), summarized over runs in %."""
    frames = []
    for name in tqdm(datasets, disable=not progress, desc=label):
        data = load(name)
        trees = partial(factory, domain=data.domain, n_trees=JPW_DATASETS.get(name, 10))
        frames.append(sweep(trees, data, grid, n_folds=n_folds, n_repeats=n_runs, seed=seed,
                            progress=progress, description=name))
    summary = summarize(pd.concat(frames, ignore_index=True), ["dataset", *grid])
    summary[["mean", "std", "max"]] *= 100
    return summary


class UpdateExperiment(Classifier):
    """One arm of JPW's update experiment (§VI-B); ``fit`` splits the rows into halves D1, D2.

    ``"update"``: D1 at ε, then JPW's update with D2 at ε (total ε); ``"union_half"``: D1 at
    ε/2, then D1 ∪ D2 at ε/2 (total ε); ``"union"``: D1 ∪ D2 at ε (JPW's curve; total 2ε).
    """

    def __init__(
        self, method: str = "update", epsilon: float = 1.0, n_trees: int = 10, domain: Any = None,
        random_state: Any = None,
    ) -> None:
        self.method = method
        self.epsilon = epsilon
        self.n_trees = n_trees
        self.domain = domain
        self.random_state = random_state

    def fit(self, X: pd.DataFrame, y: pd.Series) -> UpdateExperiment:
        """Split into D1, D2 and build the arm's model."""
        check_option(self.method, ("update", "union_half", "union"), "method")
        rng = np.random.default_rng(self.random_state)
        order = rng.permutation(len(X))
        d1, d2 = order[: len(X) // 2], order[len(X) // 2 :]
        kw = dict(n_trees=self.n_trees, domain=self.domain, random_state=int(rng.integers(2**31)))
        if self.method == "update":
            model = PrivateRDTClassifier(epsilon=self.epsilon, **kw).fit(X.iloc[d1], y.iloc[d1])
            model.update(X.iloc[d2], y.iloc[d2])
        elif self.method == "union_half":
            model = PrivateRDTClassifier(epsilon=self.epsilon / 2, **kw).fit(X.iloc[d1], y.iloc[d1])
            model.update(
                X.iloc[d2], y.iloc[d2], method="rebuild", X_previous=X.iloc[d1],
                y_previous=y.iloc[d1],
            )
        else:  # "union"
            model = PrivateRDTClassifier(epsilon=self.epsilon, **kw).fit(X, y)
        self.model_ = model
        self.classes_ = model.classes_
        self.spent_ = model.ledger_.spent
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """Predictions of the arm's final model."""
        return self.model_.predict(X)


@cache
def jpw_update(
    datasets: Sequence[str] = catalogue.dataset_ids("nursery", "mushroom"), *,
    epsilons: Sequence[float] = (0.5, 0.75, 1.0), n_runs: int = 10, n_folds: int = 10,
    seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """JPW Fig. 13–15: the update against models of the union (accuracy in %).

    Per data set, ε and method, with ``total_epsilon`` (ε, or 2ε for "union").
    """
    grid = {"epsilon": list(epsilons), "method": ["update", "union_half", "union"]}
    summary = _sweeps(UpdateExperiment, datasets, grid, n_runs, n_folds, seed, progress,
                      "JPW update")
    summary["total_epsilon"] = np.where(summary["method"] == "union", 2, 1) * summary["epsilon"]
    return summary
