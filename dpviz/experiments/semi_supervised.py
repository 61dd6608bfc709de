"""RDT#'s semi-supervised experiments (§V): RDT# against Private-RDT on the labeled rows alone.

The methods of a run read the same rows; each fit has its own seed (:func:`fit_seed`, keyed
on the rows it reads: :func:`split_key`; docs/privacy.md §8.3). Accuracies and errors are
fractions.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz.data import catalogue
from dpviz.data.synthetic import boolean_tree_data
from dpviz.data.uci import Dataset, load
from dpviz.domain import Domain, Encoded
from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int

if TYPE_CHECKING:  # the estimators (and scikit-learn) load with the first fit
    from dpviz.experiments.fast import Located
    from dpviz.trees.rdt import PrivateRDTClassifier
    from dpviz.trees.rdt_sharp import RDTSharpClassifier

#: The data sets of RDT# §V: three UCI sets and the Boolean-tree synthetic set.
DATASETS = catalogue.dataset_ids("mushroom", "nursery", "votes", "synthetic")
#: Method keys and their display names.
METHODS = {
    "rdt_sharp": "RDT#", "private_rdt": "Private-RDT, labeled rows",
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
    """An independent seed for one fit: ``SeedSequence(seed, spawn_key=key)`` (privacy.md §8.3)."""
    state = np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in key))
    return int(state.generate_state(2, np.uint64)[0] >> np.uint64(1))


def _method_key(method: str) -> str:
    """A method key from a key or a display name of :data:`METHODS`."""
    keys = {**{k: k for k in METHODS}, **{label: k for k, label in METHODS.items()}}
    if method not in keys:
        raise InvalidParameterError(f"method must be one of {list(METHODS)}, got {method!r}")
    return keys[method]


def _method_index(method: str) -> int:
    return list(METHODS).index(_method_key(method))


@dataclass(frozen=True)
class Split:
    """Row positions of one run: private labeled, public unlabeled, test."""

    labeled: np.ndarray
    public: np.ndarray
    test: np.ndarray


def protocol_split(
    n_rows: int, fraction: float, seed: int, n_unlabeled: int | None = None
) -> Split:
    """One run's rows (§V): 10% test, ``max(round(fraction·n_rows), 2)`` labeled, then public.

    Drawn by ``default_rng(seed).permutation``; ``n_unlabeled`` (an int >= 0) keeps that many
    public rows.
    """
    if n_unlabeled is not None:
        n_unlabeled = check_int(n_unlabeled, "n_unlabeled", minimum=0)
    order = np.random.default_rng(seed).permutation(n_rows)
    n_test = n_rows // 10
    n_labeled = max(round(fraction * n_rows), 2)
    test, rest = order[:n_test], order[n_test:]
    return Split(rest[:n_labeled], rest[n_labeled:][:n_unlabeled], test)


def split_key(split: Split) -> tuple[int, ...]:
    """The rows a fit reads as a key: 4 words of the SHA-256 of the labeled and public positions.

    Two splits that differ in any labeled or public row get different keys (up to a SHA-256
    collision), so :func:`fit_seed` gives their fits independent seeds (docs/privacy.md §8.3).
    """
    digest = hashlib.sha256()
    for positions in (split.labeled, split.public):
        rows = np.ascontiguousarray(positions, dtype="<i8")
        digest.update(len(rows).to_bytes(8, "little"))
        digest.update(rows.tobytes())
    head = digest.digest()[:16]
    return tuple(int.from_bytes(head[i:i + 4], "little") for i in range(0, 16, 4))


def draw_rows(n_rows: int, n_labeled: int, n_public: int, seed: int) -> tuple[np.ndarray, ...]:
    """``n_labeled`` labeled and ``n_public`` public positions: ``default_rng([seed, 11])``."""
    rows = np.random.default_rng([seed, 11]).permutation(n_rows)[: n_labeled + n_public]
    return rows[:n_labeled], rows[n_labeled:]


def fit_method(
    method: str, codes: np.ndarray, labels: np.ndarray, domain: Domain, *, labeled: np.ndarray,
    public: np.ndarray, epsilon: float, random_state: int, n_secondary: int = 200,
    n_trees: int = N_PRIMARY, max_depth: int | str | None = "rdt_sharp",
) -> RDTSharpClassifier | PrivateRDTClassifier:
    """One fit of a method of :data:`METHODS` on encoded rows.

    ``max_depth`` is Private-RDT's: ``"rdt_sharp"`` (RDT#'s height for ``len(labeled)``) or
    ``None`` (k/2); only ``"private_rdt_all"`` reads the public rows' labels.
    """
    from dpviz.trees.rdt import PrivateRDTClassifier
    from dpviz.trees.rdt_sharp import RDTSharpClassifier, height

    method = _method_key(method)
    n_labeled = len(labeled)
    if method == "rdt_sharp":
        model = RDTSharpClassifier(
            epsilon, n_primary=N_PRIMARY, n_secondary=n_secondary, n_labeled=n_labeled,
            domain=domain, random_state=random_state,
        )
        return model.fit(Encoded(codes[labeled], domain), domain.decode_labels(labels[labeled]),
                         Encoded(codes[public], domain))
    if max_depth == "rdt_sharp":
        max_depth = height(domain, n_labeled)
    rows = labeled if method == "private_rdt" else np.concatenate([labeled, public])
    model = PrivateRDTClassifier(
        epsilon, n_trees=n_trees, max_depth=max_depth, domain=domain, random_state=random_state
    )
    return model.fit(Encoded(codes[rows], domain), domain.decode_labels(labels[rows]))


class SemiSupervisedArm:
    """One arm of an RDT# comparison as an estimator (rows by :func:`draw_rows`).

    ``fit`` fits :func:`fit_method` with ``fit_seed(random_state, method index)``.
    """

    def __init__(
        self, method: str, epsilon: float, n_labeled: int, n_public: int, n_secondary: int,
        domain: Domain, random_state: int, n_trees: int = 10, max_depth: int | str | None = None,
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
            epsilon=self.epsilon,
            random_state=fit_seed(self.random_state, _method_index(self.method)),
            n_secondary=self.n_secondary, n_trees=self.n_trees, max_depth=self.max_depth,
        )
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The fitted estimator's predictions."""
        return self.model_.predict(X)


