"""Graded work (issue 45): an nbgrader assignment from notebook 02, autograded end to end.

tools/assignment.py makes the course in a temporary folder (outside the repository, as it
requires) with a seed of the test's own; the key, handed in as a student would, scores full
marks; a submission with a wrong argument and a wrong implementation scores less, by exactly those
two exercises' points. About 40-60 s on 2 cores under load (two kernels run notebook 02 and every
check, practice and hidden).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/, run from anywhere

from dpviz.explore import jpw  # noqa: F401 - registers 02.1-02.4
from dpviz.ui import grading
from dpviz.ui.exercises import EXERCISES, solution
from tools import assignment

ROOT = Path(__file__).resolve().parent.parent
NAME = "02_private_random_trees"
SEED = 20261202  # the test's; an instructor's stays outside the repository

#: 02.2 with a misconception of the answers guide: each tree's noise at the full ε, not ε/N.
FULL_EPSILON = '''import numpy as np


def summed_count(counts, epsilon, rng):
    p = -np.expm1(-epsilon)
    return int(sum(c + rng.geometric(p) - rng.geometric(p) for c in counts))


answer = summed_count
'''


def _cell(nb: dict, grade_id: str) -> dict:
    (cell,) = [c for c in nb["cells"]
               if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id]
    return cell


def _text(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _errors(where: Path, student: str) -> str:
    """The errors the autograder met in a notebook, by cell (for a failure's message)."""
    graded = json.loads((where / "autograded" / student / NAME / f"{NAME}.ipynb").read_text())
    return "\n".join(f"{c['metadata'].get('nbgrader', {}).get('grade_id', i)}: {o['evalue']}"
                     for i, c in enumerate(graded["cells"]) for o in c.get("outputs", [])
                     if o.get("output_type") == "error")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    where = tmp_path_factory.mktemp("course")
    made = assignment.generate(where, [ROOT / "notebooks" / f"{NAME}.ipynb"], SEED)
    return where, made[NAME]


def test_the_release_has_neither_the_key_nor_the_hidden_tests(course):
    where, points = course
    assert points == {"02.1": 2, "02.2": 3, "02.4": 1, "02.3": 3}
    source = json.loads((where / "source" / NAME / f"{NAME}.ipynb").read_text())
    release = (where / "release" / NAME / f"{NAME}.ipynb").read_text()
    seed = str(grading.exercise_seed(SEED, "02.2"))
    assert f"seed={seed})" in _text(_cell(source, "check_02_2"))
    assert 'answer = solution("02.2")' in _text(_cell(source, "answer_02_2"))
    assert seed not in release and "hidden_check" not in release and "solution(" not in release
    nb = json.loads(release)
    assert _text(_cell(nb, "check_02_2")).strip() == 'check("02.2", answer)'
    assert "answer = None" in _text(_cell(nb, "answer_02_2"))


def test_the_key_scores_full_marks_and_wrong_answers_lose_their_points(course):
    where, points = course
    release = json.loads((where / "release" / NAME / f"{NAME}.ipynb").read_text())
    assignment.submit(where, NAME, "key", assignment.key_notebook(release))
    wrong = assignment.key_notebook(release)
    _cell(wrong, "answer_02_1")["source"] = "answer = 'aaaaa'  # a wrong argument\n"
    _cell(wrong, "answer_02_2")["source"] = FULL_EPSILON
    assignment.submit(where, NAME, "wrong", wrong)
    scores = assignment.autograde(where, NAME)
    full = sum(points.values())
    assert scores["key"] == (full, full), _errors(where, "key")
    lost = points["02.1"] + points["02.2"]
    assert scores["wrong"] == (full - lost, full), _errors(where, "wrong")
    graded = json.loads((where / "autograded" / "wrong" / NAME / f"{NAME}.ipynb").read_text())
    shown = json.dumps(_cell(graded, "check_02_2")["outputs"])
    assert "Exercise 02.2" in shown and "Hint" in shown, "the student sees why"


def test_hidden_checks_refuse_what_is_not_answered_and_move_the_cases():
    with pytest.raises(AssertionError, match="not answered"):
        grading.hidden_check("02.1", None, seed=1)
    with pytest.raises(AssertionError, match="not answered"):
        grading.hidden_check("02.3", (None, None, None, None), seed=1)
    spec = EXERCISES["02.2"]
    hidden = grading.hidden_spec(spec, grading.exercise_seed(SEED, "02.2"))
    assert hidden.seed != spec.seed and hidden.cases != spec.cases
    for mine, theirs in zip(hidden.cases, spec.cases, strict=True):
        assert mine["counts"] == theirs["counts"]
        assert theirs["epsilon"] / 2 <= mine["epsilon"] <= theirs["epsilon"] * 2 * 1.001
    assert grading.hidden_spec(EXERCISES["02.1"], 7) is EXERCISES["02.1"]
    grading.hidden_check("02.1", solution("02.1"), seed=7)
    assert grading.exercise_seed(SEED, "02.2") != grading.exercise_seed(SEED + 1, "02.2")


def test_the_seed_and_the_course_stay_outside_the_repository(tmp_path, monkeypatch):
    monkeypatch.delenv(assignment.SEED_VARIABLE, raising=False)
    with pytest.raises(assignment.AssignmentError, match="no grading seed"):
        assignment.read_seed(tmp_path / "missing")
    (tmp_path / "seed").write_text("12x\n")
    with pytest.raises(assignment.AssignmentError, match="non-negative integer"):
        assignment.read_seed(tmp_path / "seed")
    (tmp_path / "seed").write_text("12\n")
    assert assignment.read_seed(tmp_path / "seed") == 12
    monkeypatch.setenv(assignment.SEED_VARIABLE, "34")
    assert assignment.read_seed(tmp_path / "seed") == 34
    with pytest.raises(assignment.AssignmentError, match="inside the repository"):
        assignment.generate(ROOT / "build" / "course", [], 1)
