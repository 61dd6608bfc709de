"""The papers' four UCI data sets, with public domains written from their documentation.

Schemas, row and class counts, SHA-256 digests, URLs and citations are data (``uci.json``,
:data:`UCI`) from the UCI ``.names`` files, never learnt from the rows; every read of a raw
file is checked against them. A raw file missing from :func:`data_dir` is downloaded from the
official UCI archive (``data/README.md``; licence CC BY 4.0).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import os
import re
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from dpviz import provenance
from dpviz.data import catalogue
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import (
    DataIntegrityError,
    DataUnavailableError,
    InvalidParameterError,
    UnknownDatasetError,
)

__all__ = [
    "SHA256", "SHA256_NORMALIZED", "UCI", "Dataset", "available", "data_dir", "decode_mushroom",
    "ensure_files", "load",
]

ENV_VAR = "DPVIZ_DATA"  # names a cache folder that overrides the project's data/
DOWNLOAD_TIMEOUT = 60.0  # seconds
MISSING = "?"  # the UCI files' marker of a missing value

_JSON = json.loads(files("dpviz.data").joinpath("uci.json").read_text(encoding="utf-8"))
#: The documented facts of each data set (``uci.json``); read-only by convention.
UCI: Mapping[str, Any] = _JSON["sets"]
_FACTS = {f: (name, facts) for name, s in UCI.items() for f, facts in s["files"].items()}
#: SHA-256 of the official UCI files, byte for byte (also listed in ``data/README.md``).
SHA256: Mapping[str, str] = {f: facts["sha256"] for f, (_, facts) in _FACTS.items()}
#: SHA-256 of the same files in normal form (:func:`_normalized`).
SHA256_NORMALIZED: Mapping[str, str] = {f: x["sha256_normalized"] for f, (_, x) in _FACTS.items()}


@dataclass(eq=False, repr=False)
class Dataset:
    """A data set: features ``X``, labels ``y``, the public ``domain`` and its provenance.

    ``X`` has one column per attribute of ``domain`` (same names), ``y`` one label per row;
    ``test`` is a held-out part when one was asked for (e.g. Adult's original split).
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    domain: Domain
    citation: str = ""
    description: str = ""
    url: str = ""
    test: Dataset | None = None

    def __post_init__(self) -> None:
        for value, kind, what in ((self.X, pd.DataFrame, "X must be a pandas DataFrame"),
                                  (self.y, pd.Series, "y must be a pandas Series"),
                                  (self.domain, Domain, "domain must be a Domain")):
            if not isinstance(value, kind):
                raise InvalidParameterError(f"{what}, got {type(value).__name__}")
            if kind is pd.Series and len(self.X) != len(self.y):
                raise InvalidParameterError(
                    f"X has {len(self.X)} rows but y has {len(self.y)} labels"
                )
        if list(self.X.columns) != list(self.domain.names):
            raise InvalidParameterError(
                f"the columns of X {list(self.X.columns)} do not match the domain's attributes "
                f"{list(self.domain.names)}"
            )

    @property
    def n_rows(self) -> int:
        """Number of rows (not counting ``test``)."""
        return len(self.X)

    @property
    def n_attributes(self) -> int:
        """Number of attributes (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def class_counts(self) -> pd.Series:
        """Rows of each class, in the domain's class order (zeros included)."""
        counts = self.y.value_counts().reindex(list(self.domain.classes), fill_value=0)
        counts.index.name = self.domain.target
        return counts.astype(np.int64).rename("count")

    def encode(self) -> tuple[np.ndarray, np.ndarray]:
        """Encode ``X`` and ``y`` with the domain (see :meth:`Domain.encode`)."""
        return self.domain.encode(self.X), self.domain.encode_labels(self.y)

    def copy(self) -> Dataset:
        """A deep copy of the frames (the domain is immutable and shared)."""
        return replace(self, X=self.X.copy(deep=True), y=self.y.copy(deep=True),
                       test=None if self.test is None else self.test.copy())

    def _counts_text(self) -> str:
        counts = self.class_counts
        total = max(int(counts.sum()), 1)

        def share(n: int) -> str:
            pct = 100 * n / total
            return f"{pct:.1f}%" if n == 0 or pct >= 0.1 else "<0.1%"

        return ", ".join(f"{c} {int(n)} ({share(int(n))})" for c, n in counts.items())

    def _size_text(self) -> str:
        n_cat = int(self.domain.categorical_mask.sum())
        return (f"{self.n_rows} rows × {self.n_attributes} attributes "
                f"({n_cat} categorical, {self.n_attributes - n_cat} numeric)")

    def __repr__(self) -> str:
        test = "" if self.test is None else f"; test: {self.test.n_rows} rows"
        return (f"Dataset({self.name!r}: {self._size_text()}; "
                f"{self.domain.target}: {self._counts_text()}{test})")

    def summary(self) -> str:
        """A few lines: size, classes, test part, description, source, citation."""
        lines = [f"{self.name}: {self._size_text()}",
                 f"classes ({self.domain.target}): {self._counts_text()}"]
        if self.test is not None:
            lines.append(f"test part: {self.test.n_rows} rows; {self.test._counts_text()}")
        lines += [text for text in (self.description, self.url and f"source: {self.url}",
                                    self.citation and f"cite: {self.citation}") if text]
        return "\n".join(lines)


# ===================================================================== raw files
def _columns(s: Mapping[str, Any]) -> list[str]:
    """The attributes of a data set in the file's order."""
    return list(s.get("columns", s["attributes"]))


def _counts(labels: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in labels.value_counts().items()}


def _normalized(data: bytes) -> bytes:
    """A raw file in normal form: lines stripped, each ended by a newline, no blank lines."""
    return b"".join(line.strip() + b"\n" for line in data.splitlines() if line.strip())


def _read_raw(path: Path, data: bytes) -> pd.DataFrame:
    """Parse the raw file ``path`` (content ``data``), check its facts, then its SHA-256."""
    frame = _parse_raw(path, data)
    digest, expected = hashlib.sha256(data).hexdigest(), SHA256[path.name]
    normal = SHA256_NORMALIZED[path.name]
    if digest != expected and hashlib.sha256(_normalized(data)).hexdigest() != normal:
        raise DataIntegrityError(
            f"{path.name} (in {path.parent}) is not the official UCI file: its SHA-256 is "
            f"{digest}, expected {expected} (or {normal} after normalizing line endings and "
            "blank lines). The file was edited or damaged even though its rows and class counts "
            "look right. Delete it so that it is downloaded again (or copy the official file "
            f"there), or set {ENV_VAR} to a folder holding the official UCI files; see "
            "data/README.md"
        )
    return frame


def _parse_raw(path: Path, data: bytes) -> pd.DataFrame:
    """Parse the bytes of a raw file and check the documented rows, classes and values."""
    name, facts = _FACTS[path.name]
    where = f"{path.name} (in {path.parent})"
    s = UCI[name]
    label = s["target"]
    columns = [label, *_columns(s)] if s["target_first"] else [*_columns(s), label]
    text = data.decode("utf-8", errors="replace")
    lines = [ln for ln in (ln.strip() for ln in text.splitlines()) if ln and ln[0] != "|"]
    if len(lines) != facts["rows"]:
        raise DataIntegrityError(
            f"{where}: expected {facts['rows']} rows, found {len(lines)}; the file is damaged or "
            "is not the UCI file; delete it to download it again"
        )
    body = "\n".join(lines).replace(", ", ",")  # adult's fields are separated by ", "
    if ", " in body or " ," in body or "\t" in body:
        body = re.sub(r"[ \t]*,[ \t]*", ",", body)
    try:
        frame = pd.read_csv(io.StringIO(body), header=None, dtype=str, na_filter=False)
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataIntegrityError(
            f"{where}: cannot be parsed as comma-separated values ({exc})"
        ) from None
    if frame.shape[1] != len(columns) or frame.isna().to_numpy().any():
        raise DataIntegrityError(
            f"{where}: expected {len(columns)} comma-separated fields on every row, found "
            f"{frame.shape[1]} columns (or short rows)"
        )
    frame.columns = columns
    if "label_suffix" in facts:
        frame[label] = frame[label].str.removesuffix(facts["label_suffix"])
    if (found := _counts(frame[label])) != facts["class_counts"]:
        raise DataIntegrityError(f"{where}: expected class counts {facts['class_counts']}, "
                                 f"found {found}")
    for column, values in s["attributes"].items():
        allowed = {*values, MISSING} if s.get("missing") in ("*", column) else set(values)
        bad = ~frame[column].isin(allowed)
        if bad.any():
            raise DataIntegrityError(
                f"{where}: column {column!r} holds {frame[column][bad].iloc[0]!r} "
                f"({int(bad.sum())} rows), which is not in the documented values {sorted(allowed)}"
            )
    for column in s.get("numeric", {}):
        try:
            frame[column] = np.array(frame[column].to_numpy(dtype=object), dtype=np.int64)
        except (TypeError, ValueError):
            values = pd.to_numeric(frame[column], errors="coerce")
            value = frame[column][values.isna() | (values != np.round(values))].iloc[0]
            raise DataIntegrityError(
                f"{where}: column {column!r} holds {value!r}, not an integer"
            ) from None
    return frame


# ===================================================================== builders
def _dataset(name: str, frame: pd.DataFrame, description: str, label: str = "",
             test: Dataset | None = None) -> Dataset:
    """The :class:`Dataset` of ``frame`` (its target column and the attributes it keeps)."""
    s = UCI[name]
    frame = frame.reset_index(drop=True)
    numeric = s.get("numeric", {})
    names = [n for n in _columns(s) if n in frame.columns]
    domain = Domain([Numeric(n, *numeric[n]) if n in numeric else Categorical(n, tuple(
        s["attributes"][n])) for n in names], tuple(s["classes"]), target=s["target"])
    citation = (f"{s['donors']} {s['title']} [Dataset]. UCI Machine Learning Repository, "
                f"{s['page']}. Licence {_JSON['licence']}. {_JSON['uci_citation']}")
    return Dataset(name + label, frame[names], frame[s["target"]], domain, citation, description,
                   s["page"], test)


def _build_mushroom(raw: Mapping[str, pd.DataFrame], *, missing: str) -> Dataset:
    s, frame = UCI["mushroom"], raw["agaricus-lepiota.data"]
    absent = frame[s["missing"]] == MISSING
    if int(absent.sum()) != s["missing_rows"]:
        raise DataIntegrityError(
            f"agaricus-lepiota.data: expected {s['missing_rows']} rows with a missing "
            f"{s['missing']}, found {int(absent.sum())}"
        )
    frame = frame.drop(columns=[s["missing"]]) if missing == "drop_attribute" else frame[~absent]
    return _dataset("mushroom", frame, s["description"].format(how=s["how"][missing]))


def _build_votes(raw: Mapping[str, pd.DataFrame]) -> Dataset:
    """Votes with each ``?`` replaced by the bill's majority vote (a tie goes to ``y``)."""
    s, frame = UCI["votes"], raw["house-votes-84.data"].copy()
    absent = frame == MISSING
    for bill, (yea, nay) in s["attributes"].items():
        counts = frame[bill][~absent[bill]].value_counts()
        frame.loc[absent[bill], bill] = nay if counts.get(nay, 0) > counts.get(yea, 0) else yea
    return _dataset("votes", frame, s["description"].format(n_missing=int(absent.sum().sum())))


def _build_adult(raw: Mapping[str, pd.DataFrame], *, split: str) -> Dataset:
    s, text = UCI["adult"], UCI["adult"]["description"]
    parts = []
    for filename, facts in s["files"].items():
        frame = raw[filename]
        parts.append(frame[~(frame[list(s["attributes"])] == MISSING).any(axis=1)])
        if len(parts[-1]) != facts["clean_rows"]:
            raise DataIntegrityError(f"{filename}: expected {facts['clean_rows']} rows without "
                                     f"'?', found {len(parts[-1])}")
    if split == "original":
        held_out = _dataset("adult", parts[1], f"{text['common']} {text['test']}", " (test)")
        return _dataset("adult", parts[0], f"{text['common']} {text['original']}", test=held_out)
    merged = pd.concat(parts, ignore_index=True)
    if (found := _counts(merged["income"])) != s["clean_class_counts"]:
        raise DataIntegrityError(f"adult.data + adult.test without '?': expected class counts "
                                 f"{s['clean_class_counts']}, found {found}")
    return _dataset("adult", merged, f"{text['common']} {text['merged']}")


_BUILD: dict[str, Callable[..., Dataset]] = {
    "nursery": lambda raw: _dataset("nursery", raw["nursery.data"], UCI["nursery"]["description"]),
    "mushroom": _build_mushroom, "votes": _build_votes, "adult": _build_adult,
}


def available() -> list[str]:
    """Ids of :func:`load`'s data sets (catalogue's ``"uci"``): nursery, mushroom, votes, adult."""
    return list(catalogue.ids("uci"))


def data_dir() -> Path:
    """The cache folder of the raw files: ``$DPVIZ_DATA`` if set, else the project's ``data/``."""
    override = os.environ.get(ENV_VAR, "").strip()
    return Path(override).expanduser() if override else Path(__file__).resolve().parents[2] / "data"


_default_folder = data_dir  # load's parameter data_dir hides the function


def decode_mushroom(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with Mushroom's one-letter codes shown as their documented names."""
    names = {**UCI["mushroom"]["attributes"], "class": UCI["mushroom"]["classes"]}
    out = frame.copy()
    for column in set(out.columns) & set(names):
        out[column] = out[column].map(lambda v, m=names[column]: m.get(v, v))
    return out


# ===================================================================== cache and download
def _fetch(url: str) -> bytes:
    """Download ``url`` (the only network access of dpviz; tests monkeypatch it)."""
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
        return response.read()


def _unavailable(
    filenames: Sequence[str], folder: Path, urls: Sequence[str], reason: str
) -> DataUnavailableError:
    """What is missing, where dpviz looked, why it was not downloaded, and how to get it."""
    error = DataUnavailableError(
        f"UCI data file(s) missing: {', '.join(filenames)} not in {folder} ({reason}).\n"
        f"To get them: run `make data` where the internet can be reached (they download on "
        f"first use), or download {' '.join(urls)}, unzip, and copy those files into {folder} "
        f"(or set {ENV_VAR} to a folder holding them)."
    )
    error.reason = reason
    return error


def _known(name: object) -> str:
    """The id of a UCI data set from any catalogue spelling (``"Nursery"``, ``"votes"``)."""
    with contextlib.suppress(InvalidParameterError):
        if (key := catalogue.dataset_id(str(name))) in UCI:
            return key
    raise UnknownDatasetError(
        f"unknown data set {name!r}; the known data sets are {', '.join(available())}"
    )


def ensure_files(names: Sequence[str] | None = None, *, download: bool = True) -> Path:
    """Make sure the raw files of ``names`` (default: all) are in :func:`data_dir`; return it.

    One :class:`DataUnavailableError` names every file still missing (after one failed download).
    """
    folder, missing, urls = data_dir(), [], []
    reason = "download=False" if not download else ""
    for name in [_known(n) for n in (available() if names is None else names)]:
        _check_places(name, folder)  # not "missing": a file or folder is in the way
        try:
            _locate(name, folder, download and not missing)
        except DataUnavailableError as exc:
            reason = reason or getattr(exc, "reason", "")
            missing += [f for f in UCI[name]["files"] if not (folder / f).is_file()]
            urls.append(UCI[name]["archive"])
    if missing:
        raise _unavailable(missing, folder, urls, reason)
    return folder


def _extract(payload: bytes, filename: str) -> bytes | None:
    """Return the member called ``filename`` (at any depth) of a zip archive, or None."""
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        candidates = [
            info for info in archive.infolist()
            if not info.is_dir()
            and PurePosixPath(info.filename.replace("\\", "/")).name == filename
            and not info.filename.startswith("__MACOSX")
        ]
        best = min(candidates, key=lambda info: (info.filename.count("/"), info.filename),
                   default=None)
        return None if best is None else archive.read(best)


def _write_atomic(target: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _download(name: str, missing: list[str], folder: Path) -> None:
    """Fetch the archive once, check the missing files, then write them atomically."""
    url = UCI[name]["archive"]
    try:
        payload = _fetch(url)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        # OSError covers urllib.error.URLError / HTTPError and socket timeouts.
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise _unavailable(missing[:1], folder, [url], f"download failed: {reason}") from None
    members: dict[str, bytes] = {}
    try:
        for filename in missing:
            if (data := _extract(payload, filename)) is None:
                raise _unavailable([filename], folder, [url],
                                   "the downloaded archive has no such member")
            members[filename] = data
        for extra in UCI[name].get("extras", []):  # documentation only: not checked
            if not (folder / extra).is_file() and (data := _extract(payload, extra)) is not None:
                members[extra] = data
    except (zipfile.BadZipFile, NotImplementedError, EOFError, zlib.error) as exc:
        raise _unavailable(missing[:1], folder, [url],
                           f"the download is not a valid zip archive: {exc}") from exc
    try:
        for filename in missing:
            _read_raw(folder / filename, members[filename])
    except DataIntegrityError as exc:
        raise DataIntegrityError(
            f"the file downloaded from {url} failed its check and was not saved: {exc}"
        ) from exc
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for filename, data in members.items():
            _write_atomic(folder / filename, data)
    except OSError as exc:
        raise _unavailable(missing[:1], folder, [url],
                           f"cannot write to the cache folder: {exc}") from exc


def _check_places(name: str, folder: Path) -> None:
    """Refuse a data folder that is a file, or a data file that is a folder, naming it."""
    if folder.exists() and not folder.is_dir():
        raise DataUnavailableError(
            f"UCI data folder {folder} is a file, not a folder.\n"
            f"To fix: set {ENV_VAR} (or load's data_dir) to the folder holding the UCI files, "
            "or unset it to use the project's data/ folder."
        )
    for path in (folder / f for f in UCI[name]["files"]):
        if path.exists() and not path.is_file():
            raise DataUnavailableError(
                f"UCI data file {path.name} in {folder} is not a regular file (a folder?).\n"
                f"To fix: remove or rename {path}; the file is then downloaded on first use "
                f"(or copy it there from {UCI[name]['archive']})."
            )


def _read_bytes(path: Path) -> bytes:
    """The content of a raw file; an unreadable one raises :class:`DataUnavailableError`."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DataUnavailableError(
            f"UCI data file {path.name} in {path.parent} cannot be read "
            f"({exc.strerror or exc}).\n"
            f"To fix: make it readable (chmod a+r {path}), or delete it so that it is downloaded "
            f"again, or set {ENV_VAR} to a folder holding readable copies."
        ) from exc


def _locate(name: str, folder: Path, download: bool) -> list[Path]:
    _check_places(name, folder)
    if missing := [f for f in UCI[name]["files"] if not (folder / f).is_file()]:
        if not download:
            raise _unavailable(missing, folder, [UCI[name]["archive"]], "download=False")
        _download(name, missing, folder)
    return [folder / f for f in UCI[name]["files"]]


#: In-memory LRU caches of parsed files and built data sets, keyed on the SHA-256 of the files'
#: content (never on a modification time). Only checked files are stored; never mutate them.
_CACHE_SIZE = 16
_T = TypeVar("_T")
_FRAMES: OrderedDict[tuple[str, str], tuple[pd.DataFrame, Any]] = OrderedDict()
_DATASETS: OrderedDict[tuple[object, ...], tuple[Dataset, Any]] = OrderedDict()


def _remember(cache: OrderedDict[Any, tuple[_T, Any]], key: tuple[object, ...],
              make: Callable[[], _T]) -> _T:
    """``make()``, kept under ``key`` with what it ran (a recording running is told it)."""
    if key not in cache or not provenance.known(cache[key][1]):
        with provenance.watched() as seen:
            cache[key] = (make(), seen)
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)
    cache.move_to_end(key)
    value, seen = cache[key]
    provenance.replay(seen)
    return value


def _check_options(name: str, options: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    allowed = UCI[name].get("options", {})
    if unknown := sorted(set(options) - set(allowed)):
        accepted = ", ".join(f"{k}={tuple(v)!r}" for k, v in allowed.items()) or "no options"
        raise InvalidParameterError(
            f"load({name!r}) got unknown option(s) {unknown}; {name!r} accepts {accepted}"
        )
    for key, values in allowed.items():
        if (value := options.get(key, values[0])) not in values:
            raise InvalidParameterError(f"load({name!r}): {key} must be one of {values}, "
                                        f"got {value!r}")
    return tuple((key, str(options.get(key, values[0]))) for key, values in allowed.items())


def load(
    name: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    download: bool = True,
    **options: str,
) -> Dataset:
    """Load one of the papers' UCI data sets (a fresh copy) with its documented public domain.

    ``name``: one of :func:`available` (any case, or its catalogue name, ``"Nursery"``); a
    raw file missing from ``data_dir`` (default :func:`data_dir`) is downloaded unless
    ``download=False``. Options (``uci.json``): ``mushroom``: ``missing="drop_attribute"``
    (default, as JPW and RDT#) or ``"drop_rows"`` (as FI); ``adult``: ``split="merged"``
    (default, as FS) or ``"original"`` (with ``.test``).

    Missing values as in the papers: Votes takes each bill's majority vote, which reads the
    data outside the privacy analysis; Mushroom drops the attribute (or rows); Adult drops the
    rows with a ``?``. Parsed files are cached on their content's digest.
    """
    key = _known(name)
    chosen = _check_options(key, options)
    paths = _locate(key, _default_folder() if data_dir is None else Path(data_dir).expanduser(),
                    download)
    contents = {path: _read_bytes(path) for path in paths}
    digests = {path: hashlib.sha256(data).hexdigest() for path, data in contents.items()}
    for path, digest in digests.items():
        provenance.note_data(path.name, digest)

    def build() -> Dataset:
        frames = {path.name: _remember(_FRAMES, (path.name, digests[path]),
                                       lambda p=path: _read_raw(p, contents[p]))
                  for path in paths}
        return _BUILD[key](frames, **dict(chosen))

    return _remember(_DATASETS, (key, chosen, tuple(digests.values())), build).copy()


def main() -> None:
    """``make data``: fetch what is missing, or say in a few lines how to get it (exit 1)."""
    try:
        print(f"UCI data files present in {ensure_files()}")
    except DataUnavailableError as exc:
        raise SystemExit(f"dpviz: {exc}") from None
