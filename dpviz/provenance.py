"""What a computation ran, as digests: so that no cached or shipped result outlives its code.

A :func:`recording` watches a computation: every Python function call of it (``sys.setprofile``
and ``threading.setprofile``, for the threads it starts) adds the file of the function's code;
``dpviz.data.uci.load`` notes the data files it reads (:func:`note_data`) and
``registry.make_estimator`` the factories it calls (:func:`note_factory`). :func:`record` turns
what was watched into the result's record, four maps of digests:

* ``code``: each dpviz module that ran (and any other source file, a test's), the SHA-256 of
  its code with docstrings and comments left out (``ast.dump`` of the parse), so that a prose
  edit changes nothing; with the data files of the package folders whose modules ran
  (``dpviz/data/uci.json``), by their bytes;
* ``data``: each data file read, the SHA-256 of its bytes, by file name;
* ``libraries``: each installed distribution whose code ran (numpy, pandas, scikit-learn,
  interpret ...), and Python, by version;
* ``factories``: each registered factory called, its closure and default values.

:func:`changes` recomputes the digests now and names what differs. What cannot be recorded
(code typed at a prompt or in a notebook cell, a factory whose closure cannot be pickled)
makes the record ``None``: such a result is not cached; so does another profiler running
(cProfile, a debugger's), which a recording leaves alone. Code that runs only when its module
is imported is not seen (its module is, as soon as one of its functions runs).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib.metadata
import pickle
import platform
import site
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The dpviz package folder, and the project folder the record's paths are relative to.
PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
_THIS = Path(__file__).resolve()

Record = dict[str, dict[str, str]]


@dataclass(eq=False)  # a recording is itself: two that saw the same must not be confused
class Watch:
    """What a recording saw: source files that ran, data files read, factories called."""

    files: set[str] = field(default_factory=set)
    data: dict[str, str] = field(default_factory=dict)
    factories: dict[str, str | None] = field(default_factory=dict)
    libraries: dict[str, str] = field(default_factory=dict)
    blind: bool = False  # another profiler was running: the calls were not seen

    def merge(self, other: Watch) -> None:
        """Add what ``other`` saw."""
        self.files |= other.files
        self.data.update(other.data)
        self.factories.update(other.factories)
        self.libraries.update(other.libraries)
        self.blind |= other.blind


_LOCK = threading.RLock()
_STACK: list[Watch] = []  # the recordings running, innermost last
_add_file: Callable[[str], None] = set().add  # the innermost recording's files.add


def _profile(frame: Any, event: str, arg: Any) -> None:
    """The profile function: a Python call adds its code's file to the innermost recording."""
    if event == "call":
        _add_file(frame.f_code.co_filename)


def _set_top() -> None:
    """Point the profile function at the innermost recording (or at nothing)."""
    global _add_file
    _add_file = _STACK[-1].files.add if _STACK else set().add


def _other_profiler() -> bool:
    """Whether another profiler (cProfile, a debugger's) runs in this thread or for new ones."""
    return sys.getprofile() not in (None, _profile) or threading.getprofile() not in (
        None, _profile)


@contextlib.contextmanager
def recording() -> Iterator[Watch]:
    """Within the block, watch the computation; the :class:`Watch` is filled as it runs.

    Recordings nest: what an inner one sees, its outer ones see too. Under another profiler
    nothing is watched (the watch is ``blind``, its record None): that profiler is left alone.
    """
    watch = Watch(blind=_other_profiler())
    if watch.blind:
        yield watch
        return
    with _LOCK:
        if not _STACK:
            threading.setprofile(_profile)
        _STACK.append(watch)
        _set_top()
    previous = sys.getprofile()
    sys.setprofile(_profile)
    try:
        yield watch
    finally:
        sys.setprofile(previous)
        with _LOCK:
            _STACK.remove(watch)
            if _STACK:
                _STACK[-1].merge(watch)
            else:
                threading.setprofile(None)
            _set_top()


def active() -> bool:
    """Whether a recording is running (a memoized value must then say what it ran)."""
    return bool(_STACK)


