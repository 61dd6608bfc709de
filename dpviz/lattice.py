"""Floating-point lattices of samplers, and membership tests to use as audit events.

A float sampler can only return a structured set of doubles, its *lattice*; when the lattice
depends on the data, membership reveals it whatever the ε on the reals (Mironov 2012). This
module decides membership in the lattice of ``numpy.random.Generator.uniform(start, end)``,
e.g. FS §4.3's split point (:func:`dpviz.trees.id3_split_point.choose_split_point_continuous`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dpviz.errors import InvalidParameterError

__all__ = ["TWO_POW_53", "uniform_lattice_member", "uniform_lattice_member_any"]

#: 2^53: numpy's ``next_double`` returns k / 2^53 for a 53-bit integer k.
TWO_POW_53 = 9007199254740992.0

#: Offsets around the inverted k that are recomputed exactly.
_OFFSETS = np.arange(-2, 3, dtype=np.int64)


def uniform_lattice_member(
    values: np.ndarray | Sequence[float] | float,
    start: float | np.ndarray,
    end: float | np.ndarray,
) -> np.ndarray:
    """Whether each value could be returned by ``numpy.random.Generator.uniform(start, end)``.

    True where ``value == fl(start + fl((end - start)·k·2^-53))`` for an integer ``0 <= k <
    2^53`` (numpy's ``random_uniform``); the five k nearest the inverse decide (the roundings
    move it a few units at most). NaN and infinities are never members.
    """
    y, a, b = np.broadcast_arrays(
        np.asarray(values, dtype=np.float64),
        np.asarray(start, dtype=np.float64),
        np.asarray(end, dtype=np.float64),
    )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InvalidParameterError("start and end must be finite")
    scale = b - a  # numpy's `range = high - low`, in float64
    if not np.isfinite(scale).all():
        raise InvalidParameterError("end - start overflows float64")
    out = np.zeros(y.shape, dtype=bool)
    finite = np.isfinite(y)
    point = finite & (scale == 0)
    out[point] = y[point] == a[point]
    ok = finite & (scale != 0)
    if not ok.any():
        return out
    yk, ak, sk = y[ok], a[ok], scale[ok]
    with np.errstate(invalid="ignore", over="ignore"):
        u = (yk - ak) / sk
    # outside [0, 1] by more than rounding: no k (k0 clipped keeps the check exact)
    k0 = np.rint(np.clip(u, -1.0, 2.0) * TWO_POW_53)
    k = k0.astype(np.int64)[:, None] + _OFFSETS[None, :]
    valid = (k >= 0) & (k < int(TWO_POW_53))
    uk = np.clip(k, 0, int(TWO_POW_53) - 1).astype(np.float64) / TWO_POW_53  # exact
    # numpy's two roundings: fl(scale · U), then fl(start + that)
    candidates = ak[:, None] + sk[:, None] * uk
    out[ok] = (valid & (candidates == yk[:, None])).any(axis=1)
    return out


def uniform_lattice_member_any(
    values: np.ndarray | Sequence[float] | float,
    ranges: Sequence[tuple[float, float]],
) -> np.ndarray:
    """The union of :func:`uniform_lattice_member` over ``ranges`` of (start, end)."""
    y = np.asarray(values, dtype=np.float64)
    out = np.zeros(y.shape, dtype=bool)
    for start, end in ranges:
        out |= uniform_lattice_member(y, float(start), float(end))
    return out
