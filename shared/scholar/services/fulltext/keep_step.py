"""download_paper in the PDF pipeline: every location tried at once, the best verified version kept.

Every candidate is downloaded concurrently (at most ``CONCURRENCY`` at a time, the most preferred versions
first) and checked as any pipeline download is (a ``%PDF-`` body, the whole announced length, pdfium opens it
with pages). Of the verified PDFs the most preferred version is stored, content-addressed, so a newer version
lands beside an older one and nothing is overwritten; the others are reported as also found. Only one verified
file waits on disk at a time (a worse one is deleted at once), and once a PDF of the preferred kind is verified,
candidates not yet started are left untried. At finish the kept PDF is recorded in the caller's library
(``scholar.services.library.kept``, above this floor).

A paper the caller's library already holds with a PDF of the preferred kind answers at once. So does one whose
preferred version another download stored (a cache record per paper and preference remembers the best find): it
is kept in the caller's library then, without a task. A lesser version (a preprint when the publication is
preferred) sends the next call to the pipeline again: the publication may have appeared since.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from scholar.core import aio
from scholar.core.errors import ScholarError, UpstreamError
from scholar.services.fulltext import artifacts
from scholar.services.fulltext.keep_result import FoundPdf
from scholar.services.fulltext.models import Attempt, Candidate, Job, PaperSummary, Prefer, StoredPdf
from scholar.services.fulltext.verify import check_readable, rejected
from scholar.store.cache import Cache
from scholar.store.library.models import PdfVersionKind
from scholar.web.download import DownloadedPdf
from scholar.web.fetch import fetch_candidate

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
