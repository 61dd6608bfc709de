"""Floating-point lattices of samplers, and membership tests to use as audit events.

A sampler that computes its output in floating point from a uniform random number
can only return a finite, structured set of doubles — its *lattice*. When the lattice
depends on the private data, the output's mere membership in it can reveal the data,
whatever ε the distribution "on the reals" was meant to have: Mironov (CCS 2012, "On
significance of the least significant bits for differential privacy") shows it for the
textbook Laplace mechanism, and :func:`dpviz.audit.engine.laplace_lattice_events` encodes that
attack for dpviz's own inversion Laplace sampler (:func:`dpviz.mechanisms.laplace`).

This module holds the membership test of numpy's uniform sampler.
``numpy.random.Generator.uniform(start, end)`` returns
``start + (end - start) * next_double()`` with ``next_double() = (next_uint64 >> 11) · 2^-53``,
i.e. one of the 2^53 doubles ``fl(start + fl((end - start) · k·2^-53))``, k = 0 .. 2^53 − 1.
:func:`uniform_lattice_member` decides, for each value, whether it is one of them: the
value is inverted to the nearest k and the candidates k − 2 .. k + 2 are recomputed
exactly as numpy does (float64 multiplication, then addition, each correctly rounded).

Used as an audit event ("the output is on the lattice of D's ranges") it turns a
data-dependent lattice into a measurable privacy loss: e.g. the continuous split point of
Friedman & Schuster §4.3, ``rng.uniform(start, end)`` over ranges whose ends are the
private rows' values (:func:`dpviz.trees.id3_split_point.choose_split_point_continuous`).
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

    Parameters
    ----------
    values : array_like of float
        The outputs to test (any shape).
    start, end : float or array_like
        The sampler's ends, broadcast against ``values`` (e.g. one range per value).

    Returns
    -------
    ndarray of bool
        True where ``value == fl(start + fl((end - start) · k·2^-53))`` for some integer
        ``0 <= k < 2^53`` (checked exactly for the five k nearest to the inverse).
        NaN and infinite values are never members.

    Notes
    -----
    numpy (``random_uniform`` in ``distributions.c``) computes ``off + scale * U`` with
    ``scale = high - low`` computed once in float64 and ``U = (next_uint64 >> 11) · 2^-53``
    (exactly representable). The inverse ``k ≈ (value - start) / (end - start) · 2^53`` is
    off by at most a few units from a k that reproduces ``value`` when one exists (the
    rounding of the subtraction, division and multiplication), so checking k − 2 .. k + 2
    decides membership. ``end == start`` gives the one-point lattice ``{start}``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> bool(uniform_lattice_member(rng.uniform(1.0, 1e6, size=1000), 1.0, 1e6).all())
    True
    >>> bool(uniform_lattice_member(1.5, 0.0, 1e6))  # 1.5 is not 1e6 · k / 2^53 for any k
    False
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
    """Whether each value lies on the lattice of ``uniform(start, end)`` for one of ``ranges``.

    Parameters
    ----------
    values : array_like of float
        The outputs to test.
    ranges : sequence of (start, end)
        The sampler's possible ends, e.g. the score-constant ranges of FS §4.3 on a data set.

    Returns
    -------
    ndarray of bool
        The union of :func:`uniform_lattice_member` over the ranges.
    """
    y = np.asarray(values, dtype=np.float64)
    out = np.zeros(y.shape, dtype=bool)
    for start, end in ranges:
        out |= uniform_lattice_member(y, float(start), float(end))
    return out
