"""Calling the research function's internal actions (resources, the caller's completions) for one request.

The same path as tools/call: the principal bound from the request (never from the params), the blocking invoke
on the event loop only when the process serves this request alone (a Lambda invocation), else in a worker
thread. A failed action is a JSON-RPC error (these are protocol methods, not tools): ``invalid_argument`` and
``not_found`` are the caller's (-32602, which the 2026-07-28 wire answers with HTTP 400), anything else is
-32603 with the envelope's facts in ``data`` (HTTP 200: never a 5xx).
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from mcp import types
from mcp.shared.exceptions import MCPError

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, ScholarError
from scholar.runtime.invocation import Outcome
from scholar.runtime.invoke import invoke_action

logger = logging.getLogger(__name__)

FAMILY = "research"
_ERROR_FACTS = ("code", "retryable", "retry_after_s", "reason")


def scope_of(ctx: Any) -> dict[str, Any]:
    """The ASGI scope of the HTTP request behind ``ctx`` (empty in-process)."""
    return getattr(getattr(ctx, "request", None), "scope", None) or {}


def protocol_error(error: dict[str, Any], data: dict[str, Any] | None = None) -> MCPError:
    """The JSON-RPC error of a failed action's envelope body; ``data`` is added to the error's data."""
    facts = {key: error[key] for key in _ERROR_FACTS if key in error}
    code = types.INVALID_PARAMS if error.get("code") in (INVALID_ARGUMENT, NOT_FOUND) else types.INTERNAL_ERROR
    message = str(error.get("message") or "the request failed")
    return MCPError(code=code, message=message, data={**facts, **(data or {})})


async def research_action(ctx: Any, principal: str, action: str, *, error_data: dict[str, Any] | None = None,
                          **fields: Any) -> dict[str, Any]:
    """Run one research action for ``principal`` and return its result.

    Args:
        error_data: added to the data of the error raised when the action fails (e.g. the URI read).

    Raises:
        MCPError: the action failed (see ``protocol_error``), or the function could not be reached (-32603).
    """
    try:
        if "aws.event" in scope_of(ctx):  # under Mangum one invocation is one request
            outcome: Outcome = invoke_action(FAMILY, action, principal=principal, **fields)
        else:
            outcome = await anyio.to_thread.run_sync(lambda: invoke_action(FAMILY, action, principal=principal,
                                                                           **fields))
    except ScholarError as err:
        raise protocol_error(err.envelope_body(), error_data) from err
    except Exception as exc:  # the gateway never answers 5xx: a dispatch failure is a protocol error
        logger.exception("research action %s failed", action)
        raise MCPError(code=types.INTERNAL_ERROR, message="the research function could not be reached; the failure "
                       "was logged", data={"retryable": True}) from exc
    if outcome.ok and outcome.result is not None:
        return outcome.result
    raise protocol_error(outcome.error or {"code": "internal", "message": "the action gave no result"}, error_data)
