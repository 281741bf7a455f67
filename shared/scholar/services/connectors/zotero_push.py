"""Push a collection of our library to Zotero: items, then child notes, then PDF attachments, 50 objects a write.

The steps and what each costs in requests (the figures in docs/connectors.md count them):

    1. the Zotero collection of the same name   0 (remembered) · 1 read (found) · 1 read + 1 write (created)
    2. what Zotero holds now                    1 read: key → version of everything in the collection
    3. items, notes, attachment items           ⌈objects / 50⌉ writes, only for what changed on our side
    4. each new PDF                             3 requests (authorize, store, register); 1 when Zotero has it

The non-obvious constraint: never overwrite the user's edits. An update carries the version we last agreed on;
if the user changed the item in Zotero since, Zotero refuses that object with 412, we read it back and report a
conflict (a pull brings their edit in) instead of sending ours again. An item we did not change is not written,
even when Zotero's copy changed: that edit is theirs to keep.

A push cut off mid-way (a crash, a kill) never writes an item twice: each batch's links are stored as soon as
Zotero confirms it, and before creating, a push that has items to create reads the collection's objects it has no
link for (1 read per 50) and adopts those whose ``extra`` carries one of our Scholar ids (and their child note and
attachment), so what a cut-off push wrote between its last confirmed write and its link is found, not written again.
Two pushes to one Zotero library in one process (a push resumed after a crash, and the user's new one) run one
after the other, so the second reads the links the first stored.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from scholar.services.connectors.outcome import ItemOutcome, SyncReport
from scholar.services.connectors.zotero_map import digest, note_html, scholar_id, to_zotero
from scholar.sources.zotero import BATCH, ZoteroClient
from scholar.store.connections import ConnectionStore, Link
from scholar.store.library.models import LibraryItem

__all__ = ["ReadFile", "push"]

ReadFile = Callable[[str], Awaitable[bytes | None]]
Progress = Callable[[int, int], Awaitable[None]]
_ATTACHMENT_TITLE = "Full Text PDF"
# One push at a time per (caller, target, library) in this process: threads (a resumed task) and loops alike.
_PUSHING: dict[tuple[str, str, str], threading.Lock] = {}
_PUSHING_GUARD = threading.Lock()
_WAIT_S = 0.05


@asynccontextmanager
async def _one_at_a_time(key: tuple[str, str, str]) -> AsyncIterator[None]:
    with _PUSHING_GUARD:
        lock = _PUSHING.setdefault(key, threading.Lock())
    while not lock.acquire(blocking=False):  # polled, so a cancelled wait never leaves the lock taken
        await asyncio.sleep(_WAIT_S)
    try:
        yield
    finally:
        lock.release()


@dataclass
class _Write:
    """One object to write and what to do with Zotero's answer for it."""

    item: LibraryItem
    body: dict[str, Any]
    digest: str
    kind: str  # "item", "note" or "attachment"
    update: bool


@dataclass
class _Plan:
    writes: list[_Write] = field(default_factory=list)


async def _collection_key(client: ZoteroClient, store: ConnectionStore, name: str, *, dry_run: bool) -> str | None:
    target, library = client.target.source, client.target.library
    known = await store.acollection_key(target, library, name)
    if known:
        return known
    found = next((c["key"] for c in await client.collections()
                  if c["data"].get("name") == name and not c["data"].get("parentCollection")), None)
    if found is None and dry_run:
        return None
    key = found or await client.create_collection(name)
    await store.aput_collection_key(target, library, name, key)
    return key


def _item_write(item: LibraryItem, link: Link | None, versions: dict[str, int], ckey: str) -> _Write | None:
    body = to_zotero(item, ckey)
    fingerprint = digest(body)
    if link is not None and link.key in versions:
        if link.digest == fingerprint:
            return None  # ours did not change; a newer version there is the user's edit, left alone
        return _Write(item, body | {"key": link.key, "version": link.version}, fingerprint, "item", update=True)
    return _Write(item, body, fingerprint, "item", update=False)


def _note_write(item: LibraryItem, link: Link, versions: dict[str, int]) -> _Write | None:
    text = note_html(item)
    if not text:
        return None
    fingerprint = digest({"note": text})
    if link.note_key and link.note_key in versions:
        if link.note_digest == fingerprint:
            return None
        body = {"itemType": "note", "parentItem": link.key, "note": text, "key": link.note_key,
                "version": link.note_version}
        return _Write(item, body, fingerprint, "note", update=True)
    return _Write(item, {"itemType": "note", "parentItem": link.key, "note": text, "tags": []}, fingerprint,
                  "note", update=False)


def _attachment_write(item: LibraryItem, link: Link) -> _Write | None:
    if not item.pdfs or link.attachment_key:
        return None
    pdf = item.pdfs[-1]
    body = {"itemType": "attachment", "parentItem": link.key, "linkMode": "imported_file",
            "title": _ATTACHMENT_TITLE, "contentType": "application/pdf", "filename": f"{item.item_id}.pdf",
            "tags": []}
    return _Write(item, body, pdf.sha256, "attachment", update=False)


