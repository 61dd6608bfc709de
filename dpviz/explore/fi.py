"""Notebook 05 (Fletcher & Islam's DP random forest and its 2021 addendum): explorer and lessons.

The addendum's Table 6, the exact loss of the withdrawn smooth-sensitivity mechanism, the
budget-split lessons.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz import mechanisms
from dpviz.audit.exact_laws import LEAF_LABEL_MECHANISMS as LEAF_MECHANISMS
from dpviz.audit.exact_laws import leaf_label_loss
from dpviz.data import catalogue
from dpviz.data.published import FI_TABLE6, SYNTH
from dpviz.data.synthetic import fi_synth_domain
from dpviz.data.uci import Dataset
from dpviz.domain import Encoded
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.experiments import fast
from dpviz.experiments.reproduce_fi import (
    TABLE3_DATASETS,
    fi_dataset,
    fi_figure4,
    fi_figure5,
    fi_figure6,
    fi_figure7,
    fi_table3,
    fig6_depths,
)
from dpviz.experiments.runner import curve, encoded_split, located, remember
from dpviz.experiments.shipped import result, shipped_rows
from dpviz.explore import settings
from dpviz.mechanisms import report_noisy_max_probabilities
from dpviz.trees.forest import DPRandomForestClassifier
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
from dpviz.ui.widgets import choice_dropdown, epsilon_slider, fits_on_move, selection_slider
from dpviz.validation import check_epsilon, check_option

#: ε values of the explorer's cached curve (the slider's ε is added to them).
EPSILON_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: Stops of the depth slider (0: FI's depth for the data set) and of the trees slider (FI use
#: 100: the reproduction of Fig. 7 covers 1 to 300). The curve at every stop ships
#: (:func:`fi_curves`): a depth at 15 and 50 trees took 0.8 s of fits a move.
DEPTHS = (0, 2, 4, 6, 8, 10, 12, 15)
TREES = (1, 2, 5, 10, 20, 50)
#: Largest depth and most trees of the sliders.
MAX_DEPTH, MAX_TREES = max(DEPTHS), max(TREES)
#: Leaf mechanisms, as ``DPRandomForestClassifier(leaf_mechanism=...)`` names them.
_MECHANISM_TITLES = {
    "rosnam": "Report One-Sided Noisy Arg-Max (addendum; ε-DP)",
    "exponential": "0/1 utility, global sensitivity (ε-DP)",
    "smooth_sensitivity": "smooth sensitivity (FI 2017; NOT proven private)",
}


# ---------------------------------------------------------------------------------- explorer
EXPLORER_DATASETS = (*SYNTH, *catalogue.display_names("nursery", "mushroom", "adult"))
#: Rows used by the explorer (synthetic sets and Adult are subsampled for speed; None = all).
EXPLORER_ROWS = {**dict.fromkeys(SYNTH, 6000), "Nursery": None, "Mushroom": None, "Adult": 6000}
#: Rows of the explorer's fixed test split (the rest trains the forest).
TEST_ROWS = 1500
#: Forests per point of the explorer's curve (the band spans them).
REPEATS = 3


@remember(maxsize=16)
def explorer_dataset(name: str) -> Dataset:
    """The explorer's version of an FI data set (:data:`EXPLORER_ROWS` rows, seed 0)."""
    check_option(name, EXPLORER_DATASETS, "dataset")
    return fi_dataset(name, n_rows=EXPLORER_ROWS[name], random_state=0)


def explorer_depth(name: str, depth: int = 0) -> int:
    """``depth``, or FI's depth (Theorem 2 + ⌊r/2⌋, :func:`fig6_depths`) when 0.

    From the data set's public domain: a synthetic set's rows are not generated for it.
    """
    if depth:
        return int(depth)
    domain = fi_synth_domain(name) if _synthetic(name) else explorer_dataset(name).domain
    return fig6_depths(domain)["theorem2"]


def explorer_rows(name: str) -> int:
    """The rows of :func:`explorer_dataset` (a synthetic set's: without generating them)."""
    return EXPLORER_ROWS[name] if _synthetic(name) else explorer_dataset(name).n_rows


def _synthetic(name: str) -> bool:
    check_option(name, EXPLORER_DATASETS, "dataset")
    return catalogue.source(catalogue.dataset_id(name)) == "fi-synth"


def explorer_frame(
    dataset: str, epsilons: Sequence[float], depth: int, n_trees: int, mechanism: str = "rosnam",
    repeats: int | Sequence[int] = REPEATS, disjoint: bool = True, shipped: bool = True,
) -> pd.DataFrame:
    """Test accuracy of one FI forest per (ε, seed) on the explorer's split, one row each.

    :func:`~dpviz.experiments.holdout_accuracy`'s numbers through the runner's ``curve``: the
    missing ε fitted on rows encoded once, the test rows routed once per tree structure.
    ``shipped``: each forest :func:`fi_curves` ships is read (the same number), the others
    fitted and remembered; else every one is fitted afresh (what ships).
    """
    depth, n_trees = int(depth), int(n_trees)
    table = _shipped_curves(dataset) if shipped and disjoint else {}

    def evaluate(seed: int, epsilons: list[float]) -> list[list[dict]]:
        known = {eps: row[mechanism] for eps in epsilons
                 if (row := table.get((depth, n_trees, eps, seed)))}
        missing = [eps for eps in epsilons if eps not in known]
        correct = known | dict(zip(missing, _fitted(dataset, missing, depth, n_trees, mechanism,
                                                     seed, disjoint), strict=True))
        # correct / rows: np.mean(predicted == truth) bit for bit (an exact sum, one division)
        return [[{"epsilon": eps, "repeat": seed, "accuracy": correct[eps] / TEST_ROWS}]
                for eps in epsilons]

    key = ("fi", dataset, depth, n_trees, mechanism, bool(disjoint)) if shipped else None
    return curve(evaluate, epsilons, repeats, key=key)


