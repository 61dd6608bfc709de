"""The claims the prose of notebooks 04, 05 and 07 makes, checked here instead of in the student's
view.

Each test computes what the notebook computes — through the library, with the notebook's arguments,
and for the reproductions with the shipped results its full-mode settings read (the committed
outputs are a full run) — and checks the claim with the notebook's tolerance. Every computation has
a fixed seed, so a test fails only when the code or the shipped results change; the tolerances say
how far the claim is from failing."""

from __future__ import annotations

import functools

import pandas as pd
import pytest

from dpviz.audit import targets
from dpviz.audit.engine import leaf_count_neighbours, search_neighbours
from dpviz.data.uci import load
from dpviz.domain import Encoded
from dpviz.experiments import comparison, fast, pareto, pitfalls, registry
from dpviz.experiments.reproduce_fi import (
    fi_figure4,
    fi_figure5,
    fi_figure6,
    fi_figure7,
    fi_table2,
    fi_table3,
    fi_table4_explained,
)
from dpviz.experiments.reproduce_rdt_sharp import (
    error_vs_labeled,
    error_vs_unlabeled,
    labeled_fraction_errors,
    rdt_sharp_vs_epsilon,
    smallest_fraction,
)
from dpviz.experiments.semi_supervised import ProtocolRun, protocol_split
from dpviz.experiments.shipped import result
from dpviz.explore import compare as cmp
from dpviz.explore import fi
from dpviz.explore import rdt_sharp as rs
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

DATASETS_04 = ("mushroom", "nursery", "votes")


# -------------------------------------------------------------- notebook 04 (RDT#), shipped results
@functools.cache
def settings_04() -> dict:
    """Notebook 04's full-mode settings (``rs.reproduction_settings()`` without DPVIZ_RECOMPUTE)."""
    return rs.reproduction_settings(False)


@functools.cache
def found_04() -> dict:
    """Notebook 04's labeled fraction per data set, from the shipped protocol runs."""
    protocol = {
        name: result(
            labeled_fraction_errors, name, n_runs=settings_04()["protocol_runs"], recompute=False
        )
        for name in DATASETS_04
    }
    return {name: smallest_fraction(errors) for name, errors in protocol.items()}


def test_04_one_model_harness_agrees_and_both_beat_the_majority_class():
    """Notebook 04, "One model": Mushroom, run 0 of the paper's protocol (2% labeled), RDT# (p = 5,
    t = 200) and Private-RDT (5 trees, RDT#'s height) at ε = 0.5. The experiment harness behind the
    explorer and the reproductions (``ProtocolRun``) gives the same test errors as the hand-made
    fits, and "what one run shows robustly is that both learned something": both beat always
    answering the majority class (0.474)."""
    mushroom = load("mushroom")
    split = protocol_split(mushroom.n_rows, 0.02, seed=0)
    labeled, public, test = split.labeled, split.public, split.test
    X, y = mushroom.X, mushroom.y
    seed = ProtocolRun(mushroom, 0.02, 0).fit_seed_of
    model = RDTSharpClassifier(
        epsilon=0.5,
        n_primary=5,
        n_secondary=200,
        n_labeled=len(labeled),
        domain=mushroom.domain,
        random_state=seed("rdt_sharp"),
    )
    model.fit(X.iloc[labeled], y.iloc[labeled], X.iloc[public])
    baseline = PrivateRDTClassifier(
        epsilon=0.5,
        n_trees=5,
        max_depth=model.depth_,
        domain=mushroom.domain,
        random_state=seed("private_rdt"),
    ).fit(X.iloc[labeled], y.iloc[labeled])
    error_sharp = (model.predict(X.iloc[test]) != y.iloc[test].to_numpy()).mean()
    error_rdt = (baseline.predict(X.iloc[test]) != y.iloc[test].to_numpy()).mean()

    run = ProtocolRun(mushroom, 0.02, 0, n_secondary=200)
    assert run.error("rdt_sharp", 0.5) == error_sharp
    assert run.error("private_rdt", 0.5) == error_rdt
    majority_error = (y.iloc[test] != y.value_counts().idxmax()).mean()
    assert max(error_sharp, error_rdt) < majority_error, (
        "a model learned nothing from the labeled rows"
    )


