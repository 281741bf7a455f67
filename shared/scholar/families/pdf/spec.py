"""The PDF tools (seed 000 "PDF Conversion"): fetch a paper's PDF, convert it to Markdown, in the background.

Every tool is write-tagged (hidden in read-only mode) and may run as a task: a cached artifact answers at
once, anything else answers at once with ``{queued: true, task_id, ...}`` while the PDF pipeline runs.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from scholar.core.catalogue import MAX_RESULT_CHARS, WRITE_OPEN, ToolInput, ToolSpec
from scholar.core.ids import PaperIdentifier
from scholar.services.fulltext.models import DEFAULT_MAX_CHARS, MAX_CHARS_LIMIT, PDF_RESULT_CHARS
from scholar.services.fulltext.pdf_results import (
    ConvertPdfResult,
    FetchAndConvertResult,
    FetchPaperPdfResult,
    FetchPdfByUrlResult,
)

PDF_PATH_PATTERN = r"^pdfs/[0-9a-f]{64}\.pdf$"

UseVlm = Annotated[bool, Field(description="VLM enrichment of formulas and figures (slower; needs a VLM configured)")]
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
            description="A label, e.g. smith2024_attention (artifacts are stored by content hash)",
        ),
    ] = None
    convert: Annotated[bool, Field(description="Also convert it to Markdown")] = True
    use_vlm: UseVlm = False
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


class ConvertPdfInput(ToolInput):
    file_path: Annotated[
        str,
        Field(
            max_length=80,
            pattern=PDF_PATH_PATTERN,
            description="The pdf_path another PDF tool returned; server file paths are not accepted",
        ),
    ]
    use_vlm: UseVlm = False
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS



def _pdf_tool(**fields: Any) -> ToolSpec:
    """Every PDF tool writes artifacts (hidden in read-only mode) and may run as a task."""
    return ToolSpec(family="pdf", annotations=WRITE_OPEN, tags=frozenset({"write"}), task_support="optional", **fields)


TOOLS = (
    _pdf_tool(
        name="fetch_paper_pdf",
        title="Fetch paper PDF",
        description="The open-access PDF of a paper: Semantic Scholar's link, arXiv, PubMed Central, then every "
        "Unpaywall and OpenAlex location until one is a real PDF (landing and block pages refused). Returns pdf_path "
        "(for convert_pdf_to_markdown), a short-lived download URL, the source and why earlier candidates failed. "
        "No PDF is not_found only when every source answered; a throttled or failing one gives a retryable error "
        "naming it (details keep the metadata and attempts). Answers at once from stored artifacts, else queued "
        "(usually 5-60 s).",
        input_model=FetchPaperPdfInput,
        output_model=FetchPaperPdfResult,
        max_result_chars=MAX_RESULT_CHARS,  # answer_builder: pdf_results.fit_outcome
    ),
    _pdf_tool(
        name="fetch_and_convert",
        title="Fetch and convert paper",
        description="A paper's open-access PDF (as fetch_paper_pdf finds it) converted to paged Markdown with page "
        "markers and headings. A job that gets no PDF or no Markdown fails; the error's details keep the metadata, "
        "attempts and any stored PDF. Start without use_vlm; retry with it only if formulas or figures are missing.",
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
        description="A stored PDF (pdfs/<sha256>.pdf) converted to paged Markdown; standard and VLM conversions are "
        "kept apart. Encrypted or image-only PDFs fail with reason pdf_extraction_failed.",
        input_model=ConvertPdfInput,
        output_model=ConvertPdfResult,
        max_result_chars=PDF_RESULT_CHARS,
    ),
)
