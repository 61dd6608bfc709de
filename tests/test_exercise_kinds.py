"""The four exercise kinds of issue 14: a worked example of each, right and wrong answers.

Each kind: a right answer passes, wrong answers raise AssertionError with a hint that
does not contain the answer, None prints the reminder. The sampling test: a correct
sampler passes on several independent seeds (and its false-alarm bound is computed
exactly), wrong ones (no noise, half ε, double ε) are refused, in simulation and by the
exact power bound. Fixed seeds throughout.
"""

import dataclasses
import math

import numpy as np
import pytest

from dpviz import mechanisms
from dpviz.audit.engine import audit
from dpviz.audit.exact_laws import (
    ContinuousLaw,
    DiscreteLaw,
    false_alarm_bound,
    law_cells,
    power_lower_bound,
    sampling_findings,
)
from dpviz.errors import InvalidParameterError
from dpviz.ui import exercises
from dpviz.ui.exercise_kinds import (
    Argument,
    AuditTask,
    BreakTask,
    Implementation,
    Prediction,
    Step,
    neighbour_problem,
)
from dpviz.ui.exercises import (
    EXERCISES,
    check,
    check_argument,
    check_audit,
    check_break,
    check_implementation,
    check_prediction,
    coverage,
    register,
)


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """A private copy of the registry holding the worked examples (the real one is untouched)."""
    monkeypatch.setattr(exercises, "EXERCISES", dict(EXERCISES))
    register(WORKED)
    return exercises.EXERCISES


# ------------------------------------------------------------------ worked example 1: argument
PARALLEL = Argument(
    claim="Releasing a noisy count of each of two disjoint halves, each at ε, costs ε in total.",
    steps=(
        Step("Adding one row to D changes which true counts?",
             {"a": "both halves' counts", "b": "only the count of the half that gets the row",
              "c": "no count at all"},
             "b",
             {"a": "each row lies in exactly one half; count the rows of the other half before "
                   "and after",
              "c": "a count is the number of rows in the half: what happens to it when a row "
                   "arrives there?"}),
        Step("What is the ratio of the laws of the *other* half's noisy count on D and D′?",
             {"a": "at most e^ε", "b": "at most e^(2ε)", "c": "exactly 1"},
             "c",
             {"a": "e^ε bounds a count whose true value moved by one; did this one move?",
              "b": "a factor e^(2ε) needs two moved counts read by the same release"}),
        Step("So the total privacy loss of the two releases is",
             {"a": "2ε, by sequential composition", "b": "ε, by parallel composition",
              "c": "0, since each half is released separately"},
             "b",
             {"a": "sequential composition adds the costs of releases that can all read the "
                   "same row; can both read the new row here?",
              "c": "one of the two releases did read the new row; what does that one cost?"}),
    ),
    conclusion="One row changes one half's count only; the other release has the same law on "
               "D and D′, so the loss is that of one count: ε (parallel composition).",
)


# ------------------------------------------------------------ worked example 2: implementations
def rr_exact(bit, epsilon):
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    return {bit: keep, 1 - bit: 1 - keep}


def em_exact(utilities, epsilon):
    w = np.exp(epsilon * np.asarray(utilities, float) / 2)  # sensitivity 1
    return w / w.sum()


RR_PROBABILITIES = Implementation(
    cases=({"bit": 0, "epsilon": 1.0}, {"bit": 1, "epsilon": 0.25}),
    exact=rr_exact,
    hint="the true bit is kept with probability proportional to e^ε, flipped with "
         "probability proportional to 1",
)

EM_CASES = ({"utilities": (3, 2, 0), "epsilon": 1.0}, {"utilities": (1, 1, 0), "epsilon": 2.0},
            {"utilities": (4, 0, 0), "epsilon": 0.5})

EM_SAMPLER = Implementation(
    cases=EM_CASES,
    exact=em_exact,
    sampler=True,
    hint="weight each candidate by exp(ε·u / (2Δ)) with Δ = 1, normalise, and draw one index",
)


