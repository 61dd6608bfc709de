"""Notebook 05's exercises (Fletcher & Islam's forest, 2021 addendum), registered on import.

``05.1`` argues why one independent tree draw per row gives parallel composition and FI's
equal split does not; ``05.2`` and ``05.3`` implement a leaf's label by ROSNAM and by
permute-and-flip; ``05.4`` audits the equal split (worst loss > ε); ``05.5`` predicts the
explorer's accuracy on Nursery. Reference solutions: ``tests/test_fi_exercises.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpviz.errors import InvalidParameterError
from dpviz.explore.fi import explorer_depth, forest_accuracy
from dpviz.mechanisms import report_noisy_max_probabilities
from dpviz.ui.exercises import Argument, AuditTask, Implementation, Prediction, Step, register
from dpviz.validation import check_epsilon

__all__ = [
    "EQUAL_SPLIT_AUDIT", "EQUAL_SPLIT_MAX_LOSS", "NURSERY_PREDICTION", "PERMUTE_AND_FLIP",
    "PREDICTION_SETTING", "ROSNAM_LABEL", "SPLIT_ARGUMENT", "equal_split_law", "equal_split_loss",
    "leaf_label_law", "nursery_accuracy",
]


def leaf_label_law(counts: Sequence[int], epsilon: float) -> dict[int, float]:
    """Exact law of a leaf's ROSNAM label: {class index: probability}."""
    p = report_noisy_max_probabilities(np.asarray(counts), epsilon=check_epsilon(epsilon))
    return {c: float(q) for c, q in enumerate(p)}


def equal_split_law(rows: Sequence[int], epsilon: float = 1.0) -> dict[int, float]:
    """Exact law of ``2·label₁ + label₂`` for FI's equal split over two one-leaf trees.

    ``rows``: class labels 0/1, shuffled and cut by ``np.array_split`` (the first part takes
    the extra row); each part's ROSNAM label at ε. The first part's class-1 rows are
    hypergeometric.
    """
    eps = check_epsilon(epsilon)
    labels = [int(r) for r in rows]
    if any(r not in (0, 1) for r in labels):
        raise InvalidParameterError(f"rows must be class labels 0 or 1, got {tuple(rows)!r}")
    n, ones, law = len(labels), sum(labels), np.zeros(4)
    size = (n + 1) // 2  # the first part: a uniformly random subset of this many rows
    for k in range(max(0, size - (n - ones)), min(size, ones) + 1):  # its rows of class 1
        weight = math.comb(ones, k) * math.comb(n - ones, size - k) / math.comb(n, size)
        first = np.array([size - k, k])
        second = np.array([n - ones, ones]) - first
        p1 = report_noisy_max_probabilities(first, epsilon=eps)
        p2 = report_noisy_max_probabilities(second, epsilon=eps)
        law += weight * np.outer(p1, p2).ravel()
    return {k: float(p) for k, p in enumerate(law)}


def equal_split_loss(rows: Sequence[int], rows_prime: Sequence[int],
                     epsilon: float = 1.0) -> float:
    """Exact privacy loss max_o |log P(o) / P′(o)| of :func:`equal_split_law` on two data sets."""
    p, q = equal_split_law(rows, epsilon), equal_split_law(rows_prime, epsilon)
    return max(abs(math.log(p[o] / q[o])) for o in p)


#: The largest exact loss of :func:`equal_split_law` at ε = 1 over neighbours (checked over
#: data sets of up to 20 rows in ``tests/test_fi_exercises.py``).
EQUAL_SPLIT_MAX_LOSS = equal_split_loss((1, 1, 1), (1, 1, 1, 0))

#: The explorer setting of exercise 05.5 (depth 0: FI's depth for the data set).
PREDICTION_SETTING = {"dataset": "Nursery", "epsilon": 0.1, "depth": 0, "n_trees": 50,
                      "mechanism": "rosnam"}


def nursery_accuracy(seed: int = 0) -> float:
    """Accuracy of the explorer's forest ``seed`` at :data:`PREDICTION_SETTING`."""
    s = PREDICTION_SETTING
    return forest_accuracy(s["dataset"], s["epsilon"], explorer_depth(s["dataset"], s["depth"]),
                           s["n_trees"], s["mechanism"], seed)


