"""Handlers of library_search, library_export and library_import (dispatched by scholar.runtime.family).

Storage and the index are blocking (DynamoDB, S3, SQLite): each runs off the event loop. A search spends at
most ``SCHOLAR_LIBRARY_SEARCH_BUDGET_S`` on the caller's index (and never runs past the call's deadline): an
index still being built answers a retryable ``timeout``, and the next call continues it. Export and import
load their modules (the citation writers, the snapshot reader) on first use: the research function's cold
start is paid by every search.
"""

from __future__ import annotations

import hashlib
import json
import time
from functools import partial
from typing import TYPE_CHECKING

from scholar.core.aio import off_loop
from scholar.core.budget import RESERVE, fit
from scholar.core.catalogue import CallContext, Handler
from scholar.core.config import get_settings
from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.families.research.library_tools.index_spec import (
    MAX_ENTRY_OUTCOMES,
    MAX_IMPORT_ENTRIES,
    ImportedEntry,
    LibraryExportInput,
    LibraryExportResult,
    LibraryHit,
    LibraryImportInput,
    LibraryImportResult,
    LibrarySearchInput,
    LibrarySearchResult,
)
from scholar.families.research.search.pages import decode_cursor, encode_cursor
from scholar.services.library.index import Filters
from scholar.services.library.index_cache import holder
from scholar.store.library.models import DEFAULT_COLLECTION, LibraryItem
from scholar.store.library.table import LibraryStore
from scholar.store.limiter import call_deadline

if TYPE_CHECKING:
    from scholar.services.cite.references import ReferenceFormat

MAX_TITLE = 300
# A snippet is 16 tokens, but one token may be a long unbroken string (a URL, an encoded blob in a body).
MAX_SNIPPET = 600
_LIST_PAGE = 200
# Time kept back from the call's deadline for writing the index back and answering.
ANSWER_MARGIN_S = 3.0


def _search_key(args: LibrarySearchInput) -> str:
    """What a cursor is bound to: the query and the filters (a cursor of another search is refused)."""
    facts = [args.query, args.collection, args.tag, args.year_start, args.year_end]
    if args.like is not None:
        facts.append(args.like)
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:16]


def _offset(args: LibrarySearchInput) -> int:
    if args.cursor is None:
        return 0
    key, offset = decode_cursor(args.cursor)
    if key != _search_key(args):
        raise InvalidArgumentError("cursor belongs to another query or other filters; pass the same ones with it",
                                   field="cursor")
    return offset


def deadlines() -> tuple[float, float | None]:
    """When this call's index work must stop (its budget, never past the call's deadline), and when its search must.

    Index work left over resumes on the next call; the search itself is bounded only by the call's own deadline
    (none inside a task), as a safety net: over bounded passages it takes milliseconds.
    """
    answer_by = call_deadline()
    answer_by = None if answer_by is None else answer_by - ANSWER_MARGIN_S
    index_by = time.monotonic() + get_settings().library_search_budget_s
    return (index_by if answer_by is None else min(index_by, answer_by)), answer_by


async def library_search(args: LibrarySearchInput, ctx: CallContext) -> LibrarySearchResult:
    offset = _offset(args)
    filters = Filters(collection=args.collection, tag=args.tag, year_start=args.year_start, year_end=args.year_end)
    index_by, answer_by = deadlines()
    page = await off_loop(holder().search, ctx.principal, LibraryStore(ctx.principal), args.query or "", filters,
                          limit=args.limit, offset=offset, index_by=index_by, answer_by=answer_by,
                          like=args.like)
    hits = [
        LibraryHit(item_id=h.item_id, title=(h.title or "")[:MAX_TITLE] or None, year=h.year, collection=h.collection,
                   score=h.score, snippet=h.snippet[:MAX_SNIPPET], matched_fields=h.matched)
        for h in page.hits
    ]
    # The next cursor goes on from the last hit kept.
    hits, _ = fit(hits, reserve=RESERVE + len(args.query or args.like or ""))
    following = offset + len(hits)
    return LibrarySearchResult(
        query=args.query,
        like=args.like,
        hits=hits,
        total=page.total,
        offset=offset,
        next_cursor=encode_cursor(_search_key(args), following) if following < page.total else None,
        match=page.match,
        index_revision=page.revision,
    )


