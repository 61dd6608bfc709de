"""Notebook 03's exercises (FS, private ID3), registered on import.

``03.1`` argues the budget split ε = B/((2+n)d + 2); ``03.2`` implements DiffPID3's split
probabilities; ``03.3`` audits the root split, whose true loss is at most ε/2; ``03.4``
predicts SuLQ-ID3's accuracy at B = 2. Reference solutions: ``tests/test_fs_exercises.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dpviz.experiments.fs_runs import explorer_point
from dpviz.mechanisms import exponential_probabilities
from dpviz.pseudocode.fs import tau
from dpviz.trees.id3_quality import get_criterion, q_max, sensitivity_max
from dpviz.ui.exercises import Argument, AuditTask, Implementation, Prediction, Step, register

__all__ = [
    "ROOT_SPLIT_DATA", "ROOT_SPLIT_EPSILON", "ROOT_SPLIT_MAX_LOSS", "SPLIT_CASES",
    "root_split_law", "row_counts", "split_probabilities", "sulq_accuracy_at_b2",
]

#: The nodes of exercise 03.2: counts τ_jc (attributes, values, classes); a value no row
#: takes is a row of zeros.
SPLIT_CASES: tuple[dict[str, Any], ...] = (
    {"counts": (((27, 3), (4, 26)), ((16, 14), (15, 15)), ((20, 12), (11, 17))),
     "epsilon": 0.2, "criterion": "max"},
    {"counts": (((27, 3), (4, 26)), ((16, 14), (15, 15)), ((20, 12), (11, 17))),
     "epsilon": 0.2, "criterion": "gini"},
    {"counts": (((12, 0, 1), (2, 9, 1), (0, 1, 8)),
                ((10, 6, 5), (4, 4, 5), (0, 0, 0)),
                ((7, 1, 0), (7, 9, 10), (0, 0, 0))),
     "epsilon": 1.0, "criterion": "gini"},
)

#: Exercise 03.3's data set D: rows (a1, a2, a3, class), all binary; a1 decides the class.
ROOT_SPLIT_DATA: tuple[tuple[int, int, int, int], ...] = (
    (0, 0, 1, 0), (0, 1, 0, 0), (0, 0, 0, 0), (1, 1, 1, 1), (1, 0, 1, 1), (1, 1, 0, 1),
)
#: The ε the root split claims in exercise 03.3.
ROOT_SPLIT_EPSILON = 1.0
#: The split's exact worst-case loss: q_Max is monotone, so P(A) moves by at most exp(ε/2).
ROOT_SPLIT_MAX_LOSS = ROOT_SPLIT_EPSILON / 2
#: A second data set on which the student's mechanism's law is checked (a2 decides).
_OTHER_DATA = ((0, 0, 1, 0), (1, 0, 0, 0), (1, 0, 1, 0), (0, 1, 1, 1), (1, 1, 0, 1),
               (0, 1, 0, 1), (1, 1, 1, 0))


def split_probabilities(counts: Sequence[Any], epsilon: float, criterion: str) -> np.ndarray:
    """Exact P(DiffPID3 splits on each attribute) at a node with counts τ_jc (FS Alg. 2 l. 14)."""
    crit = get_criterion(criterion)
    scores = np.asarray(crit.quality(np.asarray(counts, dtype=np.float64)), dtype=np.float64)
    return exponential_probabilities(scores, epsilon=epsilon, sensitivity=crit.sensitivity(None))


def row_counts(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """τ_jc of each attribute of binary rows (a1, …, ak, class): shape (k, 2, 2)."""
    arr = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1)
    return np.array([tau(arr, arr[:, -1], a, 2, 2) for a in range(arr.shape[1] - 1)])


def root_split_law(rows: Sequence[Sequence[int]]) -> dict[int, float]:
    """Exact law of DiffPID3-Max's root split on ``rows`` at ε = :data:`ROOT_SPLIT_EPSILON`."""
    p = exponential_probabilities(q_max(row_counts(rows)), epsilon=ROOT_SPLIT_EPSILON,
                                  sensitivity=sensitivity_max())
    return {i: float(x) for i, x in enumerate(p)}


def sulq_accuracy_at_b2(seed: int = 0) -> float:
    """The explorer's accuracy (%) for ``sulq`` on ``fs-single-split``, depth 1, B = 2 (fixed)."""
    return 100.0 * float(explorer_point("fs-single-split", "sulq", 2.0, 1)["accuracy"].mean())


