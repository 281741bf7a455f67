"""Open Library's records as we keep them: only the fields we use (the cache holds these, not raw payloads)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

SOURCE = "openlibrary"
CoverSize = Literal["S", "M", "L"]
_YEAR_RE = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


def year_of(text: object) -> int | None:
    """The first plausible year in a free-form publish date ("April 22, 2008" → 2008)."""
    if isinstance(text, int):
        return text
    match = _YEAR_RE.search(text) if isinstance(text, str) else None
    return int(match.group(1)) if match else None


class Edition(BaseModel):
    """One edition (a printing with its own ISBNs, publisher and date)."""

    id: str
    title: str | None = None
    subtitle: str | None = None
    work_id: str | None = None
    author_ids: list[str] = Field(default_factory=list)
    publishers: list[str] = Field(default_factory=list)
    publish_date: str | None = None
    isbn_10: list[str] = Field(default_factory=list)
    isbn_13: list[str] = Field(default_factory=list)
    covers: list[int] = Field(default_factory=list)
    number_of_pages: int | None = None
    edition_name: str | None = None
    physical_format: str | None = None
    languages: list[str] = Field(default_factory=list)
    description: str | None = None
    subjects: list[str] = Field(default_factory=list)
    google_ids: list[str] = Field(default_factory=list)

    @property
    def year(self) -> int | None:
        return year_of(self.publish_date)


class Work(BaseModel):
    """A work (the book across all its editions)."""

    id: str
    title: str | None = None
    subtitle: str | None = None
    author_ids: list[str] = Field(default_factory=list)
    description: str | None = None
    subjects: list[str] = Field(default_factory=list)
    covers: list[int] = Field(default_factory=list)
    first_publish_date: str | None = None


class EditionsPage(BaseModel):
    """One page of a work's editions."""

    work_id: str
    entries: list[Edition]
    offset: int
    limit: int
    total: int | None = None


class SearchEdition(BaseModel):
    """The one edition a search hit's edition-level fields come from."""

    id: str | None = None
    isbns: list[str] = Field(default_factory=list)
    publishers: list[str] = Field(default_factory=list)
    publish_year: int | None = None
    cover_id: int | None = None


class SearchDoc(BaseModel):
    """One work-level search hit (``search.json`` docs or a subject's works)."""

    work_id: str | None = None
    title: str | None = None
    subtitle: str | None = None
    authors: list[str] = Field(default_factory=list)
    first_publish_year: int | None = None
    edition_count: int | None = None
    cover_id: int | None = None
    subjects: list[str] = Field(default_factory=list)
    page_count_median: int | None = None
    edition: SearchEdition | None = None


class SearchPage(BaseModel):
    docs: list[SearchDoc]
    total: int | None = None


class SubjectPage(BaseModel):
    slug: str
    name: str | None = None
    work_count: int | None = None
    works: list[SearchDoc]


class BookMetadata(BaseModel):
    """What a paper with an ISBN gets as ``book_metadata`` (seed 000, auto-enrichment)."""

    title: str | None = None
    publisher: str | None = None
    edition: str | None = None
    year: int | None = None
    isbn_10: str | None = None
    isbn_13: str | None = None
    cover_url: str | None = None
    openlibrary_work_id: str | None = None
    openlibrary_edition_id: str | None = None
    description: str | None = None
    subjects: list[str] = Field(default_factory=list)
    page_count: int | None = None
    authors: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=lambda: [SOURCE])