def _items(store: LibraryStore, collection: str | None) -> list[LibraryItem]:
    """Every item of the collection (or of the library), in the store's listing order.

    Raises:
        NotFoundError: the caller has no such collection.
    """
    if collection is None:
        return list(store.iter_items())
    if store.collection(collection) is None:
        raise NotFoundError(f"you have no collection {collection!r}", reason="collection_not_found",
                            hint="List your collections with the library tools, or export without collection.")
    found: list[LibraryItem] = []
    cursor = None
    while True:
        page, cursor = store.list_items(collection=collection, limit=_LIST_PAGE, cursor=cursor)
        found += page
        if cursor is None:
            return found


def _export(args: LibraryExportInput, principal: str) -> LibraryExportResult:
    from scholar.services.library import export  # noqa: PLC0415  # lazy: the citation writers load only for an export

    items = _items(LibraryStore(principal), args.collection)
    done = export.deliver(export.write(items, args.format, args.collection), args.format, len(items), principal)
    return LibraryExportResult(format=done.format, collection=args.collection, count=done.count, chars=done.chars,
                               content=done.content, reference=done.reference, url=done.url,
                               url_expires_s=done.url_expires_s)


async def library_export(args: LibraryExportInput, ctx: CallContext) -> LibraryExportResult:
    return await off_loop(_export, args, ctx.principal)


def _import(args: LibraryImportInput, principal: str) -> LibraryImportResult:
    from scholar.services.library import snapshot  # noqa: PLC0415  # lazy: loads only for an import
    from scholar.services.library.keep import retain_items  # noqa: PLC0415  # with the snapshot, for an import only

    if args.reference is not None:
        parsed = snapshot.parse_snapshot(snapshot.read_reference(args.reference, principal), "reference")
    else:
        field = "jsonl" if args.jsonl is not None else "text"
        parsed = snapshot.parse_snapshot(args.jsonl or args.text or "", field)
    store = LibraryStore(principal)
    summary = snapshot.import_items(store, parsed.items, args.collection)
    written = {*summary.added, *summary.updated}
    retain_items(item for item in parsed.items if item.item_id in written)  # the PDFs it holds are kept, not cache
    exported_at = parsed.header.get("exported_at")
    return LibraryImportResult(items=len(parsed.items), added=len(summary.added), updated=len(summary.updated),
                               skipped=len(summary.skipped), collection=args.collection,
                               exported_at=exported_at if isinstance(exported_at, str) else None,
                               format="jsonl" if args.text is not None else None)


async def _import_references(args: LibraryImportInput, principal: str, text: str,
                             fmt: ReferenceFormat) -> LibraryImportResult:
    from scholar.services.cite.references import read_references  # noqa: PLC0415  # lazy: only for an import
    from scholar.services.library.reference_import import import_references  # noqa: PLC0415  # lazy, as above

    entries = await off_loop(partial(read_references, text, fmt, field="text", max_entries=MAX_IMPORT_ENTRIES))
    report = await import_references(principal, entries, collection=args.collection or DEFAULT_COLLECTION,
                                     source=fmt)
    outcomes = [ImportedEntry.model_validate(vars(o)) for o in report.outcomes]
    shown, truncated = fit(outcomes[:MAX_ENTRY_OUTCOMES], reserve=RESERVE)
    return LibraryImportResult(
        items=len(entries), added=report.count("added"), updated=report.count("updated"),
        skipped=report.count("skipped"), collection=args.collection, format=fmt, matched=report.count("matched"),
        unmatched=report.count("unmatched"), failed=report.count("failed"), entries=shown,
        truncated=True if truncated or len(outcomes) > MAX_ENTRY_OUTCOMES else None)


async def library_import(args: LibraryImportInput, ctx: CallContext) -> LibraryImportResult:
    if args.text is not None:
        from scholar.services.cite.references import detect_format  # noqa: PLC0415  # lazy, as above

        fmt = args.format or detect_format(args.text)
        if fmt != "jsonl":
            return await _import_references(args, ctx.principal, args.text, fmt)
    elif args.format not in (None, "jsonl"):
        raise InvalidArgumentError(f"format {args.format} is read from text; jsonl and reference hold a snapshot",
                                   field="format")
    return await off_loop(_import, args, ctx.principal)


HANDLERS: dict[str, Handler] = {
    "library_export": library_export,
    "library_import": library_import,
    "library_search": library_search,
}
