"""One tool call by name, without the MCP layer: the path the gateway's tools/call and the local entry points share.

Validation against the catalogue, the caller bound as the principal, the family run (Lambda or in-process), the
outcome returned. What is visible where (read-only mode, missing credentials) is decided here too, so the command
line and the Python API hide exactly what tools/list hides. Nothing here imports ``mcp``: the command line pays only
for pydantic and the catalogue.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from scholar.core.catalogue import ToolSpec
from scholar.core.catalogue.profiles import POLL_TOOL
from scholar.core.config import Settings, get_settings
from scholar.runtime.progress import report

if TYPE_CHECKING:
    from scholar.runtime.invocation import Outcome

__all__ = ["POLL_STEP_S", "WRITE_TAG", "follow_task", "queued_task", "reachable", "run_tool"]

WRITE_TAG = "write"
POLL_FAMILY = "tasks"  # the family of get_task_result
POLL_STEP_S = 1  # each poll's server-side wait: a progress message at least this often
TERMINAL = frozenset({"completed", "failed", "cancelled"})


def reachable(spec: ToolSpec, settings: Settings) -> bool:
    """Hidden from every listing: write tools in read-only mode and tools whose credentials are missing."""
    if settings.read_only and WRITE_TAG in spec.tags:
        return False
    return all(settings.secrets.has(name) for name in spec.requires)


def run_tool(spec: ToolSpec, arguments: dict[str, Any] | None, principal: str, *,
             inline_wait_s: float | None = None) -> Outcome:
    """Validate ``arguments`` against the tool's input model and run it in its family as ``principal``.

    Blocking (a Lambda invoke or the handler in this thread): async callers run it in a worker thread. Work the tool
    queued is waited for in-line up to ``inline_wait_s`` (default ``SCHOLAR_INLINE_WAIT_S``): usually done in well
    under a second, it is answered as a result, not as ``queued``; longer work stays queued.

    Raises:
        InvalidArgumentError: the arguments break the tool's schema (the field and the rule named).
        InternalError: the family function itself crashed.
    """
    # Imported by the first call: a listing (``reachable``, ``scholar mcp``'s tools/list) needs none of them.
    from scholar.core.validation import validate_arguments  # noqa: PLC0415  # the first call's, as above
    from scholar.runtime.invocation import Invocation  # noqa: PLC0415  # the first call's, as above
    from scholar.runtime.invoke import invoke_family  # noqa: PLC0415  # the first call's, as above

    args = validate_arguments(spec.input_model, arguments, tool=spec.name)
    invocation = Invocation(
        tool=spec.name,
        arguments=args.model_dump(mode="json", exclude_unset=True),
        principal=principal,
        request_id=str(uuid.uuid4()),
    )
    outcome = invoke_family(spec.family, invocation)
    wait_s = get_settings().inline_wait_s if inline_wait_s is None else inline_wait_s
    task_id = queued_task(outcome)
    if task_id is None or wait_s <= 0:
        return outcome
    report(0, None, f"{spec.name}: queued")
    return follow_task(task_id, principal, spec.name, wait_s) or outcome


def queued_task(outcome: Outcome) -> str | None:
    """The task id of a queued answer (``{queued: true, task_id}``), else None."""
    result = outcome.result if outcome.ok else None
    if result and result.get("queued") is True and isinstance(result.get("task_id"), str):
        return str(result["task_id"])
    return None


def follow_task(task_id: str, principal: str, tool: str, wait_s: float | None) -> Outcome | None:
    """Poll the task through get_task_result (``POLL_STEP_S`` each) until it ends, reporting its status message.

    Returns the tool's outcome once the task ended (its result, or its error envelope), or None when ``wait_s``
    (None: no bound) ran out first.
    """
    from scholar.runtime.invocation import Invocation, Outcome  # noqa: PLC0415  # as in run_tool
    from scholar.runtime.invoke import invoke_family  # noqa: PLC0415  # as in run_tool

    until = None if wait_s is None else time.monotonic() + wait_s
    while True:
        left = None if until is None else until - time.monotonic()
        if left is not None and left <= 0:
            return None
        step = POLL_STEP_S if left is None else min(POLL_STEP_S, int(left))
        if step == 0 and left is not None:
            time.sleep(left)  # the last fraction of a second: get_task_result waits whole seconds
        poll = invoke_family(POLL_FAMILY, Invocation(tool=POLL_TOOL, arguments={"task_id": task_id, "wait_s": step},
                                                     principal=principal, request_id=str(uuid.uuid4())))
        answer = poll.result if poll.ok and poll.result else None
        if answer is None:
            return poll  # the poll itself failed: its error is the answer
        status = str(answer.get("status"))
        if status == "completed" and isinstance(answer.get("result"), dict):
            return Outcome(ok=True, result=dict(answer["result"]))
        if status in TERMINAL:
            return Outcome(ok=False, error=answer.get("error") or {
                "code": "internal", "message": f"task {task_id} ended {status} without a result", "retryable": True})
        report(float(answer.get("elapsed_s") or 0), None, f"{tool}: {answer.get('hint') or status}")
