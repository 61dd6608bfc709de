"""The papers' published numbers (``published.json``, sources in its notes), for comparisons.

Accuracies are in percent. FI's were obtained with the smooth-sensitivity leaf mechanism that
the 2021 addendum withdrew as not proven private.
"""

from __future__ import annotations

import json
from importlib.resources import files

import pandas as pd

from dpviz.data import catalogue

__all__ = [
    "CITATIONS", "FI_FIG4", "FI_FIG5", "FI_FIG6", "FI_FIG7", "FI_TABLE1", "FI_TABLE2", "FI_TABLE3",
    "FI_TABLE6", "FS_TABLE1", "FS_TABLE1_ALGORITHMS", "JPW_DATASETS", "JPW_TABLE1",
    "RDT_SHARP_LABELED_FRACTION",
    "RDT_SHARP_TABLE2", "SYNTH", "URLS",
]

_JSON = json.loads(files("dpviz.data").joinpath("published.json").read_text(encoding="utf-8"))


def _table(name: str) -> pd.DataFrame:
    return pd.DataFrame(_JSON[name]["data"], columns=_JSON[name]["columns"])


CITATIONS: dict[str, str] = _JSON["citations"]  # the papers, by short name
URLS: dict[str, str] = _JSON["urls"]
SYNTH: tuple[str, ...] = catalogue.names("fi-synth")  # the FI synthetic data sets, in order
FS_TABLE1_ALGORITHMS: tuple[str, ...] = tuple(_JSON["FS_TABLE1_ALGORITHMS"])
RDT_SHARP_LABELED_FRACTION: dict[str, float] = _JSON["RDT_SHARP_LABELED_FRACTION"]
JPW_DATASETS: dict[str, int] = _JSON["JPW_DATASETS"]  # JPW's data sets and their trees
FI_TABLE1, FI_TABLE2, FI_TABLE3, FI_TABLE6 = map(_table, ("FI_TABLE1", "FI_TABLE2", "FI_TABLE3",
                                                          "FI_TABLE6"))
FI_FIG4, FI_FIG5, FI_FIG6, FI_FIG7 = map(_table, ("FI_FIG4", "FI_FIG5", "FI_FIG6", "FI_FIG7"))
FS_TABLE1, JPW_TABLE1, RDT_SHARP_TABLE2 = map(_table, ("FS_TABLE1", "JPW_TABLE1",
                                                       "RDT_SHARP_TABLE2"))
