"""Friedman & Schuster (KDD 2010): private ID3 and C4.5 built on the PINQ-style privacy layer.

The paper's pseudocode procedures are plain functions, named after it, that read the
private rows *only* through :class:`~dpviz.privacy.PrivateTable` queries:

* :func:`sulq_id3` and :func:`build_sulq_id3` — FS Algorithm 1, SuLQ-based ID3 (noisy
  counts for the information gain of every attribute, FS eq. (2));
* :func:`diffp_id3` and :func:`build_diffp_id3` — FS Algorithm 2, DiffPID3 (one
  exponential-mechanism query per node), with the continuous attributes of FS §4.3
  (DiffPC4.5): :func:`private_split_point`, the exponential mechanism over the points of a
  public grid of the attribute's range (FS's continuous output space discretised, because
  a uniform draw inside data-dependent ranges releases a data-dependent floating-point
  lattice: see :mod:`dpviz.trees.id3_split_point`);
* :func:`prune_noisy_counts` — FS Algorithm 3, PRUNE, calling :func:`top_down_correct`,
  :func:`bottom_up_aggregate` and :func:`prune_c45`.

Both build procedures share :func:`stopping_rule` (lines 7 and 9); the non-private
reference's ε = ∞ path is in :func:`stopping_rule`, :func:`exact_gain_improves` and
:func:`exact_best_split`, the §4.3 numeric candidates in :func:`split_candidates` and
:func:`partition_node`, SuLQ's lines 14-20 in :func:`sulq_attribute_scores`. The paper's
own words, eager and categorical only, are in :mod:`dpviz.pseudocode.fs` (same draws, same
trees).

Three scikit-learn estimators call them: :class:`SuLQID3Classifier`,
:class:`DiffPID3Classifier` and :class:`DiffPC45Classifier` (DiffPID3 with pruning on).

Layering (imports point one way, no cycle): :mod:`dpviz.trees.id3_quality` (quality
functions and sensitivities) and :mod:`dpviz.trees.id3_tree` (:class:`ID3Node`, the
flattened routing) at the bottom; :mod:`dpviz.trees.id3_split_point` (FS §4.3),
:mod:`dpviz.trees.id3_pruning` (Alg. 3) and :mod:`dpviz.trees.id3_view` (:class:`ID3Tree`
and its views) above them; this module, with the procedures and the estimators, on top
(it re-exports the procedures, so every FS function is reachable as
``dpviz.trees.id3.<name>``).

Privacy (FS §3, §4): the total budget B is split equally over the d + 1 levels of the tree
(the leaves included) — *sequential composition* across levels — while the nodes of one
level query disjoint parts made by :meth:`PrivateTable.partition`, so they share the level's
budget — *parallel composition*. Within a node half of the level's share pays for the noisy
row count, the other half for the split (or the leaf's class counts). The ledger of every
build therefore spends at most B, and exactly B when some path reaches depth d.

Depth d, budget B, the size bound N and the :class:`~dpviz.domain.Domain` (categorical
values, numeric bounds, classes) are public parameters; nothing about them is learnt from
the rows.

Unclassified rows. ID3 grows a branch for each value of the split attribute; a branch that
no training row reaches has no class (Quinlan 1986; Weka's Id3 leaves it unlabelled, and
JPW Table I counts test rows that end there as wrong). With noise the tree's only evidence
of the rows that reached a node is its noisy count N_T, so a leaf with ``N_T <= 0`` is
*empty* and a row that ends in it is *unclassified*. ``predict`` still returns a label for
it — the noisy majority of its nearest ancestor with ``N_T > 0`` (class counts of that
ancestor's leaves summed, which is post-processing) — and
:meth:`DiffPID3Classifier.unclassified_mask` flags those rows.

Non-private reference: ``epsilon=math.inf`` answers every query exactly, and the build
then applies ID3's own stopping rules (a pure or empty node, or no split improving the
criterion — FS §3) instead of the noisy rule of line 9; with ``max_depth=None`` and
``criterion="infogain"`` it is the unlimited-depth ID3 of FS Table 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from dpviz import mechanisms
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.privacy import Ledger, PrivateTable
from dpviz.trees._base import DPEstimatorMixin, check_encoded, whole_numbers_as_nominal
from dpviz.trees.id3_pruning import (
    bottom_up_aggregate,
    pessimistic_errors,
    prune_c45,
    prune_noisy_counts,
    top_down_correct,
)
from dpviz.trees.id3_quality import (
    Criterion,
    get_criterion,
    sulq_information_gain,
)
from dpviz.trees.id3_split_point import (
    DEFAULT_SPLIT_CELLS,
    LABEL_POINT,
    choose_split_point,
    choose_split_point_continuous,
    grid_split_qualities,
    private_split_point,
    split_grid,
    split_point_grid_probabilities,
    split_point_probabilities,
    split_point_ranges,
)
from dpviz.trees.id3_tree import ID3Node, flatten, route
from dpviz.trees.id3_view import ID3Tree
from dpviz.validation import check_bool, check_epsilon, check_int, check_probability

__all__ = [
    "DEFAULT_SPLIT_CELLS",
    "LABEL_POINT",
    "DiffPC45Classifier",
    "DiffPID3Classifier",
    "ID3Node",
    "ID3Tree",
    "SuLQID3Classifier",
    "attribute_qualities",
    "bottom_up_aggregate",
    "build_diffp_id3",
    "build_sulq_id3",
    "categorical_splits",
    "choose_split_point",
    "choose_split_point_continuous",
    "diffp_id3",
    "exact_best_split",
    "exact_gain_improves",
    "grid_split_qualities",
    "partition_node",
    "pessimistic_errors",
    "private_split_point",
    "prune_c45",
    "prune_noisy_counts",
    "split_candidates",
    "split_grid",
    "split_point_grid_probabilities",
    "split_point_probabilities",
    "split_point_ranges",
    "stopping_rule",
    "sulq_attribute_scores",
    "sulq_id3",
    "top_down_correct",
]

#: FS Alg. 1/2 line 9: split only if N_T / (t |C|) >= sqrt(2) / ε.
SQRT2 = math.sqrt(2.0)

#: Ledger labels of the query kinds (the ledger can be summarised by label).
LABEL_COUNT = "node count"
LABEL_LEAF = "leaf class counts"
LABEL_SELECT = "split attribute"
# LABEL_POINT = "split point" is defined in dpviz.trees.id3_split_point (imported above).
LABEL_VALUE_COUNTS = "attribute value counts"
LABEL_CELL_COUNTS = "attribute class counts"

#: The split-point queries are :meth:`PrivateTable.select` queries over the public grid;
#: the ledger records them under this mechanism name (the one ``select`` records).
POINT_MECHANISM = "exponential"


# =============================================================================== helpers
@dataclass(frozen=True)
class _Split:
    """A public candidate split: attribute ``name`` (column ``index``) into ``n_values`` parts."""

    name: str
    index: int
    n_values: int
    threshold: float | None = None
    grid_index: int | None = None


def _split_counts(
    codes: np.ndarray, labels: np.ndarray, split: _Split, n_classes: int
) -> np.ndarray:
    """Exact counts τ_jc of the rows by (part j of ``split``, class c); shape (n_values, C)."""
    column = codes[:, split.index]
    if split.threshold is None:
        cells = column.astype(np.int64)
    else:
        cells = (column > split.threshold).astype(np.int64)
    flat = np.bincount(cells * n_classes + labels, minlength=split.n_values * n_classes)
    return flat.reshape(split.n_values, n_classes).astype(np.float64)


def categorical_splits(domain: Domain) -> list[_Split]:
    """The candidate split of every categorical attribute of ``domain`` (one part per value)."""
    return [
        _Split(a.name, j, a.n_values)
        for j, a in enumerate(domain)
        if isinstance(a, Categorical)
    ]


def attribute_qualities(
    codes: np.ndarray,
    labels: np.ndarray,
    splits: Sequence[_Split],
    criterion: Criterion,
    n_classes: int,
) -> np.ndarray:
    """FS Alg. 2 line 14's quality q(T, A) of every candidate split, on the node's rows.

    The quality function of DiffPID3's attribute choice (evaluated inside
    :meth:`PrivateTable.select`, which applies the exponential mechanism to it); the audit
    target :func:`dpviz.audit.targets.diffpid3_split_choice` calls this same function.
    """
    tables = [_split_counts(codes, labels, s, n_classes) for s in splits]
    return np.array([criterion.quality(c) for c in tables], dtype=np.float64)


def _argmax_random(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of the largest value, ties broken uniformly at random (post-processing)."""
    values = np.asarray(values, dtype=np.float64)
    best = np.flatnonzero(values == values.max())
    return int(best[0] if best.size == 1 else rng.choice(best))


