"""Reproductions of Friedman & Schuster (KDD 2010, Table 1, Figs. 4-8) and JPW's Table I.

One row per run. Each (setting, run) and algorithm gets its own seed from ``random_state``
(``SeedSequence``, :func:`_runs`), so adding one changes no other result. Accuracies are
fractions.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import re
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpviz.data import catalogue
from dpviz.data.published import FS_TABLE1, FS_TABLE1_ALGORITHMS, JPW_TABLE1
from dpviz.data.synthetic import fs_numeric_split_data, fs_random_tree_data, fs_single_split_data
from dpviz.data.uci import Dataset, load
from dpviz.domain import Domain, Encoded
from dpviz.errors import InvalidParameterError
from dpviz.validation import check_epsilon, check_int

if TYPE_CHECKING:  # the estimators and scikit-learn load with the first fit: the notebooks'
    # setup cells and first charts read this module's tables only
    from dpviz.trees.id3 import DiffPID3Classifier, SuLQID3Classifier

#: JPW Table I: the private ID3's depth cap per data set (Mushroom's noisy tree grows
#: geometrically beyond depth 5 without FS's stopping rule).
JPW_MAX_DEPTH: dict[str, int] = {"nursery": 8, "votes": 16, "mushroom": 5}
CRITERIA_ORDER: tuple[str, ...] = ("infogain", "gini", "max")
_CRITERION_NAMES = {"infogain": "InfoGain", "gini": "Gini", "max": "Max"}


# =============================================================================== helpers
def _seed(random_state: int, *keys: int | str) -> int:
    """A reproducible 63-bit seed for ``keys`` (strings hashed with CRC32)."""
    ints = [zlib.crc32(k.encode()) if isinstance(k, str) else int(k) for k in keys]
    state = np.random.SeedSequence([int(random_state), *ints]).generate_state(2, np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


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

    An unclassified row counts as correct when its fallback label is right.
    """
    predicted, unclassified = _labels_and_unclassified(model, codes)
    return float(np.mean(predicted == labels)), float(unclassified.mean())


