"""Run the random-tree benchmarks of issues 3 and 15 and write their section of docs/benchmarks.md.

Usage (from the repository root; ``make bench`` does exactly this)::

    .venv/bin/python bench/run.py            # full run, rewrites docs/benchmarks.md's section
    .venv/bin/python bench/run.py --quick    # smoke test: small settings, prints, writes nothing

What it measures (each worker in its own process, single-threaded):

a. ``forest_peer.py``: dpviz's FI forest against diffprivlib's
   ``RandomForestClassifier`` (in its own virtualenv, bench/.venv-diffprivlib,
   created here from bench/requirements-diffprivlib.txt if missing or stale) on
   ``make_classification(30000, 10 informative features)``, 100 trees,
   ε ∈ {0.1, 0.5, 1, 2, 5}: fit and predict time, their ratios (fit, predict,
   fit + predict), test accuracy on the same split; dpviz also once more with its
   pure-numpy engine (``DPVIZ_ENGINE=numpy``); then, accuracy only, the variants
   that locate the accuracy gap (both libraries at ε = ∞, both at depth 5, both
   with the bounds diffprivlib derives from the rows).
b. ``forest_scaling.py``: FI forest fit time and memory for n ∈ {3k, 30k, 300k, 3M}.
c. ``rdt_mushroom.py``: Private-RDT on Mushroom (h = 11, 10 trees, ε = 1):
   fit+predict time and peak memory.

Timing: ``time.perf_counter`` around the call, one untimed warm-up fit per
process (and per data seed; in (a) a warm-up predict too, its time reported apart),
the median over the repeats reported.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from dpviz.trees.random_tree import COMPILED_MIN_VISITS, fletcher_islam_depth

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SCRATCH = BENCH / ".scratch"
DOC = ROOT / "docs" / "benchmarks.md"
PEER_VENV = BENCH / ".venv-diffprivlib"
PEER_REQUIREMENTS = BENCH / "requirements-diffprivlib.txt"
SECTION = "random-trees"

N_FEATURES = 10
CLASS_SEP = 1.0  # make_classification's default
# Public bounds [-B, B] from the generator's construction, never from the rows: dpviz's FI
# Synth rule (dpviz.data.synthetic.fi_synth, bound="typical"; this is exactly SynthB's setting),
# B = ceil(2 * sqrt(n_informative / 3 + class_sep**2)): two typical standard deviations.
BOUND = float(math.ceil(2.0 * math.sqrt(N_FEATURES / 3.0 + CLASS_SEP**2)))  # 5.0
FI_DEPTH = fletcher_islam_depth(N_FEATURES, 0)  # 8: dpviz's default depth on this data

FULL = {
    "peer_rows": 30_000,
    "epsilons": [0.1, 0.5, 1.0, 2.0, 5.0],
    "n_trees": 100,
    "data_seeds": list(range(10)),
    "peer_repeats": 3,
    "sizes": [3_000, 30_000, 300_000, 3_000_000],
    "scaling_repeats": {3_000: 5, 30_000: 5, 300_000: 3, 3_000_000: 3},
    "mushroom_repeats": 5,
}
QUICK = {
    "peer_rows": 30_000,
    "epsilons": [1.0],
    "n_trees": 100,
    "data_seeds": [0],
    "peer_repeats": 1,
    "sizes": [3_000, 30_000],
    "scaling_repeats": {3_000: 1, 30_000: 1},
    "mushroom_repeats": 1,
}
# Accuracy-only variants of (a), all at the same data seeds and model seeds: (label,
# worker arguments common to both libraries, per-library extra arguments).
VARIANTS = [
    ("ε = ∞ (no privacy noise), each library's default depth", ["--epsilons", "inf"], {}),
    ("ε = 1, both at depth 5 (diffprivlib's default)", ["--epsilons", "1"],
     {"dpviz": ["--max-depth", "5"]}),
    (f"ε = 1, both at depth {FI_DEPTH} (FI's rule)", ["--epsilons", "1"],
     {"diffprivlib": ["--max-depth", str(FI_DEPTH)]}),
    ("ε = 1, bounds = each feature's range in the training rows (what diffprivlib uses when "
     "given none; a leak in practice, here the same for both)",
     ["--epsilons", "1", "--bounds", "data"], {}),
]
# tracemalloc traces every Python object: above this n (where the encoding makes one float
# object per value) it would dominate the run; the RSS columns still cover the peak there.
TRACEMALLOC_MAX_N = 300_000
# Only physical cores are fair to both: no BLAS threads, diffprivlib with n_jobs=1.
THREAD_ENV = {
    name: "1"
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                 "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
}


# ------------------------------------------------------------------------------ processes
# CPU used by *other* processes while each worker ran, in cores (busy time of the whole
# machine from /proc/stat minus the worker's own CPU time, over the worker's wall time)
OTHER_CORES: list[float] = []


def _machine_busy_s() -> float:
    """Busy CPU seconds of all cores since boot (/proc/stat; NaN where unavailable)."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except OSError:
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def ensure_peer_venv() -> Path:
    """The peer's python, (re)creating bench/.venv-diffprivlib when missing or stale."""
    python = PEER_VENV / "bin" / "python"
    stamp = PEER_VENV / ".requirements-sha256"
    wanted = hashlib.sha256(PEER_REQUIREMENTS.read_bytes()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return python
    log(f"creating {PEER_VENV.relative_to(ROOT)} from {PEER_REQUIREMENTS.relative_to(ROOT)}")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(PEER_VENV)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-r", str(PEER_REQUIREMENTS)],
        check=True,
    )
    stamp.write_text(wanted + "\n")
    return python


