"""Notebook 06 (privacy audit): the audit explorer, the stories and the exercises.

The explorer audits the setups of :mod:`dpviz.audit.targets`. Fixed seeds throughout.
"""

from __future__ import annotations

import csv
import math
import textwrap
from collections.abc import Callable, Sequence
from importlib.resources import files
from typing import Any, NamedTuple

import altair as alt
import ipywidgets as widgets
import numpy as np
import pandas as pd

from dpviz.audit import targets
from dpviz.audit.engine import (
    AuditResult,
    audit,
    audits_frame,
    audits_from_frame,
    bound_vs_samples,
    clopper_pearson,
    estimator_mechanism,
    leaf_count_neighbours,
    search_neighbours,
)
from dpviz.audit.exact_laws import (
    ContinuousLaw,
    DiscreteLaw,
    exact_event_losses,
    laplace_cdf,
    smooth_sensitivity_loss,
)
from dpviz.audit.targets import (
    BROKEN,
    CORRECT,
    SETUPS,
    averaged_count,
    laplace_count_with_scale,
    make_setup,
    run_audit,
)
from dpviz.data.published import FI_TABLE6
from dpviz.domain import Categorical, Domain
from dpviz.errors import InvalidParameterError
from dpviz.experiments.shipped import result
from dpviz.explore import settings, ships
from dpviz.ui.exercises import BreakTask, Exercise, Range, register
from dpviz.ui.plots import audit_histogram_chart, privacy_loss_chart
from dpviz.ui.widgets import SLIDER_MIN_WIDTH

__all__ = [
    "BROKEN", "CORRECT", "MAX_SAMPLES", "SETUPS", "addendum_table6",
    "audit_explorer_chart", "audit_table", "averaged_count", "bound_growth", "budget_split_audits",
    "estimator_audits", "estimator_power_audit", "exact_event_losses", "exact_ratio_chart",
    "floating_point_audits", "half_sensitivity_laplace_law", "impossible_output_bound",
    "laplace_count_with_scale", "make_setup", "model_object_audits", "pruned_tree_audit",
    "results_frame", "reused_noise_audits", "run_audit", "samples_slider",
    "smooth_sensitivity_loss", "smooth_sensitivity_story", "story", "story_results", "suite_rows",
    "threshold_lattice_audits", "tiny_problem", "unsplit_average_law", "verdict"
]


def verdict(result: AuditResult, neighbours_epsilon: float | None = None) -> list[str]:
    """A short verdict: the decision, then the event, the neighbours and the exact losses."""
    conf = f"{100 * (1 - result.alpha):.0f}%"
    bound = f"ε ≥ {result.epsilon_lower:.3g} ({conf})"
    if result.reject:
        head = f"VIOLATION: {bound} > claimed ε = {result.epsilon:.3g}"
    else:
        head = (f"no violation found at N = {result.n_samples:,}: {bound} ≤ claimed "
                f"ε = {result.epsilon:.3g}")
    tail = f"event {result.event} ({result.direction}"
    if result.exact_epsilon is not None:
        tail += f", exact loss {result.exact_epsilon:.3g}"
    tail += f"); neighbours {result.neighbours}"
    if neighbours_epsilon is not None:
        tail += f" (exact ε {neighbours_epsilon:.3g})"
    return [head, *textwrap.wrap(tail, 100)]


def audit_explorer_chart(mechanism: str, epsilon: float, n_samples: float) -> alt.TopLevelMixin:
    """The explorer: audit the setup ``mechanism`` (N from the log slider) and draw it.

    The chosen event's intervals beside every candidate's loss (exact where known); the
    verdict is the title, red for a violation.
    """
    n = round(n_samples)
    setup = make_setup(mechanism, float(epsilon), n)
    result = targets.audit_setup(setup, n)
    exact = None
    if setup.law is not None and setup.law_prime is not None:
        exact = exact_event_losses(result.selection["event"], setup.law, setup.law_prime)
    lines = verdict(result, setup.exact_epsilon)
    return alt.hconcat(
        audit_histogram_chart(result, width=200),
        privacy_loss_chart(result, exact=exact, width=380),
    ).properties(
        title=alt.TitleParams(
            lines[0], subtitle=lines[1:], anchor="start",
            color="firebrick" if result.reject else "darkgreen",
        )
    )


