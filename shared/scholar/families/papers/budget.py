"""The failed-source entries of a papers answer (its size budget is scholar.core.budget)."""

from __future__ import annotations

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.errors import ScholarError
from scholar.core.records import FailedSource

__all__ = ["MAX_RESULT_CHARS", "failed"]


def failed(err: ScholarError, source: str | None = None) -> FailedSource:
    """The ``failed_sources`` entry for an error a source raised."""
    return FailedSource(source=err.source or source or "unknown", code=err.code, status=err.status, message=err.message)
