"""The patents family's tools (seed 000 "Patents"; issue 10): EPO Open Patent Services."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from scholar.core.catalogue import MAX_RESULT_CHARS, READ_ONLY_OPEN, WRITE_OPEN, ToolInput, spec_maker
from scholar.families.patents.models import CitingPatentsResult, PatentPdfResult, PatentResult, SearchPatentsResult

EPO_CREDENTIALS = ("epo_consumer_key", "epo_consumer_secret")
Text = Annotated[str, Field(min_length=1, max_length=300)]
Date = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
PatentNumberArg = Annotated[
    str,
    Field(
        min_length=4,
        max_length=60,
        description="Publication number in any format (EP1234567A1, EP 1 234 567 A1, WO2024/123456, US11,234,567B2, "
        "US 2021/0123456 A1, JP 2020-123456 A), kind code optional",
    ),
]
Section = Literal["biblio", "abstract", "claims", "description", "family", "legal", "citations"]


def _biblio_only() -> list[Section]:
    """get_patent's default sections."""
    return ["biblio"]


# OPS serves 1-100 documents per search request and lets a query reach its first 2,000 hits.
MAX_REACHABLE = 2000
# Every patents tool needs EPO credentials; the reading ones queue when OPS still throttles after the retries.
patents_tool = spec_maker("patents", annotations=READ_ONLY_OPEN, tags=frozenset({"patent"}), queue_on_rate_limit=True,
                          requires=EPO_CREDENTIALS)


class SearchPatentsInput(ToolInput):
    query: Text | None = Field(default=None, description="Words in titles and abstracts (quotes make a phrase); "
                               "optional with a filter")
    cpc_classification: Annotated[str, Field(min_length=1, max_length=30)] | None = Field(
        default=None, description="CPC code, e.g. H01M10/00 or H01M")
    applicant: Text | None = Field(default=None, description="Applicant (assignee)")
    inventor: Text | None = None
    date_from: Date | None = None
    date_to: Date | None = None
    date_type: Literal["publication", "filing", "priority"] = Field(
        default="publication", description="Which date date_from and date_to filter")
    jurisdiction: Annotated[str, Field(pattern=r"^[A-Za-z]{2}$")] | None = Field(
        default=None, description="Office code, e.g. EP, US, WO")
    limit: Annotated[int, Field(ge=1, le=100)] = 10
    offset: Annotated[int, Field(ge=0, le=MAX_REACHABLE)] = 0

    @model_validator(mode="after")
    def _one_of(self) -> SearchPatentsInput:
        given = (self.query, self.cpc_classification, self.applicant, self.inventor, self.date_from, self.date_to,
                 self.jurisdiction)
        if not any(v and str(v).strip() for v in given):
            raise ValueError("give at least one of query, cpc_classification, applicant, inventor, date_from, "
                             "date_to or jurisdiction")
        return self


class GetPatentInput(ToolInput):
    patent_number: PatentNumberArg
    sections: list[Section] = Field(default_factory=_biblio_only, min_length=1, max_length=7)
    description_offset: Annotated[int, Field(ge=0, le=10_000_000, description="Pass description_next_offset")] = 0
    description_max_chars: Annotated[int, Field(ge=1000, le=60_000, description="Description characters per "
                                                "page")] = 30_000


class GetCitingPatentsInput(ToolInput):
    paper_id: Annotated[str, Field(min_length=1, max_length=300, description="Any paper identifier (a DOI works "
                                   "best)")]
    limit: Annotated[int, Field(ge=1, le=25)] = 10


class FetchPatentPdfInput(ToolInput):
    patent_number: PatentNumberArg
    use_vlm: bool = Field(default=False, description="VLM enrichment of formulas and figures (only when OPS has no "
                          "full text and a docling converter is configured)")
    max_chars: Annotated[int, Field(ge=1000, le=60_000, description="Markdown characters to return")] = 30_000


TOOLS = (
    patents_tool("search_patents", "Search patents",
                 "Patents of 100+ offices through EPO OPS: query searches titles and abstracts, the other parameters "
                 "filter. Each hit has title, parties, dates, classifications and abstract. OPS reaches the first "
                 "2,000 hits: narrow the search to go further. Returns total_count and the CQL sent "
                 "(effective_query).",
                 SearchPatentsInput, SearchPatentsResult, max_result_chars=MAX_RESULT_CHARS),  # patents.search.fit
    patents_tool("get_patent", "Get patent",
                 "One patent by publication number. sections: biblio (title, parties, dates, classes, abstract), "
                 "abstract, claims, description (paged), family members, legal events, citations (patent and "
                 "non-patent; NPL resolved to papers by DOI, confidence high, or title, medium). English preferred, "
                 "the language reported; a section OPS lacks is in absent_sections, not an error.",
                 GetPatentInput, PatentResult, max_result_chars=MAX_RESULT_CHARS),  # patents.get._fit
    patents_tool("get_citing_patents", "Get citing patents",
                 "Patents that cite a paper, found by an EPO OPS citation search on its DOI, then on its title when "
                 "the DOI finds nothing. Coverage is incomplete: use it for discovery, not exhaustive analysis.",
                 GetCitingPatentsInput, CitingPatentsResult, max_result_chars=MAX_RESULT_CHARS),  # citing: fit_field
    patents_tool("fetch_patent_pdf", "Fetch patent PDF",
                 "The full patent document as one PDF (every page from EPO OPS), stored as pdfs/<sha256>.pdf, with "
                 "Markdown from OPS full text (claims + description) or the built-in converter. Runs as a task: poll "
                 "get_task_result (progress: pages fetched / total). pdf_not_available when OPS has no full document "
                 "(often WO and older EP publications).",
                 FetchPatentPdfInput, PatentPdfResult, annotations=WRITE_OPEN, tags=frozenset({"patent", "write"}),
                 task_support="optional", queue_on_rate_limit=False,
                 # max_chars of Markdown (at most 60,000) leaves room for the rest
                 max_result_chars=MAX_RESULT_CHARS),
)
