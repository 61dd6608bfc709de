"""The kernel hook: a missing data file stops a cell quietly, with one message per kernel.

The first cell that lacks the UCI files says what is missing and where dpviz looked; later
cells that need them stop with a one-line note and end without an error, so that Run All and
Voilà go on to the cells that need no data. A cell needs them when it raises the missing-data
error, or a NameError for a name that a cell stopped so would have set (and then its own
names join those). Any other error — a typo, a NameError for anything else, an
UnboundLocalError — shows its usual traceback.
"""

from __future__ import annotations

import ast
import html
import os
import sys
from types import TracebackType
from typing import Any

from dpviz.errors import DataUnavailableError

#: The message of the first missing-data error of this kernel (empty: none yet).
_first_message: list[str] = []
#: The global names the cells stopped by missing data would have set.
_skipped_names: set[str] = set()


def assigned_names(source: str) -> set[str]:
    """The global names Python code binds: assignments, imports, defs, loops, ``with``, ``as``.

    Also those of the code given to IPython's magics (``%time x = f()``, as IPython turns it
    into Python); not the names local to a function, class, lambda or comprehension; empty
    if it does not parse.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(child.name)  # the body binds the function's (class's) own names
            elif isinstance(child, ast.Import | ast.ImportFrom):
                names.update(a.asname or a.name.split(".")[0] for a in child.names
                             if a.name != "*")
            elif isinstance(child, ast.comprehension):  # its target is its own
                for part in (child.iter, *child.ifs):
                    visit(part)
            elif not isinstance(child, ast.Lambda):
                if (code := _magic_code(child)) is not None:
                    names.update(assigned_names(code))
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                    names.add(child.id)
                name = getattr(child, "name", None) or getattr(child, "rest", None)
                if isinstance(child, ast.ExceptHandler | ast.MatchAs | ast.MatchStar
                              | ast.MatchMapping) and name:
                    names.add(name)
                visit(child)

    visit(tree)
    return names


def _magic_code(node: ast.AST) -> str | None:
    """The code of ``get_ipython().run_line_magic(name, code)`` (``run_cell_magic``: its body)."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run_line_magic", "run_cell_magic") and node.args
            and isinstance(node.args[-1], ast.Constant) and isinstance(node.args[-1].value, str)):
        return node.args[-1].value
    return None


def _cell_names(shell: Any) -> set[str]:
    """The names the running cell binds (its source from the execution, else ``In[-1]``)."""
    result = getattr(shell.displayhook, "exec_result", None)
    raw = getattr(getattr(result, "info", None), "raw_cell", None)
    if raw is None:
        history = shell.user_ns.get("In") or [""]
        return assigned_names(history[-1])  # already transformed to Python
    try:
        return assigned_names(shell.transform_cell(raw))  # magics to Python
    except Exception:  # an input transformer that fails: the cell binds nothing we know of
        return set()


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
        issubclass(etype, NameError) and not issubclass(etype, UnboundLocalError)
        and getattr(value, "name", None) in _skipped_names  # a name a skipped cell never set
    )
    if not quiet:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return
    _skipped_names.update(_cell_names(shell))  # what this cell would have set
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


def in_app(environ: Any = None) -> bool:
    """True in a kernel that Voilà started (an app: code hidden, no cell a reader can type in).

    Voilà sets ``SERVER_SOFTWARE=voila/<version>`` for a page's kernel and ``VOILA_PREHEAT``
    for every kernel it starts, those of a pre-heated pool (``make room``) too; JupyterLab sets
    neither.
    """
    env = os.environ if environ is None else environ
    return (str(env.get("SERVER_SOFTWARE", "")).startswith("voila/")
            or "VOILA_PREHEAT" in env)
