"""The data sets the workbook knows (``catalogue.json``): ids and display names, nothing else.

Each data set has an ``id`` (lower case, as the loaders, the comparison and the shipped
results write it: ``"nursery"``, ``"synth-a"``), a display ``name`` (FI's spelling:
``"Nursery"``, ``"SynthA"``), a ``source`` and other spellings in use (``aliases``). Every
list of data sets in dpviz is made of these ids or names; which sets a notebook offers, and
their settings, stay beside its code. Standard library only.
"""

from __future__ import annotations

import json
from importlib.resources import files
from types import MappingProxyType

from dpviz.errors import InvalidParameterError

__all__ = [
    "SOURCES", "dataset_id", "dataset_ids", "display_name", "display_names", "ids", "names",
    "source",
]

_JSON = json.loads(files("dpviz.data").joinpath("catalogue.json").read_text(encoding="utf-8"))
_ENTRIES = tuple(MappingProxyType(entry) for entry in _JSON["datasets"])
_BY_ID = {entry["id"]: entry for entry in _ENTRIES}
#: The sources of the data sets, in catalogue order (``"uci"``, ``"fi-synth"`` ...).
SOURCES: tuple[str, ...] = tuple(_JSON["sources"])
#: Every spelling (id, name, alias), case-folded, and the id it names.
_SPELLINGS = {spelling.casefold(): entry["id"] for entry in _ENTRIES
              for spelling in (entry["id"], entry["name"], *entry.get("aliases", ()))}


def _entries(sources: tuple[str, ...]) -> tuple[MappingProxyType, ...]:
    """The entries of ``sources`` (all when none) in catalogue order; an unknown source raises."""
    for s in sources:
        if s not in SOURCES:
            raise InvalidParameterError(f"source must be one of {list(SOURCES)}, got {s!r}")
    return tuple(e for e in _ENTRIES if not sources or e["source"] in sources)


def ids(*sources: str) -> tuple[str, ...]:
    """The ids of the data sets of ``sources`` (all when none), in catalogue order."""
    return tuple(e["id"] for e in _entries(sources))


def names(*sources: str) -> tuple[str, ...]:
    """The display names of the data sets of ``sources`` (all when none), in catalogue order."""
    return tuple(e["name"] for e in _entries(sources))


def dataset_id(name: str) -> str:
    """The id of the data set ``name`` (its id, display name or an alias, in any case)."""
    key = name.strip().casefold() if isinstance(name, str) else None
    if key not in _SPELLINGS:
        raise InvalidParameterError(
            f"unknown data set {name!r}; the known data sets are {', '.join(_BY_ID)}")
    return _SPELLINGS[key]


def display_name(name: str) -> str:
    """The display name of the data set ``name`` (any spelling :func:`dataset_id` accepts)."""
    return _BY_ID[dataset_id(name)]["name"]


def source(name: str) -> str:
    """The source of the data set ``name`` (``"uci"``, ``"fi-synth"`` ...; any spelling)."""
    return _BY_ID[dataset_id(name)]["source"]


def dataset_ids(*datasets: str) -> tuple[str, ...]:
    """The id of each of ``datasets`` (any spellings), in the order given."""
    return tuple(map(dataset_id, datasets))


def display_names(*datasets: str) -> tuple[str, ...]:
    """The display name of each of ``datasets`` (any spellings), in the order given."""
    return tuple(map(display_name, datasets))
