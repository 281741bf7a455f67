"""The connector tools' handlers: the caller's library and the caller's connection, nobody else's.

library_sync never asks which target it has: the target's registry entry (scholar.services.connectors.registry)
says what it can do, and its connector pushes or pulls. A push the connector calls long (Zotero: more than one
write batch, or PDFs) called directly answers a queued task that runs the same call with a task id (the one queue,
scholar.runtime.queue), and inside a task it records its progress on the task.
"""

from __future__ import annotations

from typing import Any

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
from scholar.runtime.progress import report
from scholar.runtime.queue import enqueue_retry
from scholar.services.connectors.base import Abilities, Connector, Progress, PullJob, PushJob
from scholar.services.connectors.credentials import machine_source
from scholar.services.connectors.outcome import SyncReport
from scholar.services.connectors.registry import REGISTRATIONS, connector
from scholar.store.connections import ConnectionStore, connect_path
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


def _progress(task_id: str | None) -> Progress | None:
    async def note(done: int, total: int) -> None:
        report(done, total, f"library sync: step {done} of {total} done")
        if task_id is None:
            return
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


def _check(abilities: Abilities, args: LibrarySyncInput) -> None:
    """Refuse what the target cannot do, before any request.

    Raises:
        InvalidArgumentError: a direction the target lacks, a missing collection, a target on the caller's own
        computer asked of a hosted server.
    """
    if not abilities.can(args.direction):
        raise InvalidArgumentError(abilities.refusal, field="direction")
    if abilities.needs_collection(args.direction) and not args.collection:
        raise InvalidArgumentError(f"collection is required for a {args.direction} with target {args.target}",
                                   field="collection")
    if abilities.local_only and get_settings().in_lambda:
        raise InvalidArgumentError(f"target {args.target} is on your own computer: a hosted server cannot reach it; "
                                   "run Scholar on that computer", field="target", reason="target_local_only")


async def library_sync(args: LibrarySyncInput, ctx: CallContext) -> LibrarySyncResult | QueuedResult:
    """Push a collection to the target, or pull one (or everything there) into ours."""
    target: Connector[Any] = connector(args.target)
    _check(target.abilities, args)
    if args.direction == "pull":
        job = PullJob(ctx.principal, args.collection, dry_run=args.dry_run)
        return await _noted(ctx.principal, await target.pull(await target.credentials(ctx.principal), job))
    collection = args.collection or ""
    if not any(c.name == collection for c in await LibraryStore(ctx.principal).acollections()):
        raise NotFoundError(f"your library has no collection named {collection!r}", reason="collection_not_found")
    items = await _collection_items(ctx.principal, collection)
    if target.long_push(items) and not args.dry_run and ctx.task_id is None:
        invocation = Invocation(tool=SYNC_TOOL, arguments=args.model_dump(exclude_defaults=True) | {
            "target": args.target}, principal=ctx.principal, request_id=ctx.request_id)
        return await off_loop(enqueue_retry, SYNC_SPEC, invocation, reason="long_sync")
    push = PushJob(ctx.principal, collection, items, dry_run=args.dry_run, progress=_progress(ctx.task_id))
    return await _noted(ctx.principal, await target.push(await target.credentials(ctx.principal), push))


async def _noted(principal: str, report: SyncReport) -> LibrarySyncResult:
    """The answer, the sync noted first (a dry run is not one) so library_connections lists the target."""
    if not report.dry_run and get_settings().resources.connections_table:
        await ConnectionStore(principal).arecord_sync(report.target, report.library, report.direction)
    return _answer(report)


def _to_connect(asked: str | None, active: set[str]) -> str | None:
    """The target a link is issued for: the one asked for, else (the caller having none of them connected) the
    registry's first target with a connect page, Zotero."""
    if asked is not None:
        return asked
    pages = [r.name for r in REGISTRATIONS if r.abilities.connect_page]
    return None if active & set(pages) else pages[0]


async def library_connections(args: LibraryConnectionsInput, ctx: CallContext) -> LibraryConnectionsResult:
    """List the caller's connections, revoke one, or hand out a one-time link to connect one.

    Raises:
        InvalidArgumentError: ``connect`` asked of a server without a connect page (one machine, or no public URL).
    """
    settings = get_settings()
    store = ConnectionStore(ctx.principal)
    hosted = bool(settings.resources.connections_table)
    public = settings.oauth.public_url
    if args.connect is not None and not (hosted and public):
        raise InvalidArgumentError(f"this server has no connect page: connect {args.connect} where Scholar runs "
                                   "(its settings or the OS keyring, docs/connectors.md)", field="connect",
                                   reason="no_connect_page")
    removed = await store.arevoke(args.remove) if args.remove is not None else None
    connections = await store.awith_syncs(await store.aconnections()) if hosted else []
    active = {c.target for c in connections if c.status == "active"}
    target = _to_connect(args.connect, active) if hosted and public else None
    # A one-time link for this caller and this target only: the key is typed on our page, never into the chat.
    connect_url = f"{public}{connect_path(target)}?t={await store.aissue_link(target)}" if target else None
    return LibraryConnectionsResult(connections=connections, removed=removed, connect_url=connect_url,
                                    machine=None if settings.in_lambda else await machine_source())


HANDLERS: dict[str, Handler] = {
    SYNC_TOOL: library_sync,
    CONNECTIONS_TOOL: library_connections,
}
