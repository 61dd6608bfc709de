"""The suite runs the same whatever the environment sets (tests/conftest.py clears the switches)."""

import os
import subprocess
import sys
from pathlib import Path

import conftest

ROOT = Path(__file__).resolve().parents[1]


def test_the_session_sees_no_behaviour_switch():
    left = [name for name in os.environ
            if (name.startswith("DPVIZ_") and name not in conftest.KEPT | {"DPVIZ_CACHE"})
            or name.startswith("TQDM_") or name in conftest.THREAD_VARIABLES]
    assert left == []
    assert os.environ["DPVIZ_CACHE"] == "off"


def test_isolated_removes_the_switches_and_keeps_the_data_folder():
    environ = {"DPVIZ_RECOMPUTE": "1", "DPVIZ_QUICK": "1", "DPVIZ_ENGINE": "python",
               "TQDM_DISABLE": "1", "OMP_NUM_THREADS": "1", "DPVIZ_DATA": "/data", "HOME": "/h"}
    assert sorted(conftest.isolated(environ)) == [
        "DPVIZ_ENGINE", "DPVIZ_QUICK", "DPVIZ_RECOMPUTE", "OMP_NUM_THREADS", "TQDM_DISABLE"]
    assert environ == {"DPVIZ_DATA": "/data", "HOME": "/h"}


def test_the_progress_tests_pass_with_tqdm_disabled_and_recompute_set():
    env = {**os.environ, "TQDM_DISABLE": "1", "DPVIZ_RECOMPUTE": "1", "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_progress.py", "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:]
