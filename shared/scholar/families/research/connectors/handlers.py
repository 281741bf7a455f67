"""The connector tools' handlers: the caller's library and the caller's connection, nobody else's.

A push of more than one write batch, or one that sends PDFs, is long (each PDF is three requests, and Zotero may
ask us to back off): called directly, it answers a queued task that runs the same call with a task id (the one
queue, scholar.runtime.queue), and inside a task it records its progress on the task.
"""

from __future__ import annotations

from scholar.core.aio import off_loop
from scholar.core.budget import fit_field
from scholar.core.catalogue import CallContext, Handler, QueuedResult
from scholar.core.config import get_settings
from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.families.research.connectors.spec import (
    CONNECTIONS_TOOL,
    MAX_RESULTS,
    SYNC_SPEC,
    SYNC_TOOL,
    LibraryConnectionsInput,
    LibraryConnectionsResult,
    LibrarySyncInput,
    LibrarySyncResult,
)
from scholar.runtime.invocation import Invocation
from scholar.runtime.queue import enqueue_retry
from scholar.services.connectors.credentials import machine_source, zotero_library
from scholar.services.connectors.file_targets import pull_bibtex, push_bibtex, push_obsidian
from scholar.services.connectors.outcome import SyncReport
from scholar.services.connectors.zotero_pull import pull
from scholar.services.connectors.zotero_push import push
from scholar.sources.zotero import BATCH, LOCAL, ZoteroClient
from scholar.store.blobs import BlobStore
from scholar.store.connections import CONNECT_PATH, ConnectionStore
from scholar.store.library.models import LibraryItem
from scholar.store.library.table import LibraryStore
from scholar.store.tasks import TaskStore, TaskTransitionError


async def _collection_items(principal: str, collection: str) -> list[LibraryItem]:
    store = LibraryStore(principal)
    items: list[LibraryItem] = []
    cursor: str | None = None
    while True:
        page, cursor = await off_loop(store.list_items, collection=collection, limit=100, cursor=cursor)
        items += page
        if cursor is None:
            return items


async def _read_pdf(reference: str) -> bytes | None:
    return await BlobStore().aget(reference)


def _progress(task_id: str | None):  # noqa: ANN202  # a closure or None, typed by push's Progress
    if task_id is None:
        return None

    async def note(done: int, total: int) -> None:
        try:
            await off_loop(TaskStore().transition, task_id, "running", allowed_from=("running",),
                           progress=f"push: step {done} of {total} done")
        except TaskTransitionError:
            return  # cancelled or finished meanwhile: the task's own state wins

    return note


def _answer(report: SyncReport) -> LibrarySyncResult:
    """The report with its first MAX_RESULTS outcomes, fewer when their titles and messages pass the size budget."""
    result = LibrarySyncResult.model_validate(report.model_dump())
    if len(result.results) > MAX_RESULTS:
        result.results, result.truncated = result.results[:MAX_RESULTS], True
    return fit_field(result, "results", flag="truncated")[0]


async def library_sync(args: LibrarySyncInput, ctx: CallContext) -> LibrarySyncResult | QueuedResult:
    """Push a collection to Zotero, or pull one (or the whole library) into ours."""
    items: list[LibraryItem] = []
    if args.target in ("bibtex", "obsidian"):
        return _answer(await _file_sync(args, ctx))
    if args.direction == "push":
        if args.target == LOCAL:
            raise InvalidArgumentError("target zotero_local is read-only (the desktop's local API): push with "
                                       "target zotero", field="target")
        if not args.collection:
            raise InvalidArgumentError("collection is required for a push", field="collection")
        if not any(c.name == args.collection for c in await LibraryStore(ctx.principal).acollections()):
            raise NotFoundError(f"your library has no collection named {args.collection!r}",
                                reason="collection_not_found")
        items = await _collection_items(ctx.principal, args.collection)
        long_push = len(items) > BATCH or any(i.pdfs for i in items)
        if long_push and not args.dry_run and ctx.task_id is None:
            invocation = Invocation(tool=SYNC_TOOL, arguments=args.model_dump(exclude_defaults=True) | {
                "target": args.target}, principal=ctx.principal, request_id=ctx.request_id)
            return await off_loop(enqueue_retry, SYNC_SPEC, invocation, reason="long_sync")
    client = ZoteroClient(await zotero_library(ctx.principal, args.target))
    store = ConnectionStore(ctx.principal)
    if args.direction == "push":
        report = await push(client, store, items, args.collection or "", dry_run=args.dry_run,
                            read_file=_read_pdf, progress=_progress(ctx.task_id))
    else:
        into = args.collection or "zotero"
        report = await pull(client, store, LibraryStore(ctx.principal), args.collection, into=into,
                            dry_run=args.dry_run)
    return _answer(report)


async def _file_sync(args: LibrarySyncInput, ctx: CallContext) -> SyncReport:
    if not args.collection:
        raise InvalidArgumentError(f"collection is required for target {args.target}", field="collection")
    if args.direction == "pull":
        if args.target == "obsidian":
            raise InvalidArgumentError("target obsidian is push only (the notes are yours to edit)", field="direction")
        return await pull_bibtex(ctx.principal, args.collection, dry_run=args.dry_run)
    items = await _collection_items(ctx.principal, args.collection)
    if not items:
        raise NotFoundError(f"your collection {args.collection!r} holds no items", reason="collection_not_found")
    write = push_bibtex if args.target == "bibtex" else push_obsidian
    return await write(ctx.principal, items, args.collection, dry_run=args.dry_run)


async def library_connections(args: LibraryConnectionsInput, ctx: CallContext) -> LibraryConnectionsResult:
    """List the caller's connections, or revoke one."""
    settings = get_settings()
    store = ConnectionStore(ctx.principal)
    removed = await store.arevoke(args.remove) if args.remove is not None else None
    hosted = bool(settings.resources.connections_table)
    connections = await store.aconnections() if hosted else []
    public = settings.oauth.public_url
    connect_url = None
    if hosted and public and not any(c.target == "zotero" and c.status == "active" for c in connections):
        # A one-time link for this caller only: the key is typed on our page, never into the chat.
        connect_url = f"{public}{CONNECT_PATH}?t={await store.aissue_link()}"
    return LibraryConnectionsResult(connections=connections, removed=removed, connect_url=connect_url,
                                    machine=None if settings.in_lambda else await machine_source())


HANDLERS: dict[str, Handler] = {
    SYNC_TOOL: library_sync,
    CONNECTIONS_TOOL: library_connections,
}
