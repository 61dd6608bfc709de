"""Notebook 03 (FS, private ID3): the explorers' charts and controls, tables next to the papers.

Data, fits and curves: :mod:`dpviz.experiments.fs_runs`; this module draws, and registers
exercises 03.1–03.4 on import.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from dpviz.data.published import FS_TABLE1, FS_TABLE1_ALGORITHMS
from dpviz.experiments import fs_runs
from dpviz.experiments.reproduce_fs import jpw_table1_comparison, percent_summary
from dpviz.experiments.shipped import result
from dpviz.explore import argument, exercise, reproductions
from dpviz.mechanisms import exponential_probabilities
from dpviz.pseudocode.fs import tau
from dpviz.trees.id3_quality import get_criterion, q_max, sensitivity_max
from dpviz.ui.exercises import AuditTask, Implementation, Prediction, register
from dpviz.ui.plots import accuracy_chart
from dpviz.ui.tree_charts import ledger_level_chart, tree_chart
from dpviz.ui.widgets import choice_dropdown, depth_slider, epsilon_slider, int_slider
from dpviz.validation import check_epsilon, check_int

#: Largest depth of the explorers' slider: every curve up to it ships, so a move only reads.
MAX_DEPTH = max(fs_runs.EXPLORER_DEPTHS)


def _budget_line(dataset: str, criterion: str, epsilon: float, depth: int) -> str:
    split = fs_runs.budget_split(dataset, criterion, epsilon, depth)
    if criterion == "sulq":
        return (
            f"depth {depth}: a node spends 2ε, ε = B/(2(d+1)) = {split['level']:.3g}; each of "
            f"the root's {split['split_queries']} count queries gets ε/(2|A|) = "
            f"{split['split_epsilon']:.2g}"
        )
    numeric = (f", plus {split['numeric']} split points" if split["numeric"] else "")
    formula = "B/((2+n)d+2)" if split["numeric"] else "B/(2(d+1))"
    return (
        f"depth {depth}: one exponential-mechanism query per node at ε = {formula} = "
        f"{split['level']:.3g}{numeric}; sensitivity S = {split['sensitivity']:.3g}"
    )


def fs_explorer_chart(
    dataset: str = "fs-single-split", epsilon: float = 0.1, depth: int | None = None,
    criterion: str = "max",
) -> alt.LayerChart:
    """Explorer callback: an FS algorithm's test accuracy against B, ε = ∞ dashed."""
    eps = check_epsilon(epsilon)
    d = fs_runs.explorer_depth(dataset, criterion, depth)
    curve = fs_runs.explorer_curve(dataset, criterion, d)
    finite = curve[np.isfinite(curve["epsilon"])]
    reference = float(curve.loc[~np.isfinite(curve["epsilon"]), "accuracy"].mean())
    point = fs_runs.explorer_point(dataset, criterion, eps, d)
    if not np.isclose(finite["epsilon"], eps, rtol=1e-9).any():
        finite = pd.concat([finite, point], ignore_index=True)
    accuracy = float(point["accuracy"].mean())
    name = fs_runs.ALGORITHM_NAMES[criterion]
    if criterion != "sulq" and dataset == "adult":
        name = name.replace("DiffPID3", "DiffPC4.5")
    title = alt.Title(
        f"{name} on {dataset}: {accuracy:.1%} at B = {eps:.3g}",
        subtitle=[
            _budget_line(dataset, criterion, eps, d),
            f"dashed: ε = ∞, {reference:.1%}; band: spread of {fs_runs.REPEATS[dataset]} fits; "
            + fs_runs.explorer_data(dataset, criterion).note,
        ],
    )
    chart = accuracy_chart(finite, reference=reference, highlight=eps, title=title, width=460,
                           x_title="B (the total budget ε)")
    return chart.properties(title=title)  # on the layer, where Vega-Lite shows it


