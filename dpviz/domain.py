"""The public schema of a data set: attribute value lists, numeric bounds and class labels.

Written from documentation, never learned from the rows (but by :meth:`Domain.from_data`,
which warns); encodes rows into floats: categorical codes ``0 .. m-1``, numeric values
clipped to their public bounds (docs/privacy.md §4).
"""

from __future__ import annotations

import datetime
import functools
import math
import warnings
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from dpviz.errors import (
    ColumnMismatchError,
    InvalidParameterError,
    MissingValueError,
    PrivacyLeakWarning,
    UnknownCategoryError,
    UnknownLabelError,
)

#: Code of a categorical value outside the public domain, ``encode(..., unknown="mark")``.
UNKNOWN_CODE = -1


@dataclass(frozen=True)
class Categorical:
    """A nominal attribute: every value it can take, in documented order (code = position).

    A bare string is refused (``"xyz"`` is not the values ``"x"``, ``"y"``, ``"z"``).
    """

    name: str
    values: tuple[Hashable, ...]

    def __post_init__(self) -> None:
        if isinstance(self.values, str | bytes | bytearray):
            kind = "string" if isinstance(self.values, str) else "bytes object"
            raise InvalidParameterError(
                f"Categorical({self.name!r}, {self.values!r}): values must be a list of values, "
                f"not one {kind} (did you mean [{self.values!r}]?)"
            )
        values = tuple(self.values)
        object.__setattr__(self, "values", values)
        if len(values) == 0:
            raise InvalidParameterError(
                f"categorical attribute {self.name!r} needs at least one value"
            )
        if len(set(values)) != len(values):
            raise InvalidParameterError(
                f"categorical attribute {self.name!r} lists a value twice: {values}"
            )

    @property
    def n_values(self) -> int:
        """Number of values (the branching factor of a split on this attribute)."""
        return len(self.values)

    @functools.cached_property
    def index(self) -> pd.Index:
        """The values as a pandas Index, for fast lookup of codes (built once)."""
        return pd.Index(self.values, dtype=object)

    @functools.cached_property
    def codes(self) -> dict[Hashable, int]:
        """Each value's code (its position), for lookups of a few values (built once).

        A missing-like value (None, NaN, NA) is left out: a row holding one is refused.
        """
        return {v: i for i, v in enumerate(self.values) if not _is_missing(v)}

    is_categorical = True


@dataclass(frozen=True)
class Numeric:
    """A continuous attribute with public bounds ``[low, high]`` from documentation.

    Values outside are clipped on encoding, silently (a warning would be a free release).
    """

    name: str
    low: float
    high: float

    def __post_init__(self) -> None:
        low, high = float(self.low), float(self.high)
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise InvalidParameterError(
                f"numeric attribute {self.name!r} needs finite bounds low < high, "
                f"got [{self.low}, {self.high}]"
            )
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    is_categorical = False


Attribute = Categorical | Numeric


#: Up to this many rows, categorical codes are looked up in dicts, all columns in one pass.
_FEW_ROWS = 256


def _frame_column(X: pd.DataFrame, name: str) -> np.ndarray:
    """``X[name].to_numpy()`` without building the Series (~6 µs a column) where pandas can."""
    column_array = getattr(X, "_get_column_array", None)  # (pandas' own accessor, private)
    if column_array is None:
        return X[name].to_numpy()
    values = column_array(X.columns.get_loc(name))
    return values.to_numpy() if isinstance(values, ExtensionArray) else np.asarray(values)