def _fitted(dataset: str, epsilons: list[float], depth: int, n_trees: int, mechanism: str,
            seed: int, disjoint: bool) -> list[int]:
    """Test rows predicted right by forest ``seed`` at each ε (fitted now)."""
    if not epsilons:
        return []
    data = explorer_dataset(dataset)
    train, train_labels, test, test_labels = encoded_split(data, TEST_ROWS, 0)
    rows, y = Encoded(train, data.domain), data.domain.decode_labels(train_labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvenPrivateWarning)  # said in the chart's title
        forests = [DPRandomForestClassifier(
            eps, n_trees=n_trees, max_depth=depth, leaf_mechanism=mechanism,
            disjoint=disjoint, domain=data.domain, random_state=seed,
        ).fit(rows, y) for eps in epsilons]
    leaves = located(("fi", dataset, depth, n_trees, seed), forests[0], test)
    return [int(np.sum(fast.predict_located(forest, leaves) == test_labels)) for forest in forests]


def forest_accuracy(
    dataset: str, epsilon: float, depth: int, n_trees: int, mechanism: str = "rosnam",
    seed: int = 0, disjoint: bool = True,
) -> float:
    """Test accuracy of one FI forest on the explorer's split (:func:`explorer_frame`)."""
    frame = explorer_frame(dataset, [epsilon], depth, n_trees, mechanism, [int(seed)], disjoint)
    return float(frame["accuracy"].iloc[0])


def non_private_accuracy(dataset: str, depth: int, n_trees: int) -> float:
    """FI's non-private forest (§2.4): ε = ∞ (exact majority labels), all rows in every tree."""
    known = _shipped_references(dataset).get((int(depth), int(n_trees)))
    if known is not None:
        return known / TEST_ROWS
    return forest_accuracy(dataset, math.inf, depth, n_trees, "rosnam", 0, False)


def fi_curves(
    dataset: str, *, depths: Sequence[int] = DEPTHS, trees: Sequence[int] = TREES,
    epsilons: Sequence[float] = EPSILON_GRID, progress: bool = False,
) -> pd.DataFrame:
    """The explorer's curves at every stop of its sliders, fitted afresh: what ships.

    One row per (depth, trees, ε, seed): each leaf mechanism's test rows predicted right
    (``rosnam``, ``exponential``, ``smooth_sensitivity``; its accuracy is that over
    :data:`TEST_ROWS`), and ``non_private``, the non-private forest's of that depth and
    number of trees (the same on every row of a setting). Depth 0 is stored as FI's depth.
    """
    settings = [(d, int(t)) for d in sorted({explorer_depth(dataset, d) for d in depths})
                for t in trees]
    rows = []
    for d, t in tqdm(settings, disable=not progress, desc=f"FI forest curves, {dataset}"):
        reference = _correct(forest_accuracy(dataset, math.inf, d, t, "rosnam", 0, False))
        frames = {m: explorer_frame(dataset, epsilons, d, t, m, shipped=False)
                  for m in LEAF_MECHANISMS}
        for k, record in enumerate(frames[LEAF_MECHANISMS[0]].to_dict("records")):
            rows.append({"depth": d, "n_trees": t, "epsilon": record["epsilon"],
                         "repeat": record["repeat"],
                         **{m: _correct(f["accuracy"].iloc[k]) for m, f in frames.items()},
                         "non_private": reference})
    return pd.DataFrame(rows)


def _correct(accuracy: float) -> int:
    """The test rows predicted right, from an accuracy over :data:`TEST_ROWS` (checked exact)."""
    correct = round(accuracy * TEST_ROWS)
    assert correct / TEST_ROWS == accuracy
    return correct


@remember()
def _shipped_curves(dataset: str) -> dict[tuple, dict]:
    """The shipped forests of :func:`fi_curves` by (depth, trees, ε, seed); empty if none."""
    return shipped_rows(fi_curves, check_option(dataset, EXPLORER_DATASETS, "dataset"),
                        keys=("depth", "n_trees", "epsilon", "repeat"))


@remember()
def _shipped_references(dataset: str) -> dict[tuple[int, int], int]:
    """The shipped non-private forests by (depth, trees): test rows predicted right."""
    return {(d, t): row["non_private"] for (d, t, _, _), row in _shipped_curves(dataset).items()}


