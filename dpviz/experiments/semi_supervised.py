"""The semi-supervised experiments: RDT# against Private-RDT without the public rows.

RDT# (Jagannathan, Monteleoni & Pillaipakkamnatt 2013) needs something the other learners
do not get: rows from the same population that are *public* (no privacy cost) but
unlabeled. Every experiment with it goes through this module:

* :func:`protocol_split` and :func:`protocol_runs` — the paper's protocol (§V): a random
  10% of the rows is the test set; of the rest, ``fraction`` of the *whole* data set is
  private and labeled, the other rows are public and unlabeled (optionally only the first
  ``n_unlabeled`` of them). RDT# is compared with Private-RDT on the labeled rows alone,
  both with p = 5 trees and RDT#'s height min(⌊k/2⌋, ⌊log_b n⌋ + 1) for the public
  labeled size n, so the comparison isolates what the public rows add. One row per run.
* :class:`ProtocolRun` — one run of the protocol, for many ε: the split, the encoded rows
  and RDT#'s public structure are computed once; each ε is a refit on them
  (:meth:`~dpviz.trees.rdt_sharp.RDTSharpClassifier.refit_encoded`, equal to a fresh fit
  with the same seed).
* :func:`fit_method` — one fit of ``"rdt_sharp"`` (RDT#), ``"private_rdt"`` (Private-RDT,
  labeled rows) or ``"private_rdt_all"`` (Private-RDT, if the public rows were labeled: a
  reference with more private labeled data), on given labeled and public rows.
* :class:`SemiSupervisedArm` — the same as an estimator (``fit(X, y)`` / ``predict(X)``)
  that draws ``n_labeled + n_public`` of its training rows at random, for
  :func:`dpviz.experiments.holdout_accuracy` (notebook 07's RDT# comparison).
* :func:`fit_seed` — the seed of each fit, derived from the run's seed.

Seeds. The rows are paired: every method and setting of a run reads the split of the
run's seed, and the labeled sets of different fractions are nested prefixes of one
permutation. The fits are not: each (fraction, unlabeled size, method) gets its own
``random_state`` from :func:`fit_seed`. With one seed for all of them, two fits on
overlapping rows would share their trees and noise draws, so leaves empty in both would
get the same noisy counts and the pair would reveal which leaves are empty (two fits at
ε = 0.5 on nested rows are audited at ε ≥ 3.7, above the 1.0 of sequential composition:
``tests/test_semi_supervised.py::test_nested_fits_of_one_seed_are_not_covered_by_composition``).

The ε values of one run are different: RDT#'s refits and Private-RDT's fits at each ε
share their tree structures and noise on purpose. They are points of one curve ("what
would the release look like at ε?"), *not* releases to publish together: the
sequential-composition bound does not cover two of them side by side. To publish
several, fit each with its own ``random_state``.

Only the estimators' public API is used (``fit_encoded``, ``predict_encoded``,
``refit_encoded``, ``locate_encoded``, ``predict_located``, documented attributes).
Accuracies and errors are fractions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz.data.synthetic import boolean_tree_data
from dpviz.data.uci import Dataset, load
from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

__all__ = [
    "DATASETS",
    "METHODS",
    "N_PRIMARY",
    "ProtocolRun",
    "SemiSupervisedArm",
    "Split",
    "draw_rows",
    "fit_method",
    "fit_seed",
    "protocol_runs",
    "protocol_split",
    "rdt_sharp_dataset",
]

#: The data sets of RDT# §V: three UCI sets and the Boolean-tree synthetic set.
DATASETS = ("mushroom", "nursery", "votes", "synthetic")
#: Method keys and their display names.
METHODS = {
    "rdt_sharp": "RDT#",
    "private_rdt": "Private-RDT, labeled rows",
    "private_rdt_all": "Private-RDT, if public rows were labeled",
}
#: Primary trees p (RDT# §V), also Private-RDT's number of trees in the protocol.
N_PRIMARY = 5


def rdt_sharp_dataset(name: str) -> Dataset:
    """Nursery, Mushroom (no stalk-root), Votes, or ``"synthetic"`` (9 attributes, 2000 rows)."""
    if name == "synthetic":
        return boolean_tree_data(2000, 9, flip=0.05, random_state=0)
    return load(name)


def fit_seed(seed: int, *key: int) -> int:
    """An independent 63-bit seed for one fit, derived from a run's seed and the fit's key.

    Fits that read overlapping private rows must not share a ``random_state``: they would
    draw the same trees and the same noise, so leaves empty in both would release equal
    noisy counts, which reveals that they are empty. This gives each fit its own seed,
    from ``np.random.SeedSequence(entropy=seed, spawn_key=key)``.

    Parameters
    ----------
    seed : int
        The run's seed (an integer ≥ 0), e.g. the one of its split.
    *key : int
        What tells the fit apart from the run's other fits (integers ≥ 0, each below
        2**32), e.g. the labeled fraction in millionths, the unlabeled size and the
        method's index in :data:`METHODS`.

    Returns
    -------
    int
        A seed in [0, 2**63), a function of ``seed`` and ``key`` only; different keys or
        seeds give statistically independent seeds.
    """
    state = np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in key))
    return int(state.generate_state(2, np.uint64)[0] >> np.uint64(1))


def _method_index(method: str) -> int:
    """The position of a method (key or display name) in :data:`METHODS`: part of its fit seed."""
    return list(METHODS).index(_method_key(method))


def _method_key(method: str) -> str:
    """A method key from a key or a display name of :data:`METHODS`."""
    if method in METHODS:
        return method
    for key, label in METHODS.items():
        if method == label:
            return key
    raise InvalidParameterError(f"method must be one of {list(METHODS)}, got {method!r}")


@dataclass(frozen=True)
class Split:
    """Row positions of one run: private labeled, public unlabeled, test."""

    labeled: np.ndarray
    public: np.ndarray
    test: np.ndarray


def protocol_split(
    n_rows: int, fraction: float, seed: int, n_unlabeled: int | None = None
) -> Split:
    """The rows of one run of RDT#'s protocol (§V).

    A random 10% is the test set; of the rest, ``max(round(fraction·n_rows), 2)`` rows
    are the private labeled set and the others (the first ``n_unlabeled`` of them, if
    given) the public unlabeled set. The order is ``default_rng(seed).permutation``.
    """
    order = np.random.default_rng(seed).permutation(n_rows)
    n_test = n_rows // 10
    n_labeled = max(round(fraction * n_rows), 2)
    test, rest = order[:n_test], order[n_test:]
    public = rest[n_labeled:]
    if n_unlabeled is not None:
        public = public[:n_unlabeled]
    return Split(rest[:n_labeled], public, test)


def draw_rows(n_rows: int, n_labeled: int, n_public: int, seed: int) -> tuple[np.ndarray, ...]:
    """``n_labeled`` labeled and ``n_public`` public positions drawn from ``n_rows`` rows.

    The draw of :class:`SemiSupervisedArm`: ``default_rng([seed, 11]).permutation``.
    """
    rows = np.random.default_rng([seed, 11]).permutation(n_rows)[: n_labeled + n_public]
    return rows[:n_labeled], rows[n_labeled:]


def fit_method(
    method: str,
    codes: np.ndarray,
    labels: np.ndarray,
    domain: Domain,
    *,
    labeled: np.ndarray,
    public: np.ndarray,
    epsilon: float,
    random_state: int,
    n_secondary: int = 200,
    n_trees: int = N_PRIMARY,
    max_depth: int | str | None = "rdt_sharp",
) -> RDTSharpClassifier | PrivateRDTClassifier:
    """One fit of a method of :data:`METHODS` on encoded rows.

    Parameters
    ----------
    method : str
        ``"rdt_sharp"``, ``"private_rdt"`` or ``"private_rdt_all"`` (or a display name).
    codes, labels : ndarray
        All rows encoded with ``domain`` and their class codes.
    domain : Domain
    labeled, public : ndarray of int
        Positions of the private labeled rows and of the public rows (whose labels only
        ``"private_rdt_all"`` reads).
    epsilon : float
        Total ε of the fit.
    random_state : int
    n_secondary : int
        RDT#'s secondary trees t.
    n_trees : int
        Private-RDT's number of trees (RDT#'s p is always :data:`N_PRIMARY`).
    max_depth : int, None or "rdt_sharp"
        Private-RDT's height: ``"rdt_sharp"`` (default) the height RDT# uses for
        ``len(labeled)`` labeled rows; ``None`` Private-RDT's own default (k/2).

    Returns
    -------
    The fitted estimator.
    """
    method = _method_key(method)
    n_labeled = len(labeled)
    if method == "rdt_sharp":
        model = RDTSharpClassifier(
            epsilon, n_primary=N_PRIMARY, n_secondary=n_secondary, n_labeled=n_labeled,
            domain=domain, random_state=random_state,
        )
        return model.fit_encoded(codes[labeled], labels[labeled], domain, public=codes[public])
    if max_depth == "rdt_sharp":
        max_depth = RDTSharpClassifier(n_labeled=n_labeled).height(domain)
    rows = labeled if method == "private_rdt" else np.concatenate([labeled, public])
    model = PrivateRDTClassifier(
        epsilon, n_trees=n_trees, max_depth=max_depth, domain=domain, random_state=random_state
    )
    return model.fit_encoded(codes[rows], labels[rows], domain)


class SemiSupervisedArm:
    """One arm of an RDT# comparison as an estimator, fitted on a random draw of its rows.

    ``fit(X, y)`` draws ``n_labeled + n_public`` of the given rows (:func:`draw_rows`
    with ``random_state``): the first ``n_labeled`` are private and labeled, the others
    public (their labels are dropped, except by ``"private_rdt_all"``), and fits
    :func:`fit_method` on them. Private-RDT here uses its own defaults (``n_trees=10``,
    height k/2) unless told otherwise. For :func:`dpviz.experiments.holdout_accuracy`.

    Arms of different methods with the same ``random_state`` draw the same rows (paired
    comparisons) but fit with different seeds, ``fit_seed(random_state, i)`` for the
    method's index ``i`` in :data:`METHODS`, so that no two of them share noise. Arms of
    one method at several ε with the same ``random_state`` do share it: points of one
    curve, not releases to publish together.
    """

    def __init__(
        self,
        method: str,
        epsilon: float,
        n_labeled: int,
        n_public: int,
        n_secondary: int,
        domain: Domain,
        random_state: int,
        n_trees: int = 10,
        max_depth: int | str | None = None,
    ) -> None:
        self.method, self.epsilon = _method_key(method), epsilon
        self.n_labeled, self.n_public, self.n_secondary = n_labeled, n_public, n_secondary
        self.domain, self.random_state = domain, random_state
        self.n_trees, self.max_depth = n_trees, max_depth

    def fit(self, X: pd.DataFrame, y: Any) -> SemiSupervisedArm:
        """Draw the rows and fit the arm's estimator (``model_``)."""
        codes, labels = self.domain.encode(X), self.domain.encode_labels(y)
        labeled, public = draw_rows(len(codes), self.n_labeled, self.n_public, self.random_state)
        self.model_ = fit_method(
            self.method, codes, labels, self.domain, labeled=labeled, public=public,
            epsilon=self.epsilon, random_state=fit_seed(self.random_state,
                                                        _method_index(self.method)),
            n_secondary=self.n_secondary, n_trees=self.n_trees, max_depth=self.max_depth,
        )
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The fitted estimator's predictions."""
        return self.model_.predict(X)


