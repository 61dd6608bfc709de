"""Exercise kinds that make students think: arguments, implementations, audits, predictions.

:mod:`dpviz.ui.exercises` keeps the registry and the ``check_*`` entry points the notebooks
call; this module holds the specifications of the four kinds and how an answer to each
is verified. A ``verify`` method returns the confirmation to print, or raises
``AssertionError`` with a hint that does not give the answer away.

* :class:`Argument` — a privacy argument in steps (:class:`Step`), one letter per step.
* :class:`Implementation` — the student writes a function, checked on test cases
  against an exact output law: it returns the probabilities (compared within an
  absolute tolerance), or it is a sampler ``f(..., rng)`` whose frequencies over
  ``n_samples`` seeded draws per case are compared with the exact law.
* :class:`AuditTask` — the student wraps a piece of an algorithm as a mechanism and
  audits it with :func:`dpviz.audit.engine.audit`; the mechanism's law and the audit's result
  are both checked. :class:`BreakTask` — a "break it" exercise: the broken mechanism
  must have the *specific* law asked for (e.g. Laplace at 2ε), and the checker audits it.
* :class:`Prediction` — predict a number, then move the slider: the value is computed
  live by the explorer's own function, and shown after a right or a wrong answer.

The sampling test
-----------------
Each exact law is cut into cells: one cell per outcome of a discrete law (consecutive
outcomes of a numeric law with more than ``max_cells`` outcomes are grouped into about
``max_cells`` cells of similar mass), and ``max_cells`` intervals of equal mass for a
:class:`dpviz.audit.exact_laws.ContinuousLaw`. The count of every cell of every case is
compared with its exact Binomial(n, p) law by a two-sided exact test at level
``false_alarm / m``, m the number of cells with 0 < p < 1 over all cases (Bonferroni). An
output the law never gives, a cell of probability 0 hit or a cell of probability 1
missed refuses the answer at no cost in level. A correct sampler is therefore refused
with probability at most ``false_alarm`` (1e-6 by default; :func:`false_alarm_bound`
computes the union bound exactly), and :func:`power_lower_bound` gives the probability
that a given wrong law is refused.
"""

from __future__ import annotations

import math
import numbers
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from dpviz.audit.engine import AuditResult, Mechanism, audit
from dpviz.audit.exact_laws import ContinuousLaw, DiscreteLaw
from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int, check_positive

__all__ = [
    "Argument",
    "AuditTask",
    "BreakTask",
    "Implementation",
    "LawCells",
    "Prediction",
    "Step",
    "false_alarm_bound",
    "law_cells",
    "power_lower_bound",
    "sampling_findings",
]

#: A law as the specs accept it: {outcome: probability}, probabilities of the outcomes
#: 0 … k−1, a :class:`~dpviz.audit.exact_laws.DiscreteLaw` or a
#: :class:`~dpviz.audit.exact_laws.ContinuousLaw`.
LawLike = Mapping[Any, float] | Sequence[float] | np.ndarray | DiscreteLaw | ContinuousLaw
MAX_SHOWN = 3  # findings shown in a message


# ----------------------------------------------------------------------------- laws and cells
def _key(value: Any) -> Any:
    """A hashable outcome: numpy scalars become Python numbers, arrays and lists tuples."""
    if isinstance(value, np.ndarray | np.generic):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return tuple(_key(v) for v in value)
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _discrete(law: Any, atol: float = 1e-9) -> dict[Any, float]:
    """{outcome: probability} of a discrete law, checked to be a distribution (sum within atol)."""
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
    pmf: dict[Any, float] = {}
    for outcome, p in pairs:
        if not _is_number(p) or not math.isfinite(p) or p < -1e-12:
            raise InvalidParameterError(f"probability of {outcome!r} must be >= 0, got {p!r}")
        pmf[_key(outcome)] = pmf.get(_key(outcome), 0.0) + max(float(p), 0.0)
    total = math.fsum(pmf.values())
    if not math.isclose(total, 1.0, rel_tol=0, abs_tol=atol):
        raise InvalidParameterError(f"a law's probabilities must sum to 1, got {total!r}")
    return pmf


