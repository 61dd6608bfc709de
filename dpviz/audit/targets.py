"""What the audits audit: the shipped releases as mechanisms, and the explorer's setups.

Each ``mechanism(data, n, rng)`` draws ``n`` outputs by calling the code that ships, never a
copy; the TEACHING TARGETs are the broken or withdrawn paths. :data:`SETUPS` (notebook 06's
explorer; names and notes in ``setups.csv``) add neighbours, candidate events and exact laws.
"""

from __future__ import annotations

import csv
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.audit.engine import (
    AuditResult,
    Event,
    Mechanism,
    audit,
    laplace_lattice_events,
    leaf_count_neighbours,
    per_seed,
    uniform_lattice_events,
)
from dpviz.audit.exact_laws import (
    ContinuousLaw,
    DiscreteLaw,
    Law,
    VectorLaw,
    anticipated_bound,
    discrete_laplace_law,
    discrete_laplace_sum_law,
    event_probability,
    label_law,
    laplace_cdf,
    pair_epsilon,
)
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.leaf_release import NoisyLeafCounts, NoisyLeafLabels
from dpviz.privacy import PrivateTable
from dpviz.trees.id3_quality import get_criterion
from dpviz.trees.random_tree import RandomTree

# The estimators' modules (dpviz.trees.forest, .id3, .rdt): each target that fits imports them
# when it is built, so that a page auditing only the samplers (notebook 06) never loads them.

__all__ = [
    "BROKEN", "CORRECT", "COUNT", "COUNT_PRIME", "LEAF_GRID", "SETUPS", "THRESHOLD_RANGE",
    "UTILITIES", "UTILITIES_PRIME", "AuditSetup", "audit_setup", "averaged_count",
    "averaged_count_law", "diffpid3_split_choice", "discrete_laplace_count", "event_loss",
    "exponential_choice", "fitted_object_visited_leaves",
    "forest_reading_all_rows_with_full_epsilon", "forest_votes", "laplace_count",
    "laplace_count_with_scale", "leaf_label", "leaf_vector", "make_setup", "oracle_pair",
    "pruned_tree_leaves", "pruned_tree_problem", "report_noisy_max_choice",
    "reused_noise_releases", "run_audit", "smooth_sensitivity_leaf_label",
    "split_point_continuous", "split_point_grid", "threshold_problem",
]

#: Neighbouring leaves searched for the leaf-label mechanisms (sizes m of leaf_count_neighbours).
LEAF_GRID: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 30, 40, 50, 70, 100, 150)

#: The count audited by the count mechanisms: 10 rows against 11 (one row added).
COUNT, COUNT_PRIME = 10, 11

#: The exponential mechanism's worst case: every utility moves by Δ = 1, one up, twenty down.
UTILITIES, UTILITIES_PRIME = np.array([0.0] + [1.0] * 20), np.array([1.0] + [0.0] * 20)


# ------------------------------------------------------------------------------ shipped releases
def laplace_count(epsilon: float) -> Mechanism:
    """A count with float Laplace(1/ε) noise (``mechanisms.laplace``). Data: the count."""
    return lambda count, n, rng: mechanisms.laplace(np.full(n, float(count)), epsilon=epsilon,
                                                    rng=rng)


def discrete_laplace_count(epsilon: float) -> Mechanism:
    """A count released with discrete Laplace noise. Data: the count."""
    return lambda count, n, rng: mechanisms.discrete_laplace(np.full(n, int(count)),
                                                             epsilon=epsilon, rng=rng)


def exponential_choice(epsilon: float, sensitivity: float = 1.0) -> Mechanism:
    """The exponential mechanism's choice. Data: the utility vector."""
    return lambda u, n, rng: mechanisms.exponential_mechanism(
        np.asarray(u, float), epsilon=epsilon, sensitivity=sensitivity, rng=rng, size=n)


def report_noisy_max_choice(epsilon: float) -> Mechanism:
    """Report One-Sided Noisy Arg-Max on counts (FI addendum). Data: the count vector."""
    return lambda c, n, rng: mechanisms.report_noisy_max(
        np.asarray(c, float), epsilon=epsilon, sensitivity=1, rng=rng, size=n, monotone=True)