def explorer_curves() -> None:
    """The explorer's shipped curves: every data set and stop of its sliders."""
    for dataset in EXPLORER_DATASETS:
        result(fi_curves, dataset, progress=True)


@fits_on_move("dpviz.trees.forest", "dpviz.experiments.fast")  # an ε off the shipped grid
def fi_explorer_chart(
    dataset: str = "SynthA", epsilon: float = 1.0, depth: int = 0, n_trees: int = 100,
    mechanism: str = "rosnam",
) -> alt.LayerChart:
    """Explorer callback: the FI forest's accuracy against ε, the non-private forest dashed.

    At the sliders' stops the curve and the non-private forest are read from the shipped grid
    (:func:`fi_curves`), the point at the slider's ε fitted (read when on the grid).
    """
    check_option(mechanism, LEAF_MECHANISMS, "mechanism")
    d = explorer_depth(dataset, depth)
    n_trees = int(n_trees)
    epsilons = sorted({*EPSILON_GRID, float(epsilon)})
    frame = explorer_frame(dataset, epsilons, d, n_trees, mechanism)
    title = alt.Title(
        f"{dataset}: {explorer_rows(dataset) - TEST_ROWS} training rows, depth {d}, "
        f"{n_trees} trees",
        subtitle=[
            f"leaf labels: {_MECHANISM_TITLES[mechanism]}",
            f"accuracy at ε = {epsilon:.3g}: "
            f"{frame.loc[frame['epsilon'] == float(epsilon), 'accuracy'].mean():.3f} "
            f"(mean of {REPEATS} forests); dashed: non-private forest",
            _source(dataset, d, n_trees, float(epsilon)),
        ],
    )
    return accuracy_chart(
        frame, x="epsilon", reference=non_private_accuracy(dataset, d, n_trees),
        highlight=float(epsilon), title=title,
    )


def _source(dataset: str, depth: int, n_trees: int, eps: float) -> str:
    """Where the chart's numbers come from: the shipped grid, forests fitted now, or both."""
    shipped = _shipped_curves(dataset)
    if (depth, n_trees, EPSILON_GRID[0], 0) not in shipped:
        return "every forest fitted now"
    read = "read from the shipped grid made by make results (fi.fi_curves)"
    return read if (depth, n_trees, eps, 0) in shipped else (
        f"curve {read}; the forests at ε = {eps:.3g} fitted now")


def _stops(values: Sequence[int], value: int, name: str) -> list[tuple[str, int]]:
    """A slider's (label, value) stops; ``value`` must be one of them."""
    if value not in values:
        raise InvalidParameterError(f"{name} must be one of {list(values)}, got {value!r}")
    return [(str(v), v) for v in values]


def fi_controls(
    dataset: str = "SynthA", epsilon: float = 1.0, depth: int = 0, n_trees: int = MAX_TREES,
    mechanism: str = "rosnam",
) -> dict[str, Any]:
    """The explorer's widgets: depth and trees on the stops whose curves ship."""
    return {
        "dataset": choice_dropdown(EXPLORER_DATASETS, dataset),
        "epsilon": epsilon_slider(epsilon, low=0.01, high=10.0),
        "depth": selection_slider(_stops(DEPTHS, depth, "depth"), depth, "depth"),
        "n_trees": selection_slider(_stops(TREES, n_trees, "n_trees"), n_trees, "trees"),
        "mechanism": choice_dropdown(LEAF_MECHANISMS, mechanism, "leaf label"),
    }


# ---------------------------------------------------------------------------------- reproductions
#: What the reproductions of FI Fig. 4–7 and Table 3 run: full (shipped) and a quick version.
REPRODUCTION_SETTINGS = {
    "quick": {"datasets": catalogue.display_names("SynthA", "SynthF"),
              "fig7_datasets": catalogue.display_names("SynthA"), "n_rows": 6000, "n_folds": 2,
              "n_repeats": 1,
              "table3_datasets": catalogue.display_names("SynthA", "SynthF", "Nursery"),
              "table3_runs": 3},
    "full": {"datasets": SYNTH, "fig7_datasets": SYNTH, "n_rows": None, "n_folds": 5,
             "n_repeats": 2, "table3_datasets": TABLE3_DATASETS, "table3_runs": 10},
}


def reproduction_settings(quick: bool | None = None) -> dict:
    """What the reproductions of FI Fig. 4–7 and Table 3 run: full (shipped) or quick.

    ``None``: the run mode's (quick only when ``DPVIZ_QUICK=1`` recomputes).
    """
    return settings(REPRODUCTION_SETTINGS, quick)


def describe_settings(settings: dict | None = None) -> str:
    """One sentence saying what a reproduction ran (default: the run mode's settings)."""
    settings = reproduction_settings() if settings is None else settings
    rows = "30 000" if settings["n_rows"] is None else f"{settings['n_rows']}"
    runs = settings["n_folds"] * settings["n_repeats"]
    return (
        f"Fig. 4-6 on {', '.join(settings['datasets'])}; Fig. 7 on "
        f"{', '.join(settings['fig7_datasets'])}: {rows} rows per synthetic set, "
        f"{settings['n_folds']}-fold cross-validation x {settings['n_repeats']} repeat(s) "
        f"= {runs} forests per setting (FI: 30 000 rows, 10 x 10-fold). Table 3 on "
        f"{', '.join(settings['table3_datasets'])}: {settings['table3_runs']} runs."
    )


