import json
import math
from pathlib import Path

import pandas as pd
import pytest

from dpviz.domain import Categorical, Domain
from dpviz.errors import InvalidParameterError
from dpviz.explore import load_all
from dpviz.privacy import PrivateTable
from dpviz.ui import exercises
from dpviz.ui.exercises import EXERCISES, check, solution

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


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


# ---------------------------------------------------------------------------------- the key
load_all()  # every notebook's exercises: the key is tested over all of them
KEYS = sorted(EXERCISES)


@pytest.mark.parametrize("key", KEYS)
def test_the_instructors_key_is_accepted_by_its_own_check(key, capsys):
    """solution(key) is a worked answer for every registered exercise, and its check takes it."""
    answer = solution(key)
    assert answer is not None
    check(key, answer)
    out = capsys.readouterr().out
    assert any(word in out for word in ("correct!", "well predicted!", "caught!")), out
    assert exercises.solution is solution  # exported as exercises.solution too


def test_the_key_has_one_answer_of_each_kind_as_documented():
    assert solution("00.1") == 0.5
    assert solution("02.1") == tuple("bbabc")  # an argument: its letters, as a tuple
    assert callable(solution("01.3"))  # an implementation: a function
    assert callable(solution("06.3"))  # a break: the broken mechanism
    assert set(EXERCISES["02.3"].solution[1:]) == {(5, 3), (6, 3)}  # an audit: its neighbours
    with pytest.raises(InvalidParameterError, match=r"99\.9"):
        solution("99.9")


def test_no_notebook_shows_the_key():
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
        assert not any("solution(" in s or "worked_answer" in s for s in sources), path.name


# ---------------------------------------------------------------- how a check speaks (issue 45)
def test_a_wrong_answer_raises_but_shows_one_short_message_in_ipython(capsys):
    """Run All and nbgrader still stop at a wrong answer; IPython shows its message and hint
    only, not a traceback into dpviz."""
    from IPython.core.interactiveshell import InteractiveShell

    with pytest.raises(exercises.ExerciseError) as err:
        check("00.1", 1.25)
    assert isinstance(err.value, AssertionError)
    lines = err.value._render_traceback_()
    assert "Exercise 00.1" in lines[0] and any("Hint" in line for line in lines)
    shell = InteractiveShell.instance()
    try:
        outcome = shell.run_cell('from dpviz.ui.exercises import check\ncheck("00.1", 1.25)')
    finally:
        InteractiveShell.clear_instance()
    assert isinstance(outcome.error_in_exec, exercises.ExerciseError)
    shown = capsys.readouterr()
    text = shown.out + shown.err
    assert "Hint" in text and "Traceback" not in text and "dpviz/ui" not in text
    assert len(text.strip().splitlines()) <= 3


@pytest.mark.parametrize("environ", [{"SERVER_SOFTWARE": "voila/0.5.8"},
                                     {"VOILA_PREHEAT": "True"}], ids=["page", "pre-heated"])
def test_in_voila_an_unanswered_check_says_what_to_do_in_lab(environ, monkeypatch, capsys):
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    check("00.1", None)
    out = capsys.readouterr().out
    assert "not answered yet" not in out
    assert ("open this notebook in JupyterLab: there, replace None with your answer in the cell "
            "above and run this cell") in out


def test_in_lab_an_unanswered_check_prints_the_reminder(monkeypatch, capsys):
    monkeypatch.delenv("SERVER_SOFTWARE", raising=False)
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    check("00.1", None)
    assert "not answered yet — replace None with your answer" in capsys.readouterr().out


ARGUMENTS = [key for key in KEYS if EXERCISES[key].kind == "argument"]


@pytest.mark.parametrize("key", ARGUMENTS)
def test_an_arguments_right_option_is_not_given_away_by_its_length(key):
    """The right option was the longest in 19 of 24 steps (issue 45): now it is the longest, or
    the shortest, in at most a third of an argument's steps (rounded up)."""
    steps = EXERCISES[key].steps
    lengths = [(len(s.options[s.correct]), [len(t) for t in s.options.values()]) for s in steps]
    limit = math.ceil(len(steps) / 3)
    assert sum(right == max(all_) for right, all_ in lengths) <= limit
    assert sum(right == min(all_) for right, all_ in lengths) <= limit
