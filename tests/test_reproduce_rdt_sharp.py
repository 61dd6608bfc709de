"""RDT#'s protocol with fixed seeds: labeled fractions, RDT# vs labeled-only Private-RDT."""

from dpviz.experiments.reproduce_rdt_sharp import (
    labeled_fraction,
    rdt_sharp_runs,
    rdt_sharp_vs_epsilon,
)


def test_labeled_fraction_protocol_on_mushroom():
    fraction, errors = labeled_fraction("mushroom", fractions=(0.01, 0.02, 0.05), n_runs=5)
    # The paper found about 2%. Private-RDT's mean error at 1% is 0.31 ± 0.01 (200 runs,
    # measured; ± a standard error), i.e. on the protocol's 0.3 threshold, so 5 runs choose 1%
    # or 2% by chance; 5% is never needed (2%: 0.21, per-run spread 0.07).
    assert fraction in (0.01, 0.02)
    assert errors["error"].is_monotonic_decreasing


def test_labeled_fraction_protocol_on_votes_always_finds_a_fraction():
    fraction, errors = labeled_fraction("votes", n_runs=10)
    # Votes (43 test rows per run): Private-RDT's mean error is flat at 0.30-0.31 from 20% to 30%
    # (200 runs), so 10 runs choose anything from 10% to 40%, and none of them in about 3% of
    # draws; the grid reaches 50% (mean error 0.24), where the target is always met.
    assert errors["fraction"].max() == 0.5
    assert fraction is not None and 0.01 <= fraction <= 0.5


def test_rdt_sharp_beats_labeled_only_private_rdt_on_nursery_at_epsilon_half():
    # the labeled fraction the protocol chooses with 10 runs: Private-RDT's mean error is 0.31 ±
    # 0.004 at 25% and 0.27 at 30% (200 runs), so 25% or 30% (40% in about 3% of draws; the
    # paper's 20%, 0.37, never)
    fraction, _ = labeled_fraction("nursery", n_runs=10)
    assert fraction in (0.25, 0.3, 0.4)
    # 10 paired runs (the same split for both methods, each with its own seed). Measured gaps at
    # ε = 0.5 (t = 20, 60 runs, one seed for both methods): 0.13 at 25%, 0.10 at 30%, 0.06 at
    # 40%, per-run spread ≤ 0.06, so 10 runs resolve the sign at any of them. Mushroom is not
    # tested here: its mean gap at ε = 0.5 (0.04 at 2%, 0.02 ± 0.02 at 1%) is below what 10 runs
    # with a per-run spread of 0.09-0.15 can resolve (notebook 04). 50 secondary trees keep the
    # test fast.
    table = rdt_sharp_vs_epsilon("nursery", fraction, epsilons=(0.5,), n_runs=10, n_secondary=50)
    error = table.set_index("method")["error"]
    assert error["rdt_sharp"] < error["private_rdt"]
    assert (table["runs"] == 10).all()


def test_runs_table_shape():
    frame = rdt_sharp_runs("votes", fractions=(0.3,), epsilons=(0.5, 1.0), n_runs=2, n_secondary=5)
    assert len(frame) == 2 * 2 * 2
    assert set(frame["method"]) == {"rdt_sharp", "private_rdt"}
    assert frame["n_labeled"].iloc[0] == round(0.3 * 435)


def test_more_public_rows_lower_the_error():
    from dpviz.experiments.reproduce_rdt_sharp import error_vs_unlabeled

    # Nursery at 25% labeled, ε = 0.5: 250 public rows -> 0.27, 8000 -> 0.19 (t = 20, 40 paired
    # runs; per-run spread of the gap 0.06), so 5 runs resolve the sign (a margin of 0.05 would
    # fail about one draw in ten)
    table = error_vs_unlabeled(sizes=(250, 8000), n_runs=5, n_secondary=30)
    error = table.set_index("n_unlabeled")["error"]
    assert error[8000] < error[250]
