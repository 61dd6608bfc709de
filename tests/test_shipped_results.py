"""The shipped results (dpviz/results/): read, recomputed and saved, and what is shipped."""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import json
import math
import pickle
import shutil

import pandas as pd
import pytest

from dpviz.experiments import fs_runs, runner, shipped
from dpviz.experiments.reproduce_jpw import jpw_accuracy
from dpviz.experiments.shipped import (
    ShippedResultError,
    ShippedResultIntegrityError,
    result,
)

REAL = shipped.RESULTS
SHIPPED = sorted(REAL.glob("*.json"))
META_KEYS = {"function", "arguments", "code_version", "dpviz_version", "library_digest", "created",
             "seconds", "machine", "command", "csv_sha256"}


def toy_sweep(dataset: str, epsilons: tuple = (0.5, math.inf), *, n_runs: int = 2,
              progress: bool = False) -> pd.DataFrame:
    """A stand-in reproduction: deterministic, with awkward floats, ∞ and a missing value."""
    toy_sweep.calls.append(progress)
    rows = [{"dataset": dataset, "epsilon": e, "run": r, "accuracy": 1 / 3 + r * 1e-17 + 0.1 * r,
             "note": None if r else "first"} for e in epsilons for r in range(n_runs)]
    return pd.DataFrame(rows)


toy_sweep.calls = []


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped, "RESULTS", tmp_path)
    monkeypatch.delenv("DPVIZ_RECOMPUTE", raising=False)
    monkeypatch.delenv("DPVIZ_SAVE_RESULTS", raising=False)
    toy_sweep.calls.clear()
    return tmp_path


def test_saving_writes_a_csv_and_its_provenance_and_reading_gives_the_same_frame(results_dir,
                                                                                 monkeypatch):
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    made = result(toy_sweep, "votes", n_runs=3, recompute=True)
    assert toy_sweep.calls == [True]  # recomputing shows a progress bar
    meta = json.loads((results_dir / "toy_sweep-votes.json").read_text())
    assert META_KEYS <= meta.keys()
    assert meta["arguments"] == {"dataset": "votes", "epsilons": [0.5, "inf"], "n_runs": 3}
    assert meta["function"].endswith("toy_sweep") and meta["command"] == "make results"
    monkeypatch.delenv("DPVIZ_SAVE_RESULTS")
    read = result(toy_sweep, "votes", n_runs=3)
    assert toy_sweep.calls == [True]  # read, not run
    pd.testing.assert_frame_equal(read, made, check_exact=True)  # bit for bit, ∞ and None included
    assert read.attrs["provenance"]["command"] == "make results"
    derived = read[read["epsilon"] == 0.5].reset_index(drop=True)  # pandas copies attrs
    assert derived.attrs["provenance"] is read.attrs["provenance"]  # shared, not deep-copied
    assert pickle.loads(pickle.dumps(read)).attrs["provenance"] == read.attrs["provenance"]


def test_a_call_with_other_arguments_than_the_shipped_file_is_refused(results_dir, monkeypatch):
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    result(toy_sweep, "votes", n_runs=3, recompute=True)
    monkeypatch.delenv("DPVIZ_SAVE_RESULTS")
    with pytest.raises(ShippedResultError, match=r"n_runs.*3.*n_runs.*2.*make results"):
        result(toy_sweep, "votes", n_runs=2)
    with pytest.raises(ShippedResultError, match="no shipped result"):
        result(toy_sweep, "mushroom", n_runs=3)  # another file: toy_sweep-mushroom.csv


def test_recompute_is_on_request_and_saves_nothing_by_default(results_dir, monkeypatch):
    frame = result(toy_sweep, "votes", recompute=True)
    assert toy_sweep.calls == [True] and list(results_dir.iterdir()) == []
    assert frame.attrs["provenance"]["recomputed"]
    monkeypatch.setenv("DPVIZ_RECOMPUTE", "1")
    result(toy_sweep, "votes")
    assert toy_sweep.calls == [True, True]


def test_recomputing_bypasses_the_on_disk_cache(results_dir):
    @functools.wraps(toy_sweep)
    def cached(*args, **kwargs):
        raise AssertionError("the cache was consulted")

    result(cached, "votes", recompute=True)
    assert toy_sweep.calls == [True]


def _inner_step(n: int) -> pd.DataFrame:
    _inner_step.calls += 1
    return pd.DataFrame({"n": [n], "value": [1 / 3]})


_inner_step.calls = 0
_cached_step = runner.cache(_inner_step)


def reproduction_with_a_cached_step(dataset: str, n: int = 2) -> pd.DataFrame:
    """Not cached itself, but calls a cached function (as fs_runs.table1_runs does)."""
    return _cached_step(n).assign(dataset=dataset)


