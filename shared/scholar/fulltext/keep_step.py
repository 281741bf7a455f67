"""download_paper in the PDF pipeline: every location tried at once, the best verified version kept.

Every candidate is downloaded concurrently (at most ``CONCURRENCY`` at a time, the most preferred versions
first) and checked as any pipeline download is (a ``%PDF-`` body, the whole announced length, pdfium opens it
with pages). Of the verified PDFs the most preferred version is stored, content-addressed, so a newer version
lands beside an older one and nothing is overwritten; the others are reported as also found. Only one verified
file waits on disk at a time (a worse one is deleted at once), and once a PDF of the preferred kind is verified,
candidates not yet started are left untried. At finish the kept PDF is recorded in the caller's library
(``scholar.library.keep.keep_pdf``).

A paper the caller's library already holds with a PDF of the preferred kind answers at once. So does one whose
preferred version another download stored (a cache record per paper and preference remembers the best find): it
is kept in the caller's library then, without a task. A lesser version (a preprint when the publication is
preferred) sends the next call to the pipeline again: the publication may have appeared since.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from scholar import aio
from scholar.errors import InternalError, ScholarError, UpstreamError
from scholar.fulltext import artifacts
from scholar.fulltext.answer_builder import pdf_fields
from scholar.fulltext.download import DownloadedPdf
from scholar.fulltext.fetch import fetch_candidate
from scholar.fulltext.keep_result import DownloadPaperResult, FoundPdf
from scholar.fulltext.models import Attempt, Candidate, Job, PaperSummary, Prefer, StoredPdf
from scholar.fulltext.verify import check_readable, rejected
from scholar.library.keep import keep_pdf
from scholar.records import FailedSource
from scholar.store.cache import Cache
from scholar.store.library import LibraryStore, now_iso
from scholar.store.library_models import LibraryItem, PdfVersion, PdfVersionKind, item_id_for

CONCURRENCY = 4
NOT_NEEDED = "not_needed"  # the reason of a candidate left untried: the preferred version was already verified
# Lower is better. A submitted manuscript is a preprint by another name; "unknown" (the source gave no label)
# may be anything, so it sits between the accepted manuscript and a preprint.
RANKS: dict[Prefer, dict[PdfVersionKind, int]] = {
    "published": {"published": 0, "accepted": 1, "unknown": 2, "submitted": 3, "preprint": 3},
    "preprint": {"preprint": 0, "submitted": 0, "accepted": 1, "unknown": 2, "published": 3},
}
_NAMESPACE = "result"


def version_of(candidate: Candidate) -> PdfVersionKind:
    return candidate.version or "unknown"


def is_preferred(version: PdfVersionKind, prefer: Prefer) -> bool:
    """Whether ``version`` is the kind asked for (nothing better can be found)."""
    return RANKS[prefer][version] == 0


class Find(BaseModel):
    """The best PDF found for a paper: stored, its version, and the other verified PDFs."""

    pdf: StoredPdf | None = None
    version: PdfVersionKind | None = None
    also_found: list[FoundPdf] = Field(default_factory=list)
    attempts: list[Attempt] = Field(default_factory=list)
    metadata: PaperSummary | None = None

    def step_fields(self) -> dict[str, Any]:
        """What the download step adds to its output for finish (small: no artifacts, only their keys)."""
        return {"version": self.version, "also_found": [f.model_dump() for f in self.also_found]}


class _Verified:
    """The best verified PDF so far (its file kept for upload) and the others found (their files deleted)."""

    def __init__(self, prefer: Prefer) -> None:
        self.prefer = prefer
        self.best: tuple[int, Candidate, DownloadedPdf] | None = None
        self.others: list[tuple[int, int, FoundPdf]] = []

    def _rank(self, index: int, candidate: Candidate) -> tuple[int, int]:
        return RANKS[self.prefer][version_of(candidate)], index

    @property
    def settled(self) -> bool:
        return self.best is not None and is_preferred(version_of(self.best[1]), self.prefer)

    def add(self, index: int, candidate: Candidate, pdf: DownloadedPdf) -> None:
        # Runs on the loop thread with no await inside: the comparison and the swap cannot interleave.
        if self.best is None or self._rank(index, candidate) < self._rank(*self.best[:2]):
            if self.best is not None:
                self._drop(*self.best)
            self.best = (index, candidate, pdf)
        else:
            self._drop(index, candidate, pdf)

    def _drop(self, index: int, candidate: Candidate, pdf: DownloadedPdf) -> None:
        pdf.path.unlink(missing_ok=True)
        found = FoundPdf(version=version_of(candidate), pdf_source=candidate.source, source_url=candidate.url,
                         sha256=pdf.sha256, size_bytes=pdf.size)
        self.others.append((*self._rank(index, candidate), found))


async def _try(index: int, candidate: Candidate, gate: asyncio.Semaphore, pool: _Verified, dest: str) -> Attempt:
    async with gate:
        if pool.settled:
            return Attempt(source=candidate.source, url=candidate.url, ok=False, reason=NOT_NEEDED,
                           message="not tried: a PDF of the preferred version was already verified")
        try:
            pdf = await fetch_candidate(candidate.url, trusted_routing=True, dest_dir=dest)
        except ScholarError as err:
            return rejected(candidate, err)
        try:
            await aio.off_loop(check_readable, pdf.path)  # pdfium blocks
        except UpstreamError as err:
            pdf.path.unlink(missing_ok=True)
            return rejected(candidate, err)
        pool.add(index, candidate, pdf)  # before the gate opens: the next candidate sees whether it is needed
    return Attempt(source=candidate.source, url=candidate.url, ok=True)


async def download_best(candidates: list[Candidate], prefer: Prefer, dest: str) -> Find:
    """Try every candidate at once; store the most preferred verified PDF.

    Args:
        candidates: the resolve step's candidates (any order; the most preferred versions start first).
        prefer: the version asked for first.
        dest: a temporary directory for the downloads.

    Returns:
        The stored PDF (None when no candidate gave one), its version, the others found, and one attempt per
        candidate in the order they were started.
    """
    order = sorted(candidates, key=lambda c: RANKS[prefer][version_of(c)])
    gate = asyncio.Semaphore(CONCURRENCY)
    pool = _Verified(prefer)
    attempts = await asyncio.gather(*(_try(i, c, gate, pool, dest) for i, c in enumerate(order)))
    if pool.best is None:
        return Find(attempts=list(attempts))
    _, candidate, pdf = pool.best
    try:
        key = await aio.off_loop(artifacts.store_pdf, pdf.path, pdf.sha256)  # an S3 upload of up to 50 MB
    finally:
        pdf.path.unlink(missing_ok=True)
    stored = StoredPdf(pdf_path=key, sha256=pdf.sha256, size_bytes=pdf.size, pdf_source=candidate.source,
                       source_url=candidate.url)
    others = [found for *_, found in sorted(pool.others, key=lambda o: (o[0], o[1]))]
    return Find(pdf=stored, version=version_of(candidate), also_found=others, attempts=list(attempts))


# -- the cache record of the best find ---------------------------------------------------------------------------


def _cache_key(job: Job) -> str:
    prefer = job.keep.prefer if job.keep else "published"
    return f"pdf:keep:{prefer}:{job.identifier}"


def remember(job: Job, metadata: dict[str, Any] | None, find: Find) -> None:
    """Remember the best find of a paper for this preference (only a stored PDF is remembered)."""
    if find.pdf is None:
        return
    record = find.model_copy(update={"attempts": [], "metadata": PaperSummary.model_validate(metadata or {})})
    Cache().put(_NAMESPACE, _cache_key(job), record.model_dump(mode="json"))


def recall(job: Job) -> Find | None:
    """The remembered best find, if its PDF is still stored."""
    value = Cache().get(_NAMESPACE, _cache_key(job))
    if not isinstance(value, dict):
        return None
    find = Find.model_validate(value)
    if find.pdf is None or find.version is None or not artifacts.exists(find.pdf.pdf_path):
        return None
    return find


# -- recording the PDF in the caller's library -------------------------------------------------------------------


async def _keep(job: Job, principal: str, find: Find, *, failed_sources: list[FailedSource], cached: bool,
                md_path: str | None = None, md_skip_reason: str | None = None) -> DownloadPaperResult:
    if not principal:
        raise InternalError("the download_paper task carries no caller; the PDF was stored but not kept")
    if find.pdf is None or find.version is None or job.keep is None:
        raise InternalError("download_paper finished without a kept PDF")
    pdf = find.pdf
    version = PdfVersion(pdf_path=pdf.pdf_path, sha256=pdf.sha256, size_bytes=pdf.size_bytes, version=find.version,
                         pdf_source=pdf.pdf_source, source_url=pdf.source_url, kept_at=now_iso())
    # s2_key is a form scholar.ids parses again (DOI:…, ARXIV:…, PMID:…, CorpusId:…, a bare S2 id).
    item, newly_kept = await keep_pdf(principal, identifier=job.s2_key or job.identifier or "", pdf=version,
                                      collection=job.keep.collection, md_path=md_path)
    return await _answer(job, item, find, newly_kept=newly_kept, failed_sources=failed_sources, cached=cached,
                         md_skip_reason=md_skip_reason)


async def _answer(job: Job, item: LibraryItem, find: Find, *, newly_kept: bool, failed_sources: list[FailedSource],
                  cached: bool, md_skip_reason: str | None = None) -> DownloadPaperResult:
    fields = await aio.off_loop(pdf_fields, find.pdf)  # a presigned URL (botocore)
    return DownloadPaperResult.model_validate({
        **fields, "item_id": item.item_id, "collection": item.collection, "version": find.version,
        "prefer": job.keep.prefer if job.keep else "published", "newly_kept": newly_kept,
        "also_found": find.also_found, "versions": item.pdfs, "metadata": find.metadata, "attempts": find.attempts,
        "failed_sources": failed_sources, "cached": cached, "md_path": item.md_path, "md_skip_reason": md_skip_reason,
    })


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
    if find is None or job.keep is None or not is_preferred(find.version or "unknown", job.keep.prefer):
        return None
    return await _keep(job, principal, find, failed_sources=[], cached=True)


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
