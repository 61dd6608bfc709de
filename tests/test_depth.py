import pytest

from dpviz.errors import InvalidParameterError
from dpviz.trees.random_tree import (
    FI_TABLE4,
    expected_untested,
    fan_depth,
    fletcher_islam_depth,
    rdt_sharp_depth,
)


@pytest.mark.parametrize("row", list(FI_TABLE4.itertuples()), ids=lambda r: r.dataset)
def test_fletcher_islam_depth_reproduces_table_4(row):
    assert fletcher_islam_depth(row.continuous, row.discrete) == row.depth


def test_table_depth_is_one_more_than_the_theorem():
    # s = 10: E[X|7] = 4.78 < 5 = s/2 already; the table prints 8
    assert expected_untested(10, 7) < 5 <= expected_untested(10, 6)
    assert fletcher_islam_depth(10, 0) == 8


def test_fan_and_rdt_sharp_depths():
    assert fan_depth(8) == 4 and fan_depth(21) == 10 and fan_depth(1) == 1
    # Mushroom (21 attributes, b ≈ 5.3) with 2% of 8124 rows labeled: log_b 162 ≈ 3.05
    assert rdt_sharp_depth(21, 5.3, 162) == 4
    assert rdt_sharp_depth(8, 3.0, 27) == 4  # exact power of b: floor(log_3 27) = 3, + 1
    assert rdt_sharp_depth(4, 2.0, 10**6) == 2  # capped by k/2


@pytest.mark.parametrize("bad", [(0, 0), (-1, 2)])
def test_invalid_depth_arguments(bad):
    with pytest.raises(InvalidParameterError):
        fletcher_islam_depth(*bad)
    with pytest.raises(InvalidParameterError, match="mean_values"):
        rdt_sharp_depth(4, 1.0, 10)
