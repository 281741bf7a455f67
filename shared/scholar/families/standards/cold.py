"""The cold catalogue: before the first sync has published anything, a call starts the sync and gets a task.

The task is created here (TaskTable, bound to the caller); the sync function runs the original call once
the catalogue exists and stores its answer in the task, which get_task_result then returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scholar.core.catalogue import CallContext, QueuedResult
from scholar.core.errors import UnavailableError
from scholar.runtime.invoke import invoke_function_async
from scholar.runtime.queue import new_task, start_task
from scholar.store.tasks import TaskItem

COLD_TASK_TTL_S = 3600
POLL_AFTER_S = 30
REASON = "cold_catalogue"
SYNC_FUNCTION = "standards_sync"

SyncStarter = Callable[[dict[str, Any]], None]
_starter: SyncStarter | None = None


def set_sync_starter(starter: SyncStarter | None) -> None:
    """Use another way to start the sync in the background (tests, the local stack); None restores the default."""
    global _starter
    _starter = starter


def _default_starter(payload: dict[str, Any]) -> None:
    invoke_function_async(SYNC_FUNCTION, payload)


def start_sync(payload: dict[str, Any]) -> None:
    """Start a sync in the background with ``payload`` (e.g. ``{"bodies": ["ISO"]}``;
    scholar.families.standards.retry)."""
    (_starter or _default_starter)(payload)


def start_cold_sync(tool: str, arguments: dict[str, Any], ctx: CallContext) -> QueuedResult:
    """Record a task for this call and start the sync that will answer it.

    Raises:
        UnavailableError: already inside a task (the sync ran and still produced no catalogue), or no way
            to start the sync.
    """
    if ctx.task_id:
        raise UnavailableError(
            "the standards catalogue could not be built; get_sync_status shows why",
            retryable=True,
            hint="Call get_sync_status for the failing bodies, then retry later.",
        )
    task = new_task(principal=ctx.principal, tool=tool, arguments=arguments, ttl_s=COLD_TASK_TTL_S, reason=REASON,
                    progress="building the standards catalogue")

    def start(item: TaskItem) -> None:
        payload = {
            "source": "scholar.families.standards",
            "task": {
                "task_id": item.task_id,
                "tool": tool,
                "arguments": arguments,
                "principal": ctx.principal,
                "request_id": ctx.request_id,
            },
        }
        (_starter or _default_starter)(payload)

    return start_task(task, start, poll_after_s=POLL_AFTER_S)
