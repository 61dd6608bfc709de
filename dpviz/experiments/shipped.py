"""Results shipped with the workbook: reproductions that take minutes, read from small files.

The notebooks' reproductions (JPW's cross-validation, FS Table 1, RDT#'s protocol, FI's
figures, the comparison grid) take minutes in full mode. A page must not wait for them, so
the workbook ships their results as small tidy CSV files in ``dpviz/results/``, one per
call, each beside a JSON file saying how it was made (the function and its arguments, the
code version, the date, the machine, how long it took). :func:`result` reads them by
default and recomputes on request:

* ``result(fi_figure4, datasets, n_rows=..., ...)`` returns the shipped frame when its
  recorded arguments equal the call's, and raises :class:`ShippedResultError` otherwise (a
  changed setting must not silently show an old result);
* with ``recompute=True`` (a notebook's ``RECOMPUTE`` flag) or ``DPVIZ_RECOMPUTE=1`` it
  runs the function itself, with a progress bar, bypassing the on-disk cache;
* ``make results`` re-runs every notebook with ``DPVIZ_RECOMPUTE=1 DPVIZ_SAVE_RESULTS=1``,
  which rewrites the files, so the shipped files are exactly what the notebooks ask for.

Privacy: these are accuracy experiments on the public UCI data sets; the files hold
summary statistics (means, standard deviations, counts of runs), not rows.
"""

from __future__ import annotations

import datetime
import hashlib
import inspect
import json
import math
import os
import platform
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from dpviz import __version__
from dpviz.errors import DPVizError

__all__ = [
    "RESULTS",
    "ShippedResultError",
    "library_digest",
    "provenance",
    "recompute_requested",
    "result",
    "result_path",
]

RESULTS = Path(__file__).resolve().parents[1] / "results"
PACKAGE = Path(__file__).resolve().parents[1]


class ShippedResultError(DPVizError, LookupError):
    """A shipped result is missing, or was made with other arguments than the call asks for."""


def recompute_requested() -> bool:
    """True when ``DPVIZ_RECOMPUTE=1``: reproductions run instead of reading shipped files."""
    return os.environ.get("DPVIZ_RECOMPUTE", "").strip().lower() in ("1", "true", "yes")


def _saving_requested() -> bool:
    return os.environ.get("DPVIZ_SAVE_RESULTS", "").strip() == "1"


