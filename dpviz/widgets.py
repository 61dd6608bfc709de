"""Interactive explorers for the notebooks: sliders on top, a live altair chart below.

An explorer is a *callback* — a plain library function taking the slider values
and returning an altair chart (tested over a grid of values in the unit tests,
since a notebook run only exercises a slider's first value) — wired to
ipywidgets controls by :func:`explorer`. Moving a control re-runs the callback
and replaces the chart.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
from IPython.display import display

__all__ = [
    "choice_dropdown",
    "depth_slider",
    "epsilon_slider",
    "explorer",
    "int_slider",
    "trees_slider",
]


def epsilon_slider(
    value: float = 1.0, *, low: float = 0.01, high: float = 10.0, description: str = "ε"
) -> widgets.FloatLogSlider:
    """A log-scale slider for the privacy budget ε (from ``low`` to ``high``)."""
    import math

    return widgets.FloatLogSlider(
        value=value,
        base=10,
        min=math.log10(low),
        max=math.log10(high),
        step=0.05,
        description=description,
        readout_format=".3g",
        continuous_update=False,
    )


def int_slider(value: int, low: int, high: int, description: str) -> widgets.IntSlider:
    """An integer slider that updates when released."""
    return widgets.IntSlider(
        value=value, min=low, max=high, description=description, continuous_update=False
    )


def depth_slider(value: int = 4, high: int = 12) -> widgets.IntSlider:
    """Tree depth (height)."""
    return int_slider(value, 1, high, "depth")


def trees_slider(value: int = 10, high: int = 100) -> widgets.IntSlider:
    """Number of trees."""
    return int_slider(value, 1, high, "trees")


def choice_dropdown(
    options: Sequence[str], value: str | None = None, description: str = "data set"
) -> widgets.Dropdown:
    """A data-set (or option) picker."""
    return widgets.Dropdown(
        options=list(options), value=value or options[0], description=description
    )


def explorer(
    callback: Callable[..., alt.TopLevelMixin],
    controls: dict[str, widgets.ValueWidget],
    *,
    show_time: bool = True,
) -> widgets.VBox:
    """Wire ``controls`` to ``callback(**values)`` and show its chart, refreshed on every change.

    Parameters
    ----------
    callback : callable
        Returns an altair chart for the current control values.
    controls : dict name -> widget
        Keyword arguments of the callback.
    show_time : bool
        Show how long the last update took (the workbook aims at < 250 ms).

    Returns
    -------
    ipywidgets.VBox
        Display it (it is the last expression of a cell).
    """
    output = widgets.Output()
    status = widgets.HTML()

    def refresh(_: Any = None) -> None:
        start = time.perf_counter()
        chart = callback(**{name: w.value for name, w in controls.items()})
        output.clear_output(wait=True)
        with output:
            display(chart)
        if show_time:
            status.value = (
                f"<small>updated in {1000 * (time.perf_counter() - start):.0f} ms</small>"
            )

    for w in controls.values():
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([widgets.HBox(list(controls.values())), status, output])
