"""Push a collection to a Notion database: one page per item, found again by its Scholar ID; only what changed.

The steps and what each costs in requests (the figures in docs/connectors.md count them):

    1. the database's schema                       1 read (+ 1 write the first time: the properties it lacks)
    2. the database's pages                        ⌈pages / 100⌉ reads (a query answers properties only)
    3. a new item                                  1 write, its notes included (+1 per further 100 paragraphs)
    4. an item whose fields changed on our side    1 write
    5. an item whose notes changed on our side     ⌈blocks / 100⌉ reads, 1 delete per old paragraph, 1+ writes

The non-obvious constraint: never overwrite an edit made in Notion. Each link remembers what both sides held when
we last agreed: our fields' digest, the page's fields' digest as Notion reads them back, our notes' digest. A change
of ours is written only while the page still holds what we agreed on; when both sides changed, the item is a
conflict and neither side is touched (pull, then push). Notes are read from Notion before they are replaced, for
the same check. A page found by its Scholar ID without a link (another machine's push, a lost link) is adopted when
it already holds what we would write, else it is a conflict. An item we did not change is not written, even when
its page changed: that edit is the user's, and a pull brings it in.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeVar

from scholar.core.errors import UpstreamError
from scholar.services.connectors.base import Progress
from scholar.services.connectors.notion_map import (
    SCHEMA,
    Fields,
    blocks_of_notes,
    canonical_notes,
    fields_of_item,
    fields_of_page,
    is_text_block,
    notes_of_blocks,
    to_properties,
)
from scholar.services.connectors.outcome import ItemOutcome, SyncReport
from scholar.services.connectors.zotero_map import digest
from scholar.sources.notion import NOTION, NotionClient
from scholar.store.connections import ConnectionStore, Link
from scholar.store.library.models import LibraryItem

__all__ = ["CONFLICT", "edited_ms", "notes_digest", "push", "title_property"]

CONFLICT = ("changed in Notion and here since the last sync: neither side is overwritten; make one match the "
            "other, then sync again")
Status = Literal["created", "updated", "unchanged", "failed", "conflict"]
_PROGRESS_EVERY = 25
_T = TypeVar("_T")


def edited_ms(page: dict[str, Any]) -> int:
    """A page's ``last_edited_time`` (rounded down to the minute by Notion) in epoch milliseconds."""
    stamp = str(page.get("last_edited_time") or "1970-01-01T00:00:00Z").replace("Z", "+00:00")
    return int(datetime.fromisoformat(stamp).timestamp() * 1000)


def notes_digest(notes: str) -> str:
    return digest({"notes": canonical_notes(notes)})


async def title_property(client: NotionClient, *, add_missing: bool) -> str:
    """The name of the database's title property, after adding the properties of ours it lacks.

    Raises:
        UpstreamError: reason ``notion_property_type``: a property of ours exists with another type.
    """
    properties: dict[str, Any] = (await client.database()).get("properties") or {}
    title = next((name for name, p in properties.items() if p.get("type") == "title"), "Name")
    wrong = sorted(n for n, schema in SCHEMA.items() if n in properties and properties[n].get("type") not in schema)
    if wrong:
        raise UpstreamError(f"the Notion database has properties of other types than Scholar writes: {wrong}",
                            source=NOTION, retryable=False, reason="notion_property_type",
                            hint="Rename those properties in Notion (Scholar adds its own), then sync again.")
    missing = {n: schema for n, schema in SCHEMA.items() if n not in properties}
    if missing and add_missing:
        await client.add_properties(missing)
    return title


