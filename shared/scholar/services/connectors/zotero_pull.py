"""Pull a Zotero collection (or the whole library) into ours: the same fields mapped back, incrementally.

An item we pushed is found again by its ``Scholar-ID`` line or by the link the push kept; any other item is
kept under its DOI, arXiv id, else its Zotero key (scholar.services.connectors.zotero_map.identity), so pulling
twice is one item. Only items whose Zotero version moved since we last agreed are re-read into ours, and after a
pull the link holds the digest of what a push would now send, so the next push of the same collection writes
nothing.
"""

from __future__ import annotations

from typing import Any

from scholar.core.aio import off_loop
from scholar.core.errors import NotFoundError
from scholar.core.ids import written_ids
from scholar.core.records import Paper
from scholar.services.connectors.outcome import ItemOutcome, SyncReport
from scholar.services.connectors.zotero_map import (
    digest,
    identity,
    note_html,
    note_text,
    paper_from_zotero,
    scholar_id,
    tags_from_zotero,
    to_zotero,
)
from scholar.sources.zotero import ZoteroClient
from scholar.store.connections import ConnectionStore, Link
from scholar.store.library.models import LibraryItem, item_id_for
from scholar.store.library.table import LibraryStore, now_iso

__all__ = ["pull"]

_CHILDREN = ("note", "attachment", "annotation")


async def _find_collection(client: ZoteroClient, store: ConnectionStore, name: str) -> str:
    target, library = client.target.source, client.target.library
    known = await store.acollection_key(target, library, name)
    if known:
        return known
    found = next((c["key"] for c in await client.collections() if c["data"].get("name") == name), None)
    if found is None:
        raise NotFoundError(f"Zotero has no collection named {name!r} in {library}", source=target,
                            reason="zotero_collection_not_found")
    await store.aput_collection_key(target, library, name, found)
    return found


def _merged(data: dict[str, Any], note: str | None, old: LibraryItem | None, item_id: str, ids: list[str],
            collection: str) -> LibraryItem:
    base = Paper.model_validate(old.paper) if old else None
    paper = paper_from_zotero(data, base)
    now = now_iso()
    fields: dict[str, Any] = {"paper": paper.model_dump(mode="json"), "tags": tags_from_zotero(data)}
    if note is not None:
        fields["notes"] = note_text(note) or None
    if old is not None:
        return old.model_copy(update=fields)
    return LibraryItem(item_id=item_id, collection=collection, ids=ids, added_at=now, updated_at=now, **fields)


async def pull(client: ZoteroClient, store: ConnectionStore, library: LibraryStore, collection: str | None, *,
               into: str, dry_run: bool = False) -> SyncReport:
    """Bring the Zotero collection named ``collection`` (None: the whole library) into our collection ``into``.

    Raises:
        NotFoundError: Zotero has no such collection. ForbiddenError / RateLimitedError / UpstreamError: as the
        client raises them.
    """
    target, zlib = client.target.source, client.target.library
    report = SyncReport(target=target, direction="pull", library=zlib, collection=collection or into,
                        dry_run=dry_run)
    ckey = await _find_collection(client, store, collection) if collection else None
    links = await store.alinks(target, zlib)
    by_key = {link.key: link for link in links.values()}
    objects = await client.items(ckey)
    notes = {o["data"]["parentItem"]: o for o in objects
             if o["data"].get("itemType") == "note" and o["data"].get("parentItem")}
    parents = [o for o in objects if o["data"].get("itemType") not in _CHILDREN]
    chosen: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for obj in parents:
        key, data = obj["key"], obj["data"]
        link = by_key.get(key)
        note = notes.get(key)
        same_note = note is None or note["version"] == (link.note_version if link else None)
        if link is not None and link.version == obj["version"] and same_note:
            report.count(ItemOutcome(item_id=link.item_id, key=key, title=data.get("title"), status="unchanged"))
            continue
        paper = paper_from_zotero(data)
        item_id = scholar_id(data) or (link.item_id if link else item_id_for(identity(paper, f"zotero:{zlib}/{key}")))
        chosen[item_id] = (obj, written_ids(paper.externalIds or {}))
    existing = await library.aget_many(list(chosen))
    merged: list[LibraryItem] = []
    for item_id, (obj, ids) in chosen.items():
        note = notes.get(obj["key"])
        item = _merged(obj["data"], note["data"]["note"] if note else None, existing.get(item_id), item_id, ids, into)
        merged.append(item)
        status = "updated" if item_id in existing else "created"
        report.count(ItemOutcome(item_id=item_id, key=obj["key"], title=obj["data"].get("title"), status=status))
        old = links.get(item_id)
        links[item_id] = Link(
            item_id=item_id, key=obj["key"], version=obj["version"],
            digest=digest(to_zotero(item, ckey or (obj["data"].get("collections") or [""])[0])),
            note_key=note["key"] if note else (old.note_key if old else None),
            note_version=note["version"] if note else (old.note_version if old else None),
            note_digest=digest({"note": note_html(item)}) if note else (old.note_digest if old else None),
            attachment_key=old.attachment_key if old else None, attachment_md5=old.attachment_md5 if old else None)
    if not dry_run and merged:
        await off_loop(library.put_many, merged)
        await store.aput_links(target, zlib, [links[i.item_id] for i in merged])
    report.requests = client.requests
    return report
