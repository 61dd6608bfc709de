"""Notebook 01 (building blocks): noise for counts, private selection, composition, the ledger.

Charts use channel objects (``alt.X("a:Q")``): altair 5.5 parses each shorthand string slowly.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import altair as alt
import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.data.uci import load
from dpviz.errors import BudgetExceededError, InvalidParameterError, NotProvenPrivateWarning
from dpviz.privacy import PrivateTable
from dpviz.ui.exercises import EPSILON, PROBABILITY, Exercise, Implementation, register
from dpviz.ui.plots import ledger_chart, noisy_counts_chart
from dpviz.validation import check_epsilon, check_option

if TYPE_CHECKING:  # the audit and SciPy load when used: the explorers' first charts need neither
    from dpviz.audit.engine import AuditResult
    from dpviz.audit.exact_laws import ContinuousLaw, DiscreteLaw

#: The two count mechanisms of the noise explorer, by their names in dpviz.mechanisms.
COUNT_MECHANISMS = ("discrete_laplace", "laplace")

#: Utility vectors of the selection explorer: candidate names and their utilities (counts).
SELECTION_EXAMPLES: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {
    "counts (5, 10)": (("A", "B"), (5, 10)),
    "votes (10, 8, 5, 0)": (("A", "B", "C", "D"), (10, 8, 5, 0)),
}

#: The selection mechanisms compared, in the order shown: exact law, sampler, keywords.
_SELECTORS = {
    "exponential, exp(εu/2Δ)": (
        mechanisms.exponential_probabilities, mechanisms.exponential_mechanism, {}),
    "exponential for counts, exp(εu/Δ)": (
        mechanisms.exponential_probabilities, mechanisms.exponential_mechanism,
        {"monotone": True}),
    "report noisy max": (
        mechanisms.report_noisy_max_probabilities, mechanisms.report_noisy_max, {}),
}
SELECTION_MECHANISMS = tuple(_SELECTORS)

_BINS = 60  # at most this many histogram bins
_MASS = 0.999  # the histogram covers the central 99.9% of the noise


def noise_std(epsilon: float, mechanism: str = "discrete_laplace") -> float:
    """The std of a count's noise at ``epsilon``: √2/ε (Laplace), √(2q)/(1 − q), q = e^{−ε}."""
    eps = check_epsilon(epsilon)
    if check_option(mechanism, COUNT_MECHANISMS, "mechanism") == "laplace":
        return math.sqrt(2.0) / eps
    q = math.exp(-eps)
    return math.sqrt(2.0 * q) / -math.expm1(-eps)


def noise_frame(epsilon: float, mechanism: str = "discrete_laplace", *, count: int = 100,
                n_samples: int = 20_000, seed: int = 0) -> pd.DataFrame:
    """``n_samples`` noisy releases of ``count``, binned, beside each bin's exact probability.

    At most 60 bins ``[start, end)`` (half-integer edges for the discrete Laplace) over the
    central 99.9% of the noise.
    """
    eps = check_epsilon(epsilon)
    check_option(mechanism, COUNT_MECHANISMS, "mechanism")
    half = -math.log(1.0 - _MASS) / eps  # P(|noise| > half) = 1 - _MASS (Laplace)
    if mechanism == "discrete_laplace":
        radius = max(math.ceil(half), 2)
        width = max(1, math.ceil((2 * radius + 1) / _BINS))
        n_bins = math.ceil((2 * radius + 1) / width)
        starts = count - radius + width * np.arange(n_bins)
        ks = np.arange(starts[0], starts[-1] + width) - count
        pmf = np.asarray(mechanisms.discrete_laplace_pmf(ks, epsilon=eps))
        exact = np.add.reduceat(pmf, np.arange(0, len(ks), width))
        samples = mechanisms.discrete_laplace(count, epsilon=eps, rng=seed, size=n_samples)
        edges = np.append(starts, starts[-1] + width).astype(float) - 0.5
    else:
        from dpviz.audit.exact_laws import laplace_cdf  # scipy.stats' Laplace CDF, bit for bit

        edges = count + np.linspace(-half, half, _BINS + 1)
        exact = np.diff(laplace_cdf(edges - count, 0.0, 1.0 / eps))
        samples = mechanisms.laplace(float(count), epsilon=eps, rng=seed, size=n_samples)
    centre = (edges[:-1] + edges[1:]) / 2
    sampled = np.histogram(samples, bins=edges)[0] / n_samples
    return pd.DataFrame({"start": edges[:-1], "end": edges[1:], "centre": centre,
                         "sampled": sampled, "exact": exact})


