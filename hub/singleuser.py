"""A student's server, as the hub starts it (as the student): the workbook, then Jupyter.

Copies into ~/dpviz-workbook each file of the workbook (build/student/, else notebooks/) that the
student does not have yet, never overwriting their work (a notebook they deleted comes back
as new), then runs jupyterhub-singleuser on this Python (the hub's HUB_PYTHON) with the
hub's arguments.
Everything the server and its kernels create is private to the student (umask 077).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from launch import WORKBOOK, workbook_source

#: not the students': the notebook tests' output masks (notebooks/nbval_sanitize.cfg)
SKIPPED = {"nbval_sanitize.cfg", "__pycache__"}


def copy_missing(source: Path, target: Path) -> list[Path]:
    """Copy each file of source that target lacks (hidden ones skipped); the files copied."""
    copied = []
    target.mkdir(exist_ok=True)
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if any(part.startswith(".") or part in SKIPPED for part in relative.parts):
            continue
        destination = target / relative
        if path.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
        elif not (destination.exists() or destination.is_symlink()):
            shutil.copyfile(path, destination)
            copied.append(relative)
    return copied


def main() -> None:
    """Copy what is missing, then become the Jupyter server."""
    os.umask(0o077)
    copy_missing(workbook_source(), Path.home() / WORKBOOK)
    os.execv(sys.executable, [sys.executable, "-m", "jupyterhub.singleuser", *sys.argv[1:]])


if __name__ == "__main__":
    main()
