"""Notebook 04 (RDT#, Jagannathan, Monteleoni & Pillaipakkamnatt 2013): explorer and lessons.

The explorer evaluates runs of :class:`~dpviz.experiments.semi_supervised.ProtocolRun`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz import mechanisms
from dpviz.data import catalogue
from dpviz.data.uci import Dataset
from dpviz.domain import Categorical
from dpviz.errors import InvalidParameterError
from dpviz.experiments import semi_supervised
from dpviz.experiments.reproduce_rdt_sharp import (
    error_vs_labeled,
    error_vs_unlabeled,
    labeled_fraction_errors,
    rdt_sharp_runs,
    rdt_sharp_vs_epsilon,
    smallest_fraction,
)
from dpviz.experiments.runner import curve, remember
from dpviz.experiments.semi_supervised import METHODS, N_PRIMARY, ProtocolRun
from dpviz.experiments.shipped import result, shipped_rows
from dpviz.explore import settings, ships
from dpviz.trees.random_tree import rdt_sharp_depth
from dpviz.ui.exercises import (
    FRACTION,
    Argument,
    AuditTask,
    Implementation,
    Prediction,
    Step,
    register,
)
from dpviz.ui.plots import accuracy_chart
from dpviz.ui.widgets import choice_dropdown, selection_slider
from dpviz.validation import check_option

EXPLORER_DATASETS = semi_supervised.DATASETS
#: The explorer's labeled % per data set: where the protocol's mean error crosses 0.3
#: (Private-RDT at ε = 0.5, 200 runs; notebook 04). Synthetic never does: 10%.
DEFAULT_PERCENT = {"mushroom": 2, "nursery": 30, "votes": 30, "synthetic": 10}
#: ε values of the explorer's curve and of its ε slider (every curve at them ships).
EPSILON_GRID = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
#: Runs (splits and seeds) per point of the explorer's curve.
REPEATS = 3
#: Stops of the labeled-% slider (the protocol's crossing points are at 2-30 %).
PERCENTS = (1, 2, 3, 5, 10, 15, 20, 30, 40, 50)
#: Stops of the secondary-trees slider t (RDT# §V: 200; little changes beyond a few dozen).
SECONDARIES = (0, 5, 10, 20, 50)
#: Largest labeled % and most secondary trees of the sliders.
MAX_PERCENT, MAX_SECONDARY = max(PERCENTS), max(SECONDARIES)
_SHOWN = ("rdt_sharp", "private_rdt")


@remember()
def _dataset(name: str) -> Dataset:
    return semi_supervised.rdt_sharp_dataset(check_option(name, EXPLORER_DATASETS, "dataset"))


def mean_values(name: str) -> float:
    """The b of RDT#'s height rule: the mean number of values per attribute (numeric: 2)."""
    domain = _dataset(name).domain
    return float(np.mean([a.n_values if isinstance(a, Categorical) else 2 for a in domain]))


@remember(maxsize=12)  # up to ~10 MB each with t = 200
def _run(name: str, percent: float, n_secondary: int, run: int) -> ProtocolRun:
    """Run ``run`` of the protocol (the split of seed ``run``), its public work done once."""
    return ProtocolRun(_dataset(name), percent / 100, run, n_secondary=n_secondary)


