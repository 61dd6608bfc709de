"""Synthetic data sets of the papers, generated from documented recipes.

Each :class:`~dpviz.data.uci.Dataset` has a public domain written from the generator's
parameters, never learnt from the rows. The JPW and FS generators draw the tree, training
rows, training noise and test rows from independent streams of ``random_state``: for one
seed, more noise corrupts a superset of the cells and the tree and test set ignore ``n_rows``.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.resources import files

import numpy as np
import pandas as pd

from dpviz.data.published import CITATIONS, FI_TABLE1, URLS
from dpviz.data.uci import Dataset
from dpviz.domain import Attribute, Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int, check_positive, check_probability, check_random_state

__all__ = [
    "FI_SYNTH_SETTINGS", "boolean_tree_data", "fi_synth", "fi_synth_domain",
    "fs_numeric_split_data",
    "fs_random_tree_data", "fs_single_split_data",
]

RandomState = int | np.random.Generator | None
FS_NUMERIC_RANGE = (0.0, 100.0)  # FS §5.1.1: "numeric attributes over the domain [0, 100]"
_MAX_TREE_LINES = 200  # a larger generating tree is summarised in one line
#: The data sets' descriptions, as ``str.format`` templates (``synthetic.json``).
_TEXT = json.loads(files("dpviz.data").joinpath("synthetic.json").read_text(encoding="utf-8"))


def _streams(random_state: object, k: int) -> list[np.random.Generator]:
    """``k`` independent generators derived from ``random_state`` (reproducible for an int)."""
    root = check_random_state(random_state)
    entropy = [int(v) for v in root.integers(0, 2**32, size=4, dtype=np.uint64)]
    return [np.random.default_rng(s) for s in np.random.SeedSequence(entropy).spawn(k)]


@dataclass
class _Node:
    """A generating tree's node: a leaf (``label``) or a test of ``attribute`` (or ``x <= t``)."""

    attribute: int | None = None
    threshold: float | None = None
    children: list[_Node] = field(default_factory=list)
    label: int | None = None

    @property
    def is_leaf(self) -> bool:
        return self.attribute is None

    def depth(self) -> int:
        return 0 if self.is_leaf else 1 + max(c.depth() for c in self.children)

    def n_leaves(self) -> int:
        return 1 if self.is_leaf else sum(c.n_leaves() for c in self.children)


def _classify(tree: _Node, x: np.ndarray) -> np.ndarray:
    """Label the rows of ``x`` (nominal codes and numeric values, as floats) by ``tree``."""
    out = np.empty(x.shape[0], dtype=np.int64)

    def walk(node: _Node, idx: np.ndarray) -> None:
        if idx.size == 0:
            return
        if node.is_leaf:
            out[idx] = node.label
            return
        col = x[idx, node.attribute]
        codes = col if node.threshold is None else col > node.threshold  # False: "<=" child
        for code, child in enumerate(node.children):
            walk(child, idx[codes == code])

    walk(tree, np.arange(x.shape[0]))
    return out


def _render_tree(tree: _Node, attributes: Sequence[Attribute]) -> str:
    """Indented text of ``tree`` (or a one-line summary if it is too large to print)."""
    if tree.is_leaf:
        return f"(a single leaf: class {tree.label})"
    lines: list[str] = []

    def walk(node: _Node, indent: str) -> None:
        a, t = attributes[node.attribute], node.threshold  # type: ignore[index]
        conditions = ([f"{a.name} = {v}" for v in a.values] if t is None  # type: ignore[union-attr]
                      else [f"{a.name} <= {t:.4g}", f"{a.name} > {t:.4g}"])
        for condition, child in zip(conditions, node.children, strict=True):
            leaf = f" class {child.label}" if child.is_leaf else ""
            lines.append(f"{indent}{condition}:{leaf}")
            if not child.is_leaf and len(lines) <= _MAX_TREE_LINES:
                walk(child, indent + "  ")

    walk(tree, "  ")
    if len(lines) > _MAX_TREE_LINES:
        return f"  (depth {tree.depth()}, {tree.n_leaves()} leaves: too large to print)"
    return "\n".join(lines)


