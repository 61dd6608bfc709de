"""The empirical privacy audit: engine, exact_laws, targets (the releases audited), suite."""

from dpviz.audit.engine import AuditResult, audit

__all__ = ["AuditResult", "audit"]