def em_sampler(utilities, epsilon, rng, *, factor=0.5):
    """A student's exponential mechanism (factor 1/2 is right; 1 spends 2ε)."""
    w = np.exp(factor * epsilon * np.asarray(utilities, float))
    return int(np.searchsorted(np.cumsum(w / w.sum()), rng.random() * (1 - 1e-15)))


# ------------------------------------------------------------------ worked example 3: audits
def rr_mechanism(bit, n, rng, epsilon=1.0):
    """Randomized response at ε, vectorized in the dpviz.audit.engine convention."""
    flip = rng.random(n) >= math.exp(epsilon) / (1 + math.exp(epsilon))
    return np.where(flip, 1 - bit, bit)


SPLIT_UTILITIES = {"D": (3, 2, 0), "D'": (2, 3, 1)}  # one row moves each score by <= 1


def split_mechanism(u, n, rng):
    """The exponential mechanism's root split at ε = 1 (dpviz's sampler)."""
    return mechanisms.exponential_mechanism(np.asarray(u), epsilon=1.0, sensitivity=1.0,
                                            rng=rng, size=n)


ROOT_SPLIT = AuditTask(
    cases=tuple(SPLIT_UTILITIES.values()),
    exact=lambda u: em_exact(u, 1.0),
    epsilon=1.0,
    max_loss=1.0,
    min_bound=0.3,
    hint="draw the split with the exponential mechanism at ε = 1, sensitivity 1, from the "
         "utilities you are given",
)


def laplace_law(centre, epsilon):
    b = 1 / epsilon
    return ContinuousLaw(lambda x: 0.5 * math.exp((x - centre) / b) if x < centre
                         else 1 - 0.5 * math.exp(-(x - centre) / b))


BREAK_SCALE = BreakTask(
    D=10, D_prime=11,
    exact=lambda c: laplace_law(c, 2.0),
    epsilon=1.0,
    hint="keep the Laplace noise, but with the scale of a mechanism that spends twice the ε",
)


# ------------------------------------------------------------------ worked example 4: prediction
def mean_abs_noise(seed, epsilon=0.1, n=2000):
    """What the explorer would draw: the mean |error| of a Laplace count at ε."""
    return float(np.abs(mechanisms.laplace(np.zeros(n), epsilon=epsilon, rng=seed)).mean())


NOISE_AT_01 = Prediction(
    compute=mean_abs_noise, tolerance=1.0, seeds=(0, 1, 2, 3, 4), unit=" rows",
    hint="the Laplace scale is Δ/ε, and the mean |noise| equals the scale",
)

WORKED = {"T.1": PARALLEL, "T.2": RR_PROBABILITIES, "T.3": EM_SAMPLER, "T.4": ROOT_SPLIT,
          "T.5": BREAK_SCALE, "T.6": NOISE_AT_01}


# ================================================================== the reminder
@pytest.mark.parametrize(("key", "words"), [
    ("T.1", "letters"), ("T.2", "function"), ("T.3", "function"), ("T.4", "audit"),
    ("T.5", "broken mechanism"), ("T.6", "before you move the slider"),
])
def test_none_prints_the_reminder(capsys, key, words):
    check(key, None)
    out = capsys.readouterr().out
    assert "not answered yet" in out and words in out


def test_none_does_not_compute(capsys):
    calls = []
    spec = Prediction(compute=lambda s: calls.append(s) or 1.0, tolerance=1, hint="h")
    register({"T.9": spec})
    check_prediction("T.9", None)
    assert calls == [] and "not answered" in capsys.readouterr().out


# ================================================================== 1. arguments
def test_argument_right(capsys):
    check("T.1", "bcb")
    check_argument("T.1", ["B", "c", "b"])
    check_argument("T.1", "b, c, b")
    out = capsys.readouterr().out
    assert out.count("correct!") == 3 and "parallel composition" in out


