"""The Notion target of library_sync: a database of papers, one page per item (scholar.services.connectors.notion_*).

Its place is the database id and its key the integration token (scholar.services.connectors.credentials: the
environment or the OS keyring on one machine, the caller's sealed connection hosted). Notion's pace is three
requests a second, so a push of more items than a direct call can write in time is queued as a task.
"""

from __future__ import annotations

from collections.abc import Sequence

from scholar.services.connectors import notion_pull, notion_push
from scholar.services.connectors.base import PullJob, PushJob, Registered
from scholar.services.connectors.credentials import NOTION, credentials
from scholar.services.connectors.outcome import SyncReport
from scholar.sources.notion import NotionClient, NotionDatabase
from scholar.store.connections import ConnectionStore
from scholar.store.library.models import LibraryItem
from scholar.store.library.table import LibraryStore

__all__ = ["NotionTarget"]

# A pull without a collection brings the whole database into this collection of ours.
PULLED_INTO = "notion"
# At three requests a second, about what a direct call (API Gateway's ~29 s) can create; more is queued.
DIRECT_ITEMS = 25


class NotionTarget(Registered):
    """``notion``: a database the caller's integration was given access to."""

    def long_push(self, items: Sequence[LibraryItem]) -> bool:
        return len(items) > DIRECT_ITEMS

    async def credentials(self, principal: str) -> NotionDatabase:
        database, token = await credentials(principal, NOTION)
        return NotionDatabase(database, token)

    async def push(self, credentials: NotionDatabase, job: PushJob) -> SyncReport:
        return await notion_push.push(NotionClient(credentials), ConnectionStore(job.principal), job.items,
                                      job.collection, dry_run=job.dry_run, progress=job.progress)

    async def pull(self, credentials: NotionDatabase, job: PullJob) -> SyncReport:
        return await notion_pull.pull(NotionClient(credentials), ConnectionStore(job.principal),
                                      LibraryStore(job.principal), job.collection,
                                      into=job.collection or PULLED_INTO, dry_run=job.dry_run)