@dataclass(frozen=True)
class LawCells:
    """An exact law cut into cells: their names and exact probabilities.

    A discrete law maps each outcome to a cell (``cell_of``); a continuous one has the
    increasing interior ``edges``, cell i holding the values in (edges[i−1], edges[i]].
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
        arr = outputs if isinstance(outputs, np.ndarray) else None
        if arr is not None and arr.ndim == 1 and arr.dtype.kind in "biuf":
            values, k = np.unique(arr, return_counts=True)
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


def _group_ordered(pmf: dict[Any, float], max_cells: int) -> LawCells:
    """Consecutive outcomes of a numeric law grouped into about ``max_cells`` cells."""
    outcomes = sorted(pmf)
    p = np.array([pmf[o] for o in outcomes])
    mid = np.cumsum(p) - p / 2
    group = np.minimum((mid * max_cells).astype(int), max_cells - 1)
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


def law_cells(law: LawLike, max_cells: int = 30) -> LawCells:
    """Cut ``law`` into the cells the sampling test counts (see the module docstring).

    Raises
    ------
    InvalidParameterError
        ``law`` is not a law (probabilities negative or not summing to 1, an unknown type).
    """
    max_cells = check_int(max_cells, "max_cells", minimum=2)
    if isinstance(law, ContinuousLaw):
        cdf = law.cdf
        edges = np.unique([_quantile(cdf, j / max_cells) for j in range(1, max_cells)])
        cum = np.array([0.0, *(float(cdf(e)) for e in edges), 1.0])
        names = tuple(_interval_words(a, b) for a, b in
                      zip([-math.inf, *edges], [*edges, math.inf], strict=True))
        return LawCells(names, np.diff(cum).clip(0.0, 1.0), edges=edges)
    pmf = _discrete(law)
    if len(pmf) > max_cells and all(_is_number(o) for o in pmf):
        return _group_ordered(pmf, max_cells)
    outcomes = list(pmf)
    return LawCells(tuple(f"the output {o!r}" for o in outcomes),
                    np.array([pmf[o] for o in outcomes]),
                    cell_of={o: i for i, o in enumerate(outcomes)})


def _level(cells: Sequence[LawCells], false_alarm: float) -> float:
    """Each cell's test level: ``false_alarm`` shared among the cells with 0 < p < 1."""
    m = sum(int(((c.probs > 0) & (c.probs < 1)).sum()) for c in cells)
    return false_alarm / max(m, 1)


def _region(n: int, p: float, level: float) -> tuple[int, int]:
    """Counts accepted for a cell of probability p: [lo, hi], each tail of mass <= level/2."""
    if p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return n, n
    return int(stats.binom.ppf(level / 2, n, p)), int(stats.binom.isf(level / 2, n, p))


def sampling_findings(outputs: Sequence[Any], laws: Sequence[LawLike], *, n_samples: int,
                      false_alarm: float = 1e-6, max_cells: int = 30,
                      names: Sequence[str] | None = None) -> list[str]:
    """What is wrong with draws ``outputs[i]`` (n_samples each) of exact laws ``laws[i]``.

    Returns an empty list when every cell count lies inside its acceptance region; a
    correct sampler gets a non-empty list with probability at most ``false_alarm``.
    ``names`` name the cases in the findings. The findings say which outcome came up too
    often or too rarely, never the exact probability.
    """
    cells = [law_cells(law, max_cells) for law in laws]
    level = _level(cells, false_alarm)
    found = []
    for i, (c, out) in enumerate(zip(cells, outputs, strict=True)):
        where = names[i] if names is not None else f"case {i + 1}"
        try:
            counts, unexpected = c.tally(out)
        except AssertionError as err:
            found.append(f"{where}: {err}")
            continue
        for o in unexpected[:MAX_SHOWN]:
            found.append(f"{where}: returned {o!r}, an output this law never gives")
        for name, p, k in zip(c.names, c.probs, counts, strict=True):
            lo, hi = _region(n_samples, float(p), level)
            if not lo <= k <= hi:
                how = "too often" if k > hi else "too rarely"
                found.append(f"{where}: {name} came up {k:,} times in {n_samples:,} "
                              f"draws ({k / n_samples:.1%}), {how} for the law asked for")
    return found


