import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import InvalidParameterError, MissingValueError
from dpviz.privacy import BudgetExceededError, PrivateTable
from dpviz.ui.plots import ledger_chart


@pytest.fixture
def domain():
    return Domain(
        [Categorical("outlook", ("sunny", "rain")), Numeric("temp", 0, 40)], ["no", "yes"]
    )


@pytest.fixture
def data():
    X = pd.DataFrame(
        {"outlook": ["sunny"] * 6 + ["rain"] * 4, "temp": [5, 10, 15, 20, 25, 30, 35, 30, 25, 20]}
    )
    y = ["no"] * 5 + ["yes"] * 5
    return X, y


def table(domain, data, epsilon=1.0, seed=0):
    X, y = data
    return PrivateTable(X, y, domain=domain, epsilon=epsilon, rng=seed)


def test_sequential_composition_adds(domain, data):
    t = table(domain, data, epsilon=1.0)
    for _ in range(10):
        t.noisy_count(epsilon=0.1)
    assert t.ledger.spent == pytest.approx(1.0)
    assert t.remaining == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(BudgetExceededError, match="no data was read"):
        t.noisy_count(epsilon=0.01)
    assert len(t.ledger.entries) == 10  # the refused query is not recorded


def test_partition_charges_the_maximum(domain, data):
    t = table(domain, data, epsilon=1.0)
    sunny, rain = t.partition("outlook")
    sunny.noisy_class_counts(epsilon=0.3)
    rain.noisy_class_counts(epsilon=0.5)
    assert t.ledger.spent == pytest.approx(0.5)
    sunny.noisy_count(epsilon=0.1)  # sunny now 0.4 < 0.5: free
    assert t.ledger.spent == pytest.approx(0.5)
    sunny.noisy_count(epsilon=0.3)  # sunny now 0.7: charges 0.2 more
    assert t.ledger.spent == pytest.approx(0.7)
    charged = [e.charged for e in t.ledger.entries]
    assert charged == pytest.approx([0.3, 0.2, 0.0, 0.2])
    # rain may still spend up to 0.7 + 0.3 - 0.5 = 0.5
    assert rain.remaining == pytest.approx(0.5)
    rain.noisy_count(epsilon=0.5)
    assert t.ledger.spent == pytest.approx(1.0)
    with pytest.raises(BudgetExceededError):
        sunny.noisy_count(epsilon=0.31)


def test_nested_partitions_and_sequential_mix(domain, data):
    t = table(domain, data, epsilon=2.0)
    t.noisy_count(epsilon=0.5)
    for part in t.partition("outlook"):
        for sub in part.partition("temp", threshold=20):
            sub.noisy_class_counts(epsilon=0.25)
        part.noisy_count(epsilon=0.25)
    # root: 0.5 + max over outlook parts (each 0.25 [max of temp parts] + 0.25) = 1.0
    assert t.ledger.spent == pytest.approx(1.0)
    frame = t.ledger.to_frame()
    assert frame["charged"].sum() == pytest.approx(1.0)
    assert set(frame["depth"]) == {0, 1, 2}
    assert "outlook = sunny / temp <= 20" in set(frame["path"])


def test_refusal_happens_before_any_data_access(domain, data, monkeypatch):
    t = table(domain, data, epsilon=0.5)
    state = t.rng.bit_generator.state

    def touched(self):
        raise AssertionError("a refused query read the private rows")

    monkeypatch.setattr(PrivateTable, "_read", touched)
    queries = [
        lambda: t.noisy_count(epsilon=0.6),
        lambda: t.noisy_class_counts(epsilon=1.0),
        lambda: t.noisy_histogram("outlook", epsilon=0.7),
        lambda: t.select(["a", "b"], lambda X, y: np.zeros(2), sensitivity=1, epsilon=0.51),
    ]
    for query in queries:
        with pytest.raises(BudgetExceededError):
            query()
    assert t.ledger.entries == [] and t.ledger.spent == 0
    assert t.rng.bit_generator.state == state  # no noise was drawn either


def test_refusal_inside_a_partition(domain, data, monkeypatch):
    t = table(domain, data, epsilon=0.5)
    parts = t.partition("outlook")
    monkeypatch.setattr(PrivateTable, "_read", lambda self: pytest.fail("read"))
    with pytest.raises(BudgetExceededError):
        parts[1].noisy_count(epsilon=0.75)
    assert t.ledger.spent == 0


