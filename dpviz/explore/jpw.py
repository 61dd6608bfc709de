"""Notebook 02 (JPW, Private-RDT): the explorer, the tables around the reproduction, the demos.

Jagannathan, Pillaipakkamnatt & Wright (2009) release an ensemble of random
decision trees whose structure is drawn before any row is read, with Laplace
noise on every component of each tree's leaf vector (Fig. 5, Theorem 3).

* :func:`jpw_explorer_chart` — the explorer callback: hold-out accuracy of
  Private-RDT against ε (a cached curve over :data:`EXPLORER_EPSILONS` plus a
  fresh evaluation at the slider's ε), with the ε = ∞ reference;
  :func:`jpw_controls` builds its widgets (picking a data set resets depth and
  trees to the paper's defaults).
* :func:`accuracy_table`, :func:`claims_table`, :func:`accuracy_figure` and
  :func:`update_table` present :func:`dpviz.experiments.reproduce_jpw.jpw_accuracy` and
  :func:`~dpviz.experiments.reproduce_jpw.jpw_update` next to the paper's claims (JPW print
  their accuracies only as charts).
* :func:`private_id3_noise` (Table I), :func:`leaf_vector_table` and the pruning
  demo (:func:`pruning_neighbours`, :func:`pruning_demo`, :func:`pruning_audit`,
  :func:`private_leaf_audit`) back the notebook's prose.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from dpviz.audit import targets as audit_targets
from dpviz.audit.engine import AuditResult, audit
from dpviz.data.published import JPW_TABLE1
from dpviz.data.uci import Dataset, load
from dpviz.domain import Categorical, Domain
from dpviz.errors import InvalidParameterError
from dpviz.experiments import holdout_split
from dpviz.experiments.reproduce_jpw import JPW_DATASETS, make_private_rdt
from dpviz.trees.random_tree import RandomTree, fan_depth
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.ui.plots import accuracy_chart
from dpviz.ui.widgets import choice_dropdown, depth_slider, epsilon_slider, trees_slider
from dpviz.validation import check_epsilon, check_int

__all__ = [
    "EXPLORER_EPSILONS",
    "MAX_DEPTH",
    "MAX_TREES",
    "REPEATS",
    "accuracy_figure",
    "accuracy_table",
    "claims_table",
    "depth_range",
    "explorer_curve",
    "explorer_defaults",
    "jpw_controls",
    "jpw_explorer_chart",
    "leaf_vector_table",
    "private_id3_noise",
    "private_leaf_audit",
    "pruning_audit",
    "pruning_demo",
    "pruning_neighbours",
    "update_table",
]

#: ε values of the explorer's cached accuracy curve (ε = ∞ is the reference line).
EXPLORER_EPSILONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)

#: Fits per point of the explorer (the band is their spread).
REPEATS = 3

#: Largest height of the explorer's depth slider, per data set. A move of the depth or trees
#: slider refits the whole curve (8 ε values × 3 fits = 24 Private-RDT fits), and a fit's
#: cost grows with height × trees and with the leaves the rows reach: with these bounds and
#: :data:`MAX_TREES` every move stays under a second on a 2-core machine
#: (``bench/slider_extremes.py``; Nursery took 2.5 s at height 8 with 10 trees, 13 s at
#: height 12 with 50 trees). Nursery stops at JPW's height k/2 = 4 (its 12,960 rows spread
#: over up to 12,960 leaves below); Mushroom at its k/2 = 10; Votes (435 rows) at 12.
MAX_DEPTH = {"nursery": 4, "mushroom": 10, "votes": 12}
#: Most trees of the explorer's trees slider: JPW's 10 (Votes: 5); see :data:`MAX_DEPTH`.
MAX_TREES = 10

# ---------------------------------------------------------------------------------- explorer
@functools.cache
def _data(name: str) -> Dataset:
    """The data set, loaded once (holdout_accuracy caches its split on this object)."""
    if name not in JPW_DATASETS:
        raise InvalidParameterError(f"dataset must be one of {list(JPW_DATASETS)}, got {name!r}")
    return load(name)


def explorer_defaults(dataset: str) -> dict[str, int]:
    """The paper's settings for ``dataset``: height k/2 (Fan et al.) and 10 trees (Votes: 5)."""
    data = _data(dataset)
    return {"depth": fan_depth(len(data.domain)), "n_trees": JPW_DATASETS[dataset]}


