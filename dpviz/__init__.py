"""dpviz: an interactive workbook for differentially private decision trees.

The library behind the notebooks: public domains and data sets, the noise
mechanisms, the PINQ-style privacy layer, and (as they land) the private tree
algorithms of the four papers, the privacy audit and the chart builders.
"""

from dpviz.datasets import Dataset, load
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import (
    BudgetExceededError,
    NotProvenPrivateWarning,
    PrivacyLeakWarning,
)
from dpviz.privacy import Ledger, PrivateTable

__all__ = [
    "BudgetExceededError",
    "Categorical",
    "Dataset",
    "Domain",
    "Ledger",
    "NotProvenPrivateWarning",
    "Numeric",
    "PrivacyLeakWarning",
    "PrivateTable",
    "load",
]
__version__ = "0.1.0"