def test_04_the_explorer_opens_where_rdt_sharp_is_clearly_ahead():
    """Notebook 04's explorer opens (``rs.rdt_sharp_controls()``) where the paper's headline shows,
    as its text says: RDT# ahead of Private-RDT on the labeled rows in each of the chart's 3 runs
    at the opening ε, by more than 0.05 on average (Nursery, 20%, ε = 0.5, t = 20: 0.15)."""
    opening = {name: widget.value for name, widget in rs.rdt_sharp_controls().items()}
    frame = rs.explorer_frame(opening["dataset"], [opening["epsilon"]], opening["percent"],
                              opening["n_secondary"])
    accuracy = frame.pivot_table(index="repeat", columns="method", values="accuracy")
    gap = accuracy["RDT#"] - accuracy["Private-RDT, labeled rows"]
    assert len(gap) == rs.REPEATS and (gap > 0).all() and gap.mean() > 0.05, accuracy


def test_04_explorer_mushroom_loses_accuracy_when_the_noise_grows_tenfold():
    """Notebook 04, "Run-to-run scatter": the explorer's Mushroom runs (2% labeled, t = 20)
    lose accuracy from ε = 0.5 to ε = 0.05 (noise scale p/ε = 10 → 100 per count); for Private-RDT
    the loss exceeds 0.1, a gap beyond the scatter of 3 runs."""
    frame = (
        rs.explorer_frame("mushroom", [0.05, 0.5], 2, 20)
        .groupby(["epsilon", "method"])["error"]
        .mean()
    )
    assert frame[0.05, "RDT#"] > frame[0.5, "RDT#"], frame
    assert (
        frame[0.05, "Private-RDT, labeled rows"] > frame[0.5, "Private-RDT, labeled rows"] + 0.1
    ), frame


def test_04_labeled_fractions_are_ones_ten_runs_can_pick():
    """Notebook 04, "The labeled fraction (§V)": the shipped protocol (10 runs per fraction) picks
    1% or 2% for Mushroom, 25%, 30% or 40% for Nursery, and some fraction for Votes — the fractions
    the prose explains from Private-RDT's means over 200 runs (Mushroom on the 0.3 threshold at
    1%-2%, Nursery's mean error 0.31 at 25% and 0.27 at 30%). A failure means the shipped protocol
    results changed."""
    found = found_04()
    assert found["mushroom"] in (0.01, 0.02)
    assert found["nursery"] in (0.25, 0.3, 0.4)
    assert found["votes"] is not None


def test_04_rdt_sharp_beats_private_rdt_on_nursery_at_half():
    """Notebook 04, Table II: on Nursery, where the mean gap is large (0.10-0.13) and runs scatter
    little (≤ 0.06), RDT# has the lower error at ε = 0.5 in the shipped 10 runs (t = 200)."""
    settings, found = settings_04(), found_04()
    table2 = pd.concat(
        [
            result(
                rdt_sharp_vs_epsilon,
                name,
                found[name],
                epsilons=settings["epsilons"],
                n_runs=settings["runs"],
                n_secondary=settings["n_secondary"],
                recompute=False,
            )
            for name in DATASETS_04
        ]
    )
    error = table2.set_index(["dataset", "epsilon", "method"])["error"]
    assert error["nursery", 0.5, "rdt_sharp"] < error["nursery", 0.5, "private_rdt"], error[
        "nursery"
    ]


def test_04_more_labeled_and_more_public_rows_lower_the_error():
    """Notebook 04, Fig. 10 and 11 ("Both trends agree with the paper"): in the shipped runs RDT#'s
    error on Mushroom is lower at the largest labeled size than at the smallest, and on Nursery
    lower with the most public rows than with the fewest. Only the signs: the margins (0.18 and
    0.04-0.08 on average over 40-60 runs) scatter too much between runs for more."""
    settings, found = settings_04(), found_04()
    fig10 = result(
        error_vs_labeled,
        "mushroom",
        settings["labeled_sizes"],
        n_runs=settings["runs"],
        n_secondary=settings["n_secondary"],
        recompute=False,
    )
    fig11 = result(
        error_vs_unlabeled,
        "nursery",
        found["nursery"],
        settings["unlabeled_sizes"],
        n_runs=settings["runs"],
        n_secondary=settings["n_secondary"],
        recompute=False,
    )
    by_labeled = fig10.pivot(index="n_labeled", columns="method", values="error")
    assert by_labeled["rdt_sharp"].iloc[-1] < by_labeled["rdt_sharp"].iloc[0], by_labeled
    assert fig11["error"].iloc[-1] < fig11["error"].iloc[0], fig11


