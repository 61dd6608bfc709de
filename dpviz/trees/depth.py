"""Height rules for random decision trees, each named after its source.

* :func:`fan_depth` — Fan et al. (2003), used by JPW §IV: h = k/2 for k attributes.
* :func:`rdt_sharp_depth` — RDT# (Jagannathan, Monteleoni & Pillaipakkamnatt 2013):
  h = min(⌊k/2⌋, ⌊log_b n⌋ + 1).
* :func:`fletcher_islam_depth` — FI (2017) Theorem 2 for continuous features plus
  ⌊r/2⌋ for discrete ones, as FI Table 4 applies it.

The rules are the papers'; the estimators cap them at :data:`MAX_DEPTH`
(:func:`cap_depth`) and refuse an explicit ``max_depth`` above it (:func:`check_depth`).
"""

from __future__ import annotations

import math

import pandas as pd

from dpviz.errors import InvalidParameterError
from dpviz.validation import check_int, check_positive

__all__ = [
    "FI_TABLE4",
    "MAX_DEPTH",
    "cap_depth",
    "check_depth",
    "expected_untested",
    "fan_depth",
    "fletcher_islam_depth",
    "rdt_sharp_depth",
]


#: The deepest random tree dpviz builds: default rules are capped here, larger ``max_depth``
#: refused. Why 64:
#:
#: * a categorical attribute is used at most once on a path, so on a purely categorical
#:   domain every tree is the same (nodes pass their rows on) beyond depth = the number of
#:   categorical attributes: a cap only matters through the numeric attributes;
#: * a numeric split at a uniform point keeps, in expectation, at most 3/4 of the width
#:   around any given point (1/2 + x − x² for the point's relative position x), so the
#:   leaf around a point covers in expectation at most (3/4)^d of the domain's volume:
#:   (3/4)^64 ≈ 1e-8. Deeper levels only split cells already holding about one row of
#:   any data set that fits in memory (or none): they add empty leaves, whose releases
#:   are pure noise, not information;
#: * time grows with the depth (every level routes every row, and reads each node's path
#:   of up to depth tests), memory too (a node keeps its path): FI's default forest of 100
#:   trees predicts 2,000 rows of 500 numeric attributes in about 2 s at depth 64.
#:
#: The papers' rules stay below it on their data sets (FI Table 4: at most 15; JPW/Fan k/2
#: up to 129 attributes); FI's rule asks for more from 92 continuous attributes on (348
#: for 500), where the cap applies.
MAX_DEPTH = 64


def check_depth(value: object, name: str = "max_depth", *, minimum: int = 1) -> int:
    """Return ``value`` as an int if it is a depth in ``[minimum, MAX_DEPTH]``.

    Raises
    ------
    InvalidParameterError
        Naming the parameter and the value, if it is not an integer, below ``minimum``
        or above :data:`MAX_DEPTH`.
    """
    depth = check_int(value, name, minimum=minimum)
    if depth > MAX_DEPTH:
        raise InvalidParameterError(
            f"{name}={value!r} is deeper than MAX_DEPTH={MAX_DEPTH}, the deepest random tree "
            "dpviz builds (beyond it a leaf around any point covers in expectation at most "
            f"(3/4)^{MAX_DEPTH} ≈ 1e-8 of the domain: deeper levels only add empty leaves, "
            f"and time grows with every level). Pass {name} <= {MAX_DEPTH}"
            + (", or None for the default rule (capped there)" if name == "max_depth" else "")
        )
    return depth


def cap_depth(rule_depth: int) -> int:
    """A default rule's depth, capped at :data:`MAX_DEPTH` (see there why)."""
    return min(check_int(rule_depth, "rule_depth", minimum=0), MAX_DEPTH)


