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
from dpviz.explore import settings, ships
from dpviz.mechanisms import exponential_probabilities
from dpviz.pseudocode.fs import tau
from dpviz.trees.id3_quality import get_criterion, q_max, sensitivity_max
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
from dpviz.ui.tree_charts import ledger_level_chart, tree_chart
from dpviz.ui.widgets import (
    choice_dropdown,
    depth_slider,
    epsilon_slider,
    fits_on_move,
    int_slider,
)
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


@fits_on_move("dpviz.trees.id3", "dpviz.experiments.reproduce_fs")  # a point off the grid
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


@fits_on_move("dpviz.trees.id3", "dpviz.experiments.reproduce_fs")  # every view fits
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
# runs and sizes).
#: What notebook 03's reproductions run: full (shipped) and a quick version.
REPRODUCTION_SETTINGS = {
    "quick": {"table1_runs": 10, "table1_id3_runs": 2, "figure_runs": 3,
              "fig4_sizes": (1000, 3000, 5000), "fig5_sizes": (500, 1000, 3000, 5000),
              "jpw_runs": 1},
    "full": {"table1_runs": 50, "table1_id3_runs": 10, "figure_runs": 30,
             "fig4_sizes": (1000, 2000, 3000, 4000, 5000),
             "fig5_sizes": (500, 1000, 2000, 3000, 4000, 5000), "jpw_runs": 3},
}


def reproduction_settings(quick: bool | None = None) -> dict:
    """What notebook 03's reproductions run: full (shipped) or quick (None: the run mode's)."""
    return settings(REPRODUCTION_SETTINGS, quick)


def table1_reproduction() -> pd.DataFrame:
    """FS Table 1: 50 runs per size (10 for the slow unlimited-depth ID3), as shipped."""
    chosen = reproduction_settings()
    return result(fs_runs.table1_runs, chosen["table1_runs"], chosen["table1_id3_runs"])


def fig4_reproduction() -> pd.DataFrame:
    """FS Fig. 4 (a numeric split at 35, B = 0.1): 30 runs per size, as shipped."""
    chosen = reproduction_settings()
    return result(fs_runs.fig4_runs, chosen["fig4_sizes"], chosen["figure_runs"])


def fig5_reproduction() -> pd.DataFrame:
    """FS Fig. 5 (a numeric split against ten bins, B = 0.2): 30 runs per size, as shipped."""
    chosen = reproduction_settings()
    return result(fs_runs.fig5_runs, chosen["fig5_sizes"], chosen["figure_runs"])


def jpw_table1_reproduction() -> pd.DataFrame:
    """JPW Table I (a private ID3 that stops only at empty nodes): 3 splits, as shipped."""
    return result(fs_runs.jpw_runs, reproduction_settings()["jpw_runs"])


def explorer_curves() -> None:
    """The explorers' shipped curves (each data set, criterion, depth and ε of the sliders)."""
    for dataset in fs_runs.EXPLORER_DATASETS:
        fs_runs.shipped_curves(dataset, recompute=None)


# ---------------------------------------------------------------------------------- lessons
#: Tables the notebook computes in a second or less (:mod:`dpviz.experiments.fs_runs`'s): the
#: notebook's own calls read them shipped (:func:`dpviz.explore.ships`), any other call runs.
split_choice_table = ships(fs_runs.split_choice_table)
stopping_table = ships(fs_runs.stopping_table)
pruning_table = ships(fs_runs.pruning_table)


def lesson_tables() -> None:
    """The lessons' tables at the notebook's arguments (:func:`dpviz.explore.ships`)."""
    split_choice_table()
    stopping_table("adult", (0.5, 1.0, 2.0, 5.0, 10.0), depth=3, criterion="max")
    pruning_table("nursery", 1.0, depth=5, criterion="max", runs=5)


#: The notebook's shipped reproductions and tables (``make results`` recomputes them).
SHIPPED = (table1_reproduction, fig4_reproduction, fig5_reproduction, jpw_table1_reproduction,
           explorer_curves, lesson_tables)


# ====================================================================== exercises 03.1–03.4
# One exercise in one place: the question (the notebook asks it in full), the check's cases and
# settings, its hint, and the worked answer the instructor's key returns
# (dpviz.ui.exercises.solution; never shown in the notebook). Registered at the end.

