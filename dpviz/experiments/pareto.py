"""Reading a comparison: Pareto frontier, privacy price, winners, "which algorithm when" claims.

A setting is *Pareto efficient* (FS §1, Fig. 2) when no other does better on accuracy,
privacy ε or data size n without doing worse on another. All functions read a frame of
:func:`dpviz.experiments.comparison.compare`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpviz.errors import InvalidParameterError
from dpviz.experiments.comparison import nearest, summary
from dpviz.experiments.registry import PRIVATE

#: How much better than the majority class a learner must be to "beat" it: more than the
#: spread of constant guesses (Nursery's three large classes: 33.4%, 32.9%, 31.2%).
FLOOR_MARGIN = 0.05

#: The constant-guess reference of :func:`~dpviz.experiments.comparison.compare`.
MAJORITY = "majority class"

#: Label of a cell where no private algorithm beats the majority-class reference.
NO_WINNER = "none beats the majority class"


# ---------------------------------------------------------------------------------- Pareto
def dominated_by(epsilon: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Whether another point dominates each point (ε no larger, accuracy no lower, one strictly)."""
    e = np.asarray(epsilon, dtype=float)[:, None]
    a = np.asarray(accuracy, dtype=float)[:, None]
    no_worse = (e.T <= e) & (a.T >= a)
    better = (e.T < e) | (a.T > a)
    return np.any(no_worse & better, axis=1)


def pareto_frontier(
    frame: pd.DataFrame, *, by: Sequence[str] = ("dataset", "n"), constant: bool = True
) -> pd.DataFrame:
    """The Pareto-efficient (algorithm, ε) points per group ``by`` (column ``efficient``).

    With ``constant`` the majority class joins each group at ε = 0: it reads no private row.
    """
    points = summary(frame[frame["private"]])
    by = list(by)
    guesses = summary(frame[frame["algorithm"] == MAJORITY]) if constant else points.iloc[:0]
    guesses = {_key(k): v for k, v in guesses.groupby(by)["mean"].max().items()}
    flags = pd.Series(False, index=points.index)
    for keys, group in points.groupby(by, sort=False):
        guess = guesses.get(_key(keys), -np.inf)
        epsilon = np.append(group["epsilon"].to_numpy(float), 0.0)
        accuracy = np.append(group["mean"].to_numpy(float), guess)
        flags[group.index] = ~dominated_by(epsilon, accuracy)[:-1]
    points["efficient"] = flags
    return points.sort_values([*by, "epsilon", "mean"], ascending=[*[True] * len(by), True, False])


def _key(keys: object) -> tuple:
    return keys if isinstance(keys, tuple) else (keys,)


