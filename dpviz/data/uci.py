"""The four UCI data sets used by the papers, with public domains written from their documentation.

:func:`load` returns a :class:`Dataset`: the features ``X`` (a DataFrame), the
labels ``y`` (a Series), the public :class:`~dpviz.domain.Domain`, and a
citation and description.

Where the domains come from
---------------------------
Differential privacy protects the rows, so every value list, numeric bound and
class list used by an algorithm must be public. This module therefore writes
them down as constants transcribed from the UCI documentation files
(``nursery.names``, ``agaricus-lepiota.names``, ``house-votes-84.names`` and
``adult.names``), in the order the documentation lists them. They are never
learnt from the rows: on every read of a raw file the loader only *checks* that
each value is inside the documented domain (and that the row and class counts
are the documented ones), raising :class:`~dpviz.errors.DataIntegrityError`
otherwise.

Those facts cannot see a valid value changed into another valid value, or two
labels swapped; so each file must also have the SHA-256 digest of the official
UCI file (:data:`SHA256`, listed in ``data/README.md``), or, for a mirror that
only changed line endings, surrounding spaces or blank lines, the digest of the
official file in that normal form (:data:`SHA256_NORMALIZED`). Parsed files are
cached in memory keyed on the digest of their content (read on every
:func:`load`), never on a modification time, so an edited file is always seen.

Missing values are treated as the papers treated them (see each data set's
``description``). Two of these treatments read the data outside any privacy
analysis, exactly as the papers did: the Votes majority imputation and the
choice of which Mushroom attribute or rows to drop.

Where the files come from
-------------------------
The raw files live in a cache folder (:func:`data_dir`: ``$DPVIZ_DATA`` if set,
else the project's ``data/`` folder) under their UCI file names. A missing file
is downloaded from the official UCI zip archive, checked, and written
atomically; offline, copy the files into the cache folder yourself (see
``data/README.md``). All four data sets are published by UCI under CC BY 4.0.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import os
import re
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import (
    DataIntegrityError,
    DataUnavailableError,
    InvalidParameterError,
    UnknownDatasetError,
)

__all__ = [
    "ADULT_CATEGORICAL",
    "ADULT_CLASSES",
    "ADULT_NUMERIC_BOUNDS",
    "MUSHROOM_ATTRIBUTES",
    "MUSHROOM_CLASSES",
    "NURSERY_ATTRIBUTES",
    "NURSERY_CLASSES",
    "SHA256",
    "SHA256_NORMALIZED",
    "VOTES_BILLS",
    "VOTES_CLASSES",
    "Dataset",
    "available",
    "data_dir",
    "decode_mushroom",
    "load",
]

#: Environment variable naming a cache folder that overrides the project's ``data/``.
ENV_VAR = "DPVIZ_DATA"

#: Seconds to wait for the UCI server before giving up on a download.
DOWNLOAD_TIMEOUT = 60.0

#: Marker of a missing value in the UCI files.
MISSING = "?"

LICENCE = "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)"

UCI_CITATION = (
    "Kelly, M., Longjohn, R., Nottingham, K. The UCI Machine Learning Repository, "
    "https://archive.ics.uci.edu (formerly cited as Dua, D., Graff, C. (2019). UCI Machine "
    "Learning Repository. Irvine, CA: University of California, School of Information and "
    "Computer Science)."
)

# ===================================================================== digests
#: SHA-256 of the official UCI files, byte for byte (``sha256sum`` of the members of the
#: archives listed in ``data/README.md``; the same digests as the offline reference copies).
SHA256: Mapping[str, str] = {
    "nursery.data": "8e0389c3dd37590248a921c2726d869ee96b817761a35eb8416afa24f31f931d",
    "agaricus-lepiota.data": "e65d082030501a3ebcbcd7c9f7c71aa9d28fdfff463bf4cf4716a3fe13ac360e",
    "house-votes-84.data": "c87c14110a5ba91d4a1e313ec7392824458152bf071fa5f5452340488337936e",
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
}
#: SHA-256 of the same files in normal form (:func:`_normalized`: every line stripped of
#: surrounding whitespace and ended by a newline, blank lines removed), so that a mirror with
#: CRLF line endings or without the trailing blank line is accepted, and nothing else.
SHA256_NORMALIZED: Mapping[str, str] = {
    "nursery.data": "1f2ff809b36c4524f8619d9cf0952e9937ff9e281eab7b2784acf604b45df879",
    "agaricus-lepiota.data": "e65d082030501a3ebcbcd7c9f7c71aa9d28fdfff463bf4cf4716a3fe13ac360e",
    "house-votes-84.data": "c87c14110a5ba91d4a1e313ec7392824458152bf071fa5f5452340488337936e",
    "adult.data": "df25a4e32ed6f1bd4b3910d21a7bd661a09061eced7cb45555a519d9667cc87b",
    "adult.test": "ceb625d3b5aeddf1e04cd5eec3268e18af4140fbde5a853a11223deeebcfe0f5",
}

# ===================================================================== Nursery
# nursery.names, "Attribute values", in the documented order. One spelling
# differs between the documentation and the data file: nursery.names writes the
# first value of `social` as "non-prob" while every row of nursery.data writes
# "nonprob"; we use the file's spelling (the value is the same).
NURSERY_ATTRIBUTES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("parents", ("usual", "pretentious", "great_pret")),
    ("has_nurs", ("proper", "less_proper", "improper", "critical", "very_crit")),
    ("form", ("complete", "completed", "incomplete", "foster")),
    ("children", ("1", "2", "3", "more")),
    ("housing", ("convenient", "less_conv", "critical")),
    ("finance", ("convenient", "inconv")),
    ("social", ("nonprob", "slightly_prob", "problematic")),
    ("health", ("recommended", "priority", "not_recom")),
)
#: Class values in the order of nursery.names' class distribution table. The
#: file has 5 classes (``recommend`` has only 2 rows); JPW's Table II says 3 and
#: FI says 4 — we keep the file's 5.
NURSERY_CLASSES: tuple[str, ...] = (
    "not_recom", "recommend", "very_recom", "priority", "spec_prior",
)
NURSERY_ROWS = 12960
NURSERY_CLASS_COUNTS: Mapping[str, int] = {
    "not_recom": 4320, "recommend": 2, "very_recom": 328, "priority": 4266, "spec_prior": 4044,
}
NURSERY_ARCHIVE_URL = "https://archive.ics.uci.edu/static/public/76/nursery.zip"
NURSERY_PAGE_URL = "https://archive.ics.uci.edu/dataset/76/nursery"

# ==================================================================== Mushroom
# agaricus-lepiota.names, "Attribute Information", in the documented order, as
# (code, name) pairs. The data set keeps the file's single-letter codes as the
# values (so the Domain, the trees and the file agree); the names are only for
# display, see `decode_mushroom`. The documentation calls attribute 4
# "bruises?"; we drop the question mark from the column name. The missing-value
# marker "?" of stalk-root is not a value of the domain: it is removed by the
# `missing` option of `load`.
MUSHROOM_ATTRIBUTES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("cap-shape", (("b", "bell"), ("c", "conical"), ("x", "convex"), ("f", "flat"),
                   ("k", "knobbed"), ("s", "sunken"))),
    ("cap-surface", (("f", "fibrous"), ("g", "grooves"), ("y", "scaly"), ("s", "smooth"))),
    ("cap-color", (("n", "brown"), ("b", "buff"), ("c", "cinnamon"), ("g", "gray"),
                   ("r", "green"), ("p", "pink"), ("u", "purple"), ("e", "red"),
                   ("w", "white"), ("y", "yellow"))),
    ("bruises", (("t", "bruises"), ("f", "no"))),
    ("odor", (("a", "almond"), ("l", "anise"), ("c", "creosote"), ("y", "fishy"),
              ("f", "foul"), ("m", "musty"), ("n", "none"), ("p", "pungent"), ("s", "spicy"))),
    ("gill-attachment", (("a", "attached"), ("d", "descending"), ("f", "free"),
                         ("n", "notched"))),
    ("gill-spacing", (("c", "close"), ("w", "crowded"), ("d", "distant"))),
    ("gill-size", (("b", "broad"), ("n", "narrow"))),
    ("gill-color", (("k", "black"), ("n", "brown"), ("b", "buff"), ("h", "chocolate"),
                    ("g", "gray"), ("r", "green"), ("o", "orange"), ("p", "pink"),
                    ("u", "purple"), ("e", "red"), ("w", "white"), ("y", "yellow"))),
    ("stalk-shape", (("e", "enlarging"), ("t", "tapering"))),
    ("stalk-root", (("b", "bulbous"), ("c", "club"), ("u", "cup"), ("e", "equal"),
                    ("z", "rhizomorphs"), ("r", "rooted"))),
    ("stalk-surface-above-ring", (("f", "fibrous"), ("y", "scaly"), ("k", "silky"),
                                  ("s", "smooth"))),
    ("stalk-surface-below-ring", (("f", "fibrous"), ("y", "scaly"), ("k", "silky"),
                                  ("s", "smooth"))),
    ("stalk-color-above-ring", (("n", "brown"), ("b", "buff"), ("c", "cinnamon"),
                                ("g", "gray"), ("o", "orange"), ("p", "pink"), ("e", "red"),
                                ("w", "white"), ("y", "yellow"))),
    ("stalk-color-below-ring", (("n", "brown"), ("b", "buff"), ("c", "cinnamon"),
                                ("g", "gray"), ("o", "orange"), ("p", "pink"), ("e", "red"),
                                ("w", "white"), ("y", "yellow"))),
    ("veil-type", (("p", "partial"), ("u", "universal"))),
    ("veil-color", (("n", "brown"), ("o", "orange"), ("w", "white"), ("y", "yellow"))),
    ("ring-number", (("n", "none"), ("o", "one"), ("t", "two"))),
    ("ring-type", (("c", "cobwebby"), ("e", "evanescent"), ("f", "flaring"), ("l", "large"),
                   ("n", "none"), ("p", "pendant"), ("s", "sheathing"), ("z", "zone"))),
    ("spore-print-color", (("k", "black"), ("n", "brown"), ("b", "buff"), ("h", "chocolate"),
                           ("r", "green"), ("o", "orange"), ("u", "purple"), ("w", "white"),
                           ("y", "yellow"))),
    ("population", (("a", "abundant"), ("c", "clustered"), ("n", "numerous"),
                    ("s", "scattered"), ("v", "several"), ("y", "solitary"))),
    ("habitat", (("g", "grasses"), ("l", "leaves"), ("m", "meadows"), ("p", "paths"),
                 ("u", "urban"), ("w", "waste"), ("d", "woods"))),
)
MUSHROOM_CLASSES: tuple[tuple[str, str], ...] = (("e", "edible"), ("p", "poisonous"))
#: The only attribute with missing values, and how many rows miss it.
MUSHROOM_MISSING_ATTRIBUTE = "stalk-root"
MUSHROOM_MISSING_ROWS = 2480
MUSHROOM_ROWS = 8124
MUSHROOM_CLASS_COUNTS: Mapping[str, int] = {"e": 4208, "p": 3916}
MUSHROOM_ARCHIVE_URL = "https://archive.ics.uci.edu/static/public/73/mushroom.zip"
MUSHROOM_PAGE_URL = "https://archive.ics.uci.edu/dataset/73/mushroom"

# ======================================================================= Votes
# house-votes-84.names, "Attribute Information": the 16 key votes of the 98th
# Congress, 2nd session (1984), each "2 (y,n)". In the file "?" means the member
# neither voted yea nor nay (paired, present, abstained or absent); the papers
# treat it as missing.
VOTES_BILLS: tuple[str, ...] = (
    "handicapped-infants",
    "water-project-cost-sharing",
    "adoption-of-the-budget-resolution",
    "physician-fee-freeze",
    "el-salvador-aid",
    "religious-groups-in-schools",
    "anti-satellite-test-ban",
    "aid-to-nicaraguan-contras",
    "mx-missile",
    "immigration",
    "synfuels-corporation-cutback",
    "education-spending",
    "superfund-right-to-sue",
    "crime",
    "duty-free-exports",
    "export-administration-act-south-africa",
)
VOTES_VALUES: tuple[str, ...] = ("y", "n")
VOTES_CLASSES: tuple[str, ...] = ("democrat", "republican")
VOTES_ROWS = 435
VOTES_CLASS_COUNTS: Mapping[str, int] = {"democrat": 267, "republican": 168}
VOTES_ARCHIVE_URL = (
    "https://archive.ics.uci.edu/static/public/105/congressional+voting+records.zip"
)
VOTES_PAGE_URL = "https://archive.ics.uci.edu/dataset/105/congressional+voting+records"

# ======================================================================= Adult
# adult.names: the 8 nominal attributes, values in the documented order.
ADULT_CATEGORICAL: Mapping[str, tuple[str, ...]] = {
    "workclass": ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"),
    "education": ("Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
                  "Doctorate", "5th-6th", "Preschool"),
    "marital-status": ("Married-civ-spouse", "Divorced", "Never-married", "Separated",
                       "Widowed", "Married-spouse-absent", "Married-AF-spouse"),
    "occupation": ("Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"),
    "relationship": ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
                     "Unmarried"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native-country": ("United-States", "Cambodia", "England", "Puerto-Rico", "Canada",
                       "Germany", "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece",
                       "South", "China", "Cuba", "Iran", "Honduras", "Philippines", "Italy",
                       "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal", "Ireland", "France",
                       "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia",
                       "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia",
                       "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"),
}
# The 6 continuous attributes with PUBLIC bounds [low, high], from the
# documentation of the extraction and of the Census CPS, never from the rows.
ADULT_NUMERIC_BOUNDS: Mapping[str, tuple[float, float]] = {
    # The extraction kept AAGE > 16 (adult.names); the Census top-codes age at 90.
    "age": (17.0, 90.0),
    # The extraction kept AFNLWGT > 1; the CPS weight (people one respondent stands
    # for) has no published top-code, so take a generous round ceiling of 2 million
    # (1% of the 1994 US population aged 16+), far above any plausible weight.
    "fnlwgt": (1.0, 2_000_000.0),
    # One number per education level: the 16 levels listed for `education`.
    "education-num": (1.0, 16.0),
    # The Census top-code of capital gains in the CPS file (a 5-digit field): 99999.
    "capital-gain": (0.0, 99999.0),
    # No top-code is documented separately; the CPS stores losses in the same
    # 5-digit field as gains, so 99999 is a safe, generous public ceiling.
    "capital-loss": (0.0, 99999.0),
    # The extraction kept HRSWK > 0; the Census top-codes hours at 99.
    "hours-per-week": (1.0, 99.0),
}
# Column order of adult.data / adult.test (the order of adult.names).
ADULT_COLUMNS: tuple[str, ...] = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country",
)
#: adult.names lists ">50K, <=50K"; we order the classes so that the positive
#: class ">50K" gets code 1 (the convention of the metrics and plots).
ADULT_CLASSES: tuple[str, ...] = ("<=50K", ">50K")
#: Raw files (counted with the labels' trailing "." of adult.test removed).
ADULT_DATA_ROWS = 32561
ADULT_DATA_CLASS_COUNTS: Mapping[str, int] = {"<=50K": 24720, ">50K": 7841}
ADULT_TEST_ROWS = 16281
ADULT_TEST_CLASS_COUNTS: Mapping[str, int] = {"<=50K": 12435, ">50K": 3846}
#: After dropping the rows with a "?" (adult.names: train=30162, test=15060, 45222).
ADULT_DATA_CLEAN_ROWS = 30162
ADULT_TEST_CLEAN_ROWS = 15060
ADULT_CLEAN_CLASS_COUNTS: Mapping[str, int] = {"<=50K": 34014, ">50K": 11208}
ADULT_ARCHIVE_URL = "https://archive.ics.uci.edu/static/public/2/adult.zip"
ADULT_PAGE_URL = "https://archive.ics.uci.edu/dataset/2/adult"


# ===================================================================== Dataset
@dataclass(eq=False, repr=False)
class Dataset:
    """A data set: features, labels, the public domain and where it comes from.

    Returned by :func:`load` and by the synthetic generators.

    Parameters
    ----------
    name : str
        Short name, e.g. ``"votes"``.
    X : DataFrame
        The features, one column per attribute of ``domain`` (same names).
    y : Series
        The class labels, one per row of ``X``.
    domain : Domain
        The public schema (documented values, bounds and classes).
    citation : str
        How to cite the data.
    description : str
        What the data is, which paper uses it and how it was preprocessed.
    url : str
        Where the data is documented.
    test : Dataset or None
        A held-out part, when one was asked for (e.g. Adult's original split).
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    domain: Domain
    citation: str = ""
    description: str = ""
    url: str = ""
    test: Dataset | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.X, pd.DataFrame):
            raise InvalidParameterError(
                f"X must be a pandas DataFrame, got {type(self.X).__name__}"
            )
        if not isinstance(self.y, pd.Series):
            raise InvalidParameterError(f"y must be a pandas Series, got {type(self.y).__name__}")
        if len(self.X) != len(self.y):
            raise InvalidParameterError(
                f"X has {len(self.X)} rows but y has {len(self.y)} labels"
            )
        if not isinstance(self.domain, Domain):
            raise InvalidParameterError(
                f"domain must be a Domain, got {type(self.domain).__name__}"
            )
        if list(self.X.columns) != list(self.domain.names):
            raise InvalidParameterError(
                f"the columns of X {list(self.X.columns)} do not match the domain's attributes "
                f"{list(self.domain.names)}"
            )

    # ------------------------------------------------------------------ properties
    @property
    def n_rows(self) -> int:
        """Number of rows (not counting ``test``)."""
        return len(self.X)

    @property
    def n_attributes(self) -> int:
        """Number of attributes (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def class_counts(self) -> pd.Series:
        """Number of rows of each class, in the domain's class order (zeros included)."""
        counts = self.y.value_counts().reindex(list(self.domain.classes), fill_value=0)
        counts.index.name = self.domain.target
        return counts.astype(np.int64).rename("count")

    # ------------------------------------------------------------------ helpers
    def encode(self) -> tuple[np.ndarray, np.ndarray]:
        """Encode ``X`` and ``y`` with the domain (see :meth:`Domain.encode`)."""
        return self.domain.encode(self.X), self.domain.encode_labels(self.y)

    def copy(self) -> Dataset:
        """Return a deep copy of the frames (the domain is immutable and shared)."""
        return Dataset(
            name=self.name,
            X=self.X.copy(deep=True),
            y=self.y.copy(deep=True),
            domain=self.domain,
            citation=self.citation,
            description=self.description,
            url=self.url,
            test=None if self.test is None else self.test.copy(),
        )

    def _counts_text(self) -> str:
        counts = self.class_counts
        total = max(int(counts.sum()), 1)
        def share(n: int) -> str:
            pct = 100 * n / total
            return f"{pct:.1f}%" if n == 0 or pct >= 0.1 else "<0.1%"

        return ", ".join(f"{c} {int(n)} ({share(int(n))})" for c, n in counts.items())

    def __repr__(self) -> str:
        n_cat = int(self.domain.categorical_mask.sum())
        text = (
            f"Dataset({self.name!r}: {self.n_rows} rows × {self.n_attributes} attributes "
            f"({n_cat} categorical, {self.n_attributes - n_cat} numeric); "
            f"{self.domain.target}: {self._counts_text()}"
        )
        if self.test is not None:
            text += f"; test: {self.test.n_rows} rows"
        return text + ")"

    def summary(self) -> str:
        """Describe the data set in a few lines: size, classes, test part, source, citation."""
        n_cat = int(self.domain.categorical_mask.sum())
        lines = [
            f"{self.name}: {self.n_rows} rows × {self.n_attributes} attributes "
            f"({n_cat} categorical, {self.n_attributes - n_cat} numeric)",
            f"classes ({self.domain.target}): {self._counts_text()}",
        ]
        if self.test is not None:
            lines.append(f"test part: {self.test.n_rows} rows; {self.test._counts_text()}")
        if self.description:
            lines.append(self.description)
        if self.url:
            lines.append(f"source: {self.url}")
        if self.citation:
            lines.append(f"cite: {self.citation}")
        return "\n".join(lines)