_POINTS: dict[tuple[str, float, int, int], pd.DataFrame] = {}


@functools.cache
def _encoded_split(dataset: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The explorer's 75/25 split (:func:`~dpviz.experiments.holdout_split`, seed 0), encoded.

    (train codes, train labels, test codes, test labels): the same split as
    :func:`~dpviz.experiments.holdout_accuracy`, encoded once per data set.
    """
    data = _data(dataset)
    X_train, X_test, y_train, y_test = holdout_split(data, 0.25, 0)
    domain = data.domain
    return (domain.encode(X_train), domain.encode_labels(y_train), domain.encode(X_test),
            domain.encode_labels(y_test))


#: Where the test rows land in the trees of a (data set, height, trees, seed): public and the
#: same at every ε, so the ε slider re-fits (new noisy counts) and re-uses it. A few MB each.
_ROUTING: dict[tuple[str, int, int, int], list] = {}


def _fit_accuracy(dataset: str, epsilon: float, depth: int, n_trees: int, seed: int) -> float:
    """Test accuracy of one Private-RDT fit: that of ``predict`` on the explorer's split.

    The test rows are routed once per tree structure
    (:meth:`~dpviz.trees.rdt.PrivateRDTClassifier.locate_encoded`, which depends on the
    seed, the height, the number of trees and the domain, not on ε) and each fit votes
    from that routing (:meth:`~dpviz.trees.rdt.PrivateRDTClassifier.predict_located`).
    """
    data = _data(dataset)
    train, labels, test, truth = _encoded_split(dataset)
    model = make_private_rdt(seed, data.domain, epsilon=epsilon, max_depth=depth,
                             n_trees=n_trees).fit_encoded(train, labels, data.domain)
    key = (dataset, depth, n_trees, seed)
    if key not in _ROUTING:
        if len(_ROUTING) >= 4 * REPEATS:  # start afresh when full
            _ROUTING.clear()
        _ROUTING[key] = model.locate_encoded(test)
    predicted = model.predict_located(_ROUTING[key])
    return float(np.mean(predicted == truth))


def _point(dataset: str, epsilon: float, depth: int, n_trees: int) -> pd.DataFrame:
    """Hold-out accuracy of REPEATS Private-RDT fits at one setting (cached; do not mutate).

    Equal to :func:`~dpviz.experiments.holdout_accuracy` with :func:`make_private_rdt`
    (fits of seeds 0, 1, 2 on its split; the unit tests check it), faster: the rows are
    encoded once and the test rows routed once per tree structure.
    """
    key = (dataset, float(epsilon), int(depth), int(n_trees))
    if key not in _POINTS:
        _POINTS[key] = pd.DataFrame(
            [{"epsilon": float(epsilon), "max_depth": int(depth), "n_trees": int(n_trees),
              "repeat": r, "accuracy": _fit_accuracy(*key, r)} for r in range(REPEATS)]
        )
    return _POINTS[key]


def _settings(dataset: str, depth: int | None, n_trees: int | None) -> tuple[int, int]:
    defaults = explorer_defaults(dataset)
    depth = defaults["depth"] if depth is None else check_int(depth, "depth", minimum=1)
    n_trees = defaults["n_trees"] if n_trees is None else check_int(n_trees, "n_trees", minimum=1)
    return depth, n_trees


def explorer_curve(
    dataset: str, depth: int | None = None, n_trees: int | None = None
) -> pd.DataFrame:
    """Accuracy of Private-RDT at every ε of :data:`EXPLORER_EPSILONS` and at ε = ∞.

    One row per (ε, repeat) with ``epsilon``, ``max_depth``, ``n_trees``,
    ``repeat`` and ``accuracy``, from one cached stratified 75/25 split. Each
    point is cached in-process, so the curve is computed once per (data set,
    depth, trees).
    """
    depth, n_trees = _settings(dataset, depth, n_trees)
    eps = (*EXPLORER_EPSILONS, math.inf)
    return pd.concat([_point(dataset, e, depth, n_trees) for e in eps], ignore_index=True)


def jpw_explorer_chart(
    dataset: str = "nursery",
    epsilon: float = 1.0,
    depth: int | None = None,
    n_trees: int | None = None,
) -> alt.LayerChart:
    """Explorer callback: Private-RDT's hold-out accuracy against ε, with the ε = ∞ reference.

    Parameters
    ----------
    dataset : {"nursery", "mushroom", "votes"}
        JPW's UCI data sets.
    epsilon : float
        The slider's ε: a fresh evaluation there (cached once computed) joins the
        cached curve and is marked by a red rule.
    depth : int, optional
        Tree height; default Fan's k/2 (:func:`~dpviz.trees.depth.fan_depth`).
    n_trees : int, optional
        Ensemble size; default 10 (Votes: 5), as JPW §VI.

    Returns
    -------
    altair.LayerChart
        Mean accuracy with a band over :data:`REPEATS` fits (10th–90th percentile),
        the non-private un-pruned ensemble (ε = ∞) as a dashed line.
    """
    eps = check_epsilon(epsilon)
    depth, n_trees = _settings(dataset, depth, n_trees)
    curve = explorer_curve(dataset, depth, n_trees)
    finite = curve[np.isfinite(curve["epsilon"])]
    reference = float(curve.loc[~np.isfinite(curve["epsilon"]), "accuracy"].mean())
    point = _point(dataset, eps, depth, n_trees)
    if not np.isclose(finite["epsilon"], eps, rtol=1e-9).any():
        finite = pd.concat([finite, point], ignore_index=True)
    accuracy = float(point["accuracy"].mean())
    title = alt.Title(
        f"Private-RDT on {dataset}: {accuracy:.1%} at ε = {eps:.3g}",
        subtitle=f"height {depth}, {n_trees} trees (ε/{n_trees} per tree); "
        f"dashed: ε = ∞, {reference:.1%}; band: {REPEATS} fits on one 75/25 split",
    )
    return accuracy_chart(finite, reference=reference, highlight=eps, title=title)


def depth_range(dataset: str) -> int:
    """Largest height the explorer offers for ``dataset`` (:data:`MAX_DEPTH`)."""
    _data(dataset)  # validates the name
    return MAX_DEPTH[dataset]


def jpw_controls(dataset: str = "nursery", epsilon: float = 1.0) -> dict[str, Any]:
    """The explorer's widgets; choosing a data set resets depth and trees to its defaults.

    The depth slider goes from 1 to the data set's :data:`MAX_DEPTH`, the trees slider
    from 1 to :data:`MAX_TREES`: bounds that keep every move under a second (see
    :data:`MAX_DEPTH`).

    Returns
    -------
    dict
        ``dataset``, ``epsilon``, ``depth``, ``n_trees`` widgets for
        :func:`dpviz.ui.widgets.explorer` (create them *before* the explorer so that
        the reset happens before the chart is redrawn).
    """
    defaults = explorer_defaults(dataset)
    picker = choice_dropdown(list(JPW_DATASETS), dataset)
    depth = depth_slider(defaults["depth"], high=depth_range(dataset))
    trees = trees_slider(defaults["n_trees"], high=MAX_TREES)

    def reset(change: dict[str, Any]) -> None:
        new = explorer_defaults(change["new"])
        # hold the notifications so that the chart is redrawn once, with both values set
        with depth.hold_trait_notifications(), trees.hold_trait_notifications():
            depth.max = depth_range(change["new"])
            depth.value = new["depth"]
            trees.value = new["n_trees"]

    picker.observe(reset, names="value")
    return {
        "dataset": picker,
        "epsilon": epsilon_slider(epsilon, low=0.01, high=10.0),
        "depth": depth,
        "n_trees": trees,
    }


# ---------------------------------------------------------------------------------- tables
def private_id3_noise(epsilon: float = 1.0) -> pd.DataFrame:
    """JPW Table I with the noise each of its q queries gets at ε'/q (JPW §III).

    Returns
    -------
    DataFrame
        The paper's rows, queries and accuracies, plus ``epsilon_per_query`` = ε'/q
        and ``noise_std`` = √2·q/ε' (Laplace, sensitivity 1) next to the rows.
    """
    eps = check_epsilon(epsilon)
    table = JPW_TABLE1.copy()
    table["epsilon_per_query"] = eps / table["queries"]
    table["noise_std"] = math.sqrt(2.0) * table["queries"] / eps
    return table


def leaf_vector_table(n_trees: int = 10, seed: int = 0) -> pd.DataFrame:
    """Size of a Private-RDT tree's leaf vector on JPW's data sets, at height k/2.

    For each data set: attributes k, height h = k/2, classes T, rows n, the
    largest possible number of leaves M (:meth:`RandomTree.max_leaves`), the
    mean number of leaves of ``n_trees`` random trees (counted exactly, or by
    Knuth's estimate from 1000 random walks when there may be more than 10^5),
    rows per leaf, and the standard deviation of the (discrete Laplace) noise on
    each count at ε = 1 split over the paper's number of trees.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for name, ensemble in JPW_DATASETS.items():
        data = _data(name)
        domain = data.domain
        depth = fan_depth(len(domain))
        trees = [RandomTree(domain, depth, int(k)) for k in rng.integers(0, 2**63, n_trees)]
        leaves = [
            tree.count_leaves() if tree.max_leaves() <= 1e5 else tree.estimate_leaves(1000, rng)
            for tree in trees
        ]
        mean_leaves = float(np.mean(leaves))
        per_tree = 1.0 / ensemble
        q = math.exp(-per_tree)
        rows.append(
            {
                "dataset": name,
                "attributes": len(domain),
                "height": depth,
                "classes": domain.n_classes,
                "rows": len(data.y),
                "max_leaves": trees[0].max_leaves(),
                "mean_leaves": mean_leaves,
                "rows_per_leaf": len(data.y) / mean_leaves,
                "trees": ensemble,
                "noise_std": math.sqrt(2.0 * q) / (1.0 - q),
            }
        )
    return pd.DataFrame(rows)


_EPSILON_LABELS = {0.5: "0.5", 0.75: "0.75", 1.0: "1", math.inf: "∞"}


def accuracy_table(results: pd.DataFrame) -> pd.DataFrame:
    """JPW Fig. 6–8 as a table: average and maximum accuracy (%) over runs, per ε.

    Parameters
    ----------
    results : DataFrame
        From :func:`dpviz.experiments.reproduce_jpw.jpw_accuracy`.

    Returns
    -------
    DataFrame
        Index data set; columns (statistic, ε) with ε ∈ {0.5, 0.75, 1, ∞}, rounded to 1 decimal.
    """
    frame = results.assign(eps=results["epsilon"].map(lambda e: _EPSILON_LABELS.get(e, f"{e:g}")))
    wide = frame.pivot_table(index="dataset", columns="eps", values=["mean", "max"], sort=False)
    order = [_EPSILON_LABELS.get(e, f"{e:g}") for e in sorted(results["epsilon"].unique())]
    wide = wide.reindex(columns=pd.MultiIndex.from_product([["mean", "max"], order]))
    wide = wide.reindex([d for d in JPW_DATASETS if d in wide.index])
    wide.columns.names = ["", "ε"]
    wide.index.name = None
    return wide.round(1)


def claims_table(results: pd.DataFrame) -> pd.DataFrame:
    """JPW §VI-A's qualitative claims, checked on our results.

    Claims: (1) on every data set the mean accuracy falls as ε decreases
    (∞ → 1 → 0.75 → 0.5; a rise of up to 0.5 points is read as run-to-run
    noise); (2) Mushroom is the least affected (the smallest drop from ∞ to
    0.5); (3) Votes is the most sensitive (the largest drop).

    Returns
    -------
    DataFrame
        ``claim``, ``ours`` (the numbers behind it) and ``holds`` (bool).
    """
    mean = results.pivot_table(index="dataset", columns="epsilon", values="mean")
    mean = mean.reindex([d for d in JPW_DATASETS if d in mean.index])
    eps = sorted(mean.columns, reverse=True)  # ∞, 1, 0.75, 0.5
    steps = mean[eps].diff(axis=1, periods=-1).iloc[:, :-1]  # acc(ε_i) − acc(ε_{i+1}) ≥ 0
    drop = mean[eps[0]] - mean[eps[-1]]
    rows = [
        {
            "claim": "accuracy falls as ε decreases (every data set)",
            "ours": "; ".join(
                f"{d}: " + " → ".join(f"{mean.loc[d, e]:.1f}" for e in eps) for d in mean.index
            ),
            "holds": bool((steps >= -0.5).all().all()),
        },
        {
            "claim": "Mushroom is the least affected by the noise",
            "ours": "drop ∞ → 0.5: " + ", ".join(f"{d} {drop[d]:.1f}" for d in drop.index),
            "holds": bool(drop.idxmin() == "mushroom") if "mushroom" in drop else False,
        },
        {
            "claim": "Votes is the most sensitive",
            "ours": f"largest drop: {drop.idxmax()} ({drop.max():.1f} points)",
            "holds": bool(drop.idxmax() == "votes"),
        },
    ]
    return pd.DataFrame(rows)


def accuracy_figure(results: pd.DataFrame) -> alt.FacetChart:
    """JPW Fig. 6–8 redrawn from our results: average and maximum accuracy per ε.

    The ε labels are horizontal (a rotated "∞" reads as "8"); the axis title says that
    ε = ∞ is the ensemble without noise.
    """
    frame = results.assign(
        eps=results["epsilon"].map(lambda e: _EPSILON_LABELS.get(e, f"{e:g}"))
    ).melt(id_vars=["dataset", "eps"], value_vars=["mean", "max"], var_name="statistic",
           value_name="accuracy")
    order = [_EPSILON_LABELS.get(e, f"{e:g}") for e in sorted(results["epsilon"].unique())]
    bars = (
        alt.Chart(frame, width=170, height=180)
        .mark_bar()
        .encode(
            # horizontal labels: rotated, "∞" reads as "8"
            x=alt.X(
                "eps:N",
                sort=order,
                title="ε (∞: no noise)",
                axis=alt.Axis(labelAngle=0, labelFontSize=12),
            ),
            xOffset=alt.XOffset("statistic:N", sort=["mean", "max"]),
            y=alt.Y("accuracy:Q", title="accuracy (%)", scale=alt.Scale(zero=False)),
            color=alt.Color("statistic:N", sort=["mean", "max"], title="over runs"),
            tooltip=[
                alt.Tooltip("dataset:N"),
                alt.Tooltip("eps:N"),
                alt.Tooltip("statistic:N"),
                alt.Tooltip("accuracy:Q", format=".1f"),
            ],
        )
    )
    return bars.facet(
        column=alt.Column("dataset:N", sort=list(JPW_DATASETS), title=None),
        title="Private-RDT accuracy (JPW Fig. 6–8, our runs)",
    ).resolve_scale(y="independent")


def update_table(results: pd.DataFrame) -> pd.DataFrame:
    """JPW Fig. 13–14 as a table: the update procedure against models of the union.

    Parameters
    ----------
    results : DataFrame
        From :func:`dpviz.experiments.reproduce_jpw.jpw_update`.

    Returns
    -------
    DataFrame
        One row per (data set, ε): mean accuracy (%) of ``update`` (Private-RDT on
        D1 at ε, then JPW's update with D2 at ε: total ε), ``union ε/2`` (a model
        of D1 at ε/2, then Private-RDT on D1 ∪ D2 at ε/2: total ε — the fair
        comparison of §VI-B), ``union ε`` (Private-RDT on D1 ∪ D2 at ε: the
        paper's curve, total 2ε after the earlier release), and the gaps.
    """
    wide = results.pivot_table(index=["dataset", "epsilon"], columns="method", values="mean",
                               sort=False)
    out = pd.DataFrame(
        {
            "update (total ε)": wide["update"],
            "union at ε/2 (total ε)": wide["union_half"],
            "union at ε (total 2ε)": wide["union"],
        }
    )
    out["update − union ε/2"] = out.iloc[:, 0] - out.iloc[:, 1]
    out["update − union ε"] = out.iloc[:, 0] - out.iloc[:, 2]
    return out.round(1)


# ---------------------------------------------------------------------------------- pruning
def pruning_neighbours() -> tuple[Domain, tuple[pd.DataFrame, list[str]], tuple[pd.DataFrame,
                                                                                 list[str]]]:
    """JPW Fig. 3 in miniature: two binary attributes, D and D′ = D plus one row.

    D has six rows, all with a = 0; D′ adds the row (a = 1, b = 1, "+"). A tree
    of height 2 splits on both attributes, so it has four leaves; D fills two of
    them, D′ three.

    Returns
    -------
    domain, (X, y), (X′, y′)
    """
    domain = Domain([Categorical("a", ("0", "1")), Categorical("b", ("0", "1"))], ["-", "+"])
    X = pd.DataFrame({"a": ["0"] * 6, "b": ["0", "1"] * 3})
    y = ["-", "+"] * 3
    X_prime = pd.concat([X, pd.DataFrame({"a": ["1"], "b": ["1"]})], ignore_index=True)
    return domain, (X, y), (X_prime, [*y, "+"])


def pruning_demo(seed: int = 0) -> pd.DataFrame:
    """Leaves released by the pruned RDT (JPW Fig. 1) and by Private-RDT on D and D′.

    Returns
    -------
    DataFrame
        One row per (model, data): the number of leaves in the released tree.
        The pruned tree keeps only leaves that training rows reached, so its
        structure differs between D and D′ whatever the random choices; the
        Private-RDT tree always has all four leaves (and noisy counts in each).
    """
    domain, D, D_prime = pruning_neighbours()
    rows = []
    for name, (X, y) in (("D", D), ("D′", D_prime)):
        pruned = RandomDecisionTreeClassifier(
            n_trees=1, max_depth=2, prune=True, domain=domain, random_state=seed
        ).fit(X, y)
        private = PrivateRDTClassifier(
            epsilon=1.0, n_trees=1, max_depth=2, domain=domain, random_state=seed
        ).fit(X, y)
        rows.append({"model": "RDT with pruning (Fig. 1)", "data": name,
                     "leaves released": pruned.visited_leaves()[0]})
        rows.append({"model": "Private-RDT (Fig. 5)", "data": name,
                     "leaves released": private.trees_[0].count_leaves()})
    return pd.DataFrame(rows)


def pruning_audit(n_samples: int = 200, seed: int = 0) -> AuditResult:
    """Audit the pruned RDT's released structure (its number of leaves) on D, D′ at ε = 1.

    Each sample fits a pruned one-tree RDT; 200 samples take about two seconds.
    The output "3 leaves" never happens under D: an impossible event, ε = ∞.
    """
    domain, D, D_prime = pruning_neighbours()
    return audit(
        audit_targets.pruned_tree_leaves(domain),
        D,
        D_prime,
        epsilon=1.0,
        n_samples=n_samples,
        seed=seed,
        exact_epsilon=math.inf,
        neighbours="JPW Fig. 3 in miniature: D′ = D plus the row (a=1, b=1, +)",
    )


def private_leaf_audit(epsilon: float = 1.0, n_samples: int = 50_000, seed: int = 0) -> AuditResult:
    """Audit what Private-RDT releases for the leaf (a=1, b=1) of the same neighbours.

    Under D the leaf is empty, class counts (0, 0); under D′ it holds one "+" row,
    (0, 1). Private-RDT releases the leaf's noisy counts either way (the same
    keyed noise as the estimator), so no output is impossible: the exact loss is ε.
    """
    return audit(
        audit_targets.leaf_vector(epsilon),
        np.array([0, 0]),
        np.array([0, 1]),
        epsilon=epsilon,
        n_samples=n_samples,
        seed=seed,
        exact_epsilon=epsilon,
        neighbours="leaf (a=1, b=1): empty under D, one '+' row under D′",
    )
