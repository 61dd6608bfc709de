"""dpviz: an interactive workbook for differentially private decision trees.

The library behind the notebooks: public domains and data sets, the noise
mechanisms, the PINQ-style privacy layer, the private tree algorithms of the
four papers, the empirical privacy audit, and the chart builders. Importing it changes
nothing outside it: a notebook installs the missing-data hook in its setup cell
(``from dpviz.ui import kernel; kernel.install()``). Nor does it import the names below
until one is used (``dpviz.PrivateRDTClassifier``): an estimator brings scikit-learn and
SciPy (half a second), which a notebook's first chart may not need.
"""

import importlib
from typing import Any

#: Each name ``dpviz`` exports and the module that defines it.
_EXPORTS = {
    "Dataset": "dpviz.data.uci", "load": "dpviz.data.uci",
    "Categorical": "dpviz.domain", "Domain": "dpviz.domain", "Numeric": "dpviz.domain",
    "BudgetExceededError": "dpviz.errors", "NotProvenPrivateWarning": "dpviz.errors",
    "PrivacyLeakWarning": "dpviz.errors",
    "Ledger": "dpviz.privacy", "PrivateTable": "dpviz.privacy",
    "DPRandomForestClassifier": "dpviz.trees.forest",
    "DiffPC45Classifier": "dpviz.trees.id3", "DiffPID3Classifier": "dpviz.trees.id3",
    "SuLQID3Classifier": "dpviz.trees.id3",
    "PrivaTreeClassifier": "dpviz.trees.privatree",
    "PrivateRDTClassifier": "dpviz.trees.rdt", "RandomDecisionTreeClassifier": "dpviz.trees.rdt",
    "RDTSharpClassifier": "dpviz.trees.rdt_sharp",
    "fresh_seed": "dpviz.validation",
}

__all__ = sorted(_EXPORTS)
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """An exported name, imported from its module on first use (PEP 562)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'dpviz' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
