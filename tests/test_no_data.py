"""Without the UCI files: one short message, in the shell and in a notebook (issue 22)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from dpviz.data import uci as datasets
from dpviz.errors import DataUnavailableError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def calls() -> list[str]:
    return []


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, calls: list[str]) -> Path:
    """An empty data folder, and a download that fails as it does without a network."""

    def fail(url: str) -> bytes:
        calls.append(url)
        raise OSError("[Errno -2] Name or service not known")

    monkeypatch.setenv(datasets.ENV_VAR, os.fspath(tmp_path))
    monkeypatch.setattr(datasets, "_fetch", fail)
    return tmp_path


def test_ensure_files_names_every_missing_file_and_tries_one_download(
    offline: Path, calls: list[str]
) -> None:
    with pytest.raises(DataUnavailableError) as info:
        datasets.ensure_files()
    message = str(info.value)
    for name in ("nursery.data", "agaricus-lepiota.data", "house-votes-84.data", "adult.data",
                 "adult.test"):
        assert name in message
    assert str(offline) in message and "DPVIZ_DATA" in message and "make data" in message
    assert "Name or service not known" in message
    assert len(message.splitlines()) == 2
    assert calls == [datasets.UCI["nursery"]["archive"]]  # offline: the others are not tried
    assert info.value.__context__ is None  # no urllib traceback under the message


def test_load_offline_has_no_chained_traceback(offline: Path) -> None:
    with pytest.raises(DataUnavailableError) as info:
        datasets.load("votes")
    assert info.value.__suppress_context__  # no urllib traceback under the message


def test_make_data_prints_one_message_and_fails(tmp_path: Path) -> None:
    env = {**os.environ, datasets.ENV_VAR: os.fspath(tmp_path), "no_proxy": "*",
           "https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9"}
    done = subprocess.run([sys.executable, "-c", "from dpviz.data.uci import main; main()"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("dpviz: UCI data file(s) missing: nursery.data") and len(lines) == 2


def test_notebook_without_data_shows_one_message_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a kernel: one message, a quiet note per later cell that needs the data, no error;
    a NameError for a name no skipped cell sets (a typo) keeps its traceback."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in (
        # a notebook's setup cell installs the hook (``import dpviz`` installs nothing)
        "import dpviz\nfrom dpviz.data.uci import load\nfrom dpviz.ui import kernel\n"
        "kernel.install()",
        "votes = load('votes')",
        "%time n = votes.n_rows",  # needs the data: NameError, stopped quietly
        "print('synthetic', 2 + 2)",  # a cell that needs none still runs
        "1 / 0",  # any other error keeps its traceback
        "print(n)",  # set by a skipped cell only: stopped quietly
        "print(vtoes)",  # a typo keeps its traceback
    )]
    monkeypatch.setenv(datasets.ENV_VAR, os.fspath(tmp_path))  # the kernel inherits them
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = [cell.outputs for cell in nb.cells]
    first = outputs[1][0]
    assert first.output_type == "display_data"
    assert first.data["text/plain"].startswith("Data files missing")
    assert "house-votes-84.data" in first.data["text/html"]
    assert [o.output_type for o in outputs[2]] == ["stream", "display_data"]  # %time's times
    assert outputs[2][1].data["text/plain"].startswith("Skipped: this cell needs the data")
    assert outputs[3][0].text == "synthetic 4\n"
    assert [o.output_type for o in outputs[4]] == ["error"]
    assert outputs[4][0].ename == "ZeroDivisionError"
    assert outputs[5][0].data["text/plain"].startswith("Skipped: this cell needs the data")
    assert [(o.output_type, o.ename) for o in outputs[6]] == [("error", "NameError")]
    assert not any(o.output_type == "error" for cell in outputs[:4] + outputs[5:6] for o in cell)
