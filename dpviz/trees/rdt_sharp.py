"""RDT#: semi-supervised private random trees boosted by public unlabeled data.

Jagannathan, Monteleoni & Pillaipakkamnatt (ICDM Workshops 2013), Fig. 3–5.
Public (non-private) unlabeled rows shape each tree's leaves into "dense
regions" around centres; only a small *primary* ensemble reads the private
labeled rows (through :class:`~dpviz.privacy.PrivateTable`, noise on every
centre's class counts); it pseudo-labels the public rows, which then fill a
large *secondary* ensemble; the classifier is the union of both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from dpviz import keyed
from dpviz.domain import Categorical, Domain
from dpviz.errors import InvalidParameterError
from dpviz.leaf_release import NoisyLeafCounts
from dpviz.privacy import PrivateTable
from dpviz.trees._base import DPEstimatorMixin, check_encoded
from dpviz.trees.depth import rdt_sharp_depth
from dpviz.trees.random_tree import RandomTree
from dpviz.trees.rdt import classify
from dpviz.validation import check_int

__all__ = ["CentredTree", "RDTSharpClassifier", "create_tree", "region_distance"]


def region_distance(rows: np.ndarray, centres: np.ndarray, domain: Domain) -> np.ndarray:
    """Distance of encoded rows to centres: mismatches + range-normalized numeric gaps.

    RDT# leaves the distance unspecified ("the region center closest to x"). dpviz
    uses, summed over attributes: 1 for each categorical attribute whose values
    differ (Hamming / mismatch count), and |x − c| / (high − low) for each numeric
    attribute (its public range, so every attribute weighs at most 1).

    Parameters
    ----------
    rows : ndarray (..., k)
    centres : ndarray (..., k)
        Broadcastable against ``rows``.
    domain : Domain

    Returns
    -------
    ndarray
        Distances, shape of the broadcast without the last axis.
    """
    categorical = domain.categorical_mask
    bounds = domain.bounds
    width = np.where(categorical, 1.0, bounds[:, 1] - bounds[:, 0])
    gap = np.abs(rows - centres)
    return np.where(categorical, gap > 0, gap / width).sum(axis=-1)


@dataclass
class CentredTree:
    """One RDT# tree: a random structure plus dense-region centres in its leaves.

    Attributes
    ----------
    tree : RandomTree
        The structure (drawn from the public Domain).
    leaf_keys : ndarray of uint64
        Sorted keys of the leaves that hold public rows.
    centres : ndarray (n_centres, k)
        The encoded public rows chosen as centres, grouped by leaf.
    slots : ndarray (n_leaves, max_centres) of int
        For each leaf in ``leaf_keys``, the indices of its centres in ``centres``
        (−1 padding).
    public_leaves : ndarray of uint64, optional
        The leaf of each public row the tree was built from (kept to avoid re-routing them).
    """

    tree: RandomTree
    leaf_keys: np.ndarray
    centres: np.ndarray
    slots: np.ndarray
    public_leaves: np.ndarray | None = None

    def cell_keys(self, codes: np.ndarray, leaves: np.ndarray | None = None) -> np.ndarray:
        """The key of the centre cell each row falls in (AddInstance: leaf, then closest centre).

        A row in a leaf without public rows falls in that leaf's single implicit
        centre, whose neighbourhood is the whole leaf (RDT#: "each leaf of the random
        decision tree has at least one center"). Ties go to the first centre.
        """
        if leaves is None:
            leaves = self.tree.leaf_keys(codes)
        index = np.zeros(len(codes), dtype=np.int64)
        if len(self.leaf_keys):
            pos = np.minimum(np.searchsorted(self.leaf_keys, leaves), len(self.leaf_keys) - 1)
            has = self.leaf_keys[pos] == leaves
            slots = self.slots[pos[has]]  # (m, M)
            valid = slots >= 0
            dist = region_distance(
                codes[has][:, None, :], self.centres[np.maximum(slots, 0)], self.tree.domain
            )
            index[has] = np.argmin(np.where(valid, dist, np.inf), axis=1)
        return keyed.child_keys(leaves, index)


def create_tree(
    domain: Domain, depth: int, public_codes: np.ndarray, *, n_cells: int, rng: np.random.Generator
) -> CentredTree:
    """RDT# Fig. 3, ``CreateTree``: a random structure, then centres from the public rows.

    In each leaf holding |D_leaf| of the N public rows, ``⌈n_cells·|D_leaf| / N⌉`` of them
    (at most |D_leaf|, when there are fewer public rows than N_CELLS) are chosen at random
    (without replacement) as centres of dense regions. Public rows only: this reads no
    private data.

    Parameters
    ----------
    domain : Domain
    depth : int
        Tree height h.
    public_codes : ndarray (N, k)
        The non-private unlabeled rows, encoded.
    n_cells : int
        N_CELLS, the total number of centres to spread (RDT#: 10).
    rng : numpy.random.Generator
        Source of the structure and of the choice of centres.
    """
    tree = RandomTree(domain, depth, int(rng.integers(0, 2**63)))
    n = len(public_codes)
    if n == 0:
        return CentredTree(
            tree, np.zeros(0, np.uint64), np.zeros((0, len(domain))), np.zeros((0, 1), np.int64)
        )
    routing = tree.route(public_codes)
    leaf_order = np.argsort(routing.level_keys[-1])  # few leaves: sort them, not the rows
    keys = routing.level_keys[-1][leaf_order]
    rank_of_leaf = np.empty_like(leaf_order)
    rank_of_leaf[leaf_order] = np.arange(len(leaf_order))
    inverse = rank_of_leaf[routing.level_index[-1]]
    sizes = np.bincount(inverse, minlength=len(keys))
    # never more centres than the leaf has public rows (a leaf's centres are its rows)
    n_centres = np.minimum(np.ceil(n_cells * sizes / n).astype(np.int64), sizes)
    # a random order of the rows; in each leaf the first n_centres rows become its centres
    shuffled = rng.permutation(n)
    order = shuffled[np.argsort(inverse[shuffled], kind="stable")]
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rank = np.arange(n) - np.repeat(start, sizes)
    chosen = order[rank < np.repeat(n_centres, sizes)]
    centres = public_codes[chosen]
    width = int(n_centres.max())
    slots = np.full((len(keys), width), -1, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(n_centres)[:-1]])
    within = np.arange(len(chosen)) - np.repeat(offsets, n_centres)
    slots[np.repeat(np.arange(len(keys)), n_centres), within] = np.arange(len(chosen))
    return CentredTree(tree, keys, centres, slots, public_leaves=keys[inverse])


class RDTSharpClassifier(DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """RDT# Classifier (RDT# Fig. 5): private labeled rows plus public unlabeled rows.

    Parameters
    ----------
    epsilon : float
        Total ε; the primary ensemble's p trees get ε/p each (RDT# Theorem 3).
    n_primary : int
        p, the primary ensemble (RDT#: 5).
    n_secondary : int
        t, the secondary ensemble (RDT#: 200).
    n_cells : int
        N_CELLS, centres spread over each tree's leaves (RDT#: 10).
    max_depth : int, optional
        Height; default :meth:`height`: with ``n_labeled``,
        :func:`~dpviz.trees.depth.rdt_sharp_depth` = min(⌊k/2⌋, ⌊log_b n⌋ + 1), b the
        mean number of values per attribute (numeric attributes count 2); without it,
        ⌊k/2⌋.
    n_labeled : int, optional
        A public number of labeled rows for the height rule (e.g. the size the data
        owner announces). The paper uses the private row count; dpviz never does (the
        height is released with the trees, so it would reveal whether one person is in
        the data).
    noise : {"discrete_laplace", "laplace"}
        Noise on each centre's class counts (AddNoise); ``"laplace"`` is not proven
        private in floating point and warns.
    domain : Domain, optional
        Public schema; derived from the data (with a PrivacyLeakWarning) if omitted.
    unknown : {"raise", "random"}
        Prediction-time policy for categories outside the domain.
    random_state : int, Generator or None

    Attributes
    ----------
    primary_ : list of CentredTree
    primary_counts_ : list of NoisyLeafCounts
        The primary trees' noisy centre counts (the only private release).
    pseudo_labels_ : ndarray
        Class codes the primary ensemble gave the public rows.
    secondary_ : list of CentredTree
    secondary_counts_ : list of NoisyLeafCounts
        Exact counts of the pseudo-labeled public rows (ε = ∞: public data).
    ledger_ : Ledger
        The primary ensemble's p releases; its total is ε however large t is.

    Notes
    -----
    Privacy claim: ε-DP for add/remove one private row (RDT# Theorem 3) with
    ``noise="discrete_laplace"``: each primary tree's centre-count vector has
    sensitivity 1 and gets noise of scale p/ε; the height, the centres and the
    secondary ensemble use only public information (the domain, ``n_labeled`` or
    ``max_depth``, public rows) and the primary ensemble's (private) output —
    post-processing. No claim with ``noise="laplace"`` (float Laplace, warns
    :class:`~dpviz.errors.NotProvenPrivateWarning`).

    What is released: the structures, centres and noisy cell counts of the primary
    trees and everything computed from them. The fitted object keeps curator secrets
    (see ``docs/privacy.md``); pickling it warns
    :class:`~dpviz.errors.PrivacyLeakWarning`.
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        n_primary: int = 5,
        n_secondary: int = 200,
        n_cells: int = 10,
        max_depth: int | None = None,
        n_labeled: int | None = None,
        noise: Literal["discrete_laplace", "laplace"] = "discrete_laplace",
        domain: Any = None,
        unknown: str = "raise",
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.n_primary = n_primary
        self.n_secondary = n_secondary
        self.n_cells = n_cells
        self.max_depth = max_depth
        self.n_labeled = n_labeled
        self.noise = noise
        self.domain = domain
        self.unknown = unknown
        self.random_state = random_state

    def height(self, domain: Domain) -> int:
        """The trees' height, from public information only (RDT# §IV's rule).

        ``max_depth`` if given; else ``rdt_sharp_depth(k, b, n_labeled)`` =
        min(⌊k/2⌋, ⌊log_b n_labeled⌋ + 1) when the public ``n_labeled`` is given; else
        the rule's upper end ⌊k/2⌋ (at least 1). It never reads the private rows: the
        paper's rule with the private row count would make the released height depend on
        one person's presence (one row vs two: heights 1 vs 2, an audit finds ε ≥ 5 at a
        claimed 1). :func:`dpviz.trees.depth.rdt_sharp_depth` shows the paper's rule.
        """
        if self.max_depth is not None:
            return check_int(self.max_depth, "max_depth", minimum=1)
        k = len(domain)
        if self.n_labeled is None:
            return max(k // 2, 1)
        values = [a.n_values if isinstance(a, Categorical) else 2 for a in domain]
        b = max(float(np.mean(values)), 1.0 + 1e-9)
        return rdt_sharp_depth(k, b, check_int(self.n_labeled, "n_labeled", minimum=1))

    def fit(self, X: Any, y: Any, X_public: Any = None) -> RDTSharpClassifier:
        """RDT# Classifier (Fig. 5) on private ``X, y`` and public unlabeled ``X_public``.

        Without ``X_public`` every leaf has one implicit centre and there is no
        secondary ensemble: RDT# reduces to Private-RDT with p trees.
        """
        self._check_params()
        codes, labels, domain = self._fit_inputs(X, y)
        public = None if X_public is None else domain.encode(X_public)
        return self._fit_codes(codes, labels, domain, public=public)

    def _check_params(self) -> None:
        epsilon = self._epsilon(self.epsilon)
        n_primary = check_int(self.n_primary, "n_primary", minimum=1)
        check_int(self.n_secondary, "n_secondary", minimum=0)
        check_int(self.n_cells, "n_cells", minimum=1)
        if self.noise not in NoisyLeafCounts.MECHANISMS:
            raise InvalidParameterError(
                f"noise must be 'discrete_laplace' or 'laplace', got {self.noise!r}"
            )
        self._check_share(NoisyLeafCounts, epsilon / n_primary, self.noise,
                          f"split over n_primary={n_primary}")

    def _fit_codes(
        self, codes: np.ndarray, labels: np.ndarray, domain: Domain,
        public: np.ndarray | None = None,
    ) -> RDTSharpClassifier:
        """RDT# Fig. 5 on encoded rows; ``public``: the encoded unlabeled rows (or None)."""
        epsilon = self._epsilon(self.epsilon)
        n_primary = check_int(self.n_primary, "n_primary", minimum=1)
        n_secondary = check_int(self.n_secondary, "n_secondary", minimum=0)
        n_cells = check_int(self.n_cells, "n_cells", minimum=1)
        if public is None:
            public = np.zeros((0, len(domain)))
        else:
            public = check_encoded(public, domain)[0]
        self.depth_ = self.height(domain)
        structure_rng, noise_rng = self._rngs()
        secondary_rng = structure_rng.spawn(1)[0]
        self.primary_ = [
            create_tree(domain, self.depth_, public, n_cells=n_cells, rng=structure_rng)
            for _ in range(n_primary)
        ]
        table = PrivateTable.from_encoded(
            codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng
        )
        self.primary_counts_ = [
            table.noisy_leaf_counts(
                tree.cell_keys,
                epsilon=epsilon / n_primary,
                mechanism=self.noise,
                label=f"primary tree {i + 1} centre counts",
            )
            for i, tree in enumerate(self.primary_)
        ]
        table.close()
        self.ledger_ = table.ledger
        self.pseudo_labels_ = self._classify(self.primary_, self.primary_counts_, public).argmax(
            axis=1
        )
        self.secondary_, self.secondary_counts_ = build_secondary(
            domain,
            self.depth_,
            public,
            self.pseudo_labels_,
            n_trees=n_secondary,
            n_cells=n_cells,
            rng=secondary_rng,
        )
        return self

    @staticmethod
    def _classify(trees: list[CentredTree], counts: list[Any], codes: np.ndarray) -> np.ndarray:
        """RDT# Fig. 4 (Classify) over the given trees."""
        if len(codes) == 0:
            return np.zeros((0, counts[0].n_classes)) if counts else np.zeros((0, 0))
        return classify([c(t.cell_keys(codes)) for t, c in zip(trees, counts, strict=True)])

    def released_counts(self, X: Any) -> np.ndarray:
        """The primary trees' released (noisy) counts of the cell each row falls in: (p, n, T).

        A lookup of the only private release of the model; used by the audits.
        """
        check_is_fitted(self, "primary_")
        codes = self._predict_codes(X)
        return np.stack([
            c(t.cell_keys(codes)) for t, c in zip(self.primary_, self.primary_counts_, strict=True)
        ])

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        """Class probabilities of the union E1 ∪ E2 (RDT# Fig. 4: summed counts, normalized)."""
        check_is_fitted(self, "primary_")
        trees = self.primary_ + self.secondary_
        counts = self.primary_counts_ + self.secondary_counts_
        return classify([c(t.cell_keys(codes)) for t, c in zip(trees, counts, strict=True)])


def build_secondary(
    domain: Domain,
    depth: int,
    public: np.ndarray,
    pseudo_labels: np.ndarray,
    *,
    n_trees: int,
    n_cells: int,
    rng: np.random.Generator,
) -> tuple[list[CentredTree], list[NoisyLeafCounts]]:
    """RDT# Fig. 5, secondary ensemble: t trees filled with the pseudo-labeled public rows.

    Uses only public rows and the primary ensemble's labels for them, so it reads
    no private data and costs no budget (post-processing); its counts are exact.
    """
    trees, counts = [], []
    if len(public) == 0:
        return trees, counts
    for _ in range(n_trees):
        tree = create_tree(domain, depth, public, n_cells=n_cells, rng=rng)
        trees.append(tree)
        counts.append(  # exact counts of public rows: ε = inf, no noise and no secret
            NoisyLeafCounts.release(
                tree.cell_keys(public, leaves=tree.public_leaves),
                pseudo_labels,
                domain.n_classes,
                epsilon=float("inf"),
                mechanism="discrete_laplace",
                rng=None,
            )
        )
    return trees, counts
