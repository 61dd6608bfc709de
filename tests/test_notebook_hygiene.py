"""Checks every committed notebook keeps the workbook's conventions (the notebooks themselves run
under nbval in `make notebooks`)."""

import re
from pathlib import Path

import _class_time as class_time
import nbformat
import pytest

from dpviz.explore import load_all
from dpviz.ui.exercises import EXERCISES, coverage

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
#: nbval's comment markers: the student's view must not carry them (cell tags instead)
NBVAL_COMMENT = re.compile(r"^\s*#\s*NBVAL_[A-Z_]+\s*$", re.M)
ASSERT = re.compile(r"^\s*assert\b", re.M)


def tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def test_there_is_a_start_notebook():
    assert any(p.name == "00_start_here.ipynb" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_conventions(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and "learning goals" in first.source.lower()
    assert "widgets" not in nb.metadata, "strip widget state (make strip)"
    sources = [c.source for c in nb.cells if c.cell_type == "code"]
    assert any("check(" in s for s in sources), "a notebook ends with checked exercises"
    assert not any(NBVAL_COMMENT.search(s) for s in sources), (
        "nbval control goes in cell tags (nbval-check-output, ...), not in comment lines"
    )
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert any("nbval-check-output" in tags(c) for c in code), "key numbers are output-checked"
    assert not any("perf_counter" in s or "timeit" in s for s in sources), "timing lives in bench/"
    assert not any(ASSERT.search(s) for s in sources), (
        "checks of a notebook's claims live in tests/test_notebook_claims_*.py, not in its cells"
    )
    assert any('alt.renderers.enable("dpviz")' in s for s in sources), (
        "charts use dpviz's renderer (Voilà shows an error under plain mimetype charts)"
    )
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "nbval-check-output" in tags(cell):
            assert cell.outputs, f"checked cell without committed output: {cell.source[:60]!r}"
        for out in cell.get("outputs", []):
            assert "application/vnd.jupyter.widget-view+json" not in out.get("data", {}) or (
                "nbval-ignore-output" in tags(cell)
            ), "cells that draw widgets must be tagged nbval-ignore-output"
            text = out.get("data", {}).get("text/plain", "")
            if "application/vnd.jupyter.widget-view+json" in out.get("data", {}):
                # an unrun notebook shows this fallback text where the explorer will be
                assert "run this cell" in text, f"widget fallback text {text[:40]!r} (make strip)"


KINDS = ("argument", "implementation", "audit", "prediction")


@pytest.mark.parametrize("number", ["02", "03", "04", "05"])
def test_each_paper_notebook_has_the_four_kinds_of_exercise_and_checks_them(number):
    load_all()
    assert all(coverage()[number].get(kind, 0) >= 1 for kind in KINDS), coverage()[number]
    path = next(p for p in NOTEBOOKS if p.name.startswith(number))
    nb = nbformat.read(path, as_version=4)
    checked = set(re.findall(r"check\w*\(\s*\"(\d\d\.\d+)\"", "\n".join(
        c.source for c in nb.cells if c.cell_type == "code")))
    registered = {key for key in EXERCISES if key.startswith(number + ".")}
    assert registered == checked, (registered, checked)


# --- the teaching core (issues 25, 36): budgets, honest times and a clean student view ------------
#: Run-mode names and calls: the environment decides, through the library (dpviz.explore)
RUN_MODE = re.compile(r"\b(QUICK|RECOMPUTE|SMALL)\b|recompute\s*=|recompute_requested|\bquick\(\)|"
                      r"DPVIZ_[A-Z]+")
#: what a student should not read: test-file pointers, commit hashes, seconds taken, the harness
SCAFFOLDING = re.compile(r"tests/test_\w+\.py|\b(?:dpviz|commit|code) [0-9a-f]{7,40}\b|"
                         r"\b\d+(?:\.\d+)? ?s(?:econds)? (?:on|per) (?:two|2|one|1) cores?\b|"
                         r"\bbench/|make (?:test|bench|unit|notebooks|audit)\b|"
                         r"\bquick (?:mode|run)\b|\btest suite\b|\bunit tests?\b|\bnbval\b|"
                         r"\bnoqa\b|\bReproduce with\b",
                         re.I)
CORE_WORDS, ALL_CORE_WORDS = 2200, 14000
#: The longest core the rubric allows (minutes), and how far a stated time may be from it
#: (stated times are the rubric's rounded to 5 minutes).
MAX_CORE_MINUTES, ROUNDING = 75, 2.5


def core_words(nb) -> int:
    """Words of markdown before the first heading naming "Homework" or "Appendix" (the core)."""
    return sum(len(c.source.split()) for c in class_time.parts(nb)["core"]
               if c.cell_type == "markdown")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_core_of_one_class_and_a_clean_student_view(path):
    nb = nbformat.read(path, as_version=4)
    assert core_words(nb) <= CORE_WORDS, f"{core_words(nb)} words of prose before the homework"
    assert re.search(r"class time", nb.cells[0].source, re.I), "state the core's class time"
    for i, cell in enumerate(nb.cells):
        assert not RUN_MODE.search(cell.source), f"cell {i} names a run mode: {cell.source[:60]!r}"
        texts = [cell.source] + [o.get("text", "") for o in cell.get("outputs", [])] + [
            o.get("data", {}).get(mime, "") for o in cell.get("outputs", [])
            for mime in ("text/plain", "text/markdown")]
        for text in texts:
            found = SCAFFOLDING.search(text if isinstance(text, str) else "".join(text))
            assert not found, f"cell {i} shows {found[0]!r} (tests, hashes, timings, harness)"


def test_the_cores_fit_the_unit():
    total = sum(core_words(nbformat.read(p, as_version=4)) for p in NOTEBOOKS)
    assert total <= ALL_CORE_WORDS, f"{total} words of core prose in all notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_stated_class_time_is_the_rubrics_and_the_core_fits_a_class(path):
    """The first cell states the core's minutes (and the homework's, if any) as the rubric of
    docs/instructor.md computes them from the notebook (tests/_class_time.py), rounded to 5, and
    links the rubric; the core takes at most 75 minutes by the rubric."""
    minutes = class_time.notebook_minutes(path)
    core, homework = class_time.stated(path)
    first = nbformat.read(path, as_version=4).cells[0].source
    assert "docs/instructor.md" in first and "150 words" in first, "the rubric in one line"
    assert minutes["core"]["total"] <= MAX_CORE_MINUTES, (
        f"the core takes {minutes['core']['total']:.0f} minutes by the rubric: move exercises or "
        "sections into the homework")
    assert core is not None and abs(core - minutes["core"]["total"]) <= ROUNDING, (
        f"stated {core} minutes, the rubric gives {minutes['core']['total']:.1f}")
    rubric = minutes["homework"]["total"]
    if rubric:
        assert homework is not None and abs(homework - rubric) <= ROUNDING, (
            f"stated homework {homework} minutes, the rubric gives {rubric:.1f}")
    else:
        assert homework is None, "homework stated, but the notebook has no homework section"


def test_the_instructors_guide_gives_each_notebooks_timing_plan():
    """docs/instructor.md's timing table: each notebook's core, homework and appendix minutes are
    the rubric's (to within rounding; "—" for a part the notebook does not have)."""
    guide = (NOTEBOOKS[0].parent.parent / "docs" / "instructor.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        row = re.search(rf"^\| `{path.stem}` \| (\d+|—) \| (\d+|—) \| (\d+|—) \|", guide, re.M)
        assert row, f"no row for {path.stem} in docs/instructor.md"
        minutes = class_time.notebook_minutes(path)
        for stated, part in zip(row.groups(), ("core", "homework", "appendix"), strict=True):
            rubric = minutes[part]["total"]
            if stated == "—":
                assert rubric == 0, (path.stem, part, rubric)
            else:
                assert abs(int(stated) - rubric) <= ROUNDING, (path.stem, part, stated, rubric)


def test_the_rubric_counts_what_it_says():
    """The rubric on a small notebook: words at 150 a minute; a listing 1 minute plus 1 per 15
    lines it shows (source and printed text), a chart 1 more; an explorer 5 plus 1.5 per move
    its text asks for; the exercises by kind (an implementation: 20), the answer's own cells not
    counted again, an argument's displayed steps read; the parts split at the headings."""
    md, code, out = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell, nbformat.v4.new_output
    shown = out("display_data", data={"text/markdown": "step " * 60})
    printed = out("stream", name="stdout", text="row\n" * 29)
    chart = out("execute_result", data={class_time.CHART: {}, "text/plain": "<Chart>"})
    explorer_cell = code("explorer(f, {})")
    explorer_cell.metadata["dpviz"] = {"moves": 4}
    nb = nbformat.v4.new_notebook(cells=[
        md("word " * 300), code("x = 1"), code("print(rows)", outputs=[printed]),
        code("chart(x)", outputs=[chart]), explorer_cell,
        code("display(argument)", outputs=[shown]),
        code("answer = None  # your answer"), code('check("01.1", answer)'),
        md("## Homework\n" + "word " * 148), code('check("01.5", a)'),
        md("## Appendix\n" + "word " * 13), code("y = 2"),
    ])
    kinds = {"01.1": "implementation", "01.5": "number"}
    m = {name: class_time.minutes(cells, kinds) for name, cells in class_time.parts(nb).items()}
    listings = (1 + 1 / 15) + (1 + 30 / 15) + (1 + 1 / 15 + 1) + (1 + 1 / 15)
    assert m["core"]["total"] == pytest.approx(300 / 150 + 60 / 150 + listings + 5 + 4 * 1.5 + 20)
    assert m["homework"]["total"] == pytest.approx(150 / 150 + 5)
    assert m["appendix"]["total"] == pytest.approx(15 / 150 + 1 + 1 / 15)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_explorer_states_the_moves_its_text_asks_for(path):
    """The rubric times an explorer by the moves its text asks for: each explorer cell says how
    many (its ``dpviz.moves`` metadata, counted from the text beside it)."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "explorer(" in cell.source:
            assert cell.metadata.get("dpviz", {}).get("moves", 0) >= 1, f"cell {i}: moves?"


def test_students_write_at_least_three_mechanisms_in_01():
    load_all()
    assert coverage()["01"].get("implementation", 0) >= 3, coverage()["01"]


def test_the_scaffolding_pattern_has_power():
    for planted in ("see tests/test_forest.py", "computed by dpviz e067bed1", "407 s on two cores",
                    "Reproduce with `.venv/bin/python bench/fs_table1.py`", "the unit tests run it",
                    "on every `make test`", "(3 if recomputed in quick mode)",
                    "The quick run cannot", "# True under the test suite (DPVIZ_QUICK=1)",
                    "# noqa: F401"):
        assert SCAFFOLDING.search(planted), planted
    for planted in ("RECOMPUTE = recompute_requested()", "result(f, recompute=RECOMPUTE)",
                    "SMALL = QUICK and RECOMPUTE", "N = 1_000 if quick() else 2_000",
                    "set DPVIZ_RECOMPUTE=1"):
        assert RUN_MODE.search(planted), planted
    assert not SCAFFOLDING.search("at ε = 0.5 on two trees, 10 s of class; a quick look")
    assert not RUN_MODE.search("a small tree recomputes nothing: the quickest way")
