import os

# Unit tests never read or write the on-disk result cache of dpviz.experiments.
os.environ["DPVIZ_CACHE"] = "off"


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