@dataclass
class _Push:
    client: NotionClient
    title: str
    dry_run: bool
    report: SyncReport
    links: dict[str, Link]
    now_ms: int = field(default_factory=lambda: int(time.time() * 1000))

    def record(self, item: LibraryItem, status: Status, key: str | None, *, notes: bool = False,
               code: int | None = None, message: str | None = None) -> None:
        self.report.count(ItemOutcome(item_id=item.item_id, key=key, title=item.paper.get("title"), status=status,
                                      code=code, message=message), notes=notes)

    def agree(self, item: LibraryItem, page: dict[str, Any], ours: Fields, **update: Any) -> None:
        """Remember that both sides now hold ``ours`` (as Notion reads the page back) for this item."""
        old = self.links.get(item.item_id)
        base = old.model_dump() if old and old.key == page["id"] else {"item_id": item.item_id}
        self.links[item.item_id] = Link.model_validate(base | {
            "key": page["id"], "version": edited_ms(page), "digest": ours.digest(),
            "seen_digest": fields_of_page(page).digest(), "synced_at": self.now_ms} | update)

    async def attempt(self, item: LibraryItem, key: str | None, write: Awaitable[_T], *,
                      notes: bool = False) -> _T | None:
        """The answer of one write, or None when Notion refused this item alone (recorded as failed, with its
        status and message); a throttled or failing Notion fails the whole push."""
        try:
            return await write
        except UpstreamError as exc:
            if exc.status is None or exc.status >= 500:
                raise
            self.record(item, "failed", key, notes=notes, code=exc.status, message=exc.message)
            return None

    async def create(self, item: LibraryItem, ours: Fields, notes: str) -> None:
        if self.dry_run:
            self.record(item, "created", None)
            return
        page = await self.attempt(item, None, self.client.create_page(to_properties(ours, self.title),
                                                                       blocks_of_notes(notes)))
        if page is None:
            return
        self.agree(item, page, ours, note_digest=notes_digest(notes))
        self.record(item, "created", page["id"])
        if notes:
            self.record(item, "created", page["id"], notes=True)

    async def adopt(self, item: LibraryItem, page: dict[str, Any], ours: Fields, notes: str) -> None:
        """A page with this item's Scholar ID and no link: ours when it holds what we would write, else a conflict."""
        if fields_of_page(page) != ours:
            self.record(item, "conflict", page["id"], message="a page with this Scholar ID is in the database and "
                        "differs from this item: pull to bring it in, then push")
            return
        theirs = notes_of_blocks(await self.client.blocks(page["id"]))
        agreed = notes_digest(notes) if theirs == canonical_notes(notes) else None
        if agreed is None:
            self.record(item, "conflict", page["id"], notes=True, message="the page's content differs from this "
                        "item's notes: pull to bring it in, then push")
        if not self.dry_run:
            self.agree(item, page, ours, note_digest=agreed)
        self.record(item, "unchanged", page["id"])

    async def update(self, item: LibraryItem, page: dict[str, Any], link: Link, ours: Fields) -> None:
        theirs = fields_of_page(page)
        if ours.digest() == link.digest:
            self.record(item, "unchanged", page["id"])  # a newer page there is the user's edit, left alone
        elif theirs.digest() != link.seen_digest and theirs != ours:
            self.record(item, "conflict", page["id"], message=CONFLICT)
        elif theirs.digest() != link.seen_digest:
            self.agree(item, page, ours)  # both sides made the same change
            self.record(item, "unchanged", page["id"])
        elif self.dry_run:
            self.record(item, "updated", page["id"])
        elif (done := await self.attempt(item, page["id"], self.client.update_page(
                page["id"], to_properties(ours, self.title)))) is not None:
            self.agree(item, done, ours)
            self.record(item, "updated", page["id"])

    async def replace_notes(self, item: LibraryItem, page_id: str, link: Link, notes: str) -> None:
        """Our changed notes, written over the page's text blocks only while they hold what we last agreed on."""
        blocks = await self.client.blocks(page_id)
        theirs = notes_digest(notes_of_blocks(blocks))
        if theirs == notes_digest(notes):  # the same edit on both sides
            self.links[item.item_id] = self.links[item.item_id].model_copy(update={"note_digest": theirs})
            return
        if link.note_digest is None or theirs != link.note_digest:
            self.record(item, "conflict", page_id, notes=True, message=CONFLICT)
            return
        if not self.dry_run:
            # The new paragraphs first: a refused append leaves the page as it was, and the next push tries again.
            if await self.attempt(item, page_id, self.client.append(page_id, blocks_of_notes(notes)), notes=True) \
                    is None:
                return
            for block in blocks:
                if is_text_block(block):
                    await self.client.delete_block(block["id"])
            self.links[item.item_id] = self.links[item.item_id].model_copy(
                update={"note_digest": notes_digest(notes), "synced_at": self.now_ms})
        self.record(item, "updated", page_id, notes=True)


async def push(client: NotionClient, store: ConnectionStore, items: Sequence[LibraryItem], collection: str, *,
               dry_run: bool = False, progress: Progress | None = None) -> SyncReport:
    """Send ``items`` to the database as pages (created, updated, or left alone); only what changed.

    Raises:
        ForbiddenError: the token is refused. NotFoundError: the database is not shared with the integration.
        RateLimitedError / UpstreamError: Notion kept failing (the links of what was written are kept).
    """
    database = client.target.database_id
    report = SyncReport(target=NOTION, direction="push", library=database, collection=collection, dry_run=dry_run)
    links = await store.alinks(NOTION, database)
    before = dict(links)
    run = _Push(client, await title_property(client, add_missing=not dry_run), dry_run, report, links)
    # Every page, found by the link's page id, else by its Scholar ID: before anything is created.
    by_id = {p["id"]: p for p in await client.query()}
    by_scholar_id = {s: p for p in by_id.values() if (s := fields_of_page(p).scholar_id)}
    try:
        for done, item in enumerate(items, 1):
            ours, notes = fields_of_item(item), canonical_notes(item.notes)
            link = links.get(item.item_id)
            page = (by_id.get(link.key) if link else None) or by_scholar_id.get(item.item_id)
            if page is None:
                await run.create(item, ours, notes)
            elif link is None or link.key != page["id"]:
                await run.adopt(item, page, ours, notes)
            else:
                await run.update(item, page, link, ours)
                if link.note_digest != notes_digest(notes):
                    await run.replace_notes(item, page["id"], link, notes)
            if progress and done % _PROGRESS_EVERY == 0:
                await progress(done, len(items))
    finally:
        report.requests = client.requests
        if not dry_run:
            await store.aput_links(NOTION, database, [v for k, v in links.items() if before.get(k) != v])
    return report
