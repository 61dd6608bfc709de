"""The nodes a Friedman & Schuster build releases, and how ``predict`` routes rows through them.

The bottom layer of the FS modules (it imports no other ``dpviz.trees.id3*`` module):
:class:`ID3Node` holds only released (noisy) values and the public context of one node;
:func:`flatten` turns a tree into arrays and :func:`route` sends rows down it level by
level with numpy. The tree object with its views, :class:`~dpviz.trees.id3_view.ID3Tree`,
is one layer up (:mod:`dpviz.trees.id3_view`), pruning (:mod:`dpviz.trees.id3_pruning`)
too; the estimators (:mod:`dpviz.trees.id3`) are on top. Nothing here reads private rows:
everything is post-processing of the build's ε-DP releases.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from dpviz import keyed
from dpviz.domain import Domain

__all__ = ["UNKNOWN_STREAM", "FlatTree", "ID3Node", "flatten", "leaf_distributions", "route"]

#: The keyed-uniform stream (:func:`dpviz.keyed.uniforms`) that picks the child an unknown
#: category goes to at a node (the random-tree family uses the same stream number).
UNKNOWN_STREAM = 3


@dataclass(eq=False)
class ID3Node:
    """One node of an induced tree, holding only released (noisy) values.

    Attributes
    ----------
    depth : int
        Number of tests above the node (the root has depth 0): its level in the ledger.
    condition : str
        The test on the edge from the parent, e.g. ``"a3 = 1"`` or ``"age <= 37.2"``
        (``"(root)"`` for the root).
    epsilon : float
        The ε of this level's queries (FS Alg. 1/2 line 3).
    noisy_count : float
        N_T, the node's noisy row count (FS line 8).
    attribute : str or None
        The split attribute; None for a leaf.
    threshold : float or None
        Split point of a numeric attribute (rows with ``x <= threshold`` go to child 0).
    children : list of ID3Node
        One per public value of a categorical split (domain order), two for a numeric one.
    class_counts : ndarray or None
        A leaf's noisy class counts N_c (FS line 11), in ``domain.classes`` order.
    label : int or None
        Class code predicted at a leaf: ``argmax_c N_c`` (FS line 12), or after pruning the
        arg-max of the corrected counts.
    stop : str
        Why the node is a leaf.
    split_points : dict
        Split points chosen at this node for every numeric candidate (FS §4.3); released.
    pruned : bool
        The subtree was replaced by a leaf by C4.5 pruning (FS Alg. 3); the children are
        kept for display but no longer used by ``predict``.
    corrected_count : float or None
        N_T after TopDownCorrect (FS Alg. 3 lines 7-16).
    corrected_class_counts : ndarray or None
        N_c after BottomUpAggregate (FS Alg. 3 lines 17-29).

    """

    depth: int
    condition: str
    epsilon: float
    noisy_count: float
    attribute: str | None = None
    threshold: float | None = None
    children: list[ID3Node] = field(default_factory=list)
    class_counts: np.ndarray | None = None
    label: int | None = None
    stop: str = ""
    split_points: dict[str, float] = field(default_factory=dict)
    pruned: bool = False
    corrected_count: float | None = None
    corrected_class_counts: np.ndarray | None = None

    @property
    def is_split(self) -> bool:
        """True for a node that tests an attribute (whether or not it was pruned)."""
        return self.attribute is not None

    @property
    def acts_as_leaf(self) -> bool:
        """True if ``predict`` stops here: a leaf, or a split collapsed by pruning."""
        return self.attribute is None or self.pruned

    @property
    def is_empty(self) -> bool:
        """A leaf whose noisy count N_T <= 0: rows that reach it are unclassified."""
        return self.attribute is None and self.noisy_count <= 0

    def walk(self) -> Iterator[ID3Node]:
        """Pre-order iterator over the node and all its descendants (pruned ones included)."""
        yield self
        for child in self.children:
            yield from child.walk()


# =============================================================================== routing
@dataclass
class FlatTree:
    """The effective tree (pruned branches cut) as arrays, for vectorized routing."""

    feature: np.ndarray  # int, -1 at a leaf
    threshold: np.ndarray  # float, NaN for a categorical split
    first_child: np.ndarray
    n_children: np.ndarray
    label: np.ndarray
    proba: np.ndarray
    unclassified: np.ndarray
    depth: int
    nodes: list[ID3Node]


def leaf_distributions(root: ID3Node) -> dict[int, np.ndarray]:
    """Class counts behind each node's prediction (non-negative), keyed by ``id(node)``.

    A leaf: its noisy class counts with negatives set to 0; a node collapsed by pruning: its
    corrected counts; any other split: the sum over its children (post-processing).
    """
    out: dict[int, np.ndarray] = {}

    def visit(node: ID3Node) -> np.ndarray:
        for child in node.children:
            visit(child)
        if node.pruned and node.corrected_class_counts is not None:
            dist = np.asarray(node.corrected_class_counts, dtype=np.float64)
        elif not node.is_split:
            assert node.class_counts is not None
            dist = np.clip(node.class_counts, 0.0, None)
        else:
            dist = np.sum([out[id(c)] for c in node.children], axis=0)
        out[id(node)] = dist
        return dist

    visit(root)
    return out


def _normalise(counts: np.ndarray, label: int) -> np.ndarray:
    total = counts.sum()
    if total > 0:
        return counts / total
    out = np.zeros_like(counts)
    out[label] = 1.0
    return out


def flatten(root: ID3Node, domain: Domain) -> FlatTree:
    """The effective tree as arrays, breadth-first, for :func:`route`.

    Pruned branches are cut; an empty leaf answers with the counts of its nearest ancestor
    whose noisy count is positive (post-processing).
    """
    n_classes = domain.n_classes
    order: list[tuple[ID3Node, ID3Node | None]] = []  # (node, fallback ancestor)
    first_child: list[int] = []
    queue: list[tuple[ID3Node, ID3Node | None]] = [(root, None)]
    head = 0
    while head < len(queue):
        node, ancestor = queue[head]
        head += 1
        order.append((node, ancestor))
        if node.acts_as_leaf:
            first_child.append(-1)
            continue
        first_child.append(len(queue))
        keeper = node if node.noisy_count > 0 else ancestor
        queue.extend((child, keeper) for child in node.children)
    n = len(order)
    feature = np.full(n, -1, dtype=np.int64)
    threshold = np.full(n, np.nan)
    n_children = np.zeros(n, dtype=np.int64)
    label = np.zeros(n, dtype=np.int64)
    proba = np.zeros((n, n_classes))
    unclassified = np.zeros(n, dtype=bool)
    dists = leaf_distributions(root)
    depth = 0
    for k, (node, ancestor) in enumerate(order):
        depth = max(depth, node.depth)
        if not node.acts_as_leaf:
            assert node.attribute is not None
            feature[k] = domain.index(node.attribute)
            threshold[k] = np.nan if node.threshold is None else node.threshold
            n_children[k] = len(node.children)
            continue
        source = node
        if node.is_empty:
            unclassified[k] = True
            source = ancestor if ancestor is not None else node
        if source is node:
            assert node.label is not None
            label[k] = node.label
            proba[k] = _normalise(dists[id(node)], node.label)
        else:
            dist = dists[id(source)]
            label[k] = int(np.argmax(dist))
            proba[k] = _normalise(dist, label[k])
    return FlatTree(
        feature,
        threshold,
        np.asarray(first_child, dtype=np.int64),
        n_children,
        label,
        proba,
        unclassified,
        depth,
        [node for node, _ in order],
    )


def route(flat: FlatTree, codes: np.ndarray, key: int) -> np.ndarray:
    """Leaf index (into ``flat``) of every row, level by level with numpy.

    A categorical code ``-1`` (an unknown category, ``unknown="random"``) goes to child
    ``floor(u · m)`` of its node, m the node's number of children and ``u`` the keyed
    uniform (:func:`dpviz.keyed.uniforms`, stream :data:`UNKNOWN_STREAM`) of the node's key
    ``child_keys(key, node index)``: a pure function of the model's public ``key`` and the
    node, so a row's leaf never depends on the other rows of the batch or on their order.
    Every unknown value reaching a node goes to the same child; over the draw of ``key``
    that child is uniform (up to the 2**-52 grid of the uniforms).
    """
    node = np.zeros(codes.shape[0], dtype=np.int64)
    for _ in range(flat.depth + 1):
        f = flat.feature[node]
        idx = np.flatnonzero(f >= 0)
        if idx.size == 0:
            break
        here = node[idx]
        values = codes[idx, f[idx]]
        thr = flat.threshold[here]
        numeric = ~np.isnan(thr)
        branch = np.where(numeric, values > np.where(numeric, thr, 0.0), values)
        branch = branch.astype(np.int64)
        unknown = ~numeric & (values < 0)  # unknown="random": the node's keyed child
        if unknown.any():
            at = here[unknown]
            node_keys = keyed.child_keys(np.full(at.size, key, dtype=np.uint64), at)
            u = keyed.uniforms(node_keys, UNKNOWN_STREAM)
            branch[unknown] = np.floor(u * flat.n_children[at]).astype(np.int64)
        node[idx] = flat.first_child[here] + branch
    return node