#: Largest N of the explorer's slider: every setup's audit stays under a second on 2 cores
#: (``bench/slider_extremes.py``).
MAX_SAMPLES = 300_000


def samples_slider(value: int = 20_000, low: int = 1_000, high: int = MAX_SAMPLES
                   ) -> widgets.FloatLogSlider:
    """A log-scale slider for the number of samples per neighbour N."""
    return widgets.FloatLogSlider(
        value=value, base=10, min=math.log10(low), max=math.log10(high), step=0.1,
        description="N", readout_format=",.0f", continuous_update=False,
        layout=widgets.Layout(min_width=f"{SLIDER_MIN_WIDTH}px", flex="0 0 auto"),
    )


def exact_ratio_chart(name: str = "discrete Laplace count", epsilon: float = 1.0, *,
                      window: int = 8) -> alt.TopLevelMixin:
    """Exact P[M(D) = x], P[M(D′) = x] of a discrete setup (counts: ± ``window``), log-ratio."""
    s = make_setup(name, epsilon)
    if not isinstance(s.law, DiscreteLaw) or not isinstance(s.law_prime, DiscreteLaw):
        raise InvalidParameterError(f"{name!r} has no discrete exact law")
    x = np.union1d(s.law.support, s.law_prime.support)
    if len(x) > 2 * window + 2:
        x = x[(x >= targets.COUNT - window) & (x <= targets.COUNT_PRIME + window)]
    p = np.array([s.law.prob("=", v) for v in x])
    q = np.array([s.law_prime.prob("=", v) for v in x])
    frame = pd.DataFrame({"output": x, "D": p, "D'": q})
    long = frame.melt("output", var_name="neighbour", value_name="probability")
    with np.errstate(divide="ignore"):
        frame["log_ratio"] = np.log(p) - np.log(q)
    frame = frame[np.isfinite(frame["log_ratio"])]
    top = alt.Chart(long, width=420, height=160, title=f"{name}: exact output probabilities"
                    ).mark_bar(opacity=0.7).encode(
        x=alt.X("output:O", title="output x"),
        xOffset="neighbour:N",
        y=alt.Y("probability:Q", title="P[output = x]"),
        color=alt.Color("neighbour:N", title=None),
        tooltip=["neighbour", "output", alt.Tooltip("probability:Q", format=".4g")],
    )
    ratio = alt.Chart(frame, width=420, height=140,
                      title="log P[M(D) = x] / P[M(D′) = x] stays within ±ε").mark_point(
        filled=True, color="black").encode(
        x=alt.X("output:O", title="output x"),
        y=alt.Y("log_ratio:Q", title="log-ratio"),
        tooltip=["output", alt.Tooltip("log_ratio:Q", format=".3f")],
    )
    band = alt.Chart(pd.DataFrame({"y": [epsilon, -epsilon]})).mark_rule(
        strokeDash=[6, 4], color="firebrick").encode(y="y:Q")
    return alt.vconcat(top, ratio + band)


# ------------------------------------------------------------------------------ tables
def results_frame(results: dict[str, AuditResult],
                  exact: dict[str, float | None] | None = None) -> pd.DataFrame:
    """One row per audit; ``exact loss`` of the chosen event, ``exact ε`` (name → ε) if given."""
    rows = []
    for name, r in results.items():
        row = {"mechanism": name, "neighbours": r.neighbours, "claimed ε": r.epsilon,
               "N": r.n_samples, "event": r.event, "P[D]": r.p.estimate,
               "P[D']": r.p_prime.estimate, "ε lower bound": r.epsilon_lower,
               "exact loss": r.exact_epsilon,
               "verdict": "VIOLATION" if r.reject else "no violation found"}
        if exact is not None:
            row["exact ε"] = exact.get(name)
        rows.append(row)
    return pd.DataFrame(rows)