# --- 03.1 · Privacy argument: DiffPC4.5's budget split makes the whole tree B-DP.
SPLIT_BUDGET_ARGUMENT = Argument(
    claim="DiffPC4.5 with depth d and n numeric attributes asks every query at ε = B/((2+n)d + 2) "
          "(FS §4.3; n = 0 is DiffPID3, ε = B/(2(d+1))). Then the whole tree is B-DP for "
          "add/remove neighbours.",
    steps=(
        Step(
            question="An inner node (depth < d) asks, all on its own rows: its noisy row count "
                     "N_T, one split point for each of the n numeric attributes, and the "
                     "exponential-mechanism choice of the attribute — each at ε. What does the "
                     "node cost?",
            options={
                "a": "ε: the queries read the same rows, so the rows pay once",
                "b": "(2 + n)·ε: the n + 2 queries compose sequentially",
                "c": "2ε: the split points are post-processing of N_T",
            },
            correct="b",
            why_wrong={
                "a": "reading the same rows is exactly when costs add up: an added row changes "
                     "the input of every one of these queries, and each answer may reveal it",
                "c": "a split point is drawn by the exponential mechanism from scores that read "
                     "the node's rows; it is a query of its own, not a function of N_T",
            },
        ),
        Step(
            question="The nodes of one level split the rows by the values (or thresholds) chosen "
                     "above them. What do all the nodes of that level cost together?",
            options={
                "a": "the sum of the nodes' costs, node after node",
                "b": "one node's cost: each row reaches exactly one node of the level",
                "c": "nothing: Partition is free, and the nodes only split what it returned",
            },
            correct="b",
            why_wrong={
                "a": "a sum is needed when one row can affect several queries; here an added row "
                     "lands in a single node of the level, and only that node's answers change",
                "c": "splitting the rows costs nothing, but the queries asked inside the parts "
                     "read rows and cost their ε",
            },
        ),
        Step(
            question="Which rows a node at depth 2 holds depends on the attributes chosen above "
                     "it, and those choices depend on the data. Does the argument of step 2 "
                     "survive?",
            options={
                "a": "no: a partition must be fixed before any query is answered",
                "b": "only if the tree is balanced",
                "c": "yes: a row's node depends on the row and on answers already released",
            },
            correct="c",
            why_wrong={
                "a": "composition allows each query, and each partition, to be chosen from the "
                     "answers released so far: once released, the chosen attribute is public",
                "b": "an unbalanced split is still a partition: what matters is that a row "
                     "reaches one node, not how many rows each node gets",
            },
        ),
        Step(
            question="The tree has d levels of inner nodes and one level of leaves; a leaf asks "
                     "N_T and its class counts (one count per class). What does the whole tree "
                     "cost?",
            options={
                "a": "the most expensive level only, (2 + n)·ε",
                "b": "(d + 1)·(2 + n)·ε",
                "c": "d·(2 + n)·ε + (1 + |C|)·ε",
                "d": "d·(2 + n)·ε + 2ε",
            },
            correct="d",
            why_wrong={
                "a": "a row reaches one node on every level, so each level's queries can reveal "
                     "it: levels compose sequentially, not in parallel",
                "b": "a leaf chooses no attribute and no split point; it asks only its count and "
                     "its class counts",
                "c": "a row has one class: the class counts of a leaf read disjoint rows, so "
                     "together they cost one count's ε (notebook 01 §0: a histogram has L1 "
                     "sensitivity 1)",
            },
        ),
    ),
    conclusion="Inside a node the queries add up (sequential), across a level they do not "
               "(parallel: a row reaches one node, chosen by the row and earlier releases only), "
               "and the levels add up again: d·(2 + n)·ε + 2ε = B. A node the stopping rule turns "
               "into a leaf spends less, never more. The SuLQ-based ID3 has the same levels, but "
               "cuts the attribute choice's ε into 2|A| count queries on the same rows.",
)



