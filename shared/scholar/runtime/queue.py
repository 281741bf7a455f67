"""Queuing a call as a task: the one way to record a TaskTable item and start the work that finishes it.

Every queued answer goes through here (DESIGN §8): the retry of a throttled call (``enqueue_retry``),
the standards catalogue's cold start and full-text conversion, and the PDF and patent PDF pipelines
(``queue_deduplicated``). ``new_task`` builds the item (bound to the caller, with its expiry); ``start_task``
records it where needed, starts the background work, stores the execution ARN, and marks the task failed
when the start itself fails, so a caller never polls a task that nothing will finish.

Deduplication (``queue_deduplicated``): the task id is derived from (principal, job, hour) plus a generation
number, and the TaskTable create is conditional, so concurrent identical requests of one caller find the same
task and start the same execution (named after the task id; starting it twice is a no-op). A finished,
failed or cancelled task moves the next request to the next generation. Different callers get their own
tasks (tasks are bound to the caller).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from scholar.core.catalogue import QueuedResult, ToolSpec
from scholar.core.config import get_settings
from scholar.core.errors import ScholarError, UnavailableError
from scholar.runtime.executions import start_execution
from scholar.runtime.invocation import Invocation
from scholar.runtime.invoke import function_name
from scholar.store.tasks import ACTIVE, TaskItem, TaskStore, TaskTransitionError, new_task_id

# A rate-limited call's task lives 10 minutes after it finishes; the retries may take a while first.
RETRY_TASK_TTL_S = 3600
MAX_ATTEMPTS = 5
# A deduplicated job's task ids are those of its hour; this many runs of one job an hour, at most.
DEDUPE_WINDOW_S = 3600
MAX_GENERATIONS = 8

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
            store.transition(task.task_id, "failed", allowed_from=("pending",), error=err.envelope_body())
        except TaskTransitionError:
            pass  # already moved on (another start of the same task got further)
        raise
    if arn and task.execution_arn is None:
        try:
            store.transition(task.task_id, "pending", allowed_from=("pending",), execution_arn=arn)
        except TaskTransitionError:
            pass  # the work is already on it (its steps record the execution ARN too)
    return QueuedResult(task_id=task.task_id, tool=task.tool, poll_after_s=poll_after_s, reason=task.reason)


def queue_deduplicated(
    machine: str | None,
    payload: dict[str, Any],
    *,
    unconfigured: str,
    prefix: str,
    principal: str,
    tool: str,
    dedupe_key: str,
    ttl_s: int,
    poll_after_s: int,
    exhausted: str,
    store: TaskStore | None = None,
) -> QueuedResult:
    """Create (or find) the caller's task for one job and start its execution on ``machine``.

    Args:
        machine: the state machine's ARN (None: not configured); its input is ``{"task_id", "principal", **payload}``.
        unconfigured: the message when ``machine`` is None, naming the setting.
        payload: the job, as the machine reads it.
        prefix: the task ids' prefix (which kind of job: ``pdf``, ``patpdf``).
        principal: the caller the task is bound to.
        tool: the tool the task answers.
        dedupe_key: what makes two requests the same job (normalised).
        ttl_s: how long the task is readable.
        poll_after_s: the queued answer's hint.
        exhausted: the message when every generation of the hour is used.
        store: the TaskTable (tests).

    Raises:
        UnavailableError: no machine is configured, or every generation of this hour's task is used (retryable
            when the hour turns).
        ScholarError: the execution could not be started (the task is marked failed first).
    """
    if not machine:
        raise UnavailableError(unconfigured)
    store = store or TaskStore()
    now = time.time()
    window = int(now // DEDUPE_WINDOW_S)
    base = hashlib.sha256(f"{principal}\n{dedupe_key}\n{window}".encode()).hexdigest()[:40]
    digest = hashlib.sha256(dedupe_key.encode()).hexdigest()

    def start(item: TaskItem) -> str:
        # Named after the task: a second start of the same name is a no-op (scholar.runtime.executions).
        return start_execution(machine, item.task_id, {"task_id": item.task_id, "principal": item.principal, **payload})

    for generation in range(MAX_GENERATIONS):
        item = new_task(principal=principal, tool=tool, digest=digest, ttl_s=ttl_s, progress="queued",
                        task_id=f"{prefix}{base}g{generation}")
        try:
            store.create(item)
        except TaskTransitionError:
            existing = store.get(item.task_id, principal)
            if existing is None or existing.status not in ACTIVE:
                continue  # finished, failed, cancelled or expired: a new run gets the next generation
            item = existing
        return start_task(item, start, poll_after_s=poll_after_s, store=store, create=False)
    raise UnavailableError(exhausted, retryable=True, retry_after_s=DEDUPE_WINDOW_S - now % DEDUPE_WINDOW_S)


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
