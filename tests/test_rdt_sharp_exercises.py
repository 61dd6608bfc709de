"""Notebook 04's exercises (dpviz.explore.rdt_sharp): the reference solutions pass,
typical wrong answers fail, None only prints a reminder, and the notebook never shows an answer
above its check."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from dpviz import mechanisms
from dpviz.audit.engine import audit
from dpviz.explore import rdt_sharp as rs
from dpviz.explore import rdt_sharp as rx
from dpviz.trees.rdt import classify
from dpviz.ui.exercises import EXERCISES, check, coverage

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "04_semi_supervised_rdt_sharp.ipynb"
KEYS = ("04.1", "04.2", "04.3", "04.4")
ARGUMENT = "bcab"  # the reference answer of 04.1


# ------------------------------------------------------------------------------ reference answers
def pseudo_label(counts, epsilon, rng):
    """04.2: AddNoise at ε/p on every counter of each of the p cells, then Classify's arg-max."""
    counts = np.asarray(counts)
    noisy = mechanisms.discrete_laplace(counts, epsilon=epsilon / len(counts), rng=rng)
    return int(noisy.sum(axis=0).argmax())  # Classify's arg-max (dpviz's classify is refused)


def centre_mechanism(data, n, rng):
    """04.3: the leaf's one centre drawn uniformly among its private rows."""
    return rng.choice(np.asarray(data), size=n)


def test_every_kind_once():
    assert coverage()["04"] == {"argument": 1, "implementation": 1, "audit": 1, "prediction": 1}


@pytest.mark.parametrize("key", KEYS)
def test_none_prints_the_reminder(key, capsys):
    check(key, None)
    assert "not answered yet" in capsys.readouterr().out


# ---------------------------------------------------------------------------------- 04.1
def test_argument(capsys):
    check("04.1", ARGUMENT)
    assert "correct" in capsys.readouterr().out
    # the usual slips: parallel composition across trees, paying for the secondary trees, and
    # believing noise on the counters protects the centres
    for wrong in ("bbab", "bcbb", "bcaa", "acab"):
        with pytest.raises(AssertionError, match="not yet"):
            check("04.1", wrong)


def test_argument_text_shows_options_not_answer():
    text = EXERCISES["04.1"].text()
    assert "**Step 4.**" in text and "(b)" in text
    assert ARGUMENT not in text


# ---------------------------------------------------------------------------------- 04.2
def test_exact_law_matches_the_library_pipeline():
    # the same noise and Classify as the estimator, sampled: the convolution law is the law
    rng = np.random.default_rng(5)
    counts = np.array(((3, 2, 1), (1, 3, 2)))
    noisy = mechanisms.discrete_laplace(counts, epsilon=1.0, rng=rng, size=200_000)
    labels = classify([noisy[:, i, :] for i in range(2)]).argmax(axis=1)
    freq = np.bincount(labels, minlength=3) / len(labels)
    assert freq == pytest.approx(rx.pseudo_label_law((4, 5, 3), 1.0, 2), abs=0.005)


def test_implementation_reference_passes(capsys):
    check("04.2", pseudo_label)
    assert "correct" in capsys.readouterr().out


def _no_noise(counts, epsilon, rng):
    return int(np.argmax(np.sum(counts, axis=0)))


def _budget_not_split(counts, epsilon, rng):
    return int(np.argmax(mechanisms.discrete_laplace(counts, epsilon=epsilon, rng=rng).sum(axis=0)))


def _noise_on_the_sums(counts, epsilon, rng):
    total = np.sum(counts, axis=0)
    noisy = mechanisms.discrete_laplace(total, epsilon=epsilon / len(counts), rng=rng)
    return int(np.argmax(noisy))


def _clamped_epsilon(counts, epsilon, rng):  # "ε below 0.5 is not worth it": not DP at 0.05
    return pseudo_label(counts, max(epsilon, 0.5), rng)


@pytest.mark.parametrize("wrong", [_no_noise, _budget_not_split, _noise_on_the_sums,
                                   _clamped_epsilon])
def test_implementation_wrong_samplers_fail(wrong):
    with pytest.raises(AssertionError, match="Hint"):
        check("04.2", wrong)
    with pytest.raises(AssertionError, match="pass your function"):
        check("04.2", 1)


def test_implementation_check_is_sound():
    spec = EXERCISES["04.2"]
    assert spec.false_alarm_bound() <= 1e-6

    def law(rate_of, n_terms_of, reverse=False):
        def wrong(counts, epsilon):
            totals = np.sum(counts, axis=0)[::-1] if reverse else np.sum(counts, axis=0)
            p = rx.pseudo_label_law(totals, rate_of(epsilon, len(counts)), n_terms_of(len(counts)))
            return p[::-1] if reverse else p
        return wrong

    def no_noise(counts, epsilon):
        return np.eye(len(counts[0]))[np.argmax(np.sum(counts, axis=0))]

    assert spec.power(no_noise) > 0.999
    assert spec.power(law(lambda e, p: e, lambda p: p)) > 0.999  # ε not split over the trees
    assert spec.power(law(lambda e, p: e / p, lambda p: 1)) > 0.999  # noise once on the sums
    assert spec.power(law(lambda e, p: e / p, lambda p: p, reverse=True)) > 0.99  # ties high


# ---------------------------------------------------------------------------------- 04.3
def test_audit_reference_passes(capsys):
    D, D_prime = (0, 0, 1, 1), (0, 0, 1, 1, 2)
    result = audit(centre_mechanism, D, D_prime, epsilon=1.0, n_samples=20_000)
    check("04.3", (centre_mechanism, D, D_prime, result))
    assert "correct" in capsys.readouterr().out
    check("04.3", (centre_mechanism, (1, 0, 1, 0), (2, 1, 0, 0, 1), result))  # multisets
    assert "correct" in capsys.readouterr().out