def _figure(function: Any, datasets: str) -> pd.DataFrame:
    s = reproduction_settings()
    return result(function, s[datasets], n_rows=s["n_rows"], n_folds=s["n_folds"],
                  n_repeats=s["n_repeats"])


# Read from the shipped results; recomputed under DPVIZ_RECOMPUTE=1 (with DPVIZ_QUICK=1: two
# data sets of 6000 rows, two folds: REPRODUCTION_SETTINGS).
def figure4() -> pd.DataFrame:
    """FI Fig. 4: the leaf mechanism (ε = 1, 100 trees), per synthetic data set."""
    return _figure(fi_figure4, "datasets")


def figure5() -> pd.DataFrame:
    """FI Fig. 5: disjoint rows (full ε per tree) or every row in every tree (ε/τ)."""
    return _figure(fi_figure5, "datasets")


def figure6() -> pd.DataFrame:
    """FI Fig. 6: the depth m/2, Theorem 2's, or m (ε = 1)."""
    return _figure(fi_figure6, "datasets")


def figure7() -> pd.DataFrame:
    """FI Fig. 7: the number of trees, at ε = 0.2 and ε = 1."""
    return _figure(fi_figure7, "fig7_datasets")


def table3() -> pd.DataFrame:
    """FI Table 3: the share of empty leaves with one tree and with 30 trees."""
    s = reproduction_settings()
    return result(fi_table3, s["table3_datasets"], n_runs=s["table3_runs"])


#: The notebook's shipped reproductions (``make results`` recomputes them).
SHIPPED = (figure4, figure5, figure6, figure7, table3, explorer_curves)


def side_by_side(frame: pd.DataFrame, settings: Sequence[str] | None = None) -> pd.DataFrame:
    """A reproduction table made wide: per setting ours (``s``, %) and FI's (``s FI``)."""
    settings = list(settings or dict.fromkeys(frame["setting"]))
    wide = frame.pivot(index="dataset", columns="setting", values=["mean", "paper"])
    out = pd.DataFrame(index=wide.index)
    for s in settings:
        out[s] = wide[("mean", s)]
        if wide[("paper", s)].notna().any():
            out[f"{s} FI"] = wide[("paper", s)]
    return out.round(1)


def paper_chart(frame: pd.DataFrame, *, title: str, width: int = 460) -> alt.LayerChart:
    """Our mean accuracy per data set and setting (bars, clipped to 40-100 %), FI's as ticks."""
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
    """The addendum's Table 6 (P(B) in %) next to the three mechanisms it mixes up."""
    f, out = FI_TABLE6[["f_A", "f_B"]].to_numpy(), FI_TABLE6.copy()
    original = mechanisms.smooth_sensitivity_label_probabilities(f, epsilon=epsilon)
    out["original"] = 100 * original[:, 1]
    out["softmax"] = 100 * mechanisms.exponential_probabilities(
        f, epsilon=epsilon, sensitivity=1.0, monotone=True)[:, 1]
    out["noisy_argmax"] = 100 * report_noisy_max_probabilities(f, epsilon=epsilon)[:, 1]
    return out[["f_A", "f_B", "original", "original_paper", "softmax", "new_paper", "noisy_argmax"]]


# ---------------------------------------------------------------------------------- smooth sens.
def smooth_sensitivity_loss_table(
    epsilons: Sequence[float] = (0.1, 0.5, 1.0),
    gaps: Sequence[int] = (0, 1, 2, 3, 4, 5, 10, 20, 30, 40, 60),
) -> pd.DataFrame:
    """Exact loss of a leaf label for neighbours (j, 0), (j + 1, 0), per mechanism."""
    rows = []
    for eps in epsilons:
        for j in gaps:
            d, d_prime = np.array([j, 0]), np.array([j + 1, 0])
            for mechanism in ("smooth_sensitivity", "rosnam"):
                loss = leaf_label_loss(mechanism, eps)(d, d_prime)
                rows.append({"epsilon": eps, "j": j, "mechanism": mechanism, "loss": loss,
                             "ratio": loss / eps})
    return pd.DataFrame(rows)


def loss_chart(frame: pd.DataFrame, *, width: int = 420) -> alt.LayerChart:
    """The exact loss / ε against the gap j (log scale), the promise loss/ε = 1 dashed."""
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
    promise = alt.Chart(pd.DataFrame({"ratio": [1.0]})).mark_rule(
        color="firebrick", strokeDash=[6, 4]).encode(y="ratio:Q")
    return lines + promise


