"""Every control of every notebook explorer over its full range (section slider-extremes).

Each ``explorer(callback, controls)`` cell of the notebooks runs after its notebook's first code
cell, through the real :func:`dpviz.ui.widgets.explorer` with the callback counted: the students'
callbacks, widgets and observers. Each sweep runs in a fresh interpreter, result cache off, full
mode. Pass 1 moves each control from the defaults over its grid (both ends and points between;
every option of a selection); pass 2 moves each again from the worst combination (every control
at its slowest value of pass 1); pass 3 from every integer slider (or slider over stops) at its
top. A move is timed from setting the widget (every observer runs, the explorer's redraws
included) to the chart's mime bundle (what a kernel sends: Vega-Lite JSON through the notebooks'
renderer), and the callback runs it caused are counted; a sweep with a move over 0.5 s runs
``--repeats`` times (medians reported). Per notebook: the 95th percentile and the slowest move.

    python -m bench.slider_extremes [--quick] [--only 05] [--json FILE] [--repeats 3]
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, Run, cli, in_fresh_process, table

NOTEBOOKS = ROOT / "notebooks"
SWITCHES = {"07": "dataset"}  # (notebook: control) reading a shipped grid: its own column
SLOW = 0.5  # seconds: a sweep with a slower move is repeated
TOPPED = ("IntSlider", "SelectionSlider")  # sliders set to their top for pass 3
#: Packages whose modules a sweep imports before its moves if the notebook's Run All loads them.
HEAVY = ("dpviz", "sklearn", "scipy", "numba", "llvmlite", "joblib", "threadpoolctl", "interpret")


def explorer_cells(folder: Path) -> list[tuple[str, int, str, str]]:
    """(notebook stem, index, first code cell, explorer cell) of every explorer, in order."""
    found = []
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                   if c["cell_type"] == "code"]
        cells = [s for s in sources[1:] if "explorer(" in s and "def " not in s]
        found += [(path.stem, i, sources[0], s) for i, s in enumerate(cells)]
    return found


def grid(widget: Any, points: int) -> list[Any]:
    """The values a control is moved to: both ends of its range and points in between."""
    kind = type(widget).__name__
    options = [o[1] if isinstance(o, tuple) and len(o) == 2 else o
               for o in getattr(widget, "options", ())]
    if kind == "IntSlider":
        span = widget.max - widget.min
        return sorted({widget.min + round(k * span / (points - 1)) for k in range(points)})
    if kind == "FloatLogSlider":
        steps = round((widget.max - widget.min) / widget.step)
        ks = sorted({round(k * steps / (points - 1)) for k in range(points)})
        return [float(widget.base ** min(widget.min + k * widget.step, widget.max)) for k in ks]
    if kind == "SelectMultiple":
        return [[], options[:1], options[:-1], options]
    return options


def show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return f"{len(value)} selected" if isinstance(value, list | tuple) else str(value)


def plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def loaded_after_run_all(folder: Path, notebook: str) -> list[str]:
    """The heavy modules loaded once every code cell of ``notebook`` has run (Run All)."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    for cell in json.loads((folder / f"{notebook}.ipynb").read_text())["cells"]:
        if cell["cell_type"] == "code":
            shell.run_cell("".join(cell["source"]), silent=True)
    return sorted(m for m in list(sys.modules) if m.split(".")[0] in HEAVY)