@ships  # the notebook's call reads its shipped result
def audit_table(epsilon: float = 1.0, n_samples: int = 100_000, seed: int = 0,
                names: Sequence[str] = SETUPS) -> pd.DataFrame:
    """Every setup audited at the same claimed ε and N (:func:`results_frame`, with ``exact ε``)."""
    setups = {n: make_setup(n, float(epsilon), int(n_samples)) for n in names}
    results = {n: targets.audit_setup(s, int(n_samples), seed) for n, s in setups.items()}
    return results_frame(results, {n: s.exact_epsilon for n, s in setups.items()})


@ships  # the notebook's call reads its shipped result
def bound_growth(epsilon: float = 0.5,
                 sizes: Sequence[int] = (1_000, 3_000, 10_000, 30_000, 100_000),
                 names: Sequence[str] = (
                     "FI 2017 smooth-sensitivity label (withdrawn)",
                     "Laplace count with half the noise",
                     "ROSNAM leaf label (FI forest, corrected)",
                     "discrete Laplace count",
                 ), seed: int = 0) -> pd.DataFrame:
    """The ε lower bound against N (leaf labels: the neighbours chosen for the largest N)."""
    chosen = {}
    for name in names:
        s = make_setup(name, epsilon, max(sizes))
        chosen[f"{name}: {s.neighbours}"] = (s.mechanism, s.D, s.D_prime)
    return bound_vs_samples(chosen, epsilon=epsilon, sizes=sizes, seed=seed)


# ------------------------------------------------------------------------------ story 1
@ships  # the notebook's call reads its shipped result
def addendum_table6(n_samples: int = 100_000, seed: int = 0) -> pd.DataFrame:
    """FI addendum Table 6 (notebook 05's ``fi_table6``) with sampled Pr(B), loss of f_B + 1."""
    from dpviz.explore.fi import fi_table6  # notebook 05's module loads the FI forest

    eps, rng = 0.1, np.random.default_rng(seed)
    sampler = targets.smooth_sensitivity_leaf_label(eps)
    table, counts = fi_table6(eps), FI_TABLE6[["f_A", "f_B"]].to_numpy()
    return pd.DataFrame({
        "f_A": table["f_A"], "f_B": table["f_B"], "paper original Pr(B) %": table["original_paper"],
        "ours exact %": table["original"], f"ours sampled % ({n_samples:,} draws)": [
            100 * float(np.mean(sampler(c, n_samples, rng) == 1)) for c in counts],
        "paper new Pr(B) %": table["new_paper"], "ours softmax exp(ε·f) %": table["softmax"],
        "exact loss, f_B + 1": [smooth_sensitivity_loss(c, c + np.array([0, 1]), eps)
                                for c in counts],
    })


def _smooth_grid(epsilon: float) -> tuple[int, ...]:
    """Leaf sizes searched at ``epsilon``: the revealing leaves have m·ε of order 2–5."""
    if epsilon >= 0.5:
        return (1, 2, 3, 4, 5, 6, 8, 10)
    return tuple(int(m) for m in np.unique(np.round(np.linspace(1, 8, 15) / epsilon)))


@ships  # the notebook's call reads its shipped result
def smooth_sensitivity_story(epsilons: Sequence[float] = (1.0, 0.5, 0.1), *,
                             n_search: int = 10_000, n_samples: int = 100_000,
                             seed: int = 0) -> pd.DataFrame:
    """Story 1: search the neighbours that break the FI 2017 label, audit them, exact loss."""
    rows = []
    for eps in epsilons:
        pairs = leaf_count_neighbours(_smooth_grid(eps))
        r = search_neighbours(
            targets.smooth_sensitivity_leaf_label(eps), pairs, epsilon=eps, n_search=n_search,
            n_samples=n_samples, seed=seed,
            exact=lambda a, b, eps=eps: smooth_sensitivity_loss(a, b, eps),
        )
        rows.append({
            "claimed ε": eps, "pairs searched": len(pairs), "neighbours found": r.neighbours,
            "event": r.event, "measured ε lower bound": r.epsilon_lower,
            "exact loss": r.exact_epsilon, "exact loss / ε": r.exact_epsilon / eps,
            "addendum's estimate": 2 * eps,
            "verdict": "VIOLATION" if r.reject else "no violation found",
        })
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ stories 2, 3
def pruned_tree_audit(n_samples: int = 500, seed: int = 0) -> AuditResult:
    """Story 2: the pruned random tree (JPW Fig. 3–4): "3 leaves" is impossible under D."""
    domain, D, D_prime = targets.pruned_tree_problem()
    return audit(targets.pruned_tree_leaves(domain), D, D_prime, epsilon=1.0,
                 n_samples=n_samples, seed=seed, exact_epsilon=math.inf,
                 neighbours="6 rows with a = 0 vs the same plus one row with a = 1")