# ---------------------------------------------------------------------------------- budget split
def budget_split_table(epsilon: float = 1.0, n_trees: int = 100) -> pd.DataFrame:
    """Three ways to spend ε on τ trees, and the exact loss of one canary row."""
    schemes = [
        ("disjoint rows, full ε per tree (FI §4.2)", 1, epsilon),
        ("every row in every tree, ε/τ per tree (FI Fig. 5)", n_trees, epsilon / n_trees),
        ("every row in every tree, full ε per tree (WRONG)", n_trees, epsilon),
    ]
    rows = []
    for name, reading, eps in schemes:
        per_tree = leaf_label_loss("rosnam", eps)(np.array([0, 0]), np.array([0, 1]))
        rows.append({"scheme": name, "trees_reading_the_row": reading, "epsilon_per_tree": eps,
                     "claimed": epsilon, "loss": reading * per_tree})
    return pd.DataFrame(rows)


def assignment_changes(n_rows: int = 6000, n_trees: int = 100, seed: int = 0) -> pd.DataFrame:
    """Trees whose rows change when one row is added, for two row-to-tree schemes."""
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
        rows.append({"scheme": scheme, "rows_that_move": int(moved.sum()),
                     "trees_with_other_rows": len(other),
                     "trees_changed": len(other | {int(after[-1])})})
    return pd.DataFrame(rows)


#: ROSNAM's exact law on two class counts: ``laws(zeros, ones)`` (see :func:`_label_laws`).
LabelLaws = Callable[[int, int], np.ndarray]


def _label_laws(eps: float) -> LabelLaws:
    """ROSNAM's exact law at ε as a function of the class counts (zeros, ones), each computed once.

    The split laws below need it for the same few counts over and over (tens of thousands of
    times for :func:`split_loss_table` over 30 rows, each call computing Gauss-Legendre nodes
    again); this makes the very same call once per counts, for as long as the function lives
    (one law or one table): the same floats, so every law built from them is unchanged.
    """
    known: dict[tuple[int, int], np.ndarray] = {}

    def laws(zeros: int, ones: int) -> np.ndarray:
        if (zeros, ones) not in known:
            p = report_noisy_max_probabilities(np.array([zeros, ones]), epsilon=eps)
            p.setflags(write=False)
            known[zeros, ones] = p
        return known[zeros, ones]

    return laws


