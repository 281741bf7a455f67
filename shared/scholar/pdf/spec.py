"""The PDF tools (seed 000 "PDF Conversion"): fetch a paper's PDF, convert it to Markdown, in the background.

Every tool is write-tagged (hidden in read-only mode) and may run as a task: a cached artifact answers at
once, anything else answers at once with ``{queued: true, task_id, ...}`` while the PDF pipeline runs.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from scholar.catalogue import WRITE_OPEN, ToolSpec
from scholar.fulltext.models import DEFAULT_MAX_CHARS, MAX_CHARS_LIMIT
from scholar.fulltext.pdf_results import (
    ConvertPdfResult,
    FetchAndConvertResult,
    FetchPaperPdfResult,
    FetchPdfByUrlResult,
)

PDF_PATH_PATTERN = r"^pdfs/[0-9a-f]{64}\.pdf$"

Identifier = Annotated[
    str,
    Field(
        min_length=1,
        max_length=300,
        description="Paper identifier: DOI, arXiv id, S2 id, PMID:…, PMCID:…, CorpusId:…, "
        "or a doi.org / arxiv.org URL",
    ),
]
UseVlm = Annotated[
    bool,
    Field(description="Ask docling-serve for VLM enrichment of formulas and figures (slower; needs a VLM configured)"),
]
Offset = Annotated[int, Field(ge=0, le=100_000_000, description="First character of the Markdown to return")]
MaxChars = Annotated[
    int, Field(ge=1_000, le=MAX_CHARS_LIMIT, description="Most Markdown characters to return (next_offset pages on)")
]


class FetchPaperPdfInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    identifier: Identifier


class FetchAndConvertInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    identifier: Identifier
    use_vlm: UseVlm = False
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


class FetchPdfByUrlInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: Annotated[str, Field(min_length=8, max_length=2000, description="Direct http(s) URL of a PDF file")]
    filename: Annotated[
        str | None,
        Field(
            default=None,
            max_length=120,
            pattern=r"^[A-Za-z0-9._-]+$",
            description="A label for the file (e.g. smith2024_attention); artifacts are stored by content hash",
        ),
    ] = None
    convert: Annotated[bool, Field(description="Also convert the PDF to Markdown")] = True
    use_vlm: UseVlm = False
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


class ConvertPdfInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    file_path: Annotated[
        str,
        Field(
            max_length=80,
            pattern=PDF_PATH_PATTERN,
            description="Artifact reference of a PDF returned by fetch_paper_pdf, fetch_and_convert or "
            "fetch_pdf_by_url (pdfs/<sha256>.pdf); server file paths are not accepted",
        ),
    ]
    use_vlm: UseVlm = False
    offset: Offset = 0
    max_chars: MaxChars = DEFAULT_MAX_CHARS


_TASK = "Answers at once from stored artifacts; otherwise answers {queued: true, task_id} at once and works in the " \
    "background: poll get_task_result(task_id) (usually 5-60 s)."

def _pdf_tool(**fields: Any) -> ToolSpec:
    """Every PDF tool writes artifacts (hidden in read-only mode) and may run as a task."""
    return ToolSpec(family="pdf", annotations=WRITE_OPEN, tags=frozenset({"write"}), task_support="optional", **fields)


TOOLS = (
    _pdf_tool(
        name="fetch_paper_pdf",
        title="Fetch paper PDF",
        description="Download the open-access PDF of a paper. Tries the Semantic Scholar open-access link, arXiv, "
        "PubMed Central, every Unpaywall location and OpenAlex locations, in that order, until one is a real PDF "
        "(HTML landing and block pages are refused); returns an artifact reference (pdf_path) usable with "
        "convert_pdf_to_markdown, a short-lived download URL, the source that answered and why earlier "
        "candidates were rejected. When no PDF is found the task fails: not_found only when every source answered "
        "without one; a throttled or failing source gives a retryable error naming it (details keep the metadata "
        "and attempts). " + _TASK,
        input_model=FetchPaperPdfInput,
        output_model=FetchPaperPdfResult,
    ),
    _pdf_tool(
        name="fetch_and_convert",
        title="Fetch and convert paper",
        description="Full text of a paper as Markdown: resolve the paper, download its open-access PDF (same "
        "sources as fetch_paper_pdf) and convert it (page markers, headings, paragraphs). Markdown is paged: pass "
        "next_offset as offset to read on. A job that gets no PDF or no Markdown fails; the error's details keep "
        "the metadata, attempts and any stored PDF. Start without "
        "use_vlm; retry with it only if formulas or figures are missing. " + _TASK,
        input_model=FetchAndConvertInput,
        output_model=FetchAndConvertResult,
    ),
    _pdf_tool(
        name="fetch_pdf_by_url",
        title="Fetch PDF by URL",
        description="Download a PDF from a public http(s) URL you found (author page, preprint server, "
        "repository) and, by default, convert it to paged Markdown. Private, loopback and cloud-metadata "
        "addresses are refused, also after redirects; size and time are capped. " + _TASK,
        input_model=FetchPdfByUrlInput,
        output_model=FetchPdfByUrlResult,
    ),
    _pdf_tool(
        name="convert_pdf_to_markdown",
        title="Convert PDF to Markdown",
        description="Convert a PDF that one of the PDF tools returned (its pdf_path, pdfs/<sha256>.pdf) to paged "
        "Markdown. Standard and VLM conversions are stored separately. Encrypted or image-only PDFs fail with "
        "reason pdf_extraction_failed. " + _TASK,
        input_model=ConvertPdfInput,
        output_model=ConvertPdfResult,
    ),
)
