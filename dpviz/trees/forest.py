"""Fletcher & Islam's differentially private random decision forest (FI 2017 + 2021 addendum).

FI Alg. 1–2: τ random trees whose depth comes from :func:`fletcher_islam_depth`
(Theorem 2 + ⌊r/2⌋), each filled with a *disjoint* subset of the rows and the
full ε (parallel composition, FI §4.2), each leaf releasing only its majority
label through an ε-DP selection (FI §4.1; by default the addendum's Report
One-Sided Noisy Arg-Max), prediction by majority vote over the trees.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError
from dpviz.leaf_release import NoisyLeafLabels
from dpviz.privacy import PrivateTable
from dpviz.trees._base import DPEstimatorMixin, check_encoded
from dpviz.trees.depth import fletcher_islam_depth
from dpviz.trees.random_tree import RandomTree, forest_leaf_keys, forest_route
from dpviz.validation import check_int

__all__ = ["DPRandomForestClassifier", "get_majority_labels"]


def get_majority_labels(
    table: PrivateTable,
    trees: list[RandomTree],
    *,
    epsilon: float,
    mechanism: str,
    disjoint: bool,
    rng: np.random.Generator,
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
    in more than one part and parallel composition no longer applies. With an
    independent assignment per row, a neighbour changes exactly one leaf.
    """
    tau = len(trees)
    if disjoint:

        def route(codes: np.ndarray) -> np.ndarray:
            return forest_leaf_keys(trees, codes, rng.integers(0, tau, size=codes.shape[0]))

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
            tree.leaf_keys,
            epsilon=epsilon / tau,
            mechanism=mechanism,
            label=f"tree {i + 1} leaf labels",
        )
        for i, tree in enumerate(trees)
    ]


class DPRandomForestClassifier(DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """The FI differentially private random decision forest (FI 2017 Alg. 1–2, 2021 addendum).

    Parameters
    ----------
    epsilon : float
        Total ε. ``math.inf``: exact majority labels (the non-private variant;
        FI's also reads all rows in every tree: use ``disjoint=False``).
    n_trees : int
        τ, the number of trees (FI default 100).
    max_depth : int, optional
        Tree depth; default :func:`fletcher_islam_depth` of the domain's
        numeric (continuous) and categorical (discrete) attribute counts.
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
    """

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
        if self.leaf_mechanism not in NoisyLeafLabels.MECHANISMS:
            raise InvalidParameterError(
                f"leaf_mechanism must be one of {NoisyLeafLabels.MECHANISMS}, "
                f"got {self.leaf_mechanism!r}"
            )
        self._check_share(NoisyLeafLabels, epsilon if self.disjoint else epsilon / n_trees,
                          self.leaf_mechanism,
                          "(disjoint rows)" if self.disjoint else f"split over n_trees={n_trees}")

    def _fit_codes(
        self, codes: np.ndarray, labels: np.ndarray, domain: Domain
    ) -> DPRandomForestClassifier:
        """FI Alg. 1 ``BuildForest``: depth, τ random trees, then ``GetMajorityLabels``."""
        epsilon = self._epsilon(self.epsilon)
        n_trees = check_int(self.n_trees, "n_trees", minimum=1)
        structure_rng, noise_rng = self._rngs()
        if self.max_depth is None:
            n_discrete = int(domain.categorical_mask.sum())
            self.depth_ = fletcher_islam_depth(len(domain) - n_discrete, n_discrete)
        else:
            self.depth_ = check_int(self.max_depth, "max_depth", minimum=1)
        keys = structure_rng.integers(0, 2**63, size=n_trees)
        self.trees_ = [RandomTree(domain, self.depth_, int(k)) for k in keys]
        table = PrivateTable.from_encoded(
            codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng
        )
        self.leaf_labels_ = get_majority_labels(
            table,
            self.trees_,
            epsilon=epsilon,
            mechanism=self.leaf_mechanism,
            disjoint=bool(self.disjoint),
            rng=noise_rng,
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

    def _votes(self, codes: np.ndarray) -> np.ndarray:
        n, tau = codes.shape[0], len(self.trees_)
        n_classes = self.domain_.n_classes
        votes = np.zeros(n * n_classes, dtype=np.int64)
        rows = np.arange(n)
        per_release = tau // len(self.leaf_labels_)
        chunk = max(1, min(per_release, 2_000_000 // max(n, 1)))  # bound memory: rows × trees
        for r, release in enumerate(self.leaf_labels_):
            for start in range(0, per_release, chunk):
                ids = np.arange(
                    r * per_release + start, r * per_release + min(start + chunk, per_release)
                )
                row_of = np.tile(rows, len(ids))  # every row through every tree of the chunk
                routing = forest_route(
                    [self.trees_[i] for i in ids], codes, np.repeat(np.arange(len(ids)), n), row_of
                )
                labels = routing.per_leaf(release)  # one vote per (row, tree)
                votes += np.bincount(row_of * n_classes + labels, minlength=n * n_classes)
        votes = votes.reshape(n, n_classes)
        return votes

    def released_labels(self, X: Any) -> np.ndarray:
        """The released label of the leaf each row reaches, per tree: codes, shape (τ, n).

        A lookup of the release itself (what an observer of the published forest sees at
        these rows), before the vote; used by the audits.
        """
        check_is_fitted(self, "trees_")
        codes = self._predict_codes(X)
        per_release = len(self.trees_) // len(self.leaf_labels_)
        return np.stack([
            self.leaf_labels_[i // per_release](tree.leaf_keys(codes))
            for i, tree in enumerate(self.trees_)
        ])

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
