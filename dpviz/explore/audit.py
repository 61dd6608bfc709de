"""Notebook 06 (privacy audit): the audit explorer, the three caught failures and the exercises.

The library side of ``notebooks/06_privacy_audit.ipynb``:

* :data:`SETUPS` — the mechanisms the explorer can audit, correct ones and broken ones,
  each with its neighbours, its candidate events and (where known) its exact output
  distribution; :func:`run_audit` audits one of them and :func:`audit_explorer_chart` is
  the explorer's callback (histogram with intervals, privacy-loss profile with the exact
  curve, and the verdict);
* :func:`exact_ratio_chart` — "DP is a bound on a ratio", drawn from exact probabilities;
* the stories: :func:`smooth_sensitivity_story` (FI 2017, withdrawn in 2021),
  :func:`addendum_table6` (the addendum's Table 6 beside our exact numbers),
  :func:`pruned_tree_audit` (JPW Fig. 3–4), :func:`budget_split_audits` (a forest that
  reads every row in every tree with the full ε), :func:`estimator_audits` (whole
  estimators, end to end) and :func:`floating_point_audits` (Mironov 2012);
* the exercises: ``06.1`` and ``06.2`` (numbers, checked by :func:`dpviz.ui.exercises.check`)
  and ``06.3`` / ``06.4`` (a broken mechanism the student writes, checked by
  :func:`check_broken`, which audits it).

Every audit here has a fixed seed, so a call always gives the same result.
"""

from __future__ import annotations

import functools
import math
import textwrap
import time
from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
import numpy as np
import pandas as pd
from scipy import stats

from dpviz import mechanisms
from dpviz.audit import targets
from dpviz.audit.engine import (
    AuditResult,
    Interval,
    audit,
    bound_vs_samples,
    clopper_pearson,
    estimator_mechanism,
    leaf_count_neighbours,
    search_neighbours,
    uniform_lattice_events,
)
from dpviz.audit.exact_laws import (
    ContinuousLaw,
    DiscreteLaw,
    exact_event_losses,
    smooth_sensitivity_loss,
)
from dpviz.audit.setups import (
    BROKEN,
    CORRECT,
    SETUPS,
    AuditSetup,
    averaged_count,
    averaged_count_law,
    event_loss,
    laplace_count_with_scale,
    make_setup,
    run_audit,
)
from dpviz.audit.suite import categorical_problem, fit_release, with_row
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.experiments.shipped import result
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.ui.exercises import BreakTask, Exercise, register
from dpviz.ui.plots import audit_histogram_chart, privacy_loss_chart
from dpviz.ui.widgets import SLIDER_MIN_WIDTH

__all__ = [
    "ADDENDUM_TABLE6",
    "BROKEN",
    "CORRECT",
    "MAX_SAMPLES",
    "SETUPS",
    "AuditSetup",
    "addendum_table6",
    "audit_explorer_chart",
    "audit_table",
    "averaged_count",
    "bound_growth",
    "budget_split_audits",
    "estimator_audits",
    "estimator_power_audit",
    "event_loss",
    "exact_event_losses",
    "exact_ratio_chart",
    "floating_point_audits",
    "half_sensitivity_laplace_law",
    "impossible_output_bound",
    "laplace_count_with_scale",
    "make_setup",
    "model_object_audits",
    "pruned_tree_audit",
    "results_frame",
    "reused_noise_audits",
    "run_audit",
    "samples_slider",
    "smooth_sensitivity_loss",
    "smooth_sensitivity_story",
    "threshold_lattice_audits",
    "tiny_problem",
    "unsplit_average_law",
    "verdict",
]

Mechanism = Callable[[Any, int, np.random.Generator], np.ndarray]

#: Neighbouring leaves searched for the leaf-label mechanisms (sizes m of leaf_count_neighbours).
LEAF_GRID: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 30, 40, 50, 70, 100, 150)

