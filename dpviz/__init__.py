"""dpviz: an interactive workbook for differentially private decision trees.

The library behind the notebooks: public domains and data sets, the noise
mechanisms, the PINQ-style privacy layer, the private tree algorithms of the
four papers, the empirical privacy audit, and the chart builders. Importing it changes
nothing outside it: a notebook installs the missing-data hook in its setup cell
(``from dpviz.ui import kernel; kernel.install()``).
"""

from dpviz.data.uci import Dataset, load
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import BudgetExceededError, NotProvenPrivateWarning, PrivacyLeakWarning
from dpviz.privacy import Ledger, PrivateTable
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.privatree import PrivaTreeClassifier
from dpviz.trees.rdt import PrivateRDTClassifier, RandomDecisionTreeClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier
from dpviz.validation import fresh_seed

__all__ = [
    "BudgetExceededError", "Categorical", "DPRandomForestClassifier", "Dataset",
    "DiffPC45Classifier", "DiffPID3Classifier", "Domain", "Ledger", "NotProvenPrivateWarning",
    "Numeric", "PrivaTreeClassifier", "PrivacyLeakWarning", "PrivateRDTClassifier", "PrivateTable",
    "RDTSharpClassifier", "RandomDecisionTreeClassifier", "SuLQID3Classifier", "fresh_seed",
    "load",
]
__version__ = "0.1.0"
