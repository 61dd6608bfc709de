"""The claims the prose of notebook 06 (privacy audit) makes, checked here instead of in the
student's view.

Each test computes what the notebook computes — through ``dpviz.explore.audit``, with the
notebook's arguments — and checks the claim with the notebook's tolerance. The audits the notebook
runs itself take a second or less, so the tests run them at the notebook's (full-mode) sizes; the
stories that train estimators are read, as in the notebook (``au.story``), from the shipped results
at the sizes the notebook reads (au.REPRODUCTION_SETTINGS' full ones: the committed outputs).
Every audit has a fixed seed, so a test fails only when the code or the shipped results change."""

from __future__ import annotations

import functools

from dpviz.explore import audit as au

#: notebook 06's trainings per neighbour: whole-estimator audits (2,000), the budget split (400)
N_ESTIMATOR = au.reproduction_settings(False)["estimator_audits"]
N_SPLIT = au.reproduction_settings(False)["budget_split_audits"]


def shipped(story: str, n_samples: int) -> dict:
    """A story's audits as the notebook reads them (``recompute=False``: the shipped file)."""
    return au.story_results(story, n_samples, recompute=False)


@functools.cache
def audit_table():
    """The table of section *The audit of each mechanism* (ε = 1, 100,000 samples, seed 0)."""
    return au.audit_table(epsilon=1.0, n_samples=100_000)


# ------------------------------------------------------------- the audit of each mechanism
def test_audit_table_correct_mechanisms_pass_and_broken_ones_are_caught():
    """*The audit of each mechanism*: the correct mechanisms come first, then four broken ones —
    no violation for any correct mechanism, and every broken one caught."""
    table = audit_table()
    caught = dict(zip(table["mechanism"], table["verdict"] == "VIOLATION", strict=True))
    assert not any(caught[name] for name in au.CORRECT), caught
    assert all(caught[name] for name in au.BROKEN), caught


def test_audit_table_bounds_stay_below_the_exact_loss():
    """*The audit of each mechanism*: where the output distributions are known, no bound exceeds the
    exact loss of its event, and that loss is at most the exact ε (up to 1e-9, rounding)."""
    table = audit_table()
    known = table["exact loss"].notna()
    assert known.any()
    assert (table["ε lower bound"][known] <= table["exact loss"][known]).all(), table
    assert (table["exact loss"][known] <= table["exact ε"][known] + 1e-9).all(), table


def test_whole_estimator_audits_find_no_violation():
    """*The end-to-end check*: the whole-estimator audits of Private-RDT and the FI forest (shipped,
    2,000 trainings per neighbour) find no violation (a 95% bound: a false alarm is possible, the
    seed is fixed)."""
    estimators = shipped("estimator_audits", N_ESTIMATOR)
    assert estimators
    assert not any(r.reject for r in estimators.values()), [
        r.summary() for r in estimators.values()]


def test_whole_estimator_audit_has_power_on_an_overspending_forest():
    """*Does this audit have power?*: the audit that found nothing wrong above catches the FI forest
    whose 5 trees each spend ε, at the same number of trainings (shipped, 2,000)."""
    (power,) = shipped("estimator_power_audit", N_ESTIMATOR).values()
    assert power.reject, power.summary()


# ---------------------------------------------------------------- the bound as N grows
def test_bound_growth_broken_caught_at_largest_n_correct_never():
    """*Broken or correct: the bound as N grows* (ε = 0.5, 1,000 to 100,000 samples): at the largest
    N the two broken mechanisms are caught; the two correct ones are caught at no N."""
    growth = au.bound_growth(epsilon=0.5)
    at_most = growth[growth["n_samples"] == growth["n_samples"].max()].set_index(
        "mechanism")["reject"]
    assert len(at_most.filter(like="withdrawn")) == 1
    assert len(at_most.filter(like="half the noise")) == 1
    assert at_most.filter(like="withdrawn").all() and at_most.filter(like="half the noise").all()
    correct = growth["mechanism"].str.contains("corrected|discrete Laplace")
    assert correct.any()
    assert not growth[correct]["reject"].any()


# --------------------------------------------------- 1. the FI 2017 smooth-sensitivity label
def test_smooth_sensitivity_search_finds_violations_worse_than_the_addendum_says():
    """Story 1, *The FI 2017 smooth-sensitivity leaf label*: the searched leaf pair is a violation
    at each claimed ε (1, 0.5, 0.1; 10,000 search and 100,000 final samples), each bound stays below
    its exact loss (a lower bound, 95% confidence), and the exact loss exceeds the addendum's
    "about twice ε"."""
    story = au.smooth_sensitivity_story(epsilons=(1.0, 0.5, 0.1), n_search=10_000,
                                        n_samples=100_000)
    assert len(story) == 3
    assert (story["verdict"] == "VIOLATION").all(), story
    assert (story["measured ε lower bound"] <= story["exact loss"]).all(), story
    assert (story["exact loss"] > story["addendum's estimate"]).all(), story
    # the prose: "several times ε at ε = 1 and 0.5 and about twice ε at ε = 0.1"
    ratio = (story["measured ε lower bound"] / story["claimed ε"]).to_numpy()
    assert (ratio[:2] > 3).all() and 1.5 < ratio[2] < 2.5, story


