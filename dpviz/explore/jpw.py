"""Notebook 02 (JPW, Private-RDT): the explorer, the tables around the reproduction, the demos.

The pruning demo shows why Private-RDT may not prune.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import altair as alt
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz import mechanisms
from dpviz.data.published import JPW_DATASETS, JPW_TABLE1
from dpviz.data.uci import Dataset, load
from dpviz.domain import Encoded
from dpviz.experiments.runner import curve, encoded_split, located, remember
from dpviz.experiments.shipped import result, shipped_rows
from dpviz.explore import settings, ships
from dpviz.trees.random_tree import RandomTree, fan_depth
from dpviz.ui.exercises import (
    PERCENT,
    Argument,
    AuditTask,
    Implementation,
    Prediction,
    Step,
    register,
)
from dpviz.ui.plots import accuracy_chart
from dpviz.ui.widgets import (
    choice_dropdown,
    epsilon_slider,
    fits_on_move,
    int_slider,
    trees_slider,
)
from dpviz.validation import check_epsilon, check_int, check_option

if TYPE_CHECKING:  # the estimators, the audit and SciPy load when a fit or an audit runs: a
    # move that reads the shipped curves needs none of them
    from dpviz.audit.engine import AuditResult
    from dpviz.audit.exact_laws import DiscreteLaw

#: ε values of the explorer's curve (ε = ∞ is the reference line).
EXPLORER_EPSILONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
#: Fits per point of the explorer (the band is their spread).
REPEATS = 3
#: The explorer's hold-out share (one stratified split, seed 0).
TEST_SIZE = 0.25
#: Largest height of the depth slider per data set: with :data:`MAX_TREES`, every move refits
#: the curve in under a second on 2 cores (``bench/slider_extremes.py``; Nursery took 2.5 s
#: at height 8). Nursery and Mushroom stop at JPW's k/2.
MAX_DEPTH = {"nursery": 4, "mushroom": 10, "votes": 12}
#: Most trees of the trees slider: JPW's 10 (Votes: 5).
MAX_TREES = 10


# ---------------------------------------------------------------------------------- explorer
@remember()
def _data(name: str) -> Dataset:
    return load(check_option(name, list(JPW_DATASETS), "dataset"))


def explorer_defaults(dataset: str) -> dict[str, int]:
    """The paper's settings for ``dataset``: height k/2 (Fan et al.) and 10 trees (Votes: 5)."""
    return {"depth": fan_depth(len(_data(dataset).domain)), "n_trees": JPW_DATASETS[dataset]}


def _points(
    dataset: str, epsilons: Sequence[float], depth: int, n_trees: int, shipped: bool = True,
) -> pd.DataFrame:
    """Hold-out accuracy of :data:`REPEATS` Private-RDT fits per ε through the runner's curve.

    ``shipped``: each fit :func:`jpw_curves` ships is read (the same number), the others fitted
    and remembered; else every one is fitted afresh (what ships).
    """
    table = _shipped_curves(dataset) if shipped else {}
    n_test = _test_rows(dataset)

    def evaluate(run: int, epsilons: list[float]) -> list[list[dict]]:
        out = []
        for eps in epsilons:
            known = table.get((depth, n_trees, eps, run))
            correct = known["correct"] if known else _fitted(dataset, eps, depth, n_trees, run)
            # correct / rows: np.mean(predicted == truth) bit for bit (an exact sum, one division)
            out.append([{"epsilon": eps, "max_depth": depth, "n_trees": n_trees, "repeat": run,
                         "accuracy": correct / n_test}])
        return out

    key = ("jpw", dataset, depth, n_trees) if shipped else None
    return curve(evaluate, epsilons, REPEATS, key=key)


def _fitted(dataset: str, eps: float, depth: int, n_trees: int, run: int) -> int:
    """Test rows predicted right by Private-RDT fit ``run`` at ``eps`` (fitted now)."""
    from dpviz.experiments import fast
    from dpviz.trees.rdt import PrivateRDTClassifier

    data = _data(dataset)
    train, labels, test, truth = encoded_split(data, TEST_SIZE, 0)
    model = PrivateRDTClassifier(eps, max_depth=depth, n_trees=n_trees, domain=data.domain,
                                 random_state=run).fit(Encoded(train, data.domain),
                                                       data.domain.decode_labels(labels))
    leaves = located(("jpw", dataset, depth, n_trees, run), model, test)
    return int(np.sum(fast.predict_located(model, leaves) == truth))


