"""``make student``: the students' copy of the workbook, without the key (issue 45).

Writes ``build/student/`` (or ``--out``): the notebooks, the library, the public docs and what
``make lab`` needs, and leaves out what gives the answers away:

* every block between ``# --- answer: start`` and ``# --- answer: end`` in the library (the
  worked answers beside each exercise, the comments that state an answer, and
  :func:`dpviz.ui.exercises.solution`, the instructor's key);
* every ``solution=`` argument of an exercise spec (the key's functions and neighbours);
* the expression of every numeric exercise's ``answer=``, replaced by its value written as
  ``float.fromhex("0x…")``: the check needs the number, the copy need not show how it is found;
* names in a module's ``__all__`` that the cuts removed;
* ``tests/`` (argument letters and right answers sit there), ``bench/``, ``tools/``, ``hub/``,
  and ``docs/instructor_answers.md`` (the answers part of the instructor's guide).

What stays, because the checks need it: each exercise's cases, exact laws, hints, the numbers
a numeric check compares with, the right letter of each argument step and the live computation
of each prediction. The copy is practice, not an exam: docs/instructor.md (*Threat model*) says
what a student can still find and why graded work rests on hidden tests (``tools/assignment.py``).

The copy is checked before this exits: it compiles, ``ruff`` finds no undefined name in it, and
imported from the copy (``PYTHONPATH``), ``solution`` does not exist and no registered exercise
has a worked answer. Run from the repository: ``python -m tools.student [--out DIR]``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "student"

#: What the copy holds (files and folders of the repository).
INCLUDE = ("README.md", "pyproject.toml", "requirements.txt", "Makefile", "data/README.md",
           "docs", "notebooks", "dpviz")
#: Left out of the copy: the answers part of the guide, and the grading helper.
EXCLUDE = ("docs/instructor_answers.md", "dpviz/ui/grading.py")
#: Never copied from the folders above.
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.egg-info")

START, END = "# --- answer: start", "# --- answer: end"
#: A file in the copy marks it as this script's (so that a rebuild may delete it).
STAMP = ".students-copy"
#: The spec classes whose ``solution=`` argument is the key (more are read from the registry's
#: kinds when the build runs: any exercise kind with a ``solution`` field).
SPECS_WITH_SOLUTION = {"Implementation", "AuditTask", "BreakTask"}


class BuildError(Exception):
    """The copy cannot be built as asked (one line for the user)."""


# ----------------------------------------------------------------------------- the cuts
def cut_blocks(text: str, where: str) -> tuple[str, int]:
    """``text`` without its answer blocks (marker lines included), and how many there were."""
    kept: list[str] = []
    inside, blocks = 0, 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        stripped = line.strip()
        if stripped.startswith(START):
            if inside:
                raise BuildError(f"{where}:{number}: an answer block opens inside another")
            inside, blocks = number, blocks + 1
        elif stripped.startswith(END):
            if not inside:
                raise BuildError(f"{where}:{number}: an answer block ends that was not opened")
            inside = 0
        elif not inside:
            kept.append(line)
    if inside:
        raise BuildError(f"{where}:{inside}: an answer block is never closed ({END!r})")
    text = "".join(kept)
    if blocks:  # where a block stood between two blank lines: at most two blank lines in a row
        text = re.sub(r"\n(?:[ \t]*\n){3,}", "\n\n\n", text)
    return text, blocks


def _offsets(text: str) -> Callable[[int, int], int]:
    """(line, column) of :mod:`ast` (1-based line, UTF-8 byte column) -> index in ``text``."""
    starts, total = [], 0
    lines = text.splitlines(keepends=True)
    for line in lines:
        starts.append(total)
        total += len(line)

    def index(line: int, col: int) -> int:
        return starts[line - 1] + len(lines[line - 1].encode()[:col].decode())

    return index


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return None


def _drop_keyword(text: str, at: Callable[[int, int], int], kw: ast.keyword) -> tuple[int, int]:
    """The span of ``kw`` with its comma; whole lines when it stands on lines of its own."""
    start = at(kw.lineno, kw.col_offset)
    end = at(kw.end_lineno, kw.end_col_offset)
    rest = text[end:]
    comma = len(rest) - len(rest.lstrip(" \t"))
    if rest[comma:comma + 1] == ",":
        end += comma + 1
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    after = text[end:line_end].strip()
    if not text[line_start:start].strip() and (not after or after.startswith("#")):
        return line_start, line_end
    return start, end


def _spec_of(node: ast.Call, parents: dict[int, ast.AST], module: object,
             registry: dict[str, object]) -> object:
    """The registered spec a spec-building call makes (by its name or its registry key)."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(
            parent.targets[0], ast.Name):
        return getattr(module, parent.targets[0].id)
    if isinstance(parent, ast.Dict):
        for key, value in zip(parent.keys, parent.values, strict=True):
            if value is node and isinstance(key, ast.Constant) and key.value in registry:
                return registry[key.value]
    raise BuildError(f"{getattr(module, '__name__', module)}:{node.lineno}: a numeric exercise "
                     "must be assigned to a name or be a value of the registry's dict")