def test_argument_wrong_names_the_steps_and_explains_without_the_answer():
    with pytest.raises(AssertionError) as err:
        check_argument("T.1", "acb")
    msg = str(err.value)
    assert "step 1" in msg and "each row lies in exactly one half" in msg
    assert "step 2" not in msg and "step 3" not in msg
    assert "only the count of the half" not in msg and "(b)" not in msg
    with pytest.raises(AssertionError) as err:
        check_argument("T.1", "bba")
    msg = str(err.value)
    assert "step 2" in msg and "step 3" in msg and "step 1" not in msg
    assert "exactly 1" not in msg and "parallel composition" not in msg


def test_argument_malformed_answers():
    with pytest.raises(AssertionError, match="3 steps"):
        check_argument("T.1", "bc")
    with pytest.raises(AssertionError, match=r"step 2: 'z' is not one of"):
        check_argument("T.1", "bzb")
    with pytest.raises(AssertionError, match="string like"):
        check_argument("T.1", 3)


def test_argument_renders_as_markdown():
    text = PARALLEL.text()
    assert text.startswith("**Claim.**") and "**Step 3.**" in text and "- (c) exactly 1" in text


def test_step_refuses_explanations_that_give_the_answer_away():
    options = {"a": "ε by parallel composition", "b": "2ε by sequential composition"}
    with pytest.raises(InvalidParameterError, match="gives the right option away"):
        Step("cost?", options, "a", {"b": "no: the answer is (a)"})
    with pytest.raises(InvalidParameterError, match="gives the right option away"):
        Step("cost?", options, "a", {"b": "it is ε by parallel composition"})
    with pytest.raises(InvalidParameterError, match="every wrong option"):
        Step("cost?", options, "a", {})
    with pytest.raises(InvalidParameterError, match="is not one of"):
        Step("cost?", options, "c", {"a": "x", "b": "y"})
    with pytest.raises(InvalidParameterError, match="at least two"):
        Step("cost?", {"a": "only"}, "a", {})


# ================================================================== 2. implementations
def test_probabilities_right(capsys):
    def student(bit, epsilon):
        p = 1 / (1 + math.exp(-epsilon))
        return np.array([p, 1 - p]) if bit == 0 else {0: 1 - p, 1: p}

    check_implementation("T.2", student)
    assert "correct!" in capsys.readouterr().out


@pytest.mark.parametrize("wrong", [
    lambda bit, epsilon: rr_exact(bit, 2 * epsilon),  # over-spends
    lambda bit, epsilon: {bit: 1.0},  # no noise
    lambda bit, epsilon: rr_exact(1 - bit, epsilon),  # keeps the wrong bit
])
def test_probabilities_wrong_refused_without_the_answer(wrong):
    with pytest.raises(AssertionError, match="Hint") as err:
        check("T.2", wrong)
    msg = str(err.value)
    for case in RR_PROBABILITIES.cases:
        theirs = {f"{q:.6g}" for q in wrong(**case).values()}  # their own numbers are shown
        for p in rr_exact(**case).values():
            if f"{p:.6g}" not in theirs:
                assert f"{p:.6g}" not in msg and f"{p:.3g}" not in msg and f"{p:.1%}" not in msg


def test_probabilities_malformed():
    with pytest.raises(AssertionError, match="sum to 1"):
        check_implementation("T.2", lambda bit, epsilon: {0: 0.9, 1: 0.9})
    with pytest.raises(AssertionError, match="return a dict"):
        check_implementation("T.2", lambda bit, epsilon: "heads")
    with pytest.raises(AssertionError, match="pass your function"):
        check_implementation("T.2", rr_exact(0, 1.0))


def test_sampler_right_passes_on_several_independent_seeds(capsys):
    check_implementation("T.3", em_sampler)
    for seed in range(1, 6):
        register({f"T.3.{seed}": dataclasses.replace(EM_SAMPLER, seed=seed)})
        check(f"T.3.{seed}", em_sampler)
    assert capsys.readouterr().out.count("correct!") == 6


def test_sampler_false_alarm_rate_is_at_most_one_in_a_million():
    bound = EM_SAMPLER.false_alarm_bound()
    assert 0 < bound <= 1e-6


