"""Worker: Private-RDT on Mushroom (h = 11, 10 trees, ε = 1): fit+predict time and memory.

A fresh process (run by run.py), so that ``ru_maxrss`` is this benchmark's
alone. Steps: ``load("mushroom")`` with its documented public domain; record
the resident memory; the first fit+predict of the process, timed ("cold": the
interpreter and libraries are imported and the data loaded, nothing has run
yet); ``--repeats`` further fit+predict runs with other seeds ("warm"), each
timed with perf_counter around ``fit`` and around ``predict`` on all 8,124
rows; one more run under tracemalloc for the peak of the memory allocated
during fit+predict; then the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import tracemalloc

import numpy as np
from _measure import median, peak_rss_mb, rss_mb, timed, versions, write_result

from dpviz import load

try:
    from dpviz import PrivateRDTClassifier
except ImportError:  # not yet exported at the top level
    from dpviz.trees.rdt import PrivateRDTClassifier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--height", type=int, default=11)
    parser.add_argument("--n-trees", type=int, default=10)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    ds = load("mushroom")
    X, y = ds.X, ds.y.to_numpy()
    rss_with_data = rss_mb()

    def run(seed: int) -> dict[str, float]:
        model = PrivateRDTClassifier(
            epsilon=args.epsilon, n_trees=args.n_trees, max_depth=args.height,
            domain=ds.domain, random_state=seed,
        )
        fit_s, _ = timed(lambda: model.fit(X, y))
        predict_s, pred = timed(lambda: model.predict(X))
        return {
            "seed": seed,
            "fit_s": fit_s,
            "predict_s": predict_s,
            "total_s": fit_s + predict_s,
            "accuracy": float(np.mean(pred == y)),
            "max_leaves": model.trees_[0].max_leaves(),
        }

    runs = [run(seed) for seed in range(1 + args.repeats)]
    tracemalloc.start()
    run(1000)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    warm = runs[1:]
    write_result(args.out, {
        "dataset": ds.name,
        "shape": list(X.shape),
        "height": args.height,
        "n_trees": args.n_trees,
        "epsilon": args.epsilon,
        "cold": runs[0],
        "warm": warm,
        "warm_median_total_s": median([r["total_s"] for r in warm]),
        "warm_median_fit_s": median([r["fit_s"] for r in warm]),
        "warm_median_predict_s": median([r["predict_s"] for r in warm]),
        "max_leaves": runs[0]["max_leaves"],
        "rss_with_data_mb": rss_with_data,
        "peak_rss_mb": peak_rss_mb(),
        "tracemalloc_peak_mb": traced_peak / 2**20,
        "versions": versions("dpviz", "numpy", "pandas", "scikit-learn"),
    })


if __name__ == "__main__":
    main()