def tiny_problem() -> tuple[Domain, np.ndarray, np.ndarray, np.ndarray]:
    """The whole-estimator audits' data: 20 rows, 3 binary attributes, and a canary (1, 1, 1)."""
    domain = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
    rng = np.random.default_rng(0)
    X = rng.choice(["0", "1"], (20, 3)).astype(object)
    y = rng.choice(["n", "y"], 20).astype(object)
    canary = np.array([["1", "1", "1"]], dtype=object)
    return domain, X, y, canary


def budget_split_audits(n_samples: int = 150, n_trees: int = 10, max_depth: int = 3,
                        epsilon: float = 1.0, seed: int = 0) -> dict[str, AuditResult]:
    """Story 3: trees all reading every row at the full ε, and the FI forest: votes for "y"."""
    domain, X, y, canary = tiny_problem()
    codes, labels = domain.encode(X), domain.encode_labels(y)
    wrong = targets.forest_reading_all_rows_with_full_epsilon(
        domain, canary, epsilon=epsilon, n_trees=n_trees, max_depth=max_depth)
    right = targets.forest_votes(domain, canary, epsilon=epsilon, n_trees=n_trees,
                                 max_depth=max_depth)
    neighbours = "20 rows vs 20 rows + the canary"
    return {
        f"{n_trees} trees, every tree reads every row at ε (wrong)": audit(
            wrong, (codes, labels),
            (np.vstack([codes, domain.encode(canary)]), np.append(labels, 1)),
            epsilon=epsilon, n_samples=n_samples, seed=seed, neighbours=neighbours),
        f"{n_trees} trees, disjoint rows (FI forest)": audit(
            right, (X, y), (np.vstack([X, canary]), np.append(y, "y")),
            epsilon=epsilon, n_samples=n_samples, seed=seed, neighbours=neighbours),
    }


def estimator_audits(n_samples: int = 10_000, epsilon: float = 1.0,
                     seed: int = 0) -> dict[str, AuditResult]:
    """Whole estimators (Private-RDT, 3 trees; FI forest, 5 trees): the canary's prediction."""
    from dpviz.trees.forest import DPRandomForestClassifier  # scikit-learn: when a story fits
    from dpviz.trees.rdt import PrivateRDTClassifier

    domain = tiny_problem()[0]
    makers = {
        "Private-RDT (3 trees)": lambda s: PrivateRDTClassifier(
            epsilon=epsilon, n_trees=3, domain=domain, random_state=s),
        "FI forest (5 trees, depth 3)": lambda s: DPRandomForestClassifier(
            epsilon=epsilon, n_trees=5, max_depth=3, domain=domain, random_state=s),
    }
    return _canary_audits(makers, n_samples, epsilon, seed)


def _canary_audits(makers: dict, n_samples: int, epsilon: float,
                   seed: int) -> dict[str, AuditResult]:
    _, X, y, canary = tiny_problem()
    D = (X, y)
    D_prime = (np.vstack([X, canary]), np.append(y, "y"))
    return {
        name: audit(estimator_mechanism(make, canary), D, D_prime, epsilon=epsilon,
                    n_samples=n_samples, seed=seed, neighbours="D vs D + canary")
        for name, make in makers.items()
    }