def _branching(domain: Domain, name: str) -> int:
    """|A|: the number of parts a split on ``name`` makes (2 for a numeric threshold)."""
    attribute = domain[name]
    return attribute.n_values if isinstance(attribute, Categorical) else 2


def _check_depth(depth: int | None, epsilon: float) -> int | None:
    if depth is None:
        if math.isfinite(epsilon):
            raise InvalidParameterError(
                "max_depth=None (unlimited) is only allowed with epsilon=math.inf (the "
                "non-private reference): the budget is split over the d + 1 levels (FS Alg. 2 "
                "line 3), so d must be a public number"
            )
        return None
    return check_int(depth, "max_depth", minimum=0)


def _one_less(depth: int | None) -> int | None:
    """D - 1 for the children (None, unlimited, stays None)."""
    return None if depth is None else depth - 1


def _child(node: ID3Node, part: PrivateTable, epsilon: float) -> ID3Node:
    """An empty child of ``node`` for the part ``part`` of its partition (FS line 16/23)."""
    condition = part.path[-1] if part.path else "(root)"
    return ID3Node(depth=node.depth + 1, condition=condition, epsilon=epsilon, noisy_count=math.nan)


def _make_leaf(
    table: PrivateTable, node: ID3Node, reason: str, counts: np.ndarray | None = None
) -> ID3Node:
    """FS Alg. 1/2 lines 10-12: noisy class counts at ε (parallel over the classes), argmax.

    ``counts`` may be passed when they were already released at this node (the exact
    counts of the non-private reference).
    """
    if counts is None:
        counts = table.noisy_class_counts(epsilon=node.epsilon, label=LABEL_LEAF)
    node.class_counts = np.asarray(counts, dtype=np.float64)
    node.label = _argmax_random(node.class_counts, table.rng)
    node.stop = reason
    return node


def _exact_stop(table: PrivateTable) -> tuple[str | None, np.ndarray]:
    """Non-private reference only (ε = inf): ID3's own rules, a pure or empty node (FS §3)."""
    counts = table.noisy_class_counts(epsilon=math.inf, label=LABEL_LEAF)
    if counts.sum() == 0:
        return "empty node (ID3)", counts
    if (counts > 0).sum() == 1:
        return "pure node (ID3)", counts
    return None, counts


def stopping_rule(
    table: PrivateTable,
    node: ID3Node,
    attributes: Sequence[str],
    depth: int | None,
    epsilon: float,
    *,
    stopping: str = "fs",
) -> tuple[str | None, np.ndarray | None]:
    """FS Alg. 1/2 lines 7 and 9: why ``node`` becomes a leaf, or None when it may split.

    A leaf if 𝒜 = ∅, d = 0 or N_T / (t|C|) < √2/ε, with t = max |A| over 𝒜 (line 7; 2 for
    a numeric attribute) and N_T = ``node.noisy_count`` (line 8, already released). With
    ``stopping="id3"`` (SuLQ only, see :func:`sulq_id3`) the count rule is N_T <= 0. With
    ``epsilon = inf`` (the non-private reference) ID3's own rules apply instead: a pure or
    empty node (FS §3), decided on the exact class counts, which it queries (at ε = inf).

    Returns
    -------
    reason : str or None
        Why the node is a leaf; None when it may split.
    exact_counts : ndarray or None
        The node's exact class counts when ``epsilon = inf`` and 𝒜 ≠ ∅, d ≠ 0 (reused by
        the leaf and by the "no split improves" rule); None otherwise.

    Notes
    -----
    Privacy claim: post-processing of N_T (public 𝒜, d, ε, |C|); the ε = inf reference
    reads the rows exactly and claims no privacy.
    """
    if not attributes:
        return "no attribute left", None
    if depth == 0:
        return "maximal depth", None
    if math.isinf(epsilon):
        return _exact_stop(table)
    if stopping == "id3":
        return ("no rows: N_T <= 0 (ID3 rule)" if node.noisy_count <= 0 else None), None
    t = max(_branching(table.domain, a) for a in attributes)  # line 7
    if node.noisy_count / (t * table.domain.n_classes) < SQRT2 / epsilon:
        return "too few rows: N_T/(t|C|) < √2/ε", None
    return None, None


