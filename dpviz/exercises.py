"""Checked answers for the notebooks' exercises.

A notebook ends with exercises; the student writes an answer in a cell and the
next cell calls :func:`check`. An unanswered exercise (``None``) only prints a
reminder, so the notebook still runs top to bottom (and under nbval); a wrong
answer raises ``AssertionError`` with a hint; a right one says so.

The answers are in plain sight below: this is a workbook, not an exam.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpviz.errors import InvalidParameterError


@dataclass(frozen=True)
class Exercise:
    """A numeric exercise: its answer, the tolerance accepted and a hint for wrong answers."""

    answer: float
    tolerance: float
    hint: str


EXERCISES: dict[str, Exercise] = {
    "00.1": Exercise(
        answer=0.5,
        tolerance=1e-9,
        hint="the count costs 0.5 (sequential); the two disjoint parts cost the larger of "
        "their spends, max(1.0, 0.25) (parallel); subtract both from 2",
    ),
}


def register(exercises: dict[str, Exercise]) -> None:
    """Add a notebook's exercises (called by its module in :mod:`dpviz.explore`)."""
    for key, spec in exercises.items():
        if key in EXERCISES and EXERCISES[key] != spec:
            raise InvalidParameterError(f"exercise {key!r} is registered twice")
        EXERCISES[key] = spec


def check(exercise: str, answer: float | None) -> None:
    """Check a student's answer to ``exercise``.

    Parameters
    ----------
    exercise : str
        The exercise id printed in the notebook, e.g. ``"00.1"``.
    answer : float or None
        The student's answer; ``None`` means "not answered yet".

    Raises
    ------
    AssertionError
        If the answer is wrong (the message gives a hint).
    InvalidParameterError
        If the exercise id is unknown.
    """
    if exercise not in EXERCISES:
        raise InvalidParameterError(
            f"unknown exercise {exercise!r}; known: {sorted(EXERCISES)} (a notebook's exercises "
            "are registered when its module of dpviz.explore is imported, e.g. "
            "`from dpviz.explore import jpw`; dpviz.explore.load_all() imports them all)"
        )
    if answer is None:
        print(f"Exercise {exercise}: not answered yet — replace None with your answer.")
        return
    spec = EXERCISES[exercise]
    try:
        value = float(answer)
    except (TypeError, ValueError):
        raise AssertionError(f"Exercise {exercise}: expected a number, got {answer!r}") from None
    if not math.isclose(value, spec.answer, rel_tol=0, abs_tol=spec.tolerance):
        raise AssertionError(f"Exercise {exercise}: {value!r} is not right. Hint: {spec.hint}.")
    print(f"Exercise {exercise}: correct!")
