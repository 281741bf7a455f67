"""Running one tool inside its family function: validate, call, translate errors, queue if throttled.

This is the one place a family's errors become the envelope (DESIGN §4). A tool that may queue and
is still rate limited after the retry budget answers with a queued task; inside that task (the retry
state machine sets ``task_id``) it reports ``rate_limited`` instead, and the machine waits and retries.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from functools import cache
from typing import Any

from pydantic import BaseModel, ValidationError

from scholar.core import aio
from scholar.core.aio import off_loop
from scholar.core.catalogue import CallContext, Handler, ToolSpec
from scholar.core.errors import InternalError, InvalidArgumentError, RateLimitedError, ScholarError
from scholar.core.usage_hooks import CallRecord, recording
from scholar.core.validation import validate_arguments
from scholar.runtime.hints import with_family_hint
from scholar.runtime.invocation import Invocation, Outcome
from scholar.runtime.results import dump_result, enforce_cap
from scholar.store.limiter import answer_within
from scholar.store.tasks import TaskStore, TaskTransitionError

logger = logging.getLogger(__name__)

Action = Callable[[dict[str, Any]], dict[str, Any]]
# API Gateway ends a request after ~29 s: an inline call must have answered (or queued) well before that.
INLINE_DEADLINE_S = 24.0


@cache
def _module(family: str) -> Any:
    return importlib.import_module(f"scholar.families.{family}.handlers")


@cache
def _specs(family: str) -> dict[str, ToolSpec]:
    """The family's own tools, read from its spec by name (as its handlers are): never another family's."""
    specs = importlib.import_module(f"scholar.families.{family}.spec").TOOLS
    return {spec.name: spec for spec in specs if spec.family == family}


def handlers(family: str) -> dict[str, Handler]:
    return _module(family).HANDLERS


def actions(family: str) -> dict[str, Action]:
    return getattr(_module(family), "ACTIONS", {})


def _failure(err: ScholarError) -> dict[str, Any]:
    return Outcome(ok=False, error=err.envelope_body()).model_dump(mode="json")


def answering(fn: Callable[[dict[str, Any]], BaseModel]) -> Action:
    """An action that answers as a tool does: ``{"ok": true, "result"}``, or its error as the envelope here.

    For the internal operations the gateway invokes besides tools (e.g. the research function's resource reads):
    the same outcome shape, the same one place where errors become the envelope.
    """

    def action(event: dict[str, Any]) -> dict[str, Any]:
        try:
            result = fn(event)
        except ScholarError as err:
            return _failure(err)
        except Exception:  # the top of a handler: report, never crash the caller
            logger.exception("action %s failed unexpectedly", event.get("action"))
            return _failure(InternalError("an unexpected error occurred; it was logged", retryable=True))
        return Outcome(ok=True, result=dump_result(result)).model_dump(mode="json")

    action.__name__ = getattr(fn, "__name__", "action")
    return action


def dispatch(family: str, event: dict[str, Any]) -> dict[str, Any]:
    """Handle one invocation of a family function and return the outcome as a dict (no Lambda machinery here:
    scholar.entry wraps it for Lambda, and the local backend calls it directly)."""
    if "action" in event:
        action = actions(family).get(str(event["action"]))
        if action is None:
            return _failure(InternalError(f"the {family} function has no action {event['action']!r}"))
        return action(event)
    try:
        invocation = Invocation.model_validate(event)
    except ValidationError:
        return _failure(InternalError("malformed invocation (not a tool call)"))
    # One usage record per tool call, written once the call has ended (scholar.services.health, through
    # scholar.core.usage_hooks).
    with recording(family, invocation.tool, invocation.principal) as call:
        return call.ended(_run(family, invocation, call))


def _run(family: str, invocation: Invocation, call: CallRecord) -> dict[str, Any]:
    try:
        result = aio.run(call.bind(run_tool(family, invocation)))
    except ScholarError as err:
        return _failure(with_family_hint(err, family))
    except Exception:  # the top of a handler: report, never crash the caller
        logger.exception("tool %s failed unexpectedly", invocation.tool)
        return _failure(InternalError("an unexpected error occurred; it was logged", retryable=True))
    return Outcome(ok=True, result=result).model_dump(mode="json")


async def run_tool(family: str, invocation: Invocation) -> dict[str, Any]:
    """Validate and run one tool; returns its JSON result (or a queued answer).

    Raises:
        ScholarError: the tool's typed failure.
    """
    spec = _specs(family).get(invocation.tool)
    handler = handlers(family).get(invocation.tool)
    if spec is None or handler is None:
        raise InvalidArgumentError(f"unknown tool {invocation.tool!r} for the {family} family", field="name")
    args = validate_arguments(spec.input_model, invocation.arguments, tool=spec.name)
    ctx = CallContext(principal=invocation.principal, request_id=invocation.request_id, task_id=invocation.task_id)
    if invocation.task_id:
        _mark_running(invocation.task_id)
    try:
        # Inside a task (the retry machine) there is no gateway waiting: no deadline.
        with answer_within(None if invocation.task_id else INLINE_DEADLINE_S):
            model = await handler(args, ctx)
    except RateLimitedError:
        if not spec.queue_on_rate_limit or invocation.task_id:
            raise
        from scholar.runtime.queue import enqueue_retry  # noqa: PLC0415  # only on the throttled path

        logger.info("queuing %s after the retry budget ran out", spec.name)
        return dump_result(await off_loop(enqueue_retry, spec, invocation, reason="rate_limited"))
    return enforce_cap(spec.name, dump_result(model), spec.max_result_chars)


def _mark_running(task_id: str) -> None:
    try:
        TaskStore().transition(task_id, "running", allowed_from=("pending",), progress="running")
    except TaskTransitionError:
        pass  # already running (a retry round) or finished: the record step decides
