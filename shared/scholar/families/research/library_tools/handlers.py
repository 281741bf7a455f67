"""The library tools' handlers (dispatched by scholar.runtime.family): the caller's library, nobody else's.

Every store call is blocking boto3, so it goes through ``off_loop``; the store is always opened for
``ctx.principal`` and nothing else, which is what makes another caller's item ids simply ``not_found``.
"""

from __future__ import annotations

from typing import Any, TypedDict

from scholar.core import budget
from scholar.core.budget import RESERVE, fit_field, json_chars, shorten_for_list
from scholar.core.catalogue import MAX_RESULT_CHARS, CallContext, Handler
from scholar.core.config import get_settings
from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.core.records import Paper
from scholar.families.research.library_tools.spec import (
    CollectionEntry,
    LibraryAddInput,
    LibraryAddResult,
    LibraryCollectionsInput,
    LibraryCollectionsResult,
    LibraryEntry,
    LibraryGetEntry,
    LibraryGetInput,
    LibraryGetResult,
    LibraryListInput,
    LibraryListResult,
    LibraryRecord,
    LibraryRemoveEntry,
    LibraryRemoveInput,
    LibraryRemoveResult,
    LibraryUpdateInput,
    LibraryUpdateResult,
)
from scholar.families.research.search.hits import AUTHORS, fit
from scholar.services.fulltext.brought import is_brought
from scholar.services.library.brought import keep_brought
from scholar.services.library.find import Found, find_items
from scholar.services.library.keep import add_paper
from scholar.store.library.models import MAX_TAGS, LibraryItem
from scholar.store.library.table import LibraryStore


class _Filters(TypedDict):
    """library_list's filters, given alike to the listing and to the cursor of a page cut short."""

    collection: str | None
    tag: str | None
    year_start: int | None
    year_end: int | None


def record_of(item: LibraryItem, reserve: int = RESERVE) -> LibraryRecord:
    """The output record of a stored item: in full when it fits the size budget less ``reserve``; else shortened,
    with ``shortened``, one step at a time until it fits (library_export gives the whole record):

    the paper's authors and abstract as in lists (authorCount, abstractTruncated say so); then its tldr, Crossref
    and book details; then the last PDFs of the list (oldest first); then the notes, cut at the end. What is left
    (ids, tags, title, venue, external ids) is bounded by scholar.store.library.bounds well under the budget.
    """
    record = LibraryRecord(item_id=item.item_id, collection=item.collection, ids=item.ids,
                           paper=Paper.model_validate(item.paper), tags=item.tags, notes=item.notes, pdfs=item.pdfs,
                           md_path=item.md_path, added_at=item.added_at, updated_at=item.updated_at)
    room = MAX_RESULT_CHARS - reserve
    if json_chars(record) <= room:
        return record
    record.shortened = True
    steps = (
        lambda r: {"paper": shorten_for_list(r.paper)},
        lambda r: {"paper": r.paper.model_copy(update={"tldr": None, "biblio": None, "book_metadata": None})},
        lambda r: {"pdfs": fit_field(r, "pdfs", reserve)[0].pdfs},
        lambda r: {"notes": _cut_notes(r, room)},
    )
    for step in steps:
        record = record.model_copy(update=step(record))
        if json_chars(record) <= room:
            break
    return record


def _cut_notes(record: LibraryRecord, room: int) -> str | None:
    """The notes cut at the end to what fits ``room`` beside the rest of the record, marked with an ellipsis."""
    notes = record.notes or ""
    free = room - json_chars(record.model_copy(update={"notes": ""}))
    keep = len(notes)
    while keep > 0 and json_chars(notes[:keep] + "…") > free:
        keep -= max(1, json_chars(notes[:keep] + "…") - free)  # an escaped character counts more than one
    return notes[:keep] + "…" if keep > 0 else None


def entry_of(item: LibraryItem) -> LibraryEntry:
    """The compact list entry of a stored item (first authors, no abstract)."""
    paper = item.paper
    names = [a.get("name") for a in paper.get("authors") or [] if isinstance(a, dict) and a.get("name")]
    return LibraryEntry(item_id=item.item_id, title=paper.get("title"), authors=names[:AUTHORS] or None,
                        author_count=len(names) if len(names) > AUTHORS else None, year=paper.get("year"),
                        venue=paper.get("venue") or None, ids=item.ids, collection=item.collection, tags=item.tags,
                        has_notes=bool(item.notes), pdfs=len(item.pdfs), added_at=item.added_at)


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude_none=True)


async def library_add(args: LibraryAddInput, ctx: CallContext) -> LibraryAddResult:
    if is_brought(args.identifier, settings := get_settings()):  # a PDF of the caller's: kept on its paper's item
        item, created, _ = await keep_brought(ctx.principal, args.identifier, settings, collection=args.collection,
                                              tags=args.tags, notes=args.notes)
        return LibraryAddResult(item=record_of(item), created=created)
    item, created = await add_paper(ctx.principal, args.identifier, collection=args.collection, tags=args.tags,
                                    notes=args.notes)
    return LibraryAddResult(item=record_of(item), created=created)


async def library_get(args: LibraryGetInput, ctx: CallContext) -> LibraryGetResult:
    return get_result(await find_items(LibraryStore(ctx.principal), args.ids), args.ids)