def test_ledger_content(domain, data):
    t = table(domain, data, epsilon=1.0)
    t.noisy_count(epsilon=0.25, label="node size")
    t.noisy_histogram("outlook", epsilon=0.25, mechanism="laplace", label="split counts")
    t.select(
        ["outlook", "temp"],
        lambda X, y: np.array([1.0, 0.0]),
        sensitivity=1,
        epsilon=0.5,
        label="choose split",
    )
    frame = t.ledger.to_frame()
    assert list(frame["label"]) == ["node size", "split counts", "choose split"]
    assert list(frame["mechanism"]) == ["discrete_laplace", "laplace", "exponential"]
    assert list(frame["epsilon"]) == [0.25, 0.25, 0.5]
    assert list(frame["path"]) == ["(root)"] * 3
    summary = t.ledger.summary("mechanism")
    assert summary["charged"].sum() == pytest.approx(1.0)
    chart = ledger_chart(t.ledger)
    spec = chart.to_dict()
    assert spec["mark"]["type"] == "bar"
    assert "1 of ε = 1" in spec["title"]
    assert "<table" in t.ledger._repr_html_()


def test_ledger_summary_counts_a_query_without_a_label(domain, data):
    """A label of None is a group of its own: the summary's charges add up to what was spent."""
    t = table(domain, data, epsilon=1.0)
    t.noisy_count(epsilon=0.25, label="node size")
    t.noisy_count(epsilon=0.5, label=None)
    summary = t.ledger.summary()
    assert summary["charged"].sum() == pytest.approx(t.ledger.spent) == pytest.approx(0.75)
    assert summary["queries"].tolist() == [1, 1]


def test_infinite_budget_gives_exact_answers(domain, data):
    t = table(domain, data, epsilon=math.inf)
    assert t.noisy_count(epsilon=math.inf) == 10
    np.testing.assert_array_equal(t.noisy_class_counts(epsilon=math.inf), [5, 5])
    np.testing.assert_array_equal(t.noisy_histogram("outlook", epsilon=math.inf), [[5, 1], [0, 4]])


def test_finite_budget_refuses_infinite_query(domain, data):
    with pytest.raises(BudgetExceededError):
        table(domain, data).noisy_count(epsilon=math.inf)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "1", None, True])
def test_invalid_epsilon_names_parameter_and_value(domain, data, bad):
    t = table(domain, data)
    with pytest.raises(InvalidParameterError, match="epsilon") as info:
        t.noisy_count(epsilon=bad)
    assert repr(bad) in str(info.value)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PrivateTable(data[0], data[1], domain=domain, epsilon=bad, rng=0)


def test_histogram_with_cell_function(domain, data):
    t = table(domain, data, epsilon=math.inf)
    hist = t.noisy_histogram(
        lambda codes: (codes[:, 1] > 25).astype(int), n_cells=2, epsilon=math.inf, classes=False
    )
    np.testing.assert_array_equal(hist, [7, 3])
    with pytest.raises(InvalidParameterError, match="n_cells"):
        t.noisy_histogram(lambda codes: codes[:, 0], epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="numeric"):
        t.noisy_histogram("temp", epsilon=1.0)


@pytest.mark.parametrize("n_parts", [None, 0, -1])
def test_partition_by_function_names_n_parts(domain, data, n_parts):
    t = table(domain, data)
    with pytest.raises(InvalidParameterError, match="n_parts") as info:
        t.partition(lambda codes: codes[:, 0], n_parts=n_parts)
    assert "n_cells" not in str(info.value)


def test_partition_requires_threshold_for_numeric(domain, data):
    t = table(domain, data)
    with pytest.raises(InvalidParameterError, match="threshold"):
        t.partition("temp")
    with pytest.raises(InvalidParameterError, match="threshold"):
        t.partition("outlook", threshold=3)


@pytest.mark.parametrize("bad", [10**400, math.inf, math.nan, "20", True, None, 1j])
def test_a_threshold_that_is_not_a_finite_number_is_refused(domain, data, bad):
    # 10**400 raised OverflowError, "20" and True were read as 20.0 and 1.0
    with pytest.raises(InvalidParameterError, match="threshold"):
        table(domain, data).partition("temp", threshold=bad)