# ===================================================================== raw files
@dataclass(frozen=True)
class _RawFile:
    """What the documentation says about one raw file (checked on every read)."""

    filename: str
    columns: tuple[str, ...]
    label: str
    rows: int
    class_counts: Mapping[str, int]
    allowed: Mapping[str, frozenset[str]]  # categorical column -> documented values (+ "?")
    integer_columns: tuple[str, ...] = ()
    label_suffix: str = ""  # removed from every label (adult.test writes "<=50K.")


def _normalized(data: bytes) -> bytes:
    """A raw file in normal form: lines stripped, each ended by a newline, no blank lines."""
    return b"".join(line.strip() + b"\n" for line in data.splitlines() if line.strip())


def _check_digest(path: Path, data: bytes, digest: str, spec: _RawFile) -> None:
    """Refuse a file that is not, byte for byte or in normal form, the official UCI file."""
    expected = SHA256[spec.filename]
    if digest == expected:
        return
    if hashlib.sha256(_normalized(data)).hexdigest() == SHA256_NORMALIZED[spec.filename]:
        return
    raise DataIntegrityError(
        f"{spec.filename} (in {path.parent}) is not the official UCI file: its SHA-256 is "
        f"{digest}, expected {expected} (or {SHA256_NORMALIZED[spec.filename]} after "
        "normalizing line endings and blank lines). The file was edited or damaged even "
        "though its rows and class counts look right. Delete it so that it is downloaded "
        f"again (or copy the official file there), or set {ENV_VAR} to a folder holding the "
        "official UCI files; see data/README.md"
    )