# =============================================================================== FS Alg. 1
def sulq_id3(
    table: PrivateTable,
    attributes: Sequence[str],
    depth: int | None,
    budget: float,
    *,
    stopping: str = "fs",
) -> ID3Node:
    """FS Algorithm 1, procedure SuLQ_ID3 (lines 1-5): ε = B / (2(d+1)), then build.

    Parameters
    ----------
    table : PrivateTable
        The private rows T (with labels), the only door to them.
    attributes : sequence of str
        The candidate attributes 𝒜 (categorical names of ``table.domain``).
    depth : int or None
        Maximal depth d (public). None (unlimited) only with ``budget = inf``.
    budget : float
        The differential-privacy budget B (``math.inf``: non-private reference).
    stopping : {"fs", "id3"}, default "fs"
        ``"fs"``: FS's rule of line 9, a leaf when N_T / (t|C|) < √2/ε. ``"id3"``: ID3's own
        rule read from the noisy count instead, a leaf only when N_T <= 0 ("no rows reached
        the node"), as a private ID3 without FS's heuristic behaves (JPW §III, Table I):
        the tree grows into branches that hold almost no rows.

    Returns
    -------
    ID3Node
        The root of the induced tree.

    Notes
    -----
    Privacy claim: B-DP, with either stopping rule. Line 3 gives each of the d + 1 levels
    ε = B / (2(d+1)) and every node spends 2ε (:func:`build_sulq_id3`); nodes of one
    level are disjoint parts of a partition (parallel composition), levels compose
    sequentially: at most (d+1)·2ε = B.
    """
    budget = check_epsilon(budget, "epsilon", allow_inf=True)
    d = _check_depth(depth, budget)
    for name in attributes:
        if not isinstance(table.domain[name], Categorical):
            raise InvalidParameterError(
                f"SuLQ-based ID3 (FS Alg. 1) handles nominal attributes only; {name!r} is "
                "numeric: discretise it or use DiffPID3Classifier (FS §4.3)"
            )
    if stopping not in ("fs", "id3"):
        raise InvalidParameterError(f"stopping must be 'fs' or 'id3', got {stopping!r}")
    epsilon = budget / (2 * (d + 1)) if d is not None else math.inf
    root = ID3Node(depth=0, condition="(root)", epsilon=epsilon, noisy_count=math.nan)
    return build_sulq_id3(table, list(attributes), d, epsilon, root, stopping=stopping)


def sulq_attribute_scores(
    table: PrivateTable, attributes: Sequence[str], epsilon: float
) -> np.ndarray:
    """FS Alg. 1 lines 14-20: V̄_A of every attribute A from noisy counts at ε / (2|𝒜|).

    For each A, the noisy value counts N_j^A (line 17) and class counts N_jc^A (line 18),
    then the approximate information gain V̄_A of FS eq. (2) (line 19,
    :func:`~dpviz.trees.id3_quality.sulq_information_gain`, negative counts skipped).

    Notes
    -----
    Privacy claim: ε-DP together. Each of the 2|𝒜| histograms is ε/(2|𝒜|)-DP (its cells
    are disjoint); they read the same rows, so they compose sequentially to ε. V̄_A is
    post-processing.
    """
    share = epsilon / (2 * len(attributes))
    scores = np.empty(len(attributes))
    for k, name in enumerate(attributes):
        n_j = table.noisy_histogram(name, epsilon=share, classes=False, label=LABEL_VALUE_COUNTS)
        n_jc = table.noisy_histogram(name, epsilon=share, classes=True, label=LABEL_CELL_COUNTS)
        scores[k] = sulq_information_gain(n_j, n_jc)
    return scores


def build_sulq_id3(
    table: PrivateTable,
    attributes: list[str],
    depth: int | None,
    epsilon: float,
    node: ID3Node,
    *,
    stopping: str = "fs",
) -> ID3Node:
    """FS Algorithm 1, procedure Build_SuLQ_ID3 (lines 6-25), filling ``node``.

    Line 8: N_T = NoisyCount_ε(T). Lines 7 and 9: :func:`stopping_rule`; lines 10-12: a
    leaf's noisy class counts at ε and the arg-max label. Lines 14-20: the approximate
    information gain V̄_A of every attribute (:func:`sulq_attribute_scores`). Line 21:
    Ā = argmax V̄_A. Lines 22-24: partition by Ā and recurse on each part with 𝒜 minus Ā,
    d - 1 (the printed "𝒜 minus i" of line 23 means removing the chosen attribute, see
    docs/papers.md (errata)).

    Notes
    -----
    Privacy claim: the node spends 2ε: N_T is ε-DP (a count has sensitivity 1); a leaf's
    class counts are ε-DP together (disjoint classes: parallel composition); the attribute
    scores are ε-DP (:func:`sulq_attribute_scores`). The children query disjoint parts
    (parallel composition). The arg-max is post-processing. With ``epsilon = inf``
    (non-private reference) ID3's pure/empty/no-gain rules apply.
    """
    node.noisy_count = float(table.noisy_count(epsilon=epsilon, label=LABEL_COUNT))  # line 8
    reason, counts = stopping_rule(table, node, attributes, depth, epsilon, stopping=stopping)
    if reason is not None:  # line 9
        return _make_leaf(table, node, reason, counts)  # lines 10-12
    scores = sulq_attribute_scores(table, attributes, epsilon)  # lines 14-20
    if counts is not None and not exact_gain_improves(scores, counts):  # ε = inf only
        return _make_leaf(table, node, "no split improves the gain (ID3)", counts)
    chosen = attributes[_argmax_random(scores, table.rng)]  # line 21
    node.attribute = chosen
    rest = [a for a in attributes if a != chosen]
    for part in table.partition(chosen):  # lines 22-23
        child = _child(node, part, epsilon)
        node.children.append(
            build_sulq_id3(part, rest, _one_less(depth), epsilon, child, stopping=stopping)
        )
    return node  # line 24


