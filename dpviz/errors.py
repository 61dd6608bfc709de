"""Exceptions and warnings raised by dpviz; every error names the parameter and the value."""

from __future__ import annotations


class DPVizError(Exception):
    """Base class of every dpviz error."""


class InvalidParameterError(DPVizError, ValueError):
    """A parameter has a value outside its documented range (e.g. ε ≤ 0 or NaN)."""


class BudgetExceededError(DPVizError, RuntimeError):
    """A query would spend more budget than remains (raised before any row is read)."""


class UnknownCategoryError(DPVizError, ValueError):
    """A categorical value is not in the attribute's public value list."""

    def __init__(self, attribute: str, value: object, allowed: tuple[str, ...]):
        self.attribute = attribute
        self.value = value
        self.allowed = allowed
        shown = ", ".join(map(repr, allowed[:12])) + (", ..." if len(allowed) > 12 else "")
        super().__init__(
            f"attribute {attribute!r} has value {value!r}, which is not in its public domain "
            f"({shown}); fix the data or pass unknown='random' at prediction time"
        )


class UnknownLabelError(DPVizError, ValueError):
    """A class label is not in the domain's public list of classes."""


class MissingValueError(DPVizError, ValueError):
    """The data holds missing values (NaN or None) where the domain has no place for them."""


class ColumnMismatchError(DPVizError, ValueError):
    """The columns of a DataFrame do not match the attributes of the domain."""


class EmptyDataError(DPVizError, ValueError):
    """The data has no rows (or a single class where two are needed)."""


class UnknownDatasetError(DPVizError, KeyError):
    """:func:`dpviz.data.uci.load` was asked for a data set it does not know."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class DataUnavailableError(DPVizError, FileNotFoundError):
    """A data file is missing (and could not be downloaded), unreadable, or not a file."""


class DataIntegrityError(DPVizError, ValueError):
    """A data file does not have the documented row or class counts."""


class PrivacyLeakWarning(UserWarning):
    """A parameter that should be public was derived from the private data (diffprivlib's name)."""


class NotProvenPrivateWarning(UserWarning):
    """A mechanism without a valid privacy proof is used, for teaching (docs/privacy.md §5)."""


class CacheUnavailableWarning(UserWarning):
    """The on-disk result cache (``$DPVIZ_CACHE``) cannot be written: results are recomputed."""
