"""A task whose execution died without recording an outcome is failed, not pending forever.

Used wherever a task is read (the polling tools and the gateway's MCP Tasks handlers).
"""

from __future__ import annotations

from botocore.exceptions import ClientError

from scholar.core.errors import InternalError, ScholarError
from scholar.runtime.executions import describe_execution
from scholar.store.tasks import TERMINAL, TaskItem, TaskStore, TaskTransitionError

_DEAD_EXECUTIONS = {"FAILED", "TIMED_OUT", "ABORTED"}


def reconcile(store: TaskStore, task: TaskItem) -> TaskItem:
    """The task as it truly stands: failed when its execution ended without a recorded outcome."""
    if task.status in TERMINAL or not task.execution_arn:
        return task
    try:
        status = describe_execution(task.execution_arn)["status"]
    except ClientError:
        return task
    if status not in _DEAD_EXECUTIONS:
        return task
    error = InternalError(f"the background execution ended as {status}", retryable=True).envelope_body()
    try:
        store.transition(task.task_id, "failed", allowed_from=("pending", "running"), error=error)
    except TaskTransitionError:
        pass  # finished meanwhile (or cancelled): the stored state wins
    except ScholarError:  # the store cannot record it now (e.g. a full disk): the task is answered failed all the same
        return task.model_copy(update={"status": "failed", "error": error})
    return store.get(task.task_id, task.principal) or task
