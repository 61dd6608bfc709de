"""Random decision trees drawn from the public Domain: height rules, lazy routing, compiled descent.

A random tree (Fan et al. 2003; JPW Fig. 1; FI Alg. 2) picks every node's attribute before
any row is read: a categorical one once per path, a numeric one at a uniform point of the
node's range. Nodes are 64-bit keys (:mod:`dpviz.keyed`), never materialized: rows are routed
level by level over the nodes they occupy, or (many rows) down top levels materialized whole
(:class:`TreeTop`, :func:`descend`, :func:`vote`; numba when installed, the same results).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dpviz import keyed
from dpviz.domain import UNKNOWN_CODE, Domain
from dpviz.errors import InvalidParameterError
from dpviz.validation import MEMORY_BUDGET, check_int, check_memory, check_positive

__all__ = [
    "COMPILED_MIN_VISITS", "ENGINES", "FI_TABLE4", "MAX_DEPTH", "THREAD_MIN_VISITS", "RandomTree",
    "Routing", "TreeTop", "allowed_threads", "cap_depth", "check_depth", "check_trees_memory",
    "descend", "engine", "expected_untested", "fan_depth", "fletcher_islam_depth",
    "forest_leaf_keys", "forest_leaves", "forest_route", "forest_top", "leaves_bound",
    "random_trees", "rdt_sharp_depth", "route_bytes", "route_leaves", "set_engine", "tree_bytes",
    "vote",
]


# =============================================================================== heights
#: The deepest random tree dpviz builds (default rules are capped here, larger ``max_depth``
#: refused): a numeric split keeps at most 3/4 of the width around a point in expectation, so
#: at depth 64 a leaf covers about (3/4)^64 ≈ 1e-8 of the domain; deeper levels only add empty
#: leaves, and time grows with every level. The papers' rules stay below it (FI Table 4: 15).
MAX_DEPTH = 64


def check_depth(value: object, name: str = "max_depth", *, minimum: int = 1) -> int:
    """``value`` as an int depth in ``[minimum, MAX_DEPTH]``, or an error naming the parameter."""
    depth = check_int(value, name, minimum=minimum)
    if depth > MAX_DEPTH:
        raise InvalidParameterError(
            f"{name}={value!r} is deeper than MAX_DEPTH={MAX_DEPTH}, the deepest random tree "
            "dpviz builds (beyond it a leaf around any point covers in expectation at most "
            f"(3/4)^{MAX_DEPTH} ≈ 1e-8 of the domain: deeper levels only add empty leaves, "
            f"and time grows with every level). Pass {name} <= {MAX_DEPTH}"
            + (", or None for the default rule (capped there)" if name == "max_depth" else "")
        )
    return depth


def cap_depth(rule_depth: int) -> int:
    """A default rule's depth, capped at :data:`MAX_DEPTH` (see there why)."""
    return min(check_int(rule_depth, "rule_depth", minimum=0), MAX_DEPTH)


