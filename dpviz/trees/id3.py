"""Friedman & Schuster (KDD 2010): private ID3 and C4.5 over a :class:`~dpviz.privacy.PrivateTable`.

The paper's procedures (Alg. 1: :func:`sulq_id3`; Alg. 2 with §4.3: :func:`diffp_id3`;
Alg. 3: :func:`prune_noisy_counts`) read the rows only through table queries; the estimators
call them. Twin in the paper's words: :mod:`dpviz.pseudocode.fs`. A leaf with N_T <= 0 is
*empty*: rows ending there are unclassified (:meth:`DiffPID3Classifier.unclassified_mask`)
and get their nearest non-empty ancestor's label. ``epsilon=math.inf`` is the non-private
reference (exact answers, ID3's own stopping rules).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpviz import mechanisms
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.privacy import Ledger, PrivateTable
from dpviz.records import atomic, open_table
from dpviz.trees._base import Classifier, DPEstimatorMixin, check_fitted, whole_numbers_as_nominal
from dpviz.trees.id3_quality import Criterion, get_criterion, sulq_information_gain
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
from dpviz.trees.id3_view import ID3Node, ID3Tree, flatten, route
from dpviz.validation import check_bool, check_epsilon, check_int, check_probability

__all__ = [
    "C45_TOLERANCE", "DEFAULT_SPLIT_CELLS", "LABEL_POINT", "DiffPC45Classifier",
    "DiffPID3Classifier", "ID3Node", "ID3Tree", "SuLQID3Classifier", "attribute_qualities",
    "bottom_up_aggregate", "build_diffp_id3", "build_sulq_id3", "categorical_splits",
    "choose_split_point", "choose_split_point_continuous", "diffp_id3", "exact_best_split",
    "exact_gain_improves", "grid_split_qualities", "partition_node", "pessimistic_errors",
    "private_split_point", "prune_c45", "prune_noisy_counts", "split_candidates", "split_grid",
    "split_point_grid_probabilities", "split_point_probabilities", "split_point_ranges",
    "stopping_rule", "sulq_attribute_scores", "sulq_id3", "top_down_correct",
]

#: FS Alg. 1/2 line 9: split only if N_T / (t |C|) >= sqrt(2) / ε.
SQRT2 = math.sqrt(2.0)

#: Ledger labels of the query kinds (the ledger can be summarised by label).
LABEL_COUNT = "node count"
LABEL_LEAF = "leaf class counts"
LABEL_SELECT = "split attribute"
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


def _cells(codes: np.ndarray, split: _Split) -> np.ndarray:
    column = codes[:, split.index]
    return (column if split.threshold is None else column > split.threshold).astype(np.int64)


def categorical_splits(domain: Domain) -> list[_Split]:
    """The candidate split of every categorical attribute of ``domain`` (one part per value)."""
    return [_Split(a.name, j, a.n_values) for j, a in enumerate(domain) if a.is_categorical]


def attribute_qualities(
    codes: np.ndarray, labels: np.ndarray, splits: Sequence[_Split], criterion: Criterion,
    n_classes: int,
) -> np.ndarray:
    """FS Alg. 2 line 14's quality q(T, A) of every candidate split on the node's rows."""
    tables = [  # the exact counts τ_jc of each split: (part j, class c)
        np.bincount(_cells(codes, s) * n_classes + labels, minlength=s.n_values * n_classes)
        .reshape(s.n_values, n_classes).astype(np.float64)
        for s in splits
    ]
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
    return None if depth is None else depth - 1


def _child(node: ID3Node, part: PrivateTable, epsilon: float) -> ID3Node:
    """An empty child of ``node`` for the part ``part`` of its partition (FS line 16/23)."""
    condition = part.path[-1] if part.path else "(root)"
    return ID3Node(depth=node.depth + 1, condition=condition, epsilon=epsilon, noisy_count=math.nan)


def _make_leaf(
    table: PrivateTable, node: ID3Node, reason: str, counts: np.ndarray | None = None
) -> ID3Node:
    """FS lines 10-12: noisy class counts at ε (or the given exact ones), arg-max label."""
    if counts is None:
        counts = table.noisy_class_counts(epsilon=node.epsilon, label=LABEL_LEAF)
    node.class_counts = np.asarray(counts, dtype=np.float64)
    node.label = _argmax_random(node.class_counts, table.rng)
    node.stop = reason
    return node


def _exact_stop(table: PrivateTable) -> tuple[str | None, np.ndarray]:
    """ε = inf only: ID3's own rules, a pure or empty node (FS §3)."""
    counts = table.noisy_class_counts(epsilon=math.inf, label=LABEL_LEAF)
    if counts.sum() == 0:
        return "empty node (ID3)", counts
    if (counts > 0).sum() == 1:
        return "pure node (ID3)", counts
    return None, counts


