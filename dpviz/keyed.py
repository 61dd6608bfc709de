"""Counter-based randomness: random numbers that are a pure function of a key.

A random tree on Mushroom with height 11 has up to ~10^8 leaves, almost all of
them empty. dpviz never builds them. Two kinds of keyed randomness serve two
different purposes:

* **Public structure** (:func:`uniforms`, :func:`child_keys`): the attribute and
  split point of a tree node are computed on demand from the node's 64-bit key
  with a stateless mixer (SplitMix64, Steele, Lea & Flood, OOPSLA 2014 — the
  mixer behind Java's SplittableRandom). The structure of a random tree is
  public (it is drawn from the Domain, never from rows), so nothing here needs to
  be secret: SplitMix64 is invertible, and two released split points of a node
  pin its key — which is fine, because a structure key protects nothing.
* **Secret noise** (:func:`secret_uniforms`): the noise of a leaf that no
  training row visited is computed on demand from a 128-bit *secret* noise key
  with SipHash-2-4 (Aumasson & Bernstein, INDOCRYPT 2012), a keyed pseudorandom
  function giving each leaf a 64-bit seed (expanded within the leaf by
  SplitMix64). Released noisy values then reveal nothing usable about the key
  (under the standard assumption that SipHash is a PRF), so the lazily released
  model has, to any computationally bounded observer, the distribution of a
  fully materialized one with independent noise in every leaf.

Both give **open uniforms** on the grid ``(k + 1/2) / 2**52``,
``k = 0 … 2**52 - 1`` (:func:`uniforms_from_bits`): every value is an exact
double, never 0 and never 1 (so ``log`` and ``log(-log u)`` are always finite),
and the same grid is used by :func:`dpviz.mechanisms.open_uniforms` for noise
drawn from a generator — one grid, one set of samplers.

Keys of different nodes (or streams) collide with probability about
n²/2^65 — for 10^8 visited nodes about 3e-4 over a whole experiment — and a
collision only correlates two nodes' public structure; it never reads data.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "UNIFORM_BITS",
    "child_keys",
    "derive",
    "new_secret_key",
    "secret_uniforms",
    "siphash24",
    "splitmix64",
    "uniforms",
    "uniforms_from_bits",
]

#: Bits of randomness in every uniform: ``(k + 1/2) / 2**52`` is exact in float64.
UNIFORM_BITS = 52

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_DROP = np.uint64(64 - UNIFORM_BITS)


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output mix (Stafford's variant 13) of uint64 states."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The SplitMix64 output function applied elementwise to uint64 values (wrapping arithmetic)."""
    return _mix64(np.asarray(x, dtype=np.uint64) + _GOLDEN)


def derive(keys: np.ndarray | int, stream: int) -> np.ndarray:
    """An independent key per input key for a named ``stream`` (a small non-negative int)."""
    k = np.atleast_1d(np.asarray(keys, dtype=np.uint64))
    return splitmix64(k ^ splitmix64(np.full(1, stream, dtype=np.uint64)))


def child_keys(parent_keys: np.ndarray, child_index: np.ndarray) -> np.ndarray:
    """Keys of the children ``child_index`` of nodes ``parent_keys`` (elementwise)."""
    p = np.asarray(parent_keys, dtype=np.uint64)
    c = np.asarray(child_index, dtype=np.uint64) + np.uint64(1)
    return splitmix64(splitmix64(p) + c * _GOLDEN)


def uniforms_from_bits(bits: np.ndarray) -> np.ndarray:
    """Open uniforms ``(k + 1/2) / 2**52`` from the top 52 bits ``k`` of uint64 words.

    Every output is an exact double in ``[2**-53, 1 - 2**-53]``; with uniform words, each
    of the 2**52 grid points has probability exactly 2**-52.
    """
    k = np.asarray(bits, dtype=np.uint64) >> _DROP
    return (k.astype(np.float64) + 0.5) * 2.0**-UNIFORM_BITS


def uniforms(keys: np.ndarray, stream: int, n: int | None = None) -> np.ndarray:
    """Public uniforms in the open interval (0, 1), a pure function of ``(keys, stream)``.

    For the public structure of random trees only (SplitMix64 is not a secret-keyed
    function: see the module docstring). Noise uses :func:`secret_uniforms`.

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
        On the grid of :func:`uniforms_from_bits`: never exactly 0 or 1.
    """
    base = derive(keys, stream)
    if n is not None:
        base = child_keys(base[..., None], np.arange(n, dtype=np.uint64))
    return uniforms_from_bits(splitmix64(base))


# ------------------------------------------------------------------------- SipHash-2-4
_C0 = np.uint64(0x736F6D6570736575)  # "somepseudorandomlygeneratedbytes"
_C1 = np.uint64(0x646F72616E646F6D)
_C2 = np.uint64(0x6C7967656E657261)
_C3 = np.uint64(0x7465646279746573)