def run_worker(python: Path | str, script: str, args: list[str], *, timeout: float,
               env: dict[str, str] | None = None) -> dict:
    """Run ``bench/<script>`` in a fresh process; return the JSON it wrote to ``--out``."""
    out = SCRATCH / f"{Path(script).stem}-{len(list(SCRATCH.glob('*.json')))}.json"
    env = {**os.environ, **THREAD_ENV, "PYTHONHASHSEED": "0", **(env or {})}
    command = [str(python), str(BENCH / script), *args, "--out", str(out)]
    busy, own = _machine_busy_s(), _children_cpu_s()
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, env=env, timeout=timeout)
    wall = time.perf_counter() - start
    other = (_machine_busy_s() - busy - (_children_cpu_s() - own)) / wall
    OTHER_CORES.append(max(other, 0.0))
    result = json.loads(out.read_text())
    result["wall_s"] = wall
    result["other_cores"] = other
    return result


# ------------------------------------------------------------------------------ benchmarks
def prepare_peer_data(settings: dict) -> tuple[list[Path], float]:
    """One train/test split per data seed, saved once so both environments read the same rows."""
    paths, outside = [], []
    for seed in settings["data_seeds"]:
        X, y = make_classification(
            n_samples=settings["peer_rows"], n_features=N_FEATURES,
            n_informative=N_FEATURES, n_redundant=0, random_state=seed,
        )
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.25, stratify=y, random_state=seed
        )
        path = SCRATCH / f"peer-data-{settings['peer_rows']}-seed{seed}.npz"
        np.savez(path, X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test, seed=seed)
        paths.append(path)
        outside.append(float(np.mean(np.abs(X) > BOUND)))
    return paths, float(np.mean(outside))


def bench_peer(settings: dict, peer_python: Path, paths: list[Path], clipped: float) -> dict:
    """Both libraries, alternating per data seed so that both see the same machine load.

    dpviz runs twice per seed: with its default engine (numba's compiled kernels when
    installed) and, as "dpviz-numpy", with ``DPVIZ_ENGINE=numpy`` (the pure-numpy path).
    """
    common = [
        "--epsilons", *map(str, settings["epsilons"]),
        "--bound", str(BOUND),
        "--n-trees", str(settings["n_trees"]),
        "--repeats", str(settings["peer_repeats"]),
    ]
    results: dict[str, Any] = {}
    workers = (("dpviz", sys.executable, {}), ("diffprivlib", peer_python, {}),
               ("dpviz-numpy", sys.executable, {"DPVIZ_ENGINE": "numpy"}))
    for seed, path in zip(settings["data_seeds"], paths, strict=True):
        for name, python, env in workers:
            log(f"a. FI forest vs diffprivlib: {name}, data seed {seed}")
            impl = name.split("-")[0]
            part = run_worker(python, "forest_peer.py",
                              ["--impl", impl, "--data", str(path), *common], timeout=300,
                              env=env)
            if name not in results:
                results[name] = {**part, "runs": [], "warnings": [], "cold_predict_s": []}
            results[name]["runs"] += part["runs"]
            results[name]["cold_predict_s"] += part.get("cold_predict_s", [])
            results[name]["warnings"] = sorted({*results[name]["warnings"], *part["warnings"]})
    results["clipped_fraction"] = clipped
    return results


