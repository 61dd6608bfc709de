"""Predict time of wide data (issue 15): the FI forest with its default settings on 500 attributes.

FI's depth rule (Theorem 2 + ⌊r/2⌋) gives depth 348 on 500 continuous attributes; since issue 15
every default depth is capped at ``dpviz.trees.random_tree.MAX_DEPTH`` (64), and the random trees
keep each node's numeric path rather than per-row ranges. Measured: fit on 2,000 × 500 rows
(``make_classification``, public bounds ±5), 100 trees, ε = 1, then predict 2,000 other rows;
median of 3 calls after a warm-up. Bar: predict under 5 s. Writes its section of
docs/benchmarks.md.

    .venv/bin/python bench/predict_scale.py            (also run by `make bench`)
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import machine, update_doc

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def main() -> None:
    from sklearn.datasets import make_classification

    from dpviz import DPRandomForestClassifier
    from dpviz.domain import Domain, Numeric

    warnings.simplefilter("ignore")
    X, y = make_classification(n_samples=4_000, n_features=500, n_informative=20, random_state=0)
    X = np.clip(X, -5, 5)
    domain = Domain([Numeric(f"x{j}", -5, 5) for j in range(500)], (0, 1))
    forest = DPRandomForestClassifier(1.0, domain=domain, random_state=0)
    start = time.perf_counter()
    forest.fit(X[:2000], y[:2000])
    fit_s = time.perf_counter() - start
    forest.predict(X[2000:2100])  # warm-up
    times = []
    for _ in range(3):
        start = time.perf_counter()
        predicted = forest.predict(X[2000:])
        times.append(time.perf_counter() - start)
    predict_s = statistics.median(times)
    accuracy = float(np.mean(predicted == y[2000:]))
    m = machine()
    body = "\n".join([
        "## Wide data: FI forest predict on 2,000 × 500 (issue 15)",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {m['CPU']}, {m['cores']}; "
        "reproduce with `make bench` (or `.venv/bin/python bench/predict_scale.py`).",
        "",
        "FI forest with its default settings (100 trees, depth rule capped at MAX_DEPTH), "
        "fit on 2,000 × 500 numeric rows, then predict 2,000 rows (median of 3). "
        "Bar: predict < 5 s. "
        "Before issue 15 the rule gave depth 348 and predict took about 339 s (one run, "
        "measured once during the change; not repeated here).",
        "",
        "| depth | fit | predict 2,000 rows | < 5 s | accuracy |",
        "|---|---|---|---|---|",
        f"| {forest.depth_} | {fit_s:.2f} s | {predict_s:.2f} s | "
        f"{'met' if predict_s < 5 else '**not met**'} | {accuracy:.3f} |",
    ])
    update_doc(DOC, "predict-scale", body)
    print(body)


if __name__ == "__main__":
    main()
