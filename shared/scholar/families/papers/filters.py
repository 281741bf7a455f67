"""The papers tools' filters (year range, fields of study, citations): checked once, applied to S2 paper objects."""

from __future__ import annotations

from typing import Any

from scholar.core.errors import InvalidArgumentError
from scholar.families.papers.spec_graph import PaperFilters


def check_years(filters: PaperFilters) -> None:
    """Raises InvalidArgumentError when year_start is after year_end."""
    if filters.year_start and filters.year_end and filters.year_start > filters.year_end:
        raise InvalidArgumentError(
            f"year_start ({filters.year_start}) must not be after year_end ({filters.year_end})", field="year_start"
        )


def has_filters(filters: PaperFilters) -> bool:
    return any(
        v is not None for v in (filters.year_start, filters.year_end, filters.fields_of_study, filters.min_citations)
    )


def filter_fields(filters: PaperFilters) -> tuple[str, ...]:
    """The S2 fields a filter needs to see."""
    out: list[str] = []
    if filters.year_start is not None or filters.year_end is not None:
        out.append("year")
    if filters.fields_of_study:
        out.append("fieldsOfStudy")
    if filters.min_citations is not None:
        out.append("citationCount")
    return tuple(out)


def passes(row: dict[str, Any], filters: PaperFilters) -> bool:
    """Whether an S2 paper object passes the filters (unknown year or count fails a filter on it)."""
    year = row.get("year")
    if filters.year_start is not None and (year is None or year < filters.year_start):
        return False
    if filters.year_end is not None and (year is None or year > filters.year_end):
        return False
    if filters.min_citations is not None and (row.get("citationCount") or 0) < filters.min_citations:
        return False
    if filters.fields_of_study:
        wanted = {f.lower() for f in filters.fields_of_study}
        have = {f.lower() for f in row.get("fieldsOfStudy") or []}
        have |= {(f.get("category") or "").lower() for f in row.get("s2FieldsOfStudy") or [] if isinstance(f, dict)}
        if not wanted & have:
            return False
    return True
