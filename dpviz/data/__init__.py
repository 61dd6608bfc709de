"""Data: the UCI loaders, the papers' synthetic generators and their published numbers.

Modules :mod:`~dpviz.data.uci`, :mod:`~dpviz.data.synthetic`, :mod:`~dpviz.data.published`.
"""

from dpviz.data.uci import Dataset, load

__all__ = ["Dataset", "load"]