def worker(job: dict) -> dict | list[str]:
    """In this fresh interpreter: one explorer's first view, then its plan's moves."""
    if job.get("run_all"):
        os.chdir(job["folder"])  # where the notebook runs
        return loaded_after_run_all(Path(job["folder"]), job["notebook"])
    _, _, setup, cell = next(c for c in explorer_cells(Path(job["folder"]))
                             if list(c[:2]) == [job["notebook"], job["index"]])
    from IPython.core.interactiveshell import InteractiveShell

    from dpviz.ui import widgets

    shell = InteractiveShell.instance()  # formats the charts as a kernel does (made untimed)
    widgets.display = shell.display_formatter.format  # a redraw: the chart's mime bundle
    namespace: dict[str, Any] = {"__name__": "__bench__"}
    exec(compile(setup, "<setup>", "exec"), namespace)
    recorded: list = []
    namespace["explorer"] = lambda callback, controls, **kw: recorded.append(
        (callback, controls, kw))
    exec(compile(cell, "<explorer>", "exec"), namespace)
    callback, controls, options = recorded[0]
    calls: list[dict] = []

    def counted(**values: Any) -> Any:
        calls.append(values)
        return callback(**values)

    def timed_move(name: str, value: Any) -> tuple[float, float, int]:
        before, start, cpu = len(calls), time.perf_counter(), time.process_time()
        controls[name].value = tuple(value) if isinstance(value, list) else value
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        if panel.children[1].value == widgets.FAILED:
            raise RuntimeError(f"the callback failed at {name}={value!r}")
        return seconds, cpu, len(calls) - before

    start = time.perf_counter()
    panel = widgets.explorer(counted, controls, **options)
    first, moves, plan = time.perf_counter() - start, [], job["plan"]
    for module in job.get("warm", []):  # as once the page has run: untimed, caches still cold
        with contextlib.suppress(Exception):
            importlib.import_module(module)
    steps = [(n, v, "to worst") for n, v in plan.get("preset", [])] + [
        (n, v, plan.get("phase")) for n in plan.get("sweep", [])
        for v in grid(controls[n], job["points"])]
    for name, value, phase in steps:
        if plain(controls[name].value) != plain(value):  # the move happens in timed_move
            seconds, cpu, runs = timed_move(name, value)
            moves.append({"control": name, "kind": type(controls[name]).__name__,
                          "seconds": seconds, "cpu": cpu, "callbacks": runs,
                          "value": plain(controls[name].value), "phase": phase,
                          "setting": ", ".join(f"{n}={show(w.value)}"
                                               for n, w in controls.items())})
    return {"callback": getattr(callback, "__name__", str(callback)), "first": first,
            "load": os.getloadavg()[0], "moves": moves,
            "grids": {n: [plain(v) for v in grid(w, job["points"])] for n, w in controls.items()},
            "kinds": {n: type(w).__name__ for n, w in controls.items()}}


