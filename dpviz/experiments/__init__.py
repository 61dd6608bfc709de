"""The experiment layer: every evaluation in dpviz goes through here.

The runner, the learners' registry, the reproductions, notebook 07's comparison and the
shipped results. Estimators are used through their public API only.
"""

from dpviz.experiments.runner import holdout_accuracy

__all__ = ["holdout_accuracy"]
