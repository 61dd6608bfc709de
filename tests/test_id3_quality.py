"""FS §4.1 quality functions and their sensitivities (FS Appendix A)."""

import itertools
import math

import numpy as np
import pytest

from dpviz.errors import InvalidParameterError
from dpviz.trees.id3_quality import (
    CRITERIA,
    get_criterion,
    q_gini,
    q_infogain,
    q_max,
    sensitivity_gini,
    sensitivity_infogain,
    sensitivity_max,
    sulq_information_gain,
)

# A binary attribute (rows) and two classes (columns): value 0 has 3 + 1 rows, value 1 has 4.
TABLE_A = np.array([[3.0, 1.0], [0.0, 4.0]])
# Three values, three classes; the third value is empty.
TABLE_B = np.array([[2.0, 2.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])


def test_infogain_by_hand():
    # Σ_j Σ_c τ_jc log2(τ_jc / τ_j) (the sign of the README erratum: ≤ 0, larger is better)
    assert q_infogain(TABLE_A) == pytest.approx(3 * math.log2(3 / 4) + 1 * math.log2(1 / 4))
    assert q_infogain(TABLE_A) == pytest.approx(-3.2451124978)
    assert q_infogain(TABLE_B) == pytest.approx(-4.0 - 2.0)  # 2·2·log2(1/2) + 2·1·log2(1/2)
    # it is −τ·H(C|A): a pure split scores 0, the best possible
    assert q_infogain([[5, 0], [0, 7]]) == 0.0
    # and ranks a more informative attribute higher
    assert q_infogain([[5, 1], [1, 5]]) > q_infogain([[3, 3], [3, 3]])


def test_gini_by_hand():
    # −Σ_j τ_j (1 − Σ_c (τ_jc/τ_j)²)
    assert q_gini(TABLE_A) == pytest.approx(-(4 * (1 - (9 + 1) / 16) + 4 * 0))
    assert q_gini(TABLE_A) == pytest.approx(-1.5)
    assert q_gini(TABLE_B) == pytest.approx(-(4 * (1 - 0.5) + 2 * (1 - 0.5)))  # −3
    assert q_gini([[5, 0], [0, 7]]) == 0.0


def test_max_by_hand():
    assert q_max(TABLE_A) == 3 + 4
    assert q_max(TABLE_B) == 2 + 1 + 0


def test_qualities_are_vectorized_over_candidates():
    stacked = np.stack([TABLE_A, [[2.0, 2.0], [2.0, 2.0]]])
    np.testing.assert_allclose(q_infogain(stacked), [q_infogain(TABLE_A), -8.0])
    np.testing.assert_allclose(q_gini(stacked), [-1.5, -4.0])
    np.testing.assert_allclose(q_max(stacked), [7.0, 4.0])


def test_sensitivity_values():
    # FS Table 1 setting: N = 5000
    assert sensitivity_infogain(5000) == pytest.approx(math.log2(5001) + 1 / math.log(2))
    assert sensitivity_infogain(5000) == pytest.approx(13.7307, abs=1e-4)
    assert sensitivity_gini() == 2.0
    assert sensitivity_max() == 1.0
    assert CRITERIA["gini"].sensitivity(None) == 2.0


def test_infogain_needs_a_public_size_bound():
    with pytest.raises(InvalidParameterError, match="size_bound"):
        sensitivity_infogain(None)
    with pytest.raises(InvalidParameterError, match="size_bound"):
        sensitivity_infogain(0)
    assert CRITERIA["infogain"].needs_size_bound
    assert not CRITERIA["max"].needs_size_bound


def test_unknown_criterion():
    with pytest.raises(InvalidParameterError, match="criterion"):
        get_criterion("entropy")
    assert get_criterion("GINI").name == "gini"


def test_bad_counts_refused():
    with pytest.raises(InvalidParameterError):
        q_max([1, 2, 3])  # not (values, classes)
    with pytest.raises(InvalidParameterError):
        q_gini([[1, -1], [0, 2]])


def _neighbour_changes(table, quality):
    """|q(T ∪ {r}) − q(T)| for a row r added to every cell of ``table``."""
    base = quality(table)
    out = []
    for j, c in itertools.product(range(table.shape[0]), range(table.shape[1])):
        bigger = table.copy()
        bigger[j, c] += 1
        out.append(abs(quality(bigger) - base))
    return out


def test_sensitivity_bounds_hold_exhaustively_on_small_tables():
    """Every 2×2 table with at most N rows, every added row (removal is the same pair)."""
    n_bound = 12
    worst = {"infogain": 0.0, "gini": 0.0, "max": 0.0}
    for cells in itertools.product(range(n_bound + 1), repeat=4):
        if sum(cells) > n_bound:
            continue
        table = np.array(cells, dtype=float).reshape(2, 2)
        for name, crit in CRITERIA.items():
            worst[name] = max(worst[name], *_neighbour_changes(table, crit.quality))
    s_ig = sensitivity_infogain(n_bound)
    assert worst["infogain"] <= s_ig
    assert worst["gini"] <= 2.0
    assert worst["max"] <= 1.0
    # and the bounds are nearly tight: they are not loose constants
    assert worst["infogain"] > 0.95 * s_ig
    assert worst["gini"] > 1.8
    assert worst["max"] == 1.0


def test_sensitivity_bounds_hold_on_random_larger_tables():
    rng = np.random.default_rng(7)
    n_bound = 5000
    s_ig = sensitivity_infogain(n_bound)
    for _ in range(300):
        shape = (int(rng.integers(1, 6)), int(rng.integers(2, 5)))
        total = int(rng.integers(0, n_bound))
        p = rng.dirichlet(np.full(shape[0] * shape[1], 0.3))
        table = rng.multinomial(total, p).reshape(shape).astype(float)
        assert max(_neighbour_changes(table, q_infogain)) <= s_ig
        assert max(_neighbour_changes(table, q_gini)) <= 2.0
        assert max(_neighbour_changes(table, q_max)) <= 1.0


def test_sulq_information_gain_equals_infogain_on_exact_counts():
    for table in (TABLE_A, TABLE_B):
        assert sulq_information_gain(table.sum(axis=1), table) == pytest.approx(q_infogain(table))


def test_sulq_information_gain_skips_negative_counts():
    # FS Alg. 1 line 19: negative N_j or N_jc are skipped; the second value (N_j = -3) drops out
    n_j = np.array([10.0, -3.0])
    n_jc = np.array([[6.0, 5.0], [2.0, -1.0]])
    expected = 6 * math.log2(6 / 10) + 5 * math.log2(5 / 10)
    assert sulq_information_gain(n_j, n_jc) == pytest.approx(expected)
    # a negative cell under a positive N_j is skipped too; zeros contribute nothing
    assert sulq_information_gain([4.0], [[-2.0, 4.0]]) == pytest.approx(0.0)
    assert sulq_information_gain([4.0], [[0.0, 4.0]]) == pytest.approx(0.0)
    with pytest.raises(InvalidParameterError):
        sulq_information_gain([1.0, 2.0], [[1.0, 1.0]])