def test_04_paying_for_the_public_rows_costs_accuracy():
    """Notebook 04, "What goes wrong" 1: treating the public rows as private (paying for them)
    raises the error (Mushroom, 2%, ε = 0.5, t = 20, 5 runs; over 100 runs 0.16 against 0.38, the
    sign holding in 96% of runs)."""
    overpaid = rs.overpaying_table("mushroom", 2, epsilon=0.5, n_secondary=20, runs=5)
    assert overpaid["error"].iloc[0] < overpaid["error"].iloc[1], overpaid


def test_04_pseudo_labels_near_majority_at_small_epsilon_far_above_at_half():
    """Notebook 04, "What goes wrong" 4: the primary ensemble's pseudo-labels are near the majority
    class at ε = 0.05 (within 0.15) and far above it at ε = 0.5 (by more than 0.1) — Mushroom, 2%, t
    = 20, 5 runs; the prose's means over 100 runs are 54% against 52% at ε = 0.05 and 76% at ε =
    0.5."""
    pseudo = rs.pseudo_label_table(
        "mushroom", 2, epsilons=(0.05, 0.2, 0.5, 2.0), n_secondary=20, runs=5
    )
    by_eps = pseudo.set_index("epsilon")
    assert by_eps.loc[0.05, "pseudo_label_accuracy"] < by_eps.loc[0.05, "majority_share"] + 0.15, (
        by_eps
    )
    assert by_eps.loc[0.5, "pseudo_label_accuracy"] > by_eps.loc[0.5, "majority_share"] + 0.1, (
        by_eps
    )


# ---------------------------------------------------------------- notebook 05 (FI's forest)
@functools.cache
def fi_run() -> tuple[dict, dict]:
    """Notebook 05's shipped (full) settings and the ``run`` keywords of its figures."""
    settings = fi.reproduction_settings(False)
    return settings, {k: settings[k] for k in ("n_rows", "n_folds", "n_repeats")}


def test_05_votes_from_located_leaves_equal_votes_from_rows():
    """Notebook 05, "How the fast version differs": the forests of one random_state share their
    trees, so the test rows are routed once (``fast.locate``) and voted at every ε; at ε = 0.1, 1
    and 10 the votes from the located leaves are the votes from the rows (SynthA, 100 trees, seed 0,
    the first 1500 rows)."""
    synth_a = fi.explorer_dataset("SynthA")
    forest = DPRandomForestClassifier(
        epsilon=1.0, n_trees=100, domain=synth_a.domain, random_state=0
    )
    forest.fit(synth_a.X, synth_a.y)
    codes = synth_a.domain.encode(synth_a.X[:1500])
    leaves = fast.locate(forest, codes)
    for epsilon in (0.1, 1.0, 10.0):
        refit = DPRandomForestClassifier(
            epsilon=epsilon, n_trees=100, domain=synth_a.domain, random_state=0
        )
        refit.fit(synth_a.X, synth_a.y)
        assert (fast.votes_located(refit, leaves)
                == refit.votes(Encoded(codes, synth_a.domain))).all(), epsilon


def test_05_forest_near_coin_flip_at_001_and_near_non_private_at_1():
    """Notebook 05, explorer: with FI's settings (SynthA, depth 5, 100 trees) a forest at ε = 0.01
    is close to a coin flip (noise of scale 100 on a handful of rows per leaf) and one at ε = 1
    about as good as FI's non-private forest. The bounds sit 3 standard deviations from the 30-seed
    averages (0.54, 0.835; non-private 0.839)."""
    depth = fi.explorer_depth("SynthA")
    assert depth == 5
    curve = fi.explorer_frame("SynthA", [0.01, 1.0], depth, 100)
    mean = curve.groupby("epsilon")["accuracy"].mean()
    reference = fi.non_private_accuracy("SynthA", depth, 100)
    assert mean[0.01] < 0.70 and mean[1.0] > 0.75, mean
    assert mean[1.0] < reference + 0.05, (mean[1.0], reference)


def test_05_tables_2_4_6_as_fi_print_them():
    """Notebook 05, Theorems 1-2 and the addendum's Table 6: ours equal FI's Tables 2, 4 and 6 to
    their rounding (5 decimals or 3 significant digits; Table 6 to its 0.1 and 0.05 points), and the
    noisy arg-max favours the majority more than the softmax. A failure means a formula changed."""
    table2, table4, table6 = fi_table2(), fi_table4_explained(), fi.fi_table6(epsilon=0.1)
    assert ((table2["ours"] - table2["paper"]).abs() <= 5e-6 + 0.005 * table2["paper"]).all(), (
        table2
    )
    assert (table4["ours"] == table4["paper"]).all(), table4
    assert ((table6["original"] - table6["original_paper"]).abs() < 0.1).all(), table6
    assert ((table6["softmax"] - table6["new_paper"]).abs() < 0.05).all(), table6
    assert (table6["noisy_argmax"] > table6["softmax"]).all(), table6