def explorer_frame(
    dataset: str, epsilons: Sequence[float], percent: float, n_secondary: int,
    repeats: int | Sequence[int] = REPEATS, shipped: bool = True,
) -> pd.DataFrame:
    """One row per (ε, run, method) of the protocol at ``percent``% labeled (runner's curve).

    ``shipped``: each run :func:`rdt_sharp_curves` ships is read (the same numbers), the others
    run and remembered; else every one is run afresh (what ships).
    """
    percent, n_secondary = float(percent), int(n_secondary)
    table = _shipped_curves(dataset) if shipped else {}
    n_test = _dataset(dataset).n_rows // 10  # protocol_split's test rows

    def errors(run: int, eps: float) -> list[float]:
        known = table.get((percent, n_secondary, eps, run))
        if known:  # wrong / n_test: np.mean(predicted != truth) bit for bit
            return [known[method] / n_test for method in _SHOWN]
        protocol = _run(dataset, percent, n_secondary, run)
        return [protocol.error(method, eps) for method in _SHOWN]

    def evaluate(run: int, epsilons: list[float]) -> list[list[dict]]:
        return [[{"epsilon": eps, "method": METHODS[method], "repeat": run, "error": error,
                  "accuracy": 1.0 - error}
                 for method, error in zip(_SHOWN, errors(run, eps), strict=True)]
                for eps in epsilons]

    key = ("rdt#", dataset, percent, n_secondary) if shipped else None
    return curve(evaluate, epsilons, repeats, key=key)


def rdt_sharp_curves(
    dataset: str, *, percents: Sequence[float] = PERCENTS,
    secondaries: Sequence[int] = SECONDARIES,
    epsilons: Sequence[float] = (*EPSILON_GRID, math.inf), progress: bool = False,
) -> pd.DataFrame:
    """The explorer's curves at every stop of its sliders, run afresh: what ships.

    One row per (labeled %, t, ε, run): each method's test rows predicted wrong (``rdt_sharp``,
    ``private_rdt``; its error is that over the test rows, ``n_rows // 10``), and the trees'
    ``height`` (RDT#'s rule on the labeled rows: public; the chart's title reads it).
    """
    n_test = _dataset(dataset).n_rows // 10
    settings = [(p, int(t)) for p in percents for t in secondaries]
    rows = []
    for p, t in tqdm(settings, disable=not progress, desc=f"RDT# curves, {dataset}"):
        frame = explorer_frame(dataset, epsilons, p, t, shipped=False)
        wide = frame.pivot_table(index=["epsilon", "repeat"], columns="method", values="error",
                                 sort=False)
        for (eps, run), errors in wide.iterrows():
            wrong = {m: round(errors[METHODS[m]] * n_test) for m in _SHOWN}
            assert all(wrong[m] / n_test == errors[METHODS[m]] for m in _SHOWN)
            rows.append({"percent": p, "n_secondary": t, "epsilon": eps, "repeat": run, **wrong,
                         "height": _run(dataset, float(p), t, int(run)).depth})
    return pd.DataFrame(rows)


@remember()
def _shipped_curves(dataset: str) -> dict[tuple, dict]:
    """The shipped runs of :func:`rdt_sharp_curves` by (labeled %, t, ε, run); empty if none."""
    return shipped_rows(rdt_sharp_curves, dataset,
                        keys=("percent", "n_secondary", "epsilon", "repeat"))


def explorer_curves() -> None:
    """The explorer's shipped curves: every data set and stop of its sliders."""
    for dataset in EXPLORER_DATASETS:
        result(rdt_sharp_curves, dataset, progress=True)


def run_errors(
    dataset: str, percent: float, n_secondary: int, run: int, epsilon: float
) -> tuple[float, float]:
    """Test errors (RDT#, labeled-only Private-RDT) of run ``run`` at ``epsilon``."""
    return tuple(explorer_frame(dataset, [epsilon], percent, n_secondary, [int(run)])["error"])


