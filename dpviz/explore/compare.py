"""Notebook 07 (compare all): every learner on the same data, charts and exercises.

The explorer reads a per-data-set grid computed once: the four papers' learners with the
non-private references (:func:`explorer_frame`), today's reference points beside them on
the same rows (:func:`today_frame`), and any learner added with
:func:`dpviz.experiments.registry.register` (:func:`registered_frame`: computed, not shipped).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
import numpy as np
import pandas as pd

from dpviz.data import catalogue
from dpviz.errors import InvalidParameterError
from dpviz.experiments import comparison, pareto, pitfalls, registry
from dpviz.experiments.comparison import reference_accuracy  # by name: tests patch it here
from dpviz.experiments.registry import ALGORITHMS, PRIVATE, not_applicable
from dpviz.experiments.runner import remember
from dpviz.experiments.shipped import recompute_requested, result
from dpviz.explore import quick, settings
from dpviz.ui.exercises import (
    EPSILON,
    POINTS,
    Argument,
    Exercise,
    Prediction,
    Range,
    Step,
    register,
)
from dpviz.ui.plots import accuracy_chart, colours, log_axis
from dpviz.ui.widgets import choice_dropdown, selection_slider
from dpviz.validation import check_epsilon, check_int

#: Data sets offered by the explorer's picker (each one's grid ships: see :func:`explorer_frame`).
EXPLORER_DATASETS = (*catalogue.ids("uci"), *catalogue.dataset_ids("synth-a"))


def grid() -> dict[str, Any]:
    """The explorer's grid: 10 ε × 5 n × 5 repeats (shipped); 4 × 3 × 2 to recompute quickly."""
    if quick() and recompute_requested():
        return {"epsilons": (0.05, 0.2, 1.0, 5.0), "sizes": (100, 1000, 10000), "repeats": 2}
    return {"epsilons": comparison.EPSILONS, "sizes": comparison.SIZES, "repeats": 5}


# ---------------------------------------------------------------------------------- shared marks
def shown() -> tuple[str, ...]:
    """Every private learner the explorer shows: the four papers', then today's (registered too)."""
    return (*PRIVATE, *registry.today())


def palette() -> alt.Scale:
    """One colour per private learner in every chart (:func:`colours`), grey for no winner.

    The papers' learners by name, then today's in order: a learner added with ``register``
    gets a colour of its own whatever their number.
    """
    names = [*sorted(PRIVATE), *registry.today()]
    return alt.Scale(domain=[*names, pareto.NO_WINNER], range=[*colours(len(names)), "#dddddd"])
#: Pixels kept between two reference labels (a 10 px font and some air).
_LABEL_GAP_PX = 14
#: Width and height of each panel of the explorer (pixels; the height is Vega-Lite's default).
_PANEL_WIDTH = _PANEL_HEIGHT = 300
# Channel objects rather than "field:type" strings: altair parses shorthands slowly,
# and the explorer redraws on every slider move.
_NAME_TIP = alt.Tooltip("algorithm", type="nominal")
_MEAN_TIP = alt.Tooltip("mean", type="quantitative", format=".3f", title="accuracy")
_REF_TIPS = [_NAME_TIP, alt.Tooltip("accuracy", type="quantitative", format=".3f")]
_DASHED = {"strokeDash": [6, 4], "color": "gray"}
_ACCURACY_Y = alt.Y("mean:Q", title="accuracy", scale=alt.Scale(zero=False))


def _log_x(field: str, values: Any, title: str) -> alt.X:
    """A quantitative log-scale x with :func:`log_axis`'s ticks over ``values``."""
    return alt.X(f"{field}:Q", scale=alt.Scale(type="log"), axis=log_axis(values), title=title)


def _dots(base: alt.Chart, x: alt.X, color: str, filled: str, tooltip: list[Any],
          size: int, **encodings: Any) -> alt.Chart:
    """Points at (``x``, mean accuracy) coloured by ``color``, filled where ``filled`` holds."""
    hue = alt.Color(f"{color}:N", **({"scale": palette()} if color == "algorithm" else {}))
    return base.mark_point(size=size).encode(
        x=x, y=_ACCURACY_Y, color=hue, fill=alt.condition(filled, hue, alt.value("white")),
        tooltip=tooltip, **encodings)


def _label_positions(refs: pd.DataFrame, plotted: Any, height: int) -> pd.DataFrame:
    """``refs`` with ``label_y``: accuracies pushed :data:`_LABEL_GAP_PX` apart, in data units."""
    out = refs.sort_values("accuracy", kind="stable").reset_index(drop=True)
    values = np.asarray([*np.asarray(plotted, dtype=float), *out["accuracy"]], dtype=float)
    values = values[np.isfinite(values)]
    span = float(values.max() - values.min()) if values.size else 0.0
    gap = 1.5 * _LABEL_GAP_PX * (span if span > 0 else 0.1) / height
    positions: list[float] = []
    for accuracy in out["accuracy"].astype(float):
        positions.append(accuracy if not positions else max(accuracy, positions[-1] + gap))
    return out.assign(label_y=positions)


