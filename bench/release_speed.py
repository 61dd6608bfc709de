"""Fit and predict time of the two lazy-release estimators — the hot paths of the keyed noise.

FI forest: 30,000 × 10 synthetic rows (make_classification, public bounds ±5), 100 trees,
predict 7,500 rows. Private-RDT: all of Mushroom, height 11, 10 trees, predict every row.
Medians of repeated runs. With ``--baseline DIR`` the same timings are taken, in the same
run, for another checkout of dpviz (``PYTHONPATH=DIR``, e.g. a ``git worktree`` of an older
commit) and reported side by side as ratios. Writes its section of docs/benchmarks.md.

    .venv/bin/python bench/release_speed.py [--baseline DIR --label TEXT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
ROUNDS = 4  # alternate the two versions this many times; report the median of the medians


def median_ms(f, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e3)


def measure() -> dict[str, float]:
    """The four timings (ms) of the dpviz on the import path."""
    from sklearn.datasets import make_classification

    from dpviz import DPRandomForestClassifier, PrivateRDTClassifier, load
    from dpviz.domain import Domain, Numeric

    warnings.simplefilter("ignore")
    X, y = make_classification(n_samples=37_500, n_features=10, random_state=0)
    X = np.clip(X, -5, 5)
    train, test = slice(0, 30_000), slice(30_000, None)
    domain = Domain([Numeric(f"x{j}", -5, 5) for j in range(10)], (0, 1))
    forest = DPRandomForestClassifier(epsilon=1, n_trees=100, domain=domain, random_state=0)
    mushroom = load("mushroom")
    rdt = PrivateRDTClassifier(epsilon=1, n_trees=10, max_depth=11, domain=mushroom.domain,
                               random_state=0)
    return {
        "FI forest fit (30,000 × 10, 100 trees)": median_ms(
            lambda: forest.fit(X[train], y[train]), 7),
        "FI forest predict (7,500 rows)": median_ms(lambda: forest.predict(X[test]), 7),
        "Private-RDT fit (Mushroom, h = 11, 10 trees)": median_ms(
            lambda: rdt.fit(mushroom.X, mushroom.y), 5),
        "Private-RDT predict (8,124 rows)": median_ms(lambda: rdt.predict(mushroom.X), 5),
    }


def measure_in(path: str | None) -> dict[str, float]:
    """``measure()`` in a fresh interpreter importing dpviz from ``path`` (None: this one)."""
    env = dict(os.environ)
    env.setdefault("DPVIZ_DATA", str(DOC.parent.parent / "data"))
    if path is not None:
        env["PYTHONPATH"] = str(path)
    out = subprocess.run([sys.executable, __file__, "--json"], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="measure and print JSON (worker)")
    parser.add_argument("--baseline", help="another dpviz checkout to time in the same run")
    parser.add_argument("--label", default="baseline", help="the baseline's name in the table")
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure()))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run import machine, update_doc

    rounds = ROUNDS if args.baseline else 1
    mine, theirs = [], []
    for i in range(rounds):  # alternate (and swap the order), so that drift hits both alike
        if args.baseline and i % 2:
            theirs.append(measure_in(args.baseline))
        mine.append(measure_in(None))
        if args.baseline and not i % 2:
            theirs.append(measure_in(args.baseline))
    names = list(mine[0])
    now = {k: float(np.median([m[k] for m in mine])) for k in names}
    info = machine()
    head = (f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {info['CPU']}, "
            f"{info['cores']} cores; reproduce with `.venv/bin/python bench/release_speed.py`"
            + (f" `--baseline <checkout of {args.label}>`" if args.baseline else "")
            + ". Median of 5-7 calls" + (f", median over {rounds} alternating rounds"
                                         if args.baseline else "") + ".")
    if args.baseline:
        before = {k: float(np.median([t[k] for t in theirs])) for k in names}
        rows = [f"| {k} | {before[k]:.1f} ms | {now[k]:.1f} ms | {now[k] / before[k]:.2f} |"
                for k in names]
        table = [f"| | {args.label} | this version | ratio |", "|---|---|---|---|", *rows]
    else:
        table = ["| | this version |", "|---|---|", *(f"| {k} | {now[k]:.1f} ms |" for k in names)]
    body = "\n".join([
        "## Lazy releases: fit and predict with secret-keyed noise (issue 11)",
        "",
        head,
        "",
        "Since issue 11 the noise of every leaf no training row reached comes from SipHash-2-4 "
        "under a secret key (one call per leaf, expanded by SplitMix64), and visited leaves "
        "store noisy values drawn at fit time.",
        "",
        *table,
    ])
    update_doc(DOC, "release-speed", body)
    print(body)


if __name__ == "__main__":
    main()
