"""The algorithm registry: every learner of the workbook by name, and how to build it.

``algorithms.json`` says where each comes from; :func:`register` adds a learner that the
comparison, the algorithm table, 07's charts and its explorer all show. Four kinds: the
four papers' private learners, today's private reference points (PrivaTree, DP-EBM: what the
field does since), the non-private references, and options with no privacy claim (PrivaTree
as its authors published it), named apart.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dpviz import provenance
from dpviz.data.uci import Dataset
from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError, PrivacyLeakWarning
from dpviz.validation import check_epsilon


@dataclass(frozen=True)
class Algorithm:
    """One learner: ``name``, ``paper``, ``dpviz`` class, ``private``, where it applies.

    ``delta`` > 0: (ε, δ)-DP rather than ε-DP; ``nominal_only``: no numeric attribute;
    ``binary_only``: two classes.
    """

    name: str
    paper: str
    dpviz: str
    private: bool = True
    nominal_only: bool = False
    binary_only: bool = False
    delta: float = 0.0

    @property
    def privacy(self) -> str:
        """The claim in words: "ε-DP", "(ε, δ = 1e-6)-DP" or "none" (also: no claim)."""
        if not self.private:
            return "none"
        return f"(ε, δ = {self.delta:.0e})-DP".replace("e-0", "e-") if self.delta else "ε-DP"


def _learners(kind: str) -> dict[str, Algorithm]:
    """The learners of ``kind`` ("private", "today", "references", "no_claim") in the json."""
    table = json.loads(Path(__file__).with_name("algorithms.json").read_text(encoding="utf-8"))
    private = kind in ("private", "today")
    return {row["name"]: Algorithm(**row, private=private) for row in table[kind]}


#: The four papers' private learners, in the order of the charts (RDT# is shown apart: it
#: needs public rows).
ALGORITHMS: dict[str, Algorithm] = _learners("private")

PRIVATE: tuple[str, ...] = tuple(ALGORITHMS)

#: Today's private reference points: PrivaTree (dpviz's proven variant of Vos et al.) and DP-EBM,
#: and any :func:`register` adds.
TODAY: dict[str, Algorithm] = _learners("today")

#: The built-in ones (their results ship: ``compare_today``); :func:`today` adds the registered.
RECENT: tuple[str, ...] = tuple(TODAY)

#: The non-private references (drawn as dashed rules).
REFERENCES: dict[str, Algorithm] = _learners("references")

#: Options with no privacy claim, kept to compare with published numbers (not in 07's grids):
#: PrivaTree's split as its authors' code behind the paper's tables makes it.
NO_CLAIM: dict[str, Algorithm] = _learners("no_claim")


def algorithm_table() -> pd.DataFrame:
    """Every learner of the comparison: name, paper, dpviz class, privacy claim."""
    rows = [
        {"algorithm": a.name, "paper": a.paper, "dpviz": a.dpviz, "privacy": a.privacy}
        for a in (*ALGORITHMS.values(), *TODAY.values(), *REFERENCES.values(),
                  *NO_CLAIM.values())
    ]
    return pd.DataFrame(rows)


def jpw_n_trees(data: Dataset) -> int:
    """JPW §VI's number of random trees: 5 on Votes, 10 on the other data sets."""
    return 5 if data.name == "votes" else 10


def not_applicable(algorithm: str, data: Dataset) -> str | None:
    """Why ``algorithm`` does not run on ``data`` (its public domain), or None if it does."""
    spec = (ALGORITHMS.get(algorithm) or TODAY.get(algorithm) or REFERENCES.get(algorithm)
            or NO_CLAIM.get(algorithm))
    if spec and spec.nominal_only and not data.domain.categorical_mask.all():
        return "handles nominal attributes only"
    if spec and spec.binary_only and data.domain.n_classes != 2:
        return "handles two classes only"
    return None


