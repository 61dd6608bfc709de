"""Notebook 02's exercises (JPW, Private-RDT), registered on import.

``02.1`` argues that JPW's update keeps ε (a recount does not); ``02.2`` implements what
``Classify`` sums for one class; ``02.3`` audits the recount; ``02.4`` predicts the
explorer's accuracy at height 3. Reference solutions: ``tests/test_jpw_exercises.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dpviz.audit.exact_laws import DiscreteLaw, discrete_laplace_sum_law
from dpviz.explore import jpw
from dpviz.ui.exercises import Argument, AuditTask, Implementation, Prediction, Step, register
from dpviz.validation import check_epsilon

__all__ = [
    "LOW_TREE_PREDICTION", "PREDICTION_SETTING", "RECOUNT_AUDIT", "SUMMED_COUNT",
    "UPDATE_ARGUMENT", "mushroom_low_tree_accuracy", "recount_sum_law", "summed_count_law",
]


def summed_count_law(counts: Sequence[int], epsilon: float) -> DiscreteLaw:
    """Exact law of Σᵢ (counts[i] + noise_i), noise_i discrete Laplace at ε/N, N = len(counts).

    What Fig. 2's ``Classify`` sums for one class over the N trees of a Private-RDT ensemble.
    """
    n = len(counts)
    return discrete_laplace_sum_law(n, check_epsilon(epsilon) / n, int(sum(counts)))


def recount_sum_law(data: tuple[int, int], epsilon: float = 1.0) -> DiscreteLaw:
    """Exact law of R1 + R2 = 2·c1 + c2 + two noises at ε, for the "recount" of (c1, c2).

    R1 = c1 + noise (the first release), R2 = c1 + c2 + fresh noise (JPW §V-B, option 2).
    """
    c1, c2 = (int(c) for c in data)
    return discrete_laplace_sum_law(2, check_epsilon(epsilon), 2 * c1 + c2)


#: The explorer setting of exercise 02.4: data set, ε, height and trees.
PREDICTION_SETTING = {"dataset": "mushroom", "epsilon": 0.1, "depth": 3, "n_trees": 10}


def mushroom_low_tree_accuracy(seed: int = 0) -> float:
    """The explorer's mean accuracy (%) at :data:`PREDICTION_SETTING` (its fixed seeds)."""
    s = PREDICTION_SETTING
    curve = jpw.explorer_curve(s["dataset"], s["depth"], s["n_trees"])
    at = np.isclose(curve["epsilon"], s["epsilon"])
    return 100.0 * float(curve.loc[at, "accuracy"].mean())


UPDATE_ARGUMENT = Argument(
    claim="A Private-RDT ensemble of N trees is released at ε on D1; later a batch D2 of new "
    "rows (disjoint from D1) is added with JPW's update (§V-B: count D2 alone into cleared "
    "copies of the trees, add noise at ε/N per tree, add the copies' leaf vectors to the "
    "released ones). Everything released — the first model and the updated one — is ε-DP "
    "(add/remove neighbours).",
    steps=(
        Step("A neighbour adds one row r to D2. Which exact leaf vectors change?",
             {"a": "those of the first release, counted from D1",
              "b": "those of the cleared copies, counted from D2",
              "c": "both"},
             "b",
             {"a": "the first release counted D1 only; r never reached it",
              "c": "the first release was counted before D2 existed, from D1 only"}),
        Step("The N cleared copies (one per tree) are released with noise at ε/N each. What "
             "does this second release cost on D2?",
             {"a": "ε/N", "b": "ε", "c": "N·ε"},
             "b",
             {"a": "every copy reads every row of D2, so the N copies compose "
                   "sequentially: their costs add up",
              "c": "each copy gets ε/N, not ε"}),
        Step("The updated model is the old noisy vector plus the copies' noisy vector. What "
             "does computing this sum cost?",
             {"a": "nothing: it is computed from the two releases alone (post-processing)",
              "b": "ε more, because the sum is a new release",
              "c": "nothing, because the noise in the sum is larger"},
             "a",
             {"b": "the sum reads no row: it only adds two vectors already released",
              "c": "more noise is no argument by itself: an observer who saw the first "
                   "release can subtract it"}),
        Step("A row of D1 is read only by the first release, a row of D2 only by the second. "
             "So the whole costs:",
             {"a": "2ε: sequential composition of the two releases",
              "b": "ε: parallel composition, since the releases read disjoint rows",
              "c": "ε/2: each release covers half of the rows"},
             "b",
             {"a": "costs add up when releases read the same rows; does any row reach both?",
              "c": "each release alone already costs ε on the rows it reads"}),
        Step("The rejected option \"recount\" clears the leaf vectors and counts D1 ∪ D2 "
             "again at ε/N per tree. Why does its total become 2ε?",
             {"a": "D2 may be larger than D1",
              "b": "the recount uses twice as many trees",
              "c": "every row of D1 is read by both releases: on D1 they compose sequentially"},
             "c",
             {"a": "the size of a batch never enters the privacy cost",
              "b": "the recount uses the same N trees"}),
    ),
    conclusion="A row of D2 only moves the copies' counts (ε over the N trees, by sequential "
    "composition); a row of D1 only moves the first release (ε); the two releases read "
    "disjoint rows, so together they cost max(ε, ε) = ε (parallel composition), and the "
    "updated model, their sum, is post-processing. Recounting reads D1 twice: 2ε. The noise "
    "of the copies must be fresh: reused noise would make 'after − before' the exact count "
    "of D2.",
)

SUMMED_COUNT = Implementation(
    cases=(
        {"counts": (0, 0, 0, 0, 0), "epsilon": 1.0},
        {"counts": (4, 0, 7), "epsilon": 0.5},
        {"counts": (25,), "epsilon": 2.0},
    ),
    exact=summed_count_law, sampler=True, n_samples=10_000,
    hint="go back to Fig. 5 and the budget split of this notebook: how much ε does each "
    "tree get, and which leaves get noise? Each tree's noise is drawn independently; "
    "dpviz.mechanisms.discrete_laplace draws discrete Laplace noise",
)

RECOUNT_AUDIT = AuditTask(
    cases=((5, 3), (0, 0)), exact=recount_sum_law, epsilon=1.0, violation=True, max_loss=2.0,
    min_bound=1.0,
    hint="reread the question: which count does each release add noise to, at which ε, and "
    "is the second release's noise drawn afresh? Return n draws of R1 + R2 as an array",
)

LOW_TREE_PREDICTION = Prediction(
    compute=mushroom_low_tree_accuracy, tolerance=5.0,
    unit="%",
    hint="at height 3 a tree has only a few leaves, so each holds hundreds of Mushroom's "
    "8,124 rows: compare that with noise at ε/10 per tree — and ask how well three "
    "attributes per path can separate the classes even without noise",
)

register({"02.1": UPDATE_ARGUMENT, "02.2": SUMMED_COUNT, "02.3": RECOUNT_AUDIT,
          "02.4": LOW_TREE_PREDICTION})
