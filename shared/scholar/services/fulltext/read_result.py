"""read_paper's answer: pages of Markdown, or the outline, a section, or one figure or table (pydantic only)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from scholar.core.content import ExtraContentField
from scholar.services.fulltext.models import Converter, PaperSummary
from scholar.services.fulltext.pdf_results import PdfFields


class OutlineEntry(BaseModel):
    level: int = Field(description="Heading level (1 = title, 2 = section, 3 = subsection, ...)")
    heading: str
    page: int = Field(description="Page the heading is on")


class SectionInfo(BaseModel):
    heading: str = Field(description="The heading that matched the section asked for")
    level: int
    pages: str = Field(description="The section's pages (a range list, e.g. 4-6)")


class FigureInfo(BaseModel):
    label: str = Field(description="Normalised label, e.g. Figure 3 or Table 2")
    kind: Literal["figure", "table"]
    page: int
    caption: str = Field(description="The caption text as printed")
    region: Literal["figure", "table", "page"] = Field(
        description="What the image shows: the figure or table region, or the whole page when no region was found"
    )
    box: list[float] = Field(description="The region in PDF points: left, bottom, right, top (origin bottom left)")
    media_type: str = "image/png"
    width_px: int
    height_px: int
    markdown_table: str | None = Field(
        default=None, description="The table as Markdown, when the converter recognised its rows"
    )


class ReadPaperResult(PdfFields):
    """Pages as Markdown with one ``<!-- page N -->`` marker per page, paged by whole pages."""

    markdown: str | None = Field(default=None, description="The pages returned, each after its <!-- page N --> marker")
    pages_requested: str | None = Field(default=None, description="The page ranges asked for, normalised")
    pages_returned: str | None = Field(default=None, description="The pages in markdown (a range list)")
    next_pages: str | None = Field(
        default=None, description="The rest of the asked range, cut at a page boundary: pass as pages to read on"
    )
    pages_missing: str | None = Field(default=None, description="Asked pages past the end of the paper")
    ocr_pages: str | None = Field(default=None, description="Pages read by OCR from a scan: may hold misreadings")
    page_count: int | None = None
    chars: int = Field(default=0, description="Characters of markdown")
    truncated: bool = Field(
        default=False, description="A single page alone was longer than max_chars and was cut at max_chars"
    )
    note: str | None = Field(default=None, description="What was cut, missing or not found, said plainly")
    outline: list[OutlineEntry] | None = Field(default=None, description="Headings with their pages (outline=true)")
    section: SectionInfo | None = None
    figure: FigureInfo | None = Field(default=None, description="The figure or table; its PNG is an image block")
    md_path: str | None = Field(default=None, description="Artifact reference of the whole Markdown")
    converter: Converter | None = None
    metadata: PaperSummary | None = None
    cached: bool = Field(default=False, description="Answered from stored artifacts without new work")
    extra_content: ExtraContentField = None
