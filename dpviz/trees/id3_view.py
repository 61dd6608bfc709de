"""The tree an FS build releases: nodes, the routing ``predict`` uses, and its views.

:class:`ID3Node`, :func:`flatten` and :func:`route`; :class:`ID3Tree` as a frame, text or
HTML. Everything here is post-processing of the build's ε-DP releases, so displaying it is free.
The altair charts are in :mod:`dpviz.ui.tree_charts`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dpviz import keyed
from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError
from dpviz.privacy import Ledger
from dpviz.trees.random_tree import UNKNOWN_STREAM

__all__ = [
    "FlatTree", "ID3Node", "ID3Tree", "as_ledger", "as_tree", "export_html", "export_text",
    "flatten", "leaf_distributions", "ledger_by_level", "route", "tree_frame",
]


@dataclass(eq=False)
class ID3Node:
    """One node of an induced tree, holding only released (noisy) values.

    ``condition`` is the test on the edge from the parent (``"(root)"``); ``noisy_count`` N_T;
    ``threshold`` a numeric split point (``x <= threshold`` to child 0); ``class_counts`` a leaf's
    noisy N_c and ``label`` their arg-max; ``split_points`` the numeric candidates drawn here;
    ``stop_below`` the noisy count below which FS's rule (line 9) made it a leaf (public);
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
    stop_below: float = math.nan
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
    """Class counts behind each node's prediction (>= 0), keyed by ``id(node)``."""
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
        unclassified[k] = node.is_empty
        source = ancestor if node.is_empty and ancestor is not None else node
        dist = dists[id(source)]
        label[k] = node.label if source is node else int(np.argmax(dist))
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


