"""download_paper's answer: the PDF kept in the caller's library, its version, and what else was found.

Pydantic only: research/keep/spec.py imports it, and spec modules stay cheap to import.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from scholar.services.fulltext.models import PaperSummary, PdfSource, Prefer
from scholar.services.fulltext.pdf_results import Outcome, PdfFields
from scholar.store.library.models import PdfVersion, PdfVersionKind


class FoundPdf(BaseModel):
    """A verified PDF of the paper that was not the one kept (another version, or the same one elsewhere)."""

    version: PdfVersionKind
    pdf_source: PdfSource
    source_url: str
    sha256: str = Field(description="Same sha256 as the kept PDF: the same file at another location")
    size_bytes: int


class DownloadPaperResult(Outcome, PdfFields):
    """The PDF kept (pdf_path, sha256, pdf_source, source_url and its version) and the library item holding it."""

    item_id: str = Field(description="The library item (lib_…) the PDF is recorded in")
    collection: str = Field(description="The item's collection")
    version: PdfVersionKind = Field(
        description="Version of the kept PDF: published (version of record), accepted, submitted, preprint or "
        "unknown (the source did not say)"
    )
    prefer: Prefer = Field(description="The version that was asked for first")
    newly_kept: bool = Field(description="False when the library item already held this very PDF")
    also_found: list[FoundPdf] = Field(
        default_factory=list, description="Other verified PDFs found for the paper (not kept), best first"
    )
    versions: list[PdfVersion] = Field(
        default_factory=list,
        description="Every PDF version the library item holds, oldest first; an older version stays beside a newer",
    )
    md_path: str | None = Field(
        default=None, description="Markdown of the kept PDF: read_paper reads it, library_search searches its words"
    )
    md_skip_reason: str | None = Field(
        default=None,
        description="Why the kept PDF has no Markdown (e.g. a scan without a text layer); the PDF is kept all the same",
    )
    metadata: PaperSummary | None = None