#: The count audited by the count mechanisms: 10 rows against 11 (one row added).
COUNT, COUNT_PRIME = 10, 11


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
    """The explorer's callback: audit ``mechanism`` and draw the result.

    Parameters
    ----------
    mechanism : str
        One of :data:`SETUPS`.
    epsilon : float
        The claimed ε.
    n_samples : float
        Samples per neighbour (rounded to an int; the slider is logarithmic).

    Returns
    -------
    altair chart
        The chosen event's probabilities under D and D′ with their intervals, next to the
        privacy-loss profile of every candidate event (with the exact curve where known);
        the verdict is the title (red for a violation).
    """
    n = round(n_samples)
    result = run_audit(mechanism, float(epsilon), n)
    setup = make_setup(mechanism, float(epsilon), n)
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


#: Largest N (samples per neighbour) of the explorer's slider. An audit's cost grows with
#: N (each move samples the mechanism 2N times and scores every candidate event): up to
#: this N every setup's audit stays under a second on a 2-core machine
#: (``bench/slider_extremes.py``; the exponential mechanism took 2.2 s at N = 1,000,000).
#: The notebook's whole-estimator audits run larger N outside the explorer.
MAX_SAMPLES = 300_000


def samples_slider(value: int = 20_000, low: int = 1_000, high: int = MAX_SAMPLES
                   ) -> widgets.FloatLogSlider:
    """A log-scale slider for the number of samples per neighbour N (up to :data:`MAX_SAMPLES`)."""
    return widgets.FloatLogSlider(
        value=value, base=10, min=math.log10(low), max=math.log10(high), step=0.1,
        description="N", readout_format=",.0f", continuous_update=False,
        layout=widgets.Layout(min_width=f"{SLIDER_MIN_WIDTH}px", flex="0 0 auto"),
    )


# ------------------------------------------------------------------------------ DP as a ratio
def exact_ratio_chart(name: str = "discrete Laplace count", epsilon: float = 1.0, *,
                      window: int = 8) -> alt.TopLevelMixin:
    """Exact output probabilities under D and D′ and their log-ratio against ±ε.

    For setups with a discrete exact law (counts and labels). The top panel shows
    P[M(D) = x] and P[M(D′) = x]; the bottom one log(P[M(D) = x] / P[M(D′) = x]), which
    ε-DP keeps inside the band ±ε.

    Parameters
    ----------
    name : str
        A setup of :data:`SETUPS` with a discrete exact law.
    epsilon : float
        The claimed ε.
    window : int
        For counts: show outputs within this distance of the count.
    """
    s = make_setup(name, epsilon)
    if not isinstance(s.law, DiscreteLaw) or not isinstance(s.law_prime, DiscreteLaw):
        raise InvalidParameterError(f"{name!r} has no discrete exact law")
    x = np.union1d(s.law.support, s.law_prime.support)
    if len(x) > 2 * window + 2:
        x = x[(x >= COUNT - window) & (x <= COUNT_PRIME + window)]
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
    """One row per audit: neighbours, claim, chosen event, probabilities, bound, verdict.

    ``exact loss`` is the exact loss of the chosen event (``AuditResult.exact_epsilon``);
    ``exact`` (name → ε) adds the neighbours' exact ε as a column ``exact ε``.
    """
    rows = []
    for name, r in results.items():
        row = {
            "mechanism": name,
            "neighbours": r.neighbours,
            "claimed ε": r.epsilon,
            "N": r.n_samples,
            "event": r.event,
            "P[D]": r.p.estimate,
            "P[D']": r.p_prime.estimate,
            "ε lower bound": r.epsilon_lower,
            "exact loss": r.exact_epsilon,
            "verdict": "VIOLATION" if r.reject else "no violation found",
        }
        if exact is not None:
            row["exact ε"] = exact.get(name)
        rows.append(row)
    return pd.DataFrame(rows)


