import warnings
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from dpviz.domain import UNKNOWN_CODE, Categorical, Domain, Numeric
from dpviz.errors import (
    ColumnMismatchError,
    InvalidParameterError,
    MissingValueError,
    PrivacyLeakWarning,
    UnknownCategoryError,
    UnknownLabelError,
)


@pytest.fixture
def domain():
    return Domain(
        [
            Categorical("colour", ("red", "green", "blue")),
            Numeric("age", 0, 100),
            Categorical("children", ("1", "2", "3", "more")),
        ],
        ["no", "yes"],
    )


def frame(**cols):
    return pd.DataFrame(cols)


def test_encode_uses_documented_order_and_clips(domain):
    X = frame(colour=["blue", "red", "green"], age=[130.0, -5.0, 42.5], children=["more", "1", "3"])
    codes = domain.encode(X)
    np.testing.assert_array_equal(codes, [[2, 100, 3], [0, 0, 0], [1, 42.5, 2]])


def test_encode_accepts_any_column_order_and_string_form(domain):
    X = frame(children=[2, "more"], age=[1, 2], colour=["red", "red"])
    np.testing.assert_array_equal(domain.encode(X)[:, 2], [1, 3])


def test_decode_round_trips(domain):
    X = frame(colour=["blue", "red"], age=[10.0, 20.0], children=["2", "more"])
    back = domain.decode(domain.encode(X))
    pd.testing.assert_frame_equal(back, X, check_dtype=False)


def test_unknown_category_names_attribute_and_value(domain):
    X = frame(colour=["purple"], age=[1], children=["1"])
    with pytest.raises(UnknownCategoryError, match=r"'colour'.*'purple'") as info:
        domain.encode(X)
    assert info.value.attribute == "colour" and info.value.value == "purple"


def test_unknown_category_can_be_marked_at_prediction_time(domain):
    X = frame(colour=["purple", "red"], age=[1, 1], children=["1", "1"])
    assert list(domain.encode(X, unknown="mark")[:, 0]) == [UNKNOWN_CODE, 0]


def test_missing_values_raise(domain):
    X = frame(colour=["red", None], age=[1, 2], children=["1", "1"])
    with pytest.raises(MissingValueError, match="colour"):
        domain.encode(X)
    X = frame(colour=["red", "red"], age=[1, np.nan], children=["1", "1"])
    with pytest.raises(MissingValueError, match="age"):
        domain.encode(X)


def test_mismatched_columns_raise(domain):
    with pytest.raises(ColumnMismatchError, match=r"missing \['children'\]"):
        domain.encode(frame(colour=["red"], age=[1]))
    with pytest.raises(ColumnMismatchError, match=r"unexpected.*'extra'"):
        domain.encode(frame(colour=["red"], age=[1], children=["1"], extra=[0]))
    with pytest.raises(ColumnMismatchError, match="3 columns"):
        domain.encode(np.zeros((2, 4)))


def test_out_of_bounds_can_be_refused(domain):
    X = frame(colour=["red"], age=[101], children=["1"])
    with pytest.raises(InvalidParameterError, match=r"'age'.*101"):
        domain.encode(X, out_of_bounds="raise")


def test_non_numeric_in_numeric_column(domain):
    with pytest.raises(InvalidParameterError, match="'age'"):
        domain.encode(frame(colour=["red"], age=["old"], children=["1"]))


def test_labels(domain):
    np.testing.assert_array_equal(domain.encode_labels(["yes", "no", "yes"]), [1, 0, 1])
    assert list(domain.decode_labels([1, 0])) == ["yes", "no"]
    with pytest.raises(UnknownLabelError, match="'maybe'"):
        domain.encode_labels(["maybe"])
    with pytest.raises(MissingValueError):
        domain.encode_labels(["yes", None])
    with pytest.raises(UnknownLabelError, match="cross_val_predict"):
        domain.encode_labels(np.array([0, 1]))  # what cross_val_predict's re-encoding sends


