"""Fletcher & Islam's differentially private random decision forest (FI 2017 + 2021 addendum).

Twin in the paper's words: :mod:`dpviz.pseudocode.fi`.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from dpviz.domain import Domain
from dpviz.leaf_release import NoisyLeafLabels
from dpviz.privacy import PrivateTable
from dpviz.records import atomic, open_table
from dpviz.trees._base import Classifier, DPEstimatorMixin, check_fitted
from dpviz.trees.random_tree import (
    RandomTree,
    cap_depth,
    check_depth,
    check_trees_memory,
    fletcher_islam_depth,
    forest_leaves,
    forest_top,
    leaves_bound,
    random_trees,
    route_bytes,
    route_leaves,
    vote,
)
from dpviz.trees.speed import deep_visits, progress, shows_progress
from dpviz.validation import MEMORY_BUDGET, check_bool, check_int

__all__ = ["DPRandomForestClassifier", "count_votes", "get_majority_labels", "leaf_labels",
           "route_leaves"]


def get_majority_labels(
    table: PrivateTable, trees: list[RandomTree], *, epsilon: float, mechanism: str,
    disjoint: bool, rng: np.random.Generator,
) -> list[NoisyLeafLabels]:
    """FI Alg. 2, GetMajorityLabels: a private majority label for every leaf of every tree.

    ``disjoint``: each row goes to one tree drawn independently from the secret ``rng`` and all
    leaves release at ε in one query (FI §4.2); else every tree reads every row at ε/τ.
    ε-DP in the rows (add/remove one); argument: docs/privacy.md §8.2.4.
    """
    tau = len(trees)
    if disjoint:

        def route(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # grouped leaf keys
            return forest_leaves(trees, codes, rng.integers(0, tau, size=codes.shape[0]),
                                 distinct=False)

        queries = [(route, epsilon,
                    f"leaf labels of {tau} trees (disjoint rows: parallel composition)")]
    else:
        queries = [(tree.leaf_groups, epsilon / tau, f"tree {i + 1} leaf labels")
                   for i, tree in enumerate(trees)]
    return [table.noisy_leaf_labels(query, epsilon=eps, mechanism=mechanism, label=label)
            for query, eps, label in queries]


def leaf_labels(
    releases: list[NoisyLeafLabels], n_trees: int, leaves: np.ndarray, offsets: np.ndarray,
    first: int = 0, sort: bool = False,
) -> np.ndarray:
    """The released label of each leaf of trees ``first ..`` (as :func:`route_leaves` lists them).

    ``releases``: one for all ``n_trees`` trees (disjoint rows) or one per tree; ``sort``: read
    each block in key order (the releases look sorted keys up faster).
    """
    per_release = n_trees // len(releases)
    m = len(offsets) - 1
    labels = np.empty(len(leaves), dtype=np.int64)
    for r in range(first // per_release, (first + m - 1) // per_release + 1):
        lo = max(r * per_release, first) - first
        hi = min((r + 1) * per_release, first + m) - first
        block = slice(int(offsets[lo]), int(offsets[hi]))
        if sort:  # a pure function of each key: the order does not change the labels
            order = np.argsort(leaves[block])
            labels[block][order] = releases[r](leaves[block][order])
        else:
            labels[block] = releases[r](leaves[block])
    return labels


def count_votes(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """The votes (n, n_classes) of the trees' labels (τ, n) of n rows."""
    n = labels.shape[1]
    flat = (np.arange(n) * n_classes + labels).ravel()
    return np.bincount(flat, minlength=n * n_classes).reshape(n, n_classes)