def _mirrored(law: dict[int, float]) -> dict[int, float]:
    """The law of ``2·label₁ + label₂`` with the two trees swapped."""
    return {2 * (o % 2) + o // 2: p for o, p in law.items()}


def random_leftover_law(rows: Sequence[int], epsilon: float = 1.0) -> dict[int, float]:
    """FI's equal split over two one-leaf trees, an odd row out going to a random tree."""
    law = equal_split_law(rows, epsilon)
    return _random_leftover(len(rows), law)


def _random_leftover(n: int, law: dict[int, float]) -> dict[int, float]:
    """:func:`random_leftover_law` of ``n`` rows from their :func:`equal_split_law` ``law``."""
    if n % 2 == 0:
        return law
    swapped = _mirrored(law)
    return {o: (law[o] + swapped[o]) / 2 for o in law}


def independent_split_law(rows: Sequence[int], epsilon: float = 1.0) -> dict[int, float]:
    """The split of dpviz's forest over two one-leaf trees: each row draws its tree, 1/2 each."""
    eps = check_epsilon(epsilon)
    return _independent_split(rows, _label_laws(eps))


def _independent_split(rows: Sequence[int], laws: LabelLaws) -> dict[int, float]:
    """:func:`independent_split_law` with ROSNAM's laws ``laws`` (at the caller's ε)."""
    labels = [int(r) for r in rows]
    zeros, ones, law = labels.count(0), labels.count(1), np.zeros(4)
    for a in range(zeros + 1):  # the first tree's rows of class 0 and class 1
        for b in range(ones + 1):
            weight = math.comb(zeros, a) * math.comb(ones, b) / 2 ** len(labels)
            p1 = laws(a, b)
            p2 = laws(zeros - a, ones - b)
            law += weight * np.outer(p1, p2).ravel()
    return {k: float(p) for k, p in enumerate(law)}


def split_loss_table(epsilon: float = 1.0, max_rows: int = 11) -> pd.DataFrame:
    """Each split's worst exact loss over data sets of up to ``max_rows`` rows and one more row.

    Three ways to give two one-leaf trees disjoint rows (exercise 05.4's setting), labels
    released by ROSNAM at ε; D holds class-0 and class-1 rows (their order does not matter),
    D′ = D plus one row of either class.
    """
    laws = _label_laws(check_epsilon(epsilon))  # one ROSNAM law per class counts, shared
    schemes = {
        "each row draws its tree (dpviz)": lambda d: _independent_split(d, laws),
        "equal halves, an odd row to a random tree":
            lambda d: _random_leftover(len(d), _equal_split_of(d, laws)),
        "equal halves, an odd row to the first tree (np.array_split)":
            lambda d: _equal_split_of(d, laws),
    }
    rows = []
    for scheme, law in schemes.items():
        # Each law depends on the rows only through their class counts (a random split does not
        # look at the order), so it is computed once per counts: D′ = D + one row has the
        # counts of a later D, which the loop met or will meet again (about 3x fewer laws).
        known: dict[tuple[int, int], dict[int, float]] = {}
        worst = (0.0, (), ())
        for n in range(max_rows + 1):
            for ones in range(n + 1):
                d = (0,) * (n - ones) + (1,) * ones
                for data in (d, (*d, 0), (*d, 1)):
                    counts = (data.count(0), data.count(1))
                    if counts not in known:
                        known[counts] = law(data)
                p = known[n - ones, ones]
                for added in (0, 1):
                    q = known[n - ones + 1 - added, ones + added]
                    loss = max(abs(math.log(p[o] / q[o])) for o in p)
                    if loss > worst[0] + 1e-12:
                        worst = (loss, d, (*d, added))
        rows.append({"split": scheme, "worst loss": worst[0], "loss / ε": worst[0] / epsilon,
                     "D": worst[1], "D′": worst[2]})
    return pd.DataFrame(rows)


# ====================================================================== exercises 05.1–05.5
# One exercise in one place: the question (the notebook asks it in full), the check's cases and
# settings, its hint, and the worked answer the instructor's key returns
# (dpviz.ui.exercises.solution; never shown in the notebook). Registered at the end.

# --- 05.1 · Why each row picks its own tree: one letter per step.
SPLIT_ARGUMENT = Argument(
    claim="dpviz's forest sends each row to a tree drawn uniformly for that row, independently of "
          "the other rows and of the noise, and releases every leaf's label by ROSNAM at ε: the "
          "release is ε-DP (add/remove neighbours). FI's equal split (shuffle, cut into τ equal "
          "parts) does not get this proof.",
    steps=(
        Step(
            question="D′ is D plus one row r. Pair the two runs so that every row of D draws the "
                     "same tree in both. Given these draws, whose rows differ between D and D′?",
            options={
                "a": "every tree's: the parts change size",
                "b": "only the tree T that r drew, by the row r",
                "c": "no tree's: one row is lost among thousands",
            },
            correct="b",
            why_wrong={
                "a": "nothing fixes the part sizes here: each row's tree is its own draw, so the "
                     "other rows stay where they are",
                "c": "r is counted in its leaf of the tree it drew: that leaf's counts change",
            },
        ),
        Step(
            question="Fix T = t. Why does any set of releases have probability within a factor "
                     "e^ε on D and D′?",
            options={
                "a": "all leaves of all trees are released at ε, and the τ trees compose to τε, "
                     "which the forest divides by τ",
                "b": "the trees are drawn from the public domain, so the release of a tree's "
                     "leaves never depends on who is in D",
                "c": "one leaf of tree t differs by one row and its ROSNAM label is ε-DP; all "
                     "of the other leaves are unchanged",
            },
            correct="c",
            why_wrong={
                "a": "no ε is divided by τ in the disjoint scheme, and composition only charges "
                     "releases whose input changes",
                "b": "a free structure says nothing about the labels, which read the rows",
            },
        ),
        Step(
            question="T is random and secret. How does the bound for each t give one for the "
                     "forest?",
            options={
                "a": "P′(S) = Σ_t P(T = t)·P′(S | T = t) ≤ Σ_t P(T = t)·e^ε·P(S) = e^ε·P(S): r's "
                     "draw is independent of the rest, and on D the release does not depend on it "
                     "(the same with D and D′ swapped)",
                "b": "it cannot: T must be published with the release",
                "c": "add the bounds over the τ possible trees: τε",
            },
            correct="a",
            why_wrong={
                "b": "the assignment is a curator secret; the release is a mixture over it, and a "
                     "mixture of laws each within e^ε of P is itself within e^ε of P",
                "c": "only one t happens: the law on D′ is an average over t, not a composition "
                     "of τ releases",
            },
        ),
        Step(
            question="Equal split: shuffle, cut into τ parts of equal size. Keep every old row's "
                     "place in the shuffle and insert r. What happens to the parts?",
            options={
                "a": "only r's part changes: the other parts keep their rows, since every old row "
                     "keeps its place",
                "b": "nothing, since the rows are shuffled anyway and every part is still a "
                     "uniform sample of the rows",
                "c": "the cut points move: each part after r's place passes a row on, so up to "
                     "τ of the parts differ",
            },
            correct="c",
            why_wrong={
                "a": "the sizes must stay equal, so the cut points move; run assignment_changes "
                     "and look at the rows that move",
                "b": "the shuffle is the same for the old rows; what moves are the cut points",
            },
        ),
        Step(
            question="So what would a proof for the equal split need?",
            options={
                "a": "nothing more: one bad pairing already proves that the equal split is not "
                     "private, whatever the other pairings of splits do",
                "b": "a coupling: pair the splits of D and D′ so that paired splits differ in "
                     "few parts, then average — maybe at a larger ε",
                "c": "nothing: disjoint parts are always parallel composition, whichever way the "
                     "rows were dealt into them",
            },
            correct="b",
            why_wrong={
                "a": "privacy is about the two output laws; one pairing that differs in many "
                     "parts proves nothing, another may differ in few",
                "c": "parallel composition needs neighbours that differ in one part, and step 4 "
                     "shows the parts are not fixed",
            },
        ),
    ),
    conclusion="With one independent draw per row, a neighbour changes one leaf of one tree "
               "whatever the other rows drew, and averaging over the secret draw keeps the factor "
               "e^ε: parallel composition applies directly. An equal split ties the rows together "
               "through the cut points, so its proof must couple the two random splits — and in "
               "fact its claim fails: by about 2 % at ε = 1 when an odd row goes to a random "
               "tree, by much more when it always goes to the first tree (exercise 05.4).",
)



# --- 05.2 · A leaf's label by ROSNAM: rosnam_label(counts, epsilon, rng), the label (an int)
# Report One-Sided Noisy Arg-Max releases for class counts `counts`, numpy only.
def leaf_label_law(counts: Sequence[int], epsilon: float) -> dict[int, float]:
    """Exact law of a leaf's ROSNAM label: {class index: probability}."""
    p = report_noisy_max_probabilities(np.asarray(counts), epsilon=check_epsilon(epsilon))
    return {c: float(q) for c, q in enumerate(p)}


# --- answer: start (the worked answer: cut from the students' copy)
def _rosnam_label(counts: Sequence[int], epsilon: float, rng: np.random.Generator) -> int:
    counts = np.asarray(counts, dtype=float)  # one-sided Exp(1/ε) noise per count, arg-max
    return int(np.argmax(counts + rng.exponential(1 / epsilon, size=len(counts))))
# --- answer: end


ROSNAM_LABEL = Implementation(
    cases=({"counts": (3, 7), "epsilon": 0.5}, {"counts": (5, 10), "epsilon": 0.1},
           {"counts": (2, 6, 5), "epsilon": 1.0}, {"counts": (0, 0, 0), "epsilon": 1.0},
           {"counts": (5, 10), "epsilon": 0.01}, {"counts": (1500, 1490), "epsilon": 0.5}),
    exact=leaf_label_law, sampler=True, output="int", n_samples=10_000,
    hint="one independent noise draw per class, never negative; which scale may the noise have "
         "when every count can only grow by one (notebook 01 §0, docs/privacy.md §1)? Return "
         "the position of the largest noisy count, an int, not the count itself",
    solution=_rosnam_label,
)


# --- 05.3 · The same law by permute-and-flip: flip_label(counts, epsilon, rng) returns
# (label, examined): classes visited in a random order, class c accepted with probability p_c
# (1 for a largest count), `examined` the number of classes visited (coins flipped). The label
# alone has ROSNAM's law (05.2's answer would pass on it); the pair is permute-and-flip's own.
def flip_law(counts: Sequence[int], epsilon: float) -> dict[tuple[int, int], float]:
    """Exact law of permute-and-flip's (label, classes examined) for ``counts`` at ``epsilon``.

    p_c = exp(ε·(f_c − max f)). Class c is accepted at the k-th visit when it is k-th in the
    (uniform) order, which has probability 1/n, and the k − 1 classes before it — a uniform
    (k − 1)-subset S of the others — are all rejected: P(c, k) = p_c/n · mean over S of
    Π_{j∈S} (1 − p_j). Summed over k, the label's law is ROSNAM's (:func:`leaf_label_law`).
    """
    import itertools

    f = np.asarray(counts, dtype=float)
    p = np.exp(check_epsilon(epsilon) * (f - f.max()))
    n, law = len(f), {}
    for c in range(n):
        others = [1.0 - p[j] for j in range(n) if j != c]
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(others, k - 1))
            mass = p[c] / n * sum(math.prod(s) for s in subsets) / len(subsets)
            if mass > 0:
                law[(c, k)] = float(mass)
    return law