def test_properties(domain):
    assert domain.n_classes == 2
    np.testing.assert_array_equal(domain.categorical_mask, [True, False, True])
    np.testing.assert_array_equal(domain.n_values, [3, 0, 4])
    np.testing.assert_array_equal(domain.bounds, [[0, 3], [0, 100], [0, 4]])
    assert domain.index("age") == 1
    assert domain.select(["age"]).names == ("age",)
    assert len(domain.to_frame()) == 4
    with pytest.raises(KeyError, match="no attribute named 'height'"):
        domain["height"]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Categorical("a", ()),
        lambda: Categorical("a", ("x", "x")),
        lambda: Numeric("a", 1, 1),
        lambda: Numeric("a", 0, float("inf")),
        lambda: Domain([Numeric("a", 0, 1), Numeric("a", 0, 2)], [0, 1]),
        lambda: Domain([Numeric("a", 0, 1)], []),
    ],
)
def test_invalid_domains(make):
    with pytest.raises(InvalidParameterError):
        make()


@pytest.mark.parametrize(("values", "kind"), [("xyz", "string"), (b"xyz", "bytes object")])
def test_a_bare_string_is_not_a_value_list(values, kind):
    # tuple("xyz") made the values "x", "y", "z" without a word
    with pytest.raises(InvalidParameterError) as info:
        Categorical("a", values)
    message = str(info.value)
    assert message.startswith(f"Categorical('a', {values!r}): values must be a list of values")
    assert f"not one {kind}" in message and f"[{values!r}]" in message


def test_one_value_in_a_list_is_fine():
    assert Categorical("a", ["xyz"]).values == ("xyz",)


def test_from_data_warns_and_learns_from_rows():
    X = frame(colour=["b", "a", "b"], age=[3.0, 1.0, 2.0])
    with pytest.warns(PrivacyLeakWarning):
        d = Domain.from_data(X, [1, 0, 1])
    assert d["colour"].values == ("a", "b")
    assert (d["age"].low, d["age"].high) == (1.0, 3.0)
    assert d.classes == (0, 1)


def test_public_domain_does_not_warn(domain):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        domain.encode(frame(colour=["red"], age=[1], children=["1"]))


# ---------------------------------------------------------------- bounds and time columns
def test_bounds_that_exclude_all_the_data_clip_every_value_to_one_end(domain):
    """Documented beside Numeric: no warning (it would be computed from the rows)."""
    for ages, end in (([101, 150.5, 1e12], 100.0), ([-1e-9, -7, -1e300], 0.0)):
        for column in (ages, np.asarray(ages, dtype=object)):
            X = frame(colour=["red"] * 3, age=column, children=["1"] * 3)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                np.testing.assert_array_equal(domain.encode(X)[:, 1], [end] * 3)
            np.testing.assert_array_equal(domain.encode(X.to_numpy())[:, 1], [end] * 3)
    np.testing.assert_array_equal(  # integers too; values inside are kept as they are
        domain.encode(frame(colour=["red"] * 3, age=[-3, 0, 200], children=["1"] * 3))[:, 1],
        [0, 0, 100],
    )


TIME_COLUMNS = {
    "timedelta64": (pd.to_timedelta([1, 2, 3], unit="D"), "durations"),
    "datetime64": (pd.to_datetime(["2020-01-01", "2020-02-01", "2021-01-01"]), "dates"),
    "datetime64 with a time zone": (
        pd.to_datetime(["2020-01-01"] * 3).tz_localize("UTC"), "dates"),
    "period": (pd.period_range("2020-01", periods=3, freq="M"), "dates"),
    "numpy timedelta64 objects": (
        np.array([np.timedelta64(5, "s")] * 3, dtype=object), "durations"),
    "Python timedelta objects": (np.array([timedelta(hours=1)] * 3, dtype=object), "durations"),
    "Python dates": (np.array([date(2020, 1, 1)] * 3, dtype=object), "dates"),
    "numbers and a duration": (np.array([1.0, np.timedelta64(5, "s"), 2], dtype=object),
                               "durations"),
}


@pytest.mark.parametrize("kind", list(TIME_COLUMNS))
def test_dates_and_durations_are_refused_where_a_number_is_read(domain, kind):
    """A timedelta64 column read as nanoseconds was clipped to 100, silently."""
    column, what = TIME_COLUMNS[kind]
    X = frame(colour=["red"] * 3, age=column, children=["1"] * 3)
    match = rf"attribute 'age' holds {what} .*stated unit.*public bounds in that unit"
    with pytest.raises(InvalidParameterError, match=match):
        domain.encode(X)
    with pytest.raises(InvalidParameterError, match=match):  # read by position: the same
        domain.encode(X.to_numpy())
    with pytest.raises(InvalidParameterError, match=match), warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        Domain.from_data(X, [0, 1, 0])  # neither a number nor a category