# --- 03.2 · DiffPID3's choice of attribute: my_split_probabilities(counts, epsilon, criterion),
# one probability per attribute, for counts τ_jc of shape (attributes, values, classes) and the
# score "max" or "gini".
def split_probabilities(counts: Sequence[Any], epsilon: float, criterion: str) -> np.ndarray:
    """Exact P(DiffPID3 splits on each attribute) at a node with counts τ_jc (FS Alg. 2 l. 14)."""
    crit = get_criterion(criterion)
    scores = np.asarray(crit.quality(np.asarray(counts, dtype=np.float64)), dtype=np.float64)
    return exponential_probabilities(scores, epsilon=epsilon, sensitivity=crit.sensitivity(None))


# --- answer: start (the worked answer: cut from the students' copy)
def _split_probabilities(counts: Sequence[Any], epsilon: float, criterion: str) -> np.ndarray:
    c = np.asarray(counts, dtype=float)
    if criterion == "max":
        q, sensitivity = c.max(axis=2).sum(axis=1), 1.0
    else:  # Gini: minus the weighted impurity, Σ_j (τ_j − Σ_c τ_jc²/τ_j); an empty value adds 0
        tau_j = c.sum(axis=2)
        purity = np.divide((c**2).sum(axis=2), tau_j, out=np.zeros_like(tau_j), where=tau_j > 0)
        q, sensitivity = -(tau_j - purity).sum(axis=1), 2.0
    w = np.exp(epsilon * (q - q.max()) / (2 * sensitivity))
    return w / w.sum()
# --- answer: end


def _node_case(rng: np.random.Generator) -> dict[str, object]:
    """A drawn case of 03.2: 3 attributes, 2–3 values, 2–3 classes, 30 to 3,000 rows, ε 0.01–2."""
    values, classes = int(rng.integers(2, 4)), int(rng.integers(2, 4))
    per_class = rng.multinomial(int(rng.choice([30, 300, 3000])), np.full(classes, 1 / classes))
    counts = [[[0] * classes for _ in range(values)] for _ in range(3)]
    for a in range(3):  # every attribute splits the node's same rows among its values
        for c, n in enumerate(per_class):
            for j, k in enumerate(rng.multinomial(int(n), rng.dirichlet(np.ones(values)))):
                counts[a][j][c] = int(k)
    return {"counts": tuple(tuple(tuple(row) for row in a) for a in counts),
            "epsilon": float(f"{np.exp(rng.uniform(np.log(0.01), np.log(2.0))):.3g}"),
            "criterion": str(rng.choice(["max", "gini"]))}


_NODE = (((27, 3), (4, 26)), ((16, 14), (15, 15)), ((20, 12), (11, 17)))
#: A node of 3,010 rows whose Max scores (2995, 2993, 2991) overflow exp at ε = 1 unless the
#: largest is subtracted first.
_LARGE_NODE = (((1500, 10), (5, 1495)), ((1499, 11), (6, 1494)), ((1498, 12), (7, 1493)))
SPLIT_SELECTION = Implementation(
    cases=({"counts": _NODE, "epsilon": 0.2, "criterion": "max"},
           {"counts": _NODE, "epsilon": 0.2, "criterion": "gini"},
           {"counts": (((12, 0, 1), (2, 9, 1), (0, 1, 8)),
                       ((10, 6, 5), (4, 4, 5), (0, 0, 0)),
                       ((7, 1, 0), (7, 9, 10), (0, 0, 0))),
            "epsilon": 1.0, "criterion": "gini"},
           {"counts": _NODE, "epsilon": 0.01, "criterion": "max"},
           {"counts": _LARGE_NODE, "epsilon": 1.0, "criterion": "max"}),
    exact=split_probabilities, draw_case=_node_case, n_drawn=3,
    hint="score each attribute from its own table of counts (Max: rows its split would classify "
         "right; Gini: minus the weighted impurity, a value without rows adds 0), then weight "
         "the scores as the exponential mechanism does for the score's sensitivity (section 2) "
         "and normalise; on a node of thousands of rows exp overflows to inf unless all the "
         "scores are first lowered by the same amount",
    solution=_split_probabilities,
)
#: The nodes of exercise 03.2: counts τ_jc (attributes, values, classes); a value no row
#: takes is a row of zeros.
SPLIT_CASES = SPLIT_SELECTION.cases