def _test_rows(dataset: str) -> int:
    """The hold-out rows of the explorer's split: train_test_split's ⌈TEST_SIZE · n⌉."""
    return math.ceil(TEST_SIZE * _data(dataset).n_rows)


def _settings(dataset: str, depth: int | None, n_trees: int | None) -> tuple[int, int]:
    defaults = explorer_defaults(dataset)
    depth = defaults["depth"] if depth is None else check_int(depth, "depth", minimum=1)
    n_trees = defaults["n_trees"] if n_trees is None else check_int(n_trees, "n_trees", minimum=1)
    return depth, n_trees


def explorer_curve(
    dataset: str, depth: int | None = None, n_trees: int | None = None
) -> pd.DataFrame:
    """Private-RDT's accuracy at every ε of :data:`EXPLORER_EPSILONS` and ε = ∞, per repeat."""
    depth, n_trees = _settings(dataset, depth, n_trees)
    return _points(dataset, (*EXPLORER_EPSILONS, math.inf), depth, n_trees)


def jpw_curves(
    dataset: str, *, depths: Sequence[int], trees: Sequence[int],
    epsilons: Sequence[float] = (*EXPLORER_EPSILONS, math.inf), progress: bool = False,
) -> pd.DataFrame:
    """The explorer's curve at every (height, trees), fitted afresh: what ships.

    One row per fit: ``depth``, ``n_trees``, ``epsilon``, ``repeat`` and ``correct``, the test
    rows it predicts right (its accuracy is ``correct`` over the test rows).
    """
    settings = [(int(d), int(t)) for d in depths for t in trees]
    frames = [
        _points(dataset, epsilons, d, t, shipped=False).assign(depth=d)
        for d, t in tqdm(settings, disable=not progress, desc=f"Private-RDT curves, {dataset}")
    ]
    frame = pd.concat(frames, ignore_index=True)
    n_test = _test_rows(dataset)
    assert n_test == len(encoded_split(_data(dataset), TEST_SIZE, 0)[3])
    frame["correct"] = (frame["accuracy"] * n_test).round().astype(int)
    assert (frame["correct"] / n_test == frame["accuracy"]).all()
    return frame[["depth", "n_trees", "epsilon", "repeat", "correct"]]


def _slider_grid(dataset: str) -> dict[str, tuple[int, ...]]:
    """Every height and number of trees the explorer's sliders offer on ``dataset``."""
    return {"depths": tuple(range(1, depth_range(dataset) + 1)),
            "trees": tuple(range(1, MAX_TREES + 1))}


@remember()
def _shipped_curves(dataset: str) -> dict[tuple, dict]:
    """The shipped fits of :func:`jpw_curves` by (height, trees, ε, repeat); empty if none."""
    return shipped_rows(jpw_curves, dataset, keys=("depth", "n_trees", "epsilon", "repeat"),
                        **_slider_grid(dataset))


def explorer_curves() -> None:
    """The explorer's shipped curves: every data set, height and number of trees of its sliders."""
    for dataset in JPW_DATASETS:
        result(jpw_curves, dataset, progress=True, **_slider_grid(dataset))


