"""The four exercise kinds of issue 14: a worked example of each, right and wrong answers.

Each kind: a right answer passes, wrong answers raise AssertionError with a hint that
does not contain the answer, None prints the reminder. The sampling test: a correct
sampler passes on several independent seeds (and its false-alarm bound is computed
exactly), wrong ones (no noise, half ε, double ε) are refused, in simulation and by the
exact power bound. Fixed seeds throughout.
"""

import dataclasses
import math
import multiprocessing
import os
import time

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
from dpviz.ui import exercise_kinds, exercises
from dpviz.ui.exercise_kinds import (
    PERCENT,
    RNG_HINT,
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
    solution,
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


#: em_sampler's cumulative weights per (utilities, ε, factor): the checks draw each case tens of
#: thousands of times, and the same floats serve every draw (the same draws, a third the time).
_EM_CUMULATIVE: dict[tuple, np.ndarray] = {}


def em_sampler(utilities, epsilon, rng, *, factor=0.5):
    """A student's exponential mechanism (factor 1/2 is right; 1 spends 2ε)."""
    u = np.asarray(utilities, float)
    key = (tuple(u.tolist()), epsilon, factor)
    if key not in _EM_CUMULATIVE:
        w = np.exp(factor * epsilon * u)
        _EM_CUMULATIVE[key] = np.cumsum(w / w.sum())
    return int(np.searchsorted(_EM_CUMULATIVE[key], rng.random() * (1 - 1e-15)))


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
    allowed=("dpviz.mechanisms.",),  # the exercise is the audit: dpviz's samplers may be used
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
    allowed=("dpviz.mechanisms.",),
)


# ------------------------------------------------------------------ worked example 4: prediction
def mean_abs_noise(seed, epsilon=0.1, n=2000):
    """What the explorer would draw: the mean |error| of a Laplace count at ε."""
    return float(np.abs(mechanisms.laplace(np.zeros(n), epsilon=epsilon, rng=seed)).mean())


NOISE_AT_01 = Prediction(
    compute=mean_abs_noise, tolerance=1.0, seeds=(0, 1, 2, 3, 4), unit=" rows",
    hint="the Laplace scale is Δ/ε, and the mean |noise| equals the scale",
)

#: A share in % (bounded), its value 40.
SHARE = Prediction(compute=lambda seed: 40.0, tolerance=5.0, unit=" %", bounds=PERCENT,
                   hint="think of the counts")

WORKED = {"T.1": PARALLEL, "T.2": RR_PROBABILITIES, "T.3": EM_SAMPLER, "T.4": ROOT_SPLIT,
          "T.5": BREAK_SCALE, "T.6": NOISE_AT_01, "T.7": SHARE}


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


def test_argument_wrong_names_no_step_and_no_reason():
    """Per-step feedback gave the letters away by elimination (issue 45): a wrong answer is
    refused as a whole, the reasons come once the answer is right or revealed."""
    for wrong in ("acb", "bba"):
        with pytest.raises(AssertionError, match="not yet: at least one step is wrong") as err:
            check_argument("T.1", wrong)
        msg = str(err.value)
        assert not any(f"step {i}:" in msg or f"step {i} —" in msg for i in (1, 2, 3))
        for step in PARALLEL.steps:
            assert not any(why in msg for why in step.why_wrong.values())
        assert "reveal=True" in msg


def test_argument_right_shows_every_reason(capsys):
    check_argument("T.1", "bcb")
    out = capsys.readouterr().out
    assert "correct!" in out and "Why the other options fail" in out
    for step in PARALLEL.steps:
        assert all(why in out for why in step.why_wrong.values())