def exact_gain_improves(scores: np.ndarray, counts: np.ndarray) -> bool:
    """Non-private reference only: True when the best V̄_A beats the node's own (ID3, FS §3)."""
    root_quality = sulq_information_gain(counts.sum(keepdims=True), counts[None, :])
    return bool(scores.max() > root_quality + 1e-9)


# =============================================================================== FS Alg. 2
def diffp_id3(
    table: PrivateTable,
    attributes: Sequence[str],
    depth: int | None,
    budget: float,
    *,
    criterion: str = "max",
    size_bound: int | None = None,
    n_split_cells: int = DEFAULT_SPLIT_CELLS,
) -> ID3Node:
    """FS Algorithm 2, procedure DiffPID3 (lines 1-5), with FS §4.3's numeric attributes.

    Line 3: ε = B / (2(d+1)); with n numeric attributes among ``attributes`` the budget of
    §4.3, ε = B / ((2+n)d + 2) (the same when n = 0). Then :func:`build_diffp_id3`.

    Parameters
    ----------
    table : PrivateTable
        The private rows T with labels.
    attributes : sequence of str
        Candidate attributes 𝒜 (categorical or numeric names of ``table.domain``).
    depth : int or None
        Maximal depth d (public). None (unlimited) only with ``budget = inf``.
    budget : float
        B (``math.inf``: the non-private reference).
    criterion : {"max", "gini", "infogain"}
        The quality function of the exponential mechanism (FS §4.1).
    size_bound : int, optional
        Public bound N on the number of rows; required for ``"infogain"`` (its sensitivity
        is log2(N+1) + 1/ln 2), unless ``budget = inf``.
    n_split_cells : int, default 256
        Each numeric attribute's public range is cut into this many equal cells; the split
        points are the interior grid points (:func:`split_grid`). Public.

    Returns
    -------
    ID3Node
        The root of the induced tree.

    Notes
    -----
    Privacy claim: B-DP. Each level gets ε; an inner node spends ε (count) + at most n·ε
    (split points; none for an attribute whose interval has no interior grid point) + ε
    (attribute), a leaf 2ε; the nodes of one level are disjoint (parallel composition)
    and the d inner levels plus the leaf level compose sequentially:
    (2+n)·d·ε + 2ε = B.
    """
    budget = check_epsilon(budget, "epsilon", allow_inf=True)
    d = _check_depth(depth, budget)
    crit = get_criterion(criterion)
    if crit.needs_size_bound and size_bound is None and math.isfinite(budget):
        crit.sensitivity(None)  # raises, explaining that N must be public
    if crit.needs_size_bound and size_bound is None:
        sensitivity = 1.0  # the non-private reference: no noise, S is not used
    else:
        sensitivity = crit.sensitivity(size_bound)
    domain = table.domain
    n_numeric = sum(isinstance(domain[a], Numeric) for a in attributes)
    epsilon = budget / ((2 + n_numeric) * d + 2) if d is not None else math.inf
    n_cells = check_int(n_split_cells, "n_split_cells", minimum=2)
    intervals = {a: (0, n_cells) for a in attributes if isinstance(domain[a], Numeric)}
    root = ID3Node(depth=0, condition="(root)", epsilon=epsilon, noisy_count=math.nan)
    return build_diffp_id3(
        table, list(attributes), d, epsilon, root, crit, sensitivity, intervals,
        n_split_cells=n_cells,
    )


def build_diffp_id3(
    table: PrivateTable,
    attributes: list[str],
    depth: int | None,
    epsilon: float,
    node: ID3Node,
    criterion: Criterion,
    sensitivity: float,
    intervals: dict[str, tuple[int, int]],
    *,
    n_split_cells: int = DEFAULT_SPLIT_CELLS,
) -> ID3Node:
    """FS Algorithm 2, procedure Build_DiffPID3 (lines 6-18), filling ``node``.

    Line 8: N_T = NoisyCount_ε(T). Lines 7 and 9: :func:`stopping_rule`; lines 10-12: a
    leaf's noisy class counts at ε and the arg-max label. FS §4.3, "before line 14": the
    candidate splits, with one split point per numeric attribute at ε
    (:func:`split_candidates`). Line 14: Ā = ExpMech_ε(𝒜, q), one
    :meth:`PrivateTable.select` query with the criterion's quality and sensitivity S.
    Lines 15-17: partition by Ā and recurse with 𝒜 minus Ā (nominal attributes are used
    once on a path; numeric ones stay candidates on the narrowed interval,
    :func:`partition_node`), d - 1.

    Parameters
    ----------
    intervals : dict
        Numeric attribute name -> the node's public interval ``(i_lo, i_hi)`` as indices of
        its grid (``(0, n_split_cells)`` at the root).
    n_split_cells : int, default 256
        Cells of each numeric attribute's public grid (:func:`split_grid`).

    Notes
    -----
    Privacy claim: an inner node spends at most (2 + n)ε, a leaf 2ε. N_T: ε-DP
    (sensitivity 1). Leaf class counts: ε-DP (disjoint classes). Each split point: ε-DP
    (:func:`split_candidates`). The attribute choice: ε-DP by the exponential mechanism
    with the quality's sensitivity S (McSherry & Talwar 2007; FS Def. 3, §4.1, App. A;
    S = log2(N+1) + 1/ln 2, 2 or 1). These read the same rows and compose sequentially;
    the children read disjoint parts (parallel composition). With ``epsilon = inf`` the
    choice is the exact arg-max and ID3's pure/empty/no-gain rules apply
    (:func:`exact_best_split`; non-private reference).
    """
    node.noisy_count = float(table.noisy_count(epsilon=epsilon, label=LABEL_COUNT))  # line 8
    reason, counts = stopping_rule(table, node, attributes, depth, epsilon)
    if reason is not None:  # line 9
        return _make_leaf(table, node, reason, counts)  # lines 10-12
    candidates = split_candidates(
        table, node, attributes, intervals, criterion=criterion, sensitivity=sensitivity,
        epsilon=epsilon, n_split_cells=n_split_cells,
    )  # §4.3
    if not candidates:
        return _make_leaf(table, node, "no attribute left")
    if counts is not None:  # ε = inf: the non-private reference
        best = exact_best_split(table, candidates, criterion, counts)
        if best is None:
            return _make_leaf(table, node, "no split improves the criterion (ID3)", counts)
        chosen = best
    else:  # line 14
        quality = _quality_function(candidates, criterion, table.domain.n_classes)
        chosen = table.select(
            candidates, quality, sensitivity=sensitivity, epsilon=epsilon, label=LABEL_SELECT
        )
    assert isinstance(chosen, _Split)
    parts, rest, child_intervals = partition_node(table, node, chosen, attributes, intervals)
    for part, interval in zip(parts, child_intervals, strict=True):  # lines 15-16
        child = _child(node, part, epsilon)
        node.children.append(
            build_diffp_id3(
                part, rest, _one_less(depth), epsilon, child, criterion, sensitivity,
                interval, n_split_cells=n_split_cells,
            )
        )
    return node  # line 17


