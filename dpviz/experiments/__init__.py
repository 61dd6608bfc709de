"""The experiment layer: every evaluation in dpviz goes through here.

* :mod:`~dpviz.experiments.runner` — sweeps over a grid of settings with (repeated)
  stratified k-fold or hold-out evaluation, the on-disk result cache, and
  :func:`summarize`, the one summary convention (accuracies as fractions);
* :mod:`~dpviz.experiments.registry` — the algorithm registry (name → factory) and
  :func:`make_estimator`;
* :mod:`~dpviz.experiments.semi_supervised` — RDT#'s protocol: private labeled rows,
  public unlabeled rows, RDT# against Private-RDT on the labeled rows only;
* :mod:`~dpviz.experiments.comparison`, :mod:`~dpviz.experiments.pareto`,
  :mod:`~dpviz.experiments.pitfalls` — notebook 07's comparison of every learner, its
  Pareto frontier and winners, and the two pitfalls (budget, tuning).

Reproductions (``dpviz.reproduce_*``), explorers (``dpviz.explore``), the benchmarks
(``bench/``) and the notebooks call these. Nothing here reads fitted private state:
estimators are used through ``fit_encoded`` / ``predict_encoded`` or ``fit`` /
``predict`` only.
"""

from dpviz.experiments.runner import (
    cache,
    cache_dir,
    holdout_accuracy,
    holdout_split,
    summarize,
    sweep,
)

__all__ = ["cache", "cache_dir", "holdout_accuracy", "holdout_split", "summarize", "sweep"]