def estimator_power_audit(n_samples: int = 2_000, epsilon: float = 1.0,
                          seed: int = 0) -> AuditResult:
    """The same audit of an FI forest whose 5 trees all read every row at ε (5ε)."""
    from dpviz.trees.forest import DPRandomForestClassifier  # scikit-learn: when a story fits

    domain = tiny_problem()[0]
    broken = {
        "FI forest, 5 trees reading every row at ε (5ε)": lambda s: DPRandomForestClassifier(
            epsilon=5 * epsilon, n_trees=5, max_depth=3, disjoint=False, domain=domain,
            random_state=s),
    }
    return next(iter(_canary_audits(broken, n_samples, epsilon, seed).values()))


def floating_point_audits(epsilon: float = 1.0, n_samples: int = 100_000,
                          seed: int = 0) -> dict[str, AuditResult]:
    """Mironov (2012): float Laplace leaks through its low bits; the discrete Laplace does not."""
    return {
        name: run_audit(name, epsilon, n_samples, seed)
        for name in ("float Laplace count, lattice events (Mironov 2012)",
                     "discrete Laplace count, lattice events")
    }


# ------------------------------------------------------------------------------ three lessons

def threshold_lattice_audits(n_samples: int = 4_000, seed: int = 0) -> dict[str, AuditResult]:
    """A split point drawn uniformly inside data ranges (FS §4.3), and from the public grid."""
    low, high = targets.THRESHOLD_RANGE
    grid_domain, D, D_prime, events = targets.threshold_problem()
    targets_ = {
        "FS §4.3 as printed: uniform inside a data range": targets.split_point_continuous(
            low, high, epsilon=1.0),
        "dpviz: a point of the public grid": targets.split_point_grid(grid_domain, epsilon=1.0),
    }
    return {
        name: audit(mechanism, D, D_prime, epsilon=1.0, events=events, n_samples=n_samples,
                    seed=seed, neighbours="values {1} vs {1, 2} on [0, 1e6]")
        for name, mechanism in targets_.items()
    }


def reused_noise_audits(n_samples: int = 20_000, seed: int = 0) -> dict[str, AuditResult]:
    """Two releases of a growing count (D2 of 3 vs 4 rows), with the same and with fresh noise."""
    return {
        name: audit(targets.reused_noise_releases(1.0, same_noise=same), (10, 3), (10, 4),
                    epsilon=2.0, n_samples=n_samples, seed=seed,
                    neighbours="D2 of 3 rows vs 4 rows")
        for name, same in (("same noise in both releases (reseeded generator)", True),
                           ("fresh noise for each release (dpviz)", False))
    }


def model_object_audits(n_samples: int = 1_000, seed: int = 0) -> dict[str, AuditResult]:
    """The fitted Private-RDT object (its visited leaves) vs its release, on the same neighbours."""
    from dpviz.audit.suite import categorical_problem, rdt_leaf_target  # every estimator

    release = rdt_leaf_target(1.0)
    return {
        "the object: number of visited leaves (a curator secret)": audit(
            targets.fitted_object_visited_leaves(categorical_problem()[0]), release.D,
            release.D_prime, epsilon=1.0, n_samples=n_samples, seed=seed,
            neighbours="6 rows vs + canary"),
        "the release: noisy counts of the canary's leaf": audit(
            release.mechanism, release.D, release.D_prime, epsilon=1.0, n_samples=n_samples,
            seed=seed, neighbours="6 rows vs + canary"),
    }


# ------------------------------------------------------------------------------ shipped stories
#: The stories that train estimators thousands of times: notebook 06 reads their shipped
#: results (``make results``); ``recompute=True`` runs them again.
STORIES: dict[str, Callable[..., dict[str, AuditResult]]] = {
    "estimator_audits": estimator_audits,
    "estimator_power_audit": lambda n_samples, seed=0: {
        "FI forest, 5 trees reading every row at ε (5ε)": estimator_power_audit(
            n_samples, seed=seed)},
    "pruned_tree_audit": lambda n_samples, seed=0: {
        "pruned random tree (JPW Fig. 3-4)": pruned_tree_audit(n_samples, seed)},
    "budget_split_audits": budget_split_audits,
    "threshold_lattice_audits": threshold_lattice_audits,
    "model_object_audits": model_object_audits,
}


