"""Results shipped with the workbook: reproductions that take minutes, read from small files.

Each shipped call is a tidy CSV in ``dpviz/results/`` beside a JSON saying how it was made,
with the SHA-256 of the CSV's bytes and the record of what it ran (``ran``: the digests of the
modules it executed, the data files it read, the library versions, :mod:`dpviz.provenance`).
``make results`` sets ``DPVIZ_SAVE_RESULTS=1`` to rewrite the files (``ONLY=fi``: one
notebook module's); ``python -m dpviz.experiments.shipped --stale`` names the files whose
record no longer matches the code. The files hold summary statistics only.
"""

from __future__ import annotations

import argparse
import contextlib
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from dpviz import __version__, provenance
from dpviz.errors import DPVizError
from dpviz.experiments.runner import cache_bypassed, changes

RESULTS = Path(__file__).resolve().parents[1] / "results"
PACKAGE = Path(__file__).resolve().parents[1]
DIGEST_KEY = "csv_sha256"
RAN_KEY = "ran"
_FIX = ("regenerate the shipped files (make results) or recompute it in the notebook "
        "(start Jupyter with DPVIZ_RECOMPUTE=1 in the environment)")


class Provenance(dict):
    """A result's provenance (``frame.attrs["provenance"]``), shared by the frames derived from it.

    pandas deep-copies ``attrs`` into every frame an operation returns: with the record of
    what a result ran, notebook 07's cells made half a million copies (a sixth of their CPU).
    Provenance is read, never changed, so the derived frames share it.
    """

    def __deepcopy__(self, memo: dict) -> Provenance:
        return self


class ShippedResultError(DPVizError, LookupError):
    """A shipped result is missing, or was made with other arguments than the call asks for."""


class ShippedResultIntegrityError(ShippedResultError):
    """A shipped CSV is not the file its JSON describes: its SHA-256 differs or is not recorded."""


def recompute_requested() -> bool:
    """True when ``DPVIZ_RECOMPUTE=1``: reproductions run instead of reading shipped files."""
    return os.environ.get("DPVIZ_RECOMPUTE", "").strip().lower() in ("1", "true", "yes")


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
    """The CSV of a call: ``dpviz/results/{function}-{string arguments}.csv`` (compare-votes)."""
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
    """The checkout's commit, ``-dirty`` if tracked files other than the results differ."""
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
    """Write ``frame`` as ``path`` and ``meta`` with the CSV's SHA-256 beside it; return that."""
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
    return pd.read_csv(source, keep_default_na=False, na_values=["", "NaN", "nan"])


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
    """The shipped CSV, parsed from the very bytes whose SHA-256 was checked."""
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
    saving = os.environ.get("DPVIZ_SAVE_RESULTS", "").strip() == "1"
    start = time.perf_counter()
    with cache_bypassed(), provenance.recording() if saving else contextlib.nullcontext() as seen:
        frame = run(*args, **kwargs)
    seconds = time.perf_counter() - start
    if not isinstance(frame, pd.DataFrame):
        raise ShippedResultError(
            f"{function.__name__} returned {type(frame).__name__}, not a DataFrame"
        )
    frame = frame.reset_index(drop=True)
    frame.attrs["provenance"] = Provenance(recomputed=True, seconds=round(seconds, 1))
    if saving:
        ran = provenance.record(seen)
        if ran is None:
            raise ShippedResultError(
                f"{function.__name__} ran code that cannot be recorded (typed in a notebook "
                "cell or at a prompt, or a factory holding values that cannot be pickled), or "
                "ran under another profiler: it cannot ship"
            )
        meta = {
            "function": f"{run.__module__}.{run.__qualname__}",
            "arguments": _arguments(function, args, kwargs),
            "code_version": _git_commit(),
            "dpviz_version": __version__,
            "library_digest": library_digest(),
            "created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "seconds": round(seconds, 1),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                       f"Python {platform.python_version()}",
            "command": "make results",
            RAN_KEY: ran,
        }
        frame.attrs["provenance"] = Provenance(_save(result_path(function, *args), frame, meta))
    return frame