def test_argument_stops_after_three_tries_and_reveals(capsys):
    for i, wrong in enumerate(("acb", "aab", "acb", "cab")):
        with pytest.raises(AssertionError) as err:
            check("T.1", wrong)
        assert ("That was your last try" in str(err.value)) == (i == 3)
    for letters in ("bcb", "abc", "bca"):  # no longer judged, the right letters neither
        with pytest.raises(AssertionError, match="judges no more") as err:
            check("T.1", letters)
        assert "first answer was 'acb'" in str(err.value)
    assert capsys.readouterr().out == ""
    check("T.1", "bca", reveal=True)
    out = capsys.readouterr().out
    assert "the answer, revealed: 'bcb'; yours, 'bca', is wrong in 1 steps" in out
    assert "(your first answer: 'acb')" in out and "step 3: (b) is right (yours: (a))" in out
    assert exercises.first_answers()["T.1"] == "acb"


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


# ---------------------------------------------- samplers: their generator, their type, their time
_OWN = np.random.default_rng(7)  # a generator made at module level


def em_from_global_numpy(utilities, epsilon, rng):
    w = np.exp(0.5 * epsilon * np.asarray(utilities, float))
    return int(np.random.choice(len(w), p=w / w.sum()))  # noqa: NPY002 - the mistake tested


def em_from_module_generator(utilities, epsilon, rng):
    return em_sampler(utilities, epsilon, _OWN)


def em_reseeded_per_generator():
    """Right law, same draws for generators of one seed, but the seed is ignored."""
    state = {}

    def sampler(utilities, epsilon, rng):
        if state.get("rng") is not rng:
            state["rng"], state["own"] = rng, np.random.default_rng(12345)
        return em_sampler(utilities, epsilon, state["own"])
    return sampler


@pytest.mark.parametrize("sampler", [em_from_global_numpy, em_from_module_generator],
                         ids=["np.random", "module-level generator"])
def test_sampler_that_ignores_its_rng_is_refused_though_its_law_is_right(sampler):
    with pytest.raises(AssertionError, match="generators of the same seed") as err:
        check_implementation("T.3", sampler)
    assert RNG_HINT in str(err.value)


def test_sampler_that_ignores_the_seed_of_its_rng_is_refused():
    with pytest.raises(AssertionError, match="two different seeds") as err:
        check_implementation("T.3", em_reseeded_per_generator())
    assert RNG_HINT in str(err.value)


INT_SAMPLER = dataclasses.replace(EM_SAMPLER, output="int")
NUMBER_SAMPLER = Implementation(cases=({"centre": 10, "epsilon": 1.0},),
                                exact=lambda centre, epsilon: laplace_law(centre, epsilon),
                                sampler=True, output="number", hint="Laplace of scale 1/ε")


def test_int_output_refuses_a_float_and_takes_a_one_element_array(capsys):
    register({"T.3i": INT_SAMPLER, "T.3n": NUMBER_SAMPLER})
    for whole_float in (lambda u, epsilon, rng: float(em_sampler(u, epsilon, rng)),
                        lambda u, epsilon, rng: np.float64(em_sampler(u, epsilon, rng)),
                        lambda u, epsilon, rng: np.array([em_sampler(u, epsilon, rng)], float)):
        with pytest.raises(AssertionError, match=r"a float; this exercise asks for an int"):
            check(  # "utilities" passed by keyword: the lambdas name it u
                "T.3i", lambda utilities, epsilon, rng, f=whole_float: f(utilities, epsilon, rng))
    with pytest.raises(AssertionError, match="return one draw, a single int"):
        check("T.3i", lambda utilities, epsilon, rng: np.array([0, 1]))
    with pytest.raises(AssertionError, match="must return an int"):
        check("T.3i", lambda utilities, epsilon, rng: "0")
    check("T.3i", em_sampler)
    check("T.3i", lambda utilities, epsilon, rng: np.array([em_sampler(utilities, epsilon, rng)]))
    check("T.3n", lambda centre, epsilon, rng: centre + rng.laplace(0.0, 1 / epsilon))
    check("T.3n", lambda centre, epsilon, rng: centre + rng.laplace(0.0, 1 / epsilon, size=1))
    check("T.3n", lambda centre, epsilon, rng: np.array(centre + rng.laplace(0.0, 1 / epsilon)))
    assert capsys.readouterr().out.count("correct!") == 5
    with pytest.raises(AssertionError, match="must return a number"):
        check("T.3n", lambda centre, epsilon, rng: None)


