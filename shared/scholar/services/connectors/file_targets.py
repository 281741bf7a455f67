"""library_sync's file targets: a .bib file per collection and an Obsidian vault folder per collection.

On one machine with ``SCHOLAR_BIBTEX_DIR`` / ``SCHOLAR_OBSIDIAN_VAULT`` set, the file (folder) there is kept in
step. Otherwise (hosted, where the server has no access to the user's disk) the same file, or the vault folder as a
zip, is stored as an export of the caller and answered as a download link valid for 15 minutes. File work is
blocking, so it runs off the event loop.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.services.connectors.base import PullJob, PushJob, Registered
from scholar.services.connectors.bibtex_file import bib_text, papers_from_bib, write_atomically
from scholar.services.connectors.obsidian import write_vault
from scholar.services.connectors.outcome import ItemOutcome, SyncReport
from scholar.services.connectors.paths import inside, segment
from scholar.services.connectors.zotero_map import identity
from scholar.services.library.keys import new_export_key
from scholar.store.blobs import BlobStore
from scholar.store.library.models import LibraryItem, item_id_for
from scholar.store.library.table import LibraryStore, now_iso

__all__ = ["BibtexFile", "ObsidianVault", "pull_bibtex", "push_bibtex", "push_obsidian"]

LINK_TTL_S = 900


def _report(target: str, direction: str, collection: str, dry_run: bool) -> SyncReport:
    return SyncReport(target=target, direction=direction, library="files", collection=collection,
                      dry_run=dry_run)


async def _link(principal: str, data: bytes, ext: str, content_type: str) -> str:
    blobs = BlobStore()
    key = new_export_key(principal, ext)
    await blobs.aput(key, data, content_type)
    return await off_loop(blobs.presign, key, LINK_TTL_S)


async def push_bibtex(principal: str, items: list[LibraryItem], collection: str, *, dry_run: bool) -> SyncReport:
    """Keep ``<SCHOLAR_BIBTEX_DIR>/<collection>.bib`` in step with the collection, or answer a download link."""
    report = _report("bibtex", "push", collection, dry_run)
    folder = get_settings().bibtex_dir
    path = inside(Path(folder), f"{segment(collection)}.bib") if folder else None
    existing = await off_loop(path.read_bytes) if path and path.exists() else None  # decoded by bib_read
    text, new = bib_text(items, existing)
    report.items.created, report.items.unchanged = new, len(items) - new
    if dry_run:
        return report
    if path is None:
        report.location = await _link(principal, text.encode(), "bib", "application/x-bibtex")
    else:
        changed = await off_loop(write_atomically, path, text)
        report.location = str(path)
        if changed and not new:
            report.items.updated, report.items.unchanged = report.items.unchanged, 0
    return report


async def pull_bibtex(principal: str, collection: str, *, dry_run: bool) -> SyncReport:
    """Read ``<SCHOLAR_BIBTEX_DIR>/<collection>.bib`` into the collection (one item per paper, as library_add).

    Raises:
        NotFoundError: no such file, or no folder configured.
    """
    report = _report("bibtex", "pull", collection, dry_run)
    folder = get_settings().bibtex_dir
    path = inside(Path(folder), f"{segment(collection)}.bib") if folder else None
    if path is None or not path.exists():
        raise NotFoundError(f"no .bib file to read for {collection!r}", reason="bib_file_not_found",
                            hint="Set SCHOLAR_BIBTEX_DIR to the folder holding <collection>.bib.")
    papers = papers_from_bib(await off_loop(path.read_bytes), where=path.name)  # any encoding bib_read takes
    library = LibraryStore(principal)
    ids = {item_id_for(identity(p, f"bibtex:{collection}/{p.title}")): p for p in papers}
    existing = await library.aget_many(list(ids))
    now = now_iso()
    items = []
    for item_id, paper in ids.items():
        if item_id in existing:
            report.count(ItemOutcome(item_id=item_id, title=paper.title, status="unchanged"))
            continue
        items.append(LibraryItem(item_id=item_id, collection=collection, paper=paper.model_dump(mode="json"),
                                 added_at=now, updated_at=now))
        report.count(ItemOutcome(item_id=item_id, title=paper.title, status="created"))
    if items and not dry_run:
        await off_loop(library.put_many, items)
    report.location = str(path)
    return report


def _zip_vault(items: list[LibraryItem]) -> bytes:
    with tempfile.TemporaryDirectory() as temp:
        write_vault(items, Path(temp))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for note in sorted(Path(temp).glob("*.md")):
                archive.write(note, note.name)
        return buffer.getvalue()


async def push_obsidian(principal: str, items: list[LibraryItem], collection: str, *, dry_run: bool) -> SyncReport:
    """Write the collection into ``<SCHOLAR_OBSIDIAN_VAULT>/<collection>/``, or answer a zip's download link."""
    report = _report("obsidian", "push", collection, dry_run)
    vault = get_settings().obsidian_vault
    if vault is None:
        report.items.created = len(items)
        if not dry_run:
            report.location = await _link(principal, await off_loop(_zip_vault, items), "zip", "application/zip")
        return report
    folder = inside(Path(vault), segment(collection))
    written = await off_loop(partial(write_vault, items, folder, dry_run=dry_run))
    report.items.created, report.items.updated = len(written.created), len(written.updated)
    report.items.unchanged = len(written.unchanged)
    report.location = str(folder)
    return report


class _Files(Registered):
    """A file target: no key, never long (the file is written in one go)."""

    def long_push(self, items: Sequence[LibraryItem]) -> bool:
        return False

    async def credentials(self, principal: str) -> None:
        return None

    @staticmethod
    def _items(job: PushJob) -> list[LibraryItem]:
        if not job.items:
            raise NotFoundError(f"your collection {job.collection!r} holds no items", reason="collection_not_found")
        return list(job.items)


class BibtexFile(_Files):
    """``bibtex``: ``<SCHOLAR_BIBTEX_DIR>/<collection>.bib`` kept in step, and read back."""

    async def push(self, credentials: None, job: PushJob) -> SyncReport:
        return await push_bibtex(job.principal, self._items(job), job.collection, dry_run=job.dry_run)

    async def pull(self, credentials: None, job: PullJob) -> SyncReport:
        return await pull_bibtex(job.principal, job.collection or "", dry_run=job.dry_run)


class ObsidianVault(_Files):
    """``obsidian``: one literature note per item in ``<SCHOLAR_OBSIDIAN_VAULT>/<collection>/`` (push only)."""

    async def push(self, credentials: None, job: PushJob) -> SyncReport:
        return await push_obsidian(job.principal, self._items(job), job.collection, dry_run=job.dry_run)

    async def pull(self, credentials: None, job: PullJob) -> SyncReport:
        raise InvalidArgumentError(self.abilities.refusal, field="direction")  # library_sync refuses it first