def noise_chart(epsilon: float, mechanism: str = "discrete_laplace", *, count: int = 100,
                n_samples: int = 20_000, seed: int = 0) -> alt.Chart:
    """Explorer callback: sampled noisy counts (bars), exact law (line), true count (rule)."""
    frame = noise_frame(epsilon, mechanism, count=count, n_samples=n_samples, seed=seed)
    name = "discrete Laplace" if mechanism == "discrete_laplace" else "Laplace"
    std = noise_std(epsilon, mechanism)
    title = f"{name} noise on a count of {count} at ε = {epsilon:.3g} (std {std:.3g})"
    if mechanism == "discrete_laplace":
        exact_zero = float(mechanisms.discrete_laplace_pmf(0, epsilon=epsilon))
        subtitle = f"P(release = true count) = tanh(ε/2) = {exact_zero:.3f}"
    else:
        subtitle = "a continuous release is never exactly the true count"
    base = alt.Chart(frame, title=alt.Title(title, subtitle=subtitle), width=440, height=220)
    bars = base.mark_bar(opacity=0.55, color="steelblue").encode(
        x=alt.X("start:Q", title="released count", scale=alt.Scale(zero=False)),
        x2=alt.X2("end:Q"),
        y=alt.Y("sampled:Q", title="probability"),
        tooltip=[alt.Tooltip("start:Q", format=".4g"), alt.Tooltip("end:Q", format=".4g"),
                 alt.Tooltip("sampled:Q", format=".4f", title=f"sampled ({n_samples} draws)"),
                 alt.Tooltip("exact:Q", format=".4f")],
    )
    line = base.mark_line(color="black", point=alt.OverlayMarkDef(size=12, color="black")).encode(
        x=alt.X("centre:Q"), y=alt.Y("exact:Q")
    )
    truth = alt.Chart(pd.DataFrame({"count": [count]})).mark_rule(
        color="firebrick", strokeDash=[6, 4]).encode(x=alt.X("count:Q"))
    return alt.layer(bars, line, truth)


def _selection_probabilities(utilities: np.ndarray, epsilon: float) -> dict[str, np.ndarray]:
    """Exact laws of the three selection mechanisms (sensitivity 1)."""
    return {name: exact(utilities, epsilon=epsilon, sensitivity=1.0, **kw)
            for name, (exact, _, kw) in _SELECTORS.items()}


def _selection_samples(utilities: np.ndarray, epsilon: float, n_samples: int,
                       seed: int | np.random.Generator) -> dict[str, np.ndarray]:
    """``n_samples`` choices of each selection mechanism, drawn in the order shown."""
    rng = np.random.default_rng(seed)
    return {name: sample(utilities, epsilon=epsilon, sensitivity=1.0, rng=rng, size=n_samples, **kw)
            for name, (_, sample, kw) in _SELECTORS.items()}


def selection_frame(utilities: Sequence[float], epsilon: float, *,
                    labels: Sequence[str] | None = None, n_samples: int = 20_000,
                    seed: int = 0) -> pd.DataFrame:
    """Exact and sampled probabilities that each mechanism selects each candidate (a row each).

    ``utilities`` are counts (sensitivity 1, monotone).
    """
    eps = check_epsilon(epsilon)
    u = np.asarray(utilities, dtype=float)
    names = [str(i) for i in range(len(u))] if labels is None else [str(v) for v in labels]
    if len(names) != len(u):
        raise InvalidParameterError(f"labels must have {len(u)} names, got {len(names)}")
    exact = _selection_probabilities(u, eps)
    samples = _selection_samples(u, eps, n_samples, seed)
    freq = {m: np.bincount(samples[m], minlength=len(u)) / n_samples for m in SELECTION_MECHANISMS}
    return pd.DataFrame([
        {"mechanism": m, "candidate": name, "utility": u[i], "exact": float(exact[m][i]),
         "sampled": float(freq[m][i])}
        for m in SELECTION_MECHANISMS for i, name in enumerate(names)
    ])


