"""Altair charts of an FS tree (:class:`~dpviz.trees.id3_view.ID3Tree`) and of its ledger.

Everything drawn was released by the build's ε-DP queries (or computed from them).
"""

from __future__ import annotations

import math
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from dpviz.trees.id3_view import as_ledger, as_tree, tree_frame

__all__ = ["NODE_KINDS", "ledger_level_chart", "tree_chart"]

#: The kinds of node of :func:`~dpviz.trees.id3_view.tree_frame`, in the legend's order.
NODE_KINDS = ("split", "leaf", "empty leaf", "pruned to leaf", "pruned away")
_KIND_COLOURS = ["#4c78a8", "#54a24b", "#f58518", "#b279a2", "#bbbbbb"]
#: Vega's tableau10: the ledger chart's kinds of query (cycled beyond ten).
_QUERY_COLOURS = (
    "#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b",
    "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac",
)


def _missing(value: Any) -> bool:
    """None, NA, NaN or ±∞: what JSON cannot hold."""
    if isinstance(value, float):
        return not math.isfinite(value)
    return value is None or value is pd.NA


def _json_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every missing or non-finite value as None (JSON has no NaN, no ∞).

    Altair passes NaN in string columns through, and the widget protocol refuses them.
    """
    return frame.astype(object).where(frame.map(lambda v: not _missing(v)), None)


def _layout(frame: pd.DataFrame) -> pd.DataFrame:
    """Horizontal position of every node: leaves in order, a parent centred over its children."""
    children: dict[int, list[int]] = {}
    for node, parent in zip(frame["node"], frame["parent"], strict=True):
        if not _missing(parent):
            children.setdefault(int(parent), []).append(int(node))
    x = np.zeros(len(frame))
    next_leaf = 0.0

    def place(k: int) -> float:
        nonlocal next_leaf
        if k not in children:
            x[k], next_leaf = next_leaf, next_leaf + 1.0
        else:
            xs = [place(c) for c in children[k]]
            x[k] = (min(xs) + max(xs)) / 2
        return float(x[k])

    place(0)
    return frame.assign(x=x)


def _renumber(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame without the branches removed by pruning, nodes renumbered."""
    keep = frame[frame["kind"] != "pruned away"].copy()
    mapping = {old: new for new, old in enumerate(keep["node"])}
    keep["node"] = keep["node"].map(mapping)
    keep["parent"] = keep["parent"].map(lambda p: None if _missing(p) else mapping[p])
    return keep.reset_index(drop=True)


def tree_chart(
    tree: Any, *, show_pruned: bool = True, width: int = 640, height: int | None = None
) -> alt.LayerChart:
    """An ``ID3Tree`` (or fitted FS estimator) as layers: edges, nodes by depth, short labels."""
    t = as_tree(tree)
    frame = tree_frame(t)
    frame = _layout(frame if show_pruned else _renumber(frame))
    frame["N_T"] = frame["noisy_count"].round(1)
    frame["N_c"] = frame["class_counts"].map(
        lambda c: "" if c is None else ", ".join(f"{v:.1f}" for v in c)
    )
    for name in ("label", "attribute"):
        frame[name] = frame[name].map(lambda v: "" if _missing(v) else str(v))
    frame["text"] = np.where(frame["attribute"] != "", frame["attribute"], "→ " + frame["label"])
    parents = frame.set_index("node")[["x", "depth"]]
    edges = frame[frame["parent"].notna()].copy()
    edges["px"] = parents.loc[edges["parent"].astype(int), "x"].to_numpy()
    edges["pdepth"] = parents.loc[edges["parent"].astype(int), "depth"].to_numpy()
    depth = int(frame["depth"].max()) if len(frame) else 0
    y = alt.Y("depth:Q", scale=alt.Scale(reverse=True), title="depth")
    x = alt.X("x:Q", axis=None)
    rules = (
        alt.Chart(_json_safe(edges[["x", "depth", "px", "pdepth"]]))
        .mark_rule(color="#999")
        .encode(x=x, y=y, x2="px:Q", y2="pdepth:Q")
    )
    shown = ["x", "depth", "condition", "kind", "attribute", "N_T", "N_c", "label", "stop", "text"]
    nodes = _json_safe(frame[shown])
    points = alt.Chart(nodes).mark_circle(size=160).encode(
        x=x,
        y=y,
        color=alt.Color("kind:N", scale=alt.Scale(domain=list(NODE_KINDS), range=_KIND_COLOURS)),
        tooltip=[
            alt.Tooltip(f"{name}:{'Q' if name == 'N_T' else 'N'}")
            for name in ("condition", "kind", "attribute", "N_T", "N_c", "label", "stop")
        ],
    )
    text = alt.Chart(nodes).mark_text(dy=-12, fontSize=10).encode(x=x, y=y, text="text:N")
    return alt.layer(rules, points, text).properties(
        width=width, height=height or 70 * (depth + 1) + 40, title=t.header
    )


def ledger_level_chart(ledger: Any, *, width: int = 420) -> alt.Chart:
    """Stacked bars: ε charged at each tree level, coloured by the kind of query.

    ``ledger`` is a Ledger or a fitted estimator. The colour scale names its own domain
    (the ledger's labels), so next to another chart concatenate with
    ``resolve_scale(color="independent")``.
    """
    led = as_ledger(ledger)
    grouped = (
        led.to_frame().groupby(["depth", "label"], sort=False)
        .agg(charged=("charged", "sum"), queries=("query", "size"))
        .reset_index()
    )
    labels = [str(v) for v in dict.fromkeys(grouped["label"])]
    colours = [_QUERY_COLOURS[i % len(_QUERY_COLOURS)] for i in range(len(labels))]
    scale = alt.Scale(domain=labels, range=colours)
    title = f"ε per tree level: {led.spent:.4g} of B = {led.total:.4g}"
    return (
        alt.Chart(_json_safe(grouped), title=title, width=width)
        .mark_bar()
        .encode(
            y=alt.Y("depth:O", title="tree level (depth)"),
            x=alt.X("sum(charged):Q", title="ε charged to the total"),
            color=alt.Color("label:N", title="query", scale=scale),
            tooltip=[
                alt.Tooltip("depth:O"), alt.Tooltip("label:N"), alt.Tooltip("queries:Q"),
                alt.Tooltip("charged:Q", format=".4g"),
            ],
        )
    )
