"""FI forest against diffprivlib's RandomForestClassifier, in the same run (section forest-peer).

make_classification(rows, 10 informative features) per data seed, split 75/25 and saved, so that
both environments read the same rows; public bounds ±5 (FI's Synth rule). Fresh single-threaded
workers alternate per data seed: dpviz, diffprivlib (in bench/.venv-diffprivlib, made from
requirements-diffprivlib.txt when missing or stale), dpviz with DPVIZ_ENGINE=numpy; each an
untimed warm-up fit and predict, then ``repeats`` of each per ε. Then accuracy under variants.

    python -m bench.forest_peer [--quick]
"""

from __future__ import annotations

import hashlib
import math
import statistics
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

from bench.common import ROOT, Run, cli, in_fresh_process, seconds, table, timed, versions

SCRATCH, PEER_VENV = ROOT / "bench" / ".scratch", ROOT / "bench" / ".venv-diffprivlib"
REQUIREMENTS = ROOT / "bench" / "requirements-diffprivlib.txt"
N_FEATURES = 10
BOUND = float(math.ceil(2 * math.sqrt(N_FEATURES / 3 + 1)))  # FI Synth: 2 typical sds, 5
FULL = {"rows": 30_000, "epsilons": [0.1, 0.5, 1.0, 2.0, 5.0], "n_trees": 100,
        "seeds": list(range(10)), "repeats": 3}
QUICK = {"rows": 3_000, "epsilons": [1.0], "n_trees": 10, "seeds": [0, 1], "repeats": 1}
THREADS = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                  "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}
# accuracy only: (label, job settings for both, per-library settings; None: dpviz's depth)
VARIANTS = [
    ("ε = ∞, each library's default depth", {"epsilons": [math.inf]}, {}),
    ("ε = 1, both at depth 5 (diffprivlib's default)", {}, {"dpviz": {"max_depth": 5}}),
    ("ε = 1, both at dpviz's default depth (FI's rule)", {}, {"diffprivlib": {"max_depth": None}}),
    ("ε = 1, bounds = each feature's range in the training rows", {"bounds": "data"}, {}),
]


def model(impl: str, lower: Any, upper: Any, max_depth: int | None) -> Any:
    """(ε, trees, seed) -> an unfitted forest of ``impl`` with these bounds and depth."""
    if impl == "diffprivlib":
        from diffprivlib.models import RandomForestClassifier

        depth = {} if max_depth is None else {"max_depth": max_depth}  # default 5
        return lambda eps, n_trees, seed: RandomForestClassifier(
            n_estimators=n_trees, epsilon=eps, bounds=(lower, upper), classes=[0, 1], n_jobs=1,
            random_state=seed, **depth)
    from dpviz import DPRandomForestClassifier
    from dpviz.domain import Domain, Numeric

    domain = Domain([Numeric(f"x{j}", float(lo), float(hi))
                     for j, (lo, hi) in enumerate(zip(lower, upper, strict=True))], (0, 1))
    return lambda eps, n_trees, seed: DPRandomForestClassifier(
        epsilon=eps, n_trees=n_trees, max_depth=max_depth, domain=domain, random_state=seed)


def worker(job: dict) -> dict:
    """Fit and predict one library on the saved splits (in its own interpreter)."""
    import numpy as np

    runs, warned, cold = [], set(), []
    for path in job["data"]:
        d = np.load(path)
        X, y, X_test, y_test, seed = (d[k] for k in ("X_train", "y_train", "X_test", "y_test",
                                                      "seed"))
        lower, upper = ((np.full(N_FEATURES, -BOUND), np.full(N_FEATURES, BOUND))
                        if job.get("bounds", "public") == "public" else (X.min(0), X.max(0)))
        make = model(job["impl"], lower, upper, job.get("max_depth"))
        warm = make(1.0, job["n_trees"], 0).fit(X, y)
        cold.append(timed(warm.predict, X_test).best)  # the first predict of the process
        for eps in job["epsilons"]:
            for r in range(job["repeats"]):
                forest = make(eps, job["n_trees"], 100 * int(seed) + r)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    fit = timed(forest.fit, X, y)
                warned |= {f"{w.category.__name__}: {w.message}" for w in caught}
                predict = timed(forest.predict, X_test)
                runs.append({"seed": int(seed), "epsilon": eps, "fit_s": fit.best,
                             "predict_s": predict.best, "n_train": len(y), "n_test": len(y_test),
                             "accuracy": float(np.mean(np.asarray(predict.result) == y_test)),
                             "depth": int(getattr(forest, "depth_", None) or forest.max_depth)})
    packages = ("dpviz", "numba") if job["impl"] == "dpviz" else ("diffprivlib",)
    return {"versions": versions(*packages, "numpy", "scikit-learn"), "warnings": sorted(warned),
            "runs": runs, "cold_predict_s": cold}


