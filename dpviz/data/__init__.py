"""Data: the UCI loaders (uci), the papers' generators (synthetic) and numbers (published)."""

from dpviz.data.uci import Dataset, load

__all__ = ["Dataset", "load"]
