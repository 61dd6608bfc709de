"""scikit-learn plumbing shared by every dpviz estimator: input checks, encoding, randomness.

Inputs follow scikit-learn's conventions (its estimator checks pass): a DataFrame, an array,
or :class:`~dpviz.domain.Encoded` rows of the domain (checked, not encoded again). The
fitting paths are all or nothing (:func:`dpviz.records.atomic`, docs/privacy.md §3); their
progress bars and expected times are :mod:`dpviz.trees.speed`'s.
"""

from __future__ import annotations

import inspect
import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dpviz.domain import Domain, Encoded, check_not_time, check_unique_columns
from dpviz.errors import (
    EmptyDataError,
    InvalidParameterError,
    MissingValueError,
    PrivacyLeakWarning,
)
from dpviz.records import PrivacyRecord, record_of
from dpviz.validation import check_epsilon, check_random_state

__all__ = ["Classifier", "DPEstimatorMixin", "check_fitted", "release_generators", "tidy_classes",
           "whole_numbers_as_nominal"]

_NUMERIC_KINDS = ("integer", "floating", "mixed-integer-float", "decimal")


#: The warning of pickling or copying a dpviz model fitted at finite ε with a seed.
SEED_MESSAGE = (
    "this fitted model keeps its random_state, the seed of its noise: with it and the public "
    "code every noise draw can be regenerated and subtracted (the exact counts behind the "
    "release), so sharing the object is not covered by the privacy claim. Share the release "
    "(tree_, export_release()) or predictions, or set_params(random_state=None) first: the "
    "fitted model does not read it (docs/privacy.md §2)."
)


