"""RDT#: private random trees boosted by public unlabeled rows (JMP 2013, Fig. 3-5).

Twin in the paper's words: :mod:`dpviz.pseudocode.rdt_sharp`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpviz import keyed
from dpviz.domain import Categorical, Domain, Encoded
from dpviz.errors import InvalidParameterError
from dpviz.leaf_release import NoisyLeafCounts
from dpviz.records import atomic, open_table
from dpviz.trees._base import Classifier, DPEstimatorMixin, check_fitted
from dpviz.trees.random_tree import (
    RandomTree,
    cap_depth,
    check_depth,
    fan_depth,
    rdt_sharp_depth,
    route_bytes,
    tree_bytes,
)
from dpviz.trees.rdt import classify
from dpviz.validation import check_int, check_memory

__all__ = ["CentredTree", "RDTSharpClassifier", "create_tree", "height", "region_distance"]


def region_distance(rows: np.ndarray, centres: np.ndarray, domain: Domain) -> np.ndarray:
    """Distance to centres: 1 per categorical mismatch + |x − c| / (high − low) per numeric."""
    categorical = domain.categorical_mask
    bounds = domain.bounds
    width = np.where(categorical, 1.0, bounds[:, 1] - bounds[:, 0])
    gap = np.abs(rows - centres)
    return np.where(categorical, gap > 0, gap / width).sum(axis=-1)


#: Row-centre-attribute entries whose distances are computed at once (~40 B each, 40 MB).
DISTANCE_BLOCK = 2**20


@dataclass
class CentredTree:
    """One RDT# tree: a random structure plus dense-region centres (public rows) in its leaves.

    ``slots[i]`` lists the centres of leaf ``leaf_keys[i]`` (−1 padding).
    """

    tree: RandomTree
    leaf_keys: np.ndarray
    centres: np.ndarray
    slots: np.ndarray
    public_leaves: np.ndarray | None = None

    def cell_keys(self, codes: np.ndarray, leaves: np.ndarray | None = None) -> np.ndarray:
        """The centre cell of each row: its leaf, then the closest centre (ties: the first)."""
        if leaves is None:
            leaves = self.tree.leaf_keys(codes)
        index = np.zeros(len(codes), dtype=np.int64)
        if len(self.leaf_keys):
            pos = np.minimum(np.searchsorted(self.leaf_keys, leaves), len(self.leaf_keys) - 1)
            has = np.flatnonzero(self.leaf_keys[pos] == leaves)
            step = max(DISTANCE_BLOCK // (self.slots.shape[1] * codes.shape[1]), 1)
            for rows in (has[i:i + step] for i in range(0, len(has), step)):  # (m, M, k) blocks
                slots = self.slots[pos[rows]]  # (m, M)
                dist = _centre_distances(codes[rows], self.centres, np.maximum(slots, 0),
                                         self.tree.domain)
                index[rows] = np.argmin(np.where(slots >= 0, dist, np.inf), axis=1)
        return keyed.child_keys(leaves, index)


def cells_peak(domain: Domain, depth: int, n_rows: int, n_cells: int) -> int:
    """Estimated transient memory of placing ``n_rows`` rows in one tree's cells (an upper bound).

    Routing and codes per row; centre distances in blocks, 40 B per (row, centre, attribute) and
    4 B in small codes (measured: tests/test_memory_guards.py). Trees come one by one.
    """
    k = len(domain)
    per_row = route_bytes(k, depth) + 16 * (depth + 1) + 8 * k + 160
    per_entry = 4 if _small_codes(domain) else 40
    return n_rows * per_row + per_entry * min(n_rows * n_cells * k, DISTANCE_BLOCK)


def _small_codes(domain: Domain) -> bool:
    """Whether every attribute is categorical with codes that fit an int16."""
    return bool(domain.categorical_mask.all()) and all(
        a.n_values < 2**15 for a in domain if isinstance(a, Categorical))


def _centre_distances(
    rows: np.ndarray, centres: np.ndarray, slots: np.ndarray, domain: Domain
) -> np.ndarray:
    """``region_distance(rows[:, None, :], centres[slots], domain)``, shape (m, M)."""
    if not _small_codes(domain):
        return region_distance(rows[:, None, :], centres[slots], domain)
    r, c = rows.astype(np.int16), centres.astype(np.int16)
    return np.count_nonzero(r[:, None, :] != c[slots], axis=-1).astype(np.float64)


def height(domain: Domain, n_labeled: int | None = None, max_depth: int | None = None) -> int:
    """RDT#'s tree height, public: ``max_depth``, RDT#'s rule on ``n_labeled``, or ⌊k/2⌋ (capped).

    ``n_labeled`` is a public number of labeled rows, never the private row count.
    """
    if max_depth is not None:
        return check_depth(max_depth)
    k = len(domain)
    if n_labeled is None:
        return cap_depth(fan_depth(k))
    values = [a.n_values if isinstance(a, Categorical) else 2 for a in domain]
    b = max(float(np.mean(values)), 1.0 + 1e-9)
    return cap_depth(rdt_sharp_depth(k, b, check_int(n_labeled, "n_labeled", minimum=1)))


def create_tree(
    domain: Domain, depth: int, public_codes: np.ndarray, *, n_cells: int, rng: np.random.Generator
) -> CentredTree:
    """RDT# Fig. 3, CreateTree: a random structure, then ⌈n_cells·|D_leaf| / N⌉ centres per leaf."""
    tree = RandomTree(domain, depth, int(rng.integers(0, 2**63)))
    n = len(public_codes)
    if n == 0:
        return CentredTree(
            tree, np.zeros(0, np.uint64), np.zeros((0, len(domain))), np.zeros((0, 1), np.int64)
        )
    routing = tree.route(public_codes)
    leaf_order = np.argsort(routing.level_keys[-1])  # few leaves: sort them, not the rows
    keys = routing.level_keys[-1][leaf_order]
    inverse = np.argsort(leaf_order)[routing.level_index[-1]]  # each row's leaf rank
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


