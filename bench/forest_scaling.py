"""Worker: FI forest fit time and memory at one data size n (run by run.py, one process per n).

A fresh process per n, so that ``ru_maxrss`` (the process's peak resident
memory) belongs to that n alone. Steps: generate ``make_classification(n, 10
features, all informative)``; record the resident memory; one untimed warm-up
fit on the first 3,000 rows; ``--repeats`` timed fits (perf_counter around
``fit``); then the two input-encoding calls that ``fit`` starts with, timed
alone (``Domain.encode``, ``Domain.encode_labels``) to show their share; last,
one fit under tracemalloc for the peak of the memory allocated during ``fit``
(skipped with ``--no-tracemalloc``).
"""

from __future__ import annotations

import argparse
import tracemalloc

from _measure import median, peak_rss_mb, rss_mb, timed, versions, write_result
from sklearn.datasets import make_classification

from dpviz.domain import Domain, Numeric

try:
    from dpviz import DPRandomForestClassifier
except ImportError:  # not yet exported at the top level
    from dpviz.trees.forest import DPRandomForestClassifier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--bound", type=float, required=True)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--n-trees", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-tracemalloc", action="store_true",
                        help="skip the traced fit (slow when the fit makes millions of objects)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    X, y = make_classification(
        n_samples=args.n, n_features=10, n_informative=10, n_redundant=0,
        random_state=args.seed,
    )
    domain = Domain([Numeric(f"x{j}", -args.bound, args.bound) for j in range(10)], (0, 1))

    def forest(seed: int) -> DPRandomForestClassifier:
        return DPRandomForestClassifier(
            epsilon=args.epsilon, n_trees=args.n_trees, domain=domain, random_state=seed
        )

    rss_with_data = rss_mb()
    forest(0).fit(X[:3000], y[:3000])  # warm-up, untimed
    fit_s = []
    for r in range(args.repeats):
        model = forest(r)
        fit_s.append(timed(model.fit, X, y)[0])
    encode_x_s, codes = timed(lambda: domain.encode(X))
    encode_y_s, labels = timed(lambda: domain.encode_labels(y))
    del codes, labels

    traced_peak_mb = None
    if not args.no_tracemalloc:
        tracemalloc.start()
        forest(0).fit(X, y)
        traced_peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()

    write_result(args.out, {
        "n": args.n,
        "epsilon": args.epsilon,
        "n_trees": args.n_trees,
        "depth": model.depth_,
        "fit_s": fit_s,
        "fit_median_s": median(fit_s),
        "encode_x_s": encode_x_s,
        "encode_y_s": encode_y_s,
        "rss_with_data_mb": rss_with_data,
        "peak_rss_mb": peak_rss_mb(),
        "tracemalloc_fit_peak_mb": traced_peak_mb,
        "data_mb": (X.nbytes + y.nbytes) / 2**20,
        "versions": versions("dpviz", "numpy", "scikit-learn"),
    })


if __name__ == "__main__":
    main()