def _cell_masses(cells: LawCells, law: LawLike) -> tuple[np.ndarray, float]:
    """The mass ``law`` puts in each of ``cells``, and the mass it puts outside them."""
    if isinstance(law, ContinuousLaw):
        if cells.edges is None:
            return np.zeros(len(cells.names)), 1.0
        cum = np.array([0.0, *(float(law.cdf(e)) for e in cells.edges), 1.0])
        return np.diff(cum).clip(0.0, 1.0), 0.0
    pmf = _discrete(law)
    masses, outside = np.zeros(len(cells.names)), 0.0
    for o, p in pmf.items():
        if cells.edges is not None:
            masses[int(np.searchsorted(cells.edges, float(o), side="left"))] += p
        elif o in cells.cell_of:
            masses[cells.cell_of[o]] += p
        else:
            outside += p
    return masses, outside


def false_alarm_bound(laws: Sequence[LawLike], *, n_samples: int, false_alarm: float = 1e-6,
                      max_cells: int = 30) -> float:
    """Union bound on the probability that a sampler with exactly these laws is refused."""
    cells = [law_cells(law, max_cells) for law in laws]
    level = _level(cells, false_alarm)
    total = 0.0
    for c in cells:
        for p in c.probs:
            lo, hi = _region(n_samples, float(p), level)
            if 0 < p < 1:
                total += stats.binom.cdf(lo - 1, n_samples, p) + stats.binom.sf(hi, n_samples, p)
    return float(total)


def power_lower_bound(laws: Sequence[LawLike], alternatives: Sequence[LawLike], *,
                      n_samples: int, false_alarm: float = 1e-6, max_cells: int = 30) -> float:
    """A lower bound on the probability that a sampler with laws ``alternatives`` is refused.

    Each case is refused at least as often as its most telling cell (or its outputs
    outside the law); cases are independent.
    """
    cells = [law_cells(law, max_cells) for law in laws]
    level = _level(cells, false_alarm)
    accepted = 1.0
    for c, alt in zip(cells, alternatives, strict=True):
        masses, outside = _cell_masses(c, alt)
        best = -math.expm1(n_samples * math.log1p(-min(outside, 1.0))) if outside < 1 else 1.0
        for p, q in zip(c.probs, masses, strict=True):
            lo, hi = _region(n_samples, float(p), level)
            refuse = stats.binom.cdf(lo - 1, n_samples, q) + stats.binom.sf(hi, n_samples, q)
            best = max(best, float(refuse))
        accepted *= 1.0 - min(best, 1.0)
    return 1.0 - accepted


def _check_sampling_params(spec: Any) -> None:
    check_int(spec.n_samples, "n_samples", minimum=100)
    check_int(spec.seed, "seed", minimum=0)
    check_int(spec.max_cells, "max_cells", minimum=2)
    if not (_is_number(spec.false_alarm) and 0 < spec.false_alarm < 1):
        raise InvalidParameterError(f"false_alarm must be in (0, 1), got {spec.false_alarm!r}")


def _refuse(key: str, findings: list[str], hint: str, what: str) -> AssertionError:
    shown = findings[:MAX_SHOWN]
    more = f"\n  (and {len(findings) - MAX_SHOWN} more)" if len(findings) > MAX_SHOWN else ""
    return AssertionError(
        f"Exercise {key}: {what}\n  " + "\n  ".join(shown) + more + f"\nHint: {hint}"
    )


# ----------------------------------------------------------------------------- 1. arguments
_OPTION = re.compile(r"^[a-z]$")