def _incomplete(item: LibraryItem, link: Link | None, versions: dict[str, int], files: bool) -> bool:
    """Whether ``item`` still has an object to create (itself, its note or its attachment item)."""
    return (link is None or link.key not in versions or (not link.note_key and bool(note_html(item)))
            or (files and not link.attachment_key and bool(item.pdfs)))


async def _adopt(client: ZoteroClient, items: list[LibraryItem], links: dict[str, Link],
                 versions: dict[str, int], *, files: bool) -> None:
    """Link the objects an earlier, cut-off push created but did not live to record (found by our Scholar id)."""
    known = {k for link in links.values() for k in (link.key, link.note_key, link.attachment_key) if k}
    strangers = sorted(k for k in versions if k not in known)
    if not strangers or not any(_incomplete(i, links.get(i.item_id), versions, files) for i in items):
        return
    found = await client.items(keys=strangers)
    ours = {i.item_id for i in items}
    parents = {link.key: item_id for item_id, link in links.items() if item_id in ours and link.key in versions}
    for obj in found:
        item_id = scholar_id(obj["data"])
        if item_id in ours and item_id not in parents.values() and not obj["data"].get("parentItem"):
            # digest "": sent once more as an update at this version, which Zotero answers "unchanged"
            links[item_id] = Link(item_id=item_id, key=obj["key"], version=int(obj["version"]), digest="")
            parents[obj["key"]] = item_id
    for obj in found:
        item_id = parents.get(obj["data"].get("parentItem") or "")
        if item_id is None:
            continue
        link, kind = links[item_id], obj["data"].get("itemType")
        if kind == "note" and not link.note_key:
            links[item_id] = link.model_copy(update={"note_key": obj["key"], "note_version": int(obj["version"]),
                                                     "note_digest": ""})
        elif kind == "attachment" and obj["data"].get("title") == _ATTACHMENT_TITLE and not link.attachment_key:
            links[item_id] = link.model_copy(update={"attachment_key": obj["key"]})


async def _save(store: ConnectionStore, client: ZoteroClient, links: dict[str, Link], saved: dict[str, Link]) -> None:
    """Store the links that changed since the last save (called after every confirmed write)."""
    changed = [v for k, v in links.items() if saved.get(k) != v]
    if changed:
        await store.aput_links(client.target.source, client.target.library, changed)
        saved.update({link.item_id: link for link in changed})


async def _send(client: ZoteroClient, writes: list[_Write], links: dict[str, Link], report: SyncReport,
                *, dry_run: bool, save: Callable[[], Awaitable[None]]) -> None:
    """Write in batches of 50; fold each object's answer into the links (stored at once) and the report."""
    for start in range(0, len(writes), BATCH):
        batch = writes[start:start + BATCH]
        if dry_run:
            for w in batch:
                _record(report, w, "updated" if w.update else "created", key=w.body.get("key"))
            continue
        outcome = await client.write("items", [w.body for w in batch])
        conflicts: list[tuple[_Write, dict[str, Any]]] = []
        for position, w in enumerate(batch):
            if position in outcome.successful:
                obj = outcome.successful[position]
                _remember(links, w, obj["key"], int(obj["version"]))
                _record(report, w, "updated" if w.update else "created", key=obj["key"])
            elif position in outcome.unchanged:
                _remember(links, w, outcome.unchanged[position], int(w.body.get("version") or 0))
                _record(report, w, "unchanged", key=outcome.unchanged[position])
            else:
                failure = outcome.failed.get(position, {"code": None, "message": "Zotero did not report it"})
                if failure.get("code") == 412:
                    conflicts.append((w, failure))
                else:
                    _record(report, w, "failed", key=failure.get("key"), code=failure.get("code"),
                            message=failure.get("message"))
        await save()
        await _reread_conflicts(client, conflicts, report)


async def _reread_conflicts(client: ZoteroClient, conflicts: list[tuple[_Write, dict[str, Any]]],
                            report: SyncReport) -> None:
    """Read back what the user changed; report it as a conflict and keep their version (a pull brings it in)."""
    if not conflicts:
        return
    current = {o["key"]: o for o in await client.items(keys=[w.body["key"] for w, _ in conflicts])}
    for w, failure in conflicts:
        there = current.get(w.body["key"])
        message = failure.get("message") or "changed in Zotero since the last sync"
        if there is not None:
            message += f"; Zotero has version {there['version']}: pull to bring that edit in, then push again"
        _record(report, w, "conflict", key=w.body["key"], code=412, message=message)


