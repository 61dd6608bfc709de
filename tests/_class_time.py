"""The class-time rubric of docs/instructor.md, applied to a notebook's JSON.

A notebook's **core** is every cell before its first heading that names "Homework" or
"Appendix"; its **homework** runs from a "Homework" heading to the appendix. Each part's minutes:

* reading: the words of its markdown cells and of the markdown its cells display (an
  argument's steps) at :data:`WORDS_PER_MINUTE`;
* a shown listing or table: each visible code cell is read with what it shows,
  :data:`PER_LISTING` plus one minute per :data:`LINES_PER_MINUTE` lines (its source and the
  text it prints or displays: a table's rows, a pseudocode listing's lines), and
  :data:`PER_CHART` more for each chart it draws;
* an explorer: :data:`PER_EXPLORER` plus :data:`PER_MOVE` for each move its text asks for
  (the cell's ``dpviz.moves`` metadata, counted from the text beside it);
* exercises: by kind (the registered exercise's ``kind``), :data:`PER_EXERCISE` each, the
  exercise's own cells (the answer to fill in, the check) timed with it; an argument's steps
  are read on top (above).

``python tests/_class_time.py`` prints the table for every notebook (docs/instructor.md quotes it).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
WORDS_PER_MINUTE = 150
PER_LISTING, LINES_PER_MINUTE, PER_CHART = 1.0, 15, 1.0
PER_EXPLORER, PER_MOVE = 5.0, 1.5
#: Minutes per exercise, by kind (dpviz.ui.exercises: number, prediction, argument,
#: implementation, break = write a broken mechanism, audit = write a mechanism and audit it).
PER_EXERCISE = {"number": 5.0, "prediction": 5.0, "argument": 5.0, "implementation": 20.0,
                "break": 20.0, "audit": 25.0}
CHART = "application/vnd.vegalite.v5+json"
HOMEWORK = re.compile(r"^#+ .*\bhomework\b", re.I | re.M)
APPENDIX = re.compile(r"^#+ .*\bappendix\b", re.I | re.M)
CHECK_CALL = re.compile(r"""\bcheck\w*\(\s*["'](\d\d\.\d+)["']""")
#: A cell of an exercise (the student's answer, or its check): timed with the exercise.
EXERCISE_CELL = re.compile(r"#\s*your\b|\bcheck\w*\(", re.I)
#: The first cell's statement of the core's minutes, e.g. "**Class time:** about 70 minutes".
STATED = re.compile(r"class time:?\**:? about (\d+) minutes", re.I)
STATED_HOMEWORK = re.compile(r"homework:?\**:? about (\d+) minutes", re.I)


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def _displayed_markdown(cell: Mapping[str, Any]) -> str:
    parts = []
    for output in cell.get("outputs", []):
        data = output.get("data", {}).get("text/markdown", "")
        parts.append(data if isinstance(data, str) else "".join(data))
    return "\n".join(parts)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "".join(value)


def shown_lines(cell: Mapping[str, Any]) -> int:
    """Lines a code cell shows: its source, and each output's text (a chart: none)."""
    lines = len(_source(cell).strip().splitlines())
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "text" in output:
            lines += len(_text(output["text"]).strip().splitlines())
        elif CHART not in data and "application/vnd.jupyter.widget-view+json" not in data:
            lines += len(_text(data.get("text/plain", "")).strip().splitlines())
    return lines


def charts(cell: Mapping[str, Any]) -> int:
    """Charts a code cell draws."""
    return sum(CHART in output.get("data", {}) for output in cell.get("outputs", []))


def moves(cell: Mapping[str, Any]) -> int:
    """The moves an explorer's text asks for (its cell's ``dpviz.moves``; none stated: 0)."""
    return int(cell.get("metadata", {}).get("dpviz", {}).get("moves", 0))


def _hidden(cell: Mapping[str, Any]) -> bool:
    return bool(cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"))


def parts(notebook: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    """The cells of the core, the homework and the appendix."""
    out: dict[str, list[Mapping[str, Any]]] = {"core": [], "homework": [], "appendix": []}
    part = "core"
    for cell in notebook["cells"]:
        if cell.get("cell_type") == "markdown":
            if APPENDIX.search(_source(cell)):
                part = "appendix"
            elif HOMEWORK.search(_source(cell)) and part == "core":
                part = "homework"
        out[part].append(cell)
    return out


def minutes(cells: list[Mapping[str, Any]], kinds: Mapping[str, str]) -> dict[str, float]:
    """The rubric's minutes for ``cells``; ``kinds``: exercise key → kind."""
    words, explorers, listings = 0, 0.0, 0.0
    exercises: dict[str, float] = {}
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            words += len(_source(cell).split())
            continue
        if cell.get("cell_type") != "code":
            continue
        words += len(_displayed_markdown(cell).split())
        if _hidden(cell):
            continue
        if "explorer(" in _source(cell):
            explorers += PER_EXPLORER + PER_MOVE * moves(cell)
        elif not EXERCISE_CELL.search(_source(cell)):
            listings += (PER_LISTING + shown_lines(cell) / LINES_PER_MINUTE
                         + PER_CHART * charts(cell))
        for key in CHECK_CALL.findall(_source(cell)):
            exercises.setdefault(key, PER_EXERCISE[kinds[key]])
    reading = words / WORDS_PER_MINUTE
    result = {"words": words, "reading": reading, "cells": listings,
              "explorers": explorers, "exercises": sum(exercises.values()),
              "n_exercises": len(exercises)}
    result["total"] = reading + result["cells"] + result["explorers"] + result["exercises"]
    return result


def exercise_kinds() -> dict[str, str]:
    """Every registered exercise's kind (importing dpviz.explore registers them)."""
    from dpviz.explore import load_all
    from dpviz.ui.exercises import EXERCISES

    load_all()
    return {key: spec.kind for key, spec in EXERCISES.items()}


def notebook_minutes(path: Path, kinds: Mapping[str, str] | None = None
                     ) -> dict[str, dict[str, float]]:
    """The rubric's minutes of each part of the notebook at ``path``."""
    kinds = exercise_kinds() if kinds is None else kinds
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return {name: minutes(cells, kinds) for name, cells in parts(notebook).items()}


def stated(path: Path) -> tuple[int | None, int | None]:
    """The core's and the homework's minutes as the first cell states them."""
    first = _source(json.loads(path.read_text(encoding="utf-8"))["cells"][0])
    core, homework = STATED.search(first), STATED_HOMEWORK.search(first)
    return (int(core[1]) if core else None, int(homework[1]) if homework else None)


def main() -> None:
    """Print each notebook's minutes by part (the rubric's table in docs/instructor.md)."""
    kinds = exercise_kinds()
    print("notebook | core: words, reading + cells + explorers + exercises = minutes (stated) "
          "| homework minutes (stated) | appendix minutes")
    for path in NOTEBOOKS:
        m = notebook_minutes(path, kinds)
        core, homework = stated(path)
        c = m["core"]
        print(f"{path.stem} | {c['words']}, {c['reading']:.0f} + {c['cells']:.0f} + "
              f"{c['explorers']:.0f} + {c['exercises']:.0f} ({c['n_exercises']} exercises) = "
              f"{c['total']:.0f} ({core}) | {m['homework']['total']:.0f} ({homework}) | "
              f"{m['appendix']['total']:.0f}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