def test_05_figures_4_to_7_and_table_3_say_what_the_text_says():
    """Notebook 05, Fig. 4-7 and Table 3 (shipped full runs): ROSNAM is well above the 0/1 utility
    (by more than 5 points on average) and within 5 points of the withdrawn mechanism; disjoint rows
    are within 5 points of shared rows on average; SynthA's two depth-5 forests (Theorem 2's depth
    is m) are the same forest; at ε = 1, 100 trees beat 1 on every set; more trees leave more leaves
    empty."""
    settings, run = fi_run()
    fig4 = result(fi_figure4, settings["datasets"], **run, recompute=False)
    fig5 = result(fi_figure5, settings["datasets"], **run, recompute=False)
    fig6 = result(fi_figure6, settings["datasets"], **run, recompute=False)
    fig7 = result(fi_figure7, settings["fig7_datasets"], **run, recompute=False)
    table3 = result(
        fi_table3, settings["table3_datasets"], n_runs=settings["table3_runs"], recompute=False
    )
    wide4, wide5 = fi.side_by_side(fig4), fi.side_by_side(fig5)
    assert (wide4["rosnam"] - wide4["exponential"]).mean() > 5, wide4
    assert (wide4["smooth_sensitivity"] - wide4["rosnam"]).abs().max() < 5, wide4
    assert abs((wide5["disjoint"] - wide5["shared"]).mean()) < 5, wide5
    by = fig6.set_index(["dataset", "setting"])["mean"]
    assert by["SynthA", "theorem2"] == by["SynthA", "full"], by
    trees = fig7.set_index(["dataset", "epsilon", "n_trees"])["mean"]
    assert all(trees[name, 1.0, 100] > trees[name, 1.0, 1] for name in settings["fig7_datasets"]), (
        trees
    )
    assert (table3["empty_30"] > table3["empty_1"]).all(), table3


def test_05_audit_refutes_smooth_sensitivity_and_no_bound_exceeds_the_exact_loss():
    """Notebook 05, "What goes wrong" 1: the audit refutes FI 2017's smooth-sensitivity claim ε = 1
    by a wide margin (a lower bound above 2; 20 seeds: 4.92 to 6.24), and neither its bound nor
    ROSNAM's exceeds the exact loss by more than chance allows (ROSNAM's exact loss is 1: a 95%
    bound crosses it by a little in about one run in twenty — 60 seeds: 0.91 to 1.001 — hence the
    0.05 slack). The search as the notebook runs it: 5,000 samples a pair, 100,000 for the pair
    found."""
    neighbours = leaf_count_neighbours((1, 2, 3, 4, 5, 8))
    smooth_audit = search_neighbours(
        targets.smooth_sensitivity_leaf_label(1.0),
        neighbours,
        epsilon=1.0,
        n_search=5_000,
        exact=fi.leaf_label_loss("smooth_sensitivity", 1.0),
    )
    rosnam_audit = search_neighbours(
        targets.leaf_label(1.0, "rosnam"),
        neighbours,
        epsilon=1.0,
        n_search=5_000,
        exact=fi.leaf_label_loss("rosnam", 1.0),
    )
    assert smooth_audit.reject and smooth_audit.epsilon_lower > 2, smooth_audit
    for found in (smooth_audit, rosnam_audit):
        assert found.epsilon_lower < found.exact_epsilon + 0.05, found


def test_05_the_equal_split_breaks_the_claim_by_how_much_the_text_says():
    """Notebook 05, section 2 and the appendix's *The equal split*: on two one-leaf trees at ε = 1
    (exact laws, every data set of up to 11 rows and one row more) the independent draw per row
    keeps ε exactly; an equal split with an odd row sent to a random tree exceeds it by 2% (4% up to
    30 rows, 34% at ε = 2); with the odd row in the first tree (np.array_split) by 51%, three rows
    of one class against the same plus one of the other."""
    table = fi.split_loss_table(epsilon=1.0, max_rows=11).set_index("split")["loss / ε"]
    independent, random_leftover, first = table.to_numpy()
    assert independent == pytest.approx(1.0, abs=1e-9)
    assert round(random_leftover, 2) == 1.02 and round(first, 2) == 1.51, table
    assert first == pytest.approx(fi.EQUAL_SPLIT_MAX_LOSS)  # exercise 05.4's ceiling
    longer = fi.split_loss_table(epsilon=1.0, max_rows=30)["loss / ε"].to_numpy()
    larger = fi.split_loss_table(epsilon=2.0, max_rows=11)["loss / ε"].to_numpy()
    assert round(longer[1], 2) == 1.04 and round(larger[1], 2) == 1.34, (longer, larger)
    assert longer[0] == pytest.approx(1.0) and larger[0] == pytest.approx(1.0)


