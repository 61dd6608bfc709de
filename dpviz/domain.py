"""The public schema of a data set: attribute value lists, numeric bounds and class labels.

Differential privacy protects the *rows*; everything an algorithm may look at
without paying budget — which values a categorical attribute can take, the
range of a numeric attribute, the list of classes — must be public. dpviz
writes these down from each data set's documentation (see
:mod:`dpviz.data.uci`) and never learns them from private rows, except through
:meth:`Domain.from_data`, which warns with :class:`~dpviz.errors.PrivacyLeakWarning`.

A :class:`Domain` encodes a DataFrame into a float array that the tree
algorithms route with numpy: categorical attributes become integer codes
``0 .. m-1`` in documented order, numeric attributes stay floats (clipped to
their public bounds).
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

from dpviz.errors import (
    ColumnMismatchError,
    InvalidParameterError,
    MissingValueError,
    PrivacyLeakWarning,
    UnknownCategoryError,
    UnknownLabelError,
)

#: Code given to a categorical value outside the public domain when
#: ``Domain.encode(..., unknown="mark")`` is used (prediction time only).
UNKNOWN_CODE = -1


@dataclass(frozen=True)
class Categorical:
    """A nominal attribute with its full, documented list of values.

    Parameters
    ----------
    name : str
        Column name.
    values : sequence of hashable
        Every value the attribute can take, in the order of the documentation.
        The code of a value is its position in this list. A bare string is refused
        (``"xyz"`` is not the values ``"x"``, ``"y"``, ``"z"``; write ``["xyz"]``).

    """

    name: str
    values: tuple[Hashable, ...]

    def __post_init__(self) -> None:
        if isinstance(self.values, str | bytes | bytearray):
            # tuple("xyz") would silently make the values "x", "y" and "z"
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

    @property
    def is_categorical(self) -> bool:
        """Always true for :class:`Categorical`."""
        return True


@dataclass(frozen=True)
class Numeric:
    """A continuous attribute with public bounds ``[low, high]``.

    Parameters
    ----------
    name : str
        Column name.
    low, high : float
        Public bounds, taken from documentation (never from the rows). Values
        outside are clipped on encoding (the standard practice for bounded
        DP mechanisms) unless ``out_of_bounds="raise"`` is asked for; an infinite
        value is always refused (:meth:`Domain.encode`). Dates and durations are
        refused (:func:`check_not_time`): give numbers in a stated unit, and the
        bounds in that unit.

    Notes
    -----
    A value below ``low`` is read as ``low``, one above ``high`` as ``high``: it
    behaves exactly like the bound (the same routing, the same counts). Clipping to
    the public bounds is what keeps the sensitivity: every row falls in one cell of
    the public partitions the trees and split grids draw inside ``[low, high]``, so
    one row still changes one count by one, whatever its value.

    Bounds that exclude all the data clip every value to one end: the attribute then
    holds a single value, its splits separate nothing, and nothing says so. dpviz
    cannot warn from the data: a warning computed from the rows (that values were
    clipped, or how many) would itself be a release of the private data that no ε
    pays for. Take the bounds from documentation; the curator, who holds the rows,
    can check them with ``domain.encode(X, out_of_bounds="raise")``, which names the
    first value outside (an answer for the curator alone, never to publish).
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

    @property
    def is_categorical(self) -> bool:
        """Always false for :class:`Numeric`."""
        return False


Attribute = Categorical | Numeric


def _column_array(column: object) -> np.ndarray:
    """A column as a numpy array: numeric stays numeric, anything else becomes object."""
    arr = column.to_numpy() if isinstance(column, pd.Series | pd.Index) else np.asarray(column)
    return arr if arr.dtype.kind in "biuf" else arr.astype(object)


@functools.lru_cache(maxsize=1024)
def _mapping_cached(values: tuple) -> dict:
    return {v: i for i, v in enumerate(values)}


def _mapping(index: pd.Index) -> dict:
    """``value -> position`` for a (small, public) index of values, cached."""
    return _mapping_cached(tuple(index))


def _is_number(value: object) -> bool:
    try:
        float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


