import os
import sys

import pytest

#: The DPVIZ_* variables a test run keeps: where the UCI files are (DPVIZ_DATA), the browser
#: test's inputs and outputs (the notebooks it checks, where its screenshot goes), and the fault
#: bench.fault_kinds plants for a session (DPVIZ_PLANT, read by bench/fault_plugin.py when pytest
#: is configured, after this file: cleared, the held-out check would plant nothing and report
#: every fault as missed) with the file its first failure goes to.
KEPT = frozenset({"DPVIZ_DATA", "DPVIZ_BROWSER_NOTEBOOKS", "DPVIZ_SCREENSHOTS", "DPVIZ_PLANT",
                  "DPVIZ_PLANT_REPORT"})
#: The thread caps of numba, OpenMP and the BLAS libraries: unset, the machine's defaults.
THREAD_VARIABLES = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                    "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def isolated(environ: dict) -> list[str]:
    """Remove from ``environ`` the switches a test's outcome must not depend on; their names.

    Every DPVIZ_* switch but :data:`KEPT` (DPVIZ_RECOMPUTE, DPVIZ_QUICK, DPVIZ_ENGINE,
    DPVIZ_SAVE_RESULTS, DPVIZ_CACHE ...), every TQDM_* default (TQDM_DISABLE hides the bars the
    progress tests read) and the thread caps of :data:`THREAD_VARIABLES`.
    """
    names = [name for name in environ
             if (name.startswith("DPVIZ_") and name not in KEPT) or name.startswith("TQDM_")
             or name in THREAD_VARIABLES]
    for name in names:
        del environ[name]
    return names


# At import, before dpviz, numba or tqdm read them: the suite runs the same whatever the
# environment sets. Unit tests never read or write the on-disk result cache of dpviz.experiments.
isolated(os.environ)
os.environ["DPVIZ_CACHE"] = "off"


@pytest.fixture(autouse=True)
def _fresh_exercise_answers():
    """Each test answers the exercises as a fresh kernel does: no tries or reveals recorded."""
    exercises = sys.modules.get("dpviz.ui.exercises")
    if exercises is not None:
        exercises.forget_answers()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say loudly when the real-browser test or the hub's smoke test did not run."""
    skipped = terminalreporter.stats.get("skipped", [])
    if any("test_browser" in getattr(r, "nodeid", "") for r in skipped):
        terminalreporter.write_sep(
            "!", "BROWSER TEST SKIPPED: no chromium here. Install Debian's chromium "
            "(sudo apt-get install chromium) to run it; .ci/run installs it and never skips",
            yellow=True, bold=True,
        )
    hub = [r for r in skipped if "test_hub.py" in getattr(r, "nodeid", "")]
    if hub:  # make hub's smoke test: root, node >= 20 and npm (its one line says what is missing)
        reason = hub[0].longrepr[2] if isinstance(hub[0].longrepr, tuple) else hub[0].longrepr
        terminalreporter.write_sep(
            "!", f"HUB SMOKE TEST SKIPPED: {str(reason).removeprefix('Skipped: ')}",
            yellow=True, bold=True,
        )


def pytest_sessionstart(session):
    """Without the UCI files (and no network to fetch them): one short message, not 60 lines."""
    import pytest

    from dpviz.data.uci import ensure_files
    from dpviz.errors import DataUnavailableError

    try:
        ensure_files()
    except DataUnavailableError as exc:
        pytest.exit(f"dpviz: {exc}", returncode=3)
