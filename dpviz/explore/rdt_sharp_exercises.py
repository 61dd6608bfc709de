"""Notebook 04's exercises (RDT#), registered on import.

``04.1`` argues why the secondary ensemble is free and private centres are not; ``04.2``
implements a public row's pseudo-label; ``04.3`` audits centres drawn among private rows;
``04.4`` predicts the explorer's accuracy. Reference solutions: tests/test_rdt_sharp_exercises.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from dpviz.audit.exact_laws import discrete_laplace_sum_law
from dpviz.explore.rdt_sharp import run_errors
from dpviz.ui.exercises import Argument, AuditTask, Implementation, Prediction, Step, register

__all__ = [
    "PREDICTION_SETTING", "centre_law", "explorer_accuracy", "noise_sum_law", "pseudo_label_law",
]

#: The explorer setting of exercise 04.4 (keyword arguments of ``rdt_sharp_explorer_chart``).
PREDICTION_SETTING = {"dataset": "nursery", "epsilon": 0.05, "percent": 30, "n_secondary": 20}


def noise_sum_law(rate: float, n_terms: int) -> tuple[np.ndarray, np.ndarray]:
    """Support and pmf of a sum of ``n_terms`` independent discrete Laplace noises at ``rate``."""
    law = discrete_laplace_sum_law(int(n_terms), rate)
    return law.support, law.pmf / law.pmf.sum()


def pseudo_label_law(totals: Sequence[int], rate: float, n_terms: int) -> np.ndarray:
    """P(argmax_t S_t = k), S_t = ``totals[t]`` + ``n_terms`` noises at ``rate``, ties lowest.

    ``P(L = k) = Σ_s P(S_k = s) Π_{j<k} P(S_j < s) Π_{j>k} P(S_j ≤ s)``.
    """
    support, pmf = noise_sum_law(rate, n_terms)
    totals = np.asarray(totals, dtype=np.int64)
    grid = np.arange(support[0] + totals.min(), support[-1] + totals.max() + 1)
    laws = np.zeros((len(totals), len(grid)))
    for t, total in enumerate(totals):
        start = support[0] + total - grid[0]
        laws[t, start:start + len(pmf)] = pmf
    at_most = np.cumsum(laws, axis=1)
    below = at_most - laws
    probs = np.empty(len(totals))
    for k in range(len(totals)):
        factor = np.prod(below[:k], axis=0) * np.prod(at_most[k + 1:], axis=0)
        probs[k] = float(np.sum(laws[k] * factor))
    return probs / probs.sum()


def _pseudo_label_exact(counts: Sequence[Sequence[int]], epsilon: float) -> np.ndarray:
    """Exercise 04.2's law: p primary trees, each count noised at ε/p, summed, arg-max."""
    counts = np.asarray(counts, dtype=np.int64)
    p = counts.shape[0]
    return pseudo_label_law(counts.sum(axis=0), epsilon / p, p)


def centre_law(rows: Sequence[int]) -> dict[int, float]:
    """Exercise 04.3's law: one of the leaf's private ``rows`` chosen uniformly as its centre."""
    seen = Counter(int(r) for r in rows)
    return {value: k / len(rows) for value, k in seen.items()}


def explorer_accuracy(seed: int) -> float:
    """RDT#'s test accuracy in run ``seed`` of the explorer at :data:`PREDICTION_SETTING`."""
    s = PREDICTION_SETTING
    return 1.0 - run_errors(s["dataset"], float(s["percent"]), s["n_secondary"], int(seed),
                            s["epsilon"])[0]