def envelope(points: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """The best mean accuracy at a budget ≤ ε per group (``best``, and the first ``algorithm``)."""
    rows = []
    for keys, group in points.groupby(list(by), sort=False):
        best = group.groupby("epsilon")["mean"].max().sort_index().cummax()
        for e, value in best.items():
            winner = group[(group["epsilon"] <= e) & np.isclose(group["mean"], value)]
            rows.append({**dict(zip(by, _key(keys), strict=True)), "epsilon": e, "best": value,
                         "algorithm": winner["algorithm"].iloc[0]})
    return pd.DataFrame(rows)


def privacy_price(frame: pd.DataFrame, target: float) -> pd.DataFrame:
    """The smallest ε of the grid at which a private algorithm reaches ``target`` accuracy.

    One row per (dataset, n): ``epsilon`` (NaN if none), ``algorithm``, ``accuracy``.
    """
    if not 0 <= target <= 1:
        raise InvalidParameterError(f"target must be in [0, 1], got {target!r}")
    points = summary(frame[frame["private"]])
    rows = []
    for (dataset, n), group in points.groupby(["dataset", "n"], sort=True):
        hit = group[group["mean"] >= target]
        hit = hit.sort_values(["epsilon", "mean"], ascending=[True, False])
        rows.append({"dataset": dataset, "n": int(n),
                     "epsilon": float(hit["epsilon"].iloc[0]) if len(hit) else math.nan,
                     "algorithm": hit["algorithm"].iloc[0] if len(hit) else None,
                     "accuracy": float(hit["mean"].iloc[0]) if len(hit) else math.nan})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- which when
def winners(frame: pd.DataFrame, *, floor_margin: float = FLOOR_MARGIN) -> pd.DataFrame:
    """The best private algorithm per (dataset, n, ε), its ties, runner-up and margin.

    ``winner`` is :data:`NO_WINNER` unless ``floor_margin`` above the majority class.
    """
    points = summary(frame[frame["private"]])
    order = {a: k for k, a in enumerate(PRIVATE)}
    points["rank"] = points["algorithm"].map(order)
    floors = frame[frame["algorithm"] == MAJORITY].groupby(["dataset", "n"])["accuracy"].mean()
    rows = []
    for (dataset, n, eps), group in points.groupby(["dataset", "n", "epsilon"], sort=True):
        ranked = group.sort_values(["mean", "rank"], ascending=[False, True])
        best = float(ranked["mean"].iloc[0])
        tied = ranked[np.isclose(ranked["mean"], best, rtol=0, atol=1e-12)]
        rest = ranked.iloc[len(tied) :]
        floor = float(floors.get((dataset, n), math.nan))
        useful = not best < floor + floor_margin  # True when there is no floor
        rows.append({
            "dataset": dataset, "n": int(n), "epsilon": float(eps),
            "winner": ranked["algorithm"].iloc[0] if useful else NO_WINNER,
            "algorithm": ranked["algorithm"].iloc[0], "accuracy": best,
            "tied": ", ".join(tied["algorithm"].iloc[1:]),
            "runner_up": rest["algorithm"].iloc[0] if len(rest) else None,
            "margin": float(best - rest["mean"].iloc[0]) if len(rest) else math.nan,
            "majority": floor,
        })
    return pd.DataFrame(rows)


def useful_from(frame: pd.DataFrame, *, margin: float = FLOOR_MARGIN) -> pd.DataFrame:
    """The smallest ε beating the majority class by ``margin`` per (dataset, n), and ε·n."""
    table = winners(frame, floor_margin=margin)
    rows = []
    for (dataset, n), group in table.groupby(["dataset", "n"], sort=True):
        hit = group[group["winner"] != NO_WINNER].sort_values("epsilon")
        eps = float(hit["epsilon"].iloc[0]) if len(hit) else math.nan
        rows.append({"dataset": dataset, "n": int(n), "epsilon": eps,
                     "algorithm": hit["algorithm"].iloc[0] if len(hit) else None,
                     "accuracy": float(hit["accuracy"].iloc[0]) if len(hit) else math.nan,
                     "majority": float(group["majority"].iloc[0]), "epsilon_n": eps * n})
    return pd.DataFrame(rows)


def best_of_runs(frame: pd.DataFrame, learners: Sequence[str], name: str) -> pd.DataFrame:
    """The best of ``learners`` per (dataset, n, ε), chosen without the test rows it is scored on.

    Run ``r``'s choice is the learner with the best mean accuracy over the *other* runs
    (leave one run out; ties: the first of ``learners``), scored on run ``r``'s test rows; the
    runs are independent splits (:func:`~dpviz.experiments.comparison.compare`), so no run's
    accuracy selects itself. Rows of ``frame``'s kind, ``algorithm`` = ``name``, and ``chosen``
    the learner each run took; NaN with fewer than two runs. Non-private: the choice reads the
    other runs' test rows.
    """
    keys = ["dataset", "n", "epsilon"]
    rows = frame[frame["algorithm"].isin(learners) & frame["private"]]
    order = [a for a in learners if a in set(rows["algorithm"])]
    out = []
    for values, group in rows.groupby(keys, sort=True):
        wide = group.pivot_table(index="repeat", columns="algorithm", values="accuracy",
                                 aggfunc="first").reindex(columns=order)
        scores = wide.to_numpy(dtype=float)
        runs = np.isfinite(scores).sum(axis=0)
        counted = runs - np.isfinite(scores)  # each learner's runs other than this one
        with np.errstate(invalid="ignore", divide="ignore"):
            others = (np.nansum(scores, axis=0) - np.nan_to_num(scores)) / counted
        others[~np.isfinite(others)] = -np.inf
        picks = others.argmax(axis=1)  # the first of the best: learners' order breaks ties
        for run, pick in zip(wide.index, picks, strict=True):
            chosen = np.isfinite(others[wide.index.get_loc(run)]).any()
            out.append({**dict(zip(keys, values, strict=True)), "repeat": run,
                        "algorithm": name, "private": True,
                        "accuracy": scores[wide.index.get_loc(run), pick] if chosen else math.nan,
                        "chosen": order[pick] if chosen else None})
    columns = [*keys, "repeat", "algorithm", "private", "accuracy", "chosen"]
    return pd.DataFrame(out, columns=columns)


# ---------------------------------------------------------------------------------- claims
def _mean_at(points: pd.DataFrame, algorithm: str) -> pd.Series:
    """``algorithm``'s mean accuracy, indexed by (n, ε)."""
    return points[points["algorithm"] == algorithm].set_index(["n", "epsilon"])["mean"]


def _claim_one_query_per_node(points: pd.DataFrame) -> dict:
    """Claim 1: DiffPID3-Max is on average at least 3 points above SuLQ-ID3 (FS §4, Table 1)."""
    diff = (_mean_at(points, "DiffPID3-Max") - _mean_at(points, "SuLQ-ID3")).dropna()
    return {
        "claim": "DiffPID3-Max beats SuLQ-ID3 (one exponential-mechanism query per node "
        "instead of noisy counts for every attribute)",
        "ours": f"mean difference over {len(diff)} (ε, n) cells: {diff.mean():+.3f}; "
        f"SuLQ ahead by > 2 points in {int((diff < -0.02).sum())} cells",
        "holds": bool(len(diff) and diff.mean() >= 0.03),
    }


def _claim_quality_order(points: pd.DataFrame) -> dict:
    """Claim 2: Max beats Gini beats InfoGain on average over the grid (FS §5.2, Fig. 8)."""
    max_gini = (_mean_at(points, "DiffPID3-Max") - _mean_at(points, "DiffPID3-Gini")).dropna()
    gini_ig = (_mean_at(points, "DiffPID3-Gini") - _mean_at(points, "DiffPID3-InfoGain")).dropna()
    return {
        "claim": "Max beats Gini beats InfoGain (score sensitivity 1, 2, log2(N+1) + 1/ln 2)",
        "ours": f"mean differences over {len(max_gini)} cells: Max − Gini "
        f"{max_gini.mean():+.3f}, Gini − InfoGain {gini_ig.mean():+.3f}",
        "holds": bool(len(max_gini) and max_gini.mean() > 0 and gini_ig.mean() > 0),
    }


def _claim_data_buys_privacy(rows: pd.DataFrame, sizes: list[int], target: float) -> dict:
    """Claim 3: the ε needed for ``target`` never grows with n, and falls from first to last."""
    price = privacy_price(rows, target)
    price = price.set_index("n")["epsilon"].reindex(sizes)
    filled = price.fillna(math.inf).tolist()
    return {
        "claim": f"more data buys privacy: the ε needed for {target:.0%} accuracy falls as "
        "n grows",
        "ours": "; ".join(f"n = {n}: ε = {e:g}" for n, e in zip(sizes, filled, strict=True)),
        "holds": bool(
            all(a >= b for a, b in itertools.pairwise(filled)) and filled[-1] < filled[0]
        ),
    }


def _claim_price_shrinks(rows: pd.DataFrame, finite: pd.DataFrame, small: int, large: int) -> dict:
    """Claim 4: best at ε = ∞ minus best at ε ≈ 1 is smaller at the largest n than the smallest."""
    exact = summary(rows[rows["algorithm"].isin(PRIVATE) & ~np.isfinite(rows["epsilon"])])
    eps_one = nearest(1.0, finite["epsilon"].unique())
    gaps = {}
    for n in (small, large):
        best_inf = exact.loc[exact["n"] == n, "mean"].max()
        best_one = finite.loc[(finite["n"] == n) & np.isclose(finite["epsilon"], eps_one), "mean"]
        gaps[n] = float(best_inf - best_one.max())
    return {
        "claim": f"the price of privacy (best at ε = ∞ minus best at ε = {eps_one:g}) "
        "shrinks with n",
        "ours": f"n = {small}: {gaps[small]:.3f}; n = {large}: {gaps[large]:.3f}",
        "holds": bool(gaps[large] < gaps[small]),
    }


def _claim_forest_needs_data(
    rows: pd.DataFrame, finite: pd.DataFrame, small: int, large: int
) -> dict:
    """Claim 5: the DP forest is below the majority class at the smallest n, near the best later."""
    majority = rows[(rows["algorithm"] == MAJORITY) & (rows["n"] == small)]
    floor = float(majority["accuracy"].mean()) if len(majority) else math.nan
    forest_small = finite[(finite["algorithm"] == "DP forest") & (finite["n"] == small)]
    top = finite[(finite["n"] == large) & np.isclose(finite["epsilon"], finite["epsilon"].max())]
    forest_top = top.loc[top["algorithm"] == "DP forest", "mean"]
    gap = float(top["mean"].max() - forest_top.max()) if len(forest_top) else math.nan
    return {
        "claim": "FI's forest (100 trees, disjoint rows) needs data: below the majority "
        "class at the smallest n, close to the best at the largest n and ε",
        "ours": f"n = {small}: at most {forest_small['mean'].max():.3f} "
        f"(majority class {floor:.3f}); n = {large}: {gap:.3f} behind the best",
        "holds": bool(forest_small["mean"].max() < floor and gap <= 0.05),
    }


def _claim_rule_of_thumb(rows: pd.DataFrame) -> dict:
    """Claim 6: ε·n at :func:`useful_from`'s threshold varies by at most a factor of 4."""
    useful = useful_from(rows).dropna(subset=["epsilon"])
    products = useful["epsilon_n"].to_numpy()
    spread = float(products.max() / products.min()) if len(products) else math.nan
    return {
        "claim": "a rule of thumb: a private tree beats the majority class once ε·n passes "
        "roughly the same value, whatever n (within a factor of 4)",
        "ours": "; ".join(
            f"n = {n}: ε = {e:g} (ε·n = {p:g})"
            for n, e, p in zip(useful["n"], useful["epsilon"], products, strict=True)
        ),
        "holds": bool(len(products) >= 2 and spread <= 4),
    }


def claims(frame: pd.DataFrame, dataset: str, *, target: float = 0.8) -> pd.DataFrame:
    """The "which algorithm when" statements on ``dataset``: ``claim``, ``ours``, ``holds``."""
    rows = frame[frame["dataset"] == dataset]
    points = summary(rows[rows["private"]])
    if points.empty:
        raise InvalidParameterError(f"no private rows for dataset {dataset!r}")
    sizes = [int(n) for n in sorted(points["n"].unique())]
    small, large = sizes[0], sizes[-1]
    finite = points[np.isfinite(points["epsilon"])]
    return pd.DataFrame(
        [
            _claim_one_query_per_node(points), _claim_quality_order(points),
            _claim_data_buys_privacy(rows, sizes, target),
            _claim_price_shrinks(rows, finite, small, large),
            _claim_forest_needs_data(rows, finite, small, large), _claim_rule_of_thumb(rows),
        ]
    )