def rdt_sharp_explorer_chart(
    dataset: str = "nursery", epsilon: float = 0.5, percent: int = 20, n_secondary: int = 20,
) -> alt.LayerChart:
    """Explorer callback: RDT# and labeled-only Private-RDT against ε.

    At the sliders' stops every number is read from the shipped grid (:func:`rdt_sharp_curves`);
    elsewhere the protocol runs now.
    """
    if not 0 < percent < 90:
        raise InvalidParameterError(f"percent must be in (0, 90), got {percent!r}")
    epsilons = sorted({*EPSILON_GRID, float(epsilon)})
    frame = explorer_frame(dataset, epsilons, percent, n_secondary)
    reference = float(
        np.mean([1 - run_errors(dataset, float(percent), int(n_secondary), r, math.inf)[0]
                 for r in range(REPEATS)])
    )
    protocol = _run(dataset, float(percent), int(n_secondary), 0)  # its sizes: no fit
    known = _shipped_curves(dataset).get((float(percent), int(n_secondary), math.inf, 0))
    depth = known["height"] if known else protocol.depth  # the estimators load for a fit
    at = frame[frame["epsilon"] == float(epsilon)].groupby("method")["accuracy"].mean()
    read = all((float(percent), int(n_secondary), e, 0) in _shipped_curves(dataset)
               for e in [*epsilons, math.inf])
    title = alt.Title(
        f"{dataset}: {protocol.n_labeled} labeled (private) rows, {protocol.n_public} public "
        f"unlabeled rows, height {depth}, {N_PRIMARY} primary + {int(n_secondary)} "
        "secondary trees",
        subtitle=[
            f"test accuracy at ε = {epsilon:.3g} (mean of {REPEATS} runs): "
            f"RDT# {at[METHODS['rdt_sharp']]:.3f}, "
            f"Private-RDT on the labeled rows {at[METHODS['private_rdt']]:.3f}",
            "dashed: RDT# at ε = ∞ (exact counts of the labeled rows); "
            + ("read from the shipped grid made by make results (rdt_sharp.rdt_sharp_curves)"
               if read else "run now"),
        ],
    )
    return accuracy_chart(frame, x="epsilon", color="method", reference=reference,
                          highlight=float(epsilon), title=title)


def _stops(values: Sequence[float], value: float, name: str) -> list[tuple[str, float]]:
    """A slider's (label, value) stops; ``value`` must be one of them."""
    if value not in values:
        raise InvalidParameterError(f"{name} must be one of {list(values)}, got {value!r}")
    return [(f"{v:g}", v) for v in values]


def rdt_sharp_controls(
    dataset: str = "nursery", epsilon: float = 0.5, percent: int = 20, n_secondary: int = 20
) -> dict[str, Any]:
    """The explorer's widgets: sliders over the stops whose curves ship (a move reads).

    It opens where the paper's headline shows: Nursery at the paper's 20% labeled, ε = 0.5,
    where RDT# beats labeled-only Private-RDT in every one of 12 runs (accuracy 0.80 against
    0.62 on average; 0.795 against 0.644 in the explorer's 3).
    """
    return {
        "dataset": choice_dropdown(EXPLORER_DATASETS, dataset),
        "epsilon": selection_slider(_stops(EPSILON_GRID, epsilon, "epsilon"), epsilon, "ε"),
        "percent": selection_slider(_stops(PERCENTS, percent, "percent"), percent, "labeled %"),
        "n_secondary": selection_slider(_stops(SECONDARIES, n_secondary, "n_secondary"),
                                        n_secondary, "secondary"),
    }