def get_result(found: list[Found], ids: list[str]) -> LibraryGetResult:
    """library_get's answer for what the identifiers named, cut to the size budget with truncated and omitted."""
    # Room kept for the omitted list, as long as every identifier asked for; each record fits beside it.
    reserve = RESERVE + json_chars(ids)
    entries = [_dump(_get_entry(f, reserve)) for f in found]
    kept, truncated = budget.fit(entries, reserve=reserve)
    if not truncated:
        return LibraryGetResult.model_validate({"items": entries})
    omitted = [e["id"] for e in entries[len(kept):]]
    return LibraryGetResult.model_validate({"items": kept, "truncated": True, "omitted": omitted})


def _get_entry(found: Found, reserve: int) -> LibraryGetEntry:
    if found.item is None:
        return LibraryGetEntry.model_validate({"id": found.identifier, "status": found.status,
                                               "message": found.message})
    entry = LibraryGetEntry(id=found.identifier, status="ok")
    return entry.model_copy(update={"item": record_of(found.item, reserve=reserve + json_chars(_dump(entry)))})


async def library_list(args: LibraryListInput, ctx: CallContext) -> LibraryListResult:
    if args.year_start is not None and args.year_end is not None and args.year_start > args.year_end:
        raise InvalidArgumentError("year_end must not be before year_start", field="year_end")
    store = LibraryStore(ctx.principal)
    filters: _Filters = {"collection": args.collection, "tag": args.tag, "year_start": args.year_start,
                         "year_end": args.year_end}
    items, cursor = await store.alist_items(limit=args.limit, cursor=args.cursor, **filters)
    total, _ = await store.ausage()
    entries = [_dump(entry_of(i)) for i in items]
    kept, truncated = fit(entries)
    if truncated and kept:
        cursor = store.cursor_after(kept[-1]["item_id"], **filters)
    return LibraryListResult.model_validate({"items": kept, "next_cursor": cursor, "library_items": total,
                                             **({"truncated": True} if truncated else {})})


async def library_update(args: LibraryUpdateInput, ctx: CallContext) -> LibraryUpdateResult:
    store = LibraryStore(ctx.principal)
    item = await _one(store, args.id)

    def change(current: LibraryItem) -> LibraryItem:
        removed = set(args.remove_tags)
        tags = [t for t in dict.fromkeys([*current.tags, *args.add_tags]) if t not in removed]
        if len(tags) > MAX_TAGS:
            raise InvalidArgumentError(f"an item holds at most {MAX_TAGS} tags", field="add_tags")
        notes = current.notes if args.notes is None else (args.notes or None)
        return current.model_copy(update={"tags": tags, "notes": notes,
                                          "collection": args.collection or current.collection})

    if change(item) == item:
        return LibraryUpdateResult(item=record_of(item), changed=False)
    stored = await store.aupdate(item.item_id, change)
    return LibraryUpdateResult(item=record_of(stored), changed=True)


async def _one(store: LibraryStore, identifier: str) -> LibraryItem:
    (found,) = await find_items(store, [identifier])
    if found.item is not None:
        return found.item
    if isinstance(found.error, InvalidArgumentError):
        raise InvalidArgumentError(found.error.message, field="id") from found.error
    if found.error is not None and found.status != "not_found":
        raise found.error  # a failing source is its own error, never "not in your library"
    raise NotFoundError(f"your library has no item for {identifier!r}", reason="library_item_not_found",
                        hint="List your items with library_list, or add the paper with library_add.")


async def library_remove(args: LibraryRemoveInput, ctx: CallContext) -> LibraryRemoveResult:
    store = LibraryStore(ctx.principal)
    results: list[LibraryRemoveEntry] = []
    done: set[str] = set()
    for found in await find_items(store, args.ids):
        if found.item is None:
            results.append(LibraryRemoveEntry.model_validate({"id": found.identifier, "status": found.status,
                                                              "message": found.message}))
            continue
        item_id = found.item.item_id
        removed = item_id not in done and await store.adelete(item_id)
        done.add(item_id)
        results.append(LibraryRemoveEntry(id=found.identifier, status="removed" if removed else "not_found",
                                          item_id=item_id))
    return LibraryRemoveResult(results=results, removed=sum(r.status == "removed" for r in results))


async def library_collections(args: LibraryCollectionsInput, ctx: CallContext) -> LibraryCollectionsResult:
    store = LibraryStore(ctx.principal)
    moved: int | None = None
    name = args.name
    if args.action != "list":
        if name is None:
            raise InvalidArgumentError(f"action {args.action} needs name", field="name")
        if args.action == "create":
            await store.acreate_collection(name)
        elif args.action == "delete":
            await store.adelete_collection(name)
        elif args.new_name is None:
            raise InvalidArgumentError("action rename needs new_name", field="new_name")
        else:
            moved = await store.arename_collection(name, args.new_name)
    collections = await store.acollections()
    total, _ = await store.ausage()
    result = LibraryCollectionsResult(
        action=args.action, moved=moved, library_items=total,
        collections=[CollectionEntry(name=c.name, items=c.items, created_at=c.created_at) for c in collections])
    return fit_field(result, "collections", flag="truncated")[0]


HANDLERS: dict[str, Handler] = {
    "library_add": library_add,
    "library_get": library_get,
    "library_list": library_list,
    "library_update": library_update,
    "library_remove": library_remove,
    "library_collections": library_collections,
}
