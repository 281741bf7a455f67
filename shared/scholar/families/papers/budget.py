"""The size budget of a papers answer (DESIGN §4): how many leading items fit, and the failed-source entries."""

from __future__ import annotations

from pydantic import BaseModel

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.errors import ScholarError
from scholar.core.records import FailedSource

__all__ = ["MAX_RESULT_CHARS", "failed", "fit"]


def fit(items: list[BaseModel], reserve: int = 2_000) -> tuple[list[BaseModel], bool]:
    """The leading items whose JSON fits the size budget (less ``reserve`` for the rest of the answer)."""
    used = 0
    for position, item in enumerate(items):
        used += len(item.model_dump_json()) + 1
        if used > MAX_RESULT_CHARS - reserve:
            return items[:position], True
    return items, False


def failed(err: ScholarError, source: str | None = None) -> FailedSource:
    """The ``failed_sources`` entry for an error a source raised."""
    return FailedSource(source=err.source or source or "unknown", code=err.code, status=err.status, message=err.message)