def audit_table(epsilon: float = 1.0, n_samples: int = 100_000, seed: int = 0,
                names: Sequence[str] = SETUPS) -> pd.DataFrame:
    """Audit every setup at the same claimed ε and N (the notebook's "audit of each mechanism").

    Columns as :func:`results_frame`, with ``exact loss`` (of the chosen event) and
    ``exact ε`` (of the neighbours).
    """
    results = {n: run_audit(n, float(epsilon), int(n_samples), seed) for n in names}
    exact = {n: make_setup(n, float(epsilon), int(n_samples)).exact_epsilon for n in names}
    return results_frame(results, exact)


def bound_growth(epsilon: float = 0.5,
                 sizes: Sequence[int] = (1_000, 3_000, 10_000, 30_000, 100_000),
                 names: Sequence[str] = (
                     "FI 2017 smooth-sensitivity label (withdrawn)",
                     "Laplace count with half the noise",
                     "ROSNAM leaf label (FI forest, corrected)",
                     "discrete Laplace count",
                 ), seed: int = 0) -> pd.DataFrame:
    """The ε lower bound against N for broken and correct setups (for ``epsilon_bound_chart``).

    The leaf labels use the neighbours chosen for the largest N, the same at every N.
    """
    chosen = {}
    for name in names:
        s = make_setup(name, epsilon, max(sizes))
        chosen[f"{name}: {s.neighbours}"] = (s.mechanism, s.D, s.D_prime)
    return bound_vs_samples(chosen, epsilon=epsilon, sizes=sizes, seed=seed)


# ------------------------------------------------------------------------------ story 1
#: FI addendum (2021) Table 6: leaf counts (f_A, f_B) at ε = 0.1 and the probability (%) of
#: outputting the majority label B, with the original smooth-sensitivity mechanism and with
#: the updated formula exp(ε·f_c). (Could move to dpviz.data.published.)
ADDENDUM_TABLE6 = pd.DataFrame(
    {
        "f_A": [5, 105, 0, 0, 10, 10],
        "f_B": [10, 110, 1, 10, 50, 60],
        "paper original Pr(B) %": [52.1, 52.1, 51.4, 53.4, 93.8, 99.9],
        "paper new Pr(B) %": [62.2, 62.2, 52.5, 73.1, 98.2, 99.3],
    }
)


def addendum_table6(n_samples: int = 100_000, seed: int = 0) -> pd.DataFrame:
    """The addendum's Table 6 beside our exact and sampled probabilities, and the privacy loss.

    Columns: the paper's "original" Pr(B) (the FI 2017 smooth-sensitivity label), ours exact
    (:func:`dpviz.mechanisms.smooth_sensitivity_label_probabilities`) and sampled
    (``n_samples`` draws of the sampler, fixed seed); the paper's "new" Pr(B) beside the
    softmax exp(ε·f_c) it computes; and the exact privacy loss of the original mechanism
    when one record of class B is added (f_B + 1), to compare with the claimed ε = 0.1.
    """
    eps = 0.1
    rng = np.random.default_rng(seed)
    sampler = targets.smooth_sensitivity_leaf_label(eps)
    rows = []
    for row in ADDENDUM_TABLE6.itertuples(index=False):
        counts = np.array([row.f_A, row.f_B])
        exact = mechanisms.smooth_sensitivity_label_probabilities(counts, epsilon=eps)[1]
        sampled = float(np.mean(sampler(counts, n_samples, rng) == 1))
        softmax = mechanisms.exponential_probabilities(counts.astype(float), epsilon=eps,
                                                       sensitivity=1.0, monotone=True)[1]
        rows.append({
            "f_A": row.f_A,
            "f_B": row.f_B,
            "paper original Pr(B) %": row[2],
            "ours exact %": 100 * exact,
            f"ours sampled % ({n_samples:,} draws)": 100 * sampled,
            "paper new Pr(B) %": row[3],
            "ours softmax exp(ε·f) %": 100 * softmax,
            "exact loss, f_B + 1": smooth_sensitivity_loss(counts, counts + np.array([0, 1]), eps),
        })
    return pd.DataFrame(rows)


