"""Notebook 04 (RDT#, Jagannathan, Monteleoni & Pillaipakkamnatt 2013): explorer and lessons.

* :func:`rdt_sharp_explorer_chart` — the explorer callback: accuracy of RDT#
  and of Private-RDT on the labeled rows alone against ε (band over runs,
  non-private reference), for a data set, a labeled percentage and a number of
  secondary trees.
* :func:`run_errors` — the explorer's evaluation, one run of the paper's protocol at one
  ε (:class:`dpviz.experiments.semi_supervised.ProtocolRun`, cached per run and per ε).
* :func:`overpaying_table`, :func:`height_leak_table`, :func:`private_centres`,
  :func:`pseudo_label_table` — the "what goes wrong" demonstrations.
* The exercises are in :mod:`dpviz.explore.rdt_sharp_exercises`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from dpviz.data.uci import Dataset
from dpviz.domain import Categorical
from dpviz.errors import InvalidParameterError
from dpviz.experiments.semi_supervised import (
    DATASETS,
    METHODS,
    N_PRIMARY,
    ProtocolRun,
    rdt_sharp_dataset,
)
from dpviz.trees.random_tree import rdt_sharp_depth
from dpviz.trees.rdt_sharp import RDTSharpClassifier, create_tree
from dpviz.ui.plots import accuracy_chart
from dpviz.ui.widgets import choice_dropdown, epsilon_slider, int_slider

__all__ = [
    "DEFAULT_PERCENT",
    "EPSILON_GRID",
    "EXPLORER_DATASETS",
    "MAX_PERCENT",
    "MAX_SECONDARY",
    "describe_settings",
    "error_chart",
    "explorer_frame",
    "height_leak_table",
    "mean_values",
    "overpaying_table",
    "private_centres",
    "pseudo_label_table",
    "rdt_sharp_controls",
    "rdt_sharp_explorer_chart",
    "reproduction_settings",
    "run_errors",
]

#: Data sets of the explorer (RDT# §V): three UCI sets and the Boolean-tree synthetic set.
EXPLORER_DATASETS = DATASETS
#: The explorer's labeled percentage per data set: where the protocol's mean error crosses 0.3
#: (labeled-only Private-RDT at ε = 0.5, 200 runs; notebook 04). Mushroom 2% (the paper's; 1% is
#: 0.31 ± 0.01, on the threshold), Nursery 30% (25%: 0.31 ± 0.004; paper: about 20%), Votes 30% (the
#: paper's; the curve is flat at 0.30-0.31 from 20% to 30%). Synthetic is not part of the protocol
#: (Private-RDT stays above 0.3 up to 50%): 10%.
DEFAULT_PERCENT = {"mushroom": 2, "nursery": 30, "votes": 30, "synthetic": 10}
#: ε values of the explorer's cached curve (the slider's ε is added to them).
EPSILON_GRID = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
#: Runs (splits and seeds) per point of the explorer's curve.
REPEATS = 3
#: Most secondary trees t of the explorer's slider (RDT# §V: 200). A move of the labeled-%
#: or secondary slider reruns the protocol's public work and both methods at 8 ε values ×
#: 3 runs, and each RDT# fit grows t trees on the public rows: with this bound and
#: :data:`MAX_PERCENT` every move stays under a second on a 2-core machine
#: (``bench/slider_extremes.py``; on Mushroom at 1% labeled, t = 100 took 1.2 s and t = 200
#: 2.1 s). The reproductions above run t = 200.
MAX_SECONDARY = 50
#: Largest labeled percentage of the explorer's slider (see :data:`MAX_SECONDARY`): the
#: protocol's crossing points are at 2-30 %.
MAX_PERCENT = 50
_SHOWN = ("rdt_sharp", "private_rdt")


@cache
def _dataset(name: str) -> Dataset:
    if name not in EXPLORER_DATASETS:
        raise InvalidParameterError(f"dataset must be one of {EXPLORER_DATASETS}, got {name!r}")
    return rdt_sharp_dataset(name)


def mean_values(name: str) -> float:
    """The b of RDT#'s height rule: the mean number of values per attribute (numeric: 2)."""
    domain = _dataset(name).domain
    return float(np.mean([a.n_values if isinstance(a, Categorical) else 2 for a in domain]))