def applicable(algorithm: str, data: Dataset) -> bool:
    """Whether ``algorithm`` runs on ``data`` (:func:`not_applicable` says why not)."""
    return not_applicable(algorithm, data) is None


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


#: DP-EBM's δ here: interpret's default is 1e-5; 1e-6 is far below 1/n for every n of the grid.
DP_EBM_DELTA = TODAY["DP-EBM (δ = 1e-6)"].delta

#: DP-EBM's stand-in for ε = ∞: interpret's "classic" accounting at this ε draws noise of
#: standard deviation about 1e-9 (its default accounting overflows there, and ε = ∞ is refused).
NOISELESS_EPSILON = 1e12


#: What the fitted DP-EBM keeps of interpret's fitted attributes: what ``predict`` and
#: ``predict_proba`` read (interpret-core 0.7.8: the noisy ``bins_``, ``term_scores_`` and
#: ``intercept_``; ``classes_`` the codes present in the labels, the domain's two whenever both
#: occur; the rest fixed by the parameters) …
DP_EBM_PREDICTS_WITH = frozenset({
    "has_fitted_", "feature_names_in_", "feature_types_in_", "link_", "link_param_", "bins_",
    "intercept_", "term_scores_", "term_features_", "classes_"})
#: … and what the public parameters fix (ε, δ, the bounds, the rounds, the attributes).
DP_EBM_PUBLIC = frozenset({
    "n_features_in_", "term_names_", "feature_bounds_", "noise_scale_binning_",
    "noise_scale_boosting_", "best_iteration_"})

#: The warning of pickling or copying a DP-EBM fitted at finite ε (its wrapper keeps the seed).
DP_EBM_SEED_MESSAGE = (
    "this fitted DP-EBM keeps its random_state, the seed of interpret's noise: with it and "
    "interpret's code every noise draw can be regenerated and subtracted, so sharing the "
    "object is not covered by interpret's (ε, δ) claim. Share predictions (docs/privacy.md "
    "§8.2.7)."
)


def scrub_dp_ebm(model: Any) -> None:
    """Delete what a fitted DP-EBM computed from the rows and predict does not read, and its seed.

    Kept: :data:`DP_EBM_PREDICTS_WITH`, :data:`DP_EBM_PUBLIC` and the parameters. Removed
    (interpret-core 0.7.8): ``bag_weights_`` (the exact row count n), ``bin_weights_`` (the
    noisy bin counts; n/31 exactly where no noisy bin reaches interpret's threshold),
    ``bagged_scores_``, ``bagged_intercept_`` (copies of the noisy scores: one bag) and
    ``standard_deviations_``; any attribute another interpret adds goes too. ``random_state``
    becomes None (the fitted object does not read it).
    """
    parameters = set(model.get_params(deep=False))
    for name in set(vars(model)) - parameters - DP_EBM_PREDICTS_WITH - DP_EBM_PUBLIC:
        delattr(model, name)
    model.random_state = None


@dataclass(frozen=True)
class DesignColumn:
    """One column of DP-EBM's design: an attribute, and the value it indicates (None: numeric).

    ``low``, ``high``: the column's public bounds, the attribute's (numeric) or [0, 1] (an
    indicator).
    """

    attribute: str
    value: Any
    low: float
    high: float

    @property
    def name(self) -> str:
        """``attribute`` or ``attribute=value``."""
        return self.attribute if self.value is None else f"{self.attribute}={self.value}"


def design_columns(domain: Domain) -> list[DesignColumn]:
    """DP-EBM's columns, from the public domain only (never from the rows).

    A numeric attribute as it is, in its bounds; a categorical one as one indicator per value,
    in [0, 1].
    """
    columns = []
    for a in domain:
        if not a.is_categorical:
            columns.append(DesignColumn(a.name, None, a.low, a.high))  # type: ignore[union-attr]
            continue
        columns += [DesignColumn(a.name, v, 0.0, 1.0) for v in a.values]
    return columns