@dataclass(frozen=True, eq=False)
class Step:
    """One step of an :class:`Argument`: a question, lettered options and the right one.

    Parameters
    ----------
    question : str
    options : dict of str to str
        ``{letter: text}``, letters a–z, at least two.
    correct : str
        The right letter.
    why_wrong : dict of str to str
        For every other letter, an explanation of what is wrong with it that teaches
        without naming the right option (a text quoting the right option's text, if it
        has 8 characters or more, or saying "(b)", "answer b" or "option b", is refused).
    """

    question: str
    options: Mapping[str, str]
    correct: str
    why_wrong: Mapping[str, str]

    def __post_init__(self) -> None:
        options = {str(k).lower(): str(v) for k, v in dict(self.options).items()}
        why = {str(k).lower(): str(v) for k, v in dict(self.why_wrong).items()}
        correct = str(self.correct).lower()
        if len(options) < 2 or not all(_OPTION.match(k) for k in options):
            raise InvalidParameterError(
                f"options must map at least two letters a–z to texts, got {sorted(options)}")
        if correct not in options:
            raise InvalidParameterError(f"correct {correct!r} is not one of {sorted(options)}")
        if set(why) != set(options) - {correct}:
            raise InvalidParameterError(
                f"why_wrong must explain every wrong option, {sorted(set(options) - {correct})}"
                f", and only those; got {sorted(why)}")
        reveal = re.compile(rf"(\({correct}\)|\b(answer|option|choice)\s+\(?{correct}\b)", re.I)
        for letter, text in why.items():
            quoted = len(options[correct].strip()) >= 8 and (
                options[correct].strip().lower() in text.lower())
            if reveal.search(text) or quoted:
                raise InvalidParameterError(
                    f"why_wrong[{letter!r}] gives the right option away; explain what is "
                    "wrong with this option instead")
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "why_wrong", why)
        object.__setattr__(self, "correct", correct)


@dataclass(frozen=True, eq=False)
class Argument:
    """A privacy argument in steps; the student answers one letter per step.

    Parameters
    ----------
    claim : str
        What the argument proves, e.g. "JPW's update stays ε-DP".
    steps : sequence of Step
    conclusion : str
        Printed after a right answer: the whole argument in a few sentences.
    """

    kind: ClassVar[str] = "argument"
    claim: str
    steps: tuple[Step, ...]
    conclusion: str = ""

    def __post_init__(self) -> None:
        steps = tuple(self.steps)
        if not steps or not all(isinstance(s, Step) for s in steps):
            raise InvalidParameterError("steps must be a non-empty sequence of Step")
        object.__setattr__(self, "steps", steps)

    def text(self) -> str:
        """The claim and the steps with their options, as Markdown (for a notebook cell)."""
        lines = [f"**Claim.** {self.claim}", ""]
        for i, step in enumerate(self.steps, 1):
            lines += [f"**Step {i}.** {step.question}", ""]
            lines += [f"- ({letter}) {text}" for letter, text in step.options.items()]
            lines.append("")
        return "\n".join(lines)

    def _letters(self, answers: Any, key: str) -> list[str]:
        if isinstance(answers, str):
            letters = [c for c in answers.lower() if not c.isspace() and c not in ",;"]
        elif isinstance(answers, Sequence):
            letters = [str(a).strip().lower() for a in answers]
        else:
            raise AssertionError(f"Exercise {key}: give your letters as a string like "
                                 f"'{'abcd'[:len(self.steps)]}' or a list, got {answers!r}")
        if len(letters) != len(self.steps):
            raise AssertionError(
                f"Exercise {key}: the argument has {len(self.steps)} steps; give one letter "
                f"per step (got {len(letters)}: {answers!r})")
        for i, (step, letter) in enumerate(zip(self.steps, letters, strict=True), 1):
            if letter not in step.options:
                raise AssertionError(f"Exercise {key}: step {i}: {letter!r} is not one of the "
                                     f"options {', '.join(step.options)}")
        return letters

    def verify(self, answers: Any, key: str) -> str:
        """The confirmation, or AssertionError naming each wrong step with its explanation."""
        letters = self._letters(answers, key)
        wrong = [
            f"step {i} — ({letter}) is not right: {step.why_wrong[letter]}"
            for i, (step, letter) in enumerate(zip(self.steps, letters, strict=True), 1)
            if letter != step.correct
        ]
        if wrong:
            raise AssertionError(f"Exercise {key}: not yet.\n  " + "\n  ".join(wrong))
        return f"Exercise {key}: correct! {self.conclusion}".rstrip()


# ----------------------------------------------------------------------------- 2. implementations
def _call(f: Callable[..., Any], case: Any, *rng: np.random.Generator) -> Any:
    """``f(**case, rng=…)`` for a dict of keyword arguments, ``f(*case, …)`` for a tuple."""
    if isinstance(case, Mapping):
        return f(**case, **({"rng": rng[0]} if rng else {}))
    return f(*case, *rng)


