"""The experiment layer: every evaluation in dpviz goes through here.

:mod:`~dpviz.experiments.runner` (sweeps, hold-out fits, explorer curves, the caches),
:mod:`~dpviz.experiments.registry` (the learners by name), the reproductions
(``reproduce_*``, ``fs_runs``, ``semi_supervised``), notebook 07's
:mod:`~dpviz.experiments.comparison`, :mod:`~dpviz.experiments.pareto` and
:mod:`~dpviz.experiments.pitfalls`, and the shipped results
(:mod:`~dpviz.experiments.shipped`). Estimators are used through their public API only.
"""

from dpviz.experiments.runner import holdout_accuracy

__all__ = ["holdout_accuracy"]
