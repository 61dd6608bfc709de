"""Explorers: ipywidgets controls on top, the chart of a plain callback below.

The callback takes the control values and returns an altair chart (unit-tested over a grid
of values); :func:`explorer` re-runs it and replaces the chart whenever a control moves.
"""

from __future__ import annotations

import asyncio
import importlib
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import altair as alt
import ipywidgets as widgets
from IPython.display import display

from dpviz.errors import DataUnavailableError

C = TypeVar("C", bound=Callable[..., Any])

#: Smallest width of a slider (pixels): squeezed to ~30 px by a row of controls, a 20 px
#: drag of the log ε slider spanned a decade.
SLIDER_MIN_WIDTH = 320
#: Smallest width of a drop-down (pixels): the row of controls wraps instead.
DROPDOWN_MIN_WIDTH = 220
#: The status line while the callback runs, and when it raised (the error shows below).
BUSY = "<small>computing…</small>"
FAILED = "<small>not updated: see the error below</small>"

__all__ = [
    "BUSY", "DROPDOWN_MIN_WIDTH", "FAILED", "SLIDER_MIN_WIDTH", "choice_dropdown", "depth_slider",
    "epsilon_slider", "explorer", "fits_on_move", "int_slider", "selection_slider",
    "trees_slider",
]


def _layout(min_width: int) -> widgets.Layout:
    """Never narrower than ``min_width`` pixels, and not shrunk by a row."""
    return widgets.Layout(min_width=f"{min_width}px", flex="0 0 auto")


def epsilon_slider(
    value: float = 1.0, *, low: float = 0.01, high: float = 10.0, description: str = "ε"
) -> widgets.FloatLogSlider:
    """A log-scale slider for ε from ``low`` to ``high``."""
    return widgets.FloatLogSlider(
        value=value, base=10, min=math.log10(low), max=math.log10(high), step=0.05,
        description=description, readout_format=".3g", continuous_update=False,
        layout=_layout(SLIDER_MIN_WIDTH),
    )


def int_slider(value: int, low: int, high: int, description: str) -> widgets.IntSlider:
    """An integer slider that updates when released."""
    return widgets.IntSlider(value=value, min=low, max=high, description=description,
                             continuous_update=False, layout=_layout(SLIDER_MIN_WIDTH))


def selection_slider(
    options: Sequence[tuple[str, Any]], value: Any, description: str
) -> widgets.SelectionSlider:
    """A slider over ``(label, value)`` options that updates when released."""
    return widgets.SelectionSlider(options=list(options), value=value, description=description,
                                   continuous_update=False, layout=_layout(SLIDER_MIN_WIDTH))


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
    return widgets.Dropdown(options=list(options), value=value or options[0],
                            description=description, layout=_layout(DROPDOWN_MIN_WIDTH))


#: The attribute :func:`fits_on_move` sets on a callback: the modules a move may import.
WARM_UP = "dpviz_warm_up"


def fits_on_move(*modules: str) -> Callable[[C], C]:
    """Declare that a move of an explorer callback may fit an estimator defined in ``modules``.

    A fit imports the estimator's module, with scikit-learn and SciPy: about a second of CPU.
    In a kernel :func:`explorer` imports the declared modules right after its cell
    (:func:`_warm_up_soon`), so that the first move that fits does not wait for them. A callback
    that declares none (it draws without fitting, or reads shipped results only) spares every
    page that import.
    """
    def declare(callback: C) -> C:
        setattr(callback, WARM_UP, modules)
        return callback

    return declare


def _import_estimators(modules: Sequence[str]) -> None:
    """Import what a fit needs: the estimators' ``modules``, with scikit-learn and SciPy."""
    for module in modules:
        importlib.import_module(module)


def _warm_up_soon(modules: Sequence[str]) -> None:
    """In a kernel, import ``modules`` once the cell has run and its chart is out.

    A notebook's first chart reads shipped results without them; the first move that fits
    does not wait for them. Nothing to do without ``modules``.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no kernel's event loop (a script, the tests): nothing to warm
        return
    if modules:
        loop.call_soon(_import_estimators, modules)


def explorer(
    callback: Callable[..., alt.TopLevelMixin],
    controls: dict[str, widgets.ValueWidget],
    *,
    show_time: bool = True,
) -> widgets.VBox:
    """Controls (a wrapping row), a status line and ``callback(**values)``'s chart, kept current.

    One move, one run of the callback: a control whose observer resets others (a data-set
    picker setting the depth to the data set's default; registered before the explorer's, so
    build the controls first) holds their notifications while it sets them
    (``hold_trait_notifications``); the first notification after the reset runs the callback
    with every value set, the others find the values drawn and return.
    While the callback runs the status says :data:`BUSY`, and it runs inside the chart's
    output area, so a progress bar it draws shows where the chart will appear and an
    exception replaces the chart. ``show_time`` reports how long the last update took.
    Missing data on the first call raises (the cell says why: :mod:`dpviz.ui.kernel`). In a
    kernel, the modules a move may fit with (:func:`fits_on_move`) are imported right after
    the cell (:func:`_warm_up_soon`).
    """
    output = widgets.Output()
    status = widgets.HTML()
    drawn: list[dict[str, Any]] = []  # the values of the last run of the callback

    def refresh(_: Any = None, *, first: bool = False) -> None:
        values = {name: w.value for name, w in controls.items()}
        if drawn and drawn[-1] == values:
            return  # one move, several notifications: a reset of other controls, then its own
        drawn[:] = [values]
        start = time.perf_counter()
        status.value = BUSY
        chart = missing = None
        with output:  # in a kernel, an exception is shown here (and not raised)
            try:
                chart = callback(**values)
            except DataUnavailableError as error:
                missing = error
        if missing is not None and first:
            raise missing
        if first and chart is not None:
            # into the widget's state, not through output capture: Voilà can stall for good
            # capturing it while the cell runs (voila-dashboards/voila#1428)
            output.append_display_data(chart)
        elif not first and (chart is not None or missing is not None):
            with output:
                output.clear_output(wait=True)
                if missing is None:
                    display(chart)
                else:
                    print(missing)
        ms = 1000 * (time.perf_counter() - start)
        status.value = (FAILED if chart is None else
                        f"<small>updated in {ms:.0f} ms</small>" if show_time else "")

    for w in controls.values():
        w.observe(refresh, names="value")
    refresh(first=True)
    _warm_up_soon(getattr(callback, WARM_UP, ()))
    row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
    return widgets.VBox([row, status, output])
