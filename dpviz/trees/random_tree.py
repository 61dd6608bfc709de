"""Random decision tree structure, drawn from the public Domain and routed with numpy.

A random decision tree (Fan et al. 2003; JPW §IV, Fig. 1; FI Alg. 2) picks the
attribute of every node at random, before any row is read:

* a **categorical** attribute is used at most once on a root-to-leaf path and
  gets one child per public value (JPW Fig. 1, ``BuildTreeStructure``);
* a **numeric** attribute splits at a uniformly random point of the node's
  current range (initially its public bounds) into ``x <= p`` and ``x > p``,
  and may be reused further down (FI Alg. 2 lines 5–10; JPW §IV).

A node with no attribute left (every categorical one used, no numeric one)
passes its rows on unchanged, so all leaves are at depth ``depth``.

Nothing is materialized: a node is identified by a 64-bit key derived from its
parent's key and its child index (:mod:`dpviz.keyed`), and its attribute and
split point are pure functions of that key and of its path (which attributes
were used, which numeric range remains). Routing processes all rows level by
level — at each level only the distinct nodes the rows occupy are computed —
so time and memory grow with the nodes the data visits, never with the full
tree (up to ~10^8 leaves on Mushroom at height 11).

A node's path is kept as the list of its ancestors' numeric tests (attribute and
side, threshold), so a level costs time in proportion to nodes × depth, not
nodes × attributes: a numeric range is the threshold of the last test of that
attribute on that side, or the public bound. The used categorical attributes are
a (nodes × attributes) mask, kept only when the domain has categorical ones.
Depths are at most :data:`dpviz.trees.depth.MAX_DEPTH`.

Many rows at once (a forest's fit and predict, issue 15): :func:`forest_leaves` and
:func:`forest_top` first materialize the top levels of the trees whole — as many levels
as fit a budget of nodes proportional to the routed items, e.g. every level of 100 trees
of depth 8 (51,100 nodes) for 7,500 rows — and send the rows down them with
:mod:`dpviz.trees.descend` (a compiled loop when numba is installed); only the levels
below, if any, are routed as above. Same leaves, bit for bit (tested).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpviz import keyed
from dpviz.domain import UNKNOWN_CODE, Domain
from dpviz.errors import InvalidParameterError
from dpviz.trees.depth import check_depth
from dpviz.trees.descend import TreeTop, descend
from dpviz.validation import MEMORY_BUDGET, check_int, check_memory

__all__ = [
    "RandomTree",
    "Routing",
    "check_trees_memory",
    "forest_leaf_keys",
    "forest_leaves",
    "forest_route",
    "forest_top",
    "route_bytes",
    "tree_bytes",
]

#: The keyed-uniform streams of a node (:func:`dpviz.keyed.uniforms`): which attribute it
#: tests, its numeric threshold, and the child an unknown category goes to at predict time.
ATTRIBUTE_STREAM, SPLIT_STREAM, UNKNOWN_STREAM = 1, 2, 3


@dataclass
class Routing:
    """Where rows went in one tree.

    Attributes
    ----------
    level_keys : list of ndarray of uint64
        For each depth 0..depth, the keys of the distinct nodes the rows occupy.
    level_index : list of ndarray of int64
        For each depth, the position of each row's node in ``level_keys[depth]``.
    """

    level_keys: list[np.ndarray]
    level_index: list[np.ndarray]

    @property
    def leaf_keys(self) -> np.ndarray:
        """The key of the leaf each row reaches (uint64, one per row)."""
        return self.level_keys[-1][self.level_index[-1]]

    def per_leaf(self, release: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``release(leaf_keys)`` for every row, evaluated once per distinct leaf reached.

        ``release`` must be a pure function of each key (as the lazy leaf releases of
        :mod:`dpviz.leaf_release` are): many rows share a leaf, so this is cheaper than
        ``release(self.leaf_keys)`` and gives the same result.
        """
        return release(self.level_keys[-1])[self.level_index[-1]]