def test_recomputing_bypasses_the_cache_of_the_functions_it_calls(results_dir, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE", str(results_dir / "cache"))
    _inner_step.calls = 0
    _cached_step(2)
    _cached_step(2)
    assert _inner_step.calls == 1  # the cache works outside a recomputation
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    frame = result(reproduction_with_a_cached_step, "votes", recompute=True)
    assert _inner_step.calls == 2  # run again, not read from the cache
    assert "created" in frame.attrs["provenance"] and frame["value"].iloc[0] == 1 / 3
    _cached_step(2)
    assert _inner_step.calls == 2  # the cache is still there for other callers


def test_arguments_that_cannot_be_recorded_are_refused(results_dir, monkeypatch):
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    with pytest.raises(ShippedResultError, match="cannot record"):
        result(toy_sweep, "votes", epsilons=(object(),), recompute=True)


def test_some_results_are_shipped():
    names = {path.stem.split("-")[0] for path in SHIPPED}
    assert {"jpw_accuracy", "fi_figure4", "rdt_sharp_vs_epsilon"} <= names, names


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_each_shipped_result_says_how_it_was_made_and_matches_its_function(path):
    meta = json.loads(path.read_text())
    assert META_KEYS <= meta.keys()
    assert not meta["code_version"].endswith("dirty"), "make results ran on uncommitted code"
    module, _, name = meta["function"].rpartition(".")
    function = getattr(importlib.import_module(module), name)
    # the recorded arguments still bind to the function as it is now
    inspect.signature(function).bind(**meta["arguments"])
    frame = pd.read_csv(path.with_suffix(".csv"))
    assert len(frame) > 0 and len(frame.columns) > 1
    assert path.with_suffix(".csv").stat().st_size < 200_000  # small files


def test_an_optional_result_that_is_not_shipped_is_computed(results_dir):
    frame = result(toy_sweep, "adult", missing="compute")
    assert toy_sweep.calls == [True] and len(frame) == 4
    with pytest.raises(ShippedResultError, match="missing must be"):
        result(toy_sweep, "adult", missing="ignore")


# ------------------------------------------------------------------ integrity of shipped files
@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_each_shipped_json_records_the_sha256_of_its_csv(path):
    meta = json.loads(path.read_text(encoding="utf-8"))
    digest = hashlib.sha256(path.with_suffix(".csv").read_bytes()).hexdigest()
    assert meta.get("csv_sha256") == digest, (
        f"{path.name}: run python -m dpviz.experiments.shipped --stamp, or make results"
    )


@pytest.fixture
def jpw_copy(tmp_path, monkeypatch):
    """A copy of the shipped jpw_accuracy files (the issue's example), read from ``tmp_path``."""
    monkeypatch.setattr(shipped, "RESULTS", tmp_path)
    monkeypatch.delenv("DPVIZ_RECOMPUTE", raising=False)
    for suffix in (".csv", ".json"):
        shutil.copy(REAL / f"jpw_accuracy{suffix}", tmp_path)
    return tmp_path / "jpw_accuracy.csv"


def read_jpw() -> pd.DataFrame:
    return result(jpw_accuracy, epsilons=(0.5, 0.75, 1.0, math.inf), n_runs=10, n_folds=10)


def _lines(csv):
    return csv.read_text(encoding="utf-8").splitlines(keepends=True)


ALTERATIONS = {
    "a number changed": lambda lines: [line.replace("89.40663580246915", "99.40663580246915")
                                       for line in lines],
    "text in a numeric column": lambda lines: [line.replace("89.40663580246915", "n/a")
                                               for line in lines],
    "half the rows removed": lambda lines: lines[: 1 + (len(lines) - 1) // 2],
    "the rows duplicated": lambda lines: lines + lines[1:],
}


def test_an_untouched_shipped_file_loads(jpw_copy):
    frame = read_jpw()
    assert (frame["mean"] > 80).all() and len(frame) == len(_lines(jpw_copy)) - 1
    assert frame.attrs["provenance"]["command"] == "make results"


@pytest.mark.parametrize("alteration", ALTERATIONS)
def test_an_altered_shipped_csv_is_refused(jpw_copy, alteration):
    before = _lines(jpw_copy)
    after = ALTERATIONS[alteration](before)
    assert after != before
    jpw_copy.write_text("".join(after), encoding="utf-8")
    with pytest.raises(ShippedResultIntegrityError,
                       match=r"jpw_accuracy\.csv was changed.*make results.*DPVIZ_RECOMPUTE=1"):
        read_jpw()


def test_a_shipped_csv_with_other_line_endings_is_refused(jpw_copy):
    jpw_copy.write_bytes(jpw_copy.read_bytes().replace(b"\n", b"\r\n"))
    with pytest.raises(ShippedResultIntegrityError, match="was changed"):
        read_jpw()


def test_a_shipped_json_without_a_digest_is_refused(jpw_copy):
    meta_path = jpw_copy.with_suffix(".json")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    del meta["csv_sha256"]
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ShippedResultIntegrityError,
                       match=r"jpw_accuracy\.csv has no SHA-256.*make results.*DPVIZ_RECOMPUTE=1"):
        read_jpw()


@pytest.mark.parametrize("content", [None, "{", "[]"], ids=["missing", "truncated", "a list"])
def test_a_shipped_csv_without_a_readable_json_is_refused(jpw_copy, content):
    meta_path = jpw_copy.with_suffix(".json")
    if content is None:
        meta_path.unlink()
    else:
        meta_path.write_text(content, encoding="utf-8")
    with pytest.raises(ShippedResultIntegrityError, match=r"jpw_accuracy.*make results"):
        read_jpw()


def test_saving_records_the_digest_of_the_csv_bytes_on_disk(results_dir, monkeypatch):
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    made = result(toy_sweep, "votes", recompute=True)
    csv = results_dir / "toy_sweep-votes.csv"
    digest = hashlib.sha256(csv.read_bytes()).hexdigest()
    assert json.loads(csv.with_suffix(".json").read_text())["csv_sha256"] == digest
    assert made.attrs["provenance"]["csv_sha256"] == digest
    assert b"\r" not in csv.read_bytes()  # the same bytes on every system


def test_an_altered_explorer_curves_file_is_refused_not_skipped(tmp_path, monkeypatch):
    name = "explorer_curves-nursery"
    for suffix in (".csv", ".json"):
        shutil.copy(REAL / f"{name}{suffix}", tmp_path)
    monkeypatch.setattr(shipped, "RESULTS", tmp_path)
    csv = tmp_path / f"{name}.csv"
    csv.write_text("".join(_lines(csv)[:10]), encoding="utf-8")
    monkeypatch.setattr(runner, "_MEMORY", {})
    with pytest.raises(ShippedResultIntegrityError, match=f"{name}.csv was changed"):
        fs_runs.shipped_curves("nursery")


# ---------------------------------------------------------------------------------- stamping
def _unstamp(meta_path):
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    del meta["csv_sha256"]
    shipped._write_meta(meta_path, meta)


def test_stamping_adds_only_the_digest_in_the_format_saving_writes(results_dir, monkeypatch):
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    result(toy_sweep, "votes", recompute=True)
    result(toy_sweep, "adult", recompute=True)
    saved = {p.name: p.read_bytes() for p in results_dir.iterdir()}
    _unstamp(results_dir / "toy_sweep-votes.json")
    assert shipped.stamp() == [results_dir / "toy_sweep-votes.json"]
    assert {p.name: p.read_bytes() for p in results_dir.iterdir()} == saved
    assert shipped.stamp() == []  # re-runnable: stamped files are left alone


def test_stamping_refuses_a_csv_that_does_not_match_and_writes_nothing(results_dir, monkeypatch):
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    result(toy_sweep, "votes", recompute=True)
    result(toy_sweep, "adult", recompute=True)
    _unstamp(results_dir / "toy_sweep-adult.json")
    csv = results_dir / "toy_sweep-votes.csv"
    csv.write_text(csv.read_text() + csv.read_text().splitlines()[-1] + "\n")
    before = {p.name: p.read_bytes() for p in results_dir.iterdir()}
    with pytest.raises(ShippedResultIntegrityError,
                       match=r"nothing stamped: toy_sweep-votes\.csv does not match.*make results"):
        shipped.stamp()
    assert {p.name: p.read_bytes() for p in results_dir.iterdir()} == before


def test_the_stamp_command(results_dir, monkeypatch, capsys):
    monkeypatch.setenv("DPVIZ_SAVE_RESULTS", "1")
    result(toy_sweep, "votes", recompute=True)
    _unstamp(results_dir / "toy_sweep-votes.json")
    shipped.main(["--stamp"])
    assert "stamped 1 file(s)" in capsys.readouterr().out
    assert "csv_sha256" in json.loads((results_dir / "toy_sweep-votes.json").read_text())


def test_make_results_recomputes_every_shipped_file(monkeypatch):
    """`make results` runs each notebook module's SHIPPED (``dpviz.explore.run_shipped``) with
    DPVIZ_RECOMPUTE=1. Read here instead, those calls must touch every shipped file, with the
    arguments it was made with (or ``result`` refuses it), so that no shipped file goes stale
    unseen and no notebook reads a result that `make results` does not remake."""
    from dpviz.explore import run_shipped

    monkeypatch.delenv("DPVIZ_RECOMPUTE", raising=False)
    monkeypatch.delenv("DPVIZ_SAVE_RESULTS", raising=False)
    monkeypatch.setattr(runner, "recall", lambda kind, key, compute, maxsize=None: compute())
    read, path_of = set(), shipped.result_path

    def recording(function, *args):
        path = path_of(function, *args)
        read.add(path.name)
        return path

    monkeypatch.setattr(shipped, "result_path", recording)
    run_shipped()
    assert read == {p.with_suffix(".csv").name for p in SHIPPED}


def test_no_shipped_result_is_stale():
    """Every shipped file's record matches the code now (``--stale`` is clean on main, issue 46):
    a change to what a result ran fails here until ``make results ONLY=…`` remakes it."""
    from dpviz.experiments.shipped import stale

    assert stale() == {}, "stale shipped results: run `python -m dpviz.experiments.shipped " \
        "--stale` and remake them (docs/maintaining.md)"