def selection_chart(
    epsilon: float, example: str = "counts (5, 10)", *, n_samples: int = 20_000, seed: int = 0
) -> alt.Chart:
    """Explorer callback: each candidate's exact chance per mechanism (bars), sampled (ticks)."""
    labels, utilities = SELECTION_EXAMPLES[check_option(example, list(SELECTION_EXAMPLES),
                                                        "example")]
    frame = selection_frame(utilities, epsilon, labels=labels, n_samples=n_samples, seed=seed)
    best = frame[frame["utility"] == frame["utility"].max()]
    subtitle = "P(best) — " + ", ".join(
        f"{m.split(',')[0] if m != SELECTION_MECHANISMS[1] else 'exp. for counts'}: {p:.3f}"
        for m, p in zip(best["mechanism"], best["exact"], strict=True)
    )
    title = alt.Title(f"Private selection on {example} at ε = {epsilon:.3g}", subtitle=subtitle)
    base = alt.Chart(frame, title=title, width=420, height=220)
    x = alt.X("candidate:N", sort=list(labels), title="candidate (utility)")
    offset = alt.XOffset("mechanism:N", sort=list(SELECTION_MECHANISMS))
    bars = base.mark_bar().encode(
        x=x,
        xOffset=offset,
        y=alt.Y("exact:Q", title="probability of being chosen", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("mechanism:N", sort=list(SELECTION_MECHANISMS),
                        legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("mechanism:N"), alt.Tooltip("candidate:N"), alt.Tooltip("utility:Q"),
                 alt.Tooltip("exact:Q", format=".4f"),
                 alt.Tooltip("sampled:Q", format=".4f", title=f"sampled ({n_samples} draws)")],
    )
    ticks = base.mark_tick(color="black", thickness=2, size=14).encode(
        x=x, xOffset=offset, y=alt.Y("sampled:Q")
    )
    return alt.layer(bars, ticks)


def exact_checks() -> pd.DataFrame:
    """The building blocks' exact probabilities beside the numbers papers print (or NaN)."""
    from dpviz.audit.exact_laws import laplace_cdf  # scipy.stats' Laplace CDF, bit for bit

    eps = 1.0
    dl_zero = float(mechanisms.discrete_laplace_pmf(0, epsilon=eps))
    dl_tail = 1.0 - float(np.sum(mechanisms.discrete_laplace_pmf(np.arange(-2, 3), epsilon=eps)))
    probs = _selection_probabilities(np.array([5.0, 10.0]), 0.1)
    smooth = float(mechanisms.smooth_sensitivity_label_probabilities([5, 10], epsilon=0.1)[1])
    rows = [
        ("Laplace", "ε = 0.01, Δ = 1", "std of the noise", noise_std(0.01, "laplace"), 141.0,
         "JPW §VI ('approximately 141')"),
        ("Laplace", "ε = 1, Δ = 1", "P(|noise| > 3) = e^(-3)",
         1.0 - float(np.diff(laplace_cdf([-3.0, 3.0], 0.0, 1.0))[0]), math.nan,
         "Dwork et al. 2006"),
        ("discrete Laplace", "ε = 1, Δ = 1", "P(noise = 0) = tanh(ε/2)", dl_zero, math.nan,
         "Ghosh et al. 2009"),
        ("discrete Laplace", "ε = 1, Δ = 1", "P(|noise| ≥ 3)", dl_tail, math.nan,
         "Ghosh et al. 2009"),
        ("exponential, exp(εu/2Δ)", "counts (5, 10), ε = 0.1", "P(B)",
         float(probs[SELECTION_MECHANISMS[0]][1]), math.nan, "McSherry & Talwar 2007"),
        ("exponential for counts, exp(εu/Δ)", "counts (5, 10), ε = 0.1", "P(B)",
         float(probs[SELECTION_MECHANISMS[1]][1]), 0.622, "FI addendum Table 6 ('new')"),
        ("report noisy max (one-sided exp.)", "counts (5, 10), ε = 0.1", "P(B) = 1 - e^(-0.5)/2",
         float(probs[SELECTION_MECHANISMS[2]][1]), math.nan, "FI addendum §2 (text)"),
        ("FI 2017 smooth sensitivity (withdrawn)", "counts (5, 10), ε = 0.1", "P(B)",
         smooth, 0.521, "FI addendum Table 6 ('original')"),
    ]
    return pd.DataFrame(
        rows, columns=["mechanism", "setting", "quantity", "exact", "published", "source"]
    )


def sampled_checks(n_samples: int = 200_000, seed: int = 0) -> pd.DataFrame:
    """:func:`exact_checks` from ``n_samples`` draws each, with standard errors and z-scores."""
    rng = np.random.default_rng(seed)
    n = n_samples
    lap = mechanisms.laplace(np.zeros(n), epsilon=1.0, rng=rng)
    dl = mechanisms.discrete_laplace(np.zeros(n, dtype=np.int64), epsilon=1.0, rng=rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvenPrivateWarning)
        smooth = mechanisms.smooth_sensitivity_label([5, 10], epsilon=0.1, rng=rng, size=n)
    std = float(np.std(mechanisms.laplace(0.0, epsilon=0.01, rng=rng, size=n)))
    chosen = _selection_samples(np.array([5.0, 10.0]), 0.1, n, rng)
    out = exact_checks()[["mechanism", "quantity", "exact"]].copy()
    out["sampled"] = [std, float(np.mean(np.abs(lap) > 3)), float(np.mean(dl == 0)),
                      float(np.mean(np.abs(dl) >= 3)),
                      *(float(np.mean(c == 1)) for c in chosen.values()),
                      float(np.mean(smooth == 1))]
    p = out["exact"].to_numpy()
    se = np.empty(len(p))
    # the std row: the sample std of n Laplace draws has standard error ≈ σ·√5/(2√n)
    # (kurtosis 6: Var(s²) ≈ σ⁴(κ − 1)/n = 5σ⁴/n, and se(s) ≈ se(s²)/(2σ))
    se[0] = p[0] * math.sqrt(5.0) / (2.0 * math.sqrt(n))
    se[1:] = np.sqrt(p[1:] * (1 - p[1:]) / n)
    out["se"] = se
    out["z"] = (out["sampled"] - out["exact"]) / out["se"]
    return out


def budget_game(
    count_epsilon: float, classes_epsilon: float, per_group_epsilon: float, *,
    budget: float = 1.0, group_by: str = "health", seed: int = 0,
) -> tuple[PrivateTable, dict[str, object], list[str]]:
    """Spend ``budget`` on Nursery: the row count, the class counts, the class counts per group.

    The groups of ``group_by`` are disjoint, so (3) costs ``per_group_epsilon`` in all. A
    query beyond the budget is refused before reading a row. Returns the table (its ledger),
    the answers by query name, and one message per refused query.
    """
    data = load("nursery")  # loaded once per process by the data layer
    table = PrivateTable(data.X, data.y, domain=data.domain, epsilon=budget, rng=seed)
    answers: dict[str, object] = {}
    refused: list[str] = []

    def ask(name: str, query: object) -> None:
        try:
            answers[name] = query()  # type: ignore[operator]
        except BudgetExceededError as error:
            refused.append(f"{name}: {error}")

    ask("count", lambda: table.noisy_count(epsilon=count_epsilon, label="count"))
    ask("class counts", lambda: table.noisy_class_counts(
        epsilon=classes_epsilon, label="class counts"))
    parts = table.partition(group_by)
    per_group: list[np.ndarray] = []
    for part, value in zip(parts, data.domain[group_by].values, strict=True):
        try:
            per_group.append(part.noisy_class_counts(
                epsilon=per_group_epsilon, label=f"class counts per {group_by}"))
        except BudgetExceededError as error:
            refused.append(f"class counts for {group_by} = {value}: {error}")
    if per_group:
        answers[f"class counts per {group_by}"] = np.array(per_group)
    return table, answers, refused


def budget_game_chart(count_epsilon: float = 0.1, classes_epsilon: float = 0.4,
                      per_group_epsilon: float = 0.4, *, budget: float = 1.0,
                      seed: int = 0) -> alt.VConcatChart:
    """Explorer callback: :func:`budget_game`'s ledger, its refusals, and its class counts."""
    table, answers, refused = budget_game(
        count_epsilon, classes_epsilon, per_group_epsilon, budget=budget, seed=seed
    )
    ledger = ledger_chart(table.ledger, width=380)
    lines = [f"refused — {r.split(':')[0]}" for r in refused] or ["no query refused"]
    notes = (
        alt.Chart(pd.DataFrame({"line": lines, "i": range(len(lines))}))
        .mark_text(align="left", color="firebrick" if refused else "gray", fontSize=12)
        .encode(y=alt.Y("i:O", axis=None), text=alt.Text("line:N"))
        .properties(width=380, height=16 * len(lines))
    )
    data = load("nursery")
    if "class counts" in answers:
        counts = noisy_counts_chart(
            data.domain.classes, data.class_counts.to_numpy(), np.asarray(answers["class counts"]),
            title=f"Class counts released at ε = {classes_epsilon:.3g}", width=380,
        )
    else:
        counts = (
            alt.Chart(pd.DataFrame({"line": ["class counts: refused, nothing released"]}))
            .mark_text(color="firebrick", fontSize=13)
            .encode(text=alt.Text("line:N"))
            .properties(width=380, height=40)
        )
    # two colour scales with different meanings (mechanism; true vs noisy): two legends
    return alt.vconcat(ledger, notes, counts).resolve_scale(color="independent")


def overlap_audit(epsilon: float = 1.0, *, counts: tuple[int, int] = (20, 30),
                  overlap: bool = True, n_samples: int = 20_000, seed: int = 0) -> AuditResult:
    """Audit "two counts at ε over a partition cost ε" when D′ adds a row to both groups or one.

    The event "both answers above D's counts" has exact ratio e^{2ε} (overlap) or e^ε.
    """
    from dpviz.audit.engine import Event, audit

    eps = check_epsilon(epsilon)

    def release(counts: tuple[int, int], n: int, rng: np.random.Generator) -> np.ndarray:
        """Two counts, each with discrete Laplace noise at ε (the first count's drawn first)."""
        return np.column_stack([mechanisms.discrete_laplace(int(c), epsilon=eps, rng=rng, size=n)
                                for c in counts])

    c1, c2 = int(counts[0]), int(counts[1])
    event = Event(f"both answers > D's counts ({c1}, {c2})",
                  lambda x: (np.asarray(x)[:, 0] > c1) & (np.asarray(x)[:, 1] > c2))
    where = "a row in both groups" if overlap else "a row in the first group only"
    return audit(release, (c1, c2), (c1 + 1, c2 + int(overlap)), epsilon=eps,
                 events=[event], n_samples=n_samples, seed=seed,
                 exact_epsilon=(2 if overlap else 1) * eps, neighbours=f"D′ = D plus {where}")


# ====================================================================== exercises 01.1–01.7
# One exercise in one place: the question (the notebook asks it in full), the check's cases and
# settings, its hint, and the worked answer the instructor's key returns
# (dpviz.ui.exercises.solution; never shown in the notebook). Registered at the end.
#
# The mechanism checks (01.1–01.4) hold at the edges: fixed cases at ε = 0.01 and at large
# counts and utilities, one or two more cases drawn per check (ε from 0.01 to 10,
# log-uniform), a tail cell at each end of a numeric law (exercise_kinds.TAIL_DRAWS). Refused,
# each with probability above 1 − 10⁻⁶ (tests/test_building_blocks_exercises.py computes it):
# ε clamped to ≥ 0.1 (or ≥ 0.5), the noise scale capped (at 10), noise truncated or clipped
# within 5.5 scales of the value, an exponential mechanism that does not subtract the largest
# utility before exp (utilities (1500, 1490) overflow), an answer that calls dpviz for it.


def _log_uniform(rng: np.random.Generator, low: float, high: float) -> float:
    """A number between ``low`` and ``high``, log-uniform, to 3 significant digits."""
    return float(f"{math.exp(rng.uniform(math.log(low), math.log(high))):.3g}")


# --- 01.1 · Write the Laplace mechanism: laplace_mech(value, sensitivity, epsilon, rng), one
# ε-DP release of the number `value` (a float), its noise drawn from `rng`.
def laplace_law(value: float, sensitivity: float, epsilon: float) -> ContinuousLaw:
    """Exact law of the Laplace mechanism: ``value`` + Lap(Δ/ε) (exercise 01.1)."""
    from dpviz.audit.exact_laws import ContinuousLaw, laplace_cdf

    scale = sensitivity / epsilon
    return ContinuousLaw(functools.partial(laplace_cdf, loc=value, scale=scale))


# --- answer: start (the worked answer: cut from the students' copy)
def _laplace_mech(value: float, sensitivity: float, epsilon: float,
                  rng: np.random.Generator) -> float:
    return value + rng.laplace(0.0, sensitivity / epsilon)
# --- answer: end


def _laplace_case(rng: np.random.Generator) -> dict[str, float]:
    """A drawn case of 01.1: any value, Δ from 0.5 to 5, ε from 0.01 to 10."""
    return {"value": float(rng.integers(-10_000, 10_000)),
            "sensitivity": float(rng.choice([0.5, 1.0, 2.0, 5.0])),
            "epsilon": _log_uniform(rng, 0.01, 10.0)}


LAPLACE = Implementation(
    cases=({"value": 100.0, "sensitivity": 1.0, "epsilon": 1.0},
           {"value": 0.0, "sensitivity": 1.0, "epsilon": 0.01},
           {"value": 5.0, "sensitivity": 2.0, "epsilon": 0.5}),
    exact=laplace_law, sampler=True, output="number", draw_case=_laplace_case,
    hint="the noise must hide a change of Δ in the answer at privacy level ε: does it grow or "
         "shrink when Δ grows, and when ε grows? numpy's rng.laplace takes loc and scale",
    solution=_laplace_mech,
)


# --- 01.2 · Write the geometric mechanism: geometric_mech(count, epsilon, rng), the int
# `count` plus discrete Laplace noise at ε, drawn with rng.geometric.
def geometric_law(count: int, epsilon: float) -> DiscreteLaw:
    """Exact law of the geometric mechanism: ``count`` + discrete Laplace at ε (exercise 01.2)."""
    from dpviz.audit.exact_laws import discrete_laplace_law

    return discrete_laplace_law(count, epsilon)


# --- answer: start (the worked answer: cut from the students' copy)
def _geometric_mech(count: int, epsilon: float, rng: np.random.Generator) -> int:
    p = -math.expm1(-epsilon)
    return count + int(rng.geometric(p)) - int(rng.geometric(p))
# --- answer: end


def _geometric_case(rng: np.random.Generator) -> dict[str, float]:
    """A drawn case of 01.2: a count up to 100,000, ε from 0.01 to 5."""
    return {"count": int(rng.integers(0, 100_000)), "epsilon": _log_uniform(rng, 0.01, 5.0)}


GEOMETRIC = Implementation(
    cases=({"count": 10, "epsilon": 1.0}, {"count": 0, "epsilon": 0.5},
           {"count": 3, "epsilon": 2.0}, {"count": 1500, "epsilon": 0.01}),
    exact=geometric_law, sampler=True, output="int", draw_case=_geometric_case,
    hint="return an integer whose chance falls by the factor e^(−ε) per step away from the "
         "count, on both sides; rounding Laplace noise does not give that law. What is the "
         "ratio P(k + 1)/P(k) of rng.geometric(p)?",
    solution=_geometric_mech,
)


# --- 01.3 · Write the exponential mechanism: exponential_mech(utilities, epsilon,
# sensitivity, rng), the index (an int) of the candidate chosen with P ∝ exp(εu/2Δ).
def exponential_law(utilities: Sequence[float], epsilon: float, sensitivity: float) -> np.ndarray:
    """Exact law of the exponential mechanism, P(r) ∝ exp(ε·u(r)/2Δ) (exercise 01.3)."""
    return mechanisms.exponential_probabilities(np.asarray(utilities, float), epsilon=epsilon,
                                                sensitivity=sensitivity)


# --- answer: start (the worked answer: cut from the students' copy)
def _exponential_mech(utilities: Sequence[float], epsilon: float, sensitivity: float,
                      rng: np.random.Generator) -> int:
    u = np.asarray(utilities, float)
    w = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    return int(rng.choice(len(u), p=w / w.sum()))
# --- answer: end


def _selection_case(rng: np.random.Generator) -> dict[str, object]:
    """A drawn case of 01.3: 2–5 utilities near a large one (up to 3,000), ε from 0.01 to 2."""
    base = int(rng.integers(0, 3000))
    k = int(rng.integers(2, 6))
    return {"utilities": tuple(base + int(d) for d in rng.integers(0, 12, size=k)),
            "epsilon": _log_uniform(rng, 0.01, 2.0),
            "sensitivity": float(rng.choice([1.0, 2.0]))}


EXPONENTIAL = Implementation(
    cases=({"utilities": (5, 10), "epsilon": 0.1, "sensitivity": 1.0},
           {"utilities": (10, 8, 5, 0), "epsilon": 0.5, "sensitivity": 1.0},
           {"utilities": (3, 1, 2), "epsilon": 1.0, "sensitivity": 2.0},
           {"utilities": (5, 10), "epsilon": 0.01, "sensitivity": 1.0},
           {"utilities": (1500, 1490), "epsilon": 1.0, "sensitivity": 1.0}),
    exact=exponential_law, sampler=True, output="int", draw_case=_selection_case, n_drawn=1,
    hint="compare your weights with the formula of §2 term by term (ε, Δ and the 2); return "
         "the index of the chosen candidate (an int), drawn with rng. With utilities like "
         "(1500, 1490), exp overflows to inf: the weights may all be divided by the same number "
         "first",
    solution=_exponential_mech,
)


# --- 01.4 · Write report noisy max: report_noisy_max(counts, epsilon, rng), the position (an
# int) of the largest count after one-sided exponential noise of scale 1/ε on each.
def noisy_max_law(counts: Sequence[int], epsilon: float) -> np.ndarray:
    """Exact law of report noisy max with one-sided Exp(1/ε) noise on counts (exercise 01.4)."""
    return mechanisms.report_noisy_max_probabilities(np.asarray(counts, float), epsilon=epsilon)


# --- answer: start (the worked answer: cut from the students' copy)
def _report_noisy_max(counts: Sequence[int], epsilon: float, rng: np.random.Generator) -> int:
    c = np.asarray(counts, float)
    return int(np.argmax(c + rng.exponential(1.0 / epsilon, size=len(c))))
# --- answer: end


def _counts_case(rng: np.random.Generator) -> dict[str, object]:
    """A drawn case of 01.4: 2–4 counts near a large one (up to 3,000), ε from 0.01 to 2."""
    base = int(rng.integers(0, 3000))
    k = int(rng.integers(2, 5))
    return {"counts": tuple(base + int(d) for d in rng.integers(0, 12, size=k)),
            "epsilon": _log_uniform(rng, 0.01, 2.0)}


NOISY_MAX = Implementation(
    cases=({"counts": (5, 10), "epsilon": 0.1}, {"counts": (3, 7), "epsilon": 0.5},
           {"counts": (2, 6, 5), "epsilon": 1.0}, {"counts": (0, 0, 0), "epsilon": 1.0},
           {"counts": (5, 10), "epsilon": 0.01}, {"counts": (1500, 1490), "epsilon": 0.5}),
    exact=noisy_max_law, sampler=True, output="int", draw_case=_counts_case, n_drawn=1,
    hint="one fresh draw of noise per count, never negative, of the scale §2 gives; return the "
         "position of the largest noisy count (an int), not the count",
    solution=_report_noisy_max,
)

#: 01.1–01.4: the student writes the mechanism; 20,000 draws per case meet the exact law.
MECHANISM_EXERCISES = {"01.1": LAPLACE, "01.2": GEOMETRIC, "01.3": EXPONENTIAL,
                       "01.4": NOISY_MAX}

# --- 01.5 · At what ε does the discrete Laplace mechanism release a count exactly (noise 0)
# half of the time?
# --- answer: start (cut from the students' copy)
# tanh(ε/2) = 1/2: ε = ln 3.
# --- answer: end
NOISE_ZERO_HALF = Exercise(
    answer=math.log(3.0), tolerance=0.001, bounds=EPSILON,
    hint="the probability of noise 0 is the pmf at 0 (section 1); set it to one half and solve "
         "for ε",
)

# --- 01.6 · Counts (5, 10), report noisy max at ε = 0.2: the probability that the majority
# class (10) is reported.
NOISY_MAX_MAJORITY = Exercise(
    answer=1.0 - math.exp(-1.0) / 2.0, tolerance=0.005, bounds=PROBABILITY,
    hint="which entry of the exact probabilities belongs to the class with count 10, and did "
         "you pass ε = 0.2?",
)

# --- 01.7 · Three counts on Nursery: health = recommended at ε = 0.4, health = priority at
# ε = 0.3, finance = convenient at ε = 0.25. The ε of the three answers?
# --- answer: start (cut from the students' copy)
# The two health groups are disjoint (parallel: max), a row of either may also be in the
# finance group (sequential): 0.4 + 0.25.
# --- answer: end
OVERLAP_COMPOSITION = Exercise(
    answer=0.65, tolerance=1e-9, bounds=EPSILON,
    hint="which of the three answers can one row change together? Answers over disjoint groups "
         "compose in parallel, answers that may read the same row sequentially; the two audits "
         "of §4 (overlapping and disjoint groups) are a start",
)

register({
    **MECHANISM_EXERCISES,
    "01.5": NOISE_ZERO_HALF,
    "01.6": NOISY_MAX_MAJORITY,
    "01.7": OVERLAP_COMPOSITION,
})
