"""download_paper's last step: the best PDF found (``scholar.services.fulltext.keep_step``) kept in the caller's
library.

Called by the pipeline's finish step (``kept_result``) and by download_paper itself before it queues anything
(``kept_answer``: a paper whose preferred version is already stored is kept at once, without a task).
"""

from __future__ import annotations

from typing import Any

from scholar.core import aio
from scholar.core.config import get_settings
from scholar.core.errors import InternalError
from scholar.core.records import FailedSource
from scholar.services.fulltext import artifacts
from scholar.services.fulltext.answer_builder import converter_for, pdf_fields
from scholar.services.fulltext.keep_result import DownloadPaperResult
from scholar.services.fulltext.keep_step import Find, is_preferred, recall
from scholar.services.fulltext.models import Job, PaperSummary, StoredPdf
from scholar.services.fulltext.pdf_results import fit_outcome
from scholar.services.library.keep import keep_pdf
from scholar.store.library.models import LibraryItem, PdfVersion, item_id_for
from scholar.store.library.table import LibraryStore, now_iso


async def _keep(job: Job, principal: str, find: Find, *, failed_sources: list[FailedSource], cached: bool,
                md_path: str | None = None, md_skip_reason: str | None = None) -> DownloadPaperResult:
    if not principal:
        raise InternalError("the download_paper task carries no caller; the PDF was stored but not kept")
    if find.pdf is None or find.version is None or job.keep is None:
        raise InternalError("download_paper finished without a kept PDF")
    pdf = find.pdf
    version = PdfVersion(pdf_path=pdf.pdf_path, sha256=pdf.sha256, size_bytes=pdf.size_bytes, version=find.version,
                         pdf_source=pdf.pdf_source, source_url=pdf.source_url, kept_at=now_iso())
    # s2_key is a form scholar.core.ids parses again (DOI:…, ARXIV:…, PMID:…, CorpusId:…, a bare S2 id).
    item, newly_kept = await keep_pdf(principal, identifier=job.s2_key or job.identifier or "", pdf=version,
                                      collection=job.keep.collection, md_path=md_path)
    return await _answer(job, item, find, newly_kept=newly_kept, failed_sources=failed_sources, cached=cached,
                         md_skip_reason=md_skip_reason)


async def _answer(job: Job, item: LibraryItem, find: Find, *, newly_kept: bool, failed_sources: list[FailedSource],
                  cached: bool, md_skip_reason: str | None = None) -> DownloadPaperResult:
    fields = await aio.off_loop(pdf_fields, find.pdf)  # a presigned URL (botocore)
    return fit_outcome(DownloadPaperResult.model_validate({
        **fields, "item_id": item.item_id, "collection": item.collection, "version": find.version,
        "prefer": job.keep.prefer if job.keep else "published", "newly_kept": newly_kept,
        "also_found": find.also_found, "versions": item.pdfs, "metadata": find.metadata, "attempts": find.attempts,
        "failed_sources": failed_sources, "cached": cached, "md_path": item.md_path, "md_skip_reason": md_skip_reason,
    }))


def _held(job: Job, principal: str) -> tuple[LibraryItem, Find] | None:
    """The caller's item for the paper, when it holds a stored PDF of the preferred kind (the newest such one).

    The item is looked up by the identifier's own identity, the library's item id when the caller names the paper
    as the library does (its DOI; an arXiv or S2 id for a paper without one); other spellings go on to the cache.
    """
    if job.keep is None or not job.identifier:
        return None
    item = LibraryStore(principal).get(item_id_for(job.identifier))
    preferred = [v for v in (item.pdfs if item else []) if is_preferred(v.version, job.keep.prefer)]
    if item is None or not preferred or not artifacts.exists(preferred[-1].pdf_path):
        return None
    kept = preferred[-1]
    pdf = StoredPdf(pdf_path=kept.pdf_path, sha256=kept.sha256, size_bytes=kept.size_bytes,
                    pdf_source=kept.pdf_source, source_url=kept.source_url)
    return item, Find(pdf=pdf, version=kept.version)


async def kept_answer(job: Job, principal: str) -> DownloadPaperResult | None:
    """The answer at once when the preferred version of the paper is already stored (kept now if it was not).

    Returns:
        None when the pipeline must run (nothing stored yet, or only a lesser version).

    Raises:
        ScholarError: the caller's library refused the write (limits, a failing store).
    """
    held = await aio.off_loop(_held, job, principal)
    if held is not None:
        return await _answer(job, *held, newly_kept=False, failed_sources=[], cached=True)
    find = await aio.off_loop(recall, job)
    if find is None or find.pdf is None or job.keep is None or not is_preferred(find.version or "unknown",
                                                                                   job.keep.prefer):
        return None
    # The Markdown the pipeline's convert step made of this PDF for another caller is kept with it, as a queued
    # download_paper keeps the Markdown it converts: the item's Markdown resource does not depend on who came first.
    converter = converter_for(job.use_vlm, get_settings())
    md_path = await aio.off_loop(artifacts.stored_md, find.pdf.sha256, converter)
    return await _keep(job, principal, find, failed_sources=[], cached=True, md_path=md_path)


def kept_result(job: Job, principal: str, *, metadata: PaperSummary | None, downloaded: dict[str, Any],
                failed_sources: list[FailedSource], md_path: str | None = None,
                md_skip_reason: str | None = None) -> DownloadPaperResult:
    """The finish step's answer for download_paper: the downloaded PDF recorded in the caller's library.

    Raises:
        ScholarError: the library refused the write; the task fails with it (the PDF stays stored).
    """
    find = Find.model_validate({**downloaded, "metadata": metadata})
    return aio.run(_keep(job, principal, find, failed_sources=failed_sources, cached=False, md_path=md_path,
                         md_skip_reason=md_skip_reason))