def _numpy_numeric_block(X: pd.DataFrame, names: list[str]) -> np.ndarray | None:
    """``X[names].to_numpy(dtype=np.float64)`` when every column is a numpy bool, int or float one.

    Read through pandas' column accessor and cast column by column, as ``to_numpy`` casts
    them: the same floats without building the sub-frame ``X[names]`` (~150 us, most of a tiny
    fit's encoding). None for any other column (objects, dates, nullable or categorical
    dtypes) or without the accessor: those take the general route.
    """
    column_array = getattr(X, "_get_column_array", None)  # (pandas' own accessor, private)
    if column_array is None:
        return None
    columns = []
    for name in names:
        loc = X.columns.get_loc(name)
        if not isinstance(loc, int | np.integer):
            return None
        values = column_array(loc)
        if type(values) is not np.ndarray or values.dtype.kind not in "biuf":
            return None
        columns.append(values)
    block = np.empty((len(X), len(columns)), dtype=np.float64)
    for i, values in enumerate(columns):
        block[:, i] = values
    return block


def _is_missing(value: object) -> bool:
    """None, NaN, pd.NA or NaT (what ``pd.isna`` calls missing in a column)."""
    return value is None or value is pd.NA or value is pd.NaT or (
        isinstance(value, float | np.floating) and value != value)


