"""Slow full text as a task: get_standard on an unconverted PDF answers with a task, converted in the background.

The task is created here (TaskTable, bound to the caller) and the standards function is invoked
asynchronously with the action ``convert_full_text``, which runs the very same get_standard call inside the
task: the PDF is downloaded, converted and stored (scholar.families.standards.fulltext), and the call's answer (the
record with a text page, or with ``full_text_error``) becomes the task's result. get_task_result therefore
returns what a direct call would have; later pages are cut from the stored text and answer directly.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from scholar.core import aio
from scholar.core.catalogue import CallContext, QueuedResult
from scholar.core.errors import InternalError, ScholarError
from scholar.core.validation import invalid_argument
from scholar.families.standards.spec import GetStandardInput
from scholar.runtime.invoke import invoke_function_async
from scholar.runtime.queue import new_task, start_task
from scholar.store.tasks import ACTIVE, TaskItem, TaskStore, TaskTransitionError

logger = logging.getLogger(__name__)

ACTION = "convert_full_text"
FAMILY = "standards"
TOOL = "get_standard"
REASON = "converting_full_text"
TASK_TTL_S = 3600  # like the PDF family's tasks: an hour from creation, then from completion
POLL_AFTER_S = 10

Starter = Callable[[dict[str, Any]], None]
GetStandard = Callable[[GetStandardInput, CallContext], Coroutine[Any, Any, BaseModel]]
_starter: Starter | None = None


class ConversionTask(BaseModel):
    """The waiting get_standard call, as the action receives it."""

    task_id: str = Field(min_length=1, max_length=100)
    arguments: dict[str, Any] = Field(default_factory=dict)
    principal: str = Field(min_length=1, max_length=200)
    request_id: str = Field(default="", max_length=200)


def set_conversion_starter(starter: Starter | None) -> None:
    """Use another way to start the background conversion (tests); None restores the async Lambda invoke."""
    global _starter
    _starter = starter


def _default_starter(payload: dict[str, Any]) -> None:
    invoke_function_async(FAMILY, payload)


def queue_conversion(args: GetStandardInput, ctx: CallContext) -> QueuedResult:
    """Record a task for this get_standard call and start its conversion in the background.

    Raises:
        UnavailableError: no task table is configured.
        ScholarError: the background invocation could not be started (the task is marked failed).
    """
    arguments = args.model_dump(mode="json")
    task = new_task(principal=ctx.principal, tool=TOOL, arguments=arguments, ttl_s=TASK_TTL_S, reason=REASON,
                    progress="downloading and converting the full text")

    def start(item: TaskItem) -> None:
        payload = {
            "action": ACTION,
            "task": ConversionTask(
                task_id=item.task_id, arguments=arguments, principal=ctx.principal, request_id=ctx.request_id
            ).model_dump(),
        }
        (_starter or _default_starter)(payload)

    return start_task(task, start, poll_after_s=POLL_AFTER_S)


def answer_task(event: dict[str, Any], get_standard: GetStandard) -> dict[str, Any]:
    """The ``convert_full_text`` action: run the waiting call inside its task and record the answer.

    Returns:
        ``{"task": <final status or "unchanged">}`` (the async invocation's result is only logged).
    """
    task = ConversionTask.model_validate(event.get("task") or {})
    store = TaskStore()
    try:
        store.transition(task.task_id, "running", allowed_from=("pending",), progress="converting the full text")
    except TaskTransitionError:
        logger.info("task %s is no longer pending (cancelled or a repeated invocation)", task.task_id)
        return {"task": "unchanged"}
    ctx = CallContext(principal=task.principal, request_id=task.request_id, task_id=task.task_id)
    try:
        try:
            args = GetStandardInput.model_validate(task.arguments)
        except ValidationError as exc:
            raise invalid_argument(exc, tool=TOOL) from exc
        result = aio.run(get_standard(args, ctx)).model_dump(mode="json", by_alias=True)
    except ScholarError as err:
        return {"task": _finish(store, task.task_id, "failed", error=err.envelope_body())}
    except Exception:  # the top of an action: a crash must still finish the task the caller polls
        logger.exception("full-text conversion task %s failed unexpectedly", task.task_id)
        crash = InternalError("the conversion failed unexpectedly; it was logged", retryable=True)
        return {"task": _finish(store, task.task_id, "failed", error=crash.envelope_body())}
    return {"task": _finish(store, task.task_id, "completed", result=result)}


def _finish(store: TaskStore, task_id: str, status: str, **outcome: Any) -> str:
    try:
        store.transition(
            task_id, status, allowed_from=ACTIVE, expires_at=int(time.time()) + TASK_TTL_S, progress="done", **outcome
        )
    except TaskTransitionError:
        logger.info("task %s was cancelled meanwhile; outcome not recorded", task_id)
        return "unchanged"
    return status
