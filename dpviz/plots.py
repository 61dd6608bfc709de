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

from dpviz.audit import clopper_pearson
from dpviz.errors import InvalidParameterError

if TYPE_CHECKING:
    from dpviz.audit import AuditResult
    from dpviz.privacy import Ledger

__all__ = [
    "accuracy_chart",
    "audit_histogram_chart",
    "epsilon_bound_chart",
    "ledger_chart",
    "noisy_counts_chart",
    "privacy_loss_chart",
]


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


# ---------------------------------------------------------------------------------- audits
def audit_histogram_chart(result: AuditResult, *, width: int = 380) -> alt.Chart:
    """The chosen event's probability under D and D′ with their Clopper–Pearson intervals.

    Parameters
    ----------
    result : AuditResult
        An audit from :func:`dpviz.audit.audit`.
    width : int
        Chart width in pixels.

    Returns
    -------
    altair.Chart
        Two bars (P[M(D) ∈ E], P[M(D′) ∈ E]) with error bars.
    """
    frame = result.to_frame()
    base = alt.Chart(frame, title=f"P[output ∈ {result.event}]", width=width)
    bars = base.mark_bar().encode(
        x=alt.X("neighbour:N", title=None),
        y=alt.Y("estimate:Q", title="probability"),
        color=alt.Color("neighbour:N", legend=None),
        tooltip=["neighbour", alt.Tooltip("estimate:Q", format=".4g"), "count", "n"],
    )
    errors = base.mark_errorbar(ticks=True).encode(
        x="neighbour:N", y=alt.Y("low:Q", title="probability"), y2="high:Q"
    )
    return bars + errors


