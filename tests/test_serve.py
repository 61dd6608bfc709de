"""How dpviz serves Voilà (:mod:`dpviz.ui.serve`): which imports a kernel warms, that the first
cell waits for them, that templates compiled once are reused, and which notebook a kernel warms.

The page itself (make voila's command, in headless chromium) is covered by tests/test_browser.py;
the seconds it saves by ``python -m bench.notebook_times``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path

import pytest
from IPython.core.events import EventManager, available_events

from dpviz.ui import serve


def notebook(path: Path, *sources: str, kind: str = "code") -> Path:
    cells = [{"cell_type": kind if i else "markdown", "source": s, "metadata": {}}
             for i, s in enumerate(("# title", *sources))]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))
    return path


def test_a_kernel_warms_the_top_level_imports_of_the_first_importing_cell(tmp_path):
    nb = notebook(tmp_path / "n.ipynb", "x = 1", "%%time\nimport nope",
                  "import altair as alt, numpy\nfrom dpviz.ui import widgets\nfrom . import here\n"
                  "def later():\n    import scipy\nimport altair",
                  "import pandas")
    assert serve.notebook_imports(nb) == ["altair", "numpy", "dpviz.ui"]
    assert serve.notebook_imports(notebook(tmp_path / "none.ipynb", "x = 1")) == []
    setup = serve.notebook_imports(Path(__file__).parent.parent / "notebooks"
                                   / "05_dp_random_forest.ipynb")
    assert setup[0] == "altair" and "dpviz.ui.widgets" in setup


class Shell:
    def __init__(self) -> None:
        self.events = EventManager(self, available_events)


def test_the_first_cell_waits_for_the_warming_thread_then_no_cell_does(monkeypatch):
    release, started = threading.Event(), threading.Event()
    imported: list[str] = []

    def slow_import(name: str) -> None:
        started.set()
        release.wait(5)
        imported.append(name)

    monkeypatch.setattr(serve.importlib, "import_module", slow_import)
    shell = Shell()
    thread = serve.warm(["a", "b"], shell=shell)
    assert started.wait(5) and thread.is_alive()
    first = threading.Thread(target=shell.events.trigger, args=("pre_run_cell", None))
    first.start()
    first.join(0.2)
    assert first.is_alive(), "the first cell ran beside the imports"
    release.set()
    first.join(5)
    assert not first.is_alive() and imported == ["a", "b"]
    assert shell.events.callbacks["pre_run_cell"] == []  # later cells never wait
    assert serve.warm([], shell=shell) is None


def test_a_failing_warm_import_is_left_to_the_cell(monkeypatch):
    monkeypatch.setenv(serve.WARM, "no_such_module_here,json")
    thread = serve.warm(shell=Shell())
    thread.join(5)
    assert "json" in sys.modules


def test_compiled_templates_are_reused_and_a_changed_one_is_compiled_again(tmp_path,
                                                                            monkeypatch):
    from jinja2 import FileSystemBytecodeCache, FileSystemLoader
    from nbconvert.exporters.templateexporter import TemplateExporter

    monkeypatch.setattr(TemplateExporter, "_create_environment",
                        TemplateExporter._create_environment)
    monkeypatch.setattr(TemplateExporter, "_dpviz_bytecode_cache", None, raising=False)
    monkeypatch.setattr("jinja2.FileSystemBytecodeCache",
                        lambda pattern: FileSystemBytecodeCache(str(tmp_path), pattern))
    serve.keep_compiled_templates()
    (tmp_path / "t").mkdir()
    template = tmp_path / "t" / "page.j2"
    template.write_text("one {{ x }}")

    def environment():
        loader = FileSystemLoader(str(tmp_path / "t"))
        return TemplateExporter(extra_loaders=[loader])._create_environment()

    assert environment().get_template("page.j2").render(x=1) == "one 1"
    assert len(list(tmp_path.glob("dpviz-voila-*.cache"))) == 1
    reused = environment()
    reused.compile = None  # loading from the cache compiles nothing
    assert reused.get_template("page.j2").render(x=2) == "one 2"
    template.write_text("two {{ x }}")
    assert environment().get_template("page.j2").render(x=3) == "two 3"


def test_a_kernel_for_a_folders_page_warms_that_notebook(tmp_path):
    nb = notebook(tmp_path / "05.ipynb", "import numpy")
    seen: list[dict] = []

    class Base:
        root_dir = str(tmp_path.parent)

        async def start_kernel(self, *args, **kwargs):
            seen.append(kwargs)
            return "k"

    manager = serve.warming_manager(Base)()
    env = {"SCRIPT_NAME": f"/voila/render/{nb.name}"}
    assert asyncio.run(manager.start_kernel(path=tmp_path.name, env=env)) == "k"
    assert seen[0]["env"][serve.WARM] == "numpy"
    assert seen[0]["extra_arguments"] == [f"--IPKernelApp.exec_lines={serve.WARM_LINE}"]
    asyncio.run(manager.start_kernel(path=tmp_path.name, env={"SCRIPT_NAME": "/"}))
    assert serve.WARM not in seen[1]["env"]  # a single notebook's server set DPVIZ_WARM itself


@pytest.mark.parametrize("target", ["voila", "room"])
def test_make_voila_and_make_room_serve_through_dpviz(target):
    import subprocess

    line = subprocess.run(["make", "-s", "-n", target], cwd=Path(__file__).parent.parent,
                          capture_output=True, text=True, check=True).stdout.splitlines()[-1]
    assert f"-m dpviz.ui.{'serve' if target == 'voila' else 'room'} " in line