def _jsonable(value: Any) -> Any:
    """Arguments as JSON: tuples become lists, ∞ and NaN strings, numpy scalars Python ones."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ShippedResultError(
        f"cannot record the argument {value!r} ({type(value).__name__}) of a shipped result: "
        "pass numbers, strings, or tuples of them"
    )


def _arguments(function: Callable[..., Any], args: tuple, kwargs: dict) -> dict:
    bound = inspect.signature(function).bind(*args, **kwargs)
    bound.apply_defaults()
    return _jsonable({k: v for k, v in bound.arguments.items() if k != "progress"})


def result_path(function: Callable[..., Any], *args: Any) -> Path:
    """The CSV file of a call: the function's name, then its string positional arguments.

    Strings, and tuples of strings, name the file: ``result_path(rdt_sharp_vs_epsilon,
    "mushroom", 0.02)`` is ``dpviz/results/rdt_sharp_vs_epsilon-mushroom.csv``;
    ``result_path(compare, ("votes",))`` is ``dpviz/results/compare-votes.csv``.
    """
    parts = [function.__name__]
    for a in args:
        if isinstance(a, str):
            parts.append(a)
        elif isinstance(a, (tuple, list)) and a and all(isinstance(v, str) for v in a):
            parts.extend(a)
    return RESULTS / ("-".join(parts) + ".csv")


def library_digest() -> str:
    """SHA-256 (12 hex digits) of the library's Python sources: changes when any algorithm does."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _git_commit() -> str:
    """The checkout's commit, with ``-dirty`` if tracked files other than the results differ."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=PACKAGE, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short=7", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                      ":(exclude,top)dpviz/results")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("-dirty" if changed else "")


def _save(path: Path, frame: pd.DataFrame, meta: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    back = _read_csv(path)
    pd.testing.assert_frame_equal(back, frame.reset_index(drop=True), check_exact=True,
                                  check_dtype=False)
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")


def _read_csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False,
                       na_values=["", "NaN", "nan"])


def _recompute(function: Callable[..., pd.DataFrame], args: tuple, kwargs: dict) -> pd.DataFrame:
    # past the on-disk cache: recompute means recompute
    run = getattr(function, "__wrapped__", function)
    if "progress" in inspect.signature(run).parameters:
        kwargs = {**kwargs, "progress": True}
    start = time.perf_counter()
    frame = run(*args, **kwargs)
    seconds = time.perf_counter() - start
    if not isinstance(frame, pd.DataFrame):
        raise ShippedResultError(
            f"{function.__name__} returned {type(frame).__name__}, not a DataFrame"
        )
    frame = frame.reset_index(drop=True)
    frame.attrs["provenance"] = {"recomputed": True, "seconds": round(seconds, 1)}
    if _saving_requested():
        meta = {
            "function": f"{run.__module__}.{run.__qualname__}",
            "arguments": _arguments(function, args, kwargs),
            "code_version": _git_commit(),
            "dpviz_version": __version__,
            "library_digest": library_digest(),
            "created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "seconds": round(seconds, 1),
            "machine": (
                f"{platform.machine()}, {os.cpu_count()} cores, "
                f"Python {platform.python_version()}"
            ),
            "command": "make results",
        }
        _save(result_path(function, *args), frame, meta)
        frame.attrs["provenance"] = meta
    return frame


def result(
    function: Callable[..., pd.DataFrame],
    /,
    *args: Any,
    recompute: bool | None = None,
    missing: str = "raise",
    **kwargs: Any,
) -> pd.DataFrame:
    """``function(*args, **kwargs)``'s shipped result, or a fresh run on request.

    Parameters
    ----------
    function
        A reproduction returning a tidy DataFrame (e.g. ``reproduce_fi.fi_figure4``).
    *args, **kwargs
        Its arguments (``progress`` is added when recomputing).
    recompute
        ``True`` runs ``function`` now (with a progress bar, bypassing the cache);
        ``None`` (default) does so only under ``DPVIZ_RECOMPUTE=1``; otherwise the shipped
        file is read.
    missing
        What to do when no file is shipped for this call: ``"raise"`` (the notebooks'
        reproductions, whose files must exist) or ``"compute"`` (an explorer's optional
        data set: computed now, with a progress bar, and saved under ``make results``).

    Returns
    -------
    pandas.DataFrame
        The result, with ``frame.attrs["provenance"]`` saying where it came from.

    Raises
    ------
    ShippedResultError
        No shipped file for this call, or one made with other arguments.
    """
    if recompute is None:
        recompute = recompute_requested()
    if recompute:
        return _recompute(function, args, kwargs)
    if missing not in ("raise", "compute"):
        raise ShippedResultError(f"missing must be 'raise' or 'compute', got {missing!r}")
    path = result_path(function, *args)
    if not path.exists() and missing == "compute":
        return _recompute(function, args, kwargs)
    if not path.exists():
        raise ShippedResultError(
            f"no shipped result for {function.__name__} ({path.name}): recompute it "
            "(RECOMPUTE = True in the notebook, or DPVIZ_RECOMPUTE=1) or regenerate the files "
            "(make results)"
        )
    meta = json.loads(path.with_suffix(".json").read_text())
    wanted = json.loads(json.dumps(_arguments(function, args, kwargs)))
    if meta["arguments"] != wanted:
        raise ShippedResultError(
            f"the shipped {path.name} was made with {meta['arguments']}, but this call asks for "
            f"{wanted}: recompute it (RECOMPUTE = True, or DPVIZ_RECOMPUTE=1) or regenerate the "
            "shipped files (make results)"
        )
    frame = _read_csv(path)
    frame.attrs["provenance"] = meta
    return frame


def provenance(frame: pd.DataFrame) -> str:
    """One line saying where a :func:`result` came from, for the notebook to print under it."""
    meta = frame.attrs.get("provenance", {})
    if meta.get("recomputed"):
        return f"Recomputed just now in {meta['seconds']:.0f} s."
    if "created" not in meta:
        return "Computed just now."
    changed = "" if meta["library_digest"] == library_digest() else " (library changed since)"
    return (f"Shipped result: `{meta['command']}`, dpviz {meta['code_version']}, "
            f"{meta['created'][:10]}.{changed}")