def _reference_layers(refs: pd.DataFrame, plotted: Any, height: int, width: int) -> list[alt.Chart]:
    """The non-private references as dashed rules, their names apart in the right margin."""
    return [
        alt.Chart(refs).mark_rule(**_DASHED)
        .encode(y=alt.Y("accuracy", type="quantitative"), tooltip=_REF_TIPS),
        alt.Chart(_label_positions(refs, plotted, height))
        .mark_text(align="left", baseline="middle", dx=4, fontSize=10, color="gray")
        .encode(y=alt.Y("label_y", type="quantitative"), x=alt.value(width),
                text=alt.Text("algorithm", type="nominal")),
    ]


# ---------------------------------------------------------------------------------- Pareto
def pareto_chart(frame: pd.DataFrame, dataset: str, n: int, *, width: int = 420) -> alt.LayerChart:
    """FS Fig. 2 made real: every (algorithm, ε) point at one n and the frontier's steps."""
    points = pareto.pareto_frontier(frame)
    points = points[(points["dataset"] == dataset) & (points["n"] == n)]
    if points.empty:
        raise InvalidParameterError(f"no private points for dataset={dataset!r}, n={n}")
    steps = pareto.envelope(points, ["dataset", "n"])
    efficient = f"{int(points['efficient'].sum())} of {len(points)} (algorithm, ε) points"
    title = alt.Title(f"{dataset}, n = {n}: {efficient} are efficient", subtitle="filled: on the "
                      "Pareto frontier; black: best accuracy within a budget ε; dashed: "
                      "non-private references")
    x = _log_x("epsilon", points["epsilon"], "ε (lower = more private)")
    tips = ["algorithm:N", "epsilon:Q", alt.Tooltip("mean:Q", format=".3f"), "efficient:N",
            "runs:Q"]
    dots = _dots(alt.Chart(points, title=title, width=width, height=260), x, "algorithm",
                 "datum.efficient", tips, 60)
    step = alt.Chart(steps).mark_line(interpolate="step-after", color="black", strokeWidth=1.5)
    step = step.encode(x="epsilon:Q", y="best:Q",
                       tooltip=["epsilon:Q", "algorithm:N", alt.Tooltip("best:Q", format=".3f")])
    refs = reference_accuracy(frame, dataset, n)
    plotted = [*points["mean"], *steps["best"]]
    return alt.layer(step, dots, alt.layer(*_reference_layers(refs, plotted, 260, width)))


def _target_layers(frame: pd.DataFrame, dataset: str, target: float, xfield: str) -> list[Any]:
    """The accuracy target as a rule and, per n, the smallest ε that reaches it (diamonds)."""
    price = pareto.privacy_price(frame[frame["dataset"] == dataset], target).dropna()
    price = price.assign(epsilon_n=price["epsilon"] * price["n"])
    rule = alt.Chart(pd.DataFrame({"target": [target]}))
    return [
        rule.mark_rule(strokeDash=[2, 2], color="firebrick").encode(y="target:Q"),
        alt.Chart(price).mark_point(shape="diamond", size=120, color="firebrick", filled=True)
        .encode(x=f"{xfield}:Q", y="accuracy:Q", tooltip=[
            "n:O", "epsilon:Q", "algorithm:N", alt.Tooltip("accuracy:Q", format=".3f")]),
    ]


def tradeoff_chart(frame: pd.DataFrame, dataset: str, *, algorithm: str | None = None,
                   target: float | None = None, per_row: bool = False,
                   width: int = 420) -> alt.LayerChart:
    """Accuracy against ε (or ε·n) for every n, of ``algorithm`` or the best one."""
    rows = frame[(frame["dataset"] == dataset) & frame["private"]]
    if rows.empty:
        raise InvalidParameterError(f"no private rows for dataset {dataset!r}")
    if algorithm is None:
        curves = pareto.envelope(comparison.summary(rows), ["dataset", "n"])
        curves = curves.rename(columns={"best": "mean"})
        what = "best private algorithm within each budget"
    elif algorithm not in ALGORITHMS:
        raise InvalidParameterError(f"unknown algorithm {algorithm!r}")
    else:
        curves, what = comparison.summary(rows[rows["algorithm"] == algorithm]), algorithm
    curves = curves.assign(epsilon_n=curves["epsilon"] * curves["n"])
    xfield, xtitle = ("epsilon_n", "ε · n") if per_row else ("epsilon", "ε (lower = more private)")
    title = alt.Title(f"{dataset}: accuracy against {'ε · n' if per_row else 'ε'} for several n"
                      + ("" if per_row else " — more data buys privacy"),
                      subtitle=f"{what}; mean over repeats")
    lines = alt.Chart(curves, title=title, width=width, height=260).mark_line(point=True).encode(
        x=_log_x(xfield, curves[xfield], xtitle), y=_ACCURACY_Y,
        color=alt.Color("n:O", scale=alt.Scale(scheme="blues"), title="training rows n"),
        tooltip=["n:O", "epsilon:Q", alt.Tooltip("mean:Q", format=".3f"), "algorithm:N"],
    )
    targets = [] if target is None else _target_layers(frame, dataset, target, xfield)
    return alt.layer(lines, *targets)


# ---------------------------------------------------------------------------------- explorer
@remember()
def _explorer_frame(dataset: str, epsilons: tuple, sizes: tuple, repeats: int) -> pd.DataFrame:
    return result(comparison.compare, (dataset,), algorithms=PRIVATE, epsilons=epsilons,
                  sizes=sizes, repeats=repeats, missing="compute")


