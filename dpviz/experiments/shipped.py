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

Integrity: each JSON records the SHA-256 of its CSV's bytes (``csv_sha256``), and
:func:`result` refuses a CSV whose bytes do not match it, or a JSON without one
(:class:`ShippedResultIntegrityError`): an edited number, a truncated or duplicated file is
never shown as a shipped result. Files written by an older ``make results`` carry no digest;
``python -m dpviz.experiments.shipped --stamp`` (:func:`stamp`) records the digest of each
CSV as it is now in every JSON that has none, changing nothing else, and refuses a recorded
digest that does not match.

Privacy: these are accuracy experiments on the public UCI data sets; the files hold
summary statistics (means, standard deviations, counts of runs), not rows.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import inspect
import io
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
from dpviz.experiments.runner import cache_bypassed

__all__ = [
    "RESULTS",
    "ShippedResultError",
    "ShippedResultIntegrityError",
    "csv_digest",
    "library_digest",
    "provenance",
    "recompute_requested",
    "result",
    "result_path",
    "stamp",
]

RESULTS = Path(__file__).resolve().parents[1] / "results"
PACKAGE = Path(__file__).resolve().parents[1]
DIGEST_KEY = "csv_sha256"
_FIX = ("regenerate the shipped files (make results) or recompute it in the notebook "
        "(RECOMPUTE = True, or DPVIZ_RECOMPUTE=1)")


class ShippedResultError(DPVizError, LookupError):
    """A shipped result is missing, or was made with other arguments than the call asks for."""


class ShippedResultIntegrityError(ShippedResultError):
    """A shipped CSV is not the file its JSON describes: its SHA-256 differs or is not recorded."""


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


def csv_digest(data: bytes) -> str:
    """SHA-256 (64 hex digits) of a shipped CSV's bytes, as its JSON records it."""
    return hashlib.sha256(data).hexdigest()


def _write_meta(path: Path, meta: dict) -> None:
    path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _save(path: Path, frame: pd.DataFrame, meta: dict) -> dict:
    """Write ``frame`` as ``path`` and ``meta``, with the CSV's SHA-256, beside it; return that."""
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, lineterminator="\n")  # the same bytes on every system
    data = path.read_bytes()
    back = _read_csv(io.BytesIO(data))
    pd.testing.assert_frame_equal(back, frame.reset_index(drop=True), check_exact=True,
                                  check_dtype=False)
    meta = {**meta, DIGEST_KEY: csv_digest(data)}
    _write_meta(path.with_suffix(".json"), meta)
    return meta


def _read_csv(source: Path | io.BytesIO) -> pd.DataFrame:
    return pd.read_csv(source, keep_default_na=False,
                       na_values=["", "NaN", "nan"])


def _read_meta(path: Path) -> dict:
    """The JSON beside the shipped CSV ``path``; refused when missing or unreadable."""
    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ShippedResultIntegrityError(
            f"the shipped {path.name} has no readable {meta_path.name} "
            f"({type(error).__name__}): {_FIX}"
        ) from None
    if not isinstance(meta, dict) or not isinstance(meta.get("arguments"), dict):
        raise ShippedResultIntegrityError(
            f"{meta_path.name} does not describe a shipped result (no arguments): {_FIX}"
        )
    return meta


def _verified_csv(path: Path, meta: dict) -> pd.DataFrame:
    """The shipped CSV ``path``, parsed from the very bytes whose SHA-256 was checked."""
    data = path.read_bytes()
    recorded = meta.get(DIGEST_KEY)
    if recorded is None:
        raise ShippedResultIntegrityError(
            f"the shipped {path.name} has no SHA-256 in {path.with_suffix('.json').name}, so "
            f"it cannot be checked: {_FIX}"
        )
    if recorded != csv_digest(data):
        raise ShippedResultIntegrityError(
            f"the shipped {path.name} was changed since it was made (its SHA-256 differs from "
            f"the one in {path.with_suffix('.json').name}): restore it (git checkout "
            f"dpviz/results), {_FIX}"
        )
    return _read_csv(io.BytesIO(data))


def _recompute(function: Callable[..., pd.DataFrame], args: tuple, kwargs: dict) -> pd.DataFrame:
    # past the on-disk cache, the cached functions it calls included: recompute means recompute
    run = getattr(function, "__wrapped__", function)
    if "progress" in inspect.signature(run).parameters:
        kwargs = {**kwargs, "progress": True}
    start = time.perf_counter()
    with cache_bypassed():
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
        frame.attrs["provenance"] = _save(result_path(function, *args), frame, meta)
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
    ShippedResultIntegrityError
        The shipped CSV's bytes do not match the SHA-256 its JSON records, or the JSON
        records none (or is missing or unreadable).
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
    meta = _read_meta(path)
    wanted = json.loads(json.dumps(_arguments(function, args, kwargs)))
    if meta["arguments"] != wanted:
        raise ShippedResultError(
            f"the shipped {path.name} was made with {meta['arguments']}, but this call asks for "
            f"{wanted}: recompute it (RECOMPUTE = True, or DPVIZ_RECOMPUTE=1) or regenerate the "
            "shipped files (make results)"
        )
    frame = _verified_csv(path, meta)
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


def stamp(folder: Path | None = None) -> list[Path]:
    """Record each shipped CSV's SHA-256 in its JSON where none is recorded yet.

    For files written before ``make results`` recorded digests (or by an older checkout):
    ``python -m dpviz.experiments.shipped --stamp``. Only the ``csv_sha256`` key is added,
    after the others, in :func:`_save`'s format; nothing is recomputed. Nothing is written
    unless every file can be stamped.

    Parameters
    ----------
    folder
        The folder of the shipped files; :data:`RESULTS` by default.

    Returns
    -------
    list of Path
        The JSON files that were stamped (already stamped ones are left alone).

    Raises
    ------
    ShippedResultIntegrityError
        A JSON whose CSV is missing, or whose recorded digest does not match its CSV (a file
        changed after it was made: restore it or regenerate it with ``make results``).
    """
    folder = RESULTS if folder is None else folder
    pending, refused = [], []
    for meta_path in sorted(folder.glob("*.json")):
        csv = meta_path.with_suffix(".csv")
        if not csv.exists():
            refused.append(f"{csv.name} is missing")
            continue
        meta = _read_meta(csv)
        digest = csv_digest(csv.read_bytes())
        if meta.get(DIGEST_KEY) is None:
            pending.append((meta_path, {**meta, DIGEST_KEY: digest}))
        elif meta[DIGEST_KEY] != digest:
            refused.append(f"{csv.name} does not match the SHA-256 in {meta_path.name}")
    if refused:
        raise ShippedResultIntegrityError(
            "nothing stamped: " + "; ".join(refused) + ": restore these files (git checkout "
            "dpviz/results) or regenerate them (make results)"
        )
    for meta_path, meta in pending:
        _write_meta(meta_path, meta)
    return [meta_path for meta_path, _ in pending]


def main(argv: list[str] | None = None) -> None:
    """``python -m dpviz.experiments.shipped --stamp``: see :func:`stamp`."""
    parser = argparse.ArgumentParser(
        prog="python -m dpviz.experiments.shipped",
        description="Record each shipped CSV's SHA-256 in its JSON (dpviz/results/).",
    )
    parser.add_argument("--stamp", action="store_true", required=True,
                        help="add the digest to every JSON that has none")
    parser.parse_args(argv)
    stamped = stamp()
    print(f"stamped {len(stamped)} file(s) in {RESULTS}" +
          "".join(f"\n  {path.name}" for path in stamped))


if __name__ == "__main__":
    main()
