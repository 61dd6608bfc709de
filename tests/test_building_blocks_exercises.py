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
    u = np.asarray(utilities, float)  # plain numpy: an answer may not call dpviz's own law
    w = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    return w / w.sum()


def test_unanswered_and_called_functions(capsys):
    for key in RIGHT:
        check(key, None)
    assert capsys.readouterr().out.count("not answered yet") == 4
    with pytest.raises(AssertionError, match="pass your function"):
        check("01.1", laplace_mech(0.0, 1.0, 1.0, np.random.default_rng(0)))


# --- answers that are not DP at the edges (issue 45): refused ------------------------------------
def laplace_clamped_epsilon(value, sensitivity, epsilon, rng):
    return laplace_mech(value, sensitivity, max(epsilon, 0.1), rng)  # "ε below 0.1 is silly"


def laplace_capped_scale(value, sensitivity, epsilon, rng):
    return value + rng.laplace(0.0, min(sensitivity / epsilon, 10.0))


def laplace_clipped(value, sensitivity, epsilon, rng):
    b = sensitivity / epsilon
    return value + float(np.clip(rng.laplace(0.0, b), -5 * b, 5 * b))


def laplace_truncated(value, sensitivity, epsilon, rng):
    b = sensitivity / epsilon
    while abs(noise := rng.laplace(0.0, b)) > 4 * b:  # redraw the rare large noise
        pass
    return value + noise


def geometric_clamped_epsilon(count, epsilon, rng):
    return geometric_mech(count, max(epsilon, 0.5), rng)


def geometric_capped(count, epsilon, rng):
    p, cap = 1.0 - math.exp(-epsilon), int(4 / epsilon) + 1
    return count + min(int(rng.geometric(p)), cap) - min(int(rng.geometric(p)), cap)


def exponential_without_the_max(utilities, epsilon, sensitivity, rng):
    w = np.exp(epsilon * np.asarray(utilities, float) / (2 * sensitivity))
    return int(rng.choice(len(w), p=w / w.sum()))


def noisy_max_clamped_epsilon(counts, epsilon, rng):
    return report_noisy_max(counts, max(epsilon, 0.1), rng)


def noisy_max_truncated(counts, epsilon, rng):
    c = np.asarray(counts, float)
    return int(np.argmax(c + np.minimum(rng.exponential(1.0 / epsilon, size=len(c)), 3 / epsilon)))


AT_THE_EDGES = {
    "01.1": (laplace_clamped_epsilon, laplace_capped_scale, laplace_clipped, laplace_truncated),
    "01.2": (geometric_clamped_epsilon, geometric_capped),
    "01.3": (exponential_without_the_max,),
    "01.4": (noisy_max_clamped_epsilon, noisy_max_truncated),
}