# -------------------------------------------------------------- 2. the pruned random tree
def test_pruned_tree_caught_through_an_impossible_output():
    """Story 2, *The random tree with pruning (JPW Fig. 3–4)*: caught (shipped, 500 samples),
    through an output that never happens under one neighbour (loss ∞)."""
    (pruned,) = shipped("pruned_tree_audit", 500).values()
    impossible = pruned.p if pruned.direction == "D'/D" else pruned.p_prime
    assert pruned.reject, pruned.summary()
    assert impossible.count == 0, pruned.summary()


# ------------------------------------------------------------- 3. the wrong budget split
def test_wrong_budget_split_caught_fi_forest_not():
    """Story 3, *A forest with the wrong budget split* (shipped, 400 trainings): the forest whose
    trees all spend ε is caught; the FI forest (disjoint rows) is not."""
    wrong, right = shipped("budget_split_audits", N_SPLIT).values()
    assert wrong.reject, wrong.summary()
    assert not right.reject, right.summary()


# ------------------------------------------------------------- 4. the floating-point lesson
def test_float_laplace_caught_by_its_lattice_discrete_laplace_not():
    """Story 4, *The floating-point lesson (Mironov 2012)* (ε = 1, 100,000 samples): float Laplace
    is caught by its lattice — never off it around 0 under D — and the discrete Laplace is not."""
    float_laplace, discrete = au.floating_point_audits(epsilon=1.0, n_samples=100_000).values()
    assert float_laplace.reject, float_laplace.summary()
    assert float_laplace.p.count == 0, float_laplace.summary()  # never off the lattice around 0
    assert not discrete.reject, discrete.summary()


# -------------------------------------------------------- 5. the lattice of a uniform threshold
def test_uniform_threshold_caught_by_its_lattice_public_grid_not():
    """Story 5, *The lattice of a uniform threshold (FS §4.3)* (shipped, 4,000 samples): a threshold
    drawn uniformly on the doubles of a data range is caught by D's lattices (under D every
    threshold is on them); one from a public grid is not (its doubles are the same under D and
    D')."""
    continuous, grid = shipped("threshold_lattice_audits", 4_000).values()
    assert continuous.reject, continuous.summary()
    assert continuous.p.count == 0, continuous.summary()
    assert not grid.reject, grid.summary()


# ---------------------------------------------------------- 6. two releases that share noise
def test_reused_noise_caught_through_the_difference_fresh_noise_not():
    """Story 6, *Two releases that share their noise* (20,000 samples): reused noise is caught
    through the third output, "release 2 − release 1" (event ``[2] …``); fresh noise is not."""
    same, fresh = au.reused_noise_audits(n_samples=20_000).values()
    assert same.reject, same.summary()
    assert same.event.startswith("[2]"), same.summary()
    assert not fresh.reject, fresh.summary()


# --------------------------------------------------------- 7. the model object is not the release
def test_model_object_gives_the_canary_away_its_release_does_not():
    """Story 7, *The model object is not the release* (shipped, 1,000 samples): the fitted object's
    number of visited leaves gives the canary away (two visited leaves, "x = 2": only possible with
    the canary); the released counts of the canary's leaf do not."""
    secret, release = shipped("model_object_audits", 1_000).values()
    assert secret.reject, secret.summary()
    assert secret.event == "x = 2", secret.summary()
    assert not release.reject, release.summary()


# ------------------------------------------------------------- the adversarial suite
def test_suite_listing_is_the_suite_cases_without_building_their_targets():
    """*The adversarial suite*'s listing reads ``au.suite_rows()`` (claims.csv), which imports no
    estimator: the same families, roles and planted bugs as ``dpviz.audit.suite.cases()``."""
    from dpviz.audit import suite

    def facts(rows):
        return [(c.family, c.estimator, c.option, c.role, c.bug is not None) for c in rows]

    assert facts(au.suite_rows()) == facts(suite.cases())


def test_the_audit_notebook_imports_no_estimator():
    """Notebook 06's setup and listing load neither scikit-learn nor SciPy's statistics (about a
    second of a page's CPU): its stories that train estimators are read from shipped results."""
    import subprocess
    import sys

    code = ("import sys; from dpviz.explore import audit as au; au.suite_rows();"
            " au.audit_table(epsilon=1.0, n_samples=100_000);"
            " au.addendum_table6(n_samples=100_000);"
            " print(sorted(m for m in ('sklearn', 'scipy.stats') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