def _read_raw(path: Path, spec: _RawFile, data: bytes | None = None) -> pd.DataFrame:
    """Parse one raw UCI file and check it against the documented facts and digest.

    Blank lines and comment lines (starting with ``|``) are skipped and every
    field is stripped of surrounding whitespace. Raises
    :class:`DataIntegrityError` naming the file when the columns, rows, class
    counts or values differ from the documentation, or, when those look right,
    when the file's SHA-256 is not the official one (:data:`SHA256`).
    """
    if data is None:
        data = _read_bytes(path)
    frame = _parse_raw(data, f"{spec.filename} (in {path.parent})", spec)
    _check_digest(path, data, hashlib.sha256(data).hexdigest(), spec)
    return frame


def _parse_raw(data: bytes, where: str, spec: _RawFile) -> pd.DataFrame:
    """Parse the bytes of a raw file and check the documented rows, classes and values."""
    text = data.decode("utf-8", errors="replace")
    lines = [s for s in (ln.strip() for ln in text.splitlines()) if s and not s.startswith("|")]
    if len(lines) != spec.rows:
        raise DataIntegrityError(
            f"{where}: expected {spec.rows} rows, found {len(lines)}; the file is damaged or "
            "is not the UCI file; delete it to download it again"
        )
    body = "\n".join(lines).replace(", ", ",")  # adult's fields are separated by ", "
    if ", " in body or " ," in body or "\t" in body:
        body = re.sub(r"[ \t]*,[ \t]*", ",", body)
    try:
        frame = pd.read_csv(io.StringIO(body), header=None, dtype=str, na_filter=False)
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataIntegrityError(
            f"{where}: cannot be parsed as comma-separated values ({exc})"
        ) from None
    if frame.shape[1] != len(spec.columns) or frame.isna().to_numpy().any():
        raise DataIntegrityError(
            f"{where}: expected {len(spec.columns)} comma-separated fields on every row, found "
            f"{frame.shape[1]} columns (or short rows)"
        )
    frame.columns = list(spec.columns)
    if spec.label_suffix:
        frame[spec.label] = frame[spec.label].str.removesuffix(spec.label_suffix)
    found = {str(k): int(v) for k, v in frame[spec.label].value_counts().items()}
    if found != dict(spec.class_counts):
        raise DataIntegrityError(
            f"{where}: expected class counts {dict(spec.class_counts)}, found {found}"
        )
    for column, allowed in spec.allowed.items():
        bad = ~frame[column].isin(allowed)
        if bad.any():
            value = frame[column][bad].iloc[0]
            raise DataIntegrityError(
                f"{where}: column {column!r} holds {value!r} ({int(bad.sum())} rows), which is "
                f"not in the documented values {sorted(allowed)}"
            )
    for column in spec.integer_columns:
        try:
            frame[column] = np.array(frame[column].to_numpy(dtype=object), dtype=np.int64)
        except (TypeError, ValueError):
            values = pd.to_numeric(frame[column], errors="coerce")
            value = frame[column][values.isna() | (values != np.round(values))].iloc[0]
            raise DataIntegrityError(
                f"{where}: column {column!r} holds {value!r}, not an integer"
            ) from None
    return frame