def smooth_sensitivity_leaf_label(epsilon: float) -> Mechanism:
    """The withdrawn FI 2017 leaf label (warnings silenced: this target is *meant* to fail)."""

    def mechanism(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        with warnings.catch_warnings(action="ignore", category=NotProvenPrivateWarning):
            return mechanisms.smooth_sensitivity_label(np.asarray(counts), epsilon=epsilon,
                                                       rng=rng, size=n)

    return mechanism


def _leaf_release(release_class: Any, epsilon: float, mechanism: str) -> Mechanism:
    def release(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        # n independent samples: leaf key i holds ``counts`` (class c repeated c times)
        counts = np.asarray(counts)
        labels = np.repeat(np.arange(len(counts)), np.asarray(counts, dtype=np.int64))
        keys = np.repeat(np.arange(n, dtype=np.uint64), len(labels))
        # noise="laplace" warns: it is audited on purpose
        with warnings.catch_warnings(action="ignore", category=NotProvenPrivateWarning):
            released = release_class.release(keys, np.tile(labels, n), len(counts),
                                             epsilon=epsilon, mechanism=mechanism, rng=rng)
        return released(np.arange(n, dtype=np.uint64))

    return release


def leaf_vector(epsilon: float, mechanism: str = "discrete_laplace") -> Mechanism:
    """One leaf's noisy class counts, by :meth:`NoisyLeafCounts.release`. Data: the counts."""
    return _leaf_release(NoisyLeafCounts, epsilon, mechanism)


def leaf_label(epsilon: float, mechanism: str = "rosnam") -> Mechanism:
    """One leaf's private label, by the shipped :meth:`NoisyLeafLabels.release`. Data: counts."""
    return _leaf_release(NoisyLeafLabels, epsilon, mechanism)


def pruned_tree_leaves(domain: Domain, *, max_depth: int = 2) -> Mechanism:
    """Leaves of Fan's pruned random tree (JPW Fig. 1, 3–4): NOT private. Data: ``(X, y)``."""
    from dpviz.trees.rdt import RandomDecisionTreeClassifier

    return lambda data, n, rng: per_seed(lambda s: RandomDecisionTreeClassifier(
        n_trees=1, max_depth=max_depth, domain=domain, random_state=s,
    ).fit(*data).visited_leaves()[0], n, rng, 2**31 - 1)


def pruned_tree_problem() -> tuple[Domain, tuple[Any, Any], tuple[Any, Any]]:
    """JPW Fig. 3 in miniature: two binary attributes; D′ adds the only row with a = 1."""
    domain = Domain([Categorical("a", ("0", "1")), Categorical("b", ("0", "1"))], ["-", "+"])
    X = np.array([["0", "0"], ["0", "1"]] * 3, dtype=object)
    y = ["-", "+"] * 3
    return domain, (X, y), (np.vstack([X, [["1", "1"]]]), [*y, "+"])


#: The public range of the split-point lessons.
THRESHOLD_RANGE = (0.0, 1e6)


def threshold_problem() -> tuple[Domain, tuple[Any, Any], tuple[Any, Any], list[Event]]:
    """Values {1} vs {1, 2} on [0, 1e6], one class, and the lattices of D's ranges."""
    low, high = THRESHOLD_RANGE
    D = (np.array([1.0]), np.zeros(1, dtype=np.int64))
    D_prime = (np.array([1.0, 2.0]), np.zeros(2, dtype=np.int64))
    return (Domain([Numeric("x", low, high)], (0,)), D, D_prime,
            uniform_lattice_events([(0.0, 1.0), (1.0, high)]))


def forest_reading_all_rows_with_full_epsilon(domain: Domain, canary: pd.DataFrame | np.ndarray,
                                              *, epsilon: float, n_trees: int = 10,
                                              max_depth: int = 2) -> Mechanism:
    """WRONG: every tree reads every row at the full ε; votes for 1. Data: (codes, labels)."""
    from dpviz.trees.forest import get_majority_labels

    canary_codes = domain.encode(canary)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        codes, labels = data
        votes = np.empty(n, dtype=np.int64)
        for i in range(n):
            trees = [RandomTree(domain, max_depth, int(k)) for k in rng.integers(0, 2**63, n_trees)]
            table = PrivateTable.from_encoded(codes, labels, domain=domain,
                                              epsilon=epsilon * n_trees, rng=rng)
            released = get_majority_labels(table, trees, epsilon=epsilon * n_trees,
                                           mechanism="rosnam", disjoint=False, rng=rng)
            votes[i] = sum(int(lab(t.leaf_keys(canary_codes))[0]) for t, lab in
                           zip(trees, released, strict=True))
        return votes

    return release


def forest_votes(domain: Domain, canary: pd.DataFrame | np.ndarray, *, epsilon: float,
                 n_trees: int = 10, max_depth: int = 2) -> Mechanism:
    """The correct FI forest (disjoint rows, ROSNAM): votes for class 1 on the canary."""
    from dpviz.trees.forest import DPRandomForestClassifier

    canary_codes = domain.encode(canary)
    return lambda data, n, rng: per_seed(lambda s: DPRandomForestClassifier(
        epsilon=epsilon, n_trees=n_trees, max_depth=max_depth, domain=domain, random_state=s,
    ).fit(*data).votes(domain.decode(canary_codes))[0, 1], n, rng, 2**31 - 1).astype(np.int64)


def diffpid3_split_choice(domain: Domain, *, criterion: str = "gini", epsilon: float = 1.0,
                          size_bound: int | None = None) -> Mechanism:
    """DiffPID3's split attribute (FS Alg. 2 line 14) as ``select`` draws it. Data: (codes, y)."""
    from dpviz.trees.id3 import attribute_qualities, categorical_splits

    crit = get_criterion(criterion)
    sensitivity = crit.sensitivity(size_bound) if crit.needs_size_bound else crit.sensitivity()
    splits = categorical_splits(domain)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        codes, labels = data
        scores = attribute_qualities(codes, np.asarray(labels), splits, crit, domain.n_classes)
        return mechanisms.exponential_mechanism(scores, epsilon=epsilon,
                                                sensitivity=sensitivity, rng=rng, size=n)

    return release


def split_point_grid(domain: Domain, *, epsilon: float = 1.0, criterion: str = "max",
                     n_cells: int = 256) -> Mechanism:
    """FS §4.3's split point on DiffPC4.5's public grid. Data: ``(values, labels)``."""
    from dpviz.trees.id3 import private_split_point

    name = domain.names[0]
    crit = get_criterion(criterion)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        values, labels = data
        codes = np.asarray(values, dtype=np.float64)[:, None]
        out = np.empty(n)
        for i in range(n):
            table = PrivateTable.from_encoded(codes, labels, domain=domain, epsilon=epsilon,
                                              rng=rng)
            out[i], _ = private_split_point(table, name, (0, n_cells), criterion=crit,
                                            sensitivity=crit.sensitivity(), epsilon=epsilon,
                                            n_cells=n_cells)
        return out

    return release


def split_point_continuous(low: float, high: float, *, epsilon: float = 1.0,
                           criterion: str = "max") -> Mechanism:
    """TEACHING TARGET — FS §4.3 as printed: a uniform draw inside a data-dependent range.

    Its doubles lie on a lattice fixed by the private ends. Data: ``(values, labels)``.
    """
    from dpviz.trees.id3 import choose_split_point_continuous

    crit = get_criterion(criterion)

    def release(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        values, labels = data
        n_classes = int(np.max(labels)) + 1 if len(labels) else 1
        with warnings.catch_warnings(action="ignore", category=NotProvenPrivateWarning):
            return np.array([
                choose_split_point_continuous(values, labels, n_classes, low, high,
                                              criterion=crit, sensitivity=crit.sensitivity(),
                                              epsilon=epsilon, rng=rng)
                for _ in range(n)
            ])

    return release


def reused_noise_releases(epsilon: float = 1.0, *, same_noise: bool = True) -> Mechanism:
    """TEACHING TARGET — the counts of D1 and D1 ∪ D2 with *the same* noise, and their difference.

    Their difference is the exact count of D2 (``same_noise=False``: fresh noise, as dpviz
    releases them). Data: the two counts.
    """

    def release(counts: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        c1, c2 = (int(c) for c in counts)
        noise = {"uniforms": mechanisms.open_uniforms(rng, (n, 2))} if same_noise else {"rng": rng}
        first = mechanisms.discrete_laplace(np.full(n, c1), epsilon=epsilon, **noise)
        second = mechanisms.discrete_laplace(np.full(n, c1 + c2), epsilon=epsilon, **noise)
        return np.column_stack([first, second, second - first])

    return release


def fitted_object_visited_leaves(domain: Domain, *, max_depth: int = 3) -> Mechanism:
    """TEACHING TARGET — the fitted object's secret (leaves holding rows; ε = ∞). Data: (X, y)."""
    from dpviz.trees.rdt import PrivateRDTClassifier

    return lambda data, n, rng: per_seed(lambda s: PrivateRDTClassifier(
        epsilon=1.0, n_trees=1, max_depth=max_depth, domain=domain, random_state=s,
    ).fit(*data).leaf_counts_[0].n_visited, n, rng)


# ------------------------------------------------------------------------------ toys
def laplace_count_with_scale(scale: float) -> Mechanism:
    """A count with float Laplace noise of ``scale`` (ε-DP at ``scale = 1/ε``). Data: the count."""
    scale = float(scale)
    if not scale > 0:
        raise InvalidParameterError(f"scale must be > 0, got {scale!r}")
    return lambda count, n, rng: float(count) + mechanisms.laplace_noise(
        mechanisms.open_uniforms(rng, (n,)), scale=scale
    )


def averaged_count(epsilon_each: float, k: int = 5) -> Mechanism:
    """The mean of ``k`` discrete-Laplace answers to a count at ``epsilon_each``: k·ε_each."""
    if k < 1:
        raise InvalidParameterError(f"k must be >= 1, got {k!r}")

    def release(count: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        noisy = mechanisms.discrete_laplace(
            np.full(k, int(count)), epsilon=epsilon_each, rng=rng, size=n
        )
        return noisy.mean(axis=1)

    return release


def averaged_count_law(centre: int, epsilon_each: float, k: int) -> DiscreteLaw:
    """Exact law of :func:`averaged_count`: the law of the sum of the k answers, over k."""
    total = discrete_laplace_sum_law(k, epsilon_each, k * centre)
    return DiscreteLaw(total.support / k, total.pmf)


def oracle_pair(
    probabilities: Callable[[np.ndarray], np.ndarray], n_samples: int, alpha: float = 0.05
) -> tuple[str, np.ndarray, np.ndarray]:
    """The leaves whose exact laws give an audit of ``n_samples`` the most power (an oracle)."""
    n_est = n_samples - max(int(0.2 * n_samples), 10)
    pairs = leaf_count_neighbours(LEAF_GRID)
    p = np.array([probabilities(d) for _, d, _ in pairs])
    q = np.array([probabilities(d_prime) for _, _, d_prime in pairs])
    return pairs[int(np.argmax(anticipated_bound(p, q, n_est, alpha)))]


# ------------------------------------------------------------------------------ setups
@dataclass
class AuditSetup:
    """One mechanism of the explorer: its neighbours, candidate events and what is known.

    ``law``, ``law_prime``: exact output laws; ``exact_epsilon``: the largest loss on these
    neighbours; ``event_losses``: exact losses of named events the laws cannot give;
    ``name``, ``broken``, ``note``: its row of ``setups.csv``.
    """

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
    name: str = ""
    broken: bool = False
    note: str = ""


def _count(mechanism: Mechanism, eps: float, law_of: Callable[[int], Law],
           exact: float) -> AuditSetup:
    """A setup on the count 10 vs 11, its law ``law_of(count)``."""
    return AuditSetup(mechanism, COUNT, COUNT_PRIME, f"count {COUNT} vs {COUNT_PRIME}", eps,
                      law=law_of(COUNT), law_prime=law_of(COUNT_PRIME), exact_epsilon=exact)


def _laplace_law(scale: float) -> Callable[[int], Law]:
    return lambda count: ContinuousLaw(partial(laplace_cdf, loc=count, scale=scale))


def _averaged(eps: float, each: float) -> AuditSetup:
    """The mean of 5 counts at ``each``, claimed at ``eps``."""
    return _count(averaged_count(each, 5), eps, lambda c: averaged_count_law(c, each, 5),
                  5 * each)


def _labels(mechanism: Mechanism, eps: float, pair: tuple[str, Any, Any] | int,
            probs: Callable[[Any], np.ndarray]) -> AuditSetup:
    """A label of law ``probs(data)`` on ``pair``, or (an int n) :func:`oracle_pair`'s leaves."""
    neighbours, d, d_prime = oracle_pair(probs, pair) if isinstance(pair, int) else pair
    p, q = probs(d), probs(d_prime)
    return AuditSetup(mechanism, d, d_prime, neighbours, eps, law=label_law(p),
                      law_prime=label_law(q), exact_epsilon=pair_epsilon(p, q))


def _lattice(mechanism: Mechanism, eps: float, exact: float,
             event_losses: dict[str, float]) -> AuditSetup:
    """Counts 0 vs 1 audited with the events of the float Laplace sampler's lattice."""
    return AuditSetup(mechanism, 0, 1, "count 0 vs 1", eps, events=laplace_lattice_events(1 / eps),
                      exact_epsilon=exact, event_losses=event_losses)


def _leaf_vector(eps: float, n: int) -> AuditSetup:
    law = VectorLaw((discrete_laplace_law(7, eps), discrete_laplace_law(0, eps)))
    law_prime = VectorLaw((discrete_laplace_law(8, eps), discrete_laplace_law(0, eps)))
    return AuditSetup(leaf_vector(eps), np.array([7, 0]), np.array([8, 0]),
                      "leaf (7, 0) vs (8, 0)", eps, law=law, law_prime=law_prime,
                      exact_epsilon=eps)


#: Each setup at the claimed ε (leaf labels: neighbours for n samples), by its id in setups.csv.
_BUILDERS: dict[str, Callable[[float, int], AuditSetup]] = {
    "discrete-laplace": lambda e, n: _count(discrete_laplace_count(e), e,
                                            lambda c: discrete_laplace_law(c, e), e),
    "laplace": lambda e, n: _count(laplace_count(e), e, _laplace_law(1 / e), e),
    "exponential": lambda e, n: _labels(
        exponential_choice(e), e, ("utilities (0, 1, …, 1) vs (1, 0, …, 0)", UTILITIES,
                                   UTILITIES_PRIME),
        partial(mechanisms.exponential_probabilities, epsilon=e, sensitivity=1.0)),
    "rosnam": lambda e, n: _labels(leaf_label(e, "rosnam"), e, n, lambda c: (
        mechanisms.report_noisy_max_probabilities(c.astype(float), epsilon=e, monotone=True))),
    "leaf-vector": _leaf_vector,
    "average-split": lambda e, n: _averaged(e, e / 5),
    "discrete-lattice": lambda e, n: _lattice(
        lambda x, m, rng: discrete_laplace_count(e)(x, m, rng).astype(float), e, e, {}),
    "smooth": lambda e, n: _labels(
        smooth_sensitivity_leaf_label(e), e, n,
        partial(mechanisms.smooth_sensitivity_label_probabilities, epsilon=e)),
    "half-noise": lambda e, n: _count(laplace_count_with_scale(1 / (2 * e)), e,
                                      _laplace_law(1 / (2 * e)), 2 * e),
    "average-not-split": lambda e, n: _averaged(e, e),
    # every output around 0 is on the lattice: "off the lattice" is impossible under D
    "float-lattice": lambda e, n: _lattice(laplace_count(e), e, math.inf,
                                           {"off the sampler's lattice around 0": math.inf}),
}
_ROWS = {row["name"]: row for row in csv.DictReader(
    files("dpviz.audit").joinpath("setups.csv").read_text(encoding="utf-8").splitlines())}

#: Every setup name, correct ones first (the explorer's picker).
SETUPS: tuple[str, ...] = tuple(_ROWS)
#: The broken (or withdrawn) setups.
BROKEN: tuple[str, ...] = tuple(s for s in SETUPS if _ROWS[s]["broken"] == "yes")
#: The correct setups.
CORRECT: tuple[str, ...] = tuple(s for s in SETUPS if s not in BROKEN)


def make_setup(name: str, epsilon: float, n_samples: int = 20_000) -> AuditSetup:
    """The setup ``name`` at the claimed ``epsilon`` (leaf labels: neighbours for ``n_samples``)."""
    if name not in _ROWS:
        raise InvalidParameterError(f"unknown setup {name!r}; known: {list(SETUPS)}")
    row = _ROWS[name]
    return replace(_BUILDERS[row["id"]](float(epsilon), int(n_samples)), name=name,
                   broken=row["broken"] == "yes", note=row["note"])


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


def audit_setup(s: AuditSetup, n_samples: int, seed: int = 0) -> AuditResult:
    """Audit a setup; ``exact_epsilon`` is the exact loss of the chosen event, when known."""
    result = audit(s.mechanism, s.D, s.D_prime, epsilon=s.epsilon, events=s.events,
                   n_samples=int(n_samples), seed=seed, neighbours=s.neighbours)
    return replace(result, exact_epsilon=event_loss(s, result.event, result.direction))


def run_audit(name: str, epsilon: float, n_samples: int, seed: int = 0) -> AuditResult:
    """:func:`audit_setup` of :func:`make_setup` ``(name, epsilon, n_samples)``."""
    return audit_setup(make_setup(name, epsilon, n_samples), n_samples, seed)
