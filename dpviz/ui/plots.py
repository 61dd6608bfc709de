"""Altair chart builders of the notebooks: each returns a chart built from a tidy DataFrame.

Charts are Vega-Lite 5 (altair >= 5.5, < 6). The notebooks draw them with the ``"dpviz"``
renderer registered here: altair's ``"mimetype"`` output plus a one-pixel ``image/png``
placeholder, without which JupyterLab's Vega renderer calls ``model.setData`` to store a PNG,
which Voilà's outputs lack ("e.setData is not a function").
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import altair as alt
import numpy as np
import pandas as pd
from altair.vegalite.v5.display import VEGALITE_MIME_TYPE

from dpviz.errors import InvalidParameterError

if TYPE_CHECKING:
    from dpviz.audit.engine import AuditResult
    from dpviz.privacy import Ledger

__all__ = [
    "PLACEHOLDER_PNG", "accuracy_chart", "audit_histogram_chart", "colours", "epsilon_bound_chart",
    "ledger_chart", "log_axis", "log_ticks", "noisy_counts_chart", "privacy_loss_chart",
    "render_chart",
]

#: A transparent 1 × 1 PNG (base64): see the module docstring.
PLACEHOLDER_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII="
)
#: The Vega-Lite version of JupyterLab's (and Voilà's) renderer; every chart here is valid
#: 5.6.1 (tests/test_vega_lite_version.py), and altair's newer schema makes the console warn.
RENDERER_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.6.1.json"


#: Vega's tableau10 without its grey, then tableau20's paler partners of the same hues.
_CATEGORY = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2",
             "#ff9da6", "#9d755d", "#9ecae9", "#ffbf79", "#ff9d98", "#88d27a", "#79706e",
             "#d6a5c9", "#fcbfd2", "#d8b5a5", "#bcbd22")
#: The golden angle (degrees): hue steps that never repeat a hue.
_GOLDEN_ANGLE = 137.508


def colours(k: int) -> list[str]:
    """``k`` distinct colours for ``k`` categories: tableau10, its paler partners, then hues.

    Past the 18 named ones, HSL hues a golden angle apart (lightness alternating 45 %/65 %):
    a scale for any number of learners, the first ones as Vega-Lite draws them.
    """
    if k < 0:
        raise InvalidParameterError(f"k must be at least 0, got {k!r}")
    extra = [f"hsl({(i * _GOLDEN_ANGLE) % 360:.0f}, 60%, {45 + 20 * (i % 2)}%)"
             for i in range(max(k - len(_CATEGORY), 0))]
    return [*_CATEGORY, *extra][:k]


def render_chart(spec: dict, **metadata: object) -> tuple[dict, dict]:
    """The ``"dpviz"`` altair renderer: Vega-Lite JSON, a PNG placeholder and a text line."""
    data = {
        VEGALITE_MIME_TYPE: {**spec, "$schema": RENDERER_SCHEMA},
        "image/png": PLACEHOLDER_PNG,
        "text/plain": "<altair chart: run the notebook to see it>",
    }
    return data, ({VEGALITE_MIME_TYPE: metadata} if metadata else {})


alt.renderers.register("dpviz", render_chart)


def log_ticks(low: float, high: float, *, max_ticks: int = 6) -> list[float]:
    """At most ``max_ticks`` increasing log-axis ticks over [low, high] that do not run together.

    The 1-2-5 steps of the decades around the range if they fit, else the powers of ten
    (every k-th one if needed); Vega's default labels 1..9 of every decade.
    """
    if not (math.isfinite(low) and math.isfinite(high) and 0 < low <= high):
        raise InvalidParameterError(
            f"a log axis needs 0 < low <= high (finite), got low={low!r}, high={high!r}"
        )
    if max_ticks < 1:
        raise InvalidParameterError(f"max_ticks must be at least 1, got {max_ticks!r}")
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    ticks: list[float] = []
    for mantissas in ((1, 2, 5), (1,)):
        ticks = [float(f"{m}e{e}") for e in range(first, last + 1) for m in mantissas]
        ticks = [t for t in ticks if 10.0**first <= t <= 10.0**last]
        if len(ticks) <= max_ticks:
            return ticks
    return ticks[:: math.ceil(len(ticks) / max_ticks)]


def log_axis(values: Sequence[float] | np.ndarray | pd.Series, *, fmt: str = "~g") -> alt.Axis:
    """A log axis (d3 format ``fmt``) with :func:`log_ticks` over the positive finite ``values``."""
    array = np.asarray(values, dtype=float)
    array = array[np.isfinite(array) & (array > 0)]
    if array.size == 0:
        return alt.Axis(format=fmt, labelOverlap=True)
    ticks = log_ticks(float(array.min()), float(array.max()))
    return alt.Axis(values=ticks, format=fmt, labelOverlap=True)


def ledger_chart(ledger: Ledger, *, by: str = "label", width: int = 420) -> alt.Chart:
    """Bars of the ε each group of queries charged to the total, coloured by mechanism.

    ``by`` is ``"label"``, ``"mechanism"``, ``"depth"`` or ``"path"``. Queries inside a
    partition are charged the maximum over the parts, so a group may charge nothing.
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
    )
    title = f"Budget spent: {ledger.spent:.3g} of ε = {ledger.total:.3g} ({len(frame)} queries)"
    return alt.Chart(grouped, title=title, width=width).mark_bar().encode(
        x=alt.X("sum(charged):Q", title="ε charged to the total"),
        y=alt.Y(f"{by}:N", sort=None, title=by),
        color=alt.Color("mechanism:N", title="mechanism"),
        tooltip=[by, "mechanism", "queries", alt.Tooltip("charged:Q", format=".4g"),
                 alt.Tooltip("epsilon:Q", title="largest query ε", format=".4g")],
    )


