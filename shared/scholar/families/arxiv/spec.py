"""The arXiv family's tools (seed 004): search, batch metadata, full text and the category taxonomy.

Cheap to import (pydantic only): the gateway reads these declarations for tools/list and validation.
Checks that need the taxonomy or the calendar (unknown_category, invalid_date_range) run in the
handlers, so that their errors carry the seed's reason codes.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator

from scholar.core.catalogue import MAX_RESULT_CHARS, READ_ONLY_LOCAL, READ_ONLY_OPEN, UPSTREAM_READ, ToolInput, ToolSpec

START_CEILING = 10_000
# One slice stays within the 80,000-character result budget (DESIGN §4) with room for the other fields.
DEFAULT_MAX_CHARACTERS = 60_000
MAX_CHARACTERS = 75_000
MAX_IDS = 10

# Tab, newline and carriage return are allowed; every other control character is refused.
_NO_CONTROL = r"^[^\x00-\x08\x0B\x0C\x0E-\x1F]*$"
_DAY = r"^(\d{4}-\d{2}-\d{2})?$"

ARXIV_ID_FORMS = (
    'New-style "2401.12345", versioned "2401.12345v2" or legacy "hep-th/9901001"; arXiv:id, arxiv.org abs or pdf '
    "URLs and the DOI 10.48550/arXiv.id work too"
)
ArxivIdText = Annotated[str, Field(min_length=1, max_length=100)]
Group = Literal["cs", "econ", "eess", "math", "physics", "q-bio", "q-fin", "stat"]


class ArxivPaper(BaseModel):
    """One arXiv paper's metadata, as the Atom API reports it."""

    id: str = Field(description='Versioned arXiv id, e.g. "2401.12345v1" or "hep-th/9901001v2".')
    title: str
    authors: list[str]
    authorCount: int | None = Field(default=None, description="Total authors when the list was shortened")
    abstract: str
    abstractTruncated: bool | None = None
    primary_category: str = Field(description='Primary category, e.g. "cs.CL".')
    categories: list[str] = Field(description="Every category the paper is filed or cross-listed under.")
    published: str = Field(description="First version's submission time (ISO 8601, UTC).")
    updated: str = Field(description="This version's submission time (ISO 8601, UTC).")
    comment: str | None = Field(default=None, description="Authors' comment (pages, figures, venue).")
    journal_ref: str | None = Field(default=None, description="Journal reference, when published.")
    doi: str | None = Field(default=None, description="DOI of the published version, when known.")
    pdf_url: str
    abstract_url: str


class SearchInput(ToolInput):

    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=1000,
            pattern=_NO_CONTROL,
            description="Prefixes ti: title, au: author, abs: abstract, co: comment, jr: journal ref, cat: "
            'category, all: every field (bare words). Quote phrases and names: ti:"diffusion model", au:"hinton g". '
            "Combine with AND, OR, ANDNOT and parentheses; terms side by side are ANDed. cat: takes a class "
            '(cat:cs.CL) or an archive (cat:astro-ph). Example: au:bengio AND (ti:attention OR abs:"self-attention") '
            "ANDNOT cat:stat.ML",
        ),
    ]
    category: Annotated[
        str | None,
        Field(
            max_length=40,
            description="A subject class (cs.CL, hep-th) matches exactly; an archive (cs, math, astro-ph, cond-mat) "
            "matches its classes plus papers filed before the split; physics is physics.* only (astro-ph, hep-*, "
            "quant-ph ... are archives of their own). See arxiv_list_categories.",
        ),
    ] = None
    max_results: Annotated[
        int, Field(ge=1, le=50, description="Papers per page; abstracts are long: keep it small")
    ] = 10
    sort_by: Literal["relevance", "submitted", "updated"] = Field(
        default="relevance", description="submitted: submission date; updated: last revision"
    )
    sort_order: Literal["ascending", "descending"] = "descending"
    start: Annotated[
        int,
        Field(
            ge=0,
            le=START_CEILING,
            description="Offset of the first paper. Past 10,000 split the search into submitted_from / "
            "submitted_to windows and page within each",
        ),
    ] = 0
    submitted_from: Annotated[
        str | None,
        Field(
            pattern=_DAY,
            max_length=10,
            description="First submission day, YYYY-MM-DD (UTC, inclusive)",
        ),
    ] = None
    submitted_to: Annotated[
        str | None,
        Field(
            pattern=_DAY,
            max_length=10,
            description="Last submission day, YYYY-MM-DD (UTC, inclusive). Windows that meet leave no gap; a paper "
            "at the midnight seam shows up in both: de-duplicate by id",
        ),
    ] = None


