"""Two ways a comparison of private learners goes wrong, measured: budgets and tuning."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dpviz.domain import Encoded
from dpviz.errors import InvalidParameterError
from dpviz.experiments.comparison import load_dataset, n_test_rows
from dpviz.experiments.registry import jpw_n_trees
from dpviz.experiments.runner import cache, holdout_accuracy
from dpviz.validation import check_epsilon, check_int

if TYPE_CHECKING:  # the estimators and scikit-learn load when a pitfall runs
    from dpviz.experiments.reproduce_jpw import UpdateExperiment


@cache
def budget_pitfall(
    dataset: str = "nursery", *, epsilon: float = 0.5, repeats: int = 3, seed: int = 0
) -> pd.DataFrame:
    """JPW's update experiment (§VI-B) with each arm's *claimed* and *true* total ε.

    ``update`` costs ε; ``union`` (a fresh model of D1 ∪ D2 after a release of D1) claims ε but
    costs 2ε; ``union_half`` (both at ε/2) is the fair comparison. Accuracy ``mean``, ``std``.
    """
    from dpviz.experiments.reproduce_jpw import UpdateExperiment

    data = load_dataset(dataset)
    eps = check_epsilon(epsilon)
    arms: list[UpdateExperiment] = []

    def factory(random_state: int, method: str) -> UpdateExperiment:
        arms.append(UpdateExperiment(method, eps, jpw_n_trees(data), data.domain, random_state))
        return arms[-1]

    rows = []
    for method in ("update", "union", "union_half"):
        runs = holdout_accuracy(
            factory, data, repeats=repeats, test_size=n_test_rows(data), seed=seed, method=method
        )
        rows.append({
            "method": method, "claimed_epsilon": eps,
            "total_epsilon": 2 * eps if method == "union" else eps,
            "model_ledger": max(float(arm.spent_) for arm in arms if arm.method == method),
            "mean": float(runs["accuracy"].mean()),
            "std": float(runs["accuracy"].std(ddof=1)) if repeats > 1 else math.nan,
        })
    return pd.DataFrame(rows)


@cache
def tuning_pitfall(
    dataset: str = "nursery", *, epsilon: float = 1.0, n: int = 1000,
    depths: Sequence[int] = (2, 3, 4, 5, 6), criteria: Sequence[str] = ("max", "gini", "infogain"),
    n_tuning: int = 200, splits: int = 200, seed: int = 0,
) -> pd.DataFrame:
    """Tuning on the (private) test rows: an optimistic score and a K·ε bill.

    K DiffPID3 configurations on the same rows; per split of the test rows, the best on
    ``n_tuning`` rows is scored on them (``tuning``) and on the rest (``fresh``). ``attrs``:
    ``configs``, ``epsilon``, ``budgets`` (K·ε), ``spent``, ``test_accuracy``.
    """
    from sklearn.model_selection import train_test_split

    from dpviz.trees.id3 import DiffPID3Classifier

    data = load_dataset(dataset)
    eps = check_epsilon(epsilon)
    n_test = n_test_rows(data)
    X_pool, X_test, y_pool, y_test = train_test_split(
        data.X, data.y, test_size=n_test, random_state=seed
    )
    if not 0 < n_tuning < n_test:
        raise InvalidParameterError(f"n_tuning must be in (0, {n_test}), got {n_tuning!r}")
    rng = np.random.default_rng([seed, 13])
    train = rng.choice(len(X_pool), size=min(check_int(n, "n", minimum=2), len(X_pool)),
                       replace=False)
    truth = y_test.to_numpy()
    # The K configurations read the same rows: encoded once for all (the same codes each fit and
    # prediction would make; the same models and answers, without K encodings of each).
    rows_train, y_train = Encoded(data.domain.encode(X_pool.iloc[train]), data.domain), \
        y_pool.iloc[train]
    rows_test = Encoded(data.domain.encode(X_test), data.domain)
    correct, names, spent = [], [], 0.0
    for k, (criterion, depth) in enumerate((c, d) for c in criteria for d in depths):
        model = DiffPID3Classifier(
            eps, max_depth=check_int(depth, "depths", minimum=1), criterion=criterion,
            size_bound=data.n_rows if criterion == "infogain" else None, domain=data.domain,
            random_state=seed + k,
        ).fit(rows_train, y_train)
        spent += model.ledger_.spent
        correct.append(model.predict(rows_test) == truth)
        names.append(f"{criterion}, depth {depth}")
    hits = np.asarray(correct, dtype=float)  # (configs, test rows)
    rows = []
    for s in range(check_int(splits, "splits", minimum=1)):
        order = rng.permutation(n_test)
        tune, fresh = order[:n_tuning], order[n_tuning:]
        scores = hits[:, tune].mean(axis=1)
        best = int(np.argmax(scores))
        rows.append({"split": s, "chosen": names[best], "tuning": float(scores[best]),
                     "fresh": float(hits[best, fresh].mean())})
    out = pd.DataFrame(rows)
    out.attrs.update(
        configs=len(names), epsilon=eps, budgets=len(names) * eps, spent=float(spent),
        test_accuracy=dict(zip(names, hits.mean(axis=1).round(4).tolist(), strict=True)),
    )
    return out


def tuning_optimism(dataset: str = "nursery", *, draws: int = 40, **params: Any) -> pd.DataFrame:
    """:func:`tuning_pitfall`'s optimism (tuning − fresh) over ``draws`` draws (seeds)."""
    rows = []
    for s in range(check_int(draws, "draws", minimum=2)):
        runs = tuning_pitfall(dataset, seed=s, **params)
        gap = runs["tuning"] - runs["fresh"]
        rows.append({"seed": s, "optimism": float(gap.mean()), "positive": float((gap > 0).mean()),
                     "chosen": int(runs["chosen"].nunique()),
                     "best": float(max(runs.attrs["test_accuracy"].values()))})
    return pd.DataFrame(rows)
