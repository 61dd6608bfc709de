"""Notebook 01's exercises 01.1–01.4: the student writes the Laplace, geometric, exponential and
report-noisy-max mechanisms. Each check accepts a right implementation and refuses the typical
wrong ones at its fixed seed; its false-alarm rate is below one in a million and its power
against each wrong law is computed exactly where that law is known."""

import math

import numpy as np
import pytest
from scipy import stats

from dpviz import mechanisms
from dpviz.audit.exact_laws import ContinuousLaw, discrete_laplace_law
from dpviz.explore import building_blocks as bb
from dpviz.ui.exercise_kinds import RNG_HINT
from dpviz.ui.exercises import check


# --- right answers: a few lines of plain numpy each ---------------------------------------------
def laplace_mech(value, sensitivity, epsilon, rng):
    return value + rng.laplace(0.0, sensitivity / epsilon)


def geometric_mech(count, epsilon, rng):
    p = 1.0 - math.exp(-epsilon)
    return count + int(rng.geometric(p)) - int(rng.geometric(p))


def exponential_mech(utilities, epsilon, sensitivity, rng):
    u = np.asarray(utilities, float)
    w = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    return int(rng.choice(len(u), p=w / w.sum()))


def report_noisy_max(counts, epsilon, rng):
    c = np.asarray(counts, float)
    return int(np.argmax(c + rng.exponential(1.0 / epsilon, size=len(c))))


# --- typical wrong answers ----------------------------------------------------------------------
def laplace_eps_over_delta(value, sensitivity, epsilon, rng):
    return value + rng.laplace(0.0, epsilon / sensitivity)


def laplace_without_delta(value, sensitivity, epsilon, rng):
    return value + rng.laplace(0.0, 1.0 / epsilon)


def gaussian_noise(value, sensitivity, epsilon, rng):
    return value + rng.normal(0.0, math.sqrt(2) * sensitivity / epsilon)


def rounded_laplace(count, epsilon, rng):
    return count + int(np.round(rng.laplace(0.0, 1.0 / epsilon)))


def geometric_wrong_p(count, epsilon, rng):
    p = math.exp(-epsilon)
    return count + int(rng.geometric(p)) - int(rng.geometric(p))


def one_sided_geometric(count, epsilon, rng):
    return count + int(rng.geometric(1.0 - math.exp(-epsilon))) - 1


def exponential_without_2(utilities, epsilon, sensitivity, rng):
    u = np.asarray(utilities, float)
    w = np.exp(epsilon * (u - u.max()) / sensitivity)
    return int(rng.choice(len(u), p=w / w.sum()))


def exponential_without_delta(utilities, epsilon, sensitivity, rng):
    return exponential_mech(utilities, epsilon, 1.0, rng)


def noisy_max_laplace(counts, epsilon, rng):
    c = np.asarray(counts, float)
    return int(np.argmax(c + rng.laplace(0.0, 1.0 / epsilon, size=len(c))))


def noisy_max_half_epsilon(counts, epsilon, rng):
    return report_noisy_max(counts, epsilon / 2, rng)


def noisy_max_shared_noise(counts, epsilon, rng):
    c = np.asarray(counts, float)
    return int(np.argmax(c + rng.exponential(1.0 / epsilon)))  # one draw for all counts


RIGHT = {"01.1": laplace_mech, "01.2": geometric_mech, "01.3": exponential_mech,
         "01.4": report_noisy_max}
WRONG = {
    "01.1": (laplace_eps_over_delta, laplace_without_delta, gaussian_noise),
    "01.2": (rounded_laplace, geometric_wrong_p, one_sided_geometric),
    "01.3": (exponential_without_2, exponential_without_delta),
    "01.4": (noisy_max_laplace, noisy_max_half_epsilon, noisy_max_shared_noise),
}


@pytest.mark.parametrize("key", sorted(RIGHT))
def test_the_right_mechanism_is_accepted(key, capsys):
    check(key, RIGHT[key])
    assert "correct" in capsys.readouterr().out


@pytest.mark.parametrize("key, wrong", [(k, w) for k, ws in WRONG.items() for w in ws],
                         ids=lambda v: getattr(v, "__name__", v))
def test_typical_wrong_mechanisms_are_refused(key, wrong):
    with pytest.raises(AssertionError, match="Hint") as refused:
        check(key, wrong)
    assert "do not follow the law" in str(refused.value)


@pytest.mark.parametrize("key", sorted(RIGHT))
def test_false_alarm_rate_is_below_one_in_a_million(key):
    assert bb.MECHANISM_EXERCISES[key].false_alarm_bound() <= 1e-6