def peer_python() -> Path:
    """bench/.venv-diffprivlib's python, (re)created when missing or stale."""
    python, stamp = PEER_VENV / "bin" / "python", PEER_VENV / ".requirements-sha256"
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if not (python.exists() and stamp.exists() and stamp.read_text().strip() == wanted):
        print(f"creating {PEER_VENV.relative_to(ROOT)}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(PEER_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", "-r", str(REQUIREMENTS)], check=True)
        stamp.write_text(wanted + "\n")
    return python


def prepare(s: dict) -> tuple[list[str], float]:
    """One saved train/test split per data seed; the share of values outside the bounds."""
    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    SCRATCH.mkdir(exist_ok=True)
    paths, outside = [], []
    for seed in s["seeds"]:
        X, y = make_classification(n_samples=s["rows"], n_features=N_FEATURES,
                                   n_informative=N_FEATURES, n_redundant=0, random_state=seed)
        parts = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
        paths.append(str(SCRATCH / f"peer-{s['rows']}-seed{seed}.npz"))
        np.savez(paths[-1], **dict(zip(("X_train", "X_test", "y_train", "y_test"), parts,
                                       strict=True)), seed=seed)
        outside.append(float(np.mean(np.abs(X) > BOUND)))
    return paths, statistics.fmean(outside)


def values(result: dict, eps: float, key: str) -> list[float]:
    return [r["fit_s"] + r["predict_s"] if key == "total" else r[key]
            for r in result["runs"] if r["epsilon"] == eps]


def delta(a: dict, b: dict, eps: float) -> tuple[str, list[float]]:
    """a's minus b's accuracy in points per data seed: 'mean ± standard error', the list."""
    def acc(res: dict, seed: int) -> float:
        return statistics.fmean(r["accuracy"] for r in res["runs"]
                                if r["epsilon"] == eps and r["seed"] == seed)

    per_seed = [100 * (acc(a, s) - acc(b, s)) for s in sorted({r["seed"] for r in a["runs"]})]
    se = statistics.stdev(per_seed) / math.sqrt(len(per_seed)) if len(per_seed) > 1 else 0.0
    return f"{statistics.fmean(per_seed):+.1f} ± {se:.1f}", per_seed


def accuracy_row(label: str, v: dict, eps: float | None = None) -> list:
    """Depths, accuracies and their difference at ``eps`` (default: the first run's) of ``v``."""
    a, b = v["dpviz"], v["diffprivlib"]
    eps = a["runs"][0]["epsilon"] if eps is None else eps
    mean_se, per_seed = delta(a, b, eps)
    return [label, a["runs"][0]["depth"], b["runs"][0]["depth"],
            *(f"{statistics.fmean(values(x, eps, 'accuracy')):.3f}" for x in (a, b)),
            mean_se, ", ".join(f"{d:+.1f}" for d in per_seed)]


