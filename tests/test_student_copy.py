"""``make student`` (issue 45): the students' copy has no key, and its checks still work.

The copy is built into a temporary folder (tools/student.py, about 10 s) and imported in a fresh
interpreter with ``PYTHONPATH`` on it, as a class download or a hub would use it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/, run from anywhere

from dpviz.explore import load_all
from dpviz.ui.exercises import EXERCISES
from tools import student

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("copy") / "student"
    student.build(out)
    return out


def _run(copy: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code], cwd=copy, capture_output=True,
                          text=True, env={**env, "PYTHONPATH": str(copy)}, timeout=300)


def _worked_answer_names() -> set[str]:
    """The names of the source's worked-answer functions (every spec's ``solution``)."""
    load_all()
    names = set()
    for spec in EXERCISES.values():
        given = getattr(spec, "solution", None)
        function = given[0] if isinstance(given, tuple) else given
        if function is not None:
            names.add(function.__name__)
    return names


def test_the_key_cannot_be_imported_from_the_copy(copy):
    run = _run(copy, "from dpviz.ui.exercises import solution")
    assert run.returncode != 0 and "cannot import name 'solution'" in run.stderr
    run = _run(copy, "import dpviz; print(dpviz.__file__)")
    assert Path(run.stdout.strip()).is_relative_to(copy), "the copy's dpviz was not the one run"


def test_no_worked_answer_tests_or_answers_doc_in_the_copy(copy):
    names = _worked_answer_names()
    assert len(names) >= 15, names  # every implementation, audit and break has one
    library = "\n".join(p.read_text(encoding="utf-8") for p in (copy / "dpviz").rglob("*.py"))
    assert [n for n in names if f"def {n}(" in library] == []
    assert not re.search(r"^\s*solution=", library, re.M), "a spec keeps its worked answer"
    assert "answer: start" not in library
    assert "math.log(3.0)" not in library, "a numeric answer's derivation is left"
    assert not (copy / "tests").exists() and not (copy / "tools").exists()
    assert not (copy / "docs" / "instructor_answers.md").exists()
    assert (ROOT / "docs" / "instructor_answers.md").is_file()
    assert (copy / "docs" / "instructor.md").is_file()
    assert sorted(p.name for p in (copy / "notebooks").glob("*.ipynb")) == sorted(
        p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


_CHECKS = '''
import json, math
import numpy as np
from dpviz.explore import building_blocks
from dpviz.ui.exercises import EXERCISES, check

def laplace_mech(value, sensitivity, epsilon, rng):  # a student's right answer
    return value + rng.laplace(0.0, sensitivity / epsilon)

def laplace_wrong(value, sensitivity, epsilon, rng):  # the scale upside down
    return value + rng.laplace(0.0, epsilon / sensitivity)

verdicts = {}
for name, key, answer in [("right", "01.1", laplace_mech), ("wrong", "01.1", laplace_wrong),
                          ("ln 3", "01.5", math.log(3.0)), ("1.0", "01.5", 1.0)]:
    try:
        check(key, answer)
        verdicts[name] = "accepted"
    except AssertionError as error:
        verdicts[name] = "refused: " + str(error).splitlines()[0]
verdicts["01.1 has a key"] = getattr(EXERCISES["01.1"], "solution", None) is not None
print(json.dumps(verdicts))
'''


def test_a_check_in_the_copy_accepts_a_right_answer_and_refuses_a_wrong_one(copy):
    run = _run(copy, _CHECKS)
    assert run.returncode == 0, run.stderr[-2000:]
    verdicts = json.loads(run.stdout.strip().splitlines()[-1])
    assert verdicts["right"] == "accepted"
    assert verdicts["wrong"].startswith("refused: Exercise 01.1")
    assert verdicts["ln 3"] == "accepted"  # the sealed number is the source's
    assert verdicts["1.0"].startswith("refused: Exercise 01.5")
    assert verdicts["01.1 has a key"] is False


def test_a_marker_left_open_stops_the_build():
    with pytest.raises(student.BuildError, match="never closed"):
        student.cut_blocks("x = 1\n# --- answer: start\ny = 2\n", "m.py")
    with pytest.raises(student.BuildError, match="not opened"):
        student.cut_blocks("x = 1\n# --- answer: end\n", "m.py")
    text, blocks = student.cut_blocks(
        "a = 1\n\n\n# --- answer: start\ndef f():\n    return 2\n# --- answer: end\n\n\nb = 3\n",
        "m.py")
    assert (text, blocks) == ("a = 1\n\n\nb = 3\n", 1)


def test_a_folder_the_build_did_not_make_is_not_replaced(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    with pytest.raises(student.BuildError, match="not made by this script"):
        student.build(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep"