def result(
    function: Callable[..., pd.DataFrame], /, *args: Any, recompute: bool | None = None,
    missing: str = "raise", **kwargs: Any,
) -> pd.DataFrame:
    """``function(*args, **kwargs)``'s shipped result, or a fresh run on request.

    ``recompute``: ``True`` runs it now, ``None`` follows ``DPVIZ_RECOMPUTE``; ``missing``:
    ``"raise"`` or ``"compute"`` when no file ships. Raises :class:`ShippedResultError` or
    :class:`ShippedResultIntegrityError`; ``attrs["provenance"]`` says where it came from.
    """
    if missing not in ("raise", "compute"):
        raise ShippedResultError(f"missing must be 'raise' or 'compute', got {missing!r}")
    path = result_path(function, *args)
    requested = recompute_requested() if recompute is None else recompute
    if requested or (missing == "compute" and not path.exists()):
        return _recompute(function, args, kwargs)
    if not path.exists():
        raise ShippedResultError(f"no shipped result for {function.__name__} ({path.name}): {_FIX}")
    meta = _read_meta(path)
    wanted = json.loads(json.dumps(_arguments(function, args, kwargs)))
    if meta["arguments"] != wanted:
        raise ShippedResultError(
            f"the shipped {path.name} was made with {meta['arguments']}, but this call asks for "
            f"{wanted}: {_FIX}"
        )
    frame = _verified_csv(path, meta)
    frame.attrs["provenance"] = Provenance(meta)
    return frame


def shipped_rows(
    function: Callable[..., pd.DataFrame], /, *args: Any, keys: Sequence[str], **kwargs: Any
) -> dict[tuple, dict[str, Any]]:
    """The rows of ``function(*args, **kwargs)``'s shipped result by their ``keys`` columns.

    Each row's other columns as a dict, under the tuple of its ``keys`` values; empty when no
    file ships for these arguments (the caller computes). An altered file raises.
    """
    try:
        frame = result(function, *args, recompute=False, **kwargs)
    except ShippedResultIntegrityError:
        raise  # an altered file is a fault to show, not a file that is absent
    except ShippedResultError:
        return {}
    values = [c for c in frame.columns if c not in keys]
    return {tuple(r[k] for k in keys): {c: r[c] for c in values}
            for r in frame.to_dict("records")}


def stamp(folder: Path | None = None) -> list[Path]:
    """Record each shipped CSV's SHA-256 where none is, all or nothing; return the JSONs."""
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


def stale(folder: Path | None = None) -> dict[str, list[str]]:
    """Each shipped result whose record differs from the code now: its CSV's name, what changed.

    A file without a record (made before results recorded what they ran) is stale: nothing
    says which code made it.
    """
    folder = RESULTS if folder is None else folder
    found = {}
    for meta_path in sorted(folder.glob("*.json")):
        meta = _read_meta(meta_path.with_suffix(".csv"))
        record = meta.get(RAN_KEY)
        if record is None:
            why = [f"no record of what it ran (made at {meta.get('code_version', '?')})"]
        else:
            why = changes(record)
        if why:
            found[meta_path.with_suffix(".csv").name] = why
    return found


def _print_stale(folder: Path) -> int:
    """Print the stale shipped files of ``folder`` and what changed; 1 if any, else 0."""
    found = stale(folder)
    total = len(list(folder.glob("*.json")))
    for name, why in found.items():
        print(f"{name}: {'; '.join(why)}")
    print(f"{len(found)} of {total} shipped result(s) in {folder} stale" if found else
          f"all {total} shipped result(s) in {folder} match the code")
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    """``python -m dpviz.experiments.shipped --stamp`` (:func:`stamp`) or ``--stale``."""
    parser = argparse.ArgumentParser(
        prog="python -m dpviz.experiments.shipped",
        description="Check the shipped results of dpviz/results/ (or --folder).",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--stamp", action="store_true",
                        help="add the CSV's SHA-256 to every JSON that has none")
    action.add_argument("--stale", action="store_true",
                        help="list the files whose record of what they ran differs from the "
                             "code, data and libraries now, with what changed (exit 1 if any)")
    parser.add_argument("--folder", type=Path, default=None, help="another results folder")
    options = parser.parse_args(argv)
    folder = RESULTS if options.folder is None else options.folder
    if options.stale:
        return _print_stale(folder)
    stamped = stamp(folder)
    print(f"stamped {len(stamped)} file(s) in {folder}" +
          "".join(f"\n  {path.name}" for path in stamped))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
