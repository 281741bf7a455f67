"""Building a tool's answer from stored artifacts: the same code for a cached answer and a finished task.

The Markdown is read from S3 and paged (``offset``/``max_chars`` → ``next_offset``); the PDF gets a fresh
short-lived presigned URL. The answer model is the tool's own output model (scholar.services.fulltext.pdf_results).
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.config import Settings
from scholar.core.errors import NotFoundError
from scholar.core.records import FailedSource
from scholar.services.fulltext import artifacts, docling, reading
from scholar.services.fulltext.models import PDF_RESULT_CHARS, Attempt, Converter, Job, PaperSummary, StoredPdf
from scholar.services.fulltext.pdf_results import (
    ConvertPdfResult,
    FetchAndConvertResult,
    FetchPaperPdfResult,
    FetchPdfByUrlResult,
    Outcome,
    fit_outcome,
)
from scholar.store.owned_pdfs import OWNED_REF

_PAGE_MARKER = re.compile(r"<!-- page (\d+) -->")
OUTPUT_MODELS: dict[str, type[Outcome]] = {
    "fetch_paper_pdf": FetchPaperPdfResult,
    "fetch_and_convert": FetchAndConvertResult,
    "fetch_pdf_by_url": FetchPdfByUrlResult,
    "convert_pdf_to_markdown": ConvertPdfResult,
}


def converter_for(use_vlm: bool, settings: Settings) -> Converter:
    """The converter of a job: docling-serve when configured (VLM when asked for and configured), else built-in."""
    if not docling.configured(settings):
        return "builtin"
    return "docling_vlm" if use_vlm and settings.vlm_api_url else "docling"


def converter_of(use_vlm: bool, pdf_path: str, settings: Settings) -> Converter:
    """The converter for one stored PDF: a caller's own (licensed) PDF is converted here, never sent to docling."""
    return "builtin" if OWNED_REF.match(pdf_path) else converter_for(use_vlm, settings)


def vlm_skip_reason(use_vlm: bool, converter: Converter) -> str | None:
    """Why a requested VLM enrichment did not run (seed 000 ``vlm_skip_reason``), or None."""
    return docling.VLM_NOT_CONFIGURED if use_vlm and converter != "docling_vlm" else None


def pdf_fields(pdf: StoredPdf | None) -> dict[str, object]:
    if pdf is None:
        return {}
    if OWNED_REF.match(pdf.pdf_path):  # the caller's own (licensed) copy: no link another hand could open
        return pdf.model_dump()
    return {
        **pdf.model_dump(),
        "pdf_url": artifacts.presign(pdf.pdf_path),
        "pdf_url_expires_s": artifacts.PRESIGN_S,
    }


def markdown_fields(job: Job, md_path: str, converter: Converter) -> dict[str, object]:
    """The paged Markdown of a stored conversion.

    Raises:
        NotFoundError: the Markdown artifact is gone.
    """
    markdown = artifacts.get_markdown(md_path)
    if markdown is None:
        raise NotFoundError(f"the artifact {md_path} does not exist (it may have expired)")
    text, next_offset = artifacts.page(markdown, job.offset, job.max_chars)
    markers = _PAGE_MARKER.findall(markdown)
    return {
        "md_path": md_path,
        "markdown": text,
        "offset": job.offset,
        "next_offset": next_offset,
        "total_chars": len(markdown),
        "truncated": next_offset is not None,
        "converter": converter,
        "vlm_used": converter == "docling_vlm",
        "vlm_skip_reason": vlm_skip_reason(job.use_vlm, converter),
        "page_count": int(markers[-1]) if markers else None,
    }


def build(
    job: Job,
    *,
    metadata: PaperSummary | None = None,
    pdf: StoredPdf | None = None,
    md: tuple[str, Converter] | None = None,
    attempts: list[Attempt] | None = None,
    failed_sources: list[FailedSource] | None = None,
    cached: bool = False,
    principal: str = "",
) -> BaseModel:
    """The tool's answer for a job from what is stored (a failed job has no answer: see scholar.runtime.outcome)."""
    fields: dict[str, object] = {
        **pdf_fields(pdf), "attempts": attempts or [], "failed_sources": failed_sources or [], "cached": cached
    }
    if job.kind == "convert" and job.pdf_path:
        fields.update(
            pdf_path=artifacts.public_ref(job.pdf_path),
            sha256=artifacts.sha_of(job.pdf_path),
            pdf_url=artifacts.presign(job.pdf_path),
            pdf_url_expires_s=artifacts.PRESIGN_S,
        )
    if job.kind == "paper":
        fields["metadata"] = metadata
    if job.read is not None:  # read_paper: whole pages, outline, section or figure (scholar.services.fulltext.reading)
        return reading.build_answer(job, fields, md, principal)
    if md is not None:
        fields.update(markdown_fields(job, *md))
    if job.filename:
        fields["filename"] = job.filename
    model = OUTPUT_MODELS[job.tool]
    answer = model.model_validate({k: v for k, v in fields.items() if k in model.model_fields})
    return fit_outcome(answer, MAX_RESULT_CHARS if job.tool == "fetch_paper_pdf" else PDF_RESULT_CHARS)
