import math

import pandas as pd
import pytest

from dpviz.domain import Categorical, Domain
from dpviz.errors import InvalidParameterError
from dpviz.privacy import PrivateTable
from dpviz.ui.exercises import EXERCISES, check


def test_unanswered_does_not_fail(capsys):
    check("00.1", None)
    assert "not answered" in capsys.readouterr().out


def test_wrong_answer_gives_hint():
    with pytest.raises(AssertionError, match="Hint"):
        check("00.1", 1.25)
    with pytest.raises(AssertionError, match="expected a number"):
        check("00.1", "half")


@pytest.mark.parametrize("impossible", [-0.5, 2.3])
def test_an_impossible_number_is_refused_as_such(impossible):
    with pytest.raises(AssertionError, match="cannot be right: what is left of a budget of 2 "
                                             "lies between 0 and 2") as err:
        check("00.1", impossible)
    assert "Hint" not in str(err.value)


def test_unknown_exercise():
    with pytest.raises(InvalidParameterError, match=r"99\.9"):
        check("99.9", 1)


def test_exercise_00_1_matches_the_ledger(capsys):
    # Re-enact the exercise on a real PrivateTable: the key must equal what the ledger says.
    domain = Domain([Categorical("finance", ("convenient", "inconv"))], ["a", "b"])
    X = pd.DataFrame({"finance": ["convenient", "inconv", "inconv"]})
    table = PrivateTable(X, ["a", "b", "a"], domain=domain, epsilon=2.0, rng=0)
    table.noisy_count(epsilon=0.3)
    first, second = table.partition("finance")
    first.noisy_class_counts(epsilon=1.2)
    second.noisy_class_counts(epsilon=0.7)
    assert math.isclose(table.ledger.remaining, EXERCISES["00.1"].answer)
    check("00.1", table.ledger.remaining)
    assert "correct" in capsys.readouterr().out
