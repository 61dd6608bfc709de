"""No stale number (issue 46): a cached or shipped result is checked against the code it ran.

The disk cache keeps with each result the record of what it ran (dpviz.provenance); a change to
any function it called, not only the cached one, runs it again; an edit of docstrings or
comments does not. ``python -m dpviz.experiments.shipped --stale`` names the shipped files
whose record differs from the code.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pandas as pd
import pytest

from dpviz import provenance
from dpviz.errors import InvalidParameterError
from dpviz.experiments import registry, runner, shipped
from dpviz.experiments.comparison import compare
from dpviz.trees.id3 import DiffPID3Classifier

ROOT = Path(__file__).resolve().parents[1]

HELPER = '''
"""Noise for the toy job."""


def noise():
    """The noise: one."""
    return 1.0
'''
HELPER_PROSE = '''
"""Noise for the toy job: the docstrings say more now."""


def noise():
    """The noise, which is one."""
    # a comment, and the code one line lower
    return 1.0
'''
HELPER_CHANGED = HELPER.replace("return 1.0", "return 1.5")
JOB = '''
import pandas as pd

import {helper} as helper

RUNS = []


def compute(n):
    RUNS.append(n)
    return pd.DataFrame({{"value": [n * helper.noise()]}})
'''


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A cached job (its own module) that calls a helper (another module), and the helper."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # a reload reads the edited source
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("DPVIZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(runner, "_WRITABLE", {})
    name = f"toy_{uuid.uuid4().hex[:8]}"
    helper_path = tmp_path / f"{name}_helper.py"
    helper_path.write_text(HELPER)
    (tmp_path / f"{name}_job.py").write_text(JOB.format(helper=f"{name}_helper"))
    job = importlib.import_module(f"{name}_job")
    helper = importlib.import_module(f"{name}_helper")

    def edit(source: str) -> None:
        helper_path.write_text(source)
        importlib.reload(helper)

    yield runner.cache(job.compute), job.RUNS, edit
    for module in (f"{name}_job", f"{name}_helper"):
        sys.modules.pop(module, None)


def test_a_change_to_a_called_function_runs_the_cached_result_again(toy):
    cached, runs, edit = toy
    assert cached(2)["value"].iloc[0] == 2.0
    assert cached(2)["value"].iloc[0] == 2.0
    assert runs == [2]  # the second from the disk
    edit(HELPER_CHANGED)  # the cached function is the same; the function it calls is not
    assert cached(2)["value"].iloc[0] == 3.0
    assert runs == [2, 2]
    assert cached(2)["value"].iloc[0] == 3.0
    assert runs == [2, 2]  # the new result replaced the old one


def test_an_edit_of_docstrings_and_comments_keeps_the_cached_result(toy):
    cached, runs, edit = toy
    cached(2)
    edit(HELPER_PROSE)
    assert cached(2)["value"].iloc[0] == 2.0
    assert runs == [2]


def test_the_record_names_the_modules_data_and_libraries_a_computation_used():
    from dpviz.data.uci import load

    with provenance.recording() as watch:
        load("votes")
        DiffPID3Classifier(1.0, max_depth=2, domain=load("votes").domain, random_state=0)
    record = provenance.record(watch)
    assert {"dpviz/data/uci.py", "dpviz/data/uci.json", "dpviz/trees/id3.py"} <= set(
        record["code"])
    assert "dpviz/provenance.py" not in record["code"]
    assert "house-votes-84.data" in record["data"]
    assert {"numpy", "pandas", "python"} <= set(record["libraries"])
    assert runner.changes(record) == []
    altered = {**record, "code": {**record["code"], "dpviz/trees/id3.py": "0" * 16},
               "libraries": {**record["libraries"], "numpy": "0.1"}}
    assert runner.changes(altered) == [
        "dpviz/trees/id3.py", f"numpy 0.1 -> {record['libraries']['numpy']}"]


def test_a_memoized_value_tells_a_later_recording_what_it_ran():
    @runner.remember()
    def domain_of(name: str):
        from dpviz.data.uci import load

        return load(name).domain

    domain_of("votes")  # remembered outside any recording: nothing known of what it ran
    for _ in range(2):  # computed again inside the first; replayed in the second
        with provenance.recording() as watch:
            domain_of("votes")
        assert "dpviz/data/uci.py" in provenance.record(watch)["code"]


def _shallow(depth: int):
    return lambda eps, data, seed: DiffPID3Classifier(eps, max_depth=depth, domain=data.domain,
                                                      random_state=seed)


def test_a_changed_factory_runs_the_comparison_again(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(runner, "_WRITABLE", {})
    monkeypatch.setattr(runner, "_MEMORY", {})
    arguments = dict(datasets=("votes",), algorithms=("DiffPID3-Max",), epsilons=(5.0,),
                     sizes=(200,), repeats=2, references=False)
    monkeypatch.setitem(registry.FACTORIES, "DiffPID3-Max", _shallow(1))
    one = compare(**arguments)
    stored = _entries(tmp_path / "cache")
    assert len(stored) == 1
    monkeypatch.setitem(registry.FACTORIES, "DiffPID3-Max", _shallow(1))  # the same closure
    pd.testing.assert_frame_equal(compare(**arguments), one)
    assert _entries(tmp_path / "cache") == stored  # read
    monkeypatch.setitem(registry.FACTORIES, "DiffPID3-Max", _shallow(4))  # the same code
    compare(**arguments)
    assert _entries(tmp_path / "cache") != stored  # run again: the factory's closure differs
    assert provenance.factory_digest(_shallow(1)) != provenance.factory_digest(_shallow(4))


def test_a_factory_holding_what_cannot_be_pickled_is_not_recorded():
    assert provenance.factory_digest(lambda e, d, s: (lambda: None)) is not None
    held = (lambda: None,)
    assert provenance.factory_digest(lambda e, d, s: held) is None


# ------------------------------------------------------------------- fi_figure4, end to end
FIGURE = """
import json, sys
from dpviz.experiments.reproduce_fi import fi_figure4
frame = fi_figure4(("SynthA",), n_rows=400, n_folds=2)
print(json.dumps(frame.round(6).to_dict("records")))
"""
NOISIER = """