def transform(text: str, module_name: str, registry: dict[str, object]) -> tuple[str, list[str]]:
    """Drop ``solution=`` arguments, seal numeric answers, prune ``__all__``; what was done."""
    tree = ast.parse(text)
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    at = _offsets(text)
    edits: list[tuple[int, int, str]] = []
    done: list[str] = []
    module = None
    for node in ast.walk(tree):
        name = _call_name(node)
        if name in SPECS_WITH_SOLUTION:
            for kw in node.keywords:  # type: ignore[attr-defined]
                if kw.arg == "solution":
                    edits.append((*_drop_keyword(text, at, kw), ""))
                    done.append(f"line {node.lineno}: solution= removed")
        elif name == "Exercise":
            for kw in node.keywords:  # type: ignore[attr-defined]
                if kw.arg == "answer":
                    if module is None:
                        module = importlib.import_module(module_name)
                    spec = _spec_of(node, parents, module, registry)  # type: ignore[arg-type]
                    value = float(spec.answer)  # type: ignore[attr-defined]
                    edits.append((at(kw.value.lineno, kw.value.col_offset),
                                  at(kw.value.end_lineno, kw.value.end_col_offset),
                                  f'float.fromhex("{value.hex()}")'))
                    done.append(f"line {node.lineno}: answer sealed")
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    text, pruned = prune_all(text)
    if pruned:
        done.append(f"__all__ without {', '.join(pruned)}")
    return text, done


def _defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.If | ast.Try):
            names |= _defined(ast.Module(body=node.body, type_ignores=[]))
    return names


def prune_all(text: str) -> tuple[str, list[str]]:
    """``text`` whose ``__all__`` lists only names the module still defines; the names dropped."""
    tree = ast.parse(text)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, ast.List | ast.Tuple)):
            listed = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
            defined = _defined(tree)
            gone = [n for n in listed if n not in defined]
            if not gone:
                return text, []
            kept = ", ".join(f'"{n}"' for n in listed if n in defined)
            body = textwrap.fill(kept, width=95, initial_indent="    ",
                                 subsequent_indent="    ", break_on_hyphens=False)
            at = _offsets(text)
            start = at(node.value.lineno, node.value.col_offset)
            end = at(node.value.end_lineno, node.value.end_col_offset)
            return text[:start] + "[\n" + body + "\n]" + text[end:], gone
    return text, []


# ----------------------------------------------------------------------------- the build
def _module_name(relative: Path) -> str:
    parts = list(relative.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _registry() -> dict[str, object]:
    """The source's exercises (every notebook module imported), to read numeric answers."""
    sys.path.insert(0, str(ROOT))
    from dpviz.explore import load_all
    from dpviz.ui.exercises import EXERCISES

    load_all()
    SPECS_WITH_SOLUTION.update(type(s).__name__ for s in EXERCISES.values()
                               if hasattr(s, "solution"))
    return dict(EXERCISES)


def copy_tree(out: Path) -> None:
    """Copy :data:`INCLUDE` into ``out`` (which must not exist), without :data:`EXCLUDE`."""
    out.mkdir(parents=True)
    (out / STAMP).write_text("made by `make student` (tools/student.py); rebuilt on each run\n")
    for name in INCLUDE:
        source = ROOT / name
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=IGNORE)
        elif source.exists():
            shutil.copy2(source, target)
    for name in EXCLUDE:
        (out / name).unlink(missing_ok=True)


