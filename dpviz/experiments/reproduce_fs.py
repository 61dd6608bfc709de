"""Reproductions of Friedman & Schuster (KDD 2010) and of JPW's Table I, as tidy DataFrames.

Every function runs one experiment of the papers and returns one row per run (or per
fold), so a notebook can plot it or summarise it next to the published numbers, which
are in :mod:`dpviz.data.published` (:data:`~dpviz.data.published.FS_TABLE1`,
:data:`~dpviz.data.published.JPW_TABLE1`).

==========================  ==========================================================
function                    paper
==========================  ==========================================================
:func:`fs_table1`           FS Table 1 (and Fig. 3): one split on one of ten binary
                            attributes, B = 0.1, p_noise = 0.1, N = 5000
:func:`fs_fig4`             FS Fig. 4: a numeric split at 35 on [0, 100], B = 0.1
:func:`fs_fig5`             FS Fig. 5: numeric split vs ten equal-width bins, B = 0.2
:func:`fs_random_trees`     FS Fig. 6 (10 binary attributes) and Fig. 7 (7 binary + 3
                            numeric): random depth-5 trees, B = 1, N = 50,000
:func:`fs_fig8`             FS Fig. 8: Adult, depth ≤ 5, 10-fold cross-validation,
                            budgets above 1, Max vs Gini vs InfoGain
:func:`jpw_table1`          JPW Table I: private ID3 at ε' = 1 on Nursery, Votes and
                            Mushroom, with the share of test rows left unclassified
==========================  ==========================================================

Randomness: every function takes an int ``random_state``; each (setting, run) gets its own
seed derived from it with :class:`numpy.random.SeedSequence`, and each algorithm its own
stream, so adding an algorithm or a size does not change the others' results.
Accuracies are fractions in [0, 1]; the summaries and comparisons show percentages as the
papers do.
"""

from __future__ import annotations

import functools
import math
import re
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

from dpviz.data.published import FS_TABLE1, FS_TABLE1_ALGORITHMS, JPW_TABLE1
from dpviz.data.synthetic import fs_numeric_split_data, fs_random_tree_data, fs_single_split_data
from dpviz.data.uci import Dataset, load
from dpviz.domain import Domain
from dpviz.errors import InvalidParameterError
from dpviz.trees.id3 import (
    DiffPID3Classifier,
    SuLQID3Classifier,
)
from dpviz.validation import check_epsilon, check_int

__all__ = [
    "evaluate_encoded",
    "fs_fig4",
    "fs_fig5",
    "fs_fig8",
    "fs_random_trees",
    "fs_table1",
    "jpw_table1",
    "jpw_table1_comparison",
    "percent_summary",
    "table1_comparison",
    "table1_markdown",
]

#: JPW Table I reproduction: the depth cap of the private ID3 per data set. ID3 tests each
#: attribute at most once, so the number of attributes is "unlimited"; Mushroom (21
#: attributes with up to 12 values) is capped because, without FS's stopping rule, the noisy
#: tree has more than 10^4 nodes at depth 6 and grows geometrically beyond.
JPW_MAX_DEPTH: dict[str, int] = {"nursery": 8, "votes": 16, "mushroom": 5}


# =============================================================================== helpers
def _seed(random_state: int, *keys: int | str) -> int:
    """A reproducible 63-bit seed for ``keys`` (strings hashed with CRC32)."""
    ints = [zlib.crc32(k.encode()) if isinstance(k, str) else int(k) for k in keys]
    state = np.random.SeedSequence([int(random_state), *ints]).generate_state(2, np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


def _iterate(items: Iterable[Any], progress: bool, total: int, desc: str) -> Iterable[Any]:
    if not progress:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, total=total, desc=desc)


def _check_random_state(random_state: object) -> int:
    return check_int(random_state, "random_state", minimum=0)


def _check_sizes(sizes: Sequence[int], size_bound: int | None) -> list[int]:
    out = [check_int(n, "sizes", minimum=1) for n in sizes]
    if not out:
        raise InvalidParameterError("sizes must list at least one training-set size")
    if size_bound is not None:
        bound = check_int(size_bound, "size_bound", minimum=1)
        if max(out) > bound:
            raise InvalidParameterError(
                f"every size must be <= size_bound ({bound}): N is a public bound on the data "
                f"size (FS §4.1), got sizes {out}"
            )
    return out


