"""Two ways a comparison of private learners goes wrong, measured: budgets and tuning."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from dpviz.errors import InvalidParameterError
from dpviz.experiments.comparison import load_dataset, n_test_rows
from dpviz.experiments.registry import jpw_n_trees
from dpviz.experiments.reproduce_jpw import UpdateExperiment
from dpviz.experiments.runner import cache, holdout_accuracy
from dpviz.trees.id3 import DiffPID3Classifier
from dpviz.validation import check_epsilon, check_int


@cache
def budget_pitfall(
    dataset: str = "nursery", *, epsilon: float = 0.5, repeats: int = 3, seed: int = 0
) -> pd.DataFrame:
    """JPW's update experiment (§VI-B) with each arm's *claimed* and *true* total ε.

    After a model of D1 was released at ε: ``update`` (JPW's update with D2 at ε: total ε),
    ``union`` (Private-RDT on D1 ∪ D2 at ε: its ledger says ε, but D1 paid twice: 2ε),
    ``union_half`` (both at ε/2: the fair comparison). One row per method:
    ``claimed_epsilon``, ``total_epsilon``, ``model_ledger``, ``mean`` and ``std`` accuracy.
    """
    data = load_dataset(dataset)
    eps = check_epsilon(epsilon)
    n_trees = jpw_n_trees(data)

    spent: dict[str, list[float]] = {}

    class _Arm(UpdateExperiment):
        def fit(self, X: pd.DataFrame, y: pd.Series) -> _Arm:
            super().fit(X, y)
            spent.setdefault(self.method, []).append(float(self.spent_))
            return self

    def factory(random_state: int, **params: Any) -> _Arm:
        return _Arm(
            method=params["method"], epsilon=eps, n_trees=n_trees, domain=data.domain,
            random_state=random_state,
        )

    rows = []
    for method in ("update", "union", "union_half"):
        runs = holdout_accuracy(
            factory, data, repeats=repeats, test_size=n_test_rows(data), seed=seed, method=method
        )
        rows.append(
            {
                "method": method, "claimed_epsilon": eps,
                "total_epsilon": 2 * eps if method == "union" else eps,
                "model_ledger": float(np.max(spent[method])),
                "mean": float(runs["accuracy"].mean()),
                "std": float(runs["accuracy"].std(ddof=1)) if repeats > 1 else math.nan,
            }
        )
    return pd.DataFrame(rows)


@cache
def tuning_pitfall(
    dataset: str = "nursery", *, epsilon: float = 1.0, n: int = 1000,
    depths: Sequence[int] = (2, 3, 4, 5, 6), criteria: Sequence[str] = ("max", "gini", "infogain"),
    n_tuning: int = 200, splits: int = 200, seed: int = 0,
) -> pd.DataFrame:
    """Tuning on the (private) test rows: an optimistic score and a K·ε bill.

    One DiffPID3 per configuration (criterion × depth) at ``epsilon`` on the same ``n`` rows;
    ``splits`` times, the test rows are split into ``n_tuning`` tuning rows and fresh ones, and
    the configuration best on the tuning rows is scored on both. One row per split (``chosen``,
    ``tuning``, ``fresh``); ``attrs``: ``configs`` K, ``epsilon``, ``budgets`` (K·ε, the
    sequential bound), ``spent`` (the ledgers' total), ``test_accuracy`` per configuration.
    """
    data = load_dataset(dataset)
    eps = check_epsilon(epsilon)
    n_test = n_test_rows(data)
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
    for k, (criterion, depth) in enumerate((c, d) for c in criteria for d in depths):
        model = DiffPID3Classifier(
            eps, max_depth=check_int(depth, "depths", minimum=1), criterion=criterion,
            size_bound=data.n_rows if criterion == "infogain" else None, domain=data.domain,
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
                "split": s, "chosen": names[best], "tuning": float(scores[best]),
                "fresh": float(hits[best, fresh].mean()),
            }
        )
    out = pd.DataFrame(rows)
    out.attrs.update(
        configs=len(names), epsilon=eps, budgets=len(names) * eps, spent=float(spent),
        test_accuracy=dict(zip(names, hits.mean(axis=1).round(4).tolist(), strict=True)),
    )
    return out


def tuning_optimism(dataset: str = "nursery", *, draws: int = 40, **params: Any) -> pd.DataFrame:
    """The optimism of :func:`tuning_pitfall` over ``draws`` draws of data and seeds (seed s).

    The chosen model's tuning score is the largest of several noisy scores, so it overstates
    in expectation, by an amount that depends on the draw. One row per draw: ``optimism``
    (mean tuning − fresh), ``positive`` (share of splits > 0), ``chosen``, ``best``.
    """
    rows = []
    for s in range(check_int(draws, "draws", minimum=2)):
        runs = tuning_pitfall(dataset, seed=s, **params)
        gap = runs["tuning"] - runs["fresh"]
        rows.append(
            {
                "seed": s, "optimism": float(gap.mean()), "positive": float((gap > 0).mean()),
                "chosen": int(runs["chosen"].nunique()),
                "best": float(max(runs.attrs["test_accuracy"].values())),
            }
        )
    return pd.DataFrame(rows)