SPLIT_ARGUMENT = Argument(
    claim="dpviz's forest sends each row to a tree drawn uniformly for that row, independently "
    "of the other rows and of the noise, and releases every leaf's label by ROSNAM at ε: the "
    "release is ε-DP (add/remove neighbours). FI's equal split (shuffle, cut into τ equal "
    "parts) does not get this proof.",
    steps=(
        Step("D′ is D plus one row r. Pair the two runs so that every row of D draws the same "
             "tree in both. Given these draws, whose rows differ between D and D′?",
             {"a": "every tree's: the parts change size",
              "b": "only the tree T that r drew, by the row r",
              "c": "no tree's: one row is lost among thousands"},
             "b",
             {"a": "nothing fixes the part sizes here: each row's tree is its own draw, so "
                   "the other rows stay where they are",
              "c": "r is counted in its leaf of the tree it drew: that leaf's counts change"}),
        Step("Fix T = t. Why does any set of releases have probability within a factor e^ε on "
             "D and D′?",
             {"a": "all leaves of all trees are released at ε, and the τ trees compose to τε, "
                   "which the forest divides by τ",
              "b": "the trees are drawn from the public domain",
              "c": "one leaf of tree t has counts that differ by one row; its label is ROSNAM "
                   "at ε; every other leaf has the same counts and independent noise"},
             "c",
             {"a": "no ε is divided by τ in the disjoint scheme, and composition only charges "
                   "releases whose input changes",
              "b": "a free structure says nothing about the labels, which read the rows"}),
        Step("T is random and secret. How does the bound for each t give one for the forest?",
             {"a": "P′(S) = Σ_t P(T = t)·P′(S | T = t) ≤ Σ_t P(T = t)·e^ε·P(S) = e^ε·P(S): r's "
                   "draw is independent of the rest, and on D the release does not depend on "
                   "it (the same with D and D′ swapped)",
              "b": "it cannot: T must be published with the release",
              "c": "add the bounds over the τ possible trees: τε"},
             "a",
             {"b": "the assignment is a curator secret; the release is a mixture over it, and "
                   "a mixture of laws each within e^ε of P is itself within e^ε of P",
              "c": "only one t happens: the law on D′ is an average over t, not a "
                   "composition of τ releases"}),
        Step("Equal split: shuffle, cut into τ parts of equal size. Keep every old row's place "
             "in the shuffle and insert r. What happens to the parts?",
             {"a": "only r's part changes",
              "b": "nothing, since the rows are shuffled anyway",
              "c": "each part after r's place hands one row on to the next: up to τ parts "
                   "differ, so the premise of parallel composition fails for this pairing"},
             "c",
             {"a": "the sizes must stay equal, so the cut points move; run "
                   "fi.assignment_changes and look at the rows that move",
              "b": "the shuffle is the same for the old rows; what moves are the cut points"}),
        Step("So what would a proof for the equal split need?",
             {"a": "nothing: one bad pairing shows that the equal split is not private",
              "b": "a coupling: pair each split of D′ with a split of D, with the right "
                   "probabilities, so that paired splits differ in few parts; bound each pair "
                   "and average — the ε it yields need not be the claimed one",
              "c": "nothing: disjoint parts are always parallel composition"},
             "b",
             {"a": "privacy is about the two output laws; one pairing that differs in many "
                   "parts proves nothing, another may differ in few",
              "c": "parallel composition needs neighbours that differ in one part, and step 4 "
                   "shows the parts are not fixed"}),
    ),
    conclusion="With one independent draw per row, a neighbour changes one leaf of one tree "
    "whatever the other rows drew, and averaging over the secret draw keeps the factor e^ε: "
    "parallel composition applies directly. An equal split ties the rows together through "
    "the cut points, so its proof must couple the two random splits, and the ε it gives "
    "may be larger than claimed — exercise 05.4 measures it.",
)

ROSNAM_LABEL = Implementation(
    cases=(
        {"counts": (3, 7), "epsilon": 0.5},
        {"counts": (5, 10), "epsilon": 0.1},
        {"counts": (2, 6, 5), "epsilon": 1.0},
        {"counts": (0, 0, 0), "epsilon": 1.0},
    ),
    exact=leaf_label_law, sampler=True, n_samples=10_000,
    hint="one independent noise draw per class, never negative; which scale may the noise "
    "have when every count can only grow by one (notebook 01 §0, docs/privacy.md §1)? Return "
    "the position of the largest noisy count, an int, not the count itself",
)

PERMUTE_AND_FLIP = Implementation(
    cases=(
        {"counts": (3, 7), "epsilon": 0.5},
        {"counts": (2, 6, 5), "epsilon": 1.0},
        {"counts": (0, 0, 0), "epsilon": 1.0},
    ),
    exact=leaf_label_law, sampler=True, n_samples=10_000,
    hint="visit the classes in a fresh random order each draw; a class with the largest count "
    "must always be accepted; the acceptance probability must fall by the same factor per "
    "missing row as ROSNAM's odds do at this ε — compare both on counts (0, 1)",
)

EQUAL_SPLIT_AUDIT = AuditTask(
    cases=((1,), (1, 0), (0, 0, 1), (1, 1, 0, 1, 0)), exact=equal_split_law, epsilon=1.0,
    violation=True, max_loss=EQUAL_SPLIT_MAX_LOSS, n_samples=10_000,
    hint="reread the recipe: shuffle with rng.permutation, cut with np.array_split(rows, 2) "
    "(the first tree takes the extra row), one ROSNAM label at ε = 1 per tree from its part's "
    "class counts (np.bincount(part, minlength=2)); return the n values 2·label₁ + label₂ as "
    "an array",
)

NURSERY_PREDICTION = Prediction(
    compute=nursery_accuracy, tolerance=0.06, seeds=(0, 1, 2), spread_factor=1.0,
    hint="at ε = 0.1 each leaf's noise has scale 10; how many of the 11 460 training rows does "
    "one leaf of one tree hold when each tree gets a fiftieth of them and has hundreds of "
    "leaves? If most labels are close to random draws among Nursery's five classes, what is "
    "the vote of 50 such trees worth?",
)

register({"05.1": SPLIT_ARGUMENT, "05.2": ROSNAM_LABEL, "05.3": PERMUTE_AND_FLIP,
          "05.4": EQUAL_SPLIT_AUDIT, "05.5": NURSERY_PREDICTION})