# --- answer: start (the worked answer: cut from the students' copy)
def _flip_label(counts: Sequence[int], epsilon: float,
                rng: np.random.Generator) -> tuple[int, int]:
    counts = np.asarray(counts, dtype=float)  # accept c with probability exp(ε·(f_c − max f))
    for examined, c in enumerate(rng.permutation(len(counts)), start=1):
        if rng.random() < math.exp(epsilon * (counts[c] - counts.max())):
            return int(c), examined
    raise AssertionError("a class with the largest count is always accepted")
# --- answer: end


PERMUTE_AND_FLIP = Implementation(
    cases=({"counts": (3, 7), "epsilon": 0.5}, {"counts": (2, 6, 5), "epsilon": 1.0},
           {"counts": (0, 0, 0), "epsilon": 1.0}, {"counts": (4, 5, 5, 2), "epsilon": 0.5}),
    exact=flip_law, sampler=True, n_samples=10_000,
    hint="visit the classes in a fresh random order each draw, counting the visits; a class "
         "with the largest count must always be accepted; the acceptance probability must fall "
         "by the same factor per missing row as ROSNAM's odds do at this ε — compare both on "
         "counts (0, 1). Return the pair (label, number of classes visited), both ints",
    solution=_flip_label,
)


# --- 05.4 · Audit FI's equal split: equal_split(data, n, rng) for τ = 2 one-leaf trees on
# class labels `data` (shuffled, cut by np.array_split, one ROSNAM label at ε = 1 per part),
# n values 2·label₁ + label₂; neighbours on which the audit of ε = 1 finds the violation.
def equal_split_law(rows: Sequence[int], epsilon: float = 1.0) -> dict[int, float]:
    """Exact law of ``2·label₁ + label₂`` for FI's equal split over two one-leaf trees.

    ``rows``: class labels 0/1, shuffled and cut by ``np.array_split`` (the first part takes
    the extra row); each part's ROSNAM label at ε. The first part's class-1 rows are
    hypergeometric.
    """
    eps = check_epsilon(epsilon)
    labels = [int(r) for r in rows]
    if any(r not in (0, 1) for r in labels):
        raise InvalidParameterError(f"rows must be class labels 0 or 1, got {tuple(rows)!r}")
    return _equal_split_of(labels, _label_laws(eps))