def fan_depth(n_attributes: int) -> int:
    """Fan et al.'s height h = k/2 (JPW §IV: "a good choice for the height is h = m/2").

    Parameters
    ----------
    n_attributes : int
        k, the number of attributes (≥ 1).

    Returns
    -------
    int
        ⌊k/2⌋, at least 1 (so a one-attribute domain still splits once).
    """
    k = check_int(n_attributes, "n_attributes", minimum=1)
    return max(k // 2, 1)


def rdt_sharp_depth(n_attributes: int, mean_values: float, n_rows: int) -> int:
    """RDT#'s height h = min(⌊k/2⌋, ⌊log_b n⌋ + 1).

    Parameters
    ----------
    n_attributes : int
        k, the number of attributes.
    mean_values : float
        b, the mean number of values per attribute (> 1).
    n_rows : int
        n, the number of (private, labeled) rows — a public size bound in practice.

    Returns
    -------
    int
        The height, at least 1.
    """
    k = check_int(n_attributes, "n_attributes", minimum=1)
    b = check_positive(mean_values, "mean_values")
    n = check_int(n_rows, "n_rows", minimum=1)
    if b <= 1:
        raise InvalidParameterError(f"mean_values must be > 1, got {mean_values!r}")
    # floor(log_b n) computed exactly for powers of b (avoid 2.9999999 -> 2)
    level = math.floor(math.log(n) / math.log(b) + 1e-12)
    return max(min(k // 2, level + 1), 1)


def expected_untested(n_continuous: int, depth: int) -> float:
    """FI Theorem 2: E[X | d] = s·((s−1)/s)^d continuous features never tested on a path."""
    s = check_int(n_continuous, "n_continuous", minimum=1)
    d = check_int(depth, "depth", minimum=0)
    return s * ((s - 1) / s) ** d


def fletcher_islam_depth(n_continuous: int, n_discrete: int) -> int:
    """The FI (2017) tree depth, as FI Table 4 computes it.

    For s continuous features, Theorem 2 (eq. 16) asks for the smallest depth d
    at which the expected number of untested continuous features
    E[X | d] = s·((s−1)/s)^d falls below s/2. Every depth printed in FI Table 4
    is one more than that d (e.g. s = 10: E[X | 7] = 4.78 < 5 already, but the
    table says 8; s = 5: E[X | 4] = 2.05 < 2.5, the table says 5). We match the
    table: d_cont = 1 + min{d : s·((s−1)/s)^d < s/2} for s ≥ 1, and 0 for s = 0.
    (Equivalently, the table counts the root as the first level.) Discrete
    features add ⌊r/2⌋, Fan et al.'s rule (FI §4.3), e.g. Adult (6 + 8): 5 + 4 = 9.

    Parameters
    ----------
    n_continuous : int
        s, the number of continuous features.
    n_discrete : int
        r, the number of discrete features.

    Returns
    -------
    int
        The depth (at least 1).
    """
    s = check_int(n_continuous, "n_continuous", minimum=0)
    r = check_int(n_discrete, "n_discrete", minimum=0)
    if s + r == 0:
        raise InvalidParameterError("fletcher_islam_depth needs at least one feature")
    d_cont = 0
    if s > 0:
        # start next to the closed form d ≈ log(1/2) / log((s−1)/s), then settle on the
        # smallest d of the rule exactly (no loop of ~0.7·s steps for a large s)
        d = 0 if s == 1 else max(int(math.log(0.5) / math.log1p(-1 / s)) - 2, 0)
        while d > 0 and expected_untested(s, d - 1) < s / 2:
            d -= 1
        while expected_untested(s, d) >= s / 2:
            d += 1
        d_cont = d + 1
    return max(d_cont + r // 2, 1)


#: FI (2017) Table 4: data set, continuous features, discrete features, published depth.
FI_TABLE4 = pd.DataFrame(
    [
        ("SynthA", 5, 0, 5),
        ("SynthB", 10, 0, 8),
        ("SynthC", 15, 0, 12),
        ("SynthD", 15, 0, 12),
        ("SynthE", 15, 0, 12),
        ("SynthF", 10, 0, 8),
        ("SynthG", 20, 0, 15),
        ("WallSensor", 4, 0, 4),
        ("PenWritten", 16, 0, 12),
        ("GammaTele", 10, 0, 8),
        ("Adult", 6, 8, 9),
        ("Mushroom", 0, 22, 11),
        ("Claves", 0, 16, 8),
        ("Nursery", 0, 8, 4),
    ],
    columns=["dataset", "continuous", "discrete", "depth"],
)
