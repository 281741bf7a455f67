"""tools/call: validate against the catalogue, bind the caller, run the tool in its family function."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from mcp import types

from scholar.core.catalogue import ALL_PROFILE, Selection, ToolSpec
from scholar.core.config import get_settings
from scholar.core.content import split_extra_content
from scholar.core.errors import InternalError, InvalidArgumentError, ScholarError, envelope
from scholar.families.profiles import listing_of, refusal, tool_names
from scholar.runtime.calls import reachable, run_tool
from scholar.runtime.invocation import Outcome
from scholar.runtime.progress import Reporter, Step, reporting

logger = logging.getLogger(__name__)


def text_content(data: Any) -> list[types.TextContent]:
    """The JSON text block that accompanies every structuredContent."""
    return [types.TextContent(text=json.dumps(data, ensure_ascii=False, separators=(",", ":")))]


def envelope_result(body: dict[str, Any]) -> types.CallToolResult:
    """An ``isError`` result carrying the error envelope ``{"error": body}``."""
    wrapped = envelope(body)
    return types.CallToolResult(content=text_content(wrapped), structured_content=wrapped, is_error=True)


def error_result(err: ScholarError) -> types.CallToolResult:
    return envelope_result(err.envelope_body())


def success_result(result: dict[str, Any]) -> types.CallToolResult:
    """A result: structuredContent and its JSON text, then any extra blocks the tool sent (scholar.core.content)."""
    result, extra = split_extra_content(result)
    blocks = [_block(b) for b in extra]
    return types.CallToolResult(content=[*text_content(result), *blocks], structured_content=result)


TOOL_NOT_LISTED = "tool_not_listed"


def not_listed(spec: ToolSpec, selection: Selection) -> InvalidArgumentError:
    """A tool this connection does not list: as unknown as any unlisted tool, but saying where it is listed."""
    profiles = [p for p in listing_of(spec.name) if p != ALL_PROFILE]
    route = f"?profile={profiles[0]}" if profiles else f"?profile={ALL_PROFILE}"
    also = f"?profile={selection.effective_profile}&toolsets={spec.family}" if selection.effective_profile else ""
    return InvalidArgumentError(
        f"{spec.name} is not listed on this connection ({selection.describe()}); it is in the {spec.family} toolset "
        f"and the profiles {', '.join(listing_of(spec.name))}",
        field="name",
        reason=TOOL_NOT_LISTED,
        hint=f"Connect with {route} or ?toolsets={spec.family} on the MCP URL"
        + (f" (or {also} to keep this connection's tools)" if also else "") + ", then call tools/list.",
        details={"toolset": spec.family, "profiles": list(listing_of(spec.name))},
    )


# Sends one notifications/progress for the request being served (the SDK's ``ctx.session.report_progress``).
SendProgress = Callable[[float, float | None, str | None], Coroutine[Any, Any, None]]


def thread_reporter(send: SendProgress) -> Reporter:
    """A progress reporter for a worker thread of this event loop: each step goes out as ``notifications/progress``
    (in order, progress always increasing, as the protocol asks)."""
    token = anyio.lowlevel.current_token()
    last = [0.0]

    def reporter(step: Step) -> None:
        value = step.done if step.done > last[0] else last[0] + 0.01
        last[0] = value
        total = step.total if step.total is not None and value <= step.total else None
        anyio.from_thread.run(send, value, total, step.message, token=token)

    return reporter


def _run_reporting(reporter: Reporter | None, spec: ToolSpec, arguments: dict[str, Any] | None,
                   principal: str) -> Outcome:
    with reporting(reporter):
        return run_tool(spec, arguments, principal)


def _block(extra: dict[str, Any]) -> types.TextContent | types.ImageContent | types.ResourceLink:
    if "uri" in extra:
        return types.ResourceLink(uri=extra["uri"], name=extra["name"], title=extra.get("title"),
                                  mime_type=extra["media_type"])
    if "data" in extra:
        return types.ImageContent(data=extra["data"], mime_type=extra["media_type"])
    return types.TextContent(text=extra["text"], meta={"mediaType": extra["media_type"]})


async def call_tool(
    spec: ToolSpec | None,
    name: str,
    arguments: dict[str, Any] | None,
    principal: str,
    selection: Selection | None,
    *,
    one_request_at_a_time: bool = False,
    progress: SendProgress | None = None,
) -> types.CallToolResult:
    """Run one tools/call and return its result (errors as ``isError`` results, never raised).

    Args:
        selection: what the caller's connection lists (``None``: no selection filter, as in-process callers use).
        one_request_at_a_time: the process serves this request alone (a Lambda invocation), so the blocking
            family call may run on the event loop; a shared server (uvicorn) hands it to a worker thread.
        progress: sends the client a progress notification (it sent a progressToken); a Lambda's buffered answer
            carries none (tasks show progress there).
    """
    settings = get_settings()
    if spec is None or not reachable(spec, settings):
        return error_result(
            InvalidArgumentError(f"unknown tool {name!r}; call tools/list for the available tools", field="name")
        )
    if selection is not None and (refused := refusal(selection)) is not None:
        return error_result(refused)
    if selection is not None and spec.name not in tool_names(selection):
        return error_result(not_listed(spec, selection))
    try:
        if one_request_at_a_time:
            outcome: Outcome = run_tool(spec, arguments, principal)  # a worker thread costs ~1 ms here
        else:
            reporter = None
            if progress is not None:
                await progress(0, None, f"{spec.name}: started")  # at once: the family's imports may take a second
                reporter = thread_reporter(progress)
            outcome = await anyio.to_thread.run_sync(_run_reporting, reporter, spec, arguments, principal)
    except ScholarError as err:
        return error_result(err)
    except Exception:  # the gateway never answers 5xx: a dispatch failure is a tool error
        logger.exception("dispatch of %s failed", spec.name)
        return error_result(InternalError("the tool could not be reached; the failure was logged", retryable=True))
    if outcome.ok and outcome.result is not None:
        return success_result(outcome.result)
    return envelope_result(
        outcome.error or InternalError("the tool gave no result", retryable=True).envelope_body()
    )