def _opposite_leaves(rng: np.random.Generator) -> list[_Node]:
    """Two leaves with opposite classes; which one gets class 1 is a fair coin."""
    b = int(rng.integers(2))
    return [_Node(label=b), _Node(label=1 - b)]


def _random_boolean_tree(rng: np.random.Generator, n_attributes: int, depth: int) -> _Node:
    """The complete tree of :func:`boolean_tree_data`."""

    def grow(level: int, unused: list[int]) -> _Node:
        j = unused[int(rng.integers(len(unused)))]
        rest = [u for u in unused if u != j]
        if level == depth - 1:
            return _Node(attribute=j, children=_opposite_leaves(rng))
        return _Node(attribute=j, children=[grow(level + 1, rest), grow(level + 1, rest)])

    return grow(0, list(range(n_attributes)))


def _random_fs_tree(rng: np.random.Generator, is_numeric: Sequence[bool], n_values: int,
                    depth: int, n_classes: int, p_leaf: float) -> _Node:
    """The FS §5.1 random tree of :func:`fs_random_tree_data`."""
    k = len(is_numeric)

    def grow(level: int, used: frozenset[int], intervals: dict[int, tuple[float, float]]) -> _Node:
        available = [j for j in range(k) if is_numeric[j] or j not in used]
        if level >= depth or not available:
            return _Node(label=int(rng.integers(n_classes)))
        if level >= 2 and rng.random() < p_leaf:  # "starting from the third level"
            return _Node(label=int(rng.integers(n_classes)))
        j = available[int(rng.integers(len(available)))]
        if not is_numeric[j]:
            return _Node(attribute=j, children=[grow(level + 1, used | {j}, intervals)
                                                for _ in range(n_values)])
        low, high = intervals.get(j, FS_NUMERIC_RANGE)
        t = float(rng.uniform(low, high))
        return _Node(attribute=j, threshold=t, children=[
            grow(level + 1, used, {**intervals, j: (low, t)}),
            grow(level + 1, used, {**intervals, j: (t, high)}),
        ])

    return grow(0, frozenset(), {})


def _fs_attributes(n_nominal: int, n_values: int, n_numeric: int) -> list[Attribute]:
    """Nominal ``a0..`` with values ``"0".."m-1"``, then numeric ``x0..`` on [0, 100]."""
    values = tuple(str(v) for v in range(n_values))
    return [*(Categorical(f"a{j}", values) for j in range(n_nominal)),
            *(Numeric(f"x{j}", *FS_NUMERIC_RANGE) for j in range(n_numeric))]


def _uniform_rows(rng: np.random.Generator, n: int, is_numeric: np.ndarray,
                  n_values: int) -> np.ndarray:
    """``n`` rows drawn uniformly: nominal codes in 0..m-1, numeric values on [0, 100]."""
    codes = rng.integers(0, n_values, size=(n, is_numeric.size)).astype(np.float64)
    values = rng.uniform(*FS_NUMERIC_RANGE, size=(n, is_numeric.size))
    return np.where(is_numeric, values, codes)


def _add_fs_noise(rng: np.random.Generator, x: np.ndarray, y: np.ndarray, is_numeric: np.ndarray,
                  n_values: int, n_classes: int, p_noise: float) -> tuple[np.ndarray, np.ndarray]:
    """Replace each value and each class by a uniform draw with probability ``p_noise``.

    The draws are made whatever ``p_noise`` is, so for one seed the cells corrupted by a
    smaller ``p_noise`` are a subset of those corrupted by a larger one.
    """
    n, k = x.shape
    u = rng.random((n, k + 1))
    replacement = _uniform_rows(rng, n, is_numeric, n_values)
    new_labels = rng.integers(0, n_classes, size=n)
    return (np.where(u[:, :k] < p_noise, replacement, x),
            np.where(u[:, k] < p_noise, new_labels, y))


def _frame(x: np.ndarray, attributes: Sequence[Attribute]) -> pd.DataFrame:
    """A DataFrame of encoded rows (nominal columns hold the value strings)."""
    return pd.DataFrame({
        a.name: pd.Series(np.array(a.values, dtype=object)[x[:, j].astype(np.int64)], dtype=str)
        if isinstance(a, Categorical) else x[:, j].astype(np.float64)
        for j, a in enumerate(attributes)
    })


