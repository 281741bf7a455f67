"""How every background task ends: the one rule for task results, whichever tool or state machine ran it.

A task ends ``completed`` only with the tool's own answer, which never holds an error envelope; anything
that did not give what the tool is for ends ``failed`` with the envelope body (``code``, ``message``,
``retryable`` …), where ``details`` may carry what was obtained on the way. get_task_result and the MCP
tasks result read exactly this, so a failure can never be read as a success that happens to contain one.
"""

from __future__ import annotations

import json
from typing import Any

from scholar.core.errors import InternalError, ScholarError, from_envelope
from scholar.store.tasks import TaskStore, TaskTransitionError

_EMPTY = "the task ended without an answer; try the call again, and report the task id if it keeps happening"


def task_error(error: dict[str, Any]) -> dict[str, Any]:
    """The envelope body of ``error`` (an envelope or its body) with code, message and retryable always set."""
    body = dict(error.get("error", error))
    body.setdefault("code", "internal")
    body.setdefault("message", _EMPTY)
    if not isinstance(body.get("retryable"), bool):
        body["retryable"] = from_envelope({"code": body["code"]}).retryable  # the code's own default
    return body


def finish_task(
    store: TaskStore,
    task_id: str,
    *,
    result: dict[str, Any] | None = None,
    error: dict[str, Any] | None = None,
    allowed_from: tuple[str, ...],
    expires_at: int | None = None,
    progress: str | None = None,
) -> bool:
    """Record a task's end: ``failed`` with ``error``, else ``completed`` with ``result``.

    A result that is itself an error envelope (``{"error": {...}}``), or no result at all, fails the task:
    a completed task always holds a real answer.

    Returns:
        True when recorded; False when the task had already left ``allowed_from`` (cancelled, finished).
    """
    if error is None and isinstance(result, dict) and isinstance(result.get("error"), dict) and len(result) == 1:
        error = result["error"]
    if error is None and not result:
        error = InternalError(_EMPTY, retryable=True).envelope_body()
    try:
        if error is not None:
            store.transition(task_id, "failed", allowed_from=allowed_from, error=task_error(error),
                             expires_at=expires_at, progress=progress)
        else:
            store.transition(task_id, "completed", allowed_from=allowed_from, result=result,
                             expires_at=expires_at, progress=progress)
    except TaskTransitionError:
        return False
    return True


class StepError(Exception):
    """A transient state machine step failure; its message is the error envelope body as JSON.

    The machines' Retry and Catch name it (``"StepError"``); their finish step reads it back (``step_failure``).
    """

    def __init__(self, err: ScholarError) -> None:
        super().__init__(json.dumps(err.envelope_body()))


def step_failure(failure: dict[str, Any], *, machine: str) -> dict[str, Any]:
    """The envelope body of a state machine step that raised (Retry exhausted), from its Catch's ``Cause``.

    A step raises ``StepError`` with the envelope body as its message; anything else is an internal failure.
    """
    try:
        cause = json.loads(failure.get("Cause") or "{}")
        body = json.loads(cause.get("errorMessage") or "")
        if isinstance(body, dict) and "code" in body:
            return body
    except (TypeError, ValueError):
        pass
    return InternalError(
        f"a step of the {machine} failed; try again, and report the task id if it keeps failing", retryable=True
    ).envelope_body()