WRONG_SAMPLERS = {
    "spends 2ε (no factor 1/2)": (lambda utilities, epsilon, rng:
                                  em_sampler(utilities, epsilon, rng, factor=1.0)),
    "half the ε": lambda utilities, epsilon, rng: em_sampler(utilities, epsilon, rng,
                                                             factor=0.25),
    "no noise (argmax)": lambda utilities, epsilon, rng: int(np.argmax(utilities)),
}


@pytest.mark.parametrize("name", list(WRONG_SAMPLERS))
def test_sampler_wrong_refused_without_the_answer(name):
    with pytest.raises(AssertionError, match="do not follow the law") as err:
        check_implementation("T.3", WRONG_SAMPLERS[name])
    msg = str(err.value)
    assert "Hint: weight each candidate" in msg
    for case in EM_CASES:
        for p in em_exact(**case):
            assert f"{p:.1%}" not in msg and f"{p:.3g}" not in msg


@pytest.mark.parametrize(("factor", "power"), [(1.0, 1 - 1e-9), (0.25, 1 - 1e-9)])
def test_sampler_power_is_computed_exactly(factor, power):
    wrong = lambda utilities, epsilon: em_exact(utilities, epsilon * factor * 2)  # noqa: E731
    assert EM_SAMPLER.power(wrong) >= power
    no_noise = lambda utilities, epsilon: {int(np.argmax(utilities)): 1.0}  # noqa: E731
    assert EM_SAMPLER.power(no_noise) == 1.0
    # a law 1 % away from the right one is not what the test is for: its power is small
    near = lambda utilities, epsilon: em_exact(utilities, epsilon * 1.01)  # noqa: E731
    assert EM_SAMPLER.power(near) < 0.5


def test_sampler_output_outside_the_law_is_named():
    with pytest.raises(AssertionError, match="returned 3, an output this law never gives"):
        check_implementation("T.3", lambda utilities, epsilon, rng: 3)


# ================================================================== 3. audits
def test_audit_right(capsys):
    D, D_prime = SPLIT_UTILITIES.values()
    result = audit(split_mechanism, D, D_prime, epsilon=1.0, n_samples=20_000)
    assert not result.reject and result.epsilon_lower >= 0.3
    check_audit("T.4", split_mechanism, result)
    check("T.4", (split_mechanism, result))
    assert capsys.readouterr().out.count("correct!") == 2


@pytest.mark.parametrize("name", ["no noise", "spends 2ε", "uniform"])
def test_audit_refuses_a_mechanism_with_the_wrong_law(name):
    wrong = {
        "no noise": lambda u, n, rng: np.full(n, int(np.argmax(u))),
        "spends 2ε": lambda u, n, rng: mechanisms.exponential_mechanism(
            np.asarray(u), epsilon=1.0, sensitivity=1.0, monotone=True, rng=rng, size=n),
        "uniform": lambda u, n, rng: rng.integers(0, 3, n),
    }[name]
    D, D_prime = SPLIT_UTILITIES.values()
    result = audit(wrong, D, D_prime, epsilon=1.0, n_samples=20_000)
    with pytest.raises(AssertionError, match="does not have the output law") as err:
        check_audit("T.4", wrong, result)
    for u in SPLIT_UTILITIES.values():
        for p in em_exact(u, 1.0):
            assert f"{p:.1%}" not in str(err.value) and f"{p:.3g}" not in str(err.value)


def test_audit_refuses_an_inconsistent_result():
    D, D_prime = SPLIT_UTILITIES.values()
    cases = {
        "claims ε = 2": (audit(split_mechanism, D, D_prime, epsilon=2.0, n_samples=20_000),
                         "this exercise's claim is ε = 1"),
        "too few samples": (audit(split_mechanism, D, D_prime, epsilon=1.0, n_samples=2_000),
                            "at least 10,000"),
        "low confidence": (audit(split_mechanism, D, D_prime, epsilon=1.0, n_samples=20_000,
                                 alpha=0.5), "confidence"),
        "same data twice": (audit(split_mechanism, D, D, epsilon=1.0, n_samples=20_000),
                            "too small to show much"),
        "audited another mechanism": (
            audit(lambda u, n, rng: np.full(n, int(np.argmax(u))), D, D_prime, epsilon=1.0,
                  n_samples=20_000), "reports a violation"),
    }
    for name, (result, words) in cases.items():
        with pytest.raises(AssertionError, match=words):
            check_audit("T.4", split_mechanism, result)
        assert name


