"""Small pieces the papers tools share: S2 keys, filters, failed sources, cache keys, the size budget."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from scholar.errors import InvalidArgumentError, ScholarError
from scholar.ids import InvalidIdError
from scholar.papers.lookup import parse_identifier
from scholar.papers.spec_graph import PaperFilters
from scholar.records import FailedSource

# DESIGN §4: a result stays under 80,000 characters.
MAX_RESULT_CHARS = 80_000


def s2_key(raw: str, field: str) -> str:
    """The Semantic Scholar form of a paper identifier (``DOI:…``, ``ARXIV:…``, 40-hex …).

    Raises:
        InvalidArgumentError: not a paper identifier S2 can look up (names ``field``).
    """
    pid = parse_identifier(raw, field)
    try:
        return pid.s2_key()
    except InvalidIdError as exc:
        raise InvalidArgumentError(
            f"{raw!r} is an {pid.kind} id, which Semantic Scholar cannot look up; give a DOI, arXiv id or S2 id",
            field=field,
        ) from exc


def failed(err: ScholarError, source: str | None = None) -> FailedSource:
    """The ``failed_sources`` entry for an error a source raised."""
    return FailedSource(source=err.source or source or "unknown", code=err.code, status=err.status, message=err.message)


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


def cache_key(tool: str, args: BaseModel, **extra: Any) -> str:
    """A normalised key: the tool name and its arguments as sorted JSON (lists of ids sorted by the caller)."""
    payload = {**args.model_dump(mode="json"), **extra}
    return f"{tool}:{json.dumps(payload, sort_keys=True, separators=(',', ':'))}"



def fit(items: list[BaseModel], reserve: int = 2_000) -> tuple[list[BaseModel], bool]:
    """The leading items whose JSON fits the size budget (less ``reserve`` for the rest of the answer)."""
    used = 0
    for position, item in enumerate(items):
        used += len(item.model_dump_json()) + 1
        if used > MAX_RESULT_CHARS - reserve:
            return items[:position], True
    return items, False
