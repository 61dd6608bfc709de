"""Explorer latency (issue 7): the time from a slider move to new chart data, per notebook.

For each notebook's main explorer, at its defaults: one untimed first view (which fills the
in-process caches, as opening the notebook does), then the ε slider moved to five new
values; each update is timed from the callback call to the chart's Vega-Lite JSON
(``chart.to_dict()``: refit, evaluate and new chart data). Reports the median. Also times the
whole notebook suite under nbval (quick mode, as ``make notebooks`` runs it).

    .venv/bin/python bench/bench_explorers.py            (also run by `make bench`)
    .venv/bin/python bench/bench_explorers.py --no-nbval
    .venv/bin/python bench/bench_explorers.py --no-nbval --baseline DIR --label TEXT

With ``--baseline DIR`` (another checkout of dpviz, e.g. ``git worktree add /tmp/base <commit>``)
the explorers are timed for both versions in the same run, each explorer in its own fresh
interpreter (as each notebook has its own kernel) with the
on-disk result cache off, in four rounds that alternate which version runs first, and
reported side by side as ratios.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import machine, update_doc

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
MOVES = (0.5, 2.0, 0.3, 3.0, 0.7)  # the ε values the slider visits (relative to the default)


def explorers() -> list[tuple[str, object, dict]]:
    """(notebook, callback, default keyword arguments) as the notebooks build them."""
    from dpviz.explore import audit as au
    from dpviz.explore import building_blocks as bb
    from dpviz.explore import compare as cmp
    from dpviz.explore import fi, fs, jpw
    from dpviz.explore import rdt_sharp as rs

    def values(controls: dict) -> dict:
        return {name: w.value for name, w in controls.items()}

    return [
        ("01_building_blocks (noise)", bb.noise_chart,
         {"epsilon": 1.0, "mechanism": bb.COUNT_MECHANISMS[0]}),
        ("02_private_random_trees", jpw.jpw_explorer_chart, values(jpw.jpw_controls())),
        ("03_private_id3", fs.fs_explorer_chart,
         values(fs.fs_controls(epsilon=0.1, criterion="max"))),
        ("04_semi_supervised_rdt_sharp", rs.rdt_sharp_explorer_chart,
         {"dataset": "mushroom", "epsilon": 0.5, "percent": 2, "n_secondary": 20}),
        ("05_dp_random_forest", fi.fi_explorer_chart,
         {"dataset": "SynthA", "epsilon": 1.0, "depth": 0, "n_trees": 100, "mechanism": "rosnam"}),
        ("06_privacy_audit", au.audit_explorer_chart,
         {"mechanism": au.SETUPS[0], "epsilon": 1.0, "n_samples": 20_000}),
        ("07_compare_all", cmp.compare_explorer_chart,
         values(cmp.compare_controls("nursery", epsilon=1.0, n=1000))),
    ]


def time_explorer(callback, defaults: dict) -> tuple[float, float]:
    """(first view, median update) in milliseconds."""
    start = time.perf_counter()
    callback(**defaults).to_dict()
    first = time.perf_counter() - start
    times = []
    for factor in MOVES:
        kwargs = {**defaults, "epsilon": defaults["epsilon"] * factor}
        start = time.perf_counter()
        callback(**kwargs).to_dict()
        times.append(time.perf_counter() - start)
    return 1000 * first, 1000 * statistics.median(times)


ROUNDS = 4  # alternating rounds of the two versions with --baseline
NOTEBOOKS = (
    "01_building_blocks (noise)", "02_private_random_trees", "03_private_id3",
    "04_semi_supervised_rdt_sharp", "05_dp_random_forest", "06_privacy_audit", "07_compare_all",
)


def measure(only: str | None = None) -> dict[str, list[float]]:
    """{notebook: [first view ms, median update ms]} of the dpviz on the import path."""
    return {name: list(time_explorer(callback, defaults))
            for name, callback, defaults in explorers() if only in (None, name)}


def measure_in(path: str | None) -> dict[str, list[float]]:
    """:func:`measure` with each explorer in its own fresh interpreter (as each notebook has
    its own kernel), importing dpviz from ``path`` (None: this checkout)."""
    env = {**os.environ, "DPVIZ_CACHE": "off"}
    env.setdefault("DPVIZ_DATA", str(ROOT / "data"))
    if path is not None:
        env["PYTHONPATH"] = str(path)
    out: dict[str, list[float]] = {}
    for name in NOTEBOOKS:
        run = subprocess.run([sys.executable, __file__, "--json", "--only", name], env=env,
                             check=True, capture_output=True, text=True).stdout
        out.update(json.loads(run.strip().splitlines()[-1]))
    return out


def baseline_rows(path: str, label: str) -> list[str]:
    """Table rows timing this version against the checkout at ``path`` (alternating runs)."""
    mine, theirs = [], []
    for i in range(ROUNDS):  # alternate which version goes first: slow spells hit both alike
        if i % 2:
            theirs.append(measure_in(path))
            mine.append(measure_in(None))
        else:
            mine.append(measure_in(None))
            theirs.append(measure_in(path))
    rows = [f"| notebook | {label}: first | this: first | {label}: update | this: update "
            "| update ratio |", "|---|---|---|---|---|---|"]
    for name in mine[0]:
        a = [statistics.median(t[name][i] for t in theirs) for i in (0, 1)]
        b = [statistics.median(m[name][i] for m in mine) for i in (0, 1)]
        rows.append(f"| {name} | {a[0]:.0f} ms | {b[0]:.0f} ms | {a[1]:.0f} ms | {b[1]:.0f} ms "
                    f"| {b[1] / a[1]:.2f} |")
        print(rows[-1], flush=True)
    return rows


def nbval_seconds() -> float:
    notebooks = sorted(str(p) for p in (ROOT / "notebooks").glob("*.ipynb"))
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--nbval-lax", "--nbval-current-env",
         "--nbval-sanitize-with", "notebooks/nbval_sanitize.cfg", "-p", "no:cacheprovider",
         *notebooks],
        cwd=ROOT, env={**os.environ, "DPVIZ_QUICK": "1", "DPVIZ_CACHE": "off"}, check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-nbval", action="store_true", help="skip timing the notebooks")
    parser.add_argument("--json", action="store_true", help="measure and print JSON (worker)")
    parser.add_argument("--only", help="with --json: time only this notebook's explorer")
    parser.add_argument("--baseline", help="another dpviz checkout to time in the same run")
    parser.add_argument("--label", default="baseline", help="the baseline's name in the table")
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.only)))
        return
    rows = []
    for name, callback, defaults in explorers():
        first, update = time_explorer(callback, defaults)
        verdict = "met" if update < 250 else "**not met**"
        rows.append(f"| {name} | {first:.0f} ms | {update:.0f} ms | {verdict} |")
        print(rows[-1], flush=True)
    nbval = None if args.no_nbval else nbval_seconds()
    m = machine()
    body = "\n".join([
        "## Notebook explorers and the notebook suite (issue 7)",
        "",
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {m.get('CPU', '?')}, "
        f"{m.get('cores', '?')}; "
        "reproduce with `make bench` (or `.venv/bin/python bench/bench_explorers.py`).",
        "",
        "Each explorer at its notebook's defaults: the first view (fills the in-process caches, as "
        "opening the notebook does), then the median of five ε-slider moves, each timed from the "
        "callback to the chart's Vega-Lite JSON (refit, evaluate, new chart data). Bar: < 250 ms.",
        "",
        "| notebook | first view | median update | < 250 ms |",
        "|---|---|---|---|",
        *rows,
        "",
        *([f"Against {args.label}, in the same run (`--baseline`; one fresh interpreter per "
           f"explorer, result cache off, median of {ROUNDS} rounds alternating which version "
           "runs first):", "",
           *baseline_rows(args.baseline, args.label), ""] if args.baseline else []),
        ("All notebooks under nbval in quick mode (`DPVIZ_QUICK=1`, no result cache): "
         f"**{nbval:.0f} s** (bar: under 5 minutes on the 2-core CI machine)."
         if nbval is not None else "Notebook suite not timed in this run (`--no-nbval`)."),
    ])
    update_doc(DOC, "explorers", body)
    print(body)


if __name__ == "__main__":
    main()
