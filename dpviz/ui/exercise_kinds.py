"""The exercise kinds beyond a number: arguments, implementations, audits, predictions.

A spec's ``verify`` returns the confirmation to print or raises ``AssertionError`` with a
hint that does not give the answer away; draws go through the sampling test of
:mod:`dpviz.audit.exact_laws`, after the answer has shown that it draws only from the
generator it is given and fast enough (:data:`TIME_BUDGET`). A spec's ``worked_answer`` is
the instructor's key. The registry is :mod:`dpviz.ui.exercises`.
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int, check_positive, is_real

if TYPE_CHECKING:
    from dpviz.audit.engine import AuditResult, Mechanism
    from dpviz.audit.exact_laws import LawLike

__all__ = [
    "EPSILON", "FRACTION", "PERCENT", "POINTS", "PROBABILITY", "RNG_HINT", "TIME_BUDGET",
    "Argument", "AuditTask", "BreakTask", "Implementation", "Prediction", "Range", "Step"
]

#: Seconds of CPU a sampling check may spend on the student's draws; a slower answer is
#: stopped. CPU time, not the wall clock: on a server shared by a class, a correct answer is
#: not refused because the other kernels keep the cores busy.
TIME_BUDGET = 30.0
#: A check projected to take longer than this many seconds says so before it draws.
NOTICE_AFTER = 5.0
#: Draws per case of the probe runs, timed and compared across generators.
PROBE_DRAWS = 50
#: The clock of the time budget: the kernel's CPU seconds (tests put a clock of their own here).
clock: Callable[[], float] = time.process_time
#: The wall clock of the backstop, for an answer that sleeps or blocks (it uses no CPU).
wall_clock: Callable[[], float] = time.perf_counter
#: The backstop: a check stops after this many times its budget of wall-clock seconds.
WALL_FACTOR = 10.0
#: The hint of an answer that draws from anything but the generator it is given.
RNG_HINT = "your function must draw only from the rng it is given"
#: Draws a sampling check expects in each tail cell: the outermost TAIL_DRAWS / n_samples of a
#: numeric law's mass on each side is a cell of its own (for 20,000 draws, 0.15 %: Laplace noise
#: beyond 5.8 scales), so that noise truncated or clipped short of it is refused.
TAIL_DRAWS = 30
#: The environment variable that sets the seed of every check's drawn cases (a grader's own,
#: kept outside the repository); without it each exercise draws from its ``seed``.
CASE_SEED_VARIABLE = "DPVIZ_CASE_SEED"
#: The folder of the dpviz package: an answer may not call into it (but what its spec allows).
_DPVIZ = str(Path(__file__).resolve().parent.parent) + os.sep



def _engine() -> ModuleType:
    """:mod:`dpviz.audit.engine`, imported when a check runs (SciPy: no first chart waits)."""
    from dpviz.audit import engine

    return engine


def _laws() -> ModuleType:
    """:mod:`dpviz.audit.exact_laws`, imported when a check runs."""
    from dpviz.audit import exact_laws

    return exact_laws

# ----------------------------------------------------------------------------- ranges
@dataclass(frozen=True)
class Range:
    """The values an answer can take at all, and what they are called ("a percentage")."""

    low: float
    high: float
    name: str

    def problem(self, value: float, unit: str = "") -> str | None:
        """Why ``value`` cannot be right (it lies outside the range), or None."""
        if self.low <= value <= self.high:
            return None
        where = (f"is at least {self.low:g}{unit}" if self.high == math.inf
                 else f"lies between {self.low:g}{unit} and {self.high:g}{unit}")
        return f"{value:g}{unit} cannot be right: {self.name} {where}"


PERCENT = Range(0.0, 100.0, "a percentage")
PROBABILITY = Range(0.0, 1.0, "a probability")
FRACTION = Range(0.0, 1.0, "a fraction")
POINTS = Range(-100.0, 100.0, "a difference of two percentages")
EPSILON = Range(0.0, math.inf, "a privacy loss ε")


# ----------------------------------------------------------------------------- the sampling test
class _Late(Exception):  # noqa: N818 - internal signal, never seen by a student
    """A :class:`_Watch` ran past its limit."""


class _Watch:
    """CPU seconds and draws since it started; ``tick`` raises :class:`_Late` past ``limit``.

    Or past :data:`WALL_FACTOR` × ``limit`` seconds of the wall clock (an answer that sleeps).
    """

    def __init__(self, limit: float, calls: _Calls | None = None) -> None:
        self.start, self.limit, self.done = clock(), limit, 0
        self.wall_start = wall_clock()
        self.calls = calls  # the profile of the answer's calls, when they are watched

    def seconds(self) -> float:
        return clock() - self.start

    def tick(self, draws: int = 1) -> None:
        self.done += draws
        if (self.seconds() > self.limit
                or wall_clock() - self.wall_start > WALL_FACTOR * self.limit):
            raise _Late


class _Calls:
    """A profile of one answer's calls (``sys.setprofile``): the first call into dpviz it makes.

    A call into the dpviz package from code outside it (the answer's own, numpy's) is
    recorded unless its name (``module.qualname``) starts with one of ``allowed`` or its code
    is one of ``keys`` (the worked answers); calls that dpviz makes inside it are not looked at.
    numpy, math, random and everything outside dpviz may be called freely.
    """

    def __init__(self, allowed: Sequence[str] = (), keys: Sequence[Any] = ()) -> None:
        self.allowed = tuple(allowed)
        self.keys = {getattr(k, "__code__", None) for k in keys} - {None}
        self.found: str | None = None
        self.depth = 0
        self.inside: int | None = None  # the depth at which the current call into dpviz began

    def run(self, f: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any:
        """``f(*args, **kwargs)`` under the profile.

        Not watched while another profiler runs (cProfile, a debugger's): it is left alone.
        """
        if sys.getprofile() is not None:
            return f(*args, **kwargs)
        self.depth, self.inside = 0, None
        sys.setprofile(self._event)
        try:
            return f(*args, **kwargs)
        finally:
            sys.setprofile(None)

    def _event(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self.depth += 1
            if self.inside is None and frame.f_code.co_filename.startswith(_DPVIZ):
                self.inside = self.depth
                name = f"{frame.f_globals.get('__name__', '?')}.{frame.f_code.co_qualname}"
                if frame.f_code not in self.keys and not name.startswith(self.allowed):
                    self.found = self.found or name
        elif event == "return":
            if self.inside == self.depth:
                self.inside = None
            self.depth -= 1
        elif event == "c_call" and self.inside is None:
            module = getattr(arg, "__module__", None) or ""
            if module == "dpviz" or module.startswith("dpviz."):
                self.found = self.found or f"{module}.{getattr(arg, '__qualname__', arg)}"


def _run_answer(f: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any],
                key: str, where: str, noun: str, hint: str, calls: _Calls | None = None) -> Any:
    """``f(*args, **kwargs)``, watched by ``calls``; an exception it raises is a refusal."""
    try:
        return f(*args, **kwargs) if calls is None else calls.run(f, args, kwargs)
    except _Late:
        raise
    except Exception as err:  # the student's code failed: say where, briefly
        text = str(err).strip().splitlines()
        raise AssertionError(
            f"Exercise {key}: on {where}, your {noun} raised {type(err).__name__}"
            f"{': ' + text[0][:200] if text else ''}.\nHint: {hint}") from None


def _refuse_calls(key: str, noun: str, calls: _Calls, hint: str) -> AssertionError:
    allowed = ", ".join(calls.allowed)
    return AssertionError(
        f"Exercise {key}: your {noun} calls dpviz's {calls.found}; this exercise asks you to "
        f"write that part yourself (numpy, math and random are fine"
        f"{'; from dpviz only ' + allowed if allowed else ''}).\nHint: {hint}")


#: ``draw(case, rng, n, watch)``: n outputs for ``case`` drawn from ``rng``, ticking ``watch``.
Draw = Callable[[Any, np.random.Generator, int, _Watch], Any]


def _same_draws(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """True if two runs gave the same outputs (arrays and scalars alike, NaN equal to NaN)."""
    def text(draws: Sequence[Any]) -> str:
        try:
            return repr([np.asarray(d).tolist() for d in draws])
        except (TypeError, ValueError):
            return repr(draws)
    return text(a) == text(b)


@dataclass(frozen=True, eq=False, kw_only=True)
class _SamplingTest:
    """``n_samples`` draws per case, seeded by ``(seed, case index)``: the sampling test.

    Before it, :data:`PROBE_DRAWS` draws per case are drawn twice from generators of one seed
    (they must agree: the answer draws only from its ``rng``) and timed: a check projected
    past ``time_budget`` seconds is refused at once, and the draws are stopped there. The first
    probe also profiles the answer's calls: one into dpviz (but the functions named in
    ``allowed``, prefixes of ``module.qualname``) is refused. After the test, generators of
    another seed must give other draws.

    Its cells: up to ``max_cells`` per case, and a tail cell at each end of a numeric law
    holding ``tail_draws`` / ``n_samples`` of its mass (:data:`TAIL_DRAWS`; 0: none). A
    sampler never reaching a tail cell is refused almost surely (its count is 0 where
    ``tail_draws`` are expected; the cell's level is ``false_alarm`` / cells).
    ``draw_case(rng)``, if given, draws ``n_drawn`` more cases per check, from a generator
    seeded by ``seed`` (or by the environment's :data:`CASE_SEED_VARIABLE`).
    """

    n_samples: int = 20_000
    false_alarm: float = 1e-6
    seed: int = 0
    max_cells: int = 30
    time_budget: float = TIME_BUDGET
    tail_draws: int = TAIL_DRAWS
    allowed: tuple[str, ...] = ()
    draw_case: Callable[[np.random.Generator], Any] | None = None
    n_drawn: int = 2

    def __post_init__(self) -> None:
        check_int(self.n_samples, "n_samples", minimum=100)
        check_int(self.seed, "seed", minimum=0)
        check_int(self.max_cells, "max_cells", minimum=2)
        check_int(self.tail_draws, "tail_draws", minimum=0)
        check_int(self.n_drawn, "n_drawn", minimum=0)
        check_positive(self.time_budget, "time_budget")
        if not (is_real(self.false_alarm) and 0 < self.false_alarm < 1):
            raise InvalidParameterError(f"false_alarm must be in (0, 1), got {self.false_alarm!r}")
        allowed = (self.allowed,) if isinstance(self.allowed, str) else tuple(self.allowed)
        object.__setattr__(self, "allowed", allowed)

    @property
    def tail(self) -> float:
        """The mass of each tail cell: ``tail_draws`` / ``n_samples``."""
        return self.tail_draws / self.n_samples

    def drawn_cases(self) -> tuple[Any, ...]:
        """The ``n_drawn`` cases ``draw_case`` draws for this check (none without it)."""
        if self.draw_case is None or not self.n_drawn:
            return ()
        seed = os.environ.get(CASE_SEED_VARIABLE, "").strip()
        rng = np.random.default_rng([int(seed) if seed.isdigit() else self.seed, 7919])
        return tuple(self.draw_case(rng) for _ in range(self.n_drawn))

    def calls(self) -> _Calls:
        """A profile for the answer's calls: dpviz refused but ``allowed`` and the key."""
        key = getattr(self, "solution", None)
        key = key[0] if isinstance(key, tuple) else key
        return _Calls(self.allowed, [key] if key is not None else [])

    def check_draws(self, draw: Draw, cases: Sequence[Any], laws: list[LawLike],
                    names: list[str], key: str, hint: str, what: str,
                    noun: str = "function") -> None:
        """Refuse unless ``draw`` uses only its generator, is fast enough and follows each law."""
        total = self.n_samples * len(cases)

        def run(n: int, watch: _Watch, *other_seed: int) -> list[Any]:
            return [draw(case, np.random.default_rng([self.seed, i, *other_seed]), n, watch)
                    for i, case in enumerate(cases)]

        watch = _Watch(self.time_budget / 2, self.calls())
        try:
            first = run(PROBE_DRAWS, watch)
            calls, watch.calls = watch.calls, None
            if calls is not None and calls.found:
                raise _refuse_calls(key, noun, calls, hint)
            split = watch.seconds()
            again = run(PROBE_DRAWS, watch)
        except _Late:
            raise self._slow(key, noun, watch.seconds() / max(watch.done, 1), total) from None
        if not _same_draws(first, again):
            raise AssertionError(
                f"Exercise {key}: called twice with generators of the same seed, your {noun} "
                f"gave different draws.\nHint: {RNG_HINT} (no np.random.…, no random.…, no "
                "generator made outside it).")
        per_draw = min(split, watch.seconds() - split) / (PROBE_DRAWS * len(cases))
        if per_draw * total > self.time_budget:
            raise self._slow(key, noun, per_draw, total)
        if per_draw * total > NOTICE_AFTER:
            print(f"Exercise {key}: checking {total:,} draws of your {noun}, about "
                  f"{per_draw * total:.0f} s at its speed (the check stops at "
                  f"{self.time_budget:g} s)…")
        watch = _Watch(self.time_budget)
        try:
            outputs = run(self.n_samples, watch)
        except _Late:
            raise AssertionError(
                f"Exercise {key}: stopped after {self.time_budget:g} s of CPU with "
                f"{watch.done:,} of the {total:,} draws done.\nHint: {_FASTER}") from None
        found = _laws().sampling_findings(outputs, laws, n_samples=self.n_samples,
                                  false_alarm=self.false_alarm, max_cells=self.max_cells,
                                  names=names, tail=self.tail)
        if found:
            raise _refuse(key, found, hint, what)
        if _same_draws(first, run(PROBE_DRAWS, _Watch(math.inf), 1)):
            raise AssertionError(
                f"Exercise {key}: given generators of two different seeds, your {noun} gave "
                f"the same draws.\nHint: {RNG_HINT}, and its randomness must come from it.")

    def _slow(self, key: str, noun: str, per_draw: float, total: int) -> AssertionError:
        each = f"{per_draw:.2g} s" if per_draw >= 0.1 else f"{1e3 * per_draw:.2g} ms"
        return AssertionError(
            f"Exercise {key}: your {noun} takes about {each} of CPU per draw, so the check's "
            f"{total:,} draws would take about {per_draw * total:,.0f} s; it allows "
            f"{self.time_budget:g} s.\nHint: {_FASTER}")


_FASTER = ("make one draw faster: draw with the generator's own methods (rng.choice, "
           "rng.laplace, rng.exponential, …) and numpy; a scipy.stats distribution built per "
           "draw (rv_discrete, …) or a Python loop over many values per draw is slow")


def _refuse(key: str, findings: list[str], hint: str, what: str) -> AssertionError:
    most = _laws().MAX_SHOWN
    shown = findings[:most]
    more = f"\n  (and {len(findings) - most} more)" if len(findings) > most else ""
    return AssertionError(
        f"Exercise {key}: {what}\n  " + "\n  ".join(shown) + more + f"\nHint: {hint}"
    )


# ----------------------------------------------------------------------------- 1. arguments
_OPTION = re.compile(r"^[a-z]$")


@dataclass(frozen=True, eq=False)
class Step:
    """One step of an :class:`Argument`: a question, lettered options and the right one.

    ``why_wrong`` explains every other letter without naming the right option (quoting its
    text of 8+ characters, or saying "(b)", "answer b", "option b" is refused).
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
    """A privacy argument in steps (:class:`Step`), one letter each; then ``conclusion``."""

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

    def number(self, answers: Any, key: str) -> str:
        """The letters of ``answers`` as one string (AssertionError if malformed)."""
        return "".join(self._letters(answers, key))

    def reasons(self, letters: str | None = None) -> str:
        """Every step's right option and why each other option fails (``letters``: marked)."""
        lines = []
        for i, step in enumerate(self.steps, 1):
            mine = (f" (yours: ({letters[i - 1]}))" if letters and letters[i - 1] != step.correct
                    else "")
            lines.append(f"  step {i}: ({step.correct}) is right{mine}.")
            lines += [f"    ({letter}) {why}" for letter, why in step.why_wrong.items()]
        return "\n".join(lines)

    def verify(self, answers: Any, key: str, reveal: bool = False, first: str | None = None,
               last_try: bool = False) -> str:
        """The confirmation with every option's reason, or AssertionError without them.

        A wrong answer is refused without saying which step is wrong (that would give the
        letters away by elimination); the reasons are shown once the whole answer is right,
        or when the student asks (``reveal``: the right letters, marked as revealed).
        ``first``: the student's first letters, named beside later ones; ``last_try``: the
        refusal says that the check will judge no more (:func:`dpviz.ui.exercises.check`).
        """
        letters = self.number(answers, key)
        right = "".join(step.correct for step in self.steps)
        earlier = f" (your first answer: {first!r})" if first and first != letters else ""
        if reveal:
            verdict = ("right" if letters == right else
                       f"wrong in {sum(a != b for a, b in zip(letters, right, strict=True))} "
                       "steps")
            return (f"Exercise {key}: the answer, revealed: {right!r}; yours, {letters!r}, is "
                    f"{verdict}{earlier}. {self.conclusion}\n{self.reasons(letters)}").rstrip()
        if letters != right:
            then = (f"That was your last try: the check judges no more answers; see the answer "
                    f"and every reason: check({key!r}, answer, reveal=True)." if last_try else
                    f"Or see the answer and every reason: check({key!r}, answer, reveal=True).")
            raise AssertionError(
                f"Exercise {key}: not yet: at least one step is wrong. The check does not say "
                "which (that would give the letters away): reread the claim and each step; the "
                f"reason for every option is shown once your whole answer is right.\n{then}")
        return (f"Exercise {key}: correct!{earlier} {self.conclusion}\nWhy the other options "
                f"fail:\n{self.reasons()}")

    def worked_answer(self) -> tuple[str, ...]:
        """The right letter of each step."""
        return tuple(step.correct for step in self.steps)


# ----------------------------------------------------------------------------- 2. implementations
def _arguments(case: Any, *rng: np.random.Generator) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """(args, kwargs) of a case: ``(**case, rng=…)`` for a dict, ``(*case, …)`` for a tuple."""
    if isinstance(case, Mapping):
        return (), {**case, **({"rng": rng[0]} if rng else {})}
    return (*case, *rng), {}


def _call(f: Callable[..., Any], case: Any, *rng: np.random.Generator) -> Any:
    """``f(**case, rng=…)`` for a dict of keyword arguments, ``f(*case, …)`` for a tuple."""
    args, kwargs = _arguments(case, *rng)
    return f(*args, **kwargs)


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


_OUTPUTS = ("any", "int", "number")


def _solution(spec: Any) -> Any:
    if spec.solution is None:
        raise InvalidParameterError("this exercise has no worked answer (solution=None)")
    return spec.solution


@dataclass(frozen=True, eq=False)
class Implementation(_SamplingTest):
    """Write a function; it is checked on ``cases`` (dicts or tuples) against ``exact(**case)``.

    ``sampler=False``: ``f(**case)`` returns the probabilities ({outcome: p} or an array over
    0 … k−1), each within ``tolerance``. ``sampler=True``: ``f(**case, rng=rng)`` returns one
    draw; ``n_samples`` draws per case go through the sampling test. The cases are ``cases``
    and those ``draw_case`` draws (:class:`_SamplingTest`); the function may not call dpviz
    (but ``allowed``), an exception it raises is a refusal.

    Resolution (the defaults: 20,000 draws, false alarm 10⁻⁶): a law whose draws never reach
    the outermost 0.15 % of a numeric law on one side (:data:`TAIL_DRAWS` / ``n_samples``;
    Laplace noise truncated or clipped within 5.5 scales, geometric noise within 5.5/ε steps)
    is refused with probability above 1 − 10⁻⁶ (10,000 draws: 0.3 %, about 5 scales); the power
    against any other wrong law is :meth:`power`. ``output`` (samplers): ``"int"`` refuses a
    float, ``"number"`` anything but a real number, both take a scalar or a one-element array
    alike; ``"any"`` takes every hashable outcome. ``solution``: a
    function the check accepts (the instructor's key).
    """

    kind: ClassVar[str] = "implementation"
    cases: tuple[Any, ...]
    exact: Callable[..., LawLike]
    hint: str
    sampler: bool = False
    tolerance: float = 1e-6
    output: str = "any"
    solution: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", _check_cases(self.cases, arguments=True))
        if not callable(self.exact):
            raise InvalidParameterError("exact must be a function returning the exact law")
        check_positive(self.tolerance, "tolerance")
        if self.output not in _OUTPUTS:
            raise InvalidParameterError(f"output must be one of {_OUTPUTS}, got {self.output!r}")
        super().__post_init__()

    def worked_answer(self) -> Callable[..., Any]:
        """A function this check accepts."""
        return _solution(self)

    def all_cases(self) -> tuple[Any, ...]:
        """The cases a check uses: ``cases``, then the drawn ones (:meth:`drawn_cases`)."""
        return (*self.cases, *self.drawn_cases())

    def laws(self) -> list[LawLike]:
        """The exact law of each case a check uses."""
        return [_call(self.exact, case) for case in self.all_cases()]

    def false_alarm_bound(self) -> float:
        """Union bound on the probability that a correct sampler is refused."""
        return _laws().false_alarm_bound(self.laws(), n_samples=self.n_samples,
                                 false_alarm=self.false_alarm, max_cells=self.max_cells,
                                 tail=self.tail)

    def power(self, wrong: Callable[..., LawLike]) -> float:
        """Lower bound on the probability that a sampler with law ``wrong(**case)`` is refused."""
        return _laws().power_lower_bound(self.laws(), [_call(wrong, c) for c in self.all_cases()],
                                 n_samples=self.n_samples, false_alarm=self.false_alarm,
                                 max_cells=self.max_cells, tail=self.tail)

    def verify(self, function: Any, key: str) -> str:
        """The confirmation, or AssertionError saying which case and outcome are off."""
        if not callable(function):
            raise AssertionError(f"Exercise {key}: pass your function itself (no call), "
                                 f"got {function!r}")
        cases = self.all_cases()
        if self.sampler:
            def draw(case: Any, rng: np.random.Generator, n: int, watch: _Watch) -> list[Any]:
                out, where = [], _case_name(case)
                args, kwargs = _arguments(case, rng)
                for _ in range(n):
                    value = _run_answer(function, args, kwargs, key, where, "function",
                                        self.hint, watch.calls)
                    out.append(self._one(value, key))
                    watch.tick()
                return out

            self.check_draws(draw, cases, self.laws(), [_case_name(c) for c in cases],
                             key, self.hint, "your sampler's draws do not follow the law asked for")
            how = f"{self.n_samples:,} draws per case match the exact law"
            if self._tails_checked():
                how += (f", down to its outermost {100 * self.tail:.2g} % on each side (noise "
                        "cut short of it is refused)")
        else:
            calls = self.calls()
            findings = [f for case, law in zip(cases, self.laws(), strict=True)
                        for f in self._compare(function, case, law, key, calls)]
            if calls.found:
                raise _refuse_calls(key, "function", calls, self.hint)
            if findings:
                raise _refuse(key, findings, self.hint, "your probabilities are not right")
            how = "your probabilities match the exact ones"
        return f"Exercise {key}: correct! On {len(cases)} cases, {how}."

    def _tails_checked(self) -> bool:
        """True if a case's law has tail cells (numeric, more outcomes than ``max_cells``)."""
        laws = _laws()
        return 0 < self.tail <= 1 / (4 * self.max_cells) and any(
            isinstance(law, laws.ContinuousLaw) or len(laws.pmf(law)) > self.max_cells
            for law in self.laws())

    def _one(self, value: Any, key: str) -> Any:
        """One draw as ``output`` asks: a one-element array read as its element."""
        if self.output == "any":
            return value
        if isinstance(value, np.ndarray | list | tuple):
            shape = np.shape(value)
            if math.prod(shape) != 1:
                raise AssertionError(f"Exercise {key}: return one draw, a single "
                                     f"{'int' if self.output == 'int' else 'number'}; your "
                                     f"function returned {type(value).__name__} of shape {shape}")
            value = np.asarray(value).reshape(-1)[0]
        if self.output == "int" and isinstance(value, float | np.floating):
            raise AssertionError(
                f"Exercise {key}: your function returned {value!r}, a float; this exercise "
                "asks for an int.\nHint: return int(...) of a whole number (rng.geometric, "
                "rng.integers, rng.choice and np.argmax give ints already).")
        kind = (int, np.integer) if self.output == "int" else (int, float, np.integer, np.floating)
        if isinstance(value, bool | np.bool_) or not isinstance(value, kind):
            raise AssertionError(f"Exercise {key}: your function must return "
                                 f"{'an int' if self.output == 'int' else 'a number'}; it "
                                 f"returned {value!r} ({type(value).__name__})")
        return value

    def _compare(self, function: Callable[..., Any], case: Any, law: LawLike, key: str,
                 calls: _Calls) -> list[str]:
        pmf = _laws().pmf
        where, exact = _case_name(case), pmf(law)
        args, kwargs = _arguments(case)
        answer = _run_answer(function, args, kwargs, key, where, "function", self.hint, calls)
        try:
            got = pmf(answer, atol=max(1e-9, self.tolerance * len(exact)))
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
def _check_law(spec: AuditTask | BreakTask, mechanism: Any, key: str) -> None:
    """Refuse ``mechanism`` unless its draws on ``spec.cases`` follow ``spec.exact``."""
    if not callable(mechanism):
        raise AssertionError(f"Exercise {key}: pass your mechanism, a function "
                             f"mechanism(data, n, rng), got {mechanism!r}")

    def draw(data: Any, rng: np.random.Generator, n: int, watch: _Watch) -> np.ndarray:
        out = np.asarray(_run_answer(mechanism, (data, n, rng), {}, key,
                                     f"data {_case_name(data)[5:]}", "mechanism", spec.hint,
                                     watch.calls))
        if out.ndim == 0 or out.shape[0] != n:
            raise AssertionError(
                f"Exercise {key}: mechanism(data, n, rng) must return n outputs; asked for "
                f"n = {n} it returned shape {out.shape}")
        watch.tick(n)
        return out

    cases = (*spec.cases, *spec.drawn_cases())
    spec.check_draws(draw, cases, [spec.exact(d) for d in cases],
                     [f"data {_case_name(d)[5:]}" for d in cases], key, spec.hint,
                     "your mechanism does not have the output law this exercise asks for",
                     noun="mechanism")


_RELATIONS = ("rows", "counts")


def _rows_changed(D: Any, D_prime: Any, relation: str) -> tuple[int, int]:
    """(rows D′ adds to D, rows it removes): ``rows`` compares multisets, ``counts`` tallies."""
    if relation == "rows":
        before, after = Counter(map(_row, D)), Counter(map(_row, D_prime))
        return sum((after - before).values()), sum((before - after).values())
    if len(D) != len(D_prime):
        raise AssertionError(f"D and D′ must hold one count per group each, got {len(D)} "
                             f"and {len(D_prime)} counts")
    steps = [int(b) - int(a) for a, b in zip(D, D_prime, strict=True)]
    return sum(s for s in steps if s > 0), -sum(s for s in steps if s < 0)


def _row(row: Any) -> Any:
    """A row as a hashable value: a list or an array (of lists …) as a tuple."""
    if isinstance(row, np.ndarray):
        row = row.tolist()
    if isinstance(row, list | tuple):
        return tuple(_row(v) for v in row)
    return row.item() if isinstance(row, np.generic) else row


def _rows(k: int) -> str:
    return {1: "one row", 2: "two rows", 3: "three rows"}.get(k, f"{k} rows")


def neighbour_problem(D: Any, D_prime: Any, relation: str) -> str | None:
    """Why ``D``, ``D_prime`` are not neighbours (add or remove one row), or None if they are.

    ``relation``: ``"rows"`` (a sequence of rows, compared as multisets; a row given as a list
    or an array counts as the tuple of its values) or ``"counts"`` (a sequence of counts, one
    per group of rows).
    """
    try:
        added, removed = _rows_changed(tuple(D), tuple(D_prime), relation)
    except TypeError:
        return "D and D′ must be tuples (of rows or of counts, as the exercise says)"
    rule = "neighbours differ by exactly one row, added or removed"
    if added + removed == 1:
        return None
    if added == removed == 0:
        return f"D′ equals D; {rule}"
    if removed == 0 or added == 0:
        verb = f"adds {_rows(added)} to" if removed == 0 else f"removes {_rows(removed)} from"
        return f"D′ {verb} D; {rule}"
    if added == removed == 1:
        return f"D′ replaces a row of D (one removed, one added); {rule}"
    return f"D′ removes {_rows(removed)} from D and adds {_rows(added)}; {rule}"


@dataclass(frozen=True, eq=False)
class AuditTask(_SamplingTest):
    """Wrap a piece of an algorithm as a mechanism, audit it, pass both to the check.

    Refused: a ``mechanism(data, n, rng)`` whose law on ``cases`` is not ``exact(data)``; an
    audit that claims another ``epsilon``, has fewer than ``min_samples`` samples, confidence
    below 1 − ``max_alpha``, a verdict other than ``violation``, or a bound above
    ``max_loss + margin`` or below ``min_bound``. With a ``relation`` (``"rows"`` or
    ``"counts"``, see :func:`neighbour_problem`) the student also names D and D′: refused
    unless they are neighbours; the verdict is then that of the audit re-run on them with the
    student's settings (the default seed), so an audit of other data cannot pass.
    ``solution``: ``(mechanism, D, D_prime)`` whose audit the check accepts (the key).
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
    relation: str | None = None
    solution: tuple[Callable[..., Any], Any, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", _check_cases(self.cases, arguments=False))
        if self.relation is not None and self.relation not in _RELATIONS:
            raise InvalidParameterError(f"relation must be one of {_RELATIONS} or None, "
                                        f"got {self.relation!r}")
        check_positive(self.epsilon, "epsilon")
        check_positive(self.margin, "margin", allow_zero=True)
        check_positive(self.min_bound, "min_bound", allow_zero=True)
        check_int(self.min_samples, "min_samples", minimum=20)
        if self.max_loss is not None:
            check_positive(self.max_loss, "max_loss", allow_zero=True)
        if not (is_real(self.max_alpha) and 0 < self.max_alpha < 1):
            raise InvalidParameterError(f"max_alpha must be in (0, 1), got {self.max_alpha!r}")
        super().__post_init__()

    def worked_answer(self) -> tuple[Any, ...]:
        """``(mechanism, D, D_prime, result)`` (without a relation: ``(mechanism, result)``)."""
        mechanism, D, D_prime = _solution(self)
        result = _engine().audit(mechanism, D, D_prime, epsilon=self.epsilon,
                       n_samples=max(20_000, self.min_samples))
        return (mechanism, D, D_prime, result) if self.relation else (mechanism, result)

    def verify(self, mechanism: Any, result: Any, key: str, D: Any = None,
               D_prime: Any = None) -> str:
        """The confirmation, or AssertionError on a wrong mechanism or an inconsistent audit."""
        if not isinstance(result, _engine().AuditResult):
            raise AssertionError(f"Exercise {key}: pass the AuditResult that "
                                 f"dpviz.audit.engine.audit returned, got {type(result).__name__}")
        if self.relation is not None:
            if D is None or D_prime is None:
                raise AssertionError(f"Exercise {key}: pass the neighbours you audited too: "
                                     f"check({key!r}, (mechanism, D, D_prime, result))")
            problem = neighbour_problem(D, D_prime, self.relation)
            if problem:
                raise AssertionError(f"Exercise {key}: your D and D′ are not neighbours: "
                                     f"{problem}.")
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
        if self.relation is not None and not problems:
            result = _engine().audit(mechanism, D, D_prime, epsilon=result.epsilon,
                           n_samples=result.n_samples, alpha=result.alpha,
                           neighbours=f"{D!r} vs {D_prime!r}"[:120])
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
class BreakTask(_SamplingTest):
    """Break a mechanism in one *specific* way: law ``exact(data)`` on ``D`` and ``D_prime``.

    Then an audit with ``audit_samples`` per neighbour must reject the claimed ``epsilon``.
    ``solution``: a broken mechanism the check accepts (the key).
    """

    kind: ClassVar[str] = "break"
    D: Any
    D_prime: Any
    exact: Callable[[Any], LawLike]
    epsilon: float
    hint: str
    audit_samples: int = 100_000
    solution: Mechanism | None = None

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        check_int(self.audit_samples, "audit_samples", minimum=20)
        super().__post_init__()

    def worked_answer(self) -> Mechanism:
        """A broken mechanism this check accepts."""
        return _solution(self)

    @property
    def cases(self) -> tuple[Any, Any]:
        """The data on which the law is checked: both neighbours."""
        return (self.D, self.D_prime)

    def verify(self, mechanism: Mechanism, key: str) -> tuple[str, AuditResult]:
        """Check the law, then audit: the confirmation and the audit's result."""
        _check_law(self, mechanism, key)
        result = _engine().audit(mechanism, self.D, self.D_prime, epsilon=self.epsilon,
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

    The mean of ``compute(seed)`` over ``seeds``, within ``max(tolerance, spread_factor ×
    its standard error)``; ``hint`` beyond twice that distance. The value is shown once the
    prediction is within that distance, or when the student asks (``reveal``), never on a
    wrong try; a prediction outside ``bounds`` (a :class:`Range`) is refused first.
    """

    kind: ClassVar[str] = "prediction"
    compute: Callable[[int], float]
    tolerance: float
    hint: str
    seeds: tuple[int, ...] = (0,)
    spread_factor: float = 3.0
    unit: str = ""
    bounds: Range | None = None

    def __post_init__(self) -> None:
        if not callable(self.compute):
            raise InvalidParameterError("compute must be a function compute(seed) -> float")
        check_positive(self.tolerance, "tolerance")
        check_positive(self.spread_factor, "spread_factor", allow_zero=True)
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

    def worked_answer(self) -> float:
        """The value the check computes."""
        return self.evaluate()[0]

    def number(self, answer: Any, key: str) -> float:
        """``answer`` as a number, or AssertionError: not a number, or outside ``bounds``."""
        if not is_real(answer) or not math.isfinite(answer):
            raise AssertionError(f"Exercise {key}: expected a number, got {answer!r}")
        problem = self.bounds.problem(float(answer), self.unit) if self.bounds else None
        if problem:
            raise AssertionError(f"Exercise {key}: {problem}.")
        return float(answer)

    def verify(self, answer: Any, key: str, reveal: bool = False, first: float | None = None,
               last_try: bool = False) -> str:
        """Compute the value and compare (AssertionError if too far and not ``reveal``).

        The value is in the message only if the prediction is within the accepted distance
        or ``reveal`` is true (then a wrong prediction is printed beside it, not raised, and
        the message says the value was revealed). ``first``: the student's first prediction,
        named beside a later one; ``last_try``: a wrong prediction's message says that the
        check will not judge another one (:func:`dpviz.ui.exercises.check` counts the tries).
        """
        answer = self.number(answer, key)
        value, spread, accepted = self.evaluate()
        runs = (f" (mean of {len(self.seeds)} runs, run-to-run spread ±{spread:.3g})"
                if len(self.seeds) > 1 else "")
        earlier = (f" (your first prediction: {first:.4g}{self.unit})"
                   if first is not None and first != answer else "")
        seen = (f"you predicted {answer:.4g}{self.unit}{earlier}; at this setting the value is "
                f"{value:.4g}{self.unit}{runs}")
        off = abs(answer - value)
        if off <= accepted:
            shown = "the value, revealed: " if reveal else "well predicted! "
            return (f"Exercise {key}: {shown}{seen}, within ±{accepted:.3g}. Now move "
                    "the slider and see how it changes.")
        advice = (f"Hint: {self.hint}" if off > 2 * accepted
                  else "Close: within twice that distance.")
        if reveal:
            return (f"Exercise {key}: the value, revealed: {seen} — off by {off:.3g} (accepted "
                    f"±{accepted:.3g}). {advice} Now move the slider and see why.")
        then = (f"That was your last try: the check judges no more predictions; see the value: "
                f"check({key!r}, answer, reveal=True)." if last_try else
                f"Think again and predict once more, or see the value: check({key!r}, answer, "
                "reveal=True).")
        raise AssertionError(
            f"Exercise {key}: your prediction, {answer:.4g}{self.unit}, is not within "
            f"±{accepted:.3g} of the value at this setting. {advice}\n{then}")