def _smooth_grid(epsilon: float) -> tuple[int, ...]:
    """Leaf sizes searched at ``epsilon``: the revealing leaves have m·ε of order 2–5."""
    if epsilon >= 0.5:
        return (1, 2, 3, 4, 5, 6, 8, 10)
    return tuple(int(m) for m in np.unique(np.round(np.linspace(1, 8, 15) / epsilon)))


def smooth_sensitivity_story(epsilons: Sequence[float] = (1.0, 0.5, 0.1), *,
                             n_search: int = 10_000, n_samples: int = 100_000,
                             seed: int = 0) -> pd.DataFrame:
    """Story 1: find the neighbours that break the FI 2017 label, and measure its loss.

    For each claimed ε: :func:`dpviz.audit.engine.search_neighbours` over
    :func:`dpviz.audit.engine.leaf_count_neighbours` (``n_search`` samples per candidate pair),
    then a fresh audit of ``n_samples`` on the best pair; the exact loss of that pair is
    reported beside the measured lower bound, and the addendum's estimate (about 2ε).
    """
    rows = []
    for eps in epsilons:
        grid = _smooth_grid(eps)
        pairs = leaf_count_neighbours(grid)
        start = time.perf_counter()
        r = search_neighbours(
            targets.smooth_sensitivity_leaf_label(eps), pairs, epsilon=eps, n_search=n_search,
            n_samples=n_samples, seed=seed,
            exact=lambda a, b, eps=eps: smooth_sensitivity_loss(a, b, eps),
        )
        rows.append({
            "claimed ε": eps,
            "pairs searched": len(pairs),
            "neighbours found": r.neighbours,
            "event": r.event,
            "measured ε lower bound": r.epsilon_lower,
            "exact loss": r.exact_epsilon,
            "exact loss / ε": r.exact_epsilon / eps,
            "addendum's estimate": 2 * eps,
            "verdict": "VIOLATION" if r.reject else "no violation found",
            "seconds": time.perf_counter() - start,
        })
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ stories 2, 3
def pruned_tree_domain() -> tuple[Domain, tuple[Any, Any], tuple[Any, Any]]:
    """JPW Fig. 3 in miniature: two binary attributes; D′ adds the only row with a = 1."""
    domain = Domain([Categorical("a", ("0", "1")), Categorical("b", ("0", "1"))], ["-", "+"])
    X = pd.DataFrame({"a": ["0"] * 6, "b": ["0", "1"] * 3})
    y = ["-", "+"] * 3
    X_prime = pd.concat([X, pd.DataFrame({"a": ["1"], "b": ["1"]})], ignore_index=True)
    return domain, (X, y), (X_prime, [*y, "+"])


@functools.lru_cache(maxsize=8)
def pruned_tree_audit(n_samples: int = 500, seed: int = 0) -> AuditResult:
    """Story 2: the non-private random tree with pruning (JPW Fig. 1, 3–4), claimed ε = 1.

    The released number of non-empty leaves is 2 on D and 3 on D′: the output "3 leaves"
    is impossible on D, so the exact loss is ∞ and the bound grows with N without limit.
    """
    domain, D, D_prime = pruned_tree_domain()
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


@functools.lru_cache(maxsize=8)
def budget_split_audits(n_samples: int = 150, n_trees: int = 10, max_depth: int = 3,
                        epsilon: float = 1.0, seed: int = 0) -> dict[str, AuditResult]:
    """Story 3: a forest whose trees all read every row with the full ε, and the correct one.

    Both release the number of trees voting for class "y" on the canary; D′ adds the
    canary with label "y". The wrong forest spends n_trees·ε (sequential composition:
    every tree reads the canary); the correct FI forest (disjoint rows per tree, ROSNAM
    labels) spends ε. At depth 3 every attribute is used, so the canary's leaf holds only
    the few rows equal to it and one more row moves each tree's vote noticeably.
    """
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


