"""The papers family's tools (seed 000 "Papers"; issue: get_paper and search_papers first)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from scholar.catalogue import READ_ONLY_OPEN, ToolSpec
from scholar.papers import spec_export, spec_graph
from scholar.papers.fields import FieldOfStudy, FieldSet, PaperIdentifier, Year
from scholar.records import FailedSource, Paper


class GetPaperInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    identifier: PaperIdentifier


class SearchPapersInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: Annotated[str, Field(min_length=1, max_length=500, description="Search terms")]
    fields: FieldSet = Field(
        default="compact",
        description="compact: paperId,title,year,venue,citationCount; standard: + authors,externalIds,abstract; "
        "full: + tldr,openAccessPdf,fieldsOfStudy,referenceCount …",
    )
    limit: Annotated[int, Field(ge=1, le=100, description="Results per page (max 100)")] = 10
    offset: Annotated[int, Field(ge=0, le=999, description="Pagination offset; offset + limit must stay ≤ 1000")] = 0
    year_start: Year | None = Field(default=None, description="Earliest publication year")
    year_end: Year | None = Field(default=None, description="Latest publication year")
    fields_of_study: list[FieldOfStudy] | None = Field(
        default=None, max_length=10, description='S2 fields of study, e.g. ["Computer Science", "Physics"]'
    )
    venue: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(default=None, description="Venue name")
    min_citations: Annotated[int, Field(ge=0, le=10_000_000)] | None = Field(
        default=None, description="Minimum citation count"
    )
    sort: Literal["relevance", "citations", "year"] = Field(
        default="relevance",
        description="relevance, or citations / year (descending; uses S2 bulk search, which supports sorting)",
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
    sources: list[str] = Field(default_factory=lambda: ["s2"])


_BASE_TOOLS = (
    ToolSpec(
        name="get_paper",
        family="papers",
        title="Get paper",
        description="Fetch full metadata for one paper by any identifier (DOI, S2 id, arXiv id, PMID, PMCID, "
        "CorpusId, ACM, MAG). Falls back to OpenAlex and then Crossref when Semantic Scholar has no record; "
        "`sources` says which answered. Cached for 30 days.",
        input_model=GetPaperInput,
        output_model=PaperResult,
        annotations=READ_ONLY_OPEN,
        queue_on_rate_limit=True,
    ),
    ToolSpec(
        name="search_papers",
        family="papers",
        title="Search papers",
        description="Search the Semantic Scholar corpus with filters (years, fields of study, venue, minimum "
        "citations) and sorting by relevance, citations or year. Returns {data, total, offset, next_offset}.",
        input_model=SearchPapersInput,
        output_model=SearchPapersResult,
        annotations=READ_ONLY_OPEN,
        queue_on_rate_limit=True,
    ),
)

TOOLS = (*_BASE_TOOLS, *spec_graph.TOOLS, *spec_export.TOOLS)
