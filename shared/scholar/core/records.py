"""Records shared across families and tools (DESIGN §4): what a caller sees, not what an upstream sent.

Paper records keep Semantic Scholar's field names (``paperId``, ``citationCount`` …) because the
seeds' field sets are defined in them. Absent and null are the same to a caller: a paper record
omits fields it does not carry (not requested, or unknown to every source).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_serializer


class Author(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    authorId: str | None = None
    name: str | None = None


class OpenAccessPdf(BaseModel):
    url: str | None = None
    status: str | None = None
    license: str | None = None


class Journal(BaseModel):
    name: str | None = None
    volume: str | None = None
    pages: str | None = None


class PersonName(BaseModel):
    given: str | None = None
    family: str | None = None
    suffix: str | None = None
    literal: str | None = Field(default=None, description="An organisation or a name that cannot be split")


class Bibliographic(BaseModel):
    """Crossref-grade details a citation needs (auto-enrichment, generate_citations)."""

    type: str | None = Field(default=None, description="Crossref work type, e.g. journal-article, proceedings-article")
    container_title: str | None = None
    publisher: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    issn: list[str] | None = None
    isbn: list[str] | None = None
    year: int | None = None
    month: int | None = None
    event: str | None = Field(default=None, description="Conference name for proceedings")
    edition: str | None = None
    authors: list[PersonName] | None = Field(default=None, description="Structured names (given / family)")
    eprint_class: str | None = Field(default=None, description="arXiv primary category, e.g. cs.CL")
    citation_key: str | None = Field(default=None, description="The source's own citation key (INSPIRE texkey)")

    @model_serializer(mode="wrap")
    def _drop_nulls(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}


class FailedSource(BaseModel):
    """A source that failed while answering (DESIGN §4: never reported as "no results")."""

    source: str
    code: str
    status: int | None = None
    message: str


# The sources that failed while answering, on every result that can be partial: none by default.
FailedSources = Annotated[list[FailedSource], Field(default_factory=list)]


class Paper(BaseModel):
    """A paper as every papers tool returns it; ``sources`` says who supplied it."""

    paperId: str | None = Field(default=None, description="Semantic Scholar paper id (40 hex) when known")
    title: str | None = None
    year: int | None = None
    venue: str | None = None
    citationCount: int | None = None
    authors: list[Author] | None = None
    authorCount: int | None = Field(default=None, description="Total authors when the list was shortened")
    externalIds: dict[str, str] | None = Field(default=None, description="DOI, ArXiv, PubMed, CorpusId, …")
    abstract: str | None = None
    abstractTruncated: bool | None = None
    tldr: str | None = None
    openAccessPdf: OpenAccessPdf | None = None
    fieldsOfStudy: list[str] | None = None
    referenceCount: int | None = None
    influentialCitationCount: int | None = None
    isOpenAccess: bool | None = None
    publicationDate: str | None = None
    publicationTypes: list[str] | None = None
    journal: Journal | None = None
    url: str | None = None
    biblio: Bibliographic | None = Field(default=None, description="Crossref details: publisher, issue, ISSN …")
    book_metadata: dict[str, Any] | None = Field(
        default=None, description="Open Library metadata when the paper carries an ISBN"
    )
    sources: list[str] = Field(default_factory=list, description="Which upstreams supplied this record")

    @model_serializer(mode="wrap")
    def _drop_nulls(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}

    def landing_url(self) -> str | None:
        """The page to cite and link: the DOI's resolver link, else the arXiv abstract page, else the record's URL."""
        ext = self.externalIds or {}
        if ext.get("DOI"):
            return f"https://doi.org/{ext['DOI'].lower()}"
        if ext.get("ArXiv"):
            return f"https://arxiv.org/abs/{ext['ArXiv']}"
        return self.url



class PatentRecord(BaseModel):
    """A patent publication as every tool returns it (search hits, get_patent's biblio, batch_resolve).

    ``patent_id`` (``EP2400812A1``) is accepted by every patent tool; ``publication_number`` is OPS's docdb
    form (``EP.2400812.A1``). Parties are listed once each, in their original spelling.
    """

    patent_id: str = Field(description="Office + number + kind, e.g. EP2400812A1 (accepted by every tool)")
    publication_number: str = Field(description="docdb form, e.g. EP.2400812.A1")
    country: str
    number: str
    kind: str | None = None
    title: str | None = None
    title_language: str | None = None
    abstract: str | None = None
    abstract_language: str | None = None
    abstract_truncated: bool | None = None
    applicants: list[str] = Field(default_factory=list)
    inventors: list[str] = Field(default_factory=list)
    publication_date: str | None = Field(default=None, description="YYYY-MM-DD")
    filing_date: str | None = None
    priority_date: str | None = Field(default=None, description="Earliest priority date")
    application_number: str | None = None
    family_id: str | None = None
    classifications: list[str] = Field(default_factory=list, description="CPC classifications")
    ipc: list[str] = Field(default_factory=list, description="IPC classifications")
    url: str | None = Field(default=None, description="Espacenet page")
    sources: list[str] = Field(default_factory=lambda: ["epo_ops"])

    @model_serializer(mode="wrap")
    def _drop_nulls(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}
