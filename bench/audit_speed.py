"""The audit engine's speed (section audit): sampling, catching the FI 2017 flaw, whole estimators.

Sampling: each target drawing 10^6 outputs per call at leaf counts (7, 3), ε = 1 (median of 5).
The flaw: a direct audit of the smooth-sensitivity label on (1, 0) vs (2, 0), and a neighbour
search (10^4 samples per candidate pair, 10^5 fresh ones on the best). Whole estimators: trainings
per second on 20 rows of 3 binary attributes, predicting a canary (the best of 3 calls), and a tiny
fit: Private-RDT (1 tree, depth 3) on 6 rows of Votes, as an array and as a DataFrame (CPU time).

    python -m bench.audit_speed [--quick]
"""

from __future__ import annotations

import numpy as np

from bench.common import Run, cli, seconds, table, timed
from dpviz.audit import targets
from dpviz.audit.engine import audit, estimator_mechanism, leaf_count_neighbours, search_neighbours
from dpviz.data.uci import load
from dpviz.domain import Categorical, Domain
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.rdt import PrivateRDTClassifier


def main() -> None:
    args = cli(__doc__)
    run = Run(args)
    q = 10 if args.quick else 1  # quick: a tenth of the samples
    rng, n = np.random.default_rng(0), 1_000_000 // q
    counts = np.array([7, 3])
    sampling = [[name, f"{n / timed(mech, counts, n, rng, repeat=5).median / 1e6:.1f} M/s"]
                for name, mech in [
        ("FI forest leaf label (ROSNAM, shipped NoisyLeafLabels)", targets.leaf_label(1.0)),
        ("ROSNAM (mechanisms.report_noisy_max)", targets.report_noisy_max_choice(1.0)),
        ("Private-RDT leaf vector (the shipped NoisyLeafCounts release)", targets.leaf_vector(1.0)),
        ("FI 2017 smooth-sensitivity label", targets.smooth_sensitivity_leaf_label(1.0))]]
    flaw = []
    for eps, grid in [(1.0, (1, 2, 3, 5, 10)), (0.5, (1, 2, 3, 5, 10)),
                      (0.1, tuple(range(1, 100, 3)))]:
        t = timed(search_neighbours, targets.smooth_sensitivity_leaf_label(eps),
                  leaf_count_neighbours(grid), epsilon=eps, n_search=10_000 // q,
                  n_samples=100_000 // q)
        flaw.append([f"{eps:g}", f"{len(grid) * 4 + 1} pairs", t.result.neighbours,
                     f"{t.result.epsilon_lower:.3g}", "rejected" if t.result.reject
                     else "not rejected", seconds(t.best)])
    direct = timed(audit, targets.smooth_sensitivity_leaf_label(1.0), np.array([1, 0]),
                   np.array([2, 0]), epsilon=1.0, n_samples=100_000 // q)
    domain = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
    X = rng.choice(["0", "1"], (20, 3)).astype(object)
    y = rng.choice(["n", "y"], 20).astype(object)
    canary, fits = np.array([["1", "1", "1"]], dtype=object), 2000 // q
    throughput = []
    for name, model in [
        ("Private-RDT (3 trees)", lambda s: PrivateRDTClassifier(
            epsilon=1.0, n_trees=3, domain=domain, random_state=s)),
        ("FI forest (5 trees, depth 3)", lambda s: DPRandomForestClassifier(
            epsilon=1.0, n_trees=5, max_depth=3, domain=domain, random_state=s))]:
        s = timed(estimator_mechanism(model, canary), (X, y), fits, rng, repeat=3).best
        throughput.append([name, f"{fits / s:,.0f} trainings/s",
                           f"{2 * 10_000 * s / fits:.0f} s"])
    votes = load("votes")
    rows, labels = votes.X.iloc[:6], votes.y.iloc[:6].to_numpy()
    tiny = []
    for kind, rows_as in (("a numpy array", rows.to_numpy()), ("a DataFrame", rows)):
        t = timed(lambda X=rows_as: [PrivateRDTClassifier(
            epsilon=1.0, n_trees=1, max_depth=3, domain=votes.domain, random_state=s).fit(X, labels)
            for s in range(fits)], repeat=3)
        tiny.append([kind, f"{min(t.cpu) / fits * 1e3:.2f} ms", f"{t.best / fits * 1e3:.2f} ms"])
    run.write("audit", [
        f"Sampling ({n:,} outputs per call, leaf counts (7, 3), ε = 1; median of 5 calls):", "",
        *table(["target", "samples per second"], sampling),
        "", f"The FI 2017 flaw, direct audit at ε = 1 on (1, 0) vs (2, 0), {100_000 // q:,} "
        f"samples per neighbour: {direct.result.summary()}, in {seconds(direct.best)}.", "",
        f"Neighbour search ({10_000 // q:,} samples per candidate pair, then {100_000 // q:,} "
        "fresh samples on the best):", "",
        *table(["claimed ε", "candidates", "neighbours found", "ε lower bound",
                "hypothesis ε ≤ claimed", "time"], flaw, "lllrlr"), "",
        f"Whole-estimator audits ({fits:,} trainings per call, the best of 3 calls):", "",
        *table(["estimator", "throughput", "time for 10^4 trainings per neighbour"], throughput),
        "", f"A tiny fit: Private-RDT (ε = 1, 1 tree, depth 3) on 6 rows of Votes (16 categorical "
        f"attributes), the best of 3 calls of {fits:,} fits:", "",
        *table(["rows given as", "CPU time per fit", "wall time per fit"], tiny),
    ])


if __name__ == "__main__":
    main()
