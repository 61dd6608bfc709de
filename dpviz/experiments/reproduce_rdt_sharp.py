"""Reproductions of RDT# (Jagannathan, Monteleoni & Pillaipakkamnatt 2013), §V.

Every run is :func:`dpviz.experiments.semi_supervised.protocol_runs`; the labeled size is the
smallest fraction at which Private-RDT reaches error ≤ 0.3 at ε = 0.5 (:func:`labeled_fraction`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from dpviz.data.published import RDT_SHARP_TABLE2
from dpviz.experiments.runner import cache
from dpviz.experiments.semi_supervised import protocol_runs

#: Labeled fractions searched for the protocol's labeled size (up to 50%).
FRACTIONS = (0.01, 0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


@cache
def rdt_sharp_runs(
    dataset: str, *, fractions: Sequence[float], epsilons: Sequence[float] = (0.5,),
    methods: Sequence[str] = ("rdt_sharp", "private_rdt"),
    unlabeled: Sequence[int | None] = (None,), n_runs: int = 10, n_secondary: int = 200,
    seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """:func:`~dpviz.experiments.semi_supervised.protocol_runs` on ``dataset``, cached on disk."""
    return protocol_runs(
        dataset, fractions=fractions, epsilons=epsilons, methods=methods, unlabeled=unlabeled,
        n_runs=n_runs, n_secondary=n_secondary, seed=seed, progress=progress,
    )


def labeled_fraction_errors(
    dataset: str, *, fractions: Sequence[float] = FRACTIONS, epsilon: float = 0.5,
    n_runs: int = 10, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """Supervised Private-RDT's mean test error per labeled ``fraction``."""
    frame = rdt_sharp_runs(
        dataset, fractions=tuple(fractions), epsilons=(epsilon,), methods=("private_rdt",),
        n_runs=n_runs, seed=seed, progress=progress,
    )
    return frame.groupby("fraction")["error"].mean().reset_index()


def smallest_fraction(errors: pd.DataFrame, target_error: float = 0.3) -> float | None:
    """The smallest ``fraction`` with ``error`` ≤ ``target_error`` (``None`` if none)."""
    ok = errors[errors["error"] <= target_error]
    return float(ok["fraction"].min()) if len(ok) else None


def labeled_fraction(
    dataset: str, *, fractions: Sequence[float] = FRACTIONS, target_error: float = 0.3,
    epsilon: float = 0.5, n_runs: int = 10, seed: int = 0, progress: bool = False,
) -> tuple[float | None, pd.DataFrame]:
    """The protocol's labeled fraction (or ``None``) and the errors it was read from."""
    errors = labeled_fraction_errors(
        dataset, fractions=fractions, epsilon=epsilon, n_runs=n_runs, seed=seed, progress=progress
    )
    return smallest_fraction(errors, target_error), errors


def rdt_sharp_vs_epsilon(
    dataset: str, fraction: float, *, epsilons: Sequence[float] = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    n_runs: int = 10, n_secondary: int = 200, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """RDT# Fig. 6–9 and Table II: the error's mean and std per (ε, method), RDT#'s paper std."""
    frame = rdt_sharp_runs(
        dataset, fractions=(fraction,), epsilons=tuple(epsilons), n_runs=n_runs,
        n_secondary=n_secondary, seed=seed, progress=progress,
    )
    summary = (
        frame.groupby(["epsilon", "method"])["error"]
        .agg(error="mean", std="std", runs="size")
        .reset_index()
    )
    paper = RDT_SHARP_TABLE2[RDT_SHARP_TABLE2["dataset"] == dataset][["epsilon", "paper_std"]]
    summary = summary.merge(paper.assign(method="rdt_sharp"), on=["epsilon", "method"], how="left")
    return summary.assign(dataset=dataset, fraction=fraction)


def error_vs_labeled(
    dataset: str = "mushroom", fractions: Sequence[float] = (0.01, 0.02, 0.03, 0.05, 0.1), *,
    epsilon: float = 0.5, n_runs: int = 10, n_secondary: int = 200, seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """RDT# Fig. 10: error against the labeled size (Mushroom), both methods."""
    frame = rdt_sharp_runs(
        dataset, fractions=tuple(fractions), epsilons=(epsilon,), n_runs=n_runs,
        n_secondary=n_secondary, seed=seed, progress=progress,
    )
    return _mean_std(frame, ["n_labeled", "method"], dataset)


def error_vs_unlabeled(
    dataset: str = "nursery", fraction: float = 0.25,
    sizes: Sequence[int] = (250, 1000, 3000, 6000), *, epsilon: float = 0.5, n_runs: int = 10,
    n_secondary: int = 200, seed: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """RDT# Fig. 11: RDT#'s error against the number of public unlabeled rows (Nursery)."""
    frame = rdt_sharp_runs(
        dataset, fractions=(fraction,), epsilons=(epsilon,), methods=("rdt_sharp",),
        unlabeled=tuple(sizes), n_runs=n_runs, n_secondary=n_secondary, seed=seed,
        progress=progress,
    )
    return _mean_std(frame, "n_unlabeled", dataset)


def _mean_std(frame: pd.DataFrame, by: str | list[str], dataset: str) -> pd.DataFrame:
    return frame.groupby(by)["error"].agg(error="mean", std="std").reset_index().assign(
        dataset=dataset
    )
