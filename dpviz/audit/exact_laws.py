"""Exact output laws of small mechanisms, and the sampling test that compares draws with them.

The laws give the exact probability of the events an audit names (``x = v``, ``x ≤ t``,
``[i] x > t``). :func:`sampling_findings` checks a sampler's draws against its exact law at
a false-alarm rate fixed in advance (docs/privacy.md §8.3).
"""

from __future__ import annotations

import ast
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.audit.engine import clopper_pearson
from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int, is_real

__all__ = [
    "LEAF_LABEL_MECHANISMS", "ContinuousLaw", "DiscreteLaw", "Law", "LawCells", "LawLike",
    "VectorLaw", "anticipated_bound", "discrete_laplace_law", "event_probability",
    "exact_event_losses", "false_alarm_bound", "label_law", "law_cells", "leaf_label_loss",
    "pair_epsilon", "pmf", "power_lower_bound", "sampling_findings", "smooth_sensitivity_loss"
]


class Law:
    """An exact output law: probabilities of ``x = v``, ``x ≤ t`` and ``x > t``."""

    def prob(self, op: str, value: Any) -> float:  # pragma: no cover - interface
        """P[x = value] (``op`` ``"="``), P[x ≤ value] (``"≤"``) or P[x > value] (``">"``)."""
        raise NotImplementedError


@dataclass(frozen=True)
class DiscreteLaw(Law):
    """A law on finitely many values: ``pmf[i]`` is the probability of ``support[i]``."""

    support: np.ndarray
    pmf: np.ndarray

    def prob(self, op: str, value: Any) -> float:
        """See :meth:`Law.prob`."""
        if op == "=":
            return float(self.pmf[self.support == value].sum())
        below = self.pmf[self.support <= value].sum()
        return float(below if op == "≤" else max(1.0 - below, 0.0))


@dataclass(frozen=True)
class ContinuousLaw(Law):
    """A continuous law given by its cumulative distribution function."""

    cdf: Callable[[float], float]

    def prob(self, op: str, value: Any) -> float:
        """See :meth:`Law.prob`."""
        if op == "=":
            return 0.0
        below = float(self.cdf(float(value)))
        return below if op == "≤" else 1.0 - below


