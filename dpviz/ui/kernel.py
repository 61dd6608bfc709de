"""The kernel hook: a missing data file stops a cell quietly, with one message per kernel.

The first cell that lacks the UCI files says what is missing and where dpviz looked; later
cells that need them stop with a one-line note and end without an error, so that Run All and
Voilà go on to the cells that need no data. Any other error shows its usual traceback.
"""

from __future__ import annotations

import html
import sys
from types import TracebackType
from typing import Any

from dpviz.errors import DataUnavailableError

#: The message of the first missing-data error of this kernel (empty: none yet).
_first_message: list[str] = []


def _note(message: str, first: bool) -> dict[str, str]:
    """The MIME bundle shown for a cell stopped by missing data."""
    if first:
        text = f"Data files missing — the cells that need them are skipped.\n{message}"
        lines = html.escape(message).replace("\n", "<br>")
        body = (f"<b>Data files missing</b> — the cells that need them are skipped; the others "
                f"still run.<br>{lines}")
        style = "border-left:4px solid #e0a800;background:#fff8e1;padding:6px 10px"
    else:
        text = "Skipped: this cell needs the data files (see the first message above)."
        body = html.escape(text)
        style = "color:#777;font-style:italic"
    return {"text/plain": text,
            "text/html": f'<div class="dpviz-data-missing" style="{style}">{body}</div>'}


def _handler(shell: Any, etype: type[BaseException], value: BaseException,
             tb: TracebackType | None, tb_offset: int | None = None) -> None:
    """IPython custom exception handler: quiet for missing data, the usual traceback otherwise."""
    quiet = issubclass(etype, DataUnavailableError) or (
        _first_message and issubclass(etype, NameError)  # a name the skipped cells never set
    )
    if not quiet:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return
    result = getattr(shell.displayhook, "exec_result", None)
    if result is not None:
        result.error_in_exec = None  # the cell ends without an error: Run All goes on
    first = not _first_message
    if first:
        _first_message.append(str(value))
    from IPython.display import display

    display(_note(str(value), first), raw=True)


def install() -> None:
    """Register the handler in the running IPython kernel (nothing outside IPython)."""
    if "IPython" not in sys.modules:
        return
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        shell.set_custom_exc((DataUnavailableError, NameError), _handler)