class SearchResult(BaseModel):
    papers: list[ArxivPaper]
    effectiveQuery: str = Field(
        description="The arXiv query actually run, with the category and date window folded in; passing it "
        "back as query (and no filters) repeats this exact search."
    )
    totalFound: int = Field(description="Matches arXiv reports in total (before paging).")
    pageStart: int = Field(description="Offset of this page.")
    truncated: bool = Field(description="More matches exist after this page (totalFound > pageStart + shown).")
    shown: int = Field(description="Papers on this page.")
    cap: int = Field(description="The max_results applied to this page.")
    notice: str | None = Field(
        default=None, description="What to do next when the page is empty, overshot, or past the paging ceiling."
    )


class GetPapersInput(ToolInput):

    paper_ids: ArxivIdText | Annotated[list[ArxivIdText], Field(min_length=1, max_length=MAX_IDS)] = Field(
        description=f"One arXiv id or a list of up to 10. {ARXIV_ID_FORMS}"
    )


class NotFoundItem(BaseModel):
    id: str = Field(description="The id as it was requested.")
    reason: Literal["not_in_arxiv", "version_not_in_mirror", "invalid_id"] = Field(
        description="not_in_arxiv: arXiv has no such paper (or no such version); invalid_id: not an arXiv id; "
        "version_not_in_mirror: reserved for mirror-backed deployments."
    )
    detail: str | None = None


class GetPapersResult(BaseModel):
    papers: list[ArxivPaper] = Field(description="Papers found, in the order requested.")
    totalSucceeded: int
    not_found: list[NotFoundItem] | None = Field(
        default=None, description="Requested ids that returned nothing, with why; null when all were found."
    )
    omitted: list[str] | None = Field(
        default=None, description="Papers found but left out to keep the answer within its size; ask for them again."
    )


class ReadPaperInput(ToolInput):

    paper_id: Annotated[str, Field(min_length=1, max_length=100, description=ARXIV_ID_FORMS)]
    max_characters: Annotated[int, Field(ge=1, le=MAX_CHARACTERS)] | None = Field(
        default=DEFAULT_MAX_CHARACTERS,
        description="Characters of body in this slice (null: the most)",
    )
    start: Annotated[int, Field(ge=0, le=50_000_000, description="Offset into the body: pass next_start")] = 0

    @field_validator("max_characters", mode="after")
    @classmethod
    def _null_is_the_most(cls, value: int | None) -> int:
        # Seed 004 clients send null for "everything": they get the largest slice, never an unbounded one.
        return MAX_CHARACTERS if value is None else value