@lru_cache(maxsize=12)  # up to ~10 MB each with t = 200
def _run(name: str, percent: float, n_secondary: int, run: int) -> ProtocolRun:
    """Run ``run`` of the protocol (the split of seed ``run``), its public work done once."""
    return ProtocolRun(_dataset(name), percent / 100, run, n_secondary=n_secondary)


@lru_cache(maxsize=8192)
def run_errors(
    dataset: str, percent: float, n_secondary: int, run: int, epsilon: float
) -> tuple[float, float]:
    """Test errors (RDT#, labeled-only Private-RDT) of one run at ``epsilon`` (cached).

    Run ``run`` of :func:`dpviz.experiments.semi_supervised.protocol_runs` with
    ``fractions=(percent / 100,)``, ``seed=0``: RDT# and Private-RDT (p = 5 trees, RDT#'s
    height) fitted on the split of seed ``run``, each with its own seed derived from ``run``
    (:meth:`~dpviz.experiments.semi_supervised.ProtocolRun.fit_seed_of`). The ε values of a
    run share each method's seed and noise: points of one curve, not releases to publish
    together.
    """
    protocol = _run(dataset, float(percent), int(n_secondary), int(run))
    return tuple(protocol.error(method, float(epsilon)) for method in _SHOWN)


def explorer_frame(
    dataset: str,
    epsilons: Sequence[float],
    percent: float,
    n_secondary: int,
    repeats: int = REPEATS,
) -> pd.DataFrame:
    """One row per (ε, method, run): ``error`` and ``accuracy`` = 1 − error."""
    rows = []
    for eps in epsilons:
        for run in range(repeats):
            errors = run_errors(dataset, float(percent), int(n_secondary), run, float(eps))
            for method, error in zip(_SHOWN, errors, strict=True):
                rows.append(
                    {"epsilon": float(eps), "method": METHODS[method], "repeat": run,
                     "error": error, "accuracy": 1.0 - error}
                )
    return pd.DataFrame(rows)


def rdt_sharp_explorer_chart(
    dataset: str = "mushroom",
    epsilon: float = 0.5,
    percent: int = 2,
    n_secondary: int = 20,
) -> alt.LayerChart:
    """The explorer: RDT# and labeled-only Private-RDT against ε, the slider's ε highlighted.

    Parameters
    ----------
    dataset : str
        One of :data:`EXPLORER_DATASETS`.
    epsilon : float
        The slider's ε, evaluated afresh and marked by a red rule.
    percent : int
        Labeled (private) rows, in % of the data set; 10% is held out for testing
        and the rest is public and unlabeled.
    n_secondary : int
        t, secondary trees (RDT#: 200; the explorer defaults to 20 for speed).

    Returns
    -------
    altair.LayerChart
        Mean test accuracy (1 − error) over :data:`REPEATS` runs with a band, per
        method; the dashed line is RDT# at ε = ∞ (exact counts of the labeled rows).
    """
    if not 0 < percent < 90:
        raise InvalidParameterError(f"percent must be in (0, 90), got {percent!r}")
    epsilons = sorted({*EPSILON_GRID, float(epsilon)})
    frame = explorer_frame(dataset, epsilons, percent, n_secondary)
    reference = float(
        np.mean([1 - run_errors(dataset, float(percent), int(n_secondary), r, math.inf)[0]
                 for r in range(REPEATS)])
    )
    protocol = _run(dataset, float(percent), int(n_secondary), 0)
    at = frame[frame["epsilon"] == float(epsilon)].groupby("method")["accuracy"].mean()
    title = alt.Title(
        f"{dataset}: {protocol.n_labeled} labeled (private) rows, {protocol.n_public} public "
        f"unlabeled rows, height {protocol.depth}, {N_PRIMARY} primary + {int(n_secondary)} "
        "secondary trees",
        subtitle=[
            f"test accuracy at ε = {epsilon:.3g} (mean of {REPEATS} runs): "
            f"RDT# {at[METHODS['rdt_sharp']]:.3f}, "
            f"Private-RDT on the labeled rows {at[METHODS['private_rdt']]:.3f}",
            "dashed: RDT# at ε = ∞ (exact counts of the labeled rows)",
        ],
    )
    return accuracy_chart(
        frame,
        x="epsilon",
        color="method",
        reference=reference,
        highlight=float(epsilon),
        title=title,
    )