class Classifier:
    """scikit-learn's classifier interface, without importing scikit-learn to define it.

    What ``sklearn.base.BaseEstimator`` and ``ClassifierMixin`` (1.9) give an estimator:
    parameters read from ``__init__`` (``get_params``, ``set_params``, so ``clone``,
    ``Pipeline`` and the searches work), the repr of the parameters that differ from their
    defaults, the classifier's tags and ``score`` (accuracy). scikit-learn is imported when
    scikit-learn asks (tags) or a score is computed: its import loads scipy.stats, about 0.6 s
    of CPU that a notebook page would pay before its first chart (issue 44).
    """

    @classmethod
    def _get_param_names(cls) -> list[str]:
        parameters = inspect.signature(cls.__init__).parameters.values()
        if any(p.kind == p.VAR_POSITIONAL for p in parameters):
            raise RuntimeError(f"{cls.__name__}: estimators name every parameter (no *args)")
        return sorted(p.name for p in parameters if p.name != "self" and p.kind != p.VAR_KEYWORD)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameter names mapped to their values (``deep``: those of nested estimators too)."""
        out: dict[str, Any] = {}
        for key in self._get_param_names():
            value = getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{key}__{k}", v) for k, v in value.get_params().items())
            out[key] = value
        return out

    def set_params(self, **params: Any) -> Any:
        """Set parameters (``component__parameter`` for a nested estimator's); returns self."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            key, delim, sub_key = key.partition("__")
            if key not in valid:
                raise ValueError(f"Invalid parameter {key!r} for estimator {self}. "
                                 f"Valid parameters are: {self._get_param_names()!r}.")
            if delim:
                nested.setdefault(key, {})[sub_key] = value
            else:
                setattr(self, key, value)
                valid[key] = value
        for key, sub_params in nested.items():
            valid[key].set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        defaults = {p.name: p.default
                    for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = [f"{k}={v!r}" for k, v in self.get_params(deep=False).items()
                   if repr(v) != repr(defaults.get(k, inspect.Parameter.empty))
                   and not (_is_nan(v) and _is_nan(defaults.get(k)))]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    transformer_tags=None, regressor_tags=None,
                    classifier_tags=ClassifierTags())

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (scikit-learn's ``accuracy_score``)."""
        from sklearn.metrics import accuracy_score

        return float(accuracy_score(y, self.predict(X),  # type: ignore[attr-defined]
                                    sample_weight=sample_weight))


def _is_nan(value: Any) -> bool:
    return isinstance(value, numbers.Real) and math.isnan(value)


class DPEstimatorMixin:
    """Shared fit/predict input handling (parameters ``domain``, ``unknown``, ``random_state``)."""

    domain: Domain | None
    unknown: str

    #: The private estimators carry scikit-learn's ``poor_score`` tag (noise by design).
    _noisy_by_design: bool = False

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        if self._noisy_by_design and tags.classifier_tags is not None:
            tags.classifier_tags.poor_score = True
        return tags

    def _more_tags(self) -> dict[str, Any]:  # scikit-learn < 1.6
        return {"poor_score": self._noisy_by_design}

    def __getstate__(self) -> dict[str, Any]:
        """Pickling (or copying) a model fitted at finite ε that keeps its seed warns."""
        ledger = getattr(self, "ledger_", None)
        if getattr(self, "random_state", None) is not None and ledger is not None and (
                math.isfinite(ledger.total)):
            warnings.warn(SEED_MESSAGE, PrivacyLeakWarning, stacklevel=2)
        return super().__getstate__()  # type: ignore[misc]

    @property
    def privacy_record(self) -> PrivacyRecord:
        """Every fit, update and interrupted call of this object with its ε, and their sum.

        ``ledger_`` is the current model's only; this record survives refits. Per object
        (``clone`` starts empty): add up the records of objects fitted on the same rows.
        """
        return record_of(self)

    def _domain_input(self, X: pd.DataFrame | np.ndarray) -> pd.DataFrame | np.ndarray:
        """``X`` as :meth:`Domain.from_data` should read it when no domain is given."""
        return _infer_kinds(X)

    def _fit_inputs(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, Domain]:
        """Validate and encode training data: codes, class codes and the domain.

        ``X``: a DataFrame, an array, or :class:`~dpviz.domain.Encoded` rows (checked, not
        encoded again). Sets ``domain_``, ``classes_``, ``n_features_in_`` and
        ``feature_names_in_``.
        """
        name = type(self).__name__
        if y is None:
            raise InvalidParameterError(f"{name} requires y to be passed, but the target y is None")
        self._check_unknown()
        if self.domain is not None and not isinstance(self.domain, Domain):
            raise InvalidParameterError(
                f"domain must be a dpviz Domain or None, got {self.domain!r}"
            )
        if isinstance(X, Encoded):
            domain = self._encoded_domain(X)
            y_arr = _check_labels(y)
            codes = domain.check_encoded(X.codes)[0]
            feature_names = None
            _check_samples(name, codes, y_arr)
        else:
            feature_names = _string_column_names(X)
            X = self._as_frame_or_array(X)
            if feature_names is None:
                X = _positional_names(X, [f"x{j}" for j in range(X.shape[1])]
                                      if self.domain is None else self.domain.names)
            y_arr = _check_labels(y)
            _check_samples(name, X, y_arr)
            _check_finite(X)
            domain = self.domain if self.domain is not None else self._derived_domain(X, y_arr)
            codes = domain.encode(X)
        labels = domain.encode_labels(y_arr)
        self._set_domain(domain)
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return codes, labels, domain

    def _derived_domain(self, X: pd.DataFrame | np.ndarray, y: np.ndarray) -> Domain:
        """``Domain.from_data`` (PrivacyLeakWarning), refused with a single class."""
        domain = Domain.from_data(self._domain_input(X), y)  # PrivacyLeakWarning
        if domain.n_classes < 2:
            raise EmptyDataError(
                f"y holds only one class ({domain.classes[0]!r}) and no public Domain "
                "lists the others, so the model could never predict another class; "
                "pass domain=Domain(..., classes=[...]) naming every class"
            )
        return domain

    def _encoded_domain(self, X: Encoded, fitted: Domain | None = None) -> Domain:
        """The domain of encoded rows, refused if it is not the estimator's (or ``fitted``)."""
        own = fitted if fitted is not None else self.domain
        if own is not None and X.domain is not own and X.domain != own:
            raise InvalidParameterError(
                f"X was encoded with another domain ({X.domain!r}) than the estimator's "
                f"({own!r}); encode the rows with the estimator's domain"
            )
        return X.domain if own is None else own

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of each row (columns in ``classes_`` order)."""
        check_fitted(self, "domain_")
        return self._proba_codes(self._predict_codes(X))

    def predict(self, X: Any) -> np.ndarray:
        """The predicted class of each row."""
        check_fitted(self, "domain_")
        return self._decode(self._label_codes(self._predict_codes(X)))

    def _check_params(self) -> None:
        """Validate the parameters before any data is read (overridden)."""

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def _label_codes(self, codes: np.ndarray) -> np.ndarray:
        """Class codes of encoded rows: the arg-max of the probabilities (ties: first class)."""
        return np.argmax(self._proba_codes(codes), axis=1)

    def _set_domain(self, domain: Domain) -> None:
        self.domain_ = domain
        classes = np.empty(domain.n_classes, dtype=object)
        classes[:] = domain.classes
        self.classes_ = tidy_classes(classes)
        self.n_features_in_ = len(domain)

    def _predict_codes(self, X: Any) -> np.ndarray:
        """Encode prediction inputs with the fitted domain and the ``unknown`` policy."""
        self._check_unknown()
        return self._encode_fitted(X, unknown="mark" if self.unknown == "random" else "raise")

    def _more_rows(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Encode further training rows (JPW's update batches) as at prediction time, strictly."""
        codes = self._encode_fitted(X, unknown="raise")
        labels = self.domain_.encode_labels(_check_labels(y))
        if len(labels) != len(codes):
            raise InvalidParameterError(
                f"X and y have inconsistent numbers of samples: {len(codes)} and {len(labels)}"
            )
        return codes, labels

    def _encode_fitted(self, X: Any, *, unknown: str) -> np.ndarray:
        check_fitted(self, "domain_")
        if isinstance(X, Encoded):
            domain = self._encoded_domain(X, self.domain_)
            return domain.check_encoded(X.codes, unknown=unknown == "mark")[0]
        fitted_names = getattr(self, "feature_names_in_", None)
        X = self._as_frame_or_array(X)
        if _string_column_names(X) is None:  # an array, or a frame without feature names
            if fitted_names is not None:
                warnings.warn(
                    f"X does not have valid feature names, but {type(self).__name__} was "
                    "fitted with feature names; its columns are read in the order of "
                    "feature_names_in_",
                    UserWarning,
                    stacklevel=3,
                )
            if X.shape[1] != self.n_features_in_:
                raise InvalidParameterError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input"
                )
            order = list(self.domain_.names if fitted_names is None else fitted_names)
            if isinstance(X, pd.DataFrame):  # by position, keeping the column dtypes
                X = X.set_axis(order, axis=1)
            elif fitted_names is not None:  # positions are those of the fit-time columns
                X = pd.DataFrame(X, columns=order)
        _check_finite(X)
        return self.domain_.encode(X, unknown=unknown)

    def _check_unknown(self) -> None:
        if self.unknown not in ("raise", "random"):
            raise InvalidParameterError(
                f"unknown must be 'raise' or 'random', got {self.unknown!r}"
            )

    @staticmethod
    def _as_frame_or_array(X: Any) -> pd.DataFrame | np.ndarray:
        """A DataFrame (column names, when they are feature names, unique) or a 2-D array."""
        if isinstance(X, pd.DataFrame):
            if not X.columns.is_unique and _string_column_names(X) is not None:
                check_unique_columns(X)  # names are read: a repeated one is ambiguous
            return X
        if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
            raise TypeError(
                "Sparse data was passed, but dpviz estimators need dense data; "
                "use X.toarray() to convert to a dense numpy array"
            )
        arr = np.asarray(X)
        if arr.dtype.kind in "US" and not isinstance(X, np.ndarray):
            arr = np.asarray(X, dtype=object)  # keep the numbers of a mixed list as numbers
        if arr.dtype.kind == "c":
            raise InvalidParameterError("Complex data not supported")
        if arr.ndim != 2:
            raise InvalidParameterError(
                f"Expected 2D array, got {arr.ndim}D array instead: Reshape your data either "
                "using array.reshape(-1, 1) if your data has a single feature or "
                "array.reshape(1, -1) if it contains a single sample"
            )
        return arr

    def _rng(self) -> np.random.Generator:
        """A Generator from an int ``random_state`` or None (OS entropy; docs/privacy.md §3)."""
        return check_random_state(self.random_state, generators=False)  # type: ignore[attr-defined]

    def _rngs(self) -> tuple[np.random.Generator, np.random.Generator]:
        return release_generators(self._rng())

    def _check_share(
        self, release: Any, share: float, mechanism: str, how: str, name: str = "noise"
    ) -> None:
        """Refuse, before any release, a ``mechanism`` or an ε ``share`` it cannot serve."""
        if mechanism not in release.MECHANISMS:
            raise InvalidParameterError(
                f"{name} must be one of {release.MECHANISMS}, got {mechanism!r}"
            )
        try:
            release.check(share, mechanism)
        except InvalidParameterError as exc:
            raise InvalidParameterError(
                f"epsilon={self.epsilon!r} {how} gives {share:.6g} per release: {exc}"  # type: ignore[attr-defined]
            ) from None

    def _epsilon(self) -> float:
        return check_epsilon(self.epsilon, "epsilon", allow_inf=True)  # type: ignore[attr-defined]

    def _decode(self, codes: np.ndarray) -> np.ndarray:
        return self.classes_[np.asarray(codes, dtype=np.int64)]


def check_fitted(estimator: Any, attribute: str) -> None:
    """scikit-learn's ``check_is_fitted(estimator, attribute)``, free when it is fitted."""
    if not hasattr(estimator, attribute):  # (its tags cost ~25 µs a call)
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(estimator, attribute)


def _string_column_names(X: Any) -> np.ndarray | None:
    """``feature_names_in_`` for ``X``: its column names if all are strings, else None."""
    if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        return np.asarray(list(X.columns), dtype=object)
    return None


def _positional_names(X: pd.DataFrame | np.ndarray, names: Sequence[str]) -> Any:
    """A DataFrame without string column names gets the domain's names (read by position)."""
    if isinstance(X, pd.DataFrame) and _string_column_names(X) is None and X.shape[1] == len(names):
        return X.set_axis(list(names), axis=1)
    return X


def _check_samples(name: str, X: pd.DataFrame | np.ndarray, y: np.ndarray) -> None:
    """Refuse no rows, no columns, and a ``y`` of another length than ``X``."""
    n = X.shape[0]
    if n == 0:
        raise EmptyDataError(
            f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is "
            f"required by {name}: fit needs rows"
        )
    if X.shape[1] == 0:
        raise EmptyDataError(
            f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
            f"required by {name}."
        )
    if len(y) != n:
        raise InvalidParameterError(
            f"X and y have inconsistent numbers of samples: {n} and {len(y)}"
        )


def _check_finite(X: pd.DataFrame | np.ndarray) -> None:
    """Refuse NaN and infinity in float arrays, infinity in float columns (NaN: Domain.encode)."""
    if isinstance(X, pd.DataFrame):
        floats = [name for name, dtype in X.dtypes.items() if dtype.kind == "f"]
        for name in floats:  # (the float columns only: reading a column costs ~10 µs)
            if np.isinf(X[name].to_numpy()).any():
                raise InvalidParameterError(
                    f"attribute {name!r} contains infinity; a numeric attribute needs finite values"
                )
        return
    if X.dtype.kind == "f" and not np.isfinite(X).all():
        if np.isnan(X).any():
            raise MissingValueError(
                "Input X contains NaN; impute missing values first (a Domain has no place for them)"
            )
        raise InvalidParameterError(
            "Input X contains infinity; a numeric attribute needs finite values"
        )


def _check_labels(y: Any) -> np.ndarray:
    """The labels as a 1-D object array; refuses missing, infinite and continuous labels."""
    values = y.to_numpy() if isinstance(y, pd.Series | pd.DataFrame) else np.asarray(y)
    if values.ndim == 2 and values.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning

        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the "
            "shape of y to (n_samples,), for example using ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        values = values.ravel()
    if values.ndim != 1:
        raise InvalidParameterError(f"y must be one-dimensional, got shape {values.shape}")
    if pd.isna(values).any():
        raise MissingValueError("Input y contains NaN (a missing label)")
    kind = values.dtype.kind
    if kind in "fc" or (kind == "O" and pd.api.types.infer_dtype(values) in _NUMERIC_KINDS):
        try:
            numbers_ = values.astype(np.float64)
        except (TypeError, ValueError):  # e.g. Decimal or complex: leave them to the Domain
            numbers_ = None
        if numbers_ is not None:
            if not np.isfinite(numbers_).all():
                raise InvalidParameterError(
                    "Input y contains infinity or a value too large for dtype('float64')."
                )
            if (numbers_ != np.round(numbers_)).any():
                example = values[np.flatnonzero(numbers_ != np.round(numbers_))[0]]
                raise InvalidParameterError(
                    f"Unknown label type: continuous (y holds non-integer numbers such as "
                    f"{example!r}); a classifier needs discrete class labels"
                )
    return values.astype(object)


def _infer_kinds(X: pd.DataFrame | np.ndarray) -> pd.DataFrame | np.ndarray:
    """For ``Domain.from_data``: an object array's all-number columns as floats (sklearn's rule).

    Other values must be strings or numbers (TypeError); frames are returned unchanged.
    """
    if isinstance(X, pd.DataFrame) or X.dtype != object:
        return X
    columns = {}
    for j in range(X.shape[1]):
        col = X[:, j]
        check_not_time(f"x{j}", col)
        if pd.isna(col).any():
            raise MissingValueError(
                f"column {j} of X has a missing value (row {int(np.flatnonzero(pd.isna(col))[0])})"
                "; impute missing values first (a Domain has no place for them)"
            )
        kind = pd.api.types.infer_dtype(col, skipna=False)
        if kind in _NUMERIC_KINDS:
            numbers_ = col.astype(np.float64)
            if np.isinf(numbers_).any():
                raise InvalidParameterError(
                    f"column {j} of X contains infinity (row "
                    f"{int(np.flatnonzero(np.isinf(numbers_))[0])}); a numeric attribute "
                    "needs finite values"
                )
            columns[f"x{j}"] = numbers_
            continue
        bad = [v for v in col if not isinstance(v, str | bytes | numbers.Number)]
        if bad:
            raise TypeError(
                f"every value of X must be a string or a number (a float() argument must be "
                f"a string or a number), but column {j} holds {bad[0]!r} "
                f"({type(bad[0]).__name__})"
            )
        columns[f"x{j}"] = col
    return pd.DataFrame(columns)


def whole_numbers_as_nominal(X: pd.DataFrame | np.ndarray) -> pd.DataFrame | np.ndarray:
    """``X`` with every column of whole numbers as Python ints (read as nominal codes)."""
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(
        X, columns=[f"x{j}" for j in range(np.shape(X)[1])]
    )
    columns = {}
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            values = column.to_numpy(dtype=np.float64)
            if np.isfinite(values).all() and (values == np.round(values)).all():
                column = pd.Series([int(v) for v in values], index=frame.index, dtype=object)
        columns[name] = column
    return pd.DataFrame(columns, index=frame.index)


def tidy_classes(classes: np.ndarray) -> np.ndarray:
    """Give ``classes_`` a natural dtype: int64 or float64 when every label is a number."""
    values = list(classes)
    if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.int64)
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.float64)
    return classes


def release_generators(rng: np.random.Generator) -> tuple[np.random.Generator, np.random.Generator]:
    """The independent (public structure, secret noise) generators of a fit, from ``rng``."""
    structure, noise = rng.spawn(2)
    return structure, noise