def noisy_counts_chart(
    labels: Sequence[Hashable], true_counts: Sequence[float] | np.ndarray,
    noisy_counts: Sequence[float] | np.ndarray, *, title: str = "True and noisy counts",
    width: int = 360,
) -> alt.Chart:
    """Grouped bars of the true and the noisy count of each label (for teaching only)."""
    true_counts = np.asarray(true_counts, dtype=float)
    noisy_counts = np.asarray(noisy_counts, dtype=float)
    labels = [str(v) for v in labels]
    if not (len(labels) == true_counts.size == noisy_counts.size):
        raise InvalidParameterError(
            f"labels, true_counts and noisy_counts must have the same length, got "
            f"{len(labels)}, {true_counts.size}, {noisy_counts.size}"
        )
    frame = pd.DataFrame({
        "label": labels * 2,
        "count": np.concatenate([true_counts, noisy_counts]),
        "release": ["true"] * len(labels) + ["noisy"] * len(labels),
    })
    return alt.Chart(frame, title=title, width=width).mark_bar().encode(
        x=alt.X("label:N", sort=labels, title=None),
        xOffset=alt.XOffset("release:N", sort=["true", "noisy"]),
        y=alt.Y("count:Q", title="count"),
        color=alt.Color("release:N", sort=["true", "noisy"], title=None),
        tooltip=["label", "release", alt.Tooltip("count:Q", format=".0f")],
    )


def audit_histogram_chart(result: AuditResult, *, width: int = 300) -> alt.Chart:
    """Bars of P[M(D) ∈ E] and P[M(D′) ∈ E] with their Clopper–Pearson intervals."""
    base = alt.Chart(result.to_frame(), title=f"P[output ∈ {result.event}]", width=width)
    bars = base.mark_bar().encode(
        x=alt.X("neighbour:N", title=None, axis=alt.Axis(labelAngle=0)),  # D and D′ upright
        y=alt.Y("estimate:Q", title="probability"),
        color=alt.Color("neighbour:N", legend=None),
        tooltip=["neighbour", alt.Tooltip("estimate:Q", format=".4g"), "count", "n"],
    )
    errors = base.mark_errorbar(ticks=True).encode(
        x="neighbour:N", y=alt.Y("low:Q", title="probability"), y2="high:Q"
    )
    return bars + errors


def privacy_loss_chart(
    result: AuditResult, *, exact: pd.DataFrame | None = None, width: int = 460
) -> alt.Chart:
    """The loss log P[M(D) ∈ E] / P[M(D′) ∈ E] of every event, a 95% band, ±ε, ``exact``'s line."""
    from dpviz.audit.engine import clopper_pearson  # SciPy: not for the charts that need none

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
    frame = pd.DataFrame({
        "event": table["event"],
        "order": np.arange(len(table)),
        "log_ratio": point,
        "low": np.clip(low, -cap, cap),
        "high": np.clip(high, -cap, cap),
    })
    base = alt.Chart(frame, width=width, title="Privacy loss per event: log P[D] / P[D′]")
    x = alt.X("order:O", title="event", axis=alt.Axis(labels=False, ticks=False))
    band = base.mark_rule(opacity=0.4).encode(x=x, y=alt.Y("low:Q", title="log-ratio"), y2="high:Q")
    points = base.mark_point(filled=True).encode(
        x=x, y="log_ratio:Q", tooltip=["event", alt.Tooltip("log_ratio:Q", format=".3f")]
    )
    layers = [band, points]
    if np.isfinite(result.epsilon):
        lines = pd.DataFrame({"y": [result.epsilon, -result.epsilon], "label": ["+ε", "−ε"]})
        layers.append(alt.Chart(lines).mark_rule(strokeDash=[6, 4], color="firebrick")
                      .encode(y="y:Q", tooltip=["label"]))
    if exact is not None:
        merged = frame.merge(exact, on="event", how="inner")
        layers.append(alt.Chart(merged).mark_line(color="black").encode(x=x, y="loss:Q"))
    return alt.layer(*layers)