@contextlib.contextmanager
def watched() -> Iterator[Watch | None]:
    """A :func:`recording` when one is running (its :class:`Watch`), else nothing (None)."""
    if not _STACK:
        yield None
        return
    with recording() as watch:
        yield watch


def known(watch: Watch | None) -> bool:
    """Whether a value memoized with ``watch`` can serve now: it was watched, or none records."""
    return watch is not None or not _STACK


def replay(seen: Watch | Record | None) -> None:
    """Tell the running recording (if any) what a memoized value's computation ran."""
    if not _STACK or seen is None:
        return
    with _LOCK:
        _STACK[-1].merge(seen if isinstance(seen, Watch) else _as_watch(seen))


def _as_watch(record: Record) -> Watch:
    """A record read back as what was watched (its code by path, the rest as recorded)."""
    return Watch(files={str(ROOT / path) for path in record.get("code", {})},  # ROOT / absolute
                 data=dict(record.get("data", {})),
                 factories=dict(record.get("factories", {})),
                 libraries=dict(record.get("libraries", {})))


def note_data(name: str, sha256: str) -> None:
    """A data file was read: its name and the SHA-256 of its bytes."""
    if _STACK:
        with _LOCK:
            _STACK[-1].data[name] = sha256


def note_factory(name: str, factory: Callable[..., Any]) -> None:
    """The registered factory ``name`` was called (its closure goes into the record)."""
    if _STACK:
        digest = factory_digest(factory)
        with _LOCK:
            _STACK[-1].factories[name] = digest


