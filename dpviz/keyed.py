"""Counter-based randomness: random numbers that are a pure function of a key.

Public tree structure from a node's 64-bit key through SplitMix64 (Steele, Lea & Flood
2014); secret noise of unvisited leaves from SipHash-2-4 (Aumasson & Bernstein 2012) under a
128-bit key. Both give open uniforms on the grid ``(k + 1/2) / 2**52``
(:func:`uniforms_from_bits`). Why this is safe: docs/privacy.md §8.1.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "UNIFORM_BITS", "child_key", "child_keys", "derive", "new_secret_key", "secret_uniforms",
    "siphash24", "siphash_lanes", "splitmix64", "stream_key", "uniform", "uniforms",
    "uniforms_from_bits", "use_kernel",
]

#: Bits of randomness in every uniform: ``(k + 1/2) / 2**52`` is exact in float64.
UNIFORM_BITS = 52

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_DROP = np.uint64(64 - UNIFORM_BITS)


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output mix (Stafford's variant 13) of uint64 states (``z`` unchanged)."""
    t = z >> _S30  # (in place where it can: half the allocations)
    t ^= z
    t *= _M1
    z = t >> _S27
    z ^= t
    z *= _M2
    return z ^ (z >> _S31)


#: Up to this many keys, SplitMix64 runs on Python ints: numpy's cost per call dominates a few.
_FEW_KEYS = 12
_G = int(_GOLDEN)


def _mix_int(z: int) -> int:
    """:func:`_mix64` of ``z mod 2**64`` on a Python int (for a few keys)."""
    z &= 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def _keys(x: object) -> np.ndarray:
    """``x`` as a uint64 array of at least one dimension (as is, when it is one: no calls)."""
    if type(x) is np.ndarray and x.dtype == np.uint64 and x.ndim:
        return x
    return np.atleast_1d(np.asarray(x, dtype=np.uint64))


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's output function, elementwise on uint64 (wrapping arithmetic)."""
    return _mix64(np.asarray(x, dtype=np.uint64) + _GOLDEN)


def derive(keys: np.ndarray | int, stream: int) -> np.ndarray:
    """An independent key per input key for a named ``stream`` (a small non-negative int)."""
    return _mix64((_keys(keys) ^ np.uint64(stream_key(stream))) + _GOLDEN)


def stream_key(stream: int) -> int:
    """``splitmix64(stream)``, the key a stream's keys are xor-ed with (on a Python int)."""
    return _mix_int(stream + _G)


def child_keys(parent_keys: np.ndarray, child_index: np.ndarray) -> np.ndarray:
    """Keys of the children ``child_index`` of nodes ``parent_keys`` (elementwise)."""
    p, c = np.asarray(parent_keys, dtype=np.uint64), np.asarray(child_index, dtype=np.uint64)
    if p.ndim == 1 and p.shape == c.shape and len(p) <= _FEW_KEYS:
        return np.array([child_key(k, i) for k, i in zip(p.tolist(), c.tolist(), strict=True)],
                        dtype=np.uint64)
    return splitmix64(splitmix64(p) + (c + np.uint64(1)) * _GOLDEN)


def child_key(key: int, index: int) -> int:
    """:func:`child_keys` of one parent key and child index, on Python ints (a few keys)."""
    return _mix_int(_mix_int(key + _G) + (index + 1) * _G + _G)


def uniforms_from_bits(bits: np.ndarray) -> np.ndarray:
    """Open uniforms ``(k + 1/2) / 2**52`` (exact doubles, never 0 or 1) from the top 52 bits."""
    u = (np.asarray(bits, dtype=np.uint64) >> _DROP).astype(np.float64)
    u += 0.5
    u *= 2.0**-UNIFORM_BITS
    return u


def uniforms(keys: np.ndarray, stream: int, n: int | None = None) -> np.ndarray:
    """Public open uniforms of ``(keys, stream)`` (tree structure only), ``n`` per key if given."""
    keys = _keys(keys)
    if n is None and keys.ndim == 1 and len(keys) <= _FEW_KEYS:
        s = stream_key(stream)
        return np.array([uniform(k, s) for k in keys.tolist()])
    base = derive(keys, stream)
    if n is not None:
        base = child_keys(base[..., None], np.arange(n, dtype=np.uint64))
    return uniforms_from_bits(_mix64(base + _GOLDEN))


