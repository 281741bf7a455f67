"""The book record and the answers of the books tools (seed 000 "Books"); pydantic only, cheap to import."""

from __future__ import annotations

from pydantic import BaseModel, Field


class FailedSource(BaseModel):
    source: str
    code: str
    status: int | None = None
    message: str


class Book(BaseModel):
    """One book. Edition-level fields (ISBNs, publisher, year, edition, page count) describe ONE edition."""

    title: str | None = None
    subtitle: str | None = None
    authors: list[str] = Field(default_factory=list)
    publisher: str | None = None
    year: int | None = Field(
        default=None, description="Publication year of the edition described; the first publication year when no "
        "edition is known"
    )
    first_publish_year: int | None = None
    edition: str | None = Field(default=None, description='Edition statement, e.g. "2nd ed."')
    isbn_10: str | None = None
    isbn_13: str | None = None
    openlibrary_work_id: str | None = None
    openlibrary_edition_id: str | None = None
    edition_count: int | None = None
    cover_url: str | None = Field(default=None, description="Open Library cover image; null when there is no cover")
    google_books_url: str | None = None
    worldcat_url: str | None = None
    snippet: str | None = None
    cover_path: str | None = Field(default=None, description="Artifact key of the stored cover (download_cover)")
    cover_download_url: str | None = Field(
        default=None, description="Short-lived (15 min) link to the stored cover image (download_cover)"
    )
    subjects: list[str] = Field(default_factory=list)
    page_count: int | None = Field(
        default=None, description="Pages of the edition; for search and subject results the median over editions"
    )
    description: str | None = None
    sources: list[str] = Field(default_factory=list, description="Upstreams that supplied this record")


class EditionSummary(BaseModel):
    openlibrary_edition_id: str
    title: str | None = None
    publisher: str | None = None
    publish_date: str | None = None
    year: int | None = None
    edition: str | None = None
    isbn_10: str | None = None
    isbn_13: str | None = None
    physical_format: str | None = None
    languages: list[str] = Field(default_factory=list)
    page_count: int | None = None
    cover_url: str | None = None


class EditionList(BaseModel):
    """One page of a work's editions."""

    openlibrary_work_id: str
    entries: list[EditionSummary]
    offset: int
    limit: int
    total: int | None = Field(default=None, description="Editions Open Library holds for the work")
    next_offset: int | None = Field(default=None, description="Pass as editions_offset for the next page; null at "
                                    "the end")


class BookResult(Book):
    """get_book's answer: the book record, its editions when asked for, and which enrichment failed."""

    editions: EditionList | None = None
    truncated: bool = Field(default=False, description="description and snippet were cut to fit the size budget "
                            "(get_book_excerpt's caps)")
    partial: bool = Field(default=False, description="True when an enrichment source (Google Books) failed")
    failed_sources: list[FailedSource] = Field(default_factory=list)


class BookList(BaseModel):
    """search_books' answer."""

    books: list[Book]
    total_found: int | None = Field(default=None, description="Matches Open Library reports for the search sent")
    strategy: str = Field(description="Which search answered: title, title+author, free_text, … (+broadened)")
    broadened: bool = Field(default=False, description="True when a broadened author search added name variants")
    truncated: bool = Field(default=False, description="The list was cut to stay under the size budget")
    sources: list[str] = Field(default_factory=lambda: ["openlibrary"])


class BookRecommendations(BaseModel):
    """recommend_books' answer: works of a subject, most editions first."""

    subject: str = Field(description="The normalised subject slug that was looked up")
    subject_name: str | None = None
    work_count: int | None = None
    books: list[Book]
    truncated: bool = Field(default=False, description="The list was cut to stay under the size budget")
    sources: list[str] = Field(default_factory=lambda: ["openlibrary"])


# get_book_excerpt's answer holds Google Books' own texts, which have no length of their own: each is cut here, so
# the answer's advertised size (EXCERPT_RESULT_CHARS) is a cap the handler keeps.
EXCERPT_TEXT_CHARS = 20_000  # the description; the snippet is a sentence or two
EXCERPT_SNIPPET_CHARS = 2_000
EXCERPT_TITLE_CHARS = 1_000
EXCERPT_AUTHORS = 50
# The texts, their escaping in JSON, the authors and the links.
EXCERPT_RESULT_CHARS = 2 * (EXCERPT_TEXT_CHARS + EXCERPT_SNIPPET_CHARS + EXCERPT_TITLE_CHARS) + 20_000


class BookExcerpt(BaseModel):
    """get_book_excerpt's answer."""

    isbn: str = Field(description="ISBN-13 that was looked up")
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    description: str | None = None
    snippet: str | None = None
    preview_available: bool = False
    viewability: str | None = Field(default=None, description="NO_PAGES, PARTIAL, ALL_PAGES or UNKNOWN")
    preview_link: str | None = None
    google_books_id: str | None = None
    google_books_url: str | None = None
    truncated: bool = Field(default=False, description="True when Google Books' text was longer than this "
                            f"answer holds (description {EXCERPT_TEXT_CHARS:,} characters, snippet "
                            f"{EXCERPT_SNIPPET_CHARS:,}); preview_link reads the rest")
    sources: list[str] = Field(default_factory=lambda: ["google_books"])