@remember()
def _today_frame(dataset: str, epsilons: tuple, sizes: tuple, repeats: int) -> pd.DataFrame:
    return result(comparison.compare_today, dataset, epsilons=epsilons, sizes=sizes,
                  repeats=repeats, missing="compute")


@remember()
def _registered_frame(dataset: str, epsilons: tuple, sizes: tuple, repeats: int,
                      names: tuple) -> pd.DataFrame:
    """The learners ``register`` added (``names``), on the same grid, rows and seeds: run.

    :func:`comparison.compare`'s on-disk cache keeps them, keyed on the factory's code.
    """
    frames = []
    for name in names:
        reference = name in registry.REFERENCES
        frames.append(comparison.compare(
            (dataset,), () if reference else (name,), epsilons, sizes, repeats,
            references=(name,) if reference else False, progress=True))
    return pd.concat(frames, ignore_index=True) if frames else _today_frame(
        dataset, epsilons, sizes, repeats).iloc[:0]


def _registered(dataset: str) -> tuple[str, ...]:
    """The registered learners that run on ``dataset`` (kinds today and references).

    Without any, the rows are not loaded (the explorer reads shipped grids).
    """
    if not registry.registered():
        return ()
    data = comparison.load_dataset(dataset)
    return tuple(name for name in registry.registered()
                 if (name in registry.TODAY or name in registry.REFERENCES)
                 and not_applicable(name, data) is None)


@remember()
def _shown_frame(dataset: str, epsilons: tuple, sizes: tuple, repeats: int,
                 names: tuple = ()) -> pd.DataFrame:
    """The papers' grid, today's and the registered learners' (``names``), one frame."""
    key = (dataset, epsilons, sizes, repeats)
    return pd.concat([_explorer_frame(*key), _today_frame(*key),
                      _registered_frame(*key, names)], ignore_index=True)


@remember()
def _explorer_summary(dataset: str, epsilons: tuple, sizes: tuple, repeats: int,
                      names: tuple = ()) -> pd.DataFrame:
    return comparison.summary(_shown_frame(dataset, epsilons, sizes, repeats, names))


def _grid_key(dataset: str) -> tuple[str, tuple, tuple, int]:
    """(data set, ε, n, repeats) of :func:`grid`, the data set's name validated."""
    g, key = grid(), str(dataset).strip().lower()
    if key not in comparison.DATASETS:  # the grid is read, not the rows: no need to load them
        comparison.load_dataset(dataset)  # raises: not a data set's name
    return key, tuple(g["epsilons"]), tuple(g["sizes"]), int(g["repeats"])


def explorer_frame(dataset: str = "nursery") -> pd.DataFrame:
    """The papers' learners and the references on :func:`grid` (``compare``): shipped or run."""
    return _explorer_frame(*_grid_key(dataset))


def today_frame(dataset: str = "nursery") -> pd.DataFrame:
    """Today's reference points on the same grid and rows (``compare_today``): shipped or run."""
    return _today_frame(*_grid_key(dataset))


def registered_frame(dataset: str = "nursery") -> pd.DataFrame:
    """The learners added with ``register`` on the same grid and rows: run (and cached)."""
    key = _grid_key(dataset)
    return _registered_frame(*key, _registered(key[0]))


# ---------------------------------------------------------------------------------- reproductions
# Read from the shipped results; recomputed under DPVIZ_RECOMPUTE=1 (with DPVIZ_QUICK=1: fewer
# runs).
#: What notebook 07's reproductions run: full (shipped) and a quick version.
REPRODUCTION_SETTINGS = {
    "quick": {"budget_runs": 10, "rdt_sharp_runs": 5, "rdt_sharp_secondary": 50},
    "full": {"budget_runs": 20, "rdt_sharp_runs": 10, "rdt_sharp_secondary": 200},
}


def reproduction_settings(quick_run: bool | None = None) -> dict:
    """What notebook 07's reproductions run: full (shipped) or quick (None: the run mode's)."""
    return settings(REPRODUCTION_SETTINGS, quick_run)


def budget_pitfall() -> pd.DataFrame:
    """§6's budget pitfall on Nursery at ε = 0.5: the update, the union at ε and at ε/2."""
    runs = reproduction_settings()["budget_runs"]
    return result(pitfalls.budget_pitfall, "nursery", epsilon=0.5, repeats=runs)


def rdt_sharp_comparison() -> pd.DataFrame:
    """RDT# with 2,000 public unlabeled rows against Private-RDT, on Nursery (appendix)."""
    s = reproduction_settings()
    return result(comparison.rdt_sharp_comparison, "nursery", n_labeled=1000, n_public=2000,
                  epsilons=(0.2, 1.0), repeats=s["rdt_sharp_runs"],
                  n_secondary=s["rdt_sharp_secondary"])


#: §6's tuning pitfall: 15 DiffPID3 configurations at ε = 1 on 1,000 Nursery rows, chosen on 200
#: of the test rows (200 splits); the appendix repeats it over 40 draws.
TUNING = {"epsilon": 1.0, "n": 1000, "n_tuning": 200, "splits": 200}