class FakeClock:
    """The check's clock, moved by the student's function: timings without timing."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def fake_clock(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(exercise_kinds, "clock", clock)
    return clock


def _taking(clock, seconds_per_draw, after=0):
    """em_sampler that takes ``seconds_per_draw`` on the fake clock from draw ``after`` on."""
    calls = [0]

    def sampler(utilities, epsilon, rng):
        calls[0] += 1
        if calls[0] > after:
            clock.now += seconds_per_draw
        return em_sampler(utilities, epsilon, rng)
    return sampler, calls


def test_a_slow_sampler_is_refused_from_its_probe_draws(fake_clock):
    sampler, calls = _taking(fake_clock, 0.002)  # 2 ms per draw: 60,000 draws take 120 s
    with pytest.raises(AssertionError, match=r"takes about 2 ms of CPU per draw, so the check's "
                                             r"60,000 draws would take about 120 s; it allows "
                                             r"30 s"):
        check_implementation("T.3", sampler)
    assert calls[0] == 2 * 3 * exercise_kinds.PROBE_DRAWS  # stopped before the long run


def test_a_very_slow_sampler_is_stopped_within_its_probe(fake_clock):
    sampler, calls = _taking(fake_clock, 1.0)  # 1 s per draw
    with pytest.raises(AssertionError, match=r"takes about 1 s of CPU per draw.*allows 30 s"):
        check_implementation("T.3", sampler)
    assert calls[0] == 16  # the probes may take half the budget


def test_a_sampler_slow_past_the_probes_is_stopped_at_the_budget(fake_clock):
    # 2⁻¹⁰ s per draw once the probes are done (exact in binary: 30 s after 30,720 draws)
    sampler, _ = _taking(fake_clock, 2**-10, after=2 * 3 * exercise_kinds.PROBE_DRAWS)
    with pytest.raises(AssertionError, match=r"stopped after 30 s of CPU with 30,721 of the 60,000 "
                                             r"draws done") as err:
        check_implementation("T.3", sampler)
    assert "Hint: make one draw faster" in str(err.value)


def test_a_sampler_within_the_budget_is_announced_then_checked(fake_clock, capsys):
    sampler, _ = _taking(fake_clock, 0.0002)  # 12 s in all: said, then checked
    check_implementation("T.3", sampler)
    out = capsys.readouterr().out
    assert "checking 60,000 draws of your function, about 12 s" in out and "correct!" in out
    quick, _ = _taking(fake_clock, 0.00005)  # 3 s: nothing said
    check_implementation("T.3", quick)
    assert "about" not in capsys.readouterr().out


def test_the_time_budget_is_a_setting(fake_clock):
    register({"T.3t": dataclasses.replace(EM_SAMPLER, time_budget=1.0)})
    sampler, _ = _taking(fake_clock, 0.0002)
    with pytest.raises(AssertionError, match="it allows 1 s"):
        check("T.3t", sampler)


def test_an_answer_that_sleeps_is_stopped_by_the_wall_clock(monkeypatch, fake_clock):
    """No CPU used, but the wall clock runs: stopped at WALL_FACTOR × the budget."""
    wall = FakeClock()
    monkeypatch.setattr(exercise_kinds, "wall_clock", wall)

    def sleeper(utilities, epsilon, rng):
        wall.now += 1.0  # a blocking call: a second a draw, no CPU
        return em_sampler(utilities, epsilon, rng)

    with pytest.raises(AssertionError, match=r"takes about 0 ms of CPU per draw|stopped after"):
        check_implementation("T.3", sleeper)
    assert wall.now <= exercise_kinds.WALL_FACTOR * exercise_kinds.TIME_BUDGET / 2 + 1


def _spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_a_correct_answer_is_accepted_while_other_processes_keep_the_cores_busy():
    """A class on one server: every core busy with other work, the check takes longer on the
    wall clock than its budget, and the correct answer still passes (the budget is CPU time)."""
    spec = dataclasses.replace(EM_SAMPLER, n_samples=4_000)
    register({"T.3q": spec})
    check("T.3q", em_sampler)  # warm: the sampling test's first use imports scipy.stats
    start = time.process_time()
    check("T.3q", em_sampler)  # quiet: its CPU time
    cpu = time.process_time() - start
    register({"T.3b": dataclasses.replace(spec, time_budget=2 * cpu + 0.05)})
    context = multiprocessing.get_context("fork")
    busy = [context.Process(target=_spin, args=(20.0,), daemon=True)
            for _ in range(3 * (os.cpu_count() or 1))]
    for p in busy:
        p.start()
    try:
        start = time.perf_counter()
        check("T.3b", em_sampler)  # accepted: it prints "correct!"
        wall = time.perf_counter() - start
    finally:
        for p in busy:
            p.kill()
    assert wall > 2 * cpu + 0.05, (wall, cpu)  # a wall-clock budget would have refused it


def test_a_slow_mechanism_is_refused_from_its_probe_call(fake_clock):
    def slow(count, n, rng):
        fake_clock.now += 0.01 * n  # 10 ms per release
        return mechanisms.laplace(np.full(n, float(count)), epsilon=2.0, rng=rng)

    with pytest.raises(AssertionError, match=r"your mechanism takes about 10 ms of CPU per draw"):
        check_break("T.5", slow)


def test_a_mechanism_that_ignores_its_rng_is_refused():
    def broken(count, n, rng):
        return count + np.random.laplace(0.0, 0.5, n)  # noqa: NPY002 - the mistake tested

    with pytest.raises(AssertionError, match="your mechanism gave different draws") as err:
        check_break("T.5", broken)
    assert RNG_HINT in str(err.value)


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


def _shown(value, msg):
    return any(f"{value:.{d}g}" in msg for d in (2, 3, 4))


def test_prediction_wrong_reveals_nothing_and_hints_only_when_far():
    """A wrong first try never shows the value (the second try would be a copy)."""
    value = np.mean([mean_abs_noise(s) for s in range(5)])
    with pytest.raises(AssertionError) as err:
        check_prediction("T.6", 1)
    msg = str(err.value)
    assert "Hint: the Laplace scale" in msg and not _shown(value, msg)
    assert "reveal=True" in msg
    assert f"{value:.4g}" not in NOISE_AT_01.hint and "10" not in NOISE_AT_01.hint
    with pytest.raises(AssertionError) as err:
        check("T.6", value + 1.5)
    msg = str(err.value)
    assert "Close" in msg and "Hint" not in msg and not _shown(value, msg)
    with pytest.raises(AssertionError, match="expected a number"):
        check_prediction("T.6", "ten")


def test_prediction_reveal_shows_the_value_when_asked(capsys):
    value = np.mean([mean_abs_noise(s) for s in range(5)])
    check("T.6", 1, reveal=True)  # asked: printed, not raised
    out = capsys.readouterr().out
    assert f"{value:.4g} rows" in out and "off by" in out and "Hint: the Laplace scale" in out
    check("T.6", None, reveal=True)  # nothing predicted yet: the reminder only
    out = capsys.readouterr().out
    assert "not answered yet" in out and not _shown(value, out)
    with pytest.raises(InvalidParameterError, match="reveal=True is for numbers, predictions"):
        check("T.2", lambda bit, epsilon: rr_exact(bit, epsilon), reveal=True)


def test_prediction_records_the_first_answer_and_stops_narrowing_after_three_tries(capsys):
    """A loop over a grid without reveal no longer finds the value (issue 45)."""
    value = np.mean([mean_abs_noise(s) for s in range(5)])
    for i, wrong in enumerate((1, 2, 1, 30)):  # 1 twice counts once: three distinct tries
        with pytest.raises(AssertionError) as err:
            check("T.6", wrong)
        assert ("That was your last try" in str(err.value)) == (i == 3)
    assert exercises.first_answers()["T.6"] == 1
    for guess in np.arange(0.0, 40.0, 0.5):  # even the right value is not judged now
        with pytest.raises(AssertionError, match="judges no more") as err:
            check("T.6", guess)
        assert not _shown(value, str(err.value)) and "first answer was 1" in str(err.value)
    assert capsys.readouterr().out == ""
    check("T.6", value, reveal=True)
    out = capsys.readouterr().out
    assert "the value, revealed" in out and f"{value:.4g} rows" in out
    assert "your first prediction: 1 rows" in out
    check("T.6", 3)  # revealed once, revealed from then on: shown, not judged
    assert "revealed" in capsys.readouterr().out
    exercises.forget_answers()
    check("T.6", value)
    assert "well predicted" in capsys.readouterr().out


def test_number_records_the_first_answer_reveals_and_stops_after_three_tries(capsys):
    for wrong in (0.1, 0.2, 0.3):
        with pytest.raises(AssertionError, match="Hint"):
            check("00.1", wrong)
    with pytest.raises(AssertionError, match="judges no more"):
        check("00.1", 0.5)  # right, but past the tries: not judged
    with pytest.raises(AssertionError, match="cannot be right"):  # impossible: said, not counted
        check("00.1", 7)
    check("00.1", 0.5, reveal=True)
    out = capsys.readouterr().out
    assert "the answer, revealed: 0.5" in out and "is right (your first answer: 0.1)" in out
    exercises.forget_answers()
    check("00.1", 0.5)
    assert "correct!" in capsys.readouterr().out


@pytest.mark.parametrize("impossible", [105.7, -3, 100.01])
def test_prediction_outside_its_bounds_is_refused_before_computing(impossible):
    calls = []
    register({"T.7b": dataclasses.replace(SHARE, compute=lambda s: calls.append(s) or 40.0)})
    with pytest.raises(AssertionError, match="cannot be right: a percentage lies between 0 % "
                                             "and 100 %") as err:
        check("T.7b", impossible)
    assert calls == [] and "40" not in str(err.value)


def test_prediction_bounds_include_their_ends(capsys):
    register({"T.7c": dataclasses.replace(SHARE, compute=lambda s: 98.0)})
    check("T.7c", 100)
    assert "well predicted" in capsys.readouterr().out


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


def test_worked_answers_by_kind():
    assert solution("T.1") == ("b", "c", "b")  # an argument's letters, accepted by its check
    assert solution("T.6") == pytest.approx(np.mean([mean_abs_noise(s) for s in range(5)]))
    assert solution("00.1") == 0.5
    with pytest.raises(InvalidParameterError, match="no worked answer"):
        solution("T.2")  # a spec without one says so
    register({"T.3k": dataclasses.replace(EM_SAMPLER, solution=em_sampler),
              "T.4k": dataclasses.replace(ROOT_SPLIT, solution=(split_mechanism,
                                                                *SPLIT_UTILITIES.values())),
              "T.5k": dataclasses.replace(BREAK_SCALE, solution=lambda count, n, rng: (
                  count + rng.laplace(0.0, 0.5, n)))})
    assert solution("T.3k") is em_sampler
    mechanism, result = solution("T.4k")  # no relation: (mechanism, result), as check takes it
    assert mechanism is split_mechanism and result.n_samples == 20_000
    for key in ("T.3k", "T.4k", "T.5k"):
        check(key, solution(key))


def test_coverage_counts_kinds_per_notebook():
    table = coverage()
    assert table["T"] == {"argument": 1, "implementation": 2, "audit": 1, "break": 1,
                          "prediction": 2}
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


def test_an_answer_checked_under_another_profiler_is_not_broken():
    """cProfile (or a debugger) holds sys.setprofile: the call watch steps aside, the check runs."""
    import cProfile

    profile = cProfile.Profile()
    profile.enable()
    try:
        check_implementation("T.3", em_sampler)
    finally:
        profile.disable()
