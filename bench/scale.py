"""Big fits and predictions (issues 26 and 27): time, node visits per second and peak memory.

Each case runs in a fresh interpreter (its peak RSS is its own) on synthetic data whose shape
the table states: numeric columns uniform on [0, 1] with public bounds [0, 1], categorical
columns uniform on 8 values, two balanced classes. Private-RDT's fit routes every row
through every tree (rows × trees × depth node visits); the table gives the whole fit's rate
and, separately, the routing's alone (``RandomTree.leaf_keys``: the compiled descent, or numpy's
without numba). Writes its section of docs/benchmarks.md.

    .venv/bin/python bench/scale.py            (also run by `make bench`; about 10 minutes)
    .venv/bin/python bench/scale.py --only route   (some cases, printed: route, private_rdt, forest)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import machine, update_doc

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"

CHILD = r'''
import json, resource, sys, time
import numpy as np
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.random_tree import RandomTree
from dpviz.trees.rdt import PrivateRDTClassifier
import dpviz.trees.random_tree as random_tree

case = json.loads(sys.argv[1])
rng = np.random.default_rng(0)
n, k, categorical = case["rows"], case["columns"], case.get("categorical", 0)
columns = [Categorical(f"c{j}", tuple(range(8))) for j in range(categorical)]
columns += [Numeric(f"x{j}", 0.0, 1.0) for j in range(k - categorical)]
domain = Domain(columns, classes=(0, 1))
codes = np.column_stack([rng.integers(0, 8, (n, categorical)).astype(float),
                         rng.random((n, k - categorical))]) if categorical else rng.random((n, k))
labels = rng.integers(0, 2, n)
random_tree.THREADS = case.get("threads", random_tree.THREADS)
# load (or compile) the kernels before any timing, on the argument types the cases pass
out = {}
start = time.perf_counter()
if case.get("engine") != "numpy" and random_tree._compiled() is not None:
    top = random_tree.forest_top([RandomTree(domain, 2, 0)], 100)[0]
    random_tree.set_engine("numba")
    random_tree.descend(top, codes[:8], np.zeros(8, np.int64), np.arange(8))
    random_tree.vote(top, codes[:8], np.zeros(top.frontier_size, np.int64), 2)
    random_tree.set_engine("auto")
    out["kernel_load"] = time.perf_counter() - start
if case["kind"] == "route":
    trees = [RandomTree(domain, case["depth"], s) for s in range(case["trees"])]
    random_tree.set_engine(case["engine"])  # what the fit runs, with numba or without
    trees[0].leaf_keys(codes)
    passes = []
    for _ in range(3):  # the best of 3 passes (the machine may be shared)
        start = time.perf_counter()
        for tree in trees:
            tree.leaf_keys(codes)
        passes.append(time.perf_counter() - start)
    out["seconds"] = min(passes)
    out["visits"] = n * case["trees"] * case["depth"]
else:
    Model = PrivateRDTClassifier if case["kind"] == "private_rdt" else DPRandomForestClassifier
    model = Model(epsilon=1.0, n_trees=case["trees"], max_depth=case["depth"], domain=domain,
                  random_state=0)
    start = time.perf_counter()
    model.fit_encoded(codes, labels, domain)
    out["seconds"] = time.perf_counter() - start
    out["visits"] = n * case["trees"] * model.depth_
    if case.get("predict"):
        test = codes[: case["predict"]]
        start = time.perf_counter()
        model.predict_encoded(test)
        out["predict_seconds"] = time.perf_counter() - start
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
'''

CASES = [
    {"label": "Private-RDT routing alone, compiled descent", "kind": "route", "engine": "numba",
     "rows": 1_000_000, "columns": 20, "trees": 10, "depth": 10},
    {"label": "Private-RDT routing alone, compiled descent, 1 thread", "kind": "route",
     "engine": "numba", "threads": 1, "rows": 1_000_000, "columns": 20, "trees": 10,
     "depth": 10},
    {"label": "Private-RDT routing alone, numpy (numba not installed)", "kind": "route",
     "engine": "numpy", "rows": 1_000_000, "columns": 20, "trees": 10, "depth": 10},
    {"label": "Private-RDT fit, 1,000 trees", "kind": "private_rdt", "rows": 1_000_000,
     "columns": 20, "trees": 1000, "depth": 10, "predict": 10_000},
    {"label": "Private-RDT fit at depth 64", "kind": "private_rdt", "rows": 1_000_000,
     "columns": 20, "trees": 10, "depth": 64, "predict": 10_000},
    {"label": "Private-RDT on wide data at depth 64", "kind": "private_rdt", "rows": 100_000,
     "columns": 500, "trees": 100, "depth": 64, "predict": 10_000},
    {"label": "FI forest on wide data at depth 64", "kind": "forest", "rows": 100_000,
     "columns": 500, "trees": 100, "depth": 64, "predict": 10_000},
    {"label": "FI forest, 2,000 × 500 numeric", "kind": "forest", "rows": 2_000,
     "columns": 500, "trees": 100, "depth": 64, "predict": 2_000},
    {"label": "FI forest, 2,000 × 500, half categorical", "kind": "forest", "rows": 2_000,
     "columns": 500, "categorical": 250, "trees": 100, "depth": 64, "predict": 2_000},
]


def run(case: dict) -> dict:
    """One case in a fresh interpreter: its seconds, node visits and peak RSS (MB)."""
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(case)], capture_output=True,
                          text=True, check=True, timeout=3600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def data(case: dict) -> str:
    kinds = (f"{case['categorical']} categorical + {case['columns'] - case['categorical']} numeric"
             if case.get("categorical") else "numeric")
    return f"{case['rows']:,} × {case['columns']} ({kinds})"


def main() -> None:
    """Every case, or (``--only KIND``: route, private_rdt, forest) some, printed only."""
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    rows, loads = [], []
    for case in [c for c in CASES if only in (None, c["kind"])]:
        result = run(case)
        loads += [result["kernel_load"]] if "kernel_load" in result else []
        rate = result["visits"] / result["seconds"]
        predict = ("—" if "predict_seconds" not in result
                   else f"{result['predict_seconds']:.1f} s ({case['predict']:,} rows)")
        rows.append(
            f"| {case['label']} | {data(case)} | {case['trees']:,} | {case['depth']} | "
            f"{result['seconds']:.1f} s | {rate:.2g} | {predict} | {result['peak_mb']:,.0f} MB |"
        )
        print(rows[-1], f"(load average {os.getloadavg()[0]:.1f})", flush=True)
    if only is not None:
        return
    m = machine()
    body = "\n".join([
        "## Big fits and predictions (issues 26 and 27)",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {m['CPU']}, {m['cores']}; "
        "reproduce with `make bench` (or `.venv/bin/python bench/scale.py`). Each row runs in "
        "a fresh interpreter; data: uniform synthetic rows of the stated shape (numeric on "
        "[0, 1], categorical on 8 values), two classes, ε = 1. *Node visits/s* is rows × "
        "trees × depth over the time of the whole fit (routing rows: over the routing alone, "
        "best of 3 passes; the compiled kernels run in one thread per core unless stated). "
        "Loading the compiled kernels (numba, from its on-disk cache) is done before the timing, "
        f"once per process: {min(loads, default=0):.1f}–{max(loads, default=0):.1f} s, not "
        "counted above. "
        "Fits and predictions from 2·10^8 node visits (a released or looked-up leaf counting "
        "50) on show a progress bar that states the expected time up front "
        "(`dpviz.trees._base.progress`). "
        f"Load average at the end ({os.cpu_count()} cores): {os.getloadavg()[0]:.1f}"
        + (" — above 1, other work shared the machine and the times are inflated accordingly."
           if os.getloadavg()[0] > 1 else "."),
        "",
        "| case | data | trees | depth | fit (or routing) | node visits/s | predict | peak RSS |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
        *rows,
    ])
    update_doc(DOC, "scale", body)
    print(body)


if __name__ == "__main__":
    main()
