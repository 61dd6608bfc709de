"""Every control of every notebook explorer moved across its full range (issues 13 and 15).

The explorers are found in the notebooks themselves: each code cell that calls
``explorer(callback, controls)`` is run (after the notebook's first code cell, its imports)
with ``explorer`` replaced by a recorder, so the benchmark sees exactly the callbacks and
the widgets (types, ranges, linked resets) a student gets. Then, each sweep in a fresh
interpreter with the on-disk result cache off (``DPVIZ_CACHE=off``, full mode), as a
freshly opened notebook:

1. the first view at the notebook's defaults (what running the cell costs);
2. **pass 1**: for each control, one interpreter moves it from the defaults to every value
   of its grid — both endpoints plus evenly spaced values (integer and log sliders: 6
   points; drop-downs and selection sliders: every option; multi-selections: none, one,
   all but one, all);
3. **pass 2**: the worst combination — every control at the value that was slowest in
   pass 1 (so, say, the largest depth with the most trees on the slowest data set) —
   reached one move at a time from the defaults, then, in one interpreter per control,
   each control moved across its grid again from there;
4. **pass 3**: the same, with every integer slider at the top of its range instead (when
   that differs from pass 2): once a depth move only reads shipped curves, pass 1 no longer
   finds the depth at which an ε move is slowest.

A move is timed as the user waits for it: from setting the widget's value (its observers
run, e.g. a data-set pick resetting the depth) through the callback to the chart's
Vega-Lite JSON (``json.dumps(chart.to_dict())``), what the front end receives.
Each move is the first at its setting (caching is part of what is measured). A sweep with
a move over ``SLOW`` (0.5 s) is run again, the same moves in the same order in fresh
interpreters, ``REPEATS`` times in all (``--repeats``, default 3), and each of its moves is
reported as the median of its runs: single numbers are noisy when other work shares the
machine.

    .venv/bin/python bench/slider_extremes.py                 (``make bench`` runs it)
    .venv/bin/python bench/slider_extremes.py --only 05 --no-write
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import git_revision, machine, update_doc

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = Path(os.environ.get("SLIDER_NOTEBOOKS", ROOT / "notebooks"))  # see --notebooks
DOC = ROOT / "docs" / "benchmarks.md"
BAR = 1.0  # seconds: every slider move (issue 15)
POINTS = 6  # grid points of a numeric slider, both endpoints included
SWITCHES = (("07", "dataset"),)  # (notebook, control): reads a shipped grid (else computes it)
SLOW = 0.5  # seconds: a sweep with a move this slow is run REPEATS times, medians reported
REPEATS = int(os.environ.get("SLIDER_REPEATS", "3"))  # see --repeats


# ------------------------------------------------------------------------------ the explorers
def explorer_cells() -> list[tuple[str, int, str, str]]:
    """(notebook stem, index, first code cell, explorer cell) of every explorer, in order."""
    found = []
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        sources = ["".join(c["source"]) for c in cells]
        explorers = [s for s in sources[1:] if "explorer(" in s and "def " not in s]
        found += [(path.stem, i, sources[0], s) for i, s in enumerate(explorers)]
    return found


def build(setup: str, cell: str) -> tuple[Any, dict[str, Any]]:
    """Run a notebook's imports and one explorer cell; return its (callback, controls)."""
    namespace: dict[str, Any] = {"__name__": "__bench__"}
    exec(compile(setup, "<setup>", "exec"), namespace)
    recorded: list[tuple[Any, dict]] = []
    namespace["explorer"] = lambda callback, controls, **_: recorded.append((callback, controls))
    exec(compile(cell, "<explorer>", "exec"), namespace)
    return recorded[0]


def _values(widget: Any) -> list[Any]:
    """The values a selection widget offers (options may be labels or (label, value) pairs)."""
    return [o[1] if isinstance(o, tuple) and len(o) == 2 else o for o in widget.options]


