"""Worker: fit one DP random forest implementation on the prepared splits (run by run.py).

Runs under the project's .venv (``--impl dpviz``) or under bench/.venv-diffprivlib
(``--impl diffprivlib``). Both read the same train/test splits from ``--data``
(an .npz written by run.py, so scikit-learn 1.8 vs 1.9 cannot make the data
differ) and are timed the same way: per data seed one untimed warm-up fit and
predict (its predict time is recorded as ``cold_predict_s``: for dpviz it
includes importing numba and loading its compiled kernel, once per process),
then for every ε ``--repeats`` fits (model seeds ``100 * data_seed + r``),
each timed with perf_counter around ``fit`` alone and around ``predict`` on
the test split. Bounds are the public ``[-bound, bound]`` per feature given on
the command line (``--bounds public``, the default), or — only for the
accuracy comparison that reproduces the issue's calibration — each feature's
range in the training rows (``--bounds data``), which is what diffprivlib
itself uses when it is given no bounds (with a PrivacyLeakWarning): a leak in
practice, applied identically to both libraries here. ``--max-depth`` overrides
each library's default depth (dpviz: ``fletcher_islam_depth``; diffprivlib: 5).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from _measure import timed, versions, write_result

Builder = Callable[[float, int, int], Any]


def dpviz_builder(lower: np.ndarray, upper: np.ndarray, max_depth: int | None) -> Builder:
    from dpviz.domain import Domain, Numeric

    try:
        from dpviz import DPRandomForestClassifier
    except ImportError:  # not yet exported at the top level
        from dpviz.trees.forest import DPRandomForestClassifier

    domain = Domain([Numeric(f"x{j}", float(lower[j]), float(upper[j])) for j in range(len(lower))],
                    (0, 1))

    def build(epsilon: float, n_trees: int, seed: int) -> Any:
        return DPRandomForestClassifier(
            epsilon=epsilon, n_trees=n_trees, max_depth=max_depth, domain=domain,
            random_state=seed,
        )

    return build


def diffprivlib_builder(lower: np.ndarray, upper: np.ndarray, max_depth: int | None) -> Builder:
    from diffprivlib.models import RandomForestClassifier

    depth = {} if max_depth is None else {"max_depth": max_depth}  # default: 5

    def build(epsilon: float, n_trees: int, seed: int) -> Any:
        # n_jobs=1 like dpviz (single thread)
        return RandomForestClassifier(
            n_estimators=n_trees,
            epsilon=epsilon,
            bounds=(lower, upper),
            classes=[0, 1],
            n_jobs=1,
            random_state=seed,
            **depth,
        )

    return build


def depth_of(model: Any) -> int:
    return int(getattr(model, "depth_", None) or model.max_depth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--impl", choices=["dpviz", "diffprivlib"], required=True)
    parser.add_argument("--data", nargs="+", required=True, help=".npz files, one per data seed")
    parser.add_argument("--epsilons", type=float, nargs="+", required=True)
    parser.add_argument("--bound", type=float, required=True)
    parser.add_argument("--bounds", choices=["public", "data"], default="public")
    parser.add_argument("--max-depth", type=int, default=None)
    parser.add_argument("--n-trees", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    builders = {"dpviz": dpviz_builder, "diffprivlib": diffprivlib_builder}
    runs, warned, cold_predict_s = [], set(), []
    for path in args.data:
        data = np.load(path)
        X_train, y_train = data["X_train"], data["y_train"]
        X_test, y_test = data["X_test"], data["y_test"]
        data_seed = int(data["seed"])
        if args.bounds == "public":
            lower = np.full(X_train.shape[1], -args.bound)
            upper = np.full(X_train.shape[1], args.bound)
        else:
            lower, upper = X_train.min(axis=0), X_train.max(axis=0)
        build = builders[args.impl](lower, upper, args.max_depth)
        warm = build(1.0, args.n_trees, 0).fit(X_train, y_train)  # warm-up, untimed
        cold_predict_s.append(timed(warm.predict, X_test)[0])  # first predict in the process
        for epsilon in args.epsilons:
            for r in range(args.repeats):
                model = build(epsilon, args.n_trees, 100 * data_seed + r)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    fit_s, _ = timed(model.fit, X_train, y_train)
                warned |= {f"{w.category.__name__}: {w.message}" for w in caught}
                predict_s, pred = timed(model.predict, X_test)
                runs.append({
                    "data_seed": data_seed,
                    "model_seed": 100 * data_seed + r,
                    "epsilon": epsilon,
                    "fit_s": fit_s,
                    "predict_s": predict_s,
                    "accuracy": float(np.mean(np.asarray(pred) == y_test)),
                    "depth": depth_of(model),
                    "bounds": args.bounds,
                    "n_train": len(y_train),
                    "n_test": len(y_test),
                })
    packages = ["dpviz", "numba"] if args.impl == "dpviz" else ["diffprivlib"]
    write_result(args.out, {
        "impl": args.impl,
        "versions": versions(*packages, "numpy", "scikit-learn"),
        "warnings": sorted(warned),
        "runs": runs,
        "cold_predict_s": cold_predict_s,
    })


if __name__ == "__main__":
    main()