def design(domain: Domain, codes: np.ndarray) -> np.ndarray:
    """The rows' design for DP-EBM: numbers as they are, each categorical value's indicator.

    An unknown category (code −1) indicates no value. Reads the rows only to encode them.
    """
    blocks = []
    for j, a in enumerate(domain):
        column = codes[:, j]
        if not a.is_categorical:
            blocks.append(column[:, None].astype(float))
            continue
        values = np.arange(a.n_values)
        blocks.append((column.astype(np.int64)[:, None] == values[None, :]).astype(float))
    return np.hstack(blocks)


class DPEBMModel:
    """interpret's DP-EBM (Nori et al. 2021) on the public domain; two classes only.

    (ε, δ)-DP as interpret claims it, Gaussian noise (third-party: dpviz does not audit it;
    docs/privacy.md §8.2.7). Every column goes in as ``"continuous"`` with public bounds
    (:func:`design_columns`): a numeric attribute in its domain bounds, a categorical one as
    one indicator column per value in [0, 1] (one-hot), so
    that every histogram bin comes from the domain (interpret's own categorical bins are the
    values present in the rows). ``epsilon = inf``: the same algorithm with negligible noise,
    the non-private reference (no claim). Builds interpret's estimator here: interpret is
    imported by the first DP-EBM only.

    After a fit interpret's object keeps no exact count and no seed (:func:`scrub_dp_ebm`);
    the wrapper keeps the seed for refits, and pickling or copying it fitted at finite ε warns
    (:class:`~dpviz.errors.PrivacyLeakWarning`).
    """

    def __init__(self, epsilon: float, data: Dataset, random_state: int,
                 delta: float = DP_EBM_DELTA) -> None:
        epsilon = check_epsilon(epsilon, allow_inf=True)
        if data.domain.n_classes != 2:
            raise InvalidParameterError(
                f"DP-EBM handles two classes only; {data.name} has {data.domain.n_classes}")
        from interpret.privacy import DPExplainableBoostingClassifier  # 70 MB: only when used

        noiseless = math.isinf(epsilon)
        self.domain, self.epsilon, self.random_state = data.domain, epsilon, random_state
        columns = design_columns(self.domain)
        self._model = DPExplainableBoostingClassifier(
            feature_names=[c.name for c in columns],
            feature_types=["continuous"] * len(columns),
            privacy_bounds=public_bounds(self.domain),
            epsilon=NOISELESS_EPSILON if noiseless else epsilon, delta=delta,
            composition="classic" if noiseless else "gdp", random_state=random_state, n_jobs=1)

    @property
    def model(self) -> Any:
        """The interpret estimator: its parameters; fitted, only what :func:`scrub_dp_ebm` keeps."""
        return self._model

    def fit(self, X: pd.DataFrame, y: pd.Series) -> DPEBMModel:
        """Fit on the rows' :func:`design`, then scrub interpret's object (:func:`scrub_dp_ebm`).

        A seeded evaluation: interpret's seed warning is silenced.
        """
        codes, labels = self.domain.encode(X), self.domain.encode_labels(y)
        self._model.set_params(random_state=self.random_state)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Privacy violation: using a fixed random_state")
            self._model.fit(design(self.domain, codes), labels)
        scrub_dp_ebm(self._model)
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The class labels predicted on the :func:`design` of ``X``."""
        return self.domain.decode_labels(
            self._model.predict(design(self.domain, self.domain.encode(X))))

    def __getstate__(self) -> dict[str, Any]:
        """Pickling (or copying) a DP-EBM fitted at finite ε with a seed warns."""
        if (getattr(self._model, "has_fitted_", False) and math.isfinite(self.epsilon)
                and self.random_state is not None):
            warnings.warn(DP_EBM_SEED_MESSAGE, PrivacyLeakWarning, stacklevel=2)
        return dict(vars(self))


def public_bounds(domain: Domain) -> dict[int, tuple[float, float]]:
    """Each design column's public range (:func:`design_columns`): its bounds, or [0, 1]."""
    return {j: (c.low, c.high) for j, c in enumerate(design_columns(domain))}


