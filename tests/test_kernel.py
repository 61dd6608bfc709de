"""The kernel hook quiets missing data and its direct consequences only (issue 35).

The handler is driven with a fake shell: each cell's source and the error it raised. A cell
stopped by missing data records the names it would have set; a later NameError is quiet only
for one of those (and then its cell's names join them). Anything else keeps its traceback.
"""

from __future__ import annotations

from types import SimpleNamespace

import IPython.display
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from dpviz.errors import BudgetExceededError, DataUnavailableError
from dpviz.ui import kernel


class FakeShell:
    """What the handler reads of IPython's shell, and what it shows."""

    def __init__(self) -> None:
        self.user_ns: dict = {"In": [""]}
        self.displayhook = SimpleNamespace(exec_result=None)
        self.tracebacks: list[type] = []

    def showtraceback(self, exc_tuple: tuple, tb_offset: int | None = None) -> None:
        self.tracebacks.append(exc_tuple[0])

    def transform_cell(self, raw: str) -> str:
        return TransformerManager().transform_cell(raw)  # magics to Python, as IPython does

    def run(self, source: str, error: BaseException) -> str:
        """Run a cell that raised ``error``: "traceback", or "quiet" (ends without an error)."""
        result = SimpleNamespace(error_in_exec=error, info=SimpleNamespace(raw_cell=source))
        self.displayhook.exec_result = result
        self.user_ns["In"].append(source)
        shown = len(self.tracebacks)
        kernel._handler(self, type(error), error, None)
        if len(self.tracebacks) > shown:
            assert result.error_in_exec is error
            return "traceback"
        assert result.error_in_exec is None
        return "quiet"


def raised(source: str, namespace: dict | None = None) -> BaseException:
    """The exception ``source`` raises (a real NameError carries the missing name)."""
    try:
        exec(source, {} if namespace is None else namespace)
    except Exception as exc:  # whatever it raises is the point
        return exc
    raise AssertionError(f"{source!r} raised nothing")


@pytest.fixture
def shell(monkeypatch: pytest.MonkeyPatch) -> FakeShell:
    """A fresh kernel: no missing-data message yet; the notes are collected, not printed."""
    monkeypatch.setattr(kernel, "_first_message", [])
    monkeypatch.setattr(kernel, "_skipped_names", set(), raising=False)
    shown: list[dict] = []
    monkeypatch.setattr(IPython.display, "display", lambda bundle, raw: shown.append(bundle))
    fake = FakeShell()
    fake.notes = shown
    return fake


MISSING = DataUnavailableError("dpviz: UCI data file(s) missing: house-votes-84.data")


def test_missing_data_and_the_names_it_leaves_unset_are_quiet(shell):
    assert shell.run("votes = load('votes')\nX, y = votes.X, votes.y", MISSING) == "quiet"
    assert shell.notes[0]["text/plain"].startswith("Data files missing")
    assert shell.run("model = fit(X, y)", raised("model = fit(X, y)", {"fit": print})) == "quiet"
    assert shell.notes[1]["text/plain"].startswith("Skipped: this cell needs the data")
    # the chain: a name the skipped cell would have set is quiet too, here in a function
    assert shell.run("%time accuracy = score(model)",
                     raised("def score():\n    return model\nscore()")) == "quiet"
    assert {"votes", "X", "y", "model", "accuracy"} <= kernel._skipped_names
    assert shell.run("load('votes').X", MISSING) == "quiet"  # binds nothing, still missing data
    assert len(shell.notes) == 4 and shell.tracebacks == []


@pytest.mark.parametrize(("case", "source", "namespace"), [
    ("a typo", "vtoes.X", None),
    ("a name no skipped cell sets", "print(synthetic)", None),
    ("a NameError raised while handling a BudgetExceededError",
     "try:\n    raise Budget('refused')\nexcept Budget:\n    print(undefined)",
     {"Budget": BudgetExceededError}),
    ("a model whose fit was refused", "clf.predict(X)", None),
    ("an UnboundLocalError, even of a skipped cell's name",
     "def f():\n    print(votes)\n    votes = 1\nf()", None),
])
def test_any_other_name_error_shows_its_traceback(shell, case, source, namespace):
    """The old hook showed each of these as "Skipped" once data had been missing."""
    shell.run("votes = load('votes')", MISSING)
    error = raised(source, namespace)
    assert isinstance(error, NameError), case
    assert shell.run(source, error) == "traceback", case
    assert len(shell.notes) == 1


def test_before_any_missing_data_a_name_error_shows_its_traceback(shell):
    assert shell.run("votes.X", raised("votes.X")) == "traceback"
    assert shell.notes == []


def test_a_cell_that_raised_its_own_error_adds_no_names(shell):
    """A fit refused (BudgetExceededError) is not missing data: its model's name stays out."""
    shell.run("votes = load('votes')", MISSING)
    assert shell.run("clf = PrivateRDT().fit(X, y)", BudgetExceededError("refused")) \
        == "traceback"
    assert shell.run("clf.predict(X)", raised("clf.predict(X)")) == "traceback"


def test_the_names_a_cell_binds():
    source = """
import numpy as np, dpviz.trees
from dpviz import load as get
a, (b, *c) = 1, (2, 3)
d += 1
e: int = 0
for f in range(3):
    g = f
with open(x) as h:
    pass
try:
    pass
except OSError as i:
    pass
if (j := 5):
    k = [m for m in range(j) if (n := m)]
def func(local):
    inner = local
class Klass:
    attribute = 1
lam = lambda q: q
get_ipython().run_line_magic('time', 't = f()')
get_ipython().run_cell_magic('capture', 'out', 'u = 1\\nv = 2\\n')
match a:
    case {"key": o, **p}:
        pass
    case [r, *s]:
        pass
"""
    assert kernel.assigned_names(source) == {
        "np", "dpviz", "get", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "n",
        "func", "Klass", "lam", "t", "u", "v", "o", "p", "r", "s"}
    assert kernel.assigned_names("x = (") == set()  # does not parse: nothing
