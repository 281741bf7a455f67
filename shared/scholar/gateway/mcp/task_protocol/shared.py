"""MCP Tasks served from the TaskTable: the caller's tasks, read and cancelled by the gateway itself.

Both protocol eras (the 2025-11-25 task utility, see ``utility``, and the 2026-07-28
``io.modelcontextprotocol/tasks`` extension, see ``extension``) are views of the same TaskTable
items the polling tools read. Task reads never touch an upstream or a family function: the gateway
reads the table through ``scholar.store.tasks`` (one strongly consistent GetItem per poll) and stops
executions through ``scholar.runtime.executions``. Every read is bound to the caller's principal, so
another caller's task is indistinguishable from an unknown one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import anyio
from mcp import types
from mcp.shared.exceptions import MCPError

from scholar.core.errors import InternalError
from scholar.gateway.mcp.dispatch import envelope_result, success_result
from scholar.gateway.mcp.principal import LOCAL_PRINCIPAL, principal_from_scope

if TYPE_CHECKING:
    from scholar.store.tasks import TaskItem, TaskStore

# The TaskTable and the executions (scholar.store.tasks, scholar.runtime.cancel …) are imported by the first request
# that reads a task, not with the server: `scholar mcp` answers its handshake and tools/list without them.

POLL_INTERVAL_MS = 2000
# A task created for a call that answered at once (task-augmented 2025 call) lives this long by default.
INLINE_TTL_S = 600
INLINE_TTL_BOUNDS_S = (60, 3600)
RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task"
_WIRE_STATUS = {"pending": "working", "running": "working"}


def caller(ctx: Any) -> str:
    """The principal of the request behind ``ctx`` (API Gateway identity, local x-api-key, or ``local``)."""
    scope = getattr(getattr(ctx, "request", None), "scope", None)
    return principal_from_scope(scope) if scope else LOCAL_PRINCIPAL


def not_found(task_id: str) -> MCPError:
    """The protocol error for a task that is unknown, expired, or someone else's (never says which)."""
    return MCPError(
        code=types.INVALID_PARAMS,
        message=f"Failed to retrieve task: no task {task_id} for this caller (unknown, expired, or not yours)",
    )