_ARGUMENT = Argument(
    claim="RDT# with p primary trees, each releasing its noisy centre counters at ε/p, and t "
    "secondary trees filled with the pseudo-labeled public rows is ε-DP (add/remove one "
    "private labeled row), whatever t is.",
    steps=(
        Step("One private labeled row is added. Before any noise, what changes in one primary "
             "tree?",
             {"a": "its test attributes and its centres, which are chosen after the data is seen",
              "b": "one class counter of one centre (the closest centre in the leaf the row "
                   "reaches), by 1",
              "c": "nothing: a row is only counted once it has a pseudo-label"},
             "b",
             {"a": "both are drawn from the attribute list and the public rows alone, before "
                   "any private row is read (Theorem 3's proof starts from the empty structure)",
              "c": "the primary trees count the private labeled rows themselves (AddLabeled); "
                   "pseudo-labels are for the public rows, which only the secondary trees count"}),
        Step("Each primary tree adds noise at ε/p to every counter. What do the p primary "
             "trees' releases cost together?",
             {"a": "ε/p: the trees read the same rows, so they share one cost",
              "b": "ε/p, by parallel composition: a row falls in one cell per tree",
              "c": "ε: the p releases of ε/p each read the same rows, and sequential "
                   "composition adds their costs"},
             "c",
             {"a": "reading the same rows again is what makes costs add up; it never divides them",
              "b": "parallel composition holds within one tree, whose cells are disjoint; across "
                   "trees every private row is counted once per tree"}),
        Step("The pseudo-labels and the t secondary trees are computed from …",
             {"a": "the primary trees' released noisy counters and the public rows, nothing "
                   "else: post-processing, free whatever t is",
              "b": "the private rows, through the pseudo-labels, so each secondary tree must be "
                   "paid for (ε/(p + t) per tree)",
              "c": "public rows only, but the pseudo-labels need fresh noise before the "
                   "secondary trees may use them"},
             "a",
             {"b": "a pseudo-label is a function of the released counters and a public row; no "
                   "private row is read again. Paying for the secondary trees is safe but "
                   "wasteful (lesson 1)",
              "c": "noise protects private data when it is read; the pseudo-labels read only an "
                   "output that is already ε-DP, and post-processing keeps it so "
                   "(notebook 01 §0)"}),
        Step("A variant draws each leaf's centres among the private rows that reach it. Why can "
             "no amount of noise on the counters make it ε-DP?",
             {"a": "it can: noise of scale p/ε covers the centres too, since a row has "
                   "sensitivity 1",
              "b": "the released trees contain private rows verbatim: a centre equal to a row "
                   "that only one neighbour holds has positive probability on that neighbour "
                   "and probability 0 on the other, a ratio no finite ε bounds",
              "c": "the counters of centres taken from private rows would need ε/(p + t) each"},
             "b",
             {"a": "noise goes on the counters only; a centre is published as it is, a whole "
                   "row, and a sensitivity says nothing about a value that is copied out",
              "c": "the counters are fine at ε/p; what leaks is the centres themselves, not how "
                   "the counters are paid for"}),
    ),
    conclusion="Theorem 3: only the p primary trees read private rows, ε/p each, ε in all "
    "whatever t — and the argument needs the structure and the centres to be public (built "
    "from the attribute list and the public rows).",
)

register(
    {
        "04.1": _ARGUMENT,
        "04.2": Implementation(
            cases=(
                {"counts": ((3, 1), (2, 0), (4, 2), (0, 0), (1, 1)), "epsilon": 0.5},
                {"counts": ((3, 2, 1), (1, 3, 2)), "epsilon": 2.0},
            ),
            exact=_pseudo_label_exact, sampler=True,
            hint="every counter of every primary tree gets its own noise, at that tree's "
            "share of the budget; the pseudo-label compares the sums over the trees",
        ),
        "04.3": AuditTask(
            cases=((4, 4, 7, 9), (1, 2, 2, 2, 3, 5)), exact=centre_law, epsilon=1.0, violation=True,
            min_bound=2.0,
            hint="the leaf's one centre is one of its private rows, each row equally likely "
            "(a value held by two rows is twice as likely)",
        ),
        "04.4": Prediction(
            compute=explorer_accuracy, tolerance=0.05, seeds=(0, 1, 2),
            hint="at this ε every primary counter gets noise of scale p/ε = 100: what are the "
            "pseudo-labels worth then, and what accuracy does always answering one class "
            "get on this data set?",
        ),
    }
)
