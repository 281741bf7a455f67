"""The research family's ``read_paper`` tool (seed 003, issue 12): a paper as Markdown, page by page, in budgets."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from scholar.core.catalogue import READ_ONLY_OPEN, ToolInput, ToolSpec, text_argument
from scholar.services.fulltext.read_options import (
    DEFAULT_PAGES,
    DEFAULT_READ_CHARS,
    MAX_READ_CHARS,
    MIN_READ_CHARS,
    READ_RESULT_CHARS,
    READ_TOOL,
)
from scholar.services.fulltext.read_result import ReadPaperResult


class ReadPaperInput(ToolInput):
    identifier: text_argument(  # type: ignore[valid-type]  # a type text_argument builds at run time
        2000, "A paper id, a PDF ref (pdfs/…, mine/…, upload/…), your PDF's path (local server) or a PDF URL"
    )
    pages: text_argument(  # type: ignore[valid-type]  # a type text_argument builds at run time
        200, "A range list: 1-10, 3,5,7-9 or 12- (to the end)", pattern=r"^[0-9,\- ]+$"
    ) = DEFAULT_PAGES
    max_chars: Annotated[int, Field(ge=MIN_READ_CHARS, le=MAX_READ_CHARS, description="Whole pages only")] = (
        DEFAULT_READ_CHARS
    )
    outline: bool = Field(default=False, description="Only the headings with their pages")
    section: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=200,
              description="A heading as in the outline (4.2, Related Work)"),
    ] = None
    figure: Annotated[str | None, Field(default=None, min_length=1, max_length=40,
                                        description="Figure 3 or Fig. 3")] = None
    table: Annotated[str | None, Field(default=None, min_length=1, max_length=40, description="Table 2")] = None

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
        description="A paper as Markdown: whole pages, each after a <!-- page N --> marker, up to max_chars; "
        "next_pages is the rest of the range (pass it as pages). outline=true gives the headings with their pages, "
        "section one section, figure / table that region as a PNG plus its caption (a table also as Markdown). Not "
        "converted yet: {queued: true, task_id}; poll get_task_result (5-60 s). Scanned and encrypted PDFs "
        "fail: pdf_extraction_failed. Open copies first, then your library proxy. Reading does not add the paper "
        "to your library.",
        input_model=ReadPaperInput,
        output_model=ReadPaperResult,
        annotations=READ_ONLY_OPEN,
        task_support="optional",
        max_result_chars=READ_RESULT_CHARS,
    ),
)