#: ``factory(epsilon, data, random_state)`` → an unfitted estimator (``fit(X, y)``, ``predict(X)``).
Factory = Callable[[float, Dataset, int], Any]


def _estimators() -> dict[str, type]:
    """The estimators by class name, imported when the first is made.

    They (and scikit-learn) load with the first fit, not with the registry: notebook 07's
    first chart reads shipped grids.
    """
    from dpviz.trees.forest import DPRandomForestClassifier
    from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
    from dpviz.trees.privatree import PrivaTreeClassifier
    from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier

    return {cls.__name__: cls for cls in (
        DPRandomForestClassifier, DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier,
        PrivaTreeClassifier, PrivateRDTClassifier, RandomDecisionTreeClassifier)}


def _private(name: str, **params: Any) -> Factory:
    """The factory of the estimator ``name(epsilon, **params)`` on the data's public domain."""
    return lambda eps, data, seed: _estimators()[name](eps, domain=data.domain,
                                                       random_state=seed, **params)


def _private_rdt(epsilon: float, data: Dataset, random_state: int) -> Any:
    """Private-RDT with JPW's number of trees for the data set."""
    return _estimators()["PrivateRDTClassifier"](
        epsilon, n_trees=jpw_n_trees(data), domain=data.domain, random_state=random_state)


def _infogain(epsilon: float, data: Dataset, random_state: int) -> Any:
    """DiffPID3-InfoGain, whose sensitivity needs the public size bound (the data set's rows)."""
    return _estimators()["DiffPID3Classifier"](
        epsilon, max_depth=5, criterion="infogain", size_bound=data.n_rows, domain=data.domain,
        random_state=random_state)


def _rdt(epsilon: float, data: Dataset, random_state: int) -> Any:
    """Fan et al.'s non-private random trees, as many as Private-RDT's."""
    return _estimators()["RandomDecisionTreeClassifier"](
        n_trees=jpw_n_trees(data), domain=data.domain, random_state=random_state)


def _sklearn_tree(epsilon: float, data: Dataset, random_state: int) -> OneHotModel:
    from sklearn.tree import DecisionTreeClassifier

    return OneHotModel(DecisionTreeClassifier(random_state=random_state), data)


def _sklearn_forest(epsilon: float, data: Dataset, random_state: int) -> OneHotModel:
    from sklearn.ensemble import RandomForestClassifier

    return OneHotModel(RandomForestClassifier(50, random_state=random_state), data)


def _majority(epsilon: float, data: Dataset, random_state: int) -> Any:
    from sklearn.dummy import DummyClassifier

    return DummyClassifier(strategy="most_frequent")


#: Name → factory, for every name of :data:`ALGORITHMS`, :data:`TODAY`, :data:`REFERENCES` and
#: :data:`NO_CLAIM`.
FACTORIES: dict[str, Factory] = {
    "Private-RDT": _private_rdt,
    "DP forest": _private("DPRandomForestClassifier"),
    "SuLQ-ID3": _private("SuLQID3Classifier", max_depth=5),
    "DiffPID3-Max": _private("DiffPID3Classifier", max_depth=5, criterion="max"),
    "DiffPID3-Gini": _private("DiffPID3Classifier", max_depth=5, criterion="gini"),
    "DiffPID3-InfoGain": _infogain,
    "DiffPC4.5": _private("DiffPC45Classifier", max_depth=5),
    "PrivaTree (dpviz variant)": _private("PrivaTreeClassifier"),
    "DP-EBM (δ = 1e-6)": DPEBMModel,
    "RDT (non-private)": _rdt,
    "sklearn tree": _sklearn_tree,
    "sklearn forest": _sklearn_forest,
    "majority class": _majority,
    "PrivaTree as published (no claim)": _private("PrivaTreeClassifier", splitter="published"),
}


