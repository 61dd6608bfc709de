"""Opening a notebook (issue 13): Run All in full mode, and Voilà's time to its first chart.

For every notebook, from an empty result cache (``DPVIZ_CACHE`` set to a new empty folder; the
shipped results in ``dpviz/results/`` are read as a user's checkout reads them):

* **Run All, full mode** (no ``DPVIZ_QUICK``): ``jupyter nbconvert --execute`` in a fresh
  kernel; the wall time from start to the last cell, and the slowest cell (from the cell
  execution timestamps). Bar: < 60 s.
* **Voilà, first chart**: a Voilà server started with the same flags as ``make voila``
  (progressive rendering, so each output appears as its cell finishes); headless chromium
  (Debian's ``/usr/bin/chromium``, driven by playwright) opens the page, and we time from the
  request to the first Vega chart drawn with marks. Bar: < 15 s.
* **Voilà, whole page**: from the same request to the last cell's result (Voilà's execution
  messages on its websocket). Bar: < 15 s for 06 (issue 22); the others are reported.

Writes its section of docs/benchmarks.md.

    .venv/bin/python bench/notebook_times.py [--only 05] [--no-voila]    (run by `make bench`)
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import git_revision, machine, update_doc

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
BIN = Path(sys.executable).parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: the classroom flags of `make voila` (Makefile VOILA_FLAGS) that change what a page waits for
VOILA_FLAGS = ["--VoilaConfiguration.progressive_rendering=True"]
RUN_ALL_BAR_S, FIRST_CHART_BAR_S = 60.0, 15.0


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DPVIZ_QUICK", "DPVIZ_RECOMPUTE", "DPVIZ_SAVE_RESULTS")}
    env["DPVIZ_CACHE"] = str(cache)
    return env


def _cell_seconds(cell: dict) -> float:
    run = cell.get("metadata", {}).get("execution", {})
    if "iopub.execute_input" not in run or "shell.execute_reply" not in run:
        return 0.0
    parse = datetime.datetime.fromisoformat
    return (parse(run["shell.execute_reply"].replace("Z", "+00:00"))
            - parse(run["iopub.execute_input"].replace("Z", "+00:00"))).total_seconds()


def run_all(notebook: Path, work: Path) -> dict:
    """Wall time of Run All in a fresh kernel, full mode, empty cache; and the slowest cell."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=work))
    start = time.perf_counter()
    subprocess.run(
        [str(BIN / "jupyter"), "nbconvert", "--to", "notebook", "--execute",
         "--ExecutePreprocessor.timeout=1800", "--output-dir", str(work), str(notebook)],
        check=True, env=_env(cache), capture_output=True, cwd=notebook.parent,
    )
    seconds = time.perf_counter() - start
    cells = json.loads((work / notebook.name).read_text())["cells"]
    timed = [(_cell_seconds(c), i) for i, c in enumerate(cells) if c["cell_type"] == "code"]
    slowest, index = max(timed)
    return {"run_all_s": seconds, "slowest_cell_s": slowest, "slowest_cell": index}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _chart_drawn(page) -> bool:
    """Some Vega chart on the page has drawn marks (SVG mark groups with content, or a canvas)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.vega-embed')].some(e =>
               e.querySelector('canvas') ||
               [...e.querySelectorAll('g[class*="mark-"]')].some(g => g.childElementCount > 0))"""
    )


def voila_first_chart(notebook: Path, work: Path, browser) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=work))
    port = _free_port()
    server = subprocess.Popen(
        [str(BIN / "voila"), str(notebook), "--no-browser", "--Voila.ip=127.0.0.1",
         f"--port={port}", *VOILA_FLAGS],
        env=_env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=notebook.parent,
    )
    try:
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        deadline = time.time() + 60
        while True:  # the server takes a few seconds to listen; not counted
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)
        done: dict[str, float] = {}

        def on_websocket(socket_) -> None:
            if "/voila/execution/" not in socket_.url:
                return

            def on_frame(frame: str | bytes) -> None:
                try:
                    message = json.loads(frame)
                except ValueError:
                    return
                payload = message.get("payload") or {}
                if (message.get("action") == "execution_result"
                        and payload.get("cell_index", -2) + 1 == payload.get("total_cell")):
                    done["page"] = time.perf_counter() - start

            socket_.on("framereceived", on_frame)

        page.on("websocket", on_websocket)
        start = time.perf_counter()
        page.goto(f"http://127.0.0.1:{port}/", timeout=600_000, wait_until="commit")
        first = None
        while (first is None or "page" not in done) and time.perf_counter() - start < 600:
            page.wait_for_timeout(200)  # lets playwright deliver the websocket frames
            try:
                if first is None and _chart_drawn(page):
                    first = time.perf_counter() - start
            except Exception:  # the page is navigating / rendering
                continue
        page.close()
        return {"first_chart_s": first, "whole_page_s": done.get("page")}
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="notebook name prefix, e.g. 05")
    parser.add_argument("--no-voila", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="print, do not update the doc")
    args = parser.parse_args()
    notebooks = sorted(p for p in (ROOT / "notebooks").glob(f"{args.only}*.ipynb"))
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for nb in notebooks:
            rows[nb.name] = run_all(nb, work)
            print(nb.name, rows[nb.name], flush=True)
        if not args.no_voila:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update"])
                for nb in notebooks:
                    rows[nb.name].update(voila_first_chart(nb, work, browser))
                    print(nb.name, rows[nb.name], flush=True)
                browser.close()
    body = _table(rows)
    print(body)
    if not args.no_write and not args.only:
        update_doc(DOC, "notebook-times", body)


def _fmt(seconds: float | None, bar: float) -> str:
    if seconds is None:
        return "no chart"
    return f"{seconds:.1f} s" + ("" if seconds < bar else " **over the bar**")


def _seconds(row: dict) -> str:
    seconds = row.get("whole_page_s")
    return "not seen" if seconds is None else f"{seconds:.1f} s"


def _table(rows: dict) -> str:
    m = machine()
    lines = [
        "## Opening a notebook: Run All, Voilà's first chart and whole page (issues 13, 22)",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} at {git_revision()} on "
        f"{m['CPU']}, {m['cores']}, {m['RAM']}; reproduce with `make bench` (or "
        "`.venv/bin/python bench/notebook_times.py`).",
        "",
        "Each notebook from an empty result cache, reading the shipped results "
        "(`dpviz/results/`). Run All: `jupyter nbconvert --execute` in a fresh kernel, full mode "
        f"(bar < {RUN_ALL_BAR_S:.0f} s). Voilà: a server with `make voila`'s flags (progressive "
        "rendering), headless chromium, from the request to the first Vega chart drawn "
        f"(bar < {FIRST_CHART_BAR_S:.0f} s), and to the last cell's result (06's bar: < 15 s, "
        "issue 22).",
        "",
        "| notebook | Run All (full mode) | slowest cell | Voilà: first chart "
        "| Voilà: whole page |",
        "|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        lines.append(
            f"| {name} | {_fmt(r['run_all_s'], RUN_ALL_BAR_S)} | {r['slowest_cell_s']:.1f} s "
            f"(cell {r['slowest_cell']}) | {_fmt(r.get('first_chart_s'), FIRST_CHART_BAR_S)} | "
            f"{_fmt(r.get('whole_page_s'), 15.0) if name.startswith('06') else _seconds(r)} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
