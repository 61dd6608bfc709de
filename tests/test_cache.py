"""The on-disk result cache falls back to running uncached when its folder is not writable."""

import os
import warnings
from pathlib import Path

import pytest

from dpviz.errors import CacheUnavailableWarning
from dpviz.experiments import runner


@pytest.fixture
def square(monkeypatch):
    """A cached function that counts its runs, with no cache folder judged yet."""
    monkeypatch.setattr(runner, "_WRITABLE", {}, raising=False)
    runs = []

    @runner.cache
    def square(x: int) -> int:
        runs.append(x)
        return x * x

    return square, runs


def _two_calls(square, folder: Path, monkeypatch) -> list[warnings.WarningMessage]:
    monkeypatch.setenv("DPVIZ_CACHE", str(folder))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert square(3) == 9
        assert square(3) == 9
    return [w for w in caught if issubclass(w.category, CacheUnavailableWarning)]


def _under_a_file(tmp_path: Path) -> Path:
    (tmp_path / "a_file").write_text("not a folder")
    return tmp_path / "a_file" / "cache"


def _under_proc(tmp_path: Path) -> Path:
    return Path("/proc/dpviz_cache")


@pytest.mark.parametrize("unwritable", [_under_a_file, _under_proc], ids=["file", "proc"])
def test_unwritable_cache_runs_uncached_with_one_warning(square, unwritable, tmp_path, monkeypatch):
    square, runs = square
    folder = unwritable(tmp_path)
    caught = _two_calls(square, folder, monkeypatch)
    assert runs == [3, 3]  # ran twice: no cache
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"DPVIZ_CACHE={folder} is not writable" in message
    assert "running without the cache" in message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into a read-only folder: chmod cannot make one")
def test_read_only_cache_runs_uncached_with_one_warning(square, tmp_path, monkeypatch):
    square, runs = square
    folder = tmp_path / "read_only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        caught = _two_calls(square, folder, monkeypatch)
    finally:
        folder.chmod(0o755)
    assert runs == [3, 3]
    assert len(caught) == 1
    assert f"DPVIZ_CACHE={folder} is not writable" in str(caught[0].message)


def test_writable_cache_still_caches_without_warning(square, tmp_path, monkeypatch):
    square, runs = square
    caught = _two_calls(square, tmp_path / "cache", monkeypatch)
    assert runs == [3]  # the second call came from the disk
    assert caught == []


def test_off_bypasses_the_cache_without_warning(square, monkeypatch):
    square, runs = square
    monkeypatch.setenv("DPVIZ_CACHE", "off")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert square(2) == 4
        assert square(2) == 4
    assert runs == [2, 2]