#: The kinds :func:`register` takes: the dict each goes into.
KINDS = {"today": TODAY, "references": REFERENCES, "no_claim": NO_CLAIM}
#: The learners dpviz defines (their results ship); :func:`registered` names the others.
BUILT_IN = frozenset(FACTORIES)


def registered() -> tuple[str, ...]:
    """The names :func:`register` added, in order (their results are run, never shipped)."""
    return tuple(name for name in FACTORIES if name not in BUILT_IN)


def register(name: str, factory: Factory, *, kind: str = "today", paper: str = "",
             dpviz: str = "", nominal_only: bool = False, binary_only: bool = False,
             delta: float = 0.0, replace: bool = False) -> Algorithm:
    """Add the learner ``name``: ``factory(epsilon, data, random_state)`` → an unfitted model.

    ``kind``: "today" (a private learner of 07's comparison, drawn beside the papers'; its
    factory must give an ε-DP, or with ``delta`` (ε, δ)-DP, model at every finite ε),
    "references" (non-private, drawn as a dashed rule) or "no_claim". The comparison
    (:func:`~dpviz.experiments.comparison.compare`), :func:`algorithm_table` and notebook 07's
    table, charts and explorer see it at once, each in its own colour. Its results are
    computed (and cached with the factory's code: a changed factory is recomputed), never
    shipped. ``replace``: redefine a name added by ``register`` (a built-in cannot be).
    """
    if kind not in KINDS:
        raise InvalidParameterError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameterError(f"name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise InvalidParameterError(f"factory must be callable, got {type(factory).__name__}")
    if name in BUILT_IN:
        raise InvalidParameterError(f"{name!r} is already a learner (built in)")
    if name in FACTORIES and not replace:
        raise InvalidParameterError(
            f"{name!r} is already a learner; pass replace=True to redefine it")
    for table in (ALGORITHMS, *KINDS.values()):
        table.pop(name, None)
    spec = Algorithm(name, paper or "registered with dpviz.experiments.registry.register",
                     dpviz or getattr(factory, "__qualname__", type(factory).__name__),
                     private=kind == "today", nominal_only=nominal_only,
                     binary_only=binary_only, delta=float(delta))
    KINDS[kind][name] = spec
    FACTORIES[name] = factory
    _changed()
    return spec


#: How many times :func:`register` and :func:`unregister` changed the learners: the runner's
#: in-process cache is emptied when it moves (a result remembered under a name may be another
#: factory's).
GENERATION = 0


def _changed() -> None:
    global GENERATION
    GENERATION += 1


def unregister(name: str) -> None:
    """Remove a learner :func:`register` added (a built-in one cannot be removed)."""
    if name not in registered():
        raise InvalidParameterError(f"{name!r} was not added by register()")
    del FACTORIES[name]
    for table in KINDS.values():
        table.pop(name, None)
    _changed()


def today() -> tuple[str, ...]:
    """Today's private learners, the built-in ones then those :func:`register` added."""
    return tuple(TODAY)


def make_estimator(
    algorithm: str, epsilon: float, data: Dataset, random_state: int = 0, *,
    n_train: int | None = None,
) -> Any:
    """An unfitted ``algorithm`` at ``epsilon`` (``math.inf``: no noise) on ``data``'s domain.

    ``n_train``: the protocol's number of training rows, public (chosen before any row is
    read), for an estimator whose settings use a public size (PrivaTree's ``n_public``).
    """
    factory = FACTORIES.get(algorithm)
    if factory is None:
        raise InvalidParameterError(f"unknown algorithm {algorithm!r}; known: {list(FACTORIES)}")
    provenance.note_factory(algorithm, factory)
    model = factory(epsilon, data, random_state)
    if n_train is not None and "n_public" in getattr(model, "get_params", dict)():
        model.set_params(n_public=int(n_train))
    return model
