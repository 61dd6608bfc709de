"""The experiments' speed trick: test rows routed once, then read at every ε.

Where a row lands in the trees of an ensemble is public and the same at every ε (the trees
depend on the seed, the parameters and the public domain only), so an explorer or a
reproduction routes its test rows once (:func:`locate`) and reads each model's release at
them (:func:`predict_located`, :func:`votes_located`): the same class codes as
``predict`` on the rows, bit for bit (tests/test_fast_path.py). Everything here reads the
fitted models' public attributes. Rows are fitted and predicted without encoding them again
through :class:`~dpviz.domain.Encoded`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from dpviz.errors import InvalidParameterError
from dpviz.trees.forest import DPRandomForestClassifier, count_votes, leaf_labels, route_leaves
from dpviz.trees.rdt import PrivateRDTClassifier, classify
from dpviz.trees.rdt_sharp import RDTSharpClassifier
from dpviz.validation import check_bool

__all__ = ["Located", "locate", "predict_located", "votes_located"]

ENSEMBLES = (DPRandomForestClassifier, PrivateRDTClassifier, RDTSharpClassifier)


@dataclass(frozen=True, eq=False)
class Located:
    """Where some encoded rows land in every tree of an ensemble (public: not ε, not labels).

    ``structure`` fixes the trees (the ensemble's kind, height and tree keys; RDT#: centres).
    ``where``, per ensemble: the FI forest's (leaves, offsets, index) of
    :func:`~dpviz.trees.forest.route_leaves`, each tree's leaves sorted by key; Private-RDT's
    routing per tree; RDT#'s cell keys (p + t, n) in E1 ∪ E2.
    """

    structure: tuple
    where: Any


def _structure(model: Any) -> tuple:
    """What fixes where a row lands: the ensemble's kind, height and trees (RDT#: centres)."""
    if isinstance(model, DPRandomForestClassifier | PrivateRDTClassifier):
        return type(model).__name__, model.depth_, tuple(int(t.key) for t in model.trees_)
    trees = model.primary_ + model.secondary_
    return ("RDTSharpClassifier", model.depth_,
            tuple((int(t.tree.key), t.centres.tobytes()) for t in trees))


def locate(model: Any, codes: np.ndarray) -> Located:
    """Where the encoded rows ``codes`` land in every tree of a fitted ensemble."""
    if not isinstance(model, ENSEMBLES):
        raise InvalidParameterError(
            f"locate takes a fitted FI forest, Private-RDT or RDT# model, got {model!r}")
    codes = model.domain_.check_encoded(codes, unknown=model.unknown == "random")[0]
    if isinstance(model, DPRandomForestClassifier):
        leaves, offsets, index = route_leaves(model.trees_, codes)
        # sort each tree's leaves by key, once: the releases look sorted keys up faster
        order = np.concatenate([lo + np.argsort(leaves[lo:hi]) for lo, hi in pairwise(offsets)])
        position = np.empty_like(order)
        position[order] = np.arange(len(order))
        where: Any = (leaves[order], offsets, position[index])
    elif isinstance(model, PrivateRDTClassifier):
        where = [tree.route(codes) for tree in model.trees_]
    else:
        where = np.stack([t.cell_keys(codes) for t in model.primary_ + model.secondary_])
    return Located(_structure(model), where)


def _check(model: Any, located: Located) -> None:
    if not isinstance(located, Located) or located.structure != _structure(model):
        raise InvalidParameterError(
            "located rows must come from locate() on a model with the same trees (same "
            "random_state, parameters and domain; RDT#: the same public rows)")


def votes_located(forest: DPRandomForestClassifier, located: Located) -> np.ndarray:
    """The forest's votes (n, n_classes) for rows given by :func:`locate`: ``forest.votes``."""
    _check(forest, located)
    leaves, offsets, index = located.where
    labels = leaf_labels(forest.leaf_labels_, len(forest.trees_), leaves, offsets)
    return count_votes(labels[index], forest.domain_.n_classes)


def predict_located(model: Any, located: Located) -> np.ndarray:
    """The class codes ``model`` predicts for rows given by :func:`locate` (same trees)."""
    _check(model, located)
    if isinstance(model, DPRandomForestClassifier):
        return np.argmax(votes_located(model, located), axis=1)
    if isinstance(model, PrivateRDTClassifier):
        counts = (r.per_leaf(c) for r, c in zip(located.where, model.leaf_counts_, strict=True))
        clip = check_bool(model.clip_negative, "clip_negative")
        return np.argmax(classify(counts, clip_negative=clip), axis=1)
    releases = model.primary_counts_ + model.secondary_counts_
    return classify(r(c) for r, c in zip(releases, located.where, strict=True)).argmax(axis=1)
