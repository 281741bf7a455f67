"""Queuing a call as a task: the one way to record a TaskTable item and start the work that finishes it.

Every queued answer goes through here (DESIGN §8): the retry of a throttled call (``enqueue_retry``),
the standards catalogue's cold start and full-text conversion, and the PDF pipeline. ``new_task`` builds
the item (bound to the caller, with its expiry); ``start_task`` records it where needed, starts the
background work, stores the execution ARN, and marks the task failed when the start itself fails, so a
caller never polls a task that nothing will finish.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from scholar.catalogue import QueuedResult, ToolSpec
from scholar.config import get_settings
from scholar.errors import ScholarError, UnavailableError
from scholar.runtime.executions import start_execution
from scholar.runtime.invocation import Invocation
from scholar.runtime.invoke import function_name
from scholar.store.tasks import TaskItem, TaskStore, TaskTransitionError, new_task_id

# A rate-limited call's task lives 10 minutes after it finishes; the retries may take a while first.
RETRY_TASK_TTL_S = 3600
MAX_ATTEMPTS = 5

# Starts the background work of a recorded task; returns its execution ARN, or None (an async invocation).
Starter = Callable[[TaskItem], str | None]


def arguments_digest(arguments: dict) -> str:
    return hashlib.sha256(json.dumps(arguments, sort_keys=True).encode()).hexdigest()


def new_task(
    *,
    principal: str,
    tool: str,
    ttl_s: int,
    progress: str,
    arguments: dict[str, Any] | None = None,
    digest: str | None = None,
    reason: str | None = None,
    task_id: str | None = None,
) -> TaskItem:
    """A pending task of ``principal`` for ``tool`` (not stored yet), expiring ``ttl_s`` from now."""
    return TaskItem(
        task_id=task_id or new_task_id(),
        principal=principal,
        tool=tool,
        arguments_digest=digest if digest is not None else arguments_digest(arguments or {}),
        expires_at=int(time.time()) + ttl_s,
        reason=reason,
        progress=progress,
    )


def start_task(
    task: TaskItem, start: Starter, *, poll_after_s: int, store: TaskStore | None = None, create: bool = True
) -> QueuedResult:
    """Record ``task`` (unless ``create`` is False: it exists already) and start its background work.

    Raises:
        ScholarError: the work could not be started (the task is marked failed with that error first).
        TaskTransitionError: ``create`` and a task with this id exists already.
    """
    store = store or TaskStore()
    if create:
        store.create(task)
    try:
        arn = start(task)
    except ScholarError as err:
        try:
            store.transition(task.task_id, "failed", allowed_from=("pending",), error=err.to_envelope()["error"])
        except TaskTransitionError:
            pass  # already moved on (another start of the same task got further)
        raise
    if arn and task.execution_arn is None:
        try:
            store.transition(task.task_id, "pending", allowed_from=("pending",), execution_arn=arn)
        except TaskTransitionError:
            pass  # the work is already on it (its steps record the execution ARN too)
    return QueuedResult(task_id=task.task_id, tool=task.tool, poll_after_s=poll_after_s, reason=task.reason)


def enqueue_retry(spec: ToolSpec, invocation: Invocation, *, reason: str) -> QueuedResult:
    """Record a pending task and start the retry state machine on it.

    Raises:
        UnavailableError: no retry state machine is configured.
    """
    settings = get_settings()
    machine = settings.resources.retry_state_machine_arn
    if not machine:
        raise UnavailableError("background retries are not configured (SCHOLAR_RETRY_STATE_MACHINE_ARN)")
    wait_s = settings.retry_wait_s
    task = new_task(
        principal=invocation.principal,
        tool=spec.name,
        arguments=invocation.arguments,
        ttl_s=RETRY_TASK_TTL_S,
        reason=reason,
        progress="waiting to retry",
    )

    def start(item: TaskItem) -> str:
        return start_execution(
            machine,
            item.task_id,
            {
                "task_id": item.task_id,
                "function_name": function_name(spec.family),
                "tool": spec.name,
                "arguments": invocation.arguments,
                "principal": invocation.principal,
                "request_id": invocation.request_id,
                "wait_s": wait_s,
                "attempt": 1,
                "max_attempts": MAX_ATTEMPTS,
            },
        )

    return start_task(task, start, poll_after_s=max(1, wait_s + 1))
