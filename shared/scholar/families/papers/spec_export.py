"""Tools that enrich, cite and resolve papers in bulk: enrich_paper, generate_citations, batch_resolve.

Cheap to import (pydantic only). Models set ``defer_build`` so importing this module
builds no validators: a family function pays only for the tool it runs, on its first call.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.ids import PaperIdentifier
from scholar.core.matching import Candidate, MatchedBy
from scholar.core.records import FailedSources, Paper, PatentRecord
from scholar.families.papers.fields import FieldSet, PerItemAnswer, papers_tool

# ---------------------------------------------------------------- enrich_paper

EnrichField = Literal["affiliations", "funders", "oa_status", "topics", "concepts"]


class EnrichPaperInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    identifier: PaperIdentifier
    fields: list[EnrichField] = Field(
        min_length=1,
        max_length=5,
        description="affiliations, funders (with awards), oa_status (is_oa, status, URL), topics (field, domain), "
        "concepts (legacy)",
    )


class Funder(BaseModel):
    model_config = ConfigDict(defer_build=True)
    name: str
    award_ids: list[str] = Field(default_factory=list)


class Topic(BaseModel):
    model_config = ConfigDict(defer_build=True)
    name: str
    score: float | None = None
    subfield: str | None = None
    field: str | None = None
    domain: str | None = None


class Concept(BaseModel):
    model_config = ConfigDict(defer_build=True)
    name: str
    score: float | None = None
    level: int | None = None


class OpenAccess(BaseModel):
    model_config = ConfigDict(defer_build=True)
    is_oa: bool | None = None
    oa_status: str | None = Field(default=None, description="gold, green, hybrid, bronze, diamond or closed")
    oa_url: str | None = None


class EnrichPaperResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    doi: str | None = None
    openalex_id: str | None = None
    affiliations: list[str] | None = None
    funders: list[Funder] | None = None
    oa_status: OpenAccess | None = None
    topics: list[Topic] | None = None
    concepts: list[Concept] | None = None
    truncated: bool = Field(default=False, description="Lists were cut to stay under the size budget")
    partial: bool = False
    failed_sources: FailedSources
    sources: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------- generate_citations

CitationFormat = Literal["bibtex", "csl-json", "ris"]


class GenerateCitationsInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    paper_ids: list[PaperIdentifier] = Field(min_length=1, max_length=100)
    citation_format: CitationFormat = "bibtex"
    enrich: bool = Field(
        default=True,
        description="Complete volume, issue, pages, publisher, ISSN and venue (Crossref, OpenAlex), books (Open "
        "Library)",
    )


class CitationError(BaseModel):
    model_config = ConfigDict(defer_build=True)
    id: str
    code: str = Field(description="not_found, invalid_id, rate_limited or upstream_error")
    message: str


class GenerateCitationsResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    format: CitationFormat
    content: str | None = Field(default=None, description="The BibTeX or RIS text (null for csl-json)")
    citations: list[dict[str, Any]] | None = Field(default=None, description="CSL-JSON items (csl-json only)")
    count: int = Field(description="Entries produced")
    errors: list[CitationError] = Field(
        default_factory=list, description="Ids that did not resolve; they are not in the output"
    )
    partial: bool = False
    failed_sources: FailedSources


# ---------------------------------------------------------------- batch_resolve

ItemStatus = Literal["ok", "ambiguous", "not_found", "invalid_id", "upstream_error", "rate_limited", "unavailable"]


class BatchResolveInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    identifiers: list[Annotated[str, Field(min_length=1, max_length=500)]] = Field(
        min_length=1,
        max_length=100,
        description="Paper ids, titles, ISBN:…, patent numbers; a trailing ', ch. 3, pp. 45-67' goes to chapter_info",
    )
    fields: FieldSet = Field(default="standard", description="As in search_papers")


class ChapterInfo(BaseModel):
    model_config = ConfigDict(defer_build=True)
    chapter: str | None = None
    pages: str | None = None
    page_start: str | None = None
    page_end: str | None = None
    section: str | None = None


class ResolvedItem(BaseModel):
    model_config = ConfigDict(defer_build=True)
    input: str
    status: ItemStatus
    source_type: Literal["paper", "book", "patent"] | None = None
    paper: Paper | None = None
    book: dict[str, Any] | None = None
    patent: PatentRecord | None = Field(default=None, description="EPO OPS biblio of a patent number")
    chapter_info: ChapterInfo | None = None
    source: str | None = Field(default=None, description="Which upstream answered")
    matched_by: MatchedBy | None = Field(default=None, description="A title or citation: the check that matched it")
    confidence: float | None = None
    candidates: list[Candidate] | None = Field(default=None, description="Ranked, when ambiguous")
    error: str | None = None

    @model_serializer(mode="wrap")
    def _drop_nulls(self, handler: Any) -> dict[str, Any]:
        """Optional fields without a value are left out (DESIGN §4), so a stub costs only what it says."""
        return {k: v for k, v in handler(self).items() if v is not None}


class BatchResolveResult(PerItemAnswer):
    items: list[ResolvedItem]
    counts: dict[str, int] = Field(description="Items per status")
    truncated: bool = Field(default=False, description="Records were shortened to stay under the size budget")


TOOLS = (
    papers_tool("enrich_paper", "Enrich paper",
                "OpenAlex data for a paper: institutions, funders and awards, open-access status (else Unpaywall), "
                "topics, legacy concepts.",
                EnrichPaperInput, EnrichPaperResult, max_result_chars=MAX_RESULT_CHARS),  # enrich.fit
    papers_tool("generate_citations", "Generate citations",
                "BibTeX, CSL-JSON or RIS for up to 100 papers (conference papers, preprints, books each typed). "
                "Ids that fail go to errors, never into the text.",
                GenerateCitationsInput, GenerateCitationsResult,
                max_result_chars=MAX_RESULT_CHARS),  # papers.generate._fit
    papers_tool("batch_resolve", "Batch resolve",
                "Up to 100 mixed paper ids, titles or citations (checked match), ISBNs and patent numbers (EPO OPS, "
                "needs credentials), each with its own status.",
                BatchResolveInput, BatchResolveResult, max_result_chars=MAX_RESULT_CHARS),  # papers.batch._fit
)