def split_candidates(
    table: PrivateTable,
    node: ID3Node,
    attributes: Sequence[str],
    intervals: dict[str, tuple[int, int]],
    *,
    criterion: Criterion,
    sensitivity: float,
    epsilon: float,
    n_split_cells: int = DEFAULT_SPLIT_CELLS,
) -> list[_Split]:
    """The candidate splits of a node, FS §4.3 ("before line 14" of Alg. 2).

    A nominal attribute is one candidate (one part per public value). A numeric attribute
    gets a split point at ε by the exponential mechanism over the interior points of the
    node's interval on its public grid (:func:`private_split_point`, one
    :meth:`PrivateTable.select` query), recorded in ``node.split_points``; an attribute
    whose interval has no interior grid point (public) is not a candidate at this node.

    Notes
    -----
    Privacy claim: each split point is ε-DP under add/remove-one-row neighbours: the
    exponential mechanism (McSherry & Talwar 2007; FS Def. 3) over a public finite
    candidate set; the released threshold is one of the public grid doubles, so no
    floating-point lattice depends on the rows.
    """
    domain = table.domain
    candidates: list[_Split] = []
    for name in attributes:
        attribute = domain[name]
        j = domain.index(name)
        if isinstance(attribute, Categorical):
            candidates.append(_Split(name, j, attribute.n_values))
            continue
        i_lo, i_hi = intervals[name]
        if i_hi - i_lo < 2:  # no interior grid point (public): not a candidate here
            continue
        point, index = private_split_point(
            table, name, (i_lo, i_hi), criterion=criterion, sensitivity=sensitivity,
            epsilon=epsilon, n_cells=n_split_cells,
        )
        node.split_points[name] = point
        candidates.append(_Split(name, j, 2, point, index))
    return candidates


def _quality_function(
    candidates: Sequence[_Split], criterion: Criterion, n_classes: int
) -> Callable[[np.ndarray, np.ndarray | None], np.ndarray]:
    """q(T, A) of every candidate, for :meth:`PrivateTable.select` (FS Alg. 2 line 14)."""

    def quality(codes: np.ndarray, labels: np.ndarray | None) -> np.ndarray:
        assert labels is not None
        return attribute_qualities(codes, labels, candidates, criterion, n_classes)

    return quality


def exact_best_split(
    table: PrivateTable, candidates: Sequence[_Split], criterion: Criterion, counts: np.ndarray
) -> _Split | None:
    """Non-private reference only (ε = inf): the arg-max split, or None if none improves.

    ID3's rule (FS §3): a node whose best split does not raise the criterion above the
    node's own quality (``counts`` = its exact class counts) is a leaf.
    """
    scores = np.array(
        [
            criterion.quality(
                table.noisy_histogram(
                    _cell_function(s), epsilon=math.inf, n_cells=s.n_values, label=LABEL_SELECT
                )
            )
            for s in candidates
        ]
    )
    if scores.max() <= criterion.quality(counts[None, :]) + 1e-9:
        return None
    return candidates[int(np.argmax(scores))]


def partition_node(
    table: PrivateTable,
    node: ID3Node,
    chosen: _Split,
    attributes: Sequence[str],
    intervals: dict[str, tuple[int, int]],
) -> tuple[list[PrivateTable], list[str], list[dict[str, tuple[int, int]]]]:
    """FS Alg. 2 line 15: split ``node`` on ``chosen``; the parts, 𝒜 for them, their intervals.

    A nominal attribute leaves 𝒜 (one part per public value); a numeric one stays, with
    the children's grid intervals ``(i_lo, i)`` and ``(i, i_hi)`` for a split at grid index
    i. Free: :meth:`PrivateTable.partition` releases nothing.
    """
    node.attribute = chosen.name
    if chosen.threshold is None:
        parts = table.partition(chosen.name)
        return parts, [a for a in attributes if a != chosen.name], [intervals] * len(parts)
    assert chosen.grid_index is not None
    node.threshold = chosen.threshold
    i_lo, i_hi = intervals[chosen.name]
    child_intervals = [
        {**intervals, chosen.name: (i_lo, chosen.grid_index)},
        {**intervals, chosen.name: (chosen.grid_index, i_hi)},
    ]
    parts = table.partition(chosen.name, threshold=chosen.threshold)
    return parts, list(attributes), child_intervals


def _cell_function(split: _Split) -> Callable[[np.ndarray], np.ndarray]:
    def cells(codes: np.ndarray) -> np.ndarray:
        column = codes[:, split.index]
        if split.threshold is None:
            return column.astype(np.int64)
        return (column > split.threshold).astype(np.int64)

    return cells