# ---------------------------------------------------------------- notebook 07 (compare all)
@functools.cache
def frame_07() -> pd.DataFrame:
    """Notebook 07's shipped grid on Nursery (``cmp.explorer_frame("nursery")``)."""
    return cmp.explorer_frame("nursery")


@functools.cache
def frontier_07() -> pd.DataFrame:
    return pareto.pareto_frontier(frame_07())


def test_07_grid_is_complete_and_accuracies_are_proportions():
    """Notebook 07, section 2: the shipped grid has every (learner, ε, n) with its 5 runs, every
    accuracy is a proportion, and the private learners are exactly the registry's."""
    frame, g = frame_07(), cmp.grid()
    assert g["repeats"] == 5
    runs = frame.groupby(["algorithm", "epsilon", "n"]).size()
    assert (runs == g["repeats"]).all(), runs[runs != g["repeats"]]
    assert frame["accuracy"].between(0, 1).all()
    assert set(frame.loc[frame["private"], "algorithm"]) == set(registry.PRIVATE)


def test_07_fs_trees_hold_the_useful_frontier_at_1000():
    """Notebook 07, section 3: above the majority-class floor (by ``pareto.FLOOR_MARGIN``) and up to
    ε = 2, the efficient points at n = 1000 are FS trees (at ε = 5 Private-RDT draws level, so the
    claim stops below it); "the DP forest never does at this size": no DP forest point is efficient
    at n = 1000 at any ε."""
    frame, frontier = frame_07(), frontier_07()
    at_1000 = frontier[(frontier["n"] == 1000) & frontier["efficient"]]
    floor = frame.query("algorithm == 'majority class' and n == 1000")["accuracy"].mean()
    useful = at_1000[(at_1000["mean"] > floor + pareto.FLOOR_MARGIN) & (at_1000["epsilon"] <= 2)]
    assert len(useful) >= 1
    assert set(useful["algorithm"]) <= {
        "DiffPID3-Max",
        "DiffPID3-Gini",
        "DiffPID3-InfoGain",
        "DiffPC4.5",
    }, useful
    assert "DP forest" not in set(at_1000["algorithm"]), at_1000


def test_07_private_rdt_closes_in_at_the_largest_n():
    """Notebook 07, section 3: "Private-RDT ... closes in on the trees": its distance to the best
    private learner at ε = 1 at least halves from n = 1000 to the largest n."""
    frontier, largest = frontier_07(), max(cmp.grid()["sizes"])
    at_one = frontier[frontier["epsilon"] == 1.0].set_index(["n", "algorithm"])["mean"]
    behind = {n: at_one[n].max() - at_one[(n, "Private-RDT")] for n in (1000, largest)}
    assert behind[largest] < behind[1000] / 2, behind


def test_07_epsilon_needed_for_80_percent_never_grows_with_n():
    """Notebook 07, section 4 ("More data buys privacy"): the smallest ε at which a private learner
    reaches 80% never grows with n, and is smaller at the largest n than at n = 1000."""
    largest = max(cmp.grid()["sizes"])
    price = pareto.privacy_price(frame_07(), 0.8)
    eps_needed = price.set_index("n")["epsilon"].fillna(float("inf"))
    assert eps_needed.is_monotonic_decreasing, eps_needed
    assert eps_needed[largest] < eps_needed[1000], eps_needed


def test_07_epsilon_n_at_the_useful_threshold_stays_within_a_factor_of_4():
    """Notebook 07, appendix ("The threshold where learners become useful"; section 5 quotes "a few
    hundred" for ε·n): ε·n where a private learner first beats the majority class by 5
    points stays within a factor of 4 across n — a few hundred rows' worth of budget (between 100
    and 3000)."""
    products = pareto.useful_from(frame_07())["epsilon_n"].dropna()
    assert len(products) >= 2
    assert 100 <= products.min() and products.max() <= 3000, products
    assert products.max() / products.min() <= 4, products


