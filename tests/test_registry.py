import math

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier

from dpviz.data.uci import load
from dpviz.errors import InvalidParameterError
from dpviz.experiments import registry
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier


def test_algorithm_table_lists_everything():
    table = registry.algorithm_table()
    assert list(table["algorithm"]) == [*registry.PRIVATE, *registry.REFERENCES]
    assert table["ε-DP"].sum() == len(registry.PRIVATE)


def test_every_algorithm_has_a_factory():
    assert set(registry.FACTORIES) == {*registry.ALGORITHMS, *registry.REFERENCES}
    data = load("votes")
    for name in registry.FACTORIES:
        model = registry.make_estimator(name, 1.0, data, random_state=3)
        assert hasattr(model, "fit") and hasattr(model, "predict")


def test_make_estimator_settings_follow_the_papers():
    votes, nursery = load("votes"), load("nursery")
    rdt = registry.make_estimator("Private-RDT", 0.5, votes, random_state=4)
    assert isinstance(rdt, PrivateRDTClassifier)
    assert (rdt.epsilon, rdt.n_trees, rdt.random_state) == (0.5, 5, 4)  # JPW §VI: 5 on Votes
    assert registry.make_estimator("Private-RDT", 0.5, nursery).n_trees == 10
    assert registry.jpw_n_trees(votes) == 5 and registry.jpw_n_trees(nursery) == 10
    assert registry.make_estimator("RDT (non-private)", math.inf, votes).n_trees == 5
    assert isinstance(registry.make_estimator("RDT (non-private)", 1, votes),
                      RandomDecisionTreeClassifier)
    assert isinstance(registry.make_estimator("DP forest", 1.0, votes), DPRandomForestClassifier)
    sulq = registry.make_estimator("SuLQ-ID3", 1.0, votes)
    assert isinstance(sulq, SuLQID3Classifier) and sulq.max_depth == 5
    for criterion in ("Max", "Gini", "InfoGain"):
        model = registry.make_estimator(f"DiffPID3-{criterion}", 1.0, nursery)
        assert isinstance(model, DiffPID3Classifier)
        assert model.criterion == criterion.lower() and model.max_depth == 5
        assert model.size_bound == (nursery.n_rows if criterion == "InfoGain" else None)
    assert isinstance(registry.make_estimator("DiffPC4.5", 1.0, votes), DiffPC45Classifier)
    assert isinstance(registry.make_estimator("majority class", 1.0, votes), DummyClassifier)
    with pytest.raises(InvalidParameterError, match="unknown algorithm"):
        registry.make_estimator("ID3", 1.0, votes)


def test_registry_extends_with_a_factory(monkeypatch):
    monkeypatch.setitem(
        registry.FACTORIES, "shallow DiffPID3",
        lambda eps, data, seed: DiffPID3Classifier(eps, max_depth=2, domain=data.domain,
                                                   random_state=seed),
    )
    model = registry.make_estimator("shallow DiffPID3", 1.0, load("votes"), random_state=1)
    assert model.max_depth == 2 and model.random_state == 1


def test_applicable_skips_sulq_on_numeric_data():
    assert registry.applicable("SuLQ-ID3", load("votes"))
    assert not registry.applicable("SuLQ-ID3", load("adult"))
    assert registry.applicable("DiffPID3-Max", load("adult"))


def test_one_hot_model_encodes_with_the_public_domain():
    data = load("votes")
    model = registry.make_estimator("sklearn tree", math.inf, data, random_state=0)
    assert isinstance(model, registry.OneHotModel)
    design = model.design(data.X.iloc[:5])
    width = sum(a.n_values if a.is_categorical else 1 for a in data.domain)
    assert design.shape == (5, width)
    assert np.allclose(design.sum(axis=1), len(data.domain))  # one 1 per categorical attribute
    model.fit(data.X, data.y)
    assert np.mean(model.predict(data.X) == data.y.to_numpy()) > 0.9