def stopping_rule(
    table: PrivateTable, node: ID3Node, attributes: Sequence[str], depth: int | None,
    epsilon: float, *, stopping: str = "fs",
) -> tuple[str | None, np.ndarray | None]:
    """FS Alg. 1/2 lines 7 and 9: why ``node`` is a leaf (or None), and its exact counts (ε = inf).

    A leaf if 𝒜 = ∅, d = 0 or N_T / (t|C|) < √2/ε (``"id3"``: N_T <= 0); ε = inf: ID3's rules.
    """
    if not attributes:
        return "no attribute left", None
    if depth == 0:
        return "maximal depth", None
    if math.isinf(epsilon):
        return _exact_stop(table)
    if stopping == "id3":
        node.stop_below = 0.0
        return ("no rows: N_T <= 0 (ID3 rule)" if node.noisy_count <= 0 else None), None
    t = max(_branching(table.domain, a) for a in attributes)  # line 7
    node.stop_below = SQRT2 / epsilon * t * table.domain.n_classes
    if node.noisy_count / (t * table.domain.n_classes) < SQRT2 / epsilon:
        return "too few rows: N_T/(t|C|) < √2/ε", None
    return None, None


# =============================================================================== FS Alg. 1
def sulq_id3(
    table: PrivateTable, attributes: Sequence[str], depth: int | None, budget: float, *,
    stopping: str = "fs",
) -> ID3Node:
    """FS Algorithm 1, SuLQ_ID3: ε = B / (2(d+1)), then :func:`build_sulq_id3` from the root.

    B-DP in the rows (add/remove one); argument: docs/privacy.md §8.2.1.
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
    """FS Alg. 1 lines 14-20: V̄_A of every attribute from noisy counts at ε / (2|𝒜|) each."""
    share = epsilon / (2 * len(attributes))
    scores = np.empty(len(attributes))
    for k, name in enumerate(attributes):
        n_j = table.noisy_histogram(name, epsilon=share, classes=False, label=LABEL_VALUE_COUNTS)
        n_jc = table.noisy_histogram(name, epsilon=share, classes=True, label=LABEL_CELL_COUNTS)
        scores[k] = sulq_information_gain(n_j, n_jc)
    return scores


def build_sulq_id3(
    table: PrivateTable, attributes: list[str], depth: int | None, epsilon: float, node: ID3Node,
    *, stopping: str = "fs",
) -> ID3Node:
    """FS Algorithm 1, Build_SuLQ_ID3 (lines 6-25), filling ``node``; 2ε per node.

    Line 23's "𝒜 minus i" removes the chosen attribute (docs/papers.md, errata).
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
    """ε = inf only: True when the best V̄_A beats the node's own (ID3, FS §3)."""
    root_quality = sulq_information_gain(counts.sum(keepdims=True), counts[None, :])
    return bool(scores.max() > root_quality + 1e-9)


# =============================================================================== FS Alg. 2
def diffp_id3(
    table: PrivateTable, attributes: Sequence[str], depth: int | None, budget: float, *,
    criterion: str = "max", size_bound: int | None = None,
    n_split_cells: int = DEFAULT_SPLIT_CELLS,
) -> ID3Node:
    """FS Algorithm 2, DiffPID3, with §4.3: ε = B / ((2+n)d + 2) for n numeric attributes.

    B-DP in the rows (add/remove one) if ``size_bound`` bounds them; docs/privacy.md §8.2.1.
    """
    budget = check_epsilon(budget, "epsilon", allow_inf=True)
    d = _check_depth(depth, budget)
    crit = get_criterion(criterion)
    if crit.needs_size_bound and size_bound is None and math.isinf(budget):
        sensitivity = 1.0  # the non-private reference: no noise, S is not used
    else:
        sensitivity = crit.sensitivity(size_bound)  # raises if N is needed and missing
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
    table: PrivateTable, attributes: list[str], depth: int | None, epsilon: float, node: ID3Node,
    criterion: Criterion, sensitivity: float, intervals: dict[str, tuple[int, int]], *,
    n_split_cells: int = DEFAULT_SPLIT_CELLS,
) -> ID3Node:
    """FS Algorithm 2, Build_DiffPID3 (lines 6-18), filling ``node`` (``intervals``: grid)."""
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
        n_classes = table.domain.n_classes
        chosen = table.select(
            candidates,
            lambda codes, labels: attribute_qualities(codes, labels, candidates, criterion,
                                                      n_classes),
            sensitivity=sensitivity, epsilon=epsilon, label=LABEL_SELECT,
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
    table: PrivateTable, node: ID3Node, attributes: Sequence[str],
    intervals: dict[str, tuple[int, int]], *, criterion: Criterion, sensitivity: float,
    epsilon: float, n_split_cells: int = DEFAULT_SPLIT_CELLS,
) -> list[_Split]:
    """The candidate splits of a node (FS §4.3); numeric ones get an ε-DP split point."""
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


