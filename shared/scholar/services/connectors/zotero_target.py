"""The Zotero targets of library_sync: ``zotero`` (the web API, keyed) and ``zotero_local`` (the desktop, read-only).

Both speak the same protocol (scholar.sources.zotero) through the same push and pull; they differ only in where
the library and key come from (scholar.services.connectors.credentials). A push of more than one write batch, or
one that sends PDFs (three requests each), is long: library_sync queues it as a task.
"""

from __future__ import annotations

from collections.abc import Sequence

from scholar.core.config import get_settings
from scholar.services.connectors.base import PullJob, PushJob, Registered
from scholar.services.connectors.credentials import ZOTERO, credentials
from scholar.services.connectors.outcome import SyncReport
from scholar.services.connectors.zotero_pull import pull
from scholar.services.connectors.zotero_push import push
from scholar.sources.zotero import BATCH, LOCAL, WEB, ZoteroClient, ZoteroLibrary
from scholar.store.blobs import BlobStore
from scholar.store.connections import ConnectionStore
from scholar.store.library.models import LibraryItem
from scholar.store.library.table import LibraryStore

__all__ = ["DesktopZotero", "WebZotero"]

# A pull without a collection brings the whole Zotero library into this collection of ours.
PULLED_INTO = "zotero"


async def _read_pdf(reference: str) -> bytes | None:
    return await BlobStore().aget(reference)


class _Zotero(Registered):
    def long_push(self, items: Sequence[LibraryItem]) -> bool:
        return len(items) > BATCH or any(i.pdfs for i in items)

    async def push(self, credentials: ZoteroLibrary, job: PushJob) -> SyncReport:
        return await push(ZoteroClient(credentials), ConnectionStore(job.principal), list(job.items), job.collection,
                          dry_run=job.dry_run, read_file=_read_pdf, progress=job.progress)

    async def pull(self, credentials: ZoteroLibrary, job: PullJob) -> SyncReport:
        return await pull(ZoteroClient(credentials), ConnectionStore(job.principal), LibraryStore(job.principal),
                          job.collection, into=job.collection or PULLED_INTO, dry_run=job.dry_run)


class WebZotero(_Zotero):
    """``zotero``: a library of the web API, with the caller's key."""

    async def credentials(self, principal: str) -> ZoteroLibrary:
        library, key = await credentials(principal, ZOTERO)
        return ZoteroLibrary(WEB, library, key)


class DesktopZotero(_Zotero):
    """``zotero_local``: Zotero desktop on this machine (its local API takes no key and only reads)."""

    async def credentials(self, principal: str) -> ZoteroLibrary:
        return ZoteroLibrary(LOCAL, get_settings().zotero_library or "users/0")
