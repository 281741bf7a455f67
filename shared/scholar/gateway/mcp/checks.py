"""Request checks the gateway runs before the SDK (and before any fast path that answers for it).

Each answers with the protocol's error or a clear 4xx instead of a 500, a reset or silence:

1. Host and Origin of the local server, matched exactly (``rebinding_refusal``). The SDK's own patterns
   (``127.0.0.1:*``) match by prefix, so ``Host: 127.0.0.1:3000@evil.example`` or
   ``Origin: http://127.0.0.1:3000.evil.example`` passed them; here a Host must be one of this server's
   names with its own port, written as a browser writes it.
2. The body, read in chunks under the cap; a declared Content-Length over the cap is refused before a
   byte is read (a client may announce more than it will ever send), and what an honest client is still
   sending is drained, bounded in bytes and time, so that it hears the 413 instead of a reset.
3. The JSON-RPC envelope (version, id, method, params).
4. The 2026-07-28 routing headers (``Mcp-Method``, ``Mcp-Name``), which must mirror the body.
5. The SDK's own transport checks (Content-Type, Accept), which the tools/list memo must pass exactly as
   the SDK would before it may replay an answer.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    decode_header_value,
)
from mcp.types import HEADER_MISMATCH, PROTOCOL_VERSION_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request

Receive = Callable[[], Awaitable[dict[str, Any]]]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
# After the 413 is sent, what a client is still sending is read (and dropped) up to this much and this long,
# so that an honest client hears the 413 instead of a connection reset; past either the connection is given up.
DRAIN_LIMIT_BYTES = 64 * 1024 * 1024
DRAIN_TIMEOUT_S = 10.0
MISDIRECTED = 421
FORBIDDEN = 403
# The names a browser on this machine reaches the local server by (plus the address it is bound to).
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")
_HTTP_DEFAULT_PORT = 80
_ROUTING_HEADERS = (MCP_METHOD_HEADER.encode(), MCP_NAME_HEADER.encode())
_OWS = " \t"  # optional whitespace around a field value (RFC 9110 §5.5), not part of it


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


def _header_values(scope: dict[str, Any], name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope.get("headers") or [] if key.lower() == name]


def own_hosts(server: Any) -> frozenset[str]:
    """The Host values naming the local server bound at ``server`` ((address, port) of the ASGI scope).

    Each loopback name, and the bound address when it is a specific one, with the port (which a browser omits
    for 80); lower case, no trailing dot, no user info.
    """
    address, port = (server or ("", None))[:2]
    names = set(LOOPBACK_NAMES)
    if address not in _WILDCARD_ADDRESSES:
        names.add(f"[{address}]" if ":" in address else address)
    suffixes = ("", f":{port}") if port == _HTTP_DEFAULT_PORT else (f":{port}",)
    return frozenset(f"{name}{suffix}" for name in names for suffix in suffixes)


def rebinding_refusal(scope: dict[str, Any]) -> Refusal | None:
    """Why a request to the local server does not name it exactly (421 for the Host, 403 for the Origin), or None.

    DNS rebinding makes a browser send a page's requests to 127.0.0.1 under a foreign name: the Host (and the
    Origin, when the browser sends one) then differ from every name of this server. Compared as whole strings,
    so no suffix, user info or second port can ride along.
    """
    hosts = own_hosts(scope.get("server"))
    host = _header_values(scope, b"host")
    if len(host) != 1 or host[0] not in hosts:
        example = max(h for h in hosts if h.startswith("127.0.0.1"))
        return Refusal(MISDIRECTED, INVALID_REQUEST,
                       f"misdirected request: the Host header must name this server exactly (e.g. {example})")
    origin = _header_values(scope, b"origin")
    if origin and (len(origin) != 1 or origin[0] not in {f"http://{h}" for h in hosts}):
        return Refusal(FORBIDDEN, INVALID_REQUEST, "forbidden: a page of another origin may not call this server")
    return None


def declared_over(headers: dict[bytes, bytes], max_bytes: int) -> bool:
    """Whether the request announces a body over ``max_bytes`` (its Content-Length; any number of digits)."""
    declared = headers.get(b"content-length", b"").strip()
    return declared.isdigit() and int(declared) > max_bytes


async def read_body(receive: Receive, headers: dict[bytes, bytes], max_bytes: int) -> Body:
    """Read the request body in chunks, keeping at most ``max_bytes``; stop once past it.

    A Content-Length over ``max_bytes`` is too large before anything is read: the client may never send what it
    announced (``Content-Length: 99999999999999999999`` with a short body would otherwise wait for the rest).
    After a ``too_large`` answer, ``drain`` what the client still sends.
    """
    if declared_over(headers, max_bytes):
        return Body(b"", too_large=True)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            return Body(b"", too_large=True)
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return Body(b"".join(chunks), too_large=False)


async def drain(receive: Receive, *, limit_bytes: int = DRAIN_LIMIT_BYTES, within_s: float = DRAIN_TIMEOUT_S) -> None:
    """Read and drop the rest of a refused body, up to ``limit_bytes`` and ``within_s`` (then the server closes).

    Called after the refusal was sent: a client still uploading hears it instead of a reset, and one that
    announced more than it sends costs at most ``within_s`` of an idle coroutine.
    """
    size = 0
    with anyio.move_on_after(within_s):
        while size <= limit_bytes:
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body"):
                return
            size += len(message.get("body", b""))


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


def _versions(scope: dict[str, Any], message: dict[str, Any]) -> tuple[str | None, Any]:
    """The protocol version a request names in its ``MCP-Protocol-Version`` header and in its ``params._meta``."""
    header = _header_values(scope, MCP_PROTOCOL_VERSION_HEADER.encode())
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return (header[0].strip(_OWS) if header else None,
            meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None)


def routing_refusal(scope: dict[str, Any], message: dict[str, Any]) -> Refusal | None:
    """Why a 2026-07-28 request's routing headers do not mirror its body (400, HeaderMismatch -32020), or None.

    In that era (``MCP-Protocol-Version: 2026-07-28``, or that version in ``params._meta``) every request carries
    the version header equal to its ``_meta`` version, ``Mcp-Method`` equal to its method, and tools/call,
    prompts/get and resources/read carry ``Mcp-Name`` equal to the name (or uri) in the body (base64-sentinel
    values decoded). Values are compared case-sensitively once the optional whitespace around them is dropped;
    header names are case-insensitive (ASGI lowers them). A notification (no id) is left to the SDK: the era
    defines no header rules for it. The 2025-11-25 era has no such headers, so nothing is checked there.
    """
    header, meta = _versions(scope, message)
    if (header not in MODERN_PROTOCOL_VERSIONS and meta not in MODERN_PROTOCOL_VERSIONS) or "id" not in message:
        return None
    request_id = message.get("id")

    def mismatch(why: str) -> Refusal:
        return Refusal(400, HEADER_MISMATCH, f"Header mismatch: {why}", request_id)

    if meta in MODERN_PROTOCOL_VERSIONS and header != meta:
        # Without the header the SDK would take the request for a handshake-era one and skip the era's rules.
        return mismatch(f"the {MCP_PROTOCOL_VERSION_HEADER} header must equal the version in params._meta ({meta})")
    for routing in (MCP_METHOD_HEADER, MCP_NAME_HEADER):
        if len(_header_values(scope, routing.encode())) > 1:
            return mismatch(f"the {routing} header appears more than once")
    method = _header_values(scope, MCP_METHOD_HEADER.encode())
    if not method:
        return mismatch(f"the {MCP_METHOD_HEADER} header is missing (it must equal the body's method)")
    if method[0].strip(_OWS) != message.get("method"):
        return mismatch(f"the {MCP_METHOD_HEADER} header does not match the body's method")
    key = NAME_BEARING_METHODS.get(str(message.get("method")))
    params = message.get("params")
    named = params.get(key) if key is not None and isinstance(params, dict) else None
    if named is None:
        return None  # nothing to mirror (the SDK refuses a call without a name in its own words)
    name = _header_values(scope, MCP_NAME_HEADER.encode())
    if not name:
        return mismatch(f"the {MCP_NAME_HEADER} header is missing (it must equal the body's {key})")
    if decode_header_value(name[0].strip(_OWS)) != named:
        return mismatch(f"the {MCP_NAME_HEADER} header does not match the body's {key}")
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
    return all(len(_header_values(scope, header)) <= 1 for header in _ROUTING_HEADERS)