def exact_best_split(
    table: PrivateTable, candidates: Sequence[_Split], criterion: Criterion, counts: np.ndarray
) -> _Split | None:
    """ε = inf only: the arg-max split, or None if none beats the node's quality."""
    scores = np.array(
        [
            criterion.quality(
                table.noisy_histogram(lambda codes, s=s: _cells(codes, s), epsilon=math.inf,
                                      n_cells=s.n_values, label=LABEL_SELECT)
            )
            for s in candidates
        ]
    )
    if scores.max() <= criterion.quality(counts[None, :]) + 1e-9:
        return None
    return candidates[int(np.argmax(scores))]


def partition_node(
    table: PrivateTable, node: ID3Node, chosen: _Split, attributes: Sequence[str],
    intervals: dict[str, tuple[int, int]],
) -> tuple[list[PrivateTable], list[str], list[dict[str, tuple[int, int]]]]:
    """FS Alg. 2 line 15: split ``node`` on ``chosen``: the parts, their 𝒜, their grid intervals."""
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


# =============================================================================== FS Alg. 3
#: C4.5's tolerance when comparing a leaf's estimated errors with its subtree's (Quinlan's
#: C4.5 code and Weka's J48 prune when ``leaf <= subtree + 0.1``).
C45_TOLERANCE = 0.1


def prune_noisy_counts(root: ID3Node, confidence: float = 0.25) -> ID3Node:
    """FS Algorithm 3, PRUNE (lines 2-6): correct, aggregate, then C4.5-prune ``root`` in place."""
    cf = _check_confidence(confidence)
    top_down_correct(root, max(root.noisy_count, 0.0))  # line 3
    bottom_up_aggregate(root)  # line 4
    prune_c45(root, cf)  # line 5
    return root


def _check_confidence(confidence: object) -> float:
    cf = check_probability(confidence, "confidence")
    if not 0 < cf < 1:
        raise InvalidParameterError(f"confidence must lie in (0, 1), got {confidence!r}")
    return cf


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
    from scipy.special import betaincinv  # here: only C4.5's pruning needs scipy (0.2 s)

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