def story_frame(story: str, n_samples: int, seed: int = 0) -> pd.DataFrame:
    """One story's audits as one tidy frame (:func:`dpviz.audit.engine.audits_frame`)."""
    return audits_frame(STORIES[story](n_samples=n_samples, seed=seed))


def story_results(story: str, n_samples: int, *, recompute: bool | None = None,
                  seed: int = 0) -> dict[str, AuditResult]:
    """A story's audits, read from its shipped file (or run again: ``recompute=True``)."""
    return audits_from_frame(result(story_frame, story, n_samples, seed=seed,
                                    recompute=recompute))


#: What notebook 06's shipped audits run: full (shipped) and a quick version (trainings or
#: samples per neighbour, by story).
REPRODUCTION_SETTINGS = {
    "quick": {"pruned_tree_audit": 500, "budget_split_audits": 150, "estimator_audits": 1000,
              "estimator_power_audit": 1000, "threshold_lattice_audits": 4000,
              "model_object_audits": 1000},
    "full": {"pruned_tree_audit": 500, "budget_split_audits": 400, "estimator_audits": 2000,
             "estimator_power_audit": 2000, "threshold_lattice_audits": 4000,
             "model_object_audits": 1000},
}


def reproduction_settings(quick: bool | None = None) -> dict:
    """What notebook 06's audits run: full (shipped) or quick (None: the run mode's)."""
    return settings(REPRODUCTION_SETTINGS, quick)


def story(name: str) -> dict[str, AuditResult]:
    """Story ``name``'s audits at the notebook's sizes (:data:`REPRODUCTION_SETTINGS`), as shipped.

    Recomputed under ``DPVIZ_RECOMPUTE=1`` (with ``DPVIZ_QUICK=1``: fewer trainings).
    """
    return story_results(name, reproduction_settings()[name])


def _story_call(name: str) -> Callable[[], dict[str, AuditResult]]:
    def call() -> dict[str, AuditResult]:
        return story(name)

    call.__name__ = f"story({name!r})"
    return call


#: The notebook's shipped reproductions (``make results`` recomputes them), and its tables
#: (:func:`dpviz.explore.ships`) at the notebook's arguments (here their defaults).
SHIPPED = (*(_story_call(name) for name in STORIES), audit_table, smooth_sensitivity_story,
           bound_growth, addendum_table6)


class SuiteRow(NamedTuple):
    """One release path × option of the audit suite, as ``claims.csv`` lists it."""

    family: str
    estimator: str
    option: str
    role: str
    bug: str | None  # the planted bug's description; None without one


def suite_rows() -> list[SuiteRow]:
    """The audit suite's rows (:func:`dpviz.audit.suite.cases`, in its order) without their targets.

    ``cases()`` builds every target, which imports every estimator (with scikit-learn and
    SciPy, about a second); its rows come from this same table, and it refuses a table whose
    bugs disagree with its targets (``make test`` runs it).
    """
    text = files("dpviz.audit").joinpath("claims.csv").read_text(encoding="utf-8")
    return [SuiteRow(row["family"], row["estimator"], row["option"], row["role"],
                     row["bug"] or None) for row in csv.DictReader(text.splitlines())]


# ====================================================================== exercises 06.1–06.4
# One exercise in one place: the question (the notebook asks it in full), the check's settings,
# its hint, and the worked answer the instructor's key returns (dpviz.ui.exercises.solution;
# never shown in the notebook). Registered at the end.

# --- 06.1 · When does "twice" fail? At ε = 0.4 (not a column of notebook 05's loss table, so
# the answer cannot be read off it), the smallest j for which the exact loss of the withdrawn
# FI 2017 label between the pure leaves (j, 0) and (j + 1, 0) exceeds the addendum's "twice"
# the claim, 2ε.
#: Exercise 06.1's claimed ε.
EXERCISE_1_EPSILON = 0.4


# --- answer: start (the worked answer: cut from the students' copy)
def first_leaf_past_twice(epsilon: float = EXERCISE_1_EPSILON) -> int:
    """The smallest j with smooth_sensitivity_loss((j, 0), (j + 1, 0), ε) > 2ε."""
    j = 0
    while smooth_sensitivity_loss((j, 0), (j + 1, 0), epsilon) <= 2 * epsilon:
        j += 1
    return j