def fs_controls(
    dataset: str = "fs-single-split", epsilon: float = 0.1, criterion: str = "max"
) -> dict[str, Any]:
    """The accuracy explorer's widgets; picking a data set resets the depth to its default."""
    picker = choice_dropdown(list(fs_runs.EXPLORER_DATASETS), fs_runs.check_dataset(dataset))
    depth = depth_slider(fs_runs.DEFAULT_DEPTH[dataset], high=MAX_DEPTH)

    def reset(change: dict[str, Any]) -> None:
        depth.value = fs_runs.DEFAULT_DEPTH[change["new"]]

    picker.observe(reset, names="value")
    return {
        "dataset": picker,
        "epsilon": epsilon_slider(epsilon, low=0.05, high=10.0, description="B"),
        "depth": depth,
        "criterion": choice_dropdown(
            list(fs_runs.CRITERIA), fs_runs.check_criterion(criterion), description="criterion"
        ),
    }


def fs_tree_chart(
    dataset: str = "fs-single-split", epsilon: float = 0.1, depth: int | None = None,
    criterion: str = "max", run: int = 0,
) -> alt.VConcatChart:
    """Explorer callback: fit ``run`` of the explorer's point as a tree, its ledger below."""
    eps = check_epsilon(epsilon)
    d = fs_runs.explorer_depth(dataset, criterion, depth)
    run = check_int(run, "run", minimum=0)
    model, accuracy, unclassified = fs_runs.fit_one(dataset, criterion, eps, d, run)
    title = alt.Title(
        f"fit {run} on {dataset}: test accuracy {accuracy:.1%}, "
        f"{unclassified:.1%} of the test rows unclassified",
        subtitle="hover over a node for its noisy counts; orange: an empty leaf (N_T ≤ 0)",
    )
    # independent colours: the tree's scale is fixed to the node kinds, and a shared scale
    # would leave the ledger's query labels (not among them) without a colour
    return (
        alt.vconcat(tree_chart(model, width=560), ledger_level_chart(model, width=400))
        .resolve_scale(color="independent")
        .properties(title=title)
    )


def fs_tree_controls(
    dataset: str = "fs-single-split", epsilon: float = 0.1, criterion: str = "max"
) -> dict[str, Any]:
    """The tree view's widgets: :func:`fs_controls`'s plus the fit number ``run``."""
    controls = fs_controls(dataset, epsilon, criterion)
    controls["run"] = int_slider(0, 0, 9, "run")
    return controls


def split_point_chart(
    frame: pd.DataFrame, *, bins: int = 100, width: int = 460, title: str | None = None
) -> alt.Chart:
    """Probability of the drawn split point per bin and criterion (log scale)."""
    if title is None:
        if "threshold" in frame:
            cells = int(frame.groupby("criterion", sort=False).size().iloc[0]) + 1
            title = f"dpviz: a point of the public grid ({cells} cells; true split at 35)"
        else:
            title = "FS §4.3: the continuous density (true split at 35)"
    mass = fs_runs.binned_split_point_mass(frame, check_int(bins, "bins", minimum=1))
    mass["probability"] = mass["probability"].clip(lower=1e-12)
    return (
        alt.Chart(mass, width=width, height=80)
        .mark_rect(opacity=0.85)
        .encode(
            x=alt.X("start:Q", title="split point r"),
            x2="end:Q",
            y=alt.Y(
                "probability:Q",
                scale=alt.Scale(type="log", domain=[1e-12, 1]),
                axis=alt.Axis(format=".0e", values=[1e-12, 1e-9, 1e-6, 1e-3, 1]),  # one format
                title="P(bin)",
            ),
            y2=alt.datum(1e-12),
            color=alt.Color("criterion:N", legend=None),
            tooltip=["criterion", "start", "end", alt.Tooltip("probability:Q", format=".3g")],
        )
        .facet(row=alt.Row("criterion:N", title=None))
        .properties(title=title)
    )


