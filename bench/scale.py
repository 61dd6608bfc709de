"""Big fits and predictions (section scale): time, node visits per second and peak memory.

Each case in a fresh interpreter (its peak RSS its own), on synthetic rows of the stated shape:
numeric columns uniform on [0, 1] (public bounds [0, 1]), categorical ones uniform on 8 values,
two balanced classes, ε = 1; and 200,000 Private-RDT trees on the 435 rows of Votes (predicting
them all). Node visits are rows × trees × depth; routing rows alone
(``RandomTree.leaf_keys``) is timed as the best of 3 passes. The compiled kernels are loaded
before any timing, and that load is reported apart.

    python -m bench.scale [--quick] [--only route|private_rdt|forest|votes]
"""

from __future__ import annotations

import time

from bench.common import Run, cli, in_fresh_process, memory_mb, table, timed

KEYS = ("kind", "rows", "columns", "trees", "depth", "predict")
CASES = [(label, dict(zip(KEYS, spec, strict=False)) | (spec[6] if len(spec) > 6 else {}))
         for label, *spec in [
    ("Private-RDT routing alone, compiled descent", "route", 10**6, 20, 10, 10, 0,
     {"engine": "numba"}),
    ("Private-RDT routing alone, compiled descent, 1 thread", "route", 10**6, 20, 10, 10, 0,
     {"engine": "numba", "threads": 1}),
    ("Private-RDT routing alone, numpy (numba not installed)", "route", 10**6, 20, 10, 10, 0,
     {"engine": "numpy"}),
    ("Private-RDT fit, 1,000 trees", "private_rdt", 10**6, 20, 1000, 10, 10_000),
    ("Private-RDT fit at depth 64", "private_rdt", 10**6, 20, 10, 64, 10_000),
    ("Private-RDT on wide data at depth 64", "private_rdt", 10**5, 500, 100, 64, 10_000),
    ("FI forest on wide data at depth 64", "forest", 10**5, 500, 100, 64, 10_000),
    ("FI forest, 2,000 × 500 numeric", "forest", 2_000, 500, 100, 64, 2_000),
    ("FI forest, 2,000 × 500, half categorical", "forest", 2_000, 500, 100, 64, 2_000,
     {"categorical": 250}),
    ("Private-RDT on Votes, many small trees", "votes", 435, 16, 200_000, 8, 435,
     {"categorical": 16})]]


def worker(case: dict) -> dict:
    import numpy as np

    import dpviz.trees.random_tree as rt
    from dpviz.domain import Categorical, Domain, Encoded, Numeric
    from dpviz.trees.forest import DPRandomForestClassifier
    from dpviz.trees.rdt import PrivateRDTClassifier

    rng = np.random.default_rng(0)
    n, k, cat = case["rows"], case["columns"], case.get("categorical", 0)
    domain = Domain([Categorical(f"c{j}", tuple(range(8))) for j in range(cat)]
                    + [Numeric(f"x{j}", 0.0, 1.0) for j in range(k - cat)], classes=(0, 1))
    codes = np.column_stack([rng.integers(0, 8, (n, cat)).astype(float), rng.random((n, k - cat))])
    rt.THREADS = case.get("threads", rt.THREADS)
    out = {}
    if case.get("engine") != "numpy" and rt._compiled() is not None:  # load the kernels first
        start = time.perf_counter()
        top = rt.forest_top([rt.RandomTree(domain, 2, 0)], 100)[0]
        rt.set_engine("numba")
        rt.descend(top, codes[:8], np.zeros(8, np.int64), np.arange(8))
        rt.vote(top, codes[:8], np.zeros(top.frontier_size, np.int64), 2)
        rt.set_engine("auto")
        out["load"] = time.perf_counter() - start
    if case["kind"] == "votes":  # the UCI rows (its Domain), all of them, Fan's depth
        from dpviz.data.uci import load

        votes = load("votes")
        model = PrivateRDTClassifier(epsilon=1.0, n_trees=case["trees"], domain=votes.domain,
                                     random_state=0)
        out["seconds"] = timed(model.fit, votes.X, votes.y).best
        out["visits"] = len(votes.y) * case["trees"] * model.depth_
        out["predict"] = timed(model.predict, votes.X).best
    elif case["kind"] == "route":
        trees = [rt.RandomTree(domain, case["depth"], s) for s in range(case["trees"])]
        rt.set_engine(case["engine"])
        trees[0].leaf_keys(codes)
        out["seconds"] = timed(lambda: [t.leaf_keys(codes) for t in trees], repeat=3).best
        out["visits"] = n * case["trees"] * case["depth"]
    else:
        model = (PrivateRDTClassifier if case["kind"] == "private_rdt"
                 else DPRandomForestClassifier)(epsilon=1.0, n_trees=case["trees"],
                                                max_depth=case["depth"], domain=domain,
                                                random_state=0)
        out["seconds"] = timed(model.fit, Encoded(codes, domain), rng.integers(0, 2, n)).best
        out["visits"] = n * case["trees"] * model.depth_
        if case.get("predict"):
            out["predict"] = timed(model.predict, Encoded(codes[:case["predict"]], domain)).best
    return out | {"peak_mb": memory_mb()[1]}


def main() -> None:
    args = cli(__doc__, worker, only={"help": "the cases of one kind (printed, not written)"})
    args.print |= bool(args.only)
    run, rows, loads = Run(args), [], []
    for label, case in CASES:
        if args.only not in (None, case["kind"]):
            continue
        if args.quick:  # a hundredth of the rows (Votes: all), a tenth of the trees
            case = case | {k: max(case[k] // d, 1) for k, d in
                           (("rows", 100), ("trees", 10), ("predict", 100))
                           if case[k] and (case["kind"] != "votes" or k == "trees")}
        r = in_fresh_process("scale", case, timeout=3600)
        loads += [r["load"]] if "load" in r else []
        shape = (f"{case['categorical']} categorical + {case['columns'] - case['categorical']} "
                 "numeric" if case.get("categorical") else "numeric")
        rows.append([label, f"{case['rows']:,} × {case['columns']} ({shape})",
                     f"{case['trees']:,}", case["depth"], f"{r['seconds']:.1f} s",
                     f"{r['visits'] / r['seconds']:.2g}",
                     f"{r['predict']:.1f} s ({case['predict']:,} rows)" if case["predict"]
                     else "—", f"{r['peak_mb']:,.0f} MB"])
        print(rows[-1], flush=True)
    run.write("scale", [
        "Loading the compiled kernels (numba, from its on-disk cache), once per process before "
        f"the timing: {min(loads, default=0):.1f}–{max(loads, default=0):.1f} s.", "",
        *table(["case", "data", "trees", "depth", "fit (or routing)", "node visits/s", "predict",
                "peak RSS"], rows, "llrrrrrr")])


if __name__ == "__main__":
    main()