# =============================================================================== estimators
class _FSTreeClassifier(DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Shared fit/predict of the FS estimators (subclasses define ``_build``)."""

    _noisy_by_design = True  # scikit-learn's poor_score tag (see DPEstimatorMixin)
    _algorithm = "FS tree"

    def _check_params(self) -> None:
        budget = check_epsilon(self.epsilon, "epsilon", allow_inf=True)
        _check_depth(self.max_depth, budget)
        self._check_algorithm_params(budget)

    def _fit_codes(
        self, codes: np.ndarray, labels: np.ndarray, domain: Domain
    ) -> _FSTreeClassifier:
        """Build the tree through a :class:`PrivateTable` of budget ``epsilon``.

        Fitted: ``tree_`` (an :class:`ID3Tree`), ``ledger_`` (every query and its ε),
        ``epsilon_`` (ε per query of a level), ``classes_``, ``domain_``.
        """
        budget = check_epsilon(self.epsilon, "epsilon", allow_inf=True)
        depth = _check_depth(self.max_depth, budget)
        self._check_shares(budget, depth, domain)
        rng = self._rng()
        # the public key of the unknown-category routing (drawn first, as before: the
        # noise that follows is unchanged), see ``route``
        self._unknown_key_ = int(rng.integers(0, 2**63 - 1))
        table = self._private_table(codes, labels, domain, budget, rng)
        root = self._build(table, list(domain.names), depth, budget)
        self.ledger_: Ledger = table.ledger
        self.epsilon_ = root.epsilon
        self.tree_ = ID3Tree(
            root, domain, algorithm=self._algorithm_name(), budget=budget, epsilon=root.epsilon
        )
        self._flat_ = flatten(root, domain)
        return self

    def _check_shares(self, budget: float, depth: int | None, domain: Domain) -> None:
        """Refuse, before any query, a budget whose per-query share the samplers cannot serve.

        The root always queries its noisy count at the level's ε, so a share below
        :data:`dpviz.mechanisms.MIN_NOISE_RATE` (or one that underflowed to 0) would fail
        at the first query anyway; here the message names ``epsilon`` as the user passed it.
        """
        if math.isinf(budget):
            return
        for share, how in self._shares(budget, depth, domain):
            try:
                mechanisms.check_noise_rate(share, 1.0, what="the ε of one query")
            except InvalidParameterError as exc:
                raise InvalidParameterError(
                    f"epsilon={self.epsilon!r} {how} gives {share:.6g} per query: {exc}"
                ) from None

    # ------------------------------------------------------------------ hooks
    def _shares(
        self, budget: float, depth: int | None, domain: Domain
    ) -> list[tuple[float, str]]:  # pragma: no cover - overridden
        return []

    def _check_algorithm_params(self, budget: float) -> None:  # pragma: no cover
        pass

    def _build(
        self, table: PrivateTable, attributes: list[str], depth: int | None, budget: float
    ) -> ID3Node:  # pragma: no cover - overridden
        raise NotImplementedError

    def _algorithm_name(self) -> str:
        return self._algorithm

    # ------------------------------------------------------------------ predict
    def _leaves(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "tree_")
        codes = self._predict_codes(X)
        return self._leaves_encoded(codes)

    def _leaves_encoded(self, codes: np.ndarray) -> np.ndarray:
        return route(self._flat_, codes, self._unknown_key_)

    def label_and_unclassified_encoded(
        self, codes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Class codes and the unclassified mask of rows already encoded with ``domain_``.

        :meth:`predict_encoded` and :meth:`unclassified_mask` together (one routing), for
        the reproductions that score thousands of models.

        Returns
        -------
        labels : ndarray of int
            Predicted class codes (``domain_.classes`` order).
        unclassified : ndarray of bool
            Rows that end in an empty leaf (see :meth:`unclassified_mask`).
        """
        check_is_fitted(self, "tree_")
        leaves = self._leaves_encoded(check_encoded(codes, self.domain_, unknown=True)[0])
        return self._flat_.label[leaves], self._flat_.unclassified[leaves]

    def _label_codes(self, codes: np.ndarray) -> np.ndarray:
        """Predicted class of each row: the noisy arg-max of the leaf it reaches.

        A row that ends in an empty leaf (noisy count ``N_T <= 0``: *unclassified*, see
        :meth:`unclassified_mask`) gets the noisy majority of its nearest ancestor with a
        positive noisy count. With ``unknown="random"`` a category outside the public domain
        goes to the child its node's key picks (see the class docstring): a function of the
        model and the row only.
        """
        check_is_fitted(self, "tree_")
        return self._flat_.label[self._leaves_encoded(codes)]

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        """Class probabilities: the leaf's noisy class counts, negatives set to 0, normalised.

        A leaf whose counts are all <= 0 puts probability 1 on its label; an unclassified
        row gets its fallback ancestor's distribution (see :meth:`predict`). Rows sum to 1.
        """
        check_is_fitted(self, "tree_")
        return self._flat_.proba[self._leaves_encoded(codes)].copy()

    def unclassified_mask(self, X: Any) -> np.ndarray:
        """True for rows that end in an empty leaf (noisy count ``N_T <= 0``).

        ID3 has no class for a branch that no training row reached; JPW Table I counts such
        test rows as wrong. ``predict`` still labels them (see there).
        """
        leaves = self._leaves(X)
        return self._flat_.unclassified[leaves].copy()

    def apply(self, X: Any) -> np.ndarray:
        """Index of the leaf each row reaches (in the order of :meth:`ID3Tree.to_frame`)."""
        leaves = self._leaves(X)
        flat = self._flat_
        position = {id(node): k for k, node in enumerate(self.tree_.nodes())}
        mapping = np.array([position[id(node)] for node in flat.nodes], dtype=np.int64)
        return mapping[leaves]

    # ------------------------------------------------------------------ sklearn
    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        tags.input_tags.allow_nan = False
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags


class SuLQID3Classifier(_FSTreeClassifier):
    """SuLQ-based ID3 of Friedman & Schuster (KDD 2010, Algorithm 1): ID3 from noisy counts.

    Every attribute's information gain is estimated from noisy counts (FS eq. (2)), so the
    level's budget is split over 2|𝒜| count queries: the wasteful baseline of FS Table 1.

    Parameters
    ----------
    epsilon : float, default 1.0
        The total privacy budget B (> 0). ``math.inf`` builds the non-private ID3.
    max_depth : int or None, default 5
        Maximal depth d (public); each of the d + 1 levels gets ε = B / (2(d+1)). None
        (unlimited) only with ``epsilon=math.inf``.
    stopping : {"fs", "id3"}, default "fs"
        FS's stopping rule (Alg. 1 line 9) or ID3's "no rows" rule read from the noisy
        count (N_T <= 0), the private ID3 of JPW §III (see :func:`sulq_id3`).
    domain : Domain, optional
        The public schema (nominal attributes only). Without one it is derived from the
        rows with a :class:`~dpviz.errors.PrivacyLeakWarning`.
    unknown : {"raise", "random"}, default "raise"
        Prediction-time policy for categories outside the domain: ``"raise"`` refuses them
        (:class:`~dpviz.errors.UnknownCategoryError`); ``"random"`` sends such a value, at
        a node that tests its attribute, to a random child. What is random: the child of
        each node, a keyed uniform (:func:`dpviz.keyed.uniforms`) of a public per-model key
        drawn from ``random_state`` at fit time and of the node. It depends on the model
        and the node only, never on the other rows: a row gets the same prediction alone,
        in any batch and in any order, and every unknown value at one node goes to the
        same child (uniform over the key's draw). The key never depends on the rows.
    random_state : int, Generator or None
        Source of the noise; the same int gives the same tree and predictions.

    Attributes
    ----------
    tree_ : ID3Tree
        The induced tree (text, HTML and chart views).
    ledger_ : Ledger
        Every query with its ε and level (``ledger_.summary("depth")``).
    epsilon_ : float
        ε of a level (FS Alg. 1 line 3); the attribute counts use ε / (2|𝒜|).
    classes_, domain_, n_features_in_
        As in scikit-learn.

    Notes
    -----
    Privacy claim: the fitted model (and everything in ``tree_``) is ``epsilon``-DP with
    respect to the training rows: see :func:`sulq_id3`.
    """

    _algorithm = "SuLQ-based ID3"

    def _domain_input(self, X: Any) -> Any:
        """Without a Domain, a column of whole numbers is nominal (its codes are the values).

        SuLQ-based ID3 handles nominal attributes only (FS Alg. 1): an integer-coded column,
        scikit-learn's ``categorical`` input (the tag this class carries), is read as one;
        a column with fractions stays numeric and ``fit`` refuses it.
        """
        return whole_numbers_as_nominal(super()._domain_input(X))

    def __init__(
        self,
        epsilon: float = 1.0,
        max_depth: int | None = 5,
        *,
        stopping: str = "fs",
        domain: Domain | None = None,
        unknown: str = "raise",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.stopping = stopping
        self.domain = domain
        self.unknown = unknown
        self.random_state = random_state

    def _build(
        self, table: PrivateTable, attributes: list[str], depth: int | None, budget: float
    ) -> ID3Node:
        return sulq_id3(table, attributes, depth, budget, stopping=self.stopping)

    def _shares(
        self, budget: float, depth: int | None, domain: Domain
    ) -> list[tuple[float, str]]:
        """ε per level (FS Alg. 1 line 3) and per attribute count query (lines 17-18)."""
        d = 0 if depth is None else depth
        level = budget / (2 * (d + 1))
        shares = [(level, f"split over the {d + 1} levels, ε = B / (2(d+1)) with max_depth={d},")]
        if d > 0:
            k = len(domain)
            shares.append((level / (2 * k), f"split over the {d + 1} levels and the 2|𝒜| = "
                           f"{2 * k} attribute count queries of a node, ε / (2|𝒜|),"))
        return shares

    def _check_algorithm_params(self, budget: float) -> None:
        if self.stopping not in ("fs", "id3"):
            raise InvalidParameterError(f"stopping must be 'fs' or 'id3', got {self.stopping!r}")

    def _algorithm_name(self) -> str:
        rule = "" if self.stopping == "fs" else ", ID3 stopping rule"
        return f"SuLQ-based ID3{rule}"


class DiffPID3Classifier(_FSTreeClassifier):
    """DiffPID3 of Friedman & Schuster (KDD 2010, Algorithm 2), with DiffPC4.5's options.

    One exponential-mechanism query per node chooses the split attribute with the quality
    function ``criterion`` (FS §4.1). Numeric attributes get a split point per node by the
    exponential mechanism of FS §4.3 on a public grid: the attribute's public range is cut
    into ``n_split_cells`` equal cells and the split point is one of the grid points inside
    the node's interval (FS's continuous output space discretised: see
    :mod:`dpviz.trees.id3_split_point` for why). The budget becomes
    ε = B / ((2+n)d + 2) with n numeric attributes. ``prune=True`` adds FS Algorithm 3
    (C4.5 error-based pruning on corrected noisy counts, free).

    Parameters
    ----------
    epsilon : float, default 1.0
        The total privacy budget B (> 0). ``math.inf`` builds the non-private reference.
    max_depth : int or None, default 5
        Maximal depth d (public). None (unlimited) only with ``epsilon=math.inf``.
    criterion : {"max", "gini", "infogain"}, default "max"
        Quality function: Max (sensitivity 1), Gini (2) or information gain
        (log2(N+1) + 1/ln 2).
    size_bound : int, optional
        Public bound N on the number of training rows, given by the data provider (never
        computed from the rows). Required by ``criterion="infogain"``. It must really bound
        the data: with more than N rows the InfoGain sensitivity is understated and the
        ε-DP claim fails (which dpviz cannot check without reading the rows).
    prune : bool, default False
        Prune with noisy counts (FS Alg. 3). :class:`DiffPC45Classifier` defaults to True.
    confidence : float, default 0.25
        C4.5's certainty factor CF for pruning.
    n_split_cells : int, default 256
        Number of equal cells of each numeric attribute's public range ``[low, high]``
        (at least 2); the candidate split points are the grid points
        ``low + (high - low) · i / n_split_cells`` (:func:`split_grid`), so every released
        threshold is one of these public doubles. Finer grids follow FS's continuous
        mechanism more closely; the resolution is ``(high - low) / n_split_cells``.
    domain : Domain, optional
        The public schema (categorical values, numeric bounds, classes). Without one it is
        derived from the rows with a :class:`~dpviz.errors.PrivacyLeakWarning`.
    unknown : {"raise", "random"}, default "raise"
        Prediction-time policy for categories outside the domain: ``"raise"`` refuses them
        (:class:`~dpviz.errors.UnknownCategoryError`); ``"random"`` sends such a value, at
        a node that tests its attribute, to a random child. What is random: the child of
        each node, a keyed uniform (:func:`dpviz.keyed.uniforms`) of a public per-model key
        drawn from ``random_state`` at fit time and of the node. It depends on the model
        and the node only, never on the other rows: a row gets the same prediction alone,
        in any batch and in any order, and every unknown value at one node goes to the
        same child (uniform over the key's draw). The key never depends on the rows.
    random_state : int, Generator or None
        Source of the noise; the same int gives the same tree and predictions.

    Attributes
    ----------
    tree_ : ID3Tree
        The induced tree (text, HTML and chart views).
    ledger_ : Ledger
        Every query with its ε and level (``ledger_.summary("depth")``).
    epsilon_ : float
        ε of each query (FS Alg. 2 line 3, or §4.3 with numeric attributes).
    classes_, domain_, n_features_in_
        As in scikit-learn.

    Notes
    -----
    Privacy claim: the fitted model is ``epsilon``-DP with respect to the training rows
    (:func:`diffp_id3`); pruning and prediction are post-processing. Each numeric split
    point is ε-DP under add/remove-one-row neighbours: the exponential mechanism
    (McSherry & Talwar 2007; FS Def. 3) over a public finite candidate set; the released
    threshold is one of the public grid doubles, so no floating-point lattice depends on
    the rows.

    Examples
    --------
    >>> from dpviz.data.synthetic import fs_single_split_data
    >>> data = fs_single_split_data(3000, random_state=0)
    >>> model = DiffPID3Classifier(0.1, max_depth=1, domain=data.domain, random_state=0)
    >>> model.fit(data.X, data.y).score(data.test.X, data.test.y) > 0.9
    True
    """

    _algorithm = "DiffPID3"

    def __init__(
        self,
        epsilon: float = 1.0,
        max_depth: int | None = 5,
        *,
        criterion: str = "max",
        size_bound: int | None = None,
        prune: bool = False,
        confidence: float = 0.25,
        n_split_cells: int = DEFAULT_SPLIT_CELLS,
        domain: Domain | None = None,
        unknown: str = "raise",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.criterion = criterion
        self.size_bound = size_bound
        self.prune = prune
        self.confidence = confidence
        self.n_split_cells = n_split_cells
        self.domain = domain
        self.unknown = unknown
        self.random_state = random_state

    def _shares(
        self, budget: float, depth: int | None, domain: Domain
    ) -> list[tuple[float, str]]:
        """ε per level: FS Alg. 2 line 3, or §4.3 with n numeric attributes."""
        d = 0 if depth is None else depth
        n = int((~domain.categorical_mask).sum())
        how = f"split over the levels, ε = B / ((2+n)d + 2) with n={n}, max_depth={d},"
        return [(budget / ((2 + n) * d + 2), how)]

    def _check_algorithm_params(self, budget: float) -> None:
        check_bool(self.prune, "prune")
        crit = get_criterion(self.criterion)
        if crit.needs_size_bound and (self.size_bound is not None or math.isfinite(budget)):
            crit.sensitivity(self.size_bound)  # raises if missing or invalid
        conf = check_probability(self.confidence, "confidence")
        if not 0 < conf < 1:
            raise InvalidParameterError(f"confidence must lie in (0, 1), got {self.confidence!r}")
        check_int(self.n_split_cells, "n_split_cells", minimum=2)

    def _algorithm_name(self) -> str:
        numeric = self.domain_ is not None and not self.domain_.categorical_mask.all()
        name = "DiffPC4.5" if numeric or self.prune else "DiffPID3"
        return f"{name} ({str(self.criterion).lower()}{', pruned' if self.prune else ''})"

    def _build(
        self, table: PrivateTable, attributes: list[str], depth: int | None, budget: float
    ) -> ID3Node:
        root = diffp_id3(
            table,
            attributes,
            depth,
            budget,
            criterion=self.criterion,
            size_bound=self.size_bound,
            n_split_cells=self.n_split_cells,
        )
        if self.prune:
            prune_noisy_counts(root, self.confidence)
        return root


class DiffPC45Classifier(DiffPID3Classifier):
    """DiffPC4.5 of Friedman & Schuster (KDD 2010, §4.2-4.3): DiffPID3 with pruning on.

    Numeric attributes are split by the exponential mechanism over the points of a public
    grid of their range (``n_split_cells`` equal cells; ε = B / ((2+n)d + 2)); the tree is
    pruned with noisy counts (FS Alg. 3, CF = 0.25). Parameters as
    :class:`DiffPID3Classifier` (``prune`` defaults to True).

    Parameters
    ----------
    epsilon : float, default 1.0
        The total privacy budget B (> 0).
    max_depth : int or None, default 5
        Maximal depth d (public).
    criterion : {"max", "gini", "infogain"}, default "max"
        Quality function.
    size_bound : int, optional
        Public bound N on the number of rows (``"infogain"``).
    prune : bool, default True
        Prune with noisy counts (FS Alg. 3).
    confidence : float, default 0.25
        C4.5's certainty factor CF.
    n_split_cells : int, default 256
        Equal cells of each numeric attribute's public range; the split points are the
        grid points (see :class:`DiffPID3Classifier`).
    domain : Domain, optional
        The public schema.
    unknown : {"raise", "random"}, default "raise"
        Prediction-time policy for categories outside the domain: ``"raise"`` refuses them
        (:class:`~dpviz.errors.UnknownCategoryError`); ``"random"`` sends such a value, at
        a node that tests its attribute, to a random child. What is random: the child of
        each node, a keyed uniform (:func:`dpviz.keyed.uniforms`) of a public per-model key
        drawn from ``random_state`` at fit time and of the node. It depends on the model
        and the node only, never on the other rows: a row gets the same prediction alone,
        in any batch and in any order, and every unknown value at one node goes to the
        same child (uniform over the key's draw). The key never depends on the rows.
    random_state : int, Generator or None
        Source of the noise.

    Notes
    -----
    Privacy claim: as :class:`DiffPID3Classifier`: ``epsilon``-DP; each split point is the
    exponential mechanism over a public finite candidate set (the grid), so the released
    thresholds are public doubles.
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        max_depth: int | None = 5,
        *,
        criterion: str = "max",
        size_bound: int | None = None,
        prune: bool = True,
        confidence: float = 0.25,
        n_split_cells: int = DEFAULT_SPLIT_CELLS,
        domain: Domain | None = None,
        unknown: str = "raise",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(
            epsilon,
            max_depth,
            criterion=criterion,
            size_bound=size_bound,
            prune=prune,
            confidence=confidence,
            n_split_cells=n_split_cells,
            domain=domain,
            unknown=unknown,
            random_state=random_state,
        )