class ProtocolRun:
    """One run of RDT#'s protocol, evaluated at any ε without redoing the public work.

    The split, the encoded rows, RDT#'s tree structures and centres and the cells of the
    test rows are computed once (at the first ε asked for); every ε is then a refit on the
    labeled rows (:meth:`RDTSharpClassifier.refit_encoded`, bit for bit a fresh fit with
    ``random_state=fit_seed_of("rdt_sharp")``) and a fresh Private-RDT fit, whose test rows'
    leaves are routed once per method (:meth:`PrivateRDTClassifier.locate_encoded`: its
    trees do not depend on ε, nor on which rows it is fitted on).

    The split comes from ``seed``, the same for every method (paired). Each method's fits
    use their own seed, :meth:`fit_seed_of` (from ``seed``, the fraction, the unlabeled
    size and the method), so that fits of different methods, fractions or unlabeled sizes
    never share noise. The ε values of one method do share it, on purpose: its models at
    several ε are *not* releases to publish together. Like separate fits with the same
    ``random_state``, they share the trees and the noise generator's draws (the same
    uniforms at every ε), so the sequential-composition bound (their ε added up) does not
    cover two of them side by side (``tests/test_rdt_sharp.py`` audits RDT#'s refits).
    They answer "what would the release look like at ε?"; to publish several, fit each
    with its own ``random_state``.

    Parameters
    ----------
    data : Dataset
    fraction : float
        Labeled rows, as a fraction of the whole data set.
    seed : int
        Seed of the split, and the run's seed from which each fit's seed is derived
        (:func:`fit_seed`).
    n_secondary : int
        RDT#'s secondary trees t.
    n_unlabeled : int, optional
        Use only this many public rows.
    """

    def __init__(
        self,
        data: Dataset,
        fraction: float,
        seed: int,
        *,
        n_secondary: int = 200,
        n_unlabeled: int | None = None,
    ) -> None:
        self.data, self.fraction, self.seed = data, fraction, seed
        self.n_secondary, self.n_unlabeled = n_secondary, n_unlabeled
        self.split = protocol_split(data.n_rows, fraction, seed, n_unlabeled)
        self.codes = data.domain.encode(data.X)
        self.labels = data.domain.encode_labels(data.y)
        self.depth = RDTSharpClassifier(n_labeled=self.n_labeled).height(data.domain)
        self._base: RDTSharpClassifier | None = None
        self._test_cells: np.ndarray | None = None
        self._labeled_cells: np.ndarray | None = None
        self._rdt_test_leaves: dict[str, list] = {}  # per Private-RDT method: its own trees

    @property
    def n_labeled(self) -> int:
        """Number of private labeled rows."""
        return len(self.split.labeled)

    @property
    def n_public(self) -> int:
        """Number of public unlabeled rows."""
        return len(self.split.public)

    @property
    def test_labels(self) -> np.ndarray:
        """Class codes of the test rows."""
        return self.labels[self.split.test]

    def fit_seed_of(self, method: str) -> int:
        """The ``random_state`` of the method's fits in this run (at every ε).

        :func:`fit_seed` of ``seed`` and the key (fraction in millionths, unlabeled size
        ``0`` for all the public rows or ``n_unlabeled + 1``, the method's index in
        :data:`METHODS`).
        """
        unlabeled = 0 if self.n_unlabeled is None else int(self.n_unlabeled) + 1
        return fit_seed(
            self.seed, round(self.fraction * 10**6), unlabeled, _method_index(method)
        )

    def rdt_sharp(self, epsilon: float) -> RDTSharpClassifier:
        """RDT# fitted at ``epsilon`` (the first call fits; later ones refit, sharing noise)."""
        labeled = self.split.labeled
        if self._base is None:
            self._base = fit_method(
                "rdt_sharp", self.codes, self.labels, self.data.domain, labeled=labeled,
                public=self.split.public, epsilon=epsilon,
                random_state=self.fit_seed_of("rdt_sharp"), n_secondary=self.n_secondary,
            )
            self._test_cells = self._base.locate_encoded(self.codes[self.split.test])
            self._labeled_cells = self._base.locate_encoded(self.codes[labeled])
            return self._base
        return self._base.refit_encoded(
            self.codes[labeled], self.labels[labeled], epsilon=epsilon, cells=self._labeled_cells
        )

    def predictions(self, method: str, epsilon: float) -> np.ndarray:
        """Class codes the method fitted at ``epsilon`` gives the test rows."""
        method = _method_key(method)
        if method == "rdt_sharp":
            model = self.rdt_sharp(epsilon)
            return model.predict_located(self._test_cells)
        model = fit_method(
            method, self.codes, self.labels, self.data.domain, labeled=self.split.labeled,
            public=self.split.public, epsilon=epsilon, random_state=self.fit_seed_of(method),
            max_depth=self.depth,
        )
        if method not in self._rdt_test_leaves:  # the method's trees: the same at every ε
            self._rdt_test_leaves[method] = model.locate_encoded(self.codes[self.split.test])
        return model.predict_located(self._rdt_test_leaves[method])

    def error(self, method: str, epsilon: float) -> float:
        """Test error (a fraction) of the method at ``epsilon``."""
        return float(np.mean(self.predictions(method, epsilon) != self.test_labels))

    def rows(self, epsilons: Sequence[float], methods: Sequence[str]) -> list[dict]:
        """One record per (ε, method): the run's settings, ``error`` and ``accuracy``."""
        out = []
        for epsilon in epsilons:
            for method in methods:
                error = self.error(method, epsilon)
                out.append({
                    "dataset": self.data.name, "fraction": self.fraction,
                    "n_labeled": self.n_labeled, "n_unlabeled": self.n_public,
                    "epsilon": epsilon, "method": _method_key(method), "run": self.seed,
                    "error": error, "accuracy": 1.0 - error,
                })
        return out


