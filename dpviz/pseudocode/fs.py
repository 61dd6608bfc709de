"""Friedman & Schuster (KDD 2010), Algorithms 1 (SuLQ-based ID3) and 2 (DiffPID3), eagerly.

T is a :class:`~dpviz.privacy.PrivateTable`, the PINQ interface the paper writes against
(NoisyCount, Partition, the exponential mechanism): the code sees noisy answers only.
:func:`private_table` opens it as :mod:`dpviz.trees.id3`'s estimators do, which ask the
same queries in the same order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpviz.domain import Domain
from dpviz.privacy import PrivateTable
from dpviz.pseudocode import printed
from dpviz.trees.id3_quality import get_criterion, sulq_information_gain
from dpviz.validation import check_random_state

__all__ = [
    "ALGORITHM_1", "ALGORITHM_2", "Leaf", "Node", "build_diffp_id3", "build_sulq_id3", "classify",
    "diffp_id3", "leaf", "private_table", "sulq_id3",
]

#: FS Algorithm 1 as printed, but for line 23's "𝒜 \ i", which means 𝒜 minus Ā (errata).
ALGORITHM_1 = printed("fs_algorithm_1")
#: FS Algorithm 2 as printed, but for line 16's "A \ A", which means 𝒜 minus Ā (errata).
ALGORITHM_2 = printed("fs_algorithm_2")


@dataclass
class Leaf:
    """"A leaf labeled with argmax_c(N_c)" (lines 10-12), with its noisy counts."""

    N_T: float
    N_c: np.ndarray
    label: int


@dataclass
class Node:
    """"A tree with a root node labeled Ā and edges labeled 1 to |Ā| each going to Subtree_i"."""

    A: str
    N_T: float
    subtrees: list[Leaf | Node]


def private_table(
    codes: np.ndarray, labels: np.ndarray, domain: Domain, B: float, random_state: Any
) -> PrivateTable:
    """T: the private rows behind the PINQ interface, opened as the estimators open it."""
    rng = check_random_state(random_state)
    rng.integers(0, 2**63 - 1)  # the estimator's unknown-routing key (unused here)
    return PrivateTable.from_encoded(codes, labels, domain=domain, epsilon=B, rng=rng)


def leaf(T: PrivateTable, N_T: float, eps: float) -> Leaf:
    """Lines 10-12: T_c = Partition(T, r_C = c); N_c = NoisyCount_ε(T_c); argmax_c N_c.

    One histogram query (disjoint classes); ties broken uniformly at random.
    """
    N_c = T.noisy_class_counts(epsilon=eps)
    best = [c for c in range(len(N_c)) if N_c[c] == N_c.max()]
    label = best[0] if len(best) == 1 else int(T.rng.choice(best))
    return Leaf(float(N_T), np.asarray(N_c, dtype=np.float64), label)


def too_few_rows(N_T: float, t: int, C: list[Any], eps: float) -> bool:
    """Line 9's heuristic: N_T / (t|C|) < √2/ε (a class count below the noise's std)."""
    return N_T / (t * len(C)) < math.sqrt(2) / eps


# ---------------------------------------------------------------------------- Algorithm 1
def sulq_id3(T: PrivateTable, A: list[str], C: list[Any], d: int, B: float) -> Leaf | Node:
    """FS Algorithm 1, procedure SuLQ_ID3 (lines 1-5)."""
    eps = B / (2 * (d + 1))  # line 3
    return build_sulq_id3(T, A, C, d, eps)  # line 4


def build_sulq_id3(T: PrivateTable, A: list[str], C: list[Any], d: int, eps: float) -> Leaf | Node:
    """FS Algorithm 1, procedure Build_SuLQ_ID3 (lines 6-25)."""
    t = max((T.domain[a].n_values for a in A), default=1)  # line 7
    N_T = T.noisy_count(epsilon=eps)  # line 8
    if not A or d == 0 or too_few_rows(N_T, t, C, eps):  # line 9
        return leaf(T, N_T, eps)  # lines 10-12
    V = []
    for a in A:  # lines 14-20
        N_j = T.noisy_histogram(a, epsilon=eps / (2 * len(A)), classes=False)  # line 17
        N_jc = T.noisy_histogram(a, epsilon=eps / (2 * len(A)), classes=True)  # line 18
        V.append(sulq_information_gain(N_j, N_jc))  # line 19: FS eq. (2)
    best = [k for k in range(len(A)) if V[k] == max(V)]  # line 21: Ā = argmax_A V̄_A
    A_bar = A[best[0] if len(best) == 1 else int(T.rng.choice(best))]
    T_i = T.partition(A_bar)  # line 22
    rest = [a for a in A if a != A_bar]  # "𝒜 \ Ā" (docs/papers.md (errata))
    subtrees = [build_sulq_id3(T_i[i], rest, C, d - 1, eps) for i in range(len(T_i))]  # line 23
    return Node(A_bar, float(N_T), subtrees)  # line 24


# ---------------------------------------------------------------------------- Algorithm 2
def diffp_id3(T: PrivateTable, A: list[str], C: list[Any], d: int, B: float, *,
              criterion: str = "max", N: int | None = None) -> Leaf | Node:
    """FS Algorithm 2, procedure DiffPID3 (lines 1-5), with the quality q of FS §4.1.

    ``N``: the public bound on |T| that InfoGain's sensitivity needs.
    """
    q = get_criterion(criterion)
    S = q.sensitivity(N)
    eps = B / (2 * (d + 1))  # line 3
    return build_diffp_id3(T, A, C, d, eps, q.quality, S)  # line 4


def build_diffp_id3(
    T: PrivateTable, A: list[str], C: list[Any], d: int, eps: float, q: Any, S: float
) -> Leaf | Node:
    """FS Algorithm 2, procedure Build_DiffPID3 (lines 6-18)."""
    t = max((T.domain[a].n_values for a in A), default=1)  # line 7
    N_T = T.noisy_count(epsilon=eps)  # line 8
    if not A or d == 0 or too_few_rows(N_T, t, C, eps):  # line 9
        return leaf(T, N_T, eps)  # lines 10-12

    def quality(rows: np.ndarray, classes: np.ndarray) -> list[float]:
        """q(T, A) of every attribute, from the counts τ_{j,c}^A of the rows (FS §4.1)."""
        return [q(tau(rows, classes, T.domain.index(a), T.domain[a].n_values, len(C))) for a in A]

    A_bar = T.select(A, quality, sensitivity=S, epsilon=eps)  # line 14: ExpMech_ε(𝒜, q)
    T_i = T.partition(A_bar)  # line 15
    rest = [a for a in A if a != A_bar]
    subtrees = [build_diffp_id3(T_i[i], rest, C, d - 1, eps, q, S) for i in range(len(T_i))]
    return Node(A_bar, float(N_T), subtrees)  # lines 16-17


def tau(rows: np.ndarray, classes: np.ndarray, j: int, n_values: int, n_C: int) -> np.ndarray:
    """τ_{v,c}^A = |{r ∈ T : r_A = v ∧ r_C = c}| for attribute column j (inside the query)."""
    counts = np.zeros((n_values, n_C))
    for r, c in zip(rows, classes, strict=True):
        counts[int(r[j]), int(c)] += 1
    return counts


# ---------------------------------------------------------------------------- prediction
def classify(tree: Leaf | Node, r: np.ndarray, domain: Domain, fallback: Node | None = None) -> int:
    """The class of the encoded row ``r``: follow the edges of r's values down to a leaf.

    A leaf with N_T <= 0 answers, as the estimators do, with the noisy majority of the
    nearest ancestor whose N_T > 0.
    """
    if isinstance(tree, Leaf):
        if tree.N_T <= 0 and fallback is not None:
            return int(np.argmax(class_totals(fallback)))
        return tree.label
    keeper = tree if tree.N_T > 0 else fallback
    value = int(r[domain.index(tree.A)])
    return classify(tree.subtrees[value], r, domain, keeper)


def class_totals(tree: Leaf | Node) -> np.ndarray:
    """The noisy class counts of a subtree's leaves (negatives as 0), summed."""
    if isinstance(tree, Leaf):
        return np.clip(tree.N_c, 0.0, None)
    return np.sum([class_totals(s) for s in tree.subtrees], axis=0)
