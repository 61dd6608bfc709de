"""The tree induced by the FS algorithms (:class:`ID3Tree`), its views, and its ledger's.

Layering: this module sits above :mod:`dpviz.trees.id3_tree` (the nodes and the routing)
and below the estimators of :mod:`dpviz.trees.id3`, which build an :class:`ID3Tree`.

Everything shown here was released by the ε-DP queries of the build (noisy counts, chosen
attributes and split points) or computed from them (pruning), so displaying it costs no
privacy.

* :func:`tree_frame` — one row per node (a tidy DataFrame);
* :func:`export_text` — an indented text tree (``print(model.tree_)``);
* :func:`export_html` — nested HTML with pruned branches struck through and empty leaves
  marked (``model.tree_`` displays it in a notebook);
* :func:`tree_chart` — an altair chart of the tree (nodes by depth, edges, tooltips);
* :func:`ledger_by_level` and :func:`ledger_level_chart` — the ε charged per tree level and
  per kind of query (sequential across levels, parallel within one).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterator
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError
from dpviz.privacy import Ledger
from dpviz.trees.id3_tree import ID3Node

__all__ = [
    "NODE_KINDS",
    "ID3Tree",
    "export_html",
    "export_text",
    "ledger_by_level",
    "ledger_level_chart",
    "tree_chart",
    "tree_frame",
]


class ID3Tree:
    """An induced tree with its public context: the domain, the algorithm and its budget.

    Displayed as text (``str``), HTML in a notebook, or an altair chart (:meth:`chart`);
    :meth:`to_frame` lists its nodes. Everything it shows was released by ε-DP queries.

    Parameters
    ----------
    root : ID3Node
        The root node.
    domain : Domain
        The public schema the tree was built with.
    algorithm : str
        E.g. ``"DiffPID3 (max)"``.
    budget : float
        The total ε, B.
    epsilon : float
        The ε of each level's queries.

    """

    def __init__(
        self, root: ID3Node, domain: Domain, *, algorithm: str, budget: float, epsilon: float
    ) -> None:
        self.root = root
        self.domain = domain
        self.algorithm = algorithm
        self.budget = budget
        self.epsilon = epsilon

    def nodes(self) -> Iterator[ID3Node]:
        """Pre-order iterator over every node (pruned branches included)."""
        return self.root.walk()

    @property
    def n_leaves(self) -> int:
        """Number of leaves used by ``predict`` (pruned branches excluded)."""

        def count(node: ID3Node) -> int:
            return 1 if node.acts_as_leaf else sum(count(c) for c in node.children)

        return count(self.root)

    @property
    def depth(self) -> int:
        """Depth of the tree used by ``predict`` (0 for a single leaf)."""

        def deep(node: ID3Node) -> int:
            return 0 if node.acts_as_leaf else 1 + max(deep(c) for c in node.children)

        return deep(self.root)

    def to_frame(self) -> pd.DataFrame:
        """One row per node (see :func:`tree_frame`)."""
        return tree_frame(self)

    def to_text(self, **kwargs: Any) -> str:
        """Indented text view (see :func:`export_text`)."""
        return export_text(self, **kwargs)

    def to_html(self, **kwargs: Any) -> str:
        """Nested HTML view (see :func:`export_html`)."""
        return export_html(self, **kwargs)

    def chart(self, **kwargs: Any) -> Any:
        """Altair chart of the tree (see :func:`tree_chart`)."""
        return tree_chart(self, **kwargs)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (
            f"ID3Tree({self.algorithm}, B = {self.budget:g}, ε per query = {self.epsilon:.4g}, "
            f"depth {self.depth}, {self.n_leaves} leaves)"
        )

    def _repr_html_(self) -> str:
        return self.to_html()


def _as_tree(obj: Any) -> ID3Tree:
    if isinstance(obj, ID3Tree):
        return obj
    tree = getattr(obj, "tree_", None)
    if isinstance(tree, ID3Tree):
        return tree
    raise InvalidParameterError(
        f"expected an ID3Tree or a fitted FS estimator (with tree_), got {type(obj).__name__}"
    )


def _as_ledger(obj: Any) -> Ledger:
    if isinstance(obj, Ledger):
        return obj
    ledger = getattr(obj, "ledger_", None)
    if isinstance(ledger, Ledger):
        return ledger
    raise InvalidParameterError(
        f"expected a Ledger or a fitted estimator (with ledger_), got {type(obj).__name__}"
    )


def _fmt(x: float, decimals: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "?"
    return f"{x:.{decimals}f}" if abs(x) < 1e6 else f"{x:.3g}"


def _counts_text(counts: np.ndarray | None, decimals: int) -> str:
    if counts is None:
        return ""
    return "[" + ", ".join(_fmt(float(c), decimals) for c in counts) + "]"


def _kind(node: ID3Node, in_pruned: bool) -> str:
    if in_pruned:
        return "pruned away"
    if node.pruned:
        return "pruned to leaf"
    if node.is_split:
        return "split"
    return "empty leaf" if node.is_empty else "leaf"


def tree_frame(tree: Any) -> pd.DataFrame:
    """One row per node, in pre-order (the numbering of ``estimator.apply``).

    Parameters
    ----------
    tree : ID3Tree or fitted estimator

    Returns
    -------
    DataFrame
        Columns ``node``, ``parent``, ``depth``, ``condition``, ``kind`` (split, leaf,
        empty leaf, pruned to leaf, pruned away), ``attribute``, ``threshold``,
        ``noisy_count`` (N_T), ``class_counts`` (a leaf's noisy N_c), ``label`` (the class
        predicted at a leaf), ``stop`` (why it is a leaf), ``split_points`` (numeric
        candidates drawn at the node), ``corrected_count`` and ``corrected_class_counts``
        (after pruning's corrections), ``epsilon`` (ε of the level's queries).
    """
    t = _as_tree(tree)
    classes = list(t.domain.classes)
    rows: list[dict[str, Any]] = []

    def visit(node: ID3Node, parent: int | None, in_pruned: bool) -> None:
        k = len(rows)
        label = None
        if node.acts_as_leaf and node.label is not None and not in_pruned:
            label = classes[node.label]
        rows.append(
            {
                "node": k,
                "parent": parent,
                "depth": node.depth,
                "condition": node.condition,
                "kind": _kind(node, in_pruned),
                "attribute": node.attribute,
                "threshold": node.threshold,
                "noisy_count": node.noisy_count,
                "class_counts": None if node.class_counts is None else node.class_counts.tolist(),
                "label": label,
                "stop": node.stop,
                "split_points": dict(node.split_points),
                "corrected_count": node.corrected_count,
                "corrected_class_counts": (
                    None
                    if node.corrected_class_counts is None
                    else node.corrected_class_counts.tolist()
                ),
                "epsilon": node.epsilon,
            }
        )
        for child in node.children:
            visit(child, k, in_pruned or node.pruned)

    visit(t.root, None, False)
    return pd.DataFrame(rows)


def _header(t: ID3Tree) -> str:
    return (
        f"{t.algorithm}: B = {t.budget:g}, ε per query = {t.epsilon:.4g}, depth {t.depth}, "
        f"{t.n_leaves} leaves; classes {list(t.domain.classes)}"
    )


def export_text(
    tree: Any,
    *,
    decimals: int = 1,
    show_pruned: bool = True,
    max_lines: int = 400,
) -> str:
    """An indented text view of the tree, one line per node.

    Parameters
    ----------
    tree : ID3Tree or fitted estimator
    decimals : int, default 1
        Decimals of the noisy counts.
    show_pruned : bool, default True
        Show the branches removed by pruning (marked ``[pruned]``).
    max_lines : int, default 400
        Stop after this many lines (a note says how many were left out).

    Returns
    -------
    str
        E.g. ``a7 = 1  N_T≈1490.0  → class 1  N_c≈[87.0, 1413.0]``.
    """
    t = _as_tree(tree)
    classes = list(t.domain.classes)
    lines = [_header(t)]
    skipped = 0

    def visit(node: ID3Node, indent: str, in_pruned: bool) -> None:
        nonlocal skipped
        if in_pruned and not show_pruned:
            return
        if len(lines) > max_lines:
            skipped += 1
            for child in node.children:
                visit(child, indent + "  ", in_pruned or node.pruned)
            return
        text = f"{indent}{node.condition}  N_T≈{_fmt(node.noisy_count, decimals)}"
        if node.split_points:
            drawn = ", ".join(f"{a} ≤ {v:.4g}" for a, v in node.split_points.items())
            text += f"  (split points drawn: {drawn})"
        if node.is_split:
            test = node.attribute if node.threshold is None else (
                f"{node.attribute} ≤ {node.threshold:.4g}"
            )
            text += f"  split on {test}"
        if node.acts_as_leaf and node.label is not None and not in_pruned:
            counts = node.corrected_class_counts if node.pruned else node.class_counts
            text += f"  → class {classes[node.label]}  N_c≈{_counts_text(counts, decimals)}"
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
    if skipped:
        lines.append(f"... ({skipped} more nodes)")
    return "\n".join(lines)


_STYLE = (
    "<style>.dpviz-tree ul{list-style:none;margin:0;padding-left:1.2em;"
    "border-left:1px dotted #bbb}.dpviz-tree li{margin:2px 0}"
    ".dpviz-tree .pruned{color:#999;text-decoration:line-through}"
    ".dpviz-tree .empty{color:#b35900}.dpviz-tree .leaf{color:#1a5e20}"
    ".dpviz-tree .cond{font-weight:bold}.dpviz-tree .n{color:#555}</style>"
)


def export_html(tree: Any, *, decimals: int = 1, max_nodes: int = 400) -> str:
    """Nested HTML of the tree: splits, noisy counts, labels, empty leaves, pruned branches.

    Parameters
    ----------
    tree : ID3Tree or fitted estimator
    decimals : int, default 1
        Decimals of the noisy counts.
    max_nodes : int, default 400
        Show at most this many nodes.

    Returns
    -------
    str
        An HTML fragment (``<div class="dpviz-tree">``) for a notebook.
    """
    t = _as_tree(tree)
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
            test = node.attribute if node.threshold is None else (
                f"{node.attribute} ≤ {node.threshold:.4g}"
            )
            body += f" — split on <i>{html.escape(str(test))}</i>"
        if node.acts_as_leaf and node.label is not None and not in_pruned:
            counts = node.corrected_class_counts if node.pruned else node.class_counts
            body += (
                f' <span class="leaf">→ class <b>{html.escape(str(classes[node.label]))}</b>'
                f" N<sub>c</sub>≈{_counts_text(counts, decimals)}</span>"
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
        f'{_STYLE}<div class="dpviz-tree"><p><b>{html.escape(_header(t))}</b></p>'
        f"<ul>{tree_html}</ul>{more}</div>"
    )


def _layout(frame: pd.DataFrame) -> pd.DataFrame:
    """Horizontal position of every node: leaves in order, a parent centred over its children."""
    children: dict[int, list[int]] = {}
    for node, parent in zip(frame["node"], frame["parent"], strict=True):
        if parent is not None and not (isinstance(parent, float) and math.isnan(parent)):
            children.setdefault(int(parent), []).append(int(node))
    x = np.zeros(len(frame))
    next_leaf = 0.0

    def place(k: int) -> float:
        nonlocal next_leaf
        kids = children.get(k, [])
        if not kids:
            x[k] = next_leaf
            next_leaf += 1.0
        else:
            xs = [place(c) for c in kids]
            x[k] = (min(xs) + max(xs)) / 2
        return float(x[k])

    place(0)
    out = frame.copy()
    out["x"] = x
    return out


#: The kinds of node of :func:`tree_frame`, in the order of the tree chart's legend.
NODE_KINDS = ("split", "leaf", "empty leaf", "pruned to leaf", "pruned away")
_KIND_COLOURS = ["#4c78a8", "#54a24b", "#f58518", "#b279a2", "#bbbbbb"]
#: Vega's tableau10, the colours of the ledger chart's kinds of query (cycled beyond ten).
_QUERY_COLOURS = (
    "#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b",
    "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac",
)


def _missing(value: Any) -> bool:
    """None, NaN or pandas' NA: a value a chart shows as nothing."""
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _json_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every missing or non-finite value as None (JSON has no NaN, no ∞).

    Altair passes NaN in pandas' string columns through to the spec, and the widget protocol
    then refuses the message ("Out of range float values are not JSON compliant").
    """
    out = frame.copy()
    for name in out.columns:
        column = out[name]
        if pd.api.types.is_bool_dtype(column):
            continue
        if pd.api.types.is_numeric_dtype(column):
            values = column.to_numpy(dtype=float)
            if not np.isfinite(values).all():
                out[name] = pd.Series(
                    [float(v) if math.isfinite(v) else None for v in values],
                    index=column.index,
                    dtype=object,
                )
        else:
            out[name] = pd.Series(
                [None if _missing(v) else v for v in column], index=column.index, dtype=object
            )
    return out


def tree_chart(
    tree: Any, *, show_pruned: bool = True, width: int = 640, height: int | None = None
) -> alt.LayerChart:
    """An altair chart of the tree: nodes by depth (colour = kind), edges, tooltips.

    Parameters
    ----------
    tree : ID3Tree or fitted estimator
    show_pruned : bool, default True
        Draw the branches removed by pruning (grey).
    width : int, default 640
        Chart width in pixels.
    height : int, optional
        Chart height; default 70 pixels per level.

    Returns
    -------
    altair.LayerChart
        Layers: edges (rules), nodes (points, tooltip with N_T, N_c, label, why a leaf)
        and short labels (text).
    """
    t = _as_tree(tree)
    frame = tree_frame(t)
    frame = _layout(frame if show_pruned else _renumber(frame))
    frame["N_T"] = frame["noisy_count"].round(1)
    frame["N_c"] = frame["class_counts"].map(
        lambda c: "" if c is None else ", ".join(f"{v:.1f}" for v in c)
    )
    frame["label"] = frame["label"].map(lambda v: "" if _missing(v) else str(v))
    frame["attribute"] = frame["attribute"].map(lambda v: "" if _missing(v) else str(v))
    frame["text"] = np.where(frame["attribute"] != "", frame["attribute"], "→ " + frame["label"])
    parents = frame.set_index("node")[["x", "depth"]]
    edges = frame[frame["parent"].notna()].copy()
    edges["px"] = parents.loc[edges["parent"].astype(int), "x"].to_numpy()
    edges["pdepth"] = parents.loc[edges["parent"].astype(int), "depth"].to_numpy()
    depth = int(frame["depth"].max()) if len(frame) else 0
    height = height or 70 * (depth + 1) + 40
    y = alt.Y("depth:Q", scale=alt.Scale(reverse=True), title="depth")
    x = alt.X("x:Q", axis=None)
    rules = (
        alt.Chart(_json_safe(edges[["x", "depth", "px", "pdepth"]]))
        .mark_rule(color="#999")
        .encode(x=x, y=y, x2="px:Q", y2="pdepth:Q")
    )
    kinds = alt.Scale(domain=list(NODE_KINDS), range=_KIND_COLOURS)
    shown = ["x", "depth", "condition", "kind", "attribute", "N_T", "N_c", "label", "stop", "text"]
    nodes = _json_safe(frame[shown])
    points = (
        alt.Chart(nodes)
        .mark_circle(size=160)
        .encode(
            x=x,
            y=y,
            color=alt.Color("kind:N", scale=kinds),
            tooltip=[
                alt.Tooltip(f"{name}:{'Q' if name == 'N_T' else 'N'}")
                for name in ("condition", "kind", "attribute", "N_T", "N_c", "label", "stop")
            ],
        )
    )
    text = (
        alt.Chart(nodes)
        .mark_text(dy=-12, fontSize=10)
        .encode(x=x, y=y, text="text:N")
    )
    title = _header(t)
    return alt.layer(rules, points, text).properties(width=width, height=height, title=title)


def _renumber(frame: pd.DataFrame) -> pd.DataFrame:
    keep = frame[frame["kind"] != "pruned away"].copy()
    mapping = {old: new for new, old in enumerate(keep["node"])}
    keep["node"] = keep["node"].map(mapping)
    keep["parent"] = keep["parent"].map(lambda p: None if p is None or p != p else mapping[p])
    return keep.reset_index(drop=True)


def ledger_by_level(ledger: Any) -> pd.DataFrame:
    """ε charged per tree level (rows) and per kind of query (columns), with totals.

    Parameters
    ----------
    ledger : Ledger or fitted estimator

    Returns
    -------
    DataFrame
        Index ``depth`` (the tree level = the partition depth of the query), one column of
        charged ε per query label (e.g. ``node count``, ``split attribute``, ``split
        point``, ``leaf class counts``), ``total`` (the level's share: 2ε for FS, more with
        numeric split points) and ``queries`` (number of queries at that level, most of
        them free by parallel composition). The ``total`` column sums to ``ledger.spent``.
    """
    frame = _as_ledger(ledger).to_frame()
    if frame.empty:
        return pd.DataFrame(columns=["total", "queries"])
    table = frame.pivot_table(
        index="depth", columns="label", values="charged", aggfunc="sum", fill_value=0.0
    )
    table.columns.name = None
    table["total"] = table.sum(axis=1)
    table["queries"] = frame.groupby("depth")["query"].size()
    return table


def ledger_level_chart(ledger: Any, *, width: int = 420) -> alt.Chart:
    """Stacked bars: ε charged at each tree level, coloured by the kind of query.

    Parameters
    ----------
    ledger : Ledger or fitted estimator
    width : int, default 420
        Chart width in pixels.

    Returns
    -------
    altair.Chart
        Its colour scale names its own domain (the ledger's query labels, in the order of
        the ledger), so that the bars keep their colours next to a chart with another
        colour scale; concatenate it with ``resolve_scale(color="independent")`` (as
        :func:`dpviz.explore.fs.fs_tree_chart` does), or a shared scale fixed to another
        domain (e.g. :func:`tree_chart`'s node kinds) leaves the bars without colour.
    """
    led = _as_ledger(ledger)
    frame = led.to_frame()
    grouped = (
        frame.groupby(["depth", "label"], sort=False)
        .agg(charged=("charged", "sum"), queries=("query", "size"))
        .reset_index()
    )
    labels = [str(v) for v in dict.fromkeys(grouped["label"])]
    colours = [_QUERY_COLOURS[i % len(_QUERY_COLOURS)] for i in range(len(labels))]
    title = f"ε per tree level: {led.spent:.4g} of B = {led.total:.4g}"
    return (
        alt.Chart(_json_safe(grouped), title=title, width=width)
        .mark_bar()
        .encode(
            y=alt.Y("depth:O", title="tree level (depth)"),
            x=alt.X("sum(charged):Q", title="ε charged to the total"),
            color=alt.Color(
                "label:N", title="query", scale=alt.Scale(domain=labels, range=colours)
            ),
            tooltip=[
                alt.Tooltip("depth:O"),
                alt.Tooltip("label:N"),
                alt.Tooltip("queries:Q"),
                alt.Tooltip("charged:Q", format=".4g"),
            ],
        )
    )
