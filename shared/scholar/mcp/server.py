"""The MCP server: tools/list and tools/call generated from the catalogue (low-level SDK server)."""

from __future__ import annotations

from typing import Any

from mcp import types
from mcp.server import Server

from scholar.catalogue import get_tool
from scholar.config import get_settings
from scholar.mcp.dispatch import call_tool
from scholar.mcp.principal import LOCAL_PRINCIPAL, principal_from_scope
from scholar.mcp.tools import parse_toolsets, visible_tools, wire_tools

SERVER_NAME = "scholar-mcp"
SERVER_VERSION = "0.1.0"
INSTRUCTIONS = (
    "Scholarly literature, books, patents and technical standards. Identifiers returned by any tool are "
    "accepted by every other tool. Long work answers {queued: true, task_id}: poll get_task_result. "
    "Errors come as {error: {code, message, retryable, recovery}}; a failing source is never 'no results'."
)


def _request_scope(ctx: Any) -> dict[str, Any]:
    request = getattr(ctx, "request", None)
    return getattr(request, "scope", None) or {}


def _toolsets(scope: dict[str, Any]) -> frozenset[str] | None:
    query = scope.get("query_string", b"").decode("latin-1")
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if key == "toolsets" and value:
            from urllib.parse import unquote_plus

            return parse_toolsets(unquote_plus(value))
    return get_settings().toolsets


async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    specs = visible_tools(get_settings(), _toolsets(_request_scope(ctx)))
    return types.ListToolsResult(tools=wire_tools(specs))


async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    scope = _request_scope(ctx)
    principal = principal_from_scope(scope) if scope else LOCAL_PRINCIPAL
    return await call_tool(get_tool(params.name), params.name, params.arguments, principal, _toolsets(scope))


def build_server() -> Server:
    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