def _is_int(value: object) -> bool:
    """True for a Python or numpy integer (not a bool)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _lookup(index: pd.Index, values: np.ndarray) -> np.ndarray:
    """Codes of ``values`` in ``index`` (−1 when absent), accepting the string form of a value.

    E.g. the value 2 matches a documented "2". Integral floats match integers (2.0 → 2).
    Small inputs use a dict (pandas' per-call overhead dominates below a few hundred rows).
    """
    if len(values) <= 256:
        mapping = _mapping(index)
        codes = np.fromiter((mapping.get(v, UNKNOWN_CODE) for v in values.tolist()),
                            dtype=np.int64, count=len(values))
    else:
        codes = index.get_indexer(values).astype(np.int64)
    miss = np.flatnonzero(codes < 0)
    if miss.size:
        by_str = {str(v): i for i, v in enumerate(index)}
        codes[miss] = [by_str.get(str(v), UNKNOWN_CODE) for v in values[miss]]
    return codes


#: Python and numpy types of dates, times and durations (``pd.Timestamp`` and
#: ``pd.Timedelta`` are subclasses): never read as numbers.
_TIME_TYPES = (datetime.date, datetime.time, datetime.timedelta, np.datetime64, np.timedelta64,
               pd.Period)
_TIME_KINDS = ("datetime64", "datetime", "date", "time", "timedelta64", "timedelta", "period")


def check_not_time(name: str, column: object) -> None:
    """Refuse a column of dates or durations where a number is read (a numeric attribute).

    A ``timedelta64`` or ``datetime64`` column converts to a count of its dtype's unit
    (nanoseconds, for pandas) and an object column of numpy durations to a count of
    theirs: read as numbers, they would be clipped to bounds written in another unit,
    silently. dpviz refuses them, naming the column: convert them to a number in a
    stated unit first, and give the domain public bounds in that unit.

    Raises
    ------
    InvalidParameterError
        If ``column`` (a Series or array) has a datetime, timedelta or period dtype, or
        holds date, time or duration objects.
    """
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
    dtype = values.dtype
    if dtype.kind == "m":
        return "durations"
    if dtype.kind == "M" or isinstance(dtype, pd.PeriodDtype):
        return "dates"
    if dtype.kind != "O":
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
    """Refuse a DataFrame whose column names repeat, naming the repeated ones.

    A column is found by its name, so two columns of one name leave it ambiguous which
    holds the attribute (pandas would hand back both, and the encoding would fail deep
    inside numpy or mix the two).

    Raises
    ------
    ColumnMismatchError
        If a column name occurs more than once.
    """
    duplicated = X.columns[X.columns.duplicated()]
    if len(duplicated):
        names = list(dict.fromkeys(duplicated))
        raise ColumnMismatchError(
            f"X has duplicated column names: {names}; every attribute must be one column "
            "(rename or drop the copies, e.g. X.loc[:, ~X.columns.duplicated()])"
        )


class Domain:
    """Public schema: the attributes (categorical or numeric) and the class labels.

    Parameters
    ----------
    attributes : sequence of Categorical or Numeric
        The features, in column order.
    classes : sequence of hashable
        Every class label, in documented order; label ``classes[k]`` is encoded as ``k``.
    target : str
        Name of the label column, used for display.

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
            other.attributes,
            other.classes,
            other.target,
        )

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

    @property
    def categorical_mask(self) -> np.ndarray:
        """Boolean array, true where the attribute is categorical."""
        return np.array([a.is_categorical for a in self.attributes], dtype=bool)

    @property
    def n_values(self) -> np.ndarray:
        """Number of values of each categorical attribute (0 for numeric ones)."""
        return np.array(
            [a.n_values if isinstance(a, Categorical) else 0 for a in self.attributes],
            dtype=np.int64,
        )

    @property
    def bounds(self) -> np.ndarray:
        """Array of shape (k, 2): numeric bounds, or ``[0, m]`` for a categorical of m values."""
        return np.array(
            [
                (a.low, a.high) if isinstance(a, Numeric) else (0.0, float(a.n_values))
                for a in self.attributes
            ]
        )

    def select(self, names: Sequence[str]) -> Domain:
        """A new Domain with only the attributes ``names`` (in that order)."""
        return Domain([self[n] for n in names], self.classes, target=self.target)

    def to_frame(self) -> pd.DataFrame:
        """One row per attribute: its kind and its public values or bounds (for display)."""
        rows = []
        for a in self.attributes:
            if isinstance(a, Categorical):
                rows.append(
                    {
                        "attribute": a.name,
                        "kind": "categorical",
                        "size": a.n_values,
                        "public domain": ", ".join(map(str, a.values)),
                    }
                )
            else:
                rows.append(
                    {
                        "attribute": a.name,
                        "kind": "numeric",
                        "size": np.nan,
                        "public domain": f"[{a.low:g}, {a.high:g}]",
                    }
                )
        rows.append(
            {
                "attribute": self.target,
                "kind": "class",
                "size": self.n_classes,
                "public domain": ", ".join(map(str, self.classes)),
            }
        )
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ encoding
    def encode(
        self,
        X: pd.DataFrame | np.ndarray,
        *,
        unknown: Literal["raise", "mark"] = "raise",
        out_of_bounds: Literal["clip", "raise"] = "clip",
    ) -> np.ndarray:
        """Encode features into a float array of shape (n, k).

        Parameters
        ----------
        X : DataFrame or array of shape (n, k)
            A DataFrame must have exactly the domain's columns (any order); an
            array is read positionally.
        unknown : {"raise", "mark"}
            What to do with a categorical value outside the public domain:
            raise :class:`~dpviz.errors.UnknownCategoryError` naming the attribute
            and the value (default), or give it the code :data:`UNKNOWN_CODE`
            (``-1``) so that an estimator can apply its documented prediction-time
            policy (e.g. route to a random child). Never use ``"mark"`` for
            training data.
        out_of_bounds : {"clip", "raise"}
            Numeric values outside the public bounds are clipped (default) or refused.

        Returns
        -------
        ndarray of float64, shape (n, k)
            Categorical codes (as floats) and numeric values.

        Raises
        ------
        ColumnMismatchError
            Columns missing, extra or duplicated (DataFrame), or wrong width (array).
        MissingValueError
            A NaN / None anywhere.
        InvalidParameterError
            An infinite numeric value (``inf``, or the string ``"inf"`` in an object
            column), which is refused rather than clipped.
        UnknownCategoryError
            An unknown category with ``unknown="raise"``.

        """
        if unknown not in ("raise", "mark"):
            raise InvalidParameterError(f"unknown must be 'raise' or 'mark', got {unknown!r}")
        if out_of_bounds not in ("clip", "raise"):
            raise InvalidParameterError(
                f"out_of_bounds must be 'clip' or 'raise', got {out_of_bounds!r}"
            )
        numeric = np.flatnonzero(~self.categorical_mask)
        block = self._numeric_block(X, numeric)
        n = block.shape[0] if block is not None else len(X)
        out = np.empty((n, len(self)), dtype=np.float64)
        if block is not None and len(numeric):
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
        for j in np.flatnonzero(self.categorical_mask):
            a = self.attributes[j]
            col = self._column(X, j)
            missing = np.isnan(col) if col.dtype.kind == "f" else pd.isna(col)
            if missing.any():
                bad = int(np.flatnonzero(missing)[0])
                raise MissingValueError(
                    f"attribute {a.name!r} has a missing value (row {bad}); the papers' rules for "
                    "missing values are applied by dpviz.data.uci.load, or impute them first"
                )
            out[:, j] = self._encode_categorical(a, col, unknown)
        return out

    def _refuse_non_finite(self, block: np.ndarray, numeric: np.ndarray) -> None:
        """Name the attribute and row of the first NaN (missing) or infinite numeric value.

        Infinity is refused whatever the column's dtype (a float column, or ``inf`` /
        ``"inf"`` in an object or string column): clipping it to the public bound would
        silently turn an error in the data into the most extreme legal value.
        """
        nan = np.isnan(block)
        if nan.any():
            col = int(np.argmax(nan.any(axis=0)))
            a = self.attributes[numeric[col]]
            bad = int(np.flatnonzero(nan[:, col])[0])
            raise MissingValueError(
                f"attribute {a.name!r} has a missing value (row {bad}); the papers' rules for "
                "missing values are applied by dpviz.data.uci.load, or impute them first"
            )
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

    def _numeric_block(self, X: pd.DataFrame | np.ndarray, numeric: np.ndarray) -> np.ndarray:
        """The numeric attributes' columns as one float array (validates the columns first)."""
        self._check_columns(X)
        if isinstance(X, pd.DataFrame):
            frame = X[[self.names[j] for j in numeric]]
            for name, dtype in frame.dtypes.items():
                if dtype.kind in "mMO" or isinstance(dtype, pd.PeriodDtype):
                    check_not_time(str(name), frame[name])
            try:
                return frame.to_numpy(dtype=np.float64)
            except (TypeError, ValueError):
                for j in numeric:  # find the offending attribute for the message
                    self._as_float(self.attributes[j], X[self.names[j]].to_numpy())
                raise
        arr = np.asarray(X)
        if arr.dtype.kind in "mMO":
            for j in numeric:
                check_not_time(self.names[j], arr[:, j])
        try:
            if len(numeric) == arr.shape[1]:  # all numeric: no (slow) fancy column indexing
                return arr.astype(np.float64, copy=False)
            return arr[:, numeric].astype(np.float64)
        except (TypeError, ValueError):
            for j in numeric:
                self._as_float(self.attributes[j], arr[:, j])
            raise

    def _column(self, X: pd.DataFrame | np.ndarray, j: int) -> np.ndarray:
        if isinstance(X, pd.DataFrame):
            return _column_array(X[self.names[j]])
        return _column_array(np.asarray(X)[:, j])

    @staticmethod
    def _as_float(a: Attribute, col: np.ndarray) -> np.ndarray:
        try:
            return np.asarray(col, dtype=np.float64)
        except (TypeError, ValueError):
            bad = next(v for v in col if not _is_number(v))
            raise InvalidParameterError(
                f"numeric attribute {a.name!r} holds non-numeric values, e.g. {bad!r}"
            ) from None

    @staticmethod
    def _encode_categorical(a: Categorical, col: np.ndarray, unknown: str) -> np.ndarray:
        codes = _lookup(a.index, col)
        bad = np.flatnonzero(codes == UNKNOWN_CODE)
        if bad.size and unknown == "raise":
            raise UnknownCategoryError(a.name, col[bad[0]], a.values)
        return codes

    def _check_columns(self, X: pd.DataFrame | np.ndarray) -> None:
        if isinstance(X, pd.DataFrame):
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

    def encode_labels(self, y: pd.Series | np.ndarray | Sequence[Hashable]) -> np.ndarray:
        """Encode class labels into int64 codes ``0 .. n_classes-1``.

        Raises
        ------
        MissingValueError
            A label is missing.
        UnknownLabelError
            A label is not one of ``classes``; the message names it.

        """
        values = _column_array(y).ravel()
        if (np.isnan(values) if values.dtype.kind == "f" else pd.isna(values)).any():
            raise MissingValueError(f"the labels ({self.target!r}) contain a missing value")
        codes = _lookup(self._class_lookup, values)
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
        """Turn an encoded array back into a DataFrame of documented values (for display).

        Unknown codes (``-1``) decode to ``None``.
        """
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

    # ------------------------------------------------------------------ leaking constructor
    @classmethod
    def from_data(
        cls,
        X: pd.DataFrame | np.ndarray,
        y: pd.Series | np.ndarray | Sequence[Hashable],
        *,
        target: str = "class",
    ) -> Domain:
        """Derive a domain from the data itself — NOT differentially private.

        Categorical columns (object, string, category or bool dtype) get their
        sorted observed values; numeric columns get their observed min and max;
        classes are the sorted observed labels. The observed values and bounds
        are functions of the private rows, so this emits
        :class:`~dpviz.errors.PrivacyLeakWarning`. Provide a documented
        :class:`Domain` instead whenever the data is private.
        """
        warnings.warn(
            "the domain (categories, numeric bounds, classes) was derived from the data, which "
            "leaks private information; pass a public Domain to keep the DP guarantee",
            PrivacyLeakWarning,
            stacklevel=2,
        )
        frame = (
            X
            if isinstance(X, pd.DataFrame)
            else pd.DataFrame(
                np.asarray(X), columns=[f"x{j}" for j in range(np.asarray(X).shape[1])]
            )
        )
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
