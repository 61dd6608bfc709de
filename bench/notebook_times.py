"""Opening a notebook (section notebook-times): Run All, and Voilà's first chart and whole page;
and what a page costs the server (section cold-kernel, ``--cold``).

Each notebook in full mode from an empty result cache (shipped results read). Run All: ``jupyter
nbconvert --execute``, its wall time and slowest cell (execution timestamps). Voilà: a fresh server
started as ``make voila`` starts it (its command from ``make -n voila``), opened in headless
chromium (``/usr/bin/chromium`` driven by playwright), timed from the request to the first Vega
chart drawn with marks, and to the last cell's result (Voilà's execution messages on its
websocket), looked for every 50 ms. ``--peer``: ``--repeat`` loads of each notebook from
``make voila`` and as many from Voilà's own ``voila`` command with the same flags, taking turns
(medians, and their ratio): what :mod:`dpviz.ui.serve` saves. ``--no-run-all``: Voilà only.

``--cold``: each notebook in a fresh ipykernel started as Voilà starts one (nbclient, the
notebook's kernel spec, its folder as the working directory), every cell run in order; the kernel
process's CPU seconds (user + system, its waited-for children included, from /proc through
psutil) when it is ready, after each cell (once it is idle: work a cell leaves on the kernel's
loop counts) and its peak resident set (VmHWM). The kernels read dpviz's bytecode, as a server's
do (compiled first; PYTHONDONTWRITEBYTECODE is dropped for them). CPU time, not wall time: other
work on the machine changes it much less. Each notebook ``--repeat`` times (median reported);
``--cells N`` prints each notebook's N costliest cells, ``--json FILE`` saves every cell's CPU.
``--against REV``: the same with revision REV's dpviz and notebooks (``git archive``), kernels
of the two taking turns, so that both see the same load: before and after a change.

    python -m bench.notebook_times [--quick] [--only 05 | --only 04,05] [--no-voila]
    python -m bench.notebook_times --no-run-all --peer [--repeat 3] [--only 05]
    python -m bench.notebook_times --cold [--against REV] [--only 05] [--repeat 3] [--cells 8]
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, Run, cli, seconds, table
from bench.room import make_command

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


def voila_command(notebook: Path, *, plain: bool = False) -> list[str]:
    """`make voila`'s command for ``notebook``; ``plain``: Voilà's own ``voila`` with its flags
    (the peer that :mod:`dpviz.ui.serve` is measured against)."""
    command, _ = make_command("voila", f"NB={notebook}")
    if plain:
        command = [str(BIN / "voila"), *command[command.index("dpviz.ui.serve") + 1:]]
    return command


def voila(notebook: Path, work: Path, browser: object, *, plain: bool = False) -> dict:
    """Seconds from the page request to the first chart drawn and to the last cell's result."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = voila_command(notebook, plain=plain)
    server = subprocess.Popen([*command, f"--port={port}"], env=_env(work),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
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
            page.wait_for_timeout(50)  # lets playwright deliver the websocket frames
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


def _kernel_cpu(process: Any) -> float:
    """The kernel's CPU seconds so far: user + system, with its waited-for children's."""
    t = process.cpu_times()
    return t.user + t.system + t.children_user + t.children_system


def _kernel_memory_mb(pid: int) -> tuple[float, float]:
    """The kernel's resident set now and its peak (VmRSS, VmHWM), MiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = {k: int(re.search(rf"^{k}:\s*(\d+)", status, re.M).group(1)) / 1024
             for k in ("VmRSS", "VmHWM")}
    return found["VmRSS"], found["VmHWM"]


def _settled(process: Any, window: float = 0.15, limit: float = 30.0) -> float:
    """The kernel's CPU seconds once it has used none for ``window`` s (work it does on its loop
    after a cell's reply, e.g. deferred imports, is counted), at most ``limit`` s later."""
    start, last = time.perf_counter(), _kernel_cpu(process)
    while time.perf_counter() - start < limit:
        time.sleep(window)
        now = _kernel_cpu(process)
        if now - last < 0.005:
            return now
        last = now
    return last


def cold_kernel(notebook: Path, work: Path, root: Path = ROOT) -> dict:
    """Run All in a fresh kernel as Voilà does, with ``root``'s dpviz: CPU at ready, per cell,
    in all; peak RSS."""
    import nbformat
    import psutil
    from nbclient import NotebookClient

    nb = nbformat.read(notebook, as_version=4)
    env = {k: v for k, v in _env(work).items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPATH": str(root), "DPVIZ_DATA": env.get("DPVIZ_DATA", str(ROOT / "data"))}
    client = NotebookClient(nb, timeout=1800, kernel_name=nb.metadata.kernelspec.name,
                            resources={"metadata": {"path": str(notebook.parent)}})
    cells: list[dict] = []
    with client.setup_kernel(env=env):
        pid = client.km.provisioner.pid
        process = psutil.Process(pid)
        ready = before = _settled(process)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            client.execute_cell(cell, index)
            after = _settled(process)
            first = next((line for line in cell.source.splitlines()
                          if line.strip() and not line.startswith("#")), "")
            cells.append({"index": index, "cpu": after - before, "source": first[:60]})
            before = after
        rss, peak = _kernel_memory_mb(pid)
    return {"start": ready, "cells": cells, "cpu": before, "rss_mb": rss, "peak_mb": peak,
            "load": os.getloadavg()[0]}


def _checkouts(against: str, tmp: Path) -> dict[str, Path]:
    """This checkout, and revision ``against`` exported beside it (``git archive``)."""
    roots = {"now": ROOT}
    if against:
        before = tmp / "before"
        before.mkdir()
        archive = subprocess.run(["git", "archive", against], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        roots = {"before": before} | roots
    # a server's kernels read dpviz's bytecode (Python writes it on first import, unless
    # PYTHONDONTWRITEBYTECODE is set, as on some machines: compiling costs each kernel ~0.2 s)
    for root in roots.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "dpviz")],
                       check=True)
    return roots