def epsilon_bound_chart(frame: pd.DataFrame, *, width: int = 420) -> alt.Chart:
    """The audit's ε lower bound against the samples, per mechanism, with the claim dashed.

    ``frame`` has columns ``mechanism``, ``n_samples``, ``epsilon_lower`` and ``epsilon``
    (e.g. from :func:`dpviz.audit.engine.bound_vs_samples`).
    """
    sizes = sorted(pd.unique(frame["n_samples"]))
    axis = (
        alt.Axis(values=[float(v) for v in sizes], format="~s", labelOverlap=True)
        if len(sizes) <= 6
        else log_axis(frame["n_samples"], fmt="~s")
    )
    longest = max((len(str(v)) for v in pd.unique(frame["mechanism"])), default=0)
    # Vega's default labelLimit (160 px) cuts long mechanism names: ~0.65 em a character
    legend = alt.Legend(orient="bottom", direction="vertical", columns=1,
                        labelLimit=max(160, math.ceil(0.65 * 11 * longest) + 10), title=None)
    lines = alt.Chart(frame, width=width, title="Lower bound on ε as the audit grows").mark_line(
        point=True
    ).encode(
        x=alt.X("n_samples:Q", scale=alt.Scale(type="log"), axis=axis,
                title="samples per neighbour"),
        y=alt.Y("epsilon_lower:Q", title="ε lower bound (95%)"),
        color=alt.Color("mechanism:N", legend=legend),
        tooltip=["mechanism", "n_samples", alt.Tooltip("epsilon_lower:Q", format=".3f")],
    )
    claim = alt.Chart(frame).mark_rule(strokeDash=[6, 4], color="firebrick").encode(
        y="mean(epsilon):Q"
    )
    return lines + claim


def accuracy_chart(
    frame: pd.DataFrame, *, x: str = "epsilon", color: str | None = None,
    reference: float | pd.DataFrame | None = None, highlight: float | None = None,
    log_x: bool = True, title: str = "Accuracy", width: int = 420, x_title: str | None = None,
    band_opacity: float = 0.25, color_scale: alt.Scale | None = None,
) -> alt.Chart:
    """Mean accuracy against ``x``, a 10–90th percentile band over repeats, a reference line.

    ``frame`` has one row per run (``x``, ``accuracy``, and the ``color`` column that tells
    lines apart); ``reference``: the non-private accuracy, a number or a frame with
    ``accuracy`` (and ``color``); ``highlight``: the slider's ``x``, marked by a rule;
    ``color_scale``: the colours of ``color``'s values (Vega-Lite's scheme by default).
    """
    keys = [x] + ([color] if color else [])
    summary = (
        frame.groupby(keys)["accuracy"]
        .agg(mean="mean", low=lambda s: s.quantile(0.1), high=lambda s: s.quantile(0.9),
             runs="size")
        .reset_index()
    )
    scale = alt.Scale(type="log") if log_x else alt.Scale(zero=False)
    shown = [*summary[x]] + ([] if highlight is None else [highlight])
    axis = log_axis(shown) if log_x else alt.Axis(labelOverlap=True)
    enc_color = (alt.Color(f"{color}:N", **({"scale": color_scale} if color_scale else {}))
                 if color else alt.ColorValue("steelblue"))
    base = alt.Chart(summary, title=title, width=width)
    band = base.mark_area(opacity=band_opacity).encode(
        x=alt.X(f"{x}:Q", scale=scale, axis=axis, title=x if x_title is None else x_title),
        y=alt.Y("low:Q", title="accuracy", scale=alt.Scale(zero=False)),
        y2=alt.Y2("high:Q"),
        color=enc_color,
    )
    line = base.mark_line(point=True).encode(
        x=alt.X(f"{x}:Q"),
        y=alt.Y("mean:Q"),
        color=enc_color,
        tooltip=[*(alt.Tooltip(f"{k}:{'N' if k == color else 'Q'}") for k in keys),
                 alt.Tooltip("mean:Q", format=".3f"), alt.Tooltip("runs:Q")],
    )
    layers: list[alt.Chart] = [band, line]
    if reference is not None:
        ref = (
            reference.assign(label="non-private") if isinstance(reference, pd.DataFrame)
            else pd.DataFrame({"accuracy": [float(reference)], "label": ["non-private"]})
        )
        layers.append(alt.Chart(ref).mark_rule(strokeDash=[6, 4], color="gray").encode(
            y=alt.Y("accuracy:Q"),
            tooltip=[alt.Tooltip("label:N"), alt.Tooltip("accuracy:Q", format=".3f")],
        ))
    if highlight is not None:
        layers.append(alt.Chart(pd.DataFrame({x: [highlight]})).mark_rule(color="firebrick")
                      .encode(x=alt.X(f"{x}:Q")))
    return alt.layer(*layers)
