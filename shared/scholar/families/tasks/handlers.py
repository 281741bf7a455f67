"""Task tools and the ``record_outcome`` action the retry state machine calls to finish a task."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from scholar.core.aio import off_loop
from scholar.core.catalogue import CallContext, Handler
from scholar.core.errors import InternalError, NotFoundError
from scholar.families.tasks.spec import GetTaskResultInput, ListTasksInput, TaskList, TaskResult, TaskSummary
from scholar.runtime.invocation import Outcome
from scholar.runtime.outcome import finish_task
from scholar.runtime.reconcile import reconcile
from scholar.store.tasks import TERMINAL, TaskItem, TaskStore

logger = logging.getLogger(__name__)

# A finished task stays readable this long (DESIGN §5: 10 min for rate-limited retries).
FINISHED_TTL_S = 600
# How often a waiting get_task_result reads the task again (one strongly consistent read each).
WAIT_STEP_S = 0.25


def _elapsed(task: TaskItem) -> float:
    end = task.updated_at if task.status in TERMINAL else time.time()
    return round(max(0.0, end - task.created_at), 3)


async def get_task_result(args: GetTaskResultInput, ctx: CallContext) -> TaskResult:
    store = TaskStore()
    task = await store.aget(args.task_id, ctx.principal)
    if task is None:
        raise NotFoundError(
            f"no task {args.task_id} for this caller (unknown, expired, or started by someone else)",
            hint="Task results expire; start the call again.",
        )
    task = await off_loop(reconcile, store, task)
    until = time.monotonic() + args.wait_s
    # Asked to wait: read the task again until it finishes or the wait is over (one poll instead of several).
    while task.status not in TERMINAL and (left := until - time.monotonic()) > 0:
        await asyncio.sleep(min(WAIT_STEP_S, left))
        task = await off_loop(reconcile, store, await store.aget(args.task_id, ctx.principal) or task)
    running = task.status not in TERMINAL
    return TaskResult(
        task_id=task.task_id,
        status=task.status,
        tool=task.tool,
        elapsed_s=_elapsed(task),
        result=await store.aload_result(task) if task.status == "completed" else None,
        error=task.error if task.status in ("failed", "cancelled") else None,
        hint=(task.progress or "working") if running else None,
        poll_after_s=2 if running else None,
    )


async def list_tasks(args: ListTasksInput, ctx: CallContext) -> TaskList:
    tasks = await TaskStore().alist(ctx.principal, limit=args.limit)
    summaries = [
        TaskSummary(task_id=t.task_id, status=t.status, tool=t.tool, created_at=t.created_at, elapsed_s=_elapsed(t))
        for t in tasks
    ]
    return TaskList(tasks=summaries, total=len(summaries))


def record_outcome(event: dict[str, Any]) -> dict[str, Any]:
    """Finish a task with the outcome of its last attempt (called by the retry state machine).

    The rule of scholar.runtime.outcome applies: an error outcome (or an answer that is an error envelope)
    fails the task, so a completed task always holds the tool's answer.
    """
    task_id = str(event["task_id"])
    outcome = Outcome.model_validate(event.get("outcome") or {"ok": False})
    expires = int(time.time()) + FINISHED_TTL_S
    error = None
    if not outcome.ok:
        error = outcome.error or InternalError("the task failed", retryable=True).envelope_body()
    if not finish_task(TaskStore(), task_id, result=outcome.result if outcome.ok else None, error=error,
                       allowed_from=("pending", "running"), expires_at=expires):
        logger.info("task %s was already finished; outcome ignored", task_id)
        return {"recorded": False}
    return {"recorded": True}


HANDLERS: dict[str, Handler] = {
    "get_task_result": get_task_result,
    "get_job_result": get_task_result,
    "list_tasks": list_tasks,
}
ACTIONS = {"record_outcome": record_outcome}
