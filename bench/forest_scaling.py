"""FI forest fit time and memory against n (section forest-scaling).

Each n in a fresh single-threaded process (its peak RSS its own): make_classification(n, 10
informative features), bounds ±5, 100 trees, ε = 1; one untimed warm-up fit on 3,000 rows, the
median of the repeated fits, the input encoding that fit begins with timed alone, and one fit
under tracemalloc (up to n = 300,000: above, tracing every object would dominate the run).

    python -m bench.forest_scaling [--quick]
"""

from __future__ import annotations

import statistics
import tracemalloc

from bench.common import Run, cli, in_fresh_process, memory_mb, seconds, table, timed
from bench.forest_peer import BOUND, N_FEATURES, THREADS

FULL = {3_000: 5, 30_000: 5, 300_000: 3, 3_000_000: 3}  # n: repeats
QUICK = {3_000: 1, 30_000: 1}
TRACE_MAX_N = 300_000


def worker(job: dict) -> dict:
    from sklearn.datasets import make_classification

    from dpviz import DPRandomForestClassifier
    from dpviz.domain import Domain, Numeric

    n = job["n"]
    X, y = make_classification(n_samples=n, n_features=N_FEATURES, n_informative=N_FEATURES,
                               n_redundant=0, random_state=0)
    domain = Domain([Numeric(f"x{j}", -BOUND, BOUND) for j in range(N_FEATURES)], (0, 1))

    def fit(rows: int = n, seed: int = 0) -> None:
        DPRandomForestClassifier(1.0, n_trees=100, domain=domain, random_state=seed).fit(
            X[:rows], y[:rows])

    rss_with_data = memory_mb()[0]
    fit(3_000)  # warm-up
    fits = [timed(fit, n, seed).best for seed in range(job["repeats"])]
    out = {"n": n, "fit_s": fits, "encode_x_s": timed(domain.encode, X).best,
           "encode_y_s": timed(domain.encode_labels, y).best, "traced_mb": None,
           "data_mb": (X.nbytes + y.nbytes) / 2**20, "rss_with_data_mb": rss_with_data}
    if n <= TRACE_MAX_N:
        tracemalloc.start()
        fit()
        out["traced_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return out | {"peak_rss_mb": memory_mb()[1]}


def main() -> None:
    args = cli(__doc__, worker)
    run = Run(args, env=THREADS)
    rows = [in_fresh_process("forest_scaling", {"n": n, "repeats": r}, env=THREADS, timeout=1800)
            for n, r in (QUICK if args.quick else FULL).items()]
    lines = table(
        ["n", "fit (median)", "repeats", "per 1,000 rows", "encode X", "encode y",
         "encoding share", "data", "RSS with data", "peak RSS", "peak RSS − RSS with data",
         "peak allocated in fit"],
        [[f"{r['n']:,}", seconds(fit := statistics.median(r["fit_s"])), len(r["fit_s"]),
          f"{1e6 * fit / r['n']:.2f} ms", seconds(r["encode_x_s"]), seconds(r["encode_y_s"]),
          f"{100 * (r['encode_x_s'] + r['encode_y_s']) / fit:.0f} %",
          *(f"{r[k]:.0f} MB" for k in ("data_mb", "rss_with_data_mb", "peak_rss_mb")),
          f"{r['peak_rss_mb'] - r['rss_with_data_mb']:.0f} MB",
          "not traced" if r["traced_mb"] is None else f"{r['traced_mb']:.0f} MB"] for r in rows])
    a, b = rows[0], rows[-1]
    lines += ["", f"From n = {a['n']:,} to {b['n']:,} ({b['n'] / a['n']:,.0f}× the rows) the fit "
              f"takes {statistics.median(b['fit_s']) / statistics.median(a['fit_s']):,.0f}× as "
              "long."]
    run.write("forest-scaling", lines)


if __name__ == "__main__":
    main()