@pytest.mark.parametrize(("D", "D_prime", "why"), [
    ((1, 2), (3, 4), "D′ removes two rows from D and adds two rows"),
    ((1,), (2,), "D′ replaces a row of D (one removed, one added)"),
    ((1,), (1, 2, 2), "D′ adds two rows to D; neighbours differ by exactly one row"),
])
def test_audit_on_non_neighbours_is_refused_with_the_reason(D, D_prime, why):
    result = audit(centre_mechanism, D, D_prime, epsilon=1.0, n_samples=20_000)
    assert result.reject and result.epsilon_lower >= 2  # the old checker accepted these
    with pytest.raises(AssertionError, match=f"not neighbours: {re.escape(why)}"):
        check("04.3", (centre_mechanism, D, D_prime, result))


def test_audit_neighbour_that_duplicates_a_row_shows_nothing():
    # a neighbour whose extra row repeats a value already there leaks only log(3/5 / 1/2) ≈ 0.18
    result = audit(centre_mechanism, (0, 0, 1, 1), (0, 0, 1, 1, 1), epsilon=1.0, n_samples=20_000)
    with pytest.raises(AssertionError, match="found no violation"):
        check("04.3", (centre_mechanism, (0, 0, 1, 1), (0, 0, 1, 1, 1), result))


def test_audit_wrong_mechanisms_fail():
    def first_row(data, n, rng):  # no randomness
        return np.full(n, data[0])

    def distinct_values(data, n, rng):  # duplicates ignored
        return rng.choice(np.unique(data), size=n)

    for wrong in (first_row, distinct_values):
        result = audit(wrong, (0,), (0, 1), epsilon=1.0, n_samples=20_000)
        with pytest.raises(AssertionError, match="output law"):
            check("04.3", (wrong, (0,), (0, 1), result))
    result = audit(centre_mechanism, (0,), (0, 1), epsilon=1.0, n_samples=2_000)
    with pytest.raises(AssertionError, match="samples per neighbour"):
        check("04.3", (centre_mechanism, (0,), (0, 1), result))
    with pytest.raises(AssertionError, match=re.escape("(mechanism, D, D_prime, result)")):
        check("04.3", centre_mechanism)


def test_audit_law_check_is_sound():
    spec = EXERCISES["04.3"]
    cells = [rx.centre_law(d) for d in spec.cases]
    assert all(abs(sum(law.values()) - 1) < 1e-12 for law in cells)
    assert rx.centre_law((4, 4, 7, 9)) == {4: 0.5, 7: 0.25, 9: 0.25}


# ---------------------------------------------------------------------------------- 04.4
def test_prediction_is_the_explorers_subtitle_value(capsys):
    s = rx.PREDICTION_SETTING
    frame = rs.explorer_frame(s["dataset"], [s["epsilon"]], s["percent"], s["n_secondary"])
    shown = frame[frame["method"] == "RDT#"]["accuracy"].mean()
    value, _spread, accepted = EXERCISES["04.4"].evaluate()
    assert value == pytest.approx(shown)
    check("04.4", value)
    assert "well predicted" in capsys.readouterr().out
    # noise of scale 100 per counter: near answering Nursery's largest class (a third of the
    # rows), which the hint points to; the band is 3 standard errors of the mean of 3 runs
    # (a run's spread here is about 0.05, so about ±0.09 on average)
    assert 0.2 < value < 0.45 and accepted < 0.15
    check("04.4", 1 / 3)
    with pytest.raises(AssertionError, match="Close"):
        check("04.4", value + 1.5 * accepted)
    with pytest.raises(AssertionError, match="Hint"):  # "it still learns well"
        check("04.4", value + 0.5)
    with pytest.raises(AssertionError):  # "it gets everything wrong"
        check("04.4", 0.0)


# ---------------------------------------------------------------------------------- the notebook
def _cells():
    nb = json.loads(NOTEBOOK.read_text())
    return nb["cells"]


def _text(cell):
    out = "".join(cell["source"])
    for o in cell.get("outputs", []):
        out += "".join(o.get("text", ""))
        out += "".join(o.get("data", {}).get("text/plain", ""))
    return out


def test_notebook_imports_the_exercises_in_its_first_code_cell():
    first = next(c for c in _cells() if c["cell_type"] == "code")
    assert "from dpviz.explore import rdt_sharp as rs" in "".join(first["source"])  # registers 04.x


def test_notebook_shows_no_answer_above_its_checks():
    cells = _cells()
    checks = {key: next(i for i, c in enumerate(cells) if f'check("{key}"' in "".join(c["source"]))
              for key in KEYS}
    above = {key: "\n".join(_text(c) for c in cells[:i]) for key, i in checks.items()}
    assert ARGUMENT not in above["04.1"].replace(" ", "")
    assert "epsilon / len(counts)" not in above["04.2"] and "ε/p" not in above["04.2"].split(
        "**04.2")[-1]
    # the pseudocode's create_tree draws centres with rng.choice; the answer's call is not shown
    assert not re.search(r"choice\((np\.asarray\()?data", above["04.3"])
    assert "(0, 0, 1, 1, 2)" not in above["04.3"]
    value = EXERCISES["04.4"].evaluate()[0]
    for shown in (f"{value:.3f}", f"{1 - value:.3f}", f"{value:.4g}"):
        assert shown not in above["04.4"], shown
    # every stub leaves the notebook running: the answers are None
    for i in range(1, 5):
        assert any(f"answer_{i} = None" in "".join(c["source"]) for c in cells)
