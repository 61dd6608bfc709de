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


def show(function: Callable[..., Any]) -> Any:
    """The source of ``function`` as a highlighted code block for a notebook cell.

    Parameters
    ----------
    function : callable
        A function of :mod:`dpviz.pseudocode` (any function works).

    Returns
    -------
    IPython.display.Markdown
        A fenced Python block: syntax-highlighted in JupyterLab and Voilà, and stored
        in the notebook as the source text only.
    """
    from IPython.display import Markdown

    return Markdown(f"```python\n{inspect.getsource(function).rstrip()}\n```")
