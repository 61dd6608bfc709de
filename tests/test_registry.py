import math

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier

from dpviz.data.uci import load
from dpviz.errors import InvalidParameterError, NotProvenPrivateWarning
from dpviz.experiments import registry
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.privatree import PrivaTreeClassifier
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier

DP_EBM = "DP-EBM (δ = 1e-6)"


def test_algorithm_table_lists_everything():
    table = registry.algorithm_table()
    assert list(table["algorithm"]) == [*registry.PRIVATE, *registry.RECENT,
                                        *registry.REFERENCES, *registry.NO_CLAIM]
    claims = table.set_index("algorithm")["privacy"]
    assert (claims[list(registry.PRIVATE)] == "ε-DP").all()
    assert claims["PrivaTree (dpviz variant)"] == "ε-DP" and claims[DP_EBM] == "(ε, δ = 1e-6)-DP"
    assert (claims[list(registry.REFERENCES)] == "none").all()
    assert (claims[list(registry.NO_CLAIM)] == "none").all()


def test_every_algorithm_has_a_factory():
    assert set(registry.FACTORIES) == {*registry.ALGORITHMS, *registry.TODAY,
                                       *registry.REFERENCES, *registry.NO_CLAIM}
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


def test_applicable_skips_sulq_on_numeric_data_and_dp_ebm_on_five_classes():
    assert registry.applicable("SuLQ-ID3", load("votes"))
    assert not registry.applicable("SuLQ-ID3", load("adult"))
    assert registry.applicable("DiffPID3-Max", load("adult"))
    assert registry.not_applicable("SuLQ-ID3", load("adult")) == "handles nominal attributes only"
    assert registry.not_applicable(DP_EBM, load("nursery")) == "handles two classes only"
    for name in ("votes", "mushroom", "adult"):
        assert registry.applicable(DP_EBM, load(name))
    assert registry.applicable("PrivaTree (dpviz variant)", load("nursery"))


def test_privatree_runs_with_its_defaults():
    model = registry.make_estimator("PrivaTree (dpviz variant)", 0.5, load("adult"), random_state=2)
    defaults = PrivaTreeClassifier()
    assert isinstance(model, PrivaTreeClassifier) and model.random_state == 2
    assert (model.epsilon, model.max_depth, model.n_bins, model.splitter, model.n_public) == (
        0.5, defaults.max_depth, defaults.n_bins, defaults.splitter, defaults.n_public)
    # the protocol's public training size sets the n of the paper's leaf rule
    sized = registry.make_estimator("PrivaTree (dpviz variant)", 0.5, load("adult"),
                                    random_state=2, n_train=300)
    assert sized.n_public == 300
    others = registry.make_estimator("DiffPID3-Max", 0.5, load("adult"), n_train=300)
    assert "n_public" not in others.get_params()


def test_privatree_as_published_is_named_apart_and_warns():
    """The authors' published split: a no-claim entry, outside 07's grids, that warns."""
    name = "PrivaTree as published (no claim)"
    assert name in registry.NO_CLAIM and name not in {*registry.ALGORITHMS, *registry.TODAY}
    votes = load("votes")
    model = registry.make_estimator(name, 1.0, votes, random_state=0, n_train=300)
    assert isinstance(model, PrivaTreeClassifier)
    assert (model.splitter, model.n_public) == ("published", 300)
    with pytest.warns(NotProvenPrivateWarning, match="no proof"):
        model.fit(votes.X.iloc[:300], votes.y.iloc[:300])
    with pytest.raises(InvalidParameterError, match="unknown algorithm"):
        comparison_jobs(name)


def comparison_jobs(name: str) -> object:
    from dpviz.experiments.comparison import _jobs

    return _jobs(["votes"], [name], [1.0], [100], references=False)


def test_dp_ebm_gets_the_public_bounds_and_refuses_before_reading_rows():
    adult = load("adult")
    model = registry.make_estimator(DP_EBM, 0.5, adult, random_state=7)
    ebm = model.model
    assert (ebm.epsilon, ebm.delta, ebm.composition, ebm.random_state, ebm.n_jobs) == (
        0.5, 1e-6, "gdp", 7, 1)
    # one indicator in [0, 1] per categorical value (one-hot), a number in its bounds
    expected = [bound for a in adult.domain for bound in (
        [(0.0, 1.0)] * a.n_values if a.is_categorical else [(a.low, a.high)])]
    assert ebm.feature_types == ["continuous"] * len(expected)
    assert [ebm.privacy_bounds[j] for j in range(len(expected))] == expected
    assert ebm.feature_names[:3] == ["age", "workclass=Private", "workclass=Self-emp-not-inc"]
    assert registry.make_estimator(DP_EBM, math.inf, adult).model.epsilon == 1e12  # no noise
    with pytest.raises(InvalidParameterError, match="two classes"):
        registry.make_estimator(DP_EBM, 1.0, load("nursery"))
    with pytest.raises(InvalidParameterError, match="epsilon"):
        registry.make_estimator(DP_EBM, -1.0, adult)


def test_dp_ebm_bins_come_from_the_domain_not_from_the_rows():
    """The fitted model stores the domain's ranges (each value's indicator in [0, 1]), whatever
    values the rows hold: rows where an attribute takes one value only store the same ranges
    (interpret left to itself stores the rows' own smallest and largest values)."""
    data = load("votes")
    X, y = data.X.iloc[:200], data.y.iloc[:200]
    model = registry.make_estimator(DP_EBM, 1.0, data, random_state=0).fit(X, y)
    width = sum(a.n_values for a in data.domain)
    assert model.model.feature_bounds_.tolist() == [[0.0, 1.0]] * width
    first = X.columns[0]
    one_value = X[X[first] == X[first].iloc[0]]  # the first attribute's other value never occurs
    again = registry.make_estimator(DP_EBM, 1.0, data, random_state=0).fit(
        one_value, y.loc[one_value.index])
    assert again.model.feature_bounds_.tolist() == model.model.feature_bounds_.tolist()
    accuracy = np.mean(model.predict(data.X) == data.y.to_numpy())
    assert accuracy > 0.8  # ε = 1 on 200 rows: the votes split the parties well


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