@fits_on_move("dpviz.trees.rdt", "dpviz.experiments.fast")  # a point off the shipped grid
def jpw_explorer_chart(
    dataset: str = "nursery", epsilon: float = 1.0, depth: int | None = None,
    n_trees: int | None = None,
) -> alt.LayerChart:
    """Explorer callback: Private-RDT's hold-out accuracy against ε, ε = ∞ dashed.

    The curve is read from the shipped grid (:func:`jpw_curves`) at the sliders' settings,
    fitted otherwise; the point at the slider's ε is fitted (read when on the curve's grid).
    """
    eps = check_epsilon(epsilon)
    depth, n_trees = _settings(dataset, depth, n_trees)
    curve = explorer_curve(dataset, depth, n_trees)
    finite = curve[np.isfinite(curve["epsilon"])]
    reference = float(curve.loc[~np.isfinite(curve["epsilon"]), "accuracy"].mean())
    point = _points(dataset, [eps], depth, n_trees)
    if not np.isclose(finite["epsilon"], eps, rtol=1e-9).any():
        finite = pd.concat([finite, point], ignore_index=True)
    accuracy = float(point["accuracy"].mean())
    title = alt.Title(
        f"Private-RDT on {dataset}: {accuracy:.1%} at ε = {eps:.3g}",
        subtitle=[f"height {depth}, {n_trees} trees (ε/{n_trees} per tree); "
                  f"dashed: ε = ∞, {reference:.1%}; band: {REPEATS} fits on one 75/25 split",
                  _source(dataset, depth, n_trees, eps)],
    )
    return accuracy_chart(finite, reference=reference, highlight=eps, title=title)


def _source(dataset: str, depth: int, n_trees: int, eps: float) -> str:
    """Where the chart's numbers come from: the shipped grid, fits made now, or both."""
    shipped = _shipped_curves(dataset)
    if (depth, n_trees, math.inf, 0) not in shipped:
        return "every point fitted now"
    read = "read from the shipped grid made by make results (jpw.jpw_curves)"
    return read if (depth, n_trees, eps, 0) in shipped else (
        f"curve {read}; the point at ε = {eps:.3g} fitted now")


def depth_range(dataset: str) -> int:
    """Largest height the explorer offers for ``dataset`` (:data:`MAX_DEPTH`)."""
    _data(dataset)  # validates the name
    return MAX_DEPTH[dataset]


def jpw_controls(dataset: str = "nursery", epsilon: float = 1.0) -> dict[str, Any]:
    """The explorer's widgets; picking a data set resets depth and trees to its defaults.

    Create them before the explorer, so that the reset happens before the chart is redrawn.
    """
    defaults = explorer_defaults(dataset)
    picker = choice_dropdown(list(JPW_DATASETS), dataset)
    depth = int_slider(defaults["depth"], 1, depth_range(dataset), "height")  # JPW's word
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
        "dataset": picker, "epsilon": epsilon_slider(epsilon, low=0.01, high=10.0), "depth": depth,
        "n_trees": trees,
    }


# ---------------------------------------------------------------------------------- tables
def private_id3_noise(epsilon: float = 1.0) -> pd.DataFrame:
    """JPW Table I with the noise of its q queries at ε'/q: ``epsilon_per_query``, ``noise_std``."""
    eps = check_epsilon(epsilon)
    table = JPW_TABLE1.copy()
    table["epsilon_per_query"] = eps / table["queries"]
    table["noise_std"] = math.sqrt(2.0) * table["queries"] / eps
    return table


@ships  # the notebook's call reads its shipped result
def leaf_vector_table(n_trees: int = 10, seed: int = 0) -> pd.DataFrame:
    """Size of a Private-RDT tree's leaf vector at height k/2, and each count's noise."""
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
        q = math.exp(-1.0 / ensemble)
        rows.append({
            "dataset": name, "attributes": len(domain), "height": depth,
            "classes": domain.n_classes, "rows": len(data.y),
            "max_leaves": trees[0].max_leaves(), "mean_leaves": mean_leaves,
            "rows_per_leaf": len(data.y) / mean_leaves, "trees": ensemble,
            "noise_std": math.sqrt(2.0 * q) / (1.0 - q),
        })
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- reproductions
#: What notebook 02's reproductions run: full (shipped) and a quick version.
REPRODUCTION_SETTINGS = {
    "quick": {"accuracy": {"n_runs": 2, "n_folds": 3}, "update_datasets": ("nursery",),
              "update": {"epsilons": (0.5, 1.0), "n_runs": 1, "n_folds": 3}},
    "full": {"accuracy": {"n_runs": 10, "n_folds": 10}, "update_datasets": ("nursery", "mushroom"),
             "update": {"epsilons": (0.5, 0.75, 1.0), "n_runs": 3, "n_folds": 10}},
}


