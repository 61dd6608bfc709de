"""dpviz: an interactive workbook for differentially private decision trees."""

from dpviz.domain import Categorical, Domain, Numeric

__all__ = ["Categorical", "Domain", "Numeric"]
__version__ = "0.1.0"
