"""The MCP server: tools/list and tools/call generated from the catalogue (low-level SDK server), and the
resources, prompts and completions of ``scholar.gateway.mcp.resources`` / ``prompts`` / ``completions``.

The capabilities in initialize and server/discover are the SDK's, derived from the handlers registered here:
tools, resources (no subscriptions), prompts and completions. tools/list is catalogue data (``public``, fresh for
an hour: it changes only with a deployment); the other lists state their own hints.
"""

from __future__ import annotations

from functools import cache, partial
from typing import Any
from urllib.parse import unquote_plus

from mcp import types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, compose_tool_call_handler
from mcp.shared.exceptions import MCPError

from scholar.core.catalogue import PROFILES, Selection
from scholar.core.config import get_settings
from scholar.core.config_parts import parse_toolsets
from scholar.families import all_tools, families, get_tool
from scholar.families.profiles import refusal
from scholar.gateway.mcp.dispatch import call_tool
from scholar.gateway.mcp.principal import LOCAL_PRINCIPAL, principal_from_scope
from scholar.gateway.mcp.stored_listing import StoredListings
from scholar.gateway.mcp.task_protocol.extension import TasksExtension
from scholar.gateway.mcp.task_protocol.utility import TaskUtilityMiddleware
from scholar.gateway.mcp.tools import CATALOGUE_TTL_MS, visible_tools, wire_tools

SERVER_NAME = "scholar-mcp"
PROFILE_PARAM = "profile"
TOOLSETS_PARAM = "toolsets"
SERVER_VERSION = "0.1.0"
INSTRUCTIONS = (
    "Scholarly literature, books, patents and technical standards. Identifiers returned by any tool are "
    "accepted by every other tool. Long work answers {queued: true, task_id}: poll get_task_result (clients "
    "that speak MCP Tasks get a task instead). "
    "Errors come as {error: {code, message, retryable, recovery}}; a failing source is never 'no results'. "
    "A connection lists one profile of tools (default: the research workflow); every other tool is reachable with "
    "?profile=all or ?toolsets=<families> on the MCP URL (get_server_info names the profiles). "
    "Your library items and the papers this server converted are resources (scholar://…); prompts hold the "
    "research workflows."
)
TOOLS_LIST_TTL_MS = CATALOGUE_TTL_MS


def _request_scope(ctx: Any) -> dict[str, Any]:
    request = getattr(ctx, "request", None)
    return getattr(request, "scope", None) or {}


def requested_selection(scope: dict[str, Any]) -> Selection:
    """The tools this request's connection lists (the landing page shows the same for the same URL).

    The URL's ``profile`` and ``toolsets`` replace the deployment's ``SCHOLAR_PROFILE`` / ``SCHOLAR_TOOLSETS`` as a
    pair: a URL that names either is read alone, so what a URL asks for does not depend on the server's setting.
    """
    query = {key: unquote_plus(value) for key, _, value in
             (part.partition("=") for part in scope.get("query_string", b"").decode("latin-1").split("&")) if value}
    if PROFILE_PARAM in query or TOOLSETS_PARAM in query:
        return Selection(query.get(PROFILE_PARAM, "").strip() or None, parse_toolsets(query.get(TOOLSETS_PARAM)))
    settings = get_settings()
    return Selection(settings.profile, settings.toolsets)


@cache
def _listing(names: tuple[str, ...]) -> dict[str, Any]:
    """The tools/list result of these tools, dumped once per environment.

    The SDK still validates and shapes it against the protocol version on every request; handing it a
    dump instead of a model spares it a deep ``model_dump`` of ~180 KB of schemas per call.
    """
    tools = wire_tools(spec for spec in all_tools().values() if spec.name in names)
    # Exactly the SDK's own dump of a returned model (mcp.server.runner._dump_result), made once.
    listing = types.ListToolsResult(tools=tools, ttl_ms=TOOLS_LIST_TTL_MS, cache_scope="public")
    return listing.model_dump(by_alias=True, mode="json", exclude_none=True)


def tools_listing(selection: Selection) -> dict[str, Any]:
    """The tools/list result of a connection's ``selection`` (a refused one: ``MCPError``, -32602)."""
    if (refused := refusal(selection)) is not None:
        raise MCPError(code=types.INVALID_PARAMS, message=refused.message,
                       data={"profiles": list(PROFILES), "toolsets": list(families())})
    specs = visible_tools(get_settings(), selection)
    return _listing(tuple(spec.name for spec in specs))


async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> dict[str, Any]:
    return dict(tools_listing(requested_selection(_request_scope(ctx))))  # a fresh top level: the SDK adds keys


