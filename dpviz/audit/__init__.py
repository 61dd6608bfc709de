"""The empirical privacy audit.

:mod:`~dpviz.audit.engine` (:func:`audit`: lower bounds on ε from samples on neighbours),
:mod:`~dpviz.audit.exact_laws` (exact output laws and the exercises' sampling test),
:mod:`~dpviz.audit.targets` (the releases audited, and notebook 06's setups) and
:mod:`~dpviz.audit.suite` (the claims table: every claim with its planted bug).
"""

from dpviz.audit.engine import AuditResult, audit

__all__ = ["AuditResult", "audit"]