def _case_name(case: Any) -> str:
    if isinstance(case, Mapping):
        text = ", ".join(f"{k}={v!r}" for k, v in case.items())
    elif isinstance(case, tuple):
        text = ", ".join(map(repr, case))
    else:
        text = repr(case)
    return f"case ({text if len(text) <= 70 else text[:67] + '...'})"


def _check_cases(cases: Any, *, arguments: bool) -> tuple[Any, ...]:
    cases = tuple(cases)
    if not cases:
        raise InvalidParameterError("cases must hold at least one case")
    if arguments and not all(isinstance(c, Mapping | tuple) for c in cases):
        raise InvalidParameterError(
            "each case must be a dict of keyword arguments or a tuple of positional arguments")
    return cases


@dataclass(frozen=True, eq=False)
class Implementation:
    """Write a function; it is checked on test cases against exact output laws.

    Parameters
    ----------
    cases : sequence of dict or tuple
        The inputs: a dict is passed as keyword arguments, a tuple as positional ones.
    exact : callable
        ``exact(**case)`` (or ``exact(*case)``): the exact law of the output (see
        :data:`LawLike`).
    hint : str
        Shown after a wrong answer; must not give the answer away.
    sampler : bool, default False
        False: the student's ``f(**case)`` returns the probabilities, ``{outcome: p}`` or
        an array over outcomes 0 … k−1, compared with the exact ones within ``tolerance``.
        True: ``f(**case, rng=rng)`` returns one output; ``n_samples`` draws per case with
        a generator seeded by ``(seed, case index)`` go through the sampling test of the
        module docstring: a correct sampler is refused with probability at most
        ``false_alarm`` (default 1e-6, over all cases and outcomes).
    tolerance : float, default 1e-6
        Absolute tolerance on each probability (``sampler=False``).
    n_samples, false_alarm, seed, max_cells
        The sampling test (``sampler=True``).
    """

    kind: ClassVar[str] = "implementation"
    cases: tuple[Any, ...]
    exact: Callable[..., LawLike]
    hint: str
    sampler: bool = False
    tolerance: float = 1e-6
    n_samples: int = 20_000
    false_alarm: float = 1e-6
    seed: int = 0
    max_cells: int = 30

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", _check_cases(self.cases, arguments=True))
        if not callable(self.exact):
            raise InvalidParameterError("exact must be a function returning the exact law")
        check_positive(self.tolerance, "tolerance")
        _check_sampling_params(self)

    def laws(self) -> list[LawLike]:
        """The exact law of each case."""
        return [_call(self.exact, case) for case in self.cases]

    def false_alarm_bound(self) -> float:
        """Union bound on the probability that a correct sampler is refused."""
        return false_alarm_bound(self.laws(), n_samples=self.n_samples,
                                 false_alarm=self.false_alarm, max_cells=self.max_cells)

    def power(self, wrong: Callable[..., LawLike]) -> float:
        """Lower bound on the probability that a sampler with law ``wrong(**case)`` is refused."""
        return power_lower_bound(self.laws(), [_call(wrong, c) for c in self.cases],
                                 n_samples=self.n_samples, false_alarm=self.false_alarm,
                                 max_cells=self.max_cells)

    def verify(self, function: Any, key: str) -> str:
        """The confirmation, or AssertionError saying which case and outcome are off."""
        if not callable(function):
            raise AssertionError(f"Exercise {key}: pass your function itself (no call), "
                                 f"got {function!r}")
        if self.sampler:
            outputs = []
            for i, case in enumerate(self.cases):
                rng = np.random.default_rng([self.seed, i])
                outputs.append([_call(function, case, rng) for _ in range(self.n_samples)])
            findings = sampling_findings(
                outputs, self.laws(), n_samples=self.n_samples, false_alarm=self.false_alarm,
                max_cells=self.max_cells, names=[_case_name(c) for c in self.cases])
            what = "your sampler's draws do not follow the law asked for"
        else:
            findings = [f for case, law in zip(self.cases, self.laws(), strict=True)
                        for f in self._compare(function, case, law)]
            what = "your probabilities are not right"
        if findings:
            raise _refuse(key, findings, self.hint, what)
        how = (f"{self.n_samples:,} draws per case match the exact law" if self.sampler
               else "your probabilities match the exact ones")
        return f"Exercise {key}: correct! On {len(self.cases)} cases, {how}."

    def _compare(self, function: Callable[..., Any], case: Any, law: LawLike) -> list[str]:
        where, exact = _case_name(case), _discrete(law)
        try:
            got = _discrete(_call(function, case), atol=max(1e-9, self.tolerance * len(exact)))
        except InvalidParameterError as err:
            if "sum to 1" in str(err):
                return [f"{where}: your probabilities do not sum to 1 ({err})"]
            return [f"{where}: return a dict {{outcome: probability}} or an array of "
                    f"probabilities ({err})"]
        found = []
        for outcome in [*exact, *(o for o in got if o not in exact)]:
            mine = got.get(outcome, 0.0)
            diff = mine - exact.get(outcome, 0.0)
            if abs(diff) > self.tolerance:
                found.append(f"{where}: your probability of outcome {outcome!r} is {mine:.6g}, "
                             f"too {'high' if diff > 0 else 'low'}")
        return found


