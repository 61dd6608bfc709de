"""Fletcher & Islam's differentially private random decision forest (FI 2017 + 2021 addendum).

FI Alg. 1–2: τ random trees whose depth comes from :func:`fletcher_islam_depth`
(Theorem 2 + ⌊r/2⌋), each filled with a *disjoint* subset of the rows and the
full ε (parallel composition, FI §4.2), each leaf releasing only its majority
label through an ε-DP selection (FI §4.1; by default the addendum's Report
One-Sided Noisy Arg-Max), prediction by majority vote over the trees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError
from dpviz.leaf_release import NoisyLeafLabels
from dpviz.privacy import PrivateTable
from dpviz.trees._base import DPEstimatorMixin, check_encoded, keep_discarded
from dpviz.trees.depth import cap_depth, check_depth, fletcher_islam_depth
from dpviz.trees.descend import vote
from dpviz.trees.random_tree import (
    RandomTree,
    check_trees_memory,
    forest_leaf_keys,
    forest_leaves,
    forest_top,
    route_bytes,
)
from dpviz.validation import MEMORY_BUDGET, check_bool, check_int

__all__ = ["DPRandomForestClassifier", "ForestLeaves", "get_majority_labels"]


@dataclass(frozen=True, eq=False)
class ForestLeaves:
    """Where some encoded rows land in every tree of a forest (its public structure only).

    Made by :meth:`DPRandomForestClassifier.locate_encoded` and read by
    :meth:`DPRandomForestClassifier.votes_located`. Nothing private: the leaves
    depend on the public trees and on the rows routed (e.g. test rows), not on ε, the
    leaf labels or the training rows.

    Attributes
    ----------
    structure : tuple
        The forest's depth and tree keys: which forests may vote from these leaves.
    leaves : ndarray of uint64
        The distinct leaves reached, tree by tree: tree t's are
        ``leaves[offsets[t]:offsets[t + 1]]``.
    offsets : ndarray (τ + 1,) of int64
    index : ndarray (τ, n) of int64
        Position in ``leaves`` of the leaf that row j reaches in tree t.
    """

    structure: tuple[int, tuple[int, ...]]
    leaves: np.ndarray
    offsets: np.ndarray
    index: np.ndarray

    @property
    def keys(self) -> np.ndarray:
        """The key of the leaf each row reaches in each tree, uint64 (τ, n)."""
        return self.leaves[self.index]


def get_majority_labels(
    table: PrivateTable,
    trees: list[RandomTree],
    *,
    epsilon: float,
    mechanism: str,
    disjoint: bool,
    rng: np.random.Generator,
    routed: list | None = None,
) -> list[NoisyLeafLabels]:
    """FI Alg. 2, ``GetMajorityLabels``: a private majority label for every leaf of every tree.

    Parameters
    ----------
    table : PrivateTable
        The private rows (budget ε).
    trees : list of RandomTree
        The forest's structures (FI Alg. 2 ``BuildTree``, drawn from the Domain).
    epsilon : float
        The forest's ε.
    mechanism : {"rosnam", "exponential", "smooth_sensitivity"}
        The leaf-label selection (see :class:`dpviz.leaf_release.NoisyLeafLabels`).
    disjoint : bool
        ``True`` (FI §4.2, line 22): each row is sent to one tree chosen
        uniformly at random, independently of the other rows, and every leaf of
        every tree releases its label at the full ε — one query, since the
        leaves of all trees hold disjoint rows (parallel composition).
        ``False`` (FI Fig. 5's comparison): every tree reads every row, one
        query of ε/τ per tree (sequential composition).
    rng : numpy.random.Generator
        Source of the row-to-tree assignment (secret: the noise generator, never the
        generator of the public tree structures).
    routed : list, optional
        Where the rows' leaves are kept between calls on the same trees and rows whose
        generators are in the same state (:meth:`DPRandomForestClassifier.fit_encoded_epsilons`):
        empty, the first call fills it; later calls reuse it instead of routing the rows
        again (the same keys: the assignment is drawn from ``rng`` all the same, and
        checked to be the one the leaves were routed with).

    Returns
    -------
    list of NoisyLeafLabels
        One release covering all trees (disjoint) or one per tree (shared).

    Notes
    -----
    Privacy claim (``rosnam``, ``exponential``): ε-DP for add/remove one row.
    Why the assignment is i.i.d. per row rather than a shuffled equal split
    (FI's "sampled without replacement"): with an equal split, adding one row
    shifts which part many other rows land in, so neighbouring data sets differ
    in more than one part and the plain parallel-composition argument no longer
    applies. Worse, the equal split does not keep ε at all: for two one-leaf trees
    its exact loss at ε = 1 is 1.51 (three rows vs three plus one of the other
    class; :data:`dpviz.explore.fi_exercises.EQUAL_SPLIT_MAX_LOSS`), so a coupling
    proof could only bound it at a larger ε. With an independent assignment per row,
    a neighbour changes exactly one leaf.
    """
    tau = len(trees)
    if disjoint:

        def route(codes: np.ndarray) -> np.ndarray:
            assignment = rng.integers(0, tau, size=codes.shape[0])
            return _route_once(routed, 0, assignment,
                               lambda: forest_leaf_keys(trees, codes, assignment))

        return [
            table.noisy_leaf_labels(
                route,
                epsilon=epsilon,
                mechanism=mechanism,
                label=f"leaf labels of {tau} trees (disjoint rows: parallel composition)",
            )
        ]
    return [
        table.noisy_leaf_labels(
            lambda codes, i=i, tree=tree: _route_once(routed, i, None,
                                                      lambda: tree.leaf_keys(codes)),
            epsilon=epsilon / tau,
            mechanism=mechanism,
            label=f"tree {i + 1} leaf labels",
        )
        for i, tree in enumerate(trees)
    ]


def _route_once(
    routed: list | None, i: int, assignment: np.ndarray | None, route: Callable[[], np.ndarray]
) -> np.ndarray:
    """``route()``, or the leaves kept in ``routed[i]`` by an earlier fit on the same trees."""
    if routed is None:
        return route()
    if i < len(routed):
        kept_assignment, keys = routed[i]
        if (assignment is None) != (kept_assignment is None) or (
            assignment is not None and not np.array_equal(assignment, kept_assignment)
        ):
            raise RuntimeError("kept leaves were routed with another row assignment")
        return keys
    keys = route()
    routed.append((assignment, keys))
    return keys


class DPRandomForestClassifier(DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """The FI differentially private random decision forest (FI 2017 Alg. 1–2, 2021 addendum).

    Parameters
    ----------
    epsilon : float
        Total ε. ``math.inf``: exact majority labels (the non-private variant;
        FI's also reads all rows in every tree: use ``disjoint=False``).
    n_trees : int
        τ, the number of trees (FI default 100). Refused if the trees' estimated memory
        (:func:`~dpviz.trees.random_tree.tree_bytes` each) exceeds
        :data:`~dpviz.validation.MEMORY_BUDGET`, before any row is read.
    max_depth : int, optional
        Tree depth, at most :data:`~dpviz.trees.depth.MAX_DEPTH` (64; larger values are
        refused). Default: :func:`fletcher_islam_depth` of the domain's numeric
        (continuous) and categorical (discrete) attribute counts, capped at ``MAX_DEPTH``
        (FI's rule asks for more from 92 continuous attributes on: 348 for 500);
        at the cap the trees test fewer than half of the continuous features on a path,
        in expectation, which Theorem 2 asks for.
    leaf_mechanism : {"rosnam", "exponential", "smooth_sensitivity"}
        How a leaf's majority label is released: ``"rosnam"`` (default, Report
        One-Sided Noisy Arg-Max, the addendum), ``"exponential"`` (FI's 0/1
        utility with global sensitivity 1) or ``"smooth_sensitivity"`` (FI 2017;
        NOT PROVEN PRIVATE, warns). Empty leaves get a uniformly random label.
    disjoint : bool
        Disjoint rows per tree with the full ε each (default, FI §4.2), or all
        rows in every tree with ε/τ each (FI Fig. 5's comparison).
    domain : Domain, optional
        Public schema; derived from the data (with a PrivacyLeakWarning) if omitted.
    unknown : {"raise", "random"}
        Prediction-time policy for categories outside the domain.
    random_state : int, Generator or None
        Seed of the structures, the row assignment and the noise.

    Attributes
    ----------
    depth_ : int
    trees_ : list of RandomTree
    leaf_labels_ : list of NoisyLeafLabels
        One release for all trees (disjoint) or one per tree (shared rows).
    ledger_ : Ledger

    Notes
    -----
    Privacy claim: ε-DP for add/remove one row with ``"rosnam"`` or
    ``"exponential"`` (see :func:`get_majority_labels`); no claim with
    ``"smooth_sensitivity"``. Prediction (majority vote) is post-processing.

    What is released: the public tree structures and the private label of every
    leaf (``predict``, ``votes``, ``released_labels``, ``export_release``). The
    fitted object keeps curator secrets (which leaves hold rows, the secret key of
    the other leaves' labels); pickling it warns
    :class:`~dpviz.errors.PrivacyLeakWarning`. See ``docs/privacy.md``.

    Many ε on the same trees: the trees depend only on ``random_state``, ``n_trees``,
    ``max_depth`` and the domain, so :meth:`fit_encoded_epsilons` fits the forests of many
    ε routing the training rows once, :meth:`locate_encoded` routes other rows once and
    :meth:`votes_located` gives each refitted forest's :meth:`votes` from them.
    """

    _noisy_by_design = True  # scikit-learn's poor_score tag (see DPEstimatorMixin)

    def __init__(
        self,
        epsilon: float = 1.0,
        n_trees: int = 100,
        max_depth: int | None = None,
        leaf_mechanism: Literal["rosnam", "exponential", "smooth_sensitivity"] = "rosnam",
        disjoint: bool = True,
        domain: Any = None,
        unknown: str = "raise",
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
        epsilon = self._epsilon(self.epsilon)
        n_trees = check_int(self.n_trees, "n_trees", minimum=1)
        disjoint = check_bool(self.disjoint, "disjoint")
        if self.max_depth is not None:
            check_depth(self.max_depth)
        self._check_scale(self.domain if isinstance(self.domain, Domain) else None)
        if self.leaf_mechanism not in NoisyLeafLabels.MECHANISMS:
            raise InvalidParameterError(
                f"leaf_mechanism must be one of {NoisyLeafLabels.MECHANISMS}, "
                f"got {self.leaf_mechanism!r}"
            )
        self._check_share(NoisyLeafLabels, epsilon if disjoint else epsilon / n_trees,
                          self.leaf_mechanism,
                          "(disjoint rows)" if disjoint else f"split over n_trees={n_trees}")

    def _check_scale(self, domain: Domain | None) -> None:
        """Refuse ``n_trees`` whose trees would not fit :data:`MEMORY_BUDGET` (reads no row).

        Without a domain yet, one attribute is assumed (the estimate's lower end).
        """
        check_trees_memory(self.n_trees, 1 if domain is None else len(domain))

    def _tree_depth(self, domain: Domain) -> int:
        """``max_depth``, or FI's rule (Theorem 2 + ⌊r/2⌋) capped at ``MAX_DEPTH``."""
        if self.max_depth is not None:
            return check_depth(self.max_depth)
        n_discrete = int(domain.categorical_mask.sum())
        return cap_depth(fletcher_islam_depth(len(domain) - n_discrete, n_discrete))

    def fit_encoded_epsilons(
        self, codes: np.ndarray, labels: np.ndarray, domain: Domain, epsilons: Sequence[float]
    ) -> list[DPRandomForestClassifier]:
        """One forest per ε on the same trees and row assignment, the rows routed once.

        Each forest equals, bit for bit, ``clone(self).set_params(epsilon=ε).fit_encoded(
        codes, labels, domain)``: the trees and the row-to-tree assignment depend on
        ``random_state``, ``n_trees``, ``max_depth`` and the domain, not on ε, so the rows
        reach the same leaves in every fit, and this method routes them once instead of
        once per ε (what a sweep over ε, like notebook 05's explorer, spends most on).
        Only the leaf-label releases, with their noise, are made per ε.

        Parameters
        ----------
        codes, labels, domain
            As for :meth:`fit_encoded`.
        epsilons : sequence of float
            The total ε of each forest.

        Returns
        -------
        list of DPRandomForestClassifier
            Fitted clones of this estimator, one per ε, in order.

        Raises
        ------
        InvalidParameterError
            If ``random_state`` is not an int (the forests would not share their trees),
            or for an invalid ε (before any row is read).

        Notes
        -----
        Privacy claim: each forest *alone* is that of a fresh fit at its ε (ε-DP, see
        :func:`get_majority_labels`), with its own ledger. The forests are *not* releases
        to publish together: like separate fits with the same ``random_state``, they share
        the noise generator's draws (the same uniforms at every ε) and the row
        assignment, so the sequential-composition bound (their ε added up) does not cover
        two of them side by side — correlated noise can cancel (notebook 06, "same noise
        in both releases"; :func:`dpviz.explore.audit.reused_noise_audits`). They answer
        "what would the forest look like at ε?" (notebook 05's explorer); to publish
        several, fit each with its own ``random_state``. Nothing but the returned forests
        is kept. Interrupted, it returns nothing and leaves this estimator unchanged; the
        queries of the forests made so far are recorded on the exception only (a note,
        and their ledgers in its ``dpviz_ledgers``).
        """
        if isinstance(self.random_state, bool) or not isinstance(
            self.random_state, int | np.integer
        ):
            raise InvalidParameterError(
                "fit_encoded_epsilons needs an int random_state (so that the forests share "
                f"their trees), got {self.random_state!r}"
            )
        forests = [clone(self).set_params(epsilon=eps) for eps in epsilons]
        for forest in forests:  # refuse any bad ε before any row is read
            forest._check_params()
        if not isinstance(domain, Domain):
            raise InvalidParameterError(f"domain must be a dpviz Domain, got {domain!r}")
        codes, labels = check_encoded(codes, domain, labels)
        routed: list = []  # the rows' leaves, routed by the first fit (the same trees in all)
        try:
            for forest in forests:
                forest._fit_routed(codes, labels, domain, routed)
        except BaseException as exc:  # the finished forests are discarded too: keep their cost
            done = [f.ledger_ for f in forests if hasattr(f, "ledger_")]
            keep_discarded(exc, f"{type(self).__name__}.fit_encoded_epsilons", done, None, 0)
            raise
        return forests

    def _fit_routed(
        self, codes: np.ndarray, labels: np.ndarray, domain: Domain, routed: list
    ) -> DPRandomForestClassifier:
        """:meth:`fit_encoded` of checked codes, with the rows' leaves kept in ``routed``."""
        return self._atomic(
            "fit_encoded_epsilons",
            lambda work: work._fit_routed_codes(codes, labels, domain, routed),
        )

    def _fit_routed_codes(
        self, codes: np.ndarray, labels: np.ndarray, domain: Domain, routed: list
    ) -> DPRandomForestClassifier:
        """:meth:`_fit_routed` on the working copy."""
        return self._fit_domain_codes(codes, labels, domain, routed=routed)

    def _fit_codes(
        self, codes: np.ndarray, labels: np.ndarray, domain: Domain, routed: list | None = None
    ) -> DPRandomForestClassifier:
        """FI Alg. 1 ``BuildForest``: depth, τ random trees, then ``GetMajorityLabels``.

        ``routed``: see :meth:`fit_encoded_epsilons`.
        """
        epsilon = self._epsilon(self.epsilon)
        n_trees = check_int(self.n_trees, "n_trees", minimum=1)
        self._check_scale(domain)
        structure_rng, noise_rng = self._rngs()
        self.depth_ = self._tree_depth(domain)
        keys = structure_rng.integers(0, 2**63, size=n_trees)
        self.trees_ = [RandomTree(domain, self.depth_, int(k)) for k in keys]
        table = self._private_table(codes, labels, domain, epsilon, noise_rng)
        self.leaf_labels_ = get_majority_labels(
            table,
            self.trees_,
            epsilon=epsilon,
            mechanism=self.leaf_mechanism,
            disjoint=check_bool(self.disjoint, "disjoint"),
            rng=noise_rng,
            routed=routed,
        )
        table.close()
        self.ledger_ = table.ledger
        return self

    def votes(self, X: Any) -> np.ndarray:
        """Number of trees voting for each class, shape (n, n_classes)."""
        check_is_fitted(self, "trees_")
        return self._votes(self._predict_codes(X))

    def votes_encoded(self, codes: np.ndarray) -> np.ndarray:
        """:meth:`votes` of rows already encoded with ``domain_``."""
        check_is_fitted(self, "trees_")
        return self._votes(check_encoded(codes, self.domain_, unknown=True)[0])

    # ------------------------------------------------------------------ routed once, voted often
    def locate_encoded(self, codes: np.ndarray) -> ForestLeaves:
        """Where encoded rows land in every tree: public, and the same at every ε.

        The trees are drawn from the public domain with the structure generator alone
        (FI Alg. 2 ``BuildTree``), so forests that differ only in ``epsilon`` or
        ``leaf_mechanism`` (same ``random_state``, ``n_trees``, ``max_depth``, domain)
        have the same trees, and the rows reach the same leaves: only the leaves'
        labels change. Route the rows once with this method, then vote with
        :meth:`votes_located` on each refitted forest (the explorer of notebook 05
        does this when ε moves).

        Parameters
        ----------
        codes : ndarray (n, k)
            Rows encoded with ``domain_`` (``-1``: an unknown category).

        Returns
        -------
        ForestLeaves
            Holds a (τ × n) table of leaf positions: mind the memory for large inputs
            (:meth:`votes` bounds it by routing a few trees at a time).
        """
        check_is_fitted(self, "trees_")
        codes = check_encoded(codes, self.domain_, unknown=True)[0]
        leaves, offsets, index = self._route_leaves(codes, 0, len(self.trees_))
        # sort each tree's leaves by key, once: the releases look sorted keys up faster
        order = np.concatenate(
            [lo + np.argsort(leaves[lo:hi]) for lo, hi in pairwise(offsets)]
        )
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        return ForestLeaves(self._structure(), leaves[order], offsets, position[index])

    def votes_located(self, leaves: ForestLeaves) -> np.ndarray:
        """:meth:`votes` of the rows routed by :meth:`locate_encoded`: exactly the same counts.

        Parameters
        ----------
        leaves : ForestLeaves
            From ``locate_encoded`` of this forest or of one with the same trees.

        Returns
        -------
        ndarray (n, n_classes) of int64

        Raises
        ------
        InvalidParameterError
            If ``leaves`` were routed through other trees.
        """
        check_is_fitted(self, "trees_")
        if not isinstance(leaves, ForestLeaves) or leaves.structure != self._structure():
            raise InvalidParameterError(
                "leaves must come from locate_encoded of a forest with the same trees "
                "(same random_state, n_trees, max_depth and domain)"
            )
        return self._count_votes(
            self._tree_labels(leaves.leaves, leaves.offsets, leaves.index, 0)
        )

    def predict_located(self, leaves: ForestLeaves) -> np.ndarray:
        """:meth:`predict_encoded` of rows given by :meth:`locate_encoded` (class codes)."""
        return np.argmax(self.votes_located(leaves), axis=1)

    def _structure(self) -> tuple[int, tuple[int, ...]]:
        """What fixes the leaves a row reaches: the depth and the trees' keys."""
        return self.depth_, tuple(int(t.key) for t in self.trees_)

    def _route_leaves(
        self, codes: np.ndarray, start: int, stop: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Route every row through trees ``start .. stop-1`` in one vectorized pass.

        Returns the distinct leaves reached, grouped tree by tree (``forest_leaves`` keeps
        the nodes in the order of their trees), the offsets of each tree's group, and the
        position of each (tree, row)'s leaf, shape (stop - start, n).
        """
        n, m = codes.shape[0], stop - start
        tree_of = np.repeat(np.arange(m), n)
        leaves, index = forest_leaves(self.trees_[start:stop], codes, tree_of,
                                      np.tile(np.arange(n), m))
        tree_of_leaf = np.empty(len(leaves), dtype=np.int64)
        tree_of_leaf[index] = tree_of
        offsets = np.searchsorted(tree_of_leaf, np.arange(m + 1))
        return leaves, offsets, index.reshape(m, n)

    def _tree_labels(
        self, leaves: np.ndarray, offsets: np.ndarray, index: np.ndarray, first: int
    ) -> np.ndarray:
        """The released label of each (tree, row)'s leaf, trees ``first ..``, shape (m, n)."""
        return self._leaf_labels(leaves, offsets, first)[index]

    def _leaf_labels(
        self, leaves: np.ndarray, offsets: np.ndarray, first: int, sort: bool = False
    ) -> np.ndarray:
        """The released label of each leaf of trees ``first ..`` (``offsets``: their groups).

        Each release is looked up once per distinct leaf of its own trees (one release
        for all trees with disjoint rows, one per tree otherwise); ``sort``: in key order.
        """
        per_release = len(self.trees_) // len(self.leaf_labels_)
        m = len(offsets) - 1
        labels = np.empty(len(leaves), dtype=np.int64)
        for r in range(first // per_release, (first + m - 1) // per_release + 1):
            lo = max(r * per_release, first) - first
            hi = min((r + 1) * per_release, first + m) - first
            block = slice(int(offsets[lo]), int(offsets[hi]))
            if sort:  # the releases look sorted keys up faster (a pure function of each key)
                order = np.argsort(leaves[block])
                labels[block][order] = self.leaf_labels_[r](leaves[block][order])
            else:
                labels[block] = self.leaf_labels_[r](leaves[block])
        return labels

    def _count_votes(self, labels: np.ndarray) -> np.ndarray:
        """Votes (n, n_classes) from the labels (trees, n) of each tree at each row."""
        n, n_classes = labels.shape[1], self.domain_.n_classes
        flat = (np.arange(n) * n_classes + labels).ravel()
        return np.bincount(flat, minlength=n * n_classes).reshape(n, n_classes)

    def _votes(self, codes: np.ndarray) -> np.ndarray:
        n, tau = codes.shape[0], len(self.trees_)
        votes = np.zeros((n, self.domain_.n_classes), dtype=np.int64)
        # bound memory: rows × trees routed at once (a tenth of the budget)
        per_item = route_bytes(len(self.domain_), self.depth_,
                               bool(self.domain_.categorical_mask.any()))
        chunk = max(1, min(tau, MEMORY_BUDGET // 10 // (per_item * max(n, 1))))
        for start in range(0, tau, chunk):
            stop = min(start + chunk, tau)
            votes += self._chunk_votes(codes, start, stop)
        return votes

    def _chunk_votes(self, codes: np.ndarray, start: int, stop: int) -> np.ndarray:
        """Votes of trees ``start .. stop-1``: the same counts by either of two routes.

        When these trees have at most one node per 4 (row, tree) items (100 trees of depth
        8 from 2,050 rows on; below, the route is as fast, measured), they are materialized
        whole, every leaf's label looked up (labels are a pure function of the leaf key,
        so the leaves no row reaches change nothing) and the votes counted as the rows go
        down (:func:`dpviz.trees.descend.vote`). Otherwise the rows are routed
        (:meth:`_route_leaves`) and each distinct leaf reached is looked up.
        """
        budget = codes.shape[0] * (stop - start) // 4
        trees = self.trees_[start:stop]
        if 2 * len(trees) * trees[0].max_leaves() <= budget:  # worth trying: may fit
            top, leaves, offsets = forest_top(trees, budget)
            if top.levels == self.depth_:
                labels = self._leaf_labels(leaves, offsets, start, sort=True)
                return vote(top, codes, labels, self.domain_.n_classes)
        return self._count_votes(self._tree_labels(*self._route_leaves(codes, start, stop),
                                                   start))

    def released_labels(self, X: Any) -> np.ndarray:
        """The released label of the leaf each row reaches, per tree: codes, shape (τ, n).

        A lookup of the release itself (what an observer of the published forest sees at
        these rows), before the vote; used by the audits.
        """
        check_is_fitted(self, "trees_")
        codes = self._predict_codes(X)
        return self._tree_labels(*self._route_leaves(codes, 0, len(self.trees_)), 0)

    def export_release(self, max_leaves: int = 100_000) -> pd.DataFrame:
        """The release, materialized: every leaf of every tree and its private label.

        Safe to share (what the privacy claim covers, see ``docs/privacy.md``), unlike the
        fitted object. Refuses trees with more than ``max_leaves`` leaves each.

        Returns
        -------
        DataFrame
            One row per leaf: ``tree``, ``leaf`` (the path of tests) and ``label``.
        """
        check_is_fitted(self, "trees_")
        per_release = len(self.trees_) // len(self.leaf_labels_)
        frames = []
        for i, tree in enumerate(self.trees_):
            keys, paths = tree.leaves(max_leaves)
            labels = self.leaf_labels_[i // per_release](keys)
            frames.append(pd.DataFrame({"tree": i, "leaf": paths,
                                        "label": self._decode(labels)}))
        return pd.concat(frames, ignore_index=True)

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        """Vote shares of the classes."""
        check_is_fitted(self, "trees_")
        votes = self._votes(codes)
        return votes / votes.sum(axis=1, keepdims=True)

    def _label_codes(self, codes: np.ndarray) -> np.ndarray:
        """Majority vote over the trees (ties: the first class in domain order)."""
        check_is_fitted(self, "trees_")
        return np.argmax(self._votes(codes), axis=1)