def test_power_against_the_wrong_laws():
    """The wrong laws that have a closed form are refused with probability near 1."""
    spec = bb.MECHANISM_EXERCISES
    laplace = lambda scale: lambda value, sensitivity, epsilon: ContinuousLaw(  # noqa: E731
        lambda x: stats.laplace.cdf(x, loc=value, scale=scale(sensitivity, epsilon)))
    assert spec["01.1"].power(laplace(lambda d, e: e / d)) > 1 - 1e-9
    assert spec["01.1"].power(laplace(lambda d, e: 1 / e)) > 1 - 1e-9
    rounded = lambda count, epsilon: {  # noqa: E731
        count + k: float(stats.laplace.cdf(k + 0.5, scale=1 / epsilon)
                         - stats.laplace.cdf(k - 0.5, scale=1 / epsilon))
        for k in range(-60, 61)}
    norm = lambda law: {k: v / sum(law.values()) for k, v in law.items()}  # noqa: E731
    assert spec["01.2"].power(lambda count, epsilon: norm(rounded(count, epsilon))) > 0.999
    assert spec["01.2"].power(lambda count, epsilon: discrete_laplace_law(
        count, -math.log1p(-math.exp(-epsilon)))) > 0.999
    assert spec["01.3"].power(lambda utilities, epsilon, sensitivity: (
        mechanisms.exponential_probabilities(np.asarray(utilities, float), epsilon=epsilon,
                                             sensitivity=sensitivity, monotone=True))) > 0.999
    assert spec["01.4"].power(lambda counts, epsilon: bb.noisy_max_law(counts, epsilon / 2)) > 0.999
    assert spec["01.4"].power(lambda counts, epsilon: mechanisms.exponential_probabilities(
        np.asarray(counts, float), epsilon=epsilon, sensitivity=1.0, monotone=True)) > 0.999


# --- answers that fooled the checks before (issue 36) --------------------------------------------
_MODULE_RNG = np.random.default_rng(2024)  # a student's generator made outside the function


def laplace_global_numpy(value, sensitivity, epsilon, rng):
    return value + np.random.laplace(0.0, sensitivity / epsilon)  # noqa: NPY002


def laplace_module_generator(value, sensitivity, epsilon, rng):
    return laplace_mech(value, sensitivity, epsilon, _MODULE_RNG)


def exponential_global_numpy(utilities, epsilon, sensitivity, rng):
    return exponential_mech(utilities, epsilon, sensitivity, np.random)


def exponential_module_generator(utilities, epsilon, sensitivity, rng):
    return exponential_mech(utilities, epsilon, sensitivity, _MODULE_RNG)


def noisy_max_global_numpy(counts, epsilon, rng):
    return report_noisy_max(counts, epsilon, np.random)


def noisy_max_module_generator(counts, epsilon, rng):
    return report_noisy_max(counts, epsilon, _MODULE_RNG)


IGNORES_RNG = {
    "01.1": (laplace_global_numpy, laplace_module_generator),
    "01.3": (exponential_global_numpy, exponential_module_generator),
    "01.4": (noisy_max_global_numpy, noisy_max_module_generator),
}


@pytest.mark.parametrize("key, wrong", [(k, w) for k, ws in IGNORES_RNG.items() for w in ws],
                         ids=lambda v: getattr(v, "__name__", v))
def test_a_mechanism_that_ignores_its_rng_is_refused(key, wrong):
    """Right law, wrong source of randomness: refused with the rng hint, not accepted."""
    with pytest.raises(AssertionError, match="generators of the same seed") as refused:
        check(key, wrong)
    assert RNG_HINT in str(refused.value)


FLOAT_FOR_INT = {
    "01.2": lambda count, epsilon, rng: float(geometric_mech(count, epsilon, rng)),
    "01.3": lambda utilities, epsilon, sensitivity, rng: float(
        exponential_mech(utilities, epsilon, sensitivity, rng)),
    "01.4": lambda counts, epsilon, rng: np.float64(report_noisy_max(counts, epsilon, rng)),
}


@pytest.mark.parametrize("key", sorted(FLOAT_FOR_INT))
def test_a_float_where_an_int_is_asked_is_refused(key):
    with pytest.raises(AssertionError, match="a float; this exercise asks for an int"):
        check(key, FLOAT_FOR_INT[key])


def test_a_one_element_array_is_one_draw(capsys):
    laws: dict = {}  # each case's exact law, computed on its first draw (60,000 draws)

    def exponential_draw(utilities, epsilon, sensitivity, rng):
        key = (tuple(np.asarray(utilities).tolist()), epsilon, sensitivity)
        if key not in laws:
            laws[key] = exponential_law_of(utilities, epsilon, sensitivity)
        return rng.choice(len(utilities), size=1, p=laws[key])

    check("01.1", lambda value, sensitivity, epsilon, rng: (
        value + rng.laplace(0.0, sensitivity / epsilon, size=1)))
    check("01.3", exponential_draw)
    assert len(laws) > 1 and capsys.readouterr().out.count("correct!") == 2


def exponential_law_of(utilities, epsilon, sensitivity):
    return bb.exponential_law(utilities, epsilon, sensitivity)


def test_unanswered_and_called_functions(capsys):
    for key in RIGHT:
        check(key, None)
    assert capsys.readouterr().out.count("not answered yet") == 4
    with pytest.raises(AssertionError, match="pass your function"):
        check("01.1", laplace_mech(0.0, 1.0, 1.0, np.random.default_rng(0)))