def reproduction_settings(quick: bool | None = None) -> dict:
    """What notebook 02's reproductions run: full (shipped) or quick (None: the run mode's)."""
    return settings(REPRODUCTION_SETTINGS, quick)


def accuracy_reproduction() -> pd.DataFrame:
    """JPW Fig. 6–8: Private-RDT's accuracy at ε = 0.5, 0.75, 1, ∞ (10 × 10-fold), as shipped.

    Recomputed under ``DPVIZ_RECOMPUTE=1`` (with ``DPVIZ_QUICK=1``: 2 × 3-fold).
    """
    from dpviz.experiments.reproduce_jpw import jpw_accuracy

    return result(jpw_accuracy, epsilons=(0.5, 0.75, 1.0, math.inf),
                  **reproduction_settings()["accuracy"])


def update_reproduction() -> pd.DataFrame:
    """JPW Fig. 13–14: the update against Private-RDT on the union (3 × 10-fold), as shipped."""
    from dpviz.experiments.reproduce_jpw import jpw_update

    chosen = reproduction_settings()
    return result(jpw_update, chosen["update_datasets"], **chosen["update"])


#: The notebook's shipped reproductions (``make results`` recomputes them).
def lesson_tables() -> None:
    """The lessons' tables at the notebook's arguments (:func:`dpviz.explore.ships`)."""
    leaf_vector_table(n_trees=10, seed=0)
    pruning_audit_frame(n_samples=200, seed=0)


SHIPPED = (accuracy_reproduction, update_reproduction, explorer_curves, lesson_tables)