class ReadPaperResult(BaseModel):
    paper_id: str = Field(description="Versioned id of the paper read.")
    title: str = Field(description="Title from arXiv's metadata.")
    content: str = Field(
        description="This slice of the body as Markdown: from an HTML render with headings, lists, tables and "
        "LaTeX math ($…$ inline, $$…$$ display); from pdf_text with headings and paragraphs inferred from the "
        "layout and <!-- page N --> markers. Empty when start is past body_characters."
    )
    source: Literal["arxiv_html", "ar5iv", "pdf_text"] = Field(
        description="Which artifact answered: arXiv's HTML render, ar5iv's, or the PDF's text layer (prose is "
        "reliable there, but math and tables are flattened)."
    )
    version_read: str = Field(
        description='The version whose text this is: paper_id for arxiv_html and pdf_text; "latest" for ar5iv, '
        "which renders only the latest version it has converted (it may differ from paper_id)."
    )
    truncated: bool = Field(description="More body follows this slice (start + len(content) < body_characters).")
    start: int = Field(description="Offset of content's first character in the cleaned body.")
    next_start: int | None = Field(default=None, description="Pass as start for the next slice; null at the end.")
    total_characters: int = Field(
        description="Length of the raw artifact before cleaning (the HTML page; equal to body_characters for pdf_text)."
    )
    body_characters: int = Field(description="Length of the whole cleaned body: page with start / max_characters.")
    pdf_url: str
    abstract_url: str
    notice: str | None = Field(default=None, description="How to continue when the slice is partial or empty.")


class ListCategoriesInput(ToolInput):

    group: Group | None = Field(
        default=None,
        description="physics covers astro-ph, cond-mat, gr-qc, hep-*, math-ph, nlin, nucl-*, physics.*, quant-ph",
    )


class CategoryItem(BaseModel):
    code: str = Field(description='Category code, e.g. "cs.AI".')
    name: str = Field(description='Full name, e.g. "Artificial Intelligence".')
    group: str = Field(description='Top-level group, e.g. "cs".')


class ListCategoriesResult(BaseModel):
    categories: list[CategoryItem]
    totalCount: int
    notice: str | None = None


def category_codes() -> tuple[str, ...]:
    """Every arXiv subject class, from the taxonomy (imported on first use: the gateway loads this spec)."""
    from scholar.families.arxiv.taxonomy import CATEGORIES  # noqa: PLC0415  # the gateway's cold start never needs it

    return tuple(c.code for c in CATEGORIES)


TOOLS = (
    ToolSpec(
        name="arxiv_search",
        family="arxiv",
        title="Search arXiv",
        description="Search arXiv by field, category and submission window. Returns metadata with abstracts, the "
        "effectiveQuery that reproduces the page, totalFound and paging facts; notice says how to recover from an "
        "empty page or the 10,000 paging ceiling.",
        input_model=SearchInput,
        output_model=SearchResult,
        **UPSTREAM_READ,
        completions={"category": category_codes},
    ),
    ToolSpec(
        name="arxiv_get_papers",
        family="arxiv",
        title="Get arXiv papers",
        description="Metadata of up to 10 arXiv papers in one request: title, authors, abstract, categories, "
        "dates, comment, journal ref, DOI, links. Ids that return nothing are in not_found with a reason; the rest "
        "still come back.",
        input_model=GetPapersInput,
        output_model=GetPapersResult,
        **UPSTREAM_READ,
    ),
    ToolSpec(
        name="arxiv_read_paper",
        family="arxiv",
        title="Read an arXiv paper",
        description="Full text of an arXiv paper as Markdown with LaTeX math, from arXiv's HTML, else ar5iv, else "
        "the PDF's text layer (source says which); headings, tables, captions, footnotes and references kept. "
        "Long papers (math-heavy ones run to several hundred thousand characters) come in slices: page with "
        "start; body_characters is the total.",
        input_model=ReadPaperInput,
        output_model=ReadPaperResult,
        annotations=READ_ONLY_OPEN,
        queue_on_rate_limit=True,
        max_result_chars=MAX_RESULT_CHARS,  # a slice of at most MAX_CHARACTERS leaves room for the other fields
    ),
    ToolSpec(
        name="arxiv_list_categories",
        family="arxiv",
        title="List arXiv categories",
        description="arXiv subject classes with their names and groups, optionally of one group; arxiv_search also "
        "takes a bare archive code (cs, astro-ph ...) for a whole archive.",
        input_model=ListCategoriesInput,
        output_model=ListCategoriesResult,
        annotations=READ_ONLY_LOCAL,
    ),
)