def table1_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Our FS Table 1 next to the paper's: index n, columns (algorithm, ours / paper), in %."""
    ours = percent_summary(runs)
    merged = ours.merge(FS_TABLE1, on=["n", "algorithm"], suffixes=("", "_paper"))
    merged = merged.rename(columns={"mean": "ours", "mean_paper": "paper"})
    wide = merged.pivot_table(index="n", columns="algorithm", values=["ours", "paper"])
    algorithms = [a for a in FS_TABLE1_ALGORITHMS if a in set(merged["algorithm"])]
    wide = wide.swaplevel(axis=1).reindex(
        columns=pd.MultiIndex.from_product([algorithms, ["ours", "paper"]])
    )
    wide.columns.names = ["", ""]
    return wide.round(1)


def table1_chart(runs: pd.DataFrame, *, width: int = 170) -> alt.FacetChart:
    """Ours (mean ± 1 standard error) and the paper's mean per algorithm and n, 3 panels a row."""
    ours = percent_summary(runs)
    ours["low"] = ours["mean"] - ours["sem"]
    ours["high"] = ours["mean"] + ours["sem"]
    ours["source"] = "ours"
    paper = FS_TABLE1.assign(source="FS 2010", low=np.nan, high=np.nan)
    columns = ["n", "algorithm", "mean", "low", "high", "source"]
    frame = pd.concat([ours[columns], paper[columns]], ignore_index=True)
    base = alt.Chart(frame).encode(
        x=alt.X("n:Q", title="training rows"),
        color=alt.Color("source:N", title=None, legend=alt.Legend(orient="bottom")),
    )
    lines = base.mark_line(point=True).encode(
        y=alt.Y("mean:Q", title="accuracy (%)", scale=alt.Scale(domain=[40, 100])),
        tooltip=["algorithm", "source", "n", alt.Tooltip("mean:Q", format=".1f")],
    )
    bars = base.mark_errorbar().encode(y="low:Q", y2="high:Q")
    return (
        alt.layer(lines, bars, data=frame)
        .properties(width=width, height=150)
        .facet(
            facet=alt.Facet("algorithm:N", sort=list(FS_TABLE1_ALGORITHMS), title=None), columns=3,
        )
    )


def jpw_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Our JPW Table I next to theirs (see :func:`~.reproduce_fs.jpw_table1_comparison`)."""
    return jpw_table1_comparison(runs).round(1)


def runs_chart(
    runs: pd.DataFrame, *, title: str, algorithms: Sequence[str] | None = None
) -> alt.LayerChart:
    """Accuracy (%) against training rows, a line per algorithm, a light band over runs."""
    frame = runs if algorithms is None else runs[runs["algorithm"].isin(algorithms)]
    frame = frame.assign(accuracy=100 * frame["accuracy"])
    return accuracy_chart(frame, x="n", color="algorithm", log_x=False, title=title, width=420,
                          band_opacity=0.1)  # five or six bands overlap: keep them light


def published_table1() -> str | None:
    """The full 200-run FS Table 1 (``docs/fs_table1.md``, written by ``make bench``), if any.

    Its table and caption only: the paragraph on how the file was made is for maintainers.
    """
    path = Path(__file__).resolve().parents[2] / "docs" / "fs_table1.md"
    if not path.exists():
        return None
    paragraphs = path.read_text(encoding="utf-8").strip().split("\n\n")
    return "\n\n".join(p for p in paragraphs if not p.startswith("Seed ")) + "\n"


# ---------------------------------------------------------------------------------- reproductions
# Read from the shipped results; recomputed under DPVIZ_RECOMPUTE=1 (with DPVIZ_QUICK=1: fewer
# runs and sizes, reproductions.json).
def table1_reproduction() -> pd.DataFrame:
    """FS Table 1: 50 runs per size (10 for the slow unlimited-depth ID3), as shipped."""
    settings = reproductions("03")
    return result(fs_runs.table1_runs, settings["table1_runs"], settings["table1_id3_runs"])


def fig4_reproduction() -> pd.DataFrame:
    """FS Fig. 4 (a numeric split at 35, B = 0.1): 30 runs per size, as shipped."""
    settings = reproductions("03")
    return result(fs_runs.fig4_runs, settings["fig4_sizes"], settings["figure_runs"])


def fig5_reproduction() -> pd.DataFrame:
    """FS Fig. 5 (a numeric split against ten bins, B = 0.2): 30 runs per size, as shipped."""
    settings = reproductions("03")
    return result(fs_runs.fig5_runs, settings["fig5_sizes"], settings["figure_runs"])


def jpw_table1_reproduction() -> pd.DataFrame:
    """JPW Table I (a private ID3 that stops only at empty nodes): 3 splits, as shipped."""
    return result(fs_runs.jpw_runs, reproductions("03")["jpw_runs"])


def explorer_curves() -> None:
    """The explorers' shipped curves (each data set, criterion, depth and ε of the sliders)."""
    for dataset in fs_runs.EXPLORER_DATASETS:
        fs_runs.shipped_curves(dataset, recompute=None)