_MUSHROOM_VALUES: dict[str, tuple[str, ...]] = {
    name: tuple(code for code, _ in pairs) for name, pairs in MUSHROOM_ATTRIBUTES
}
_MUSHROOM_CLASS_CODES = tuple(code for code, _ in MUSHROOM_CLASSES)

_NURSERY_FILE = _RawFile(
    filename="nursery.data",
    columns=(*(name for name, _ in NURSERY_ATTRIBUTES), "class"),
    label="class",
    rows=NURSERY_ROWS,
    class_counts=NURSERY_CLASS_COUNTS,
    allowed={name: frozenset(values) for name, values in NURSERY_ATTRIBUTES},
)
_MUSHROOM_FILE = _RawFile(
    filename="agaricus-lepiota.data",
    columns=("class", *_MUSHROOM_VALUES),
    label="class",
    rows=MUSHROOM_ROWS,
    class_counts=MUSHROOM_CLASS_COUNTS,
    allowed={
        name: frozenset(values) | ({MISSING} if name == MUSHROOM_MISSING_ATTRIBUTE else set())
        for name, values in _MUSHROOM_VALUES.items()
    },
)
_VOTES_FILE = _RawFile(
    filename="house-votes-84.data",
    columns=("party", *VOTES_BILLS),
    label="party",
    rows=VOTES_ROWS,
    class_counts=VOTES_CLASS_COUNTS,
    allowed={bill: frozenset((*VOTES_VALUES, MISSING)) for bill in VOTES_BILLS},
)
_ADULT_ALLOWED = {
    name: frozenset((*values, MISSING)) for name, values in ADULT_CATEGORICAL.items()
}
_ADULT_DATA_FILE = _RawFile(
    filename="adult.data",
    columns=(*ADULT_COLUMNS, "income"),
    label="income",
    rows=ADULT_DATA_ROWS,
    class_counts=ADULT_DATA_CLASS_COUNTS,
    allowed=_ADULT_ALLOWED,
    integer_columns=tuple(ADULT_NUMERIC_BOUNDS),
)
_ADULT_TEST_FILE = _RawFile(
    filename="adult.test",
    columns=(*ADULT_COLUMNS, "income"),
    label="income",
    rows=ADULT_TEST_ROWS,
    class_counts=ADULT_TEST_CLASS_COUNTS,
    allowed=_ADULT_ALLOWED,
    integer_columns=tuple(ADULT_NUMERIC_BOUNDS),
    label_suffix=".",
)


