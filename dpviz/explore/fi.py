"""Notebook 05 (Fletcher & Islam's DP random forest and its 2021 addendum): explorer and lessons.

* :func:`fi_explorer_chart` — the explorer callback: accuracy of the FI forest
  against ε (band over repeats, non-private reference), for a data set, a
  depth, a number of trees and a leaf mechanism; the accuracies come from
  :func:`dpviz.experiments.reproduce_fi.explorer_frame` (the runner on a fixed split).
* :func:`fi_table6` — the addendum's Table 6 with the three distributions it
  mixes up (FI 2017's smooth-sensitivity mechanism, the softmax exp(ε·f_c) the
  table prints, and the Report One-Sided Noisy Arg-Max its text defines).
* :func:`smooth_sensitivity_loss`, :func:`exact_loss`, :func:`loss_chart` —
  the exact privacy loss of the withdrawn mechanism, growing with the gap j.
* :func:`budget_split_table`, :func:`assignment_changes` — the budget-split
  lesson: disjoint rows with the full ε, all rows with ε/τ, all rows with the
  full ε (wrong), and why each row must pick its tree independently.
* The exercises are in :mod:`dpviz.explore.fi_exercises`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.audit.exact_laws import LEAF_LABEL_MECHANISMS as LEAF_MECHANISMS
from dpviz.audit.exact_laws import leaf_label_loss
from dpviz.data.published import FI_TABLE6, SYNTH
from dpviz.errors import InvalidParameterError
from dpviz.experiments.reproduce_fi import (
    EXPLORER_DATASETS,
    REPEATS,
    TEST_ROWS,
    explorer_dataset,
    explorer_depth,
    explorer_frame,
    non_private_accuracy,
)
from dpviz.ui.plots import accuracy_chart
from dpviz.ui.widgets import choice_dropdown, epsilon_slider, int_slider, trees_slider

__all__ = [
    "EPSILON_GRID",
    "EXPLORER_DATASETS",
    "LEAF_MECHANISMS",
    "MAX_DEPTH",
    "MAX_TREES",
    "assignment_changes",
    "budget_split_table",
    "describe_settings",
    "fi_controls",
    "fi_explorer_chart",
    "fi_table6",
    "leaf_label_loss",
    "loss_chart",
    "paper_chart",
    "reproduction_settings",
    "side_by_side",
    "smooth_sensitivity_loss_table",
]

#: ε values of the explorer's cached curve (the slider's ε is added to them).
EPSILON_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: Largest depth of the explorer's depth slider (0 means FI's depth for the data set, at
#: most 15: SynthG). A move of the depth or trees slider fits the whole curve afresh
#: (8 ε values × 3 forests, fitted together per seed, plus the non-private forest, which
#: reads every row in every tree) and routes the test rows through every new tree; its cost
#: grows with depth × trees, and with these bounds every move stays under a second on a
#: 2-core machine (``bench/slider_extremes.py``: about 0.7 s at depth 15 with 50 trees on
#: Nursery and Adult; 1.5 s with 100 trees, 4-15 s at depth 20 with 300 trees). FI's
#: accuracy peaks well before: deeper trees leave most leaves empty.
MAX_DEPTH = 15
#: Most trees of the explorer's trees slider; see :data:`MAX_DEPTH`. FI's experiments use
#: 100, which the reproduction of Fig. 7 (1 to 300 trees) covers.
MAX_TREES = 50
#: Leaf mechanisms, as ``DPRandomForestClassifier(leaf_mechanism=...)`` names them.
_MECHANISM_TITLES = {
    "rosnam": "Report One-Sided Noisy Arg-Max (addendum; ε-DP)",
    "exponential": "0/1 utility, global sensitivity (ε-DP)",
    "smooth_sensitivity": "smooth sensitivity (FI 2017; NOT proven private)",
}


# ---------------------------------------------------------------------------------- explorer
def fi_explorer_chart(
    dataset: str = "SynthA",
    epsilon: float = 1.0,
    depth: int = 0,
    n_trees: int = 100,
    mechanism: str = "rosnam",
) -> alt.LayerChart:
    """The explorer: accuracy of the FI forest against ε, with the slider's ε highlighted.

    Parameters
    ----------
    dataset : str
        One of :data:`EXPLORER_DATASETS` (see :data:`EXPLORER_ROWS` for the rows used).
    epsilon : float
        The slider's ε: evaluated afresh (``REPEATS`` forests) and marked by a red rule.
    depth : int
        Tree depth; 0 means FI's depth for the data set (:func:`fletcher_islam_depth`).
    n_trees : int
        τ, the number of trees.
    mechanism : str
        The leaf mechanism (:data:`LEAF_MECHANISMS`).

    Returns
    -------
    altair.LayerChart
        Mean accuracy over :data:`REPEATS` forests with a band, at the ε of
        :data:`EPSILON_GRID` plus the slider's; the dashed line is FI's
        non-private forest (ε = ∞, every row in every tree).
    """
    if mechanism not in LEAF_MECHANISMS:
        raise InvalidParameterError(
            f"mechanism must be one of {LEAF_MECHANISMS}, got {mechanism!r}"
        )
    d = explorer_depth(dataset, depth)
    n_trees = int(n_trees)
    epsilons = sorted({*EPSILON_GRID, float(epsilon)})
    frame = explorer_frame(dataset, epsilons, d, n_trees, mechanism)
    data = explorer_dataset(dataset)
    title = alt.Title(
        f"{dataset}: {data.n_rows - TEST_ROWS} training rows, depth {d}, {n_trees} trees",
        subtitle=[
            f"leaf labels: {_MECHANISM_TITLES[mechanism]}",
            f"accuracy at ε = {epsilon:.3g}: "
            f"{frame.loc[frame['epsilon'] == float(epsilon), 'accuracy'].mean():.3f} "
            f"(mean of {REPEATS} forests); dashed: non-private forest",
        ],
    )
    return accuracy_chart(
        frame,
        x="epsilon",
        reference=non_private_accuracy(dataset, d, n_trees),
        highlight=float(epsilon),
        title=title,
    )


def fi_controls(
    dataset: str = "SynthA", epsilon: float = 1.0, depth: int = 0, n_trees: int = MAX_TREES,
    mechanism: str = "rosnam",
) -> dict[str, Any]:
    """The explorer's widgets, with the ranges every move of which stays under a second.

    Data set, ε (0.01–10, log), depth (0 to :data:`MAX_DEPTH`; 0: FI's depth), trees
    (1 to :data:`MAX_TREES`) and the leaf mechanism.

    Returns
    -------
    dict
        Keyword arguments of :func:`fi_explorer_chart` as widgets, for
        :func:`dpviz.ui.widgets.explorer`.
    """
    return {
        "dataset": choice_dropdown(EXPLORER_DATASETS, dataset),
        "epsilon": epsilon_slider(epsilon, low=0.01, high=10.0),
        "depth": int_slider(depth, 0, MAX_DEPTH, "depth"),
        "n_trees": trees_slider(n_trees, high=MAX_TREES),
        "mechanism": choice_dropdown(LEAF_MECHANISMS, mechanism, "leaf label"),
    }


# ---------------------------------------------------------------------------------- reproductions
def reproduction_settings(quick: bool) -> dict:
    """What the notebook's reproductions of FI Fig. 4–7 and Table 3 run, in quick or full mode.

    FI ran 10 × 10-fold cross-validation on 30 000 rows per synthetic set. The full
    settings run 5-fold × 2 repeats on the 30 000 rows (about five minutes on two
    cores); their results ship with the workbook (:mod:`dpviz.experiments.shipped`).
    The quick settings (a recomputation under ``DPVIZ_QUICK=1``, the test suite) run
    two data sets on 6000 rows with one 2-fold split.
    """
    if quick:
        return {
            "datasets": ("SynthA", "SynthF"),
            "fig7_datasets": ("SynthA",),
            "n_rows": 6000,
            "n_folds": 2,
            "n_repeats": 1,
            "table3_datasets": ("SynthA", "SynthF", "Nursery"),
            "table3_runs": 3,
        }
    return {
        "datasets": SYNTH,
        "fig7_datasets": SYNTH,
        "n_rows": None,
        "n_folds": 5,
        "n_repeats": 2,
        "table3_datasets": (*SYNTH, "Adult", "Mushroom", "Nursery"),
        "table3_runs": 10,
    }


def describe_settings(settings: dict) -> str:
    """One sentence saying what a reproduction ran."""
    rows = "30 000" if settings["n_rows"] is None else f"{settings['n_rows']}"
    runs = settings["n_folds"] * settings["n_repeats"]
    return (
        f"Fig. 4-6 on {', '.join(settings['datasets'])}; Fig. 7 on "
        f"{', '.join(settings['fig7_datasets'])}: {rows} rows per synthetic set, "
        f"{settings['n_folds']}-fold cross-validation x {settings['n_repeats']} repeat(s) "
        f"= {runs} forests per setting (FI: 30 000 rows, 10 x 10-fold). Table 3 on "
        f"{', '.join(settings['table3_datasets'])}: {settings['table3_runs']} runs."
    )


def side_by_side(frame: pd.DataFrame, settings: Sequence[str] | None = None) -> pd.DataFrame:
    """A reproduction table (``dataset``, ``setting``, ``mean``, ``paper``) made wide.

    One row per data set; for each setting a column ``<setting>`` (ours, % accuracy)
    and ``<setting> FI`` (published), rounded to 1 decimal.
    """
    settings = list(settings or dict.fromkeys(frame["setting"]))
    wide = frame.pivot(index="dataset", columns="setting", values=["mean", "paper"])
    out = pd.DataFrame(index=wide.index)
    for s in settings:
        out[s] = wide[("mean", s)]
        if wide[("paper", s)].notna().any():
            out[f"{s} FI"] = wide[("paper", s)]
    return out.round(1)


def paper_chart(
    frame: pd.DataFrame, *, title: str, width: int = 460
) -> alt.LayerChart:
    """Our mean accuracy per data set and setting (bars) with FI's published value (black ticks).

    The accuracy axis starts at 40 % (every result is above it), so the bars are clipped to
    the plot: drawn from 0 they would spill below the axis, over the data-set names.
    """
    base = alt.Chart(frame, title=title, width=width)
    offset = alt.XOffset("setting:N")
    bars = base.mark_bar(clip=True).encode(
        x=alt.X("dataset:N", title=None),
        xOffset=offset,
        y=alt.Y("mean:Q", title="accuracy (%)", scale=alt.Scale(domain=[40, 100])),
        color=alt.Color("setting:N"),
        tooltip=["dataset", "setting", alt.Tooltip("mean:Q", format=".1f"),
                 alt.Tooltip("paper:Q", format=".1f", title="FI")],
    )
    ticks = (
        base.transform_filter("isValid(datum.paper)")
        .mark_tick(color="black", thickness=2, clip=True)
        .encode(x="dataset:N", xOffset=offset, y="paper:Q")
    )
    return bars + ticks


# ---------------------------------------------------------------------------------- Table 6
def fi_table6(epsilon: float = 0.1) -> pd.DataFrame:
    """The addendum's Table 6 (P(B) in %) next to the three mechanisms it involves.

    Columns: ``original`` — FI 2017's smooth-sensitivity mechanism
    (:func:`~dpviz.mechanisms.smooth_sensitivity_label_probabilities`);
    ``softmax`` — the exponential mechanism for a monotone utility,
    P ∝ exp(ε·f_c) (:func:`~dpviz.mechanisms.exponential_probabilities` with
    ``monotone=True``), which is what the table's "new" column prints;
    ``noisy_argmax`` — Report One-Sided Noisy Arg-Max as the addendum's text
    defines it and as the forest uses it
    (:func:`~dpviz.mechanisms.report_noisy_max_probabilities`). Both new
    mechanisms are ε-DP for counts; they are different distributions.
    """
    counts = FI_TABLE6[["f_A", "f_B"]].to_numpy()
    out = FI_TABLE6.copy()
    out["original"] = 100 * mechanisms.smooth_sensitivity_label_probabilities(
        counts, epsilon=epsilon
    )[:, 1]
    out["softmax"] = 100 * mechanisms.exponential_probabilities(
        counts, epsilon=epsilon, sensitivity=1.0, monotone=True
    )[:, 1]
    out["noisy_argmax"] = 100 * mechanisms.report_noisy_max_probabilities(
        counts, epsilon=epsilon
    )[:, 1]
    return out[
        ["f_A", "f_B", "original", "original_paper", "softmax", "new_paper", "noisy_argmax"]
    ]


# ---------------------------------------------------------------------------------- smooth sens.
def smooth_sensitivity_loss_table(
    epsilons: Sequence[float] = (0.1, 0.5, 1.0),
    gaps: Sequence[int] = (0, 1, 2, 3, 4, 5, 10, 20, 30, 40, 60),
) -> pd.DataFrame:
    """Exact privacy loss of a leaf label for the neighbours (j, 0) and (j + 1, 0).

    Adding one row to the majority of a pure two-class leaf moves the gap from
    j to j + 1. For each claimed ε and gap j: the loss of FI 2017's
    smooth-sensitivity mechanism (it grows like (ε/2)·e^{jε}·(e^ε − 1), without
    bound) and of Report One-Sided Noisy Arg-Max (at most ε).

    Returns
    -------
    DataFrame
        Columns ``epsilon``, ``j``, ``mechanism``, ``loss``, ``ratio`` (loss / ε).
    """
    rows = []
    for eps in epsilons:
        for j in gaps:
            d, d_prime = np.array([j, 0]), np.array([j + 1, 0])
            for mechanism in ("smooth_sensitivity", "rosnam"):
                loss = leaf_label_loss(mechanism, eps)(d, d_prime)
                rows.append(
                    {"epsilon": eps, "j": j, "mechanism": mechanism, "loss": loss,
                     "ratio": loss / eps}
                )
    return pd.DataFrame(rows)


def loss_chart(frame: pd.DataFrame, *, width: int = 420) -> alt.LayerChart:
    """The exact loss / ε against the gap j (log scale), with the promise loss/ε = 1 dashed."""
    lines = (
        alt.Chart(frame, width=width, title="Exact privacy loss of a leaf label, in units of ε")
        .mark_line(point=True)
        .encode(
            x=alt.X("j:Q", title="gap j between the two largest counts (neighbour: j + 1)"),
            y=alt.Y("ratio:Q", scale=alt.Scale(type="log"), title="loss / claimed ε"),
            color=alt.Color("mechanism:N"),
            strokeDash=alt.StrokeDash("epsilon:N", title="claimed ε"),
            tooltip=["mechanism", "epsilon", "j", alt.Tooltip("loss:Q", format=".3g")],
        )
    )
    promise = (
        alt.Chart(pd.DataFrame({"ratio": [1.0]}))
        .mark_rule(color="firebrick", strokeDash=[6, 4])
        .encode(y="ratio:Q")
    )
    return lines + promise


# ---------------------------------------------------------------------------------- budget split
def budget_split_table(epsilon: float = 1.0, n_trees: int = 100) -> pd.DataFrame:
    """Three ways to spend ε on τ trees, and the exact loss of one person's row.

    The canary row lands in an otherwise empty leaf of every tree that reads it
    (two classes; neighbours: leaf counts (0, 0) vs (0, 1)). Each such tree
    releases its leaf label by Report One-Sided Noisy Arg-Max at its ε, and the
    trees' noise is independent, so the privacy loss of the event "every tree
    that read the canary outputs its label" is the sum of the per-tree losses.

    Returns
    -------
    DataFrame
        ``scheme``, ``trees_reading_the_row``, ``epsilon_per_tree``,
        ``claimed`` (what the forest says it spends), ``loss`` (exact).
    """
    schemes = [
        ("disjoint rows, full ε per tree (FI §4.2)", 1, epsilon),
        ("every row in every tree, ε/τ per tree (FI Fig. 5)", n_trees, epsilon / n_trees),
        ("every row in every tree, full ε per tree (WRONG)", n_trees, epsilon),
    ]
    rows = []
    for name, reading, eps in schemes:
        per_tree = leaf_label_loss("rosnam", eps)(np.array([0, 0]), np.array([0, 1]))
        rows.append(
            {
                "scheme": name,
                "trees_reading_the_row": reading,
                "epsilon_per_tree": eps,
                "claimed": epsilon,
                "loss": reading * per_tree,
            }
        )
    return pd.DataFrame(rows)


def assignment_changes(n_rows: int = 6000, n_trees: int = 100, seed: int = 0) -> pd.DataFrame:
    """How many trees see different rows when one row is added, for two row-to-tree schemes.

    Every row carries a random number u ~ U(0, 1) (drawn once, as part of the
    row's randomness). **Independent**: the row goes to tree ⌊u·τ⌋ — adding a
    row changes only its own tree, so neighbouring data sets differ in one part
    and parallel composition applies. **Equal split**: sort the rows by u and
    cut them into τ consecutive parts of (almost) equal size — FI's "disjoint
    subsets [...] sampled without replacement" taken literally. Adding a row
    shifts the cut points after it, so many parts change.

    Returns
    -------
    DataFrame
        ``scheme``, ``trees_with_other_rows`` (trees whose set of *old* rows
        changed) and ``trees_changed`` (including the new row's tree).
    """
    rng = np.random.default_rng(seed)
    u = rng.random(n_rows)
    new = rng.random()

    def equal_split(values: np.ndarray) -> np.ndarray:
        part = np.empty(len(values), dtype=np.int64)
        for t, chunk in enumerate(np.array_split(np.argsort(values), n_trees)):
            part[chunk] = t
        return part

    rows = []
    for scheme, assign in (
        ("independent per row (dpviz)", lambda v: np.floor(v * n_trees).astype(np.int64)),
        ("sort and cut into equal parts", equal_split),
    ):
        before = assign(u)
        after = assign(np.append(u, new))
        moved = before != after[:-1]
        other = set(before[moved]) | set(after[:-1][moved])
        rows.append(
            {
                "scheme": scheme,
                "rows_that_move": int(moved.sum()),
                "trees_with_other_rows": len(other),
                "trees_changed": len(other | {int(after[-1])}),
            }
        )
    return pd.DataFrame(rows)
