"""The 2026-07-28 ``io.modelcontextprotocol/tasks`` extension (SEP-2663), hosted through the SDK's Extension API.

Task creation is server-directed: a tools/call from a client that declared the extension in its
per-request capabilities, and whose tool answered with a queued result (``{queued: true, task_id}``),
is answered with a CreateTaskResult (``resultType: "task"``) for that same TaskTable item instead. A
call answered at once stays a plain CallToolResult, and a client that did not declare the extension
keeps the queued answer (and the polling tools). ``tasks/get`` inlines the final CallToolResult;
there is no ``tasks/list`` or ``tasks/result`` at this revision. mcp 2.3 ships no types for the
extension, so its wire shapes are declared here (schema: modelcontextprotocol/ext-tasks 2026-07-28).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from scholar.gateway.mcp.task_protocol.shared import (
    TaskView,
    caller,
    cancel_task,
    queued_task_id,
    read_task,
    require_task,
    tool_result,
)

EXTENSION_ID = "io.modelcontextprotocol/tasks"
ExtensionStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class ExtensionTask(_Wire):
    """The extension's Task: status and timing (``ttlMs`` / ``pollIntervalMs``, not 2025's ``ttl``)."""

    task_id: str
    status: ExtensionStatus
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class CreateTaskResult(ExtensionTask):
    """Returned by tools/call in lieu of a CallToolResult (flat: ``Result & Task``)."""

    result_type: Literal["task"] = "task"


class DetailedTask(ExtensionTask):
    """The ``tasks/get`` answer: the task with its final result inlined once completed."""

    result_type: Literal["complete"] = "complete"
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class UpdateTaskRequestParams(types.RequestParams):
    """``tasks/update`` params (our tasks never ask for input, so responses are only acknowledged)."""

    task_id: str
    input_responses: dict[str, Any] = Field(default_factory=dict)


def _task_fields(view: TaskView) -> dict[str, Any]:
    # A tool error (our "failed") is a completed call with isError at this revision: "failed" is
    # reserved for JSON-RPC errors, which a tool call that reached its family never produces.
    status = "completed" if view.item.status == "failed" else view.status
    return {
        "task_id": view.task_id,
        "status": status,
        "status_message": view.status_message,
        "created_at": view.created_at,
        "last_updated_at": view.last_updated_at,
        "ttl_ms": view.ttl_ms,
        "poll_interval_ms": view.poll_interval_ms,
    }


def create_task_result(view: TaskView) -> CreateTaskResult:
    """The CreateTaskResult of a TaskTable item."""
    return CreateTaskResult(**_task_fields(view))


async def detailed_task(view: TaskView) -> DetailedTask:
    """The DetailedTask of a TaskTable item (with the CallToolResult once it finished)."""
    task = DetailedTask(**_task_fields(view))
    if view.item.status in ("completed", "failed"):
        result = await tool_result(view.item)
        task.result = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return task


def declared(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this request's client capabilities declare the extension (2026: per request)."""
    capabilities = ctx.session.client_capabilities
    return bool(capabilities and capabilities.extensions and EXTENSION_ID in capabilities.extensions)


def require_declared(ctx: ServerRequestContext[Any, Any]) -> None:
    """Refuse a tasks/* request from a client that did not declare the extension.

    Raises:
        MCPError: MISSING_REQUIRED_CLIENT_CAPABILITY naming the extension.
    """
    if declared(ctx):
        return
    data = types.MissingRequiredClientCapabilityErrorData(
        required_capabilities=types.ClientCapabilities(extensions={EXTENSION_ID: {}})
    )
    raise MCPError(
        code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"Missing required client capability: declare the {EXTENSION_ID} extension",
        data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
    )


class TasksExtension(Extension):
    """``io.modelcontextprotocol/tasks``: task handles for queued tool calls, read from the TaskTable."""

    identifier = EXTENSION_ID

    def methods(self) -> Sequence[MethodBinding]:
        modern = frozenset(MODERN_PROTOCOL_VERSIONS)
        return (
            MethodBinding("tasks/get", types.GetTaskRequestParams, self._get, protocol_versions=modern),
            MethodBinding("tasks/update", UpdateTaskRequestParams, self._update, protocol_versions=modern),
            MethodBinding("tasks/cancel", types.CancelTaskRequestParams, self._cancel, protocol_versions=modern),
        )

    async def intercept_tool_call(
        self, params: types.CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        # Claimed result shapes cannot be delivered on a handshake-era wire; there the 2025 utility applies.
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS or not declared(ctx):
            return result
        task_id = queued_task_id(result)
        item = await read_task(task_id, caller(ctx)) if task_id else None
        return result if item is None else create_task_result(TaskView(item))

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: types.GetTaskRequestParams) -> DetailedTask:
        require_declared(ctx)
        return await detailed_task(TaskView(await require_task(params.task_id, caller(ctx))))

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskRequestParams) -> dict[str, Any]:
        require_declared(ctx)
        await require_task(params.task_id, caller(ctx))
        return {}  # no task of ours waits for input: responses to unknown keys are ignored (spec)

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], params: types.CancelTaskRequestParams
    ) -> dict[str, Any]:
        from scholar.store.tasks import TaskTransitionError  # noqa: PLC0415  # with the first task read

        require_declared(ctx)
        item = await require_task(params.task_id, caller(ctx))
        if not TaskView(item).terminal:
            try:
                await cancel_task(item)
            except TaskTransitionError:
                pass  # finished first: cancellation is cooperative and the ack stands (spec)
        return {}


__all__ = ["EXTENSION_ID", "CreateTaskResult", "DetailedTask", "TasksExtension", "create_task_result", "detailed_task"]