# =============================================================================== estimators
class _FSTreeClassifier(DPEstimatorMixin, Classifier):
    """Shared fit/predict of the FS estimators (subclasses define ``_build``)."""

    _noisy_by_design = True  # scikit-learn's poor_score tag (see DPEstimatorMixin)

    def _check_params(self) -> None:
        budget = self._epsilon()
        _check_depth(self.max_depth, budget)
        self._check_algorithm_params(budget)

    def fit(self, X: Any, y: Any) -> Any:
        """The paper's algorithm (the class's) on the rows ``X`` and labels ``y``; all or nothing.

        ``X``: a DataFrame, an array, or :class:`~dpviz.domain.Encoded` rows of the domain.
        """
        self._check_params()
        return atomic(self, "fit", lambda work: work._fit_tree(X, y))

    def _fit_tree(self, X: Any, y: Any) -> Any:
        """The inputs, the budget check, the private table, then the subclass's ``_build``."""
        codes, labels, domain = self._fit_inputs(X, y)
        budget = self._epsilon()
        depth = _check_depth(self.max_depth, budget)
        self._check_shares(budget, depth, domain)
        rng = self._rng()
        # the public key of the unknown-category routing (drawn first), see ``route``
        self._unknown_key_ = int(rng.integers(0, 2**63 - 1))
        table = open_table(self, codes, labels, domain=domain, epsilon=budget, rng=rng)
        root = self._build(table, list(domain.names), depth, budget)
        self.ledger_: Ledger = table.ledger
        self.epsilon_ = root.epsilon
        self.tree_ = ID3Tree(root, domain, algorithm=self._algorithm_name(), budget=budget,
                             epsilon=root.epsilon)
        self._flat_ = flatten(root, domain)
        return self

    def _check_shares(self, budget: float, depth: int | None, domain: Domain) -> None:
        """Refuse, before any query, a budget whose per-query share the samplers cannot serve."""
        if math.isinf(budget):
            return
        for share, how in self._shares(budget, depth, domain):
            try:
                mechanisms.check_noise_rate(share, 1.0, what="the ε of one query")
            except InvalidParameterError as exc:
                raise InvalidParameterError(
                    f"epsilon={self.epsilon!r} {how} gives {share:.6g} per query: {exc}"
                ) from None

    # hooks of the subclasses: _shares (ε per query), _check_algorithm_params, _build,
    # _algorithm_name
    def _leaves(self, X: Any) -> np.ndarray:
        check_fitted(self, "tree_")
        return self._leaves_encoded(self._predict_codes(X))

    def _leaves_encoded(self, codes: np.ndarray) -> np.ndarray:
        return route(self._flat_, codes, self._unknown_key_)

    def _label_codes(self, codes: np.ndarray) -> np.ndarray:
        """The arg-max of the leaf each row reaches (unclassified: see the module docstring)."""
        check_fitted(self, "tree_")
        return self._flat_.label[self._leaves_encoded(codes)]

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        """The leaf's noisy class counts, negatives set to 0, normalised (all <= 0: its label)."""
        check_fitted(self, "tree_")
        return self._flat_.proba[self._leaves_encoded(codes)].copy()

    def unclassified_mask(self, X: Any) -> np.ndarray:
        """True for rows that end in an empty leaf (N_T <= 0), which ``predict`` still labels."""
        leaves = self._leaves(X)  # first: raises NotFittedError before _flat_ is read
        return self._flat_.unclassified[leaves].copy()

    def apply(self, X: Any) -> np.ndarray:
        """Index of the leaf each row reaches (the numbering of :meth:`ID3Tree.to_frame`)."""
        leaves = self._leaves(X)
        position = {id(node): k for k, node in enumerate(self.tree_.nodes())}
        return np.array([position[id(node)] for node in self._flat_.nodes], dtype=np.int64)[leaves]

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        tags.input_tags.allow_nan = False
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags


class SuLQID3Classifier(_FSTreeClassifier):
    """SuLQ-based ID3 (FS Algorithm 1): information gain from noisy counts.

    The level's budget is split over 2|𝒜| count queries: FS Table 1's wasteful baseline.
    B-DP in the rows (add/remove one); argument: docs/privacy.md §8.2.1. Twin:
    :func:`dpviz.pseudocode.fs.sulq_id3`.

    Parameters
    ----------
    epsilon : float, default 1.0
        The total budget B; ``math.inf``: the non-private reference.
    max_depth : int or None, default 5
        Maximal depth d (public); None only with ``epsilon=math.inf``.
    stopping : {"fs", "id3"}, default "fs"
        FS's rule (line 9) or ID3's "no rows" rule on the noisy count (N_T <= 0, JPW §III).
    domain : Domain or None, default None
        Public schema; derived from the rows (PrivacyLeakWarning) if omitted.
    unknown : {"raise", "random"}, default "raise"
        Unseen categories at predict time: refused, or sent to a child picked by a public
        keyed uniform of the node.
    random_state : int or None, default None
        Seed of the structure and the noise, a curator secret: to publish a release,
        None (128 bits of OS entropy) or a recorded dpviz.fresh_seed(). A Generator is
        refused: scikit-learn's clone copies it in its state.

    Attributes
    ----------
    tree_ : ID3Tree
        The released tree (text, HTML, frame).
    ledger_ : Ledger
        Every query of the current model with its ε (and tree level); earlier fits of
        this object, interrupted ones too: ``privacy_record``.
    epsilon_ : float
        ε of each query of a level.
    """

    def _domain_input(self, X: Any) -> Any:
        return whole_numbers_as_nominal(super()._domain_input(X))

    def __init__(
        self, epsilon: float = 1.0, max_depth: int | None = 5, *, stopping: str = "fs",
        domain: Domain | None = None, unknown: str = "raise",
        random_state: int | None = None,
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

    def _shares(self, budget: float, depth: int | None, domain: Domain) -> list[tuple[float, str]]:
        """ε per level (line 3) and per attribute count query (lines 17-18)."""
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
    """DiffPID3 (FS Algorithm 2) with DiffPC4.5's numeric split points and pruning.

    One exponential-mechanism query per node picks the split attribute (FS §4.1); a numeric
    attribute gets a split point per node on a public grid (FS §4.3,
    :mod:`dpviz.trees.id3_split_point`), so ε = B / ((2+n)d + 2) with n numeric attributes;
    ``prune=True`` adds FS Algorithm 3 (free). B-DP in the rows (add/remove one); argument:
    docs/privacy.md §8.2.1. Twin: :func:`dpviz.pseudocode.fs.diffp_id3`.

    Parameters
    ----------
    epsilon : float, default 1.0
        The total budget B; ``math.inf``: the non-private reference.
    max_depth : int or None, default 5
        Maximal depth d (public); None only with ``epsilon=math.inf``.
    criterion : {"max", "gini", "infogain"}, default "max"
        Quality function, of sensitivity 1, 2 or log2(N+1) + 1/ln 2.
    size_bound : int or None, default None
        Public bound N on the number of rows (never computed from them); ``"infogain"`` needs
        it, and more than N rows void the claim.
    prune : bool, default False
        Prune with noisy counts (FS Alg. 3).
    confidence : float, default 0.25
        C4.5's certainty factor CF.
    n_split_cells : int, default 256
        Equal cells of each numeric attribute's public range; the split points are the grid
        points (:func:`split_grid`).
    domain : Domain or None, default None
        Public schema; derived from the rows (PrivacyLeakWarning) if omitted.
    unknown : {"raise", "random"}, default "raise"
        Unseen categories at predict time: refused, or sent to a child picked by a public
        keyed uniform of the node.
    random_state : int or None, default None
        Seed of the structure and the noise, a curator secret: to publish a release,
        None (128 bits of OS entropy) or a recorded dpviz.fresh_seed(). A Generator is
        refused: scikit-learn's clone copies it in its state.

    Attributes
    ----------
    tree_ : ID3Tree
        The released tree (text, HTML, frame).
    ledger_ : Ledger
        Every query of the current model with its ε (and tree level); earlier fits of
        this object, interrupted ones too: ``privacy_record``.
    epsilon_ : float
        ε of each query of a level.

    Examples
    --------
    >>> from dpviz.data.synthetic import fs_single_split_data
    >>> data = fs_single_split_data(3000, random_state=0)
    >>> model = DiffPID3Classifier(0.1, max_depth=1, domain=data.domain, random_state=0)
    >>> model.fit(data.X, data.y).score(data.test.X, data.test.y) > 0.9
    True
    """

    def __init__(
        self, epsilon: float = 1.0, max_depth: int | None = 5, *, criterion: str = "max",
        size_bound: int | None = None, prune: bool = False, confidence: float = 0.25,
        n_split_cells: int = DEFAULT_SPLIT_CELLS, domain: Domain | None = None,
        unknown: str = "raise", random_state: int | None = None,
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

    def _shares(self, budget: float, depth: int | None, domain: Domain) -> list[tuple[float, str]]:
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
        _check_confidence(self.confidence)
        check_int(self.n_split_cells, "n_split_cells", minimum=2)

    def _algorithm_name(self) -> str:
        numeric = self.domain_ is not None and not self.domain_.categorical_mask.all()
        name = "DiffPC4.5" if numeric or self.prune else "DiffPID3"
        return f"{name} ({str(self.criterion).lower()}{', pruned' if self.prune else ''})"

    def _build(
        self, table: PrivateTable, attributes: list[str], depth: int | None, budget: float
    ) -> ID3Node:
        root = diffp_id3(
            table, attributes, depth, budget, criterion=self.criterion, size_bound=self.size_bound,
            n_split_cells=self.n_split_cells,
        )
        if self.prune:
            prune_noisy_counts(root, self.confidence)
        return root


class DiffPC45Classifier(DiffPID3Classifier):
    """DiffPC4.5 (FS §4.2-4.3): :class:`DiffPID3Classifier` with ``prune=True`` by default.

    The parameters, attributes and claim are :class:`DiffPID3Classifier`'s.
    """

    def __init__(
        self, epsilon: float = 1.0, max_depth: int | None = 5, *, criterion: str = "max",
        size_bound: int | None = None, prune: bool = True, confidence: float = 0.25,
        n_split_cells: int = DEFAULT_SPLIT_CELLS, domain: Domain | None = None,
        unknown: str = "raise", random_state: int | None = None,
    ) -> None:
        super().__init__(
            epsilon, max_depth, criterion=criterion, size_bound=size_bound, prune=prune,
            confidence=confidence, n_split_cells=n_split_cells, domain=domain,
            unknown=unknown, random_state=random_state,
        )