def test_audit_bound_above_the_exact_loss_is_refused():
    """A result claiming ε = 20 with a bound of 8 is not an audit of a 1-DP mechanism."""
    loose = dataclasses.replace(ROOT_SPLIT, epsilon=20.0)
    register({"T.4b": loose})
    no_noise = audit(lambda u, n, rng: np.full(n, int(np.argmax(u))), (3, 2, 0), (2, 3, 1),
                     epsilon=20.0, n_samples=20_000)
    assert not no_noise.reject and no_noise.epsilon_lower > 1.1
    with pytest.raises(AssertionError, match="more than this mechanism can leak"):
        check_audit("T.4b", split_mechanism, no_noise)


def test_audit_malformed():
    with pytest.raises(AssertionError, match="pass the AuditResult"):
        check_audit("T.4", split_mechanism, 0.7)
    with pytest.raises(AssertionError, match="pair"):
        check("T.4", split_mechanism)
    with pytest.raises(AssertionError, match="must return n outputs"):
        D, D_prime = SPLIT_UTILITIES.values()
        result = audit(split_mechanism, D, D_prime, epsilon=1.0, n_samples=20_000)
        check_audit("T.4", lambda u, n, rng: np.zeros(3), result)


def test_break_right(capsys):
    def broken(count, n, rng):
        return mechanisms.laplace(np.full(n, float(count)), epsilon=2.0, rng=rng)

    result = check_break("T.5", broken)
    assert result.reject and "caught!" in capsys.readouterr().out


@pytest.mark.parametrize(("name", "epsilon"), [("no noise", None), ("10ε", 10.0),
                                                ("still correct", 1.0)])
def test_break_requires_the_specific_bug(name, epsilon):
    def broken(count, n, rng):
        if epsilon is None:
            return np.full(n, float(count))
        return count + rng.laplace(0.0, 1 / epsilon, n)

    if epsilon != 1.0:  # an audit rejects it: the bug is there, but not the one asked for
        assert audit(broken, 10, 11, epsilon=1.0, n_samples=20_000).reject
    with pytest.raises(AssertionError, match="does not have the output law") as err:
        check_break("T.5", broken)
    assert "Hint: keep the Laplace noise" in str(err.value)


def test_break_power_against_the_other_bugs():
    laws = [BREAK_SCALE.exact(c) for c in BREAK_SCALE.cases]
    for eps in (1.0, 10.0):
        wrong = [laplace_law(c, eps) for c in BREAK_SCALE.cases]
        assert power_lower_bound(laws, wrong, n_samples=BREAK_SCALE.n_samples) >= 1 - 1e-9
    point = [{c: 1.0} for c in BREAK_SCALE.cases]
    assert power_lower_bound(laws, point, n_samples=BREAK_SCALE.n_samples) == 1.0
    assert false_alarm_bound(laws, n_samples=BREAK_SCALE.n_samples) <= 1e-6


# ================================================================== 4. predictions
def test_prediction_right_shows_the_value(capsys):
    value = np.mean([mean_abs_noise(s) for s in range(5)])
    check("T.6", 10)
    out = capsys.readouterr().out
    assert "well predicted" in out and f"{value:.4g} rows" in out and "5 runs" in out


def test_prediction_wrong_shows_the_value_and_a_hint_only_when_far():
    value = np.mean([mean_abs_noise(s) for s in range(5)])
    with pytest.raises(AssertionError) as err:
        check_prediction("T.6", 1)
    msg = str(err.value)
    assert f"{value:.4g}" in msg and "Hint: the Laplace scale" in msg
    assert f"{value:.4g}" not in NOISE_AT_01.hint and "10" not in NOISE_AT_01.hint
    with pytest.raises(AssertionError) as err:
        check_prediction("T.6", value + 1.5)
    assert "Close" in str(err.value) and "Hint" not in str(err.value)
    with pytest.raises(AssertionError, match="expected a number"):
        check_prediction("T.6", "ten")


