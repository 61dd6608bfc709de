"""A real-browser test: serve a paper notebook with Voilà, move its ε slider, see the chart change.

Needs Debian's chromium (``/usr/bin/chromium``; `.ci/run` installs it with apt-get) and the
``playwright`` package, which drives it (``playwright install`` cannot download browsers here).
Locally without chromium the test is skipped, and ``make test`` says so in its summary; under
CI (``CI=true``, set by `.ci/run`) it fails. Saves its screenshot outside the tracked files,
in ``$DPVIZ_SCREENSHOTS`` (default: the system temporary folder); the README's
``docs/explorer.png`` is refreshed only on purpose
(``DPVIZ_SCREENSHOTS=docs .venv/bin/python -m pytest tests/test_browser.py``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
NOTEBOOK = Path(
    os.environ.get("DPVIZ_BROWSER_NOTEBOOK", ROOT / "notebooks" / "05_dp_random_forest.ipynb")
)
SCREENSHOT = Path(os.environ.get("DPVIZ_SCREENSHOTS", tempfile.gettempdir())) / "explorer.png"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def voila_url():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run must `apt-get install chromium`")
        pytest.skip("no chromium here (install Debian's chromium to run the browser test)")
    assert NOTEBOOK.exists(), f"{NOTEBOOK} is missing"
    port = _free_port()
    voila = Path(sys.executable).with_name("voila")
    proc = subprocess.Popen(
        [
            str(voila),
            str(NOTEBOOK),
            "--no-browser",
            "--Voila.ip=127.0.0.1",
            f"--port={port}",
            "--VoilaConfiguration.file_allowlist=['.*']",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=NOTEBOOK.parent,
        env={**os.environ, "DPVIZ_QUICK": "1"},
    )
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_moving_the_epsilon_slider_changes_the_chart(voila_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
            ],
        )
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        deadline = time.time() + 60
        while True:  # wait for the server; Voilà then runs the whole notebook before answering
            try:
                page.goto(voila_url, timeout=600_000)
                break
            except Exception as error:
                if "ERR_CONNECTION_REFUSED" not in str(error) or time.time() > deadline:
                    raise
                time.sleep(1)
        handle = page.locator(".noUi-handle").first  # the first explorer's ε slider
        handle.wait_for(timeout=240_000)
        chart = page.locator(".vega-embed").first
        chart.wait_for(timeout=240_000)
        time.sleep(1.0)  # let the first render settle
        before = chart.screenshot()
        handle.focus()
        for _ in range(8):
            page.keyboard.press("ArrowLeft")  # lower ε
        changed, deadline = False, time.time() + 60
        while not changed and time.time() < deadline:
            time.sleep(0.5)
            changed = page.locator(".vega-embed").first.screenshot() != before
        settle = time.time() + 60  # key presses queue updates: wait until the chart is stable
        last = page.locator(".vega-embed").first.screenshot()
        while time.time() < settle:
            time.sleep(2.0)
            now = page.locator(".vega-embed").first.screenshot()
            if now == last:
                break
            last = now
        SCREENSHOT.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOT), full_page=False)
        browser.close()
    assert changed, "the chart did not change after moving the ε slider"


def test_voila_culls_the_kernels_of_closed_pages_but_not_of_open_ones():
    """`make voila`'s culling flags, with the timeouts shortened (300 s → 20 s, 60 s → 5 s).

    Three pages open three kernels; they survive past the idle timeout while connected (a
    student reading is never cut off) and are shut down once their pages are closed.
    """
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run must `apt-get install chromium`")
        pytest.skip("no chromium here (install Debian's chromium to run the browser test)")
    from playwright.sync_api import sync_playwright

    command = subprocess.run(
        ["make", "-s", "-n", "voila", "NB=notebooks/00_start_here.ipynb"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()[-1]
    assert "cull_idle_timeout=300" in command and "cull_connected=False" in command
    args = command.replace("cull_idle_timeout=300", "cull_idle_timeout=20")
    args = args.replace("cull_interval=60", "cull_interval=5").split()
    port = _free_port()
    voila = subprocess.Popen(
        [str(ROOT / args[0]), *args[1:], f"--port={port}"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )

    def kernels() -> int:
        found = subprocess.run(["pgrep", "-P", str(voila.pid), "-f", "ipykernel"],
                               capture_output=True, text=True).stdout
        return len(found.split())

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM,
                                        args=["--headless", "--no-sandbox", "--disable-gpu"])
            deadline = time.time() + 60
            for _ in range(3):
                page = browser.new_page()
                while True:
                    try:
                        page.goto(f"http://127.0.0.1:{port}/", timeout=240_000)
                        break
                    except Exception as error:
                        if "ERR_CONNECTION_REFUSED" not in str(error) or time.time() > deadline:
                            raise
                        time.sleep(1)
            # one kernel per page (a retried page load may start one more, which has no page
            # and is culled like a closed one)
            assert kernels() >= 3
            time.sleep(30)  # idle longer than the timeout, but connected
            assert kernels() >= 3
            browser.close()
        deadline = time.time() + 60
        while kernels() and time.time() < deadline:
            time.sleep(2)
        assert kernels() == 0, "the kernels of closed pages were not culled"
    finally:
        voila.terminate()
        voila.wait(timeout=30)