def test_noisy_class_counts_follow_discrete_laplace(domain, data):
    # 4000 independent releases of the class histogram [5, 5] at eps=0.5: the noise must be
    # two-sided geometric with P(k) ∝ exp(-0.5|k|)  (chi-square over pooled bins).
    t = table(domain, data, epsilon=math.inf, seed=7)
    noise = np.array([t.noisy_class_counts(epsilon=0.5) for _ in range(4000)]) - 5
    assert noise.dtype.kind == "i"
    values = noise.ravel()
    ks = np.arange(-8, 9)
    dist = stats.dlaplace(0.5)
    expected = np.array([dist.cdf(-9)] + [dist.pmf(k) for k in ks] + [dist.sf(8)]) * values.size
    observed = np.array(
        [(values <= -9).sum()] + [(values == k).sum() for k in ks] + [(values >= 9).sum()]
    )
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_select_prefers_high_quality(domain, data):
    # Exponential mechanism at eps=2, Δ=1, scores (10, 0): P(second) = 1/(1+e^10) ≈ 4.5e-5.
    t = table(domain, data, epsilon=math.inf, seed=3)
    picks = [
        t.select(["good", "bad"], lambda X, y: np.array([10.0, 0.0]), sensitivity=1, epsilon=2.0)
        for _ in range(2000)
    ]
    # P(any "bad" in 2000 draws) ≈ 0.09; allow at most 3 (P(>3) < 1e-6)
    assert picks.count("bad") <= 3


def test_quality_is_evaluated_on_private_rows(domain, data):
    t = table(domain, data, epsilon=math.inf)
    seen = {}

    def quality(X, y):
        seen["n"] = len(X)
        return np.bincount(y, minlength=2).astype(float)

    t.select(["no", "yes"], quality, sensitivity=1, epsilon=math.inf)
    assert seen["n"] == 10
    with pytest.raises(InvalidParameterError, match="2 scores"):
        t.select(["a", "b"], lambda X, y: np.zeros(3), sensitivity=1, epsilon=math.inf)


def test_table_without_labels(domain, data):
    t = PrivateTable(data[0], None, domain=domain, epsilon=1.0, rng=0)
    with pytest.raises(InvalidParameterError, match="labels"):
        t.noisy_class_counts(epsilon=0.5)
    assert t.ledger.spent == 0


def test_from_encoded(domain):
    codes = np.array([[0, 10.0], [1, 20.0]])
    t = PrivateTable.from_encoded(codes, np.array([0, 1]), domain=domain, epsilon=math.inf, rng=0)
    assert t.noisy_count(epsilon=math.inf) == 2
    with pytest.raises(InvalidParameterError, match="class codes"):
        PrivateTable.from_encoded(codes, np.array([0, 2]), domain=domain, epsilon=1.0, rng=0)


@pytest.mark.parametrize(("cell", "value", "error"), [
    ((0, 0), np.nan, MissingValueError),  # a missing categorical code
    ((1, 1), np.nan, MissingValueError),  # a missing numeric value
    ((0, 0), 7, InvalidParameterError),  # outlook has 2 values: codes 0 and 1
    ((0, 0), -1, InvalidParameterError),  # "unknown" is a prediction-time code only
    ((0, 0), 0.5, InvalidParameterError),  # not a code
    ((1, 1), 41.0, InvalidParameterError),  # temp's public bounds are [0, 40]
])
def test_from_encoded_and_append_refuse_codes_outside_the_domain(domain, cell, value, error):
    """The one check of encoded rows (``Domain.check_encoded``), before a table exists.

    The old ``from_encoded`` took NaN, the code 7 and a value outside the bounds, which the
    estimators' own check refused.
    """
    codes = np.array([[0, 10.0], [1, 20.0]])
    labels = np.array([0, 1])
    bad = codes.copy()
    bad[cell] = value
    with pytest.raises(error, match="encoded"):
        PrivateTable.from_encoded(bad, labels, domain=domain, epsilon=1.0, rng=0)
    table = PrivateTable.from_encoded(codes, labels, domain=domain, epsilon=1.0, rng=0)
    with pytest.raises(error, match="encoded"):
        table.append(bad, labels)
    assert table.path == () and table.ledger.spent == 0  # refused before any change
    if value == -1:  # an unknown category: a prediction-time code (``unknown=True``)
        assert np.array_equal(domain.check_encoded(bad, unknown=True)[0], bad)


