"""The research family's ``read_paper`` tool (seed 003, issue 12): a paper as Markdown, page by page, in budgets."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from scholar.catalogue import READ_ONLY_OPEN, ToolSpec
from scholar.fulltext.read_options import (
    DEFAULT_PAGES,
    DEFAULT_READ_CHARS,
    MAX_READ_CHARS,
    MIN_READ_CHARS,
    READ_TOOL,
)
from scholar.fulltext.read_result import ReadPaperResult


class ReadPaperInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    identifier: Annotated[
        str,
        Field(min_length=1, max_length=2000,
              description="The paper: DOI, arXiv id, S2 id, PMID:…, PMCID:…, an id from a search result, a PDF "
              "artifact reference we returned (pdfs/<sha256>.pdf), or a public http(s) URL of a PDF"),
    ]
    pages: Annotated[
        str,
        Field(min_length=1, max_length=200, pattern=r"^[0-9,\- ]+$",
              description='Pages to read: a range list such as "1-10", "3,5,7-9" or "12-" (to the end)'),
    ] = DEFAULT_PAGES
    max_chars: Annotated[
        int,
        Field(ge=MIN_READ_CHARS, le=MAX_READ_CHARS,
              description="Most Markdown characters in one answer; whole pages only, the rest comes back as "
              "next_pages"),
    ] = DEFAULT_READ_CHARS
    outline: bool = Field(default=False, description="Return only the section headings with their pages (no body)")
    section: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=200,
              description="A heading (as in the outline, e.g. Related Work or 4.2): return that section's pages"),
    ] = None
    figure: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=40,
              description='A figure label ("Figure 3", "Fig. 3"): its region as a PNG image, and its caption'),
    ] = None
    table: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=40,
              description='A table label ("Table 2"): its region as a PNG image, its caption and, where the '
              "converter recognised its rows, a Markdown table"),
    ] = None

    @model_validator(mode="after")
    def _one_view(self) -> ReadPaperInput:
        chosen = [name for name in ("outline", "section", "figure", "table") if getattr(self, name)]
        if len(chosen) > 1:
            raise ValueError(f"ask for one of outline, section, figure or table, not {' and '.join(chosen)}")
        return self


TOOLS = (
    ToolSpec(
        name=READ_TOOL,
        family="research",
        title="Read paper",
        description="Read a paper as Markdown, page by page: pages (default 1-10) come back with one "
        "<!-- page N --> marker each, whole pages up to max_chars (default 100,000); the rest of the range is "
        "next_pages (pass it as pages to read on). outline=true lists the headings with their pages first; "
        "section returns one section; figure / table return that region as a PNG image plus its caption (tables "
        "also as Markdown where recognised). Uses a stored PDF and conversion when there is one; otherwise answers "
        "{queued: true, task_id} at once while the PDF is fetched and converted: poll get_task_result (usually "
        "5-60 s), or call read_paper again. Scanned (image-only) and password-protected PDFs fail with reason "
        "pdf_extraction_failed. A PDF fetched for reading is not added to your library.",
        input_model=ReadPaperInput,
        output_model=ReadPaperResult,
        annotations=READ_ONLY_OPEN,
        task_support="optional",
    ),
)
