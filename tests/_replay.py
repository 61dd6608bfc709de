"""Replay the fast estimators' draws into the plain pseudocode of dpviz.pseudocode.

The pseudocode draws with plain numpy (``rng.choice``, ``rng.uniform``, ``rng.geometric``,
``rng.laplace``); the fast estimators compute the same choices from node keys and secret keys.
:class:`Replay` stands in for the generator: it answers each call with the fast path's draw and
checks the call (the attributes left, the range cut, the rows offered, the noise's ε), so a
plain function reproduces the fast release only if it draws what the paper says, in order, at
the right ε. The keyed walk below is the fast path's structure rule (dpviz.trees.random_tree).
"""

import math
from collections.abc import Iterable, Iterator

import numpy as np

from dpviz import keyed
from dpviz.trees.random_tree import ATTRIBUTE_STREAM, SPLIT_STREAM


def uniform(key: int, stream: int) -> float:
    """A node's public uniform in (0, 1) for one of its random choices (one per stream)."""
    return float(keyed.uniforms(np.array([key], dtype=np.uint64), stream)[0])


def child_key(key: int, i: int) -> int:
    """The key of child ``i`` of the node with key ``key``."""
    return int(keyed.child_keys(np.array([key], dtype=np.uint64), np.array([i]))[0])


def tree_keys(structure_rng: np.random.Generator, N: int) -> list[int]:
    """The root keys of N trees, drawn as the estimators draw them (public structure)."""
    seeds = structure_rng.integers(0, 2**63, size=N)
    return [int(k) for k in keyed.splitmix64(seeds.astype(np.uint64))]


class Replay:
    """An rng-like object serving ``structure`` events and ``noise`` values in call order.

    ``structure``: ("attribute", X, F), ("cut", (low, high), threshold) or ("centres",
    (rows, k), positions); ``noise``: one value per noisy component, drawn at ``epsilon``
    (set it per phase).
    """

    def __init__(self, structure: Iterable = (), noise: Iterable = (), epsilon: float = 1.0):
        self.structure: Iterator = iter(structure)
        self.noise: Iterator = iter(noise)
        self.epsilon = epsilon
        self._second: int | None = None  # the pending second geometric draw

    def _next(self, kind: str, args: object) -> object:
        event = next(self.structure, None)
        assert event is not None, f"the pseudocode draws more than the fast path ({kind})"
        assert event[0] == kind, f"the pseudocode draws {kind} where the fast path draws {event[0]}"
        assert event[1] == args, f"{kind} drawn among {args}, the fast path among {event[1]}"
        return event[2]

    def choice(self, a, size=None, replace=True):
        if size is None:
            return self._next("attribute", tuple(int(v) for v in a))
        assert not replace, "centres are distinct rows"
        n = int(a) if np.ndim(a) == 0 else len(a)
        return np.array(self._next("centres", (n, int(size))), dtype=np.int64)

    def uniform(self, low, high):
        return self._next("cut", (float(low), float(high)))

    def geometric(self, p):
        assert math.isclose(p, 1 - math.exp(-self.epsilon), rel_tol=1e-12), (
            f"noise drawn at ε = {-math.log1p(-p):.6g}, the fast path's at ε = {self.epsilon:.6g}")
        if self._second is not None:
            second, self._second = self._second, None
            return second
        k = int(next(self.noise))
        self._second = 1 if k >= 0 else 1 - k
        return k + 1 if k >= 0 else 1

    def laplace(self, loc, scale):
        assert loc == 0 and math.isclose(scale, 1 / self.epsilon, rel_tol=1e-12), (
            f"noise of scale {scale:.6g}, the fast path's is {1 / self.epsilon:.6g}")
        return float(next(self.noise))

    def assert_used_up(self) -> None:
        """Every draw of the fast path was asked for."""
        assert next(self.structure, None) is None, "the pseudocode draws fewer choices"
        assert next(self.noise, None) is None, "the pseudocode draws less noise"


def keyed_structure(X: list[int], h: int, key: int, domain, ranges: dict | None = None):
    """The fast path's choices for one tree (JPW Fig. 1), in the pseudocode's call order."""
    ranges = ranges or {}
    if not X or h == 0:
        return
    F = X[int(uniform(key, ATTRIBUTE_STREAM) * len(X))]
    yield ("attribute", tuple(X), F)
    attribute = domain.attributes[F]
    if attribute.is_categorical:
        rest = [a for a in X if a != F]
        for i in range(attribute.n_values):
            yield from keyed_structure(rest, h - 1, child_key(key, i), domain, ranges)
        return
    low, high = ranges.get(F, (float(attribute.low), float(attribute.high)))
    t = low + uniform(key, SPLIT_STREAM) * (high - low)
    yield ("cut", (low, high), t)
    yield from keyed_structure(X, h - 1, child_key(key, 0), domain, {**ranges, F: (low, t)})
    yield from keyed_structure(X, h - 1, child_key(key, 1), domain, {**ranges, F: (t, high)})
