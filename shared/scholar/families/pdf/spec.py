"""The PDF tools (seed 000 "PDF Conversion"): fetch a paper's PDF, convert it to Markdown, in the background.

Every tool is write-tagged (hidden in read-only mode) and may run as a task: a cached artifact answers at
once, anything else answers at once with ``{queued: true, task_id, ...}`` while the PDF pipeline runs.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from scholar.core.catalogue import MAX_RESULT_CHARS, WRITE_OPEN, Annotations, ToolInput, ToolSpec
from scholar.core.ids import PaperIdentifier
from scholar.services.fulltext.models import DEFAULT_MAX_CHARS, MAX_CHARS_LIMIT, PDF_RESULT_CHARS
from scholar.services.fulltext.pdf_results import (
    ConvertPdfResult,
    FetchAndConvertResult,
    FetchPaperPdfResult,
    FetchPdfByUrlResult,
)

UseVlm = Annotated[bool, Field(description="Enrich formulas and figures with a VLM (slower; if configured)")]
Offset = Annotated[int, Field(ge=0, le=100_000_000, description="Pass next_offset")]
MaxChars = Annotated[int, Field(ge=1_000, le=MAX_CHARS_LIMIT, description="Markdown characters per page")]


class FetchPaperPdfInput(ToolInput):
    identifier: PaperIdentifier


class FetchAndConvertInput(ToolInput):
    identifier: PaperIdentifier
    use_vlm: UseVlm = False
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


class FetchPdfByUrlInput(ToolInput):
    url: Annotated[str, Field(min_length=8, max_length=2000, description="Direct http(s) URL of a PDF file")]
    filename: Annotated[
        str | None,
        Field(
            default=None,
            max_length=120,
            pattern=r"^[A-Za-z0-9._-]+$",
            description="A label, e.g. smith2024_attention",
        ),
    ] = None
    convert: Annotated[bool, Field(description="Also convert it to Markdown")] = True
    use_vlm: UseVlm = False
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


class ConvertPdfInput(ToolInput):
    file_path: Annotated[str, Field(min_length=1, max_length=2000, description="pdfs/…, mine/…, upload/… or a path")]
    use_vlm: UseVlm = False
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


class UploadPdfInput(ToolInput):
    pass


class UploadPdfResult(BaseModel):
    ref: str = Field(description="upload/<token>: pass it to read_paper, convert_pdf_to_markdown, library_add or "
                     "download_paper once the file is sent")
    upload_url: str
    method: str = Field(description="POST (a form: fields, then the file as field 'file') or PUT (the file as body)")
    fields: dict[str, str] = Field(default_factory=dict, description="Form fields to send before the file (POST)")
    headers: dict[str, str] = Field(default_factory=dict)
    max_bytes: int
    expires_at: str = Field(description="ISO 8601 UTC; the link works once")
    example: str = Field(description="A curl command that sends ./paper.pdf")
    then: str = Field(description="What to call once the file is sent")


def _pdf_tool(**fields: Any) -> ToolSpec:
    """Every PDF tool writes artifacts (hidden in read-only mode) and may run as a task."""
    return ToolSpec(family="pdf", annotations=WRITE_OPEN, tags=frozenset({"write"}), task_support="optional", **fields)


TOOLS = (
    _pdf_tool(
        name="fetch_paper_pdf",
        title="Fetch paper PDF",
        description="A paper's open-access PDF: Semantic Scholar, arXiv, PubMed Central, then each Unpaywall and "
        "OpenAlex location until one is a real PDF. Returns pdf_path (for convert_pdf_to_markdown), a short-lived URL, "
        "the source and why other candidates failed. not_found only when every source answered; a failing one gives a "
        "retryable error naming it. Stored: at once, else queued (5-60 s).",
        input_model=FetchPaperPdfInput,
        output_model=FetchPaperPdfResult,
        max_result_chars=MAX_RESULT_CHARS,  # answer_builder: pdf_results.fit_outcome
    ),
    _pdf_tool(
        name="fetch_and_convert",
        title="Fetch and convert paper",
        description="A paper's open-access PDF (as fetch_paper_pdf finds it) as paged Markdown with page markers and "
        "headings. No PDF or no Markdown fails; the error's details keep the metadata, attempts and any stored PDF. "
        "Use use_vlm only if formulas or figures are missing.",
        input_model=FetchAndConvertInput,
        output_model=FetchAndConvertResult,
        max_result_chars=PDF_RESULT_CHARS,
    ),
    _pdf_tool(
        name="fetch_pdf_by_url",
        title="Fetch PDF by URL",
        description="A PDF from a public http(s) URL you found (author page, repository), converted to paged "
        "Markdown unless convert=false. Private, loopback and cloud-metadata addresses are refused, also after "
        "redirects; size and time are capped.",
        input_model=FetchPdfByUrlInput,
        output_model=FetchPdfByUrlResult,
        max_result_chars=PDF_RESULT_CHARS,
    ),
    _pdf_tool(
        name="convert_pdf_to_markdown",
        title="Convert PDF to Markdown",
        description="A PDF as paged Markdown: a pdf_path we returned, mine/…, upload/… or (local server) a path. "
        "Encrypted or image-only PDFs fail with reason pdf_extraction_failed.",
        input_model=ConvertPdfInput,
        output_model=ConvertPdfResult,
        max_result_chars=PDF_RESULT_CHARS,
    ),
    ToolSpec(
        name="upload_pdf",
        family="pdf",
        title="Upload a PDF",
        description="A one-time link to send a PDF of yours (size-capped, expires soon); then pass ref where a PDF "
        "goes. Readable by you only. Over stdio give the file's path instead.",
        input_model=UploadPdfInput,
        output_model=UploadPdfResult,
        annotations=Annotations(read_only=False, destructive=False, idempotent=False, open_world=False),
        tags=frozenset({"write"}),
    ),
)
