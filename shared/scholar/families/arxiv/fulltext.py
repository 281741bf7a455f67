"""arxiv_read_paper: the cleaned body from HTML render → ar5iv → PDF text, kept in S3, served in slices.

The cleaned body of a version is immutable, so it is stored once under
``arxiv/body/<cleaner>/<versioned id>.json.z`` in the ArtifactBucket (when one is configured): later
slices of the same paper cost one S3 read and no arXiv request for the body. ar5iv renders only the latest
version it converted, whatever version is asked, so its text is served but never stored under a version's key.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Literal

from pydantic import BaseModel

from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.core.errors import NotFoundError, UnavailableError, UpstreamError
from scholar.core.ids import parse_arxiv_id
from scholar.families.arxiv import markdown, metadata, reasons
from scholar.families.arxiv.spec import ArxivPaper, ReadPaperInput, ReadPaperResult
from scholar.sources import arxiv
from scholar.store.blobs import BlobStore
from scholar.store.cache import Cache

# ar5iv cannot be asked for a version: it renders the latest one it holds.
AR5IV_VERSION = "latest"
# Bump when the cleaning changes, so stored bodies are rebuilt rather than served stale.
CLEANER_VERSION = "md1"
# The vertical stamp arXiv prints on the first page's margin: "arXiv:2202.00535v1 [cs.CL] 1 Feb 2022".
_ARXIV_STAMP = re.compile(r"^arXiv:\S+\s+\[[^\]]+\]\s+\d{1,2}\s+\w{3}\s+\d{4}\s*$", re.MULTILINE)
_BLANK_LINES = re.compile(r"\n{3,}")


class Body(BaseModel):
    """A paper's cleaned body and where it came from."""

    source: Literal["arxiv_html", "ar5iv", "pdf_text"]
    text: str
    total_characters: int


def _blob_key(versioned_id: str) -> str:
    return f"arxiv/body/{CLEANER_VERSION}/{versioned_id}.json.z"


def _blobs() -> BlobStore | None:
    return BlobStore() if get_settings().resources.artifact_bucket else None


def pdf_text(data: bytes) -> str:
    """Markdown of the PDF's text layer (scholar.services.pdftext.convert), without arXiv's margin stamp.

    Raises:
        UnavailableError: reason ``pdf_extraction_failed``: encrypted, or no text layer.
        UpstreamError: pdfium cannot open the file (a truncated or damaged download; retryable).
    """
    from scholar.services.pdftext.convert import PdfExtractionError, convert_pdf  # noqa: PLC0415  # pdfium: only without an HTML render

    try:
        document = convert_pdf(data, ocr_languages=get_settings().ocr_languages)
    except PdfExtractionError as exc:
        if exc.cause == "invalid_pdf":
            # pdfium cannot open it: a cut or damaged download, not a PDF without text. Retrying may help.
            raise UpstreamError(
                f"arXiv's PDF could not be opened ({exc.message}); the download may have been cut short",
                source=arxiv.SITE,
                hint="Call again in a moment; nothing was stored.",
            ) from exc
        raise _extraction_failed(f"its PDF cannot be read ({exc.message})") from exc
    text = _ARXIV_STAMP.sub("", document.markdown)
    return _BLANK_LINES.sub("\n\n", text).strip()


def _extraction_failed(why: str) -> UnavailableError:
    return UnavailableError(
        f"arXiv has no HTML render of this paper and {why}",
        source=arxiv.SITE,
        reason=reasons.PDF_EXTRACTION_FAILED,
        hint="The PDF has no usable text layer (scanned or image-only); convert it with OCR through the PDF tools "
        "(fetch_and_convert), or read the abstract from arxiv_get_papers.",
    )


async def _build_body(paper: ArxivPaper) -> tuple[Body, bool]:
    """The body from the best artifact, and whether it may be stored (False after a service failed)."""
    base_id, _ = parse_arxiv_id(paper.id)
    render, failure = await arxiv.fetch_render(paper.id, base_id)
    if render is not None:
        text = markdown.html_to_markdown(render.html)
        if text.strip():
            return Body(source=render.source, text=text, total_characters=len(render.html)), failure is None
    data = await arxiv.fetch_pdf(paper.id)
    if data is None:
        if failure is not None:
            raise failure  # a render service failed: "no content" would be a guess
        raise NotFoundError(
            f"arXiv has no HTML render (arxiv.org/html, ar5iv) and no PDF for {paper.id}",
            source=arxiv.SITE,
            reason=reasons.CONTENT_UNAVAILABLE,
            hint="Only the metadata is available: use the abstract from arxiv_get_papers, or try another version.",
        )
    text = await off_loop(pdf_text, data)
    if not text:
        raise _extraction_failed("its PDF has no text layer")
    # A PDF-derived body after a render service failed is served, not stored: the render may exist.
    return Body(source="pdf_text", text=text, total_characters=len(text)), failure is None


async def load_body(paper: ArxivPaper) -> Body:
    """The cleaned body of ``paper`` (its exact version): from S3 when stored, else built and stored.

    Raises:
        NotFoundError: reason ``content_unavailable``.
        UnavailableError: reason ``pdf_extraction_failed``.
        RateLimitedError / UpstreamError: a service failed and nothing else answered (nothing is stored).
    """
    blobs = _blobs()
    key = _blob_key(paper.id)
    if blobs is not None and (stored := await blobs.aget(key)) is not None:
        return Body.model_validate(json.loads(zlib.decompress(stored)))
    body, complete = await _build_body(paper)
    # ar5iv's text may be another version's: storing it under this version's key would make that permanent.
    if blobs is not None and complete and body.source != "ar5iv":
        await blobs.aput(key, zlib.compress(body.model_dump_json().encode(), 6), "application/octet-stream")
    return body


def _slice(body: Body, start: int, limit: int | None) -> tuple[str, bool, int | None, str | None]:
    size = len(body.text)
    content = body.text[start : None if limit is None else start + limit]
    end = start + len(content)
    truncated = end < size
    if start >= size:
        return "", False, None, f"start={start} is past the end of the body ({size} characters); use a smaller start."
    if truncated:
        return content, True, end, (
            f"Characters {start:,}-{end - 1:,} of {size:,}. Call again with start={end} for the next part "
            "(or max_characters=null for everything)."
        )
    return content, False, None, None


async def read_paper(args: ReadPaperInput, cache: Cache | None = None) -> ReadPaperResult:
    """One slice of a paper's cleaned body.

    Raises:
        InvalidArgumentError: reason ``invalid_request``: not an arXiv id.
        NotFoundError: reasons ``no_match`` (no such paper) and ``content_unavailable``.
        UnavailableError: reason ``pdf_extraction_failed``.
    """
    paper = await metadata.get_paper(args.paper_id, cache)
    body = await load_body(paper)
    content, truncated, next_start, notice = _slice(body, args.start, args.max_characters)
    return ReadPaperResult(
        paper_id=paper.id,
        title=paper.title,
        content=content,
        source=body.source,
        version_read=AR5IV_VERSION if body.source == "ar5iv" else paper.id,
        truncated=truncated,
        start=args.start,
        next_start=next_start,
        total_characters=body.total_characters,
        body_characters=len(body.text),
        pdf_url=paper.pdf_url,
        abstract_url=paper.abstract_url,
        notice=notice,
    )
