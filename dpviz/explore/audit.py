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
* the exercises: ``06.1`` and ``06.2`` (numbers, checked by :func:`dpviz.exercises.check`)
  and ``06.3`` / ``06.4`` (a broken mechanism the student writes, checked by
  :func:`check_broken`, which audits it).

Every audit here has a fixed seed, so a call always gives the same result.
"""

from __future__ import annotations

import ast
import functools
import math
import re
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import altair as alt
import ipywidgets as widgets
import numpy as np
import pandas as pd
from scipy import stats

from dpviz import audit_targets as targets
from dpviz import mechanisms
from dpviz.audit import (
    AuditResult,
    audit,
    bound_vs_samples,
    clopper_pearson,
    estimator_mechanism,
    laplace_lattice_events,
    leaf_count_neighbours,
    search_neighbours,
    uniform_lattice_events,
)
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.exercises import Exercise, register
from dpviz.plots import audit_histogram_chart, privacy_loss_chart
from dpviz.trees.rdt import PrivateRDTClassifier

__all__ = [
    "ADDENDUM_TABLE6",
    "BROKEN",
    "CORRECT",
    "SETUPS",
    "AuditSetup",
    "addendum_table6",
    "audit_explorer_chart",
    "audit_table",
    "averaged_count",
    "bound_growth",
    "budget_split_audits",
    "check_broken",
    "estimator_audits",
    "event_loss",
    "exact_event_losses",
    "exact_ratio_chart",
    "floating_point_audits",
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
    "verdict",
]

Mechanism = Callable[[Any, int, np.random.Generator], np.ndarray]

#: Neighbouring leaves searched for the leaf-label mechanisms (sizes m of leaf_count_neighbours).
LEAF_GRID: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 30, 40, 50, 70, 100, 150)

#: The count audited by the count mechanisms: 10 rows against 11 (one row added).
COUNT, COUNT_PRIME = 10, 11


# ------------------------------------------------------------------------------ mechanisms
def laplace_count_with_scale(scale: float) -> Mechanism:
    """A count released with float Laplace noise of the given ``scale`` (the exercises' toy).

    A count has sensitivity 1, so ``scale = 1/ε`` is what ε-DP needs; any smaller scale
    breaks the claim (``scale = 1/(2ε)`` really spends 2ε). Data: the count.
    """
    scale = float(scale)
    if not scale > 0:
        raise InvalidParameterError(f"scale must be > 0, got {scale!r}")
    return lambda count, n, rng: float(count) + mechanisms.laplace_noise(
        mechanisms.open_uniforms(rng, (n,)), scale=scale
    )


def averaged_count(epsilon_each: float, k: int = 5) -> Mechanism:
    """The mean of ``k`` discrete-Laplace answers to the same count, each at ``epsilon_each``.

    By sequential composition the release spends ``k · epsilon_each``: it is ε-DP when
    the analyst splits ε (``epsilon_each = ε/k``), and spends k·ε when they forget to.
    Data: the count.
    """
    if k < 1:
        raise InvalidParameterError(f"k must be >= 1, got {k!r}")

    def release(count: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        noisy = mechanisms.discrete_laplace(
            np.full(k, int(count)), epsilon=epsilon_each, rng=rng, size=n
        )
        return noisy.mean(axis=1)

    return release


# ------------------------------------------------------------------------------ exact laws
class _Law:
    """An exact output distribution: probabilities of ``x = v``, ``x ≤ t`` and ``x > t``."""

    def prob(self, op: str, value: Any) -> float:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class _Discrete(_Law):
    support: np.ndarray
    pmf: np.ndarray

    def prob(self, op: str, value: Any) -> float:
        if op == "=":
            return float(self.pmf[self.support == value].sum())
        below = self.pmf[self.support <= value].sum()
        return float(below if op == "≤" else max(1.0 - below, 0.0))


@dataclass(frozen=True)
class _Continuous(_Law):
    cdf: Callable[[float], float]

    def prob(self, op: str, value: Any) -> float:
        if op == "=":
            return 0.0
        below = float(self.cdf(float(value)))
        return below if op == "≤" else 1.0 - below


@dataclass(frozen=True)
class _Vector(_Law):
    coordinates: tuple[_Law, ...]


_EVENT = re.compile(r"^(?:\[(\d+)\] )?x (=|≤|>) (.+)$")


def _event_probability(law: _Law, name: str) -> float | None:
    """Exact probability of an auto event (by its name), or None if the name is not parsed."""
    match = _EVENT.match(name)
    if match is None:
        return None
    coord, op, text = match.groups()
    if isinstance(law, _Vector):
        if coord is None:
            return None
        law = law.coordinates[int(coord)]
    elif coord is not None:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(value, int | float):
        return None
    return law.prob(op, value)


def exact_event_losses(names: Sequence[str], law: _Law, law_prime: _Law) -> pd.DataFrame:
    """The exact log P[M(D) ∈ E] / P[M(D′) ∈ E] of each named auto event.

    Parameters
    ----------
    names : sequence of str
        Event names as :func:`dpviz.audit.auto_events` writes them (``x = 3``,
        ``x ≤ 2.5``, ``[1] x > 7``).
    law, law_prime : exact output distributions under D and D′.

    Returns
    -------
    DataFrame
        Columns ``event`` and ``loss`` (finite losses only), for
        :func:`dpviz.plots.privacy_loss_chart`.
    """
    rows = []
    for name in names:
        p, q = _event_probability(law, name), _event_probability(law_prime, name)
        if p is None or q is None or p <= 0 or q <= 0:
            continue
        rows.append({"event": name, "loss": math.log(p) - math.log(q)})
    return pd.DataFrame(rows, columns=["event", "loss"])


def _pair_epsilon(p: np.ndarray, q: np.ndarray) -> float:
    """Exact ε of two discrete laws on the same outcomes: max |log p/q| (∞ if supports differ)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    both = (p > 0) & (q > 0)
    if np.any((p > 0) != (q > 0)):
        return math.inf
    return float(np.max(np.abs(np.log(p[both]) - np.log(q[both]))))


def _discrete_laplace_law(centre: int, epsilon: float) -> _Discrete:
    width = math.ceil(45.0 / epsilon) + 2
    k = np.arange(-width, width + 1)
    return _Discrete(k + centre, np.asarray(mechanisms.discrete_laplace_pmf(k, epsilon=epsilon)))


def _label_law(probabilities: np.ndarray) -> _Discrete:
    p = np.asarray(probabilities, float)
    return _Discrete(np.arange(len(p)), p)


def smooth_sensitivity_loss(counts: Sequence[int], counts_prime: Sequence[int],
                            epsilon: float) -> float:
    """Exact privacy loss of the FI 2017 smooth-sensitivity label between two leaves.

    ``max_c |log P(c | counts) − log P(c | counts′)|`` from
    :func:`dpviz.mechanisms.smooth_sensitivity_label_probabilities`.
    """
    p = mechanisms.smooth_sensitivity_label_probabilities(np.asarray(counts), epsilon=epsilon)
    q = mechanisms.smooth_sensitivity_label_probabilities(np.asarray(counts_prime),
                                                          epsilon=epsilon)
    return _pair_epsilon(p, q)


def _anticipated_bound(p: np.ndarray, q: np.ndarray, n: int, alpha: float) -> float:
    """The lower bound an audit with ``n`` estimation samples gets at the expected counts."""
    kp, kq = np.round(np.asarray(p) * n), np.round(np.asarray(q) * n)
    p_low, p_high = clopper_pearson(kp, n, alpha / 2)
    q_low, q_high = clopper_pearson(kq, n, alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        forward = np.log(p_low) - np.log(q_high)
        backward = np.log(q_low) - np.log(p_high)
    best = np.nan_to_num(np.maximum(forward, backward), nan=-np.inf)
    return float(np.max(best))


def _oracle_pair(
    probabilities: Callable[[np.ndarray], np.ndarray], n_samples: int, alpha: float = 0.05
) -> tuple[str, np.ndarray, np.ndarray]:
    """The neighbouring leaves whose exact laws give an audit of ``n_samples`` the most power.

    An *oracle* search: it reads the exact probabilities (which a black-box audit cannot),
    so the explorer always looks at revealing neighbours; :func:`search_neighbours` is the
    honest, sample-based search the stories use.
    """
    n_est = n_samples - max(int(0.2 * n_samples), 10)
    best, best_bound = None, -math.inf
    for name, d, d_prime in leaf_count_neighbours(LEAF_GRID):
        bound = _anticipated_bound(probabilities(d), probabilities(d_prime), n_est, alpha)
        if bound > best_bound:
            best, best_bound = (name, d, d_prime), bound
    assert best is not None
    return best


# ------------------------------------------------------------------------------ setups
@dataclass
class AuditSetup:
    """One auditable mechanism of the explorer: what runs, on which neighbours, what is known.

    Attributes
    ----------
    name : str
        The picker's label.
    broken : bool
        True for the deliberately broken (or withdrawn) mechanisms.
    mechanism : callable
        ``mechanism(data, n, rng)``.
    D, D_prime
        The neighbours.
    neighbours : str
        Their description.
    epsilon : float
        The claimed ε.
    events : "auto" or list of Event
        Candidate events.
    law, law_prime : exact output laws, or None when unknown.
    exact_epsilon : float or None
        The exact ε of these neighbours: the largest privacy loss of any event (in real
        arithmetic, except for the lattice events; ∞ when an output is impossible under
        one of them). The mean of k answers reaches its k·ε_each only in the far tails.
    event_losses : dict
        Exact losses of events whose probabilities the laws cannot give (by name).
    note : str
        One sentence on what the setup shows.
    """

    name: str
    broken: bool
    mechanism: Mechanism
    D: Any
    D_prime: Any
    neighbours: str
    epsilon: float
    events: Any = "auto"
    law: _Law | None = None
    law_prime: _Law | None = None
    exact_epsilon: float | None = None
    event_losses: dict[str, float] = field(default_factory=dict)
    note: str = ""


def _discrete_laplace(eps: float, n: int) -> AuditSetup:
    return AuditSetup(
        "discrete Laplace count", False, targets.discrete_laplace_count(eps), COUNT, COUNT_PRIME,
        f"count {COUNT} vs {COUNT_PRIME}", eps, law=_discrete_laplace_law(COUNT, eps),
        law_prime=_discrete_laplace_law(COUNT_PRIME, eps), exact_epsilon=eps,
        note="the counts of every dpviz tree: integer noise, loss exactly ε on the tails",
    )


def _laplace(eps: float, n: int) -> AuditSetup:
    law = stats.laplace(loc=COUNT, scale=1 / eps)
    law_prime = stats.laplace(loc=COUNT_PRIME, scale=1 / eps)
    return AuditSetup(
        "Laplace count (float doubles)", False, targets.laplace_count(eps), COUNT, COUNT_PRIME,
        f"count {COUNT} vs {COUNT_PRIME}", eps, law=_Continuous(law.cdf),
        law_prime=_Continuous(law_prime.cdf), exact_epsilon=eps,
        note="passes threshold events; see the floating-point lesson for the event that breaks it",
    )


def _exponential(eps: float, n: int) -> AuditSetup:
    u = np.array([0.0] + [1.0] * 20)
    u_prime = np.array([1.0] + [0.0] * 20)
    p = mechanisms.exponential_probabilities(u, epsilon=eps, sensitivity=1.0)
    q = mechanisms.exponential_probabilities(u_prime, epsilon=eps, sensitivity=1.0)
    return AuditSetup(
        "exponential mechanism (21 options)", False, targets.exponential_choice(eps), u, u_prime,
        "utilities (0, 1, …, 1) vs (1, 0, …, 0)", eps, law=_label_law(p), law_prime=_label_law(q),
        exact_epsilon=_pair_epsilon(p, q),
        note="every utility moves by Δ = 1: one up, twenty down — the worst case, loss ≈ 0.95ε",
    )


def _rosnam(eps: float, n: int) -> AuditSetup:
    def probs(c: np.ndarray) -> np.ndarray:
        return mechanisms.report_noisy_max_probabilities(c.astype(float), epsilon=eps,
                                                         monotone=True)

    name, d, d_prime = _oracle_pair(probs, n)
    p, q = probs(d), probs(d_prime)
    return AuditSetup(
        "ROSNAM leaf label (FI forest, corrected)", False, targets.leaf_label(eps, "rosnam"),
        d, d_prime, name, eps, law=_label_law(p), law_prime=_label_law(q),
        exact_epsilon=_pair_epsilon(p, q),
        note="the addendum's Report One-Sided Noisy Arg-Max, as the FI forest releases it",
    )


def _leaf_vector(eps: float, n: int) -> AuditSetup:
    d, d_prime = np.array([7, 0]), np.array([8, 0])
    law = _Vector((_discrete_laplace_law(7, eps), _discrete_laplace_law(0, eps)))
    law_prime = _Vector((_discrete_laplace_law(8, eps), _discrete_laplace_law(0, eps)))
    return AuditSetup(
        "Private-RDT leaf vector", False, targets.leaf_vector(eps), d, d_prime,
        "leaf (7, 0) vs (8, 0)", eps, law=law, law_prime=law_prime, exact_epsilon=eps,
        note="JPW Fig. 5: discrete Laplace on every component of the leaf vector (keyed noise)",
    )


def _averaged_law(centre: int, epsilon_each: float, k: int) -> _Discrete:
    """Exact law of the mean of k discrete-Laplace answers: the k-fold convolution (by FFT).

    FFT round-off (~1e-17 absolute) only affects probabilities far below any event an
    audit of ≤ 10^6 samples can see.
    """
    one = _discrete_laplace_law(0, epsilon_each).pmf
    size = k * (len(one) - 1) + 1
    pmf = np.fft.irfft(np.fft.rfft(one, size) ** k, size)
    pmf = np.clip(pmf, 0.0, None)
    pmf /= pmf.sum()
    width = (size - 1) // 2
    return _Discrete((np.arange(-width, width + 1) + k * centre) / k, pmf)


def _averaged(eps: float, eps_each: float, name: str, broken: bool, note: str) -> AuditSetup:
    return AuditSetup(
        name, broken, averaged_count(eps_each, 5), COUNT, COUNT_PRIME,
        f"count {COUNT} vs {COUNT_PRIME}", eps, law=_averaged_law(COUNT, eps_each, 5),
        law_prime=_averaged_law(COUNT_PRIME, eps_each, 5), exact_epsilon=5 * eps_each, note=note,
    )


def _averaged_split(eps: float, n: int) -> AuditSetup:
    return _averaged(eps, eps / 5, "average of 5 counts, ε split (ε/5 each)", False,
                     "sequential composition done right: five answers at ε/5 cost ε")


def _discrete_lattice(eps: float, n: int) -> AuditSetup:
    def as_float(x: Any, m: int, rng: np.random.Generator) -> np.ndarray:
        return targets.discrete_laplace_count(eps)(x, m, rng).astype(float)

    return AuditSetup(
        "discrete Laplace count, lattice events", False, as_float, 0, 1, "count 0 vs 1", eps,
        events=laplace_lattice_events(1 / eps), exact_epsilon=eps,
        note="Mironov's event finds nothing: integer outputs carry no low-order bits",
    )


def _smooth(eps: float, n: int) -> AuditSetup:
    def probs(c: np.ndarray) -> np.ndarray:
        return mechanisms.smooth_sensitivity_label_probabilities(c, epsilon=eps)

    name, d, d_prime = _oracle_pair(probs, n)
    p, q = probs(d), probs(d_prime)
    return AuditSetup(
        "FI 2017 smooth-sensitivity label (withdrawn)", True,
        targets.smooth_sensitivity_leaf_label(eps), d, d_prime, name, eps, law=_label_law(p),
        law_prime=_label_law(q), exact_epsilon=_pair_epsilon(p, q),
        note="withdrawn in 2021: smooth sensitivity cannot replace Δ in the exponential mechanism",
    )


def _half_noise(eps: float, n: int) -> AuditSetup:
    scale = 1 / (2 * eps)
    law = stats.laplace(loc=COUNT, scale=scale)
    law_prime = stats.laplace(loc=COUNT_PRIME, scale=scale)
    return AuditSetup(
        "Laplace count with half the noise", True, laplace_count_with_scale(scale), COUNT,
        COUNT_PRIME, f"count {COUNT} vs {COUNT_PRIME}", eps, law=_Continuous(law.cdf),
        law_prime=_Continuous(law_prime.cdf), exact_epsilon=2 * eps,
        note="scale 1/(2ε) instead of 1/ε: it spends 2ε",
    )


def _averaged_unsplit(eps: float, n: int) -> AuditSetup:
    return _averaged(eps, eps, "average of 5 counts, ε not split", True,
                     "five answers at ε each: 5ε by sequential composition, claimed as ε")


def _float_lattice(eps: float, n: int) -> AuditSetup:
    return AuditSetup(
        "float Laplace count, lattice events (Mironov 2012)", True, targets.laplace_count(eps),
        0, 1, "count 0 vs 1", eps, events=laplace_lattice_events(1 / eps),
        exact_epsilon=math.inf,
        # every output around 0 is on the lattice: "off the lattice" is impossible under D
        event_losses={"off the sampler's lattice around 0": math.inf},
        note="the doubles the sampler can output around 0 differ from those around 1: ε = ∞",
    )


_BUILDERS: dict[str, Callable[[float, int], AuditSetup]] = {
    "discrete Laplace count": _discrete_laplace,
    "Laplace count (float doubles)": _laplace,
    "exponential mechanism (21 options)": _exponential,
    "ROSNAM leaf label (FI forest, corrected)": _rosnam,
    "Private-RDT leaf vector": _leaf_vector,
    "average of 5 counts, ε split (ε/5 each)": _averaged_split,
    "discrete Laplace count, lattice events": _discrete_lattice,
    "FI 2017 smooth-sensitivity label (withdrawn)": _smooth,
    "Laplace count with half the noise": _half_noise,
    "average of 5 counts, ε not split": _averaged_unsplit,
    "float Laplace count, lattice events (Mironov 2012)": _float_lattice,
}

#: Every setup name, correct ones first (the explorer's picker).
SETUPS: tuple[str, ...] = tuple(_BUILDERS)
#: The broken (or withdrawn) setups.
BROKEN: tuple[str, ...] = (
    "FI 2017 smooth-sensitivity label (withdrawn)",
    "Laplace count with half the noise",
    "average of 5 counts, ε not split",
    "float Laplace count, lattice events (Mironov 2012)",
)
#: The correct setups.
CORRECT: tuple[str, ...] = tuple(s for s in SETUPS if s not in BROKEN)


@functools.lru_cache(maxsize=512)
def make_setup(name: str, epsilon: float, n_samples: int = 20_000) -> AuditSetup:
    """Build the setup ``name`` at the claimed ``epsilon`` (cached in-process).

    ``n_samples`` only matters for the leaf labels, whose neighbours are chosen (from
    exact probabilities) to give an audit of that size the most power.
    """
    if name not in _BUILDERS:
        raise InvalidParameterError(f"unknown setup {name!r}; known: {list(SETUPS)}")
    return _BUILDERS[name](float(epsilon), int(n_samples))


def event_loss(setup: AuditSetup, event: str, direction: str) -> float | None:
    """The exact privacy loss of the named event in the audit's direction, when known."""
    if event in setup.event_losses:
        return setup.event_losses[event]
    if setup.law is None or setup.law_prime is None:
        return None
    p, q = _event_probability(setup.law, event), _event_probability(setup.law_prime, event)
    if p is None or q is None:
        return None
    num, den = (p, q) if direction == "D/D'" else (q, p)
    if den <= 0:
        return math.inf
    return -math.inf if num <= 0 else math.log(num) - math.log(den)


@functools.lru_cache(maxsize=512)
def run_audit(name: str, epsilon: float, n_samples: int, seed: int = 0) -> AuditResult:
    """Audit the setup ``name`` at the claimed ``epsilon`` with ``n_samples`` per neighbour.

    The result's ``exact_epsilon`` is the exact privacy loss of the *chosen event* where
    it is known (the neighbours' exact ε is ``make_setup(...).exact_epsilon``). Cached
    in-process (fixed seed: the same call gives the same result).
    """
    s = make_setup(name, epsilon, n_samples)
    result = audit(s.mechanism, s.D, s.D_prime, epsilon=s.epsilon, events=s.events,
                   n_samples=int(n_samples), seed=seed, neighbours=s.neighbours)
    return replace(result, exact_epsilon=event_loss(s, result.event, result.direction))


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


def samples_slider(value: int = 20_000, low: int = 1_000, high: int = 1_000_000
                   ) -> widgets.FloatLogSlider:
    """A log-scale slider for the number of samples per neighbour N."""
    return widgets.FloatLogSlider(
        value=value, base=10, min=math.log10(low), max=math.log10(high), step=0.1,
        description="N", readout_format=",.0f", continuous_update=False,
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
    if not isinstance(s.law, _Discrete) or not isinstance(s.law_prime, _Discrete):
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
#: the updated formula exp(ε·f_c). (Could move to dpviz.paper_results.)
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

    For each claimed ε: :func:`dpviz.audit.search_neighbours` over
    :func:`dpviz.audit.leaf_count_neighbours` (``n_search`` samples per candidate pair),
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
    from dpviz.trees.forest import DPRandomForestClassifier
    from dpviz.trees.rdt import PrivateRDTClassifier

    domain, X, y, canary = tiny_problem()
    makers = {
        "Private-RDT (3 trees)": lambda s: PrivateRDTClassifier(
            epsilon=epsilon, n_trees=3, domain=domain, random_state=s),
        "FI forest (5 trees, depth 3)": lambda s: DPRandomForestClassifier(
            epsilon=epsilon, n_trees=5, max_depth=3, domain=domain, random_state=s),
    }
    D = (X, y)
    D_prime = (np.vstack([X, canary]), np.append(y, "y"))
    return {
        name: audit(estimator_mechanism(make, canary), D, D_prime, epsilon=epsilon,
                    n_samples=n_samples, seed=seed, neighbours="D vs D + canary")
        for name, make in makers.items()
    }


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
    from dpviz.audit_suite import _categorical_problem, _fits, _with

    domain, X, y, canary = _categorical_problem()
    D, D_prime = (X, y), _with(X, y, canary, "n")

    def make(seed_: int) -> PrivateRDTClassifier:
        return PrivateRDTClassifier(epsilon=1.0, n_trees=1, max_depth=3, domain=domain,
                                    random_state=seed_)

    release = _fits(make, lambda m: m.released_counts(canary)[0, 0])
    return {
        "the object: number of visited leaves (a curator secret)": audit(
            targets.fitted_object_visited_leaves(domain), D, D_prime, epsilon=1.0,
            n_samples=n_samples, seed=seed, neighbours="6 rows vs + canary"),
        "the release: noisy counts of the canary's leaf": audit(
            release, D, D_prime, epsilon=1.0, n_samples=n_samples, seed=seed,
            neighbours="6 rows vs + canary"),
    }


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

#: The broken-mechanism exercises, checked by auditing the student's mechanism.
BREAK_EXERCISES = {
    "06.3": "a count released with too little Laplace noise, claimed ε = 1",
    "06.4": "the average of 5 answers to a count, claimed ε = 1 in total",
}


def check_broken(exercise: str, mechanism: Mechanism | None, *, epsilon: float = 1.0,
                 n_samples: int = 100_000, seed: int = 0) -> AuditResult | None:
    """Audit the student's broken mechanism on the count 10 vs 11; pass if the audit rejects it.

    Parameters
    ----------
    exercise : str
        ``"06.3"`` or ``"06.4"``.
    mechanism : callable or None
        ``mechanism(count, n, rng)`` returning n noisy releases; None = not answered yet.
    epsilon : float
        The claimed ε.
    n_samples : int
        Samples per neighbour.
    seed : int

    Returns
    -------
    AuditResult or None

    Raises
    ------
    AssertionError
        If the audit finds no violation (the mechanism may be private, or too little
        broken to be seen at this N).
    """
    if exercise not in BREAK_EXERCISES:
        raise InvalidParameterError(
            f"unknown exercise {exercise!r}; known: {sorted(BREAK_EXERCISES)}")
    if mechanism is None:
        print(f"Exercise {exercise}: not answered yet — replace None with your mechanism.")
        return None
    result = audit(mechanism, COUNT, COUNT_PRIME, epsilon=epsilon, n_samples=n_samples,
                   seed=seed, neighbours=f"count {COUNT} vs {COUNT_PRIME}")
    if not result.reject:
        raise AssertionError(
            f"Exercise {exercise}: the audit did not catch it — {result.summary()}. Hint: "
            "either your mechanism is still ε-private, or it is broken by too little to show "
            f"at N = {n_samples:,}; break it more (less noise, or a larger ε per answer)."
        )
    print(f"Exercise {exercise}: caught! {result.summary()}")
    return result