def _equal_split_of(labels: Sequence[int], laws: LabelLaws) -> dict[int, float]:
    """:func:`equal_split_law` of class labels 0/1 (checked by the caller), ``laws`` at its ε."""
    n, ones, law = len(labels), sum(labels), np.zeros(4)
    size = (n + 1) // 2  # the first part: a uniformly random subset of this many rows
    for k in range(max(0, size - (n - ones)), min(size, ones) + 1):  # its rows of class 1
        weight = math.comb(ones, k) * math.comb(n - ones, size - k) / math.comb(n, size)
        p1 = laws(size - k, k)  # the first part's class counts
        p2 = laws(n - ones - (size - k), ones - k)  # the second part's
        law += weight * np.outer(p1, p2).ravel()
    return {k: float(p) for k, p in enumerate(law)}


def equal_split_loss(rows: Sequence[int], rows_prime: Sequence[int],
                     epsilon: float = 1.0) -> float:
    """Exact privacy loss max_o |log P(o) / P′(o)| of :func:`equal_split_law` on two data sets."""
    p, q = equal_split_law(rows, epsilon), equal_split_law(rows_prime, epsilon)
    return max(abs(math.log(p[o] / q[o])) for o in p)


#: The largest exact loss of :func:`equal_split_law` at ε = 1 over neighbours (checked over
#: data sets of up to 20 rows in ``tests/test_fi_exercises.py``).
EQUAL_SPLIT_MAX_LOSS = equal_split_loss((1, 1, 1), (1, 1, 1, 0))

# --- answer: start (the worked answer: cut from the students' copy)
def _equal_split(data: Sequence[int], n: int, rng: np.random.Generator) -> np.ndarray:
    rows = np.asarray(data, dtype=np.int64)
    shuffled = rng.permuted(np.tile(rows, (n, 1)), axis=1)
    first = (len(rows) + 1) // 2  # the first tree takes the extra row
    labels = []
    for part in (shuffled[:, :first], shuffled[:, first:]):
        counts = np.stack([(part == c).sum(axis=1) for c in (0, 1)], axis=1)
        labels.append(np.asarray(mechanisms.report_noisy_max(counts, epsilon=1.0, rng=rng))
                      .reshape(n))
    return 2 * labels[0] + labels[1]
# --- answer: end


EQUAL_SPLIT_AUDIT = AuditTask(
    cases=((1,), (1, 0), (0, 0, 1), (1, 1, 0, 1, 0)), exact=equal_split_law, epsilon=1.0,
    violation=True, max_loss=EQUAL_SPLIT_MAX_LOSS, n_samples=10_000, relation="rows",
    allowed=("dpviz.mechanisms.report_noisy_max",),
    hint="reread the recipe: shuffle with rng.permutation, cut with np.array_split(rows, 2) (the "
         "first tree takes the extra row), one ROSNAM label at ε = 1 per tree from its part's "
         "class counts (np.bincount(part, minlength=2)); return the n values 2·label₁ + label₂ "
         "as an array",
    solution=(_equal_split, (1, 1, 1), (1, 1, 1, 0)),
)


# --- 05.5 · Predict, then move the slider: the mean accuracy (a fraction) of the explorer's
# forests on Nursery, depth 0 (FI's), 50 trees, ROSNAM, at ε = 0.1.
#: The explorer setting of exercise 05.5 (depth 0: FI's depth for the data set).
PREDICTION_SETTING = {"dataset": "Nursery", "epsilon": 0.1, "depth": 0, "n_trees": 50,
                      "mechanism": "rosnam"}


def nursery_accuracy(seed: int = 0) -> float:
    """Accuracy of the explorer's forest ``seed`` at :data:`PREDICTION_SETTING`."""
    s = PREDICTION_SETTING
    return forest_accuracy(s["dataset"], s["epsilon"], explorer_depth(s["dataset"], s["depth"]),
                           s["n_trees"], s["mechanism"], seed)


NURSERY_PREDICTION = Prediction(
    compute=nursery_accuracy, tolerance=0.06, seeds=(0, 1, 2), spread_factor=1.0,
    bounds=FRACTION,
    hint="at ε = 0.1 each leaf's noise has scale 10; how many of the 11 460 training rows does "
         "one leaf of one tree hold when each tree gets a fiftieth of them and has hundreds of "
         "leaves? If most labels are close to random draws among Nursery's five classes, what "
         "is the vote of 50 such trees worth?",
)

register({"05.1": SPLIT_ARGUMENT, "05.2": ROSNAM_LABEL, "05.3": PERMUTE_AND_FLIP,
          "05.4": EQUAL_SPLIT_AUDIT, "05.5": NURSERY_PREDICTION})