def _stored_list_tools(stored: StoredListings) -> Any:
    async def on_list_tools_stored(ctx: Any, params: types.PaginatedRequestParams | None) -> dict[str, Any]:
        selection = requested_selection(_request_scope(ctx))
        return dict(stored.listing(selection, partial(tools_listing, selection)))

    return on_list_tools_stored


def _progress_sender(ctx: Any) -> Any:
    """The request's progress sender when the client asked for progress (a progressToken in ``_meta``), else None."""
    meta = getattr(ctx, "meta", None) or {}
    if meta.get("progress_token") is None and meta.get("progressToken") is None:
        return None
    return ctx.session.report_progress


def _caller(scope: dict[str, Any]) -> str:
    return principal_from_scope(scope) if scope else LOCAL_PRINCIPAL


async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    scope = _request_scope(ctx)
    principal = _caller(scope)
    return await call_tool(
        get_tool(params.name),
        params.name,
        params.arguments,
        principal,
        requested_selection(scope),
        # Under Mangum (API Gateway event in the scope) one invocation is one request.
        one_request_at_a_time="aws.event" in scope,
        progress=_progress_sender(ctx),
    )


async def on_list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
    # The resources, prompts and completions are imported by the first request for them: `scholar mcp` starts without.
    from scholar.gateway.mcp import resources  # noqa: PLC0415  # by the first request for it

    return await resources.list_resources(ctx, _caller(_request_scope(ctx)), params.cursor if params else None)


async def on_list_resource_templates(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    from scholar.gateway.mcp import resources  # noqa: PLC0415  # by the first request for it

    return resources.list_templates()


async def on_read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    from scholar.gateway.mcp import resources  # noqa: PLC0415  # by the first request for it

    return await resources.read_resource(ctx, _caller(_request_scope(ctx)), params.uri)


async def on_list_prompts(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
    from scholar.gateway.mcp import prompts  # noqa: PLC0415  # by the first request for it

    return prompts.list_prompts(get_settings(), requested_selection(_request_scope(ctx)))


async def on_get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    from scholar.gateway.mcp import prompts  # noqa: PLC0415  # by the first request for it

    return prompts.get_prompt(params.name, params.arguments, get_settings(), requested_selection(_request_scope(ctx)))


async def on_completion(ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
    from scholar.gateway.mcp import completions  # noqa: PLC0415  # by the first request for it

    scope = _request_scope(ctx)
    return await completions.complete(ctx, _caller(scope), params, get_settings(), requested_selection(scope))


def _version_gated(binding: MethodBinding) -> Any:
    async def handler(ctx: ServerRequestContext[Any, Any], params: Any) -> Any:
        if binding.protocol_versions is not None and ctx.protocol_version not in binding.protocol_versions:
            raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found", data=binding.method)
        return await binding.handler(ctx, params)

    return handler


def _host(server: Server, extensions: list[Extension]) -> None:
    """Apply SEP-2133 extensions to the lowlevel server as MCPServer(extensions=...) would.

    Their methods are registered (gated to their protocol versions), their settings advertised under
    ``capabilities.extensions``, and their ``intercept_tool_call`` hooks folded around tools/call.
    """
    for extension in extensions:
        for binding in extension.methods():
            server.add_request_handler(binding.method, binding.params_type, _version_gated(binding))
        server.extensions[extension.identifier] = extension.settings()
    server.add_request_handler(
        "tools/call", types.CallToolRequestParams, compose_tool_call_handler(extensions, on_call_tool)
    )


def build_server(*, stored_listings: StoredListings | None = None) -> Server:
    """The gateway's MCP server: catalogue tools, resources, prompts, completions, the 2025-11-25 task utility and
    the 2026 tasks extension.

    Args:
        stored_listings: where tools/list answers outlive the process (``scholar mcp``: the data folder's).
    """
    list_tools = on_list_tools if stored_listings is None else _stored_list_tools(stored_listings)
    server = Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        instructions=INSTRUCTIONS,
        # The SDK's annotation names the model only; it sends a dict result as it is (mcp.server.runner._dump_result).
        on_list_tools=list_tools,  # type: ignore[arg-type]  # a dict: the listing's exact JSON, no model round trip
        on_call_tool=on_call_tool,
        on_list_resources=on_list_resources,
        on_list_resource_templates=on_list_resource_templates,
        on_read_resource=on_read_resource,
        on_list_prompts=on_list_prompts,
        on_get_prompt=on_get_prompt,
        on_completion=on_completion,
    )
    # Replaces the SDK default [OpenTelemetryMiddleware()]: we export no OTel spans (tracing is X-Ray via
    # Powertools), and that middleware costs a span and attribute work on every message.
    server.middleware = [TaskUtilityMiddleware(on_call_tool)]
    _host(server, [TasksExtension()])
    return server