def bench_variants(settings: dict, peer_python: Path, paths: list[Path]) -> list[dict]:
    """Accuracy of both libraries under each of VARIANTS (timings recorded but not reported)."""
    out = []
    for label, common, extra in VARIANTS:
        entry: dict[str, Any] = {"label": label}
        for impl, python in (("dpviz", sys.executable), ("diffprivlib", peer_python)):
            log(f"a2. accuracy variant ({impl}): {label[:40]}…")
            entry[impl] = run_worker(
                python, "forest_peer.py",
                ["--impl", impl, "--data", *map(str, paths), "--bound", str(BOUND),
                 "--n-trees", str(settings["n_trees"]), "--repeats", str(settings["peer_repeats"]),
                 *common, *extra.get(impl, [])],
                timeout=900,
            )
        out.append(entry)
    return out


def bench_scaling(settings: dict) -> list[dict]:
    out = []
    for n in settings["sizes"]:
        log(f"b. FI forest scaling: n = {n:,}")
        extra = [] if n <= TRACEMALLOC_MAX_N else ["--no-tracemalloc"]
        out.append(run_worker(
            sys.executable, "forest_scaling.py",
            ["--n", str(n), "--bound", str(BOUND), "--n-trees", str(settings["n_trees"]),
             "--repeats", str(settings["scaling_repeats"][n]), *extra],
            timeout=400,
        ))
    return out


def bench_mushroom(settings: dict) -> dict:
    log("c. Private-RDT on Mushroom")
    return run_worker(sys.executable, "rdt_mushroom.py",
                      ["--repeats", str(settings["mushroom_repeats"])], timeout=300)


# ------------------------------------------------------------------------------ machine
def machine() -> dict[str, str]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    total = re.search(r"^MemTotal:\s*(\d+) kB", meminfo, re.M)
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "CPU": model.group(1).strip() if model else platform.processor() or "unknown",
        "cores": f"{os.cpu_count()} logical ({usable} usable by this process)",
        "RAM": f"{int(total.group(1)) / 2**20:.1f} GiB" if total else "unknown",
        "OS": f"{platform.system()} {platform.release()} ({platform.machine()})",
    }