def _labels_and_unclassified(model: Any, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The class codes a fitted FS estimator gives encoded rows, and its unclassified mask."""
    rows = Encoded(codes, model.domain_)
    predicted = model.domain_.encode_labels(model.predict(rows))
    return predicted, model.unclassified_mask(rows)


def split_attribute(data: Dataset) -> str | None:
    """The generating split attribute named in an FS single-split data set's description."""
    match = re.search(r"decided by (\w+)", data.description)
    return match.group(1) if match else None


def _test_set(data: Dataset) -> tuple[np.ndarray, np.ndarray]:
    assert data.test is not None
    return data.domain.encode(data.test.X), data.domain.encode_labels(data.test.y)


def _runs(
    label: str, tag: str, names: Sequence[str], settings: Sequence[tuple], random_state: int,
    progress: bool, fits: Callable[..., Iterator[dict]],
) -> pd.DataFrame:
    """The loop of every reproduction here: the records of ``fits(*setting, seed)``, per setting.

    Each record is led by the setting's ``names``; ``seed(*keys)`` is the setting's own seed of
    ``keys`` (the data's with none): ``_seed(random_state, tag, *setting, *keys)``.
    """
    seed0 = check_int(random_state, "random_state", minimum=0)
    return pd.DataFrame([
        {**dict(zip(names, setting, strict=True)), **record}
        for setting in tqdm(settings, disable=not progress, desc=label)
        for record in fits(*setting, functools.partial(_seed, seed0, tag, *setting))
    ])


def _split_runs(
    label: str, tag: str, sizes: Sequence[int], runs: int, random_state: int, progress: bool,
    size_bound: int, fits: Callable[..., Iterator[dict]],
) -> pd.DataFrame:
    """FS Table 1 and Figs. 4-5: :func:`_runs` over (n, run), ``fits(n, run, seed)``."""
    runs = check_int(runs, "runs", minimum=1)
    settings = [(n, r) for n in _check_sizes(sizes, size_bound) for r in range(runs)]
    return _runs(label, tag, ("n", "run"), settings, random_state, progress, fits)


def fs_estimator(
    criterion: str, epsilon: float, depth: int | None, *, domain: Domain,
    size_bound: int | None = None, random_state: int, prune: bool = False,
) -> DiffPID3Classifier | SuLQID3Classifier:
    """DiffPID3 with ``criterion`` (DiffPC4.5 on numeric data), or SuLQ-ID3 for ``"sulq"``."""
    from dpviz.trees.id3 import DiffPID3Classifier, SuLQID3Classifier

    if criterion == "sulq":
        return SuLQID3Classifier(epsilon, depth, domain=domain, random_state=random_state)
    return DiffPID3Classifier(epsilon, depth, criterion=criterion, size_bound=size_bound,
                              prune=prune, domain=domain, random_state=random_state)


# =============================================================================== FS Table 1
def _table1_model(algorithm: str, budget: float, size_bound: int, domain: Domain, seed: int) -> Any:
    if algorithm == "ID3":
        return fs_estimator("infogain", math.inf, None, domain=domain, random_state=seed)
    criterion = "sulq" if algorithm == "SuLQ-based ID3" else algorithm[len("DiffPID3-"):].lower()
    return fs_estimator(criterion, budget, 1, domain=domain, size_bound=size_bound,
                        random_state=seed)


def fs_table1(
    sizes: Sequence[int] = (1000, 2000, 3000, 4000, 5000), runs: int = 200, *,
    algorithms: Sequence[str] = FS_TABLE1_ALGORITHMS, budget: float = 0.1, p_noise: float = 0.1,
    size_bound: int = 5000, n_test: int = 10_000, random_state: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """FS Table 1 (§5.1.1): each algorithm at depth 1 on a single binary split, per size and run.

    Scored on ``n_test`` noiseless rows; "ID3" is non-private with unlimited depth.
    """
    budget = check_epsilon(budget, "budget")
    unknown = [a for a in algorithms if a not in FS_TABLE1_ALGORITHMS]
    if unknown:
        raise InvalidParameterError(
            f"algorithms must be among {list(FS_TABLE1_ALGORITHMS)}, got {unknown}"
        )

    def fits(n: int, run: int, seed: Callable[..., int]) -> Iterator[dict]:
        data = fs_single_split_data(n, p_noise=p_noise, n_test=n_test, random_state=seed())
        codes, labels = _test_set(data)
        train = Encoded(data.domain.encode(data.X), data.domain)  # encoded once for all
        for algorithm in algorithms:
            model = _table1_model(algorithm, budget, size_bound, data.domain, seed(algorithm))
            model.fit(train, data.y)
            yield {"algorithm": algorithm, "accuracy": evaluate_encoded(model, codes, labels)[0],
                   "split_found": model.tree_.root.attribute == split_attribute(data)}

    return _split_runs("FS Table 1", "table1", sizes, runs, random_state, progress, size_bound,
                       fits)


def percent_summary(
    runs: pd.DataFrame, by: Sequence[str] = ("n", "algorithm"), value: str = "accuracy"
) -> pd.DataFrame:
    """Mean and standard deviation (ddof 1) in % of ``value`` per group, ``sem`` and ``runs``."""
    grouped = runs.groupby(list(by), sort=False)[value]
    out = grouped.agg(["mean", "std", "size"]).reset_index()
    out["mean"] *= 100
    out["std"] = out["std"].fillna(0.0) * 100
    out["sem"] = out["std"] / np.sqrt(out["size"])
    return out.rename(columns={"size": "runs"})


def table1_comparison(runs: pd.DataFrame) -> pd.DataFrame:
    """Our FS Table 1 next to the paper's, per (n, algorithm): ours and paper mean and std (%)."""
    ours = percent_summary(runs).rename(columns={"mean": "ours_mean", "std": "ours_std"})
    paper = FS_TABLE1.rename(columns={"mean": "paper_mean", "std": "paper_std"})
    merged = ours.merge(paper, on=["n", "algorithm"], how="left")
    return merged[["n", "algorithm", "ours_mean", "ours_std", "runs", "paper_mean", "paper_std"]]


def table1_markdown(runs: pd.DataFrame) -> str:
    """A markdown table in FS Table 1's layout: "ours ± std (paper ± std)" per cell."""
    comparison = table1_comparison(runs)
    algorithms = [a for a in FS_TABLE1_ALGORITHMS if a in set(comparison["algorithm"])]

    def cell(r: pd.Series) -> str:
        ours = f"{r['ours_mean']:.1f} ± {r['ours_std']:.1f}"
        paper = f"{ours} ({r['paper_mean']:.1f} ± {r['paper_std']:.1f})"
        return ours if pd.isna(r["paper_mean"]) else paper

    cells = comparison.assign(cell=comparison.apply(cell, axis=1)).pivot(
        index="n", columns="algorithm", values="cell").reindex(columns=algorithms).fillna("")
    lines = ["| Number of samples | " + " | ".join(algorithms) + " |",
             "|" + "---|" * (len(algorithms) + 1)]
    lines += [f"| {n} | " + " | ".join(row) + " |" for n, row in cells.iterrows()]
    n_runs = int(comparison["runs"].max())
    lines += ["", f"Ours ± standard deviation over {n_runs} runs per size (FS's published values "
              "in parentheses, 200 runs), accuracy in %."]
    return "\n".join(lines)


# =============================================================================== FS Fig. 4-5
def fs_fig4(
    sizes: Sequence[int] = (1000, 2000, 3000, 4000, 5000), runs: int = 50, *, budget: float = 0.1,
    p_noise: float = 0.1, size_bound: int = 5000, criteria: Sequence[str] = CRITERIA_ORDER,
    prune: bool = False, references: bool = True, n_test: int = 10_000, random_state: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FS Fig. 4 (§5.1.1): DiffPC4.5 and J48-like trees on a numeric split at 35 on [0, 100]."""
    from sklearn.tree import DecisionTreeClassifier

    budget = check_epsilon(budget, "budget")

    def fits(n: int, run: int, seed: Callable[..., int]) -> Iterator[dict]:
        data = fs_numeric_split_data(n, p_noise=p_noise, n_test=n_test, random_state=seed())
        domain = data.domain
        codes, labels = _test_set(data)
        truth = split_attribute(data)
        for criterion in criteria:
            name = f"DiffPC4.5-{_CRITERION_NAMES[criterion]}"
            model = fs_estimator(criterion, budget, 1, domain=domain, size_bound=size_bound,
                                 random_state=seed(name), prune=prune).fit(data.X, data.y)
            root = model.tree_.root
            found = root.attribute == truth
            yield {"algorithm": name, "accuracy": evaluate_encoded(model, codes, labels)[0],
                   "split_found": found, "split_point": root.threshold if found else math.nan}
        if references:
            train_codes, train_labels = domain.encode(data.X), domain.encode_labels(data.y)
            for pruned in (False, True):  # non-private references: entropy trees on the codes
                name = f"J48-like (scikit-learn, {'pruned' if pruned else 'unpruned'})"
                pruning = {"min_samples_leaf": 2, "ccp_alpha": 0.005} if pruned else {}
                tree = DecisionTreeClassifier(criterion="entropy", random_state=seed(name) % 2**31,
                                              **pruning).fit(train_codes, train_labels)
                found = bool(tree.tree_.feature[0] == domain.index(truth)) if truth else False
                yield {"algorithm": name,
                       "accuracy": float((tree.predict(codes) == labels).mean()),
                       "split_found": found,
                       "split_point": float(tree.tree_.threshold[0]) if found else math.nan}

    return _split_runs("FS Fig. 4", "fig4", sizes, runs, random_state, progress, size_bound, fits)


def fs_fig5(
    sizes: Sequence[int] = (500, 1000, 2000, 3000, 4000, 5000), runs: int = 50, *,
    budget: float = 0.2, n_bins: int = 10, p_noise: float = 0.0, size_bound: int = 5000,
    criteria: Sequence[str] = CRITERIA_ORDER, n_test: int = 10_000, random_state: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """FS Fig. 5 (§5.1.1): a numeric split (DiffPC4.5) against ``n_bins`` bins (DiffPID3).

    The same rows for both; the bins miss 35; depth 1, B = 0.2, no noise.
    """
    budget = check_epsilon(budget, "budget")

    def fits(n: int, run: int, seed: Callable[..., int]) -> Iterator[dict]:
        for variant, bins in (("numeric", {}), ("binned", {"n_bins": n_bins})):
            data = fs_numeric_split_data(n, p_noise=p_noise, n_test=n_test, random_state=seed(),
                                         **bins)
            codes, labels = _test_set(data)
            base = "DiffPC4.5" if variant == "numeric" else f"DiffPID3 ({n_bins} bins)"
            for criterion in criteria:
                name = f"{base}-{_CRITERION_NAMES[criterion]}"
                model = fs_estimator(criterion, budget, 1, domain=data.domain,
                                     size_bound=size_bound, random_state=seed(name))
                model.fit(data.X, data.y)
                yield {"criterion": criterion, "variant": variant, "algorithm": name,
                       "accuracy": evaluate_encoded(model, codes, labels)[0]}

    return _split_runs("FS Fig. 5", "fig5", sizes, runs, random_state, progress, size_bound, fits)


# =============================================================================== FS Fig. 6-7
def fs_random_trees(
    sizes: Sequence[int] = (1000, 2500, 5000, 10_000, 25_000, 50_000), *, numeric: bool = False,
    n_trees: int = 3, runs_per_tree: int = 2, budget: float = 1.0, depth: int = 5,
    p_noise: float = 0.1, size_bound: int = 50_000, criteria: Sequence[str] = CRITERIA_ORDER,
    sulq: bool | None = None, prune: bool | None = None, n_test: int = 10_000,
    random_state: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """FS Fig. 6 (binary attributes) and Fig. 7 (``numeric``): random depth-5 trees, B = 1.

    ``n_trees`` × ``runs_per_tree`` runs per size (FS: 10 × 20); ``sulq`` and ``prune``
    default to the figure's.
    """
    budget = check_epsilon(budget, "budget")
    n_trees = check_int(n_trees, "n_trees", minimum=1)
    runs_per_tree = check_int(runs_per_tree, "runs_per_tree", minimum=1)
    depth = check_int(depth, "depth", minimum=1)
    sizes = _check_sizes(sizes, size_bound)
    seed0 = check_int(random_state, "random_state", minimum=0)
    sulq = (not numeric) if sulq is None else bool(sulq)
    if sulq and numeric:
        raise InvalidParameterError("the SuLQ-based ID3 (FS Alg. 1) handles nominal data only")
    prune = numeric if prune is None else bool(prune)
    base = "DiffPC4.5" if numeric else "DiffPID3"
    settings = [(n, t, r) for n in sizes for t in range(n_trees) for r in range(runs_per_tree)]

    def fits(n: int, tree: int, run: int, seed: Callable[..., int]) -> Iterator[dict]:
        data = _random_tree_run(
            n, seed0, tree, run, numeric=numeric, depth=depth, p_noise=p_noise, n_test=n_test
        )
        codes, labels = _test_set(data)
        names = {f"{base}-{_CRITERION_NAMES[c]}": c for c in criteria}
        for name, c in {**names, **({"SuLQ-based ID3": "sulq"} if sulq else {})}.items():
            model = fs_estimator(c, budget, depth, domain=data.domain, size_bound=size_bound,
                                 random_state=seed(name), prune=prune).fit(data.X, data.y)
            yield {"algorithm": name, "accuracy": evaluate_encoded(model, codes, labels)[0],
                   "depth": model.tree_.depth, "n_leaves": model.tree_.n_leaves}

    return _runs(f"FS Fig. {7 if numeric else 6}", "fig67", ("n", "tree", "run"), settings,
                 seed0, progress, fits)


def _random_tree_run(
    n: int, seed0: int, tree: int, run: int, *, numeric: bool, depth: int, p_noise: float,
    n_test: int,
) -> Dataset:
    """Training rows of one run of generating tree ``tree`` (tree and test set shared by runs).

    ``n * (run + 1)`` rows from the tree's seed, keeping the last ``n``: i.i.d. given the tree.
    """
    data = fs_random_tree_data(
        n * (run + 1), depth=depth, p_noise=p_noise, n_numeric=3 if numeric else 0,
        n_test=n_test, random_state=_seed(seed0, "fig67-tree", tree),
    )
    keep = slice(n * run, n * (run + 1))
    return dataclasses.replace(data, X=data.X.iloc[keep].reset_index(drop=True),
                               y=data.y.iloc[keep].reset_index(drop=True))


# =============================================================================== FS Fig. 8
def fs_fig8(
    budgets: Sequence[float] = (1.0, 2.0, 3.0, 5.0, 7.5, 10.0), *,
    criteria: Sequence[str] = CRITERIA_ORDER, max_depth: int = 5, size_bound: int = 50_000,
    prune: bool = True, n_splits: int = 10, repeats: int = 1, data: Dataset | None = None,
    random_state: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """FS Fig. 8 (§5.2): accuracy against B on Adult, DiffPC4.5 pruned, depth ≤ 5, 10-fold.

    One row per (budget, criterion, repeat, fold); FS ran 10 repeats.
    """
    from sklearn.model_selection import StratifiedKFold

    budgets = [check_epsilon(b, "budgets") for b in budgets]
    n_splits = check_int(n_splits, "n_splits", minimum=2)
    repeats = check_int(repeats, "repeats", minimum=1)
    seed0 = check_int(random_state, "random_state", minimum=0)
    data = load("adult") if data is None else data
    domain = data.domain
    if len(data.y) > size_bound:
        raise InvalidParameterError(f"size_bound ({size_bound}) is below the data size")
    codes = domain.encode(data.X)
    labels = domain.encode_labels(data.y)
    folds = {}
    for repeat in range(repeats):
        splitter = StratifiedKFold(
            n_splits, shuffle=True, random_state=_seed(seed0, "fig8", repeat) % 2**31
        )
        folds.update({(repeat, k): split for k, split in enumerate(splitter.split(codes, labels))})

    def fits(repeat: int, k: int, seed: Callable[..., int]) -> Iterator[dict]:
        train, test = folds[repeat, k]
        for budget, criterion in itertools.product(budgets, criteria):
            model = fs_estimator(criterion, budget, max_depth, domain=domain, size_bound=size_bound,
                                 random_state=seed(str(budget), criterion), prune=prune)
            model.fit(data.X.iloc[train], data.y.iloc[train])
            yield {"budget": budget, "criterion": criterion,
                   "algorithm": f"DiffPC4.5-{_CRITERION_NAMES[criterion]}",
                   "accuracy": evaluate_encoded(model, codes[test], labels[test])[0],
                   "n_leaves": model.tree_.n_leaves}

    runs = _runs("FS Fig. 8", "fig8", ("repeat", "fold"), list(folds), seed0, progress, fits)
    return runs[["budget", "criterion", "algorithm", "repeat", "fold", "accuracy", "n_leaves"]]


# =============================================================================== JPW Table I
def jpw_table1(
    datasets: Sequence[str] = catalogue.dataset_ids("nursery", "votes", "mushroom"), *,
    epsilon: float = 1.0, max_depth: dict[str, int] | None = None, runs: int = 3,
    test_size: float = 1 / 3, random_state: int = 0, progress: bool = False,
) -> pd.DataFrame:
    """JPW Table I: the SuLQ-based ID3 at ε' = 1 with ID3's and with FS's stopping rule.

    A test row in a leaf of noisy count ≤ 0 is unclassified, and counted wrong.
    """
    from sklearn.model_selection import train_test_split

    from dpviz.trees.id3 import SuLQID3Classifier

    epsilon = check_epsilon(epsilon, "epsilon")
    runs = check_int(runs, "runs", minimum=1)
    depths = dict(JPW_MAX_DEPTH if max_depth is None else max_depth)

    def fits(name: str, run: int, seed: Callable[..., int]) -> Iterator[dict]:
        data = load(name)
        domain = data.domain
        depth = depths.get(name, len(domain))
        x_train, x_test, y_train, y_test = train_test_split(
            data.X, data.y, test_size=test_size, random_state=seed() % 2**31
        )
        codes, labels = domain.encode(x_test), domain.encode_labels(y_test)
        models = {
            "private ID3 (SuLQ counts, ID3 stopping)": SuLQID3Classifier(
                epsilon, max_depth=depth, stopping="id3", domain=domain, random_state=seed("jpw")),
            "SuLQ-based ID3 (FS stopping rule)": SuLQID3Classifier(
                epsilon, max_depth=depth, domain=domain, random_state=seed("fs")),
            "ID3 (non-private)": fs_estimator(
                "infogain", math.inf, None, domain=domain, random_state=seed("id3")),
        }
        for algorithm, model in models.items():
            model.fit(x_train, y_train)
            predicted, unclassified_rows = _labels_and_unclassified(model, codes)
            unclassified = float(unclassified_rows.mean())
            correct = (predicted == labels) & ~unclassified_rows
            yield {"algorithm": algorithm, "max_depth": model.max_depth,
                   "accuracy": float(correct.mean()), "unclassified": unclassified,
                   "misclassified": float(1.0 - correct.mean() - unclassified),
                   "n_leaves": model.tree_.n_leaves}

    settings = [(name, run) for name in datasets for run in range(runs)]
    return _runs("JPW Table I", "jpw", ("dataset", "run"), settings, random_state, progress, fits)


def jpw_table1_comparison(runs: pd.DataFrame) -> pd.DataFrame:
    """Our JPW Table I (means in %, ``runs``) next to JPW's ``jpw_id3`` and ``jpw_private``."""
    grouped = runs.groupby(["dataset", "algorithm"], sort=False)
    out = grouped[["accuracy", "unclassified", "misclassified"]].mean() * 100
    out["runs"] = grouped.size()
    paper = JPW_TABLE1.rename(
        columns={"id3_accuracy": "jpw_id3", "private_accuracy": "jpw_private"}
    )
    return out.reset_index().merge(paper[["dataset", "jpw_id3", "jpw_private"]], on="dataset",
                                   how="left")