def _with_eps_labels(results: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``results`` with ``eps``, ε as a label ("∞", "1", "0.75"), and the labels in ε order."""
    label = {e: "∞" if math.isinf(e) else f"{e:g}" for e in sorted(results["epsilon"].unique())}
    return results.assign(eps=results["epsilon"].map(label)), list(label.values())


def accuracy_table(results: pd.DataFrame) -> pd.DataFrame:
    """JPW Fig. 6–8 as a table: mean and max accuracy (%) over runs per data set and ε."""
    frame, order = _with_eps_labels(results)
    wide = frame.pivot_table(index="dataset", columns="eps", values=["mean", "max"], sort=False)
    wide = wide.reindex(columns=pd.MultiIndex.from_product([["mean", "max"], order]))
    wide = wide.reindex([d for d in JPW_DATASETS if d in wide.index])
    wide.columns.names = ["", "ε"]
    wide.index.name = None
    return wide.round(1)


def claims_table(results: pd.DataFrame) -> pd.DataFrame:
    """JPW §VI-A's claims on our results (falls with ε; Mushroom least, Votes most)."""
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
    """JPW Fig. 6–8 redrawn from our results: mean and max accuracy per ε (labels upright)."""
    frame, order = _with_eps_labels(results)
    frame = frame.melt(id_vars=["dataset", "eps"], value_vars=["mean", "max"], var_name="statistic",
                       value_name="accuracy")
    bars = (
        alt.Chart(frame, width=170, height=180)
        .mark_bar()
        .encode(
            # horizontal labels: rotated, "∞" reads as "8"
            x=alt.X(
                "eps:N", sort=order, title="ε (∞: no noise)",
                axis=alt.Axis(labelAngle=0, labelFontSize=12),
            ),
            xOffset=alt.XOffset("statistic:N", sort=["mean", "max"]),
            y=alt.Y("accuracy:Q", title="accuracy (%)", scale=alt.Scale(zero=False)),
            color=alt.Color("statistic:N", sort=["mean", "max"], title="over runs"),
            tooltip=[
                alt.Tooltip("dataset:N"), alt.Tooltip("eps:N"), alt.Tooltip("statistic:N"),
                alt.Tooltip("accuracy:Q", format=".1f"),
            ],
        )
    )
    return bars.facet(
        column=alt.Column("dataset:N", sort=list(JPW_DATASETS), title=None),
        title="Private-RDT accuracy (JPW Fig. 6–8, our runs)",
    ).resolve_scale(y="independent")


def update_table(results: pd.DataFrame) -> pd.DataFrame:
    """JPW Fig. 13–14 as a table: the update against the union at ε/2 and at ε (%)."""
    wide = results.pivot_table(index=["dataset", "epsilon"], columns="method", values="mean",
                               sort=False)
    out = pd.DataFrame({
        "update (total ε)": wide["update"], "union at ε/2 (total ε)": wide["union_half"],
        "union at ε (total 2ε)": wide["union"],
    })
    out["update − union ε/2"] = out.iloc[:, 0] - out.iloc[:, 1]
    out["update − union ε"] = out.iloc[:, 0] - out.iloc[:, 2]
    return out.round(1)


# ---------------------------------------------------------------------------------- pruning
def pruning_demo(seed: int = 0) -> pd.DataFrame:
    """Leaves released by the pruned RDT (JPW Fig. 1) and by Private-RDT, on D and D′.

    D and D′ are JPW Fig. 3 in miniature (:func:`~dpviz.audit.targets.pruned_tree_problem`):
    the pruned tree's structure tells them apart; Private-RDT always releases all four leaves.
    """
    from dpviz.audit import targets as audit_targets
    from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier

    domain, D, D_prime = audit_targets.pruned_tree_problem()
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
    """Audit the pruned RDT's leaf count on D, D′ at ε = 1: "3 leaves" never happens under D.

    The notebook's call reads its shipped audit (:func:`pruning_audit_frame`: a tree fitted
    per sample), any other call runs it.
    """
    from dpviz.audit.engine import audits_from_frame

    return audits_from_frame(pruning_audit_frame(n_samples, seed))[_PRUNING]


_PRUNING = "pruned random tree"


@ships  # the notebook's call reads its shipped result
def pruning_audit_frame(n_samples: int = 200, seed: int = 0) -> pd.DataFrame:
    """:func:`pruning_audit` run, as a frame (:func:`~dpviz.audit.engine.audits_frame`)."""
    from dpviz.audit import targets as audit_targets
    from dpviz.audit.engine import audit, audits_frame

    domain, D, D_prime = audit_targets.pruned_tree_problem()
    return audits_frame({_PRUNING: audit(
        audit_targets.pruned_tree_leaves(domain), D, D_prime, epsilon=1.0, n_samples=n_samples,
        seed=seed, exact_epsilon=math.inf,
        neighbours="JPW Fig. 3 in miniature: D′ = D plus the row (a=1, b=1, +)",
    )})


def private_leaf_audit(epsilon: float = 1.0, n_samples: int = 50_000, seed: int = 0) -> AuditResult:
    """Audit Private-RDT's noisy counts of the leaf (a=1, b=1): (0, 0) under D, (0, 1) under D′."""
    from dpviz.audit import targets as audit_targets
    from dpviz.audit.engine import audit

    return audit(
        audit_targets.leaf_vector(epsilon), np.array([0, 0]), np.array([0, 1]), epsilon=epsilon,
        n_samples=n_samples, seed=seed, exact_epsilon=epsilon,
        neighbours="leaf (a=1, b=1): empty under D, one '+' row under D′",
    )


# ====================================================================== exercises 02.1–02.4
# One exercise in one place: the question (the notebook asks it in full), the check's cases and
# settings, its hint, and the worked answer the instructor's key returns
# (dpviz.ui.exercises.solution; never shown in the notebook). Registered at the end.

# --- 02.1 · Why JPW's update stays ε-DP: one letter per step.
UPDATE_ARGUMENT = Argument(
    claim="A Private-RDT ensemble of N trees is released at ε on D1; later a batch D2 of new rows "
          "(disjoint from D1) is added with JPW's update (§V-B: count D2 alone into cleared "
          "copies of the trees, add noise at ε/N per tree, add the copies' leaf vectors to the "
          "released ones). Everything released — the first model and the updated one — is ε-DP "
          "(add/remove neighbours).",
    steps=(
        Step(
            question="A neighbour adds one row r to D2. Which exact leaf vectors change?",
            options={
                "a": "those of the first release, counted from D1",
                "b": "those of the cleared copies, counted from D2",
                "c": "both, since the updated model adds the two together",
            },
            correct="b",
            why_wrong={
                "a": "the first release counted D1 only; r never reached it",
                "c": "the first release was counted before D2 existed, from D1 only",
            },
        ),
        Step(
            question="The N cleared copies (one per tree) are released with noise at ε/N each. "
                     "What does this second release cost on D2?",
            options={
                "a": "ε/N",
                "b": "ε",
                "c": "N·ε",
            },
            correct="b",
            why_wrong={
                "a": "every copy reads every row of D2, so the N copies compose sequentially: "
                     "their costs add up",
                "c": "each copy gets ε/N, not ε",
            },
        ),
        Step(
            question="The updated model is the old noisy vector plus the copies' noisy vector. "
                     "What does computing this sum cost?",
            options={
                "a": "nothing: it is post-processing of the two releases",
                "b": "ε more, because the sum is a new release computed from the leaf counts",
                "c": "nothing, because the noise in the sum is larger",
            },
            correct="a",
            why_wrong={
                "b": "the sum reads no row: it only adds two vectors already released",
                "c": "more noise is no argument by itself: an observer who saw the first release "
                     "can subtract it",
            },
        ),
        Step(
            question="A row of D1 is read only by the first release, a row of D2 only by the "
                     "second. So the whole costs:",
            options={
                "a": "2ε: sequential composition of the two releases",
                "b": "ε: parallel composition, since the releases read disjoint rows",
                "c": "ε/2: each release covers half of the rows",
            },
            correct="b",
            why_wrong={
                "a": "costs add up when releases read the same rows; does any row reach both?",
                "c": "each release alone already costs ε on the rows it reads",
            },
        ),
        Step(
            question="The rejected option \"recount\" clears the leaf vectors and counts D1 ∪ D2 "
                     "again at ε/N per tree. Why does its total become 2ε?",
            options={
                "a": "D2 may be larger than D1, and a larger batch needs more noise per row",
                "b": "the recount uses twice as many trees, each charged ε/N on all of the rows",
                "c": "each row of D1 is read by both releases, which then compose sequentially",
            },
            correct="c",
            why_wrong={
                "a": "the size of a batch never enters the privacy cost",
                "b": "the recount uses the same N trees",
            },
        ),
    ),
    conclusion="A row of D2 only moves the copies' counts (ε over the N trees, by sequential "
               "composition); a row of D1 only moves the first release (ε); the two releases read "
               "disjoint rows, so together they cost max(ε, ε) = ε (parallel composition), and "
               "the updated model, their sum, is post-processing. Recounting reads D1 twice: 2ε. "
               "The noise of the copies must be fresh: reused noise would make 'after − before' "
               "the exact count of D2.",
)



# --- 02.2 · What Classify adds up: summed_count(counts, epsilon, rng), one draw (an int) of
# the released counts of one class summed over the N = len(counts) trees.
def summed_count_law(counts: Sequence[int], epsilon: float) -> DiscreteLaw:
    """Exact law of Σᵢ (counts[i] + noise_i), noise_i discrete Laplace at ε/N, N = len(counts).

    What Fig. 2's ``Classify`` sums for one class over the N trees of a Private-RDT ensemble.
    """
    from dpviz.audit.exact_laws import discrete_laplace_sum_law

    n = len(counts)
    return discrete_laplace_sum_law(n, check_epsilon(epsilon) / n, int(sum(counts)))


# --- answer: start (the worked answer: cut from the students' copy)
def _summed_count(counts: Sequence[int], epsilon: float, rng: np.random.Generator) -> int:
    per_tree = epsilon / len(counts)  # each tree's leaf released at ε/N, empty leaves too
    return int(mechanisms.discrete_laplace(np.asarray(counts), epsilon=per_tree, rng=rng).sum())
# --- answer: end


def _summed_count_case(rng: np.random.Generator) -> dict[str, object]:
    """A drawn case of 02.2: 1–4 trees, counts up to 2,000, a total ε from 0.05 to 5."""
    n = int(rng.integers(1, 5))
    return {"counts": tuple(int(c) for c in rng.integers(0, 2000, size=n)),
            "epsilon": float(f"{math.exp(rng.uniform(math.log(0.05), math.log(5.0))):.3g}")}


SUMMED_COUNT = Implementation(
    cases=({"counts": (0, 0, 0, 0, 0), "epsilon": 1.0}, {"counts": (4, 0, 7), "epsilon": 0.5},
           {"counts": (25,), "epsilon": 2.0}, {"counts": (1200, 800), "epsilon": 0.02}),
    exact=summed_count_law, sampler=True, output="int", n_samples=10_000,
    draw_case=_summed_count_case, n_drawn=1, allowed=("dpviz.mechanisms.discrete_laplace",),
    hint="go back to Fig. 5 and the budget split of this notebook: how much ε does each tree "
         "get, and which leaves get noise? Each tree's noise is drawn independently; "
         "dpviz.mechanisms.discrete_laplace draws discrete Laplace noise",
    solution=_summed_count,
)


# --- 02.3 · Audit the rejected "recount": recount_mechanism(data, n, rng) with data = (c1, c2)
# returns n draws of R1 + R2; neighbours (c1, c2) one row apart on which the audit at ε = 1
# finds the violation (a row of D1 moves both releases).
def recount_sum_law(data: tuple[int, int], epsilon: float = 1.0) -> DiscreteLaw:
    """Exact law of R1 + R2 = 2·c1 + c2 + two noises at ε, for the "recount" of (c1, c2).

    R1 = c1 + noise (the first release), R2 = c1 + c2 + fresh noise (JPW §V-B, option 2).
    """
    from dpviz.audit.exact_laws import discrete_laplace_sum_law

    c1, c2 = (int(c) for c in data)
    return discrete_laplace_sum_law(2, check_epsilon(epsilon), 2 * c1 + c2)


# --- answer: start (the worked answer: cut from the students' copy)
def _recount_mechanism(data: tuple[int, int], n: int, rng: np.random.Generator) -> np.ndarray:
    c1, c2 = data
    first = mechanisms.discrete_laplace(np.full(n, c1), epsilon=1.0, rng=rng)
    second = mechanisms.discrete_laplace(np.full(n, c1 + c2), epsilon=1.0, rng=rng)
    return first + second
# --- answer: end


def _recount_case(rng: np.random.Generator) -> tuple[int, int]:
    """A drawn case of 02.3: counts (c1, c2) up to 1,000."""
    return (int(rng.integers(0, 1000)), int(rng.integers(0, 1000)))


RECOUNT_AUDIT = AuditTask(
    cases=((5, 3), (0, 0)), exact=recount_sum_law, epsilon=1.0, violation=True, max_loss=2.0,
    min_bound=1.0, relation="counts", draw_case=_recount_case,
    allowed=("dpviz.mechanisms.discrete_laplace",),
    hint="reread the question: which count does each release add noise to, at which ε, and is "
         "the second release's noise drawn afresh? Return n draws of R1 + R2 as an array",
    solution=(_recount_mechanism, (5, 3), (6, 3)),
)


# --- 02.4 · Predict, then move the slider: Mushroom, ε = 0.1, 10 trees of height 3; the
# explorer's hold-out accuracy in %.
#: The explorer setting of exercise 02.4: data set, ε, height and trees.
PREDICTION_SETTING = {"dataset": "mushroom", "epsilon": 0.1, "depth": 3, "n_trees": 10}


def mushroom_low_tree_accuracy(seed: int = 0) -> float:
    """The explorer's mean accuracy (%) at :data:`PREDICTION_SETTING` (its fixed seeds)."""
    s = PREDICTION_SETTING
    curve = explorer_curve(s["dataset"], s["depth"], s["n_trees"])
    at = np.isclose(curve["epsilon"], s["epsilon"])
    return 100.0 * float(curve.loc[at, "accuracy"].mean())


LOW_TREE_PREDICTION = Prediction(
    compute=mushroom_low_tree_accuracy, tolerance=5.0, unit="%", bounds=PERCENT,
    hint="at height 3 a tree has only a few leaves, so each holds hundreds of Mushroom's 8,124 "
         "rows: compare that with noise at ε/10 per tree — and ask how well three attributes "
         "per path can separate the classes even without noise",
)

register({"02.1": UPDATE_ARGUMENT, "02.2": SUMMED_COUNT, "02.3": RECOUNT_AUDIT,
          "02.4": LOW_TREE_PREDICTION})