def git_revision() -> str:
    """Read-only: the commit and whether the work tree has changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return f"commit {head}" + (" with uncommitted changes" if dirty.strip() else "")


# ------------------------------------------------------------------------------ report
def _mean_sd(values: list[float]) -> tuple[float, float]:
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def _by_eps(result: dict, key: str) -> dict[float, list[float]]:
    out: dict[float, list[float]] = {}
    for run in result["runs"]:
        value = run["fit_s"] + run["predict_s"] if key == "fit_predict_s" else run[key]
        out.setdefault(run["epsilon"], []).append(value)
    return out


def _fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _per_seed_delta(ours: dict, theirs: dict, eps: float) -> list[float]:
    """dpviz minus diffprivlib accuracy in points, per data seed (mean over model seeds)."""
    def mean_acc(result: dict, seed: int) -> float:
        return statistics.fmean(r["accuracy"] for r in result["runs"]
                                if r["epsilon"] == eps and r["data_seed"] == seed)

    seeds = sorted({r["data_seed"] for r in ours["runs"]})
    return [100 * (mean_acc(ours, s) - mean_acc(theirs, s)) for s in seeds]


def _mean_se(values: list[float]) -> tuple[float, float]:
    """Mean and its standard error (sd / √n) over data seeds."""
    mean, sd = _mean_sd(values)
    return mean, sd / math.sqrt(len(values))


def render_variants(peer: dict, variants: list[dict]) -> list[str]:
    """Table (a2): the accuracy gap under each variant, next to the default comparison."""
    ours, theirs = peer["dpviz"], peer["diffprivlib"]
    rows = [("ε = 1, public bounds, each library's default depth (= table a)", ours, theirs, 1.0)]
    for v in variants:
        eps = v["dpviz"]["runs"][0]["epsilon"]
        rows.append((v["label"], v["dpviz"], v["diffprivlib"], eps))
    lines = [
        "### a2. Where the accuracy gap comes from (accuracy only)",
        "",
        "The same data seeds, splits and model seeds as (a); one setting changed per row. "
        "Δ is dpviz minus diffprivlib in points: mean over the data seeds ± its standard "
        "error (sd of the per-seed differences / √seeds).",
        "",
        "| setting | dpviz depth | diffprivlib depth | dpviz accuracy | diffprivlib accuracy "
        "| Δ (points) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    same_depth, other_depth, dpviz_acc = [], [], {}
    for label, a, b, eps in rows:
        acc = [statistics.fmean(r["accuracy"] for r in res["runs"] if r["epsilon"] == eps)
               for res in (a, b)]
        delta, se = _mean_se(_per_seed_delta(a, b, eps))
        depths = (a["runs"][0]["depth"], b["runs"][0]["depth"])
        (same_depth if depths[0] == depths[1] else other_depth).append(delta)
        if depths[0] != depths[1] and a["runs"][0].get("bounds", "public") == "public":
            dpviz_acc[eps] = acc[0]
        lines.append(f"| {label} | {depths[0]} | {depths[1]} | "
                     f"{acc[0]:.3f} | {acc[1]:.3f} | {delta:+.1f} ± {se:.1f} |")
    if same_depth and other_depth:
        noise = (f"; the privacy noise itself costs dpviz's forest "
                 f"{100 * (dpviz_acc[math.inf] - dpviz_acc[1.0]):.1f} points at ε = 1 (its "
                 "deeper leaves hold fewer rows, so ROSNAM changes more majority labels)"
                 if {1.0, math.inf} <= dpviz_acc.keys() else "")
        lines += [
            "",
            f"Reading: at equal depth the two libraries agree within "
            f"{max(abs(d) for d in same_depth):.1f} points. Both grow random trees (a uniformly "
            "random feature and a uniform threshold in the node's current range at every node, "
            "structure drawn before the rows are read), fill each tree with a disjoint share "
            "of the rows and label each leaf with the same selection distribution "
            "(permute-and-flip = ROSNAM). So the accuracy difference in (a) is FI's depth rule "
            f"({FI_DEPTH} here) against diffprivlib's default depth 5, not the implementation: "
            f"{min(other_depth):+.1f} to {max(other_depth):+.1f} points over the settings "
            f"above{noise}.",
        ]
    return lines


def render_peer(peer: dict, settings: dict) -> tuple[list[str], dict]:
    ours, theirs = peer["dpviz"], peer["diffprivlib"]
    fit_a, fit_b = _by_eps(ours, "fit_s"), _by_eps(theirs, "fit_s")
    pred_a, pred_b = _by_eps(ours, "predict_s"), _by_eps(theirs, "predict_s")
    total_a, total_b = _by_eps(ours, "fit_predict_s"), _by_eps(theirs, "fit_predict_s")
    acc_a, acc_b = _by_eps(ours, "accuracy"), _by_eps(theirs, "accuracy")
    runs_per_eps = len(settings["data_seeds"]) * settings["peer_repeats"]
    n_train, n_test = ours["runs"][0]["n_train"], ours["runs"][0]["n_test"]
    lines = [
        f"### a. FI forest vs diffprivlib `RandomForestClassifier` "
        f"({settings['peer_rows']:,} × {N_FEATURES}, {settings['n_trees']} trees)",
        "",
        f"Data: `make_classification(n_samples={settings['peer_rows']}, "
        f"n_features={N_FEATURES}, n_informative={N_FEATURES}, n_redundant=0, "
        f"random_state=s)` for s in {settings['data_seeds']}, split 75/25 (stratified, "
        f"{n_train:,} train / {n_test:,} test rows, the same split for both libraries). "
        f"Public bounds [−{BOUND:g}, {BOUND:g}] on every feature for both (dpviz: a `Domain` "
        f"of `Numeric` attributes; diffprivlib: `bounds=(lower, upper)`, `classes=[0, 1]`), "
        f"from the generator's construction (dpviz's FI Synth rule "
        f"⌈2·√(n_informative/3 + class_sep²)⌉, SynthB's setting), not from the rows; "
        f"{100 * peer['clipped_fraction']:.1f} % of the values lie outside and are clipped "
        f"by both. dpviz: `DPRandomForestClassifier(epsilon, n_trees=100, domain=...)` with "
        f"its defaults (depth {ours['runs'][0]['depth']} from `fletcher_islam_depth`, ROSNAM "
        f"leaves, disjoint rows per tree); diffprivlib: `RandomForestClassifier(n_estimators="
        f"100, epsilon, bounds, classes, n_jobs=1)` with its defaults (max_depth "
        f"{theirs['runs'][0]['depth']}). Times: median over {runs_per_eps} fits per ε "
        f"({len(settings['data_seeds'])} data seeds × {settings['peer_repeats']} model seeds); "
        f"ratio = diffprivlib median / dpviz median (and the same for the fastest fit of each). "
        f"The two libraries' workers alternate per data seed, so both see the same machine "
        f"load. Predict: median time on the {n_test:,} test rows, each after its fit (the "
        f"first predict of each process is an untimed warm-up, see below); fit + predict: "
        f"median of the per-model sums. Accuracy: mean ± sd over the same {runs_per_eps} "
        f"fits, on the held-out {n_test:,} rows.",
        "",
        "| ε | dpviz fit | diffprivlib fit | fit ratio (diffprivlib / dpviz) | ratio of best fits "
        "| dpviz accuracy | diffprivlib accuracy | Δ accuracy (points) | dpviz predict "
        "| diffprivlib predict | predict ratio | fit + predict ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    summary = {}
    for eps in settings["epsilons"]:
        fa, fb = statistics.median(fit_a[eps]), statistics.median(fit_b[eps])
        (ma, sa), (mb, sb) = _mean_sd(acc_a[eps]), _mean_sd(acc_b[eps])
        per_seed = _per_seed_delta(ours, theirs, eps)
        pa, pb = statistics.median(pred_a[eps]), statistics.median(pred_b[eps])
        ta, tb = statistics.median(total_a[eps]), statistics.median(total_b[eps])
        summary[eps] = {"ratio": fb / fa, "best_ratio": min(fit_b[eps]) / min(fit_a[eps]),
                        "delta": 100 * (ma - mb), "delta_se": _mean_se(per_seed)[1],
                        "acc_a": ma, "acc_b": mb, "delta_per_seed": per_seed,
                        "predict_ratio": pb / pa, "total_ratio": tb / ta}
        lines.append(
            f"| {eps:g} | {_fmt_s(fa)} | {_fmt_s(fb)} | **{fb / fa:.2f}×** | "
            f"{min(fit_b[eps]) / min(fit_a[eps]):.2f}× | "
            f"{ma:.3f} ± {sa:.3f} | {mb:.3f} ± {sb:.3f} | {100 * (ma - mb):+.1f} | "
            f"{_fmt_s(pa)} | {_fmt_s(pb)} | **{pb / pa:.2f}×** | **{tb / ta:.2f}×** |"
        )
    lines += ["", *render_predict_notes(peer, settings)]
    for name, result in (("dpviz", ours), ("diffprivlib", theirs)):
        if result["warnings"]:
            lines += ["", f"Warnings raised by {name} during fit: "
                      + "; ".join(f"`{w}`" for w in result["warnings"])]
    return lines, summary


def render_predict_notes(peer: dict, settings: dict) -> list[str]:
    """The first predict of each process, and dpviz's pure-numpy engine, as sentences."""
    ours, theirs = peer["dpviz"], peer["diffprivlib"]
    lines = []
    if ours.get("cold_predict_s") and theirs.get("cold_predict_s"):
        cold_a, cold_b = ours["cold_predict_s"], theirs["cold_predict_s"]
        lines.append(
            f"First predict in each worker process (the untimed warm-up, one per data seed; "
            f"median, max): dpviz {_fmt_s(statistics.median(cold_a))}, {_fmt_s(max(cold_a))} "
            f"— it imports numba and loads the compiled kernel from numba's cache, once per "
            f"process (compiling it, once per machine, takes about 1 s more); diffprivlib "
            f"{_fmt_s(statistics.median(cold_b))}, {_fmt_s(max(cold_b))}.")
    plain = peer.get("dpviz-numpy")
    if plain:
        pred_n, pred_b = _by_eps(plain, "predict_s"), _by_eps(theirs, "predict_s")
        fit_n, fit_b = _by_eps(plain, "fit_s"), _by_eps(theirs, "fit_s")
        cells = ", ".join(
            f"ε = {eps:g}: predict {_fmt_s(statistics.median(pred_n[eps]))} "
            f"({statistics.median(pred_b[eps]) / statistics.median(pred_n[eps]):.2f}×), fit "
            f"{_fmt_s(statistics.median(fit_n[eps]))} "
            f"({statistics.median(fit_b[eps]) / statistics.median(fit_n[eps]):.2f}×)"
            for eps in settings["epsilons"])
        lines += ["", "dpviz without numba (`DPVIZ_ENGINE=numpy`, the pure-numpy path: the "
                  "same predictions bit for bit, tested), in the same run, its ratios against "
                  f"diffprivlib in brackets: {cells}."]
    return lines


