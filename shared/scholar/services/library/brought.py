"""A PDF the caller brought, kept in their library (library_add and download_paper given a path or an upload).

The PDF becomes the caller's own (``scholar.services.fulltext.brought``), then its identity is looked for
(``scholar.services.fulltext.identity``): with a DOI or arXiv id the PDF is kept on that paper's item, linked to its
record as download_paper keeps one; a paper no source knows, or a PDF without an identifier, is an untitled document:
an item named by the PDF's title (or the file's name) whose only identity is the PDF's hash. A failing source fails the
call (nothing half-known is stored).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from scholar.core.aio import off_loop
from scholar.core.config import Settings
from scholar.core.errors import NotFoundError, ScholarError
from scholar.core.records import Paper
from scholar.services.fulltext import artifacts
from scholar.services.fulltext.brought import Brought, bring
from scholar.services.fulltext.identity import PdfIdentity, identify_pdf
from scholar.services.fulltext.keep_result import DownloadPaperResult
from scholar.services.fulltext.models import PaperSummary
from scholar.services.library.keep import add_paper, keep_pdf, keep_pdf_on
from scholar.services.paper_lookup.match import match_reference
from scholar.store.library.models import DEFAULT_COLLECTION, LibraryItem, PdfVersion, item_id_for
from scholar.store.library.table import now_iso
from scholar.store.owned_pdfs import get_owned_pdf

__all__ = ["download_brought", "keep_brought"]

UNTITLED_SOURCE = "pdf"


def _version(own: Brought) -> PdfVersion:
    return PdfVersion(
        pdf_path=own.ref,
        sha256=own.sha256,
        size_bytes=own.size_bytes,
        version="unknown",
        pdf_source=own.source,
        source_url=f"{own.source}:{own.filename or own.ref}",
        kept_at=now_iso(),
    )


def _identified(own: Brought, principal: str) -> PdfIdentity:
    return identify_pdf(get_owned_pdf(principal, own.ref), own.filename)


async def _by_title(identity: PdfIdentity) -> PdfIdentity:
    """The identity with the identifier its title names, when the checked title match accepts one record (else as it
    was: an ambiguous title, none found or a source that failed leave the PDF an untitled document)."""
    try:
        outcome = await match_reference(title=identity.title)
    except ScholarError:
        return identity
    paper = outcome.paper if outcome.status == "matched" else None
    if paper is None:
        return identity
    doi = (paper.externalIds or {}).get("DOI")
    found = f"DOI:{doi}" if doi else paper.paperId
    return replace(identity, identifier=found) if found else identity


async def keep_brought(
    principal: str,
    raw: str,
    settings: Settings,
    *,
    collection: str = DEFAULT_COLLECTION,
    tags: Sequence[str] = (),
    notes: str | None = None,
) -> tuple[LibraryItem, bool, Brought]:
    """Keep the PDF ``raw`` names in the caller's library, on its paper's item or as an untitled document.

    Returns:
        (the item, whether the PDF is newly kept on it, the caller's own PDF).

    Raises:
        as ``bring`` (the path guard, the upload checks), and ``keep_pdf`` (a failing source, the library's limits).
    """
    own = await off_loop(bring, raw, principal, settings)
    identity = await off_loop(_identified, own, principal)
    pdf = _version(own)
    item: LibraryItem | None = None
    if not identity.identifier and identity.titled:
        identity = await _by_title(identity)
    if identity.identifier:
        try:
            item, newly = await keep_pdf(principal, identifier=identity.identifier, pdf=pdf, collection=collection)
        except NotFoundError:
            item = None  # an identifier no source knows: the PDF is still the caller's, kept as a document
    if item is None:
        paper = Paper(title=identity.title, sources=[UNTITLED_SOURCE])
        item, newly = await keep_pdf_on(
            principal, item_id=item_id_for(f"sha256:{own.sha256}"), paper=paper, pdf=pdf, collection=collection
        )
    if tags or notes is not None:
        item, _ = await add_paper(principal, item.item_id, tags=tags, notes=notes)
    return item, newly, own


def _summary(item: LibraryItem) -> PaperSummary:
    return PaperSummary.model_validate(
        {
            **item.paper,
            "paper_id": item.paper.get("paperId"),
            "authors": [a.get("name") for a in item.paper.get("authors") or []][:10],
        }
    )


async def download_brought(
    principal: str, raw: str, settings: Settings, *, collection: str, prefer: str
) -> DownloadPaperResult:
    """download_paper's answer for a PDF the caller brought: kept at once, never queued."""
    item, newly, own = await keep_brought(principal, raw, settings, collection=collection)
    url = await off_loop(artifacts.presign, own.key)
    return DownloadPaperResult.model_validate(
        {
            "pdf_path": own.ref,
            "pdf_url": url,
            "pdf_url_expires_s": artifacts.PRESIGN_S,
            "pdf_source": own.source,
            "source_url": _version(own).source_url,
            "sha256": own.sha256,
            "size_bytes": own.size_bytes,
            "item_id": item.item_id,
            "collection": item.collection,
            "version": "unknown",
            "prefer": prefer,
            "newly_kept": newly,
            "versions": item.pdfs,
            "md_path": item.md_path,
            "metadata": _summary(item),
            "cached": True,
        }
    )