@functools.lru_cache(maxsize=8)
def estimator_audits(n_samples: int = 10_000, epsilon: float = 1.0,
                     seed: int = 0) -> dict[str, AuditResult]:
    """Whole-estimator audits: train on D and on D + canary, audit the canary's prediction.

    Private-RDT (3 trees) and the FI forest (5 trees, depth 3, ROSNAM) on
    :func:`tiny_problem`, ``n_samples`` trainings per neighbour.
    """
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


@functools.lru_cache(maxsize=8)
def estimator_power_audit(n_samples: int = 2_000, epsilon: float = 1.0,
                          seed: int = 0) -> AuditResult:
    """The whole-estimator audit's power: the same audit on a forest that overspends.

    The FI forest's 5 trees (depth 3) all read every row (``disjoint=False``) and each
    spends the full ``epsilon`` — 5ε in all, while claiming ε: the "forgot to split
    the budget" bug. Same :func:`tiny_problem`, canary and number of trainings as
    :func:`estimator_audits`, so a clean verdict there is read against this one.
    """
    domain = tiny_problem()[0]
    broken = {
        "FI forest, 5 trees reading every row at ε (5ε)": lambda s: DPRandomForestClassifier(
            epsilon=5 * epsilon, n_trees=5, max_depth=3, disjoint=False, domain=domain,
            random_state=s),
    }
    return next(iter(_canary_audits(broken, n_samples, epsilon, seed).values()))


@functools.lru_cache(maxsize=8)
def floating_point_audits(epsilon: float = 1.0, n_samples: int = 100_000,
                          seed: int = 0) -> dict[str, AuditResult]:
    """Mironov (2012): float Laplace leaks through its low bits; the discrete Laplace does not."""
    return {
        name: run_audit(name, epsilon, n_samples, seed)
        for name in ("float Laplace count, lattice events (Mironov 2012)",
                     "discrete Laplace count, lattice events")
    }


# ------------------------------------------------------------------------------ three more lessons
# (the adversarial review): a threshold's lattice, reused noise, the object vs its release
THRESHOLD_RANGE = (0.0, 1e6)


@functools.lru_cache(maxsize=4)
def threshold_lattice_audits(n_samples: int = 4_000, seed: int = 0) -> dict[str, AuditResult]:
    """A numeric split point drawn uniformly inside data-dependent ranges, and on a public grid.

    Neighbours: one value {1} vs {1, 2} on the public range [0, 1e6] (one class, so every
    split point has the same quality and ε plays no role). FS §4.3 as printed draws the
    threshold by ``rng.uniform(start, end)`` inside a score-constant range, whose ends are
    the rows' values: the doubles it can return differ between D ([1, 1e6]) and D′
    ([2, 1e6]). The event "off D's lattices" never happens under D and often under D′: ε =
    ∞. dpviz's DiffPC4.5 draws from the points of a public grid: the same event has the
    same probability under both.
    """
    low, high = THRESHOLD_RANGE
    D = (np.array([1.0]), np.zeros(1, dtype=np.int64))
    D_prime = (np.array([1.0, 2.0]), np.zeros(2, dtype=np.int64))
    events = uniform_lattice_events([(0.0, 1.0), (1.0, high)])
    grid_domain = Domain([Numeric("x", low, high)], (0,))
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


