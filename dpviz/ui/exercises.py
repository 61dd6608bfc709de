"""Checked answers for the notebooks' exercises: the registry, the ``check_*`` calls, the key.

:func:`check` prints a reminder for ``None`` (the notebook still runs top to bottom), raises
``AssertionError`` with a hint for a wrong answer. The notebooks' modules in :mod:`dpviz.explore`
define each exercise in one place (its cases, settings, hint and worked answer) and call
:func:`register`; the kinds are in :mod:`dpviz.ui.exercise_kinds`. :func:`solution` is the
instructor's key: a worked answer to every exercise that its own check accepts (never shown
in the students' notebooks).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from dpviz.errors import InvalidParameterError
from dpviz.ui.exercise_kinds import (
    EPSILON,
    FRACTION,
    PERCENT,
    POINTS,
    PROBABILITY,
    Argument,
    AuditTask,
    BreakTask,
    Implementation,
    Prediction,
    Range,
    Step,
)
from dpviz.ui.kernel import in_app

if TYPE_CHECKING:
    from dpviz.audit.engine import AuditResult

__all__ = [
    "EPSILON", "EXERCISES", "FRACTION", "PERCENT", "POINTS", "PROBABILITY", "Argument",
    "AuditTask", "BreakTask", "Exercise", "ExerciseError", "Implementation", "Prediction",
    "Range", "Step",
    "check", "check_argument", "check_audit", "check_break", "check_implementation",
    "check_prediction", "coverage", "first_answers", "forget_answers", "register", "solution"
]


@dataclass(frozen=True)
class Exercise:
    """A numeric exercise: its answer, the tolerance accepted and a hint for wrong answers.

    An answer outside ``bounds`` (a :class:`Range`: a probability, a percentage, …) is
    refused as impossible before it is compared.
    """

    kind: ClassVar[str] = "number"
    answer: float
    tolerance: float
    hint: str
    bounds: Range | None = None

    def worked_answer(self) -> float:
        """The answer."""
        return self.answer

    def number(self, answer: Any, key: str) -> float:
        """``answer`` as a number, or AssertionError: not a number, or impossible (``bounds``)."""
        try:
            value = float(answer)
        except (TypeError, ValueError):
            raise AssertionError(f"Exercise {key}: expected a number, got {answer!r}") from None
        problem = self.bounds.problem(value) if self.bounds and math.isfinite(value) else None
        if problem:
            raise AssertionError(f"Exercise {key}: {problem}.")
        return value

    def verify(self, answer: Any, key: str, reveal: bool = False, first: float | None = None,
               last_try: bool = False) -> str:
        """The confirmation, or AssertionError with the hint (``reveal``: the answer, shown).

        ``first``: the student's first answer, named beside a later one; ``last_try``: a wrong
        answer's message says that the check will judge no more (:func:`check` counts).
        """
        value = self.number(answer, key)
        earlier = f" (your first answer: {first!r})" if first is not None and first != value else ""
        right = math.isclose(value, self.answer, rel_tol=0, abs_tol=self.tolerance)
        if reveal:
            verdict = "right" if right else "not right"
            return (f"Exercise {key}: the answer, revealed: {self.answer:.6g} (accepted within "
                    f"±{self.tolerance:g}); yours, {value!r}, is {verdict}{earlier}.")
        if not right:
            then = (f"\nThat was your last try: the check judges no more answers; see the answer: "
                    f"check({key!r}, answer, reveal=True)." if last_try else "")
            raise AssertionError(f"Exercise {key}: {value!r} is not right. Hint: "
                                 f"{self.hint.rstrip('.')}.{then}")
        return f"Exercise {key}: correct!{earlier}"


Spec = Exercise | Argument | Implementation | AuditTask | BreakTask | Prediction

EXERCISES: dict[str, Spec] = {
    "00.1": Exercise(
        answer=0.5,
        tolerance=1e-9,
        hint="reread 'Asking a private question': which of these queries compose "
        "sequentially and which in parallel? Then compare with the budget.",
        bounds=Range(0.0, 2.0, "what is left of a budget of 2"),
    ),
}

class ExerciseError(AssertionError):
    """A wrong answer: raised, shown as its message and hint alone.

    Run All and nbgrader stop at it; IPython shows it through ``_render_traceback_``, without
    the traceback into dpviz.
    """

    def _render_traceback_(self) -> list[str]:
        lines = str(self).splitlines() or [""]
        return [f"\x1b[0;31m{lines[0]}\x1b[0m", *lines[1:]]


F = TypeVar("F", bound=Callable[..., Any])


def _briefly(check_function: F) -> F:
    """A check whose wrong answer raises :class:`ExerciseError` (one message, no traceback)."""
    @functools.wraps(check_function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return check_function(*args, **kwargs)
        except ExerciseError:
            raise
        except AssertionError as err:
            raise ExerciseError(str(err)) from None

    return checked  # type: ignore[return-value]


#: What the student is asked to put in place of None, by kind.
_REMINDER = {
    "number": "replace None with your answer",
    "argument": "replace None with your letters, one per step (e.g. 'bca')",
    "implementation": "replace None with your function",
    "audit": "replace None with your mechanism and the result of your audit",
    "break": "replace None with your broken mechanism",
    "prediction": "replace None with your prediction, before you move the slider",
}


def _fingerprint(value: Any) -> Any:
    """A comparable summary of a spec (functions by name: a reloaded module re-registers)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,
                tuple(_fingerprint(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, Mapping):
        return tuple((repr(k), _fingerprint(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(_fingerprint(v) for v in value)
    if isinstance(value, np.ndarray):
        return ("array", repr(value.tolist()))
    if callable(value):
        return (getattr(value, "__module__", None), getattr(value, "__qualname__", repr(value)))
    return repr(value)


def register(exercises: dict[str, Spec]) -> None:
    """Add a notebook's exercises; InvalidParameterError for a key taken by another spec."""
    for key, spec in exercises.items():
        if not isinstance(spec, Spec):
            raise InvalidParameterError(
                f"exercise {key!r} must be an Exercise, Argument, Implementation, AuditTask, "
                f"BreakTask or Prediction, got {type(spec).__name__}")
        if key in EXERCISES and _fingerprint(EXERCISES[key]) != _fingerprint(spec):
            raise InvalidParameterError(f"exercise {key!r} is registered twice")
        EXERCISES[key] = spec


def _spec(exercise: str, kinds: tuple[type, ...] | None = None) -> Spec:
    """The registered spec of ``exercise``, checked to be of one of ``kinds``."""
    if exercise not in EXERCISES:
        raise InvalidParameterError(
            f"unknown exercise {exercise!r}; known: {sorted(EXERCISES)} (a notebook's exercises "
            "are registered when its module of dpviz.explore is imported, e.g. "
            "`from dpviz.explore import jpw`; dpviz.explore.load_all() imports them all)"
        )
    spec = EXERCISES[exercise]
    if kinds is not None and not isinstance(spec, kinds):
        raise InvalidParameterError(
            f"exercise {exercise!r} is of kind {spec.kind!r}; check it with check("
            f"{exercise!r}, answer)")
    return spec


def _unanswered(exercise: str, spec: Spec, *answers: Any) -> bool:
    """Print the reminder and return True if any of ``answers`` is None.

    In an app (Voilà: the code is hidden, no cell can be typed in) the reminder says what to
    do in JupyterLab instead.
    """
    if any(a is None for a in answers):
        if in_app():
            print(f"Exercise {exercise}: to answer it, open this notebook in JupyterLab: there, "
                  f"{_REMINDER[spec.kind]} in the cell above and run this cell (this page shows "
                  "the notebook as an app, its code hidden).")
        else:
            print(f"Exercise {exercise}: not answered yet — {_REMINDER[spec.kind]}.")
        return True
    return False


#: Wrong tries (distinct numbers) after which a number's or a prediction's check judges no more
#: answers: it stops narrowing them down (a loop over a grid would find the value), and
#: ``reveal=True`` shows the value.
MAX_TRIES = 3


@dataclass
class _Record:
    """What a student answered to one number or prediction in this kernel."""

    first: Any = None  # a number, or an argument's letters
    wrong: list[Any] = dataclasses.field(default_factory=list)
    revealed: bool = False
    solved: bool = False  # a right answer showed the value: later tries narrow nothing


class _Answers(dict[str, _Record]):
    """What the student answered in this kernel, by exercise.

    A record of the student's answers, not a cache of results (tests/test_architecture.py
    keeps those to three modules).
    """


_RECORDS = _Answers()


def first_answers() -> dict[str, Any]:
    """The first answer given to each number, prediction and argument in this kernel."""
    return {key: r.first for key, r in sorted(_RECORDS.items()) if r.first is not None}


def forget_answers() -> None:
    """Forget every recorded answer, try and reveal (a fresh kernel's state; for tests)."""
    _RECORDS.clear()


def _check_value(exercise: str, answer: Any, reveal: bool) -> None:
    """A number, a prediction or an argument: its first answer recorded, :data:`MAX_TRIES` wrong.

    A wrong answer counts once (the same number again does not); a non-number or an impossible
    one does not count. Past the tries, an answer is not judged (refused, saying so) until the
    student reveals the value; once revealed, every check shows it, marked as revealed. Once
    an answer was right (its message shows the value), the tries no longer count.
    """
    spec = _spec(exercise, (Exercise, Prediction, Argument))
    if _unanswered(exercise, spec, answer):
        return
    value = spec.number(answer, exercise)
    record = _RECORDS.setdefault(exercise, _Record())
    if record.first is None:
        record.first = value
    if reveal or record.revealed:
        record.revealed = True
        print(spec.verify(value, exercise, reveal=True, first=record.first))
        return
    if len(record.wrong) >= MAX_TRIES and not record.solved:
        raise AssertionError(
            f"Exercise {exercise}: {MAX_TRIES} wrong answers already, so this check judges no "
            f"more (it would narrow the value down); see it: check({exercise!r}, answer, "
            f"reveal=True). Your first answer was {_shown(record.first)}.")
    last = not record.solved and len(record.wrong) + (value not in record.wrong) >= MAX_TRIES
    try:
        message = spec.verify(value, exercise, first=record.first, last_try=last)
    except AssertionError:
        if value not in record.wrong:
            record.wrong.append(value)
        raise
    record.solved = True
    print(message)


def _shown(answer: Any) -> str:
    """A recorded answer as a message shows it: a number to 6 digits, letters quoted."""
    return f"{answer:.6g}" if isinstance(answer, float) else repr(answer)


@_briefly
def check(exercise: str, answer: Any, *, reveal: bool = False) -> None:
    """Check the answer to ``exercise`` (e.g. ``"00.1"``), whatever its kind.

    ``answer`` is None (not answered yet), a number, letters such as ``"bca"``, a function,
    ``(mechanism, audit_result)`` or ``(mechanism, D, D_prime, audit_result)``, or a
    mechanism, by kind. Numbers, predictions and arguments: the first answer is recorded
    (:func:`first_answers`), and after :data:`MAX_TRIES` wrong ones the check judges no more;
    ``reveal=True`` shows the value, or the letters with every option's reason (marked as
    revealed from then on).
    """
    spec = _spec(exercise)
    if reveal and not isinstance(spec, Exercise | Prediction | Argument):
        raise InvalidParameterError(f"reveal=True is for numbers, predictions and arguments; "
                                    f"exercise {exercise!r} is of kind {spec.kind!r}")
    if isinstance(spec, Exercise | Prediction | Argument):
        _check_value(exercise, answer, reveal)
    elif isinstance(spec, AuditTask):
        if answer is None:
            check_audit(exercise, None, None)
        elif isinstance(answer, tuple) and len(answer) == 4:
            mechanism, D, D_prime, result = answer
            check_audit(exercise, mechanism, result, D=D, D_prime=D_prime)
        elif isinstance(answer, tuple) and len(answer) == 2 and spec.relation is None:
            check_audit(exercise, *answer)
        else:
            what = ("(mechanism, D, D_prime, result): the neighbours you audited too"
                    if spec.relation is not None else "pair (mechanism, result)")
            got = f"{len(answer)} items" if isinstance(answer, tuple) else type(answer).__name__
            raise AssertionError(f"Exercise {exercise}: pass {what} (got {got})")
    elif isinstance(spec, BreakTask):
        check_break(exercise, answer)
    else:
        _check_one(exercise, answer)


def _check_one(exercise: str, answer: Any, kinds: tuple[type, ...] | None = None) -> None:
    """Print the reminder (None), or the verification of ``answer``."""
    spec = _spec(exercise, kinds)
    if not _unanswered(exercise, spec, answer):
        print(spec.verify(answer, exercise))


@_briefly
def check_argument(exercise: str, answers: str | list[str] | None, *,
                   reveal: bool = False) -> None:
    """Check the letters of a privacy argument, one per step (``"bca"`` or a list).

    A wrong answer is refused without naming the wrong steps; every option's reason is shown
    once the whole answer is right, or revealed (``reveal=True``).
    """
    _spec(exercise, (Argument,))
    _check_value(exercise, answers, reveal)


@_briefly
def check_implementation(exercise: str, function: Callable[..., Any] | None) -> None:
    """Check the student's function (or sampler) against the exact laws of the cases."""
    _check_one(exercise, function, (Implementation,))


@_briefly
def check_audit(exercise: str, mechanism: Callable[..., Any] | None,
                result: AuditResult | None, D: Any = None, D_prime: Any = None) -> None:
    """Check the student's mechanism (its output law), their neighbours and their audit."""
    spec = _spec(exercise, (AuditTask,))
    if not _unanswered(exercise, spec, mechanism, result):
        print(spec.verify(mechanism, result, exercise, D=D, D_prime=D_prime))


@_briefly
def check_break(exercise: str, mechanism: Callable[..., Any] | None) -> AuditResult | None:
    """Check the broken mechanism's law, then audit it; return the audit (None: unanswered)."""
    spec = _spec(exercise, (BreakTask,))
    if _unanswered(exercise, spec, mechanism):
        return None
    message, result = spec.verify(mechanism, exercise)
    print(message)
    return result


@_briefly
def check_prediction(exercise: str, answer: float | None, *, reveal: bool = False) -> None:
    """Compute the value live; show it once the prediction is close, or on ``reveal=True``.

    A prediction too far raises AssertionError with a hint and without the value; the first
    prediction is recorded, and after :data:`MAX_TRIES` wrong ones no more are judged.
    """
    _spec(exercise, (Prediction,))
    _check_value(exercise, answer, reveal)


# --- answer: start (the instructor's key: cut from the students' copy)
def solution(exercise: str) -> Any:
    """The instructor's key: a worked answer to ``exercise`` that ``check`` accepts.

    A number (numeric exercises and predictions: the value computed now), the letters of an
    argument as a tuple, a function (implementations), a broken mechanism (breaks), or
    ``(mechanism, D, D_prime, audit_result)`` for an audit (its audit is run here).
    """
    return _spec(exercise).worked_answer()
# --- answer: end


def coverage() -> dict[str, dict[str, int]]:
    """How many exercises of each kind each notebook has registered (``"02"`` → kind → n)."""
    table: dict[str, dict[str, int]] = {}
    for key, spec in sorted(EXERCISES.items()):
        row = table.setdefault(key.split(".")[0], {})
        row[spec.kind] = row.get(spec.kind, 0) + 1
    return table