def _labels(y: np.ndarray) -> pd.Series:
    return pd.Series(np.asarray(y, dtype=np.int64), name="class")


def _fs_dataset(name: str, attributes: list[Attribute],
                grow: Callable[[np.random.Generator], _Node],
                describe: Callable[[_Node], dict[str, object]],
                *, n_rows: object, p_noise: object, n_test: object, random_state: RandomState,
                n_values: int = 2, n_classes: int = 2, n_bins: int | None = None) -> Dataset:
    """Noisy training rows and a noiseless ``.test`` from the tree ``grow`` draws (FS §5.1)."""
    n_rows = check_int(n_rows, "n_rows", minimum=1)
    p_noise = check_probability(p_noise, "p_noise")
    n_test = check_int(n_test, "n_test", minimum=0)
    tree_rng, tree_rows, noise_rng, test_rows = _streams(random_state, 4)
    tree = grow(tree_rng)
    text = _TEXT[name.removesuffix("-binned")].format(n_rows=n_rows, p_noise=p_noise,
                                                      **describe(tree))
    description = f"{text} Generating tree:\n" + _render_tree(tree, attributes)
    is_numeric = np.array([not a.is_categorical for a in attributes])
    x = _uniform_rows(tree_rows, n_rows, is_numeric, n_values)
    x, y = _add_fs_noise(noise_rng, x, _classify(tree, x), is_numeric, n_values, n_classes,
                         p_noise)
    domain = Domain(attributes, tuple(range(n_classes)), target="class")
    if n_bins is not None:
        domain, x = _discretize(domain, x, n_bins)
    test = None
    if n_test > 0:
        x_test = _uniform_rows(test_rows, n_test, is_numeric, n_values)
        y_test = _classify(tree, x_test)
        if n_bins is not None:
            _, x_test = _discretize(Domain(attributes, domain.classes), x_test, n_bins)
        test = Dataset(f"{name}-test", _frame(x_test, domain.attributes), _labels(y_test), domain,
                       CITATIONS["FS"], _TEXT["test"].format(name=name, n_test=n_test), URLS["FS"])
    return Dataset(name, _frame(x, domain.attributes), _labels(y), domain, CITATIONS["FS"],
                   description, URLS["FS"], test)


def _discretize(domain: Domain, x: np.ndarray, n_bins: int) -> tuple[Domain, np.ndarray]:
    """Replace every numeric attribute by ``n_bins`` equal-width bins of [0, 100] (FS Fig. 5)."""
    low, high = FS_NUMERIC_RANGE
    edges = np.linspace(low, high, n_bins + 1)
    labels = tuple(f"[{edges[b]:g}, {edges[b + 1]:g}" + (")" if b < n_bins - 1 else "]")
                   for b in range(n_bins))
    x = x.copy()
    attributes: list[Attribute] = []
    for j, a in enumerate(domain.attributes):
        if isinstance(a, Numeric):
            x[:, j] = np.clip(np.floor((x[:, j] - low) / (high - low) * n_bins), 0, n_bins - 1)
            a = Categorical(a.name, labels)
        attributes.append(a)
    return Domain(attributes, domain.classes, target=domain.target), x