def test_a_numpy_timedelta_array_is_refused_too():
    domain = Domain([Numeric("wait", 0, 100)], ["no", "yes"])
    with pytest.raises(InvalidParameterError, match=r"'wait' holds durations \(timedelta64"):
        domain.encode(np.array([[1], [2]], dtype="m8[s]"))
    with pytest.raises(InvalidParameterError, match=r"'wait' holds dates \(datetime64"):
        domain.encode(np.array([["2020-01-01"]], dtype="M8[D]"))


def test_numbers_in_object_columns_are_still_numbers(domain):
    X = frame(colour=["red"] * 2, age=np.array([1, 2.5], dtype=object), children=["1"] * 2)
    np.testing.assert_array_equal(domain.encode(X)[:, 1], [1, 2.5])
    np.testing.assert_array_equal(domain.encode(X.to_numpy())[:, 1], [1, 2.5])


def test_a_frame_is_read_as_its_columns_are_whatever_pandas_offers(monkeypatch):
    """Domain.encode reads a frame's columns through pandas' own column accessor (issue 37:
    no Series per column), else through ``X[name]``: the same codes for every column kind,
    and the same refusals (missing, unknown)."""
    domain = Domain([Categorical("s", ("x", "y")), Categorical("i", (1, 2, 3)),
                     Categorical("c", ("p", "q")), Numeric("v", 0.0, 1.0)], ["a", "b"])
    X = pd.DataFrame({"s": pd.array(["y", "x", "y"], dtype="string"),
                      "i": pd.array([3, 1, 2], dtype="Int64"),
                      "c": pd.Categorical(["q", "q", "p"]), "v": [0.5, 2.0, -1.0]})
    expected = [[1, 2, 1, 0.5], [0, 0, 1, 1.0], [1, 1, 0, 0.0]]
    bad_missing, bad_unknown = X.copy(), X.copy()
    bad_missing.loc[1, "i"] = None
    bad_unknown.loc[2, "s"] = "z"
    for accessor in (True, False):
        if not accessor:
            monkeypatch.delattr(pd.DataFrame, "_get_column_array")
        np.testing.assert_array_equal(domain.encode(X), expected)
        np.testing.assert_array_equal(domain.encode(X[["v", "c", "i", "s"]]), expected)
        with pytest.raises(MissingValueError, match="'i'"):
            domain.encode(bad_missing)
        with pytest.raises(UnknownCategoryError, match="'s'"):
            domain.encode(bad_unknown)


def test_numpy_numeric_columns_are_cast_as_to_numpy_casts_them(monkeypatch):
    """A frame's numpy bool, int and float columns are read column by column (no sub-frame):
    the same float64 bits as ``X[names].to_numpy(dtype=float64)``, the general route taken
    without pandas' accessor, also for a large uint64, float16 and out-of-bounds values."""
    names = ("i8", "u64", "f16", "f32", "b", "f64")
    domain = Domain([Numeric(n, -1e30, 1e30) for n in names] + [Categorical("c", ("p", "q"))],
                    ["a", "b"])
    X = pd.DataFrame({"i8": np.array([-7, 3, 0], dtype=np.int8),
                      "u64": np.array([2**63 + 12345, 1, 0], dtype=np.uint64),
                      "f16": np.array([0.1, -2.5, 7.0], dtype=np.float16),
                      "f32": np.array([1 / 3, 1e-8, -0.7], dtype=np.float32),
                      "b": [True, False, True], "f64": [0.1, 2e30, -3e30], "c": ["q", "p", "q"]})
    fast = domain.encode(X[["c", *names[::-1]]])
    assert fast[0, 1] == float(np.uint64(2**63 + 12345)) and fast[1, 5] == 1e30
    monkeypatch.delattr(pd.DataFrame, "_get_column_array")
    general = domain.encode(X)
    assert fast.tobytes() == general.tobytes()
    np.testing.assert_array_equal(general[:, :6], np.clip(
        X[list(names)].to_numpy(dtype=np.float64), -1e30, 1e30))