#: The notebook's shipped reproductions (``make results`` recomputes them).
SHIPPED = (table1_reproduction, fig4_reproduction, fig5_reproduction, jpw_table1_reproduction,
           explorer_curves)


# === Exercises 03.x (registered with dpviz.ui.exercises when this module is imported) ===

#: The ε the root split claims in exercise 03.3.
ROOT_SPLIT_EPSILON = 1.0
#: The split's exact worst-case loss: q_Max is monotone, so P(A) moves by at most exp(ε/2).
ROOT_SPLIT_MAX_LOSS = ROOT_SPLIT_EPSILON / 2


def split_probabilities(counts: Sequence[Any], epsilon: float, criterion: str) -> np.ndarray:
    """Exact P(DiffPID3 splits on each attribute) at a node with counts τ_jc (FS Alg. 2 l. 14)."""
    crit = get_criterion(criterion)
    scores = np.asarray(crit.quality(np.asarray(counts, dtype=np.float64)), dtype=np.float64)
    return exponential_probabilities(scores, epsilon=epsilon, sensitivity=crit.sensitivity(None))


def row_counts(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """τ_jc of each attribute of binary rows (a1, …, ak, class): shape (k, 2, 2)."""
    arr = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1)
    return np.array([tau(arr, arr[:, -1], a, 2, 2) for a in range(arr.shape[1] - 1)])


def root_split_law(rows: Sequence[Sequence[int]]) -> dict[int, float]:
    """Exact law of DiffPID3-Max's root split on ``rows`` at ε = :data:`ROOT_SPLIT_EPSILON`."""
    p = exponential_probabilities(q_max(row_counts(rows)), epsilon=ROOT_SPLIT_EPSILON,
                                  sensitivity=sensitivity_max())
    return {i: float(x) for i, x in enumerate(p)}


def sulq_accuracy_at_b2(seed: int = 0) -> float:
    """The explorer's accuracy (%) for ``sulq`` on ``fs-single-split``, depth 1, B = 2 (fixed)."""
    point = fs_runs.explorer_point("fs-single-split", "sulq", 2.0, 1)
    return 100.0 * float(point["accuracy"].mean())


SPLIT_SELECTION = exercise("03.2", Implementation, exact=split_probabilities)
ROOT_SPLIT = exercise("03.3", AuditTask, exact=root_split_law, epsilon=ROOT_SPLIT_EPSILON,
                      max_loss=ROOT_SPLIT_MAX_LOSS)
#: The nodes of exercise 03.2: counts τ_jc (attributes, values, classes); a value no row
#: takes is a row of zeros.
SPLIT_CASES = SPLIT_SELECTION.cases
#: Exercise 03.3's data set D: rows (a1, a2, a3, class), all binary; a1 decides the class
#: (the law is checked on a second data set too, where a2 decides).
ROOT_SPLIT_DATA = ROOT_SPLIT.cases[0]

register({"03.1": argument("03.1"), "03.2": SPLIT_SELECTION, "03.3": ROOT_SPLIT,
          "03.4": exercise("03.4", Prediction, compute=sulq_accuracy_at_b2)})
