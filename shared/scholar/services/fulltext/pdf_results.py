"""The answers of the PDF tools, built from stored artifacts (scholar.services.fulltext.answer_builder) by the pdf
family
and by the pipeline's finish step alike."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, Field

from scholar.core.budget import RESERVE, fit_field
from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.records import FailedSource
from scholar.services.fulltext.models import Attempt, Converter, PaperSummary, PdfSource

R = TypeVar("R", bound="Outcome")


class PdfFields(BaseModel):
    pdf_path: str | None = Field(default=None, description="Artifact reference of the PDF (pdfs/<sha256>.pdf)")
    pdf_url: str | None = Field(default=None, description="Short-lived download URL of the PDF")
    pdf_url_expires_s: int | None = None
    pdf_source: PdfSource | None = Field(
        default=None, description="s2_oa, arxiv, pmc, unpaywall, openalex, publisher, url or library_proxy"
    )
    source_url: str | None = Field(default=None, description="The URL the PDF was downloaded from")
    sha256: str | None = None
    size_bytes: int | None = None


class MarkdownFields(BaseModel):
    md_path: str | None = Field(default=None, description="Artifact reference of the Markdown")
    markdown: str | None = Field(default=None, description="The Markdown from offset, at most max_chars characters")
    offset: int = 0
    next_offset: int | None = Field(default=None, description="Pass as offset to read on; null at the end")
    total_chars: int | None = None
    truncated: bool = False
    converter: Converter | None = None
    vlm_used: bool = False
    vlm_skip_reason: str | None = Field(default=None, description="Why VLM enrichment was requested but not used")
    page_count: int | None = None


class Outcome(BaseModel):
    attempts: list[Attempt] = Field(
        default_factory=list, description="Each candidate tried, in order, and why it failed"
    )
    failed_sources: list[FailedSource] = Field(
        default_factory=list,
        description="Sources that failed while the PDF was looked for (the PDF came from another one)",
    )
    cached: bool = Field(default=False, description="Answered from stored artifacts without new work")
    attempts_truncated: bool | None = Field(default=None, description="attempts (and also_found) were cut to fit "
                                            "the size budget")


def fit_outcome(result: R, cap: int = MAX_RESULT_CHARS) -> R:
    """``result`` within ``cap`` characters (its tool's advertised size): every candidate a paper's sources list is
    an attempt, so attempts, then the other PDFs found, are cut to fit, with ``attempts_truncated``."""
    reserve = RESERVE + MAX_RESULT_CHARS - cap
    for name in ("attempts", "also_found"):
        if name in type(result).model_fields:
            result, _ = fit_field(result, name, reserve, flag="attempts_truncated")
    return result


class FetchPaperPdfResult(Outcome, PdfFields):
    metadata: PaperSummary | None = None


class FetchAndConvertResult(FetchPaperPdfResult, MarkdownFields):
    pass


class FetchPdfByUrlResult(Outcome, MarkdownFields, PdfFields):
    filename: str | None = None


class ConvertPdfResult(Outcome, MarkdownFields, PdfFields):
    pass
