"""The lazy-release estimators' fit and predict, Private-RDT's memory (section release-speed).

In a fresh process: Private-RDT on Mushroom (h = 11, 10 trees, ε = 1, its documented domain), the
first fit and predict of the process, then medians of 5, and its memory; then the FI forest on
30,000 × 10 rows of make_classification (bounds ±5, 100 trees), predicting 7,500, medians of 7.
``--baseline DIR`` (another checkout, e.g. a ``git worktree`` of an older commit) runs both, in
4 rounds alternating which goes first, side by side with their ratio.

    python -m bench.release_speed [--quick] [--baseline DIR --label TEXT]
"""

from __future__ import annotations

import statistics
import tracemalloc
import warnings

from bench.common import Run, cli, in_fresh_process, memory_mb, seconds, table, timed

ROUNDS = 4


def worker(job: dict) -> dict:
    import numpy as np
    from sklearn.datasets import make_classification

    from dpviz import DPRandomForestClassifier, PrivateRDTClassifier, load
    from dpviz.domain import Domain, Numeric

    warnings.simplefilter("ignore")
    ds = load("mushroom")
    X, y, n = ds.X, ds.y.to_numpy(), job["repeats"]
    rss = memory_mb()[0]

    rdt = [PrivateRDTClassifier(epsilon=1, n_trees=10, max_depth=11, domain=ds.domain,
                                random_state=seed) for seed in range(3)]
    cold = rdt[0]
    out = {"Private-RDT fit, first in the process": timed(cold.fit, X, y).best,
           "Private-RDT predict, first in the process": timed(cold.predict, X).best}
    warm = rdt[1]
    out["Private-RDT fit"] = timed(warm.fit, X, y, repeat=n).median
    out["Private-RDT predict"] = timed(warm.predict, X, repeat=n).median
    tracemalloc.start()
    accuracy = float(np.mean(rdt[2].fit(X, y).predict(X) == y))
    out |= {"memory: resident after loading the data": rss,
            "memory: peak allocated in one fit + predict (tracemalloc)":
            tracemalloc.get_traced_memory()[1] / 2**20,
            "memory: peak resident (the process, so far)": memory_mb()[1], "accuracy": accuracy,
            "leaves": float(cold.trees_[0].max_leaves()), "rows": len(y)}
    tracemalloc.stop()
    rows, trees = job["forest"]
    Xf, yf = make_classification(n_samples=rows * 5 // 4, n_features=10, random_state=0)
    Xf = np.clip(Xf, -5, 5)
    domain = Domain([Numeric(f"x{j}", -5, 5) for j in range(10)], (0, 1))
    forest = DPRandomForestClassifier(epsilon=1, n_trees=trees, domain=domain, random_state=0)
    out[f"FI forest fit ({rows:,} × 10, {trees} trees)"] = timed(
        forest.fit, Xf[:rows], yf[:rows], repeat=n + 2).median
    out[f"FI forest predict ({rows // 4:,} rows)"] = timed(forest.predict, Xf[rows:],
                                                            repeat=n + 2).median
    return out


def main() -> None:
    args = cli(__doc__, worker, baseline={"help": "another dpviz checkout, timed in the same run"},
               label={"default": "baseline", "help": "the baseline's name in the table"})
    run = Run(args)
    job = {"repeats": 1, "forest": [3_000, 10]} if args.quick else {
        "repeats": 5, "forest": [30_000, 100]}
    mine, theirs = [], []
    for i in range(ROUNDS if args.baseline else 1):  # alternate which goes first
        for where in ([None, args.baseline] if args.baseline else [None])[:: 1 - 2 * (i % 2)]:
            (theirs if where else mine).append(in_fresh_process("release_speed", job,
                                                                dpviz_from=where))
    now = {k: statistics.median(m[k] for m in mine) for k in mine[0]}
    show = {k: seconds if k.startswith(("FI", "Private")) else (lambda v: f"{v:.1f} MB")
            for k in now if k.startswith(("FI", "Private", "memory"))}
    if args.baseline:
        was = {k: statistics.median(t[k] for t in theirs) for k in theirs[0]}
        lines = table(["", args.label, "this version", "ratio (this / baseline)"],
                      [[k, f(was[k]), f(now[k]), f"{now[k] / was[k]:.2f}"]
                       for k, f in show.items() if k in was])
    else:
        lines = table(["", "this version"], [[k, f(now[k])] for k, f in show.items()])
    run.write("release-speed", [
        f"Private-RDT: Mushroom ({int(now['rows']):,} rows), up to {now['leaves']:.2g} leaves per "
        f"tree; accuracy on the training rows {now['accuracy']:.3f}. Medians of "
        f"{job['repeats']} calls (the forest: {job['repeats'] + 2})"
        + (f", then over {ROUNDS} alternating rounds." if args.baseline else "."), "", *lines])


if __name__ == "__main__":
    main()
