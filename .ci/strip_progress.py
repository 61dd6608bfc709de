"""Tidy the widget outputs of committed notebooks (run by ``make strip`` after nbstripout).

* Transient progress bars (tqdm widgets) are dropped, and so is any widget output outside
  cells tagged ``nbval-ignore-output``:
  a notebook executed with an empty result cache shows them, and without widget state they
  would read as raw text (the hygiene test refuses widget outputs outside those cells).
* An explorer's output (a widget view, kept in ``nbval-ignore-output`` cells) keeps its
  place, but its plain-text fallback — what a reader of the unrun notebook sees, e.g.
  ``VBox(children=(HBox(children=(Dropdown(...`` — becomes a sentence saying how to get
  the explorer.

Usage: ``python .ci/strip_progress.py NOTEBOOK...``.
"""

import sys

import nbformat

WIDGET = "application/vnd.jupyter.widget-view+json"
HINT = "[Interactive explorer: run this cell (or Run All) to show it.]"


def _progress_bar(output: dict) -> bool:
    """A tqdm widget (its text fallback reads like ``desc:  40%|####  | 2/5``)."""
    data = output.get("data", {})
    return WIDGET in data and "%|" in str(data.get("text/plain", ""))


def strip(path: str) -> int:
    """Tidy the widget outputs of ``path`` in place; return how many outputs changed."""
    nb = nbformat.read(path, as_version=4)
    changed = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        if "nbval-ignore-output" not in cell.get("metadata", {}).get("tags", []):
            kept = [o for o in outputs if WIDGET not in o.get("data", {})]
            changed += len(outputs) - len(kept)
            cell.outputs = kept
            continue
        kept = [o for o in outputs if not _progress_bar(o)]
        changed += len(outputs) - len(kept)
        cell.outputs = kept
        for out in kept:
            data = out.get("data", {})
            if WIDGET in data and data.get("text/plain") != HINT:
                data["text/plain"] = HINT
                changed += 1
    if changed:
        nbformat.write(nb, path)
    return changed


if __name__ == "__main__":
    for notebook in sys.argv[1:]:
        n = strip(notebook)
        if n:
            print(f"{notebook}: tidied {n} widget output(s)")