def tuning_configurations(
    dataset: str = "nursery", *, epsilon: float = 1.0, n: int = 1000, n_tuning: int = 200,
    splits: int = 200,
) -> pd.DataFrame:
    """:func:`pitfalls.tuning_pitfall`'s ``attrs`` as a frame (what ships beside its splits).

    One row per configuration, in its order: its name and its accuracy on all the test rows,
    with the ε of each fit and the ε the fits' ledgers spent in all.
    """
    attrs = pitfalls.tuning_pitfall(dataset, epsilon=epsilon, n=n, n_tuning=n_tuning,
                                    splits=splits).attrs
    return pd.DataFrame({"configuration": list(attrs["test_accuracy"]),
                         "test_accuracy": list(attrs["test_accuracy"].values()),
                         "epsilon": attrs["epsilon"], "spent": attrs["spent"]})


def tuning_pitfall(dataset: str = "nursery", **params: Any) -> pd.DataFrame:
    """:func:`pitfalls.tuning_pitfall` (:data:`TUNING` by default) as shipped.

    Its splits, and its ``attrs`` (``configs``, ``epsilon``, ``budgets``, ``spent``,
    ``test_accuracy``) rebuilt from its shipped configurations (:func:`tuning_configurations`).
    Under ``DPVIZ_RECOMPUTE=1`` both are run again.
    """
    params = {**TUNING, **params}
    frame = result(pitfalls.tuning_pitfall, dataset, **params)
    configs = result(tuning_configurations, dataset, **params)
    epsilon = float(configs["epsilon"].iloc[0])
    frame.attrs.update(
        configs=len(configs), epsilon=epsilon, budgets=len(configs) * epsilon,
        spent=float(configs["spent"].iloc[0]),
        test_accuracy={str(name): float(accuracy) for name, accuracy in
                       zip(configs["configuration"], configs["test_accuracy"], strict=True)})
    return frame


def tuning_optimism(dataset: str = "nursery", *, draws: int = 40, **params: Any) -> pd.DataFrame:
    """:func:`pitfalls.tuning_optimism` (:data:`TUNING` by default, 40 draws) as shipped."""
    return result(pitfalls.tuning_optimism, dataset, draws=draws, **{**TUNING, **params})


def tuning_pitfalls() -> None:
    """§6's tuning pitfall and the appendix's 40 draws of it (what ships)."""
    tuning_pitfall()
    tuning_optimism()


def explorer_frames() -> None:
    """The explorer's grid of every data set it offers (the papers' learners)."""
    for dataset in EXPLORER_DATASETS:
        explorer_frame(dataset)


def today_frames() -> None:
    """Today's reference points on the explorer's grid of every data set it offers."""
    for dataset in EXPLORER_DATASETS:
        today_frame(dataset)


#: The notebook's shipped reproductions (``make results`` recomputes them).
SHIPPED = (explorer_frames, today_frames, budget_pitfall, rdt_sharp_comparison, tuning_pitfalls)


def _selection(algorithms: Sequence[str] | None) -> list[str]:
    every = shown()
    chosen = [algorithms] if isinstance(algorithms, str) else list(
        every if algorithms is None else algorithms)
    for name in (a for a in chosen if a not in every):
        raise InvalidParameterError(f"unknown algorithm {name!r}; known: {list(every)}")
    return [a for a in every if a in chosen]


def _sitting_out(data: Any, chosen: Sequence[str]) -> list[str]:
    """["not run here: SuLQ-ID3 handles nominal attributes only"]: what ``data`` rules out."""
    out = [f"{a} {why}" for a in chosen if (why := not_applicable(a, data))]
    return [f"not run here: {', '.join(out)}"] if out else []


def _explorer_left(at_eps: pd.DataFrame, at_inf: pd.DataFrame, refs: pd.DataFrame,
                   order: list[str], eps: float, size: int, n: int) -> alt.LayerChart:
    """Left panel: bands and means at ε, the ε = ∞ diamonds, references; the best in the title."""
    best = at_eps.loc[at_eps["mean"].idxmax()] if len(at_eps) else None
    best_text = ("no private algorithm selected" if best is None
                 else f"best private: {best['algorithm']} {best['mean']:.1%}")
    title = alt.Title(f"ε = {eps:g}, n = {size}{'' if size == n else f' (nearest to n = {n})'}: "
                      f"{best_text}", subtitle="bar: 95 % interval of the mean over the runs; ◇ "
                      "the same algorithm at ε = ∞; dashed: non-private references")
    y = alt.Y("algorithm", type="nominal", sort=order, title=None)
    color = alt.Color("algorithm", type="nominal", title="algorithm", scale=palette())
    settings = [f"ε = {eps:g}", "ε = ∞"]
    points = pd.concat([at_eps.assign(setting=settings[0]), at_inf.assign(setting=settings[1])],
                       ignore_index=True)
    layers: list[Any] = [
        alt.Chart(at_eps).mark_rule(strokeWidth=3, opacity=0.5).encode(
            x=alt.X("low", type="quantitative", title="accuracy", scale=alt.Scale(domain=[0, 1])),
            x2=alt.X2("high"), y=y, color=color),
        # the point at the slider's ε (filled) and the same learner without noise (hollow diamond)
        alt.Chart(points).mark_point(size=80).encode(
            x=alt.X("mean", type="quantitative"), y=y, color=color,
            shape=alt.Shape("setting", type="nominal", title=None,
                            scale=alt.Scale(domain=settings, range=["circle", "diamond"])),
            fillOpacity=alt.FillOpacity(  # ordinal: Vega-Lite warns on a nominal opacity
                "setting", type="ordinal", sort=settings,
                scale=alt.Scale(domain=settings, range=[1, 0]), legend=None),
            tooltip=[_NAME_TIP, alt.Tooltip("setting", type="nominal"), _MEAN_TIP]),
    ]
    if len(refs):
        layers.append(alt.Chart(refs).mark_rule(**_DASHED)
                      .encode(x=alt.X("accuracy", type="quantitative"), tooltip=_REF_TIPS))
    return alt.LayerChart(layer=layers, width=_PANEL_WIDTH, height=24 * max(len(order), 3),
                          title=title)


