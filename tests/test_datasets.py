"""Tests of dpviz.data.uci: the documented facts of the four UCI files, the cache and the download.

The raw files are found through the loader's cache (``dpviz.data.uci.data_dir()``),
never through a hard-coded path: CI seeds the cache by copying the reference
files into the project's ``data/`` folder before running the tests. The network
is never used: an autouse fixture makes ``_fetch`` fail, and the download tests
replace it with an in-memory zip archive.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import urllib.error
import zipfile
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from dpviz.data import uci as datasets
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import (
    DataIntegrityError,
    DataUnavailableError,
    InvalidParameterError,
    UnknownDatasetError,
)

FILES = (
    "nursery.data",
    "agaricus-lepiota.data",
    "house-votes-84.data",
    "adult.data",
    "adult.test",
)

ALL_VARIANTS = [
    ("nursery", {}),
    ("mushroom", {}),
    ("mushroom", {"missing": "drop_rows"}),
    ("votes", {}),
    ("adult", {}),
    ("adult", {"split": "original"}),
]


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def cache() -> Path:
    """The seeded cache folder; fail with instructions when a file is missing."""
    folder = datasets.data_dir()
    missing = [name for name in FILES if not (folder / name).is_file()]
    if missing:
        pytest.fail(
            f"the data cache {folder} lacks {missing}. Seed it before running the tests, e.g. "
            "`cp ../shared/data/uci/* data/` from the project root (the files are git-ignored), "
            "or set DPVIZ_DATA to a folder holding the UCI files; see data/README.md.",
            pytrace=False,
        )
    return folder


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach the network: downloads fail unless a test fakes them."""

    def no_network(url: str) -> bytes:
        raise urllib.error.URLError("the tests run offline")

    monkeypatch.setattr(datasets, "_fetch", no_network)


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder used as the cache through DPVIZ_DATA."""
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv(datasets.ENV_VAR, str(folder))
    return folder


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _fake_fetch(monkeypatch: pytest.MonkeyPatch, payload: bytes) -> list[str]:
    calls: list[str] = []

    def fetch(url: str) -> bytes:
        calls.append(url)
        return payload

    monkeypatch.setattr(datasets, "_fetch", fetch)
    return calls


# ---------------------------------------------------------------------- names and folders
def test_available_lists_the_four_data_sets() -> None:
    assert datasets.available() == ["nursery", "mushroom", "votes", "adult"]


def test_unknown_name_lists_the_known_names() -> None:
    with pytest.raises(UnknownDatasetError) as info:
        datasets.load("iris")
    message = str(info.value)
    assert "iris" in message
    for name in datasets.available():
        assert name in message
    assert isinstance(info.value, KeyError)


def test_default_data_dir_is_the_project_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(datasets.ENV_VAR, raising=False)
    project = Path(datasets.__file__).resolve().parents[2]
    assert datasets.data_dir() == project / "data"


def test_dpviz_data_overrides_the_cache_folder(
    cache: Path, empty_cache: Path
) -> None:
    assert datasets.data_dir() == empty_cache
    with pytest.raises(DataUnavailableError):
        datasets.load("votes", download=False)
    (empty_cache / "house-votes-84.data").write_bytes((cache / "house-votes-84.data").read_bytes())
    votes = datasets.load("votes", download=False)
    assert votes.n_rows == 435


def test_names_are_case_insensitive(cache: Path) -> None:
    assert datasets.load(" Votes ").name == "votes"


def test_options_are_checked(cache: Path) -> None:
    with pytest.raises(InvalidParameterError, match="drop_rows"):
        datasets.load("mushroom", missing="impute")
    with pytest.raises(InvalidParameterError, match="split"):
        datasets.load("adult", split="random")
    with pytest.raises(InvalidParameterError, match="no options"):
        datasets.load("nursery", missing="drop_rows")


# ---------------------------------------------------------------------- documented facts
def test_nursery_facts(cache: Path) -> None:
    ds = datasets.load("nursery")
    assert ds.X.shape == (12960, 8)
    assert list(ds.X.columns) == [
        "parents", "has_nurs", "form", "children", "housing", "finance", "social", "health",
    ]
    assert ds.class_counts.to_dict() == {
        "not_recom": 4320, "recommend": 2, "very_recom": 328, "priority": 4266, "spec_prior": 4044,
    }
    assert ds.domain.n_classes == 5  # the file's 5 classes (papers say 3 or 4)
    assert not ds.X.duplicated().any()  # a full factorial design: all rows distinct
    product = 1
    for attribute in ds.domain:
        product *= attribute.n_values
    assert product == 12960


def test_mushroom_drop_attribute_is_the_default(cache: Path) -> None:
    ds = datasets.load("mushroom")
    assert ds.X.shape == (8124, 21)
    assert "stalk-root" not in ds.X.columns and "stalk-root" not in ds.domain
    assert ds.class_counts.to_dict() == {"e": 4208, "p": 3916}
    assert not (ds.X == "?").any().any()
    assert "JPW" in ds.description


def test_mushroom_drop_rows(cache: Path) -> None:
    ds = datasets.load("mushroom", missing="drop_rows")
    assert ds.X.shape == (5644, 22)
    assert 8124 - ds.n_rows == 2480
    assert "?" not in set(ds.X["stalk-root"])
    assert "?" not in ds.domain["stalk-root"].values
    assert not (ds.X == "?").any().any()
    assert ds.class_counts.sum() == 5644
    assert "FI" in ds.description


def test_mushroom_domain_comes_from_the_documentation_not_the_rows(cache: Path) -> None:
    ds = datasets.load("mushroom")
    # Every mushroom in the file has a partial veil, yet the documented domain keeps "universal".
    assert set(ds.X["veil-type"]) == {"p"}
    assert ds.domain["veil-type"].values == ("p", "u")
    names = datasets.decode_mushroom(pd.concat([ds.X.head(3), ds.y.head(3)], axis=1))
    assert set(names["veil-type"]) == {"partial"}
    assert set(names["class"]) <= {"edible", "poisonous"}


def test_votes_facts_and_majority_imputation(cache: Path) -> None:
    ds = datasets.load("votes")
    assert ds.X.shape == (435, 16)
    assert ds.class_counts.to_dict() == {"democrat": 267, "republican": 168}
    assert not (ds.X == "?").any().any()
    with open(cache / "house-votes-84.data", newline="") as handle:
        rows = [row for row in csv.reader(handle) if row]
    assert len(rows) == 435
    n_replaced = 0
    for j, bill in enumerate(datasets.UCI["votes"]["attributes"], start=1):
        votes = [row[j] for row in rows]
        counts = Counter(v for v in votes if v != "?")
        majority = "y" if counts["y"] >= counts["n"] else "n"
        for i, vote in enumerate(votes):
            expected = majority if vote == "?" else vote
            assert ds.X[bill].iloc[i] == expected, (bill, i)
            n_replaced += vote == "?"
    assert n_replaced > 0
    assert "majority" in ds.description and "privacy analysis" in ds.description
    doc = " ".join((datasets.load.__doc__ or "").split())
    assert "reads the data outside the privacy analysis" in doc


def test_adult_merged(cache: Path) -> None:
    ds = datasets.load("adult")
    assert ds.X.shape == (45222, 14)
    assert ds.test is None
    assert ds.class_counts.to_dict() == datasets.UCI["adult"]["clean_class_counts"]
    assert set(ds.y) == {"<=50K", ">50K"}  # no trailing "." from adult.test
    assert not (ds.X == "?").any().any()
    # adult.names: 24.78% of ">50K" without unknowns.
    assert round(100 * ds.class_counts[">50K"] / ds.n_rows, 2) == 24.78


def test_adult_original_split(cache: Path) -> None:
    ds = datasets.load("adult", split="original")
    assert ds.n_rows == 30162
    assert ds.test is not None and ds.test.n_rows == 15060
    assert ds.test.domain == ds.domain
    assert ds.n_rows + ds.test.n_rows == 45222
    for part in (ds, ds.test):
        assert set(part.y) == {"<=50K", ">50K"}
        assert not (part.X == "?").any().any()
    assert "15060" in ds.summary()


def test_adult_raw_class_counts_match_adult_names() -> None:
    files = datasets.UCI["adult"]["files"].values()
    raw = sum((Counter(facts["class_counts"]) for facts in files), Counter())
    assert sum(raw.values()) == 48842 == sum(facts["rows"] for facts in files)
    assert round(100 * raw[">50K"] / 48842, 2) == 23.93  # adult.names, with unknowns


def test_adult_numeric_columns_within_the_documented_bounds(cache: Path) -> None:
    ds = datasets.load("adult", split="original")
    assert ds.test is not None
    for name, (low, high) in datasets.UCI["adult"]["numeric"].items():
        attribute = ds.domain[name]
        assert isinstance(attribute, Numeric)
        assert (attribute.low, attribute.high) == (low, high)
        for part in (ds, ds.test):
            assert pd.api.types.is_integer_dtype(part.X[name])
            assert part.X[name].between(low, high).all(), name


@pytest.mark.parametrize(("name", "options"), ALL_VARIANTS)
def test_every_value_is_inside_the_documented_domain(
    cache: Path, name: str, options: dict[str, str]
) -> None:
    ds = datasets.load(name, **options)
    parts = [ds] if ds.test is None else [ds, ds.test]
    for part in parts:
        assert list(part.X.columns) == list(part.domain.names)
        encoded = part.domain.encode(part.X, out_of_bounds="raise")  # raises on an unknown value
        assert encoded.shape == part.X.shape
        labels = part.domain.encode_labels(part.y)
        assert labels.min() >= 0 and labels.max() < part.domain.n_classes
        assert part.class_counts.index.tolist() == list(part.domain.classes)


@pytest.mark.parametrize("name", ["nursery", "mushroom", "votes", "adult"])
def test_metadata(cache: Path, name: str) -> None:
    ds = datasets.load(name)
    assert "UCI" in ds.citation and "CC BY 4.0" in ds.citation
    assert ds.description
    assert ds.url.startswith("https://archive.ics.uci.edu/dataset/")
    assert name in repr(ds) and str(ds.n_rows) in repr(ds)
    assert ds.citation in ds.summary()


def test_domains_are_the_documented_ones(cache: Path) -> None:
    nursery = datasets.load("nursery").domain
    assert [(a.name, a.values) for a in nursery] == [
        (n, tuple(v)) for n, v in datasets.UCI["nursery"]["attributes"].items()
    ]
    assert nursery.classes == tuple(datasets.UCI["nursery"]["classes"])
    votes = datasets.load("votes").domain
    assert votes.names == tuple(datasets.UCI["votes"]["attributes"])
    assert votes.classes == ("democrat", "republican")
    adult = datasets.load("adult").domain
    for name, values in datasets.UCI["adult"]["attributes"].items():
        assert adult[name].values == tuple(values)
    assert adult.classes == ("<=50K", ">50K")


# ---------------------------------------------------------------------- copies and cache
def test_returned_frames_are_copies(cache: Path) -> None:
    first = datasets.load("votes")
    original = first.X.iloc[0, 0]
    first.X.iloc[0, 0] = "changed"
    first.y.iloc[0] = "changed"
    del first.X["crime"]
    second = datasets.load("votes")
    assert second.X.iloc[0, 0] == original
    assert second.y.iloc[0] != "changed"
    assert "crime" in second.X.columns
    split = datasets.load("adult", split="original")
    assert split.test is not None
    split.test.X.iloc[0, 0] = -1
    again = datasets.load("adult", split="original")
    assert again.test is not None and again.test.X.iloc[0, 0] != -1


def test_a_changed_file_is_read_again(cache: Path, empty_cache: Path) -> None:
    target = empty_cache / "house-votes-84.data"
    lines = (cache / "house-votes-84.data").read_bytes().splitlines(keepends=True)
    target.write_bytes(b"".join(lines))
    assert datasets.load("votes", download=False).n_rows == 435
    target.write_bytes(b"".join(lines[:-3]))
    with pytest.raises(DataIntegrityError, match="435"):
        datasets.load("votes", download=False)


def test_crlf_and_blank_lines_are_accepted(cache: Path, empty_cache: Path) -> None:
    text = (cache / "house-votes-84.data").read_bytes()
    (empty_cache / "house-votes-84.data").write_bytes(text.replace(b"\n", b"\r\n") + b"\r\n\r\n")
    assert datasets.load("votes", download=False).n_rows == 435


def test_a_value_outside_the_domain_is_refused(cache: Path, empty_cache: Path) -> None:
    text = (cache / "house-votes-84.data").read_text()
    first, rest = text.split("\n", 1)
    fields = first.split(",")
    fields[3] = "maybe"
    (empty_cache / "house-votes-84.data").write_text(",".join(fields) + "\n" + rest)
    with pytest.raises(DataIntegrityError, match="maybe"):
        datasets.load("votes", download=False)
    assert (empty_cache / "house-votes-84.data").exists()  # a user's file is never deleted


# ---------------------------------------------------------------------- digests (issue 15)
def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _refused_as_not_official(folder: Path, filename: str, name: str, **options: str) -> str:
    """Load ``name`` from ``folder``; it must be refused by the digest check. The message."""
    with pytest.raises(DataIntegrityError) as info:
        datasets.load(name, download=False, **options)
    message = str(info.value)
    assert filename in message and str(folder) in message
    assert "SHA-256" in message and "Delete it" in message and "DPVIZ_DATA" in message
    found = _sha256((folder / filename).read_bytes())
    assert found in message  # the digest found ...
    return message


def _votes_lines(cache: Path) -> list[str]:
    return (cache / "house-votes-84.data").read_text().splitlines(keepends=True)


def test_one_changed_valid_value_is_refused(cache: Path, empty_cache: Path) -> None:
    lines = _votes_lines(cache)
    (empty_cache / "house-votes-84.data").write_text("".join(lines))
    assert datasets.load("votes", download=False).n_rows == 435  # the untouched copy loads
    fields = lines[0].split(",")
    fields[1] = "y" if fields[1] == "n" else "n"  # still a documented vote
    lines[0] = ",".join(fields)
    (empty_cache / "house-votes-84.data").write_text("".join(lines))
    message = _refused_as_not_official(empty_cache, "house-votes-84.data", "votes")
    official = _sha256((cache / "house-votes-84.data").read_bytes())
    assert official in message  # ... and the one expected


def test_a_changed_number_in_adult_is_refused(cache: Path, empty_cache: Path) -> None:
    (empty_cache / "adult.test").write_bytes((cache / "adult.test").read_bytes())
    data = (cache / "adult.data").read_bytes()
    assert data.startswith(b"39, ")
    (empty_cache / "adult.data").write_bytes(b"38, " + data[4:])  # a valid age
    _refused_as_not_official(empty_cache, "adult.data", "adult")


def test_two_swapped_labels_are_refused(cache: Path, empty_cache: Path) -> None:
    lines = _votes_lines(cache)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("democrat,"))
    j = next(k for k, ln in enumerate(lines) if ln.startswith("republican,"))
    lines[i] = "republican," + lines[i].removeprefix("democrat,")
    lines[j] = "democrat," + lines[j].removeprefix("republican,")  # class counts unchanged
    (empty_cache / "house-votes-84.data").write_text("".join(lines))
    _refused_as_not_official(empty_cache, "house-votes-84.data", "votes")


def test_an_edit_with_the_mtime_restored_is_seen(cache: Path, empty_cache: Path) -> None:
    target = empty_cache / "house-votes-84.data"
    lines = _votes_lines(cache)
    target.write_text("".join(lines))
    before = datasets.load("votes", download=False)
    stat = target.stat()
    fields = lines[0].split(",")
    fields[1] = "y" if fields[1] == "n" else "n"  # same size
    lines[0] = ",".join(fields)
    target.write_text("".join(lines))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert target.stat().st_mtime_ns == stat.st_mtime_ns and target.stat().st_size == stat.st_size
    _refused_as_not_official(empty_cache, "house-votes-84.data", "votes")
    # restoring the official content (mtime restored again) loads the official data
    target.write_bytes((cache / "house-votes-84.data").read_bytes())
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    after = datasets.load("votes", download=False)
    assert after.X.equals(before.X) and after.y.equals(before.y)


def test_a_mirror_with_other_line_endings_is_accepted_but_not_an_edit(
    cache: Path, empty_cache: Path
) -> None:
    data = (cache / "nursery.data").read_bytes()
    mirror = data.replace(b"\n", b"\r\n").rstrip() + b"\r\n"  # CRLF, no trailing blank line
    (empty_cache / "nursery.data").write_bytes(mirror)
    assert datasets.load("nursery", download=False).n_rows == 12960
    edited = mirror.replace(b"usual,proper,complete,1,convenient,convenient,nonprob,recommended",
                            b"usual,proper,complete,1,convenient,convenient,nonprob,priority", 1)
    assert edited != mirror
    (empty_cache / "nursery.data").write_bytes(edited)
    _refused_as_not_official(empty_cache, "nursery.data", "nursery")


def test_documented_digests_are_those_of_the_cache_and_the_readme(cache: Path) -> None:
    readme = (Path(datasets.__file__).resolve().parents[2] / "data" / "README.md").read_text()
    for name in FILES:
        data = (cache / name).read_bytes()
        assert datasets.SHA256[name] == _sha256(data), name
        assert datasets.SHA256_NORMALIZED[name] == _sha256(datasets._normalized(data)), name
        row = re.search(rf"^\| `{re.escape(name)}` \|.*$", readme.split("## Digests")[1], re.M)
        assert row is not None, name
        assert datasets.SHA256[name] in row.group(0)
        assert datasets.SHA256_NORMALIZED[name] in row.group(0)


def test_a_download_with_valid_facts_but_another_digest_is_removed(
    cache: Path, empty_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _votes_lines(cache)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("democrat,"))
    j = next(k for k, ln in enumerate(lines) if ln.startswith("republican,"))
    lines[i], lines[j] = lines[j], lines[i]  # same rows, same counts, another order
    _fake_fetch(monkeypatch, _zip({"house-votes-84.data": "".join(lines).encode()}))
    with pytest.raises(DataIntegrityError, match="SHA-256"):
        datasets.load("votes")
    assert list(empty_cache.iterdir()) == []


# ---------------------------------------------------------------------- missing files and download
def test_offline_and_missing_raises_data_unavailable(empty_cache: Path) -> None:
    with pytest.raises(DataUnavailableError) as info:
        datasets.load("votes")
    message = str(info.value)
    assert "house-votes-84.data" in message
    assert str(empty_cache) in message
    assert datasets.UCI["votes"]["archive"] in message
    assert "DPVIZ_DATA" in message
    assert isinstance(info.value, FileNotFoundError)
    assert list(empty_cache.iterdir()) == []


def test_a_data_folder_that_is_a_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "not_a_folder"
    folder.write_text("a file")
    monkeypatch.setenv(datasets.ENV_VAR, os.fspath(folder))
    for call in (lambda: datasets.load("votes"), datasets.ensure_files):
        with pytest.raises(DataUnavailableError) as info:
            call()
        message = str(info.value)
        assert f"UCI data folder {folder} is a file, not a folder" in message
        assert "not in" not in message and "DPVIZ_DATA" in message
        assert len(message.splitlines()) == 2


def test_a_data_file_that_is_a_folder_is_named(empty_cache: Path) -> None:
    (empty_cache / "house-votes-84.data").mkdir()
    for call in (lambda: datasets.load("votes"), lambda: datasets.ensure_files(["votes"])):
        with pytest.raises(DataUnavailableError) as info:
            call()
        message = str(info.value)
        assert "house-votes-84.data" in message and str(empty_cache) in message
        assert "not a regular file" in message and "not in" not in message
        assert len(message.splitlines()) == 2
    assert (empty_cache / "house-votes-84.data").is_dir()  # left as it was


def _unreadable_by_chmod(path: Path) -> None:
    if os.name != "posix" or os.geteuid() == 0:
        pytest.skip("root reads a chmod 000 file: use the /proc/self/mem variant")
    path.write_text("republican,n,y\n")
    path.chmod(0)


def _unreadable_proc_mem(path: Path) -> None:
    # a regular file that even root cannot read: reading /proc/self/mem at 0 fails (EIO)
    if not Path("/proc/self/mem").is_file():
        pytest.skip("no /proc/self/mem here")
    path.symlink_to("/proc/self/mem")


@pytest.mark.parametrize("make_unreadable", [_unreadable_by_chmod, _unreadable_proc_mem],
                         ids=["chmod", "proc-mem"])
def test_an_unreadable_data_file_is_named(empty_cache: Path, make_unreadable) -> None:
    path = empty_cache / "house-votes-84.data"
    make_unreadable(path)
    try:
        with pytest.raises(DataUnavailableError) as info:
            datasets.load("votes")
    finally:
        if not path.is_symlink():
            path.chmod(0o644)
    message = str(info.value)
    assert f"UCI data file house-votes-84.data in {empty_cache} cannot be read" in message
    assert "DPVIZ_DATA" in message and len(message.splitlines()) == 2


def test_download_false_never_fetches(empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_fetch(monkeypatch, b"")
    with pytest.raises(DataUnavailableError) as info:
        datasets.load("mushroom", download=False)
    assert "agaricus-lepiota.data" in str(info.value) and str(empty_cache) in str(info.value)
    assert calls == []


def test_download_extracts_the_member_from_a_sub_folder(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = (cache / "house-votes-84.data").read_bytes()
    payload = _zip({
        "congressional+voting+records/house-votes-84.names": b"documentation",
        "congressional+voting+records/house-votes-84.data": original,
        "Index": b"index",
    })
    calls = _fake_fetch(monkeypatch, payload)
    folder = tmp_path / "new" / "cache"  # created on demand
    ds = datasets.load("votes", data_dir=folder)
    assert calls == [datasets.UCI["votes"]["archive"]]
    assert (folder / "house-votes-84.data").read_bytes() == original
    assert sorted(p.name for p in folder.iterdir()) == ["house-votes-84.data"]
    assert ds.n_rows == 435
    datasets.load("votes", data_dir=folder)
    assert len(calls) == 1  # cached now


def test_download_fetches_an_archive_once_for_several_files(
    cache: Path, empty_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = _zip({
        name: (cache / name).read_bytes() for name in ("adult.data", "adult.test", "adult.names")
    })
    calls = _fake_fetch(monkeypatch, payload)
    ds = datasets.load("adult")
    assert calls == [datasets.UCI["adult"]["archive"]]
    assert ds.n_rows == 45222
    assert {p.name for p in empty_cache.iterdir()} == {"adult.data", "adult.test", "adult.names"}


def test_corrupt_download_is_refused_and_removed(
    cache: Path, empty_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = (cache / "house-votes-84.data").read_bytes().splitlines(keepends=True)
    _fake_fetch(monkeypatch, _zip({"house-votes-84.data": b"".join(lines[:-5])}))
    with pytest.raises(DataIntegrityError) as info:
        datasets.load("votes")
    message = str(info.value)
    assert "house-votes-84.data" in message and "435" in message and "430" in message
    assert list(empty_cache.iterdir()) == []


def test_corrupt_adult_download_leaves_no_file(
    cache: Path, empty_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    test_lines = (cache / "adult.test").read_bytes().splitlines(keepends=True)
    payload = _zip({
        "adult/adult.data": (cache / "adult.data").read_bytes(),
        "adult/adult.test": b"".join(test_lines[:-3]),  # the last line is blank
        "adult/adult.names": (cache / "adult.names").read_bytes(),
    })
    _fake_fetch(monkeypatch, payload)
    with pytest.raises(DataIntegrityError, match=r"adult\.test"):
        datasets.load("adult")
    assert list(empty_cache.iterdir()) == []


def test_download_with_wrong_class_counts_is_refused(
    cache: Path, empty_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (cache / "house-votes-84.data").read_text()
    swapped = text.replace("democrat", "republican", 1)
    _fake_fetch(monkeypatch, _zip({"house-votes-84.data": swapped.encode()}))
    with pytest.raises(DataIntegrityError, match="class counts"):
        datasets.load("votes")
    assert list(empty_cache.iterdir()) == []


def test_archive_without_the_member(empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_fetch(monkeypatch, _zip({"expanded.Z": b"\x1f\x9d", "README": b"x"}))
    with pytest.raises(DataUnavailableError, match=r"agaricus-lepiota\.data"):
        datasets.load("mushroom")
    assert list(empty_cache.iterdir()) == []


def test_download_that_is_not_a_zip(empty_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_fetch(monkeypatch, b"<html>maintenance</html>")
    with pytest.raises(DataUnavailableError, match=r"nursery\.data"):
        datasets.load("nursery")
    assert list(empty_cache.iterdir()) == []


def test_fetch_uses_urlopen_with_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real _fetch, with urlopen replaced
    seen: dict[str, object] = {}

    class Response(io.BytesIO):
        def __enter__(self) -> Response:
            return self

        def __exit__(self, *exc: object) -> None:
            self.close()

    def urlopen(url: str, timeout: float) -> Response:
        seen.update(url=url, timeout=timeout)
        return Response(b"bytes")

    monkeypatch.setattr(datasets.urllib.request, "urlopen", urlopen)
    assert datasets._fetch("https://example.invalid/a.zip") == b"bytes"
    assert seen == {"url": "https://example.invalid/a.zip", "timeout": datasets.DOWNLOAD_TIMEOUT}


# ---------------------------------------------------------------------- Dataset
def test_dataset_is_generic_and_validated() -> None:
    domain = Domain([Categorical("colour", ("red", "blue")), Numeric("size", 0, 10)], ["no", "yes"])
    features = pd.DataFrame({"colour": ["red", "blue", "red"], "size": [1.0, 2.0, 3.0]})
    y = pd.Series(["yes", "yes", "yes"], name="class")
    ds = datasets.Dataset("toy", features, y, domain, citation="", description="a toy", url="")
    assert ds.n_rows == 3 and ds.test is None
    assert ds.class_counts.to_dict() == {"no": 0, "yes": 3}
    assert "toy" in repr(ds) and "a toy" in ds.summary()
    encoded, labels = ds.encode()
    assert encoded.shape == (3, 2) and labels.tolist() == [1, 1, 1]
    with pytest.raises(InvalidParameterError, match="rows"):
        datasets.Dataset("toy", features, y.iloc[:2], domain, "", "", "")
    with pytest.raises(InvalidParameterError, match="columns"):
        datasets.Dataset("toy", features[["size", "colour"]], y, domain, "", "", "")


def test_cache_folder_is_not_created_when_nothing_is_downloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "absent"
    monkeypatch.setenv(datasets.ENV_VAR, os.fspath(folder))
    with pytest.raises(DataUnavailableError):
        datasets.load("votes", download=False)
    assert not folder.exists()
