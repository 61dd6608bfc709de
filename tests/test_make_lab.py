"""`make lab` prints, last, a URL that opens notebooks/00_start_here.ipynb (issue 22)."""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_lab_prints_last_a_url_that_opens_the_start_notebook(tmp_path: Path) -> None:
    printed = subprocess.run(["make", "-s", "-n", "lab"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
    text = printed[printed.index("PYTHONWARNINGS=ignore::DeprecationWarning"):]
    command = shlex.split(text.replace("\\\n", " "))[1:]  # the jupyter command, its flags
    command[0] = str(ROOT / command[0])
    port = _free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "PYTHONWARNINGS": "ignore::DeprecationWarning"}
    log = tmp_path / "lab.log"
    with log.open("w") as out:
        lab = subprocess.Popen([*command, f"--ServerApp.port={port}", "--ServerApp.port_retries=0"],
                               cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while "token=" not in log.read_text() and time.monotonic() < deadline:
            assert lab.poll() is None, log.read_text()
            time.sleep(0.5)
        time.sleep(1)  # anything printed after the URL would show up now
        printed = [line.strip() for line in log.read_text().splitlines() if line.strip()]
        assert re.fullmatch(
            rf"http://127\.0\.0\.1:{port}/lab/tree/00_start_here\.ipynb\?token=[0-9a-f]+",
            printed[-1]), printed[-8:]
        assert len(printed) <= 10, printed  # a quiet start-up: the URL is easy to see
        with urllib.request.urlopen(printed[-1], timeout=30) as page:
            assert page.status == 200
    finally:
        lab.terminate()
        lab.wait(timeout=30)