def measure_explorer(job: dict, repeats: int) -> dict:
    """Passes 1 to 3 of one explorer (``job``: folder, notebook, index, points)."""
    def sweep(plan: dict) -> dict:
        """One plan in a fresh interpreter; a slow one ``repeats`` times, medians of its times."""
        print(f"  {job['notebook']}[{job['index']}] {plan.get('phase', 'first view')} "
              f"{plan.get('sweep', '')}", flush=True)
        runs = [in_fresh_process("slider_extremes", job | {"plan": plan},
                                 env={"DPVIZ_CACHE": "off", "DPVIZ_QUICK": None})]
        if max((m["seconds"] for m in runs[0]["moves"]), default=runs[0]["first"]) >= SLOW:
            runs += [in_fresh_process("slider_extremes", job | {"plan": plan},
                                      env={"DPVIZ_CACHE": "off", "DPVIZ_QUICK": None})
                     for _ in range(repeats - 1)]
        return runs[0] | {"first": statistics.median(r["first"] for r in runs),
                          "load": max(r["load"] for r in runs),
                          "moves": [m | {t: statistics.median(
                              r["moves"][k][t] for r in runs if len(r["moves"]) > k)
                              for t in ("seconds", "cpu")}
                              for k, m in enumerate(runs[0]["moves"])]}

    probe = sweep({})
    names, kinds = list(probe["grids"]), probe["kinds"]
    results = [probe] + [sweep({"sweep": [n], "phase": "from defaults"}) for n in names]
    worst = {n: max(ms, key=lambda m: m["seconds"])["value"] for n in names
             if (ms := [m for r in results for m in r["moves"] if m["control"] == n])}
    preset = [[n, worst[n]] for n in sorted(worst, key=lambda n: kinds[n] != "Dropdown")]
    results += [sweep({"preset": preset, "sweep": [n], "phase": "from worst"}) for n in names]
    top = [[n, probe["grids"][n][-1] if kinds[n] in TOPPED else v] for n, v in preset]
    if top != preset:
        results += [sweep({"preset": top, "sweep": [n], "phase": "from the top"}) for n in names]
    return {"notebook": job["notebook"], "callback": probe["callback"], "kinds": kinds,
            "first": max(r["first"] for r in results), "worst": dict(preset),
            "moves": [m for r in results for m in r["moves"]],
            "load": [r["load"] for r in results], "grids": probe["grids"],
            "points": job["points"], "repeats": repeats}


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile of ``values`` (linear between order statistics, numpy's default)."""
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    low = int(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def render(results: list[dict], missing: list[str]) -> list[str]:
    def slowest(moves: list[dict]) -> str:
        m = max(moves, key=lambda m: m["seconds"], default=None)
        return "—" if m is None else (f"**{m['seconds']:.2f} s**: {m['control']} → "
                                      f"{show(m['value'])} ({m['setting']})")

    def runs(moves: list[dict]) -> str:
        most = max(m["callbacks"] for m in moves)
        over = sorted({m["control"] for m in moves if m["callbacks"] > 1})
        return f"{most}" + (f" ({', '.join(over)})" if over else "")

    notebooks: dict[str, list[dict]] = {}
    for r in results:
        notebooks.setdefault(r["notebook"], []).append(r)
    rows = []
    for notebook, explorers in notebooks.items():
        moves = [m for e in explorers for m in e["moves"]]
        switch = SWITCHES.get(notebook[:2])
        seconds = [m["seconds"] for m in moves]
        rows.append([notebook, len(moves), f"{max(e['first'] for e in explorers):.2f} s",
                     f"{percentile(seconds, 95):.2f} s", f"{max(seconds):.2f} s", runs(moves),
                     slowest([m for m in moves if "Slider" in m["kind"]]),
                     slowest([m for m in moves if "Slider" not in m["kind"]
                              and m["control"] != switch]),
                     slowest([m for m in moves if m["control"] == switch])])
    ranges = [[r["notebook"], f"`{r['callback']}`", "; ".join(
        f"{n} {show(v[0])}–{show(v[-1])} ({len(v)} points)"
        if "Slider" in r["kinds"][n] and r["kinds"][n] != "SelectionSlider"
        else f"{n} ({len(v)} options)" for n, v in r["grids"].items()),
        ", ".join(f"{n}={show(v)}" for n, v in r["worst"].items())] for r in results]
    loads = [x for r in results for x in r["load"]]
    return [
        f"{results[0]['points']} points per numeric slider; a sweep with a move over {SLOW} s "
        f"run {results[0]['repeats']} times. 1-minute load average at the end of each worker: "
        f"median {statistics.median(loads):.1f}, highest {max(loads):.1f}.", "",
        *([f"Not measured in this run: {', '.join(missing)}.", ""] if missing else []),
        *table(["notebook", "moves", "slowest first view", "p95 move", "slowest move",
                "callbacks per move (most; controls with more than 1)",
                "slowest slider move (setting)", "slowest drop-down / selection move",
                "data-set switch (reads a shipped grid)"], rows, "lrrrrllll"), "",
        "The explorers, their ranges as measured, and the worst combination of pass 2:", "",
        *table(["notebook", "callback", "controls (range, points moved to)",
                "worst combination"], ranges, "llll")]


def main() -> None:
    args = cli(__doc__, worker, only={"help": "notebooks whose name starts with this, e.g. 05"},
               json={"type": Path, "help": "also save every move as JSON here"},
               repeats={"type": int, "default": 3, "help": "runs of a sweep with a slow move"})
    points, repeats = (2, 1) if args.quick else (6, max(args.repeats, 1))
    args.print |= bool(args.only)
    only = args.only or ("01" if args.quick else "")
    run, cells = Run(args), explorer_cells(NOTEBOOKS)
    chosen = sorted({nb for nb, _, _, _ in cells if nb.startswith(only)})
    warm = {nb: in_fresh_process("slider_extremes", {"folder": str(NOTEBOOKS), "notebook": nb,
                                                     "run_all": True},
                                 env={"DPVIZ_CACHE": "off", "DPVIZ_QUICK": None})
            for nb in chosen}
    results = [measure_explorer({"folder": str(NOTEBOOKS), "notebook": nb, "index": i,
                                 "points": points, "warm": warm[nb]}, repeats)
               for nb, i, _, _ in cells if nb in chosen]
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    missing = sorted({c[0] for c in cells} - {r["notebook"] for r in results})
    run.write("slider-extremes", render(results, missing))

if __name__ == "__main__":
    main()
