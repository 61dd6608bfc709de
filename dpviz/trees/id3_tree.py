"""The nodes an FS build releases (:class:`ID3Node`) and the routing ``predict`` uses.

Everything here is post-processing of the build's releases.
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

    ``condition`` is the test on the edge from the parent (``"(root)"``); ``noisy_count`` N_T;
    ``threshold`` a numeric split point (``x <= threshold`` to child 0); ``class_counts`` a leaf's
    noisy N_c and ``label`` their arg-max; ``split_points`` the numeric candidates drawn here;
    ``pruned``, ``corrected_count`` and ``corrected_class_counts`` come from FS Alg. 3.
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
    """Class counts behind each node's prediction (>= 0), keyed by ``id(node)``.

    A leaf: its clipped noisy counts; a pruned node: its corrected counts; a split: the sum
    of its children's.
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

    Pruned branches are cut; an empty leaf answers with its nearest ancestor of positive N_T.
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
        feature, threshold, np.asarray(first_child, dtype=np.int64), n_children, label, proba,
        unclassified, depth, [node for node, _ in order],
    )


def route(flat: FlatTree, codes: np.ndarray, key: int) -> np.ndarray:
    """Leaf index (into ``flat``) of every row, level by level.

    An unknown category (``-1``) goes to child ``floor(u · m)``, u the keyed uniform of
    ``child_keys(key, node)``: a function of the model's public key and the node only.
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