def _remember(links: dict[str, Link], w: _Write, key: str, version: int) -> None:
    link = links.get(w.item.item_id)
    if w.kind == "item":
        base = link.model_dump() if link else {"item_id": w.item.item_id}
        links[w.item.item_id] = Link.model_validate(base | {"key": key, "version": version, "digest": w.digest})
    elif link is not None and w.kind == "note":
        links[w.item.item_id] = link.model_copy(update={"note_key": key, "note_version": version,
                                                         "note_digest": w.digest})
    elif link is not None:
        links[w.item.item_id] = link.model_copy(update={"attachment_key": key})


def _record(report: SyncReport, w: _Write, status: str, *, key: str | None, code: int | None = None,
            message: str | None = None) -> None:
    if w.kind == "attachment":
        if status == "failed":
            report.files["failed"] = report.files.get("failed", 0) + 1
            report.results.append(ItemOutcome(item_id=w.item.item_id, key=key, status="failed", code=code,
                                              message=message))
        return
    title = w.item.paper.get("title")
    report.count(ItemOutcome(item_id=w.item.item_id, key=key, title=title, status=status, code=code,
                             message=message), notes=w.kind == "note")


async def _upload_files(client: ZoteroClient, items: list[LibraryItem], links: dict[str, Link], read_file: ReadFile,
                        report: SyncReport, save: Callable[[], Awaitable[None]]) -> None:
    for item in items:
        link = links.get(item.item_id)
        if not item.pdfs or link is None or not link.attachment_key:
            continue
        pdf = item.pdfs[-1]
        data = await read_file(pdf.pdf_path)
        if data is None:
            report.files["failed"] = report.files.get("failed", 0) + 1
            report.results.append(ItemOutcome(item_id=item.item_id, key=link.attachment_key, status="failed",
                                              message="the kept PDF is no longer in the artifact store"))
            continue
        md5 = hashlib.md5(data, usedforsecurity=False).hexdigest()  # Zotero's file identity is its MD5
        if link.attachment_md5 == md5:
            continue
        result = await client.upload(link.attachment_key, filename=f"{item.item_id}.pdf", data=data, md5=md5,
                                     mtime_ms=0)
        report.files[result] = report.files.get(result, 0) + 1
        links[item.item_id] = link.model_copy(update={"attachment_md5": md5})
        await save()


async def push(client: ZoteroClient, store: ConnectionStore, items: list[LibraryItem], collection: str, *,
               read_file: ReadFile | None = None, dry_run: bool = False,
               progress: Progress | None = None) -> SyncReport:
    """Send ``items`` to the Zotero collection named ``collection`` (created if missing); only what changed.

    Args:
        client: the Zotero library to write to.
        store: the caller's connection store (links between our items and Zotero's).
        items: our items, in the order to write them.
        collection: the Zotero collection's name (a top-level collection).
        read_file: reads a kept PDF by its artifact reference; None sends no files.
        dry_run: read what Zotero holds and report what would be written, writing nothing.
        progress: awaited with (done, total) after each phase.

    Raises:
        ForbiddenError: the key is refused. RateLimitedError / UpstreamError: Zotero kept failing.
    """
    target, library = client.target.source, client.target.library
    if dry_run:
        return await _push(client, store, items, collection, read_file=read_file, dry_run=True, progress=progress)
    async with _one_at_a_time((store.principal, target, library)):
        return await _push(client, store, items, collection, read_file=read_file, dry_run=False, progress=progress)


async def _push(client: ZoteroClient, store: ConnectionStore, items: list[LibraryItem], collection: str, *,
                read_file: ReadFile | None, dry_run: bool, progress: Progress | None) -> SyncReport:
    target, library = client.target.source, client.target.library
    report = SyncReport(target=target, direction="push", library=library, collection=collection, dry_run=dry_run)
    links = await store.alinks(target, library)
    saved = dict(links)

    async def save() -> None:
        if not dry_run:
            await _save(store, client, links, saved)

    ckey = await _collection_key(client, store, collection, dry_run=dry_run)
    versions = await client.versions(ckey) if ckey else {}
    await _adopt(client, items, links, versions, files=read_file is not None)
    item_writes: list[_Write] = []
    for item in items:
        write = _item_write(item, links.get(item.item_id), versions, ckey or "")
        if write is None:
            report.count(ItemOutcome(item_id=item.item_id, key=links[item.item_id].key, status="unchanged"))
        else:
            item_writes.append(write)
    await _send(client, item_writes, links, report, dry_run=dry_run, save=save)
    if progress:
        await progress(1, 3)
    children = [w for item in items if (link := links.get(item.item_id)) is not None
                for w in (_note_write(item, link, versions), _attachment_write(item, link) if read_file else None)
                if w is not None]
    await _send(client, children, links, report, dry_run=dry_run, save=save)
    if progress:
        await progress(2, 3)
    if read_file is not None and not dry_run:
        await _upload_files(client, items, links, read_file, report, save)
    await save()
    report.requests = client.requests
    return report