def test_apply_charges_then_runs_the_mechanism(domain, data, monkeypatch):
    t = table(domain, data, epsilon=1.0)
    seen = {}

    def mech(codes, labels, rng):
        seen["rows"] = codes.shape[0]
        return int(labels.sum()) + int(rng.integers(0, 1))

    assert t.apply(mech, epsilon=0.4, name="toy", label="sum of labels") == 5
    assert seen["rows"] == 10
    entry = t.ledger.entries[-1]
    assert (entry.label, entry.mechanism, entry.charged) == ("sum of labels", "toy", 0.4)
    monkeypatch.setattr(PrivateTable, "_read", lambda self: pytest.fail("read"))
    with pytest.raises(BudgetExceededError):
        t.apply(mech, epsilon=0.7, name="toy")


# ---------------------------------------------------------------- every option of every query
# (issue 23: noisy_count(mechanism="laplace") charged ε, then raised AttributeError)
def _outlook(codes):
    return codes[:, 0].astype(np.int64)


def _leaf(codes):
    return codes[:, 0].astype(np.uint64)


QUERIES = {
    "noisy_count": lambda t, m: t.noisy_count(epsilon=0.5, mechanism=m),
    "noisy_class_counts": lambda t, m: t.noisy_class_counts(epsilon=0.5, mechanism=m),
    "noisy_histogram by name": lambda t, m: t.noisy_histogram("outlook", epsilon=0.5, mechanism=m),
    "noisy_histogram by function": lambda t, m: t.noisy_histogram(
        _outlook, n_cells=2, epsilon=0.5, mechanism=m),
    "noisy_histogram, no classes": lambda t, m: t.noisy_histogram(
        "outlook", epsilon=0.5, classes=False, mechanism=m),
    "noisy_leaf_counts": lambda t, m: t.noisy_leaf_counts(_leaf, epsilon=0.5, mechanism=m),
}


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("mechanism", ["discrete_laplace", "laplace"])
@pytest.mark.parametrize("query", sorted(QUERIES))
def test_every_count_query_works_with_every_mechanism(domain, data, query, mechanism):
    t = table(domain, data)
    QUERIES[query](t, mechanism)
    assert t.spent == pytest.approx(0.5)


@pytest.mark.filterwarnings("ignore::dpviz.errors.NotProvenPrivateWarning")
@pytest.mark.parametrize("mechanism", ["discrete_laplace", "laplace"])
def test_noisy_count_returns_a_number_with_either_mechanism(domain, data, mechanism):
    value = table(domain, data).noisy_count(epsilon=0.5, mechanism=mechanism)
    assert isinstance(value, int if mechanism == "discrete_laplace" else float)


@pytest.mark.parametrize("mechanism", ["exponential", "report_noisy_max"])
def test_select_works_with_every_mechanism(domain, data, mechanism):
    t = table(domain, data)
    t.select(["a", "b"], lambda codes, labels: np.array([1.0, 0.0]), sensitivity=1.0,
             epsilon=0.5, mechanism=mechanism)
    assert t.spent == pytest.approx(0.5)


@pytest.mark.parametrize("mechanism", ["rosnam", "exponential"])
def test_leaf_labels_work_with_every_proven_mechanism(domain, data, mechanism):
    t = table(domain, data)
    t.noisy_leaf_labels(_leaf, epsilon=0.5, mechanism=mechanism)
    assert t.spent == pytest.approx(0.5)


# ---------------------------------------------------------------- ids that are not numbers
# (issue 23: a cell function returning None for some rows raised TypeError only when such a
# row existed, after charging: an exception that tells whether the row is there)
def _none_for_rain(codes):
    """dict.get-style: a cell for "sunny" rows, None for "rain" rows."""
    return [{0: 0}.get(int(c)) for c in codes[:, 0]]


def _none_for_rain_keys(codes):
    return [{0: 7}.get(int(c)) for c in codes[:, 0]]


@pytest.mark.parametrize("rows", ["with a None row", "without"])
def test_a_cell_function_returning_none_behaves_alike_with_or_without_such_rows(
    domain, data, rows
):
    X, y = data
    if rows == "without":
        X, y = X[X["outlook"] == "sunny"], y[:6]
    t = PrivateTable(X, y, domain=domain, epsilon=math.inf, rng=0)
    counts = t.noisy_histogram(_none_for_rain, n_cells=1, epsilon=math.inf)
    assert counts.tolist() == [[5, 1]]  # the six sunny rows; a None row is in no cell
    parts = t.partition(_none_for_rain, n_parts=1)
    assert [p.noisy_count(epsilon=math.inf) for p in parts] == [6]
    leaves = t.noisy_leaf_counts(_none_for_rain_keys, epsilon=math.inf)
    assert leaves(np.array([7], dtype=np.uint64)).tolist() == [[5, 1]]


