"""Drop transient progress-bar outputs (tqdm widgets) from committed notebooks.

A notebook executed with an empty result cache shows tqdm progress bars, which are
widget views: without widget state (stripped) they would show as raw text, and the
hygiene test refuses widget outputs outside NBVAL_IGNORE_OUTPUT cells. Run by
``make strip`` after nbstripout. Usage: ``python .ci/strip_progress.py NOTEBOOK...``.
"""

import sys

import nbformat

WIDGET = "application/vnd.jupyter.widget-view+json"


def strip(path: str) -> int:
    """Remove the widget outputs of ``path`` outside NBVAL_IGNORE_OUTPUT cells; return how many."""
    nb = nbformat.read(path, as_version=4)
    removed = 0
    for cell in nb.cells:
        if cell.cell_type != "code" or "NBVAL_IGNORE_OUTPUT" in cell.source:
            continue
        kept = [o for o in cell.get("outputs", []) if WIDGET not in o.get("data", {})]
        removed += len(cell.get("outputs", [])) - len(kept)
        cell.outputs = kept
    if removed:
        nbformat.write(nb, path)
    return removed


if __name__ == "__main__":
    for notebook in sys.argv[1:]:
        n = strip(notebook)
        if n:
            print(f"{notebook}: removed {n} progress-bar output(s)")
