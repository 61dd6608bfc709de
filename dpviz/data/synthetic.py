"""Synthetic data sets of the four papers, generated from documented recipes.

Every generator returns a :class:`dpviz.data.uci.Dataset` whose
:class:`~dpviz.domain.Domain` is written down from the *generator's
parameters* (the list of values of a nominal attribute, the interval ``[0, 100]``
of a numeric one, the clipping range of a ``make_classification`` feature),
never learnt from the generated rows — so the domain is public, as a DP
algorithm needs it to be.

=============================  =============================================================
function                       paper and setting
=============================  =============================================================
:func:`boolean_tree_data`      JPW / RDT#: rows labelled by a Boolean decision tree, each
                               label flipped with probability 0.05
:func:`fs_random_tree_data`    FS §5.1: the random-tree generator (p_leaf, p_noise, numeric
                               attributes on [0, 100], a noiseless test set)
:func:`fs_single_split_data`   FS §5.1.1, Table 1 and Fig. 3: one split on one of ten binary
                               attributes, binary class
:func:`fs_numeric_split_data`  FS §5.1.1, Fig. 4 and Fig. 5: a split at 35 on a numeric
                               attribute over [0, 100]
:func:`fi_synth`               FI §2.4, Table 1: Synth A-G from scikit-learn's
                               ``make_classification`` (n = 30,000)
=============================  =============================================================

Randomness: ``random_state`` is an ``int`` seed, a :class:`numpy.random.Generator`
or ``None`` (fresh, unreproducible entropy). An ``int`` gives identical output on
every call. The FS and JPW generators split the seed into independent streams
(tree, training rows, training noise, test rows), so with the same seed

* ``p_noise=0`` (FS) or ``flip=0`` (JPW) returns the *same* rows with their
  noiseless labels, which is how the noise can be measured, and a larger noise
  level corrupts a superset of the cells corrupted by a smaller one;
* the generating tree and the test set do not depend on ``n_rows``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification

from dpviz.data.uci import Dataset
from dpviz.domain import Attribute, Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int, check_positive, check_probability, check_random_state

__all__ = [
    "FI_SYNTH_SETTINGS",
    "boolean_tree_data",
    "fi_synth",
    "fs_numeric_split_data",
    "fs_random_tree_data",
    "fs_single_split_data",
]

#: Accepted types of ``random_state``.
RandomState = int | np.random.Generator | None

# ---------------------------------------------------------------------------- citations
JPW_CITATION = (
    "G. Jagannathan, K. Pillaipakkamnatt, R. N. Wright. A Practical Differentially Private "
    "Random Decision Tree Classifier. IEEE ICDM Workshops 2009, pp. 114-121 "
    "(journal version: Transactions on Data Privacy 5 (2012) 273-295)."
)
JPW_URL = "https://doi.org/10.1109/ICDMW.2009.93"
RDT_SHARP_CITATION = (
    "G. Jagannathan, C. Monteleoni, K. Pillaipakkamnatt. A Semi-Supervised Learning Approach "
    "to Differential Privacy. IEEE ICDM Workshops 2013."
)
FS_CITATION = (
    "A. Friedman, A. Schuster. Data Mining with Differential Privacy. KDD 2010, §5.1 "
    "(generator adapted from P. Domingos, G. Hulten, Mining high-speed data streams, KDD 2000)."
)
FS_URL = "https://doi.org/10.1145/1835804.1835868"
FI_CITATION = (
    "S. Fletcher, M. Z. Islam. Differentially Private Random Decision Forests using Smooth "
    "Sensitivity. Expert Systems with Applications (2017) 16-31, §2.4 and Table 1; "
    "arXiv:1606.03572 (with the author's 2021 addendum)."
)
FI_URL = "https://doi.org/10.1016/j.eswa.2017.01.034"

#: Public range of every FS numeric attribute (FS §5.1.1: "numeric attributes over the
#: domain [0, 100]").
FS_NUMERIC_RANGE = (0.0, 100.0)

#: Largest number of lines of a generating tree printed into a description.
_MAX_TREE_LINES = 200


# ---------------------------------------------------------------------------- randomness
def _streams(random_state: object, k: int) -> list[np.random.Generator]:
    """``k`` independent generators derived from ``random_state`` (reproducible for an int)."""
    root = check_random_state(random_state)
    entropy = [int(v) for v in root.integers(0, 2**32, size=4, dtype=np.uint64)]
    return [np.random.default_rng(s) for s in np.random.SeedSequence(entropy).spawn(k)]


# ---------------------------------------------------------------------------- trees
@dataclass
class _Node:
    """A node of a generating tree.

    A leaf has ``attribute is None`` and a class ``label``. An inner node tests
    column ``attribute``: a nominal test has one child per value code, a
    numeric test (``threshold`` set) has two children, ``x <= threshold`` and
    ``x > threshold``.
    """

    attribute: int | None = None
    threshold: float | None = None
    children: list[_Node] = field(default_factory=list)
    label: int | None = None

    @property
    def is_leaf(self) -> bool:
        return self.attribute is None

    def depth(self) -> int:
        """Return the number of tests on the longest root-to-leaf path."""
        return 0 if self.is_leaf else 1 + max(c.depth() for c in self.children)

    def n_leaves(self) -> int:
        """Return the number of leaves."""
        return 1 if self.is_leaf else sum(c.n_leaves() for c in self.children)


def _classify(tree: _Node, x: np.ndarray) -> np.ndarray:
    """Label the rows of ``X`` (nominal codes and numeric values, as floats) by ``tree``."""
    out = np.empty(x.shape[0], dtype=np.int64)

    def walk(node: _Node, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        if node.is_leaf:
            out[idx] = node.label
            return
        col = x[idx, node.attribute]
        if node.threshold is None:
            for code, child in enumerate(node.children):
                walk(child, idx[col == code])
        else:
            walk(node.children[0], idx[col <= node.threshold])
            walk(node.children[1], idx[col > node.threshold])

    walk(tree, np.arange(x.shape[0]))
    return out


def _render_tree(tree: _Node, attributes: Sequence[Attribute]) -> str:
    """Indented text of ``tree`` (or a one-line summary if it is too large to print)."""
    lines: list[str] = []

    def walk(node: _Node, indent: str) -> None:
        if len(lines) > _MAX_TREE_LINES:
            return
        a = attributes[node.attribute]  # type: ignore[index]
        if node.threshold is None:
            conditions = [f"{a.name} = {v}" for v in a.values]  # type: ignore[union-attr]
        else:
            conditions = [f"{a.name} <= {node.threshold:.4g}", f"{a.name} > {node.threshold:.4g}"]
        for condition, child in zip(conditions, node.children, strict=True):
            if child.is_leaf:
                lines.append(f"{indent}{condition}: class {child.label}")
            else:
                lines.append(f"{indent}{condition}:")
                walk(child, indent + "  ")

    if tree.is_leaf:
        return f"(a single leaf: class {tree.label})"
    walk(tree, "  ")
    if len(lines) > _MAX_TREE_LINES:
        return f"  (depth {tree.depth()}, {tree.n_leaves()} leaves: too large to print)"
    return "\n".join(lines)


def _random_boolean_tree(rng: np.random.Generator, n_attributes: int, depth: int) -> _Node:
    """Draw the JPW-style tree of :func:`boolean_tree_data` (see there)."""

    def grow(level: int, unused: list[int]) -> _Node:
        j = unused[int(rng.integers(len(unused)))]
        rest = [u for u in unused if u != j]
        if level == depth - 1:  # the two children are leaves with opposite classes
            b = int(rng.integers(2))
            return _Node(attribute=j, children=[_Node(label=b), _Node(label=1 - b)])
        return _Node(attribute=j, children=[grow(level + 1, rest), grow(level + 1, rest)])

    return grow(0, list(range(n_attributes)))


def _random_fs_tree(
    rng: np.random.Generator,
    is_numeric: Sequence[bool],
    n_values: int,
    depth: int,
    n_classes: int,
    p_leaf: float,
) -> _Node:
    """Draw the FS §5.1 random tree of :func:`fs_random_tree_data` (see there)."""
    k = len(is_numeric)

    def grow(level: int, used: frozenset[int], intervals: dict[int, tuple[float, float]]) -> _Node:
        available = [j for j in range(k) if is_numeric[j] or j not in used]
        if level >= depth or not available:
            return _Node(label=int(rng.integers(n_classes)))
        if level >= 2 and rng.random() < p_leaf:  # "starting from the third level"
            return _Node(label=int(rng.integers(n_classes)))
        j = available[int(rng.integers(len(available)))]
        if is_numeric[j]:
            low, high = intervals.get(j, FS_NUMERIC_RANGE)
            t = float(rng.uniform(low, high))
            return _Node(
                attribute=j,
                threshold=t,
                children=[
                    grow(level + 1, used, {**intervals, j: (low, t)}),
                    grow(level + 1, used, {**intervals, j: (t, high)}),
                ],
            )
        return _Node(
            attribute=j,
            children=[grow(level + 1, used | {j}, intervals) for _ in range(n_values)],
        )

    return grow(0, frozenset(), {})


# ---------------------------------------------------------------------------- FS rows
def _fs_attributes(n_nominal: int, n_values: int, n_numeric: int) -> list[Attribute]:
    """Nominal ``a0..`` with values ``"0".."m-1"``, then numeric ``x0..`` on [0, 100]."""
    values = tuple(str(v) for v in range(n_values))
    attrs: list[Attribute] = [Categorical(f"a{j}", values) for j in range(n_nominal)]
    attrs += [Numeric(f"x{j}", *FS_NUMERIC_RANGE) for j in range(n_numeric)]
    return attrs


def _uniform_rows(
    rng: np.random.Generator, n: int, is_numeric: np.ndarray, n_values: int
) -> np.ndarray:
    """``n`` rows drawn uniformly: nominal codes in 0..m-1, numeric values on [0, 100]."""
    codes = rng.integers(0, n_values, size=(n, is_numeric.size)).astype(np.float64)
    values = rng.uniform(*FS_NUMERIC_RANGE, size=(n, is_numeric.size))
    return np.where(is_numeric, values, codes)


def _add_fs_noise(
    rng: np.random.Generator,
    x: np.ndarray,
    y: np.ndarray,
    is_numeric: np.ndarray,
    n_values: int,
    n_classes: int,
    p_noise: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Replace each attribute value and each class by a uniform draw with probability p_noise.

    The draws are made whatever ``p_noise`` is, so for one seed the corrupted
    cells of a smaller ``p_noise`` are a subset of those of a larger one.
    """
    n, k = x.shape
    u = rng.random((n, k + 1))
    replacement = _uniform_rows(rng, n, is_numeric, n_values)
    new_labels = rng.integers(0, n_classes, size=n)
    x = np.where(u[:, :k] < p_noise, replacement, x)
    y = np.where(u[:, k] < p_noise, new_labels, y)
    return x, y