class RDTSharpClassifier(DPEstimatorMixin, Classifier):
    """RDT# Classifier (Fig. 5): private labeled rows plus public unlabeled rows.

    ε-DP in the private rows (add/remove one) with discrete Laplace: each of the p primary
    trees releases its noisy centre counts at ε/p; the rest is public or post-processing;
    argument: docs/privacy.md §8.2.3. Twin: :func:`dpviz.pseudocode.rdt_sharp.rdt_sharp`.
    The fitted object keeps curator secrets (pickling warns).

    Parameters
    ----------
    epsilon : float, default 1.0
        Total ε; each primary tree gets ε/p.
    n_primary : int, default 5
        p, the primary ensemble (RDT#: 5).
    n_secondary : int, default 200
        t, the secondary ensemble (RDT#: 200).
    n_cells : int, default 10
        N_CELLS, centres spread over each tree's leaves (RDT#: 10). Trees, centres and maps of
        the public rows over ``MEMORY_BUDGET`` are refused before any row is read.
    max_depth : int or None, default None
        Tree height <= ``MAX_DEPTH`` (64); None: the paper's rule, capped there.
    n_labeled : int or None, default None
        A public number of labeled rows for the height rule (:func:`height`); never the
        private row count.
    noise : {"discrete_laplace", "laplace"}, default "discrete_laplace"
        Noise on each count; "laplace" (float) is not proven private and warns.
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
    primary_, secondary_ : list of CentredTree
    primary_counts_ : list of NoisyLeafCounts
        The primary trees' noisy centre counts (the only private release).
    pseudo_labels_ : ndarray
        Class codes the primary ensemble gave the public rows.
    secondary_counts_ : list of NoisyLeafCounts
        Exact counts of the pseudo-labeled public rows.
    ledger_ : Ledger
        Every query of the current model with its ε (and tree level); earlier fits of
        this object, interrupted ones too: ``privacy_record``.
    """

    _noisy_by_design = True  # scikit-learn's poor_score tag (see DPEstimatorMixin)

    def __init__(
        self, epsilon: float = 1.0, n_primary: int = 5, n_secondary: int = 200, n_cells: int = 10,
        max_depth: int | None = None, n_labeled: int | None = None,
        noise: Literal["discrete_laplace", "laplace"] = "discrete_laplace", domain: Any = None,
        unknown: str = "raise", random_state: Any = None,
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

    def fit(self, X: Any, y: Any, X_public: Any = None) -> RDTSharpClassifier:
        """RDT# Fig. 5 on private rows ``X, y`` and public unlabeled rows ``X_public``.

        All or nothing. ``X`` and ``X_public``: DataFrames, arrays, or
        :class:`~dpviz.domain.Encoded` rows of the domain.
        """
        self._check_params()
        return atomic(self, "fit", lambda work: work._rdt_sharp(X, y, X_public))

    def _check_scale(self, domain: Domain | None, n_public: int = 0,
                     extra_centres: int = 0) -> tuple[int, int, int]:
        """The checked tree and centre counts; refuses a deep ``max_depth`` or too much memory.

        ``extra_centres``: centres beyond ``n_cells`` in the trees drawn so far (a leaf holding
        public rows gets one at least), measured as fit draws them.
        """
        n_primary = check_int(self.n_primary, "n_primary", minimum=1)
        n_secondary = check_int(self.n_secondary, "n_secondary", minimum=0)
        n_cells = check_int(self.n_cells, "n_cells", minimum=1)
        if self.max_depth is not None:
            check_depth(self.max_depth)
        k = 1 if domain is None else len(domain)
        per_tree = tree_bytes(k) + n_cells * (8 * k + 24) + 24 * n_public
        check_memory(
            (n_primary + n_secondary) * per_tree + extra_centres * (8 * k + 24)
            + (n_public and cells_peak(domain, height(domain, self.n_labeled, self.max_depth),
                                       n_public, n_cells)),
            f"n_primary + n_secondary = {self.n_primary!r} + {self.n_secondary!r} trees with "
            f"n_cells={self.n_cells!r} centres each over {k} attribute(s)"
            + (f" and {n_public} public rows" if n_public else ""),
            "pass fewer n_cells (RDT#: 10) or fewer n_secondary trees (RDT#: 200)",
        )
        return n_primary, n_secondary, n_cells

    def _check_params(self) -> None:
        epsilon = self._epsilon()
        n_primary = self._check_scale(self.domain if isinstance(self.domain, Domain) else None)[0]
        self._check_share(NoisyLeafCounts, epsilon / n_primary, self.noise,
                          f"split over n_primary={n_primary}")

    def _rdt_sharp(self, X: Any, y: Any, X_public: Any) -> RDTSharpClassifier:
        """RDT# Fig. 5 on the private rows ``X, y`` and the public rows ``X_public`` (or None)."""
        codes, labels, domain = self._fit_inputs(X, y)
        public = _public_codes(X_public, domain)
        n_primary, n_secondary, n_cells = self._check_scale(domain, len(public))
        self.depth_ = height(domain, self.n_labeled, self.max_depth)
        structure_rng, noise_rng = self._rngs()
        secondary_rng = structure_rng.spawn(1)[0]
        extra = [0]  # centres beyond n_cells so far: the guard again, with each tree's count

        def draw(rng: np.random.Generator) -> CentredTree:  # public rows only: nothing charged
            tree = create_tree(domain, self.depth_, public, n_cells=n_cells, rng=rng)
            extra[0] += max(len(tree.centres) - n_cells, 0)
            self._check_scale(domain, len(public), extra[0])
            return tree

        self.primary_ = [draw(structure_rng) for _ in range(n_primary)]
        # the secondary structures read public rows only: drawn now, filled after the release
        self.secondary_ = [draw(secondary_rng) for _ in range(n_secondary if len(public) else 0)]
        # where the public rows fall in every tree (distinct cells, and each row's): public,
        # and the same at every ε (refit)
        self._public_cells = [
            _distinct(t.cell_keys(public, leaves=t.public_leaves))
            for t in self.primary_ + self.secondary_
        ]
        return self._release(codes, labels, domain, noise_rng)

    def _release(
        self, codes: np.ndarray, labels: np.ndarray, domain: Domain,
        noise_rng: np.random.Generator,
    ) -> RDTSharpClassifier:
        """The private part of Fig. 5: AddLabeled, AddNoise, then E2's counts."""
        epsilon = self._epsilon()
        n_primary = len(self.primary_)
        table = open_table(self, codes, labels, domain=domain, epsilon=epsilon, rng=noise_rng)
        self.primary_counts_ = [
            table.noisy_leaf_counts(
                tree.cell_keys, epsilon=epsilon / n_primary, mechanism=self.noise,
                label=f"primary tree {i + 1} centre counts",
            )
            for i, tree in enumerate(self.primary_)
        ]
        table.close()
        self.ledger_ = table.ledger
        counts = (  # Classify(E1, x) for every public row x, each distinct cell looked up once
            c(keys)[inverse]
            for c, (keys, inverse) in zip(self.primary_counts_, self._public_cells, strict=False)
        )
        self.pseudo_labels_ = classify(counts).argmax(axis=1)
        # E2: exact class counts of the pseudo-labeled public rows per cell (AddLabeled)
        self.secondary_counts_ = [
            _exact_release(keys, _cell_counts(inverse, self.pseudo_labels_, len(keys),
                                              domain.n_classes))
            for keys, inverse in self._public_cells[n_primary:]
        ]
        return self

    def refit(self, X: Any, y: Any, *, epsilon: float) -> RDTSharpClassifier:
        """A new model: Fig. 5's private part again at ``epsilon`` on this model's structure.

        The trees, centres and public rows' cells are this model's (public: from
        ``random_state`` and the public rows), so the new model is bit for bit a fresh
        ``fit(X, y, X_public)`` at ``epsilon`` (int ``random_state``), without drawing them
        again. Its noise comes from ``random_state`` as a fresh fit's: refits share noise and
        are not to be published together (docs/privacy.md §8.2.5). All or nothing; recorded
        in this object's ``privacy_record``.
        """
        check_fitted(self, "primary_")
        model = object.__new__(type(self))  # a shallow copy (copy.copy would pickle-warn)
        model.__dict__.update(vars(self))
        model.epsilon = epsilon
        model._check_params()
        codes, labels = self._more_rows(X, y)  # the fitted domain's (the model's too)
        _, noise_rng = self._rngs()  # a fresh fit's noise generator (same random_state)
        return atomic(model, "refit",
                      lambda work: work._release(codes, labels, self.domain_, noise_rng),
                      record=False)

    def released_counts(self, X: Any) -> np.ndarray:
        """The primary trees' noisy counts of the cell each row falls in: (p, n, T)."""
        check_fitted(self, "primary_")
        codes = self._predict_codes(X)
        return np.stack([
            c(t.cell_keys(codes)) for t, c in zip(self.primary_, self.primary_counts_, strict=True)
        ])

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        """Classify (JPW Fig. 2) over E1 ∪ E2: each tree's counts at the row's cell."""
        check_fitted(self, "primary_")
        return classify(release(tree.cell_keys(codes)) for tree, release in zip(
            self.primary_ + self.secondary_, self.primary_counts_ + self.secondary_counts_,
            strict=True))


def _public_codes(X_public: Any, domain: Domain) -> np.ndarray:
    """The public unlabeled rows encoded (none: an empty array), Encoded rows checked."""
    if X_public is None:
        return np.zeros((0, len(domain)))
    if isinstance(X_public, Encoded):
        if X_public.domain != domain:
            raise InvalidParameterError("X_public was encoded with another domain than X")
        return domain.check_encoded(X_public.codes)[0]
    return domain.encode(X_public)


def _distinct(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keys, inverse = np.unique(np.asarray(cells, dtype=np.uint64), return_inverse=True)
    return keys, inverse.ravel()


def _cell_counts(inverse: np.ndarray, labels: np.ndarray, n_cells: int, n_classes: int) -> Any:
    flat = inverse * n_classes + np.asarray(labels, dtype=np.int64)
    return np.bincount(flat, minlength=n_cells * n_classes).reshape(n_cells, n_classes)


def _exact_release(keys: np.ndarray, counts: np.ndarray) -> NoisyLeafCounts:
    """Exact counts of public rows per cell as a release (ε = inf, no noise, no secret)."""
    return NoisyLeafCounts(keys, counts, counts.shape[1], epsilon=float("inf"),
                           mechanism="discrete_laplace", secret=None)
