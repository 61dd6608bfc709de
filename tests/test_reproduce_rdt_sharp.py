"""RDT#'s protocol with fixed seeds: labeled fractions, RDT# vs labeled-only Private-RDT."""

import pytest

from dpviz.reproduce_rdt_sharp import labeled_fraction, rdt_sharp_runs, rdt_sharp_vs_epsilon


def test_labeled_fraction_protocol_on_mushroom():
    fraction, errors = labeled_fraction("mushroom", fractions=(0.01, 0.02, 0.05), n_runs=5)
    # The paper found about 2%. Private-RDT's mean error at 1% is 0.30 ± 0.01 (60 seeds,
    # measured), i.e. on the protocol's 0.3 threshold, so 5 runs choose 1% or 2% by chance;
    # 5% (error 0.12) is never needed.
    assert fraction in (0.01, 0.02)
    assert errors["error"].is_monotonic_decreasing


@pytest.mark.parametrize("dataset", ["mushroom", "nursery"])
def test_rdt_sharp_beats_labeled_only_private_rdt_at_epsilon_half(dataset):
    # the labeled fraction is the one the protocol chooses (10 runs): Mushroom 1-2% (its error
    # at 1% sits on the 0.3 threshold), Nursery 30%
    fraction, _ = labeled_fraction(dataset, n_runs=10)
    assert fraction in {"mushroom": (0.01, 0.02), "nursery": (0.3,)}[dataset]
    # 10 paired runs (same split and seed for both methods); measured with 200 secondary trees:
    # Mushroom 0.166 vs 0.233, Nursery 0.168 vs 0.273. 50 secondary trees keep the test fast.
    table = rdt_sharp_vs_epsilon(dataset, fraction, epsilons=(0.5,), n_runs=10, n_secondary=50)
    error = table.set_index("method")["error"]
    assert error["rdt_sharp"] < error["private_rdt"]
    assert (table["runs"] == 10).all()


def test_runs_table_shape():
    frame = rdt_sharp_runs("votes", fractions=(0.3,), epsilons=(0.5, 1.0), n_runs=2, n_secondary=5)
    assert len(frame) == 2 * 2 * 2
    assert set(frame["method"]) == {"rdt_sharp", "private_rdt"}
    assert frame["n_labeled"].iloc[0] == round(0.3 * 435)


def test_more_public_rows_lower_the_error():
    from dpviz.reproduce_rdt_sharp import error_vs_unlabeled

    # measured: 250 public rows -> 0.335, 8000 -> 0.195 (3 runs, 30 secondary trees)
    table = error_vs_unlabeled(sizes=(250, 8000), n_runs=3, n_secondary=30)
    error = table.set_index("n_unlabeled")["error"]
    assert error[8000] < error[250] - 0.05
