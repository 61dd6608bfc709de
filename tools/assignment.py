"""Graded assignments: an nbgrader course made from the notebooks, with hidden tests (issue 45).

``python -m tools.assignment --course DIR [NOTEBOOK ...]`` writes an nbgrader course folder
``DIR`` (outside the repository) with one assignment per notebook (default: every notebook with
exercises, 01-07), named by the notebook (``02_private_random_trees``), and runs
``nbgrader generate_assignment`` on each: ``DIR/release/`` is what students get.

In each notebook, every exercise is a pair of cells, the answer cell and its check,
``check("02.2", answer)``. In the assignment's source (``DIR/source/``):

* the answer cell becomes an nbgrader *solution* cell: the student's stub as the notebook has it,
  then the key (``answer = solution("02.2")``) between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION``, which the release leaves out (nbgrader's code stub is set to nothing, so
  the released notebook still runs top to bottom, each answer ``None`` until written);
* the check cell becomes a locked, *autograded* test cell worth :data:`POINTS` by kind: the
  practice check the student sees, then, between ``### BEGIN HIDDEN TESTS`` and
  ``### END HIDDEN TESTS``, ``hidden_check("02.2", answer, seed=…)`` (:mod:`dpviz.ui.grading`),
  whose cases come from the instructor's seed. The release has no hidden tests; the autograder
  puts them back from the source.

The seed: ``--seed-file FILE`` (default ``~/.dpviz/grading-seed``) holding an integer, or the
environment variable ``DPVIZ_GRADING_SEED``. It stays outside the repository, and so does the
course folder, whose source notebooks print each exercise's derived seed (this refuses a course
folder inside the checkout). Make one seed per term:
``python -c "import secrets; print(secrets.randbits(63))" > ~/.dpviz/grading-seed``.

Grading, in ``DIR``: collect each student's notebook as
``submitted/<student>/<assignment>/<notebook>.ipynb`` (nbgrader's exchange, or by hand), then
``nbgrader autograde <assignment>``; scores are in ``gradebook.db`` (``nbgrader export`` writes a
CSV). docs/instructor.md (*Graded work*) has the walk-through.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SEED_FILE = Path("~/.dpviz/grading-seed")
SEED_VARIABLE = "DPVIZ_GRADING_SEED"
#: Points of an exercise's check, by kind.
POINTS = {"number": 1, "prediction": 1, "argument": 2, "implementation": 3, "audit": 3,
          "break": 3}
#: A check cell: one call check("NN.N", answer) and nothing else.
CHECK = re.compile(r'^\s*check\(\s*"(?P<key>\d\d\.\d)"\s*,\s*(?P<answer>.+?)\s*\)\s*$', re.S)

CONFIG = '''"""nbgrader's configuration for this course (written by tools/assignment.py)."""
c = get_config()  # noqa: F821 - nbgrader's
c.CourseDirectory.root = {root!r}
# The released answer cells keep the notebook's stub (each answer None until written), so that
# a student's notebook runs top to bottom: nothing replaces the key but an empty line.
c.ClearSolutions.code_stub = {{"python": ""}}
# The checks sample thousands of draws and the predictions compute their value live.
c.Execute.timeout = 600
'''


class AssignmentError(Exception):
    """The assignment cannot be made as asked (one line for the user)."""


def read_seed(seed_file: Path | None = None) -> int:
    """The instructor's seed: ``$DPVIZ_GRADING_SEED``, else the integer in ``seed_file``."""
    text, where = os.environ.get(SEED_VARIABLE, "").strip(), f"${SEED_VARIABLE}"
    if not text:
        path = (seed_file or SEED_FILE).expanduser()
        if not path.is_file():
            raise AssignmentError(
                f"no grading seed: set ${SEED_VARIABLE} or write one to {path} (e.g. python -c "
                f"\"import secrets; print(secrets.randbits(63))\" > {path}); keep it outside the "
                "repository")
        text, where = path.read_text().strip(), str(path)
    if not text.isdigit():
        raise AssignmentError(f"{where} must hold a non-negative integer, got {text[:20]!r}")
    return int(text)


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _targets(answer: str, key: str) -> str:
    """What the key assigns: the names the check call passes (``answer`` or a tuple of names)."""
    node = ast.parse(answer, mode="eval").body
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Name) for e in node.elts):
        return ", ".join(e.id for e in node.elts)  # type: ignore[attr-defined]
    raise AssignmentError(f"exercise {key}: its check passes {answer!r}; a name or a tuple of "
                          "names is needed to put the key in")


def _nbgrader(cell: dict[str, Any], grade_id: str, *, solution: bool, points: int = 0) -> None:
    meta: dict[str, Any] = {"grade": points > 0, "grade_id": grade_id, "locked": not solution,
                            "schema_version": 3, "solution": solution, "task": False}
    if points:
        meta["points"] = points
    cell.setdefault("metadata", {})["nbgrader"] = meta


def make_source(notebook: dict[str, Any], seed: int, kinds: dict[str, str]) -> tuple[dict, dict]:
    """The assignment's source notebook and its points by exercise (see the module's docstring)."""
    from dpviz.ui.grading import exercise_seed

    nb = copy.deepcopy(notebook)
    points: dict[str, int] = {}
    cells = nb["cells"]
    for i, cell in enumerate(cells):
        found = CHECK.match(_source(cell)) if cell["cell_type"] == "code" else None
        if not found:
            continue
        key, answer = found["key"], found["answer"]
        stub = cells[i - 1] if i else None
        if stub is None or stub["cell_type"] != "code":
            raise AssignmentError(f"exercise {key}: no code cell with the answer before its check")
        kind = kinds[key]
        points[key] = POINTS[kind]
        stub["source"] = (_source(stub).rstrip("\n") + "\n### BEGIN SOLUTION\n"
                          "from dpviz.ui.exercises import solution\n"
                          f'{_targets(answer, key)} = solution("{key}")\n### END SOLUTION')
        _nbgrader(stub, f"answer_{key.replace('.', '_')}", solution=True)
        cell["source"] = (f'check("{key}", {answer})\n### BEGIN HIDDEN TESTS\n'
                          "from dpviz.ui.grading import hidden_check\n"
                          f'hidden_check("{key}", {answer}, seed={exercise_seed(seed, key)})\n'
                          "### END HIDDEN TESTS")
        _nbgrader(cell, f"check_{key.replace('.', '_')}", solution=False, points=points[key])
        cell["outputs"], cell["execution_count"] = [], None
    return nb, points


def _kinds() -> dict[str, str]:
    from dpviz.explore import load_all
    from dpviz.ui.exercises import EXERCISES

    load_all()
    return {key: spec.kind for key, spec in EXERCISES.items()}


def exercise_notebooks() -> list[Path]:
    """The notebooks with at least one exercise check (01-07)."""
    return [p for p in sorted(NOTEBOOKS.glob("*.ipynb"))
            if any(c["cell_type"] == "code" and CHECK.match(_source(c))
                   for c in json.loads(p.read_text(encoding="utf-8"))["cells"])]


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``nbgrader ARGS`` in ``course`` with this Python; CalledProcessError on failure."""
    def first(name: str, path: str) -> str:
        return os.pathsep.join([path, *filter(None, [os.environ.get(name)])])

    # this Python's scripts first: nbgrader runs alembic (its database) from the PATH
    env = {**os.environ, "PYTHONPATH": first("PYTHONPATH", str(ROOT)),
           "PATH": first("PATH", str(Path(sys.executable).parent))}
    return subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"],
                          cwd=course, env=env, capture_output=True, text=True, check=True)


def generate(course: Path, notebooks: list[Path], seed: int) -> dict[str, dict[str, int]]:
    """Write the course's config and sources and release each assignment; points by exercise."""
    course = course.expanduser().resolve()
    if course.is_relative_to(ROOT):
        raise AssignmentError(f"{course} is inside the repository: the course folder holds the "
                              "hidden tests' seeds, keep it outside")
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG.format(root=str(course)))
    kinds = _kinds()
    made: dict[str, dict[str, int]] = {}
    for path in notebooks:
        name = path.stem
        source, points = make_source(json.loads(path.read_text(encoding="utf-8")), seed, kinds)
        if not points:
            raise AssignmentError(f"{path.name} has no exercise check to grade")
        folder = course / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / path.name).write_text(json.dumps(source, indent=1, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
        try:
            nbgrader(course, "generate_assignment", name, "--force")
        except subprocess.CalledProcessError as error:
            raise AssignmentError(f"nbgrader generate_assignment {name} failed:\n"
                                  f"{error.stderr.strip()[-2000:]}") from None
        made[name] = points
    return made


def key_notebook(release: dict[str, Any]) -> dict[str, Any]:
    """A released notebook answered with the key, as a student would hand it in."""
    nb = copy.deepcopy(release)
    cells = nb["cells"]
    for i, cell in enumerate(cells):
        found = CHECK.match(_source(cell)) if cell["cell_type"] == "code" else None
        if found and i and cells[i - 1].get("metadata", {}).get("nbgrader", {}).get("solution"):
            stub, key = cells[i - 1], found["key"]
            stub["source"] = (_source(stub).rstrip("\n") + "\nfrom dpviz.ui.exercises import "
                              f'solution\n{_targets(found["answer"], key)} = solution("{key}")\n')
    return nb


def submit(course: Path, assignment: str, student: str, notebook: dict[str, Any]) -> Path:
    """Put ``notebook`` where nbgrader collects ``student``'s work on ``assignment``."""
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{assignment}.ipynb"
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def autograde(course: Path, assignment: str,
              student: str | None = None) -> dict[str, tuple[float, float]]:
    """``nbgrader autograde`` the submissions of ``assignment`` (or ``student``'s only).

    Returns (score, max score) by student, read from the course's gradebook.
    """
    from nbgrader.api import Gradebook

    only = [f"--student={student}"] if student else []
    try:
        nbgrader(course, "autograde", assignment, "--force", *only)
    except subprocess.CalledProcessError as error:
        raise AssignmentError(f"nbgrader autograde {assignment} failed:\n"
                              f"{error.stderr.strip()[-2000:]}") from None
    students = [student] if student else sorted(p.name for p in (course / "submitted").iterdir())
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as book:
        return {s: (book.find_submission(assignment, s).score,
                    book.find_submission(assignment, s).max_score) for s in students}


def check_key(course: Path, assignment: str) -> tuple[float, float]:
    """Hand in the key as the student ``key`` and autograde it: (score, max), equal if right."""
    release = course / "release" / assignment / f"{assignment}.ipynb"
    submit(course, assignment, "key", key_notebook(json.loads(release.read_text("utf-8"))))
    return autograde(course, assignment, "key")["key"]


def main(argv: list[str] | None = None) -> int:
    """Command line: make the course, one line per assignment."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to make assignments of (default: 01-07)")
    parser.add_argument("--course", type=Path, required=True,
                        help="the nbgrader course folder to write (outside the repository)")
    parser.add_argument("--seed-file", type=Path, default=None,
                        help=f"the file holding your seed (default {SEED_FILE}; "
                             f"${SEED_VARIABLE} overrides it)")
    parser.add_argument("--check-key", action="store_true",
                        help="then hand in the key as the student 'key' and autograde it (it "
                             "must score 100%%: a minute or so per notebook)")
    args = parser.parse_args(argv)
    course = args.course.expanduser().resolve()
    try:
        seed = read_seed(args.seed_file)
        made = generate(course, args.notebooks or exercise_notebooks(), seed)
        for name, points in made.items():
            print(f"  {name}: {len(points)} exercises, {sum(points.values())} points "
                  f"({', '.join(f'{k} {p}' for k, p in points.items())})")
            if args.check_key:
                score, most = check_key(course, name)
                print(f"    the key scores {score:g} of {most:g}")
                if score != most:
                    raise AssignmentError(f"the key does not score full marks on {name}: see "
                                          f"{course / 'autograded' / 'key' / name}")
    except AssignmentError as error:
        print(f"tools.assignment: {error}", file=sys.stderr)
        return 3
    print(f"Released to {course / 'release'}; grade with "
          "`nbgrader autograde NAME` there.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
