"""The books family's tools (seed 000 "Books"; issue 7): Open Library and Google Books."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from scholar.core.catalogue import MAX_RESULT_CHARS, READ_ONLY_OPEN, UPSTREAM_READ, WRITE_OPEN, ToolInput, ToolSpec
from scholar.families.books.models import EXCERPT_RESULT_CHARS, BookExcerpt, BookList, BookRecommendations, BookResult

Limit = Annotated[int, Field(ge=1, le=50)]
Text = Annotated[str, Field(min_length=1, max_length=300)]


class SearchBooksInput(ToolInput):
    query: Text | None = Field(default=None, description="Free text, when title and author are not known")
    title: Text | None = Field(default=None, description="Title or part of it")
    author: Text | None = None
    limit: Limit = 10

    @model_validator(mode="after")
    def _one_of(self) -> SearchBooksInput:
        if not any(v and v.strip() for v in (self.query, self.title, self.author)):
            raise ValueError("give at least one of query, title or author")
        return self


class GetBookInput(ToolInput):
    identifier: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="ISBN-10/13 (hyphens allowed), an Open Library work (OL17953442W) or edition (OL26423929M) "
            "id, or an openlibrary.org URL",
        ),
    ]
    include_editions: bool = Field(default=False, description="Also list the work's editions")
    editions_offset: Annotated[int, Field(ge=0, le=10_000)] = 0
    editions_limit: Annotated[int, Field(ge=1, le=100)] = 20
    download_cover: bool = Field(
        default=False, description="Store the cover: cover_path and a short-lived cover_download_url"
    )
    cover_size: Literal["S", "M", "L"] = "M"


class GetBookExcerptInput(ToolInput):
    isbn: Annotated[str, Field(min_length=10, max_length=40, description="ISBN-10 or ISBN-13 (hyphens allowed)")]


class RecommendBooksInput(ToolInput):
    subject: Annotated[
        str,
        Field(min_length=1, max_length=200, description="A subject, e.g. machine learning"),
    ]
    limit: Limit = 10


TOOLS = (
    ToolSpec(
        name="search_books",
        family="books",
        title="Search books",
        description="Books on Open Library by title, author or free text; prefer title and author (dedicated "
        "indexes). A query alone is tried as a title, then as free text; a thin author search is broadened to name "
        "variants (Frank → Francis; broadened says so). ISBN, publisher and year come from one edition.",
        input_model=SearchBooksInput,
        output_model=BookList,
        **UPSTREAM_READ,
    ),
    ToolSpec(
        name="get_book",
        family="books",
        title="Get book",
        description="One book (ISBN checksums checked), with the Google Books link and snippet when an ISBN is "
        "known; the editions of its work on request (paged). Cover fields are null when the book has none.",
        input_model=GetBookInput,
        output_model=BookResult,
        annotations=READ_ONLY_OPEN,
        queue_on_rate_limit=True,
        max_result_chars=MAX_RESULT_CHARS,  # lookup._edition_list cuts the editions
    ),
    ToolSpec(
        name="get_book_excerpt",
        family="books",
        title="Get book excerpt",
        description="Google Books description, text snippet, preview availability and preview link of an ISBN; "
        "not_found when Google Books has no such volume.",
        input_model=GetBookExcerptInput,
        output_model=BookExcerpt,
        max_result_chars=EXCERPT_RESULT_CHARS,  # handlers.get_book_excerpt cuts each text to its cap
        annotations=WRITE_OPEN,
        tags=frozenset({"write"}),
        queue_on_rate_limit=True,
    ),
    ToolSpec(
        name="recommend_books",
        family="books",
        title="Recommend books",
        description="Popular books on a subject from Open Library, most editions first. Records are works: ISBN and "
        "edition fields are null (get_book on openlibrary_work_id gives an edition).",
        input_model=RecommendBooksInput,
        output_model=BookRecommendations,
        **UPSTREAM_READ,
    ),
)