_BUDGET = Argument(
    claim="DiffPC4.5 with depth d and n numeric attributes asks every query at "
    "ε = B/((2+n)d + 2) (FS §4.3; n = 0 is DiffPID3, ε = B/(2(d+1))). Then the whole tree is "
    "B-DP for add/remove neighbours.",
    steps=(
        Step("An inner node (depth < d) asks, all on its own rows: its noisy row count N_T, "
             "one split point for each of the n numeric attributes, and the exponential-"
             "mechanism choice of the attribute — each at ε. What does the node cost?",
             {"a": "ε: the queries read the same rows, so the rows pay once",
              "b": "(2 + n)·ε: the queries compose sequentially",
              "c": "2ε: the split points are post-processing of N_T"},
             "b",
             {"a": "reading the same rows is exactly when costs add up: an added row changes "
                   "the input of every one of these queries, and each answer may reveal it",
              "c": "a split point is drawn by the exponential mechanism from scores that "
                   "read the node's rows; it is a query of its own, not a function of N_T"}),
        Step("The nodes of one level split the rows by the values (or thresholds) chosen "
             "above them. What do all the nodes of that level cost together?",
             {"a": "the sum of the nodes' costs",
              "b": "one node's cost: each row reaches exactly one node of the level",
              "c": "nothing: Partition is free"},
             "b",
             {"a": "a sum is needed when one row can affect several queries; here an added row "
                   "lands in a single node of the level, and only that node's answers change",
              "c": "splitting the rows costs nothing, but the queries asked inside the parts "
                   "read rows and cost their ε"}),
        Step("Which rows a node at depth 2 holds depends on the attributes chosen above it, "
             "and those choices depend on the data. Does the argument of step 2 survive?",
             {"a": "no: a partition must be fixed before any query is answered",
              "b": "only if the tree is balanced",
              "c": "yes: a row's node depends on the row and on answers already released"},
             "c",
             {"a": "composition allows each query, and each partition, to be chosen from the "
                   "answers released so far: once released, the chosen attribute is public",
              "b": "an unbalanced split is still a partition: what matters is that a row "
                   "reaches one node, not how many rows each node gets"}),
        Step("The tree has d levels of inner nodes and one level of leaves; a leaf asks N_T "
             "and its class counts (one count per class). What does the whole tree cost?",
             {"a": "the most expensive level only, (2 + n)·ε",
              "b": "(d + 1)·(2 + n)·ε",
              "c": "d·(2 + n)·ε + (1 + |C|)·ε",
              "d": "d·(2 + n)·ε + 2ε"},
             "d",
             {"a": "a row reaches one node on every level, so each level's queries can "
                   "reveal it: levels compose sequentially, not in parallel",
              "b": "a leaf chooses no attribute and no split point; it asks only its count "
                   "and its class counts",
              "c": "a row has one class: the class counts of a leaf read disjoint rows, so "
                   "together they cost one count's ε (notebook 01 §0: a histogram has L1 "
                   "sensitivity 1)"}),
    ),
    conclusion="Inside a node the queries add up (sequential), across a level they do not "
    "(parallel: a row reaches one node, chosen by the row and earlier releases only), and "
    "the levels add up again: d·(2 + n)·ε + 2ε = B. A node the stopping rule turns into a "
    "leaf spends less, never more. The SuLQ-based ID3 has the same levels, but cuts the "
    "attribute choice's ε into 2|A| count queries on the same rows.",
)

register({
    "03.1": _BUDGET,
    "03.2": Implementation(
        cases=SPLIT_CASES, exact=split_probabilities,
        hint="score each attribute from its own table of counts (Max: rows its split would "
        "classify right; Gini: minus the weighted impurity, a value without rows adds 0), "
        "then weight the scores as the exponential mechanism does for the score's "
        "sensitivity (section 2) and normalise",
    ),
    "03.3": AuditTask(
        cases=(ROOT_SPLIT_DATA, _OTHER_DATA), exact=root_split_law, epsilon=ROOT_SPLIT_EPSILON,
        max_loss=ROOT_SPLIT_MAX_LOSS, min_bound=0.15,
        hint="count τ_jc of every attribute from the rows, score each attribute with q_Max "
        "(sensitivity 1) and draw n attributes with the exponential mechanism at ε = 1; "
        "return an array of n attribute indices 0, 1, 2",
    ),
    "03.4": Prediction(
        compute=sulq_accuracy_at_b2, tolerance=6.0,
        unit="%",
        hint="at B = 2 each count query gets twenty times the ε it had at B = 0.1: scale the "
        "noise's standard deviation (section 1's table) accordingly and compare it with the "
        "counts a node of 2,000 rows holds for each value and class",
    ),
})