def fan_depth(n_attributes: int) -> int:
    """Fan et al.'s height h = ⌊k/2⌋ for k attributes, at least 1 (JPW §IV)."""
    k = check_int(n_attributes, "n_attributes", minimum=1)
    return max(k // 2, 1)


def rdt_sharp_depth(n_attributes: int, mean_values: float, n_rows: int) -> int:
    """RDT#'s height min(⌊k/2⌋, ⌊log_b n⌋ + 1) >= 1: k attributes, b > 1 values each, n rows."""
    k = check_int(n_attributes, "n_attributes", minimum=1)
    b = check_positive(mean_values, "mean_values")
    n = check_int(n_rows, "n_rows", minimum=1)
    if b <= 1:
        raise InvalidParameterError(f"mean_values must be > 1, got {mean_values!r}")
    # floor(log_b n) computed exactly for powers of b (avoid 2.9999999 -> 2)
    level = math.floor(math.log(n) / math.log(b) + 1e-12)
    return max(min(k // 2, level + 1), 1)


def expected_untested(n_continuous: int, depth: int) -> float:
    """FI Theorem 2: E[X | d] = s·((s−1)/s)^d continuous features never tested on a path."""
    s = check_int(n_continuous, "n_continuous", minimum=1)
    d = check_int(depth, "depth", minimum=0)
    return s * ((s - 1) / s) ** d


def fletcher_islam_depth(n_continuous: int, n_discrete: int) -> int:
    """The FI (2017) depth as Table 4 computes it: 1 + min{d : E[X | d] < s/2} + ⌊r/2⌋.

    s continuous features (0 if s = 0: Theorem 2), r discrete ones (Fan's rule, FI §4.3).
    """
    s = check_int(n_continuous, "n_continuous", minimum=0)
    r = check_int(n_discrete, "n_discrete", minimum=0)
    if s + r == 0:
        raise InvalidParameterError("fletcher_islam_depth needs at least one feature")
    d_cont = 0
    if s > 0:
        # start next to the closed form d ≈ log(1/2) / log((s−1)/s), then settle on the
        # smallest d of the rule exactly (no loop of ~0.7·s steps for a large s)
        d = 0 if s == 1 else max(int(math.log(0.5) / math.log1p(-1 / s)) - 2, 0)
        while d > 0 and expected_untested(s, d - 1) < s / 2:
            d -= 1
        while expected_untested(s, d) >= s / 2:
            d += 1
        d_cont = d + 1
    return max(d_cont + r // 2, 1)


#: FI (2017) Table 4: data set, continuous features, discrete features, published depth.
FI_TABLE4 = pd.read_csv(files("dpviz.trees").joinpath("fi_table4.csv"))


# =============================================================================== trees
#: The keyed-uniform streams of a node (:func:`dpviz.keyed.uniforms`): which attribute it
#: tests, its numeric threshold, and the child an unknown category goes to at predict time.
ATTRIBUTE_STREAM, SPLIT_STREAM, UNKNOWN_STREAM = 1, 2, 3


@dataclass
class Routing:
    """Where rows went in one tree: per depth, the distinct node keys and each row's position."""

    level_keys: list[np.ndarray]
    level_index: list[np.ndarray]

    @property
    def leaf_keys(self) -> np.ndarray:
        """The key of the leaf each row reaches (uint64, one per row)."""
        return self.level_keys[-1][self.level_index[-1]]

    def per_leaf(self, release: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``release(leaf_keys)`` for every row, evaluated once per distinct leaf (pure)."""
        return release(self.level_keys[-1])[self.level_index[-1]]


def _dense_unique(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for ints in ``[0, size)``, in O(n + size)."""
    present = np.zeros(size, dtype=bool)
    present[values] = True
    unique = present.nonzero()[0]
    rank = np.empty(size, dtype=np.int64)  # read only where present: no need to clear
    rank[unique] = np.arange(len(unique))
    return unique, rank[values]


def _all_children(arity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parent and child index of every child of nodes with the given numbers of children."""
    parent = np.repeat(np.arange(len(arity)), arity)
    index = np.arange(len(parent)) - np.repeat(np.cumsum(arity) - arity, arity)
    return parent, index


def _used_after(used: np.ndarray, tested: np.ndarray) -> np.ndarray:
    """Each node's categorical attributes used on its path, after its parent tested ``tested``.

    A row of ``used`` is ``[-1 - count, its used attributes ascending, padding]``, the padding
    ``_padding(used.dtype)``; ``tested`` is the parent's categorical attribute (the padding:
    none, or numeric). The sorted insertion of t is ``max(u_{j-1}, min(u_j, t))`` at every j:
    two passes, no sort.
    """
    n, width = used.shape
    out, none = np.empty((n, width + 1), dtype=used.dtype), _padding(used.dtype)
    np.minimum(used[:, 1:], tested[:, None], out=out[:, 1:-1])
    np.maximum(used[:, :-1], out[:, 1:-1], out=out[:, 1:-1])
    out[:, 0] = used[:, 0] - (tested != none)
    out[:, -1] = none
    return out if n == 0 or out[:, -2].min() < none else out[:, :-1]


def _padding(dtype: np.dtype) -> int:
    """A used-attribute list's padding: above every attribute + the depth (``_used_after``).

    The largest value of the signed int ``dtype`` (``np.iinfo(dtype).max``, without its cost).
    """
    return (1 << (8 * np.dtype(dtype).itemsize - 1)) - 1


class RandomTree:
    """One random decision tree over a public Domain: ``depth`` levels, drawn from ``key`` only."""

    def __init__(self, domain: Domain, depth: int, key: int) -> None:
        self.domain = domain
        self.depth = check_depth(depth, "depth", minimum=0)
        self.key = np.uint64(int(key) % 2**64)
        self._read_domain()

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled (perhaps from an older dpviz): the domain's arrays read again."""
        self.__dict__.update(state)
        self._read_domain()

    def _read_domain(self) -> None:
        """The arrays of the domain the tree reads (shared: the domain's are read-only)."""
        domain = self.domain
        self._categorical = domain.categorical_mask
        self._arity = np.where(self._categorical, domain.n_values, 2).astype(np.int64)
        self._max_arity = int(max(self._arity.max(initial=1), 2))
        self._any_categorical = bool(self._categorical.any())
        self._all_categorical = bool(self._categorical.all())
        self._n_categorical = int(self._categorical.sum())
        # used-attribute lists (_used_after) in 2 bytes when they fit: half the memory traffic
        self._used_dtype = np.int16 if len(self._arity) + MAX_DEPTH < 2**15 - 1 else np.int32
        self._low, self._high = domain.bounds[:, 0], domain.bounds[:, 1]
        # the same as Python lists, for a few items routed on Python ints (_route_few)
        self._lists = (self._categorical.tolist(), self._arity.tolist(), self._low.tolist(),
                       self._high.tolist())

    def _attributes(self, keys: np.ndarray, used: np.ndarray | None) -> np.ndarray:
        """The attribute each node tests (−1: none left), uniform over those still available."""
        k = len(self._arity)
        u = keyed.uniforms(keys, ATTRIBUTE_STREAM)
        if used is None:  # numeric attributes only: all k are available at every node
            pick = np.floor(u * k).astype(np.int64)
            return np.where(pick < k, pick, 0)  # (the first True of rank > pick, as below)
        # used (_used_after): the pick-th available attribute is pick + #{j: used_j - j <= pick},
        # as used_j - j attributes below used_j are available; used_j - j is non-decreasing in
        # j (the padding's exceeds every pick): the count is the first j past pick, one pass
        n_available = k + 1 + used[:, 0].astype(np.int64)
        pick = np.floor(u * n_available).astype(np.int64)
        past = used[:, 1:] > pick.astype(used.dtype)[:, None] + np.arange(
            used.shape[1] - 1, dtype=used.dtype)
        return np.where(n_available > 0, pick + np.argmax(past, axis=1), -1)

    def _level_splits(
        self, keys: np.ndarray, used: np.ndarray | None, slot_of: Any, ranges: Any,
        node: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Attribute (−1: none left) and threshold of each node of a level (BuildTreeStructure).

        ``slot_of, ranges`` (:meth:`_record`) are per node, or per item in node ``node[i]``. A
        categorical node's threshold is not read (NaN when the domain has no numeric attribute).
        """
        attribute = self._attributes(keys, used)
        if self._all_categorical:  # no threshold is read: none drawn
            return attribute, np.full(len(keys), np.nan)
        a = np.maximum(attribute, 0)
        low, high = self._low[a], self._high[a]
        if np.size(ranges):  # read entry by entry, in memory order (flat indices: faster)
            entry_a = a if node is None else a[node]
            slot = slot_of.ravel()[np.arange(len(entry_a)) * slot_of.shape[1] + entry_a]
            tested = (slot >= 0).nonzero()[0]
            pairs = ranges.reshape(-1, 2)[tested * ranges.shape[1] + slot[tested]]
            at = tested if node is None else node[tested]  # a node's items agree
            low[at], high[at] = pairs.T
        u = keyed.uniforms(keys, SPLIT_STREAM)
        return attribute, low + u * (high - low)

    def _record(self, slot_of: np.ndarray, ranges: np.ndarray, who: np.ndarray, a: np.ndarray,
                threshold: np.ndarray, side: np.ndarray) -> None:
        """In place: entries ``who`` took ``side`` of the numeric tests ``a`` at ``threshold``.

        ``ranges[i, slot_of[i, a]]`` is the (low, high) of attribute a on entry i's path (its
        last test of each side), ``slot_of[i, a] = -1`` if a was never tested; ``slot_of[i, -1]``
        counts the slots in use: O(1) per test.
        """
        flat_slots, flat_ranges, k = slot_of.ravel(), ranges.reshape(-1), slot_of.shape[1]
        slot = flat_slots[who * k + a].astype(np.int64)  # (flat indices: faster)
        new = (slot < 0).nonzero()[0]
        if len(new):  # a first test of its attribute: the next free slot, the public range
            at, an = who[new], a[new]
            count = at * k + k - 1
            slot[new] = flat_slots[count]
            flat_slots[count] += 1
            flat_slots[at * k + an] = slot[new]
            pair = (at * ranges.shape[1] + slot[new]) * 2
            flat_ranges[pair], flat_ranges[pair + 1] = self._low[an], self._high[an]
        # child 0 took x <= t (t is its high), child 1 took x > t (t is its low)
        flat_ranges[(who * ranges.shape[1] + slot) * 2 + 1 - side] = threshold

    def route(self, codes: np.ndarray) -> Routing:
        """Send every row down the tree, level by level (unknown code: its node's keyed child)."""
        codes = np.asarray(codes, dtype=np.float64)
        return self._route(self._initial_state(1), codes, np.zeros(codes.shape[0], np.int64))

    def _route(
        self, state: tuple, codes: np.ndarray, node: np.ndarray, row_of: np.ndarray | None = None,
        levels: int | None = None,
    ) -> Routing:
        """Route items from the nodes ``node`` of ``state``; item i reads row ``row_of[i]``.

        While nodes are few, each node's numeric ranges are copied to its children; once they
        are many, each item keeps its path's ranges, updated in place (:meth:`_record`), and a
        node reads them from its items: a level costs O(1) per item, whatever the depth.
        """
        keys, used, slot_of, ranges = state
        per_item = False
        codes = np.ascontiguousarray(codes, dtype=np.float64)
        k = codes.shape[1]
        flat_codes = codes.ravel()
        base = (np.arange(len(node)) if row_of is None else row_of) * k
        categorical = self._any_categorical
        # unknown categorical values (-1) exist only at prediction time: check once
        unknown_rows = categorical and bool((codes[:, self._categorical] == UNKNOWN_CODE).any())
        level_keys, level_index = [keys], [node]
        n_levels = self.depth if levels is None else levels
        for level in range(n_levels):
            if not per_item and ranges.shape[1] and 8 * len(keys) > len(node):
                per_item, slot_of, ranges = True, slot_of[node], ranges[node]  # many nodes
            attribute, threshold = self._level_splits(keys, used, slot_of, ranges,
                                                      node if per_item else None)
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
            value = flat_codes[base + node_attribute[node]]
            if self._all_categorical:  # (no comparison to draw)
                is_cat = ~none_left[node]
                child = np.where(is_cat, value, 0.0).astype(np.int64)
            elif categorical:
                node_threshold = np.where(none_left, np.inf, threshold)
                is_cat = (self._categorical[node_attribute] & ~none_left)[node]
                child = np.where(is_cat, value, value > node_threshold[node]).astype(np.int64)
            else:
                child = (value > np.where(none_left, np.inf, threshold)[node]).astype(np.int64)
            if unknown_rows:  # (categorical values only)
                unknown = is_cat & (value == UNKNOWN_CODE)
                if unknown.any():
                    arity = self._arity[node_attribute[node[unknown]]]
                    u = keyed.uniforms(keys[node[unknown]], UNKNOWN_STREAM)
                    child[unknown] = np.floor(u * arity).astype(np.int64)
            if per_item:
                node_numeric = ~none_left & ~self._categorical[node_attribute]
                moved = node_numeric[node].nonzero()[0]
                if len(moved):
                    self._record(slot_of, ranges, moved, node_attribute[node[moved]],
                                 threshold[node[moved]], child[moved])
            slot = node * self._max_arity + child
            unique_slots, node = _dense_unique(slot, len(keys) * self._max_arity)
            parent = unique_slots // self._max_arity
            index = unique_slots % self._max_arity
            if per_item:
                keys, used, _ = self._child_keys(keys, used, attribute, parent, index)
            else:
                keys, used, slot_of, ranges = self._children(
                    (keys, used, slot_of, ranges), attribute, threshold, parent, index)
            level_keys.append(keys)
            level_index.append(node)
        return Routing(level_keys, level_index)

    def _route_few(self, roots: np.ndarray, codes: np.ndarray, tree_of: np.ndarray,
                   row_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_route`'s leaves and each item's index, for a few items, on Python ints.

        Node by node: a node is (key, categorical attributes used on its path ascending, its
        path's numeric ranges); a level's nodes in the order of (parent, child), as _route's.
        """
        nodes = [(key, (), {}) for key in roots.tolist()]
        rows, at, row_of = codes.tolist(), tree_of.tolist(), row_of.tolist()
        streams = tuple(keyed.stream_key(s) for s in (ATTRIBUTE_STREAM, SPLIT_STREAM,
                                                       UNKNOWN_STREAM))
        for _ in range(self.depth):
            splits = [self._split_of(node, streams) for node in nodes]
            slots = [(n, self._child_of(nodes[n][0], splits[n], rows[r], streams))
                     for n, r in zip(at, row_of, strict=True)]
            order = sorted(set(slots))
            rank = {slot: i for i, slot in enumerate(order)}
            at = [rank[slot] for slot in slots]
            nodes = [self._child_node(nodes[n], splits[n], c) for n, c in order]
        return (np.array([node[0] for node in nodes], dtype=np.uint64),
                np.array(at, dtype=np.int64))

    def _split_of(self, node: tuple, streams: tuple) -> tuple[int, float]:
        """One node's attribute (−1: none left) and threshold: :meth:`_level_splits`'s."""
        key, used, ranges = node
        categorical, _, low, high = self._lists
        n_available = len(categorical) - len(used)
        if n_available == 0:
            return -1, 0.0
        a = math.floor(keyed.uniform(key, streams[0]) * n_available)
        if not self._any_categorical and a == n_available:  # (as _attributes; never happens)
            a = 0
        for u in used:  # the pick-th attribute not used
            if u > a:
                break
            a += 1
        if categorical[a]:
            return a, 0.0
        lo, hi = ranges.get(a, (low[a], high[a]))
        return a, lo + keyed.uniform(key, streams[1]) * (hi - lo)

    def _child_of(self, key: int, split: tuple[int, float], row: list, streams: tuple) -> int:
        """The child one row takes at a node (an unknown code: the node's keyed child)."""
        a, threshold = split
        if a < 0:
            return 0
        categorical, arity, _, _ = self._lists
        if not categorical[a]:
            return int(row[a] > threshold)
        if row[a] == UNKNOWN_CODE:
            return math.floor(keyed.uniform(key, streams[2]) * arity[a])
        return int(row[a])

    def _child_node(self, node: tuple, split: tuple[int, float], c: int) -> tuple:
        """Child c of a node: its key, used attributes and ranges (none left: the node itself)."""
        key, used, ranges = node
        a, threshold = split
        if a < 0:
            return node
        if self._lists[0][a]:
            return keyed.child_key(key, c), tuple(sorted((*used, a))), ranges
        lo, hi = ranges.get(a, (self._lists[2][a], self._lists[3][a]))
        side = (threshold, hi) if c else (lo, threshold)  # child 1 took x > t, child 0 x <= t
        return keyed.child_key(key, c), used, {**ranges, a: side}

    def _children(
        self, state: tuple, attribute: np.ndarray, threshold: np.ndarray, parent: np.ndarray,
        index: np.ndarray,
    ) -> tuple:
        """The state of the visited children: keys, used attributes, numeric ranges."""
        keys, used, slot_of, ranges = state
        child_keys, used, numeric = self._child_keys(keys, used, attribute, parent, index)
        slot_of, ranges = slot_of[parent], ranges[parent]
        rows = numeric.nonzero()[0]
        if len(rows):
            self._record(slot_of, ranges, rows, attribute[parent[rows]], threshold[parent[rows]],
                         index[rows])
        return child_keys, used, slot_of, ranges

    def _child_keys(
        self, keys: np.ndarray, used: np.ndarray | None, attribute: np.ndarray,
        parent: np.ndarray, index: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """The children's keys and used categorical attributes; which took a numeric test."""
        a = attribute[parent]
        passthrough = a < 0
        child_keys = keyed.child_keys(keys[parent], index)
        if passthrough.any():
            child_keys[passthrough] = keys[parent][passthrough]
        split = ~passthrough
        cat = split if self._all_categorical else split & self._categorical[np.maximum(a, 0)]
        if used is not None:
            used = _used_after(used[parent], np.where(cat, a, _padding(used.dtype)).astype(
                used.dtype))
        return child_keys, used, split & ~cat

    def leaf_keys(self, codes: np.ndarray) -> np.ndarray:
        """The key of the leaf each row reaches (uint64); many rows take the compiled descent."""
        leaves, index = self.leaf_groups(codes)
        return leaves[index]

    def leaf_groups(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`leaf_keys` grouped: leaves (uint64, some maybe unreached), each row's index."""
        codes = np.asarray(codes, dtype=np.float64)
        n = codes.shape[0]
        if not FEW_VISITS < n * self.depth < COMPILED_MIN_VISITS:  # the same keys, faster
            return forest_leaves([self], codes, np.zeros(n, dtype=np.int64), distinct=False)
        routing = self.route(codes)
        return routing.level_keys[-1], routing.level_index[-1]

    def _initial_state(self, m: int) -> tuple:
        return self._root_state(np.repeat(keyed.splitmix64(np.array([self.key])), m))

    def _root_state(self, roots: np.ndarray) -> tuple:
        m = len(roots)
        used = None
        if self._any_categorical:  # [-count, padding]: none used yet
            used = np.empty((m, 2), self._used_dtype)
            used[:, 0], used[:, 1] = -1, _padding(self._used_dtype)
        width = min(len(self._arity) - self._n_categorical, self.depth)  # numeric tests on a path
        slot_of = np.full((m, len(self._arity) + 1), -1, np.int8)
        slot_of[:, -1] = 0
        return roots, used, slot_of, np.zeros((m, width, 2))

    def _top_levels(self, roots: np.ndarray, budget: int) -> tuple[TreeTop, tuple, np.ndarray]:
        """The top levels below ``roots`` within ``budget`` nodes, the frontier state, its roots.

        At the leaves (every level within the budget) the frontier state holds their keys only.
        """
        state = self._root_state(roots)
        levels: list[tuple] = []
        total = len(roots)
        root_of = np.arange(len(roots))
        for level in range(self.depth):
            keys = state[0]
            attribute, threshold = self._level_splits(*state)
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
            if level == self.depth - 1:  # the leaves: their keys only
                state = (self._child_keys(keys, state[1], attribute, parent, index)[0],
                         None, None, None)
            else:
                state = self._children(state, attribute, threshold, parent, index)
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
        """Exact number of leaves of the fully materialized tree, or ``None`` above ``limit``."""
        keys = self._expand(limit)
        return None if keys is None else len(keys)

    def _expand(self, limit: int, visit: Callable | None = None) -> np.ndarray | None:
        """Every leaf's key, level by level (``visit`` sees each); None above ``limit`` nodes."""
        state = self._initial_state(1)
        for _ in range(self.depth):
            attribute, threshold = self._level_splits(*state)
            arity = np.where(attribute < 0, 1, self._arity[np.maximum(attribute, 0)])
            if arity.sum() > limit:
                return None
            parent, index = _all_children(arity)
            if visit is not None:
                visit(attribute, threshold, parent, index)
            state = self._children(state, attribute, threshold, parent, index)
        return state[0]

    def leaves(self, limit: int = 100_000) -> tuple[np.ndarray, list[str]]:
        """Every leaf's key and path as text (``"a0 = 1 and x3 <= 0.4172"``); at most ``limit``."""
        paths = [""]
        names = self.domain.names

        def visit(attribute: np.ndarray, threshold: np.ndarray, parent: np.ndarray,
                  index: np.ndarray) -> None:
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
            paths[:] = tests

        keys = self._expand(limit, visit)
        if keys is None:
            raise InvalidParameterError(
                f"this tree has more than limit={limit} leaves; read the release at chosen "
                "rows instead (released_counts / released_labels)"
            )
        return keys, [p or "(root)" for p in paths]

    def estimate_leaves(self, n_walks: int, rng: np.random.Generator) -> float:
        """Knuth's (1975) unbiased estimate of the number of leaves, from random walks."""
        n_walks = check_int(n_walks, "n_walks", minimum=1)
        state = self._initial_state(n_walks)
        product = np.ones(n_walks)
        for _ in range(self.depth):
            attribute, threshold = self._level_splits(*state)
            arity = np.where(attribute < 0, 1, self._arity[np.maximum(attribute, 0)])
            product *= arity
            index = np.floor(rng.random(n_walks) * arity).astype(np.int64)
            state = self._children(state, attribute, threshold, np.arange(n_walks), index)
        return float(product.mean())

    def max_leaves(self) -> float:
        """Largest possible number of leaves (the product of the ``depth`` largest arities)."""
        return leaves_bound(self.domain, self.depth)


def forest_route(
    trees: list[RandomTree], codes: np.ndarray, tree_of_row: np.ndarray,
    row_of: np.ndarray | None = None,
) -> Routing:
    """Route every item through its tree ``tree_of_row[i]``, all trees in one pass."""
    first, roots = _forest_roots(trees)
    return first._route(
        first._root_state(roots), codes, np.asarray(tree_of_row, dtype=np.int64),
        None if row_of is None else np.asarray(row_of, dtype=np.int64),
    )


def _forest_roots(trees: list[RandomTree]) -> tuple[RandomTree, np.ndarray]:
    """The first tree (whose methods route all of them) and the keys of the trees' roots."""
    first = trees[0]
    if any(t.depth != first.depth or t.domain is not first.domain for t in trees):
        raise ValueError("forest_route needs trees sharing one domain and depth")
    return first, keyed.splitmix64(np.array([t.key for t in trees], dtype=np.uint64))


def forest_leaves(
    trees: list[RandomTree], codes: np.ndarray, tree_of_row: np.ndarray,
    row_of: np.ndarray | None = None, *, distinct: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`forest_route`'s distinct leaves (else a superset), each item's index; faster."""
    first, roots = _forest_roots(trees)
    codes = np.ascontiguousarray(codes, dtype=np.float64)
    tree_of = np.ascontiguousarray(tree_of_row, dtype=np.int64)
    row_of = (np.arange(len(tree_of)) if row_of is None
              else np.ascontiguousarray(row_of, dtype=np.int64))
    visits = len(tree_of) * first.depth
    if visits <= FEW_VISITS:  # the same leaves and order, without numpy's cost per level
        return first._route_few(roots, codes, tree_of, row_of)
    if len(roots) * 2**first.depth <= min(4 * len(tree_of), GROWN_LEAVES) and (
            grown := _grown(first, roots, visits)) is not None:  # compiled: every level
        top, leaves = grown
        frontier = descend(top, codes, tree_of, row_of) - top.frontier
        if not distinct:
            return leaves, frontier
        visited, node = _dense_unique(frontier, len(leaves))
        return leaves[visited], node
    # a materialized node costs about what 8 items cost on a level (measured): materialize
    # the levels that have, together, at most one node per 8 items
    budget = max(len(tree_of) // 8, len(roots))
    top, state, _ = (first._top_levels(roots, budget) if budget >= 3 * len(roots)
                     else (None, first._root_state(roots), None))  # (not one binary level)
    if top is None or top.levels == 0:
        routing = first._route(state, codes, tree_of, row_of)
        return routing.level_keys[-1], routing.level_index[-1]
    frontier = descend(top, codes, tree_of, row_of)
    frontier -= top.frontier
    if top.levels == first.depth and not distinct:
        return state[0], frontier
    visited, node = _dense_unique(frontier, len(state[0]))
    if top.levels == first.depth:
        return state[0][visited], node
    start = tuple(None if part is None else part[visited] for part in state)
    routing = first._route(start, codes, node, row_of, first.depth - top.levels)
    return routing.level_keys[-1], routing.level_index[-1]


def route_leaves(
    trees: list[RandomTree], codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct leaves encoded rows reach in ``trees``: (leaves, offsets, index).

    Tree t's leaves are ``leaves[offsets[t]:offsets[t + 1]]``; ``index[t, j]``: row j's leaf.
    All trees in one pass (:func:`forest_leaves`). Public: the trees and the rows only.
    """
    n, m = codes.shape[0], len(trees)
    tree_of = np.repeat(np.arange(m), n)
    leaves, index = forest_leaves(trees, codes, tree_of, np.arange(n * m) % max(n, 1))
    tree_of_leaf = np.empty(len(leaves), dtype=np.int64)
    tree_of_leaf[index] = tree_of
    offsets = np.searchsorted(tree_of_leaf, np.arange(m + 1))
    return leaves, offsets, index.reshape(m, n)


def forest_top(trees: list[RandomTree], budget: int,
               visits: int = 0) -> tuple[TreeTop, np.ndarray, np.ndarray]:
    """The top levels of a forest within ``budget`` nodes: TreeTop, frontier keys, offsets.

    ``visits``: the node visits of the job it serves (the compiled engine's rule, which
    materializes numeric trees whole, the same nodes).
    """
    first, roots = _forest_roots(trees)
    if len(roots) * (2**(first.depth + 1) - 1) <= budget and (
            grown := _grown(first, roots, visits)) is not None:
        top, leaves = grown
        return top, leaves, np.arange(len(trees) + 1) * 2**first.depth
    top, state, root_of = first._top_levels(roots, max(int(budget), len(roots)))
    return top, state[0], np.searchsorted(root_of, np.arange(len(trees) + 1))


def forest_leaf_keys(
    trees: list[RandomTree], codes: np.ndarray, tree_of_row: np.ndarray,
    row_of: np.ndarray | None = None,
) -> np.ndarray:
    """The leaf key of each item in its tree (uint64): :func:`forest_route`'s leaf keys."""
    leaves, index = forest_leaves(trees, codes, tree_of_row, row_of, distinct=False)
    return leaves[index]


def tree_bytes(n_attributes: int, leaves: float = 0, n_classes: int = 0) -> int:
    """Estimated memory of one :class:`RandomTree` and its release, an upper bound.

    3 KiB + 40 B per attribute, plus 8 B per released leaf for its key and 8 B per class for
    its count or label (calibrated against measured memory: tests/test_memory_guards.py).
    """
    k = check_int(n_attributes, "n_attributes", minimum=0)
    return int(3072 + 40 * k + 8 * (1 + n_classes) * math.ceil(leaves))


def random_trees(domain: Domain, depth: int, keys: Iterable[int]) -> list[RandomTree]:
    """One :class:`RandomTree` per key, sharing one set of the domain's arrays (built once)."""
    shared = vars(RandomTree(domain, depth, 0))
    trees = []
    for key in keys:
        tree = object.__new__(RandomTree)
        tree.__dict__.update(shared)
        tree.key = np.uint64(int(key) % 2**64)
        trees.append(tree)
    return trees


def leaves_bound(domain: Domain, depth: int, n_rows: float = math.inf) -> float:
    """At most this many leaves of a tree of ``depth`` hold rows: ``min(n_rows, max_leaves)``.

    ``max_leaves``: the product of the ``depth`` largest arities (the default ``n_rows``).
    """
    arities = [m for m in domain.n_values.tolist() if m]  # the categorical attributes'
    if not domain.categorical_mask.all():
        arities += [2] * depth
    return min(float(n_rows), math.prod(map(float, sorted(arities, reverse=True)[:depth])))


def check_trees_memory(n_trees: object, n_attributes: int, leaves: float = 0,
                       n_classes: int = 0, *, cap: float = math.inf, per_row: int = 1) -> int:
    """``n_trees`` as an int, refused when the trees (+16 B each) exceed ``MEMORY_BUDGET``.

    ``leaves``: a bound on each tree's kept leaves that the rows set (fit knows it:
    :func:`leaves_bound`), at most ``per_row`` per row and ``cap`` (public). Refused for them,
    the guard says one bit of the rows (over the budget or not): its message names public
    values only, never the number of rows or a function of it (docs/privacy.md §4).
    """
    n = check_int(n_trees, "n_trees", minimum=1)
    each = tree_bytes(n_attributes) + 16
    what = f"n_trees={n_trees!r} trees over {n_attributes} attribute(s)"
    check_memory(n * each, f"{what} (about {each:,} B each)",
                 f"pass n_trees <= {max(MEMORY_BUDGET // each, 1)}")
    if leaves and n * (tree_bytes(n_attributes, leaves, n_classes) + 16) > MEMORY_BUDGET:
        most = f"{per_row} per training row" + (
            f", {math.ceil(cap):,} in all" if math.isfinite(cap) else "")
        raise InvalidParameterError(
            f"{what}, about {each:,} B each and {8 * (1 + n_classes)} B per leaf they keep (at "
            f"most {most}), need more than the memory budget of {MEMORY_BUDGET / 2**30:.3g} GiB "
            "(dpviz.validation.MEMORY_BUDGET) for these rows: pass fewer n_trees, a smaller "
            "max_depth or fewer rows (the refusal depends on the number of rows, this message "
            "does not)"
        )
    return n


def route_bytes(n_attributes: int, depth: int, categorical: bool = True) -> int:
    """Estimated memory per routed item (row × tree) of :func:`forest_route` at ``depth``.

    Its path's numeric ranges (16 B per tested attribute) and slot map (1 B per attribute).
    """
    k = check_int(n_attributes, "n_attributes", minimum=0)
    d = check_int(depth, "depth", minimum=0)
    return 64 + 16 * min(k, d) + k + (k if categorical else 0)


# =============================================================================== compiled descent
ENGINES = ("auto", "numba", "numpy")
#: From this many node visits (items × levels) on, ``"auto"`` uses the compiled kernel: below,
#: numpy takes under ~25 ms, less than loading numba (0.3–1 s, 130 MB, once per process).
COMPILED_MIN_VISITS = 2_000_000
#: Up to this many node visits, :func:`forest_leaves` routes on Python ints, node by node: numpy
#: costs ~40 us a level however few the items (docs/benchmarks.md, the audit section).
FEW_VISITS = 192
#: A compiled call splits its items over threads only when each thread gets at least this many
#: node visits (about 25 ms of work alone): below, starting the threads and waiting for a second
#: core (on a shared machine, a classroom server) cost more than they save (docs/benchmarks.md).
THREAD_MIN_VISITS = 8_000_000
#: The most leaves a routing materializes whole with the compiled kernel (~40 B a node: 80 MB).
GROWN_LEAVES = 2**20
#: The compiled kernels' most threads; None: :func:`allowed_threads` at each call.
THREADS: int | None = None
#: The environment variables that cap the threads (the smallest positive value wins).
THREAD_VARIABLES = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS")

_engine = os.environ.get("DPVIZ_ENGINE", "auto")
if _engine not in ENGINES:
    raise InvalidParameterError(f"DPVIZ_ENGINE must be one of {ENGINES}, got {_engine!r}")
_kernel: list[Callable | None] = []  # [] not tried yet; [None] numba unavailable


@dataclass(frozen=True, eq=False)
class TreeTop:
    """The top ``levels`` levels of some random trees, every node materialized as arrays.

    Level by level (tree t's root is node t); children consecutive from ``first_child``;
    numeric: ``x > threshold`` to child 1; categorical: code c to child c (-1: ``unknown_child``).
    """

    attribute: np.ndarray
    threshold: np.ndarray
    categorical: np.ndarray
    unknown_child: np.ndarray
    first_child: np.ndarray
    levels: int
    frontier: int
    frontier_size: int
    roots: int
    n_values: np.ndarray


def set_engine(name: str) -> None:
    """Choose the engine of :func:`descend`: ``"auto"`` (default), ``"numba"`` or ``"numpy"``."""
    global _engine
    if name not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {ENGINES}, got {name!r}")
    if name == "numba" and _compiled() is None:
        raise InvalidParameterError("engine 'numba' needs the numba package (pip install numba)")
    _engine = name
    keyed.use_kernel(_kernel[1] if name != "numpy" and _kernel and _kernel[0] else None)


def engine() -> str:
    """The engine chosen by :func:`set_engine` (or ``DPVIZ_ENGINE``)."""
    return _engine


def descend(top: TreeTop, codes: np.ndarray, tree_of: np.ndarray, row_of: np.ndarray) -> np.ndarray:
    """The frontier node each item reaches (from root ``tree_of[i]``, reading row ``row_of[i]``).

    Refuses what the unchecked compiled kernel could not read.
    """
    codes = _checked_codes(top, codes)
    tree_of = np.ascontiguousarray(tree_of, dtype=np.int64)
    row_of = np.ascontiguousarray(row_of, dtype=np.int64)
    if tree_of.shape != row_of.shape or tree_of.ndim != 1:
        raise InvalidParameterError("tree_of and row_of must be 1-d arrays of one length")
    if tree_of.size and (tree_of.view(np.uint64).max() >= top.roots  # (negative: >= 2**63)
                         or row_of.view(np.uint64).max() >= codes.shape[0]):
        raise InvalidParameterError(
            f"tree_of must lie in 0 .. {top.roots - 1} and row_of in 0 .. {codes.shape[0] - 1}")
    kernel = _kernel_for(len(tree_of) * top.levels)
    if kernel is None:
        return _descend_numpy(top, codes, tree_of, row_of)
    out = np.empty(len(tree_of), dtype=np.int64)
    args, none, no_votes = _arrays(top), np.zeros(0, np.int64), np.zeros((0, 0), np.int64)
    _in_threads(len(tree_of) * top.levels, len(tree_of),
                lambda s: kernel(codes, tree_of[s], row_of[s], *args, 0, none, out[s], no_votes))
    return out


def vote(top: TreeTop, codes: np.ndarray, leaf_label: np.ndarray, n_classes: int) -> np.ndarray:
    """Votes (n, n_classes) of every row in every tree, from the labels of the frontier nodes."""
    codes = _checked_codes(top, codes)
    leaf_label = np.ascontiguousarray(leaf_label, dtype=np.int64)
    if leaf_label.shape != (top.frontier_size,) or (
        leaf_label.size and (leaf_label.min() < 0 or leaf_label.max() >= n_classes)
    ):
        raise InvalidParameterError(
            f"leaf_label must hold {top.frontier_size} labels in 0 .. {n_classes - 1}")
    n = codes.shape[0]
    kernel = _kernel_for(n * top.roots * top.levels)
    if kernel is None:
        node = _descend_numpy(top, codes, np.repeat(np.arange(top.roots), n),
                              np.tile(np.arange(n), top.roots))
        flat = np.tile(np.arange(n) * n_classes, top.roots) + leaf_label[node - top.frontier]
        return np.bincount(flat, minlength=n * n_classes).reshape(n, n_classes)
    votes = np.zeros((n, n_classes), dtype=np.int64)
    args, none = (*_arrays(top), top.frontier, leaf_label), np.zeros(0, np.int64)
    _in_threads(n * top.roots * top.levels, n,
                lambda s: kernel(codes[s], none, none, *args, none, votes[s]))
    return votes


def _checked_codes(top: TreeTop, codes: np.ndarray) -> np.ndarray:
    """``codes`` as C-contiguous float64, refused if they do not fit ``top``."""
    codes = np.ascontiguousarray(codes, dtype=np.float64)
    if codes.ndim != 2 or codes.shape[1] != len(top.n_values):
        raise InvalidParameterError(
            f"encoded rows must have shape (n, {len(top.n_values)}), got {codes.shape}")
    columns = np.flatnonzero(top.n_values)
    if len(columns) and top.categorical.any():
        cat = codes[:, columns]
        bad = ~((cat >= -1) & (cat < top.n_values[columns]) & (cat == np.floor(cat)))
        if bad.any():
            raise InvalidParameterError(
                f"encoded column {int(columns[np.argwhere(bad)[0, 1]])} holds a code that is "
                "not a category (0 .. m-1) or -1 (unknown)")
    return codes


def _in_threads(visits: int, n: int, kernel: Callable[[slice], Any]) -> None:
    """``kernel`` on slices of ``range(n)`` in threads (nogil; items independent: same results).

    One slice per :data:`THREAD_MIN_VISITS` visits, at most :func:`allowed_threads`; one slice
    runs in the calling thread.
    """
    parts = visits // THREAD_MIN_VISITS
    if parts >= 2:
        parts = min(parts, THREADS or allowed_threads())
    if parts < 2:
        kernel(slice(0, n))
        return
    with ThreadPoolExecutor(parts) as pool:
        list(pool.map(kernel, [slice(n * i // parts, n * (i + 1) // parts) for i in range(parts)]))


def allowed_threads(environ: Mapping[str, str] | None = None, cpus: int | None = None,
                    cpu_max: str | None = "read") -> int:
    """The most threads the compiled kernels may use (default: this process's, read now).

    The CPUs the process may run on (``os.sched_getaffinity``), at most its cgroup's CPU quota
    (``cpu_max``: the text of ``/sys/fs/cgroup/cpu.max``, "quota period" or "max period"; cgroup
    v1's ``cpu.cfs_quota_us`` too), at most ``NUMBA_NUM_THREADS`` and ``OMP_NUM_THREADS``: a
    classroom server sets ``OMP_NUM_THREADS=1`` for one thread per kernel (README).
    """
    environ = os.environ if environ is None else environ
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
            os.cpu_count() or 1)
    limits = [cpus, _quota_cpus(_cgroup_cpu_max() if cpu_max == "read" else cpu_max)]
    limits += [_positive_int(environ.get(name), name) for name in THREAD_VARIABLES]
    return max(min(limit for limit in limits if limit is not None), 1)


def _cgroup_cpu_max() -> str | None:
    """The process's cgroup CPU quota as cgroup v2 writes it ("quota period"), None if unknown."""
    for path in ("/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
        try:
            text = Path(path).read_text().strip()
            if path.endswith("quota_us"):  # cgroup v1: quota (-1: none) and period in two files
                period = Path(path.replace("quota", "period")).read_text().strip()
                text = f"{'max' if text.startswith('-') else text} {period}"
            return text
        except OSError:
            continue
    return None


def _quota_cpus(cpu_max: str | None) -> int | None:
    """Whole CPUs of a quota "quota period" (at least 1); None for "max" or an unreadable text."""
    parts = (cpu_max or "").split()
    if len(parts) != 2 or not all(p.isdigit() for p in parts) or int(parts[1]) == 0:
        return None
    return max(int(parts[0]) // int(parts[1]), 1)


def _positive_int(value: str | None, name: str) -> int | None:
    """A thread-count variable's value; OpenMP's "4,2" (nested levels) is 4; else None + warning."""
    if value is None or not value.strip():
        return None
    first = value.split(",")[0].strip()
    if first.isdigit() and int(first) > 0:
        return int(first)
    warnings.warn(f"{name}={value!r} is not a positive number of threads: ignored",
                  RuntimeWarning, stacklevel=3)
    return None


def _arrays(top: TreeTop) -> tuple:
    """The kernel's arrays; binary: numeric nodes, full levels (children 2i + roots + (0, 1))."""
    binary = not top.categorical.any() and np.array_equal(
        top.first_child, 2 * np.arange(len(top.first_child)) + top.roots)
    return (top.roots, top.attribute.view(np.uint64), top.threshold, top.categorical,
            top.unknown_child.view(np.uint64), top.first_child.view(np.uint64), top.levels, binary)


def _descend_numpy(
    top: TreeTop, codes: np.ndarray, tree_of: np.ndarray, row_of: np.ndarray
) -> np.ndarray:
    k = codes.shape[1]
    flat = codes.ravel()
    base = row_of * k
    node = tree_of.astype(np.int64, copy=True)
    any_categorical = bool(top.categorical.any())
    for _ in range(top.levels):
        value = flat[base + top.attribute[node]]
        if any_categorical:
            is_cat = top.categorical[node]
            code = np.where(value == -1, top.unknown_child[node], value)
            child = np.where(is_cat, code, value > top.threshold[node]).astype(np.int64)
        else:
            child = value > top.threshold[node]
        node = top.first_child[node] + child
    return node


def _kernel_for(visits: int) -> Callable | None:
    """The compiled kernel for a job of ``visits`` node visits, or None (numpy).

    From :data:`COMPILED_MIN_VISITS` on, or any job once numba is loaded (its cost is paid).
    """
    if _engine == "numpy" or (_engine == "auto" and visits < COMPILED_MIN_VISITS
                              and not (_kernel and _kernel[0])):
        return None
    return _compiled()


def _grown(first: RandomTree, roots: np.ndarray,
           visits: int) -> tuple[TreeTop, np.ndarray] | None:
    """Every level of the numeric trees at ``roots`` by the compiled kernel, the leaves' keys.

    :meth:`RandomTree._top_levels`'s nodes, bit for bit; None for categorical attributes or
    without the compiled engine (:func:`_kernel_for` a job of ``visits``).
    """
    if first._any_categorical or first.depth == 0 or _kernel_for(visits) is None:
        return None
    r, levels = len(roots), first.depth
    n = r * (2**levels - 1)
    attribute, threshold = np.empty(n, np.int64), np.empty(n)
    leaves = np.empty(r * 2**levels, np.uint64)
    streams = np.array([keyed.stream_key(ATTRIBUTE_STREAM), keyed.stream_key(SPLIT_STREAM)],
                       dtype=np.uint64)
    _kernel[2](roots, levels, first._low, first._high, streams, attribute, threshold, leaves)
    top = TreeTop(attribute, threshold, np.zeros(n, bool), np.zeros(n, np.int64),
                  2 * np.arange(n) + r, levels=levels, frontier=n, frontier_size=len(leaves),
                  roots=r, n_values=np.zeros(len(first._arity), np.int64))
    return top, leaves


def _compiled() -> Callable | None:
    """The numba kernel, compiled (or loaded from its cache) on first use; None without numba.

    Loading it also gives :mod:`dpviz.keyed` its compiled SipHash (the same tags, ~6× faster:
    the keyed noise of many unvisited leaves), unless the engine is ``"numpy"``.
    """
    if not _kernel:
        try:
            import numba
        except ImportError:
            _kernel.append(None)
            return None
        for function in (_walk_loop, keyed.siphash_lanes, _grow_loop):
            try:
                _kernel.append(numba.njit(cache=True, nogil=True)(function))
            except RuntimeError:  # no writable cache directory: compile in every process
                _kernel.append(numba.njit(nogil=True)(function))
        keyed.use_kernel(_kernel[1] if _engine != "numpy" else None)
    return _kernel[0]


def _grow_loop(roots, levels, low, high, streams, attribute, threshold, leaves):  # pragma: no cover
    # numba's: every node of full binary trees over numeric attributes (public bounds low,
    # high), depth first from each root key: the same attributes, thresholds and leaf keys as
    # _top_levels (BuildTreeStructure through keyed.uniforms and keyed.child_keys). streams:
    # splitmix64 of ATTRIBUTE_STREAM and SPLIT_STREAM; nodes numbered level by level (node i's
    # children are 2i + R + (0, 1)), leaves from 0.
    golden = np.uint64(0x9E3779B97F4A7C15)
    m1, m2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)

    def splitmix64(x):
        z = x + golden
        z = (z ^ (z >> np.uint64(30))) * m1
        z = (z ^ (z >> np.uint64(27))) * m2
        return z ^ (z >> np.uint64(31))

    def uniform(key, stream):  # keyed.uniforms
        bits = splitmix64(splitmix64(key ^ stream))
        return (np.float64(bits >> np.uint64(12)) + 0.5) * 2.0**-52

    k, n_roots = low.shape[0], roots.shape[0]
    lo, hi = low.copy(), high.copy()  # the ranges on the current path
    node = np.empty(levels, np.int64)
    key = np.empty(levels, np.uint64)
    side = np.empty(levels, np.int64)
    saved = np.empty(levels)  # the bound each level's test replaced
    for tree in range(n_roots):
        d, node[0], key[0] = 0, tree, roots[tree]
        while True:  # at node[d] (its split not drawn yet)
            i, a = node[d], np.int64(np.floor(uniform(key[d], streams[0]) * k))
            a = a if a < k else 0
            t = lo[a] + uniform(key[d], streams[1]) * (hi[a] - lo[a])
            attribute[i], threshold[i] = a, t
            side[d], saved[d], hi[a] = 0, hi[a], t  # child 0 first: x <= t
            while True:
                child = splitmix64(splitmix64(key[d]) + np.uint64(side[d] + 1) * golden)
                if d + 1 < levels:
                    node[d + 1], key[d + 1] = 2 * node[d] + n_roots + side[d], child
                    d += 1
                    break
                leaves[2 * node[d] + n_roots + side[d] - n_roots * (2**levels - 1)] = child
                while d >= 0 and side[d] == 1:  # back up past finished nodes
                    lo[attribute[node[d]]] = saved[d]
                    d -= 1
                if d < 0:
                    break
                a = attribute[node[d]]  # then child 1: x > t
                hi[a], side[d], saved[d], lo[a] = saved[d], 1, lo[a], threshold[node[d]]
            if d < 0:
                break


# The kernel numba compiles: it walks a block of items down level by level (independent
# loads; blocks of 32, the binary test outside the levels' loop: measured fastest, blocks of 8
# took 1.25-1.5x the time). It reads the arrays descend / vote checked, unchecked (tested
# against the numpy twin: test_random_tree).
_BLOCK = 32


def _walk_loop(codes, tree_of, row_of, roots, attribute, threshold, categorical, unknown_child,
               first_child, levels, binary, frontier, leaf_label, out, votes):  # pragma: no cover
    # descend: item i from root tree_of[i] on row row_of[i], out[i] = its node; vote (votes
    # has rows): every row in every tree, votes[row, the label of its node] += 1
    k = np.uint64(codes.shape[1])
    voting = votes.shape[0] > 0
    passes, items = (roots, codes.shape[0]) if voting else (1, tree_of.shape[0])
    flat = codes.ravel()
    node = np.empty(_BLOCK, np.uint64)
    base = np.empty(_BLOCK, np.uint64)
    two, n_roots, first_leaf = np.uint64(2), np.uint64(roots), np.uint64(frontier)
    for tree in range(passes):
        for start in range(0, items, _BLOCK):
            m = min(_BLOCK, items - start)
            for j in range(m):
                node[j] = np.uint64(tree) if voting else np.uint64(tree_of[start + j])
                base[j] = np.uint64(start + j if voting else row_of[start + j]) * k
            if binary:
                for _ in range(levels):
                    for j in range(m):
                        at = node[j]
                        value = flat[base[j] + attribute[at]]
                        node[j] = two * at + n_roots + np.uint64(value > threshold[at])
            else:
                for _ in range(levels):
                    for j in range(m):
                        at = node[j]
                        value = flat[base[j] + attribute[at]]
                        numeric = np.uint64(value > threshold[at])
                        code = unknown_child[at] if value == -1.0 else np.uint64(max(value, 0.0))
                        node[j] = first_child[at] + (code if categorical[at] else numeric)
            for j in range(m):
                if voting:
                    votes[start + j, leaf_label[node[j] - first_leaf]] += 1
                else:
                    out[start + j] = node[j]