def privacy_loss_chart(
    result: AuditResult,
    *,
    exact: pd.DataFrame | None = None,
    width: int = 460,
) -> alt.Chart:
    """The privacy-loss profile: log P[M(D) ∈ E] / P[M(D′) ∈ E] for every candidate event.

    Parameters
    ----------
    result : AuditResult
        Its selection stage holds every candidate event's counts.
    exact : DataFrame, optional
        Columns ``event`` and ``loss``: the exact log-ratio where it is known.
    width : int
        Chart width in pixels.

    Returns
    -------
    altair.Chart
        Points with a 95% band per event (from the selection samples), the lines
        ±ε of the claim, and the exact curve when given.
    """
    table = result.selection
    n = max(int(result.n_samples - result.p.n), 1)  # selection samples per neighbour
    a_low, a_high = clopper_pearson(table["count_D"].to_numpy(), n, result.alpha / 2)
    b_low, b_high = clopper_pearson(table["count_D'"].to_numpy(), n, result.alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        point = np.log((table["count_D"] + 0.5) / (n + 1)) - np.log(
            (table["count_D'"] + 0.5) / (n + 1)
        )
        low = np.log(a_low) - np.log(b_high)
        high = np.log(a_high) - np.log(b_low)
    cap = 3 * max(result.epsilon if np.isfinite(result.epsilon) else 1.0, abs(point).max())
    frame = pd.DataFrame(
        {
            "event": table["event"],
            "order": np.arange(len(table)),
            "log_ratio": point,
            "low": np.clip(low, -cap, cap),
            "high": np.clip(high, -cap, cap),
        }
    )
    base = alt.Chart(frame, width=width, title="Privacy loss per event: log P[D] / P[D′]")
    x = alt.X("order:O", title="event", axis=alt.Axis(labels=False, ticks=False))
    band = base.mark_rule(opacity=0.4).encode(x=x, y=alt.Y("low:Q", title="log-ratio"), y2="high:Q")
    points = base.mark_point(filled=True).encode(
        x=x, y="log_ratio:Q", tooltip=["event", alt.Tooltip("log_ratio:Q", format=".3f")]
    )
    layers = [band, points]
    if np.isfinite(result.epsilon):
        lines = pd.DataFrame({"y": [result.epsilon, -result.epsilon], "label": ["+ε", "−ε"]})
        layers.append(
            alt.Chart(lines)
            .mark_rule(strokeDash=[6, 4], color="firebrick")
            .encode(y="y:Q", tooltip=["label"])
        )
    if exact is not None:
        merged = frame.merge(exact, on="event", how="inner")
        layers.append(alt.Chart(merged).mark_line(color="black").encode(x=x, y="loss:Q"))
    return alt.layer(*layers)


def epsilon_bound_chart(frame: pd.DataFrame, *, width: int = 420) -> alt.Chart:
    """The audit's ε lower bound against the number of samples, per mechanism.

    Parameters
    ----------
    frame : DataFrame
        Columns ``mechanism``, ``n_samples``, ``epsilon_lower`` and ``epsilon``
        (the claim), e.g. from :func:`dpviz.audit.bound_vs_samples`.
    width : int
        Chart width in pixels.

    Returns
    -------
    altair.Chart
        Lines of the bound (log-scaled samples) with the claimed ε as a dashed rule.
    """
    lines = (
        alt.Chart(frame, width=width, title="Lower bound on ε as the audit grows")
        .mark_line(point=True)
        .encode(
            x=alt.X("n_samples:Q", scale=alt.Scale(type="log"), title="samples per neighbour"),
            y=alt.Y("epsilon_lower:Q", title="ε lower bound (95%)"),
            color=alt.Color("mechanism:N"),
            tooltip=["mechanism", "n_samples", alt.Tooltip("epsilon_lower:Q", format=".3f")],
        )
    )
    claim = (
        alt.Chart(frame).mark_rule(strokeDash=[6, 4], color="firebrick").encode(y="mean(epsilon):Q")
    )
    return lines + claim


# ---------------------------------------------------------------------------------- accuracy
def accuracy_chart(
    frame: pd.DataFrame,
    *,
    x: str = "epsilon",
    color: str | None = None,
    reference: float | pd.DataFrame | None = None,
    highlight: float | None = None,
    log_x: bool = True,
    title: str = "Accuracy",
    width: int = 420,
) -> alt.Chart:
    """Mean accuracy against ``x`` with a band over repeats and a non-private reference line.

    Parameters
    ----------
    frame : DataFrame
        One row per run: ``x``, ``accuracy`` (and ``color`` if given).
    x : str
        The swept parameter (ε, depth, trees, ...).
    color : str, optional
        Column distinguishing lines (e.g. the algorithm).
    reference : float or DataFrame, optional
        Non-private accuracy: a number (one dashed rule) or a frame with
        ``accuracy`` (and ``color``) columns.
    highlight : float, optional
        Mark this ``x`` (the slider's current value) with a vertical rule.
    log_x : bool
        Log-scale x axis (for ε).
    title : str
        Chart title.
    width : int
        Chart width in pixels.

    Returns
    -------
    altair.Chart
        Line of the mean, band from the 10th to 90th percentile (min–max with few
        repeats), dashed reference, optional highlight.
    """
    keys = [x] + ([color] if color else [])
    summary = (
        frame.groupby(keys)["accuracy"]
        .agg(
            mean="mean", low=lambda s: s.quantile(0.1), high=lambda s: s.quantile(0.9), runs="size"
        )
        .reset_index()
    )
    scale = alt.Scale(type="log") if log_x else alt.Scale(zero=False)
    enc_color = alt.Color(f"{color}:N") if color else alt.ColorValue("steelblue")
    base = alt.Chart(summary, title=title, width=width)
    band = base.mark_area(opacity=0.25).encode(
        x=alt.X(f"{x}:Q", scale=scale, title=x),
        y=alt.Y("low:Q", title="accuracy", scale=alt.Scale(zero=False)),
        y2=alt.Y2("high:Q"),
        color=enc_color,
    )
    line = base.mark_line(point=True).encode(
        x=alt.X(f"{x}:Q"),
        y=alt.Y("mean:Q"),
        color=enc_color,
        tooltip=[
            *(alt.Tooltip(f"{k}:{'N' if k == color else 'Q'}") for k in keys),
            alt.Tooltip("mean:Q", format=".3f"),
            alt.Tooltip("runs:Q"),
        ],
    )
    layers: list[alt.Chart] = [band, line]
    if reference is not None:
        ref = (
            pd.DataFrame({"accuracy": [float(reference)], "label": ["non-private"]})
            if not isinstance(reference, pd.DataFrame)
            else reference.assign(label="non-private")
        )
        layers.append(
            alt.Chart(ref)
            .mark_rule(strokeDash=[6, 4], color="gray")
            .encode(
                y=alt.Y("accuracy:Q"),
                tooltip=[alt.Tooltip("label:N"), alt.Tooltip("accuracy:Q", format=".3f")],
            )
        )
    if highlight is not None:
        layers.append(
            alt.Chart(pd.DataFrame({x: [highlight]}))
            .mark_rule(color="firebrick")
            .encode(x=alt.X(f"{x}:Q"))
        )
    return alt.layer(*layers)
