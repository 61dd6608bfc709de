"""The four papers' pseudocode as short, eager Python that a student reads beside the paper.

One module per paper; each function is named after the paper's procedure, uses the
paper's variable names, works eagerly and recursively on small domains, and cites the
figure or algorithm it transcribes. Tests check that, for the same seed and keys,
each gives exactly the outputs of the fast estimator in :mod:`dpviz.trees` (which
routes all rows level by level with numpy and materializes only visited leaves):
the fast code is an optimisation of this one, not a different algorithm.

* :mod:`~dpviz.pseudocode.jpw` — Jagannathan, Pillaipakkamnatt & Wright, Fig. 1, 2 and 5.
* :mod:`~dpviz.pseudocode.fs` — Friedman & Schuster, Algorithm 2 (DiffPID3) and SuLQ-ID3.
* :mod:`~dpviz.pseudocode.rdt_sharp` — Jagannathan, Monteleoni & Pillaipakkamnatt, RDT#.
* :mod:`~dpviz.pseudocode.fi` — Fletcher & Islam, Algorithm 1 (BuildForest).

:func:`show` displays a function's source in a notebook.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["show"]


#: Listings longer than this are shown collapsed (a click opens them): a Voilà page, which
#: hides code, must not open with screens of source before its first explorer.
OPEN_LINES = 15


def show(function: Callable[..., Any], *, collapsed: bool | None = None) -> Any:
    """The source of ``function`` as a highlighted code block for a notebook cell.

    Parameters
    ----------
    function : callable
        A function of :mod:`dpviz.pseudocode` (any function works).
    collapsed : bool, optional
        Show only a one-line summary that opens the listing on a click; default: when the
        source is longer than :data:`OPEN_LINES` lines.

    Returns
    -------
    IPython.display.HTML
        A ``<details>`` block (class ``dpviz-listing``) holding the source highlighted by
        pygments, with the plain source as its text form.
    """
    from IPython.display import HTML
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    source = inspect.getsource(function).rstrip()
    lines = source.count("\n") + 1
    if collapsed is None:
        collapsed = lines > OPEN_LINES
    code = highlight(source, PythonLexer(), HtmlFormatter(noclasses=True, nobackground=True))
    summary = f"<code>{function.__name__}</code> ({lines} lines of Python)"

    class Listing(HTML):
        def __repr__(self) -> str:  # the text form: the source itself
            return source

    return Listing(f'<details class="dpviz-listing"{"" if collapsed else " open"}>'
                   f'<summary style="cursor:pointer">{summary}</summary>{code}</details>')