def test_ids_that_are_text_or_nan_are_in_no_cell(domain, data):
    t = table(domain, data, epsilon=math.inf)
    text = t.noisy_histogram(lambda codes: np.array(["a"] * len(codes)), n_cells=2,
                             epsilon=math.inf, classes=False)
    nan = t.noisy_histogram(lambda codes: np.full(len(codes), np.nan), n_cells=2,
                            epsilon=math.inf, classes=False)
    assert text.tolist() == nan.tolist() == [0, 0]


# ------------------------------------------------- ids out of the public domain (issue 35, 2)
# A row's id that is no cell (10**400, 1e400 = inf, 1.5, a tuple, text ...) made the query
# raise (OverflowError, ValueError) only when such a row existed — partition included, at no
# ε — or, in a list, changed how the other rows' ids were read (one text id turned every id
# into text: no row counted). Each row is now read on its own and such a row is dropped.
NOT_AN_ID = {
    "10**400": 10**400, "-10**400": -(10**400), "1e400": float("1e400"), "-1": -1,
    "nan": math.nan, "1.5": 1.5, "None": None, "text": "x", "tuple": (1, 2), "complex": 1j,
    "2**64": 2**64, "fraction 10**400/3": __import__("fractions").Fraction(10**400, 3),
    "longdouble 1e4000": np.longdouble("1e4000"),
}
_ABC = Domain([Categorical("a", ("0", "1", "2"))], ["n", "y"])
_LEAVES = np.array([7, 8], dtype=np.uint64)


def _answers(rows, odd, index=None):
    """Every query whose cells or leaves a caller's function gives; rows at "2" get ``odd``.

    ``index``: the grouped route's index of the rows at "2" (into two leaves), else ``odd``.
    """
    X = np.array(rows, dtype=object)[:, None]
    y = ["n", "n", "y", "y"][: len(rows)]
    t = PrivateTable(X, y, domain=_ABC, epsilon=math.inf, rng=0)

    def ids(codes, odd=odd, shift=0):
        return [int(c) + shift if c < 2 else odd for c in codes[:, 0]]

    histogram = t.noisy_histogram(ids, n_cells=2, epsilon=math.inf)
    parts = [p.noisy_class_counts(epsilon=math.inf) for p in t.partition(ids, n_parts=2)]
    flat = t.noisy_leaf_counts(lambda codes: ids(codes, shift=7), epsilon=math.inf)
    grouped = t.noisy_leaf_counts(  # ``index`` given: as an array (numpy picks its dtype)
        lambda codes: (_LEAVES, ids(codes) if index is None else np.asarray(ids(codes, index))),
        epsilon=math.inf)
    return [histogram.tolist(), [p.tolist() for p in parts], flat(_LEAVES).tolist(),
            grouped(_LEAVES).tolist()]


@pytest.mark.parametrize("odd", NOT_AN_ID.values(), ids=NOT_AN_ID.keys())
def test_a_row_whose_id_is_not_a_cell_is_dropped_alike_with_or_without_it(odd):
    without = _answers(["0", "1", "1"], odd)
    assert _answers(["0", "1", "1", "2"], odd) == without  # the "2" row is counted nowhere
    assert without == [[[1, 0], [1, 1]], [[1, 0], [1, 1]], [[1, 0], [1, 1]], [[1, 0], [1, 1]]]


@pytest.mark.parametrize("index", [2, -1, 2**70, 10**400, 1.5, None])
def test_a_grouped_route_index_out_of_its_leaves_drops_the_row(index):
    without = _answers(["0", "1", "1"], None, index=index)
    assert _answers(["0", "1", "1", "2"], None, index=index) == without
    assert without[3] == [[1, 0], [1, 1]]


def test_zero_and_one_in_any_type_are_cells(domain, data):
    t = table(domain, data, epsilon=math.inf)
    for zero in (0, 0.0, -0.0, False, np.False_, np.uint64(0), np.float32(0)):
        hist = t.noisy_histogram(lambda codes, z=zero: [z] * len(codes), n_cells=1,
                                 epsilon=math.inf, classes=False)
        assert hist.tolist() == [10], zero
