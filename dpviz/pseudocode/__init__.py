"""The four papers' pseudocode as short, eager Python that a student reads beside the paper.

One module per paper, in the paper's names, with plain numpy randomness; every tree is built
in full (small domains only). Tests tie each to its fast estimator in :mod:`dpviz.trees`: JPW
and RDT# by replaying the fast path's draws, FS and FI by the same outputs for a seed or the
same output law (tests/test_pseudocode_*.py). :func:`show` prints a function's source;
:func:`printed` reads an algorithm as its paper prints it (``printed/*.txt``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from importlib.resources import files
from typing import Any

__all__ = ["printed", "show"]

#: Listings longer than this are shown collapsed, so a Voilà page does not open on source.
OPEN_LINES = 15


def show(function: Callable[..., Any]) -> Any:
    """The source of ``function``, highlighted in a ``<details>`` block (text form: the source)."""
    from IPython.display import HTML
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    source = inspect.getsource(function).rstrip()
    lines = source.count("\n") + 1
    code = highlight(source, PythonLexer(), HtmlFormatter(noclasses=True, nobackground=True))
    summary = f"<code>{function.__name__}</code> ({lines} lines of Python)"

    class Listing(HTML):
        def __repr__(self) -> str:  # the text form: the source itself
            return source

    return Listing(f'<details class="dpviz-listing"{"" if lines > OPEN_LINES else " open"}>'
                   f'<summary style="cursor:pointer">{summary}</summary>{code}</details>')


def printed(name: str) -> str:
    """The algorithm ``name`` as its paper prints it: ``printed/<name>.txt`` in this package."""
    text = files("dpviz.pseudocode").joinpath("printed", f"{name}.txt").read_text(encoding="utf-8")
    return text.rstrip("\n")
