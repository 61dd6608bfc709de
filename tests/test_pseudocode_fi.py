"""The plain FI reference (dpviz.pseudocode.fi, Algorithms 1–2 with numpy randomness) and the fast
estimator (dpviz.trees.forest) release forests with the same law.

Both are sampled on a tiny domain whose exact release law can be listed (a binary attribute and
a numeric one with the rows on the quarter points, so that a split point's quarter fixes every
count); each sample is tested against that law with the exact-law sampling test at a stated
false-alarm rate, and a planted difference (twice the ε) is refused."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from dpviz import mechanisms
from dpviz.audit.exact_laws import false_alarm_bound, power_lower_bound, sampling_findings
from dpviz.data.synthetic import fi_synth
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import NotProvenPrivateWarning
from dpviz.pseudocode import fi, show
from dpviz.trees.forest import DPRandomForestClassifier

FALSE_ALARM = 1e-6  # a correct sampler is refused with at most this probability (union bound)

DOMAIN = Domain([Categorical("a", ("x", "y")), Numeric("z", 0.0, 1.0)], ("0", "1"))
X = pd.DataFrame({"a": ["x", "y", "y", "x"], "z": [0.25, 0.5, 0.75, 0.75]})
Y = pd.Series(["0", "1", "1", "0"])
QUARTERS = 4  # a numeric split point is reported by its quarter of [0, 1]


def _tree_outcome(g: int, p: float | None, labels: tuple[int, ...]) -> tuple:
    """One depth-1 tree: (feature, quarter of the split point or -1, its leaves' labels)."""
    return (g, -1 if p is None else min(int(p * QUARTERS), QUARTERS - 1), *labels)


def _leaf_counts(x: np.ndarray, C: np.ndarray, g: int, quarter: int) -> list[np.ndarray]:
    """The class counts of the two leaves of a root test on feature g (quarter: its split)."""
    left = x[:, g] == 0 if g == 0 else x[:, g] <= quarter / QUARTERS
    return [np.bincount(C[side], minlength=2) for side in (left, ~left)]


def exact_law(epsilon: float, tau: int, disjoint: bool) -> dict[tuple, float]:
    """The exact law of the release of τ depth-1 ROSNAM trees on (X, Y)."""
    x, C = DOMAIN.encode(X), DOMAIN.encode_labels(Y)
    eps = epsilon if disjoint else epsilon / tau
    structures = [(0, -1)] + [(1, q) for q in range(QUARTERS)]
    weights = [0.5] + [0.5 / QUARTERS] * QUARTERS  # feature uniform, split uniform in [0, 1]
    law: dict[tuple, float] = {}
    assignments = itertools.product(range(tau), repeat=len(x)) if disjoint else [None]
    for assignment in assignments:
        weight = tau ** -len(x) if disjoint else 1.0
        per_tree = []
        for t in range(tau):
            rows = np.array(assignment) == t if disjoint else np.ones(len(x), dtype=bool)
            tree = {}
            for (g, q), w in zip(structures, weights, strict=True):
                probs = [mechanisms.report_noisy_max_probabilities(f, epsilon=eps)
                         for f in _leaf_counts(x[rows], C[rows], g, q)]
                for l0, l1 in itertools.product(range(2), repeat=2):
                    tree[(g, q, l0, l1)] = w * probs[0][l0] * probs[1][l1]
            per_tree.append(tree)
        for trees in itertools.product(*(t.items() for t in per_tree)):
            key = tuple(k for k, _ in trees)
            law[key] = law.get(key, 0.0) + weight * math.prod(v for _, v in trees)
    return law


def reference_outcome(seed: int, epsilon: float, tau: int, disjoint: bool) -> tuple:
    x, C = DOMAIN.encode(X), DOMAIN.encode_labels(Y)
    F = fi.build_forest(epsilon, x, tau, DOMAIN, C, d=1, disjoint=disjoint,
                        rng=np.random.default_rng(seed))
    return tuple(_tree_outcome(T.g, T.p, tuple(L.label for L in fi.leaves(T))) for T in F)


def estimator_outcome(seed: int, epsilon: float, tau: int, disjoint: bool) -> tuple:
    model = DPRandomForestClassifier(epsilon=epsilon, n_trees=tau, max_depth=1, domain=DOMAIN,
                                     disjoint=disjoint, random_state=seed).fit(X, Y)
    release = model.export_release()
    # the release's leaves by tree, in tree order (as groupby("tree", sort=True), without
    # pandas' per-group frames: a third of a sample's time)
    by_tree: dict[int, tuple[list[str], list[int]]] = {}
    for tree, path, label in zip(release["tree"].tolist(), release["leaf"].tolist(),
                                 DOMAIN.encode_labels(release["label"]).tolist(), strict=True):
        paths, labels = by_tree.setdefault(tree, ([], []))
        paths.append(path)
        labels.append(label)
    out = []
    for tree in sorted(by_tree):
        paths, labels = by_tree[tree]
        name = paths[0].split(" ")[0]
        if " = " in paths[0]:  # a = x, a = y: the child of each value
            child = [DOMAIN[name].values.index(path.split(" = ")[1]) for path in paths]
            p = None
        else:  # z <= p, z > p
            child = [0 if " <= " in path else 1 for path in paths]
            p = float(paths[0].split(" ")[-1])
        ordered = tuple(label for _, label in sorted(zip(child, labels, strict=True)))
        out.append(_tree_outcome(DOMAIN.index(name), p, ordered))
    return tuple(out)


#: Samples per law: the smallest round number at which the planted bug below is refused with
#: power >= 0.99999 (power_lower_bound: 0.99999 at 1,000; 0.998 at 700).
N_SAMPLES = 1000
CASES = [(1.0, 2, True), (1.0, 2, False)]


@pytest.mark.parametrize(("epsilon", "tau", "disjoint"), CASES)
def test_reference_and_estimator_release_the_exact_law(epsilon, tau, disjoint):
    law = exact_law(epsilon, tau, disjoint)
    assert math.isclose(sum(law.values()), 1.0)
    bound = false_alarm_bound([law, law], n_samples=N_SAMPLES, false_alarm=FALSE_ALARM)
    assert bound <= FALSE_ALARM
    samples = [
        [reference_outcome(s, epsilon, tau, disjoint) for s in range(N_SAMPLES)],
        [estimator_outcome(s, epsilon, tau, disjoint) for s in range(N_SAMPLES)],
    ]
    findings = sampling_findings(samples, [law, law], n_samples=N_SAMPLES,
                                 false_alarm=FALSE_ALARM, names=["reference", "estimator"])
    assert findings == []


def test_the_law_test_refuses_a_planted_difference():
    """A planted bug — every row in every tree at the full ε (the reference with shared rows at
    τε) — tested against the disjoint law at ε: refused, with the stated power."""
    law, planted = exact_law(1.0, 2, True), exact_law(2.0, 2, False)
    power = power_lower_bound([law], [planted], n_samples=N_SAMPLES, false_alarm=FALSE_ALARM)
    assert power > 0.99999
    samples = [reference_outcome(s, 2.0, 2, False) for s in range(N_SAMPLES)]
    assert sampling_findings([samples], [law], n_samples=N_SAMPLES, false_alarm=FALSE_ALARM)


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("mechanism", ["rosnam", "exponential", "smooth_sensitivity"])
def test_majority_label_has_the_mechanisms_law(mechanism):
    """Line 25 on leaves of two and three classes (one empty), against the exact law."""
    cases = [(np.array([3, 7]), 0.5), (np.array([2, 6, 5]), 1.0), (np.array([0, 0, 0]), 1.0)]
    laws = []
    for f, eps in cases:
        if mechanism == "rosnam":
            p = mechanisms.report_noisy_max_probabilities(f, epsilon=eps)
        elif mechanism == "exponential":
            p = mechanisms.exponential_probabilities((f == f.max()).astype(float), epsilon=eps,
                                                     sensitivity=1)
        else:
            p = mechanisms.smooth_sensitivity_label_probabilities(f, epsilon=eps)
        laws.append(dict(enumerate(p)))
    rng = np.random.default_rng(0)
    samples = [[fi.majority_label(f, eps, mechanism, rng) for _ in range(N_SAMPLES)]
               for f, eps in cases]
    assert sampling_findings(samples, laws, n_samples=N_SAMPLES, false_alarm=FALSE_ALARM) == []


def test_smooth_sensitivity_warns():
    with pytest.warns(NotProvenPrivateWarning):
        fi.majority_label(np.array([1, 2]), 1.0, "smooth_sensitivity", np.random.default_rng(0))


def test_full_trees_of_fi_depth_and_disjoint_rows():
    synth = fi_synth("A", n_rows=300, random_state=0)  # 5 continuous features: FI depth 5
    x, C = synth.domain.encode(synth.X), synth.domain.encode_labels(synth.y)
    F = fi.build_forest(1.0, x, 4, synth.domain, C, rng=np.random.default_rng(0))
    assert all(len(fi.leaves(T)) == 2**5 for T in F)
    assert sum(int(L.f.sum()) for T in F for L in fi.leaves(T)) == len(x)  # one tree per row
    votes, predicted = fi.classify(F, x, synth.domain.n_classes)
    assert (votes.sum(axis=1) == 4).all() and predicted.shape == (len(x),)


def test_show_renders_the_paper_procedures():
    for function in (fi.build_forest, fi.build_tree, fi.get_majority_labels, fi.majority_label):
        assert repr(show(function)).startswith("def " + function.__name__)
    assert "BuildForest" in fi.ALGORITHM_1 and "BuildTree" in fi.ALGORITHM_2_BUILD_TREE
    assert "25:" in fi.ALGORITHM_2_GET_MAJORITY_LABELS
