"""The papers family's tools (seed 000 "Papers"; issue: get_paper and search_papers first)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from scholar.core.catalogue import MAX_RESULT_CHARS, ToolInput
from scholar.core.records import FailedSource, Paper
from scholar.families.papers import spec_check, spec_export, spec_graph
from scholar.families.papers.fields import PAPER_ID_FORMS, FieldOfStudy, FieldSet, Year, papers_tool, s2_only


class GetPaperInput(ToolInput):
    identifier: Annotated[str, Field(min_length=1, max_length=300, description=PAPER_ID_FORMS)]


class SearchPapersInput(ToolInput):
    query: Annotated[str, Field(min_length=1, max_length=500)]
    fields: FieldSet = Field(
        default="compact",
        description="compact: id, title, year, venue, citations; standard: + authors, ids, abstract; full: all",
    )
    limit: Annotated[int, Field(ge=1, le=100)] = 10
    offset: Annotated[int, Field(ge=0, le=999, description="offset + limit <= 1000")] = 0
    year_start: Year | None = None
    year_end: Year | None = None
    fields_of_study: list[FieldOfStudy] | None = Field(
        default=None, max_length=10, description='e.g. ["Physics"]'
    )
    venue: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    min_citations: Annotated[int, Field(ge=0, le=10_000_000)] | None = None
    sort: Literal["relevance", "citations", "year"] = Field(
        default="relevance", description="descending"
    )


class PaperResult(Paper):
    """get_paper's answer: the full record, auto-enriched; ``partial`` when an enrichment source failed."""

    partial: bool | None = Field(default=None, description="True when an enrichment source failed (see failed_sources)")
    failed_sources: list[FailedSource] | None = None


class SearchPapersResult(BaseModel):
    data: list[Paper]
    total: int = Field(description="Matches S2 reports for the query (an estimate for relevance search)")
    offset: int
    next_offset: int | None = Field(default=None, description="Pass as offset for the next page; null at the end")
    sort: str
    truncated: bool = Field(default=False, description="The page was cut to stay under the size budget")
    sources: list[str] = Field(default_factory=s2_only)


_BASE_TOOLS = (
    papers_tool("get_paper", "Get paper",
                "Full metadata of one paper (all authors, abstract, ids, venue, counts, open-access link); a title or "
                "citation goes through a checked match. sources says which answered.",
                GetPaperInput, PaperResult, max_result_chars=MAX_RESULT_CHARS),  # handlers.get_paper shortens
    papers_tool("search_papers", "Search papers",
                "Semantic Scholar keyword search with filters and sort; page with next_offset. search ranks every "
                "source.",
                SearchPapersInput, SearchPapersResult, max_result_chars=MAX_RESULT_CHARS),  # core.budget.fit
)

TOOLS = (*_BASE_TOOLS, *spec_graph.TOOLS, *spec_export.TOOLS, *spec_check.TOOLS)