def laplace_cdf(x: Any, loc: float, scale: float) -> Any:
    """P(Lap(loc, scale) ≤ x), elementwise (bit for bit ``scipy.stats.laplace.cdf``)."""
    z = (np.asarray(x, dtype=float) - loc) / scale
    below, above = 0.5 * np.exp(np.minimum(z, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(z, 0.0))
    return np.where(z < 0, below, above)


@dataclass(frozen=True)
class VectorLaw(Law):
    """Independent coordinates (events ``[i] x ...`` read coordinate i)."""

    coordinates: tuple[Law, ...]


_EVENT = re.compile(r"^(?:\[(\d+)\] )?x (=|≤|>) (.+)$")


def event_probability(law: Law, name: str) -> float | None:
    """Exact probability of an event named as :func:`~dpviz.audit.engine.auto_events` does."""
    match = _EVENT.match(name)
    if match is None:
        return None
    coord, op, text = match.groups()
    if isinstance(law, VectorLaw) != (coord is not None):
        return None
    if isinstance(law, VectorLaw):
        law = law.coordinates[int(coord)]
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return law.prob(op, value) if isinstance(value, int | float) else None


def exact_event_losses(names: Sequence[str], law: Law, law_prime: Law) -> pd.DataFrame:
    """Columns ``event`` and ``loss`` = log P[M(D) ∈ E] / P[M(D′) ∈ E], finite losses only."""
    rows = []
    for name in names:
        p, q = event_probability(law, name), event_probability(law_prime, name)
        if p is not None and q is not None and p > 0 and q > 0:
            rows.append({"event": name, "loss": math.log(p) - math.log(q)})
    return pd.DataFrame(rows, columns=["event", "loss"])


def pair_epsilon(p: np.ndarray, q: np.ndarray) -> float:
    """Exact ε of two discrete laws on the same outcomes: max |log p/q| (∞ if supports differ)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    if np.any((p > 0) != (q > 0)):
        return math.inf
    both = p > 0
    return float(np.max(np.abs(np.log(p[both]) - np.log(q[both]))))


def discrete_laplace_law(centre: int, epsilon: float) -> DiscreteLaw:
    """``centre`` + discrete Laplace noise at ``epsilon`` (tails below 1e-19 cut)."""
    width = math.ceil(45.0 / epsilon) + 2
    k = np.arange(-width, width + 1)
    return DiscreteLaw(k + centre, np.asarray(mechanisms.discrete_laplace_pmf(k, epsilon=epsilon)))


def discrete_laplace_sum_law(n_terms: int, epsilon: float, centre: int = 0) -> DiscreteLaw:
    """``centre`` + the sum of ``n_terms`` independent discrete Laplace noises at ``epsilon``."""
    pmf = functools.reduce(np.convolve, [discrete_laplace_law(0, epsilon).pmf] * n_terms)
    width = (len(pmf) - 1) // 2
    return DiscreteLaw(np.arange(-width, width + 1) + centre, pmf)


def label_law(probabilities: np.ndarray) -> DiscreteLaw:
    """A label ``0 .. k-1`` drawn with the given probabilities."""
    p = np.asarray(probabilities, float)
    return DiscreteLaw(np.arange(len(p)), p)


#: The leaf-label mechanisms of the FI forest whose label law is known exactly.
LEAF_LABEL_MECHANISMS = ("rosnam", "exponential", "smooth_sensitivity")


def _leaf_label_log_probabilities(mechanism: str, counts: Any, epsilon: float) -> np.ndarray:
    counts = np.asarray(counts)
    if mechanism == "smooth_sensitivity":
        logits = mechanisms.smooth_sensitivity_logits(counts, epsilon=epsilon)
        return logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)
    if mechanism == "rosnam":
        p = mechanisms.report_noisy_max_probabilities(counts, epsilon=epsilon)
    elif mechanism == "exponential":  # the 0/1 "is a majority class" utility, sensitivity 1
        utility = (counts == counts.max(axis=-1, keepdims=True)).astype(float)
        p = mechanisms.exponential_probabilities(utility, epsilon=epsilon, sensitivity=1.0)
    else:
        raise InvalidParameterError(
            f"mechanism must be one of {LEAF_LABEL_MECHANISMS}, got {mechanism!r}"
        )
    with np.errstate(divide="ignore"):
        return np.log(p)


def leaf_label_loss(mechanism: str, epsilon: float) -> Callable[[Any, Any], float]:
    """``loss(counts, counts′)``: a label's exact max_c |log P(c | counts) / P(c | counts′)|."""

    def loss(d: Any, d_prime: Any) -> float:
        a = _leaf_label_log_probabilities(mechanism, d, epsilon)
        b = _leaf_label_log_probabilities(mechanism, d_prime, epsilon)
        return float(np.max(np.abs(a - b)))

    return loss


def smooth_sensitivity_loss(counts: Sequence[int], counts_prime: Sequence[int],
                            epsilon: float) -> float:
    """Exact privacy loss of the FI 2017 smooth-sensitivity label between two leaves."""
    return leaf_label_loss("smooth_sensitivity", epsilon)(counts, counts_prime)


def anticipated_bound(p: np.ndarray, q: np.ndarray, n: int, alpha: float) -> np.ndarray | float:
    """The bound an audit of ``n`` estimation samples gets at the expected counts (last axis)."""
    kp, kq = np.round(np.asarray(p) * n), np.round(np.asarray(q) * n)
    p_low, p_high = clopper_pearson(kp, n, alpha / 2)
    q_low, q_high = clopper_pearson(kq, n, alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        forward = np.log(p_low) - np.log(q_high)
        backward = np.log(q_low) - np.log(p_high)
    best = np.nan_to_num(np.maximum(forward, backward), nan=-np.inf)
    bound = np.max(best, axis=-1)
    return float(bound) if bound.ndim == 0 else bound


# ----------------------------------------------------------------------------- the sampling test
#: A law as the exercises give it: {outcome: probability}, probabilities of the outcomes
#: 0 … k−1, a :class:`DiscreteLaw` or a :class:`ContinuousLaw`.
LawLike = Mapping[Any, float] | Sequence[float] | np.ndarray | DiscreteLaw | ContinuousLaw
MAX_SHOWN = 3  # findings shown per message


def _key(value: Any) -> Any:
    """A hashable outcome: numpy scalars become Python numbers, arrays and lists tuples."""
    if isinstance(value, np.ndarray | np.generic):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return tuple(_key(v) for v in value)
    return value


def pmf(law: Any, atol: float = 1e-9) -> dict[Any, float]:
    """{outcome: probability} of a discrete :data:`LawLike`, checked to sum to 1 within ``atol``."""
    if isinstance(law, DiscreteLaw):
        pairs = zip(np.asarray(law.support).tolist(), np.asarray(law.pmf, float).tolist(),
                    strict=True)
    elif isinstance(law, Mapping):
        pairs = law.items()
    elif isinstance(law, Sequence | np.ndarray) and not isinstance(law, str):
        pairs = enumerate(np.asarray(law, dtype=float).ravel().tolist())
    else:
        raise InvalidParameterError(
            f"a law must be a dict {{outcome: probability}}, a sequence of probabilities, a "
            f"DiscreteLaw or a ContinuousLaw, got {type(law).__name__}"
        )
    out: dict[Any, float] = {}
    for outcome, p in pairs:
        if not is_real(p) or not math.isfinite(p) or p < -1e-12:
            raise InvalidParameterError(f"probability of {outcome!r} must be >= 0, got {p!r}")
        out[_key(outcome)] = out.get(_key(outcome), 0.0) + max(float(p), 0.0)
    total = math.fsum(out.values())
    if not math.isclose(total, 1.0, rel_tol=0, abs_tol=atol):
        raise InvalidParameterError(f"a law's probabilities must sum to 1, got {total!r}")
    return out


@dataclass(frozen=True)
class LawCells:
    """An exact law cut into named cells of known probability.

    Discrete: ``cell_of`` each outcome; continuous: cell i is (edges[i−1], edges[i]].
    """

    names: tuple[str, ...]
    probs: np.ndarray
    cell_of: Mapping[Any, int] | None = None
    edges: np.ndarray | None = None

    def tally(self, outputs: Any) -> tuple[np.ndarray, list[Any]]:
        """Counts per cell of ``outputs``, and the outputs the law never gives."""
        counts = np.zeros(len(self.names), dtype=np.int64)
        if self.edges is not None:
            try:
                x = np.asarray(outputs, dtype=np.float64)
            except (TypeError, ValueError):
                raise AssertionError("the outputs must be numbers") from None
            if x.ndim != 1:
                raise AssertionError(f"expected one number per draw, got shape {x.shape}")
            bad = ~np.isfinite(x)
            counts += np.bincount(np.searchsorted(self.edges, x[~bad], side="left"),
                                  minlength=len(self.names))
            return counts, np.unique(x[bad]).tolist()
        if isinstance(outputs, np.ndarray) and outputs.ndim == 1 and outputs.dtype.kind in "biuf":
            values, k = np.unique(outputs, return_counts=True)
            seen = Counter(dict(zip(values.tolist(), k.tolist(), strict=True)))
        else:
            try:
                seen = Counter(_key(o) for o in outputs)
            except TypeError:
                raise AssertionError(
                    "each draw must return one outcome (a label, a number or a tuple)"
                ) from None
        unexpected = []
        for outcome, k in seen.items():
            cell = self.cell_of.get(outcome) if self.cell_of is not None else None
            if cell is None:
                unexpected.append(outcome)
            else:
                counts[cell] += k
        return counts, unexpected


def _group_ordered(law: dict[Any, float], max_cells: int, tail: float = 0.0) -> LawCells:
    """Consecutive outcomes of a numeric law grouped into about ``max_cells`` cells.

    With ``tail`` > 0, the outcomes of each tail that hold at most ``tail`` of the mass in all
    (counted from the end) get a cell of their own, when there are such outcomes.
    """
    outcomes = sorted(law)
    p = np.array([law[o] for o in outcomes])
    mid = np.cumsum(p) - p / 2
    group = np.minimum((mid * max_cells).astype(int), max_cells - 1) + 1
    if tail > 0:
        group[np.cumsum(p) <= tail] = 0
        group[np.cumsum(p[::-1])[::-1] <= tail] = max_cells + 1
    _, first, cell = np.unique(group, return_index=True, return_inverse=True)
    last = np.append(first[1:], len(outcomes)) - 1
    names = tuple(
        f"the output {outcomes[a]!r}" if a == b
        else f"the outputs from {outcomes[a]!r} to {outcomes[b]!r}"
        for a, b in zip(first, last, strict=True)
    )
    probs = np.bincount(cell, weights=p, minlength=len(names))
    return LawCells(names, probs, cell_of=dict(zip(outcomes, cell.tolist(), strict=True)))


def _quantile(cdf: Callable[[float], float], q: float) -> float:
    """The smallest x (to float precision) with ``cdf(x) >= q``, by bracketing and bisection."""
    lo, hi = -1.0, 1.0
    while cdf(lo) >= q:
        lo *= 2.0
        if not math.isfinite(lo):
            raise InvalidParameterError("a continuous law's cdf must tend to 0 at −∞")
    while cdf(hi) < q:
        hi *= 2.0
        if not math.isfinite(hi):
            raise InvalidParameterError("a continuous law's cdf must tend to 1 at +∞")
    for _ in range(2100):
        mid = lo / 2.0 + hi / 2.0
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if cdf(mid) < q else (lo, mid)
    return hi


def _interval_words(a: float, b: float) -> str:
    """The cell (a, b] of a continuous law, in words."""
    if a == -math.inf:
        return f"the outputs up to {b:.6g}"
    if b == math.inf:
        return f"the outputs above {a:.6g}"
    return f"the outputs above {a:.6g} and up to {b:.6g}"


def _interval_masses(cdf: Callable[[float], float], edges: np.ndarray) -> np.ndarray:
    return np.diff(np.array([0.0, *(float(cdf(e)) for e in edges), 1.0])).clip(0.0, 1.0)


def law_cells(law: LawLike, max_cells: int = 30, tail: float = 0.0) -> LawCells:
    """Cut ``law`` into the cells the sampling test counts.

    One cell per outcome (beyond ``max_cells`` numeric outcomes: about ``max_cells`` runs of
    similar mass); ``max_cells`` intervals of equal mass for a :class:`ContinuousLaw`. With
    ``tail`` (a probability below 1/(4·``max_cells``); else ignored), a numeric law's outermost
    ``tail`` of mass on each side is a cell of its own too: a sampler whose draws never reach
    that far (noise truncated or clipped, its scale capped) leaves it empty.
    """
    max_cells = check_int(max_cells, "max_cells", minimum=2)
    tail = float(tail) if 0 < tail <= 1 / (4 * max_cells) else 0.0
    if isinstance(law, ContinuousLaw):
        levels = [j / max_cells for j in range(1, max_cells)] + ([tail, 1 - tail] if tail else [])
        edges = np.unique([_quantile(law.cdf, q) for q in levels])
        names = tuple(_interval_words(a, b) for a, b in
                      zip([-math.inf, *edges], [*edges, math.inf], strict=True))
        return LawCells(names, _interval_masses(law.cdf, edges), edges=edges)
    law = pmf(law)
    if len(law) > max_cells and all(is_real(o) for o in law):
        return _group_ordered(law, max_cells, tail)
    return LawCells(tuple(f"the output {o!r}" for o in law), np.array(list(law.values())),
                    cell_of={o: i for i, o in enumerate(law)})


def _cells_and_level(laws: Sequence[LawLike], max_cells: int, false_alarm: float,
                     tail: float = 0.0) -> tuple[list[LawCells], float]:
    """The cells of each law, and each cell's level: ``false_alarm`` / cells with 0 < p < 1."""
    cells = [law_cells(law, max_cells, tail) for law in laws]
    m = sum(int(((c.probs > 0) & (c.probs < 1)).sum()) for c in cells)
    return cells, false_alarm / max(m, 1)


def _region(n: int, p: float, level: float) -> tuple[int, int]:
    """Counts accepted for a cell of probability p: [lo, hi], each tail of mass <= level/2."""
    if p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return n, n
    from scipy import stats  # here: scipy.stats costs a page that never tests a histogram 0.6 s

    return int(stats.binom.ppf(level / 2, n, p)), int(stats.binom.isf(level / 2, n, p))


def _refusal(n: int, p: float, q: float, level: float) -> float:
    """Probability that a count of Binomial(n, q) falls outside the region of p."""
    from scipy import stats

    lo, hi = _region(n, p, level)
    return float(stats.binom.cdf(lo - 1, n, q) + stats.binom.sf(hi, n, q))


def sampling_findings(outputs: Sequence[Any], laws: Sequence[LawLike], *, n_samples: int,
                      false_alarm: float = 1e-6, max_cells: int = 30,
                      names: Sequence[str] | None = None, tail: float = 0.0) -> list[str]:
    """What is wrong, in words, with draws ``outputs[i]`` (``n_samples`` each) of ``laws[i]``.

    Each cell count is tested against its Binomial law at level ``false_alarm`` / (number
    of cells), so a correct sampler gets a finding with probability at most ``false_alarm``.
    ``tail``: the tail cells of :func:`law_cells`.
    """
    cells, level = _cells_and_level(laws, max_cells, false_alarm, tail)
    found = []
    for i, (c, out) in enumerate(zip(cells, outputs, strict=True)):
        where = names[i] if names is not None else f"case {i + 1}"
        try:
            counts, unexpected = c.tally(out)
        except AssertionError as err:
            found.append(f"{where}: {err}")
            continue
        found += [f"{where}: returned {o!r}, an output this law never gives"
                  for o in unexpected[:MAX_SHOWN]]
        for name, p, k in zip(c.names, c.probs, counts, strict=True):
            lo, hi = _region(n_samples, float(p), level)
            if not lo <= k <= hi:
                found.append(f"{where}: {_in_words(name, float(p), int(k), n_samples)}")
    return found


def _percent(p: float) -> str:
    """A probability as a percentage with two significant digits at least (0.041 → "4.1 %")."""
    return f"{100 * p:.2g} %" if p < 0.01 else f"{100 * p:.1f} %"


def _in_words(cell: str, p: float, k: int, n: int) -> str:
    """A cell that came up ``k`` times in ``n`` draws where the law gives it ``p``, in words."""
    one = cell.startswith("the output ")
    it, cell = ("it", "the value " + cell[11:]) if one else ("them", "values " + cell[12:])
    if k == 0:
        return (f"{cell} never came up in your {n:,} draws, but the law gives {it} "
                f"{_percent(p)} probability (about {p * n:,.0f} draws)")
    how = "often" if k > p * n else "rarely"
    return (f"{cell} came up in {_percent(k / n)} of your {n:,} draws, but the law gives {it} "
            f"{_percent(p)}: far too {how} to be chance")


def _cell_masses(cells: LawCells, law: LawLike) -> tuple[np.ndarray, float]:
    """The mass ``law`` puts in each of ``cells``, and the mass it puts outside them."""
    if isinstance(law, ContinuousLaw):
        if cells.edges is None:
            return np.zeros(len(cells.names)), 1.0
        return _interval_masses(law.cdf, cells.edges), 0.0
    masses, outside = np.zeros(len(cells.names)), 0.0
    for o, p in pmf(law).items():
        if cells.edges is not None:
            masses[int(np.searchsorted(cells.edges, float(o), side="left"))] += p
        elif o in cells.cell_of:
            masses[cells.cell_of[o]] += p
        else:
            outside += p
    return masses, outside


def false_alarm_bound(laws: Sequence[LawLike], *, n_samples: int, false_alarm: float = 1e-6,
                      max_cells: int = 30, tail: float = 0.0) -> float:
    """Union bound on the probability that a sampler with exactly these laws is refused."""
    cells, level = _cells_and_level(laws, max_cells, false_alarm, tail)
    return float(sum(_refusal(n_samples, float(p), float(p), level)
                     for c in cells for p in c.probs if 0 < p < 1))


def power_lower_bound(laws: Sequence[LawLike], alternatives: Sequence[LawLike], *,
                      n_samples: int, false_alarm: float = 1e-6, max_cells: int = 30,
                      tail: float = 0.0) -> float:
    """A lower bound on the probability that a sampler with laws ``alternatives`` is refused.

    Each (independent) case is refused at least as often as by its most telling cell.
    """
    cells, level = _cells_and_level(laws, max_cells, false_alarm, tail)
    accepted = 1.0
    for c, alt in zip(cells, alternatives, strict=True):
        masses, outside = _cell_masses(c, alt)
        best = -math.expm1(n_samples * math.log1p(-min(outside, 1.0))) if outside < 1 else 1.0
        for p, q in zip(c.probs, masses, strict=True):
            best = max(best, _refusal(n_samples, float(p), q, level))
        accepted *= 1.0 - min(best, 1.0)
    return 1.0 - accepted
