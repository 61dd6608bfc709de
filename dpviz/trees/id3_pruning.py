"""Friedman & Schuster Algorithm 3: C4.5 pruning of a DiffPID3 tree from its noisy counts.

No query: only the released counts are read (post-processing, free; FS §4.2).
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv

from dpviz.errors import InvalidParameterError
from dpviz.trees.id3_tree import ID3Node
from dpviz.validation import check_probability

__all__ = [
    "C45_TOLERANCE", "bottom_up_aggregate", "pessimistic_errors", "prune_c45", "prune_noisy_counts",
    "top_down_correct",
]

#: C4.5's tolerance when comparing a leaf's estimated errors with its subtree's (Quinlan's
#: C4.5 code and Weka's J48 prune when ``leaf <= subtree + 0.1``).
C45_TOLERANCE = 0.1


def prune_noisy_counts(root: ID3Node, confidence: float = 0.25) -> ID3Node:
    """FS Algorithm 3, PRUNE (lines 2-6): correct, aggregate, then C4.5-prune ``root`` in place."""
    cf = check_probability(confidence, "confidence")
    if not 0 < cf < 1:
        raise InvalidParameterError(f"confidence must lie in (0, 1), got {confidence!r}")
    top_down_correct(root, max(root.noisy_count, 0.0))  # line 3
    bottom_up_aggregate(root)  # line 4
    prune_c45(root, cf)  # line 5
    return root


def top_down_correct(node: ID3Node, fixed_count: float) -> None:
    """FS Alg. 3, TopDownCorrect (lines 7-16): child i gets ``N_T · T_i.N_T / Σ_i T_i.N_T``.

    Negative child counts count as 0; with no positive one the parent's count is shared equally.
    """
    node.corrected_count = float(fixed_count)  # line 8
    if not node.is_split:
        return
    shares = np.array([max(c.noisy_count, 0.0) for c in node.children])  # lines 10-12
    total = shares.sum()
    if total <= 0:
        shares = np.ones(len(node.children))
        total = float(len(node.children))
    for child, share in zip(node.children, shares, strict=True):
        top_down_correct(child, node.corrected_count * share / total)  # line 13


def bottom_up_aggregate(node: ID3Node) -> np.ndarray:
    """FS Alg. 3, BottomUpAggregate (lines 17-29): leaf class counts scaled to N_T, then summed.

    Negative class counts count as 0; a leaf with none positive shares N_T equally.
    """
    if not node.is_split:
        assert node.class_counts is not None and node.corrected_count is not None
        p = np.clip(node.class_counts, 0.0, None)
        if p.sum() <= 0:
            p = np.ones_like(p)
        node.corrected_class_counts = node.corrected_count * p / p.sum()
    else:
        node.corrected_class_counts = np.sum(
            [bottom_up_aggregate(child) for child in node.children], axis=0
        )
    return node.corrected_class_counts


def pessimistic_errors(n: float, errors: float, confidence: float = 0.25) -> float:
    """C4.5's pessimistic error estimate ``n · U_CF(errors, n)`` (Quinlan 1993, §4.2).

    U_CF is the Beta(E+1, N−E) quantile at 1 − CF (real-valued counts); 0 for N <= 0, N when E >= N.
    """
    if n <= 0:
        return 0.0
    errors = min(max(errors, 0.0), n)
    if n - errors <= 1e-12:
        return float(n)
    return float(n * betaincinv(errors + 1.0, n - errors, 1.0 - confidence))


def prune_c45(node: ID3Node, confidence: float = 0.25) -> float:
    """FS Alg. 3 line 5, C4.5Prune: collapse a subtree when its leaf estimate <= subtree + 0.1.

    No subtree raising (it would need queries). Returns the subtree's estimated errors.
    """
    counts = node.corrected_class_counts
    if counts is None or node.corrected_count is None:
        raise InvalidParameterError(
            "prune_c45 needs corrected counts: run top_down_correct and bottom_up_aggregate "
            "first (FS Alg. 3 lines 3-4)"
        )
    n = float(node.corrected_count)
    leaf_errors = pessimistic_errors(n, n - float(counts.max()), confidence)
    if not node.is_split:
        return leaf_errors
    subtree = sum(prune_c45(child, confidence) for child in node.children)
    if leaf_errors <= subtree + C45_TOLERANCE:
        node.pruned = True
        node.label = int(np.argmax(counts))
        return leaf_errors
    node.pruned = False
    return subtree