def test_prediction_tolerance_follows_the_standard_error_of_the_mean_shown():
    noisy = Prediction(compute=lambda s: float(np.random.default_rng(s).normal(0, 1)),
                       tolerance=0.01, hint="h", seeds=tuple(range(10)))
    _, spread, accepted = noisy.evaluate()
    assert 0.5 < spread < 2 and accepted == pytest.approx(3 * spread / np.sqrt(10))
    single = Prediction(compute=lambda s: 2.0, tolerance=0.01, hint="h")
    assert single.evaluate() == (2.0, 0.0, 0.01)


# ================================================================== registry and dispatch
def test_kind_specific_checks_refuse_other_kinds():
    with pytest.raises(InvalidParameterError, match="of kind 'number'"):
        check_argument("00.1", "abc")
    with pytest.raises(InvalidParameterError, match="of kind 'argument'"):
        check_prediction("T.1", 3)
    with pytest.raises(InvalidParameterError, match=r"99\.9"):
        check_audit("99.9", None, None)


def test_register_refuses_a_second_spec_but_accepts_a_reload():
    again = Implementation(cases=RR_PROBABILITIES.cases, exact=rr_exact,
                           hint=RR_PROBABILITIES.hint)
    register({"T.2": again})  # same spec rebuilt (as after importlib.reload): fine
    with pytest.raises(InvalidParameterError, match="registered twice"):
        register({"T.2": dataclasses.replace(RR_PROBABILITIES, tolerance=0.1)})
    with pytest.raises(InvalidParameterError, match="must be an Exercise"):
        register({"T.7": 0.5})


def test_coverage_counts_kinds_per_notebook():
    table = coverage()
    assert table["T"] == {"argument": 1, "implementation": 2, "audit": 1, "break": 1,
                          "prediction": 1}
    assert table["00"] == {"number": 1}


def test_specs_validate_their_parameters():
    with pytest.raises(InvalidParameterError, match="dict of keyword arguments"):
        Implementation(cases=[0, 1], exact=rr_exact, hint="h")
    with pytest.raises(InvalidParameterError, match="at least one case"):
        Implementation(cases=[], exact=rr_exact, hint="h")
    with pytest.raises(InvalidParameterError, match="false_alarm"):
        Implementation(cases=[(0, 1.0)], exact=rr_exact, hint="h", false_alarm=0)
    with pytest.raises(InvalidParameterError, match="max_alpha"):
        dataclasses.replace(ROOT_SPLIT, max_alpha=1.5)
    with pytest.raises(InvalidParameterError, match="seeds"):
        Prediction(compute=lambda s: 1.0, tolerance=1, hint="h", seeds=())


# ================================================================== the sampling test itself
def test_law_cells_of_each_law_type():
    assert law_cells({"a": 0.25, "b": 0.75}).names == ("the output 'a'", "the output 'b'")
    assert law_cells([0.5, 0.5]).probs.tolist() == [0.5, 0.5]
    wide = mechanisms.discrete_laplace_pmf(np.arange(-400, 401), epsilon=0.1)
    grouped = law_cells(DiscreteLaw(np.arange(-400, 401), wide / wide.sum()), max_cells=20)
    assert len(grouped.names) <= 21 and grouped.probs.sum() == pytest.approx(1)
    # the findings name cells in words a student reads, not in notation
    assert grouped.names[0] == "the outputs from -400 to " + grouped.names[0].split(" to ")[1]
    cont = law_cells(laplace_law(10, 1.0), max_cells=10)
    assert len(cont.names) == 10 and np.allclose(cont.probs, 0.1)
    assert cont.names[0].startswith("the outputs up to ")
    assert cont.names[-1].startswith("the outputs above ") and " and " not in cont.names[-1]
    with pytest.raises(InvalidParameterError, match="sum to 1"):
        law_cells({"a": 0.5})