def _read_only(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only (a Domain's arrays are shared by every reader)."""
    array.flags.writeable = False
    return array


def _column_array(column: object) -> np.ndarray:
    """A column as a numpy array: numeric stays numeric, anything else becomes object."""
    arr = column.to_numpy() if isinstance(column, pd.Series | pd.Index) else np.asarray(column)
    return arr if arr.dtype.kind in "biufO" else arr.astype(object)


def _missing(a: Attribute, row: int) -> MissingValueError:
    return MissingValueError(
        f"attribute {a.name!r} has a missing value (row {row}); the papers' rules for "
        "missing values are applied by dpviz.data.uci.load, or impute them first"
    )


def _is_number(value: object) -> bool:
    try:
        float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


def _is_int(value: object) -> bool:
    """True for a Python or numpy integer (not a bool)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _lookup(index: pd.Index, values: np.ndarray, codes_of: dict[Hashable, int]) -> np.ndarray:
    """Codes of ``values`` in ``index`` (−1 when absent); 2 and 2.0 also match a documented "2".

    ``codes_of``: the same lookup as a dict (faster for a few values).
    """
    if len(values) <= 256:
        codes = np.fromiter((codes_of.get(v, UNKNOWN_CODE) for v in values.tolist()),
                            dtype=np.int64, count=len(values))
    else:
        codes = index.get_indexer(values).astype(np.int64)
    miss = np.flatnonzero(codes < 0)
    if miss.size:
        by_str = {str(v): i for i, v in enumerate(index)}
        codes[miss] = [by_str.get(str(v), UNKNOWN_CODE) for v in values[miss]]
    return codes


#: Types of dates, times and durations (``pd.Timestamp``, ``pd.Timedelta`` are subclasses).
_TIME_TYPES = (datetime.date, datetime.time, datetime.timedelta, np.datetime64, np.timedelta64,
               pd.Period)
_TIME_KINDS = ("datetime64", "datetime", "date", "time", "timedelta64", "timedelta", "period")


def check_not_time(name: str, column: object) -> None:
    """Refuse a column of dates or durations where a number is read (no unit), naming it."""
    values = column if isinstance(column, pd.Series | pd.Index) else np.asarray(column)
    found = _time_kind(values)
    if found is None:
        return
    example = (f"X[{name!r}].dt.total_seconds() / 3600 for hours" if found == "durations" else
               f"(X[{name!r}] - pd.Timestamp('2000-01-01')).dt.days for days since a public date")
    raise InvalidParameterError(
        f"attribute {name!r} holds {found} ({values.dtype}), not numbers: convert them to a "
        f"number in a stated unit first, e.g. {example}, with public bounds in that unit"
    )


def _time_kind(values: pd.Series | pd.Index | np.ndarray) -> str | None:
    """``"durations"``, ``"dates"`` (dates, times, periods) or None for other columns."""
    if values.dtype.kind not in "mMO":  # a period dtype is of kind "O"
        return None
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind.startswith(("mixed", "unknown")):  # look at the values themselves
        found = [v for v in values if isinstance(v, _TIME_TYPES)]
        if not found:
            return None
        kind = "timedelta" if isinstance(found[0], datetime.timedelta | np.timedelta64) else "date"
    if kind not in _TIME_KINDS:
        return None
    return "durations" if kind.startswith("timedelta") else "dates"


def check_unique_columns(X: pd.DataFrame) -> None:
    """Refuse (:class:`ColumnMismatchError`) a DataFrame whose column names repeat."""
    duplicated = X.columns[X.columns.duplicated()]
    if len(duplicated):
        names = list(dict.fromkeys(duplicated))
        raise ColumnMismatchError(
            f"X has duplicated column names: {names}; every attribute must be one column "
            "(rename or drop the copies, e.g. X.loc[:, ~X.columns.duplicated()])"
        )


class Domain:
    """Public schema: the attributes in column order and the class labels (code = position).

    Examples
    --------
    >>> d = Domain([Categorical("colour", ("red", "blue")), Numeric("age", 0, 100)], ["no", "yes"])
    >>> d.encode(pd.DataFrame({"colour": ["blue"], "age": [130]}))
    array([[  1., 100.]])

    """

    def __init__(
        self,
        attributes: Sequence[Attribute],
        classes: Sequence[Hashable],
        *,
        target: str = "class",
    ) -> None:
        self.attributes: tuple[Attribute, ...] = tuple(attributes)
        for a in self.attributes:
            if not isinstance(a, Categorical | Numeric):
                raise InvalidParameterError(f"attributes must be Categorical or Numeric, got {a!r}")
        self.names: tuple[str, ...] = tuple(a.name for a in self.attributes)
        if len(set(self.names)) != len(self.names):
            raise InvalidParameterError(f"attribute names must be unique, got {self.names}")
        self.classes: tuple[Hashable, ...] = tuple(classes)
        if len(self.classes) < 1 or len(set(self.classes)) != len(self.classes):
            raise InvalidParameterError(
                f"classes must be a non-empty list of distinct labels, got {classes!r}"
            )
        self.target = target
        self._index = {name: j for j, name in enumerate(self.names)}
        self._class_index = {c: k for k, c in enumerate(self.classes)}
        self._class_lookup = pd.Index(self.classes, dtype=object)

    # ------------------------------------------------------------------ inspection
    def __len__(self) -> int:
        return len(self.attributes)

    def __iter__(self) -> Iterator[Attribute]:
        return iter(self.attributes)

    def __getitem__(self, name: str) -> Attribute:
        try:
            return self.attributes[self._index[name]]
        except KeyError:
            raise KeyError(
                f"no attribute named {name!r}; the domain has {list(self.names)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Domain):
            return NotImplemented
        return (self.attributes, self.classes, self.target) == (
            other.attributes, other.classes, other.target)

    def __hash__(self) -> int:
        return hash((self.attributes, self.classes, self.target))

    def __repr__(self) -> str:
        n_cat = int(self.categorical_mask.sum())
        return (
            f"Domain({len(self)} attributes: {n_cat} categorical, {len(self) - n_cat} numeric; "
            f"{self.n_classes} classes {list(self.classes)})"
        )

    def index(self, name: str) -> int:
        """Column position of attribute ``name``."""
        self[name]  # raises a readable KeyError
        return self._index[name]

    @property
    def n_classes(self) -> int:
        """Number of class labels."""
        return len(self.classes)

    @functools.cached_property
    def categorical_mask(self) -> np.ndarray:
        """Boolean array, true where the attribute is categorical (read-only, built once)."""
        return _read_only(np.array([a.is_categorical for a in self.attributes], dtype=bool))

    @functools.cached_property
    def n_values(self) -> np.ndarray:
        """Number of values of each categorical attribute, 0 for numeric ones (read-only)."""
        return _read_only(np.array([a.n_values if isinstance(a, Categorical) else 0
                                    for a in self.attributes], dtype=np.int64))

    @functools.cached_property
    def bounds(self) -> np.ndarray:
        """Array (k, 2): numeric bounds, or ``[0, m]`` for a categorical of m values (read-only)."""
        return _read_only(np.array(
            [(a.low, a.high) if isinstance(a, Numeric) else (0.0, float(a.n_values))
             for a in self.attributes], dtype=np.float64).reshape(len(self.attributes), 2))

    def select(self, names: Sequence[str]) -> Domain:
        """A new Domain with only the attributes ``names`` (in that order)."""
        return Domain([self[n] for n in names], self.classes, target=self.target)

    def to_frame(self) -> pd.DataFrame:
        """One row per attribute: its kind and its public values or bounds (for display)."""
        rows = [
            (a.name, "categorical", a.n_values, ", ".join(map(str, a.values)))
            if isinstance(a, Categorical) else
            (a.name, "numeric", np.nan, f"[{a.low:g}, {a.high:g}]")
            for a in self.attributes
        ]
        rows.append((self.target, "class", self.n_classes, ", ".join(map(str, self.classes))))
        return pd.DataFrame(rows, columns=["attribute", "kind", "size", "public domain"])

    # ------------------------------------------------------------------ encoding
    def encode(
        self,
        X: pd.DataFrame | np.ndarray,
        *,
        unknown: Literal["raise", "mark"] = "raise",
        out_of_bounds: Literal["clip", "raise"] = "clip",
    ) -> np.ndarray:
        """Encode features into floats (n, k): categorical codes and clipped numeric values.

        ``X``: a DataFrame with exactly the domain's columns, or an array read by position.
        ``unknown="mark"`` codes an unknown category :data:`UNKNOWN_CODE` (prediction only);
        ``out_of_bounds="raise"`` refuses values outside the bounds (for the curator's eyes).
        """
        if unknown not in ("raise", "mark"):
            raise InvalidParameterError(f"unknown must be 'raise' or 'mark', got {unknown!r}")
        if out_of_bounds not in ("clip", "raise"):
            raise InvalidParameterError(
                f"out_of_bounds must be 'clip' or 'raise', got {out_of_bounds!r}"
            )
        numeric, categorical = self._columns_by_kind
        block = self._numeric_block(X, numeric)
        n = block.shape[0] if block is not None else len(X)
        out = np.empty((n, len(self)), dtype=np.float64)
        if block is not None:
            if not np.isfinite(block).all():  # contiguous pass; locate the column on failure
                self._refuse_non_finite(block, numeric)
            low, high = self.bounds[numeric, 0], self.bounds[numeric, 1]
            if out_of_bounds == "raise":
                outside = (block < low) | (block > high)
                if outside.any():
                    row, col = np.argwhere(outside)[0]
                    a = self.attributes[numeric[col]]
                    raise InvalidParameterError(
                        f"attribute {a.name!r} has value {block[row, col]!r} outside its public "
                        f"bounds [{a.low:g}, {a.high:g}]"
                    )
            if len(numeric) == len(self):
                np.clip(block, low, high, out=out)
            else:
                out[:, numeric] = np.clip(block, low, high)
        if len(categorical):
            columns = self._columns(X, categorical)
            codes = self._few_codes(categorical, columns) if n <= _FEW_ROWS else None
            if codes is None:
                codes = np.column_stack([self._codes(j, col, unknown)
                                         for j, col in zip(categorical, columns, strict=True)])
            out[:, categorical] = codes
        return out

    def _codes(self, j: int, col: np.ndarray, unknown: str) -> np.ndarray:
        """Codes of column ``col`` of categorical attribute j (missing, unknown: refused)."""
        a = self.attributes[j]
        missing = np.isnan(col) if col.dtype.kind == "f" else pd.isna(col)
        if missing.any():
            raise _missing(a, int(np.flatnonzero(missing)[0]))
        codes = _lookup(a.index, col, a.codes)
        bad = np.flatnonzero(codes == UNKNOWN_CODE)
        if bad.size and unknown == "raise":
            raise UnknownCategoryError(a.name, col[bad[0]], a.values)
        return codes

    def _few_codes(self, categorical: np.ndarray, columns: list[np.ndarray]) -> np.ndarray | None:
        """:meth:`_codes` of a few rows, in one pass of dict lookups (numpy's calls cost more).

        None unless every value is a documented one: a missing or unknown value, or "2.0" for
        a documented "2", takes the column by column path.
        """
        codes = np.array([[self.attributes[j].codes.get(v, UNKNOWN_CODE) for v in col.tolist()]
                          for j, col in zip(categorical, columns, strict=True)], dtype=np.int64)
        return None if (codes == UNKNOWN_CODE).any() else codes.T

    def _refuse_non_finite(self, block: np.ndarray, numeric: np.ndarray) -> None:
        """Name the attribute and row of the first NaN or infinite (not clipped) value."""
        nan = np.isnan(block)
        if nan.any():
            col = int(np.argmax(nan.any(axis=0)))
            raise _missing(self.attributes[numeric[col]], int(np.flatnonzero(nan[:, col])[0]))
        inf = np.isinf(block)
        col = int(np.argmax(inf.any(axis=0)))
        a = self.attributes[numeric[col]]
        bad = int(np.flatnonzero(inf[:, col])[0])
        value = float(block[bad, col])
        raise InvalidParameterError(
            f"attribute {a.name!r} contains infinity (row {bad}, value {value!r}); "
            f"a numeric attribute needs finite values (its public bounds are "
            f"[{a.low:g}, {a.high:g}]): fix or drop the row"
        )

    def _numeric_block(
        self, X: pd.DataFrame | np.ndarray, numeric: np.ndarray
    ) -> np.ndarray | None:
        """The numeric attributes' columns as one float array (validates the columns first).

        None when the domain has no numeric attribute.
        """
        self._check_columns(X)
        if not len(numeric):
            return None
        if isinstance(X, pd.DataFrame):
            block = _numpy_numeric_block(X, [self.names[j] for j in numeric])
            if block is not None:
                return block
            frame = X[[self.names[j] for j in numeric]]
            for name, dtype in frame.dtypes.items():
                if dtype.kind in "mMO":  # dates, durations, periods, objects
                    check_not_time(str(name), frame[name])
        else:
            arr = np.asarray(X)
            if arr.dtype.kind in "mMO":
                for j in numeric:
                    check_not_time(self.names[j], arr[:, j])
        try:
            if isinstance(X, pd.DataFrame):
                return frame.to_numpy(dtype=np.float64)
            if len(numeric) == arr.shape[1]:  # all numeric: no (slow) fancy column indexing
                return arr.astype(np.float64, copy=False)
            return arr[:, numeric].astype(np.float64)
        except (TypeError, ValueError):
            for j in numeric:  # find the offending attribute for the message
                if bad := [v for v in self._column(X, j) if not _is_number(v)]:
                    raise InvalidParameterError(f"numeric attribute {self.names[j]!r} holds "
                                                f"non-numeric values, e.g. {bad[0]!r}") from None
            raise

    def _column(self, X: pd.DataFrame | np.ndarray, j: int) -> np.ndarray:
        if isinstance(X, pd.DataFrame):
            return _column_array(_frame_column(X, self.names[j]))
        return _column_array(np.asarray(X)[:, j])

    def _columns(self, X: pd.DataFrame | np.ndarray, js: np.ndarray) -> list[np.ndarray]:
        """:meth:`_column` of each attribute in ``js`` (an array's in one step)."""
        if isinstance(X, pd.DataFrame):
            return [self._column(X, j) for j in js]
        arr = np.asarray(X)
        return list(_column_array(arr if len(js) == arr.shape[1] else arr[:, js]).T)

    @functools.cached_property
    def _columns_by_kind(self) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the numeric attributes, then of the categorical ones."""
        return (np.flatnonzero(~self.categorical_mask), np.flatnonzero(self.categorical_mask))

    def _check_columns(self, X: pd.DataFrame | np.ndarray) -> None:
        if isinstance(X, pd.DataFrame):
            if X.columns.tolist() == list(self.names):  # (the domain's names are unique)
                return
            check_unique_columns(X)
            missing = [n for n in self.names if n not in X.columns]
            extra = [c for c in X.columns if c not in self._index]
            if missing or extra:
                raise ColumnMismatchError(
                    f"columns do not match the domain: missing {missing}, unexpected {extra}"
                )
            return
        shape = np.shape(X)
        if len(shape) != 2 or shape[1] != len(self):
            raise ColumnMismatchError(
                f"expected a 2-D array with {len(self)} columns ({list(self.names)}), "
                f"got shape {shape}"
            )

    def check_encoded(
        self, codes: object, labels: object = None, *, unknown: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Rows encoded by :meth:`encode` (float64, n × k) and class codes (int64 or None), checked.

        The one check of encoded rows, before anything reads them: NaN, infinity, a
        categorical code outside ``0 .. m-1`` (``unknown``: or :data:`UNKNOWN_CODE`), a numeric
        value outside its public bounds, class codes outside ``0 .. n_classes-1`` are refused.
        On private rows it is the curator's input check (docs/privacy.md §3).
        """
        arr = np.asarray(codes, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[1] != len(self):
            raise InvalidParameterError(
                f"encoded rows must have shape (n, {len(self)}) for this domain, got {arr.shape}"
            )
        if not np.isfinite(arr).all():
            raise MissingValueError(
                "encoded rows contain NaN or infinite codes; encode rows with domain.encode, "
                "which refuses missing values with the data set's rule"
            )
        low, high = self.bounds[:, 0].copy(), self.bounds[:, 1].copy()
        mask = self.categorical_mask
        high[mask] -= 1  # codes 0 .. m-1
        low[mask] = UNKNOWN_CODE if unknown else 0
        # whether any code is bad, in passes over the whole array (no copies of the categorical
        # columns: 2.4x faster on 10,000 x 10 codes); which one, only when one is
        if (arr < low).any() or (arr > high).any() or (
                mask.any() and ((np.floor(arr) != arr) & mask).any()):
            bad = (arr < low) | (arr > high)
            bad[:, mask] |= arr[:, mask] != np.floor(arr[:, mask])
            a = self.attributes[int(np.argwhere(bad)[0, 1])]
            allowed = (f"0 .. m-1{', or -1 for unknown' if unknown else ''}"
                       if isinstance(a, Categorical) else f"[{a.low:g}, {a.high:g}]")
            raise InvalidParameterError(
                f"encoded column {a.name!r} holds a code outside its public values ({allowed})"
            )
        if labels is None:
            return arr, None
        lab = np.asarray(labels)
        if lab.shape != (arr.shape[0],):
            raise InvalidParameterError(
                f"X and y have inconsistent numbers of samples: {arr.shape[0]} and {lab.shape}"
            )
        if lab.size and (lab.dtype.kind not in "iu" or lab.min() < 0
                         or lab.max() >= self.n_classes):
            raise InvalidParameterError(
                f"class codes must be integers in 0 .. {self.n_classes - 1} (encode_labels)"
            )
        return arr, lab.astype(np.int64, copy=False)

    def encode_labels(self, y: pd.Series | np.ndarray | Sequence[Hashable]) -> np.ndarray:
        """Encode class labels into int64 codes ``0 .. n_classes-1`` (unknown or missing: raise)."""
        values = _column_array(y).ravel()
        if (np.isnan(values) if values.dtype.kind == "f" else pd.isna(values)).any():
            raise MissingValueError(f"the labels ({self.target!r}) contain a missing value")
        codes = _lookup(self._class_lookup, values, self._class_index)
        bad = np.flatnonzero(codes < 0)
        if bad.size:
            hint = ""
            if _is_int(values[bad[0]]) and not any(_is_int(c) for c in self.classes):
                # the labels may arrive as an object array (estimators tidy y that way)
                hint = (
                    ". Integer labels for a domain of non-integer classes: scikit-learn's "
                    "cross_val_predict(method='predict_proba') re-encodes y as 0..K-1 before "
                    "fitting; loop over the folds yourself (e.g. StratifiedKFold.split) and "
                    "fit on the original labels"
                )
            raise UnknownLabelError(
                f"label {values[bad[0]]!r} is not in the public classes "
                f"{list(self.classes)}{hint}"
            )
        return codes

    def decode_labels(self, codes: np.ndarray) -> np.ndarray:
        """Turn int codes back into the class labels (object array)."""
        classes = np.empty(self.n_classes, dtype=object)
        classes[:] = self.classes
        return classes[np.asarray(codes, dtype=np.int64)]

    def decode(self, encoded: np.ndarray) -> pd.DataFrame:
        """An encoded array back as a DataFrame of documented values (unknown codes: None)."""
        encoded = np.asarray(encoded, dtype=np.float64)
        if encoded.ndim != 2 or encoded.shape[1] != len(self):
            raise ColumnMismatchError(f"expected shape (n, {len(self)}), got {encoded.shape}")
        data = {}
        for j, a in enumerate(self.attributes):
            if isinstance(a, Categorical):
                values = np.empty(a.n_values + 1, dtype=object)
                values[:-1] = a.values
                values[-1] = None
                data[a.name] = values[encoded[:, j].astype(np.int64)]  # -1 -> None
            else:
                data[a.name] = encoded[:, j]
        return pd.DataFrame(data)

    @classmethod
    def from_data(
        cls,
        X: pd.DataFrame | np.ndarray,
        y: pd.Series | np.ndarray | Sequence[Hashable],
        *,
        target: str = "class",
    ) -> Domain:
        """Derive a domain from the rows (observed values, min and max, labels): NOT private.

        Warns :class:`~dpviz.errors.PrivacyLeakWarning`; pass a documented Domain instead.
        """
        warnings.warn(
            "the domain (categories, numeric bounds, classes) was derived from the data, which "
            "leaks private information; pass a public Domain to keep the DP guarantee",
            PrivacyLeakWarning,
            stacklevel=2,
        )
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(
            np.asarray(X), columns=[f"x{j}" for j in range(np.asarray(X).shape[1])])
        attributes: list[Attribute] = []
        for name in frame.columns:
            col = frame[name]
            check_not_time(str(name), col)  # no unit: neither numbers nor categories
            if col.isna().any():
                raise MissingValueError(f"attribute {name!r} has a missing value")
            if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
                attributes.append(Categorical(str(name), tuple(sorted(col.unique(), key=str))))
            else:
                low, high = float(col.min()), float(col.max())
                if low == high:
                    low, high = low - 0.5, high + 0.5
                attributes.append(Numeric(str(name), low, high))
        labels = pd.Series(np.asarray(y, dtype=object).ravel())
        if labels.isna().any():
            raise MissingValueError("the labels contain a missing value")
        try:
            classes = tuple(sorted(labels.unique()))
        except TypeError:
            classes = tuple(sorted(labels.unique(), key=str))
        return cls(attributes, classes, target=target)


@dataclass(frozen=True, eq=False)
class Encoded:
    """Rows encoded once by ``domain.encode``, for estimators to read without encoding again.

    Every dpviz estimator's ``fit``, ``predict`` and ``predict_proba`` take them as ``X``
    (labels ``y`` as usual): the same model and answers as on ``domain.decode(codes)``, with
    the rows checked by :meth:`Domain.check_encoded` instead of encoded. ``domain`` must be the
    estimator's. The experiments' fast path: encode a data set once, fit it many times.
    """

    codes: np.ndarray
    domain: Domain

    def __post_init__(self) -> None:
        if not isinstance(self.domain, Domain):
            raise InvalidParameterError(f"domain must be a dpviz Domain, got {self.domain!r}")