# ----------------------------------------------------------------------------- 3. audits
def _draw(mechanism: Any, data: Any, n: int, rng: np.random.Generator, key: str) -> np.ndarray:
    out = np.asarray(mechanism(data, n, rng))
    if out.ndim == 0 or out.shape[0] != n:
        raise AssertionError(
            f"Exercise {key}: mechanism(data, n, rng) must return n outputs; asked for "
            f"n = {n} it returned shape {out.shape}")
    return out


def _check_law(spec: Any, mechanism: Any, key: str) -> None:
    """Refuse ``mechanism`` unless its draws on ``spec.cases`` follow ``spec.exact``."""
    if not callable(mechanism):
        raise AssertionError(f"Exercise {key}: pass your mechanism, a function "
                             f"mechanism(data, n, rng), got {mechanism!r}")
    outputs = [_draw(mechanism, data, spec.n_samples, np.random.default_rng([spec.seed, i]), key)
               for i, data in enumerate(spec.cases)]
    findings = sampling_findings(
        outputs, [spec.exact(d) for d in spec.cases], n_samples=spec.n_samples,
        false_alarm=spec.false_alarm, max_cells=spec.max_cells,
        names=[f"data {_case_name(d)[5:]}" for d in spec.cases])
    if findings:
        raise _refuse(key, findings, spec.hint,
                      "your mechanism does not have the output law this exercise asks for")