class ID3Tree:
    """An induced tree with its public context: domain, algorithm, total ε and ε per query."""

    def __init__(
        self, root: ID3Node, domain: Domain, *, algorithm: str, budget: float, epsilon: float
    ) -> None:
        self.root, self.domain = root, domain
        self.algorithm, self.budget, self.epsilon = algorithm, budget, epsilon

    def nodes(self) -> Iterator[ID3Node]:
        """Pre-order iterator over every node (pruned branches included)."""
        return self.root.walk()

    @property
    def n_leaves(self) -> int:
        """Number of leaves ``predict`` uses (pruned branches excluded)."""

        def count(node: ID3Node) -> int:
            return 1 if node.acts_as_leaf else sum(count(c) for c in node.children)

        return count(self.root)

    @property
    def depth(self) -> int:
        """Depth of the tree ``predict`` uses (0 for a single leaf)."""

        def deep(node: ID3Node) -> int:
            return 0 if node.acts_as_leaf else 1 + max(deep(c) for c in node.children)

        return deep(self.root)

    @property
    def header(self) -> str:
        """One line: algorithm, budget, ε per query, depth, leaves and classes."""
        return (
            f"{self.algorithm}: B = {self.budget:g}, ε per query = {self.epsilon:.4g}, depth "
            f"{self.depth}, {self.n_leaves} leaves; classes {list(self.domain.classes)}"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per node (:func:`tree_frame`)."""
        return tree_frame(self)

    def __str__(self) -> str:
        return export_text(self)

    def __repr__(self) -> str:
        return (
            f"ID3Tree({self.algorithm}, B = {self.budget:g}, ε per query = {self.epsilon:.4g}, "
            f"depth {self.depth}, {self.n_leaves} leaves)"
        )

    def _repr_html_(self) -> str:
        return export_html(self)


def _fitted(obj: Any, kind: type, attribute: str, what: str) -> Any:
    found = obj if isinstance(obj, kind) else getattr(obj, attribute, None)
    if isinstance(found, kind):
        return found
    raise InvalidParameterError(f"expected {what} (with {attribute}), got {type(obj).__name__}")


def as_tree(obj: Any) -> ID3Tree:
    """``obj`` if an ID3Tree, else its ``tree_`` (a fitted FS estimator)."""
    return _fitted(obj, ID3Tree, "tree_", "an ID3Tree or a fitted FS estimator")


def as_ledger(obj: Any) -> Ledger:
    """``obj`` if a Ledger, else its ``ledger_`` (a fitted estimator)."""
    return _fitted(obj, Ledger, "ledger_", "a Ledger or a fitted estimator")


def _fmt(x: float, decimals: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "?"
    return f"{x:.{decimals}f}" if abs(x) < 1e6 else f"{x:.3g}"


def _kind(node: ID3Node, in_pruned: bool) -> str:
    if in_pruned:
        return "pruned away"
    if node.pruned:
        return "pruned to leaf"
    if node.is_split:
        return "split"
    return "empty leaf" if node.is_empty else "leaf"


def _listed(counts: np.ndarray | None) -> list | None:
    return None if counts is None else counts.tolist()


def tree_frame(tree: Any) -> pd.DataFrame:
    """One row per node of an ID3Tree or fitted FS estimator, in pre-order (``apply``'s numbers).

    ``kind`` is split, leaf, empty leaf, pruned to leaf or pruned away; ``noisy_count`` is
    N_T, ``class_counts`` a leaf's N_c, ``corrected_*`` the counts after pruning.
    """
    t = as_tree(tree)
    classes = list(t.domain.classes)
    rows: list[dict[str, Any]] = []

    def visit(node: ID3Node, parent: int | None, in_pruned: bool) -> None:
        k = len(rows)
        label = None
        if node.acts_as_leaf and node.label is not None and not in_pruned:
            label = classes[node.label]
        rows.append({
            "node": k, "parent": parent, "depth": node.depth, "condition": node.condition,
            "kind": _kind(node, in_pruned), "attribute": node.attribute,
            "threshold": node.threshold, "noisy_count": node.noisy_count,
            "class_counts": _listed(node.class_counts), "label": label, "stop": node.stop,
            "split_points": dict(node.split_points), "corrected_count": node.corrected_count,
            "corrected_class_counts": _listed(node.corrected_class_counts),
            "epsilon": node.epsilon,
        })
        for child in node.children:
            visit(child, k, in_pruned or node.pruned)

    visit(t.root, None, False)
    return pd.DataFrame(rows)


def _test(node: ID3Node) -> str:
    """The split's test, e.g. ``a3`` or ``age ≤ 37.2``."""
    return str(node.attribute if node.threshold is None else
               f"{node.attribute} ≤ {node.threshold:.4g}")


def _leaf_counts(node: ID3Node, decimals: int) -> str:
    counts = node.corrected_class_counts if node.pruned else node.class_counts
    return "" if counts is None else "[" + ", ".join(_fmt(float(c), decimals) for c in counts) + "]"


def export_text(
    tree: Any, *, decimals: int = 1, show_pruned: bool = True, max_lines: int = 400
) -> str:
    """One line per node, indented, e.g. ``a7 = 1  N_T≈1490.0  → class 1  N_c≈[87.0, 1413.0]``."""
    t = as_tree(tree)
    classes = list(t.domain.classes)
    lines = [t.header]

    def visit(node: ID3Node, indent: str, in_pruned: bool) -> None:
        if in_pruned and not show_pruned:
            return
        text = f"{indent}{node.condition}  N_T≈{_fmt(node.noisy_count, decimals)}"
        if node.split_points:
            drawn = ", ".join(f"{a} ≤ {v:.4g}" for a, v in node.split_points.items())
            text += f"  (split points drawn: {drawn})"
        if node.is_split:
            text += f"  split on {_test(node)}"
        if node.acts_as_leaf and node.label is not None and not in_pruned:
            text += f"  → class {classes[node.label]}  N_c≈{_leaf_counts(node, decimals)}"
            if node.is_empty:
                text += "  [empty: rows here are unclassified]"
        if node.pruned and not in_pruned:
            text += "  [pruned to a leaf]"
        if in_pruned:
            text += "  [pruned]"
        lines.append(text)
        for child in node.children:
            visit(child, indent + "  ", in_pruned or node.pruned)

    visit(t.root, "", False)
    if len(lines) > max_lines + 1:  # the header and max_lines nodes
        lines[max_lines + 1 :] = [f"... ({len(lines) - max_lines - 1} more nodes)"]
    return "\n".join(lines)


_STYLE = (
    "<style>.dpviz-tree ul{list-style:none;margin:0;padding-left:1.2em;"
    "border-left:1px dotted #bbb}.dpviz-tree li{margin:2px 0}"
    ".dpviz-tree .pruned{color:#999;text-decoration:line-through}"
    ".dpviz-tree .empty{color:#b35900}.dpviz-tree .leaf{color:#1a5e20}"
    ".dpviz-tree .cond{font-weight:bold}.dpviz-tree .n{color:#555}</style>"
)


def export_html(tree: Any, *, decimals: int = 1, max_nodes: int = 400) -> str:
    """Nested HTML (``<div class="dpviz-tree">``): splits, noisy counts, labels, pruned branches."""
    t = as_tree(tree)
    classes = list(t.domain.classes)
    shown = 0

    def item(node: ID3Node, in_pruned: bool) -> str:
        nonlocal shown
        if shown >= max_nodes:
            return ""
        shown += 1
        css = "pruned" if in_pruned else ("empty" if node.is_empty else "")
        body = (
            f'<span class="cond">{html.escape(node.condition)}</span> '
            f'<span class="n">N<sub>T</sub>≈{_fmt(node.noisy_count, decimals)}</span>'
        )
        if node.is_split:
            body += f" — split on <i>{html.escape(_test(node))}</i>"
        if node.acts_as_leaf and node.label is not None and not in_pruned:
            body += (
                f' <span class="leaf">→ class <b>{html.escape(str(classes[node.label]))}</b>'
                f" N<sub>c</sub>≈{_leaf_counts(node, decimals)}</span>"
            )
        if node.is_empty and not in_pruned:
            body += " <i>(empty: rows here are unclassified)</i>"
        if node.pruned and not in_pruned:
            body += " <i>(pruned to a leaf)</i>"
        if node.stop and not node.is_split:
            body += f' <span class="n">[{html.escape(node.stop)}]</span>'
        inner = "".join(item(c, in_pruned or node.pruned) for c in node.children)
        if inner:
            body += f"<ul>{inner}</ul>"
        return f'<li class="{css}">{body}</li>'

    tree_html = item(t.root, False)
    more = "" if shown < max_nodes else f"<p>(showing the first {max_nodes} nodes)</p>"
    return (
        f'{_STYLE}<div class="dpviz-tree"><p><b>{html.escape(t.header)}</b></p>'
        f"<ul>{tree_html}</ul>{more}</div>"
    )


def ledger_by_level(ledger: Any) -> pd.DataFrame:
    """ε charged per tree level (rows) and per query label (columns), ``total`` and ``queries``.

    ``total`` sums to ``ledger.spent``; most queries of a level are free (parallel composition).
    """
    frame = as_ledger(ledger).to_frame()
    if frame.empty:
        return pd.DataFrame(columns=["total", "queries"])
    table = frame.pivot_table(
        index="depth", columns="label", values="charged", aggfunc="sum", fill_value=0.0
    )
    table.columns.name = None
    table["total"] = table.sum(axis=1)
    table["queries"] = frame.groupby("depth")["query"].size()
    return table