# ---------------------------------------------------------------------------------- reproductions
#: What notebook 04's reproductions run: the paper's §V (full, shipped) and a quick version.
REPRODUCTION_SETTINGS = {
    "quick": {"runs": 3, "protocol_runs": 10, "epsilons": (0.5, 1.0), "n_secondary": 20,
              "labeled_sizes": (0.01, 0.02, 0.05), "unlabeled_sizes": (250, 1000, 8000)},
    "full": {"runs": 10, "protocol_runs": 10, "epsilons": (0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
             "n_secondary": 200, "labeled_sizes": (0.01, 0.02, 0.03, 0.05, 0.1),
             "unlabeled_sizes": (250, 1000, 3000, 8000)},
}


def reproduction_settings(quick: bool | None = None) -> dict:
    """What notebook 04's reproductions run: full (the paper's §V) or quick (None: run mode)."""
    return settings(REPRODUCTION_SETTINGS, quick)


def describe_settings(settings: dict | None = None) -> str:
    """One sentence saying what the reproductions ran (default: the run mode's settings)."""
    settings = reproduction_settings() if settings is None else settings
    eps = ", ".join(f"{e:g}" for e in settings["epsilons"])
    return (
        f"Labeled-fraction protocol: {settings['protocol_runs']} runs per fraction. Comparisons: "
        f"{settings['runs']} runs per setting (paper: 10), ε in {{{eps}}}, p = {N_PRIMARY} "
        f"primary and t = {settings['n_secondary']} secondary trees (paper: 200); Fig. 10 at "
        f"{', '.join(f'{100 * f:g}%' for f in settings['labeled_sizes'])} labeled; Fig. 11 "
        f"with {', '.join(str(n) for n in settings['unlabeled_sizes'])} public rows."
    )


#: The data sets of the paper's §V, in its order.
PAPER_DATASETS = catalogue.dataset_ids("mushroom", "nursery", "votes")


# Read from the shipped results; recomputed under DPVIZ_RECOMPUTE=1 (with DPVIZ_QUICK=1: fewer
# runs, ε and sizes: REPRODUCTION_SETTINGS).
def protocol_reproduction() -> dict[str, pd.DataFrame]:
    """§V's labeled-fraction protocol: Private-RDT's error per labeled fraction, per data set."""
    runs = reproduction_settings()["protocol_runs"]
    return {name: result(labeled_fraction_errors, name, n_runs=runs) for name in PAPER_DATASETS}


def labeled_fractions(protocol: dict[str, pd.DataFrame]) -> dict[str, float | None]:
    """The fraction the protocol picks per data set: the smallest with mean error ≤ 0.3."""
    return {name: smallest_fraction(errors) for name, errors in protocol.items()}


def error_reproduction(fractions: dict[str, float | None]) -> pd.DataFrame:
    """Fig. 6–8: RDT# and labeled-only Private-RDT against ε at each data set's fraction."""
    s = reproduction_settings()
    return pd.concat([
        result(rdt_sharp_runs, name, fractions=(fractions[name],), epsilons=s["epsilons"],
               n_runs=s["runs"], n_secondary=s["n_secondary"])
        for name in PAPER_DATASETS
    ])


def table2_reproduction(fractions: dict[str, float | None]) -> pd.DataFrame:
    """Table II: mean error and standard deviation per ε, ours beside the paper's."""
    s = reproduction_settings()
    return pd.concat([
        result(rdt_sharp_vs_epsilon, name, fractions[name], epsilons=s["epsilons"],
               n_runs=s["runs"], n_secondary=s["n_secondary"])
        for name in PAPER_DATASETS
    ])


def fig10_reproduction() -> pd.DataFrame:
    """Fig. 10: error against the number of labeled rows (Mushroom)."""
    s = reproduction_settings()
    return result(error_vs_labeled, "mushroom", s["labeled_sizes"], n_runs=s["runs"],
                  n_secondary=s["n_secondary"])


def fig11_reproduction(fractions: dict[str, float | None]) -> pd.DataFrame:
    """Fig. 11: RDT#'s error against the number of public unlabeled rows (Nursery)."""
    s = reproduction_settings()
    return result(error_vs_unlabeled, "nursery", fractions["nursery"], s["unlabeled_sizes"],
                  n_runs=s["runs"], n_secondary=s["n_secondary"])


def reproduce_all() -> None:
    """Every shipped reproduction of the notebook, the protocol's fractions found once."""
    fractions = labeled_fractions(protocol_reproduction())
    error_reproduction(fractions)
    table2_reproduction(fractions)
    fig10_reproduction()
    fig11_reproduction(fractions)


def lesson_tables() -> None:
    """The lessons' tables at the notebook's arguments (:func:`dpviz.explore.ships`)."""
    overpaying_table("mushroom", 2, epsilon=0.5, n_secondary=20, runs=5)
    height_leak_table("mushroom")
    pseudo_label_table("mushroom", 2, epsilons=(0.05, 0.2, 0.5, 2.0), n_secondary=20, runs=5)


#: The notebook's shipped reproductions and tables (``make results`` recomputes them).
SHIPPED = (reproduce_all, explorer_curves, lesson_tables)


def error_chart(frame: pd.DataFrame, *, width: int = 200) -> alt.FacetChart:
    """Test error against ε per method (mean, min–max band over runs), a panel per data set.

    ``frame``: :func:`~dpviz.experiments.semi_supervised.protocol_runs`'s rows.
    """
    summary = (
        frame.assign(method=frame["method"].map(METHODS).fillna(frame["method"]))
        .groupby(["dataset", "epsilon", "method"])["error"]
        .agg(mean="mean", low="min", high="max", runs="size")
        .reset_index()
    )
    color = alt.Color("method:N", title=None, legend=alt.Legend(orient="bottom"))
    x = alt.X("epsilon:Q", title="ε", scale=alt.Scale(zero=False))
    band = alt.Chart().mark_area(opacity=0.2).encode(
        x=x, y=alt.Y("low:Q", title="test error"), y2="high:Q", color=color
    )
    line = alt.Chart().mark_line(point=True).encode(
        x=x, y="mean:Q", color=color,
        tooltip=["dataset", "method", "epsilon", alt.Tooltip("mean:Q", format=".3f"), "runs"],
    )
    return (
        alt.layer(band, line, data=summary)
        .properties(width=width, height=180)
        .facet(column=alt.Column("dataset:N", title=None))
    )


# ---------------------------------------------------------------------------------- lessons
@ships  # the notebook's call reads its shipped result
def overpaying_table(
    dataset: str = "mushroom", percent: float = 2, epsilon: float = 0.5, n_secondary: int = 20,
    runs: int = 5,
) -> pd.DataFrame:
    """RDT# with the public rows paid for: ε split over p + t trees instead of p."""
    p = N_PRIMARY
    t = int(n_secondary)
    rows = []
    for name, total in (
        ("public rows free (RDT# Theorem 3)", epsilon),
        (f"public rows paid for: ε split over {p} + {t} trees", epsilon * p / (p + t)),
    ):
        errors = [run_errors(dataset, float(percent), t, r, float(total))[0] for r in range(runs)]
        rows.append({"budgeting": name, "epsilon_per_primary_tree": total / p,
                     "error": float(np.mean(errors)), "runs": runs})
    return pd.DataFrame(rows)


@ships  # the notebook's call reads its shipped result
def height_leak_table(
    dataset: str = "mushroom", sizes: Sequence[int] | None = None
) -> pd.DataFrame:
    """RDT#'s height rule on the private size: neighbouring sizes, different heights."""
    from dpviz.trees.rdt_sharp import RDTSharpClassifier

    data = _dataset(dataset)
    k, b = len(data.domain), mean_values(dataset)
    if sizes is None:
        steps = [
            n for n in range(2, 2000) if rdt_sharp_depth(k, b, n) != rdt_sharp_depth(k, b, n + 1)
        ]
        sizes = sorted({m for n in steps for m in (n, n + 1)})
    rows = []
    for n in sizes:
        model = RDTSharpClassifier(
            epsilon=1.0, n_secondary=0, domain=data.domain, random_state=0
        ).fit(data.X.iloc[:n], data.y.iloc[:n])
        rows.append(
            {"n_labeled": n, "paper_height": rdt_sharp_depth(k, b, n), "dpviz_height": model.depth_}
        )
    return pd.DataFrame(rows)


def private_centres(dataset: str = "votes", n_rows: int = 100, seed: int = 0) -> pd.DataFrame:
    """Centres drawn from *private* rows are published verbatim in the trees (RDT#: public).

    One row per centre of one tree: ``private_row`` and ``is_a_private_row`` (always True).
    """
    from dpviz.trees.rdt_sharp import create_tree

    data = _dataset(dataset)
    codes = data.domain.encode(data.X.iloc[:n_rows])
    tree = create_tree(data.domain, 3, codes, n_cells=10, rng=np.random.default_rng(seed))
    matches = (tree.centres[:, None, :] == codes[None, :, :]).all(axis=2)
    return pd.DataFrame({"centre": np.arange(len(tree.centres)),
                         "private_row": matches.argmax(axis=1),
                         "is_a_private_row": matches.any(axis=1)})


@ships  # the notebook's call reads its shipped result
def pseudo_label_table(
    dataset: str = "nursery", percent: float = 25,
    epsilons: Sequence[float] = (0.05, 0.2, 0.5, 2.0), n_secondary: int = 20, runs: int = 3,
) -> pd.DataFrame:
    """The primary ensemble's pseudo-labels per ε, and both methods' test errors."""
    data = _dataset(dataset)
    majority = data.y.value_counts().idxmax()
    majority_code = int(data.domain.encode_labels([majority])[0])
    rows = []
    for eps in epsilons:
        runs_ = [_run(dataset, float(percent), int(n_secondary), r) for r in range(runs)]
        truth = [p.labels[p.split.public] for p in runs_]
        pseudo = [p.rdt_sharp(float(eps)).pseudo_labels_ for p in runs_]
        errors = [run_errors(dataset, float(percent), int(n_secondary), r, float(eps))
                  for r in range(runs)]
        rows.append({
            "epsilon": eps,
            "pseudo_label_accuracy": float(
                np.mean([np.mean(p == t) for p, t in zip(pseudo, truth, strict=True)])),
            "pseudo_majority_share": float(np.mean([np.mean(p == majority_code) for p in pseudo])),
            "majority_share": float(np.mean([np.mean(t == majority_code) for t in truth])),
            "error_rdt_sharp": float(np.mean([e[0] for e in errors])),
            "error_private_rdt": float(np.mean([e[1] for e in errors])),
        })
    return pd.DataFrame(rows)


# ====================================================================== exercises 04.1–04.4
# One exercise in one place: the question (the notebook asks it in full), the check's cases and
# settings, its hint, and the worked answer the instructor's key returns
# (dpviz.ui.exercises.solution; never shown in the notebook). Registered at the end.

# --- 04.1 · Why is RDT# ε-DP whatever t is — and what would break it? One letter per step.
RDT_SHARP_ARGUMENT = Argument(
    claim="RDT# with p primary trees, each releasing its noisy centre counters at ε/p, and t "
          "secondary trees filled with the pseudo-labeled public rows is ε-DP (add/remove one "
          "private labeled row), whatever t is.",
    steps=(
        Step(
            question="One private labeled row is added. Before any noise, what changes in one "
                     "primary tree?",
            options={
                "a": "its test attributes and its centres, which are chosen after the data is seen",
                "b": "one class counter of one centre: the closest one in the row's leaf, by 1",
                "c": "nothing: a row is only counted once it has a pseudo-label",
            },
            correct="b",
            why_wrong={
                "a": "both are drawn from the attribute list and the public rows alone, before "
                     "any private row is read (Theorem 3's proof starts from the empty structure)",
                "c": "the primary trees count the private labeled rows themselves (AddLabeled); "
                     "pseudo-labels are for the public rows, which only the secondary trees count",
            },
        ),
        Step(
            question="Each primary tree adds noise at ε/p to every counter. What do the p primary "
                     "trees' releases cost together?",
            options={
                "a": "ε/p: the trees read the same rows, so they share one cost between them",
                "b": "ε/p, by parallel composition: a row falls in one cell per tree, never two",
                "c": "ε: the p releases of ε/p each read the same rows, so their costs add up",
            },
            correct="c",
            why_wrong={
                "a": "reading the same rows again is what makes costs add up; it never divides "
                     "them",
                "b": "parallel composition holds within one tree, whose cells are disjoint; "
                     "across trees every private row is counted once per tree",
            },
        ),
        Step(
            question="The pseudo-labels and the t secondary trees are computed from …",
            options={
                "a": "the primary trees' released noisy counters and the public rows, nothing "
                     "else: post-processing, free whatever t is",
                "b": "the private rows, through the pseudo-labels, so each secondary tree must be "
                     "paid for (ε/(p + t) per tree)",
                "c": "public rows only, but the pseudo-labels need fresh noise before the "
                     "secondary trees may use them",
            },
            correct="a",
            why_wrong={
                "b": "a pseudo-label is a function of the released counters and a public row; no "
                     "private row is read again. Paying for the secondary trees is safe but "
                     "wasteful (lesson 1)",
                "c": "noise protects private data when it is read; the pseudo-labels read only an "
                     "output that is already ε-DP, and post-processing keeps it so (notebook 01 "
                     "§0)",
            },
        ),
        Step(
            question="A variant draws each leaf's centres among the private rows that reach it. "
                     "Why can no amount of noise on the counters make it ε-DP?",
            options={
                "a": "it can: noise of scale p/ε covers the centres too, since a row has "
                     "sensitivity 1 and the centres are drawn at random",
                "b": "a centre copies a private row: one that only D′ holds has probability 0 "
                     "under D, a ratio no ε bounds",
                "c": "the counters of centres taken from private rows would need ε/(p + t) each",
            },
            correct="b",
            why_wrong={
                "a": "noise goes on the counters only; a centre is published as it is, a whole "
                     "row, and a sensitivity says nothing about a value that is copied out",
                "c": "the counters are fine at ε/p; what leaks is the centres themselves, not how "
                     "the counters are paid for",
            },
        ),
    ),
    conclusion="Theorem 3: only the p primary trees read private rows, ε/p each, ε in all "
               "whatever t — and the argument needs the structure and the centres to be public "
               "(built from the attribute list and the public rows).",
)



# --- 04.2 · The pseudo-label of one public row: pseudo_label(counts, epsilon, rng), the class
# (an int) the primary ensemble gives, from each tree's exact class counts in the row's region
# (one row of counts per primary tree), noised as AddNoise does and summed as Classify does.
def pseudo_label_law(totals: Sequence[int], rate: float, n_terms: int) -> np.ndarray:
    """P(argmax_t S_t = k), S_t = ``totals[t]`` + ``n_terms`` noises at ``rate``, ties lowest.

    ``P(L = k) = Σ_s P(S_k = s) Π_{j<k} P(S_j < s) Π_{j>k} P(S_j ≤ s)``.
    """
    from dpviz.audit.exact_laws import discrete_laplace_sum_law

    law = discrete_laplace_sum_law(int(n_terms), rate)
    support, pmf = law.support, law.pmf / law.pmf.sum()
    totals = np.asarray(totals, dtype=np.int64)
    grid = np.arange(support[0] + totals.min(), support[-1] + totals.max() + 1)
    laws = np.zeros((len(totals), len(grid)))
    for t, total in enumerate(totals):
        start = support[0] + total - grid[0]
        laws[t, start:start + len(pmf)] = pmf
    at_most = np.cumsum(laws, axis=1)
    below = at_most - laws
    probs = np.empty(len(totals))
    for k in range(len(totals)):
        factor = np.prod(below[:k], axis=0) * np.prod(at_most[k + 1:], axis=0)
        probs[k] = float(np.sum(laws[k] * factor))
    return probs / probs.sum()


def _pseudo_label_exact(counts: Sequence[Sequence[int]], epsilon: float) -> np.ndarray:
    """Exercise 04.2's law: p primary trees, each count noised at ε/p, summed, arg-max."""
    counts = np.asarray(counts, dtype=np.int64)
    p = counts.shape[0]
    return pseudo_label_law(counts.sum(axis=0), epsilon / p, p)


# --- answer: start (the worked answer: cut from the students' copy)
def _pseudo_label(counts: Sequence[Sequence[int]], epsilon: float,
                  rng: np.random.Generator) -> int:
    counts = np.asarray(counts)  # AddNoise at ε/p on every counter, Classify's arg-max
    noisy = mechanisms.discrete_laplace(counts, epsilon=epsilon / len(counts), rng=rng)
    return int(np.argmax(noisy.sum(axis=0)))
# --- answer: end


def _pseudo_label_case(rng: np.random.Generator) -> dict[str, object]:
    """A drawn case of 04.2: 1–3 primary trees, 2–3 classes, counts up to 1,000, ε 0.2–5."""
    trees, classes, base = int(rng.integers(1, 4)), int(rng.integers(2, 4)), rng.integers(1000)
    counts = tuple(tuple(int(base + c) for c in rng.integers(0, 8, size=classes))
                   for _ in range(trees))
    return {"counts": counts,
            "epsilon": float(f"{np.exp(rng.uniform(np.log(0.2), np.log(5.0))):.3g}")}


PSEUDO_LABEL = Implementation(
    cases=({"counts": ((3, 1), (2, 0), (4, 2), (0, 0), (1, 1)), "epsilon": 0.5},
           {"counts": ((3, 2, 1), (1, 3, 2)), "epsilon": 2.0},
           {"counts": ((1500, 1490), (1495, 1497)), "epsilon": 0.05}),
    exact=_pseudo_label_exact, sampler=True, output="int", draw_case=_pseudo_label_case,
    n_drawn=1, n_samples=12_000,
    allowed=("dpviz.mechanisms.discrete_laplace",),
    hint="every counter of every primary tree gets its own noise, at that tree's share of the "
         "budget; the pseudo-label compares the sums over the trees",
    solution=_pseudo_label,
)


# --- 04.3 · Audit the private-centres variant: centre_mechanism(data, n, rng), n draws of the
# leaf's centre picked uniformly among its private rows; neighbours on which the audit at
# ε = 1 finds a violation with a bound of at least 2.
def centre_law(rows: Sequence[int]) -> dict[int, float]:
    """Exercise 04.3's law: one of the leaf's private ``rows`` chosen uniformly as its centre."""
    seen = Counter(int(r) for r in rows)
    return {value: k / len(rows) for value, k in seen.items()}


# --- answer: start (the worked answer: cut from the students' copy)
def _centre_mechanism(data: Sequence[int], n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(np.asarray(data), size=n)
# --- answer: end


PRIVATE_CENTRE_AUDIT = AuditTask(
    cases=((4, 4, 7, 9), (1, 2, 2, 2, 3, 5)), exact=centre_law, epsilon=1.0, violation=True,
    min_bound=2.0, relation="rows",
    hint="the leaf's one centre is one of its private rows, each row equally likely (a value "
         "held by two rows is twice as likely)",
    solution=(_centre_mechanism, (0, 0, 1, 1), (0, 0, 1, 1, 2)),
)


# --- 04.4 · Predict, then move the slider: RDT#'s test accuracy (a fraction) on Nursery with
# 30% labeled rows, t = 20 and ε = 0.05 (the mean of the explorer's 3 runs).
#: The explorer setting of exercise 04.4 (keyword arguments of ``rdt_sharp_explorer_chart``).
PREDICTION_SETTING = {"dataset": "nursery", "epsilon": 0.05, "percent": 30, "n_secondary": 20}


def explorer_accuracy(seed: int) -> float:
    """RDT#'s test accuracy in run ``seed`` of the explorer at :data:`PREDICTION_SETTING`."""
    s = PREDICTION_SETTING
    return 1.0 - run_errors(s["dataset"], float(s["percent"]), s["n_secondary"], int(seed),
                            s["epsilon"])[0]


NURSERY_PREDICTION = Prediction(
    compute=explorer_accuracy, tolerance=0.05, seeds=(0, 1, 2), bounds=FRACTION,
    hint="at this ε every primary counter gets noise of scale p/ε = 100: what are the "
         "pseudo-labels worth then, and what accuracy does always answering one class get on "
         "this data set?",
)

register({"04.1": RDT_SHARP_ARGUMENT, "04.2": PSEUDO_LABEL, "04.3": PRIVATE_CENTRE_AUDIT,
          "04.4": NURSERY_PREDICTION})