def protocol_runs(
    dataset: str | Dataset,
    *,
    fractions: Sequence[float],
    epsilons: Sequence[float] = (0.5,),
    methods: Sequence[str] = ("rdt_sharp", "private_rdt"),
    unlabeled: Sequence[int | None] = (None,),
    n_runs: int = 10,
    n_secondary: int = 200,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """RDT#'s protocol: one row per (fraction, unlabeled size, run, ε, method).

    Run ``r`` is :class:`ProtocolRun` with seed ``seed + r``: the split of that seed for
    every setting, so the methods and the ε values are compared on the same rows (paired);
    each (fraction, unlabeled size, method) fits with its own seed derived from it
    (:func:`fit_seed`), and the ε values of one method share it (points of one curve, not
    releases to publish together).

    Returns
    -------
    DataFrame
        ``dataset``, ``fraction``, ``n_labeled``, ``n_unlabeled``, ``epsilon``,
        ``method`` (a key of :data:`METHODS`), ``run``, ``error`` and ``accuracy``.
    """
    data = rdt_sharp_dataset(dataset) if isinstance(dataset, str) else dataset
    settings = [(f, u, r) for f in fractions for u in unlabeled for r in range(n_runs)]
    rows: list[dict] = []
    for fraction, n_unlabeled, run in tqdm(settings, disable=not progress, desc=data.name):
        protocol = ProtocolRun(
            data, fraction, seed + run, n_secondary=n_secondary, n_unlabeled=n_unlabeled
        )
        rows += protocol.rows(epsilons, methods)
    return pd.DataFrame(rows)