def compare_explorer_chart(dataset: str = "nursery", epsilon: float = 1.0, n: int = 1000,
                           algorithms: Sequence[str] | None = None) -> alt.VConcatChart:
    """Explorer callback: every algorithm at (data set, ε, n); below, against ε (ε in red)."""
    check_epsilon(epsilon)
    chosen = _selection(algorithms)
    args = (*_grid_key(dataset), _registered(dataset))
    frame, stats = _shown_frame(*args), _explorer_summary(*args)
    eps = comparison.nearest(epsilon, args[1])
    size = int(comparison.nearest(check_int(n, "n", minimum=1), sorted(stats["n"].unique())))
    here = stats[(stats["n"] == size) & stats["algorithm"].isin(chosen)]
    at_eps = here[np.isclose(here["epsilon"], eps)]
    refs = reference_accuracy(frame, args[0], size)
    order = [a for a in chosen if a in set(at_eps["algorithm"])]
    left = _explorer_left(at_eps, here[~np.isfinite(here["epsilon"])], refs, order, eps, size, n)
    curve_rows = frame[(frame["n"] == size) & frame["algorithm"].isin(chosen) & frame["private"]]
    if curve_rows.empty:  # nothing selected: an empty axis with the references
        curve_rows = pd.DataFrame({"epsilon": [eps], "accuracy": [math.nan], "algorithm": ["—"]})
    curves = accuracy_chart(curve_rows, x="epsilon", color="algorithm", highlight=eps,
                            title=f"against ε at n = {size}", width=_PANEL_WIDTH,
                            color_scale=palette())
    refs_right = _reference_layers(refs, curve_rows["accuracy"], _PANEL_HEIGHT, _PANEL_WIDTH)
    right = alt.LayerChart(layer=[*curves.layer, *refs_right])  # flat: nested layers copy slowly
    data = comparison.load_dataset(args[0])
    return alt.VConcatChart(  # one above the other: side by side they overflow 1000 px
        vconcat=[left, right],
        title=alt.Title(f"{data.name}: every algorithm at the same (ε, n)",
                        subtitle=[f"hold-out accuracy over {int(stats['runs'].max())} random "
                                  f"splits ({comparison.n_test_rows(data)} test rows each); "
                                  "DP-EBM is (ε, δ)-DP, the others ε-DP",
                                  *_sitting_out(data, chosen)]),
    )


def compare_controls(dataset: str = "nursery", epsilon: float = 1.0, n: int = 1000) -> dict:
    """The explorer's widgets: data set, ε and n on :func:`grid`'s log-spaced values, algorithms."""
    g = grid()
    return {"dataset": choice_dropdown(list(EXPLORER_DATASETS), dataset),
            "epsilon": selection_slider([(f"{e:g}", float(e)) for e in g["epsilons"]],
                                        comparison.nearest(epsilon, g["epsilons"]), "ε (log)"),
            "n": selection_slider([(str(s), int(s)) for s in g["sizes"]],
                                  int(comparison.nearest(n, g["sizes"])), "n (log)"),
            "algorithms": widgets.SelectMultiple(  # 4 rows: the list scrolls
                options=list(shown()), value=list(shown()), rows=4, description="show")}


# ---------------------------------------------------------------------------------- which when
def winner_chart(frame: pd.DataFrame, dataset: str, *, width: int = 460) -> alt.LayerChart:
    """"Which algorithm when": the best private algorithm in every (ε, n) cell."""
    table = pareto.winners(frame[frame["dataset"] == dataset])
    if table.empty:
        raise InvalidParameterError(f"no private rows for dataset {dataset!r}")
    table = table.assign(label=(100 * table["accuracy"]).round().astype(int).astype(str),
                         clear=~(table["margin"] < 0.02))
    base = alt.Chart(table, width=width, height=40 * table["n"].nunique())
    xy = {"x": alt.X("epsilon:O", title="ε", sort="ascending"),
          "y": alt.Y("n:O", title="training rows n", sort="descending")}
    cells = base.mark_rect().encode(
        **xy, color=alt.Color("winner:N", scale=palette(), title="best private"),
        opacity=alt.condition("datum.clear", alt.value(1.0), alt.value(0.45)),
        tooltip=["n:O", alt.Tooltip("epsilon:O", title="ε"),
                 alt.Tooltip("algorithm:N", title="best"), alt.Tooltip("accuracy:Q", format=".3f"),
                 "tied:N", alt.Tooltip("runner_up:N", title="runner-up"),
                 alt.Tooltip("margin:Q", format=".3f"),
                 alt.Tooltip("majority:Q", title="majority class", format=".3f")])
    text = base.mark_text(fontSize=10).encode(**xy, text="label:N")
    return alt.layer(cells, text).properties(title=alt.Title(
        f"{dataset}: which algorithm when",
        subtitle=f"colour: best mean accuracy (%, in the cell); grey: nothing beats the "
        f"majority class by {pareto.FLOOR_MARGIN:.0%}; pale: runner-up within 2 points"))


