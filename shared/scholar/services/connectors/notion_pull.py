"""Pull a Notion database (or the pages of one collection) into ours: each page's fields and text, compared by content.

Requests: 1 read (the schema), ⌈pages / 100⌉ reads (the query: properties only), and, for each page whose content
may have changed, ⌈blocks / 100⌉ reads of its blocks. A page's content may have changed when its
``last_edited_time`` is not clearly before our last sync of it: Notion rounds that time down to the minute, so a
page edited within two minutes of the sync (the rounding and clock skew) is read again to be sure.

A page is found as one of our items by its Scholar ID, else by the link a sync kept, else it is kept under its DOI,
arXiv id or page id (zotero_map.identity), so pulling twice is one item. The non-obvious constraint: a conflict is
never overwritten. When our item changed since the last sync too, and differently, the page's change is reported
as a conflict and our item keeps its own; the link keeps the last agreement, so the conflict stands until one side
gives way. A page without a link (made in Notion, or its link lost) has no last sync: its content is taken.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from scholar.core.aio import off_loop
from scholar.core.errors import NotFoundError
from scholar.core.ids import written_ids
from scholar.core.records import Paper
from scholar.services.connectors.notion_map import (
    COLLECTION,
    Fields,
    canonical_notes,
    fields_of_item,
    fields_of_page,
    notes_of_blocks,
    paper_from_fields,
)
from scholar.services.connectors.notion_push import CONFLICT, edited_ms, notes_digest
from scholar.services.connectors.outcome import ItemOutcome, SyncReport
from scholar.services.connectors.zotero_map import clean_tags, identity
from scholar.sources.notion import NOTION, NotionClient
from scholar.store.connections import ConnectionStore, Link
from scholar.store.library.models import LibraryItem, item_id_for
from scholar.store.library.table import LibraryStore, now_iso

__all__ = ["pull"]

# How recent an edit (by Notion's minute-rounded clock) must be, against our last sync, to read the page again.
UNSURE_MS = 120_000


@dataclass
class _Seen:
    """One page as the query answered it, with what we make of it."""

    page: dict[str, Any]
    theirs: Fields
    item_id: str
    link: Link | None
    notes: str | None  # the page's text, when it was read


def _now_ms() -> int:
    return int(time.time() * 1000)


def _item_id(page: dict[str, Any], theirs: Fields, link: Link | None) -> str:
    if theirs.scholar_id:
        return theirs.scholar_id
    if link is not None:
        return link.item_id
    return item_id_for(identity(paper_from_fields(theirs), f"notion:{page['id']}"))


def _may_have_new_text(page: dict[str, Any], link: Link | None) -> bool:
    return link is None or link.note_digest is None or link.synced_at is None or \
        edited_ms(page) > link.synced_at - UNSURE_MS


def _conflict(one: _Seen) -> ItemOutcome:
    return ItemOutcome(item_id=one.item_id, key=one.page["id"], title=one.theirs.title, status="conflict",
                       message=CONFLICT)


async def _seen(client: NotionClient, pages: list[dict[str, Any]], links: dict[str, Link]) -> list[_Seen]:
    by_page = {link.key: link for link in links.values()}
    seen = []
    for page in pages:
        theirs = fields_of_page(page)
        link = by_page.get(page["id"])
        notes = notes_of_blocks(await client.blocks(page["id"])) if _may_have_new_text(page, link) else None
        seen.append(_Seen(page, theirs, _item_id(page, theirs, link), link, notes))
    return seen


def _merge(one: _Seen, old: LibraryItem | None, into: str,
           report: SyncReport) -> tuple[LibraryItem | None, Link | None]:
    """Our item with the page's changes (None: nothing moved on Notion's side), and the new agreement."""
    link, theirs, page_id = one.link, one.theirs, one.page["id"]
    fields_moved = link is None or theirs.digest() != link.seen_digest
    notes_moved = one.notes is not None and (link is None or notes_digest(one.notes) != link.note_digest)
    if link is not None and not fields_moved and not notes_moved:
        report.count(ItemOutcome(item_id=one.item_id, key=page_id, title=theirs.title, status="unchanged"))
        # Its text was read and is what we agreed on: from now on only a later edit makes it worth reading again.
        return None, link.model_copy(update={"synced_at": _now_ms()}) if one.notes is not None else None
    ours = fields_of_item(old) if old is not None else None
    fields_clash = fields_moved and link is not None and ours is not None and ours.digest() != link.digest \
        and ours != theirs
    notes_clash = notes_moved and link is not None and link.note_digest is not None and old is not None \
        and notes_digest(old.notes or "") != link.note_digest and canonical_notes(old.notes) != one.notes
    now = now_iso()
    fresh = paper_from_fields(theirs)
    item = old or LibraryItem(item_id=one.item_id, collection=into, ids=written_ids(fresh.externalIds or {}),
                              paper=fresh.model_dump(mode="json"), added_at=now, updated_at=now)
    update: dict[str, Any] = {}
    if fields_moved and not fields_clash:
        base = Paper.model_validate(old.paper) if old else None
        update |= {"paper": paper_from_fields(theirs, base).model_dump(mode="json"), "tags": clean_tags(theirs.tags)}
    if notes_moved and not notes_clash:
        update["notes"] = one.notes or None
    merged = item.model_copy(update=update)
    if fields_clash:
        report.count(_conflict(one))
    else:
        status = "unchanged" if not update else "updated" if old is not None else "created"
        report.count(ItemOutcome(item_id=one.item_id, key=page_id, title=theirs.title, status=status))
    if notes_clash:
        report.count(_conflict(one), notes=True)
    agreed = Link(
        item_id=one.item_id, key=page_id, version=edited_ms(one.page),
        digest=link.digest if fields_clash and link else fields_of_item(merged).digest(),
        seen_digest=link.seen_digest if fields_clash and link else theirs.digest(),
        note_digest=link.note_digest if notes_clash and link else notes_digest(merged.notes or ""),
        synced_at=link.synced_at if (fields_clash or notes_clash) and link else _now_ms())
    return merged, agreed


async def pull(client: NotionClient, store: ConnectionStore, library: LibraryStore, collection: str | None, *,
               into: str, dry_run: bool = False) -> SyncReport:
    """Bring the database's pages of ``collection`` (None: every page) into our collection ``into``.

    Raises:
        NotFoundError: the database has no pages of that collection (reason ``notion_collection_not_found``), or
        is not shared with the integration. ForbiddenError / RateLimitedError / UpstreamError: as the client raises.
    """
    database = client.target.database_id
    report = SyncReport(target=NOTION, direction="pull", library=database, collection=collection or into,
                        dry_run=dry_run)
    query_filter = None
    if collection:
        schema = ((await client.database()).get("properties") or {}).get(COLLECTION) or {}
        if collection not in {o.get("name") for o in (schema.get("select") or {}).get("options") or []}:
            raise NotFoundError(f"the Notion database has no pages of collection {collection!r}", source=NOTION,
                                reason="notion_collection_not_found",
                                hint="Push the collection first, or pull without a collection (the whole database).")
        query_filter = {"property": COLLECTION, "select": {"equals": collection}}
    links = await store.alinks(NOTION, database)
    seen = await _seen(client, await client.query(query_filter), links)
    existing = await library.aget_many([one.item_id for one in seen])
    merged: list[LibraryItem] = []
    agreed: list[Link] = []
    for one in seen:
        item, link = _merge(one, existing.get(one.item_id), into, report)
        merged += [item] if item is not None else []
        agreed += [link] if link is not None else []
    report.requests = client.requests
    if not dry_run:
        if merged:
            await off_loop(library.put_many, merged)
        await store.aput_links(NOTION, database, agreed)
    return report
