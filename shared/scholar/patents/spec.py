"""The patents family's tools (seed 000 "Patents"; issue 10): EPO Open Patent Services."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from scholar.catalogue import READ_ONLY_OPEN, WRITE_OPEN, ToolSpec
from scholar.patents.models import CitingPatentsResult, PatentPdfResult, PatentResult, SearchPatentsResult

EPO_CREDENTIALS = ("epo_consumer_key", "epo_consumer_secret")
Text = Annotated[str, Field(min_length=1, max_length=300)]
Date = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]
PatentNumberArg = Annotated[
    str,
    Field(
        min_length=4,
        max_length=60,
        description="Patent publication number in any format (EP1234567A1, EP 1 234 567 A1, WO2024/123456, "
        "US11,234,567B2, US 2021/0123456 A1, JP 2020-123456 A), with or without kind code",
    ),
]
Section = Literal["biblio", "abstract", "claims", "description", "family", "legal", "citations"]
# OPS serves 1-100 documents per search request and lets a query reach its first 2,000 hits.
MAX_REACHABLE = 2000


class SearchPatentsInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: Text | None = Field(default=None, description="Keywords searched in titles and abstracts; quotes make a "
                               "phrase. Optional when structured filters are given")
    cpc_classification: Annotated[str, Field(min_length=1, max_length=30)] | None = Field(
        default=None, description='CPC classification code, e.g. "H01M10/00" or "H01M"')
    applicant: Text | None = Field(default=None, description="Applicant (assignee) name")
    inventor: Text | None = Field(default=None, description="Inventor name")
    date_from: Date | None = Field(default=None, description="Earliest date (YYYY-MM-DD)")
    date_to: Date | None = Field(default=None, description="Latest date (YYYY-MM-DD)")
    date_type: Literal["publication", "filing", "priority"] = Field(
        default="publication", description="Which date date_from/date_to filter")
    jurisdiction: Annotated[str, Field(pattern=r"^[A-Za-z]{2}$")] | None = Field(
        default=None, description="Office code of the publications, e.g. EP, US, WO")
    limit: Annotated[int, Field(ge=1, le=100, description="Results per page (max 100)")] = 10
    offset: Annotated[int, Field(ge=0, le=MAX_REACHABLE, description="Pagination offset (OPS reaches 2,000 hits)")] = 0

    @model_validator(mode="after")
    def _one_of(self) -> SearchPatentsInput:
        given = (self.query, self.cpc_classification, self.applicant, self.inventor, self.date_from, self.date_to,
                 self.jurisdiction)
        if not any(v and str(v).strip() for v in given):
            raise ValueError("give at least one of query, cpc_classification, applicant, inventor, date_from, "
                             "date_to or jurisdiction")
        return self


class GetPatentInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    patent_number: PatentNumberArg
    sections: list[Section] = Field(
        default_factory=lambda: ["biblio"], min_length=1, max_length=7,
        description="Sections to retrieve: biblio, abstract, claims, description, family, legal, citations")
    description_offset: Annotated[int, Field(ge=0, le=10_000_000, description="First character of the "
                                             "description to return (paging)")] = 0
    description_max_chars: Annotated[int, Field(ge=1000, le=60_000, description="Description characters per "
                                                "page")] = 30_000


class GetCitingPatentsInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    paper_id: Annotated[str, Field(min_length=1, max_length=300, description="Paper identifier (DOI preferred; "
                                   "any id form get_paper accepts)")]
    limit: Annotated[int, Field(ge=1, le=25, description="Maximum citing patents to return (max 25)")] = 10


class FetchPatentPdfInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    patent_number: PatentNumberArg
    use_vlm: bool = Field(default=False, description="Enable VLM enrichment for formulas and figures (only when "
                          "OPS has no full text and a docling converter is configured)")
    max_chars: Annotated[int, Field(ge=1000, le=60_000, description="Markdown characters to return")] = 30_000


TOOLS = (
    ToolSpec(
        name="search_patents",
        family="patents",
        title="Search patents",
        description="Search patents of 100+ offices through EPO OPS. query searches titles and abstracts only "
        "(quotes make a phrase); applicant, inventor, cpc_classification, dates (publication, filing or "
        "priority) and jurisdiction filter. Each hit has title, applicants, inventors, dates, classifications and "
        "abstract. OPS reaches the first 2,000 hits: narrow the search to go further. Returns total_count and the "
        "CQL sent (effective_query).",
        input_model=SearchPatentsInput,
        output_model=SearchPatentsResult,
        annotations=READ_ONLY_OPEN,
        tags=frozenset({"patent"}),
        queue_on_rate_limit=True,
        requires=EPO_CREDENTIALS,
    ),
    ToolSpec(
        name="get_patent",
        family="patents",
        title="Get patent",
        description="One patent by publication number in any format. sections: biblio (title, parties, dates, "
        "classes, abstract), abstract, claims, description (paged), family (members with country, number, kind, "
        "date), legal (events with date, code, description, country), citations (patent and non-patent "
        "literature; NPL resolved to papers by DOI, high confidence, or title, medium). English is preferred, "
        "the language is reported. A section OPS lacks is listed in absent_sections, not an error.",
        input_model=GetPatentInput,
        output_model=PatentResult,
        annotations=READ_ONLY_OPEN,
        tags=frozenset({"patent"}),
        queue_on_rate_limit=True,
        requires=EPO_CREDENTIALS,
    ),
    ToolSpec(
        name="get_citing_patents",
        family="patents",
        title="Get citing patents",
        description="Patents that cite a paper, found by an EPO OPS citation search on its DOI, then on its title "
        "when the DOI finds nothing. Coverage is incomplete: use it for discovery, not exhaustive analysis.",
        input_model=GetCitingPatentsInput,
        output_model=CitingPatentsResult,
        annotations=READ_ONLY_OPEN,
        tags=frozenset({"patent"}),
        queue_on_rate_limit=True,
        requires=EPO_CREDENTIALS,
    ),
    ToolSpec(
        name="fetch_patent_pdf",
        family="patents",
        title="Fetch patent PDF",
        description="The full patent document as one PDF (every page from EPO OPS), stored as pdfs/<sha256>.pdf, "
        "with Markdown from OPS full text (claims + description) or the built-in converter. Runs as a task: "
        "poll get_task_result (progress: pages fetched / total). pdf_not_available when OPS has no full document "
        "(often WO and older EP publications).",
        input_model=FetchPatentPdfInput,
        output_model=PatentPdfResult,
        annotations=WRITE_OPEN,
        tags=frozenset({"patent", "write"}),
        task_support="optional",
        requires=EPO_CREDENTIALS,
    ),
)
