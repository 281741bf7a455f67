"""The StandardsSyncFunction's work: one sync per event, then the cold-start task that asked for it, if any.

Events: an EventBridge Scheduler event (any payload; all bodies), an on-demand ``{"bodies": ["ISO"]}``, or
the cold path's ``{"task": {...}}`` (scholar.families.standards.cold) whose tool call is answered once the
catalogue exists.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scholar.core import aio
from scholar.core.catalogue import CallContext
from scholar.core.errors import InvalidArgumentError, ScholarError
from scholar.core.validation import invalid_argument
from scholar.families.standards import service
from scholar.families.standards.bodies import Limits
from scholar.families.standards.handlers import HANDLERS
from scholar.families.standards.records import BODIES
from scholar.families.standards.spec import TOOLS
from scholar.families.standards.sync import run_sync
from scholar.runtime.outcome import finish_task
from scholar.store.tasks import TaskStore

logger = logging.getLogger(__name__)

# Leave this much of the Lambda's time for building and uploading the catalogue after the fetches.
PUBLISH_RESERVE_S = 120.0
DEFAULT_RUN_S = 600.0
COMPLETED_TASK_TTL_S = 3600


class ColdTask(BaseModel):
    task_id: str = Field(min_length=1, max_length=100)
    tool: str = Field(min_length=1, max_length=100)
    arguments: dict[str, Any] = Field(default_factory=dict)
    principal: str = Field(min_length=1, max_length=200)
    request_id: str = Field(default="", max_length=200)


class SyncEvent(BaseModel):
    """What the sync function accepts; scheduler payloads carry other fields, which are ignored."""

    model_config = ConfigDict(extra="ignore")
    bodies: list[str] | None = None
    task: ColdTask | None = None


def handle_sync_event(event: dict[str, Any], remaining_s: float | None = None) -> dict[str, Any]:
    """Run one sync for ``event`` and answer the cold-start task it carries; return a JSON summary."""
    parsed = SyncEvent.model_validate(event or {})
    bodies = tuple(b for b in (parsed.bodies or BODIES) if b in BODIES) or BODIES
    budget = (remaining_s - PUBLISH_RESERVE_S) if remaining_s else DEFAULT_RUN_S
    limits = Limits(deadline=time.monotonic() + max(30.0, budget))
    report = aio.run(run_sync(bodies, limits=limits))
    summary = {
        "published": report.published,
        "version": report.pointer.version if report.pointer else None,
        "runs": [run.model_dump(mode="json") for run in report.runs],
    }
    if parsed.task is not None:
        summary["task"] = _answer(parsed.task)
    return summary


def _answer(task: ColdTask) -> str:
    """Run the waiting call against the new catalogue and store its answer (or its error) in the task."""
    service.holder().reset()
    store = TaskStore()
    ctx = CallContext(principal=task.principal, request_id=task.request_id, task_id=task.task_id)
    spec = next((t for t in TOOLS if t.name == task.tool), None)
    try:
        if spec is None:
            raise InvalidArgumentError(f"unknown standards tool {task.tool!r}", field="name")
        try:
            args = spec.input_model.model_validate(task.arguments)
        except ValidationError as exc:
            raise invalid_argument(exc, tool=spec.name) from exc
        result = aio.run(HANDLERS[spec.name](args, ctx)).model_dump(mode="json", by_alias=True)
    except ScholarError as err:
        return _finish(store, task.task_id, "failed", error=err.envelope_body())
    return _finish(store, task.task_id, "completed", result=result)


def _finish(store: TaskStore, task_id: str, status: str, **outcome: Any) -> str:
    """Record the task's end by the one rule (scholar.runtime.outcome); ``status`` says which was meant."""
    if not finish_task(store, task_id, allowed_from=("pending", "running"),
                       expires_at=int(time.time()) + COMPLETED_TASK_TTL_S, **outcome):
        logger.info("task %s was already finished or cancelled", task_id)
        return "unchanged"
    return "failed" if outcome.get("error") is not None or not outcome.get("result") else status
