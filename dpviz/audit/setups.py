"""The mechanisms the audit notebook audits: correct ones, broken ones, and what is known.

Each :class:`AuditSetup` is one mechanism with its neighbouring inputs, its candidate
events and (where known) its exact output distribution (:mod:`dpviz.audit.exact_laws`).
:data:`SETUPS` lists them (:data:`CORRECT` and :data:`BROKEN`), :func:`make_setup` builds
one at an ε, :func:`run_audit` audits it with :func:`dpviz.audit.engine.audit`. The explorer of
notebook 06 (:mod:`dpviz.explore.audit`) is a view of these.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import stats

from dpviz import mechanisms
from dpviz.audit import targets
from dpviz.audit.engine import (
    AuditResult,
    audit,
    laplace_lattice_events,
    leaf_count_neighbours,
)
from dpviz.audit.exact_laws import (
    ContinuousLaw,
    DiscreteLaw,
    Law,
    VectorLaw,
    anticipated_bound,
    discrete_laplace_law,
    event_probability,
    label_law,
    pair_epsilon,
)
from dpviz.errors import InvalidParameterError

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



def oracle_pair(
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
        bound = anticipated_bound(probabilities(d), probabilities(d_prime), n_est, alpha)
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
    law: Law | None = None
    law_prime: Law | None = None
    exact_epsilon: float | None = None
    event_losses: dict[str, float] = field(default_factory=dict)
    note: str = ""


def _discrete_laplace(eps: float, n: int) -> AuditSetup:
    return AuditSetup(
        "discrete Laplace count", False, targets.discrete_laplace_count(eps), COUNT, COUNT_PRIME,
        f"count {COUNT} vs {COUNT_PRIME}", eps, law=discrete_laplace_law(COUNT, eps),
        law_prime=discrete_laplace_law(COUNT_PRIME, eps), exact_epsilon=eps,
        note="the counts of every dpviz tree: integer noise, loss exactly ε on the tails",
    )


def _laplace(eps: float, n: int) -> AuditSetup:
    law = stats.laplace(loc=COUNT, scale=1 / eps)
    law_prime = stats.laplace(loc=COUNT_PRIME, scale=1 / eps)
    return AuditSetup(
        "Laplace count (float doubles)", False, targets.laplace_count(eps), COUNT, COUNT_PRIME,
        f"count {COUNT} vs {COUNT_PRIME}", eps, law=ContinuousLaw(law.cdf),
        law_prime=ContinuousLaw(law_prime.cdf), exact_epsilon=eps,
        note="passes threshold events; see the floating-point lesson for the event that breaks it",
    )


def _exponential(eps: float, n: int) -> AuditSetup:
    u = np.array([0.0] + [1.0] * 20)
    u_prime = np.array([1.0] + [0.0] * 20)
    p = mechanisms.exponential_probabilities(u, epsilon=eps, sensitivity=1.0)
    q = mechanisms.exponential_probabilities(u_prime, epsilon=eps, sensitivity=1.0)
    return AuditSetup(
        "exponential mechanism (21 options)", False, targets.exponential_choice(eps), u, u_prime,
        "utilities (0, 1, …, 1) vs (1, 0, …, 0)", eps, law=label_law(p), law_prime=label_law(q),
        exact_epsilon=pair_epsilon(p, q),
        note="every utility moves by Δ = 1: one up, twenty down — the worst case, loss ≈ 0.95ε",
    )


def _rosnam(eps: float, n: int) -> AuditSetup:
    def probs(c: np.ndarray) -> np.ndarray:
        return mechanisms.report_noisy_max_probabilities(c.astype(float), epsilon=eps,
                                                         monotone=True)

    name, d, d_prime = oracle_pair(probs, n)
    p, q = probs(d), probs(d_prime)
    return AuditSetup(
        "ROSNAM leaf label (FI forest, corrected)", False, targets.leaf_label(eps, "rosnam"),
        d, d_prime, name, eps, law=label_law(p), law_prime=label_law(q),
        exact_epsilon=pair_epsilon(p, q),
        note="the addendum's Report One-Sided Noisy Arg-Max, as the FI forest releases it",
    )


def _leaf_vector(eps: float, n: int) -> AuditSetup:
    d, d_prime = np.array([7, 0]), np.array([8, 0])
    law = VectorLaw((discrete_laplace_law(7, eps), discrete_laplace_law(0, eps)))
    law_prime = VectorLaw((discrete_laplace_law(8, eps), discrete_laplace_law(0, eps)))
    return AuditSetup(
        "Private-RDT leaf vector", False, targets.leaf_vector(eps), d, d_prime,
        "leaf (7, 0) vs (8, 0)", eps, law=law, law_prime=law_prime, exact_epsilon=eps,
        note="JPW Fig. 5: discrete Laplace on every component of the leaf vector (keyed noise)",
    )


def averaged_count_law(centre: int, epsilon_each: float, k: int) -> DiscreteLaw:
    """Exact law of the mean of k discrete-Laplace answers: the k-fold convolution (by FFT).

    FFT round-off (~1e-17 absolute) only affects probabilities far below any event an
    audit of ≤ 10^6 samples can see.
    """
    one = discrete_laplace_law(0, epsilon_each).pmf
    size = k * (len(one) - 1) + 1
    pmf = np.fft.irfft(np.fft.rfft(one, size) ** k, size)
    pmf = np.clip(pmf, 0.0, None)
    pmf /= pmf.sum()
    width = (size - 1) // 2
    return DiscreteLaw((np.arange(-width, width + 1) + k * centre) / k, pmf)


def _averaged(eps: float, eps_each: float, name: str, broken: bool, note: str) -> AuditSetup:
    return AuditSetup(
        name, broken, averaged_count(eps_each, 5), COUNT, COUNT_PRIME,
        f"count {COUNT} vs {COUNT_PRIME}", eps, law=averaged_count_law(COUNT, eps_each, 5),
        law_prime=averaged_count_law(COUNT_PRIME, eps_each, 5), exact_epsilon=5 * eps_each,
        note=note,
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

    name, d, d_prime = oracle_pair(probs, n)
    p, q = probs(d), probs(d_prime)
    return AuditSetup(
        "FI 2017 smooth-sensitivity label (withdrawn)", True,
        targets.smooth_sensitivity_leaf_label(eps), d, d_prime, name, eps, law=label_law(p),
        law_prime=label_law(q), exact_epsilon=pair_epsilon(p, q),
        note="withdrawn in 2021: smooth sensitivity cannot replace Δ in the exponential mechanism",
    )


def _half_noise(eps: float, n: int) -> AuditSetup:
    scale = 1 / (2 * eps)
    law = stats.laplace(loc=COUNT, scale=scale)
    law_prime = stats.laplace(loc=COUNT_PRIME, scale=scale)
    return AuditSetup(
        "Laplace count with half the noise", True, laplace_count_with_scale(scale), COUNT,
        COUNT_PRIME, f"count {COUNT} vs {COUNT_PRIME}", eps, law=ContinuousLaw(law.cdf),
        law_prime=ContinuousLaw(law_prime.cdf), exact_epsilon=2 * eps,
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
    p, q = event_probability(setup.law, event), event_probability(setup.law_prime, event)
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
