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
from dpviz.trees.id3_quality import get_criterion, sulq_information_gain
from dpviz.validation import check_random_state

__all__ = [
    "ALGORITHM_1", "ALGORITHM_2", "Leaf", "Node", "build_diffp_id3", "build_sulq_id3", "classify",
    "diffp_id3", "leaf", "private_table", "sulq_id3",
]

def _printed(title: str, outer: str, build: str, body: str) -> str:
    """An FS algorithm as printed: its lines 1-13 (the same in both) around its own ``body``."""
    return f"""\
{title}
 1: procedure {outer}(𝒯, 𝒜, C, d, B)
 2:   Input: 𝒯 – private dataset, 𝒜 = {{A_1, ..., A_d}} – a set of attributes,
        C – class attribute, d – maximal tree depth, B – differential privacy budget
 3:   ε = B / (2(d + 1))
 4:   {build}(𝒯, 𝒜, C, d, ε)
 5: end procedure
 6: procedure {build}(𝒯, 𝒜, C, d, ε)
 7:   t = max_{{A ∈ 𝒜}} |A|
 8:   N_𝒯 = NoisyCount_ε(𝒯)
 9:   if 𝒜 = ∅ or d = 0 or N_𝒯 / (t|C|) < √2/ε then
10:     𝒯_c = Partition(𝒯, ∀c ∈ C : r_C = c)
11:     ∀c ∈ C : N_c = NoisyCount_ε(𝒯_c)
12:     return a leaf labeled with argmax_c(N_c)
13:   end if
{body}"""


#: FS Algorithm 1 as printed, but for line 23's "𝒜 \ i", which means 𝒜 minus Ā (errata).
ALGORITHM_1 = _printed("Algorithm 1 SuLQ-based ID3 (FS)", "SuLQ_ID3", "Build_SuLQ_ID3", """\
14:   for every attribute A ∈ 𝒜 do
15:     𝒯_j = Partition(𝒯, ∀j ∈ A : r_A = j)
16:     ∀j ∈ A : 𝒯_j,c = Partition(𝒯_j, ∀c ∈ C : r_C = c)
17:     N_j^A = NoisyCount_ε/(2|𝒜|)(𝒯_j)
18:     N_j,c^A = NoisyCount_ε/(2|𝒜|)(𝒯_j,c)
19:     V̄_A = Σ_j Σ_c N_j,c^A · log(N_j,c^A / N_j^A)   (negative N_j^A or N_j,c^A are skipped)
20:   end for
21:   Ā = argmax_A V̄_A
22:   𝒯_i = Partition(𝒯, ∀i ∈ Ā : r_Ā = i)
23:   ∀i ∈ Ā : Subtree_i = Build_SuLQ_ID3(𝒯_i, 𝒜 \\ Ā, C, d − 1, ε)
24:   return a tree with a root node labeled Ā and edges labeled 1 to |Ā| each going to Subtree_i
25: end procedure""")

#: FS Algorithm 2 as printed, but for line 16's "A \ A", which means 𝒜 minus Ā (errata).
ALGORITHM_2 = _printed("Algorithm 2 Differential Private ID3 algorithm (FS)", "DiffPID3",
                       "Build_DiffPID3", """\
14:   Ā = ExpMech_ε(𝒜, q)
15:   𝒯_i = Partition(𝒯, ∀i ∈ Ā : r_Ā = i)
16:   ∀i ∈ Ā : Subtree_i = Build_DiffPID3(𝒯_i, 𝒜 \\ Ā, C, d − 1, ε)
17:   return a tree with a root node labeled Ā and edges labeled 1 to |Ā| each going to Subtree_i
18: end procedure""")


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
