"""Altair chart builders used by the notebooks.

Each function returns an ``altair.Chart`` built from a tidy DataFrame, so a
notebook only calls it and a test can inspect its data and encoding. Charts
use Vega-Lite 5 (altair >= 5.5, < 6), which JupyterLab and Voilà render offline
with ``alt.renderers.enable("mimetype")``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import altair as alt
import numpy as np
import pandas as pd

from dpviz.errors import InvalidParameterError

if TYPE_CHECKING:
    from dpviz.privacy import Ledger

__all__ = ["ledger_chart", "noisy_counts_chart"]


def ledger_chart(ledger: Ledger, *, by: str = "label", width: int = 420) -> alt.Chart:
    """Where the privacy budget went: charged ε per group of queries, against the total.

    Parameters
    ----------
    ledger : Ledger
        The ledger of a :class:`~dpviz.privacy.PrivateTable`.
    by : {"label", "mechanism", "depth", "path"}
        How to group the queries on the vertical axis.
    width : int
        Chart width in pixels.

    Returns
    -------
    altair.Chart
        Horizontal bars of the ε each group *charged* to the total (queries inside
        a partition are charged the maximum over the parts, so a group may
        contain many queries that charged nothing), coloured by mechanism.

    """
    frame = ledger.to_frame()
    if by not in ("label", "mechanism", "depth", "path"):
        raise InvalidParameterError(
            f"by must be 'label', 'mechanism', 'depth' or 'path', got {by!r}"
        )
    keys = [by] if by == "mechanism" else [by, "mechanism"]
    grouped = (
        frame.groupby(keys, sort=False)
        .agg(charged=("charged", "sum"), queries=("query", "size"), epsilon=("epsilon", "max"))
        .reset_index()
        if len(frame)
        else pd.DataFrame({k: [] for k in [*keys, "charged", "queries", "epsilon"]})
    )
    total = ledger.total
    title = f"Budget spent: {ledger.spent:.3g} of ε = {total:.3g} ({len(frame)} queries)"
    bars = (
        alt.Chart(grouped, title=title, width=width)
        .mark_bar()
        .encode(
            x=alt.X("sum(charged):Q", title="ε charged to the total"),
            y=alt.Y(f"{by}:N", sort=None, title=by),
            color=alt.Color("mechanism:N", title="mechanism"),
            tooltip=[
                by,
                "mechanism",
                "queries",
                alt.Tooltip("charged:Q", format=".4g"),
                alt.Tooltip("epsilon:Q", title="largest query ε", format=".4g"),
            ],
        )
    )
    return bars


def noisy_counts_chart(
    labels: Sequence[Hashable],
    true_counts: Sequence[float] | np.ndarray,
    noisy_counts: Sequence[float] | np.ndarray,
    *,
    title: str = "True and noisy counts",
    width: int = 360,
) -> alt.Chart:
    """Side-by-side bars of true and noisy counts per label (for teaching only).

    Parameters
    ----------
    labels : sequence
        One label per count (e.g. the domain's classes).
    true_counts, noisy_counts : array-like
        The exact counts (never shown to a real analyst) and their noisy release.
    title : str
        Chart title.
    width : int
        Chart width in pixels.

    Returns
    -------
    altair.Chart
        Grouped bars, one colour for "true" and one for "noisy".
    """
    true_counts = np.asarray(true_counts, dtype=float)
    noisy_counts = np.asarray(noisy_counts, dtype=float)
    labels = [str(v) for v in labels]
    if not (len(labels) == true_counts.size == noisy_counts.size):
        raise InvalidParameterError(
            f"labels, true_counts and noisy_counts must have the same length, got "
            f"{len(labels)}, {true_counts.size}, {noisy_counts.size}"
        )
    frame = pd.DataFrame(
        {
            "label": labels * 2,
            "count": np.concatenate([true_counts, noisy_counts]),
            "release": ["true"] * len(labels) + ["noisy"] * len(labels),
        }
    )
    return (
        alt.Chart(frame, title=title, width=width)
        .mark_bar()
        .encode(
            x=alt.X("label:N", sort=labels, title=None),
            xOffset=alt.XOffset("release:N", sort=["true", "noisy"]),
            y=alt.Y("count:Q", title="count"),
            color=alt.Color("release:N", sort=["true", "noisy"], title=None),
            tooltip=["label", "release", alt.Tooltip("count:Q", format=".0f")],
        )
    )