def _frame(x: np.ndarray, attributes: Sequence[Attribute]) -> pd.DataFrame:
    """Build a DataFrame from encoded rows (nominal columns hold the value strings)."""
    data: dict[str, object] = {}
    for j, a in enumerate(attributes):
        if isinstance(a, Categorical):
            values = np.array(a.values, dtype=object)
            data[a.name] = pd.Series(values[x[:, j].astype(np.int64)], dtype=str)
        else:
            data[a.name] = x[:, j].astype(np.float64)
    return pd.DataFrame(data)


def _labels(y: np.ndarray) -> pd.Series:
    return pd.Series(np.asarray(y, dtype=np.int64), name="class")


def _fs_dataset(
    *,
    name: str,
    tree: _Node,
    attributes: list[Attribute],
    n_values: int,
    n_classes: int,
    p_noise: float,
    n_rows: int,
    n_test: int,
    streams: list[np.random.Generator],
    description: str,
    n_bins: int | None = None,
) -> Dataset:
    """Generate noisy training rows and a noiseless test set from ``tree`` (FS §5.1)."""
    tree_rows, noise_rng, test_rows = streams
    is_numeric = np.array([not a.is_categorical for a in attributes])
    x = _uniform_rows(tree_rows, n_rows, is_numeric, n_values)
    y = _classify(tree, x)
    x, y = _add_fs_noise(noise_rng, x, y, is_numeric, n_values, n_classes, p_noise)
    domain = Domain(attributes, tuple(range(n_classes)), target="class")
    if n_bins is not None:
        domain, x = _discretize(domain, x, n_bins)
    test = None
    if n_test > 0:
        x_test = _uniform_rows(test_rows, n_test, is_numeric, n_values)
        y_test = _classify(tree, x_test)
        if n_bins is not None:
            _, x_test = _discretize(Domain(attributes, domain.classes), x_test, n_bins)
        test = Dataset(
            name=f"{name}-test",
            X=_frame(x_test, domain.attributes),
            y=_labels(y_test),
            domain=domain,
            citation=FS_CITATION,
            description=(
                f"Noiseless test set of {name}: {n_test} rows drawn uniformly and labelled by "
                "the same generating tree as the training rows, without any noise (FS §5.1)."
            ),
            url=FS_URL,
        )
    return Dataset(
        name=name,
        X=_frame(x, domain.attributes),
        y=_labels(y),
        domain=domain,
        citation=FS_CITATION,
        description=description,
        url=FS_URL,
        test=test,
    )