# ---------------------------------------------------------------------------------- today
#: The line of :func:`today_chart` for the best of the four papers' learners at each ε, chosen
#: without the test rows it is scored on (:func:`pareto.best_of_runs`).
BEST_OF_PAPERS = "best of the four papers"


def today_order() -> tuple[str, ...]:
    """The lines of :func:`today_chart`, in order: today's learners, the papers' best, the floor."""
    return (*registry.today(), BEST_OF_PAPERS, pareto.MAJORITY)


def _chosen(picks: pd.Series) -> str:
    """The learner the runs chose most often: "DiffPID3-Max" or "DiffPID3-Max (3 of 5 runs)"."""
    counts = picks.dropna().value_counts(sort=True)
    if counts.empty:
        return ""
    top, times = counts.index[0], int(counts.iloc[0])
    return top if times == len(picks) else f"{top} ({times} of {len(picks)} runs)"


def _today_rows(dataset: str, n: int) -> pd.DataFrame:
    """One data set at the size nearest ``n``: today's learners, the papers' best, the floor.

    Each with its mean over the runs and its 95 % interval (``low``, ``high``); the papers'
    best is chosen per run on the other runs (``best``: the learner chosen most often).
    """
    seeds = explorer_frame(dataset)
    size = int(comparison.nearest(n, sorted(seeds["n"].unique())))
    seeds = seeds[seeds["n"] == size]
    today = pd.concat([today_frame(dataset), registered_frame(dataset)], ignore_index=True)
    today = today[(today["n"] == size) & today["private"]]
    best = pareto.best_of_runs(seeds, PRIVATE, BEST_OF_PAPERS)
    picks = best.groupby("epsilon")["chosen"].agg(_chosen).rename("best")
    majority = seeds[seeds["algorithm"] == pareto.MAJORITY]
    epsilons = sorted(best["epsilon"].unique())
    floor = pd.concat([majority.assign(epsilon=e, private=True) for e in epsilons],
                      ignore_index=True)
    stats = comparison.summary(pd.concat([today, best.drop(columns="chosen"), floor],
                                         ignore_index=True))
    stats = stats.rename(columns={"algorithm": "learner"})
    stats["best"] = np.where(stats["learner"] == BEST_OF_PAPERS,
                             stats["epsilon"].map(picks).fillna(""), "")
    order = {name: k for k, name in enumerate(today_order())}
    stats = stats.sort_values(["learner", "epsilon"], key=lambda c: c.map(order) if
                              c.name == "learner" else c, kind="stable", ignore_index=True)
    return stats.assign(dataset=dataset, n=size)[
        ["dataset", "n", "epsilon", "learner", "mean", "low", "high", "runs", "best"]]


def today_summary(n: int = 1000) -> pd.DataFrame:
    """Mean accuracy and its 95 % interval per data set and ε, at the size nearest ``n``.

    Today's learners, beside them the best of the papers' learners at that ε (chosen on the
    other runs; ``best`` names it) and the majority class (the floor), on every data set of
    the explorer.
    """
    check_int(n, "n", minimum=1)
    return _today_summary(n, _learners()).copy()


def _learners() -> tuple:
    """What a summary is keyed on: the data sets' grids and today's learners.

    (Registering a learner empties the in-process cache: a replaced factory is run again.)
    """
    return tuple(_grid_key(d) for d in EXPLORER_DATASETS), registry.today()


@remember(maxsize=4)
def _today_summary(n: int, learners: tuple) -> pd.DataFrame:
    """:func:`today_summary` for ``learners`` (07's table and chart read one summary)."""
    return pd.concat([_today_rows(d, n) for d in EXPLORER_DATASETS], ignore_index=True)


def today_table(n: int = 1000) -> pd.DataFrame:
    """:func:`today_summary` as a table: a row per (data set, learner), a column per ε.

    Each cell "mean [low, high]" (the 95 % interval of the mean, in %).
    """
    rows = today_summary(n)
    cells = rows.assign(cell=[f"{100 * m:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
                              for m, lo, hi in zip(rows["mean"], rows["low"], rows["high"],
                                                   strict=True)])
    table = cells.pivot(index=["dataset", "learner"], columns="epsilon", values="cell")
    return table.loc[[(d, name) for d in EXPLORER_DATASETS for name in today_order()
                      if (d, name) in table.index]]