# --- answer: end


TWICE_FAILS = Exercise(
    answer=float(first_leaf_past_twice()), tolerance=0.0,
    bounds=Range(0.0, math.inf, "a number of rows"),
    hint="for j = 0, 1, 2, …: the label probabilities of both leaves at ε = 0.4, then the larger "
         "of the two absolute log-ratios (one per label); stop at the first j whose loss is "
         "above 2 × 0.4 = 0.8",
)


# --- 06.2 · How far an impossible output reaches: the audit's bound for an output seen 0 of n
# times under D and n of n under D′, with 1,600 estimation samples (of 2,000).
#: Exercise 06.2: estimation samples per neighbour (of 2,000; story 2 estimates on 400).
EXERCISE_2_N = 1_600


# --- answer: start (the worked answer: cut from the students' copy)
def impossible_output_bound(n_estimation: int, alpha: float = 0.05) -> float:
    """The audit's bound for an output seen 0 of n times under D and n of n under D′ (~log n)."""
    low, _ = clopper_pearson(n_estimation, n_estimation, alpha / 2)
    _, high = clopper_pearson(0, n_estimation, alpha / 2)
    return float(np.log(low) - np.log(high))
# --- answer: end


IMPOSSIBLE_OUTPUT = Exercise(
    answer=impossible_output_bound(EXERCISE_2_N), tolerance=0.005,
    hint="check your formula first with n = 400: it must give story 2's bound; then use the "
         "number of estimation samples, not all 2,000",
)


# --- 06.3 · Break a mechanism in one specific way: half_sensitivity_count(count, n, rng), n
# Laplace releases calibrated to a sensitivity of one half at the claimed ε = 1.
def half_sensitivity_laplace_law(count: Any) -> ContinuousLaw:
    """Exercise 06.3's broken release: Laplace of scale 0.5 (sensitivity read as 1/2, ε = 1)."""
    return ContinuousLaw(lambda x: float(laplace_cdf(x, loc=float(count), scale=0.5)))


# --- answer: start (the worked answer: cut from the students' copy)
def _half_sensitivity_count(count: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    return count + rng.laplace(0.0, 0.5 / 1.0, size=n)  # scale Δ/ε with Δ read as 1/2
# --- answer: end


HALF_SENSITIVITY = BreakTask(
    D=targets.COUNT, D_prime=targets.COUNT_PRIME, exact=half_sensitivity_laplace_law,
    epsilon=1.0,
    hint="the analyst followed the Laplace mechanism (your laplace_mech of 01.1) to the letter, "
         "with a wrong sensitivity; return an array of n releases",
    solution=_half_sensitivity_count,
)


# --- 06.4 · Forget to split ε: forgot_split(count, n, rng), the means of 5 discrete Laplace
# answers each at the whole ε = 1 (numpy's geometric noise), n of them.
def unsplit_average_law(count: Any) -> DiscreteLaw:
    """Exercise 06.4's broken release: the mean of 5 discrete-Laplace answers at ε = 1 each."""
    return targets.averaged_count_law(int(count), 1.0, 5)


# --- answer: start (the worked answer: cut from the students' copy)
def _forgot_split(count: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    p = -math.expm1(-1.0)  # each of the 5 answers at the whole ε = 1
    answers = count + rng.geometric(p, size=(n, 5)) - rng.geometric(p, size=(n, 5))
    return answers.mean(axis=1)
# --- answer: end


UNSPLIT_AVERAGE = BreakTask(
    D=targets.COUNT, D_prime=targets.COUNT_PRIME, exact=unsplit_average_law, epsilon=1.0,
    hint="five independent discrete Laplace answers per release (your geometric_mech of 01.2, "
         "vectorized), each at the budget the analyst forgot to divide; return the n means "
         "answers.mean(axis=1)",
    solution=_forgot_split,
)

register({"06.1": TWICE_FAILS, "06.2": IMPOSSIBLE_OUTPUT, "06.3": HALF_SENSITIVITY,
          "06.4": UNSPLIT_AVERAGE})
