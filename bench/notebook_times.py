"""Opening a notebook (section notebook-times): Run All, and Voilà's first chart and whole page.

Each notebook in full mode from an empty result cache (shipped results read). Run All: ``jupyter
nbconvert --execute``, its wall time and slowest cell (execution timestamps). Voilà: a server with
``make voila``'s progressive rendering, opened in headless chromium (``/usr/bin/chromium`` driven
by playwright), timed from the request to the first Vega chart drawn with marks, and to the last
cell's result (Voilà's execution messages on its websocket).

    python -m bench.notebook_times [--quick] [--only 05] [--no-voila]
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, Run, cli, seconds, table

BIN = Path(sys.executable).parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRAWN = """() => [...document.querySelectorAll('.vega-embed')].some(e => e.querySelector('canvas')
    || [...e.querySelectorAll('g[class*="mark-"]')].some(g => g.childElementCount > 0))"""


def _env(work: Path) -> dict[str, str]:
    """Full mode, a new empty result cache, and this checkout's dpviz in the kernels (the
    kernel runs in notebooks/, where an installed dpviz would come first)."""
    drop = ("DPVIZ_QUICK", "DPVIZ_RECOMPUTE", "DPVIZ_SAVE_RESULTS")
    return {k: v for k, v in os.environ.items() if k not in drop} | {
        "DPVIZ_CACHE": tempfile.mkdtemp(prefix="cache-", dir=work), "PYTHONPATH": str(ROOT)}


def run_all(notebook: Path, work: Path) -> dict:
    """Run All in a fresh kernel: the wall time and the slowest cell."""
    start = time.perf_counter()
    subprocess.run([str(BIN / "jupyter"), "nbconvert", "--to", "notebook", "--execute",
                    "--ExecutePreprocessor.timeout=1800", "--output-dir", str(work), str(notebook)],
                   check=True, env=_env(work), capture_output=True, cwd=notebook.parent)
    seconds = time.perf_counter() - start
    cells = json.loads((work / notebook.name).read_text())["cells"]

    def cell_s(cell: dict) -> float:
        run = {k: dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
               for k, v in cell.get("metadata", {}).get("execution", {}).items()}
        keys = ("iopub.execute_input", "shell.execute_reply")
        return (run[keys[1]] - run[keys[0]]).total_seconds() if set(keys) <= run.keys() else 0.0

    slowest = max(range(len(cells)), key=lambda i: cell_s(cells[i]))  # code cells only have times
    return {"run_all": seconds, "slowest": cell_s(cells[slowest]), "cell": slowest}


def voila(notebook: Path, work: Path, browser: object) -> dict:
    """Seconds from the page request to the first chart drawn and to the last cell's result."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [str(BIN / "voila"), str(notebook), "--no-browser", "--Voila.ip=127.0.0.1",
         f"--port={port}", "--VoilaConfiguration.progressive_rendering=True"],
        env=_env(work), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=notebook.parent)
    try:
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        for _ in range(120):  # the server takes a few seconds to listen: not counted
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        out: dict[str, float | None] = {"first_chart": None, "whole_page": None}

        def on_frame(frame: str | bytes) -> None:
            try:
                message = json.loads(frame)
            except ValueError:
                return
            payload = message.get("payload") or {}
            if (message.get("action") == "execution_result"
                    and payload.get("cell_index", -2) + 1 == payload.get("total_cell")):
                out["whole_page"] = time.perf_counter() - start

        page.on("websocket", lambda ws: "/voila/execution/" in ws.url
                and ws.on("framereceived", on_frame))
        start = time.perf_counter()
        page.goto(f"http://127.0.0.1:{port}/", timeout=600_000, wait_until="commit")
        while None in out.values() and time.perf_counter() - start < 600:
            page.wait_for_timeout(200)  # lets playwright deliver the websocket frames
            try:
                if out["first_chart"] is None and page.evaluate(DRAWN):
                    out["first_chart"] = time.perf_counter() - start
            except Exception:  # the page is navigating or rendering
                continue
        page.close()
        return out
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    args = cli(__doc__, only={"default": "", "help": "notebook name prefix, e.g. 05"},
               no_voila={"action": "store_true", "help": "Run All only"})
    args.print |= bool(args.only)
    run = Run(args)
    only = args.only or ("00" if args.quick else "")
    notebooks = sorted((ROOT / "notebooks").glob(f"{only}*.ipynb"))
    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for nb in notebooks:
            rows[nb.name] = run_all(nb, Path(tmp))
            print(nb.name, rows[nb.name], flush=True)
        if not args.no_voila:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update"])
                for nb in notebooks:
                    rows[nb.name] |= voila(nb, Path(tmp), browser)
                    print(nb.name, rows[nb.name], flush=True)
                browser.close()
    run.write("notebook-times", table(
        ["notebook", "Run All (full mode)", "slowest cell", "Voilà: first chart",
         "Voilà: whole page"],
        [[name, seconds(r["run_all"]), f"{seconds(r['slowest'])} (cell {r['cell']})",
          seconds(r.get("first_chart")), seconds(r.get("whole_page"))]
         for name, r in rows.items()]))


if __name__ == "__main__":
    main()