def today_chart(n: int = 1000, *, width: int = 190) -> alt.FacetChart:
    """Today's reference points against the best of the papers' learners, one panel a data set.

    Each line with its 95 % interval as a band.
    """
    rows = today_summary(n)
    rows = rows.assign(panel=rows["dataset"] + ", n = " + rows["n"].astype(str))
    order = list(today_order())
    learners = registry.today()
    scale = alt.Scale(domain=order, range=[*palette().to_dict()["range"][len(PRIVATE):][
        :len(learners)], "black", "gray"])
    color = alt.Color("learner:N", sort=order, title=None, legend=alt.Legend(orient="bottom"),
                      scale=scale)
    base = alt.Chart(width=width, height=170)
    x = _log_x("epsilon", rows["epsilon"], "ε")
    band = base.mark_area(opacity=0.15).encode(x=x, y=alt.Y("low:Q", title="accuracy"),
                                               y2="high:Q", color=color)
    lines = base.mark_line(point=True).encode(
        x=x, y=_ACCURACY_Y, color=color,
        strokeDash=alt.condition(f"datum.learner == '{pareto.MAJORITY}'", alt.value([4, 3]),
                                 alt.value([1, 0])),
        tooltip=["learner:N", "epsilon:Q", alt.Tooltip("mean:Q", format=".3f"),
                 alt.Tooltip("low:Q", format=".3f", title="95 % low"),
                 alt.Tooltip("high:Q", format=".3f", title="95 % high"),
                 alt.Tooltip("best:N", title="best paper learner")])
    return alt.layer(band, lines, data=rows).facet(
        facet=alt.Facet("panel:N", title=None, sort=list(dict.fromkeys(rows["panel"]))),
        columns=3).properties(title=alt.Title(
            "Today's reference points beside the four papers",
            subtitle=["mean accuracy over the runs (random splits), band: its 95 % interval; "
                      "DP-EBM is (ε, δ = 1e-6)-DP, two classes only",
                      "the papers' line: in each run, the learner of the 7 best on the other "
                      "runs (never chosen on the rows it is scored on)"]))


# ---------------------------------------------------------------------------------- pitfalls
def budget_pitfall_chart(table: pd.DataFrame, *, width: int = 380) -> alt.LayerChart:
    """The update experiment's arms at their claimed ε (hollow) and their true total (filled)."""
    long = pd.concat([table.assign(epsilon=table["claimed_epsilon"], plotted="as claimed"),
                      table.assign(epsilon=table["total_epsilon"], plotted="true total")],
                     ignore_index=True)
    base = alt.Chart(long, width=width, height=220)
    x = _log_x("epsilon", long["epsilon"], "total ε")
    arrows = base.mark_line(strokeDash=[3, 3], color="gray").encode(
        x=x, y=_ACCURACY_Y, detail="method:N")
    dots = _dots(base, x, "method", "datum.plotted == 'true total'",
                 ["method:N", "plotted:N", "epsilon:Q", alt.Tooltip("mean:Q", format=".3f")], 90,
                 shape=alt.Shape("plotted:N", title=None))
    return alt.layer(arrows, dots).properties(title=alt.Title(
        "Compare at the same total budget",
        subtitle="the 'union' arm plotted at ε really spent 2ε on the rows of D1"))


# ====================================================================== exercises 07.1–07.5
# One exercise in one place: the question (the notebook asks it in full), the check's settings,
# its hint, and the worked answer the instructor's key returns (dpviz.ui.exercises.solution;
# never shown in the notebook). Registered at the end.

# --- 07.1 · How many of these nine (algorithm, ε) points are on the Pareto frontier?
#: Exercise 07.1's points (one data set, one n): how many are Pareto efficient?
EXERCISE_POINTS = pd.DataFrame(
    [(name, eps, acc) for name, row in {"A": (0.52, 0.80, 0.85), "B": (0.60, 0.71, 0.90),
                                        "C": (0.55, 0.80, 0.83)}.items()
     for eps, acc in zip((0.1, 1.0, 10.0), row, strict=True)],
    columns=["algorithm", "epsilon", "accuracy"])

PARETO_COUNT = Exercise(
    answer=float((~pareto.dominated_by(*EXERCISE_POINTS[["epsilon", "accuracy"]].T.values)).sum()),
    tolerance=0.0, bounds=Range(0.0, 9.0, "a number of the nine points"),
    hint="reread the definition of a dominated point at the top of this notebook, word for "
         "word, and test each of the nine points against the eight others",
)


# --- 07.2 · Predict, then move the slider: by how many accuracy points does DiffPID3-Max beat
# the DP forest on Nursery at n = 300 and ε = 2 (the explorer's 5 runs)?
def accuracy_gap(dataset: str, better: str, worse: str, *, epsilon: float, n: int,
                 repeat: int) -> float:
    """Points by which ``better`` beats ``worse`` in run ``repeat`` of the shipped explorer grid."""
    frame = explorer_frame(dataset)
    run = frame[(frame["epsilon"] == epsilon) & (frame["n"] == n) & (frame["repeat"] == repeat)]
    accuracy = run.set_index("algorithm")["accuracy"]
    if better not in accuracy or worse not in accuracy:
        raise InvalidParameterError(f"no run of {better!r} and {worse!r} at ε={epsilon}, n={n}")
    return 100 * float(accuracy[better] - accuracy[worse])


def _nursery_gap(run: int) -> float:
    return accuracy_gap("nursery", "DiffPID3-Max", "DP forest", epsilon=2.0, n=300, repeat=run)