def _bin_labels(n_bins: int) -> tuple[str, ...]:
    low, high = FS_NUMERIC_RANGE
    edges = np.linspace(low, high, n_bins + 1)
    labels = [f"[{edges[b]:g}, {edges[b + 1]:g})" for b in range(n_bins - 1)]
    labels.append(f"[{edges[-2]:g}, {edges[-1]:g}]")
    return tuple(labels)


def _discretize(domain: Domain, x: np.ndarray, n_bins: int) -> tuple[Domain, np.ndarray]:
    """Replace every numeric attribute by ``n_bins`` equal-width bins of [0, 100] (FS Fig. 5)."""
    low, high = FS_NUMERIC_RANGE
    x = x.copy()
    attributes: list[Attribute] = []
    labels = _bin_labels(n_bins)
    for j, a in enumerate(domain.attributes):
        if isinstance(a, Numeric):
            codes = np.floor((x[:, j] - low) / (high - low) * n_bins)
            x[:, j] = np.clip(codes, 0, n_bins - 1)
            attributes.append(Categorical(a.name, labels))
        else:
            attributes.append(a)
    return Domain(attributes, domain.classes, target=domain.target), x


def _check_n_test(n_test: object) -> int:
    return check_int(n_test, "n_test", minimum=0)


# ---------------------------------------------------------------------------- JPW / RDT#
def boolean_tree_data(
    n_rows: int = 2000,
    n_attributes: int = 9,
    *,
    depth: int | None = None,
    flip: float = 0.05,
    random_state: RandomState = None,
) -> Dataset:
    """Rows labelled by a random Boolean decision tree, labels flipped with probability ``flip``.

    JPW (§VI, Table II, Fig. 9-12) and RDT# (§V, Table I, Fig. 9) use data
    "generated from a handmade Boolean decision tree", adding noise "by
    flipping each class label with a probability of 0.05". The trees are not
    published (JPW's Fig. 12 is an image), so this generator draws one at
    random, as follows (dpviz's choice, not the papers'):

    * the tree is *complete* to ``depth``: every root-to-leaf path has
      ``depth`` tests;
    * each inner node tests a binary attribute drawn uniformly among those not
      yet tested on its path (different branches may test different
      attributes), with branch ``"0"`` first and ``"1"`` second;
    * the two leaves under each bottom test get opposite classes (which one
      gets class 1 is a fair coin), so every test on the tree matters and
      both classes have probability exactly 1/2 — RDT#'s synthetic set has
      49.3% / 50.7%.

    Attribute values are drawn independently and uniformly, each row is
    labelled by the tree, then each label is flipped independently with
    probability ``flip``. The generating tree is printed in ``description``.

    Parameters
    ----------
    n_rows : int, default 2000
        Number of rows (RDT#'s synthetic set: 2000; JPW's sets 1-3: 16000, 14000, 14000).
    n_attributes : int, default 9
        Number of binary attributes (RDT#: 9; JPW's sets 1-3: 10, 6, 7).
    depth : int, optional
        Number of tests on every root-to-leaf path, ``1 <= depth <= n_attributes``.
        Default ``max(1, n_attributes // 2)`` (dpviz's choice: ⌊k/2⌋ is also the
        height JPW and RDT# give their random trees).
    flip : float, default 0.05
        Probability of flipping each class label (JPW, RDT#: 0.05).
    random_state : int, numpy.random.Generator or None
        Seed or generator; an int gives identical output on every call. With the
        same seed, ``flip=0`` returns the same rows with their noiseless labels.

    Returns
    -------
    Dataset
        ``name="jpw-boolean-tree"``; attributes ``a0 .. a{k-1}`` categorical
        with values ``"0"``, ``"1"``; classes ``0``, ``1``; no test set.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range (the message names it).
    """
    n_rows = check_int(n_rows, "n_rows", minimum=1)
    n_attributes = check_int(n_attributes, "n_attributes", minimum=1)
    if depth is None:
        depth = max(1, n_attributes // 2)
    depth = check_int(depth, "depth", minimum=1)
    if depth > n_attributes:
        raise InvalidParameterError(
            f"depth must be <= n_attributes ({n_attributes}): a path tests each "
            f"Boolean attribute at most once, got {depth}"
        )
    flip = check_probability(flip, "flip")
    tree_rng, rows_rng, flip_rng = _streams(random_state, 3)

    tree = _random_boolean_tree(tree_rng, n_attributes, depth)
    attributes: list[Attribute] = [Categorical(f"a{j}", ("0", "1")) for j in range(n_attributes)]
    x = rows_rng.integers(0, 2, size=(n_rows, n_attributes)).astype(np.float64)
    y = _classify(tree, x)
    y = np.where(flip_rng.random(n_rows) < flip, 1 - y, y)
    domain = Domain(attributes, (0, 1), target="class")
    description = (
        f"{n_rows} rows, {n_attributes} uniform binary attributes, labelled by a random "
        f"complete Boolean decision tree of depth {depth} (sibling leaves at the bottom carry "
        f"opposite classes), each label flipped with probability {flip:g} "
        "(JPW / RDT#: 'a handmade Boolean decision tree', flip probability 0.05; RDT#'s set: "
        "9 attributes, 2000 rows). Generating tree:\n" + _render_tree(tree, attributes)
    )
    return Dataset(
        name="jpw-boolean-tree",
        X=_frame(x, attributes),
        y=_labels(y),
        domain=domain,
        citation=f"{JPW_CITATION} Also: {RDT_SHARP_CITATION}",
        description=description,
        url=JPW_URL,
    )


# ---------------------------------------------------------------------------- FS §5.1
def fs_random_tree_data(
    n_rows: int,
    *,
    n_attributes: int = 10,
    n_values: int = 2,
    depth: int = 5,
    n_classes: int = 2,
    p_leaf: float = 0.3,
    p_noise: float = 0.1,
    n_numeric: int = 0,
    n_test: int = 10_000,
    random_state: RandomState = None,
) -> Dataset:
    """Generate FS §5.1 random-tree data: noisy training rows and a noiseless test set.

    FS §5.1 (adapted from Domingos & Hulten 2000): "we randomly generate a
    decision tree up to a predetermined depth. The attributes are picked
    uniformly without repeating nominal attributes on the path from the root
    to the leaf. Starting from the third level of the tree, with probability
    p_leaf = 0.3 we turn nodes to leaves. The class for each leaf is sampled
    uniformly. [...] we sample points with uniform distribution and classify
    them with the generated tree. [...] replacing each value with probability
    p_noise [...] The replacement is chosen uniformly, possibly repeating the
    original value. For testing, we generated similarly a noiseless test set
    with 10,000 records." Precisely, here:

    * the root is the first level; a node at level 3 or deeper (two or more
      tests above it) becomes a leaf with probability ``p_leaf``; a node with
      ``depth`` tests above it is always a leaf, as is a node with no attribute
      left to test (only possible if ``depth`` exceeds the number of nominal
      attributes and there is no numeric one);
    * an inner node tests an attribute drawn uniformly among the nominal
      attributes not tested above it and *all* numeric attributes (a numeric
      attribute may be tested again on a path, as FS's wording implies);
    * a nominal test has one branch per value; a numeric test is a binary
      split ``x <= t`` / ``x > t`` with ``t`` uniform on the interval still
      reachable for that attribute on the path — ``[0, 100]`` at its first test
      (the paper does not say how thresholds are drawn: dpviz's choice, which
      never creates an empty branch);
    * each leaf's class is uniform over ``0 .. n_classes-1`` (independently, so
      sibling leaves may agree, as in the paper);
    * rows: nominal values uniform over their ``n_values`` values, numeric
      values uniform on ``[0, 100]``; labelled by the tree; then every
      attribute value and the class are *independently* replaced, with
      probability ``p_noise``, by a uniform draw from their domain (possibly
      the same value), so a nominal value changes with probability
      ``p_noise * (1 - 1/n_values)``;
    * ``.test`` holds ``n_test`` rows from the same tree without noise.

    FS's experiments (§5.1.2): depths 3, 5 and 10; attributes and class with
    2, 3 or 5 values; 1,000 to 50,000 training rows; Fig. 6 is ``depth=5``,
    10 binary attributes, binary class; Fig. 7 is ``n_numeric=3`` (7 binary
    and 3 numeric attributes).

    Parameters
    ----------
    n_rows : int
        Number of training rows (FS: 1,000 to 50,000).
    n_attributes : int, default 10
        Total number of attributes, nominal and numeric (FS: 10).
    n_values : int, default 2
        Number of values of every nominal attribute (FS: 2, 3 or 5; Fig. 6-7: 2).
    depth : int, default 5
        Maximum number of tests on a root-to-leaf path (FS: 3, 5 or 10; Fig. 6-7: 5).
    n_classes : int, default 2
        Number of classes (FS: 2, 3 or 5; Fig. 6-7: 2).
    p_leaf : float, default 0.3
        Probability of turning a node of level ≥ 3 into a leaf (FS: 0.3).
    p_noise : float, default 0.1
        Probability of replacing each attribute value and each class in the
        training rows (FS: 0, 0.1 or 0.2; §5.1.1 reports 0.1).
    n_numeric : int, default 0
        How many of the ``n_attributes`` are numeric on ``[0, 100]`` (FS Fig. 7: 3).
    n_test : int, default 10000
        Rows of the noiseless test set (FS: 10,000); 0 for no test set.
    random_state : int, numpy.random.Generator or None
        Seed or generator. With the same seed the tree and the test set do not
        depend on ``n_rows`` or ``p_noise``, and ``p_noise=0`` gives the
        noiseless version of the same training rows.

    Returns
    -------
    Dataset
        ``name="fs-random-tree"``; nominal attributes ``a0 ..`` with values
        ``"0" .. "m-1"``, then numeric attributes ``x0 ..`` on ``[0, 100]``;
        classes ``0 .. n_classes-1``; the noiseless test set in ``.test``.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range (the message names it).
    """
    n_rows = check_int(n_rows, "n_rows", minimum=1)
    n_attributes = check_int(n_attributes, "n_attributes", minimum=1)
    n_values = check_int(n_values, "n_values", minimum=2)
    depth = check_int(depth, "depth", minimum=1)
    n_classes = check_int(n_classes, "n_classes", minimum=2)
    p_leaf = check_probability(p_leaf, "p_leaf")
    p_noise = check_probability(p_noise, "p_noise")
    n_numeric = check_int(n_numeric, "n_numeric", minimum=0)
    if n_numeric > n_attributes:
        raise InvalidParameterError(
            f"n_numeric must be <= n_attributes ({n_attributes}), got {n_numeric}"
        )
    n_test = _check_n_test(n_test)
    tree_rng, *streams = _streams(random_state, 4)

    attributes = _fs_attributes(n_attributes - n_numeric, n_values, n_numeric)
    is_numeric = [not a.is_categorical for a in attributes]
    tree = _random_fs_tree(tree_rng, is_numeric, n_values, depth, n_classes, p_leaf)
    description = (
        f"FS §5.1 random-tree data: {n_rows} training rows, {n_attributes - n_numeric} nominal "
        f"attributes with {n_values} values and {n_numeric} numeric attributes on [0, 100], "
        f"{n_classes} classes; random tree of maximum depth {depth} (actual depth "
        f"{tree.depth()}, {tree.n_leaves()} leaves) with p_leaf = {p_leaf:g} from the third "
        f"level on; training attribute values and classes replaced with probability "
        f"p_noise = {p_noise:g}. Generating tree:\n" + _render_tree(tree, attributes)
    )
    return _fs_dataset(
        name="fs-random-tree",
        tree=tree,
        attributes=attributes,
        n_values=n_values,
        n_classes=n_classes,
        p_noise=p_noise,
        n_rows=n_rows,
        n_test=n_test,
        streams=streams,
        description=description,
    )


def fs_single_split_data(
    n_rows: int,
    *,
    n_attributes: int = 10,
    p_noise: float = 0.1,
    n_test: int = 10_000,
    random_state: RandomState = None,
) -> Dataset:
    """FS §5.1.1 (Table 1, Fig. 3): a single split on one of ten binary attributes.

    "We created a tree with a single split (depth 1), with ten binary
    attributes and a binary class, which takes a different value in each
    leaf." Here: the split attribute is drawn uniformly among the
    ``n_attributes``, and which leaf gets class 1 is a fair coin, so the
    noiseless class is either the attribute's value or its negation. Rows and
    noise follow :func:`fs_random_tree_data` (uniform binary values; each value
    and the class replaced by a uniform draw with probability ``p_noise``).
    A depth-1 (non-private) ID3 finds the split every time; FS's Table 1 ID3
    column is an unlimited-depth ID3 that overfits the noisy rows.

    Parameters
    ----------
    n_rows : int
        Number of training rows (FS Table 1: 1,000 to 5,000; Fig. 3: 100 to 5,000).
    n_attributes : int, default 10
        Number of binary attributes (FS: 10).
    p_noise : float, default 0.1
        Noise probability of the training rows (FS Table 1, Fig. 3: 0.1).
    n_test : int, default 10000
        Rows of the noiseless test set (FS: 10,000); 0 for none.
    random_state : int, numpy.random.Generator or None
        Seed or generator (see :func:`fs_random_tree_data`).

    Returns
    -------
    Dataset
        ``name="fs-single-split"``; attributes ``a0 ..`` with values ``"0"``,
        ``"1"``; classes ``0``, ``1``; the noiseless test set in ``.test``. The
        split attribute is named in ``description``.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range (the message names it).
    """
    n_rows = check_int(n_rows, "n_rows", minimum=1)
    n_attributes = check_int(n_attributes, "n_attributes", minimum=1)
    p_noise = check_probability(p_noise, "p_noise")
    n_test = _check_n_test(n_test)
    tree_rng, *streams = _streams(random_state, 4)

    attributes = _fs_attributes(n_attributes, 2, 0)
    j = int(tree_rng.integers(n_attributes))
    b = int(tree_rng.integers(2))
    tree = _Node(attribute=j, children=[_Node(label=b), _Node(label=1 - b)])
    description = (
        f"FS §5.1.1 single split: {n_rows} training rows, {n_attributes} uniform binary "
        f"attributes, the binary class decided by {attributes[j].name} alone; training values "
        f"and classes replaced with probability p_noise = {p_noise:g}. Generating tree:\n"
        + _render_tree(tree, attributes)
    )
    return _fs_dataset(
        name="fs-single-split",
        tree=tree,
        attributes=attributes,
        n_values=2,
        n_classes=2,
        p_noise=p_noise,
        n_rows=n_rows,
        n_test=n_test,
        streams=streams,
        description=description,
    )


def fs_numeric_split_data(
    n_rows: int,
    *,
    threshold: float = 35.0,
    p_noise: float = 0.1,
    n_test: int = 10_000,
    n_bins: int | None = None,
    random_state: RandomState = None,
) -> Dataset:
    """FS §5.1.1 (Fig. 4, Fig. 5): a single split at 35 on a numeric attribute over [0, 100].

    Fig. 4: "Three of the ten attributes were replaced with numeric attributes
    over the domain [0, 100], and one of them was used to split the tree with a
    split point placed at the value 35" — the single-split setting of
    :func:`fs_single_split_data` with 7 binary attributes ``a0 .. a6`` and 3
    numeric ones ``x0 .. x2``. The split attribute is drawn uniformly among
    the three numeric ones and which side gets class 1 is a fair coin. Noise
    as in FS §5.1 (a numeric value is replaced by a uniform draw on [0, 100]).

    Fig. 5 (``p_noise=0.0``, ``n_bins=10``) compares this with the data
    "discretized by dividing the range of each numeric attribute to 10 equal
    bins", deliberately mismatching the split point 35.

    Parameters
    ----------
    n_rows : int
        Number of training rows.
    threshold : float, default 35.0
        Split point, strictly inside (0, 100) (FS: 35).
    p_noise : float, default 0.1
        Noise probability of the training rows (FS Fig. 4: 0.1; Fig. 5: 0.0).
    n_test : int, default 10000
        Rows of the noiseless test set (FS: 10,000); 0 for none.
    n_bins : int, optional
        If given, every numeric attribute of the training and test rows is
        replaced by a categorical attribute of ``n_bins`` equal-width bins of
        [0, 100] labelled ``"[0, 10)" .. "[90, 100]"`` (FS Fig. 5: 10). The
        labels still come from the numeric split.
    random_state : int, numpy.random.Generator or None
        Seed or generator (see :func:`fs_random_tree_data`); with the same seed
        the binned data is the binned version of the unbinned data.

    Returns
    -------
    Dataset
        ``name="fs-numeric-split"`` (``"fs-numeric-split-binned"`` with
        ``n_bins``); classes ``0``, ``1``; the noiseless test set in ``.test``.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range (the message names it).
    """
    n_rows = check_int(n_rows, "n_rows", minimum=1)
    threshold = check_positive(threshold, "threshold")
    low, high = FS_NUMERIC_RANGE
    if not low < threshold < high:
        raise InvalidParameterError(
            f"threshold must lie strictly inside ({low:g}, {high:g}), got {threshold!r}"
        )
    p_noise = check_probability(p_noise, "p_noise")
    n_test = _check_n_test(n_test)
    if n_bins is not None:
        n_bins = check_int(n_bins, "n_bins", minimum=2)
    tree_rng, *streams = _streams(random_state, 4)

    attributes = _fs_attributes(7, 2, 3)
    j = 7 + int(tree_rng.integers(3))
    b = int(tree_rng.integers(2))
    tree = _Node(attribute=j, threshold=threshold, children=[_Node(label=b), _Node(label=1 - b)])
    binned = "" if n_bins is None else (
        f" Numeric attributes then discretised into {n_bins} equal-width bins of [0, 100] "
        "(FS Fig. 5)."
    )
    description = (
        f"FS §5.1.1 numeric split: {n_rows} training rows, 7 uniform binary attributes and 3 "
        f"numeric attributes uniform on [0, 100]; the binary class is decided by "
        f"{attributes[j].name} <= {threshold:g}; training values and classes replaced with "
        f"probability p_noise = {p_noise:g}.{binned} Generating tree:\n"
        + _render_tree(tree, attributes)
    )
    return _fs_dataset(
        name="fs-numeric-split" if n_bins is None else "fs-numeric-split-binned",
        tree=tree,
        attributes=attributes,
        n_values=2,
        n_classes=2,
        p_noise=p_noise,
        n_rows=n_rows,
        n_test=n_test,
        streams=streams,
        description=description,
        n_bins=n_bins,
    )


# ---------------------------------------------------------------------------- FI Table 1
@dataclass(frozen=True)
class _FISetting:
    n_informative: int
    n_random: int
    depth: int  # FI Table 4 (for reference only)

    @property
    def n_features(self) -> int:
        return self.n_informative + self.n_random

    @property
    def bound(self) -> float:
        """Default public clipping bound B of every feature: two typical standard deviations.

        See :func:`fi_synth`: ``ceil(2 * sqrt(n_informative / 3 + class_sep**2))``.
        """
        return float(math.ceil(2.0 * math.sqrt(self.n_informative / 3.0 + _FI_CLASS_SEP**2)))

    @property
    def wide_bound(self) -> float:
        """Clipping bound that almost never clips: ``ceil(class_sep + 4 sqrt(n_informative))``."""
        return float(math.ceil(_FI_CLASS_SEP + 4.0 * math.sqrt(self.n_informative)))


_FI_CLASS_SEP = 1.0  # make_classification's default, not changed by FI
_FI_N_ROWS = 30_000

# FI Table 1 (n_informative, n_random) and Table 4 (depth); all features continuous.
_FI_TABLE = MappingProxyType({
    "A": _FISetting(5, 0, 5),
    "B": _FISetting(10, 0, 8),
    "C": _FISetting(15, 0, 12),
    "D": _FISetting(10, 5, 12),
    "E": _FISetting(5, 10, 12),
    "F": _FISetting(5, 5, 8),
    "G": _FISetting(10, 10, 15),
})


def _fi_kwargs(s: _FISetting) -> dict[str, object]:
    """Return the ``make_classification`` arguments of one FI setting (FI §2.4 non-defaults)."""
    return {
        "n_features": s.n_features,
        "n_informative": s.n_informative,
        "n_redundant": 0,
        "n_repeated": 0,
        "n_classes": 2,
    }


#: FI Table 1 as a DataFrame (a copy: editing it does not change :func:`fi_synth`).
#: Columns: ``n_informative`` and ``n_random`` (Table 1), ``n_features`` (their sum, the
#: "continuous features" of Table 4), ``discrete_features`` (0), ``n_classes`` (2,
#: "a balanced binary class"), ``n_rows`` (30,000), ``depth`` (FI's forest depth,
#: Table 4) and ``bound`` (dpviz's public clipping range ``[-bound, bound]``).
FI_SYNTH_SETTINGS: pd.DataFrame = pd.DataFrame(
    [
        {
            "dataset": f"Synth{letter}",
            "n_informative": s.n_informative,
            "n_random": s.n_random,
            "n_features": s.n_features,
            "discrete_features": 0,
            "n_classes": 2,
            "n_rows": _FI_N_ROWS,
            "depth": s.depth,
            "bound": s.bound,
        }
        for letter, s in _FI_TABLE.items()
    ],
    index=pd.Index(list(_FI_TABLE), name="name"),
)


def fi_synth(
    name: str,
    *,
    n_rows: int = 30_000,
    bound: float | str = "typical",
    random_state: RandomState = None,
) -> Dataset:
    """FI's synthetic data set Synth``name`` (Table 1) from ``make_classification``.

    FI §2.4: "the data are generated with the sci-kit learn package [...]
    defined by the sklearn.datasets.make_classification function. We generate
    n = 30,000 records for each dataset, with different numbers of continuous
    features m, and use a balanced binary class feature. The parameters using
    non-default settings are" ``n_informative`` and ``n_random`` (useless
    features), which "sum to the total number of features m". Hence the call
    ``make_classification(n_samples=n_rows, n_features=n_informative + n_random,
    n_informative=n_informative, n_redundant=0, n_repeated=0, n_classes=2)``
    with every other argument at its default (2 clusters per class,
    ``class_sep=1``, ``flip_y=0.01``, ``weights=None`` i.e. balanced,
    ``hypercube=True``, ``shuffle=True``). ``n_redundant=0`` is forced although
    its default is 2: with 2 redundant features the counts would not sum to m
    (and SynthA-C would be rejected by scikit-learn). All features are
    continuous (FI Table 4 lists no discrete feature for Synth A-G).

    ===========  ==============  =========  ==========  ===================
    data set     n_informative   n_random   features    FI depth (Table 4)
    ===========  ==============  =========  ==========  ===================
    SynthA       5               0          5           5
    SynthB       10              0          10          8
    SynthC       15              0          15          12
    SynthD       10              5          15          12
    SynthE       5               10         15          12
    SynthF       5               5          10          8
    SynthG       10              10         20          15
    ===========  ==============  =========  ==========  ===================

    Public bounds: an informative feature of ``make_classification`` is
    ``c + Σ_j z_j A_jk`` with ``c = ±class_sep``, ``z ~ N(0, I)`` and
    ``A_jk ~ U[-1, 1]``: given the cluster it is normal with variance
    ``Σ_j A_jk²`` (``n_informative / 3`` on average, at most ``n_informative``),
    and the cluster centres add ``class_sep²``; a useless feature is N(0, 1).
    The bounds trade clipping against wasted random splits (a random tree
    splits uniformly in ``[-B, B]``, so a wide range puts most splits in the
    empty tails). By default (``bound="typical"``) every feature is clipped to
    ``[-B, B]`` with ``B = ceil(2 * sqrt(n_informative / 3 + class_sep²))``,
    two typical standard deviations (4 for A, E, F; 5 for B, C, D, G), which
    clips a few per cent of the values. ``bound="wide"`` uses
    ``B = ceil(class_sep + 4 * sqrt(n_informative))`` (10 for A, E, F; 14 for
    B, D, G; 17 for C), which almost never clips (below 6.4e-5 in the worst
    case). A number sets B directly. Either way the bounds depend only on the
    public setting, never on the rows.

    Parameters
    ----------
    name : str
        ``"A"`` to ``"G"`` (case-insensitive; ``"SynthA"`` is accepted too).
    n_rows : int, default 30000
        Number of rows (FI: 30,000).
    bound : {"typical", "wide"} or float, default "typical"
        The public clipping range ``[-B, B]`` (see above).
    random_state : int, numpy.random.Generator or None
        An int is passed to ``make_classification`` unchanged (when below 2**32), so
        the rows equal scikit-learn's for that seed up to clipping; a Generator
        supplies a seed; None gives fresh randomness.

    Returns
    -------
    Dataset
        ``name="fi-synth-a"`` etc.; numeric attributes ``x0 ..`` on ``[-B, B]``;
        classes ``0``, ``1``; no test set (FI uses 10-fold cross-validation).

    Raises
    ------
    InvalidParameterError
        If ``name`` is not one of A-G (the message lists them) or ``n_rows`` /
        ``random_state`` is invalid.
    """
    if not isinstance(name, str):
        raise InvalidParameterError(f"name must be one of {list(_FI_TABLE)}, got {name!r}")
    key = name.strip().upper().removeprefix("SYNTH").strip(" -_")
    if key not in _FI_TABLE:
        raise InvalidParameterError(
            f"name must be one of {list(_FI_TABLE)} (FI Table 1: Synth A-G), got {name!r}"
        )
    n_rows = check_int(n_rows, "n_rows", minimum=1)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        seed: int | None = int(random_state)
        if seed < 0:
            raise InvalidParameterError(
                f"random_state must be a non-negative int seed, got {random_state!r}"
            )
        if seed >= 2**32:
            seed = int(check_random_state(seed).integers(0, 2**32 - 1))
    elif random_state is None:
        seed = None
    else:
        seed = int(check_random_state(random_state).integers(0, 2**32 - 1))

    setting = _FI_TABLE[key]
    kwargs = _fi_kwargs(setting)
    x, y = make_classification(n_samples=n_rows, random_state=seed, **kwargs)
    if bound == "typical":
        bound = setting.bound
    elif bound == "wide":
        bound = setting.wide_bound
    else:
        bound = check_positive(bound, "bound")
    x = np.clip(x, -bound, bound)
    attributes = [Numeric(f"x{j}", -bound, bound) for j in range(setting.n_features)]
    domain = Domain(attributes, (0, 1), target="class")
    call = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    description = (
        f"FI Synth{key} (Table 1): {n_rows} rows, {setting.n_informative} informative and "
        f"{setting.n_random} useless continuous features (shuffled, so their positions are "
        f"unknown), a balanced binary class with 1% of labels redrawn (flip_y=0.01), from "
        f"sklearn.datasets.make_classification(n_samples={n_rows}, {call}) with all other "
        f"arguments at their defaults; every feature clipped to the public range "
        f"[-{bound:g}, {bound:g}]. FI's forest depth for this set (Table 4): {setting.depth}."
    )
    return Dataset(
        name=f"fi-synth-{key.lower()}",
        X=pd.DataFrame(x, columns=list(domain.names)),
        y=_labels(y),
        domain=domain,
        citation=FI_CITATION,
        description=description,
        url=FI_URL,
    )
