"""Queuing a call as a task: a TaskTable item plus a retry execution that finishes it (DESIGN §8)."""

from __future__ import annotations

import hashlib
import json
import time

from scholar.catalogue import QueuedResult, ToolSpec
from scholar.config import get_settings
from scholar.errors import UnavailableError
from scholar.runtime.executions import start_execution
from scholar.runtime.invocation import Invocation
from scholar.runtime.invoke import function_name
from scholar.store.tasks import TaskItem, TaskStore, new_task_id

# A rate-limited call's task lives 10 minutes after it finishes; the retries may take a while first.
RETRY_TASK_TTL_S = 3600
MAX_ATTEMPTS = 5


def arguments_digest(arguments: dict) -> str:
    return hashlib.sha256(json.dumps(arguments, sort_keys=True).encode()).hexdigest()


def enqueue_retry(spec: ToolSpec, invocation: Invocation, *, reason: str) -> QueuedResult:
    """Record a pending task and start the retry state machine on it.

    Raises:
        UnavailableError: no retry state machine is configured.
    """
    settings = get_settings()
    machine = settings.resources.retry_state_machine_arn
    if not machine:
        raise UnavailableError("background retries are not configured (SCHOLAR_RETRY_STATE_MACHINE_ARN)")
    store = TaskStore()
    task_id = new_task_id()
    store.create(
        TaskItem(
            task_id=task_id,
            principal=invocation.principal,
            tool=spec.name,
            arguments_digest=arguments_digest(invocation.arguments),
            expires_at=int(time.time()) + RETRY_TASK_TTL_S,
            reason=reason,
            progress="waiting to retry",
        )
    )
    wait_s = settings.retry_wait_s
    arn = start_execution(
        machine,
        task_id,
        {
            "task_id": task_id,
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
    store.transition(task_id, "pending", allowed_from=("pending",), execution_arn=arn)
    return QueuedResult(task_id=task_id, tool=spec.name, poll_after_s=max(1, wait_s + 1), reason=reason)
