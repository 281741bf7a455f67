"""Keeping papers in a caller's library: add one by any identifier, record a PDF kept for it.

The item id comes from the paper's canonical identity (its DOI when it has one, else arXiv id, else S2 id),
taken from the *resolved* record, so a paper added by its arXiv id and later by its DOI is one item. The
record is resolved in full (every author, the abstract, every id) before anything is stored: a failing
source fails the call, and nothing half-known is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

from scholar.core.aio import in_this_context, off_loop
from scholar.core.errors import NotFoundError
from scholar.core.ids import InvalidIdError, PaperId, parse_paper_id, written_ids
from scholar.core.records import Paper
from scholar.services.paper_lookup import identify, resolve
from scholar.store.blobs import BlobStore
from scholar.store.library.models import DEFAULT_COLLECTION, LibraryItem, PdfVersion, is_item_id, item_id_for
from scholar.store.library.table import ItemExistsError, LibraryStore, now_iso

__all__ = ["add_paper", "identity_of", "keep_pdf", "keep_pdf_on", "resolve_item", "retain_items", "retain_keys"]

def identity_of(paper: Paper, asked: PaperId) -> str:
    """The canonical identity of a resolved paper (``kind:value`` of scholar.core.ids): DOI, arXiv id, S2 id, else
    asked."""
    ext = paper.externalIds or {}
    for written in (ext.get("DOI"), f"arXiv:{ext['ArXiv']}" if ext.get("ArXiv") else None):
        if written:
            try:
                return parse_paper_id(written).cache_key()  # an arXiv DataCite DOI becomes the arXiv id
            except InvalidIdError:
                continue  # a garbled upstream id: fall through to the next one
    if paper.paperId:
        return f"s2:{paper.paperId.lower()}"
    return asked.cache_key()


def _ids_of(paper: Paper) -> list[str]:
    return list(dict.fromkeys([*([paper.paperId] if paper.paperId else []), *written_ids(paper.externalIds or {})]))


async def resolve_item(identifier: str) -> tuple[str, Paper]:
    """The item id and full record of the paper ``identifier`` names.

    Raises:
        InvalidArgumentError: not a paper identifier (field ``identifier``).
        NotFoundError: no source holds it.
        RateLimitedError / UpstreamError: a source failed (nothing is stored then).
    """
    asked = await identify(identifier, tool="library_add")
    paper = await resolve(asked)
    return item_id_for(identity_of(paper, asked)), paper


def _new_item(item_id: str, paper: Paper, *, collection: str, tags: Sequence[str] = (), notes: str | None = None,
              pdfs: Sequence[PdfVersion] = ()) -> LibraryItem:
    now = now_iso()
    return LibraryItem(item_id=item_id, collection=collection, ids=_ids_of(paper), paper=paper.model_dump(mode="json"),
                       tags=list(dict.fromkeys(tags)), notes=notes, pdfs=list(pdfs), added_at=now, updated_at=now)


async def add_paper(principal: str, identifier: str, *, collection: str = DEFAULT_COLLECTION,
                    tags: Sequence[str] = (), notes: str | None = None) -> tuple[LibraryItem, bool]:
    """Add the paper ``identifier`` names to the caller's library; adding it again is the same item.

    An item id of the caller's library (``lib_…``) names its item. When the paper is stored already, the given
    tags are added to its tags and given notes replace its notes; its collection stays (library_update moves).

    Returns:
        (the stored item, whether it was created now).

    Raises:
        InvalidArgumentError: not a paper identifier.
        NotFoundError: no source holds the paper (or no such item id in the caller's library).
        RateLimitedError / UpstreamError: a source failed.
        TooLargeError: the library is at its item or byte limit.
    """
    store = LibraryStore(principal)
    if is_item_id(identifier):
        item = await store.aget(identifier)
        if item is None:
            raise NotFoundError(f"your library has no item {identifier!r}", reason="library_item_not_found",
                                hint="Add the paper by its DOI, arXiv id or S2 id instead.")
        return await _merge(store, item, tags, notes), False
    item_id, paper = await resolve_item(identifier)
    existing = await store.aget(item_id)
    if existing is None:
        try:
            stored = await store.aput(_new_item(item_id, paper, collection=collection, tags=tags, notes=notes),
                                    create_only=True)
            return stored, True
        except ItemExistsError as won:  # a concurrent add of the same paper came first: one item
            existing = won.item
    return await _merge(store, existing, tags, notes), False


async def _merge(store: LibraryStore, item: LibraryItem, tags: Sequence[str], notes: str | None) -> LibraryItem:
    if set(tags) <= set(item.tags) and (notes is None or notes == item.notes):
        return item

    def change(current: LibraryItem) -> LibraryItem:
        return current.model_copy(update={"tags": list(dict.fromkeys([*current.tags, *tags])),
                                          "notes": notes if notes is not None else current.notes})

    return await store.aupdate(item.item_id, change)


async def keep_pdf(principal: str, *, identifier: str, pdf: PdfVersion, collection: str = DEFAULT_COLLECTION,
                   md_path: str | None = None) -> tuple[LibraryItem, bool]:
    """Record a kept PDF version on the caller's item for the paper (creating the item in ``collection``).

    Versions are kept side by side, oldest first; one with the same sha256 is never added twice. ``md_path``, the
    Markdown of this PDF when it was converted, becomes the item's (library_search indexes its words).

    Returns:
        (the stored item, whether this PDF is newly kept: False when its sha256 was kept already).

    Raises:
        as ``add_paper`` (the paper is resolved to create its item).

    The kept PDF and its Markdown leave the artifact cache's expiry (``BlobStore.retain``): a library keeps them.
    """
    item_id, paper = await resolve_item(identifier)
    return await keep_pdf_on(principal, item_id=item_id, paper=paper, pdf=pdf, collection=collection,
                             md_path=md_path)


async def keep_pdf_on(principal: str, *, item_id: str, paper: Paper, pdf: PdfVersion,
                      collection: str = DEFAULT_COLLECTION, md_path: str | None = None) -> tuple[LibraryItem, bool]:
    """``keep_pdf`` for a paper known already: its item id and record (a document a caller brought, by its PDF)."""
    kept = await _record_pdf(principal, item_id=item_id, paper=paper, pdf=pdf, collection=collection,
                             md_path=md_path)
    await off_loop(retain_keys, [pdf.pdf_path, md_path])
    return kept


def retain_keys(keys: Iterable[str | None]) -> int:
    """Take the given PDF / Markdown objects out of the artifact cache's expiry; how many still existed.

    Tagged concurrently (one PutObjectTagging each; boto3 clients are thread-safe): an import of a large snapshot
    of this deployment's library re-tags its PDFs in seconds, not minutes.
    """
    wanted = list(dict.fromkeys(k for k in keys if k))
    if not wanted:
        return 0
    blobs = BlobStore()
    with ThreadPoolExecutor(max_workers=min(16, len(wanted))) as pool:
        return sum(pool.map(in_this_context(blobs.retain), wanted))


def retain_items(items: Iterable[LibraryItem]) -> int:
    """``retain_keys`` for every PDF version and Markdown the items hold (a snapshot imported into a library)."""
    return retain_keys(key for item in items for key in (*(p.pdf_path for p in item.pdfs), item.md_path))


async def _record_pdf(principal: str, *, item_id: str, paper: Paper, pdf: PdfVersion, collection: str,
                      md_path: str | None) -> tuple[LibraryItem, bool]:
    store = LibraryStore(principal)
    existing = await store.aget(item_id)
    if existing is None:
        try:
            created = _new_item(item_id, paper, collection=collection, pdfs=[pdf])
            if md_path:
                created = created.model_copy(update={"md_path": md_path})
            return await store.aput(created, create_only=True), True
        except ItemExistsError as won:
            existing = won.item
    if any(kept.sha256 == pdf.sha256 for kept in existing.pdfs) and (md_path is None or existing.md_path == md_path):
        return existing, False
    added: list[bool] = []

    def change(current: LibraryItem) -> LibraryItem:
        added.clear()  # a retried change starts again from the re-read item
        new = not any(kept.sha256 == pdf.sha256 for kept in current.pdfs)
        added.append(new)
        update: dict[str, object] = {"pdfs": [*current.pdfs, pdf]} if new else {}
        if md_path and current.md_path != md_path:
            update["md_path"] = md_path
        return current.model_copy(update=update) if update else current

    stored = await store.aupdate(item_id, change)
    return stored, added[-1]