def boolean_tree_data(n_rows: int = 2000, n_attributes: int = 9, *, depth: int | None = None,
                      flip: float = 0.05, random_state: RandomState = None) -> Dataset:
    """Rows labelled by a random Boolean decision tree, labels flipped with probability ``flip``.

    JPW (§VI) and RDT# (§V) use "a handmade Boolean decision tree" they do not publish; dpviz
    draws one, complete to ``depth`` (default ``max(1, n_attributes // 2)``), each inner node
    testing an attribute not tested above it, sibling leaves at the bottom with opposite
    classes. The tree is printed in ``description``.
    """
    n_rows = check_int(n_rows, "n_rows", minimum=1)
    n_attributes = check_int(n_attributes, "n_attributes", minimum=1)
    depth = check_int(max(1, n_attributes // 2) if depth is None else depth, "depth", minimum=1)
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
    text = _TEXT["boolean_tree"].format(n_rows=n_rows, n_attributes=n_attributes, depth=depth,
                                        flip=flip)
    description = f"{text} Generating tree:\n" + _render_tree(tree, attributes)
    return Dataset("jpw-boolean-tree", _frame(x, attributes), _labels(y),
                   Domain(attributes, (0, 1), target="class"),
                   f"{CITATIONS['JPW']} Also: {CITATIONS['RDT#']}", description, URLS["JPW"])


def fs_random_tree_data(
    n_rows: int, *, n_attributes: int = 10, n_values: int = 2, depth: int = 5,
    n_classes: int = 2, p_leaf: float = 0.3, p_noise: float = 0.1, n_numeric: int = 0,
    n_test: int = 10_000, random_state: RandomState = None,
) -> Dataset:
    """FS §5.1 random-tree data: noisy training rows and a noiseless test set (``.test``).

    The tree (after Domingos & Hulten 2000) stops at ``depth``, when no attribute is left, or
    from the third level on with probability ``p_leaf``; a node tests a nominal attribute not
    tested above or a numeric one (``x <= t``, ``t`` uniform on the reachable interval: dpviz's
    choice). Rows are uniform (nominal ``a0 ..``, numeric ``x0 ..`` on ``[0, 100]``); every
    training value and class is redrawn with probability ``p_noise``.
    """
    n_attributes = check_int(n_attributes, "n_attributes", minimum=1)
    n_values = check_int(n_values, "n_values", minimum=2)
    depth = check_int(depth, "depth", minimum=1)
    n_classes = check_int(n_classes, "n_classes", minimum=2)
    p_leaf = check_probability(p_leaf, "p_leaf")
    n_numeric = check_int(n_numeric, "n_numeric", minimum=0)
    if n_numeric > n_attributes:
        raise InvalidParameterError(
            f"n_numeric must be <= n_attributes ({n_attributes}), got {n_numeric}"
        )
    attributes = _fs_attributes(n_attributes - n_numeric, n_values, n_numeric)
    is_numeric = [not a.is_categorical for a in attributes]
    return _fs_dataset(
        "fs-random-tree", attributes,
        lambda rng: _random_fs_tree(rng, is_numeric, n_values, depth, n_classes, p_leaf),
        lambda tree: {"n_nominal": n_attributes - n_numeric, "n_values": n_values,
                      "n_numeric": n_numeric, "n_classes": n_classes, "depth": depth,
                      "actual_depth": tree.depth(), "n_leaves": tree.n_leaves(), "p_leaf": p_leaf},
        n_rows=n_rows, p_noise=p_noise, n_test=n_test, random_state=random_state,
        n_values=n_values, n_classes=n_classes)


def fs_single_split_data(n_rows: int, *, n_attributes: int = 10, p_noise: float = 0.1,
                         n_test: int = 10_000, random_state: RandomState = None) -> Dataset:
    """FS §5.1.1 (Table 1, Fig. 3): a single split on one of ten binary attributes.

    The split attribute is uniform and which leaf gets class 1 is a fair coin; rows, noise and
    the test set as in :func:`fs_random_tree_data`.
    """
    n_attributes = check_int(n_attributes, "n_attributes", minimum=1)
    attributes = _fs_attributes(n_attributes, 2, 0)
    return _fs_dataset(
        "fs-single-split", attributes,
        lambda rng: _Node(attribute=int(rng.integers(n_attributes)),
                          children=_opposite_leaves(rng)),
        lambda tree: {"n_attributes": n_attributes, "split": attributes[tree.attribute].name},
        n_rows=n_rows, p_noise=p_noise, n_test=n_test, random_state=random_state)


def fs_numeric_split_data(
    n_rows: int, *, threshold: float = 35.0, p_noise: float = 0.1, n_test: int = 10_000,
    n_bins: int | None = None, random_state: RandomState = None,
) -> Dataset:
    """FS §5.1.1 (Fig. 4, Fig. 5): a single split at 35 on a numeric attribute over [0, 100].

    7 binary attributes and 3 numeric ones, the split on a uniform numeric one; rows, noise
    and test set as in :func:`fs_random_tree_data`. ``n_bins`` (Fig. 5: 10, ``p_noise=0``)
    bins every numeric attribute into ``"[0, 10)" .. "[90, 100]"``, the labels unchanged.
    """
    threshold = check_positive(threshold, "threshold")
    low, high = FS_NUMERIC_RANGE
    if not low < threshold < high:
        raise InvalidParameterError(
            f"threshold must lie strictly inside ({low:g}, {high:g}), got {threshold!r}"
        )
    if n_bins is not None:
        n_bins = check_int(n_bins, "n_bins", minimum=2)
    attributes = _fs_attributes(7, 2, 3)
    binned = "" if n_bins is None else _TEXT["binned"].format(n_bins=n_bins)
    return _fs_dataset(
        "fs-numeric-split" if n_bins is None else "fs-numeric-split-binned", attributes,
        lambda rng: _Node(attribute=7 + int(rng.integers(3)), threshold=threshold,
                          children=_opposite_leaves(rng)),
        lambda tree: {"split": attributes[tree.attribute].name, "threshold": threshold,
                      "binned": binned},
        n_rows=n_rows, p_noise=p_noise, n_test=n_test, random_state=random_state, n_bins=n_bins)


_FI_CLASS_SEP = 1.0  # make_classification's default, not changed by FI
_FI = {str(r.name): (int(r.n_informative), int(r.n_random), int(r.depth))
       for r in FI_TABLE1.itertuples()}


def _fi_bound(n_informative: int, bound: float | str) -> float:
    """The public clipping bound B (see :func:`fi_synth`)."""
    if bound == "typical":
        return float(math.ceil(2.0 * math.sqrt(n_informative / 3.0 + _FI_CLASS_SEP**2)))
    if bound == "wide":
        return float(math.ceil(_FI_CLASS_SEP + 4.0 * math.sqrt(n_informative)))
    return check_positive(bound, "bound")


#: FI Table 1 (``published.json``) with the fixed facts and dpviz's default public clipping
#: bound (a copy: editing it does not change :func:`fi_synth`).
FI_SYNTH_SETTINGS: pd.DataFrame = pd.DataFrame(
    [{"dataset": f"Synth{k}", "n_informative": i, "n_random": r, "n_features": i + r,
      "discrete_features": 0, "n_classes": 2, "n_rows": 30_000, "depth": d,
      "bound": _fi_bound(i, "typical")} for k, (i, r, d) in _FI.items()],
    index=pd.Index(list(_FI), name="name"),
)


def fi_synth_domain(name: str, *, bound: float | str = "typical") -> Domain:
    """The public domain of :func:`fi_synth`'s data set, without generating its rows."""
    key = _fi_key(name)
    n_informative, n_random, _ = _FI[key]
    b = _fi_bound(n_informative, bound)
    return Domain([Numeric(f"x{j}", -b, b) for j in range(n_informative + n_random)], (0, 1),
                  target="class")


def _fi_key(name: str) -> str:
    """"A" to "G" from any spelling of an FI synthetic set's name; refuses others."""
    key = (name.strip().upper().removeprefix("FI-").removeprefix("SYNTH").strip(" -_")
           if isinstance(name, str) else "")
    if key not in _FI:
        raise InvalidParameterError(
            f"name must be one of {list(_FI)} (FI Table 1: Synth A-G), got {name!r}"
        )
    return key


def make_classification(n_samples: int, n_informative: int, n_random: int,
                        seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    """``sklearn.datasets.make_classification`` (1.9) as FI calls it, bit for bit, in numpy.

    Two classes of two Gaussian clusters each, centred on distinct vertices of the hypercube
    ``{-1, 1}^n_informative``, each with the covariance of a random ``A`` in ``[-1, 1]^(i×i)``;
    ``n_random`` useless N(0, 1) features; 1 % of the labels redrawn; rows and then features
    shuffled. The same draws in the same order from ``RandomState(seed)`` (a fresh one for
    ``None``), so that importing scikit-learn (0.5 s of a kernel's CPU) is not needed;
    tests/test_synthetic.py checks the equality for every set of FI's Table 1.
    """
    rng = np.random.RandomState(seed)
    n_clusters, n_features = 4, n_informative + n_random
    per_cluster = [n_samples // 4] * n_clusters  # int(n * (1/2) / 2), then the remainder
    for i in range(n_samples - sum(per_cluster)):
        per_cluster[i % n_clusters] += 1
    x = np.zeros((n_samples, n_features))
    y = np.zeros(n_samples, dtype=int)
    centroids = _hypercube_vertices(n_clusters, n_informative, rng).astype(float) * 2.0 - 1.0
    x[:, :n_informative] = rng.standard_normal(size=(n_samples, n_informative))
    stop = 0
    for k, centroid in enumerate(centroids):
        start, stop = stop, stop + per_cluster[k]
        y[start:stop] = k % 2
        cluster = x[start:stop, :n_informative]
        cluster[...] = np.dot(cluster, 2 * rng.uniform(size=(n_informative, n_informative)) - 1)
        cluster += centroid
    if n_random > 0:
        x[:, -n_random:] = rng.standard_normal(size=(n_samples, n_random))
    flipped = rng.uniform(size=n_samples) < 0.01
    y[flipped] = rng.randint(2, size=flipped.sum())
    x += 0.0  # make_classification's shift and scale (-0.0 becomes 0.0)
    x *= 1.0
    rows = np.arange(n_samples)
    rng.shuffle(rows)
    x, y = x[rows], y[rows]
    columns = np.arange(n_features)
    rng.shuffle(columns)
    x[:, :] = x[:, columns]
    return x, y


def _hypercube_vertices(n: int, dimensions: int, rng: np.random.RandomState) -> np.ndarray:
    """``n`` distinct vertices of ``{0, 1}^dimensions`` (sklearn's ``_generate_hypercube``).

    Its ``sample_without_replacement(2^d, n)``: a permutation for ``0.01 < n / 2^d < 0.99``,
    else, for ``n`` small against ``2^d``, integers redrawn until distinct.
    """
    population = 2**dimensions
    if 0.01 < n / population < 0.99:
        chosen = rng.permutation(population)[:n]
    elif dimensions > 30 or n / population >= 0.2:  # sklearn's other branches: not FI's sets
        raise InvalidParameterError(f"{n} vertices of a {dimensions}-cube are not made here")
    else:
        chosen, seen = np.empty(n, dtype=int), set()
        for i in range(n):
            j = rng.randint(population)
            while j in seen:
                j = rng.randint(population)
            seen.add(j)
            chosen[i] = j
    bits = np.unpackbits(chosen.astype(">u4").view(">u1")).reshape((-1, 32))
    return bits[:, -dimensions:]


def fi_synth(name: str, *, n_rows: int = 30_000, bound: float | str = "typical",
             random_state: RandomState = None) -> Dataset:
    """FI's synthetic data set Synth``name`` (§2.4, Table 1) from :func:`make_classification`.

    FI's counts (:data:`FI_SYNTH_SETTINGS`), ``n_redundant=0``, ``n_repeated=0``; ``name`` is
    ``"A"`` to ``"G"`` or a catalogue spelling, any case (``"SynthA"``, ``"synth-a"``,
    ``"fi-synth-a"``, :mod:`dpviz.data.catalogue`). Features are clipped to a public ``[-B,
    B]``: ``bound="typical"``, ``B = ceil(2 sqrt(n_informative / 3 + class_sep²))`` (clips a
    few per cent); ``"wide"``, ``B = ceil(class_sep + 4 sqrt(n_informative))`` (almost never
    clips, but random splits fall mostly in empty tails); or a number.
    """
    key = _fi_key(name)
    n_rows = check_int(n_rows, "n_rows", minimum=1)
    seed = random_state
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and 0 <= seed < 2**32:
        seed = int(seed)
    elif seed is not None:  # a Generator, a larger seed; a negative one is refused
        seed = int(check_random_state(seed).integers(0, 2**32 - 1))

    n_informative, n_random, depth = _FI[key]
    kwargs = {"n_features": n_informative + n_random, "n_informative": n_informative,
              "n_redundant": 0, "n_repeated": 0, "n_classes": 2}
    x, y = make_classification(n_rows, n_informative, n_random, seed)
    domain = fi_synth_domain(key, bound=bound)
    bound = _fi_bound(n_informative, bound)
    call = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    description = _TEXT["fi_synth"].format(key=key, n_rows=n_rows, n_informative=n_informative,
                                           n_random=n_random, call=call, bound=bound, depth=depth)
    return Dataset(f"fi-synth-{key.lower()}", pd.DataFrame(np.clip(x, -bound, bound),
                   columns=list(domain.names)), _labels(y), domain, CITATIONS["FI"], description,
                   URLS["FI"])