def _iso(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class TaskView:
    """One TaskTable item as the protocol sees it (era-neutral; each era renders its own wire shape)."""

    item: TaskItem

    @property
    def task_id(self) -> str:
        return self.item.task_id

    @property
    def terminal(self) -> bool:
        from scholar.store.tasks import TERMINAL  # noqa: PLC0415  # with the first task read

        return self.item.status in TERMINAL

    @property
    def status(self) -> str:
        """working | completed | failed | cancelled (pending and running are both ``working`` on the wire)."""
        return _WIRE_STATUS.get(self.item.status, self.item.status)

    @property
    def status_message(self) -> str | None:
        if self.item.status == "cancelled":
            from scholar.runtime.cancel import CANCELLED_MESSAGE  # noqa: PLC0415  # with the first task read

            return CANCELLED_MESSAGE
        if self.item.status == "failed":
            return str((self.item.error or {}).get("message") or "the task failed")
        if self.item.status == "completed":
            return None
        return self.item.progress or "working"

    @property
    def created_at(self) -> str:
        return _iso(self.item.created_at)

    @property
    def last_updated_at(self) -> str:
        return _iso(self.item.updated_at)

    @property
    def ttl_ms(self) -> int:
        """Retention from creation, as the table will honour it (``expires_at`` moves when a task finishes)."""
        # expires_at is whole seconds (DynamoDB TTL): count the started second, so a requested TTL reads back.
        return max(0, math.ceil(self.item.expires_at - self.item.created_at) * 1000)

    @property
    def poll_interval_ms(self) -> int | None:
        return None if self.terminal else POLL_INTERVAL_MS


def _store() -> TaskStore:
    from scholar.store.tasks import TaskStore  # noqa: PLC0415  # with the first task read

    return TaskStore()


async def read_task(task_id: str, principal: str) -> TaskItem | None:
    """The caller's unexpired task, or None (strongly consistent: a just-created task is visible)."""
    def read() -> TaskItem | None:
        from scholar.runtime.reconcile import reconcile  # noqa: PLC0415  # with the first task read

        store = _store()
        item = store.get(task_id, principal)
        return reconcile(store, item) if item is not None else None

    return await anyio.to_thread.run_sync(read)


async def require_task(task_id: str, principal: str) -> TaskItem:
    """The caller's task.

    Raises:
        MCPError: INVALID_PARAMS when the task is unknown, expired or another caller's.
    """
    item = await read_task(task_id, principal)
    if item is None:
        raise not_found(task_id)
    return item


async def list_caller_tasks(principal: str, limit: int) -> list[TaskItem]:
    """The caller's unexpired tasks, newest first (at most ``limit`` read)."""
    return await anyio.to_thread.run_sync(lambda: _store().list(principal, limit=limit))


def _cancel_sync(item: TaskItem) -> TaskItem:
    from scholar.runtime.cancel import cancel  # noqa: PLC0415  # with the first task read
    from scholar.store.tasks import TaskTransitionError  # noqa: PLC0415  # with the first task read

    store = _store()
    if not cancel(store, item):
        raise TaskTransitionError(f"task {item.task_id} has already finished")
    return store.get(item.task_id, item.principal) or item


async def cancel_task(item: TaskItem) -> TaskItem:
    """Cancel an active task: mark it cancelled, then stop its Step Functions execution.

    Raises:
        TaskTransitionError: the task reached a terminal state first (terminal states never change).
    """
    return await anyio.to_thread.run_sync(_cancel_sync, item)


async def tool_result(item: TaskItem) -> types.CallToolResult:
    """The CallToolResult the direct call would have returned, for a completed or failed task."""
    if item.status == "completed":
        result = await anyio.to_thread.run_sync(_store().load_result, item)
        return success_result(result if isinstance(result, dict) else {"result": result})
    return envelope_result(item.error or InternalError("the task failed", retryable=True).envelope_body())


def with_related_task(result: types.CallToolResult, task_id: str) -> types.CallToolResult:
    """The result stamped with the task it belongs to (``_meta`` related-task, 2025-11-25)."""
    meta = dict(result.meta or {})
    meta[RELATED_TASK_META_KEY] = {"taskId": task_id}
    return result.model_copy(update={"meta": meta})


def queued_task_id(result: Any) -> str | None:
    """The task id of a queued answer (``{queued: true, task_id}``), else None."""
    if isinstance(result, types.CallToolResult):
        if result.is_error:
            return None
        structured = result.structured_content
    elif isinstance(result, Mapping):
        if result.get("isError"):
            return None
        structured = result.get("structuredContent")
    else:
        return None
    if isinstance(structured, Mapping) and structured.get("queued") is True and structured.get("task_id"):
        return str(structured["task_id"])
    return None


def inline_ttl_s(requested_ms: int | None) -> int:
    """Retention for a task that finished inline: the requested TTL, kept within our bounds."""
    low, high = INLINE_TTL_BOUNDS_S
    if requested_ms is None:
        return INLINE_TTL_S
    return min(high, max(low, requested_ms // 1000))


def _record_sync(
    principal: str, tool: str, arguments: dict[str, Any], result: types.CallToolResult, ttl_s: int
) -> TaskItem:
    from scholar.runtime.queue import arguments_digest  # noqa: PLC0415  # with the first task read
    from scholar.store.tasks import TaskItem, new_task_id  # noqa: PLC0415  # with the first task read

    store = _store()
    now = time.time()
    item = store.create(
        TaskItem(
            task_id=new_task_id(),
            principal=principal,
            tool=tool,
            status="running",
            arguments_digest=arguments_digest(arguments),
            created_at=now,
            updated_at=now,
            expires_at=int(now) + ttl_s,
            reason="answered_inline",
        )
    )
    structured = result.structured_content or {}
    if result.is_error:
        error = structured.get("error") if isinstance(structured, Mapping) else None
        error = error or InternalError("the tool failed", retryable=True).envelope_body()
        store.transition(item.task_id, "failed", allowed_from=("running",), error=error)
    else:
        # transition() spills results over the inline cap to S3, which create() would not.
        store.transition(item.task_id, "completed", allowed_from=("running",), result=dict(structured))
    return store.get(item.task_id, principal) or item


async def record_inline(
    principal: str, tool: str, arguments: dict[str, Any], result: types.CallToolResult, ttl_s: int
) -> TaskItem:
    """Store a finished call as an already-terminal task of the caller (so tasks/get and tasks/result find it)."""
    return await anyio.to_thread.run_sync(_record_sync, principal, tool, arguments, result, ttl_s)


__all__ = [
    "TaskView",
    "caller",
    "cancel_task",
    "inline_ttl_s",
    "list_caller_tasks",
    "not_found",
    "queued_task_id",
    "read_task",
    "record_inline",
    "require_task",
    "tool_result",
    "with_related_task",
]