def rdt_sharp_controls(
    dataset: str = "mushroom", epsilon: float = 0.5, percent: int = 2, n_secondary: int = 20
) -> dict[str, Any]:
    """The explorer's widgets, with the ranges every move of which stays under a second.

    Data set, ε (0.05–5, log), labeled % (1 to :data:`MAX_PERCENT`) and secondary trees
    (0 to :data:`MAX_SECONDARY`).

    Returns
    -------
    dict
        Keyword arguments of :func:`rdt_sharp_explorer_chart` as widgets, for
        :func:`dpviz.ui.widgets.explorer`.
    """
    return {
        "dataset": choice_dropdown(EXPLORER_DATASETS, dataset),
        "epsilon": epsilon_slider(epsilon, low=0.05, high=5.0),
        "percent": int_slider(percent, 1, MAX_PERCENT, "labeled %"),
        "n_secondary": int_slider(n_secondary, 0, MAX_SECONDARY, "secondary"),
    }


# ---------------------------------------------------------------------------------- reproductions
def reproduction_settings(quick: bool) -> dict:
    """What notebook 04's reproductions run: full (shipped) or quick (``DPVIZ_QUICK=1``).

    The paper: 10 runs per data set, ε from 0.5 to 1.0 in steps of 0.1, p = 5,
    t = 200 (§V). Full mode runs that; quick mode 3 runs, ε ∈ {0.5, 1.0} and
    t = 20 secondary trees. The labeled-fraction protocol (Private-RDT alone, a few
    seconds) runs the paper's 10 runs per fraction in both modes: with 3 runs its
    choice is mostly noise (Votes: anything from 1% to 40%, or no fraction at all).
    """
    if quick:
        return {
            "runs": 3,
            "protocol_runs": 10,
            "epsilons": (0.5, 1.0),
            "n_secondary": 20,
            "labeled_sizes": (0.01, 0.02, 0.05),
            "unlabeled_sizes": (250, 1000, 8000),
        }
    return {
        "runs": 10,
        "protocol_runs": 10,
        "epsilons": (0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        "n_secondary": 200,
        "labeled_sizes": (0.01, 0.02, 0.03, 0.05, 0.1),
        "unlabeled_sizes": (250, 1000, 3000, 8000),
    }


def describe_settings(settings: dict) -> str:
    """One sentence saying what the reproductions ran."""
    eps = ", ".join(f"{e:g}" for e in settings["epsilons"])
    return (
        f"Labeled-fraction protocol: {settings['protocol_runs']} runs per fraction. Comparisons: "
        f"{settings['runs']} runs per setting (paper: 10), ε in {{{eps}}}, p = {N_PRIMARY} "
        f"primary and t = {settings['n_secondary']} secondary trees (paper: 200); Fig. 10 at "
        f"{', '.join(f'{100 * f:g}%' for f in settings['labeled_sizes'])} labeled; Fig. 11 "
        f"with {', '.join(str(n) for n in settings['unlabeled_sizes'])} public rows."
    )


def error_chart(frame: pd.DataFrame, *, width: int = 200) -> alt.FacetChart:
    """Test error against ε per method (mean line, min–max band over runs), one panel per data set.

    Three panels a row, the legend below them: the chart fits JupyterLab's output area (about
    800 px in a 1000-px window).

    ``frame``: one row per run, with ``dataset``, ``epsilon``, ``method`` and ``error``
    (as :func:`dpviz.experiments.semi_supervised.protocol_runs` returns).
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
        x=x,
        y="mean:Q",
        color=color,
        tooltip=["dataset", "method", "epsilon", alt.Tooltip("mean:Q", format=".3f"), "runs"],
    )
    return (
        alt.layer(band, line, data=summary)
        .properties(width=width, height=180)
        .facet(column=alt.Column("dataset:N", title=None))
    )


# ---------------------------------------------------------------------------------- lessons
def overpaying_table(
    dataset: str = "mushroom",
    percent: float = 2,
    epsilon: float = 0.5,
    n_secondary: int = 20,
    runs: int = 5,
) -> pd.DataFrame:
    """RDT# when the public rows are treated as private: the budget split over all p + t trees.

    Building the secondary trees from public rows and pseudo-labels is
    post-processing and costs nothing (Theorem 3). Counting each of them as a
    private query anyway — ε/(p + t) per tree instead of ε/p — is safe but
    wasteful: the primary trees then get ε·p/(p + t) in all.

    Returns
    -------
    DataFrame
        ``budgeting``, ``epsilon_per_primary_tree``, ``error`` (mean over runs), ``runs``.
    """
    p = N_PRIMARY
    t = int(n_secondary)
    rows = []
    for name, total in (
        ("public rows free (RDT# Theorem 3)", epsilon),
        (f"public rows paid for: ε split over {p} + {t} trees", epsilon * p / (p + t)),
    ):
        errors = [run_errors(dataset, float(percent), t, r, float(total))[0] for r in range(runs)]
        rows.append(
            {
                "budgeting": name,
                "epsilon_per_primary_tree": total / p,
                "error": float(np.mean(errors)),
                "runs": runs,
            }
        )
    return pd.DataFrame(rows)


def height_leak_table(
    dataset: str = "mushroom", sizes: Sequence[int] | None = None
) -> pd.DataFrame:
    """RDT#'s height rule fed the private size: neighbouring sizes with different heights.

    For each labeled size n, the paper's height min(⌊k/2⌋, ⌊log_b n⌋ + 1)
    (:func:`~dpviz.trees.depth.rdt_sharp_depth`) if n were the private row count, next to
    the height :class:`~dpviz.trees.rdt_sharp.RDTSharpClassifier` really uses without a
    public ``n_labeled`` (⌊k/2⌋, whatever n is). Where n and n + 1 give different paper
    heights, adding one person would change the released trees' height: an observer
    would tell the neighbours apart with certainty (ε = ∞) — which is why dpviz never
    feeds the rule the private size.

    Returns
    -------
    DataFrame
        ``n_labeled``, ``paper_height`` (rule on the private n), ``dpviz_height`` (the
        fitted model's ``depth_``), for ``sizes`` (default: both sides of every change of
        the paper's height up to 2000 rows).
    """
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
            {"n_labeled": n, "paper_height": rdt_sharp_depth(k, b, n),
             "dpviz_height": model.depth_}
        )
    return pd.DataFrame(rows)


def private_centres(dataset: str = "votes", n_rows: int = 100, seed: int = 0) -> pd.DataFrame:
    """What goes wrong if the centres come from the *private* rows: the model publishes them.

    RDT#'s CreateTree picks public rows as centres, and the centres are part of
    the released trees. Calling :func:`~dpviz.trees.rdt_sharp.create_tree` on
    private rows instead copies some of them verbatim into the model.

    Returns
    -------
    DataFrame
        One row per centre of one tree: whether it is, attribute for attribute,
        one of the private rows (it always is).
    """
    data = _dataset(dataset)
    codes = data.domain.encode(data.X.iloc[:n_rows])
    tree = create_tree(data.domain, 3, codes, n_cells=10, rng=np.random.default_rng(seed))
    matches = (tree.centres[:, None, :] == codes[None, :, :]).all(axis=2)
    return pd.DataFrame(
        {
            "centre": np.arange(len(tree.centres)),
            "private_row": matches.argmax(axis=1),
            "is_a_private_row": matches.any(axis=1),
        }
    )


def pseudo_label_table(
    dataset: str = "nursery",
    percent: float = 25,
    epsilons: Sequence[float] = (0.05, 0.2, 0.5, 2.0),
    n_secondary: int = 20,
    runs: int = 3,
) -> pd.DataFrame:
    """How good the primary ensemble's pseudo-labels are, and what RDT# gains from them.

    For each ε (mean over runs): the accuracy of the pseudo-labels on the public
    rows (their true labels are known in this simulation, never used by RDT#),
    the share of pseudo-labels equal to the majority class, the accuracy of
    predicting the majority class, and the test errors of RDT# and of
    labeled-only Private-RDT.
    """
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
        rows.append(
            {
                "epsilon": eps,
                "pseudo_label_accuracy": float(
                    np.mean([np.mean(p == t) for p, t in zip(pseudo, truth, strict=True)])
                ),
                "pseudo_majority_share": float(np.mean([np.mean(p == majority_code)
                                                        for p in pseudo])),
                "majority_share": float(np.mean([np.mean(t == majority_code) for t in truth])),
                "error_rdt_sharp": float(np.mean([e[0] for e in errors])),
                "error_private_rdt": float(np.mean([e[1] for e in errors])),
            }
        )
    return pd.DataFrame(rows)
