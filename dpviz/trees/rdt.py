"""Random decision tree ensembles: Fan et al.'s non-private RDT and JPW's Private-RDT.

Twin in the paper's words: :mod:`dpviz.pseudocode.jpw`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

import numpy as np
import pandas as pd

from dpviz.domain import Domain
from dpviz.errors import BudgetExceededError, InvalidParameterError
from dpviz.leaf_release import NoisyLeafCounts
from dpviz.privacy import BUDGET_RTOL, PrivateTable
from dpviz.records import atomic, open_table
from dpviz.trees._base import Classifier, DPEstimatorMixin, check_fitted
from dpviz.trees.random_tree import (
    RandomTree,
    Routing,
    cap_depth,
    check_depth,
    check_trees_memory,
    fan_depth,
    leaves_bound,
    random_trees,
    route_bytes,
    route_leaves,
)
from dpviz.trees.speed import deep_visits, progress
from dpviz.validation import check_bool, check_int

__all__ = ["PrivateRDTClassifier", "RandomDecisionTreeClassifier", "classify"]


def classify(tree_counts: Iterable[np.ndarray], *, clip_negative: bool = False) -> np.ndarray:
    """JPW Fig. 2 (Classify): P(t|x) = Σ_i α_i[t] / Σ_τ Σ_i α_i[τ] over the trees' leaf counts.

    Negative sums are clipped at 0 (each tree's counts too with ``clip_negative``); a row whose
    sums are all <= 0 puts its mass on its largest sums, so the arg-max is always the largest sum.
    """
    total = _summed(np.maximum(c, 0) if clip_negative else c for c in tree_counts)
    positive = np.maximum(total, 0.0)
    mass = positive.sum(axis=1, keepdims=True)
    top = (total == total.max(axis=1, keepdims=True)).astype(np.float64)
    return np.where(
        mass > 0, positive / np.where(mass > 0, mass, 1.0), top / top.sum(axis=1, keepdims=True)
    )


def _summed(counts: Iterator[np.ndarray]) -> np.ndarray:
    """``np.sum(list(counts), axis=0)`` in float bit for bit: tree 0 + tree 1 + ..., one by one."""
    total = next(counts)
    if total.size == 1:  # one row and class: numpy sums the (few) values pairwise
        return np.sum([total, *counts], axis=0).astype(np.float64)
    for c in counts:
        total = total + c
    return total.astype(np.float64)


#: Private-RDT routes as many trees together (:func:`route_leaves`, one pass) as their items
#: (rows × trees) fit in this much routing memory (:func:`route_bytes`): the same leaves as tree
#: by tree, with the numpy calls of one routing for the whole batch (issue 37).
ROUTED_BYTES = 2**23


def _batch(trees: list[RandomTree], n_rows: int) -> int:
    """How many of ``trees`` to route together on ``n_rows`` rows (at least 1)."""
    domain = trees[0].domain
    item = route_bytes(len(domain), trees[0].depth, bool(domain.categorical_mask.any()))
    return max(1, min(len(trees), ROUTED_BYTES // (max(n_rows, 1) * item)))


class _LeafGroups:
    """Each tree's :meth:`~RandomTree.leaf_groups`, a batch of trees routed in one pass.

    The batch is routed (:func:`route_leaves`) when its first tree's release reads the rows,
    after that release's charge: routing is public and releases nothing.
    """

    def __init__(self, trees: list[RandomTree], n_rows: int) -> None:
        self.trees, self.batch = trees, _batch(trees, n_rows)
        self._routed: tuple | None = None  # (the rows, the batch's first tree, its leaves)

    def route(self, i: int) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """Tree i's route: its distinct leaves and each row's index into them."""
        if self.batch == 1:
            return self.trees[i].leaf_groups
        return lambda codes: self._groups(codes, i)

    def _groups(self, codes: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
        start = i - i % self.batch
        if self._routed is None or self._routed[0] is not codes or self._routed[1] != start:
            self._routed = codes, start, route_leaves(self.trees[start:start + self.batch], codes)
        leaves, offsets, index = self._routed[2]
        j = i - start
        return leaves[offsets[j]:offsets[j + 1]], index[j] - offsets[j]


class _RDTBase(DPEstimatorMixin, Classifier):
    """Shared parts: the depth rule, the trees and prediction by Classify."""

    def _depth(self, n_attributes: int) -> int:
        if self.max_depth is None:
            return cap_depth(fan_depth(n_attributes))
        return check_depth(self.max_depth)

    def _check_scale(self, domain: Domain | None) -> None:
        """Refuse ``max_depth`` above ``MAX_DEPTH``, ``n_trees`` over the memory budget."""
        if self.max_depth is not None:
            check_depth(self.max_depth)
        check_trees_memory(self.n_trees, 1 if domain is None else len(domain))

    def _make_trees(self, rng: np.random.Generator, depth: int, n_rows: int,
                    levels: int = 1) -> list[RandomTree]:
        """The N structures, refused first if they would overflow memory.

        With the counts of the nodes ``n_rows`` rows reach on ``levels`` levels (a refusal's
        message names public values only).
        """
        n_trees = check_trees_memory(
            self.n_trees, len(self.domain_), levels * leaves_bound(self.domain_, depth, n_rows),
            self.domain_.n_classes, cap=levels * leaves_bound(self.domain_, depth),
            per_row=levels)
        return random_trees(self.domain_, depth, rng.integers(0, 2**63, size=n_trees).tolist())

    def _tree_counts(self, codes: np.ndarray) -> Iterator[np.ndarray]:  # pragma: no cover
        """The counts of the leaf each row reaches, tree after tree (one in memory at a time)."""
        raise NotImplementedError

    def released_counts(self, X: Any) -> np.ndarray:
        """The released class counts of the leaf each row reaches, per tree: (N, n, T)."""
        check_fitted(self, "trees_")
        return np.stack(list(self._tree_counts(self._predict_codes(X))))

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        check_fitted(self, "trees_")
        clip = check_bool(getattr(self, "clip_negative", False), "clip_negative")
        return classify(self._tree_counts(codes), clip_negative=clip)


class RandomDecisionTreeClassifier(_RDTBase):
    """Fan et al.'s random decision tree ensemble (JPW Fig. 1-2): NOT private.

    Exact leaf counts; with ``prune=True`` a row in a pruned (empty) part is classified by the
    deepest node on its path that training rows reached, which reveals the empty leaves (ε = ∞,
    JPW Fig. 3-4). Twin: :func:`dpviz.pseudocode.jpw.random_decision_trees`.

    Parameters
    ----------
    n_trees : int, default 10
        Number of trees (refused above ``MEMORY_BUDGET``, then again at fit with a bound
        on their leaves, before any release).
    max_depth : int or None, default None
        Tree height <= ``MAX_DEPTH`` (64); None: the paper's rule, capped there.
    prune : bool, default True
        Prune empty subtrees (JPW Fig. 1); ``False`` is Private-RDT at ε = ∞.
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
    depth_ : int
        The height h (default Fan's k/2).
    trees_ : list of RandomTree
        The N structures: Private-RDT's with this ``random_state``.
    """

    def __init__(
        self, n_trees: int = 10, max_depth: int | None = None, prune: bool = True,
        domain: Any = None, unknown: str = "raise", random_state: Any = None,
    ) -> None:
        self.n_trees = n_trees
        self.max_depth = max_depth
        self.prune = prune
        self.domain = domain
        self.unknown = unknown
        self.random_state = random_state

    def _check_params(self) -> None:
        check_bool(self.prune, "prune")
        self._check_scale(self.domain if isinstance(self.domain, Domain) else None)

    def fit(self, X: Any, y: Any) -> RandomDecisionTreeClassifier:
        """JPW Fig. 1, BuildTreeStructure and UpdateStatistics, on ``X``, ``y``; all or nothing.

        ``X``: a DataFrame, an array, or :class:`~dpviz.domain.Encoded` rows of the domain.
        """
        self._check_params()
        return atomic(self, "fit", lambda work: work._build_trees(X, y))

    def _build_trees(self, X: Any, y: Any) -> RandomDecisionTreeClassifier:
        """Draw the structures and count the rows at every node (UpdateStatistics)."""
        codes, labels, domain = self._fit_inputs(X, y)
        structure_rng, _ = self._rngs()  # the same trees as Private-RDT with this seed
        self.depth_ = self._depth(len(domain))
        self.trees_ = self._make_trees(structure_rng, self.depth_, len(codes),
                                       levels=self.depth_ + 1)  # every level is kept
        work = len(codes) * len(self.trees_) * self.depth_
        deep = len(self.trees_) * deep_visits(len(codes), self.depth_)
        self.node_counts_ = [self._count_levels(t.route(codes), labels) for t in
                             progress(self.trees_, work, "random decision trees: trees", deep=deep)]
        return self

    def _count_levels(
        self, routing: Routing, labels: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        t = self.domain_.n_classes
        levels = []
        for keys, index in zip(routing.level_keys, routing.level_index, strict=True):
            order = np.argsort(keys)
            rank = np.argsort(order)  # each node's place in key order
            counts = np.bincount(rank[index] * t + labels, minlength=len(keys) * t)
            levels.append((keys[order], counts.reshape(len(keys), t)))
        return levels

    def _tree_counts(self, codes: np.ndarray) -> Iterator[np.ndarray]:
        prune = check_bool(self.prune, "prune")  # read at prediction: set_params may change it
        pairs = list(zip(self.trees_, self.node_counts_, strict=True))
        work = codes.shape[0] * len(pairs) * self.depth_
        deep = len(pairs) * deep_visits(codes.shape[0], self.depth_)
        for tree, levels in progress(pairs, work, "random decision trees: trees", deep=deep):
            routing = tree.route(codes)
            counts = np.zeros((codes.shape[0], self.domain_.n_classes), dtype=np.int64)
            found = np.zeros(codes.shape[0], dtype=bool)
            depths = range(self.depth_, -1, -1) if prune else [self.depth_]
            for level in depths:  # deepest visited node first (pruned tree)
                keys, level_counts = levels[level]
                row_keys = routing.level_keys[level][routing.level_index[level]]
                pos = np.minimum(np.searchsorted(keys, row_keys), len(keys) - 1)
                hit = (keys[pos] == row_keys) & ~found
                counts[hit] = level_counts[pos[hit]]
                found |= hit
            yield counts

    def visited_leaves(self) -> list[int]:
        """Number of non-empty leaves per tree: what pruning reveals."""
        check_fitted(self, "trees_")
        return [len(levels[-1][0]) for levels in self.node_counts_]


class PrivateRDTClassifier(_RDTBase):
    """JPW's Private-RDT ensemble (Fig. 5), with the update procedure of §V-B.

    The N structures are drawn from the public domain; every tree reads all rows and releases
    its whole leaf vector with noise at ε/N (leaves no row reaches are noised lazily,
    :mod:`dpviz.leaf_release`). ε-DP in the rows (add/remove one) with discrete Laplace, also
    after ``update(method="jpw")``; argument: docs/privacy.md §8.2.2. Twin:
    :func:`dpviz.pseudocode.jpw.private_rdt`. The fitted object keeps curator secrets (pickling
    warns); ``export_release`` is the release.

    Parameters
    ----------
    epsilon : float, default 1.0
        Total ε; ``math.inf`` gives exact, un-pruned counts.
    n_trees : int, default 10
        Number of trees (refused above ``MEMORY_BUDGET``, then again at fit with a bound
        on their leaves, before any release).
    max_depth : int or None, default None
        Tree height <= ``MAX_DEPTH`` (64); None: the paper's rule, capped there.
    noise : {"discrete_laplace", "laplace"}, default "discrete_laplace"
        Noise on each count; "laplace" (float) is not proven private and warns.
    clip_negative : bool, default False
        Clip noisy counts at 0 before Classify (post-processing).
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
    depth_ : int
        The height h (default Fan's k/2).
    trees_ : list of RandomTree
        The N public structures.
    leaf_counts_ : list of NoisyLeafCounts
        Each tree's release.
    ledger_ : Ledger
        Every query of the current model with its ε (and tree level); earlier fits of
        this object, interrupted ones too: ``privacy_record``.
    """

    _noisy_by_design = True  # scikit-learn's poor_score tag (see DPEstimatorMixin)

    def __init__(
        self, epsilon: float = 1.0, n_trees: int = 10, max_depth: int | None = None,
        noise: Literal["discrete_laplace", "laplace"] = "discrete_laplace",
        clip_negative: bool = False, domain: Any = None, unknown: str = "raise",
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.n_trees = n_trees
        self.max_depth = max_depth
        self.noise = noise
        self.clip_negative = clip_negative
        self.domain = domain
        self.unknown = unknown
        self.random_state = random_state

    def _check_release(self, epsilon: float) -> None:
        """Refuse a noise option or a per-tree ε the samplers cannot serve, before any release."""
        n_trees = check_int(self.n_trees, "n_trees", minimum=1)
        self._check_share(NoisyLeafCounts, epsilon / n_trees, self.noise,
                          f"split over n_trees={n_trees}")

    def _check_params(self) -> None:
        check_bool(self.clip_negative, "clip_negative")
        self._check_scale(self.domain if isinstance(self.domain, Domain) else None)
        self._check_release(self._epsilon())

    def fit(self, X: Any, y: Any) -> PrivateRDTClassifier:
        """JPW Fig. 5, Private-RDT, on the rows ``X`` and their labels ``y``; all or nothing.

        ``X``: a DataFrame, an array, or :class:`~dpviz.domain.Encoded` rows of the domain.
        """
        self._check_params()
        return atomic(self, "fit", lambda work: work._private_rdt(X, y))

    def _private_rdt(self, X: Any, y: Any) -> PrivateRDTClassifier:
        """Private-RDT (JPW Fig. 5) for each of the N trees, at ε/N each."""
        codes, labels, domain = self._fit_inputs(X, y)
        epsilon = self._epsilon()
        self._structure_rng, self._noise_rng = self._rngs()
        self.depth_ = self._depth(len(domain))
        self.trees_ = self._make_trees(self._structure_rng, self.depth_, len(codes))
        table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=self._noise_rng)
        self.leaf_counts_ = self._release(table, self.trees_, epsilon, len(codes))
        table.close()
        self._table = table
        self.ledger_ = table.ledger
        return self

    def _release(
        self, table: PrivateTable, trees: list[RandomTree], epsilon: float, n_rows: int,
        tag: str = "",
    ) -> list[NoisyLeafCounts]:
        per_tree = epsilon / len(trees)
        descent = n_rows * self.depth_  # a tree's (leaf_keys: compiled from 2e6 on)
        leaves = len(trees) * leaves_bound(self.domain_, self.depth_, n_rows)
        bar = progress(trees, descent * len(trees), "Private-RDT: trees", descent, leaves,
                       len(trees) * deep_visits(n_rows, self.depth_))
        groups = _LeafGroups(trees, n_rows)
        return [
            table.noisy_leaf_counts(
                groups.route(i), epsilon=per_tree, mechanism=self.noise,
                label=f"tree {i + 1} leaf vector{tag}",
            )
            for i, _ in enumerate(bar)
        ]

    def _check_update(self, method: str, X_previous: Any, y_previous: Any) -> float:
        """Everything :meth:`update` checks before it reads a row; returns its ε."""
        epsilon = self._epsilon()
        if method not in ("jpw", "recount", "rebuild"):
            raise InvalidParameterError(
                f"method must be 'jpw', 'recount' or 'rebuild', got {method!r}"
            )
        self._check_release(epsilon)
        self._check_scale(self.domain_)
        budget = self.ledger_.total
        if method == "jpw" and epsilon > budget * (1 + BUDGET_RTOL):
            raise InvalidParameterError(
                f"epsilon={self.epsilon!r} is more than the model's budget ledger_.total = "
                f"{budget:g}: update(method='jpw') releases the new rows in parallel with the "
                "earlier ones, within that budget. Pass epsilon <= "
                f"{budget:g} (set_params(epsilon=...)), or method='recount' or 'rebuild', "
                "which spend epsilon again on all the rows (sequential composition)"
            )
        carried = self.ledger_.interrupted("update")
        if method == "jpw" and carried and carried + epsilon > budget * (1 + BUDGET_RTOL):
            left = (f"Pass epsilon <= {budget - carried:.6g} (set_params(epsilon=...)), or "
                    if carried < budget else "No JPW update fits the budget any more: use ")
            raise BudgetExceededError(
                f"update(method='jpw') at epsilon={self.epsilon!r} may read again the rows of "
                f"this model's interrupted updates, which spent ε = {carried:.6g} on them "
                f"(ledger_: 'interrupted update' queries): {carried:.6g} + {epsilon:g} is more "
                f"than the model's budget ledger_.total = {budget:g}. {left}method='recount' "
                "or 'rebuild', which spend epsilon again on all the rows (sequential "
                "composition); no data was read"
            )
        if method != "jpw" and (X_previous is None or y_previous is None):
            raise InvalidParameterError(
                f"method={method!r} reads D1 again: pass X_previous and y_previous"
            )
        return epsilon

    def _tree_counts(self, codes: np.ndarray) -> Iterator[np.ndarray]:
        n, trees = codes.shape[0], self.trees_
        work = n * len(trees) * self.depth_
        leaves = len(trees) * leaves_bound(self.domain_, self.depth_, n)
        deep = len(trees) * deep_visits(n, self.depth_)
        batch = _batch(trees, n)
        releases = progress(self.leaf_counts_, work, "Private-RDT: trees", leaves=leaves,
                            deep=deep)
        for i, release in enumerate(releases):
            j = i % batch
            if j == 0:  # the batch's trees in one pass
                found, offsets, index = route_leaves(trees[i:i + batch], codes)
            yield release(found[offsets[j]:offsets[j + 1]])[index[j] - offsets[j]]

    def export_release(self, max_leaves: int = 100_000) -> pd.DataFrame:
        """The release: every leaf of every tree (``tree``, ``leaf``) and its noisy counts."""
        check_fitted(self, "trees_")
        frames = []
        for i, (tree, release) in enumerate(zip(self.trees_, self.leaf_counts_, strict=True)):
            keys, paths = tree.leaves(max_leaves)
            counts = pd.DataFrame(release(keys), columns=[str(c) for c in self.classes_])
            frames.append(pd.concat([pd.DataFrame({"tree": i, "leaf": paths}), counts], axis=1))
        return pd.concat(frames, ignore_index=True)

    def update(
        self, X_new: Any, y_new: Any, *, method: Literal["jpw", "recount", "rebuild"] = "jpw",
        X_previous: Any = None, y_previous: Any = None,
    ) -> PrivateRDTClassifier:
        """Add a batch D2 to a model of D1 (JPW §V-B), all or nothing; ``ledger_`` shows the cost.

        ``"jpw"`` releases D2 alone and adds it (total ε); ``"recount"`` and ``"rebuild"`` read D1
        again (``X_previous, y_previous``) and cost 2ε. An interrupted update is charged in full,
        and a later ``"jpw"`` batch may hold its rows: refused (before any row is read) unless
        its ε and theirs fit in ``ledger_.total`` (docs/privacy.md §3).
        """
        check_fitted(self, "trees_")
        epsilon = self._check_update(method, X_previous, y_previous)
        codes, labels = self._more_rows(X_new, y_new)
        return atomic(self, "update",
            lambda work: work._update(codes, labels, epsilon, method, X_previous, y_previous),
        )

    def _update(
        self, codes: np.ndarray, labels: np.ndarray, epsilon: float, method: str, X_previous: Any,
        y_previous: Any,
    ) -> PrivateRDTClassifier:
        if method == "jpw":
            batch = self._table.append(codes, labels)
            new = self._release(batch, self.trees_, epsilon, len(codes), f" ({batch.path[0]})")
            batch.close()
            self.leaf_counts_ = [old.add(n) for old, n in zip(self.leaf_counts_, new, strict=True)]
            return self
        previous_codes, previous_labels = self._more_rows(X_previous, y_previous)
        union = np.vstack([previous_codes, codes])
        union_labels = np.concatenate([previous_labels, labels])
        previous = self.ledger_.spent
        # the fitted model's generators continue: fresh trees and noise
        trees = (self._make_trees(self._structure_rng, self.depth_, len(union))
                 if method == "rebuild" else self.trees_)
        table = open_table(self, union, union_labels, domain=self.domain_,
                           epsilon=previous + epsilon, rng=self._noise_rng)
        table.charge_prior(previous, label="earlier release on D1 (sequential)")
        self.leaf_counts_ = self._release(table, trees, epsilon, len(union),
                                          f" ({method} on D1 ∪ D2)")
        self.trees_ = trees
        table.close()
        self._table = table
        self.ledger_ = table.ledger
        return self