def test_sampling_findings_continuous_and_discrete():
    rng = np.random.default_rng(0)
    good = [10 + rng.laplace(0, 1, 20_000)]
    assert sampling_findings(good, [laplace_law(10, 1.0)], n_samples=20_000) == []
    shifted = [10.3 + rng.laplace(0, 1, 20_000)]
    assert sampling_findings(shifted, [laplace_law(10, 1.0)], n_samples=20_000)
    labels = [rng.choice(np.array(["x", "y"]), 20_000)]
    assert sampling_findings(labels, [{"x": 0.5, "y": 0.5}], n_samples=20_000) == []
    found = sampling_findings(labels, [{"x": 0.6, "y": 0.4}], n_samples=20_000)
    assert any("'x'" in f and "too rarely" in f for f in found)


def test_sampling_test_level_holds_in_simulation():
    """At a relaxed level (0.1) the refusal rate of correct draws stays below it; wrong draws
    (the law at 2ε) are refused nearly always. 300 repetitions, fixed seed."""
    law = em_exact((3, 2, 0), 1.0)
    wrong = em_exact((3, 2, 0), 2.0)
    rng = np.random.default_rng(7)
    refused = sum(bool(sampling_findings([rng.choice(3, 2_000, p=law)], [law], n_samples=2_000,
                                         false_alarm=0.1)) for _ in range(300))
    assert refused <= 45  # Binomial(300, 0.1) exceeds 45 with probability < 0.003
    assert false_alarm_bound([law], n_samples=2_000, false_alarm=0.1) <= 0.1
    caught = sum(bool(sampling_findings([rng.choice(3, 2_000, p=wrong)], [law], n_samples=2_000,
                                        false_alarm=0.1)) for _ in range(300))
    assert caught >= 295
    assert power_lower_bound([law], [wrong], n_samples=2_000, false_alarm=0.1) > 0.99


def test_sampler_with_unusable_outputs_is_refused_with_the_exercise_key():
    with pytest.raises(AssertionError, match=r"(?s)Exercise T\.3: .*one outcome"):
        check_implementation("T.3", lambda utilities, epsilon, rng: {"index": 0})
    with pytest.raises(AssertionError, match=r"(?s)Exercise T\.5: .*must be numbers"):
        check_break("T.5", lambda count, n, rng: np.array(["ten"] * n))


@pytest.mark.parametrize(("D", "D_prime", "relation", "why"), [
    ((5, 3), (5, 5), "counts", "D′ adds two rows to D"),
    ((5, 3), (6, 2), "counts", "D′ replaces a row of D"),
    ((1, 2), (3, 4), "rows", "D′ removes two rows from D and adds two rows"),
    ((1,), (2,), "rows", "D′ replaces a row of D"),
    ((1, 1), (1,), "rows", None),
    ((5, 3), (5, 4), "counts", None),
    ((2, 1, 2), (1, 2, 2, 7), "rows", None),
])
def test_neighbour_problem(D, D_prime, relation, why):
    problem = neighbour_problem(D, D_prime, relation)
    if why is None:
        assert problem is None
    else:
        assert problem.startswith(why) and "neighbours differ by exactly one row" in problem


def test_sampling_findings_said_in_words():
    """A refused sampler reads what came up how often, and what the law gives (issue 25)."""
    spec = Implementation(cases=({"p": 0.6},), exact=lambda p: {0: p, 1: 1 - p}, hint="h",
                          sampler=True, n_samples=2_000)
    with pytest.raises(AssertionError) as err:
        spec.verify(lambda p, rng: 0, "T.w")
    message = str(err.value)
    assert ("the value 1 never came up in your 2,000 draws, but the law gives it 40.0 % "
            "probability (about 800 draws)") in message
    assert ("the value 0 came up in 100.0 % of your 2,000 draws, but the law gives it 60.0 %: "
            "far too often to be chance") in message
    wide = Implementation(cases=((),), exact=lambda: {v: 1 / 100 for v in range(100)}, hint="h",
                          sampler=True, n_samples=2_000)
    with pytest.raises(AssertionError, match=r"values from 0 to 2 never came up in your 2,000 "
                                             r"draws, but the law gives them 3\.0 % probability"):
        wide.verify(lambda rng: 99, "T.w")