# ---------------------------------------------------------------------------------- digests
def _without_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` with every module, class and function docstring removed (in place)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(
                    getattr(body[0], "value", None), ast.Constant) and isinstance(
                    body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def code_digest(path: Path) -> str:
    """SHA-256 (16 hex digits) of a Python file's code: docstrings, comments, layout left out."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    dump = ast.dump(_without_docstrings(tree), include_attributes=False)
    return hashlib.sha256(dump.encode()).hexdigest()[:16]


def file_digest(path: Path) -> str:
    """SHA-256 (16 hex digits) of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def source_digest(path: Path) -> str:
    """:func:`code_digest` of a ``.py`` file, :func:`file_digest` of any other."""
    return code_digest(path) if path.suffix == ".py" else file_digest(path)


def factory_digest(factory: Callable[..., Any]) -> str | None:
    """SHA-256 (16 hex digits) of a factory's name, closure and defaults; None if unpicklable.

    Its code is recorded with the file it is in, when it runs.
    """
    target = factory.func if isinstance(factory, functools.partial) else factory
    values = (
        getattr(target, "__module__", None), getattr(target, "__qualname__", repr(target)),
        [cell.cell_contents for cell in getattr(target, "__closure__", None) or ()],
        getattr(target, "__defaults__", None), getattr(target, "__kwdefaults__", None),
        (factory.args, factory.keywords) if isinstance(factory, functools.partial) else None,
    )
    try:
        data = pickle.dumps(values, protocol=4)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError):
        return None
    return hashlib.sha256(data).hexdigest()[:16]


def relative(path: Path) -> str:
    """A path as records name it: relative to the project when inside it, else absolute."""
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def _installed_folders() -> list[tuple[Path, bool]]:
    """Where installed code lives: (folder, whether it is a site-packages folder)."""
    sites = [*site.getsitepackages(), site.getusersitepackages()]
    sites += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    stdlib = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")}
    return [(Path(p).resolve(), True) for p in dict.fromkeys(sites)] + [
        (Path(p).resolve(), False) for p in stdlib]


def _distributions(top_levels: set[str]) -> dict[str, str]:
    """The installed distributions providing the import names ``top_levels``, by version."""
    owners = importlib.metadata.packages_distributions()
    found = {}
    for name in top_levels:
        for dist in owners.get(name, ()):
            with contextlib.suppress(importlib.metadata.PackageNotFoundError):
                found[dist] = importlib.metadata.version(dist)
    return found


def _classify(files: set[str]) -> tuple[set[Path], set[str], list[str]]:
    """Source files to digest, import names of installed code, and files that cannot be read."""
    sources, top_levels, unreadable = set(), set(), []
    installed = _installed_folders()
    for name in files:
        if name == "<string>" or name.startswith("<frozen "):
            continue  # Python's own: frozen modules, dataclasses' and namedtuple's methods
        if name.startswith("<"):  # typed at a prompt (<stdin>, <ipython-input-1-...>)
            unreadable.append(name)
            continue
        path = Path(name).resolve()
        if path.is_relative_to(PACKAGE):
            if path != _THIS:  # the recording itself
                sources.add(path)
            continue
        home = next(((f, s) for f, s in installed if path.is_relative_to(f)), None)
        if home is None:  # a test's or a script's file; a notebook cell's has none
            if path.is_file():
                sources.add(path)
            else:
                unreadable.append(name)
        elif home[1]:
            top_levels.add(path.relative_to(home[0]).parts[0].removesuffix(".py"))
    return sources, top_levels, unreadable


def _package_data(sources: set[Path]) -> set[Path]:
    """The data files beside the dpviz modules that ran (``uci.json``, ``algorithms.json``)."""
    folders = {p.parent for p in sources if p.is_relative_to(PACKAGE)}
    return {f for folder in folders for f in folder.iterdir()
            if f.is_file() and f.suffix in (".json", ".csv", ".txt")}


def record(watch: Watch) -> Record | None:
    """The digests of what ``watch`` saw (module docstring); None if some of it cannot be."""
    sources, top_levels, unreadable = _classify(watch.files)
    if watch.blind or unreadable or None in watch.factories.values():
        return None
    code = {relative(p): source_digest(p) for p in sources | _package_data(sources)}
    libraries = {**_distributions(top_levels | {"numpy"}), **watch.libraries,
                 "python": platform.python_version()}
    return {"code": dict(sorted(code.items())), "data": dict(sorted(watch.data.items())),
            "libraries": dict(sorted(libraries.items())),
            "factories": dict(sorted(watch.factories.items()))}  # type: ignore[arg-type]


def _code_changes(code: Mapping[str, str]) -> list[str]:
    """The recorded source files whose digest differs now (or that are gone)."""
    changed = []
    for name, digest in code.items():
        path = Path(name) if Path(name).is_absolute() else ROOT / name
        if not path.is_file():
            changed.append(f"{name} (removed)")
        elif source_digest(path) != digest:
            changed.append(name)
    return changed


def _data_changes(data: Mapping[str, str], folder: Path) -> list[str]:
    """The recorded data files whose bytes in ``folder`` differ now (or that are not there)."""
    changed = []
    for name, digest in data.items():
        path = folder / name
        if not path.is_file():
            changed.append(f"data {name} (not in {folder})")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            changed.append(f"data {name}")
    return changed


def _library_changes(libraries: Mapping[str, str]) -> list[str]:
    """The recorded distributions (and Python) installed now at another version, as "a 1 -> 2"."""
    changed = []
    for name, version in libraries.items():
        if name == "python":
            now = platform.python_version()
        else:
            try:
                now = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                now = "not installed"
        if now != version:
            changed.append(f"{name} {version} -> {now}")
    return changed


def _factory_changes(factories: Mapping[str, str], now: Mapping[str, Callable[..., Any]]) -> list:
    """The recorded factories registered now with another closure (or no longer registered)."""
    return [f"factory {name!r}" for name, digest in factories.items()
            if name not in now or factory_digest(now[name]) != digest]


def changes(record: Record, *, data_folder: Path,
            factories: Mapping[str, Callable[..., Any]]) -> list[str]:
    """What differs now from ``record``: its files, data, libraries, factories; [] if nothing.

    ``data_folder``: where the data files are now; ``factories``: the registered ones now.
    """
    return [*_code_changes(record.get("code", {})),
            *_data_changes(record.get("data", {}), data_folder),
            *_library_changes(record.get("libraries", {})),
            *_factory_changes(record.get("factories", {}), factories)]
