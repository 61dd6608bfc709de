"""The algorithm registry: every learner of the workbook by name, and how to build it.

``algorithms.json`` says where each comes from; an entry of :data:`FACTORIES` extends it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from dpviz.data.uci import Dataset
from dpviz.errors import InvalidParameterError
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier


@dataclass(frozen=True)
class Algorithm:
    """One learner: ``name``, ``paper``, ``dpviz`` class, ``private`` (ε-DP), ``nominal_only``."""

    name: str
    paper: str
    dpviz: str
    private: bool = True
    nominal_only: bool = False


def _learners(kind: str) -> dict[str, Algorithm]:
    """The learners of ``kind`` ("private" or "references") in ``algorithms.json``, by name."""
    table = json.loads(Path(__file__).with_name("algorithms.json").read_text(encoding="utf-8"))
    return {row["name"]: Algorithm(**row, private=kind == "private") for row in table[kind]}


#: The private learners, in the order of the charts (RDT# is shown apart: it needs public rows).
ALGORITHMS: dict[str, Algorithm] = _learners("private")

PRIVATE: tuple[str, ...] = tuple(ALGORITHMS)

#: The non-private references (drawn as dashed rules).
REFERENCES: dict[str, Algorithm] = _learners("references")


def algorithm_table() -> pd.DataFrame:
    """Every learner of the comparison: name, paper, dpviz class, private."""
    rows = [
        {"algorithm": a.name, "paper": a.paper, "dpviz": a.dpviz, "ε-DP": a.private}
        for a in (*ALGORITHMS.values(), *REFERENCES.values())
    ]
    return pd.DataFrame(rows)


def jpw_n_trees(data: Dataset) -> int:
    """JPW §VI's number of random trees: 5 on Votes, 10 on the other data sets."""
    return 5 if data.name == "votes" else 10


def applicable(algorithm: str, data: Dataset) -> bool:
    """False when ``algorithm`` handles nominal attributes only and ``data`` has a numeric one."""
    spec = ALGORITHMS.get(algorithm) or REFERENCES.get(algorithm)
    return not (spec and spec.nominal_only and not data.domain.categorical_mask.all())


class OneHotModel:
    """A scikit-learn model on the public domain's one-hot encoding (numbers as they are)."""

    def __init__(self, model: Any, data: Dataset) -> None:
        self.model, self.domain = model, data.domain

    def design(self, X: pd.DataFrame) -> np.ndarray:
        """The one-hot design matrix of ``X`` (categories from the public domain: reads no row)."""
        codes = self.domain.encode(X)
        blocks = []
        for j, attribute in enumerate(self.domain):
            if attribute.is_categorical:
                blocks.append(np.eye(attribute.n_values)[codes[:, j].astype(np.int64)])
            else:
                blocks.append(codes[:, j : j + 1].astype(float))
        return np.hstack(blocks)

    def fit(self, X: pd.DataFrame, y: pd.Series) -> OneHotModel:
        """Fit the model on the design matrix of ``X``."""
        self.model.fit(self.design(X), np.asarray(y))
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The model's predictions on the design matrix of ``X``."""
        return self.model.predict(self.design(X))


#: ``factory(epsilon, data, random_state)`` → an unfitted estimator (``fit(X, y)``, ``predict(X)``).
Factory = Callable[[float, Dataset, int], Any]


def _private(cls: type, **params: Any) -> Factory:
    """The factory of ``cls(epsilon, **params)`` on the data's public domain."""
    return lambda eps, data, seed: cls(eps, domain=data.domain, random_state=seed, **params)


def _infogain(epsilon: float, data: Dataset, random_state: int) -> DiffPID3Classifier:
    """DiffPID3-InfoGain, whose sensitivity needs the public size bound (the data set's rows)."""
    return DiffPID3Classifier(epsilon, max_depth=5, criterion="infogain", size_bound=data.n_rows,
                              domain=data.domain, random_state=random_state)


#: Name → factory, for every name of :data:`ALGORITHMS` and :data:`REFERENCES`.
FACTORIES: dict[str, Factory] = {
    "Private-RDT": lambda eps, data, seed: PrivateRDTClassifier(
        eps, n_trees=jpw_n_trees(data), domain=data.domain, random_state=seed
    ),
    "DP forest": _private(DPRandomForestClassifier),
    "SuLQ-ID3": _private(SuLQID3Classifier, max_depth=5),
    "DiffPID3-Max": _private(DiffPID3Classifier, max_depth=5, criterion="max"),
    "DiffPID3-Gini": _private(DiffPID3Classifier, max_depth=5, criterion="gini"),
    "DiffPID3-InfoGain": _infogain,
    "DiffPC4.5": _private(DiffPC45Classifier, max_depth=5),
    "RDT (non-private)": lambda eps, data, seed: RandomDecisionTreeClassifier(
        n_trees=jpw_n_trees(data), domain=data.domain, random_state=seed
    ),
    "sklearn tree": lambda eps, data, seed: OneHotModel(
        DecisionTreeClassifier(random_state=seed), data
    ),
    "sklearn forest": lambda eps, data, seed: OneHotModel(
        RandomForestClassifier(50, random_state=seed), data
    ),
    "majority class": lambda eps, data, seed: DummyClassifier(strategy="most_frequent"),
}


def make_estimator(algorithm: str, epsilon: float, data: Dataset, random_state: int = 0) -> Any:
    """An unfitted ``algorithm`` at ``epsilon`` (``math.inf``: no noise) on ``data``'s domain."""
    factory = FACTORIES.get(algorithm)
    if factory is None:
        raise InvalidParameterError(f"unknown algorithm {algorithm!r}; known: {list(FACTORIES)}")
    return factory(epsilon, data, random_state)
