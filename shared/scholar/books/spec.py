"""The books family's tools (seed 000 "Books"; issue 7): Open Library and Google Books."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from scholar.books.models import BookExcerpt, BookList, BookRecommendations, BookResult
from scholar.catalogue import READ_ONLY_OPEN, WRITE_OPEN, ToolSpec

Limit = Annotated[int, Field(ge=1, le=50, description="Maximum results to return (max 50)")]
Text = Annotated[str, Field(min_length=1, max_length=300)]


class SearchBooksInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: Text | None = Field(default=None, description="Free-text fallback; use title/author when known")
    title: Text | None = Field(default=None, description="Book title or partial title (recommended)")
    author: Text | None = Field(default=None, description="Author name (recommended)")
    limit: Limit = 10

    @model_validator(mode="after")
    def _one_of(self) -> SearchBooksInput:
        if not any(v and v.strip() for v in (self.query, self.title, self.author)):
            raise ValueError("give at least one of query, title or author")
        return self


class GetBookInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    identifier: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="ISBN-10 or ISBN-13 (hyphens allowed, e.g. 978-0-262-03561-3), an Open Library work id "
            "(OL17953442W) or edition id (OL26423929M), or an openlibrary.org URL",
        ),
    ]
    include_editions: bool = Field(default=False, description="Also list the work's editions (paged)")
    editions_offset: Annotated[int, Field(ge=0, le=10_000, description="First edition to list (paging)")] = 0
    editions_limit: Annotated[int, Field(ge=1, le=100, description="Editions per page (max 100)")] = 20
    download_cover: bool = Field(
        default=False, description="Store the cover image and return cover_path plus a short-lived cover_download_url"
    )
    cover_size: Literal["S", "M", "L"] = Field(default="M", description="Cover size: S, M or L")


class GetBookExcerptInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    isbn: Annotated[str, Field(min_length=10, max_length=40, description="ISBN-10 or ISBN-13 (hyphens allowed)")]


class RecommendBooksInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    subject: Annotated[
        str,
        Field(min_length=1, max_length=200, description='Subject or topic, e.g. "machine learning", "algorithms"'),
    ]
    limit: Limit = 10


TOOLS = (
    ToolSpec(
        name="search_books",
        family="books",
        title="Search books",
        description="Search books on Open Library by title, author or free text. Prefer title and author: they use "
        "dedicated indexes. A query alone is tried as a title first, then as free text; a thin multi-word author "
        "search is broadened to name variants (Frank → Francis). ISBN, publisher and year of each record come from "
        "one edition. Returns {books, total_found, strategy, broadened}.",
        input_model=SearchBooksInput,
        output_model=BookList,
        annotations=READ_ONLY_OPEN,
        queue_on_rate_limit=True,
    ),
    ToolSpec(
        name="get_book",
        family="books",
        title="Get book",
        description="Fetch one book by ISBN-10/13 (checksum checked, hyphens allowed) or Open Library work/edition "
        "id. include_editions lists the work's editions (page with editions_offset/editions_limit); download_cover "
        "stores the cover and returns a short-lived link (cover fields are null when the book has no cover). "
        "Adds the Google Books link and snippet when an ISBN is known.",
        input_model=GetBookInput,
        output_model=BookResult,
        annotations=READ_ONLY_OPEN,
        queue_on_rate_limit=True,
    ),
    ToolSpec(
        name="get_book_excerpt",
        family="books",
        title="Get book excerpt",
        description="Google Books description, text snippet, preview availability and preview link for an ISBN. "
        "not_found when Google Books has no volume with that ISBN.",
        input_model=GetBookExcerptInput,
        output_model=BookExcerpt,
        annotations=WRITE_OPEN,
        tags=frozenset({"write"}),
        queue_on_rate_limit=True,
    ),
    ToolSpec(
        name="recommend_books",
        family="books",
        title="Recommend books",
        description="Popular books on a subject from Open Library's subject pages, most editions first. Records are "
        "work-level: ISBN and edition fields are null (use get_book on openlibrary_work_id for an edition).",
        input_model=RecommendBooksInput,
        output_model=BookRecommendations,
        annotations=READ_ONLY_OPEN,
        queue_on_rate_limit=True,
    ),
)
