"""Request checks the gateway runs before the SDK (and before any fast path that answers for it).

Three jobs, each answering with the protocol's error or a clear 4xx instead of a 500, a reset or
silence: reading the body in chunks under the cap (the rest is drained so the client hears the 413),
checking the JSON-RPC envelope (version, id, method, params), and the SDK's own transport checks
(Host/Origin per ``TransportSecuritySettings``, Content-Type, Accept), which the tools/list memo must
pass exactly as the SDK would before it may replay an answer.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request

Receive = Callable[[], Awaitable[dict[str, Any]]]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
# A body over the cap is still read (and dropped) up to this much, so that the client, still sending,
# receives the 413 instead of a connection reset; past it the connection is given up.
DRAIN_LIMIT_BYTES = 64 * 1024 * 1024
_ROUTING_HEADERS = (b"mcp-method", b"mcp-name")


@dataclass(frozen=True)
class Body:
    """What was read: the bytes (empty when over the cap) and whether the cap was passed."""

    data: bytes
    too_large: bool


@dataclass(frozen=True)
class Refusal:
    """A JSON-RPC error to answer before the SDK: HTTP status, code, message and the request id (or None)."""

    status: int
    code: int
    message: str
    request_id: Any = None


async def read_body(receive: Receive, headers: dict[bytes, bytes], max_bytes: int) -> Body:
    """Read the request body in chunks, keeping at most ``max_bytes``; drain what comes beyond."""
    declared = headers.get(b"content-length", b"")
    too_large = declared.isdigit() and int(declared) > max_bytes
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            too_large = True
            chunks.clear()
        if not too_large:
            chunks.append(chunk)
        if not message.get("more_body") or size > DRAIN_LIMIT_BYTES:
            break
    return Body(b"" if too_large else b"".join(chunks), too_large)


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_message(body: bytes) -> tuple[Any, Refusal | None]:
    """The decoded JSON-RPC message, or the refusal of a body that is not JSON (NaN, deep nesting …).

    An empty body or other invalid JSON is left to the SDK (its own parse error); what the SDK cannot
    survive (nesting deep enough to exhaust the recursion limit) or silently takes (NaN) is refused here.
    """
    try:
        return json.loads(body, parse_constant=_refuse_constant), None
    except RecursionError:
        return None, Refusal(400, PARSE_ERROR, "Parse error: the JSON is nested too deeply")
    except ValueError as exc:
        if "is not JSON" in str(exc):
            return None, Refusal(400, PARSE_ERROR, f"Parse error: {exc}")
        return None, None  # the SDK answers its own parse error


def _valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return False  # JSON-RPC ids are strings or integers (1.5 would be unanswerable)
    return isinstance(value, (str, int))


def envelope_refusal(message: Any) -> Refusal | None:
    """Why a JSON-RPC object is not a request or notification we can answer, or None.

    Batches and posted responses are left to the SDK, which refuses them in its own words.
    """
    if not isinstance(message, dict) or ("method" not in message and ("result" in message or "error" in message)):
        return None
    request_id = message.get("id") if _valid_id(message.get("id")) else None
    if message.get("jsonrpc") != "2.0":
        return Refusal(400, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    if "id" in message and not _valid_id(message["id"]):
        return Refusal(400, INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    if not isinstance(message.get("method"), str):
        return Refusal(400, INVALID_REQUEST, 'Invalid Request: "method" must be a string', request_id)
    if "params" in message and not isinstance(message["params"], dict):
        return Refusal(400, INVALID_PARAMS, 'Invalid params: "params" must be an object', request_id)
    return None


async def passes_transport_checks(scope: dict[str, Any], security: TransportSecuritySettings) -> bool:
    """Whether the SDK's transport checks would let this POST through (JSON response mode).

    Host and Origin (DNS-rebinding protection as configured), Content-Type application/json, an Accept
    that admits application/json, and routing headers (``Mcp-Method``/``Mcp-Name``) at most once each.
    """
    request = Request(scope)
    if await TransportSecurityMiddleware(security).validate_request(request, is_post=True) is not None:
        return False
    has_json, _ = check_accept_headers(request)
    if not has_json:
        return False
    names = [name.lower() for name, _ in scope.get("headers") or []]
    return all(names.count(header) <= 1 for header in _ROUTING_HEADERS)
