"""Hidden tests for graded work: each exercise checked again on cases drawn from a secret seed.

An nbgrader assignment made by ``tools/assignment.py`` ends each exercise's check cell with
``hidden_check(key, answer, seed=…)`` between nbgrader's hidden-test markers: the student's
release shows only the practice check (``check(key, answer)``); the autograder, run by the
instructor, also runs this one. The seed is derived from the instructor's own seed, kept outside
the repository (docs/instructor.md, *Threat model*), so the cases here are not in anything a
student can read. The students' copy (``make student``) leaves this module out.

What changes from the practice check, by kind: an implementation's sampling test draws from
another seed, and each case's ``epsilon`` is moved by a factor in [1/2, 2] drawn from the seed
(the exact law follows, it is computed from the case); an audit's or a broken mechanism's law is
sampled from another seed. A number, an argument and a prediction have no cases: they are
checked as in the notebook. An unanswered exercise (``None``) fails here, where the practice
check only reminds.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from dpviz.ui import exercises

__all__ = ["exercise_seed", "hidden_check", "hidden_spec"]


def exercise_seed(seed: int, exercise: str) -> int:
    """The seed of one exercise's hidden tests: 63 bits of SHA-256 of ``seed`` and ``exercise``.

    One exercise's seed, printed in an assignment's source, tells nothing of another's or of
    ``seed``.
    """
    digest = hashlib.sha256(f"dpviz-hidden-tests:{int(seed)}:{exercise}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _moved(case: Any, rng: np.random.Generator) -> Any:
    """``case`` with its ``epsilon`` (if any) times 2^u, u uniform in [−1, 1], to 3 digits."""
    if isinstance(case, Mapping) and "epsilon" in case:
        epsilon = float(case["epsilon"]) * 2.0 ** rng.uniform(-1.0, 1.0)
        return {**case, "epsilon": float(f"{epsilon:.3g}")}
    return case


def hidden_spec(spec: Any, seed: int) -> Any:
    """``spec`` as its hidden test checks it (the module's docstring); ``seed``: the exercise's."""
    fields = {f.name for f in dataclasses.fields(spec)} if dataclasses.is_dataclass(spec) else set()
    if "seed" not in fields:  # a number, an argument, a prediction: as in the notebook
        return spec
    rng = np.random.default_rng(seed)
    changes: dict[str, Any] = {"seed": int(rng.integers(1, 2**31))}
    if isinstance(spec, exercises.Implementation):
        changes["cases"] = tuple(_moved(case, rng) for case in spec.cases)
    return dataclasses.replace(spec, **changes)


def _unanswered(answer: Any) -> bool:
    return answer is None or (isinstance(answer, tuple) and any(a is None for a in answer))


def hidden_check(exercise: str, answer: Any, *, seed: int) -> None:
    """Check ``answer`` to ``exercise`` on its hidden cases; AssertionError if wrong or missing."""
    spec = exercises.EXERCISES[exercise]
    if _unanswered(answer):
        raise AssertionError(f"Exercise {exercise}: not answered")
    exercises.EXERCISES[exercise] = hidden_spec(spec, seed)
    try:
        exercises.check(exercise, answer)
    finally:
        exercises.EXERCISES[exercise] = spec
