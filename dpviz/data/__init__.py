"""Data: the UCI loaders (uci), the papers' generators (synthetic) and numbers (published).

Which data sets there are, their ids and display names: :mod:`dpviz.data.catalogue`.
"""

from dpviz.data.uci import Dataset, load

__all__ = ["Dataset", "load"]