def grid(widget: Any) -> list[Any]:
    """The values a control is moved to: both ends of its range and points in between."""
    kind = type(widget).__name__
    if kind == "IntSlider":
        span = widget.max - widget.min
        return sorted({widget.min + round(k * span / (POINTS - 1)) for k in range(POINTS)})
    if kind == "FloatLogSlider":
        steps = round((widget.max - widget.min) / widget.step)
        ks = sorted({round(k * steps / (POINTS - 1)) for k in range(POINTS)})
        return [float(widget.base ** min(widget.min + k * widget.step, widget.max)) for k in ks]
    if kind == "SelectMultiple":
        options = _values(widget)
        return [(), tuple(options[:1]), tuple(options[:-1]), tuple(options)]
    return _values(widget)


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _setting(controls: dict[str, Any]) -> str:
    def show(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3g}"
        if isinstance(v, tuple):
            return f"{len(v)} selected"
        return str(v)

    return ", ".join(f"{name}={show(w.value)}" for name, w in controls.items())


# ------------------------------------------------------------------------------ the worker
def redraw(callback: Any, controls: dict[str, Any], name: str | None = None,
           value: Any = None) -> float:
    """Seconds from setting ``controls[name]`` to ``value`` (or none) to the chart's JSON."""
    start = time.perf_counter()
    if name is not None:
        widget = controls[name]
        widget.value = tuple(value) if isinstance(value, list) else value
    chart = callback(**{n: w.value for n, w in controls.items()})
    json.dumps(chart.to_dict())
    return time.perf_counter() - start


def worker(notebook: str, index: int, plan: dict[str, Any]) -> dict[str, Any]:
    """In this (fresh) interpreter: the first view, then ``plan``'s preset and sweep moves."""
    cells = [c for c in explorer_cells() if c[0] == notebook and c[1] == index]
    callback, controls = build(cells[0][2], cells[0][3])
    first = redraw(callback, controls)
    moves = []

    def move(name: str, value: Any, phase: str) -> None:
        if _jsonable(controls[name].value) == _jsonable(value):
            return
        seconds = redraw(callback, controls, name, value)
        moves.append({"control": name, "kind": type(controls[name]).__name__,
                      "value": _jsonable(controls[name].value), "phase": phase,
                      "setting": _setting(controls), "seconds": seconds})

    for name, value in plan.get("preset", []):
        move(name, value, "to worst")
    for name in plan.get("sweep", []):
        for value in grid(controls[name]):
            move(name, value, plan.get("phase", "sweep"))
    return {"callback": getattr(callback, "__name__", str(callback)), "first": first,
            "load": os.getloadavg()[0],
            "defaults": _setting(controls), "moves": moves,
            "grids": {n: [_jsonable(v) for v in grid(w)] for n, w in controls.items()},
            "kinds": {n: type(w).__name__ for n, w in controls.items()}}


