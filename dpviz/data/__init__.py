"""Data: the UCI loaders, the synthetic generators and the published numbers.

* :mod:`~dpviz.data.uci` — the UCI data sets, their documented domains and digests;
* :mod:`~dpviz.data.synthetic` — Fletcher & Islam's synthetic data sets and small examples;
* :mod:`~dpviz.data.published` — the papers' published numbers.
"""

from dpviz.data.uci import Dataset, load

__all__ = ["Dataset", "load"]
