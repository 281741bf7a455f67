"""What the patent tools return (output models → outputSchema); optional fields without a value are omitted."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_serializer

from scholar.core.records import PatentRecord


class _Compact(BaseModel):
    @model_serializer(mode="wrap")
    def _drop_nulls(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}


class SearchPatentsResult(_Compact):
    total_count: int = Field(description="Hits OPS reports for the query (OPS stops counting at 10,000)")
    total_count_is_capped: bool = Field(default=False, description="OPS counted at least this many; there may be more")
    offset: int
    limit: int
    references: list[PatentRecord] = Field(description="Hits with title, parties, dates, classes and abstract")
    next_offset: int | None = Field(default=None, description="Offset of the next page (None on the last page)")
    abstracts_shortened: bool | None = Field(default=None, description="Abstracts were cut to fit the size budget; "
                                             "get_patent gives the whole one")
    effective_query: str = Field(description="The CQL query sent to EPO OPS")


# The identity of a patent document a list names (a family member, a cited document): its fields come first.
class _Document(_Compact):
    patent_id: str
    publication_number: str
    country: str
    number: str
    kind: str | None = None


class FamilyMember(_Document):
    date: str | None = Field(default=None, description="Publication date, YYYY-MM-DD")
    application_number: str | None = None


class LegalEvent(_Compact):
    date: str | None = Field(default=None, description="Gazette date, YYYY-MM-DD")
    code: str
    description: str | None = None
    country: str | None = Field(default=None, description="Office the event happened at")
    patent_id: str | None = Field(default=None, description="The family member the event belongs to")
    effect: str | None = Field(default=None, description="'+' the right arises or continues, '-' it lapses")


class PatentCitation(_Document):
    name: str | None = Field(default=None, description="Applicant of the cited document as the search report gives it")
    date: str | None = None
    category: list[str] | None = Field(default=None, description="Search-report categories (X, Y, A …)")
    cited_by: str | None = Field(default=None, description="examiner or applicant")
    cited_phase: str | None = None


class ChapterInfo(_Compact):
    citation_source: Literal["parsed"] = "parsed"
    chapter_number: int | None = None
    page_start: int | None = None
    page_end: int | None = None


class CitedPaper(_Compact):
    paperId: str | None = None
    title: str | None = None
    year: int | None = None
    doi: str | None = None


class NplCitation(_Compact):
    raw: str = Field(description="The citation as the search report prints it")
    doi: str | None = None
    paper: CitedPaper | None = None
    confidence: Literal["high", "medium"] | None = Field(
        default=None, description="high: matched by DOI; medium: matched by title; null: not resolved"
    )
    chapter_info: ChapterInfo | None = None
    category: list[str] | None = None


class Citations(_Compact):
    patent_refs: list[PatentCitation] = Field(default_factory=list)
    npl_refs: list[NplCitation] = Field(default_factory=list)


class SectionFailure(_Compact):
    section: str
    source: str
    code: str
    status: int | None = None
    message: str


class PatentResult(_Compact):
    patent_number: str = Field(description="docdb form, e.g. EP.2400812.A1")
    patent_id: str = Field(description="EP2400812A1: accepted by every patent tool")
    biblio: PatentRecord | None = None
    abstract: str | None = None
    abstract_language: str | None = None
    claims: str | None = None
    claims_language: str | None = None
    description: str | None = None
    description_language: str | None = None
    description_offset: int | None = None
    description_next_offset: int | None = Field(default=None, description="Pass as description_offset for more")
    description_total_chars: int | None = None
    family: list[FamilyMember] | None = None
    legal: list[LegalEvent] | None = None
    legal_omitted: int | None = Field(default=None, description="Legal events left out to stay in the size budget")
    citations: Citations | None = None
    absent_sections: dict[str, str] | None = Field(
        default=None, description="Sections OPS does not hold for this document, and why (not an error)"
    )
    partial: bool = False
    failed_sections: list[SectionFailure] | None = None
    sources: list[str] = Field(default_factory=lambda: ["epo_ops"])


class CitingPatent(_Compact):
    patent_id: str
    publication_number: str
    title: str | None = None
    publication_date: str | None = None
    applicants: list[str] = Field(default_factory=list)
    family_id: str | None = None
    match_source: Literal["epo_search"] = Field(default="epo_search", description="Found by EPO OPS citation search")
    matched_on: Literal["doi", "title"] = Field(description="What the citation search matched: the DOI or the title")


class CitingPatentsResult(_Compact):
    paper_id: str
    doi: str | None = None
    title: str | None = None
    patents: list[CitingPatent]
    truncated: bool = Field(default=False, description="The list was cut to stay under the size budget")
    total_count: int = Field(description="Citing documents OPS reports for the search that matched")
    effective_query: str | None = Field(default=None, description="The CQL of the search that matched")
    note: str


class PatentPdfResult(_Compact):
    patent_number: str
    patent_id: str
    pdf_path: str = Field(description="Artifact reference pdfs/<sha256>.pdf (accepted by convert_pdf_to_markdown)")
    pdf_sha256: str
    pages: int
    pdf_download_url: str | None = Field(default=None, description="Short-lived link to the PDF")
    md_path: str | None = None
    markdown: str | None = None
    markdown_source: Literal["ops_fulltext", "builtin"] | None = None
    markdown_next_offset: int | None = None
    cached: bool = False
