"""Counter-based randomness: random numbers that are a pure function of a key.

A random tree on Mushroom with height 11 has up to ~10^8 leaves, almost all of
them empty. dpviz never builds them: the attribute and split point of a node,
and the noise of a leaf, are computed on demand from the node's 64-bit key with
a stateless hash (SplitMix64, Steele, Lea & Flood, OOPSLA 2014 — the mixer
behind Java's SplittableRandom). The same key always gives the same numbers, so

* a node visited by the training rows and the same node reached later by a test
  row get the same split, without storing it; and
* every leaf's noise is an independent draw whether or not the leaf was ever
  touched, so the lazily released model has the same distribution as a fully
  materialized one, and the same seed gives the same model.

Keys of different nodes (or streams) collide with probability about
n²/2^65 — for 10^8 visited nodes about 3e-4 over a whole experiment — and a
collision only correlates two nodes' randomness; it never reads data.
"""

from __future__ import annotations

import numpy as np

__all__ = ["child_keys", "derive", "splitmix64", "uniforms"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_S11 = np.uint64(11)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 output function applied elementwise to uint64 values (wrapping arithmetic)."""
    z = np.asarray(x, dtype=np.uint64) + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def derive(keys: np.ndarray | int, stream: int) -> np.ndarray:
    """An independent key per input key for a named ``stream`` (a small non-negative int)."""
    k = np.atleast_1d(np.asarray(keys, dtype=np.uint64))
    return splitmix64(k ^ splitmix64(np.full(1, stream, dtype=np.uint64)))


def child_keys(parent_keys: np.ndarray, child_index: np.ndarray) -> np.ndarray:
    """Keys of the children ``child_index`` of nodes ``parent_keys`` (elementwise)."""
    p = np.asarray(parent_keys, dtype=np.uint64)
    c = np.asarray(child_index, dtype=np.uint64) + np.uint64(1)
    return splitmix64(splitmix64(p) + c * _GOLDEN)


def uniforms(keys: np.ndarray, stream: int, n: int | None = None) -> np.ndarray:
    """Uniform numbers in the open interval (0, 1), a pure function of ``(keys, stream)``.

    Parameters
    ----------
    keys : array of uint64
        One key per row.
    stream : int
        Which independent stream of numbers to draw (e.g. 0 = attribute choice, 1 = split point).
    n : int, optional
        Draw ``n`` numbers per key (shape ``(*keys.shape, n)``) instead of one.

    Returns
    -------
    ndarray of float64
        ``(top 53 bits + 0.5) / 2^53``: never exactly 0 or 1, so ``log`` is always finite.
    """
    base = derive(keys, stream)
    if n is not None:
        base = child_keys(base[..., None], np.arange(n, dtype=np.uint64))
    bits = splitmix64(base) >> _S11
    return (bits.astype(np.float64) + 0.5) * 2.0**-53