def run_worker(notebook: str, index: int, plan: dict[str, Any]) -> dict[str, Any]:
    """:func:`worker` in a fresh interpreter (cache off, full mode), its JSON result."""
    env = {**os.environ, "DPVIZ_CACHE": "off"}
    env.pop("DPVIZ_QUICK", None)
    env.setdefault("DPVIZ_DATA", str(ROOT / "data"))
    out = subprocess.run(
        [sys.executable, __file__, "--worker", notebook, str(index), json.dumps(plan)],
        env=env, check=True, capture_output=True, text=True, cwd=ROOT,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


# ------------------------------------------------------------------------------ the passes
def _remeasured(notebook: str, index: int, plan: dict[str, Any],
                first: dict[str, Any]) -> dict[str, Any]:
    """``first`` (a worker's result) with every time replaced by the median of REPEATS runs.

    Only a plan with a move over :data:`SLOW` seconds is run again (the same moves in the
    same order, each run in a fresh interpreter); the samples are kept in ``samples``.
    """
    if max((m["seconds"] for m in first["moves"]), default=first["first"]) < SLOW or REPEATS < 2:
        return first
    runs = [first] + [run_worker(notebook, index, plan) for _ in range(REPEATS - 1)]
    out = dict(first)
    out["first"] = float(np.median([r["first"] for r in runs]))
    out["moves"] = []
    for k, move in enumerate(first["moves"]):
        samples = [r["moves"][k]["seconds"] for r in runs if len(r["moves"]) > k]
        out["moves"].append(move | {"seconds": float(np.median(samples)), "samples": samples})
    out["load"] = max(r["load"] for r in runs)
    return out


def measure_explorer(notebook: str, index: int) -> dict[str, Any]:
    """Pass 1 and pass 2 of one explorer: every move, the first views, the worst setting."""
    probe = run_worker(notebook, index, {})
    names = list(probe["grids"])
    results = [probe]
    for name in names:  # pass 1: each control from the defaults
        plan = {"sweep": [name], "phase": "from defaults"}
        results.append(_remeasured(notebook, index, plan, run_worker(notebook, index, plan)))
        print(f"  {notebook}[{index}] {name}: pass 1 done", flush=True)
    worst: dict[str, Any] = {}
    for name in names:
        timed = [m for r in results for m in r["moves"] if m["control"] == name]
        if timed:
            worst[name] = max(timed, key=lambda m: m["seconds"])["value"]
    # drop-downs first: a data-set pick may reset the sliders
    order = sorted(worst, key=lambda n: probe["kinds"][n] not in ("Dropdown",))
    preset = [[n, worst[n]] for n in order]
    for name in names:  # pass 2: each control from the worst combination
        plan = {"preset": preset, "sweep": [name], "phase": "from worst"}
        results.append(_remeasured(notebook, index, plan, run_worker(notebook, index, plan)))
        print(f"  {notebook}[{index}] {name}: pass 2 done", flush=True)
    # pass 3: every integer slider at the top of its range (the most trees, the deepest
    # trees: a move of another control there may cost more than at pass 1's slowest value)
    top = [[n, probe["grids"][n][-1]] if probe["kinds"][n] == "IntSlider" else [n, v]
           for n, v in preset]
    if top != preset:
        for name in names:
            plan = {"preset": top, "sweep": [name], "phase": "from the top"}
            results.append(_remeasured(notebook, index, plan, run_worker(notebook, index, plan)))
            print(f"  {notebook}[{index}] {name}: pass 3 done", flush=True)
    moves = [m for r in results for m in r["moves"]]
    return {"notebook": notebook, "index": index, "callback": probe["callback"],
            "first": max(r["first"] for r in results), "defaults": probe["defaults"],
            "worst": {n: worst[n] for n in order}, "moves": moves, "kinds": probe["kinds"],
            "load": [r["load"] for r in results],
            "grids": probe["grids"]}


def _fmt(move: dict[str, Any] | None) -> str:
    if move is None:
        return "—"
    return (f"**{move['seconds']:.2f} s**: {move['control']} → {_short(move['value'])} "
            f"({move['setting']})")


def rows(results: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Per-notebook rows (slowest slider move, slowest other move) and per-explorer rows."""
    by_notebook: dict[str, list[dict]] = {}
    for r in results:
        by_notebook.setdefault(r["notebook"], []).append(r)
    notebook_rows = []
    for notebook, explorers in by_notebook.items():
        moves = [m | {"callback": e["callback"]} for e in explorers for m in e["moves"]]
        sliders = [m for m in moves if "Slider" in m["kind"]]
        switch_names = {c for n, c in SWITCHES if notebook.startswith(n)}
        others = [m for m in moves if "Slider" not in m["kind"]
                  and m["control"] not in switch_names]
        switches = [m for m in moves if m["control"] in switch_names]
        slow = max(sliders, key=lambda m: m["seconds"], default=None)
        other = max(others, key=lambda m: m["seconds"], default=None)
        switch = max(switches, key=lambda m: m["seconds"], default=None)
        worst = max((m["seconds"] for m in sliders), default=0.0)
        notebook_rows.append(
            f"| {notebook} | {len(moves)} | {max(e['first'] for e in explorers):.2f} s "
            f"| {_fmt(slow)} | {'met' if worst < BAR else '**not met**'} | {_fmt(other)} "
            f"| {_fmt(switch)} |"
        )
    explorer_rows = [
        f"| {r['notebook']} | `{r['callback']}` | "
        + "; ".join(f"{n} {_range(r['kinds'][n], r['grids'][n])}" for n in r["grids"])
        + f" | {', '.join(f'{n}={_short(v)}' for n, v in r['worst'].items())} |"
        for r in results
    ]
    return notebook_rows, explorer_rows


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list):
        return f"{len(value)} selected"
    return str(value)


def _range(kind: str, values: list[Any]) -> str:
    if "Slider" in kind and kind != "SelectionSlider":
        return f"{_short(values[0])}–{_short(values[-1])} ({len(values)} points)"
    return f"({len(values)} options)"


def write(results: list[dict[str, Any]], seconds: float | None) -> str:
    notebook_rows, explorer_rows = rows(results)
    m = machine()
    loads = sorted(x for r in results for x in r.get("load", []))
    measured = {r["notebook"] for r in results}
    missing = sorted({c[0] for c in explorer_cells()} - measured)
    load = (f" The 1-minute load average at the end of the workers: median "
            f"{loads[len(loads) // 2]:.1f}, highest {loads[-1]:.1f} (2 cores: above 2, other "
            "work competed and the times are inflated accordingly)." if loads else "")
    body = "\n".join([
        "## Every control over its full range (issues 13 and 15)",
        "",
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {m.get('CPU', '?')}, "
        f"{m.get('cores', '?')}, {m.get('RAM', '?')}, {m.get('OS', '?')}; {git_revision()}"
        + (f"; {seconds / 60:.0f} minutes in all" if seconds is not None else "")
        + ". Reproduce with `make bench` (or "
        "`.venv/bin/python bench/slider_extremes.py`; `--only 05` for one notebook).",
        "",
        "Every explorer cell of every notebook is run with its own widgets, in fresh "
        "interpreters with the on-disk cache off (full mode). Each control is moved from the "
        "defaults to both ends of its range and points in between (pass 1); then every control "
        "is set to its slowest value of pass 1 (the worst combination, reached one move at a "
        "time) and each control is moved across its range again from there (pass 2); pass 3 "
        "does the same with every integer slider at the top of its range. A move is "
        "timed from setting the widget (its observers included) to the chart's Vega-Lite JSON. "
        "Each move is the first at its setting (cold); a sweep with a move over 0.5 s is run "
        f"{REPEATS} times in fresh interpreters (the same moves in the same order) and its "
        "moves are reported as medians, since other work may share the 2 cores. Bar: every "
        "slider move < 1 s. A data-set switch in 07 reads that data set's shipped grid "
        "(computed, with a progress bar, only if none is shipped); it is shown in its own "
        "column." + load,
        "",
        *([f"Not measured in this run: {', '.join(missing)}.", ""] if missing else []),
        "| notebook | moves | slowest first view | slowest slider move (setting) | < 1 s "
        "| slowest drop-down / selection move | data-set switch (reads a shipped grid) |",
        "|---|---|---|---|---|---|---|",
        *notebook_rows,
        "",
        "The explorers, their ranges as measured, and the worst combination of pass 2:",
        "",
        "| notebook | callback | controls (range, points moved to) | worst combination |",
        "|---|---|---|---|",
        *explorer_rows,
    ])
    return body


def main() -> None:
    global NOTEBOOKS, REPEATS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="notebooks whose name starts with this (e.g. 05)")
    parser.add_argument("--no-write", action="store_true", help="print, do not write the doc")
    parser.add_argument("--json", type=Path, help="also save every move as JSON here")
    parser.add_argument("--notebooks", type=Path,
                        help="read the explorer cells from the notebooks in this folder "
                        "(e.g. copies with proposed cells) instead of notebooks/")
    parser.add_argument("--from-json", type=Path, nargs="+",
                        help="write the section from results saved by --json (no measuring)")
    parser.add_argument("--repeats", type=int, default=REPEATS,
                        help="runs of a sweep with a move over 0.5 s (median reported)")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        notebook, index, plan = args.worker
        print(json.dumps(worker(notebook, int(index), json.loads(plan))))
        return
    REPEATS = max(1, args.repeats)
    if args.notebooks:
        NOTEBOOKS = args.notebooks.resolve()
        os.environ["SLIDER_NOTEBOOKS"] = str(NOTEBOOKS)
    start = time.perf_counter()
    results = []
    if args.from_json:
        results = [r for path in args.from_json for r in json.loads(path.read_text())]
        body = write(results, None)
        if not args.no_write:
            update_doc(DOC, "slider-extremes", body)
        print(body)
        return
    for notebook, index, _, _ in explorer_cells():
        if args.only and not notebook.startswith(args.only):
            continue
        print(f"{notebook}[{index}]", flush=True)
        results.append(measure_explorer(notebook, index))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    body = write(results, time.perf_counter() - start)
    if not args.no_write and not args.only:
        update_doc(DOC, "slider-extremes", body)
    print(body)


if __name__ == "__main__":
    main()