def test_07_which_algorithm_when_claims_hold_and_sklearn_beats_exact_private_learners():
    """Notebook 07, section 5: every "which algorithm when" claim of ``pareto.claims`` holds on
    Nursery, and from n = 1000 on a scikit-learn tree or forest beats the best private learner run
    without noise."""
    frame = frame_07()
    claims = pareto.claims(frame, "nursery")
    assert claims["holds"].all(), claims.loc[~claims["holds"], ["claim", "ours"]]
    stats = comparison.summary(frame)
    exact = (
        stats[stats["algorithm"].isin(registry.PRIVATE) & ~stats["private"]]
        .groupby("n")["mean"]
        .max()
    )
    sklearn = (
        stats[stats["algorithm"].isin(["sklearn tree", "sklearn forest"])]
        .groupby("n")["mean"]
        .max()
    )
    assert (exact.index >= 1000).any()
    assert (sklearn >= exact)[exact.index >= 1000].all(), pd.DataFrame(
        {"sklearn": sklearn, "at ε = ∞": exact}
    )


def test_07_rdt_sharp_far_ahead_and_more_than_halfway_to_all_labeled():
    """Notebook 07, "RDT#: when public unlabeled rows exist" (shipped full run: 10 runs, t = 200):
    at ε = 1 RDT# is more than 15 points ahead of Private-RDT on the same 1000 labeled rows, and
    more than halfway to Private-RDT on all 3000 rows labeled (the prose: about 5 points short of
    it, 26 ahead of the labeled-rows baseline)."""
    rdt = result(
        comparison.rdt_sharp_comparison,
        "nursery",
        n_labeled=1000,
        n_public=2000,
        epsilons=(0.2, 1.0),
        repeats=10,
        n_secondary=200,
        recompute=False,
    )
    means = rdt.groupby(["epsilon", "method"])["accuracy"].mean()
    labeled, everything = "Private-RDT, labeled rows", "Private-RDT, if public rows were labeled"
    assert means[(1.0, "RDT#")] > means[(1.0, labeled)] + 0.15, means
    assert means[(1.0, "RDT#")] > (means[(1.0, labeled)] + means[(1.0, everything)]) / 2, means


def test_07_twice_the_budget_pays_and_update_beats_union_half():
    """Notebook 07, "Comparing at different total budgets" (shipped, 20 runs per arm): spending
    twice the budget (``union``) beats the fair ``union_half`` by more than 3 points, and at the
    same true total ε JPW's update beats rebuilding on the union."""
    budget = result(pitfalls.budget_pitfall, "nursery", epsilon=0.5, repeats=20, recompute=False)
    acc = budget.set_index("method")["mean"]
    assert acc["union"] > acc["union_half"] + 0.03, acc
    assert acc["update"] > acc["union_half"], acc


def test_07_tuning_on_test_rows_is_optimistic_and_costs_15_epsilon():
    """Notebook 07, "Tuning hyperparameters on the test data" (section 6) and the appendix's
    "Tuning's optimism over many draws": over 40 draws the chosen model's
    score on the rows that chose it is optimistic on average by more than 3 standard errors, and the
    bill of the 15 configurations is 15 × ε. The notebook reads both from the shipped results:
    they are what the code computes now, attrs included."""
    tuning = pitfalls.tuning_pitfall("nursery", epsilon=1.0, n=1000, n_tuning=200, splits=200)
    assert tuning.attrs["configs"] == 15
    assert tuning.attrs["budgets"] == 15 * 1.0
    draws = pitfalls.tuning_optimism(
        "nursery", draws=40, epsilon=1.0, n=1000, n_tuning=200, splits=200
    )
    se = draws["optimism"].std(ddof=1) / len(draws) ** 0.5
    assert draws["optimism"].mean() > 3 * se, (draws["optimism"].mean(), se)
    shipped = cmp.tuning_pitfall("nursery", epsilon=1.0, n=1000, n_tuning=200, splits=200)
    pd.testing.assert_frame_equal(shipped, tuning, check_exact=True)
    assert {k: v for k, v in shipped.attrs.items() if k != "provenance"} == tuning.attrs
    pd.testing.assert_frame_equal(
        cmp.tuning_optimism("nursery", draws=40, epsilon=1.0, n=1000, n_tuning=200, splits=200),
        draws, check_exact=True)


# ------------------------------------------------------- notebook 07, section 7 (today's learners)
@functools.cache
def today_07() -> pd.DataFrame:
    """Section 7's chart: ``cmp.today_summary(1000)`` (n = 1000; Votes 300), shipped grids."""
    return cmp.today_summary(1000)