class ProtocolRun:
    """One run of RDT#'s protocol at any ε, the public work done once.

    Each ε refits RDT# (bit for bit a fresh fit) and fits Private-RDT, each method with
    :meth:`fit_seed_of` at every ε (docs/privacy.md §8.3). ``n_unlabeled``: an int >= 0 or
    None (every public row).
    """

    def __init__(
        self, data: Dataset, fraction: float, seed: int, *, n_secondary: int = 200,
        n_unlabeled: int | None = None, encoded: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        self.data, self.fraction, self.seed = data, fraction, seed
        if encoded is not None:  # (codes, labels) of every row, shared by the runs on ``data``
            self.codes, self.labels = encoded
        self.n_secondary, self.n_unlabeled = n_secondary, n_unlabeled
        self.split = protocol_split(data.n_rows, fraction, seed, n_unlabeled)
        self.n_labeled, self.n_public = len(self.split.labeled), len(self.split.public)
        self._base: RDTSharpClassifier | None = None
        self._test_cells: Located | None = None
        self._rdt_test_leaves: dict[str, Located] = {}  # per Private-RDT method: its trees

    @functools.cached_property
    def depth(self) -> int:
        """The trees' height: RDT#'s rule on the labeled rows (public: the fraction's)."""
        from dpviz.trees.rdt_sharp import height

        return height(self.data.domain, self.n_labeled)

    @functools.cached_property
    def codes(self) -> np.ndarray:
        """Every row of the data set encoded (on first use: the sizes above need none)."""
        return self.data.domain.encode(self.data.X)

    @functools.cached_property
    def labels(self) -> np.ndarray:
        """Every row's class code."""
        return self.data.domain.encode_labels(self.data.y)

    @functools.cached_property
    def test_labels(self) -> np.ndarray:
        """The test rows' class codes."""
        return self.labels[self.split.test]

    def fit_seed_of(self, method: str) -> int:
        """The method's seed: :func:`fit_seed` of the split's :func:`split_key` and the method.

        Keyed on the rows the fit reads, not on ``fraction``: two fractions that round alike
        but label different rows (0.2999999 and 0.3000001 of Votes' 435) get their own seeds.
        """
        return fit_seed(self.seed, *split_key(self.split), _method_index(method))

    def rdt_sharp(self, epsilon: float) -> RDTSharpClassifier:
        """RDT# fitted at ``epsilon`` (the first call fits; later ones refit, sharing noise)."""
        from dpviz.experiments import fast

        labeled = self.split.labeled
        if self._base is None:
            self._base = fit_method(
                "rdt_sharp", self.codes, self.labels, self.data.domain, labeled=labeled,
                public=self.split.public, epsilon=epsilon,
                random_state=self.fit_seed_of("rdt_sharp"), n_secondary=self.n_secondary,
            )
            self._test_cells = fast.locate(self._base, self.codes[self.split.test])
            return self._base
        return self._base.refit(Encoded(self.codes[labeled], self.data.domain),
                                self.data.domain.decode_labels(self.labels[labeled]),
                                epsilon=epsilon)

    def predictions(self, method: str, epsilon: float) -> np.ndarray:
        """Class codes the method fitted at ``epsilon`` gives the test rows."""
        from dpviz.experiments import fast

        method = _method_key(method)
        if method == "rdt_sharp":
            return fast.predict_located(self.rdt_sharp(epsilon), self._test_cells)
        model = fit_method(
            method, self.codes, self.labels, self.data.domain, labeled=self.split.labeled,
            public=self.split.public, epsilon=epsilon, random_state=self.fit_seed_of(method),
            max_depth=self.depth,
        )
        if method not in self._rdt_test_leaves:  # the method's trees: the same at every ε
            self._rdt_test_leaves[method] = fast.locate(model, self.codes[self.split.test])
        return fast.predict_located(model, self._rdt_test_leaves[method])

    def error(self, method: str, epsilon: float) -> float:
        """Test error (a fraction) of the method at ``epsilon``."""
        return float(np.mean(self.predictions(method, epsilon) != self.test_labels))

    def rows(self, epsilons: Sequence[float], methods: Sequence[str]) -> list[dict]:
        """One record per (ε, method): the run's settings, ``error`` and ``accuracy``."""
        return [{"dataset": self.data.name, "fraction": self.fraction,
                 "n_labeled": self.n_labeled, "n_unlabeled": self.n_public, "epsilon": epsilon,
                 "method": _method_key(method), "run": self.seed,
                 "error": (error := self.error(method, epsilon)), "accuracy": 1.0 - error}
                for epsilon in epsilons for method in methods]


def protocol_runs(
    dataset: str | Dataset, *, fractions: Sequence[float], epsilons: Sequence[float] = (0.5,),
    methods: Sequence[str] = ("rdt_sharp", "private_rdt"),
    unlabeled: Sequence[int | None] = (None,), n_runs: int = 10, n_secondary: int = 200,
    seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """RDT#'s protocol, one row per (fraction, unlabeled size, run, ε, method).

    Run ``r`` is :class:`ProtocolRun` with seed ``seed + r``.
    """
    data = rdt_sharp_dataset(dataset) if isinstance(dataset, str) else dataset
    settings = [(f, u, r) for f in fractions for u in unlabeled for r in range(n_runs)]
    rows: list[dict] = []
    encoded = None  # every row encoded once for all the runs (each run's first ε reads them)
    for fraction, n_unlabeled, run in tqdm(settings, disable=not progress, desc=data.name):
        protocol = ProtocolRun(
            data, fraction, seed + run, n_secondary=n_secondary, n_unlabeled=n_unlabeled,
            encoded=encoded,
        )
        rows += protocol.rows(epsilons, methods)
        if encoded is None and "codes" in vars(protocol):
            encoded = (protocol.codes, protocol.labels)
    return pd.DataFrame(rows)