@functools.lru_cache(maxsize=4)
def reused_noise_audits(n_samples: int = 20_000, seed: int = 0) -> dict[str, AuditResult]:
    """Two releases of a growing count: with the same noise, and with fresh noise.

    D1 holds 10 rows; the batch D2 holds 3 rows (D) or 4 (D′). Release 1 counts D1,
    release 2 counts D1 ∪ D2, each with discrete Laplace noise at ε = 1: 2ε in all by
    sequential composition. With reused noise (a reseeded generator, dpviz ≤ 0.1's
    ``update(method="rebuild")``) the difference "release 2 − release 1" is exactly 3 or 4:
    ε = ∞. With fresh noise (dpviz now) the audit finds no violation of 2ε.
    """

    def fresh(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        c1, c2 = (int(c) for c in counts)
        first = mechanisms.discrete_laplace(np.full(n, c1), epsilon=1.0, rng=rng)
        second = mechanisms.discrete_laplace(np.full(n, c1 + c2), epsilon=1.0, rng=rng)
        return np.column_stack([first, second, second - first])

    out = {}
    for name, mechanism in (("same noise in both releases (reseeded generator)",
                             targets.reused_noise_releases(1.0)),
                            ("fresh noise for each release (dpviz)", fresh)):
        out[name] = audit(mechanism, (10, 3), (10, 4), epsilon=2.0, n_samples=n_samples,
                          seed=seed, neighbours="D2 of 3 rows vs 4 rows")
    return out


@functools.lru_cache(maxsize=4)
def model_object_audits(n_samples: int = 1_000, seed: int = 0) -> dict[str, AuditResult]:
    """The fitted Private-RDT object vs its release, audited on the same neighbours.

    D: six rows at 000; D′ adds a canary at 111 (a leaf no other row reaches). The object
    keeps the set of visited leaves (a curator secret): its size goes from 1 to 2, an
    output impossible under D. The release — the noisy counts of the canary's leaf, what
    ``released_counts`` and ``export_release`` show — passes.
    """
    domain, X, y, canary = categorical_problem()
    D, D_prime = (X, y), with_row(X, y, canary, "n")

    def make(seed_: int) -> PrivateRDTClassifier:
        return PrivateRDTClassifier(epsilon=1.0, n_trees=1, max_depth=3, domain=domain,
                                    random_state=seed_)

    release = fit_release(make, lambda m: m.released_counts(canary)[0, 0])
    return {
        "the object: number of visited leaves (a curator secret)": audit(
            targets.fitted_object_visited_leaves(domain), D, D_prime, epsilon=1.0,
            n_samples=n_samples, seed=seed, neighbours="6 rows vs + canary"),
        "the release: noisy counts of the canary's leaf": audit(
            release, D, D_prime, epsilon=1.0, n_samples=n_samples, seed=seed,
            neighbours="6 rows vs + canary"),
    }


# ------------------------------------------------------------------------------ shipped stories
#: The stories that train estimators thousands of times (seconds each): notebook 06 reads
#: their results from ``dpviz/results/`` (``make results`` writes them), so that the page
#: renders in seconds; ``recompute=True`` runs them again.
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
_INTERVALS = ("estimate", "low", "high", "count", "n")


def story_frame(story: str, n_samples: int, seed: int = 0) -> pd.DataFrame:
    """One story's audits as one tidy frame, to ship: a row per candidate event of each audit.

    Each row repeats its audit's verdict fields beside the selection-stage counts of one
    event; :func:`story_results` turns the frame back into the audits.
    """
    frames = []
    for name, r in STORIES[story](n_samples=n_samples, seed=seed).items():
        head = {"audit": name, "epsilon": r.epsilon, "epsilon_lower": r.epsilon_lower,
                "reject": r.reject, "event_chosen": r.event, "direction": r.direction,
                "neighbours": r.neighbours, "n_samples": r.n_samples, "alpha": r.alpha,
                "exact_epsilon": math.nan if r.exact_epsilon is None else r.exact_epsilon,
                "seconds": r.seconds}
        head |= {f"p_{k}": getattr(r.p, k) for k in _INTERVALS}
        head |= {f"p_prime_{k}": getattr(r.p_prime, k) for k in _INTERVALS}
        frames.append(r.selection.assign(**head)[[*head, *r.selection.columns]])
    return pd.concat(frames, ignore_index=True)


def story_results(story: str, n_samples: int, *, recompute: bool | None = None,
                  seed: int = 0) -> dict[str, AuditResult]:
    """A story's audits, read from its shipped file (or run again: ``recompute=True``)."""
    frame = result(story_frame, story, n_samples, seed=seed, recompute=recompute)
    out = {}
    for name, rows in frame.groupby("audit", sort=False):
        top = rows.iloc[0]
        out[name] = AuditResult(
            epsilon=float(top["epsilon"]), epsilon_lower=float(top["epsilon_lower"]),
            reject=bool(top["reject"]), event=str(top["event_chosen"]),
            direction=str(top["direction"]),
            p=Interval(*(_interval_field(top[f"p_{k}"], k) for k in _INTERVALS)),
            p_prime=Interval(*(_interval_field(top[f"p_prime_{k}"], k) for k in _INTERVALS)),
            neighbours=str(top["neighbours"]), n_samples=int(top["n_samples"]),
            alpha=float(top["alpha"]),
            exact_epsilon=None if pd.isna(top["exact_epsilon"]) else float(top["exact_epsilon"]),
            selection=rows[["event", "count_D", "count_D'", "bound_D/D'", "bound_D'/D"]]
            .reset_index(drop=True),
            seconds=float(top["seconds"]),
        )
    return out


def _interval_field(value: Any, name: str) -> float | int:
    return int(value) if name in ("count", "n") else float(value)


# ------------------------------------------------------------------------------ exercises
#: Exercise 06.1: the leaves and ε of the smooth-sensitivity question.
EXERCISE_1 = {"counts": (5, 0), "counts_prime": (6, 0), "epsilon": 0.5}


def impossible_output_bound(n_estimation: int, alpha: float = 0.05) -> float:
    """The audit's bound on ε for an output seen 0 of n times under D and n of n under D′.

    ``log(lower(n of n) / upper(0 of n))`` with one-sided Clopper–Pearson bounds at α/2
    each: ``log(((α/2)^(1/n)) / (1 − (α/2)^(1/n)))``, which grows like log n.
    """
    low, _ = clopper_pearson(n_estimation, n_estimation, alpha / 2)
    _, high = clopper_pearson(0, n_estimation, alpha / 2)
    return float(np.log(low) - np.log(high))


register({
    "06.1": Exercise(
        answer=smooth_sensitivity_loss(EXERCISE_1["counts"], EXERCISE_1["counts_prime"],
                                       EXERCISE_1["epsilon"]),
        tolerance=0.005,
        hint="compute p = mechanisms.smooth_sensitivity_label_probabilities((5, 0), "
        "epsilon=0.5) and q for (6, 0); the loss is the largest |log(p_c / q_c)| over the "
        "two labels (the minority label carries it)",
    ),
    "06.2": Exercise(
        answer=impossible_output_bound(400),
        tolerance=0.005,
        hint="with 0 of n the upper bound is 1 − 0.025^(1/n); with n of n the lower bound is "
        "0.025^(1/n); the bound on ε is the log of their ratio, with n = 400",
    ),
})

def half_sensitivity_laplace_law(count: Any) -> ContinuousLaw:
    """Exercise 06.3's broken release: Laplace of scale 0.5 (sensitivity read as 1/2, ε = 1)."""
    return ContinuousLaw(lambda x: float(stats.laplace.cdf(x, loc=float(count), scale=0.5)))


def unsplit_average_law(count: Any) -> DiscreteLaw:
    """Exercise 06.4's broken release: the mean of 5 discrete-Laplace answers at ε = 1 each."""
    return averaged_count_law(int(count), 1.0, 5)


# The "break it" exercises: the student's mechanism must have exactly the stated broken law
# (so a mechanism without noise, or broken another way, is refused), then the audit must
# catch it on the count 10 vs 11.
register({
    "06.3": BreakTask(
        D=COUNT, D_prime=COUNT_PRIME, exact=half_sensitivity_laplace_law, epsilon=1.0,
        hint="keep Laplace noise centred on the count; its scale is the sensitivity the "
        "analyst believed in, divided by the ε they claim",
    ),
    "06.4": BreakTask(
        D=COUNT, D_prime=COUNT_PRIME, exact=unsplit_average_law, epsilon=1.0,
        hint="au.averaged_count(epsilon_each, k=5) releases the mean of 5 answers; the "
        "analyst who forgets the split gives every answer the whole claimed budget",
    ),
})
