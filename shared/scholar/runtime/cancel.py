"""Cancelling a task: one rule for every caller (MCP tasks/cancel, the PDF family, tests).

Timeline guarded: the task is marked cancelled first, so the execution's own finisher finds a terminal
task and drops its late outcome; only then is the execution stopped.
"""

from __future__ import annotations

import logging

from botocore.exceptions import ClientError

from scholar.runtime.executions import stop_execution
from scholar.store.tasks import ACTIVE, TaskItem, TaskStore, TaskTransitionError

logger = logging.getLogger(__name__)
CANCELLED_MESSAGE = "cancelled by the caller"


def cancel(store: TaskStore, task: TaskItem) -> bool:
    """Cancel an active task; False when it had already finished (terminal states never change)."""
    try:
        store.transition(task.task_id, "cancelled", allowed_from=ACTIVE, progress=CANCELLED_MESSAGE)
    except TaskTransitionError:
        return False
    if task.execution_arn:
        try:
            stop_execution(task.execution_arn, cause=CANCELLED_MESSAGE)
        except ClientError:
            # The task is cancelled for the caller and its outcome can no longer land; log only.
            logger.exception("stopping the execution of a cancelled task failed")
    return True