def uniform(key: int, keyed_stream: int) -> float:
    """:func:`uniforms` of one key on Python ints; ``keyed_stream`` is :func:`stream_key`'s."""
    return ((_mix_int(_mix_int((key ^ keyed_stream) + _G) + _G) >> 12) + 0.5) * 2.0**-52


# ------------------------------------------------------------------------- SipHash-2-4
#: The initial state's constants, "somepseudorandomlygeneratedbytes" as four 64-bit words.
_C = tuple(map(np.uint64, (0x736F6D6570736575, 0x646F72616E646F6D, 0x6C7967656E657261,
                           0x7465646279746573)))


def _rotate(x: np.ndarray, r: int, tmp: np.ndarray) -> None:
    """``x = rotl(x, r)`` in place (``tmp`` is scratch space of the same shape)."""
    np.left_shift(x, np.uint64(r), out=tmp)
    np.right_shift(x, np.uint64(64 - r), out=x)
    np.bitwise_or(x, tmp, out=x)


#: SipRound as half-rounds (a, b, r, rotate a by 32): v[a] += v[b]; v[b] = rotl(v[b], r) ^ v[a].
_HALF_ROUNDS = ((0, 1, 13, True), (2, 3, 16, False), (0, 3, 21, False), (2, 1, 17, True))


def _sipround(v: list[np.ndarray], tmp: np.ndarray) -> None:
    """One SipRound on the state ``v = [v0, v1, v2, v3]``, in place."""
    for a, b, r, rotate_a in _HALF_ROUNDS:
        v[a] += v[b]
        _rotate(v[b], r, tmp)
        v[b] ^= v[a]
        if rotate_a:
            _rotate(v[a], 32, tmp)


_CHUNK = 16_384  # elements per pass: the state stays in the CPU cache
#: Up to this many tags, SipHash runs on Python ints: numpy's cost per call dominates a few.
_FEW = 8
_MASK = 2**64 - 1


def _sipround_ints(v0: int, v1: int, v2: int, v3: int) -> tuple[int, int, int, int]:
    """:func:`_sipround` on one state of Python ints (the _HALF_ROUNDS, written out)."""
    m = _MASK
    v0 = (v0 + v1) & m
    v1 = (((v1 << 13) | (v1 >> 51)) & m) ^ v0
    v0 = ((v0 << 32) | (v0 >> 32)) & m
    v2 = (v2 + v3) & m
    v3 = (((v3 << 16) | (v3 >> 48)) & m) ^ v2
    v0 = (v0 + v3) & m
    v3 = (((v3 << 21) | (v3 >> 43)) & m) ^ v0
    v2 = (v2 + v1) & m
    v1 = (((v1 << 17) | (v1 >> 47)) & m) ^ v2
    v2 = ((v2 << 32) | (v2 >> 32)) & m
    return v0, v1, v2, v3