# ===================================================================== builders
def _split(frame: pd.DataFrame, label: str) -> tuple[pd.DataFrame, pd.Series]:
    frame = frame.reset_index(drop=True)
    return frame.drop(columns=[label]), frame[label]


def _uci_citation(donors: str, title: str, page: str) -> str:
    return f"{donors} {title} [Dataset]. UCI Machine Learning Repository, {page}. " \
           f"Licence {LICENCE}. {UCI_CITATION}"


_NURSERY_CITATION = _uci_citation(
    "Rajkovič, V. (donor); Bohanec, M., Rajkovič, V. (1990). Expert system for decision "
    "making. Sistemica 1(1), 145-157; Zupan, B., Bohanec, M., Bratko, I., Demšar, J. (1997). "
    "Machine learning by function decomposition. ICML-97.",
    "Nursery", NURSERY_PAGE_URL,
)
_MUSHROOM_CITATION = _uci_citation(
    "Schlimmer, J. C. (donor, 1987). Concept acquisition through representational adjustment. "
    "PhD thesis, University of California, Irvine; source: The Audubon Society Field Guide "
    "to North American Mushrooms (1981), G. H. Lincoff (Pres.), New York: Alfred A. Knopf.",
    "Mushroom", MUSHROOM_PAGE_URL,
)
_VOTES_CITATION = _uci_citation(
    "Schlimmer, J. C. (donor, 1987); source: Congressional Quarterly Almanac, 98th Congress, "
    "2nd session 1984, Volume XL. Washington, D.C.: Congressional Quarterly Inc., 1985.",
    "Congressional Voting Records", VOTES_PAGE_URL,
)
_ADULT_CITATION = _uci_citation(
    "Becker, B., Kohavi, R. (1996).",
    "Adult", ADULT_PAGE_URL,
)


def _build_nursery(raw: Mapping[str, pd.DataFrame]) -> Dataset:
    features, y = _split(raw["nursery.data"], "class")
    domain = Domain([Categorical(n, v) for n, v in NURSERY_ATTRIBUTES], NURSERY_CLASSES,
                    target="class")
    description = (
        "Nursery school applications in Ljubljana (1980s), ranked by a hierarchical decision "
        "model; a full factorial design (every combination of the 8 attributes once). Used by "
        "JPW, RDT# and FI. No missing values. The file has 5 classes (recommend has 2 rows); "
        "JPW's Table II says 3 and FI says 4, we keep the file's 5."
    )
    return Dataset("nursery", features, y, domain, _NURSERY_CITATION, description, NURSERY_PAGE_URL)


def _build_mushroom(raw: Mapping[str, pd.DataFrame], *, missing: str) -> Dataset:
    frame = raw["agaricus-lepiota.data"]
    absent = frame[MUSHROOM_MISSING_ATTRIBUTE] == MISSING
    if int(absent.sum()) != MUSHROOM_MISSING_ROWS:
        raise DataIntegrityError(
            f"agaricus-lepiota.data: expected {MUSHROOM_MISSING_ROWS} rows with a missing "
            f"{MUSHROOM_MISSING_ATTRIBUTE}, found {int(absent.sum())}"
        )
    names = list(_MUSHROOM_VALUES)
    if missing == "drop_attribute":
        frame = frame.drop(columns=[MUSHROOM_MISSING_ATTRIBUTE])
        names.remove(MUSHROOM_MISSING_ATTRIBUTE)
        how = (f"the attribute {MUSHROOM_MISSING_ATTRIBUTE} (the only one with missing values) "
               "is dropped, as JPW and RDT# did: 21 attributes, 8124 rows")
    else:
        frame = frame[~absent]
        how = (f"the {MUSHROOM_MISSING_ROWS} rows with a missing {MUSHROOM_MISSING_ATTRIBUTE} "
               "are dropped, as FI's Tables 3-4 did: 22 attributes, 5644 rows")
    features, y = _split(frame[[*names, "class"]], "class")
    domain = Domain([Categorical(n, _MUSHROOM_VALUES[n]) for n in names], _MUSHROOM_CLASS_CODES,
                    target="class")
    description = (
        "Hypothetical samples of 23 species of gilled mushrooms (Agaricus and Lepiota), "
        "edible (e) or poisonous (p, including 'unknown edibility'). Values are the file's "
        "one-letter codes; decode_mushroom() gives the documented names. Used by JPW, RDT# "
        f"and FI. Missing values: {how}. Which attribute or rows to drop was decided by "
        "looking at the data, outside the privacy analysis, as the papers did."
    )
    return Dataset("mushroom", features, y, domain, _MUSHROOM_CITATION, description,
                   MUSHROOM_PAGE_URL)


