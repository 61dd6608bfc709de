"""The data-set catalogue (issue 46 item 3): one list of ids and names that every list reads.

Each data set resolves from its id, display name and aliases in any case; an unknown name
raises a short error listing the ids; every list of data sets in dpviz (the notebooks'
explorers and reproductions, the papers' tables, the loaders) is made of catalogue ids or
names, and no string in the package spells a data set any other way.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path

import pytest

from dpviz.data import catalogue, published, synthetic, uci
from dpviz.errors import DataUnavailableError, InvalidParameterError, UnknownDatasetError
from dpviz.experiments import (
    comparison,
    fs_runs,
    reproduce_fi,
    reproduce_fs,
    reproduce_jpw,
    semi_supervised,
)
from dpviz.explore import compare, fi, jpw, rdt_sharp

PACKAGE = Path(catalogue.__file__).resolve().parents[1]
ENTRIES = json.loads((PACKAGE / "data" / "catalogue.json").read_text(encoding="utf-8"))["datasets"]
IDS = tuple(e["id"] for e in ENTRIES)
NAMES = tuple(e["name"] for e in ENTRIES)
SPELLINGS = {s for e in ENTRIES for s in (e["id"], e["name"], *e.get("aliases", ()))}


def _spellings(entry: dict) -> list[str]:
    return [entry["id"], entry["name"], *entry.get("aliases", ())]


def _default(function, parameter: str):
    return inspect.signature(function).parameters[parameter].default


# ------------------------------------------------------------------------------ the catalogue
def test_ids_and_names_are_unique_and_no_spelling_names_two_sets():
    assert len(set(IDS)) == len(IDS) and len(set(NAMES)) == len(NAMES)
    owner: dict[str, str] = {}
    for entry in ENTRIES:
        assert entry["id"] == entry["id"].strip().lower(), entry
        assert set(entry) <= {"id", "name", "source", "aliases"}, entry
        for spelling in _spellings(entry):
            assert owner.setdefault(spelling.casefold(), entry["id"]) == entry["id"], spelling


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_spelling_resolves_in_any_case(entry):
    for spelling in _spellings(entry):
        for variant in (spelling, spelling.upper(), spelling.lower(), f"  {spelling} "):
            assert catalogue.dataset_id(variant) == entry["id"]
            assert catalogue.display_name(variant) == entry["name"]
            assert catalogue.source(variant) == entry["source"]


@pytest.mark.parametrize("bad", ["iris", "", "synth-h", "Synth A", 3, None])
def test_an_unknown_name_raises_a_short_error_listing_the_ids(bad):
    with pytest.raises(InvalidParameterError) as info:
        catalogue.dataset_id(bad)
    message = str(info.value)
    assert repr(bad) in message and all(i in message for i in IDS)
    assert "\n" not in message and len(message) < 300
    with pytest.raises(InvalidParameterError):
        catalogue.display_name(bad)


def test_ids_and_names_follow_the_catalogue_order_by_source():
    assert catalogue.ids() == IDS and catalogue.names() == NAMES
    assert catalogue.SOURCES == tuple(dict.fromkeys(e["source"] for e in ENTRIES))
    for s in catalogue.SOURCES:
        assert catalogue.ids(s) == tuple(e["id"] for e in ENTRIES if e["source"] == s)
        assert catalogue.names(s) == tuple(map(catalogue.display_name, catalogue.ids(s)))
    assert catalogue.ids("uci") == ("nursery", "mushroom", "votes", "adult")
    assert catalogue.ids("uci", "fi-synth") == catalogue.ids("fi-synth", "uci")  # catalogue order
    assert catalogue.names("fi-synth") == tuple(f"Synth{c}" for c in "ABCDEFG")
    with pytest.raises(InvalidParameterError, match="source must be one of"):
        catalogue.ids("kaggle")


def test_dataset_ids_and_display_names_keep_the_order_given():
    assert catalogue.dataset_ids("Votes", "synth-b", "NURSERY") == ("votes", "synth-b", "nursery")
    assert catalogue.display_names("votes", "fi-synth-b") == ("Votes", "SynthB")
    assert catalogue.dataset_ids() == ()
    with pytest.raises(InvalidParameterError, match="iris"):
        catalogue.dataset_ids("nursery", "iris")


# ------------------------------------------------------- every list is made of catalogue entries
LISTS_OF_IDS = {
    "uci.available()": uci.available(),
    "uci.UCI": list(uci.UCI),
    "comparison.DATASETS": comparison.DATASETS,
    "compare.EXPLORER_DATASETS": compare.EXPLORER_DATASETS,
    "semi_supervised.DATASETS": semi_supervised.DATASETS,
    "rdt_sharp.EXPLORER_DATASETS": rdt_sharp.EXPLORER_DATASETS,
    "rdt_sharp.PAPER_DATASETS": rdt_sharp.PAPER_DATASETS,
    "rdt_sharp.DEFAULT_PERCENT": list(rdt_sharp.DEFAULT_PERCENT),
    "published.RDT_SHARP_LABELED_FRACTION": list(published.RDT_SHARP_LABELED_FRACTION),
    "published.RDT_SHARP_TABLE2": list(published.RDT_SHARP_TABLE2["dataset"]),
    "published.JPW_DATASETS": list(published.JPW_DATASETS),
    "published.JPW_TABLE1": list(published.JPW_TABLE1["dataset"]),
    "reproduce_jpw.jpw_update(datasets)": _default(reproduce_jpw.jpw_update, "datasets"),
    "reproduce_jpw.jpw_accuracy(datasets)": _default(reproduce_jpw.jpw_accuracy, "datasets"),
    "jpw.MAX_DEPTH": list(jpw.MAX_DEPTH),
    "reproduce_fs.JPW_MAX_DEPTH": list(reproduce_fs.JPW_MAX_DEPTH),
    "reproduce_fs.jpw_table1(datasets)": _default(reproduce_fs.jpw_table1, "datasets"),
    "fs_runs.jpw_runs(datasets)": _default(fs_runs.jpw_runs, "datasets"),
    "fs_runs.EXPLORER_DATASETS": fs_runs.EXPLORER_DATASETS,
    "fs_runs.REPEATS": list(fs_runs.REPEATS),
    "fs_runs.SIZE_BOUND": list(fs_runs.SIZE_BOUND),
    "fs_runs.DEFAULT_DEPTH": list(fs_runs.DEFAULT_DEPTH),
}
LISTS_OF_NAMES = {
    "published.SYNTH": published.SYNTH,
    "published.json SYNTH": json.loads(
        (PACKAGE / "data" / "published.json").read_text(encoding="utf-8"))["SYNTH"],
    **{f"published.{t}": list(getattr(published, t)["dataset"])
       for t in ("FI_TABLE3", "FI_FIG4", "FI_FIG5", "FI_FIG6", "FI_FIG7")},
    "synthetic.FI_SYNTH_SETTINGS": list(synthetic.FI_SYNTH_SETTINGS["dataset"]),
    "reproduce_fi.TABLE3_DATASETS": reproduce_fi.TABLE3_DATASETS,
    "reproduce_fi.fi_table3(datasets)": _default(reproduce_fi.fi_table3, "datasets"),
    "fi.EXPLORER_DATASETS": fi.EXPLORER_DATASETS,
    "fi.EXPLORER_ROWS": list(fi.EXPLORER_ROWS),
    "fi.PREDICTION_SETTING": [fi.PREDICTION_SETTING["dataset"]],
    **{f"fi.REPRODUCTION_SETTINGS[{mode}][{key}]": fi.REPRODUCTION_SETTINGS[mode][key]
       for mode in ("quick", "full") for key in ("datasets", "fig7_datasets", "table3_datasets")},
}


@pytest.mark.parametrize("label", LISTS_OF_IDS)
def test_each_list_of_ids_is_made_of_catalogue_ids(label):
    values = LISTS_OF_IDS[label]
    assert values and set(values) <= set(IDS), (label, values)


@pytest.mark.parametrize("label", LISTS_OF_NAMES)
def test_each_list_of_names_is_made_of_catalogue_display_names(label):
    values = LISTS_OF_NAMES[label]
    assert len(values) and set(values) <= set(NAMES), (label, values)


def test_the_lists_that_read_the_catalogue_keep_their_order():
    """Shipped results are keyed on these tuples: same spelling, same order as before."""
    assert uci.available() == list(catalogue.ids("uci")) == list(uci.UCI)
    assert comparison.DATASETS == catalogue.ids("uci", "fi-synth")
    assert semi_supervised.DATASETS == ("mushroom", "nursery", "votes", "synthetic")
    assert published.SYNTH == catalogue.names("fi-synth")
    assert reproduce_fi.TABLE3_DATASETS == (*published.SYNTH, "Adult", "Mushroom", "Nursery")
    assert fi.EXPLORER_DATASETS == (*published.SYNTH, "Nursery", "Mushroom", "Adult")
    assert fi.REPRODUCTION_SETTINGS["full"]["table3_datasets"] == reproduce_fi.TABLE3_DATASETS
    assert fs_runs.EXPLORER_DATASETS == ("fs-single-split", "nursery", "adult")
    assert _default(fs_runs.jpw_runs, "datasets") == ("nursery", "votes", "mushroom")
    assert _default(reproduce_fs.jpw_table1, "datasets") == ("nursery", "votes", "mushroom")
    assert _default(reproduce_jpw.jpw_update, "datasets") == ("nursery", "mushroom")


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.casefold())


def test_no_string_in_the_package_spells_a_data_set_another_way():
    """A string that reads as a data set ("NURSERY", "Synth-A", "synth_a") is a catalogue
    spelling exactly, so a new list cannot invent a fourth one."""
    known = {_norm(s) for s in SPELLINGS}
    found, odd = 0, []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    _norm(node.value) in known):
                found += 1
                if node.value not in SPELLINGS:
                    odd.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert not odd, odd
    assert found > 20  # the scan sees the package's spellings


# ------------------------------------------------------------- loaders accept the catalogue's names
@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["source"] == "uci"],
                         ids=lambda e: e["id"])
def test_load_accepts_every_spelling_of_a_uci_set(entry, tmp_path):
    for spelling in _spellings(entry):  # an empty folder: the name passes, the files are missing
        with pytest.raises(DataUnavailableError):
            uci.load(spelling, data_dir=tmp_path, download=False)


@pytest.mark.parametrize("name", [*catalogue.ids("fi-synth", "rdt-sharp-synth", "fs-synth"),
                                  "SynthA", "iris"])
def test_load_refuses_what_is_not_a_uci_set(name, tmp_path):
    with pytest.raises(UnknownDatasetError, match="nursery, mushroom, votes, adult"):
        uci.load(name, data_dir=tmp_path, download=False)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["source"] == "fi-synth"],
                         ids=lambda e: e["id"])
def test_fi_synth_accepts_every_spelling_of_its_sets(entry):
    for spelling in _spellings(entry):  # the name passes; n_rows=0 stops before generating
        with pytest.raises(InvalidParameterError, match="n_rows"):
            synthetic.fi_synth(spelling, n_rows=0)


def test_the_explorers_accept_the_catalogue_ids_they_list():
    for dataset in fs_runs.EXPLORER_DATASETS:
        assert fs_runs.check_dataset(dataset) == dataset
    for dataset in semi_supervised.DATASETS:
        assert catalogue.source(dataset) in ("uci", "rdt-sharp-synth")
    assert all(catalogue.source(d) in ("uci", "fi-synth") for d in comparison.DATASETS)
