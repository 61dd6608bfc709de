"""Checks every committed notebook keeps the workbook's conventions (the notebooks themselves run
under nbval in `make notebooks`)."""

import re
from pathlib import Path

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


# --- the teaching core (issue 25): budgets and a clean student view ---------------------------
APPENDIX = re.compile(r"^#+ .*appendix", re.I | re.M)
RUN_MODE = re.compile(r"^(QUICK|RECOMPUTE|SMALL)\s*=", re.M)
#: what a student should not read: test-file pointers, commit hashes, seconds taken
SCAFFOLDING = re.compile(r"tests/test_\w+\.py|\b(?:dpviz|commit|code) [0-9a-f]{7,40}\b|"
                         r"\b\d+(?:\.\d+)? ?s(?:econds)? (?:on|per) (?:two|2|one|1) cores?\b")
CORE_WORDS, ALL_CORE_WORDS = 2200, 14000


def core_words(nb) -> int:
    """Words of markdown before the first heading containing "Appendix" (the class's core)."""
    words = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            if APPENDIX.search(cell.source):
                break
            words += len(cell.source.split())
    return words


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_core_of_one_class_and_a_clean_student_view(path):
    nb = nbformat.read(path, as_version=4)
    assert core_words(nb) <= CORE_WORDS, f"{core_words(nb)} words of prose before the appendix"
    assert re.search(r"class time", nb.cells[0].source, re.I), "state the core's class time"
    code = [c for c in nb.cells if c.cell_type == "code"]
    flags = [c for c in code if RUN_MODE.search(c.source)]
    assert len(flags) <= 1, "run-mode flags live in one setup cell"
    for cell in flags:
        assert cell.metadata.get("jupyter", {}).get("source_hidden"), "hide the setup cell"
    for i, cell in enumerate(nb.cells):
        texts = [cell.source] + [o.get("text", "") for o in cell.get("outputs", [])]
        for text in texts:
            found = SCAFFOLDING.search(text if isinstance(text, str) else "".join(text))
            assert not found, f"cell {i} shows {found[0]!r} (test pointers, hashes, timings)"


def test_the_cores_fit_the_unit():
    total = sum(core_words(nbformat.read(p, as_version=4)) for p in NOTEBOOKS)
    assert total <= ALL_CORE_WORDS, f"{total} words of core prose in all notebooks"


def test_students_write_at_least_three_mechanisms_in_01():
    load_all()
    assert coverage()["01"].get("implementation", 0) >= 3, coverage()["01"]


def test_the_scaffolding_pattern_has_power():
    for planted in ("see tests/test_forest.py", "computed by dpviz e067bed1", "407 s on two cores"):
        assert SCAFFOLDING.search(planted), planted
    assert not SCAFFOLDING.search("at ε = 0.5 on two trees, 10 s of class")