def _build_votes(raw: Mapping[str, pd.DataFrame]) -> Dataset:
    frame = raw["house-votes-84.data"].copy()
    n_missing = 0
    for bill in VOTES_BILLS:
        votes = frame[bill]
        absent = votes == MISSING
        counts = votes[~absent].value_counts()
        # Majority over the non-missing votes; a tie goes to the documented first value "y".
        majority = max(VOTES_VALUES, key=lambda v: (int(counts.get(v, 0)), v == VOTES_VALUES[0]))
        frame.loc[absent, bill] = majority
        n_missing += int(absent.sum())
    features, y = _split(frame, "party")
    domain = Domain([Categorical(b, VOTES_VALUES) for b in VOTES_BILLS], VOTES_CLASSES,
                    target="party")
    description = (
        "Votes of the 435 members of the U.S. House of Representatives on 16 key bills of "
        "1984 (y/n), labelled by party. Used by JPW and RDT#. Missing values: each of the "
        f"{n_missing} '?' (did not vote yea or nay) is replaced by that bill's majority vote "
        "over the file's non-missing votes, as the papers did. This imputation reads the data "
        "outside the privacy analysis (it is not differentially private)."
    )
    return Dataset("votes", features, y, domain, _VOTES_CITATION, description, VOTES_PAGE_URL)


def _adult_domain() -> Domain:
    attributes: list[Categorical | Numeric] = []
    for name in ADULT_COLUMNS:
        if name in ADULT_NUMERIC_BOUNDS:
            low, high = ADULT_NUMERIC_BOUNDS[name]
            attributes.append(Numeric(name, low, high))
        else:
            attributes.append(Categorical(name, ADULT_CATEGORICAL[name]))
    return Domain(attributes, ADULT_CLASSES, target="income")


def _drop_missing_rows(frame: pd.DataFrame, filename: str, expected: int) -> pd.DataFrame:
    categorical = list(ADULT_CATEGORICAL)
    clean = frame[~(frame[categorical] == MISSING).any(axis=1)]
    if len(clean) != expected:
        raise DataIntegrityError(
            f"{filename}: expected {expected} rows without '?', found {len(clean)}"
        )
    return clean


def _build_adult(raw: Mapping[str, pd.DataFrame], *, split: str) -> Dataset:
    train = _drop_missing_rows(raw["adult.data"], "adult.data", ADULT_DATA_CLEAN_ROWS)
    test = _drop_missing_rows(raw["adult.test"], "adult.test", ADULT_TEST_CLEAN_ROWS)
    domain = _adult_domain()
    common = (
        "1994 US Census (CPS) extract; predict whether income exceeds 50K. 6 numeric attributes "
        "with public bounds from the documentation, 8 nominal. Missing values: the rows with a "
        "'?' (in workclass, occupation or native-country) are dropped."
    )
    if split == "merged":
        merged = pd.concat([train, test], ignore_index=True)
        found = {str(k): int(v) for k, v in merged["income"].value_counts().items()}
        if found != dict(ADULT_CLEAN_CLASS_COUNTS):
            raise DataIntegrityError(
                f"adult.data + adult.test without '?': expected class counts "
                f"{dict(ADULT_CLEAN_CLASS_COUNTS)}, found {found}"
            )
        features, y = _split(merged, "income")
        description = (f"{common} adult.data and adult.test are merged: 45222 rows, as "
                       "Friedman & Schuster (FS, Fig. 8) used.")
        return Dataset("adult", features, y, domain, _ADULT_CITATION, description, ADULT_PAGE_URL)
    features_test, y_test = _split(test, "income")
    held_out = Dataset("adult (test)", features_test, y_test, domain, _ADULT_CITATION,
                       f"{common} The original test file adult.test: 15060 rows.", ADULT_PAGE_URL)
    features, y = _split(train, "income")
    description = (f"{common} The original split: adult.data gives 30162 rows (the size FI's "
                   "Table 3 reports) and .test holds adult.test's 15060 rows.")
    return Dataset("adult", features, y, domain, _ADULT_CITATION, description, ADULT_PAGE_URL,
                   test=held_out)


# ===================================================================== registry
@dataclass(frozen=True)
class _Spec:
    files: tuple[_RawFile, ...]
    archive_url: str
    build: Callable[..., Dataset]
    options: Mapping[str, tuple[str, ...]]  # option -> allowed values, the first is the default
    extras: tuple[str, ...] = ()  # documentation files also extracted from the archive


_SPECS: dict[str, _Spec] = {
    "nursery": _Spec((_NURSERY_FILE,), NURSERY_ARCHIVE_URL, _build_nursery, {}),
    "mushroom": _Spec((_MUSHROOM_FILE,), MUSHROOM_ARCHIVE_URL, _build_mushroom,
                      {"missing": ("drop_attribute", "drop_rows")}),
    "votes": _Spec((_VOTES_FILE,), VOTES_ARCHIVE_URL, _build_votes, {}),
    "adult": _Spec((_ADULT_DATA_FILE, _ADULT_TEST_FILE), ADULT_ARCHIVE_URL, _build_adult,
                   {"split": ("merged", "original")}, extras=("adult.names",)),
}


def available() -> list[str]:
    """Names accepted by :func:`load`: ``["nursery", "mushroom", "votes", "adult"]``."""
    return list(_SPECS)


def data_dir() -> Path:
    """Return the cache folder of the raw files.

    ``$DPVIZ_DATA`` if that environment variable is set (and not empty), else the
    project's ``data/`` folder (next to the ``dpviz`` package).
    """
    return _cache_folder()


