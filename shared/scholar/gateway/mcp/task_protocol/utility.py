"""The 2025-11-25 task utility (``capabilities.tasks``, task-augmented tools/call, ``tasks/*``) as a middleware.

The SDK ships these types only: ``tasks/*`` are not dispatched, a ``task`` param on tools/call is
ignored, and a CreateTaskResult returned by the tools/call handler fails the result check. So a
server middleware answers them before the SDK looks anything up, on handshake-era requests only
(2026-07-28 requests pass through to the ``io.modelcontextprotocol/tasks`` extension, which owns
``tasks/get`` and ``tasks/cancel`` there). A short-circuited answer is the middleware's own wire result.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from scholar.families import get_tool
from scholar.gateway.mcp.task_protocol.shared import (
    TaskView,
    caller,
    cancel_task,
    inline_ttl_s,
    list_caller_tasks,
    queued_task_id,
    read_task,
    record_inline,
    require_task,
    tool_result,
    with_related_task,
)

CallTool = Callable[[Any, types.CallToolRequestParams], Awaitable[types.CallToolResult]]
MethodHandler = Callable[[ServerRequestContext[Any, Any], Mapping[str, Any]], Awaitable[HandlerResult]]

TASKS_CAPABILITY = types.ServerTasksCapability(
    list=types.TasksListCapability(),
    cancel=types.TasksCancelCapability(),
    requests=types.ServerTasksRequestsCapability(tools=types.TasksToolsCapability(call=types.TasksCallCapability())),
)
# tasks/result blocks until the task is terminal (spec), but API Gateway cuts a request at ~29 s.
RESULT_WAIT_S = 20.0
RESULT_POLL_S = 0.5
LIST_PAGE_SIZE = 50
LIST_SCAN_LIMIT = 200  # tasks expire within the hour, so a caller rarely has more


def task_2025(view: TaskView) -> types.Task:
    """The 2025-11-25 wire Task of a TaskTable item."""
    return types.Task(
        task_id=view.task_id,
        status=view.status,
        status_message=view.status_message,
        created_at=view.created_at,
        last_updated_at=view.last_updated_at,
        ttl=view.ttl_ms,
        poll_interval=view.poll_interval_ms,
    )


def _encode_cursor(view: TaskView) -> str:
    raw = json.dumps([view.item.created_at, view.task_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        created_at, task_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return float(created_at), str(task_id)
    except (binascii.Error, ValueError, TypeError) as exc:
        raise MCPError(code=types.INVALID_PARAMS, message="invalid cursor: pass back a nextCursor unchanged") from exc


class TaskUtilityMiddleware:
    """Serve the 2025-11-25 task utility for handshake-era requests; pass everything else through.

    Args:
        call_tool: the gateway's tools/call handler (runs a tool as a direct call would).
        result_wait_s: how long ``tasks/result`` waits for a working task before answering REQUEST_TIMEOUT
            (default: ``RESULT_WAIT_S``, read at call time).
    """

    def __init__(self, call_tool: CallTool, *, result_wait_s: float | None = None) -> None:
        self.call_tool = call_tool
        self._result_wait_s = result_wait_s
        self._methods: dict[str, MethodHandler] = {
            "tasks/get": self._get,
            "tasks/result": self._result,
            "tasks/list": self._list,
            "tasks/cancel": self._cancel,
        }

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.request_id is None or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return await call_next(ctx)
        params: Mapping[str, Any] = ctx.params or {}
        if ctx.method == "initialize":
            return self._advertise(await call_next(ctx))
        handler = self._methods.get(ctx.method)
        if handler is not None:
            return await handler(ctx, params)
        if ctx.method == "tools/call" and params.get("task") is not None:
            return await self._call_as_task(ctx, params)
        return await call_next(ctx)

    @staticmethod
    def _advertise(result: HandlerResult) -> HandlerResult:
        # capabilities.tasks exists only from 2025-11-25; older handshakes keep their own surface.
        if isinstance(result, dict) and result.get("protocolVersion") == "2025-11-25":
            capabilities = dict(result.get("capabilities") or {})
            capabilities["tasks"] = TASKS_CAPABILITY.model_dump(by_alias=True, mode="json", exclude_none=True)
            result = {**result, "capabilities": capabilities}
        return result

    async def _call_as_task(
        self, ctx: ServerRequestContext[Any, Any], raw: Mapping[str, Any]
    ) -> types.CreateTaskResult:
        params = types.CallToolRequestParams.model_validate(raw, by_name=False)
        spec = get_tool(params.name)
        if spec is not None and not spec.may_queue:
            # Spec: a task-augmented call of a tool whose taskSupport is forbidden is refused.
            raise MCPError(
                code=types.METHOD_NOT_FOUND,
                message=f"tool {params.name!r} does not run as a task (taskSupport is forbidden); call it directly",
            )
        principal = caller(ctx)
        result = await self.call_tool(ctx, params)
        task_id = queued_task_id(result)
        item = await read_task(task_id, principal) if task_id else None
        if item is None:
            # Answered at once (or refused): keep the answer as an already-finished task of the caller.
            ttl_s = inline_ttl_s(params.task.ttl if params.task else None)
            item = await record_inline(principal, params.name, dict(params.arguments or {}), result, ttl_s)
        return types.CreateTaskResult(task=task_2025(TaskView(item)))

    async def _get(self, ctx: ServerRequestContext[Any, Any], raw: Mapping[str, Any]) -> types.GetTaskResult:
        params = types.GetTaskRequestParams.model_validate(raw, by_name=False)
        item = await require_task(params.task_id, caller(ctx))
        return types.GetTaskResult.model_validate(task_2025(TaskView(item)).model_dump(by_alias=True))

    async def _result(self, ctx: ServerRequestContext[Any, Any], raw: Mapping[str, Any]) -> types.CallToolResult:
        params = types.GetTaskPayloadRequestParams.model_validate(raw, by_name=False)
        principal = caller(ctx)
        wait_s = RESULT_WAIT_S if self._result_wait_s is None else self._result_wait_s
        with anyio.move_on_after(wait_s):
            while True:
                item = await require_task(params.task_id, principal)
                if TaskView(item).terminal:
                    break
                await anyio.sleep(RESULT_POLL_S)
        item = await require_task(params.task_id, principal)
        if item.status == "cancelled":
            raise MCPError(code=types.INVALID_PARAMS, message=f"task {params.task_id} was cancelled; it has no result")
        if not TaskView(item).terminal:
            raise MCPError(
                code=types.REQUEST_TIMEOUT,
                message=f"task {params.task_id} is still working; poll tasks/get and ask for the result again",
            )
        return with_related_task(await tool_result(item), item.task_id)

    async def _list(self, ctx: ServerRequestContext[Any, Any], raw: Mapping[str, Any]) -> types.ListTasksResult:
        params = types.PaginatedRequestParams.model_validate(raw, by_name=False)
        views = [TaskView(item) for item in await list_caller_tasks(caller(ctx), LIST_SCAN_LIMIT)]
        views.sort(key=lambda v: (v.item.created_at, v.task_id), reverse=True)
        if params.cursor:
            after = _decode_cursor(params.cursor)
            views = [v for v in views if (v.item.created_at, v.task_id) < after]
        page = views[:LIST_PAGE_SIZE]
        next_cursor = _encode_cursor(page[-1]) if len(views) > LIST_PAGE_SIZE else None
        return types.ListTasksResult(tasks=[task_2025(v) for v in page], next_cursor=next_cursor)

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], raw: Mapping[str, Any]) -> types.CancelTaskResult:
        from scholar.store.tasks import TaskTransitionError  # noqa: PLC0415  # with the first task read

        params = types.CancelTaskRequestParams.model_validate(raw, by_name=False)
        principal = caller(ctx)
        item = await require_task(params.task_id, principal)
        if not TaskView(item).terminal:
            try:
                cancelled = await cancel_task(item)
                return types.CancelTaskResult.model_validate(task_2025(TaskView(cancelled)).model_dump(by_alias=True))
            except TaskTransitionError:
                item = await read_task(params.task_id, principal) or item  # it finished meanwhile
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Cannot cancel task: it is already {TaskView(item).status} (terminal states never change)",
        )


__all__ = ["TASKS_CAPABILITY", "TaskUtilityMiddleware", "task_2025"]