# --- 03.3 · Audit DiffPID3-Max's root split: my_root_split(data, n, rng), n draws of the
# attribute (0, 1, 2) chosen at ε = 1 on binary rows (a1, a2, a3, class); a neighbour D′ of
# D = ROOT_SPLIT_DATA on which the law moves most, audited at ε = 1.
#: The ε the root split claims in exercise 03.3.
ROOT_SPLIT_EPSILON = 1.0
#: The split's exact worst-case loss: q_Max is monotone, so P(A) moves by at most exp(ε/2).
ROOT_SPLIT_MAX_LOSS = ROOT_SPLIT_EPSILON / 2
#: Exercise 03.3's data set D: rows (a1, a2, a3, class), all binary; a1 decides the class
#: (the law is checked on a second data set too, where a2 decides).
ROOT_SPLIT_DATA = ((0, 0, 1, 0), (0, 1, 0, 0), (0, 0, 0, 0), (1, 1, 1, 1), (1, 0, 1, 1),
                   (1, 1, 0, 1))


def row_counts(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """τ_jc of each attribute of binary rows (a1, …, ak, class): shape (k, 2, 2)."""
    arr = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1)
    return np.array([tau(arr, arr[:, -1], a, 2, 2) for a in range(arr.shape[1] - 1)])


def root_split_law(rows: Sequence[Sequence[int]]) -> dict[int, float]:
    """Exact law of DiffPID3-Max's root split on ``rows`` at ε = :data:`ROOT_SPLIT_EPSILON`."""
    p = exponential_probabilities(q_max(row_counts(rows)), epsilon=ROOT_SPLIT_EPSILON,
                                  sensitivity=sensitivity_max())
    return {i: float(x) for i, x in enumerate(p)}


# --- answer: start (the worked answer: cut from the students' copy)
def _root_split(data: Sequence[Sequence[int]], n: int, rng: np.random.Generator) -> np.ndarray:
    rows = np.asarray(data)
    q = np.array([sum(max(np.sum((rows[:, a] == v) & (rows[:, -1] == c)) for c in (0, 1))
                      for v in (0, 1)) for a in range(rows.shape[1] - 1)], dtype=float)
    w = np.exp(ROOT_SPLIT_EPSILON * (q - q.max()) / 2)  # q_Max has sensitivity 1
    return rng.choice(len(q), size=n, p=w / w.sum())
# --- answer: end


ROOT_SPLIT = AuditTask(
    cases=(ROOT_SPLIT_DATA,
           ((0, 0, 1, 0), (1, 0, 0, 0), (1, 0, 1, 0), (0, 1, 1, 1), (1, 1, 0, 1), (0, 1, 0, 1),
            (1, 1, 1, 0))),
    exact=root_split_law, epsilon=ROOT_SPLIT_EPSILON, max_loss=ROOT_SPLIT_MAX_LOSS,
    min_bound=0.15, relation="rows", allowed=("dpviz.mechanisms.",),
    hint="count τ_jc of every attribute from the rows, score each attribute with q_Max "
         "(sensitivity 1) and draw n attributes with the exponential mechanism at ε = 1; return "
         "an array of n attribute indices 0, 1, 2",
    solution=(_root_split, ROOT_SPLIT_DATA, (*ROOT_SPLIT_DATA, (0, 0, 1, 0))),
)


# --- 03.4 · Predict, then move the slider: the SuLQ ID3's mean test accuracy (%) on
# fs-single-split at depth 1 and B = 2.
def sulq_accuracy_at_b2(seed: int = 0) -> float:
    """The explorer's accuracy (%) for ``sulq`` on ``fs-single-split``, depth 1, B = 2 (fixed)."""
    point = fs_runs.explorer_point("fs-single-split", "sulq", 2.0, 1)
    return 100.0 * float(point["accuracy"].mean())


SULQ_PREDICTION = Prediction(
    compute=sulq_accuracy_at_b2, tolerance=6.0, unit="%", bounds=PERCENT,
    hint="at B = 2 each count query gets twenty times the ε it had at B = 0.1: scale the "
         "noise's standard deviation (section 1's table) accordingly and compare it with the "
         "counts a node of 2,000 rows holds for each value and class",
)

register({"03.1": SPLIT_BUDGET_ARGUMENT, "03.2": SPLIT_SELECTION, "03.3": ROOT_SPLIT,
          "03.4": SULQ_PREDICTION})