class DPRandomForestClassifier(DPEstimatorMixin, Classifier):
    """The FI differentially private random decision forest (FI 2017 Alg. 1-2, 2021 addendum).

    ε-DP in the rows (add/remove one) with ``"rosnam"`` or ``"exponential"``; no claim with
    ``"smooth_sensitivity"``; argument: docs/privacy.md §8.2.4. Twin:
    :func:`dpviz.pseudocode.fi.build_forest`. The fitted object keeps curator secrets (pickling
    warns); ``export_release`` is the release.

    Parameters
    ----------
    epsilon : float, default 1.0
        Total ε; ``math.inf``: exact majority labels.
    n_trees : int, default 100
        Number of trees (refused above ``MEMORY_BUDGET``, then again at fit with a bound
        on their leaves, before any release).
    max_depth : int or None, default None
        Tree height <= ``MAX_DEPTH`` (64); None: the paper's rule, capped there.
    leaf_mechanism : {"rosnam", "exponential", "smooth_sensitivity"}, default "rosnam"
        Report One-Sided Noisy Arg-Max (the addendum), FI's exponential mechanism (0/1
        utility), or FI 2017's smooth sensitivity (not proven private, warns). Empty leaves get a
        uniformly random label.
    disjoint : bool, default True
        Disjoint rows per tree at the full ε (FI §4.2), or all rows at ε/τ per tree (FI Fig. 5).
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
        FI's depth (Theorem 2 + ⌊r/2⌋) unless ``max_depth``.
    trees_ : list of RandomTree
    leaf_labels_ : list of NoisyLeafLabels
        One release for all trees (disjoint) or one per tree.
    ledger_ : Ledger
        Every query of the current model with its ε (and tree level); earlier fits of
        this object, interrupted ones too: ``privacy_record``.
    """

    _noisy_by_design = True  # scikit-learn's poor_score tag (see DPEstimatorMixin)

    def __init__(
        self, epsilon: float = 1.0, n_trees: int = 100, max_depth: int | None = None,
        leaf_mechanism: Literal["rosnam", "exponential", "smooth_sensitivity"] = "rosnam",
        disjoint: bool = True, domain: Any = None, unknown: str = "raise",
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.n_trees = n_trees
        self.max_depth = max_depth
        self.leaf_mechanism = leaf_mechanism
        self.disjoint = disjoint
        self.domain = domain
        self.unknown = unknown
        self.random_state = random_state

    def _check_params(self) -> None:
        epsilon = self._epsilon()
        n_trees = check_int(self.n_trees, "n_trees", minimum=1)
        disjoint = check_bool(self.disjoint, "disjoint")
        if self.max_depth is not None:
            check_depth(self.max_depth)
        check_trees_memory(self.n_trees, len(self.domain) if isinstance(self.domain, Domain) else 1)
        self._check_share(NoisyLeafLabels, epsilon if disjoint else epsilon / n_trees,
                          self.leaf_mechanism,
                          "(disjoint rows)" if disjoint else f"split over n_trees={n_trees}",
                          "leaf_mechanism")

    def fit(self, X: Any, y: Any) -> DPRandomForestClassifier:
        """FI Alg. 1, BuildForest, on the rows ``X`` and their labels ``y``; all or nothing.

        ``X``: a DataFrame, an array, or :class:`~dpviz.domain.Encoded` rows of the domain.
        """
        self._check_params()
        return atomic(self, "fit", lambda work: work._build_forest(X, y))

    def _build_forest(self, X: Any, y: Any) -> DPRandomForestClassifier:
        """FI Alg. 1 BuildForest: depth, τ random trees, then GetMajorityLabels."""
        codes, labels, domain = self._fit_inputs(X, y)
        epsilon, disjoint = self._epsilon(), check_bool(self.disjoint, "disjoint")
        n_discrete = int(domain.categorical_mask.sum())  # FI's depth unless max_depth
        depth = check_depth(self.max_depth) if self.max_depth is not None else cap_depth(
            fletcher_islam_depth(len(domain) - n_discrete, n_discrete))
        n_trees = check_int(self.n_trees, "n_trees", minimum=1)
        rows = len(codes) / n_trees if disjoint else len(codes)  # each tree's, on average
        check_trees_memory(n_trees, len(domain), leaves_bound(domain, depth, rows), 1,  # labels
                           cap=leaves_bound(domain, depth))
        structure_rng, noise_rng = self._rngs()
        self.depth_ = depth
        self.trees_ = random_trees(domain, depth,
                                   structure_rng.integers(0, 2**63, size=n_trees).tolist())
        table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng)
        self.leaf_labels_ = get_majority_labels(
            table, self.trees_, epsilon=epsilon, mechanism=self.leaf_mechanism,
            disjoint=disjoint, rng=noise_rng,
        )
        table.close()
        self.ledger_ = table.ledger
        return self

    def votes(self, X: Any) -> np.ndarray:
        """Number of trees voting for each class, shape (n, n_classes)."""
        check_fitted(self, "trees_")
        return self._votes(self._predict_codes(X))

    def _routed_labels(self, codes: np.ndarray, start: int, stop: int) -> np.ndarray:
        """The released label of each row's leaf in trees ``start .. stop-1``: (τ, n)."""
        leaves, offsets, index = route_leaves(self.trees_[start:stop], codes)
        return leaf_labels(self.leaf_labels_, len(self.trees_), leaves, offsets, start)[index]

    def _votes(self, codes: np.ndarray) -> np.ndarray:
        n, tau = codes.shape[0], len(self.trees_)
        votes = np.zeros((n, self.domain_.n_classes), dtype=np.int64)
        # bound memory: rows × trees routed at once (a tenth of the budget)
        per_item = route_bytes(len(self.domain_), self.depth_,
                               bool(self.domain_.categorical_mask.any()))
        chunk = max(1, min(tau, MEMORY_BUDGET // 10 // (per_item * max(n, 1))))
        work = n * tau * self.depth_
        # a long prediction goes in batches of rows, so that its progress can be shown
        batches = np.array_split(np.arange(n), 20) if shows_progress(work) else [slice(None)]
        jobs = [(rows, start) for rows in batches for start in range(0, tau, chunk)]
        deep = tau * deep_visits(n, self.depth_)
        for rows, start in progress(jobs, work, "FI forest: predict", deep=deep):
            votes[rows] += self._chunk_votes(codes[rows], start, min(start + chunk, tau))
        return votes

    def _chunk_votes(self, codes: np.ndarray, start: int, stop: int) -> np.ndarray:
        """Votes of trees ``start .. stop-1``: materialized (:func:`vote`) if small, else routed."""
        budget = codes.shape[0] * (stop - start) // 4
        trees = self.trees_[start:stop]
        if 2 * len(trees) * trees[0].max_leaves() <= budget:  # worth trying: may fit
            top, leaves, offsets = forest_top(trees, budget,
                                              codes.shape[0] * len(trees) * self.depth_)
            if top.levels == self.depth_:
                labels = leaf_labels(self.leaf_labels_, len(self.trees_), leaves, offsets,
                                     start, sort=True)
                return vote(top, codes, labels, self.domain_.n_classes)
        return count_votes(self._routed_labels(codes, start, stop), self.domain_.n_classes)

    def released_labels(self, X: Any) -> np.ndarray:
        """The released label of the leaf each row reaches, per tree: codes (τ, n)."""
        check_fitted(self, "trees_")
        return self._routed_labels(self._predict_codes(X), 0, len(self.trees_))

    def export_release(self, max_leaves: int = 100_000) -> pd.DataFrame:
        """The release: every leaf of every tree (``tree``, ``leaf``) and its label."""
        check_fitted(self, "trees_")
        per_release = len(self.trees_) // len(self.leaf_labels_)
        frames = []
        for i, tree in enumerate(self.trees_):
            keys, paths = tree.leaves(max_leaves)
            labels = self.leaf_labels_[i // per_release](keys)
            frames.append(pd.DataFrame({"tree": i, "leaf": paths,
                                        "label": self._decode(labels)}))
        return pd.concat(frames, ignore_index=True)

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        check_fitted(self, "trees_")
        votes = self._votes(codes)
        return votes / votes.sum(axis=1, keepdims=True)

    def _label_codes(self, codes: np.ndarray) -> np.ndarray:
        """Majority vote over the trees (ties: the first class in domain order)."""
        check_fitted(self, "trees_")
        return np.argmax(self._votes(codes), axis=1)