def _siphash24_ints(k0: int, k1: int, words: list[int], last: int) -> int:
    """One SipHash-2-4 tag on Python ints (:func:`siphash24`'s steps, for a few tags)."""
    v0, v1, v2, v3 = (k ^ int(c) for k, c in zip((k0, k1, k0, k1), _C, strict=True))
    for word in [*words, last]:
        v3 ^= word
        v0, v1, v2, v3 = _sipround_ints(*_sipround_ints(v0, v1, v2, v3))
        v0 ^= word
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sipround_ints(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def siphash24(key: np.ndarray, words: list[np.ndarray]) -> np.ndarray:
    """SipHash-2-4 tags (uint64) of the words ``words`` (broadcast) under the key ``(k0, k1)``."""
    k0, k1 = (np.uint64(k) for k in np.asarray(key, dtype=np.uint64).tolist())
    last = np.uint64((8 * len(words) & 0xFF) << 56)
    if len(words) == 1 and np.ndim(words[0]) == 1 and len(words[0]) <= _FEW:  # (secret noise)
        return np.array([_siphash24_ints(int(k0), int(k1), [w], int(last))
                         for w in np.asarray(words[0], dtype=np.uint64).tolist()], np.uint64)
    shape = np.broadcast_shapes(*(np.shape(w) for w in words)) if words else ()
    flat = [np.broadcast_to(np.asarray(w, dtype=np.uint64), shape).ravel() for w in words]
    n = int(np.prod(shape, dtype=np.int64))
    if n <= _FEW:
        columns = [w.tolist() for w in flat]
        tags = [_siphash24_ints(int(k0), int(k1), [c[i] for c in columns], int(last))
                for i in range(n)]
        return np.array(tags, dtype=np.uint64).reshape(shape)
    out = np.empty(n, dtype=np.uint64)
    if _kernels:  # compiled (registered by the trees' engine once numba is loaded)
        words_2d = np.stack(flat) if flat else np.zeros((0, n), dtype=np.uint64)
        _kernels[0](np.array([k0, k1], dtype=np.uint64), words_2d, last, out)
        return out.reshape(shape)
    tmp = np.empty(min(n, _CHUNK), dtype=np.uint64)
    for start in range(0, n, _CHUNK):
        stop = min(start + _CHUNK, n)
        m = stop - start
        scratch = tmp[:m]
        v = [np.full(m, k ^ c, dtype=np.uint64) for k, c in zip((k0, k1, k0, k1), _C, strict=True)]
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


#: SipHash compiled by numba (:func:`siphash_lanes`), registered by
#: :mod:`dpviz.trees.random_tree` when its engine loads numba: empty, numpy's lanes.
_kernels: list = []


def use_kernel(kernel: object | None) -> None:
    """Register (or, with None, drop) the compiled :func:`siphash_lanes`: the same tags."""
    _kernels[:] = [] if kernel is None else [kernel]


def siphash_lanes(key, words, last, out):  # pragma: no cover - compiled by numba
    """``out[i]``: SipHash-2-4 of column i of ``words`` (n_words, n), then ``last``, under key.

    :func:`siphash24`'s steps one tag at a time, for numba to compile (uint64 wraps).
    """
    def rotl(x, r):
        return (x << np.uint64(r)) | (x >> np.uint64(64 - r))

    def sipround(v0, v1, v2, v3):  # the _HALF_ROUNDS table
        v0 += v1
        v1 = rotl(v1, 13) ^ v0
        v0 = rotl(v0, 32)
        v2 += v3
        v3 = rotl(v3, 16) ^ v2
        v0 += v3
        v3 = rotl(v3, 21) ^ v0
        v2 += v1
        v1 = rotl(v1, 17) ^ v2
        v2 = rotl(v2, 32)
        return v0, v1, v2, v3

    c0, c1 = np.uint64(0x736F6D6570736575), np.uint64(0x646F72616E646F6D)
    c2, c3 = np.uint64(0x6C7967656E657261), np.uint64(0x7465646279746573)
    n_words = words.shape[0]
    for i in range(out.shape[0]):
        v0, v1, v2, v3 = key[0] ^ c0, key[1] ^ c1, key[0] ^ c2, key[1] ^ c3
        for w in range(n_words + 1):
            m = words[w, i] if w < n_words else last
            v3 ^= m
            v0, v1, v2, v3 = sipround(v0, v1, v2, v3)
            v0, v1, v2, v3 = sipround(v0, v1, v2, v3)
            v0 ^= m
        v2 ^= np.uint64(0xFF)
        for _ in range(4):
            v0, v1, v2, v3 = sipround(v0, v1, v2, v3)
        out[i] = v0 ^ v1 ^ v2 ^ v3


def new_secret_key(rng: np.random.Generator) -> np.ndarray:
    """A fresh 128-bit secret noise key (two uint64) drawn from the noise generator ``rng``."""
    return rng.integers(0, 2**64, size=2, dtype=np.uint64)


def secret_uniforms(secret: np.ndarray, keys: np.ndarray, n: int) -> np.ndarray:
    """``n`` open uniforms per key (m, n): the SplitMix64 stream from ``SipHash-2-4(secret, key)``.

    ``secret``: one release's noise key (:func:`new_secret_key`), a curator secret.
    """
    seeds = siphash24(secret, [np.asarray(keys, dtype=np.uint64).reshape(-1)])
    steps = (np.arange(1, n + 1, dtype=np.uint64) * _GOLDEN).reshape(1, -1)
    with np.errstate(over="ignore"):
        state = seeds.reshape(-1, 1) + steps  # the SplitMix64 states seed + j·γ, j = 1..n
    return uniforms_from_bits(_mix64(state))