@dataclass(frozen=True, eq=False)
class AuditTask:
    """Wrap a piece of an algorithm as a mechanism, audit it, pass both to the check.

    The check refuses (i) a mechanism whose output law on each of ``cases`` is not
    ``exact`` (the sampling test of the module docstring, ``n_samples`` draws per case,
    false alarm at most ``false_alarm``), so a mechanism without noise or with the wrong
    noise is refused; (ii) an :class:`~dpviz.audit.engine.AuditResult` that is not a consistent
    audit of it: claimed ε other than ``epsilon``, fewer than ``min_samples`` samples
    per neighbour, confidence below 1 − ``max_alpha``, a verdict other than ``violation``,
    a bound above ``max_loss + margin`` (more than the mechanism can leak on any
    neighbours: the audit was not of this mechanism on neighbours) or below ``min_bound``
    (neighbours that reveal too little).

    Parameters
    ----------
    cases : sequence
        Data on which the mechanism's law is checked, passed as ``mechanism(data, n, rng)``.
    exact : callable
        ``exact(data)``: the exact law of one output on ``data``.
    epsilon : float
        The ε the audit must claim.
    hint : str
        Shown after a mechanism with the wrong law.
    violation : bool, default False
        The verdict the audit must reach.
    max_loss : float, optional
        The mechanism's exact worst-case privacy loss.
    margin : float, default 0.1
    min_bound : float, default 0.0
    min_samples : int, default 10_000
    max_alpha : float, default 0.05
    n_samples, false_alarm, seed, max_cells
        The sampling test.
    """

    kind: ClassVar[str] = "audit"
    cases: tuple[Any, ...]
    exact: Callable[[Any], LawLike]
    epsilon: float
    hint: str
    violation: bool = False
    max_loss: float | None = None
    margin: float = 0.1
    min_bound: float = 0.0
    min_samples: int = 10_000
    max_alpha: float = 0.05
    n_samples: int = 20_000
    false_alarm: float = 1e-6
    seed: int = 0
    max_cells: int = 30

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", _check_cases(self.cases, arguments=False))
        check_positive(self.epsilon, "epsilon")
        check_positive(self.margin, "margin", allow_zero=True)
        check_positive(self.min_bound, "min_bound", allow_zero=True)
        check_int(self.min_samples, "min_samples", minimum=20)
        if self.max_loss is not None:
            check_positive(self.max_loss, "max_loss", allow_zero=True)
        if not (_is_number(self.max_alpha) and 0 < self.max_alpha < 1):
            raise InvalidParameterError(f"max_alpha must be in (0, 1), got {self.max_alpha!r}")
        _check_sampling_params(self)

    def verify(self, mechanism: Any, result: Any, key: str) -> str:
        """The confirmation, or AssertionError on a wrong mechanism or an inconsistent audit."""
        if not isinstance(result, AuditResult):
            raise AssertionError(f"Exercise {key}: pass the AuditResult that "
                                 f"dpviz.audit.engine.audit returned, got {type(result).__name__}")
        _check_law(self, mechanism, key)
        problems = []
        if not math.isclose(result.epsilon, self.epsilon, rel_tol=1e-9):
            problems.append(f"your audit claims ε = {result.epsilon:g}; this exercise's "
                            f"claim is ε = {self.epsilon:g} (audit(..., epsilon=...))")
        if result.n_samples < self.min_samples:
            problems.append(f"your audit used {result.n_samples:,} samples per neighbour; "
                            f"use at least {self.min_samples:,}")
        if result.alpha > self.max_alpha:
            problems.append(f"your audit's confidence is {1 - result.alpha:.0%}; use at least "
                            f"{1 - self.max_alpha:.0%} (alpha={self.max_alpha:g})")
        problems += self._verdict_problems(result)
        if problems:
            raise AssertionError(f"Exercise {key}: your mechanism is right, but your audit "
                                 "is not yet:\n  " + "\n  ".join(problems))
        return (f"Exercise {key}: correct! Your mechanism has the law asked for, and your "
                f"audit says: {result.summary()}")

    def _verdict_problems(self, result: AuditResult) -> list[str]:
        found = []
        if result.reject != self.violation:
            found.append(
                "your audit reports a violation: are your D and D′ neighbours (one row "
                "apart), and did you audit this same mechanism?" if result.reject else
                "your audit found no violation: choose neighbours on which the output "
                "changes the most, and enough samples")
        elif self.max_loss is not None and result.epsilon_lower > self.max_loss + self.margin:
            found.append(f"your audit's bound, {result.epsilon_lower:.3g}, is more than this "
                         "mechanism can leak: are your D and D′ neighbours (one row apart), "
                         "and did you audit this same mechanism?")
        if result.epsilon_lower < self.min_bound:
            found.append(f"your audit's bound, {result.epsilon_lower:.3g}, is too small to "
                         "show much: choose neighbours on which the output changes more")
        return found


@dataclass(frozen=True, eq=False)
class BreakTask:
    """Break a mechanism in one *specific* way; the checker audits the broken mechanism.

    The student's ``mechanism(data, n, rng)`` must have the exact law ``exact(data)`` on
    both neighbours ``D`` and ``D_prime`` (the sampling test of the module docstring: a
    mechanism broken in another way is refused even if an audit would reject it). Then
    :func:`dpviz.audit.engine.audit` (``audit_samples`` per neighbour, seed ``seed``) must find
    the violation of the claimed ``epsilon``.

    Parameters
    ----------
    D, D_prime
        The neighbours.
    exact : callable
        ``exact(data)``: the law of the broken mechanism, e.g. Laplace at 2ε.
    epsilon : float
        The claim being broken.
    hint : str
        Shown after a mechanism with the wrong law.
    audit_samples : int, default 100_000
    n_samples, false_alarm, seed, max_cells
        The sampling test.
    """

    kind: ClassVar[str] = "break"
    D: Any
    D_prime: Any
    exact: Callable[[Any], LawLike]
    epsilon: float
    hint: str
    audit_samples: int = 100_000
    n_samples: int = 20_000
    false_alarm: float = 1e-6
    seed: int = 0
    max_cells: int = 30

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        check_int(self.audit_samples, "audit_samples", minimum=20)
        _check_sampling_params(self)

    @property
    def cases(self) -> tuple[Any, Any]:
        """The data on which the law is checked: both neighbours."""
        return (self.D, self.D_prime)

    def verify(self, mechanism: Mechanism, key: str) -> tuple[str, AuditResult]:
        """Check the law, then audit: the confirmation and the audit's result."""
        _check_law(self, mechanism, key)
        result = audit(mechanism, self.D, self.D_prime, epsilon=self.epsilon,
                       n_samples=self.audit_samples, seed=self.seed,
                       neighbours=f"{self.D!r} vs {self.D_prime!r}"[:120])
        if not result.reject:
            raise AssertionError(f"Exercise {key}: your mechanism has the law asked for, but "
                                 f"the audit did not catch it: {result.summary()}")
        return f"Exercise {key}: caught! {result.summary()}", result