def _cache_folder() -> Path:
    override = os.environ.get(ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(__file__).resolve().parents[2] / "data"


def decode_mushroom(frame: pd.DataFrame) -> pd.DataFrame:
    """Replace Mushroom's one-letter codes by the documented names (for display only).

    Parameters
    ----------
    frame : DataFrame
        Columns named like Mushroom's attributes (any subset) and optionally a
        ``class`` column of ``e``/``p``; other columns are left as they are.

    Returns
    -------
    DataFrame
        A copy with e.g. ``"x"`` shown as ``"convex"`` in ``cap-shape``.
    """
    names = {name: dict(pairs) for name, pairs in MUSHROOM_ATTRIBUTES}
    names["class"] = dict(MUSHROOM_CLASSES)
    out = frame.copy()
    for column in out.columns:
        if column in names:
            out[column] = out[column].map(lambda v, m=names[column]: m.get(v, v))
    return out


# ===================================================================== cache and download
def _fetch(url: str) -> bytes:
    """Download ``url`` (the only network access of dpviz; tests monkeypatch it)."""
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
        return response.read()


def _unavailable(filename: str, folder: Path, url: str, reason: str) -> DataUnavailableError:
    error = DataUnavailableError(_missing_message([filename], folder, [url], reason))
    error.reason = reason
    return error


def _missing_message(
    filenames: Sequence[str], folder: Path, urls: Sequence[str], reason: str
) -> str:
    """What is missing, where dpviz looked, why it was not downloaded, and how to get it."""
    return (
        f"UCI data file(s) missing: {', '.join(filenames)} not in {folder} ({reason}).\n"
        f"To get them: run `make data` where the internet can be reached (they download on "
        f"first use), or download {' '.join(urls)}, unzip, and copy those files into {folder} "
        f"(or set {ENV_VAR} to a folder holding them)."
    )


def ensure_files(names: Sequence[str] | None = None, *, download: bool = True) -> Path:
    """Make sure the raw files of ``names`` (default: every data set) are in :func:`data_dir`.

    Missing files are downloaded (as :func:`load` does); after the first failed download the
    others are not tried (offline, each would fail the same way).

    Returns
    -------
    Path
        The cache folder.

    Raises
    ------
    DataUnavailableError
        One message naming every file that is still missing, where dpviz looked and how to
        get the files; or, first, the data folder that is a file or the data file that is a
        folder.
    """
    folder = _cache_folder()
    missing: list[str] = []
    urls: list[str] = []
    reason = "download=False" if not download else ""
    for name in available() if names is None else [str(n).strip().lower() for n in names]:
        if name not in _SPECS:
            raise UnknownDatasetError(
                f"unknown data set {name!r}; the known data sets are {', '.join(available())}"
            )
        spec = _SPECS[name]
        _check_places(spec, folder)  # not "missing": a file or folder is in the way
        try:
            _locate(spec, folder, download and not missing)
        except DataUnavailableError as exc:
            reason = reason or getattr(exc, "reason", "")
            missing += [raw.filename for raw in spec.files if not (folder / raw.filename).is_file()]
            urls.append(spec.archive_url)
    if missing:
        raise DataUnavailableError(_missing_message(missing, folder, urls, reason))
    return folder


def _extract(payload: bytes, filename: str) -> bytes | None:
    """Return the member called ``filename`` (at any depth) of a zip archive, or None."""
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        candidates = [
            info for info in archive.infolist()
            if not info.is_dir()
            and PurePosixPath(info.filename.replace("\\", "/")).name == filename
            and not info.filename.startswith("__MACOSX")
        ]
        if not candidates:
            return None
        best = min(candidates, key=lambda info: (info.filename.count("/"), info.filename))
        return archive.read(best)


def _write_atomic(target: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _download(spec: _Spec, missing: list[_RawFile], folder: Path) -> None:
    """Fetch the archive once, write the missing files atomically, then check them."""
    first = missing[0].filename
    try:
        payload = _fetch(spec.archive_url)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        # OSError covers urllib.error.URLError / HTTPError and socket timeouts.
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise _unavailable(first, folder, spec.archive_url, f"download failed: {reason}") from None
    members: dict[str, bytes] = {}
    try:
        for raw in missing:
            data = _extract(payload, raw.filename)
            if data is None:
                raise _unavailable(raw.filename, folder, spec.archive_url,
                                   "the downloaded archive has no such member")
            members[raw.filename] = data
        extras = {name: _extract(payload, name) for name in spec.extras
                  if not (folder / name).is_file()}
    except (zipfile.BadZipFile, NotImplementedError, EOFError, zlib.error) as exc:
        raise _unavailable(first, folder, spec.archive_url,
                           f"the download is not a valid zip archive: {exc}") from exc
    written: list[Path] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in members.items():
            _write_atomic(folder / name, data)
            written.append(folder / name)
        for name, extra in extras.items():  # documentation only: not checked
            if extra is not None:
                _write_atomic(folder / name, extra)
                written.append(folder / name)
    except OSError as exc:
        raise _unavailable(first, folder, spec.archive_url,
                           f"cannot write to the cache folder: {exc}") from exc
    for raw in missing:
        path = folder / raw.filename
        try:
            _read_raw(path, raw)
        except DataIntegrityError as exc:
            for p in written:
                with contextlib.suppress(OSError):
                    p.unlink()
            raise DataIntegrityError(
                f"the file downloaded from {spec.archive_url} failed its check and was removed: "
                f"{exc}"
            ) from exc


def _check_places(spec: _Spec, folder: Path) -> None:
    """Refuse a data folder that is a file, or a data file that is a folder, naming it."""
    if folder.exists() and not folder.is_dir():
        raise DataUnavailableError(
            f"UCI data folder {folder} is a file, not a folder.\n"
            f"To fix: set {ENV_VAR} (or load's data_dir) to the folder holding the UCI files, "
            "or unset it to use the project's data/ folder."
        )
    for raw in spec.files:
        path = folder / raw.filename
        if path.exists() and not path.is_file():
            raise DataUnavailableError(
                f"UCI data file {raw.filename} in {folder} is not a regular file (a folder?).\n"
                f"To fix: remove or rename {path}; the file is then downloaded on first use "
                f"(or copy it there from {spec.archive_url})."
            )


def _read_bytes(path: Path) -> bytes:
    """The content of a raw file; an unreadable one raises :class:`DataUnavailableError`."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DataUnavailableError(
            f"UCI data file {path.name} in {path.parent} cannot be read "
            f"({exc.strerror or exc}).\n"
            f"To fix: make it readable (chmod a+r {path}), or delete it so that it is downloaded "
            f"again, or set {ENV_VAR} to a folder holding readable copies."
        ) from exc


def _locate(spec: _Spec, folder: Path, download: bool) -> list[Path]:
    _check_places(spec, folder)
    missing = [raw for raw in spec.files if not (folder / raw.filename).is_file()]
    if missing:
        if not download:
            raise _unavailable(", ".join(r.filename for r in missing), folder, spec.archive_url,
                               "download=False")
        _download(spec, missing, folder)
    return [folder / raw.filename for raw in spec.files]


#: In-memory caches of parsed files and built data sets, keyed on the SHA-256 of the
#: files' content (never on a modification time, which an edit can restore). Only files
#: that passed every check are stored; callers must not mutate the stored objects.
_CACHE_SIZE = 16
_T = TypeVar("_T")
_FRAMES: OrderedDict[tuple[str, str], pd.DataFrame] = OrderedDict()
_DATASETS: OrderedDict[tuple[object, ...], Dataset] = OrderedDict()


def _remember(cache: OrderedDict[Any, _T], key: tuple[object, ...], make: Callable[[], _T]) -> _T:
    """``cache[key]``, computed by ``make()`` on a miss (least recently used evicted)."""
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    value = make()
    cache[key] = value
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def _load_files(
    name: str, options: tuple[tuple[str, str], ...], paths: list[Path]
) -> Dataset:
    """Read the files, then parse, check and build unless their content was seen before."""
    spec = _SPECS[name]
    contents = [_read_bytes(path) for path in paths]
    digests = tuple(hashlib.sha256(data).hexdigest() for data in contents)

    def frame(raw: _RawFile, path: Path, data: bytes, digest: str) -> pd.DataFrame:
        return _remember(_FRAMES, (raw.filename, digest), lambda: _read_raw(path, raw, data))

    def build() -> Dataset:
        frames = {
            raw.filename: frame(raw, path, data, digest)
            for raw, path, data, digest in zip(spec.files, paths, contents, digests, strict=True)
        }
        return spec.build(frames, **dict(options))

    return _remember(_DATASETS, (name, options, digests), build)


def _check_options(
    name: str, spec: _Spec, options: Mapping[str, object]
) -> tuple[tuple[str, str], ...]:
    unknown = sorted(set(options) - set(spec.options))
    if unknown:
        accepted = ", ".join(f"{k}={v!r}" for k, v in spec.options.items()) or "no options"
        raise InvalidParameterError(
            f"load({name!r}) got unknown option(s) {unknown}; {name!r} accepts {accepted}"
        )
    chosen = []
    for key, allowed in spec.options.items():
        value = options.get(key, allowed[0])
        if value not in allowed:
            raise InvalidParameterError(
                f"load({name!r}): {key} must be one of {list(allowed)}, got {value!r}"
            )
        chosen.append((key, str(value)))
    return tuple(chosen)


def load(
    name: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    download: bool = True,
    **options: str,
) -> Dataset:
    """Load one of the papers' UCI data sets with its documented public domain.

    Parameters
    ----------
    name : {"nursery", "mushroom", "votes", "adult"}
        The data set (case-insensitive); see :func:`available`.
    data_dir : path, optional
        Folder holding the raw files; default :func:`data_dir` (``$DPVIZ_DATA`` or
        the project's ``data/``).
    download : bool
        Download a missing file from the official UCI archive (default). With
        ``False`` a missing file raises :class:`DataUnavailableError`.
    **options
        ``mushroom``: ``missing="drop_attribute"`` (default; drop stalk-root, 21
        attributes, 8124 rows, as JPW and RDT#) or ``missing="drop_rows"`` (all 22
        attributes, drop the 2480 rows with a missing stalk-root, 5644 rows, as FI).
        ``adult``: ``split="merged"`` (default; train and test merged, 45222 rows, as
        FS) or ``split="original"`` (adult.data's 30162 rows, with ``.test`` holding
        adult.test's 15060). ``nursery`` and ``votes`` take no options.

    Returns
    -------
    Dataset
        A fresh copy: mutating it does not affect later loads.

    Raises
    ------
    UnknownDatasetError
        ``name`` is not one of :func:`available`.
    InvalidParameterError
        An unknown option or option value.
    DataUnavailableError
        A file is missing and could not be downloaded (offline, or ``download=False``),
        cannot be read, or is a folder; or the data folder is a file.
    DataIntegrityError
        A file does not have the documented rows, class counts or values, or its
        SHA-256 is not the official UCI file's (:data:`SHA256`; a mirror's other line
        endings or blank lines are accepted, :data:`SHA256_NORMALIZED`). The message
        names the file, both digests and the fix (delete the file so that it is
        downloaded again, or point ``DPVIZ_DATA`` elsewhere).

    Notes
    -----
    Missing values are handled as in the papers. Votes: each ``?`` is replaced
    by that bill's majority vote, computed over the file's non-missing votes.
    This preprocessing reads the data outside the privacy analysis, as the
    papers did; it is not differentially private. Mushroom drops the attribute
    (or the rows) with missing values, a choice also made by looking at the
    data. Adult drops the rows with a ``?``; Nursery has no missing values.

    Every call reads the raw files and hashes them (SHA-256): the parsed data are
    cached in memory on that digest, so an edited file is seen at once, even when
    its modification time was restored. On Adult, the largest (6 MB), this costs
    about 5 ms per call (a cached load went from about 1.3 ms to 6.5 ms; a first
    load, about 130 ms of parsing, by about 15 ms).

    Examples
    --------
    >>> votes = load("votes")  # doctest: +SKIP
    >>> votes.class_counts  # doctest: +SKIP
    """
    key = str(name).strip().lower()
    if key not in _SPECS:
        raise UnknownDatasetError(
            f"unknown data set {name!r}; the known data sets are {', '.join(available())}"
        )
    spec = _SPECS[key]
    chosen = _check_options(key, spec, options)
    folder = Path(data_dir).expanduser() if data_dir is not None else _cache_folder()
    paths = _locate(spec, folder, download)
    return _load_files(key, chosen, paths).copy()


def main() -> None:
    """``make data``: fetch what is missing, or say in a few lines how to get it (exit 1)."""
    try:
        print(f"UCI data files present in {ensure_files()}")
    except DataUnavailableError as exc:
        raise SystemExit(f"dpviz: {exc}") from None