def _rotate(x: np.ndarray, r: int, tmp: np.ndarray) -> None:
    """``x = rotl(x, r)`` in place (``tmp`` is scratch space of the same shape)."""
    np.left_shift(x, np.uint64(r), out=tmp)
    np.right_shift(x, np.uint64(64 - r), out=x)
    np.bitwise_or(x, tmp, out=x)


def _sipround(v: list[np.ndarray], tmp: np.ndarray) -> None:
    """One SipRound on the state ``v = [v0, v1, v2, v3]``, in place."""
    v0, v1, v2, v3 = v
    v0 += v1
    _rotate(v1, 13, tmp)
    v1 ^= v0
    _rotate(v0, 32, tmp)
    v2 += v3
    _rotate(v3, 16, tmp)
    v3 ^= v2
    v0 += v3
    _rotate(v3, 21, tmp)
    v3 ^= v0
    v2 += v1
    _rotate(v1, 17, tmp)
    v1 ^= v2
    _rotate(v2, 32, tmp)


_CHUNK = 16_384  # elements per pass: the state stays in the CPU cache


def siphash24(key: np.ndarray, words: list[np.ndarray]) -> np.ndarray:
    """SipHash-2-4 of the message ``words`` (little-endian uint64 words) under a 128-bit key.

    Vectorized: the words broadcast against each other, one tag per element (computed in
    cache-sized chunks with in-place numpy operations).

    Parameters
    ----------
    key : array of 2 uint64
        ``(k0, k1)``, the key's two little-endian halves.
    words : list of arrays of uint64
        The message, 8 bytes per word (messages whose length is a multiple of 8).

    Returns
    -------
    ndarray of uint64
        The 64-bit tags, shape of the broadcast words (the reference implementation's test
        vectors are checked in the tests).
    """
    k0, k1 = (np.uint64(int(k)) for k in np.asarray(key, dtype=np.uint64))
    shape = np.broadcast_shapes(*(np.shape(w) for w in words)) if words else ()
    flat = [np.broadcast_to(np.asarray(w, dtype=np.uint64), shape).ravel() for w in words]
    n = int(np.prod(shape, dtype=np.int64))
    out = np.empty(n, dtype=np.uint64)
    last = np.uint64((8 * len(words) & 0xFF) << 56)
    tmp = np.empty(min(n, _CHUNK), dtype=np.uint64)
    for start in range(0, n, _CHUNK):
        stop = min(start + _CHUNK, n)
        m = stop - start
        scratch = tmp[:m]
        v = [
            np.full(m, k0 ^ _C0, dtype=np.uint64),
            np.full(m, k1 ^ _C1, dtype=np.uint64),
            np.full(m, k0 ^ _C2, dtype=np.uint64),
            np.full(m, k1 ^ _C3, dtype=np.uint64),
        ]
        for word in [*(w[start:stop] for w in flat), last]:
            v[3] ^= word
            _sipround(v, scratch)
            _sipround(v, scratch)
            v[0] ^= word
        v[2] ^= np.uint64(0xFF)
        for _ in range(4):
            _sipround(v, scratch)
        out[start:stop] = v[0] ^ v[1] ^ v[2] ^ v[3]
    return out.reshape(shape)


def new_secret_key(rng: np.random.Generator) -> np.ndarray:
    """A fresh 128-bit secret noise key (two uint64) drawn from the noise generator ``rng``."""
    return rng.integers(0, 2**64, size=2, dtype=np.uint64)


def secret_uniforms(secret: np.ndarray, keys: np.ndarray, n: int) -> np.ndarray:
    """``n`` open uniforms per key: a SipHash-2-4 seed per key, expanded by SplitMix64.

    Each key gets a 64-bit seed ``SipHash-2-4(secret, key)`` — a pseudorandom function of
    the key under the 128-bit ``secret`` — and its ``n`` uniforms are the first ``n``
    outputs of the SplitMix64 generator started at that seed. Seeing every uniform of one
    key may reveal that key's seed (SplitMix64 is invertible), which determines nothing
    about any other key or about the secret (one SipHash call per key, not per uniform).

    Parameters
    ----------
    secret : array of 2 uint64
        The noise key of one release (:func:`new_secret_key`); a curator secret.
    keys : array of uint64, shape (m,)
        Public keys, e.g. the leaves of a random tree.
    n : int
        Uniforms per key.

    Returns
    -------
    ndarray of float64, shape (m, n)
        Open uniforms on the 52-bit grid, independent across keys and across secrets (for
        a computationally bounded observer who does not know ``secret``).
    """
    seeds = siphash24(secret, [np.asarray(keys, dtype=np.uint64).reshape(-1)])
    steps = (np.arange(1, n + 1, dtype=np.uint64) * _GOLDEN).reshape(1, -1)
    with np.errstate(over="ignore"):
        state = seeds.reshape(-1, 1) + steps  # the SplitMix64 states seed + j·γ, j = 1..n
    return uniforms_from_bits(_mix64(state))