def render_scaling(rows: list[dict]) -> list[str]:
    first = rows[0]
    lines = [
        f"### b. FI forest fit time and memory vs n ({N_FEATURES} features, "
        f"{first['n_trees']} trees, ε = {first['epsilon']:g})",
        "",
        "Same generator and bounds as (a), all n rows used for training, each n in a fresh "
        "process. Fit: median of the repeats (after an untimed warm-up fit on 3,000 rows). "
        "The two encode columns time, alone, the input encoding that `fit` begins with "
        "(`Domain.encode(X)`, `Domain.encode_labels(y)`): their share of the fit is the "
        "\"encoding\" column. Memory: resident set after generating the data, the process's "
        "peak (`ru_maxrss`), and the peak of memory allocated during one `fit` "
        "(`tracemalloc`, numpy buffers included; the data itself excluded; not traced above "
        f"n = {TRACEMALLOC_MAX_N:,}, where tracing every object would dominate the run).",
        "",
        "| n | fit (median) | repeats | per 1,000 rows | encode X | encode y | encoding share "
        "| data | RSS with data | peak RSS | peak RSS − RSS with data | peak allocated in fit |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        fit = r["fit_median_s"]
        encode = r["encode_x_s"] + r["encode_y_s"]
        lines.append(
            f"| {r['n']:,} | {_fmt_s(fit)} | {len(r['fit_s'])} | "
            f"{1000 * fit / r['n'] * 1000:.2f} ms | {_fmt_s(r['encode_x_s'])} | "
            f"{_fmt_s(r['encode_y_s'])} | {100 * encode / fit:.0f} % | "
            f"{r['data_mb']:.0f} MB | {r['rss_with_data_mb']:.0f} MB | "
            f"{r['peak_rss_mb']:.0f} MB | {r['peak_rss_mb'] - r['rss_with_data_mb']:.0f} MB | "
            + (f"{traced:.0f} MB |" if (traced := r["tracemalloc_fit_peak_mb"]) is not None
               else "not traced |")
        )
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        lines += ["", f"From n = {a['n']:,} to {b['n']:,} ({b['n'] / a['n']:,.0f}× the rows) "
                  f"the fit takes {b['fit_median_s'] / a['fit_median_s']:,.0f}× as long."]
    compiled = [r["n"] for r in rows if r["n"] * (FI_DEPTH - 1) >= COMPILED_MIN_VISITS]
    if compiled:
        lines += ["", f"Fits of at least {COMPILED_MIN_VISITS / 1e6:g} M node visits (rows × "
                  f"materialized levels; here n ≥ {min(compiled):,}) route the rows with "
                  "numba's compiled kernel (`dpviz.trees.random_tree`, issue 15): loading numba "
                  "and the kernel adds about 130 MB to the resident set (LLVM; measured once: "
                  "111 MB for `import numba`, 22 MB for the kernel), counted in the peak RSS "
                  "columns, not in the allocations traced. The first such fit of a process "
                  "also pays the load (0.3–1 s), which the median of 3 repeats leaves out."]
    return lines


def render_mushroom(m: dict) -> list[str]:
    cold, warm = m["cold"], m["warm"]
    return [
        f"### c. Private-RDT on Mushroom (h = {m['height']}, {m['n_trees']} trees, "
        f"ε = {m['epsilon']:g})",
        "",
        f"`load(\"mushroom\")` ({m['shape'][0]:,} rows × {m['shape'][1]} attributes, its "
        f"documented public domain), `PrivateRDTClassifier(epsilon={m['epsilon']:g}, "
        f"n_trees={m['n_trees']}, max_depth={m['height']}, domain=ds.domain)`, predict on "
        f"all {m['shape'][0]:,} rows; a fully materialized tree would have up to "
        f"{m['max_leaves']:.2g} leaves. In a fresh process: the first fit+predict (\"cold\") "
        f"and the median of {len(warm)} more with other seeds (\"warm\"); memory as in (b).",
        "",
        "| run | fit | predict | fit + predict | accuracy on the training rows |",
        "|---|---:|---:|---:|---:|",
        f"| cold (first in process) | {_fmt_s(cold['fit_s'])} | {_fmt_s(cold['predict_s'])} "
        f"| {_fmt_s(cold['total_s'])} | {cold['accuracy']:.3f} |",
        f"| warm (median of {len(warm)}) | {_fmt_s(m['warm_median_fit_s'])} | "
        f"{_fmt_s(m['warm_median_predict_s'])} | {_fmt_s(m['warm_median_total_s'])} | "
        f"{statistics.fmean(r['accuracy'] for r in warm):.3f} (mean) |",
        "",
        f"Memory: {m['rss_with_data_mb']:.0f} MB resident after imports and loading the data, "
        f"peak {m['peak_rss_mb']:.0f} MB for the whole process (`ru_maxrss`), "
        f"{m['tracemalloc_peak_mb']:.1f} MB peak allocated during one fit+predict "
        f"(`tracemalloc`).",
    ]


def render(results: dict, settings: dict, started: dt.datetime, wall_s: float) -> str:
    peer, scaling, mushroom = results["peer"], results["scaling"], results["mushroom"]
    theirs = peer["diffprivlib"]["versions"]
    ours = peer["dpviz"]["versions"]
    info = machine()
    other_mean, other_max = statistics.fmean(OTHER_CORES), max(OTHER_CORES)
    busy = (
        " — the machine was shared during the run: absolute times are noisy, the ratios "
        "(interleaved runs) less so"
        if other_max >= 0.25 else ""
    )
    peer_lines, summary = render_peer(peer, settings)
    ratios = [s["ratio"] for s in summary.values()]
    best = [s["best_ratio"] for s in summary.values()]
    predict = [s["predict_ratio"] for s in summary.values()]
    total = [s["total_ratio"] for s in summary.values()]
    at_one = summary.get(1.0)
    cold, warm_total = mushroom["cold"]["total_s"], mushroom["warm_median_total_s"]

    def verdict(ok: bool) -> str:
        return "**met**" if ok else "**not met**"

    bar = [
        "**Issues 3 and 15's bars** (benchmarks, not tests), as measured in this run:",
        "",
        f"- FI forest fit ≥ 10× faster than diffprivlib at 30k × 10, 100 trees: "
        f"{min(ratios):.2f}× to {max(ratios):.2f}× over ε (ratio of medians; of the best "
        f"fits: {min(best):.2f}× to {max(best):.2f}×) — {verdict(min(ratios) >= 10)}.",
        f"- FI forest predict at least as fast as diffprivlib (issue 15; 7,500 test rows): "
        f"{min(predict):.2f}× to {max(predict):.2f}× over ε (diffprivlib median / dpviz "
        f"median) — {verdict(min(predict) >= 1)}.",
        f"- FI forest fit + predict ≥ 5× faster than diffprivlib (issue 15): "
        f"{min(total):.2f}× to {max(total):.2f}× over ε — {verdict(min(total) >= 5)}.",
    ]
    if at_one is not None:
        bar.append(
            f"- Accuracy at ε = 1 ≥ 3 points above diffprivlib's: {at_one['acc_a']:.3f} vs "
            f"{at_one['acc_b']:.3f}, {at_one['delta']:+.1f} ± {at_one['delta_se']:.1f} points "
            f"(mean ± standard error over {len(at_one['delta_per_seed'])} data seeds; per "
            "seed: " + ", ".join(f"{d:+.1f}" for d in at_one["delta_per_seed"])
            + f") — {verdict(at_one['delta'] >= 3)}; table (a2) shows where the gap "
            "comes from."
        )
    bar += [
        f"- Mushroom h = 11 Private-RDT fit+predict < 1 s: cold {_fmt_s(cold)}, warm "
        f"{_fmt_s(warm_total)} — {verdict(max(cold, warm_total) < 1)}; peak memory "
        f"{mushroom['peak_rss_mb']:.0f} MB for the whole process (test bar: < 500 MB) — "
        f"{verdict(mushroom['peak_rss_mb'] < 500)}.",
    ]
    lines = [
        "## Random trees: FI forest and Private-RDT (issues 3 and 15)",
        "",
        f"Run {started:%Y-%m-%d %H:%M} UTC, {wall_s / 60:.1f} min in total; dpviz "
        f"{ours.get('dpviz', '?')} at {git_revision()}. Reproduce with `make bench` "
        f"(= `.venv/bin/python bench/run.py`; it creates the peer's environment "
        f"`bench/.venv-diffprivlib` from `bench/requirements-diffprivlib.txt` if missing).",
        "",
        "| machine and software | |",
        "|---|---|",
        f"| CPU | {info['CPU']} |",
        f"| cores | {info['cores']} |",
        f"| RAM | {info['RAM']} |",
        f"| OS | {info['OS']} |",
        f"| other processes' CPU use | {other_mean:.2f} cores on average while the workers "
        f"ran, {other_max:.2f} at most (/proc/stat){busy} |",
        f"| Python | {ours['python']} (both environments: {theirs['python']}) |",
        f"| dpviz environment (`.venv`) | numpy {ours['numpy']}, scikit-learn "
        f"{ours['scikit-learn']}, numba {ours.get('numba', 'not recorded')} |",
        f"| peer environment (`bench/.venv-diffprivlib`) | diffprivlib "
        f"{theirs['diffprivlib']}, numpy {theirs['numpy']}, scikit-learn "
        f"{theirs['scikit-learn']} |",
        "",
        "Method: every measurement runs in its own Python process, single-threaded "
        "(`OMP_NUM_THREADS=1` etc.; diffprivlib `n_jobs=1`); times are `time.perf_counter()` "
        "around the call measured inside that process, after one untimed warm-up fit (and, "
        "in (a), predict), and the **median** of the repeats is reported.",
        "",
        *bar,
        "",
        *peer_lines,
        "",
        *render_variants(peer, results["variants"]),
        "",
        *render_scaling(scaling),
        "",
        *render_mushroom(mushroom),
    ]
    return "\n".join(lines) + "\n"


PREAMBLE = """# Benchmarks

Speed is measured, not asserted: the scripts in `bench/` time dpviz (against peers in the
same run where there is one, as ratios) and write their results here, one section per
benchmark, each with the machine it ran on. `make bench` runs them all.

Each section is regenerated by its own script between its `<!-- BEGIN bench:NAME -->` and
`<!-- END bench:NAME -->` markers; text outside the markers is kept, so add a new benchmark
as a new marked section.
"""


def update_doc(path: Path, name: str, body: str) -> None:
    """Replace (or append) the section between this benchmark's markers; keep everything else."""
    begin = f"<!-- BEGIN bench:{name} — generated by bench/run.py, edits inside are lost -->"
    end = f"<!-- END bench:{name} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}\n"
    text = path.read_text() if path.exists() else PREAMBLE
    pattern = re.compile(
        rf"<!-- BEGIN bench:{re.escape(name)}\b.*?-->.*?<!-- END bench:{re.escape(name)} -->\n?",
        re.S,
    )
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ------------------------------------------------------------------------------ main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="small settings; print the section instead of writing it")
    parser.add_argument("--output", type=Path, default=DOC, help="default: docs/benchmarks.md")
    args = parser.parse_args()
    settings = QUICK if args.quick else FULL

    SCRATCH.mkdir(exist_ok=True)
    for old in SCRATCH.glob("*.json"):
        old.unlink()
    started = dt.datetime.now(dt.UTC)
    start = time.perf_counter()
    log(f"dpviz environment: {sys.executable} (numpy {np.__version__}, "
        f"scikit-learn {sklearn.__version__})")
    peer_python = ensure_peer_venv()
    paths, clipped = prepare_peer_data(settings)
    results: dict[str, Any] = {
        "peer": bench_peer(settings, peer_python, paths, clipped),
        "variants": bench_variants(settings, peer_python, paths),
        "scaling": bench_scaling(settings),
        "mushroom": bench_mushroom(settings),
    }
    wall_s = time.perf_counter() - start
    (SCRATCH / "results.json").write_text(json.dumps(results, indent=1))
    body = render(results, settings, started, wall_s)
    if args.quick:
        print(body)
        log("quick run: nothing written")
        return
    update_doc(args.output, SECTION, body)
    log(f"wrote section {SECTION!r} of {args.output.relative_to(ROOT)} "
        f"({wall_s / 60:.1f} min)")


if __name__ == "__main__":
    main()
