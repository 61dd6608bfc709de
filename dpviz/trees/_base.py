"""scikit-learn plumbing shared by every dpviz estimator.

The estimators follow scikit-learn's conventions (``BaseEstimator`` +
``ClassifierMixin``: parameters only in ``__init__``, learning in ``fit``,
``classes_``, ``predict_proba``). This module holds what they all need:

* turning ``X`` (DataFrame or array) and ``y`` (any labels) into codes with a
  public :class:`~dpviz.domain.Domain` — or, without one, deriving the domain
  from the data with a :class:`~dpviz.errors.PrivacyLeakWarning`;
* checking ε and the random state;
* encoding prediction inputs with the chosen policy for unseen categories.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from dpviz.domain import Domain
from dpviz.errors import EmptyDataError, InvalidParameterError
from dpviz.validation import check_epsilon

__all__ = ["DPEstimatorMixin"]


class DPEstimatorMixin:
    """Shared fit/predict input handling for dpviz classifiers.

    Subclasses define the parameters ``domain`` (a :class:`Domain` or ``None``),
    ``unknown`` (``"raise"`` or ``"random"``) and ``random_state``.
    """

    domain: Domain | None
    unknown: str

    # -------------------------------------------------------------- fit inputs
    def _fit_inputs(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, Domain]:
        """Validate and encode training data; set ``domain_``, ``classes_``, ``n_features_in_``.

        Returns
        -------
        codes : ndarray (n, k) float64
        labels : ndarray (n,) int64, codes into ``classes_``
        domain : Domain
        """
        if y is None:
            raise InvalidParameterError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        X = self._as_frame_or_array(X)
        y_arr = np.asarray(y, dtype=object)
        if y_arr.ndim == 2 and y_arr.shape[1] == 1:
            y_arr = y_arr.ravel()
        if y_arr.ndim != 1:
            raise InvalidParameterError(f"y must be one-dimensional, got shape {y_arr.shape}")
        n = X.shape[0]
        if n == 0:
            raise EmptyDataError("Found array with 0 sample(s) (shape (0, ...)); fit needs rows")
        if len(y_arr) != n:
            raise InvalidParameterError(
                f"X and y have inconsistent numbers of samples: {n} and {len(y_arr)}"
            )
        if X.ndim != 2 or X.shape[1] == 0:
            raise InvalidParameterError(
                f"X must be 2-D with at least one feature, got shape {X.shape}"
            )
        if self.domain is None:
            _check_no_nan(X)
            domain = Domain.from_data(X, y_arr)  # warns PrivacyLeakWarning
        elif isinstance(self.domain, Domain):
            domain = self.domain
        else:
            raise InvalidParameterError(
                f"domain must be a dpviz Domain or None, got {self.domain!r}"
            )
        if isinstance(X, np.ndarray) and X.dtype.kind in "fc" and not np.isfinite(X).all():
            raise InvalidParameterError("Input X contains NaN or infinity")
        codes = domain.encode(X)
        labels = domain.encode_labels(y_arr)
        self.domain_ = domain
        classes = np.empty(domain.n_classes, dtype=object)
        classes[:] = domain.classes
        self.classes_ = _tidy_classes(classes)
        self.n_features_in_ = len(domain)
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(domain.names, dtype=object)
        return codes, labels, domain

    # -------------------------------------------------------------- predict inputs
    def _predict_codes(self, X: Any) -> np.ndarray:
        """Encode prediction inputs with the fitted domain and the ``unknown`` policy."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "domain_")
        X = self._as_frame_or_array(X)
        if X.ndim != 2:
            raise InvalidParameterError(f"X must be 2-D, got shape {X.shape}")
        if X.shape[1] != self.n_features_in_:
            raise InvalidParameterError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input"
            )
        if isinstance(X, np.ndarray) and X.dtype.kind in "fc" and not np.isfinite(X).all():
            raise InvalidParameterError("Input X contains NaN or infinity")
        if self.unknown not in ("raise", "random"):
            raise InvalidParameterError(
                f"unknown must be 'raise' or 'random', got {self.unknown!r}"
            )
        return self.domain_.encode(X, unknown="mark" if self.unknown == "random" else "raise")

    @staticmethod
    def _as_frame_or_array(X: Any) -> pd.DataFrame | np.ndarray:
        if isinstance(X, pd.DataFrame):
            return X
        if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
            raise TypeError("dpviz estimators do not accept sparse input; pass a dense array")
        arr = np.asarray(X)
        if arr.dtype.kind == "c":
            raise InvalidParameterError("Complex data not supported")
        if arr.ndim == 1:
            raise InvalidParameterError(
                "Expected 2D array, got 1D array instead; reshape your data with "
                "array.reshape(-1, 1) for a single feature or array.reshape(1, -1) for one sample"
            )
        return arr

    def _rng(self) -> np.random.Generator:
        """A numpy Generator from ``random_state`` (None, int, RandomState or Generator)."""
        rs = self.random_state  # type: ignore[attr-defined]
        if isinstance(rs, np.random.Generator):
            return rs
        if isinstance(rs, numbers.Integral) and not isinstance(rs, bool):
            return np.random.default_rng(int(rs))
        if rs is None or isinstance(rs, np.random.RandomState):
            return np.random.default_rng(check_random_state(rs).randint(0, 2**31 - 1))
        raise InvalidParameterError(f"random_state must be None, an int or a Generator, got {rs!r}")

    @staticmethod
    def _epsilon(value: object, *, allow_inf: bool = True) -> float:
        return check_epsilon(value, "epsilon", allow_inf=allow_inf)

    def _decode(self, codes: np.ndarray) -> np.ndarray:
        return self.classes_[np.asarray(codes, dtype=np.int64)]


def _check_no_nan(X: pd.DataFrame | np.ndarray) -> None:
    if isinstance(X, np.ndarray) and X.dtype.kind in "fc" and not np.isfinite(X).all():
        raise InvalidParameterError("Input X contains NaN or infinity")


def _tidy_classes(classes: np.ndarray) -> np.ndarray:
    """Give ``classes_`` a natural dtype: int64 or float64 when every label is a number."""
    values = list(classes)
    if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.int64)
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=np.float64)
    return classes
