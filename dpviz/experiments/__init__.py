"""The experiment layer: every evaluation in dpviz goes through here.

* :mod:`~dpviz.experiments.runner` — sweeps over a grid of settings with
  (repeated) stratified k-fold or hold-out evaluation, the on-disk result cache,
  and :func:`summarize`, the one summary convention (accuracies as fractions).

Reproductions (``dpviz.reproduce_*``), explorers (``dpviz.explore``), the
benchmarks (``bench/``) and the notebooks call these; nothing here reads fitted
private state: estimators are used through ``fit_encoded`` / ``predict_encoded``
or ``fit`` / ``predict`` only.
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