def cold_main(args: Any, run: Run, notebooks: list[Path]) -> None:
    """The cold-kernel section: per notebook, the median of ``args.repeat`` fresh kernels (with
    ``--against REV``, as many with that revision's dpviz and notebooks, interleaved)."""
    rows: dict[str, dict[str, list[dict]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        roots = _checkouts(args.against, Path(tmp))
        for nb in notebooks:
            rows[nb.name] = {label: [] for label in roots}
            for i in range(args.repeat):  # alternate which goes first: drifting load is shared
                for label, root in (list if i % 2 == 0 else reversed)(list(roots.items())):
                    r = cold_kernel(root / "notebooks" / nb.name, Path(tmp), root)
                    rows[nb.name][label].append(r)
                    print(f"{nb.name} ({label}): start {r['start']:.2f} s, all {r['cpu']:.2f} s "
                          f"of CPU, peak {r['peak_mb']:.0f} MB, load {r['load']:.1f}", flush=True)
            for label, runs in rows[nb.name].items():
                for c in sorted(_median_run(runs)["cells"], key=lambda c: -c["cpu"])[:args.cells]:
                    print(f"    {label:6s} cell {c['index']:3d} {c['cpu']:6.2f} s  {c['source']}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    run.write("cold-kernel", _cold_table(rows, args.against))


def _median_run(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda r: r["cpu"])[len(runs) // 2]


def _cold_table(rows: dict[str, dict[str, list[dict]]], against: str) -> list[str]:
    def cpu(runs: list[dict]) -> str:
        start = statistics.median(r["start"] for r in runs)
        cells = statistics.median(r["cpu"] - r["start"] for r in runs)
        return f"**{statistics.median(r['cpu'] for r in runs):.2f} s** ({start:.2f} + {cells:.2f})"

    def peak(runs: list[dict]) -> str:
        return f"{statistics.median(r['peak_mb'] for r in runs):.0f} MB"

    def costliest(runs: list[dict]) -> str:
        top = sorted(_median_run(runs)["cells"], key=lambda c: -c["cpu"])[:2]
        return ", ".join(f"{c['cpu']:.2f} s (cell {c['index']})" for c in top)

    def load(runs: list[dict]) -> str:
        low, high = min(r["load"] for r in runs), max(r["load"] for r in runs)
        return f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f}"

    before = [f"before ({against}): CPU (start + cells)", "before: peak RSS"] if against else []
    return table(
        ["notebook", *before, "CPU (start + cells)", "peak RSS", "costliest cells",
         "1-min load"],
        [[name, *([cpu(r["before"]), peak(r["before"])] if against else []), cpu(r["now"]),
          peak(r["now"]), costliest(r["now"]), load([x for v in r.values() for x in v])]
         for name, r in rows.items()])


def main() -> None:
    args = cli(__doc__, only={"default": "", "help": "notebook name prefixes, e.g. 05 or 04,05"},
               no_voila={"action": "store_true", "help": "Run All only"},
               no_run_all={"action": "store_true", "help": "Voilà only"},
               cold={"action": "store_true", "help": "a fresh kernel's CPU seconds and memory"},
               repeat={"type": int, "default": 3,
                       "help": "kernels (--cold) or page loads (--peer) per notebook"},
               cells={"type": int, "default": 0, "help": "--cold: print the N costliest cells"},
               json={"default": "", "help": "--cold: save every cell's CPU seconds here"},
               against={"default": "", "help": "--cold: also a git revision, interleaved"},
               peer={"action": "store_true",
                     "help": "Voilà: --repeat loads each of make voila and plain voila"})
    args.print |= bool(args.only)
    run = Run(args)
    only = args.only or ("00" if args.quick else "")
    notebooks = sorted({nb for prefix in only.split(",")
                        for nb in (ROOT / "notebooks").glob(f"{prefix.strip()}*.ipynb")})
    if not notebooks:
        raise SystemExit(f"--only {only!r}: no notebook's name starts with it (e.g. 05 or 04,05)")
    if args.cold:
        return cold_main(args, run, notebooks)
    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for nb in notebooks:
            rows[nb.name] = ({"run_all": None, "slowest": None, "cell": "-"} if args.no_run_all
                             else run_all(nb, Path(tmp)))
            print(nb.name, rows[nb.name], flush=True)
        if not args.no_voila:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update"])
                for nb in notebooks:
                    rows[nb.name] |= voila_loads(nb, Path(tmp), browser, args)
                    print(nb.name, rows[nb.name], flush=True)
                browser.close()
    columns = ["notebook", "Run All (full mode)", "slowest cell", "Voilà: first chart",
               "Voilà: whole page"]
    if args.peer:
        columns += ["plain Voilà: first chart", "whole page", "first chart: ratio"]
    run.write("notebook-times", table(columns, [
        [name, seconds(r["run_all"]), f"{seconds(r['slowest'])} (cell {r['cell']})",
         *_voila_cells(r, args.peer)] for name, r in rows.items()]))


def voila_loads(notebook: Path, work: Path, browser: object, args: Any) -> dict:
    """One page load of ``make voila`` (``--peer``: ``--repeat`` of each, taking turns with
    plain Voilà's, medians); what :func:`voila` measures."""
    if not args.peer:
        return voila(notebook, work, browser)
    loads: dict[str, list[dict]] = {"make": [], "plain": []}
    for i in range(args.repeat):  # alternate which goes first: drifting load is shared
        for kind in (("make", "plain") if i % 2 == 0 else ("plain", "make")):
            loads[kind].append(voila(notebook, work, browser, plain=kind == "plain"))

    def median(kind: str, key: str) -> float | None:
        found = [load[key] for load in loads[kind] if load[key] is not None]
        return statistics.median(found) if found else None

    return {"first_chart": median("make", "first_chart"),
            "whole_page": median("make", "whole_page"),
            "plain_first_chart": median("plain", "first_chart"),
            "plain_whole_page": median("plain", "whole_page"),
            "first_charts": [load["first_chart"] for load in loads["make"]],
            "plain_first_charts": [load["first_chart"] for load in loads["plain"]]}


def _voila_cells(r: dict, peer: bool) -> list[str]:
    cells = [seconds(r.get("first_chart")), seconds(r.get("whole_page"))]
    if peer:
        ratio = (f"{r['first_chart'] / r['plain_first_chart']:.2f}"
                 if r.get("first_chart") and r.get("plain_first_chart") else "-")
        cells += [seconds(r.get("plain_first_chart")), seconds(r.get("plain_whole_page")), ratio]
    return cells

if __name__ == "__main__":
    main()
