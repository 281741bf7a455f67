"""Calling tools by name on this machine, as principal ``local``: what the command line and the Python API share.

Every call takes the gateway's path below the MCP layer (``scholar.runtime.calls.run_tool``: validation against the
catalogue, the family run, the error envelope). A result is the dict tools/call returns as ``structuredContent``; an
error envelope is raised as the ``ScholarError`` of its code. A queued answer (``{queued: true, task_id}``) is
polled through ``get_task_result`` with its server-side wait (no sleeping here) until the task ends, reporting each
poll to an optional observer. Progress (``scholar.runtime.progress``) goes to ``on_progress`` when given (the
command line's bar, the Python API's callback): each step of the work, and the task's status while it is polled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scholar.core.catalogue import POLL_TOOL, ToolSpec
from scholar.core.config import get_settings
from scholar.core.content import split_extra_content
from scholar.core.errors import InternalError, InvalidArgumentError, from_envelope
from scholar.families import all_tools, get_tool
from scholar.runtime.calls import POLL_STEP_S, reachable, run_tool
from scholar.runtime.progress import Reporter, report, reporting

__all__ = ["LOCAL_PRINCIPAL", "POLL_WAIT_S", "Progress", "call", "local_tools"]

LOCAL_PRINCIPAL = "local"  # the one caller of a machine's own entry points (as the local HTTP server without a key)
POLL_WAIT_S = POLL_STEP_S  # each poll's server-side wait: the task's status at least this often
TERMINAL = frozenset({"completed", "failed", "cancelled"})
# Told after each poll of a queued task: the task's status answer (status, elapsed_s, hint).
Progress = Callable[[dict[str, Any]], None]


def local_tools() -> dict[str, ToolSpec]:
    """The tools this machine offers: the catalogue less what tools/list hides here (read-only mode, keys)."""
    settings = get_settings()
    return {name: spec for name, spec in all_tools().items() if reachable(spec, settings)}


def call(name: str, arguments: dict[str, Any] | None = None, *, wait: bool = True,
         progress: Progress | None = None, on_progress: Reporter | None = None) -> dict[str, Any]:
    """Run tool ``name`` as ``local`` and return its result dict.

    Args:
        name: the tool's catalogue name (``get_paper``).
        arguments: its arguments, as JSON values.
        wait: poll a queued answer to its end (``False``: return the queued answer itself).
        progress: called with each poll's answer while waiting.
        on_progress: told each progress step (``scholar.runtime.progress.Step``): the work's, then the task's.

    Raises:
        ScholarError: the tool's error envelope, as the error of its code (a failed task's too).
    """
    spec = get_tool(name)
    if spec is None or name not in local_tools():
        raise InvalidArgumentError(f"unknown tool {name!r}; `scholar --help` lists the tools", field="name")
    if on_progress is None:
        return _call(spec, arguments, wait, progress)
    with reporting(on_progress):
        return _call(spec, arguments, wait, progress)


def _call(spec: ToolSpec, arguments: dict[str, Any] | None, wait: bool, progress: Progress | None) -> dict[str, Any]:
    result = _result(spec, arguments)
    if not (wait and result.get("queued") is True and isinstance(result.get("task_id"), str)):
        return result
    report(0, None, f"{spec.name}: queued")
    return _wait_for(result["task_id"], progress)


def _result(spec: ToolSpec, arguments: dict[str, Any] | None) -> dict[str, Any]:
    outcome = run_tool(spec, arguments, LOCAL_PRINCIPAL)
    if not outcome.ok or outcome.result is None:
        raise from_envelope(outcome.error) if outcome.error else InternalError(
            "the tool gave no result", retryable=True)
    result, _extra = split_extra_content(outcome.result)  # image and link blocks belong to MCP content only
    return result


def _wait_for(task_id: str, progress: Progress | None) -> dict[str, Any]:
    poll = all_tools()[POLL_TOOL]
    while True:
        answer = _result(poll, {"task_id": task_id, "wait_s": POLL_WAIT_S})
        if progress is not None:
            progress(answer)
        if answer.get("status") not in TERMINAL:
            report(float(answer.get("elapsed_s") or 0), None,
                   f"{answer.get('tool', 'task')}: {answer.get('hint') or answer.get('status')}")
        if answer.get("status") not in TERMINAL:
            continue
        if answer.get("status") == "completed" and isinstance(answer.get("result"), dict):
            return dict(answer["result"])
        raise from_envelope(answer.get("error") or {
            "code": "internal", "message": f"task {task_id} ended {answer.get('status')} without a result"})
