"""Records shared across families and tools (DESIGN §4): what a caller sees, not what an upstream sent.

Paper records keep Semantic Scholar's field names (``paperId``, ``citationCount`` …) because the
seeds' field sets are defined in them. Absent and null are the same to a caller: a paper record
omits fields it does not carry (not requested, or unknown to every source).
"""

from __future__ import annotations

from typing import Any

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
    sources: list[str] = Field(default_factory=list, description="Which upstreams supplied this record")

    @model_serializer(mode="wrap")
    def _drop_nulls(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}
