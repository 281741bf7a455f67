"""A downloaded candidate checked before it is stored, and a rejected candidate as the Attempt that says why.

The download itself (``scholar.web.download``) already refused bodies that are not PDFs or are shorter than
announced; this is the last check: pdfium opens the file and finds pages. Blocking (pdfium): coroutines call it
through ``scholar.core.aio.off_loop``.
"""

from __future__ import annotations

from pathlib import Path

from scholar.core.errors import ScholarError, UpstreamError
from scholar.services.fulltext.models import Attempt, Candidate
from scholar.services.pdftext.lock import PDFIUM

DAMAGED_PDF = "damaged_pdf"


def check_readable(path: Path) -> None:
    """Refuse a file pdfium cannot open, or opens without pages (a cut or damaged download).

    Raises:
        UpstreamError: reason ``damaged_pdf`` (retryable: a new download may be whole).
    """
    from scholar.services.pdftext.convert import PdfExtractionError, count_pages  # noqa: PLC0415  # lazy: pypdfium2 ~50 ms


    with PDFIUM:
        try:
            count_pages(path)
        except PdfExtractionError as exc:
            raise UpstreamError(
                f"the downloaded file is not a readable PDF ({exc.message}); the download may have been cut short",
                reason=DAMAGED_PDF,
                details={"cause": exc.cause},
            ) from exc


def rejected(candidate: Candidate, err: ScholarError) -> Attempt:
    """The attempt record of a candidate that gave no PDF."""
    return Attempt(source=candidate.source, url=candidate.url, ok=False, code=err.code, reason=err.reason or err.code,
                   status=err.status, retryable=err.retryable, message=err.message[:300])