# ----------------------------------------------------------------------------- 4. predictions
@dataclass(frozen=True, eq=False)
class Prediction:
    """Predict a number, then move the slider; the check computes the value live.

    Parameters
    ----------
    compute : callable
        ``compute(seed) -> float``: the value at the setting stated in the question,
        computed by the library function the explorer draws.
    tolerance : float
        The smallest accepted distance between prediction and value.
    hint : str
        Shown when the prediction is far off (more than ``far_factor`` × the accepted
        distance); must not give the value away.
    seeds : tuple of int, default (0,)
        Runs of ``compute``; the value is their mean. With two or more runs the accepted
        distance is ``max(tolerance, spread_factor × the mean's standard error)`` (their
        standard deviation / √runs), so it follows the run-to-run spread of the value shown;
        with one run, choose ``tolerance`` from that spread.
    spread_factor, far_factor : float, default 3.0
    unit : str
        Appended to the numbers shown (e.g. ``" points"``).
    """

    kind: ClassVar[str] = "prediction"
    compute: Callable[[int], float]
    tolerance: float
    hint: str
    seeds: tuple[int, ...] = (0,)
    spread_factor: float = 3.0
    far_factor: float = 3.0
    unit: str = ""

    def __post_init__(self) -> None:
        if not callable(self.compute):
            raise InvalidParameterError("compute must be a function compute(seed) -> float")
        check_positive(self.tolerance, "tolerance")
        check_positive(self.spread_factor, "spread_factor", allow_zero=True)
        check_positive(self.far_factor, "far_factor")
        seeds = tuple(check_int(s, "seeds", minimum=0) for s in self.seeds)
        if not seeds:
            raise InvalidParameterError("seeds must hold at least one seed")
        object.__setattr__(self, "seeds", seeds)

    def evaluate(self) -> tuple[float, float, float]:
        """(value, run-to-run standard deviation, accepted distance), computed now."""
        runs = np.array([float(self.compute(s)) for s in self.seeds])
        if not np.isfinite(runs).all():
            raise InvalidParameterError(f"compute returned a non-finite value: {runs.tolist()}")
        spread = float(runs.std(ddof=1)) if len(runs) > 1 else 0.0
        standard_error = spread / math.sqrt(len(runs))
        return float(runs.mean()), spread, max(self.tolerance, self.spread_factor * standard_error)

    def verify(self, answer: Any, key: str) -> str:
        """Compute the value; say how far the prediction was (AssertionError if too far)."""
        if not _is_number(answer) or not math.isfinite(answer):
            raise AssertionError(f"Exercise {key}: expected a number, got {answer!r}")
        value, spread, accepted = self.evaluate()
        runs = (f" (mean of {len(self.seeds)} runs, run-to-run spread ±{spread:.3g})"
                if len(self.seeds) > 1 else "")
        seen = (f"you predicted {float(answer):.4g}{self.unit}; at this setting the value is "
                f"{value:.4g}{self.unit}{runs}")
        off = abs(float(answer) - value)
        if off <= accepted:
            return (f"Exercise {key}: well predicted! {seen}, within ±{accepted:.3g}. Now move "
                    "the slider and see how it changes.")
        advice = (f"Hint: {self.hint}" if off > self.far_factor * accepted
                  else "Close: now move the slider and see why.")
        raise AssertionError(f"Exercise {key}: {seen} — off by {off:.3g} (accepted "
                             f"±{accepted:.3g}). {advice}")