# accepted: ±max(5, 2 standard errors of the 5 runs' mean); "Close" within twice that
GAP_PREDICTION = Prediction(
    compute=_nursery_gap, tolerance=5.0, seeds=(0, 1, 2, 3, 4), spread_factor=2.0,
    unit=" percentage points", bounds=POINTS,
    hint="at n = 300 each of the forest's 100 trees sees about three rows, while one DiffPID3 "
         "tree sees them all and asks one question per node",
)


# --- 07.3 · A privacy argument: why the best of 15 configurations fitted at ε = 1 each and
# chosen on test rows is not an ε = 1 model. One letter per step.
TUNING_ARGUMENT = Argument(
    claim="Training 15 configurations at ε = 1 each on the same private rows and keeping the one "
          "with the best accuracy on private test rows does not give an ε = 1 model.",
    steps=(
        Step(
            question="The 15 fits read the same training rows. What does that cost those rows?",
            options={
                "a": "ε = 1: only the chosen model is published",
                "b": "up to 15 × ε, by sequential composition",
                "c": "ε = 1, by parallel composition over the 15 fits",
            },
            correct="b",
            why_wrong={
                "a": "the choice depends on all 15 fits, so all of them are part of what leaks",
                "c": "parallel composition needs disjoint rows; here every fit reads every row",
            },
        ),
        Step(
            question="The choice reads the test rows' labels without noise. What does that make "
                     "it?",
            options={
                "a": "a query on private rows with no privacy guarantee",
                "b": "post-processing of the 15 released models, so it is free",
                "c": "a query at ε = 1",
            },
            correct="a",
            why_wrong={
                "b": "post-processing may use only the release, never the data again",
                "c": "nothing in the choice adds noise or calibrates to a sensitivity",
            },
        ),
        Step(
            question="Which remedy keeps the whole procedure at a stated ε?",
            options={
                "a": "report the chosen model's accuracy on the same test rows",
                "b": "train more configurations so that the best is more reliable",
                "c": "choose with public data, or privately (e.g. the exponential mechanism over "
                     "the configurations), and count every fit in the budget",
            },
            correct="c",
            why_wrong={
                "a": "that score is the optimistic one this section measures, and it reads the "
                     "rows again",
                "b": "every extra fit adds to the sequential bill",
            },
        ),
    ),
    conclusion="Tuning is part of the algorithm: every fit and the choice itself spend budget.",
)



# --- 07.4 · Tuning on 15 disjoint parts of the training rows, each configuration at ε = 1,
# chosen with public data: what ε does a single row pay?
# --- answer: start (cut from the students' copy)
# (Parallel composition: 1.)
# --- answer: end
DISJOINT_TUNING = Exercise(
    answer=1.0, tolerance=1e-9, bounds=EPSILON,
    hint="count how many of the 15 fits read any one row, then apply the composition rule for "
         "fits that read disjoint rows",
)


# --- 07.5 · A privacy argument: why the registry gives DP-EBM the domain's bounds and each
# category as an indicator column, rather than letting interpret read them from the rows. One
# letter a step.
BINS_ARGUMENT = Argument(
    claim="A private histogram is private only if its bins are public: DP-EBM must take its "
          "ranges and its categories from the domain, never from the training rows.",
    steps=(
        Step(
            question="Given no bounds, interpret takes an attribute's range from the smallest "
                     "and largest values in the rows. What does the fitted model give away?",
            options={
                "a": "nothing: the counts in its bins are noisy",
                "b": "the count of rows, nothing more",
                "c": "those extreme values exactly, one person's capital gain for instance: the "
                     "model stores them, and every bin edge is computed from them",
            },
            correct="c",
            why_wrong={
                "a": "the noise goes on the counts; a range read from the rows is released as "
                     "it is",
                "b": "the range is computed from the values, not from how many rows there are",
            },
        ),
        Step(
            question="interpret's own categorical bins are the values present in the rows, each "
                     "kept if its noisy count is large enough. A value only one person holds:",
            options={
                "a": "may get a bin when that person is in the rows, and never when they are "
                     "not",
                "b": "is hidden like any count, by the noise on its count, whichever threshold "
                     "interpret uses",
                "c": "is always merged with the other rare values",
            },
            correct="a",
            why_wrong={
                "b": "without that person the value has no count at all, so no noise to compare "
                     "with: the ratio of the two probabilities is unbounded",
                "c": "a count of 1 plus Gaussian noise passes the threshold in a good share of "
                     "fits (17 of 100 for one attribute at ε = 1 and n = 1,000)",
            },
        ),
        Step(
            question="What does the registry do instead?",
            options={
                "a": "it drops the rare values before fitting, so that no bin can ever hold a "
                     "single person's value",
                "b": "it passes the domain's bounds, and each category as an indicator column "
                     "in [0, 1]",
                "c": "it raises δ until the rare values are covered by the (ε, δ) guarantee of "
                     "the Gaussian noise",
            },
            correct="b",
            why_wrong={
                "a": "deciding which values are rare reads the rows",
                "c": "δ covers failures of probability at most δ; here the giveaway is likely",
            },
        ),
    ),
    conclusion="Today's learners count over public bins: the rows move noisy counts, never the "
               "bins.",
)

register({"07.1": PARETO_COUNT, "07.2": GAP_PREDICTION, "07.3": TUNING_ARGUMENT,
          "07.4": DISJOINT_TUNING, "07.5": BINS_ARGUMENT})