_report_noisy_max = report_noisy_max


def report_noisy_max(counts, *, epsilon, **options):
    return _report_noisy_max(counts, epsilon=epsilon / 50, **options)
"""


def _figure4(copy: Path, cache: Path) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(copy), "DPVIZ_CACHE": str(cache)}
    run = subprocess.run([sys.executable, "-c", FIGURE], cwd=copy, env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return json.loads(run.stdout.splitlines()[-1])


def _entries(cache: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in cache.rglob("output.pkl")}


def test_fi_figure4_after_a_change_to_rosnams_noise_is_not_the_cached_number(tmp_path):
    """The issue's case: ROSNAM's noise changed (in dpviz.mechanisms, not in the cached
    function's module), fi_figure4 gave the old number from the disk cache."""
    copy, cache = tmp_path / "checkout", tmp_path / "cache"
    shutil.copytree(ROOT / "dpviz", copy / "dpviz",
                    ignore=shutil.ignore_patterns("results", "__pycache__"))
    mechanisms = copy / "dpviz" / "mechanisms.py"
    first = _figure4(copy, cache)
    stored = _entries(cache)
    assert len(stored) == 1
    source = mechanisms.read_text()
    mechanisms.write_text(source.replace('"""', '"""Prose edited. ', 1) + "\n# a comment\n")
    assert _figure4(copy, cache) == first and _entries(cache) == stored  # read, not run
    mechanisms.write_text(source + NOISIER)
    noisier = _figure4(copy, cache)
    assert noisier != first and _entries(cache) != stored  # run again, and replaced
    rosnam = [r for r in noisier if "rosnam" in str(r.values()).lower()]
    assert rosnam and rosnam != [r for r in first if "rosnam" in str(r.values()).lower()]


# ------------------------------------------------------------------------------ --stale
def checked(n: int) -> pd.DataFrame:
    """A shipped stand-in that runs a dpviz function (dpviz.validation's check)."""
    from dpviz.validation import check_int

    return pd.DataFrame({"n": [check_int(n, "n", minimum=1)], "value": [0.5]})


def _stale(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dpviz.experiments.shipped", "--stale", "--folder", str(folder)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_stale_names_the_shipped_file_whose_module_changed(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped, "RESULTS", tmp_path)
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    shipped.result(checked, 3, recompute=True)
    fresh = json.loads((tmp_path / "checked.json").read_text())
    assert "dpviz/validation.py" in fresh["ran"]["code"]
    clean = _stale(tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "all 1 shipped result(s)" in clean.stdout
    altered = json.loads(json.dumps(fresh))
    altered["ran"]["code"]["dpviz/validation.py"] = "0" * 16  # made by other code
    (tmp_path / "altered.csv").write_bytes((tmp_path / "checked.csv").read_bytes())
    (tmp_path / "altered.json").write_text(json.dumps(altered))
    run = _stale(tmp_path)
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        "altered.csv: dpviz/validation.py", f"1 of 2 shipped result(s) in {tmp_path} stale"]


def test_a_shipped_file_without_a_record_is_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped, "RESULTS", tmp_path)
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    shipped.result(checked, 3, recompute=True)
    meta = json.loads((tmp_path / "checked.json").read_text())
    del meta["ran"]
    (tmp_path / "checked.json").write_text(json.dumps(meta))
    assert shipped.stale(tmp_path) == {
        "checked.csv": [f"no record of what it ran (made at {meta['code_version']})"]}


def test_a_result_whose_code_cannot_be_recorded_does_not_ship(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped, "RESULTS", tmp_path)
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    source = textwrap.dedent("""
        import pandas as pd
        def typed(n):
            return pd.DataFrame({"n": [n], "v": [1]})
    """)
    for where in ("<stdin>", "/tmp/ipykernel_0/a_notebook_cell.py"):  # no file to read
        namespace: dict = {}
        exec(compile(source, where, "exec"), namespace)
        with pytest.raises(shipped.ShippedResultError, match="cannot be recorded"):
            shipped.result(namespace["typed"], 1, recompute=True)
        assert list(tmp_path.iterdir()) == []


def test_a_result_whose_code_cannot_be_recorded_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(runner, "_WRITABLE", {})
    namespace: dict = {"runs": []}
    exec(compile("def typed(n):\n    runs.append(n)\n    return n\n", "<stdin>", "exec"),
         namespace)
    cached = runner.cache(namespace["typed"])
    assert cached(1) == 1 and cached(1) == 1
    assert namespace["runs"] == [1, 1]  # run each time, never stored


# --------------------------------------------------------------------- make results ONLY=
def test_run_shipped_only_remakes_the_group_asked_for(monkeypatch, capsys):
    from dpviz import explore

    made = []
    groups = {"fi": (lambda: made.append("fi"),), "jpw": (lambda: made.append("jpw"),)}
    monkeypatch.setattr(explore, "shipping_modules", lambda: groups)
    explore.run_shipped("jpw")
    assert made == ["jpw"]
    explore.run_shipped("")
    assert made == ["jpw", "fi", "jpw"]
    with pytest.raises(InvalidParameterError, match=r"ONLY=fj: fj ships no results.*fi, jpw"):
        explore.run_shipped("fj")


def _results_groups(*arguments: str) -> list[str]:
    """The groups `make results` runs, one process each (from `make -n`)."""
    run = subprocess.run(["make", "-n", "results", *arguments], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    assert "run_shipped('$group')" in run.stdout
    return re.search(r"for group in ([^;]*);", run.stdout)[1].split()


def test_make_results_passes_only_on():
    assert _results_groups("ONLY=rdt_sharp") == ["rdt_sharp"]
    assert _results_groups("ONLY=fi,fs") == ["fi,fs"]


def test_every_notebook_module_with_shipped_results_is_a_group():
    from dpviz import explore

    modules = set(explore.shipping_modules())
    assert {"fi", "fs", "jpw", "rdt_sharp", "audit", "compare"} <= modules
    groups = _results_groups()  # the default: every module, in two processes
    assert len(groups) == 2
    assert sorted(m for group in groups for m in group.split(",")) == sorted(modules)


def test_under_another_profiler_nothing_is_recorded_and_that_profiler_keeps_running():
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        with provenance.recording() as watch:
            DiffPID3Classifier(1.0, max_depth=2)
        still = sys.getprofile()
    finally:
        profiler.disable()
    assert still is not None and provenance.record(watch) is None


def test_nested_recordings_that_saw_the_same_are_told_apart():
    """A recording is itself, not its contents: the stack removes an ending recording by
    identity (with value equality an inner recording that had seen what its outer one had
    removed the outer one: RDT#'s pseudo_label_table could not be remade, 'list.remove(x): x
    not in list')."""
    assert provenance.Watch() != provenance.Watch()
    with provenance.recording() as outer:
        with provenance.recording():
            pass
        assert provenance._STACK[-1] is outer
    assert not provenance.active()