def render(s: dict, res: dict, variants: list, clipped: float) -> list[str]:
    ours, theirs = res["dpviz"], res["diffprivlib"]
    first = ours["runs"][0]
    rows = []
    for eps in s["epsilons"]:
        b = {k: values(theirs, eps, k) for k in ("fit_s", "predict_s", "total", "accuracy")}
        for name in ("dpviz", "dpviz numpy"):
            a = {k: values(res[name], eps, k) for k in b}
            med = {k: (statistics.median(a[k]), statistics.median(b[k])) for k in b}
            ratio = {k: f"{y / x:.2f}×" for k, (x, y) in med.items()}  # diffprivlib / dpviz
            rows.append([
                f"{eps:g}", "numpy" if name.endswith("numpy") else "numba",
                *map(seconds, med["fit_s"]), ratio["fit_s"],
                f"{min(b['fit_s']) / min(a['fit_s']):.2f}×", *map(seconds, med["predict_s"]),
                ratio["predict_s"], ratio["total"],
                *(f"{statistics.fmean(x):.3f} ± {statistics.stdev(x) if len(x) > 1 else 0:.3f}"
                  for x in (a["accuracy"], b["accuracy"])), delta(res[name], theirs, eps)[0]])
    cold = "; ".join(f"{name} {seconds(statistics.median(r['cold_predict_s']))}, "
                     f"{seconds(max(r['cold_predict_s']))}" for name, r in res.items())
    peer = theirs["versions"]
    a2 = [accuracy_row("ε = 1, public bounds, each library's default depth (= the table above)",
                       {"dpviz": ours, "diffprivlib": theirs}, 1.0)] if 1.0 in s["epsilons"] else []
    a2_rows = a2 + [accuracy_row(label, v) for label, v in variants]
    return [
        f"Settings: {s['rows']:,} rows ({first['n_train']:,} train, {first['n_test']:,} test), "
        f"{N_FEATURES} features, {s['n_trees']} trees, data seeds {s['seeds']} × "
        f"{s['repeats']} model seeds per ε; bounds ±{BOUND:g} ({100 * clipped:.1f} % of the "
        f"values outside, clipped by both); depth: dpviz {first['depth']}, diffprivlib "
        f"{theirs['runs'][0]['depth']}. Peer environment: diffprivlib {peer['diffprivlib']}, "
        f"numpy {peer['numpy']}, scikit-learn {peer['scikit-learn']}, Python {peer['python']} "
        f"(dpviz's: scikit-learn {ours['versions']['scikit-learn']}).",
        "", *table(["ε", "dpviz engine", "dpviz fit", "diffprivlib fit", "fit ratio",
                    "ratio of best fits", "dpviz predict", "diffprivlib predict", "predict ratio",
                    "fit + predict ratio", "dpviz accuracy", "diffprivlib accuracy",
                    "Δ accuracy (points)"], rows),
        "", f"First predict in each worker process (the untimed warm-up; median, max): {cold}.",
        *(f"\nWarnings raised by {name} during fit: " + "; ".join(f"`{w}`" for w in r["warnings"])
          for name, r in res.items() if r["warnings"]),
        "", "Accuracy only, one setting changed per row:", "",
        *table(["setting", "dpviz depth", "diffprivlib depth", "dpviz accuracy",
                "diffprivlib accuracy", "Δ (points)", "Δ per data seed"], a2_rows)]


def main() -> None:
    args = cli(__doc__, worker)
    s = QUICK if args.quick else FULL
    run = Run(args, env=THREADS)
    peer = peer_python()
    paths, clipped = prepare(s)
    job = {"n_trees": s["n_trees"], "repeats": s["repeats"], "epsilons": s["epsilons"]}
    workers = [("dpviz", sys.executable, {}), ("diffprivlib", peer, {}),
               ("dpviz numpy", sys.executable, {"DPVIZ_ENGINE": "numpy"})]
    res: dict[str, dict] = {}
    for path in paths:  # the libraries alternate, so that both see the same load
        for name, python, env in workers:
            print(f"{name}: {path}", flush=True)
            part = in_fresh_process("forest_peer", {**job, "impl": name.split()[0],
                                                    "data": [path]},
                                    python=python, env={**THREADS, **env}, timeout=900)
            into = res.setdefault(name, {**part, "runs": [], "cold_predict_s": []})
            into["runs"] += part["runs"]
            into["cold_predict_s"] += part["cold_predict_s"]
            into["warnings"] = sorted({*into["warnings"], *part["warnings"]})
    variants, depth = [], res["dpviz"]["runs"][0]["depth"]
    for label, change, extra in VARIANTS:
        print(f"variant: {label}", flush=True)
        variants.append((label, {impl: in_fresh_process(
            "forest_peer", {**job, "epsilons": [1.0], **change, "impl": impl, "data": paths,
                            **{k: v or depth for k, v in extra.get(impl, {}).items()}},
            python=python, env=THREADS, timeout=1800)
            for impl, python in (("dpviz", sys.executable), ("diffprivlib", peer))}))
    run.write("forest-peer", render(s, res, variants, clipped))


if __name__ == "__main__":
    main()
