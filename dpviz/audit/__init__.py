"""The empirical privacy audit.

* :mod:`~dpviz.audit.engine` — :func:`audit`: sample a release on neighbouring databases,
  bound ε from below with exact confidence intervals;
* :mod:`~dpviz.audit.exact_laws` — output distributions computed exactly, and the sampling
  test the exercises use;
* :mod:`~dpviz.audit.targets`, :mod:`~dpviz.audit.setups` — the releases audited and their
  worst-case neighbours;
* :mod:`~dpviz.audit.suite` — the claims table: every claim with its planted bug.
"""

from dpviz.audit.engine import AuditResult, audit

__all__ = ["AuditResult", "audit"]