def cut_library(out: Path) -> dict[str, list[str]]:
    """Apply the cuts to every Python file of the copy's library; what was done, by file."""
    registry = _registry()
    report: dict[str, list[str]] = {}
    for path in sorted((out / "dpviz").rglob("*.py")):
        relative = path.relative_to(out)
        text = path.read_text(encoding="utf-8")
        text, blocks = cut_blocks(text, str(relative))
        done = [f"{blocks} answer block(s) cut"] if blocks else []
        if any(s in text for s in ("solution=", "Exercise(", "__all__")):
            text, more = transform(text, _module_name(relative), registry)
            done += more
        if done:
            path.write_text(text, encoding="utf-8")
            report[str(relative)] = done
    return report


#: Run in a fresh interpreter on the copy: what must hold there.
_VERIFY = """
import json, pathlib, sys
import dpviz
import dpviz.ui.exercises as ex
from dpviz.explore import load_all
load_all()
print(json.dumps({
    "dpviz": str(pathlib.Path(dpviz.__file__).resolve().parent),
    "solution": hasattr(ex, "solution"),
    "keys": sorted(ex.EXERCISES),
    "with_solution": sorted(k for k, s in ex.EXERCISES.items()
                            if getattr(s, "solution", None) is not None),
}))
"""


def verify(out: Path) -> dict[str, object]:
    """Check the copy (see the module's docstring); BuildError naming what is wrong."""
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".ipynb"):  # the docs name the markers
            text = path.read_text(encoding="utf-8")
            if START in text or END in text:
                raise BuildError(f"{path.relative_to(out)}: an answer marker is left in the copy")
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--quiet",
                           "--select", "F821,F822", "--isolated", str(out / "dpviz")],
                          capture_output=True, text=True)
    if lint.returncode != 0:
        raise BuildError("the cuts left undefined names in the copy:\n"
                         + (lint.stdout + lint.stderr).strip())
    env = {**_clean_env(), "PYTHONPATH": str(out)}
    run = subprocess.run([sys.executable, "-c", _VERIFY], cwd=out, env=env, capture_output=True,
                         text=True, timeout=300)
    if run.returncode != 0:
        raise BuildError("the copy's library does not import:\n" + run.stderr.strip()[-2000:])
    found = json.loads(run.stdout.strip().splitlines()[-1])
    if Path(found["dpviz"]) != (out / "dpviz").resolve():
        raise BuildError(f"the check imported dpviz from {found['dpviz']}, not from the copy")
    if found["solution"] or found["with_solution"]:
        raise BuildError(f"the copy still has the key: solution() {found['solution']}, worked "
                         f"answers for {found['with_solution']}")
    return found


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def build(out: Path = DEFAULT_OUT) -> dict[str, object]:
    """Write the students' copy into ``out`` and check it; a summary."""
    out = out.resolve()
    if out.exists():
        if not (out / STAMP).is_file():
            raise BuildError(f"{out} exists and was not made by this script: not replacing it")
        shutil.rmtree(out)
    copy_tree(out)
    report = cut_library(out)
    found = verify(out)
    return {"out": str(out), "cuts": report, "exercises": len(found["keys"])}  # type: ignore


def main(argv: list[str] | None = None) -> int:
    """Command line: build, print one line per file cut, and the copy's path last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="where to write the copy (default: build/student)")
    args = parser.parse_args(argv)
    try:
        summary = build(args.out)
    except BuildError as error:
        print(f"make student: {error}", file=sys.stderr)
        return 3
    for path, done in summary["cuts"].items():  # type: ignore[union-attr]
        print(f"  {path}: {'; '.join(done)}")
    print(f"The students' copy, {summary['exercises']} exercises checkable and no key: "
          f"{summary['out']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
