"""Interactive explorers for the notebooks: sliders on top, a live altair chart below.

An explorer is a *callback* — a plain library function taking the slider values
and returning an altair chart (tested over a grid of values in the unit tests,
since a notebook run only exercises a slider's first value) — wired to
ipywidgets controls by :func:`explorer`. Moving a control re-runs the callback
and replaces the chart.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import ipywidgets as widgets
from IPython.display import display

from dpviz.errors import DataUnavailableError

#: Smallest width of a slider (pixels): squeezed by a row of controls to ~30 px in JupyterLab,
#: a 20 px drag of the log ε slider jumped from ε = 0.708 to 0.089.
SLIDER_MIN_WIDTH = 320

#: Smallest width of a drop-down (pixels), so that the row of controls wraps instead.
DROPDOWN_MIN_WIDTH = 220

#: The status line of an explorer while its callback runs (see :func:`explorer`).
BUSY = "<small>computing…</small>"
#: The status line when the callback raised (the error is shown below it).
FAILED = "<small>not updated: see the error below</small>"

__all__ = [
    "BUSY",
    "DROPDOWN_MIN_WIDTH",
    "FAILED",
    "SLIDER_MIN_WIDTH",
    "choice_dropdown",
    "depth_slider",
    "epsilon_slider",
    "explorer",
    "int_slider",
    "selection_slider",
    "trees_slider",
]


def _layout(min_width: int) -> widgets.Layout:
    """A control's layout: never narrower than ``min_width`` pixels, and not shrunk by a row."""
    return widgets.Layout(min_width=f"{min_width}px", flex="0 0 auto")


def epsilon_slider(
    value: float = 1.0, *, low: float = 0.01, high: float = 10.0, description: str = "ε"
) -> widgets.FloatLogSlider:
    """A log-scale slider for the privacy budget ε (from ``low`` to ``high``).

    At least :data:`SLIDER_MIN_WIDTH` pixels wide, so that a row of controls cannot squeeze it
    (on a narrow slider a small drag spans a decade of ε).
    """
    return widgets.FloatLogSlider(
        value=value,
        base=10,
        min=math.log10(low),
        max=math.log10(high),
        step=0.05,
        description=description,
        readout_format=".3g",
        continuous_update=False,
        layout=_layout(SLIDER_MIN_WIDTH),
    )


def int_slider(value: int, low: int, high: int, description: str) -> widgets.IntSlider:
    """An integer slider that updates when released (at least :data:`SLIDER_MIN_WIDTH` px)."""
    return widgets.IntSlider(
        value=value,
        min=low,
        max=high,
        description=description,
        continuous_update=False,
        layout=_layout(SLIDER_MIN_WIDTH),
    )


def selection_slider(
    options: Sequence[tuple[str, Any]], value: Any, description: str
) -> widgets.SelectionSlider:
    """A slider over ``(label, value)`` options, updating when released (min. width as above)."""
    return widgets.SelectionSlider(
        options=list(options),
        value=value,
        description=description,
        continuous_update=False,
        layout=_layout(SLIDER_MIN_WIDTH),
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
    """A data-set (or option) picker (at least :data:`DROPDOWN_MIN_WIDTH` pixels wide)."""
    return widgets.Dropdown(
        options=list(options),
        value=value or options[0],
        description=description,
        layout=_layout(DROPDOWN_MIN_WIDTH),
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
        Show how long the last update took (the workbook aims at < 1 s for every move).

    Returns
    -------
    ipywidgets.VBox
        Display it (it is the last expression of a cell). The controls sit in a row that
        wraps onto more lines when they do not fit, rather than squeezing them.

    Notes
    -----
    While the callback runs, the status line says :data:`BUSY` (sent to the page at
    once, so a long update shows that it is under way) and the callback runs inside the
    chart's output area, so a progress bar it draws (say, a data set's grid computed on
    first pick) shows where the chart will appear; the chart then replaces it. An
    exception is shown there too, in place of the chart.
    """
    output = widgets.Output()
    status = widgets.HTML()

    def refresh(_: Any = None, *, first: bool = False) -> None:
        start = time.perf_counter()
        status.value = BUSY
        drawn, missing = False, None
        with output:  # in a kernel, an exception is shown here (and not raised)
            try:
                chart = callback(**{name: w.value for name, w in controls.items()})
            except DataUnavailableError as error:
                missing = error
            else:
                if not first:
                    output.clear_output(wait=True)
                    display(chart)
                drawn = True
        if missing is not None:
            if first:  # no explorer without its data: the cell says why (dpviz.ui.kernel)
                raise missing
            with output:
                output.clear_output(wait=True)
                print(missing)
        if drawn and first:
            # The first chart goes into the widget's state, not through output capture while
            # the cell runs: Voilà can stall for good capturing it (voila-dashboards/voila#1428).
            output.append_display_data(chart)
        if not drawn:
            status.value = FAILED
        elif show_time:
            status.value = (
                f"<small>updated in {1000 * (time.perf_counter() - start):.0f} ms</small>"
            )
        else:
            status.value = ""

    for w in controls.values():
        w.observe(refresh, names="value")
    refresh(first=True)
    row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
    return widgets.VBox([row, status, output])