def evaluate_encoded(model: Any, codes: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(accuracy, share of unclassified rows) of a fitted FS estimator on encoded rows.

    An unclassified row counts as correct when its fallback label (see
    :meth:`~dpviz.trees.id3.DiffPID3Classifier.predict`) is right.
    """
    predicted, unclassified = model.label_and_unclassified_encoded(codes)
    return float(np.mean(predicted == labels)), float(unclassified.mean())


def _split_attribute(data: Dataset) -> str | None:
    """The generating split attribute named in an FS single-split description."""
    match = re.search(r"decided by (\w+)", data.description)
    return match.group(1) if match else None


def _crit_name(criterion: str) -> str:
    return {"infogain": "InfoGain", "gini": "Gini", "max": "Max"}[criterion]


CRITERIA_ORDER: tuple[str, ...] = ("infogain", "gini", "max")


# =============================================================================== FS Table 1
def _table1_model(
    algorithm: str, budget: float, size_bound: int, domain: Domain, seed: int
) -> Any:
    if algorithm == "ID3":
        return DiffPID3Classifier(
            math.inf, max_depth=None, criterion="infogain", domain=domain, random_state=seed
        )
    if algorithm == "SuLQ-based ID3":
        return SuLQID3Classifier(budget, max_depth=1, domain=domain, random_state=seed)
    criterion = algorithm.removeprefix("DiffPID3-").lower()
    return DiffPID3Classifier(
        budget,
        max_depth=1,
        criterion=criterion,
        size_bound=size_bound,
        domain=domain,
        random_state=seed,
    )


def fs_table1(
    sizes: Sequence[int] = (1000, 2000, 3000, 4000, 5000),
    runs: int = 200,
    *,
    algorithms: Sequence[str] = FS_TABLE1_ALGORITHMS,
    budget: float = 0.1,
    p_noise: float = 0.1,
    size_bound: int = 5000,
    n_test: int = 10_000,
    random_state: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FS Table 1 (§5.1.1): accuracy of each algorithm on a single binary split.

    For every size and run a new training set is drawn by
    :func:`~dpviz.data.synthetic.fs_single_split_data` (ten binary attributes, binary class,
    ``p_noise``), each algorithm is trained at depth d = 1 with budget B (FS: the SuLQ
    count budget is "a mere 0.00125" = B / (2(d+1)) / (2|A|), hence d = 1) and scored on
    the noiseless test set. "ID3" is the non-private, unlimited-depth ID3 (see
    docs/papers.md (errata): FS's ID3 column overfits the noisy rows; a depth-1 ID3 would
    be perfect).

    Parameters
    ----------
    sizes : sequence of int
        Training-set sizes (FS: 1000 to 5000), each at most ``size_bound``.
    runs : int, default 200
        Runs per size (FS: 200).
    algorithms : sequence of str
        A subset of :data:`FS_TABLE1_ALGORITHMS`.
    budget : float, default 0.1
        B.
    p_noise : float, default 0.1
        Noise of the training rows.
    size_bound : int, default 5000
        The public bound N of the InfoGain sensitivity (FS: 5000).
    n_test : int, default 10000
        Rows of the noiseless test set.
    random_state : int, default 0
        Master seed.
    progress : bool, default False
        Show a tqdm progress bar.

    Returns
    -------
    DataFrame
        One row per (size, run, algorithm): ``n``, ``run``, ``algorithm``, ``accuracy``,
        ``split_found`` (the root tests the generating attribute).
    """
    budget = check_epsilon(budget, "budget")
    runs = check_int(runs, "runs", minimum=1)
    sizes = _check_sizes(sizes, size_bound)
    seed0 = _check_random_state(random_state)
    unknown = [a for a in algorithms if a not in FS_TABLE1_ALGORITHMS]
    if unknown:
        raise InvalidParameterError(
            f"algorithms must be among {list(FS_TABLE1_ALGORITHMS)}, got {unknown}"
        )
    rows = []
    settings = [(n, r) for n in sizes for r in range(runs)]
    for n, run in _iterate(settings, progress, len(settings), "FS Table 1"):
        data = fs_single_split_data(
            n, p_noise=p_noise, n_test=n_test, random_state=_seed(seed0, "table1", n, run)
        )
        domain = data.domain
        assert data.test is not None
        codes = domain.encode(data.test.X)
        labels = domain.encode_labels(data.test.y)
        truth = _split_attribute(data)
        train = (domain.encode(data.X), domain.encode_labels(data.y), domain)
        for algorithm in algorithms:
            seed = _seed(seed0, "table1", n, run, algorithm)
            model = _table1_model(algorithm, budget, size_bound, domain, seed)
            model.fit_encoded(*train)
            accuracy, _ = evaluate_encoded(model, codes, labels)
            rows.append(
                {
                    "n": n,
                    "run": run,
                    "algorithm": algorithm,
                    "accuracy": accuracy,
                    "split_found": model.tree_.root.attribute == truth,
                }
            )
    return pd.DataFrame(rows)


def percent_summary(
    runs: pd.DataFrame, by: Sequence[str] = ("n", "algorithm"), value: str = "accuracy"
) -> pd.DataFrame:
    """Mean and standard deviation (in %) of ``value`` per group, with the number of runs.

    Parameters
    ----------
    runs : DataFrame
        One row per run (the output of a reproduction function).
    by : sequence of str
        Grouping columns.
    value : str
        The column to summarise (a fraction).

    Returns
    -------
    DataFrame
        Columns ``*by``, ``mean`` and ``std`` (percent; std with ddof = 1 as in the
        papers' tables), ``sem`` (standard error of the mean, percent), ``runs``.
    """
    grouped = runs.groupby(list(by), sort=False)[value]
    out = grouped.agg(["mean", "std", "size"]).reset_index()
    out["mean"] *= 100
    out["std"] = out["std"].fillna(0.0) * 100
    out["sem"] = out["std"] / np.sqrt(out["size"])
    return out.rename(columns={"size": "runs"})


def table1_comparison(runs: pd.DataFrame) -> pd.DataFrame:
    """Our FS Table 1 next to the paper's: one row per (n, algorithm).

    Returns
    -------
    DataFrame
        ``n``, ``algorithm``, ``ours_mean``, ``ours_std``, ``runs``, ``paper_mean``,
        ``paper_std`` (percent).
    """
    ours = percent_summary(runs).rename(columns={"mean": "ours_mean", "std": "ours_std"})
    paper = FS_TABLE1.rename(columns={"mean": "paper_mean", "std": "paper_std"})
    merged = ours.merge(paper, on=["n", "algorithm"], how="left")
    return merged[["n", "algorithm", "ours_mean", "ours_std", "runs", "paper_mean", "paper_std"]]


def table1_markdown(runs: pd.DataFrame) -> str:
    """A markdown table in FS Table 1's layout: "ours ± std (paper ± std)" per cell."""
    comparison = table1_comparison(runs)
    algorithms = [a for a in FS_TABLE1_ALGORITHMS if a in set(comparison["algorithm"])]
    header = "| Number of samples | " + " | ".join(algorithms) + " |"
    lines = [header, "|" + "---|" * (len(algorithms) + 1)]
    for n, group in comparison.groupby("n", sort=True):
        cells = []
        for algorithm in algorithms:
            row = group[group["algorithm"] == algorithm]
            if row.empty:
                cells.append("")
                continue
            r = row.iloc[0]
            paper = (
                ""
                if pd.isna(r["paper_mean"])
                else f" ({r['paper_mean']:.1f} ± {r['paper_std']:.1f})"
            )
            cells.append(f"{r['ours_mean']:.1f} ± {r['ours_std']:.1f}{paper}")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    n_runs = int(comparison["runs"].max())
    lines.append("")
    lines.append(
        f"Ours ± standard deviation over {n_runs} runs per size (FS's published values in "
        "parentheses, 200 runs), accuracy in %."
    )
    return "\n".join(lines)


# =============================================================================== FS Fig. 4
def _j48_like(pruned: bool, seed: int) -> Any:
    """Non-private J48-like references from scikit-learn (entropy trees on the codes)."""
    if pruned:
        return DecisionTreeClassifier(
            criterion="entropy", min_samples_leaf=2, ccp_alpha=0.005, random_state=seed % 2**31
        )
    return DecisionTreeClassifier(criterion="entropy", random_state=seed % 2**31)


def fs_fig4(
    sizes: Sequence[int] = (1000, 2000, 3000, 4000, 5000),
    runs: int = 50,
    *,
    budget: float = 0.1,
    p_noise: float = 0.1,
    size_bound: int = 5000,
    criteria: Sequence[str] = CRITERIA_ORDER,
    prune: bool = False,
    references: bool = True,
    n_test: int = 10_000,
    random_state: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FS Fig. 4 (§5.1.1): a single split at 35 on a numeric attribute over [0, 100].

    Data from :func:`~dpviz.data.synthetic.fs_numeric_split_data` (7 binary and 3 numeric
    attributes); DiffPC4.5 with each criterion at depth 1 and budget B (split points by
    the exponential mechanism over the public grid of [0, 100] in 256 cells, where 35 is
    not a grid point: its neighbours are 34.77 and 35.16; ε = B / ((2+3)·1 + 2)); the J48
    benchmarks are replaced by scikit-learn entropy trees (unpruned, and pruned with
    ``min_samples_leaf=2, ccp_alpha=0.005`` — a stand-in for J48's error-based pruning).

    Returns
    -------
    DataFrame
        One row per (size, run, algorithm): ``n``, ``run``, ``algorithm``, ``accuracy``,
        ``split_found`` (the root tests the generating attribute) and ``split_point``
        (the root's threshold when it does).
    """
    budget = check_epsilon(budget, "budget")
    runs = check_int(runs, "runs", minimum=1)
    sizes = _check_sizes(sizes, size_bound)
    seed0 = _check_random_state(random_state)
    rows = []
    settings = [(n, r) for n in sizes for r in range(runs)]
    for n, run in _iterate(settings, progress, len(settings), "FS Fig. 4"):
        data = fs_numeric_split_data(
            n, p_noise=p_noise, n_test=n_test, random_state=_seed(seed0, "fig4", n, run)
        )
        domain = data.domain
        assert data.test is not None
        codes = domain.encode(data.test.X)
        labels = domain.encode_labels(data.test.y)
        truth = _split_attribute(data)
        for criterion in criteria:
            name = f"DiffPC4.5-{_crit_name(criterion)}"
            model = DiffPID3Classifier(
                budget,
                max_depth=1,
                criterion=criterion,
                size_bound=size_bound,
                prune=prune,
                domain=domain,
                random_state=_seed(seed0, "fig4", n, run, name),
            ).fit(data.X, data.y)
            accuracy, _ = evaluate_encoded(model, codes, labels)
            root = model.tree_.root
            found = root.attribute == truth
            rows.append(
                {
                    "n": n,
                    "run": run,
                    "algorithm": name,
                    "accuracy": accuracy,
                    "split_found": found,
                    "split_point": root.threshold if found else math.nan,
                }
            )
        if references:
            train_codes = domain.encode(data.X)
            train_labels = domain.encode_labels(data.y)
            for pruned in (False, True):
                name = f"J48-like (scikit-learn, {'pruned' if pruned else 'unpruned'})"
                tree = _j48_like(pruned, _seed(seed0, "fig4", n, run, name))
                tree.fit(train_codes, train_labels)
                found = bool(tree.tree_.feature[0] == domain.index(truth)) if truth else False
                rows.append(
                    {
                        "n": n,
                        "run": run,
                        "algorithm": name,
                        "accuracy": float((tree.predict(codes) == labels).mean()),
                        "split_found": found,
                        "split_point": float(tree.tree_.threshold[0]) if found else math.nan,
                    }
                )
    return pd.DataFrame(rows)


# =============================================================================== FS Fig. 5
def fs_fig5(
    sizes: Sequence[int] = (500, 1000, 2000, 3000, 4000, 5000),
    runs: int = 50,
    *,
    budget: float = 0.2,
    n_bins: int = 10,
    p_noise: float = 0.0,
    size_bound: int = 5000,
    criteria: Sequence[str] = CRITERIA_ORDER,
    n_test: int = 10_000,
    random_state: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FS Fig. 5 (§5.1.1): a numeric split (DiffPC4.5) vs ten equal-width bins (DiffPID3).

    The same rows (same seed) are given to DiffPC4.5 with the numeric attributes and to
    DiffPID3 with each numeric attribute cut into ``n_bins`` equal-width bins of [0, 100],
    which deliberately miss the split point 35. Depth 1, B = 0.2, no noise.

    Returns
    -------
    DataFrame
        One row per (size, run, criterion, variant): ``n``, ``run``, ``criterion``,
        ``variant`` (``"numeric"`` or ``"binned"``), ``algorithm``, ``accuracy``.
    """
    budget = check_epsilon(budget, "budget")
    runs = check_int(runs, "runs", minimum=1)
    sizes = _check_sizes(sizes, size_bound)
    seed0 = _check_random_state(random_state)
    rows = []
    settings = [(n, r) for n in sizes for r in range(runs)]
    for n, run in _iterate(settings, progress, len(settings), "FS Fig. 5"):
        data_seed = _seed(seed0, "fig5", n, run)
        variants = {
            "numeric": fs_numeric_split_data(
                n, p_noise=p_noise, n_test=n_test, random_state=data_seed
            ),
            "binned": fs_numeric_split_data(
                n, p_noise=p_noise, n_test=n_test, n_bins=n_bins, random_state=data_seed
            ),
        }
        for variant, data in variants.items():
            assert data.test is not None
            codes = data.domain.encode(data.test.X)
            labels = data.domain.encode_labels(data.test.y)
            for criterion in criteria:
                base = "DiffPC4.5" if variant == "numeric" else f"DiffPID3 ({n_bins} bins)"
                name = f"{base}-{_crit_name(criterion)}"
                model = DiffPID3Classifier(
                    budget,
                    max_depth=1,
                    criterion=criterion,
                    size_bound=size_bound,
                    domain=data.domain,
                    random_state=_seed(seed0, "fig5", n, run, name),
                ).fit(data.X, data.y)
                accuracy, _ = evaluate_encoded(model, codes, labels)
                rows.append(
                    {
                        "n": n,
                        "run": run,
                        "criterion": criterion,
                        "variant": variant,
                        "algorithm": name,
                        "accuracy": accuracy,
                    }
                )
    return pd.DataFrame(rows)


# =============================================================================== FS Fig. 6-7
def fs_random_trees(
    sizes: Sequence[int] = (1000, 2500, 5000, 10_000, 25_000, 50_000),
    *,
    numeric: bool = False,
    n_trees: int = 3,
    runs_per_tree: int = 2,
    budget: float = 1.0,
    depth: int = 5,
    p_noise: float = 0.1,
    size_bound: int = 50_000,
    criteria: Sequence[str] = CRITERIA_ORDER,
    sulq: bool | None = None,
    prune: bool | None = None,
    n_test: int = 10_000,
    random_state: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FS Fig. 6 (``numeric=False``) and Fig. 7 (``numeric=True``): random depth-5 trees.

    FS §5.1.2: B = 1, a generating tree of depth 5 with p_leaf = 0.3 over ten binary
    attributes (Fig. 6) or seven binary and three numeric ones (Fig. 7), binary class,
    N = 50,000; FS used 10 trees × 20 runs per size, we default to fewer (``n_trees`` ×
    ``runs_per_tree``). The paper does not give p_noise for these figures; 0.1 as in §5.1.1.

    Parameters
    ----------
    numeric : bool
        Fig. 7's three numeric attributes (DiffPC4.5) instead of Fig. 6's binary ones.
    sulq : bool, optional
        Include the SuLQ-based ID3 (nominal only); default: for Fig. 6.
    prune : bool, optional
        Prune with noisy counts (FS Alg. 3); default: for Fig. 7 (DiffPC4.5).

    Other Parameters
    ----------------
    sizes, budget, depth, p_noise, size_bound, criteria, n_test, random_state, progress
        As :func:`fs_table1` (``depth`` is the maximal depth d of the learners).

    Returns
    -------
    DataFrame
        One row per (size, tree, run, algorithm): ``n``, ``tree``, ``run``, ``algorithm``,
        ``accuracy``, ``depth`` and ``n_leaves`` of the induced tree.
    """
    budget = check_epsilon(budget, "budget")
    n_trees = check_int(n_trees, "n_trees", minimum=1)
    runs_per_tree = check_int(runs_per_tree, "runs_per_tree", minimum=1)
    depth = check_int(depth, "depth", minimum=1)
    sizes = _check_sizes(sizes, size_bound)
    seed0 = _check_random_state(random_state)
    sulq = (not numeric) if sulq is None else bool(sulq)
    if sulq and numeric:
        raise InvalidParameterError("the SuLQ-based ID3 (FS Alg. 1) handles nominal data only")
    prune = numeric if prune is None else bool(prune)
    base = "DiffPC4.5" if numeric else "DiffPID3"
    rows = []
    settings = [(n, t, r) for n in sizes for t in range(n_trees) for r in range(runs_per_tree)]
    label = f"FS Fig. {7 if numeric else 6}"
    for n, tree, run in _iterate(settings, progress, len(settings), label):
        data = _random_tree_run(
            n, seed0, tree, run, numeric=numeric, depth=depth, p_noise=p_noise, n_test=n_test
        )
        domain = data.domain
        assert data.test is not None
        codes = domain.encode(data.test.X)
        labels = domain.encode_labels(data.test.y)
        seeds = functools.partial(_seed, seed0, "fig67", n, tree, run)
        models = _fig67_models(
            base, criteria, sulq, budget, depth, size_bound, prune, domain, seeds
        )
        for name, model in models:
            model.fit(data.X, data.y)
            accuracy, _ = evaluate_encoded(model, codes, labels)
            rows.append(
                {
                    "n": n,
                    "tree": tree,
                    "run": run,
                    "algorithm": name,
                    "accuracy": accuracy,
                    "depth": model.tree_.depth,
                    "n_leaves": model.tree_.n_leaves,
                }
            )
    return pd.DataFrame(rows)



def _fig67_models(
    base: str,
    criteria: Sequence[str],
    sulq: bool,
    budget: float,
    depth: int,
    size_bound: int,
    prune: bool,
    domain: Domain,
    seed: Callable[[str], int],
) -> list[tuple[str, Any]]:
    """The (name, estimator) pairs of one FS Fig. 6/7 run, each with its own seed."""
    models: list[tuple[str, Any]] = []
    for criterion in criteria:
        name = f"{base}-{_crit_name(criterion)}"
        model = DiffPID3Classifier(
            budget, max_depth=depth, criterion=criterion, size_bound=size_bound,
            prune=prune, domain=domain, random_state=seed(name),
        )
        models.append((name, model))
    if sulq:
        name = "SuLQ-based ID3"
        models.append(
            (name, SuLQID3Classifier(budget, max_depth=depth, domain=domain,
                                     random_state=seed(name)))
        )
    return models


def _random_tree_run(
    n: int,
    seed0: int,
    tree: int,
    run: int,
    *,
    numeric: bool,
    depth: int,
    p_noise: float,
    n_test: int,
) -> Dataset:
    """Training rows of one run drawn from generating tree ``tree`` (shared across runs).

    :func:`~dpviz.data.synthetic.fs_random_tree_data` derives the tree, the rows and the test
    set from one seed; to keep the tree and the test set fixed across runs we generate
    ``n * (run + 1)`` rows from the tree seed and keep the last ``n`` (independent rows of
    the same tree), which is exact since the rows are i.i.d. given the tree.
    """
    data = fs_random_tree_data(
        n * (run + 1),
        depth=depth,
        p_noise=p_noise,
        n_numeric=3 if numeric else 0,
        n_test=n_test,
        random_state=_seed(seed0, "fig67-tree", tree),
    )
    keep = slice(n * run, n * (run + 1))
    return Dataset(
        name=data.name,
        X=data.X.iloc[keep].reset_index(drop=True),
        y=data.y.iloc[keep].reset_index(drop=True),
        domain=data.domain,
        citation=data.citation,
        description=data.description,
        url=data.url,
        test=data.test,
    )


# =============================================================================== FS Fig. 8
def fs_fig8(
    budgets: Sequence[float] = (1.0, 2.0, 3.0, 5.0, 7.5, 10.0),
    *,
    criteria: Sequence[str] = CRITERIA_ORDER,
    max_depth: int = 5,
    size_bound: int = 50_000,
    prune: bool = True,
    n_splits: int = 10,
    repeats: int = 1,
    data: Dataset | None = None,
    random_state: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FS Fig. 8 (§5.2): accuracy vs budget B on Adult, depth ≤ 5, 10-fold cross-validation.

    Adult with train and test merged and the rows with missing values dropped (45,222
    rows, 6 numeric and 8 nominal attributes; N = 50,000), DiffPC4.5 (numeric split points
    by the exponential mechanism, ε = B / ((2+6)·5 + 2), pruning with noisy counts) with the
    Max, Gini and InfoGain criteria. FS ran 10 × 10-fold cross-validation; ``repeats``
    sets how many here.

    Parameters
    ----------
    budgets : sequence of float
        The budgets B (FS: "larger values [than 1] to compensate for the relatively small
        dataset size"; the exact values of the figure are not in the text).
    data : Dataset, optional
        Default ``dpviz.load("adult")``.

    Other Parameters
    ----------------
    criteria, max_depth, size_bound, prune, n_splits, repeats, random_state, progress
        As :func:`fs_random_trees` (``n_splits`` folds, ``repeats`` shuffles).

    Returns
    -------
    DataFrame
        One row per (budget, criterion, repeat, fold): ``budget``, ``criterion``,
        ``algorithm``, ``repeat``, ``fold``, ``accuracy``, ``n_leaves``.
    """
    budgets = [check_epsilon(b, "budgets") for b in budgets]
    n_splits = check_int(n_splits, "n_splits", minimum=2)
    repeats = check_int(repeats, "repeats", minimum=1)
    seed0 = _check_random_state(random_state)
    data = load("adult") if data is None else data
    domain = data.domain
    if len(data.y) > size_bound:
        raise InvalidParameterError(f"size_bound ({size_bound}) is below the data size")
    codes = domain.encode(data.X)
    labels = domain.encode_labels(data.y)
    rows = []
    folds = []
    for repeat in range(repeats):
        splitter = StratifiedKFold(
            n_splits, shuffle=True, random_state=_seed(seed0, "fig8", repeat) % 2**31
        )
        folds += [(repeat, k, tr, te) for k, (tr, te) in enumerate(splitter.split(codes, labels))]
    settings = [(f, b, c) for f in folds for b in budgets for c in criteria]
    for (repeat, k, train, test), budget, criterion in _iterate(
        settings, progress, len(settings), "FS Fig. 8"
    ):
        name = f"DiffPC4.5-{_crit_name(criterion)}"
        model = DiffPID3Classifier(
            budget,
            max_depth=max_depth,
            criterion=criterion,
            size_bound=size_bound,
            prune=prune,
            domain=domain,
            random_state=_seed(seed0, "fig8", repeat, k, str(budget), criterion),
        )
        model.fit(data.X.iloc[train], data.y.iloc[train])
        accuracy, _ = evaluate_encoded(model, codes[test], labels[test])
        rows.append(
            {
                "budget": budget,
                "criterion": criterion,
                "algorithm": name,
                "repeat": repeat,
                "fold": k,
                "accuracy": accuracy,
                "n_leaves": model.tree_.n_leaves,
            }
        )
    return pd.DataFrame(rows)


# =============================================================================== JPW Table I
def _jpw_models(
    dataset: str, domain: Domain, epsilon: float, depth: int, seed: Callable[[str], int]
) -> list[tuple[str, Any]]:
    return [
        (
            "private ID3 (SuLQ counts, ID3 stopping)",
            SuLQID3Classifier(
                epsilon,
                max_depth=depth,
                stopping="id3",
                domain=domain,
                random_state=seed("jpw"),
            ),
        ),
        (
            "SuLQ-based ID3 (FS stopping rule)",
            SuLQID3Classifier(epsilon, max_depth=depth, domain=domain, random_state=seed("fs")),
        ),
        (
            "ID3 (non-private)",
            DiffPID3Classifier(
                math.inf,
                max_depth=None,
                criterion="infogain",
                domain=domain,
                random_state=seed("id3"),
            ),
        ),
    ]


def jpw_table1(
    datasets: Sequence[str] = ("nursery", "votes", "mushroom"),
    *,
    epsilon: float = 1.0,
    max_depth: dict[str, int] | None = None,
    runs: int = 3,
    test_size: float = 1 / 3,
    random_state: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """JPW Table I: a private ID3 from noisy counts at ε' = 1 on Nursery, Votes and Mushroom.

    JPW (§III) built ID3 from noisy counts with ε' = 1 split over all queries and found
    "the vast majority of the test instances were left unclassified". We run the SuLQ-based
    ID3 (FS Alg. 1: the same noisy-count ID3 of Blum et al.'s SuLQ framework) with B = ε'
    in two versions: with ID3's own stopping rule read from noisy counts (a node is a leaf
    only when its noisy count is ≤ 0, or at the depth cap :data:`JPW_MAX_DEPTH`), which
    reproduces JPW's tree, and with FS's stopping rule N_T/(t|C|) < √2/ε, which shows
    what FS's heuristic buys. A test row is unclassified when it ends in a leaf with a
    noisy count ≤ 0 (ID3 has no class for a branch no row reached); accuracy counts it as
    wrong, as JPW did. How JPW counted their queries (q = 176, 97, 267) is not stated, so
    only the qualitative result can be compared (see docs/papers.md (errata)).

    Parameters
    ----------
    datasets : sequence of str
        Data sets for :func:`dpviz.load` (Mushroom without the stalk-root attribute, as JPW).
    epsilon : float, default 1.0
        ε' (the total budget B).
    max_depth : dict, optional
        Depth cap per data set; default :data:`JPW_MAX_DEPTH`.
    runs : int, default 3
        Random train/test splits per data set (``test_size`` of the rows held out).
    test_size : float, default 1/3
        Share of rows held out.
    random_state : int, default 0
        Master seed.
    progress : bool, default False
        Show a tqdm progress bar.

    Returns
    -------
    DataFrame
        One row per (data set, run, algorithm): ``dataset``, ``run``, ``algorithm``,
        ``max_depth``, ``accuracy`` (unclassified rows counted as wrong),
        ``unclassified``, ``misclassified`` (classified but wrong) and ``n_leaves``.
    """
    epsilon = check_epsilon(epsilon, "epsilon")
    runs = check_int(runs, "runs", minimum=1)
    seed0 = _check_random_state(random_state)
    depths = dict(JPW_MAX_DEPTH if max_depth is None else max_depth)
    settings = [(name, run) for name in datasets for run in range(runs)]
    loaded: dict[str, Dataset] = {}
    rows = []
    for name, run in _iterate(settings, progress, len(settings), "JPW Table I"):
        if name not in loaded:
            loaded[name] = load(name)
        data = loaded[name]
        domain = data.domain
        depth = depths.get(name, len(domain))
        x_train, x_test, y_train, y_test = train_test_split(
            data.X,
            data.y,
            test_size=test_size,
            random_state=_seed(seed0, "jpw", name, run) % 2**31,
        )
        codes = domain.encode(x_test)
        labels = domain.encode_labels(y_test)
        seeds = functools.partial(_seed, seed0, "jpw", name, run)
        for algorithm, model in _jpw_models(name, domain, epsilon, depth, seeds):
            model.fit(x_train, y_train)
            predicted, unclassified_rows = model.label_and_unclassified_encoded(codes)
            unclassified = float(unclassified_rows.mean())
            correct = (predicted == labels) & ~unclassified_rows
            rows.append(
                {
                    "dataset": name,
                    "run": run,
                    "algorithm": algorithm,
                    "max_depth": model.max_depth,
                    "accuracy": float(correct.mean()),
                    "unclassified": unclassified,
                    "misclassified": float(1.0 - correct.mean() - unclassified),
                    "n_leaves": model.tree_.n_leaves,
                }
            )
    return pd.DataFrame(rows)


def jpw_table1_comparison(runs: pd.DataFrame) -> pd.DataFrame:
    """Our JPW Table I next to theirs: one row per (data set, algorithm), percentages.

    Returns
    -------
    DataFrame
        ``dataset``, ``algorithm``, ``accuracy``, ``unclassified``, ``misclassified``
        (our means, %), ``runs``, and JPW's ``jpw_id3`` and ``jpw_private`` accuracies.
    """
    grouped = runs.groupby(["dataset", "algorithm"], sort=False)
    out = grouped[["accuracy", "unclassified", "misclassified"]].mean() * 100
    out["runs"] = grouped.size()
    out = out.reset_index()
    paper = JPW_TABLE1.rename(
        columns={"id3_accuracy": "jpw_id3", "private_accuracy": "jpw_private"}
    )
    return out.merge(paper[["dataset", "jpw_id3", "jpw_private"]], on="dataset", how="left")