@pytest.mark.parametrize("key, wrong", [(k, w) for k, ws in AT_THE_EDGES.items() for w in ws],
                         ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # exp overflows without the max
def test_an_answer_that_is_not_dp_at_the_edges_is_refused(key, wrong):
    with pytest.raises(AssertionError, match="Hint"):
        check(key, wrong)


def test_the_tail_resolution_is_as_stated():
    """Laplace noise clipped or truncated within 5.5 scales: refused with probability > 1 − 10⁻⁶
    (the docstring of Implementation); at 6 scales the check no longer tells."""
    def cut(c, clip):
        def law(value, sensitivity, epsilon):
            b = sensitivity / epsilon
            lo, hi = stats.laplace.cdf(-c), stats.laplace.cdf(c)

            def cdf(x):
                z = (x - value) / b
                if clip:
                    return 0.0 if z < -c else 1.0 if z >= c else float(stats.laplace.cdf(z))
                return float(np.clip((stats.laplace.cdf(z) - lo) / (hi - lo), 0.0, 1.0))
            return ContinuousLaw(cdf)
        return law

    spec = bb.MECHANISM_EXERCISES["01.1"]
    for clip in (True, False):
        assert spec.power(cut(5.5, clip)) > 1 - 1e-6
        assert spec.power(cut(7.0, clip)) < 0.01
    capped = lambda value, sensitivity, epsilon: ContinuousLaw(  # noqa: E731
        lambda x: float(stats.laplace.cdf(x, loc=value, scale=min(sensitivity / epsilon, 10))))
    assert spec.power(capped) > 1 - 1e-6
    assert bb.MECHANISM_EXERCISES["01.2"].power(
        lambda count, epsilon: discrete_laplace_law(count, max(epsilon, 0.5))) > 1 - 1e-6
    assert bb.MECHANISM_EXERCISES["01.4"].power(
        lambda counts, epsilon: bb.noisy_max_law(counts, max(epsilon, 0.1))) > 1 - 1e-6


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the overflow is what is tested
def test_an_overflow_is_refused_with_where_it_happened():
    with pytest.raises(AssertionError, match=r"on case \(utilities=\(1500, 1490\).*raised "
                                             r"ValueError") as err:
        check("01.3", exponential_without_the_max)
    assert "exp overflows" in str(err.value)


# --- right answers in other forms: accepted -------------------------------------------------------
def laplace_by_exponentials(value, sensitivity, epsilon, rng):
    b = sensitivity / epsilon
    return value + b * (rng.exponential() - rng.exponential())


def laplace_by_inverse_cdf(value, sensitivity, epsilon, rng):
    u = rng.random() - 0.5
    return value - sensitivity / epsilon * math.copysign(1.0, u) * math.log1p(-2 * abs(u))


def geometric_by_inverse_cdf(count, epsilon, rng):
    q = math.exp(-epsilon)  # two one-sided geometric noises (from 0) by inversion
    a, b = (int(math.log(rng.random()) // math.log(q)) for _ in range(2))
    return count + a - b


def exponential_by_gumbel(utilities, epsilon, sensitivity, rng):
    u = np.asarray(utilities, float)
    return int(np.argmax(epsilon * u / (2 * sensitivity) + rng.gumbel(size=len(u))))


def exponential_by_softmax(utilities, epsilon, sensitivity, rng):
    from scipy.special import softmax

    return int(rng.choice(len(utilities), p=softmax(
        epsilon * np.asarray(utilities, float) / (2 * sensitivity))))


def noisy_max_by_logs(counts, epsilon, rng):
    c = np.asarray(counts, float)
    return int(np.argmax(c - np.log(rng.random(len(c))) / epsilon))


OTHER_FORMS = {
    "01.1": (laplace_by_exponentials, laplace_by_inverse_cdf),
    "01.2": (geometric_by_inverse_cdf,),
    "01.3": (exponential_by_gumbel, exponential_by_softmax),
    "01.4": (noisy_max_by_logs,),
}


@pytest.mark.parametrize("key, right", [(k, r) for k, rs in OTHER_FORMS.items() for r in rs],
                         ids=lambda v: getattr(v, "__name__", v))
def test_right_answers_of_other_forms_are_accepted(key, right, capsys):
    check(key, right)
    assert "correct!" in capsys.readouterr().out


# --- answers that call dpviz for the mechanism: refused ------------------------------------------
DPVIZ_CALLS = {
    "01.1": lambda value, sensitivity, epsilon, rng: float(mechanisms.laplace(
        value, epsilon=epsilon, sensitivity=sensitivity, rng=rng)),
    "01.2": lambda count, epsilon, rng: int(mechanisms.discrete_laplace(
        count, epsilon=epsilon, rng=rng)),
    "01.3": lambda utilities, epsilon, sensitivity, rng: int(mechanisms.exponential_mechanism(
        np.asarray(utilities, float), epsilon=epsilon, sensitivity=sensitivity, rng=rng)),
    "01.4": lambda counts, epsilon, rng: int(mechanisms.report_noisy_max(
        np.asarray(counts, float), epsilon=epsilon, rng=rng)),
}


@pytest.mark.parametrize("key", sorted(DPVIZ_CALLS))
def test_an_answer_that_calls_dpvizs_mechanism_is_refused(key):
    with pytest.raises(AssertionError, match=r"calls dpviz's dpviz\.mechanisms\.\w+; this "
                                             r"exercise asks you to write that part yourself"):
        check(key, DPVIZ_CALLS[key])
