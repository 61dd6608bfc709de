"""Empirical privacy audits: sample a mechanism on neighbours, bound ε from below.

:func:`audit` chooses an event on a first part of the samples and bounds
``P[M(D) ∈ E] / P[M(D′) ∈ E]`` on the rest (Clopper–Pearson): a lower bound on the true ε
at confidence 1 − α, which refutes a claim, never proves one (docs/privacy.md §8.3).
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dpviz import mechanisms
from dpviz.errors import InvalidParameterError
from dpviz.lattice import uniform_lattice_member_any
from dpviz.validation import check_epsilon, check_int, check_positive, check_probability, is_real

__all__ = [
    "BATCH_SIZE", "AuditResult", "Event", "Interval", "audit", "audits_frame", "audits_from_frame",
    "auto_events", "bound_vs_samples", "clopper_pearson", "estimator_mechanism", "joint_events",
    "laplace_lattice_events", "laplace_lattice_member", "leaf_count_neighbours", "per_seed",
    "search_neighbours", "uniform_lattice_events"
]

Mechanism = Callable[[Any, int, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class Event:
    """An output event: a name and a vectorized membership test ``outputs -> bool array``."""

    name: str
    test: Callable[[np.ndarray], np.ndarray]

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        """Boolean membership of each output."""
        return np.asarray(self.test(outputs), dtype=bool)


_INTERVAL_FIELDS = ("estimate", "low", "high", "count", "n")


@dataclass(frozen=True)
class Interval:
    """A probability estimate with its one-sided Clopper–Pearson bounds (α/2 each side)."""

    estimate: float
    low: float
    high: float
    count: int
    n: int


def _check_alpha(alpha: object, name: str = "alpha") -> float:
    """``alpha`` (1 − the confidence) as a float, refused unless 0 < alpha < 1."""
    if not is_real(alpha) or math.isnan(alpha):
        why = "alpha must be a real number"
    elif alpha >= 1:
        why = ("alpha >= 1 is 0 % confidence (the bounds collapse to medians and noise looks "
               "like a violation)")
    elif alpha <= 0:
        why = "alpha <= 0 would be 100 % confidence (bounds of 0 and 1, which never reject)"
    else:
        return float(alpha)
    raise InvalidParameterError(
        f"{name} must satisfy 0 < alpha < 1 (it is 1 − the confidence), got {alpha!r}: "
        f"{why}; use e.g. 0.05 for 95 % confidence"
    )


def _check_counts(count: object, n: int) -> np.ndarray:
    """``count`` as a float array after checking every value is an integer in [0, n]."""
    if isinstance(count, bool | np.bool_) or (
        isinstance(count, np.ndarray) and count.dtype.kind == "b"
    ):
        raise InvalidParameterError(f"count must be an integer (or integers), got {count!r}")
    try:
        k = np.asarray(count, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"count must be an integer (or an array of integers), got {count!r}"
        ) from None
    for what, mask in (
        ("an integer (or integers): the number of samples in the event",
         ~(np.isfinite(k) & (k == np.round(k)))),
        (f"between 0 and n = {n} (a number of successes among n samples)", (k < 0) | (k > n)),
    ):
        if mask.any():
            bad = np.asarray(count)[mask].ravel()[0].item() if k.ndim else count
            raise InvalidParameterError(f"count must be {what}, got {bad!r}")
    return k


def clopper_pearson(count: int | np.ndarray, n: int, alpha: float) -> tuple[Any, Any]:
    """One-sided Clopper–Pearson bounds at level ``alpha`` each: (lower, upper), k in [0, n]."""
    n = check_int(n, "n", minimum=1)
    alpha = _check_alpha(alpha)
    k = _check_counts(count, n)
    from scipy.special import betaincinv  # here: a page that runs no audit skips scipy (0.2 s)

    with np.errstate(invalid="ignore"):
        lower = np.where(k > 0, betaincinv(k, n - k + 1, alpha), 0.0)
        upper = np.where(k < n, betaincinv(k + 1, n - k, 1 - alpha), 1.0)
    return lower, upper


def _log_ratio_bound(p_low: Any, q_high: Any) -> Any:
    """log(p_low / q_high), clipped at 0 (a negative bound says nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.log(np.asarray(p_low, float)) - np.log(np.asarray(q_high, float))
    return np.maximum(np.nan_to_num(value, nan=0.0, neginf=0.0), 0.0)


@dataclass
class AuditResult:
    """The outcome of an audit: ``epsilon_lower`` bounds ε at confidence 1 − ``alpha``.

    ``reject``: ``epsilon_lower > epsilon``; ``p``, ``p_prime``: the estimation intervals;
    ``selection``: every candidate's selection counts and bounds; ``n_samples`` per neighbour.
    """

    epsilon: float
    epsilon_lower: float
    reject: bool
    event: str
    direction: str
    p: Interval
    p_prime: Interval
    neighbours: str
    n_samples: int
    alpha: float
    exact_epsilon: float | None = None
    selection: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    seconds: float = 0.0

    @property
    def ratio(self) -> float:
        """Point estimate of the probability ratio on the estimation samples."""
        num, den = (self.p, self.p_prime) if self.direction == "D/D'" else (self.p_prime, self.p)
        return math.inf if den.estimate == 0 else num.estimate / den.estimate

    def summary(self) -> str:
        """A plain-language verdict."""
        conf = f"{100 * (1 - self.alpha):.0f}%"
        bound = f"ε ≥ {self.epsilon_lower:.3g} with {conf} confidence"
        if self.reject:
            text = (
                f"VIOLATION: {bound}, above the claimed ε = {self.epsilon:g} "
                f"(event {self.event}, {self.direction}, {self.n_samples} samples per neighbour)"
            )
        else:
            text = (
                f"no violation found at {self.n_samples} samples per neighbour: {bound} "
                f"does not exceed the claimed ε = {self.epsilon:g} (event {self.event})"
            )
        if self.exact_epsilon is not None:
            text += f"; the exact privacy loss is {self.exact_epsilon:.3g}"
        return text

    def __str__(self) -> str:
        return self.summary()

    def to_frame(self) -> pd.DataFrame:
        """The two probability estimates and their intervals, one row per neighbour."""
        return pd.DataFrame([{"neighbour": name, **{k: getattr(i, k) for k in _INTERVAL_FIELDS}}
                             for name, i in (("D", self.p), ("D'", self.p_prime))])


_SELECTION = ["event", "count_D", "count_D'", "bound_D/D'", "bound_D'/D"]


def audits_frame(results: dict[str, AuditResult]) -> pd.DataFrame:
    """Named audits as one frame, a row per candidate event (:func:`audits_from_frame` reads it)."""
    frames = []
    for name, r in results.items():
        head = {"audit": name, "epsilon": r.epsilon, "epsilon_lower": r.epsilon_lower,
                "reject": r.reject, "event_chosen": r.event, "direction": r.direction,
                "neighbours": r.neighbours, "n_samples": r.n_samples, "alpha": r.alpha,
                "exact_epsilon": math.nan if r.exact_epsilon is None else r.exact_epsilon,
                "seconds": r.seconds}
        head |= {f"p_{k}": getattr(r.p, k) for k in _INTERVAL_FIELDS}
        head |= {f"p_prime_{k}": getattr(r.p_prime, k) for k in _INTERVAL_FIELDS}
        frames.append(r.selection.assign(**head)[[*head, *r.selection.columns]])
    return pd.concat(frames, ignore_index=True)


def _interval(row: pd.Series, prefix: str) -> Interval:
    return Interval(*(int(row[prefix + k]) if k in ("count", "n") else float(row[prefix + k])
                      for k in _INTERVAL_FIELDS))


def audits_from_frame(frame: pd.DataFrame) -> dict[str, AuditResult]:
    """The audits of an :func:`audits_frame`, by name."""
    out = {}
    for name, rows in frame.groupby("audit", sort=False):
        top = rows.iloc[0]
        out[name] = AuditResult(
            epsilon=float(top["epsilon"]), epsilon_lower=float(top["epsilon_lower"]),
            reject=bool(top["reject"]), event=str(top["event_chosen"]),
            direction=str(top["direction"]), p=_interval(top, "p_"),
            p_prime=_interval(top, "p_prime_"), neighbours=str(top["neighbours"]),
            n_samples=int(top["n_samples"]), alpha=float(top["alpha"]),
            exact_epsilon=None if pd.isna(top["exact_epsilon"]) else float(top["exact_epsilon"]),
            selection=rows[_SELECTION].reset_index(drop=True), seconds=float(top["seconds"]),
        )
    return out


# ---------------------------------------------------------------------------------- events
def auto_events(
    a: np.ndarray, b: np.ndarray, *, max_values: int = 60, n_quantiles: int = 39
) -> list[Event]:
    """Candidate events from pooled selection samples of both neighbours.

    One event per value of discrete outputs (integers, or few values), one-sided
    thresholds at pooled quantiles of numbers (ordered integers too); per coordinate of vectors.
    """
    a, b = np.asarray(a), np.asarray(b)
    max_values = check_int(max_values, "max_values", minimum=1)
    n_quantiles = check_int(n_quantiles, "n_quantiles", minimum=1)
    if a.ndim not in (1, 2) or a.ndim != b.ndim or a.shape[1:] != b.shape[1:]:
        raise InvalidParameterError(
            f"auto_events needs samples of shape (n,) or (n, d) on both neighbours, with the "
            f"same d; got shapes {a.shape} and {b.shape}"
        )
    if a.ndim == 2:
        return [Event(f"[{j}] {e.name}", lambda x, e=e, j=j: e(np.asarray(x)[:, j]))
                for j in range(a.shape[1])
                for e in auto_events(a[:, j], b[:, j], max_values=max_values,
                                     n_quantiles=n_quantiles)]
    pooled = np.concatenate([a, b])
    values = np.unique(pooled)
    discrete = pooled.dtype.kind in "biu" or pooled.dtype.kind in "OUS" or len(values) <= max_values
    events: list[Event] = []
    if discrete:
        if len(values) > max_values:  # many integer values: keep the most frequent and thresholds
            counts = np.unique(pooled, return_counts=True)[1]
            values = values[np.argsort(counts)[::-1][:max_values]]
        events = [Event(f"x = {(v.item() if isinstance(v, np.generic) else v)!r}",
                        lambda x, v=v: np.asarray(x) == v) for v in values]
    if pooled.dtype.kind in "biuf" and (not discrete or len(values) > 2):
        for t in np.unique(np.quantile(pooled, np.linspace(0.01, 0.99, n_quantiles))):
            events += [Event(f"x ≤ {t:.6g}", lambda x, t=t: np.asarray(x) <= t),
                       Event(f"x > {t:.6g}", lambda x, t=t: np.asarray(x) > t)]
    return events


def joint_events(a: np.ndarray, b: np.ndarray, *, max_columns: int = 10) -> list[Event]:
    """:func:`auto_events` of the pairwise differences and sums of the outputs' coordinates.

    A release is joined as an attacker joins it: two counts that share their noise have an
    exact difference, and a label read beside the tree's shape tells more than each alone.
    The first ``max_columns`` coordinates of outputs (n, d); none for d < 2.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] < 2:
        return []
    d = min(a.shape[1], max_columns)
    events: list[Event] = []
    for i in range(d):
        for j in range(i + 1, d):
            for sign, op in ((-1.0, "−"), (1.0, "+")):
                def joined(x: np.ndarray, i: int = i, j: int = j, sign: float = sign) -> Any:
                    x = np.asarray(x, dtype=np.float64)
                    return x[:, i] + sign * x[:, j]

                events += [Event(f"[{i}] {op} [{j}]: {e.name}", lambda x, e=e, f=joined: e(f(x)))
                           for e in auto_events(joined(a), joined(b), n_quantiles=9)]
    return events


def laplace_lattice_member(values: np.ndarray, *, center: float, scale: float) -> np.ndarray:
    """Whether each value is an output ``fl(center + noise)`` of dpviz's Laplace sampler."""
    scale = check_positive(scale, "scale")
    center = _check_finite(center, "center")
    y = np.asarray(values, dtype=np.float64).ravel()
    noise = y - center
    with np.errstate(over="ignore", invalid="ignore"):
        half = -np.expm1(-np.abs(noise) / scale) / 2.0  # |U - 1/2|
    u = 0.5 + np.sign(noise) * half
    k0 = np.floor(u * 2.0**52 - 0.5)
    found = np.zeros(y.shape, dtype=bool)
    for d in range(-3, 4):
        k = k0 + d
        ok = (k >= 0) & (k < 2.0**52)
        uk = (np.where(ok, k, 0.0) + 0.5) * 2.0**-52
        with np.errstate(invalid="ignore"):
            found |= ok & (center + mechanisms.laplace_noise(uk, scale=scale) == y)
    return found.reshape(np.shape(values))


def laplace_lattice_events(scale: float, center: float = 0.0) -> list[Event]:
    """On / off the lattice of dpviz's float Laplace sampler (``scale``) around D's ``center``.

    Mironov (2012): "off the lattice around ``center``" is impossible under D and common
    under ``center + 1``, whatever ε the scale was meant to give.
    """
    scale = check_positive(scale, "scale")
    center = _check_finite(center, "center")

    return _on_off(f"the sampler's lattice around {center:g}",
                   lambda y: laplace_lattice_member(y, center=center, scale=scale))


def _on_off(where: str, on: Callable[[np.ndarray], np.ndarray]) -> list[Event]:
    """The events "on ``where``" (membership test ``on``) and "off ``where``"."""
    return [Event(f"on {where}", on), Event(f"off {where}", lambda y: ~on(y))]


def uniform_lattice_events(ranges: Sequence[tuple[float, float]]) -> list[Event]:
    """On / off the lattices of ``rng.uniform(start, end)`` for D's ``ranges`` (FS §4.3)."""
    ranges = [
        (_check_finite(a, "ranges"), _check_finite(b, "ranges")) for a, b in ranges
    ]
    bad = [(a, b) for a, b in ranges if a > b]
    if not ranges or bad:
        raise InvalidParameterError(
            f"ranges must be a non-empty list of (start, end) with finite start <= end, got "
            f"{bad[0] if bad else ranges!r}"
        )

    return _on_off("D's lattices",
                   lambda y: uniform_lattice_member_any(np.asarray(y, dtype=np.float64), ranges))


# ---------------------------------------------------------------------------------- audit
def _check_finite(value: object, name: str) -> float:
    if not is_real(value) or not math.isfinite(value):
        raise InvalidParameterError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def _counts(events: Sequence[Event], outputs: np.ndarray) -> np.ndarray:
    counts = []
    for e in events:
        if not isinstance(e, Event):
            raise InvalidParameterError(
                f"events must be Event objects (name and membership test), got {e!r}"
            )
        mask = e(outputs)
        if mask.shape != (len(outputs),):
            raise InvalidParameterError(
                f"event {e.name!r} returned an array of shape {mask.shape} for "
                f"{len(outputs)} outputs; an event's test must return one bool per output, "
                f"shape ({len(outputs)},)"
            )
        counts.append(int(mask.sum()))
    return np.array(counts, dtype=np.int64)


def _sample(mechanism: Mechanism, data: Any, n: int, rng: np.random.Generator,
            which: str) -> np.ndarray:
    """``n`` outputs of ``mechanism`` on ``data``, refused unless exactly ``n`` were returned."""
    out = np.asarray(mechanism(data, n, rng))
    if out.ndim == 0 or out.shape[0] != n:
        name = getattr(mechanism, "__qualname__", None) or repr(mechanism)
        raise InvalidParameterError(
            f"mechanism {name} returned outputs of shape {out.shape} on {which} when asked for "
            f"n = {n} samples; mechanism(data, n, rng) must return an array of n outputs "
            f"(shape ({n},) or ({n}, d))"
        )
    return out


def _bounds(ka: Any, kb: Any, n: int, alpha: float) -> tuple[Any, Any, Any, Any]:
    """Clopper–Pearson (lower, upper) of both counts at α/2 each, and the ε bounds D/D′, D′/D."""
    a, b = clopper_pearson(ka, n, alpha / 2), clopper_pearson(kb, n, alpha / 2)
    return a, b, _log_ratio_bound(a[0], b[1]), _log_ratio_bound(b[0], a[1])


def _select(
    events: Sequence[Event], ka: np.ndarray, kb: np.ndarray, n: int, alpha: float
) -> tuple[int, str, pd.DataFrame]:
    """The event and direction with the largest bound on the selection counts ``ka``, ``kb``."""
    _, _, forward, backward = _bounds(ka, kb, n, alpha)
    table = pd.DataFrame(dict(zip(_SELECTION, ([e.name for e in events], ka, kb, forward,
                                               backward), strict=True)))
    best = np.maximum(forward, backward)
    # ties (e.g. all zero): prefer the event with the largest point-estimate log-ratio
    with np.errstate(divide="ignore", invalid="ignore"):
        point = np.abs(np.log((ka + 0.5) / n) - np.log((kb + 0.5) / n))
    i = int(np.lexsort((point, best))[-1])
    direction = (
        "D/D'"
        if forward[i] > backward[i] or (forward[i] == backward[i] and ka[i] >= kb[i])
        else "D'/D"
    )
    return i, direction, table


#: Samples per neighbour drawn by one call of the mechanism: larger audits draw and count in
#: batches of this size (bounded memory).
BATCH_SIZE = 1_000_000


def _batches(n: int) -> list[int]:
    """Sizes of the batches of ``n`` samples: ``BATCH_SIZE`` each, the last one smaller."""
    return [min(BATCH_SIZE, n - start) for start in range(0, n, BATCH_SIZE)]


def _candidates(
    events: str | Sequence[Event], extra_events: Sequence[Event], a: np.ndarray, b: np.ndarray,
    joint: bool = False,
) -> list[Event]:
    """The candidate events: ``events`` or "auto" ones, plus ``extra_events``.

    "auto": :func:`auto_events` of ``a`` and ``b``, and with ``joint`` :func:`joint_events`.
    """
    candidates = auto_events(a, b) if isinstance(events, str) else list(events)
    if joint and isinstance(events, str):
        candidates += joint_events(a, b)
    candidates += list(extra_events)
    if not candidates:
        raise InvalidParameterError("no candidate events")
    return candidates


def _select_and_count(
    mechanism: Mechanism, pair: tuple[Any, Any], events: str | Sequence[Event],
    extra_events: Sequence[Event], n_samples: int, n_sel: int, alpha: float,
    rng: np.random.Generator, joint: bool = False,
) -> tuple[Event, str, pd.DataFrame, int, int]:
    """Choose the event on the first ``n_sel`` samples; count it on the others.

    Up to ``BATCH_SIZE``: all samples of D, then of D′, in one call each. Beyond: selection,
    then estimation, ``BATCH_SIZE`` samples at a time, keeping only counts (``"auto"``
    events come from the first selection batch).
    """
    if n_samples <= BATCH_SIZE:
        out_a = _sample(mechanism, pair[0], n_samples, rng, "D")
        out_b = _sample(mechanism, pair[1], n_samples, rng, "D'")
        selection = iter([(out_a[:n_sel], out_b[:n_sel])])
        estimation = iter([(out_a[n_sel:], out_b[n_sel:])])
    else:  # drawn lazily: every selection batch is counted before the estimation ones

        def batches(size: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
            for m in _batches(size):
                yield (_sample(mechanism, pair[0], m, rng, "D"),
                       _sample(mechanism, pair[1], m, rng, "D'"))

        selection, estimation = batches(n_sel), batches(n_samples - n_sel)
    a, b = next(selection)
    candidates = _candidates(events, extra_events, a, b, joint)
    ka, kb = _counts(candidates, a), _counts(candidates, b)
    for a, b in selection:
        ka, kb = ka + _counts(candidates, a), kb + _counts(candidates, b)
    i, direction, table = _select(candidates, ka, kb, n_sel, alpha)
    event = candidates[i]
    counts = [(int(event(a).sum()), int(event(b).sum())) for a, b in estimation]
    return event, direction, table, sum(c for c, _ in counts), sum(c for _, c in counts)


def audit(
    mechanism: Mechanism,
    D: Any,
    D_prime: Any = None,
    *,
    epsilon: float,
    events: str | Sequence[Event] = "auto",
    n_samples: int = 100_000,
    alpha: float = 0.05,
    seed: int = 0,
    selection_fraction: float = 0.2,
    exact_epsilon: float | None = None,
    neighbours: str | None = None,
    extra_events: Sequence[Event] = (),
    joint: bool = False,
) -> AuditResult:
    """Audit ``mechanism`` on neighbours ``D``, ``D_prime`` against the claimed ``epsilon``.

    ``mechanism(data, n, rng)`` returns ``n`` independent outputs, shape (n,) or (n, d);
    ``D`` may be the pair (``D_prime`` None); ``epsilon`` may be ``inf`` (to measure).
    ``events``: candidates ("auto": :func:`auto_events` of the selection samples), plus
    ``extra_events``; ``selection_fraction`` of the ``n_samples`` per neighbour choose the
    event; ``alpha`` = 1 − confidence (α/2 each side); ``exact_epsilon``, the true loss
    when known, is reported with the result; ``joint``: "auto" events also of coordinates
    joined in pairs (:func:`joint_events`).
    """
    start = time.perf_counter()
    if D_prime is None:
        D, D_prime = D
    epsilon = check_epsilon(epsilon, allow_inf=True)
    n_samples = check_int(n_samples, "n_samples", minimum=20)
    alpha = _check_alpha(alpha)
    seed = check_int(seed, "seed", minimum=0)
    if exact_epsilon is not None and exact_epsilon != math.inf:
        exact_epsilon = check_positive(exact_epsilon, "exact_epsilon", allow_zero=True)
    fraction = check_probability(selection_fraction, "selection_fraction")
    if not 0 < fraction < 1:
        raise InvalidParameterError(f"selection_fraction must be in (0, 1), got {fraction!r}")
    if isinstance(events, str) and events != "auto":
        raise InvalidParameterError(f"events must be 'auto' or a list of Event, got {events!r}")
    rng = np.random.default_rng(seed)
    n_sel = max(int(n_samples * fraction), 10)
    n_est = n_samples - n_sel
    event, direction, table, ka, kb = _select_and_count(
        mechanism, (D, D_prime), events, extra_events, n_samples, n_sel, alpha, rng, joint
    )
    (a_low, a_high), (b_low, b_high), forward, backward = _bounds(ka, kb, n_est, alpha)
    p = Interval(ka / n_est, float(a_low), float(a_high), ka, n_est)
    q = Interval(kb / n_est, float(b_low), float(b_high), kb, n_est)
    bound = float(forward if direction == "D/D'" else backward)
    return AuditResult(epsilon, bound, bound > epsilon, event.name, direction, p, q,
                       neighbours or "D, D'", n_samples, alpha, exact_epsilon, table,
                       time.perf_counter() - start)


# ---------------------------------------------------------------------------------- neighbours
def leaf_count_neighbours(
    m_values: Sequence[int] = (1, 2, 3, 5, 10, 20, 50), n_classes: int = 2
) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Worst-case neighbouring class counts of one leaf, as (name, counts, counts′), per m."""
    n_classes = check_int(n_classes, "n_classes", minimum=2)
    m_values = list(m_values)
    bad = [m for m in m_values
           if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1]
    if not m_values or bad:
        raise InvalidParameterError(
            f"m_values must be a non-empty list of integers >= 1 (the larger count of the "
            f"leaf; m = 0 would make a near-tie with a negative count), got "
            f"{bad[0] if bad else m_values!r}"
        )

    def vec(*head: int) -> np.ndarray:
        v = np.zeros(n_classes, dtype=np.int64)
        v[: len(head)] = head
        return v

    pairs = [("empty vs one row", vec(0), vec(1))]
    for m in m_values:
        pairs += [
            (f"pure ({m}, 0) vs ({m + 1}, 0)", vec(m), vec(m + 1)),
            (f"pure ({m}, 0) vs ({m}, 1)", vec(m), vec(m, 1)),
            (f"near-tie ({m}, {m - 1}) vs ({m}, {m})", vec(m, m - 1), vec(m, m)),
            (f"tie ({m}, {m}) vs ({m + 1}, {m})", vec(m, m), vec(m + 1, m)),
        ]
    return pairs


def search_neighbours(
    mechanism: Mechanism,
    pairs: Sequence[tuple[str, Any, Any]],
    *,
    epsilon: float,
    n_search: int = 20_000,
    n_samples: int = 100_000,
    alpha: float = 0.05,
    seed: int = 0,
    exact: Callable[[Any, Any], float] | None = None,
) -> AuditResult:
    """Audit the most revealing of ``pairs`` (name, D, D′) again on fresh samples.

    Each pair gets ``n_search`` samples; the best one ``n_samples`` new ones, so the search
    cannot bias the bound. ``exact(D, D′)``, if given, is reported with the result.
    """
    pairs = list(pairs)
    if not pairs:
        raise InvalidParameterError(
            "pairs must hold at least one (name, D, D′) candidate, got an empty list; "
            "e.g. pairs=leaf_count_neighbours()"
        )
    _check_alpha(alpha)
    bounds = [audit(mechanism, d, d_prime, epsilon=epsilon, n_samples=n_search, alpha=alpha,
                    seed=seed + 1 + k).epsilon_lower for k, (_, d, d_prime) in enumerate(pairs)]
    name, d, d_prime = pairs[int(np.argmax(bounds))]  # the first of the largest bounds
    return audit(mechanism, d, d_prime, epsilon=epsilon, n_samples=n_samples, alpha=alpha,
                 seed=seed, neighbours=name,
                 exact_epsilon=None if exact is None else exact(d, d_prime))


# ---------------------------------------------------------------------------------- estimators
def per_seed(fit: Callable[[int], Any], n: int, rng: np.random.Generator,
             high: int = 2**63) -> np.ndarray:
    """``fit(seed)`` for ``n`` fresh seeds below ``high`` drawn from ``rng``, as an array."""
    return np.array([fit(int(s)) for s in rng.integers(0, high, size=n)])


def estimator_mechanism(
    make_estimator: Callable[[int], Any],
    canary: Any,
    *,
    output: str = "predict",
) -> Mechanism:
    """The mechanism "train ``make_estimator(seed)`` on (X, y), release ``output`` on a canary"."""
    if output not in ("predict", "proba"):
        raise InvalidParameterError(f"output must be 'predict' or 'proba', got {output!r}")

    def release(model: Any) -> Any:
        if output == "predict":
            return model.predict(canary)[0]
        return np.round(model.predict_proba(canary)[0], 6)

    def mechanism(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return per_seed(lambda s: release(make_estimator(s).fit(*data)), n, rng, 2**31 - 1)

    return mechanism


def bound_vs_samples(
    mechanisms: dict[str, tuple[Mechanism, Any, Any]],
    *,
    epsilon: float,
    sizes: Sequence[int] = (1_000, 3_000, 10_000, 30_000, 100_000),
    events: str | Sequence[Event] | dict[str, Sequence[Event]] = "auto",
    seed: int = 0,
) -> pd.DataFrame:
    """The ε lower bound of each audit (name → (mechanism, D, D′); events by name) per size."""
    if not mechanisms:
        raise InvalidParameterError("mechanisms must name at least one (mechanism, D, D′)")
    if isinstance(events, dict):
        absent = [name for name in mechanisms if name not in events]
        if absent:
            raise InvalidParameterError(
                f"events is a dict but has no entry for mechanism(s) {absent}; give every "
                "mechanism its events, or pass one list (or 'auto') for all"
            )
    rows = []
    for name, (mechanism, d, d_prime) in mechanisms.items():
        ev = events[name] if isinstance(events, dict) else events
        for n in sizes:
            r = audit(mechanism, d, d_prime, epsilon=epsilon, n_samples=n, seed=seed, events=ev)
            rows.append({"mechanism": name, "n_samples": n, "epsilon_lower": r.epsilon_lower,
                         "epsilon": epsilon, "reject": r.reject})
    return pd.DataFrame(rows)
