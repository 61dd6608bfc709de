"""Worker: fit one DP random forest implementation on the prepared splits (run by run.py).

Runs under the project's .venv (``--impl dpviz``) or under bench/.venv-diffprivlib
(``--impl diffprivlib``). Both read the same train/test splits from ``--data``
(an .npz written by run.py, so scikit-learn 1.8 vs 1.9 cannot make the data
differ) and are timed the same way: per data seed one untimed warm-up fit,
then for every ε ``--repeats`` fits (model seeds ``100 * data_seed + r``),
each timed with perf_counter around ``fit`` alone and around ``predict`` on
the test split. Bounds are the public ``[-bound, bound]`` per feature given on
the command line, never derived from the data.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from _measure import timed, versions, write_result


def dpviz_builder(bound: float, n_features: int) -> Callable[[float, int, int], Any]:
    from dpviz.domain import Domain, Numeric

    try:
        from dpviz import DPRandomForestClassifier
    except ImportError:  # not yet exported at the top level
        from dpviz.trees.forest import DPRandomForestClassifier

    domain = Domain([Numeric(f"x{j}", -bound, bound) for j in range(n_features)], (0, 1))

    def build(epsilon: float, n_trees: int, seed: int) -> Any:
        return DPRandomForestClassifier(
            epsilon=epsilon, n_trees=n_trees, domain=domain, random_state=seed
        )

    return build


def diffprivlib_builder(bound: float, n_features: int) -> Callable[[float, int, int], Any]:
    from diffprivlib.models import RandomForestClassifier

    lower, upper = np.full(n_features, -bound), np.full(n_features, bound)

    def build(epsilon: float, n_trees: int, seed: int) -> Any:
        # max_depth left at diffprivlib's default (5); n_jobs=1 like dpviz (single thread)
        return RandomForestClassifier(
            n_estimators=n_trees,
            epsilon=epsilon,
            bounds=(lower, upper),
            classes=[0, 1],
            n_jobs=1,
            random_state=seed,
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
    parser.add_argument("--n-trees", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    builders = {"dpviz": dpviz_builder, "diffprivlib": diffprivlib_builder}
    runs, warned = [], set()
    for path in args.data:
        data = np.load(path)
        X_train, y_train = data["X_train"], data["y_train"]
        X_test, y_test = data["X_test"], data["y_test"]
        data_seed = int(data["seed"])
        build = builders[args.impl](args.bound, X_train.shape[1])
        build(1.0, args.n_trees, 0).fit(X_train, y_train)  # warm-up, untimed
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
                    "n_train": len(y_train),
                    "n_test": len(y_test),
                })
    packages = ["dpviz"] if args.impl == "dpviz" else ["diffprivlib"]
    write_result(args.out, {
        "impl": args.impl,
        "versions": versions(*packages, "numpy", "scikit-learn"),
        "warnings": sorted(warned),
        "runs": runs,
    })


if __name__ == "__main__":
    main()