def _useful_from(rows: pd.DataFrame, learner: str) -> float:
    """The smallest ε of the grid at which ``learner`` beats the majority class by 5 points."""
    floor = rows.loc[rows["learner"] == pareto.MAJORITY, "mean"].iloc[0]
    hit = rows[(rows["learner"] == learner) & (rows["mean"] >= floor + pareto.FLOOR_MARGIN)]
    return float(hit["epsilon"].min()) if len(hit) else float("inf")


def test_07_today_grids_are_complete_and_pair_with_the_papers():
    """Section 7 and the explorer: today's shipped grid has both learners wherever the domain
    allows (DP-EBM: not on Nursery's five classes), every (ε, n) of the papers' grid and ε = ∞,
    5 runs each; and the runs are paired (the same sizes as the papers')."""
    g = cmp.grid()
    for dataset in cmp.EXPLORER_DATASETS:
        today, seeds = cmp.today_frame(dataset), cmp.explorer_frame(dataset)
        learners = set(registry.RECENT) - ({"DP-EBM (δ = 1e-6)"} if dataset == "nursery" else set())
        assert set(today["algorithm"]) == learners, dataset
        runs = today.groupby(["algorithm", "epsilon", "n"]).size()
        assert (runs == g["repeats"]).all() and len(runs) == len(learners) * (
            len(g["epsilons"]) + 1) * seeds["n"].nunique(), dataset
        assert set(today["n"]) == set(seeds["n"]) and today["accuracy"].between(0, 1).all()


def _at(rows: pd.DataFrame, dataset: str, learner: str, epsilon: float) -> pd.Series:
    """One point of section 7's chart: its mean, low and high."""
    here = rows[(rows["dataset"] == dataset) & (rows["learner"] == learner)]
    return here.set_index("epsilon").loc[epsilon, ["mean", "low", "high"]]


PRIVATREE = "PrivaTree (dpviz variant)"
DP_EBM = "DP-EBM (δ = 1e-6)"


def test_07_small_budgets_belong_to_privatree():
    """Section 7: "PrivaTree beats the majority class by 5 points with 2.5 (Nursery) to 25 (Votes)
    times less ε than the papers' best, intervals apart: on Votes at ε = 0.1, 0.86 [0.76, 0.97]
    against 0.63 [0.51, 0.75]" (Mushroom 20, Synth-A 10; Nursery at ε = 0.2 apart too)."""
    rows = today_07()
    ratios = {dataset: _useful_from(here, cmp.BEST_OF_PAPERS) / _useful_from(here, PRIVATREE)
              for dataset, here in rows.groupby("dataset")}
    assert {d: round(ratios[d], 1) for d in ("nursery", "votes", "mushroom", "synth-a")} == {
        "nursery": 2.5, "votes": 25.0, "mushroom": 20.0, "synth-a": 10.0}, ratios
    for dataset, eps, tree, papers in (("votes", 0.1, (0.86, 0.76, 0.97), (0.63, 0.51, 0.75)),
                                       ("nursery", 0.2, (0.45, 0.36, 0.53), (0.33, 0.32, 0.34))):
        ours, best = _at(rows, dataset, PRIVATREE, eps), _at(rows, dataset, cmp.BEST_OF_PAPERS, eps)
        assert tuple(ours.round(2)) == tree and tuple(best.round(2)) == papers
        assert ours["low"] > best["high"]  # the intervals do not overlap


def test_07_below_that_privatree_is_under_the_majority_class():
    """Section 7: "PrivaTree is under the majority class on Nursery up to ε = 0.05 and on Votes
    at ε = 0.01" (and above it from the next ε of the grid)."""
    rows = today_07()
    for dataset, last in (("nursery", 0.05), ("votes", 0.01)):
        here = rows[rows["dataset"] == dataset]
        floor = here.loc[here["learner"] == pareto.MAJORITY, "mean"].iloc[0]
        tree = here[here["learner"] == "PrivaTree (dpviz variant)"].set_index("epsilon")["mean"]
        under = tree[tree < floor].index
        assert list(under) == [e for e in cmp.grid()["epsilons"] if e <= last], (dataset, tree)