def _dense_unique(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for ints in ``[0, size)``, in O(n + size)."""
    present = np.zeros(size, dtype=bool)
    present[values] = True
    unique = np.flatnonzero(present)
    rank = np.empty(size, dtype=np.int64)  # read only where present: no need to clear
    rank[unique] = np.arange(len(unique))
    return unique, rank[values]


def _all_children(arity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parent and child index of every child of nodes with the given numbers of children."""
    parent = np.repeat(np.arange(len(arity)), arity)
    index = np.arange(len(parent)) - np.repeat(np.cumsum(arity) - arity, arity)
    return parent, index


class RandomTree:
    """One random decision tree over a public :class:`~dpviz.domain.Domain`.

    Parameters
    ----------
    domain : Domain
        The public schema: which attributes exist, their values or bounds.
    depth : int
        Number of levels of splits (every leaf is at this depth).
    key : int
        The tree's random key (e.g. drawn from the estimator's generator). The
        same key gives the same tree.

    Notes
    -----
    Privacy: the structure depends only on ``domain``, ``depth`` and ``key``,
    never on rows; routing rows through it releases nothing by itself.
    """

    def __init__(self, domain: Domain, depth: int, key: int) -> None:
        self.domain = domain
        self.depth = check_depth(depth, "depth", minimum=0)
        self.key = np.uint64(int(key) % 2**64)
        self._categorical = domain.categorical_mask
        self._arity = np.where(self._categorical, domain.n_values, 2).astype(np.int64)
        self._max_arity = int(max(self._arity.max(initial=1), 2))
        self._any_categorical = bool(self._categorical.any())
        bounds = domain.bounds
        self._low, self._high = bounds[:, 0].copy(), bounds[:, 1].copy()

    # ------------------------------------------------------------------ structure of a level
    def _attributes(self, keys: np.ndarray, used: np.ndarray | None) -> np.ndarray:
        """The attribute each node tests (−1: none left), uniform over those still available."""
        k = len(self._arity)
        u = keyed.uniforms(keys, ATTRIBUTE_STREAM)
        if used is None:  # numeric attributes only: all k are available at every node
            pick = np.floor(u * k).astype(np.int64)
            return np.where(pick < k, pick, 0)  # (the first True of rank > pick, as below)
        available = ~used  # numeric attributes are never marked used
        rank = np.cumsum(available, axis=1, dtype=np.int32)
        n_available = rank[:, -1]
        pick = np.floor(u * n_available).astype(np.int32)
        attribute = np.argmax(rank > pick[:, None], axis=1)
        attribute[n_available == 0] = -1
        return attribute

    def _splits(
        self, keys: np.ndarray, used: np.ndarray | None, low: np.ndarray, high: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Attribute and threshold of nodes whose numeric ranges are given densely, (m, k)."""
        attribute = self._attributes(keys, used)
        rows, a = np.arange(len(keys)), np.maximum(attribute, 0)
        u = keyed.uniforms(keys, SPLIT_STREAM)
        return attribute, low[rows, a] + u * (high[rows, a] - low[rows, a])

    def _level_splits(
        self, keys: np.ndarray, used: np.ndarray | None, path: list, thresholds: list
    ) -> tuple[np.ndarray, np.ndarray]:
        """Attribute (−1: none left) and threshold of each node of a level (BuildTreeStructure).

        The range of the chosen numeric attribute is read from the node's path.
        """
        attribute = self._attributes(keys, used)
        a = np.maximum(attribute, 0)
        low, high = self._low[a], self._high[a]
        if path:
            # the nodes whose path tested their attribute already: the last test of each
            # side bounds the range (read column by column, a later test overwrites)
            code = a.astype(np.int32)
            tested = np.zeros(len(keys), dtype=bool)
            for column in path:
                tested |= (column >> 1) == code
            rows = np.flatnonzero(tested)
            if 2 * len(rows) > len(keys):  # most nodes (few attributes): no subsets
                rows = slice(None)
            elif not len(rows):
                rows = None
            if rows is not None:
                left, lo, hi = 2 * code[rows], low[rows], high[rows]
                right = left + 1
                for column, values in zip(path, thresholds, strict=True):
                    column, values = column[rows], values[rows]
                    np.copyto(lo, values, where=column == right)  # took x > t: t is a low
                    np.copyto(hi, values, where=column == left)  # took x <= t: t is a high
                low[rows], high[rows] = lo, hi
        u = keyed.uniforms(keys, SPLIT_STREAM)
        return attribute, low + u * (high - low)

    # ------------------------------------------------------------------ routing
    def route(self, codes: np.ndarray) -> Routing:
        """Send every row down the tree, level by level (UpdateStatistics / AddInstance).

        Parameters
        ----------
        codes : ndarray (n, k)
            Rows encoded with the domain. A categorical code of ``-1`` (an
            unknown value, prediction time only) goes to one child chosen at
            random per node (a pure function of the node's key).

        Returns
        -------
        Routing
        """
        codes = np.asarray(codes, dtype=np.float64)
        return self._route(self._initial_state(1), codes, np.zeros(codes.shape[0], np.int64))

    def _route(
        self,
        state: tuple,
        codes: np.ndarray,
        node: np.ndarray,
        row_of: np.ndarray | None = None,
        levels: int | None = None,
    ) -> Routing:
        """Route items from the start nodes ``node`` (indices into the state's nodes).

        Item i reads row ``row_of[i]`` of ``codes`` (default: row i), so a forest can send
        every row through every tree without copying the rows once per tree. The start
        nodes are ``depth - levels`` levels deep (default: the roots).
        """
        keys, used, path, thresholds = state
        codes = np.ascontiguousarray(codes, dtype=np.float64)
        k = codes.shape[1]
        flat_codes = codes.ravel()
        base = (np.arange(node.shape[0]) if row_of is None else row_of) * k
        categorical = self._any_categorical
        # unknown categorical values (-1) exist only at prediction time: check once
        unknown_rows = categorical and bool(
            (codes[:, self._categorical] == UNKNOWN_CODE).any()
        )
        level_keys, level_index = [keys], [node]
        n_levels = self.depth if levels is None else levels
        for level in range(n_levels):
            attribute, threshold = self._level_splits(keys, used, path, thresholds)
            if used is not None and (attribute < 0).all():
                # every node has tested every (categorical) attribute: so will its
                # children, and the levels below pass every item to child 0, whose key is
                # its parent's (BuildTreeStructure with no attribute left) — the same
                # nodes, in the same order, to the leaves
                level_keys += [keys] * (n_levels - level)
                level_index += [node] * (n_levels - level)
                break
            # per node (few): a node with no attribute left sends every item to child 0
            # (threshold +inf: "x > inf" is False); a categorical node compares nothing
            none_left = attribute < 0
            node_attribute = np.where(none_left, 0, attribute)
            node_threshold = np.where(none_left, np.inf, threshold)
            value = flat_codes[base + node_attribute[node]]
            if categorical:
                node_categorical = self._categorical[node_attribute] & ~none_left
                is_cat = node_categorical[node]
                child = np.where(is_cat, value, value > node_threshold[node]).astype(np.int64)
                if unknown_rows:
                    unknown = is_cat & (value == UNKNOWN_CODE)
                    if unknown.any():
                        arity = self._arity[node_attribute[node[unknown]]]
                        u = keyed.uniforms(keys[node[unknown]], UNKNOWN_STREAM)
                        child[unknown] = np.floor(u * arity).astype(np.int64)
            else:
                child = (value > node_threshold[node]).astype(np.int64)
            slot = node * self._max_arity + child
            unique_slots, node = _dense_unique(slot, len(keys) * self._max_arity)
            parent = unique_slots // self._max_arity
            index = unique_slots % self._max_arity
            keys, used, path, thresholds = self._children(
                keys, used, path, thresholds, attribute, threshold, parent, index
            )
            level_keys.append(keys)
            level_index.append(node)
        return Routing(level_keys, level_index)

    def _children(self, keys, used, path, thresholds, attribute, threshold, parent, index):
        """Keys and path state (used attributes, numeric tests) of the visited children."""
        a = attribute[parent]
        passthrough = a < 0
        child_keys = keyed.child_keys(keys[parent], index)
        child_keys[passthrough] = keys[parent][passthrough]
        split = ~passthrough
        cat = split & self._categorical[np.maximum(a, 0)]
        if used is not None:
            used = used[parent]
            used[np.flatnonzero(cat), a[cat]] = True
        num = split & ~cat
        # a node's path: one column per level, shared (not copied) when every node of the
        # level has exactly one child (rows already alone in their nodes, random walks)
        if len(parent) == len(keys) and np.array_equal(parent, np.arange(len(parent))):
            path, thresholds = list(path), list(thresholds)
        else:
            path = [column[parent] for column in path]
            thresholds = [column[parent] for column in thresholds]
        path.append(np.where(num, 2 * a + index, -1).astype(np.int32))
        thresholds.append(threshold[parent])
        return child_keys, used, path, thresholds

    def leaf_keys(self, codes: np.ndarray) -> np.ndarray:
        """The key of the leaf each row reaches (uint64)."""
        return self.route(codes).leaf_keys

    def _initial_state(self, m: int) -> tuple:
        """The state of ``m`` copies of this tree's root (e.g. one per random walk)."""
        return self._root_state(np.repeat(keyed.splitmix64(np.array([self.key])), m))

    def _root_state(self, roots: np.ndarray) -> tuple:
        """Root nodes with the given keys: no attribute used, no numeric test on the path."""
        m = len(roots)
        used = np.zeros((m, len(self.domain)), dtype=bool) if self._any_categorical else None
        return roots, used, [], []

    def _top_levels(self, roots: np.ndarray, budget: int) -> tuple[TreeTop, tuple, np.ndarray]:
        """Every node of the top levels below ``roots``, while they number at most ``budget``.

        Expands whole levels (as :meth:`count_leaves`) and stops before the first one that
        would bring the count of nodes above ``budget``. Returns the materialized levels,
        the state of the frontier (the next level's nodes, e.g. the leaves) and the root
        (its position in ``roots``) of each frontier node: the nodes of a level are grouped
        by root, as the roots are given.
        """
        state = self._root_state(roots)
        levels: list[tuple] = []
        total = len(roots)
        root_of = np.arange(len(roots))
        for _ in range(self.depth):
            keys, used, path, thresholds = state
            attribute, threshold = self._level_splits(keys, used, path, thresholds)
            none_left = attribute < 0
            a = np.maximum(attribute, 0)
            arity = np.where(none_left, 1, self._arity[a])
            total += int(arity.sum())
            if total > budget:
                break
            categorical = self._categorical[a] & ~none_left
            unknown = np.zeros(len(keys), dtype=np.int64)
            if categorical.any():
                u = keyed.uniforms(keys[categorical], UNKNOWN_STREAM)
                unknown[categorical] = np.floor(u * arity[categorical]).astype(np.int64)
            levels.append((a, np.where(none_left, np.inf, threshold), categorical, unknown,
                           np.cumsum(arity) - arity))
            parent, index = _all_children(arity)
            root_of = root_of[parent]
            state = self._children(keys, used, path, thresholds, attribute, threshold, parent,
                                   index)
        starts = np.cumsum([0, *(len(level[0]) for level in levels)])
        columns = [
            np.concatenate([level[j] for level in levels]).astype(dtype, copy=False)
            if levels else np.zeros(0, dtype)
            for j, dtype in enumerate((np.int64, np.float64, bool, np.int64))
        ]
        # a node's first child: the next level's start + the arity of the nodes before it
        first_child = (
            np.concatenate([starts[i + 1] + level[4] for i, level in enumerate(levels)])
            if levels else np.zeros(0, np.int64)
        )
        top = TreeTop(*columns, first_child.astype(np.int64, copy=False), levels=len(levels),
                      frontier=int(starts[-1]), frontier_size=len(state[0]), roots=len(roots),
                      n_values=np.where(self._categorical, self._arity, 0))
        return top, state, root_of

    def count_leaves(self, limit: int = 2_000_000) -> int | None:
        """Exact number of leaves of the fully materialized tree, or ``None`` above ``limit``.

        Expands every node level by level (nodes with no attribute left have one child).
        """
        keys, used, path, thresholds = self._initial_state(1)
        for _ in range(self.depth):
            attribute, threshold = self._level_splits(keys, used, path, thresholds)
            arity = np.where(attribute < 0, 1, self._arity[np.maximum(attribute, 0)])
            if arity.sum() > limit:
                return None
            parent, index = _all_children(arity)
            keys, used, path, thresholds = self._children(
                keys, used, path, thresholds, attribute, threshold, parent, index
            )
        return len(keys)

    def leaves(self, limit: int = 100_000) -> tuple[np.ndarray, list[str]]:
        """Every leaf of the fully materialized tree: its key and its path, as public text.

        Parameters
        ----------
        limit : int
            Refuse trees with more leaves than this (they cannot be listed usefully).

        Returns
        -------
        keys : ndarray of uint64
            The leaf keys (the keys a lazy release is looked up with).
        paths : list of str
            The tests from the root, e.g. ``"a0 = 1 and x3 <= 0.4172"``.

        Raises
        ------
        InvalidParameterError
            If the tree has more than ``limit`` leaves.
        """
        keys, used, path, thresholds = self._initial_state(1)
        paths = [""]
        names = self.domain.names
        for _ in range(self.depth):
            attribute, threshold = self._level_splits(keys, used, path, thresholds)
            arity = np.where(attribute < 0, 1, self._arity[np.maximum(attribute, 0)])
            if arity.sum() > limit:
                raise InvalidParameterError(
                    f"this tree has more than limit={limit} leaves; read the release at chosen "
                    "rows instead (released_counts / released_labels)"
                )
            parent, index = _all_children(arity)
            tests = []
            for p, i in zip(parent.tolist(), index.tolist(), strict=True):
                a = int(attribute[p])
                if a < 0:
                    tests.append(paths[p])
                    continue
                attr = self.domain[names[a]]
                if self._categorical[a]:
                    test = f"{attr.name} = {attr.values[i]}"
                else:
                    test = f"{attr.name} {'<=' if i == 0 else '>'} {threshold[p]:.6g}"
                tests.append(f"{paths[p]} and {test}" if paths[p] else test)
            paths = tests
            keys, used, path, thresholds = self._children(
                keys, used, path, thresholds, attribute, threshold, parent, index
            )
        return keys, [p or "(root)" for p in paths]

    def estimate_leaves(self, n_walks: int, rng: np.random.Generator) -> float:
        """Knuth's (1975) unbiased estimate of the number of leaves, from random walks.

        Each walk goes from the root to a leaf choosing a child uniformly at random;
        the product of the branching factors along it has expectation equal to the
        number of leaves. Used when the tree is too large to count (Mushroom, Adult).
        """
        n_walks = check_int(n_walks, "n_walks", minimum=1)
        keys, used, path, thresholds = self._initial_state(n_walks)
        product = np.ones(n_walks)
        for _ in range(self.depth):
            attribute, threshold = self._level_splits(keys, used, path, thresholds)
            arity = np.where(attribute < 0, 1, self._arity[np.maximum(attribute, 0)])
            product *= arity
            index = np.floor(rng.random(n_walks) * arity).astype(np.int64)
            keys, used, path, thresholds = self._children(
                keys, used, path, thresholds, attribute, threshold, np.arange(n_walks), index
            )
        return float(product.mean())

    def max_leaves(self) -> float:
        """Largest possible number of leaves of the fully materialized tree (a float).

        The product of the ``depth`` largest branching factors available on a
        path (categorical attributes once each; numeric ones, with 2 children,
        as often as needed). Mushroom at height 11: about 6.3e9.
        """
        arities = sorted(self._arity[self._categorical].tolist(), reverse=True)
        if (~self._categorical).any():
            arities = sorted([*arities, *[2] * self.depth], reverse=True)
        return float(np.prod(np.asarray(arities[: self.depth], dtype=float)))


def forest_route(
    trees: list[RandomTree],
    codes: np.ndarray,
    tree_of_row: np.ndarray,
    row_of: np.ndarray | None = None,
) -> Routing:
    """Route every item through *its* tree, all trees in one vectorized pass.

    The trees must share the domain and depth (a forest). Each tree's root is just
    another start node, so a forest of 100 trees costs one routing of the rows
    instead of 100 — the keys and splits are exactly those of each tree's own
    :meth:`RandomTree.route`.

    Parameters
    ----------
    trees : list of RandomTree
    codes : ndarray (n, k)
    tree_of_row : ndarray (m,) of int
        The tree each item goes through.
    row_of : ndarray (m,) of int, optional
        The row of ``codes`` each item reads (default: item i reads row i). With
        ``row_of = np.tile(np.arange(n), t)`` and ``tree_of_row = np.repeat(trees, n)``
        every row goes through each of t trees without copying the rows.

    Returns
    -------
    Routing
        ``level_keys[-1]`` holds the distinct leaves reached (of all trees), so a
        per-leaf release need only be evaluated once per leaf.
    """
    first, roots = _forest_roots(trees)
    return first._route(
        first._root_state(roots),
        codes,
        np.asarray(tree_of_row, dtype=np.int64),
        None if row_of is None else np.asarray(row_of, dtype=np.int64),
    )


def _forest_roots(trees: list[RandomTree]) -> tuple[RandomTree, np.ndarray]:
    """The first tree (whose methods route all of them) and the keys of the trees' roots."""
    first = trees[0]
    if any(t.depth != first.depth or t.domain is not first.domain for t in trees):
        raise ValueError("forest_route needs trees sharing one domain and depth")
    return first, keyed.splitmix64(np.array([t.key for t in trees], dtype=np.uint64))


def forest_leaves(
    trees: list[RandomTree],
    codes: np.ndarray,
    tree_of_row: np.ndarray,
    row_of: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct leaves the items reach and each item's leaf: :func:`forest_route`'s, faster.

    The same leaves, in the same order, as ``forest_route(...).level_keys[-1]`` and
    ``.level_index[-1]`` (tested), without the intermediate levels: the top levels of the
    trees are materialized whole — as many as have at most one node per 8 items together
    (every level of 100 trees of depth 8 for 7,500 rows) — and the items sent down them by
    :func:`dpviz.trees.descend.descend` (a compiled loop when numba is installed); the
    levels below, if any, are routed lazily from the frontier nodes the items reached.
    Memory: within the :func:`route_bytes` per item of ``forest_route`` (at most one
    materialized node per 8 items, each keeping at most what a routed node keeps).

    Parameters
    ----------
    trees, codes, tree_of_row, row_of
        As for :func:`forest_route`.

    Returns
    -------
    leaves : ndarray of uint64
        The distinct leaves reached, grouped tree by tree in the order of ``trees``.
    index : ndarray of int64
        Position in ``leaves`` of each item's leaf.
    """
    first, roots = _forest_roots(trees)
    codes = np.ascontiguousarray(codes, dtype=np.float64)
    tree_of = np.ascontiguousarray(tree_of_row, dtype=np.int64)
    row_of = (np.arange(len(tree_of)) if row_of is None
              else np.ascontiguousarray(row_of, dtype=np.int64))
    # a materialized node costs about what 8 items cost on a level (measured): materialize
    # the levels that have, together, at most one node per 8 items
    top, state, _ = first._top_levels(roots, max(len(tree_of) // 8, len(roots)))
    if top.levels == 0:
        routing = first._route(state, codes, tree_of, row_of)
        return routing.level_keys[-1], routing.level_index[-1]
    visited, node = _dense_unique(descend(top, codes, tree_of, row_of) - top.frontier,
                                  len(state[0]))
    keys, used, path, thresholds = state
    if top.levels == first.depth:
        return keys[visited], node
    start = (keys[visited], None if used is None else used[visited],
             [column[visited] for column in path], [column[visited] for column in thresholds])
    routing = first._route(start, codes, node, row_of, first.depth - top.levels)
    return routing.level_keys[-1], routing.level_index[-1]


def forest_top(trees: list[RandomTree], budget: int) -> tuple[TreeTop, np.ndarray, np.ndarray]:
    """The top levels of a forest's trees, materialized while they have at most ``budget`` nodes.

    Parameters
    ----------
    trees : list of RandomTree
        Sharing one domain and depth.
    budget : int
        The most nodes to materialize, all levels and trees together (the roots are
        always materialized).

    Returns
    -------
    top : TreeTop
        Tree ``t``'s root is node ``t``; ``top.levels == depth`` when the frontier nodes
        are the leaves.
    keys : ndarray of uint64
        The keys of the frontier nodes, grouped tree by tree (e.g. the leaves' keys, for a
        lazy release).
    offsets : ndarray (len(trees) + 1,) of int64
        Tree t's frontier nodes are ``keys[offsets[t]:offsets[t + 1]]``.
    """
    first, roots = _forest_roots(trees)
    top, state, root_of = first._top_levels(roots, max(int(budget), len(roots)))
    return top, state[0], np.searchsorted(root_of, np.arange(len(trees) + 1))


def forest_leaf_keys(
    trees: list[RandomTree],
    codes: np.ndarray,
    tree_of_row: np.ndarray,
    row_of: np.ndarray | None = None,
) -> np.ndarray:
    """The leaf key of each item in its tree (uint64): :func:`forest_route`'s leaf keys."""
    leaves, index = forest_leaves(trees, codes, tree_of_row, row_of)
    return leaves[index]


def tree_bytes(n_attributes: int) -> int:
    """Estimated memory of one :class:`RandomTree` object: 1 KiB + 40 B per attribute.

    (Its bounds, arities and kinds are copied per tree; the domain is shared.) Used by
    the estimators' checks against :data:`dpviz.validation.MEMORY_BUDGET`.
    """
    return 1024 + 40 * check_int(n_attributes, "n_attributes", minimum=0)


def check_trees_memory(n_trees: object, n_attributes: int) -> int:
    """``n_trees`` as an int, refused when the trees would not fit the memory budget.

    The estimate is :func:`tree_bytes` + 16 B (its key) per tree, checked against
    :data:`dpviz.validation.MEMORY_BUDGET` before any row is read; the message names the
    user's value and the largest allowed.
    """
    n = check_int(n_trees, "n_trees", minimum=1)
    each = tree_bytes(n_attributes) + 16
    check_memory(
        n * each,
        f"n_trees={n_trees!r} trees over {n_attributes} attribute(s) (about {each} B each)",
        f"pass n_trees <= {max(MEMORY_BUDGET // each, 1)}",
    )
    return n


def route_bytes(n_attributes: int, depth: int, categorical: bool = True) -> int:
    """Estimated memory per routed item (row × tree) of :func:`forest_route` at ``depth``.

    Every level keeps each item's node index (8 B); a node, at worst one per item, keeps
    its path (12 B per level) and, on a domain with categorical attributes, its used mask
    (1 B per attribute); plus ~64 B of temporaries.
    """
    k = check_int(n_attributes, "n_attributes", minimum=0)
    d = check_int(depth, "depth", minimum=0)
    return 64 + 20 * (d + 1) + (k if categorical else 0)