def test_07_papers_trees_lead_from_05_dp_ebm_on_synth_a_and_adult_barely_clears_its_floor():
    """Section 7: "The papers' trees lead from ε = 0.5 on Nursery, and on Mushroom up to ε = 2; on
    Nursery the intervals part only at ε = 10. DP-EBM leads on Synth-A from ε = 1. On Adult only
    PrivaTree at ε = 10 beats the majority class by 5 points, barely" (its interval reaches
    below the margin); the numbers behind it, and the papers' best there mostly an FS tree."""
    rows = today_07()
    wide = {d: rows[rows["dataset"] == d].pivot(index="epsilon", columns="learner",
                                                values="mean") for d in cmp.EXPLORER_DATASETS}
    for dataset, top in (("nursery", 10.0), ("mushroom", 2.0)):
        at = wide[dataset].loc[0.5:top]
        today = at[[c for c in at if c in registry.RECENT]].max(axis=1)
        assert (at[cmp.BEST_OF_PAPERS] > today).all(), (dataset, at)
        best = rows[(rows["dataset"] == dataset) & rows["epsilon"].between(0.5, top)
                    & (rows["learner"] == cmp.BEST_OF_PAPERS)]["best"]
        assert best.str.contains("ID3|C4.5").all(), (dataset, best)
    assert (wide["mushroom"].loc[5.0:, PRIVATREE]
            >= wide["mushroom"].loc[5.0:, cmp.BEST_OF_PAPERS] - 0.01).all()  # "the two tie"
    assert tuple(_at(rows, "mushroom", cmp.BEST_OF_PAPERS, 1.0).round(2)) == (0.97, 0.94, 1.0)
    assert tuple(_at(rows, "mushroom", PRIVATREE, 1.0).round(2)) == (0.80, 0.69, 0.91)
    for eps in (0.5, 1.0, 2.0, 5.0, 10.0):
        ours, best = _at(rows, "nursery", PRIVATREE, eps), _at(rows, "nursery",
                                                               cmp.BEST_OF_PAPERS, eps)
        assert (ours["high"] < best["low"]) == (eps == 10.0), eps  # they part at ε = 10 only
    assert tuple(_at(rows, "nursery", cmp.BEST_OF_PAPERS, 10.0).round(2)) == (0.88, 0.87, 0.90)
    assert tuple(_at(rows, "nursery", PRIVATREE, 10.0).round(2)) == (0.84, 0.83, 0.86)
    synth = wide["synth-a"].loc[1.0:]
    assert (synth[DP_EBM] > synth.drop(columns=[DP_EBM]).max(axis=1)).all(), synth
    assert tuple(_at(rows, "synth-a", DP_EBM, 5.0).round(2)) == (0.88, 0.87, 0.89)
    adult = rows[rows["dataset"] == "adult"]
    useful = {name: _useful_from(adult, name) for name in (*registry.RECENT, cmp.BEST_OF_PAPERS)}
    assert useful == {PRIVATREE: 10.0, DP_EBM: float("inf"), cmp.BEST_OF_PAPERS: float("inf")}
    floor = adult.loc[adult["learner"] == pareto.MAJORITY, "mean"].iloc[0]
    assert _at(rows, "adult", PRIVATREE, 10.0)["low"] < floor + pareto.FLOOR_MARGIN


def test_07_appendix_numbers_of_todays_learners():
    """The appendix: at n = 1000 PrivaTree reaches 0.85 on Nursery at ε = ∞ against 0.90 for the
    papers' best; DP-EBM "reaches 0.96 on Mushroom at ε = ∞ and 0.89 [0.85, 0.93] at ε = 1 on
    1,000 rows, where FS's trees reach 0.97 at ε = 1 and 0.98 from ε = 2"."""
    def at(dataset: str) -> pd.DataFrame:
        frame = pd.concat([cmp.explorer_frame(dataset), cmp.today_frame(dataset)])
        stats = comparison.summary(frame[frame["n"] == 1000])
        return stats.set_index(["algorithm", "epsilon"])[["mean", "low", "high"]]

    nursery, mushroom = at("nursery")["mean"], at("mushroom")
    inf = float("inf")
    assert round(nursery[(PRIVATREE, inf)], 2) == 0.85
    assert round(max(nursery[(a, inf)] for a in registry.PRIVATE), 2) == 0.90
    assert round(mushroom.loc[(DP_EBM, inf), "mean"], 2) == 0.96
    assert tuple(mushroom.loc[(DP_EBM, 1.0)].round(2)) == (0.89, 0.85, 0.93)
    fs = [a for a in registry.PRIVATE if "ID3" in a or "C4.5" in a]
    best_fs = {e: max(mushroom.loc[(a, e), "mean"] for a in fs) for e in cmp.grid()["epsilons"]}
    assert round(best_fs[1.0], 2) == 0.97
    assert all(round(best_fs[e], 2) >= 0.98 for e in best_fs if e >= 2)
